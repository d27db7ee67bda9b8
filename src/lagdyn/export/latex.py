r"""Publication LaTeX of a system's equations of motion.

:func:`latex` prints M, C, g (and on request G, Q, the Christoffel symbols and the
energy) as ``bmatrix`` and the equations of motion as an ``aligned`` block, through
:class:`LagdynLatexPrinter`, a :class:`sympy.printing.latex.LatexPrinter` that
fixes what sympy's mechanics printing gets wrong:

* every coordinate prints without ``(t)`` (sympy #16925), rates with dots on
  Greek and subscripted names alike: ``theta1`` → ``\theta_{1}``, its rate
  ``\dot{\theta}_{1}`` (sympy #14492), q̈ as ``\ddot{q}_{2}``, higher rates
  ``\dddot{q}_{1}`` then ``q_{1}^{(4)}`` (sympy #6333: no ``\frac{d}{dt}``);
* dotted sums keep their brackets: ``2 \left(\dot{q}_{1} + \dot{q}_{2}\right)``
  (sympy #12078);
* ``trig="short"`` writes ``s_{12}`` for sin(q1 + q2) and ``c_{2}`` for cos q2,
  numbering coordinates by position (1-based) in ``system.q``: ``s_{1-2}`` is
  sin(q1 − q2); arguments that are not sums/differences of coordinates keep the
  full form. The legend (``% notation: …``) defines exactly the abbreviations the
  output uses, with the coordinates' own names: ``$c_{1-2} = \cos(a - b)$``;
* multi-letter names never read as products (:func:`symbol_latex`): ``lc2`` is
  ``l_{c2}`` (ℓ_c2 in Spong's notation), not ``lc_{2}``, which reads as l·c₂, and c₂ is
  also cos q₂; ``mp`` is ``m_{p}``, ``Ixx1`` is ``I_{xx1}``, ``mass`` is
  ``\mathit{mass}``. ``symbols={"lc2": r"\ell_{c_2}"}`` names any symbol the user's
  way, everywhere it appears; with ``trig="short"``, a symbol that would print like an
  abbreviation (a parameter ``c2``) is refused until it is named;
* the equations of motion are one ``aligned`` block, one row per coordinate with its
  short side first, ``\tau_{i} (+ Q_i) &= Σ_j M_ij q̈_j + (C q̇ + G q̇)_i + g_i``, so
  that rows align on their left-hand sides and ``=``.

Parameter grouping (``group_parameters=True``) is a deterministic heuristic,
computed by :func:`parameter_groups` from M alone:

1. every upper-triangle entry m_ij (row-major order) is expanded and its terms are
   collected by their q-dependent factor (1 first, then in sympy's sort order);
2. each collected q-free coefficient is reduced to its primitive part (numeric
   content and sign removed: ``2 l1 lc2 m2`` → ``l1 lc2 m2``);
3. a primitive part involving at least two parameters becomes a named constant
   when it is a sum of several terms, or when it occurs in at least two of the
   (entry, factor) slots;
4. names are taken in order of first appearance from α, β, δ, ε, ζ, η, κ, λ, μ, ν,
   ξ, ρ, σ, χ, ψ, ω (γ is skipped, following Spong's α, β, δ for the two-link arm;
   letters already used by a parameter or coordinate are skipped), then k_1, k_2, ….

The constants are then substituted back into M (by the same collection), into C,
G, g and the equations (by exact sympy substitution, larger groups first), and
their definitions are printed first. The gravity moments, the coefficients of g that
contain the parameter ``g`` and another parameter, are named γ₁, γ₂, … by
:func:`gravity_groups` and substituted by collection into g, the gravity part of the
equations and V; their definitions follow, with g last:
``\gamma_{1} = \left(l_{1} m_{2} + l_{c1} m_{1}\right) g``.

Examples
--------
>>> import lagdyn as ld
>>> arm = ld.zoo.two_link_planar()
>>> print(arm.latex(what=("M", "g"), group_parameters=True, trig="short"))
% notation: $c_{1} = \cos q_{1}$, $c_{2} = \cos q_{2}$, $c_{12} = \cos(q_{1} + q_{2})$
\[
\begin{aligned}
\alpha &= I_{1} + I_{2} + l_{1}^{2} m_{2} + l_{c1}^{2} m_{1} + l_{c2}^{2} m_{2}\\
\beta &= l_{1} l_{c2} m_{2}\\
\delta &= I_{2} + l_{c2}^{2} m_{2}\\
\gamma_{1} &= \left(l_{1} m_{2} + l_{c1} m_{1}\right) g\\
\gamma_{2} &= l_{c2} m_{2} g
\end{aligned}
\]
<BLANKLINE>
\[
M(q) = \begin{bmatrix}\alpha + 2 \beta c_{2} & \beta c_{2} + \delta\\\beta c_{2} + \delta & \delta\end{bmatrix}
\]
<BLANKLINE>
\[
g(q) = \begin{bmatrix}\gamma_{1} c_{1} + \gamma_{2} c_{12}\\\gamma_{2} c_{12}\end{bmatrix}
\]
"""  # noqa: E501  (doctest output)

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import sympy as sp
from sympy.core.alphabets import greeks
from sympy.core.function import AppliedUndef, UndefinedFunction
from sympy.printing.conventions import split_super_sub
from sympy.printing.latex import LatexPrinter, translate

