"""Legged environments (lagdyn.gym.legged): a floating base on frictional point feet.

The toy quadruped ships built in (``QUADRUPED_URDF``, the same robot as
tests/data/quadruped_toy.urdf: checked below); Solo12 runs when example-robot-data is
installed."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.errors import LagdynError
from lagdyn.gym import tasks
from lagdyn.gym.legged import QUADRUPED_URDF, Legged, gravity_in_base
from lagdyn.gym.tasks import stand

gymnasium = pytest.importorskip("gymnasium")

TOY = Path(__file__).resolve().parent.parent / "data" / "quadruped_toy.urdf"
FEET = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
JOINTS = [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6]
ZERO = np.zeros(8, dtype=np.float32)
#: numpy kernels: nothing to compile (test_c_backend_agrees_with_numpy compiles the C ones)
QUAD = tasks.quadruped(backend="numpy")


def _has_robot_data() -> bool:
    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture(scope="module")
def toy() -> Legged:
    return tasks.quadruped(backend="numpy").model


def test_built_in_toy_is_the_tests_toy(toy: Legged) -> None:
    other = ld.robot.from_urdf(TOY, base="floating", parameters="numeric")
    num = other.lambdify({"g": 9.81}, kernels=["M", "bias"])
    rng = np.random.default_rng(3)
    q = np.tile(other.neutral(), (4, 1))
    q[:, 7:] = rng.uniform(-2, 2, size=(4, 8))
    q[:, 3:7] = rng.normal(size=(4, 4))
    q[:, 3:7] /= np.linalg.norm(q[:, 3:7], axis=1, keepdims=True)
    np.testing.assert_allclose(toy.num.M(q), num.M(q), rtol=0, atol=1e-14)
    for f in FEET:
        np.testing.assert_allclose(
            toy.num.frame_placement(q, f)[1], num.frame_placement(q, f)[1], atol=1e-14
        )


def test_gravity_in_base_against_scipy_rotations() -> None:
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(0)
    quat = rng.normal(size=(6, 4))
    q = np.zeros((6, 15))
    q[:, 3:7] = 2.5 * quat  # not normalised: gravity_in_base normalises
    expected = Rotation.from_quat(quat).inv().apply([0.0, 0.0, -1.0])
    np.testing.assert_allclose(gravity_in_base(q), expected, atol=1e-14)


@pytest.mark.slow  # compiles the toy's C kernels: ~6 s on a cold cache
def test_c_backend_agrees_with_numpy(toy: Legged) -> None:
    pytest.importorskip("cffi")
    compiled = tasks.quadruped()  # the default: C when cffi and a compiler are there
    assert compiled.model.num.backend == "c" and toy.num.backend == "numpy"
    envs = [ld.gym.make_vec(task, 2) for task in (compiled, QUAD)]
    for envs_ in envs:
        envs_.reset(seed=4)
    a = np.random.default_rng(1).uniform(-0.3, 0.3, size=(5, 2, 8)).astype(np.float32)
    for k in range(5):
        c, n = (e.step(a[k]) for e in envs)
        np.testing.assert_allclose(envs[0].state, envs[1].state, rtol=0, atol=1e-6)
        np.testing.assert_allclose(c[1], n[1], rtol=0, atol=1e-6)


def _rolled(toy: Legged, angle: float, height: float | None = None) -> np.ndarray:
    x = toy.state()
    x[3:7] = [np.sin(angle / 2), 0.0, 0.0, np.cos(angle / 2)]  # roll about the base x axis
    if height is not None:
        x[2] = height
    return x[None]


def test_stand_reward_and_termination_by_hand(toy: Legged) -> None:
    task = QUAD
    reward, termination = task.options["reward"], task.options["termination"]
    x = _rolled(toy, 0.3)
    effort = np.sum((toy.tau0[6:] / toy.max_torque) ** 2)  # torques at the nominal joints
    expected = 1.0 - np.sin(0.3) ** 2 - 0.01 * effort
    assert reward(x, np.zeros((1, 8)), x)[0] == pytest.approx(expected, abs=1e-12)
    x1 = x.copy()
    x1[0, 2] += 0.1  # 10 cm too high, moving at 1 m/s up and 2 rad/s in yaw
    x1[0, 15 + 2], x1[0, 15 + 5] = 1.0, 2.0
    drop = 50.0 * 0.1**2 + 0.05 * (1.0 + 4.0)
    assert reward(x, np.zeros((1, 8)), x1)[0] == pytest.approx(expected - drop, abs=1e-12)
    states = np.concatenate(
        [_rolled(toy, 0.75), _rolled(toy, -0.85), _rolled(toy, 0.0, 0.49 * toy.height)]
    )
    assert termination(states).tolist() == [False, True, True]


def test_check_env_passes() -> None:
    from gymnasium.utils.env_checker import check_env

    env = ld.gym.make(QUAD, max_episode_steps=5)
    check_env(env, skip_render_check=True)


def test_reset_and_steps_are_reproducible_from_the_seed() -> None:
    runs = []
    for _ in range(2):
        env = ld.gym.make(QUAD)
        obs, _ = env.reset(seed=7)
        env.action_space.seed(7)
        trace = [obs]
        for _ in range(3):
            trace.append(env.step(env.action_space.sample())[0])
        runs.append(np.array(trace))
    np.testing.assert_array_equal(runs[0], runs[1])
    other, _ = ld.gym.make(QUAD).reset(seed=8)
    assert not np.array_equal(other, runs[0][0])


def test_standing_with_the_nominal_action(toy: Legged) -> None:
    env = ld.gym.make(QUAD)
    env.reset(seed=1)
    for _ in range(50):  # 1 s
        obs, reward, terminated, truncated, info = env.step(ZERO)
        assert not (terminated or truncated), info
    assert abs(obs[0] - toy.height) < 0.01  # base height
    assert obs[3] < -0.999  # upright: gravity along −z of the base
    assert np.abs(obs[4:10]).max() < 0.05  # nearly still
    assert reward > 0.95


def test_zero_torques_fall_and_a_push_tips_over() -> None:
    env = ld.gym.make(tasks.quadruped(control="torque", backend="numpy"))
    env.reset(seed=0)
    for _ in range(50):
        obs, _, terminated, truncated, _ = env.step(ZERO)
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert obs[0] < 0.5 * 0.2229 or obs[3] > -np.cos(0.8)  # fell, or tipped over

    env = ld.gym.make(QUAD)
    x = tasks.quadruped(backend="numpy").model.state()
    x[15 + 1] = 3.0  # a sideways push: the base at 3 m/s
    env.reset(options={"state": x})
    for _ in range(50):
        obs, _, terminated, truncated, _ = env.step(ZERO)
        if terminated:
            break
    assert terminated


def test_vector_env_equals_the_single_envs(toy: Legged) -> None:
    N = 3
    envs = ld.gym.make_vec(QUAD, N)
    obs, _ = envs.reset(seed=2)
    singles = [ld.gym.make(QUAD) for _ in range(N)]
    for i, env in enumerate(singles):
        o, _ = env.reset(options={"state": envs.state[i]})
        np.testing.assert_array_equal(o, obs[i])
    rng = np.random.default_rng(0)
    for _ in range(5):
        a = rng.uniform(-0.5, 0.5, size=(N, 8)).astype(np.float32)
        obs, rewards, terminated, truncated, info = envs.step(a)
        for i, env in enumerate(singles):
            o, r, te, tr, inf = env.step(a[i])
            # one batched Gauss–Seidel solve sweeps until every robot converges: the states
            # agree to the solver's tolerance, not bit for bit
            np.testing.assert_allclose(envs.state[i], env.state, rtol=0, atol=1e-6)
            assert abs(r - rewards[i]) < 1e-5 and te == terminated[i] and tr == truncated[i]


def test_a_failed_contact_solve_truncates_with_info() -> None:
    task = tasks.quadruped(backend="numpy")
    legged = Legged(
        QUADRUPED_URDF, FEET, JOINTS, backend="numpy", contact={"max_iter": 1, "tol": 1e-14}
    )
    env = ld.gym.make(stand(legged))
    env.reset(seed=0)
    obs, _, terminated, truncated, info = env.step(ZERO)
    assert truncated and not terminated
    assert info["contact_failed"] and info["contact_residual"] > 1e-14
    envs = ld.gym.make_vec(stand(legged), 2)
    envs.reset(seed=0)
    _, _, _, truncated, info = envs.step(np.zeros((2, 8), dtype=np.float32))
    assert truncated.all() and info["contact_failed"].all() and info["_contact_failed"].all()
    assert task.model is tasks.quadruped(backend="numpy").model  # built once a process
    # the next step restarts the robots that failed (NextStep autoreset): reward 0, no flag
    _, rewards, _, truncated, info = envs.step(np.zeros((2, 8), dtype=np.float32))
    assert not truncated.any() and "contact_failed" not in info and not rewards.any()
    same = ld.gym.make_vec(stand(legged), 2, autoreset_mode="SameStep")
    same.reset(seed=0)
    _, _, _, truncated, info = same.step(np.zeros((2, 8), dtype=np.float32))
    assert truncated.all() and info["contact_failed"].all() and info["_final_obs"].all()


def test_params_rebuild_the_task() -> None:
    env = ld.gym.make(QUAD, params={"g": 1.62})
    legged = env.unwrapped._core.stepper.legged
    assert legged.params == {"g": 1.62}
    earth = tasks.quadruped(backend="numpy").model
    np.testing.assert_allclose(legged.tau0, earth.tau0 * 1.62 / 9.81, rtol=1e-12, atol=1e-15)


def test_user_observation_and_reward() -> None:
    env = ld.gym.make(
        QUAD,
        observation=lambda x: x[:, :3],
        reward=lambda x, a, x1: x1[:, 2],
        max_episode_steps=2,
    )
    obs, _ = env.reset(seed=0)
    assert obs.shape == (3,) and env.observation_space.shape == (3,)
    obs, reward, _, truncated, _ = env.step(ZERO)
    assert reward == pytest.approx(env.state[2]) and not truncated
    assert env.step(ZERO)[3]


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Legged(QUADRUPED_URDF, FEET, JOINTS, backend="numpy", control="speed"), "control"),
        (lambda: Legged(QUADRUPED_URDF, ["FL_TOE"], JOINTS, backend="numpy"), "FL_TOE"),
        (lambda: Legged(QUADRUPED_URDF, FEET, JOINTS[:5], backend="numpy"), "joints"),
        (
            lambda: Legged(QUADRUPED_URDF, FEET, JOINTS, backend="numpy", max_torque=0.05),
            "max_torque",
        ),
        (
            lambda: Legged(
                QUADRUPED_URDF, FEET, JOINTS, backend="numpy", contact={"on_failure": "raise"}
            ),
            "on_failure",
        ),
        (lambda: Legged(QUADRUPED_URDF, FEET, JOINTS, backend="numpy", mu=-1.0), "mu"),
        (
            lambda: Legged(
                QUADRUPED_URDF, FEET, JOINTS, backend="numpy", contact={"compliance": -1.0}
            ),
            "compliance",
        ),
        (lambda: Legged(3.0, FEET, JOINTS, backend="numpy"), "robot"),
        (lambda: ld.gym.make(QUAD, integrator="rk4"), "integrator"),
        (lambda: ld.gym.make(QUAD, render_mode="rgb_array"), "render_mode"),
        (lambda: ld.gym.make(QUAD, observation="sincos"), "observation"),
        (lambda: ld.gym.make(QUAD, substeps=0), "substeps"),
        (lambda: ld.gym.make(QUAD, initial_state=np.zeros(3)), "initial_state"),
        (lambda: ld.gym.make(QUAD).reset(options={"state": np.zeros(28)}), "state"),
        (lambda: stand("not a robot"), "Legged"),
        (lambda: tasks.quadruped(max_tilt=-1.0, backend="numpy"), "max_tilt"),
        (lambda: ld.gym.make(QUAD, params={"gravity": 1.0}), "gravity"),
        (lambda: Legged(QUADRUPED_URDF, FEET, JOINTS, backend="numpy", params=[1.0]), "params"),
    ],
)
def test_bad_options_are_named(make, match) -> None:
    with pytest.raises(LagdynError, match=match):
        make()


@pytest.mark.skipif(not _has_robot_data(), reason="example-robot-data missing")
def test_solo12_stands() -> None:
    env = ld.gym.make(tasks.solo12(backend="numpy"))
    obs, _ = env.reset(seed=0)
    assert obs.shape == (34,) and env.action_space.shape == (12,)
    for _ in range(25):
        obs, reward, terminated, truncated, info = env.step(np.zeros(12, dtype=np.float32))
        assert not (terminated or truncated), info
    assert abs(obs[0] - env.unwrapped._core.stepper.legged.height) < 0.01 and reward > 0.9


@pytest.mark.skipif(not _has_robot_data(), reason="example-robot-data missing")
def test_solo12_vector_step_equals_single_steps_to_the_solver_tolerance() -> None:
    task = tasks.solo12(backend="numpy")
    envs = ld.gym.make_vec(task, 3)
    envs.reset(seed=5)
    x0 = envs.state
    a = np.random.default_rng(2).uniform(-0.5, 0.5, size=(3, 12)).astype(np.float32)
    envs.step(a)
    for i in range(3):
        env = ld.gym.make(task)
        env.reset(options={"state": x0[i]})
        env.step(a[i])
        # Gauss–Seidel keeps sweeping robots that have converged while others have not:
        # one step agrees to about 1e-5 (tol 1e-6 m/s at the feet; light legs), not exactly
        np.testing.assert_allclose(envs.state[i], env.state, rtol=0, atol=1e-4)
