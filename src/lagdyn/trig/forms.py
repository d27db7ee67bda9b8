"""The natural form of a trigonometric expression: what a person writes, and what
floating point evaluates without cancellation.

The canonical trig-polynomial form (:mod:`lagdyn.trig.laurent`) is the right form for
proofs (zero is the empty dictionary) but not for reading or for numerics: the
spherical pendulum's :math:`l^2 m \\sin^2\\theta` is canonically
:math:`l^2m/2 - l^2m\\cos(2\\theta)/2`, which a reader has to decode and which loses
every digit near θ = 0 (the two halves cancel). :func:`numeric_form` rewrites integer
multiples of an angle as polynomials in that angle's sine and cosine and applies
sin² + cos² = 1 in the direction that leaves no constant to cancel; generated code is
printed from it (:mod:`lagdyn.codegen`). :func:`natural_form` also collects the result
on its trigonometric monomials with factored coefficients, for display:
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

import functools
from collections.abc import Callable, Iterable
from fractions import Fraction
from math import gcd

import sympy as sp

from .laurent import trig_atoms

__all__ = ["MAX_MULTIPLE", "Direction", "natural_form", "numeric_form", "primitive_direction"]


def natural_form(expr: sp.Expr) -> sp.Expr:
    """``expr`` as a person writes it: :func:`numeric_form`, collected on its
    trigonometric monomials with factored coefficients.

    Parameters
    ----------
    expr : sympy.Expr

    Returns
    -------
    sympy.Expr
        Equal to ``expr``; unchanged when it holds no sine or cosine of an integer
        multiple (2 to :data:`MAX_MULTIPLE`) of an angle.

    Examples
    --------
    >>> import sympy as sp
    >>> x, J = sp.symbols("x J")
    >>> natural_form(J/2 + J*sp.cos(2*x)/2)
    J*cos(x)**2
    """
    expr = sp.sympify(expr)
    out = numeric_form(expr)
    return expr if out == expr else _collect(out)


#: Largest multiple angle rewritten by :func:`numeric_form` (``sin⁸`` and below, the
#: powers mechanical models produce); higher multiples keep the canonical form, whose
#: expansion would grow as ``k²`` terms.
MAX_MULTIPLE = 8


def numeric_form(expr: sp.Expr, *, fractional: bool = False) -> sp.Expr:
    """``expr`` with multiple angles as products of sines and cosines of the base angle.

    Every ``cos(k·φ)``/``sin(k·φ)`` with an integer ``2 ≤ k ≤`` :data:`MAX_MULTIPLE` (the gcd of the
    argument's integer coefficients) becomes a polynomial in ``s = sin φ`` and
    ``c = cos φ``; each sum containing one is expanded, in two candidate forms
    (even powers of ``c`` reduced to ``1 − s²``, or of ``s`` to ``1 − c²``), and the
    form with fewer constant terms is kept: no constant is left to cancel against
    a cosine near the zeros of ``s`` (or of ``c``).

    With ``fractional=True`` (what generated code uses) the base angle of a direction
    is the largest angle of which every argument along it in ``expr`` is an integer
    multiple, so rational multiples are rewritten too: ``sin(3x/2)`` next to
    ``sin(x/2)`` becomes a polynomial in ``sin(x/2)``, ``cos(x/2)``. The default keeps
    the integer multiples of the primitive direction only (the display form).

    Examples
    --------
    >>> import sympy as sp
    >>> th, l = sp.symbols("th l", real=True)
    >>> numeric_form(l**2 * (sp.Rational(1, 2) - sp.cos(2 * th) / 2))
    l**2*sin(th)**2
    >>> numeric_form(sp.Rational(1, 2) + sp.cos(2 * th) / 2)
    cos(th)**2
    >>> half_cubed = 3 * sp.sin(th / 2) / 4 - sp.sin(3 * th / 2) / 4    # sin(θ/2)³
    >>> numeric_form(half_cubed) == half_cubed, numeric_form(half_cubed, fractional=True)
    (True, sin(th/2)**3)
    """
    expr = sp.sympify(expr)
    multiples = _multiples(trig_atoms([expr]), fractional)
    atoms = sorted(multiples, key=sp.default_sort_key)
    if not atoms:
        return expr
    marks: dict[sp.Basic, tuple[sp.Expr, sp.Expr]] = {}
    placeholders = {}
    for k, a in enumerate(atoms):
        g, base = multiples[a]
        s, c = sp.sin(base), sp.cos(base)
        # Chebyshev: cos(gφ) = T_g(cos φ), sin(gφ) = sin φ U_{g−1}(cos φ) (no assumption
        # on φ being real, so this works on q(t) as well as on plain real symbols)
        if isinstance(a, sp.cos):
            part = sp.expand(sp.chebyshevt(abs(g), c))
        else:
            part = sp.expand(s * sp.chebyshevu(abs(g) - 1, c))
            if g < 0:
                part = -part
        mark = sp.Dummy(f"ld_ma{k}")
        placeholders[mark] = a
        marks[mark] = (_reduce(part, c, s), _reduce(part, s, c))

    def rewrite(e: sp.Expr) -> sp.Expr:
        first = sp.expand(e.xreplace({m: v[0] for m, v in marks.items()}))
        if not _constant_terms(first):
            return first
        second = sp.expand(e.xreplace({m: v[1] for m, v in marks.items()}))
        return second if _constant_terms(second) < _constant_terms(first) else first

    def has_mark(e: sp.Basic) -> bool:
        return e.is_Add and any(m in e.free_symbols for m in marks)

    out = expr.xreplace({a: m for m, a in placeholders.items()})
    out = out.replace(has_mark, rewrite)
    return out.xreplace({m: v[0] for m, v in marks.items()})


def _constant_terms(e: sp.Expr) -> int:
    terms = sp.Add.make_args(e)
    return sum(1 for t in terms if not t.has(sp.sin, sp.cos))


def _reduce(poly: sp.Expr, x: sp.Expr, y: sp.Expr) -> sp.Expr:
    """``poly`` with ``x**(2k)`` replaced by ``(1 − y²)**k`` (x, y = cos, sin or sin, cos)."""
    out = []
    for term in sp.Add.make_args(poly):
        coeff, power = sp.S.One, 0
        for f in sp.Mul.make_args(term):
            b, e = f.as_base_exp()
            if b == x and e.is_Integer:
                power += int(e)
            else:
                coeff *= f
        out.append(coeff * x ** (power % 2) * (1 - y**2) ** (power // 2))
    return sp.expand(sp.Add(*out))


def _multiples(atoms: Iterable[sp.Basic], fractional: bool) -> dict[sp.Basic, tuple[int, sp.Expr]]:
    """``{atom: (k, φ)}``: ``atom = cos(k·φ)`` or ``sin(k·φ)``, ``2 ≤ |k| ≤ MAX_MULTIPLE``.

    φ is the base angle of the argument's direction (a primitive integer combination
    of terms, no constant offset): the direction itself, or with ``fractional`` the
    largest fraction of it of which every argument along it is an integer multiple.
    """
    read: dict[sp.Basic, tuple[Fraction, Direction]] = {}
    for a in atoms:
        got = primitive_direction(a.args[0])
        if got is not None and (fractional or got[0].denominator == 1):
            read[a] = got
    units: dict[Direction, Fraction] = {}
    for r, d in read.values():
        u = units.get(d, Fraction(1))
        units[d] = Fraction(
            gcd(u.numerator * r.denominator, r.numerator * u.denominator),
            u.denominator * r.denominator,
        )
    out: dict[sp.Basic, tuple[int, sp.Expr]] = {}
    for a, (r, d) in read.items():
        k = r / units[d]
        assert k.denominator == 1
        if 2 <= abs(k) <= MAX_MULTIPLE:
            u = units[d]
            base = sp.Add(*[t * n for t, n in d])
            out[a] = (int(k), base if u == 1 else sp.Rational(u.numerator, u.denominator) * base)
    return out


#: A direction: the pairs (term, coprime integer coefficient) of a primitive combination.
Direction = frozenset[tuple[sp.Basic, int]]


@functools.lru_cache(maxsize=4096)
def primitive_direction(arg: sp.Expr) -> tuple[Fraction, Direction] | None:
    """``(r, d)`` with ``arg == r·d``: ``d`` an integer combination of terms with coprime
    coefficients, as pairs (term, coefficient) — the sign as sympy writes ``arg`` —, ``r``
    a positive rational; ``None`` for a constant offset or a coefficient that is not
    rational.

    Examples
    --------
    >>> import sympy as sp
    >>> x, y = sp.symbols("x y")
    >>> r, d = primitive_direction(3 * x / 2 - 3 * y)
    >>> r, sorted(d, key=str)
    (Fraction(3, 2), [(x, 1), (y, -2)])
    >>> primitive_direction(x + 1) is None
    True
    """
    coeffs = arg.as_coefficients_dict()
    if any(t == 1 for t in coeffs) or not all(c.is_Rational for c in coeffs.values()):
        return None
    fr = {t: Fraction(int(c.p), int(c.q)) for t, c in coeffs.items()}
    den = 1
    for f in fr.values():
        den = den * f.denominator // gcd(den, f.denominator)
    num = 0
    for f in fr.values():
        num = gcd(num, abs(f.numerator * (den // f.denominator)))
    r = Fraction(num, den)
    return r, frozenset((t, int(f / r)) for t, f in fr.items())


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
