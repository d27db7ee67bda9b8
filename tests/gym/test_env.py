"""lagdyn.gym: environments of any model, the vector environment, seeding, autoreset, rendering,
the integrators against ld.simulate, and every bad input named."""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np
import pytest
import sympy as sp

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import lagdyn as ld  # noqa: E402
from lagdyn.errors import BackendUnavailableError, LagdynError, ShapeError  # noqa: E402


@pytest.fixture(scope="module")
def dp():
    return ld.zoo.double_pendulum()


@pytest.fixture(scope="module")
def particle():
    """A free unit mass on a line: q̈ = τ, exact for every integrator's arithmetic."""
    (x,) = ld.coordinates("x")
    return ld.LagrangianSystem.from_mass_matrix([[1]], 0, [x])


def _stepping(env, k):
    return [env.step(env.action_space.sample()) for _ in range(k)]


# --------------------------------------------------------------------------- Gymnasium's checker
#: The checker's warnings that Gymnasium's own classic-control environments give as well.
ALLOWED = re.compile(
    r"infinity|recommend using a symmetric and normalized space|"
    r"Not able to test alternative render modes"
)


def _check(env):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    unexpected = [str(w.message) for w in caught if not ALLOWED.search(str(w.message))]
    assert not unexpected, unexpected


@pytest.mark.parametrize(
    ("name", "compat"),
    [
        ("pendulum", False),
        ("cart_pole", False),
        ("cart_pole", True),
        ("acrobot", False),
        ("acrobot", True),
    ],
)
def test_check_env_passes_for_every_task(name, compat):
    task = ld.gym.tasks.get(name, **({"gymnasium_compat": True} if compat else {}))
    _check(ld.gym.make(task, backend="numpy", render_mode="rgb_array"))


def test_check_env_passes_for_a_user_model(dp):
    env = ld.gym.make(
        dp,
        params={"m2": 2.0},
        actuated=["b"],
        action_space=5.0,
        reward=lambda x, tau, x1: -(x1[:, 2] ** 2) - 0.01 * tau[:, 0] ** 2,
        termination=lambda x: np.abs(x[:, 3]) > 100.0,
        max_episode_steps=50,
        observation="sincos",
        velocity_limits=30.0,
        backend="numpy",
        render_mode="rgb_array",
    )
    _check(env)
    assert env.observation_space.shape == (6,)
    assert env.observation_space.high.tolist() == [1, 1, 1, 1, 30, 30]


# --------------------------------------------------------------------------- the model
def test_missing_gymnasium_names_the_extra(monkeypatch, dp):
    # load lagdyn.gym first: its classes take gymnasium's bases when first imported, and a
    # first import under the block would leave this worker's later tests without them
    import lagdyn.gym.env  # noqa: F401

    monkeypatch.setitem(sys.modules, "gymnasium", None)
    with pytest.raises(BackendUnavailableError, match=r"pip install 'lagdyn\[rl\]'"):
        ld.gym.make(dp)
    with pytest.raises(BackendUnavailableError, match=r"pip install 'lagdyn\[rl\]'"):
        ld.gym.make_vec("cart_pole", 2)


def test_numeric_model_with_free_parameters_equals_the_system(dp):
    free = dp.lambdify({"m1": 1.0, "m2": 1.0, "l1": 1.0, "l2": 1.0})  # g left free
    a = ld.gym.make(free, params={"g": 10.0}, dt=0.01)
    b = ld.gym.make(dp, dt=0.01, backend="numpy")
    assert a.backend == b.backend == "numpy"
    for env in (a, b):
        env.reset(options={"state": [0.5, -0.2, 0.0, 1.0]})
        for _ in range(3):
            env.step([0.3, -0.1])
    np.testing.assert_allclose(a.state, b.state, rtol=1e-13, atol=1e-14)
    with pytest.raises(LagdynError, match="m1 were bound when the model was lambdified"):
        ld.gym.make(free, params={"g": 10.0, "m1": 2.0})
    with pytest.raises(ld.UnboundParameterError):
        ld.gym.make(free)


