"""``ld.from_mechanics`` on sympy's own rolling-disc models (issue 24, item 1).

The models are copied from the installed sympy (1.14), each cited where it is built:

* the documentation disc, "A rolling disc" (``doc/src/modules/physics/mechanics/examples/
  rollingdisc_example_kane.rst``, the same code as
  ``sympy/physics/mechanics/tests/test_kane.py::test_rolling_disc``): body rates u1..u3 in
  the lean frame, the contact point's velocity zero, no contact coordinates;
* its variant "with constraint forces" (``rollingdisc_example_kane_constraints.rst``): the
  contact point's velocity set from auxiliary speeds u4..u6 and constraint forces f1..f3;
  and the same speeds as dependent speeds held by velocity constraints;
* the disc of ``sympy/physics/mechanics/tests/test_linearize.py::
  test_linearize_rolling_disc_kane``: six coordinates (q6 dependent through a configuration
  constraint), body rates u1..u3 in the disc frame and the centre's velocity u4..u6 in it,
  three velocity constraints.

lagdyn reads a point of zero velocity from which a body is measured, but whose velocity is
not the rate of the body's position, as a rolling contact: it adds the contact's coordinates
(``C_x``, ``C_y``) with the no-slip conditions as velocity constraints. Each model's
``KanesMethod`` equations (mass matrix and forcing, the dependent accelerations eliminated)
equal lagdyn's reduced (Maggi) equations exactly once the speeds u = Ω q̇ are mapped:
Ωᵀ M_K Ω = M_r and Ωᵀ (F_K − M_K Ω̇ q̇) = F_r, proved by the zero-test ladder (no
``simplify``); the linearizations agree with ``KanesMethod.linearize`` to 1e-10.
"""

from __future__ import annotations

import signal
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import lagdyn as ld
from lagdyn.nonholonomic import linearize_at
from lagdyn.trig.identities import decide_zero

t = me.dynamicsymbols._t


@contextmanager
def deadline(seconds: int, what: str) -> Iterator[None]:
    """Fail (rather than hang) when the block runs longer than ``seconds``."""

    def hung(*_: object) -> None:
        raise AssertionError(f"{what} ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------- sympy's models
def documentation_disc(contact: str = "zero") -> me.KanesMethod:
    """sympy's documentation rolling disc (rollingdisc_example_kane.rst; test_kane.py::
    test_rolling_disc). ``contact``: "zero" (C.set_vel(N, 0), the documentation's),
    "auxiliary" (rollingdisc_example_kane_constraints.rst: u4..u6 auxiliary speeds and
    constraint forces f1..f3 at C), "dependent" (u4..u6 dependent speeds held by the
    velocity constraints C.vel · L = 0), "sliding" (u4, u5 independent speeds of a contact
    that slides freely)."""
    q1, q2, q3, u1, u2, u3 = me.dynamicsymbols("q1 q2 q3 u1 u2 u3")
    u4, u5, u6, f1, f2, f3 = me.dynamicsymbols("u4 u5 u6 f1 f2 f3")
    r, m, g = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = me.Point("C")
    if contact == "zero":
        C.set_vel(N, 0)
    elif contact == "sliding":
        C.set_vel(N, u4 * L.x + u5 * me.cross(Y.z, L.x))
    else:
        C.set_vel(N, u4 * L.x + u5 * me.cross(Y.z, L.x) + u6 * Y.z)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    inertia = me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2)
    kd = [me.dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L]
    loads = [(Dmc, -m * g * Y.z)]
    disc = me.RigidBody("BodyD", Dmc, R, m, (inertia, Dmc))
    q_ind, u_ind = [q1, q2, q3], [u1, u2, u3]
    if contact == "zero":
        km = me.KanesMethod(N, q_ind=q_ind, u_ind=u_ind, kd_eqs=kd)
    elif contact == "auxiliary":
        loads.append((C, f1 * L.x + f2 * me.cross(Y.z, L.x) + f3 * Y.z))
        km = me.KanesMethod(N, q_ind=q_ind, u_ind=u_ind, kd_eqs=kd, u_auxiliary=[u4, u5, u6])
    elif contact == "dependent":
        no_slip = [me.dot(C.vel(N), uv) for uv in L]
        km = me.KanesMethod(
            N, q_ind=q_ind, u_ind=u_ind, kd_eqs=kd, u_dependent=[u4, u5, u6],
            velocity_constraints=no_slip,
        )  # fmt: skip
    else:
        km = me.KanesMethod(N, q_ind=q_ind, u_ind=[*u_ind, u4, u5], kd_eqs=kd)
    km.kanes_equations([disc], loads)
    return km


