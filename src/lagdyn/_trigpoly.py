"""Canonical trigonometric polynomials: the fast derivation engine.

Representation
--------------
Mass matrices of mechanisms built from revolute and prismatic joints are
*trigonometric polynomials* in the coordinates ``q``:

.. math::

    f(q) = \\sum_{e} A_e \\cos(e \\cdot q) + B_e \\sin(e \\cdot q),

where each frequency vector ``e`` has rational components and the coefficients
``A_e``, ``B_e`` are polynomials in the parameters, in other symbols (such as
velocities) and in ``q`` itself (prismatic joints give terms like ``r**2``).

A sympy expression is *encoded* by replacing every trigonometric atom
``cos(e·q + c)``, ``sin(e·q + c)`` by a Laurent monomial in ``z_k = exp(i q_k / d_k)``
(one formal symbol per coordinate; ``d_k`` is the common denominator of the
frequencies of ``q_k``). Symbolic phases ``c`` (free of ``q``) get formal
symbols of their own, so ``cos(c)**2 + sin(c)**2`` cancels too; numeric phases
are expanded with ``cos(c)``, ``sin(c)`` as numeric coefficients. One
``symengine.expand`` then does every product-to-sum conversion, and the
expanded Laurent polynomial is *decoded* into a dictionary

``{e: (A_e, B_e)}``  (``e`` canonical: its first nonzero component is positive;
``e = 0`` carries only ``A``)

with expanded symengine coefficients. Monomials ``q**m z**n`` are linearly
independent functions, so the dictionary is canonical: an expression is
identically zero exactly when its dictionary is empty. Derivatives are exact
dictionary maps,

.. math::

    \\partial_k (A \\cos\\theta + B \\sin\\theta)
      = (\\partial_k A + e_k B) \\cos\\theta + (\\partial_k B - e_k A) \\sin\\theta,

and Christoffel symbols are dictionary sums, so like terms cancel as they are
formed and ``C`` never swells. Anything outside this class (``exp(q)``,
``sqrt(q)``, ``tan(q)``, ``q`` in a denominator, unknown functions of ``q``,
nonlinear or irrational trigonometric arguments) is *not representable*: the
public functions return ``None`` and the caller falls back to a general path.

Public functions: :func:`derive` (``M, V`` → ``M, Γ, C, g`` and an exact skew
proof), :func:`is_zero` (exact zero test) and :func:`canonical` (compact
canonical rebuild).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import symengine as se
import sympy

from ._common import distinct_nodes
from ._convert import SymbolTable
from ._convert import canonical_add as _add
from ._convert import canonical_mul as _mul
from ._lintrig import LinearTrigEncoder, NotLinearError, combine, is_zero_form

__all__ = ["FastDerivation", "canonical", "derive", "is_zero"]

Key = tuple[int, ...]
#: A trigonometric polynomial: frequency key -> (cos coefficient, sin coefficient).
TrigPoly = dict[Key, tuple[Any, Any]]

_ZERO = se.Integer(0)
_HALF = se.Rational(1, 2)
_ONE = se.Integer(1)
_H = Fraction(1, 2)
#: stands for the angle 1 while an argument is parsed (a rational phase r is r·1)
_UNIT_ANGLE = sympy.Symbol("_lagdyn_unit_angle")
_MAX_DENOMINATOR = 1024


class _NotRepresentableError(Exception):
    """Raised internally when an expression leaves the trig-polynomial class."""


def _as_rational(value: sympy.Expr) -> Fraction | None:
    """Return a rational number for a sympy Rational or a short binary Float."""
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    if value.is_Float:
        frac = Fraction(float(value)).limit_denominator(_MAX_DENOMINATOR)
        if float(frac) == float(value):
            return frac
    return None


def trig_atoms(exprs: Iterable[sympy.Basic]) -> set[sympy.Basic]:
    """Every cos/sin atom of ``exprs``, visiting each distinct subtree once (arguments of
    the atoms not entered)."""

    def trig(node: sympy.Basic) -> bool:
        return isinstance(node, (sympy.cos, sympy.sin))

    return {node for node in distinct_nodes(exprs, stop=trig) if trig(node)}


class _Encoder:
    """Converts sympy expressions to expanded symengine Laurent polynomials.

    One encoder is shared by every expression that must live in the same
    dictionary space (all entries of ``M`` and ``V``), so that frequency keys
    and denominators agree.
    """

    def __init__(self, q: Sequence[sympy.Basic]) -> None:
        self.q = tuple(q)
        self.qset = frozenset(self.q)
        self.n = len(self.q)
        # angle variables: q first, then symbolic phase atoms
        self.angles: list[sympy.Basic] = list(self.q)
        self.angle_index: dict[sympy.Basic, int] = {qk: k for k, qk in enumerate(self.q)}
        self.denominators: list[int] = [1] * self.n
        self.trig: dict[sympy.Basic, tuple[dict[int, Fraction], sympy.Expr]] = {}
        self.sym: dict[sympy.Basic, Any] = {}  # sympy atom -> symengine symbol
        self.back: dict[str, sympy.Basic] = {}  # symengine name -> sympy object
        self.qse: list[Any] = [self._symbol(qk) for qk in self.q]
        self.qse_set = frozenset(self.qse)
        self.z: list[Any] = []
        self.z_index: dict[Any, int] = {}
        self.laurent: dict[sympy.Basic, Any] = {}
        self.memo: dict[sympy.Basic, Any] = {}
        self._table = SymbolTable(self.back)  # shares the dict: names added later count
        self.compact_memo: dict[Any, sympy.Expr] = {}
        self._trig_memo: dict[tuple[Key, int], sympy.Expr] = {}
        self._pow_memo: dict[tuple[Any, int], sympy.Expr] = {}
        self._angle_memo: dict[Key, sympy.Expr] = {}
        self.poly_q: set[int] = set()  # coordinates that occur outside trig atoms
        self._frozen = False

    # -- symbols ---------------------------------------------------------
    def _symbol(self, atom: sympy.Basic) -> Any:
        found = self.sym.get(atom)
        if found is not None:
            return found
        base = atom.name if isinstance(atom, sympy.Symbol) else "_lagdyn_atom"
        name = base
        count = 0
        while name in self.back:
            count += 1
            name = f"{base}__{count}"
        symbol = se.Symbol(name)
        self.sym[atom] = symbol
        self.back[name] = atom
        return symbol

    # -- pass 1: trig arguments -------------------------------------------
    def register(self, exprs: Iterable[sympy.Expr]) -> None:
        """Parse every trig argument; fix denominators. Raises if not representable."""
        if self._frozen:
            raise RuntimeError("encoder already frozen")
        for atom in trig_atoms(exprs):
            if atom not in self.trig:
                self.trig[atom] = self._parse_argument(atom.args[0])

    def _parse_argument(self, arg: sympy.Expr) -> tuple[dict[int, Fraction], sympy.Expr]:
        freqs: dict[int, Fraction] = {}
        numeric: list[sympy.Expr] = []
        for term in sympy.Add.make_args(arg):
            if term.is_Rational:
                # a rational phase r is the frequency r of the angle 1: e^{i} is
                # transcendental, so its powers are as independent as a coordinate's
                term = term * _UNIT_ANGLE
            elif term.is_number:
                numeric.append(term)
                continue
            coeff, rest = term.as_coeff_Mul()
            ratio = _as_rational(coeff)
            if ratio is None:
                coeff, rest, ratio = sympy.S.One, term, Fraction(1)
            if rest is _UNIT_ANGLE:
                rest = sympy.S.One
            if rest in self.qset:
                idx = self.angle_index[rest]
            elif rest.has(*self.q):
                raise _NotRepresentableError(arg)
            else:
                idx = self.angle_index.get(rest, -1)
                if idx < 0:
                    idx = len(self.angles)
                    self.angles.append(rest)
                    self.angle_index[rest] = idx
                    self.denominators.append(1)
            freqs[idx] = freqs.get(idx, Fraction(0)) + ratio
        phase = sympy.Add(*numeric)
        if phase != 0 and any(
            f.atoms(sympy.cos, sympy.sin) for f in (sympy.cos(phase), sympy.sin(phase))
        ):
            # cos(π/7): algebraic, but not in closed form; as an opaque number its
            # relations (cos² + sin² = 1, ...) would be lost and zero tests could fail
            raise _NotRepresentableError(arg)
        for idx, ratio in freqs.items():
            d = self.denominators[idx]
            self.denominators[idx] = d * ratio.denominator // math.gcd(d, ratio.denominator)
        return {i: r for i, r in freqs.items() if r}, phase

    def extend(self, exprs: Iterable[sympy.Expr]) -> bool:
        """Register the trig atoms of ``exprs``, also after :meth:`freeze` when they need
        no new angle and no new denominator; False (nothing registered) otherwise."""
        if not self._frozen:
            try:
                self.register(exprs)
            except _NotRepresentableError:
                return False
            return True
        found: dict[sympy.Basic, tuple[dict[int, Fraction], sympy.Expr]] = {}
        width = len(self.angles)
        denominators = list(self.denominators)
        for atom in trig_atoms(exprs):
            if atom in self.trig or atom in found:
                continue
            try:
                parsed = self._parse_argument(atom.args[0])
            except _NotRepresentableError:
                parsed = None
            if parsed is None or len(self.angles) != width or self.denominators != denominators:
                for extra in self.angles[width:]:
                    del self.angle_index[extra]
                del self.angles[width:]
                self.denominators[:] = denominators
                return False
            found[atom] = parsed
        self.trig.update(found)
        return True

    def freeze(self) -> None:
        """Create the Laurent symbols once all trig arguments are registered."""
        if self._frozen:
            return
        self._frozen = True
        for idx in range(len(self.angles)):
            z = se.Symbol(f"_lagdyn_z{idx}")
            self.z.append(z)
            self.z_index[z] = idx

    # -- pass 2: conversion -------------------------------------------------
    def encode(self, expr: sympy.Expr) -> Any:
        """Return the expanded symengine Laurent polynomial of ``expr``."""
        self.freeze()
        return se.expand(self._convert(sympy.sympify(expr)))

    def _laurent(self, atom: sympy.Basic) -> Any:
        found = self.laurent.get(atom)
        if found is not None:
            return found
        freqs, phase = self.trig[atom]
        if not freqs:  # purely numeric argument, e.g. cos(1): an opaque number
            result = self._symbol(atom)
        else:
            zpow = se.Integer(1)
            for idx, ratio in freqs.items():
                zpow = zpow * self.z[idx] ** int(ratio * self.denominators[idx])
            cos_part = (zpow + 1 / zpow) / 2
            sin_part = (zpow - 1 / zpow) / (2 * se.I)
            if phase == 0:
                result = cos_part if isinstance(atom, sympy.cos) else sin_part
            else:
                c0 = self._convert(sympy.cos(phase))
                s0 = self._convert(sympy.sin(phase))
                if isinstance(atom, sympy.cos):
                    result = c0 * cos_part - s0 * sin_part
                else:
                    result = s0 * cos_part + c0 * sin_part
        self.laurent[atom] = result
        return result

    def _convert(self, node: sympy.Basic) -> Any:
        found = self.memo.get(node)
        if found is not None:
            return found
        result = self._convert_new(node)
        self.memo[node] = result
        return result

    def _convert_new(self, node: sympy.Basic) -> Any:
        if node in self.qset:
            k = self.angle_index[node]
            self.poly_q.add(k)
            return self.qse[k]
        if node.is_Symbol:
            return self._symbol(node)
        if node.is_Number:
            if node.is_Integer:
                return se.Integer(int(node))
            if node.is_Rational:
                return se.Rational(int(node.p), int(node.q))
            if node.is_Float:
                return se.RealDouble(float(node))
            if node is sympy.S.ImaginaryUnit or not node.is_finite:
                raise _NotRepresentableError(node)
            return self._symbol(node)
        if node.is_NumberSymbol:
            return self._symbol(node)
        if node.is_Add:
            return se.Add(*[self._convert(a) for a in node.args])
        if node.is_Mul:
            return se.Mul(*[self._convert(a) for a in node.args])
        if node.is_Pow:
            base, exp = node.args
            if exp.is_Integer and exp >= 0:
                return self._convert(base) ** int(exp)
            if node.has(*self.q):
                raise _NotRepresentableError(node)
            b = self._convert(base)
            if exp.is_Rational and not any(s in self.z_index for s in b.free_symbols):
                return b ** se.Rational(int(exp.p), int(exp.q))
            return self._symbol(node)  # 1/cos(alpha), m**n, ...: an opaque atom
        if isinstance(node, (sympy.cos, sympy.sin)):
            if node not in self.trig:
                raise RuntimeError("trig atom was not registered")
            return self._laurent(node)
        if isinstance(node, sympy.Derivative) and node.expr in self.qset:
            return self._symbol(node)  # a velocity written as q(t).diff(t)
        if node.has(*self.q) or node.has(sympy.S.ImaginaryUnit):
            raise _NotRepresentableError(node)
        return self._symbol(node)  # opaque q-free atom: exp(m), f(a), ...

    # -- decoding -----------------------------------------------------------
    def decode(
        self,
        laurent: Any,
        *,
        strict: bool = False,
        basis: dict[Any, tuple[tuple[int, int], ...]] | None = None,
        memo: dict[Any, Any] | None = None,
    ) -> TrigPoly:
        """Split an expanded Laurent polynomial into the canonical dictionary.

        ``strict``: every coefficient must be a rational (or Gaussian rational) number
        and every other factor a symbol to an integer power, coordinates to a
        non-negative one; anything else raises :class:`_NotRepresentableError` (used
        for input converted wholesale in symengine, which has not been screened atom by
        atom the way :meth:`encode` screens sympy input).

        ``basis``: further Laurent variables, each standing for ``exp(i e·q)`` with
        ``e`` given as ``((angle index, multiple), ...)`` (one per trig argument, see
        :func:`encode_symengine`). They need not be independent: monomials are mapped
        to their frequency and summed there, so the dictionary is canonical all the
        same; a monomial whose variables cancel to frequency 0 is half of a conjugate
        pair and contributes its real part.

        ``memo``: a dictionary shared by calls with the same ``strict`` and ``basis``
        (the entries of one matrix share most of their monomials).
        """
        width = len(self.angles)
        parts: dict[Key, tuple[list[Any], list[Any]]] = {}
        # monomials, factors and coefficients recur (across the entries of one matrix
        # too, through ``memo``): each is classified once
        # mono -> (key, key nonzero, coefficient part, basis variable seen) or None
        monomials: dict[Any, Any] = {} if memo is None else memo
        factor_info: dict[Any, tuple[tuple[tuple[int, int], ...], bool] | None] = {}
        coef_info: dict[Any, tuple[Any, Any, Any, Any, bool]] = {}
        missing = object()
        for mono, coef in laurent.as_coefficients_dict().items():
            if mono.is_Number:  # a number n comes as {n: 1}
                mono, coef = _ONE, mono * coef
            numbers = coef_info.get(coef)
            if numbers is None:
                if strict:
                    self._check_rational(coef)
                real, imag = _real_imag(coef)
                real_part = None if real == _ZERO else real
                imag_part = None if imag == _ZERO else imag
                numbers = coef_info[coef] = (
                    real_part,
                    None if real_part is None else 2 * real,
                    None if imag_part is None else -2 * imag,
                    imag_part,
                    real_part is None and imag_part is None,
                )
            real_part, twice_real, twice_imag, imag_part, zero = numbers
            if zero:
                continue
            found = monomials.get(mono, missing)
            if found is missing:
                found = monomials[mono] = self._split_monomial(
                    mono, width, factor_info, strict, basis
                )
            if found is None:
                continue  # the conjugate term carries the same information
            tkey, nonzero, base, paired = found
            slot = parts.get(tkey)
            if slot is None:
                slot = ([], [])
                parts[tkey] = slot
            if nonzero:
                if twice_real is not None:
                    slot[0].append(twice_real * base)
                if twice_imag is not None:
                    slot[1].append(twice_imag * base)
            else:
                if imag_part is not None and not paired:
                    raise _NotRepresentableError(laurent)  # complex-valued input
                if real_part is not None:
                    slot[0].append(real_part * base)
        result: TrigPoly = {}
        for tkey, (a_terms, b_terms) in parts.items():
            a = se.Add(*a_terms) if a_terms else _ZERO
            b = se.Add(*b_terms) if b_terms else _ZERO
            if a != _ZERO or b != _ZERO:
                result[tkey] = (a, b)
        return result

    def _split_monomial(
        self,
        mono: Any,
        width: int,
        factor_info: dict[Any, Any],
        strict: bool,
        basis: dict[Any, tuple[tuple[int, int], ...]] | None,
    ) -> tuple[Key, bool, Any, bool] | None:
        """A monomial's (frequency key, key nonzero, coefficient part, basis variable
        seen), or ``None`` when its frequency is negative (the conjugate half)."""
        key = [0] * width
        rest: list[Any] = []
        paired = False
        factors = mono.args if mono.is_Mul else () if mono == _ONE else (mono,)
        for factor in factors:
            if factor in factor_info:
                info = factor_info[factor]
            else:
                info = factor_info[factor] = self._classify(factor, strict, basis)
            if info is None:
                rest.append(factor)
                continue
            for i, step in info[0]:
                key[i] += step
            paired = paired or info[1]
        sign = 0
        for value in key:
            if value:
                sign = value
                break
        if sign < 0:
            return None
        base = se.Mul(*rest) if rest else _ONE
        return tuple(key), sign != 0, base, paired

    def _classify(
        self,
        factor: Any,
        strict: bool,
        basis: dict[Any, tuple[tuple[int, int], ...]] | None,
    ) -> tuple[tuple[tuple[int, int], ...], bool] | None:
        """A monomial factor's frequency steps ``((angle index, step), ...)`` and whether
        it is a basis variable; ``None`` for a coefficient factor (checked if strict)."""
        if factor.is_Pow:
            base, exp = factor.args
        else:
            base, exp = factor, None
        idx = self.z_index.get(base)
        if idx is not None:
            return ((idx, 1 if exp is None else int(exp)),), False
        vector = basis.get(base) if basis else None
        if vector is not None:
            e = 1 if exp is None else int(exp)
            return tuple((i, e * multiple) for i, multiple in vector), True
        if strict:
            self._check_strict(factor)
        if base in self.qse_set:
            self.poly_q.add(self.qse.index(base))  # q outside the trig atoms
        return None

    def _check_strict(self, factor: Any) -> None:
        if factor.is_Symbol:
            return
        if factor.is_Pow:
            base, exp = factor.args
            if base.is_Symbol and exp.is_Integer and (exp > 0 or base not in self.qse_set):
                return
        raise _NotRepresentableError(factor)

    @staticmethod
    def _check_rational(coef: Any) -> None:
        if isinstance(coef, int) or coef.is_Integer or coef.is_Rational:
            return
        if coef.is_Number and not coef.is_Float:
            real, imag = coef.real, coef.imag
            if (real.is_Integer or real.is_Rational) and (imag.is_Integer or imag.is_Rational):
                return
        raise _NotRepresentableError(coef)

    # -- rebuilding ---------------------------------------------------------
    def to_sympy(self, value: Any) -> sympy.Expr:
        """Convert a symengine expression back, restoring the caller's objects."""
        return self._table.to_sympy(value)

    def angle(self, key: Key) -> sympy.Expr:
        """The sympy angle ``e·q`` (plus symbolic phases) of a frequency key, built once
        per key (without re-evaluation where that is sound, see :mod:`lagdyn._convert`)."""
        found = self._angle_memo.get(key)
        if found is None:
            terms = []
            for i, n in enumerate(key):
                if n:
                    ratio = sympy.Rational(n, self.denominators[i])
                    angle = self.angles[i]
                    terms.append(angle if ratio == 1 else _mul([ratio, angle]))
            found = self._angle_memo[key] = _add(terms)
        return found

    def trig_function(self, key: Key, slot: int) -> sympy.Expr:
        """``cos(e·q)`` (slot 0) or ``sin(e·q)`` (slot 1) of a nonzero key, exactly as
        sympy's evaluating constructor returns it, built once per key.

        sympy's ``cos``/``sin`` evaluation spends most of its time on assumption queries
        (milliseconds per new angle with assumption-free symbols). For angles that are
        rational combinations of the coordinates alone its only possible rewrite is the
        sign of the argument, so that sign is decided here (sympy's own rule,
        ``could_extract_minus_sign``, only asked when the signs of the coefficients tie)
        and the function is created unevaluated; anything else goes through sympy.
        """
        memo = self._trig_memo
        found = memo.get((key, slot))
        if found is not None:
            return found
        theta = self.angle(key)
        if any(n for n in key[self.n :]):  # symbolic phases: let sympy decide
            out = sympy.cos(theta) if slot == 0 else sympy.sin(theta)
        else:
            pos = sum(1 for n in key if n > 0)
            neg = sum(1 for n in key if n < 0)
            flip = neg > pos or (neg == pos and theta.could_extract_minus_sign())
            arg = self.angle(tuple(-n for n in key)) if flip else theta
            if slot == 0:
                out = sympy.cos(arg, evaluate=False)
            else:
                out = sympy.sin(arg, evaluate=False)
                out = -out if flip else out
        memo[(key, slot)] = out
        return out

    def rebuild(self, poly: TrigPoly) -> sympy.Expr:
        """Rebuild a compact sympy expression from a dictionary."""
        terms = []
        for key in sorted(poly):
            a, b = poly[key]
            nonzero = any(key)
            if a != _ZERO:
                terms.append(
                    _mul([self.compact(a), self.trig_function(key, 0)])
                    if nonzero
                    else self.compact(a)
                )
            if b != _ZERO:
                terms.append(_mul([self.compact(b), self.trig_function(key, 1)]))
        return _add(terms)

    def compact(self, value: Any) -> sympy.Expr:
        """Rebuild an expanded polynomial in a compact nested (Horner-like) form.

        Common monomial factors are pulled out, then the parameter (or rate) occurring in
        the most terms is factored from those terms, recursively; coordinates are never
        nested (no Horner schemes in q). This is linear in
        the number of terms per level and never changes the value.
        """
        found = self.compact_memo.get(value)
        if found is not None:
            return found
        terms: list[tuple[Fraction, dict[Any, int]]] = []
        for mono, c in _coefficients(value):
            if type(c) is int:
                coef = Fraction(c)
            elif c.is_zero:
                continue
            elif c.is_Rational:
                coef = Fraction(int(c.p), int(c.q))
            else:  # floats or other numbers: no factoring
                out = self.to_sympy(value)
                self.compact_memo[value] = out
                return out
            terms.append((coef, _monomial_powers(mono)))
        out = self._factored(terms) if terms else sympy.S.Zero
        self.compact_memo[value] = out
        return out

    def _power(self, base: Any, exp: int) -> sympy.Expr:
        """``to_sympy(base) ** exp``, built once per pair (``**`` sympifies ``exp`` on
        every call)."""
        found = self._pow_memo.get((base, exp))
        if found is None:
            b = self.to_sympy(base)
            found = b if exp == 1 else sympy.Pow(b, sympy.Integer(exp))
            self._pow_memo[(base, exp)] = found
        return found

    def _factored(self, terms: list[tuple[Fraction, dict[Any, int]]]) -> sympy.Expr:
        num = 0
        den = 1
        negatives = 0
        common: dict[Any, int] | None = None
        for coef, pw in terms:
            num = math.gcd(num, abs(coef.numerator))
            den = den * coef.denominator // math.gcd(den, coef.denominator)
            negatives += coef < 0
            if common is None:
                common = dict(pw)
            elif common:
                for b in list(common):
                    e = pw.get(b)
                    old = common[b]
                    if e is None or (e > 0) != (old > 0):
                        del common[b]
                    else:
                        common[b] = min(old, e) if e > 0 else max(old, e)
        content = Fraction(num, den)
        if 2 * negatives > len(terms):
            content = -content
        common = common or {}
        if content != 1 or common:
            reduced = []
            for coef, pw in terms:
                pw = dict(pw)
                for b, e in common.items():
                    pw[b] -= e
                    if not pw[b]:
                        del pw[b]
                reduced.append((coef / content, pw))
            terms = reduced
        factors = [sympy.Rational(content.numerator, content.denominator)]
        factors += [self._power(b, e) for b, e in common.items()]
        if len(terms) == 1:
            coef, pw = terms[0]
            factors.append(sympy.Rational(coef.numerator, coef.denominator))
            factors += [self._power(b, e) for b, e in pw.items()]
            return _mul(factors)
        # Nest on parameters (and rates) only: nesting on a coordinate turns a polynomial
        # in q into a Horner scheme, which reads badly and, at degree ~100, is deeper
        # than sympy's recursion limit. Common monomial factors of q are still pulled out.
        counts: dict[Any, int] = {}
        for _, pw in terms:
            for b, e in pw.items():
                if e > 0 and b not in self.qse_set:
                    counts[b] = counts.get(b, 0) + 1
        best = None
        if counts:
            best = max(counts, key=lambda b: (counts[b], str(b)))
        if best is None or counts[best] < 2:
            body = _add(
                [
                    _mul(
                        [
                            sympy.Rational(c.numerator, c.denominator),
                            *[self._power(b, e) for b, e in pw.items()],
                        ]
                    )
                    for c, pw in terms
                ]
            )
        else:
            inside = [(c, pw) for c, pw in terms if pw.get(best, 0) > 0]
            outside = [(c, pw) for c, pw in terms if pw.get(best, 0) <= 0]
            low = min(pw[best] for _, pw in inside)
            lowered = []
            for c, pw in inside:
                pw = dict(pw)
                pw[best] -= low
                if not pw[best]:
                    del pw[best]
                lowered.append((c, pw))
            parts = [_mul([self._power(best, low), self._factored(lowered)])]
            if outside:
                parts.append(self._factored(outside))
            body = _add(parts)
        factors.append(body)
        return _mul(factors)


