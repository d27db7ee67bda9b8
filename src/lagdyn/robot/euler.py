r"""A minimal Euler-angle chart of a floating base: a plain :class:`~lagdyn.LagrangianSystem`.

A :class:`~lagdyn.robot.floating.FloatingRobot` uses Pinocchio's free-flyer configuration
(position, unit quaternion; no chart singularity), which is not a Lagrangian system in
q, q̇. :func:`euler_chart` gives the same robot with six coordinates for the base — three
translations along the world axes and the ZYX (yaw, pitch, roll) angles,
:math:`R = R_z(\psi) R_y(\theta) R_x(\phi)` — as a :class:`~lagdyn.robot.RobotSystem`
whose first six joints are virtual (massless prismatic x, y, z, revolute yaw about z,
pitch about the new y, roll about the newest x, which carries the base body). Everything
of a ``LagrangianSystem`` works: M, C, g, the exact skew proof, ``lambdify``,
:class:`~lagdyn.ConstrainedSystem` (closed loops on a floating robot go through it).

Coordinates: q = (x, y, z, yaw, pitch, roll, joints) — a serial chain applies ZYX as yaw
first — named ``<base>_x`` … ``<base>_roll`` in ``chain.joint_names``. With the velocity map
E(q) of :func:`velocity_map` (Pinocchio's v = E(q) q̇: base-frame linear velocity
:math:`R^T \dot p`, base-frame angular velocity, joint rates),

.. math:: M_{euler} = E^T M_{quat} E, \qquad g_{euler} = E^T g_{quat}.

**Singularity**: E is singular at pitch θ = ±π/2 (gimbal lock: yaw and roll turn about the
same axis), and so is M there. :func:`velocity_map`, :func:`from_floating` and
:func:`check_chart` raise :class:`~lagdyn.LagdynError` within 1e-9 of it (in cos θ); the
generated dynamics are evaluated there without a check (forward dynamics of a singular M:
non-finite results under the numeric models' IEEE policy).

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn.robot.floating import EXAMPLE_URDF
>>> from lagdyn.robot.euler import euler_chart
>>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
>>> chart = euler_chart(robot)
>>> chart.n, chart.chain.joint_names[:6]
(9, ('trunk_x', 'trunk_y', 'trunk_z', 'trunk_yaw', 'trunk_pitch', 'trunk_roll'))
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..errors import LagdynError, ShapeError
from ..recursive.chain import _EYE, _ZERO3, Link
from ..recursive.kinematics import Frame
from ._frames import frame_entry
from .builders import make_chain
from .system import RobotSystem, build

__all__ = ["check_chart", "euler_chart", "from_floating", "to_floating", "velocity_map"]

#: How close cos(pitch) may come to 0 before the chart is refused.
SINGULAR_TOL = 1e-9


def euler_chart(robot: Any) -> RobotSystem:
    """The floating robot as a plain Lagrangian system in Euler-angle coordinates.

    Parameters
    ----------
    robot : FloatingRobot

    Returns
    -------
    RobotSystem
        n = 6 + joints; parameters and defaults those of ``robot``; gravity the world's;
        ``frames`` those of ``robot`` (when it has them) on the new link indices, the base
        body being link 5.

    Raises
    ------
    LagdynError
        ``robot`` is not a FloatingRobot.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> from lagdyn.robot.euler import euler_chart
    >>> chart = euler_chart(ld.robot.from_urdf(EXAMPLE_URDF, base="floating"))
    >>> chart.is_skew_symmetric()
    True
    """
    from .floating import FloatingRobot

    if not isinstance(robot, FloatingRobot):
        raise LagdynError(f"euler_chart needs a FloatingRobot, got {type(robot).__name__}")
    base = robot.base
    name = base.name
    virtual = [
        Link(f"{name}_x", "prismatic", (1, 0, 0)),
        Link(f"{name}_y", "prismatic", (0, 1, 0), parent=0),
        Link(f"{name}_z", "prismatic", (0, 0, 1), parent=1),
        Link(f"{name}_yaw", "revolute", (0, 0, 1), parent=2),
        Link(f"{name}_pitch", "revolute", (0, 1, 0), parent=3),
        Link(
            name,
            "revolute",
            (1, 0, 0),
            parent=4,
            mass=base.mass,
            first_moment=base.first_moment,
            inertia=base.inertia,
        ),
    ]
    moved = [
        replace(link, parent=link.parent + 6 if link.parent >= 0 else 5)
        for link in base.chain.links
    ]
    names = [f"{name}_{k}" for k in ("x", "y", "z", "yaw", "pitch", "roll")]
    defaults = dict(base.chain.defaults) | dict(robot.defaults)
    chain, _ = make_chain(
        virtual + moved,
        gravity=list(base.chain.gravity),
        defaults=defaults,
        names=names + list(base.chain.joint_names),
    )
    system = build(chain, friction=robot.friction)
    system.frames = {name: Frame(name, 5)}
    for key, value in dict(getattr(robot, "frames", {}) or {}).items():
        b, R, p = frame_entry(value)
        system.frames[key] = Frame(
            key, b + 6 if b >= 0 else 5, _EYE if R is None else R, _ZERO3 if p is None else p
        )
    return system


def _split(q: Any, what: str) -> Any:
    import numpy as np

    a = np.asarray(q, dtype=np.float64)
    if a.ndim == 0 or a.shape[-1] < 6:
        raise ShapeError(f"{what} must have at least 6 entries (base x y z yaw pitch roll)")
    if not np.all(np.isfinite(a)):
        raise LagdynError(f"{what} has a non-finite entry")
    return a


def check_chart(q: Any) -> None:
    """Refuse configurations at (or within 1e-9 in cos of) the singularity pitch = ±π/2.

    Raises
    ------
    LagdynError
        Naming the pitch found.

    Examples
    --------
    >>> import math
    >>> from lagdyn.robot.euler import check_chart
    >>> check_chart([0, 0, 0, 0.3, math.pi / 2, 0.1])
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: the Euler chart is singular at pitch = ±π/2 (gimbal lock): \
pitch 1.5707963267948966 (cos 6.1e-17); use the quaternion model (FloatingRobot)
    """
    import numpy as np

    a = _split(q, "q")
    pitch = a[..., 4]
    c = np.cos(pitch)
    bad = np.abs(c) < SINGULAR_TOL
    if np.any(bad):
        first = float(np.ravel(pitch)[np.argmax(np.ravel(bad))])
        raise LagdynError(
            "the Euler chart is singular at pitch = ±π/2 (gimbal lock): pitch "
            f"{first!r} (cos {np.cos(first):.2g}); use the quaternion model (FloatingRobot)"
        )


def _rotation(a: Any) -> Any:
    import numpy as np

    y, p, r = a[..., 3], a[..., 4], a[..., 5]
    cy, sy, cp, s_p, cr, sr = np.cos(y), np.sin(y), np.cos(p), np.sin(p), np.cos(r), np.sin(r)
    R = np.empty((*a.shape[:-1], 3, 3))
    R[..., 0, 0], R[..., 0, 1], R[..., 0, 2] = (
        cy * cp,
        cy * s_p * sr - sy * cr,
        cy * s_p * cr + sy * sr,
    )
    R[..., 1, 0], R[..., 1, 1], R[..., 1, 2] = (
        sy * cp,
        sy * s_p * sr + cy * cr,
        sy * s_p * cr - cy * sr,
    )
    R[..., 2, 0], R[..., 2, 1], R[..., 2, 2] = -s_p, cp * sr, cp * cr
    return R


def velocity_map(q: Any) -> Any:
    r"""E(q), shape ``(..., n, n)``: Pinocchio's v = E(q) q̇ for the chart's q̇.

    Blocks: :math:`R^T` (world rates → base-frame linear velocity), the body-frame angular
    velocity of ZYX rates ``[[−sin θ, 0, 1], [sin φ cos θ, cos φ, 0], [cos φ cos θ,
    −sin φ, 0]]`` (columns yaw, pitch, roll), the identity for the joints.

    Raises
    ------
    LagdynError
        At the singularity (:func:`check_chart`).

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.euler import velocity_map
    >>> velocity_map(np.zeros(7))[3:6, 3:6]
    array([[-0.,  0.,  1.],
           [ 0.,  1.,  0.],
           [ 1., -0.,  0.]])
    """
    import numpy as np

    a = _split(q, "q")
    check_chart(a)
    n = a.shape[-1]
    E = np.zeros((*a.shape[:-1], n, n))
    E[..., :3, :3] = np.swapaxes(_rotation(a), -1, -2)
    p, r = a[..., 4], a[..., 5]
    E[..., 3, 3], E[..., 3, 5] = -np.sin(p), 1.0
    E[..., 4, 3], E[..., 4, 4] = np.sin(r) * np.cos(p), np.cos(r)
    E[..., 5, 3], E[..., 5, 4] = np.cos(r) * np.cos(p), -np.sin(r)
    idx = np.arange(6, n)
    E[..., idx, idx] = 1.0
    return E


def to_floating(q: Any, qd: Any = None) -> Any:
    """The free-flyer (q, v) of a chart state: ``q`` alone gives the configuration only.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.euler import to_floating
    >>> np.round(to_floating([1, 2, 3, np.pi / 2, 0, 0, 0.5]), 6)[3:7]   # quaternion x y z w
    array([0.      , 0.      , 0.707107, 0.707107])
    """
    import numpy as np

    a = _split(q, "q")
    half = a[..., 3:6] / 2
    cy, sy = np.cos(half[..., 0]), np.sin(half[..., 0])
    cp, s_p = np.cos(half[..., 1]), np.sin(half[..., 1])
    cr, sr = np.cos(half[..., 2]), np.sin(half[..., 2])
    quat = np.stack(
        [
            sr * cp * cy - cr * s_p * sy,
            cr * s_p * cy + sr * cp * sy,
            cr * cp * sy - sr * s_p * cy,
            cr * cp * cy + sr * s_p * sy,
        ],
        axis=-1,
    )
    qf = np.concatenate([a[..., :3], quat, a[..., 6:]], axis=-1)
    if qd is None:
        return qf
    v = np.einsum("...ij,...j->...i", velocity_map(a), np.asarray(qd, dtype=np.float64))
    return qf, v


def from_floating(q: Any, v: Any = None) -> Any:
    """The chart state of a free-flyer (q, v) (yaw, roll in (−π, π], pitch in [−π/2, π/2]).

    Raises
    ------
    LagdynError
        A zero quaternion, or a rotation at the chart's singularity.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot.euler import from_floating, to_floating
    >>> qe = np.array([0.1, 0.2, 0.3, 0.4, -0.5, 0.6, 1.0])
    >>> bool(np.allclose(from_floating(to_floating(qe)), qe))
    True
    """
    import numpy as np

    a = np.asarray(q, dtype=np.float64)
    if a.ndim == 0 or a.shape[-1] < 7:
        raise ShapeError("q must have at least 7 entries (base position, quaternion x y z w)")
    quat = a[..., 3:7]
    norm = np.sqrt(np.sum(quat * quat, axis=-1, keepdims=True))
    if np.any(norm == 0) or not np.all(np.isfinite(a)):
        raise LagdynError("q holds a quaternion of zero norm or a non-finite entry")
    x, y, z, w = np.moveaxis(quat / norm, -1, 0)
    r20 = 2 * (x * z - w * y)
    pitch = np.arcsin(np.clip(-r20, -1.0, 1.0))
    yaw = np.arctan2(2 * (x * y + w * z), 1 - 2 * (y * y + z * z))
    roll = np.arctan2(2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
    qe = np.concatenate([a[..., :3], np.stack([yaw, pitch, roll], axis=-1), a[..., 7:]], axis=-1)
    check_chart(qe)
    if v is None:
        return qe
    E = velocity_map(qe)
    return qe, np.linalg.solve(E, np.asarray(v, dtype=np.float64)[..., None])[..., 0]
