"""The lab page: one self-contained HTML file computed live from exported JavaScript."""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import sympy as sp
from sympy.printing.conventions import split_super_sub

from .._files import check_new_file, write_file_atomically
from ..errors import LagdynError
from .geometry import Convention, Geometry, default_conventions, model_geometry
from .js import page_modules

__all__ = ["check_title", "page", "symbol_html", "symbol_text", "write"]

#: Time step of the page's RK4 swing (s).
SWING_DT = 1e-3

#: The seed-003 reference state of the double pendulum (fragment keys).
SEED_STATE: dict[str, dict[str, float]] = {
    "double_pendulum": {
        "a": 0.0,
        "b": 0.0,
        "v_a": 1.0,
        "v_b": -1.0,
        "Fx": 3.0,
        "Fy": 0.0,
        "eps": 0.5,
        "dq_a": 1.0,
        "dq_b": -1.0,
    },
    "double_pendulum_relative": {
        "u1": 0.0,
        "u2": 0.0,
        "v_u1": 1.0,
        "v_u2": -2.0,
        "Fx": 3.0,
        "Fy": 0.0,
        "eps": 0.5,
        "dq_u1": 1.0,
        "dq_u2": -2.0,
    },
}


def _names(q: Sequence[Any]) -> list[str]:
    return [str(s)[:-3] if str(s).endswith("(t)") else str(s) for s in q]


def symbol_text(name: str) -> str:
    """A symbol's name as the page shows it in text: Greek letters and subscript digits.

    Examples
    --------
    >>> from lagdyn.lab.page import symbol_text
    >>> [symbol_text(s) for s in ("theta1", "b", "lc2", "phi")]
    ['θ₁', 'b', 'lc₂', 'φ']
    """
    return str(sp.pretty(sp.Symbol(name), use_unicode=True))


def symbol_html(name: str, *, dot: bool = False, prefix: str = "") -> str:
    """A symbol's name as the page's HTML label: a rate's dot drawn over the whole symbol.

    The dot is an element the page's CSS draws as a filled circle above the base symbol
    (``<span class="dot">``), not a character: a combining dot (U+0307) is dropped or
    misplaced by Chromium's fonts ("ḃ" showed as "b"), and a spacing dot stacked by
    MathML overlaps the ascender of b. Subscripts stay outside the dot (θ̇₁ as θ-dot, then 1).

    Parameters
    ----------
    name : str
        The symbol's name (``theta1``, ``b``, ``x_cart``).
    dot : bool
        A time derivative: a dot over the base symbol.
    prefix : str, optional
        An operator letter in front (``"δ"``).

    Examples
    --------
    >>> from lagdyn.lab.page import symbol_html
    >>> symbol_html("theta1", dot=True).replace('<span class="dot" aria-hidden="true">', "<D>")
    '<span class="sym"><span class="dotted"><i>θ</i><D></span></span><sub>1</sub></span>'
    >>> symbol_html("lc2")
    '<span class="sym"><span>lc</span><sub>2</sub></span>'
    """
    base, supers, subs = split_super_sub(name)
    if not base:
        base, supers, subs = name, [], []

    def shown(text: str) -> str:
        return html.escape(symbol_text(text) if text.isalpha() else text, quote=False)

    b = shown(base)
    core = f"<i>{b}</i>" if len(html.unescape(b)) == 1 else f"<span>{b}</span>"
    if dot:
        core = f'<span class="dotted">{core}<span class="dot" aria-hidden="true"></span></span>'
    if subs:
        core += f"<sub>{','.join(shown(x) for x in subs)}</sub>"
    if supers:
        core += f"<sup>{','.join(shown(x) for x in supers)}</sup>"
    pre = html.escape(prefix, quote=False)
    return f'<span class="sym">{pre}{core}</span>'


def _labels(names: Sequence[str], pnames: Sequence[str]) -> dict[str, list[str]]:
    """Display forms of the coordinates, rates, probe directions and parameters."""
    return {
        "coordinates": [symbol_text(x) for x in names],
        "coordinates_html": [symbol_html(x) for x in names],
        "rates_html": [symbol_html(x, dot=True) for x in names],
        "probe_html": [symbol_html(x, prefix="δ") for x in names],
        "parameters": [symbol_text(x) for x in pnames],
        "parameters_html": [symbol_html(x) for x in pnames],
    }


