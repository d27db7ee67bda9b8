"""JAX: ``jax.numpy`` functions of one state, for the jax backend and ``NAME_jax.py``.

The runtime module has per kernel ``<name>_x(x)``: a function of the packed state
``x = [q, qd, third, params, t]`` (see :mod:`lagdyn.codegen.python`) returning a
flat array; the backend ``jit``/``vmap``s it. The exported file has functions of
the named arguments returning arrays of the output shape.
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.numpy import JaxPrinter as _SympyJaxPrinter

from .common import PrinterMixin, code_name, describe, header_lines, kernel_args, reads
from .ir import CODEGEN_VERSION, Kernel, Program
from .python import slot_symbols

__all__ = ["JaxPrinter", "export_files", "runtime_source"]


class JaxPrinter(PrinterMixin, _SympyJaxPrinter):
    """``jax.numpy`` code (qualified names); small integer powers as products.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.jax import JaxPrinter
    >>> JaxPrinter().doprint(sp.cos(sp.Symbol("x")))
    'jax.numpy.cos(x)'
    """

    _one = "1.0"

    def __init__(self) -> None:
        super().__init__({"fully_qualified_modules": True})

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        return self.small_power(expr) or str(super()._print_Pow(expr, rational=rational))


def _array(outs: list[str], shape: tuple[int, ...]) -> str:
    if shape == ():
        return f"jax.numpy.asarray({outs[0]}, dtype=float)"
    if len(shape) == 1:
        return f"jax.numpy.array([{', '.join(outs)}], dtype=float)"
    c = shape[1]
    rows = ", ".join("[" + ", ".join(outs[r * c : (r + 1) * c]) + "]" for r in range(shape[0]))
    return f"jax.numpy.array([{rows}], dtype=float)"


def runtime_source(program: Program, key: str) -> str:
    """The module of the jax backend (unsealed).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.jax import runtime_source
    >>> dp = ld.zoo.double_pendulum()
    >>> "def M_x(x):" in runtime_source(system_program(dp, Binding(dp.parameters)), "k")
    True
    """
    pr = JaxPrinter()
    lines = [
        f"# lagdyn-key: {key}",
        *[f"# {c}" for c in program.comments()],
        f'"""JAX kernels (lagdyn codegen {CODEGEN_VERSION}), n = {program.n}."""',
        "import jax",
        "import jax.numpy",
        "",
    ]
    for name, k in program.kernels.items():
        lines += ["", f"def {name}_x(x):", *_packed_reads(program, k)]
        lines += [f"    {code_name(s)} = {pr.doprint(e)}" for s, e in k.body]
        outs = [f"{pr.doprint(e)} + zero" for e in k.outputs]
        lines.append(f"    return jax.numpy.stack([{', '.join(outs)}])")
    lines.append("")
    lines.append(
        "SHAPES = {" + ", ".join(f"{k!r}: {v.shape!r}" for k, v in program.kernels.items()) + "}"
    )
    return "\n".join(lines) + "\n"


def _packed_reads(program: Program, k: Kernel) -> list[str]:
    used = k.used_symbols()
    out = ["    zero = jax.numpy.zeros_like(x[0])"]
    pos = 0
    for _, syms in slot_symbols(program, k):
        for s in syms:
            if s in used:
                out.append(f"    {s} = x[{pos}]")
            pos += 1
    out.append(f"    {program.t} = x[{pos}]")
    return out


def export_files(program: Program, name: str) -> dict[str, str]:
    """``NAME_jax.py``: pure ``jax.numpy`` functions of one state.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.jax import export_files
    >>> dp = ld.zoo.double_pendulum()
    >>> list(export_files(system_program(dp, Binding(dp.parameters)), "dp"))
    ['dp_jax.py']
    """
    pr = JaxPrinter()
    doc = "\n".join(header_lines(program, name)[1:])
    params = ", ".join(repr(s) for s in program.parameter_names)
    coords = ", ".join(repr(c) for c in program.coordinate_names)
    lines = [
        f"# {header_lines(program, name)[0]}",
        f'"""JAX functions of model {name} (lagdyn).\n\n{doc}\n"""',
        "",
        "import jax",
        "import jax.numpy",
        "",
        f"N = {program.n}",
        f"COORDINATES = ({coords}{',' if len(program.coordinate_names) == 1 else ''})",
        f"PARAMETERS = ({params}{',' if len(program.parameter_names) == 1 else ''})",
    ]
    for k in program.kernels.values():
        lines += ["", "", f"def {k.name}({', '.join(kernel_args(k))}):"]
        lines.append(f'    """{describe(k.name)}."""')
        lines += [f"    {s} = {a}[{i}]" for s, a, i in reads(program, k)]
        lines += [f"    {s} = {pr.doprint(e)}" for s, e in k.body]
        lines.append(f"    return {_array([pr.doprint(e) for e in k.outputs], k.shape)}")
    return {f"{name}_jax.py": "\n".join(lines) + "\n"}
