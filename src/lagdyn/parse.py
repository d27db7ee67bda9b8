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
functions above, and ``^`` (write ``**`` for powers). The name ``t`` is the time: refused
(Lagrangians may not depend on time explicitly) unless ``time=True`` (generalized forces
may); rate spellings such as ``qd``, ``q_dot`` or ``Derivative(q(t), t)`` get a hint to
write ``dot(q)``. Names are read as Python reads identifiers, in Unicode normal form NFKC
(the full-width ``ｘ`` is ``x``); a new name (``unknown="symbol"``) that looks like another
one (Latin ``a`` and Cyrillic ``а``) is refused.

Work is bounded before it starts. Numeric exponents are capped at :data:`MAX_EXPONENT`,
text at :data:`MAX_LENGTH` characters, a number literal must fit a double ("overflows a
double"), and every subexpression's full expansion — what the derivation will compute —
is estimated by :func:`expansion_size` as it is built: more than :data:`MAX_TERMS` terms
(``(sin(x) + cos(x) + sin(y) + cos(y))**300``: a multinomial of about 4.6 million terms)
or a total degree above :data:`MAX_DEGREE` (nested powers multiply:
``((1+x)**1000)**1000`` is ``(1+x)**1000000``) is a :class:`~lagdyn.errors.ParseError`
naming the column. :class:`~lagdyn.LagrangianSystem` applies the same bound to the
expressions it is given.

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
import math
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Literal

import sympy as sp

from .errors import ParseError
from .symbols import confusable_note, t

__all__ = [
    "FUNCTIONS",
    "MAX_DEGREE",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "MAX_TERMS",
    "expansion_size",
    "parse_expr",
]

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
#: Most terms the full expansion of an expression may have (:func:`expansion_size`). The
#: largest power of four trig terms it accepts, ``(sin x + cos x + sin y + cos y)**37``
#: (9880 terms), derives with every proof in about 3 s and ``lagdyn derive`` prints it in
#: about 30 s; the work grows faster than the count (``**80``: 7 minutes).
MAX_TERMS = 10_000
#: Highest total degree of an expression's expansion (:func:`expansion_size`), the cap of
#: a single exponent applied through nested powers and products.
MAX_DEGREE = MAX_EXPONENT
#: Estimates above this are reported as this (the numbers stay small).
_CAP = 10**15


def _multiset(terms: int, power: int) -> int:
    """C(terms + power − 1, power): the monomials of ``(a_1 + … + a_terms)**power``, capped."""
    if terms <= 1 or power <= 0:
        return 1
    log = math.lgamma(terms + power) - math.lgamma(power + 1) - math.lgamma(terms)
    if log > math.log(_CAP):
        return _CAP
    return min(math.comb(terms + power - 1, power), _CAP)


def _whole(e: sp.Basic) -> int | None:
    """|e| rounded down when ``e`` is a rational number of magnitude ≥ 1, else ``None``."""
    if isinstance(e, sp.Rational):
        p, q = abs(int(e.p)), int(e.q)  # (Python integers: sympy's comparisons are slow)
        if p >= q:
            return p // q
    return None


def expansion_size(expr: sp.Basic, memo: dict[sp.Basic, Any] | None = None) -> tuple[int, int]:
    """Upper estimates of the terms and total degree of the full expansion of ``expr``.

    Computed on the expression tree before anything is expanded: a sum has the terms of
    its summands, a product the product of its factors' terms, ``b**k`` the
    ``C(n + k − 1, k)`` monomials of a multinomial of ``n`` terms; degrees add through
    products and multiply through powers. Function calls (``sin(x)``), symbols and rates
    are single terms of degree 1 and a denominator ``b**-k`` a single term of degree 0 in
    what holds them; what they hold is counted where it is expanded: the result is the
    largest size over every subexpression. ``memo`` shares work between calls on
    expressions with common subtrees. Estimates are capped at 10**15.

    Returns
    -------
    (terms, degree) : tuple of int

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.parse import expansion_size
    >>> x, y = sp.symbols("x y")
    >>> expansion_size((1 + x) ** 3 * (x + y))
    (8, 4)
    >>> expansion_size((sp.sin(x) + sp.cos(x) + sp.sin(y) + sp.cos(y)) ** 300)
    (4590551, 300)
    >>> expansion_size(((1 + x) ** 1000) ** 1000)
    (1000001, 1000000)
    >>> expansion_size(1 / (1 + x) ** 20 + x)
    (21, 20)
    """
    # memo[node] = (terms, degree) as a factor or summand of its parent, then the largest
    # (terms, degree) of any expansion inside it
    memo = {} if memo is None else memo
    root = expr
    stack: list[tuple[sp.Basic, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if node in memo:
            continue
        args = node.args
        if not ready and args:
            stack.append((node, True))
            stack.extend((a, False) for a in args if a not in memo)
            continue
        sizes = [memo[a] for a in args]
        peak_t = max((s[2] for s in sizes), default=0)
        peak_d = max((s[3] for s in sizes), default=0)
        if node.is_Add:
            terms = min(sum(s[0] for s in sizes), _CAP)
            degree = max(s[1] for s in sizes)
        elif node.is_Mul:
            terms = 1
            for s in sizes:
                terms = min(terms * s[0], _CAP)
            degree = min(sum(s[1] for s in sizes), _CAP)
        elif node.is_Pow and (power := _whole(args[1])) is not None:
            inner_t, inner_d = _multiset(sizes[0][0], power), min(sizes[0][1] * power, _CAP)
            peak_t, peak_d = max(peak_t, inner_t), max(peak_d, inner_d)
            terms, degree = (inner_t, inner_d) if args[1].p > 0 else (1, 0)
        elif node.is_Number or node.is_NumberSymbol:
            terms, degree = 1, 0
        else:  # symbols, rates, calls, sqrt(...), b**x: one term
            terms, degree = 1, 1
        memo[node] = (terms, degree, max(peak_t, terms), max(peak_d, degree))
    return memo[root][2], memo[root][3]


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
    time: bool = False,
) -> sp.Expr:
    """Parse ``text`` into a sympy expression, allowing only arithmetic and math functions.

    Parameters
    ----------
    text : str
        The expression, e.g. ``"m*l**2*dot(th)**2/2 + m*g*l*cos(th)"``.
    symbols : mapping of str to sympy.Basic
        The names the text may use (coordinates, parameters). They take precedence
        over the constant ``pi``. Names are compared in NFKC form, as Python reads them.
    unknown : {"error", "symbol"}
        What a name outside ``symbols`` becomes: an error (default) or a new positive
        :class:`sympy.Symbol` (a parameter). Names starting with ``_`` are refused either
        way, and so is a new name that looks like another one (:func:`lagdyn.symbols.skeleton`).
    time : bool
        Whether ``t`` is the time (``True``: generalized forces may depend on it) or
        refused (``False``, the default: a Lagrangian may not).

    Returns
    -------
    sympy.Expr

    Raises
    ------
    ParseError
        Syntax errors and every construct outside the accepted grammar, named with its
        column; a number that overflows a double; a subexpression whose expansion would
        exceed :data:`MAX_TERMS` terms or degree :data:`MAX_DEGREE`.

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
    if not isinstance(symbols, Mapping):
        raise ParseError(
            f"symbols must be a mapping of name to symbol, got {type(symbols).__name__}"
        )
    try:
        return _Builder(symbols, unknown, time, stripped).build(tree.body)
    except RecursionError:
        raise ParseError("expression too deeply nested") from None


class _Builder:
    def __init__(
        self, symbols: Mapping[str, sp.Basic], unknown: str, time: bool, text: str
    ) -> None:
        # Python's parser reads identifiers in NFKC form, so the names given must too
        self.symbols: dict[str, sp.Basic] = {}
        for name, value in symbols.items():
            key = unicodedata.normalize("NFKC", str(name))
            if key in self.symbols and self.symbols[key] != value:
                raise ParseError(
                    f"symbols: two names read as {key!r} once Unicode-normalized (NFKC, as "
                    "Python reads names); give each symbol one spelling"
                )
            self.symbols[key] = value
        self.unknown = unknown
        self.time = time
        self.text = text
        self.sizes: dict[sp.Basic, Any] = {}

    def build(self, node: ast.AST) -> Any:
        out = self._build(node)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and isinstance(out, sp.Basic):
            self._check_size(out, node)
        return out

    def _check_size(self, expr: sp.Basic, node: ast.AST) -> None:
        """Refuse a subexpression whose expansion the derivation could not afford."""
        terms, degree = expansion_size(expr, self.sizes)
        if terms <= MAX_TERMS and degree <= MAX_DEGREE:
            return
        part = ast.get_source_segment(self.text, node) or ast.unparse(node)
        part = part if len(part) <= 60 else part[:57] + "..."
        if degree > MAX_DEGREE:
            what = f"has total degree {degree} when expanded, above the limit {MAX_DEGREE}"
            hint = "degrees add through products and multiply through nested powers"
        else:
            what = f"expands to about {terms:.3g} terms, above the limit {MAX_TERMS}"
            hint = "a power of a sum of n terms has C(n + k - 1, k) terms"
        raise ParseError(
            f"{part!r}{_where(node)} {what} ({hint}); the derivation would run for minutes "
            "and exhaust memory: rewrite the expression smaller"
        )

    def _build(self, node: ast.AST) -> Any:
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
            literal = ast.get_source_segment(self.text, node) or repr(value)
            shown = literal if len(literal) <= 30 else literal[:27] + "..."
            if value != value or value in (float("inf"), float("-inf")):
                raise ParseError(
                    f"the number {shown} overflows a double (largest 1.8e308){_where(node)}"
                )
            if value == 0.0 and any(c in "123456789" for c in literal.lower().split("e")[0]):
                raise ParseError(
                    f"the number {shown} underflows a double (smallest 4.9e-324): it would be "
                    f"read as 0{_where(node)}"
                )
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
        if name == "t" and self.time:
            return t
        if name == "t":
            raise ParseError(
                f"'t' is the time{_where(node)}: a Lagrangian may not depend on time explicitly "
                "(give a parameter another name; generalized forces may depend on t)"
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
            note = confusable_note(name, self.symbols)
            if note is not None:
                raise ParseError(
                    f"unknown name {note}{_where(node)}: a look-alike would become a new "
                    "parameter; type the name again"
                )
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