def linearize_test_disc() -> me.KanesMethod:
    """sympy's test_linearize.py::test_linearize_rolling_disc_kane, as written there."""
    r, m, g = sp.symbols("r m g")
    q1, q2, q3, q4, q5, q6 = me.dynamicsymbols("q1:7")
    qd = [qi.diff(t) for qi in (q1, q2, q3, q4, q5, q6)]
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1:7")
    N = me.ReferenceFrame("N")
    NO = me.Point("NO")
    A = N.orientnew("A", "Axis", [q1, N.z])
    B = A.orientnew("B", "Axis", [q2, A.x])
    C = B.orientnew("C", "Axis", [q3, B.y])
    CO = NO.locatenew("CO", q4 * N.x + q5 * N.y + q6 * N.z)
    w_c_n_qd, w_b_n_qd = C.ang_vel_in(N), B.ang_vel_in(N)
    C.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
    v_co_n_qd = CO.pos_from(NO).dt(N)
    CO.set_vel(N, u4 * C.x + u5 * C.y + u6 * C.z)
    P = CO.locatenew("P", r * B.z)
    P.v2pt_theory(CO, N, C)
    f_c = sp.Matrix([q6 - me.dot(CO.pos_from(P), N.z)])
    f_v = sp.Matrix([me.dot(P.vel(N), uv) for uv in C])
    kindiffs = sp.Matrix(
        [me.dot(w_c_n_qd - C.ang_vel_in(N), uv) for uv in B]
        + [me.dot(v_co_n_qd - CO.vel(N), uv) for uv in N]
    )
    qdots = sp.solve(kindiffs, qd)
    B.set_ang_vel(N, w_b_n_qd.subs(qdots))
    C.set_ang_acc(N, C.ang_vel_in(N).dt(B) + me.cross(B.ang_vel_in(N), C.ang_vel_in(N)))
    inertia = me.inertia(C, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    disc = me.RigidBody("Disc", CO, C, m, (inertia, CO))
    km = me.KanesMethod(
        N, [q1, q2, q3, q4, q5], [u1, u2, u3], kd_eqs=kindiffs, q_dependent=[q6],
        configuration_constraints=f_c, u_dependent=[u4, u5, u6], velocity_constraints=f_v,
    )  # fmt: skip
    km.kanes_equations([disc], [(CO, m * g * A.z)])
    return km


# ---------------------------------------------------------------------- helpers
def independent_speeds(km, cs, red):
    """(U, Ω, w): Kane's independent speeds in lagdyn's independent rates on the admissible
    motion, U = Ω q̇_I, and w = Ω̇ q̇_I (u̇_I = Ω q̈_I + w)."""
    k = red.k
    model = ld.mechanics._read_kanes(km)
    sub = ld.mechanics._speed_map(model, list(km.q), [qi.diff(t) for qi in km.q])
    U = sp.Matrix([sub[u] for u in km.u[:k]]).xreplace(red.rate_map)
    Om = U.jacobian(red.independent)
    qdd = {r.diff(t): 0 for r in cs.system.qd}
    w = U.diff(t).xreplace(qdd).xreplace(red.rate_map)
    return sub, U, Om, w


def kane_reduced(km, k: int):
    """Kane's equations on the k independent speeds, the dependent accelerations eliminated
    with its differentiated velocity constraints (the rows after the first k)."""
    MM, F = km.mass_matrix, km.forcing
    if MM.rows == k:
        return MM, F
    Kd = MM[k:, k:].inv()
    return MM[:k, :k] - MM[:k, k:] * Kd * MM[k:, :k], F[:k, :] - MM[:k, k:] * Kd * F[k:, :]


def reduced_equations_agree(km, cs, independent) -> bool:
    """Ωᵀ M_K Ω = M_r and Ωᵀ (F_K − M_K w) = F_r, proved exactly."""
    red = cs.reduced(independent=independent)
    sub, _, Om, w = independent_speeds(km, cs, red)
    mass, forcing = kane_reduced(km, red.k)
    mass = mass.xreplace(sub).xreplace(red.rate_map)
    forcing = forcing.xreplace(sub).xreplace(red.rate_map)
    residuals = [
        *(Om.T * mass * Om - red.M_reduced),
        *(Om.T * (forcing - mass * w) - red.forcing([0] * cs.n)),
    ]
    return decide_zero(residuals, list(cs.system.q), simplify=False) is True


def lagdyn_A_in_kanes_states(cs, km, q0, qd_ind, ignorable=(), holonomic=0):
    """lagdyn's A (linearize_at, in floats) about the motion (q0, q̇_I), mapped to Kane's
    states (q, u): A_K = T A T⁻¹ with T = ∂(q, u)/∂(q, q̇_I) — exact at a steady motion
    where U = Ω(q) q̇_I has ∂Ω/∂q · q̇ = 0 and q̈_I = 0 (the discs below: Ω depends on the
    lean alone, which is constant)."""
    q = list(cs.system.q)
    independent = q[: len(qd_ind)]
    red = cs.reduced(independent=independent)
    _, U, Om, _ = independent_speeds(km, cs, red)
    values = {"m": 1.0, "r": 1.0, "g": 1.0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ld.LagdynWarning)  # the angles keep changing
        A, _ = linearize_at(
            cs, q0, qd_ind, independent=independent, ignorable=list(ignorable), inputs=[],
            params=values,
        )  # fmt: skip
    states = [c for c in q if c not in ignorable][: len(q) - len(ignorable) - holonomic]
    at = {**dict(zip(q, q0, strict=True)), **dict(zip(red.independent, qd_ind, strict=True))}
    k, s = len(qd_ind), len(states)
    T = np.block(
        [
            [np.eye(s), np.zeros((s, k))],
            [np.array(U.jacobian(states).xreplace(at), dtype=float),
             np.array(Om.xreplace(at), dtype=float)],
        ]
    )  # fmt: skip
    return T @ np.array(A, dtype=float) @ np.linalg.inv(T)


# ---------------------------------------------------------------------- the documentation disc
@pytest.fixture(scope="module")
def doc_disc():
    km = documentation_disc("zero")
    start = time.perf_counter()
    cs = ld.from_mechanics(km)
    return km, cs, time.perf_counter() - start


def test_documentation_disc_gets_its_contact_coordinates_and_no_slip_constraints(
    doc_disc,
) -> None:
    km, cs, seconds = doc_disc
    assert seconds < 10.0
    q1, q2, q3 = km.q
    assert isinstance(cs, ld.ConstrainedSystem)
    assert [str(c) for c in cs.system.q] == ["q1(t)", "q2(t)", "q3(t)", "C_x(t)", "C_y(t)"]
    assert (cs.m_holonomic, cs.m_velocity, cs.dof) == (0, 2, 3)
    r = sp.Symbol("r")
    # the contact's location moves with the no-slip velocity r q̇3 along the heading
    assert cs.A == sp.Matrix([[0, 0, -r * sp.cos(q1), 1, 0], [0, 0, -r * sp.sin(q1), 0, 1]])
    assert [row["integrable"] for row in cs.integrability_report()] == [False, False]
    # gravity, a constant force at the centre measured from the contact, is a potential
    m, g = sp.symbols("m g")
    assert cs.system.U == g * m * r * sp.cos(q2) and cs.system.forces.is_zero_matrix


@pytest.mark.parametrize("contact", ["zero", "auxiliary", "dependent"])
def test_documentation_discs_reduced_equations_are_kanes_exactly(contact, doc_disc) -> None:
    if contact == "zero":
        km, cs, _ = doc_disc
    else:
        km = documentation_disc(contact)
        cs = ld.from_mechanics(km)
    assert [str(c) for c in cs.system.q][3:] == ["C_x(t)", "C_y(t)"]
    assert reduced_equations_agree(km, cs, list(km.q)[:3])


def documentation_disc_A(km, q0, u0):
    """``KanesMethod.linearize`` of the documentation disc at m = r = g = 1, steady (u̇ = 0)."""
    op = [dict(zip(km.q, q0, strict=True)), dict(zip(km.u, u0, strict=True))]
    op += [{u.diff(t): 0 for u in km.u}, {sp.Symbol(n): 1 for n in "mrg"}]
    A, _, _ = km.linearize(A_and_B=True, op_point=op, linear_solver="LU")
    return np.array(A, dtype=float)


def test_documentation_disc_linearization_agrees_with_kanes(doc_disc) -> None:
    km, cs, _ = doc_disc
    # upright rolling at the critical speed 1/√3 (sympy's test: every eigenvalue zero),
    # and a steady turn at a lean: θ = 0.3, ψ̇ = 1.2, the spin from the reduced forcing
    # g sin θ + 5/4 r sin θ cos θ ψ̇² + 3/2 r cos θ ψ̇ φ̇ = 0 (m = r = g = 1)
    lean, yaw = 0.3, 1.2
    spin = -(np.sin(lean) + 1.25 * np.sin(lean) * np.cos(lean) * yaw**2) / (
        1.5 * np.cos(lean) * yaw
    )
    for q0, rates in (
        ([0.4, 0.0, 0.7], [0.0, 0.0, 1 / np.sqrt(3)]),
        ([0.4, lean, 0.7], [yaw, 0.0, spin]),
    ):
        psi_d, theta_d, phi_d = rates
        u0 = [theta_d, phi_d + np.sin(q0[1]) * psi_d, np.cos(q0[1]) * psi_d]  # L-frame rates
        A_kane = documentation_disc_A(km, q0, u0)
        A = lagdyn_A_in_kanes_states(cs, km, [*q0, 0.1, -0.2], rates, ignorable=cs.system.q[3:])
        assert np.abs(A - A_kane).max() < 1e-10
    # at the critical speed the upright disc's linearization is nilpotent (sympy's check)
    A0 = lagdyn_A_in_kanes_states(
        cs, km, [0.4, 0.0, 0.7, 0.1, -0.2], [0.0, 0.0, 1 / np.sqrt(3)], ignorable=cs.system.q[3:]
    )
    assert np.abs(np.linalg.matrix_power(A0, 6)).max() < 1e-12
    assert np.abs(np.linalg.matrix_power(A0, 2)).max() > 0.1  # but not trivially zero


def test_a_freely_sliding_contact_is_refused_by_name() -> None:
    # u4, u5 set the contact's velocity with no coordinate and nothing holds them: degrees of
    # freedom without coordinates, which lagdyn (velocities = rates) cannot represent
    with pytest.raises(ld.LagdynError) as info:
        ld.from_mechanics(documentation_disc("sliding"))
    message = str(info.value)
    assert "u4(t), u5(t) of the KanesMethod appear in no kinematic differential" in message
    assert "no velocity constraint holds them" in message
    assert "Give the moving point coordinates" in message


def wheel_points(second: float, name: str = "C"):
    """A wheel of radius r rolling along N.x, its angle q (u = q̇): the centre P measured
    from the contact C (zero velocity) with v2pt_theory, and a particle Q held at 2r above
    C (on a bracket carried by the axle), moving with ``second`` times the centre's velocity."""
    q = me.dynamicsymbols("q")
    r, m = sp.symbols("r m", positive=True)
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q, N.z))
    C = me.Point(name)
    C.set_vel(N, 0)
    P = C.locatenew("P", r * N.y)
    P.v2pt_theory(C, N, A)  # −r q̇ N.x
    Q = C.locatenew("Q", 2 * r * N.y)
    Q.set_vel(N, -second * r * q.diff(t) * N.x)
    wheel = me.RigidBody("wheel", P, A, m, (me.inertia(A, 0, 0, m * r**2 / 2), P))
    return [wheel, me.Particle("Q", Q, m)], N, [q]


