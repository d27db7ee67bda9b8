"""Removed: ``RecursiveModel`` is ``system.lambdify(params, route="recursive")`` now.

This alias warns and is removed in the next release.
"""

from __future__ import annotations

from typing import Any

from .._moved import warn_moved

__all__ = ["RecursiveModel"]


def RecursiveModel(system: Any, params: Any = None) -> Any:
    """Deprecated: ``system.lambdify(params, route="recursive")`` (``params`` default ``defaults``).

    Examples
    --------
    >>> import warnings, numpy as np, lagdyn as ld
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     from lagdyn.robot.numeric import RecursiveModel
    ...     model = RecursiveModel(ld.zoo.get("puma560"))
    >>> np.round(model.g(np.zeros(6)), 4) + 0.0
    array([ 0.    , 37.4837,  0.2489,  0.    ,  0.    ,  0.    ])
    """
    warn_moved(
        "lagdyn.robot.numeric.RecursiveModel(system)",
        'system.lambdify(params, route="recursive")',
    )
    return system.lambdify(system.defaults if params is None else params, route="recursive")
