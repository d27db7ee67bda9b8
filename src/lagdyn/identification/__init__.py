"""Parameter identification: regressors, base parameters, least squares, excitation.

The equations of motion of most mechanical systems are linear in suitably chosen
parameters (masses, first moments, inertias about the joints, friction
coefficients): ``τ = Y(q, q̇, q̈) π``. This package computes Y exactly
(:func:`regressor`), reduces π to its identifiable *base parameters*
(:func:`base_parameters`, symbolic and exact; :func:`numeric_base_parameters`, by QR
with column pivoting), estimates them from measured data by (weighted) least squares
(:func:`identify`), designs exciting trajectories (:func:`excitation_trajectory`) and
checks the physical consistency of recovered inertial parameters
(:func:`pseudo_inertia`, :func:`is_physically_consistent`).

Examples
--------
>>> import lagdyn as ld
>>> arm = ld.zoo.two_link_planar()
>>> params = ld.identification.linear_parameters(arm, ["m1", "m2", "lc1", "lc2", "I1", "I2"])
>>> bp = ld.identification.base_parameters(arm, params)   # l1 and g known
>>> bp.rank
4
"""

from __future__ import annotations

from .base import (
    BaseColumns,
    BaseParameters,
    NumericBaseParameters,
    base_parameters,
    base_parameters_text,
    numeric_base_parameters,
)
from .casadi import CasadiRegressor
from .consistency import is_physically_consistent, pseudo_inertia
from .estimate import IdentificationResult, identify
from .excitation import FourierTrajectory, excitation_trajectory
from .regressor import RegressorFunction, linear_parameters, regressor, regressor_function

__all__ = [  # noqa: RUF022 - grouped by concept
    # regressor
    "CasadiRegressor",
    "RegressorFunction",
    "linear_parameters",
    "regressor",
    "regressor_function",
    # base parameters
    "BaseColumns",
    "BaseParameters",
    "NumericBaseParameters",
    "base_parameters",
    "base_parameters_text",
    "numeric_base_parameters",
    # estimation
    "IdentificationResult",
    "identify",
    # excitation
    "FourierTrajectory",
    "excitation_trajectory",
    # physical consistency
    "is_physically_consistent",
    "pseudo_inertia",
]
