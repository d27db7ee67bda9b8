"""Constrained simulation shares the integrator stack."""

from __future__ import annotations

import numpy as np
import pytest

import lagdyn as ld


def test_constrained_simulation_uses_the_shared_integrators():
    dp = ld.zoo.double_pendulum()
    num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
    t = np.linspace(0, 0.5, 51)
    a = num.simulate([0.3, 0.3, 0.0, 0.0], t, method="midpoint")
    b = num.simulate([0.3, 0.3, 0.0, 0.0], t, method="rk4", substeps=2)
    np.testing.assert_allclose(a.q, b.q, atol=1e-4)
    with pytest.raises(ld.LagdynError, match="unknown method"):
        num.simulate([0.3, 0.3, 0.0, 0.0], t, method="euler")
