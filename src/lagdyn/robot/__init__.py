"""Robot arms: spatial kinematic trees from URDF, Denavit–Hartenberg tables and screws.

Every builder returns a :class:`~lagdyn.robot.system.RobotSystem`, a
:class:`~lagdyn.LagrangianSystem` (M, C, g, proofs, LaTeX, ``lambdify`` all work) with the
:class:`Chain` attached as ``system.chain`` and the recursive programs of
:mod:`lagdyn.recursive` (RNEA, CRBA, forward dynamics, Coriolis matrix) available as
``system.program(name)``; :mod:`lagdyn.recursive.regressor` builds the regressor of the
standard inertial parameters the same way. This package re-exports :mod:`lagdyn.recursive`.

Examples
--------
>>> import lagdyn as ld
>>> arm = ld.robot.from_dh([(0, 1, 0), (0, 1, 0)], parameters="numeric",
...                        inertia=[{"m": 1, "com": (-0.5, 0, 0)}] * 2)
>>> arm.g.T
Matrix([[0, 0]])
"""

from typing import Any

import lagdyn.recursive as _recursive

from .._moved import warn_moved
from ..recursive import (
    Chain,
    Link,
    Program,
    chain_of,
    inertia_about_origin,
    rotation_about,
    rpy,
    skew,
    standard_parameters,
)
from ..recursive import proofs as proofs
from ..recursive import regressor as regressor
from ._checks import MAX_JOINTS
from .builders import exact, exact_angle, from_dh, from_screws, make_chain
from .euler import euler_chart
from .loops import ClosedLoopSystem, close_loops
from .sdf import SdfModel, from_sdf, read_sdf
from .system import RobotSystem
from .urdf import from_urdf, transform_inertia

# Names that moved to lagdyn.recursive: still reachable here for one release, with a warning.
_MOVED = {"programs": ("lagdyn.robot.programs", "lagdyn.recursive", _recursive)}


def __getattr__(name: str) -> Any:
    """Deprecated names (``ld.robot.programs`` is now :mod:`lagdyn.recursive`).

    Examples
    --------
    >>> import warnings, lagdyn as ld
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ld.robot.programs.__name__
    'lagdyn.recursive'
    """
    if name in _MOVED:
        old, new, value = _MOVED[name]
        warn_moved(old, new)
        return value
    raise AttributeError(f"module 'lagdyn.robot' has no attribute {name!r}")


__all__ = [
    "MAX_JOINTS",
    "Chain",
    "ClosedLoopSystem",
    "Link",
    "Program",
    "RobotSystem",
    "SdfModel",
    "chain_of",
    "close_loops",
    "euler_chart",
    "exact",
    "exact_angle",
    "from_dh",
    "from_screws",
    "from_sdf",
    "from_urdf",
    "inertia_about_origin",
    "make_chain",
    "proofs",
    "read_sdf",
    "regressor",
    "rotation_about",
    "rpy",
    "skew",
    "standard_parameters",
    "transform_inertia",
]
