"""MATLAB/Octave: one function per file, ``NAME_M.m`` … (1-based; matrices n x n)."""

from __future__ import annotations

from sympy.printing.octave import OctaveCodePrinter

from .common import PrinterMixin, describe, flat_index, header_lines, kernel_args, reads
from .ir import Program

__all__ = ["OctavePrinter", "export_files"]


class OctavePrinter(PrinterMixin, OctaveCodePrinter):
    """MATLAB/Octave expressions.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.matlab import OctavePrinter
    >>> OctavePrinter().doprint(sp.Float(0.1) * sp.Symbol("x"))
    '0.1*x'
    """


def export_files(program: Program, name: str) -> dict[str, str]:
    """One ``NAME_<kernel>.m`` per kernel.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.matlab import export_files
    >>> dp = ld.zoo.double_pendulum()
    >>> sorted(export_files(system_program(dp, Binding(dp.parameters)), "dp"))[0]
    'dp_C.m'
    """
    pr = OctavePrinter()
    files = {}
    head = [f"% {x}" for x in header_lines(program, name, base=1)]
    for k in program.kernels.values():
        fname = f"{name}_{k.name}"
        lines = [f"function out = {fname}({', '.join(kernel_args(k))})"]
        lines.append(f"%{fname.upper()} {describe(k.name)}.")
        lines += head
        lines += [f"  {s} = {a}({i + 1});" for s, a, i in reads(program, k)]
        lines += [f"  {s} = {pr.doprint(e)};" for s, e in k.body]
        if k.shape == ():
            lines.append(f"  out = {pr.doprint(k.outputs[0])};")
        else:
            rows, cols = (k.shape[0], 1) if len(k.shape) == 1 else k.shape
            lines.append(f"  out = zeros({rows}, {cols});")
            lines += [
                f"  out({flat_index(k.shape, i, base=1)}) = {pr.doprint(e)};"
                for i, e in enumerate(k.outputs)
            ]
        lines += ["end", ""]
        files[f"{fname}.m"] = "\n".join(lines)
    return files