from ..errors import LagdynError, LagdynWarning
from ..symbols import t
from ..trig.forms import natural_form

__all__ = [
    "Item",
    "LagdynLatexPrinter",
    "ParameterGroup",
    "TrigStyle",
    "gravity_groups",
    "latex",
    "parameter_groups",
    "symbol_latex",
]

TrigStyle = Literal["full", "short"]
Item = Literal["M", "C", "G", "g", "Q", "christoffel", "equations", "energy"]
ITEMS: tuple[str, ...] = get_args(Item)
DEFAULT_WHAT: tuple[Item, ...] = ("M", "C", "g", "equations")

#: Names for parameter groups, in order (γ skipped, see the module docstring).
GROUP_NAMES: tuple[str, ...] = (
    "alpha",
    "beta",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "rho",
    "sigma",
    "chi",
    "psi",
    "omega",
)

_DOTS = {1: r"\dot", 2: r"\ddot", 3: r"\dddot"}

#: Greek letter names, longest first (a name such as ``mus`` is ``\mu_{s}``).
_GREEK = sorted((*greeks, "lamda"), key=len, reverse=True)

#: A LaTeX symbol's head (what dots go on) and the rest (its sub- and superscripts).
_HEAD = re.compile(r"^(\\[A-Za-z]+\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z])((?:[_^].*)?)$", re.S)

#: The short trig abbreviations: a symbol printed like one would be read as sin/cos.
_TRIG_LIKE = re.compile(r"^[cs]_\{")

SymbolNames = Mapping[Any, str]


def _is_coordinate(expr: Any) -> bool:
    return isinstance(expr, AppliedUndef) and expr.args == (t,)


def _symbol_parts(name: str, *, coordinate: bool = False) -> tuple[str, str, str]:
    """``(head, subscript, superscript)`` of a name's default LaTeX (see :func:`symbol_latex`)."""
    base, sups, subs = split_super_sub(name)
    subs = [translate(s) for s in subs]
    sup = " ".join(translate(s) for s in sups)
    head = translate(base)
    if head != base or len(base) <= 1:  # a Greek letter, a modifier (xdot, xhat), one letter
        return head, " ".join(subs), sup
    tail = ",".join(subs)
    if base.isalpha() and base.isascii():
        greek = next((g for g in _GREEK if base.startswith(g) and base != g), None)
        if greek is not None and len(base) - len(greek) <= 2:
            return translate(greek), base[len(greek) :] + tail, sup
        if not coordinate and (len(base) == 2 or (len(base) == 3 and set(base[1:]) <= set("xyz"))):
            return base[0], base[1:] + tail, sup
    return rf"\mathit{{{base}}}", " ".join(subs), sup


def _assemble(head: str, sub: str, sup: str) -> str:
    return head + (f"_{{{sub}}}" if sub else "") + (f"^{{{sup}}}" if sup else "")


def symbol_latex(name: str, *, coordinate: bool = False) -> str:
    r"""The default LaTeX of a parameter (or, with ``coordinate=True``, a coordinate) name.

    A name never prints as a juxtaposition that reads as a product:

    * one letter, a Greek letter or a sympy modifier as sympy prints them, trailing digits
      and ``_`` parts as a subscript: ``l1`` → ``l_{1}``, ``theta2`` → ``\theta_{2}``;
    * two letters, or a letter and an ``x``/``y``/``z`` pair, as the first letter with the
      rest in the subscript, the robotics convention: ``lc2`` → ``l_{c2}`` (Spong's
      ℓ_c2, never ``lc_{2}``, which reads as l·c₂ = l cos q₂), ``mp`` → ``m_{p}``,
      ``Ixx1`` → ``I_{xx1}``; a Greek name and one or two letters likewise:
      ``mus`` → ``\mu_{s}``;
    * any other name as one italic word: ``mass`` → ``\mathit{mass}``; coordinates too
      (``coordinate=True``: the dots of a rate go over the whole name).

    Examples
    --------
    >>> symbol_latex("lc2"), symbol_latex("mc"), symbol_latex("Ixx1")
    ('l_{c2}', 'm_{c}', 'I_{xx1}')
    >>> symbol_latex("theta1"), symbol_latex("mass_2"), symbol_latex("th", coordinate=True)
    ('\\theta_{1}', '\\mathit{mass}_{2}', '\\mathit{th}')
    """
    return _assemble(*_symbol_parts(name, coordinate=coordinate))


def _dotted(tex: str, dots: int) -> str:
    """``tex`` with ``dots`` time derivatives: dots on its head, ``^{(n)}`` beyond three."""
    if dots == 0:
        return tex
    match = _HEAD.match(tex)
    head, rest = (match.group(1), match.group(2)) if match else (f"{{{tex}}}", "")
    if dots <= 3:
        return f"{_DOTS[dots]}{{{head}}}{rest}"
    return f"{head}{rest}^{{({dots})}}" if "^" not in rest else f"{{{head}{rest}}}^{{({dots})}}"


