"""Frictional, unilateral point contacts (lagdyn.robot.friction): one Moreau–Jean step at a
time, the De Saxcé complementarity problem solved by projected Gauss–Seidel.

References: Pinocchio 4's own PGS and ADMM constraint solvers on the same Delassus matrix
and drift (the Delassus matrix built by Pinocchio: crba, nle and frame Jacobians); the
bilateral contact dynamics (sticking contacts); a block sliding on the plane (deceleration
μ g, exactly, in the discrete scheme); and certificates computed here from λ alone (the
cone, the dual cone, complementarity, maximum dissipation). Before this work there was no
friction and no unilateral contact at all, so every test fails on the old code.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lagdyn as ld
from helpers import robot_path
from lagdyn.errors import ConstraintError, LagdynError, ShapeError
from lagdyn.robot.friction import (
    EXAMPLE_BOX,
    FrictionWarning,
    cone_projection,
    solve_ncp,
)

FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
CORNERS = ("c1", "c2", "c3", "c4")
G0 = 9.81


@pytest.fixture(scope="module")
def pin():
    module = pytest.importorskip("pinocchio", reason="Pinocchio (pip install pin) is not installed")
    if not hasattr(module, "PGSConstraintSolver"):  # the extra allows pin >= 3
        pytest.skip(f"Pinocchio {module.__version__} has no constraint solvers (pin >= 4)")
    return module


@pytest.fixture(scope="module")
def solo():
    path = robot_path("solo_description", "solo12.urdf")
    robot = ld.robot.from_urdf(path, base="floating", parameters="numeric")
    num = robot.lambdify({"g": G0}, kernels=["M", "bias", "g"])
    return str(path), robot, num, num.contacts(list(FEET))


@pytest.fixture(scope="module")
def box():
    robot = ld.robot.from_urdf(EXAMPLE_BOX, base="floating", parameters="numeric")
    num = robot.lambdify({"g": G0}, kernels=["M", "bias"])
    return robot, num, num.contacts(list(CORNERS))


def _standing(robot, num, bend=(0.0, 0.8, -1.6)):
    q = robot.neutral()
    q[7:] = np.tile(bend, 4)
    _, p = num.frame_placement(q, "FL_FOOT")
    q[2] -= p[2]
    return q


def _heights(num, q, frames):
    return np.array([num.frame_placement(q, f)[1][2] for f in frames])


# ---------------------------------------------------------------------- certificates
def _certify(G, g, lam, mu, tol):
    """The De Saxcé conditions from λ alone: λ ∈ K_μ, y = σ + μ‖σ_t‖e_n ∈ K_μ*, λ·y = 0
    (scaled by the problem's size), contact by contact."""
    sigma = G @ lam + g
    scale = 1.0 + np.abs(g).max()
    worst = 0.0
    for i in range(len(lam) // 3):
        li, si = lam[3 * i : 3 * i + 3], sigma[3 * i : 3 * i + 3]
        lt, ln = np.hypot(*li[:2]), li[2]
        assert ln >= 0 and lt <= mu[i] * ln * (1 + 1e-12) + 1e-300, (i, li)  # primal
        st_ = np.hypot(*si[:2])
        yn = si[2] + mu[i] * st_
        # dual: ‖y_t‖ ≤ y_n / μ, i.e. μ‖σ_t‖ ≤ y_n, and y_n ≥ 0
        worst = max(worst, -yn / scale, (mu[i] * st_ - yn) / scale)
        lscale = 1.0 + np.abs(li).max()
        worst = max(worst, abs(li @ np.r_[si[:2], yn]) / (scale * lscale))
    assert worst < tol, worst


def test_cone_projection_is_the_moreau_decomposition():
    """P_K(x) ∈ K, x − P_K(x) in the polar cone, the two orthogonal — at random points and
    the three regimes (inside, polar, boundary)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 3)) * rng.uniform(0.1, 10, size=(2000, 1))
    mu = rng.uniform(0, 2, size=2000)
    p = cone_projection(x, mu)
    r = x - p
    pt, rt = np.hypot(p[:, 0], p[:, 1]), np.hypot(r[:, 0], r[:, 1])
    assert np.all(pt <= mu * p[:, 2] + 1e-12) and np.all(p[:, 2] >= -1e-15)
    assert np.all(mu * rt <= -r[:, 2] + 1e-12)  # polar cone: {‖r_t‖ μ ≤ −r_n}
    assert np.abs(np.sum(p * r, axis=1)).max() < 1e-12
    assert np.array_equal(cone_projection([0.0, 0.0, 1.0], 0.0), [0.0, 0.0, 1.0])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    k=st.integers(1, 4),
    seed=st.integers(0, 2**31 - 1),
    push=st.floats(-3.0, 3.0),
)
def test_solutions_satisfy_the_de_saxce_conditions(k, seed, push):
    """Random positive definite Delassus matrices, drifts and friction coefficients (μ = 0
    included): the returned λ is in the cones, y in the dual cones, λ ⊥ y — checked here
    from λ, G and g alone, not from the solver's residual."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(3 * k, 3 * k))
    G = A @ A.T / (3 * k) + 0.3 * np.eye(3 * k)
    g = rng.normal(size=3 * k)
    g[2::3] += push
    mu = rng.choice([0.0, 0.05, 0.3, 1.0, 3.0], size=k)
    s = solve_ncp(G, g, mu, tol=1e-11, max_iter=20000)
    assert s.converged and s.residual <= 1e-11
    _certify(G, g, s.lam, mu, 1e-9)
    assert np.allclose(s.sigma, G @ s.lam + g, atol=1e-12)
    # the vectorised path (more than two states) and the scalar one: the same solution
    many = solve_ncp(np.stack([G] * 3), np.stack([g] * 3), mu, tol=1e-11, max_iter=20000)
    assert many.converged.all()
    for lam in many.lam:
        _certify(G, g, lam, mu, 1e-9)
        assert np.abs(lam - s.lam).max() < 1e-8 * (1 + np.abs(s.lam).max())


def test_a_cycling_split_is_cured_by_the_fallback_passes(pin, monkeypatch):
    """A known weakness of projected Gauss–Seidel with the normal/tangent split (Pinocchio's
    PGS fails here too): one contact, μ = 3 and a strong normal–tangent coupling in G — the
    split sweeps cycle. ADMM, then (with ADMM disabled) the exact per-contact sweeps,
    converge; the impulse is Pinocchio's ADMM's."""
    from lagdyn.robot import friction

    G = np.array([[0.503, 0.153, 0.127], [0.153, 1.365, 0.622], [0.127, 0.622, 1.06]])
    g = np.array([-0.45164129, -1.83139926, -0.94726321])
    reference = _pin_solve(pin, G, g, [3.0], "admm")
    for disable_admm in (False, True):
        if disable_admm:
            monkeypatch.setattr(friction, "_admm", lambda *args: 0)
        s = solve_ncp(G, g, 3.0, tol=1e-11, max_iter=300)
        assert s.converged and s.iterations > 300  # the split ran out, a fallback did not
        _certify(G, g, s.lam, [3.0], 1e-9)
        assert np.abs(s.lam - reference).max() < 1e-8
        stack = solve_ncp(np.stack([G] * 4), np.stack([g] * 4), 3.0, tol=1e-11, max_iter=300)
        assert stack.converged.all() and np.abs(stack.lam - s.lam).max() < 1e-9
    direct = solve_ncp(G, g, 3.0, tol=1e-11, max_iter=2000, method="admm")
    assert direct.converged and np.abs(direct.lam - reference).max() < 1e-8


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(1, 4), seed=st.integers(0, 2**31 - 1), push=st.floats(-3.0, 3.0))
def test_admm_solves_what_gauss_seidel_solves(k, seed, push):
    """method="admm" on random positive definite problems (some contacts inactive): the
    De Saxcé certificate from λ alone, and the same λ as Gauss–Seidel (unique here)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(3 * k, 3 * k))
    G = A @ A.T / (3 * k) + 0.3 * np.eye(3 * k)
    g = rng.normal(size=3 * k)
    g[2::3] += push
    mu = rng.choice([0.0, 0.05, 0.3, 1.0, 3.0], size=k)
    active = rng.random(k) < 0.8
    a = solve_ncp(G, g, mu, active=active, tol=1e-11, max_iter=20000, method="admm")
    p = solve_ncp(G, g, mu, active=active, tol=1e-11, max_iter=20000)
    assert a.converged
    on = np.repeat(active, 3)
    assert np.all(a.lam[~on] == 0.0)
    if active.any():
        _certify(G[np.ix_(on, on)], g[on], a.lam[on], mu[active], 1e-9)
    assert np.abs(a.lam - p.lam).max() < 1e-8 * (1 + np.abs(p.lam).max())


def test_a_state_solves_the_same_in_any_batch():
    """A state's impulses do not depend on the other states of its batch (the vectorised
    sweeps, more than two states): a converged state leaves the working set at once
    instead of moving within tol while slower companions are swept."""
    rng = np.random.default_rng(7)

    def problem(cond):
        A = rng.normal(size=(12, 12))
        w = np.geomspace(1.0, cond, 12)
        Q, _ = np.linalg.qr(A)
        return (Q * w) @ Q.T, rng.normal(size=12)

    (G0, g0), (G1, g1), (G2, g2) = problem(2.0), problem(1e-4), problem(1e-3)
    first = solve_ncp(np.stack([G0, G1, G1]), np.stack([g0, g1, g1]), 0.7, max_iter=5000)
    other = solve_ncp(np.stack([G0, G2, G0]), np.stack([g0, g2, g0]), 0.7, max_iter=5000)
    assert first.converged.all() and other.converged.all()
    assert np.array_equal(first.lam[0], other.lam[0]) and np.array_equal(other.lam[0], other.lam[2])


def test_admm_where_gauss_seidel_crawls(box):
    """A box landing on its four corners with a small compliance: the Delassus matrix is
    nearly singular (four contacts, one rigid body) and Gauss–Seidel needs tens of thousands
    of sweeps; ADMM converges in a few hundred iterations, and a default step (Gauss–Seidel
    handing its unconverged state to ADMM) converges within the default max_iter. The
    velocities equal those of Gauss–Seidel run to the end."""
    robot, num, corners = box
    q = robot.neutral()
    q[2] = 0.05
    v = np.zeros(7)
    v[0], v[2] = 1.0, -0.5
    options = dict(mu=0.5, compliance=1e-3, tol=1e-9)
    crawl = corners.step(q, v, np.zeros(7), 0.01, max_iter=100_000, **options)
    assert crawl.iterations > 5_000
    fast = corners.step(q, v, np.zeros(7), 0.01, method="admm", **options)
    assert fast.converged and fast.iterations < 500
    default = corners.step(q, v, np.zeros(7), 0.01, **options)
    assert default.converged and default.iterations < 2_000
    for s in (fast, default):
        assert np.abs(s.v - crawl.v).max() < 1e-7
        assert np.abs(s.q - crawl.q).max() < 1e-9


# ---------------------------------------------------------------------- Pinocchio's solvers
def _pin_solve(pin, G, g, mu, kind):
    """λ from Pinocchio 4's PGS or ADMM solver on (G, g), point-contact cones (normal the
    third row, as ours)."""
    model = pin.Model()  # the cones need a model only to be built
    cms = pin.StdVec_ConstraintModel()
    for m in mu:
        cm = pin.PointContactConstraintModel(model)
        cm.setFriction(float(m))
        cms.append(pin.ConstraintModel(cm))
    cds = pin.StdVec_ConstraintData()
    for cm in cms:
        cds.append(cm.createData())
    if kind == "pgs":
        solver, settings_, result = (
            pin.PGSConstraintSolver(len(g)),
            pin.PGSSolverSettings(),
            pin.PGSSolverResult(),
        )
    else:
        solver, settings_, result = (
            pin.ADMMConstraintSolver(),
            pin.ADMMSolverSettings(),
            pin.ADMMSolverResult(),
        )
    settings_.max_iterations = 100000
    for name in (
        "absolute_complementarity_tol",
        "absolute_feasibility_tol",
        "relative_complementarity_tol",
        "relative_feasibility_tol",
    ):
        setattr(settings_, name, 1e-13)
    ok = solver.solve(pin.DelassusOperatorDense(G), g, cms, cds, settings_, result)
    assert ok and result.converged
    return result.retrieveConstraintImpulses()


@pytest.mark.parametrize("kind", ["pgs", "admm"])
def test_random_problems_against_pinocchio(pin, kind):
    """Unique solutions (G ≻ 0, μ small or contacts separating): our λ equals Pinocchio's
    PGS's and ADMM's on the same G, g."""
    rng = np.random.default_rng(7)
    for trial in range(6):
        k = 1 + trial % 4
        A = rng.normal(size=(3 * k, 3 * k))
        G = A @ A.T / (3 * k) + 0.5 * np.eye(3 * k)
        g = rng.normal(size=3 * k)
        g[2::3] -= 1.0
        mu = np.full(k, 0.1)
        ours = solve_ncp(G, g, mu, tol=1e-12, max_iter=20000)
        theirs = _pin_solve(pin, G, g, mu, kind)
        assert np.abs(ours.lam - theirs).max() < 1e-8 * (1 + np.abs(theirs).max()), trial


def _pin_problem(pin, path, q, v, tau, dt):
    """M, J, G, g and v_free from Pinocchio alone (crba, nle, frame Jacobians in
    LOCAL_WORLD_ALIGNED), for Solo12's four feet."""
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    data = model.createData()
    M = pin.crba(model, data, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.nonLinearEffects(model, data, q, v)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    J = np.vstack(
        [
            pin.getFrameJacobian(model, data, model.getFrameId(f), pin.LOCAL_WORLD_ALIGNED)[:3]
            for f in FEET
        ]
    )
    v_free = v + dt * np.linalg.solve(M, tau - h)
    G = J @ np.linalg.solve(M, J.T)
    return M, J, G, J @ v_free, v_free


@pytest.mark.parametrize("case", ["sticking", "sliding"])
def test_solo12_step_against_pinocchio(pin, solo, case):
    """Solo12 on four feet (G ≻ 0): the step's impulses equal Pinocchio's PGS and ADMM on
    Pinocchio's own Delassus matrix and drift; v⁺ = v_free + M⁻¹Jᵀλ with Pinocchio's M, J."""
    path, robot, num, feet = solo
    rng = np.random.default_rng(11 if case == "sticking" else 12)
    q = _standing(robot, num)
    q[7:] += rng.normal(scale=0.05, size=12)
    tau, _ = feet.statics(q)
    v = np.zeros(18)
    mu = 1.0
    if case == "sliding":
        v[:2] = [0.2, 0.5]  # pushed sideways on ice
        mu = 0.05
    dt = 0.002
    ground = _heights(num, q, FEET)  # zero gaps: no gap term, g = J v_free
    s = feet.step(q, v, tau, dt, mu=mu, ground=ground, tol=1e-12, max_iter=20000)
    M, J, G, g, v_free = _pin_problem(pin, path, q, v, tau, dt)
    for kind in ("pgs", "admm"):
        lam = _pin_solve(pin, G, g, np.full(4, mu), kind)
        assert np.abs(s.lam - lam).max() < 1e-8 * np.abs(lam).max(), kind
    assert np.abs(s.v - (v_free + np.linalg.solve(M, J.T @ s.lam))).max() < 1e-9
    lt = np.hypot(s.lam[0::3], s.lam[1::3])
    if case == "sliding":  # every foot on the cone's boundary
        assert np.allclose(lt, mu * s.lam[2::3], rtol=1e-9, atol=0)
    else:
        assert np.all(lt < mu * s.lam[2::3])


# ---------------------------------------------------------------------- physics
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_sticking_impulses_are_the_bilateral_forces(solo, seed):
    """μ large, standing with torques near the gravity-compensating ones at a random
    perturbation of the pose: every foot sticks, and λ/dt is the bilateral contact force
    of Contacts.dynamics, v⁺ = dt v̇ (v = 0: no drift term)."""
    _, robot, num, feet = solo
    rng = np.random.default_rng(seed)
    q = _standing(robot, num)
    q[7:] += rng.normal(scale=0.1, size=12)
    q[3:7] = [*rng.normal(scale=0.05, size=3), 1.0]
    q[3:7] /= np.linalg.norm(q[3:7])
    tau, _ = feet.statics(q)
    tau[6:] += rng.normal(scale=0.2, size=12)
    v = np.zeros(18)
    a, lam = feet.dynamics(q, v, tau)
    mu = 5.0
    if np.any(np.hypot(lam[0::3], lam[1::3]) > 0.9 * mu * lam[2::3]):
        return  # a foot that would pull or slip: not a sticking case
    dt = 1e-3
    s = feet.step(q, v, tau, dt, mu=mu, ground=_heights(num, q, FEET), tol=1e-12, max_iter=5000)
    assert s.active.all()
    assert np.abs(s.lam / dt - lam).max() < 1e-9 * np.abs(lam).max()  # measured 1e-11
    assert np.abs(s.v - dt * a).max() < 1e-9


def test_frictionless_contacts_have_no_tangential_impulse(box, solo):
    """μ = 0: no tangential impulse at all; the box keeps its horizontal velocity."""
    robot, _, corners = box
    q, v = robot.neutral(), np.zeros(7)
    q[2] = 0.05
    v[:2] = [0.7, -0.4]
    s = corners.step(q, v, np.zeros(7), 0.01, mu=0.0)
    assert np.all(s.lam[0::3] == 0) and np.all(s.lam[1::3] == 0)
    assert np.abs(s.v[:2] - v[:2]).max() < 1e-12 and abs(s.lam[2::3].sum() - G0 * 0.01) < 1e-9
    _, srobot, num, feet = solo
    q = _standing(srobot, num)
    v = np.zeros(18)
    v[1] = 0.5
    tau, _ = feet.statics(q)
    s = feet.step(q, v, tau, 0.002, mu=0.0)
    assert np.all(s.lam[0::3] == 0) and np.all(s.lam[1::3] == 0) and np.all(s.lam[2::3] > 0)


def test_feet_above_the_ground(box, solo):
    """A foot above the ground (and not reaching it in the step): inactive, no impulse; all
    of them up: free fall, v⁺ = v + dt M⁻¹(τ − h), q⁺ = q ⊕ dt v⁺."""
    _, srobot, num, feet = solo
    q = _standing(srobot, num)
    tau, _ = feet.statics(q)
    ground = _heights(num, q, FEET)
    ground[2] -= 0.05  # a hole under the hind left foot
    s = feet.step(q, np.zeros(18), tau, 0.002, mu=1.0, ground=ground)
    assert s.active.tolist() == [True, True, False, True]
    assert np.all(s.lam[6:9] == 0) and np.all(s.lam[2::3][[0, 1, 3]] > 0)
    v = np.random.default_rng(2).normal(size=18)
    s = feet.step(q, v, tau, 0.002, mu=1.0, ground=-1.0)
    free = v + 0.002 * np.linalg.solve(num.M(q), tau - num.nonlinear_effects(q, v))
    assert not s.active.any() and np.all(s.lam == 0)
    assert np.abs(s.v - free).max() < 1e-12
    assert np.abs(s.q - num.integrate(q, free, 0.002)).max() < 1e-12
    robot, _, corners = box
    qb = robot.neutral()
    qb[2] = 0.5
    s = corners.step(qb, np.zeros(7), np.zeros(7), 0.01, mu=1.0)
    assert abs(s.v[2] + G0 * 0.01) < 1e-12  # the box's centre of mass is its origin


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mu=st.floats(0.1, 1.0),
    angle=st.floats(0.0, 2 * np.pi),
    speed=st.floats(0.3, 1.5),
)
def test_block_slides_at_mu_g_and_stops(box, mu, angle, speed):
    """The analytic case: a block on its four corners, pushed along any horizontal
    direction, decelerates by exactly μ g dt a step (its velocity keeps its direction),
    stops, and then stays at rest with no drift; every step dissipates energy."""
    robot, num, corners = box
    q, v = robot.neutral(), np.zeros(7)
    q[2] = 0.05
    d = np.array([np.cos(angle), np.sin(angle)])
    v[:2] = speed * d
    dt = 0.01
    stop = speed / (mu * G0)
    steps = int(stop / dt) + 40
    run = corners.rollout(q, v, np.zeros(7), dt, steps, mu=mu)
    want = np.maximum(speed - mu * G0 * dt * np.arange(steps + 1), 0.0)
    assert np.abs(run.v[:, :2] - want[:, None] * d).max() < 1e-8
    assert np.abs(run.v[:, 2:]).max() < 1e-8  # no bounce, no rocking, no spin
    rest = run.q[int(stop / dt) + 2 :]
    assert np.abs(rest - rest[0]).max() < 1e-9  # at rest, no drift
    E = 0.5 * np.einsum("ti,tij,tj->t", run.v, num.M(run.q), run.v) + G0 * run.q[:, 2]
    assert np.all(np.diff(E) <= 1e-10)


