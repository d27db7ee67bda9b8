r"""Exact identities on trigonometric polynomials: zero tests, the canonical form, the
skew symmetry of Ṁ − 2C and the energy balance.

Every question here is "is this expression identically zero?", answered in a canonical
form where zero is the empty form, so a ``True`` is a proof and a ``False`` a proof of
the opposite:

* :func:`is_zero` and :func:`canonical`: the Laurent encoding
  (:mod:`lagdyn.trig.laurent`), any trigonometric polynomial;
* :func:`skew_per_frequency`, :func:`energy_per_frequency`: the per-frequency form
  (:mod:`lagdyn.trig.linear`), for expressions linear in their trigonometric atoms (the
  M, C, g, L lagdyn returns), half the terms and no complex numbers;
* :func:`skew_identity`: :math:`\dot M - 2C` skew, i.e.
  :math:`\dot m_{ij} = C_{ij} + C_{ji}` with :math:`\dot m_{ij} = \sum_k \partial_k m_{ij}\,
  \dot q_k`, per frequency, else in the Laurent encoding;
* :func:`passivity_identity`: :math:`dE/dt = \dot q^T(M\ddot q + C\dot q + G\dot q + g)`
  for :math:`E = \dot q^T\partial L/\partial\dot q - L`, split by degree in
  :math:`(\dot q, \ddot q)`;
* :func:`decide_zero`: the whole ladder for any expression (per frequency, Laurent,
  ``symengine.expand``, a numeric counterexample, ``simplify``), three-valued: ``True``
  proved, ``False`` refuted, ``None`` undecided. :mod:`lagdyn.structure` asks it once per
  question.

Examples
--------
>>> import sympy
>>> x, y = sympy.symbols("x y")
>>> is_zero(sympy.cos(x + y) - sympy.cos(x)*sympy.cos(y) + sympy.sin(x)*sympy.sin(y), [x, y])
True
>>> canonical(sympy.sin(x)**4 - sympy.cos(x)**4, [x])
-cos(2*x)
>>> decide_zero([sympy.sin(2*x) - 2*sympy.sin(x)*sympy.cos(x), sympy.exp(x)], [x])
False
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from typing import Any

import symengine as se
import sympy

from .laurent import (
    Encoder,
    NotRepresentableError,
    encoder_for,
)
from .linear import Form, LinearTrigEncoder, NotLinearError, combine, is_zero_form

_ZERO = se.Integer(0)
_ONE = se.Integer(1)
_HALF = se.Rational(1, 2)

__all__ = [
    "canonical",
    "decide_zero",
    "energy_per_frequency",
    "is_zero",
    "passivity_identity",
    "skew_identity",
    "skew_per_frequency",
]

log = logging.getLogger("lagdyn")


def is_zero(expr: sympy.Expr, q: Sequence[sympy.Basic]) -> bool | None:
    """Decide exactly whether a trigonometric polynomial is identically zero.

    Parameters
    ----------
    expr : sympy.Expr
        A trigonometric polynomial in ``q`` with polynomial coefficients (in
        ``q``, parameters, velocities, ...).
    q : sequence of sympy.Symbol
        The angle-carrying coordinates.

    Returns
    -------
    bool or None
        ``True`` / ``False``, or ``None`` if ``expr`` is not representable.

    Examples
    --------
    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> is_zero(sympy.sin(x - y)**2 + sympy.cos(y - x)**2 - 1, [x, y])
    True
    >>> is_zero(sympy.sin(2*x) - sympy.sin(x)*sympy.cos(x), [x])
    False
    >>> is_zero(sympy.exp(x), [x]) is None
    True
    """
    expr = sympy.sympify(expr)
    encoder = encoder_for([expr], q)
    if encoder is None:
        return None
    try:
        laurent = encoder.encode(expr)
    except NotRepresentableError:
        return None
    return bool(laurent == _ZERO)


def decide_zero(
    exprs: sympy.Expr | Iterable[sympy.Expr],
    q: Sequence[sympy.Basic],
    *,
    refute: bool = True,
    simplify: bool = True,
) -> bool | None:
    """Decide whether every expression of ``exprs`` vanishes identically: the zero-test
    ladder, each rung tried only when the ones before cannot decide.

    1. the per-frequency form (:mod:`lagdyn.trig.linear`), for expressions linear in
       their trigonometric atoms: exact, True or False;
    2. the Laurent canonical form (:func:`is_zero`): exact, True or False;
    3. ``symengine.expand`` (any expression symengine holds): True when it gives 0;
    4. with ``refute``: the value at three random points (positive symbols in [0.5, 2],
       others in [−3, 3], 17 digits): False when it is clearly nonzero there;
    5. with ``simplify``: sympy's ``simplify`` (logged as a warning, it can be slow): True
       when it gives 0.

    Parameters
    ----------
    exprs : sympy.Expr or iterable of sympy.Expr
        The residuals of one question (all must vanish).
    q : sequence of sympy objects
        The angle-carrying coordinates (plain symbols or ``q(t)``).
    refute : bool
        Try rung 4 (a numeric counterexample).
    simplify : bool
        Try rung 5.

    Returns
    -------
    bool or None
        True when every expression is proved zero; False when one is proved nonzero;
        None when the first expression no rung decides is reached (the ones after it are
        not tried).

    Examples
    --------
    >>> import sympy
    >>> x, y, a = sympy.symbols("x y a")
    >>> decide_zero(a * sympy.sin(x - y) + a * sympy.sin(y - x), [x, y])   # rung 1
    True
    >>> decide_zero([sympy.sin(x)**2 + sympy.cos(x)**2 - 1, sympy.sin(2*x)], [x])  # rung 2
    False
    >>> decide_zero(sympy.exp(2*x) - sympy.exp(x)**2, [x])          # rung 3
    True
    >>> decide_zero(sympy.exp(x) - 1 - x, [x], simplify=False)      # rung 4
    False
    >>> print(decide_zero(sympy.exp(x) - 1 - x, [x], refute=False, simplify=False))
    None
    """
    items = [exprs] if isinstance(exprs, sympy.Basic) else list(exprs)
    qs = list(q)
    lin: LinearTrigEncoder | None = None
    for expr in items:
        expr = sympy.sympify(expr)
        if expr == 0:
            continue
        if lin is None:
            lin = LinearTrigEncoder(qs)
        verdict = _decide_one(expr, qs, lin, refute, simplify)
        if verdict is not True:
            return verdict
    return True


def _decide_one(
    expr: sympy.Expr, q: list[sympy.Basic], lin: LinearTrigEncoder, refute: bool, simplify: bool
) -> bool | None:
    try:
        return is_zero_form(lin.form(expr))
    except NotLinearError:
        pass
    verdict = is_zero(expr, q)
    if verdict is not None:
        return verdict
    try:
        if se.expand(se.sympify(expr)) == 0:
            return True
    except Exception:  # symengine cannot hold some sympy objects
        log.debug("symengine could not expand %s", expr)
    if refute:
        values = _numeric_values(expr, random.Random(2024))
        if values is not None:
            scale = 1.0 + max(values)
            if any(v > 1e-9 * scale for v in values):
                return False
    if simplify:
        log.warning("lagdyn: falling back to sympy.simplify for one residual")
        if sympy.simplify(expr) == 0:
            return True
    return None


def _numeric_values(expr: sympy.Expr, rng: random.Random, n_points: int = 3) -> list[float] | None:
    """|expr| at random points (positive symbols in [0.5, 2], others in [−3, 3])."""
    syms = sorted(expr.free_symbols, key=str)
    vals = []
    for _ in range(n_points):
        point = {
            s: rng.uniform(0.5, 2.0) if s.is_positive else rng.uniform(-3.0, 3.0) for s in syms
        }
        try:
            v = complex(sympy.N(expr.xreplace({s: sympy.Float(x) for s, x in point.items()}), 17))
        except (TypeError, ValueError):
            return None
        vals.append(abs(v))
    return vals


def canonical(expr: sympy.Expr, q: Sequence[sympy.Basic]) -> sympy.Expr | None:
    """Rebuild ``expr`` in canonical compact trig-polynomial form.

    Parameters
    ----------
    expr : sympy.Expr
        Expression to normalize.
    q : sequence of sympy.Symbol
        The angle-carrying coordinates.

    Returns
    -------
    sympy.Expr or None
        ``Σ A_e cos(e·q) + B_e sin(e·q)`` with factored coefficients, or ``None``
        if ``expr`` is not representable.

    Examples
    --------
    >>> import sympy
    >>> x, a = sympy.symbols("x a")
    >>> canonical(2*a*sympy.sin(x)*sympy.cos(x), [x])
    a*sin(2*x)
    >>> canonical(sympy.cos(x)**2 - sympy.sin(x)**2, [x])
    cos(2*x)
    """
    expr = sympy.sympify(expr)
    encoder = encoder_for([expr], q)
    if encoder is None:
        return None
    try:
        poly = encoder.decode(encoder.encode(expr))
    except NotRepresentableError:
        return None
    return encoder.rebuild(poly)


def passivity_identity(
    L: sympy.Expr,
    parts: Sequence[sympy.MatrixBase],
    q: Sequence[sympy.Basic],
    qd: Sequence[sympy.Basic],
    qdd: Sequence[sympy.Basic],
) -> bool | None:
    """Decide exactly whether dE/dt = q̇ᵀ(M q̈ + C q̇ + G q̇ + g) for E = q̇ᵀ∂L/∂q̇ − L.

    ``parts`` is (M, C, G, g). Write L = L₂ + L₁ + L₀ by degree in q̇ (a term of another
    degree answers None). Then E = L₂ − L₀ and the residual splits by degree in (q̇, q̈)
    into three identities, each decided in canonical form:

    * q̈-linear: L₂ = ½ q̇ᵀ M q̇ (M is L's Hessian in q̇);
    * q̇-linear: ∂(−L₀)/∂q = g;
    * q̇-cubic: q̇ᵀ(C + G)q̇ = ½ q̇ᵀṀq̇ as polynomials in q̇. It follows from G + Gᵀ = 0
      and Ṁ = C + Cᵀ (:func:`skew_identity`, cached), both decided exactly; when either
      fails the cubic identity itself is expanded (C may contain q̇, so it is weaker
      than Ṁ − 2C skew).

    Everything is encoded once (q(t), q̇(t) as they are, no substitution). Returns None
    when an expression is not representable.

    Examples
    --------
    >>> import sympy
    >>> q, v, a, m, k = sympy.symbols("q v a m k")
    >>> L = m * v**2 / 2 - k * q**2 / 2
    >>> parts = (sympy.Matrix([[m]]), sympy.Matrix([[0]]), sympy.Matrix([[0]]),
    ...          sympy.Matrix([k * q]))
    >>> passivity_identity(L, parts, [q], [v], [a])
    True
    >>> passivity_identity(L, parts[:3] + (sympy.Matrix([2 * k * q]),), [q], [v], [a])
    False
    """
    n = len(q)
    M, C, G, g = (sympy.ImmutableMatrix(p) for p in parts)
    extra = (L, *G, *g)
    verdict = energy_per_frequency(L, M, g, q, qd)
    if verdict is None:  # not linear in its trigonometric atoms: the Laurent encoding
        forms = _forms(M, C, q, extra)
        if forms is None:
            return None
        verdict = _energy_laurent(*forms, L, g, qd)
        if verdict is None:
            return None
    if not verdict:
        return False
    # q̇ᵀ(C + G)q̇ = ½ q̇ᵀṀq̇ follows from two exact facts when both hold: G + Gᵀ = 0 and
    # Ṁ = C + Cᵀ entrywise (skew_identity, cached: the skew proof has usually just run)
    pairs = [(i, j) for i in range(n) for j in range(i, n) if G[i, j] != 0 or G[j, i] != 0]
    forms = _forms(M, C, q, extra) if pairs else None
    if pairs and forms is None:
        return None
    try:
        g_skew = forms is None or all(
            se.expand(forms[0].encode(G[i, j]) + forms[0].encode(G[j, i])) == _ZERO
            for i, j in pairs
        )
    except NotRepresentableError:
        return None
    if g_skew and skew_identity(M, C, q, qd, extra=extra):
        return True
    # otherwise decide the cubic identity itself (C may contain q̇: a C that is not
    # Christoffel-consistent can still satisfy it): ½ q̇ᵀṀq̇ against q̇ᵀ(C + G)q̇
    forms = _forms(M, C, q, extra)
    if forms is None:
        return None
    encoder, Me = forms
    Ce = _c_laurent(encoder, C)
    if Ce is None:
        return None
    try:
        CGe = [
            [Ce[i][j] + encoder.encode(G[i, j]) if G[i, j] != 0 else Ce[i][j] for j in range(n)]
            for i in range(n)
        ]
    except NotRepresentableError:
        return None
    vel = [encoder.symbol(v) for v in qd]
    mdot = [
        (_HALF if i == j else _ONE) * vel[i] * vel[j] * _partial(encoder, Me[i, j], k) * vel[k]
        for i in range(n)
        for j in range(i, n)
        for k in range(n)
    ]
    power = [vel[i] * CGe[i][j] * vel[j] for i in range(n) for j in range(n)]
    return bool(se.expand(se.Add(*power) - se.Add(*mdot)) == _ZERO)


def _velocity_degree(mono: Any, vset: set[Any]) -> int:
    degree = 0
    for factor in mono.args if mono.is_Mul else (mono,):
        if factor in vset:
            degree += 1
        elif factor.is_Pow and factor.args[0] in vset:
            degree += int(factor.args[1])
    return degree


def _energy_laurent(
    encoder: Encoder,
    Me: dict[tuple[int, int], Any],
    L: sympy.Expr,
    g: sympy.ImmutableMatrix,
    qd: Sequence[sympy.Basic],
) -> bool | None:
    """L₂ = ½ q̇ᵀMq̇ and ∂(−L₀)/∂q = g in the Laurent encoding (None: not representable,
    or L has a term of degree above 2 in q̇)."""
    n = len(qd)
    try:
        Le = encoder.encode(L)
        ge = [encoder.encode(x) for x in g]
    except NotRepresentableError:
        return None
    vel = [encoder.symbol(v) for v in qd]
    vset = set(vel)
    quadratic: list[Any] = []
    constant: list[Any] = []
    for mono, coef in Le.as_coefficients_dict().items():
        degree = _velocity_degree(mono, vset)
        if degree == 2:
            quadratic.append(coef * mono)
        elif degree == 0:
            constant.append(coef * mono)
        elif degree != 1:
            return None
    half_vmv = se.Add(
        *[
            (_HALF if i == j else _ONE) * Me[i, j] * vel[i] * vel[j]
            for i in range(n)
            for j in range(i, n)
        ]
    )
    if se.expand(se.Add(*quadratic) - half_vmv) != _ZERO:
        return False
    potential = -se.Add(*constant) if constant else _ZERO
    return all(se.expand(_partial(encoder, potential, k) - ge[k]) == _ZERO for k in range(n))


def energy_per_frequency(
    L: sympy.Expr,
    M: sympy.ImmutableMatrix,
    g: sympy.ImmutableMatrix,
    q: Sequence[sympy.Basic],
    qd: Sequence[sympy.Basic],
) -> bool | None:
    """:func:`_energy_laurent` one frequency at a time (:mod:`lagdyn.trig.linear`); None when
    an expression is not linear in its trigonometric atoms or L has a term of degree
    above 2 in q̇.

    Examples
    --------
    >>> import sympy
    >>> q, v, m, l, g = sympy.symbols("q v m l g")
    >>> L = m*l**2*v**2/2 + m*g*l*sympy.cos(q)
    >>> M = sympy.ImmutableMatrix([[m*l**2]])
    >>> energy_per_frequency(L, M, sympy.ImmutableMatrix([m*g*l*sympy.sin(q)]), [q], [v])
    True
    >>> energy_per_frequency(L, M, sympy.ImmutableMatrix([m*g*l*sympy.cos(q)]), [q], [v])
    False
    """
    n = len(q)
    enc = LinearTrigEncoder(q, rates=qd)
    vel = [enc.symbol(v) for v in qd]
    vset = set(vel)
    try:
        quadratic: dict[Any, tuple[list[Any], list[Any]]] = {}
        potential: dict[Any, tuple[list[Any], list[Any]]] = {}
        for key, parts in enc.form(L).items():
            quad: tuple[list[Any], list[Any]] = ([], [])
            const: tuple[list[Any], list[Any]] = ([], [])
            for slot, terms in enumerate(parts):
                if not terms:
                    continue
                for mono, coef in se.expand(se.Add(*terms)).as_coefficients_dict().items():
                    degree = _velocity_degree(mono, vset)
                    if degree == 2:
                        quad[slot].append(coef * mono)
                    elif degree == 0:
                        const[slot].append(-coef * mono)
                    elif degree != 1:
                        return None
            quadratic[key] = quad
            potential[key] = const
        half_vmv = combine(
            *[
                ((_HALF if i == j else _ONE) * vel[i] * vel[j], enc.form(M[i, j]))
                for i in range(n)
                for j in range(i, n)
            ]
        )
        if not is_zero_form(combine((1, quadratic), (-1, half_vmv))):
            return False
        for k in range(n):
            if not is_zero_form(combine((1, enc.partial(potential, k)), (-1, enc.form(g[k])))):
                return False
    except NotLinearError:
        return None
    return True


def _partial(encoder: Encoder, f: Any, k: int) -> Any:
    """∂f/∂q_k of a Laurent polynomial (z_k = exp(i q_k / d_k))."""
    dk = f.diff(encoder.qse[k])
    if k < len(encoder.z):
        z = encoder.z[k]
        dz = f.diff(z)
        if dz != _ZERO:
            dk = dk + se.I / encoder.denominators[k] * z * dz
    return dk


_SKEW_CACHE: dict[Any, bool | None] = {}

_FORMS_CACHE: dict[Any, Any] = {}


def _forms(
    M: sympy.ImmutableMatrix,
    C: sympy.ImmutableMatrix,
    q: Sequence[sympy.Basic],
    extra: Sequence[sympy.Expr] = (),
) -> tuple[Encoder, dict[tuple[int, int], Any]] | None:
    """One encoder for M, C and ``extra`` (registered, encoded on demand), with M's upper
    triangle encoded; cached (the latest only: encodings are large). C is encoded only
    where a proof needs it (:func:`_c_laurent`), never kept."""
    key = (M, C, tuple(q), tuple(extra))
    if key in _FORMS_CACHE:
        return _FORMS_CACHE[key]
    n = len(q)
    found = None
    encoder = encoder_for([*M, *C, *extra], q)
    if encoder is not None:
        try:
            m = {(i, j): encoder.encode(M[i, j]) for i in range(n) for j in range(i, n)}
            found = (encoder, m)
        except NotRepresentableError:
            found = None
    _FORMS_CACHE.clear()
    _FORMS_CACHE[key] = found
    return found


def _c_laurent(encoder: Encoder, C: sympy.MatrixBase) -> list[list[Any]] | None:
    """Every entry of C encoded (n⁴ Laurent terms for a joint-angle chain), or None."""
    n = C.rows
    try:
        out = [[encoder.encode(C[i, j]) for j in range(n)] for i in range(n)]
    except NotRepresentableError:
        return None
    finally:
        encoder.memo.clear()  # the unexpanded subtrees of C are not needed again
    return out


def skew_identity(
    M: sympy.MatrixBase,
    C: sympy.MatrixBase,
    q: Sequence[sympy.Basic],
    qd: Sequence[sympy.Basic],
    *,
    extra: Sequence[sympy.Expr] = (),
) -> bool | None:
    """Decide exactly whether ``Ṁ − 2C`` is skew-symmetric, from ``M`` and ``C`` as given.

    Every entry of ``M`` and ``C`` is encoded once (one shared encoder); ``Ṁ_ij =
    Σ_k ∂_k m_ij qd_k`` is formed on the dictionaries and ``N_ij + N_ji = 2Ṁ_ij −
    2(C_ij + C_ji)`` is compared with the empty dictionary. ``q`` and ``qd`` may be
    plain symbols or dynamicsymbols ``q(t)`` and their derivatives.

    ``extra`` are further expressions registered in the same encoder, so a later
    :func:`passivity_identity` with the same M, C and (L, G, g) reuses the encoded M, C.

    Returns
    -------
    bool or None
        ``None`` if an entry is not representable.

    Examples
    --------
    >>> import sympy
    >>> q1, q2, v1, v2, b = sympy.symbols("q1 q2 v1 v2 b")
    >>> M = sympy.Matrix([[3 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
    ...                   [1 + b*sympy.cos(q2), 1]])
    >>> s = b*sympy.sin(q2)
    >>> C = sympy.Matrix([[-s*v2, -s*(v1 + v2)], [s*v1, 0]])
    >>> skew_identity(M, C, [q1, q2], [v1, v2])
    True
    >>> skew_identity(M, 2*C, [q1, q2], [v1, v2])
    False
    """
    key = (sympy.ImmutableMatrix(M), sympy.ImmutableMatrix(C), tuple(q), tuple(qd))
    if key in _SKEW_CACHE:
        return _SKEW_CACHE[key]
    verdict = _skew_identity(*key, extra=tuple(extra))
    if len(_SKEW_CACHE) > 8:
        _SKEW_CACHE.clear()
    _SKEW_CACHE[key] = verdict
    return verdict


def _skew_identity(
    M: sympy.ImmutableMatrix,
    C: sympy.ImmutableMatrix,
    q: Sequence[sympy.Basic],
    qd: Sequence[sympy.Basic],
    extra: tuple[sympy.Expr, ...] = (),
) -> bool | None:
    verdict = skew_per_frequency(M, C, q, qd)
    if verdict is not None:
        return verdict
    n = len(q)
    forms = _forms(M, C, q, extra)
    if forms is None:
        return None
    encoder, m_laurent = forms
    c_laurent = _c_laurent(encoder, C)
    if c_laurent is None:
        return None
    velocities = [encoder.symbol(v) for v in qd]
    # ∂/∂q_k on a Laurent polynomial: z_k = exp(i q_k / d_k), so ∂z_k/∂q_k = (i/d_k) z_k,
    # plus the explicit polynomial dependence on q_k. Expanded sums are canonical.
    for i in range(n):
        for j in range(i, n):
            mdot = _rate(encoder, m_laurent[(i, j)], velocities)
            residual = se.expand(mdot - c_laurent[i][j] - c_laurent[j][i])
            if residual != _ZERO:
                return False
    return True


def skew_per_frequency(
    M: sympy.ImmutableMatrix,
    C: sympy.ImmutableMatrix,
    q: Sequence[sympy.Basic],
    qd: Sequence[sympy.Basic],
) -> bool | None:
    """The skew proof pair by pair in per-frequency form (:mod:`lagdyn.trig.linear`).

    For each ``i ≤ j`` the entries ``m_ij``, ``C_ij``, ``C_ji`` are read, ``Ṁ_ij − C_ij −
    C_ji`` is expanded one frequency at a time and everything is dropped before the next
    pair, so memory stays at one pair. None when an entry is not linear in its
    trigonometric atoms (then the Laurent encoding decides).

    Examples
    --------
    >>> import sympy
    >>> q1, q2, v1, v2, b = sympy.symbols("q1 q2 v1 v2 b")
    >>> M = sympy.ImmutableMatrix([[3 + 2*b*sympy.cos(q2), 1 + b*sympy.cos(q2)],
    ...                            [1 + b*sympy.cos(q2), 1]])
    >>> s = b*sympy.sin(q2)
    >>> C = sympy.ImmutableMatrix([[-s*v2, -s*(v1 + v2)], [s*v1, 0]])
    >>> skew_per_frequency(M, C, [q1, q2], [v1, v2])
    True
    >>> skew_per_frequency(M, 2 * C, [q1, q2], [v1, v2])
    False
    >>> C2 = C.subs(sympy.sin(q2), 2*sympy.sin(q2/2)*sympy.cos(q2/2))   # a product of atoms
    >>> print(skew_per_frequency(M, C2, [q1, q2], [v1, v2]))
    None
    """
    n = len(q)
    enc = LinearTrigEncoder(q, rates=qd)
    velocities = [enc.symbol(v) for v in qd]
    rates: dict[Any, Any] = {}
    try:
        for i in range(n):
            for j in range(i, n):
                mdot = enc.rate(enc.form(M[i, j]), velocities, rates)
                if not _equal_forms(mdot, enc.form(C[i, j]), enc.form(C[j, i])):
                    return False
    except NotLinearError:
        return None
    return True


def _equal_forms(plus: Form, *minus: Form) -> bool:
    """Whether ``plus − Σ minus`` is the zero form: each frequency's coefficient expanded
    once (``is_zero_form(combine(...))`` without the intermediate sums)."""
    keys = dict.fromkeys(plus)
    for form in minus:
        keys.update(dict.fromkeys(form))
    empty: tuple[list[Any], list[Any]] = ([], [])
    for key in keys:
        for slot in (0, 1):
            positive = plus.get(key, empty)[slot]
            negative = [x for form in minus for x in form.get(key, empty)[slot]]
            if not positive and not negative:
                continue
            if se.expand(se.Add(*positive) - se.Add(*negative)) != _ZERO:
                return False
    return True


def _rate(encoder: Encoder, f: Any, velocities: Sequence[Any]) -> Any:
    """Σ_k ∂f/∂q_k q̇_k of an expanded Laurent polynomial (unexpanded sum).

    Without polynomial dependence on q each term c·z^e contributes
    c·z^e·i·Σ_k (e_k/d_k) q̇_k, read off the exponents in one pass; otherwise the
    derivative is taken per coordinate (∂z_k/∂q_k = (i/d_k) z_k plus ∂/∂q_k).
    """
    if not encoder.poly_q:
        parts = []
        for mono, coef in f.as_coefficients_dict().items():
            rate = []
            for factor in mono.args if mono.is_Mul else (mono,):
                base, power = (factor.args[0], factor.args[1]) if factor.is_Pow else (factor, 1)
                k = encoder.z_index.get(base)
                if k is not None and k < encoder.n:  # symbolic phase angles are constant
                    rate.append(se.Rational(int(power), encoder.denominators[k]) * velocities[k])
            if rate:
                parts.append(coef * mono * se.I * se.Add(*rate))
        return se.Add(*parts) if parts else _ZERO
    return _rate_by_diff(encoder, f, velocities)


def _rate_by_diff(encoder: Encoder, f: Any, velocities: Sequence[Any]) -> Any:
    z = encoder.z
    mdot = _ZERO
    for k in range(encoder.n):
        dk = f.diff(encoder.qse[k])
        if k < len(z):
            dk = dk + se.I / encoder.denominators[k] * z[k] * f.diff(z[k])
        mdot = mdot + dk * velocities[k]
    return mdot
