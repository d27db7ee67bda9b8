"""A restricted parser for expressions typed by users (the CLI's ``--lagrangian``).

:func:`parse_expr` reads text with Python's :mod:`ast` and builds the sympy
expression node by node; it never calls ``eval``, ``exec`` or ``sympify`` on the
string. Accepted:

* numbers (integers, decimals, exponent notation; decimals become exact rationals,
  ``0.5`` → ``1/2``),
* names given in ``symbols`` and the constant ``pi`` (Euler's number is ``exp(1)``: a bare
  ``E`` is refused unless given in ``symbols``, since it is as often a modulus or an energy),
* ``+ - * / **``, unary ``-`` and ``+``, parentheses,
* calls of the math functions ``sin cos tan exp log sqrt sinh cosh tanh asin acos
  atan atan2 Abs abs``,
* rates: ``dot(q1)`` is dq1/dt, ``ddot(q1)`` d²q1/dt² (of anything depending on ``t``).

Everything else is refused with a :class:`~lagdyn.errors.ParseError` that names
the construct: attribute access, subscripts, dunder names, lambdas,
comprehensions, strings, keyword arguments, comparisons, calls of anything but the
functions above, and ``^`` (write ``**`` for powers). The name ``t`` is the time and is
refused (Lagrangians may not depend on time explicitly); rate spellings such as ``qd``,
``q_dot`` or ``Derivative(q(t), t)`` get a hint to write ``dot(q)``. Numeric exponents are capped
at :data:`MAX_EXPONENT` and text at :data:`MAX_LENGTH` characters.

Examples
--------
>>> import sympy as sp, lagdyn as ld
>>> from lagdyn.parse import parse_expr
>>> q1, = ld.coordinates("q1")
>>> m, l = sp.symbols("m l", positive=True)
>>> parse_expr("m*l**2*dot(q1)**2/2 + m*l*cos(q1)", {"q1": q1, "m": m, "l": l})
l**2*m*Derivative(q1(t), t)**2/2 + l*m*cos(q1(t))
>>> parse_expr("__import__('os').system('ls')", {})
Traceback (most recent call last):
...
lagdyn.errors.ParseError: call of an expression (only sin, cos, ... and dot, ddot may be called) at column 1
"""  # noqa: E501  (doctest output)

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any, Literal

import sympy as sp

from .errors import ParseError
from .symbols import t

__all__ = ["FUNCTIONS", "MAX_EXPONENT", "MAX_LENGTH", "parse_expr"]

#: The callable names and the sympy functions they build.
FUNCTIONS: dict[str, Callable[..., sp.Expr]] = {
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "exp": sp.exp,
    "log": sp.log,
    "sqrt": sp.sqrt,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "asin": sp.asin,
    "acos": sp.acos,
    "atan": sp.atan,
    "atan2": sp.atan2,
    "Abs": sp.Abs,
    "abs": sp.Abs,
}
_ARITY = {"atan2": 2}
_RATES = {"dot": 1, "ddot": 2}
CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi}
#: Largest accepted magnitude of a numeric exponent (``2**10**10`` would not finish).
MAX_EXPONENT = 1000
#: Largest exact number (in bits) that a power of numbers may produce.
MAX_RESULT_BITS = 100_000
#: Longest accepted text.
MAX_LENGTH = 20_000

_FORBIDDEN = {
    ast.Attribute: "attribute access",
    ast.Subscript: "subscript",
    ast.Lambda: "lambda",
    ast.ListComp: "comprehension",
    ast.SetComp: "comprehension",
    ast.DictComp: "comprehension",
    ast.GeneratorExp: "comprehension",
    ast.Compare: "comparison",
    ast.BoolOp: "boolean operator",
    ast.IfExp: "conditional expression",
    ast.NamedExpr: "assignment expression",
    ast.Starred: "starred expression",
    ast.JoinedStr: "string literal",
    ast.List: "list",
    ast.Tuple: "tuple",
    ast.Set: "set",
    ast.Dict: "dict",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.Slice: "slice",
}
_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


