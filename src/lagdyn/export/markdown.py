r"""Markdown or HTML of a system's equations, with KaTeX/MathJax-compatible math.

The same pieces as :func:`lagdyn.export.latex` (printed by the same printer):
display math in ``$$ … $$`` blocks under ``###`` headings for notebooks and docs,
or a self-contained HTML page that renders with KaTeX's auto-render extension.
Only environments KaTeX supports are used (``bmatrix``, ``aligned``, ``\dot``,
``\ddot``, ``\left( … \right)``).

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

__all__ = ["markdown"]

_KATEX = "https://cdn.jsdelivr.net/npm/katex@0.16.11/dist"


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
        A complete HTML page whose math KaTeX renders (loaded from a CDN), instead of
        Markdown with ``$$`` blocks.

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
    >>> page.startswith("<!DOCTYPE html>") and "katex" in page
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
    body = [f"<h2>{esc(title)}</h2>", f"<p>{esc(intro)}</p>"]
    body += [f"<p>Notation: {esc(note)}.</p>" for note in doc.notes]
    for b in doc.blocks:
        body.append(f"<h3>{esc(b.title)}</h3>\n<div>$$\n{esc(b.tex)}\n$$</div>")
    return (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        f"<title>{esc(title)}</title>\n"
        f'<link rel="stylesheet" href="{_KATEX}/katex.min.css">\n'
        f'<script defer src="{_KATEX}/katex.min.js"></script>\n'
        f'<script defer src="{_KATEX}/contrib/auto-render.min.js" '
        'onload="renderMathInElement(document.body)"></script>\n'
        "</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )
