"""What every language module shares: number printing, small powers, descriptions, headers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import sympy as sp
from mpmath.libmp import finf, fnan, fninf, fzero
from sympy.core.exprtools import decompose_power
from sympy.core.sorting import default_sort_key
from sympy.printing.precedence import PRECEDENCE, PRECEDENCE_FUNCTIONS, precedence

from ..errors import LagdynError
from .ir import HEADER, Kernel, Program, comment_text

#: One line per function of :func:`~lagdyn.codegen.build.system_program`, for headers.
DESCRIPTIONS = {
    "M": "mass matrix M(q), n x n",
    "C": "Coriolis/centrifugal matrix C(q, qd), n x n",
    "g": "gravity vector g(q) = dV/dq, n entries",
    "energy": "energy E = qd' M qd / 2 + V",
    "bias": "bias h = C qd + G qd + g - Q, n entries",
    "inverse_dynamics": "joint forces tau = M qdd + h, n entries",
    "forward_dynamics": "accelerations qdd = M^-1 (tau - h), n entries",
}
#: Argument names of exported functions (``params`` is spelled ``p``).
ARG = {"q": "q", "qd": "qd", "qdd": "qdd", "tau": "tau", "lam": "lam", "params": "p", "t": "t"}


_FLOAT_TEXT: dict[tuple[int, int, int, int], str] = {}


def _float_text(mpf: tuple[int, int, int, int], flt: sp.Float) -> str:
    """:func:`float_text` of a Float, memoized by its mpf value (the text is a function of it)."""
    t = _FLOAT_TEXT.get(mpf)
    if t is None:
        t = float_text(flt)
        if len(_FLOAT_TEXT) > 100_000:
            _FLOAT_TEXT.clear()
        _FLOAT_TEXT[mpf] = t
    return t


def float_text(x: Any) -> str:
    """A double as the shortest text that round-trips (``repr``); finite values only."""
    v = float(x)
    if not math.isfinite(v):  # pragma: no cover - the converter rejects these
        raise LagdynError(f"cannot print the non-finite constant {v!r} into generated code")
    return repr(v)


#: sympy versions whose printing internals the fast paths below reproduce (checked
#: byte for byte on every zoo model and robot); any other version prints through sympy's
#: own methods only (same text, slower).
_FAST = sp.__version__.split(".")[:2] == ["1", "14"]
_ADD, _MUL, _ATOM = PRECEDENCE["Add"], PRECEDENCE["Mul"], PRECEDENCE["Atom"]
#: precedence of the types whose precedence depends on the type only (filled on use)
_TYPE_PRECEDENCE: dict[type, int] = {}
#: ``complex(x)`` of the sympy numbers met as coefficients (sympy's own conversion,
#: through evalf; memoized: x == y implies the same value, hence the same complex)
_COMPLEX: dict[sp.Basic, complex] = {}
#: a finite nonzero Float is negative when the sign bit of its mpf is set
_FLOAT_SPECIAL = {fzero, finf, fninf, fnan}


def _precedence(item: Any) -> int:
    """``sympy.printing.precedence.precedence(item)``, without building ``-item``.

    sympy's ``precedence_Mul`` asks ``item.could_extract_minus_sign()``, which compares the
    product with its negation (a new Mul) to exclude ``zoo*x``; a product whose leading
    factor is a finite nonzero Rational or Float differs from its negation, so the answer
    is the sign of that factor, and a product whose leading factor is no Number cannot
    extract a sign. Everything else goes through sympy.
    """
    t = type(item)
    if t is sp.Mul:
        for arg in item.args:
            if (
                hasattr(arg, "precedence")
                and isinstance(arg, sp.Function)
                and arg.precedence < _MUL
            ):
                return _MUL
        c = item.args[0]
        if not c.is_Number:
            return _MUL  # could_extract_minus_sign: c.is_Number is False
        if isinstance(c, sp.Rational) and c.p != 0:
            return _ADD if c.p < 0 else _MUL
        if isinstance(c, sp.Float) and c._mpf_ not in _FLOAT_SPECIAL:
            return _ADD if c._mpf_[0] == 1 else _MUL
        return precedence(item)
    if t is sp.Float and item._mpf_ not in _FLOAT_SPECIAL:  # precedence_Float: item < 0
        return _ADD if item._mpf_[0] == 1 else _ATOM
    if hasattr(item, "precedence"):
        return precedence(item)
    p = _TYPE_PRECEDENCE.get(t)
    if p is None:
        p = precedence(item)
        if not any(c.__name__ in PRECEDENCE_FUNCTIONS for c in t.__mro__):
            _TYPE_PRECEDENCE[t] = p  # a value of PRECEDENCE_VALUES or Atom: the type's
    return p


def _complex(x: Any) -> complex:
    if isinstance(x, sp.Number):
        v = _COMPLEX.get(x)
        if v is None:
            v = _COMPLEX[x] = complex(x)
            if len(_COMPLEX) > 100_000:
                _COMPLEX.clear()
        return v
    return complex(x)


def _ordered_terms(expr: sp.Add) -> list[sp.Expr]:
    """``expr.as_ordered_terms()`` (sympy 1.14's ``Expr.as_ordered_terms`` and
    ``Expr.as_terms`` for ``order=None``, the coefficients' ``complex`` memoized)."""
    num = (sp.Number, sp.NumberSymbol)
    args = expr.args
    add_args = sorted(args, key=lambda x: not isinstance(x, num))
    if len(add_args) == 2 and isinstance(add_args[0], num) and isinstance(add_args[1], sp.Mul):
        # sympy's special case Add(Number, Mul(Number, expr))
        return expr.as_ordered_terms()
    gens: set[Any] = set()
    terms = []
    for term in args:
        if term.is_Order:
            return expr.as_ordered_terms()
        coeff, rest = term.as_coeff_Mul()
        z = _complex(coeff)
        cpart: dict[Any, Any] = {}
        if rest is not sp.S.One:
            for factor in sp.Mul.make_args(rest):
                if factor.is_number:
                    try:
                        z *= _complex(factor)
                    except (TypeError, ValueError):
                        pass
                    else:
                        continue
                if not factor.is_commutative:
                    return expr.as_ordered_terms()
                base, e = decompose_power(factor)
                cpart[base] = e
                gens.add(base)
        terms.append((term, (z.real, z.imag), cpart))
    index = {g: i for i, g in enumerate(sorted(gens, key=default_sort_key))}
    k = len(index)
    keyed = []
    for term, (re_, im), cpart in terms:
        monom = [0] * k
        for base, e in cpart.items():
            monom[index[base]] = e
        # Expr._parse_order(None): lex monomial (negated), no noncommutative part, coefficient
        keyed.append(((tuple(-m for m in monom), (), ((bool(im), im), (re_, im))), term))
    keyed.sort(key=lambda t: t[0])
    return [term for _, term in keyed]


def _has_re(expr: sp.Basic) -> bool:
    """Whether ``expr`` contains ``re(...)`` (sympy's ``doprint`` then rewrites it)."""
    seen: set[int] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, sp.re):
            return True
        for a in e.args:
            if id(a) not in seen:
                seen.add(id(a))
                stack.append(a)
    return False


