r"""Legged robots on level ground with frictional point feet, as Gymnasium tasks.

A :class:`Legged` model is a floating-base robot (``ld.robot.from_urdf(path,
base="floating")``) whose feet are point contacts with the ground z = 0: one step of an
environment is ``substeps`` Moreau–Jean time steps of ``dt / substeps`` with Coulomb
friction (``num.contacts(feet).step``, :mod:`lagdyn.robot.friction`), batched over the
copies of :func:`lagdyn.gym.make_vec` — the N robots step in one call per contact step.
:func:`lagdyn.gym.tasks.stand` makes a :class:`~lagdyn.gym.tasks.Task` of it ("stand":
keep the base at its height, upright and still, with small torques);
:func:`~lagdyn.gym.tasks.quadruped` (the toy of the tests, built in) and
:func:`~lagdyn.gym.tasks.solo12` (example-robot-data) are ready-made.

The environments are those of :func:`lagdyn.gym.make`, with the state and the pieces below:

- **state** ``x = (q, v)``, ``nq + nv`` entries: q = (base position, base quaternion
  x y z w, joint angles), v = (base linear and angular velocity *in the base frame*, joint
  rates) — Pinocchio's free-flyer conventions;
- **actions** (``control="pd"``, default): joint position targets about the nominal pose,
  ``a ∈ [-1, 1]^nj``, q_target = q₀ + ``action_scale`` · a, held by a PD law recomputed at
  every contact step, τ = τ₀ + kp (q_target − q_j) − kd q̇_j with τ₀ the torques that hold
  the nominal pose (``Contacts.statics``), clipped to ±``max_torque``. ``control="torque"``:
  the action is τ on the joints, in ±``max_torque``;
- **observation** (float32, ``10 + 2 nj`` entries): base height z, gravity in the base frame
  (3; (0, 0, −1) upright), base linear velocity (3) and angular velocity (3) in the base
  frame, joint angles minus the nominal ones (nj), joint rates (nj);
- **reward** of "stand": ``1 − tilt − 50 (z − z₀)² − 0.05 ‖v_base‖² − 0.01 ‖τ / τ_max‖²``
  with tilt = gx² + gy² (the squared sine of the base's tilt), v_base the six base
  velocities after the step, τ the joint torques at the start of the step;
- **termination**: the base falls below ``min_height`` (default z₀ / 2) or tilts more than
  ``max_tilt`` (default 0.8 rad); truncation after ``max_episode_steps`` (default 1000);
- **contact failures**: a contact step whose Gauss–Seidel solve stops above ``tol`` is not
  taken silently: the episode is *truncated* at that step (the state is the solver's last
  iterate) and ``info["contact_failed"]`` is True, ``info["contact_residual"]`` its
  residual (m/s); in the vector environment both are arrays with Gymnasium's ``_key`` masks;
- **reset**: the nominal pose with the joints uniform in ±``joint_noise`` rad, the base
  velocities uniform in ±``velocity_noise``, the base lowered or raised so that its lowest
  foot touches the ground.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.gym import tasks
>>> env = ld.gym.make(tasks.quadruped(backend="numpy"))  # the default compiles C kernels
>>> obs, info = env.reset(seed=0)
>>> obs.shape, env.action_space.shape
((26,), (8,))
>>> for _ in range(10):                           # the nominal action: hold the pose
...     obs, reward, terminated, truncated, info = env.step(np.zeros(8, dtype=np.float32))
>>> terminated, truncated, round(float(obs[0]), 2)  # still standing at z ≈ 0.22 m
(False, False, 0.22)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import LagdynError, ShapeError

__all__ = ["QUADRUPED_URDF", "ContactStepper", "Legged", "gravity_in_base"]

#: The toy quadruped of the tests (``tests/data/quadruped_toy.urdf``): a 2 kg trunk and four
#: planar legs (hip and knee about y, 0.16 m links, 0.2 kg a leg), each ending in a point
#: frame ``<leg>_FOOT``. nq = 15, nv = 14.
QUADRUPED_URDF = (
    """<robot name="quadruped_toy">
  <link name="trunk">
    <inertial><origin xyz="0.01 0 0.02"/><mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0.001" iyy="0.03" iyz="0" izz="0.035"/></inertial>
  </link>