def test_a_duck_typed_model_is_stepped_by_stages():
    class Oscillator:
        n = 1

        def forward_dynamics(self, q, qd, tau=None):
            return -np.asarray(q) + (0 if tau is None else tau)

        def energy(self, q, qd):
            return 0.5 * (np.asarray(q) ** 2 + np.asarray(qd) ** 2).sum(-1)

    env = ld.gym.make(Oscillator(), dt=0.1, integrator="euler")
    assert env.backend == "user" and env.coordinates == ("q0",)
    env.reset(options={"state": [1.0, 0.0]})
    env.step([0.0])
    np.testing.assert_allclose(env.state, [1.0, -0.1])  # q' = q + h q̇, q̇' = q̇ + h q̈
    with pytest.raises(LagdynError, match="params= applies to systems"):
        ld.gym.make(Oscillator(), params={"k": 1})


@pytest.mark.parametrize("integrator", ["rk4", "midpoint"])
def test_steps_are_those_of_simulate(dp, integrator):
    env = ld.gym.make(dp, dt=0.05, integrator=integrator, substeps=2, backend="numpy")
    x0 = np.array([0.4, -0.3, 0.2, 0.1])
    env.reset(options={"state": x0})
    tau = np.array([0.5, -0.25])
    for _ in range(4):
        env.step(tau)
    res = ld.simulate(dp, x0, np.linspace(0, 0.2, 5), method=integrator, substeps=2, tau=tau)
    np.testing.assert_allclose(env.state, np.concatenate([res.q[-1], res.qd[-1]]), atol=1e-12)
    assert env.t == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("integrator", "expected"),
    [
        ("euler", [1.0 + 0.5 * 2.0, 2.0 + 0.5 * 3.0]),
        ("semi-implicit euler", [1.0 + 0.5 * 5.0, 5.0]),
    ],
)
def test_euler_steps(particle, integrator, expected):
    env = ld.gym.make(particle, dt=0.5, integrator=integrator, backend="numpy")
    env.reset(options={"state": [1.0, 2.0]})
    env.step([6.0])  # q̈ = 6
    assert env.state.tolist() == pytest.approx(
        [expected[0], 2.0 + 3.0] if integrator == "euler" else expected
    )


def test_time_dependent_forces_see_the_time_since_reset():
    (x,) = ld.coordinates("x")
    forced = ld.LagrangianSystem.from_mass_matrix([[1]], 0, [x], forces=[sp.cos(ld.t)])
    env = ld.gym.make(forced, dt=0.1, backend="numpy")
    env.reset(options={"state": [0.0, 0.0]})
    for _ in range(10):
        env.step([0.0])
    res = ld.simulate(forced, [0.0, 0.0], np.linspace(0, 1, 11))  # RK4 as the env
    np.testing.assert_allclose(env.state, [res.q[-1, 0], res.qd[-1, 0]], atol=1e-14)
    with pytest.raises(LagdynError, match="forces do not depend on time"):
        ld.gym.make(forced, integrator="midpoint", backend="numpy")


# --------------------------------------------------------------------------- the vector env
def test_vector_env_is_one_kernel_call_per_step_and_matches_single_envs(dp):
    envs = ld.gym.make_vec(dp, 5, dt=0.02, action_space=2.0, backend="numpy")
    assert envs.fused
    calls = []
    kernels = envs._core.stepper.kernels
    batch = kernels.batch

    def counted(name, *args):
        calls.append((name, args[0].shape))
        return batch(name, *args)

    envs._core.stepper.kernels = type("K", (), {"batch": staticmethod(counted)})()
    rng = np.random.default_rng(0)
    x0 = rng.uniform(-1, 1, size=(5, 4))
    envs.reset(options={"state": x0})
    actions = rng.uniform(-2, 2, size=(3, 5, 2)).astype(np.float32)
    for a in actions:
        obs, *_ = envs.step(a)
    assert calls == [("step", (5, 4))] * 3
    single = ld.gym.make(dp, dt=0.02, action_space=2.0, backend="numpy")
    for i in range(5):
        single.reset(options={"state": x0[i]})
        for a in actions:
            o, *_ = single.step(a[i])
        np.testing.assert_array_equal(o, obs[i])


