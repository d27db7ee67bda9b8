"""lagdyn._files: all files or none, never through a symlink, never over a user's file.

The writers of every command and public function are checked path by path in
tests/cli/test_output_files.py; here the writer itself.
"""

from __future__ import annotations

import errno
import os
import stat

import pytest

import lagdyn as ld
from lagdyn._files import (
    atomic_path,
    check_new_file,
    write_file_atomically,
    write_files_atomically,
)
from lagdyn.cli import main


def _listing(path):
    return sorted(p.name for p in path.iterdir())


@pytest.fixture
def disk_full_after(monkeypatch):
    """Make ``os.write`` accept ``n`` more bytes, then fail with ENOSPC (a full disk)."""

    real = os.write

    def arm(n: int) -> None:
        left = [n]

        def write(fd, data):
            if left[0] <= 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            done = real(fd, bytes(data[: left[0]]))
            left[0] -= done
            return done

        monkeypatch.setattr(os, "write", write)

    return arm


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


def test_export_never_writes_through_a_symlink(tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(victim, out / "double_pendulum_M.m")
    argv = ["export", "double_pendulum", "-t", "matlab", "--out", str(out)]
    assert main(argv) == 2
    assert "symlink" in capsys.readouterr().err
    assert _listing(out) == ["double_pendulum_M.m"]  # nothing else
    # --force replaces the link itself: the file it pointed to is untouched
    assert main([*argv, "--force"]) == 0
    assert victim.read_text() == "keep"
    assert not (out / "double_pendulum_M.m").is_symlink()
    assert (out / "double_pendulum_M.m").read_text().startswith("function out = ")


def test_export_empty_directory_is_an_error(capsys):
    assert main(["export", "double_pendulum", "-t", "c", "--out", ""]) == 2
    assert "empty" in capsys.readouterr().err


def test_write_files_all_or_none(tmp_path):
    (tmp_path / "b.txt").write_text("old")
    with pytest.raises(ld.LagdynError):
        write_files_atomically(tmp_path, {"a.txt": "1", "b.txt": "2"})
    assert _listing(tmp_path) == ["b.txt"]  # no a.txt, no temp files


def test_text_and_bytes_are_written_exactly_with_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        a = write_file_atomically(tmp_path / "a.txt", "θ₁\r\nx")
        b = write_file_atomically(tmp_path / "sub" / "b.bin", b"\x00\xff")
    finally:
        os.umask(old)
    assert a.read_bytes() == "θ₁\r\nx".encode()
    assert b.read_bytes() == b"\x00\xff"
    assert stat.S_IMODE(a.stat().st_mode) == 0o640 == stat.S_IMODE(b.stat().st_mode)
    assert _listing(tmp_path) == ["a.txt", "sub"]


def test_a_dangling_symlink_never_creates_its_target(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside / "planted.txt", out / "x.txt")
    with pytest.raises(ld.LagdynError, match=r"symlink.*x\.txt"):
        write_file_atomically(out / "x.txt", "data")
    with pytest.raises(ld.LagdynError, match=r"symlink.*x\.txt"):
        write_files_atomically(out, {"x.txt": "data"})
    assert _listing(outside) == [] and (out / "x.txt").is_symlink()
    write_file_atomically(out / "x.txt", "data", force=True)  # replaces the link
    assert _listing(outside) == []
    assert not (out / "x.txt").is_symlink() and (out / "x.txt").read_text() == "data"


def test_force_replaces_a_symlink_not_its_target(tmp_path):
    mine = tmp_path / "mine.txt"
    mine.write_text("keep")
    for k, write in enumerate(
        [
            lambda p: write_file_atomically(p, "new", force=True),
            lambda p: write_files_atomically(p.parent, {p.name: "new"}, force=True),
        ]
    ):
        link = tmp_path / f"link{k}.txt"
        os.symlink(mine, link)
        write(link)
        assert mine.read_text() == "keep"
        assert not link.is_symlink() and link.read_text() == "new"


def test_existing_files_and_directories_in_the_way(tmp_path):
    (tmp_path / "f.txt").write_text("mine")
    (tmp_path / "d").mkdir()
    with pytest.raises(ld.LagdynError, match=r"refusing to overwrite .*f\.txt: exists"):
        write_file_atomically(tmp_path / "f.txt", "new")
    assert (tmp_path / "f.txt").read_text() == "mine"
    with pytest.raises(ld.LagdynError, match="directories are in the way"):
        write_file_atomically(tmp_path / "d", "new", force=True)
    with pytest.raises(ld.LagdynError, match="does not exist"):
        write_file_atomically(tmp_path / "none" / "x.txt", "new", parents=False)
    with pytest.raises(ld.LagdynError, match=r"(?i)f\.txt.*not a directory"):
        write_file_atomically(tmp_path / "f.txt" / "x.txt", "new")
    with pytest.raises(ld.LagdynError, match="empty"):
        check_new_file(" ")
    with pytest.raises(ld.LagdynError, match="not valid Unicode"):
        write_file_atomically(tmp_path / "s.txt", "\ud800")
    assert _listing(tmp_path) == ["d", "f.txt"]


def test_a_full_disk_leaves_nothing(tmp_path, disk_full_after):
    (tmp_path / "old.txt").write_text("old")
    disk_full_after(10)
    with pytest.raises(ld.LagdynError, match=r"cannot write .*new\.txt.*No space left"):
        write_file_atomically(tmp_path / "new.txt", "x" * 100)
    # with force, the old file stays whole
    disk_full_after(10)
    with pytest.raises(ld.LagdynError, match=r"cannot write .*old\.txt.*No space left"):
        write_file_atomically(tmp_path / "old.txt", "x" * 100, force=True)
    disk_full_after(10)
    with pytest.raises(ld.LagdynError, match=r"b\.txt.*No space left.*none written"):
        write_files_atomically(tmp_path, {"a.txt": "a", "b.txt": "b" * 100})
    assert _listing(tmp_path) == ["old.txt"] and (tmp_path / "old.txt").read_text() == "old"


def test_a_file_appearing_while_writing_is_not_overwritten(tmp_path, monkeypatch):
    real = os.link

    def link(src, dst):  # another process creates the name just before we place ours
        with open(dst, "w") as fh:
            fh.write("theirs")
        return real(src, dst)

    monkeypatch.setattr(os, "link", link)
    with pytest.raises(ld.LagdynError, match="appeared while writing"):
        write_file_atomically(tmp_path / "x.txt", "ours")
    assert _listing(tmp_path) == ["x.txt"] and (tmp_path / "x.txt").read_text() == "theirs"


def test_without_hard_links_the_name_is_claimed_exclusively(tmp_path, monkeypatch):
    def link(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", link)
    assert write_file_atomically(tmp_path / "x.txt", "ours").read_text() == "ours"
    with pytest.raises(ld.LagdynError, match="refusing to overwrite"):
        write_file_atomically(tmp_path / "x.txt", "again")
    assert _listing(tmp_path) == ["x.txt"] and (tmp_path / "x.txt").read_text() == "ours"


def test_atomic_path_removes_its_temporary_file_on_failure(tmp_path):
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "a.png") as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("the renderer failed")
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    with (
        pytest.raises(ld.LagdynError, match=r"cannot write .*b\.png.*No space left"),
        atomic_path(tmp_path / "b.png"),
    ):
        raise full
    assert _listing(tmp_path) == []
    with atomic_path(tmp_path / "c.png") as tmp:
        assert tmp.suffix == ".png" and tmp.parent == tmp_path and tmp.exists()
        tmp.write_bytes(b"png")
    assert _listing(tmp_path) == ["c.png"] and (tmp_path / "c.png").read_bytes() == b"png"


def test_a_nul_in_an_output_name_is_named(tmp_path):
    """The probe: a NUL in the path raised a raw ``ValueError: embedded null byte``."""
    from lagdyn._files import atomic_path, write_file_atomically, write_files_atomically
    from lagdyn.errors import LagdynError

    with pytest.raises(LagdynError, match="holds a NUL character"):
        write_file_atomically(tmp_path / "a\x00b.txt", "x")
    with pytest.raises(LagdynError, match="holds a NUL character"):
        write_files_atomically(tmp_path / "d\x00", {"a.txt": "x"})
    with pytest.raises(LagdynError, match="holds a NUL character"):
        write_files_atomically(tmp_path, {"a\x00.txt": "x"})
    with (
        pytest.raises(LagdynError, match="holds a NUL character"),
        atomic_path(str(tmp_path) + "/x\x00.csv"),
    ):
        pass
    assert list(tmp_path.iterdir()) == []
