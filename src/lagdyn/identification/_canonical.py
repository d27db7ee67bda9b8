"""Exact canonical forms of regressor entries, for the base-parameter reduction.

Two forms decide linear dependence of regressor columns exactly:

- :class:`_Canonical`: the trigonometric-polynomial form of :mod:`lagdyn.trig.laurent` (one
  ``symengine.expand`` per entry), each coefficient split into state monomials (q̇, q̈,
  prismatic q, functions of the state) times coefficients in the known parameters;
- :func:`_canonical_terms`: the sympy form (trig functions of sums expanded, sin q_i and
  cos q_i as variables, cos² = 1 − sin² reduced), the fallback for entries outside the
  trig-polynomial class.
"""

from __future__ import annotations

from typing import Any

import sympy as sp


def _canonical_terms(
    expr: sp.Expr, qs: tuple[sp.Symbol, ...]
) -> dict[tuple[tuple[sp.Expr, int], ...], sp.Expr]:
    """``expr`` as {state monomial: coefficient}, unique modulo sin² + cos² = 1.

    Trig functions of (integer combinations of) coordinates are expanded into
    sin q_i, cos q_i; these become variables S_i, C_i and every C_i² is replaced by
    1 − S_i². Other state-dependent functions are opaque variables.
    """
    e = sp.expand_trig(sp.expand(expr))
    S = [sp.Symbol(f"_ldsin{i}", real=True) for i in range(len(qs))]
    C = [sp.Symbol(f"_ldcos{i}", real=True) for i in range(len(qs))]
    rep: dict[sp.Expr, sp.Expr] = {}
    for i, q in enumerate(qs):
        rep[sp.sin(q)] = S[i]
        rep[sp.cos(q)] = C[i]
    e = sp.expand(e.xreplace(rep))
    # other functions of the state (sign(q̇), sqrt(q), ...) become opaque variables, named
    # after their own srepr so that equal functions get equal names in every call
    opaque = {
        a: sp.Symbol("_ldop:" + sp.srepr(a), real=True)
        for a in e.atoms(sp.Function, sp.Pow)
        if _state_symbols_in(a) and not (isinstance(a, sp.Pow) and a.exp.is_Integer)
    }
    if opaque:
        e = sp.expand(e.xreplace(opaque))
    state = _state_symbols_in(e) - {*S, *C}
    gens: list[sp.Expr] = [*S, *C, *sorted(state, key=sp.default_sort_key)]
    if e == 0:
        return {}
    poly = sp.Poly(e, *gens)
    nS = len(qs)
    out: dict[tuple[tuple[sp.Expr, int], ...], sp.Expr] = {}
    pending = list(poly.terms())
    while pending:
        monom, coeff = pending.pop()
        k = next((i for i in range(nS) if monom[nS + i] >= 2), None)
        if k is not None:  # C_k^e = C_k^(e-2) (1 - S_k^2)
            m1 = list(monom)
            m1[nS + k] -= 2
            pending.append((tuple(m1), coeff))
            m2 = list(m1)
            m2[k] += 2
            pending.append((tuple(m2), -coeff))
            continue
        key = tuple((g, p) for g, p in zip(gens, monom) if p)
        c = out.get(key, sp.Integer(0)) + sp.sympify(coeff)
        if c == 0:
            out.pop(key, None)
        else:
            out[key] = c
    return {k: v for k, v in out.items() if sp.expand(v) != 0}


class _Canonical:
    """The canonical form of regressor entries through :mod:`lagdyn.trig.laurent` (symengine).

    Every entry becomes a trigonometric polynomial ``{frequency: (A, B)}`` (one
    ``symengine.expand``); each coefficient A, B is split into monomials of the state
    (q̇, q̈, prismatic q, functions of the state) times coefficients in the known
    parameters. Two entries are equal exactly when their tables are. ``table`` returns
    None for entries outside the trig-polynomial class (the sympy form then decides).
    """

    def __init__(self, entries: list[sp.Expr], qs: tuple[sp.Symbol, ...]) -> None:
        from ..trig.laurent import encoder_for

        self.qs = qs
        self._memo: dict[sp.Expr, Any] = {}
        self.encoder = encoder_for(entries, qs)
        # symbolic phases (cos(alpha) with a parameter alpha) would split the frequency
        # keys by parameter values: leave those to the sympy form
        if self.encoder is not None and len(self.encoder.angles) != len(qs):
            self.encoder = None

    def table(self, expr: sp.Expr) -> dict[Any, sp.Expr] | None:
        """{(frequency, cos|sin, state monomial): coefficient}, or None."""
        import symengine as se

        from ..trig.laurent import NotRepresentableError

        enc = self.encoder
        if enc is None:
            return None
        try:
            poly = enc.decode(self._laurent(expr))
        except (NotRepresentableError, RuntimeError):
            return None
        out: dict[Any, list[Any]] = {}
        for freq, pair in poly.items():
            for label, part in zip("cs", pair):
                if part == 0:
                    continue
                part = se.expand(part)
                for term in part.args if part.is_Add else (part,):
                    state: list[str] = []
                    coeff: list[Any] = []
                    for f in term.args if term.is_Mul else (term,):
                        if self._is_state(f):
                            state.append(str(f))
                        else:
                            coeff.append(f)
                    key = (freq, label, tuple(sorted(state)))
                    out.setdefault(key, []).append(se.Mul(*coeff))
        result: dict[Any, sp.Expr] = {}
        for key, cs in out.items():
            c = se.expand(se.Add(*cs))
            if c != 0:
                result[key] = enc.to_sympy(c)
        return result

    def _is_state(self, factor: Any) -> bool:
        enc = self.encoder
        assert enc is not None
        for sym in factor.free_symbols:
            obj = enc.back.get(str(sym))
            if obj is not None and _state_symbols_in(sp.sympify(obj)):
                return True
        return False

    def combination_is_zero(self, first: sp.Expr, terms: list[tuple[sp.Expr, sp.Expr]]) -> bool:
        """Exactly whether ``first − Σ c·e`` vanishes for ``(e, c)`` in ``terms``.

        In the trig form the encoded entries are reused (one expansion of the sum); the
        sympy canonical form decides otherwise.
        """
        import symengine as se

        from ..trig.laurent import NotRepresentableError

        enc = self.encoder
        if enc is not None:
            try:
                total = self._laurent(first)
                for e, c in terms:
                    total = total - self._laurent(e) * enc.encode(c)
                return bool(se.expand(total) == 0)
            except (NotRepresentableError, RuntimeError):
                pass
        diff = first - sum((c * e for e, c in terms), sp.Integer(0))
        return not _canonical_terms(diff, self.qs)

    def _laurent(self, expr: sp.Expr) -> Any:
        assert self.encoder is not None
        found = self._memo.get(expr)
        if found is None:
            found = self._memo[expr] = self.encoder.encode(expr)
        return found


def _state_symbols_in(e: sp.Expr) -> set[sp.Symbol]:
    """Plain state symbols (q, q̇, q̈ of lagdyn's internal names) in ``e``."""
    return {s for s in e.free_symbols if isinstance(s, sp.Symbol) and s.name.startswith("_ld")}