def test_c_backend_matches_numpy():
    """The compiled step (C through cffi, the default when available) equals numpy's."""
    pytest.importorskip("cffi")
    task = ld.gym.tasks.pendulum()
    try:
        fast = ld.gym.make_vec(task, 64, integrator="semi-implicit euler", backend="c")
    except BackendUnavailableError as exc:  # pragma: no cover - no compiler
        pytest.skip(str(exc))
    slow = ld.gym.make_vec(task, 64, integrator="semi-implicit euler", backend="numpy")
    assert fast.backend == "c" and fast.fused
    a = np.random.default_rng(1).uniform(-2, 2, size=(64, 1)).astype(np.float32)
    for env in (fast, slow):
        env.reset(seed=7)
        for _ in range(5):
            env.step(a)
    np.testing.assert_allclose(fast.state, slow.state, rtol=1e-12, atol=1e-12)


def test_c_direct_step_with_substeps_time_and_staggered_resets():
    """The C step kernel called directly (no generic wrapper): substeps, a time per copy
    (time-dependent forces, copies reset at different steps) and τ per copy, as numpy."""
    pytest.importorskip("cffi")
    (x,) = ld.coordinates("x")
    forced = ld.LagrangianSystem.from_mass_matrix([[1]], 0, [x], forces=[sp.cos(3 * ld.t)])
    try:
        fast = ld.gym.make_vec(forced, 3, dt=0.1, substeps=3, action_space=1.0, backend="c")
    except BackendUnavailableError as exc:  # pragma: no cover - no compiler
        pytest.skip(str(exc))
    slow = ld.gym.make_vec(forced, 3, dt=0.1, substeps=3, action_space=1.0, backend="numpy")
    assert fast._core.stepper.direct() is not None
    a = np.random.default_rng(2).uniform(-1, 1, size=(6, 3, 1)).astype(np.float32)
    mask = np.array([True, False, True])
    for env in (fast, slow):
        env.reset(options={"state": [0.0, 0.0]})
        for k, ak in enumerate(a):
            if k == 2:
                env.reset(options={"reset_mask": mask, "state": [0.5, -0.5]})
            env.step(ak)
    np.testing.assert_allclose(fast.t, [0.4, 0.6, 0.4])
    np.testing.assert_allclose(fast.state, slow.state, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", ["pendulum", "cart_pole", "acrobot"])
def test_tasks_fast_paths_agree_with_their_callables(name):
    """The shortcuts the environments take for the ready-made tasks (results not copied nor
    checked, the acrobot's reward from the termination) give what the callables return."""
    from lagdyn.gym._core import BY_TERMINATION, fresh

    options = ld.gym.tasks.get(name).options
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, size=(256, 4 if name != "pendulum" else 2))
    tau = rng.uniform(-1, 1, size=(256, 1))
    reward, termination = options["reward"], options.get("termination")
    assert fresh(reward) and (termination is None or fresh(termination))
    r = reward(x, tau, x)
    assert r.dtype == np.float64 and r.shape == (256,) and np.isfinite(r).all()
    pair = getattr(reward, BY_TERMINATION, None)
    if pair is not None:
        done = termination(x)
        assert 0 < done.sum() < 256
        np.testing.assert_array_equal(np.where(done, *pair), r)
    envs = ld.gym.make_vec(name, 8, backend="numpy")
    obs, _ = envs.reset(seed=0)
    assert obs.dtype == np.float32 and obs.flags.c_contiguous
    assert envs.state.flags.c_contiguous


def test_seeding_is_reproducible():
    env = ld.gym.make("pendulum", backend="numpy")
    first = env.reset(seed=3)[0]
    assert not np.array_equal(first, env.reset(seed=4)[0])
    np.testing.assert_array_equal(first, env.reset(seed=3)[0])
    envs = ld.gym.make_vec("pendulum", 4, backend="numpy")
    a = envs.reset(seed=3)[0]
    assert len({tuple(row) for row in a}) == 4
    np.testing.assert_array_equal(a, envs.reset(seed=3)[0])
    with pytest.raises(LagdynError, match="seed must be an int"):
        envs.reset(seed=[1, 2, 3, 4])


def _walker(particle, **options):
    """Particles at speed 1 from 0, terminated past x = 0.25 (the 3rd step of 0.1)."""
    return ld.gym.make_vec(
        particle,
        2,
        dt=0.1,
        integrator="euler",
        action_space=1.0,
        termination=lambda x: x[:, 0] > 0.25,
        reward=lambda x, tau, x1: x1[:, 0],
        initial_state=[0.0, 1.0],
        reset_noise=0.0,
        backend="numpy",
        **options,
    )