def _real_imag(coef: Any) -> tuple[Any, Any]:
    if isinstance(coef, int):
        return se.Integer(coef), _ZERO
    if coef.is_Integer or coef.is_Rational or coef.is_Float:
        return coef, _ZERO
    if coef.is_Number:
        return coef.real, coef.imag
    raise _NotRepresentableError(coef)


_CONTENT_CACHE: dict[Any, tuple[Any, Any]] = {}


_GCD_TAG = se.Symbol("_lagdyn_gcd_tag")


def _coefficients(value: Any) -> list[tuple[Any, Any]]:
    """``(monomial, coefficient)`` pairs; a bare number is ``(1, number)``."""
    if value.is_Number:
        return [(_ONE, value)]
    return list(value.as_coefficients_dict().items())


def _dict_content(poly: TrigPoly) -> Any:
    """The common content (rational times monomial) of every coefficient of a dictionary."""
    content = None
    for a, b in poly.values():
        for value in (a, b):
            if value == _ZERO:
                continue
            part = _content(value)[0]
            # the tag keeps the two contents from cancelling and is never common
            content = part if content is None else _content(content + part * _GCD_TAG)[0]
    return _ONE if content is None else content


def _monomial_powers(mono: Any) -> dict[Any, int]:
    """Powers of a monomial; factors with non-integer exponents count as bases."""
    factors = mono.args if mono.is_Mul else (mono,)
    out: dict[Any, int] = {}
    for factor in factors:
        if factor.is_Pow and factor.args[1].is_Integer:
            out[factor.args[0]] = int(factor.args[1])
        elif not factor.is_Number:
            out[factor] = 1
    return out


