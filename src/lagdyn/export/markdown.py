r"""Markdown or HTML of a system's equations: KaTeX/MathJax-compatible math, or MathML.

The same pieces as :func:`lagdyn.export.latex` (printed by the same printer):
display math in ``$$ … $$`` blocks under ``###`` headings for notebooks and docs
(only environments KaTeX supports are used: ``bmatrix``, ``aligned``, ``\dot``,
``\ddot``, ``\left( … \right)``), or a self-contained HTML page whose math is
presentation MathML translated from that LaTeX (:mod:`lagdyn.export.mathml`): the page
loads no script, style sheet or font, so it renders offline in every current browser.

Examples
--------
>>> import lagdyn as ld
>>> print(markdown(ld.zoo.double_pendulum(), what=("g",)))
## Equations of motion
<BLANKLINE>
Coordinates $a, b$; parameters $g, l_{1}, l_{2}, m_{1}, m_{2}$.
<BLANKLINE>
### Gravity vector
<BLANKLINE>
$$
g(q) = \begin{bmatrix}g l_{1} \left(m_{1} + m_{2}\right) \sin {a}\\g l_{2} m_{2} \sin {b}\end{bmatrix}
$$
<BLANKLINE>
"""  # noqa: E501  (doctest output)

from __future__ import annotations

import html as _html
from collections.abc import Sequence
from typing import Any

from .latex import DEFAULT_WHAT, Item, TrigStyle, build_document
from .mathml import inline_math, tex_to_mathml

__all__ = ["markdown"]

#: Styles of the HTML page: system fonts only, nothing loaded.
_STYLE = """body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
  padding: 0 1rem; line-height: 1.5; }
math[display="block"] { margin: 0.5rem 0 1rem; overflow-x: auto; }
math { font-family: "STIX Two Math", "Cambria Math", "Latin Modern Math", math; }"""


def markdown(
    system: Any,
    *,
    what: Sequence[Item] = DEFAULT_WHAT,
    group_parameters: bool = False,
    trig: TrigStyle = "full",
    title: str = "Equations of motion",
    html: bool = False,
) -> str:
    r"""Markdown (or, with ``html=True``, an HTML page) of ``system``'s equations.

    Parameters
    ----------
    system : LagrangianSystem
    what, group_parameters, trig
        As for :func:`lagdyn.export.latex`.
    title : str
        The top heading.
    html : bool
        A complete, self-contained HTML page with the math as MathML (no network access:
        nothing is loaded from anywhere), instead of Markdown with ``$$`` blocks.

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
    >>> page = markdown(ld.zoo.double_pendulum(), html=True)
    >>> page.startswith("<!DOCTYPE html>") and "<math" in page and "https://" not in page
    True
    """
    doc = build_document(system, what=what, group_parameters=group_parameters, trig=trig)
    intro = f"Coordinates ${doc.coordinates}$" + (
        f"; parameters ${doc.parameters}$." if doc.parameters else "."
    )
    if not html:
        parts = [f"## {title}\n", f"{intro}\n"]
        parts += [f"Notation: {note}.\n" for note in doc.notes]
        for b in doc.blocks:
            parts.append(f"### {b.title}\n\n$$\n{b.tex}\n$$\n")
        return "\n".join(parts)
    esc = _html.escape
    body = [f"<h2>{esc(title)}</h2>", f"<p>{inline_math(intro)}</p>"]
    body += [f"<p>Notation: {inline_math(note)}.</p>" for note in doc.notes]
    for b in doc.blocks:
        body.append(f"<h3>{esc(b.title)}</h3>\n{tex_to_mathml(b.tex)}")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{esc(title)}</title>\n<style>\n{_STYLE}\n</style>\n"
        "</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )
