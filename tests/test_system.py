"""LagrangianSystem: seed 001 and seed 003 closed forms, random Lagrangians vs sympy.mechanics."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from helpers import lagdyn_qdd, lagranges_qdd
from lagdyn.zoo.robots import LARGE
from strategies import random_lagrangians


def exactly_equal(a, b) -> bool:
    """Independent oracle: trig expansion then polynomial expansion of the difference."""
    return sp.expand(sp.expand_trig(sp.sympify(a) - sp.sympify(b))) == 0


def matrices_equal(A, B) -> bool:
    A, B = sp.Matrix(A), sp.Matrix(B)
    return A.shape == B.shape and all(exactly_equal(x, y) for x, y in zip(A, B))


# ---------------------------------------------------------------- seed 001: two-link arm
def seed001_closed_forms():
    q1, q2 = ld.coordinates("q1 q2")
    q1d, q2d = ld.velocities([q1, q2])
    m1, m2, l1, lc1, lc2, I1, I2, g = sp.symbols("m1 m2 l1 lc1 lc2 I1 I2 g", positive=True)
    alpha = I1 + I2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2)
    beta = m2 * l1 * lc2
    delta = I2 + m2 * lc2**2
    c2, s2 = sp.cos(q2), sp.sin(q2)
    M = sp.Matrix([[alpha + 2 * beta * c2, delta + beta * c2], [delta + beta * c2, delta]])
    C = sp.Matrix([[-beta * s2 * q2d, -beta * s2 * (q1d + q2d)], [beta * s2 * q1d, 0]])
    G = sp.Matrix(
        [
            (m1 * lc1 + m2 * l1) * g * sp.cos(q1) + m2 * lc2 * g * sp.cos(q1 + q2),
            m2 * lc2 * g * sp.cos(q1 + q2),
        ]
    )
    return M, C, G


def test_two_link_planar_matches_seed_001_entry_by_entry():
    arm = ld.zoo.two_link_planar()
    M, C, g = seed001_closed_forms()
    for i in range(2):
        assert exactly_equal(arm.g[i], g[i]), f"g[{i}]"
        for j in range(2):
            assert exactly_equal(arm.M[i, j], M[i, j]), f"M[{i},{j}]"
            assert exactly_equal(arm.C[i, j], C[i, j]), f"C[{i},{j}]"


def test_two_link_planar_output_is_already_in_closed_form():
    """The canonical path returns the seed's form itself, not an unexpanded equivalent."""
    arm = ld.zoo.two_link_planar()
    M, C, g = seed001_closed_forms()
    assert arm.derivation_path == "trigpoly"
    assert all(sp.expand(a - b) == 0 for a, b in zip(arm.M, M))
    assert all(sp.expand(a - b) == 0 for a, b in zip(arm.C, C))


def test_gravity_and_equations_form():
    arm = ld.zoo.two_link_planar()
    eq = arm.equations()
    expected = arm.M * sp.Matrix(arm.qdd) + arm.C * sp.Matrix(arm.qd) + arm.g - sp.Matrix(arm.tau)
    assert all(sp.expand(a - b) == 0 for a, b in zip(eq, expected))
    free = arm.equations([0, 0])
    assert not (free.free_symbols & set(arm.tau))


# ---------------------------------------------------------------- seed 003: double pendulum
def test_double_pendulum_absolute_mass_matrix_seed_003():
    dp = ld.zoo.double_pendulum()
    a, b = dp.q
    m1, m2, l1, l2 = sp.symbols("m1 m2 l1 l2", positive=True)
    M_abs = sp.Matrix(
        [
            [(m1 + m2) * l1**2, m2 * l1 * l2 * sp.cos(a - b)],
            [m2 * l1 * l2 * sp.cos(a - b), m2 * l2**2],
        ]
    )
    assert matrices_equal(dp.M, M_abs)
    det = m2 * l1**2 * l2**2 * (m1 + m2 * sp.sin(a - b) ** 2)
    assert exactly_equal(sp.expand(dp.M.det()) - det, 0) or ld.structure.is_zero(dp.M.det() - det)
    assert ld.structure.is_zero(dp.M.det() - det)


def test_double_pendulum_relative_is_At_M_A():
    rel = ld.zoo.double_pendulum(coordinates="relative")
    u1, u2 = rel.q
    m1, m2, l1, l2 = sp.symbols("m1 m2 l1 l2", positive=True)
    A = sp.Matrix([[1, 0], [1, 1]])
    M_abs = sp.Matrix(
        [
            [(m1 + m2) * l1**2, m2 * l1 * l2 * sp.cos(-u2)],
            [m2 * l1 * l2 * sp.cos(-u2), m2 * l2**2],
        ]
    )
    assert matrices_equal(rel.M, A.T * M_abs * A)


