"""The one parser of ``-o/--option KEY=VALUE`` model options, shared by every subcommand.

Examples
--------
>>> from lagdyn.cli.options import parse_options
>>> parse_options(["n=4", "coordinates=relative"])
{'n': 4, 'coordinates': 'relative'}
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_INT_OPTION",
    "URDF_PARAMETERS",
    "UsageError",
    "check_input_file",
    "check_output",
    "parse_options",
    "urdf_parameters",
]

#: Integer model options above this are refused (``-o n=100000`` would hang the derivation).
MAX_INT_OPTION = 200


class UsageError(Exception):
    """A command-line usage error: one line on stderr, exit status 2.

    Examples
    --------
    >>> from lagdyn.cli.options import UsageError
    >>> str(UsageError("bad"))
    'bad'
    """


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``["KEY=VALUE", ...]`` → ``{KEY: VALUE}``; integer values become ints.

    Raises
    ------
    UsageError
        An item without ``=``, a key that is not an identifier, or an integer above
        :data:`MAX_INT_OPTION`.

    Examples
    --------
    >>> from lagdyn.cli.options import parse_options
    >>> parse_options(["n=-1"])
    {'n': -1}
    >>> parse_options(["out"])
    Traceback (most recent call last):
    ...
    lagdyn.cli.options.UsageError: bad -o/--option 'out': expected KEY=VALUE (a model option)
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.isidentifier():
            raise UsageError(f"bad -o/--option {item!r}: expected KEY=VALUE (a model option)")
        if re.fullmatch(r"[+-]?\d+", value.strip()):
            number = int(value)
            if abs(number) > MAX_INT_OPTION:
                raise UsageError(
                    f"-o {key}={value}: too large (at most {MAX_INT_OPTION}); models this "
                    "size take too long to derive"
                )
            out[key] = number
        else:
            out[key] = value
    return out


def check_output(flag: str, path: str | None, *, directory: bool = False) -> None:
    """Check an output path of the CLI before any work: the one rule for every command.

    Missing parent directories are created when the file is written (by the one writer,
    :mod:`lagdyn._files`), as ``lagdyn export --out DIR`` creates ``DIR``; refused here,
    before anything is derived or simulated, are an empty name and a path through an
    existing file (or, for a file, an existing directory in its place).

    Raises
    ------
    UsageError

    Examples
    --------
    >>> from lagdyn.cli.options import check_output
    >>> check_output("--gif", "new/dir/a.gif")
    >>> check_output("--gif", " ")
    Traceback (most recent call last):
    ...
    lagdyn.cli.options.UsageError: --gif: empty file name
    """
    if path is None:
        return
    if not str(path).strip():
        raise UsageError(f"{flag}: empty {'directory' if directory else 'file'} name")
    target = Path(path)
    if not directory and target.is_dir():
        raise UsageError(f"{flag} {path}: is a directory, expected a file name")
    for parent in (target, *target.parents) if directory else target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"{flag} {path}: {str(parent)!r} exists and is not a directory")
            return


def check_input_file(flag: str, path: str | None) -> Path:
    """Check an input file of the CLI (``--urdf PATH``) before any work; return its path.

    A missing file, an empty name, a directory, something that is not a regular file
    (a FIFO, a device) and a file that cannot be opened for reading are refused in one
    line that names the option and the path.

    Raises
    ------
    UsageError

    Examples
    --------
    >>> from lagdyn.cli.options import check_input_file
    >>> check_input_file("--urdf", "no/such/arm.urdf")
    Traceback (most recent call last):
    ...
    lagdyn.cli.options.UsageError: --urdf no/such/arm.urdf: no such file
    >>> check_input_file("--urdf", ".")
    Traceback (most recent call last):
    ...
    lagdyn.cli.options.UsageError: --urdf .: is a directory, expected a file
    """
    if path is None or not str(path).strip():
        raise UsageError(f"{flag}: empty file name")
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{flag} {path}: is a directory, expected a file")
    if not target.exists():
        raise UsageError(f"{flag} {path}: no such file")
    if not target.is_file():
        raise UsageError(f"{flag} {path}: not a regular file")
    try:
        with target.open("rb"):
            pass
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot be read ({exc.strerror or exc})") from None
    return target


#: The values of ``--parameters`` with ``--urdf``; the first is the default.
URDF_PARAMETERS = ("numeric", "symbolic")


def urdf_parameters(value: str | None) -> str:
    """The ``parameters=`` of :func:`lagdyn.robot.from_urdf` from ``--parameters``.

    ``None`` (not given) is ``"numeric"``: the file's numbers in the equations.
    ``"symbolic"`` gives ten symbols per moving link with the file's numbers as defaults.

    Raises
    ------
    UsageError
        Any other value (with ``--urdf``, ``--parameters`` does not take names).

    Examples
    --------
    >>> from lagdyn.cli.options import urdf_parameters
    >>> urdf_parameters(None), urdf_parameters("symbolic")
    ('numeric', 'symbolic')
    >>> urdf_parameters("m l")
    Traceback (most recent call last):
    ...
    lagdyn.cli.options.UsageError: with --urdf, --parameters is symbolic or numeric, got 'm l'
    """
    if value is None:
        return URDF_PARAMETERS[0]
    if value.strip() not in URDF_PARAMETERS:
        raise UsageError(f"with --urdf, --parameters is symbolic or numeric, got {value!r}")
    return value.strip()
