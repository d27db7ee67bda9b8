r"""The derivation on canonical trigonometric-polynomial dictionaries: M, the Christoffel
symbols, C, g and h (the encoding is :mod:`lagdyn.trig.laurent`).

From the mass matrix :math:`M(q)` and the potential :math:`V(q)`, all as dictionaries
``{e: (A_e, B_e)}`` of one shared encoder:

.. math::

    \Gamma_{ijk} = \tfrac12(\partial_k m_{ij} + \partial_j m_{ik} - \partial_i m_{jk}),
    \qquad C_{ij} = \sum_k \Gamma_{ijk}\,\dot q_k, \qquad g_i = \partial_i V.

Derivatives are exact dictionary maps (:func:`lagdyn.trig.laurent.derivative`) and the
Christoffel symbols dictionary sums, so like terms cancel as they are formed and C never
swells; everything is rebuilt into compact sympy expressions at the end (coefficients
factored, the velocity sums of C grouped: :func:`split_quadratic`). :func:`derive` returns
a :class:`FastDerivation` whose attributes are computed lazily, with an exact skew proof of
:math:`\dot M - 2C` on the dictionaries (:meth:`FastDerivation.skew_proof`).

Examples
--------
The two-link arm, :math:`m_{11} = 2 + 2b\cos q_2`:

>>> import sympy
>>> q1, q2, qd1, qd2, b = sympy.symbols("q1 q2 qd1 qd2 b")
>>> M = sympy.Matrix([[2 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
...                   [1 + b*sympy.cos(q2), 1]])
>>> fd = derive(M, sympy.S.Zero, [q1, q2], [qd1, qd2])
>>> fd.christoffel[0][0][1], fd.C[0, 0]
(-b*sin(q2), -b*qd2*sin(q2))
>>> fd.skew_proof()
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import symengine as se
import sympy

from .convert import canonical_add as _add
from .convert import canonical_mul as _mul
from .laurent import (
    Encoder,
    Key,
    NotRepresentableError,
    TrigPoly,
    combine,
    dict_content,
    diff_poly,
    encoder_for,
    gradient,
    split_content,
)

_ZERO = se.Integer(0)
_ONE = se.Integer(1)
_HALF = se.Rational(1, 2)

__all__ = ["FastDerivation", "derive", "split_quadratic"]


def _christoffel(
    parts: tuple[TrigPoly, TrigPoly, TrigPoly],
    sums: dict[Any, Any],
    items: dict[int, list[tuple[Key, Any, Any]]] | None = None,
) -> TrigPoly:
    """``½(parts[0] + parts[1] − parts[2])``, each coefficient expanded once per distinct
    signed combination (``sums``, shared by every symbol of a derivation: the 10-link
    pendulum in joint angles has 6,732 coefficient sums and 180 distinct ones).

    ``items``: each part's ``(key, a or None, b or None)`` by ``id`` (a derivative enters
    up to 3n symbols: its zero coefficients are found once), shared by the calls."""
    acc: dict[Key, tuple[list[Any], list[Any]]] = {}
    for sign, poly in ((1, parts[0]), (1, parts[1]), (-1, parts[2])):
        for key, a, b in _nonzero_items(poly, items):
            slot = acc.get(key)
            if slot is None:
                slot = acc[key] = ([], [])
            if a is not None:
                slot[0].append((sign, a))
            if b is not None:
                slot[1].append((sign, b))
    out: TrigPoly = {}
    for key, (a_parts, b_parts) in acc.items():
        a = _half_sum(tuple(a_parts), sums)
        b = _half_sum(tuple(b_parts), sums)
        if a is not _ZERO or b is not _ZERO:
            out[key] = (a, b)
    return out


def _nonzero_items(
    poly: TrigPoly, memo: dict[int, list[tuple[Key, Any, Any]]] | None
) -> list[tuple[Key, Any, Any]]:
    """``(key, a, b)`` of a dictionary with its zero coefficients as ``None``, once per
    dictionary when ``memo`` (by ``id``; the dictionaries outlive it) is given."""
    found = None if memo is None else memo.get(id(poly))
    if found is None:
        found = [
            (key, None if a == _ZERO else a, None if b == _ZERO else b)
            for key, (a, b) in poly.items()
        ]
        if memo is not None:
            memo[id(poly)] = found
    return found


def _half_sum(signed: tuple[tuple[int, Any], ...], sums: dict[Any, Any]) -> Any:
    """``½ Σ sign · value`` expanded, memoized; exactly ``_ZERO`` when it vanishes."""
    if not signed:
        return _ZERO
    found = sums.get(signed)
    if found is None:
        value = se.expand(se.Add(*[(_HALF if s > 0 else -_HALF) * v for s, v in signed]))
        found = sums[signed] = _ZERO if value == _ZERO else value
    return found


def _velocity_factored(
    enc: Encoder, groups: dict[tuple[int, ...], Any], vel: Sequence[Any]
) -> sympy.Expr:
    """``Σ_e groups[e] v^e`` (``e`` exponent vectors of degree 2, values expanded and free
    of ``vel``) as content × parameter polynomial × two linear velocity forms when it
    splits that way; else the compact polynomial."""

    def whole() -> sympy.Expr:
        terms = []
        for expo, rest in groups.items():
            mono = se.Mul(*[v**e for v, e in zip(vel, expo) if e])
            terms.append(rest * mono)
        return enc.compact(se.expand(se.Add(*terms)))

    base_poly = None
    base_content = None
    ratios: dict[tuple[int, ...], Fraction] = {}
    for key, rest in groups.items():
        c_i, p_i = split_content(rest)
        if base_poly is None:
            base_poly, base_content = p_i, c_i
        elif p_i != base_poly:
            return whole()
        ratio = c_i / base_content
        if not ratio.is_Rational:
            return whole()
        ratios[key] = Fraction(int(ratio.p), int(ratio.q))
    split = split_quadratic(ratios, len(vel))
    if split is None or base_poly is None:
        return whole()
    scale, first, second = split
    scalar = se.Rational(scale.numerator, scale.denominator) * base_content
    return (
        enc.to_sympy(scalar)
        * enc.compact(base_poly)
        * _linear_form(enc, first, vel)
        * _linear_form(enc, second, vel)
    )


def _linear_form(enc: Encoder, coeffs: Sequence[int], vel: Sequence[Any]) -> sympy.Expr:
    return sympy.Add(*[c * enc.to_sympy(v) for c, v in zip(coeffs, vel) if c])


def split_quadratic(
    form: dict[tuple[int, ...], Fraction], n: int
) -> tuple[Fraction, list[int], list[int]] | None:
    """``Σ form[e] v^e`` (a rational quadratic form) as ``s · (aᵀv)(bᵀv)`` with coprime
    integer ``a``, ``b``, or None when it does not split over the rationals.

    Works in integers on the variables that occur: ``B = 2 L A`` with L the common
    denominator, so the O(n²) checks never touch ``Fraction``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> split_quadratic({(2, 0): Fraction(1), (1, 1): Fraction(2), (0, 2): Fraction(1)}, 2)
    (Fraction(1, 1), [1, 1], [1, 1])
    >>> split_quadratic({(2, 0): Fraction(1), (0, 2): Fraction(1)}, 2) is None   # v0² + v1²
    True
    """
    den = 1
    for r in form.values():
        den = den * r.denominator // math.gcd(den, r.denominator)
    B: dict[tuple[int, int], int] = {}
    support: set[int] = set()
    for expo, r in form.items():
        idx = [i for i, e in enumerate(expo) for _ in range(e)]
        i, j = idx
        support.update(idx)
        value = int(r * den)  # Q = Σ value · v^e / den
        if i == j:
            B[i, i] = B.get((i, i), 0) + 2 * value
        else:
            B[i, j] = B.get((i, j), 0) + value
            B[j, i] = B.get((j, i), 0) + value
    sup = sorted(support)

    def b(i: int, j: int) -> int:
        return B.get((i, j), 0)

    # vᵀBv = 2·den·Q; find vᵀBv = s (aᵀv)(bᵀv) in integers, then scale by 1/(2 den)
    diag = [i for i in sup if b(i, i)]
    a_vec = [0] * n
    b_vec = [0] * n
    if diag:
        x = diag[0]
        alpha = b(x, x)
        ell = {j: 2 * b(x, j) for j in sup if j != x}
        others = [j for j in sup if j != x]

        def dd(j: int, k: int) -> int:  # D = ℓℓᵀ − 4αR
            return ell[j] * ell[k] - 4 * alpha * b(j, k)

        pivot = next((j for j in others if dd(j, j)), None)
        d: dict[int, Fraction] = {j: Fraction(0) for j in others}
        if pivot is None:
            if any(dd(j, k) for j in others for k in others):
                return None
        else:
            s0 = dd(pivot, pivot)
            root = math.isqrt(s0) if s0 > 0 else -1
            if root < 0 or root * root != s0:
                return None
            row = {k: dd(pivot, k) for k in others}
            if any(dd(j, k) * s0 != row[j] * row[k] for j in others for k in others):
                return None
            d = {k: Fraction(row[k], root) for k in others}
        first = [Fraction(0)] * n
        second = [Fraction(0)] * n
        for j in others:
            first[j] = ell[j] - d[j]
            second[j] = ell[j] + d[j]
        first[x] = second[x] = Fraction(2 * alpha)
        scale = Fraction(1, 4 * alpha)  # vᵀBv = first·second / (4α)
    else:
        cross = next((i for i in sup if any(b(i, j) for j in sup)), None)
        if cross is None or any(b(j, k) for j in sup for k in sup if cross not in (j, k)):
            return None
        x = cross
        first = [Fraction(int(j == x)) for j in range(n)]
        second = [Fraction(2 * b(x, j)) for j in range(n)]
        scale = Fraction(1)
    a_vec, sa = _integer_form(first)
    b_vec, sb = _integer_form(second)
    scale = scale * sa * sb / (2 * den)
    # exact check in integers: 2·den·Q = vᵀBv must equal 2·den·scale·(a·v)(b·v)
    k2 = scale * 2 * den
    for j in sup:
        for k in sup:
            if (a_vec[j] * b_vec[k] + a_vec[k] * b_vec[j]) * k2 != 2 * b(j, k):
                return None
    if any(a_vec[j] or b_vec[j] for j in range(n) if j not in support):
        return None
    return scale, a_vec, b_vec


def _integer_form(coeffs: Sequence[Fraction]) -> tuple[list[int], Fraction]:
    """Coprime integers ``c`` and a scale ``s`` with ``coeffs = s · c``, first nonzero c > 0."""
    den = 1
    for c in coeffs:
        den = den * c.denominator // math.gcd(den, c.denominator)
    ints = [int(c * den) for c in coeffs]
    g = 0
    for value in ints:
        g = math.gcd(g, abs(value))
    g = g or 1
    lead = next((value for value in ints if value), 1)
    sign = -1 if lead < 0 else 1
    return [sign * value // g for value in ints], Fraction(sign * g, den)


class FastDerivation:
    """Mass matrix, Christoffel symbols, ``C`` and ``g`` from canonical dictionaries.

    Built by :func:`derive`; every attribute is computed once, lazily.

    Attributes
    ----------
    M : sympy.ImmutableMatrix
        ``(n, n)`` mass matrix in compact canonical form (equal to the input).
    christoffel : tuple
        ``christoffel[i][j][k]`` = Γ of the first kind,
        ``½(∂m_ij/∂q_k + ∂m_ik/∂q_j − ∂m_jk/∂q_i)``.
    C : sympy.ImmutableMatrix
        ``(n, n)`` Coriolis matrix, ``C[i, j] = Σ_k Γ[i][j][k] qd_k``.
    g : sympy.ImmutableMatrix
        ``(n, 1)`` gravity column ``∂V/∂q``.
    dM : dict
        ``(i, j, k) -> ∂m_ij/∂q_k`` for ``i <= j``.

    Examples
    --------
    >>> import sympy
    >>> q1, q2, qd1, qd2, b = sympy.symbols("q1 q2 qd1 qd2 b")
    >>> M = sympy.Matrix([[2 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
    ...                   [1 + b*sympy.cos(q2), 1]])
    >>> fd = derive(M, sympy.S.Zero, [q1, q2], [qd1, qd2])
    >>> fd.C[1, 0]
    b*qd1*sin(q2)
    >>> fd.skew_proof()
    True
    """

    def __init__(
        self,
        encoder: Encoder,
        qd: Sequence[sympy.Basic],
        m_polys: dict[tuple[int, int], TrigPoly],
        d_polys: dict[tuple[int, int, int], TrigPoly],
        gamma_polys: dict[tuple[int, int, int], TrigPoly],
        g_source: list[TrigPoly] | sympy.Expr,
    ) -> None:
        self._enc = encoder
        self.q = encoder.q
        self.qd = tuple(qd)
        self.n = encoder.n
        self._m = m_polys
        self._d = d_polys
        self._gamma = gamma_polys
        self._g_source = g_source
        self._term_memo: dict[tuple[Any, ...], sympy.Expr] = {}
        self._split_memo: dict[int, tuple[TrigPoly, tuple[frozenset[Any], list[Any]]]] = {}

    def _mp(self, i: int, j: int) -> TrigPoly:
        return self._m[(i, j) if i <= j else (j, i)]

    def _gp(self, i: int, j: int, k: int) -> TrigPoly:
        return self._gamma[(i, j, k) if j <= k else (i, k, j)]

    @cached_property
    def M(self) -> sympy.ImmutableMatrix:
        """Mass matrix rebuilt from the canonical dictionaries.

        Examples
        --------
        >>> import sympy
        >>> q1, q2, qd1, qd2, b, g = sympy.symbols("q1 q2 qd1 qd2 b g")
        >>> M = sympy.Matrix([[2 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
        ...                   [1 + b*sympy.cos(q2), 1]])
        >>> fd = derive(M, -g * sympy.cos(q1), [q1, q2], [qd1, qd2])
        >>> fd.M[0, 0]
        2*b*cos(q2) + 2
        """
        n = self.n
        cells = {(i, j): self._enc.rebuild(self._m[(i, j)]) for i in range(n) for j in range(i, n)}
        # a flat list, not a function of (i, j): sympy would call it with sympy Integers
        return sympy.ImmutableMatrix(
            n, n, [cells[(i, j) if i <= j else (j, i)] for i in range(n) for j in range(n)]
        )

    @cached_property
    def dM(self) -> dict[tuple[int, int, int], sympy.Expr]:
        """``(i, j, k) -> ∂m_ij/∂q_k`` for ``i <= j``.

        Examples
        --------
        >>> import sympy
        >>> q1, q2, qd1, qd2, b, g = sympy.symbols("q1 q2 qd1 qd2 b g")
        >>> M = sympy.Matrix([[2 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
        ...                   [1 + b*sympy.cos(q2), 1]])
        >>> fd = derive(M, -g * sympy.cos(q1), [q1, q2], [qd1, qd2])
        >>> fd.dM[0, 0, 1]
        -2*b*sin(q2)
        """
        return {key: self._enc.rebuild(poly) for key, poly in self._d.items()}

    @cached_property
    def christoffel(self) -> tuple[tuple[tuple[sympy.Expr, ...], ...], ...]:
        """Christoffel symbols of the first kind, ``[i][j][k]``.

        Examples
        --------
        >>> import sympy
        >>> q1, q2, qd1, qd2, b, g = sympy.symbols("q1 q2 qd1 qd2 b g")
        >>> M = sympy.Matrix([[2 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
        ...                   [1 + b*sympy.cos(q2), 1]])
        >>> fd = derive(M, -g * sympy.cos(q1), [q1, q2], [qd1, qd2])
        >>> fd.christoffel[0][0][1]          # ½ ∂m_00/∂q_2
        -b*sin(q2)
        """
        n = self.n
        built = {key: self._enc.rebuild(poly) for key, poly in self._gamma.items()}
        return tuple(
            tuple(
                tuple(built[(i, j, k) if j <= k else (i, k, j)] for k in range(n)) for j in range(n)
            )
            for i in range(n)
        )

    @cached_property
    def C(self) -> sympy.ImmutableMatrix:
        """Coriolis matrix ``C[i, j] = Σ_k Γ[i][j][k] qd_k``, grouped compactly.

        Examples
        --------
        >>> import sympy
        >>> q1, q2, qd1, qd2, b, g = sympy.symbols("q1 q2 qd1 qd2 b g")
        >>> M = sympy.Matrix([[2 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
        ...                   [1 + b*sympy.cos(q2), 1]])
        >>> fd = derive(M, -g * sympy.cos(q1), [q1, q2], [qd1, qd2])
        >>> fd.C[0, 1]
        -b*(qd1 + qd2)*sin(q2)
        """
        n = self.n
        return sympy.ImmutableMatrix(
            n,
            n,
            [
                self._velocity_sum([self._gp(i, j, k) for k in range(n)])
                for i in range(n)
                for j in range(n)
            ],
        )

    def _velocity_sum(self, polys: Sequence[TrigPoly]) -> sympy.Expr:
        """Rebuild ``Σ_k polys[k] * qd_k`` compactly.

        When every nonzero ``polys[k]`` is proportional to one dictionary ``P``
        the result is ``P * Σ_k c_k qd_k``; otherwise velocities are collected
        per trigonometric term.
        """
        by_velocity = self._by_velocity(polys)
        return by_velocity if by_velocity is not None else self._by_key(polys)

    def _by_velocity(self, polys: Sequence[TrigPoly]) -> sympy.Expr | None:
        enc = self._enc
        # one shared primitive needs at least two nonzero dictionaries with the same
        # frequencies in the same slots (dividing by a content keeps both): check that
        # first, before any content is computed
        shapes = {self._split_terms(poly)[0] for poly in polys if poly}
        if len(shapes) != 1 or sum(1 for poly in polys if poly) < 2:
            return None
        groups: dict[frozenset[Any], list[tuple[Any, int]]] = {}
        primitives: dict[frozenset[Any], TrigPoly] = {}
        for k, poly in enumerate(polys):
            if not poly:
                continue
            content = dict_content(poly)
            if content == _ONE:
                primitive = poly
            else:
                primitive = {
                    key: (se.expand(a / content), se.expand(b / content))
                    for key, (a, b) in poly.items()
                }
            signature = frozenset(primitive.items())
            if signature not in groups:
                groups[signature] = []
                primitives[signature] = primitive
            groups[signature].append((content, k))
        if len(groups) != 1 or len(next(iter(groups.values()))) < 2:
            return None  # not a single shared factor: group by trig term instead
        parts = []
        for signature, members in groups.items():
            vel = se.expand(se.Add(*[c * enc.symbol(self.qd[k]) for c, k in members]))
            # (canonical_mul: the product sympy's Mul gives, without its evaluation)
            parts.append(_mul([enc.compact(vel), enc.rebuild(primitives[signature])]))
        return sympy.Add(*parts)

    def _split_terms(self, poly: TrigPoly) -> tuple[frozenset[Any], list[Any]]:
        """A dictionary's shape (frequency, whether each slot is nonzero) and the
        ``((frequency, slot), content, primitive)`` of its nonzero coefficients in its
        order; once per dictionary (the entries of C read the shared Christoffel
        dictionaries again and again: the 8-link chain in joint angles 512 reads, 120
        distinct)."""
        found = self._split_memo.get(id(poly))
        if found is not None:
            return found[1]
        terms = []
        for key, pair in poly.items():
            for slot in (0, 1):
                value = pair[slot]
                if value != _ZERO:
                    content, primitive = split_content(value)
                    terms.append(((key, slot), content, primitive))
        shape = frozenset((key, a != _ZERO, b != _ZERO) for key, (a, b) in poly.items())
        self._split_memo[id(poly)] = (poly, (shape, terms))  # (kept alive: its id stays)
        return shape, terms

    def _velocity_content(self, members: list[tuple[Any, int]]) -> tuple[Any, Any]:
        """``split_content`` of ``Σ c v_k`` over ``members`` ``(c, k)``, the ``c`` contents
        (a rational times a monomial, signed as split_content signs them, free of the
        velocities). Without the expansion when the split is known: one member is all
        content, ``(c v_k, 1)``; equal contents are the content, ``(c, Σ v_k)`` (the 8-link
        chain in joint angles: 83 sums, 69 of equal contents, 14 single)."""
        vel = [self._enc.symbol(self.qd[k]) for _, k in members]
        first = members[0][0]
        if len(members) == 1:
            return first * vel[0], _ONE
        if all(c == first for c, _ in members):
            return first, se.Add(*vel)
        return split_content(se.expand(se.Add(*[c * v for (c, _), v in zip(members, vel)])))

    def _by_key(self, polys: Sequence[TrigPoly]) -> sympy.Expr:
        enc = self._enc
        # one pass over the dictionaries: (frequency, slot) -> primitive -> [(content, k)]
        # (dicts keep insertion order, so primitives stay in the order of k)
        buckets: dict[tuple[Key, int], dict[Any, list[tuple[Any, int]]]] = {}
        for k, poly in enumerate(polys):
            for where, content, primitive in self._split_terms(poly)[1]:
                groups = buckets.get(where)
                if groups is None:
                    groups = buckets[where] = {}
                members = groups.get(primitive)
                if members is None:
                    groups[primitive] = [(content, k)]
                else:
                    members.append((content, k))
        terms = []
        memo = self._term_memo
        for key, slot in sorted(buckets):
            groups = buckets[(key, slot)]
            # the same term recurs across the entries of C (the 10-link chain in joint
            # angles: 1,815 terms, 135 distinct): built once
            signature = (key, slot, *((p, *m) for p, m in groups.items()))
            found = memo.get(signature)
            if found is not None:
                terms.append(found)
                continue
            parts = []
            for primitive, members in groups.items():
                vel_content, vel_rest = self._velocity_content(members)
                outer = se.expand(vel_content * primitive)
                parts.append([enc.compact(outer), enc.to_sympy(vel_rest)])
            trig = [enc.trig_function(key, slot)] if any(key) else []
            first = parts[0]
            if len(parts) == 1 and trig and not (first[0].is_Number and first[1].is_Add):
                # one product (the usual case), built once: the same object as the
                # product of products, which sympy flattens (it only differs when the
                # inner one distributes a number over a sum, -(a + b)/2)
                term = _mul(first + trig)
            else:
                factor = _add([_mul(p) for p in parts])
                term = _mul([factor, *trig]) if trig else factor
            memo[signature] = term
            terms.append(term)
        return _add(terms)

    @cached_property
    def g(self) -> sympy.ImmutableMatrix:
        """Gravity column ``∂V/∂q``.

        Examples
        --------
        >>> import sympy
        >>> q1, q2, qd1, qd2, b, g = sympy.symbols("q1 q2 qd1 qd2 b g")
        >>> M = sympy.Matrix([[2 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
        ...                   [1 + b*sympy.cos(q2), 1]])
        >>> fd = derive(M, -g * sympy.cos(q1), [q1, q2], [qd1, qd2])
        >>> fd.g
        Matrix([
        [g*sin(q1)],
        [        0]])
        """
        if isinstance(self._g_source, list):
            return sympy.ImmutableMatrix([self._enc.rebuild(p) for p in self._g_source])
        V = self._g_source
        # coordinates are real: differentiate with real stand-ins, so ∂|q|/∂q = sign(q)
        # (sympy differentiates Abs of a symbol of unknown sign through re and im)
        real = [sympy.Dummy(f"q{k}", real=True) for k in range(len(self.q))]
        Vr = V.xreplace(dict(zip(self.q, real)))
        back = dict(zip(real, self.q))
        return sympy.ImmutableMatrix([sympy.diff(Vr, r).xreplace(back) for r in real])

    @cached_property
    def h(self) -> sympy.ImmutableMatrix:
        """The vector ``C qd + g`` built directly, ``(n, 1)``, factored per trig term.

        ``h_i = Σ_{j,k} Γ_ijk qd_j qd_k + g_i``: for each frequency the coefficient is a
        quadratic form in the velocities times a parameter polynomial; where it splits into
        two rational linear forms (as it does for serial chains, e.g.
        ``(qd2 + qd3)(2 qd1 + qd2 + qd3)``) it is printed as that product, which is far
        smaller than ``C * qd``. Mathematically equal to ``C * qd + g``.

        Examples
        --------
        >>> import sympy
        >>> q1, q2, v1, v2, b = sympy.symbols("q1 q2 v1 v2 b")
        >>> M = sympy.Matrix([[3 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
        ...                   [1 + b*sympy.cos(q2), 1]])
        >>> derive(M, sympy.S.Zero, [q1, q2], [v1, v2]).h[0]
        -b*v2*(2*v1 + v2)*sin(q2)
        """
        n = self.n
        enc = self._enc
        vel = [enc.symbol(v) for v in self.qd]
        g_polys = self._g_source if isinstance(self._g_source, list) else None
        rows = []
        two = se.Integer(2)
        for i in range(n):
            # per frequency and slot: velocity monomial v_j v_k -> its coefficient, read
            # off Γ_ijk directly (Γ is free of the velocities, so nothing is expanded)
            acc: dict[Key, tuple[dict[tuple[int, ...], Any], dict[tuple[int, ...], Any]]] = {}
            for j in range(n):
                for k in range(j, n):
                    poly = self._gamma[(i, j, k)]
                    if not poly:
                        continue
                    expo = [0] * n
                    expo[j] += 1
                    expo[k] += 1
                    monomial = tuple(expo)
                    for key, (a, b) in poly.items():
                        slot = acc.setdefault(key, ({}, {}))
                        if a != _ZERO:
                            slot[0][monomial] = a if j == k else se.expand(two * a)
                        if b != _ZERO:
                            slot[1][monomial] = b if j == k else se.expand(two * b)
            terms = []
            for key in sorted(acc):
                for kind, groups in enumerate(acc[key]):
                    if not groups:
                        continue
                    factor = _velocity_factored(enc, groups, vel)
                    terms.append(factor * enc.trig_function(key, kind) if any(key) else factor)
            row = sympy.Add(*terms)
            if g_polys is not None:
                row += enc.rebuild(g_polys[i])
            else:
                row += self.g[i]
            rows.append(row)
        return sympy.ImmutableMatrix(rows)

    def skew_proof(self) -> bool:
        """Prove ``N + Nᵀ = 0`` for ``N = Ṁ − 2C`` exactly, on the dictionaries.

        ``M`` is free of the velocities, so ``N_ij + N_ji = 2 Σ_k (∂_k m_ij − Γ_ijk
        − Γ_jik) qd_k`` vanishes identically exactly when ``Γ_ijk + Γ_jik`` and
        ``∂_k m_ij`` have the same canonical dictionary for every ``k``.

        Returns
        -------
        bool
            ``True`` when the identity holds (it always does for Christoffel ``C``).

        Examples
        --------
        >>> import sympy
        >>> q, qd, m = sympy.symbols("q qd m")
        >>> derive(sympy.Matrix([[m]]), q**2, [q], [qd]).skew_proof()
        True
        """
        n = self.n
        for i in range(n):
            for j in range(i, n):
                for k in range(n):
                    # canonical forms: equal dictionaries <=> equal functions
                    both = combine([(1, self._gp(i, j, k)), (1, self._gp(j, i, k))])
                    if both != self._d[(i, j, k)]:
                        return False
        return True


def derive(
    M: sympy.MatrixBase | None,
    V: sympy.Expr,
    q: Sequence[sympy.Symbol],
    qd: Sequence[sympy.Symbol],
    *,
    polys: tuple[Any, dict[tuple[int, int], TrigPoly]] | None = None,
    rates_checked: bool = False,
) -> FastDerivation | None:
    """Derive Christoffel symbols, ``C`` and ``g`` in canonical trig-polynomial form.

    Parameters
    ----------
    M : sympy.Matrix or None
        ``(n, n)`` symmetric mass matrix in the symbols ``q`` (free of ``qd``); not read
        (may be ``None``) when ``polys`` is given.
    V : sympy.Expr
        Potential energy; need not be representable (then ``g`` uses ``sympy.diff``).
    q, qd : sequence of sympy.Symbol
        Coordinates and velocities (plain symbols, length ``n``).
    polys : (encoder, dictionaries), optional
        M's upper triangle already in canonical form (``(i, j) -> dictionary`` in the
        encoder's space, as :mod:`lagdyn.kinematics` assembles it): used as it is, M is
        not encoded again.
    rates_checked : bool, optional
        The caller has already checked that M is free of ``qd`` (a system splitting its
        Lagrangian does): the scan of every entry's free symbols is skipped.

    Returns
    -------
    FastDerivation or None
        ``None`` when an entry of ``M`` is not a trigonometric polynomial with
        polynomial coefficients (the caller should use a general path).

    Examples
    --------
    >>> import sympy
    >>> q1, q2, qd1, qd2, m, l = sympy.symbols("q1 q2 qd1 qd2 m l", positive=True)
    >>> M = sympy.Matrix([[2*m*l**2, m*l**2*sympy.cos(q1 - q2)],
    ...                   [m*l**2*sympy.cos(q1 - q2), m*l**2]])
    >>> fd = derive(M, -m*l*(2*sympy.cos(q1) + sympy.cos(q2)), [q1, q2], [qd1, qd2])
    >>> fd.C
    Matrix([
    [                      0, l**2*m*qd2*sin(q1 - q2)],
    [-l**2*m*qd1*sin(q1 - q2),                       0]])
    >>> fd.g.T
    Matrix([[2*l*m*sin(q1), l*m*sin(q2)]])
    >>> derive(sympy.Matrix([[sympy.exp(q1)]]), 0, [q1], [qd1]) is None
    True
    """
    q = tuple(q)
    qd = tuple(qd)
    n = len(q)
    if len(qd) != n:
        raise ValueError(f"qd must have length {n}; got {len(qd)}")
    V = sympy.sympify(V)
    if polys is not None:  # M is not read: its dictionaries are given
        encoder, m_polys = polys
        v_ok = encoder.extend([V])
    else:
        M = sympy.Matrix(M)
        if M.shape != (n, n):
            raise ValueError(f"M must be ({n}, {n}); got {M.shape}")
        entries = {(i, j): M[i, j] for i in range(n) for j in range(i, n)}
        qd_set = set(qd)
        if not rates_checked and any(
            not qd_set.isdisjoint(e.free_symbols) for e in entries.values()
        ):
            return None
        found = encoder_for(list(entries.values()), q)
        if found is None:
            return None
        encoder = found
        v_ok = encoder.extend([V])
        try:
            m_polys = {key: encoder.decode(encoder.encode(e)) for key, e in entries.items()}
        except NotRepresentableError:
            return None
    g_source: list[TrigPoly] | sympy.Expr = V
    if v_ok:
        try:
            v_poly = encoder.decode(encoder.encode(V))
        except NotRepresentableError:
            v_poly = None
        if v_poly is not None:
            g_source = [diff_poly(encoder, v_poly, k) for k in range(n)]
    # Equal derivatives are one object, and a Christoffel symbol is formed once per
    # distinct triple of them: in a chain most coincide (the 10-link pendulum in joint
    # angles has 550 derivatives, 331 distinct, and 550 symbols, 91 distinct). The
    # dictionaries are never mutated, so sharing them is safe.
    interned: dict[frozenset[Any], TrigPoly] = {}
    d_polys: dict[tuple[int, int, int], TrigPoly] = {}
    scaled: dict[Any, Any] = {}
    for i, j in m_polys:
        for k, poly in enumerate(gradient(encoder, m_polys[(i, j)], scaled)):
            d_polys[(i, j, k)] = interned.setdefault(frozenset(poly.items()), poly)

    def d(i: int, j: int, k: int) -> TrigPoly:
        return d_polys[(i, j, k) if i <= j else (j, i, k)]

    # Equal symbols are one object too (the 8-link chain in joint angles: 288 symbols
    # from 281 distinct triples, 57 distinct dictionaries), so the entries of C split
    # each once
    combined: dict[tuple[int, int, int], TrigPoly] = {}
    sums: dict[tuple[Any, ...], Any] = {}
    gamma_polys: dict[tuple[int, int, int], TrigPoly] = {}
    distinct: dict[frozenset[Any], TrigPoly] = {}
    items: dict[int, list[tuple[Key, Any, Any]]] = {}  # (the d_polys stay alive)
    for i in range(n):
        for j in range(n):
            for k in range(j, n):
                parts = (d(i, j, k), d(i, k, j), d(j, k, i))
                ids = (id(parts[0]), id(parts[1]), id(parts[2]))
                gamma = combined.get(ids)
                if gamma is None:
                    gamma = _christoffel(parts, sums, items)
                    gamma = combined[ids] = distinct.setdefault(frozenset(gamma.items()), gamma)
                gamma_polys[(i, j, k)] = gamma
    return FastDerivation(encoder, qd, m_polys, d_polys, gamma_polys, g_source)
