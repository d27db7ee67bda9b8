"""Simulation results and their reports: :class:`SimulationResult`, :class:`SimulationReport`.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.simulation import SimulationResult
>>> res = ld.simulate(ld.zoo.double_pendulum(), [0.3, 0.0, 0.0, 0.0], np.linspace(0, 1, 11))
>>> isinstance(res, SimulationResult)
True
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._files import atomic_path
from ..errors import BackendUnavailableError, ShapeError

__all__ = ["ConstrainedSimulationResult", "SimulationReport", "SimulationResult"]


@dataclass(frozen=True)
class SimulationReport:
    """Summary numbers of a simulation: energy drift, passivity balance, constraint error.

    Attributes
    ----------
    method : str
    steps : int
        Integration steps taken (fixed-step methods) or right-hand side evaluations (scipy).
    energy_drift : float
        max |E(t) − E(0)| over time and batch.
    relative_energy_drift : float
        ``energy_drift`` divided by the energy scale ``max(|E(0)|, max_t T(t))`` (T the
        kinetic energy), a dimensionless figure.
    passivity : float
        max |E(t) − E(0) − ∫ q̇ᵀτ dt|.
    phi : float or None
        max |Φ(q)| when a constraint function was given.
    wall_time : float
        Seconds spent integrating.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulation import simulate
    >>> sys = ld.zoo.double_pendulum()
    >>> rep = simulate(sys, [0.3, 0.0, 0.0, 0.0], np.linspace(0, 1, 51)).report()
    >>> rep.method, rep.steps, rep.phi is None
    ('rk4', 50, True)
    """

    method: str
    steps: int
    energy_drift: float
    relative_energy_drift: float
    passivity: float
    phi: float | None
    wall_time: float

    def lines(self) -> str:
        """The report as aligned text lines.

        Examples
        --------
        >>> from lagdyn.simulation import SimulationReport
        >>> print(SimulationReport("rk4", 10, 1e-9, 1e-10, 1e-9, None, 0.01).lines())
        method                 rk4 (10 steps, 0.010 s)
        energy drift           max |E(t) − E(0)| = 1.000e-09 (relative 1.000e-10)
        passivity residual     max |E(t) − E(0) − ∫q̇ᵀ(τ + Q) dt| = 1.000e-09
        """
        out = [
            f"{'method':<22} {self.method} ({self.steps} steps, {self.wall_time:.3f} s)",
            f"{'energy drift':<22} max |E(t) − E(0)| = {self.energy_drift:.3e} "
            f"(relative {self.relative_energy_drift:.3e})",
            f"{'passivity residual':<22} max |E(t) − E(0) − ∫q̇ᵀ(τ + Q) dt| = {self.passivity:.3e}",
        ]
        if self.phi is not None:
            out.append(f"{'constraint error':<22} max |Φ(q)| = {self.phi:.3e}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.lines()


@dataclass(frozen=True, eq=False, repr=False)  # arrays: no elementwise ==, short repr
class SimulationResult:
    """Trajectories from :func:`simulate`; batch axes first, then time, then coordinate.

    Attributes
    ----------
    t : ndarray, shape (n_t,)
    q, qd : ndarray, shape (..., n_t, n)
    energy : ndarray, shape (..., n_t)
    tau : ndarray, shape (..., n_t, n)
        The actuation applied at the grid points (zero when none was given).
    phi : ndarray, shape (..., n_t, m), or None
        Constraint values Φ(q) when a constraint function was given.
    kinetic : ndarray, shape (..., n_t), or None
        Kinetic energy T = E(q, q̇) − E(q, 0) (the energy scale of the reports).
    method : str
    Q : ndarray, shape (..., n_t, n), or None
        The generalized forces (damping, friction, ... : everything in ``system.forces``)
        at the grid points, when the model provides them (``C``, ``g`` and ``bias``).
    names : tuple of str
        Coordinate names (from the model's ``q`` when it has them, else ``q0, q1, ...``).
    steps : int
    wall_time : float

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulation import simulate
    >>> sys = ld.zoo.double_pendulum()
    >>> x0 = np.array([[0.1, 0.0, 0.0, 0.0], [0.2, 0.0, 0.0, 0.0]])
    >>> res = simulate(sys, x0, np.linspace(0, 0.5, 6))
    >>> res.q.shape, res[1].q.shape, res.names
    ((2, 6, 2), (6, 2), ('a', 'b'))
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    energy: np.ndarray
    tau: np.ndarray
    phi: np.ndarray | None = None
    kinetic: np.ndarray | None = None
    method: str = "rk4"
    names: tuple[str, ...] = ()
    steps: int = 0
    wall_time: float = 0.0
    Q: np.ndarray | None = None
    #: names of the velocity coordinates when they are not the rates of ``names`` (a
    #: floating base: q holds a quaternion, qd the base twist in the base frame)
    velocity_names: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"SimulationResult(method={self.method!r}, n={self.n}, batch={self.batch_shape}, "
            f"n_t={self.t.shape[0]}, t=[{self.t[0]:g}, {self.t[-1]:g}])"
        )

    @property
    def n(self) -> int:
        """Degrees of freedom."""
        return int(self.q.shape[-1])

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The batch axes ``...`` (empty for a single trajectory).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulation import simulate
        >>> sys = ld.zoo.double_pendulum()
        >>> simulate(sys, np.zeros((3, 4)), [0.0, 0.1]).batch_shape
        (3,)
        """
        return tuple(self.q.shape[:-2])

    @property
    def x(self) -> np.ndarray:
        """The states ``[q, q̇]``, shape ``(..., n_t, 2n)``."""
        return np.concatenate([self.q, self.qd], axis=-1)

    @property
    def energy_drift(self) -> np.ndarray:
        """E(t) − E(0), shape ``(..., n_t)``.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulation import simulate
        >>> sys = ld.zoo.double_pendulum()
        >>> res = simulate(sys, [1.0, 0.0, 0.0, 0.0], np.linspace(0, 1, 101))
        >>> float(res.energy_drift[0])
        0.0
        """
        return self.energy - self.energy[..., :1]

    @property
    def work(self) -> np.ndarray:
        r"""Work done by τ and the generalized forces Q, :math:`\int_0^t \dot q^T (\tau + Q)\,dt`.

        Trapezoid rule on the grid, shape ``(..., n_t)``; Q is included when it was recorded
        (:attr:`Q`).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulation import simulate
        >>> sys = ld.zoo.double_pendulum()
        >>> res = simulate(sys, [0.0, 0.0, 0.0, 0.0], np.linspace(0, 1, 11))
        >>> float(abs(res.work).max())
        0.0
        """
        force = self.tau if self.Q is None else self.tau + self.Q
        power = np.einsum("...i,...i->...", self.qd, force)
        dt = np.diff(self.t)
        steps = 0.5 * (power[..., 1:] + power[..., :-1]) * dt
        out = np.zeros_like(power)
        np.cumsum(steps, axis=-1, out=out[..., 1:])
        return out

    @property
    def passivity_residual(self) -> np.ndarray:
        r"""Passivity balance :math:`E(t) - E(0) - \int_0^t \dot q^T(\tau + Q)\,dt`, ``(..., n_t)``.

        Zero for the exact flow of a passive model; the simulation leaves integration and
        quadrature error.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulation import simulate
        >>> sys = ld.zoo.double_pendulum()
        >>> res = simulate(sys, [0.0, 0.0, 0.0, 0.0], np.linspace(0, 1, 201), tau=[1.0, 0.0])
        >>> bool(abs(res.passivity_residual).max() < 1e-4)
        True
        """
        return self.energy_drift - self.work

    def __getitem__(self, index: Any) -> SimulationResult:
        """The trajectories of batch member(s) ``index`` (indexing the batch axes only)."""
        if not self.batch_shape:
            raise ShapeError("this SimulationResult holds a single trajectory (no batch axes)")
        idx = index if isinstance(index, tuple) else (index,)
        if len(idx) > len(self.batch_shape):
            raise ShapeError(f"too many indices {index!r} for batch shape {self.batch_shape}")
        return SimulationResult(
            t=self.t,
            q=self.q[idx],
            qd=self.qd[idx],
            energy=self.energy[idx],
            tau=self.tau[idx],
            phi=None if self.phi is None else self.phi[idx],
            kinetic=None if self.kinetic is None else self.kinetic[idx],
            Q=None if self.Q is None else self.Q[idx],
            method=self.method,
            names=self.names,
            steps=self.steps,
            wall_time=self.wall_time,
            velocity_names=self.velocity_names,
        )

    def report(self) -> SimulationReport:
        """Energy drift, passivity balance and constraint error in one :class:`SimulationReport`.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulation import simulate
        >>> sys = ld.zoo.double_pendulum()
        >>> rep = simulate(sys, [0.5, 0.0, 0.0, 0.0], np.linspace(0, 1, 101)).report()
        >>> bool(rep.energy_drift < 1e-6)
        True
        """
        drift = float(np.nanmax(np.abs(self.energy_drift))) if self.energy.size else 0.0
        e0 = np.abs(self.energy[..., 0])
        if self.kinetic is not None:
            swing = np.nanmax(np.abs(self.kinetic), axis=-1)
        else:
            swing = np.ptp(self.energy, axis=-1)
        scale = float(np.nanmax(np.maximum(e0, swing))) if self.energy.size else 1.0
        phi = None if self.phi is None else float(np.nanmax(np.abs(self.phi)))
        return SimulationReport(
            method=self.method,
            steps=self.steps,
            energy_drift=drift,
            relative_energy_drift=drift / scale if scale > 0 else drift,
            passivity=float(np.nanmax(np.abs(self.passivity_residual))),
            phi=phi,
            wall_time=self.wall_time,
        )

    def columns(self) -> dict[str, np.ndarray]:
        """The trajectory as named flat columns, one row per (batch member, time).

        Columns: ``member`` (flat batch index, only when batched), ``t``, the coordinate
        names, their rates ``<name>_d``, ``tau_<name>``, ``Q_<name>`` (when recorded),
        ``energy``, ``passivity_residual`` and ``phi<k>`` when constraint values were
        recorded.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> res = ld.simulate(ld.zoo.double_pendulum(), [0.5, 0, 0, 0], np.linspace(0, 1, 11))
        >>> list(res.columns())[:5], len(res.columns()["t"])
        (['t', 'a', 'b', 'a_d', 'b_d'], 11)
        """
        n_t, n = self.t.shape[0], self.n
        members = int(np.prod(self.batch_shape)) if self.batch_shape else 1
        cols: dict[str, np.ndarray] = {}
        if self.batch_shape:
            cols["member"] = np.repeat(np.arange(members), n_t)
        cols["t"] = np.tile(self.t, members)
        nv = int(self.qd.shape[-1])
        rates = self.velocity_names if self.velocity_names else tuple(f"{x}_d" for x in self.names)
        forces_of = self.velocity_names if self.velocity_names else self.names
        q = self.q.reshape(members * n_t, n)
        qd = self.qd.reshape(members * n_t, nv)
        tau = self.tau.reshape(members * n_t, nv)
        for i, name in enumerate(self.names):
            cols[name] = q[:, i]
        for i, name in enumerate(rates):
            cols[name] = qd[:, i]
        for i, name in enumerate(forces_of):
            cols[f"tau_{name}"] = tau[:, i]
        if self.Q is not None:
            forces = self.Q.reshape(members * n_t, nv)
            for i, name in enumerate(forces_of):
                cols[f"Q_{name}"] = forces[:, i]
        cols["energy"] = self.energy.reshape(-1)
        cols["passivity_residual"] = self.passivity_residual.reshape(-1)
        if self.phi is not None:
            phi = self.phi.reshape(members * n_t, -1)
            for k in range(phi.shape[1]):
                cols[f"phi{k}"] = phi[:, k]
        return cols

    def to_csv(self, path: Any, *, force: bool = False) -> None:
        """Write :meth:`columns` as CSV (a header line, then ``repr``-exact floats); no pandas.

        The whole file or none (a temporary file beside ``path``, then placed; see
        :mod:`lagdyn._files`): an existing file or symlink is refused unless ``force``
        (which replaces a symlink, never writing through it); missing parent directories
        are created.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld, tempfile, pathlib
        >>> res = ld.simulate(ld.zoo.double_pendulum(), [0.5, 0, 0, 0], np.linspace(0, 1, 3))
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "dp.csv"
        >>> res.to_csv(out)
        >>> out.read_text().splitlines()[0]
        't,a,b,a_d,b_d,tau_a,tau_b,Q_a,Q_b,energy,passivity_residual'
        """
        cols = self.columns()
        names = list(cols)
        rows = zip(*(cols[k].tolist() for k in names))
        with (
            atomic_path(path, force=force) as tmp,
            open(tmp, "w", encoding="utf-8", newline="") as fh,
        ):
            fh.write(",".join(names) + "\n")
            for row in rows:
                fh.write(",".join(repr(v) for v in row) + "\n")

    def to_dataframe(self) -> Any:
        """:meth:`columns` as a :class:`pandas.DataFrame` (needs pandas).

        Raises
        ------
        BackendUnavailableError
            When pandas is not installed.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> res = ld.simulate(ld.zoo.double_pendulum(), [0.5, 0, 0, 0], np.linspace(0, 1, 11))
        >>> df = res.to_dataframe()  # doctest: +SKIP
        >>> list(df.columns)[:5], len(df)  # doctest: +SKIP
        (['t', 'a', 'b', 'a_d', 'b_d'], 11)
        """
        try:
            pd = importlib.import_module("pandas")
        except ImportError as exc:
            raise BackendUnavailableError(
                "to_dataframe needs pandas: pip install pandas (to_csv does not)"
            ) from exc
        return pd.DataFrame(self.columns())


@dataclass(frozen=True, repr=False, eq=False)
class ConstrainedSimulationResult(SimulationResult):
    """A :class:`SimulationResult` with Φ̇ and λ along the run.

    Attributes
    ----------
    phi_dot : ndarray, shape (..., n_t, m)
    lam : ndarray, shape (..., n_t, m)

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
    >>> res = num.simulate([0.3, 0.3, 0.0, 0.0], np.linspace(0, 0.1, 11))
    >>> res.lam.shape, res.phi_dot.shape
    ((11, 1), (11, 1))
    """

    phi_dot: np.ndarray | None = None
    lam: np.ndarray | None = None

    def constraint_report(self) -> dict[str, float]:
        """Largest |Φ| and |Φ̇| over the run.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
        >>> rep = num.simulate([0.3, 0.3, 0.0, 0.0], np.linspace(0, 0.1, 11)).constraint_report()
        >>> sorted(rep)
        ['max_abs_phi', 'max_abs_phi_dot']
        """
        phi = np.zeros(1) if self.phi is None else np.abs(self.phi)
        phid = np.zeros(1) if self.phi_dot is None else np.abs(self.phi_dot)
        return {"max_abs_phi": float(phi.max()), "max_abs_phi_dot": float(phid.max())}
