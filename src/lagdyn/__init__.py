"""lagdyn: symbolic Euler–Lagrange equations of motion, exact structure proofs, fast numerics."""

from importlib.metadata import PackageNotFoundError, version

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
from .symbols import accelerations, coordinates, parameters, t, velocities
from .system import LagrangianSystem

from . import structure, zoo  # noqa: E402  (these need LagrangianSystem)
from .constraints import ConstrainedSystem  # noqa: E402

try:
    __version__ = version("lagdyn")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = [
    # errors
    "BackendUnavailableError",
    "ConstrainedSystem",
    "ConstraintError",
    "CoordinateError",
    "LagdynError",
    "LagrangianSystem",
    "NotQuadraticError",
    "ParseError",
    "ShapeError",
    "SingularMassMatrixError",
    "UnboundParameterError",
    "__version__",
    # symbols
    "accelerations",
    "coordinates",
    "parameters",
    "structure",
    "t",
    "velocities",
    "zoo",
]
