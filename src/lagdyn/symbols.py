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

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

import sympy as sp

from .errors import CoordinateError, LagdynError

__all__ = [
    "MAX_NAMES",
    "accelerations",
    "confusable_note",
    "coordinates",
    "parameters",
    "skeleton",
    "t",
    "velocities",
]

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


#: Most names one call of :func:`coordinates` or :func:`parameters` may create (a range
#: such as ``"x:100000000"`` is refused before any symbol is made).
MAX_NAMES = 10_000

# sympy's range syntax in symbols(): "x:3", "x1:4", "a:d", "x(:2)(:3)"
_RANGE = re.compile(r"([0-9]*:[0-9]+|[a-zA-Z]?:[a-zA-Z])")

#: Letters of other scripts drawn like a Latin letter in common fonts (Unicode's
#: confusables restricted to identical glyphs): Cyrillic, Greek capitals and omicron.
#: Greek small letters that merely resemble Latin ones (α, ν, ρ, κ, ι) are kept apart:
#: ν and v, ρ and p are different parameters in many models.
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХЅІЈԜΑΒΕΖΗΙΚΜΝΟΡΤΥΧο",
    "aeopcyxijsdqwhlABEKMHOPCTXSIJWABEZHIKMNOPTYXo",
)


def skeleton(name: str) -> str:
    """The form that names which look alike share: NFKC, then look-alike letters as Latin.

    Two names with the same skeleton read the same on screen (``"a"`` and the Cyrillic
    ``"а"``, ``"x"`` and the full-width ``"ｘ"``).

    Examples
    --------
    >>> from lagdyn.symbols import skeleton
    >>> skeleton("\u0430") == skeleton("a"), skeleton("\uff58"), skeleton("\u03c1")
    (True, 'x', 'ρ')
    """
    return unicodedata.normalize("NFKC", name).translate(_LOOKALIKES)


def _foreign(name: str, like: str) -> str:
    """The characters of ``name`` that differ from ``like``, with their Unicode names."""
    shown = [
        f"{c!r} (U+{ord(c):04X} {unicodedata.name(c, 'unnamed')})"
        for c in dict.fromkeys(name)
        if c not in like
    ]
    return ", ".join(shown)


def confusable_note(name: str, candidates: Iterable[str]) -> str | None:
    """A note when ``name`` looks like one of ``candidates`` without being it, else ``None``.

    Examples
    --------
    >>> from lagdyn.symbols import confusable_note
    >>> print(confusable_note("m\u0430ss", ["mass", "g"]))
    'mаss' looks like 'mass' but holds 'а' (U+0430 CYRILLIC SMALL LETTER A)
    >>> confusable_note("mass", ["mass"]) is None
    True
    """
    key = skeleton(name)
    for other in candidates:
        if other != name and skeleton(other) == key:
            return f"{name!r} looks like {other!r} but holds {_foreign(name, other)}"
    return None


