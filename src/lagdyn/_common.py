"""Pieces shared by the system layer, below :mod:`lagdyn.system` in the import graph.

``structure``, ``kinematics`` and ``coordchange`` take a system duck-typed (:class:`SystemLike`)
and use the helpers here, so that ``system.py`` may delegate to them without an import cycle.

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn._common import SystemLike, numeric_rank
>>> isinstance(ld.zoo.double_pendulum(), SystemLike)
True
>>> numeric_rank([[1.0, 2.0], [2.0, 4.0]])
1
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar, runtime_checkable

import sympy as sp
from sympy.core.function import AppliedUndef

from .errors import CoordinateError
from .symbols import t
from .trig.convert import distinct_nodes

__all__ = [
    "SystemLike",
    "all_proved",
    "distinct_nodes",
    "numeric_rank",
    "reduce_pythagoras",
    "validate_coordinates",
]


@runtime_checkable
class SystemLike(Protocol):
    """What structure proofs and coordinate changes read from a LagrangianSystem.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn._common import SystemLike
    >>> isinstance(ld.zoo.cart_pole(), SystemLike)
    True
    """

    @property
    def n(self) -> int: ...

    @property
    def q(self) -> tuple[Any, ...]: ...

    @property
    def qd(self) -> tuple[Any, ...]: ...

    @property
    def M(self) -> Any: ...

    @property
    def C(self) -> Any: ...

    @property
    def G(self) -> Any: ...

    @property
    def g(self) -> Any: ...

    @property
    def b(self) -> Any: ...

    @property
    def U(self) -> Any: ...

    @property
    def T(self) -> Any: ...

    @property
    def L(self) -> Any: ...

    @property
    def forces(self) -> Any: ...

    @property
    def h(self) -> Any: ...

    @property
    def parameters(self) -> Any: ...

    defaults: Any

    @property
    def plain_symbols(self) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]: ...

    def plain(self, expr: Any) -> Any: ...


def validate_coordinates(q: Any) -> tuple[sp.Expr, ...]:
    """Coordinates as a tuple of distinct functions of ``t``; raise once naming every culprit.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn._common import validate_coordinates
    >>> validate_coordinates(ld.coordinates("x y"))
    (x(t), y(t))
    >>> validate_coordinates(["x"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lagdyn.errors.CoordinateError: invalid coordinates: 'x' is a string: ...
    """
    if isinstance(q, sp.Basic) and not isinstance(q, sp.MatrixBase):
        q = [q]
    try:
        items = list(q)
    except TypeError:
        raise CoordinateError(
            f"coordinates must be a sequence of functions of t, got {type(q).__name__}"
        ) from None
    if not items:
        raise CoordinateError("no coordinates given")
    problems: list[str] = []
    for item in items:
        if isinstance(item, str):
            problems.append(
                f"{item!r} is a string: create coordinates with ld.coordinates({item!r})"
            )
        elif isinstance(item, sp.Symbol):
            problems.append(
                f"{item} is a plain Symbol: coordinates must be functions of t, "
                f"use ld.coordinates({item.name!r})"
            )
        elif isinstance(item, sp.Derivative):
            problems.append(f"{item} is a rate, not a coordinate")
        elif not (isinstance(item, AppliedUndef) and item.args == (t,)):
            problems.append(f"{item} is not a function of t alone (use ld.coordinates)")
    names = [str(i) for i in items]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        problems.append(f"duplicated coordinate(s) {', '.join(dups)}")
    if problems:
        raise CoordinateError("invalid coordinates: " + "; ".join(problems))
    return tuple(items)


_F = TypeVar("_F", bound=Callable[..., Any])


def without_gc(fn: _F) -> _F:
    """Run ``fn`` with Python's cyclic garbage collector paused (restored after).

    A derivation allocates hundreds of thousands of short-lived sympy and symengine
    objects, none of them in reference cycles; the collector's passes over the
    (large, long-lived) sympy caches they trigger cost 5–6 % of a fresh derivation.
    Garbage is still freed by reference counting; pending cycles are collected on the
    collector's usual schedule once it runs again. Nested calls leave it paused.

    Examples
    --------
    >>> import gc
    >>> @without_gc
    ... def busy():
    ...     return gc.isenabled()
    >>> busy(), gc.isenabled()
    (False, True)
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return wrapper  # type: ignore[return-value]


def numeric_rank(rows: list[list[float]], tol: float = 1e-9) -> int:
    """Rank of a small float matrix by Gaussian elimination with partial pivoting.

    Examples
    --------
    >>> from lagdyn._common import numeric_rank
    >>> numeric_rank([[1.0, 0.0], [0.0, 1e-3]])
    2
    """
    a = [r[:] for r in rows]
    n_rows, n_cols = len(a), len(a[0]) if a else 0
    scale = max((abs(x) for r in a for x in r), default=0.0) or 1.0
    rank = 0
    for c in range(n_cols):
        piv = max(range(rank, n_rows), key=lambda r: abs(a[r][c]), default=None)
        if piv is None or abs(a[piv][c]) <= tol * scale:
            continue
        a[rank], a[piv] = a[piv], a[rank]
        for r in range(rank + 1, n_rows):
            f = a[r][c] / a[rank][c]
            for cc in range(c, n_cols):
                a[r][cc] -= f * a[rank][cc]
        rank += 1
    return rank


def reduce_pythagoras(expr: sp.Expr) -> sp.Expr:
    """Expand and rewrite ``sin(x)**k`` (k ≥ 2) as ``sin(x)**(k-2) (1 - cos(x)**2)``.

    Exact and cheap (no simplify): afterwards every sine appears at most linearly in
    each monomial, which removes the ``sin² + cos²`` pairs that Jacobian products
    produce.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn._common import reduce_pythagoras
    >>> x = sp.Symbol("x")
    >>> reduce_pythagoras(sp.sin(x)**2 + sp.cos(x)**2)
    1
    """
    e = sp.expand(expr)
    for _ in range(8):
        pows = [
            p
            for p in e.atoms(sp.Pow)
            if isinstance(p.base, sp.sin) and p.exp.is_Integer and p.exp >= 2
        ]
        if not pows:
            break
        repl = {
            p: sp.sin(p.base.args[0]) ** (p.exp - 2) * (1 - sp.cos(p.base.args[0]) ** 2)
            for p in pows
        }
        e = sp.expand(e.xreplace(repl))
    return e


def all_proved(verdicts: Iterable[bool | None]) -> bool | None:
    """Three-valued conjunction of proofs: False if one is refuted, else None if one is
    undecided, else True (an undecided proof is never reported as refuted).

    Examples
    --------
    >>> all_proved([True, True]), all_proved([True, None]), all_proved([None, False])
    (True, None, False)
    """
    result: bool | None = True
    for v in verdicts:
        if v is False:
            return False
        if v is None:
            result = None
    return result
