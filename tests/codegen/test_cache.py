"""Issue 11 item 7 (and the FIFO of item 6): a race-free, private cache.

Entries are published atomically with the manifest last, never deleted while another
process may write them, and the cache directory is 0700 (a group/world-writable one is
refused). Build directories, their locks and sweeping, and whose cache may be trusted:
tests/codegen/test_cache_trust.py.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import logging
import multiprocessing
import os
import stat
import sys

import numpy as np
import pytest

from helpers import cache_worker, tiny_system
from lagdyn.codegen.cache import DiskCache
from lagdyn.numeric import lambdify

needs_c = pytest.mark.skipif(importlib.util.find_spec("cffi") is None, reason="cffi missing")


@needs_c
def test_concurrent_writers_and_readers(tmp_path):
    """The reported race: a reader between .so and manifest deleted the entry and the
    writer died with ImportError (9 runs in 10). Now every process succeeds."""
    ctx = multiprocessing.get_context("spawn")
    # one round of three processes at once: two writers of the C entry and a numpy one
    jobs = [(str(tmp_path), "c")] * 2 + [(str(tmp_path), "numpy")]
    with ctx.Pool(3) as pool:
        # the worker lives in helpers.py: spawned processes import it by name (a function
        # of this test module is not importable there); a timeout turns a lost task into
        # a failure instead of a hang
        results = pool.map_async(cache_worker, jobs).get(timeout=600)
    assert all(r == results[0] for r in results)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert not [n for n in names if n.startswith(".tmp-")]
    assert list((tmp_path / ".build").iterdir()) == []
    assert any(n.endswith(".c.manifest") for n in names)


@needs_c
def test_partial_entry_is_not_deleted(tmp_path):
    """An entry without its manifest may be being written: a reader leaves it alone
    (and publishes its own build over it)."""
    sys_ = tiny_system()
    lambdify(sys_, backend="c", cache_dir=tmp_path)
    (manifest,) = tmp_path.glob("*.c.manifest")
    key = manifest.name[: -len(".c.manifest")]
    so = tmp_path / (key + importlib.machinery.EXTENSION_SUFFIXES[0])
    manifest.unlink()
    so.write_bytes(b"half-written")
    from lagdyn.numeric.backends.compiled import _load_cached

    assert _load_cached(DiskCache(tmp_path), key, "_lagdyn_c_" + key[:24], so.suffix) is None
    assert so.read_bytes() == b"half-written"  # not deleted
    num = lambdify(sys_, backend="c", cache_dir=tmp_path)  # rebuilds and republishes
    assert manifest.exists() and so.read_bytes() != b"half-written"
    np.testing.assert_allclose(num.g([2.0]), [8.0])


def test_cache_directory_is_private(tmp_path):
    cache = tmp_path / "new" / "cache"
    lambdify(tiny_system(), cache_dir=cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_group_writable_cache_refused(tmp_path, caplog):
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o777)
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        num = lambdify(tiny_system(), cache_dir=cache)
    assert "refusing cache directory" in caplog.text
    assert list(cache.iterdir()) == []  # nothing read or written
    np.testing.assert_allclose(num.g([2.0]), [8.0])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_fifo_in_cache_does_not_hang(tmp_path):
    """Item 6: a FIFO at an entry's path made the reader block forever."""
    first = lambdify(tiny_system(), cache_dir=tmp_path)
    (path,) = tmp_path.glob("*.py")
    path.unlink()
    os.mkfifo(path)
    num = lambdify(tiny_system(), cache_dir=tmp_path)  # regenerates; never opens the FIFO
    assert num.source == first.source
