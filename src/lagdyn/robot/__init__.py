"""Robot arms: spatial kinematic trees from URDF, Denavit–Hartenberg tables and screws.

Every builder returns a :class:`~lagdyn.robot.system.RobotSystem`, a
:class:`~lagdyn.LagrangianSystem` (M, C, g, proofs, LaTeX, ``lambdify`` all work) with the
:class:`Chain` attached as ``system.chain`` and the recursive programs of
:mod:`lagdyn.robot.programs` (RNEA, CRBA, forward dynamics, Coriolis matrix) available as
``system.program(name)``; :mod:`lagdyn.robot.regressor` builds the regressor of the standard
inertial parameters the same way.

Examples
--------
>>> import lagdyn as ld
>>> arm = ld.robot.from_dh([(0, 1, 0), (0, 1, 0)], parameters="numeric",
...                        inertia=[{"m": 1, "com": (-0.5, 0, 0)}] * 2)
>>> arm.g.T
Matrix([[0, 0]])
"""

import lagdyn.robot.programs as programs
import lagdyn.robot.regressor as regressor

from .builders import exact, exact_angle, from_dh, from_screws, make_chain
from .chain import (
    Chain,
    Link,
    inertia_about_origin,
    rotation_about,
    rpy,
    skew,
    standard_parameters,
)
from .programs import Program
from .system import RobotSystem
from .urdf import from_urdf, transform_inertia

__all__ = [
    "Chain",
    "Link",
    "Program",
    "RobotSystem",
    "exact",
    "exact_angle",
    "from_dh",
    "from_screws",
    "from_urdf",
    "inertia_about_origin",
    "make_chain",
    "programs",
    "regressor",
    "rotation_about",
    "rpy",
    "skew",
    "standard_parameters",
    "transform_inertia",
]
