"""Trigonometric rewriting for numerics: no cancellation the generator introduces, fewer
sin/cos calls.

:func:`numeric_form` is what generated code is printed from. It rewrites multiple angles
(``cos(2θ)``, ``sin(2a − 2b)``, ``sin(3θ/2)`` next to ``sin(θ/2)``) as polynomials in
``sin`` and ``cos`` of the base angle and expands the sums they appear in, so constants
cancel exactly (``1/2 − cos(2θ)/2`` becomes ``sin(θ)²``, accurate to the last bit as
θ → 0, where the canonical form loses every digit); then it factors the zeros of the
canonical form back (:func:`zeros_factored`): a sum that vanishes at θ = 0 or θ = π
although its terms do not (``3/8 − cos θ/2 + cos(2θ)/8``, the canonical form of
``sin(θ/2)⁴``) is printed as a product with ``2 sin²(θ/2)`` or ``2 cos²(θ/2)`` factors.
:func:`shared_trig` computes the remaining atoms from ``sin q_k``, ``cos q_k`` by angle
addition when that saves transcendental calls.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from math import gcd
from typing import Any

import numpy as np
import sympy as sp
from sympy import QQ
from sympy.polys.rings import PolyRing

from ..trig import forms
from ..trig.forms import MAX_MULTIPLE

__all__ = [
    "MAX_MULTIPLE",
    "NumericForm",
    "numeric_form",
    "reduced_angle_constants",
    "shared_trig",
    "zeros_factored",
]


def reduced_angle_constants(expr: sp.Expr) -> sp.Expr:
    """``expr`` with the numeric constants of trig arguments reduced modulo 2π exactly.

    ``cos(2 q + 20000000000)`` printed as such adds the constant in doubles, where its
    rounding step is ~4e-6 rad; reducing the constant exactly first (its value mod 2π to
    17 digits) keeps the argument right to the last bits. Constants of magnitude up to π,
    and symbolic ones (``pi/2``), stay as they are; a bare constant ``cos(10**10)`` becomes
    its value. Floats are read as the binary number they hold.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.trig import reduced_angle_constants
    >>> q = sp.Symbol("q")
    >>> reduced_angle_constants(sp.cos(q + 10**10))
    cos(q - 0.5092310721657348)
    >>> reduced_angle_constants(sp.sin(q + 3))
    sin(q + 3)
    """
    funcs = (sp.sin, sp.cos, sp.tan)
    atoms = [a for a in expr.atoms(*funcs) if _big_constant(a.args[0]) is not None]
    if not atoms:
        return expr
    repl: dict[sp.Basic, sp.Basic] = {}
    for a in atoms:
        c = _big_constant(a.args[0])
        assert c is not None
        rest = a.args[0] - c
        exact = sp.Rational(c) if isinstance(c, sp.Float) else c
        digits = int(math.log10(float(abs(exact)) + 1.0)) + 30
        turns = sp.floor((exact / (2 * sp.pi)).evalf(digits) + sp.Rational(1, 2))
        reduced = (exact - 2 * sp.pi * turns).evalf(digits)
        value = sp.Float(repr(float(reduced)), 17)
        if rest == 0:
            repl[a] = sp.Float(repr(float(a.func(exact - 2 * sp.pi * turns).evalf(digits))), 17)
        else:
            repl[a] = a.func(rest + value, evaluate=False)
    return expr.xreplace(repl)


def _big_constant(arg: sp.Expr) -> sp.Number | None:
    """The numeric constant term of a trig argument when its magnitude exceeds π."""
    if arg.is_Number:
        c = arg
    elif arg.is_Add:
        c = next((t for t in arg.args if t.is_Number), None)
    else:
        return None
    if c is None or not c.is_finite or abs(float(c)) <= math.pi:
        return None
    return c


def numeric_form(expr: sp.Expr) -> sp.Expr:
    """The form generated code is printed from: multiple angles as products of sines and
    cosines of the base angle (:func:`lagdyn.trig.forms.numeric_form`, rational multiples
    included), then the sums that cancel at a zero of an angle rewritten without the
    cancellation (:func:`zeros_factored`).

    Equal to ``expr`` (every rewrite is an identity); the canonical form stays the one of
    proofs and display. :class:`NumericForm` does the same for many expressions with
    one memo.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> numeric_form(sp.Rational(3, 8) - sp.cos(x) / 2 + sp.cos(2 * x) / 8)  # sin(x/2)**4
    sin(x/2)**4
    >>> numeric_form(sp.Rational(1, 2) - sp.cos(2 * x) / 2)
    sin(x)**2
    """
    return NumericForm()(expr)


class NumericForm:
    """:func:`numeric_form` as a callable that shares its work across expressions (the
    kernels of one program repeat their sums and atoms).

    ``rates``: the symbols of the velocities. A sum that holds them and does not cancel
    as a whole is also read as a polynomial in them, each coefficient screened on its
    own (``h = Σ Γ(q) q̇ q̇ + g(q)``: at rest only ``g`` is left, and it must be accurate
    by itself); it is rewritten that way only when a coefficient cancels.

    Examples
    --------
    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> form = NumericForm()
    >>> [form(e) for e in (1 - sp.cos(x), sp.cos(x - y) - sp.cos(x + y))]
    [2*sin(x/2)**2, 2*sin(x)*sin(y)]
    """

    def __init__(self, rates: Iterable[sp.Symbol] = ()) -> None:
        self._pass = _ZeroFactoring(rates)

    def __call__(self, expr: sp.Expr) -> sp.Expr:
        out = forms.numeric_form(expr, fractional=True)
        return self._pass.visit(out) if out.has(sp.sin, sp.cos) else out


def zeros_factored(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every sum that cancels at a zero of an angle rewritten without it.

    The canonical form turns the factors a person writes into sums: ``sin(x/2)⁴`` into
    ``3/8 − cos x/2 + cos 2x/8``, ``sin x sin y`` into ``(cos(x − y) − cos(x + y))/2``.
    Near the zero of the factor (x = 0) the terms of the sum stay of order one while
    their sum is tiny, and floating point loses every digit. Each sum (innermost first)
    is screened along each angle φ of its atoms — every symbol, and every direction of
    a multi-symbol argument such as x − y — at φ = 0 and φ = π: the sum cancels there
    when its Taylor series in φ starts later than the series of one of its terms.
    A sum that cancels is rewritten as a polynomial in ``c = cos θ``, ``s = sin θ`` of
    the base angle θ (the largest angle of which every multiple of φ in the sum is an
    integer multiple; every atom along φ expanded by angle addition into these and
    atoms of the other symbols; s² = 1 − c²), A(c) + s B(c), and the roots c = 1 and
    c = −1 of A and B are divided out and printed as ``−2 sin²(θ/2)`` and
    ``2 cos²(θ/2)`` (both together as ``−s²``); the quotients are treated the same way
    along the other angles. A sum that vanishes where all its angles are 0 but along
    none of them alone (``2 − cos x − cos y``) is split as
    Σ_k [S(0, …, 0, x_k, …) − S(0, …, 0, 0, x_(k+1), …)], each part vanishing at x_k = 0.

    The screen evaluates the series modulo a prime at a random point at which every
    trigonometric identity between the atoms holds (cos and sin of rational
    combinations of the symbols from one random unit per symbol), so a sum that cancels
    identically is always seen; a false alarm costs one exact rewrite. Sums that are not
    polynomials in the sines and cosines along the angle (a symbol of the angle outside
    them, a ``sqrt`` of a cosine, an angle with an irrational coefficient or a constant
    offset) are left as they are; floats are numbers like any other coefficient (each
    value its own: 0.5 − 0.5 cos x is factored, 0.1 + 0.2 − 0.3 cos x is not). The result
    is equal to ``expr``, and is ``expr`` itself when nothing cancels.

    Examples
    --------
    >>> import sympy as sp
    >>> x, y, m = sp.symbols("x y m", real=True)
    >>> zeros_factored(m - m * sp.cos(x))
    2*m*sin(x/2)**2
    >>> zeros_factored(sp.cos(x - y) - sp.cos(x + y))
    2*sin(x)*sin(y)
    >>> zeros_factored(2 - sp.cos(x) - sp.cos(y))
    2*sin(x/2)**2 + 2*sin(y/2)**2
    >>> zeros_factored(m + m * sp.cos(x)) == 2 * m * sp.cos(x / 2) ** 2
    True
    >>> zeros_factored(1 + sp.cos(x) + m) == 1 + sp.cos(x) + m   # no zero: unchanged
    True
    """
    expr = sp.sympify(expr)
    if not expr.has(sp.sin, sp.cos):
        return expr
    return _ZeroFactoring().visit(expr)