def test_next_step_autoreset(particle):
    envs = _walker(particle)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    envs.reset(seed=0, options={"state": [[0.0, 1.0], [0.2, 1.0]]})
    zero = np.zeros((2, 1))
    obs, r, term, trunc, _ = envs.step(zero)
    np.testing.assert_allclose(obs[:, 0], [0.1, 0.3])
    assert term.tolist() == [False, True] and not trunc.any()
    obs, r, term, trunc, _ = envs.step(zero)  # copy 1 restarts: its reset state, reward 0
    np.testing.assert_allclose(obs[:, 0], [0.2, 0.0])
    np.testing.assert_allclose(r, [0.2, 0.0])
    assert not term.any() and envs.t.tolist() == pytest.approx([0.2, 0.0])
    obs, r, term, trunc, _ = envs.step(zero)
    np.testing.assert_allclose(obs[:, 0], [0.3, 0.1])
    assert term.tolist() == [True, False]


def test_same_step_autoreset(particle):
    envs = _walker(particle, autoreset_mode="SameStep")
    envs.reset(seed=0, options={"state": [[0.0, 1.0], [0.2, 1.0]]})
    obs, r, term, trunc, info = envs.step(np.zeros((2, 1)))
    assert term.tolist() == [False, True]
    np.testing.assert_allclose(obs[:, 0], [0.1, 0.0])  # copy 1 already restarted
    assert info["_final_obs"].tolist() == [False, True] and info["final_obs"][0] is None
    np.testing.assert_allclose(info["final_obs"][1], [0.3, 1.0])
    np.testing.assert_allclose(r, [0.1, 0.3])


def test_disabled_autoreset_and_reset_mask(particle):
    envs = _walker(particle, autoreset_mode=AutoresetMode.DISABLED)
    envs.reset(seed=0, options={"state": [[0.0, 1.0], [0.2, 1.0]]})
    envs.step(np.zeros((2, 1)))
    obs, *_ = envs.step(np.zeros((2, 1)))
    np.testing.assert_allclose(obs[:, 0], [0.2, 0.4])  # no autoreset
    obs, _ = envs.reset(options={"reset_mask": np.array([False, True])})
    np.testing.assert_allclose(obs[:, 0], [0.2, 0.0])
    assert envs.t.tolist() == pytest.approx([0.2, 0.0])


def test_reset_noise_per_coordinate(particle):
    env = ld.gym.make(
        particle, initial_state=[1.0, 2.0], reset_noise=np.array([0.0, 0.5]), backend="numpy"
    )
    states = np.array([env.reset(seed=s)[0] for s in range(20)])
    assert (states[:, 0] == 1.0).all() and np.ptp(states[:, 1]) > 0.2
    assert np.abs(states[:, 1] - 2.0).max() <= 0.5


def test_truncation(particle):
    env = ld.gym.make(particle, max_episode_steps=3, backend="numpy")
    env.reset(seed=0)
    flags = [env.step([0.0])[3] for _ in range(3)]
    assert flags == [False, False, True]


# --------------------------------------------------------------------------- actions, observations
def test_discrete_torques_on_named_coordinates(dp):
    env = ld.gym.make(
        dp,
        actuated=["b"],
        torques=[-2.0, 0.0, 2.0],
        dt=0.1,
        integrator="euler",
        backend="numpy",
    )
    assert env.action_space == gym.spaces.Discrete(3)
    env.reset(options={"state": [0.0, 0.0, 0.0, 0.0]})
    env.step(np.int64(2))
    num = dp.lambdify(dp.defaults)
    expected = 0.1 * num.forward_dynamics([0.0, 0.0], [0.0, 0.0], [0.0, 2.0])
    np.testing.assert_allclose(env.state[2:], expected)
    with pytest.raises(LagdynError, match=r"actions must be in 0\.\.2"):
        env.step(3)
    with pytest.raises(LagdynError, match=r"actions must be in 0\.\.2 \(Discrete\(3\)\); got -1"):
        env.step(-1)
    with pytest.raises(ShapeError, match="actions must be integers"):
        env.step(1.0)


