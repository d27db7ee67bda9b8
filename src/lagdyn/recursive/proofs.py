r"""Exact identities of the recursive programs, proved without closed forms.

The recursive route runs straight-line programs (:mod:`lagdyn.recursive.program`), not the
closed forms, so the structure it relies on is proved on those programs themselves:

=============  ===========================================================================
``symmetric``  :math:`M = M^T` (CRBA)
``skew``       :math:`\dot M - C - C^T = 0`, i.e. :math:`\dot M - 2C` skew (recursive C)
``coriolis``   :math:`C\dot q + g = h` (recursive C against RNEA with q̈ = 0)
``inverse``    :math:`M\ddot q + h = \tau` (CRBA against RNEA)
``forward``    :math:`M\,\ddot q(\tau) + h = \tau` (ABA or CRBA + LDLᵀ against CRBA, RNEA)
``passive``    :math:`\dot E = \dot q^T\tau(q, \dot q, \ddot q)` (energy against RNEA)
=============  ===========================================================================

Friction forces are left out (the identities are those of the rigid-body part; Coulomb's
sign is not a polynomial); armature is in. Each identity is a polynomial (``forward``:
rational) identity in cos qᵢ, sin qᵢ, q̇, q̈, τ and the parameters, to hold on the torus
cᵢ² + sᵢ² = 1.

**Decisions** (``method="exact"``; the default for ``symmetric`` and ``skew``, and for
``passive`` through :func:`is_passive`):
the programs are evaluated with every input a variable — (cᵢ, sᵢ) for each angle, the
parameters, q̇, q̈, τ — each statement expanded and reduced with sᵢ² = 1 − cᵢ² as it is
formed (no closed-form M is built: the CRBA program's own output is expanded), in exact
packed integer arithmetic (:mod:`lagdyn.recursive.torus`; symengine if an exponent
reaches 128); Ṁ and Ė are the chain rule on those expanded outputs, with ċ = −s q̇,
ṡ = c q̇ and q̇ moving with q̈. The residual's normal form (each sᵢ of degree at most
one: unique, since the sᵢ² − (1 − cᵢ²) are a Gröbner basis of the torus ideal) is zero
exactly when the identity holds: ``True`` and ``False`` are both certain (``error_bound``
0). Its cost is that of the expanded residual (with symbolic inertial parameters, skew
symmetry: UR5 0.08 s, Panda 0.27 s; passivity 0.14 s and 0.5 s).

**Samples** (``method="sample"``; the default for the other identities, and what
``method="exact"`` uses for ``forward``, a rational identity): zero-testing a straight-line
program is polynomial identity testing, and no efficient deterministic algorithm is known
for it. It is decided here by the Schwartz–Zippel lemma, in exact rational arithmetic:

* every joint's (cᵢ, sᵢ) is the rational point ((1 − tᵢ²)/(1 + tᵢ²), 2tᵢ/(1 + tᵢ²)) for a
  tᵢ drawn uniformly from a set of 2^(k+1) values (the points Re, Im of z²/|z|² for the
  Gaussian integers z built from the first k primes p ≡ 1 mod 4, so that every point has
  the same denominator h = ∏p and the arithmetic stays integer); every other variable is
  an integer drawn uniformly from [0, 2^(k+1));
* a residual R that is not identically zero on the torus has a numerator P(t, …) ≢ 0 of
  total degree at most D = Σᵢ 2 degᵢ(R) + deg_rest(R) (the degrees are bounded by one
  pass over the program), which vanishes at the drawn point with probability at most
  D / 2^(k+1);
* independent draws are repeated until that bound, raised to the number of draws, is
  below 2^-``security``.

A value that is not zero at an exact point is a certificate: ``False`` is certain (the
identity fails for these programs, with every number in them taken exactly). ``True``
can be wrong with probability at most the reported ``error_bound`` (2^-100 by default,
far below the chance of a hardware fault during the computation). ``None``: the program
holds something this evaluator cannot take exactly (a function other than cos/sin of a
coordinate, a non-integer power).

Examples
--------
>>> import lagdyn as ld
>>> report = ld.robot.proofs.prove(ld.zoo.get("spatial_3r"))
>>> report.ok, report.skew
(True, True)
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp

from ..errors import LagdynError
from .chain import Chain, chain_of
from .coriolis import energy as _energy
from .forward import forward_dynamics as _forward_dynamics
from .program import Program, input_symbols
from .rnea import rnea as _rnea
from .torus import PackedTorus, TorusOverflowError

__all__ = [
    "CHECKS",
    "EXACT_BY_DEFAULT",
    "ProgramProofs",
    "is_passive",
    "is_skew_symmetric",
    "prove",
]

#: The identities :func:`prove` knows, in the order it reports them.
CHECKS = ("symmetric", "skew", "coriolis", "inverse", "forward", "passive")

_PRIME_COUNT = 48  # 2^49 circle points per joint


class _UnsupportedError(Exception):
    """The program holds something exact evaluation cannot take."""


class _VanishedError(Exception):
    """A denominator vanished at the drawn point (draw again)."""


# ------------------------------------------------------------------ the circle points
@lru_cache(maxsize=1)
def _gaussian_primes() -> tuple[tuple[int, int], ...]:
    """(a, b) with a² + b² = p for the first ``_PRIME_COUNT`` primes p ≡ 1 (mod 4)."""
    out: list[tuple[int, int]] = []
    p = 5
    while len(out) < _PRIME_COUNT:
        if p % 4 == 1 and all(p % d for d in range(3, math.isqrt(p) + 1, 2)):
            a = next(
                a for a in range(1, math.isqrt(p) + 1) if math.isqrt(p - a * a) ** 2 == p - a * a
            )
            out.append((a, math.isqrt(p - a * a)))
        p += 2
    return tuple(out)


def _circle_point(rng: secrets.SystemRandom) -> tuple[int, int, int]:
    """A uniform draw (X, Y, h) of the 2^(k+1) points (X/h, Y/h) of the unit circle."""
    re, im = 1, 0
    for a, b in _gaussian_primes():
        if rng.getrandbits(1):
            b = -b
        re, im = re * a - im * b, re * b + im * a
    h = re * re + im * im
    X, Y = re * re - im * im, 2 * re * im
    if rng.getrandbits(1):
        X, Y = -X, -Y
    return X, Y, h


def _sample_size() -> int:
    return 2 ** (len(_gaussian_primes()) + 1)


# ------------------------------------------------------------------ arithmetic domains
class _Fractions:
    """Exact rationals (``fractions.Fraction``); division allowed."""

    def const(self, r: Fraction) -> Any:
        return r

    def add(self, xs: Sequence[Any]) -> Any:
        return sum(xs, Fraction(0))

    def mul(self, xs: Sequence[Any]) -> Any:
        out = Fraction(1)
        for x in xs:
            out *= x
        return out

    def pow(self, x: Any, e: int) -> Any:
        return x**e

    def inv(self, x: Any) -> Any:
        if x == 0:
            raise _VanishedError
        return 1 / x

    def is_zero(self, x: Any) -> bool:
        return bool(x == 0)


class _Scaled:
    """Integers over powers of one common denominator H: (num, k) is num / H^k.

    Every circle point and every constant of the programs is an integer over H, so sums
    and products need no gcd (the cost of ``Fraction``); division is not available.
    """

    def __init__(self, H: int) -> None:
        self.H = H
        self._powers = [1, H]

    def _hp(self, k: int) -> int:
        while len(self._powers) <= k:
            self._powers.append(self._powers[-1] * self.H)
        return self._powers[k]

    def const(self, r: Fraction) -> Any:
        num = r.numerator * self.H
        if num % r.denominator:
            raise _UnsupportedError(f"constant {r} is not an integer over the common denominator")
        return (num // r.denominator, 1) if r.denominator != 1 else (r.numerator, 0)

    def add(self, xs: Sequence[Any]) -> Any:
        k = max(x[1] for x in xs)
        return (sum(n * self._hp(k - kk) for n, kk in xs), k)

    def mul(self, xs: Sequence[Any]) -> Any:
        num, k = 1, 0
        for n, kk in xs:
            num *= n
            k += kk
        return (num, k)

    def pow(self, x: Any, e: int) -> Any:
        return (x[0] ** e, x[1] * e)

    def inv(self, x: Any) -> Any:
        raise _UnsupportedError("division")

    def is_zero(self, x: Any) -> bool:
        return x[0] == 0

    def fraction(self, x: Any) -> Fraction:
        return Fraction(x[0], self._hp(x[1]))


class _Dual:
    """Values (x, ẋ) over a base domain: the time derivative along the drawn direction."""

    def __init__(self, base: Any) -> None:
        self.base = base

    def const(self, r: Fraction) -> Any:
        return (self.base.const(r), self.base.const(Fraction(0)))

    def add(self, xs: Sequence[Any]) -> Any:
        return (self.base.add([x for x, _ in xs]), self.base.add([d for _, d in xs]))

    def mul(self, xs: Sequence[Any]) -> Any:
        b = self.base
        val, der = xs[0]
        for x, d in xs[1:]:
            val, der = b.mul([val, x]), b.add([b.mul([der, x]), b.mul([val, d])])
        return (val, der)

    def pow(self, x: Any, e: int) -> Any:
        b = self.base
        if e == 0:
            return self.const(Fraction(1))
        return (b.pow(x[0], e), b.mul([b.const(Fraction(e)), b.pow(x[0], e - 1), x[1]]))

    def inv(self, x: Any) -> Any:
        b = self.base
        r = b.inv(x[0])
        return (r, b.mul([b.const(Fraction(-1)), r, r, x[1]]))

    def is_zero(self, x: Any) -> bool:
        return bool(self.base.is_zero(x[0]) and self.base.is_zero(x[1]))


class _Torus:
    """Exact polynomials on the torus: symengine expressions in the circle symbols
    (cᵢ, sᵢ) and every other input, expanded, with sᵢ² = 1 − cᵢ² applied.

    The ideal (cᵢ² + sᵢ² − 1)ᵢ has the Gröbner basis it is written in (the leading terms
    sᵢ² are coprime), so every polynomial has one normal form with each sᵢ of degree at most
    one, and it is zero exactly when the polynomial vanishes on the (real) torus, which is
    Zariski-dense in the variety of that prime ideal. Products are expanded and reduced as
    they are formed (keeping the intermediates small); :meth:`is_zero` reduces to the
    normal form completely before comparing with 0. Division is not available.
    """

    def __init__(self, circles: Sequence[tuple[Any, Any]], others: int = 0) -> None:
        import symengine as se

        self.se = se
        self.circles = list(circles)
        self.others = [se.Symbol(f"_ldtx{j}") for j in range(others)]
        self._vars = [v for pair in self.circles for v in pair] + self.others
        self._sines = {s: c for c, s in self.circles}
        self._held: dict[Any, frozenset[Any]] = {}
        self._rules: dict[Any, Any] = {}
        self._top = 1
        self._grow(6)

    def _grow(self, top: int) -> None:
        """Rules s**e -> s**(e % 2) (1 - c²)**(e // 2) for 2 <= e <= top."""
        for c, s in self.circles:
            for e in range(max(2, self._top + 1), top + 1):
                self._rules[s**e] = (1 - c**2) ** (e // 2) * (s if e % 2 else 1)
        self._top = max(self._top, top)

    def _reduce(self, x: Any) -> Any:
        y = x.xreplace(self._rules)
        return x if y is x else self.se.expand(y)

    def normal_form(self, x: Any) -> Any:
        """The normal form: no sine of degree 2 or more is left."""
        se = self.se
        x = self._reduce(se.expand(x))
        while True:
            high = [
                int(a.args[1])
                for a in x.atoms(se.Pow)
                if a.args[0] in self._sines and a.args[1].is_Integer and int(a.args[1]) >= 2
            ]
            if not high:
                return x
            self._grow(max(high))
            x = self._reduce(x)

    def _sines_of(self, x: Any) -> frozenset[Any]:
        """The sines a value holds (memoized; values are built here, so mostly known)."""
        found = self._held.get(x)
        if found is None:
            found = frozenset(v for v in x.free_symbols if v in self._sines)
            self._held[x] = found
        return found

    def const(self, r: Fraction) -> Any:
        return self.se.Rational(r.numerator, r.denominator)

    def add(self, xs: Sequence[Any]) -> Any:
        out = self.se.Add(*xs)
        self._held[out] = frozenset().union(*(self._sines_of(x) for x in xs))
        return out

    def mul(self, xs: Sequence[Any]) -> Any:
        # Every value of this domain is reduced (each sine of degree at most one): the
        # rules reach as far as any product can raise a degree. Reduced factors with no
        # sine in common multiply into a reduced product.
        se = self.se
        held = [self._sines_of(x) for x in xs]
        union = frozenset().union(*held)
        if sum(map(len, held)) == len(union):
            out = se.expand(se.Mul(*xs))
        else:
            shared = [v for v in union if sum(v in h for h in held) > 1]
            self._grow(max(sum(v in h for h in held) for v in shared))
            if len(shared) == 1:
                # X Y with X = X0 + s X1, Y = Y0 + s Y1 (X1 = ∂X/∂s: degree one):
                # X0 Y0 + s (X0 Y1 + X1 Y0) + (1 − c²) X1 Y1, no re-expansion of s²
                (v,) = shared
                pair = [x for x, h in zip(xs, held) if v in h]
                rest = [x for x, h in zip(xs, held) if v not in h]
                if len(pair) == 2:
                    (X, Y), zero = pair, {v: se.Integer(0)}
                    X1, Y1 = X.diff(v), Y.diff(v)
                    X0, Y0 = X.xreplace(zero), Y.xreplace(zero)
                    body = X0 * Y0 + v * (X0 * Y1 + X1 * Y0) + (1 - self._sines[v] ** 2) * X1 * Y1
                    out = se.expand(se.Mul(body, *rest))
                    self._held[out] = union
                    return out
            out = self._reduce(se.expand(se.Mul(*xs)))
        self._held[out] = union
        return out

    def pow(self, x: Any, e: int) -> Any:
        out = self.se.expand(x**e)
        held = self._sines_of(x)
        if held and e > 1:
            self._grow(e)
            out = self._reduce(out)
        self._held[out] = held
        return out

    def inv(self, x: Any) -> Any:
        raise _UnsupportedError("division")

    def is_zero(self, x: Any) -> bool:
        return bool(self.normal_form(x) == 0)

    # the layout of :class:`PackedTorus`: variables 2k, 2k + 1 are (cₖ, sₖ), then the others
    def circle(self, k: int) -> tuple[Any, Any]:
        return self.circles[k][0], self.circles[k][1]

    def var(self, j: int) -> Any:
        return self.others[j]

    def rate(
        self, x: Any, moving: Sequence[tuple[int, Any]], linear: Sequence[tuple[int, Any]] = ()
    ) -> Any:
        """Σ ω (cₖ ∂x/∂sₖ − sₖ ∂x/∂cₖ) over ``moving`` plus Σ rate ∂x/∂v over ``linear``."""
        terms = []
        for k, omega in moving:
            c, s = self.circles[k]
            terms.append(self.mul([omega, c, x.diff(s)]))
            terms.append(self.mul([self.se.Integer(-1), omega, s, x.diff(c)]))
        terms += [self.mul([rate, x.diff(self._vars[v])]) for v, rate in linear]
        return self.add(terms)


class _Degrees:
    """Upper bounds on degrees: (numerator, denominator) vectors over n joints + the rest.

    Entry i < n is the degree in the pair (cᵢ, sᵢ); entry n the total degree in every other
    variable. Sums are taken over a common denominator, so the bounds are safe for the
    numerator of the whole residual.
    """

    def __init__(self, n: int) -> None:
        self.zero = (0,) * (n + 1)

    def const(self, r: Fraction) -> Any:
        return (self.zero, self.zero)

    @staticmethod
    def _plus(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(x + y for x, y in zip(a, b))

    def add(self, xs: Sequence[Any]) -> Any:
        num, den = xs[0]
        for n2, d2 in xs[1:]:
            num = tuple(max(a, b) for a, b in zip(self._plus(num, d2), self._plus(n2, den)))
            den = self._plus(den, d2)
        return (num, den)

    def mul(self, xs: Sequence[Any]) -> Any:
        num, den = xs[0]
        for n2, d2 in xs[1:]:
            num, den = self._plus(num, n2), self._plus(den, d2)
        return (num, den)

    def pow(self, x: Any, e: int) -> Any:
        return (tuple(e * v for v in x[0]), tuple(e * v for v in x[1]))

    def inv(self, x: Any) -> Any:
        return (x[1], x[0])

    def is_zero(self, x: Any) -> bool:
        return False

    def unit(self, i: int) -> Any:
        return (tuple(int(j == i) for j in range(len(self.zero))), self.zero)

    def numerator_degree(self, x: Any) -> int:
        """Total degree bound of the numerator after (c, s) → rational functions of t."""
        *joints, rest = x[0]
        return 2 * sum(joints) + rest

    def denominator_degree(self, x: Any) -> int:
        """The same bound for the denominator."""
        *joints, rest = x[1]
        return 2 * sum(joints) + rest


# ------------------------------------------------------------------ evaluation
def _number(e: sp.Expr) -> Fraction:
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Float:
        r = sp.Rational(e)  # the Float's exact binary value
        return Fraction(int(r.p), int(r.q))
    raise _UnsupportedError(str(e))


def _evaluate(e: sp.Expr, env: dict[sp.Basic, Any], dom: Any) -> Any:
    hit = env.get(e)
    if hit is not None:
        return hit
    if e.is_Add:
        return dom.add([_evaluate(a, env, dom) for a in e.args])
    if e.is_Mul:
        return dom.mul([_evaluate(a, env, dom) for a in e.args])
    if e.is_Pow:
        base, ex = e.args
        if not ex.is_Integer:
            raise _UnsupportedError(str(e))
        x = _evaluate(base, env, dom)
        k = int(ex)
        return dom.pow(x, k) if k >= 0 else dom.inv(dom.pow(x, -k))
    if e.is_Number:
        return dom.const(_number(e))
    raise _UnsupportedError(str(e))


def _run(prog: Program, env: dict[sp.Basic, Any], dom: Any) -> list[Any]:
    """The program's outputs in ``dom`` (intermediates bound in a copy of ``env``)."""
    local = dict(env)
    for s, e in prog.body:
        local[s] = _evaluate(e, local, dom)
    return [_evaluate(o, local, dom) for o in prog.outputs]


# ------------------------------------------------------------------ the identities
@dataclass
class _Programs:
    """The programs an identity reads, built on demand (cached on the system)."""

    system: Any

    def get(self, name: str) -> Program:
        sysm = self.system
        if not getattr(sysm, "friction", False) or name in ("M", "C", "h", "g"):
            return sysm.program(name)
        # identities are stated without friction (Coulomb's sign is not polynomial)
        cache: dict[str, Program] = sysm.__dict__.setdefault("_proof_programs", {})
        if name not in cache:
            cache[name] = {
                "tau": lambda: _rnea(sysm.chain),
                "qdd": lambda: _forward_dynamics(sysm.chain),
            }[name]()
        return cache[name]

    def energy(self) -> Program:
        cache: dict[str, Program] = self.system.__dict__.setdefault("_proof_programs", {})
        if "E" not in cache:
            cache["E"] = _energy(self.system.chain)
        return cache["E"]


# each identity: (programs it needs, residuals from (domain, outputs by name, inputs))
def _symmetric(dom: Any, out: dict[str, Any], x: dict[str, Any], n: int) -> list[Any]:
    M = out["M"]
    neg = dom.const(Fraction(-1))
    return [
        dom.add([M[i * n + j], dom.mul([neg, M[j * n + i]])]) for i in range(n) for j in range(i)
    ]


def _skew(dom: Any, out: dict[str, Any], x: dict[str, Any], n: int) -> list[Any]:
    dM, C = out["dM"], out["C"]
    neg = dom.const(Fraction(-1))
    return [
        dom.add([dM[i * n + j], dom.mul([neg, C[i * n + j]]), dom.mul([neg, C[j * n + i]])])
        for i in range(n)
        for j in range(i, n)
    ]


def _coriolis(dom: Any, out: dict[str, Any], x: dict[str, Any], n: int) -> list[Any]:
    C, g, h, qd = out["C"], out["g"], out["h"], x["qd"]
    neg = dom.const(Fraction(-1))
    return [
        dom.add([*(dom.mul([C[i * n + j], qd[j]]) for j in range(n)), g[i], dom.mul([neg, h[i]])])
        for i in range(n)
    ]


def _balance(accel: str | None) -> Callable[..., list[Any]]:
    """Residuals M a + h − τ: a = the drawn q̈ (``accel=None``) or a program's output."""

    def residuals(dom: Any, out: dict[str, Any], x: dict[str, Any], n: int) -> list[Any]:
        M, h = out["M"], out["h"]
        a = x["qdd"] if accel is None else out[accel]
        tau = out["tau"] if accel is None else x["tau"]
        neg = dom.const(Fraction(-1))
        return [
            dom.add(
                [*(dom.mul([M[i * n + j], a[j]]) for j in range(n)), h[i], dom.mul([neg, tau[i]])]
            )
            for i in range(n)
        ]

    return residuals


def _passive(dom: Any, out: dict[str, Any], x: dict[str, Any], n: int) -> list[Any]:
    dE, tau, qd = out["dE"], out["tau"], x["qd"]
    neg = dom.const(Fraction(-1))
    power = dom.add([dom.mul([qd[i], tau[i]]) for i in range(n)])
    return [dom.add([dE[0], dom.mul([neg, power])])]


_IDENTITIES: dict[str, tuple[tuple[str, ...], Callable[..., list[Any]]]] = {
    "symmetric": (("M",), _symmetric),
    "skew": (("dM", "C"), _skew),
    "coriolis": (("C", "g", "h"), _coriolis),
    "inverse": (("M", "h", "tau"), _balance(None)),
    "forward": (("M", "h", "qdd"), _balance("qdd")),
    "passive": (("dE", "tau"), _passive),
}


# ------------------------------------------------------------------ the report
@dataclass(frozen=True)
class ProgramProofs:
    """What :func:`prove` decided for each identity of the recursive programs.

    Attributes
    ----------
    results : dict
        Identity name → True (proved), False (a counterexample: certain) or None (not
        decidable by exact evaluation).
    error_bound : dict
        Identity name → the probability that a ``True`` is wrong (0 for False and None,
        and for an exact decision).
    draws : dict
        Identity name → the number of random exact points evaluated (0 for an exact
        decision).
    seconds : dict
        Identity name → time taken (program construction excluded; see ``build_seconds``).
    build_seconds : float
        Time spent building the programs the identities read (0 when they were cached).
    floats : bool
        The programs hold floating-point numbers: a residual that is not zero is then
        reported ``None`` (it may be the rounding of a rotation), not ``False``.
    exact : dict
        Identity name → True when it was decided by expanding the programs (a decision,
        see the module docstring), False when by random exact points.

    Examples
    --------
    >>> import lagdyn as ld
    >>> report = ld.robot.proofs.prove(ld.zoo.get("planar_3r"), ["skew"])
    >>> report.results, report.error_bound["skew"] < 2.0**-100
    ({'skew': True}, True)
    """

    results: dict[str, bool | None]
    error_bound: dict[str, float]
    draws: dict[str, int]
    seconds: dict[str, float] = field(default_factory=dict)
    build_seconds: float = 0.0
    floats: bool = False
    exact: dict[str, bool] = field(default_factory=dict)

    def __getattr__(self, name: str) -> bool | None:
        results = self.__dict__.get("results", {})
        if name in results:
            return results[name]
        raise AttributeError(name)

    @property
    def ok(self) -> bool:
        """True when every identity checked was proved.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.robot.proofs.prove(ld.zoo.get("planar_3r"), ["inverse"]).ok
        True
        """
        return all(v is True for v in self.results.values())

    def lines(self) -> list[str]:
        """One line per identity, for printing.

        Examples
        --------
        >>> import lagdyn as ld
        >>> report = ld.robot.proofs.prove(ld.zoo.get("planar_3r"), ["skew", "inverse"])
        >>> for line in report.lines():  # doctest: +ELLIPSIS
        ...     print(line)
        Ṁ − 2C skew-symmetric (recursive programs): proved (exact: ...)
        M q̈ + h = τ (CRBA against RNEA): proved (error probability < 2^-...)
        """
        words = {
            "symmetric": "M symmetric (CRBA)",
            "skew": "Ṁ − 2C skew-symmetric (recursive programs)",
            "coriolis": "C q̇ + g = h (recursive C against RNEA)",
            "inverse": "M q̈ + h = τ (CRBA against RNEA)",
            "forward": "M q̈(τ) + h = τ (forward dynamics against CRBA, RNEA)",
            "passive": "dE/dt = q̇ᵀτ (energy against RNEA)",
        }
        out = []
        for name, value in self.results.items():
            if value is True and self.exact.get(name):
                verdict = "proved (exact: the expanded residual is zero on the torus)"
            elif value is True:
                bits = -math.log2(self.error_bound[name]) if self.error_bound[name] > 0 else 1e9
                verdict = f"proved (error probability < 2^-{int(bits)})"
            elif value is False:
                verdict = "FAILS (exact counterexample found)"
            elif self.floats:
                verdict = "unknown (floating-point constants: exact identities cannot hold)"
            else:
                verdict = "unknown (not exactly evaluable)"
            out.append(f"{words[name]}: {verdict}")
        return out


#: The identities decided exactly (expanded on the torus) by ``method="auto"``.
EXACT_BY_DEFAULT = ("symmetric", "skew")

_METHODS = ("auto", "exact", "sample")


def prove(
    system: Any,
    checks: Sequence[str] | None = None,
    *,
    security: int = 100,
    method: str = "auto",
) -> ProgramProofs:
    """Prove the identities ``checks`` (default: all of :data:`CHECKS`) of a chain's programs.

    See the module docstring for the identities and the two methods. An exact decision
    expands the programs on the torus: ``True`` and ``False`` are both certain. Sampling
    evaluates them in exact rational arithmetic at random points (Schwartz–Zippel):
    ``False`` comes with an exact counterexample and is certain; ``True`` is wrong with
    probability at most ``error_bound`` ≤ 2^-``security``.

    Parameters
    ----------
    system : RobotSystem
        A chain built by :mod:`lagdyn.robot` or :func:`lagdyn.zoo.get`.
    checks : sequence of str, optional
        Names from :data:`CHECKS`.
    security : int
        Bits of confidence for a sampled ``True`` (20 … 1000).
    method : {"auto", "exact", "sample"}
        ``"auto"``: exact decisions for :data:`EXACT_BY_DEFAULT` (symmetry, skew
        symmetry), samples for the others; ``"exact"``: decisions for every polynomial
        identity (``forward``, a rational one, is still sampled; ``passive`` expands the
        energy and τ with symbolic q̈: 0.14 s for the UR5, 0.5 s for the Panda);
        ``"sample"``: random points only (fast, probabilistic ``True``).

    Raises
    ------
    LagdynError
        ``system`` is not a chain, an unknown check or method, or a security out of range.

    Examples
    --------
    >>> import lagdyn as ld
    >>> report = ld.robot.proofs.prove(ld.zoo.get("puma560"), ["skew", "forward"])
    >>> report.skew, report.forward
    (True, True)
    """
    chain = chain_of(system)
    if chain is None or not hasattr(system, "program"):
        raise LagdynError(f"prove needs a robot chain (a RobotSystem), got {type(system).__name__}")
    names = list(CHECKS if checks is None else checks)
    unknown = [c for c in names if c not in CHECKS]
    if unknown:
        raise LagdynError(f"unknown check(s) {unknown}; known: {', '.join(CHECKS)}")
    if not isinstance(security, int) or not 20 <= security <= 1000:
        raise LagdynError(f"security must be an integer from 20 to 1000 bits, got {security!r}")
    if method not in _METHODS:
        raise LagdynError(f"method must be one of {', '.join(map(repr, _METHODS))}, got {method!r}")
    progs = _Programs(system)
    t0 = time.perf_counter()
    needed: dict[str, Program] = {}
    for name in names:
        for what in _IDENTITIES[name][0]:
            key = _key(what)
            if key not in needed:
                needed[key] = progs.energy() if key == "E" else progs.get(key)
    build = time.perf_counter() - t0
    sizes = {"M": chain.n**2, "C": chain.n**2, "E": 1}
    for key, prog in needed.items():
        if len(prog.outputs) != sizes.get(key, chain.n):
            raise LagdynError(
                f"the {key} program has {len(prog.outputs)} outputs, not the "
                f"{sizes.get(key, chain.n)} of a fixed-base chain of {chain.n} joints: "
                "prove works on fixed-base chains (a floating base: "
                "lagdyn.recursive.floating.is_skew_symmetric)"
            )
    problem = _Problem.scan(chain, needed)
    results: dict[str, bool | None] = {}
    bounds: dict[str, float] = {}
    draws: dict[str, int] = {}
    seconds: dict[str, float] = {}
    exact: dict[str, bool] = {}
    for name in names:
        t1 = time.perf_counter()
        exact[name] = name != "forward" and (
            method == "exact" or (method == "auto" and name in EXACT_BY_DEFAULT)
        )
        if exact[name]:
            results[name], bounds[name], draws[name] = _decide_exact(name, problem), 0.0, 0
        else:
            results[name], bounds[name], draws[name] = _decide(name, problem, security)
        seconds[name] = time.perf_counter() - t1
    return ProgramProofs(results, bounds, draws, seconds, build, problem.floats, exact)


def is_skew_symmetric(system: Any, *, security: int = 100, method: str = "exact") -> bool | None:
    """Ṁ − 2C skew-symmetric for the chain's CRBA M and recursive Coriolis C (see :func:`prove`).

    By default an exact decision on the programs (``True`` and ``False`` certain; ``None``
    for floating-point programs); ``method="sample"`` for random exact points.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.robot.proofs.is_skew_symmetric(ld.zoo.get("puma560", parameters="symbolic"))
    True
    """
    return prove(system, ["skew"], security=security, method=method).results["skew"]


def is_passive(system: Any, *, security: int = 100, method: str = "exact") -> bool | None:
    """dE/dt = q̇ᵀτ for the chain's energy and RNEA programs (see :func:`prove`).

    By default an exact decision on the programs, like :func:`is_skew_symmetric`.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.robot.proofs.is_passive(ld.zoo.get("spatial_3r", parameters="symbolic"))
    True
    """
    return prove(system, ["passive"], security=security, method=method).results["passive"]


def _key(what: str) -> str:
    """The program a residual input comes from (``dM`` from ``M``, ``dE`` from ``E``)."""
    return {"dM": "M", "dE": "E"}.get(what, what)


@dataclass
class _Problem:
    """The programs and what one walk over them found.

    ``circles`` are the atoms (cos, sin) of every angle: a revolute coordinate's, or a
    constant's such as cos(7/10) from a URDF rpy. The cosine of a nonzero rational angle is
    transcendental (Lindemann), so (cos a, sin a) is a generic point of the circle and an
    identity holds there exactly when it holds on the whole circle: it is drawn like a
    joint's. An identity that holds on the whole circle holds at any angle, so ``True`` is
    sound for every constant angle; but a counterexample elsewhere on the circle refutes
    nothing at an angle whose cosine may be algebraic (π/7): ``inexact`` is then set, like
    for a floating-point number (a rotation entry rounded to a float is not exactly
    orthogonal), and a nonzero residual is undecided instead of ``False``.
    """

    n: int
    progs: dict[str, Program]
    params: tuple[sp.Basic, ...]
    circles: list[tuple[sp.Basic, sp.Basic, sp.Basic | None]]  # (cos, sin, rate symbol)
    prismatic: list[tuple[sp.Basic, sp.Basic]]  # (q, q̇)
    denominator: int
    floats: bool
    inexact: bool

    @classmethod
    def scan(cls, chain: Chain, progs: dict[str, Program]) -> _Problem:
        ins = input_symbols(chain.n)
        known = {s for syms in ins.values() for s in syms}
        circles: list[tuple[sp.Basic, sp.Basic, sp.Basic | None]] = []
        prismatic = []
        for link, q, v in zip(chain.links, ins["q"], ins["qd"]):
            if link.joint == "revolute":
                circles.append((sp.cos(q), sp.sin(q), v))
            else:
                prismatic.append((q, v))
        angles: set[sp.Basic] = set()
        params: set[sp.Basic] = set()
        den, floats = 1, False
        seen: set[sp.Basic] = set()
        for prog in progs.values():
            known |= {s for s, _ in prog.body}
            for e in [e for _, e in prog.body] + list(prog.outputs):
                stack = [e]
                while stack:
                    a = stack.pop()
                    if a in seen:
                        continue
                    seen.add(a)
                    if a.is_Number:
                        den = math.lcm(den, _number(a).denominator)
                        floats = floats or bool(a.is_Float)
                    elif a.is_Symbol:
                        params.add(a)
                    elif isinstance(a, (sp.cos, sp.sin)) and not a.args[0].free_symbols:
                        angles.add(a.args[0])
                    else:
                        stack.extend(a.args)
        circles += [(sp.cos(a), sp.sin(a), None) for a in sorted(angles, key=str)]
        generic = all(a.is_Rational and a != 0 for a in angles)
        return cls(
            chain.n,
            progs,
            tuple(sorted(params - known, key=str)),
            circles,
            prismatic,
            den,
            floats,
            floats or not generic,
        )

    def environment(self, circle: Callable[[int], Any], other: Callable[[], Any]) -> Any:
        """Values of every input: (env, x) with x the q̇, q̈, τ vectors by name."""
        ins = input_symbols(self.n)
        env: dict[sp.Basic, Any] = {s: other() for s in self.params}
        for k, (c, s, _) in enumerate(self.circles):
            env[c], env[s] = circle(k)
        for q, _ in self.prismatic:
            env[q] = other()
        x = {key: [other() for _ in range(self.n)] for key in ("qd", "qdd", "tau")}
        for key in x:
            env.update(zip(ins[key], x[key]))
        return env, x


def _decide(name: str, problem: _Problem, security: int) -> tuple[bool | None, float, int]:
    """(verdict, error bound, draws) for one identity."""
    needs, residuals = _IDENTITIES[name]
    rational = "qdd" in needs
    try:
        degree, den_degree = _residual_degree(needs, residuals, problem)
    except _UnsupportedError:
        return None, 0.0, 0
    size = _sample_size()
    per_draw = degree / size
    if rational:  # conditioned on the denominators not vanishing at the point
        per_draw = per_draw / (1 - min(0.5, den_degree / size))
    if per_draw >= 1:  # pragma: no cover - needs degrees near 2^49
        return None, 0.0, 0
    wanted = 1 if per_draw == 0 else math.ceil(security / -math.log2(per_draw))
    rng = secrets.SystemRandom()
    done = misses = 0
    while done < wanted:
        try:
            zero = _draw_is_zero(needs, residuals, problem, rng, rational)
        except _UnsupportedError:
            return None, 0.0, done
        except _VanishedError:
            misses += 1
            if misses > 8:
                return None, 0.0, done
            continue
        if not zero:
            # exact counterexample, unless floats (rounded rotations) or a non-generic
            # constant angle may explain it
            return (None if problem.inexact else False), 0.0, done + 1
        done += 1
    return True, per_draw**wanted, done


def _decide_exact(name: str, problem: _Problem) -> bool | None:
    """Decide one polynomial identity by expanding the programs on the torus.

    Every input stays a variable: (cᵢ, sᵢ) for each circle (joint angles and constant
    angles), the parameters, a prismatic joint's q and the q̇, q̈, τ vectors. Each program
    statement is expanded and reduced as it is evaluated, in packed integer arithmetic
    (:class:`lagdyn.recursive.torus.PackedTorus`; the symengine domain :class:`_Torus`
    when an exponent outgrows the packed fields). The residuals' normal forms are then
    compared with 0: a decision, not a sample. ``None`` for floating-point programs (a
    rounded rotation is not exactly orthogonal) and for what the domain cannot take
    (division, other functions); a nonzero residual with a constant-angle circle is
    ``None`` too (constant angles may be algebraically dependent, 7/10 and 7/5, so the
    identity may still hold at them).

    The time derivatives (Ṁ, Ė) are taken on the expanded outputs by the chain rule,
    which is exact on polynomials and cheaper than dual numbers through the program.
    """
    needs, residuals = _IDENTITIES[name]
    if problem.floats:
        return None
    try:
        zero = _expand(needs, residuals, problem)
    except _UnsupportedError:
        return None
    if zero:
        return True
    # a constant angle's circle stands for one point of it: refuted elsewhere on the circle
    # (or with two dependent constant angles taken as independent), it may still hold there
    constant_angles = any(rate is None for _, _, rate in problem.circles)
    return None if problem.inexact or constant_angles else False


def torus_values(
    circles: Sequence[tuple[sp.Basic, sp.Basic, sp.Basic | None]],
    others: Sequence[sp.Basic],
    slides: Sequence[tuple[sp.Basic, sp.Basic]],
    wanted: Sequence[tuple[str, Program, bool]],
    *,
    packed: bool = True,
) -> tuple[Any, dict[sp.Basic, Any], dict[str, list[Any]]]:
    """Programs expanded on the torus in packed arithmetic (:class:`PackedTorus`), or
    with ``packed=False`` in symengine (:class:`_Torus`, the same normal form).

    ``circles``: (cos, sin, rate symbol or None for a constant angle) of every circle;
    ``others``: every other input symbol (parameters, rates, prismatic coordinates);
    ``slides``: (input, its rate) pairs that move linearly (a prismatic q with its q̇, q̇
    with q̈); ``wanted``: (name, program, take its time derivative). Returns the domain,
    the inputs' values and each name's outputs (time derivatives by the chain rule on the
    expanded outputs: ċ = −s q̇, ṡ = c q̇, plus the slides). Raises
    :class:`TorusOverflowError` when an exponent outgrows the packed fields and
    ``_UnsupportedError`` for what the domain cannot take (division, other functions).
    """
    dom: Any
    if packed:
        dom = PackedTorus(len(circles), len(others))
    else:
        import symengine as se

        marks = [(se.Symbol(f"_ldtc{k}"), se.Symbol(f"_ldts{k}")) for k in range(len(circles))]
        dom = _Torus(marks, len(others))
    env: dict[sp.Basic, Any] = {x: dom.var(j) for j, x in enumerate(others)}
    for k, (c, s_, _) in enumerate(circles):
        env[c], env[s_] = dom.circle(k)
    index = {x: 2 * len(circles) + j for j, x in enumerate(others)}
    moving = [(k, env[rate]) for k, (_, _, rate) in enumerate(circles) if rate is not None]
    linear = [(index[x], env[rate]) for x, rate in slides]
    out: dict[str, list[Any]] = {}
    for name, prog, derivative in wanted:
        try:
            values = _run(prog, env, dom)
        except ZeroDivisionError as exc:  # (the packed domain has no division)
            raise _UnsupportedError("division") from exc
        if derivative:
            # once per value: a symmetric M's program returns one value for m_ij and m_ji
            rates: dict[int, Any] = {}
            for v in values:
                if id(v) not in rates:
                    rates[id(v)] = dom.rate(v, moving, linear)
            values = [rates[id(v)] for v in values]
        out[name] = values
    return dom, env, out


def _expand(needs: Sequence[str], residuals: Callable[..., list[Any]], problem: _Problem) -> bool:
    """Whether every residual's normal form is zero: in :class:`PackedTorus` arithmetic,
    or in symengine when an exponent outgrows the packed fields."""
    n = problem.n
    ins = input_symbols(n)
    others: list[sp.Basic] = [*problem.params, *(q for q, _ in problem.prismatic)]
    for key in ("qd", "qdd", "tau"):
        others += ins[key]
    slides = [*problem.prismatic, *zip(ins["qd"], ins["qdd"])]
    wanted = [(what, problem.progs[_key(what)], what in ("dM", "dE")) for what in needs]
    try:
        dom, env, out = torus_values(problem.circles, others, slides, wanted)
    except TorusOverflowError:
        dom, env, out = torus_values(problem.circles, others, slides, wanted, packed=False)
    x = {key: [env[v] for v in ins[key]] for key in ("qd", "qdd", "tau")}
    return all(dom.is_zero(r) for r in residuals(dom, out, x, n))


def _residual_degree(
    needs: Sequence[str], residuals: Callable[..., list[Any]], problem: _Problem
) -> tuple[int, int]:
    """Bounds on the total degrees of the numerator and the denominator of every residual."""
    groups = len(problem.circles)
    dom = _Degrees(groups)
    rest = dom.unit(groups)
    env, x = problem.environment(lambda k: (dom.unit(k), dom.unit(k)), lambda: rest)
    out: dict[str, Any] = {}
    for what in needs:
        vals = _run(problem.progs[_key(what)], env, dom)
        if what in ("dM", "dE"):  # a time derivative: same circle degrees, one more factor
            vals = [dom.mul([v, rest]) for v in vals]
        out[what] = vals
    res = residuals(dom, out, x, problem.n)
    return (
        max(dom.numerator_degree(r) for r in res),
        max(dom.denominator_degree(r) for r in res),
    )


def _draw_is_zero(
    needs: Sequence[str],
    residuals: Callable[..., list[Any]],
    problem: _Problem,
    rng: secrets.SystemRandom,
    rational: bool,
) -> bool:
    """Evaluate the residuals exactly at one random point; True if all vanish."""
    bits = len(_gaussian_primes()) + 1
    points = [_circle_point(rng) for _ in problem.circles]
    h = points[0][2] if points else 1
    consts = problem.denominator
    base: Any = _Fractions() if rational else _Scaled(h * consts)
    cs: list[Any]
    if rational:
        cs = [(Fraction(X, h), Fraction(Y, h)) for X, Y, _ in points]
    else:
        cs = [((X * consts, 1), (Y * consts, 1)) for X, Y, _ in points]
    env, x = problem.environment(
        lambda k: cs[k], lambda: base.const(Fraction(rng.getrandbits(bits)))
    )
    out: dict[str, Any] = {}
    for what in needs:
        if what in ("dM", "dE"):
            out[what] = _rates(problem, _key(what), env, x, base)
        else:
            out[what] = _run(problem.progs[what], env, base)
    return all(base.is_zero(r) for r in residuals(base, out, x, problem.n))


def _rates(
    problem: _Problem, key: str, env: dict[sp.Basic, Any], x: dict[str, Any], base: Any
) -> list[Any]:
    """d/dt of the program's outputs along q̇ = x["qd"], q̈ = x["qdd"] (dual numbers)."""
    zero = base.const(Fraction(0))
    minus = base.const(Fraction(-1))
    denv: dict[sp.Basic, Any] = {s: (v, zero) for s, v in env.items()}
    ins = input_symbols(problem.n)
    rate = dict(zip(ins["qd"], x["qd"]))
    for c, s, v in problem.circles:
        if v is not None:  # a coordinate: ċ = −s q̇, ṡ = c q̇
            denv[c] = (env[c], base.mul([minus, env[s], rate[v]]))
            denv[s] = (env[s], base.mul([env[c], rate[v]]))
    for q, v in problem.prismatic:
        denv[q] = (env[q], rate[v])
    for i, s in enumerate(ins["qd"]):  # q̇ moves with q̈
        denv[s] = (x["qd"][i], x["qdd"][i])
    return [d for _, d in _run(problem.progs[key], denv, _Dual(base))]
