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
  full form.

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
their definitions are printed first.

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn.export import latex
>>> arm = ld.zoo.two_link_planar()
>>> print(latex(arm, what=("M",), group_parameters=True, trig="short"))
% notation: $s_{12} = \sin(q_1 + q_2)$, $c_{1-2} = \cos(q_1 - q_2)$
\[
\begin{aligned}
\alpha &= I_{1} + I_{2} + l_{1}^{2} m_{2} + lc_{1}^{2} m_{1} + lc_{2}^{2} m_{2}\\
\beta &= l_{1} lc_{2} m_{2}\\
\delta &= I_{2} + lc_{2}^{2} m_{2}
\end{aligned}
\]
<BLANKLINE>
\[
M(q) = \begin{bmatrix}\alpha + 2 \beta c_{2} & \beta c_{2} + \delta\\\beta c_{2} + \delta & \delta\end{bmatrix}
\]
"""  # noqa: E501  (doctest output)

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.conventions import split_super_sub
from sympy.printing.latex import LatexPrinter, translate

from ..errors import LagdynError
from ..symbols import t
from ..trig.forms import natural_form

__all__ = ["Item", "LagdynLatexPrinter", "ParameterGroup", "TrigStyle", "latex", "parameter_groups"]

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


def _is_coordinate(expr: Any) -> bool:
    return isinstance(expr, AppliedUndef) and expr.args == (t,)


class LagdynLatexPrinter(LatexPrinter):
    r"""A LaTeX printer for mechanics: dots for rates, no ``(t)``, short trig on request.

    Parameters
    ----------
    q : sequence of sympy functions of t, optional
        The coordinates, numbered 1, 2, … for ``trig="short"`` labels.
    trig : {"full", "short"}
        ``"short"`` prints sin/cos of a sum or difference of coordinates as
        ``s_{12}``, ``c_{1-2}``.
    **settings
        Settings of :class:`sympy.printing.latex.LatexPrinter` (defaults here:
        ``mat_str="bmatrix"``, ``mat_delim=""``, ``fold_func_brackets=True``).

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> th1, th2 = ld.coordinates("theta1 theta2")
    >>> p = LagdynLatexPrinter([th1, th2])
    >>> p.doprint(sp.Symbol("m") * (th1.diff(ld.t) + th2.diff(ld.t)))
    'm \\left(\\dot{\\theta}_{1} + \\dot{\\theta}_{2}\\right)'
    >>> p.doprint(th2.diff(ld.t, 2))
    '\\ddot{\\theta}_{2}'
    >>> LagdynLatexPrinter([th1, th2], trig="short").doprint(sp.sin(th1 + th2))
    's_{12}'
    """

    printmethod = "_lagdyn_latex"

    def __init__(
        self, q: Sequence[sp.Expr] = (), *, trig: TrigStyle = "full", **settings: Any
    ) -> None:
        if trig not in get_args(TrigStyle):
            raise LagdynError(f"trig must be 'full' or 'short', got {trig!r}")
        merged = {"mat_str": "bmatrix", "mat_delim": "", "fold_func_brackets": True}
        merged.update(settings)
        super().__init__(merged)
        self._q = tuple(q)
        self._index = {qi: k + 1 for k, qi in enumerate(self._q)}
        self._trig = trig

    # -------------------------------------------------------------- coordinates
    def coordinate(self, name: str, dots: int = 0) -> str:
        r"""LaTeX of coordinate ``name`` with ``dots`` time derivatives.

        Examples
        --------
        >>> LagdynLatexPrinter().coordinate("theta1", 1)
        '\\dot{\\theta}_{1}'
        >>> LagdynLatexPrinter().coordinate("q2", 4)
        'q_{2}^{(4)}'
        """
        base, sups, subs = split_super_sub(name)
        tex = translate(base)
        if 0 < dots <= 3:
            tex = f"{_DOTS[dots]}{{{tex}}}"
        if subs:
            tex += "_{" + " ".join(translate(s) for s in subs) + "}"
        sup = [translate(s) for s in sups]
        if dots > 3:
            sup.append(f"({dots})")
        if sup:
            tex += "^{" + " ".join(sup) + "}"
        return tex

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
            tex = f"{'s' if isinstance(expr, sp.sin) else 'c'}_{{{label}}}"
        else:
            return str(super()._print_Function(expr, exp))
        return tex if exp is None else f"{tex}^{{{exp}}}"

    def _needs_function_brackets(self, expr: sp.Expr) -> bool:
        if _is_coordinate(expr):
            return False
        return bool(super()._needs_function_brackets(expr))

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
        coeffs = sp.Add.make_args(sp.expand(arg))
        parts: list[tuple[int, int]] = []
        for term in coeffs:
            c, rest = term.as_coeff_Mul()
            if rest not in self._index or c not in (1, -1):
                return None
            parts.append((self._index[rest], int(c)))
        parts.sort()
        if not parts or parts[0][1] != 1:
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


def _collect(entry: sp.Expr, q: Sequence[sp.Expr]) -> list[tuple[sp.Expr, sp.Expr]]:
    """Terms of expanded ``entry`` as ``[(q-dependent factor, q-free coefficient)]``, ordered."""
    acc: dict[sp.Expr, sp.Expr] = {}
    for term in sp.Add.make_args(sp.expand(entry)):
        coeff, dep = _split_term(term, q)
        acc[dep] = acc.get(dep, sp.S.Zero) + coeff
    keys = sorted(acc, key=lambda d: (d != 1, sp.default_sort_key(d)))
    return [(d, acc[d]) for d in keys if acc[d] != 0]


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


def _group_matrix_entry(
    entry: sp.Expr, q: Sequence[sp.Expr], groups: Mapping[sp.Expr, sp.Symbol]
) -> sp.Expr:
    out = []
    for dep, coeff in _collect(entry, q):
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


def build_document(
    system: Any,
    *,
    what: Sequence[str] = DEFAULT_WHAT,
    group_parameters: bool = False,
    trig: TrigStyle = "full",
) -> Document:
    """Print every requested piece of ``system``; used by :func:`latex` and :func:`markdown`.

    Examples
    --------
    >>> import lagdyn as ld
    >>> doc = build_document(ld.zoo.double_pendulum(), what=("M",))
    >>> [b.title for b in doc.blocks]
    ['Mass matrix']
    """
    if isinstance(what, str):
        what = (what,)
    bad = [w for w in what if w not in ITEMS]
    if bad:
        raise LagdynError(
            f"unknown item(s) {', '.join(map(repr, bad))} in what=; choose from {', '.join(ITEMS)}"
        )
    printer = LagdynLatexPrinter(system.q, trig=trig)
    pr = printer.doprint
    n, q = system.n, system.q
    # what a person writes (sin²θ, not 1/2 − cos 2θ/2); the system keeps its canonical form
    M, C, G, g = (
        sp.ImmutableMatrix(m.applyfunc(natural_form))
        for m in (system.M, system.C, system.G, system.g)
    )
    h = [natural_form(e) for e in system.h]
    doc = Document()
    doc.coordinates = ", ".join(pr(qi) for qi in q)
    doc.parameters = ", ".join(pr(p) for p in system.parameters)
    sub = lambda e: e  # noqa: E731
    if group_parameters:
        groups = parameter_groups(system)
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
            doc.blocks.append(
                Block(
                    "Parameter groups",
                    _aligned([(pr(grp.symbol), pr(grp.definition)) for grp in groups]),
                )
            )
    if trig == "short":
        names = [qi.func.__name__ for qi in q]
        note = r"$s_{12} = \sin(q_1 + q_2)$, $c_{1-2} = \cos(q_1 - q_2)$"
        if names != [f"q{k + 1}" for k in range(n)]:
            note += " with " + ", ".join(f"{k + 1} = ${pr(qi)}$" for k, qi in enumerate(q))
        doc.notes.append(note)
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
            rows = []
            for i in range(n):
                parts = [pr(M[i, j] * system.qdd[j]) for j in range(n) if M[i, j] != 0]
                # C q̇ + G q̇ + g from the factored system.h: rate terms first, then g
                terms = sp.Add.make_args(h[i])
                moving = [e for e in terms if e.has(*system.qd)]
                parts += [pr(sp.Add(*moving))] if moving else []
                parts += [pr(e) for e in terms if e != 0 and not e.has(*system.qd)]
                rhs = [pr(tau[i])]
                if system.forces[i] != 0:
                    rhs.append(pr(sub(system.forces[i])))
                rows.append((_signed_sum(parts), _signed_sum(rhs)))
            doc.blocks.append(Block("Equations of motion", _aligned(rows)))
        elif item == "energy":
            V = pr(sub(natural_form(system.U)))
            energy = r"E = \frac{1}{2} \dot{q}^{\mathsf{T}} M(q) \dot{q} + V(q)"
            tex = rf"{energy}, \qquad V(q) = {V}"
            doc.blocks.append(Block("Energy", tex))
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
) -> str:
    r"""LaTeX of ``system``'s matrices and equations of motion.

    Parameters
    ----------
    system : LagrangianSystem
    what : sequence of str
        The pieces, in order: ``"M"``, ``"C"``, ``"G"``, ``"g"``, ``"Q"`` (forces),
        ``"christoffel"`` (nonzero Γ_ijk with j ≤ k), ``"equations"``
        (``M q̈ + C q̇ + G q̇ + g = τ + Q`` row by row, an ``aligned`` block),
        ``"energy"``.
    group_parameters : bool
        Replace constant parameter groups of M by named constants α, β, δ, … and
        print their definitions first (see :func:`parameter_groups`).
    trig : {"full", "short"}
        ``"short"`` writes ``s_{12}`` for sin(q1 + q2), ``c_{2}`` for cos q2.
    standalone : bool
        A complete, compilable ``.tex`` document (article class, amsmath) instead of
        display-math fragments ``\[ … \]`` separated by blank lines.

    Returns
    -------
    str

    Raises
    ------
    LagdynError
        An unknown item in ``what`` or an unknown ``trig`` style.

    Examples
    --------
    >>> import lagdyn as ld
    >>> print(latex(ld.zoo.double_pendulum(), what=("equations",), trig="short"))
    % notation: $s_{12} = \sin(q_1 + q_2)$, $c_{1-2} = \cos(q_1 - q_2)$ with 1 = $a$, 2 = $b$
    \[
    \begin{aligned}
    l_{1}^{2} \left(m_{1} + m_{2}\right) \ddot{a} + l_{1} l_{2} m_{2} c_{1-2} \ddot{b} + l_{1} l_{2} m_{2} s_{1-2} \dot{b}^{2} + g l_{1} \left(m_{1} + m_{2}\right) s_{1} &= \tau_{1}\\
    l_{1} l_{2} m_{2} c_{1-2} \ddot{a} + l_{2}^{2} m_{2} \ddot{b} - l_{1} l_{2} m_{2} s_{1-2} \dot{a}^{2} + g l_{2} m_{2} s_{2} &= \tau_{2}
    \end{aligned}
    \]
    """  # noqa: E501  (doctest output)
    doc = build_document(system, what=what, group_parameters=group_parameters, trig=trig)
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
