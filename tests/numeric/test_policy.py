"""Issue 11 items 2, 6 and 11 (codegen parts): bound values that make M singular, NaN
parameters, empty batches, huge constants, and one policy for singular states."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.numeric import lambdify


@pytest.fixture(scope="module")
def dp():
    return ld.zoo.double_pendulum()


def _nonnegative(system):
    """``system`` with its masses and lengths declared nonnegative (zero is then a value)."""
    rep = {s: sp.Symbol(s.name, nonnegative=True) for s in system.parameters if s.name[0] in "ml"}
    defaults = {rep.get(s, s): v for s, v in system.defaults.items()}
    return ld.LagrangianSystem(system.L.xreplace(rep), system.q, defaults=defaults)


@pytest.mark.parametrize(
    ("zeros", "names"),
    [({"m1": 0.0, "m2": 0.0}, ("m1", "m2")), ({"m2": 0.0}, ("m2",)), ({"l2": 0.0}, ("l2",))],
)
def test_bound_values_making_m_singular_are_refused(dp, zeros, names):
    """Item 2: m1 = m2 = 0 returned silent zeros; m2 = 0 or l2 = 0 crashed in a printer.

    The zoo's masses and lengths are positive symbols, so a zero there breaks their
    assumption (issue 21 item 2; tests/codegen/test_binding_rules.py): the singular-M
    check is exercised on the same pendulum with nonnegative masses and lengths."""
    values = {**dp.defaults, **zeros}
    with pytest.raises(ld.LagdynError, match="is positive"):
        lambdify(dp, values, cache=False)
    nn = _nonnegative(dp)
    values = {**nn.defaults, **zeros}
    with pytest.raises(ld.SingularMassMatrixError) as exc:
        lambdify(nn, values, cache=False)
    assert all(f"{n} = 0.0" in str(exc.value) for n in names)
    from lagdyn.export.code import generate

    with pytest.raises(ld.SingularMassMatrixError):
        generate(nn, "c", params=values)


def test_singular_check_does_not_refuse_free_or_valid_bindings(dp):
    nn = _nonnegative(dp)
    lambdify(nn, {"m1": 0.0}, cache=False)  # m1 = 0: M stays regular (m2 > 0 is free)
    lambdify(dp, {"g": 9.81, "m1": 1e-9, "m2": 1e-9, "l1": 1.0, "l2": 1.0}, cache=False)


@pytest.mark.parametrize("value", [math.nan, math.inf, "x", None])
def test_non_finite_parameter_rejected(dp, value):
    """Item 6: a NaN parameter produced generated code failing with NameError 'nan'."""
    with pytest.raises(ld.LagdynError, match="params\\[g\\]"):
        lambdify(dp, {**dp.defaults, "g": value}, cache=False)


def test_empty_batch_without_unrolled_solve(dp, monkeypatch):
    """Item 6: an empty batch crashed forward dynamics for n > 8 (stacked-solve path)."""
    import lagdyn.codegen.build as build

    monkeypatch.setattr(build, "MAX_UNROLLED", 1)
    num = lambdify(dp, dp.defaults, cache=False)
    assert "forward_dynamics" not in num._kernels.kernel_names
    assert num.forward_dynamics(np.zeros((0, 2)), np.zeros((0, 2))).shape == (0, 2)
    assert num.M(np.zeros((0, 2))).shape == (0, 2, 2)
    # a singular state in the stacked solve gives NaN for that state only
    sph = ld.zoo.spherical_pendulum()
    num = lambdify(sph, sph.defaults, cache=False)
    out = num.forward_dynamics(np.array([[0.0, 0.1], [0.5, 0.1]]), np.ones((2, 2)))
    assert np.isnan(out[0]).all() and np.isfinite(out[1]).all()


@pytest.mark.parametrize("backend", ["numpy", "c"])
def test_empty_batch_every_kernel(dp, backend, tmp_path):
    if backend == "c" and importlib.util.find_spec("cffi") is None:
        pytest.skip("cffi not installed")
    num = lambdify(dp, dp.defaults, backend=backend, cache_dir=tmp_path)
    z = np.zeros((0, 2))
    assert num.forward_dynamics(z, z).shape == (0, 2)
    assert num.energy(z, z).shape == (0,)


def test_huge_integer_constants_print_as_doubles():
    """A polynomial mass of moderate degree: its coefficients overflow C's int literals."""
    x = ld.coordinates("x")[0]
    (xd,) = ld.velocities([x])
    s = ld.LagrangianSystem((x + 1) ** 40 * xd**2 / 2, [x])
    from lagdyn.codegen import Binding, system_program
    from lagdyn.codegen.c import CPrinter

    prog = system_program(s, Binding(s.parameters))
    text = "\n".join(CPrinter().doprint(e) for k in prog.kernels.values() for _, e in k.body)
    big = [tok for tok in text.replace("*", " ").split() if tok.isdigit() and int(tok) >= 2**31]
    assert big == []
    num = lambdify(s, cache=False)
    np.testing.assert_allclose(num.M([0.5]), [[1.5**40]], rtol=1e-13)


def _paths(num, q, qd):
    """forward dynamics of one state through the one-state and the batched path."""
    return [np.asarray(num.forward_dynamics(q, qd)), num.forward_dynamics(q[None], qd[None])[0]]


@pytest.mark.parametrize("backend", ["numpy", "c", "numba", "jax"])
def test_one_policy_for_singular_states(backend, tmp_path):
    """Item 6: θ = 0 of the spherical pendulum raised ZeroDivisionError on the one-state
    numpy path and gave inf/nan elsewhere; now every path gives IEEE inf/nan, silently."""
    module = {"c": "cffi"}.get(backend, backend)
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} not installed")
    sph = ld.zoo.spherical_pendulum()
    num = lambdify(sph, sph.defaults, backend=backend, cache_dir=tmp_path)
    q, qd = np.array([0.0, 0.3]), np.array([0.5, 0.7])
    with np.errstate(all="raise"):  # no numpy warning escapes either
        results = _paths(num, q, qd)
    for r in results:
        assert not np.isfinite(r[1])
    np.testing.assert_array_equal(np.isnan(results[0]), np.isnan(results[1]))


def test_domain_errors_follow_ieee():
    """math.sqrt(-1) in the one-state path raised ValueError; the batch gave NaN."""
    x = ld.coordinates("x")[0]
    (xd,) = ld.velocities([x])
    s = ld.LagrangianSystem(xd**2 / 2 - sp.sqrt(x), [x])
    num = lambdify(s, cache=False)
    assert np.isnan(num.g([-1.0])).all()
    assert np.isnan(num.g([[-1.0]])).all()
