"""lagdyn._files: all files or none, never through a symlink, never over a user's file."""

from __future__ import annotations

import os

import pytest

import lagdyn as ld
from lagdyn._files import write_files_atomically
from lagdyn.cli import main


def test_export_refuses_existing_files_unless_force(tmp_path, capsys):
    argv = ["export", "double_pendulum", "-t", "matlab", "--out", str(tmp_path)]
    assert main(argv) == 0
    target = tmp_path / "double_pendulum_M.m"
    target.write_text("mine")
    assert main(argv) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert target.read_text() == "mine"
    assert main([*argv, "--force"]) == 0
    assert target.read_text() != "mine"


def test_export_never_writes_through_a_symlink(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "double_pendulum_M.m")
    argv = ["export", "double_pendulum", "-t", "matlab", "--out", str(out), "--force"]
    assert main(argv) == 2
    assert victim.read_text() == "keep"
    assert sorted(p.name for p in out.iterdir()) == ["double_pendulum_M.m"]  # nothing else


def test_export_empty_directory_is_an_error(capsys):
    assert main(["export", "double_pendulum", "-t", "c", "--out", ""]) == 2
    assert "empty" in capsys.readouterr().err


def test_write_files_all_or_none(tmp_path):
    (tmp_path / "b.txt").write_text("old")
    with pytest.raises(ld.LagdynError):
        write_files_atomically(tmp_path, {"a.txt": "1", "b.txt": "2"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]  # no a.txt, no temp files