def _symbol_names(symbols: SymbolNames | None) -> dict[str, str]:
    """The user's ``symbols=`` mapping keyed by name (parameters, coordinates, groups)."""
    out: dict[str, str] = {}
    for key, tex in (symbols or {}).items():
        if isinstance(key, str):
            name = key
        elif isinstance(key, sp.Symbol):
            name = key.name
        elif isinstance(key, AppliedUndef):
            name = key.func.__name__
        elif isinstance(key, UndefinedFunction):
            name = key.__name__
        else:
            raise LagdynError(
                f"symbols= keys are names, parameters or coordinates, got {key!r} "
                f"({type(key).__name__})"
            )
        if not isinstance(tex, str) or not tex.strip():
            raise LagdynError(
                f"symbols={{{name!r}: …}} must map to a LaTeX string such as r'\\ell_{{c_2}}', "
                f"got {tex!r}"
            )
        out[name] = tex.strip()
    return out


class LagdynLatexPrinter(LatexPrinter):
    r"""A LaTeX printer for mechanics: dots for rates, no ``(t)``, short trig on request.

    Parameters
    ----------
    q : sequence of sympy functions of t, optional
        The coordinates, numbered 1, 2, … for ``trig="short"`` labels.
    trig : {"full", "short"}
        ``"short"`` prints sin/cos of a sum or difference of coordinates as
        ``s_{12}``, ``c_{1-2}``; the abbreviations printed are recorded in
        :attr:`abbreviations` for the legend.
    symbols : mapping, optional
        LaTeX for symbols by name (or by the parameter or coordinate itself):
        ``{"lc2": r"\ell_{c_2}"}``. A coordinate's rates get their dots on the head of its
        LaTeX (``\dot{\ell}_{c_2}``) or over all of it. Other names print as
        :func:`symbol_latex` says.
    **settings
        Settings of :class:`sympy.printing.latex.LatexPrinter` (defaults here:
        ``mat_str="bmatrix"``, ``mat_delim=""``, ``fold_func_brackets=True``).

    Raises
    ------
    LagdynError
        An unknown ``trig`` style, a malformed ``symbols`` mapping, or (with
        ``trig="short"``) a symbol whose default LaTeX looks like an abbreviation
        (a parameter ``c2`` would print as ``c_{2}``, read as cos q₂): name it in
        ``symbols``.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> th1, th2 = ld.coordinates("theta1 theta2")
    >>> p = LagdynLatexPrinter([th1, th2])
    >>> p.doprint(sp.Symbol("m") * (th1.diff(ld.t) + th2.diff(ld.t)))
    'm \\left(\\dot{\\theta}_{1} + \\dot{\\theta}_{2}\\right)'
    >>> p.doprint(th2.diff(ld.t, 2))
    '\\ddot{\\theta}_{2}'
    >>> short = LagdynLatexPrinter([th1, th2], trig="short")
    >>> short.doprint(sp.sin(th1 + th2) * sp.Symbol("lc2"))
    'l_{c2} s_{12}'
    >>> short.abbreviations
    {'s_{12}': '\\sin(\\theta_{1} + \\theta_{2})'}
    >>> LagdynLatexPrinter(symbols={"lc2": r"\ell_{c_2}"}).doprint(sp.Symbol("lc2") ** 2)
    '\\ell_{c_2}^{2}'
    """

    printmethod = "_lagdyn_latex"

    def __init__(
        self,
        q: Sequence[sp.Expr] = (),
        *,
        trig: TrigStyle = "full",
        symbols: SymbolNames | None = None,
        **settings: Any,
    ) -> None:
        if trig not in get_args(TrigStyle):
            raise LagdynError(f"trig must be 'full' or 'short', got {trig!r}")
        merged = {"mat_str": "bmatrix", "mat_delim": "", "fold_func_brackets": True}
        merged.update(settings)
        super().__init__(merged)
        self._q = tuple(q)
        self._index = {qi: k + 1 for k, qi in enumerate(self._q)}
        self._trig = trig
        self._names = _symbol_names(symbols)
        self._used: dict[str, tuple[tuple[Any, ...], str]] = {}

    # -------------------------------------------------------------- names
    def _checked(self, name: str, tex: str) -> str:
        if self._trig == "short" and _TRIG_LIKE.match(tex):
            raise LagdynError(
                f"{name!r} would print as {tex}, which trig='short' uses for a sine or "
                f"cosine; name it with symbols={{{name!r}: r'...'}} or use trig='full'"
            )
        return tex

    def _print_Symbol(self, expr: sp.Symbol, style: str = "plain") -> str:
        if expr.name in self._names:
            return self._names[expr.name]
        return self._checked(expr.name, symbol_latex(expr.name))

    # -------------------------------------------------------------- coordinates
    def coordinate(self, name: str, dots: int = 0) -> str:
        r"""LaTeX of coordinate ``name`` with ``dots`` time derivatives.

        Examples
        --------
        >>> LagdynLatexPrinter().coordinate("theta1", 1)
        '\\dot{\\theta}_{1}'
        >>> LagdynLatexPrinter().coordinate("q2", 4)
        'q_{2}^{(4)}'
        >>> LagdynLatexPrinter(symbols={"q2": r"\ell_{c}"}).coordinate("q2", 2)
        '\\ddot{\\ell}_{c}'
        """
        if name in self._names:
            return _dotted(self._names[name], dots)
        head, sub, sup = _symbol_parts(name, coordinate=True)
        self._checked(name, _assemble(head, sub, sup))
        if 0 < dots <= 3:
            head = f"{_DOTS[dots]}{{{head}}}"
        elif dots > 3:
            sup = f"{sup} ({dots})" if sup else f"({dots})"
        return _assemble(head, sub, sup)

    def _print_Derivative(self, expr: sp.Derivative) -> str:
        if _is_coordinate(expr.expr) and all(v == t for v in expr.variables):
            return self.coordinate(expr.expr.func.__name__, len(expr.variables))
        return str(super()._print_Derivative(expr))

    def _print_Function(self, expr: sp.Expr, exp: str | None = None) -> str:
        if _is_coordinate(expr):
            tex = self.coordinate(expr.func.__name__)
        elif self._trig == "short" and isinstance(expr, (sp.sin, sp.cos)):
            label = self.trig_label(expr.args[0])
            if label is None:
                return str(super()._print_Function(expr, exp))
            kind = "s" if isinstance(expr, sp.sin) else "c"
            tex = f"{kind}_{{{label}}}"
            self._record(tex, kind, expr.args[0])
        else:
            return str(super()._print_Function(expr, exp))
        return tex if exp is None else f"{tex}^{{{exp}}}"

    def _needs_function_brackets(self, expr: sp.Expr) -> bool:
        if _is_coordinate(expr):
            return False
        return bool(super()._needs_function_brackets(expr))

    # -------------------------------------------------------------- short trig
    def _parts(self, arg: sp.Expr) -> list[tuple[int, int]] | None:
        parts: list[tuple[int, int]] = []
        for term in sp.Add.make_args(sp.expand(arg)):
            c, rest = term.as_coeff_Mul()
            if rest not in self._index or c not in (1, -1):
                return None
            parts.append((self._index[rest], int(c)))
        parts.sort()
        if not parts or parts[0][1] != 1:
            return None
        return parts

    def _record(self, tex: str, kind: str, arg: sp.Expr) -> None:
        if tex in self._used:
            return
        parts = self._parts(arg) or []
        names = [self.coordinate(self._q[k - 1].func.__name__) for k, _ in parts]
        inner = names[0] + "".join(
            (" - " if c < 0 else " + ") + nm for (_, c), nm in zip(parts[1:], names[1:])
        )
        func = r"\sin" if kind == "s" else r"\cos"
        definition = f"{func} {inner}" if len(parts) == 1 else f"{func}({inner})"
        key = (len(parts), [(k, -c) for k, c in parts], kind)
        self._used[tex] = (key, definition)

    @property
    def abbreviations(self) -> dict[str, str]:
        r"""The short trig abbreviations printed so far, ``{label: definition}``, in order.

        Ordered by the number of coordinates, then the coordinates, cosine before sine:
        c₁, s₁, c₂, s₂, c₁₂, s₁₂, c₁₋₂, …

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> a, b = ld.coordinates("a b")
        >>> p = LagdynLatexPrinter([a, b], trig="short")
        >>> _ = p.doprint(sp.sin(a - b) + sp.cos(b))
        >>> p.abbreviations
        {'c_{2}': '\\cos b', 's_{1-2}': '\\sin(a - b)'}
        """
        order = sorted(self._used, key=lambda tex: self._used[tex][0])
        return {tex: self._used[tex][1] for tex in order}

    def trig_label(self, arg: sp.Expr) -> str | None:
        """The ``s_{…}``/``c_{…}`` label of a trig argument, or None if it has none.

        Examples
        --------
        >>> import lagdyn as ld
        >>> a, b = ld.coordinates("a b")
        >>> LagdynLatexPrinter([a, b]).trig_label(a - b)
        '1-2'
        >>> LagdynLatexPrinter([a, b]).trig_label(2 * a) is None
        True
        """
        parts = self._parts(arg)
        if parts is None:
            return None
        sep = "" if len(self._q) < 10 else ","
        out = str(parts[0][0])
        for k, c in parts[1:]:
            out += ("-" if c < 0 else sep) + str(k)
        return out


