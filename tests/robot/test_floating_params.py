"""Per-call parameters of floating-base robots: ``FloatingRobot.lambdify(free=...)`` and
``params=`` on every kernel of the ``FloatingModel``, its contacts and friction steps.

Before this work every parameter of a floating-base model was folded in at generation
(``lambdify`` had no ``free`` and no method took ``params``), so every test here fails on
the old code. The references are independent: the fully bound model generated at the same
values, and Pinocchio's crba / rnea / aba / ... with ``model.inertias`` set to the values.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagdyn as ld
from lagdyn.recursive.floating import FLOATING_KERNELS
from lagdyn.robot.floating import EXAMPLE_URDF

QUAD = Path(__file__).resolve().parent.parent / "data" / "quadruped_toy.urdf"
FEET = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
TOL = 1e-9
#: Pinocchio's dynamic parameters of a body, in order, as lagdyn's standard parameters
DYNAMIC = ("M", "MX", "MY", "MZ", "XX", "XY", "YY", "XZ", "YZ", "ZZ")


@pytest.fixture(scope="module")
def pin():
    return pytest.importorskip("pinocchio", reason="Pinocchio (pip install pin) is not installed")


def _rel(x, y):
    return float(np.max(np.abs(np.asarray(x) - y)) / max(1.0, float(np.max(np.abs(y)))))


def _bodies(robot):
    """The number of bodies: the base (index 0) and one per joint (Pinocchio joint k + 1)."""
    return robot.n + 1


def _draw(robot, rng, g=9.81):
    """Physically consistent inertial parameters of every body (random mass, centre of
    mass and rotated principal inertia about it, triangle inequality kept), and g."""
    values = {"g": g}
    for k in range(_bodies(robot)):
        m = rng.uniform(0.1, 2.0)
        c = rng.uniform(-0.1, 0.1, 3)
        d = rng.uniform(0.001, 0.01, 3)
        R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        Ic = R @ np.diag([d[1] + d[2], d[0] + d[2], d[0] + d[1]]) @ R.T
        Io = Ic + m * (c @ c * np.eye(3) - np.outer(c, c))
        h = m * c
        entries = {
            "M": m,
            "MX": h[0],
            "MY": h[1],
            "MZ": h[2],
            "XX": Io[0, 0],
            "XY": Io[0, 1],
            "XZ": Io[0, 2],
            "YY": Io[1, 1],
            "YZ": Io[1, 2],
            "ZZ": Io[2, 2],
        }
        values.update({f"{name}{k}": float(v) for name, v in entries.items()})
    return values


def _pin_xml(xml):
    """``xml`` with joint limits, which Pinocchio's URDF parser requires of revolute joints."""
    return re.sub(
        r"(<axis [^>]*/>)", r'\1<limit lower="-9" upper="9" effort="9" velocity="9"/>', xml
    )


def _pin_model(pin, xml, values):
    """Pinocchio's free-flyer model of ``xml`` with every body's inertia and gravity set
    from lagdyn's parameter ``values`` (names ``M0``, ``XX3``, ``g`` …)."""
    model = pin.buildModelFromXML(_pin_xml(xml), pin.JointModelFreeFlyer())
    for k in range(model.njoints - 1):
        dyn = np.array([values[f"{name}{k}"] for name in DYNAMIC])
        model.inertias[k + 1] = pin.Inertia.FromDynamicParameters(dyn)
    model.gravity.linear = np.array([0.0, 0.0, -values["g"]])
    return model


def _pin_refs(pin, model, q, v, a):
    """Pinocchio's value of every kernel at one state."""
    data = model.createData()
    M = pin.crba(model, data, q)
    E = pin.computeKineticEnergy(model, data, q, v) + pin.computePotentialEnergy(model, data, q)
    return {
        "M": np.triu(M) + np.triu(M, 1).T,
        "C": pin.computeCoriolisMatrix(model, data, q, v),
        "g": pin.computeGeneralizedGravity(model, data, q),
        "bias": pin.nonLinearEffects(model, data, q, v),
        "inverse_dynamics": pin.rnea(model, data, q, v, a),
        "forward_dynamics": pin.aba(model, data, q, v, a),
        "energy": np.array(E),
        "centroidal_map": pin.computeCentroidalMap(model, data, q).copy(),
        "centroidal_bias": pin.computeCentroidalMapTimeVariation(model, data, q, v) @ v,
    }


