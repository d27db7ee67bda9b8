"""Gymnasium environments of lagdyn models: :class:`LagdynEnv` and :class:`LagdynVectorEnv`.

Both are built by :func:`make` / :func:`make_vec` (or their constructors, which take the
same arguments) around one batched transition (``lagdyn.gym._core.Core``): the vector
environment steps its N copies with one call of the model's compiled step kernel, the single
environment is the same transition with N = 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import LagdynError, ShapeError
from ._core import (
    INTEGRATORS,
    Actions,
    Core,
    Observations,
    build_stepper,
    coordinate_indices,
    detect_angles,
    given_state,
    import_gymnasium,
    limits,
    positive_number,
    reset_states,
    resolve,
    uniform_reset,
)
from .tasks import Task
from .tasks import get as get_task
from .tasks import names as task_names

__all__ = ["LagdynEnv", "LagdynVectorEnv", "make", "make_vec"]


def _bases() -> tuple[type, type]:
    """gymnasium's ``Env`` and ``VectorEnv``; plain ``object`` when gymnasium is missing (the
    classes then exist, for imports and docs, but cannot be instantiated)."""
    try:
        import gymnasium
        import gymnasium.vector
    except ImportError:
        return object, object
    return gymnasium.Env, gymnasium.vector.VectorEnv


if TYPE_CHECKING:  # pragma: no cover
    from gymnasium import Env as _EnvBase
    from gymnasium.vector import VectorEnv as _VectorEnvBase
else:
    _EnvBase, _VectorEnvBase = _bases()

#: Defaults of the options of :func:`make` that a task does not set.
DEFAULTS: dict[str, Any] = {
    "dt": 0.02,
    "integrator": "rk4",
    "substeps": 1,
    "observation": "state",
    "angles": "auto",
    "wrap_angles": False,
    "reset_noise": 0.05,
    "render_size": (400, 400),
    "dtype": np.float32,
}
RENDER_MODES = ("rgb_array",)


def build_core(model: Any, options: Mapping[str, Any]) -> tuple[Core, str | None]:
    """The transition of ``model`` with ``options`` (those of :func:`make`), and the render
    mode: task options under the given ones, then :data:`DEFAULTS`."""
    given = {k: v for k, v in options.items() if v is not None}
    if isinstance(model, str) and model in task_names():
        model = get_task(model)
    if isinstance(model, Task):
        if "params" in given:
            model = model.with_params(given.pop("params"))
        given = {**model.options, **given}
        model = model.model
    from .legged import Legged

    if isinstance(model, Legged):  # frictional contact steps of a floating base
        return model.core(given), None
    cfg = {**DEFAULTS, **given}
    resolved = resolve(model, cfg.get("params"))
    n, names = resolved.n, resolved.names

    dt = positive_number("dt", cfg["dt"])
    substeps = cfg["substeps"]
    if isinstance(substeps, bool) or not isinstance(substeps, (int, np.integer)) or substeps < 1:
        raise LagdynError(f"substeps must be a positive integer, got {substeps!r}")
    integrator = cfg["integrator"]
    if integrator not in INTEGRATORS:
        raise LagdynError(
            f"unknown integrator {integrator!r}; choose from {', '.join(map(repr, INTEGRATORS))}"
        )
    render_mode = cfg.get("render_mode")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise LagdynError(
            f"render_mode must be None or 'rgb_array' (frames as arrays, no window), got "
            f"{render_mode!r}"
        )
    max_steps = cfg.get("max_episode_steps")
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1
    ):
        raise LagdynError(f"max_episode_steps must be a positive integer, got {max_steps!r}")
    for key in ("reward", "termination", "reset"):
        if key in cfg and not callable(cfg[key]):
            raise LagdynError(f"{key} must be a callable, got {type(cfg[key]).__name__}")

    actions = Actions(n, names, cfg.get("actuated"), cfg.get("action_space"), cfg.get("torques"))
    velocity_limits = limits("velocity_limits", cfg.get("velocity_limits"), n)

    observation = cfg["observation"]
    wrap_angles = bool(cfg["wrap_angles"])
    drawing, positions = _drawing(resolved)
    need_angles = wrap_angles or observation in ("wrapped", "sincos")
    angles_spec = cfg["angles"]
    if isinstance(angles_spec, str) and angles_spec == "auto":
        angles = detect_angles(positions, n) if need_angles else ()
    else:
        angles = coordinate_indices("angles", angles_spec, names)
    if wrap_angles and not angles:
        raise LagdynError(
            "wrap_angles=True needs angle coordinates: pass angles=[...] (names or indices); "
            "none were found in the model's drawing"
        )
    observations = Observations(
        observation,
        cfg.get("observation_space"),
        n,
        angles,
        velocity_limits,
        wrap_angles,
        cfg["dtype"],
    )

    reset_fn = cfg.get("reset")
    if reset_fn is None:
        center = (
            np.zeros(2 * n)
            if cfg.get("initial_state") is None
            else _state("initial_state", cfg["initial_state"], n)
        )
        reset_fn = uniform_reset(center, _noise(cfg["reset_noise"], 2 * n))
    elif cfg.get("initial_state") is not None:
        raise LagdynError("pass either reset= or initial_state= (with reset_noise=), not both")

    renderer = None
    if render_mode is not None:
        from ._render import Renderer

        if drawing is None or positions is None:
            raise LagdynError(
                "render_mode='rgb_array' draws the model's drawing, and this model carries none: "
                "attach one with lagdyn.geometry.attach(system, Drawing(...))"
            )
        rng = np.random.default_rng(0)
        samples = np.zeros((65, n))
        samples[1:] = rng.uniform(-1.0, 1.0, size=(64, n))
        samples[1:, list(angles or detect_angles(positions, n))] *= math.pi
        renderer = Renderer(
            positions, drawing, cfg["render_size"], cfg.get("render_bounds"), samples
        )

    stepper = build_stepper(
        resolved,
        integrator,
        dt,
        int(substeps),
        cfg.get("backend"),
        angles if wrap_angles else (),
        velocity_limits,
    )
    core = Core(
        wrap=angles if wrap_angles else (),
        velocity_limits=velocity_limits,
        model=resolved,
        stepper=stepper,
        actions=actions,
        observations=observations,
        reset=reset_fn,
        reward=cfg.get("reward"),
        termination=cfg.get("termination"),
        max_episode_steps=None if max_steps is None else int(max_steps),
        dt=dt,
        integrator=integrator,
        renderer=renderer,
    )
    return core, render_mode


def _state(label: str, value: Any, n: int) -> np.ndarray:
    from ..codegen.binding import real_array

    x = real_array(label, value)
    if x.dtype.kind not in "fiu" or x.shape != (2 * n,):
        raise ShapeError(f"{label} must be a state (q, q̇) of shape ({2 * n},); got {x.shape}")
    x = x.astype(np.float64)
    if not np.isfinite(x).all():
        raise LagdynError(f"{label} contains NaN or infinite values")
    return x


def _noise(value: Any, k: int) -> np.ndarray:
    """``reset_noise``: one or ``k`` finite non-negative half-widths."""
    from ..codegen.binding import real_array

    arr = real_array("reset_noise", value)
    if arr.dtype.kind not in "fiu" or arr.ndim > 1 or (arr.ndim == 1 and arr.shape != (k,)):
        raise ShapeError(f"reset_noise must be one number or {k} numbers; got {value!r}")
    arr = np.broadcast_to(arr.astype(np.float64), (k,)).copy()
    if not (np.isfinite(arr).all() and (arr >= 0).all()):
        raise LagdynError(f"reset_noise must be finite and non-negative, got {arr.tolist()}")
    return arr


def _drawing(model: Any) -> tuple[Any, Callable[[Any], np.ndarray] | None]:
    """The model's drawing and its ``positions(q)`` with the parameter values bound."""
    from ..geometry import drawing_of

    system = model.system
    drawing = drawing_of(system) if system is not None else None
    if drawing is None:
        return None, None
    return drawing, drawing.positions(system.q, model.values)


