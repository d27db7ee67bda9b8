"""The JavaScript export run under Node against the Python NumericModel (to 1e-12).

The printer and the ``js`` target are :mod:`lagdyn.codegen.javascript`; the builders of the
lab page (positions, maps, ambient constraints, ``export_js``) are :mod:`lagdyn.lab.js`.

Skipped with a reason when ``node`` is not installed (``.ci/run`` installs Debian's
nodejs when it can).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.codegen.javascript import JsArg, JsFunction, JsModule, js_source
from lagdyn.errors import LagdynError
from lagdyn.lab.js import export_js, map_functions, position_functions
from strategies import random_lagrangians

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(
    NODE is None, reason="node is not installed (apt-get install nodejs)"
)

RUNNER = """
const mod = require(process.argv[2]);
const cases = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
const out = cases.map((c) => {
  const r = {};
  for (const [name, args] of Object.entries(c)) r[name] = mod[name](...args);
  return r;
});
process.stdout.write(JSON.stringify(out));
"""


def run_node(tmp_path, src: str, cases: list[dict]) -> list[dict]:
    (tmp_path / "mod.js").write_text(src)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "run.js").write_text(RUNNER)
    proc = subprocess.run(
        [NODE, str(tmp_path / "run.js"), str(tmp_path / "mod.js"), str(tmp_path / "cases.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def damped_double_pendulum() -> ld.LagrangianSystem:
    """Double pendulum with Rayleigh damping and a time-dependent drive: Q ≠ 0, depends on t."""
    dp = ld.zoo.double_pendulum()
    c, w = ld.parameters("c w")
    Q = ld.rayleigh_forces(c * (dp.qd[0] ** 2 + dp.qd[1] ** 2) / 2, dp.q)
    drive = sp.Matrix([sp.sin(w * ld.t), 0])
    return ld.LagrangianSystem(
        dp.L, dp.q, forces=list(Q + drive), defaults={**dp.defaults, c: 0.3, w: 2.0}
    )


def charged_particle() -> ld.LagrangianSystem:
    """A gyroscopic (velocity-linear) Lagrangian: G ≠ 0."""
    x, y = ld.coordinates("x y")
    B, k = ld.parameters("B k")
    xd, yd = ld.velocities([x, y])
    L = (xd**2 + yd**2) / 2 + B * (x * yd - y * xd) / 2 - k * (x**2 + y**2) / 2
    return ld.LagrangianSystem(L, [x, y], defaults={B: 1.5, k: 2.0})


MODELS = {
    "double_pendulum": lambda: ld.zoo.double_pendulum(),
    "double_pendulum_relative": lambda: ld.zoo.double_pendulum(coordinates="relative"),
    "cart_pole": lambda: ld.zoo.cart_pole(),
    "acrobot": lambda: ld.zoo.acrobot(),
    "planar_arm": lambda: ld.zoo.planar_arm(3),
    "n_link_pendulum": lambda: ld.zoo.n_link_pendulum(3),
    "damped": damped_double_pendulum,
    "gyroscopic": charged_particle,
}


def _states(n: int, seed: int) -> list[tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(seed)
    return [
        (*(rng.uniform(-2, 2, n) for _ in range(3)), float(rng.uniform(0, 3))) for _ in range(4)
    ]


@needs_node
@pytest.mark.parametrize("name", list(MODELS))
def test_dynamics_match_numeric_model(name, tmp_path):
    system = MODELS[name]()
    num = system.lambdify(system.defaults, backend="numpy")
    src = export_js(system, name="m")
    # the free parameters stay in p: pass the defaults explicitly, and perturbed values
    names = [str(s) for s in system.parameters]
    dflt = {str(k): float(v) for k, v in system.defaults.items()}
    p0 = [dflt[s] for s in names]
    p1 = [v * 1.1 for v in p0]
    num1 = system.lambdify(dict(zip(system.parameters, p1)), backend="numpy")
    cases, expected = [], []
    for i, (q, qd, u, t) in enumerate(_states(system.n, seed=len(name))):
        model, p = (num, p0) if i % 2 == 0 else (num1, p1)
        ql, qdl, ul = q.tolist(), qd.tolist(), u.tolist()
        cases.append(
            {
                "M": [ql, p],
                "C": [ql, qdl, p],
                "g": [ql, p],
                "h": [ql, qdl, p, t],
                "forces": [ql, qdl, p, t],
                "bias": [ql, qdl, p, t],
                "energy": [ql, qdl, p],
                "forward_dynamics": [ql, qdl, ul, p, t],
                "inverse_dynamics": [ql, qdl, ul, p, t],
            }
        )
        bias = model.bias(q, qd, t=t)
        h_sym = [
            float(
                system.plain(e).xreplace(
                    _plain_state(system, q, qd, dict(zip(system.parameters, p)), t)
                )
            )
            for e in system.h
        ]
        expected.append(
            {
                "M": model.M(q),
                "C": model.C(q, qd),
                "g": model.g(q),
                "h": np.array(h_sym),
                "bias": bias,
                "forces": np.array(h_sym) - bias,
                "energy": model.energy(q, qd),
                "forward_dynamics": model.forward_dynamics(q, qd, u, t=t),
                "inverse_dynamics": model.inverse_dynamics(q, qd, u, t=t),
            }
        )
    got = run_node(tmp_path, src, cases)
    for g_case, e_case in zip(got, expected):
        for k, v in e_case.items():
            np.testing.assert_allclose(
                np.array(g_case[k], dtype=float), v, rtol=1e-12, atol=1e-12, err_msg=k
            )


@needs_node
@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(random_lagrangians(max_n=3), st.integers(0, 2**31))
def test_random_lagrangians_match_numeric_model(tmp_path, rl, seed):
    """Random M(q) = AᵀA + εI, potentials, gyroscopic terms and forces: JS = Python to 1e-12."""
    system = ld.LagrangianSystem(rl.L, rl.q, forces=rl.forces)
    params = {s: rl.params[s] for s in system.parameters}
    num = system.lambdify(params, backend="numpy")
    src = export_js(system, name="m")
    p = [float(params[s]) for s in system.parameters]
    rng = np.random.default_rng(seed)
    q, qd, tau = (rng.uniform(-2, 2, system.n) for _ in range(3))
    args = [q.tolist(), qd.tolist()]
    got = run_node(
        tmp_path,
        src,
        [
            {
                "M": [args[0], p],
                "C": [*args, p],
                "energy": [*args, p],
                "forward_dynamics": [*args, tau.tolist(), p],
            }
        ],
    )[0]
    for name, want in (
        ("M", num.M(q)),
        ("C", num.C(q, qd)),
        ("energy", num.energy(q, qd)),
        ("forward_dynamics", num.forward_dynamics(q, qd, tau)),
    ):
        scale = max(1.0, float(np.max(np.abs(want))))
        np.testing.assert_allclose(
            np.array(got[name], dtype=float), want, rtol=1e-12, atol=1e-12 * scale, err_msg=name
        )


def _plain_state(system, q, qd, params, t):
    qs, vs = system.plain_symbols
    sub = {**dict(zip(qs, map(sp.Float, q))), **dict(zip(vs, map(sp.Float, qd)))}
    sub.update({k: sp.Float(v) for k, v in params.items()})
    sub[ld.t] = sp.Float(t)
    return sub


@needs_node
def test_folded_parameters_and_default_p(tmp_path):
    dp = ld.zoo.double_pendulum()
    src = export_js(dp, name="dp", params=dp.defaults)
    assert "const PARAMETERS = [];" in src
    got = run_node(tmp_path, src, [{"M": [[0.3, -0.4]], "energy": [[0.3, -0.4], [1.0, 2.0]]}])[0]
    num = dp.lambdify(dp.defaults)
    np.testing.assert_allclose(got["M"], num.M([0.3, -0.4]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["energy"], num.energy([0.3, -0.4], [1.0, 2.0]), rtol=1e-12)


@needs_node
def test_positions_jacobian_and_constraints(tmp_path):
    """Positions, J = ∂z/∂q (checked by central differences and exactly), h(z) and C = ∂h/∂z."""
    dp = ld.zoo.double_pendulum()
    a, b = dp.q
    l1, l2 = (s for s in dp.parameters if s.name in ("l1", "l2"))
    p1 = (l1 * sp.sin(a), -l1 * sp.cos(a))
    p2 = (p1[0] + l2 * sp.sin(b), p1[1] - l2 * sp.cos(b))
    z = sp.symbols("x1 y1 x2 y2", real=True)
    h = [z[0] ** 2 + z[1] ** 2 - l1**2, (z[2] - z[0]) ** 2 + (z[3] - z[1]) ** 2 - l2**2]
    Cm = [sp.diff(hi, zj) for hi in h for zj in z]
    fns = position_functions(dp, [p1, p2]) + map_functions(
        dp,
        {"constraints": (h, (2,)), "constraints_jacobian": (Cm, (2, 4))},
        inputs=("z", z),
    )
    src = js_source(JsModule("lab", tuple(fns)))
    p = [10.0, 1.5, 0.7, 1.0, 2.0]
    q = [0.4, -1.1]
    pt = [0.5, -1.0, 0.0, -2.0]  # the seed's tangent point for unit rods
    got = run_node(
        tmp_path,
        src,
        [
            {
                "positions": [q, p],
                "positions_jacobian": [q, p],
                "constraints": [pt, [10.0, 1.0, 1.0, 1.0, 1.0]],
                "constraints_jacobian": [pt, [10.0, 1.0, 1.0, 1.0, 1.0]],
            }
        ],
    )[0]
    L1, L2 = 1.5, 0.7
    zq = [L1 * np.sin(q[0]), -L1 * np.cos(q[0])]
    zq += [zq[0] + L2 * np.sin(q[1]), zq[1] - L2 * np.cos(q[1])]
    np.testing.assert_allclose(got["positions"], zq, rtol=1e-14, atol=1e-14)
    J = np.array(
        [
            [L1 * np.cos(q[0]), 0],
            [L1 * np.sin(q[0]), 0],
            [L1 * np.cos(q[0]), L2 * np.cos(q[1])],
            [L1 * np.sin(q[0]), L2 * np.sin(q[1])],
        ]
    )
    np.testing.assert_allclose(got["positions_jacobian"], J, rtol=1e-14, atol=1e-14)
    assert got["constraints"] == [0.25, 0.25]  # the seed: h1 = h2 = 0.25 m²
    np.testing.assert_allclose(got["constraints_jacobian"], [[1, -2, 0, 0], [1, 2, -1, -2]])


def test_emitter_refuses_missing_symbols_and_bad_names():
    x, y = sp.symbols("q_0 y")
    bad = JsFunction("f", (JsArg("q", (x,)),), (), (x + y,), ())
    with pytest.raises(LagdynError, match="y"):
        js_source(JsModule("m", (bad,)))
    with pytest.raises(LagdynError, match="identifier"):
        js_source(JsModule("not-a-name", ()))
    unsupported = JsFunction("f", (JsArg("q", (x,)),), (), (sp.besselj(0, x),), ())
    with pytest.raises(LagdynError, match="cannot print.*besselj"):
        js_source(JsModule("m", (unsupported,)))
    wrong = JsFunction("f", (JsArg("q", (x,)),), (), (x, x), (3,))
    with pytest.raises(LagdynError, match="2 outputs"):
        js_source(JsModule("m", (wrong,)))


def test_map_functions_refuse_rates():
    dp = ld.zoo.double_pendulum()
    with pytest.raises(LagdynError, match="coordinates only"):
        map_functions(dp, {"v": ([dp.qd[0]], (1,))})


@needs_node
def test_cholesky_fallback_above_unrolled_size(tmp_path, monkeypatch):
    """n above the unrolled solve size: forward dynamics by the JS Cholesky helper."""
    import lagdyn.codegen.build as build

    monkeypatch.setattr(build, "MAX_UNROLLED", 1)
    system = ld.zoo.n_link_pendulum(3)
    src = export_js(system, name="m", params={"g": 9.81})
    assert "by a Cholesky solve" in src
    num = system.lambdify(system.defaults, backend="numpy", cache=False)
    p = [float(system.defaults[s]) for s in system.parameters if s.name != "g"]
    q, qd, tau = [0.3, -0.2, 0.5], [0.1, 0.7, -1.0], [0.2, 0.0, -0.4]
    got = run_node(tmp_path, src, [{"forward_dynamics": [q, qd, tau, p]}])[0]
    np.testing.assert_allclose(
        got["forward_dynamics"], num.forward_dynamics(q, qd, tau), rtol=1e-12
    )


ARG_RUNNER = """
const mod = require(process.argv[2]);
const out = {};
try { mod.M([0.1, 0.2]); out.no_p = "returned"; } catch (e) { out.no_p = e.message; }
try { mod.M([0.1], mod.PARAMETERS.map(() => 1)); out.short_q = "returned"; }
catch (e) { out.short_q = e.message; }
out.keys = Object.keys(mod);
process.stdout.write(JSON.stringify(out));
"""


@needs_node
def test_export_target_js_runs_and_checks_its_arguments(tmp_path):
    """``export.code`` target js: the file of the CLI; p is required, lengths are checked."""
    from lagdyn.export.code import export

    dp = ld.zoo.double_pendulum()
    (path,) = export(dp, "js", tmp_path, name="dp", params={"g": 9.81, "m1": 1.0})
    assert path.name == "dp.js"
    (tmp_path / "run.js").write_text(ARG_RUNNER)
    proc = subprocess.run(
        [NODE, str(tmp_path / "run.js"), str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["no_p"] == "M: p must be an array of 3 numbers"
    assert got["short_q"] == "M: q must be an array of 2 numbers"
    assert {"N", "PARAMETERS", "BOUND", "h", "forces", "forward_dynamics"} <= set(got["keys"])
    # the bound values are folded in, the free ones come from p, in PARAMETERS order
    src = path.read_text()
    assert 'const PARAMETERS = ["l1", "l2", "m2"];' in src
    num = dp.lambdify({"g": 9.81, "m1": 1.0}, backend="numpy")
    q, p = [0.3, -0.4], [1.5, 0.7, 2.0]
    res = run_node(tmp_path, src, [{"M": [q, p]}])[0]
    np.testing.assert_allclose(res["M"], num.M(q, params=p), rtol=1e-12, atol=1e-12)


def test_js_names_are_checked():
    from lagdyn.codegen.javascript import check_identifier
    from lagdyn.export.code import generate

    dp = ld.zoo.double_pendulum()
    for bad in ("var", "module", "Math", "naïve"):
        with pytest.raises(LagdynError, match="JavaScript identifier"):
            check_identifier(bad, "name")
    with pytest.raises(LagdynError, match="'function' is a JavaScript keyword"):
        generate(dp, "js", name="function")
    with pytest.raises(LagdynError, match="not parameters"):
        export_js(dp, params={"gravity": 9.81}, strict=True)


def test_codegen_javascript_is_a_printer():
    """The lab's builders left codegen (which must not import lab/): a clear pointer."""
    import lagdyn.codegen.javascript as cgjs

    for name in ("export_js", "map_functions", "model_functions", "position_functions"):
        assert name not in cgjs.__all__
        with pytest.raises(AttributeError, match=f"moved to lagdyn.lab.js.{name}"):
            getattr(cgjs, name)
    with pytest.raises(AttributeError, match="no attribute"):
        cgjs.no_such_name  # noqa: B018


def test_export_js_is_the_js_target_plus_positions():
    """export_js (lab) and ``generate(..., "js")`` print the same functions."""
    from lagdyn.export.code import generate

    dp = ld.zoo.double_pendulum()
    body = lambda src: src[src.index("var dp = ") :]  # noqa: E731
    assert body(export_js(dp, name="dp")) == body(generate(dp, "js", name="dp")["dp.js"])