def test_box_actions_are_clipped(particle):
    env = ld.gym.make(
        particle, dt=1.0, integrator="semi-implicit euler", action_space=2.0, backend="numpy"
    )
    env.reset(options={"state": [0.0, 0.0]})
    env.step([5.0])
    assert env.state.tolist() == [2.0, 2.0]
    with pytest.raises(LagdynError, match="action of environment 0 is not finite"):
        env.step([np.nan])
    with pytest.raises(ShapeError, match=r"actions must have shape \(1,\)"):
        env.step([1.0, 2.0])


def test_observations(dp):
    wrapped = ld.gym.make(dp, observation="wrapped", backend="numpy")
    sincos = ld.gym.make(dp, observation="sincos", backend="numpy")
    x = [7.0, -4.0, 0.5, -0.5]
    assert wrapped.reset(options={"state": x})[0].tolist() == pytest.approx(
        [7.0 - 2 * np.pi, -4.0 + 2 * np.pi, 0.5, -0.5], abs=1e-6
    )
    assert sincos.reset(options={"state": x})[0].tolist() == pytest.approx(
        [np.cos(7.0), np.sin(7.0), np.cos(-4.0), np.sin(-4.0), 0.5, -0.5], abs=1e-6
    )
    custom = ld.gym.make(
        dp,
        observation=lambda x: x[:, :1] * 2,
        observation_space=([-10.0], [10.0]),
        dtype=np.float64,
        backend="numpy",
    )
    obs, _ = custom.reset(options={"state": x})
    assert obs.dtype == np.float64 and obs.tolist() == [14.0]
    assert custom.observation_space == gym.spaces.Box(-10.0, 10.0, (1,), np.float64)


def test_angles_are_found_in_the_drawing():
    from lagdyn.gym._core import detect_angles

    for name, expected in [("cart_pole", (1,)), ("elastic_pendulum", (1,)), ("acrobot", (0, 1))]:
        system = ld.zoo.get(name)
        positions = system.drawing.positions(system.q, system.defaults)
        assert detect_angles(positions, system.n) == expected


def test_wrap_angles_and_velocity_limits_in_the_kernel_and_in_stages(dp):
    x0 = [3.1, 0.0, 40.0, -40.0]
    num = dp.lambdify(dp.defaults)

    class Staged:  # no system behind it: the integrator's stages around forward_dynamics
        n = 2
        forward_dynamics = staticmethod(num.forward_dynamics)

    states = []
    for backend in ("numpy", None):
        env = ld.gym.make(
            dp if backend else Staged(),
            wrap_angles=True,
            angles=[0, 1],
            velocity_limits=[20.0, np.inf],
            dt=0.05,
            backend=backend,
        )
        assert env._core.stepper.fused is (backend is not None)
        env.reset(options={"state": x0})
        env.step([0.0, 0.0])
        states.append(env.state)
    fused, staged = states
    np.testing.assert_allclose(fused, staged, atol=1e-12)
    assert -np.pi <= fused[0] < np.pi and fused[2] == 20.0 and fused[3] < -30.0
    env.reset(options={"state": [7.0, -4.0, 0.0, 0.0]})  # resets are wrapped as steps are
    assert env.state[:2].tolist() == pytest.approx([7.0 - 2 * np.pi, -4.0 + 2 * np.pi])
    assert env.observation_space.contains(env.reset(seed=0)[0])


# --------------------------------------------------------------------------- rendering
def test_render_draws_the_model():
    env = ld.gym.make("cart_pole", render_mode="rgb_array", backend="numpy")
    env.reset(options={"state": [-1.0, 0.0, 0.0, 0.0]})
    left = env.render()
    assert left.shape == (400, 600, 3) and left.dtype == np.uint8
    env.reset(options={"state": [1.0, 0.0, 0.0, 0.0]})
    right = env.render()
    dark = (right.sum(axis=2) < 300).nonzero()[1]  # the cart's columns
    assert 0.6 * 600 < dark.mean() < 0.8 * 600  # x = 1 in a window of [-2.4, 2.4]
    assert not np.array_equal(left, right)
    spatial = ld.gym.make("furuta_pendulum", render_mode="rgb_array", backend="numpy")
    spatial.reset(seed=0)
    frame = spatial.render()
    assert frame.shape == (400, 400, 3) and (frame < 250).any()
    with pytest.warns(UserWarning, match="render_mode='rgb_array'"):
        assert ld.gym.make("pendulum", backend="numpy").render() is None  # no render mode


