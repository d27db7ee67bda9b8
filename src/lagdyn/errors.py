"""The exceptions lagdyn raises.

Every error lagdyn raises on bad input is a :class:`LagdynError`, itself a
``ValueError``, so ``except ValueError`` keeps working for callers that do not
care about the details.  Messages name the offending object.

Examples
--------
>>> import lagdyn as ld
>>> try:
...     ld.coordinates("")
... except ld.LagdynError as exc:
...     print(type(exc).__name__)
CoordinateError
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "BackendUnavailableError",
    "ConstraintError",
    "CoordinateError",
    "LagdynError",
    "LagdynWarning",
    "NotQuadraticError",
    "ParseError",
    "ShapeError",
    "SingularMassMatrixError",
    "UnboundParameterError",
    "UndefinedExpressionError",
]


class LagdynError(ValueError):
    """Base class of every error lagdyn raises on bad input."""


class LagdynWarning(UserWarning):
    """Base class of the warnings lagdyn issues (filter them with this category).

    Examples
    --------
    >>> import warnings, lagdyn as ld
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", ld.LagdynWarning)
    ...     try:
    ...         warnings.warn("a doubt", ld.LagdynWarning)
    ...     except ld.LagdynWarning as w:
    ...         print(w)
    a doubt
    """


class CoordinateError(LagdynError):
    """Coordinates that are not usable (duplicated, not functions of ``t``, ...)."""


class NotQuadraticError(LagdynError):
    """A Lagrangian that is not quadratic in the velocities, or contains accelerations."""


class SingularMassMatrixError(LagdynError):
    """A mass matrix that is singular (a coordinate without inertia)."""


class UndefinedExpressionError(LagdynError):
    """An expression of the model that is undefined (a division by an expression that is
    identically zero, an infinite constant) or not real (``sqrt(-1)``, ``asin(2)``)."""


class ShapeError(LagdynError):
    """An array or matrix argument of the wrong shape or dtype."""


class ConstraintError(LagdynError):
    """Redundant, singular or too many holonomic constraints."""


class ParseError(LagdynError):
    """A string expression the restricted parser refuses."""


class UnboundParameterError(LagdynError):
    """Numeric evaluation needs parameters that were not given.

    Attributes
    ----------
    missing : tuple of sympy.Symbol
        Every parameter that has no value.
    """

    def __init__(self, missing: Iterable[object], where: str = "") -> None:
        self.missing = tuple(missing)
        names = ", ".join(str(s) for s in self.missing)
        suffix = f" ({where})" if where else ""
        super().__init__(
            f"no value for parameter(s) {names}{suffix}: bind them in params={{...}} "
            "or pass them per call"
        )


class BackendUnavailableError(LagdynError, ImportError):
    """A numeric backend whose optional dependency or compiler is missing."""
