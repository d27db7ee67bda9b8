"""CasADi functions (``system.to_casadi``, ``lagdyn export -t casadi``) against lagdyn's numerics.

The reference is the numpy backend of :func:`lagdyn.numeric.lambdify` (generated from the
same program by a printer, so an SX graph built wrongly from the sympy tree — a dropped
factor, a wrong power, a mis-ordered argument — shows up as a number, at 1e-12), and for
the regressor τ = Y π against the generated inverse dynamics. Tests that need casadi are
skipped, with the reason, only when it is not installed; the missing-casadi error is tested
either way.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagdyn as ld
import lagdyn.export.code as code
from lagdyn.cli import main
from lagdyn.codegen import program
from lagdyn.errors import BackendUnavailableError, LagdynError

try:
    import casadi as ca
except ImportError:  # pragma: no cover - CI installs the casadi extra
    ca = None

from strategies import random_lagrangians

needs_casadi = pytest.mark.skipif(
    ca is None, reason="casadi is not installed (pip install 'lagdyn[casadi]')"
)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "casadi_swingup.py"
#: zoo models checked function by function: closed route, and chains on both routes
MODELS = ["cart_pole", "double_pendulum", "acrobot", "planar_3r", "spatial_3r", "ur5"]


def close(a, b, tol=1e-12):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    assert float(np.abs(a - b).max(initial=0.0)) <= tol * scale, (a, b)


def col(x) -> np.ndarray:
    return np.asarray(x.full(), dtype=float).ravel()


@functools.cache
def _pair(name: str):
    system = (
        ld.zoo.get("planar_3r", parameters="symbolic")  # ten inertial symbols per link
        if name == "planar_3r_symbolic"
        else ld.zoo.get(name)
    )
    return system, system.to_casadi(system.defaults), system.lambdify(system.defaults, cache=False)


def _check_state(cm, num, q, qd, u, params=None, t=None):
    """Every casadi Function of ``cm`` against ``num`` at one state."""
    extra = [] if params is None else [params]
    timed = [] if t is None else [t]
    kw = {} if params is None else {"params": np.asarray(params)}
    kt = {} if t is None else {"t": t}
    close(cm.M(q, *extra).full(), num.M(q, **kw))
    close(cm.C(q, qd, *extra).full(), num.C(q, qd, **kw))
    close(col(cm.g(q, *extra)), num.g(q, **kw))
    close(col(cm.h(q, qd, *extra, *timed)), num.bias(q, qd, **kw, **kt))
    close(float(cm.energy(q, qd, *extra)), num.energy(q, qd, **kw))
    close(
        col(cm.inverse_dynamics(q, qd, u, *extra, *timed)),
        num.inverse_dynamics(q, qd, u, **kw, **kt),
    )
    M = num.M(q, **kw)
    tol = 1e-12 * max(1.0, float(np.linalg.cond(M)))  # a solve amplifies reordered rounding
    close(
        col(cm.forward_dynamics(q, qd, u, *extra, *timed)),
        num.forward_dynamics(q, qd, u, **kw, **kt),
        tol,
    )


angles = st.lists(st.floats(-3.0, 3.0, allow_nan=False), min_size=18, max_size=18)


@needs_casadi
@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=angles)
def test_functions_equal_lagdyn_numerics(name, values):
    system, cm, num = _pair(name)
    n = system.n
    v = np.array(values)
    _check_state(cm, num, v[:n], v[6 : 6 + n], v[12 : 12 + n])


@needs_casadi
def test_chains_take_the_route_of_lambdify():
    _, cm, num = _pair("ur5")
    assert cm.route == num.route == "recursive"
    assert _pair("planar_3r")[1].route == "closed"
    arm = ld.zoo.get("planar_3r")
    rec = arm.to_casadi(arm.defaults, route="recursive")
    q = np.array([0.3, -0.7, 1.1])
    close(rec.M(q).full(), _pair("planar_3r")[1].M(q).full())


@needs_casadi
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_lagrangians(max_n=3), st.integers(0, 2**31))
def test_random_user_lagrangians(rl, seed):
    system = ld.LagrangianSystem(rl.L, rl.q, rl.forces)
    params = {s: v for s, v in rl.params.items() if s in system.parameters}
    cm = system.to_casadi(params)
    num = system.lambdify(params, cache=False)
    rng = np.random.default_rng(seed)
    q, qd, u = rng.uniform(-2.0, 2.0, (3, system.n))
    _check_state(cm, num, q, qd, u)


@needs_casadi
def test_free_parameters_are_the_input_p_in_lambdify_order():
    cp = ld.zoo.cart_pole()
    cm = cp.to_casadi({"g": 9.81})
    num = cp.lambdify({"g": 9.81}, cache=False)
    assert cm.free_parameters == num.free_parameters
    assert [s.name for s in cm.free_parameters] == ["Ip", "l", "mc", "mp"]
    assert cm.M.name_in() == ["q", "p"] and cm.h.name_in() == ["q", "qd", "p"]
    assert cm.forward_dynamics.name_in() == ["q", "qd", "tau", "p"]
    assert cm.regressor.name_in() == ["q", "qd", "qdd", "p"]
    p = np.array([0.02, 0.4, 1.5, 0.3])
    _check_state(cm, num, np.array([0.2, 2.0]), np.array([-1.0, 0.5]), np.array([3.0, 0.0]), p)
    # every parameter bound: no p at all
    bound = cp.to_casadi(cp.defaults)
    assert bound.M.name_in() == ["q"] and bound.free_parameters == ()
    # the same names are refused with strict=True, ignored otherwise (as lambdify does)
    cp.to_casadi({"g": 9.81, "nonsense": 1.0})
    with pytest.raises(LagdynError, match="nonsense"):
        cp.to_casadi({"g": 9.81, "nonsense": 1.0}, strict=True)
    with pytest.raises(LagdynError, match="finite"):
        cp.to_casadi({"g": float("inf")})


@needs_casadi
def test_time_dependent_forces_add_the_input_t():
    (x,) = ld.coordinates("x")
    (xd,) = ld.velocities([x])
    k, a = sp.symbols("k a", positive=True)
    system = ld.LagrangianSystem(xd**2 / 2 - k * x**2 / 2, [x], [a * sp.sin(2 * ld.t) - xd / 5])
    cm = system.to_casadi({"k": 2.0})
    num = system.lambdify({"k": 2.0}, cache=False)
    assert cm.time_dependent and cm.h.name_in() == ["q", "qd", "p", "t"]
    assert cm.M.name_in() == ["q", "p"]  # only the functions that can read time take t
    _check_state(cm, num, np.array([0.4]), np.array([-0.3]), np.array([0.7]), [1.5], t=0.8)


@needs_casadi
def test_closed_route_above_eight_coordinates_solves_for_the_accelerations():
    q = ld.coordinates([f"q{i}" for i in range(9)])
    v = ld.velocities(q)
    T = (
        sum(vi**2 for vi in v) / 2
        + sum(sp.cos(q[i] - q[i + 1]) * v[i] * v[i + 1] for i in range(8)) / 4
    )
    U = sum(1 - sp.cos(qi) for qi in q)
    system = ld.LagrangianSystem(T - U, q)
    cm = system.to_casadi()
    num = system.lambdify(cache=False)
    assert "forward_dynamics" not in cm.program.kernels
    rng = np.random.default_rng(3)
    qq, qd, u = rng.uniform(-1, 1, (3, 9))
    _check_state(cm, num, qq, qd, u)


@needs_casadi
@pytest.mark.parametrize("name", ["cart_pole", "double_pendulum", "planar_3r_symbolic"])
def test_regressor_times_parameters_is_the_inverse_dynamics(name):
    system, cm, num = _pair(name)
    pi = np.array([float(p.subs(system.defaults)) for p in cm.regressor_params])
    Y = cm.regressor
    assert Y.size_out(0) == (system.n, len(pi))
    rng = np.random.default_rng(11)
    for q, qd, qdd in rng.uniform(-2, 2, (4, 3, system.n)):
        close(Y(q, qd, qdd).full() @ pi, num.inverse_dynamics(q, qd, qdd), 1e-11)
    # the columns are those of lagdyn.identification (the same Y, generated by lagdyn)
    Yf = ld.identification.regressor_function(system, cm.regressor_params, system.defaults)
    close(Y(q, qd, qdd).full(), Yf(q, qd, qdd))


@needs_casadi
def test_regressor_with_given_parameters_and_free_known_ones():
    dp = ld.zoo.double_pendulum()
    cm = dp.to_casadi({"l1": 1.0, "l2": 1.0}, regressor_params=["m1", "m2"])
    assert cm.regressor_params == tuple(sp.symbols("m1 m2", positive=True))
    p_names = [s.name for s in cm.free_parameters]
    assert p_names == ["g", "m1", "m2"]
    p = np.array([9.81, 1.3, 0.7])  # the entries of m1, m2 are not read by Y
    q, qd, qdd = np.array([0.3, -0.2]), np.array([1.0, 0.5]), np.array([-0.4, 0.9])
    Y = cm.regressor(q, qd, qdd, p).full()
    tau = cm.inverse_dynamics(q, qd, qdd, p).full().ravel()
    close(Y @ p[1:], tau)
    close(cm.regressor(q, qd, qdd, np.array([9.81, 0.0, 0.0])).full(), Y)
    with pytest.raises(LagdynError, match="not linear"):
        _ = dp.to_casadi(dp.defaults, regressor_params=["m2", "l2"]).regressor


def _no_closed_form(*args, **kwargs):
    raise AssertionError("the closed-form regressor was derived")


@needs_casadi
def test_ur5_regressor_is_the_recursive_program(monkeypatch):
    arm = ld.zoo.get("ur5", parameters="symbolic")
    params = ld.robot.regressor.standard_parameters_of(arm)
    known = {s: v for s, v in arm.defaults.items() if s.name != "g"}  # g stays free: p = [g]
    cm = arm.to_casadi(known, regressor_params=params)
    monkeypatch.setattr(ld.identification.casadi, "regressor", _no_closed_form)
    Y = cm.regressor
    assert Y.name_in() == ["q", "qd", "qdd", "p"] and Y.size_out(0) == (6, 60)
    assert [s.name for s in cm.free_parameters] == ["g"]
    pi = np.array([arm.defaults[s] for s in params])
    num = _pair("ur5")[2]  # the numeric UR5 (its inertial values are the symbolic one's defaults)
    Yf = ld.identification.regressor_function(arm, params, arm.defaults)
    rng = np.random.default_rng(5)
    for q, qd, qdd in rng.uniform(-2, 2, (3, 3, 6)):
        Yq = Y(q, qd, qdd, 9.81).full()
        tau = num.inverse_dynamics(q, qd, qdd)
        close(Yq @ pi, tau)
        close(col(cm.inverse_dynamics(q, qd, qdd, 9.81)), tau)
        close(Yq, Yf(q, qd, qdd))
    # g read from p, not folded in: without gravity the joint torques change
    q = np.array([0.1, -0.8, 0.6, 0.2, 0.4, -0.3])
    z = np.zeros(6)
    close(Y(q, z, z, 0.0).full() @ pi, np.zeros(6))
    assert float(np.abs(Y(q, z, z, 9.81).full() @ pi).max()) > 1.0


@needs_casadi
def test_chain_regressor_route_closed_derives_the_closed_form(monkeypatch):
    arm = ld.zoo.get("planar_3r", parameters="symbolic")
    params = ld.robot.regressor.standard_parameters_of(arm)
    calls = []
    derive = ld.identification.casadi.regressor

    def spy(*args, **kwargs):
        calls.append(kwargs.get("route"))
        return derive(*args, **kwargs)

    monkeypatch.setattr(ld.identification.casadi, "regressor", spy)
    closed = arm.to_casadi(arm.defaults, regressor_params=params, route="closed").regressor
    assert calls == ["closed"]
    default = arm.to_casadi(arm.defaults)  # route=None; a chain's default π: its standard ones
    assert default.regressor_params == params
    rec = default.regressor
    assert calls == ["closed"]  # the recursive program, no closed form
    rng = np.random.default_rng(8)
    for q, qd, qdd in rng.uniform(-2, 2, (3, 3, 3)):
        close(rec(q, qd, qdd).full(), closed(q, qd, qdd).full())


def test_missing_casadi_is_a_backend_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "casadi", None)  # import casadi now raises ImportError
    dp = ld.zoo.double_pendulum()
    with pytest.raises(BackendUnavailableError, match=r"pip install 'lagdyn\[casadi\]'"):
        dp.to_casadi(dp.defaults)
    with pytest.raises(BackendUnavailableError, match="casadi"):
        code.generate(dp, "casadi", name="dp")


@needs_casadi
def test_sympy_nodes_map_to_casadi_operations():
    from lagdyn.codegen.casadi import to_sx

    x, y = sp.symbols("x y", real=True)
    X, Y = ca.SX.sym("x"), ca.SX.sym("y")
    exprs = [
        x**3 * y**-2 + sp.sqrt(x) / sp.sqrt(y) - x ** sp.Rational(3, 2),
        sp.atan2(y, x) + sp.tan(x) * sp.exp(-y) + sp.log(x) + sp.cosh(y) - sp.asin(x / 4),
        sp.sign(y - x) * sp.Abs(y - x) + sp.Min(x, y, 1) + sp.Max(x, y) + sp.pi,
        sp.Piecewise((x, x > y), (y**2, sp.And(y >= x, x > 0)), (-1, True)) + x**y,
    ]
    f = ca.Function("f", [X, Y], [ca.vertcat(*[to_sx(e, {x: X, y: Y}) for e in exprs])])
    for xv, yv in [(0.7, 1.9), (2.5, 0.3), (1.0, 1.0)]:
        want = [float(e.subs({x: xv, y: yv}).evalf(30)) for e in exprs]
        close(f(xv, yv).full().ravel(), want)
    with pytest.raises(LagdynError, match="gamma"):
        to_sx(sp.gamma(x), {x: X})
    with pytest.raises(LagdynError, match="neither an input"):
        to_sx(x + y, {x: X})


@needs_casadi
def test_graphs_keep_the_cse_of_the_program():
    """Intermediates become shared nodes: the graph is as small as the program."""
    from lagdyn.codegen.casadi import kernel_function

    q0, w = sp.Symbol("q_0"), sp.Symbol("w")
    big = sum(sp.sin(q0 * k) for k in range(1, 30))
    prog = program([(w, big)], {"f": [w * w, w + 1]}, {"q": [q0]})
    f = kernel_function(prog, prog.kernels["f"])
    assert f.n_instructions() < 4 * 30 + 20  # w computed once, not three times
    assert f.name_in() == ["q"] and f.name_out() == ["f"]


@needs_casadi
def test_export_files_load_back_and_agree(tmp_path, capsys):
    out = tmp_path / "cp"
    assert main(["export", "cart_pole", "-t", "casadi", "--out", str(out), "--bind-defaults"]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(
        [f"cart_pole_{k}.casadi" for k in ("M", "C", "g", "h", "energy")]
        + ["cart_pole_inverse_dynamics.casadi", "cart_pole_forward_dynamics.casadi"]
        + ["cart_pole_README.md"]
    )
    readme = (out / "cart_pole_README.md").read_text()
    assert "Function.load" in readme and "q[0..1]: [0] = x, [1] = theta" in readme
    _, _, num = _pair("cart_pole")
    load = {k: ca.Function.load(str(out / f"cart_pole_{k}.casadi")) for k in ("M", "h")}
    fd = ca.Function.load(str(out / "cart_pole_forward_dynamics.casadi"))
    q, qd, u = np.array([0.1, 2.9]), np.array([0.4, -1.2]), np.array([2.0, 0.0])
    close(load["M"](q).full(), num.M(q))
    close(col(load["h"](q, qd)), num.bias(q, qd))
    close(col(fd(q, qd, u)), num.forward_dynamics(q, qd, u))
    # every file or none: nothing is overwritten without --force
    before = (out / "cart_pole_M.casadi").read_bytes()
    assert main(["export", "cart_pole", "-t", "casadi", "--out", str(out)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert (out / "cart_pole_M.casadi").read_bytes() == before
    # free parameters: p in the order the README lists
    files = code.generate(ld.zoo.double_pendulum(), "casadi", name="dp")
    assert (
        "free parameters: p[0] = g, p[1] = l1, p[2] = l2, p[3] = m1, p[4] = m2"
        in files["dp_README.md"]
    )


@needs_casadi
def test_swing_up_converges_and_the_lqr_keeps_it_up():
    spec = importlib.util.spec_from_file_location("casadi_swingup", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)  # defines the functions; main() does not run
    cp = ld.zoo.cart_pole()
    t, q, qd, F, status = example.swing_up(cp.to_casadi(cp.defaults))
    assert status == "Solve_Succeeded"
    np.testing.assert_allclose(q[0], [0.0, np.pi], atol=1e-9)
    np.testing.assert_allclose(q[-1], [0.0, 0.0], atol=1e-9)
    assert np.abs(F).max() <= example.F_MAX + 1e-6 and np.abs(q[:, 0]).max() <= 1.0 + 1e-6
    res, caught = example.replay(cp, t, F, example.lqr_gain(cp))
    assert caught is not None and caught < example.T + 0.5
    after = res.t > caught + 2.0  # from two seconds after the catch to the end: upright
    theta = np.arctan2(np.sin(res.q[:, 1]), np.cos(res.q[:, 1]))
    assert np.abs(theta[after]).max() < 0.05 and np.abs(res.q[after, 0]).max() < 0.5
    assert abs(theta[-1]) < 1e-2 and abs(res.qd[-1]).max() < 1e-2