def _coord_kinds(q: Sequence[Any], points: Sequence[Sequence[Any]]) -> list[str]:
    """``"angle"`` for coordinates inside a sin/cos of the positions, else ``"length"``."""
    trig = [f for p in points for c in p for f in sp.sympify(c).atoms(sp.sin, sp.cos)]
    return ["angle" if any(f.args[0].has(x) for f in trig) else "length" for x in q]


def _initial_state(system: Any, geo: Geometry, kinds: Sequence[str]) -> dict[str, Any]:
    n = system.n
    names = _names(system.q)
    seed = SEED_STATE.get(geo.name, {})
    q = [seed.get(nm, 0.4 if kinds[i] == "angle" else 0.0) for i, nm in enumerate(names)]
    # away from the seed: alternating unit rates and probe directions, so that every panel
    # (velocities, coupling terms, work) shows something
    alternating = [1.0 if i % 2 == 0 else -1.0 for i in range(n)]
    qd = [seed.get(f"v_{nm}", alternating[i]) for i, nm in enumerate(names)]
    dq = [seed.get(f"dq_{nm}", alternating[i]) for i, nm in enumerate(names)]
    return {
        "q": q,
        "qd": qd,
        "dq": dq[:n],
        "F": [seed.get("Fx", 0.0), seed.get("Fy", 0.0)],
        "eps": seed.get("eps", 0.5),
    }


def _apply_state(
    st: dict[str, Any], names: Sequence[str], pnames: Sequence[str], pv: list[float], given: Any
) -> None:
    for key, value in dict(given or {}).items():
        v = float(value)
        k = str(key)
        if k in names:
            st["q"][names.index(k)] = v
        elif k.startswith("v_") and k[2:] in names:
            st["qd"][names.index(k[2:])] = v
        elif k.startswith("dq_") and k[3:] in names:
            st["dq"][names.index(k[3:])] = v
        elif k in ("Fx", "Fy"):
            st["F"][0 if k == "Fx" else 1] = v
        elif k == "eps":
            st["eps"] = v
        elif k in pnames:
            pv[pnames.index(k)] = v
        else:
            raise LagdynError(
                f"lab state: unknown key {k!r}; use coordinate names, v_<name>, dq_<name>, "
                "Fx, Fy, eps or parameter names"
            )


def _conventions(system: Any, conventions: Any) -> list[Convention]:
    if conventions is None:
        return default_conventions(system)
    out = []
    for c in conventions:
        if isinstance(c, Convention):
            out.append(c)
            continue
        try:
            label, new_q, mapping = c
        except (TypeError, ValueError) as exc:
            raise LagdynError(
                "lab conventions: each entry is (label, new_q, mapping) as for change_coordinates"
            ) from exc
        out.append(Convention(str(label), tuple(new_q), dict(mapping)))
    return out


