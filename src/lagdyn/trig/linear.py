"""Exact zero tests for expressions *linear* in trigonometric atoms, one frequency at a time.

The equations lagdyn returns (M, C, g, L of a kinematic model) are sums of terms
``coefficient · cos(e·q)`` or ``coefficient · sin(e·q)`` with at most one trigonometric
factor per term, ``e`` a vector of rationals and the coefficients polynomials in the
parameters, the velocities and ``q``. Such an expression is read here into the form

``{e: (A_e, B_e)}``  (``e`` canonical: its first nonzero component is positive; the
zero key carries the trigonometry-free part in ``A``)

with unexpanded symengine coefficients, without any product-to-sum conversion. The
functions ``q^m cos(e·q)``, ``q^m sin(e·q)`` (``e`` canonical and distinct, with ``1`` for
``e = 0``) are linearly independent over the polynomials in the other symbols, so an
expression in this form is identically zero exactly when every expanded ``A_e`` and
``B_e`` is zero. Expanding per frequency keeps every expansion small and needs no
complex Laurent encoding (:mod:`lagdyn.trig.laurent` expands each whole expression in
``z_k = exp(i q_k)``, twice the terms); results are identical.

Anything else raises :class:`NotLinearError` and the caller falls back to the Laurent
encoding: a product of two trigonometric atoms, a trigonometric power, a phase that is
not zero (``cos(q + 1)``), floats, negative powers of sums, functions other than cos/sin
of ``q``. The coefficients are Laurent polynomials in independent symbols (``1/m`` is
allowed), so a nonzero expanded coefficient proves a nonzero expression.

Products of two such expressions are formed by the product-to-sum formulas
(:func:`product_into`, :func:`products_form`): the Gram sum Σ JᵀWJ of a planar chain is
assembled that way (:mod:`lagdyn.trig.gram`).

Used by the streamed skew-symmetry proof, the passivity proof and the zero-test ladder
(:func:`lagdyn.trig.identities.skew_identity`, :func:`lagdyn.trig.identities.passivity_identity`,
:func:`lagdyn.trig.identities.decide_zero`).

Examples
--------
>>> import sympy
>>> x, y, a, b = sympy.symbols("x y a b")
>>> enc = LinearTrigEncoder([x, y])
>>> sorted(enc.form(a*sympy.cos(y - x) + sympy.sin(-x)).items())   # canonical keys
[((1, -1), ([a], [])), ((1, 0), ([], [-1]))]
>>> is_zero_form(enc.form(a*(b + 1)*sympy.cos(x - y) - (a*b + a)*sympy.cos(x - y)))
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import symengine as se
import sympy

__all__ = [
    "LinearTrigEncoder",
    "NotLinearError",
    "collapse",
    "combine",
    "is_zero_form",
    "product_into",
    "products_form",
    "scaled",
]

Key = tuple[int | Fraction, ...]
#: frequency key -> [cos coefficient terms, sin coefficient terms] (symengine, unexpanded)
Form = dict[Key, tuple[list[Any], list[Any]]]

_ZERO = se.Integer(0)


class NotLinearError(Exception):
    """The expression is not linear in cos/sin of rational combinations of ``q``.

    Raised by :class:`LinearTrigEncoder` for a product of trig atoms; callers fall back to
    the Laurent encoding of :mod:`lagdyn.trig.laurent`.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> try:
    ...     LinearTrigEncoder([x]).form(sp.sin(x) * sp.cos(x))
    ... except NotLinearError:
    ...     print("not linear")
    not linear
    """


class LinearTrigEncoder:
    """Reads sympy expressions into per-frequency forms (see the module docstring).

    Parameters
    ----------
    q : sequence of sympy objects
        The angle coordinates (plain symbols or ``q(t)``).
    rates : sequence of sympy objects, optional
        Objects that stand for independent symbols (velocities such as ``q̇(t)``).

    Examples
    --------
    >>> import sympy
    >>> x, y, a = sympy.symbols("x y a")
    >>> enc = LinearTrigEncoder([x, y])
    >>> is_zero_form(enc.form(a * sympy.sin(x - y) + a * sympy.sin(y - x)))
    True
    >>> is_zero_form(enc.form(a * sympy.cos(x) - a))
    False
    """

    def __init__(
        self,
        q: Sequence[sympy.Basic],
        rates: Iterable[sympy.Basic] = (),
        *,
        symbol: Callable[[sympy.Basic], Any] | None = None,
    ) -> None:
        self.q = tuple(q)
        self.n = len(self.q)
        self.q_index = {qk: k for k, qk in enumerate(self.q)}
        self.zero_key: Key = (0,) * self.n
        self._symbols: dict[sympy.Basic, Any] = {}
        self._names: set[str] = set()
        self._symbol_of = symbol  # another encoder's symbols, shared (optional)
        self.qse = [self.symbol(qk) for qk in self.q]
        self.rates = frozenset(rates)
        self._scalar: dict[sympy.Basic, Any] = {}  # trig-free subtrees -> symengine
        # products holding a trig atom -> their forms (shared: never mutated; a sum
        # copies its terms' lists, and form() copies a product it returns)
        self._products: dict[sympy.Basic, Form] = {}
        self._trig: dict[sympy.Basic, tuple[Key, int, int]] = {}  # atom -> key, slot, sign
        #: indices of the coordinates that occur outside a trigonometric atom (then
        #: derivatives act on the coefficients too)
        self.poly_q: set[int] = set()

    def symbol(self, atom: sympy.Basic) -> Any:
        """The symengine symbol standing for ``atom`` (one per atom, names unique).

        Examples
        --------
        >>> import sympy
        >>> a = sympy.Symbol("a")
        >>> enc = LinearTrigEncoder([sympy.Symbol("x")])
        >>> enc.symbol(a), enc.symbol(a) is enc.symbol(a)
        (a, True)
        """
        found = self._symbols.get(atom)
        if found is not None:
            return found
        if self._symbol_of is not None:
            found = self._symbols[atom] = self._symbol_of(atom)
            return found
        base = atom.name if isinstance(atom, sympy.Symbol) else "_lagdyn_lt"
        name = base
        count = 0
        while name in self._names:
            count += 1
            name = f"{base}__{count}"
        self._names.add(name)
        out = se.Symbol(name)
        self._symbols[atom] = out
        return out

    # -- reading --------------------------------------------------------------
    def form(self, expr: sympy.Basic) -> Form:
        """The per-frequency form of ``expr`` (coefficient lists, unexpanded).

        Raises
        ------
        NotLinearError
            When ``expr`` is outside the class described in the module docstring.

        Examples
        --------
        >>> import sympy
        >>> x, y, a = sympy.symbols("x y a")
        >>> LinearTrigEncoder([x, y]).form(a * sympy.cos(x) + 2 * sympy.sin(x - y) + a)
        {(0, 0): ([a], []), (1, -1): ([], [2]), (1, 0): ([a], [])}
        """
        scalar, form = self._read(sympy.sympify(expr))
        if form is None:
            form = {}
            if scalar is not None:
                form[self.zero_key] = ([scalar], [])
        elif expr in self._products:
            form = {key: (list(a), list(b)) for key, (a, b) in form.items()}
        return form

    def _read(self, node: sympy.Basic) -> tuple[Any, Form | None]:
        """``(scalar, None)`` for a trig-free node, ``(None, form)`` otherwise."""
        found = self._scalar.get(node)
        if found is not None:
            return found, None
        if isinstance(node, (sympy.cos, sympy.sin)):
            key, slot, sign = self._atom(node)
            coef = se.Integer(sign)
            return None, {key: ([coef], []) if slot == 0 else ([], [coef])}
        if node.is_Add:
            scalars: list[Any] = []
            forms: list[Form] = []
            products, known_scalars = self._products, self._scalar
            for arg in node.args:
                # (the memo lookups of _read, without the call: the terms of the entries
                # of C recur, products read once)
                f = products.get(arg)
                if f is not None:
                    forms.append(f)
                    continue
                s = known_scalars.get(arg)
                if s is not None:
                    scalars.append(s)
                    continue
                s, f = self._read(arg)
                if f is None:
                    scalars.append(s)
                else:
                    forms.append(f)
            if not forms:
                return self._remember(node, se.Add(*scalars)), None
            out: Form = {}
            if scalars:
                out[self.zero_key] = (scalars, [])
            for f in forms:
                for key, (a, b) in f.items():
                    entry = out.get(key)
                    if entry is None:
                        out[key] = (list(a), list(b))
                    else:
                        entry[0].extend(a)
                        entry[1].extend(b)
            return None, out
        if node.is_Mul:
            known = self._products.get(node)
            if known is not None:  # terms recur across entries (C of a chain)
                return None, known
            scalars = []
            trig_form: Form | None = None
            for arg in node.args:
                s, f = self._read(arg)
                if f is None:
                    scalars.append(s)
                elif trig_form is None:
                    trig_form = f
                else:
                    raise NotLinearError(node)  # a product of two trigonometric factors
            if trig_form is None:
                return self._remember(node, se.Mul(*scalars)), None
            factor = se.Mul(*scalars)
            product: Form = {
                key: (
                    [se.Mul(factor, se.Add(*a))] if a else [],
                    [se.Mul(factor, se.Add(*b))] if b else [],
                )
                for key, (a, b) in trig_form.items()
            }
            self._products[node] = product
            return None, product
        return self._remember(node, self._leaf(node)), None

    def _remember(self, node: sympy.Basic, value: Any) -> Any:
        self._scalar[node] = value
        return value

    def _leaf(self, node: sympy.Basic) -> Any:
        """A trig-free node that is not a sum or product: symbols, numbers, powers."""
        k = self.q_index.get(node)
        if k is not None:
            self.poly_q.add(k)
            return self.qse[k]
        if node in self.rates or node.is_Symbol:
            return self.symbol(node)
        if isinstance(node, sympy.Derivative) and node.expr in self.q_index:
            return self.symbol(node)  # a rate written as q(t).diff(t): independent
        if node.is_Integer:
            return se.Integer(int(node))
        if node.is_Rational:
            return se.Rational(int(node.p), int(node.q))
        if node.is_Pow:
            base, exp = node.args
            if not exp.is_Integer:
                raise NotLinearError(node)
            s, f = self._read(base)
            if f is not None:
                raise NotLinearError(node)  # a power of a trigonometric factor
            if exp < 0 and not (base.is_Symbol and base not in self.q_index):
                raise NotLinearError(node)  # 1/(a + b), 1/q: not a Laurent polynomial
            return se.Pow(s, int(exp))
        raise NotLinearError(node)  # floats, constants, other functions: Laurent path

    def _atom(self, node: sympy.Basic) -> tuple[Key, int, int]:
        found = self._trig.get(node)
        if found is not None:
            return found
        freqs = [Fraction(0)] * self.n
        for term in sympy.Add.make_args(node.args[0]):
            coeff, rest = term.as_coeff_Mul()
            k = self.q_index.get(rest)
            if k is None or not coeff.is_Rational:
                raise NotLinearError(node)  # a phase or a nonlinear argument
            freqs[k] += Fraction(int(coeff.p), int(coeff.q))
        lead = next((f for f in freqs if f), None)
        if lead is None:
            raise NotLinearError(node)  # cos(0) would have evaluated
        flip = lead < 0
        # integers where possible: tuples of ints hash far faster than of Fractions
        # (equal values hash alike, so mixed keys still compare correctly)
        key = tuple(_plain(-f if flip else f) for f in freqs)
        slot = 0 if isinstance(node, sympy.cos) else 1
        sign = -1 if (flip and slot == 1) else 1
        found = (key, slot, sign)
        self._trig[node] = found
        return found

    # -- calculus on forms -----------------------------------------------------
    def rate(
        self, form: Form, velocities: Sequence[Any], memo: dict[Key, Any] | None = None
    ) -> Form:
        """``Σ_k ∂form/∂q_k · v_k``; the coefficients are differentiated only when a
        coordinate occurred outside the trigonometric atoms (:attr:`poly_q`).

        ``memo``: the angular rates ``e·v`` by key, shared by calls with the same
        ``velocities`` (the entries of one matrix share their frequencies).

        Examples
        --------
        >>> import sympy
        >>> x, a, v = sympy.symbols("x a v")
        >>> enc = LinearTrigEncoder([x])
        >>> enc.rate(enc.form(a * sympy.sin(x)), [enc.symbol(v)])     # d/dt a sin x = a v cos x
        {(1,): ([a*v], [])}
        """
        polynomial = bool(self.poly_q)
        out: Form = {}
        for key, (a, b) in form.items():
            omega = None if memo is None else memo.get(key)
            if omega is None:
                omega = se.Add(
                    *[
                        se.Rational(f.numerator, f.denominator) * v
                        for f, v in zip(key, velocities)
                        if f
                    ]
                )
                if memo is not None:
                    memo[key] = omega
            A = se.Add(*a)
            B = se.Add(*b)
            new_a = [se.Mul(B, omega)] if b and key != self.zero_key else []
            new_b = [-se.Mul(A, omega)] if a and key != self.zero_key else []
            if polynomial:
                for qk, v in zip(self.qse, velocities):
                    if a:
                        new_a.append(se.Mul(A.diff(qk), v))
                    if b:
                        new_b.append(se.Mul(B.diff(qk), v))
            if new_a or new_b:
                out[key] = (new_a, new_b)
        return out

    def partial(self, form: Form, k: int) -> Form:
        """``∂form/∂q_k``.

        Examples
        --------
        >>> import sympy
        >>> x, a = sympy.symbols("x a")
        >>> enc = LinearTrigEncoder([x])
        >>> enc.partial(enc.form(a * sympy.sin(2 * x)), 0)
        {(2,): ([2*a], [0])}
        """
        out: Form = {}
        qk = self.qse[k]
        for key, (a, b) in form.items():
            e = key[k]
            A = se.Add(*a)
            B = se.Add(*b)
            new_a = [A.diff(qk)] if a else []
            new_b = [B.diff(qk)] if b else []
            if e:
                c = se.Rational(e.numerator, e.denominator)
                if b:
                    new_a.append(c * B)
                if a:
                    new_b.append(-c * A)
            if new_a or new_b:
                out[key] = (new_a, new_b)
        return out


def collapse(form: Form) -> dict[Key, tuple[Any, Any]]:
    """Each coefficient list summed (unexpanded); None for an empty slot.

    Examples
    --------
    >>> import sympy
    >>> x, a = sympy.symbols("x a")
    >>> collapse(LinearTrigEncoder([x]).form(a * sympy.cos(x) + a))
    {(0,): (a, None), (1,): (a, None)}
    """
    return {
        key: (se.Add(*a) if a else None, se.Add(*b) if b else None) for key, (a, b) in form.items()
    }


_KEY_PAIRS: dict[tuple[Key, Key], tuple[Key, int, Key, int]] = {}


def _key_pair(k1: Key, k2: Key) -> tuple[Key, int, Key, int]:
    """Canonical ``k1 + k2`` and ``k1 − k2`` with the signs that canonicalizing gave."""
    found = _KEY_PAIRS.get((k1, k2))
    if found is None:
        out = []
        for key in (tuple(a + b for a, b in zip(k1, k2)), tuple(a - b for a, b in zip(k1, k2))):
            lead = next((x for x in key if x), 0)
            out.append((tuple(-x for x in key), -1) if lead < 0 else (key, 1))
        found = (out[0][0], out[0][1], out[1][0], out[1][1])
        if len(_KEY_PAIRS) > 50_000:
            _KEY_PAIRS.clear()
        _KEY_PAIRS[(k1, k2)] = found
    return found


#: Accumulator of doubled products: key -> [cos +, cos −, sin +, sin −] term lists.
Products = dict[Key, tuple[list[Any], list[Any], list[Any], list[Any]]]


def product_into(
    acc: Products, f: dict[Key, tuple[Any, Any]], g: dict[Key, tuple[Any, Any]]
) -> None:
    """``acc += 2 · f · g`` for collapsed forms, by the product-to-sum formulas

    2(A₁c₁ + B₁s₁)(A₂c₂ + B₂s₂) = (A₁A₂ + B₁B₂) cos(k₁−k₂) + (A₁A₂ − B₁B₂) cos(k₁+k₂)
    + (B₁A₂ − A₁B₂) sin(k₁−k₂) + (B₁A₂ + A₁B₂) sin(k₁+k₂)

    (the zero key is cos 0 = 1 with B empty); keys are canonicalized (sin changes sign),
    signs go to separate lists (no negated copies). Finish with :func:`products_form`.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> c = collapse(LinearTrigEncoder([x]).form(sympy.cos(x)))
    >>> acc = {}
    >>> product_into(acc, c, c)            # 2 cos² x = cos 2x + 1
    >>> acc
    {(2,): ([1], [], [], []), (0,): ([1], [], [], [])}
    """
    get = acc.get
    for k1, (a1, b1) in f.items():
        for k2, (a2, b2) in g.items():
            plus, s_plus, minus, s_minus = _key_pair(k1, k2)
            p = get(plus)
            if p is None:
                p = acc[plus] = ([], [], [], [])
            m = get(minus)
            if m is None:
                m = acc[minus] = ([], [], [], [])
            # sin slots: index 2 adds, 3 subtracts; a canonicalizing flip swaps them
            p_add = 2 if s_plus > 0 else 3
            m_add, m_sub = (2, 3) if s_minus > 0 else (3, 2)
            if a1 is not None:
                if a2 is not None:
                    t = a1 * a2
                    p[0].append(t)
                    m[0].append(t)
                if b2 is not None:
                    t = a1 * b2
                    p[p_add].append(t)
                    m[m_sub].append(t)
            if b1 is not None:
                if b2 is not None:
                    t = b1 * b2
                    p[1].append(t)
                    m[0].append(t)
                if a2 is not None:
                    t = b1 * a2
                    p[p_add].append(t)
                    m[m_add].append(t)


def scaled(row: Sequence[dict[Key, tuple[Any, Any]]], weight: Any) -> list[Any]:
    """Every collapsed form of ``row`` times ``weight``.

    Examples
    --------
    >>> import sympy, symengine
    >>> x = sympy.Symbol("x")
    >>> c = collapse(LinearTrigEncoder([x]).form(sympy.cos(x)))
    >>> scaled([c], symengine.Symbol("m"))
    [{(1,): (m, None)}]
    """
    return [
        {
            k: (None if a is None else weight * a, None if b is None else weight * b)
            for k, (a, b) in f.items()
        }
        for f in row
    ]


def products_form(acc: Products, scale: Any = None) -> Form:
    """The accumulated products as a form (``scale`` times each coefficient; the sine
    of the zero key, sin 0, is dropped).

    Examples
    --------
    >>> import sympy, symengine
    >>> x = sympy.Symbol("x")
    >>> c = collapse(LinearTrigEncoder([x]).form(sympy.cos(x)))
    >>> acc = {}
    >>> product_into(acc, c, c)
    >>> products_form(acc, symengine.Rational(1, 2))       # cos² x = (cos 2x + 1)/2
    {(2,): ([1/2], []), (0,): ([1/2], [])}
    """
    out: Form = {}
    for key, (cp, cm, sp_, sm) in acc.items():
        a = []
        if cp or cm:
            a = [se.Add(*cp) - se.Add(*cm)]
        b = []
        if (sp_ or sm) and any(key):
            b = [se.Add(*sp_) - se.Add(*sm)]
        if scale is not None:
            a = [scale * x for x in a]
            b = [scale * x for x in b]
        if a or b:
            out[key] = (a, b)
    return out


def _plain(f: Fraction) -> int | Fraction:
    return f.numerator if f.denominator == 1 else f


def combine(*parts: tuple[int, Form]) -> Form:
    """``Σ s · form`` over ``(s, form)`` pairs (``s`` a number or a symengine expression).

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> enc = LinearTrigEncoder([x])
    >>> difference = combine((1, enc.form(sympy.cos(x))), (-1, enc.form(sympy.cos(x))))
    >>> difference, is_zero_form(difference)
    ({(1,): ([1, -1], [])}, True)
    """
    out: Form = {}
    for scale, form in parts:
        s = None if scale == 1 else se.sympify(scale)
        for key, (a, b) in form.items():
            slot = out.get(key)
            if slot is None:
                slot = ([], [])
                out[key] = slot
            if a:
                slot[0].append(se.Add(*a) if s is None else s * se.Add(*a))
            if b:
                slot[1].append(se.Add(*b) if s is None else s * se.Add(*b))
    return out


def is_zero_form(form: Form) -> bool:
    """Whether every coefficient of ``form`` expands to zero (so the expression is 0).

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> is_zero_form(LinearTrigEncoder([x]).form(sympy.sin(2 * x) - sympy.sin(2 * x)))
    True
    """
    for a, b in form.values():
        for part in (a, b):
            if part and se.expand(se.Add(*part)) != _ZERO:
                return False
    return True