def _powers(mono: Any) -> dict[Any, int]:
    """Integer powers of the non-numeric factors of a monomial (others omitted)."""
    factors = mono.args if mono.is_Mul else (mono,)
    out: dict[Any, int] = {}
    for factor in factors:
        if factor.is_Pow:
            exp = factor.args[1]
            if exp.is_Integer:
                out[factor.args[0]] = int(exp)
        elif not factor.is_Number:
            out[factor] = 1
    return out


def _content(value: Any) -> tuple[Any, Any]:
    """Split an expanded polynomial into ``content * primitive``.

    The content is the largest common monomial times the rational gcd of the
    coefficients, signed so that most primitive terms are positive. Results
    are cached (symengine expressions hash structurally).
    """
    hit = _CONTENT_CACHE.get(value)
    if hit is not None:
        return hit
    common: dict[Any, int] | None = None
    num = 0
    den = 1
    negatives = 0
    count = 0
    rational = True
    for mono, c in _coefficients(value):
        if type(c) is int:
            p, qd = c, 1
        elif c.is_zero:
            continue
        elif c.is_Rational:
            p, qd = int(c.p), int(c.q)
        else:
            rational = False
            p, qd = 1, 1
        count += 1
        num = math.gcd(num, abs(p))
        den = den * qd // math.gcd(den, qd)
        negatives += p < 0
        if common is None:
            common = _powers(mono)
        elif common:
            pw = _powers(mono)
            for b in list(common):
                e = pw.get(b)
                old = common[b]
                if e is None or (e > 0) != (old > 0):
                    del common[b]
                elif e > 0:
                    common[b] = min(old, e)
                else:
                    common[b] = max(old, e)
    if not count:
        result = (_ONE, value)
    else:
        frac = Fraction(num, den) if rational and num else Fraction(1)
        if 2 * negatives > count:
            frac = -frac
        content = se.Rational(frac.numerator, frac.denominator)
        for b, e in (common or {}).items():
            content = content * b**e
        result = (_ONE, value) if content == _ONE else (content, se.expand(value / content))
    if len(_CONTENT_CACHE) > 200_000:
        _CONTENT_CACHE.clear()
    _CONTENT_CACHE[value] = result
    return result


