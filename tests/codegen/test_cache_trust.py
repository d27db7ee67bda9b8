"""Issue 22 items 2, 3 and 9 (killed compiles): no trust in someone else's cache, build
directories swept by lock (not by process id), failures that are not the compiler's named
as such, no temporary file left behind.

The ownership tests change owners with ``os.chown`` (uid 65534, ``nobody``), which needs
root; the two-user test forks and drops to uid 65534 in the child. Both are skipped
elsewhere; the permission tests (a parent writable by others, the umask) run everywhere
on POSIX.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import logging
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import tiny_system
from lagdyn.codegen import cache as cache_mod
from lagdyn.codegen.cache import DiskCache, seal, unseal
from lagdyn.errors import BackendUnavailableError, LagdynError
from lagdyn.numeric import lambdify

fcntl = pytest.importorskip("fcntl", reason="POSIX owners and locks")

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER = 65534  # nobody
needs_root = pytest.mark.skipif(not ROOT, reason="changing a file's owner needs root")
needs_c = pytest.mark.skipif(importlib.util.find_spec("cffi") is None, reason="cffi missing")
OLD = time.time() - 2 * cache_mod.STALE_SECONDS  # an mtime older than every sweep age


def plant(private: Path, target: Path, marker: Path) -> Path:
    """A correctly sealed numpy module of ``tiny_system`` (the cache's own seal and key of
    a real generation) in ``target``; running it creates ``marker``."""
    lambdify(tiny_system(), cache_dir=private)
    (genuine,) = private.glob("*.py")
    body = unseal(genuine.read_text(), "#", genuine.stem)
    assert body is not None
    planted = body + f"\nopen({str(marker)!r}, 'w').close()\n"
    target.mkdir(exist_ok=True)
    path = target / genuine.name
    path.write_text(seal(planted, "#"))
    return path


def check_model(num) -> None:
    np.testing.assert_allclose(num.g([2.0]), [8.0])


# ------------------------------------------------------------- whose cache it is
@needs_root
def test_planted_module_in_another_users_cache_does_not_run(tmp_path, caplog):
    """The probe's case: a cache directory of another user, mode 0755, holding a correctly
    sealed module — it was used and the module ran."""
    marker = tmp_path / "pwned"
    theirs = tmp_path / "theirs"
    path = plant(tmp_path / "mine", theirs, marker)
    theirs.chmod(0o755)
    path.chmod(0o644)
    os.chown(theirs, OTHER, OTHER)
    os.chown(path, OTHER, OTHER)
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        num = lambdify(tiny_system(), cache_dir=theirs)
    assert not marker.exists()
    assert f"refusing cache directory {theirs}: it is owned by uid {OTHER}" in caplog.text
    assert sorted(p.name for p in theirs.iterdir()) == [path.name]  # nothing written
    check_model(num)
    # the planted module is a valid entry: in a cache of ours it would run (so the refusal
    # above is what kept it from running)
    os.chown(theirs, 0, 0)
    os.chown(path, 0, 0)
    theirs.chmod(0o700)
    lambdify(tiny_system(), cache_dir=theirs)
    assert marker.exists()


@needs_root
def test_file_of_another_user_in_own_cache_is_not_read(tmp_path, caplog):
    marker = tmp_path / "pwned"
    mine = tmp_path / "cache"
    path = plant(tmp_path / "private", mine, marker)
    mine.chmod(0o700)
    os.chown(path, OTHER, OTHER)
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        num = lambdify(tiny_system(), cache_dir=mine)
    assert not marker.exists()
    assert f"ignoring cache file {path}: it is owned by uid {OTHER}" in caplog.text
    check_model(num)
    assert path.stat().st_uid == 0  # regenerated and published over it


def test_symlinked_cache_file_is_not_followed(tmp_path, caplog):
    """A guard (the reader already refused non-regular files): a link to a sealed module
    elsewhere is not read; it is named in a warning and replaced."""
    marker = tmp_path / "pwned"
    elsewhere = plant(tmp_path / "private", tmp_path / "elsewhere", marker)
    mine = tmp_path / "cache"
    mine.mkdir(mode=0o700)
    link = mine / elsewhere.name
    link.symlink_to(elsewhere)
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        check_model(lambdify(tiny_system(), cache_dir=mine))
    assert not marker.exists()
    assert f"ignoring cache file {link}: it is a symlink" in caplog.text
    assert not link.is_symlink()


@needs_root
def test_cache_under_a_directory_of_another_user_is_refused(tmp_path, caplog):
    """Its owner can rename the cache away and put theirs in its place."""
    alice = tmp_path / "alice"
    alice.mkdir(mode=0o755)
    os.chown(alice, OTHER, OTHER)
    cache = alice / "cache"
    cache.mkdir(mode=0o700)  # ours, 0700: only its parent is wrong
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        check_model(lambdify(tiny_system(), cache_dir=cache))
    assert f"the directory {alice} above it is owned by uid {OTHER}" in caplog.text
    assert list(cache.iterdir()) == []


def test_cache_under_a_directory_writable_by_others_is_refused(tmp_path, caplog):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        check_model(lambdify(tiny_system(), cache_dir=shared / "deep" / "cache"))
    assert (
        f"the directory {shared} above it is writable by group or others and has no "
        "sticky bit" in caplog.text
    )
    assert list(shared.iterdir()) == []  # nothing created under it
    # an existing private cache there is refused too: a planted module does not run
    marker = tmp_path / "pwned"
    path = plant(tmp_path / "private", shared / "cache", marker)
    (shared / "cache").chmod(0o700)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        lambdify(tiny_system(), cache_dir=path.parent)
    assert not marker.exists()
    assert "refusing cache directory" in caplog.text


def test_cache_under_a_symlink_in_a_directory_writable_by_others_is_refused(tmp_path, caplog):
    """The directory holding a symlink on the way is checked, not only the link's target."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    target = tmp_path / "target"
    target.mkdir(mode=0o700)
    (shared / "link").symlink_to(target)
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        lambdify(tiny_system(), cache_dir=shared / "link" / "cache")
    assert f"the directory {shared} above it is writable by group or others" in caplog.text
    assert list(target.iterdir()) == []


