"""lagdyn: symbolic Euler–Lagrange equations of motion, exact structure proofs, fast numerics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# submodules that are attributes of the package (ld.zoo, ld.structure, ...); ``plot``,
# ``simulation`` and ``simulate``/``SimulationResult``/``__version__`` load on first use
# (module ``__getattr__`` below), so ``import lagdyn`` and ``lagdyn --help`` import less.
from . import coordchange, export, kinematics, structure, zoo
from .constraints import ConstrainedSystem
from .coordchange import ConstraintTangent, CoordinateChange, change_coordinates
from .errors import (
    BackendUnavailableError,
    ConstraintError,
    CoordinateError,
    LagdynError,
    NotQuadraticError,
    ParseError,
    ShapeError,
    SingularMassMatrixError,
    UnboundParameterError,
)
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
from .symbols import accelerations, coordinates, parameters, t, velocities
from .system import LagrangianSystem

if TYPE_CHECKING:  # pragma: no cover
    from . import plot, simulation
    from ._version import __version__
    from .simulation import SimulationResult, simulate

_LAZY = {
    "__version__": ("lagdyn._version", "__version__"),
    "simulate": ("lagdyn.simulation", "simulate"),
    "SimulationResult": ("lagdyn.simulation", "SimulationResult"),
    "plot": ("lagdyn.plot", None),
    "simulation": ("lagdyn.simulation", None),
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
    "__version__",
    # symbols
    "accelerations",
    "change_coordinates",
    "coordchange",
    "coordinates",
    "export",
    "from_bodies",
    "from_particles",
    "generalized_force",
    "generalized_torque",
    "jacobian",
    "kinematics",
    "parameters",
    "plot",
    "rayleigh_forces",
    "simulate",
    "simulation",
    "structure",
    "t",
    "velocities",
    "zoo",
]


def __getattr__(name: str) -> Any:
    """Load ``plot``, ``simulation``, ``simulate``, ``SimulationResult`` and ``__version__``
    on first access (PEP 562).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.simulate.__module__, ld.plot.__name__
    ('lagdyn.simulation.api', 'lagdyn.plot')
    """
    import importlib

    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'lagdyn' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
