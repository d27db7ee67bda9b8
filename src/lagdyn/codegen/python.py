"""Python: ``math`` code for one state and numpy code over arrays of states.

:func:`runtime_source` emits the module the numpy backend runs (and the numba and
jax backends build on): per kernel ``<name>_1`` (one state, positional floats, a
flat tuple out), ``<name>_a`` (one state, an ndarray out) and ``<name>_batch``
(inputs ``(k, B)``, written into ``out`` of shape ``(*shape, B)``).

:func:`batch_function` runs that module in memory for one kernel, with keyword inputs of any
batch shape and complex support (the recursive programs' ``lambdify``).

Runtime calling convention, shared by every backend: ``q, qd``, the kernel's third
per-state vector (``qdd`` for inverse dynamics, ``tau`` for forward dynamics;
kernels without one take an unused slot ``x``), ``params``, ``t``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import PythonCodePrinter

from ..errors import LagdynError
from .common import PrinterMixin, code_name, flat_index
from .ir import CODEGEN_VERSION, Kernel, Program

__all__ = ["BatchPrinter", "ScalarPrinter", "batch_function", "runtime_source", "slot_symbols"]

#: States per chunk of generated numpy code: long kernels (≥ CHUNK_LINES assignments)
#: use smaller chunks so their temporaries stay in cache (measured: 6-link 2.5× faster).
CHUNK_SMALL, CHUNK_LARGE, CHUNK_LINES = 8192, 4096, 100


class ScalarPrinter(PrinterMixin, PythonCodePrinter):
    """Python ``math`` code for one state (also numba's dialect).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.python import ScalarPrinter
    >>> ScalarPrinter().doprint(sp.sin(sp.Symbol("x")) ** 2)
    '(sin(x)*sin(x))'
    """

    _powers = 3
    _one = "1"

    def __init__(self, qualified: bool = False) -> None:
        super().__init__({"fully_qualified_modules": qualified, "standard": "python3"})

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        return self.small_power(expr) or str(super()._print_Pow(expr, rational=rational))


class BatchPrinter(PrinterMixin, NumPyPrinter):
    """numpy code over arrays of states (qualified ``numpy.`` names).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.python import BatchPrinter
    >>> BatchPrinter().doprint(sp.sin(sp.Symbol("x")))
    'numpy.sin(x)'
    """

    _powers = 2
    _one = "1"

    def __init__(self) -> None:
        super().__init__({"fully_qualified_modules": True})

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        b, e = expr.as_base_exp()
        if e.is_Integer and int(e) == -1:
            return "1/" + self.parenthesize(b, sp.printing.precedence.PRECEDENCE["Pow"])
        return self.small_power(expr) or str(super()._print_Pow(expr, rational=rational))


def slot_symbols(program: Program, kernel: Kernel) -> list[tuple[str, tuple[sp.Symbol, ...]]]:
    """The runtime argument slots ``q, qd, third, params`` and their code symbols.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.python import slot_symbols
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = system_program(dp, Binding(dp.parameters, dp.defaults))
    >>> [s for s, _ in slot_symbols(prog, prog.kernels["forward_dynamics"])]
    ['q', 'qd', 'tau', 'params']
    """
    n = program.n
    third = kernel.third
    x3 = program.vector(third) if third else tuple(sp.Symbol(f"x_{i}") for i in range(n))
    return [
        ("q", program.vector("q")),
        ("qd", program.vector("qd") or tuple(sp.Symbol(f"qd_{i}") for i in range(n))),
        (third or "x", x3),
        ("params", program.vector("params")),
    ]


def runtime_source(program: Program, key: str, *, single: bool = True) -> str:
    """The Python module of the numpy backend (unsealed; the cache seals it).

    ``single=False`` leaves out the one-state functions ``<name>_1`` and ``<name>_a``
    (:func:`batch_function` runs only ``<name>_batch``).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.python import runtime_source
    >>> dp = ld.zoo.double_pendulum()
    >>> src = runtime_source(system_program(dp, Binding(dp.parameters)), "k")
    >>> "def M_batch(q, qd, x, params, t, out):" in src
    True
    """
    sp_ = ScalarPrinter()
    bp = BatchPrinter()
    lines = [
        f"# lagdyn-key: {key}",
        *[f"# {c}" for c in program.comments()],
        f'"""Numeric kernels (lagdyn codegen {CODEGEN_VERSION}), n = {program.n}."""',
        "import math",
        "import numpy",
        "",
        "_array, _f64 = numpy.array, numpy.float64",
        "",
    ]
    funcs: list[str] = []
    chunks = []
    for name, k in program.kernels.items():
        slots = slot_symbols(program, k)
        if single:
            ins = ", ".join([*(str(s) for _, syms in slots for s in syms), "t"])
            body = [f"    {code_name(s)} = {sp_.doprint(e)}" for s, e in k.body]
            # constant outputs print as floats, so one state never comes back as an int array
            printed = [
                repr(float(e)) if sp.sympify(e).is_number else sp_.doprint(e) for e in k.outputs
            ]
            outs = ", ".join(printed)
            funcs.append("\n".join([f"def {name}_1({ins}):", *body, f"    return ({outs},)"]))
            if not k.shape:
                ret = f"_f64({outs})"
            elif len(k.shape) == 1:
                ret = f"_array(({outs},))"
            else:
                cols = k.shape[1]
                rows = ", ".join(
                    "(" + ", ".join(printed[r * cols : (r + 1) * cols]) + ",)"
                    for r in range(k.shape[0])
                )
                ret = f"_array(({rows},))"
            funcs.append("\n".join([f"def {name}_a({ins}):", *body, f"    return {ret}"]))
        chunks.append(f"{name!r}: {CHUNK_SMALL if len(k.body) < CHUNK_LINES else CHUNK_LARGE}")
        # batch: inputs are (k, B) arrays (rows broadcastable), out is (*shape, B)
        used = k.used_symbols()
        batch = [f"def {name}_batch({', '.join(s for s, _ in slots)}, t, out):"]
        batch += [
            f"    {s} = {slot}[{i}]"
            for slot, syms in slots
            for i, s in enumerate(syms)
            if s in used
        ]
        batch += [f"    {code_name(s)} = {bp.doprint(e)}" for s, e in k.body]
        for idx, e in enumerate(k.outputs):
            target = "..." if not k.shape else flat_index(k.shape, idx)
            batch.append(f"    out[{target}] = {bp.doprint(e)}")
        batch.append("    return out")
        funcs.append("\n".join(batch))
    lines.append("#: output shape of one state, per kernel")
    lines.append(
        "SHAPES = {" + ", ".join(f"{k!r}: {v.shape!r}" for k, v in program.kernels.items()) + "}"
    )
    lines.append("#: states per chunk of each batched function (temporaries stay in cache)")
    lines.append("CHUNKS = {" + ", ".join(chunks) + "}")
    lines.append("")
    imports = sorted(sp_.module_imports.get("math", set()))
    if imports:
        lines.insert(lines.index("import numpy") + 1, f"from math import {', '.join(imports)}")
    return "\n".join(lines) + "\n" + "\n\n\n".join(funcs) + "\n"


def batch_function(program: Program, name: str) -> Callable[..., Any]:
    """Kernel ``name`` of ``program`` as one numpy function over any batch shape.

    The function takes the input vectors by keyword (``q``, ``qd``, ``qdd``, ``tau``,
    ``lam``, ``params``; ``t`` a scalar, default 0), each of shape ``(..., k)`` and
    broadcast together; inputs the kernel does not read may be left out (passed, they
    still count for the batch shape). It returns
    ``(...) + shape``, float64, or complex when an input is complex (complex-step
    derivatives). The code is the ``<name>_batch`` function of :func:`runtime_source`,
    executed in memory (nothing is cached; the numpy backend of :mod:`lagdyn.numeric`
    loads the same module through the sealed cache).

    Raises
    ------
    LagdynError
        A kernel that reads more than one of ``qdd``, ``tau``, ``lam`` (the runtime has one
        slot for them), or, when called, an input it reads that was not passed.

    Examples
    --------
    >>> import numpy as np, sympy as sp
    >>> from lagdyn.codegen import program
    >>> from lagdyn.codegen.python import batch_function
    >>> q0, q1 = sp.symbols("q0 q1", real=True)
    >>> f = batch_function(program([], {"f": [sp.sin(q0) * q1, q1]}, {"q": [q0, q1]}), "f")
    >>> f(q=np.array([[0.0, 2.0], [np.pi / 2, 3.0]]))
    array([[0., 2.],
           [3., 3.]])
    """
    import numpy

    kernel = program.kernels[name]
    slots = slot_symbols(program, kernel)
    used = kernel.used_symbols()
    inputs = {s for v in program.vectors.values() for s in v}
    if (used & inputs) - {s for _, syms in slots for s in syms}:
        raise LagdynError(
            f"kernel {name!r} reads more than one of qdd, tau, lam; the runtime has one slot"
        )
    reads = [(slot, any(s in used for s in syms)) for slot, syms in slots]
    namespace: dict[str, Any] = {"__name__": f"lagdyn_kernel_{name}"}
    source = runtime_source(program, f"kernel-{name}", single=False)
    code = compile(source, f"<lagdyn kernel {name}>", "exec")
    exec(code, namespace)
    batch = namespace[f"{name}_batch"]
    shape = tuple(kernel.shape)
    k = len(shape)

    def function(
        q: Any = None,
        qd: Any = None,
        qdd: Any = None,
        tau: Any = None,
        lam: Any = None,
        params: Any = None,
        t: Any = 0.0,
    ) -> Any:
        given = {"q": q, "qd": qd, "qdd": qdd, "tau": tau, "lam": lam, "params": params}
        states: tuple[int, ...] = ()
        dtype: Any = numpy.float64
        args: list[Any] = []
        for slot, needed in reads:
            value = given.get(slot)
            if value is None:
                if needed:
                    raise LagdynError(f"{name} reads {slot}: pass {slot}=...")
                args.append(None)
                continue
            a = numpy.asarray(value)  # passed but unread inputs still set the batch shape
            dtype = numpy.result_type(dtype, a.dtype)
            states = numpy.broadcast_shapes(states, a.shape[:-1])
            args.append(numpy.moveaxis(a, -1, 0) if needed else None)
        out = numpy.zeros(shape + states, dtype=dtype)
        batch(*args, t, out)
        return numpy.ascontiguousarray(out.transpose(*range(k, out.ndim), *range(k)))

    return function
