"""Coordinate changes (lagdyn.coordchange): exactness, invariants, rates, errors, tangents."""

from __future__ import annotations

import random

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

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
from lagdyn.kinematics import from_particles, rayleigh_forces

t = ld.t


def expand_equal(a, b) -> bool:
    return all(sp.expand(x) == 0 for x in sp.Matrix(a) - sp.Matrix(b))


@pytest.fixture(scope="module")
def dp_abs():
    return ld.zoo.double_pendulum()


@pytest.fixture(scope="module")
def dp_rel_direct():
    return ld.zoo.double_pendulum(coordinates="relative")


@pytest.fixture(scope="module")
def dp_rel_changed(dp_abs, dp_rel_direct):
    a, b = dp_abs.q
    u1, u2 = dp_rel_direct.q
    return change_coordinates(dp_abs, [u1, u2], {a: u1, b: u1 + u2})


def test_relative_double_pendulum_two_ways_exactly_equal(dp_rel_changed, dp_rel_direct):
    for attr in ("M", "C", "g", "G"):
        assert expand_equal(getattr(dp_rel_changed, attr), getattr(dp_rel_direct, attr)), attr
    assert dp_rel_changed.defaults == dp_rel_direct.defaults
    assert dp_rel_changed.is_skew_symmetric()


def test_mass_matrix_is_at_m_a(dp_abs, dp_rel_changed):
    a, b = dp_abs.q
    u1, u2 = dp_rel_changed.q
    A = sp.Matrix([[1, 0], [1, 1]])
    M_pulled = (A.T * dp_abs.M * A).xreplace({a: u1, b: u1 + u2})
    assert all(ld.structure.is_zero(x) for x in dp_rel_changed.M - M_pulled)
    g_pulled = (A.T * dp_abs.g).xreplace({a: u1, b: u1 + u2})
    assert all(ld.structure.is_zero(x) for x in dp_rel_changed.g - g_pulled)


def test_coriolis_transforms_with_a_dot():
    """Nonlinear map (Cartesian → polar): C_u = AᵀCA + AᵀMȦ, exactly."""
    x, y = ld.coordinates("x y")
    r, th = ld.coordinates("r theta")
    m, k = ld.parameters("m k")
    free = ld.LagrangianSystem.from_mass_matrix(sp.diag(m, m), k * (x**2 + y**2) / 2, [x, y])
    mapping = {x: r * sp.cos(th), y: r * sp.sin(th)}
    polar = change_coordinates(free, [r, th], mapping)
    ch = coordinate_change([x, y], [r, th], mapping)
    Adot = ch.A.diff(t)
    M = free.M.xreplace(ch.substitution)
    C_expected = ch.A.T * free.C.xreplace(ch.substitution) * ch.A + ch.A.T * M * Adot
    assert all(ld.structure.is_zero(e) for e in polar.C - C_expected)
    assert all(ld.structure.is_zero(e) for e in polar.g - sp.Matrix([k * r, 0]))
    assert is_kinetic_energy_invariant(free, polar, mapping)


def test_forces_and_rates_mapped(dp_abs):
    """Damping −c q̇ is carried with q̇ = A u̇ (chain rule), then Q_u = AᵀQ."""
    a, b = dp_abs.q
    u1, u2 = ld.coordinates("u1 u2")
    c = ld.parameters("c")[0]
    Q = rayleigh_forces(c * (a.diff(t) ** 2 + b.diff(t) ** 2) / 2, [a, b])
    damped = ld.LagrangianSystem(dp_abs.L, dp_abs.q, forces=list(Q))
    rel = change_coordinates(damped, [u1, u2], {a: u1, b: u1 + u2})
    ud1, ud2 = u1.diff(t), u2.diff(t)
    expected = sp.Matrix([[1, 1], [0, 1]]) * sp.Matrix([-c * ud1, -c * (ud1 + ud2)])
    assert expand_equal(rel.forces, expected)
    assert is_power_invariant(damped, rel, {a: u1, b: u1 + u2})
    assert rel.is_passive()