# ---------------------------------------------------------------------- parameter groups
@dataclass(frozen=True)
class ParameterGroup:
    r"""A named constant group of parameters, ``symbol = definition``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> parameter_groups(ld.zoo.two_link_planar())[1]
    ParameterGroup(symbol=beta, definition=l1*lc2*m2)
    """

    symbol: sp.Symbol
    definition: sp.Expr


def _split_term(term: sp.Expr, q: Iterable[sp.Expr]) -> tuple[sp.Expr, sp.Expr]:
    qs = tuple(q)
    coeff: list[sp.Expr] = []
    dep: list[sp.Expr] = []
    for f in sp.Mul.make_args(term):
        (dep if f.has(*qs) else coeff).append(f)
    return sp.Mul(*coeff), sp.Mul(*dep)


def _collect(
    entry: sp.Expr, q: Sequence[sp.Expr], *, by_coordinates: bool = False
) -> list[tuple[sp.Expr, sp.Expr]]:
    """Terms of expanded ``entry`` as ``[(q-dependent factor, q-free coefficient)]``, ordered.

    Factors are ordered 1 first, then in sympy's sort order; with ``by_coordinates``, by the
    number of coordinates they involve first (cos q1 before cos(q1 + q2)).
    """
    acc: dict[sp.Expr, sp.Expr] = {}
    for term in sp.Add.make_args(sp.expand(entry)):
        coeff, dep = _split_term(term, q)
        acc[dep] = acc.get(dep, sp.S.Zero) + coeff

    def key(d: sp.Expr) -> tuple[Any, ...]:
        involved = sum(1 for qi in q if d.has(qi)) if by_coordinates else 0
        return (d != 1, involved, sp.default_sort_key(d))

    return [(d, acc[d]) for d in sorted(acc, key=key) if acc[d] != 0]


