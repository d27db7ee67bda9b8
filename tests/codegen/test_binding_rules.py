"""Issue 21 items 2 and 8: bound values keep the assumptions the proofs used, and names
that are not parameters are announced.

Item 2: ``ld.parameters`` makes positive symbols and "M positive definite" is proved for
them, yet ``lambdify({m: -1.0, ...})`` gave a negative-definite M and ``simulate`` ran.
Every path that binds values (lambdify on every backend, ``to_casadi``, the exports, the
CLI ``export``, ``simulate``, per-call ``params=``) now refuses a value against its
symbol's assumptions with a message naming the parameter, the value and the assumption.

Item 8: ``lambdify({"m": 1, "L": 1, "g": 9.81})`` said "no value for l" without a word
about ``L``; unknown names are still accepted, with one ``LagdynWarning`` (and a "did you
mean") and a mention in the ``UnboundParameterError`` that follows.
"""

from __future__ import annotations

import importlib.util
import math
import warnings

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.codegen.binding import Binding, check_value, value_rules
from lagdyn.export.code import generate
from lagdyn.numeric import lambdify

needs_casadi = pytest.mark.skipif(
    importlib.util.find_spec("casadi") is None, reason="casadi not installed"
)
needs_cffi = pytest.mark.skipif(importlib.util.find_spec("cffi") is None, reason="no cffi")


def _pendulum():
    """m l² θ̈ + m g l sin θ = τ with m, l, g positive (ld.parameters)."""
    (th,) = ld.coordinates("th")
    m, l, g = ld.parameters("m l g")
    L = m * l**2 * sp.diff(th, ld.t) ** 2 / 2 + m * g * l * sp.cos(th)
    return ld.LagrangianSystem(L, [th], defaults={m: 1.0, l: 1.0, g: 9.81})


def _declared(**assumptions):
    """A pendulum whose mass ``k`` multiplies L and has ``assumptions``."""
    (th,) = ld.coordinates("th")
    k = sp.Symbol("k", **assumptions)
    L = k * (sp.diff(th, ld.t) ** 2 / 2 + sp.cos(th))
    return ld.LagrangianSystem(L, [th])


@pytest.fixture(scope="module")
def pend():
    return _pendulum()


GOOD = {"m": 1.0, "l": 1.0, "g": 9.81}

# (assumptions of k, value, assumption named in the message)
BAD = [
    ({"positive": True}, -1.0, "positive"),
    ({"positive": True}, 0.0, "positive"),
    ({"nonnegative": True}, -0.5, "nonnegative"),
    ({"integer": True, "positive": True}, 1.5, "integer"),
    ({"negative": True}, 0.0, "negative"),
    ({"nonpositive": True}, 2.0, "nonpositive"),
    ({"real": True, "nonzero": True}, 0.0, "nonzero"),
]


# ----------------------------------------------------------------------- item 2: the rule
@pytest.mark.parametrize(("assumptions", "value", "rule"), BAD)
def test_check_value_names_parameter_value_and_assumption(assumptions, value, rule):
    k = sp.Symbol("k", **assumptions)
    with pytest.raises(ld.LagdynError) as exc:
        check_value(k, value)
    text = str(exc.value)
    assert f"params[k] = {value!r}" in text and f"k is {rule}" in text


@pytest.mark.parametrize(
    ("assumptions", "value"),
    [
        ({"positive": True}, 1e-300),
        ({"nonnegative": True}, 0.0),
        ({"integer": True}, 2.0),
        ({"integer": True}, -3),
        ({"negative": True}, -1),
        ({"real": True}, -7.5),
        ({}, 0.0),
    ],
)
def test_check_value_accepts_values_that_keep_the_assumptions(assumptions, value):
    assert check_value(sp.Symbol("k", **assumptions), value) == float(value)


@pytest.mark.parametrize("value", [1 + 2j, np.complex128(1 + 0j), sp.I, math.nan, math.inf])
def test_check_value_refuses_complex_and_non_finite(value):
    """Not a finite real number, even for a complex value with a zero imaginary part
    (``float(np.complex128(1))`` would drop it with only a ComplexWarning)."""
    with pytest.raises(ld.LagdynError, match=r"params\[k\] must be a (finite )?real number"):
        check_value(sp.Symbol("k", real=True), value)


def test_value_rules_strongest_sign_first():
    assert value_rules(sp.Symbol("m", positive=True)) == ("positive",)
    assert value_rules(sp.Symbol("n", positive=True, integer=True)) == ("positive", "integer")
    assert value_rules(sp.Symbol("x")) == ()