def test_sliding_on_ice_is_maximally_dissipative(solo):
    """Solo12 pushed sideways on ice (μ = 0.05), joints held by a PD law: every foot slides
    with its tangential impulse on the cone's boundary and opposite to its slip velocity
    after the step (computed here from J v⁺); the contact impulse never adds kinetic
    energy: ½v⁺ᵀMv⁺ ≤ ½v_freeᵀMv_free at every step."""
    _, robot, num, feet = solo
    q0 = _standing(robot, num)
    tau0, _ = feet.statics(q0)
    ground = _heights(num, q0, FEET)

    def law(t, q, v):
        u = tau0.copy()
        u[6:] += 20.0 * (q0[7:] - q[7:]) - 0.2 * v[6:]
        return u

    mu, dt = 0.05, 0.002
    q, v = q0.copy(), np.zeros(18)
    v[:2] = [0.3, 0.6]
    for n in range(15):
        tau = law(0.0, q, v)
        s = feet.step(q, v, tau, dt, mu=mu, ground=ground, tol=1e-11, max_iter=5000)
        M = num.M(q)
        free = v + dt * np.linalg.solve(M, tau - num.nonlinear_effects(q, v))
        assert 0.5 * s.v @ M @ s.v <= 0.5 * free @ M @ free + 1e-12
        J = feet.jacobian(q)
        slip = (J @ s.v).reshape(4, 3)[:, :2]
        lam = s.lam.reshape(4, 3)
        assert np.all(lam[:, 2] > 0)
        lt = np.hypot(lam[:, 0], lam[:, 1])
        assert np.allclose(lt, mu * lam[:, 2], rtol=1e-9, atol=0), n
        cos = np.sum(lam[:, :2] * slip, axis=1) / (lt * np.hypot(slip[:, 0], slip[:, 1]))
        assert np.all(cos < -1 + 1e-6), (n, cos)
        q, v = s.q, s.v
    assert v[1] < 0.6 - 0.8 * mu * G0 * 15 * dt  # braked: 0.89 μ g along y (slip along (1, 2))


