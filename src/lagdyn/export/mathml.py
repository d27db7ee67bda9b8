r"""Presentation MathML from the LaTeX that :mod:`lagdyn.export.latex` prints: offline math.

The HTML page of :func:`lagdyn.export.markdown` (``lagdyn derive --html``) shows its
equations as MathML, which every current browser renders with no script, font or network
access. The translation covers the LaTeX subset lagdyn's printer emits (letters, digits,
operators, ``^``/``_``, ``\frac``, ``\sqrt``, ``\dot``/``\ddot``/``\dddot``,
``\left … \right``, ``bmatrix``/``pmatrix``/``aligned``, Greek letters, named functions,
``\text``/``\mathsf``/``\mathrm``/``\operatorname``, spacing); a macro outside it is kept
as text and listed in :attr:`Translation.unknown` (``strict=True`` refuses it).

Examples
--------
>>> from lagdyn.export.mathml import tex_to_mathml
>>> print(tex_to_mathml(r"\dot{\theta}_{1}", display=False))
<math><msub><mover accent="true"><mi>θ</mi><mo>˙</mo></mover><mn>1</mn></msub></math>
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, field

from ..errors import LagdynError

__all__ = ["Translation", "inline_math", "tex_to_mathml", "translate"]

_MINUS = "\u2212"  # a minus sign, not the hyphen
_TOKEN = re.compile(r"\\[a-zA-Z]+|\\.|\d+(?:\.\d+)?|\s+|.", re.S)

_GREEK = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
]


def _unicode(name: str) -> str:
    return "LAMDA" if name == "lambda" else name.upper()


_SYMBOLS: dict[str, str] = {
    **{g: unicodedata.lookup(f"GREEK SMALL LETTER {_unicode(g)}") for g in _GREEK},
    **{g.capitalize(): unicodedata.lookup(f"GREEK CAPITAL LETTER {_unicode(g)}") for g in _GREEK},
    "phi": "ϕ",
    "varphi": "φ",
    "epsilon": "ϵ",
    "varepsilon": "ε",
    "vartheta": "ϑ",
    "varrho": "ϱ",
    "varsigma": "ς",
    "ell": "ℓ",
    "hbar": "ℏ",
    "infty": "∞",
    "partial": "∂",
    "nabla": "∇",
}
_OPERATORS: dict[str, str] = {
    "cdot": "⋅",
    "times": "×",
    "pm": "±",
    "mp": "∓",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "ne": "≠",
    "approx": "≈",
    "equiv": "≡",
    "to": "→",
    "rightarrow": "→",
    "cdots": "⋯",
    "ldots": "…",
    "dots": "…",
    "sum": "∑",
    "prod": "∏",
    "int": "∫",
    "{": "{",
    "}": "}",
    "|": "‖",
    "lfloor": "⌊",
    "rfloor": "⌋",
    "lceil": "⌈",
    "rceil": "⌉",
    "langle": "⟨",
    "rangle": "⟩",
}
_FUNCTIONS = frozenset(
    [
        "sin",
        "cos",
        "tan",
        "cot",
        "sec",
        "csc",
        "sinh",
        "cosh",
        "tanh",
        "coth",
        "arcsin",
        "arccos",
        "arctan",
        "asin",
        "acos",
        "atan",
        "log",
        "ln",
        "exp",
        "max",
        "min",
        "det",
        "sgn",
        "arg",
    ]
)
_SPACES = {",": "0.1667em", ":": "0.2222em", ";": "0.2778em", "!": "0em", " ": "0.25em"}
_WIDE_SPACES = {"quad": "1em", "qquad": "2em"}
_ACCENTS = {
    "dot": "˙",
    "ddot": "¨",
    "dddot": "\u02d9\u02d9\u02d9",
    "hat": "^",
    "bar": "¯",
    "tilde": "~",
}
_VARIANTS = {"mathsf": "sans-serif", "mathrm": "normal", "mathbf": "bold", "mathit": "italic"}
_MATRICES = {
    "bmatrix": ("[", "]"),
    "pmatrix": ("(", ")"),
    "matrix": ("", ""),
    "vmatrix": ("|", "|"),
}


@dataclass
class Translation:
    """The MathML of a LaTeX string and the macros it did not know.

    Examples
    --------
    >>> from lagdyn.export.mathml import translate
    >>> translate(r"\\foo x").unknown
    ['\\\\foo']
    """

    mathml: str
    unknown: list[str] = field(default_factory=list)


class _Parser:
    def __init__(self, tex: str) -> None:
        self.tokens = [tok for tok in _TOKEN.findall(tex)]
        self.pos = 0
        self.unknown: list[str] = []

    # ------------------------------------------------------------------ tokens
    def peek(self, skip_space: bool = True) -> str | None:
        while skip_space and self.pos < len(self.tokens) and self.tokens[self.pos].isspace():
            self.pos += 1
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        tok = self.peek()
        if tok is None:
            raise LagdynError("unexpected end of LaTeX input")
        self.pos += 1
        return tok

    def group_text(self) -> str:
        """The raw text of the next ``{…}`` group (for \\text, \\begin{name})."""
        if self.peek() != "{":
            return self.take()
        self.take()
        depth = 1
        out: list[str] = []
        while self.pos < len(self.tokens):
            tok = self.tokens[self.pos]
            self.pos += 1
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if depth == 0:
                    return "".join(out)
            out.append(tok)
        raise LagdynError("unbalanced braces in LaTeX input")

    # ------------------------------------------------------------------ grammar
    def sequence(self, stops: tuple[str, ...] = ()) -> list[str]:
        items: list[str] = []
        while True:
            tok = self.peek()
            if tok is None or tok in stops:
                return items
            if tok == "}":
                raise LagdynError("unbalanced braces in LaTeX input")
            atom = self.atom()
            if atom is None:
                continue
            items.append(self.scripts(atom))

    def scripts(self, base: str) -> str:
        sub = sup = None
        while self.peek() in ("_", "^"):
            which = self.take()
            arg = self.argument()
            if which == "_":
                sub = arg
            else:
                sup = arg
        if sub is not None and sup is not None:
            return f"<msubsup>{base}{sub}{sup}</msubsup>"
        if sub is not None:
            return f"<msub>{base}{sub}</msub>"
        if sup is not None:
            return f"<msup>{base}{sup}</msup>"
        return base

    def argument(self) -> str:
        """One argument: a ``{…}`` group or a single token, as one MathML element."""
        if self.peek() == "{":
            self.take()
            items = self.sequence(("}",))
            self.take()
            return _row(items)
        atom = self.atom()
        return atom if atom is not None else "<mrow></mrow>"

    def atom(self) -> str | None:
        tok = self.take()
        if tok == "{":
            items = self.sequence(("}",))
            self.take()
            return _row(items)
        if tok.startswith("\\"):
            return self.macro(tok[1:])
        if tok[0].isdigit():
            return f"<mn>{tok}</mn>"
        if tok.isalpha():
            return f"<mi>{html.escape(tok)}</mi>"
        if tok == "&":
            raise LagdynError("'&' outside an aligned or matrix environment")
        return f"<mo>{html.escape(_MINUS if tok == '-' else tok)}</mo>"

    def macro(self, name: str) -> str | None:
        if name in _SYMBOLS:
            return f"<mi>{_SYMBOLS[name]}</mi>"
        if name in _OPERATORS:
            return f"<mo>{html.escape(_OPERATORS[name])}</mo>"
        if name in _FUNCTIONS:
            return f'<mi mathvariant="normal">{name}</mi>'
        if name in _SPACES:
            return f'<mspace width="{_SPACES[name]}"/>'
        if name in _WIDE_SPACES:
            return f'<mspace width="{_WIDE_SPACES[name]}"/>'
        if name in _ACCENTS:
            return f'<mover accent="true">{self.argument()}<mo>{_ACCENTS[name]}</mo></mover>'
        if name == "frac":
            return f"<mfrac>{self.argument()}{self.argument()}</mfrac>"
        if name == "sqrt":
            if self.peek() == "[":
                self.take()
                index = _row(self.sequence(("]",)))
                self.take()
                return f"<mroot>{self.argument()}{index}</mroot>"
            return f"<msqrt>{self.argument()}</msqrt>"
        if name in ("text", "operatorname"):
            text = html.escape(self.group_text())
            return f"<mtext>{text}</mtext>" if name == "text" else f"<mi>{text}</mi>"
        if name in _VARIANTS:
            inner = self.argument()
            return f'<mstyle mathvariant="{_VARIANTS[name]}">{inner}</mstyle>'
        if name == "left":
            opening = self._delimiter()
            items = self.sequence(("\\right",))
            if self.peek() is None:
                raise LagdynError("\\left without \\right in LaTeX input")
            self.take()
            closing = self._delimiter()
            return _row([_fence(opening), *items, _fence(closing)])
        if name == "begin":
            return self.environment(self.group_text())
        if name in ("displaystyle", "limits", "nolimits"):
            return None
        self.unknown.append("\\" + name)
        return f"<mtext>\\{html.escape(name)}</mtext>"

    def _delimiter(self) -> str:
        tok = self.take()
        if tok == ".":
            return ""
        return _OPERATORS.get(tok[1:], tok[1:]) if tok.startswith("\\") else tok

    def environment(self, name: str) -> str:
        rows: list[list[str]] = [[]]
        while True:
            cell = self.sequence(("&", "\\\\", "\\end"))
            rows[-1].append(_row(cell))
            tok = self.peek()
            if tok is None:
                raise LagdynError(f"\\begin{{{name}}} without \\end")
            self.take()
            if tok == "&":
                continue
            if tok == "\\\\":
                rows.append([])
                continue
            end = self.group_text()
            if end != name:
                raise LagdynError(f"\\begin{{{name}}} ended by \\end{{{end}}}")
            break
        if rows[-1] == ["<mrow></mrow>"] and len(rows) > 1:
            rows.pop()  # a trailing \\
        body = "".join("<mtr>" + "".join(f"<mtd>{c}</mtd>" for c in row) + "</mtr>" for row in rows)
        if name in ("aligned", "align", "align*", "split"):
            return f'<mtable columnalign="right left" displaystyle="true">{body}</mtable>'
        if name in _MATRICES:
            left, right = _MATRICES[name]
            return _row([_fence(left), f"<mtable>{body}</mtable>", _fence(right)])
        self.unknown.append(f"\\begin{{{name}}}")
        return f"<mtable>{body}</mtable>"


def _fence(delimiter: str) -> str:
    if not delimiter:
        return ""
    return f'<mo fence="true" stretchy="true">{html.escape(delimiter)}</mo>'


def _row(items: list[str]) -> str:
    items = [i for i in items if i]
    return items[0] if len(items) == 1 else "<mrow>" + "".join(items) + "</mrow>"


def translate(tex: str, *, display: bool = True) -> Translation:
    r"""Translate ``tex`` (math mode, no delimiters) into one ``<math>`` element.

    Examples
    --------
    >>> from lagdyn.export.mathml import translate
    >>> print(translate(r"\frac{1}{2} m", display=False).mathml)
    <math><mrow><mfrac><mn>1</mn><mn>2</mn></mfrac><mi>m</mi></mrow></math>
    """
    parser = _Parser(tex)
    items = parser.sequence()
    if parser.peek() is not None:  # a stray closing token: "}", "&" or "\end"
        raise LagdynError(f"unexpected {parser.peek()!r} in LaTeX input")
    attrs = ' display="block"' if display else ""
    return Translation(f"<math{attrs}>{_row(items)}</math>", parser.unknown)


def tex_to_mathml(tex: str, *, display: bool = True, strict: bool = False) -> str:
    r"""Presentation MathML of ``tex``; ``strict=True`` refuses macros outside the subset.

    Raises
    ------
    LagdynError
        Unbalanced braces or environments, or (``strict``) an unknown macro.

    Examples
    --------
    >>> from lagdyn.export.mathml import tex_to_mathml
    >>> print(tex_to_mathml(r"x^{2}", display=False))
    <math><msup><mi>x</mi><mn>2</mn></msup></math>
    >>> tex_to_mathml(r"\foo", strict=True)
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: no MathML for \foo
    """
    result = translate(tex, display=display)
    if strict and result.unknown:
        raise LagdynError(f"no MathML for {', '.join(result.unknown)}")
    return result.mathml


def inline_math(text: str, *, strict: bool = False) -> str:
    r"""HTML of ``text`` with every ``$…$`` span as inline MathML and the rest escaped.

    Examples
    --------
    >>> from lagdyn.export.mathml import inline_math
    >>> print(inline_math("Coordinates $a, b$ & more"))
    Coordinates <math><mrow><mi>a</mi><mo>,</mo><mi>b</mi></mrow></math> &amp; more
    """
    parts = text.split("$")
    if len(parts) % 2 == 0:  # an unpaired $: plain text
        return html.escape(text)
    return "".join(
        tex_to_mathml(p, display=False, strict=strict) if k % 2 else html.escape(p)
        for k, p in enumerate(parts)
    )
