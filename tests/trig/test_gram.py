"""lagdyn.trig.gram: M = Σ JᵀWJ in canonical form equals the sympy sum and feeds the derivation."""

from __future__ import annotations

import sympy as sp

import lagdyn as ld
from helpers import pendulum_bodies
from lagdyn import kinematics, structure


def test_canonical_mass_matrix_equals_the_sympy_sum():
    for relative in (False, True):
        bodies, q, _, _ = pendulum_bodies(4, relative)
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
        bodies, q, _, _ = pendulum_bodies(4, relative)
        g = sp.Symbol("g")
        built = kinematics.from_bodies(bodies, q, gravity=(0, -g))
        assert built._mass_polys is not None
        plain = ld.LagrangianSystem.from_mass_matrix(built.M, built.U, q)
        assert plain._mass_polys is None
        assert built.C == plain.C
        assert built.g == plain.g
        assert built.h == plain.h