# -- dictionary arithmetic ---------------------------------------------------


def _combine(terms: Sequence[tuple[int | Fraction, TrigPoly]]) -> TrigPoly:
    """Return ``sum(s * p for s, p in terms)`` with exact cancellation.

    Scales are Python rationals. Sums of expanded polynomials with unit scales are
    already canonical in symengine (its ``Add`` merges like terms); any other
    scale needs one ``expand`` per coefficient.
    """
    acc: dict[Key, tuple[list[Any], list[Any]]] = {}
    positive = all(s == 1 for s, _ in terms)
    for scale, poly in terms:
        factor = (
            None
            if scale == 1
            else se.Rational(Fraction(scale).numerator, Fraction(scale).denominator)
        )
        for key, (a, b) in poly.items():
            slot = acc.get(key)
            if slot is None:
                slot = ([], [])
                acc[key] = slot
            if a != _ZERO:
                slot[0].append(a if factor is None else factor * a)
            if b != _ZERO:
                slot[1].append(b if factor is None else factor * b)
    out: TrigPoly = {}
    for key, (a_terms, b_terms) in acc.items():
        a = _sum(a_terms, positive)
        b = _sum(b_terms, positive)
        if a != _ZERO or b != _ZERO:
            out[key] = (a, b)
    return out


