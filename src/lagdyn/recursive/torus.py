r"""Exact polynomial arithmetic on the torus with packed monomials (the proofs' fast domain).

The exact proofs on the programs (:mod:`lagdyn.recursive.proofs`,
:func:`lagdyn.recursive.floating.decide_skew`) expand every statement of a program into a
polynomial in the circle variables (cᵢ, sᵢ) of the joint angles and the other inputs
(inertial parameters, q̇, q̈, τ, a prismatic joint's q), reduced with sᵢ² = 1 − cᵢ² as it
is formed, and compare the residual's normal form with zero. :class:`PackedTorus` does
that arithmetic on plain Python integers:

* a monomial is **one integer**: the exponent of variable k sits in bits
  [8k, 8k + 8); a product of monomials is the sum of their integers (no carry as long as
  every exponent stays below 128, checked on every product through a guard bit per field);
* a polynomial is ``(terms, den)``: a dictionary monomial → integer coefficient and one
  positive integer denominator, so every coefficient is exact (no floating point, no
  ``Fraction`` per term), with the common factor divided out when the numbers grow;
* each sine's exponent is kept at most one (the normal form modulo the torus ideal, whose
  generators sᵢ² − (1 − cᵢ²) are a Gröbner basis): a product that makes it two is
  rewritten at once, detected with one mask test per product.

The normal form is unique, so a residual is zero on the torus exactly when its dictionary
is empty: the same decision the symengine domain (``proofs._Torus``) takes, several times
faster, because a product of a monomial and a polynomial is a loop of integer additions
instead of new expression trees. An exponent of 128 or more raises
:class:`TorusOverflowError` and the caller falls back to the symengine domain.

Examples
--------
>>> from fractions import Fraction
>>> dom = PackedTorus(circles=1, others=1)
>>> c, s = dom.circle(0)
>>> m = dom.var(0)
>>> minus_one = dom.const(Fraction(-1))
>>> dom.is_zero(dom.add([dom.mul([s, s]), dom.mul([c, c]), minus_one]))
True
>>> dom.is_zero(dom.mul([m, dom.add([s, c])]))
False
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

__all__ = ["PackedTorus", "TorusOverflowError"]

_BITS = 8  # bits per exponent field; exponents stay below 2**(_BITS - 1)
_BIG = 1 << 64  # denominators beyond this are reduced by the coefficients' common factor

Poly = tuple[dict[int, int], int]


class TorusOverflowError(ArithmeticError):
    """An exponent reached 128: the packed fields cannot hold it (the caller falls back).

    Examples
    --------
    >>> dom = PackedTorus(circles=0, others=1)
    >>> try:
    ...     dom.pow(dom.var(0), 128)
    ... except TorusOverflowError as exc:
    ...     print(exc)
    an exponent reached 128
    """


class PackedTorus:
    """Polynomials on the torus cᵢ² + sᵢ² = 1 with packed integer monomials.

    Parameters
    ----------
    circles : int
        Number of (cᵢ, sᵢ) pairs (variables 2i and 2i + 1).
    others : int
        Number of further variables (parameters, rates, prismatic coordinates), numbered
        from 0 for :meth:`var`.

    The interface is that of the proofs' evaluation domains: :meth:`const`, :meth:`add`,
    :meth:`mul`, :meth:`pow`, :meth:`inv` (refused), :meth:`is_zero`; plus :meth:`diff`
    and :meth:`rate` for time derivatives.

    Examples
    --------
    >>> from fractions import Fraction
    >>> dom = PackedTorus(circles=1, others=0)
    >>> c, s = dom.circle(0)
    >>> dom.terms(dom.mul([s, s]))   # s² = 1 − c²
    [(Fraction(1, 1), {}), (Fraction(-1, 1), {'c0': 2})]
    """

    def __init__(self, circles: int, others: int) -> None:
        self.circles = circles
        self.width = 2 * circles + others
        field = (1 << _BITS) - 1
        guard = 0
        sine2 = 0
        for k in range(self.width):
            guard |= 1 << (_BITS * k + _BITS - 1)
        for i in range(circles):
            sine2 |= 2 << (_BITS * (2 * i + 1))  # bit 1 of a sine's field: exponent >= 2
        self._guard = guard
        self._sine2 = sine2
        self._high = guard | sine2
        self._field = field
        self._unit = [1 << (_BITS * k) for k in range(self.width)]
        self.zero: Poly = ({}, 1)
        self.one: Poly = ({0: 1}, 1)

    # -- variables and constants --------------------------------------------
    def circle(self, i: int) -> tuple[Poly, Poly]:
        """(cᵢ, sᵢ) as polynomials.

        Examples
        --------
        >>> PackedTorus(2, 0).terms(PackedTorus(2, 0).circle(1)[1])
        [(Fraction(1, 1), {'s1': 1})]
        """
        return ({self._unit[2 * i]: 1}, 1), ({self._unit[2 * i + 1]: 1}, 1)

    def var(self, j: int) -> Poly:
        """The further variable number ``j``.

        Examples
        --------
        >>> PackedTorus(0, 2).terms(PackedTorus(0, 2).var(1))
        [(Fraction(1, 1), {'x1': 1})]
        """
        return ({self._unit[2 * self.circles + j]: 1}, 1)

    def const(self, r: Fraction) -> Poly:
        """A rational constant.

        Examples
        --------
        >>> from fractions import Fraction
        >>> PackedTorus(0, 0).const(Fraction(3, 4))
        ({0: 3}, 4)
        """
        if r == 0:
            return self.zero
        return ({0: r.numerator}, r.denominator)

    # -- arithmetic -----------------------------------------------------------
    def add(self, xs: Sequence[Poly]) -> Poly:
        """The sum of ``xs``.

        Examples
        --------
        >>> from fractions import Fraction
        >>> dom = PackedTorus(0, 1)
        >>> x = dom.var(0)
        >>> dom.add([x, dom.const(Fraction(1, 2)), x])
        ({1: 4, 0: 1}, 2)
        """
        live = [x for x in xs if x[0]]
        if not live:
            return self.zero
        if len(live) == 1:
            return live[0]
        den = 1
        for _, d in live:
            if d != den:
                den = den * d // math.gcd(den, d)
        first, d0 = live[0]
        out = dict(first) if d0 == den else {k: c * (den // d0) for k, c in first.items()}
        get = out.get
        for terms, d in live[1:]:
            if d == den:
                for k, c in terms.items():
                    out[k] = get(k, 0) + c
            else:
                f = den // d
                for k, c in terms.items():
                    out[k] = get(k, 0) + c * f
        return self._finish(out, den)

    def mul(self, xs: Sequence[Poly]) -> Poly:
        """The product of ``xs``, reduced on the torus.

        Examples
        --------
        >>> dom = PackedTorus(1, 0)
        >>> c, s = dom.circle(0)
        >>> dom.terms(dom.mul([dom.add([c, s]), dom.add([c, s])]))  # 1 + 2cs
        [(Fraction(1, 1), {}), (Fraction(2, 1), {'c0': 1, 's0': 1})]
        """
        if not xs:
            return self.one
        # constants and monomials first: each is one pass over the growing product
        order = sorted(xs, key=lambda x: len(x[0]))
        acc = order[0]
        for x in order[1:]:
            acc = self._mul2(acc, x)
            if not acc[0]:
                return self.zero
        return acc

    def _mul2(self, a: Poly, b: Poly) -> Poly:
        ta, da = a
        tb, db = b
        if not ta or not tb:
            return self.zero
        if len(ta) > len(tb):
            ta, tb = tb, ta
        den = da * db
        high = self._high
        out: dict[int, int] = {}
        get = out.get
        spill: list[tuple[int, int]] = []
        for ka, ca in ta.items():
            if ka == 0:
                for kb, cb in tb.items():
                    out[kb] = get(kb, 0) + ca * cb
                continue
            for kb, cb in tb.items():
                k = ka + kb
                if k & high:
                    spill.append((k, ca * cb))
                else:
                    out[k] = get(k, 0) + ca * cb
        for k, c in spill:
            self._put(out, k, c)
        return self._finish(out, den)

    def _put(self, out: dict[int, int], k: int, c: int) -> None:
        """Add the term c·k, reducing every sine of exponent two (s² = 1 − c²)."""
        if k & self._guard:
            raise TorusOverflowError("an exponent reached 128")
        if not k & self._sine2:
            out[k] = out.get(k, 0) + c
            return
        # the first sine of exponent 2: s² m = m − c² m (each part may hold another)
        for i in range(self.circles):
            if k & (2 << (_BITS * (2 * i + 1))):
                base = k - 2 * self._unit[2 * i + 1]
                self._put(out, base, c)
                self._put(out, base + 2 * self._unit[2 * i], -c)
                return

    def _finish(self, out: dict[int, int], den: int) -> Poly:
        terms = {k: c for k, c in out.items() if c}
        if not terms:
            return self.zero
        if den > _BIG:
            g = math.gcd(den, *terms.values())
            if g > 1:
                den //= g
                terms = {k: c // g for k, c in terms.items()}
        return terms, den

    def pow(self, x: Poly, e: int) -> Poly:
        """``x ** e`` for an integer e >= 0.

        Examples
        --------
        >>> dom = PackedTorus(1, 0)
        >>> dom.terms(dom.pow(dom.circle(0)[1], 3))  # s³ = s − c² s
        [(Fraction(-1, 1), {'c0': 2, 's0': 1}), (Fraction(1, 1), {'s0': 1})]
        """
        out = self.one
        base = x
        while e:
            if e & 1:
                out = self._mul2(out, base)
            e >>= 1
            if e:
                base = self._mul2(base, base)
        return out

    def inv(self, x: Poly) -> Poly:
        """Division is not available (the identities decided here are polynomial).

        Examples
        --------
        >>> PackedTorus(0, 0).inv(({0: 2}, 1))
        Traceback (most recent call last):
        ...
        ZeroDivisionError: the packed torus domain has no division
        """
        raise ZeroDivisionError("the packed torus domain has no division")

    def is_zero(self, x: Poly) -> bool:
        """Zero on the torus: the normal form (every value here is one) is empty.

        Examples
        --------
        >>> PackedTorus(0, 0).is_zero(PackedTorus(0, 0).zero)
        True
        """
        return not x[0]

    # -- derivatives ----------------------------------------------------------
    def diff(self, x: Poly, var: int) -> Poly:
        """∂x/∂(variable number ``var`` of the packed layout: 2i, 2i + 1 for cᵢ, sᵢ).

        Examples
        --------
        >>> dom = PackedTorus(0, 1)
        >>> y = dom.pow(dom.var(0), 3)
        >>> dom.diff(y, 0)
        ({2: 3}, 1)
        """
        terms, den = x
        shift = _BITS * var
        unit = self._unit[var]
        field = self._field
        out: dict[int, int] = {}
        for k, c in terms.items():
            e = (k >> shift) & field
            if e:
                out[k - unit] = c * e
        return (out, den) if out else self.zero

    def rate(
        self,
        x: Poly,
        moving: Sequence[tuple[int, Poly]],
        linear: Sequence[tuple[int, Poly]] = (),
    ) -> Poly:
        """The time derivative of ``x``: Σ over ``moving`` (circle i, its rate ω) of
        ω (cᵢ ∂x/∂sᵢ − sᵢ ∂x/∂cᵢ), plus Σ over ``linear`` (variable, its rate) of
        rate · ∂x/∂variable.

        Examples
        --------
        >>> dom = PackedTorus(1, 1)
        >>> c, s = dom.circle(0)
        >>> w = dom.var(0)
        >>> dom.terms(dom.rate(s, [(0, w)]))   # d/dt sin q = cos q · q̇
        [(Fraction(1, 1), {'c0': 1, 'x0': 1})]
        """
        parts = []
        for i, omega in moving:
            c, s = self.circle(i)
            ds = self.diff(x, 2 * i + 1)
            dc = self.diff(x, 2 * i)
            if ds[0]:
                parts.append(self.mul([omega, c, ds]))
            if dc[0]:
                parts.append(self.mul([self.const(Fraction(-1)), omega, s, dc]))
        for var, rate in linear:
            d = self.diff(x, var)
            if d[0]:
                parts.append(self.mul([rate, d]))
        return self.add(parts)

    # -- reading ----------------------------------------------------------------
    def terms(self, x: Poly) -> list[tuple[Fraction, dict[str, int]]]:
        """The terms as (coefficient, {variable name: exponent}), for reading and tests
        (cᵢ, sᵢ, then xⱼ for the further variables), sorted.

        Examples
        --------
        >>> from fractions import Fraction
        >>> PackedTorus(0, 1).terms(PackedTorus(0, 1).const(Fraction(2)))
        [(Fraction(2, 1), {})]
        """
        names = [f"{'cs'[k % 2]}{k // 2}" for k in range(2 * self.circles)]
        names += [f"x{j}" for j in range(self.width - 2 * self.circles)]
        terms, den = x
        out = []
        for k, c in terms.items():
            powers = {}
            for v in range(self.width):
                e = (k >> (_BITS * v)) & self._field
                if e:
                    powers[names[v]] = e
            out.append((Fraction(c, den), powers))
        return sorted(out, key=lambda t: (sorted(t[1].items()), t[0]))

    def __repr__(self) -> str:
        return f"PackedTorus(circles={self.circles}, others={self.width - 2 * self.circles})"
