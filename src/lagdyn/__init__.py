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

from . import export, structure, zoo  # noqa: E402  (these need LagrangianSystem)
from .constraints import ConstrainedSystem  # noqa: E402
from .kinematics import (  # noqa: E402
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
from .coordchange import ConstraintTangent, CoordinateChange, change_coordinates  # noqa: E402
from . import coordchange, kinematics  # noqa: E402
from .simulate import SimulationResult, simulate  # noqa: E402
from . import plot  # noqa: E402  (numpy only at import; matplotlib is imported inside)

try:
    __version__ = version("lagdyn")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

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
    "Particle",
    "RigidBody2D",
    "RigidBody3D",
    "SimulationResult",
    "NotQuadraticError",
    "ParseError",
    "ShapeError",
    "SingularMassMatrixError",
    "UnboundParameterError",
    "__version__",
    # symbols
    "accelerations",
    "change_coordinates",
    "coordchange",
    "export",
    "from_bodies",
    "from_particles",
    "generalized_force",
    "generalized_torque",
    "jacobian",
    "kinematics",
    "rayleigh_forces",
    "simulate",
    "coordinates",
    "parameters",
    "plot",
    "structure",
    "t",
    "velocities",
    "zoo",
]
