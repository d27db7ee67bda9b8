"""Closed loops on robot trees (lagdyn.robot.loops): the five-bar against a hand-derived
model, the projection onto Φ = 0, floating robots through the Euler chart, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.errors import ConstraintError, LagdynError
from lagdyn.kinematics import RigidBody2D, from_bodies
from lagdyn.robot.loops import frame_placement
from lagdyn.zoo.parallel import FIVE_BAR_URDF

TOY = Path(__file__).resolve().parent.parent / "data" / "quadruped_toy.urdf"
D, L1, L2, MP, MD = 0.2, 0.15, 0.2, 0.2, 0.15


@pytest.fixture(scope="module")
def five_bar() -> ld.ConstrainedSystem:
    return ld.zoo.five_bar(vertical=True)


def _hand_five_bar(q: tuple[sp.Expr, ...]) -> tuple[ld.LagrangianSystem, list[sp.Expr]]:
    """The same five-bar written by hand: absolute link angles, rods, loop p_left − p_right."""
    q1, q2, q3, q4 = q
    d, l1, l2 = sp.Rational(1, 5), sp.Rational(3, 20), sp.Rational(1, 5)
    g = sp.Symbol("g")
    a1 = sp.pi / 2 + q1  # left proximal, from the x axis
    a2 = a1 - sp.pi / 6 + q2  # left distal
    a3 = sp.pi / 2 + q3
    a4 = a3 + sp.pi / 6 + q4
    A1, A2 = (-d / 2, 0), (d / 2, 0)
    B1 = (A1[0] + l1 * sp.cos(a1), A1[1] + l1 * sp.sin(a1))
    B2 = (A2[0] + l1 * sp.cos(a3), A2[1] + l1 * sp.sin(a3))
    E1 = (B1[0] + l2 * sp.cos(a2), B1[1] + l2 * sp.sin(a2))
    E2 = (B2[0] + l2 * sp.cos(a4), B2[1] + l2 * sp.sin(a4))

    def rod(m: float, length: sp.Expr, start: tuple[sp.Expr, sp.Expr], angle: sp.Expr) -> Any:
        com = (start[0] + length / 2 * sp.cos(angle), start[1] + length / 2 * sp.sin(angle))
        return RigidBody2D(sp.Float(m), sp.Float(m) * length**2 / 12, com, angle)

    bodies = [rod(MP, l1, A1, a1), rod(MD, l2, B1, a2), rod(MP, l1, A2, a3), rod(MD, l2, B2, a4)]
    free = from_bodies(bodies, list(q), gravity=(0, -g), defaults={g: 9.81})
    return free, [E1[0] - E2[0], E1[1] - E2[1]]


def test_five_bar_loop_equals_the_hand_closed_form(five_bar: ld.ConstrainedSystem) -> None:
    _, loop = _hand_five_bar(five_bar.system.q)
    for got, want in zip(five_bar.constraints, loop):
        assert sp.expand(sp.expand_trig(got - want)) == 0
    hand_J = sp.Matrix(loop).jacobian(five_bar.system.q)
    assert all(sp.expand(sp.expand_trig(e)) == 0 for e in five_bar.J - hand_J)


def test_five_bar_kkt_dynamics_equal_the_hand_model(five_bar: ld.ConstrainedSystem) -> None:
    free, loop = _hand_five_bar(five_bar.system.q)
    hand = ld.ConstrainedSystem(free, loop)
    rng = np.random.default_rng(26)
    q = rng.uniform(-0.4, 0.4, (6, 4))
    qd = rng.normal(size=(6, 4))
    tau = rng.normal(size=(6, 4))
    a1, l1 = five_bar.solve(q, qd, tau)
    a2, l2 = hand.solve(q, qd, tau)
    assert np.allclose(a1, a2, rtol=1e-9, atol=1e-9)
    assert np.allclose(l1, l2, rtol=1e-9, atol=1e-9)


def test_projection_closes_the_loop_from_elsewhere(five_bar: ld.ConstrainedSystem) -> None:
    robot = five_bar.robot
    closed = ld.robot.close_loops(
        robot, [("left_tip", "right_tip", "planar")], q0=[0.3, -0.2, -0.25, 0.4]
    )
    qc = closed.q_closed
    assert qc is not None and closed.residual is not None and closed.residual < 1e-9
    _, loop = _hand_five_bar(robot.q)
    at = dict(zip(robot.q, qc))
    assert max(abs(float(e.subs(at))) for e in loop) < 1e-9
    assert max(abs(x) for x in qc) > 0.05  # it moved off q = 0, which closes too


def test_frame_placement_of_a_fixed_frame(five_bar: ld.ConstrainedSystem) -> None:
    R, p = frame_placement(five_bar.robot, "right_tip")
    at = {q: 0 for q in five_bar.robot.q}
    assert sp.simplify(p.subs(at) - sp.Matrix([0, sp.Rational(3, 20) + sp.sqrt(3) / 10, 0])) == (
        sp.zeros(3, 1)
    )
    assert R.subs(at) == sp.Matrix(
        [
            [-sp.Rational(1, 2), -sp.sqrt(3) / 2, 0],
            [sp.sqrt(3) / 2, -sp.Rational(1, 2), 0],
            [0, 0, 1],
        ]
    )


def test_unknown_frames_are_named() -> None:
    robot = ld.robot.from_urdf(FIVE_BAR_URDF, parameters="numeric", base="fixed")
    with pytest.raises(LagdynError, match=r"frame 'left_tipp' does not exist \(did you mean "):
        ld.robot.close_loops(robot, [("left_tipp", "right_tip", "planar")])
    with pytest.raises(LagdynError, match="frame 'nowhere' does not exist.*frame 'noplace'"):
        ld.robot.close_loops(robot, [("nowhere", "noplace")])
    with pytest.raises(LagdynError, match="parent frame 'nope' does not exist"):
        ld.robot.close_loops(robot, [("a", "right_tip")], frames={"a": ("nope", (0, 0, 0))})


@pytest.mark.parametrize(
    ("loops", "match"),
    [
        ([], "non-empty sequence"),
        ("left_tip", "non-empty sequence"),
        ([("left_tip",)], r"loops\[0\] must be"),
        ([("left_tip", "right_tip", "hinge")], "kind must be one of"),
        ([("left_tip", "left_tip")], "closed on itself"),
        ([("left_tip", 3)], "must be strings"),
    ],
)
def test_malformed_loops(loops: Any, match: str) -> None:
    robot = ld.robot.from_urdf(FIVE_BAR_URDF, parameters="numeric", base="fixed")
    with pytest.raises(LagdynError, match=match):
        ld.robot.close_loops(robot, loops)


def test_a_loop_that_cannot_close_is_named_with_its_residual() -> None:
    robot = ld.robot.from_urdf(FIVE_BAR_URDF, parameters="numeric", base="fixed")
    far = {"far": ("left_tip", (1, 0, 0))}  # 1 m beyond the left tip: out of reach
    with pytest.raises(
        LagdynError,
        match=r"loop 0 \('far', 'right_tip', 'planar'\) cannot close: "
        r"the smallest residual found is x [0-9.e-]+, y",
    ):
        ld.robot.close_loops(robot, [("far", "right_tip", "planar")], frames=far)
    lifted = {"up": ("right_tip", (0, 0, 0.1))}  # a z gap no planar motion removes
    with pytest.raises(LagdynError, match="its z row is the constant -1/10 whatever q is"):
        ld.robot.close_loops(robot, [("left_tip", "up", "point")], frames=lifted)


def test_redundant_loop_rows_are_reported() -> None:
    robot = ld.robot.from_urdf(FIVE_BAR_URDF, parameters="numeric", base="fixed")
    with pytest.raises(ConstraintError, match=r"loop 0 z .* identically zero .* 'planar'"):
        ld.robot.close_loops(robot, [("left_tip", "right_tip", "point")])
    dropped = ld.robot.close_loops(robot, [("left_tip", "right_tip", "point")], redundant="lstsq")
    assert dropped.row_names == ("loop 0 x", "loop 0 y") and dropped.dof == 2
    # the same joint closed twice: rows of J_c that depend on the others
    twice = [("left_tip", "right_tip", "planar"), ("left_distal_tip", "right_tip", "planar")]
    frames = {"left_distal_tip": ("left_distal", (0.2, 0, 0))}
    with pytest.raises(ConstraintError, match=r"redundant loop rows: loop 1 x .*loop 1 y"):
        ld.robot.close_loops(robot, twice, frames=frames)


def test_floating_robot_loops_through_the_euler_chart() -> None:
    robot = ld.robot.from_urdf(TOY, base="floating", parameters="numeric")
    # the front-left foot welded to the world: base pose and leg can always reach it
    welded = ld.robot.close_loops(robot, [("FL_FOOT", "world", "weld")])
    assert (welded.n, welded.m, welded.dof) == (14, 6, 8)
    assert welded.residual is not None and welded.residual < 1e-9
    assert welded.row_names[3:] == ("loop 0 rx", "loop 0 ry", "loop 0 rz")
    qc = welded.q_closed
    assert qc is not None
    R, p = frame_placement(welded.robot, "FL_FOOT")
    at = dict(zip(welded.robot.q, qc))
    assert np.allclose(np.array(R.subs(at), dtype=float), np.eye(3), atol=1e-8)
    assert np.allclose(np.array(p.subs(at), dtype=float).ravel(), 0, atol=1e-8)
    # the two front feet are 0.2 m apart across planar legs: they cannot meet
    with pytest.raises(LagdynError, match=r"loop 0 \('FL_FOOT', 'FR_FOOT', 'point'\) cannot close"):
        ld.robot.close_loops(robot, [("FL_FOOT", "FR_FOOT", "point")])


def test_close_loops_refuses_what_is_not_a_robot() -> None:
    with pytest.raises(LagdynError, match="needs a RobotSystem or a FloatingRobot"):
        ld.robot.close_loops("five_bar", [("a", "b")])
    with pytest.raises(LagdynError, match="without a chain"):
        ld.robot.close_loops(ld.zoo.double_pendulum(), [("a", "b")])


def test_five_bar_forward_dynamics_against_sympy_kanes_method(
    five_bar: ld.ConstrainedSystem,
) -> None:
    """Kane's method with dependent coordinates and speeds (sympy.physics.mechanics), the
    motors' and elbows' torques applied as torques between the bodies: its accelerations on
    the loop manifold equal the KKT solution of the URDF tree closed by close_loops."""
    me = pytest.importorskip("sympy.physics.mechanics")
    q, u = me.dynamicsymbols("k1:5"), me.dynamicsymbols("ku1:5")
    T = sp.symbols("T1:5")
    t = me.dynamicsymbols._t
    d, l1, l2 = sp.Rational(1, 5), sp.Rational(3, 20), sp.Rational(1, 5)
    mp, md, g = sp.Rational(1, 5), sp.Rational(3, 20), sp.Rational(981, 100)
    N, O = me.ReferenceFrame("N"), me.Point("O")
    O.set_vel(N, 0)
    a1 = sp.pi / 2 + q[0]
    a3 = sp.pi / 2 + q[2]
    angles = (a1, a1 - sp.pi / 6 + q[1], a3, a3 + sp.pi / 6 + q[3])
    F = [N.orientnew(f"F{i}", "Axis", [a, N.z]) for i, a in enumerate(angles)]
    A1, A2 = O.locatenew("A1", -d / 2 * N.x), O.locatenew("A2", d / 2 * N.x)
    B1, B2 = A1.locatenew("B1", l1 * F[0].x), A2.locatenew("B2", l1 * F[2].x)
    E1, E2 = B1.locatenew("E1", l2 * F[1].x), B2.locatenew("E2", l2 * F[3].x)
    bodies, loads = [], []
    for i, (start, L, m) in enumerate([(A1, l1, mp), (B1, l2, md), (A2, l1, mp), (B2, l2, md)]):
        G = start.locatenew(f"G{i}", L / 2 * F[i].x)
        G.set_vel(N, G.pos_from(O).dt(N))
        inertia = me.inertia(F[i], 0, m * L**2 / 12, m * L**2 / 12)
        bodies.append(me.RigidBody(f"b{i}", G, F[i], m, (inertia, G)))
        loads.append((G, -m * g * N.y))
    loads += [
        (F[0], (T[0] - T[1]) * N.z),
        (F[1], T[1] * N.z),
        (F[2], (T[2] - T[3]) * N.z),
        (F[3], T[3] * N.z),
    ]
    loop = (E1.pos_from(O) - E2.pos_from(O)).to_matrix(N)[:2, :]
    rates = {qi.diff(t): ui for qi, ui in zip(q, u)}
    kane = me.KanesMethod(
        N,
        q_ind=[q[0], q[2]],
        u_ind=[u[0], u[2]],
        q_dependent=[q[1], q[3]],
        u_dependent=[u[1], u[3]],
        configuration_constraints=list(loop),
        velocity_constraints=list(loop.diff(t).subs(rates)),
        kd_eqs=[qi.diff(t) - ui for qi, ui in zip(q, u)],
    )
    kane.kanes_equations(bodies, loads)
    full = sp.lambdify([q, u, T], [kane.mass_matrix_full, kane.forcing_full], modules="numpy")
    closed = ld.robot.close_loops(five_bar.robot, five_bar.loops, q0=[0.3, -0.2, -0.25, 0.4])
    qc = np.array(closed.q_closed)
    J = np.array(sp.lambdify([five_bar.system.q], five_bar.J)(qc), dtype=float)
    rng = np.random.default_rng(5)
    for _ in range(3):
        qd = np.linalg.svd(J)[2][2:].T @ rng.normal(size=2)  # on the velocity manifold
        tau = rng.normal(size=4)
        M, f = full(qc, qd, tau)
        udot = np.linalg.solve(np.array(M, dtype=float), np.array(f, dtype=float).ravel())[4:]
        qdd, _ = five_bar.solve(qc, qd, tau)
        assert np.allclose(qdd, udot[[0, 2, 1, 3]], rtol=1e-9, atol=1e-9)  # u_ind, u_dep
