"""Positive definiteness from the Gram factor M = Σ w JᵀJ."""

from __future__ import annotations

import lagdyn as ld
from helpers import pendulum_bodies
from lagdyn import kinematics, structure


def test_positive_definite_from_the_gram_factor_beyond_sylvester():
    pend = ld.zoo.get("n_link_pendulum", n=6, coordinates="relative")
    assert structure.is_positive_definite(pend.M) is None  # n > 4: Sylvester not tried
    assert structure.positive_definite(pend) is True
    assert pend.is_positive_definite() is True
    assert structure.check(pend).positive_definite is True


def test_gram_proof_refuses_when_a_premise_fails():
    # masses without assumptions: a weight is not provably positive
    bodies, q, _, _ = pendulum_bodies(5, True, positive=False)
    plain = kinematics.from_bodies(bodies, q)
    assert structure._gram_positive_definite(plain) is None
    # a factor that does not reproduce M is not used
    pend = ld.zoo.get("n_link_pendulum", n=5, coordinates="relative")
    rows = list(pend._gram_rows)
    w, entries, pair = rows[-1]
    rows[-1] = (2 * w, entries, pair)
    wrong = ld.LagrangianSystem._from_mass_matrix(pend.M, pend.U, pend.q, gram_rows=rows)
    assert structure._gram_positive_definite(wrong) is None
    # a coordinate-dependent pivot (polar r e^{iθ} vanishes at r = 0): not proved
    assert structure._gram_positive_definite(ld.zoo.get("elastic_pendulum")) is None
