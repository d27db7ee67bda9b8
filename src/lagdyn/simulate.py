r"""Simulation: integrate M q̈ + C q̇ + g = τ over a time grid, many initial states at once.

:func:`simulate` takes a numeric model (anything with ``n``, ``forward_dynamics(q, qd,
tau)`` and ``energy(q, qd)``, such as the :class:`~lagdyn.numeric.NumericModel` from
``system.lambdify(params)``) or a :class:`~lagdyn.LagrangianSystem` (lambdified with its
``defaults``), initial states ``x0 = [q, q̇]`` of shape ``(..., 2n)`` and an increasing
time grid ``t`` of shape ``(n_t,)``. It returns a :class:`SimulationResult` whose arrays
put the batch axes first: ``q``, ``qd`` of shape ``(..., n_t, n)``, ``energy`` of shape
``(..., n_t)``.

Methods
-------
``"rk4"``
    Classical fixed-step Runge–Kutta, order 4. Accurate over short horizons; its energy
    error grows secularly (slowly) over long runs.
``"midpoint"``
    Implicit midpoint rule, order 2, in canonical coordinates ``(q, p)`` with
    ``p = M(q) q̇`` when the model provides ``M`` and ``C`` (every ``NumericModel`` does):

    .. math::
        q_{k+1} = q_k + h\,\dot q(\bar x),\qquad
        p_{k+1} = p_k + h\,\dot p(\bar x),\qquad \bar x = \tfrac12 (x_k + x_{k+1}),

    with :math:`\dot p = M\ddot q + (C + C^T)\dot q` (since :math:`\dot M = C + C^T`).
    For natural conservative systems this is a symplectic, symmetric integrator: the
    energy error stays bounded over long runs, without secular drift. Models without
    ``M``/``C`` are integrated with the (symmetric) midpoint rule in ``(q, q̇)``. The
    implicit equations are solved by fixed-point iteration on the batched forward
    dynamics until every component changes by at most ``tol · (1 + |value|)``
    (default ``tol = 1e-12``), at most ``max_iter`` times; otherwise a
    :class:`~lagdyn.LagdynError` asks for a smaller step (``substeps``).
``"scipy-<name>"``
    :func:`scipy.integrate.solve_ivp` with ``method=<name>`` (``RK45``, ``DOP853``,
    ``Radau``, ``BDF``, ``LSODA``, ...), ``rtol``/``atol`` as given, outputs on the grid.
    Needs the ``sim`` extra (``pip install 'lagdyn[sim]'``).

Fixed-step methods take ``substeps`` steps between consecutive grid points.

Actuation ``tau``
-----------------
``None`` (zero); a constant array broadcastable to ``(..., n)``; an array over time of
shape ``(n_t, n)`` or ``(n_t, ..., n)`` (first axis along ``t``, linearly interpolated
between grid points); or a feedback callable ``tau(t, q, qd) -> (..., n)``.

Reports
-------
:attr:`SimulationResult.energy_drift` (E(t) − E(0)),
:attr:`SimulationResult.passivity_residual`
(:math:`E(t) - E(0) - \int_0^t \dot q^T\tau\,dt`, trapezoid rule on the grid: it stays at
integration error for a passive model), and, when a constraint function ``phi`` is given
(or the model has one), :math:`|\Phi(q)|`; :meth:`SimulationResult.report` summarizes them.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.simulate import simulate
>>> sys = ld.zoo.double_pendulum()
>>> res = simulate(sys, [0.5, 0.0, 0.0, 0.0], np.linspace(0.0, 1.0, 101), method="midpoint")
>>> res.q.shape, res.energy.shape
((101, 2), (101,))
>>> bool(abs(res.energy_drift).max() < 1e-3)
True
"""

from __future__ import annotations

import importlib
import inspect
import logging
import math
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .errors import BackendUnavailableError, LagdynError, ShapeError

__all__ = [
    "DynamicsModel",
    "SimulationReport",
    "SimulationResult",
    "add_cli_arguments",
    "simulate",
    "simulate_cli",
]

log = logging.getLogger("lagdyn")

Method = str  # "rk4", "midpoint" or "scipy-<name>"
TauCallable = Callable[[float, np.ndarray, np.ndarray], Any]