"""
    + "".join(
        f"""  <joint name="{leg}_HFE" type="revolute"><parent link="trunk"/>
    <child link="{leg}_UPPER"/>
    <origin xyz="{x} {y} 0"/><axis xyz="0 1 0"/></joint>
  <link name="{leg}_UPPER"><inertial><origin xyz="0 0.01 -0.08"/><mass value="0.15"/>
    <inertia ixx="0.0004" ixy="0" ixz="0" iyy="0.0004" iyz="0" izz="0.00002"/></inertial></link>
  <joint name="{leg}_KFE" type="revolute"><parent link="{leg}_UPPER"/><child link="{leg}_LOWER"/>
    <origin xyz="0 0 -0.16"/><axis xyz="0 1 0"/></joint>
  <link name="{leg}_LOWER"><inertial><origin xyz="0 0 -0.08"/><mass value="0.05"/>
    <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.000005"/></inertial></link>
  <joint name="{leg}_ANKLE" type="fixed"><parent link="{leg}_LOWER"/><child link="{leg}_FOOT"/>
    <origin xyz="0 0 -0.16"/></joint>
  <link name="{leg}_FOOT"/>
"""
        for leg, x, y in (
            ("FL", 0.2, 0.1),
            ("FR", 0.2, -0.1),
            ("HL", -0.2, 0.1),
            ("HR", -0.2, -0.1),
        )
    )
    + "</robot>"
)

CONTROLS = ("pd", "torque")
#: Options of :func:`lagdyn.gym.make` that mean nothing for a legged model (refused by name).
REFUSED = (
    "integrator",
    "actuated",
    "torques",
    "angles",
    "wrap_angles",
    "velocity_limits",
    "render_mode",
    "render_size",
    "render_bounds",
    "backend",
)


def _positive_int(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, np.integer)) and int(value) >= 1


def _per_joint(label: str, value: Any, nj: int, *, strict: bool = True) -> np.ndarray:
    from ..codegen.binding import real_array

    arr = real_array(label, value)
    if arr.dtype.kind not in "fiu" or arr.ndim > 1 or (arr.ndim == 1 and arr.shape != (nj,)):
        raise ShapeError(f"{label} must be one number or {nj} numbers (one a joint); got {value!r}")
    arr = np.broadcast_to(arr.astype(np.float64), (nj,)).copy()
    if not np.isfinite(arr).all() or not (np.all(arr > 0) if strict else np.all(arr >= 0)):
        raise LagdynError(
            f"{label} must be finite and {'positive' if strict else 'non-negative'}, "
            f"got {arr.tolist()}"
        )
    return arr


def gravity_in_base(q: np.ndarray) -> np.ndarray:
    """The unit gravity direction (0, 0, −1) in the base frame, ``(..., 3)``, from the base
    quaternion (x, y, z, w) in ``q[..., 3:7]`` (normalised here): the last row of the base's
    rotation matrix, negated. (0, 0, −1) when the base is level.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.gym.legged import gravity_in_base
    >>> q = np.zeros(15)
    >>> q[3:7] = [np.sin(0.25), 0.0, 0.0, np.cos(0.25)]   # rolled by 0.5 rad about x
    >>> gravity_in_base(q).round(4) + 0.0
    array([ 0.    , -0.4794, -0.8776])
    """
    quat = q[..., 3:7]
    quat = quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    x, y, z, w = (quat[..., i] for i in range(4))
    return -np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=-1)


class Legged:
    """A floating-base robot on point feet over the level ground z = 0, with its nominal pose
    and joint control: the model of a legged :class:`~lagdyn.gym.tasks.Task`.

    Parameters
    ----------
    robot : FloatingRobot, str or path
        A floating-base robot (``ld.robot.from_urdf(path, base="floating",
        parameters="numeric")``), or a URDF file or text to build one from.
    feet : sequence of str
        The point-contact frames (the robot's frames, e.g. ``"FL_FOOT"``).
    joints : sequence of float
        The nominal joint angles (nj); the base stands upright with its lowest foot on the
        ground.
    params : mapping, optional
        Parameter values (default ``{"g": 9.81}``).
    control : {"pd", "torque"}
        Actions as joint position targets about the nominal pose (``pd``) or joint torques.
    kp, kd : float or sequence
        The PD gains (N m/rad, N m s/rad), one or one a joint.
    action_scale : float or sequence
        q_target = q₀ + action_scale · a (rad) for ``control="pd"``.
    max_torque : float or sequence
        Joint torque limits (N m); every torque is clipped to them.
    mu : float or sequence
        Coulomb friction coefficient (one, or one a foot).
    contact : mapping, optional
        Options of ``Contacts.step``: ``margin``, ``correction``, ``compliance``, ``tol``,
        ``max_iter``, ``method`` (``on_failure`` is ``"status"``: failures truncate the
        episode). Checked by one step at the nominal state.
    backend : {None, "numpy", "c", "numba", "jax"}
        Of the robot's generated kernels (M, h, the feet's placements and Jacobians).
        Default: the fastest available, as in :func:`lagdyn.gym.make` — C through cffi
        (compiled once, a few seconds, cached on disk; a step of Solo12 about 3× faster
        than numpy), else numpy. The contact solve itself is numpy either way.

    Attributes
    ----------
    robot, num, contacts
        The robot, its ``FloatingModel`` and its ``Contacts``.
    q0 : ndarray (nq,)
        The nominal configuration; ``tau0`` (nv,) the torques that hold it; ``height`` its
        base height.
    nq, nv, nj : int

    Examples
    --------
    >>> from lagdyn.gym.legged import Legged, QUADRUPED_URDF
    >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
    ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6], backend="numpy")
    >>> toy.nq, toy.nv, round(toy.height, 4)
    (15, 14, 0.2229)
    """

    def __init__(
        self,
        robot: Any,
        feet: Sequence[str],
        joints: Sequence[float],
        *,
        params: Mapping[Any, Any] | None = None,
        control: str = "pd",
        kp: Any = 8.0,
        kd: Any = 0.2,
        action_scale: Any = 0.5,
        max_torque: Any = 3.0,
        mu: Any = 0.8,
        contact: Mapping[str, Any] | None = None,
        backend: str | None = None,
    ) -> None:
        from ..robot.floating import FloatingRobot
        from ..robot.friction import _friction

        if not isinstance(robot, FloatingRobot):
            if not isinstance(robot, str) and not hasattr(robot, "__fspath__"):
                raise LagdynError(
                    "robot must be a FloatingRobot (ld.robot.from_urdf(path, base='floating')) "
                    f"or a URDF path or text, got {type(robot).__name__}"
                )
            from ..robot.urdf import from_urdf

            robot = from_urdf(robot, base="floating", parameters="numeric")
        if control not in CONTROLS:
            raise LagdynError(
                f"control must be one of {', '.join(map(repr, CONTROLS))}, got {control!r}"
            )
        if isinstance(feet, str) or not isinstance(feet, Sequence) or not feet:
            raise LagdynError(f"feet must be a non-empty sequence of frame names, got {feet!r}")
        self.robot = robot
        self.control = control
        self.nq, self.nv = int(robot.nq), int(robot.nv)
        nj = self.nj = self.nv - 6
        if params is not None and not isinstance(params, Mapping):
            raise LagdynError(
                f"params must be a mapping of parameter name to value, got {type(params).__name__}"
            )
        given = {getattr(k, "name", str(k)): v for k, v in dict(params or {}).items()}
        known = {s.name for s in robot.parameters}
        unknown = sorted(set(given) - known)
        if unknown:
            raise LagdynError(
                f"params: {', '.join(unknown)} are not parameters of the robot "
                f"(its parameters: {', '.join(sorted(known)) or 'none'})"
            )
        values = {"g": 9.81, **given} if "g" in known else given
        self.params = values
        self.num, self.contacts = _kernels(robot, values, list(feet), backend)
        self.feet = tuple(feet)
        self.mu = _friction(mu, len(self.feet))
        q0 = np.asarray(robot.neutral(), dtype=np.float64)
        from ..codegen.binding import real_array

        joints_arr = real_array("joints", joints)
        if joints_arr.shape != (nj,) or not np.isfinite(joints_arr.astype(float)).all():
            raise ShapeError(
                f"joints must be the {nj} nominal joint angles ({', '.join(robot.joint_names)}); "
                f"got {joints!r}"
            )
        q0[7:] = joints_arr
        q0[2] = 0.0
        q0[2] = -min(float(self.num.frame_placement(q0, f)[1][2]) for f in self.feet)
        self.q0 = q0
        self.height = float(q0[2])
        self.tau0 = np.asarray(self.contacts.statics(q0)[0], dtype=np.float64)
        self.kp = _per_joint("kp", kp, nj, strict=False)
        self.kd = _per_joint("kd", kd, nj, strict=False)
        self.action_scale = _per_joint("action_scale", action_scale, nj)
        self.max_torque = _per_joint("max_torque", max_torque, nj)
        if np.any(np.abs(self.tau0[6:]) > self.max_torque):
            raise LagdynError(
                f"max_torque {self.max_torque.tolist()} cannot hold the nominal pose "
                f"(its torques {np.round(self.tau0[6:], 4).tolist()})"
            )
        allowed = ("margin", "correction", "compliance", "tol", "max_iter", "method")
        contact = dict(contact or {})
        unknown = sorted(str(k) for k in contact if k not in allowed)
        if unknown:
            raise LagdynError(
                f"contact: unknown options {', '.join(unknown)}; known: {', '.join(allowed)}"
            )
        self.contact = contact
        # one step at the nominal state: Contacts.step names a bad value of its options now
        self.contacts.step(
            q0, np.zeros(self.nv), self.tau0, 1e-3, mu=self.mu, on_failure="status", **contact
        )

    def __repr__(self) -> str:
        return (
            f"Legged({self.robot.name!r}, feet={list(self.feet)}, control={self.control!r}, "
            f"nq={self.nq}, nv={self.nv})"
        )

    def torques(self, x: np.ndarray, action: np.ndarray) -> np.ndarray:
        """The joint torques ``(B, nj)`` of ``action (B, nj)`` at the states ``x (B, nq + nv)``
        (PD about the targets plus the holding torques, or the action), clipped.

        Examples
        --------
        >>> import numpy as np
        >>> from lagdyn.gym.legged import Legged, QUADRUPED_URDF
        >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
        ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6], backend="numpy")
        >>> x = np.concatenate([toy.q0, np.zeros(toy.nv)])[None]
        >>> bool(np.allclose(toy.torques(x, np.zeros((1, 8))), toy.tau0[6:]))
        True
        """
        lim = self.max_torque
        if self.control == "torque":
            return np.clip(action, -lim, lim)
        nq = self.nq
        target = self.q0[7:] + self.action_scale * action
        tau = self.tau0[6:] + self.kp * (target - x[:, 7:nq]) - self.kd * x[:, nq + 6 :]
        return np.clip(tau, -lim, lim)

    def core(self, cfg: Mapping[str, Any]) -> Any:
        """The batched transition (``lagdyn.gym._core.Core``) of the options ``cfg`` of
        :func:`lagdyn.gym.make` (task options under the given ones).

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.gym import tasks
        >>> env = ld.gym.make(tasks.quadruped(backend="numpy"), substeps=2)
        >>> env.dt, env.n
        (0.02, 14)
        """
        from ._core import Actions, Core, Observations, Resolved, positive_number

        bad = [k for k in REFUSED if cfg.get(k) is not None]
        if bad:
            raise LagdynError(
                f"{', '.join(bad)}: not options of a legged environment (its step is "
                "frictional contact time stepping of the joints' actions; no picture yet; "
                "the backend is the task's: tasks.quadruped(backend='c'))"
            )
        nq, nv = self.nq, self.nv
        cfg = {"dt": 0.02, "substeps": 1, "dtype": np.float32, "reset_noise": 0.0, **cfg}
        dt = positive_number("dt", cfg["dt"])
        substeps = cfg["substeps"]
        if (
            isinstance(substeps, bool)
            or not isinstance(substeps, (int, np.integer))
            or substeps < 1
        ):
            raise LagdynError(f"substeps must be a positive integer, got {substeps!r}")
        max_steps = cfg.get("max_episode_steps")
        if max_steps is not None and (
            isinstance(max_steps, bool)
            or not isinstance(max_steps, (int, np.integer))
            or max_steps < 1
        ):
            raise LagdynError(f"max_episode_steps must be a positive integer, got {max_steps!r}")
        for key in ("reward", "termination", "reset"):
            if cfg.get(key) is not None and not callable(cfg[key]):
                raise LagdynError(f"{key} must be a callable, got {type(cfg[key]).__name__}")
        names = ("base_vx", "base_vy", "base_vz", "base_wx", "base_wy", "base_wz")
        names += tuple(self.robot.joint_names)
        actions = Actions(nv, names, list(range(6, nv)), cfg.get("action_space"), None)
        observation = cfg.get("observation")
        space: Any
        if observation is None:
            observation, space = self.observation, self.observation_bounds()
            if cfg.get("observation_space") is not None:
                raise LagdynError("observation_space= goes with a callable observation only")
        elif callable(observation):
            space = cfg.get("observation_space")
            if space is None:
                probe = np.asarray(observation(self.state()[None]))
                space = (np.full(probe.shape[1:], -np.inf), np.full(probe.shape[1:], np.inf))
        else:
            raise LagdynError(
                f"observation of a legged environment must be the default or a callable "
                f"observation(x) -> (B, k) of the states (q, v); got {observation!r}"
            )
        observations = Observations(observation, space, nv, (), None, False, cfg["dtype"])
        reset = cfg.get("reset")
        if cfg.get("initial_state") is not None:
            if reset is not None:
                raise LagdynError(
                    "pass either reset= or initial_state= (with reset_noise=), not both"
                )
            center = _state_of(self, cfg["initial_state"])
            noise = _per_joint("reset_noise", cfg.get("reset_noise", 0.0), nq + nv, strict=False)
            reset = _uniform(center, noise)
        elif reset is None:
            reset = self.reset
        stepper = ContactStepper(self, dt, int(substeps))
        return Core(
            model=Resolved(n=nv, names=names, values=dict(self.params)),
            stepper=stepper,
            actions=actions,
            observations=observations,
            reset=reset,
            reward=cfg.get("reward"),
            termination=cfg.get("termination"),
            max_episode_steps=None if max_steps is None else int(max_steps),
            dt=dt,
            integrator="contacts",
            state_width=nq + nv,
        )

    def state(self) -> np.ndarray:
        """The nominal state ``(q₀, 0)``, ``(nq + nv,)``.

        Examples
        --------
        >>> from lagdyn.gym.legged import Legged, QUADRUPED_URDF
        >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "HR_FOOT", "FR_FOOT"],
        ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6], backend="numpy")
        >>> toy.state().shape
        (29,)
        """
        return np.concatenate([self.q0, np.zeros(self.nv)])

    def observation(self, x: np.ndarray) -> np.ndarray:
        """The default observation ``(B, 10 + 2 nj)`` of states ``x (B, nq + nv)``: base
        height, gravity in the base frame, base linear and angular velocity (base frame),
        joint angles minus the nominal ones, joint rates.

        Examples
        --------
        >>> from lagdyn.gym.legged import Legged, QUADRUPED_URDF
        >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
        ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6], backend="numpy")
        >>> toy.observation(toy.state()[None])[0, :4].round(4) + 0.0
        array([ 0.2229,  0.    ,  0.    , -1.    ])
        """
        nq = self.nq
        out = np.empty((x.shape[0], 10 + 2 * self.nj))
        out[:, 0] = x[:, 2]
        out[:, 1:4] = gravity_in_base(x[:, :nq])
        out[:, 4:10] = x[:, nq : nq + 6]
        out[:, 10 : 10 + self.nj] = x[:, 7:nq] - self.q0[7:]
        out[:, 10 + self.nj :] = x[:, nq + 6 :]
        return out

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` of :meth:`observation`: gravity in [−1, 1], the rest unbounded.

        Examples
        --------
        >>> from lagdyn.gym.legged import Legged, QUADRUPED_URDF
        >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
        ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6], backend="numpy")
        >>> toy.observation_bounds()[1][:5]
        array([inf,  1.,  1.,  1., inf])
        """
        high = np.full(10 + 2 * self.nj, np.inf)
        high[1:4] = 1.0
        return -high, high

    def reset(
        self,
        rng: np.random.Generator,
        size: int,
        joint_noise: float = 0.1,
        velocity_noise: float = 0.1,
    ) -> np.ndarray:
        """``size`` initial states: the nominal pose, joints uniform in ±``joint_noise``, base
        velocities uniform in ±``velocity_noise``, the lowest foot on the ground.

        Examples
        --------
        >>> import numpy as np
        >>> from lagdyn.gym.legged import Legged, QUADRUPED_URDF
        >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
        ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6], backend="numpy")
        >>> x = toy.reset(np.random.default_rng(0), 5)
        >>> x.shape, round(float(toy.lowest_foot(x[:, :15]).max()), 12)
        ((5, 29), 0.0)
        """
        nq, nv, nj = self.nq, self.nv, self.nj
        x = np.zeros((size, nq + nv))
        x[:, :nq] = self.q0
        x[:, 7:nq] += rng.uniform(-joint_noise, joint_noise, size=(size, nj))
        x[:, nq : nq + 6] = rng.uniform(-velocity_noise, velocity_noise, size=(size, 6))
        x[:, 2] -= self.lowest_foot(x[:, :nq])
        return x

    def lowest_foot(self, q: np.ndarray) -> np.ndarray:
        """The height of the lowest foot above the ground at configurations ``q (B, nq)``.

        Examples
        --------
        >>> from lagdyn.gym.legged import Legged, QUADRUPED_URDF
        >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
        ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6], backend="numpy")
        >>> round(float(toy.lowest_foot(toy.q0[None])[0]), 12)
        0.0
        """
        heights = [np.asarray(self.num.frame_placement(q, f)[1])[..., 2] for f in self.feet]
        return np.min(np.stack(heights, axis=-1), axis=-1)


