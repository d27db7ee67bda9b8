"""lagdyn: symbolic Euler–Lagrange equations of motion, exact structure proofs, fast numerics."""

# modules that build on LagrangianSystem (order matters: the zoo's mechanisms need constraints)
from . import (
    coordchange,
    export,
    kinematics,
    plot,  # numpy only at import; matplotlib is imported inside
    robot,
    structure,
    zoo,
)
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
from .simulate import SimulationResult, simulate
from .symbols import accelerations, coordinates, parameters, t, velocities
from .system import LagrangianSystem

from ._version import __version__

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
    "robot",
    "simulate",
    "structure",
    "t",
    "velocities",
    "zoo",
]
