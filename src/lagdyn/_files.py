"""The one writer of user files: all or none, no silent overwrite, never through a symlink.

Every command and public function that writes a file the user named goes through here:
``lagdyn export`` and :func:`lagdyn.export.code.export` (:func:`write_files_atomically`),
``lagdyn lab`` and :func:`lagdyn.lab.write` (:func:`write_file_atomically`),
``lagdyn simulate --csv/--png/--gif/--mp4``, :meth:`SimulationResult.to_csv
<lagdyn.simulation.result.SimulationResult.to_csv>`, :func:`lagdyn.plot.save_figure` and
:func:`lagdyn.plot.animate` (:func:`atomic_path`, for writers that need a file name).

The rules, for every file:

* the content goes to a private temporary file in the target's directory, is flushed to
  disk (``fsync``) and only then placed under its name — with ``link`` when nothing may be
  replaced (which fails if the name appeared meanwhile), with ``rename`` when ``force``
  allows it; a failure on the way (a full disk, a killed writer) leaves the old state:
  no empty or half-written file, no temporary file;
* an existing name — a file, or a symlink, dangling or not — is refused unless ``force``;
  with ``force`` a symlink is replaced by the new file, its target is never touched, and a
  dangling link never creates its target;
* a directory in the way is refused, ``force`` or not; missing parent directories are
  created (``parents=False`` refuses them instead);
* every failure is a :class:`~lagdyn.errors.LagdynError` naming the path.

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
lagdyn.errors.LagdynError: refusing to overwrite ...a.txt: exists already (use --force ...
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from .errors import LagdynError

__all__ = [
    "atomic_path",
    "check_new_file",
    "write_file_atomically",
    "write_files_atomically",
]

#: ``link`` errors that mean "this file system has no hard links" (then the name is claimed
#: with ``O_EXCL`` and the temporary file renamed over the claim).
_NO_HARD_LINKS = {
    errno.EPERM,
    errno.EACCES,
    errno.EXDEV,
    errno.EMLINK,
    errno.ENOSYS,
    getattr(errno, "ENOTSUP", errno.EOPNOTSUPP),
    errno.EOPNOTSUPP,
}


#: Never follow a symlink when opening (0 where the platform has no such flag).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _no_nul(path: str | os.PathLike[str], what: str) -> None:
    """Refuse a name holding a NUL character (no file system can store it)."""
    text = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    if "\x00" in text:
        raise LagdynError(f"the output {what} name {text!r} holds a NUL character")


def _directory(path: Path, *, parents: bool) -> Path:
    """The existing (or, with ``parents``, created) directory of a target."""
    out = path.parent
    if out.exists() and not out.is_dir():
        raise LagdynError(f"cannot write {str(path)!r}: {str(out)!r} is not a directory")
    if out.is_dir():
        return out
    if not parents:
        raise LagdynError(f"cannot write {str(path)!r}: the directory {str(out)!r} does not exist")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LagdynError(f"cannot create the directory {str(out)!r}: {_reason(exc)}") from exc
    return out


def _in_the_way(paths: list[Path], *, force: bool) -> None:
    """Refuse directories always, and existing names (files, links) unless ``force``."""
    dirs, links, existing = [], [], []
    for p in paths:
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise LagdynError(f"cannot write {str(p)!r}: {_reason(exc)}") from exc
        if stat.S_ISDIR(st.st_mode):
            dirs.append(str(p))
        elif stat.S_ISLNK(st.st_mode):
            links.append(str(p))
        else:
            existing.append(str(p))
    if dirs:
        raise LagdynError(f"directories are in the way: {', '.join(dirs)}")
    if force:
        return
    if links:
        raise LagdynError(
            f"refusing to write through the symlink(s) {', '.join(links)} (use --force / "
            "force=True to replace the link itself; its target is never written)"
        )
    if existing:
        verb = "exists" if len(existing) == 1 else "exist"
        raise LagdynError(
            f"refusing to overwrite {', '.join(existing)}: {verb} already "
            "(use --force / force=True)"
        )


def check_new_file(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Check an output file name before any (slow) work: what the writer would refuse.

    An empty name, a directory in the way and (without ``force``) an existing file or
    symlink are refused now; the writers check again when they place the file.

    Raises
    ------
    LagdynError

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from lagdyn._files import check_new_file
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> check_new_file(d / "new.csv").name
    'new.csv'
    >>> check_new_file(d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: directories are in the way: ...
    """
    if str(path).strip() == "":
        raise LagdynError("the output file name is empty")
    _no_nul(path, "file")
    target = Path(path)
    _in_the_way([target], force=force)
    return target