def _fps(dt: float) -> int:
    return max(1, round(1.0 / dt))


def _options(
    params: Mapping[Any, Any] | None,
    dt: float | None,
    integrator: str | None,
    substeps: int | None,
    actuated: Any,
    action_space: Any,
    torques: Any,
    reward: Any,
    termination: Any,
    max_episode_steps: int | None,
    observation: Any,
    observation_space: Any,
    angles: Any,
    wrap_angles: bool | None,
    velocity_limits: Any,
    initial_state: Any,
    reset_noise: Any,
    reset: Any,
    render_mode: str | None,
    render_size: Sequence[int] | None,
    render_bounds: Sequence[float] | None,
    backend: str | None,
    dtype: Any,
) -> dict[str, Any]:
    return dict(locals())


class _CoreView:
    """What a single and a vector environment report of their shared step (``_core``)."""

    _core: Any

    @property
    def dt(self) -> float:
        """The time step of :meth:`step`."""
        return self._core.dt

    @property
    def n(self) -> int:
        """Degrees of freedom."""
        return self._core.model.n

    @property
    def coordinates(self) -> tuple[str, ...]:
        """The names of the model's coordinates."""
        return self._core.model.names

    @property
    def integrator(self) -> str:
        """The integrator of a step."""
        return self._core.integrator

    @property
    def backend(self) -> str:
        """Where the step runs (``"c"``, ``"numpy"``, ...)."""
        return self._core.stepper.backend