def test_rates_never_wrapped():
    a, b, u1, u2 = ld.coordinates("a b u1 u2")
    ch = coordinate_change([a, b], [u1, u2], {a: u1, b: u1 + u2})
    # a = π, b = −π: relative angle −2π is kept, and the rate difference −4 is used as is
    u = (sp.pi, -2 * sp.pi)
    assert ch.new_rates(u, (2, -2)) == (2, -4)
    q, qd = ch.old_state(u, (2, -4))
    assert q == (sp.pi, -sp.pi) and qd == (2, -2)
    assert ch.is_linear
    assert ch.pull_back(b.diff(t)) == u1.diff(t) + u2.diff(t)


def test_eigenvalues_not_invariant_but_energy_is(dp_abs, dp_rel_direct):
    unit = dict.fromkeys(ld.parameters("m1 m2 l1 l2"), 1)
    ea = metric_eigenvalues(dp_abs, (0, sp.pi / 2), unit)
    er = metric_eigenvalues(dp_rel_direct, (0, sp.pi / 2), unit)
    assert ea == (1, 2)
    assert tuple(sp.expand(e) for e in er) == (2 - sp.sqrt(2), 2 + sp.sqrt(2))
    a, b = dp_abs.q
    u1, u2 = dp_rel_direct.q
    assert is_kinetic_energy_invariant(dp_abs, dp_rel_direct, {a: u1, b: u1 + u2})
    # floats go through mpmath
    ef = metric_eigenvalues(dp_abs, (0.0, 0.0), {s: 1.0 for s in unit})
    assert abs(float(ef[0]) - 0.381966) < 1e-6


def test_transform_force_seed(dp_abs):
    a, b, u1, u2 = (*dp_abs.q, *ld.coordinates("u1 u2"))
    ch = coordinate_change([a, b], [u1, u2], {a: u1, b: u1 + u2})
    assert transform_force([3, 3], ch) == sp.Matrix([6, 3])


def test_restriction_to_submanifold():
    """m < n: a free particle restricted to a circle is the simple pendulum."""
    x, y = ld.coordinates("x y")
    (th,) = ld.coordinates("theta")
    m, ell, g = ld.parameters("m l g")
    free = from_particles([(x, y)], [m], [x, y], gravity=(0, -g))
    pend = change_coordinates(free, [th], {x: ell * sp.sin(th), y: -ell * sp.cos(th)})
    assert expand_equal(pend.M, [[m * ell**2]])
    assert expand_equal(pend.g, [m * g * ell * sp.sin(th)])


# ---------------------------------------------------------------- hypothesis: linear changes
def _numeric_T_and_power(system, forces_sub, q_vals, qd_vals):
    sub_r = dict(zip(system.qd, qd_vals))
    sub_q = dict(zip(system.q, q_vals))
    T = system.T.xreplace(sub_r).xreplace(sub_q)
    P = sum(f * v for f, v in zip(system.forces, system.qd)).xreplace(sub_r).xreplace(sub_q)
    return T.xreplace(forces_sub), P.xreplace(forces_sub)


@st.composite
def invertible_integer_matrices(draw):
    n = draw(st.sampled_from([2, 3]))
    entries = st.integers(-3, 3)
    A = sp.Matrix(n, n, lambda i, j: draw(entries))
    if A.det() == 0:
        # |diagonal| >= 3n - 2 > 3(n - 1) >= sum of |off-diagonal| in the row:
        # strictly diagonally dominant, hence invertible
        A = A + (3 * n + 1) * sp.eye(n)
    return A


