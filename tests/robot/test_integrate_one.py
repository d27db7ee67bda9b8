"""One state through ``integrate`` takes a path in Python floats (numpy's per-call cost is
most of the time there): it must give the array code's numbers bit for bit, small and large
rotations alike, and agree with Pinocchio's ``integrate``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lagdyn.robot.floating import integrate

FINITE = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(FINITE, min_size=7, max_size=10),
    st.lists(FINITE, min_size=9, max_size=9),
    st.floats(-8, 1),
    st.floats(0, 0.5),
)
def test_one_state_equals_the_array_code_bit_for_bit(q, v, scale, dt):
    q = np.array(q)
    if np.linalg.norm(q[3:7]) < 1e-3:
        q[6] = 1.0
    v = np.array(v[: len(q) - 1]) * 10.0**scale  # tiny rotations take the series
    one = integrate(q, v, dt)
    batch = integrate(q[None], v[None], dt)[0]
    assert one.shape == batch.shape
    assert np.array_equal(one, batch)


def test_one_state_equals_pinocchio():
    pin = pytest.importorskip("pinocchio")
    model = pin.Model()
    pin_id = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    model.addJoint(pin_id, pin.JointModelRZ(), pin.SE3.Identity(), "j")
    rng = np.random.default_rng(3)
    for _ in range(50):
        q = pin.randomConfiguration(model, -np.ones(8), np.ones(8))
        v = rng.normal(size=7) * 10.0 ** rng.uniform(-7, 0.5)
        expected = pin.integrate(model, q, v * 0.01)
        assert np.allclose(integrate(q, v, 0.01), expected, rtol=0, atol=1e-14)
