"""lagdyn: symbolic Euler–Lagrange equations of motion, exact structure proofs, fast numerics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    BackendUnavailableError,
    ConstraintError,
    CoordinateError,
    LagdynError,
    LagdynWarning,
    NotQuadraticError,
    ParseError,
    ShapeError,
    SingularMassMatrixError,
    UnboundParameterError,
    UndefinedExpressionError,
)

if TYPE_CHECKING:  # pragma: no cover
    from . import (
        control,
        coordchange,
        export,
        gym,
        kinematics,
        lab,
        plot,
        robot,
        simulation,
        structure,
        zoo,
    )
    from ._version import __version__
    from .constraints import ConstrainedSystem
    from .coordchange import ConstraintTangent, CoordinateChange, change_coordinates
    from .identification.estimate import identify
    from .identification.regressor import regressor
    from .kinematics import (
        Particle,
        RigidBody2D,
        RigidBody3D,
        from_bodies,
        from_particles,
        generalized_force,
        generalized_torque,
        jacobian,
        rayleigh_forces,
    )
    from .mechanics import from_mechanics
    from .simulation import SimulationResult, simulate
    from .symbols import accelerations, coordinates, parameters, t, velocities
    from .system import LagrangianSystem

# Everything but the exceptions loads on first access (module ``__getattr__`` below): ``import
# lagdyn`` imports neither sympy nor numpy, and ``lagdyn --help`` stays fast. Submodules not
# listed here (``ld.numeric``, ``ld.system``, ...) load the same way.
_LAZY: dict[str, tuple[str, str | None]] = {
    "__version__": ("lagdyn._version", "__version__"),
    "ConstrainedSystem": ("lagdyn.constraints", "ConstrainedSystem"),
    "ConstraintTangent": ("lagdyn.coordchange", "ConstraintTangent"),
    "CoordinateChange": ("lagdyn.coordchange", "CoordinateChange"),
    "change_coordinates": ("lagdyn.coordchange", "change_coordinates"),
    "from_mechanics": ("lagdyn.mechanics", "from_mechanics"),
    "LagrangianSystem": ("lagdyn.system", "LagrangianSystem"),
    "identify": ("lagdyn.identification", "identify"),
    "regressor": ("lagdyn.identification", "regressor"),
    "SimulationResult": ("lagdyn.simulation", "SimulationResult"),
    "simulate": ("lagdyn.simulation", "simulate"),
    **{
        name: ("lagdyn.kinematics", name)
        for name in (
            "Particle",
            "RigidBody2D",
            "RigidBody3D",
            "from_bodies",
            "from_particles",
            "generalized_force",
            "generalized_torque",
            "jacobian",
            "rayleigh_forces",
        )
    },
    **{
        name: ("lagdyn.symbols", name)
        for name in ("accelerations", "coordinates", "parameters", "t", "velocities")
    },
}

__all__ = [
    # errors
    "BackendUnavailableError",
    "ConstrainedSystem",
    "ConstraintError",
    "ConstraintTangent",
    "CoordinateChange",
    "CoordinateError",
    "LagdynError",
    "LagdynWarning",
    "LagrangianSystem",
    "NotQuadraticError",
    "ParseError",
    "Particle",
    "RigidBody2D",
    "RigidBody3D",
    "ShapeError",
    "SimulationResult",
    "SingularMassMatrixError",
    "UnboundParameterError",
    "UndefinedExpressionError",
    "__version__",
    # symbols
    "accelerations",
    "change_coordinates",
    "control",
    "coordchange",
    "coordinates",
    "export",
    "from_bodies",
    "from_mechanics",
    "from_particles",
    "generalized_force",
    "generalized_torque",
    "gym",
    "identification",
    "identify",
    "jacobian",
    "kinematics",
    "lab",
    "parameters",
    "plot",
    "rayleigh_forces",
    "regressor",
    "robot",
    "simulate",
    "simulation",
    "structure",
    "t",
    "velocities",
    "zoo",
]


def __getattr__(name: str) -> Any:
    """Load the public names and the submodules on first access (PEP 562).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.simulate.__module__, ld.plot.__name__
    ('lagdyn.simulation.api', 'lagdyn.plot')
    """
    import importlib
    import importlib.util

    if name in _LAZY:
        module_name, attr = _LAZY[name]
    elif not name.startswith("_") and importlib.util.find_spec(f"lagdyn.{name}") is not None:
        module_name, attr = f"lagdyn.{name}", None  # a submodule: ld.zoo, ld.plot, ...
    else:
        raise AttributeError(f"module 'lagdyn' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, the loaded submodules and the module dunders; no typing helpers.

    Examples
    --------
    >>> import lagdyn as ld
    >>> "simulate" in dir(ld), "Any" in dir(ld), "annotations" in dir(ld)
    (True, False, False)
    """
    import types

    loaded = {
        name
        for name, value in globals().items()
        if isinstance(value, types.ModuleType) and value.__name__ == f"lagdyn.{name}"
    }
    dunders = {name for name in globals() if name.startswith("__") and name.endswith("__")}
    return sorted({*dunders, *loaded, *_LAZY, *__all__})