#: A prime ≡ 1 (mod 4) for the screen, and a square root of −1 modulo it.
_PRIME = 2147483629  # below 2^31: products of two residues fit in int64 (numpy)
_I = 1518275076
#: The screen reads multiples of a symbol whose denominators divide this (lcm of 1…16).
_SCALE = 720720
#: Terms of the truncated Taylor series of the screen.
_ORDER = 5
#: Largest multiple of the base angle expanded by the rewrite (higher: left as is).
_LARGEST = 2 * MAX_MULTIPLE
#: Largest number of nested rewrites (each divides out roots or splits a group).
_DEPTH = 12
#: Largest sum (terms) and number of symbols split where all symbols are 0.
_SPLIT_TERMS, _SPLIT_ANGLES = 16, 6

#: A point of the screen: ``(φ, side, first)`` — the angle φ at side·π (side 0 or 1),
#: ``first`` its symbol the screen eliminates, every other symbol generic — or
#: ``(None, 0, symbols)`` — every one of the symbols at 0.
Point = tuple[Any, int, Any]
#: (arguments of the trig atoms, free symbols) of a node.
Info = tuple[frozenset[sp.Basic], frozenset[sp.Basic]]


class _Giveup(Exception):  # noqa: N818 (control flow, not an error)
    """A node the screen cannot expand (not a polynomial in the angle's sines and cosines)."""


