"""``lagdyn derive --html``: a page that renders offline (MathML, nothing loaded; issue 21
item 12)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

import lagdyn as ld
from lagdyn.cli import main
from lagdyn.export import markdown
from lagdyn.export.latex import ITEMS, build_document

#: A resource load: src=, href=, url(...), @import of anything with a scheme or a host.
_LOAD = re.compile(r"""(?:src|href)\s*=|url\(|@import|<script|<link""", re.I)


def _assert_offline(page: str) -> None:
    assert "http://" not in page and "https://" not in page
    assert not _LOAD.search(page), _LOAD.search(page)
    assert "$$" not in page  # no TeX left for a script to render


def test_cli_html_page_loads_nothing_and_holds_mathml(capsys):
    assert main(["derive", "double_pendulum", "--html"]) == 0
    page = capsys.readouterr().out
    _assert_offline(page)
    assert page.count('<math display="block">') == 4  # M, C, g, the equations
    body = page[page.index("<body>") : page.index("</body>") + len("</body>")]
    ET.fromstring(body)  # well-formed markup


def test_every_option_renders_offline():
    page = markdown(
        ld.zoo.two_link_planar(), what=ITEMS, group_parameters=True, trig="short", html=True
    )
    _assert_offline(page)
    assert '<mover accent="true"><mi>q</mi><mo>˙</mo></mover>' in page  # q̇ as MathML


@pytest.mark.parametrize(
    "name", ["double_pendulum", "cart_pole", "furuta_pendulum", "spherical_pendulum"]
)
def test_every_macro_the_latex_printer_uses_has_mathml(name):
    from lagdyn.export.mathml import translate

    system = ld.zoo.get(name)
    for grouped in (False, True):
        for trig in ("full", "short"):
            doc = build_document(system, what=ITEMS, group_parameters=grouped, trig=trig)
            for tex in [b.tex for b in doc.blocks] + [doc.coordinates, doc.parameters]:
                result = translate(tex)
                assert result.unknown == [], (name, tex)
                ET.fromstring(result.mathml)


def test_help_documents_the_html_flag(capsys):
    with pytest.raises(SystemExit):
        main(["derive", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--html" in text and "MathML" in text and "offline" in text
