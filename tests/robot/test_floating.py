"""Floating bases (issue 26, items 1–2): from_urdf(base="floating"), the floating-base
programs (RNEA, CRBA, ABA, CRBA + LDLᵀ, Coriolis) and q ⊕ v, against Pinocchio's
JointModelFreeFlyer on our small tree (tests/data/floating_toy.urdf), Solo12 and Go1.

Before this work ``from_urdf(..., base="floating")`` and a URDF ``floating`` joint were
refused, so every test here fails on the old code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.recursive import floating as rfloating
from lagdyn.robot.floating import FloatingModel, FloatingRobot, difference, integrate

DATA = Path(__file__).resolve().parent.parent / "data"
TOY = DATA / "floating_toy.urdf"
DECLARED = DATA / "floating_toy_declared.urdf"
TOL = 1e-9


@pytest.fixture(scope="module")
def pin():
    return pytest.importorskip("pinocchio", reason="Pinocchio (pip install pin) is not installed")


@pytest.fixture(scope="module")
def toy():
    return ld.robot.from_urdf(TOY, base="floating", parameters="numeric")


@pytest.fixture(scope="module")
def toy_num(toy):
    return toy.lambdify({"g": 9.81}, cse=False)


def _rel(x, y):
    return float(np.max(np.abs(np.asarray(x) - y)) / max(1.0, float(np.max(np.abs(y)))))


def _states(pin, model, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        out.append((q, rng.normal(size=model.nv), rng.normal(size=model.nv)))
    return out


def _check(pin, model, num, *, count=3, seed=0, kernels=None):
    """Every kernel of ``num`` against Pinocchio at random states, 1e-9 relative."""
    data = model.createData()
    have = kernels or rfloating.FLOATING_KERNELS
    for q, v, a in _states(pin, model, count, seed):
        if "M" in have:
            M = pin.crba(model, data, q)
            assert _rel(num.M(q), np.triu(M) + np.triu(M, 1).T) < TOL
        if "bias" in have:
            assert _rel(num.nonlinear_effects(q, v), pin.nonLinearEffects(model, data, q, v)) < TOL
        if "g" in have:
            assert _rel(num.g(q), pin.computeGeneralizedGravity(model, data, q)) < TOL
        if "inverse_dynamics" in have:
            assert _rel(num.inverse_dynamics(q, v, a), pin.rnea(model, data, q, v, a)) < TOL
        if "forward_dynamics" in have:
            assert _rel(num.forward_dynamics(q, v, a), pin.aba(model, data, q, v, a)) < TOL
        if "C" in have:
            assert _rel(num.C(q, v), pin.computeCoriolisMatrix(model, data, q, v)) < TOL
        if "centroidal_map" in have:
            assert _rel(num.centroidal_map(q), pin.computeCentroidalMap(model, data, q)) < TOL
        if "centroidal_bias" in have:
            dA = pin.computeCentroidalMapTimeVariation(model, data, q, v)
            assert _rel(num.centroidal_bias(q, v), dA @ v) < TOL
        if "energy" in have:
            E = pin.computeKineticEnergy(model, data, q, v)
            E += pin.computePotentialEnergy(model, data, q)
            assert abs(num.energy(q, v) - E) < TOL * max(1.0, abs(E))


# ------------------------------------------------------------------ our small tree
def test_toy_is_a_floating_robot(toy):
    assert isinstance(toy, FloatingRobot)
    assert (toy.nq, toy.nv, toy.joint_names) == (10, 9, ("hip", "knee", "shoulder"))
    assert toy.base.name == "trunk"
    assert toy.base.mass == sp.Rational(37, 10)  # the welded battery is part of the base


def test_toy_against_pinocchio(pin, toy_num):
    model = pin.buildModelFromUrdf(str(TOY), pin.JointModelFreeFlyer())
    _check(pin, model, toy_num, count=4)


def test_toy_forward_by_crba_ldlt(pin, toy):
    num = toy.lambdify({"g": 9.81}, forward="crba", kernels=["forward_dynamics"], cse=False)
    model = pin.buildModelFromUrdf(str(TOY), pin.JointModelFreeFlyer())
    _check(pin, model, num, kernels=["forward_dynamics"])
    with pytest.raises(ld.LagdynError, match="no M kernel"):
        num.M(toy.neutral())


def test_declared_floating_joint_is_the_free_flyer(pin):
    """A file with world →(floating, origin turned by π/2 about y)→ trunk: the free flyer
    without asking, gravity seen in the joint's frame, as pin.buildModelFromUrdf does."""
    robot = ld.robot.from_urdf(DECLARED, parameters="numeric")
    assert isinstance(robot, FloatingRobot)
    assert str(list(robot.chain.gravity)) == "[g, 0, 0]"  # Ry(π/2)ᵀ (0, 0, −g)
    model = pin.buildModelFromUrdf(str(DECLARED))
    assert model.nq == 10 and model.nv == 9
    _check(
        pin,
        model,
        robot.lambdify({"g": 9.81}, kernels=["g", "bias"], cse=False),
        kernels=["g", "bias"],
    )


