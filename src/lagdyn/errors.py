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
from typing import Any

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
    "shape_text",
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
    """An array or matrix argument of the wrong shape or dtype.

    Shapes in its messages read as Python shapes, ``(3,)`` or ``(..., 2)``: build them
    with :func:`shape_text`.

    Examples
    --------
    >>> from lagdyn.errors import ShapeError, shape_text
    >>> print(ShapeError(f"q has shape {shape_text([1.0, 2.0, 3.0])}, expected (..., 2)"))
    q has shape (3,), expected (..., 2)
    """


def shape_text(value: object) -> str:
    """The shape of an array-like (or a shape itself) as a Python tuple: ``(3,)``, ``()``.

    A tuple or list of ints is taken as a shape; a numpy/jax/sympy array or a nested
    sequence as a value whose shape is measured.

    Examples
    --------
    >>> from lagdyn.errors import shape_text
    >>> shape_text([[1, 2, 3]]), shape_text((3,)), shape_text(2.0)
    ('(1, 3)', '(3,)', '()')
    >>> import numpy as np
    >>> shape_text(np.zeros((2, 2)).shape), shape_text(np.zeros(4))
    ('(2, 2)', '(4,)')
    """
    shape = getattr(value, "shape", None)
    if shape is None:
        if isinstance(value, tuple) and all(isinstance(k, int) for k in value):
            shape = value
        else:
            try:
                import numpy as np

                array_like: Any = value  # a nested sequence, or anything numpy measures
                shape = np.shape(array_like)
            except (ImportError, ValueError):  # ragged: the outer length only
                shape = (len(value),) if hasattr(value, "__len__") else ()
    return str(tuple(int(k) for k in shape))


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

    #: What to do, said once at the end of the message unless the raiser says better.
    ADVICE = "bind them in params={...} or pass them per call"

    def __init__(
        self, missing: Iterable[object], where: str = "", *, advice: str | None = None
    ) -> None:
        """``where`` names the place that needed them; ``advice`` replaces :attr:`ADVICE`.

        Examples
        --------
        >>> from lagdyn.errors import UnboundParameterError
        >>> print(UnboundParameterError(["m"], "equilibrium"))  # doctest: +NORMALIZE_WHITESPACE
        no value for parameter(s) m (equilibrium):
        bind them in params={...} or pass them per call
        >>> print(UnboundParameterError(["m"], advice="pass params= per call"))
        no value for parameter(s) m: pass params= per call
        """
        self.missing = tuple(missing)
        names = ", ".join(str(s) for s in self.missing)
        suffix = f" ({where})" if where else ""
        super().__init__(f"no value for parameter(s) {names}{suffix}: {advice or self.ADVICE}")


class BackendUnavailableError(LagdynError, ImportError):
    """A numeric backend whose optional dependency or compiler is missing."""
