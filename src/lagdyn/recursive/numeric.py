"""Numerics of the recursive route: a batched model made of the robot programs.

:class:`RecursiveModel` evaluates the programs of :mod:`lagdyn.recursive.program` through
numpy (one generated function per program, see :meth:`Program.lambdify`) and has the
methods :func:`lagdyn.simulate` needs, so a 6- or 7-DOF arm can be simulated without ever
deriving its closed form. This is the stop-gap until ``system.lambdify(route="recursive")``
prints the same programs through lagdyn's code generator.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> arm = ld.zoo.get("ur5")
>>> model = arm.recursive_model()
>>> model.M(np.zeros(6)).shape
(6, 6)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

__all__ = ["RecursiveModel"]


class RecursiveModel:
    """Batched numerics of a :class:`~lagdyn.robot.RobotSystem` from its recursive programs.

    Parameters
    ----------
    system : RobotSystem
        The chain's system.
    params : mapping, optional
        Parameter values (default: ``system.defaults``); every parameter must be bound.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.recursive.numeric import RecursiveModel
    >>> model = RecursiveModel(ld.zoo.get("puma560"))
    >>> np.round(model.g(np.zeros(6)), 4) + 0.0  # + 0.0: no negative zeros
    array([ 0.    , 37.4837,  0.2489,  0.    ,  0.    ,  0.    ])
    """

    def __init__(self, system: Any, params: Mapping[Any, float] | None = None) -> None:
        self.system = system
        self.n: int = system.n
        self.params = dict(system.defaults if params is None else params)
        self._fns: dict[str, Callable[..., Any]] = {}

    def _fn(self, name: str) -> Callable[..., Any]:
        if name not in self._fns:
            if name == "E":
                from .program import energy

                prog = energy(self.system.chain)
            else:
                prog = self.system.program(name)
            self._fns[name] = prog.lambdify(self.params)
        return self._fns[name]

    def M(self, q: Any) -> Any:
        """Mass matrix by CRBA, ``(..., n)`` → ``(..., n, n)``."""
        return self._fn("M")(q=q)

    def C(self, q: Any, qd: Any) -> Any:
        """Christoffel-consistent Coriolis matrix, ``(..., n, n)``."""
        return self._fn("C")(q=q, qd=qd)

    def g(self, q: Any) -> Any:
        """Gravity torques, ``(..., n)``."""
        return self._fn("g")(q=q)

    def h(self, q: Any, qd: Any) -> Any:
        """C q̇ + g by RNEA with q̈ = 0, ``(..., n)``."""
        return self._fn("h")(q=q, qd=qd)

    def inverse_dynamics(self, q: Any, qd: Any, qdd: Any) -> Any:
        """τ = M q̈ + C q̇ + g (+ friction) by RNEA, ``(..., n)``."""
        return self._fn("tau")(q=q, qd=qd, qdd=qdd)

    def forward_dynamics(self, q: Any, qd: Any, tau: Any = None) -> Any:
        """q̈ = M⁻¹(τ − h) by CRBA + LDLᵀ, ``(..., n)``; ``tau=None`` means zero."""
        if tau is None:
            tau = np.zeros(np.shape(q))
        return self._fn("qdd")(q=q, qd=qd, tau=tau)

    def energy(self, q: Any, qd: Any) -> Any:
        """Total energy T + U, ``(...)``."""
        return self._fn("E")(q=q, qd=qd)[..., 0]
