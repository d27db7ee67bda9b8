"""The natural form of a trigonometric expression: what a person writes, and what
floating point evaluates without cancellation.

The canonical trig-polynomial form (:mod:`lagdyn._trigpoly`) is the right form for
proofs (zero is the empty dictionary) but not for reading or for numerics: the
spherical pendulum's :math:`l^2 m \\sin^2\\theta` is canonically
:math:`l^2m/2 - l^2m\\cos(2\\theta)/2`, which a reader has to decode and which loses
every digit near θ = 0 (the two halves cancel). :func:`natural_form` rewrites integer
multiples of an angle by Chebyshev polynomials in that angle's sine and cosine, then,
per angle, applies sin² + cos² = 1 in whichever direction leaves the fewest terms
(so constants that would cancel numerically cancel symbolically instead), and collects
the result on its trigonometric monomials with factored coefficients:
``l**2*m*sin(theta)**2``.

Equality with the input is exact (the rewrites are identities); the tests prove it
for every zoo model in canonical form.

Examples
--------
>>> import sympy as sp
>>> th, m, l = sp.symbols("theta m l")
>>> natural_form(l**2*m/2 - l**2*m*sp.cos(2*th)/2)
l**2*m*sin(theta)**2
>>> natural_form(sp.sin(2*th))
2*sin(theta)*cos(theta)
>>> natural_form(l*sp.cos(th - 1))      # nothing to rewrite: returned as given
l*cos(theta - 1)
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

__all__ = ["natural_form"]

#: Expressions with more terms than this after expansion are returned unchanged:
#: the rewrite is for display and numerics of M, h and their entries, not for huge sums.
MAX_TERMS = 400


def natural_form(expr: sp.Expr) -> sp.Expr:
    """``expr`` with multiple angles expanded and sin² + cos² = 1 applied to remove
    constants that cancel (see the module docstring).

    Parameters
    ----------
    expr : sympy.Expr

    Returns
    -------
    sympy.Expr
        Equal to ``expr``; unchanged when it holds no sine or cosine of an integer
        multiple (≥ 2) of an argument, or when it is too large to rewrite.

    Examples
    --------
    >>> import sympy as sp
    >>> x, J = sp.symbols("x J")
    >>> natural_form(J/2 + J*sp.cos(2*x)/2)
    J*cos(x)**2
    """
    expr = sp.sympify(expr)
    multiples = _multiple_angle_rewrites(expr)
    if not multiples:
        return expr
    e = sp.expand(expr.xreplace(multiples))
    if len(sp.Add.make_args(e)) > MAX_TERMS:
        return expr
    bases = sorted({f.args[0] for f in e.atoms(sp.sin, sp.cos)}, key=sp.default_sort_key)
    for base in bases:
        s, c = sp.sin(base), sp.cos(base)
        variants = [e, _pythagoras(e, s, c), _pythagoras(e, c, s)]
        e = min(variants, key=lambda v: (len(sp.Add.make_args(v)), sp.count_ops(v)))
    return _collect(e)


def _multiple_angle_rewrites(expr: sp.Expr) -> dict[sp.Expr, sp.Expr]:
    """sin(k x), cos(k x) for integers |k| ≥ 2 → polynomials in sin x, cos x."""
    out: dict[sp.Expr, sp.Expr] = {}
    for f in expr.atoms(sp.sin, sp.cos):
        k, base = sp.factor_terms(f.args[0]).as_coeff_Mul()
        if not (k.is_Integer and abs(k) >= 2 and base.free_symbols):
            continue
        c, s = sp.cos(base), sp.sin(base)
        n = int(abs(k))
        if isinstance(f, sp.cos):
            out[f] = sp.expand(sp.chebyshevt(n, c))
        else:
            out[f] = sp.sign(k) * s * sp.expand(sp.chebyshevu(n - 1, c))
    return out


def _pythagoras(e: sp.Expr, drop: sp.Expr, keep: sp.Expr) -> sp.Expr:
    """Replace every ``drop**k`` (k ≥ 2) by ``drop**(k-2) (1 - keep**2)`` and expand."""
    for _ in range(16):
        pows = [p for p in e.atoms(sp.Pow) if p.base == drop and p.exp.is_Integer and p.exp >= 2]
        if not pows:
            break
        e = sp.expand(e.xreplace({p: drop ** (p.exp - 2) * (1 - keep**2) for p in pows}))
    return e


def _collect(e: sp.Expr) -> sp.Expr:
    """Group terms by their trigonometric monomial; factor each coefficient."""
    groups: dict[sp.Expr, list[sp.Expr]] = {}
    for term in sp.Add.make_args(e):
        trig, rest = _split(term, lambda f: bool(f.atoms(sp.sin, sp.cos)))
        groups.setdefault(trig, []).append(rest)
    return sp.Add(*[sp.factor(sp.Add(*rest)) * trig for trig, rest in groups.items()])


def _split(term: sp.Expr, pick: Callable[[sp.Expr], bool]) -> tuple[sp.Expr, sp.Expr]:
    picked: list[sp.Expr] = []
    others: list[sp.Expr] = []
    for f in sp.Mul.make_args(term):
        (picked if pick(f) else others).append(f)
    return sp.Mul(*picked), sp.Mul(*others)