def test_a_wheel_rolling_on_a_line_gets_an_integrable_contact_coordinate() -> None:
    # speeds that are the rates (no speed map): the contact is recognised all the same
    bodies, N, q = wheel_points(1.0)
    with pytest.warns(ld.LagdynWarning, match=r"exact differential.*r\*q\(t\) \+ C_x\(t\)"):
        cs = ld.from_mechanics(bodies=bodies, frame=N, q=q)
    (angle,) = q
    assert [str(c) for c in cs.system.q] == ["q(t)", "C_x(t)"]
    r, m = sp.symbols("r m", positive=True)
    assert list(cs.velocity_constraints) == [r * angle.diff(t) + cs.system.qd[1]]
    # ẋ_C = −r q̇ is exact: the no-slip condition of a wheel on a line is holonomic
    assert [row["integrable"] for row in cs.integrability_report()] == [True]
    red = cs.reduced(independent=[angle])
    assert sp.expand(red.M_reduced[0, 0] - 5 * m * r**2 / 2) == 0  # centre, spin, Q


def test_two_points_disagreeing_on_the_contacts_velocity_are_refused() -> None:
    bodies, N, q = wheel_points(-1.0)  # Q moves backwards: C's location cannot move so
    with pytest.raises(ld.LagdynError, match="two different velocities of the location of C"):
        ld.from_mechanics(bodies=bodies, frame=N, q=q)


