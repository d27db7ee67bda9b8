"""Validation of a split Lagrangian before anything is derived or compiled from it.

Three questions are decided here; the first on L and Q as given, before anything is
expanded, the others on the plain-symbol form of M, b, V and Q:

* **Can the derivation afford it?** The full expansion of every expression given is
  estimated on its tree (:func:`lagdyn.parse.expansion_size`: terms through sums,
  products and multinomial powers, total degree through products and nested powers);
  above :data:`lagdyn.parse.MAX_TERMS` terms or degree :data:`lagdyn.parse.MAX_DEGREE`
  :func:`check_size` refuses it with a :class:`~lagdyn.errors.LagdynError` giving the
  estimate, instead of running for minutes or aborting in GNU MP
  (``((1 + x)**1000)**1000`` is ``(1 + x)**1000000``).

* **Is every expression defined and real?** Division by an expression that is
  identically zero (``2/(sin²x + cos²x − 1)``, ``0**-1``), ``zoo``/``nan``/``oo``, and
  constants that are not real (``sqrt(-1)``, ``log(-1)``, ``asin(2)``) are refused with
  :class:`~lagdyn.errors.UndefinedExpressionError` naming the entry and the culprit.
  Zero denominators are decided exactly in the canonical trig-polynomial form (or by
  symengine expansion), never by sampling.
* **Is M nonsingular?** A zero row is reported by name. Otherwise M is evaluated at two
  random states, scaled to unit diagonal (D^-1/2 M D^-1/2, so a heavy cart beside a
  light rotor — a dynamic range of 1e10 — is not mistaken for a singular matrix), and
  eliminated with partial pivoting. A pivot that is small in double precision, or a
  value that overflows a double, is re-decided at 60 significant digits: a singular
  verdict needs a scaled pivot below 1e-30 there, far under any physical model, so a
  nonsingular M is never called singular by rounding.

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> check_defined({"M[1, 1]": 2 / (sp.sin(x)**2 + sp.cos(x)**2 - 1)}, [x])
Traceback (most recent call last):
...
lagdyn.errors.UndefinedExpressionError: M[1, 1] is undefined: it divides by \
sin(x)**2 + cos(x)**2 - 1, which is identically zero
>>> rank_at_random_states([[1e4, 0], [0, 1e-6]], [])
2
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import symengine as se
import sympy as sp

from ._common import distinct_nodes
from .errors import LagdynError, UndefinedExpressionError
from .parse import MAX_DEGREE, MAX_TERMS, expansion_size

__all__ = [
    "check_defined",
    "check_float_numbers",
    "check_float_range",
    "check_size",
    "rank_at_random_states",
]

#: Significant digits of the high-precision singularity decision.
DIGITS = 60
#: Scaled pivots below this in double precision are re-decided at DIGITS digits.
FLOAT_PIVOT = 1e-6
#: Scaled pivots below this at DIGITS digits mean "singular".
EXACT_PIVOT = 1e-30


def check_defined(
    entries: Mapping[str, sp.Expr],
    q: Sequence[sp.Symbol],
    show: Callable[[sp.Expr], sp.Expr] = lambda e: e,
) -> None:
    """Raise unless every expression is defined (no zero divisor) and real-valued.

    Parameters
    ----------
    entries : mapping of label → sympy expression
        Plain-symbol expressions (``q`` are plain symbols), labelled for messages,
        e.g. ``{"M[1, 1]": ..., "V": ...}``.
    q : sequence of sympy.Symbol
        The angle-carrying coordinates, for the exact zero test of denominators.
    show : callable, optional
        Maps a plain expression to the form shown in messages (e.g. back to q(t)).

    Raises
    ------
    UndefinedExpressionError
        Naming the entry and the offending subexpression.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> check_defined({"M[1, 1]": 1 + sp.cos(x)}, [x])   # fine: returns None
    >>> check_defined({"V": sp.asin(2) * x}, [x])
    Traceback (most recent call last):
    ...
    lagdyn.errors.UndefinedExpressionError: V is not real: asin(2) is not a real number
    """
    infinities = (sp.zoo, sp.nan, sp.oo, -sp.oo)
    for label, expr in entries.items():
        expr = sp.sympify(expr)
        nodes = list(distinct_nodes([expr]))  # one walk (entries share most subtrees)
        seen = set(nodes)
        found = [atom for atom in infinities if atom in seen]
        if found:
            raise UndefinedExpressionError(
                f"{label} is undefined: it evaluates to {found[0]} "
                "(a division by zero or an infinite constant)"
            )
        _check_floats(label, [node for node in nodes if node.is_Float or node.is_Rational])
        if sp.I in seen:
            raise UndefinedExpressionError(
                f"{label} is not real: it contains the imaginary unit ({show(expr)})"
            )
        for sub in nodes:
            if not isinstance(sub, (sp.Function, sp.Pow)):
                continue
            if not sub.free_symbols:
                _check_real_constant(label, sub)
            elif (
                isinstance(sub, sp.Pow)
                and sub.exp.is_negative
                and sub.base.free_symbols
                and _identically_zero(sub.base, q)
            ):
                raise UndefinedExpressionError(
                    f"{label} is undefined: it divides by {show(sub.base)}, which is "
                    "identically zero"
                )


def check_size(entries: Mapping[str, sp.Expr]) -> None:
    """Raise if an expression's full expansion would exceed the derivation's budget.

    The estimate (:func:`lagdyn.parse.expansion_size`) is a walk over the distinct
    subtrees, nothing is expanded; the limits are :data:`lagdyn.parse.MAX_TERMS` terms
    and total degree :data:`lagdyn.parse.MAX_DEGREE`.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> check_size({"L": (1 + x) ** 100})            # fine: returns None
    >>> check_size({"L": ((1 + x) ** 1000) ** 1000})
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: L is too large to derive: its expansion has total degree ...
    """
    memo: dict[sp.Basic, Any] = {}
    for label, expr in entries.items():
        terms, degree = expansion_size(sp.sympify(expr), memo)
        if degree > MAX_DEGREE:
            what = f"total degree {degree}, above the limit {MAX_DEGREE}"
        elif terms > MAX_TERMS:
            what = f"about {terms:.3g} terms, above the limit {MAX_TERMS}"
        else:
            continue
        raise LagdynError(
            f"{label} is too large to derive: its expansion has {what} "
            "(lagdyn.parse.MAX_TERMS, MAX_DEGREE); deriving it would run for minutes and "
            "exhaust memory. Write the model with smaller powers (introduce a coordinate "
            "or a parameter for a repeated subexpression)"
        )


def check_float_range(label: str, expr: sp.Expr) -> None:
    """Raise if ``expr`` holds a number (a Float, or an exact integer or fraction) outside
    the range of a double.

    symengine (the derivation) and generated numerics both compute in doubles, so such
    a constant would silently become ``inf`` or ``0``.

    Examples
    --------
    >>> import sympy as sp
    >>> check_float_range("L", sp.Float("1e400") * sp.Symbol("x"))
    Traceback (most recent call last):
    ...
    lagdyn.errors.UndefinedExpressionError: L holds the constant 1.00000e+400, outside ...
    """
    _check_floats(label, sp.sympify(expr).atoms(sp.Float, sp.Rational))


def check_float_numbers(label: str, numbers: Iterable[sp.Number]) -> None:
    """:func:`check_float_range` on numbers already collected from an expression.

    Examples
    --------
    >>> import sympy as sp
    >>> check_float_numbers("L", [sp.Integer(2) ** 2000])
    Traceback (most recent call last):
    ...
    lagdyn.errors.UndefinedExpressionError: L holds the constant 1.14813e+602, outside ...
    """
    _check_floats(label, numbers)


def _check_floats(label: str, numbers: Any) -> None:
    for f in numbers:
        if f.is_Rational:  # exact: compare magnitudes by bit length, nothing is evaluated
            if f == 0:
                continue
            bits = int(abs(f.p)).bit_length() - int(f.q).bit_length()
            over, under = bits > 1024, bits < -1023
        else:
            a = abs(f)
            over, under = a > sp.Float("1.7e308"), a != 0 and a < sp.Float("2.3e-308")
        if over or under:
            shown = sp.Float(f, 6) if over or not f.is_Rational else f"1/{sp.Float(1 / f, 6)}"
            raise UndefinedExpressionError(
                f"{label} holds the constant {shown!s}, outside the range of a double (it "
                f"{'overflows' if over else 'underflows'} a double): neither symengine nor "
                "generated numerics can represent it; rescale the units"
            )


def _first_infinite(expr: sp.Expr) -> str:
    for atom in (sp.zoo, sp.nan, sp.oo, -sp.oo):
        if expr.has(atom):
            return str(atom)
    return "an infinity"  # pragma: no cover - has() said so


def _check_real_constant(label: str, sub: sp.Expr) -> None:
    try:
        value = complex(sp.N(sub, 30))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        raise UndefinedExpressionError(
            f"{label} is undefined: the constant {sub} has no finite value"
        ) from None
    if not (math.isfinite(value.real) and math.isfinite(value.imag)):
        raise UndefinedExpressionError(f"{label} is undefined: the constant {sub} is infinite")
    if abs(value.imag) > 1e-25 * max(1.0, abs(value.real)):
        raise UndefinedExpressionError(f"{label} is not real: {sub} is not a real number")


def _identically_zero(expr: sp.Expr, q: Sequence[sp.Symbol]) -> bool:
    """Exact: True only when ``expr`` is proved to vanish identically."""
    from .trig.identities import decide_zero

    # the exact rungs of the ladder only (no numeric refutation, no simplify)
    return decide_zero(expr, list(q), refute=False, simplify=False) is True


# ---------------------------------------------------------------------------- rank
def rank_at_random_states(
    rows: Sequence[Sequence[Any]], symbols: Sequence[Any], *, seed: int = 12345
) -> int | None:
    """The largest rank of M over two random states, decided robustly (see module doc).

    Parameters
    ----------
    rows : n × n nested sequence of symengine or sympy expressions (or numbers)
    symbols : the free symbols to draw (each uniformly in [0.6, 1.7])
    seed : random seed (deterministic by default)

    Returns
    -------
    int or None
        The rank, or None when M cannot be evaluated numerically (unknown functions).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> rank_at_random_states([[1, sp.cos(x)], [sp.cos(x), sp.cos(x)**2]], [x])
    1
    >>> rank_at_random_states([[1e300 * x, 0], [0, 1e-300]], [x])
    2
    """
    n = len(rows)
    se_rows = [[se.sympify(e) for e in r] for r in rows]
    rng = random.Random(seed)
    best = 0
    for _ in range(2):
        draws = {s: rng.uniform(0.6, 1.7) for s in symbols}
        rank = _float_rank(se_rows, draws)
        if rank is False:
            return None
        if rank is None:  # small pivots or overflow: decide at high precision
            rank = _precise_rank(se_rows, draws)
            if rank is None:
                return None
        best = max(best, rank)
        if best == n:
            break
    return best


def _float_rank(rows: list[list[Any]], draws: Mapping[Any, float]) -> int | bool | None:
    """Rank in double precision; None if undecided there; False if not evaluable."""
    point = {se.sympify(s): se.RealDouble(v) for s, v in draws.items()}
    values: dict[int, complex] = {}  # by object: M's two triangles hold the same entries

    def value(e: Any) -> complex:
        found = values.get(id(e))
        if found is None:
            found = values[id(e)] = complex(e.xreplace(point).n())
        return found

    try:
        a = [[value(e) for e in r] for r in rows]
    except (TypeError, ValueError, RuntimeError, ZeroDivisionError, OverflowError):
        return False
    if any(not (math.isfinite(x.real) and math.isfinite(x.imag)) for r in a for x in r):
        return None
    real = [[x.real for x in r] for r in a]
    rank, smallest = _scaled_elimination(real)
    if rank < len(rows) or smallest < FLOAT_PIVOT:
        return None
    return rank


def _precise_rank(rows: list[list[Any]], draws: Mapping[Any, float]) -> int | None:
    import mpmath

    bits = int(DIGITS * 3.33) + 8
    point = {se.sympify(s): se.RealMPFR(repr(v), bits) for s, v in draws.items()}
    with mpmath.workprec(bits):
        try:
            a = [[_real_mpf(e.xreplace(point).n(bits)) for e in r] for r in rows]
        except (TypeError, ValueError, RuntimeError, ZeroDivisionError):
            return None
        rank, _ = _scaled_elimination(a, tol=mpmath.mpf(EXACT_PIVOT))
    return rank


def _real_mpf(v: Any) -> Any:
    import mpmath

    if isinstance(v, se.ComplexMPC):
        v = v.real_part()
    return mpmath.mpf(str(v))


def _scaled_elimination(a: list[list[Any]], tol: Any = 0.0) -> tuple[int, float]:
    """Rank of D^-1/2 A D^-1/2 (unit diagonal where possible) by Gaussian elimination.

    Returns the rank at pivot tolerance ``tol`` and the smallest accepted scaled pivot.
    """
    n = len(a)
    d = [abs(a[i][i]) ** 0.5 if a[i][i] != 0 else 1 for i in range(n)]
    m = [[a[i][j] / (d[i] * d[j]) for j in range(n)] for i in range(n)]
    rank = 0
    smallest = float("inf")
    for c in range(n):
        piv = max(range(rank, n), key=lambda r: abs(m[r][c]), default=None)
        if piv is None or abs(m[piv][c]) <= tol:
            continue
        smallest = min(smallest, float(abs(m[piv][c])))
        m[rank], m[piv] = m[piv], m[rank]
        for r in range(rank + 1, n):
            f = m[r][c] / m[rank][c]
            for cc in range(c, n):
                m[r][cc] -= f * m[rank][cc]
        rank += 1
    return rank, smallest