def page(
    system: Any,
    *,
    points: Sequence[Sequence[Any]] | None = None,
    links: Sequence[tuple[int, int]] | None = None,
    masses: Sequence[Any] | None = None,
    conventions: Sequence[Any] | None = None,
    state: Mapping[str, float] | None = None,
    title: str | None = None,
    lang: str = "en",
    label: str | None = None,
) -> str:
    """The generalized-coordinate lab of ``system`` as one self-contained HTML page.

    The page (seed 003, for any planar model) shows the reference, exact and tangent
    configurations, particle velocities, the kinetic energy split into diagonal and
    coupling terms, constraint residuals, position error and finite against virtual
    work over the step size ε, and the table of metrics, eigenvalues, energies,
    generalized forces, power and residuals in every coordinate convention; a "swing"
    mode integrates the dynamics (RK4) with an energy-drift readout. Everything is
    computed in the browser by the JavaScript of :mod:`lagdyn.lab.js` (printed by
    :mod:`lagdyn.codegen.javascript`);
    the page loads nothing from the network. The state lives in the URL fragment
    (``lab.html#a=0&b=1.5708&v_a=1&...``) and every string switches between English and
    Korean. Symbols show as letters (θ₁, not theta1; :func:`symbol_html`), rates with a
    drawn dot over the whole symbol; a typed value the page cannot use (m₂ = −1, letters)
    is marked invalid with a message naming the value still in use.

    Parameters
    ----------
    system : LagrangianSystem
        A planar model that carries a drawing (every planar zoo model does; see
        :func:`lagdyn.geometry.attach`), or any model with ``points``.
    points : sequence of (x, y) expressions, optional
        Particle positions in ``system.q`` (required for models lagdyn does not know).
    links : sequence of (int, int), optional
        Segments between points to draw (``-1``: the fixed pivot at the origin).
    masses : sequence, optional
        Point masses of ``points`` (adds the direct point-energy check).
    conventions : sequence of (label, new_q, mapping), optional
        Other coordinates as for :func:`lagdyn.change_coordinates` (old q in terms of
        new); the first one fills the table's second column. Default: the pendulums'
        relative (or absolute) angles, none for other models.
    state : mapping, optional
        Opening state by fragment key: coordinate names, ``v_<name>`` (rates),
        ``dq_<name>`` (δq), ``Fx``, ``Fy`` (end force), ``eps``, parameter names.
        The double pendulum opens on the seed's reference state.
    title : str, optional
        The page title.
    lang : {"en", "ko"}
        Initial label language.
    label : str, optional
        Model name shown in the header (default: the geometry's label).

    Returns
    -------
    str
        The HTML text.

    Raises
    ------
    LagdynError
        A model without a planar drawing and without ``points``, a bad ``state`` key
        or ``lang``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> text = ld.lab.page(ld.zoo.double_pendulum())
    >>> text.startswith("<!DOCTYPE html>") and "function positions_jacobian" in text
    True
    >>> "http://" in text or "https://" in text
    False
    """
    from .._version import __version__

    if lang not in ("en", "ko"):
        raise LagdynError(f"lab: lang must be 'en' or 'ko', got {lang!r}")
    check_title(title)
    geo = model_geometry(system, points, links=links, masses=masses)
    convs = _conventions(system, conventions)
    sources = page_modules(system, geo, convs)
    kinds = _coord_kinds(system.q, geo.points)
    alt_kinds = [
        _coord_kinds(
            c.new_q, [[sp.sympify(e).xreplace(dict(c.mapping)) for e in p] for p in geo.points]
        )
        for c in convs
    ]
    names = _names(system.q)
    pnames = [s.name for s in system.parameters]
    dflt = {str(k): float(v) for k, v in dict(getattr(system, "defaults", {}) or {}).items()}
    pv = [dflt.get(s, 1.0) for s in pnames]
    st = _initial_state(system, geo, kinds)
    _apply_state(st, names, pnames, pv, state)
    hs = geo.constraints(system.q)
    positive = [s.name for s in system.parameters if s.is_positive]
    nonnegative = [s.name for s in system.parameters if s.is_nonnegative and not s.is_positive]
    config = {
        "n": system.n,
        "coordinates": names,
        "coord_kinds": kinds,
        "parameters": pnames,
        "param_values": pv,
        "positive": positive,
        "nonnegative": nonnegative,
        "labels": _labels(names, pnames),
        "conventions": [
            {
                "label": _primary_label(geo, system.q),
                "i18n": _convention_key(_primary_label(geo, system.q)),
                "module": "lab_m0",
                "kinds": kinds,
            }
        ]
        + [
            {
                "label": c.label,
                "i18n": _convention_key(c.label),
                "module": f"lab_m{k}",
                "kinds": alt_kinds[k - 1],
            }
            for k, c in enumerate(convs, start=1)
        ],
        "n_points": len(geo.points),
        "links": [list(lk) for lk in geo.links],
        "carts": list(geo.carts),
        "n_constraints": len(hs),
        "constraint_units": ["m²" if sp.Poly(h).total_degree() == 2 else "m" for h in hs],
        "has_masses": geo.masses is not None,
        "state": st,
        "swing_dt": SWING_DT,
        "lang": lang,
        "model": label or geo.name,
        "title": title,
        "version": __version__,
    }
    model_label = label or geo.name
    text = resources.files(__package__).joinpath("template.html").read_text(encoding="utf-8")
    js = resources.files(__package__).joinpath("lab.js").read_text(encoding="utf-8")
    replacements = {
        "@TITLE@": html.escape(title or f"lagdyn lab — {model_label}"),
        "@MODEL@": html.escape(model_label),
        "@MODELS@": _script_safe("\n".join(sources)),
        "@CONFIG@": _script_safe(json.dumps(config, ensure_ascii=False)),
        "@LAB_JS@": _script_safe(js),
    }
    # one pass: a title or label holding "@LAB_JS@" stays that text
    return _PLACEHOLDER.sub(lambda m: replacements[m.group(0)], text)


