"""Canonical trigonometric polynomials: the Laurent encoding and dictionary arithmetic.

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
symbols of their own, so ``cos(c)**2 + sin(c)**2`` cancels too; a rational phase
``r`` is the frequency ``r`` of the angle 1 (``e^i`` is transcendental); other numeric
phases are expanded with ``cos(c)``, ``sin(c)`` when those have a closed form (π/4) and
are not representable otherwise (π/7). One ``symengine.expand`` then does every
product-to-sum conversion, and the expanded Laurent polynomial is *decoded* into a
dictionary

``{e: (A_e, B_e)}``  (``e`` canonical: its first nonzero component is positive;
``e = 0`` carries only ``A``)

with expanded symengine coefficients. Monomials ``q**m z**n`` are linearly
independent functions, so the dictionary is canonical: an expression is
identically zero exactly when its dictionary is empty. Derivatives are exact
dictionary maps,

.. math::

    \\partial_k (A \\cos\\theta + B \\sin\\theta)
      = (\\partial_k A + e_k B) \\cos\\theta + (\\partial_k B - e_k A) \\sin\\theta,

Expressions that are already in symengine (a Lagrangian's second rate derivatives) are
encoded there by :func:`encode_symengine`, with one Laurent variable per multi-angle
argument, and decoded by frequency. Anything outside this class (``exp(q)``,
``sqrt(q)``, ``tan(q)``, ``q`` in a denominator, unknown functions of ``q``,
nonlinear or irrational trigonometric arguments) is *not representable*: the
public functions return ``None`` and the caller falls back to a general path.

:mod:`lagdyn.trig.derive` derives M, Γ, C, g on these dictionaries; :mod:`lagdyn.trig.identities`
decides identities (zero tests, skew symmetry, passivity) with them; :mod:`lagdyn.trig.gram`
assembles M = Σ JᵀWJ in them.

Examples
--------
The two-link arm's ``m11 = m1 + m2 (l1² + l2² + 2 l1 l2 cos b)`` written the long way:

>>> import sympy
>>> a, b, l1, l2, m2 = sympy.symbols("a b l1 l2 m2")
>>> x = l1*sympy.sin(a) + l2*sympy.sin(a + b)
>>> y = -l1*sympy.cos(a) - l2*sympy.cos(a + b)
>>> e = m2*(x.diff(a)**2 + y.diff(a)**2)
>>> enc = encoder_for([e], [a, b])
>>> poly = enc.decode(enc.encode(e))
>>> sorted(poly)                 # the frequencies: 0 and b (a cancelled)
[(0, 0), (0, 1)]
>>> enc.rebuild(poly)
2*l1*l2*m2*cos(b) + m2*(l1**2 + l2**2)
>>> enc.rebuild(diff_poly(enc, poly, 1))          # ∂/∂b, exactly on the dictionary
-2*l1*l2*m2*sin(b)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import symengine as se
import sympy
from sympy.core.sorting import default_sort_key

from .convert import SymbolTable, distinct_nodes
from .convert import canonical_add as _add
from .convert import canonical_mul as _mul

__all__ = [
    "Encoder",
    "NotRepresentableError",
    "combine",
    "derivative",
    "dict_content",
    "diff_poly",
    "encode_symengine",
    "encoder_for",
    "gradient",
    "split_content",
    "symengine_form",
    "trig_atoms",
]

#: A frequency key: the multiples of ``q_k / d_k`` (then of the symbolic phases).
Key = tuple[int, ...]

#: A trigonometric polynomial: frequency key -> (cos coefficient, sin coefficient).
TrigPoly = dict[Key, tuple[Any, Any]]

_ZERO = se.Integer(0)

_HALF = se.Rational(1, 2)

_ONE = se.Integer(1)

#: stands for the angle 1 while an argument is parsed (a rational phase r is r·1)
_UNIT_ANGLE = sympy.Symbol("_lagdyn_unit_angle")

_MAX_DENOMINATOR = 1024

#: not yet classified (decode's memo outlives one call: a per-call sentinel would not do)
_MISSING = object()


class NotRepresentableError(Exception):
    """Raised internally when an expression leaves the trig-polynomial class.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> try:
    ...     Encoder([x]).register([sympy.cos(x**2)])
    ... except NotRepresentableError as exc:
    ...     print("not a trig polynomial:", exc)
    not a trig polynomial: x**2
    """


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
    the atoms not entered).

    Examples
    --------
    >>> import sympy
    >>> x, y, a = sympy.symbols("x y a")
    >>> sorted(trig_atoms([a * sympy.cos(x)**2 + sympy.sin(x - y)]), key=str)
    [cos(x), sin(x - y)]
    """

    def trig(node: sympy.Basic) -> bool:
        return isinstance(node, (sympy.cos, sympy.sin))

    return {node for node in distinct_nodes(exprs, stop=trig) if trig(node)}


