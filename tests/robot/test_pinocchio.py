"""Robot chains against Pinocchio (independent numeric rigid-body library), when installed.

Same URDF on both sides: M (crba, upper triangle mirrored), τ (rnea), q̈ (aba, against
both our ABA and our CRBA + LDLᵀ), g
(computeGeneralizedGravity) and the Coriolis matrix (computeCoriolisMatrix: C q̇, the skew
property of Ṁ − 2C for both, and C itself). The UR5 and Panda come from the optional
example-robot-data package (Panda with its fingers locked); the small tree of
tests/data/rrp_tree.urdf always runs when Pinocchio is there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import lagdyn as ld
from helpers import pin_config, robot_path
from lagdyn import recursive as programs

pin = pytest.importorskip("pinocchio", reason="Pinocchio (pip install pin) is not installed")

TREE = Path(__file__).parents[1] / "data" / "rrp_tree.urdf"
RTOL = 1e-10


def close(a, b, rtol=RTOL, scale=None):
    scale = max(1.0, float(np.max(np.abs(b)))) if scale is None else scale
    np.testing.assert_allclose(a, b, rtol=0, atol=rtol * scale)


def check(model, system, seed, count=3):
    data = model.createData()
    assert model.nv == system.n
    names = [model.names[i] for i in range(1, model.njoints)]
    assert tuple(names) == system.chain.joint_names
    f = {k: system.program(k).lambdify(system.defaults) for k in ("M", "tau", "g", "C")}
    for method in ("aba", "crba"):
        prog = programs.forward_dynamics(system.chain, method=method)
        f[f"qdd_{method}"] = prog.lambdify(system.defaults)
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q, v, a, u = (rng.uniform(-2, 2, system.n) for _ in range(4))
        qp = pin_config(model, q)
        M = pin.crba(model, data, qp)
        M = np.triu(M) + np.triu(M, 1).T
        close(f["M"](q=q), M)
        close(f["tau"](q=q, qd=v, qdd=a), pin.rnea(model, data, qp, v, a))
        qdd = pin.aba(model, data, qp, v, u)
        close(f["qdd_aba"](q=q, qd=v, tau=u), qdd)
        close(f["qdd_crba"](q=q, qd=v, tau=u), qdd)
        close(f["g"](q=q), pin.computeGeneralizedGravity(model, data, qp))
        C = f["C"](q=q, qd=v)
        Cp = pin.computeCoriolisMatrix(model, data, qp, v)
        close(C @ v, Cp @ v)
        Mdot = f["M"](q=q + 1e-30j * v).imag / 1e-30
        # ours is exactly skew up to rounding; Pinocchio's floating-point C reaches ~1e-10
        for CC, tol in ((C, 1e-12), (Cp, 1e-9)):
            N = Mdot - 2 * CC
            close(N + N.T, np.zeros_like(N), rtol=tol, scale=float(np.max(np.abs(N))))
        close(C, Cp)


def test_tree_matches_pinocchio():
    model = pin.buildModelFromUrdf(str(TREE))
    check(model, ld.robot.from_urdf(TREE, parameters="numeric"), seed=1)


def test_ur5_matches_pinocchio():
    path = robot_path("ur_description", "ur5_robot.urdf")
    model = pin.buildModelFromUrdf(str(path))
    check(model, ld.robot.from_urdf(path, parameters="numeric"), seed=2)
    # the zoo's UR5 is the same robot
    zoo = ld.zoo.get("ur5")
    data = model.createData()
    q = np.linspace(-1, 1, 6)
    close(
        zoo.program("g").lambdify(zoo.defaults)(q=q), pin.computeGeneralizedGravity(model, data, q)
    )


def test_panda_matches_pinocchio_with_fingers_locked():
    path = robot_path("panda_description", "panda.urdf")
    full = pin.buildModelFromUrdf(str(path))
    fingers = [full.getJointId(n) for n in ("panda_finger_joint1", "panda_finger_joint2")]
    model = pin.buildReducedModel(full, fingers, pin.neutral(full))
    system = ld.robot.from_urdf(
        path, parameters="numeric", locked=("panda_finger_joint1", "panda_finger_joint2")
    )
    check(model, system, seed=3, count=2)