@settings(max_examples=6)  # two derivations and exact rational evaluation each
@given(invertible_integer_matrices(), st.integers(0, 10**6))
def test_linear_changes_preserve_energy_and_power(A, seed):
    n = A.rows
    rng = random.Random(seed)
    q = ld.coordinates([f"q{i}" for i in range(n)])
    u = ld.coordinates([f"w{i}" for i in range(n)])
    params = ld.parameters(" ".join(f"k{i}" for i in range(n)))
    # a trig mass matrix M = BᵀB + I, and viscous + coupled forces
    B = sp.Matrix(n, n, lambda i, j: sp.cos(q[i] - q[j]) if i != j else 1 + sp.sin(q[i]) / 2)
    M = B.T * B + sp.eye(n)
    U = sum(k * sp.cos(qi) for k, qi in zip(params, q))
    forces = [-params[i] * q[i].diff(t) + sp.sin(q[(i + 1) % n]) for i in range(n)]
    system = ld.LagrangianSystem.from_mass_matrix(M, U, q, forces=forces)
    mapping = {q[i]: sum(A[i, j] * u[j] for j in range(n)) for i in range(n)}
    new = change_coordinates(system, u, mapping)
    pv = {k: sp.Rational(rng.randint(1, 9), 4) for k in params}
    u_vals = [sp.Rational(rng.randint(-20, 20), 10) for _ in range(n)]
    ud_vals = [sp.Rational(rng.randint(-20, 20), 10) for _ in range(n)]
    ch = coordinate_change(q, u, mapping)
    q_vals, qd_vals = ch.old_state(u_vals, ud_vals)
    T_old, P_old = _numeric_T_and_power(system, pv, q_vals, qd_vals)
    T_new, P_new = _numeric_T_and_power(new, pv, u_vals, ud_vals)
    assert abs(sp.N(T_old - T_new, 30)) < 1e-20
    assert abs(sp.N(P_old - P_new, 30)) < 1e-20
    assert ch.new_rates(u_vals, qd_vals) == tuple(ud_vals)


def test_linear_change_invariance_proved():
    q1, q2, w1, w2 = ld.coordinates("q1 q2 w1 w2")
    M = sp.Matrix([[3 + sp.cos(q2), 1 + sp.cos(q2)], [1 + sp.cos(q2), 2]])
    system = ld.LagrangianSystem.from_mass_matrix(
        M, sp.cos(q1), [q1, q2], forces=[-q1.diff(t), sp.sin(q2)]
    )
    mapping = {q1: 2 * w1 - w2, q2: w1 + 3 * w2}
    new = change_coordinates(system, [w1, w2], mapping)
    assert is_kinetic_energy_invariant(system, new, mapping)
    assert is_power_invariant(system, new, mapping)


# ---------------------------------------------------------------- errors
def test_rank_deficient_linear_map(dp_abs):
    a, b = dp_abs.q
    u1, u2 = ld.coordinates("u1 u2")
    with pytest.raises(ld.CoordinateError, match="rank-deficient"):
        change_coordinates(dp_abs, [u1, u2], {a: u1 + u2, b: 2 * u1 + 2 * u2})


def test_rank_deficient_nonlinear_map(dp_abs):
    a, b = dp_abs.q
    u1, u2 = ld.coordinates("u1 u2")
    with pytest.raises(ld.CoordinateError, match="rank-deficient"):
        change_coordinates(dp_abs, [u1, u2], {a: sp.sin(u1 + u2), b: sp.cos(u1 + u2)})


def test_mapping_must_cover_every_old_coordinate(dp_abs):
    a, b = dp_abs.q
    u1, u2 = ld.coordinates("u1 u2")
    with pytest.raises(ld.CoordinateError, match="missing: b"):
        change_coordinates(dp_abs, [u1, u2], {a: u1})


