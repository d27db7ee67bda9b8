"""lagdyn.trig.gram: M = Σ JᵀWJ in canonical form equals the sympy sum and feeds the derivation."""

from __future__ import annotations

import sympy as sp

import lagdyn as ld
from lagdyn import kinematics, structure


def _pendulum_bodies(n, relative, positive=True):
    q = ld.coordinates(" ".join(f"q{i}" for i in range(1, n + 1)))
    kw = {"positive": True} if positive else {}
    m = sp.symbols(f"m1:{n + 1}", **kw)
    lengths = sp.symbols(f"l1:{n + 1}", **kw)
    angles = [sum(q[: k + 1]) for k in range(n)] if relative else list(q)
    x = y = sp.Integer(0)
    bodies = []
    for k in range(n):
        x, y = x + lengths[k] * sp.sin(angles[k]), y - lengths[k] * sp.cos(angles[k])
        bodies.append(kinematics.Particle(m[k], (x, y)))
    return bodies, q, m, lengths


def test_canonical_mass_matrix_equals_the_sympy_sum():
    for relative in (False, True):
        bodies, q, _, _ = _pendulum_bodies(4, relative)
        terms = [tw for b in bodies for tw in kinematics._body_terms(b, q)]
        found = kinematics._mass_matrix_canonical(terms, q)
        slow = kinematics._mass_matrix_sympy(terms, q)
        assert found is not None
        fast, (encoder, polys) = found
        for i in range(4):
            for j in range(4):
                assert structure.is_zero(fast[i, j] - slow[i, j])
                if i <= j:  # the dictionaries handed to the derivation are M's own
                    assert encoder.rebuild(polys[i, j]) == fast[i, j]


def test_derivation_from_kinematic_dictionaries_equals_derivation_from_M():
    """A system from bodies derives from the assembler's dictionaries; the same M and V
    given by hand are encoded afresh: identical C, g and h."""
    for relative in (False, True):
        bodies, q, _, _ = _pendulum_bodies(4, relative)
        g = sp.Symbol("g")
        built = kinematics.from_bodies(bodies, q, gravity=(0, -g))
        assert built._mass_polys is not None
        plain = ld.LagrangianSystem.from_mass_matrix(built.M, built.U, q)
        assert plain._mass_polys is None
        assert built.C == plain.C
        assert built.g == plain.g
        assert built.h == plain.h