def test_symbolic_parameters_with_defaults_agree(toy, toy_num):
    sym = ld.robot.from_urdf(TOY, base="floating")
    assert {"M0", "MX0", "XX0"} <= {s.name for s in sym.parameters}
    num = sym.lambdify(kernels=["inverse_dynamics"], cse=False)  # defaults, g = 9.81
    rng = np.random.default_rng(3)
    q = toy.neutral() + np.r_[rng.normal(size=3), 0, 0, 0, 0, rng.normal(size=3)]
    q[3:7] = rng.normal(size=4)
    v, a = rng.normal(size=9), rng.normal(size=9)
    assert _rel(num.inverse_dynamics(q, v, a), toy_num.inverse_dynamics(q, v, a)) < 1e-12


# ------------------------------------------------------------------ exact structure
def test_mass_matrix_reads_the_joints_only(toy):
    """M's base block (and all of M) depends on the joint values only: the CRBA program
    reads no entry of the base position or quaternion — exact, by its inputs."""
    prog = rfloating.program(toy.base, "M")
    read = set().union(
        *(e.free_symbols for _, e in prog.body), *(e.free_symbols for e in prog.outputs)
    )
    assert not read & set(prog.inputs["q"][:7])
    assert read & set(prog.inputs["q"][7:])  # it does read the joints
    g = rfloating.program(toy.base, "g")
    read_g = set().union(*(e.free_symbols for _, e in g.body), *(e.free_symbols for e in g.outputs))
    assert not read_g & set(g.inputs["q"][:3])  # gravity does not care where the base is


def test_skew_symmetry_is_exact(toy, monkeypatch):
    assert rfloating.is_skew_symmetric(toy.base, points=2, seed=1)
    sym = ld.robot.from_urdf(TOY, base="floating")
    assert rfloating.is_skew_symmetric(sym.base, points=1, seed=2)
    # a C with the right C v but not Christoffel-consistent is caught: move a base-row entry
    real = rfloating.program

    def tampered(fc, name, **kw):
        prog = real(fc, name, **kw)
        if name != "C":
            return prog
        outs = list(prog.outputs)
        w = prog.inputs["qd"]
        outs[0 * fc.nv + 7] += w[6]  # C[0, 7] += v_6 ...
        outs[0 * fc.nv + 6] -= w[7]  # ... C[0, 6] -= v_7: C v unchanged
        return rfloating.Program(prog.name, prog.inputs, prog.body, tuple(outs), prog.shape)

    monkeypatch.setattr(rfloating, "program", tampered)
    assert rfloating.is_skew_symmetric(toy.base, method="sampled", points=1, seed=3) is False
    assert rfloating.decide_skew(toy.base) is False


def test_skew_symmetry_is_decided_on_the_programs(toy):
    """The exact decision (expansion on the torus, no sampling): True for the toy with
    numbers and with symbolic parameters (for every value of them), and a proof that the
    mass matrix never reads the base pose; a wrong C is refuted (previous test)."""
    assert toy.is_skew_symmetric() is True
    sym = ld.robot.from_urdf(TOY, base="floating")
    assert sym.parameters  # symbolic masses and inertias
    assert sym.is_skew_symmetric() is True
    assert sym.is_mass_matrix_pose_independent() is True
    with pytest.raises(ld.LagdynError, match="method must be"):
        rfloating.is_skew_symmetric(toy.base, method="closed")