def _primitive(coeff: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """``coeff = content * primitive`` with the sign moved into the content."""
    content, prim = coeff.as_content_primitive()
    if prim.could_extract_minus_sign():
        content, prim = -content, -prim
    return content, prim


def parameter_groups(system: Any) -> tuple[ParameterGroup, ...]:
    """The constant parameter groups of the mass matrix (see the module docstring).

    Parameters
    ----------
    system : LagrangianSystem

    Returns
    -------
    tuple of ParameterGroup, in order of first appearance in M.

    Examples
    --------
    >>> import lagdyn as ld
    >>> for grp in parameter_groups(ld.zoo.two_link_planar()):
    ...     print(grp.symbol, "=", grp.definition)
    alpha = I1 + I2 + l1**2*m2 + lc1**2*m1 + lc2**2*m2
    beta = l1*lc2*m2
    delta = I2 + lc2**2*m2
    """
    n, M, q = system.n, system.M, system.q
    slots: dict[sp.Expr, set[tuple[int, int, sp.Expr]]] = {}
    for i in range(n):
        for j in range(i, n):
            for dep, coeff in _collect(M[i, j], q):
                _, prim = _primitive(coeff)
                if len(prim.free_symbols) >= 2:
                    slots.setdefault(prim, set()).add((i, j, dep))
    chosen = [p for p, s in slots.items() if isinstance(p, sp.Add) or len(s) >= 2]
    taken = {str(s) for s in system.parameters} | {qi.func.__name__ for qi in q}
    names = (nm for nm in [*GROUP_NAMES, *(f"k{i}" for i in range(1, 1000))] if nm not in taken)
    return tuple(ParameterGroup(sp.Symbol(next(names), real=True), p) for p in chosen)


#: Bases for the names of gravity moments γ₁, γ₂, … (the next free one if γ is taken).
GRAVITY_NAMES: tuple[str, ...] = ("gamma", "kappa", "mu", "nu", "xi", "rho", "sigma", "chi")


def _gravity_symbol(system: Any) -> sp.Symbol | None:
    return next((p for p in system.parameters if p.name == "g"), None)


def gravity_groups(
    system: Any, exclude: Iterable[ParameterGroup] = ()
) -> tuple[ParameterGroup, ...]:
    r"""The named gravity moments of the gravity vector g(q), used when grouping is on.

    Every entry of g is expanded and collected by its q-dependent factor (rows in order;
    in a row, factors of fewer coordinates first); each q-free coefficient, reduced to its
    primitive part, that contains the gravitational acceleration (the parameter named
    ``g``) and at least one other parameter is a gravity moment, named γ₁, γ₂, … in order
    of first appearance (if a parameter or coordinate already uses γ, the next free letter
    of κ, μ, ν, ξ, ρ, σ, χ). Coefficients equal to a group in ``exclude`` are left alone.

    Parameters
    ----------
    system : LagrangianSystem
    exclude : iterable of ParameterGroup
        Groups already named (those of :func:`parameter_groups`): their names are avoided.

    Returns
    -------
    tuple of ParameterGroup; empty if the system has no parameter ``g``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> for grp in gravity_groups(ld.zoo.two_link_planar()):
    ...     print(grp.symbol, "=", grp.definition)
    gamma_1 = g*l1*m2 + g*lc1*m1
    gamma_2 = g*lc2*m2
    """
    g_sym = _gravity_symbol(system)
    if g_sym is None:
        return ()
    exclude = tuple(exclude)
    known = {grp.definition for grp in exclude}
    found: list[sp.Expr] = []
    for entry in system.g:
        for _, coeff in _collect(natural_form(entry), system.q, by_coordinates=True):
            _, prim = _primitive(coeff)
            free = prim.free_symbols
            if g_sym in free and len(free) >= 2 and prim not in known and prim not in found:
                found.append(prim)
    taken = (
        {p.name for p in system.parameters}
        | {qi.func.__name__ for qi in system.q}
        | {grp.symbol.name for grp in exclude}
    )
    base = next(
        (
            b
            for b in GRAVITY_NAMES
            if not any(nm == b or re.fullmatch(rf"{b}_?\d+", nm) for nm in taken)
        ),
        "gm",
    )
    return tuple(
        ParameterGroup(sp.Symbol(f"{base}_{k}", real=True), prim)
        for k, prim in enumerate(found, start=1)
    )


def _group_entry(
    entry: sp.Expr, q: Sequence[sp.Expr], groups: Mapping[sp.Expr, sp.Symbol]
) -> sp.Expr:
    """``entry`` with each collected coefficient that is a group replaced by its name.

    An entry without such a coefficient is returned unchanged (not expanded).
    """
    collected = _collect(entry, q, by_coordinates=True)
    if not any(_primitive(coeff)[1] in groups for _, coeff in collected):
        return entry
    return _group_matrix_entry(entry, q, groups, collected)


def _group_matrix_entry(
    entry: sp.Expr,
    q: Sequence[sp.Expr],
    groups: Mapping[sp.Expr, sp.Symbol],
    collected: list[tuple[sp.Expr, sp.Expr]] | None = None,
) -> sp.Expr:
    out = []
    for dep, coeff in _collect(entry, q) if collected is None else collected:
        content, prim = _primitive(coeff)
        if prim in groups:
            out.append(content * groups[prim] * dep)
        else:
            out.append(sp.factor_terms(coeff) * dep)
    return sp.Add(*out)


def _substitute(expr: sp.Expr, ordered: Sequence[ParameterGroup]) -> sp.Expr:
    for grp in ordered:
        expr = expr.subs(grp.definition, grp.symbol)
    return expr


# ---------------------------------------------------------------------- document model
@dataclass
class Block:
    """One displayed piece: a title for documents and the math (no delimiters)."""

    title: str
    tex: str


@dataclass
class Document:
    """The printed pieces shared by :func:`latex` and :func:`markdown`."""

    blocks: list[Block] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    coordinates: str = ""
    parameters: str = ""


def _aligned(rows: Sequence[tuple[str, str]]) -> str:
    body = "\\\\\n".join(f"{lhs} &= {rhs}" for lhs, rhs in rows)
    return "\\begin{aligned}\n" + body + "\n\\end{aligned}"


def _signed_sum(parts: Sequence[str]) -> str:
    out = ""
    for p in parts:
        if not out:
            out = p
        elif p.startswith("- "):
            out += " - " + p[2:]
        elif p.startswith("-"):
            out += " - " + p[1:]
        else:
            out += " + " + p
    return out or "0"


def _definition_tex(pr: Any, grp: ParameterGroup, g_sym: sp.Symbol | None) -> str:
    """A group's definition; a gravity moment with ``g`` last: ``(l_1 m_2 + …) g``."""
    d = grp.definition
    if g_sym is None or not d.has(g_sym):
        return str(pr(d))
    rest = sp.factor_terms(d / g_sym)
    if rest.has(g_sym) or rest == 1:
        return str(pr(d))
    tex = str(pr(rest))
    if isinstance(rest, sp.Add):
        tex = rf"\left({tex}\right)"
    elif rest.could_extract_minus_sign():
        return str(pr(d))
    return f"{tex} {pr(g_sym)}"


def _known_names(system: Any, groups: Sequence[ParameterGroup]) -> set[str]:
    return (
        {p.name for p in system.parameters}
        | {qi.func.__name__ for qi in system.q}
        | {grp.symbol.name for grp in groups}
        | {f"tau_{k + 1}" for k in range(system.n)}
    )


def build_document(
    system: Any,
    *,
    what: Sequence[str] = DEFAULT_WHAT,
    group_parameters: bool = False,
    trig: TrigStyle = "full",
    symbols: SymbolNames | None = None,
) -> Document:
    """Print every requested piece of ``system``; used by :func:`latex` and :func:`markdown`.

    The options are those of :func:`latex`; ``doc.notes`` holds the legend of the short
    trig abbreviations that the blocks use (none if they use none).

    Examples
    --------
    >>> import lagdyn as ld
    >>> doc = build_document(ld.zoo.double_pendulum(), what=("M",), trig="short")
    >>> [b.title for b in doc.blocks], doc.notes
    (['Mass matrix'], ['$c_{1-2} = \\\\cos(a - b)$'])
    """
    if isinstance(what, str):
        what = (what,)
    bad = [w for w in what if w not in ITEMS]
    if bad:
        raise LagdynError(
            f"unknown item(s) {', '.join(map(repr, bad))} in what=; choose from {', '.join(ITEMS)}"
        )
    printer = LagdynLatexPrinter(system.q, trig=trig, symbols=symbols)
    pr = printer.doprint
    n, q = system.n, system.q
    # what a person writes (sin²θ, not 1/2 − cos 2θ/2); the system keeps its canonical form
    M, C, G, g = (
        sp.ImmutableMatrix(m.applyfunc(natural_form))
        for m in (system.M, system.C, system.G, system.g)
    )
    h = [natural_form(e) for e in system.h]
    V = natural_form(system.U)
    doc = Document()
    sub = lambda e: e  # noqa: E731
    groups: tuple[ParameterGroup, ...] = ()
    moments: tuple[ParameterGroup, ...] = ()
    if group_parameters:
        groups = parameter_groups(system)
        moments = gravity_groups(system, exclude=groups)
        if moments:
            # the gravity moments by collection, in g, its share of the equations, and V
            by_moment = {grp.definition: grp.symbol for grp in moments}
            g = sp.ImmutableMatrix(n, 1, [_group_entry(e, q, by_moment) for e in g])
            V = _group_entry(V, q, by_moment)
        if groups:
            lookup = {grp.definition: grp.symbol for grp in groups}
            ordered = sorted(
                groups,
                key=lambda g_: (
                    not isinstance(g_.definition, sp.Add),
                    -len(g_.definition.args),
                ),
            )
            M = sp.ImmutableMatrix(n, n, [_group_matrix_entry(e, q, lookup) for e in M])
            sub = lambda e: _substitute(e, ordered)  # noqa: E731
            C, G, g = (sp.ImmutableMatrix(m.applyfunc(sub)) for m in (C, G, g))
            h = [sub(e) for e in h]
    unknown = sorted(set(printer._names) - _known_names(system, (*groups, *moments)))
    if unknown:
        warnings.warn(
            f"symbols= names {', '.join(map(repr, unknown))} are not symbols of this system "
            f"(ignored); its symbols: {', '.join(sorted(_known_names(system, ())))}",
            LagdynWarning,
            stacklevel=3,
        )
    doc.coordinates = ", ".join(pr(qi) for qi in q)
    doc.parameters = ", ".join(pr(p) for p in system.parameters)
    if groups or moments:
        g_sym = _gravity_symbol(system)
        rows = [(pr(grp.symbol), pr(grp.definition)) for grp in groups]
        rows += [(pr(grp.symbol), _definition_tex(pr, grp, g_sym)) for grp in moments]
        doc.blocks.append(Block("Parameter groups", _aligned(rows)))
    tau = [sp.Symbol(f"tau_{k + 1}") for k in range(n)]
    for item in what:
        if item == "M":
            doc.blocks.append(Block("Mass matrix", f"M(q) = {pr(M)}"))
        elif item == "C":
            doc.blocks.append(
                Block("Coriolis and centrifugal matrix", rf"C(q, \dot{{q}}) = {pr(C)}")
            )
        elif item == "G":
            doc.blocks.append(Block("Gyroscopic matrix", f"G(q) = {pr(G)}"))
        elif item == "g":
            doc.blocks.append(Block("Gravity vector", f"g(q) = {pr(g)}"))
        elif item == "Q":
            Q = sp.ImmutableMatrix(system.forces.applyfunc(lambda e: sub(natural_form(e))))
            doc.blocks.append(Block("Generalized forces", rf"Q(q, \dot{{q}}, t) = {pr(Q)}"))
        elif item == "christoffel":
            rows = []
            sep = "" if n < 10 else ","
            for i in range(n):
                for j in range(n):
                    for k in range(j, n):
                        val = natural_form(system.christoffel[i][j][k])
                        if val != 0:
                            idx = sep.join(str(x + 1) for x in (i, j, k))
                            rows.append((rf"\Gamma_{{{idx}}}", pr(sub(val))))
            tex = _aligned(rows) if rows else r"\Gamma_{ijk} = 0 \quad \text{for all } i, j, k"
            doc.blocks.append(Block("Christoffel symbols of the first kind", tex))
        elif item == "equations":
            # τ_i + Q_i = Σ_j M_ij q̈_j + (C q̇ + G q̇)_i + g_i: short sides aligned at &=
            rows = []
            for i in range(n):
                parts = [pr(M[i, j] * system.qdd[j]) for j in range(n) if M[i, j] != 0]
                # C q̇ + G q̇ + g from the factored system.h: rate terms first, then g
                terms = sp.Add.make_args(h[i])
                moving = [e for e in terms if e.has(*system.qd)]
                parts += [pr(sp.Add(*moving))] if moving else []
                static = sp.Add.make_args(g[i]) if moments else terms
                parts += [pr(e) for e in static if e != 0 and not e.has(*system.qd)]
                lhs = [pr(tau[i])]
                if system.forces[i] != 0:
                    lhs.append(pr(sub(system.forces[i])))
                rows.append((_signed_sum(lhs), _signed_sum(parts)))
            doc.blocks.append(Block("Equations of motion", _aligned(rows)))
        elif item == "energy":
            energy = r"E = \frac{1}{2} \dot{q}^{\mathsf{T}} M(q) \dot{q} + V(q)"
            tex = rf"{energy}, \qquad V(q) = {pr(sub(V))}"
            doc.blocks.append(Block("Energy", tex))
    legend = printer.abbreviations
    if legend:
        doc.notes.append(", ".join(f"${tex} = {definition}$" for tex, definition in legend.items()))
    return doc


_PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[margin=2cm]{geometry}
\usepackage{amsmath,amssymb}
\allowdisplaybreaks
\begin{document}
"""


def latex(
    system: Any,
    *,
    what: Sequence[Item] = DEFAULT_WHAT,
    group_parameters: bool = False,
    trig: TrigStyle = "full",
    standalone: bool = False,
    symbols: SymbolNames | None = None,
) -> str:
    r"""LaTeX of ``system``'s matrices and equations of motion.

    Parameters
    ----------
    system : LagrangianSystem
    what : sequence of str
        The pieces, in order: ``"M"``, ``"C"``, ``"G"``, ``"g"``, ``"Q"`` (forces),
        ``"christoffel"`` (nonzero Γ_ijk with j ≤ k), ``"equations"``
        (row by row ``τ_i + Q_i = Σ_j M_ij q̈_j + (C q̇ + G q̇)_i + g_i``, an ``aligned``
        block aligned at ``&=``), ``"energy"``.
    group_parameters : bool
        Replace constant parameter groups of M by named constants α, β, δ, … (see
        :func:`parameter_groups`) and the gravity moments of g by γ₁, γ₂, … (see
        :func:`gravity_groups`; also in the equations and V), and print their
        definitions first.
    trig : {"full", "short"}
        ``"short"`` writes ``s_{12}`` for sin(q1 + q2), ``c_{2}`` for cos q2, and a
        legend (a ``% notation:`` comment, a sentence in a standalone document) that
        defines exactly the abbreviations used.
    standalone : bool
        A complete, compilable ``.tex`` document (article class, amsmath) instead of
        display-math fragments ``\[ … \]`` separated by blank lines.
    symbols : mapping, optional
        LaTeX for symbols, by name or by the parameter or coordinate itself:
        ``{"lc2": r"\ell_{c_2}"}``; used everywhere the symbol appears (a coordinate's
        rates get the dots). Unnamed symbols print as :func:`symbol_latex` says
        (``lc2`` → ``l_{c2}``). Names the system lacks are ignored with a
        :class:`~lagdyn.errors.LagdynWarning`.

    Returns
    -------
    str

    Raises
    ------
    LagdynError
        An unknown item in ``what``, an unknown ``trig`` style, a ``symbols`` value that
        is not a LaTeX string, or with ``trig="short"`` a symbol that would print like an
        abbreviation (a parameter ``c2``): name it in ``symbols``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> print(latex(ld.zoo.double_pendulum(), what=("equations",), trig="short"))
    % notation: $s_{1} = \sin a$, $s_{2} = \sin b$, $c_{1-2} = \cos(a - b)$, $s_{1-2} = \sin(a - b)$
    \[
    \begin{aligned}
    \tau_{1} &= l_{1}^{2} \left(m_{1} + m_{2}\right) \ddot{a} + l_{1} l_{2} m_{2} c_{1-2} \ddot{b} + l_{1} l_{2} m_{2} s_{1-2} \dot{b}^{2} + g l_{1} \left(m_{1} + m_{2}\right) s_{1}\\
    \tau_{2} &= l_{1} l_{2} m_{2} c_{1-2} \ddot{a} + l_{2}^{2} m_{2} \ddot{b} - l_{1} l_{2} m_{2} s_{1-2} \dot{a}^{2} + g l_{2} m_{2} s_{2}
    \end{aligned}
    \]
    >>> arm = ld.zoo.two_link_planar()
    >>> print(latex(arm, what=("g",), symbols={"lc1": r"\ell_{c_1}", "lc2": r"\ell_{c_2}"}))
    \[
    g(q) = \begin{bmatrix}g \ell_{c_2} m_{2} \cos{\left(q_{1} + q_{2} \right)} + g \left(l_{1} m_{2} + \ell_{c_1} m_{1}\right) \cos {q_{1}}\\g \ell_{c_2} m_{2} \cos{\left(q_{1} + q_{2} \right)}\end{bmatrix}
    \]
    """  # noqa: E501  (doctest output)
    doc = build_document(
        system, what=what, group_parameters=group_parameters, trig=trig, symbols=symbols
    )
    if not standalone:
        head = "".join(f"% notation: {note}\n" for note in doc.notes)
        return head + "\n\n".join(f"\\[\n{b.tex}\n\\]" for b in doc.blocks)
    parts = [_PREAMBLE, "\\section*{Equations of motion}\n"]
    parts.append(
        f"\\noindent Coordinates ${doc.coordinates}$"
        + (f"; parameters ${doc.parameters}$" if doc.parameters else "")
        + ".\n"
    )
    for note in doc.notes:
        parts.append(f"Notation: {note}.\n")
    for b in doc.blocks:
        parts.append(f"\n\\subsection*{{{b.title}}}\n\\[\n{b.tex}\n\\]\n")
    parts.append("\n\\end{document}\n")
    return "".join(parts)
