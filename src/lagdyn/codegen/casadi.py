r"""CasADi: ``casadi.Function``\ s built from a :class:`~lagdyn.codegen.Program`, node by node.

No text is printed and reparsed: every assignment and output of a kernel is walked as a
sympy expression tree and each node becomes the matching CasADi SX operation (``Add`` →
``+``, ``Mul`` → ``*``, integer powers → ``constpow``, ``x**(1/2)`` → ``sqrt``,
``sin``/``cos``/``atan2``/…, ``sign``/``Abs``, ``Piecewise`` → ``if_else``). The CSE
intermediates of the program become shared SX nodes, so the graph of a function is the
straight-line program lagdyn prints for every other language, and its numbers are the same
math (up to the rounding of reordered sums and products).

:func:`kernel_function` turns one kernel into a ``casadi.Function`` of SX inputs named
``q``, ``qd``, ``qdd``/``tau``, ``p`` (when the program has free parameters) and ``t``
(only when the kernel reads time); :func:`serialized` is the text ``casadi.Function.save``
writes (loadable with ``casadi.Function.load`` from Python, C++ and MATLAB), used by
``lagdyn export -t casadi`` (:mod:`lagdyn.numeric.casadi`).
casadi is imported lazily: importing this module does not need it.

Examples
--------
>>> import sympy as sp
>>> from lagdyn.codegen import program
>>> from lagdyn.codegen.casadi import kernel_function
>>> q0, w = sp.Symbol("q_0"), sp.Symbol("w")
>>> prog = program([(w, sp.sin(q0))], {"f": [w**2 + sp.sqrt(q0)]}, {"q": [q0]})
>>> round(float(kernel_function(prog, prog.kernels["f"])(1.0)), 6)
1.708073
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp

from ..errors import BackendUnavailableError, LagdynError
from .common import describe, header_lines
from .ir import Kernel, Program

__all__ = [
    "OUTPUT_NAMES",
    "SUPPORTED_FUNCTIONS",
    "graph_function",
    "import_casadi",
    "kernel_function",
    "readme",
    "serialized",
    "to_sx",
]

#: Output name of each kernel's casadi Function (the kernel name otherwise).
OUTPUT_NAMES = {
    "M": "M",
    "C": "C",
    "g": "g",
    "energy": "E",
    "bias": "h",
    "inverse_dynamics": "tau",
    "forward_dynamics": "qdd",
}
#: Argument names of casadi Functions by input vector.
ARG = {"q": "q", "qd": "qd", "qdd": "qdd", "tau": "tau", "lam": "lam", "params": "p", "t": "t"}


def import_casadi() -> Any:
    """The ``casadi`` module, or :class:`~lagdyn.BackendUnavailableError` with the install hint.

    Examples
    --------
    >>> from lagdyn.codegen.casadi import import_casadi
    >>> import_casadi().__name__
    'casadi'
    """
    try:
        import casadi
    except ImportError as exc:
        raise BackendUnavailableError(
            f"casadi is not installed ({exc}): pip install 'lagdyn[casadi]'"
        ) from exc
    return casadi


def _functions(ca: Any) -> dict[type, Callable[..., Any]]:
    """sympy function classes → casadi operations (one argument unless noted)."""
    return {
        sp.sin: ca.sin,
        sp.cos: ca.cos,
        sp.tan: ca.tan,
        sp.asin: ca.asin,
        sp.acos: ca.acos,
        sp.atan: ca.atan,
        sp.atan2: ca.atan2,  # two arguments (y, x)
        sp.sinh: ca.sinh,
        sp.cosh: ca.cosh,
        sp.tanh: ca.tanh,
        sp.asinh: ca.asinh,
        sp.acosh: ca.acosh,
        sp.atanh: ca.atanh,
        sp.exp: ca.exp,
        sp.log: ca.log,
        sp.Abs: ca.fabs,
        sp.sign: ca.sign,
        sp.floor: ca.floor,
        sp.ceiling: ca.ceil,
        sp.erf: ca.erf,
        sp.Min: ca.fmin,  # n-ary, folded
        sp.Max: ca.fmax,  # n-ary, folded
    }


#: Names of the sympy functions :func:`to_sx` maps (besides +, *, powers and Piecewise).
SUPPORTED_FUNCTIONS = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh"),
    *("asinh", "acosh", "atanh", "exp", "log", "sqrt", "Abs", "sign", "floor", "ceiling"),
    *("erf", "Min", "Max", "Piecewise"),
)


class _Walker:
    """sympy → SX with a memo, so a subtree shared by several outputs is converted once."""

    def __init__(self, ca: Any, env: Mapping[sp.Basic, Any]) -> None:
        self.ca = ca
        self.env = dict(env)
        self.memo: dict[sp.Basic, Any] = {}
        self.table = _functions(ca)

    def __call__(self, e: Any) -> Any:
        e = sp.sympify(e)
        hit = self.memo.get(e)
        if hit is not None:
            return hit
        out = self._convert(e)
        self.memo[e] = out
        return out

    def _convert(self, e: sp.Basic) -> Any:
        ca = self.ca
        if e.is_Symbol:
            if e in self.env:
                return self.env[e]
            raise LagdynError(
                f"cannot build the CasADi graph: {e} is neither an input nor an intermediate"
            )
        if e.is_Number:
            if e in (sp.nan, sp.zoo, sp.oo, -sp.oo):
                raise LagdynError(f"cannot build the CasADi graph: the constant {e} is not finite")
            return ca.SX(float(e))
        if e is sp.pi or e is sp.E or e.is_NumberSymbol:
            return ca.SX(float(e))
        if e.is_Add:
            terms = [self(a) for a in e.args]
            acc = terms[0]
            for x in terms[1:]:
                acc = acc + x
            return acc
        if e.is_Mul:
            factors = [self(a) for a in e.args]
            acc = factors[0]
            for x in factors[1:]:
                acc = acc * x
            return acc
        if e.is_Pow:
            base, ex = e.args
            b = self(base)
            if ex.is_Integer:
                k = int(ex)
                if k == -1:
                    return 1 / b
                if k < 0:
                    return 1 / ca.constpow(b, -k)
                return ca.constpow(b, k)
            if ex == sp.Rational(1, 2):
                return ca.sqrt(b)
            if ex == sp.Rational(-1, 2):
                return 1 / ca.sqrt(b)
            if ex.is_Number:
                return ca.constpow(b, float(ex))
            return ca.power(b, self(ex))
        if isinstance(e, sp.Piecewise):
            return self._piecewise(e)
        if isinstance(e, (sp.Min, sp.Max)):
            op = self.table[type(e)]
            args = [self(a) for a in e.args]
            acc = args[0]
            for x in args[1:]:
                acc = op(acc, x)
            return acc
        fn = self.table.get(type(e)) or self.table.get(getattr(e, "func", None))  # type: ignore[arg-type]
        if fn is not None and isinstance(e, sp.Function):
            return fn(*[self(a) for a in e.args])
        if isinstance(e, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
            return self._condition(e)
        name = getattr(getattr(e, "func", None), "__name__", type(e).__name__)
        raise LagdynError(
            f"cannot build the CasADi graph: the function {name} (in {e}) has no CasADi "
            f"counterpart in lagdyn; supported: {', '.join(SUPPORTED_FUNCTIONS)}"
        )

    def _condition(self, c: Any) -> Any:
        ca = self.ca
        if c is sp.true:
            return ca.SX(1.0)
        if c is sp.false:
            return ca.SX(0.0)
        rel = sp.core.relational
        ops: dict[type, Callable[[Any, Any], Any]] = {
            rel.StrictLessThan: lambda a, b: a < b,
            rel.LessThan: lambda a, b: a <= b,
            rel.StrictGreaterThan: lambda a, b: a > b,
            rel.GreaterThan: lambda a, b: a >= b,
            rel.Equality: lambda a, b: a == b,
            rel.Unequality: lambda a, b: a != b,
        }
        op = ops.get(type(c))
        if op is not None:
            return op(self(c.lhs), self(c.rhs))
        logic = sp.logic.boolalg
        if isinstance(c, logic.And):
            return self._fold(ca.logic_and, c.args)
        if isinstance(c, logic.Or):
            return self._fold(ca.logic_or, c.args)
        if isinstance(c, logic.Not):
            return ca.logic_not(self._condition(c.args[0]))
        raise LagdynError(f"cannot build the CasADi graph: the condition {c} is not supported")

    def _fold(self, op: Callable[[Any, Any], Any], args: Sequence[Any]) -> Any:
        acc = self._condition(args[0])
        for a in args[1:]:
            acc = op(acc, self._condition(a))
        return acc

    def _piecewise(self, e: sp.Piecewise) -> Any:
        ca = self.ca
        pieces = list(e.args)
        value, cond = pieces[-1]
        if cond is not sp.true:  # no otherwise branch: NaN outside, as numpy's select gives
            out = ca.if_else(self._condition(cond), self(value), ca.SX(float("nan")))
        else:
            out = self(value)
        for value, cond in reversed(pieces[:-1]):
            out = ca.if_else(self._condition(cond), self(value), out)
        return out


def to_sx(expr: sp.Expr, env: Mapping[sp.Basic, Any]) -> Any:
    """One sympy expression as a CasADi SX, its symbols looked up in ``env``.

    Raises
    ------
    LagdynError
        A function without a CasADi counterpart (named in the message), or a symbol
        missing from ``env``.
    BackendUnavailableError
        casadi is not installed.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.casadi import import_casadi, to_sx
    >>> x = sp.Symbol("x")
    >>> ca = import_casadi()
    >>> X = ca.SX.sym("x")
    >>> print(ca.Function("f", [X], [to_sx(sp.atan2(x, 1) * x**3, {x: X})])(2.0))
    8.85719
    """
    ca = import_casadi()
    return _Walker(ca, env)(expr)


def _signature(program: Program, kernel: Kernel) -> list[str]:
    """Input vectors of the casadi Function: q, qd, third, p (if any free), t (if read)."""
    used = kernel.used_symbols()
    out = []
    for vec in kernel.inputs:
        if vec == "t":
            if program.t in used:
                out.append("t")
        elif vec == "params":
            if program.vector("params"):
                out.append("params")
        else:
            out.append(vec)
    return out


def kernel_function(
    program: Program,
    kernel: Kernel,
    *,
    name: str | None = None,
    inputs: Sequence[str] | None = None,
) -> Any:
    """One kernel of ``program`` as a ``casadi.Function`` on SX.

    The inputs are dense column vectors named ``q``, ``qd``, ``qdd``/``tau`` (n entries
    each), ``p`` (the free parameters in the order of ``program.parameter_names``; only
    when there are any) and the scalar ``t`` (only when the kernel reads time), in that
    order, or ``inputs`` (input vector names) when given. The output is named after
    :data:`OUTPUT_NAMES` and has the kernel's shape (matrices ``(n, n)``, vectors
    ``(n, 1)``, scalars ``(1, 1)``).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.casadi import kernel_function
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = system_program(dp, Binding(dp.parameters, dp.defaults))
    >>> f = kernel_function(prog, prog.kernels["M"])
    >>> print(f.name_in(), f.name_out(), f([0.0, 0.0]).full().tolist())
    ['q'] ['M'] [[2.0, 1.0], [1.0, 1.0]]
    """
    ca = import_casadi()
    vecs = list(inputs) if inputs is not None else _signature(program, kernel)
    sx_in: list[Any] = []
    env: dict[sp.Basic, Any] = {}
    for vec in vecs:
        if vec == "t":
            T = ca.SX.sym("t")
            env[program.t] = T
            sx_in.append(T)
            continue
        syms = program.vector(vec)
        X = ca.SX.sym(ARG[vec], len(syms))
        env.update({s: X[i] for i, s in enumerate(syms)})
        sx_in.append(X)
    return graph_function(
        kernel,
        env,
        name or kernel.name,
        sx_in,
        [ARG[v] for v in vecs],
        OUTPUT_NAMES.get(kernel.name, kernel.name),
    )


def graph_function(
    kernel: Kernel,
    env: Mapping[sp.Basic, Any],
    name: str,
    inputs: Sequence[Any],
    input_names: Sequence[str],
    output_name: str,
) -> Any:
    """``casadi.Function(name, inputs, [output])`` of ``kernel`` with its inputs in ``env``.

    ``env`` maps every input symbol the kernel reads to an SX element of ``inputs``; the
    body's intermediates are converted in order and the flat outputs shaped as
    ``kernel.shape`` (matrices ``(r, c)``, vectors columns, scalars ``1 x 1``).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen import program
    >>> from lagdyn.codegen.casadi import graph_function, import_casadi
    >>> x = sp.Symbol("x")
    >>> prog = program([], {"f": [x, x**2]}, {"q": [x]})
    >>> ca = import_casadi()
    >>> X = ca.SX.sym("z")
    >>> f = graph_function(prog.kernels["f"], {x: X}, "f", [X], ["z"], "y")
    >>> f(3.0).full().ravel().tolist()
    [3.0, 9.0]
    """
    ca = import_casadi()
    walk = _Walker(ca, env)
    for s, e in kernel.body:
        walk.env[s] = walk(e)
    flat = [walk(e) for e in kernel.outputs]
    shape = kernel.shape
    if shape == ():
        out = flat[0] if flat else ca.SX(0.0)
    elif len(shape) == 1:
        out = ca.vertcat(*flat) if flat else ca.SX(0, 1)
    else:
        r, c = shape
        out = ca.vertcat(*[ca.horzcat(*flat[i * c : (i + 1) * c]) for i in range(r)])
    return ca.Function(name, list(inputs), [out], list(input_names), [output_name])


def serialized(function: Any) -> str:
    """The text ``casadi.Function.save`` writes (ASCII), for an all-or-nothing file writer.

    Examples
    --------
    >>> from lagdyn.codegen.casadi import import_casadi, serialized
    >>> ca = import_casadi()
    >>> x = ca.SX.sym("x")
    >>> serialized(ca.Function("f", [x], [2 * x])).isascii()
    True
    """
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="lagdyn-casadi-") as tmp:
        path = os.path.join(tmp, "f.casadi")
        function.save(path)
        with open(path, "rb") as fh:
            data = fh.read()
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as exc:  # pragma: no cover - casadi writes an ASCII encoding
        raise LagdynError(f"casadi wrote a non-text serialization of {function.name()}") from exc


def readme(
    program: Program, name: str, functions: Mapping[str, Any], what: Mapping[str, str]
) -> str:
    """The manifest of an export: layout, parameters, one line per function and file.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen import program
    >>> from lagdyn.codegen.casadi import readme
    >>> readme(program([], {}, {"q": [sp.Symbol("x")]}), "m", {}, {}).splitlines()[0]
    '# m: CasADi functions'
    """
    head = header_lines(program, name)
    lines = [
        f"# {name}: CasADi functions",
        "",
        f"<!-- {head[0]} -->",
        "",
        "Serialized `casadi.Function`s (SX graphs of lagdyn's CSE program). Load them with",
        "`casadi.Function.load(path)` (Python), `Function::load(path)` (C++) or",
        "`Function.load(path)` (MATLAB), then call them on numbers or on symbols",
        "(`MX`/`SX`) inside optimal-control problems.",
        "",
        *[f"- {line}" for line in head[1:5]],
        "- vectors are columns; matrix outputs are n x n (not flattened)",
        "",
        "| file | inputs | output | what |",
        "| --- | --- | --- | --- |",
    ]
    for k, f in functions.items():
        lines.append(
            f"| `{name}_{k}.casadi` | {', '.join(f.name_in())} | {f.name_out()[0]} "
            f"{tuple(f.size_out(0))} | {what.get(k, describe(k))} |"
        )
    return "\n".join(lines) + "\n"