def test_skew_decision_is_undecided_with_a_constant_angle_and_a_wrong_c(toy, monkeypatch):
    # a URDF rpy of 0.1 puts cos(1/10) in the programs: only that point of its circle is
    # meant, so a residual that is nonzero elsewhere on the circle decides nothing
    from lagdyn.robot.floating import EXAMPLE_URDF

    robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating")
    assert robot.is_skew_symmetric() is True
    real = rfloating.program

    def tampered(fc, name, **kw):
        prog = real(fc, name, **kw)
        if name != "C":
            return prog
        outs = list(prog.outputs)
        outs[1] += prog.inputs["qd"][0]  # C[0, 1] += v_0: C + Cᵀ no longer Ṁ
        return rfloating.Program(prog.name, prog.inputs, prog.body, tuple(outs), prog.shape)

    monkeypatch.setattr(rfloating, "program", tampered)
    assert rfloating.decide_skew(robot.base) is None


def test_tumbling_robot_keeps_its_energy(toy_num, toy):
    """A free-floating robot under gravity for one second, RK4 on the manifold
    (FloatingModel.step, dt = 2 ms): energy drift below 1e-9 (measured 1.4e-10, 1e-11 at
    dt = 1 ms: fourth order; plain RK4 with q staged by integrate and no dexp⁻¹ drifts
    about 1e-5)."""
    rng = np.random.default_rng(17)
    q = toy.neutral()
    q[7:] = [0.3, 0.05, -0.4]
    v = 2 * rng.normal(size=9)
    E0 = toy_num.energy(q, v)
    tau = np.zeros(9)
    for _ in range(500):
        q, v = toy_num.step(q, v, tau, 2e-3)
    assert abs(toy_num.energy(q, v) - E0) < 1e-9 * abs(E0)
    assert abs(np.linalg.norm(q[3:7]) - 1) < 1e-14


# ------------------------------------------------------------------ configuration space
def test_integrate_and_difference_match_pinocchio(pin):
    model = pin.buildModelFromUrdf(str(TOY), pin.JointModelFreeFlyer())
    rng = np.random.default_rng(5)
    for scale in (2.0, 1.0, 1e-3, 1e-8, 0.0):
        for q, v, _ in _states(pin, model, 2, int(scale * 1000) + 7):
            v = v * scale
            assert _rel(integrate(q, v, 0.3), pin.integrate(model, q, 0.3 * v)) < 1e-12
            q1 = pin.integrate(model, q, v)
            assert _rel(difference(q, q1), pin.difference(model, q, q1)) < 1e-9
            assert _rel(integrate(q, difference(q, q1)), q1) < 1e-12
    # batches broadcast
    qs = np.stack([pin.randomConfiguration(model) for _ in range(4)])
    vs = rng.normal(size=(4, 9))
    assert np.allclose(
        integrate(qs, vs),
        np.stack([pin.integrate(model, q, v) for q, v in zip(qs, vs)]),
        atol=1e-12,
    )
    # half a turn: the angle in [0, π] as Pinocchio's log
    q0 = pin.neutral(model)
    q1 = q0.copy()
    q1[:3] = [1, 2, 3]
    q1[3:7] = [1, 0, 0, 0]
    assert _rel(difference(q0, q1), pin.difference(model, q0, q1)) < 1e-12


def test_quaternion_zero_norm_is_refused_and_others_normalized(toy, toy_num):
    q = toy.neutral()
    q[3:7] = 0
    for call in (
        lambda: toy_num.M(q),
        lambda: toy_num.forward_dynamics(q, np.zeros(9), np.zeros(9)),
        lambda: integrate(q, np.zeros(9)),
        lambda: difference(q, toy.neutral()),
        lambda: difference(toy.neutral(), q),
    ):
        with pytest.raises(ld.LagdynError, match="zero norm"):
            call()
    q[3:7] = [0.0, np.nan, 0.0, 1.0]
    with pytest.raises(ld.LagdynError, match="non-finite"):
        toy_num.g(q)
    q = toy.neutral()
    q[3:7] = [0.1, -0.7, 0.2, 0.5]
    scaled = q.copy()
    scaled[3:7] *= 3.0
    unit = q.copy()
    unit[3:7] /= np.linalg.norm(q[3:7])
    assert _rel(toy_num.g(scaled), toy_num.g(unit)) < 1e-14
    assert abs(np.linalg.norm(integrate(scaled, np.ones(9))[3:7]) - 1) < 1e-15
    # in a batch the first bad state is named (not the whole batch printed), and a huge but
    # finite quaternion, whose squares overflow, is not called zero
    batch = np.tile(toy.neutral(), (5, 1))
    batch[3, 3:7] = 0.0
    with pytest.raises(ld.LagdynError, match=r"zero norm at batch index \(3,\)"):
        toy_num.M(batch)
    batch[3, 3:7] = [0.0, 0.0, np.inf, 1.0]
    with pytest.raises(ld.LagdynError, match=r"non-finite entry at batch index \(3,\)"):
        toy_num.M(batch)
    batch[3, 3:7] = [0.0, 0.0, 0.0, 1e200]
    np.testing.assert_allclose(toy_num.M(batch)[3], toy_num.M(batch)[0], rtol=1e-14)


