"""``ld.from_mechanics``: sympy.physics.mechanics models read as lagdyn systems (issue 24, item 1).

Round trips compare the model's own ``mass_matrix`` and ``forcing`` with lagdyn's M and
−h + Q exactly (the zero-test ladder of ``lagdyn.trig.identities``, no ``simplify``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from sympy.core.function import AppliedUndef
from sympy.physics.mechanics.models import n_link_pendulum_on_cart

import lagdyn as ld
from lagdyn.trig.identities import decide_zero

t = me.dynamicsymbols._t


def zero(exprs, q) -> bool:
    """Every expression proved identically zero (True), never by ``simplify``."""
    return decide_zero([sp.sympify(e) for e in exprs], list(q), simplify=False) is True


def rates(model, system):
    """{u: q̇} for a model whose speeds are the rates in order."""
    return dict(zip(model.u, system.qd, strict=True))


def agrees(mass, forcing, system, sub=None, inputs=None) -> bool:
    """mass = M and forcing = −h + Q once u → q̇ (``sub``) and inputs F(t) → F."""
    sub = sub or {}
    forcing = sp.Matrix(forcing).xreplace(sub).xreplace(inputs or {})
    residuals = [*(sp.Matrix(mass).xreplace(sub) - system.M), *(forcing + system.h - system.forces)]
    return zero(residuals, system.q)


# ---------------------------------------------------------------------- sympy's own models
@pytest.mark.parametrize("n", [2, 3])
def test_n_link_pendulum_on_cart_round_trip(n: int) -> None:
    km = n_link_pendulum_on_cart(n, cart_force=True, joint_torques=True)
    system = ld.from_mechanics(km)
    assert isinstance(system, ld.LagrangianSystem)
    assert system.q == tuple(km.q)
    specified = km.forcing.atoms(AppliedUndef) - set(km.q) - set(km.u)
    inputs = {f: sp.Symbol(f.func.__name__, real=True) for f in specified}
    assert {s.name for s in inputs.values()} == {"F", *(f"T{i}" for i in range(1, n + 1))}
    assert agrees(km.mass_matrix, km.forcing, system, rates(km, system), inputs)
    # gravity, a constant force at each mass, became the potential; the inputs stayed forces
    g = sp.Symbol("g")
    assert system.U.has(g) and not any(f.has(g) for f in system.forces)
    assert set(system.parameters) >= set(inputs.values())


@pytest.fixture(scope="module")
def double_pendulum():
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    ceiling = me.RigidBody("C")
    upper = me.RigidBody("U", mass=m1)
    lower = me.Particle("P2", mass=m2)
    lower.frame = me.ReferenceFrame("L")
    system = me.System.from_newtonian(ceiling)
    system.add_joints(
        me.PinJoint("J1", ceiling, upper, child_point=l1 * upper.y),
        me.PinJoint("J2", upper, lower, child_point=l2 * lower.frame.y),
    )
    system.apply_uniform_gravity(-g * ceiling.y)
    return system


def test_double_pendulum_with_joints_round_trip(double_pendulum) -> None:
    unformed = ld.from_mechanics(double_pendulum)  # a System is read, not formed
    double_pendulum.form_eoms()
    system = ld.from_mechanics(double_pendulum)
    assert system.q == unformed.q == tuple(double_pendulum.q)
    assert zero([*(system.M - unformed.M), *(system.g - unformed.g)], system.q)
    assert agrees(
        double_pendulum.mass_matrix, double_pendulum.forcing, system, rates(double_pendulum, system)
    )
    # the rigid upper link keeps its inertia symbols; gravity is a potential
    assert {"U_ixx", "m1", "m2", "l1", "l2", "g"} <= {s.name for s in system.parameters}
    assert system.forces.is_zero_matrix
    assert system.is_skew_symmetric() is True
    # the same model through its KanesMethod
    kane = ld.from_mechanics(double_pendulum.eom_method)
    assert zero([*(kane.M - system.M), *(kane.h - system.h)], system.q)


def test_spherical_joint_rigid_body_round_trip() -> None:
    m, l, g, ix, iy, iz = sp.symbols("m l g I_x I_y I_z", positive=True)
    ground = me.RigidBody("G")
    body = me.RigidBody("B", mass=m)
    body.inertia = (me.inertia(body.frame, ix, iy, iz), body.masscenter)
    model = me.System.from_newtonian(ground)
    model.add_joints(me.SphericalJoint("S", ground, body, child_point=l * body.frame.z))
    model.apply_uniform_gravity(-g * ground.z)
    system = ld.from_mechanics(model)
    model.form_eoms()
    assert agrees(model.mass_matrix, model.forcing, system, rates(model, system))
    assert system.forces.is_zero_matrix and system.U.has(g)


def damped_cart_pendulum() -> me.LagrangesMethod:
    """A cart on a spring with a pendulum, damped, pushed by F(t) (a LagrangesMethod)."""
    x, th = me.dynamicsymbols("x theta")
    m, mb, l, g, k, c = sp.symbols("m M l g k c", positive=True)
    F = me.dynamicsymbols("F")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    cart = O.locatenew("cart", x * N.x)
    cart.set_vel(N, x.diff(t) * N.x)
    A = N.orientnew("A", "Axis", (th, N.z))
    bob_at = cart.locatenew("bob", -l * A.y)
    bob_at.v2pt_theory(cart, N, A)
    block, bob = me.Particle("block", cart, mb), me.Particle("bob", bob_at, m)
    block.potential_energy = k * x**2 / 2
    bob.potential_energy = -m * g * l * sp.cos(th)
    loads = [(cart, (F - c * x.diff(t)) * N.x), (A, -c * th.diff(t) * N.z)]
    return me.LagrangesMethod(me.Lagrangian(N, block, bob), [x, th], forcelist=loads, frame=N)


def test_lagranges_method_with_nonconservative_forces() -> None:
    lm = damped_cart_pendulum()
    F = me.dynamicsymbols("F")
    c = sp.Symbol("c", positive=True)
    system = ld.from_mechanics(lm)  # nothing formed yet
    lm.form_lagranges_equations()
    Fs = sp.Symbol("F", real=True)
    assert agrees(lm.mass_matrix, lm.forcing, system, inputs={F: Fs})
    xd, thd = system.qd
    assert list(system.forces) == [Fs - c * xd, -c * thd]


def test_joints_method_round_trip_and_its_kanes_potential_energy_warning() -> None:
    from sympy.utilities.exceptions import ignore_warnings

    q, u = me.dynamicsymbols("q u")
    m, k, c = sp.symbols("m k c", positive=True)
    with ignore_warnings(DeprecationWarning):
        wall, part = me.Body("W"), me.Body("P", mass=m)
    part.potential_energy = k * q**2 / 2
    joint = me.PrismaticJoint("J", wall, part, coordinates=q, speeds=u)
    wall.apply_force(c * u * wall.x, reaction_body=part)
    with ignore_warnings(DeprecationWarning):
        jm = me.JointsMethod(wall, joint)
    unformed = ld.from_mechanics(jm)  # the potential energy counts, as in a Lagrangian
    assert unformed.U == k * q**2 / 2 and list(unformed.forces) == [-c * q.diff(t)]
    jm.form_eoms()  # KanesMethod, which ignores potential_energy
    with pytest.warns(ld.LagdynWarning, match="potential_energy of P is ignored"):
        system = ld.from_mechanics(jm)
    assert system.U == 0
    assert agrees(jm.mass_matrix, jm.forcing, system, rates(jm, system))


# ---------------------------------------------------------------------- holonomic constraints
@pytest.fixture(scope="module")
def four_bar():
    q1, q2, q3, u1, u2, u3 = me.dynamicsymbols("q1:4 u1:4")
    l1, l2, l3, l4, rho, g, T = sp.symbols("l1:5 rho g T", positive=True)
    N = me.ReferenceFrame("N")
    links = [me.RigidBody("Link1", frame=N, mass=rho * l1)]
    links += [me.RigidBody(f"Link{i}", mass=rho * l) for i, l in ((2, l2), (3, l3), (4, l4))]
    for link, l in zip(links, (l1, l2, l3, l4), strict=True):
        link.inertia = (me.inertia(link.frame, 0, 0, rho * l**3 / 12), link.masscenter)
    link1, link2, link3, link4 = links
    system = me.System.from_newtonian(link1)
    system.add_joints(
        me.PinJoint("J1", link1, link2, coordinates=q1, speeds=u1, joint_axis=link1.z,
                    parent_point=l1 / 2 * link1.x, child_point=-l2 / 2 * link2.x),
        me.PinJoint("J2", link2, link3, coordinates=q2, speeds=u2, joint_axis=link2.z,
                    parent_point=l2 / 2 * link2.x, child_point=-l3 / 2 * link3.x),
        me.PinJoint("J3", link3, link4, coordinates=q3, speeds=u3, joint_axis=link3.z,
                    parent_point=l3 / 2 * link3.x, child_point=-l4 / 2 * link4.x),
    )  # fmt: skip
    loop = link4.masscenter.pos_from(link1.masscenter) + l1 / 2 * link1.x + l4 / 2 * link4.x
    system.add_holonomic_constraints(-loop.dot(link1.y), -loop.dot(link1.x))
    system.q_ind, system.u_ind = [q1], [u1]
    system.q_dep, system.u_dep = [q2, q3], [u2, u3]
    system.apply_uniform_gravity(-g * N.y)
    system.add_actuators(me.TorqueActuator(T, N.z, link2, link1))
    read = ld.from_mechanics(system)
    system.validate_system()
    system.form_eoms()
    return system, read


def test_lagranges_method_holonomic_constraint_is_a_constrained_system() -> None:
    x, y = me.dynamicsymbols("x y")
    m, l, g = sp.symbols("m l g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, x.diff(t) * N.x + y.diff(t) * N.y)
    bob = me.Particle("bob", P, m)
    bob.potential_energy = m * g * y
    lm = me.LagrangesMethod(me.Lagrangian(N, bob), [x, y], hol_coneqs=[x**2 + y**2 - l**2])
    cs = ld.from_mechanics(lm)
    assert isinstance(cs, ld.ConstrainedSystem)
    assert list(cs.constraints) == [x**2 + y**2 - l**2]
    assert cs.system.M == sp.diag(m, m) and list(cs.system.g) == [0, g * m]
    lm.form_lagranges_equations()  # [M | −J_cᵀ] with its multipliers, as lagdyn's KKT rows
    assert lm.mass_matrix == sp.Matrix.hstack(cs.system.M, -cs.J.T)


def test_four_bar_loop_constraint_round_trip(four_bar) -> None:
    model, cs = four_bar
    assert isinstance(cs, ld.ConstrainedSystem)
    system = cs.system
    assert system.q == tuple(model.q) and (cs.n, cs.m, cs.dof) == (3, 2, 1)
    assert list(cs.constraints) == list(model.holonomic_constraints)
    sub = rates(model, system)
    km = model.eom_method
    # KanesMethod's rows: [I, Arsᵀ](M q̈ − F) = 0 on the independent speed, then J q̈ = −J̇ q̇
    W = sp.Matrix([[1, *km._Ars.T]]).xreplace(sub)
    mass, forcing = model.mass_matrix.xreplace(sub), model.forcing.xreplace(sub)
    projected = [
        *(mass[0, :] - W * system.M),
        *(forcing[0, :] - W * (system.forces - system.h)),
    ]
    numerators = [sp.fraction(sp.together(e))[0] for e in projected]
    assert zero(numerators, system.q)
    assert zero([*(mass[1:, :] - cs.J), *(forcing[1:, :] + cs.Jdot_qd)], system.q)
    # the torque actuator is a generalized force, gravity a potential
    T, g = sp.symbols("T g", positive=True)
    assert list(system.forces) == [T, 0, 0] and system.U.has(g)


def test_four_bar_kanes_method_velocity_constraints_are_derivatives(four_bar) -> None:
    model, cs = four_bar
    kane = ld.from_mechanics(model.eom_method)  # velocity constraints checked, then dropped
    assert isinstance(kane, ld.ConstrainedSystem)
    assert list(kane.constraints) == list(cs.constraints)
    assert kane.system.forces == cs.system.forces
    assert zero([*(kane.system.M - cs.system.M), kane.system.U - cs.system.U], cs.system.q)


# ---------------------------------------------------------------------- nonholonomic
def rolling_disc_in_rates() -> tuple[me.KanesMethod, tuple, tuple]:
    """The rolling disc in Kane's method with speeds that are rates: u1..u3 = ψ̇, θ̇, φ̇
    independent, u4, u5 = ẋ, ẏ dependent through the no-slip constraints."""
    x, y, psi, theta, phi = q = me.dynamicsymbols("x y psi theta phi")
    u = me.dynamicsymbols("u1:6")
    m, r, g = sp.symbols("m r g", positive=True)
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [psi, N.z])
    B = A.orientnew("B", "Axis", [theta, A.x])
    D = B.orientnew("D", "Axis", [phi, B.y])
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + y * N.y + r * B.z)
    C.set_vel(N, C.pos_from(O).dt(N))
    rates_ = [psi, theta, phi, x, y]
    kd = [c.diff(t) - ui for c, ui in zip(rates_, u, strict=True)]
    inertia = me.inertia(B, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    disc = me.RigidBody("disc", C, D, m, (inertia, C))
    no_slip = [u[3] - r * sp.cos(psi) * u[2], u[4] - r * sp.sin(psi) * u[2]]
    km = me.KanesMethod(
        N, q_ind=list(q), u_ind=u[:3], kd_eqs=kd, u_dependent=u[3:],
        velocity_constraints=no_slip,
    )  # fmt: skip
    km.kanes_equations([disc], [(C, -m * g * N.z)])
    return km, tuple(q), tuple(u)


@pytest.fixture(scope="module")
def disc_in_rates():
    km, q, u = rolling_disc_in_rates()
    return km, q, u, ld.from_mechanics(km)


def test_rolling_disc_with_rate_speeds_is_read_with_its_no_slip_constraints(
    disc_in_rates,
) -> None:
    km, q, u, cs = disc_in_rates
    x, y, psi, theta, phi = q
    assert isinstance(cs, ld.ConstrainedSystem)
    assert (cs.m_holonomic, cs.m_velocity, cs.dof) == (0, 2, 3)
    r = sp.Symbol("r", positive=True)
    assert cs.A == sp.Matrix([[1, 0, 0, 0, -r * sp.cos(psi)], [0, 1, 0, 0, -r * sp.sin(psi)]])
    assert [row["integrable"] for row in cs.integrability_report()] == [False, False]
    # Kane's equations for the independent speeds, the dependent accelerations eliminated
    # with its differentiated velocity constraints, are lagdyn's reduced (Maggi) equations
    MM, F = km.mass_matrix, km.forcing
    Kd = MM[3:, 3:].inv()
    mass = MM[:3, :3] - MM[:3, 3:] * Kd * MM[3:, :3]
    forcing = F[:3, :] - MM[:3, 3:] * Kd * F[3:, :]
    red = cs.reduced(independent=[psi, theta, phi])
    sub = dict(zip(u, [c.diff(t) for c in (psi, theta, phi, x, y)], strict=True))
    residuals = [
        *(mass.xreplace(sub) - red.M_reduced),
        *(forcing.xreplace(sub) - red.forcing([0] * 5)),
    ]
    assert zero(residuals, q)


def test_rolling_disc_linearization_agrees_with_kanes_to_1e_10(disc_in_rates) -> None:
    km, q, u, cs = disc_in_rates
    lean, yaw_rate = 0.3, 2.0  # turning steadily at a lean (upright: tests/zoo/test_rolling.py)
    x, y, psi, theta, phi = q
    m, r, g = sp.symbols("m r g", positive=True)
    # steady turning at a lean: the spin rate from
    # Ω cos θ (I_d Ω sin θ − (I_a + m r²)(ω + Ω sin θ)) = m g r sin θ
    s, c = np.sin(lean), np.cos(lean)
    spin = (0.25 * yaw_rate * s - 9.81 * s / (yaw_rate * c)) / 1.5 - yaw_rate * s
    psi0 = 0.4
    qv = {x: 0.1, y: -0.2, psi: psi0, theta: lean, phi: 0.7}
    uv = dict(zip(u, [yaw_rate, 0.0, spin, np.cos(psi0) * spin, np.sin(psi0) * spin], strict=True))
    udot = dict.fromkeys((ui.diff(t) for ui in u), 0.0)
    udot[u[3].diff(t)] = -np.sin(psi0) * yaw_rate * spin  # the dependent accelerations
    udot[u[4].diff(t)] = np.cos(psi0) * yaw_rate * spin
    pv = {m: 1.0, r: 1.0, g: 9.81}
    A_kane, _, _ = km.linearize(A_and_B=True, op_point=[qv, uv, udot, pv], linear_solver="LU")
    red = cs.reduced(independent=[psi, theta, phi])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ld.LagdynWarning)  # x, y, ψ, φ keep changing
        A, B = red.linearize(
            [qv[c] for c in q], [uv[u[0]], uv[u[1]], uv[u[2]]], params=pv, inputs=[]
        )
    assert B.shape == (8, 0)
    diff = np.array(A, dtype=float) - np.array(A_kane, dtype=float)
    assert np.abs(diff).max() < 1e-10


def test_nonholonomic_constraints_of_a_system_and_of_lagranges_method_are_read() -> None:
    x, y, th = me.dynamicsymbols("x y theta")
    m, inertia = sp.symbols("m I", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, x.diff(t) * N.x + y.diff(t) * N.y)
    body = me.RigidBody("sleigh", P, B, m, (me.inertia(B, 0, 0, inertia), P))
    knife = y.diff(t) * sp.cos(th) - x.diff(t) * sp.sin(th)  # Chaplygin's knife edge
    lm = me.LagrangesMethod(me.Lagrangian(N, body), [x, y, th], nonhol_coneqs=[knife])
    for model in (lm, _system_with(N, O, body, (x, y, th), knife)):
        cs = ld.from_mechanics(model)
        assert isinstance(cs, ld.ConstrainedSystem)
        assert (cs.m_holonomic, cs.m_velocity) == (0, 1)
        assert sp.expand(cs.velocity_constraints[0] - knife) == 0
        assert cs.system.M == sp.diag(m, m, inertia)


def _system_with(N, O, body, q, constraint):
    system = me.System(N, O)
    system.add_coordinates(*q)
    system.add_bodies(body)
    system.add_nonholonomic_constraints(constraint)
    return system


def test_a_velocity_constraint_that_is_not_the_rate_of_the_holonomic_one_is_kept() -> None:
    x, y, ux, uy = me.dynamicsymbols("x y u_x u_y")
    m = sp.symbols("m", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, ux * N.x + uy * N.y)
    km = me.KanesMethod(
        N, q_ind=[x], u_ind=[ux], q_dependent=[y], u_dependent=[uy],
        kd_eqs=[ux - x.diff(t), uy - y.diff(t)], configuration_constraints=[y - x],
        velocity_constraints=[uy - 2 * ux], bodies=[me.Particle("p", P, m)],
    )  # fmt: skip
    # y = x and ẏ = 2ẋ leave no motion on two coordinates: refused, both named
    with pytest.raises(ld.ConstraintError) as info:
        ld.from_mechanics(km)
    assert "-2*Derivative(x(t), t) + Derivative(y(t), t)" in str(info.value)
    assert "more constraints than speeds" in str(info.value)


# ---------------------------------------------------------------------- speeds
def planar_particle(kdes, speeds, velocity):
    """A particle at x N.x + y N.y with the given velocity (in the speeds) under gravity."""
    x, y = me.dynamicsymbols("x y")
    m, g = sp.symbols("m g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, velocity[0] * N.x + velocity[1] * N.y)
    km = me.KanesMethod(N, [x, y], speeds, kd_eqs=kdes)
    km.kanes_equations([me.Particle("p", P, m)], [(P, -m * g * N.y)])
    return km


def test_speeds_that_are_rates_up_to_order_and_sign_are_mapped_back() -> None:
    x, y, u1, u2 = me.dynamicsymbols("x y u1 u2")
    kdes = [u1 + y.diff(t), u2 - x.diff(t)]  # u1 = −ẏ, u2 = ẋ
    km = planar_particle(kdes, [u1, u2], [u2, -u1])
    system = ld.from_mechanics(km)
    assert system.q == (x, y)
    xd, yd = system.qd
    P = sp.Matrix([[0, -1], [1, 0]])  # u = P q̇
    assert zero([*(km.mass_matrix - P * system.M * P.T)], system.q)
    forcing = km.forcing.xreplace({u1: -yd, u2: xd})
    assert zero([*(forcing - P * (system.forces - system.h))], system.q)
    assert system.forces.is_zero_matrix  # gravity is a potential even with these speeds


def test_speeds_combined_with_constant_coefficients_are_mapped_back() -> None:
    x, y, u1, u2 = me.dynamicsymbols("x y u1 u2")
    kdes = [u1 - x.diff(t), u1 + u2 - x.diff(t) - y.diff(t)]  # u2 = ẏ, but not row by row
    system = ld.from_mechanics(planar_particle(kdes, [u1, u2], [u1, u2]))
    m = sp.Symbol("m", positive=True)
    assert system.M == sp.diag(m, m)


def speeds_in_rates(km, system):
    """(u = K q̇ + k as a column, {u: K q̇ + k}): the speed map lagdyn read."""
    sub = ld.mechanics._speed_map(ld.mechanics._read_kanes(km), list(system.q), list(system.qd))
    return sp.Matrix([sub.get(s, s) for s in km.u]), sub


def kane_agrees(km, system) -> bool:
    """Kane's u-space equations M_u u̇ = F_u equal lagdyn's M q̈ = Q − h exactly, with
    u = K q̇ + k: Kᵀ M_u K = M and Kᵀ (F_u − M_u w) = Q − h, w = u̇ − K q̈ = K̇ q̇ + k̇."""
    qd = list(system.qd)
    U, sub = speeds_in_rates(km, system)
    K = U.jacobian(qd)
    w = U.diff(t).xreplace({r.diff(t): 0 for r in qd})
    mass, forcing = km.mass_matrix.xreplace(sub), km.forcing.xreplace(sub)
    residuals = [
        *(K.T * mass * K - system.M),
        *(K.T * (forcing - mass * w) - (system.forces - system.h)),
    ]
    return zero(residuals, system.q)


@pytest.mark.parametrize(
    "kind",
    ["double", "trig", "combined"],
)
def test_invertible_speed_maps_are_mapped_back(kind) -> None:
    x, y, u1, u2 = me.dynamicsymbols("x y u1 u2")
    xd, yd = x.diff(t), y.diff(t)
    kdes, velocity = {
        "double": ([u1 - xd, u2 - 2 * yd], [u1, u2 / 2]),
        "trig": ([u1 - xd, u2 - sp.cos(x) * yd], [u1, u2 / sp.cos(x)]),
        "combined": ([u1 - xd, u1 + u2 - xd - yd], [u1, u2]),
    }[kind]
    km = planar_particle(kdes, [u1, u2], velocity)
    system = ld.from_mechanics(km)
    m = sp.Symbol("m", positive=True)
    assert system.M == sp.diag(m, m) and system.forces.is_zero_matrix  # gravity a potential
    assert kane_agrees(km, system)


@pytest.fixture(scope="module")
def body_rates():
    """A rigid body on a spherical joint in XYZ Euler angles, hanging at q = 0, its speeds the
    body-fixed angular rates u = K(q) q̇ (K singular where cos q2 = 0; lagdyn's system, in q̇,
    is not)."""
    q = me.dynamicsymbols("q1:4")
    u = me.dynamicsymbols("u1:4")
    m, l, g, ix, iy, iz = sp.symbols("m l g I_x I_y I_z", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", q, "XYZ")
    O = me.Point("O")
    O.set_vel(N, 0)
    w_q = B.ang_vel_in(N)
    kd = [me.dot(w_q, axis) - ui for axis, ui in zip(B, u, strict=True)]
    B.set_ang_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
    P = O.locatenew("P", -l * B.z)
    P.v2pt_theory(O, N, B)
    body = me.RigidBody("b", P, B, m, (me.inertia(B, ix, iy, iz), P))
    km = me.KanesMethod(N, q, u, kd_eqs=kd)
    km.kanes_equations([body], [(P, -m * g * N.z)])
    return km, ld.from_mechanics(km)


def test_body_fixed_angular_rates_are_mapped_back(body_rates) -> None:
    km, system = body_rates
    assert system.q == tuple(km.q)
    assert system.forces.is_zero_matrix and system.U.has(sp.Symbol("g", positive=True))
    assert kane_agrees(km, system)
    assert system.is_skew_symmetric() is True


def double_pendulum_absolute_rates():
    """A planar double pendulum in relative angles q1, q2 with speeds u1 = q̇1 and
    u2 = q̇1 + q̇2 (the absolute rate of the lower link)."""
    q1, q2, u1, u2 = me.dynamicsymbols("q1 q2 u1 u2")
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = N.orientnew("B", "Axis", (q1 + q2, N.z))
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(N, u2 * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    P1 = O.locatenew("P1", -l1 * A.y)
    P1.v2pt_theory(O, N, A)
    P2 = P1.locatenew("P2", -l2 * B.y)
    P2.v2pt_theory(P1, N, B)
    kd = [u1 - q1.diff(t), u2 - q1.diff(t) - q2.diff(t)]
    km = me.KanesMethod(N, [q1, q2], [u1, u2], kd_eqs=kd)
    bobs = [me.Particle("a", P1, m1), me.Particle("b", P2, m2)]
    km.kanes_equations(bobs, [(P1, -m1 * g * N.y), (P2, -m2 * g * N.y)])
    return km


@pytest.fixture(scope="module")
def absolute_rates():
    km = double_pendulum_absolute_rates()
    return km, ld.from_mechanics(km)


def test_double_pendulum_with_absolute_rate_speeds_is_mapped_back(absolute_rates) -> None:
    km, system = absolute_rates
    m1, m2, l1, l2 = sp.symbols("m1 m2 l1 l2", positive=True)
    c2 = sp.cos(system.q[1])
    expected = sp.Matrix(
        [
            [m1 * l1**2 + m2 * (l1**2 + l2**2 + 2 * l1 * l2 * c2), m2 * (l2**2 + l1 * l2 * c2)],
            [m2 * (l2**2 + l1 * l2 * c2), m2 * l2**2],
        ]
    )
    assert zero(system.M - expected, system.q)
    assert kane_agrees(km, system)


@pytest.mark.parametrize(
    ("kde", "shown"),
    [
        ("singular", "rank 1 (of 2 speeds)"),
        ("nonlinear", "u2(t) - Derivative(y(t), t)**2 = 0 of the model is not linear"),
    ],
)
def test_a_speed_map_that_is_not_invertible_is_named(kde, shown) -> None:
    x, y, u1, u2 = me.dynamicsymbols("x y u1 u2")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u1 * N.x + u2 * N.y)
    second = {"singular": u2 - 2 * x.diff(t), "nonlinear": u2 - y.diff(t) ** 2}[kde]
    with pytest.raises(ld.LagdynError) as info:
        ld.from_mechanics(
            bodies=[me.Particle("p", P, 1)], frame=N, q=[x, y], speeds=[u1, u2],
            kdes=[u1 - x.diff(t), second],
        )  # fmt: skip
    assert shown in str(info.value)


def test_a_velocity_that_is_not_the_rate_of_its_position_is_refused() -> None:
    # u2 = ẏ + 1 is invertible, but P's velocity (ẋ, ẏ + 1) is not d/dt (x, y)
    x, y, u1, u2 = me.dynamicsymbols("x y u1 u2")
    km = planar_particle([u1 - x.diff(t), u2 - y.diff(t) - 1], [u1, u2], [u1, u2])
    with pytest.raises(ld.LagdynError, match="is not the time derivative of its position from O"):
        ld.from_mechanics(km)


def test_a_rate_claimed_by_two_speeds_is_refused() -> None:
    x, y, u1, u2 = me.dynamicsymbols("x y u1 u2")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u1 * N.x + u2 * N.y)
    kdes = [u1 - x.diff(t), u2 + x.diff(t)]  # KanesMethod cannot even solve these
    with pytest.raises(
        ld.LagdynError, match=r"u2\(t\) \+ Derivative\(x\(t\), t\) = 0\) map the rates .* rank 1"
    ):
        ld.from_mechanics(
            bodies=[me.Particle("p", P, 1)], frame=N, q=[x, y], speeds=[u1, u2], kdes=kdes
        )


# ---------------------------------------------------------------------- the pieces form
def test_bodies_frame_and_loads_match_lagdyns_own_particles() -> None:
    a, b = me.dynamicsymbols("a b")
    m1, m2, l1, l2, g, c = sp.symbols("m1 m2 l1 l2 g c", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    A = N.orientnew("A", "Axis", (a, N.z))
    B = N.orientnew("B", "Axis", (b, N.z))
    P1 = O.locatenew("P1", -l1 * A.y)
    P2 = P1.locatenew("P2", -l2 * B.y)
    P1.v2pt_theory(O, N, A)
    P2.v2pt_theory(P1, N, B)
    bodies = [me.Particle("p1", P1, m1), me.Particle("p2", P2, m2)]
    loads = [(P1, -m1 * g * N.y), (P2, -m2 * g * N.y), (B, -c * b.diff(t) * N.z)]
    system = ld.from_mechanics(bodies=bodies, frame=N, q=[a, b], loads=loads)
    p1 = sp.Matrix([l1 * sp.sin(a), -l1 * sp.cos(a)])
    p2 = p1 + sp.Matrix([l2 * sp.sin(b), -l2 * sp.cos(b)])
    ref = ld.from_particles([p1, p2], [m1, m2], [a, b], gravity=[0, -g])
    assert zero([*(system.M - ref.M), *(system.g - ref.g), system.U - ref.U], system.q)
    assert list(system.forces) == [0, -c * b.diff(t)]
    # potential= adds to the loads' potential; a spring on a
    k = sp.Symbol("k", positive=True)
    sprung = ld.from_mechanics(bodies=bodies, frame=N, q=[a, b], potential=k * a**2 / 2)
    assert sprung.U == k * a**2 / 2 and sprung.forces.is_zero_matrix


def test_a_constant_force_without_a_fixed_origin_stays_a_generalized_force() -> None:
    x, u = me.dynamicsymbols("x u")
    m, g = sp.symbols("m g", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x)  # a velocity, no position
    km = me.KanesMethod(N, [x], [u], kd_eqs=[u - x.diff(t)], bodies=[me.Particle("p", P, m)],
                        forcelist=[(P, g * m * N.x)])  # fmt: skip
    system = ld.from_mechanics(km)
    assert list(system.forces) == [g * m] and system.U == 0
    # an origin= with the position makes it a potential
    O = me.Point("O")
    P.set_pos(O, x * N.x)
    assert ld.from_mechanics(km, origin=O).U == -g * m * x


def test_a_load_on_a_point_that_does_not_move_does_no_work() -> None:
    x = me.dynamicsymbols("x")
    m, f = sp.symbols("m f", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x)
    P.set_vel(N, x.diff(t) * N.x)
    system = ld.from_mechanics(
        bodies=[me.Particle("p", P, m)], frame=N, q=[x], loads=[(O, f * N.y)]
    )
    assert system.forces.is_zero_matrix and system.U == 0


def test_kanes_method_ignores_potential_energy_with_a_warning() -> None:
    x, u = me.dynamicsymbols("x u")
    m, k = sp.symbols("m k", positive=True)
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x)
    p = me.Particle("p", P, m)
    p.potential_energy = k * x**2 / 2
    km = me.KanesMethod(N, [x], [u], kd_eqs=[u - x.diff(t)], bodies=[p])
    with pytest.warns(ld.LagdynWarning, match="potential_energy of p is ignored"):
        system = ld.from_mechanics(km)
    assert system.U == 0
    # read as pieces (sympy's Lagrangian convention) it counts
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pieces = ld.from_mechanics(bodies=[p], frame=N, q=[x], speeds=[u], kdes=[u - x.diff(t)])
    assert pieces.U == k * x**2 / 2


# ---------------------------------------------------------------------- bad input
def test_objects_that_are_not_models_are_refused() -> None:
    with pytest.raises(ld.LagdynError, match="cannot read a str: it reads a KanesMethod"):
        ld.from_mechanics("pendulum")
    with pytest.raises(ld.LagdynError, match="cannot read a LagrangianSystem"):
        ld.from_mechanics(ld.zoo.get("double_pendulum"))
    with pytest.raises(ld.LagdynError, match=r"pass bodies as from_mechanics\(bodies="):
        ld.from_mechanics([me.Particle("p", me.Point("P"), 1)])
    with pytest.raises(ld.LagdynError, match="no model given and bodies, frame, q missing"):
        ld.from_mechanics()
    with pytest.raises(ld.LagdynError, match="origin must be a Point, got ReferenceFrame"):
        ld.from_mechanics(me.System(), origin=me.ReferenceFrame("N"))


def test_a_model_and_pieces_together_are_refused(double_pendulum) -> None:
    with pytest.raises(ld.LagdynError, match="bodies, q given with a model"):
        ld.from_mechanics(double_pendulum, bodies=[], q=[])


def test_empty_and_unfinished_models_are_refused() -> None:
    with pytest.raises(ld.LagdynError, match="System has no bodies"):
        ld.from_mechanics(me.System())
    x, u = me.dynamicsymbols("x u")
    N = me.ReferenceFrame("N")
    km = me.KanesMethod(N, [x], [u], kd_eqs=[u - x.diff(t)])
    with pytest.raises(ld.LagdynError, match=r"no bodies; .*call kanes_equations\(bodies, loads\)"):
        ld.from_mechanics(km)
    with pytest.raises(ld.LagdynError, match="bodies must be RigidBody or Particle"):
        ld.from_mechanics(bodies=[N], frame=N, q=[x])


def test_a_velocity_that_is_not_defined_is_named() -> None:
    x = me.dynamicsymbols("x")
    N = me.ReferenceFrame("N")
    P = me.Point("P")  # no velocity, no position
    with pytest.raises(ld.LagdynError, match="kinetic energy of p in N is not defined"):
        ld.from_mechanics(bodies=[me.Particle("p", P, 1)], frame=N, q=[x])


def test_a_prescribed_motion_is_refused() -> None:
    x, s = me.dynamicsymbols("x s")  # s(t) is not a coordinate
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, (x.diff(t) + s.diff(t)) * N.x)
    with pytest.raises(ld.LagdynError, match=r"velocity of P depends on s\(t\).*prescribed"):
        ld.from_mechanics(bodies=[me.Particle("p", P, 1)], frame=N, q=[x])


def test_negative_masses_and_bad_names_are_refused() -> None:
    x = me.dynamicsymbols("x")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, x.diff(t) * N.x)
    with pytest.raises(ld.LagdynError, match=r"negative mass: p \(mass -2\)"):
        ld.from_mechanics(bodies=[me.Particle("p", P, -2)], frame=N, q=[x])
    with pytest.raises(ld.LagdynError, match=r"'m_\{1\}' is not an identifier.*rename"):
        ld.from_mechanics(bodies=[me.Particle("p", P, sp.Symbol("m_{1}"))], frame=N, q=[x])
    with pytest.raises(ld.LagdynError, match="names starting with _ld are reserved"):
        ld.from_mechanics(bodies=[me.Particle("p", P, sp.Symbol("_ldm"))], frame=N, q=[x])


def test_a_coordinate_that_moves_no_mass_is_named() -> None:
    x, y = me.dynamicsymbols("x y")
    N = me.ReferenceFrame("N")
    P, R = me.Point("P"), me.Point("R")
    P.set_vel(N, x.diff(t) * N.x)
    R.set_vel(N, y.diff(t) * N.y)
    bodies = [me.Particle("p", P, 1), me.Particle("r", R, 0)]  # r has no mass
    with pytest.raises(ld.SingularMassMatrixError, match=r"y\(t\) have no inertia"):
        ld.from_mechanics(bodies=bodies, frame=N, q=[x, y])
    with pytest.raises(ld.LagdynError, match="loads must be a sequence"):
        ld.from_mechanics(bodies=bodies, frame=N, q=[x, y], loads=N.x)
    with pytest.raises(ld.LagdynError, match="potential must be a sympy expression"):
        ld.from_mechanics(bodies=bodies, frame=N, q=[x, y], potential="x**2")


def test_inputs_whose_rates_appear_or_whose_names_clash_are_refused() -> None:
    x = me.dynamicsymbols("x")
    F = me.dynamicsymbols("F")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, x.diff(t) * N.x)
    p = me.Particle("p", P, 1)
    with pytest.raises(ld.LagdynError, match=r"rates Derivative\(F\(t\), t\) of specified inputs"):
        ld.from_mechanics(bodies=[p], frame=N, q=[x], loads=[(P, F.diff(t) * N.x)])
    clash = [(P, (F + sp.Symbol("F")) * N.x)]
    with pytest.raises(ld.LagdynError, match=r"input\(s\) F\(t\) would become parameters"):
        ld.from_mechanics(bodies=[p], frame=N, q=[x], loads=clash)


# ---------------------------------------------------------------------- linearization
def values_for(*exprs) -> dict:
    """Distinct positive values for the parameters of the expressions, by name."""
    names = sorted({s.name for e in exprs for s in sp.sympify(e).free_symbols if s != t})
    return {name: 0.7 + 0.37 * i for i, name in enumerate(names)}


def linearizations_agree(kane, system, q0, K0=None) -> float:
    """max |lagdyn − sympy| of (A, B) at the equilibrium q0, q̇ = 0: ``kane`` is sympy's
    (A, B, r) in its states (q, u) and inputs r; lagdyn's are in (q, q̇) and the torques τ on
    the coordinates, so A_sympy = T A T⁻¹ and B_sympy = T B ∂Q/∂r with T = diag(I, K(q0))."""
    A_k, B_k, r = kane
    byname = values_for(*system.M, *system.forces, system.U)
    params = {p: byname.get(p.name, 0.0) for p in system.parameters}  # inputs r at 0
    A, B = system.linearize(q0, params=params)
    n = len(q0)
    K0 = np.eye(n) if K0 is None else np.array(K0, dtype=float)
    T = np.block([[np.eye(n), np.zeros((n, n))], [np.zeros((n, n)), K0]])
    inputs = [sp.Symbol(f.func.__name__, real=True) for f in r]
    dQ = np.zeros((n, 0))
    if inputs:
        dQ = np.array(sp.Matrix(system.forces).jacobian(inputs).xreplace(params), dtype=float)
    A_ld = T @ np.array(A, dtype=float) @ np.linalg.inv(T)
    B_ld = T @ np.array(B, dtype=float) @ dQ
    A_k, B_k = np.array(A_k, dtype=float), np.array(B_k, dtype=float).reshape(2 * n, len(r))
    return max(np.abs(A_ld - A_k).max(), np.abs(B_ld - B_k).max() if len(r) else 0.0)


def kane_linearize(km, q0, system):
    """``KanesMethod.linearize(A_and_B=True)`` at q = q0, u = 0 with :func:`values_for`."""
    byname = values_for(*system.M, *system.forces, system.U)
    symbols = (km.mass_matrix_full.free_symbols | km.forcing_full.free_symbols) - {t}
    op = [dict(zip(km.q, q0, strict=True)), dict.fromkeys(km.u, 0)]
    op.append({s: byname[s.name] for s in symbols})
    return km.linearize(A_and_B=True, op_point=op, linear_solver="LU")


def test_n_link_pendulum_on_cart_linearization_agrees_with_kanes() -> None:
    km = n_link_pendulum_on_cart(2, cart_force=True, joint_torques=True)
    system = ld.from_mechanics(km)
    q0 = [0.3, 0.0, 0.0]  # the links upright, the cart anywhere
    kane = kane_linearize(km, q0, system)
    assert [f.func.__name__ for f in kane[2]] == ["F", "T1", "T2"]
    assert linearizations_agree(kane, system, q0) < 1e-10


def test_joint_models_linearizations_agree_with_kanes(double_pendulum) -> None:
    double_pendulum.form_eoms()
    system = ld.from_mechanics(double_pendulum)
    for q0 in ([0.0, 0.0], [np.pi, 0.0]):
        kane = kane_linearize(double_pendulum.eom_method, q0, system)
        assert linearizations_agree(kane, system, q0) < 1e-10


def test_lagranges_method_linearization_agrees() -> None:
    lm = damped_cart_pendulum()
    system = ld.from_mechanics(lm)
    lm.form_lagranges_equations()
    byname = values_for(*system.M, *system.forces, system.U)
    symbols = (lm.mass_matrix_full.free_symbols | lm.forcing_full.free_symbols) - {t}
    q0 = [0.0, 0.0]
    op = [dict(zip(lm.q, q0, strict=True)), dict.fromkeys(lm._qdots, 0)]
    op.append({s: byname[s.name] for s in symbols})
    kane = lm.linearize(
        q_ind=list(lm.q), qd_ind=list(lm._qdots), A_and_B=True, op_point=op, linear_solver="LU"
    )
    assert linearizations_agree(kane, system, q0) < 1e-10


@pytest.mark.parametrize(
    "model", [pytest.param("body_rates", marks=pytest.mark.slow), "absolute_rates"]
)
def test_speed_map_models_linearizations_agree_with_kanes(model, request) -> None:
    # the body hangs turned about the vertical by q3 = 0.5: K(q0) is a rotation, not I
    km, system = request.getfixturevalue(model)
    q0 = {"body_rates": [0.0, 0.0, 0.5], "absolute_rates": [0.0, 0.0]}[model]
    U, _ = speeds_in_rates(km, system)
    K0 = U.jacobian(system.qd).xreplace(dict(zip(system.q, q0, strict=True)))
    assert K0 != sp.eye(len(q0))
    kane = kane_linearize(km, q0, system)
    assert linearizations_agree(kane, system, q0, K0) < 1e-10


@pytest.mark.slow  # ~10 s: both linearizations of the loop-closed model
def test_four_bar_linearization_on_the_independent_coordinate_agrees(four_bar) -> None:
    # Kane eliminates the dependent coordinates and speeds: states (q1, u1); lagdyn's numeric
    # linearization eliminates them the same way (states q1, q̇1), at an equilibrium held
    # by the actuator torque T (solved from Kane's forcing on u1: exact round trip above)
    from scipy.optimize import fsolve

    model, cs = four_bar
    q1, q2, q3 = model.q
    vals = {"l1": 4.0, "l2": 2.0, "l3": 3.0, "l4": 3.5, "rho": 1.3, "g": 9.81}
    a, b = sp.symbols("a b")
    loop = [c.xreplace({s: vals[s.name] for s in c.free_symbols if s.name in vals}) for c in
            cs.constraints]  # fmt: skip
    closure = sp.lambdify([(a, b)], [c.xreplace({q1: 1.0, q2: a, q3: b}) for c in loop])
    q0 = [1.0, *fsolve(closure, [-1.0, -1.5], xtol=1e-14)]
    assert np.abs(closure(q0[1:])).max() < 1e-12
    params = {p: vals.get(p.name) for p in cs.system.parameters}
    T = next(p for p in params if p.name == "T")
    at = {**dict(zip(model.q, q0, strict=True))}
    at.update({s: vals[s.name] for s in model.forcing.free_symbols if s.name in vals})
    balance = model.forcing[0].xreplace(dict.fromkeys(model.u, 0)).xreplace(at)
    params[T] = float(sp.solve(balance, T)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ld.LagdynWarning)
        A, _ = cs.linearize(method="numeric", q0=q0, qd0=[0.0], independent=[q1], params=params)
    km = model.eom_method
    symbols = (km.mass_matrix_full.free_symbols | km.forcing_full.free_symbols) - {t}
    byname = {p.name: v for p, v in params.items()}
    op = [dict(zip(km.q, q0, strict=True)), dict.fromkeys(km.u, 0)]
    op += [dict.fromkeys((u.diff(t) for u in km.u), 0), {s: byname[s.name] for s in symbols}]
    A_kane, _, _ = km.linearize(A_and_B=True, op_point=op, linear_solver="LU")
    assert np.abs(np.array(A, dtype=float) - np.array(A_kane, dtype=float)).max() < 1e-10


def test_an_angular_velocity_that_is_not_the_rate_of_the_orientation_is_refused() -> None:
    # the speeds are defined as the components of ω in the inertial axes N but used as
    # body-fixed rates: an invertible map, but ω is not the rate of B's orientation
    q = me.dynamicsymbols("q1:4")
    u = me.dynamicsymbols("u1:4")
    m, l = sp.symbols("m l", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", q, "XYZ")
    O = me.Point("O")
    O.set_vel(N, 0)
    w_q = B.ang_vel_in(N)
    kd = [me.dot(w_q, axis) - ui for axis, ui in zip(N, u, strict=True)]
    B.set_ang_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
    body = me.RigidBody("b", O, B, m, (me.inertia(B, 1, 2, 3), O))
    km = me.KanesMethod(N, q, u, kd_eqs=kd, bodies=[body])
    with pytest.raises(ld.LagdynError, match="angular velocity of B in N .* is not the rate of"):
        ld.from_mechanics(km)


def test_a_wrong_angular_velocity_is_refused_with_rate_speeds_too() -> None:
    # u = q̇ (the identity map), but ω is set to the rates about the body's own axes, which is
    # not the rate of a Body-XYZ orientation: Kane's equations use this ω as given, while a
    # Lagrangian in q built from it would be a different system, so lagdyn must refuse it
    q = me.dynamicsymbols("q1:4")
    u = me.dynamicsymbols("u1:4")
    m = sp.symbols("m", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", q, "XYZ")
    O = me.Point("O")
    O.set_vel(N, 0)
    kd = [qi.diff(me.dynamicsymbols._t) - ui for qi, ui in zip(q, u, strict=True)]
    B.set_ang_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
    body = me.RigidBody("b", O, B, m, (me.inertia(B, 1, 2, 3), O))
    km = me.KanesMethod(N, q, u, kd_eqs=kd, bodies=[body])
    with pytest.raises(ld.LagdynError, match="angular velocity of B in N .* is not the rate of"):
        ld.from_mechanics(km)
    # the same body with the angular velocity of its orientation is read
    B2 = N.orientnew("B2", "Body", q, "XYZ")
    body2 = me.RigidBody("b2", O, B2, m, (me.inertia(B2, 1, 2, 3), O))
    km2 = me.KanesMethod(N, q, u, kd_eqs=kd, bodies=[body2])
    assert ld.from_mechanics(km2).M.shape == (3, 3)
