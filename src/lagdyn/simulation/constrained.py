r"""Simulation of holonomic constraints: :class:`ConstrainedSimulator`.

The numeric solvers of :mod:`lagdyn.numeric.constrained` (KKT, Schur, penalty, augmented
Lagrangian, projection) with ``simulate``: the one integrator stack of
:mod:`lagdyn.simulation.integrators`, |Φ| and |Φ̇| reported along the motion.
:meth:`ConstrainedSystem.lambdify <lagdyn.ConstrainedSystem.lambdify>` returns one.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> dp = ld.zoo.double_pendulum()
>>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
>>> type(num).__name__
'ConstrainedSimulator'
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..errors import LagdynError, ShapeError
from ..numeric.constrained import ConstrainedNumericModel, Method
from .integrators import Actuation, check_grid, integrate
from .result import ConstrainedSimulationResult

__all__ = ["ConstrainedSimulator"]


class ConstrainedSimulator(ConstrainedNumericModel):
    """A :class:`~lagdyn.numeric.constrained.ConstrainedNumericModel` that also simulates.

    Examples
    --------
    >>> import lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
    >>> num.simulate([0.3, 0.3, 0.0, 0.0], [0.0, 0.01]).q.shape
    (2, 2)
    """

    def simulate(
        self,
        x0: Any,
        t: Any,
        *,
        tau: Any = None,
        method: str = "rk4",
        solver: Method = "kkt",
        baumgarte: tuple[float, float] | None = None,
        project: bool = False,
        params: Any = None,
        substeps: int = 1,
        rtol: float = 1e-10,
        atol: float = 1e-12,
        **solve_options: Any,
    ) -> ConstrainedSimulationResult:
        r"""Integrate the constrained motion and report |Φ| and |Φ̇| along it.

        Parameters
        ----------
        x0 : array_like, shape (..., 2n)
            Initial states [q, q̇]; they should satisfy Φ = 0 and Φ̇ = 0 (use
            :meth:`project` first otherwise).
        t : array_like, shape (n_t,)
            Strictly increasing output times; fixed-step methods take one step per
            interval.
        tau : array_like (n,) or callable ``tau(t, q, qd)``, optional
        method : {"rk4", "midpoint"} or "scipy-<name>" (e.g. ``"scipy-DOP853"``, extra ``sim``)
            The integrators of :func:`lagdyn.simulate` (one stack); midpoint iterates in
            (q, q̇).
        solver : the KKT method used at every stage (see :meth:`solve`)
        baumgarte : (alpha, beta), optional
        project : bool
            Project (q, q̇) onto the constraint manifold after every step (fixed-step
            methods only).
        substeps : int
            Fixed steps per grid interval.
        rtol, atol : float
            Tolerances of the scipy methods.

        Returns
        -------
        ConstrainedSimulationResult
            A :class:`~lagdyn.simulation.SimulationResult` with ``phi`` (Φ) and, in
            addition, ``phi_dot`` (Φ̇) and ``lam`` (λ at the grid points).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
        >>> res = num.simulate([0.3, 0.3, 0.0, 0.0], np.linspace(0, 1, 101), baumgarte=(5, 5))
        >>> bool(np.abs(res.phi).max() < 1e-9)
        True
        """
        grid = check_grid(t, None)
        x = np.array(x0, dtype=float)
        if x.ndim == 0 or x.shape[-1] != 2 * self.n:
            raise ShapeError(f"x0 must have shape (..., {2 * self.n}), got {x.shape}")
        if not np.all(np.isfinite(x)):
            raise LagdynError("x0 contains NaN or infinite values")
        n = self.n
        torque = Actuation(tau, grid, n, tuple(x.shape[:-1]))

        def solve(ti: float, q: np.ndarray, qd: np.ndarray, tau: Any) -> tuple[Any, Any]:
            return self.solve(
                q, qd, tau, method=solver, baumgarte=baumgarte, params=params, t=ti, **solve_options
            )

        def accel(ti: float, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> np.ndarray:
            return solve(ti, q, qd, tau)[0]

        def projection(q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return self.project(q, qd, params=params)

        start = time.perf_counter()
        xs, steps = integrate(
            method,
            accel,
            torque,
            x,
            grid,
            n,
            substeps=substeps,
            rtol=rtol,
            atol=atol,
            after_step=projection if project else None,
        )
        traj = np.moveaxis(xs, 0, -2)  # (n_t, ..., 2n) -> (..., n_t, 2n)
        q, qd = traj[..., :n], traj[..., n:]
        taus = np.stack(
            [
                np.broadcast_to(torque(grid[k], q[..., k, :], qd[..., k, :]), q[..., k, :].shape)
                for k in range(len(grid))
            ],
            axis=-2,
        )
        lam = np.stack(
            [
                solve(grid[k], q[..., k, :], qd[..., k, :], taus[..., k, :])[1]
                for k in range(len(grid))
            ],
            axis=-2,
        )
        energy = self.energy(q, qd, params=params)
        kinetic = energy - self.energy(q, np.zeros_like(qd), params=params)
        return ConstrainedSimulationResult(
            t=grid,
            q=q,
            qd=qd,
            energy=energy,
            tau=taus,
            phi=self.phi(q, params=params),
            kinetic=kinetic,
            method=f"{method}+{solver}"
            + ("+baumgarte" if baumgarte else "")
            + ("+projection" if project else ""),
            names=tuple(str(qi.func.__name__) for qi in self.q),
            steps=steps,
            wall_time=time.perf_counter() - start,
            phi_dot=self.phi_dot(q, qd, params=params),
            lam=lam,
        )