# -------------------------------------------------------------- item 2: every binding path
@pytest.mark.parametrize(("assumptions", "value", "rule"), BAD)
def test_lambdify_numpy_refuses(assumptions, value, rule):
    system = _declared(**assumptions)
    with pytest.raises(ld.LagdynError, match=f"k is {rule}"):
        lambdify(system, {"k": value}, cache=False)


@pytest.mark.parametrize("value", [-1.0, 0.0, 1 + 2j, math.nan, math.inf])
def test_lambdify_refuses_the_pendulums_mass(pend, value):
    """The issue's case: m = -1 gave a negative-definite M that the proofs called PD."""
    with pytest.raises(ld.LagdynError, match=r"params\[m\]"):
        lambdify(pend, {**GOOD, "m": value}, cache=False)


@needs_cffi
def test_lambdify_c_refuses(pend, tmp_path):
    with pytest.raises(ld.LagdynError, match="m is positive"):
        lambdify(pend, {**GOOD, "m": -1.0}, backend="c", cache_dir=tmp_path)
    with pytest.raises(ld.LagdynError, match="k is nonnegative"):
        lambdify(_declared(nonnegative=True), {"k": -0.5}, backend="c", cache_dir=tmp_path)


@needs_casadi
def test_to_casadi_refuses(pend):
    with pytest.raises(ld.LagdynError, match="m is positive"):
        pend.to_casadi({**GOOD, "m": -1.0})
    with pytest.raises(ld.LagdynError, match="k is integer"):
        _declared(integer=True).to_casadi({"k": 1.5})


@pytest.mark.parametrize("target", ["c", "julia", "numba", "js"])
def test_export_refuses(pend, target):
    with pytest.raises(ld.LagdynError, match=r"params\[l\] = 0.0 .*l is positive"):
        generate(pend, target, name="p", params={**GOOD, "l": 0.0})