def check_names(names: Iterable[str], where: str, error: type[LagdynError]) -> None:
    """Refuse names that are not printable identifiers, not NFKC-normal, alike or reserved.

    A name must be a Python identifier (``str.isidentifier``; Unicode letters such as
    θ are fine), hence without spaces, control characters or punctuation, so that it
    can never change the meaning of generated code or of a printed formula. It must be
    in Unicode normal form NFKC, the form Python and :func:`lagdyn.parse.parse_expr`
    read names in (the full-width ``ｘ`` and the script ``ℓ`` read as ``x`` and ``l``
    there), and two names of one call must not look alike (Latin ``a`` and Cyrillic
    ``а``).
    """
    names = list(names)
    bad = [n for n in names if not (n.isidentifier() and n.isprintable())]
    if bad:
        raise error(
            f"{where}(): {', '.join(repr(n) for n in bad)} "
            f"{'is not an identifier' if len(bad) == 1 else 'are not identifiers'} "
            "(letters, digits and _, not starting with a digit)"
        )
    for n in names:
        normal = unicodedata.normalize("NFKC", n)
        if normal != n:
            raise error(
                f"{where}(): {n!r} reads as {normal!r} once Unicode-normalized (NFKC, as "
                f"Python and lagdyn's expression parser read names): it holds "
                f"{_foreign(n, normal)}; write {normal!r}"
            )
    seen: dict[str, str] = {}
    for n in names:
        other = seen.setdefault(skeleton(n), n)
        if other != n:
            raise error(f"{where}(): {confusable_note(n, [other])}; use one spelling")
    msg = reserved_message(names)
    if msg:
        raise error(f"{where}(): {msg}")
    if "t" in names:
        raise error(f"{where}(): 't' is the time (ld.t); choose another name")


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _range_names(text: str, where: str, error: type[LagdynError]) -> list[str]:
    """The names of a string of names, sympy's ranges expanded, counted before they are made.

    Raises ``error`` for more than :data:`MAX_NAMES` names, an empty range and a
    malformed one (``"x:"``), instead of sympy's ``ValueError`` or memory exhaustion.
    """
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise error(f"{where}(): no names given")
    total = 0
    for token in tokens:
        count = 1
        for part in _RANGE.findall(token):
            start, _, stop = part.partition(":")
            if stop.isdigit():
                if len(stop) > 6:  # also keeps int() within Python's digit limit
                    count = MAX_NAMES + 1
                    break
                count *= max(0, int(stop) - int(start or 0))
            else:
                count *= 52  # a letter range has at most a-zA-Z
        total += count
        if total > MAX_NAMES:
            raise error(
                f"{where}(): {_short(token)} would create more than {MAX_NAMES} names; "
                "name at most that many symbols per call"
            )
    try:
        names = [s.name for s in sp.symbols(text.replace(",", " "), seq=True)]
    except ValueError as exc:  # "x:" (missing end of range), "x:a"
        raise error(f"{where}(): cannot read the names {_short(text)}: {exc}") from None
    if not names:
        raise error(f"{where}(): {_short(text)} gives no names (an empty range)")
    return names


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
        When no name is given, a name repeats, is not an identifier, is not in Unicode
        normal form NFKC (the full-width ``ｘ``: write ``x``), looks like another of the
        names (Latin ``a`` and Cyrillic ``а``) or starts with ``_ld`` (reserved for
        lagdyn's internal symbols); when a range would make more than :data:`MAX_NAMES`
        names (``"x:100000000"``, refused before any symbol is made) or none (``"x:0"``).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.coordinates("a b")
    (a(t), b(t))
    >>> ld.coordinates("theta1:3")
    (theta1(t), theta2(t))
    """
    if isinstance(names, str):
        if not names.replace(",", " ").strip():
            raise CoordinateError("coordinates(): no coordinate names given")
        name_list = _range_names(names, "coordinates", CoordinateError)
        check_names(name_list, "coordinates", CoordinateError)
        out = tuple(_dynamic(n) for n in name_list)
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
    Names follow the rules of :func:`coordinates` (identifiers in NFKC form, not alike,
    not starting with ``_ld``, at most :data:`MAX_NAMES` per call; else
    :class:`CoordinateError`, a :class:`LagdynError`).

    Examples
    --------
    >>> import lagdyn as ld
    >>> m, l = ld.parameters("m l")
    >>> m.is_positive
    True
    """
    if not isinstance(names, str):
        raise CoordinateError(f"parameters(): names must be a string, got {type(names).__name__}")
    if not names.replace(",", " ").strip():
        raise CoordinateError("parameters(): no parameter names given")
    name_list = _range_names(names, "parameters", CoordinateError)
    check_names(name_list, "parameters", CoordinateError)
    assumption = {"positive": True} if positive else {"real": True}
    return tuple(sp.Symbol(n, **assumption) for n in name_list)


def coordinate_labels(q: Sequence[Any]) -> list[str]:
    """The names of coordinates as users and generated interfaces see them (``x`` for ``x(t)``).

    The name of each coordinate's function, or ``q1``, ``q2``, … for all when two coincide or
    one is not printable: the input names of the FMU export, ``to_drake(inputs=)`` and the
    Gymnasium environments.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.symbols import coordinate_labels
    >>> coordinate_labels(ld.coordinates("x theta"))
    ['x', 'theta']
    """
    names = []
    for i, qi in enumerate(q):
        func, args = getattr(qi, "func", None), getattr(qi, "args", None)
        label = getattr(func, "__name__", str(func)) if func is not None and args else str(qi)
        names.append(label if label.isprintable() and label else f"q{i + 1}")
    if len(set(names)) != len(names):
        names = [f"q{i + 1}" for i in range(len(names))]
    return names
