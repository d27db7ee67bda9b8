"""Issue 22 item 9, numerics: raw exceptions from hostile states, the constraint solvers'
messages and their IEEE policy, tolerances that cannot be met."""

from __future__ import annotations

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.errors import ConstraintError, LagdynError, ShapeError


@pytest.fixture(scope="module")
def dp_num():
    dp = ld.zoo.double_pendulum()
    return dp.lambdify(dp.defaults, cache=False)


@pytest.fixture(scope="module")
def pendulum():
    x, y = ld.coordinates("x y")
    m, l, g = ld.parameters("m l g")
    free = ld.LagrangianSystem.from_energies(
        m * (x.diff(ld.t) ** 2 + y.diff(ld.t) ** 2) / 2, m * g * y, [x, y]
    )
    return ld.ConstrainedSystem(free, [x**2 + y**2 - l**2]).lambdify({m: 1.0, l: 1.0, g: 9.81})


# ------------------------------------------------------------------ states
@pytest.mark.parametrize(
    "call",
    [
        lambda num: num.M([10**400, 0]),  # was OverflowError from the one-state entry
        lambda num: num.M(np.array([10**400, 0], dtype=object)),  # was "dtype object"
        lambda num: num.forward_dynamics([0.0, 0.0], [10**400, 0.0]),
        lambda num: num.rhs(0.0, [10**400, 0, 0, 0]),
    ],
)
def test_an_integer_beyond_a_double_is_named(dp_num, call) -> None:
    with pytest.raises(
        LagdynError, match="holds an integer of 401 digits, which overflows a double"
    ):
        call(dp_num)


def test_time_and_parameters_beyond_a_double_are_named(dp_num) -> None:
    with pytest.raises(LagdynError, match="^t holds an integer of 401 digits"):
        dp_num.bias([0.0, 0.0], [0.0, 0.0], t=10**400)
    free = ld.zoo.double_pendulum().lambdify(cache=False)
    with pytest.raises(LagdynError, match="^params holds an integer of 401 digits"):
        free.M([0.0, 0.0], params=[1, 1, 1, 1, 10**400])
    with pytest.raises(LagdynError, match=r"params\[g\] holds an integer of 401 digits"):
        free.M([0.0, 0.0], params={"g": 10**400, "l1": 1, "l2": 1, "m1": 1, "m2": 1})


@pytest.mark.parametrize(
    "call, label",
    [
        (lambda num: num.M([[0, 1], [2]]), "q"),  # was numpy's "inhomogeneous shape" ValueError
        (lambda num: num.energy([0.0, 0.0], [[0, 1], [2]]), "qd"),
        (lambda num: num.rhs(0.0, [[0, 1, 0, 0], [2]]), "x"),
    ],
)
def test_ragged_states_are_named(dp_num, call, label: str) -> None:
    with pytest.raises(ShapeError, match=f"^{label} is ragged: its rows have different lengths"):
        call(dp_num)


def test_numbers_a_double_holds_are_accepted(dp_num) -> None:
    import fractions

    import sympy as sp

    expected = dp_num.M([0.5, 0.25])
    for q in ([sp.Rational(1, 2), sp.Rational(1, 4)], [fractions.Fraction(1, 2), 0.25]):
        np.testing.assert_allclose(dp_num.M(q), expected, rtol=1e-15)
    assert np.isfinite(dp_num.M([10**308, 0])).all()  # an int a double holds
    with pytest.raises(ShapeError, match="q has dtype object"):
        dp_num.M([None, None])  # not read as NaN


# ------------------------------------------------------------------ constraints
def test_singular_constraint_message_names_the_state_and_rows(pendulum) -> None:
    # was "singular constraints at state (): row(s) 0 (...)": an empty state
    with pytest.raises(ConstraintError, match=r"^singular constraints at q = \[0\., 0\.\]: row 0 "):
        pendulum.solve([0.0, 0.0], [0.0, 0.0])
    with pytest.raises(ConstraintError, match=r"at state \(1,\) of the batch \(q = \[0\., 0\.\]\)"):
        pendulum.solve([[0.0, -1.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]])


def test_nearly_dependent_rows_are_named_not_an_empty_list() -> None:
    from lagdyn.numeric.constrained import _dependent_rows

    x, y, z, w = ld.coordinates("x y z w")
    free = ld.LagrangianSystem(sum(v**2 for v in ld.velocities([x, y, z, w])) / 2, [x, y, z, w])
    eps = ld.parameters("eps")[0]
    cs = ld.ConstrainedSystem(free, [x - 1, x + 3 * eps * y, x + 2 * eps * z])
    num = cs.lambdify({eps: 1e-5}, cache=False)
    # the Hadamard ratio (3e-5 · 2e-5)² < 1e-16 refuses the state, while a rank at 1e-9
    # found every row independent: the message said "row(s)  of J_c" (no row)
    with pytest.raises(ConstraintError, match=r"row 2 \(2\*eps\*z\(t\) \+ x\(t\)\) of J_c "):
        num.solve([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0])
    rows, part = _dependent_rows(np.array([[1.0, 0, 0], [1.0, 3e-5, 0], [1.0, 0, 2e-5]]))
    assert rows == [2] and part == pytest.approx(2e-5, rel=1e-6)
    assert _dependent_rows(np.array([[1.0, 0.0], [2.0, 0.0]])) == ([1], 0.0)
    assert _dependent_rows(np.array([[0.0, 0.0]])) == ([0], 0.0)