#: The template's placeholders, replaced in one pass.
_PLACEHOLDER = re.compile(r"@(?:TITLE|MODEL|MODELS|CONFIG|LAB_JS)@")


def check_title(title: str | None) -> None:
    """Refuse a page title that a browser would not show as written.

    ``None`` means the default title (``lagdyn lab — MODEL``). Any other text is shown
    literally (escaped in ``<title>``, a JSON string in the script), so it may hold quotes,
    ``</title>``, ``</script>`` or any script; refused are an empty title, control
    characters (a line break, a tab, NUL), lone surrogates, and leading, trailing or
    repeated spaces — the browser strips and collapses whitespace in a title, so the tab
    would not show the text given.

    Raises
    ------
    LagdynError

    Examples
    --------
    >>> from lagdyn.lab.page import check_title
    >>> check_title("</title><script>alert(1)</script> — θ₁")
    >>> check_title("two\\nlines")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: lab: the title 'two\\nlines' holds a control character ...
    """
    if title is None:
        return
    if not isinstance(title, str):
        raise LagdynError(f"lab: the title must be text, got {type(title).__name__}")
    if title.strip(" ") == "":
        raise LagdynError(
            "lab: the title is empty; give some text, or no title for the default "
            "'lagdyn lab — MODEL'"
        )
    shown = repr(title if len(title) <= 60 else title[:57] + "...")
    for ch in title:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Zl", "Zp"):
            raise LagdynError(
                f"lab: the title {shown} holds a control character (U+{ord(ch):04X}); "
                "a page title is one line of text"
            )
        if cat == "Cs":
            raise LagdynError(
                f"lab: the title {shown} holds a lone surrogate (U+{ord(ch):04X}), "
                "which is not text"
            )
    if title != title.strip(" ") or "  " in title:
        raise LagdynError(
            f"lab: the title {shown} has leading, trailing or repeated spaces, which a "
            "browser strips from a page title; write it as it should show"
        )


def _primary_label(geo: Geometry, q: Sequence[Any]) -> str:
    if geo.name.endswith("_relative"):
        return "relative"
    if geo.name in ("double_pendulum", "n_link_pendulum"):
        return "absolute"
    return "q = (" + ", ".join(symbol_text(x) for x in _names(q)) + ")"


def _convention_key(label: str) -> str | None:
    """The page's translation key of lagdyn's own convention labels (None for a user's)."""
    return label if label in ("absolute", "relative") else None


def _script_safe(text: str) -> str:
    """Text safe inside a <script> element (no closing tag, no HTML comment opener)."""
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def write(
    path: str | Path,
    system: Any,
    *,
    force: bool = False,
    **options: Any,
) -> Path:
    """Write :func:`page` of ``system`` to ``path``; never overwrites unless ``force``.

    The page is written whole or not at all (a temporary file beside ``path``, flushed,
    then placed; see :mod:`lagdyn._files`): a full disk leaves no empty page, and nothing
    is written through a symlink.

    Parameters
    ----------
    path : str or Path
        The HTML file to create (missing parent directories are created).
    system : LagrangianSystem
    force : bool
        Overwrite an existing file; a symlink is replaced by the page, its target is never
        written.
    **options
        Passed to :func:`page`.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    LagdynError
        ``path`` exists (a file or a symlink, dangling or not) and ``force`` is false; a
        directory is in the way; an OS error while writing (nothing is left behind); as
        :func:`page`.

    Examples
    --------
    >>> import tempfile, pathlib, lagdyn as ld
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = ld.lab.write(pathlib.Path(tmp) / "lab.html", ld.zoo.double_pendulum())
    ...     out.stat().st_size > 10000
    True
    """
    out = check_new_file(path, force=force)  # before the page is computed
    text = page(system, **options)
    return write_file_atomically(out, text, force=force)
