"""Time, generalized coordinates and their rates.

Coordinates are sympy ``dynamicsymbols``: undefined functions of the same time
symbol ``t`` that :mod:`sympy.physics.mechanics` uses, so expressions move
freely between lagdyn and sympy's mechanics package.

Examples
--------
>>> import lagdyn as ld
>>> q = ld.coordinates("q1 q2")
>>> ld.velocities(q)
(Derivative(q1(t), t), Derivative(q2(t), t))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sympy as sp

from .errors import CoordinateError, LagdynError

__all__ = ["accelerations", "coordinates", "parameters", "t", "velocities"]

#: The time symbol shared with :mod:`sympy.physics.mechanics` (``dynamicsymbols._t``).
t: sp.Symbol = sp.Symbol("t")


#: Name prefixes of lagdyn's internal symbols (``_ldq0``, ``_ldv0``, ``_lagdyn_z0``, ...).
RESERVED_PREFIXES = ("_ld", "_lagdyn_")


def reserved_message(names: Iterable[str]) -> str | None:
    """The refusal for user symbols named like lagdyn's internal ones, or ``None``.

    Examples
    --------
    >>> from lagdyn.symbols import reserved_message
    >>> reserved_message(["m", "_ldq0"])
    "symbol '_ldq0': names starting with _ld are reserved for lagdyn's internal symbols"
    >>> reserved_message(["m", "l"]) is None
    True
    """
    bad = sorted({n for n in names if n.startswith(RESERVED_PREFIXES)})
    if not bad:
        return None
    which = ", ".join(repr(n) for n in bad)
    return (
        f"symbol{'s' if len(bad) > 1 else ''} {which}: names starting with _ld are reserved "
        "for lagdyn's internal symbols"
    )


def check_names(names: Iterable[str], where: str, error: type[LagdynError]) -> None:
    """Refuse names that are not printable identifiers or that lagdyn reserves.

    A name must be a Python identifier (``str.isidentifier``; Unicode letters such as
    θ are fine), hence without spaces, control characters or punctuation, so that it
    can never change the meaning of generated code or of a printed formula.
    """
    names = list(names)
    bad = [n for n in names if not (n.isidentifier() and n.isprintable())]
    if bad:
        raise error(
            f"{where}(): {', '.join(repr(n) for n in bad)} "
            f"{'is not an identifier' if len(bad) == 1 else 'are not identifiers'} "
            "(letters, digits and _, not starting with a digit)"
        )
    msg = reserved_message(names)
    if msg:
        raise error(f"{where}(): {msg}")


def _dynamic(name: str) -> sp.Expr:
    """``name(t)``, equal to ``sympy.physics.mechanics.dynamicsymbols(name)``.

    Built directly so that ``import lagdyn`` does not pay for importing
    ``sympy.physics`` (0.3 s).
    """
    return sp.Function(name)(t)


def coordinates(names: str | Iterable[str]) -> tuple[sp.Function, ...]:
    """Generalized coordinates q_i(t) as sympy dynamicsymbols.

    Parameters
    ----------
    names : str or iterable of str
        Space- or comma-separated names (``"q1 q2"``, ``"theta1:3"``) or a list of names.

    Returns
    -------
    tuple of sympy functions of ``t``, always a tuple, even for one name.

    Raises
    ------
    CoordinateError
        When no name is given, a name repeats, is not an identifier or starts with
        ``_ld`` (reserved for lagdyn's internal symbols).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.coordinates("a b")
    (a(t), b(t))
    >>> ld.coordinates("theta1:3")
    (theta1(t), theta2(t))
    """
    if isinstance(names, str):
        text = names.replace(",", " ").strip()
        if not text:
            raise CoordinateError("coordinates(): no coordinate names given")
        names_ = sp.symbols(text, seq=True)
        check_names([s.name for s in names_], "coordinates", CoordinateError)
        out = tuple(_dynamic(s.name) for s in names_)
    else:
        name_list = [str(n) for n in names]
        if not name_list:
            raise CoordinateError("coordinates(): no coordinate names given")
        check_names(name_list, "coordinates", CoordinateError)
        out = tuple(_dynamic(n) for n in name_list)
    seen: set[str] = set()
    dups = [str(s.func) for s in out if str(s.func) in seen or seen.add(str(s.func))]  # type: ignore[func-returns-value]
    if dups:
        raise CoordinateError(f"coordinates(): duplicated name(s) {', '.join(dups)}")
    return out


def velocities(q: Sequence[sp.Expr]) -> tuple[sp.Expr, ...]:
    """The rates q̇ = dq/dt of coordinates ``q``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.velocities(ld.coordinates("x"))
    (Derivative(x(t), t),)
    """
    return tuple(sp.diff(qi, t) for qi in q)


def accelerations(q: Sequence[sp.Expr]) -> tuple[sp.Expr, ...]:
    """The second derivatives q̈ of coordinates ``q``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.accelerations(ld.coordinates("x"))
    (Derivative(x(t), (t, 2)),)
    """
    return tuple(sp.diff(qi, t, 2) for qi in q)


def parameters(names: str, *, positive: bool = True) -> tuple[sp.Symbol, ...]:
    """Constant model parameters (masses, lengths, ...), positive by default.

    Positivity is an assumption sympy uses in the proofs of positive
    definiteness; pass ``positive=False`` for parameters that may be negative.
    Names must be identifiers not starting with ``_ld`` (else :class:`CoordinateError`,
    a :class:`LagdynError`).

    Examples
    --------
    >>> import lagdyn as ld
    >>> m, l = ld.parameters("m l")
    >>> m.is_positive
    True
    """
    text = names.replace(",", " ").strip()
    if not text:
        raise CoordinateError("parameters(): no parameter names given")
    syms = sp.symbols(text, positive=True) if positive else sp.symbols(text, real=True)
    out = tuple(syms) if isinstance(syms, (list, tuple)) else (syms,)
    check_names([s.name for s in out], "parameters", CoordinateError)
    return out
