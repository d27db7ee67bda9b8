"""Kinematic builders: M = JᵀWJ, rigid bodies, virtual-work forces, input validation."""

from __future__ import annotations

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.kinematics import (
    Particle,
    RigidBody2D,
    RigidBody3D,
    angular_velocity_jacobian,
    from_bodies,
    from_particles,
    generalized_force,
    generalized_torque,
    is_power_consistent,
    jacobian,
    mass_matrix,
    rayleigh_forces,
)

t = ld.t


def same(a, b) -> bool:
    a, b = sp.Matrix(a), sp.Matrix(b)
    return a.shape == b.shape and all(ld.structure.is_zero(x - y) for x, y in zip(a, b))


def expand_equal(a, b) -> bool:
    return all(sp.expand(x) == 0 for x in sp.Matrix(a) - sp.Matrix(b))


@pytest.fixture(scope="module")
def dp():
    a, b = ld.coordinates("a b")
    m1, m2, l1, l2, g = ld.parameters("m1 m2 l1 l2 g")
    p1 = sp.Matrix([l1 * sp.sin(a), -l1 * sp.cos(a)])
    p2 = p1 + sp.Matrix([l2 * sp.sin(b), -l2 * sp.cos(b)])
    return a, b, m1, m2, l1, l2, g, p1, p2