def test_shapes_and_bad_input(toy, toy_num):
    q = toy.neutral()
    assert toy_num.M(np.broadcast_to(q, (2, 3, 10))).shape == (2, 3, 9, 9)
    assert toy_num.forward_dynamics(q, np.zeros((5, 9)), np.zeros(9)).shape == (5, 9)
    with pytest.raises(ld.ShapeError, match=r"v has shape \(10,\), expected \(..., 9\)"):
        toy_num.C(q, np.zeros(10))
    with pytest.raises(ld.ShapeError, match="integrate needs"):
        integrate(q, np.zeros(10))
    sym = ld.robot.from_urdf(TOY, base="floating")
    with pytest.raises(ld.UnboundParameterError, match="M0"):
        FloatingRobot(sym.base).lambdify()  # the base's defaults were not handed over
    with pytest.raises(ld.LagdynError, match="kernels must be some of"):
        toy.lambdify({"g": 9.81}, kernels=["tau"])


URDF_HEAD = (
    '<robot name="r"><link name="world"/><link name="b"><inertial><mass value="1"/>'
    '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'
    '<link name="c"><inertial><mass value="1"/>'
    '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'
)


@pytest.mark.parametrize(
    ("body", "kwargs", "match"),
    [
        (
            '<joint name="f" type="floating"><parent link="world"/><child link="b"/></joint>'
            '<joint name="j" type="revolute"><parent link="b"/><child link="c"/></joint>',
            {"base": "fixed"},
            "declares the floating joint 'f', but base='fixed' was asked",
        ),
        (
            '<joint name="j" type="revolute"><parent link="world"/><child link="b"/></joint>'
            '<joint name="f" type="floating"><parent link="b"/><child link="c"/></joint>',
            {},
            "the floating joint 'f' does not start at the root link 'world'",
        ),
        (
            '<link name="d"/>'
            '<joint name="f" type="floating"><parent link="world"/><child link="b"/></joint>'
            '<joint name="j" type="revolute"><parent link="b"/><child link="c"/></joint>'
            '<joint name="k" type="revolute"><parent link="world"/><child link="d"/></joint>',
            {},
            "joint 'k' moves 'd' relative to the world 'world', beside the floating base 'b'",
        ),
        (
            '<joint name="f" type="floating"><parent link="world"/><child link="b"/></joint>'
            '<joint name="j" type="fixed"><parent link="b"/><child link="c"/></joint>',
            {},
            "a floating base 'b' without joints is one free rigid body",
        ),
    ],
)
def test_bad_floating_urdfs_are_named(body, kwargs, match):
    with pytest.raises(ld.LagdynError, match=match):
        ld.robot.from_urdf(URDF_HEAD + body + "</robot>", parameters="numeric", **kwargs)


