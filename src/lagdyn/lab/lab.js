// lagdyn lab runtime: the seed-003 panels and table, computed live from the exported model
// functions (LAB_CONFIG and the lab_m* modules are defined before this script).
(function () {
  "use strict";
  const CFG = LAB_CONFIG;
  const MODS = CFG.conventions.map((c) => globalThis[c.module]);
  const P = MODS[0];
  const n = CFG.n;
  const NPT = CFG.n_points;
  const DT = CFG.swing_dt;
  const COLORS = { blue: "#1f77b4", orange: "#ff7f0e", green: "#2ca02c", grey: "#888" };

  // ------------------------------------------------------------------ labels
  const T = {
    en: {
      title: "Generalized coordinate lab",
      state: "State",
      rates: "Rates",
      params: "Parameters",
      force: "End force (N)",
      probe: "Tangent step",
      lang: "한국어",
      swing: "Swing",
      stop: "Stop",
      reset: "Reset",
      drift: "energy drift E(t) − E(0)",
      time: "time",
      config: "Reference, exact and tangent configurations",
      config_legend: "blue reference · orange exact · green tangent",
      velocities: "Actual instantaneous particle velocities",
      velocities_legend: "one colour per particle, m/s space",
      kinetic: "Coupling terms and total kinetic energy",
      kinetic_legend: "blue diagonal · orange coupling · green total",
      residual: "Exact and tangent residual of constraint",
      residual_legend: "blue exact map · orange finite tangent step",
      error: "Linearisation error of the configuration",
      error_legend: "Euclidean error of all particle positions",
      work: "Finite work and the first-order virtual work",
      work_legend: "blue finite work · orange ε × virtual work",
      table: "Mass matrices, energies, work and constraint residuals in both coordinates",
      quantity: "quantity",
      unit: "unit",
      comparison: "comparison",
      angle: "angle",
      coordinate: "coordinate",
      rate: "rate",
      metric: "metric",
      smallest: "smallest eigenvalue",
      largest: "largest eigenvalue",
      eigenvalue: "eigenvalue",
      K: "kinetic energy",
      Kpoints: "direct point energy",
      Kdiag: "kinetic energy: diagonal terms",
      Kcoupling: "kinetic energy: coupling terms",
      Q: "generalized force",
      power: "applied power",
      vwork: "virtual work",
      finite_h: "finite h{k}: tangent / mapped",
      perr: "position error",
      fwork: "finite work: exact / linear",
      energy: "energy E = K + V",
      mres: "metric residual |Mᵤ − AᵀMA|",
      cvel: "C ż (constraint velocity)",
      eps_note: "ε is dimensionless, not time",
      swing_note: "free swing: gravity only, RK4 with dt = {dt} s; the end force is not applied",
      note:
        "Absolute and relative coordinates describe the same physical state: kinetic energy, power and work agree, the eigenvalues of M do not. Virtual tangents satisfy C J = 0, finite tangent steps leave the constraints.",
      absolute: "absolute",
      relative: "relative",
      mixed: "mixed",
      ambient_dof: "ambient DOF",
      n_constraints: "constraints",
      dof: "DOF",
      diagonal: "diagonal",
      coupling: "coupling",
      mapped_h: "mapped h",
      tangent_h: "tangent h",
      err_short: "error",
      finite_work: "finite work",
      linear_work: "linear work",
      virtual_work: "virtual work",
      power_short: "power",
      rate_of: "rate of {name}",
      probe_of: "probe direction {name}",
      value_of: "{name}: value",
      slider_of: "{name}: slider",
      rejected_number: "not a number: “{text}” rejected; the page uses {name} = {value}",
      rejected_positive: "{name} must be positive: “{text}” rejected; the page uses {name} = {value}",
      rejected_nonnegative: "{name} must not be negative: “{text}” rejected; the page uses {name} = {value}",
      summary: "{n} coordinates ({names}); parameters {params}; {points} particles, {constraints} constraints",
      none: "none",
    },
    ko: {
      title: "일반화 좌표 실험실",
      state: "상태",
      rates: "각속도·속도",
      params: "매개변수",
      force: "끝점 힘 (N)",
      probe: "접선 걸음",
      lang: "English",
      swing: "흔들기",
      stop: "멈춤",
      reset: "처음으로",
      drift: "에너지 표류 E(t) − E(0)",
      time: "시간",
      config: "기준·정확·접선 배치",
      config_legend: "파랑 기준 · 주황 정확 · 초록 접선 배치",
      velocities: "질점별 실제 순간 속도",
      velocities_legend: "질점마다 한 색 · m/s 공간",
      kinetic: "결합 항과 총 운동에너지",
      kinetic_legend: "파랑 대각 · 주황 결합 · 초록 전체",
      residual: "구속의 정확·접선 잔차",
      residual_legend: "파랑 정확 사상 · 주황 유한 접선 배치",
      error: "배치 선형화 오차",
      error_legend: "모든 질점 위치의 유클리드 오차",
      work: "유한 외력 일과 가상 일의 일차 예측",
      work_legend: "파랑 유한 일 · 주황 ε × 가상 일",
      table: "두 좌표의 수치 질량 행렬·에너지·일과 구속 잔차",
      quantity: "양",
      unit: "단위",
      comparison: "비교",
      angle: "각도",
      coordinate: "좌표",
      rate: "속도",
      metric: "계량",
      smallest: "최소 고유값",
      largest: "최대 고유값",
      eigenvalue: "고유값",
      K: "운동에너지",
      Kpoints: "직접 질점 에너지",
      Kdiag: "운동에너지: 대각 항",
      Kcoupling: "운동에너지: 결합 항",
      Q: "일반화 힘",
      power: "적용 일률",
      vwork: "가상 일",
      finite_h: "유한 h{k}: 접선 / 사상",
      perr: "위치 오차",
      fwork: "유한 일: 정확 / 선형",
      energy: "에너지 E = K + V",
      mres: "계량 잔차 |Mᵤ − AᵀMA|",
      cvel: "C ż (구속 속도)",
      eps_note: "ε는 물리적 시간이 아닌 무차원 값입니다",
      swing_note: "자유 흔들기: 중력만, RK4 dt = {dt} s; 끝점 힘은 적용하지 않습니다",
      note:
        "절대각과 상대각은 같은 물리 상태를 뜻합니다: 운동에너지·일률·일은 같고 M의 고유값은 다릅니다. 가상 접선은 C J = 0을 만족하지만 유한 접선 걸음은 구속을 벗어납니다.",
      absolute: "절대각",
      relative: "상대각",
      mixed: "혼합",
      ambient_dof: "주변 공간 자유도",
      n_constraints: "구속",
      dof: "자유도",
      diagonal: "대각",
      coupling: "결합",
      mapped_h: "사상 h",
      tangent_h: "접선 h",
      err_short: "오차",
      finite_work: "유한 일",
      linear_work: "선형 일",
      virtual_work: "가상 일",
      power_short: "일률",
      rate_of: "{name}의 시간 변화율",
      probe_of: "탐침 방향 {name}",
      value_of: "{name}: 값",
      slider_of: "{name}: 슬라이더",
      rejected_number: "숫자가 아닙니다: “{text}”은(는) 거부되었습니다; 페이지는 {name} = {value}을(를) 씁니다",
      rejected_positive: "{name}은(는) 양수여야 합니다: “{text}”은(는) 거부되었습니다; 페이지는 {name} = {value}을(를) 씁니다",
      rejected_nonnegative: "{name}은(는) 음수일 수 없습니다: “{text}”은(는) 거부되었습니다; 페이지는 {name} = {value}을(를) 씁니다",
      summary: "좌표 {n}개 ({names}); 매개변수 {params}; 질점 {points}개, 구속 {constraints}개",
      none: "없음",
    },
  };
  let lang = CFG.lang === "ko" ? "ko" : "en";
  const tr = (key) => T[lang][key] || T.en[key] || key;
  // tr(key) with {name} placeholders filled
  const trf = (key, vals) => tr(key).replace(/\{(\w+)\}/g, (m, k) => (k in vals ? String(vals[k]) : m));
  const LBL = CFG.labels;
  const convLabel = (c) => (c.i18n ? tr(c.i18n) : c.label);

  // ------------------------------------------------------------------ state
  const S = {
    q: CFG.state.q.slice(),
    qd: CFG.state.qd.slice(),
    p: CFG.param_values.slice(),
    F: CFG.state.F.slice(),
    eps: CFG.state.eps,
    dq: CFG.state.dq.slice(),
  };
  const swing = { on: false, t: 0, E0: null, last: null };

  // ------------------------------------------------------------------ linear algebra
  const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
  const matvec = (A, x) => A.map((row) => dot(row, x));
  const tmatvec = (A, x) => A[0].map((_, j) => A.reduce((s, row, i) => s + row[j] * x[i], 0));
  const norm = (a) => Math.sqrt(dot(a, a));
  const axpy = (a, x, y) => y.map((v, i) => v + a * x[i]);
  function solve(A, b) {
    const m = A.length;
    const M = A.map((row, i) => [...row, b[i]]);
    for (let c = 0; c < m; c++) {
      let piv = c;
      for (let r = c + 1; r < m; r++) if (Math.abs(M[r][c]) > Math.abs(M[piv][c])) piv = r;
      [M[c], M[piv]] = [M[piv], M[c]];
      for (let r = c + 1; r < m; r++) {
        const f = M[r][c] / M[c][c];
        for (let k = c; k <= m; k++) M[r][k] -= f * M[c][k];
      }
    }
    const x = new Array(m).fill(0);
    for (let r = m - 1; r >= 0; r--) {
      let s = M[r][m];
      for (let k = r + 1; k < m; k++) s -= M[r][k] * x[k];
      x[r] = s / M[r][r];
    }
    return x;
  }
  function eigsym(A0) {
    // cyclic Jacobi rotations; eigenvalues ascending
    const m = A0.length;
    const A = A0.map((r) => r.slice());
    for (let sweep = 0; sweep < 60; sweep++) {
      let off = 0;
      for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) off += A[i][j] * A[i][j];
      if (off < 1e-30) break;
      for (let p = 0; p < m; p++) {
        for (let q = p + 1; q < m; q++) {
          if (A[p][q] === 0) continue;
          const th = (A[q][q] - A[p][p]) / (2 * A[p][q]);
          const t = Math.sign(th || 1) / (Math.abs(th) + Math.sqrt(th * th + 1));
          const c = 1 / Math.sqrt(t * t + 1);
          const s = t * c;
          for (let k = 0; k < m; k++) {
            const akp = A[k][p];
            const akq = A[k][q];
            A[k][p] = c * akp - s * akq;
            A[k][q] = s * akp + c * akq;
          }
          for (let k = 0; k < m; k++) {
            const apk = A[p][k];
            const aqk = A[q][k];
            A[p][k] = c * apk - s * aqk;
            A[q][k] = s * apk + c * aqk;
          }
        }
      }
    }
    return A.map((r, i) => r[i]).sort((x, y) => x - y);
  }

  // ------------------------------------------------------------------ physics
  const zeros = () => new Array(n).fill(0);
  const potential = (mod, q) => mod.energy(q, zeros(), S.p, 0);
  function endForce(J) {
    // generalized force of the constant end force F at the last point: J_endᵀ F
    const rx = J[2 * (NPT - 1)];
    const ry = J[2 * (NPT - 1) + 1];
    return rx.map((v, j) => v * S.F[0] + ry[j] * S.F[1]);
  }
  function toConvention(k, q, qd, dq) {
    if (k === 0) return { q: q.slice(), qd: qd.slice(), dq: dq.slice(), A: null };
    const mod = MODS[k];
    let u = (swing.guess && swing.guess[k]) || q.slice(); // the previous solution, else q
    for (let it = 0; it < 50; it++) {
      const r = mod.to_primary(u, S.p).map((v, i) => v - q[i]);
      const A = mod.to_primary_jacobian(u, S.p);
      const du = solve(A, r);
      u = u.map((v, i) => v - du[i]);
      if (norm(du) < 1e-15 * (1 + norm(u))) break;
    }
    swing.guess = swing.guess || {};
    swing.guess[k] = u.slice();
    const A = MODS[k].to_primary_jacobian(u, S.p);
    return { q: u, qd: solve(A, qd), dq: solve(A, dq), A };
  }
  function compute() {
    const R = { conv: [] };
    for (let k = 0; k < MODS.length; k++) {
      const mod = MODS[k];
      const c = toConvention(k, S.q, S.qd, S.dq);
      const M = mod.M(c.q, S.p);
      const J = mod.positions_jacobian(c.q, S.p);
      const Qapplied = mod.g(c.q, S.p).map((v, i) => -v + endForce(J)[i]);
      const Qnc = mod.forces(c.q, c.qd, S.p, 0);
      const Q = Qapplied.map((v, i) => v + Qnc[i]);
      let diag = 0;
      let coupling = 0;
      for (let i = 0; i < n; i++) {
        diag += 0.5 * M[i][i] * c.qd[i] * c.qd[i];
        for (let j = i + 1; j < n; j++) coupling += M[i][j] * c.qd[i] * c.qd[j];
      }
      R.conv.push({
        q: c.q,
        qd: c.qd,
        dq: c.dq,
        A: c.A,
        M,
        eig: eigsym(M),
        K: 0.5 * dot(c.qd, matvec(M, c.qd)),
        diag,
        coupling,
        Q,
        power: dot(Q, c.qd),
        vwork: dot(Qapplied, c.dq),
        E: mod.energy(c.q, c.qd, S.p, 0),
      });
    }
    const c0 = R.conv[0];
    if (MODS.length > 1) {
      const A = R.conv[1].A;
      const AtMA = A[0].map((_, i) => A[0].map((_, j) => {
        let s = 0;
        for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) s += A[a][i] * c0.M[a][b] * A[b][j];
        return s;
      }));
      R.mres = Math.max(...AtMA.flatMap((row, i) => row.map((v, j) => Math.abs(v - R.conv[1].M[i][j]))));
    }
    // particles: positions, velocities, point energy
    const z = P.positions(S.q, S.p);
    const J = P.positions_jacobian(S.q, S.p);
    const zd = matvec(J, S.qd);
    R.z = z;
    R.zd = zd;
    if (CFG.has_masses) {
      const m = P.point_masses(S.q, S.p);
      R.Kpoints = 0.5 * m.reduce((s, mk, k) => s + mk * (zd[2 * k] ** 2 + zd[2 * k + 1] ** 2), 0);
    }
    // tangent step: z + εJδq against z(q + εδq)
    const step = (eps) => {
      const zt = axpy(eps, matvec(J, S.dq), z);
      const qe = axpy(eps, S.dq, S.q);
      const ze = P.positions(qe, S.p);
      const e = NPT - 1;
      const fwork =
        -(potential(P, qe) - potential(P, S.q)) +
        S.F[0] * (ze[2 * e] - z[2 * e]) +
        S.F[1] * (ze[2 * e + 1] - z[2 * e + 1]);
      return {
        zt,
        ze,
        ht: CFG.n_constraints ? P.constraints(zt, S.p) : [],
        he: CFG.n_constraints ? P.constraints(ze, S.p) : [],
        err: norm(zt.map((v, i) => v - ze[i])),
        fwork,
        lwork: eps * c0.vwork,
      };
    };
    R.step = step(S.eps);
    R.curve = [];
    for (let i = 0; i <= 40; i++) R.curve.push({ eps: i / 40, ...step(i / 40) });
    if (CFG.n_constraints) {
      const C = P.constraints_jacobian(z, S.p);
      R.cvel = matvec(C, zd);
    }
    return R;
  }

  // ------------------------------------------------------------------ swing (RK4)
  function rhs(q, qd) {
    return P.forward_dynamics(q, qd, zeros(), S.p, 0);
  }
  function rk4(q, qd, h) {
    const k1q = qd;
    const k1v = rhs(q, qd);
    const k2q = axpy(h / 2, k1v, qd);
    const k2v = rhs(axpy(h / 2, k1q, q), k2q);
    const k3q = axpy(h / 2, k2v, qd);
    const k3v = rhs(axpy(h / 2, k2q, q), k3q);
    const k4q = axpy(h, k3v, qd);
    const k4v = rhs(axpy(h, k3q, q), k4q);
    const qn = q.map((v, i) => v + (h / 6) * (k1q[i] + 2 * k2q[i] + 2 * k3q[i] + k4q[i]));
    const vn = qd.map((v, i) => v + (h / 6) * (k1v[i] + 2 * k2v[i] + 2 * k3v[i] + k4v[i]));
    return [qn, vn];
  }
  function advance(seconds) {
    if (swing.E0 === null) swing.E0 = P.energy(S.q, S.qd, S.p, 0);
    const steps = Math.round(seconds / DT);
    let q = S.q;
    let qd = S.qd;
    for (let i = 0; i < steps; i++) [q, qd] = rk4(q, qd, DT);
    S.q = q;
    S.qd = qd;
    swing.t += steps * DT;
    update(false);
  }

  // ------------------------------------------------------------------ formatting
  function fmt(x) {
    if (x === "" || x === undefined || x === null) return "";
    if (!isFinite(x)) return String(x);
    if (Math.abs(x) < 1e-12) return "0";
    return String(Number(x.toPrecision(4)));
  }
  const el = (id) => document.getElementById(id);

  // ------------------------------------------------------------------ table
  function units() {
    // units of each column's coordinates; a row whose columns differ shows "primary | other"
    const kinds = CFG.conventions.slice(0, 2).map((c) => c.kinds);
    const base = (kind, k) => (kind[k] === "angle" ? "rad" : "m");
    const metric = (kind, i, j) => ["kg", "kg m", "kg m²"][(kind[i] === "angle") + (kind[j] === "angle")];
    const same = (kind) => kind.every((x) => x === kind[0]);
    const per = {
      coord: (kind, i) => base(kind, i),
      rate: (kind, i) => base(kind, i) + "/s",
      metric,
      eig: (kind) => (same(kind) ? metric(kind, 0, 0) : tr("mixed")),
      force: (kind, i) => (kind[i] === "angle" ? "N m" : "N"),
    };
    const U = {};
    for (const [name, f] of Object.entries(per)) {
      U[name] = (...args) => {
        const all = kinds.map((kind) => f(kind, ...args));
        return all.every((u) => u === all[0]) ? all[0] : all.join(" | ");
      };
    }
    return U;
  }
  const kindsUnit = () => units().eig().split(" | ")[0];
  function rows(R) {
    const U = units();
    const c0 = R.conv[0];
    const c1 = R.conv[1];
    const alt = (f) => (c1 ? f(c1) : "");
    const out = [];
    const cname = (i) => (CFG.coord_kinds[i] === "angle" ? tr("angle") : tr("coordinate")) + (i + 1);
    for (let i = 0; i < n; i++) out.push([`angle${i + 1}`, cname(i), c0.q[i], alt((c) => c.q[i]), U.coord(i)]);
    for (let i = 0; i < n; i++) out.push([`rate${i + 1}`, `${tr("rate")}${i + 1}`, c0.qd[i], alt((c) => c.qd[i]), U.rate(i)]);
    for (let i = 0; i < n; i++)
      for (let j = i; j < n; j++)
        out.push([`metric${i + 1}${j + 1}`, `${tr("metric")}${i + 1}${j + 1}`, c0.M[i][j], alt((c) => c.M[i][j]), U.metric(i, j)]);
    for (let k = 0; k < n; k++) {
      const label = k === 0 ? tr("smallest") : k === n - 1 ? tr("largest") : `${tr("eigenvalue")} ${k + 1}`;
      out.push([`eig${k + 1}`, label, c0.eig[k], alt((c) => c.eig[k]), U.eig()]);
    }
    out.push(["K", tr("K"), c0.K, alt((c) => c.K), "J"]);
    if (CFG.has_masses) out.push(["Kpoints", tr("Kpoints"), R.Kpoints, "", "J"]);
    out.push(["Kdiag", tr("Kdiag"), c0.diag, alt((c) => c.diag), "J"]);
    out.push(["Kcoupling", tr("Kcoupling"), c0.coupling, alt((c) => c.coupling), "J"]);
    for (let i = 0; i < n; i++) out.push([`Q${i + 1}`, `${tr("Q")}${i + 1}`, c0.Q[i], alt((c) => c.Q[i]), U.force(i)]);
    out.push(["power", tr("power"), c0.power, alt((c) => c.power), "W"]);
    out.push(["vwork", tr("vwork"), c0.vwork, alt((c) => c.vwork), "J"]);
    for (let k = 0; k < CFG.n_constraints; k++)
      out.push([`h${k + 1}`, tr("finite_h").replace("{k}", k + 1), R.step.ht[k], R.step.he[k], CFG.constraint_units[k]]);
    out.push(["perr", tr("perr"), R.step.err, "", "m"]);
    out.push(["fwork", tr("fwork"), R.step.fwork, R.step.lwork, "J"]);
    out.push(["E", tr("energy"), c0.E, alt((c) => c.E), "J"]);
    if (c1) out.push(["mres", tr("mres"), R.mres, "", kindsUnit()]);
    return out;
  }
  function renderTable(R) {
    const body = el("table-body");
    const html = rows(R).map(([key, label, a, b, unit]) => {
      const cell = (v, j) => `<td id="c-${key}-${j}" data-value="${v === "" ? "" : v}">${fmt(v)}</td>`;
      return `<tr id="r-${key}"><td>${label}</td>${cell(a, 0)}${cell(b, 1)}<td>${unit}</td></tr>`;
    });
    body.innerHTML = html.join("");
  }

  // ------------------------------------------------------------------ drawing
  function setupCanvas(id) {
    const cv = el(id);
    // draw at the displayed width (the panels share the window's width), keep the height
    const w = Math.round(cv.getBoundingClientRect().width);
    if (w > 0 && cv.width !== w) {
      const h = cv.height;
      cv.width = w;
      cv.style.height = `${h}px`;
    }
    const ctx = cv.getContext("2d");
    ctx.clearRect(0, 0, cv.width, cv.height);
    ctx.font = "11px sans-serif";
    return [cv, ctx];
  }
  function frame(ctx, W, H, xr, yr, equal) {
    const pad = 34;
    let [x0, x1] = xr;
    let [y0, y1] = yr;
    if (equal) {
      const sx = (W - 2 * pad) / (x1 - x0);
      const sy = (H - 2 * pad) / (y1 - y0);
      const s = Math.min(sx, sy);
      const cx = (x0 + x1) / 2;
      const cy = (y0 + y1) / 2;
      x0 = cx - (W - 2 * pad) / s / 2;
      x1 = cx + (W - 2 * pad) / s / 2;
      y0 = cy - (H - 2 * pad) / s / 2;
      y1 = cy + (H - 2 * pad) / s / 2;
    }
    const X = (x) => pad + ((x - x0) / (x1 - x0)) * (W - 2 * pad);
    const Y = (y) => H - pad - ((y - y0) / (y1 - y0)) * (H - 2 * pad);
    ctx.strokeStyle = "#ccc";
    ctx.strokeRect(pad, pad, W - 2 * pad, H - 2 * pad);
    ctx.fillStyle = "#555";
    ctx.fillText(fmt(x0), pad, H - pad + 13);
    ctx.fillText(fmt(x1), W - pad - 20, H - pad + 13);
    ctx.fillText(fmt(y0), 2, H - pad);
    ctx.fillText(fmt(y1), 2, pad + 8);
    if (x0 < 0 && x1 > 0) line(ctx, X(0), Y(y0), X(0), Y(y1), "#eee");
    if (y0 < 0 && y1 > 0) line(ctx, X(x0), Y(0), X(x1), Y(0), "#eee");
    return [X, Y];
  }
  function line(ctx, a, b, c, d, color, width) {
    ctx.strokeStyle = color;
    ctx.lineWidth = width || 1;
    ctx.beginPath();
    ctx.moveTo(a, b);
    ctx.lineTo(c, d);
    ctx.stroke();
    ctx.lineWidth = 1;
  }
  function range(vals, pad) {
    let lo = Math.min(...vals);
    let hi = Math.max(...vals);
    if (hi - lo < 1e-9) {
      lo -= 1;
      hi += 1;
    }
    const m = (hi - lo) * (pad || 0.1);
    return [lo - m, hi + m];
  }
  function drawConfig(R) {
    const [cv, ctx] = setupCanvas("cv-config");
    const sets = [
      [R.z, COLORS.blue],
      [R.step.ze, COLORS.orange],
      [R.step.zt, COLORS.green],
    ];
    const xs = [0];
    const ys = [0];
    for (const [z] of sets) for (let k = 0; k < NPT; k++) xs.push(z[2 * k]), ys.push(z[2 * k + 1]);
    const [X, Y] = frame(ctx, cv.width, cv.height, range(xs), range(ys), true);
    for (const [z, color] of sets) {
      const pt = (k) => (k < 0 ? [0, 0] : [z[2 * k], z[2 * k + 1]]);
      for (const [a, b] of CFG.links) {
        const [p, q] = [pt(a), pt(b)];
        line(ctx, X(p[0]), Y(p[1]), X(q[0]), Y(q[1]), color, 2);
      }
      ctx.fillStyle = color;
      for (let k = 0; k < NPT; k++) {
        ctx.beginPath();
        ctx.arc(X(z[2 * k]), Y(z[2 * k + 1]), 5, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
    for (const k of CFG.carts || []) {
      // a cart: a box on a horizontal rail through the reference configuration
      const [cx, cy] = [R.z[2 * k], R.z[2 * k + 1]];
      line(ctx, 0, Y(cy), cv.width, Y(cy), "#999", 1);
      ctx.strokeStyle = "#000";
      ctx.strokeRect(X(cx) - 16, Y(cy) - 9, 32, 18);
    }
    if (CFG.links.some(([a]) => a < 0)) {
      ctx.fillStyle = "#000";
      ctx.fillRect(X(0) - 3, Y(0) - 3, 6, 6);
    }
    el("cap-config").textContent =
      `ε = ${fmt(S.eps)} · ${tr("perr")} = ${fmt(R.step.err)} m · ${tr("ambient_dof")} = ${2 * NPT} · ` +
      `${tr("n_constraints")} = ${CFG.n_constraints} · ${tr("dof")} = ${n}`;
  }
  function drawVelocities(R) {
    const [cv, ctx] = setupCanvas("cv-velocities");
    const v = [];
    for (let k = 0; k < NPT; k++) v.push([R.zd[2 * k], R.zd[2 * k + 1]]);
    const lim = Math.max(1, ...v.map(([a, b]) => Math.max(Math.abs(a), Math.abs(b)))) * 1.2;
    const [X, Y] = frame(ctx, cv.width, cv.height, [-lim, lim], [-lim, lim], true);
    const palette = [COLORS.blue, COLORS.orange, COLORS.green, "#d62728", "#9467bd", "#8c564b"];
    v.forEach(([a, b], k) => {
      line(ctx, X(0), Y(0), X(a), Y(b), palette[k % palette.length], 3);
      ctx.fillStyle = palette[k % palette.length];
      ctx.beginPath();
      ctx.arc(X(a), Y(b), 4, 0, 2 * Math.PI);
      ctx.fill();
    });
    el("cap-velocities").textContent = v.map(([a, b], k) => `v${k + 1} = (${fmt(a)}, ${fmt(b)}) m/s`).join(" · ");
  }
  function drawKinetic(R) {
    const [cv, ctx] = setupCanvas("cv-kinetic");
    const c0 = R.conv[0];
    const vals = [c0.diag, c0.coupling, c0.K];
    const lim = Math.max(1, ...vals.map(Math.abs)) * 1.2;
    const [X, Y] = frame(ctx, cv.width, cv.height, [0, 3], [-lim, lim], false);
    [COLORS.blue, COLORS.orange, COLORS.green].forEach((color, i) => {
      ctx.fillStyle = color;
      const y0 = Y(0);
      const y1 = Y(vals[i]);
      ctx.fillRect(X(i + 0.2), Math.min(y0, y1), X(i + 0.8) - X(i + 0.2), Math.abs(y1 - y0));
    });
    el("cap-kinetic").textContent =
      `${tr("diagonal")} = ${fmt(c0.diag)} J · ${tr("coupling")} = ${fmt(c0.coupling)} J · K = ${fmt(c0.K)} J` +
      R.conv.slice(1).map((c, k) => ` · K (${convLabel(CFG.conventions[k + 1])}) = ${fmt(c.K)} J`).join("");
  }
  function plotLines(id, series, ylabel) {
    const [cv, ctx] = setupCanvas(id);
    const ys = series.flatMap((s) => s.ys);
    const [X, Y] = frame(ctx, cv.width, cv.height, [0, 1], range(ys), false);
    for (const s of series) {
      ctx.strokeStyle = s.color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      s.ys.forEach((y, i) => (i ? ctx.lineTo : ctx.moveTo).call(ctx, X(i / (s.ys.length - 1)), Y(y)));
      ctx.stroke();
      ctx.lineWidth = 1;
    }
    line(ctx, X(S.eps), Y(range(ys)[0]), X(S.eps), Y(range(ys)[1]), COLORS.grey);
    ctx.fillStyle = "#555";
    ctx.fillText(`ε · ${ylabel}`, 40, cv.height - 4);
  }
  function drawCurves(R) {
    const box = el("residual-panels");
    if (box.children.length !== CFG.n_constraints) {
      box.innerHTML = "";
      for (let k = 0; k < CFG.n_constraints; k++) {
        box.insertAdjacentHTML(
          "beforeend",
          `<figure class="panel"><figcaption><span data-i18n="residual"></span> h${k + 1}</figcaption>` +
            `<canvas id="cv-h${k + 1}" width="360" height="220"></canvas>` +
            `<div class="legend" data-i18n="residual_legend"></div><div class="cap" id="cap-h${k + 1}"></div></figure>`
        );
      }
      applyLabels();
    }
    for (let k = 0; k < CFG.n_constraints; k++) {
      plotLines(
        `cv-h${k + 1}`,
        [
          { ys: R.curve.map((c) => c.he[k]), color: COLORS.blue },
          { ys: R.curve.map((c) => c.ht[k]), color: COLORS.orange },
        ],
        `h${k + 1}`
      );
      el(`cap-h${k + 1}`).textContent =
        `ε = ${fmt(S.eps)} · ${tr("mapped_h")} = ${fmt(R.step.he[k])} · ${tr("tangent_h")} = ${fmt(R.step.ht[k])} · ` +
        `C ż = ${fmt(R.cvel[k])}`;
    }
    plotLines("cv-error", [{ ys: R.curve.map((c) => c.err), color: COLORS.blue }], "m");
    el("cap-error").textContent = `ε = ${fmt(S.eps)} · ${tr("err_short")} = ${fmt(R.step.err)} m`;
    plotLines(
      "cv-work",
      [
        { ys: R.curve.map((c) => c.fwork), color: COLORS.blue },
        { ys: R.curve.map((c) => c.lwork), color: COLORS.orange },
      ],
      "J"
    );
    el("cap-work").textContent =
      `${tr("finite_work")} = ${fmt(R.step.fwork)} J · ${tr("linear_work")} = ${fmt(R.step.lwork)} J · ` +
      `${tr("virtual_work")} = ${fmt(R.conv[0].vwork)} J · ${tr("power_short")} = ${fmt(R.conv[0].power)} W`;
  }

  // ------------------------------------------------------------------ controls and URL
  // {key, get, set, id, name (text), rule, rejected: {text, reason, value} | null}
  const controls = [];
  function addControl(box, key, spec) {
    const id = `in-${key}`;
    box.insertAdjacentHTML(
      "beforeend",
      `<div class="ctl"><label for="${id}">${spec.html}</label>` +
        `<input type="range" id="${id}" min="${spec.min}" max="${spec.max}" step="${spec.step}">` +
        `<input type="text" id="${id}-num" inputmode="decimal" autocomplete="off" spellcheck="false" aria-describedby="${id}-msg">` +
        `<span class="msg" id="${id}-msg" role="alert" hidden></span></div>`
    );
    controls.push({ key, id, rejected: null, rule: "number", ...spec });
  }
  // the value a typed text stands for, or the reason it is rejected
  function parseValue(c, text) {
    const s = String(text).trim().replace(/^\u2212/, "-"); // a typographic minus reads as "-"
    const v = s === "" ? NaN : Number(s);
    if (!isFinite(v)) return { reason: "rejected_number" };
    if (c.rule === "positive" && !(v > 0)) return { reason: "rejected_positive" };
    if (c.rule === "nonnegative" && !(v >= 0)) return { reason: "rejected_nonnegative" };
    return { value: v };
  }
  function showRejection(c) {
    const num = el(`${c.id}-num`);
    const msg = el(`${c.id}-msg`);
    if (c.rejected) {
      num.setAttribute("aria-invalid", "true");
      msg.textContent = trf(c.rejected.reason, { name: c.name(), text: c.rejected.text, value: fmt(c.get()) });
      msg.hidden = false;
    } else {
      num.removeAttribute("aria-invalid");
      msg.textContent = "";
      msg.hidden = true;
    }
  }
  function reject(c, text, reason) {
    c.rejected = { text: String(text), reason, value: c.get() };
    showRejection(c);
  }
  function accept(c, v) {
    c.set(v);
    if (c.rejected) {
      c.rejected = null;
      showRejection(c);
    }
  }
  function buildControls() {
    const st = el("ctl-state");
    const rt = el("ctl-rates");
    const pr = el("ctl-params");
    const fo = el("ctl-force");
    const tg = el("ctl-probe");
    const plain = (s) => () => s;
    CFG.coordinates.forEach((name, i) => {
      const lim = CFG.coord_kinds[i] === "angle" ? 3.1416 : 3;
      const text = LBL.coordinates[i];
      addControl(st, name, {
        html: LBL.coordinates_html[i],
        name: plain(text),
        get: () => S.q[i],
        set: (v) => (S.q[i] = v),
        min: -lim,
        max: lim,
        step: 0.01,
      });
      addControl(rt, `v_${name}`, {
        html: LBL.rates_html[i],
        name: () => trf("rate_of", { name: text }),
        get: () => S.qd[i],
        set: (v) => (S.qd[i] = v),
        min: -6,
        max: 6,
        step: 0.01,
      });
      addControl(tg, `dq_${name}`, {
        html: LBL.probe_html[i],
        name: () => trf("probe_of", { name: `δ${text}` }),
        get: () => S.dq[i],
        set: (v) => (S.dq[i] = v),
        min: -2,
        max: 2,
        step: 0.01,
      });
    });
    CFG.parameters.forEach((name, i) => {
      const v0 = CFG.param_values[i];
      const lo = v0 > 0 ? +(v0 / 10).toPrecision(2) : -10;
      const hi = v0 > 0 ? +(v0 * 3).toPrecision(2) : 10;
      const rule = CFG.positive.includes(name) ? "positive" : (CFG.nonnegative || []).includes(name) ? "nonnegative" : "number";
      addControl(pr, name, {
        html: LBL.parameters_html[i],
        name: plain(LBL.parameters[i]),
        get: () => S.p[i],
        set: (v) => (S.p[i] = v),
        min: lo,
        max: hi,
        step: 0.001,
        rule,
      });
    });
    const F = (k, sub) => ({
      html: `<span class="sym"><i>F</i><sub>${sub}</sub></span>`,
      name: plain(`F${sub}`),
      get: () => S.F[k],
      set: (v) => (S.F[k] = v),
      min: -10,
      max: 10,
      step: 0.1,
    });
    addControl(fo, "Fx", F(0, "x"));
    addControl(fo, "Fy", F(1, "y"));
    addControl(tg, "eps", { html: '<span class="sym"><i>ε</i></span>', name: plain("ε"), get: () => S.eps, set: (v) => (S.eps = v), min: 0, max: 1, step: 0.01 });
    for (const c of controls) {
      const onInput = (src) => {
        const r = parseValue(c, src.value);
        if (r.reason) {
          reject(c, src.value, r.reason); // the page keeps computing with c.get(), and says so
          return;
        }
        accept(c, r.value);
        stopSwing(true);
        update(true);
      };
      el(c.id).addEventListener("input", (e) => onInput(e.target));
      el(`${c.id}-num`).addEventListener("input", (e) => onInput(e.target));
      el(`${c.id}-num`).addEventListener("change", (e) => onInput(e.target));
    }
  }
  function syncControls() {
    for (const c of controls) {
      const v = c.get();
      if (c.rejected && c.rejected.value !== v) {
        c.rejected = null; // the value changed elsewhere (swing, reset, link): the box follows it
        showRejection(c);
      }
      const slider = el(c.id);
      if (document.activeElement !== slider) slider.value = v;
      const num = el(`${c.id}-num`);
      if (document.activeElement !== num && !c.rejected) num.value = +v.toPrecision(12);
    }
  }
  function writeHash() {
    const parts = controls.map((c) => `${encodeURIComponent(c.key)}=${String(c.get())}`); // round-trip exact
    parts.push(`lang=${lang}`);
    history.replaceState(null, "", "#" + parts.join("&"));
  }
  function readHash() {
    const h = location.hash.replace(/^#/, "");
    if (!h) return;
    for (const kv of h.split("&")) {
      const [k, v] = kv.split("=").map(decodeURIComponent);
      if (k === "lang") {
        if (v === "ko" || v === "en") lang = v;
        continue;
      }
      const c = controls.find((x) => x.key === k);
      if (!c) continue;
      const r = parseValue(c, v === undefined ? "" : v);
      if (r.reason) {
        reject(c, v === undefined ? "" : v, r.reason);
        el(`${c.id}-num`).value = v === undefined ? "" : v;
      } else accept(c, r.value);
    }
  }
  function applyLabels() {
    document.documentElement.lang = lang;
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = tr(node.dataset.i18n);
    document.title = CFG.title || `${tr("title")} — ${CFG.model}`;
    el("swing-note").textContent = tr("swing_note").replace("{dt}", String(DT));
    el("btn-swing").textContent = swing.on ? tr("stop") : tr("swing");
    el("th-primary").textContent = convLabel(CFG.conventions[0]);
    el("th-alt").textContent = CFG.conventions[1] ? convLabel(CFG.conventions[1]) : tr("comparison");
    el("footer").textContent =
      `lagdyn ${CFG.version} · ` +
      trf("summary", {
        n,
        names: LBL.coordinates.join(", "),
        params: LBL.parameters.join(", ") || tr("none"),
        points: NPT,
        constraints: CFG.n_constraints,
      });
    for (const c of controls) {
      el(c.id).setAttribute("aria-label", trf("slider_of", { name: c.name() }));
      el(`${c.id}-num`).setAttribute("aria-label", trf("value_of", { name: c.name() }));
      showRejection(c);
    }
  }

  // ------------------------------------------------------------------ main loop
  let lastR = null;
  function update(fromUser) {
    const R = compute();
    lastR = R;
    renderTable(R);
    drawConfig(R);
    drawVelocities(R);
    drawKinetic(R);
    drawCurves(R);
    syncControls();
    const E = R.conv[0].E;
    el("swing-readout").textContent =
      `${tr("time")} = ${fmt(swing.t)} s · E = ${fmt(E)} J · ${tr("drift")} = ` +
      (swing.E0 === null ? "0" : (E - swing.E0).toExponential(2)) + " J";
    el("swing-readout").dataset.drift = swing.E0 === null ? "0" : String(E - swing.E0);
    if (fromUser) writeHash();
  }
  function stopSwing(resetClock) {
    swing.on = false;
    if (resetClock) {
      swing.t = 0;
      swing.E0 = null;
    }
    el("btn-swing").textContent = tr("swing");
  }
  function loop(ts) {
    if (!swing.on) return;
    if (swing.last !== null) advance(Math.min(0.05, Math.max(DT, (ts - swing.last) / 1000)));
    swing.last = ts;
    requestAnimationFrame(loop);
  }
  function init() {
    buildControls();
    readHash();
    applyLabels();
    el("btn-lang").addEventListener("click", () => {
      lang = lang === "en" ? "ko" : "en";
      applyLabels();
      update(true);
    });
    el("btn-swing").addEventListener("click", () => {
      if (swing.on) {
        stopSwing(false);
        writeHash();
        return;
      }
      swing.on = true;
      swing.last = null;
      el("btn-swing").textContent = tr("stop");
      requestAnimationFrame(loop);
    });
    el("btn-reset").addEventListener("click", () => {
      stopSwing(true);
      history.replaceState(null, "", location.pathname + location.search);
      S.q = CFG.state.q.slice();
      S.qd = CFG.state.qd.slice();
      S.p = CFG.param_values.slice();
      S.F = CFG.state.F.slice();
      S.eps = CFG.state.eps;
      S.dq = CFG.state.dq.slice();
      for (const c of controls) c.rejected = null;
      applyLabels();
      update(false);
    });
    window.addEventListener("resize", () => {
      if (!swing.on) update(false); // redraw the canvases at their new width
    });
    window.addEventListener("hashchange", () => {
      readHash();
      applyLabels();
      update(false);
    });
    update(false);
  }
  // a small API for tests and for the console
  globalThis.lagdynLab = {
    advance,
    compute: () => compute(),
    state: () => JSON.parse(JSON.stringify({ q: S.q, qd: S.qd, p: S.p, F: S.F, eps: S.eps, dq: S.dq, t: swing.t })),
    set: (values) => {
      for (const [k, v] of Object.entries(values)) {
        const c = controls.find((x) => x.key === k);
        if (!c) throw new Error(`unknown lab control ${k}`);
        const r = parseValue(c, v);
        if (r.reason) throw new Error(trf(r.reason, { name: c.name(), text: v, value: fmt(c.get()) }));
        accept(c, r.value);
      }
      stopSwing(true);
      update(true);
    },
    last: () => lastR,
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
