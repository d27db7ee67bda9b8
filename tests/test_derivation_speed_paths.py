"""The faster derivation and proof paths give the same exact results as the slow ones.

Covers: M = Σ JᵀWJ assembled in one canonical encoder (against the sympy sum), cos/sin of
canonical angles built unevaluated (against sympy's evaluating constructor), positive
definiteness from the Gram factor (proves what Sylvester cannot reach, refuses when a
premise fails), passivity by degree (detects a wrong g and a wrong C), and the CLI's
linear output for large entries.
"""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.physics.mechanics import dynamicsymbols

import lagdyn as ld
from lagdyn import kinematics, structure
from lagdyn.cli import main
from lagdyn.trig import laurent as _laurent


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


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=3, max_size=3), st.sampled_from([0, 1, 2]))
def test_trig_of_a_key_is_sympys_own_object(key, kind):
    """Unevaluated cos/sin with sympy's sign rule are the objects sympy would build."""
    if not any(key):
        return
    first = next(k for k in key if k)
    key = tuple(-k for k in key) if first < 0 else tuple(key)
    q = [
        dynamicsymbols("a b c"),
        list(sp.symbols("x y z")),
        list(sp.symbols("u v w", real=True)),
    ][kind]
    enc = _laurent.Encoder(q)
    enc.freeze()
    angle = enc.angle(key)
    assert enc.trig_function(key, 0) == sp.cos(angle)
    assert enc.trig_function(key, 1) == sp.sin(angle)


def test_positive_definite_from_the_gram_factor_beyond_sylvester():
    pend = ld.zoo.get("n_link_pendulum", n=6, coordinates="relative")
    assert structure.is_positive_definite(pend.M) is None  # n > 4: Sylvester not tried
    assert structure.positive_definite(pend) is True
    assert pend.is_positive_definite() is True
    assert structure.check(pend).positive_definite is True


def test_gram_proof_refuses_when_a_premise_fails():
    # masses without assumptions: a weight is not provably positive
    bodies, q, _, _ = _pendulum_bodies(5, True, positive=False)
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


def test_cli_prints_large_entries_on_one_line(capsys):
    assert main(["derive", "n_link_pendulum", "-o", "n=6", "-o", "coordinates=relative"]) == 0
    out = capsys.readouterr().out
    assert "Eq(" not in out
    assert "M positive definite ............. proved" in out
    # the last equation is a single line "… = τ₆" in linear syntax
    last = [line for line in out.splitlines() if line.endswith("= τ₆")]
    assert len(last) == 1 and "φ̇₁" in last[0] and "**2" in last[0]