def test_planar_base_is_the_floating_base_restricted(toy, toy_num):
    """base='planar': x, y, yaw joints under the root (a RobotSystem); its M is Jᵀ M_float J
    with J mapping (ẋ, ẏ, θ̇, q̇) to the base-frame velocity of the free flyer."""
    planar = ld.robot.from_urdf(TOY, base="planar", parameters="numeric")
    assert isinstance(planar, ld.robot.RobotSystem)
    assert planar.chain.joint_names[:3] == ("trunk_x", "trunk_y", "trunk_yaw")
    values = {"g": 9.81}
    M_planar = ld.recursive.crba(planar.chain).lambdify(values)
    h_planar = ld.recursive.rnea(planar.chain, qdd=False).lambdify(values)
    rng = np.random.default_rng(11)
    x, y, th, qj = *rng.normal(size=3), rng.normal(size=3)
    qp = np.r_[x, y, th, qj]
    qf = np.r_[x, y, 0, 0, 0, np.sin(th / 2), np.cos(th / 2), qj]
    c, s = np.cos(th), np.sin(th)
    J = np.zeros((9, 6))
    J[0:2, 0:2] = [[c, s], [-s, c]]  # Rᵀ (ẋ, ẏ)
    J[5, 2] = 1
    J[6:, 3:] = np.eye(3)
    assert _rel(M_planar(q=qp), J.T @ toy_num.M(qf) @ J) < 1e-12
    vp = rng.normal(size=6)
    h = J.T @ toy_num.nonlinear_effects(qf, J @ vp)
    # the planar h adds M J̇ v: J̇ v = (θ̇ Rᵀ' (ẋ, ẏ)) in the base-velocity rows
    Jd = np.zeros((9, 6))
    Jd[0:2, 0:2] = vp[2] * np.array([[-s, c], [-c, -s]])
    h = h + J.T @ toy_num.M(qf) @ Jd @ vp
    assert _rel(h_planar(q=qp, qd=vp), h) < 1e-12


@pytest.mark.parametrize("backend", ["c", "numba", "jax"])
def test_other_backends_agree_with_numpy(toy, toy_num, backend):
    if backend == "c":
        pytest.importorskip("cffi")
    else:
        pytest.importorskip(backend)
    if backend == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
    num = toy.lambdify({"g": 9.81}, backend=backend, kernels=["C", "forward_dynamics"])
    assert isinstance(num, FloatingModel) and num.backend == backend
    rng = np.random.default_rng(13)
    q = toy.neutral() + np.r_[rng.normal(size=3), 0.2, -0.3, 0.1, 0, rng.normal(size=3)]
    v, a = rng.normal(size=9), rng.normal(size=9)
    qs = np.stack([q, q + 0.1])
    for name, args in (("C", (q, v)), ("forward_dynamics", (qs, v, a))):
        got, want = getattr(num, name)(*args), getattr(toy_num, name)(*args)
        assert _rel(got, want) < 1e-12, name


# ------------------------------------------------------------------ example-robot-data
def _erd(package, filename):
    from lagdyn.robot._data import urdf_path

    try:
        return urdf_path(package, filename)
    except ld.LagdynError as exc:
        pytest.skip(str(exc))


def test_solo12_against_pinocchio(pin):
    path = _erd("solo_description", "solo12.urdf")
    robot = ld.robot.from_urdf(path, base="floating", parameters="numeric")
    assert (robot.nq, robot.nv) == (19, 18)
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    assert [model.names[i] for i in range(2, model.njoints)] == list(robot.joint_names)
    # M, h and ABA here, RNEA, g and the centroidal map on Go1, C below (marked slow)
    kernels = ["M", "bias", "forward_dynamics"]
    num = robot.lambdify({"g": 9.81}, kernels=kernels, cse=False)
    _check(pin, model, num, count=2, seed=1, kernels=kernels)


def test_solo12_skew_symmetry_is_decided_exactly(pin):
    """Solo12 with its own numbers (exact rationals from the URDF) and with symbolic
    inertial parameters: Ṁ − 2C skew decided on the programs (about 1–2 s each)."""
    path = _erd("solo_description", "solo12.urdf")
    assert ld.robot.from_urdf(path, base="floating", parameters="numeric").is_skew_symmetric()
    symbolic = ld.robot.from_urdf(path, base="floating")
    assert len(symbolic.parameters) >= 100
    assert symbolic.is_skew_symmetric() is True


def test_go1_against_pinocchio(pin):
    path = _erd("go1_description", "go1.urdf")
    try:
        model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    except Exception as exc:  # a package:// or mesh path Pinocchio cannot resolve
        pytest.skip(f"Pinocchio cannot read go1.urdf: {exc}")
    robot = ld.robot.from_urdf(path, base="floating", parameters="numeric")
    assert robot.nv == model.nv
    kernels = ["inverse_dynamics", "g", "centroidal_map", "centroidal_bias"]
    num = robot.lambdify({"g": 9.81}, kernels=kernels, cse=False)
    _check(pin, model, num, count=2, seed=2, kernels=kernels)