def test_sticky_directory_writable_by_others_is_fine(tmp_path):
    """A guard against over-refusing: /tmp-like parents (sticky) are allowed."""
    public = tmp_path / "public"
    public.mkdir()
    public.chmod(0o1777)
    cache = public / "cache"
    check_model(lambdify(tiny_system(), cache_dir=cache))
    assert [p.suffix for p in cache.iterdir() if p.is_file()] == [".py"]


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_missing_directories_are_created_0700_whatever_the_umask(tmp_path, umask):
    existing = tmp_path / "a"
    existing.mkdir()
    existing.chmod(0o755)
    cache = existing / "b" / "c" / "cache"
    old = os.umask(umask)
    try:
        check_model(lambdify(tiny_system(), cache_dir=cache))
    finally:
        os.umask(old)
    modes = {
        p.name: stat.S_IMODE(p.stat().st_mode)
        for p in (existing, existing / "b", existing / "b" / "c", cache)
    }
    assert modes == {"a": 0o755, "b": 0o700, "c": 0o700, "cache": 0o700}  # "a" untouched
    assert any(cache.glob("*.py"))


@needs_root
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_two_users_a_planted_module_of_root_does_not_run_for_nobody(tmp_path):
    """Two real users: root plants a sealed module in a cache directory (0755) that it
    owns; a process of uid 65534 given that directory must not run it — and does when the
    directory is its own (so the module is a valid entry)."""
    # uid 65534 cannot enter pytest's 0700 tmp_path: a world-traversable directory in /tmp
    base = Path(tempfile.mkdtemp(prefix="lagdyn-two-users-"))
    try:
        base.chmod(0o755)
        out = base / "out"
        out.mkdir()
        out.chmod(0o777)
        marker = out / "pwned"
        path = plant(tmp_path / "private", base / "cache", marker)
        path.chmod(0o644)
        (base / "cache").chmod(0o755)

        def as_nobody() -> int:
            pid = os.fork()
            if pid == 0:  # child: drop to nobody, lambdify with root's cache, report
                code = 1
                try:
                    os.setgid(OTHER)
                    os.setuid(OTHER)
                except OSError:
                    os._exit(77)
                try:
                    logging.disable(logging.CRITICAL)
                    num = lambdify(tiny_system(), cache_dir=base / "cache")
                    code = 0 if float(num.g([2.0])[0]) == 8.0 else 2
                finally:
                    os._exit(code)
            deadline = time.time() + 120
            while time.time() < deadline:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    return os.waitstatus_to_exitcode(status)
                time.sleep(0.02)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError("the child running as nobody hung")

        code = as_nobody()
        if code == 77:
            pytest.skip("cannot switch to uid 65534 here")
        assert code == 0
        assert not marker.exists()
        os.chown(base / "cache", OTHER, OTHER)
        os.chown(path, OTHER, OTHER)
        assert as_nobody() == 0
        assert marker.exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------- build directories