@runtime_checkable
class DynamicsModel(Protocol):
    """What :func:`simulate` needs from a model (a :class:`~lagdyn.numeric.NumericModel` fits).

    ``n`` degrees of freedom; ``forward_dynamics(q, qd, tau)`` and ``energy(q, qd)``
    batched over leading axes (``(..., n)`` → ``(..., n)`` and ``(...)``). Optional
    ``M(q)`` and ``C(q, qd)`` enable the symplectic form of the midpoint method.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.simulate import DynamicsModel
    >>> sys = ld.zoo.double_pendulum()
    >>> isinstance(sys.lambdify(sys.defaults), DynamicsModel)
    True
    """

    n: int

    def forward_dynamics(self, q: Any, qd: Any, tau: Any = None) -> Any:
        """q̈ of shape ``(..., n)``."""

    def energy(self, q: Any, qd: Any) -> Any:
        """E of shape ``(...)``."""


# --------------------------------------------------------------------------- results
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
    >>> from lagdyn.simulate import simulate
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
        >>> from lagdyn.simulate import SimulationReport
        >>> print(SimulationReport("rk4", 10, 1e-9, 1e-10, 1e-9, None, 0.01).lines())
        method                 rk4 (10 steps, 0.010 s)
        energy drift           max |E(t) − E(0)| = 1.000e-09 (relative 1.000e-10)
        passivity residual     max |E(t) − E(0) − ∫q̇ᵀτ dt| = 1.000e-09
        """
        out = [
            f"{'method':<22} {self.method} ({self.steps} steps, {self.wall_time:.3f} s)",
            f"{'energy drift':<22} max |E(t) − E(0)| = {self.energy_drift:.3e} "
            f"(relative {self.relative_energy_drift:.3e})",
            f"{'passivity residual':<22} max |E(t) − E(0) − ∫q̇ᵀτ dt| = {self.passivity:.3e}",
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
    names : tuple of str
        Coordinate names (from the model's ``q`` when it has them, else ``q0, q1, ...``).
    steps : int
    wall_time : float

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulate import simulate
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
        >>> from lagdyn.simulate import simulate
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
        >>> from lagdyn.simulate import simulate
        >>> sys = ld.zoo.double_pendulum()
        >>> res = simulate(sys, [1.0, 0.0, 0.0, 0.0], np.linspace(0, 1, 101))
        >>> float(res.energy_drift[0])
        0.0
        """
        return self.energy - self.energy[..., :1]

    @property
    def work(self) -> np.ndarray:
        r"""Work done by τ, :math:`\int_0^t \dot q^T \tau\,dt` (trapezoid rule), ``(..., n_t)``.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulate import simulate
        >>> sys = ld.zoo.double_pendulum()
        >>> res = simulate(sys, [0.0, 0.0, 0.0, 0.0], np.linspace(0, 1, 11))
        >>> float(abs(res.work).max())
        0.0
        """
        power = np.einsum("...i,...i->...", self.qd, self.tau)
        dt = np.diff(self.t)
        steps = 0.5 * (power[..., 1:] + power[..., :-1]) * dt
        out = np.zeros_like(power)
        np.cumsum(steps, axis=-1, out=out[..., 1:])
        return out

    @property
    def passivity_residual(self) -> np.ndarray:
        r"""Passivity balance :math:`E(t) - E(0) - \int_0^t \dot q^T\tau\,dt`, ``(..., n_t)``.

        Zero for the exact flow of a passive model; the simulation leaves integration and
        quadrature error.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulate import simulate
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
            method=self.method,
            names=self.names,
            steps=self.steps,
            wall_time=self.wall_time,
        )

    def report(self) -> SimulationReport:
        """Energy drift, passivity balance and constraint error in one :class:`SimulationReport`.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulate import simulate
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

    def to_dataframe(self) -> Any:
        """A long-format :class:`pandas.DataFrame`: one row per (batch member, time).

        Columns: ``member`` (flat batch index, only when batched), ``t``, the coordinate
        names, their rates ``<name>_d``, ``tau_<name>``, ``energy``,
        ``passivity_residual`` and ``phi<k>`` when constraint values were recorded.

        Raises
        ------
        BackendUnavailableError
            When pandas is not installed.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.simulate import simulate
        >>> sys = ld.zoo.double_pendulum()
        >>> res = simulate(sys, [0.5, 0.0, 0.0, 0.0], np.linspace(0, 1, 11))
        >>> df = res.to_dataframe()  # doctest: +SKIP
        >>> list(df.columns)[:5], len(df)  # doctest: +SKIP
        (['t', 'a', 'b', 'a_d', 'b_d'], 11)
        """
        try:
            pd = importlib.import_module("pandas")
        except ImportError as exc:
            raise BackendUnavailableError("to_dataframe needs pandas: pip install pandas") from exc
        n_t, n = self.t.shape[0], self.n
        members = int(np.prod(self.batch_shape)) if self.batch_shape else 1
        cols: dict[str, np.ndarray] = {}
        if self.batch_shape:
            cols["member"] = np.repeat(np.arange(members), n_t)
        cols["t"] = np.tile(self.t, members)
        q = self.q.reshape(members * n_t, n)
        qd = self.qd.reshape(members * n_t, n)
        tau = self.tau.reshape(members * n_t, n)
        for i, name in enumerate(self.names):
            cols[name] = q[:, i]
        for i, name in enumerate(self.names):
            cols[f"{name}_d"] = qd[:, i]
        for i, name in enumerate(self.names):
            cols[f"tau_{name}"] = tau[:, i]
        cols["energy"] = self.energy.reshape(-1)
        cols["passivity_residual"] = self.passivity_residual.reshape(-1)
        if self.phi is not None:
            phi = self.phi.reshape(members * n_t, -1)
            for k in range(phi.shape[1]):
                cols[f"phi{k}"] = phi[:, k]
        return pd.DataFrame(cols)


