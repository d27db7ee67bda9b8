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