def _christoffel(parts: tuple[TrigPoly, TrigPoly, TrigPoly], sums: dict[Any, Any]) -> TrigPoly:
    """``½(parts[0] + parts[1] − parts[2])``, each coefficient expanded once per distinct
    signed combination (``sums``, shared by every symbol of a derivation: the 10-link
    pendulum in joint angles has 6,732 coefficient sums and 180 distinct ones)."""
    acc: dict[Key, tuple[list[Any], list[Any]]] = {}
    for sign, poly in ((1, parts[0]), (1, parts[1]), (-1, parts[2])):
        for key, (a, b) in poly.items():
            slot = acc.get(key)
            if slot is None:
                slot = acc[key] = ([], [])
            if a != _ZERO:
                slot[0].append((sign, a))
            if b != _ZERO:
                slot[1].append((sign, b))
    out: TrigPoly = {}
    for key, (a_parts, b_parts) in acc.items():
        a = _half_sum(tuple(a_parts), sums)
        b = _half_sum(tuple(b_parts), sums)
        if a is not _ZERO or b is not _ZERO:
            out[key] = (a, b)
    return out


def _half_sum(signed: tuple[tuple[int, Any], ...], sums: dict[Any, Any]) -> Any:
    """``½ Σ sign · value`` expanded, memoized; exactly ``_ZERO`` when it vanishes."""
    if not signed:
        return _ZERO
    found = sums.get(signed)
    if found is None:
        value = se.expand(se.Add(*[(_HALF if s > 0 else -_HALF) * v for s, v in signed]))
        found = sums[signed] = _ZERO if value == _ZERO else value
    return found