def _kernels(robot: Any, values: Mapping[str, Any], feet: list[str], backend: str | None) -> Any:
    """``(FloatingModel, Contacts)`` on ``backend``; None: C, else numpy when C is not there."""
    from ..errors import BackendUnavailableError
    from ._core import fastest_backend

    names = [backend] if backend is not None else list(dict.fromkeys([fastest_backend(), "numpy"]))
    for i, name in enumerate(names):
        try:
            num = robot.lambdify(values, kernels=["M", "bias", "g"], backend=name)
            contacts = num.contacts(feet)  # names unknown frames
            zero = np.zeros(robot.nv)
            contacts.step(robot.neutral(), zero, zero, 1e-3, mu=0.0)  # builds every kernel
        except BackendUnavailableError:
            if i == len(names) - 1:
                raise
            continue
        return num, contacts
    raise AssertionError("unreachable")  # pragma: no cover


class ContactStepper:
    """The step of B legged robots: ``substeps`` calls of ``Contacts.step`` (batched over
    the robots), the joints' torques recomputed from the action before each. After a call,
    ``failed (B,)`` marks the robots whose contact solve did not converge in some substep and
    ``residual (B,)`` holds their largest residual (m/s).

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.gym.legged import ContactStepper, Legged, QUADRUPED_URDF
    >>> toy = Legged(QUADRUPED_URDF, ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
    ...              [0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6], backend="numpy")
    >>> step = ContactStepper(toy, 0.02, 4)
    >>> x = np.tile(toy.state(), (3, 1))
    >>> x1 = step(x, np.zeros((3, toy.nv)), np.zeros((1, 1)))
    >>> x1.shape, step.failed.tolist(), bool(np.allclose(x1, x, atol=1e-6))
    ((3, 29), [False, False, False], True)
    """

    fused = False

    def __init__(self, legged: Legged, dt: float, substeps: int) -> None:
        self.legged = legged
        self.substeps = substeps
        self.h = dt / substeps
        self.backend = str(getattr(legged.num, "backend", "numpy"))
        self.failed = np.zeros(0, dtype=bool)
        self.residual = np.zeros(0)

    def __call__(self, x: np.ndarray, tau: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The states after one environment step from ``x (B, nq + nv)`` under the actions
        in ``tau[:, 6:]`` (``t`` is unused: the law does not depend on time)."""
        lg = self.legged
        nq, nv = lg.nq, lg.nv
        B = x.shape[0]
        action = np.broadcast_to(tau[:, 6:], (B, lg.nj))
        q, v = x[:, :nq], x[:, nq:]
        failed = np.zeros(B, dtype=bool)
        residual = np.zeros(B)
        lam = None
        full = np.zeros((B, nv))
        for _ in range(self.substeps):
            full[:, 6:] = lg.torques(np.concatenate([q, v], axis=1), action)
            s = lg.contacts.step(
                q, v, full, self.h, mu=lg.mu, on_failure="status", lam0=lam, **lg.contact
            )
            bad = ~(np.isfinite(s.q).all(axis=1) & np.isfinite(s.v).all(axis=1))
            if bad.any():  # a failed solve gone non-finite: those robots keep their state
                sq, sv, sl = s.q.copy(), s.v.copy(), s.lam.copy()
                sq[bad], sv[bad], sl[bad] = q[bad], v[bad], 0.0
                q, v, lam = sq, sv, sl
            else:
                q, v, lam = s.q, s.v, s.lam
            failed |= bad | ~np.asarray(s.converged).reshape(B)
            residual = np.maximum(
                residual, np.where(bad, np.inf, np.asarray(s.residual).reshape(B))
            )
        self.failed, self.residual = failed, residual
        return np.ascontiguousarray(np.concatenate([q, v], axis=1))


def _state_of(legged: Legged, value: Any) -> np.ndarray:
    from ..codegen.binding import real_array

    k = legged.nq + legged.nv
    x = real_array("initial_state", value)
    if x.dtype.kind not in "fiu" or x.shape != (k,):
        raise ShapeError(f"initial_state must be a state (q, v) of shape ({k},); got {x.shape}")
    x = x.astype(np.float64)
    if not np.isfinite(x).all():
        raise LagdynError("initial_state contains NaN or infinite values")
    return x


def _uniform(center: np.ndarray, noise: np.ndarray) -> Any:
    def draw(rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.uniform(center - noise, center + noise, size=(size, center.shape[0]))

    return draw


TOY_FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
TOY_JOINTS = (0.8, -1.6, 0.8, -1.6, -0.8, 1.6, -0.8, 1.6)
SOLO12_JOINTS = (0.0, 0.8, -1.6, 0.0, 0.8, -1.6, 0.0, -0.8, 1.6, 0.0, -0.8, 1.6)
#: The toy's contact options (:func:`quadruped`): soft (R = 0.01 s/kg: a standing foot sinks
#: about 1e-5 m), ADMM, residual ≤ 1e-6 m/s.
TOY_CONTACT: dict[str, Any] = {"compliance": 1e-2, "tol": 1e-6, "method": "admm"}
#: Solo12's contact options (:func:`solo12`): rigid, Gauss–Seidel, residual ≤ 1e-6 m/s.
SOLO12_CONTACT: dict[str, Any] = {"tol": 1e-6}