def test_a_standing_robot_stays_at_rest(solo):
    """Solo12 standing on level ground with its gravity-compensating torques and μ = 0.8:
    after 200 steps it has not moved (no drift from the solver or the gap terms)."""
    _, robot, num, feet = solo
    q = _standing(robot, num)
    tau, lam = feet.statics(q)
    run = feet.rollout(q, np.zeros(18), tau, 0.002, 200, mu=0.8, ground=0.0)
    assert run.active.all() and run.converged.all()
    assert np.abs(run.q - q).max() < 1e-8 and np.abs(run.v).max() < 1e-7
    assert np.abs(run.lam[-1] / 0.002 - lam).max() < 1e-6 * np.abs(lam).max()


def test_batched_steps_equal_single_ones(solo):
    """A batch of states (2, 2) in one call equals each state alone."""
    _, robot, num, feet = solo
    rng = np.random.default_rng(4)
    q0 = _standing(robot, num)
    Q = np.tile(q0, (2, 2, 1))
    Q[..., 7:] += rng.normal(scale=0.05, size=(2, 2, 12))
    V = rng.normal(scale=0.3, size=(2, 2, 18))
    T = np.stack([[feet.statics(Q[i, j])[0] for j in range(2)] for i in range(2)])
    mu = np.array([0.2, 0.5, 0.8, 1.0])  # one coefficient a foot
    s = feet.step(Q, V, T, 0.002, mu=mu, tol=1e-12, max_iter=5000)
    assert s.lam.shape == (2, 2, 12) and s.active.shape == (2, 2, 4)
    for i in range(2):
        for j in range(2):
            one = feet.step(Q[i, j], V[i, j], T[i, j], 0.002, mu=mu, tol=1e-12, max_iter=5000)
            assert np.abs(one.lam - s.lam[i, j]).max() < 1e-9
            assert np.abs(one.q - s.q[i, j]).max() < 1e-12