def test_vector_render_gives_one_frame_per_copy():
    envs = ld.gym.make_vec(
        "acrobot", 3, render_mode="rgb_array", render_size=(64, 48), backend="numpy"
    )
    envs.reset(seed=0)
    frames = envs.render()
    assert len(frames) == 3 and all(f.shape == (48, 64, 3) for f in frames)


# --------------------------------------------------------------------------- tasks
def test_task_parameters_reach_its_termination():
    """make(task, params=...) rebuilds the task: its termination reads the new l1."""
    sideways = {"state": [0.0, np.pi / 2, 0.0, 0.0]}  # link 1 level, link 2 up: tip 2 lc2 = 2 high
    short = ld.gym.make("acrobot", dt=1e-3, backend="numpy")
    short.reset(options=sideways)
    assert short.step(1)[2]  # above l1 = 1
    tall = ld.gym.make("acrobot", params={"l1": 5.0}, dt=1e-3, backend="numpy")
    tall.reset(options=sideways)
    assert not tall.step(1)[2]  # not above l1 = 5


def test_tasks_are_named():
    assert ld.gym.tasks.names() == ["acrobot", "cart_pole", "pendulum", "quadruped", "solo12"]
    with pytest.raises(LagdynError, match="unknown task 'cartpole'; tasks: acrobot, cart_pole"):
        ld.gym.tasks.get("cartpole")


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"integrator": "verlet"}, "unknown integrator 'verlet'"),
        ({"dt": 0.0}, "dt must be a finite positive number"),
        ({"substeps": 0}, "substeps must be a positive integer"),
        ({"params": {"mass": 1.0}}, "params: mass are not parameters of the model"),
        ({"render_mode": "human"}, "render_mode must be None or 'rgb_array'"),
        ({"reward": 1.0}, "reward must be a callable"),
        ({"actuated": ["phi"]}, "actuated: 'phi' is not a coordinate"),
        ({"actuated": [0, 0]}, "actuated: coordinate 'a' is given twice"),
        ({"action_space": [1.0, 2.0, 3.0]}, r"action_space as limits must be one number or 2"),
        ({"action_space": -1.0}, "action_space limits must be positive"),
        ({"torques": [[1.0], [2.0]]}, r"torques must hold one τ of 2 values"),
        ({"torques": [[1.0, 0.0]], "action_space": 1.0}, "torques= gives 1 discrete actions"),
        ({"velocity_limits": -1.0}, "velocity_limits must be positive"),
        ({"reset_noise": -0.1}, "reset_noise must be finite and non-negative"),
        ({"reset_noise": [0.1, 0.2]}, "reset_noise must be one number or 4 numbers"),
        ({"observation": "angles"}, "unknown observation 'angles'"),
        ({"observation_space": ([0.0], [1.0])}, "observation_space= goes with a callable"),
        ({"max_episode_steps": 0}, "max_episode_steps must be a positive integer"),
        ({"initial_state": [0.0]}, r"initial_state must be a state \(q, q̇\) of shape \(4,\)"),
        ({"render_bounds": (1, 0, 0, 1)}, "render_bounds must be finite with xmin < xmax"),
        (
            {"reset": lambda rng, size: 0, "initial_state": [0.0] * 4},
            "either reset= or initial_state=",
        ),
        ({"backend": "fortran"}, "unknown numeric backend 'fortran'"),
    ],
)
def test_bad_options_are_named(dp, options, message):
    options = {"render_mode": "rgb_array", **options} if "render_bounds" in options else options
    with pytest.raises(LagdynError, match=message):
        ld.gym.make(dp, **{"backend": "numpy", **options})