def _states(robot, rng, count):
    q = np.tile(robot.neutral(), (count, 1))
    q[:, :3] = rng.normal(size=(count, 3))
    quat = rng.normal(size=(count, 4))
    q[:, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    q[:, 7:] = rng.uniform(-1, 1, (count, robot.n))
    return q, rng.normal(size=(count, robot.nv)), rng.normal(size=(count, robot.nv))


def _calls(num, q, v, a, **kw):
    """Every kernel of ``num`` at (q, v, a)."""
    return {
        "M": num.M(q, **kw),
        "C": num.C(q, v, **kw),
        "g": num.g(q, **kw),
        "bias": num.nonlinear_effects(q, v, **kw),
        "inverse_dynamics": num.inverse_dynamics(q, v, a, **kw),
        "forward_dynamics": num.forward_dynamics(q, v, a, **kw),
        "energy": num.energy(q, v, **kw),
        "centroidal_map": num.centroidal_map(q, **kw),
        "centroidal_bias": num.centroidal_bias(q, v, **kw),
    }


# ------------------------------------------------------------------ the quadruped, numpy
@pytest.fixture(scope="module")
def quad():
    return ld.robot.from_urdf(QUAD, base="floating")


@pytest.fixture(scope="module")
def quad_free(quad):
    return quad.lambdify(free="all")


@pytest.fixture(scope="module")
def draw_a(quad):
    return _draw(quad, np.random.default_rng(1), g=9.81)


@pytest.fixture(scope="module")
def quad_bound(quad, draw_a):
    """The fully bound model at ``draw_a`` (every value folded into the code)."""
    return quad.lambdify(draw_a)


def test_defaults_are_pinocchio_inertias(pin, quad):
    """The parameter names map to Pinocchio's bodies as ``_pin_model`` assumes: at the
    URDF's values, each body's ten parameters are its ``toDynamicParameters()``."""
    model = pin.buildModelFromXML(_pin_xml(QUAD.read_text()), pin.JointModelFreeFlyer())
    byname = {s.name: v for s, v in quad.defaults.items()}
    assert model.njoints - 1 == _bodies(quad)
    for k in range(model.njoints - 1):
        ours = [byname[f"{name}{k}"] for name in DYNAMIC]
        np.testing.assert_allclose(ours, model.inertias[k + 1].toDynamicParameters(), atol=1e-12)


def test_free_model_layout(quad, quad_free, quad_bound):
    assert quad_free.free_parameters == quad.parameters  # "all", in the robot's order
    assert not quad_free.bound and not quad_bound.free_parameters
    assert "free parameters: M0" in repr(quad_free)
    assert quad_free.key != quad_bound.key


def test_numpy_per_call_equals_bound_model(quad, quad_free, quad_bound, draw_a):
    """Every kernel, a batch of states with one set of values (a mapping of scalars) and
    the same values as an array row: equal to the model with them folded in."""
    q, v, a = _states(quad, np.random.default_rng(2), 4)
    ref = _calls(quad_bound, q, v, a)
    got = _calls(quad_free, q, v, a, params=draw_a)
    row = np.array([draw_a[s.name] for s in quad_free.free_parameters])
    arr = _calls(quad_free, q, v, a, params=row)
    assert set(ref) == set(FLOATING_KERNELS)
    for k in FLOATING_KERNELS:
        assert np.shape(got[k]) == np.shape(ref[k]), k
        assert _rel(got[k], ref[k]) < 1e-12, k
        assert _rel(arr[k], ref[k]) < 1e-12, k
    # one state: the scalar path
    one = quad_free.forward_dynamics(q[0], v[0], a[0], params=draw_a)
    assert _rel(one, ref["forward_dynamics"][0]) < 1e-12


def test_numpy_per_state_values_against_pinocchio(pin, quad, quad_free):
    """Two draws at once (params (2, n_free) against states (2, nq)): each row is
    Pinocchio's with that draw's inertias and gravity, for every kernel."""
    rng = np.random.default_rng(3)
    draws = [_draw(quad, rng, g=9.81), _draw(quad, rng, g=3.71)]
    names = [s.name for s in quad_free.free_parameters]
    P = np.array([[d[n] for n in names] for d in draws])
    q, v, a = _states(quad, rng, 2)
    batched = _calls(quad_free, q, v, a, params=P)
    xml = QUAD.read_text()
    for i, d in enumerate(draws):
        ref = _pin_refs(pin, _pin_model(pin, xml, d), q[i], v[i], a[i])
        one = _calls(quad_free, q[i], v[i], a[i], params=d)  # one state, a mapping
        for k in FLOATING_KERNELS:
            assert _rel(batched[k][i], ref[k]) < TOL, k
            assert _rel(one[k], ref[k]) < TOL, k


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    scales=st.lists(st.floats(0.05, 20.0), min_size=9, max_size=9),
    joints=st.lists(st.floats(-3.0, 3.0), min_size=8, max_size=8),
)
def test_random_positive_masses_against_pinocchio(pin, quad, quad_free, scales, joints):
    """Each body scaled by a random positive factor (its mass, first moment and inertia:
    the same body in a denser material): M and forward dynamics are Pinocchio's."""
    values = {s.name: float(v) for s, v in quad.defaults.items()}
    for k, s in enumerate(scales):
        for name in DYNAMIC:
            values[f"{name}{k}"] *= s
    model = _pin_model(pin, QUAD.read_text(), values)
    data = model.createData()
    q = quad.neutral()
    q[7:] = joints
    v, tau = np.linspace(-1, 1, quad.nv), np.linspace(1, -2, quad.nv)
    M = pin.crba(model, data, q)
    assert _rel(quad_free.M(q, params=values), np.triu(M) + np.triu(M, 1).T) < TOL
    acc = pin.aba(model, data, q, v, tau)
    assert _rel(quad_free.forward_dynamics(q, v, tau, params=values), acc) < TOL


