"""DH and screw builders: numbers read exactly, whatever type they come in (issue 21, item 16).

numpy 2 prints ``np.float64(1.0)`` as its repr, so a reader that parses ``repr`` fails on
numpy scalars; these tests give every numeric input of the builders as numpy scalars, 0-d
arrays and arrays, and ask for the same exact model as with Python floats.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.robot import exact, exact_angle

DH = [(0.1, 0.425, 0.0), (0.0, 0.3, 1.5707963267948966)]
INERTIA = [
    {"m": 2.5, "com": (-0.2, 0.0, 0.01), "I": (0.01, 0.02, 0.025, 0.0, 0.0, 0.001)},
    {"m": 1.5, "com": (-0.15, 0.0, 0.0), "I": [[0.004, 0, 0], [0, 0.005, 0], [0, 0, 0.006]]},
]


def numpyish(value, kind):
    """``value`` (numbers in nested tuples, lists and dicts) with every number turned into
    a numpy scalar (``kind="scalar"``) or a 0-d array (``kind="0d"``)."""
    if isinstance(value, dict):
        return {k: numpyish(v, kind) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(numpyish(v, kind) for v in value)
    if isinstance(value, int):
        return np.int64(value) if kind == "scalar" else np.array(value)
    return np.float64(value) if kind == "scalar" else np.array(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (np.float64(0.425), sp.Rational(17, 40)),
        (np.float64(1.0), sp.Integer(1)),
        (np.float32(0.1), sp.Rational(1, 10)),  # by float32's own shortest digits
        (np.int64(7), sp.Integer(7)),
        (np.array(0.425), sp.Rational(17, 40)),
        (np.array(3), sp.Integer(3)),
        (0.425, sp.Rational(17, 40)),
        (1e-3, sp.Rational(1, 1000)),
    ],
)
def test_exact_reads_numpy_scalars_and_0d_arrays_exactly(value, expected):
    got = exact(value)
    assert got == expected
    assert isinstance(got, sp.Rational)


@pytest.mark.parametrize(
    "value", [np.float64("nan"), np.float64("inf"), float("-inf"), "nan", "inf", "1e400"]
)
def test_exact_refuses_non_finite_numbers(value):
    with pytest.raises(ld.LagdynError, match="finite|not a number"):
        exact(value)


def test_exact_refuses_arrays_and_complex_numbers():
    with pytest.raises(ld.ShapeError, match=r"shape \(2,\)"):
        exact(np.array([1.0, 2.0]))
    with pytest.raises(ld.LagdynError, match="not a real number"):
        exact(np.complex128(1 + 2j))


def test_exact_angle_snaps_numpy_scalars():
    assert exact_angle(np.float64(1.57079632679)) == sp.pi / 2
    assert exact_angle(np.array(-3.14159265359)) == -sp.pi


@pytest.mark.parametrize("kind", ["scalar", "0d"])
def test_dh_with_numpy_numbers_equals_dh_with_floats(kind):
    """The regression of item 16: a DH table, masses, COMs, inertias and a gravity vector
    given as numpy scalars build the same exact model as Python floats."""
    reference = ld.robot.from_dh(DH, inertia=INERTIA, parameters="numeric", gravity=(0, 0, -9.81))
    arm = ld.robot.from_dh(
        numpyish(DH, kind),
        inertia=numpyish(INERTIA, kind),
        parameters="numeric",
        gravity=numpyish((0.0, 0.0, -9.81), kind),
    )
    assert arm.chain.gravity == reference.chain.gravity
    assert sp.simplify(arm.M - reference.M) == sp.zeros(2, 2)
    for a, b in zip(arm.chain.links, reference.chain.links):
        assert (a.mass, a.first_moment, a.inertia, a.pre, a.post) == (
            b.mass,
            b.first_moment,
            b.inertia,
            b.pre,
            b.post,
        )


def test_dh_with_numpy_arrays_equals_dh_with_floats():
    """Whole rows and inertias as numpy arrays (a 6-vector I, a 3 × 3 I, a com array): the
    entries are read exactly, not through sympy Floats."""
    inertia = [
        {"m": np.float64(2.5), "com": np.array([-0.2, 0.0, 0.01]), "I": np.array(INERTIA[0]["I"])},
        {"m": np.float64(1.5), "com": np.array([-0.15, 0, 0]), "I": np.array(INERTIA[1]["I"])},
    ]
    arm = ld.robot.from_dh(
        np.array(DH), inertia=inertia, parameters="numeric", gravity=np.array([0, 0, -9.81])
    )
    reference = ld.robot.from_dh(DH, inertia=INERTIA, parameters="numeric", gravity=(0, 0, -9.81))
    for a, b in zip(arm.chain.links, reference.chain.links):
        assert (a.mass, a.first_moment, a.inertia) == (b.mass, b.first_moment, b.inertia)
        assert all(isinstance(x, sp.Rational) for x in a.inertia)


def test_symbolic_dh_defaults_from_numpy_numbers():
    arm = ld.robot.from_dh(numpyish(DH, "scalar"), inertia=numpyish(INERTIA, "scalar"))
    reference = ld.robot.from_dh(DH, inertia=INERTIA)
    assert arm.defaults == reference.defaults


def test_screws_with_numpy_numbers_equal_screws_with_floats():
    screws = [(0, 0, 1, 0, 0, 0), (0, 0, 1, 0, -1.0, 0)]
    home = [(np.eye(3), (1.0, 0, 0)), (np.eye(3), (2.0, 0, 0))]
    inertia = [{"m": 1.0, "com": (-0.5, 0, 0)}, {"m": 0.5, "com": (-0.5, 0, 0)}]
    reference = ld.robot.from_screws(screws, home, inertia=inertia, parameters="numeric")
    arm = ld.robot.from_screws(
        np.array(screws, dtype=float),
        [(R, np.array(p)) for R, p in home],
        inertia=numpyish(inertia, "scalar"),
        parameters="numeric",
    )
    assert sp.simplify(arm.M - reference.M) == sp.zeros(2, 2)
    homogeneous = [np.block([[R, np.array(p)[:, None]], [np.zeros((1, 3)), 1]]) for R, p in home]
    arm4 = ld.robot.from_screws(screws, homogeneous, inertia=inertia, parameters="numeric")
    assert sp.simplify(arm4.M - reference.M) == sp.zeros(2, 2)
