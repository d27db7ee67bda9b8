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

from typing import Any

import lagdyn.robot.programs as programs

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

# The builders, RobotSystem and the regressor are loaded on first access (PEP 562): they
# reach lagdyn.system, while the recursive programs and the chain (imported by
# identification and codegen users) must not, or system -> ... -> robot -> system cycles.
_LAZY: dict[str, tuple[str, str | None]] = {
    "regressor": ("lagdyn.robot.regressor", None),
    "proofs": ("lagdyn.robot.proofs", None),
    "opcounts": ("lagdyn.robot.opcounts", None),
    "RobotSystem": ("lagdyn.robot.system", "RobotSystem"),
    "from_urdf": ("lagdyn.robot.urdf", "from_urdf"),
    "transform_inertia": ("lagdyn.robot.urdf", "transform_inertia"),
    **{
        name: ("lagdyn.robot.builders", name)
        for name in ("exact", "exact_angle", "from_dh", "from_screws", "make_chain")
    },
}


def __getattr__(name: str) -> Any:
    """Load the builders, ``RobotSystem`` and ``regressor`` on first access.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.robot.from_dh.__module__
    'lagdyn.robot.builders'
    """
    import importlib

    if name not in _LAZY:
        raise AttributeError(f"module 'lagdyn.robot' has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *__all__})


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
    "opcounts",
    "programs",
    "proofs",
    "regressor",
    "rotation_about",
    "rpy",
    "skew",
    "standard_parameters",
    "transform_inertia",
]