def _where(node: ast.AST) -> str:
    col = getattr(node, "col_offset", None)
    return "" if col is None else f" at column {col + 1}"


def parse_expr(
    text: str,
    symbols: Mapping[str, sp.Basic],
    *,
    unknown: Literal["error", "symbol"] = "error",
) -> sp.Expr:
    """Parse ``text`` into a sympy expression, allowing only arithmetic and math functions.

    Parameters
    ----------
    text : str
        The expression, e.g. ``"m*l**2*dot(th)**2/2 + m*g*l*cos(th)"``.
    symbols : mapping of str to sympy.Basic
        The names the text may use (coordinates, parameters). They take precedence
        over the constant ``pi``.
    unknown : {"error", "symbol"}
        What a name outside ``symbols`` becomes: an error (default) or a new positive
        :class:`sympy.Symbol` (a parameter). Names starting with ``_`` are refused either way.

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParseError
        Syntax errors and every construct outside the accepted grammar, named with its
        column.

    Examples
    --------
    >>> import lagdyn as ld
    >>> th, = ld.coordinates("theta")
    >>> parse_expr("ddot(theta) + 0.5*sin(theta)", {"theta": th})
    sin(theta(t))/2 + Derivative(theta(t), (t, 2))
    >>> parse_expr("k*x**2", {}, unknown="symbol").free_symbols == {sp.Symbol("k", positive=True),
    ...                                                               sp.Symbol("x", positive=True)}
    True
    >>> parse_expr("os.system", {"os": th})
    Traceback (most recent call last):
    ...
    lagdyn.errors.ParseError: attribute access (.system) is not allowed at column 1
    """
    if not isinstance(text, str):
        raise ParseError(f"expected a string expression, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ParseError(f"expression longer than {MAX_LENGTH} characters")
    if unknown not in ("error", "symbol"):
        raise ParseError(f"unknown must be 'error' or 'symbol', got {unknown!r}")
    stripped = text.strip()
    if not stripped:
        raise ParseError("empty expression")
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        col = f" at column {exc.offset}" if exc.offset else ""
        shown = f" in {stripped!r}" if len(stripped) <= 60 else ""
        raise ParseError(f"invalid syntax ({exc.msg}){shown}{col}") from None
    except (RecursionError, MemoryError, ValueError):
        raise ParseError("expression too deeply nested or malformed") from None
    try:
        return _Builder(symbols, unknown).build(tree.body)
    except RecursionError:
        raise ParseError("expression too deeply nested") from None


class _Builder:
    def __init__(self, symbols: Mapping[str, sp.Basic], unknown: str) -> None:
        self.symbols = dict(symbols)
        self.unknown = unknown

    def build(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            return self._constant(node)
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return -self.build(node.operand)
            if isinstance(node.op, ast.UAdd):
                return self.build(node.operand)
            raise ParseError(f"operator {type(node.op).__name__} is not allowed{_where(node)}")
        if isinstance(node, ast.Call):
            return self._call(node)
        for kind, what in _FORBIDDEN.items():
            if isinstance(node, kind):
                detail = f" (.{node.attr})" if isinstance(node, ast.Attribute) else ""
                raise ParseError(f"{what}{detail} is not allowed{_where(node)}")
        raise ParseError(f"{type(node).__name__} expressions are not allowed{_where(node)}")

    def _constant(self, node: ast.Constant) -> sp.Expr:
        value = node.value
        if isinstance(value, bool) or value is None or value is Ellipsis:
            raise ParseError(f"constant {value!r} is not allowed{_where(node)}")
        if isinstance(value, int):
            return sp.Integer(value)
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise ParseError(f"non-finite number{_where(node)}")
            return sp.Rational(repr(value))
        if isinstance(value, (str, bytes)):
            raise ParseError(f"string literal is not allowed{_where(node)}")
        raise ParseError(f"{type(value).__name__} constant is not allowed{_where(node)}")

    def _name(self, node: ast.Name) -> sp.Basic:
        name = node.id
        if name.startswith("__"):
            raise ParseError(f"dunder name {name!r} is not allowed{_where(node)}")
        if name in self.symbols:
            return self.symbols[name]
        if name == "t":
            raise ParseError(
                f"'t' is the time{_where(node)}: a Lagrangian may not depend on time explicitly "
                "(give a parameter another name)"
            )
        if name == "E":
            raise ParseError(
                f"'E' is ambiguous{_where(node)}: write exp(1) for Euler's number, or declare E "
                "as a parameter (--parameters)"
            )
        rate_of = self._rate_spelling(name)
        if rate_of is not None:
            raise ParseError(
                f"{name!r} looks like the rate of {rate_of}{_where(node)}: write dot({rate_of})"
            )
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in FUNCTIONS or name in _RATES:
            raise ParseError(f"function {name!r} must be called{_where(node)}")
        if self.unknown == "symbol" and not name.startswith("_"):
            sym = sp.Symbol(name, positive=True)
            self.symbols[name] = sym
            return sym
        known = ", ".join(sorted(self.symbols)) or "none"
        raise ParseError(f"unknown name {name!r}{_where(node)}; known names: {known}")

    def _rate_spelling(self, name: str) -> str | None:
        """The coordinate whose rate ``name`` spells as qd, q_d, qdot, q_dot or qdd, if any."""
        coords = [k for k, v in self.symbols.items() if isinstance(v, sp.Basic) and v.has(t)]
        for c in coords:
            for suffix in ("d", "_d", "dot", "_dot", "dd", "_dd", "ddot", "_ddot", "_t"):
                if name == c + suffix:
                    return c
        return None

    def _binop(self, node: ast.BinOp) -> Any:
        if isinstance(node.op, ast.BitXor):
            raise ParseError(f"'^' is not a power here: write '**'{_where(node)}")
        left, right = self.build(node.left), self.build(node.right)
        if isinstance(node.op, ast.Pow):
            if right.is_number and (not right.is_finite or abs(right) > MAX_EXPONENT):
                raise ParseError(f"exponent larger than {MAX_EXPONENT}{_where(node)}")
            if isinstance(left, sp.Rational) and isinstance(right, sp.Rational):
                bits = max(int(left.p).bit_length(), int(left.q).bit_length())
                if bits * abs(right) > MAX_RESULT_BITS:
                    raise ParseError(f"number too large{_where(node)}")
            return left**right
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise ParseError(f"operator {type(node.op).__name__} is not allowed{_where(node)}")
        if isinstance(node.op, ast.Div) and right == 0:
            raise ParseError(f"division by zero{_where(node)}")
        return op(left, right)

    def _call(self, node: ast.Call) -> Any:
        if not isinstance(node.func, ast.Name):
            allowed = "sin, cos, ... and dot, ddot"
            raise ParseError(f"call of an expression (only {allowed} may be called){_where(node)}")
        name = node.func.id
        if name.startswith("__"):
            raise ParseError(f"dunder name {name!r} is not allowed{_where(node)}")
        if name in ("Derivative", "diff", "D"):
            raise ParseError(f"write rates as dot(q) (and ddot(q)), not {name}(...){_where(node)}")
        if name not in FUNCTIONS and name not in _RATES:
            allowed = ", ".join([*FUNCTIONS, *_RATES])
            raise ParseError(f"call of {name!r} is not allowed{_where(node)}; allowed: {allowed}")
        if node.keywords:
            raise ParseError(f"keyword arguments are not allowed{_where(node)}")
        arity = _ARITY.get(name, 1)
        if len(node.args) != arity:
            raise ParseError(
                f"{name}() takes {arity} argument{'s' if arity > 1 else ''}, "
                f"got {len(node.args)}{_where(node)}"
            )
        args = [self.build(a) for a in node.args]
        if name in _RATES:
            if not args[0].has(t):
                raise ParseError(
                    f"{name}({ast.unparse(node.args[0])}) of something that does not depend "
                    f"on time (declare it as a coordinate){_where(node)}"
                )
            return sp.diff(args[0], t, _RATES[name])
        return FUNCTIONS[name](*args)
