"""Aliases for public paths that moved: they keep working for one release and warn.

Examples
--------
>>> import warnings
>>> from lagdyn._moved import warn_moved
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warn_moved("lagdyn.old", "lagdyn.new")
>>> str(caught[0].message)
'lagdyn.old moved to lagdyn.new; the old path will be removed in the next release'
"""

from __future__ import annotations

import warnings

__all__ = ["warn_moved"]


def warn_moved(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn (``DeprecationWarning``) that ``old`` is now ``new``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     warn_moved("lagdyn.a", "lagdyn.b")
    """
    warnings.warn(
        f"{old} moved to {new}; the old path will be removed in the next release",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
