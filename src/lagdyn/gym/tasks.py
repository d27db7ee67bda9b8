r"""Ready-made tasks: pendulum swing-up, cart-pole, acrobot; legged robots standing.

A :class:`Task` is a model with the options of :func:`lagdyn.gym.make` that make it a
control problem (actions, reward, termination, resets, episode length, observation,
picture). Pass it, or its name, to :func:`lagdyn.gym.make` / :func:`lagdyn.gym.make_vec`;
any option given there overrides the task's, and ``params=`` rebuilds the task with the new
parameter values (its reward and termination read them).

============  ======================================  =====================================
name          model                                   after
============  ======================================  =====================================
pendulum      ``zoo.n_link_pendulum(1)``              Gymnasium's ``Pendulum-v1``
cart_pole     ``zoo.cart_pole()``                     Gymnasium's ``CartPole-v1``
acrobot       ``zoo.acrobot()``                       Gymnasium's ``Acrobot-v1``
quadruped     the toy quadruped (``QUADRUPED_URDF``)     standing on frictional point feet
solo12        Solo12 (example-robot-data)             standing on frictional point feet
============  ======================================  =====================================

``cart_pole(gymnasium_compat=True)`` and ``acrobot(gymnasium_compat=True)`` set Gymnasium's own
parameters, integrator, observation layout and reset draws: with the same seed and actions
they reproduce ``gymnasium.make("CartPole-v1")`` and ``gymnasium.make("Acrobot-v1")`` step by
step (to rounding: the equations are lagdyn's, derived from the zoo models, not copied).

Examples
--------
>>> from lagdyn.gym import tasks
>>> tasks.names()
['acrobot', 'cart_pole', 'pendulum', 'quadruped', 'solo12']
>>> tasks.cart_pole().options["torques"]
[[-10.0], [10.0]]
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import LagdynError

__all__ = [
    "Task",
    "acrobot",
    "cart_pole",
    "get",
    "names",
    "pendulum",
    "quadruped",
    "solo12",
    "stand",
]


@dataclass(frozen=True)
class Task:
    """A model and the options of :func:`lagdyn.gym.make` that turn it into a control task.

    Attributes
    ----------
    name : str
        The task's name (:func:`names`).
    model : LagrangianSystem
        The zoo model.
    options : dict
        Options of :func:`lagdyn.gym.make` (``params``, ``dt``, ``actuated``, ``torques``,
        ``reward``, ``termination``, ...).
    description : str
        One line.
    factory : callable
        The task function, and ``arguments`` what it was called with: :func:`lagdyn.gym.make`
        calls it again when ``params=`` changes parameter values.

    Examples
    --------
    >>> from lagdyn.gym import tasks
    >>> task = tasks.acrobot()
    >>> task.name, task.options["dt"], task.options["actuated"]
    ('acrobot', 0.2, ['q2'])
    """

    name: str
    model: Any
    options: dict[str, Any]
    description: str
    factory: Callable[..., Task]
    arguments: dict[str, Any] = field(default_factory=dict)

    def with_params(self, params: Mapping[Any, Any]) -> Task:
        """The task rebuilt with ``params`` over its parameter values.

        Examples
        --------
        >>> from lagdyn.gym import tasks
        >>> tasks.pendulum().with_params({"l1": 2.0}).options["params"]["l1"]
        2.0
        """
        if not isinstance(params, Mapping):
            raise LagdynError(
                f"params must be a mapping of parameter (name) to value, got "
                f"{type(params).__name__}"
            )
        merged = {**dict(self.arguments.get("params") or {}), **_names(params)}
        return self.factory(**{**self.arguments, "params": merged})


_TASKS: dict[str, Callable[..., Task]] = {}


def names() -> list[str]:
    """The names of the ready-made tasks, sorted.

    Examples
    --------
    >>> from lagdyn.gym import tasks
    >>> "cart_pole" in tasks.names()
    True
    """
    return sorted(_TASKS)


def get(name: str, **arguments: Any) -> Task:
    """The task ``name`` (its function called with ``arguments``).

    Raises
    ------
    LagdynError
        An unknown name (the message lists the tasks).

    Examples
    --------
    >>> from lagdyn.gym import tasks
    >>> tasks.get("pendulum").options["max_episode_steps"]
    200
    """
    try:
        factory = _TASKS[name]
    except (KeyError, TypeError):
        raise LagdynError(f"unknown task {name!r}; tasks: {', '.join(names())}") from None
    return factory(**arguments)


@functools.cache
def _system(name: str) -> Any:
    """The zoo model of a task, derived once per process (systems are immutable)."""
    from ..zoo import get, n_link_pendulum

    if name == "pendulum":
        return n_link_pendulum(1)
    return get(name)


def _names(params: Mapping[Any, Any] | None) -> dict[str, Any]:
    return {getattr(k, "name", str(k)): v for k, v in dict(params or {}).items()}


def _values(system: Any, base: Mapping[str, float], params: Mapping[Any, Any] | None) -> dict:
    values = {**{s.name: float(v) for s, v in system.defaults.items()}, **base}
    values.update(_names(params))
    known = {s.name for s in system.parameters}
    unknown = sorted(set(values) - known)
    if unknown:
        raise LagdynError(
            f"params: {', '.join(unknown)} are not parameters of the model "
            f"(its parameters: {', '.join(sorted(known))})"
        )
    return values


def _fresh(*fns: Callable[..., Any]) -> None:
    """Mark a task's callables as returning fresh, well-formed arrays (``_core.FRESH``):
    the environments skip their defensive copies and checks (user callables keep them)."""
    from ._core import FRESH

    for fn in fns:
        setattr(fn, FRESH, True)


def _spec(fn: Callable[..., Any], expr: Callable[..., Any]) -> None:
    """Attach the symbolic form of a task's callable (``_core.EXPR``)."""
    from ._core import EXPR

    setattr(fn, EXPR, expr)