def _mul_is_codeprinters(cls: type) -> bool:
    """Whether the ``_print_Mul`` after :class:`PrinterMixin` in ``cls``'s MRO is
    ``CodePrinter._print_Mul`` (or C's macro wrapper around it)."""
    from sympy.printing.c import C89CodePrinter
    from sympy.printing.codeprinter import CodePrinter

    mro = cls.__mro__
    for c in mro[mro.index(PrinterMixin) + 1 :]:
        if "_print_Mul" in c.__dict__:
            return c in (CodePrinter, C89CodePrinter)
    return False


def _add_is_strprinters(cls: type) -> bool:
    from sympy.printing.str import StrPrinter

    mro = cls.__mro__
    for c in mro[mro.index(PrinterMixin) + 1 :]:
        if "_print_Add" in c.__dict__:
            return c is StrPrinter
    return False


class PrinterMixin:
    """Doubles printed exactly; integer powers as products (no ``pow`` call).

    ``_powers`` is the largest |exponent| printed as a product; ``_mul`` the
    multiplication operator of the language.

    Printing is sympy's, with its slow steps done faster for the same text (sympy
    1.14; other versions take sympy's methods throughout): ``doprint`` of an expression
    without ``re(...)`` skips sympy's rewrite pass over the tree; sums are ordered as
    ``as_ordered_terms`` orders them with the coefficients' conversions memoized;
    precedences of products are decided from their leading coefficient instead of
    comparing each product with its negation; doubles are printed once per value.
    """

    _powers = 4
    _mul = "*"
    _one = "1.0"
    _fast_cache: ClassVar[dict[type, tuple[bool, bool]]] = {}

    def _fast(self) -> tuple[bool, bool]:
        cls = type(self)
        f = PrinterMixin._fast_cache.get(cls)
        if f is None:
            f = PrinterMixin._fast_cache[cls] = (
                _FAST and _add_is_strprinters(cls),
                _FAST and _mul_is_codeprinters(cls),
            )
        return f

    def doprint(self, expr: Any, assign_to: Any = None) -> Any:
        settings = self._settings  # type: ignore[attr-defined]
        if (
            not _FAST
            or assign_to is not None
            or not isinstance(expr, sp.Basic)
            or not settings.get("human", True)
            or _has_re(expr)
        ):
            return super().doprint(expr, assign_to)  # type: ignore[misc]
        # sympy's CodePrinter.doprint for assign_to=None, human=True, without its
        # re(...) rewrite (a no-op here, checked above); the rest as sympy does it
        self._not_supported: set[Any] = set()
        self._number_symbols: set[Any] = set()
        lines = self._print(expr).splitlines()  # type: ignore[attr-defined]
        front = []
        if self._not_supported:
            front.append(self._get_comment(f"Not supported in {self.language}:"))  # type: ignore[attr-defined]
            for e in sorted(self._not_supported, key=str):
                front.append(self._get_comment(type(e).__name__))  # type: ignore[attr-defined]
        for name, value in sorted(self._number_symbols, key=str):
            front.append(self._declare_number_const(name, value))  # type: ignore[attr-defined]
        result = "\n".join(self._format_code(front + lines))  # type: ignore[attr-defined]
        self._not_supported = set()
        self._number_symbols = set()
        return result

    def parenthesize(self, item: Any, level: float, strict: bool = False) -> str:
        # StrPrinter.parenthesize, the precedence computed once and faster
        p = _precedence(item) if _FAST else precedence(item)
        if (p < level) or ((not strict) and p <= level):
            return f"({self._print(item)})"  # type: ignore[attr-defined]
        return str(self._print(item))  # type: ignore[attr-defined]

    def _as_ordered_terms(self, expr: Any, order: Any = None) -> list[Any]:
        if _FAST and (order or self.order) is None and type(expr) is sp.Add:  # type: ignore[attr-defined]
            return _ordered_terms(expr)
        return list(super()._as_ordered_terms(expr, order=order))  # type: ignore[misc]

    def _print_Add(self, expr: Any, order: Any = None) -> str:
        if not self._fast()[0]:
            return str(super()._print_Add(expr, order=order))  # type: ignore[misc]
        # StrPrinter._print_Add with the fast precedence
        terms = self._as_ordered_terms(expr, order=order)
        prec = _precedence(expr)
        out = []
        for term in terms:
            t = self._print(term)  # type: ignore[attr-defined]
            if t.startswith("-") and not term.is_Add:
                sign = "-"
                t = t[1:]
            else:
                sign = "+"
            if _precedence(term) < prec or term.is_Add:
                out.extend([sign, f"({t})"])
            else:
                out.extend([sign, t])
        sign = out.pop(0)
        if sign == "+":
            sign = ""
        return sign + " ".join(out)

    def _print_Mul(self, expr: Any, **kwargs: Any) -> str:
        macros = getattr(self, "math_macros", None)
        if not self._fast()[1] or kwargs or (macros and expr in macros):
            return str(super()._print_Mul(expr, **kwargs))  # type: ignore[misc]
        # CodePrinter._print_Mul with the fast precedence
        from sympy.core.mul import _keep_coeff

        prec = _precedence(expr)
        c, e = expr.as_coeff_Mul()
        if c < 0:
            expr = _keep_coeff(-c, e)
            sign = "-"
        else:
            sign = ""
        a = []
        b = []
        pow_paren = []
        if self.order not in ("old", "none"):  # type: ignore[attr-defined]
            args = expr.as_ordered_factors()
        else:
            args = sp.Mul.make_args(expr)
        for item in args:
            if (
                item.is_commutative
                and item.is_Pow
                and item.exp.is_Rational
                and item.exp.is_negative
            ):
                if item.exp != -1:
                    b.append(sp.Pow(item.base, -item.exp, evaluate=False))
                else:
                    if len(item.args[0].args) != 1 and isinstance(item.base, sp.Mul):
                        pow_paren.append(item)
                    b.append(sp.Pow(item.base, -item.exp))
            else:
                a.append(item)
        a = a or [sp.S.One]
        if len(a) == 1 and sign == "-":
            a_str = [self.parenthesize(a[0], 0.5 * (PRECEDENCE["Pow"] + PRECEDENCE["Mul"]))]
        else:
            a_str = [self.parenthesize(x, prec) for x in a]
        b_str = [self.parenthesize(x, prec) for x in b]
        for item in pow_paren:
            if item.base in b:
                b_str[b.index(item.base)] = f"({b_str[b.index(item.base)]})"
        if not b:
            return sign + "*".join(a_str)
        if len(b) == 1:
            return sign + "*".join(a_str) + "/" + b_str[0]
        return sign + "*".join(a_str) + "/(" + "*".join(b_str) + ")"

    def _print_Float(self, flt: sp.Float) -> str:
        return _float_text(flt._mpf_, flt)

    def _print_Integer(self, expr: sp.Integer) -> str:
        # beyond 32 bits an integer literal overflows C's int (and numba's int64 later)
        if abs(int(expr)) >= 2**31:
            return float_text(expr)
        return str(expr.p)

    def small_power(self, expr: sp.Pow) -> str | None:
        b, e = expr.as_base_exp()
        if not e.is_Integer or abs(int(e)) > self._powers or int(e) in (0, 1):
            return None
        base = self.parenthesize(b, PRECEDENCE["Mul"])
        k = int(e)
        prod = self._mul.join([base] * abs(k))
        if k > 0:
            return f"({prod})" if k > 1 else prod
        return f"({self._one}/({prod}))"