@pytest.mark.slow
def test_solo12_coriolis_against_pinocchio(pin):
    """The largest kernel (about 6,000 operations for Solo12): 10–20 s to generate."""
    path = _erd("solo_description", "solo12.urdf")
    robot = ld.robot.from_urdf(path, base="floating", parameters="numeric")
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    num = robot.lambdify({"g": 9.81}, kernels=["C"], cse=False)
    _check(pin, model, num, count=2, seed=4, kernels=["C"])


# ------------------------------------------------------------------ simulate
def _x0(toy, rng):
    q = toy.neutral()
    q[7:] = rng.uniform(-0.5, 0.5, toy.n)
    return np.concatenate([q, rng.normal(size=toy.nv)])


def test_simulate_integrates_on_the_manifold(toy, toy_num):
    """ld.simulate of a floating base: the model's RK4 on the manifold, unit quaternions,
    the energy of a tumbling robot kept to 1e-9 (as the step itself), q and v shapes."""
    x0 = _x0(toy, np.random.default_rng(3))
    res = ld.simulate(toy_num, x0, 1.0, dt=2e-3)
    assert res.q.shape == (501, 10) and res.qd.shape == (501, 9)
    assert np.abs(np.linalg.norm(res.q[:, 3:7], axis=-1) - 1).max() < 1e-14
    assert np.abs(res.energy_drift).max() < 1e-9 * abs(res.energy[0])
    q, v = x0[:10], x0[10:]
    for _ in range(5):
        q, v = toy_num.step(q, v, np.zeros(9), 2e-3)
    np.testing.assert_allclose(res.q[5], q, rtol=0, atol=1e-15)
    # the robot itself (lambdified with its defaults and params=) simulates the same
    res2 = ld.simulate(toy, x0, 0.01, dt=2e-3, params={"g": 9.81})
    np.testing.assert_allclose(res2.q[-1], res.q[5], rtol=0, atol=1e-12)


def test_simulate_floating_feedback_is_evaluated_at_every_stage(toy, toy_num):
    """τ(t, q, v) is called at the Runge–Kutta stages: the error falls 16-fold when the step
    halves (fourth order); a τ held over each step would be first order."""
    x0 = _x0(toy, np.random.default_rng(4))

    def law(t, q, v):
        out = -0.05 * v
        out[..., 6:] += 0.1 * np.sin(5.0 * t) - 0.2 * q[..., 7:]
        return out

    ref = ld.simulate(toy_num, x0, [0.0, 0.4], tau=law, substeps=320)
    err = [
        np.abs(ld.simulate(toy_num, x0, [0.0, 0.4], tau=law, substeps=k).x[-1] - ref.x[-1]).max()
        for k in (10, 20)
    ]
    assert 12 < err[0] / err[1] < 24
    # a batch of two with the energy balance: E(t) − E(0) = ∫ vᵀτ dt (trapezoid on the grid)
    X = np.stack([x0, _x0(toy, np.random.default_rng(5))])
    res = ld.simulate(toy_num, X, np.linspace(0, 0.2, 201), tau=law)
    assert res.q.shape == (2, 201, 10) and res.tau.shape == (2, 201, 9)
    assert np.abs(res.passivity_residual).max() < 1e-5 * np.abs(res.work).max()
    cols = res[0].columns()
    assert {"quat_w", "base_vx", "base_wz", "tau_base_vx"} <= set(cols)
    assert len(cols["t"]) == 201


def test_simulate_floating_refuses_what_it_cannot_do(toy, toy_num):
    x0 = np.concatenate([toy.neutral(), np.zeros(9)])
    with pytest.raises(ld.LagdynError, match="method='rk4'"):
        ld.simulate(toy_num, x0, 0.1, method="midpoint")
    with pytest.raises(ld.ShapeError, match=r"nq \+ nv\) = \(\.\.\., 19\)"):
        ld.simulate(toy_num, np.zeros(18), 0.1)
    bad = x0.copy()
    bad[3:7] = 0.0
    with pytest.raises(ld.LagdynError, match="quaternion"):
        ld.simulate(toy_num, bad, 0.1)
    with pytest.raises(ld.ShapeError, match="tau"):
        ld.simulate(toy_num, x0, 0.1, tau=lambda t, q, v: np.zeros(3))