def test_other_mapping_errors(dp_abs):
    a, b = dp_abs.q
    u1, u2, z = ld.coordinates("u1 u2 z")
    with pytest.raises(ld.CoordinateError, match="not old coordinates"):
        change_coordinates(dp_abs, [u1, u2], {a: u1, b: u2, z: u1})
    with pytest.raises(ld.CoordinateError, match="rates"):
        change_coordinates(dp_abs, [u1, u2], {a: u1, b: u2.diff(t)})
    with pytest.raises(ld.CoordinateError, match="not among the new"):
        change_coordinates(dp_abs, [u1, u2], {a: u1, b: z})
    with pytest.raises(ld.CoordinateError, match="string"):
        change_coordinates(dp_abs, [u1, u2], {a: u1, b: "u1 + u2"})
    with pytest.raises(ld.CoordinateError, match="cannot have full rank"):
        change_coordinates(dp_abs, [u1, u2, z], {a: u1, b: u2 + z})
    with pytest.raises(ld.CoordinateError, match="dict"):
        change_coordinates(dp_abs, [u1, u2], [(a, u1), (b, u2)])
    with pytest.raises(ld.CoordinateError):
        change_coordinates(dp_abs, [sp.Symbol("u1"), u2], {a: u2, b: u2})


# ---------------------------------------------------------------- constraint tangents
@pytest.fixture(scope="module")
def lab():
    a, b = ld.coordinates("a b")
    l1, l2 = ld.parameters("l1 l2")
    x1, y1, x2, y2 = sp.symbols("x1 y1 x2 y2", real=True)
    z = [
        l1 * sp.sin(a),
        -l1 * sp.cos(a),
        l1 * sp.sin(a) + l2 * sp.sin(b),
        -l1 * sp.cos(a) - l2 * sp.cos(b),
    ]
    h = [x1**2 + y1**2 - l1**2, (x2 - x1) ** 2 + (y2 - y1) ** 2 - l2**2]
    return ConstraintTangent.from_map(z, h, (x1, y1, x2, y2), [a, b]), (l1, l2)


def test_tangent_identities(lab):
    tangent, (l1, l2) = lab
    assert tangent.proves_cj_zero()
    assert tangent.residuals_on_map()
    assert tangent.rank() == 2 and tangent.dof() == 2
    assert tangent.rank((0, 0), {l1: 1, l2: 1}) == 2
    assert tangent.constraint_jacobian.shape == (2, 4) and tangent.map_jacobian.shape == (4, 2)
    with pytest.warns(DeprecationWarning, match="constraint_jacobian"):
        assert tangent.C == tangent.constraint_jacobian
    with pytest.warns(DeprecationWarning, match="map_jacobian"):
        assert tangent.J == tangent.map_jacobian


def test_tangent_step_second_order(lab):
    """Tangent residuals grow like ε²; the exact map keeps lengths."""
    tangent, (l1, l2) = lab
    unit = {l1: 1, l2: 1}
    for eps, expected in (
        (sp.Rational(1, 2), sp.Rational(1, 4)),
        (sp.Rational(1, 4), sp.Rational(1, 16)),
    ):
        s = tangent.step((0, 0), (1, -1), eps, params=unit)
        assert s.tangent_residuals == (expected, expected)
        assert s.exact_residuals == (0, 0)


def test_finite_work_of_position_dependent_force(lab):
    """A spring-like ambient force: finite work by quadrature equals −ΔV exactly."""
    tangent, (l1, l2) = lab
    x1, y1, x2, y2 = tangent.ambient
    f = [0, 0, -x2, -y2]  # force of V = (x2² + y2²)/2
    s = tangent.step((0, 0), (1, -1), sp.Rational(1, 2), force=f, params={l1: 1, l2: 1})
    V = lambda p: (p[2] ** 2 + p[3] ** 2) / 2  # noqa: E731
    assert abs(float(s.finite_work) + float(V(s.exact) - V(s.start))) < 1e-12


def test_tangent_errors():
    (a,) = ld.coordinates("a")
    x, y = sp.symbols("x y")
    with pytest.raises(ld.ShapeError):
        ConstraintTangent.from_map([sp.cos(a)], [x**2 + y**2 - 1], (x, y), [a])
    with pytest.raises(ld.LagdynError, match="ambient"):
        ConstraintTangent.from_map([sp.cos(a), sp.sin(a)], [a], (x, y), [a])
