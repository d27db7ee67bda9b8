"""lagdyn.recursive.route: the recursive numeric route of a robot chain against the closed form."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from helpers import closed_numeric, recursive, rel, states, tree_model, zoo
from lagdyn.codegen import Binding

_KERNEL_ARGS = {
    "M": ("q",),
    "C": ("q", "qd"),
    "g": ("q",),
    "bias": ("q", "qd"),
    "energy": ("q", "qd"),
    "forward_dynamics": ("q", "qd", "u"),
    "inverse_dynamics": ("q", "qd", "u"),
}


def _route_model(system, route, backend, params=None, **kw):
    pytest.importorskip("cffi") if backend == "c" else None
    try:
        return system.lambdify(
            system.defaults if params is None else params, route=route, backend=backend, **kw
        )
    except ld.BackendUnavailableError as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize(
    ("name", "backend"),
    # the tree: prismatic, continuous and fixed joints, a branch; C compiles one arm, the
    # planar one (the spatial closed form takes 10 s more to compile; its kernels are
    # compared on numpy)
    [("planar_3r", "numpy"), ("spatial_3r", "numpy"), ("planar_3r", "c"), ("tree", "numpy")],
)
def test_recursive_route_matches_closed_route(name, backend):
    arm = tree_model()["tree"] if name == "tree" else zoo(name)
    n = arm.n
    rec = _route_model(arm, "recursive", backend)
    closed = _route_model(arm, "closed", backend)
    assert (rec.route, closed.route) == ("recursive", "closed")
    assert rec.key != closed.key
    rng = np.random.default_rng(7)
    x = {k: rng.uniform(-2, 2, (4, n)) for k in ("q", "qd", "u")}
    for kernel, names in _KERNEL_ARGS.items():
        args = [x[k] for k in names]
        a, b = getattr(rec, kernel)(*args), getattr(closed, kernel)(*args)
        assert rel(a, b) < 1e-12, kernel
        one = getattr(rec, kernel)(*(v[0] for v in args))  # one-state entry point
        assert rel(one, b[0]) < 1e-12, kernel


def test_recursive_route_is_default_from_four_joints_and_puma_gravity():
    puma = zoo("puma560")
    assert puma.defaults == {sp.Symbol("g", positive=True): 9.81}
    num = recursive("puma560")
    default = puma.numeric_plan(Binding(puma.parameters, {"g": 9.81}), "numpy")
    assert default[:2] == ("recursive", num.key)  # the default route, same kernels
    assert num.free_parameters == ()
    np.testing.assert_allclose(num.g(np.zeros(6)), [0, 37.4837, 0.2489, 0, 0, 0], atol=5e-5)
    M_closed, g_closed, U_closed = closed_numeric(puma)
    for q, qd, _qdd, _ in states(6, 11, count=2):
        assert rel(num.g(q), g_closed(q)) < 1e-12
        assert rel(num.M(q), M_closed(q)) < 1e-12
        # energy at rest is the potential of the closed form
        assert abs(num.energy(q, 0 * qd) - U_closed(q)) < 1e-12 * (1 + abs(U_closed(q)))
    assert zoo("planar_3r").lambdify(zoo("planar_3r").defaults).route == "closed"


def test_recursive_route_ur5_is_consistent_with_the_closed_form():
    ur5 = zoo("ur5")
    num = recursive("ur5")
    M_closed, g_closed, U_closed = closed_numeric(ur5)
    for q, qd, qdd, _ in states(6, 12, count=2):
        M = M_closed(q)
        assert rel(num.M(q), M) < 1e-12
        assert rel(num.g(q), g_closed(q)) < 1e-12
        E = 0.5 * qd @ M @ qd + U_closed(q)
        assert abs(num.energy(q, qd) - E) < 1e-12 * (1 + abs(E))
        # RNEA τ against CRBA M, bias and the recursive C: τ = M q̈ + C q̇ + g
        tau = num.inverse_dynamics(q, qd, qdd)
        assert rel(tau, M @ qdd + num.bias(q, qd)) < 1e-12
        assert rel(num.bias(q, qd), num.C(q, qd) @ qd + num.g(q)) < 1e-12
        assert rel(num.forward_dynamics(q, qd, tau), qdd) < 1e-10


def test_recursive_route_skew_symmetry_along_a_trajectory():
    """Ṁ from central differences of the generated M along q(t) = a + b sin t; Ṁ − 2C skew."""
    num = recursive("ur5")
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-1.5, 1.5, 6), rng.uniform(-1, 1, 6)
    dt = 1e-5
    for t in (0.0, 0.7, 1.9):
        q, qd = a + b * np.sin(t), b * np.cos(t)
        Mdot = (num.M(a + b * np.sin(t + dt)) - num.M(a + b * np.sin(t - dt))) / (2 * dt)
        N = Mdot - 2 * num.C(q, qd)
        scale = np.max(np.abs(Mdot))
        assert scale > 1e-2  # the test would notice a wrong C
        assert np.max(np.abs(N + N.T)) < 1e-7 * scale
        # and C is the C of the dynamics: Ṁ = C + Cᵀ
        assert np.max(np.abs(Mdot - num.C(q, qd) - num.C(q, qd).T)) < 1e-7 * scale


def test_recursive_route_free_parameters_friction_and_cache(tmp_path):
    sym = ld.zoo.get("planar_3r", parameters="symbolic")
    num = sym.lambdify({"g": 9.81}, route="recursive", cache_dir=tmp_path)
    assert "g" not in {s.name for s in num.free_parameters}
    values = {s: sym.defaults[s] for s in num.free_parameters}
    ref = _route_model(zoo("planar_3r"), "recursive", "numpy")
    q, qd, qdd, _ = states(3, 5, count=1)[0]
    assert rel(num.M(q, params=values), ref.M(q)) < 1e-12
    assert (
        rel(num.inverse_dynamics(q, qd, qdd, params=values), ref.inverse_dynamics(q, qd, qdd))
        < 1e-12
    )
    again = sym.lambdify({"g": 9.81}, route="recursive", cache_dir=tmp_path)  # from the cache
    assert again.key == num.key and rel(again.C(q, qd, params=values), ref.C(q, qd)) < 1e-12
    spec = {"m": 1, "com": (-0.5, 0, 0), "armature": 0.3, "viscous": 0.2, "coulomb": 0.1}
    arm = ld.robot.from_dh([(0, 1, 0)] * 2, inertia=[spec] * 2, parameters="numeric", friction=True)
    rec = arm.lambdify({"g": 9.81}, route="recursive", cache=False)
    closed = arm.lambdify({"g": 9.81}, route="closed", cache=False)
    v = np.array([0.5, -0.7])
    for kernel in ("bias", "inverse_dynamics", "forward_dynamics"):
        args = (q[:2], v) + ((qdd[:2],) if kernel != "bias" else ())
        assert rel(getattr(rec, kernel)(*args), getattr(closed, kernel)(*args)) < 1e-12


def test_route_errors():
    dp = ld.zoo.double_pendulum()
    with pytest.raises(ld.LagdynError, match="robot chain"):
        dp.lambdify(dp.defaults, route="recursive")
    assert dp.lambdify(dp.defaults, route="closed").route == "closed"
    with pytest.raises(ld.LagdynError, match="unknown route 'fast'"):
        zoo("planar_3r").lambdify(route="fast")
    with pytest.raises(ld.LagdynError, match="unknown route"):
        dp.lambdify(dp.defaults, route="Recursive")
    sym = ld.zoo.get("planar_3r", parameters="symbolic")
    zeros = {s: 0 for s in sym.parameters if s.name != "g"}  # no inertia at all
    with pytest.raises(ld.SingularMassMatrixError, match="singular"):
        sym.lambdify(zeros, route="recursive", cache=False)