def test_bad_models_are_named(particle):
    with pytest.raises(LagdynError, match="unknown model 'doble_pendulum'"):
        ld.gym.make("doble_pendulum")
    with pytest.raises(LagdynError, match="lagdyn.gym needs a zoo name"):
        ld.gym.make(42)
    with pytest.raises(LagdynError, match="steps unconstrained models"):
        ld.gym.make(ld.zoo.mechanisms.cartesian_pendulum())
    m = sp.Symbol("m", positive=True)
    (x,) = ld.coordinates("x")
    heavy = ld.LagrangianSystem.from_mass_matrix([[m]], 0, [x])
    with pytest.raises(LagdynError, match=r"parameters m have no value .* params=\{'m': \.\.\.\}"):
        ld.gym.make(heavy)
    with pytest.raises(LagdynError, match="breaks the assumption that m is positive"):
        ld.gym.make(heavy, params={"m": -1.0})
    with pytest.raises(LagdynError, match="carries none: attach one"):
        ld.gym.make(particle, render_mode="rgb_array")
    with pytest.raises(LagdynError, match="needs angle coordinates"):
        ld.gym.make(particle, observation="sincos")
    with pytest.raises(LagdynError, match="num_envs must be a positive integer"):
        ld.gym.make_vec(particle, 0)
    with pytest.raises(LagdynError, match="autoreset_mode must be"):
        ld.gym.make_vec(particle, 2, autoreset_mode="sometimes")


def test_bad_calls_are_named(particle):
    env = ld.gym.make(particle, backend="numpy")
    with pytest.raises(LagdynError, match=r"call reset\(\) before step\(\)"):
        env.step([0.0])
    with pytest.raises(LagdynError, match="unknown reset options low"):
        env.reset(options={"low": -1})
    with pytest.raises(ShapeError, match=r'options\["state"\] must be a state'):
        env.reset(options={"state": [1.0, 2.0, 3.0]})
    envs = ld.gym.make_vec(particle, 2, backend="numpy")
    envs.reset(seed=0)
    with pytest.raises(ShapeError, match=r"reset_mask'\] must be booleans of shape \(2,\)"):
        envs.reset(options={"reset_mask": np.array([1, 0])})
    with pytest.raises(LagdynError, match="selects no copy"):
        envs.reset(options={"reset_mask": np.zeros(2, dtype=bool)})
    bad = ld.gym.make(particle, reset=lambda rng, size: np.full((size, 2), np.nan), backend="numpy")
    with pytest.raises(LagdynError, match="reset.* returned NaN or infinite states"):
        bad.reset(seed=0)
    with pytest.raises(ShapeError, match=r"reset\(rng, size\) must return real states of shape"):
        ld.gym.make(particle, reset=lambda rng, size: np.zeros(3), backend="numpy").reset()
    wrong = ld.gym.make(particle, reward=lambda x, tau, x1: np.zeros(3), backend="numpy")
    wrong.reset(seed=0)
    with pytest.raises(ShapeError, match=r"reward\(x, tau, x_next\) must return shape \(1,\)"):
        wrong.step([0.0])


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_a_blow_up_is_named_not_returned(particle):
    envs = ld.gym.make_vec(particle, 3, dt=1.0, backend="numpy")
    envs.reset(options={"state": [[0.0, 0.0], [0.0, 1e308], [0.0, 0.0]]})
    with pytest.raises(LagdynError, match="environment 1: the state became NaN or infinite"):
        envs.step(np.array([[0.0], [1e308], [0.0]]))
    nan_reward = ld.gym.make(
        particle, reward=lambda x, tau, x1: np.log(x1[:, 0] - 1.0), backend="numpy"
    )
    nan_reward.reset(options={"state": [0.0, 0.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(LagdynError, match="reward.* is nan for environment 0"):
            nan_reward.step([0.0])


def test_a_robot_chain_on_its_recursive_route():
    """A RobotSystem lambdified on the recursive route (RNEA/CRBA programs, no closed form):
    the step kernel inlines those programs, and the steps are those of ld.simulate."""
    arm = ld.robot.from_dh(
        [(0, 1, 0), (0, 1, 0)],
        parameters="numeric",
        inertia=[{"m": 1, "com": (-0.5, 0, 0), "I": (0.1, 0.1, 0.1, 0, 0, 0)}] * 2,
        gravity=(0, -9.81, 0),
    )
    num = arm.lambdify({}, route="recursive")
    env = ld.gym.make(num, dt=0.01, action_space=5.0)
    assert env._core.model.route == "recursive" and env._core.stepper.fused
    x0 = np.array([0.3, -0.2, 0.0, 0.5])
    env.reset(options={"state": x0})
    for _ in range(3):
        env.step(np.array([1.0, -1.0], dtype=np.float32))
    res = ld.simulate(num, x0, np.linspace(0, 0.03, 4), tau=[1.0, -1.0])
    np.testing.assert_allclose(env.state, np.concatenate([res.q[-1], res.qd[-1]]), atol=1e-14)
