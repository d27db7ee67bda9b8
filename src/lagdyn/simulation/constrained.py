r"""Simulation of constrained systems: :class:`ConstrainedSimulator`.

The numeric solvers of :mod:`lagdyn.numeric.constrained` (KKT, Schur, penalty, augmented
Lagrangian, projection) with ``simulate``: the one integrator stack of
:mod:`lagdyn.simulation.integrators`, |Φ| and |Φ̇| reported along the motion (for
velocity constraints, ``phi_dot`` holds A q̇ + b in its last m_velocity columns).
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
from typing import Any, Literal

import numpy as np

from ..errors import ConstraintError, LagdynError
from ..numeric.constrained import ConstrainedNumericModel, Method, _row
from .integrators import Actuation, check_energy, check_grid, initial_state, integrate
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
        start: Literal["check", "project", "as_given"] = "check",
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
            Initial states [q, q̇]; they must satisfy Φ = 0 and Φ̇ = J_c q̇ = 0 (see
            ``start``).
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
            methods only), and x0 before the first.
        start : {"check", "project", "as_given"}
            What to do with an ``x0`` off the constraints: refuse it with a
            :class:`~lagdyn.ConstraintError` giving the residuals (``"check"``, the default;
            ``|Φ| ≤ 1e-8·(1 + |J_c|·|q|)`` and ``|J_c q̇| ≤ 1e-8·(1 + |J_c|·|q̇|)`` pass),
            project it onto Φ = 0, J_c q̇ = 0 first (``"project"``, :meth:`project`), or
            integrate from it as given (``"as_given"``, e.g. to watch Baumgarte
            stabilisation pull the motion back).
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
        n = self.n
        x = initial_state(x0, n)
        grid = check_grid(t, None, x.size)
        if start not in ("check", "project", "as_given"):
            raise LagdynError(f"start must be 'check', 'project' or 'as_given', got {start!r}")
        if (project or start == "project") and self._time_dependent():
            raise LagdynError(
                "project=True and start='project' need constraints that do not depend on t "
                "explicitly (the projection runs between steps, without the time); use "
                "baumgarte=(alpha, beta) to control the drift instead"
            )
        if start == "project" or (project and start == "check"):
            q0, qd0 = self.project(x[..., :n], x[..., n:], params=params, t=float(grid[0]))
            x = np.concatenate([q0, qd0], axis=-1)
        elif start == "check":
            self._check_start(x[..., :n], x[..., n:], params, float(grid[0]))
        torque = Actuation(tau, grid, n, tuple(x.shape[:-1]))

        def solve(ti: float, q: np.ndarray, qd: np.ndarray, tau: Any) -> tuple[Any, Any]:
            return self.solve(
                q, qd, tau, method=solver, baumgarte=baumgarte, params=params, t=ti, **solve_options
            )

        def accel(ti: float, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> np.ndarray:
            return solve(ti, q, qd, tau)[0]

        def projection(q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return self.project(q, qd, params=params)

        started = time.perf_counter()
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
        # the energy is conserved unless Q does (unknown) work, or Baumgarte terms pull a
        # start given off the constraints back (they do work there)
        conservative = not any(f != 0 for f in self.system.system.forces) and not self.rheonomic
        if conservative and (baumgarte is None or start != "as_given"):
            power = np.einsum("...i,...i->...", qd, taus)
            work = np.zeros_like(power)
            np.cumsum(
                0.5 * (power[..., 1:] + power[..., :-1]) * np.diff(grid), -1, out=work[..., 1:]
            )
            check_energy(
                method,
                np.moveaxis(energy, -1, 0),
                np.moveaxis(kinetic, -1, 0),
                None if torque.is_zero else np.moveaxis(work, -1, 0),
                grid,
                substeps,
            )
        return ConstrainedSimulationResult(
            t=grid,
            q=q,
            qd=qd,
            energy=energy,
            tau=taus,
            phi=self.phi(q, params=params) if self.m_holonomic else None,
            kinetic=kinetic,
            method=f"{method}+{solver}"
            + ("+baumgarte" if baumgarte else "")
            + ("+projection" if project else ""),
            names=tuple(str(qi.func.__name__) for qi in self.q),
            steps=steps,
            wall_time=time.perf_counter() - started,
            phi_dot=np.stack(
                [
                    self.phi_dot(q[..., k, :], qd[..., k, :], params=params, t=grid[k])
                    for k in range(len(grid))
                ],
                axis=-2,
            ),
            lam=lam,
        )

    def _time_dependent(self) -> bool:
        return bool(getattr(self.system, "time_dependent", False))

    def _check_start(self, q0: np.ndarray, qd0: np.ndarray, params: Any, t0: float = 0.0) -> None:
        """Refuse initial states off Φ = 0, J_c q̇ = 0 or A q̇ + b = 0, with the residuals."""
        phi = np.asarray(self.phi(q0, params=params))
        J = np.asarray(self.kinematics.J(q0, params=params, t=t0))
        phid = self.phi_dot(q0, qd0, params=params, t=t0)
        size_j = float(np.abs(J).max(initial=0.0))
        tol_q = 1e-8 * (1.0 + size_j * float(np.abs(q0).max(initial=0.0)))
        tol_v = 1e-8 * (1.0 + size_j * float(np.abs(qd0).max(initial=0.0)))
        worst_q = float(np.abs(phi).max(initial=0.0))
        worst_v = float(np.abs(phid).max(initial=0.0))
        if worst_q <= tol_q and worst_v <= tol_v:
            return
        values = phi if worst_q / tol_q >= worst_v / tol_v else phid
        flat = np.abs(values).reshape(-1, values.shape[-1])
        index, row = np.unravel_index(int(np.argmax(flat)), flat.shape)
        member = f" of batch member {int(index)}" if values.ndim > 1 else ""
        raise ConstraintError(
            f"x0 is off the constraints: max |Φ(q0)| = {worst_q:.3g} (tolerance {tol_q:.1e}) "
            f"and max |J_c q̇0| = {worst_v:.3g} (tolerance {tol_v:.1e}), the largest at row "
            f"{int(row)} ({_row(self.system, int(row))}){member}. The motion from it "
            "would not satisfy the constraints: project it first (num.project(q0, qd0)), "
            "pass start='project' (or project=True, which also projects every step), or "
            "start='as_given' to integrate from it as it is"
        )