class _ZeroFactoring:
    """One pass of :func:`zeros_factored`, memoized over the distinct subtrees.

    The generic point: each symbol x gets a random unit w (exp(i·x/720720)), so cos and
    sin of Σ (a_k/720720)·x_k are (z ± 1/z)/2(i) with z = Π w_k^a_k; every other symbol,
    float or function an independent random value. Along a direction φ (the symbol
    ``first`` of φ eliminated), φ = side·π + δ and the series is in δ; at the origin of
    several symbols, each is δ times a random value.
    """

    def __init__(self, rates: Iterable[sp.Basic] = ()) -> None:
        self.rates = frozenset(rates)
        self.active: set[sp.Expr] = set()  # directions being factored (not again inside)
        self.active_key: frozenset[sp.Expr] = frozenset()
        self.depth = 0  # nested rewrites (bounded by _DEPTH)
        # by (id, the directions being factored): a result found with a direction
        # excluded is not the answer outside
        self.memo: dict[tuple[int, frozenset[sp.Expr]], tuple[sp.Basic, sp.Basic]] = {}
        self.rng = random.Random(20240622)
        self.opaque: dict[sp.Basic, int] = {}
        self.units: dict[sp.Basic, tuple[int, int]] = {}
        self.powers: dict[tuple[sp.Basic, int], tuple[int, int]] = {}
        # memos by id (the node kept alive in the value): no structural comparisons
        self.generics: dict[int, tuple[sp.Basic, int]] = {}
        self.infos: dict[int, tuple[sp.Basic, Info]] = {}
        self.series_memo: dict[tuple[Point, int], dict[int, Any]] = {}
        self.directions: dict[sp.Expr, tuple[sp.Basic, dict[sp.Basic, int]]] = {}
        self.parsed: dict[sp.Expr, dict[sp.Basic, int] | None] = {}
        self.arg_directions: dict[int, tuple[sp.Expr, forms.Direction | None]] = {}
        self.atom_values: dict[Point, dict[int, tuple[sp.Basic, int]]] = {}
        self.interned: dict[forms.Direction, sp.Expr] = {}

    # -- the walk ---------------------------------------------------------------
    def visit(self, node: sp.Basic) -> sp.Basic:
        if node.is_Atom or isinstance(node, (sp.sin, sp.cos)) or not node.args:
            return node
        key = (id(node), self.active_key)
        got = self.memo.get(key)
        if got is not None:
            return got[1]
        args = tuple(self.visit(a) for a in node.args)
        new = node if args == node.args else node.func(*args)
        if new.is_Add and self.info(new)[0]:
            new = self.fix_sum(new)
        self.memo[key] = (node, new)  # the node is kept alive, so its id stays its own
        return new

    def fix_sum(self, total: sp.Expr) -> sp.Expr:
        arguments = self.info(total)[0]
        symbols = sorted(set().union(*[a.free_symbols for a in arguments]), key=sp.default_sort_key)
        keys = set()
        for arg in arguments:
            got = self.direction_of(arg)
            if got is not None and len(got) > 1:
                keys.add(got)
        combined = [self.intern(key) for key in keys]
        points: list[Point] = []
        for phi in [*symbols, *sorted(combined, key=sp.default_sort_key)]:
            if phi in self.active:
                continue
            first = self.direction(phi)[0]
            points += [(phi, 0, first), (phi, 1, first)]
        if 1 < len(symbols) <= _SPLIT_ANGLES and len(total.args) <= _SPLIT_TERMS:
            points.append((None, 0, frozenset(symbols)))
        tried = set()
        for point, flag in zip(points, self.screen(total, points)):
            phi = point[0]
            if not flag or phi in tried:
                continue
            tried.add(phi)
            if phi is None:
                out = self.split_at_origin(total, symbols)
            else:
                out = self.factor_direction(total, phi)
            if out is not None:
                return out
        return self.fix_groups(total) if self.rates else total

    def fix_groups(self, total: sp.Expr) -> sp.Expr:
        """``total`` as a polynomial in the rates it holds (``h`` is Σ Γ(q) q̇ q̇ + g(q):
        at rest only g is left), each coefficient that cancels rewritten: a coefficient
        may cancel where the whole sum does not. ``total`` itself when none does."""
        rates = sorted(self.info(total)[1] & self.rates, key=sp.default_sort_key)
        if not rates:
            return total
        try:
            collected = _in_rates(total, {r: k for k, r in enumerate(rates)}, len(rates))
        except _Giveup:
            return total
        terms = [(monom, sp.Add(*parts)) for monom, parts in collected.items()]
        if len(terms) < 2:
            return total
        parts = []
        changed = False
        saved, self.active = self.active, set()  # a coefficient is a new sum: every
        self.active_key = frozenset()
        try:  # direction may be tried again on it
            for monom, coeff in terms:
                new = self.visit(coeff)
                changed = changed or new is not coeff
                parts.append(sp.Mul(new, *[r**k for r, k in zip(rates, monom)]))
        finally:
            self.active = saved
            self.active_key = frozenset(saved)
        return sp.Add(*parts) if changed else total

    def screen(self, total: sp.Expr, points: Sequence[Point]) -> list[bool]:
        """For each point, whether ``total`` may cancel there: the values of its terms at
        every point at once (numpy, modulo the prime); where every term vanishes, the
        truncated series (:meth:`cancels`)."""
        values = _AtPoints(self, points)
        rows = []
        bad = np.zeros(len(points), dtype=bool)
        for term in sp.Add.make_args(total):
            v, b = values.value(term)
            rows.append(np.broadcast_to(np.asarray(v, dtype=np.int64), (len(points),)))
            if b is not None:
                bad |= b
        table = np.array(rows)
        whole = table.sum(axis=0) % _PRIME
        some = (table != 0).any(axis=0)
        out = []
        for j, point in enumerate(points):
            if bad[j] or not values.touched[j]:
                out.append(False)
            elif some[j]:
                out.append(bool(whole[j] == 0))
            else:  # every term vanishes there: read the series
                out.append(self.cancels(total, point))
        return out

    def intern(self, key: forms.Direction) -> sp.Expr:
        """One expression per direction (the points of the screen compare by identity)."""
        got = self.interned.get(key)
        if got is None:
            got = self.interned[key] = sp.Add(*[t * n for t, n in key])
        return got

    def direction_of(self, arg: sp.Expr) -> forms.Direction | None:
        """The primitive direction of a trig argument of symbols (memoized)."""
        got = self.arg_directions.get(id(arg))
        if got is None:
            read = forms.primitive_direction(arg)
            ok = read is not None and all(t.is_Symbol for t, _ in read[1])
            got = self.arg_directions[id(arg)] = (arg, read[1] if ok and read else None)
        return got[1]

    def info(self, node: sp.Basic) -> tuple[frozenset[sp.Basic], frozenset[sp.Basic]]:
        """(arguments of the trig atoms, free symbols) of ``node``."""
        got = self.infos.get(id(node))
        if got is not None:
            return got[1]
        if isinstance(node, (sp.sin, sp.cos)):
            out: tuple[frozenset[sp.Basic], frozenset[sp.Basic]] = (
                frozenset([node.args[0]]),
                frozenset(node.free_symbols),
            )
        elif node.is_Symbol:
            out = frozenset(), frozenset([node])
        elif node.is_Atom or not node.args:
            out = frozenset(), frozenset()
        else:
            parts = [self.info(a) for a in node.args]
            out = (
                frozenset().union(*[t for t, _ in parts]),
                frozenset().union(*[y for _, y in parts]),
            )
        self.infos[id(node)] = (node, out)
        return out

    # -- the generic point ---------------------------------------------------------
    def random(self, node: sp.Basic) -> int:
        got = self.opaque.get(node)
        if got is None:
            got = self.opaque[node] = self.rng.randrange(2, _PRIME - 1)
        return got

    def coefficients(self, arg: sp.Expr) -> dict[sp.Basic, int] | None:
        """``arg`` as {symbol: coefficient × 720720}, or ``None`` (a constant offset, a
        coefficient that is not rational, a denominator not dividing 720720)."""
        try:
            return self.parsed[arg]
        except KeyError:
            pass
        out: dict[sp.Basic, int] | None = {}
        for k, v in arg.as_coefficients_dict().items():
            if not k.is_Symbol or not v.is_Rational or _SCALE % int(v.q):
                out = None
                break
            assert out is not None
            out[k] = int(v.p) * (_SCALE // int(v.q))
        self.parsed[arg] = out
        return out

    def unit(self, coeffs: Mapping[sp.Basic, int]) -> tuple[int, int]:
        """(exp(i·arg), exp(−i·arg)) at the generic point, arg = Σ coeffs·symbol/720720."""
        z, zi = 1, 1
        for sym, n in coeffs.items():
            if not n:
                continue
            got = self.powers.get((sym, n))
            if got is None:
                w = self.units.get(sym)
                if w is None:
                    u = self.rng.randrange(2, _PRIME - 1)
                    w = self.units[sym] = (u, _inv(u))
                a, b = (w[0], w[1]) if n > 0 else (w[1], w[0])
                got = self.powers[sym, n] = (pow(a, abs(n), _PRIME), pow(b, abs(n), _PRIME))
            z, zi = z * got[0] % _PRIME, zi * got[1] % _PRIME
        return z, zi

    def generic(self, node: sp.Basic) -> int:
        """``node`` modulo the prime at the generic point."""
        got = self.generics.get(id(node))
        if got is not None:
            return got[1]
        if node.is_Rational:
            out = _mod(int(node.p), int(node.q))
        elif node.is_Float and (f := _float_fraction(node)) is not None:
            out = _mod(f.numerator, f.denominator)
        elif node.is_Add:
            out = sum(self.generic(a) for a in node.args) % _PRIME
        elif node.is_Mul:
            out = 1
            for a in node.args:
                out = out * self.generic(a) % _PRIME
        elif node.is_Pow and node.exp.is_Integer:
            out = _power(self.generic(node.base), int(node.exp))
        elif (
            isinstance(node, (sp.sin, sp.cos))
            and (coeffs := self.coefficients(node.args[0])) is not None
        ):
            out = _cos_sin(self.unit(coeffs))[0 if isinstance(node, sp.cos) else 1]
        else:  # a symbol, a float, any other function: an independent value
            out = self.random(node)
        self.generics[id(node)] = (node, out)
        return out

    # -- the screen -------------------------------------------------------------
    def cancels(self, total: sp.Expr, point: Point) -> bool:
        """Whether ``total`` vanishes at ``point`` to a higher order than one of its
        terms: first the values there, then (when every term vanishes there) the
        truncated Taylor series, modulo the prime."""
        terms = sp.Add.make_args(total)
        if not any(self.depends(t, point) for t in terms):
            return False
        try:
            for order in (1, _ORDER):
                memo = self.series_memo.setdefault((point, order), {})
                series = [self.series(t, point, order, memo) for t in terms]
                low = min(_order(x) for x in series)
                if low < order:
                    whole = [sum(col) % _PRIME for col in zip(*series)]
                    return _order(whole) > low  # the coefficients below ``order`` are exact
        except _Giveup:
            pass
        return False

    def depends(self, node: sp.Basic, point: Point) -> bool:
        syms = self.info(node)[1]
        phi, _, first = point
        if phi is None:
            return not syms.isdisjoint(first)
        return first in syms

    def direction(self, phi: sp.Expr) -> tuple[sp.Basic, dict[sp.Basic, int]]:
        """(the symbol φ replaces, the integer coefficients of φ)."""
        got = self.directions.get(phi)
        if got is None:
            coeffs = {k: int(v) for k, v in phi.as_coefficients_dict().items()}
            first = min(coeffs, key=sp.default_sort_key)
            got = self.directions[phi] = (first, coeffs)
        return got

    def series(self, node: sp.Basic, point: Point, order: int, memo: dict[int, Any]) -> list[int]:
        """The truncated series of ``node`` at ``point``; ``memo`` is the point's."""
        if not self.depends(node, point):
            return [self.generic(node)] + [0] * (order - 1)
        got = memo.get(id(node))
        if got is None:
            got = memo[id(node)] = (node, self._series(node, point, order, memo))
        return got[1]

    def _series(self, node: sp.Basic, point: Point, order: int, memo: dict[int, Any]) -> list[int]:
        if node.is_Add:
            parts = [self.series(a, point, order, memo) for a in node.args]
            return [sum(col) % _PRIME for col in zip(*parts)]
        if node.is_Mul:
            out = [1] + [0] * (order - 1)
            for a in node.args:
                out = _times(out, self.series(a, point, order, memo))
            return out
        if node.is_Pow and node.exp.is_Integer:
            base, e = self.series(node.base, point, order, memo), int(node.exp)
            if e < 0:
                base, e = _inverse(base), -e
            out = [1] + [0] * (order - 1)
            for _ in range(e):
                out = _times(out, base)
            return out
        if isinstance(node, (sp.sin, sp.cos)):
            return self.trig_series(node, point, order)
        raise _Giveup  # a symbol of the angle outside sin/cos, or a function of one

    def trig_series(self, node: sp.Basic, point: Point, order: int) -> list[int]:
        """cos or sin of ``rest + r·side·π + r·δ`` (φ = side·π + δ), or of ``t·δ`` (every
        symbol of the origin δ times a random value)."""
        coeffs = self.coefficients(node.args[0])
        if coeffs is None:
            raise _Giveup
        phi, side, _ = point
        if phi is None:
            t = sum(n * self.random(k) for k, n in coeffs.items()) * _INVERSE_SCALE % _PRIME
            cos_at, sin_at = 1, 0
        else:
            first, e = self.direction(phi)
            a, f = coeffs[first], e[first]  # arg = (a/720720)/f · φ + rest
            rest = {}
            for k in coeffs.keys() | e.keys():
                if k is not first:
                    n = coeffs.get(k, 0) * f - a * e.get(k, 0)
                    if n % f:
                        raise _Giveup
                    rest[k] = n // f
            quarter, part = divmod(2 * a * side, _SCALE * f)  # r·side·π in quarter turns
            if part:
                raise _Giveup  # cos(rπ) not rational
            cos_rest, sin_rest = _cos_sin(self.unit(rest))
            cq, sq = ((1, 0), (0, 1), (-1, 0), (0, -1))[quarter % 4]
            cos_at = (cos_rest * cq - sin_rest * sq) % _PRIME
            sin_at = (sin_rest * cq + cos_rest * sq) % _PRIME
            t = _mod(a, _SCALE * f)
        cos_d, sin_d = _cos_sin_series(t, order)
        if isinstance(node, sp.cos):
            return [(cos_at * x - sin_at * y) % _PRIME for x, y in zip(cos_d, sin_d)]
        return [(sin_at * x + cos_at * y) % _PRIME for x, y in zip(cos_d, sin_d)]

    # -- the rewrite --------------------------------------------------------------
    def factor_direction(self, total: sp.Expr, phi: sp.Expr) -> sp.Expr | None:
        """``total`` as A(c) + s B(c) in the base angle θ along φ, the roots c = ±1
        divided out; ``None`` when it is not a polynomial in the sines and cosines
        along φ (other angles, symbols and numbers as coefficients)."""
        if self.depth >= _DEPTH:
            return None
        first, e = self.direction(phi)
        read = _Along(first, e)
        if not read.scan(total) or not read.bases():
            return None
        ring, values, back = read.ring()
        try:
            poly = _circle_reduced(ring, read.convert(total, ring, values), 1 + len(read.units))
        except _Giveup:
            return None
        c, s = ring.symbols[0], ring.symbols[1]
        theta = back[c].args[0]
        out = []
        for odd, mult, quotient in _factored_parts(ring, poly):
            self.active.add(phi)  # the quotients have no root left along φ
            self.active_key = frozenset(self.active)
            self.depth += 1
            try:
                rest_expr = self.visit(quotient.as_expr().xreplace(back))
            finally:
                self.active.discard(phi)
                self.active_key = frozenset(self.active)
                self.depth -= 1
            out.append(s**odd * _printed(mult, c, s, theta) * rest_expr)
        return sp.Add(*out).xreplace(back)

    def split_at_origin(self, total: sp.Expr, symbols: Sequence[sp.Symbol]) -> sp.Expr | None:
        """Σ_k [S(0, …, 0, x_k, …) − S(0, …, 0, 0, x_(k+1), …)] + S(0, …, 0), each part
        factored along x_k (``total`` vanishes where all ``symbols`` are 0, so the last
        term is 0)."""
        parts = []
        before = total
        for x in symbols:
            after = before.xreplace({x: sp.S.Zero})
            if after is not before:
                part = self.factor_direction(before - after, x)
                if part is None:
                    return None
                parts.append(part)
            before = after
        return sp.Add(*parts, before)


class _AtPoints:
    """The values of nodes at several points of the screen at once: an int64 array
    (modulo the prime) where a node depends on a point's angle, else its generic value;
    a mask of the points where it cannot be read."""

    def __init__(self, owner: _ZeroFactoring, points: Sequence[Point]) -> None:
        self.owner = owner
        self.points = points
        self.masks: dict[sp.Basic, np.ndarray] = {}
        for j, (phi, _, first) in enumerate(points):
            for sym in first if phi is None else (first,):
                self.masks.setdefault(sym, np.zeros(len(points), dtype=bool))[j] = True
        self.memo: dict[int, tuple[sp.Basic, Any, Any]] = {}
        self.touched = np.zeros(len(points), dtype=bool)
        # the values of the trig atoms at each point, kept across sums by the owner
        self.atom_memos = [owner.atom_values.setdefault(point, {}) for point in points]

    def dependence(self, node: sp.Basic) -> np.ndarray | None:
        out = None
        for sym in self.owner.info(node)[1]:
            m = self.masks.get(sym)
            if m is not None:
                out = m.copy() if out is None else out | m
        return out

    def value(self, node: sp.Basic) -> tuple[Any, np.ndarray | None]:
        got = self.memo.get(id(node))
        if got is not None:
            return got[1], got[2]
        dep = self.dependence(node)
        if dep is None or not dep.any():
            out: tuple[Any, np.ndarray | None] = (self.owner.generic(node), None)
        else:
            self.touched |= dep
            out = self._value(node, dep)
        self.memo[id(node)] = (node, *out)
        return out

    def _value(self, node: sp.Basic, dep: np.ndarray) -> tuple[Any, np.ndarray | None]:
        if node.is_Add or node.is_Mul:
            acc: Any = 0 if node.is_Add else 1
            bad = None
            for a in node.args:
                v, b = self.value(a)
                acc = (acc + v) % _PRIME if node.is_Add else acc * v % _PRIME
                if b is not None:
                    bad = b if bad is None else bad | b
            return acc, bad
        if node.is_Pow and node.exp.is_Integer:
            v, bad = self.value(node.base)
            e = int(node.exp)
            if e < 0:
                zero = np.asarray(v) == 0
                if zero.any():
                    bad = zero if bad is None else bad | zero
                v, e = _vector_power(v, _PRIME - 2), -e
            return _vector_power(v, e), bad
        if isinstance(node, (sp.sin, sp.cos)):
            values = np.full(len(self.points), self.owner.generic(node), dtype=np.int64)
            bad = np.zeros(len(self.points), dtype=bool)
            for j in map(int, np.flatnonzero(dep)):
                memo = self.atom_memos[j]
                got = memo.get(id(node))
                if got is None:
                    try:
                        v = self.owner.trig_series(node, self.points[j], 1)[0]
                    except _Giveup:
                        v = -1
                    got = memo[id(node)] = (node, v)
                if got[1] < 0:
                    bad[j] = True
                else:
                    values[j] = got[1]
            return values, bad
        # a symbol of an angle outside sin/cos, or a function of one
        return 0, dep


def _vector_power(v: Any, e: int) -> Any:
    out: Any = 1
    while e:
        if e & 1:
            out = out * v % _PRIME
        v = v * v % _PRIME
        e >>= 1
    return out


def _inv(v: int) -> int:
    if v % _PRIME == 0:
        raise _Giveup
    return pow(v, _PRIME - 2, _PRIME)


_INVERSES: dict[int, int] = {k: pow(k, _PRIME - 2, _PRIME) for k in range(1, 64)}
_INVERSE_FACTORIALS = [1]
for _k in range(1, 16):
    _INVERSE_FACTORIALS.append(_INVERSE_FACTORIALS[-1] * _INVERSES[_k] % _PRIME)
_INVERSE_SCALE = pow(_SCALE, _PRIME - 2, _PRIME)
_HALF = _INVERSES[2]
_HALF_OVER_I = _HALF * pow(_I, _PRIME - 2, _PRIME) % _PRIME


def _mod(p: int, q: int) -> int:
    inv = _INVERSES.get(q)
    if inv is None:
        inv = _inv(q)
        if len(_INVERSES) < 4096:  # the denominators of one model are few
            _INVERSES[q] = inv
    return p * inv % _PRIME


def _power(v: int, e: int) -> int:
    return pow(_inv(v), -e, _PRIME) if e < 0 else pow(v, e, _PRIME)


def _cos_sin(unit: tuple[int, int]) -> tuple[int, int]:
    """(cos, sin) of the angle whose (exp(i·angle), exp(−i·angle)) is ``unit``."""
    z, zi = unit
    return (z + zi) * _HALF % _PRIME, (z - zi) * _HALF_OVER_I % _PRIME


def _cos_sin_series(t: int, order: int) -> tuple[list[int], list[int]]:
    """The Taylor series of cos(tδ) and sin(tδ) in δ, truncated to ``order`` terms."""
    cos, sin = [0] * order, [0] * order
    power = 1
    for k in range(order):
        term = power * _INVERSE_FACTORIALS[k] % _PRIME
        sign = 1 if (k // 2) % 2 == 0 else -1
        if k % 2 == 0:
            cos[k] = sign * term % _PRIME
        else:
            sin[k] = sign * term % _PRIME
        power = power * t % _PRIME
    return cos, sin


def _times(a: list[int], b: list[int]) -> list[int]:
    n = len(a)
    if n == 1:
        return [a[0] * b[0] % _PRIME]
    out = [0] * n
    for i, x in enumerate(a):
        if x:
            for j in range(n - i):
                out[i + j] = (out[i + j] + x * b[j]) % _PRIME
    return out


def _inverse(a: list[int]) -> list[int]:
    inv0 = _inv(a[0])
    out = [inv0] + [0] * (len(a) - 1)
    for k in range(1, len(a)):
        acc = sum(a[j] * out[k - j] for j in range(1, k + 1)) % _PRIME
        out[k] = -acc * inv0 % _PRIME
    return out


def _order(a: list[int]) -> int:
    return next((k for k, x in enumerate(a) if x), len(a))


class _Along:
    """An expression read as a polynomial along the direction φ (``first``, its first
    symbol, eliminated): every sine and cosine of a rational combination of symbols is
    cos/sin(r·φ + ρ), expanded by angle addition into cos, sin of the base angle θ = uφ
    and of the base angle of ρ's direction (one base per direction, every multiple an
    integer multiple of it, so the identities between them are seen: cos 2y next to
    cos y); an even power of an atom along φ is read as a power of its double angle
    (so sin(φ/2)² keeps the base angle φ). Other symbols, functions and numbers that
    are not rational are coefficients (leaves)."""

    def __init__(self, first: sp.Basic, direction: Mapping[sp.Basic, int]) -> None:
        self.first = first
        self.direction = direction
        self.phi = sp.Add(*[k * v for k, v in direction.items()])
        # atom -> (r, rest, sign): cos/sin(r·φ + sign·rest), rest one sign of ±ρ
        self.atoms: dict[sp.Basic, tuple[Fraction, sp.Expr, int]] = {}
        self.doubled: dict[sp.Basic, sp.Basic] = {}
        self.leaves: set[sp.Basic] = set()
        self.seen: set[int] = set()
        # rest -> (its direction, its multiple of the direction)
        self.rests: dict[sp.Expr, tuple[forms.Direction, Fraction]] = {}
        self.units: dict[forms.Direction, Fraction] = {}
        self.unit = Fraction(0)  # θ = unit·φ: every multiple along φ is k·θ

    def along(self, node: sp.Basic) -> bool:
        return isinstance(node, (sp.sin, sp.cos)) and self.first in node.free_symbols

    def read_atom(self, atom: sp.Basic) -> bool:
        if atom in self.atoms:
            return True
        arg = atom.args[0]
        coeffs = arg.as_coefficients_dict()
        if not all(k.is_Symbol and v.is_Rational for k, v in coeffs.items()):
            return False
        if self.first in coeffs:
            f = self.direction[self.first]
            r = Fraction(int(coeffs[self.first].p), int(coeffs[self.first].q) * f)
            arg = arg - sp.Rational(r.numerator, r.denominator) * self.phi
        else:
            r = Fraction(0)
        if arg == 0:
            self.atoms[atom] = (r, arg, 1)
            return True
        sign = 1
        if arg.could_extract_minus_sign():
            arg, sign = -arg, -1
        read = forms.primitive_direction(arg)
        if read is None:
            return False
        self.rests[arg] = (read[1], read[0])
        self.atoms[atom] = (r, arg, sign)
        return True

    def scan(self, node: sp.Basic) -> bool:
        """Collect atoms and leaves; ``False`` where ``node`` is not a polynomial along φ."""
        if id(node) in self.seen:
            return True
        self.seen.add(id(node))
        if node.is_Rational or (node.is_Float and _float_fraction(node) is not None):
            return True
        if node.is_Add or node.is_Mul:
            return all(self.scan(a) for a in node.args)
        if node.is_Pow and node.exp.is_Integer:
            base, e = node.base, int(node.exp)
            if self.along(base) and e > 0 and e % 2 == 0:
                double = sp.cos(2 * base.args[0])  # sin² and cos² are (1 ∓ cos 2b)/2
                if not self.read_atom(double):
                    return False
                self.doubled[node] = double
                return True
            if e > 0:
                return self.scan(base)
        if isinstance(node, (sp.sin, sp.cos)) and self.read_atom(node):
            return True
        if self.first in node.free_symbols:
            return False  # the symbol outside sin/cos
        self.leaves.add(node)
        return True

    def bases(self) -> bool:
        """The base angles: L for φ, a unit for each other direction; ``False`` when a
        multiple is beyond :data:`_LARGEST`."""
        for r, _, _ in self.atoms.values():
            if r:
                self.unit = abs(r) if not self.unit else _rational_gcd(self.unit, abs(r))
        for d, m in self.rests.values():
            u = self.units.get(d)
            self.units[d] = m if u is None else _rational_gcd(u, m)
        if not self.unit or any(abs(r / self.unit) > _LARGEST for r, _, _ in self.atoms.values()):
            return False
        return all(abs(m / self.units[d]) <= _LARGEST for d, m in self.rests.values())

    def ring(self) -> tuple[PolyRing, dict[sp.Basic, Any], dict[sp.Basic, sp.Basic]]:
        """The ring (c, s of θ, then cos, sin of each other base, then the leaves),
        the ring value of every atom and leaf, and the map back to expressions."""
        c, s = sp.Dummy("c"), sp.Dummy("s")
        theta = sp.Rational(self.unit.numerator, self.unit.denominator) * self.phi
        back: dict[sp.Basic, sp.Basic] = {c: sp.cos(theta), s: sp.sin(theta)}
        pair_names: dict[forms.Direction, tuple[sp.Dummy, sp.Dummy]] = {}
        for d in sorted(self.units, key=lambda d: sp.default_sort_key(_expr(d))):
            cd, sd = sp.Dummy("cb"), sp.Dummy("sb")
            u = self.units[d]
            base = sp.Rational(u.numerator, u.denominator) * _expr(d)
            back[cd], back[sd] = sp.cos(base), sp.sin(base)
            pair_names[d] = (cd, sd)
        leaves = sorted(self.leaves, key=sp.default_sort_key)
        names = {leaf: leaf if leaf.is_Symbol else sp.Dummy("a") for leaf in leaves}
        back.update({d: leaf for leaf, d in names.items() if d is not leaf})
        pair_list = [x for pair in pair_names.values() for x in pair]
        ring = PolyRing([c, s, *pair_list, *names.values()], QQ)
        gens = dict(zip(ring.symbols, ring.gens))
        cache: dict[tuple[int, int], tuple[Any, Any]] = {}

        def multiple(pair: int, k: int) -> tuple[Any, Any]:  # (cos kβ, sin kβ)
            if k < 0:
                cos_k, sin_k = multiple(pair, -k)
                return cos_k, -sin_k
            got = cache.get((pair, k))
            if got is None:
                cg, sg = ring.gens[2 * pair], ring.gens[2 * pair + 1]
                if k == 0:
                    got = (ring.one, ring.zero)
                else:
                    cos_1, sin_1 = multiple(pair, k - 1)
                    got = (cos_1 * cg - sin_1 * sg, sin_1 * cg + cos_1 * sg)
                cache[pair, k] = got
            return got

        index = {d: 1 + k for k, d in enumerate(pair_names)}
        values: dict[sp.Basic, Any] = {}
        for atom, (r, rest, sign) in self.atoms.items():
            cos_k, sin_k = multiple(0, int(r / self.unit))
            if rest == 0:
                cos_r, sin_r = ring.one, ring.zero
            else:
                d, m = self.rests[rest]
                cos_r, sin_r = multiple(index[d], int(m / self.units[d]))
                sin_r = sign * sin_r
            if isinstance(atom, sp.cos):
                values[atom] = cos_k * cos_r - sin_k * sin_r
            else:
                values[atom] = sin_k * cos_r + cos_k * sin_r
        for node, double in self.doubled.items():
            sign = 1 if isinstance(node.base, sp.cos) else -1
            half = (ring.one + sign * values[double]) * QQ(1, 2)
            values[node] = half ** (int(node.exp) // 2)
        for leaf, name in names.items():
            values[leaf] = gens[name]
        return ring, values, back

    def convert(self, node: sp.Basic, ring: PolyRing, values: dict[sp.Basic, Any]) -> Any:
        got = values.get(node)
        if got is not None:
            return got
        if node.is_Rational:
            out = ring(QQ(int(node.p), int(node.q)))
        elif node.is_Float and (f := _float_fraction(node)) is not None:
            out = ring(QQ(f.numerator, f.denominator))
        elif node.is_Add:
            out = ring.zero
            for a in node.args:
                out += self.convert(a, ring, values)
        elif node.is_Mul:
            out = ring.one
            for a in node.args:
                out *= self.convert(a, ring, values)
        elif node.is_Pow and node.exp.is_Integer and node.exp > 0:
            out = self.convert(node.base, ring, values) ** int(node.exp)
        else:
            raise _Giveup
        values[node] = out
        return out


def _in_rates(
    node: sp.Basic, index: Mapping[sp.Basic, int], n: int
) -> dict[tuple[int, ...], list[sp.Expr]]:
    """``node`` as a polynomial in the rates: {exponents: terms of the coefficient}
    (products of sums of rates distributed; anything else is a coefficient)."""
    if node.is_Add:
        out: dict[tuple[int, ...], list[sp.Expr]] = {}
        for a in node.args:
            for monom, parts in _in_rates(a, index, n).items():
                out.setdefault(monom, []).extend(parts)
        return out
    if node.is_Mul:
        acc: dict[tuple[int, ...], list[sp.Expr]] = {(0,) * n: [sp.S.One]}
        plain = []
        for f in node.args:
            if index.keys().isdisjoint(f.free_symbols):
                plain.append(f)
                continue
            acc = _times_in_rates(acc, _in_rates(f, index, n))
        coeff = sp.Mul(*plain)
        return {m: [coeff * t for t in parts] for m, parts in acc.items()}
    if node.is_Pow and node.exp.is_Integer and node.exp > 0 and node.base in index:
        exps = [0] * n
        exps[index[node.base]] = int(node.exp)
        return {tuple(exps): [sp.S.One]}
    if node in index:
        exps = [0] * n
        exps[index[node]] = 1
        return {tuple(exps): [sp.S.One]}
    if node.is_Pow and node.exp.is_Integer and node.exp > 0:
        out = {(0,) * n: [sp.S.One]}
        factor = _in_rates(node.base, index, n)
        for _ in range(int(node.exp)):
            out = _times_in_rates(out, factor)
        return out
    if index.keys().isdisjoint(node.free_symbols):
        return {(0,) * n: [node]}
    raise _Giveup  # a rate inside a function


def _times_in_rates(
    a: dict[tuple[int, ...], list[sp.Expr]], b: dict[tuple[int, ...], list[sp.Expr]]
) -> dict[tuple[int, ...], list[sp.Expr]]:
    out: dict[tuple[int, ...], list[sp.Expr]] = {}
    for ma, pa in a.items():
        ca = sp.Add(*pa)
        for mb, pb in b.items():
            monom = tuple(x + y for x, y in zip(ma, mb))
            out.setdefault(monom, []).append(ca * sp.Add(*pb))
    return out


def _expr(d: forms.Direction) -> sp.Expr:
    return sp.Add(*[t * n for t, n in d])


def _float_fraction(node: sp.Float) -> Fraction | None:
    """The simple fraction a float stands for — within 4 ulps, denominator at most 10⁶
    (0.5, 0.375, and 0.0375 = 0.1·3/8 as the canonical form computed it) — or ``None``
    (the float is then a number of its own). The canonical form of ``0.1·sin(x/2)⁴`` has
    coefficients rounded so that they no longer cancel exactly at x = 0; read as the
    fractions they round, they do."""
    value = float(node)
    if not math.isfinite(value):
        return None
    exact = Fraction(value)
    if exact.denominator <= 1 << 20:
        return exact
    simple = exact.limit_denominator(10**6)
    if abs(float(simple) - value) <= 4 * math.ulp(value):
        return simple
    return None


def _rational_gcd(a: Fraction, b: Fraction) -> Fraction:
    return Fraction(
        gcd(a.numerator * b.denominator, b.numerator * a.denominator),
        a.denominator * b.denominator,
    )


def _circle_reduced(ring: PolyRing, poly: Any, pairs: int) -> Any:
    """``poly`` with sin² = 1 − cos² for each of the first ``pairs`` pairs of generators
    (cos, sin of one angle): a unique representative, so zero tests and divisions are
    exact."""
    out = ring.zero
    for monom, coeff in poly.terms():
        base = list(monom)
        factor = ring.one
        for k in range(pairs):
            ci, si = 2 * k, 2 * k + 1
            e = base[si]
            if e >= 2:
                base[si] = e % 2
                factor *= (1 - ring.gens[ci] ** 2) ** (e // 2)
        out += ring({tuple(base): coeff}) * factor
    return out


def _factored_parts(ring: PolyRing, poly: Any) -> list[tuple[int, tuple[int, int], Any]]:
    """``poly`` (circle-reduced) as A(c) + s B(c): for A (0) and B (1) that are not
    zero, the multiplicities of the roots c = 1 and c = −1 and the quotient."""
    cg = ring.gens[0]
    halves = [ring.zero, ring.zero]
    for monom, coeff in poly.terms():
        halves[monom[1] % 2] += ring({(monom[0], 0, *monom[2:]): coeff})
    out = []
    for odd, part in enumerate(halves):
        if not part:
            continue
        mult = []
        for root in (1, -1):
            k = 0
            while part and not part.subs(cg, root):
                part = part.exquo(cg - root)
                k += 1
            mult.append(k)
        out.append((odd, (mult[0], mult[1]), part))
    return out


def _printed(mult: tuple[int, int], c: sp.Expr, s: sp.Expr, theta: sp.Expr) -> sp.Expr:
    """(c − 1)^a (c + 1)^b as products of s, sin(θ/2), cos(θ/2): no cancellation."""
    a, b = mult
    k = min(a, b)
    return (
        (-1) ** k
        * s ** (2 * k)
        * (-2 * sp.sin(theta / 2) ** 2) ** (a - k)
        * (2 * sp.cos(theta / 2) ** 2) ** (b - k)
    )


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