def _sum(parts: list[Any], positive: bool) -> Any:
    if not parts:
        return _ZERO
    if positive:
        return parts[0] if len(parts) == 1 else se.Add(*parts)
    return se.expand(se.Add(*parts))


def _derivative(poly: TrigPoly, k: int, qk: Any, denominator: int, polynomial: bool) -> TrigPoly:
    """∂/∂q_k of a dictionary (``polynomial``: q_k may occur in coefficients)."""
    out: TrigPoly = {}
    for key, (a, b) in poly.items():
        n = key[k]
        if n:
            e = se.Integer(n) if denominator == 1 else se.Rational(n, denominator)
            new_a = e * b
            new_b = -e * a
            if polynomial:
                new_a = new_a + se.diff(a, qk)
                new_b = new_b + se.diff(b, qk)
            new_a = se.expand(new_a)
            new_b = se.expand(new_b)
        elif polynomial:
            new_a = se.expand(se.diff(a, qk))
            new_b = se.expand(se.diff(b, qk))
        else:
            continue
        if new_a != _ZERO or new_b != _ZERO:
            out[key] = (new_a, new_b)
    return out


# -- factoring the Coriolis vector --------------------------------------------


def _velocity_factored(
    enc: _Encoder, groups: dict[tuple[int, ...], Any], vel: Sequence[Any]
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
        c_i, p_i = _content(rest)
        if base_poly is None:
            base_poly, base_content = p_i, c_i
        elif p_i != base_poly:
            return whole()
        ratio = c_i / base_content
        if not ratio.is_Rational:
            return whole()
        ratios[key] = Fraction(int(ratio.p), int(ratio.q))
    split = _split_quadratic(ratios, len(vel))
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


def _linear_form(enc: _Encoder, coeffs: Sequence[int], vel: Sequence[Any]) -> sympy.Expr:
    return sympy.Add(*[c * enc.to_sympy(v) for c, v in zip(coeffs, vel) if c])


def _split_quadratic(
    form: dict[tuple[int, ...], Fraction], n: int
) -> tuple[Fraction, list[int], list[int]] | None:
    """``Σ form[e] v^e`` (a rational quadratic form) as ``s · (aᵀv)(bᵀv)`` with coprime
    integer ``a``, ``b``, or None when it does not split over the rationals.

    Works in integers on the variables that occur: ``B = 2 L A`` with L the common
    denominator, so the O(n²) checks never touch ``Fraction``.
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


# -- public API ----------------------------------------------------------------


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
        encoder: _Encoder,
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

    def _mp(self, i: int, j: int) -> TrigPoly:
        return self._m[(i, j) if i <= j else (j, i)]

    def _gp(self, i: int, j: int, k: int) -> TrigPoly:
        return self._gamma[(i, j, k) if j <= k else (i, k, j)]

    @cached_property
    def M(self) -> sympy.ImmutableMatrix:
        """Mass matrix rebuilt from the canonical dictionaries."""
        n = self.n
        cells = {(i, j): self._enc.rebuild(self._m[(i, j)]) for i in range(n) for j in range(i, n)}
        return sympy.ImmutableMatrix(n, n, lambda i, j: cells[(min(i, j), max(i, j))])

    @cached_property
    def dM(self) -> dict[tuple[int, int, int], sympy.Expr]:
        """``(i, j, k) -> ∂m_ij/∂q_k`` for ``i <= j``."""
        return {key: self._enc.rebuild(poly) for key, poly in self._d.items()}

    @cached_property
    def christoffel(self) -> tuple[tuple[tuple[sympy.Expr, ...], ...], ...]:
        """Christoffel symbols of the first kind, ``[i][j][k]``."""
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
        """Coriolis matrix ``C[i, j] = Σ_k Γ[i][j][k] qd_k``, grouped compactly."""
        n = self.n
        return sympy.ImmutableMatrix(
            n, n, lambda i, j: self._velocity_sum([self._gp(i, j, k) for k in range(n)])
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
        shapes = {
            frozenset((key, a != _ZERO, b != _ZERO) for key, (a, b) in poly.items())
            for poly in polys
            if poly
        }
        if len(shapes) != 1 or sum(1 for poly in polys if poly) < 2:
            return None
        groups: dict[frozenset[Any], list[tuple[Any, int]]] = {}
        primitives: dict[frozenset[Any], TrigPoly] = {}
        for k, poly in enumerate(polys):
            if not poly:
                continue
            content = _dict_content(poly)
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
            vel = se.expand(se.Add(*[c * enc._symbol(self.qd[k]) for c, k in members]))
            parts.append(enc.compact(vel) * enc.rebuild(primitives[signature]))
        return sympy.Add(*parts)

    def _by_key(self, polys: Sequence[TrigPoly]) -> sympy.Expr:
        enc = self._enc
        # one pass over the dictionaries: (frequency, slot) -> primitive -> [(content, k)]
        # (dicts keep insertion order, so primitives stay in the order of k)
        buckets: dict[tuple[Key, int], dict[Any, list[tuple[Any, int]]]] = {}
        for k, poly in enumerate(polys):
            for key, pair in poly.items():
                for slot in (0, 1):
                    value = pair[slot]
                    if value == _ZERO:
                        continue
                    content, primitive = _content(value)
                    groups = buckets.setdefault((key, slot), {})
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
                vel = se.Add(*[c * enc._symbol(self.qd[k]) for c, k in members])
                vel_content, vel_rest = _content(se.expand(vel))
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
        """Gravity column ``∂V/∂q``."""
        if isinstance(self._g_source, list):
            return sympy.ImmutableMatrix([self._enc.rebuild(p) for p in self._g_source])
        V = self._g_source
        return sympy.ImmutableMatrix([sympy.diff(V, qk) for qk in self.q])

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
        vel = [enc._symbol(v) for v in self.qd]
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
                row += sympy.diff(self._g_source, self.q[i])
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
                    both = _combine([(1, self._gp(i, j, k)), (1, self._gp(j, i, k))])
                    if both != self._d[(i, j, k)]:
                        return False
        return True


def _encoder_for(exprs: Sequence[sympy.Expr], q: Sequence[sympy.Basic]) -> _Encoder | None:
    """One encoder for every expression of ``exprs`` in the angles ``q``, or None."""
    encoder = _Encoder(q)
    try:
        encoder.register(exprs)
    except _NotRepresentableError:
        return None
    return encoder


def encode_symengine(
    entries: dict[tuple[int, int], Any],
    q: Sequence[sympy.Basic],
    plain_q: Sequence[Any],
    to_sympy: Callable[[Any], sympy.Expr],
    source: Any = None,
) -> tuple[_Encoder, dict[tuple[int, int], TrigPoly]] | None:
    """Canonical dictionaries of symengine expressions (M's entries as a Lagrangian's
    second derivatives come out of symengine), without converting them to sympy.

    The trig atoms (few) are converted to sympy and registered as :meth:`_Encoder.encode`
    would; then each entry is mapped to its Laurent polynomial by one symengine
    ``xreplace`` and ``expand`` and decoded strictly. ``None`` when an entry holds
    anything else than rational numbers, symbols and ``cos``/``sin`` of rational
    combinations of the coordinates (plus symbolic phases): the caller then takes the
    sympy route, which decides those cases.

    Parameters
    ----------
    entries : dict
        ``(i, j) -> symengine expression`` in the plain coordinate symbols ``plain_q``
        and parameter symbols.
    q : sequence of sympy objects
        The coordinates the encoder is keyed on (the objects :func:`derive` receives).
    plain_q : sequence of symengine.Symbol
        The symbols standing for ``q`` in ``entries``.
    to_sympy : callable
        symengine → sympy with the caller's objects (``plain_q[k]`` → ``q[k]``).
    source : symengine expression, optional
        An expression whose trig atoms and numbers include every entry's (the
        Lagrangian the entries are second rate derivatives of, free of the rates
        inside its trig atoms): they are collected from it in one walk instead of one
        walk per entry.

    Examples
    --------
    >>> import sympy, symengine as se
    >>> x, m = sympy.symbols("x m")
    >>> sx, sm = se.symbols("x m")
    >>> back = {sx: x, sm: m, se.cos(sx): sympy.cos(x)}
    >>> enc, polys = encode_symengine({(0, 0): sm * (1 + se.cos(sx) ** 2)}, [x], [sx],
    ...                               back.__getitem__)
    >>> enc.rebuild(polys[0, 0])
    m*cos(2*x)/2 + 3*m/2
    >>> encode_symengine({(0, 0): se.exp(sx)}, [x], [sx], back.__getitem__) is None
    True
    """
    encoder = _Encoder(q)
    atoms: set[Any] = set()
    free: set[Any] = set()
    for e in entries.values():
        free.update(e.free_symbols)
    # the Laurent form brings its own imaginary unit: the input must bring none
    for e in [source] if source is not None else entries.values():
        atoms.update(e.atoms(se.cos, se.sin))
        if not all(c.is_Integer or c.is_Rational for c in e.atoms(se.Number)):
            return None
    by_atom: dict[Any, sympy.Expr] = {}
    signs: dict[Any, int] = {}
    for a in atoms:
        sa = to_sympy(a)
        sign = 1
        if sa.is_Mul and len(sa.args) == 2 and sa.args[0] == -1:  # sin(x - 1) -> -sin(1 - x)
            sign, sa = -1, sa.args[1]
        if not isinstance(sa, (sympy.cos, sympy.sin)):
            return None
        by_atom[a] = sa
        signs[a] = sign
    try:
        encoder.register(list(by_atom.values()))
    except _NotRepresentableError:
        return None
    encoder.freeze()
    # one Laurent variable per trig argument that spans several angles (the relative
    # angles q1 + q2 + ... of a chain): a product of two atoms then expands into
    # monomials of two variables instead of up to 2n, and decode maps them back
    basis: dict[Any, tuple[tuple[int, int], ...]] = {}
    by_vector: dict[tuple[tuple[int, int], ...], Any] = {}
    repl: dict[Any, Any] = {}
    for a, sa in by_atom.items():
        freqs, phase = encoder.trig[sa]
        vector = tuple(sorted((i, int(r * encoder.denominators[i])) for i, r in freqs.items()))
        if phase != 0 or len(vector) < 2:
            repl[a] = signs[a] * encoder._laurent(sa)
            continue
        z = by_vector.get(vector)
        if z is None:
            z = se.Symbol(f"_lagdyn_w{len(by_vector)}")
            by_vector[vector] = z
            basis[z] = vector
        if isinstance(sa, sympy.cos):
            repl[a] = signs[a] * (z + 1 / z) / 2
        else:
            repl[a] = signs[a] * (z - 1 / z) / (2 * se.I)
    position = {s: k for k, s in enumerate(plain_q)}
    for sym in free:
        k = position.get(sym)
        if k is not None:
            repl[sym] = encoder.qse[k]
            continue
        obj = to_sympy(sym)
        if not isinstance(obj, sympy.Symbol):
            return None
        repl[sym] = encoder._symbol(obj)
    polys: dict[tuple[int, int], TrigPoly] = {}
    memo: dict[Any, Any] = {}
    try:
        for key, e in entries.items():
            # (decode marks the coordinates met outside the trig atoms in poly_q)
            laurent = se.expand(e.xreplace(repl))
            polys[key] = encoder.decode(laurent, strict=True, basis=basis, memo=memo)
    except _NotRepresentableError:
        return None
    return encoder, polys


def symengine_form(encoder: _Encoder, poly: TrigPoly) -> Any:
    """``Σ A_e cos(e·q) + B_e sin(e·q)`` as one symengine expression in the encoder's
    symbols (the coordinates are plain symengine symbols), for numeric evaluation.

    Examples
    --------
    >>> import sympy
    >>> x, a = sympy.symbols("x a")
    >>> enc = encoder_for([a * sympy.cos(2 * x)], [x])
    >>> symengine_form(enc, enc.decode(enc.encode(a * sympy.cos(2 * x))))
    a*cos(2*x)
    """
    terms = []
    for key, (a, b) in poly.items():
        if not any(key):
            terms.append(a)
            continue
        angle = se.Add(
            *[
                se.Rational(k, encoder.denominators[i])
                * (encoder.qse[i] if i < encoder.n else encoder._convert(encoder.angles[i]))
                for i, k in enumerate(key)
                if k
            ]
        )
        if a != _ZERO:
            terms.append(a * se.cos(angle))
        if b != _ZERO:
            terms.append(b * se.sin(angle))
    return se.Add(*terms)


#: Shared encoders for other modules (kinematics, structure).
encoder_for = _encoder_for
NotRepresentableError = _NotRepresentableError


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
        found = _encoder_for(list(entries.values()), q)
        if found is None:
            return None
        encoder = found
        v_ok = encoder.extend([V])
        try:
            m_polys = {key: encoder.decode(encoder.encode(e)) for key, e in entries.items()}
        except _NotRepresentableError:
            return None
    g_source: list[TrigPoly] | sympy.Expr = V
    if v_ok:
        try:
            v_poly = encoder.decode(encoder.encode(V))
        except _NotRepresentableError:
            v_poly = None
        if v_poly is not None:
            g_source = [_diff_poly(encoder, v_poly, k) for k in range(n)]
    # Equal derivatives are one object, and a Christoffel symbol is formed once per
    # distinct triple of them: in a chain most coincide (the 10-link pendulum in joint
    # angles has 550 derivatives, 331 distinct, and 550 symbols, 91 distinct). The
    # dictionaries are never mutated, so sharing them is safe.
    interned: dict[frozenset[Any], TrigPoly] = {}
    d_polys: dict[tuple[int, int, int], TrigPoly] = {}
    for i, j in m_polys:
        for k in range(n):
            poly = _diff_poly(encoder, m_polys[(i, j)], k)
            d_polys[(i, j, k)] = interned.setdefault(frozenset(poly.items()), poly)

    def d(i: int, j: int, k: int) -> TrigPoly:
        return d_polys[(i, j, k) if i <= j else (j, i, k)]

    combined: dict[tuple[int, int, int], TrigPoly] = {}
    sums: dict[tuple[Any, ...], Any] = {}
    gamma_polys: dict[tuple[int, int, int], TrigPoly] = {}
    for i in range(n):
        for j in range(n):
            for k in range(j, n):
                parts = (d(i, j, k), d(i, k, j), d(j, k, i))
                ids = (id(parts[0]), id(parts[1]), id(parts[2]))
                gamma = combined.get(ids)
                if gamma is None:
                    gamma = combined[ids] = _christoffel(parts, sums)
                gamma_polys[(i, j, k)] = gamma
    return FastDerivation(encoder, qd, m_polys, d_polys, gamma_polys, g_source)


def _diff_poly(encoder: _Encoder, poly: TrigPoly, k: int) -> TrigPoly:
    return _derivative(poly, k, encoder.qse[k], encoder.denominators[k], k in encoder.poly_q)


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
    encoder = _encoder_for([expr], q)
    if encoder is None:
        return None
    try:
        laurent = encoder.encode(expr)
    except _NotRepresentableError:
        return None
    return bool(laurent == _ZERO)


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
    encoder = _encoder_for([expr], q)
    if encoder is None:
        return None
    try:
        poly = encoder.decode(encoder.encode(expr))
    except _NotRepresentableError:
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
    verdict = _energy_linear(L, M, g, q, qd)
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
    except _NotRepresentableError:
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
    except _NotRepresentableError:
        return None
    vel = [encoder._symbol(v) for v in qd]
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
    encoder: _Encoder,
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
    except _NotRepresentableError:
        return None
    vel = [encoder._symbol(v) for v in qd]
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


def _energy_linear(
    L: sympy.Expr,
    M: sympy.ImmutableMatrix,
    g: sympy.ImmutableMatrix,
    q: Sequence[sympy.Basic],
    qd: Sequence[sympy.Basic],
) -> bool | None:
    """:func:`_energy_laurent` one frequency at a time (:mod:`lagdyn._lintrig`); None when
    an expression is not linear in its trigonometric atoms or L has a term of degree
    above 2 in q̇."""
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


def _partial(encoder: _Encoder, f: Any, k: int) -> Any:
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
) -> tuple[_Encoder, dict[tuple[int, int], Any]] | None:
    """One encoder for M, C and ``extra`` (registered, encoded on demand), with M's upper
    triangle encoded; cached (the latest only: encodings are large). C is encoded only
    where a proof needs it (:func:`_c_laurent`), never kept."""
    key = (M, C, tuple(q), tuple(extra))
    if key in _FORMS_CACHE:
        return _FORMS_CACHE[key]
    n = len(q)
    found = None
    encoder = _encoder_for([*M, *C, *extra], q)
    if encoder is not None:
        try:
            m = {(i, j): encoder.encode(M[i, j]) for i in range(n) for j in range(i, n)}
            found = (encoder, m)
        except _NotRepresentableError:
            found = None
    _FORMS_CACHE.clear()
    _FORMS_CACHE[key] = found
    return found


def _c_laurent(encoder: _Encoder, C: sympy.MatrixBase) -> list[list[Any]] | None:
    """Every entry of C encoded (n⁴ Laurent terms for a joint-angle chain), or None."""
    n = C.rows
    try:
        out = [[encoder.encode(C[i, j]) for j in range(n)] for i in range(n)]
    except _NotRepresentableError:
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
    verdict = _skew_streamed(M, C, q, qd)
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
    velocities = [encoder._symbol(v) for v in qd]
    # ∂/∂q_k on a Laurent polynomial: z_k = exp(i q_k / d_k), so ∂z_k/∂q_k = (i/d_k) z_k,
    # plus the explicit polynomial dependence on q_k. Expanded sums are canonical.
    for i in range(n):
        for j in range(i, n):
            mdot = _rate(encoder, m_laurent[(i, j)], velocities)
            residual = se.expand(mdot - c_laurent[i][j] - c_laurent[j][i])
            if residual != _ZERO:
                return False
    return True


def _skew_streamed(
    M: sympy.ImmutableMatrix,
    C: sympy.ImmutableMatrix,
    q: Sequence[sympy.Basic],
    qd: Sequence[sympy.Basic],
) -> bool | None:
    """The skew proof pair by pair in per-frequency form (:mod:`lagdyn._lintrig`).

    For each ``i ≤ j`` the entries ``m_ij``, ``C_ij``, ``C_ji`` are read, ``Ṁ_ij − C_ij −
    C_ji`` is expanded one frequency at a time and everything is dropped before the next
    pair, so memory stays at one pair. None when an entry is not linear in its
    trigonometric atoms (then the Laurent encoding decides).
    """
    n = len(q)
    enc = LinearTrigEncoder(q, rates=qd)
    velocities = [enc.symbol(v) for v in qd]
    try:
        for i in range(n):
            for j in range(i, n):
                mdot = enc.rate(enc.form(M[i, j]), velocities)
                residual = combine((1, mdot), (-1, enc.form(C[i, j])), (-1, enc.form(C[j, i])))
                if not is_zero_form(residual):
                    return False
    except NotLinearError:
        return None
    return True


def _rate(encoder: _Encoder, f: Any, velocities: Sequence[Any]) -> Any:
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


def _rate_by_diff(encoder: _Encoder, f: Any, velocities: Sequence[Any]) -> Any:
    z = encoder.z
    mdot = _ZERO
    for k in range(encoder.n):
        dk = f.diff(encoder.qse[k])
        if k < len(z):
            dk = dk + se.I / encoder.denominators[k] * z[k] * f.diff(z[k])
        mdot = mdot + dk * velocities[k]
    return mdot
