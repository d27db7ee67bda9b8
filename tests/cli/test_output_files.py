"""Every command and public function that writes a user file, through lagdyn._files.

For each writer — ``lagdyn lab --out``, ``ld.lab.write``, ``lagdyn export``,
``ld.export.code.export``, ``lagdyn simulate --csv/--png/--gif``,
``SimulationResult.to_csv``, ``ld.plot.save_figure`` and ``ld.plot.animate`` — a dangling
symlink never creates its target, ``force`` replaces a symlink and never writes through
it, an existing file is refused without ``force``, and a full disk (a file-size limit: the
kernel fails the writes, whoever makes them) leaves neither the file nor a temporary file;
every refusal is a LagdynError naming the path.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import signal
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import lagdyn as ld
import lagdyn._files as files_module
from lagdyn.cli import main
from lagdyn.export.code import export

resource = pytest.importorskip("resource")  # the full disk is a file-size limit (POSIX)
pytest.importorskip("matplotlib")
pytest.importorskip("PIL")

page_module = importlib.import_module("lagdyn.lab.page")  # ld.lab.page is the function
FAKE_PAGE = "<!DOCTYPE html>\n" + "<!-- a lab page -->\n" * 400


@pytest.fixture(scope="module")
def result():
    return ld.simulate(ld.zoo.double_pendulum(), [1.0, 0, 0, 0], np.linspace(0, 0.1, 11))


@pytest.fixture
def fast_lab(monkeypatch):
    """The lab page's text is not what these tests check: skip computing it."""
    monkeypatch.setattr(page_module, "page", lambda system, **options: FAKE_PAGE)


def _cli(argv: list[str]) -> None:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(argv)
    if status != 0:
        raise ld.LagdynError(err.getvalue())


def _simulate(flag: str) -> Callable[[Path, bool], None]:
    def run(path: Path, force: bool) -> None:
        argv = ["simulate", "double_pendulum", "--t", "0.06", "--dt", "0.01", "--fps", "20"]
        _cli([*argv, flag, str(path), *(["--force"] if force else [])])

    return run


def _lab_cli(path: Path, force: bool) -> None:
    _cli(["lab", "double_pendulum", "--out", str(path), *(["--force"] if force else [])])


def _lab_write(path: Path, force: bool) -> None:
    ld.lab.write(path, ld.zoo.double_pendulum(), force=force)


def _export_cli(path: Path, force: bool) -> None:
    argv = ["export", "double_pendulum", "-t", "c", "--name", "dp", "--out", str(path.parent)]
    _cli([*argv, *(["--force"] if force else [])])


def _export_api(path: Path, force: bool) -> None:
    export(ld.zoo.double_pendulum(), "c", path.parent, name="dp", force=force)


#: writer name → (file name it writes, writer(path, force))
WRITERS: dict[str, tuple[str, Callable[..., None]]] = {
    "lab --out": ("page.html", _lab_cli),
    "lab.write": ("page.html", _lab_write),
    "export": ("dp.c", _export_cli),
    "export()": ("dp.c", _export_api),
    "simulate --csv": ("run.csv", _simulate("--csv")),
    "simulate --png": ("run.png", _simulate("--png")),
    "simulate --gif": ("run.gif", _simulate("--gif")),
    "to_csv": ("run.csv", None),  # need the result fixture: see _writer
    "save_figure": ("run.png", None),
    "animate": ("run.gif", None),
}


def _writer(key: str, result) -> tuple[str, Callable[[Path, bool], None]]:
    name, write = WRITERS[key]
    if key == "to_csv":
        return name, lambda p, force: result.to_csv(p, force=force)
    if key == "save_figure":
        return name, lambda p, force: ld.plot.save_figure(
            ld.plot.plot_energy(result), p, force=force, dpi=30
        )
    if key == "animate":
        positions = ld.plot.positions_for("double_pendulum")
        return name, lambda p, force: ld.plot.animate(
            result, positions, p, frames=2, dpi=20, force=force
        )
    return name, write


def _others(directory: Path, keep: str) -> list[str]:
    """Files beside ``keep`` (temporary files, or the other files of an export)."""
    return sorted(p.name for p in directory.iterdir() if p.name != keep)


@pytest.fixture(params=list(WRITERS))
def writer(request, result, fast_lab):
    return _writer(request.param, result)


def test_a_dangling_symlink_never_creates_its_target(writer, tmp_path):
    name, write = writer
    outside, out = tmp_path / "outside", tmp_path / "out"
    outside.mkdir()
    out.mkdir()
    link = out / name
    os.symlink(outside / "planted", link)
    with pytest.raises(ld.LagdynError, match="symlink") as err:
        write(link, False)
    assert str(link) in str(err.value)
    assert link.is_symlink() and _others(out, name) == []
    write(link, True)  # --force replaces the link itself
    assert not link.is_symlink() and link.stat().st_size > 0
    assert list(outside.iterdir()) == []


def test_force_replaces_a_symlink_never_its_target(writer, tmp_path):
    name, write = writer
    mine = tmp_path / "mine.txt"
    mine.write_text("the user's file")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(mine, out / name)
    write(out / name, True)
    assert mine.read_text() == "the user's file"
    assert not (out / name).is_symlink() and (out / name).stat().st_size > 0


def test_an_existing_file_is_refused_without_force(writer, tmp_path):
    name, write = writer
    (tmp_path / name).write_text("keep me")
    with pytest.raises(ld.LagdynError, match="refusing to overwrite") as err:
        write(tmp_path / name, False)
    assert str(tmp_path / name) in str(err.value)
    assert (tmp_path / name).read_text() == "keep me"
    assert _others(tmp_path, name) == []


@pytest.fixture
def full_disk(monkeypatch):
    """From the moment a writer creates its temporary file, no file may grow past 200 bytes.

    A real kernel failure (EFBIG, as ENOSPC on a full disk) for every writer — ours,
    matplotlib's, pillow's, a text stream — while the work before (deriving, simulating,
    cache files) runs unhindered.
    """
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    real = files_module._temporary

    def temporary(*args, **kwargs):
        out = real(*args, **kwargs)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, limits[1]))
        return out

    monkeypatch.setattr(files_module, "_temporary", temporary)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)


def test_a_full_disk_leaves_no_file(writer, tmp_path, full_disk):
    name, write = writer
    with pytest.raises(ld.LagdynError) as err:
        write(tmp_path / name, False)
    assert str(tmp_path) in str(err.value) and "too large" in str(err.value).lower()
    assert list(tmp_path.iterdir()) == []  # no empty or partial file, no temporary file


def test_a_full_disk_keeps_the_old_file_whole(tmp_path, result, full_disk):
    (tmp_path / "run.csv").write_text("the old run")
    with pytest.raises(ld.LagdynError, match=r"run\.csv"):
        result.to_csv(tmp_path / "run.csv", force=True)
    assert [p.name for p in tmp_path.iterdir()] == ["run.csv"]
    assert (tmp_path / "run.csv").read_text() == "the old run"


def test_every_output_is_checked_before_simulating(tmp_path, capsys):
    (tmp_path / "b.png").write_text("keep")
    argv = ["simulate", "double_pendulum", "--t", "0.02", "--csv", str(tmp_path / "a.csv")]
    assert main([*argv, "--png", str(tmp_path / "b.png")]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.png"]  # no a.csv either
    assert main([*argv, "--png", str(tmp_path / "a.csv")]) == 2
    assert "same file" in capsys.readouterr().err
    assert main([*argv, "--png", str(tmp_path / "b.png"), "--force"]) == 0
    assert (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"