# ------------------------------------------------------------------ C (the biped toy)
def test_c_per_call_equals_bound_models():
    """The C backend, every kernel, values broadcast against the states (params
    (2, 1, n_free), states (3, nq) → (2, 3)), equal to the fully bound model of each draw."""
    robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
    num = robot.lambdify(free="all", backend="c")
    rng = np.random.default_rng(4)
    draws = [_draw(robot, rng, 9.81), _draw(robot, rng, 1.62)]
    names = [s.name for s in num.free_parameters]
    P = np.array([[[d[n] for n in names]] for d in draws])  # (2, 1, n_free)
    q, v, a = _states(robot, rng, 3)
    got = _calls(num, q, v, a, params=P)
    for i, d in enumerate(draws):
        ref = _calls(robot.lambdify(d), q, v, a)  # numpy, every value folded in
        for k in FLOATING_KERNELS:
            assert got[k].shape == (2, *ref[k].shape), k
            assert _rel(got[k][i], ref[k]) < 1e-12, k
        single = num.inverse_dynamics(q[0], v[0], a[0], params=d)  # one state, C scalar entry
        assert _rel(single, ref["inverse_dynamics"][0]) < 1e-12


# ------------------------------------------------------------------ refusals
def test_bad_values_are_named(quad, quad_free, quad_bound, draw_a):
    q = quad.neutral()
    some = quad.lambdify(kernels=["M"], free=["M0", "g"])
    assert [s.name for s in some.free_parameters] == ["M0", "g"]
    with pytest.raises(ld.UnboundParameterError, match="g"):
        some.M(q, params={"M0": 2.0})
    with pytest.raises(ld.UnboundParameterError, match="M0, g"):
        some.M(q)
    with pytest.raises(ld.LagdynError, match="M1 were bound in lambdify"):
        some.M(q, params={"M0": 2.0, "g": 9.81, "M1": 1.0})
    with pytest.raises(ld.LagdynError, match="mass are not parameters of this model"):
        some.M(q, params={"M0": 2.0, "g": 9.81, "mass": 1.0})
    with pytest.raises(ld.LagdynError, match=r"params\[M0\] = -1.0 breaks .* nonnegative"):
        some.M(q, params={"M0": -1.0, "g": 9.81})
    with pytest.raises(ld.LagdynError, match=r"params\[g\] \(batch index \(1,\)\) .* positive"):
        some.M(q, params={"M0": 2.0, "g": [9.81, 0.0]})
    with pytest.raises(ld.LagdynError, match="params has shape"):
        some.M(q, params=np.ones(3))
    with pytest.raises(ld.LagdynError, match="batch shapes do not broadcast"):
        some.M(np.tile(q, (3, 1)), params=np.ones((2, 2)))
    with pytest.raises(ld.LagdynError, match="M0 were bound in lambdify"):
        quad_bound.M(q, params={"M0": 2.0})
    with pytest.raises(ld.LagdynError, match="no free parameters"):
        quad_bound.M(q, params=[1.0])
    # at generation
    with pytest.raises(ld.LagdynError, match="free: mass is not a parameter"):
        quad.lambdify(kernels=["M"], free=["M0", "mass"])
    with pytest.raises(ld.LagdynError, match="M0 given a value in params and named in free"):
        quad.lambdify({"M0": 1.0}, kernels=["M"], free=["M0"])
    with pytest.raises(ld.LagdynError, match="free must be"):
        quad.lambdify(kernels=["M"], free="M0")
    with pytest.raises(ld.LagdynError, match=r"params\[M1\] = -2 breaks"):
        quad.lambdify({"M1": -2}, kernels=["M"], free=["M0"])


