"""JavaScript: kernels of a :class:`~lagdyn.codegen.Program` as plain functions on arrays.

One more language behind the same IR: :func:`kernel_function` turns a
:class:`~lagdyn.codegen.Kernel` into a :class:`JsFunction` (arguments named as in
every exported language: ``q, qd, qdd, tau, lam, p, t``), :func:`js_source` prints
a :class:`JsModule` as one script that defines a global object in a browser and is
``module.exports`` under Node, and :func:`export_files` writes ``NAME.js`` for
``lagdyn export MODEL -t js``. Every expression is printed by :class:`JsPrinter`
(a sympy ``JavascriptCodePrinter``). Matrices come back as arrays of rows, vectors
as arrays, scalars as numbers; every array argument is checked for its length.

The emitter's own structure (also used for functions that do not come from a
system, e.g. the lab page's constraints h(z) in ambient coordinates,
:mod:`lagdyn.lab.js`):

* :class:`JsArg` — one argument: its JS name, the code symbols read from it by index
  (``q[0] → q_0``), whether it is a scalar, and a default;
* :class:`JsFunction` — ``body`` assignments ``(symbol, expression)`` followed by flat,
  row-major ``outputs`` of a given ``shape`` (a kernel);
* :class:`JsModule` — the functions plus named constants (JSON values).

What the ``js`` target emits: :func:`model_program` (the kernels of
:func:`~lagdyn.codegen.system_program` plus ``h`` and the generalized forces, both
part of ``NAME.js``), :func:`module_constants` (``N``, ``COORDINATES``,
``PARAMETERS``, ``BOUND``) and :func:`model_source` (:func:`js_source` plus forward
dynamics by a Cholesky solve in JS above the unrolled size). Parameters are parsed by
:class:`~lagdyn.codegen.Binding` (symbols or names); defaults are never bound
implicitly: the free parameters are passed as ``p`` in every call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.printing.jscode import JavascriptCodePrinter

from ..errors import LagdynError
from .binding import Binding
from .build import expression_program, system_program
from .common import ARG, DESCRIPTIONS, PrinterMixin, prod
from .ir import HEADER, Kernel, Program

__all__ = [
    "JsArg",
    "JsFunction",
    "JsModule",
    "JsPrinter",
    "check_identifier",
    "export_files",
    "js_source",
    "kernel_function",
    "model_program",
    "model_source",
    "module_constants",
]


class JsPrinter(PrinterMixin, JavascriptCodePrinter):
    """JavaScript for one state: small integer powers as products, floats round-trip exactly.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.javascript import JsPrinter
    >>> x = sp.Symbol("x")
    >>> JsPrinter().doprint(x**2 + sp.sin(x) / 2)
    '(x*x) + (1/2)*Math.sin(x)'
    """

    _one = "1"

    def _print_Pow(self, expr: sp.Pow) -> str:
        return self.small_power(expr) or str(super()._print_Pow(expr))


@dataclass(frozen=True)
class JsArg:
    """One argument of a generated function.

    Attributes
    ----------
    name : str
        The JS parameter name (``q``, ``qd``, ``p``, ``t``, ``z``...).
    symbols : tuple of sympy.Symbol
        Code symbols read from it: ``symbols[i] = name[i]``; a scalar argument has one.
    scalar : bool
        The argument is a number, not an array.
    default : str or None
        A JS expression used when the caller omits it (a module constant or a number).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.javascript import JsArg
    >>> JsArg("t", (sp.Symbol("t"),), scalar=True, default="0").scalar
    True
    """

    name: str
    symbols: tuple[sp.Symbol, ...]
    scalar: bool = False
    default: str | None = None


@dataclass(frozen=True)
class JsFunction:
    """A straight-line program printed as ``function name(args) {...}``.

    Attributes
    ----------
    name : str
        Function name (a JS identifier).
    args : tuple of JsArg
    body : tuple of (sympy.Symbol, sympy.Expr)
        Assignments in order (CSE temporaries, intermediate results).
    outputs : tuple of sympy.Expr
        Flat, row-major outputs.
    shape : tuple of int
        ``()`` scalar, ``(k,)`` vector, ``(r, c)`` matrix (array of rows).
    doc : str
        One line printed above the function.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.javascript import JsArg, JsFunction, JsModule, js_source
    >>> x = sp.Symbol("q_0")
    >>> f = JsFunction("sq", (JsArg("q", (x,)),), (), (x**2,), ())
    >>> src = js_source(JsModule("demo", (f,)))
    >>> for line in src.splitlines():
    ...     if "q_0" in line or "sq(" in line:
    ...         print(line.strip())
    function sq(q) {
    const q_0 = q[0];
    return (q_0*q_0);
    >>> "sq: q must be an array of 1 numbers" in src
    True
    """

    name: str
    args: tuple[JsArg, ...]
    body: tuple[tuple[sp.Symbol, sp.Expr], ...]
    outputs: tuple[sp.Expr, ...]
    shape: tuple[int, ...]
    doc: str = ""


@dataclass(frozen=True)
class JsModule:
    """Functions and constants of one generated script.

    Attributes
    ----------
    name : str
        The global (browser) name of the module object; also ``module.exports`` in Node.
    functions : tuple of JsFunction
    constants : mapping of str to JSON-serialisable value
        Printed as ``const NAME = <json>;`` and exported on the module object.
    comments : tuple of str
        Lines of the header comment.

    Examples
    --------
    >>> from lagdyn.codegen.javascript import JsModule
    >>> JsModule("demo", (), {"N": 2}).constants["N"]
    2
    """

    name: str
    functions: tuple[JsFunction, ...]
    constants: Mapping[str, Any] = field(default_factory=dict)
    comments: tuple[str, ...] = ()


#: Words a generated name must avoid: JavaScript's reserved words and the CommonJS names
#: the script's last line reads.
_WORDS = (
    "arguments await break case catch class const continue debugger default delete do "
    "else enum eval export extends false finally for function if implements import in "
    "instanceof interface let new null package private protected public return static "
    "super switch this throw true try typeof var void while with yield "
    "module exports require undefined NaN Infinity Math"
)
RESERVED = frozenset(_WORDS.split())


def check_identifier(name: str, what: str) -> None:
    """Raise :class:`~lagdyn.errors.LagdynError` unless ``name`` is a usable JS identifier.

    Examples
    --------
    >>> from lagdyn.codegen.javascript import check_identifier
    >>> check_identifier("dp", "name")
    >>> check_identifier("function", "name")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: name 'function' is not a JavaScript identifier (or is reserved)
    """
    if not name.isidentifier() or not name.isascii() or name in RESERVED:
        raise LagdynError(f"{what} {name!r} is not a JavaScript identifier (or is reserved)")


def _check_symbols(fn: JsFunction) -> None:
    known: set[sp.Basic] = {s for a in fn.args for s in a.symbols}
    for s, e in fn.body:
        extra = sp.sympify(e).free_symbols - known
        if extra:
            raise LagdynError(
                f"JS function {fn.name}: {s} uses {', '.join(sorted(map(str, extra)))}, "
                "which no argument provides"
            )
        known.add(s)
    for e in fn.outputs:
        extra = sp.sympify(e).free_symbols - known
        if extra:
            raise LagdynError(
                f"JS function {fn.name}: an output uses "
                f"{', '.join(sorted(map(str, extra)))}, which no argument provides"
            )


def _function_source(fn: JsFunction, printer: JsPrinter) -> list[str]:
    try:
        return _function_lines(fn, printer)
    except LagdynError:
        raise
    except Exception as exc:  # sympy's PrintMethodNotImplementedError and kin
        raise LagdynError(
            f"JS function {fn.name}: cannot print an expression as JavaScript ({exc})"
        ) from exc


def _function_lines(fn: JsFunction, printer: JsPrinter) -> list[str]:
    check_identifier(fn.name, "function name")
    _check_symbols(fn)
    if len(fn.outputs) != prod(fn.shape):
        raise LagdynError(f"JS function {fn.name}: {len(fn.outputs)} outputs for shape {fn.shape}")
    used: set[sp.Basic] = set()
    for _, e in fn.body:
        used |= sp.sympify(e).free_symbols
    for e in fn.outputs:
        used |= sp.sympify(e).free_symbols
    params = []
    lines = []
    if fn.doc:
        lines.append(f"  /** {fn.doc} */")
    for a in fn.args:
        check_identifier(a.name, "argument name")
        params.append(a.name if a.default is None else f"{a.name} = {a.default}")
    lines.append(f"  function {fn.name}({', '.join(params)}) {{")
    for a in fn.args:
        if not a.scalar and any(s in used for s in a.symbols):
            k = len(a.symbols)
            lines.append(
                f"    if ({a.name} == null || {a.name}.length !== {k}) throw new TypeError("
                f'"{fn.name}: {a.name} must be an array of {k} numbers");'
            )
    for a in fn.args:
        if a.scalar:
            s = a.symbols[0]
            if s in used and str(s) != a.name:
                lines.append(f"    const {s} = {a.name};")
            continue
        for i, s in enumerate(a.symbols):
            if s in used:
                lines.append(f"    const {s} = {a.name}[{i}];")
    for s, e in fn.body:
        lines.append(f"    const {s} = {printer.doprint(e)};")
    printed = [printer.doprint(sp.sympify(e)) for e in fn.outputs]
    if not fn.shape:
        lines.append(f"    return {printed[0]};")
    elif len(fn.shape) == 1:
        lines.append(f"    return [{', '.join(printed)}];")
    else:
        cols = fn.shape[1]
        rows = [
            "[" + ", ".join(printed[r * cols : (r + 1) * cols]) + "]" for r in range(fn.shape[0])
        ]
        lines.append("    return [" + ",\n      ".join(rows) + "];")
    lines.append("  }")
    return lines


def js_source(module: JsModule) -> str:
    """The JavaScript text of ``module``: a global object, and ``module.exports`` under Node.

    Parameters
    ----------
    module : JsModule

    Returns
    -------
    str

    Raises
    ------
    LagdynError
        A name that is not a JS identifier, or an expression using a symbol that no
        argument or earlier assignment provides.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.javascript import JsArg, JsFunction, JsModule, js_source
    >>> q0 = sp.Symbol("q_0")
    >>> f = JsFunction("twice", (JsArg("q", (q0,)),), (), (2 * q0,), (1,))
    >>> src = js_source(JsModule("demo", (f,), {"N": 1}))
    >>> "return [2*q_0];" in src and "module.exports = demo" in src
    True
    """
    check_identifier(module.name, "module name")
    printer = JsPrinter()
    out = [f"// {HEADER}"]
    out += [f"// {c}" for c in module.comments]
    out.append(f"var {module.name} = (function () {{")
    out.append('  "use strict";')
    for k, v in module.constants.items():
        check_identifier(k, "constant name")
        # names as JSON strings; characters that are not printable (U+2028/9 end a
        # line in a string before ES2019) as their \u escapes
        text = json.dumps(v, ensure_ascii=False)
        text = "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)
        out.append(f"  const {k} = {text};")
    for fn in module.functions:
        out.append("")
        out += _function_source(fn, printer)
    names = [*module.constants, *(f.name for f in module.functions)]
    out.append("")
    out.append("  return { " + ", ".join(names) + " };")
    out.append("})();")
    out.append(
        'if (typeof module !== "undefined" && module.exports) '
        f"{{ module.exports = {module.name}; }}"
    )
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ kernels → functions
#: One line of documentation per model function.
DOCS = {
    **DESCRIPTIONS,
    "h": "h = C qd + G qd + g (no applied forces), n entries",
    "forces": "non-conservative generalized forces Q, n entries",
}
#: Functions of :func:`model_program`, in the order they are printed.
MODEL_ORDER = (
    "M",
    "C",
    "g",
    "h",
    "forces",
    "bias",
    "energy",
    "inverse_dynamics",
    "forward_dynamics",
)


def kernel_function(
    prog: Program,
    kernel: Kernel,
    *,
    names: Mapping[str, str] | None = None,
    doc: str | None = None,
) -> JsFunction:
    """The JS function of one kernel: arguments in the kernel's input order.

    Arguments are named as in every exported language (``q, qd, qdd, tau, lam, p,
    t``) unless ``names`` renames an input (``{"q": "z"}``); ``t`` defaults to 0, and
    ``p`` to ``[]`` when the program has no free parameters.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.javascript import kernel_function
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = system_program(dp, Binding(dp.parameters))
    >>> [a.name for a in kernel_function(prog, prog.kernels["bias"]).args]
    ['q', 'qd', 'p', 't']
    """
    rename = dict(names or {})
    args = []
    for vec in kernel.inputs:
        name = rename.get(vec, ARG[vec])
        if vec == "t":
            args.append(JsArg(name, (prog.t,), scalar=True, default="0"))
            continue
        syms = prog.vector(vec)
        args.append(JsArg(name, syms, default="[]" if vec == "params" and not syms else None))
    text = DOCS.get(kernel.name, "") if doc is None else doc
    return JsFunction(
        kernel.name,
        tuple(args),
        tuple(kernel.body),
        tuple(kernel.outputs),
        tuple(kernel.shape),
        text,
    )


def model_program(system: Any, binding: Binding) -> Program:
    """The kernels of :func:`~lagdyn.codegen.system_program` plus ``h`` and ``forces``.

    ``h = C q̇ + G q̇ + g`` and the generalized forces ``Q`` come from one
    :func:`~lagdyn.codegen.expression_program` (inputs ``q, qd, params, t``).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.codegen.javascript import model_program
    >>> dp = ld.zoo.double_pendulum()
    >>> list(model_program(dp, Binding(dp.parameters)).kernels)[:5]
    ['M', 'C', 'g', 'h', 'forces']
    """
    prog = system_program(system, binding)
    n = system.n
    extra = expression_program(
        system,
        {"h": list(system.h), "forces": list(system.forces)},
        {"h": (n,), "forces": (n,)},
        binding,
    )
    kernels = {**prog.kernels, **extra.kernels}
    prog.kernels = {k: kernels[k] for k in MODEL_ORDER if k in kernels}
    return prog


def module_constants(prog: Program) -> dict[str, Any]:
    """The constants of a model's module: ``N``, ``COORDINATES``, ``PARAMETERS``, ``BOUND``.

    ``PARAMETERS`` are the free parameters (the order of ``p``), ``BOUND`` the folded
    values by name.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.codegen.javascript import model_program, module_constants
    >>> dp = ld.zoo.double_pendulum()
    >>> consts = module_constants(model_program(dp, Binding(dp.parameters, {"g": 9.81})))
    >>> consts["N"], consts["PARAMETERS"], consts["BOUND"]
    (2, ['l1', 'l2', 'm1', 'm2'], {'g': 9.81})
    """
    return {
        "N": prog.n,
        "COORDINATES": list(prog.coordinate_names),
        "PARAMETERS": list(prog.parameter_names),
        "BOUND": dict(prog.bound),
    }


#: JS of forward dynamics through a Cholesky solve, for n above the unrolled size;
#: ``$P`` is the declaration of ``p``.
_CHOLESKY_FD = """
  /** accelerations qdd = M^-1 (tau - bias), by a Cholesky solve */
  function forward_dynamics(q, qd, tau, @P@, t = 0) {
    const A = M(q, p), r = bias(q, qd, p, t), n = A.length;
    if (tau == null || tau.length !== n)
      throw new TypeError("forward_dynamics: tau must be an array of " + n + " numbers");
    const L = A.map((row) => row.slice());
    for (let j = 0; j < n; j++) {
      let s = L[j][j];
      for (let k = 0; k < j; k++) s -= L[j][k] * L[j][k];
      L[j][j] = Math.sqrt(s);
      for (let i = j + 1; i < n; i++) {
        let v = L[i][j];
        for (let k = 0; k < j; k++) v -= L[i][k] * L[j][k];
        L[i][j] = v / L[j][j];
      }
    }
    const y = new Array(n), x = new Array(n);
    for (let i = 0; i < n; i++) {
      let v = tau[i] - r[i];
      for (let k = 0; k < i; k++) v -= L[i][k] * y[k];
      y[i] = v / L[i][i];
    }
    for (let i = n - 1; i >= 0; i--) {
      let v = y[i];
      for (let k = i + 1; k < n; k++) v -= L[k][i] * x[k];
      x[i] = v / L[i][i];
    }
    return x;
  }
"""


def model_source(module: JsModule) -> str:
    """:func:`js_source` of a model's module, with forward dynamics however large n is.

    A module with ``M`` and ``bias`` but no ``forward_dynamics`` (n above the unrolled
    solve size) gets ``forward_dynamics(q, qd, tau, p, t = 0)`` as a Cholesky solve in
    JS; ``p`` defaults to ``[]`` when ``PARAMETERS`` is empty.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.codegen.javascript import (
    ...     JsModule, kernel_function, model_program, model_source)
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = model_program(dp, Binding(dp.parameters))
    >>> fns = tuple(kernel_function(prog, prog.kernels[k]) for k in ("M", "bias"))
    >>> src = model_source(JsModule("dp", fns, {"PARAMETERS": ["g"]}))
    >>> "function forward_dynamics(q, qd, tau, p, t = 0)" in src
    True
    >>> "return { forward_dynamics, PARAMETERS, M, bias };" in src
    True
    """
    src = js_source(module)
    names = {f.name for f in module.functions}
    if "forward_dynamics" not in names and {"M", "bias"} <= names:
        p = "p" if module.constants.get("PARAMETERS") else "p = []"
        fd = _CHOLESKY_FD.replace("@P@", p)
        src = src.replace("\n  return { ", fd + "\n  return { forward_dynamics, ", 1)
    return src


def export_files(prog: Program, name: str) -> dict[str, str]:
    """``NAME.js``: one function per kernel, a global ``NAME`` and ``module.exports``.

    Above the unrolled solve size (no ``forward_dynamics`` kernel) forward dynamics
    is a Cholesky solve in JS over ``M`` and ``bias``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.codegen.javascript import export_files, model_program
    >>> dp = ld.zoo.double_pendulum()
    >>> src = export_files(model_program(dp, Binding(dp.parameters)), "dp")["dp.js"]
    >>> "function forward_dynamics(q, qd, tau, p, t = 0)" in src
    True
    """
    fns = [kernel_function(prog, k) for k in prog.kernels.values()]
    comments = [
        *prog.comments(),
        "p: the free parameters in the order of PARAMETERS (always passed); t defaults to 0",
    ]
    module = JsModule(name, tuple(fns), module_constants(prog), tuple(comments))
    return {f"{name}.js": model_source(module)}


#: Builders for the lab page that moved to :mod:`lagdyn.lab.js` (codegen does not import lab).
_MOVED = ("export_js", "map_functions", "model_functions", "position_functions")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        raise AttributeError(
            f"lagdyn.codegen.javascript.{name} moved to lagdyn.lab.js.{name} "
            "(the lab page's builders live with the lab; codegen only prints)"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
