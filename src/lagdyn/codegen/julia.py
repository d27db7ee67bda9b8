"""Julia: ``NAME.jl``, a module of in-place functions ``M!(out, q, p)`` (1-based)."""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.printing.julia import JuliaCodePrinter
from sympy.printing.precedence import PRECEDENCE

from .common import PrinterMixin, describe, flat_index, header_lines, kernel_args, reads
from .ir import Program

__all__ = ["JuliaPrinter", "export_files"]


class JuliaPrinter(PrinterMixin, JuliaCodePrinter):
    """Scalar Julia (``^``, ``*``, ``/``; no broadcasting dots).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.julia import JuliaPrinter
    >>> JuliaPrinter().doprint(sp.Symbol("x") ** 2)
    'x^2'
    """

    def _print_Pow(self, expr: sp.Pow) -> str:
        b, e = expr.as_base_exp()
        if e.is_Integer:
            return f"{self.parenthesize(b, PRECEDENCE['Pow'])}^{int(e)}"
        return str(super()._print_Pow(expr)).replace(".^", "^")

    def _print_Mul(self, expr: sp.Mul, **kwargs: Any) -> str:
        return str(super()._print_Mul(expr, **kwargs)).replace(".*", "*").replace("./", "/")

    def _print_Rational(self, expr: sp.Rational) -> str:
        return f"({expr.p}.0/{expr.q}.0)"


def export_files(program: Program, name: str) -> dict[str, str]:
    """``NAME.jl``: a module with one function per kernel; matrices as ``out[i, j]``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.julia import export_files
    >>> dp = ld.zoo.double_pendulum()
    >>> list(export_files(system_program(dp, Binding(dp.parameters)), "dp"))
    ['dp.jl']
    """
    pr = JuliaPrinter()
    module = "".join(part.capitalize() for part in name.split("_")) or "Model"
    lines = [f"# {x}" for x in header_lines(program, name, base=1)]
    lines += ["# Julia: in-place functions end in !.", ""]
    lines += [
        f"module {module}",
        "",
        f"const N = {program.n}",
        f"const NP = {len(program.vector('params'))}",
        "",
    ]
    exports = []
    for k in program.kernels.values():
        scalar = k.shape == ()
        fname = k.name if scalar else f"{k.name}!"
        exports.append(fname)
        args = kernel_args(k) if scalar else ["out", *kernel_args(k)]
        lines += [f'"""{describe(k.name)}."""', f"function {fname}({', '.join(args)})"]
        lines.append("    @inbounds begin")
        lines += [f"    {s} = {a}[{i + 1}]" for s, a, i in reads(program, k)]
        lines += [f"    {s} = {pr.doprint(e)}" for s, e in k.body]
        if scalar:
            lines.append(f"    return {pr.doprint(k.outputs[0])}")
        else:
            lines += [
                f"    out[{flat_index(k.shape, i, base=1)}] = {pr.doprint(e)}"
                for i, e in enumerate(k.outputs)
            ]
        lines.append("    end")
        if not scalar:
            lines.append("    return out")
        lines += ["end", ""]
    lines.insert(lines.index(f"module {module}") + 1, f"export {', '.join(exports)}")
    lines += [f"end  # module {module}", ""]
    return {f"{name}.jl": "\n".join(lines)}