def test_rollout_of_a_batch_with_a_torque_law(box):
    """rollout over a batch of two states with a law tau(t, q, v): shapes time first, the
    times, and each state's run equal to its own."""
    robot, _, corners = box
    Q = np.tile(robot.neutral(), (2, 1))
    Q[:, 2] = 0.05
    V = np.zeros((2, 7))
    V[:, 0] = [0.5, -0.3]
    seen = []

    def law(t, q, v):
        seen.append(t)
        return np.zeros((*q.shape[:-1], 7))

    run = corners.rollout(Q, V, law, 0.01, 5, mu=0.4, t0=1.0)
    assert (
        run.q.shape == (6, 2, 8) and run.lam.shape == (5, 2, 12) and run.active.shape == (5, 2, 4)
    )
    assert np.allclose(run.t, 1.0 + 0.01 * np.arange(6)) and np.allclose(seen, run.t[:-1])
    one = corners.rollout(Q[1], V[1], np.zeros(7), 0.01, 5, mu=0.4)
    assert np.abs(one.q - run.q[:, 1]).max() < 1e-12


def test_landing_stops_the_feet(box):
    """Dropped from 25 cm: the block lands (plastic, no bounce) and rests on its corners
    at the ground, never below it by more than the last step's fall."""
    robot, _, corners = box
    q = robot.neutral()
    q[2] = 0.3
    run = corners.rollout(q, np.zeros(7), np.zeros(7), 0.005, 120, mu=0.8)
    z = run.q[:, 2]
    assert np.all(z > 0.05 - 1e-9)  # speculative contacts: no penetration at all
    assert abs(z[-1] - 0.05) < 1e-9 and np.abs(run.v[-1]).max() < 1e-8


