"""Moving expressions between sympy and symengine, and between the dynamicsymbols
q(t), q̇(t) and the plain symbols the derivation works with.

The exact engine computes in symengine (C++: ``expand`` and ``diff`` are one to two
orders of magnitude faster than sympy's) and hands sympy expressions back. Three things
make the round trip lossless and cheap:

* *names*: symengine drops sympy's assumptions (``positive=True``), so every conversion
  back restores the caller's own objects by name (:class:`SymbolTable`); the plain state
  symbols ``_ldq{i}``, ``_ldv{i}`` (:func:`state_symbols`) can map straight to q(t) and
  q̇(t), so results come back in dynamic form in one pass;
* *no re-evaluation*: :func:`canonical_add` and :func:`canonical_mul` build sympy's
  canonical ``Add``/``Mul`` directly (terms in ``Basic.compare`` order, :func:`sort_key`)
  when sympy's evaluation could change nothing;
* *one walk*: :func:`plain_symengine` and :func:`distinct_nodes` visit each distinct
  subtree once (the entries of M and C share most of theirs).

Examples
--------
>>> import sympy as sp
>>> from lagdyn.symbols import t
>>> q = sp.Function("q")(t)
>>> m = sp.Symbol("m", positive=True)
>>> forward, backward = substitution([q], [q.diff(t)], *state_symbols(1))
>>> e = plain_symengine(m * q.diff(t) ** 2 * sp.cos(q), forward)
>>> e
m*_ldv0**2*cos(_ldq0)
>>> import symengine as se
>>> table = SymbolTable.from_symbols([m], extra={s.name: d for s, d in backward.items()})
>>> dT = table.to_sympy(e.diff(se.Symbol("_ldv0")))     # ∂/∂q̇, back in q(t), m positive
>>> dT
2*m*cos(q(t))*Derivative(q(t), t)
>>> m in dT.free_symbols          # the caller's positive m, not a new Symbol("m")
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cmp_to_key
from typing import Any

import symengine as se
import sympy as sp
from sympy.core import basic as _basic

__all__ = [
    "NoKeyError",
    "SymbolTable",
    "canonical_add",
    "canonical_mul",
    "distinct_nodes",
    "matrix_to_dynamic",
    "plain_symengine",
    "sort_args",
    "sort_key",
    "state_symbols",
    "substitution",
    "to_plain",
    "to_symengine",
]


_TRIG: dict[type, Any] = {se.cos: sp.cos, se.sin: sp.sin}


class SymbolTable:
    """Names → sympy objects, to convert symengine results back without losing anything.

    symengine drops sympy's assumptions (``positive=True``), so symbols are restored by
    name; the plain state symbols ``_ldq{i}``/``_ldv{i}`` can map straight to q(t) and
    q̇(t), so results come back in dynamic form in one pass (no ``xreplace``).

    Examples
    --------
    >>> import symengine as se
    >>> m = sp.Symbol("m", positive=True)
    >>> out = SymbolTable({"m": m}).to_sympy(se.Symbol("m") ** 2)
    >>> out, out.is_positive
    (m**2, True)
    """

    def __init__(self, by_name: dict[str, sp.Expr]) -> None:
        # the dict is shared, not copied: owners may keep adding names to it
        self._by_name = by_name
        self._memo: dict[se.Basic, sp.Expr] = {}

    @classmethod
    def from_symbols(
        cls, symbols: Iterable[sp.Symbol], extra: Mapping[str, sp.Expr] | None = None
    ) -> SymbolTable:
        """A table of ``symbols`` by name, plus ``extra`` name → object entries.

        Examples
        --------
        >>> import symengine as se
        >>> x = sp.Symbol("x", real=True)
        >>> f = sp.Function("f")(sp.Symbol("t"))
        >>> table = SymbolTable.from_symbols([x], extra={"y": f})
        >>> table.to_sympy(se.Symbol("x") + se.Symbol("y"))
        x + f(t)
        """
        by_name: dict[str, sp.Expr] = {}
        for s in symbols:
            by_name.setdefault(s.name, s)
        by_name.update(extra or {})
        return cls(by_name)

    def to_sympy(self, expr: se.Basic) -> sp.Expr:
        """Convert a symengine expression back to sympy with the original objects.

        Examples
        --------
        >>> import symengine as se
        >>> a = sp.Symbol("a", positive=True)
        >>> table = SymbolTable.from_symbols([a])
        >>> out = table.to_sympy(se.expand((se.Symbol("a") + 1) ** 2))
        >>> out, out.has(a)
        (a**2 + 2*a + 1, True)
        """
        found = self._memo.get(expr)
        if found is not None:
            return found
        if expr.is_Symbol:
            out = self._by_name.get(expr.name)
            if out is None:
                out = sp.Symbol(expr.name)
        elif expr.is_Integer:
            out = sp.Integer(int(expr))
        elif expr.is_Rational:
            out = sp.Rational(int(expr.p), int(expr.q))
        elif expr.is_Add:
            out = canonical_add([self.to_sympy(a) for a in expr.args])
        elif expr.is_Mul:
            out = canonical_mul([self.to_sympy(a) for a in expr.args])
        elif expr.is_Pow:
            out = sp.Pow(self.to_sympy(expr.args[0]), self.to_sympy(expr.args[1]))
        elif type(expr) in _TRIG:
            # cos/sin of a converted argument: the object sympy's converter and the name
            # restoring xreplace below end with (that evaluates the function again on the
            # restored argument), built once instead of twice
            out = _TRIG[type(expr)](self.to_sympy(expr.args[0]))
        else:  # functions and other objects: sympy's converter, then restore names
            out = sp.sympify(expr)
            if out.has(sp.Derivative):
                out = self._derivatives_as_real(out)
            repl = {
                s: self._by_name[s.name]
                for s in out.free_symbols
                if s.name in self._by_name and self._by_name[s.name] is not s
            }
            out = out.xreplace(repl) if repl else out
        self._memo[expr] = out
        return out

    def _derivatives_as_real(self, out: sp.Expr) -> sp.Expr:
        """Evaluate the derivatives symengine left unevaluated (``Derivative(abs(x), x)``)
        with the table's own symbols, and with *real* symbols for names that stand for
        coordinates, rates or time (``_ldq0`` → q(t)) or that the table does not know:
        coordinates are real, so ∂|x|/∂x = sign(x), never the complex
        ``(re(x) ∂re(x)/∂x + im(x) ∂im(x)/∂x) sign(x)/x``.
        """
        repl: dict[sp.Basic, sp.Basic] = {}
        for sym in out.free_symbols:
            target = self._by_name.get(sym.name)
            repl[sym] = target if isinstance(target, sp.Symbol) else sp.Symbol(sym.name, real=True)
        back = {
            new: old
            for old, new in repl.items()
            if not isinstance(self._by_name.get(old.name), sp.Symbol)
        }
        return out.xreplace(repl).doit().xreplace(back)


class NoKeyError(Exception):
    """An object whose order :func:`sort_key` cannot reproduce (sympy compares it).

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> try:
    ...     sort_key(sp.Poly(x**2 + 1, x))      # holds a polynomial ring element
    ... except NoKeyError:
    ...     print("compare instead")
    compare instead
    """


_CLASS_RANK = {name: i for i, name in enumerate(_basic.ordering_of_classes)}
_UNKNOWN_CLASS = len(_basic.ordering_of_classes) + 1
_KEYS: dict[sp.Basic, tuple[Any, ...]] = {}
_compare_key = cmp_to_key(sp.Basic.compare)


def _raw(value: Any) -> Any:
    if isinstance(value, (str, int)):  # bool is an int
        return value
    if isinstance(value, tuple):
        return tuple(_raw(v) for v in value)
    raise NoKeyError(value)


def sort_key(expr: sp.Basic) -> tuple[Any, ...]:
    """A key whose order is ``Basic.compare``'s, memoized per object.

    ``compare`` orders by class (its rank in ``ordering_of_classes``, else by name),
    then by the length of the hashable content, then item by item, recursively:
    exactly the lexicographic order of ``(rank, name, length, items)``. Sorting on the
    key replaces ``n log n`` recursive Python comparisons by one key per distinct
    object. Raises :class:`NoKeyError` for content it cannot mirror (frozensets, Python
    containers holding sympy objects); :func:`sort_args` then uses ``compare`` itself.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> sort_key(x) < sort_key(y), x.compare(y)
    (True, -1)
    """
    found = _KEYS.get(expr)
    if found is not None:
        return found
    name = type(expr).__name__
    content = expr._hashable_content()
    key = (
        _CLASS_RANK.get(name, _UNKNOWN_CLASS),
        name,
        len(content),
        tuple(sort_key(c) if isinstance(c, sp.Basic) else _raw(c) for c in content),
    )
    if len(_KEYS) > 500_000:
        _KEYS.clear()
    _KEYS[expr] = key
    return key


def sort_args(args: list[sp.Basic]) -> None:
    """Sort in place in sympy's canonical order (``Add``/``Mul`` argument order).

    Uses :func:`sort_key`; objects it cannot key, or keys Python cannot compare
    (different kinds of content at one position), fall back to ``Basic.compare``.
    A hypothesis test checks the order against sympy's own sort.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> args = [sp.cos(x), y**2, x, sp.Integer(3)]
    >>> sort_args(args)
    >>> args == list(sp.Mul(*args).args)
    True
    """
    try:
        args.sort(key=sort_key)
    except (NoKeyError, TypeError):
        args.sort(key=_compare_key)


def _plain_factor(a: sp.Basic) -> bool:
    """A factor sympy's Mul keeps as it is: a symbol, a function, a derivative, a sum, or
    an integer power of one of those (no numbers, no nested products)."""
    if a.is_Pow:
        return bool(a.exp.is_Integer) and _plain_factor(a.base)
    return bool(
        a.is_Symbol or a.is_Add or isinstance(a, (sp.Derivative, sp.core.function.AppliedUndef))
    ) or (a.is_Function and not a.is_number)


def canonical_add(args: Sequence[sp.Expr]) -> sp.Expr:
    """``sympy.Add(*args)`` built without re-evaluation when that is sound.

    Nested sums are spliced and rational numbers summed; then, when every term's
    coefficient is rational and no two terms share their non-numeric part, sympy's
    canonical form is the number first and the terms in sympy's sort order
    (``Add.flatten``'s own last step). Anything else is evaluated by sympy. A hypothesis
    test checks equality with the evaluated sum, argument order included.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> e = canonical_add([2 * y, sp.cos(x), sp.Integer(3)])
    >>> e, e == sp.Add(2 * y, sp.cos(x), 3), e.args == sp.Add(2 * y, sp.cos(x), 3).args
    (2*y + cos(x) + 3, True, True)
    >>> canonical_add([x, x])     # like terms: sympy evaluates
    2*x
    """
    terms: list[sp.Expr] = []
    number = sp.S.Zero
    for a in args:
        for term in a.args if a.is_Add else (a,):
            if term.is_Number:
                if not term.is_Rational:
                    return sp.Add(*args)
                number += term
            else:
                terms.append(term)
    if not terms:
        return number
    if len(terms) == 1 and number == 0:
        return terms[0]
    # like terms share their non-numeric part, which ``as_coeff_Mul`` would build as a
    # new Mul per term: compared here by its arguments instead (a Mul never has one)
    seen = set()
    for term in terms:
        if term.is_Mul:
            rest = term.args
            if rest[0].is_Number:
                if not rest[0].is_Rational:
                    return sp.Add(*args)
                rest = rest[1:]
        else:
            rest = (term,)
        if rest in seen:
            return sp.Add(*args)
        seen.add(rest)
    sort_args(terms)
    return sp.Add._from_args(([number] if number != 0 else []) + terms)


def canonical_mul(args: Sequence[sp.Expr]) -> sp.Expr:
    """``sympy.Mul(*args)`` built without re-evaluation when that is sound.

    Nested products are spliced and rational numbers multiplied; then, when every other
    factor is plain (:func:`_plain_factor`) with distinct bases and the product is not
    sympy's distribution case ``Rational * Add``, sympy's canonical form is the
    coefficient first and the factors in sympy's sort order (``Mul.flatten``'s own last
    step). Anything else is evaluated by sympy. A hypothesis test checks equality with
    the evaluated product, argument order included.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> e = canonical_mul([sp.cos(x), sp.Rational(1, 2), y**2])
    >>> e, e.args == sp.Mul(sp.cos(x), sp.Rational(1, 2), y**2).args
    (y**2*cos(x)/2, True)
    >>> canonical_mul([sp.Integer(2), x + y])   # a rational times a sum: sympy distributes
    2*x + 2*y
    """
    factors: list[sp.Expr] = []
    number = sp.S.One
    for a in args:
        for f in a.args if a.is_Mul else (a,):
            if f.is_Number:
                if not f.is_Rational:
                    return sp.Mul(*args)
                number *= f
            else:
                factors.append(f)
    if number == 0:
        return sp.S.Zero
    if not factors:
        return number
    if number == 1 and len(factors) == 1:
        return factors[0]
    if number != 1 and len(factors) == 1 and factors[0].is_Add:
        return sp.Mul(*args)  # 2*(a + b) -> 2*a + 2*b
    bases = set()
    for f in factors:
        if not _plain_factor(f):
            return sp.Mul(*args)
        base = f.base if f.is_Pow else f
        if base in bases:
            return sp.Mul(*args)
        bases.add(base)
    sort_args(factors)
    return sp.Mul._from_args(([number] if number != 1 else []) + factors)


def to_symengine(expr: sp.Expr) -> se.Basic | None:
    """Convert to symengine, or ``None`` when symengine cannot represent ``expr``.

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> to_symengine(sp.cos(x) ** 2 + 1)
    1 + cos(x)**2
    >>> to_symengine(sp.Integral(x, x)) is None
    True
    """
    try:
        return se.sympify(expr)
    except Exception:  # symengine raises assorted errors on unsupported objects
        return None


def plain_symengine(expr: sp.Expr, forward: Mapping[sp.Expr, sp.Symbol]) -> se.Basic | None:
    """``to_symengine(to_plain(expr, forward))`` in one walk, without rebuilding ``expr``.

    sympy's ``xreplace`` rebuilds every node of ``expr`` through the evaluating
    constructors, and the conversion walks it again; here each distinct node is
    converted once, straight to symengine (sums, products, powers, symbols, rationals,
    cos and sin; any other subtree the old way). ``None`` when symengine cannot hold it.
    A hypothesis test checks equality with the two-step conversion.

    Examples
    --------
    >>> from lagdyn.symbols import t
    >>> q = sp.Function("q")(t)
    >>> forward = {q.diff(t): sp.Symbol("v"), q: sp.Symbol("x")}
    >>> plain_symengine(q.diff(t) ** 2 * sp.cos(q) / 2, forward)
    (1/2)*v**2*cos(x)
    """
    table = {k: se.Symbol(v.name) for k, v in forward.items()}
    memo: dict[sp.Basic, se.Basic] = {}

    def convert(node: sp.Basic) -> se.Basic:
        found = memo.get(node)
        if found is not None:
            return found
        out = table.get(node)
        if out is None:
            if node.is_Add:
                out = se.Add(*[convert(a) for a in node.args])
            elif node.is_Mul:
                out = se.Mul(*[convert(a) for a in node.args])
            elif node.is_Pow:
                out = se.Pow(convert(node.args[0]), convert(node.args[1]))
            elif node.is_Symbol:
                out = se.Symbol(node.name)
            elif node.is_Integer:
                out = se.Integer(int(node))
            elif node.is_Rational:
                out = se.Rational(int(node.p), int(node.q))
            elif isinstance(node, sp.cos):
                out = se.cos(convert(node.args[0]))
            elif isinstance(node, sp.sin):
                out = se.sin(convert(node.args[0]))
            else:  # anything else: the subtree the old way
                out = se.sympify(to_plain(node, forward))
        memo[node] = out
        return out

    try:
        return convert(sp.sympify(expr))
    except RecursionError:
        return to_symengine(to_plain(expr, forward))
    except Exception:  # symengine raises assorted errors on unsupported objects
        return None


def state_symbols(n: int) -> tuple[tuple[sp.Symbol, ...], tuple[sp.Symbol, ...]]:
    """Plain real symbols standing for q and q̇ during the derivation.

    Examples
    --------
    >>> state_symbols(2)
    ((_ldq0, _ldq1), (_ldv0, _ldv1))
    """
    qs = tuple(sp.Symbol(f"_ldq{i}", real=True) for i in range(n))
    vs = tuple(sp.Symbol(f"_ldv{i}", real=True) for i in range(n))
    return qs, vs


def substitution(
    q: Sequence[sp.Expr], qd: Sequence[sp.Expr], qs: Sequence[sp.Symbol], vs: Sequence[sp.Symbol]
) -> tuple[dict[sp.Expr, sp.Symbol], dict[sp.Symbol, sp.Expr]]:
    """The maps dynamic → plain (rates first) and plain → dynamic.

    Examples
    --------
    >>> from lagdyn.symbols import t
    >>> q = sp.Function("q")(t)
    >>> forward, backward = substitution([q], [q.diff(t)], *state_symbols(1))
    >>> list(forward.items())
    [(Derivative(q(t), t), _ldv0), (q(t), _ldq0)]
    >>> backward[sp.Symbol("_ldq0", real=True)]
    q(t)
    """
    forward: dict[sp.Expr, sp.Symbol] = {}
    for a, b in zip(qd, vs):
        forward[a] = b
    for a, b in zip(q, qs):
        forward[a] = b
    backward: dict[sp.Symbol, sp.Expr] = {b: a for a, b in forward.items()}
    return forward, backward


def to_plain(expr: sp.Expr, forward: Mapping[sp.Expr, sp.Symbol]) -> sp.Expr:
    """Replace q̇(t) then q(t) by plain symbols (rates first, since they contain q).

    Examples
    --------
    >>> from lagdyn.symbols import t
    >>> q = sp.Function("q")(t)
    >>> forward, _ = substitution([q], [q.diff(t)], *state_symbols(1))
    >>> to_plain(q.diff(t) ** 2 * sp.sin(q), forward)
    _ldv0**2*sin(_ldq0)
    """
    return sp.sympify(expr).xreplace(dict(forward))


def matrix_to_dynamic(
    m: sp.MatrixBase, backward: Mapping[sp.Symbol, sp.Expr]
) -> sp.ImmutableMatrix:
    """Replace plain symbols by q(t), q̇(t) in every entry.

    Examples
    --------
    >>> from lagdyn.symbols import t
    >>> q = sp.Function("q")(t)
    >>> qs, vs = state_symbols(1)
    >>> _, backward = substitution([q], [q.diff(t)], qs, vs)
    >>> matrix_to_dynamic(sp.Matrix([[qs[0] * vs[0]]]), backward)
    Matrix([[q(t)*Derivative(q(t), t)]])
    """
    return sp.ImmutableMatrix(m.rows, m.cols, [e.xreplace(dict(backward)) for e in m])


def distinct_nodes(
    exprs: Iterable[sp.Basic], stop: Callable[[sp.Basic], bool] | None = None
) -> Iterator[sp.Basic]:
    """Every distinct subtree of ``exprs``, each once (``Basic.atoms`` and ``preorder_traversal``
    walk a shared subtree again at every occurrence; entries of M and C share most of
    theirs); nodes for which ``stop(node)`` holds are yielded but not entered.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.trig.convert import distinct_nodes
    >>> x = sp.Symbol("x")
    >>> e = sp.sin(x) + sp.sin(x) ** 2
    >>> sum(1 for _ in distinct_nodes([e]))   # e, sin(x), x, sin(x)**2, 2: sin(x) visited once
    5
    >>> sorted(map(str, distinct_nodes([e], stop=lambda n: isinstance(n, sp.sin))))
    ['2', 'sin(x)', 'sin(x)**2', 'sin(x)**2 + sin(x)']
    """
    seen: set[sp.Basic] = set()
    stack = list(exprs)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        yield node
        if stop is None or not stop(node):
            stack.extend(node.args)
