"""The passivity proof by degree detects wrong parts."""

from __future__ import annotations

import sympy as sp

import lagdyn as ld
from lagdyn import structure


class _Replaced:
    def __init__(self, system, **parts):
        self._system, self._parts = system, parts

    def __getattr__(self, name):
        if name in self._parts:
            return self._parts[name]
        return getattr(self._system, name)


def test_passivity_by_degree_detects_wrong_parts():
    pend = ld.zoo.get("n_link_pendulum", n=3, coordinates="relative")
    assert structure.is_passive(pend)
    assert not structure.is_passive(_Replaced(pend, g=2 * pend.g))
    assert not structure.is_passive(_Replaced(pend, C=2 * pend.C))
    assert structure.is_passive(_Replaced(pend, C=pend.C.T))  # q̇ᵀCᵀq̇ = q̇ᵀCq̇
    wrong_m = pend.M + sp.diag(1, 0, 0)
    assert not structure.is_passive(_Replaced(pend, M=wrong_m))
