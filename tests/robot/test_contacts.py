"""Frames and contacts of floating-base robots (issue 26, item 3): generated frame
placements, Jacobians and drifts, contact dynamics, impulses and statics, against Pinocchio
(JointModelFreeFlyer) on Solo12 and by their defining identities on our small tree.

Before this work a FloatingModel had no frames and no contacts, so every test here fails on
the old code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import lagdyn as ld
from helpers import robot_path
from lagdyn.errors import ConstraintError, LagdynError, ShapeError
from lagdyn.robot.floating import EXAMPLE_URDF, integrate

TOL = 1e-9
FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
TOY = Path(__file__).resolve().parent.parent / "data" / "floating_toy.urdf"


@pytest.fixture(scope="module")
def pin():
    return pytest.importorskip("pinocchio", reason="Pinocchio (pip install pin) is not installed")


@pytest.fixture(scope="module")
def solo():
    path = robot_path("solo_description", "solo12.urdf")
    robot = ld.robot.from_urdf(path, base="floating", parameters="numeric")
    return str(path), robot, robot.lambdify({"g": 9.81}, kernels=["M", "bias", "g"])


@pytest.fixture(scope="module")
def solo_pin(pin, solo):
    model = pin.buildModelFromUrdf(solo[0], pin.JointModelFreeFlyer())
    return model, model.createData()


@pytest.fixture(scope="module")
def toy():
    robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    return robot, robot.lambdify({"g": 9.81}, kernels=["M", "bias", "g"])


def _rel(x, y):
    return float(np.max(np.abs(np.asarray(x) - y)) / max(1.0, float(np.max(np.abs(y)))))


def _random(pin, model, rng):
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv)


def _refs(pin):
    return {
        "local_world_aligned": pin.LOCAL_WORLD_ALIGNED,
        "local": pin.LOCAL,
        "world": pin.WORLD,
    }


# ---------------------------------------------------------------------- frames
def test_solo12_frames_against_pinocchio(pin, solo, solo_pin):
    """Every frame of Solo12 (links, joints, the feet behind fixed joints): placement,
    Jacobian, velocity and classical acceleration at v̇ = 0 in the three reference frames."""
    _, robot, num = solo
    model, data = solo_pin
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(2):
        q, v, _ = _random(pin, model, rng)
        pin.forwardKinematics(model, data, q, v, 0 * v)
        pin.updateFramePlacements(model, data)
        pin.computeJointJacobians(model, data, q)
        for frame in model.frames:
            if frame.name not in robot.frames:  # Pinocchio's own: universe, root_joint
                assert frame.name in ("universe", "root_joint")
                continue
            fid = model.getFrameId(frame.name, frame.type)
            R, p = num.frame_placement(q, frame.name)
            assert _rel(R, data.oMf[fid].rotation) < TOL
            assert _rel(p, data.oMf[fid].translation) < TOL
            for ref, pref in _refs(pin).items():
                J = num.frame_jacobian(q, frame.name, ref)
                assert _rel(J, pin.getFrameJacobian(model, data, fid, pref)) < TOL
                vel = pin.getFrameVelocity(model, data, fid, pref).vector
                assert _rel(num.frame_velocity(q, v, frame.name, ref), vel) < TOL
                acc = pin.getFrameClassicalAcceleration(model, data, fid, pref).vector
                assert _rel(num.frame_drift(q, v, frame.name, ref), acc) < TOL
            seen += 1
    assert seen == 2 * (len(model.frames) - 2)


def test_frames_batched_and_finite_differences(toy):
    """Batches equal single states; the Jacobian is the derivative of the placement along
    q ⊕ v t, and the drift the second derivative of the frame origin (central differences)."""
    robot, num = toy
    rng = np.random.default_rng(0)
    qs = integrate(robot.neutral(), rng.normal(size=(2, 3, robot.nv)))
    vs = rng.normal(size=(2, 3, robot.nv))
    for name in robot.frame_names:
        J = num.frame_jacobian(qs, name)
        D = num.frame_drift(qs, vs, name)
        assert J.shape == (2, 3, 6, robot.nv) and D.shape == (2, 3, 6)
        q, v = qs[1, 2], vs[1, 2]
        assert np.array_equal(J[1, 2], num.frame_jacobian(q, name))
        assert np.array_equal(D[1, 2], num.frame_drift(q, v, name))
        h = 1e-4
        pos = [num.frame_placement(integrate(q, v, s * h), name)[1] for s in (-1, 0, 1)]
        assert np.allclose((pos[2] - pos[0]) / (2 * h), J[1, 2, :3] @ v, atol=1e-7)
        assert np.allclose((pos[2] - 2 * pos[1] + pos[0]) / h**2, D[1, 2, :3], atol=1e-5)
        R = [num.frame_placement(integrate(q, v, s * h), name)[0] for s in (-1, 1)]
        W = (R[1] - R[0]) / (2 * h) @ num.frame_placement(q, name)[0].T  # [ω]×
        assert np.allclose([W[2, 1], W[0, 2], W[1, 0]], J[1, 2, 3:] @ v, atol=1e-7)


def test_unknown_frame_is_named_with_close_names(toy, solo):
    _, num = toy
    with pytest.raises(LagdynError, match=r"no frame named 'shank_l'.*closest: shank_r"):
        num.frame_placement(np.zeros(10) + toy[0].neutral(), "shank_l")
    with pytest.raises(LagdynError, match=r"'FL_FOOTS'.*closest: FL_FOOT"):
        solo[2].contacts([("FL_FOOTS", 3)])
    with pytest.raises(LagdynError, match="reference must be one of"):
        num.frame_jacobian(toy[0].neutral(), "trunk", "body")


def test_bad_inputs(toy):
    robot, num = toy
    q0 = robot.neutral()
    with pytest.raises(LagdynError, match="zero norm"):
        num.frame_placement(np.zeros(10), "trunk")
    with pytest.raises(ShapeError, match=r"expected \(\.\.\., 10\)"):
        num.frame_jacobian(np.zeros(9), "trunk")
    with pytest.raises(LagdynError, match="dimension must be 3"):
        num.contacts([("shank_r", 4)])
    with pytest.raises(LagdynError, match="at least one frame"):
        num.contacts([])
    feet = num.contacts([("shank_r", 3)])
    with pytest.raises(ShapeError, match=r"v has shape \(8,\)"):
        feet.dynamics(q0, np.zeros(8), np.zeros(9))
    with pytest.raises(LagdynError, match="method must be one of"):
        feet.dynamics(q0, np.zeros(9), np.zeros(9), method="qp")
    with pytest.raises(LagdynError, match="needs anchors"):
        feet.dynamics(q0, np.zeros(9), np.zeros(9), baumgarte=(1.0, 2.0))
    with pytest.raises(LagdynError, match="restitution"):
        feet.impulse(q0, np.zeros(9), restitution=1.5)


# ---------------------------------------------------------------------- contacts
def _pin_constraints(pin, model, spec, ref):
    kinds = {3: pin.ContactType.CONTACT_3D, 6: pin.ContactType.CONTACT_6D}
    cms = []
    for name, dim in spec:
        fr = model.frames[model.getFrameId(name)]
        cms.append(pin.RigidConstraintModel(kinds[dim], model, fr.parentJoint, fr.placement, ref))
    cms = pin.StdVec_RigidConstraintModel(cms)
    return cms, pin.StdVec_RigidConstraintData([c.createData() for c in cms])


@pytest.mark.parametrize("ref", ["local_world_aligned", "local"])
@pytest.mark.parametrize("spec", [[(f, 3) for f in FEET], [("FL_FOOT", 6), ("HR_FOOT", 3)]])
def test_contact_dynamics_against_pinocchio(pin, solo, solo_pin, spec, ref):
    """pin.constraintDynamics with RigidConstraintModel 3-D / 6-D: v̇ and λ to 1e-9."""
    _, _, num = solo
    model, data = solo_pin
    cms, cds = _pin_constraints(pin, model, spec, _refs(pin)[ref])
    pin.initConstraintDynamics(model, data, cms, cds)
    prox = pin.ProximalSettings(1e-14, 0.0, 1)
    rng = np.random.default_rng(5)
    states = [_random(pin, model, rng) for _ in range(3)]
    Q, V, T = (np.array(x) for x in zip(*states))
    A, L = num.contact_dynamics(Q, V, T, spec, reference=ref)  # one batched call
    for k, (q, v, tau) in enumerate(states):
        a = pin.constraintDynamics(model, data, q, v, tau, cms, cds, prox)
        assert _rel(A[k], a) < TOL
        assert _rel(L[k], data.lambda_c) < TOL


def test_methods_agree(pin, solo, solo_pin):
    _, _, num = solo
    model, _ = solo_pin
    rng = np.random.default_rng(6)
    q, v, tau = _random(pin, model, rng)
    spec = [(f, 3) for f in FEET]
    a, lam = num.contact_dynamics(q, v, tau, spec)
    for method in ("schur", "augmented_lagrangian", "lstsq"):
        b, mu = num.contact_dynamics(q, v, tau, spec, method=method)
        assert _rel(b, a) < 1e-8 and _rel(mu, lam) < 1e-8, method
    b, mu = num.contact_dynamics(q, v, tau, spec, method="penalty")
    assert _rel(b, a) < 1e-5 and _rel(mu, lam) < 1e-5  # exact only as k → ∞


def test_impulse_against_pinocchio(pin, solo, solo_pin):
    """pin.impulseDynamics with the stacked contact Jacobian: v⁺ and the impulses."""
    _, _, num = solo
    model, data = solo_pin
    rng = np.random.default_rng(7)
    spec = [(f, 3) for f in FEET]
    for e in (0.0, 0.4):
        q, v, _ = _random(pin, model, rng)
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        J = np.vstack(
            [
                pin.getFrameJacobian(model, data, model.getFrameId(f), pin.LOCAL_WORLD_ALIGNED)[:3]
                for f in FEET
            ]
        )
        vp = pin.impulseDynamics(model, data, q, v, J, e, 0.0)
        mine, imp = num.contact_impulse(q, v, spec, restitution=e)
        assert _rel(mine, vp) < TOL
        assert _rel(imp, data.impulse_c) < TOL
        assert np.allclose(J @ mine, -e * (J @ v), atol=1e-10)


def test_solo12_standing_weight_balance(pin, solo, solo_pin):
    """The static problem (v = 0, v̇ = 0, no wrench on the base): the four point-contact
    forces sum to m g exactly, and the contact dynamics with those torques keeps the robot
    still with the same forces (Pinocchio's constraintDynamics too)."""
    _, robot, num = solo
    model, data = solo_pin
    q = robot.neutral()
    q[2] = 0.24
    q[7:] = np.tile([0.0, 0.8, -1.6], 4)  # legs bent, feet under the hips
    feet = num.contacts([(f, 3) for f in FEET])
    tau, lam = feet.statics(q)
    mass = float(num.M(q)[0, 0])
    assert abs(mass - sum(i.mass for i in model.inertias[1:])) < 1e-12
    force = sum(feet.forces(lam).values())
    assert np.allclose(force, [0.0, 0.0, mass * 9.81], rtol=0, atol=1e-12 * mass * 9.81)
    assert np.all(tau[:6] == 0)
    a, mu = feet.dynamics(q, np.zeros(18), tau)
    assert np.max(np.abs(a)) < 1e-10
    assert _rel(mu, lam) < TOL
    cms, cds = _pin_constraints(pin, model, [(f, 3) for f in FEET], pin.LOCAL_WORLD_ALIGNED)
    pin.initConstraintDynamics(model, data, cms, cds)
    ap = pin.constraintDynamics(model, data, q, np.zeros(18), tau, cms, cds)
    assert np.max(np.abs(ap)) < 1e-10 and _rel(data.lambda_c, lam) < TOL


def test_redundant_contacts_named_and_solved_by_lstsq(toy):
    """A surface and a point contact on the same frame: J_c is rank-deficient; the error
    names the dependent rows, and lstsq gives the minimum-norm forces that still hold."""
    robot, num = toy
    q, v = robot.neutral(), np.zeros(9)
    spec = [("shank_r", 6), ("shank_r", 3)]
    with pytest.raises(ConstraintError, match=r"redundant contacts.*rows 6 \(shank_r\[0\]\)"):
        num.contact_dynamics(q, v, np.zeros(9), spec)
    a, lam = num.contact_dynamics(q, v, np.zeros(9), spec, method="lstsq")
    feet = num.contacts(spec)
    assert np.allclose(feet.jacobian(q) @ a, -feet.drift(q, v), atol=1e-12)
    M, h = num.M(q), num.nonlinear_effects(q, v)
    assert np.allclose(M @ a + h, feet.jacobian(q).T @ lam, atol=1e-10)
    f = feet.forces(lam)
    assert np.allclose(f["shank_r"][:3], lam[6:9])  # the split between the duplicates: equal
    with pytest.raises(ConstraintError, match="redundant"):
        feet.impulse(q, v)


def test_baumgarte_sets_the_constraint_acceleration(toy):
    """J_c v̇ = −J̇_c v − 2α J_c v − β² Φ, Φ the frames' distance from their anchors."""
    robot, num = toy
    rng = np.random.default_rng(2)
    q = integrate(robot.neutral(), rng.normal(size=9) * 0.3)
    v, tau = rng.normal(size=9), rng.normal(size=9)
    feet = num.contacts([("thigh_l", 6), ("shank_r", 3)])
    Rl, pl = num.frame_placement(q, "thigh_l")
    _, pr = num.frame_placement(q, "shank_r")
    turn = np.array([[1, 0, 0], [0, np.cos(0.1), -np.sin(0.1)], [0, np.sin(0.1), np.cos(0.1)]])
    anchors = [(turn @ Rl, pl + np.array([0.01, 0, 0])), pr - np.array([0, 0, 0.02])]
    alpha, beta = 3.0, 5.0
    a, _ = feet.dynamics(q, v, tau, baumgarte=(alpha, beta), anchors=anchors)
    phi = feet.position_error(q, anchors)
    assert np.allclose(phi, [-0.01, 0, 0, -0.1, 0, 0, 0, 0, 0.02], atol=1e-12)
    J = feet.jacobian(q)
    lhs = J @ a + feet.drift(q, v)
    assert np.allclose(lhs, -2 * alpha * J @ v - beta**2 * phi, atol=1e-10)


def test_toy_against_pinocchio_impulse_and_local_surface(pin):
    """Our small tree (prismatic knee) with a surface contact in its own axes."""
    robot = ld.robot.from_urdf(TOY, base="floating", parameters="numeric")
    num = robot.lambdify({"g": 9.81}, kernels=["M", "bias"])
    model = pin.buildModelFromUrdf(str(TOY), pin.JointModelFreeFlyer())
    data = model.createData()
    name = robot.frame_names[-1]
    spec = [(name, 6)]
    cms, cds = _pin_constraints(pin, model, spec, pin.LOCAL)
    pin.initConstraintDynamics(model, data, cms, cds)
    rng = np.random.default_rng(9)
    q, v, tau = _random(pin, model, rng)
    a, lam = num.contact_dynamics(q, v, tau, spec, reference="local")
    ap = pin.constraintDynamics(model, data, q, v, tau, cms, cds, pin.ProximalSettings(1e-14, 0, 1))
    assert _rel(a, ap) < TOL and _rel(lam, data.lambda_c) < TOL


def test_fused_kernel_equals_the_numpy_path(toy):
    """model.contacts(..., fused=True): one generated kernel (M, h, J_c, J̇_c v, LDLᵀ of the
    KKT matrix) gives the numpy path's v̇ and λ, in both reference frames; a redundant set
    falls back to the numpy path and its named error."""
    robot, num = toy
    rng = np.random.default_rng(4)
    q = integrate(robot.neutral(), rng.normal(size=(5, 9)) * 0.5)
    v, tau = rng.normal(size=(5, 9)), rng.normal(size=(5, 9))
    for ref in ("local_world_aligned", "local"):
        spec = [("thigh_l", 6), ("shank_r", 3)]
        a, lam = num.contact_dynamics(q, v, tau, spec, reference=ref)
        fused = num.contacts(spec, reference=ref, fused=True)
        b, mu = fused.dynamics(q, v, tau)
        assert _rel(b, a) < TOL and _rel(mu, lam) < TOL
        assert _rel(fused.dynamics(q[3], v[3], tau[3])[1], lam[3]) < TOL
    with pytest.raises(ConstraintError, match="redundant contacts"):
        num.contacts([("shank_r", 6), ("shank_r", 3)], fused=True).dynamics(q, v, tau)


def test_fused_c_kernel_vectorized_blocks_and_threads(toy):
    """The C backend's fused kernel runs through its struct-of-arrays entry (blocks of
    eight states in vector lanes, vector sin/cos): at each of 1,029 random states (split
    across two threads, cuts inside a block, a partial last block) v̇ and λ agree with the
    numpy path (another factorization) to within 100 ε cond(KKT), the rounding floor,
    with a median of 1e-14; the kernel's row entries (one state through the block) give
    the same numbers, as do a batch of any shape and one state; redundant contacts still
    reach the named error."""
    pytest.importorskip("cffi")
    robot, plain = toy
    num = robot.lambdify({"g": 9.81}, kernels=["M", "bias"], backend="c", threads=2)
    rng = np.random.default_rng(7)
    B = 1029
    q = integrate(robot.neutral(), rng.normal(size=(B, 9)) * 0.5)
    v, tau = rng.normal(size=(B, 9)), rng.normal(size=(B, 9))
    spec = [("thigh_l", 6), ("shank_r", 3)]
    fused = num.contacts(spec, fused=True)
    a, lam = plain.contact_dynamics(q, v, tau, spec)
    b, mu = fused.dynamics(q, v, tau)
    fk = fused._fused
    assert fk is not None and fk._kernels.soa_names == {"contact_dynamics"}
    pad_v, pad_t, out = np.zeros((B, 10)), np.zeros((B, 10)), np.empty((B, 27))
    pad_v[:, :9], pad_t[:, :9] = v, tau
    fk._kernels.batch("contact_dynamics", q, pad_v, pad_t, np.zeros((1, 0)), np.zeros((1, 1)), out)
    J = plain.contacts(spec).jacobian(q)
    K = np.zeros((B, 18, 18))
    K[:, :9, :9], K[:, :9, 9:], K[:, 9:, :9] = plain.M(q), np.swapaxes(J, 1, 2), J
    floor = 100 * np.finfo(float).eps * np.linalg.cond(K)
    new = np.concatenate([b, mu], axis=1)
    ref = np.concatenate([a, lam], axis=1)
    err = np.max(np.abs(new - ref), axis=1) / np.maximum(1.0, np.max(np.abs(ref), axis=1))
    assert np.all(err < floor), float(np.max(err / floor))
    assert float(np.median(err)) < 1e-14
    assert _rel(out[:, :18], new) < 1e-15
    a, lam = b, mu
    b, mu = fused.dynamics(
        q[:6].reshape(2, 3, 10), v[:6].reshape(2, 3, 9), tau[:6].reshape(2, 3, 9)
    )
    assert b.shape == (2, 3, 9) and mu.shape == (2, 3, 9)
    assert _rel(b.reshape(6, 9), a[:6]) < 1e-13 and _rel(mu.reshape(6, 9), lam[:6]) < 1e-13
    b, mu = fused.dynamics(q[5], v[5], tau[5])
    assert b.shape == (9,) and _rel(b, a[5]) < 1e-13 and _rel(mu, lam[5]) < 1e-13
    with pytest.raises(ConstraintError, match="redundant contacts"):
        num.contacts([("shank_r", 6), ("shank_r", 3)], fused=True).dynamics(q[:3], v[:3], tau[:3])


@pytest.mark.slow  # two C compiles (~4 s of CPU)
def test_fused_c_kernel_without_vector_sin_cos_uses_the_row_loop(toy, monkeypatch, tmp_path):
    """Without libmvec the block loop would call scalar sin/cos lane by lane (measured 2x
    slower than the row loop on Solo12): the backend then builds no struct-of-arrays entry
    and the fused kernel runs its row loop, with the same numbers."""
    pytest.importorskip("cffi")
    from lagdyn.numeric.backends import compiled

    cflags, lflags, _ = compiled._probe_flags()
    monkeypatch.setattr(compiled, "_probe_flags", lambda: (cflags, lflags, False))
    robot, plain = toy
    num = robot.lambdify({"g": 9.81}, kernels=["M", "bias"], backend="c", cache=False)
    rng = np.random.default_rng(9)
    q = integrate(robot.neutral(), rng.normal(size=(11, 9)) * 0.3)
    v, tau = rng.normal(size=(11, 9)), rng.normal(size=(11, 9))
    spec = [("thigh_l", 6), ("shank_r", 3)]
    fused = num.contacts(spec, fused=True)
    b, mu = fused.dynamics(q, v, tau)
    assert fused._fused is not None and not fused._fused._kernels.soa_names
    a, lam = plain.contact_dynamics(q, v, tau, spec)
    assert _rel(b, a) < 1e-10 and _rel(mu, lam) < 1e-10


@pytest.mark.slow  # compiles Solo12's fused contact kernel: ~10-25 s on a loaded 2-core machine
def test_solo12_fused_c_kernel_against_pinocchio(pin, solo, solo_pin):
    """Solo12 on four point contacts, the vectorized C kernel: v̇ and λ of
    pin.constraintDynamics to 1e-12 at 13 random states (one partial block); the kernel's
    row entries (one state through a block) give the same numbers."""
    pytest.importorskip("cffi")
    _, robot, _ = solo
    model, data = solo_pin
    spec = [(f, 3) for f in FEET]
    num = robot.lambdify({"g": 9.81}, kernels=["M"], backend="c")
    fused = num.contacts(spec, fused=True)
    cms, cds = _pin_constraints(pin, model, spec, pin.LOCAL_WORLD_ALIGNED)
    pin.initConstraintDynamics(model, data, cms, cds)
    prox = pin.ProximalSettings(1e-14, 0.0, 1)
    rng = np.random.default_rng(8)
    Q, V, T = (np.array(x) for x in zip(*[_random(pin, model, rng) for _ in range(13)]))
    A, L = fused.dynamics(Q, V, T)
    for k in range(13):
        a = pin.constraintDynamics(model, data, Q[k], V[k], T[k], cms, cds, prox)
        assert _rel(A[k], a) < 1e-12 and _rel(L[k], data.lambda_c) < 1e-12
    fk = fused._fused
    assert fk is not None and "contact_dynamics" in fk._kernels.soa_names
    pad = np.zeros((13, 19))
    out = np.empty((13, 42))
    pad_v, pad_t = pad.copy(), pad.copy()
    pad_v[:, :18], pad_t[:, :18] = V, T
    fk._kernels.batch("contact_dynamics", Q, pad_v, pad_t, np.zeros((1, 0)), np.zeros((1, 1)), out)
    assert _rel(out[:, :18], A) < 1e-15 and _rel(out[:, 18:30], L) < 1e-15


def test_fixed_base_frames_against_pinocchio(pin):
    """FrameModel: the UR5 (fixed base, from example-robot-data) — every frame's placement,
    Jacobian and classical acceleration in the three reference frames."""
    from lagdyn.robot.contacts import FrameModel

    path = str(robot_path("ur_description", "ur5_robot.urdf"))
    arm = ld.robot.from_urdf(path, parameters="numeric")
    fm = FrameModel(arm)
    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    rng = np.random.default_rng(8)
    q = rng.uniform(-3, 3, model.nq)
    v = rng.normal(size=model.nv)
    pin.forwardKinematics(model, data, q, v, 0 * v)
    pin.updateFramePlacements(model, data)
    pin.computeJointJacobians(model, data, q)
    names = [f.name for f in model.frames if f.name != "universe"]
    assert set(names) <= set(fm.frame_names)
    for frame in model.frames[1:]:
        fid = model.getFrameId(frame.name, frame.type)
        R, p = fm.frame_placement(q, frame.name)
        assert _rel(R, data.oMf[fid].rotation) < TOL and _rel(p, data.oMf[fid].translation) < TOL
        for ref, pref in _refs(pin).items():
            J = fm.frame_jacobian(q, frame.name, ref)
            assert _rel(J, pin.getFrameJacobian(model, data, fid, pref)) < TOL
            acc = pin.getFrameClassicalAcceleration(model, data, fid, pref).vector
            assert _rel(fm.frame_drift(q, v, frame.name, ref), acc) < TOL
    with pytest.raises(LagdynError, match=r"no frame named 'tool1'.*closest: tool0"):
        fm.frame_jacobian(q, "tool1")


# ---------------------------------------------------------------------- loops
def _four_bar(closure: str = "ball"):
    """The SDF four-bar, floating; its closing joint a ball ('point' loop) or fixed
    ('weld' loop)."""
    from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf

    text = EXAMPLE_SDF.replace('name="crank_rod" type="ball"', f'name="crank_rod" type="{closure}"')
    sdf = from_sdf(text, base="floating")
    return sdf, sdf.tree.lambdify({"g": 9.81}, kernels=["M", "bias"])


def _closed(c, num, rng):
    q = num.robot.neutral().copy()
    q[:3] = rng.normal(size=3)
    quat = rng.normal(size=4)
    q[3:7] = quat / np.linalg.norm(quat)
    q[7:] += rng.normal(scale=0.3, size=q.size - 7)
    q, res = c.project(q)
    J = c.jacobian(q)
    v = rng.normal(size=num.nv)
    return q, v - np.linalg.pinv(J) @ (J @ v), res


@pytest.mark.parametrize("closure", ["ball", "fixed"])
def test_loop_drift_is_the_rate_of_the_rows(closure):
    """γ's drift is d/dt (J v) at v̇ = 0 (central differences along q ⊕ v t), on and off the
    loop manifold, for point and weld loops, with the rows reduced (in frame A's axes) or
    not (world axes)."""
    from lagdyn.robot.contacts import closures

    sdf, num = _four_bar(closure)
    rng = np.random.default_rng(11)
    reduced = closures(num, sdf.loops)
    raw = closures(num, sdf.loops, reduce=False)
    assert (reduced.m, raw.m) == ((2, 3) if closure == "ball" else (3, 6))
    q, _, _ = _closed(reduced, num, rng)
    h = 1e-6
    for c in (reduced, raw):
        for qq in (q, num.integrate(q, 0.3 * rng.normal(size=num.nv))):
            v = rng.normal(size=num.nv)
            fd = (
                c.jacobian(num.integrate(qq, v * h)) @ v - c.jacobian(num.integrate(qq, -v * h)) @ v
            ) / (2 * h)
            assert np.abs(fd - c.drift(qq, v)).max() < 1e-8 * (1 + np.abs(fd).max())


def test_weld_loop_against_pinocchio(pin):
    """A weld loop (the four-bar closed by a fixed joint, floating) against Pinocchio's
    constraintDynamics with a CONTACT_6D RigidConstraintModel between the two joints'
    frames (LOCAL_WORLD_ALIGNED): v̇ to 1e-9; the force and torque along the kept
    directions (the planar weld keeps x, y and rz of frame A) to 1e-6 (Pinocchio's
    proximal iterations leave ~1e-7 in the three dependent directions)."""
    from lagdyn.robot.contacts import closures

    sdf, num = _four_bar("fixed")
    c = closures(num, sdf.loops)
    assert c.row_names[-1].endswith("[crank_rod__on_parent.rz]")
    model = pin.buildModelFromXML(sdf.sdf.urdf, pin.JointModelFreeFlyer())
    data = model.createData()
    a_name, b_name, _ = sdf.loops[0]
    fa, fb = model.frames[model.getFrameId(a_name)], model.frames[model.getFrameId(b_name)]
    cms = pin.StdVec_RigidConstraintModel(
        [
            pin.RigidConstraintModel(
                pin.ContactType.CONTACT_6D,
                model,
                fa.parentJoint,
                fa.placement,
                fb.parentJoint,
                fb.placement,
                pin.LOCAL_WORLD_ALIGNED,
            )
        ]
    )
    cds = pin.StdVec_RigidConstraintData([x.createData() for x in cms])
    pin.initConstraintDynamics(model, data, cms, cds)
    prox = pin.ProximalSettings(1e-15, 1e-6, 1000)
    rng = np.random.default_rng(12)
    for _ in range(3):
        q, v, res = _closed(c, num, rng)
        assert res < 1e-12
        tau = rng.normal(size=num.nv)
        a, lam = c.dynamics(q, v, tau)
        ap = pin.constraintDynamics(model, data, q, v, tau, cms, cds, prox)
        assert _rel(a, ap) < TOL
        R = c.frames.placement(q)[0][c.frames.index[a_name]]
        mine = c.loop_forces(q, lam)[f"{a_name}~{b_name}"]
        theirs = np.asarray(data.lambda_c)
        local = [np.r_[R.T @ w[:3], R.T @ w[3:]] for w in (mine, theirs)]
        assert _rel(local[0][[0, 1, 5]], local[1][[0, 1, 5]]) < 1e-6
        assert np.abs(local[0][[2, 3, 4]]).max() < 1e-12 * np.abs(mine).max()  # none dropped


def test_ground_contacts_and_loops_together():
    """A 6-D ground contact and a loop in one Contacts: rows and forces in that order,
    J v̇ = −γ, every solver; Baumgarte's β needs anchors for the contact only; impulses."""
    from lagdyn.robot.contacts import closures

    sdf, num = _four_bar("ball")
    rig = closures(num, sdf.loops, [("ground", 6)])
    assert rig.m == 8 and rig.m_contacts == 6
    assert rig.row_names[:6] == tuple(f"ground[{k}]" for k in range(6))
    rng = np.random.default_rng(13)
    q, v, _ = _closed(rig, num, rng)
    tau = rng.normal(size=num.nv)
    a, lam = rig.dynamics(q, v, tau)
    assert np.abs(rig.jacobian(q) @ a + rig.drift(q, v)).max() < 1e-10
    for method in ("schur", "lstsq", "augmented_lagrangian"):
        b, mu = rig.dynamics(q, v, tau, method=method)
        assert _rel(b, a) < 1e-8 and _rel(mu, lam) < 1e-8, method
    assert set(rig.forces(lam)) == {"ground", "crank_rod__on_parent~crank_rod__on_child"}
    with pytest.raises(LagdynError, match="loops need none"):
        rig.dynamics(q, v, tau, baumgarte=(1.0, 1.0))
    R, p = num.frame_placement(q, "ground")
    b, _ = rig.dynamics(q, v, tau, baumgarte=(1.0, 1.0), anchors=[(R, p)])
    assert _rel(b, a) < 1e-9  # on the anchor and on the loop: Φ = 0, and here J v = 0
    vp, imp = rig.impulse(q, v + rng.normal(size=num.nv))
    assert np.abs(rig.jacobian(q) @ vp).max() < 1e-10
