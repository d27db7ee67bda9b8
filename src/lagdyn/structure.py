r"""Exact proofs of the structure of the equations of motion.

The equations :math:`M\ddot q + C\dot q + G\dot q + g = \tau + Q` derived from a
Lagrangian carry structure that control design relies on (seed 001):

* M is symmetric and positive definite;
* :math:`N = \dot M - 2C` is skew-symmetric when C comes from Christoffel symbols;
* hence the energy balance (passivity) :math:`dE/dt = \dot q^T(\tau + Q)`.

Every check here is an exact symbolic decision, never random sampling and never
``simplify``: expressions are brought into lagdyn's canonical trig-polynomial form
(:mod:`lagdyn.trig.laurent`, one ``symengine.expand`` per expression), where zero is
the empty form. Expressions outside that form fall back to ``symengine.expand``;
when that cannot decide, numbers at random states may refute the identity (a sound
"no"), and only then is sympy's ``simplify`` tried on that one residual.
:func:`is_positive_definite` answers ``True``, ``False`` or ``None`` ("unknown"):
it never answers ``True`` without a proof.

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn import structure
>>> arm = ld.zoo.two_link_planar()
>>> structure.is_skew_symmetric(arm), structure.is_passive(arm)
(True, True)
>>> report = structure.check(arm)
>>> report.positive_definite
True
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import symengine as se
import sympy as sp
from sympy.core.function import AppliedUndef

from ._common import SystemLike
from .errors import LagdynError, ShapeError
from .symbols import t

__all__ = [
    "StructureReport",
    "check",
    "is_passive",
    "is_positive_definite",
    "is_skew_symmetric",
    "is_symmetric",
    "is_zero",
    "positive_definite",
]

log = logging.getLogger("lagdyn")

#: Largest n for which Sylvester's leading minors are expanded symbolically.
SYLVESTER_MAX_N = 4


# ---------------------------------------------------------------------------- zero test
def _plainify(exprs: Sequence[sp.Expr]) -> tuple[list[sp.Expr], list[sp.Symbol]]:
    """Replace q(t), q̇, q̈ by plain symbols; return the expressions and the q symbols."""
    derivs: set[sp.Derivative] = set()
    funcs: set[sp.Expr] = set()
    for e in exprs:
        derivs |= e.atoms(sp.Derivative)
        funcs |= {f for f in e.atoms(AppliedUndef) if t in f.free_symbols}
    repl: dict[sp.Expr, sp.Symbol] = {}
    # highest derivatives first, so that q̈ is not rewritten through q̇
    for k, d in enumerate(sorted(derivs, key=lambda d: -d.derivative_count)):
        repl[d] = sp.Symbol(f"_ldd{k}", real=True)
    qsyms = []
    for k, f in enumerate(sorted(funcs, key=str)):
        s = sp.Symbol(f"_ldf{k}", real=True)
        repl[f] = s
        qsyms.append(s)
    out = [e.xreplace(repl) if repl else e for e in exprs]
    out = [e.xreplace({t: sp.Symbol("_ldt", real=True)}) for e in out]
    return out, qsyms


def is_zero(expr: sp.Expr, q: Sequence[sp.Expr] | None = None) -> bool | None:
    """Decide exactly whether ``expr`` vanishes identically.

    Parameters
    ----------
    expr : sympy.Expr
        Any expression in coordinates q(t) (or plain symbols listed in ``q``),
        their rates and parameters.
    q : sequence, optional
        The angle-like symbols of a plain expression; found automatically for
        expressions in dynamicsymbols.

    Returns
    -------
    bool or None
        True only with a proof, False only with a counterexample (a point where the value,
        evaluated to 17 correct digits, is clearly nonzero), None (logged as a warning)
        when no method decides.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> a, b = ld.coordinates("a b")
    >>> ld.structure.is_zero(sp.sin(a - b)**2 + sp.cos(b - a)**2 - 1)
    True
    >>> ld.structure.is_zero(sp.sin(a) - sp.cos(a))
    False
    """
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    if q is None:
        (plain,), qsyms = _plainify([expr])
    else:
        plain, qsyms = expr, list(q)
    return _decide(plain, qsyms)


def _decide(exprs: sp.Expr | Sequence[sp.Expr], qsyms: Sequence[sp.Symbol]) -> bool | None:
    """One question to the zero-test ladder (:func:`lagdyn.trig.identities.decide_zero`):
    every residual zero? Undecided is None (logged), never False."""
    from .trig.identities import decide_zero

    verdict = decide_zero(exprs, list(qsyms))
    if verdict is None:
        log.warning("lagdyn.structure: could not decide whether an expression is zero: unknown")
    return verdict


# ---------------------------------------------------------------------------- symmetry
def is_symmetric(M: sp.MatrixBase) -> bool | None:
    """Exact proof that the square matrix ``M`` equals its transpose.

    Raises
    ------
    ShapeError
        If ``M`` is not square.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.structure.is_symmetric(ld.zoo.double_pendulum().M)
    True
    """
    M = _as_matrix(M, "M")
    if M.rows != M.cols:
        raise ShapeError(f"M must be square, got shape {M.shape}")
    residuals = [
        M[i, j] - M[j, i] for i in range(M.rows) for j in range(i + 1, M.cols) if M[i, j] != M[j, i]
    ]
    if not residuals:
        return True
    plain, qsyms = _plainify(residuals)
    return _decide(plain, qsyms)


def _as_matrix(M: Any, what: str) -> sp.ImmutableMatrix:
    if isinstance(M, str):
        raise LagdynError(f"{what} must be a sympy Matrix, got a string")
    try:
        return sp.ImmutableMatrix(M)
    except (TypeError, ValueError, sp.SympifyError) as exc:
        raise LagdynError(f"{what} must be a sympy Matrix, got {type(M).__name__}") from exc


# ---------------------------------------------------------------------------- skew-symmetry
def is_skew_symmetric(
    system: SystemLike, C: sp.MatrixBase | None = None, *, route: str | None = None
) -> bool | None:
    r"""Exact proof that :math:`N = \dot M - 2C` is skew-symmetric.

    With ``C=None`` the system's own Christoffel C is checked (always skew, so this
    is a proof of the derivation); a user-supplied factorization ``C`` with
    :math:`C\dot q` equal to the Coriolis terms need not make N skew, and is reported
    ``False`` when it does not. The check recomputes :math:`\dot M` from the returned M
    and expands every :math:`N_{ij} + N_{ji}` in canonical form.

    For a robot chain (a system with recursive programs) and ``C=None`` the decision is
    made on the CRBA and Coriolis programs the generated code runs, without the closed
    form (:func:`lagdyn.recursive.proofs.is_skew_symmetric`); programs it cannot take
    (floating-point rotations) go to the closed form. ``route="closed"`` forces the
    closed form.

    Raises
    ------
    ShapeError
        A ``C`` that is not n × n.
    LagdynError
        An unknown ``route``.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> arm = ld.zoo.two_link_planar()
    >>> ld.structure.is_skew_symmetric(arm)
    True
    >>> q1d, q2d = arm.qd
    >>> S = sp.Matrix([[q2d, -q1d], [0, 0]])   # S q̇ = 0: same C q̇, not skew
    >>> ld.structure.is_skew_symmetric(arm, arm.C + S)
    False
    """
    if route not in (None, "closed"):
        raise LagdynError(f"route must be None or 'closed', got {route!r}")
    if route is None and C is None and hasattr(system, "program"):
        from .recursive.chain import chain_of
        from .recursive.proofs import is_skew_symmetric as on_programs

        if chain_of(system) is not None:
            try:
                on_chain = on_programs(system)
            except LagdynError:  # not a fixed-base chain's programs: the closed form
                on_chain = None
            if on_chain is not None:
                return on_chain
    n = system.n
    Cm = system.C if C is None else _as_matrix(C, "C")
    if Cm.shape != (n, n):
        raise ShapeError(f"C has shape {Cm.shape}, expected ({n}, {n})")
    try:
        import lagdyn.trig.identities as _trigproofs
    except ImportError:  # pragma: no cover
        verdict = None
    else:
        # L, G, g registered too: the passivity proof then reuses the encoded M and C
        extra = (system.L, *system.G, *system.g) if C is None else ()
        verdict = _trigproofs.skew_identity(system.M, Cm, system.q, system.qd, extra=extra)
    if verdict is not None:
        return verdict
    qs, vs = system.plain_symbols
    Mp = [[system.plain(system.M[i, j]) for j in range(n)] for i in range(n)]
    Cp = [[system.plain(Cm[i, j]) for j in range(n)] for i in range(n)]
    dM: dict[tuple[int, int], sp.Expr] = {}
    for i in range(n):
        for j in range(i, n):
            dM[i, j] = sum((sp.diff(Mp[i][j], qs[k]) * vs[k] for k in range(n)), sp.Integer(0))
    # N_ij + N_ji = 2 Ṁ_ij − 2 (C_ij + C_ji)
    residuals = [2 * dM[i, j] - 2 * (Cp[i][j] + Cp[j][i]) for i in range(n) for j in range(i, n)]
    return _decide(residuals, qs)


# ---------------------------------------------------------------------------- passivity
def is_passive(system: SystemLike) -> bool | None:
    r"""Exact proof of the energy balance :math:`dE/dt = \dot q^T(\tau + Q)` along motions.

    E is recomputed from the Lagrangian as :math:`E = \dot q^T \partial L/\partial\dot q - L`
    and differentiated in time; the identity
    :math:`dE/dt - \dot q^T(M\ddot q + C\dot q + G\dot q + g) \equiv 0` is then proved
    for all q, q̇, q̈. τ and Q enter both sides identically (linearly, through the
    equations), so they drop out of the identity.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.structure.is_passive(ld.zoo.double_pendulum(coordinates="relative"))
    True
    """
    n = system.n
    try:
        import lagdyn.trig.identities as _trigproofs
    except ImportError:  # pragma: no cover
        verdict = None
    else:
        parts_dyn = (system.M, system.C, system.G, system.g)
        qdd = tuple(sp.diff(x, t, 2) for x in system.q)
        verdict = _trigproofs.passivity_identity(system.L, parts_dyn, system.q, system.qd, qdd)
    if verdict is not None:
        return verdict
    qs, vs = system.plain_symbols
    acc = [sp.Symbol(f"_lda{i}", real=True) for i in range(n)]
    Lp = system.plain(system.L)
    parts = [system.plain(m) for m in (system.M, system.C, system.G, system.g)]
    residual = _passivity_residual_se(Lp, parts, qs, vs, acc)
    if residual is not None:
        return _decide(residual, qs)
    # objects symengine cannot hold: the same identity with sympy differentiation
    E = sum((vs[i] * sp.diff(Lp, vs[i]) for i in range(n)), sp.Integer(0)) - Lp
    dEdt = sum(
        (sp.diff(E, qs[i]) * vs[i] + sp.diff(E, vs[i]) * acc[i] for i in range(n)), sp.Integer(0)
    )
    M, C, G, g = parts
    v = sp.Matrix(vs)
    a = sp.Matrix(acc)
    power = (v.T * (M * a + C * v + G * v + g))[0, 0]
    return _decide(dEdt - power, qs)


def _passivity_residual_se(
    Lp: sp.Expr,
    parts: Sequence[sp.MatrixBase],
    qs: Sequence[sp.Symbol],
    vs: Sequence[sp.Symbol],
    acc: Sequence[sp.Symbol],
) -> sp.Expr | None:
    """dE/dt − q̇ᵀ(M q̈ + C q̇ + G q̇ + g), differentiated in symengine (sympy's ``diff``
    spends most of its time in assumption queries), returned as one sympy expression."""
    from .trig.convert import SymbolTable, to_symengine

    Ls = to_symengine(Lp)
    converted = [[to_symengine(e) for e in m] for m in parts]
    if Ls is None or any(e is None for m in converted for e in m):
        return None
    mats: list[list[Any]] = [[e for e in m if e is not None] for m in converted]
    n = len(qs)
    sq = [se.Symbol(x.name) for x in qs]
    sv = [se.Symbol(x.name) for x in vs]
    sa = [se.Symbol(x.name) for x in acc]
    E = se.Add(*[sv[i] * Ls.diff(sv[i]) for i in range(n)]) - Ls
    dEdt = se.Add(*[E.diff(sq[i]) * sv[i] + E.diff(sv[i]) * sa[i] for i in range(n)])
    M, C, G, g = mats
    power = se.Add(
        *[
            sv[i]
            * (
                se.Add(
                    *[
                        M[i * n + j] * sa[j] + (C[i * n + j] + G[i * n + j]) * sv[j]
                        for j in range(n)
                    ]
                )
                + g[i]
            )
            for i in range(n)
        ]
    )
    free: set[sp.Basic] = set(Lp.free_symbols)
    for m in parts:
        for e in m:
            free |= e.free_symbols
    table = SymbolTable.from_symbols([*free, *qs, *vs, *acc])
    return table.to_sympy(dEdt - power)


# ---------------------------------------------------------------------------- positive definiteness
def is_positive_definite(M: sp.MatrixBase, q: Iterable[sp.Expr] | None = None) -> bool | None:
    r"""Decide whether M(q) is positive definite for every q and every parameter value.

    Sylvester's criterion on a nested chain of principal minors (n ≤ 4), each proved
    positive in canonical trig-polynomial form: constant part minus the magnitudes of
    the oscillating terms must be a sum of positive terms of positive parameters
    (this proves the seed 003 determinant :math:`m_2 l_1^2 l_2^2(m_1 + m_2\sin^2(a - b))`).
    A numeric counterexample at random states with positive parameter values proves
    ``False``.

    Parameters
    ----------
    M : sympy Matrix, shape (n, n)
    q : coordinates, optional (found automatically)

    Returns
    -------
    True (proved), False (a counterexample exists), or None (unknown).

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> ld.structure.is_positive_definite(ld.zoo.double_pendulum().M)
    True
    >>> x, = ld.coordinates("x")
    >>> print(ld.structure.is_positive_definite(sp.Matrix([[x**2]])))   # zero at x = 0
    None
    >>> ld.structure.is_positive_definite(sp.Matrix([[1, 2], [2, 1]]))
    False
    """
    return _positive_definite_with_note(M)[0]


def _positive_definite_with_note(M: sp.MatrixBase) -> tuple[bool | None, str]:
    """:func:`is_positive_definite` and, when the answer depends on parameters of
    undeclared sign, a note naming them and how to declare them."""
    Mm = _as_matrix(M, "M")
    n = Mm.rows
    if Mm.shape != (n, n):
        raise ShapeError(f"M must be square, got shape {Mm.shape}")
    symmetric = is_symmetric(Mm)
    if symmetric is not True:
        return symmetric, ""
    entries, qsyms = _plainify(list(Mm))
    Mp = sp.Matrix(n, n, entries)
    unsigned = _unsigned_parameters(Mp, qsyms)
    if unsigned:
        return _positive_definite_for_positive(Mp, qsyms, unsigned)
    return _positive_definite_plain(Mp, qsyms), ""


def _positive_definite_plain(Mp: sp.Matrix, qsyms: Sequence[sp.Symbol]) -> bool | None:
    if _numeric_counterexample(Mp):
        return False
    if Mp.rows > SYLVESTER_MAX_N:
        return None
    return _nested_minors_positive(Mp, qsyms)


def _unsigned_parameters(Mp: sp.Matrix, qsyms: Sequence[sp.Symbol]) -> list[sp.Symbol]:
    """Parameters of M whose sign sympy does not know (``sp.symbols("m")``)."""
    skip = set(qsyms)
    syms = set().union(*(e.free_symbols for e in Mp)) - skip
    return sorted(
        (
            s
            for s in syms
            if not s.name.startswith("_ld") and s.is_positive is None and s.is_negative is None
        ),
        key=str,
    )


def _positive_definite_for_positive(
    Mp: sp.Matrix, qsyms: Sequence[sp.Symbol], unsigned: list[sp.Symbol]
) -> tuple[bool | None, str]:
    """M with parameters of unknown sign: decided for positive values of them.

    A counterexample with every such parameter positive refutes (False). A proof for
    positive values is not a proof for every value: the answer is None, with a note that
    names the parameters whose negative values break positive definiteness and how to
    declare them positive.
    """
    positive = {s: sp.Symbol(s.name, positive=True) for s in unsigned}
    verdict = _positive_definite_plain(Mp.xreplace(positive), qsyms)
    if verdict is not True:
        return verdict, ""
    deciding = [
        s
        for s in unsigned
        if _numeric_counterexample(
            Mp.xreplace({**positive, s: -positive[s]})  # s negative, the others positive
        )
    ] or unsigned
    names = " ".join(s.name for s in deciding)
    note = (
        f"M is positive definite for positive {', '.join(s.name for s in deciding)}, but "
        f"their sign is not declared; declare them positive (ld.parameters({names!r}) or "
        f"sympy.symbols({names!r}, positive=True)) to prove it"
    )
    log.warning("lagdyn.structure: %s", note)
    return None, note


def positive_definite(system: SystemLike) -> bool | None:
    r"""Decide whether the system's M(q) is positive definite, using how M was built.

    Systems assembled from bodies (:mod:`lagdyn.kinematics`) carry the factor
    :math:`M = \sum_r w_r J_r^T J_r` (one row :math:`J_r = \partial p_r/\partial q` per
    position coordinate). Then M ≻ 0 for every q is proved by three exact checks, each of
    which can fail: (1) every weight :math:`w_r` (a mass or inertia) is positive by its
    assumptions; (2) the returned M equals :math:`\sum_r w_r J_r^T J_r` entry by entry in
    canonical form; (3) J has full column rank for every q: a square submatrix of the
    complex rows :math:`\partial(x + i y)/\partial q` (and the real rows) is triangular
    after permutation, with each diagonal entry a single Laurent monomial
    :math:`c\,e^{i k\cdot q}` whose coefficient c is provably nonzero (so its modulus
    :math:`|c|` never vanishes). Then :math:`\dot q^T M \dot q = \sum_r w_r (J_r\dot q)^2`
    is zero only if :math:`J\dot q = 0`, i.e. :math:`\dot q = 0`. Without such a proof this
    falls back to :func:`is_positive_definite` on M alone.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.structure.positive_definite(ld.zoo.get("n_link_pendulum", n=6))
    True
    """
    return _system_positive_definite(system)[0]


def _system_positive_definite(system: SystemLike) -> tuple[bool | None, str]:
    if _gram_positive_definite(system):
        return True, ""
    return _positive_definite_with_note(system.M)


def _gram_positive_definite(system: SystemLike) -> bool | None:
    """True when the factor proof above succeeds, else None (never False)."""
    rows = getattr(system, "_gram_rows", None)
    if not rows:
        return None
    from .trig.gram import gram_laurent, gram_matches
    from .trig.laurent import NotRepresentableError, encoder_for
    from .trig.linear import LinearTrigEncoder

    n = system.n
    if any(len(entries) != n for _, entries, _ in rows):
        return None
    if not all(sp.sympify(w).is_positive for w, _, _ in rows):
        return None
    M = system.M
    upper = [M[i, j] for i in range(n) for j in range(i, n)]
    exprs = [*upper, *(e for _, entries, _ in rows for e in entries if e != 0)]
    exprs += [sp.sympify(w) for w, _, _ in rows]
    encoder = encoder_for(exprs, list(system.q))
    if encoder is None:
        return None
    terms = [([[w]], [entries]) for w, entries, _ in rows]
    matches = gram_matches(M, terms, LinearTrigEncoder(system.q))
    try:
        enc_rows = [
            (encoder.encode(w), [encoder.encode(e) if e != 0 else None for e in entries], pair)
            for w, entries, pair in rows
        ]
        if matches is None:  # not linear in the trig atoms: compare in the Laurent encoding
            sums = gram_laurent([([[w]], [r]) for w, r, _ in enc_rows], n)
            matches = all(
                se.expand(encoder.encode(M[i, j]) - se.Add(*sums[i, j])) == 0
                for i in range(n)
                for j in range(i, n)
            )
    except NotRepresentableError:
        return None
    if not matches:
        log.warning("lagdyn.structure: M differs from its factor JᵀWJ")
        return None
    # candidate rows: x + i y for each planar pair, every other row as it is
    partners = {pair for _, _, pair in enc_rows if pair >= 0}
    candidates: list[list[Any]] = []
    for k, (_, r, pair) in enumerate(enc_rows):
        if pair >= 0:
            im = enc_rows[pair][1]
            candidates.append(
                [
                    se.expand((a or 0) + se.I * (b or 0)) if (a, b) != (None, None) else 0
                    for a, b in zip(r, im)
                ]
            )
        if k not in partners or pair >= 0:
            candidates.append([se.expand(a) if a is not None else 0 for a in r])
    remaining = set(range(n))
    used: set[int] = set()
    progress = True
    while remaining and progress:
        progress = False
        for k, row in enumerate(candidates):
            if k in used:
                continue
            support = [j for j in remaining if row[j] != 0]
            if len(support) == 1 and _nonvanishing(row[support[0]], encoder):
                used.add(k)
                remaining.discard(support[0])
                progress = True
    return True if not remaining else None


def _nonvanishing(value: Any, encoder: Any) -> bool:
    """A single Laurent monomial c·z^k whose coefficient c is provably nonzero."""
    terms = [(m, c) for m, c in value.as_coefficients_dict().items() if c != 0]
    if len(terms) != 1:
        return False
    mono, coef = terms[0]
    factors = mono.args if mono.is_Mul else (mono,)
    rest = [f for f in factors if not (f.args and f.args[0] in encoder.z_index)]
    rest = [f for f in rest if f not in encoder.z_index]
    c = encoder.to_sympy(se.Mul(coef, *rest))
    return bool(c.is_zero is False)


def _nested_minors_positive(Mp: sp.Matrix, qsyms: Sequence[sp.Symbol]) -> bool | None:
    """Sylvester's criterion on any nested chain of principal minors.

    M ≻ 0 iff the leading minors of PᵀMP are positive for one permutation P, so a chain
    S1 ⊂ S2 ⊂ … ⊂ Sn of index sets with every principal minor proved positive suffices
    (the two-link arm needs the chain {2} ⊂ {1, 2}: m11 ≥ m2(l1 − lc2)² + … is a square).
    """
    n = Mp.rows
    memo: dict[frozenset[int], bool] = {}

    def positive(idx: frozenset[int]) -> bool:
        if idx not in memo:
            rows = sorted(idx)
            sub = Mp.extract(rows, rows)
            minor = sub[0, 0] if len(rows) == 1 else sub.det(method="berkowitz")
            memo[idx] = _is_positive(minor, qsyms)
        return memo[idx]

    good: dict[frozenset[int], bool] = {}

    def chain(idx: frozenset[int]) -> bool:
        if idx not in good:
            good[idx] = positive(idx) and (
                len(idx) == 1 or any(chain(idx - {i}) for i in sorted(idx))
            )
        return good[idx]

    return True if chain(frozenset(range(n))) else None


def _numeric_counterexample(Mp: sp.Matrix) -> bool:
    """A random state (positive parameters) where M is not positive definite.

    Cholesky in double precision at four random states; a pivot that is negative beyond
    rounding proves ``False`` at once, and a pivot within rounding of zero (a constant
    indefinite or singular M, or a cancellation) is re-decided at 50 digits, where a pivot
    at or below 1e-40 of the largest entry is taken as not positive. Entries are evaluated
    by sympy's adaptive ``evalf(subs=...)``, which raises the working precision where an
    expanded polynomial cancels, so the digits it returns are right.
    """
    rng = random.Random(7)
    syms = sorted(set().union(*(e.free_symbols for e in Mp)), key=str)
    for _ in range(4):
        point = {
            s: sp.Float(rng.uniform(0.5, 2.0) if s.is_positive else rng.uniform(-3, 3), 50)
            for s in syms
        }
        try:
            rows = [
                [float(Mp[i, j].evalf(17, subs=point)) for j in range(Mp.cols)]
                for i in range(Mp.rows)
            ]
        except (TypeError, ValueError):
            return False
        verdict = _cholesky_pivots(rows, 1e-9)
        if verdict is False:
            return True
        if verdict is None:
            precise = [
                [Mp[i, j].evalf(50, subs=point) for j in range(Mp.cols)] for i in range(Mp.rows)
            ]
            if _cholesky_pivots(precise, sp.Float("1e-40", 50)) is not True:
                return True
    return False


def _cholesky_pivots(a: list[list[Any]], tol: Any) -> bool | None:
    """True: every pivot > tol·scale; False: one < −tol·scale; None: one within ±tol·scale."""
    n = len(a)
    scale = max((abs(x) for r in a for x in r), default=1) or 1
    low = [[0 * scale] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            if i == j:
                if s < -tol * scale:
                    return False
                if s <= tol * scale:
                    return None
                low[i][i] = s**0.5
            else:
                low[i][j] = s / low[j][j]
    return True


def _is_positive(expr: sp.Expr, qsyms: Sequence[sp.Symbol]) -> bool:
    """Sound sufficient test that ``expr`` > 0 for all q and positive parameters."""
    form = _canonical(expr, qsyms)
    if form.is_positive:
        return True
    qset = set(qsyms)
    constant = sp.Integer(0)
    bound = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(form)):
        trig = [f for f in sp.Mul.make_args(term) if f.free_symbols & qset]
        if not trig:
            constant += term
            continue
        if len(trig) != 1 or not isinstance(trig[0], (sp.sin, sp.cos)):
            return False
        coeff = sp.Mul(*[f for f in sp.Mul.make_args(term) if f is not trig[0]])
        if coeff.is_positive:
            bound += coeff
        elif coeff.is_negative:
            bound -= coeff
        else:
            return False
    return bool(sp.expand(constant - bound).is_positive)


def _canonical(expr: sp.Expr, qsyms: Sequence[sp.Symbol]) -> sp.Expr:
    try:
        import lagdyn.trig.identities as _trigproofs
    except ImportError:  # pragma: no cover
        return sp.expand(expr)
    out = _trigproofs.canonical(expr, list(qsyms))
    return sp.expand(expr) if out is None else out


# ---------------------------------------------------------------------------- report
@dataclass(frozen=True)
class StructureReport:
    """The outcome of every structure proof for one system, with timings in seconds.

    Examples
    --------
    >>> import lagdyn as ld
    >>> r = ld.structure.check(ld.zoo.double_pendulum())
    >>> r.ok
    True
    """

    symmetric: bool | None
    skew_symmetric: bool | None
    passive: bool | None
    positive_definite: bool | None
    seconds: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when no proof was refuted (a property may be unknown: see :attr:`proved`)."""
        return False not in (
            self.symmetric,
            self.skew_symmetric,
            self.passive,
            self.positive_definite,
        )

    @property
    def proved(self) -> bool:
        """True when every property was proved.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.structure.check(ld.zoo.double_pendulum()).proved
        True
        """
        return all(
            v is True
            for v in (self.symmetric, self.skew_symmetric, self.passive, self.positive_definite)
        )

    def lines(self) -> list[str]:
        """Human-readable lines, one per proof.

        Examples
        --------
        >>> import lagdyn as ld
        >>> print(ld.structure.check(ld.zoo.two_link_planar()).lines()[0])
        M symmetric ..................... proved
        """

        def word(v: bool | None) -> str:
            return {True: "proved", False: "FAILED", None: "unknown"}[v]

        return [
            f"M symmetric ..................... {word(self.symmetric)}",
            f"Ṁ − 2C skew-symmetric ........... {word(self.skew_symmetric)}",
            f"dE/dt = q̇ᵀ(τ + Q) (passivity) ... {word(self.passive)}",
            f"M positive definite ............. {word(self.positive_definite)}",
        ]


def check(system: SystemLike) -> StructureReport:
    """Run every structure proof on ``system``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.structure.check(ld.zoo.two_link_planar()).skew_symmetric
    True
    """
    seconds: dict[str, float] = {}

    def timed(name: str, fn: Any) -> Any:
        t0 = time.perf_counter()
        out = fn()
        seconds[name] = time.perf_counter() - t0
        return out

    sym = timed("symmetric", lambda: is_symmetric(system.M))
    skew = timed("skew_symmetric", lambda: is_skew_symmetric(system))
    passive = timed("passive", lambda: is_passive(system))
    pd, note = timed("positive_definite", lambda: _system_positive_definite(system))
    return StructureReport(sym, skew, passive, pd, seconds, (note,) if note else ())