# ------------------------------------------------------------------ contacts and friction
def test_contacts_take_params(quad, quad_free, quad_bound, draw_a):
    """Contact dynamics, impulses, statics and a frictional step with per-call values are
    those of the bound model; the frames' kernels do not read the free parameters; the
    fused contact kernel is refused by name. (The legs are planar: four point feet are
    redundant, so the KKT solves use two.)"""
    rng = np.random.default_rng(5)
    q, v, tau = _states(quad, rng, 2)
    free_c, bound_c = quad_free.contacts(FEET), quad_bound.contacts(FEET)
    free_2, bound_2 = quad_free.contacts(FEET[::3]), quad_bound.contacts(FEET[::3])
    np.testing.assert_allclose(free_c.jacobian(q), bound_c.jacobian(q), rtol=0, atol=1e-14)
    for got, ref in zip(
        free_2.dynamics(q, v, tau, params=draw_a),
        bound_2.dynamics(q, v, tau),
    ):
        assert _rel(got, ref) < 1e-10
    for got, ref in zip(
        free_2.impulse(q, v, params=draw_a),
        bound_2.impulse(q, v),
    ):
        assert _rel(got, ref) < 1e-10
    stand = quad.neutral()
    stand[7:] = [0.6, -1.2] * 4
    for got, ref in zip(free_c.statics(stand, params=draw_a), bound_c.statics(stand)):
        assert _rel(got, ref) < 1e-10
    lifted = stand.copy()
    lifted[2] = 0.25
    s_free = free_c.step(lifted, np.zeros(quad.nv), np.zeros(quad.nv), 0.01, mu=0.8, params=draw_a)
    s_ref = bound_c.step(lifted, np.zeros(quad.nv), np.zeros(quad.nv), 0.01, mu=0.8)
    assert _rel(s_free.v, s_ref.v) < 1e-10 and _rel(s_free.q, s_ref.q) < 1e-10
    with pytest.raises(ld.UnboundParameterError):
        free_2.dynamics(q, v, tau)
    with pytest.raises(ld.LagdynError, match="fused contact kernel .* leaves M0, M1"):
        quad_free.contacts(FEET, fused=True)
    # the model's own RK4 step holds the values too
    q1, v1 = quad_free.step(q[0], v[0], tau[0], 1e-3, params=draw_a)
    r1, w1 = quad_bound.step(q[0], v[0], tau[0], 1e-3)
    assert _rel(q1, r1) < 1e-12 and _rel(v1, w1) < 1e-12


def test_solo12_all_parameters_against_pinocchio(pin):
    """Solo12 (example-robot-data), all 131 parameters free: M, h and aba at a random
    physically consistent draw are Pinocchio's with those inertias (numpy; about 2 s)."""
    from lagdyn.robot._data import urdf_path

    try:
        path = urdf_path("solo_description", "solo12.urdf")
    except ld.LagdynError as exc:
        pytest.skip(str(exc))
    robot = ld.robot.from_urdf(path, base="floating")
    num = robot.lambdify(free="all", kernels=["M", "bias", "forward_dynamics"])
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    byname = {s.name: v for s, v in robot.defaults.items()}
    for k in range(model.njoints - 1):  # the names map to Pinocchio's bodies
        ours = [byname[f"{name}{k}"] for name in DYNAMIC]
        np.testing.assert_allclose(ours, model.inertias[k + 1].toDynamicParameters(), atol=1e-9)
    rng = np.random.default_rng(6)
    values = _draw(robot, rng, g=9.81)
    for k in range(model.njoints - 1):
        dyn = np.array([values[f"{name}{k}"] for name in DYNAMIC])
        model.inertias[k + 1] = pin.Inertia.FromDynamicParameters(dyn)
    data = model.createData()
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    M = pin.crba(model, data, q)
    assert _rel(num.M(q, params=values), np.triu(M) + np.triu(M, 1).T) < TOL
    nle = pin.nonLinearEffects(model, data, q, v)
    assert _rel(num.nonlinear_effects(q, v, params=values), nle) < TOL
    acc = pin.aba(model, data, q, v, tau)
    assert _rel(num.forward_dynamics(q, v, tau, params=values), acc) < TOL