def _encode(data: str | bytes, path: Path) -> bytes:
    if isinstance(data, bytes):
        return data
    try:
        return data.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise LagdynError(
            f"cannot write {str(path)!r}: the text is not valid Unicode ({exc})"
        ) from exc


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        done = os.write(fd, view)
        view = view[done:]
    os.fsync(fd)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _temporary(directory: Path, name: str, suffix: str = "") -> tuple[int, str]:
    return tempfile.mkstemp(prefix=f".{name}.", suffix=f".tmp{suffix}", dir=directory)


def _place(tmp: str, path: Path, *, force: bool) -> None:
    """Give the finished temporary file its name (it is gone afterwards)."""
    if force:
        os.replace(tmp, path)  # replaces a link itself, never its target
        return
    try:
        os.link(tmp, path)  # fails if the name exists, dangling symlinks included
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        # no hard links on this file system: claim the name (O_EXCL never follows a
        # link), then rename over the claim
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        os.close(fd)
        try:
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise
        return
    os.unlink(tmp)


def _refused_race(path: Path) -> LagdynError:
    return LagdynError(
        f"refusing to overwrite {path}: it appeared while writing (use --force / force=True)"
    )


def write_file_atomically(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    force: bool = False,
    parents: bool = True,
) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path``: the whole file or nothing.

    Parameters
    ----------
    path : str or Path
    data : str or bytes
    force : bool
        Replace an existing file (or symlink: the link itself is replaced).
    parents : bool
        Create missing parent directories (otherwise they are an error).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    LagdynError
        An empty name, a directory in the way, an existing file or symlink without
        ``force``, or an OS error (a full disk…): nothing is left behind.

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> from lagdyn._files import write_file_atomically
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "mine.txt").write_text("keep")
    4
    >>> os.symlink(d / "mine.txt", d / "out.txt")
    >>> write_file_atomically(d / "out.txt", b"new", force=True).is_symlink()
    False
    >>> (d / "mine.txt").read_text(), (d / "out.txt").read_text()
    ('keep', 'new')
    """
    target = check_new_file(path, force=force)
    content = _encode(data, target)
    directory = _directory(target, parents=parents)
    tmp: str | None = None
    try:
        fd, tmp = _temporary(directory, target.name)
        try:
            _write_all(fd, content)
        finally:
            os.close(fd)
        os.chmod(tmp, 0o666 & ~_umask())
        _in_the_way([target], force=force)
        _place(tmp, target, force=force)
        tmp = None
    except FileExistsError as exc:
        raise _refused_race(target) from exc
    except OSError as exc:
        raise LagdynError(f"cannot write {str(target)!r}: {_reason(exc)}") from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    _sync_directory(directory)
    return target


@contextlib.contextmanager
def atomic_path(
    path: str | os.PathLike[str], *, force: bool = False, parents: bool = True
) -> Iterator[Path]:
    """A temporary file name beside ``path`` (same suffix), placed at ``path`` on success.

    For writers that need a file name (matplotlib's ``savefig``, animation writers, a CSV
    stream): write the whole file to the yielded path; when the block ends without error
    the file is flushed and placed under ``path`` by the rules of
    :func:`write_file_atomically`; when it raises, the temporary file is removed and an
    ``OSError`` becomes a :class:`~lagdyn.errors.LagdynError` naming ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from lagdyn._files import atomic_path
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_path(d / "a.csv") as tmp:
    ...     _ = tmp.write_text("t,x\\n0,1\\n")
    ...     print(tmp.suffix, tmp.parent == d)
    .csv True
    >>> [p.name for p in d.iterdir()], (d / "a.csv").read_text()
    (['a.csv'], 't,x\\n0,1\\n')
    """
    target = check_new_file(path, force=force)
    directory = _directory(target, parents=parents)
    try:
        fd, tmp = _temporary(directory, target.name, target.suffix)
        os.close(fd)
    except OSError as exc:
        raise LagdynError(f"cannot write {str(target)!r}: {_reason(exc)}") from exc
    placed = False
    try:
        yield Path(tmp)
        fd = os.open(tmp, os.O_RDONLY | _NOFOLLOW)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, 0o666 & ~_umask())
        _in_the_way([target], force=force)
        _place(tmp, target, force=force)
        placed = True
    except FileExistsError as exc:
        raise _refused_race(target) from exc
    except OSError as exc:
        raise LagdynError(f"cannot write {str(target)!r}: {_reason(exc)}") from exc
    finally:
        if not placed:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    _sync_directory(directory)


def write_files_atomically(
    directory: str | os.PathLike[str],
    files: Mapping[str, str | bytes],
    *,
    force: bool = False,
) -> list[Path]:
    """Write ``{file name: text or bytes}`` into ``directory``: every file or none.

    Each file is first written under a temporary name in the same directory and flushed;
    only when all are written are they placed (by the rules of
    :func:`write_file_atomically`). Existing names are refused unless ``force``; with
    ``force`` a symlink is replaced by the file, never written through. The directory is
    created when missing; an empty directory name is an error (not the current
    directory).

    Returns
    -------
    list of pathlib.Path
        The files written, sorted by name.

    Raises
    ------
    LagdynError
        Empty directory name, a file name with a path separator, existing files or
        symlinks without ``force``, directories in the way, or an OS error while writing
        (the temporary files are removed; without ``force``, files already placed are
        taken back).

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> from lagdyn._files import write_files_atomically
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> os.symlink("/etc/passwd", d / "x.c")
    >>> write_files_atomically(d, {"x.c": "int x;"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: refusing to write through the symlink(s) ...x.c (use --force ...
    >>> [p.is_symlink() for p in write_files_atomically(d, {"x.c": "int x;"}, force=True)]
    [False]
    """
    if str(directory).strip() == "":
        raise LagdynError("the output directory name is empty")
    _no_nul(directory, "directory")
    for name in files:
        _no_nul(name, "file")
    out = Path(directory)
    bad = [n for n in files if not n or Path(n).name != n or n in (".", "..")]
    if bad:
        raise LagdynError(f"file names must not contain path separators: {', '.join(bad)}")
    if out.exists() and not out.is_dir():
        raise LagdynError(f"{str(out)!r} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LagdynError(f"cannot create the directory {str(out)!r}: {_reason(exc)}") from exc
    targets = {name: out / name for name in sorted(files)}
    _in_the_way(list(targets.values()), force=force)
    content = {name: _encode(files[name], path) for name, path in targets.items()}
    mode = 0o666 & ~_umask()
    temps: dict[str, str] = {}
    placed: list[Path] = []
    current = out
    try:
        for name, path in targets.items():
            current = path
            fd, tmp = _temporary(out, name)
            temps[name] = tmp
            try:
                _write_all(fd, content[name])
            finally:
                os.close(fd)
            os.chmod(tmp, mode)
        _in_the_way(list(targets.values()), force=force)
        for name, path in targets.items():
            current = path
            _place(temps[name], path, force=force)
            del temps[name]
            placed.append(path)
    except (OSError, LagdynError) as exc:
        if not force:  # nothing existed before: take back what was placed
            for path in placed:
                with contextlib.suppress(OSError):
                    path.unlink()
            placed = []
        if isinstance(exc, LagdynError):
            raise
        if isinstance(exc, FileExistsError):
            raise _refused_race(current) from exc
        done = f"already replaced: {', '.join(map(str, placed))}" if placed else "none written"
        raise LagdynError(f"cannot write {str(current)!r}: {_reason(exc)} ({done})") from exc
    finally:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    _sync_directory(out)
    return list(targets.values())
