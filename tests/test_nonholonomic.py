"""Nonholonomic (velocity) constraints: ConstrainedSystem(velocity_constraints=...),
the mixed KKT solvers, the reduced (Maggi) equations, integrability and linearization."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn import ConstrainedSystem
from lagdyn.errors import ConstraintError, LagdynError, LagdynWarning
from lagdyn.structure import is_zero


def _free(names: str = "x y theta", potential: sp.Expr = 0):
    """A planar body: contact (x, y), heading theta, centre a ahead (the sleigh's body)."""
    x, y, th = ld.coordinates(names)
    m, inertia, a = ld.parameters("m I a")
    c = sp.Matrix([x + a * sp.cos(th), y + a * sp.sin(th)])
    v = c.diff(ld.t)
    T = m * (v.T * v)[0, 0] / 2 + inertia * th.diff(ld.t) ** 2 / 2
    free = ld.LagrangianSystem.from_energies(
        T, potential, [x, y, th], defaults={m: 1.0, inertia: 1.0, a: 1.0}
    )
    return free, (x, y, th)


def _knife(x, y, th):
    return -sp.sin(th) * x.diff(ld.t) + sp.cos(th) * y.diff(ld.t)


# ------------------------------------------------------------------ construction
def test_velocity_constraint_split_into_A_and_b():
    free, (x, y, th) = _free()
    k = sp.Symbol("k", positive=True)
    cs = ConstrainedSystem(free, velocity_constraints=[_knife(x, y, th) + k * sp.cos(th)])
    assert cs.m == 1 and cs.m_holonomic == 0 and cs.m_velocity == 1 and cs.dof == 2
    assert cs.A == sp.Matrix([[-sp.sin(th), sp.cos(th), 0]])
    assert cs.b == sp.Matrix([k * sp.cos(th)])
    assert cs.constraint_matrix == cs.A and cs.constraint_bias == cs.b
    # Ȧq̇ + ḃ: the derivative of A q̇ + b with q̈ = 0
    xd, yd, thd = (c.diff(ld.t) for c in (x, y, th))
    expected = -thd * (sp.cos(th) * xd + sp.sin(th) * yd) - k * sp.sin(th) * thd
    assert sp.expand(cs.Adot_qd[0] - expected) == 0
    assert cs.kkt_matrix.shape == (4, 4)
    assert cs.kkt_matrix[:3, 3] == -cs.A.T
    rhs = cs.kkt_rhs([0, 0, 0], baumgarte=(2, 0))
    assert sp.expand(rhs[3] + cs.Adot_qd[0] + 2 * cs.velocity_residual[0]) == 0
    eqs = cs.equations()
    assert eqs.shape == (4, 1) and sp.expand(eqs[3] - cs.velocity_residual[0]) == 0
    assert "1 velocity" in repr(cs)


def test_mixed_rows_holonomic_first():
    x, y, z, th = ld.coordinates("x y z theta")
    m = ld.parameters("m")[0]
    free = ld.LagrangianSystem.from_energies(
        m * sum(c.diff(ld.t) ** 2 for c in (x, y, z, th)) / 2, 0, [x, y, z, th]
    )
    cs = ConstrainedSystem(free, [z - x], velocity_constraints=[_knife(x, y, th)])
    assert (cs.m_holonomic, cs.m_velocity, cs.dof) == (1, 1, 2)
    assert cs.rows == (z - x, _knife(x, y, th))
    assert cs.constraint_matrix.shape == (2, 4)
    assert cs.constraint_forces == cs.constraint_matrix.T * sp.Matrix(cs.lam)


@pytest.mark.parametrize(
    ("rows", "match"),
    [
        (lambda x, y, th: [x.diff(ld.t) ** 2 - y.diff(ld.t)], "not linear in the rates"),
        (lambda x, y, th: [sp.sin(x.diff(ld.t))], "not linear in the rates"),
        (lambda x, y, th: [x - y], "depends on no rate"),
        (lambda x, y, th: [sp.Symbol("k")], "depends on nothing"),
        (lambda x, y, th: [sp.Integer(0)], "depends on nothing"),
    ],
)
def test_bad_velocity_constraints_are_named(rows, match):
    free, q = _free()
    with pytest.raises(ConstraintError, match=match):
        ConstrainedSystem(free, velocity_constraints=rows(*q))


def test_redundant_and_too_many_velocity_constraints():
    free, (x, y, th) = _free()
    row = _knife(x, y, th)
    with pytest.raises(ConstraintError, match=r"row\(s\) 1 .*\[J_c; A\]"):
        ConstrainedSystem(free, velocity_constraints=[row, 2 * row])
    cs = ConstrainedSystem(free, velocity_constraints=[row, 2 * row], redundant="lstsq")
    assert cs.dependent_rows() == [1] and cs.dof == 2
    with pytest.raises(ConstraintError, match="more constraints than speeds"):
        ConstrainedSystem(
            free,
            [x - y],
            velocity_constraints=[row, th.diff(ld.t) - x.diff(ld.t)],
        )
    with pytest.raises(ConstraintError, match="no constraints"):
        ConstrainedSystem(free, velocity_constraints=[])
    with pytest.raises(LagdynError, match="string"):
        ConstrainedSystem(free, velocity_constraints=["xdot"])


# ------------------------------------------------------------------ integrability
def test_exact_velocity_constraint_is_reported_with_its_potential():
    free, (x, y, th) = _free()
    row = y * x.diff(ld.t) + x * y.diff(ld.t)  # d(xy)/dt
    with pytest.warns(LagdynWarning, match=r"exact differential.*x\(t\)\*y\(t\)"):
        cs = ConstrainedSystem(free, velocity_constraints=[row])
    (rep,) = cs.integrability_report()
    assert rep["exact"] is True and rep["integrable"] is True
    assert sp.expand(rep["phi"] - x * y) == 0
    assert cs.is_integrable(0) is True


def test_integrating_factor_found_by_frobenius():
    free, (x, y, th) = _free()
    # x ẏ − y ẋ = 0 is not exact, but (x ẏ − y ẋ)/x² = d(y/x): integrable
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cs = ConstrainedSystem(free, velocity_constraints=[x * y.diff(ld.t) - y * x.diff(ld.t)])
    (rep,) = cs.integrability_report()
    assert rep["exact"] is False and rep["integrable"] is True
    assert rep["phi"] is not None
    phi = rep["phi"]
    # its rate is proportional to the constraint: dΦ ∧ ω = 0
    grad = [sp.diff(phi, c) for c in (x, y)]
    assert is_zero(grad[0] * x - grad[1] * (-y)) is True


def test_knife_edge_is_not_integrable():
    sleigh = ld.zoo.get("chaplygin_sleigh")
    (rep,) = sleigh.integrability_report()
    assert rep["exact"] is False and rep["integrable"] is False
    assert "genuine nonholonomic" in rep["message"]
    with pytest.raises(LagdynError, match="no velocity constraint 3"):
        sleigh.is_integrable(3)


def test_rows_integrable_together_but_not_one_by_one():
    x, y, z = ld.coordinates("x y z")
    xd, yd, zd = ld.velocities([x, y, z])
    free = ld.LagrangianSystem.from_energies((xd**2 + yd**2 + zd**2) / 2, 0, [x, y, z])
    # ẋ − z ẏ = 0 alone is not integrable (ω ∧ dω = dx∧dy∧dz); with ż = 0, z is a
    # constant and x − z y is conserved: the pair is integrable (Frobenius, distribution)
    one = ConstrainedSystem(free, velocity_constraints=[xd - z * yd])
    assert one.is_integrable(0) is False and one.is_jointly_integrable() is False
    with pytest.warns(LagdynWarning, match=r"rate of Φ = z\(t\)"):
        both = ConstrainedSystem(free, velocity_constraints=[xd - z * yd, zd])
    assert both.is_integrable(0) is False and both.is_jointly_integrable() is True
    assert ld.zoo.get("rolling_disc").is_jointly_integrable() is False


# ------------------------------------------------------------------ numeric solvers
@pytest.fixture(scope="module")
def mixed():
    """A sleigh lifted into (x, y, z, theta) with z = x holonomic and a knife edge."""
    x, y, z, th = ld.coordinates("x y z theta")
    m, g = ld.parameters("m g")
    T = m * (x.diff(ld.t) ** 2 + y.diff(ld.t) ** 2 + z.diff(ld.t) ** 2) / 2
    T += m * th.diff(ld.t) ** 2 / 2
    free = ld.LagrangianSystem.from_energies(
        T, m * g * y, [x, y, z, th], defaults={m: 1.0, g: 9.81}
    )
    cs = ConstrainedSystem(free, [z - x], velocity_constraints=[_knife(x, y, th)])
    return cs, cs.lambdify(free.defaults)


def test_methods_agree_on_mixed_rows(mixed):
    cs, num = mixed
    q = np.array([[0.1, 0.2, 0.1, 0.3], [0.0, -0.4, 0.0, 1.1]])
    th = q[:, 3]
    qd = np.stack([np.cos(th), np.sin(th), np.cos(th), [0.5, -0.2]], axis=-1)
    qdd, lam = num.solve(q, qd)
    assert lam.shape == (2, 2)
    for method in ("schur", "augmented_lagrangian"):
        a, lm = num.solve(q, qd, method=method)
        np.testing.assert_allclose(a, qdd, atol=1e-9)
        np.testing.assert_allclose(lm, lam, atol=1e-8)
    a, _ = num.solve(q, qd, method="penalty")
    np.testing.assert_allclose(a, qdd, atol=1e-5)
    # the accelerations keep both rows: J q̈ = 0 and d/dt(A q̇) = 0
    np.testing.assert_allclose(qdd[:, 2] - qdd[:, 0], 0, atol=1e-12)
    acc = -np.sin(th) * qdd[:, 0] + np.cos(th) * qdd[:, 1]
    acc += -qd[:, 3] * (np.cos(th) * qd[:, 0] + np.sin(th) * qd[:, 1])
    np.testing.assert_allclose(acc, 0, atol=1e-12)


def test_kkt_agrees_with_reduced_equations(mixed):
    cs, num = mixed
    red = cs.reduced()
    q0 = [0.1, 0.2, 0.1, 0.3]
    qd_ind = {cs.system.qd[i]: v for i, v in zip(red._ind, [0.8, 0.5], strict=True)}
    point = dict(zip(cs.system.q, q0, strict=True))
    point.update({sp.Symbol("m", positive=True): 1.0, sp.Symbol("g", positive=True): 9.81})
    qd_full = [
        float(red.S.row(i).dot(sp.Matrix(list(qd_ind.values()))).subs(point)) for i in range(cs.n)
    ]
    udot = red.M_reduced.LUsolve(red.forcing([0] * 4))
    sub = {**qd_ind}
    qdd_red = red.S * udot + red.velocity_product
    qdd_red = [float(e.xreplace(sub).subs(point)) for e in qdd_red]
    qdd, _ = num.solve(q0, qd_full)
    np.testing.assert_allclose(qdd, qdd_red, atol=1e-12)


def test_projection_and_velocity_residual(mixed):
    cs, num = mixed
    q, qd = num.project([0.1, 0.2, 0.3, 0.3], [1.0, 1.0, 0.0, 0.5])
    assert abs(q[2] - q[0]) < 1e-12
    assert np.abs(num.phi_dot(q, qd)).max() < 1e-12
    assert np.abs(num.velocity_residual(q, qd)).max() < 1e-12
    with pytest.raises(ConstraintError, match=r"off the constraints.*row 1 \(-sin"):
        num.simulate(np.r_[q, [1.0, 1.0, 1.0, 0.0]], [0.0, 0.01])


def test_simulation_reports_velocity_residual(mixed):
    cs, num = mixed
    q, qd = num.project([0.1, 0.2, 0.1, 0.3], [1.0, 0.0, 1.0, 0.5])
    grid = np.linspace(0, 1, 101)
    drift = num.simulate(np.r_[q, qd], grid)
    held = num.simulate(np.r_[q, qd], grid, project=True)
    assert drift.phi_dot.shape == (101, 2) and drift.phi.shape == (101, 1)
    assert np.abs(held.phi_dot).max() < 1e-12
    assert np.abs(held.phi).max() < 1e-12
    # started off the knife edge: -α(A q̇ + b) pulls the residual back at rate α
    off = np.r_[q, qd + np.array([0.0, 1e-3, 0.0, 0.0])]
    grid = np.linspace(0, 2, 201)
    kept = num.simulate(off, grid, start="as_given")
    damped = num.simulate(off, grid, baumgarte=(10.0, 10.0), start="as_given")
    assert abs(kept.phi_dot[-1, 1]) > 5e-4
    assert abs(damped.phi_dot[-1, 1]) < 1e-3 * abs(kept.phi_dot[-1, 1])


def test_time_dependent_velocity_constraint():
    free, (x, y, th) = _free()
    # the knife edge pushed sideways at a prescribed speed: A q̇ + b(t) = 0
    cs = ConstrainedSystem(free, velocity_constraints=[_knife(x, y, th) - sp.sin(ld.t)])
    assert cs.time_dependent
    num = cs.lambdify(free.defaults)
    q0, qd0 = [0.0, 0.0, 0.0], [1.0, 0.0, 0.2]  # sin(0) = 0: admissible at t = 0
    res = num.simulate(np.r_[q0, qd0], np.linspace(0, 1, 201), baumgarte=(20.0, 0.0))
    assert np.abs(res.phi_dot).max() < 1e-6
    with pytest.raises(LagdynError, match="depend on t"):
        num.simulate(np.r_[q0, qd0], [0.0, 0.1], project=True)


# ------------------------------------------------------------------ reduced equations
def test_reduced_sleigh_is_exact_and_proved():
    sleigh = ld.zoo.get("chaplygin_sleigh")
    x, y, th = sleigh.system.q
    m, inertia, a = sorted(sleigh.system.parameters, key=str)[::-1][:3]
    red = sleigh.reduced(independent=[x, th])
    assert red.dependent == (y.diff(ld.t),)
    assert red.dependent_rates[0] == sp.tan(th) * x.diff(ld.t) or is_zero(
        red.dependent_rates[0] - sp.tan(th) * x.diff(ld.t)
    )
    assert red.pivot_determinant == sp.cos(th)
    assert red.is_symmetric() is True
    rep = red.positive_definite_report()
    assert rep["verdict"] is True and rep["singular"] == []
    assert red.equations().shape == (2, 1)


def test_reduced_disc_singular_set_reported():
    disc = ld.zoo.get("rolling_disc")
    red = disc.reduced()
    theta = disc.system.q[3]
    rep = red.positive_definite_report()
    assert rep["verdict"] is None and rep["singular"] == [sp.cos(theta)]
    assert "cos(theta(t)) = 0" in rep["message"]


def test_reduced_bad_choices():
    sleigh = ld.zoo.get("chaplygin_sleigh")
    x, y, th = sleigh.system.q
    with pytest.raises(ConstraintError, match="2 independent speeds"):
        sleigh.reduced(independent=[x])
    with pytest.raises(ConstraintError, match="do not determine the dependent rates"):
        # x, y independent leaves theta dependent, but the knife edge has no theta column
        sleigh.reduced(independent=[x, y])
    with pytest.raises(LagdynError, match="not a coordinate or rate"):
        sleigh.reduced(independent=[x, sp.Symbol("z")])
    with pytest.raises(LagdynError, match="twice"):
        sleigh.reduced(independent=[x, x])


# ------------------------------------------------------------------ linearization
def test_sleigh_linearized_about_straight_sliding():
    sleigh = ld.zoo.get("chaplygin_sleigh")
    x, y, th = sleigh.system.q
    red = sleigh.reduced(independent=[x, th])
    params = {"m": 1, "I": 1, "a": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a steady motion: no warning
        A, B = red.linearize([0, 0, 0], [1, 0, 0], ignorable=[x, y], params=params)
        Ab, _ = red.linearize([0, 0, 0], [-1, 0, 0], ignorable=[x, y], params=params)
    # θ̈ = −a m ẋ θ̇ / (I + a² m): damped forwards, growing backwards
    assert A == sp.Matrix([[0, 0, 1], [0, 0, 0], [0, 0, sp.Rational(-1, 2)]])
    assert Ab[2, 2] == sp.Rational(1, 2)
    assert B.shape == (3, 3) and B[1, 0] == 1 and B[2, 2] == sp.Rational(1, 2)
    with pytest.raises(ConstraintError, match="theta.*not ignorable"):
        red.linearize([0, 0, 0], [1, 0, 0], ignorable=[th], params=params)
    with pytest.raises(ConstraintError, match="qd0 violates"):
        red.linearize([0, 0, 0], [1, 1, 0], ignorable=[x, y], params=params)
    with pytest.warns(LagdynWarning, match="not a steady motion"):
        red.linearize([0, 0, 0], [1, 0, 0], params=params)


# ------------------------------------------------------------------ consumers refuse by name
def test_fmu_export_and_cli_refuse_velocity_constraints(tmp_path, capsys):
    from lagdyn.cli import main
    from lagdyn.export.fmu import export_fmu

    with pytest.raises(LagdynError, match="velocity \\(nonholonomic\\) constraints"):
        export_fmu(ld.zoo.get("chaplygin_sleigh"), tmp_path / "sleigh.fmu")
    assert main(["derive", "rolling_disc"]) == 2
    assert "rolling_disc is a constrained model" in capsys.readouterr().err


# ------------------------------------------------------------------ numeric linearization
def test_numeric_linearization_equals_the_exact_one():
    disc = ld.zoo.get("rolling_disc")
    x, y, psi, theta, phi = disc.system.q
    th, yaw = 0.3, 2.0  # a steady turn: the spin from the textbook relation
    spin = (0.25 * yaw * np.sin(th) - 9.81 * np.sin(th) / (yaw * np.cos(th))) / 1.5
    spin -= yaw * np.sin(th)
    q0, u0 = [0.1, -0.2, 0.4, th, 0.7], [yaw, 0.0, spin]
    params = {"m": 1.0, "r": 1.0, "g": 9.81}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LagdynWarning)  # x, y, ψ, φ keep changing
        An, Bn = disc.linearize(method="numeric", q0=q0, qd0=u0, independent=[psi, theta, phi])
        Ae, Be = disc.reduced([psi, theta, phi]).linearize(q0, u0, params=params)
    np.testing.assert_allclose(An, np.array(Ae, dtype=float), atol=1e-12)
    np.testing.assert_allclose(Bn, np.array(Be, dtype=float), atol=1e-12)
    with pytest.raises(ConstraintError, match="psi.*not ignorable at this point"):
        disc.linearize(method="numeric", q0=q0, qd0=u0, ignorable=[psi, theta])
    with pytest.raises(LagdynError, match="method must be"):
        disc.linearize(method="fast", q0=q0)


def test_numeric_linearization_eliminates_holonomic_coordinates(mixed):
    cs, _ = mixed  # z = x holonomic: z follows x and is not a state
    x, y, z, th = cs.system.q
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LagdynWarning)
        A, B = cs.linearize(method="numeric", q0=[0.0, 0.0, 0.0, 0.0], qd0=[1.0, 0.0, 1.0, 0.0])
    assert A.shape == (5, 5) and B.shape == (5, 4)  # (x, y, θ) or (y, z, θ), then 2 speeds
    with pytest.raises(ConstraintError, match="follow the others"):
        cs.linearize(method="numeric", q0=[0.0] * 4, qd0=[1.0, 0.0, 1.0, 0.0], states=[x, y, z, th])