class Encoder:
    """Converts sympy expressions to expanded symengine Laurent polynomials.

    One encoder is shared by every expression that must live in the same
    dictionary space (all entries of ``M`` and ``V``), so that frequency keys
    and denominators agree.

    Examples
    --------
    Two passes: :meth:`register` parses every trig argument (the frequencies fix the
    denominators ``d_k``), :meth:`freeze` creates the Laurent variables, then
    :meth:`encode` converts and expands, :meth:`decode` reads the canonical dictionary and
    :meth:`rebuild` gives a compact sympy expression back.

    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> enc = Encoder([x, y])
    >>> enc.register([sympy.cos(x / 2), sympy.sin(x - y)])
    >>> enc.denominators                       # z_0 = exp(i x/2), z_1 = exp(i y)
    [2, 1]
    >>> laurent = enc.encode(sympy.cos(x / 2) ** 2)
    >>> laurent
    1/2 + (1/4)*_lagdyn_z0**(-2) + (1/4)*_lagdyn_z0**2
    >>> enc.decode(laurent)
    {(0, 0): (1/2, 0), (2, 0): (1/2, 0)}
    >>> enc.rebuild(enc.decode(laurent))
    cos(x)/2 + 1/2
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
        self._reserved: set[str] = {_GCD_TAG.name}  # the encoder's own symbols
        self.qse: list[Any] = [self.symbol(qk) for qk in self.q]
        self.qse_set = frozenset(self.qse)
        self.z: list[Any] = []
        self.z_index: dict[Any, int] = {}
        self.laurent: dict[sympy.Basic, Any] = {}
        self.memo: dict[sympy.Basic, Any] = {}
        self._table = SymbolTable(self.back)  # shares the dict: names added later count
        self.compact_memo: dict[Any, sympy.Expr] = {}
        self._trig_memo: dict[tuple[Key, int], sympy.Expr] = {}
        self._term_memo: dict[tuple[Any, Key, int], sympy.Expr] = {}
        self._body_memo: dict[frozenset[Any], sympy.Expr] = {}
        self._pow_memo: dict[tuple[Any, int], sympy.Expr] = {}
        self._angle_memo: dict[Key, sympy.Expr] = {}
        self._rank: dict[int, int] | None = None  # coordinates in default_sort_key order
        self.poly_q: set[int] = set()  # coordinates that occur outside trig atoms
        self._frozen = False

    # -- symbols ---------------------------------------------------------
    def symbol(self, atom: sympy.Basic) -> Any:
        """The symengine symbol standing for ``atom`` (one per atom, names unique).

        Examples
        --------
        >>> import sympy
        >>> x, a = sympy.symbols("x a")
        >>> enc = Encoder([x])
        >>> enc.symbol(a), enc.symbol(a) is enc.symbol(a)
        (a, True)
        """
        found = self.sym.get(atom)
        if found is not None:
            return found
        base = atom.name if isinstance(atom, sympy.Symbol) else "_lagdyn_atom"
        name = base
        count = 0
        while name in self.back or name in self._reserved:
            count += 1
            name = f"{base}__{count}"
        symbol = se.Symbol(name)
        self.sym[atom] = symbol
        self.back[name] = atom
        return symbol

    def reserve(self, base: str) -> Any:
        """A symengine symbol of the encoder's own (a Laurent variable), named ``base``
        unless a symbol of the input already has that name (and kept from the input's
        symbols met later): an input symbol called ``_lagdyn_z0`` stays distinct.

        Examples
        --------
        >>> import sympy
        >>> enc = Encoder([sympy.Symbol("x")])
        >>> enc.reserve("_lagdyn_z0"), enc.reserve("_lagdyn_z0")
        (_lagdyn_z0, _lagdyn_z0__1)
        """
        name = base
        count = 0
        while name in self.back or name in self._reserved:
            count += 1
            name = f"{base}__{count}"
        self._reserved.add(name)
        return se.Symbol(name)

    # -- pass 1: trig arguments -------------------------------------------
    def register(self, exprs: Iterable[sympy.Expr]) -> None:
        """Parse every trig argument; fix denominators. Raises if not representable.

        Examples
        --------
        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> enc = Encoder([x])
        >>> enc.register([sympy.cos(x / 3) + sympy.sin(x / 2)])
        >>> enc.denominators
        [6]
        """
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
                raise NotRepresentableError(arg)
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
            raise NotRepresentableError(arg)
        for idx, ratio in freqs.items():
            d = self.denominators[idx]
            self.denominators[idx] = d * ratio.denominator // math.gcd(d, ratio.denominator)
        return {i: r for i, r in freqs.items() if r}, phase

    def extend(self, exprs: Iterable[sympy.Expr]) -> bool:
        """Register the trig atoms of ``exprs``, also after :meth:`freeze` when they need
        no new angle and no new denominator; False (nothing registered) otherwise.

        Examples
        --------
        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> enc = encoder_for([sympy.cos(x)], [x])
        >>> enc.freeze()
        >>> enc.extend([sympy.sin(2 * x)]), enc.extend([sympy.cos(x / 3)])
        (True, False)
        """
        if not self._frozen:
            try:
                self.register(exprs)
            except NotRepresentableError:
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
            except NotRepresentableError:
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
        """Create the Laurent symbols once all trig arguments are registered.

        Examples
        --------
        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> enc = encoder_for([sympy.cos(x)], [x])
        >>> enc.freeze()
        >>> enc.z
        [_lagdyn_z0]
        """
        if self._frozen:
            return
        self._frozen = True
        for idx in range(len(self.angles)):
            z = self.reserve(f"_lagdyn_z{idx}")
            self.z.append(z)
            self.z_index[z] = idx

    # -- pass 2: conversion -------------------------------------------------
    def encode(self, expr: sympy.Expr) -> Any:
        """Return the expanded symengine Laurent polynomial of ``expr``.

        Examples
        --------
        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> enc = encoder_for([sympy.sin(x), sympy.cos(x)], [x])
        >>> enc.encode(sympy.sin(x) ** 2 + sympy.cos(x) ** 2)
        1
        """
        self.freeze()
        return se.expand(self._convert(sympy.sympify(expr)))

    def _laurent(self, atom: sympy.Basic) -> Any:
        found = self.laurent.get(atom)
        if found is not None:
            return found
        freqs, phase = self.trig[atom]
        if not freqs:  # purely numeric argument, e.g. cos(1): an opaque number
            result = self.symbol(atom)
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
            return self.symbol(node)
        if node.is_Number:
            if node.is_Integer:
                return se.Integer(int(node))
            if node.is_Rational:
                return se.Rational(int(node.p), int(node.q))
            if node.is_Float:
                return se.RealDouble(float(node))
            if node is sympy.S.ImaginaryUnit or not node.is_finite:
                raise NotRepresentableError(node)
            return self.symbol(node)
        if node.is_NumberSymbol:
            return self.symbol(node)
        if node.is_Add:
            return se.Add(*[self._convert(a) for a in node.args])
        if node.is_Mul:
            return se.Mul(*[self._convert(a) for a in node.args])
        if node.is_Pow:
            base, exp = node.args
            if exp.is_Integer and exp >= 0:
                return self._convert(base) ** int(exp)
            if node.has(*self.q):
                raise NotRepresentableError(node)
            b = self._convert(base)
            if exp.is_Rational and not any(s in self.z_index for s in b.free_symbols):
                return b ** se.Rational(int(exp.p), int(exp.q))
            return self.symbol(node)  # 1/cos(alpha), m**n, ...: an opaque atom
        if isinstance(node, (sympy.cos, sympy.sin)):
            if node not in self.trig:
                raise RuntimeError("trig atom was not registered")
            return self._laurent(node)
        if isinstance(node, sympy.Derivative) and node.expr in self.qset:
            return self.symbol(node)  # a velocity written as q(t).diff(t)
        if node.has(*self.q) or node.has(sympy.S.ImaginaryUnit):
            raise NotRepresentableError(node)
        return self.symbol(node)  # opaque q-free atom: exp(m), f(a), ...

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
        non-negative one; anything else raises :class:`NotRepresentableError` (used
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

        Examples
        --------
        >>> import sympy
        >>> x, a = sympy.symbols("x a")
        >>> enc = encoder_for([sympy.sin(x), sympy.cos(x)], [x])
        >>> enc.decode(enc.encode(2 * a * sympy.sin(x) * sympy.cos(x) + x))
        {(0,): (x, 0), (2,): (0, a)}
        """
        width = len(self.angles)
        parts: dict[Key, tuple[list[Any], list[Any]]] = {}
        # monomials, factors and coefficients recur (across the entries of one matrix
        # too, through ``memo``): each is classified once, and each (monomial,
        # coefficient) pair is turned into its contribution once (the 36 entries of the
        # 8-link chain's M in joint angles: 2,213 terms, 373 distinct pairs)
        # mono -> ((key, key nonzero, coefficient part, basis variable seen) or None,
        #          {coefficient: (key, cos part or None, sin part or None) or None})
        monomials: dict[Any, Any] = {} if memo is None else memo
        factor_info: dict[Any, tuple[tuple[tuple[int, int], ...], bool] | None] = {}
        coef_info: dict[Any, tuple[Any, Any, Any, Any, bool]] = {}
        missing = _MISSING
        for mono, coef in laurent.as_coefficients_dict().items():
            if mono.is_Number:  # a number n comes as {n: 1}
                mono, coef = _ONE, mono * coef
            entry = monomials.get(mono)
            if entry is None:
                entry = monomials[mono] = (missing, {})
            found: Any = entry[0]
            by_coef: dict[Any, Any] = entry[1]
            contribution: Any = by_coef.get(coef, missing)
            if contribution is missing:
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
                if found is missing:
                    found = self._split_monomial(mono, width, factor_info, strict, basis)
                    monomials[mono] = (found, by_coef)
                if found is None:
                    contribution = None  # the conjugate term carries the same information
                else:
                    tkey, nonzero, base, paired = found
                    if nonzero:
                        contribution = (
                            tkey,
                            None if twice_real is None else twice_real * base,
                            None if twice_imag is None else twice_imag * base,
                        )
                    else:
                        if imag_part is not None and not paired:
                            raise NotRepresentableError(laurent)  # complex-valued input
                        contribution = (
                            tkey,
                            None if real_part is None else real_part * base,
                            None,
                        )
                by_coef[coef] = contribution
            if contribution is None:
                continue
            tkey, cos_part, sin_part = contribution
            slot = parts.get(tkey)
            if slot is None:
                slot = ([], [])
                parts[tkey] = slot
            if cos_part is not None:
                slot[0].append(cos_part)
            if sin_part is not None:
                slot[1].append(sin_part)
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
        raise NotRepresentableError(factor)

    @staticmethod
    def _check_rational(coef: Any) -> None:
        if isinstance(coef, int) or coef.is_Integer or coef.is_Rational:
            return
        if coef.is_Number and not coef.is_Float:
            real, imag = coef.real, coef.imag
            if (real.is_Integer or real.is_Rational) and (imag.is_Integer or imag.is_Rational):
                return
        raise NotRepresentableError(coef)

    # -- rebuilding ---------------------------------------------------------
    def to_sympy(self, value: Any) -> sympy.Expr:
        """Convert a symengine expression back, restoring the caller's objects.

        Examples
        --------
        >>> import sympy, symengine
        >>> a = sympy.Symbol("a", positive=True)
        >>> enc = encoder_for([a], [sympy.Symbol("x")])
        >>> enc.freeze()
        >>> enc.encode(a)
        a
        >>> enc.to_sympy(symengine.Symbol("a") ** 2).is_positive
        True
        """
        return self._table.to_sympy(value)

    def angle(self, key: Key) -> sympy.Expr:
        """The sympy angle ``e·q`` (plus symbolic phases) of a frequency key, built once
        per key (without re-evaluation where that is sound, see :mod:`lagdyn.trig.convert`).

        Examples
        --------
        >>> import sympy
        >>> x, y = sympy.symbols("x y")
        >>> enc = encoder_for([sympy.cos(x / 2), sympy.sin(y)], [x, y])
        >>> enc.angle((1, -2))
        x/2 - 2*y
        """
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
        sign of the argument, so that sign is decided here by sympy's own rule
        (``could_extract_minus_sign``: more negative than positive coefficients; on a tie,
        ``sort_key() < (-angle).sort_key()``, which for a linear form in the coordinates
        holds exactly when the coordinate first in ``default_sort_key`` order has a
        negative coefficient — decided here from that order, computed once per encoder,
        without sympy's ``as_ordered_terms``) and the function is created unevaluated;
        anything else goes through sympy. A hypothesis test compares with sympy.

        Examples
        --------
        >>> import sympy
        >>> x, y = sympy.symbols("x y")
        >>> enc = encoder_for([sympy.cos(x), sympy.sin(y)], [x, y])
        >>> enc.trig_function((-1, 2), 0), enc.trig_function((-1, 2), 1)
        (cos(x - 2*y), -sin(x - 2*y))
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
            flip = neg > pos or (neg == pos and key[self._first_coordinate(key)] < 0)
            arg = self.angle(tuple(-n for n in key)) if flip else theta
            if slot == 0:
                out = sympy.cos(arg, evaluate=False)
            else:
                out = sympy.sin(arg, evaluate=False)
                out = -out if flip else out
        memo[(key, slot)] = out
        return out

    def _first_coordinate(self, key: Key) -> int:
        """The index of the coordinate with a nonzero entry in ``key`` that comes first in
        sympy's ``default_sort_key`` order (the order ``as_ordered_terms`` leads with)."""
        rank = self._rank
        if rank is None:
            order = sorted(range(self.n), key=lambda i: default_sort_key(self.q[i]))
            rank = self._rank = {i: r for r, i in enumerate(order)}
        return min((i for i in range(self.n) if key[i]), key=rank.__getitem__)

    def rebuild(self, poly: TrigPoly) -> sympy.Expr:
        """Rebuild a compact sympy expression from a dictionary.

        Examples
        --------
        >>> import sympy
        >>> x, a = sympy.symbols("x a")
        >>> enc = encoder_for([sympy.cos(x)], [x])
        >>> enc.rebuild(enc.decode(enc.encode(a * sympy.cos(x) ** 2)))
        a*cos(2*x)/2 + a/2
        """
        terms = []
        for key in sorted(poly):
            a, b = poly[key]
            nonzero = any(key)
            if a != _ZERO:
                terms.append(self._term(a, key, 0) if nonzero else self.compact(a))
            if b != _ZERO:
                terms.append(self._term(b, key, 1))
        return _add(terms)

    def _term(self, value: Any, key: Key, slot: int) -> sympy.Expr:
        """``compact(value) · cos/sin(e·q)``, built once per triple (the entries of a
        matrix repeat their terms: M of the 8-link chain in joint angles has 456 terms,
        64 distinct)."""
        found = self._term_memo.get((value, key, slot))
        if found is None:
            found = _mul([self.compact(value), self.trig_function(key, slot)])
            self._term_memo[(value, key, slot)] = found
        return found

    def compact(self, value: Any) -> sympy.Expr:
        """Rebuild an expanded polynomial in a compact nested (Horner-like) form.

        Common monomial factors are pulled out, then the parameter (or rate) occurring in
        the most terms is factored from those terms, recursively; coordinates are never
        nested (no Horner schemes in q). This is linear in
        the number of terms per level and never changes the value.

        Examples
        --------
        >>> import sympy, symengine
        >>> a, m = symengine.symbols("a m")
        >>> enc = Encoder([sympy.Symbol("x")])
        >>> enc.compact(symengine.expand((a + m) * (a + 1) * m))
        m*(a*(a + m + 1) + m)
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
        # the bodies left once content and common factors are out recur (the 8-link
        # chain's M and C: 141 bodies, 65 distinct, m7 + m8 21 times); a body depends on
        # the set of its terms only (canonical sums and products, unique names)
        signature = frozenset((c, frozenset(pw.items())) for c, pw in terms)
        body = self._body_memo.get(signature)
        if body is None:
            body = self._body_memo[signature] = self._nested(terms)
        factors.append(body)
        return _mul(factors)

    def _nested(self, terms: list[tuple[Fraction, dict[Any, int]]]) -> sympy.Expr:
        """The body of :meth:`_factored`: ``terms`` (no content, no common factor, at least
        two) nested on the parameter in most of them, recursively."""
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
        return body


def _real_imag(coef: Any) -> tuple[Any, Any]:
    if isinstance(coef, int):
        return se.Integer(coef), _ZERO
    if coef.is_Integer or coef.is_Rational or coef.is_Float:
        return coef, _ZERO
    if coef.is_Number:
        return coef.real, coef.imag
    raise NotRepresentableError(coef)


_CONTENT_CACHE: dict[Any, tuple[Any, Any]] = {}

_GCD_TAG = se.Symbol("_lagdyn_gcd_tag")


def _coefficients(value: Any) -> list[tuple[Any, Any]]:
    """``(monomial, coefficient)`` pairs; a bare number is ``(1, number)``."""
    if value.is_Number:
        return [(_ONE, value)]
    return list(value.as_coefficients_dict().items())


def dict_content(poly: TrigPoly) -> Any:
    """The common content (rational times monomial) of every coefficient of a dictionary.

    Examples
    --------
    >>> import sympy
    >>> x, a = sympy.symbols("x a")
    >>> enc = encoder_for([sympy.sin(x), sympy.cos(x)], [x])
    >>> poly = enc.decode(enc.encode(2 * a * sympy.cos(x) + 4 * a**2 * sympy.sin(x)))
    >>> poly, dict_content(poly)
    ({(1,): (2*a, 4*a**2)}, 2*a)
    """
    content = None
    for a, b in poly.values():
        for value in (a, b):
            if value == _ZERO:
                continue
            part = split_content(value)[0]
            # the tag keeps the two contents from cancelling and is never common
            content = part if content is None else split_content(content + part * _GCD_TAG)[0]
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


def split_content(value: Any) -> tuple[Any, Any]:
    """Split an expanded polynomial into ``content * primitive``.

    The content is the largest common monomial times the rational gcd of the
    coefficients, signed so that most primitive terms are positive. Results
    are cached (symengine expressions hash structurally).

    Examples
    --------
    >>> import symengine
    >>> a, b = symengine.symbols("a b")
    >>> split_content(symengine.expand(-6 * a**2 * b - 4 * a))
    (-2*a, 2 + 3*a*b)
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


def combine(terms: Sequence[tuple[int | Fraction, TrigPoly]]) -> TrigPoly:
    """Return ``sum(s * p for s, p in terms)`` with exact cancellation.

    Scales are Python rationals. Sums of expanded polynomials with unit scales are
    already canonical in symengine (its ``Add`` merges like terms); any other
    scale needs one ``expand`` per coefficient.

    Examples
    --------
    >>> import sympy
    >>> x, a = sympy.symbols("x a")
    >>> enc = encoder_for([sympy.sin(x), sympy.cos(x)], [x])
    >>> p = enc.decode(enc.encode(2 * a * sympy.cos(x) + a * sympy.sin(x)))
    >>> c = enc.decode(enc.encode(a * sympy.cos(x)))
    >>> combine([(1, p), (-2, c)])
    {(1,): (0, a)}
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


def _sum(parts: list[Any], positive: bool) -> Any:
    if not parts:
        return _ZERO
    if positive:
        return parts[0] if len(parts) == 1 else se.Add(*parts)
    return se.expand(se.Add(*parts))


def _scaled(n: int, denominator: int, value: Any, memo: dict[Any, Any]) -> Any:
    """``expand(n/denominator · value)``, memoized."""
    key = (n, denominator, value)
    found = memo.get(key)
    if found is None:
        e = se.Integer(n) if denominator == 1 else se.Rational(n, denominator)
        found = memo[key] = se.expand(e * value)
    return found


def derivative(
    poly: TrigPoly,
    k: int,
    qk: Any,
    denominator: int,
    polynomial: bool,
    memo: dict[Any, Any] | None = None,
) -> TrigPoly:
    """∂/∂q_k of a dictionary (``polynomial``: q_k may occur in coefficients).

    ``memo``: a dictionary shared by calls (coefficients recur: the derivatives of the
    8-link chain in joint angles scale 2,424 coefficients, 65 distinct), used when q_k
    occurs in no coefficient.

    Examples
    --------
    >>> import sympy
    >>> x, a = sympy.symbols("x a")
    >>> enc = encoder_for([sympy.cos(x)], [x])
    >>> p = enc.decode(enc.encode(a * sympy.cos(x)))
    >>> enc.rebuild(derivative(p, 0, enc.qse[0], enc.denominators[0], False))
    -a*sin(x)
    """
    out: TrigPoly = {}
    for key, (a, b) in poly.items():
        n = key[k]
        if n and memo is not None and not polynomial:
            new_a = _scaled(n, denominator, b, memo)
            new_b = _scaled(-n, denominator, a, memo)
        elif n:
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


def encoder_for(exprs: Sequence[sympy.Expr], q: Sequence[sympy.Basic]) -> Encoder | None:
    """One encoder for every expression of ``exprs`` in the angles ``q``, or None.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> encoder_for([sympy.cos(x / 2)], [x]).denominators
    [2]
    >>> encoder_for([sympy.cos(x**2)], [x]) is None
    True
    """
    encoder = Encoder(q)
    try:
        encoder.register(exprs)
    except NotRepresentableError:
        return None
    return encoder


def encode_symengine(
    entries: dict[tuple[int, int], Any],
    q: Sequence[sympy.Basic],
    plain_q: Sequence[Any],
    to_sympy: Callable[[Any], sympy.Expr],
    source: Any = None,
    *,
    source_atoms: set[Any] | None = None,
    free: set[Any] | None = None,
) -> tuple[Encoder, dict[tuple[int, int], TrigPoly]] | None:
    """Canonical dictionaries of symengine expressions (M's entries as a Lagrangian's
    second derivatives come out of symengine), without converting them to sympy.

    The trig atoms (few) are converted to sympy and registered as :meth:`Encoder.encode`
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
    source_atoms : set, optional
        ``source.atoms(symengine.Function, symengine.Number)`` when the caller has it
        (read instead of walking ``source`` again).
    free : set, optional
        The union of the entries' free symbols when the caller has it.

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
    encoder = Encoder(q)
    atoms: set[Any] = set()
    if free is None:
        free = set()
        for e in entries.values():
            free.update(e.free_symbols)
    # the Laurent form brings its own imaginary unit: the input must bring none
    if source is not None and source_atoms is not None:
        groups: list[Any] = [source_atoms]
    else:  # one walk per expression for its trig atoms and numbers
        walked = [source] if source is not None else entries.values()
        groups = [e.atoms(se.cos, se.sin, se.Number) for e in walked]
    for group in groups:
        atoms.update(a for a in group if isinstance(a, (se.cos, se.sin)))
        if not all(c.is_Integer or c.is_Rational for c in group if isinstance(c, se.Number)):
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
    except NotRepresentableError:
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
            z = encoder.reserve(f"_lagdyn_w{len(by_vector)}")
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
        repl[sym] = encoder.symbol(obj)
    polys: dict[tuple[int, int], TrigPoly] = {}
    memo: dict[Any, Any] = {}
    try:
        for key, e in entries.items():
            # (decode marks the coordinates met outside the trig atoms in poly_q)
            laurent = se.expand(e.xreplace(repl))
            polys[key] = encoder.decode(laurent, strict=True, basis=basis, memo=memo)
    except NotRepresentableError:
        return None
    return encoder, polys


def symengine_form(encoder: Encoder, poly: TrigPoly) -> Any:
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


def diff_poly(
    encoder: Encoder, poly: TrigPoly, k: int, memo: dict[Any, Any] | None = None
) -> TrigPoly:
    """∂/∂q_k of a dictionary of ``encoder`` (:func:`derivative` with the encoder's symbol,
    denominator and polynomial dependence of ``q_k``).

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> enc = encoder_for([sympy.sin(x), sympy.cos(x)], [x])
    >>> enc.rebuild(diff_poly(enc, enc.decode(enc.encode(x * sympy.sin(x))), 0))
    x*cos(x) + sin(x)
    """
    return derivative(poly, k, encoder.qse[k], encoder.denominators[k], k in encoder.poly_q, memo)


def gradient(encoder: Encoder, poly: TrigPoly, memo: dict[Any, Any]) -> list[TrigPoly]:
    """``[diff_poly(encoder, poly, k, memo) for k in range(n)]`` in one pass over the
    dictionary for the coordinates that occur in no coefficient (each term feeds the
    derivatives along its nonzero frequencies only; same dictionaries, same order).

    Examples
    --------
    >>> import sympy
    >>> x, y, a = sympy.symbols("x y a")
    >>> enc = encoder_for([sympy.cos(x - y)], [x, y])
    >>> p = enc.decode(enc.encode(a * sympy.cos(x - y)))
    >>> [enc.rebuild(d) for d in gradient(enc, p, {})]
    [-a*sin(x - y), a*sin(x - y)]
    """
    n = encoder.n
    out: list[TrigPoly] = [{} for _ in range(n)]
    plain = [k not in encoder.poly_q for k in range(n)]
    denominators = encoder.denominators
    for key, (a, b) in poly.items():
        for k in range(n):
            m = key[k]
            if m and plain[k]:
                new_a = _scaled(m, denominators[k], b, memo)
                new_b = _scaled(-m, denominators[k], a, memo)
                if new_a != _ZERO or new_b != _ZERO:
                    out[k][key] = (new_a, new_b)
    for k in range(n):
        if not plain[k]:
            out[k] = diff_poly(encoder, poly, k, memo)
    return out