def test_seed_003_numbers_for_unit_parameters():
    dp = ld.zoo.double_pendulum()
    rel = ld.zoo.double_pendulum(coordinates="relative")
    unit = {s: 1 for s in dp.parameters}
    Ma = dp.M.subs({dp.q[0]: 0, dp.q[1]: 0}).subs(unit)
    Mr = rel.M.subs({rel.q[0]: 0, rel.q[1]: 0}).subs(unit)
    assert Ma == sp.Matrix([[2, 1], [1, 1]])
    assert Mr == sp.Matrix([[5, 2], [2, 1]])
    Ma2 = dp.M.subs({dp.q[0]: 0, dp.q[1]: sp.pi / 2}).subs(unit)
    assert Ma2 == sp.diag(2, 1)


# ---------------------------------------------------------------- random Lagrangians
@settings(max_examples=5)  # LagrangesMethod on 4 coordinates takes ~1 s an example
@given(random_lagrangians(max_n=4), st.data())
def test_random_lagrangian_agrees_with_lagranges_method(rl, data):
    sys = ld.LagrangianSystem(rl.L, rl.q, forces=rl.forces)
    n = sys.n
    ang = st.floats(-2.5, 2.5, allow_nan=False)
    q0 = data.draw(st.lists(ang, min_size=n, max_size=n))
    qd0 = data.draw(st.lists(ang, min_size=n, max_size=n))
    tau = data.draw(st.lists(ang, min_size=n, max_size=n))
    params = {p: rl.params.get(p, 1.0) for p in sys.parameters}
    ours = lagdyn_qdd(sys, q0, qd0, params, tau)
    ref = lagranges_qdd(rl.L, rl.q, rl.forces, q0, qd0, params, tau)
    assert np.allclose(ours, ref, rtol=1e-10, atol=1e-10 * (1 + np.abs(ref).max()))


@settings(max_examples=10)  # exact skew and passivity proofs of up to 4 coordinates
@given(random_lagrangians(max_n=4))
def test_random_lagrangian_structure_proofs(rl):
    sys = ld.LagrangianSystem(rl.L, rl.q, forces=rl.forces)
    assert sys.is_skew_symmetric()
    assert sys.is_passive()
    # M and Γ against references computed here by plain sympy differentiation of L,
    # compared at fixed random configurations
    n, (q, v) = sys.n, sys.plain_symbols
    L = sys.plain(rl.L)
    M_ref = sp.Matrix(n, n, lambda i, j: L.diff(v[i]).diff(v[j]))
    diffs = [sys.plain(sys.M[i, j]) - M_ref[i, j] for i in range(n) for j in range(n)]
    diffs += [
        sys.plain(sys.christoffel[i][j][k])
        - (M_ref[i, j].diff(q[k]) + M_ref[i, k].diff(q[j]) - M_ref[j, k].diff(q[i])) / 2
        for i in range(n)
        for j in range(n)
        for k in range(n)
    ]
    for q0 in np.random.default_rng(n).uniform(-2.5, 2.5, (3, n)):
        sub = dict(zip(q, map(sp.Float, q0))) | {
            p: sp.Float(rl.params.get(p, 1.0)) for p in sys.parameters
        }
        assert np.allclose([float(d.xreplace(sub)) for d in diffs], 0.0, atol=1e-9)


def test_gyroscopic_charged_particle_in_magnetic_field():
    """L = ½m(ẋ² + ẏ²) + (qB/2)(x ẏ − y ẋ): G = [[0, −qB], [qB, 0]]... up to sign convention."""
    x, y = ld.coordinates("x y")
    xd, yd = ld.velocities([x, y])
    m, e, B = sp.symbols("m e B", positive=True)
    L = m * (xd**2 + yd**2) / 2 + e * B * (x * yd - y * xd) / 2
    sys = ld.LagrangianSystem(L, [x, y])
    assert sys.C == sp.zeros(2, 2)
    # Lorentz force: m ẍ = e B ẏ, m ÿ = −e B ẋ  ⇒  G q̇ = (−eBẏ, eBẋ)
    Gqd = sys.G * sp.Matrix([xd, yd])
    assert sp.expand(Gqd[0] + e * B * yd) == 0
    assert sp.expand(Gqd[1] - e * B * xd) == 0
    assert sys.is_passive()
    assert sp.expand(sys.energy - m * (xd**2 + yd**2) / 2) == 0


def test_rotating_frame_gyroscopic_and_centrifugal():
    """A bead in a frame rotating at Ω: L = ½m((ẋ − Ωy)² + (ẏ + Ωx)²)."""
    x, y = ld.coordinates("x y")
    xd, yd = ld.velocities([x, y])
    m, W = sp.symbols("m Omega", positive=True)
    L = m * ((xd - W * y) ** 2 + (yd + W * x) ** 2) / 2
    sys = ld.LagrangianSystem(L, [x, y])
    assert sp.expand(sys.U + m * W**2 * (x**2 + y**2) / 2) == 0
    assert sys.G == sp.Matrix([[0, -2 * m * W], [2 * m * W, 0]])
    assert sys.is_passive() and sys.is_skew_symmetric()


