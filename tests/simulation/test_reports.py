"""Simulation reports: the passivity balance with generalized forces."""

from __future__ import annotations

import numpy as np

import lagdyn as ld


def test_passivity_residual_includes_generalized_forces():
    (x,) = ld.coordinates("x")
    m, k, c = ld.parameters("m k c")
    osc = ld.LagrangianSystem(
        m * x.diff(ld.t) ** 2 / 2 - k * x**2 / 2, [x], forces=[-c * x.diff(ld.t)]
    )
    res = ld.simulate(osc, [1.0, 0.0], np.linspace(0, 10, 1001), params={m: 1, k: 4, c: 0.5})
    rep = res.report()
    assert rep.energy_drift > 1.0  # the damper took most of the energy
    assert rep.passivity < 1e-4  # ... and the balance accounts for it
