"""Trigonometric rewriting for numerics: no cancelling constants, fewer sin/cos calls.

:func:`numeric_form` rewrites multiple angles (``cos(2θ)``, ``sin(2a − 2b)``) as
polynomials in ``sin`` and ``cos`` of the base angle and expands the sums they
appear in, so constants cancel exactly (``1/2 − cos(2θ)/2`` becomes ``sin(θ)²``,
accurate to the last bit as θ → 0, where the canonical form loses every digit).
:func:`shared_trig` computes the remaining atoms from ``sin q_k``, ``cos q_k`` by
angle addition when that saves transcendental calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp

from ..trig.forms import MAX_MULTIPLE, numeric_form

__all__ = ["MAX_MULTIPLE", "numeric_form", "shared_trig"]


def shared_trig(
    exprs: Sequence[sp.Expr], q: Sequence[sp.Symbol], decide_on: int | None = None
) -> tuple[list[tuple[sp.Symbol, sp.Expr]], list[sp.Expr]]:
    r"""Fewer sin/cos calls: trig atoms of integer combinations of q by angle addition.

    Every ``cos(e·q)`` and ``sin(e·q)`` with an integer frequency vector ``e`` (what the
    canonical trig-polynomial derivation produces, e.g. ``cos(q_1 + q_2)``) becomes a
    symbol computed from ``sin q_k``, ``cos q_k`` by

    .. math:: \cos(a+b) = c_a c_b - s_a s_b, \qquad \sin(a+b) = s_a c_b + c_a s_b,

    reusing intermediate angles (cumulative sums share their prefixes). Applied only
    when it saves transcendental calls: 2 per coordinate against one per distinct atom
    of the first ``decide_on`` expressions (default all; the dynamics, not the energy).
    Returns ``(definitions, exprs)``; the definitions go before the CSE replacements.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.trig import shared_trig
    >>> a, b = sp.symbols("a b")
    >>> atoms = [sp.cos(a + b), sp.sin(a + b), sp.cos(a - b), sp.sin(a - b), sp.cos(2 * a)]
    >>> defs, out = shared_trig(atoms, [a, b])
    >>> len(defs) > 0
    True
    """
    index = {s: k for k, s in enumerate(q)}
    n = len(q)
    atoms: dict[sp.Expr, tuple[str, tuple[int, ...]]] = {}
    for e in exprs:
        for a in sp.sympify(e).atoms(sp.sin, sp.cos):
            vec = frequency(a.args[0], index, n)
            if vec is not None:
                atoms[a] = ("c" if isinstance(a, sp.cos) else "s", vec)
    hot = atoms
    if decide_on is not None:
        hot_atoms: set[sp.Basic] = set()
        for e in exprs[:decide_on]:
            hot_atoms |= sp.sympify(e).atoms(sp.sin, sp.cos)
        hot = {a: v for a, v in atoms.items() if a in hot_atoms}
    coords = {k for _, v in hot.values() for k, x in enumerate(v) if x}
    if 2 * len(coords) >= len(hot):
        return [], list(exprs)
    defs: list[tuple[sp.Symbol, sp.Expr]] = []
    avail: dict[tuple[int, ...], tuple[sp.Expr, sp.Expr]] = {}
    counter = [0]

    def new(prefix: str) -> sp.Symbol:
        return sp.Symbol(f"{prefix}a{counter[0]}", real=True)

    def norm(v: tuple[int, ...]) -> int:
        return sum(abs(x) for x in v)

    def neg(v: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(-x for x in v)

    def lookup(v: tuple[int, ...]) -> tuple[sp.Expr, sp.Expr] | None:
        if v in avail:
            return avail[v]
        if neg(v) in avail:
            c, s = avail[neg(v)]
            return c, -s
        return None

    def ensure(v: tuple[int, ...]) -> tuple[sp.Expr, sp.Expr]:
        got = lookup(v)
        if got is not None:
            return got
        if norm(v) == 1:
            k = next(i for i, x in enumerate(v) if x)
            c, s = new("c"), new("s")
            counter[0] += 1
            defs.extend([(c, sp.cos(q[k])), (s, sp.sin(q[k]))])
            avail[tuple(abs(x) for x in v)] = (c, s)
            return ensure(v)
        # split v = a + b with a already available and b available if possible
        best = None
        for a in sorted(avail, key=norm, reverse=True):
            for sa in (a, neg(a)):
                b = tuple(x - y for x, y in zip(v, sa))
                if norm(b) < norm(v) and norm(sa) < norm(v):
                    if lookup(b) is not None:
                        best = (sa, b)
                        break
                    if best is None:
                        best = (sa, b)
            if best is not None and lookup(best[1]) is not None:
                break
        if best is None:  # peel one unit off the first nonzero component
            k = next(i for i, x in enumerate(v) if x)
            unit = tuple((1 if v[k] > 0 else -1) if i == k else 0 for i in range(n))
            best = (unit, tuple(x - y for x, y in zip(v, unit)))
        ca, sa_ = ensure(best[0])
        cb, sb = ensure(best[1])
        c, s = new("c"), new("s")
        counter[0] += 1
        defs.extend([(c, ca * cb - sa_ * sb), (s, sa_ * cb + ca * sb)])
        avail[v] = (c, s)
        return c, s

    sub: dict[sp.Basic, sp.Basic] = {}
    for a, (kind, vec) in sorted(atoms.items(), key=lambda kv: (norm(kv[1][1]), kv[1][1])):
        c, s = ensure(vec)
        sub[a] = c if kind == "c" else s
    return defs, [sp.sympify(e).xreplace(sub) for e in exprs]


def frequency(arg: sp.Expr, index: Mapping[sp.Symbol, int], n: int) -> tuple[int, ...] | None:
    """The integer vector e with ``arg == e·q``, or ``None``."""
    vec = [0] * n
    for term, coeff in arg.as_coefficients_dict().items():
        k = index.get(term)
        if k is None or not coeff.is_Integer:
            return None
        vec[k] += int(coeff)
    return tuple(vec) if any(vec) else None
