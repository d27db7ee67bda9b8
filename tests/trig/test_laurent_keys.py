"""lagdyn.trig.laurent: cos/sin of a frequency key are sympy's own objects."""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.physics.mechanics import dynamicsymbols

from lagdyn.trig import laurent as _laurent


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


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=6, max_size=6),
    st.sampled_from([0, 1, 2]),
    st.permutations(range(6)),
)
def test_sign_of_a_tied_angle_is_sympys(key, kind, perm):
    """Angles with as many negative as positive coefficients (q1 - q2, ...) are where
    sympy breaks the tie by its sort order; names chosen so that string order and
    creation order differ (q10 before q2)."""
    if not any(key):
        return
    names = [["q2", "q10", "x_1", "theta", "b", "A"][i] for i in perm]
    q = [
        list(dynamicsymbols(" ".join(names))),
        list(sp.symbols(" ".join(names))),
        list(sp.symbols(" ".join(names), real=True)),
    ][kind]
    enc = _laurent.Encoder(q)
    enc.freeze()
    # sympy's own sign of the angle decides which of key and -key is canonical
    angle = enc.angle(tuple(key))
    assert enc.trig_function(tuple(key), 0) == sp.cos(angle)
    assert enc.trig_function(tuple(key), 1) == sp.sin(angle)