def test_from_particles_equals_hand_lagrangian(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    built = from_particles([p1, p2], [m1, m2], [a, b], gravity=[0, -g])
    v1, v2 = p1.diff(t), p2.diff(t)
    L = (m1 * v1.dot(v1) + m2 * v2.dot(v2)) / 2 - g * (m1 * p1[1] + m2 * p2[1])
    hand = ld.LagrangianSystem(L, [a, b])
    for attr in ("M", "C", "g"):
        assert expand_equal(getattr(built, attr), getattr(hand, attr)), attr
    assert ld.structure.is_zero(built.T - hand.T) and ld.structure.is_zero(built.U - hand.U)


def test_mass_matrix_is_jt_w_j(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    z = sp.Matrix([*p1, *p2])
    J = z.jacobian([a, b])
    W = sp.diag(m1, m1, m2, m2)
    M = mass_matrix([Particle(m1, p1), Particle(m2, p2)], [a, b])
    assert same(M, J.T * W * J)
    assert sp.expand(M[0, 0] - (m1 + m2) * l1**2) == 0  # sin² + cos² reduced exactly
    assert ld.structure.is_zero(M.det() - m2 * l1**2 * l2**2 * (m1 + m2 * sp.sin(a - b) ** 2))


def test_jacobian_seed_003(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    J = jacobian([*p1, *p2], [a, b])
    expected = sp.Matrix(
        [
            [l1 * sp.cos(a), 0],
            [l1 * sp.sin(a), 0],
            [l1 * sp.cos(a), l2 * sp.cos(b)],
            [l1 * sp.sin(a), l2 * sp.sin(b)],
        ]
    )
    assert J == expected


def test_particle_3d_matches_hand():
    th, ph = ld.coordinates("theta phi")
    m, ell, g = ld.parameters("m l g")
    p = (ell * sp.sin(th) * sp.cos(ph), ell * sp.sin(th) * sp.sin(ph), -ell * sp.cos(th))
    built = from_particles([p], [m], [th, ph], gravity=(0, 0, -g))
    assert same(built.M, sp.diag(m * ell**2, m * ell**2 * sp.sin(th) ** 2))
    assert same(built.g, [m * g * ell * sp.sin(th), 0])


def test_rigid_body_2d_rod():
    (th,) = ld.coordinates("theta")
    m, ell, g = ld.parameters("m l g")
    rod = RigidBody2D(m, m * ell**2 / 12, (ell / 2 * sp.sin(th), -ell / 2 * sp.cos(th)), th)
    sys = from_bodies([rod], [th], gravity=(0, -g))
    assert expand_equal(sys.M, [[m * ell**2 / 3]])
    assert expand_equal(sys.g, [m * g * ell / 2 * sp.sin(th)])


def test_rigid_body_3d_rotation_equals_angular_velocity():
    th1, th2 = ld.coordinates("theta1 theta2")
    m, J1, J2, J3 = ld.parameters("m J1 J2 J3")
    c1, s1, c2, s2 = sp.cos(th1), sp.sin(th1), sp.cos(th2), sp.sin(th2)
    Rz = sp.Matrix([[c1, -s1, 0], [s1, c1, 0], [0, 0, 1]])
    Rx = sp.Matrix([[1, 0, 0], [0, c2, -s2], [0, s2, c2]])
    R = Rz * Rx
    I_b = sp.diag(J1, J2, J3)
    com = tuple(R * sp.Matrix([0, 0, 1]))
    by_rotation = mass_matrix([RigidBody3D(m, I_b, com, rotation=R)], [th1, th2])
    w_b = (th2.diff(t), th1.diff(t) * s2, th1.diff(t) * c2)  # body angular velocity
    by_omega = mass_matrix([RigidBody3D(m, I_b, com, angular_velocity=w_b)], [th1, th2])
    assert same(by_rotation, by_omega)
    Jw = angular_velocity_jacobian(R, [th1, th2])
    assert same(Jw, sp.Matrix([[0, 1], [s2, 0], [c2, 0]]))
    Jw_world = angular_velocity_jacobian(R, [th1, th2], frame="world")
    assert same(Jw_world, R * Jw)


def test_generalized_force_is_jt_f(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    Fx, Fy = sp.symbols("F_x F_y")
    Q = generalized_force(p2, (Fx, Fy), [a, b])
    J = sp.Matrix(p2).jacobian([a, b])
    assert expand_equal(Q, J.T * sp.Matrix([Fx, Fy]))
    Qg = generalized_force(p1, (0, -m1 * g), [a, b]) + generalized_force(p2, (0, -m2 * g), [a, b])
    assert expand_equal(Qg, [-(m1 + m2) * g * l1 * sp.sin(a), -m2 * g * l2 * sp.sin(b)])
    assert is_power_consistent(p2, (Fx, Fy), [a, b])
    assert is_power_consistent(p1, (sp.cos(a) * Fx, Fy * b.diff(t)), [a, b])


def test_gravity_forces_equal_minus_potential_gradient(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    sys = from_particles([p1, p2], [m1, m2], [a, b], gravity=[0, -g])
    Qg = generalized_force(p1, (0, -m1 * g), [a, b]) + generalized_force(p2, (0, -m2 * g), [a, b])
    assert same(-sys.g, Qg)


def test_torques():
    q1, q2 = ld.coordinates("q1 q2")
    tau = sp.Symbol("tau")
    assert generalized_torque(q1 + q2, tau, [q1, q2]) == sp.Matrix([tau, tau])
    c, s = sp.cos(q1), sp.sin(q1)
    Rz = sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    assert expand_equal(generalized_torque(Rz, (0, 0, tau), [q1, q2]), [tau, 0])


def test_rayleigh_damping_dissipates(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    c = ld.parameters("c")[0]
    v2 = p2.diff(t)
    R = c * v2.dot(v2) / 2
    Q = rayleigh_forces(R, [a, b])
    # viscous damping at the end point equals the virtual-work force of f = -c v2
    assert same(Q, generalized_force(p2, -c * v2, [a, b]))
    power = sum(Q[i] * x.diff(t) for i, x in enumerate((a, b)))
    assert ld.structure.is_zero(power + 2 * R)
    sys = from_particles([p1, p2], [m1, m2], [a, b], gravity=[0, -g], forces=list(Q))
    assert sys.is_passive()


# ---------------------------------------------------------------- bad inputs
@pytest.mark.parametrize("mass", [0, -1, 0.0, sp.Integer(-2)])
def test_nonpositive_mass_rejected(dp, mass):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    with pytest.raises(ld.LagdynError, match="mass"):
        from_particles([p1, p2], [mass, m2], [a, b], gravity=[0, -g])


def test_every_bad_mass_named(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    neg = sp.Symbol("mneg", negative=True)
    with pytest.raises(ld.LagdynError) as info:
        from_particles([p1, p2], [0, neg], [a, b])
    assert "body 0" in str(info.value) and "body 1" in str(info.value)


def test_zero_length_singular(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    q1 = p1.subs(l1, 0)
    q2 = q1 + sp.Matrix([sp.sin(b), -sp.cos(b)])
    with pytest.raises(ld.SingularMassMatrixError):
        from_particles([q1, q2], [1, 1], [a, b])


def test_other_bad_inputs(dp):
    a, b, m1, m2, l1, l2, g, p1, p2 = dp
    with pytest.raises(ld.ShapeError):
        from_particles([p1, p2], [m1], [a, b])
    with pytest.raises(ld.ShapeError):
        from_particles([p1, p2], [m1, m2], [a, b], gravity=(0, 0, -g))
    with pytest.raises(ld.LagdynError, match="string"):
        from_particles([p1, p2], ["m1", m2], [a, b])
    with pytest.raises(ld.LagdynError, match="rates"):
        jacobian([a.diff(t)], [a, b])
    with pytest.raises(ld.CoordinateError):
        jacobian([a], [sp.Symbol("a")])
    with pytest.raises(ld.LagdynError, match="inertia"):
        from_bodies([RigidBody2D(1, -1, (sp.sin(a), 0), a)], [a])
    with pytest.raises(ld.LagdynError, match="rotation"):
        from_bodies([RigidBody3D(1, sp.eye(3), (a, 0, 0), rotation=2 * sp.eye(3))], [a])
    with pytest.raises(ld.LagdynError, match="exactly one"):
        from_bodies([RigidBody3D(1, sp.eye(3), (a, 0, 0))], [a])
    with pytest.raises(ld.LagdynError, match="symmetric"):
        from_bodies(
            [
                RigidBody3D(
                    1,
                    sp.Matrix([[1, 1, 0], [0, 1, 0], [0, 0, 1]]),
                    (a, 0, 0),
                    angular_velocity=(0, 0, a.diff(t)),
                )
            ],
            [a],
        )
    with pytest.raises(ld.LagdynError, match="linear"):
        from_bodies(
            [RigidBody3D(1, sp.eye(3), (a, 0, 0), angular_velocity=(0, 0, a.diff(t) ** 2))], [a]
        )
    with pytest.raises(ld.LagdynError, match="not a Particle"):
        from_bodies([object()], [a])