@pytest.mark.parametrize(
    ("name", "coordinate"), [("contact point", "contact_point_x"), ("1", "contact_1_x")]
)
def test_contact_coordinates_are_named_as_identifiers(name, coordinate) -> None:
    bodies, N, q = wheel_points(1.0, name)
    with pytest.warns(ld.LagdynWarning, match="exact differential"):
        cs = ld.from_mechanics(bodies=bodies, frame=N, q=q)
    assert str(cs.system.q[1]) == f"{coordinate}(t)"


# ---------------------------------------------------------------------- test_linearize's disc
@pytest.fixture(scope="module")
def linearize_disc():
    km = linearize_test_disc()
    with deadline(60, "from_mechanics on sympy's test_linearize rolling disc"):
        start = time.perf_counter()
        cs = ld.from_mechanics(km)
        seconds = time.perf_counter() - start
    return km, cs, seconds


def test_linearize_disc_is_read_in_seconds_with_its_constraints(linearize_disc) -> None:
    km, cs, seconds = linearize_disc
    assert seconds < 10.0  # about 0.5 s; the speed map's rotation block is inverted by Bᵀ
    assert cs.system.q == tuple(km.q)
    assert (cs.m_holonomic, cs.m_velocity, cs.dof) == (1, 2, 3)
    q2, q6 = km.q[1], km.q[5]
    assert list(cs.constraints) == [sp.Symbol("r") * sp.cos(q2) + q6]
    # the centre's velocity, u4..u6 in the disc frame, is read as the rate of its position
    m = sp.Symbol("m")
    assert cs.system.M[3:, 3:] == m * sp.eye(3) and cs.system.M[:3, 3:].is_zero_matrix


