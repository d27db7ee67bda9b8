"""What every language module shares: number printing, small powers, descriptions, headers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import sympy as sp
from sympy.printing.precedence import PRECEDENCE

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


def float_text(x: Any) -> str:
    """A double as the shortest text that round-trips (``repr``); finite values only."""
    v = float(x)
    if not math.isfinite(v):  # pragma: no cover - the converter rejects these
        raise LagdynError(f"cannot print the non-finite constant {v!r} into generated code")
    return repr(v)


class PrinterMixin:
    """Doubles printed exactly; integer powers as products (no ``pow`` call).

    ``_powers`` is the largest |exponent| printed as a product; ``_mul`` the
    multiplication operator of the language.
    """

    _powers = 4
    _mul = "*"
    _one = "1.0"

    def _print_Float(self, flt: sp.Float) -> str:
        return float_text(flt)

    def _print_Integer(self, expr: sp.Integer) -> str:
        # beyond 32 bits an integer literal overflows C's int (and numba's int64 later)
        if abs(int(expr)) >= 2**31:
            return float_text(expr)
        return str(expr.p)

    def small_power(self, expr: sp.Pow) -> str | None:
        b, e = expr.as_base_exp()
        if not e.is_Integer or abs(int(e)) > self._powers or int(e) in (0, 1):
            return None
        base = self.parenthesize(b, PRECEDENCE["Mul"])  # type: ignore[attr-defined]
        k = int(e)
        prod = self._mul.join([base] * abs(k))
        if k > 0:
            return f"({prod})" if k > 1 else prod
        return f"({self._one}/({prod}))"


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
