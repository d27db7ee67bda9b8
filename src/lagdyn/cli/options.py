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
from typing import Any

__all__ = ["MAX_INT_OPTION", "UsageError", "parse_options"]

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
