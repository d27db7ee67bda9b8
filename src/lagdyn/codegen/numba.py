"""numba: ``@numba.njit`` code, for the numba backend and ``NAME_numba.py``.

Both are printed by the ``math`` printer of :mod:`lagdyn.codegen.python`. The
runtime module adds to :func:`lagdyn.codegen.python.runtime_source` one batched
loop per kernel (``<name>_loop(x, out)`` over packed states ``x``, ``prange``).
"""

from __future__ import annotations

from string import Template

from .common import describe, flat_index, header_lines, kernel_args, prod, reads
from .ir import Program
from .python import ScalarPrinter, slot_symbols
from .python import runtime_source as python_source

__all__ = ["export_files", "runtime_source"]

#: One batched loop; ``$name``, ``$args`` (packed-state reads), ``$stores``.
_LOOP = Template(
    """
def ${name}_loop(x, out):
    for k in prange(x.shape[0]):
        r = ${name}_1($args)
$stores
"""
)


def runtime_source(program: Program, key: str) -> str:
    """The numba backend's module: the scalar kernels and a ``prange`` loop per kernel.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.numba import runtime_source
    >>> dp = ld.zoo.double_pendulum()
    >>> "def M_loop(x, out):" in runtime_source(system_program(dp, Binding(dp.parameters)), "k")
    True
    """
    parts = [python_source(program, key), "from numba import prange  # noqa: E402", ""]
    for name, k in program.kernels.items():
        width = sum(len(s) for _, s in slot_symbols(program, k)) + 1
        args = ", ".join(f"x[k, {j}]" for j in range(width))
        stores = "\n".join(f"        out[k, {j}] = r[{j}]" for j in range(prod(k.shape)))
        parts.append(_LOOP.substitute(name=name, args=args, stores=stores))
    return "\n".join(parts)


def export_files(program: Program, name: str) -> dict[str, str]:
    """``NAME_numba.py``: functions writing into ``out``, plus ``*_batch`` loops.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.numba import export_files
    >>> dp = ld.zoo.double_pendulum()
    >>> list(export_files(system_program(dp, Binding(dp.parameters)), "dp"))
    ['dp_numba.py']
    """
    pr = ScalarPrinter(qualified=True)
    doc = "\n".join(header_lines(program, name)[1:])
    note = "numba: out is (n, n) for matrices; the *_batch functions add a leading axis."
    params = ", ".join(repr(s) for s in program.parameter_names)
    coords = ", ".join(repr(c) for c in program.coordinate_names)
    lines = [
        f"# {header_lines(program, name)[0]}",
        f'"""numba functions of model {name} (lagdyn).\n\n{doc}\n{note}\n"""',
        "",
        "import math",
        "",
        "import numba",
        "",
        f"N = {program.n}",
        f"COORDINATES = ({coords}{',' if len(program.coordinate_names) == 1 else ''})",
        f"PARAMETERS = ({params}{',' if len(program.parameter_names) == 1 else ''})",
    ]
    for k in program.kernels.values():
        args = kernel_args(k)
        scalar = k.shape == ()
        sig = ", ".join(args if scalar else [*args, "out"])
        lines += ["", "", "@numba.njit(cache=False)", f"def {k.name}({sig}):"]
        lines.append(f'    """{describe(k.name)}{"" if scalar else ", written into out"}."""')
        lines += [f"    {s} = {a}[{i}]" for s, a, i in reads(program, k)]
        lines += [f"    {s} = {pr.doprint(e)}" for s, e in k.body]
        if scalar:
            lines.append(f"    return {pr.doprint(k.outputs[0])}")
        else:
            lines += [
                f"    out[{flat_index(k.shape, i)}] = {pr.doprint(e)}"
                for i, e in enumerate(k.outputs)
            ]
            lines.append("    return out")
        per_state = [a for a in args if a not in ("p", "t")]
        call = ", ".join(f"{a}[k]" if a in per_state else a for a in args)
        lines += [
            "",
            "",
            "@numba.njit(cache=False)",
            f"def {k.name}_batch({', '.join([*args, 'out'])}):",
        ]
        lines.append(f'    """{k.name} over axis 0 of {", ".join(per_state)} (p, t shared)."""')
        lines.append(f"    for k in range({per_state[0]}.shape[0]):")
        lines.append(
            f"        out[k] = {k.name}({call})" if scalar else f"        {k.name}({call}, out[k])"
        )
        lines.append("    return out")
    return {f"{name}_numba.py": "\n".join(lines) + "\n"}