@pytest.mark.parametrize("method", ["kkt", "schur", "penalty", "augmented_lagrangian"])
def test_non_finite_states_give_nan_not_an_svd_failure(pendulum, method: str) -> None:
    # NaN: "LinAlgError: SVD did not converge"; inf: a ConstraintError naming no row
    for bad in (np.nan, np.inf):
        qdd, lam = pendulum.solve([bad, 0.0], [0.0, 0.0], method=method)
        assert np.isnan(qdd).all() and np.isnan(lam).all()
    qdd, lam = pendulum.solve([[np.nan, 0.0], [0.0, -1.0]], [[0.0, 0.0], [1.0, 0.0]], method=method)
    assert np.isnan(qdd[0]).all() and np.isnan(lam[0]).all()
    assert -2 * lam[1, 0] == pytest.approx(1.0 + 9.81, rel=1e-6)  # the finite state solved


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda n: n.solve([0.0, -1.0], [0.0, 0.0], method="augmented_lagrangian", tol=-1),
            "tol must be a positive number, got -1",
        ),
        (
            lambda n: n.solve([0.0, -1.0], [0.0, 0.0], max_iter=0),
            "max_iter must be a positive integer",
        ),
        (
            lambda n: n.solve([0.0, -1.0], [0.0, 0.0], method="penalty", stiffness=-5.0),
            "stiffness must be a positive number",
        ),
        (
            lambda n: n.solve([0.0, -1.0], [0.0, 0.0], baumgarte=(np.nan, 1.0)),
            "baumgarte gains must be finite and >= 0",
        ),
        (lambda n: n.project([0.0, -1.0], [0.0, 0.0], tol=-1), "tol must be a positive number"),
        (lambda n: n.project([0.0, -1.0], [0.0, 0.0], tol=0.0), "tol must be a positive number"),
    ],
)
def test_tolerances_that_cannot_be_met_are_refused(pendulum, call, message: str) -> None:
    # tol=-1 was "did not converge ... (residual 0)" or "max |Φ| = 0 > tol -1"
    with pytest.raises(LagdynError, match=message):
        call(pendulum)


def test_constrained_inputs_are_named(pendulum) -> None:
    with pytest.raises(LagdynError, match="^q holds an integer of 401 digits"):
        pendulum.solve([10**400, 0.0], [0.0, 0.0])
    with pytest.raises(ShapeError, match="^qd is ragged"):
        pendulum.solve([0.0, -1.0], [[0.0, 0.0], [1.0]])
    with pytest.raises(ConstraintError, match="project: q or qd holds NaN"):
        pendulum.project([np.nan, -1.0], [0.0, 0.0])


# ------------------------------------------------------------------ bound values
@pytest.mark.parametrize(
    "value, message",
    [
        (
            10**400,
            r"params\[g\] must be a finite real number; an integer of 401 digits "
            r"overflows a double",
        ),  # was OverflowError
        ("9.81", r"params\[g\] must be a real number, got '9\.81'"),  # was read as 9.81
        (True, r"params\[g\] must be a real number, got True"),  # was read as 1.0
    ],
)
def test_bound_values_are_numbers(value, message: str) -> None:
    dp = ld.zoo.double_pendulum()
    with pytest.raises(LagdynError, match=message):
        dp.lambdify({**dp.defaults, "g": value}, cache=False)


# ------------------------------------------------------------------ one-state paths
@pytest.fixture(scope="module")
def spring():
    (x,) = ld.coordinates("x")
    k = ld.parameters("k")[0]
    return ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 * (1 + x**2) - k * x**2 / 2, [x]), k


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_one_state_with_parameters_per_call(spring, backend: str) -> None:
    # energy of one state with params per call: "TypeError: reshape() takes exactly 1
    # argument (0 given)" (a scalar output of an unbatched call)
    system, k = spring
    num = system.lambdify(backend=backend)
    assert num.energy([0.5], [1.0], params={k: 3.0}) == pytest.approx(0.625 + 0.375)
    assert num.energy([0.5], [1.0], params=[3.0]) == pytest.approx(1.0)


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_byte_swapped_arrays_are_read_as_numbers(spring, backend: str) -> None:
    # the C one-state entry read big-endian doubles as native ones: M = 1, q̈ = -1.6
    system, k = spring
    num = system.lambdify({k: 3.0}, backend=backend)
    swapped = np.array([0.5]).astype(">f8")
    np.testing.assert_allclose(num.M(swapped), [[1.25]], rtol=1e-15)
    tau = np.array([2.0]).astype(">f8")
    np.testing.assert_allclose(num.forward_dynamics([0.5], [1.0], tau), [0.0], atol=1e-15)