def test_gap_terms_and_compliance(box):
    """The documented terms of g and G, on the block lying flat (every corner alike):
    a penetration φ < 0 is pushed out at correction·(−φ)/dt (0 with correction=0); a
    corner above the ground falling fast lands exactly on it (speculative contact: v_n⁺ =
    −φ/dt); with compliance R a sticking corner sinks at R λ_n."""
    robot, num, corners = box
    dt = 0.01
    q, v, t = robot.neutral(), np.zeros(7), np.zeros(7)
    q[2] = 0.04  # 1 cm into the ground
    s = corners.step(q, v, t, dt, mu=1.0)
    assert abs(s.v[2] - 0.2 * 0.01 / dt) < 1e-9
    s = corners.step(q, v, t, dt, mu=1.0, correction=0.0)
    assert abs(s.v[2]) < 1e-9
    q[2], v[2] = 0.06, -2.0  # 1 cm above, falling at 2 m/s: it would pass through
    s = corners.step(q, v, t, dt, mu=1.0)
    assert s.active.all() and abs(s.v[2] + 0.01 / dt) < 1e-9 and abs(s.q[2] - 0.05) < 1e-11
    q[2], v[2] = 0.05, 0.0
    v[0] = 0.01  # slow: it sticks
    s = corners.step(q, v, t, dt, mu=1.0, compliance=0.2)
    J = corners.jacobian(q)
    lam = s.lam.reshape(4, 3)
    assert np.all(np.hypot(lam[:, 0], lam[:, 1]) < lam[:, 2])  # sticking
    assert np.abs(J @ s.v + 0.2 * s.lam).max() < 1e-9  # σ = J v⁺ + R λ = 0


