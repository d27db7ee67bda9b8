"""Writing a set of files safely: all or none, no silent overwrite, never through a symlink.

Used by ``lagdyn export`` (and meant for :func:`lagdyn.export.code.export`).

Examples
--------
>>> import tempfile, pathlib
>>> from lagdyn._files import write_files_atomically
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> [p.name for p in write_files_atomically(d, {"a.txt": "1", "b.txt": "2"})]
['a.txt', 'b.txt']
>>> write_files_atomically(d, {"a.txt": "3"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
lagdyn.errors.LagdynError: refusing to overwrite existing file(s) ...a.txt (use --force ...
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .errors import LagdynError

__all__ = ["write_files_atomically"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_files_atomically(
    directory: str | os.PathLike[str], files: Mapping[str, str], *, force: bool = False
) -> list[Path]:
    """Write ``{file name: text}`` into ``directory``: every file or none.

    Each file is first written under a temporary name in the same directory; only when all
    are written are they renamed into place. Existing files are refused unless ``force``;
    a name that is a symlink (or a directory) is always refused, so nothing is written
    through a link into its target. The directory is created when missing; an empty
    directory name is an error (not the current directory).

    Returns
    -------
    list of pathlib.Path
        The files written, sorted by name.

    Raises
    ------
    LagdynError
        Empty directory name, a file name with a path separator, existing files without
        ``force``, symlinks or directories in the way, or an OS error while writing (the
        temporary files are removed).

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> from lagdyn._files import write_files_atomically
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> os.symlink("/etc/passwd", d / "x.c")
    >>> write_files_atomically(d, {"x.c": "int x;"}, force=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: refusing to write through symlink(s) ...x.c
    """
    if str(directory).strip() == "":
        raise LagdynError("the output directory name is empty")
    out = Path(directory)
    bad = [n for n in files if not n or Path(n).name != n or n in (".", "..")]
    if bad:
        raise LagdynError(f"file names must not contain path separators: {', '.join(bad)}")
    if out.exists() and not out.is_dir():
        raise LagdynError(f"{str(out)!r} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LagdynError(f"cannot create the directory {str(out)!r}: {exc}") from exc
    targets = {name: out / name for name in sorted(files)}
    links = [str(p) for p in targets.values() if p.is_symlink()]
    if links:
        raise LagdynError(f"refusing to write through symlink(s) {', '.join(links)}")
    dirs = [str(p) for p in targets.values() if p.is_dir()]
    if dirs:
        raise LagdynError(f"directories are in the way: {', '.join(dirs)}")
    existing = [str(p) for p in targets.values() if p.exists()]
    if existing and not force:
        raise LagdynError(
            f"refusing to overwrite existing file(s) {', '.join(existing)} "
            "(use --force / force=True)"
        )
    mode = 0o666 & ~_umask()
    temps: dict[str, str] = {}
    placed: list[Path] = []
    try:
        for name in targets:
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
            temps[name] = tmp
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(files[name])
            os.chmod(tmp, mode)
        for name, path in targets.items():
            if force:
                os.replace(temps[name], path)  # replaces a link itself, never its target
            else:
                os.link(temps[name], path)  # fails if the name appeared meanwhile
                placed.append(path)
                os.unlink(temps[name])
            del temps[name]
    except OSError as exc:
        for path in placed:  # without force nothing existed before: take back what we placed
            with contextlib.suppress(OSError):
                path.unlink()
        raise LagdynError(f"writing into {str(out)!r} failed: {exc}") from exc
    finally:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return list(targets.values())