# --------------------------------------------------------------------------- helpers
class _Progress:
    """A progress bar: tqdm when installed, a plain stderr line otherwise."""

    def __init__(self, total: int, enabled: bool, desc: str) -> None:
        self.total = total
        self.enabled = enabled
        self._bar: Any = None
        self._last = -1
        self._desc = desc
        if not enabled:
            return
        try:
            tqdm = importlib.import_module("tqdm").tqdm
        except ImportError:
            return
        self._bar = tqdm(total=total, desc=desc, unit="step", leave=False)

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
            return
        pct = int(100 * done / max(self.total, 1))
        if pct // 5 != self._last // 5:
            self._last = pct
            sys.stderr.write(f"\r{self._desc}: {pct:3d}% ({done}/{self.total} steps)")
            sys.stderr.flush()

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()


class _Tau:
    """Evaluates the actuation at any time and state, with shape checks."""

    def __init__(self, tau: Any, t: np.ndarray, n: int, batch: tuple[int, ...]) -> None:
        self.n = n
        self.t = t
        self.callable: TauCallable | None = None
        self.series: np.ndarray | None = None
        self.const: np.ndarray | None = None
        target = (*batch, n)
        if tau is None:
            self.const = np.zeros(target)
        elif callable(tau):
            self.callable = tau
        else:
            try:
                arr = np.asarray(tau, dtype=float)
            except (TypeError, ValueError) as exc:
                raise ShapeError(f"tau must be numeric, an array or a callable: {exc}") from exc
            if arr.ndim >= 2 and arr.shape[0] == t.shape[0] and arr.shape[-1] == n:
                if not _broadcasts(arr.shape[1:], target):
                    raise ShapeError(
                        f"tau over time has shape {arr.shape}; expected (n_t, n) = "
                        f"({t.shape[0]}, {n}) or (n_t, ..., n) with ... broadcasting to the "
                        f"batch shape {batch}"
                    )
                self.series = arr
            elif _broadcasts(arr.shape, target):
                self.const = np.broadcast_to(arr, target).copy()
            else:
                raise ShapeError(
                    f"tau has shape {arr.shape}; expected a constant broadcasting to {target}, "
                    f"an array over time (n_t, ..., n) with n_t = {t.shape[0]}, or a callable "
                    "tau(t, q, qd)"
                )
            if not np.all(np.isfinite(arr)):
                raise LagdynError("tau contains NaN or infinite values")

    @property
    def is_zero(self) -> bool:
        return self.const is not None and not np.any(self.const)

    def __call__(self, time: float, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        if self.const is not None:
            return self.const
        if self.series is not None:
            return self._interp(time)
        assert self.callable is not None
        out = self.callable(time, q, qd)
        try:
            arr = np.asarray(out, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ShapeError(f"tau(t, q, qd) returned a non-numeric value: {exc}") from exc
        if arr.ndim == 0 or arr.shape[-1] != self.n or not _broadcasts(arr.shape, q.shape):
            raise ShapeError(
                f"tau(t, q, qd) returned shape {arr.shape}; expected (..., {self.n}) "
                f"broadcasting to the state shape {q.shape}"
            )
        return np.broadcast_to(arr, q.shape)

    def _interp(self, time: float) -> np.ndarray:
        assert self.series is not None
        t = self.t
        i = int(np.clip(np.searchsorted(t, time, side="right") - 1, 0, t.shape[0] - 2))
        w = (time - t[i]) / (t[i + 1] - t[i])
        w = min(max(w, 0.0), 1.0)
        return (1.0 - w) * self.series[i] + w * self.series[i + 1]


def _broadcasts(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def _as_model(model: Any, params: Mapping[Any, float] | None) -> Any:
    if hasattr(model, "forward_dynamics") and hasattr(model, "energy") and hasattr(model, "n"):
        if params is not None:
            raise LagdynError(
                "params= applies to a LagrangianSystem; this model is already numeric "
                "(bind parameters when lambdifying it)"
            )
        return model
    if hasattr(model, "lambdify") and hasattr(model, "defaults"):
        values = {**dict(model.defaults or {}), **dict(params or {})}
        return model.lambdify(values)
    raise LagdynError(
        f"simulate needs a LagrangianSystem or a numeric model with n, forward_dynamics and "
        f"energy; got {type(model).__name__}"
    )


def _names(model: Any, n: int) -> tuple[str, ...]:
    q = getattr(model, "q", None)
    if q is not None and len(q) == n:
        out = []
        for s in q:
            text = str(s)
            out.append(text[:-3] if text.endswith("(t)") else text)
        return tuple(out)
    return tuple(f"q{i}" for i in range(n))


def _accepts_t(fn: Any) -> bool:
    try:
        return "t" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _check_grid(t: Any, dt: float | None) -> np.ndarray:
    arr = np.asarray(t, dtype=float)
    if arr.ndim == 0:
        if dt is None:
            dt = 0.01
        if not (np.isfinite(arr) and arr > 0):
            raise LagdynError(f"a scalar t is the final time and must be positive, got {t!r}")
        if not (dt > 0):
            raise LagdynError(f"dt must be positive, got {dt!r}")
        steps = max(1, math.ceil(float(arr) / dt - 1e-9))
        return np.linspace(0.0, float(arr), steps + 1)
    if dt is not None:
        raise LagdynError("dt= is only used with a scalar final time t")
    if arr.ndim != 1 or arr.shape[0] < 2:
        raise ShapeError(f"t must be a 1-D grid of at least 2 times, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise LagdynError("t contains NaN or infinite values")
    bad = np.nonzero(np.diff(arr) <= 0)[0]
    if bad.size:
        i = int(bad[0])
        raise LagdynError(
            f"t must be strictly increasing; t[{i}] = {arr[i]!r} ≥ t[{i + 1}] = {arr[i + 1]!r}"
        )
    return arr


# --------------------------------------------------------------------------- main entry
def simulate(
    model: Any,
    x0: Any,
    t: Any,
    *,
    tau: Any = None,
    method: Method = "rk4",
    substeps: int = 1,
    dt: float | None = None,
    params: Mapping[Any, float] | None = None,
    tol: float = 1e-12,
    max_iter: int = 50,
    rtol: float = 1e-9,
    atol: float = 1e-11,
    phi: Callable[[np.ndarray], Any] | None = None,
    progress: bool | None = None,
) -> SimulationResult:
    r"""Integrate the equations of motion from ``x0`` over the grid ``t``.

    Parameters
    ----------
    model : NumericModel, LagrangianSystem or DynamicsModel
        A numeric model (``n``, batched ``forward_dynamics(q, qd, tau)``,
        ``energy(q, qd)``) or a system, lambdified with its ``defaults`` updated by
        ``params``.
    x0 : array_like, shape (..., 2n)
        Initial states ``[q, q̇]``; leading axes are a batch simulated together.
    t : array_like, shape (n_t,), or float
        Strictly increasing output times (the first is the initial time), or a final time
        ``T`` for the grid ``0, dt, ..., T`` (``dt`` default 0.01).
    tau : None, array_like or callable, optional
        Actuation: constant ``(..., n)``; over time ``(n_t, n)`` or ``(n_t, ..., n)``
        (linear between grid points); or feedback ``tau(t, q, qd) -> (..., n)``.
    method : {"rk4", "midpoint"} or "scipy-<name>"
        See the module documentation.
    substeps : int
        Fixed-step methods take this many steps per grid interval.
    dt : float, optional
        Step of the grid when ``t`` is a scalar final time.
    params : mapping, optional
        Parameter values overriding ``system.defaults`` when ``model`` is a system.
    tol, max_iter : float, int
        Convergence of the implicit midpoint fixed-point iteration (per-component
        change ≤ ``tol · (1 + |value|)``).
    rtol, atol : float
        Tolerances of the scipy methods.
    phi : callable, optional
        Constraint function ``phi(q) -> (..., m)`` recorded on the grid
        (:attr:`SimulationResult.phi`); by default the model's own ``phi`` if it has one.
    progress : bool, optional
        Show a progress bar (tqdm if installed, else stderr). Default: only when stderr
        is a terminal and the run takes more than 10 000 steps.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ShapeError
        ``x0`` not of shape ``(..., 2n)``, a tau of the wrong shape, a ``t`` that is not 1-D.
    LagdynError
        Non-increasing or non-finite ``t``, an unknown method, a midpoint iteration that
        does not converge.
    BackendUnavailableError
        A scipy method without scipy installed.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulate import simulate
    >>> sys = ld.zoo.double_pendulum()
    >>> num = sys.lambdify(sys.defaults)
    >>> t = np.linspace(0.0, 2.0, 201)
    >>> x0 = np.array([[0.5, 0.0, 0.0, 0.0], [0.5, 0.1, 0.0, 0.0]])   # a batch of two
    >>> res = simulate(num, x0, t, method="midpoint")
    >>> res.q.shape
    (2, 201, 2)
    >>> bool(np.abs(res.energy_drift).max() < 1e-3)
    True
    >>> pd_ctrl = lambda t, q, qd: -5.0 * q - 1.0 * qd               # feedback torque
    >>> res = simulate(num, x0[0], t, tau=pd_ctrl)                    # rk4 by default
    >>> bool(np.abs(res.passivity_residual).max() < 1e-3 * np.abs(res.work).max())
    True
    """
    started = time.perf_counter()
    num = _as_model(model, params)
    n = int(num.n)
    grid = _check_grid(t, dt)
    x = np.asarray(x0, dtype=float)
    if x.ndim == 0 or x.shape[-1] != 2 * n:
        raise ShapeError(
            f"x0 has shape {x.shape}; expected (..., 2n) = (..., {2 * n}) holding [q, qd] "
            f"for the {n} coordinates"
        )
    if not np.all(np.isfinite(x)):
        raise LagdynError("x0 contains NaN or infinite values")
    if isinstance(substeps, bool) or not isinstance(substeps, int) or substeps < 1:
        raise LagdynError(f"substeps must be a positive integer, got {substeps!r}")
    batch = tuple(x.shape[:-1])
    tau_src = _Tau(tau, grid, n, batch)
    phi_fn = phi if phi is not None else getattr(num, "phi", None)
    if phi_fn is not None and not callable(phi_fn):
        phi_fn = None

    fd_t = _accepts_t(num.forward_dynamics)

    def accel(time_: float, q: np.ndarray, qd: np.ndarray, u: np.ndarray) -> np.ndarray:
        if fd_t:
            return np.asarray(num.forward_dynamics(q, qd, u, t=float(time_)), dtype=float)
        return np.asarray(num.forward_dynamics(q, qd, u), dtype=float)

    if not isinstance(method, str):
        raise LagdynError(f"method must be a string, got {method!r}")
    if method.startswith("scipy-"):
        xs, steps = _run_scipy(method[6:], accel, tau_src, x, grid, n, rtol, atol)
    elif method in ("rk4", "midpoint"):
        total = (grid.shape[0] - 1) * substeps
        if progress is None:
            progress = total > 10_000 and sys.stderr.isatty()
        bar = _Progress(total, bool(progress), f"lagdyn {method}")
        try:
            if method == "rk4":
                xs = _run_rk4(accel, tau_src, x, grid, n, substeps, bar)
            else:
                xs = _run_midpoint(num, accel, tau_src, x, grid, n, substeps, tol, max_iter, bar)
        finally:
            bar.close()
        steps = total
    else:
        raise LagdynError(
            f"unknown method {method!r}: use 'rk4', 'midpoint' or 'scipy-<name>' "
            "(e.g. 'scipy-RK45', 'scipy-DOP853', 'scipy-Radau')"
        )

    # xs: (n_t, ..., 2n) → batch first
    q_t, qd_t = xs[..., :n], xs[..., n:]
    if not np.all(np.isfinite(xs)):
        log.warning("simulate: the state became NaN or infinite (unstable step or blow-up)")
    energy = np.asarray(num.energy(q_t, qd_t), dtype=float)
    kinetic = energy - np.asarray(num.energy(q_t, np.zeros_like(qd_t)), dtype=float)
    taus = np.empty_like(q_t)
    for k, tk in enumerate(grid):
        taus[k] = tau_src(float(tk), q_t[k], qd_t[k])
    phis = None
    if phi_fn is not None:
        phis = np.asarray(phi_fn(q_t), dtype=float)
        if phis.ndim == q_t.ndim - 1:
            phis = phis[..., None]
    lead = q_t.ndim - 2  # number of batch axes

    def batch_first(a: np.ndarray, trailing: int) -> np.ndarray:
        return np.moveaxis(a, 0, a.ndim - 1 - trailing) if lead else a

    return SimulationResult(
        t=grid,
        q=batch_first(q_t, 1),
        qd=batch_first(qd_t, 1),
        energy=np.moveaxis(energy, 0, -1) if lead else energy,
        kinetic=np.moveaxis(kinetic, 0, -1) if lead else kinetic,
        tau=batch_first(taus, 1),
        phi=None if phis is None else batch_first(phis, 1),
        method=method,
        names=_names(num, n),
        steps=int(steps),
        wall_time=time.perf_counter() - started,
    )


AccelFn = Callable[[float, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _run_rk4(
    accel: AccelFn,
    tau: _Tau,
    x0: np.ndarray,
    grid: np.ndarray,
    n: int,
    substeps: int,
    bar: _Progress,
) -> np.ndarray:
    out = np.empty((grid.shape[0], *x0.shape))
    out[0] = x0
    q, v = x0[..., :n].copy(), x0[..., n:].copy()
    done = 0
    for k in range(grid.shape[0] - 1):
        t0 = float(grid[k])
        h = (float(grid[k + 1]) - t0) / substeps
        for s in range(substeps):
            ts = t0 + s * h
            a1 = accel(ts, q, v, tau(ts, q, v))
            q2, v2 = q + 0.5 * h * v, v + 0.5 * h * a1
            a2 = accel(ts + 0.5 * h, q2, v2, tau(ts + 0.5 * h, q2, v2))
            q3, v3 = q + 0.5 * h * v2, v + 0.5 * h * a2
            a3 = accel(ts + 0.5 * h, q3, v3, tau(ts + 0.5 * h, q3, v3))
            q4, v4 = q + h * v3, v + h * a3
            a4 = accel(ts + h, q4, v4, tau(ts + h, q4, v4))
            q = q + (h / 6.0) * (v + 2.0 * v2 + 2.0 * v3 + v4)
            v = v + (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        out[k + 1, ..., :n] = q
        out[k + 1, ..., n:] = v
        done += substeps
        bar.update(done)
    return out


def _run_midpoint(
    num: Any,
    accel: AccelFn,
    tau: _Tau,
    x0: np.ndarray,
    grid: np.ndarray,
    n: int,
    substeps: int,
    tol: float,
    max_iter: int,
    bar: _Progress,
) -> np.ndarray:
    canonical = callable(getattr(num, "M", None)) and callable(getattr(num, "C", None))
    out = np.empty((grid.shape[0], *x0.shape))
    out[0] = x0
    q, v = x0[..., :n].copy(), x0[..., n:].copy()

    def mass(qq: np.ndarray) -> np.ndarray:
        return np.asarray(num.M(qq), dtype=float)

    def pdot(tm: float, qm: np.ndarray, vm: np.ndarray, Mm: np.ndarray) -> np.ndarray:
        a = accel(tm, qm, vm, tau(tm, qm, vm))
        Cm = np.asarray(num.C(qm, vm), dtype=float)
        return (
            np.einsum("...ij,...j->...i", Mm, a)
            + np.einsum("...ij,...j->...i", Cm, vm)
            + np.einsum("...ji,...j->...i", Cm, vm)
        )

    def solve(Mm: np.ndarray, p: np.ndarray) -> np.ndarray:
        return np.linalg.solve(Mm, p[..., None])[..., 0]

    done = 0
    for k in range(grid.shape[0] - 1):
        t0 = float(grid[k])
        h = (float(grid[k + 1]) - t0) / substeps
        for _ in range(substeps):
            tm = t0 + 0.5 * h
            if canonical:  # in (q, p = M q̇): symplectic for natural systems
                M0 = mass(q)
                p = np.einsum("...ij,...j->...i", M0, v)

                def momentum_rates(
                    qm: np.ndarray, pm: np.ndarray, tm: float = tm
                ) -> tuple[Any, Any]:
                    Mm = mass(qm)
                    vm = solve(Mm, pm)
                    return vm, pdot(tm, qm, vm, Mm)

                f0 = pdot(t0, q, v, M0)
                q1, p1 = _midpoint_solve(q, p, h, v, f0, momentum_rates, t0, tol, max_iter)
                q, v = q1, solve(mass(q1), p1)
            else:  # in (q, q̇)

                def velocity_rates(
                    qm: np.ndarray, vm: np.ndarray, tm: float = tm
                ) -> tuple[Any, Any]:
                    return vm, accel(tm, qm, vm, tau(tm, qm, vm))

                a0 = accel(t0, q, v, tau(t0, q, v))
                q, v = _midpoint_solve(q, v, h, v, a0, velocity_rates, t0, tol, max_iter)
            t0 += h
        out[k + 1, ..., :n] = q
        out[k + 1, ..., n:] = v
        done += substeps
        bar.update(done)
    return out


def _midpoint_solve(
    q: np.ndarray,
    y: np.ndarray,
    h: float,
    v0: np.ndarray,
    f0: np.ndarray,
    rates: Callable[[np.ndarray, np.ndarray], tuple[Any, Any]],
    t0: float,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point iteration of ``q1 = q + h v(m)``, ``y1 = y + h f(m)`` at the midpoint ``m``,
    from the explicit predictor ``(q + h v0, y + h f0)``; ``rates(qm, ym) -> (v, f)``."""
    q1, y1 = q + h * v0, y + h * f0
    err = float("inf")
    for _ in range(max_iter):
        vm, fm = rates(0.5 * (q + q1), 0.5 * (y + y1))
        q_new, y_new = q + h * vm, y + h * fm
        err = max(
            float(np.max(np.abs(q_new - q1) / (1.0 + np.abs(q_new)))),
            float(np.max(np.abs(y_new - y1) / (1.0 + np.abs(y_new)))),
        )
        q1, y1 = q_new, y_new
        if not np.isfinite(err):
            break
        if err <= tol:
            return q1, y1
    _no_convergence(t0, h, max_iter, err, tol)
    return q1, y1  # not reached: _no_convergence raises


def _no_convergence(t0: float, h: float, max_iter: int, err: float, tol: float) -> None:
    raise LagdynError(
        f"implicit midpoint: the fixed-point iteration did not converge at t = {t0:.6g} "
        f"(step {h:.3g}, {max_iter} iterations, change {err:.3g} > tol {tol:.3g}); "
        "use a smaller step (substeps=...) or raise max_iter"
    )


def _run_scipy(
    name: str,
    accel: AccelFn,
    tau: _Tau,
    x0: np.ndarray,
    grid: np.ndarray,
    n: int,
    rtol: float,
    atol: float,
) -> tuple[np.ndarray, int]:
    try:
        from scipy.integrate import solve_ivp
    except ImportError as exc:
        raise BackendUnavailableError(
            f"method 'scipy-{name}' needs scipy: pip install 'lagdyn[sim]'"
        ) from exc
    shape = x0.shape

    def fun(time_: float, y: np.ndarray) -> np.ndarray:
        xx = y.reshape(shape)
        q, v = xx[..., :n], xx[..., n:]
        a = accel(time_, q, v, tau(time_, q, v))
        return np.concatenate([v, np.broadcast_to(a, v.shape)], axis=-1).reshape(-1)

    try:
        sol = solve_ivp(
            fun,
            (float(grid[0]), float(grid[-1])),
            x0.reshape(-1),
            method=name,
            t_eval=grid,
            rtol=rtol,
            atol=atol,
        )
    except ValueError as exc:
        if "method" in str(exc).lower() or "must be" in str(exc).lower():
            raise LagdynError(f"scipy solve_ivp rejected method {name!r}: {exc}") from exc
        raise
    if not sol.success:
        raise LagdynError(f"scipy solve_ivp ({name}) failed: {sol.message}")
    xs = sol.y.T.reshape(grid.shape[0], *shape)
    return xs, int(sol.nfev)


# --------------------------------------------------------------------------- CLI
def add_cli_arguments(parser: Any, *, model_arguments: bool = True) -> None:
    """Add the options of ``lagdyn simulate`` to an :mod:`argparse` (sub)parser.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    model_arguments : bool
        Also add the positional ``model`` and ``--option/-o KEY=VALUE`` (leave them to the
        caller when it has its own model selection, as ``lagdyn.cli`` does).

    Examples
    --------
    >>> import argparse
    >>> from lagdyn.simulate import add_cli_arguments
    >>> p = argparse.ArgumentParser()
    >>> add_cli_arguments(p)
    >>> p.parse_args(["double_pendulum", "--t", "2"]).t
    2.0
    """
    if model_arguments:
        parser.add_argument("model", help="a name from `lagdyn zoo`")
        parser.add_argument(
            "--option",
            "-o",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="an option of the model factory, e.g. -o n=3",
        )
    sim = parser.add_argument_group("simulation")
    sim.add_argument("--t", type=float, default=10.0, help="final time (default 10)")
    sim.add_argument("--dt", type=float, default=0.01, help="output step (default 0.01)")
    sim.add_argument(
        "--x0",
        default=None,
        help="initial state q1,..,qn,qd1,..,qdn (default: angles 2.0 … 2.4 rad at rest)",
    )
    sim.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter value overriding the model defaults, e.g. --set g=9.81",
    )
    sim.add_argument("--method", default="rk4", help="rk4 (default), midpoint or scipy-<name>")
    sim.add_argument("--substeps", type=int, default=1, help="steps per output interval")
    out = parser.add_argument_group("output")
    out.add_argument("--gif", default=None, help="save an animation (GIF) here")
    out.add_argument("--mp4", default=None, help="save an animation (MP4, needs ffmpeg)")
    out.add_argument("--png", default=None, help="save time series (q, qd, energy) here")
    out.add_argument("--csv", default=None, help="save the trajectory as CSV here (pandas)")
    out.add_argument("--fps", type=int, default=30, help="animation frames per second")


def simulate_cli(
    args: Any, out: Any = None, *, system: Any = None, label: str | None = None
) -> int:
    """Run ``lagdyn simulate`` from parsed arguments (see :func:`add_cli_arguments`).

    Prints the simulation report; writes the requested GIF / MP4 / PNG / CSV files.

    Parameters
    ----------
    args : argparse.Namespace
        From a parser set up by :func:`add_cli_arguments`.
    out : text stream, optional
        Where the report goes (default stdout).
    system : LagrangianSystem, optional
        The model, when the caller built it (user models); otherwise
        ``zoo.get(args.model, **options)``.
    label : str, optional
        The zoo name used to find the planar geometry for animations (default
        ``args.model``).

    Returns
    -------
    int
        The exit status, 0.

    Raises
    ------
    LagdynError
        Bad ``--x0``, ``--set`` or ``--option`` values, unknown models or parameters, or an
        animation of a model without a known planar geometry.

    Examples
    --------
    >>> import argparse, io
    >>> from lagdyn.simulate import add_cli_arguments, simulate_cli
    >>> p = argparse.ArgumentParser()
    >>> add_cli_arguments(p)
    >>> buf = io.StringIO()
    >>> simulate_cli(p.parse_args(["double_pendulum", "--t", "0.1"]), buf)
    0
    >>> "energy drift" in buf.getvalue()
    True
    """
    stream = out if out is not None else sys.stdout
    name = label if label is not None else getattr(args, "model", None) or "model"
    if system is None:
        from . import zoo

        options: dict[str, Any] = {}
        for item in getattr(args, "option", []) or []:
            key, sep, value = item.partition("=")
            if not sep or not key.isidentifier():
                raise LagdynError(f"bad --option {item!r}: expected KEY=VALUE")
            options[key] = int(value) if value.lstrip("-").isdigit() else value
        system = zoo.get(args.model, **options)
    n = system.n
    by_name = {str(s): s for s in getattr(system, "parameters", ())}
    params: dict[Any, float] = {}
    for item in getattr(args, "set", []) or []:
        key, sep, value = item.partition("=")
        if not sep or key not in by_name:
            known = ", ".join(sorted(by_name)) or "none"
            raise LagdynError(f"bad --set {item!r}: expected NAME=VALUE with NAME in {known}")
        try:
            params[by_name[key]] = float(value)
        except ValueError as exc:
            raise LagdynError(f"bad --set {item!r}: {value!r} is not a number") from exc
    if args.x0 is None:
        x0 = np.concatenate([np.linspace(2.0, 2.4, n) if n > 1 else [2.0], np.zeros(n)])
    else:
        try:
            x0 = np.array([float(v) for v in args.x0.split(",")])
        except ValueError as exc:
            raise LagdynError(f"bad --x0 {args.x0!r}: expected comma-separated numbers") from exc
    positions = None
    if args.gif or args.mp4:  # fail before simulating when the geometry is unknown
        from . import plot

        positions = plot.positions_for(name, system)
    res = simulate(
        system,
        x0,
        float(args.t),
        dt=float(args.dt),
        method=args.method,
        substeps=int(args.substeps),
        params=params or None,
        progress=getattr(args, "progress", None),
    )
    print(f"{name}: n = {n}, t = 0 … {res.t[-1]:g}, {res.t.shape[0]} samples", file=stream)
    print(res.report().lines(), file=stream)
    if args.csv:
        res.to_dataframe().to_csv(args.csv, index=False)
        print(f"wrote {args.csv}", file=stream)
    if args.png or args.gif or args.mp4:
        from . import plot

        if args.png:
            fig = plot.plot_timeseries(res)
            fig.savefig(args.png, dpi=100)
            print(f"wrote {args.png}", file=stream)
        for path in (args.gif, args.mp4):
            if path and positions is not None:
                plot.animate(res, positions, path, fps=int(args.fps), title=name)
                print(f"wrote {path}", file=stream)
    return 0
