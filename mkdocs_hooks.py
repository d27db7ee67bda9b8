"""MkDocs hooks: generated lab pages, and a check that generated docs match their scripts.

Lab pages
    ``docs/lab.md`` links to ``lab-pages/double_pendulum.html`` and ``lab-pages/cart_pole.html``;
    :func:`on_files` adds them to the build as generated files from :func:`lagdyn.lab.page`
    (never stored).

Gallery images and example output
    The images of ``docs/gallery.md`` and the UR5 identification output included by
    ``docs/identification.md`` are produced by the scripts in ``examples/`` (rendering them
    on every build would take minutes). ``python mkdocs_hooks.py --regenerate`` runs each
    script listed in :data:`GENERATED` into ``docs/assets/`` and records, in
    ``docs/assets/generated.json``, the SHA-256 of the script (and of ``lagdyn/plot.py``,
    which draws the figures) and of every output. :func:`stale_outputs` compares that record
    with the files: a script or ``plot.py`` edited without regenerating, or an output edited
    by hand, is reported by the build (a warning, so ``mkdocs build --strict`` fails) and by
    ``tests/test_docs.py``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
ASSETS = ROOT / "docs" / "assets"
MANIFEST = ASSETS / "generated.json"
PLOT = ROOT / "src" / "lagdyn" / "plot.py"

#: generated page (under lab-pages/) → zoo model
LAB_PAGES = {"double_pendulum": "double_pendulum", "cart_pole": "cart_pole"}

#: script → the files it writes under docs/assets/; ``output/*.txt`` is the script's stdout,
#: images are written into the folder given as the script's first argument
GENERATED: dict[str, list[str]] = {
    "examples/gallery_double_pendulum.py": [
        "gallery/double_pendulum.png",
        "gallery/double_pendulum.gif",
    ],
    "examples/gallery_n_link.py": ["gallery/n_link.png", "gallery/n_link.gif"],
    "examples/gallery_energy.py": ["gallery/energy.png"],
    "examples/gallery_chaos.py": ["gallery/chaos.png"],
    "examples/gallery_phase.py": ["gallery/phase.png", "gallery/timeseries.png"],
    "examples/casadi_swingup.py": ["gallery/casadi_swingup.png", "gallery/casadi_swingup.gif"],
    "examples/lqr_cart_pole.py": ["gallery/lqr_cart_pole.png"],
    "examples/lqr_acrobot.py": ["gallery/lqr_acrobot.png"],
    "examples/identify_ur5.py": ["output/identify_ur5.txt"],
}

log = logging.getLogger("mkdocs.hooks.generated")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sources(script: str, outputs: list[str]) -> dict[str, str]:
    """The hashes an output depends on: its script, and plot.py for figures."""
    sources = {script: _sha(ROOT / script)}
    if any(not name.endswith(".txt") for name in outputs):
        sources["src/lagdyn/plot.py"] = _sha(PLOT)
    return sources


def stale_outputs() -> list[str]:
    """What differs between docs/assets and the scripts that make it (empty: all current)."""
    fix = "; run `python mkdocs_hooks.py --regenerate`"
    if not MANIFEST.exists():
        return [f"{MANIFEST.relative_to(ROOT)} is missing{fix}"]
    record = json.loads(MANIFEST.read_text(encoding="utf-8"))
    problems = []
    for script, outputs in GENERATED.items():
        entry = record.get(script)
        if entry is None:
            problems.append(f"{script}: its outputs were never generated{fix}")
            continue
        for source, digest in _sources(script, outputs).items():
            if entry["sources"].get(source) != digest:
                problems.append(f"{script}: made before the last change of {source}{fix}")
        for name in outputs:
            path = ASSETS / name
            if not path.exists():
                problems.append(f"docs/assets/{name} ({script}) is missing{fix}")
            elif entry["outputs"].get(name) != _sha(path):
                problems.append(f"docs/assets/{name} is not what {script} wrote{fix}")
    return problems


def regenerate(scripts: list[str] | None = None) -> None:
    """Run the scripts (all of :data:`GENERATED` by default) and update the manifest."""
    record = json.loads(MANIFEST.read_text(encoding="utf-8")) if MANIFEST.exists() else {}
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("LAGDYN_FAST", None)  # the docs show the full-quality runs
    for script in scripts or list(GENERATED):
        outputs = GENERATED[script]
        folders = {name.split("/")[0] for name in outputs if not name.endswith(".txt")}
        outdir = ASSETS / (folders.pop() if folders else "output")
        outdir.mkdir(parents=True, exist_ok=True)
        print(f"running {script}", flush=True)
        proc = subprocess.run(
            [sys.executable, str(ROOT / script), str(outdir)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        for name in outputs:
            if name.endswith(".txt"):
                (ASSETS / name).parent.mkdir(parents=True, exist_ok=True)
                (ASSETS / name).write_text(proc.stdout, encoding="utf-8")
        record[script] = {
            "sources": _sources(script, outputs),
            "outputs": {name: _sha(ASSETS / name) for name in outputs},
        }
    record = {k: record[k] for k in GENERATED if k in record}
    MANIFEST.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def on_pre_build(config: Any) -> None:
    for problem in stale_outputs():
        log.warning(problem)


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    import lagdyn as ld

    manifest = files.get_file_from_path("assets/generated.json")
    if manifest is not None:
        files.remove(manifest)
    for page_name, model in LAB_PAGES.items():
        text = ld.lab.page(ld.zoo.get(model), label=model)
        files.append(File.generated(config, f"lab-pages/{page_name}.html", content=text))
    return files


if __name__ == "__main__":
    if sys.argv[1:2] == ["--regenerate"]:
        regenerate(sys.argv[2:] or None)
    elif sys.argv[1:2] == ["--check"]:
        stale = stale_outputs()
        print("\n".join(stale) or "docs/assets is current")
        sys.exit(1 if stale else 0)
    else:
        print("usage: python mkdocs_hooks.py --regenerate [examples/x.py ...] | --check")
        sys.exit(2)
