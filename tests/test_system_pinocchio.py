"""Cross-check against Pinocchio (an independent, numeric rigid-body library), when installed.

The n-link pendulum in joint angles is built in Pinocchio from revolute z joints and unit
point masses (gravity along −y, angle 0 hanging down) and compared with lagdyn's symbolic
derivation: mass matrix (CRBA), inverse dynamics (RNEA) and forward dynamics (ABA).
"""

from __future__ import annotations

import numpy as np
import pytest

import lagdyn as ld

pin = pytest.importorskip("pinocchio")


def chain(n: int, g: float = 9.81):
    model = pin.Model()
    model.gravity.linear = np.array([0.0, -g, 0.0])
    parent, placement = 0, pin.SE3.Identity()
    for i in range(n):
        jid = model.addJoint(parent, pin.JointModelRZ(), placement, f"joint{i + 1}")
        model.appendBodyToJoint(
            jid, pin.Inertia(1.0, np.array([0.0, -1.0, 0.0]), np.zeros((3, 3))), pin.SE3.Identity()
        )
        parent, placement = jid, pin.SE3(np.eye(3), np.array([0.0, -1.0, 0.0]))
    return model, model.createData()


@pytest.mark.parametrize("n", [2, 3, 5])
def test_n_link_pendulum_matches_pinocchio(n):
    sys = ld.zoo.n_link_pendulum(n, coordinates="relative")
    num = sys.lambdify(sys.defaults)
    model, data = chain(n)
    rng = np.random.default_rng(n)
    for _ in range(20):
        q, v, a, tau = (rng.uniform(-2, 2, n) for _ in range(4))
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T  # crba fills the upper triangle
        np.testing.assert_allclose(num.M(q), M, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(
            num.inverse_dynamics(q, v, a), pin.rnea(model, data, q, v, a), rtol=1e-11, atol=1e-11
        )
        np.testing.assert_allclose(
            num.forward_dynamics(q, v, tau), pin.aba(model, data, q, v, tau), rtol=1e-10, atol=1e-10
        )
