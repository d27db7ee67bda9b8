"""MkDocs hooks: the lab pages of the docs are generated at build time (never stored).

``docs/lab.md`` links to ``lab-pages/double_pendulum.html`` and ``lab-pages/cart_pole.html``;
:func:`on_files` adds them to the build as generated files from :func:`lagdyn.lab.page`.
"""

from __future__ import annotations

from typing import Any

#: generated page (under lab-pages/) → zoo model
LAB_PAGES = {"double_pendulum": "double_pendulum", "cart_pole": "cart_pole"}


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    import lagdyn as ld

    for page_name, model in LAB_PAGES.items():
        text = ld.lab.page(ld.zoo.get(model), label=model)
        files.append(File.generated(config, f"lab-pages/{page_name}.html", content=text))
    return files
