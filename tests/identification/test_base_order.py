"""Exact and numeric base parameters: the same columns, the same order, both with
``base_values()`` (issue 21 item 14)."""

from __future__ import annotations

import numpy as np
import pytest

import lagdyn as ld
from lagdyn import identification as idf


def _cart_pole():
    cp = ld.zoo.cart_pole()
    mc, mp, l, Ip = ld.parameters("mc mp l Ip")
    return cp, [mc, mp, l * mp, l**2 * mp, Ip]


@pytest.mark.parametrize("reverse", [False, True])
def test_same_independent_columns_in_the_same_order(reverse):
    cp, params = _cart_pole()
    params = params[::-1] if reverse else params
    exact = idf.base_parameters(cp, params)
    numeric = idf.numeric_base_parameters(cp, params, cp.defaults)
    assert numeric.independent == exact.independent
    assert numeric.dependent == exact.dependent
    assert list(numeric.independent) == sorted(numeric.independent)


def test_both_offer_base_values_and_they_agree():
    cp, params = _cart_pole()
    exact = idf.base_parameters(cp, params)
    numeric = idf.numeric_base_parameters(cp, params, cp.defaults)
    from_exact = exact.base_values(cp.defaults)
    np.testing.assert_allclose(from_exact, numeric.base_values(cp.defaults), rtol=1e-10)
    expected = [float(b.subs(cp.defaults)) for b in exact.base]
    np.testing.assert_allclose(from_exact, expected, rtol=1e-14)
    values = np.array([float(p.subs(cp.defaults)) for p in params])  # an array works too
    np.testing.assert_allclose(exact.base_values(values), from_exact, rtol=1e-14)


def test_two_link_arm_orders_agree():
    arm = ld.zoo.two_link_planar()
    params = idf.linear_parameters(arm, ["m1", "m2", "l1", "lc1", "lc2", "I1", "I2"])
    exact = idf.base_parameters(arm, params)
    numeric = idf.numeric_base_parameters(arm, params, arm.defaults)
    assert numeric.independent == exact.independent
    np.testing.assert_allclose(
        numeric.base_values(arm.defaults), exact.base_values(arm.defaults), rtol=1e-9
    )


def test_exact_base_values_name_what_is_missing():
    cp, params = _cart_pole()
    exact = idf.base_parameters(cp, params)
    with pytest.raises(ld.LagdynError, match="Ip"):
        exact.base_values({"mc": 1.0, "mp": 0.1, "l": 0.5})
    with pytest.raises(ld.ShapeError, match=r"\(5,\), got \(2,\)"):
        exact.base_values([1.0, 2.0])