# ---------------------------------------------------------------------- failures, inputs
def test_non_convergence_is_never_silent(box):
    """A solve stopped at max_iter: ConstraintError by default, FrictionWarning with
    on_failure='warn', the flags alone with 'status'."""
    robot, _, corners = box
    q, v = robot.neutral(), np.zeros(7)
    q[2], v[0] = 0.05, 1.0
    with pytest.raises(ConstraintError, match="did not converge.*residual"):
        corners.step(q, v, np.zeros(7), 0.01, mu=0.5, max_iter=1)
    with pytest.warns(FrictionWarning, match="did not converge"):
        s = corners.step(q, v, np.zeros(7), 0.01, mu=0.5, max_iter=1, on_failure="warn")
    assert not s.converged and s.residual > 1e-9
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = corners.step(q, v, np.zeros(7), 0.01, mu=0.5, max_iter=1, on_failure="status")
    assert not s.converged


def test_bad_inputs_are_named(box, solo):
    robot, num, corners = box
    q, v, t = robot.neutral(), np.zeros(7), np.zeros(7)
    bad = [
        (dict(dt=0.0), "dt must be a finite number > 0"),
        (dict(dt=-0.01), "dt must be"),
        (dict(dt=float("nan")), "dt must be"),
        (dict(mu=-0.1), r"mu \(the friction coefficient\) must be finite and >= 0"),
        (dict(mu=float("nan")), "mu"),
        (dict(mu=float("inf")), "mu"),
        (dict(mu=[0.1, 0.2]), "mu must be a number or 4 numbers"),
        (dict(margin=-1.0), "margin must be"),
        (dict(correction=1.5), "correction must be"),
        (dict(compliance=-1.0), "compliance must be"),
        (dict(ground=[0.0, 0.0]), "ground must be a number or"),
        (dict(ground=float("nan")), "ground must be finite"),
        (dict(tol=-1.0), "tol must be a positive number"),
        (dict(max_iter=0), "max_iter"),
        (dict(on_failure="ignore"), "on_failure must be one of"),
        (dict(mu="0.5"), "mu must be a number"),
        (dict(ground="0"), "ground must be a number"),
        (dict(method="newton"), "method must be one of pgs, admm"),
        (dict(dt=1e300), "take a smaller dt"),  # was a bare OverflowError in the sweeps
    ]
    for change, match in bad:
        args = dict(dt=0.01, mu=0.5) | change
        dt, mu = args.pop("dt"), args.pop("mu")
        with pytest.raises(LagdynError, match=match):
            corners.step(q, v, t, dt, mu=mu, **args)
    with pytest.raises(LagdynError, match="v must be finite"):
        corners.step(q, np.full(7, np.nan), t, 0.01, mu=0.5)
    with pytest.raises(ShapeError, match="v has shape"):
        corners.step(q, np.zeros(6), t, 0.01, mu=0.5)
    # complex input was cast to float64 with a ComplexWarning only (the imaginary part lost)
    with pytest.raises(ShapeError, match="tau must be real numbers .* got complex numbers"):
        corners.step(q, v, t + 1j, 0.01, mu=0.5)
    with pytest.raises(ShapeError, match="q must be real numbers .* got complex numbers"):
        num.M(q + 0j)
    with pytest.raises(ShapeError, match="tau has shape"):
        corners.step(q, v, np.zeros(8), 0.01, mu=0.5)
    with pytest.raises(ShapeError, match="q has shape"):
        corners.step(q[:7], v, t, 0.01, mu=0.5)
    with pytest.raises(LagdynError, match="steps must be a positive integer"):
        corners.rollout(q, v, t, 0.01, 0, mu=0.5)
    with pytest.raises(LagdynError, match="lam0 is not an option"):
        corners.rollout(q, v, t, 0.01, 2, mu=0.5, lam0=np.zeros(12))
    with pytest.raises(ShapeError, match=r"tau\(t, q, v\) has shape"):
        corners.rollout(q, v, lambda t, q, v: np.zeros(3), 0.01, 2, mu=0.5)
    # what the friction model does not cover, by name
    _, _, snum, _ = solo
    with pytest.raises(LagdynError, match=r"point contacts.*surface contacts \('FL_FOOT'"):
        snum.contacts([("FL_FOOT", 6), ("HR_FOOT", 3)]).step(
            np.r_[0, 0, 0.3, 0, 0, 0, 1, np.zeros(12)], np.zeros(18), np.zeros(18), 0.01, mu=1
        )
    with pytest.raises(LagdynError, match="reference='local'"):
        num.contacts(list(CORNERS), reference="local").step(q, v, t, 0.01, mu=0.5)
    from lagdyn.robot.contacts import closures
    from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf

    sdf = from_sdf(EXAMPLE_SDF, base="floating")
    rig = closures(sdf.tree.lambdify({"g": G0}, kernels=["M", "bias"]), sdf.loops, ["ground"])
    with pytest.raises(LagdynError, match=r"loops \(1\) are not contacts with the ground"):
        rig.step(sdf.tree.neutral(), np.zeros(9), np.zeros(9), 0.01, mu=0.5)
    # the solver's own inputs
    with pytest.raises(ShapeError, match="G must be"):
        solve_ncp(np.eye(4), np.zeros(4), 0.5)
    with pytest.raises(ShapeError, match="g must be"):
        solve_ncp(np.eye(3), np.zeros(6), 0.5)
    with pytest.raises(LagdynError, match="finite"):
        solve_ncp(np.eye(3), [0.0, np.nan, 0.0], 0.5)
    with pytest.raises(ShapeError, match="active must be"):
        solve_ncp(np.eye(3), np.zeros(3), 0.5, active=[True, False])