def test_cli_export_refuses_defaults_that_break_assumptions(tmp_path, capsys):
    from lagdyn.cli import main

    model = tmp_path / "model.py"
    model.write_text(
        "import sympy as sp, lagdyn as ld\n"
        "(th,) = ld.coordinates('th')\n"
        "m, l, g = ld.parameters('m l g')\n"
        "L = m * l**2 * sp.diff(th, ld.t)**2 / 2 + m * g * l * sp.cos(th)\n"
        "system = ld.LagrangianSystem(L, [th], defaults={m: -1.0, l: 1.0, g: 9.81})\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    argv = ["export", "--file", str(model), "-t", "c", "--out", str(out), "--bind-defaults"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "params[m] = -1.0" in err and "m is positive" in err
    assert not out.exists() or not any(out.iterdir())


def test_simulate_refuses(pend):
    x0 = np.array([0.1, 0.0])
    with pytest.raises(ld.LagdynError, match="m is positive"):
        ld.simulate(pend, x0, 0.1, params={"m": -1.0})
    # a numeric model carries values checked at lambdify: nothing else reaches simulate
    res = ld.simulate(pend.lambdify(GOOD, cache=False), x0, 0.1)
    assert res.q.shape[-1] == 1


# --------------------------------------------------------------- item 2: per-call values
@pytest.fixture(scope="module")
def free_m(pend):
    return lambdify(pend, {"l": 1.0, "g": 9.81}, cache=False)  # m per call


def test_per_call_mapping_refused(free_m):
    with pytest.raises(ld.LagdynError, match=r"params\[m\] = -1.0 .*m is positive"):
        free_m.M([0.0], params={"m": -1.0})


def test_per_call_array_one_state_refused(free_m):
    """The one-state fast path (float64 arrays, no batch) checks too."""
    with pytest.raises(ld.LagdynError, match=r"params\[m\] = 0.0"):
        free_m.M(np.zeros(1), params=np.zeros(1))
    with pytest.raises(ld.LagdynError, match="m is positive"):
        free_m.forward_dynamics(np.zeros(1), np.zeros(1), np.zeros(1), params=np.array([-2.0]))


def test_per_call_batch_names_the_batch_index(free_m):
    q = np.zeros((4, 1))
    p = np.array([[1.0], [2.0], [-3.0], [4.0]])
    with pytest.raises(ld.LagdynError, match=r"params\[m\] \(batch index \(2,\)\) = -3.0"):
        free_m.M(q, params=p)
    with pytest.raises(ld.LagdynError, match=r"batch index \(1,\)"):
        free_m.energy(q, q, params={"m": [1.0, 0.0, 1.0, 1.0]})


def test_per_call_valid_and_nan_values_pass(free_m):
    assert free_m.M([0.0], params={"m": 2.0}).tolist() == [[2.0]]
    out = free_m.M(np.zeros((3, 1)), params=np.array([[1.0], [np.nan], [3.0]]))
    assert out[0, 0, 0] == 1.0 and math.isnan(out[1, 0, 0]) and out[2, 0, 0] == 3.0


@needs_cffi
def test_per_call_c_backend_refused(pend, tmp_path):
    num = lambdify(pend, {"l": 1.0, "g": 9.81}, backend="c", cache_dir=tmp_path)
    with pytest.raises(ld.LagdynError, match="m is positive"):
        num.M(np.zeros(1), params=np.array([-1.0]))
    with pytest.raises(ld.LagdynError, match="m is positive"):
        num.M(np.zeros((2, 1)), params=np.array([[1.0], [-1.0]]))


def test_per_call_integer_rule_vectorised():
    num = lambdify(_declared(integer=True, positive=True), {}, cache=False)
    assert num.M([0.0], params={"k": [1.0, 2.0]}).shape == (2, 1, 1)
    with pytest.raises(ld.LagdynError, match="k is integer"):
        num.M([0.0], params={"k": [1.0, 2.5]})


def test_per_call_unconstrained_parameters_are_not_checked():
    """A real parameter has nothing to check: no rule, no cost."""
    num = lambdify(_declared(real=True), {}, cache=False)
    assert num._binding.free_rules == ()
    assert num.M([0.0], params={"k": -1.0}).tolist() == [[-1.0]]


# ------------------------------------------------------------ item 8: ignored names
def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [w for w in caught if issubclass(w.category, ld.LagdynWarning)]


def test_unknown_name_warns_once_with_did_you_mean(pend):
    num, caught = _caught(lambda: lambdify(pend, {"m": 1, "L": 1, "g": 9.81}, cache=False))
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "L (did you mean l?)" in text and "ignored" in text
    assert caught[0].filename == __file__  # points at the caller, not into lagdyn
    with pytest.raises(ld.UnboundParameterError) as exc:
        num.M([0.0])
    assert "no value for parameter(s) l" in str(exc.value)
    assert "L (did you mean l?)" in str(exc.value)
    with pytest.raises(ld.UnboundParameterError, match="L \\(did you mean l\\?\\)"):
        num.M([0.0], params={})


def test_unknown_name_without_close_match(pend):
    _, caught = _caught(lambda: lambdify(pend, {**GOOD, "mass": 1.0}, cache=False))
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "mass is not a parameter" in text and "did you mean" not in text


def test_suggestions_only_name_free_parameters(pend):
    """``L`` is not suggested as ``l`` when ``l`` has a value already."""
    _, caught = _caught(lambda: lambdify(pend, {**GOOD, "L": 2.0}, cache=False))
    assert "did you mean" not in str(caught[0].message)


@needs_casadi
def test_to_casadi_unknown_name_warns(pend):
    _, caught = _caught(lambda: pend.to_casadi({"mass": 1}))
    assert len(caught) == 1 and "mass is not a parameter" in str(caught[0].message)


def test_export_and_simulate_unknown_name_warn(pend):
    _, caught = _caught(lambda: generate(pend, "c", name="p", params={**GOOD, "G": 1.0}))
    assert len(caught) == 1 and "G is not a parameter" in str(caught[0].message)
    _, caught = _caught(lambda: ld.simulate(pend, [0.1, 0.0], 0.05, params={"M": 2.0}))
    assert len(caught) == 1 and "M is not a parameter" in str(caught[0].message)


def test_known_names_do_not_warn(pend):
    _, caught = _caught(lambda: lambdify(pend, GOOD, cache=False))
    assert caught == []


def test_strict_refuses_unknown_names(pend):
    with pytest.raises(ld.LagdynError, match="L are not parameters of the system"):
        lambdify(pend, {"m": 1, "L": 1, "g": 9.81}, strict=True, cache=False)
    with pytest.raises(ld.LagdynError, match="not parameters"):
        generate(pend, "c", name="p", params={"mass": 1.0}, strict=True)


def test_binding_warning_lists_all_names_once():
    a, b = sp.symbols("alpha beta")
    bnd, caught = _caught(lambda: Binding((a, b), {"Alpha": 1.0, "gamma": 2.0}))
    assert bnd.ignored == ("Alpha", "gamma") and len(caught) == 1
    assert "Alpha (did you mean alpha?), gamma are not parameters" in str(caught[0].message)