def test_linearize_disc_reduced_equations_are_kanes_exactly(linearize_disc) -> None:
    km, cs, _ = linearize_disc
    assert reduced_equations_agree(km, cs, list(km.q)[:3])


def test_linearize_disc_A_is_sympys_upright_solution(linearize_disc) -> None:
    km, cs, _ = linearize_disc
    q1v, q3v, spin = 0.4, 0.7, 0.8  # upright (q2 = 0), not turning, spinning at q̇3 = spin
    q0 = [q1v, 0.0, q3v, 0.1, -0.2, -1.0]  # q6 = −r cos q2
    A = lagdyn_A_in_kanes_states(cs, km, q0, [0.0, 0.0, spin], holonomic=1)
    # sympy's A_sol at upright_nominal (test_linearize.py), states (q1..q5, u1..u3)
    s1, c1 = np.sin(q1v), np.cos(q1v)
    A_sol = np.array(
        [
            [0, 0, 0, 0, 0, 0, 0, 1],
            [0, 0, 0, 0, 0, 1, 0, 0],
            [0, 0, 0, 0, 0, 0, 1, 0],
            [s1 * spin, 0, 0, 0, 0, -s1, -c1, 0],
            [-c1 * spin, 0, 0, 0, 0, c1, -s1, 0],
            [0, 4 / 5, 0, 0, 0, 0, 0, 6 * spin / 5],
            [0, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, -2 * spin, 0, 0],
        ]
    )
    # sympy's own precomputed KanesMethod.linearize result (its test asserts A == A_sol)
    assert np.abs(A - A_sol).max() < 1e-12


def test_linearize_disc_in_a_steady_turn_at_a_lean_agrees_with_kanes(linearize_disc) -> None:
    # sympy's operating point of test_linearize.py (u_op, ud_op as functions of q2, q̇1,
    # q̇3) at a lean of 0.3 turning at q̇1 = 1.2, the spin q̇3 making it steady (u̇1 = 0)
    km, cs, _ = linearize_disc
    u = km.u
    lean, yaw, q1v, q3v = 0.3, 1.2, 0.4, 0.7
    spin = -(4 * np.sin(lean) / 5 + np.sin(2 * lean) * yaw**2 / 2) / (6 * np.cos(lean) * yaw / 5)
    s2, c2, s3, c3 = np.sin(lean), np.cos(lean), np.sin(q3v), np.cos(q3v)
    w = s2 * yaw + spin
    uv = dict(zip(u, [0.0, w, c2 * yaw, -w * c3, 0.0, -w * s3], strict=True))
    udv = {ui.diff(t): 0.0 for ui in u}
    udv[u[3].diff(t)] = s2 * s3 * yaw * spin + s3 * spin**2
    udv[u[5].diff(t)] = -(s2 * c3 * yaw * spin + c3 * spin**2)
    q0 = [q1v, lean, q3v, 0.1, -0.2, -c2]
    op = [dict(zip(km.q, q0, strict=True)), uv, udv, {sp.Symbol(n): 1.0 for n in "mrg"}]
    A_kane, _, _ = km.linearize(A_and_B=True, op_point=op, linear_solver="LU")
    A = lagdyn_A_in_kanes_states(cs, km, q0, [yaw, 0.0, spin], holonomic=1)
    assert np.abs(A - np.array(A_kane, dtype=float)).max() < 1e-10