class LagdynEnv(_CoreView, _EnvBase):
    """One environment of a lagdyn model (a ``gymnasium.Env``); see :func:`make`.

    Observations and actions are NumPy arrays (``observation_space``, ``action_space``);
    :meth:`reset` draws the initial state from ``np_random`` (seeded by ``reset(seed=...)``),
    :meth:`step` integrates one step of ``dt``, :meth:`render` returns the model's picture
    (``render_mode="rgb_array"``).

    Attributes
    ----------
    state : ndarray, shape (2n,)
        The current state (q, q̇), float64 (a copy); (q, v) of nq + nv entries for a legged
        model (:mod:`lagdyn.gym.legged`).
    t : float
        Time since the last reset.
    dt : float
        The step.
    n : int
        Degrees of freedom of the model.
    coordinates : tuple of str
        The model's coordinate names.
    integrator, backend : str
        How a step is taken (``backend`` is where the step runs: ``"c"``, ``"numpy"``, ...).

    Examples
    --------
    >>> import lagdyn as ld
    >>> env = ld.gym.make("cart_pole", backend="numpy")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, env.action_space
    ((4,), Discrete(2))
    >>> obs, reward, terminated, truncated, info = env.step(1)
    >>> reward, terminated, truncated
    (1.0, False, False)
    """

    def __init__(self, model: Any, **options: Any) -> None:
        gym = import_gymnasium()
        self._core, self.render_mode = build_core(model, options)
        core = self._core
        self.metadata = {"render_modes": list(RENDER_MODES), "render_fps": _fps(core.dt)}
        self.action_space = core.actions.space(gym)
        self.observation_space = core.observations.space(gym, core.model.n)
        self._x: np.ndarray | None = None
        self._steps = np.zeros(1, dtype=np.int64)

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode: ``(observation, info)``.

        ``seed`` seeds ``np_random`` (the initial state's draw); ``options={"state": x}``
        starts from the state ``x = (q, q̇)`` instead of a draw.

        Examples
        --------
        >>> import lagdyn as ld
        >>> env = ld.gym.make("pendulum", backend="numpy")
        >>> obs, _ = env.reset(options={"state": [3.14159, 0.0]})
        >>> obs.round(3)
        array([-1.,  0.,  0.], dtype=float32)
        """
        super().reset(seed=seed)
        core = self._core
        state = _reset_options(options, ("state",)).get("state")
        if state is not None:
            x = core.settle(given_state(state, 1, core.model.n, width=core.width))
        else:
            x = core.settle(
                reset_states(core.reset, self.np_random, 1, core.model.n, width=core.width)
            )
        self._x = x
        self._steps = np.zeros(1, dtype=np.int64)
        return core.observations(x)[0], {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """One step of ``dt`` under ``action``: ``(obs, reward, terminated, truncated, info)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> env = ld.gym.make("double_pendulum", action_space=1.0, backend="numpy")
        >>> _ = env.reset(seed=1)
        >>> obs, reward, terminated, truncated, info = env.step([0.5, 0.0])
        >>> obs.shape, reward, terminated, truncated
        ((4,), 0.0, False, False)
        """
        x = self._x
        if x is None:
            raise LagdynError("call reset() before step()")
        core = self._core
        tau, applied = core.actions(action, 1, True)
        x1 = core.advance(x, tau, self._steps)
        steps = self._steps + 1
        core.check_finite(x1, steps)
        reward, terminated = core.outcome(x, applied, x1)
        self._x, self._steps = x1, steps
        limit = core.max_episode_steps
        truncated = limit is not None and int(steps[0]) >= limit
        info: dict[str, Any] = {}
        failures = core.failures()
        if failures is not None and failures[0][0]:  # the contact solve did not converge
            truncated = True
            info = {"contact_failed": True, "contact_residual": float(failures[1][0])}
        return (
            core.observations(x1)[0],
            float(reward[0]),
            bool(terminated[0]),
            bool(truncated),
            info,
        )

    def render(self) -> np.ndarray | None:
        """The current configuration as an RGB image ``(height, width, 3)`` of ``uint8``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> env = ld.gym.make("acrobot", render_mode="rgb_array", backend="numpy")
        >>> _ = env.reset(seed=0)
        >>> env.render().shape
        (500, 500, 3)
        """
        if self.render_mode is None:
            import_gymnasium().logger.warn(
                "render() without a render mode: make the environment with render_mode='rgb_array'"
            )
            return None
        if self._x is None:
            raise LagdynError("call reset() before render()")
        return self._core.renderer(self._x[0, : self._core.model.n])

    # ------------------------------------------------------------------ lagdyn's view
    @property
    def state(self) -> np.ndarray:
        """The current state ``(q, q̇)`` (float64, a copy; raises before :meth:`reset`)."""
        if self._x is None:
            raise LagdynError("call reset() before reading state")
        return self._x[0].copy()

    @property
    def t(self) -> float:
        """Time since the last reset."""
        return float(self._steps[0] * self._core.dt)

    def __repr__(self) -> str:
        return (
            f"<LagdynEnv n={self.n} dt={self.dt:g} integrator={self.integrator!r} "
            f"backend={self.backend!r}>"
        )

    __str__ = __repr__


class LagdynVectorEnv(_CoreView, _VectorEnvBase):
    """``num_envs`` copies of a lagdyn model stepped together (a ``gymnasium.vector.VectorEnv``);
    see :func:`make_vec`.

    A step of every copy is one call of the model's batched step kernel; the observations,
    rewards, terminations and truncations come back as arrays with the copies along the first
    axis. Episodes restart by Gymnasium's autoreset rules (``metadata["autoreset_mode"]``):
    ``NEXT_STEP`` (default: the step after an episode ends resets that copy and returns its
    first observation with reward 0), ``SAME_STEP`` (the ending step resets it and puts the
    last observation in ``info["final_obs"]``) or ``DISABLED`` (reset copies yourself with
    ``reset(options={"reset_mask": mask})``).

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> envs = ld.gym.make_vec("cart_pole", num_envs=8, backend="numpy")
    >>> obs, info = envs.reset(seed=0)
    >>> obs.shape, envs.action_space
    ((8, 4), MultiDiscrete([2 2 2 2 2 2 2 2]))
    >>> obs, rewards, terminated, truncated, info = envs.step(np.ones(8, dtype=int))
    >>> rewards
    array([1., 1., 1., 1., 1., 1., 1., 1.])
    """

    def __init__(
        self,
        model: Any,
        num_envs: int,
        *,
        autoreset_mode: Any = None,
        **options: Any,
    ) -> None:
        gym = import_gymnasium()
        from gymnasium.vector.utils import batch_space

        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise LagdynError(f"num_envs must be a positive integer, got {num_envs!r}")
        if num_envs < 1:
            raise LagdynError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.num_envs = int(num_envs)
        mode = _autoreset_mode(gym, autoreset_mode)
        self._core, self.render_mode = build_core(model, options)
        core = self._core
        self.metadata = {
            "render_modes": list(RENDER_MODES),
            "render_fps": _fps(core.dt),
            "autoreset_mode": mode,
        }
        self._mode = mode.name
        self.single_action_space = core.actions.space(gym)
        self.single_observation_space = core.observations.space(gym, core.model.n)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        N = self.num_envs
        self._x: np.ndarray | None = None
        self._steps = np.zeros(N, dtype=np.int64)
        self._done = np.zeros(N, dtype=bool)
        self._restart = False  # NEXT_STEP: some copies ended last step
        from ._vstep import whole_step

        # the whole step in one C call when every piece has a symbolic form (else Python)
        self._whole = whole_step(core, N, mode.name, self._steps, self._done)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start new episodes: ``(observations, info)``.

        ``seed`` (an int) seeds ``np_random``, from which every copy's initial state is
        drawn; ``options={"reset_mask": mask}`` resets only the copies where the boolean
        ``mask`` of shape ``(num_envs,)`` is True, ``options={"state": x}`` starts from ``x``
        (one state ``(2n,)`` or one per reset copy).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> envs = ld.gym.make_vec("pendulum", num_envs=3, backend="numpy")
        >>> obs, _ = envs.reset(seed=1)
        >>> again, _ = envs.reset(seed=1)
        >>> bool(np.array_equal(obs, again))
        True
        """
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise LagdynError(
                f"seed must be an int or None (one generator draws every copy), got {seed!r}"
            )
        super().reset(seed=seed)
        core, N, n = self._core, self.num_envs, self._core.model.n
        opts = _reset_options(options, ("state", "reset_mask"))
        mask = opts.get("reset_mask")
        if mask is None or self._x is None:
            if mask is not None:
                raise LagdynError("options['reset_mask'] needs a first reset() of every copy")
            idx = np.ones(N, dtype=bool)
        else:
            idx = _mask(mask, N)
        k = int(idx.sum())
        state = opts.get("state")
        fresh = core.settle(
            given_state(state, k, n, width=core.width)
            if state is not None
            else reset_states(core.reset, self.np_random, k, n, width=core.width)
        )
        whole = self._whole
        if whole is not None:  # the kernel's own state buffer, written in place
            whole.state[idx] = fresh
            self._x = whole.state
            whole.rekey(self.np_random)
        elif self._x is None:
            self._x = fresh
        else:
            x = self._x.copy()
            x[idx] = fresh
            self._x = x
        self._steps[idx] = 0
        self._done[idx] = False
        self._restart = self._mode == "NEXT_STEP" and bool(self._done.any())
        return core.observations(self._x), {}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One step of every copy: ``(obs, rewards, terminated, truncated, info)``.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> envs = ld.gym.make_vec("acrobot", num_envs=4, backend="numpy")
        >>> _ = envs.reset(seed=0)
        >>> obs, rewards, terminated, truncated, info = envs.step(np.array([0, 1, 2, 1]))
        >>> obs.shape, rewards
        ((4, 6), array([-1., -1., -1., -1.]))
        """
        x = self._x
        if x is None:
            raise LagdynError("call reset() before step()")
        whole = self._whole
        if whole is not None:
            obs, rewards, terminated, truncated, ended = whole(actions)
            self._x = whole.state
            if ended:  # SAME_STEP: the copies restarted in this step
                return obs, rewards, terminated, truncated, self._final_info(terminated | truncated)
            return obs, rewards, terminated, truncated, {}
        core, N = self._core, self.num_envs
        tau, applied = core.actions(actions, N, False)
        steps = self._steps
        x1 = core.advance(x, tau, steps)
        steps += 1
        restart = self._restart
        done = self._done
        if restart:  # copies that ended last step start their next episode in this one
            idx = np.flatnonzero(done)  # integer indices: cheaper than the mask, used 5 times
            fresh = reset_states(
                core.reset, self.np_random, idx.size, core.model.n, finite=False, width=core.width
            )
            x1[idx] = core.settle(fresh)
            steps[idx] = 0
        core.check_finite(x1, steps, done if restart else None)
        rewards, terminated = core.outcome(x, applied, x1)
        limit = core.max_episode_steps
        truncated = steps >= limit if limit is not None else np.zeros(N, dtype=bool)
        info: dict[str, Any] = {}
        failures = core.failures()
        if failures is not None:  # contact solves that did not converge truncate the episode
            failed = failures[0].copy()
            if restart:
                failed[idx] = False
            if failed.any():
                truncated = truncated | failed
                residual = np.where(failed, failures[1], 0.0)
                info = {
                    "contact_failed": failed,
                    "_contact_failed": failed.copy(),
                    "contact_residual": residual,
                    "_contact_residual": failed.copy(),
                }
        if restart:
            rewards[idx] = 0.0
            terminated[idx] = False
            truncated[idx] = False
        ended = terminated | truncated
        mode = self._mode
        if mode == "SAME_STEP":
            if ended.any():
                final = core.observations(x1[ended])
                final_obs = np.full(N, None, dtype=object)
                for i, row in zip(np.flatnonzero(ended), final):
                    final_obs[i] = row
                info = {
                    **info,
                    "final_obs": final_obs,
                    "_final_obs": ended.copy(),
                    "final_info": {},
                    "_final_info": ended.copy(),
                }
                k = int(ended.sum())
                x1[ended] = core.settle(
                    reset_states(core.reset, self.np_random, k, core.model.n, width=core.width)
                )
                steps[ended] = 0
        else:
            self._done = ended
            self._restart = mode == "NEXT_STEP" and bool(ended.any())
        self._x = x1
        return core.observations(x1), rewards, terminated, truncated, info

    def _final_info(self, ended: np.ndarray) -> dict[str, Any]:
        """``info`` of a ``SameStep`` step in which the copies ``ended`` restarted."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        assert self._whole is not None
        for i in np.flatnonzero(ended):
            final_obs[i] = self._whole.final[i].copy()
        return {
            "final_obs": final_obs,
            "_final_obs": ended.copy(),
            "final_info": {},
            "_final_info": ended.copy(),
        }

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One RGB image ``(height, width, 3)`` of ``uint8`` per copy.

        Examples
        --------
        >>> import lagdyn as ld
        >>> envs = ld.gym.make_vec("pendulum", num_envs=2, render_mode="rgb_array", backend="numpy")
        >>> _ = envs.reset(seed=0)
        >>> [frame.shape for frame in envs.render()]
        [(500, 500, 3), (500, 500, 3)]
        """
        if self.render_mode is None:
            import_gymnasium().logger.warn(
                "render() without a render mode: make the environments with render_mode='rgb_array'"
            )
            return None
        if self._x is None:
            raise LagdynError("call reset() before render()")
        n = self._core.model.n
        return tuple(self._core.renderer(x[:n]) for x in self._x)

    @property
    def state(self) -> np.ndarray:
        """The current states ``(num_envs, 2n)`` (float64, a copy; ``(num_envs, nq + nv)``
        for a legged model)."""
        if self._x is None:
            raise LagdynError("call reset() before reading state")
        return self._x.copy()

    @property
    def t(self) -> np.ndarray:
        """Time since each copy's last reset, ``(num_envs,)``."""
        return self._steps * self._core.dt

    @property
    def fused(self) -> bool:
        """True when a step is one call of a generated step kernel (else stages around
        ``forward_dynamics``)."""
        return bool(self._core.stepper.fused)

    @property
    def whole_step(self) -> bool:
        """True when a step of every copy — action, dynamics, termination, reward,
        autoreset and observation — is one call of one generated C function (the C backend,
        and every piece with a symbolic form: the ready-made tasks, the built-in
        observations and resets); else the kernel's dynamics with the rest in numpy.

        Examples
        --------
        >>> import lagdyn as ld
        >>> envs = ld.gym.make_vec("cart_pole", num_envs=4, backend="numpy")
        >>> envs.whole_step  # numpy: the generated step kernel, the rest in numpy
        False
        """
        return self._whole is not None

    def __repr__(self) -> str:
        return (
            f"LagdynVectorEnv(num_envs={self.num_envs}, n={self.n}, dt={self.dt:g}, "
            f"integrator={self.integrator!r}, backend={self.backend!r})"
        )


def _autoreset_mode(gym: Any, value: Any) -> Any:
    modes = gym.vector.AutoresetMode
    if value is None:
        return modes.NEXT_STEP
    if isinstance(value, modes):
        return value
    if isinstance(value, str):
        key = value.replace("-", "_").replace(" ", "_")
        for mode in modes:
            if key.upper() == mode.name or value == mode.value:
                return mode
    raise LagdynError(
        f"autoreset_mode must be a gymnasium.vector.AutoresetMode or one of "
        f"{', '.join(repr(m.value) for m in modes)}, got {value!r}"
    )


def _reset_options(options: Any, known: tuple[str, ...]) -> dict[str, Any]:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise LagdynError(f"options must be a dict, got {type(options).__name__}")
    unknown = sorted(str(k) for k in options if k not in known)
    if unknown:
        raise LagdynError(f"unknown reset options {', '.join(unknown)}; known: {', '.join(known)}")
    return dict(options)


def _mask(mask: Any, N: int) -> np.ndarray:
    m = np.asarray(mask)
    if m.dtype != np.bool_ or m.shape != (N,):
        raise ShapeError(
            f"options['reset_mask'] must be booleans of shape ({N},), got {m.dtype} of shape "
            f"{m.shape}"
        )
    if not m.any():
        raise LagdynError("options['reset_mask'] selects no copy: set at least one True")
    return m


def make(
    model: Any,
    *,
    params: Mapping[Any, Any] | None = None,
    dt: float | None = None,
    integrator: str | None = None,
    substeps: int | None = None,
    actuated: Any = None,
    action_space: Any = None,
    torques: Any = None,
    reward: Callable[[np.ndarray, np.ndarray, np.ndarray], Any] | None = None,
    termination: Callable[[np.ndarray], Any] | None = None,
    max_episode_steps: int | None = None,
    observation: Any = None,
    observation_space: Any = None,
    angles: Any = None,
    wrap_angles: bool | None = None,
    velocity_limits: Any = None,
    initial_state: Any = None,
    reset_noise: Any = None,
    reset: Callable[[np.random.Generator, int], Any] | None = None,
    render_mode: str | None = None,
    render_size: Sequence[int] | None = None,
    render_bounds: Sequence[float] | None = None,
    backend: str | None = None,
    dtype: Any = None,
) -> LagdynEnv:
    r"""A ``gymnasium.Env`` whose dynamics are a lagdyn model.

    The state is ``x = (q, q̇)`` (float64, ``2n`` entries); an action sets the generalized
    forces τ on the actuated coordinates (zero on the others) for one step of ``dt``.
    Callables are batched: they receive arrays with one row per environment (one row here,
    ``num_envs`` rows in :func:`make_vec`), so the same functions serve both.

    Parameters
    ----------
    model : str, Task, LagrangianSystem, RobotSystem, NumericModel or model
        A task name (:func:`lagdyn.gym.tasks.names`: ``"pendulum"``, ``"cart_pole"``,
        ``"acrobot"``; ``"quadruped"``, ``"solo12"``: legged robots on frictional feet,
        :mod:`lagdyn.gym.legged`) or :class:`~lagdyn.gym.tasks.Task`; another zoo name; a
        system (its ``defaults`` under ``params``); a ``NumericModel`` from ``lambdify``
        (``params`` gives its free parameters); or any object with ``n`` and a batched
        ``forward_dynamics(q, qd, tau)``. Constrained systems are refused.
    params : mapping, optional
        Parameter values (symbols or names) over the model's defaults; every parameter needs
        a value. For a task, the task is rebuilt with them.
    dt : float
        The step (default 0.02 s, or the task's).
    integrator : {"rk4", "euler", "semi-implicit euler", "midpoint"}
        How a step is integrated (default ``"rk4"``): classical RK4, explicit Euler
        (``q' = q + h q̇``, ``q̇' = q̇ + h q̈``), semi-implicit Euler (``q̇'`` first, then
        ``q' = q + h q̇'``), or the implicit midpoint rule of :func:`lagdyn.simulate`
        (symplectic; Newton with the generated Jacobian; closed-form systems only). τ is held
        over the step.
    substeps : int
        Integrator steps per environment step (default 1).
    actuated : sequence of int or str, optional
        The coordinates the actions drive (indices or names; default all, in order).
    action_space : None, number, array or gymnasium Box
        Bounds of τ on the actuated coordinates: ``None`` unbounded, a number or one per
        actuated coordinate ``L`` for ``Box(-L, L)``, or a ``Box`` of shape ``(m,)``. Actions
        are clipped to finite bounds.
    torques : sequence, optional
        Discrete actions instead: action ``k`` applies ``torques[k]`` (a number when one
        coordinate is actuated, else ``m`` numbers); the space is ``Discrete(len(torques))``.
    reward : callable, optional
        ``reward(x, tau, x_next) -> (B,)``: states before and after the step ``(B, 2n)``
        and the applied τ on the actuated coordinates ``(B, m)``. Default 0.
    termination : callable, optional
        ``termination(x_next) -> (B,)`` booleans: the episode ends (terminated). Default never.
    max_episode_steps : int, optional
        Episodes are truncated after this many steps (default never).
    observation : {"state", "wrapped", "sincos"} or callable
        ``"state"`` (default) observes ``(q, q̇)``; ``"wrapped"`` the angles wrapped to
        [−π, π); ``"sincos"`` each angle ``q_i`` as ``(cos q_i, sin q_i)`` (then the other
        coordinates, then q̇); a callable ``observation(x) -> (B, k)`` anything else.
    observation_space : gymnasium Space or (low, high), optional
        The space of a callable observation (default unbounded, its shape probed).
    angles : "auto" or sequence of int or str
        The angle coordinates (for ``"wrapped"``, ``"sincos"`` and ``wrap_angles``); ``"auto"``
        (default) takes the coordinates the model's drawing moves and repeats after 2π.
    wrap_angles : bool
        Wrap the angles of the state to [−π, π) after every step (default False).
    velocity_limits : number or sequence, optional
        Clip q̇ to ±limit after every step (one number, or one per coordinate, ``inf`` for
        none); bounds the observation space of q̇.
    initial_state, reset_noise : optional
        Resets draw ``x`` uniformly in ``initial_state ± reset_noise`` (defaults zeros and
        0.05; a number or ``2n`` numbers).
    reset : callable, optional
        ``reset(rng, size) -> (size, 2n)``: initial states drawn from the generator ``rng``
        (replaces ``initial_state``/``reset_noise``).
    render_mode : {None, "rgb_array"}
        ``"rgb_array"``: :meth:`LagdynEnv.render` returns the model's drawing as an image.
    render_size : (int, int)
        Width and height in pixels (default 400 × 400).
    render_bounds : (xmin, xmax, ymin, ymax), optional
        The world window of the picture (default: the drawing's reach with a margin).
    backend : str, optional
        Where the step runs: ``"c"``, ``"numpy"``, ``"numba"``, ``"jax"``; default the
        fastest available (C when cffi and a compiler are there, else numpy; a given
        ``NumericModel`` keeps its own).
    dtype : numpy dtype
        Of the observations (default float32).

    Returns
    -------
    LagdynEnv

    Raises
    ------
    BackendUnavailableError
        gymnasium is not installed (``pip install 'lagdyn[rl]'``), or an explicitly chosen
        backend is not available.
    LagdynError
        A bad option (the message names it), a parameter without a value, a model that
        cannot be stepped, ``render_mode="rgb_array"`` for a model without a drawing.

    Examples
    --------
    A user model, its parameters bound by name, its first coordinate driven within ±2:

    >>> import numpy as np, lagdyn as ld
    >>> env = ld.gym.make(
    ...     ld.zoo.double_pendulum(), params={"g": 9.81}, actuated=["a"],
    ...     action_space=2.0, reward=lambda x, tau, x1: -np.cos(x1[:, 1]),
    ...     observation="sincos", backend="numpy",
    ... )
    >>> obs, _ = env.reset(seed=0)
    >>> obs.shape, env.action_space.shape
    ((6,), (1,))
    >>> obs, reward, *_ = env.step(np.array([1.0], dtype=np.float32))
    >>> round(reward, 3)
    -1.0
    """
    options = _options(
        params,
        dt,
        integrator,
        substeps,
        actuated,
        action_space,
        torques,
        reward,
        termination,
        max_episode_steps,
        observation,
        observation_space,
        angles,
        wrap_angles,
        velocity_limits,
        initial_state,
        reset_noise,
        reset,
        render_mode,
        render_size,
        render_bounds,
        backend,
        dtype,
    )
    return LagdynEnv(model, **options)


def make_vec(
    model: Any,
    num_envs: int,
    *,
    autoreset_mode: Any = None,
    params: Mapping[Any, Any] | None = None,
    dt: float | None = None,
    integrator: str | None = None,
    substeps: int | None = None,
    actuated: Any = None,
    action_space: Any = None,
    torques: Any = None,
    reward: Callable[[np.ndarray, np.ndarray, np.ndarray], Any] | None = None,
    termination: Callable[[np.ndarray], Any] | None = None,
    max_episode_steps: int | None = None,
    observation: Any = None,
    observation_space: Any = None,
    angles: Any = None,
    wrap_angles: bool | None = None,
    velocity_limits: Any = None,
    initial_state: Any = None,
    reset_noise: Any = None,
    reset: Callable[[np.random.Generator, int], Any] | None = None,
    render_mode: str | None = None,
    render_size: Sequence[int] | None = None,
    render_bounds: Sequence[float] | None = None,
    backend: str | None = None,
    dtype: Any = None,
) -> LagdynVectorEnv:
    """``num_envs`` copies of a lagdyn model in one ``gymnasium.vector.VectorEnv``.

    The options are those of :func:`make`. A step of all copies is one call of the model's
    generated step kernel (the integrator's stages inlined in the model's forward dynamics,
    compiled by the chosen backend), with no Python loop over the copies. On the C backend,
    when the reward, termination, observation and reset have symbolic forms (the ready-made
    tasks, the built-in observations and resets), the whole step — actions, dynamics,
    termination, reward, autoreset (initial states from a counter-based generator keyed
    from ``np_random``), float32 observations — is one call of one generated C function
    (:attr:`LagdynVectorEnv.whole_step`; ``docs/gym.md`` says which randomness matches
    Gymnasium's). The arrays a step returns are never overwritten while referenced.

    Parameters
    ----------
    model
        As in :func:`make`.
    num_envs : int
        Number of copies.
    autoreset_mode : gymnasium.vector.AutoresetMode or str
        ``"NextStep"`` (default), ``"SameStep"`` or ``"Disabled"`` (Gymnasium ≥ 1.0 rules).
    **options
        As in :func:`make`.

    Returns
    -------
    LagdynVectorEnv

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> envs = ld.gym.make_vec("cart_pole", num_envs=16, backend="numpy")
    >>> obs, _ = envs.reset(seed=42)
    >>> obs.shape, envs.fused
    ((16, 4), True)
    >>> for _ in range(30):
    ...     obs, rewards, terminated, truncated, info = envs.step(envs.action_space.sample())
    >>> rewards.shape, terminated.dtype
    ((16,), dtype('bool'))
    """
    options = _options(
        params,
        dt,
        integrator,
        substeps,
        actuated,
        action_space,
        torques,
        reward,
        termination,
        max_episode_steps,
        observation,
        observation_space,
        angles,
        wrap_angles,
        velocity_limits,
        initial_state,
        reset_noise,
        reset,
        render_mode,
        render_size,
        render_bounds,
        backend,
        dtype,
    )
    return LagdynVectorEnv(model, num_envs, autoreset_mode=autoreset_mode, **options)