def code_name(s: Any) -> str:
    """``str(s)`` of a code symbol (a plain Symbol's name without building a printer)."""
    return str(s.name) if type(s) is sp.Symbol else str(s)


def kernel_args(kernel: Kernel) -> list[str]:
    """Argument names of an exported function (``p`` for ``params``)."""
    return [ARG[i] for i in kernel.inputs]


def reads(program: Program, kernel: Kernel) -> list[tuple[sp.Symbol, str, int]]:
    """``(symbol, argument, index)`` of every input entry the kernel reads."""
    used = kernel.used_symbols()
    return [
        (s, ARG[vec], i)
        for vec in kernel.inputs
        if vec != "t"
        for i, s in enumerate(program.vector(vec))
        if s in used
    ]


def describe(name: str) -> str:
    return DESCRIPTIONS.get(name, f"output {name}")


def header_lines(program: Program, name: str, *, base: int = 0) -> list[str]:
    """The header of exported files: layout, parameter order, functions.

    ``base`` is the first index of the language (0 for C/C++/Python, 1 for
    Julia/MATLAB); matrices are described row-major for 0-based languages and
    as ``out[i, j]`` matrices for 1-based ones.
    """
    n = program.n
    np_ = len(program.vector("params"))
    first, last = base, n - 1 + base
    comments = program.comments()
    coords = ", ".join(
        f"[{i + base}] = {comment_text(c)}" for i, c in enumerate(program.coordinate_names)
    )
    free = ", ".join(
        f"p[{k + base}] = {comment_text(s)}" for k, s in enumerate(program.parameter_names)
    )
    lines = [
        HEADER,
        f"model {name}: n = {n} coordinates, {np_} free parameters",
        f"q[{first}..{last}]: {coords}",
        f"free parameters: {free or 'none'}",
        comments[2],
    ]
    if base == 0:
        lines += [
            "Memory layout: every argument is a contiguous array of doubles (C: const double*),",
            f"q, qd, qdd, tau have {n} entries (indices 0..{n - 1}), p has {np_} (order above), "
            "t is a scalar;",
            f"matrix outputs are {n} x {n} row-major (out[i*{n} + j]), vector outputs have {n}.",
        ]
    else:
        lines += [
            f"Layout: 1-based vectors; q, qd, qdd, tau have {n} entries (q[1]..q[{n}]),",
            f"p has {np_} (order above), t is a scalar; matrix outputs are {n} x {n} "
            "matrices out[i, j].",
        ]
    lines.append("Functions:")
    lines += [
        f"  {k}({', '.join(kernel_args(kern))}): {describe(k)}"
        for k, kern in program.kernels.items()
    ]
    if program.n > 8 and "forward_dynamics" not in program.kernels and "M" in program.kernels:
        lines.append("(forward_dynamics is not generated for n > 8: solve M qdd = tau - bias)")
    return lines


def flat_index(shape: Sequence[int], k: int, *, base: int = 0, sep: str = ", ") -> str:
    """Index text of flat entry ``k`` of an output of ``shape``."""
    if len(shape) <= 1:
        return str(k + base)
    return f"{k // shape[1] + base}{sep}{k % shape[1] + base}"


def prod(shape: Sequence[int]) -> int:
    return math.prod(shape) if shape else 1
