"""Parameter binding: the one parser of ``params`` in lagdyn.

A :class:`Binding` splits a model's parameters into those *bound* at generation
time (folded into the code as numbers) and those left *free* (passed per call).
Keys are symbols or names (``{"g": 9.81}`` and ``{g: 9.81}`` mean the same);
values must be finite real numbers. Defaults (``system.defaults``) are never bound
implicitly: pass them explicitly.

Names that are not parameters of the system are accepted and reported in
:attr:`Binding.ignored` (a robot's full parameter set may name lengths that do not
enter the dynamics; a typo still surfaces, as the parameter it was meant for stays
free). ``strict=True`` rejects them.

:meth:`Binding.values` parses the per-call ``params=`` of a generated model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import LagdynError, ShapeError, UnboundParameterError

__all__ = ["Binding"]


def _name(key: Any) -> str:
    return key.name if isinstance(key, sp.Symbol) else str(key)


def _real(label: str, value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise LagdynError(f"{label} must be a real number, got {value!r}") from None
    if not math.isfinite(v):
        raise LagdynError(f"{label} must be a finite real number, got {value!r}")
    return v


class Binding:
    """Parameters bound at generation time, and the free ones passed per call.

    Parameters
    ----------
    parameters : sequence of sympy.Symbol
        Every parameter of the model, in order.
    values : mapping of sympy.Symbol or str to float, optional
        Values to bind now.
    strict : bool
        Reject names that are not in ``parameters`` (default: accept and ignore
        them, listing them in :attr:`ignored`).

    Attributes
    ----------
    bound : dict of sympy.Symbol to float
        In the order of ``parameters``.
    free : list of sympy.Symbol
        In the order of ``parameters``.
    ignored : tuple of str
        Names in ``values`` that are not parameters.

    Raises
    ------
    LagdynError
        A value that is not a finite real number, or (``strict=True``) an unknown name.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen import Binding
    >>> a, b = sp.symbols("a b")
    >>> bnd = Binding((a, b), {"b": 2, "c": 1.0})
    >>> bnd.bound, bnd.free, bnd.ignored
    ({b: 2.0}, [a], ('c',))
    """

    def __init__(
        self,
        parameters: Sequence[sp.Symbol],
        values: Mapping[Any, Any] | None = None,
        *,
        strict: bool = False,
    ) -> None:
        if values is not None and not isinstance(values, Mapping):
            raise LagdynError(
                f"params must be a mapping of parameter (symbol or name) to value, "
                f"got {type(values).__name__}"
            )
        self.parameters: tuple[sp.Symbol, ...] = tuple(parameters)
        by_name = {s.name: s for s in self.parameters}
        given: dict[sp.Symbol, float] = {}
        unknown: list[str] = []
        for key, value in (values or {}).items():
            name = _name(key)
            if name not in by_name:
                unknown.append(name)
                continue
            given[by_name[name]] = _real(f"params[{name}]", value)
        if unknown and strict:
            raise LagdynError(
                f"params: {', '.join(sorted(unknown))} are not parameters of the system "
                f"(its parameters: {', '.join(by_name) or 'none'})"
            )
        self.ignored: tuple[str, ...] = tuple(sorted(unknown))
        self.bound: dict[sp.Symbol, float] = {s: given[s] for s in self.parameters if s in given}
        self.free: list[sp.Symbol] = [s for s in self.parameters if s not in given]

    def __repr__(self) -> str:
        bound = ", ".join(f"{s}={v!r}" for s, v in self.bound.items()) or "none"
        free = ", ".join(map(str, self.free)) or "none"
        return f"Binding(bound: {bound}; free: {free})"

    def key(self) -> str:
        """A deterministic text of the binding (part of cache keys).

        Examples
        --------
        >>> import sympy as sp
        >>> from lagdyn.codegen import Binding
        >>> Binding(sp.symbols("a b"), {"a": 1}).key()
        'free=b|bound=a=1.0'
        """
        bound = ",".join(f"{s.name}={v!r}" for s, v in self.bound.items())
        return f"free={','.join(s.name for s in self.free)}|bound={bound}"

    def values(self, params: Any, xp: Any = np) -> Any:
        """The free parameters' values of one call as an array ``(..., n_free)``.

        ``params`` is a mapping (symbols or names; values broadcast against each
        other), an array ordered as :attr:`free`, or ``None`` when nothing is free.
        ``xp`` is the array module (``numpy`` or ``jax.numpy``).

        Raises
        ------
        UnboundParameterError
            A free parameter without a value.
        LagdynError
            A name that is bound or unknown.
        ShapeError
            Values of the wrong shape or dtype.

        Examples
        --------
        >>> import sympy as sp
        >>> from lagdyn.codegen import Binding
        >>> a, b = sp.symbols("a b")
        >>> Binding((a, b), {"a": 1}).values({"b": [1.0, 2.0]})
        array([[1.],
               [2.]])
        """
        free = self.free
        nf = len(free)
        if params is None or (isinstance(params, Mapping) and not params):
            if nf:
                raise UnboundParameterError(
                    free, advice="pass params= per call or bind them in lambdify"
                )
            return xp.zeros((0,))
        if isinstance(params, Mapping):
            index = {s.name: i for i, s in enumerate(free)}
            given: dict[int, Any] = {}
            unknown = []
            for key, value in params.items():
                name = _name(key)
                if name in index:
                    given[index[name]] = value
                else:
                    unknown.append(name)
            if unknown:
                bound = [u for u in unknown if u in {s.name for s in self.bound}]
                other = [u for u in unknown if u not in bound]
                msg = []
                if bound:
                    msg.append(f"{', '.join(bound)} were bound in lambdify")
                if other:
                    msg.append(f"{', '.join(other)} are not parameters of this model")
                raise LagdynError("params: " + "; ".join(msg))
            missing = [free[i] for i in range(nf) if i not in given]
            if missing:
                raise UnboundParameterError(missing, advice="add them to this call's params=")
            cols = [_column(xp, f"params[{free[i].name}]", given[i]) for i in range(nf)]
            try:
                cols = list(xp.broadcast_arrays(*cols))
            except ValueError:
                raise ShapeError(
                    "params: values have incompatible batch shapes "
                    + ", ".join(f"{free[i].name}: {np.shape(given[i])}" for i in range(nf))
                ) from None
            return xp.concatenate(cols, axis=-1)
        if nf == 0:
            if np.size(params) == 0:
                return xp.zeros((0,))
            raise LagdynError("params: this model has no free parameters (all bound in lambdify)")
        return check_real(xp, "params", params, nf)


def _column(xp: Any, label: str, value: Any) -> Any:
    return check_real(xp, label, xp.asarray(value)[..., None], 1)


def check_real(xp: Any, label: str, a: Any, k: int) -> Any:
    """``a`` as float64 of shape ``(..., k)``, or :class:`ShapeError` naming ``label``."""
    arr = xp.asarray(a)
    if arr.dtype.kind not in "fiu":
        kind = "complex" if arr.dtype.kind == "c" else str(arr.dtype)
        raise ShapeError(
            f"{label} has dtype {kind}, expected real floating-point values of shape (..., {k})"
        )
    if arr.ndim == 0 or arr.shape[-1] != k:
        raise ShapeError(f"{label} has shape {arr.shape}, expected (..., {k})")
    return arr.astype(xp.float64) if xp is not np else arr.astype(np.float64, copy=False)