def _uniform(
    fn: Callable[..., Any], low: Any, high: Any, f32: bool = False, shift: Any = 0.0
) -> None:
    """Mark a reset as uniform draws in ``[low, high)`` per entry (``_core.UNIFORM``)."""
    from ._core import UNIFORM

    low = np.asarray(low, dtype=np.float64)
    high = np.asarray(high, dtype=np.float64)
    setattr(fn, UNIFORM, (low, high, f32, np.broadcast_to(np.asarray(shift, float), low.shape)))


def _sym_wrap(a: Any) -> Any:
    import sympy as sp

    return a - 2 * sp.pi * sp.floor((a + sp.pi) / (2 * sp.pi))


def _wrap(a: np.ndarray) -> np.ndarray:
    return a - 2 * math.pi * np.floor((a + math.pi) / (2 * math.pi))


def pendulum(*, params: Mapping[Any, Any] | None = None, max_torque: float = 2.0) -> Task:
    r"""Swing a pendulum up with too little torque to lift it directly (after ``Pendulum-v1``).

    The model is ``zoo.n_link_pendulum(1)`` (a point mass ``m1`` on a rod ``l1``, θ from the
    downward vertical; defaults m1 = 1, l1 = 1, g = 9.81). The action is the torque τ on θ
    in ``[-max_torque, max_torque]`` (2 N m < m g l: the pendulum must be swung up). Observation
    ``(cos θ, sin θ, θ̇)``, θ̇ limited to ±8 rad/s; reward
    :math:`-(\phi^2 + 0.1\,\dot\theta^2 + 0.001\,\tau^2)` with φ = θ − π wrapped to
    [−π, π) (the angle from upright) in the state where τ is applied; episodes of 200 steps of
    0.05 s (RK4), never terminated; resets with θ uniform in [−π, π), θ̇ in [−1, 1].

    Parameters
    ----------
    params : mapping, optional
        Model parameter values over the defaults (``m1``, ``l1``, ``g``).
    max_torque : float
        Bound of the torque.

    Returns
    -------
    Task

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.gym import tasks
    >>> task = tasks.pendulum()
    >>> x = np.array([[np.pi, 0.0]])               # upright and at rest: no cost
    >>> task.options["reward"](x, np.zeros((1, 1)), x)
    array([-0.])
    """
    from ._core import positive_number

    limit = positive_number("max_torque", max_torque)
    system = _system("pendulum")
    values = _values(system, {}, params)
    length = values["l1"]

    def reward(x: np.ndarray, tau: np.ndarray, x_next: np.ndarray) -> np.ndarray:
        phi = _wrap(x[:, 0] - math.pi)
        return -(phi**2 + 0.1 * x[:, 1] ** 2 + 0.001 * tau[:, 0] ** 2)

    def reset(rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.uniform([-math.pi, -1.0], [math.pi, 1.0], size=(size, 2))

    _fresh(reward, reset)

    def reward_expr(z: list, u: list, y: list) -> Any:
        import sympy as sp

        a = sp.Symbol("phi_a", real=True)  # x0 − π rounded once, as numpy computes it
        phi = sp.Symbol("phi", real=True)
        steps = [(a, z[0] - sp.pi), (phi, _sym_wrap(a))]
        return steps, -(phi**2 + 0.1 * z[1] ** 2 + 0.001 * u[0] ** 2)

    _spec(reward, reward_expr)
    _uniform(reset, [-math.pi, -1.0], [math.pi, 1.0])

    options = {
        "params": values,
        "dt": 0.05,
        "integrator": "rk4",
        "action_space": limit,
        "reward": reward,
        "max_episode_steps": 200,
        "observation": "sincos",
        "angles": [0],
        "velocity_limits": 8.0,
        "reset": reset,
        "render_bounds": (-1.2 * length, 1.2 * length, -1.2 * length, 1.2 * length),
        "render_size": (500, 500),
    }
    return Task(
        "pendulum",
        system,
        options,
        "pendulum swing-up with a bounded torque (after Pendulum-v1)",
        pendulum,
        {"params": dict(_names(params)), "max_torque": max_torque},
    )


def cart_pole(*, gymnasium_compat: bool = False, params: Mapping[Any, Any] | None = None) -> Task:
    r"""Balance the pole on the cart by pushing the cart left or right (``CartPole-v1``).

    The model is ``zoo.cart_pole()`` (θ from the upward vertical; defaults mc = 1, mp = 0.1,
    l = 0.5 the half pole length, Ip = mp (2l)²/12, g = 9.81). Two actions push the cart
    with −10 N (action 0) or +10 N (action 1); reward 1 every step; the episode terminates when
    |x| > 2.4 or |θ| > 12°, and is truncated after 500 steps of 0.02 s; resets draw the four
    state entries uniformly in ±0.05.

    Parameters
    ----------
    gymnasium_compat : bool
        Gymnasium's ``CartPole-v1`` exactly: g = 9.8, explicit Euler, the observation in its
        order ``(x, ẋ, θ, θ̇)`` with its bounds, the reset drawn in that order. Default:
        g = 9.81, RK4, the observation ``(q, q̇) = (x, θ, ẋ, θ̇)``.
    params : mapping, optional
        Model parameter values over those (``mc``, ``mp``, ``l``, ``Ip``, ``g``).

    Returns
    -------
    Task

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.gym import tasks
    >>> task = tasks.cart_pole(gymnasium_compat=True)
    >>> task.options["integrator"], task.options["params"]["g"]
    ('euler', 9.8)
    >>> task.options["termination"](np.array([[0.0, 0.25, 0.0, 0.0], [2.5, 0.0, 0.0, 0.0]]))
    array([ True,  True])
    """
    system = _system("cart_pole")
    values = _values(system, {"g": 9.8} if gymnasium_compat else {}, params)
    x_limit, angle_limit = 2.4, 12 * 2 * math.pi / 360

    def reward(x: np.ndarray, tau: np.ndarray, x_next: np.ndarray) -> np.ndarray:
        return np.ones(x.shape[0])

    def termination(x: np.ndarray) -> np.ndarray:
        # |x| > limit is (x < -limit) | (x > limit) exactly, in two operations instead of three
        return (np.abs(x[:, 0]) > x_limit) | (np.abs(x[:, 1]) > angle_limit)

    _fresh(reward, termination)

    def termination_expr(y: list) -> Any:
        import sympy as sp

        return sp.Or(sp.Abs(y[0]) > x_limit, sp.Abs(y[1]) > angle_limit)

    _spec(termination, termination_expr)
    _spec(reward, lambda z, u, y: 1.0)

    options: dict[str, Any] = {
        "params": values,
        "dt": 0.02,
        "integrator": "euler" if gymnasium_compat else "rk4",
        "actuated": ["x"],
        "torques": [[-10.0], [10.0]],
        "reward": reward,
        "termination": termination,
        "max_episode_steps": 500,
        "reset_noise": 0.05,
        "render_bounds": (-2.4, 2.4, -0.8, 1.6),
        "render_size": (600, 400),
    }
    if gymnasium_compat:
        order = np.array([0, 2, 1, 3])  # Gymnasium's (x, ẋ, θ, θ̇) ↔ lagdyn's (x, θ, ẋ, θ̇)

        def observation(x: np.ndarray) -> np.ndarray:
            return x.take(order, axis=1)  # a C-contiguous copy, in one call

        def reset(rng: np.random.Generator, size: int) -> np.ndarray:
            return rng.uniform(-0.05, 0.05, size=(size, 4)).take(order, axis=1)

        _fresh(observation, reset)
        _spec(observation, lambda y: [y[0], y[2], y[1], y[3]])
        _uniform(reset, [-0.05] * 4, [0.05] * 4)

        high = np.array([2 * x_limit, np.inf, 2 * angle_limit, np.inf])
        options.update(observation=observation, observation_space=(-high, high), reset=reset)
    return Task(
        "cart_pole",
        system,
        options,
        "balance the pole on the cart with ±10 N pushes (after CartPole-v1)",
        cart_pole,
        {"gymnasium_compat": gymnasium_compat, "params": dict(_names(params))},
    )


#: Acrobot-v1's parameters (Sutton & Barto), in the zoo acrobot's names.
GYMNASIUM_ACROBOT = {
    "m1": 1.0,
    "m2": 1.0,
    "l1": 1.0,
    "lc1": 0.5,
    "lc2": 0.5,
    "I1": 1.0,
    "I2": 1.0,
    "g": 9.8,
}


def acrobot(*, gymnasium_compat: bool = False, params: Mapping[Any, Any] | None = None) -> Task:
    r"""Swing the acrobot's tip above the shoulder, driving only the elbow (``Acrobot-v1``).

    The model is ``zoo.acrobot()`` (q1 of link 1 from the horizontal, q2 the elbow angle;
    defaults Spong's: m1 = m2 = 1, l1 = 1, lc1 = 0.5, lc2 = 1, I1 = 0.083, I2 = 0.33,
    g = 9.8). Three actions apply τ2 = −1, 0, +1 N m at the elbow; steps of 0.2 s (RK4);
    angles wrapped to [−π, π) and rates limited to ±4π and ±9π rad/s after every step; the
    episode terminates when the tip rises more than l1 above the shoulder
    (:math:`l_1\sin q_1 + 2 l_{c2}\sin(q_1 + q_2) > l_1`; link 2 is drawn 2 lc2 long),
    reward −1 per step and 0 on the terminating one, truncated after 500 steps. Observation
    ``(cos θ1, sin θ1, cos q2, sin q2, q̇1, q̇2)`` with θ1 = q1 + π/2 the angle of link 1 from
    the downward vertical (Acrobot-v1's); resets hang the arm down with the four state entries
    (θ1, q2, q̇1, q̇2) uniform in ±0.1.

    Parameters
    ----------
    gymnasium_compat : bool
        Acrobot-v1's parameters (unit masses and links, COMs at the middle, unit inertias;
        ``GYMNASIUM_ACROBOT``) and its reset (drawn in float32, as Gymnasium does).
        Gymnasium integrates the "book" equations of Sutton & Barto, which are the exact
        Lagrangian dynamics of this model.
    params : mapping, optional
        Model parameter values over those.

    Returns
    -------
    Task

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.gym import tasks
    >>> task = tasks.acrobot(gymnasium_compat=True)
    >>> up = np.array([[np.pi / 2, 0.0, 0.0, 0.0]])      # stretched straight up
    >>> task.options["termination"](up), task.options["observation"](up).round(6)
    (array([ True]), array([[-1.,  0.,  1.,  0.,  0.,  0.]]))
    """
    system = _system("acrobot")
    values = _values(system, GYMNASIUM_ACROBOT if gymnasium_compat else {}, params)
    l1, reach = values["l1"], 2 * values["lc2"]

    def termination(x: np.ndarray) -> np.ndarray:
        q1, q2 = x[:, 0], x[:, 1]
        return l1 * np.sin(q1) + reach * np.sin(q1 + q2) > l1

    def reward(x: np.ndarray, tau: np.ndarray, x_next: np.ndarray) -> np.ndarray:
        return np.where(termination(x_next), 0.0, -1.0)

    def observation(x: np.ndarray) -> np.ndarray:
        # θ1 = q1 + π/2: cos θ1 = −sin q1, sin θ1 = cos q1; written in place, few calls
        out = np.empty((x.shape[0], 6))
        q = x[:, :2]
        np.cos(q, out=out[:, 1:3])  # cos q1, cos q2
        sines = np.sin(q)
        np.negative(sines[:, 0], out=out[:, 0])
        out[:, 3] = sines[:, 1]
        out[:, 4:] = x[:, 2:4]
        return out

    def reset(rng: np.random.Generator, size: int) -> np.ndarray:
        x = rng.uniform(-0.1, 0.1, size=(size, 4))
        if gymnasium_compat:
            x = x.astype(np.float32).astype(np.float64)
        x[:, 0] -= math.pi / 2  # θ1 → q1
        return x

    _fresh(termination, reward, observation, reset)
    from ._core import BY_TERMINATION

    def termination_expr(y: list) -> Any:
        import sympy as sp

        return l1 * sp.sin(y[0]) + reach * sp.sin(y[0] + y[1]) > l1

    def observation_expr(y: list) -> Any:
        import sympy as sp

        return [-sp.sin(y[0]), sp.cos(y[0]), sp.cos(y[1]), sp.sin(y[1]), y[2], y[3]]

    _spec(termination, termination_expr)
    _spec(observation, observation_expr)
    _uniform(reset, [-0.1] * 4, [0.1] * 4, gymnasium_compat, [math.pi / 2, 0.0, 0.0, 0.0])

    setattr(reward, BY_TERMINATION, (0.0, -1.0))  # np.where(termination(x_next), 0, -1)

    high = np.array([1.0, 1.0, 1.0, 1.0, 4 * math.pi, 9 * math.pi])
    span = 1.1 * (l1 + reach)
    options = {
        "params": values,
        "dt": 0.2,
        "integrator": "rk4",
        "actuated": ["q2"],
        "torques": [-1.0, 0.0, 1.0],
        "reward": reward,
        "termination": termination,
        "max_episode_steps": 500,
        "observation": observation,
        "observation_space": (-high, high),
        "wrap_angles": True,
        "angles": [0, 1],
        "velocity_limits": [4 * math.pi, 9 * math.pi],
        "reset": reset,
        "render_bounds": (-span, span, -span, span),
        "render_size": (500, 500),
    }
    return Task(
        "acrobot",
        system,
        options,
        "swing the acrobot's tip above the shoulder with elbow torques (after Acrobot-v1)",
        acrobot,
        {"gymnasium_compat": gymnasium_compat, "params": dict(_names(params))},
    )


_TASKS.update(pendulum=pendulum, cart_pole=cart_pole, acrobot=acrobot)


# ------------------------------------------------------------- legged robots (lagdyn.gym.legged)
def _non_negative(label: str, value: Any) -> float:
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if not ok or not math.isfinite(float(value)) or float(value) < 0:
        raise LagdynError(f"{label} must be a finite number >= 0, got {value!r}")
    return float(value)


def stand(
    legged: Any,
    *,
    name: str = "stand",
    min_height: float | None = None,
    max_tilt: float = 0.8,
    max_episode_steps: int = 1000,
    dt: float = 0.02,
    substeps: int = 4,
    joint_noise: float = 0.1,
    velocity_noise: float = 0.1,
    factory: Any = None,
    arguments: Mapping[str, Any] | None = None,
) -> Task:
    r"""The "stand" task of a :class:`Legged` model: keep the base at its nominal height,
    upright and still, with small torques.

    Reward :math:`1 - (g_x^2 + g_y^2) - 50 (z - z_0)^2 - 0.05\lVert v_{base}\rVert^2
    - 0.01 \lVert\tau/\tau_{max}\rVert^2` (g the gravity direction in the base frame after
    the step, z its base height, v_base its six base velocities, τ the joint torques at the
    start of the step); terminated when z < ``min_height`` (default z₀/2) or the base tilts
    more than ``max_tilt`` rad; truncated after ``max_episode_steps`` steps of ``dt``, each
    ``substeps`` contact steps.

    Parameters
    ----------
    legged : Legged
    name : str
    min_height, max_tilt : float
    max_episode_steps, substeps : int
    dt : float
        The environment step (s).
    joint_noise, velocity_noise : float
        Half-widths of the reset draws (rad, m/s and rad/s).
    factory, arguments : optional
        The task function and its arguments (:meth:`Task.with_params` calls it again).

    Returns
    -------
    Task

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.gym.legged import Legged, QUADRUPED_URDF
    >>> from lagdyn.gym.tasks import stand
    >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
    ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6])
    >>> task = stand(toy)
    >>> x = toy.state()[None]
    >>> task.options["termination"](x), task.options["reward"](x, np.zeros((1, 8)), x).round(6)
    (array([False]), array([0.997372]))
    """
    from .legged import Legged, gravity_in_base

    if not isinstance(legged, Legged):
        raise LagdynError(f"stand needs a Legged model, got {type(legged).__name__}")
    from ._core import positive_number

    z0 = legged.height
    low = 0.5 * z0 if min_height is None else positive_number("min_height", min_height)
    cos_tilt = math.cos(positive_number("max_tilt", max_tilt))
    jn = _non_negative("joint_noise", joint_noise)
    vn = _non_negative("velocity_noise", velocity_noise)
    nq = legged.nq
    inv = 1.0 / legged.max_torque

    def reward(x: np.ndarray, action: np.ndarray, x1: np.ndarray) -> np.ndarray:
        g = gravity_in_base(x1[:, :nq])
        tilt = g[:, 0] ** 2 + g[:, 1] ** 2
        base = np.sum(x1[:, nq : nq + 6] ** 2, axis=1)
        effort = np.sum((legged.torques(x, action) * inv) ** 2, axis=1)
        return 1.0 - tilt - 50.0 * (x1[:, 2] - z0) ** 2 - 0.05 * base - 0.01 * effort

    def termination(x: np.ndarray) -> np.ndarray:
        g = gravity_in_base(x[:, :nq])
        return (x[:, 2] < low) | (-g[:, 2] < cos_tilt)

    def reset(rng: np.random.Generator, size: int) -> np.ndarray:
        return legged.reset(rng, size, jn, vn)

    options = {
        "params": dict(legged.params),
        "dt": dt,
        "substeps": substeps,
        "action_space": 1.0 if legged.control == "pd" else legged.max_torque,
        "reward": reward,
        "termination": termination,
        "reset": reset,
        "max_episode_steps": max_episode_steps,
    }
    return Task(
        name,
        legged,
        options,
        f"{legged.robot.name} standing on frictional point feet",
        factory if factory is not None else _rebuild,
        dict(arguments or {"legged": legged}),
    )


def _rebuild(**arguments: Any) -> Task:  # pragma: no cover - params of a hand-made task
    raise LagdynError(
        "params= cannot rebuild a legged task made by hand: build its Legged model with "
        "Legged(..., params=...) and call stand() again"
    )


def quadruped(
    *,
    params: Mapping[Any, Any] | None = None,
    control: str = "pd",
    mu: Any = 0.8,
    kp: Any = 8.0,
    kd: Any = 0.2,
    max_torque: Any = 3.0,
    contact: Mapping[str, Any] | None = None,
    backend: str | None = None,
    **stand_options: Any,
) -> Task:
    """The toy quadruped (:data:`QUADRUPED_URDF`, 2.8 kg, 8 joints) standing on frictional
    point feet (:func:`stand`), knees bent (hips ±0.8 rad, knees ∓1.6 rad, base at 0.223 m).

    Parameters
    ----------
    params : mapping, optional
        Parameter values (``g``).
    control, mu, kp, kd, max_torque
        Of :class:`Legged`.
    contact : mapping, optional
        Options of ``Contacts.step`` over :data:`TOY_CONTACT` (soft contacts, ADMM, tol
        1e-6 m/s: the toy's planar legs cannot push sideways, so its four feet leave an
        internal sideways force undetermined — a singular Delassus matrix, on which rigid
        contacts and Gauss–Seidel converge slowly).
    backend : str
        Of the robot's generated kernels (:class:`~lagdyn.gym.legged.Legged`).
    **stand_options
        Of :func:`stand` (``dt``, ``substeps``, ``max_tilt``, ...).

    Returns
    -------
    Task

    Examples
    --------
    >>> from lagdyn.gym import tasks
    >>> task = tasks.quadruped(mu=0.5, backend="numpy")
    >>> task.name, task.model.nj, task.options["substeps"]
    ('quadruped', 8, 4)
    """
    from .legged import QUADRUPED_URDF, TOY_CONTACT, TOY_FEET, TOY_JOINTS

    robot = (QUADRUPED_URDF, TOY_FEET, TOY_JOINTS, TOY_CONTACT)
    model = dict(params=params, control=control, mu=mu, kp=kp, kd=kd, max_torque=max_torque)
    return _legged_task("quadruped", quadruped, robot, model, contact, backend, stand_options)


def solo12(
    *,
    params: Mapping[Any, Any] | None = None,
    control: str = "pd",
    mu: Any = 0.8,
    kp: Any = 8.0,
    kd: Any = 0.2,
    max_torque: Any = 2.7,
    contact: Mapping[str, Any] | None = None,
    backend: str | None = None,
    **stand_options: Any,
) -> Task:
    """Solo12 (example-robot-data, 2.5 kg, 12 joints) standing on frictional point feet
    (:func:`stand`): hips 0.8 rad / −0.8 rad (front / hind), knees ∓1.6 rad, as
    ``examples/quadruped_friction.py``.

    Parameters
    ----------
    params, control, mu, kp, kd, max_torque, **stand_options
        As for :func:`quadruped`.
    contact : mapping, optional
        Options of ``Contacts.step`` over :data:`SOLO12_CONTACT` (rigid, Gauss–Seidel,
        tol 1e-6 m/s).
    backend : str
        Of the robot's generated kernels (:class:`~lagdyn.gym.legged.Legged`).

    Returns
    -------
    Task

    Raises
    ------
    BackendUnavailableError
        example-robot-data is not installed.

    Examples
    --------
    >>> from lagdyn.gym import tasks
    >>> tasks.solo12(backend="numpy").model.nj       # needs example-robot-data
    12
    """
    from ..zoo.legged import FEET, _path
    from .legged import SOLO12_CONTACT, SOLO12_JOINTS

    robot = (_path("solo12"), FEET["solo12"], SOLO12_JOINTS, SOLO12_CONTACT)
    model = dict(params=params, control=control, mu=mu, kp=kp, kd=kd, max_torque=max_torque)
    return _legged_task("solo12", solo12, robot, model, contact, backend, stand_options)


def _legged_task(
    name: str,
    factory: Callable[..., Task],
    robot: tuple[str, Sequence[str], Sequence[float], Mapping[str, Any]],
    model: Mapping[str, Any],
    contact: Mapping[str, Any] | None,
    backend: str | None,
    stand_options: Mapping[str, Any],
) -> Task:
    """A ready-made legged task: its arguments (the ``contact`` options over the robot's
    defaults), the :class:`Legged` model they make (cached) and :func:`stand` on it."""
    urdf, feet, joints, contact_defaults = robot
    arguments = dict(
        **model,
        backend=backend,
        contact={**contact_defaults, **dict(contact or {})},
        **stand_options,
    )
    arguments["params"] = dict(model.get("params") or {})
    legged = _cached(urdf, feet, joints, arguments)
    return stand(legged, name=name, factory=factory, arguments=arguments, **stand_options)


_LEGGED: dict[str, Any] = {}


def _cached(
    urdf: str, feet: Sequence[str], joints: Sequence[float], arguments: Mapping[str, Any]
) -> Any:
    """One :class:`Legged` per robot and options a process (they are not changed after
    construction; building one derives and lambdifies the robot)."""
    keys = ("params", "control", "mu", "kp", "kd", "max_torque", "contact", "backend")
    model_args = {k: arguments[k] for k in keys}
    key = repr(
        (urdf, tuple(feet), tuple(joints), sorted((k, repr(v)) for k, v in model_args.items()))
    )
    legged = _LEGGED.get(key)
    if legged is None:
        from .legged import Legged

        legged = _LEGGED[key] = Legged(urdf, feet, joints, **model_args)
    return legged


_TASKS.update(quadruped=quadruped, solo12=solo12)
