"""Seed 003, the generalized-coordinate lab: the double pendulum, row by row.

What it shows: one physical state of a planar double pendulum (unit point masses on
unit massless rods, fixed pivot, g = 10) described in absolute angles (a, b) and in
relative angles u = (a, b − a). lagdyn builds the mass matrix from the point masses
as M = JᵀWJ, changes coordinates with M_rel = AᵀM_abs A and Q_rel = AᵀQ_abs, maps the
rates (never wraps them), and compares a finite tangent step z + εJδq with the exact
configuration map z(q + εδq). Kinetic energy and power agree in both coordinates;
the eigenvalues of M do not.

Run: ``python examples/seed_lab.py``. ``lab()`` returns every number (exact sympy
values) for the tests; ``rows()`` the printed table.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

import lagdyn as ld
from lagdyn.coordchange import (
    ConstraintTangent,
    change_coordinates,
    coordinate_change,
    is_kinetic_energy_invariant,
    is_power_invariant,
    metric_eigenvalues,
    transform_force,
)
from lagdyn.kinematics import from_particles, generalized_force, is_power_consistent

a, b = ld.coordinates("a b")
u1, u2 = ld.coordinates("u1 u2")
m1, m2, l1, l2, g = ld.parameters("m1 m2 l1 l2 g")
Fx, Fy = sp.symbols("F_x F_y", real=True)
x1, y1, x2, y2 = sp.symbols("x1 y1 x2 y2", real=True)

P1 = sp.Matrix([l1 * sp.sin(a), -l1 * sp.cos(a)])
P2 = P1 + sp.Matrix([l2 * sp.sin(b), -l2 * sp.cos(b)])
MAPPING = {a: u1, b: u1 + u2}
UNIT = {m1: 1, m2: 1, l1: 1, l2: 1, g: 10}


def _num(expr: Any, sub: dict[Any, Any]) -> sp.Expr:
    """Exact value at a state: rates first, then coordinates and parameters."""
    rates = {k: v for k, v in sub.items() if isinstance(k, sp.Derivative)}
    rest = {k: v for k, v in sub.items() if not isinstance(k, sp.Derivative)}
    return sp.sympify(expr).xreplace(rates).xreplace(rest)


def _mat(m: Any, sub: dict[Any, Any]) -> sp.Matrix:
    return sp.Matrix(m).applyfunc(lambda e: sp.nsimplify(sp.expand(_num(e, sub))))


def lab() -> dict[str, Any]:
    """Every quantity of the seed-003 table, exact (sympy numbers)."""
    absolute = from_particles([P1, P2], [m1, m2], [a, b], gravity=[0, -g], defaults=UNIT)
    relative = change_coordinates(absolute, [u1, u2], MAPPING)
    change = coordinate_change([a, b], [u1, u2], MAPPING)
    direct_rel = ld.zoo.double_pendulum(coordinates="relative")

    # ---- state: a = b = 0, absolute rates (1, -1)
    q0, qd0 = (0, 0), (1, -1)
    u0 = (q0[0], q0[1] - q0[0])
    ud0 = change.new_rates(u0, qd0)
    s_abs = {**UNIT, **dict(zip(absolute.qd, qd0)), **dict(zip(absolute.q, q0))}
    s_rel = {**UNIT, **dict(zip(relative.qd, ud0)), **dict(zip(relative.q, u0))}

    v1 = _mat(P1.diff(ld.t), s_abs)
    v2 = _mat(P2.diff(ld.t), s_abs)
    M_abs = _mat(absolute.M, s_abs)
    M_rel = _mat(relative.M, s_rel)
    qd_v = sp.Matrix(qd0)
    diag = sum(M_abs[i, i] * qd_v[i] ** 2 for i in range(2)) / 2
    coupling = M_abs[0, 1] * qd_v[0] * qd_v[1]
    point_K = (v1.dot(v1) + v2.dot(v2)) / 2

    # ---- forces by virtual work: gravity on both points, end force (3, 0) on the second
    f_amb = sp.Matrix([0, -m1 * g, Fx, Fy - m2 * g])
    Q_abs_sym = generalized_force(P1, [0, -m1 * g], [a, b]) + generalized_force(
        P2, [Fx, Fy - m2 * g], [a, b]
    )
    Q_rel_sym = transform_force(Q_abs_sym, change)
    force_vals = {Fx: 3, Fy: 0}
    Q_abs = _mat(Q_abs_sym.xreplace(force_vals), s_abs)
    Q_rel = _mat(Q_rel_sym.xreplace(force_vals), s_rel)
    zdot = sp.Matrix([*P1.diff(ld.t), *P2.diff(ld.t)])
    cart_power = _num((f_amb.T * zdot)[0, 0].xreplace(force_vals), s_abs)

    # ---- constraint tangent: z(q), h(z), C J = 0, finite step
    z = [*P1, *P2]
    h = [x1**2 + y1**2 - l1**2, (x2 - x1) ** 2 + (y2 - y1) ** 2 - l2**2]
    tangent = ConstraintTangent.from_map(z, h, (x1, y1, x2, y2), [a, b])
    step = tangent.step(
        q0, (1, -1), sp.Rational(1, 2), force=f_amb.xreplace(force_vals), params=UNIT
    )
    det_formula = m2 * l1**2 * l2**2 * (m1 + m2 * sp.sin(a - b) ** 2)

    # ---- a = 0, b = pi/2, absolute rates (1, 1)
    q1, qd1 = (0, sp.pi / 2), (1, 1)
    u1v = (q1[0], q1[1] - q1[0])
    ud1 = change.new_rates(u1v, qd1)
    t_abs = {**UNIT, **dict(zip(absolute.qd, qd1)), **dict(zip(absolute.q, q1))}
    t_rel = {**UNIT, **dict(zip(relative.qd, ud1)), **dict(zip(relative.q, u1v))}

    return {
        "relative_same_as_direct": all(
            sp.expand(x) == 0
            for x in [
                *(relative.M - direct_rel.M),
                *(relative.C - direct_rel.C),
                *(relative.g - direct_rel.g),
            ]
        ),
        "q_abs": q0,
        "q_rel": u0,
        "qd_abs": qd0,
        "qd_rel": ud0,
        "v1": tuple(v1),
        "v2": tuple(v2),
        "M_abs": M_abs,
        "M_rel": M_rel,
        "eig_abs": metric_eigenvalues(absolute, q0, UNIT),
        "eig_rel": metric_eigenvalues(relative, u0, UNIT),
        "K_abs": _num(absolute.T, s_abs),
        "K_rel": _num(relative.T, s_rel),
        "K_points": point_K,
        "K_diagonal": diag,
        "K_coupling": coupling,
        "Q_abs": tuple(Q_abs),
        "Q_rel": tuple(Q_rel),
        "power_abs": (Q_abs.T * sp.Matrix(qd0))[0, 0],
        "power_rel": (Q_rel.T * sp.Matrix(ud0))[0, 0],
        "power_cartesian": cart_power,
        "gravity_Q": tuple(
            sp.expand(e)
            for e in generalized_force(P1, [0, -m1 * g], [a, b])
            + generalized_force(P2, [0, -m2 * g], [a, b])
        ),
        "kinetic_energy_invariant": is_kinetic_energy_invariant(absolute, relative, MAPPING),
        "power_invariant": is_power_invariant(absolute, relative, MAPPING, list(Q_abs_sym)),
        "power_consistent": is_power_consistent(P2, [Fx, Fy], [a, b]),
        "cj_zero": tangent.proves_cj_zero(),
        "rank": tangent.rank(),
        "dof": tangent.dof(),
        "det_M_abs_formula_proved": ld.structure.is_zero(absolute.M.det() - det_formula),
        "det_M_abs": _num(det_formula, {**UNIT, a: 0, b: 0}),
        "metric_residual": _mat(M_rel - change.A.T * M_abs * change.A, {}),
        "step": step,
        "half_pi": {
            "M_abs": _mat(absolute.M, t_abs),
            "M_rel": _mat(relative.M, t_rel),
            "eig_abs": metric_eigenvalues(absolute, q1, UNIT),
            "eig_rel": metric_eigenvalues(relative, u1v, UNIT),
            "qd_rel": ud1,
            "K_abs": _num(absolute.T, t_abs),
            "K_rel": _num(relative.T, t_rel),
        },
    }


def _fmt(x: Any) -> str:
    if isinstance(x, str):
        return x
    v = float(x)
    if v == int(v):
        return str(int(v))
    return f"{v:.4g}"


def rows(data: dict[str, Any] | None = None) -> list[tuple[str, str, str, str]]:
    """The seed-003 table: (quantity, Cartesian or absolute, relative or comparison, unit)."""
    d = lab() if data is None else data
    s = d["step"]
    out = [
        ("angle1", d["q_abs"][0], d["q_rel"][0], "rad"),
        ("angle2", d["q_abs"][1], d["q_rel"][1], "rad"),
        ("angular rate1", d["qd_abs"][0], d["qd_rel"][0], "rad/s"),
        ("angular rate2", d["qd_abs"][1], d["qd_rel"][1], "rad/s"),
        ("metric11", d["M_abs"][0, 0], d["M_rel"][0, 0], "kg m²"),
        ("metric12", d["M_abs"][0, 1], d["M_rel"][0, 1], "kg m²"),
        ("metric22", d["M_abs"][1, 1], d["M_rel"][1, 1], "kg m²"),
        ("smallest eigenvalue", d["eig_abs"][0], d["eig_rel"][0], "kg m²"),
        ("largest eigenvalue", d["eig_abs"][1], d["eig_rel"][1], "kg m²"),
        ("kinetic energy", d["K_abs"], d["K_rel"], "J"),
        ("direct point energy", d["K_points"], "", "J"),
        ("generalized force1", d["Q_abs"][0], d["Q_rel"][0], "N m"),
        ("generalized force2", d["Q_abs"][1], d["Q_rel"][1], "N m"),
        ("applied power", d["power_abs"], d["power_rel"], "W"),
        ("virtual work", s.virtual_work, s.linear_work, "J"),
        ("finite h1: tangent / mapped", s.tangent_residuals[0], s.exact_residuals[0], "m²"),
        ("finite h2: tangent / mapped", s.tangent_residuals[1], s.exact_residuals[1], "m²"),
        ("finite work: exact / linear", s.finite_work, s.linear_work, "J"),
    ]
    return [(name, _fmt(x), _fmt(y), unit) for name, x, y, unit in out]


def main() -> None:
    d = lab()
    s = d["step"]
    hp = d["half_pi"]
    print("seed 003 — generalized coordinate lab (unit masses and lengths, g = 10)")
    print(
        "relative model by change of coordinates == direct derivation: "
        f"{d['relative_same_as_direct']}"
    )
    print(f"v1 = {tuple(map(_fmt, d['v1']))} m/s, v2 = {tuple(map(_fmt, d['v2']))} m/s")
    print(
        f"K: diagonal = {_fmt(d['K_diagonal'])} J, coupling = {_fmt(d['K_coupling'])} J, "
        f"Cartesian = {_fmt(d['K_points'])} J"
    )
    print(f"gravity part of Q_abs = {d['gravity_Q']}")
    print(f"Cartesian power f·ż = {_fmt(d['power_cartesian'])} W")
    print(
        f"C J = 0 proved: {d['cj_zero']}; rank C = {d['rank']}; DOF = {d['dof']}; "
        f"det M formula = {_fmt(d['det_M_abs'])}; metric residual = "
        f"{_fmt(max(abs(x) for x in d['metric_residual']))}"
    )
    print(
        f"kinetic energy invariant (proved): {d['kinetic_energy_invariant']}; "
        f"power invariant (proved): {d['power_invariant']}"
    )
    print(
        f"tangent points {tuple(map(_fmt, s.tangent))}, exact {tuple(map(_fmt, s.exact))}; "
        f"position error = {_fmt(s.position_error)} m; "
        f"C J δq = {tuple(map(_fmt, s.constraint_velocity))}"
    )
    print()
    header = ("quantity", "Cartesian or absolute", "relative or comparison", "unit")
    table = [header, *rows(d)]
    widths = [max(len(r[i]) for r in table) for i in range(4)]
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    print()
    print("a = 0, b = π/2, absolute rates (1, 1):")
    print(f"  M_abs = {hp['M_abs'].tolist()}, M_rel = {hp['M_rel'].tolist()}")
    print(f"  eigenvalues {hp['eig_abs']} vs {hp['eig_rel']}")
    print(f"  relative rates {hp['qd_rel']}; K = {_fmt(hp['K_abs'])} J = {_fmt(hp['K_rel'])} J")


if __name__ == "__main__":
    main()
