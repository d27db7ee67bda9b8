"""ConstrainedSystem, symbolic side: Jacobian, J̇q̇, KKT blocks, validation."""

from __future__ import annotations

import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.constraints import ConstrainedSystem
from lagdyn.errors import ConstraintError, LagdynError


def cartesian_pendulum():
    x, y = ld.coordinates("x y")
    m, l, g = ld.parameters("m l g")
    T = m * (x.diff(ld.t) ** 2 + y.diff(ld.t) ** 2) / 2
    free = ld.LagrangianSystem.from_energies(
        T, m * g * y, [x, y], defaults={m: 1.5, l: 0.8, g: 9.81}
    )
    return ConstrainedSystem(free, [x**2 + y**2 - l**2]), (x, y, m, l, g)


def test_jacobian_and_velocity_product_are_exact():
    cs, (x, y, *_rest) = cartesian_pendulum()
    xd, yd = ld.velocities([x, y])
    assert cs.J == sp.Matrix([[2 * x, 2 * y]])
    assert cs.Jdot_qd == sp.Matrix([2 * xd**2 + 2 * yd**2])
    # J̇ q̇ is the q̈-free part of Φ̈
    phi_dd = sp.diff(cs.constraints[0], ld.t, 2)
    qdd = ld.accelerations([x, y])
    rest = sp.expand(phi_dd - (cs.J * sp.Matrix(qdd))[0])
    assert sp.expand(rest - cs.Jdot_qd[0]) == 0


def test_kkt_blocks_and_baumgarte_rhs():
    cs, (x, y, m, l, g) = cartesian_pendulum()
    K = cs.kkt_matrix
    assert K[:2, :2] == cs.system.M
    assert K[:2, 2:] == -cs.J.T and K[2:, :2] == cs.J and K[2, 2] == 0
    a, b = sp.symbols("alpha beta", positive=True)
    rhs = cs.kkt_rhs([0, 0], baumgarte=(a, b))
    expected = -cs.Jdot_qd[0] - 2 * a * cs.phi_dot[0] - b**2 * cs.constraints[0]
    assert sp.expand(rhs[2] - expected) == 0
    assert rhs[1] == -g * m


def test_equations_and_constraint_forces():
    cs, _ = cartesian_pendulum()
    eq = cs.equations([0, 0])
    assert eq.shape == (3, 1)
    assert cs.constraint_forces == cs.J.T * sp.Matrix(cs.lam)
    assert eq[2] == cs.constraints[0]


def test_redundant_constraints_name_rows():
    q = ld.coordinates("q1 q2 q3")
    sys = ld.LagrangianSystem(sum(v**2 for v in ld.velocities(q)) / 2, q)
    with pytest.raises(ConstraintError, match=r"row\(s\) 1 .*rank-deficient"):
        ConstrainedSystem(sys, [q[0] - q[1], 2 * q[0] - 2 * q[1]])
    cs = ConstrainedSystem(sys, [q[0] - q[1], 2 * q[0] - 2 * q[1]], redundant="lstsq")
    assert cs.dependent_rows() == [1] and cs.dof == 2


def test_too_many_constraints_and_bad_input():
    q = ld.coordinates("q1 q2")
    sys = ld.LagrangianSystem(sum(v**2 for v in ld.velocities(q)) / 2, q)
    with pytest.raises(ConstraintError, match="2 constraints on 2 coordinates"):
        ConstrainedSystem(sys, [q[0], q[1]])
    with pytest.raises(ConstraintError, match="no constraints"):
        ConstrainedSystem(sys, [])
    with pytest.raises(ConstraintError, match="depends on rates"):
        ConstrainedSystem(sys, [q[0].diff(ld.t)])
    with pytest.raises(ConstraintError, match="does not depend on any coordinate"):
        ConstrainedSystem(sys, [sp.Symbol("k")])
    with pytest.raises(LagdynError, match="LagrangianSystem"):
        ConstrainedSystem("system", [q[0]])
    with pytest.raises(LagdynError, match="redundant must be"):
        ConstrainedSystem(sys, [q[0]], redundant="ignore")
