"""One code generator: kernel programs, parameter binding, the cache, one printer per language.

Data flow::

    LagrangianSystem ──build.system_program──▶ Program (ir) ──<language>.runtime_source──▶
    (+ Binding)          (one joint CSE)                      module run by numeric.backends
                                                  └──<language>.export_files──▶ export.code

Modules
-------
``ir``        :class:`Kernel`, :class:`Program`, :func:`program` (a Program from assignments)
``binding``   :class:`Binding`: the one parser of parameters
``build``     programs of a system (:func:`system_program`) and of expressions
``trig``      the numeric form (no cancelling constants) and shared sin/cos
``cache``     the one cache key and the sealed, race-free disk cache
``c``, ``python``, ``numba``, ``jax``, ``cpp``, ``julia``, ``matlab``, ``javascript``
              one printer per language: runtime modules and/or exported files
              (``javascript`` also feeds the lab page, :mod:`lagdyn.lab`)

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn.codegen import Binding, system_program
>>> dp = ld.zoo.double_pendulum()
>>> prog = system_program(dp, Binding(dp.parameters, {"g": 9.81}))
>>> prog.parameter_names
('l1', 'l2', 'm1', 'm2')
"""

from __future__ import annotations

from .binding import Binding
from .build import KERNELS, MAX_UNROLLED, expression_program, output_shape, system_program
from .ir import CODEGEN_VERSION, HEADER, Kernel, Program, program

__all__ = [
    "CODEGEN_VERSION",
    "HEADER",
    "KERNELS",
    "MAX_UNROLLED",
    "TARGETS",
    "Binding",
    "Kernel",
    "Program",
    "export_files",
    "expression_program",
    "output_shape",
    "program",
    "system_program",
]

#: Exported-file writers by target name (``lagdyn.export.code``).
TARGETS = ("c", "cpp", "jax", "numba", "julia", "matlab", "js")
#: Module of each target whose name differs from the target's.
_MODULES = {"js": "javascript"}


def export_files(program: Program, target: str, name: str) -> dict[str, str]:
    """The exported source files of ``program`` for ``target``, as ``{file name: text}``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, export_files, system_program
    >>> dp = ld.zoo.double_pendulum()
    >>> sorted(export_files(system_program(dp, Binding(dp.parameters)), "c", "dp"))
    ['dp.c', 'dp.h']
    """
    from importlib import import_module

    module = import_module(f"{__name__}.{_MODULES.get(target, target)}")
    files: dict[str, str] = module.export_files(program, name)
    return files