def test_general_path_prismatic_and_nontrig():
    """Non-trigonometric Lagrangians (here 1/r gravity) derive correctly on some path."""
    r, th = ld.coordinates("r theta")
    rd, thd = ld.velocities([r, th])
    m, k = sp.symbols("m k", positive=True)
    L = m * (rd**2 + r**2 * thd**2) / 2 + k / r + sp.exp(-r) * thd
    sys = ld.LagrangianSystem(L, [r, th])
    assert sys.M == sp.Matrix([[m, 0], [0, m * r**2]])
    assert sp.expand(sys.C[0, 1] + m * r * thd) == 0
    assert sp.expand(sys.g[0] - k / r**2) == 0
    assert sys.is_passive() and sys.is_skew_symmetric()


def test_forces_enter_equations():
    (x,) = ld.coordinates("x")
    (xd,) = ld.velocities([x])
    c, m = sp.symbols("c m", positive=True)
    sys = ld.LagrangianSystem(m * xd**2 / 2, [x], forces=[-c * xd + sp.sin(ld.t)])
    eq = sys.equations([0])
    assert sp.expand(eq[0] - (m * x.diff(ld.t, 2) + c * xd - sp.sin(ld.t))) == 0


def test_energy_and_lazy_attributes():
    dp = ld.zoo.double_pendulum()
    assert sp.expand(dp.energy - dp.T - dp.U) == 0
    assert dp.parameters == tuple(sp.symbols("g l1 l2 m1 m2", positive=True))
    assert "LagrangianSystem(n=2" in repr(dp)
    # attributes can be read in any order
    other = ld.zoo.double_pendulum()
    _ = other.C
    assert other.M == dp.M


def test_from_mass_matrix_takes_M_as_given():
    r, th = ld.coordinates("r theta")
    m = sp.Symbol("m", positive=True)
    sys = ld.LagrangianSystem.from_mass_matrix(sp.diag(m, m * r**2), -m * r, [r, th])
    assert sys.M == sp.diag(m, m * r**2)
    assert sys.g == sp.Matrix([-m, 0])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_n_dof_chain_time(n):
    """Derivation on a small chain completes and proves skew-symmetry."""
    q = ld.coordinates([f"q{i}" for i in range(n)])
    qd = ld.velocities(q)
    L = sum((qd[i] ** 2 * (2 + sp.cos(q[(i + 1) % n])) for i in range(n)), sp.Integer(0)) / 2
    sys = ld.LagrangianSystem(L, q)
    assert sys.is_skew_symmetric()


@pytest.mark.parametrize("name", [n for n in ld.zoo.names() if n not in LARGE])
def test_h_equals_the_matrix_form_exactly(name):
    sys = ld.zoo.get(name)
    qd = sp.Matrix(sys.qd)
    expected = sys.C * qd + sys.G * qd + sys.g
    assert all(ld.structure.is_zero(a - b) for a, b in zip(sys.h, expected))


@given(random_lagrangians(max_n=3))
def test_h_equals_the_matrix_form_for_random_lagrangians(rl):
    sys = ld.LagrangianSystem(rl.L, rl.q, forces=rl.forces)
    qd = sp.Matrix(sys.qd)
    expected = sys.C * qd + sys.G * qd + sys.g
    assert all(ld.structure.is_zero(a - b) for a, b in zip(sys.h, expected))


def test_h_is_factored_for_chains():
    """Serial chains: each Coriolis coefficient prints as a product of linear velocity forms."""
    sys = ld.zoo.n_link_pendulum(4, coordinates="relative")
    qd = sp.Matrix(sys.qd)
    assert sp.count_ops(sys.h) < 0.65 * sp.count_ops(sys.C * qd + sys.g)


def test_lagrangian_with_functions_symengine_cannot_differentiate():
    """Max and Abs (symengine leaves their derivatives unevaluated) still go to sympy's
    differentiation: the one-walk check of L for smooth functions sends them there."""
    x = ld.coordinates("x")[0]
    xd = x.diff(ld.t)
    s = ld.LagrangianSystem(xd**2 / 2 - sp.Max(x, 0) ** 2 / 2 - sp.Abs(x), [x])
    assert s.g[0] == sp.Heaviside(x) * sp.Max(0, x) + sp.sign(x)
    s2 = ld.LagrangianSystem(sp.Max(1, x**2) * xd**2 / 2, [x])
    assert s2.M[0, 0] == sp.Max(1, x**2)
    assert sp.simplify(s2.C[0, 0] - x * sp.Heaviside(x**2 - 1) * xd) == 0