def make_build(root: Path, name: str, *, lock: bool = True, age: float | None = None) -> Path:
    d = root / name
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "x.o").write_bytes(b"junk")
    if lock:
        (d / ".lock").touch()
    if age is not None:
        os.utime(d, (time.time() - age, time.time() - age))
    return d


def hold_lock(path: Path) -> subprocess.Popen:
    """Another process holding ``flock`` on ``path`` until its stdin closes."""
    code = textwrap.dedent(
        f"""
        import fcntl, os, sys
        fd = os.open({str(path)!r}, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("locked", flush=True)
        sys.stdin.read()
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
    return proc


def test_sweep_keeps_a_build_whose_lock_is_held(tmp_path):
    """The probe's case: a compile of another container (its process id means nothing
    here) lost its build directory. A directory whose lock is held is kept, however old;
    one whose lock is free is removed."""
    root = tmp_path / ".build"
    tmp_path.chmod(0o700)
    busy = make_build(root, "lagdyn-build-0123456789abcdef")
    dead = make_build(root, "lagdyn-build-fedcba9876543210")
    proc = hold_lock(busy / ".lock")
    try:
        os.utime(busy, (OLD, OLD))
        with DiskCache(tmp_path).build_dir() as mine:
            assert busy.exists()
            assert not dead.exists()
            assert mine.parent == root and mine.name.startswith("lagdyn-build-")
        assert sorted(p.name for p in root.iterdir()) == [busy.name]
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)
    with DiskCache(tmp_path).build_dir():  # its process has ended: swept now
        pass
    assert list(root.iterdir()) == []


def test_build_directory_is_locked_for_its_lifetime(tmp_path):
    """A second sweep during a build (a concurrent compile) leaves it alone."""
    tmp_path.chmod(0o700)
    with DiskCache(tmp_path).build_dir() as outer:
        fd = os.open(outer / ".lock", os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        with DiskCache(tmp_path).build_dir() as inner:
            assert inner != outer and outer.is_dir()
        assert outer.is_dir() and not inner.exists()
    assert not outer.exists()


def test_sweep_rules_for_unlocked_directories(tmp_path):
    """A pending directory (not yet renamed, its lock maybe not yet taken) and one of an
    older lagdyn (no lock) are swept by age only."""
    tmp_path.chmod(0o700)
    root = tmp_path / ".build"
    young_pending = make_build(root, ".lagdyn-new-young", lock=False)
    old_pending = make_build(
        root, ".lagdyn-new-old", lock=False, age=cache_mod.MIN_AGE_SECONDS + 60
    )
    young_legacy = make_build(root, "999999999-abc", lock=False)
    old_legacy = make_build(root, "999999998-abc", lock=False, age=cache_mod.STALE_SECONDS + 60)
    with DiskCache(tmp_path).build_dir():
        pass
    assert young_pending.exists() and young_legacy.exists()
    assert not old_pending.exists() and not old_legacy.exists()


@needs_c
def test_killed_compile_leaves_nothing_after_the_next_compile(tmp_path):
    """A compile killed by SIGKILL mid-compile leaves its build directory; the next
    compile sweeps it, and no ``.tmp-`` file stays in the cache."""
    tmp_path.chmod(0o700)
    cache = tmp_path / "cache"
    code = textwrap.dedent(
        f"""
        import lagdyn as ld
        from lagdyn.numeric import lambdify
        x = ld.coordinates("x")[0]
        (xd,) = ld.velocities([x])
        sys_ = ld.LagrangianSystem(xd**2 / 2 - x**6 / 6 + x**3 / 7, [x])
        lambdify(sys_, backend="c", cache_dir={str(cache)!r})
        """
    )
    # its own process group: the kill takes the compiler processes with it (else a compiler
    # outliving its parent may still write into the directory being swept)
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            # the C source is in the build directory: the compiler is about to run
            if any(cache.glob(".build/lagdyn-build-*/*.c")):
                break
            time.sleep(0.005)
        assert proc.poll() is None, "the compile finished before it could be killed"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert [p.name[:13] for p in (cache / ".build").iterdir()] == ["lagdyn-build-"]
    check_model(lambdify(tiny_system(), backend="c", cache_dir=cache))
    assert list((cache / ".build").iterdir()) == []
    assert not [p.name for p in cache.iterdir() if p.name.startswith(".tmp-")]


def test_stale_temporary_files_are_swept(tmp_path):
    """A writer killed between its temporary file and the rename leaves ``.tmp-XXXXXXXX``;
    old ones of this scheme are removed by the next store, nothing else."""
    tmp_path.chmod(0o700)
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    age = cache_mod.MIN_AGE_SECONDS + 60
    old = cache / ".tmp-abcd1234"
    young = cache / ".tmp-efgh5678"
    other = cache / ".tmp-notours.txt"
    link = cache / ".tmp-link_567"
    for p in (old, young, other):
        p.write_bytes(b"partial")
    link.symlink_to(other)
    for p in (old, other):
        os.utime(p, (time.time() - age, time.time() - age))
    os.utime(link, (time.time() - age, time.time() - age), follow_symlinks=False)
    check_model(lambdify(tiny_system(), cache_dir=cache))  # a miss: stores, so sweeps
    names = sorted(p.name for p in cache.iterdir() if p.name.startswith(".tmp-"))
    assert names == sorted([link.name, young.name, other.name])


# ------------------------------------------------------------- whose failure it is
def fresh_system():
    """A model no other test compiles (a guaranteed cache miss in a new directory)."""
    import lagdyn as ld

    x = ld.coordinates("x")[0]
    (xd,) = ld.velocities([x])
    return ld.LagrangianSystem(xd**2 / 2 - x**4 / 4 + x**3 / 5, [x])


@needs_c
def test_full_disk_is_not_blamed_on_the_compiler(tmp_path, monkeypatch):
    import cffi.recompiler

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", "_lagdyn_c_x.c")

    monkeypatch.setattr(cffi.recompiler, "make_c_source", full)
    with pytest.raises(LagdynError, match="no space left on the disk of the build") as info:
        lambdify(fresh_system(), backend="c", cache_dir=tmp_path)
    assert not isinstance(info.value, BackendUnavailableError)
    assert "C compiler installed" not in str(info.value)
    assert list((tmp_path / ".build").iterdir()) == []


@needs_c
def test_build_directory_removed_mid_build_is_named(tmp_path, monkeypatch):
    import cffi.ffiplatform

    real = cffi.ffiplatform.compile

    def swept_then_compile(tmpdir, *args, **kwargs):
        shutil.rmtree(os.getcwd())  # cffi compiles in the build directory
        return real(tmpdir, *args, **kwargs)

    monkeypatch.setattr(cffi.ffiplatform, "compile", swept_then_compile)
    with pytest.raises(LagdynError, match="disappeared during the compile") as info:
        lambdify(fresh_system(), backend="c", cache_dir=tmp_path)
    assert not isinstance(info.value, BackendUnavailableError)


@needs_c
@pytest.mark.parametrize("free", [10_000, 10 * 2**30])
def test_compiler_failure_on_a_nearly_full_disk(tmp_path, monkeypatch, free):
    """The compiler's own message is not captured: a failure with almost no free space is
    reported as the disk's; with space left, the compiler is named."""
    import cffi
    import cffi.ffiplatform

    def fails(*args, **kwargs):
        raise cffi.VerificationError("CompileError: command '/usr/bin/gcc' failed")

    real_usage = shutil.disk_usage
    monkeypatch.setattr(cffi.ffiplatform, "compile", fails)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: real_usage(p)._replace(free=free))
    with pytest.raises(LagdynError) as info:
        lambdify(fresh_system(), backend="c", cache_dir=tmp_path)
    if free < 2**20:
        assert not isinstance(info.value, BackendUnavailableError)
        assert "only 10000 bytes free" in str(info.value)
    else:
        assert isinstance(info.value, BackendUnavailableError)
        assert "is a C compiler installed?" in str(info.value)
