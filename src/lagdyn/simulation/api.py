"""The :func:`simulate` entry point (see :mod:`lagdyn.simulation` for the methods).

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.simulation import simulate
>>> res = simulate(ld.zoo.double_pendulum(), [0.5, 0.0, 0.0, 0.0], np.linspace(0, 1, 11))
>>> res.q.shape
(11, 2)
"""

from __future__ import annotations

import inspect
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..codegen.binding import real_array
from ..errors import LagdynError, ShapeError
from .integrators import (
    MAX_STEPS,
    Actuation,
    Progress,
    check_energy,
    check_finite,
    check_grid,
    initial_state,
    integrate,
)
from .result import SimulationResult

__all__ = ["DynamicsModel", "simulate"]

Method = str  # "rk4", "midpoint" or "scipy-<name>"


@runtime_checkable
class DynamicsModel(Protocol):
    """What :func:`simulate` needs from a model (a :class:`~lagdyn.numeric.NumericModel` fits).

    ``n`` degrees of freedom; ``forward_dynamics(q, qd, tau)`` and ``energy(q, qd)``
    batched over leading axes (``(..., n)`` → ``(..., n)`` and ``(...)``). Optional
    ``M(q)`` and ``C(q, qd)`` enable the symplectic form of the midpoint method.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.simulation import DynamicsModel
    >>> sys = ld.zoo.double_pendulum()
    >>> isinstance(sys.lambdify(sys.defaults), DynamicsModel)
    True
    """

    n: int

    def forward_dynamics(self, q: Any, qd: Any, tau: Any = None) -> Any:
        """q̈ of shape ``(..., n)``."""

    def energy(self, q: Any, qd: Any) -> Any:
        """E of shape ``(...)``."""


def _is_floating(num: Any) -> bool:
    """A floating-base numeric model (nq ≠ nv, a manifold step): duck-typed, since the
    simulation layer sits below ``robot/``."""
    return all(hasattr(num, a) for a in ("nq", "nv", "step", "integrate", "energy"))


def _as_model(model: Any, params: Mapping[Any, float] | None) -> Any:
    numeric = hasattr(model, "forward_dynamics") and hasattr(model, "energy")
    if numeric and (hasattr(model, "n") or _is_floating(model)):
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
        Parameter values overriding ``system.defaults`` when ``model`` is a system. Every
        bound value is checked against its symbol's assumptions (a ``positive`` mass bound
        to ``-1`` is refused; :func:`lagdyn.codegen.binding.check_value`); names that are
        not parameters are ignored with a :class:`~lagdyn.LagdynWarning`.
    tol, max_iter : float, int
        Convergence of the implicit midpoint Newton (or fixed-point) iteration (per-component
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
        ``x0`` not of shape ``(..., 2n)``, ragged or complex; a tau of the wrong shape, a
        ``t`` that is not 1-D.
    LagdynError
        Non-increasing or non-finite ``t``; a grid whose states would exceed
        :data:`~lagdyn.simulation.MAX_OUTPUT_BYTES` (refused with the estimate before
        anything is allocated: ``t=1e12`` at ``dt=0.01`` asks for 728 TiB); an unknown
        method; tolerances or ``max_iter`` that are not positive; a midpoint iteration that
        does not converge; a state that becomes NaN or infinite (the time interval and
        batch member named); a parameter value that is not a finite real number or breaks
        its symbol's assumptions (``positive``, ``nonnegative``, ``integer``, ...).

    Warns
    -----
    LagdynWarning
        A fixed-step run (``rk4``, ``midpoint``) whose energy balance
        E(t) − E(0) − ∫q̇ᵀ(τ + Q)dt is off by more than
        :data:`~lagdyn.simulation.ENERGY_DRIFT_WARNING` (10 %) of the energy scale — the
        largest of |E(0)|, the kinetic energy and the work over the run — (or by more than
        the scale itself when τ or Q do work): the step is too large for the motion.
    BackendUnavailableError
        A scipy method without scipy installed.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulation import simulate
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
    if _is_floating(num):
        return _simulate_floating(
            num,
            x0,
            t,
            tau=tau,
            method=method,
            substeps=substeps,
            dt=dt,
            phi=phi,
            progress=progress,
            started=started,
        )
    n = int(num.n)
    x = initial_state(x0, n)
    grid = check_grid(t, dt, x.size)  # the states' size bounded before anything runs
    batch = tuple(x.shape[:-1])
    tau_src = Actuation(tau, grid, n, batch)
    phi_fn = phi if phi is not None else getattr(num, "phi", None)
    if phi_fn is not None and not callable(phi_fn):
        phi_fn = None

    fd_t = _accepts_t(num.forward_dynamics)

    def accel(time_: float, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> np.ndarray:
        if fd_t:
            return np.asarray(num.forward_dynamics(q, qd, tau, t=float(time_)), dtype=float)
        return np.asarray(num.forward_dynamics(q, qd, tau), dtype=float)

    xs, steps = integrate(
        method,
        accel,
        tau_src,
        x,
        grid,
        n,
        model=num,
        substeps=substeps,
        tol=tol,
        max_iter=max_iter,
        rtol=rtol,
        atol=atol,
        progress=progress,
    )

    # xs: (n_t, ..., 2n) → batch first
    q_t, qd_t = xs[..., :n], xs[..., n:]
    energy, kinetic, taus, phis = _record(num, grid, q_t, qd_t, tau_src, phi_fn)
    forces = _generalized_forces(num, grid, q_t, qd_t)
    # unforced (no τ, and no Q in the model) ⇒ E is conserved: the recorded Q of a
    # conservative model is rounding only, so it does not count as work
    unforced = tau_src.is_zero and not _has_forces(num)
    work = None if unforced else _work(grid, qd_t, taus, forces)
    check_energy(method, energy, kinetic, work, grid, substeps)
    return _result(
        grid,
        q_t,
        qd_t,
        energy,
        kinetic,
        taus,
        forces,
        phis,
        method,
        _names(num, n),
        steps,
        started,
    )


def _record(
    num: Any,
    grid: np.ndarray,
    q_t: np.ndarray,
    qd_t: np.ndarray,
    tau_src: Actuation,
    phi_fn: Callable[[np.ndarray], Any] | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Energy, kinetic energy, actuation and constraint values along a run (time first)."""
    energy = np.asarray(num.energy(q_t, qd_t), dtype=float)
    kinetic = energy - np.asarray(num.energy(q_t, np.zeros_like(qd_t)), dtype=float)
    taus = np.empty_like(qd_t)
    for k, tk in enumerate(grid):
        taus[k] = tau_src(float(tk), q_t[k], qd_t[k])
    phis = None
    if phi_fn is not None:
        phis = real_array("phi(q)", phi_fn(q_t))
        if phis.dtype.kind not in "fiu":
            raise ShapeError(f"phi(q) returned a non-real value of dtype {phis.dtype}")
        phis = phis.astype(float)
        if phis.ndim == q_t.ndim - 1:
            phis = phis[..., None]
    return energy, kinetic, taus, phis


def _result(
    grid: np.ndarray,
    q_t: np.ndarray,
    qd_t: np.ndarray,
    energy: np.ndarray,
    kinetic: np.ndarray,
    taus: np.ndarray,
    forces: np.ndarray | None,
    phis: np.ndarray | None,
    method: str,
    names: tuple[str, ...],
    steps: int,
    started: float,
    velocity_names: tuple[str, ...] = (),
) -> SimulationResult:
    """The :class:`SimulationResult` of arrays with time first: batch axes moved first."""
    lead = q_t.ndim - 2  # number of batch axes

    def batch_first(a: np.ndarray) -> np.ndarray:
        return np.moveaxis(a, 0, a.ndim - 2) if lead else a

    def series(a: np.ndarray) -> np.ndarray:  # (n_t, ...) → (..., n_t)
        return np.moveaxis(a, 0, -1) if lead else a

    return SimulationResult(
        t=grid,
        q=batch_first(q_t),
        qd=batch_first(qd_t),
        energy=series(energy),
        kinetic=series(kinetic),
        tau=batch_first(taus),
        Q=None if forces is None else batch_first(forces),
        phi=None if phis is None else batch_first(phis),
        method=method,
        names=names,
        steps=int(steps),
        wall_time=time.perf_counter() - started,
        velocity_names=velocity_names,
    )


def _simulate_floating(
    num: Any,
    x0: Any,
    t: Any,
    *,
    tau: Any,
    method: str,
    substeps: int,
    dt: float | None,
    phi: Callable[[np.ndarray], Any] | None,
    progress: bool | None,
    started: float,
) -> SimulationResult:
    r""":func:`simulate` for a floating base: RK4 on the configuration manifold.

    ``x0 = [q, v]`` of shape ``(..., nq + nv)`` (q with the base quaternion, v the base
    twist in the base frame and the joint rates); each step is the model's
    Runge–Kutta–Munthe-Kaas ``step`` (q moves by ``q ⊕ θ``, the quaternion stays of unit
    norm), τ of shape ``(..., nv)`` is constant, over time or a feedback ``tau(t, q, v)``
    evaluated at every stage. The result holds ``q (..., n_t, nq)`` and ``qd = v
    (..., n_t, nv)``; the energy balance is checked as for any model (the power is vᵀτ).

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.robot.floating import EXAMPLE_URDF
    >>> robot = ld.robot.from_urdf(EXAMPLE_URDF, base="floating", parameters="numeric")
    >>> num = robot.lambdify({"g": 9.81}, kernels=["forward_dynamics", "energy"])
    >>> x0 = np.concatenate([robot.neutral(), np.zeros(9)])
    >>> res = ld.simulate(num, x0, 0.2, dt=0.01)
    >>> res.q.shape, res.qd.shape, round(float(res.q[-1, 2]), 4)     # falls ½ g t²
    ((21, 10), (21, 9), -0.1962)
    """
    if method != "rk4":
        raise LagdynError(
            f"simulate: a floating base is integrated on its configuration manifold by "
            f"method='rk4' (Runge–Kutta–Munthe-Kaas, the quaternion kept of unit norm); "
            f"got method={method!r}"
        )
    if not isinstance(substeps, int) or substeps < 1:
        raise LagdynError(f"substeps must be a positive integer, got {substeps!r}")
    nq, nv = int(num.nq), int(num.nv)
    x = real_array("x0", x0)
    if x.dtype.kind not in "fiu" or x.ndim == 0 or x.shape[-1] != nq + nv:
        raise ShapeError(
            f"x0 has shape {x.shape}; expected (..., nq + nv) = (..., {nq + nv}) holding "
            f"[q, v] with q = base position, quaternion x y z w, joints ({nq}) and v = base "
            f"linear and angular velocity in the base frame, joint rates ({nv})"
        )
    x = np.array(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise LagdynError("x0 contains NaN or infinite values")
    grid = check_grid(t, dt, x.size)
    batch = tuple(x.shape[:-1])
    tau_src = Actuation(tau, grid, nv, batch)
    q, v = x[..., :nq].copy(), x[..., nq:].copy()
    qs = np.empty((grid.shape[0], *q.shape))
    vs = np.empty((grid.shape[0], *v.shape))
    qs[0], vs[0] = q, v
    total = (grid.shape[0] - 1) * substeps
    if total > MAX_STEPS:
        raise LagdynError(
            f"simulate: {grid.shape[0] - 1} grid intervals × {substeps} substeps are {total} "
            f"steps, above the limit of {MAX_STEPS} (lagdyn.simulation.MAX_STEPS): take "
            "fewer substeps, or simulate in pieces"
        )
    if progress is None:
        progress = total > 10_000 and sys.stderr.isatty()
    bar = Progress(total, bool(progress), "lagdyn rk4 (floating base)")
    done = 0
    try:
        for k in range(grid.shape[0] - 1):
            t0 = float(grid[k])
            h = (float(grid[k + 1]) - t0) / substeps
            for s_ in range(substeps):
                q, v = num.step(q, v, tau_src, h, t=t0 + s_ * h)
            check_finite(q, v, t0, float(grid[k + 1]), substeps)
            qs[k + 1], vs[k + 1] = q, v
            done += substeps
            bar.update(done)
    finally:
        bar.close()
    energy, kinetic, taus, phis = _record(num, grid, qs, vs, tau_src, phi)
    work = None if tau_src.is_zero else _work(grid, vs, taus, None)
    check_energy(method, energy, kinetic, work, grid, substeps)
    joints = tuple(getattr(getattr(num, "robot", None), "joint_names", ())) or tuple(
        f"q{i}" for i in range(nq - 7)
    )
    names = ("base_x", "base_y", "base_z", "quat_x", "quat_y", "quat_z", "quat_w", *joints)
    rates = (
        *(f"base_v{a}" for a in "xyz"),
        *(f"base_w{a}" for a in "xyz"),
        *(f"{j}_d" for j in joints),
    )
    return _result(
        grid,
        qs,
        vs,
        energy,
        kinetic,
        taus,
        None,
        phis,
        method,
        names,
        (grid.shape[0] - 1) * substeps,
        started,
        velocity_names=rates,
    )


def _has_forces(num: Any) -> bool:
    """Whether the model's system has generalized forces (True when it cannot tell)."""
    system = getattr(num, "system", None)
    forces = getattr(system, "forces", None)
    if forces is None:
        return getattr(num, "bias", None) is not None and system is None
    return any(f != 0 for f in forces)


def _work(
    grid: np.ndarray, qd_t: np.ndarray, taus: np.ndarray, forces: np.ndarray | None
) -> np.ndarray:
    """∫ q̇ᵀ(τ + Q) dt by the trapezoid rule, time on axis 0 (as SimulationResult.work)."""
    force = taus if forces is None else taus + forces
    power = np.einsum("...i,...i->...", qd_t, force)
    dt = np.diff(grid).reshape((-1,) + (1,) * (power.ndim - 1))
    out = np.zeros_like(power)
    np.cumsum(0.5 * (power[1:] + power[:-1]) * dt, axis=0, out=out[1:])
    return out


def _generalized_forces(
    num: Any, grid: np.ndarray, q_t: np.ndarray, qd_t: np.ndarray
) -> np.ndarray | None:
    """Q along the run as ``C q̇ + g − h`` (h = C q̇ + G q̇ + g − Q the model's bias).

    What is recorded is Q − G q̇; the gyroscopic term G q̇ does no work (G is skew), so the
    power q̇ᵀQ and the passivity balance are exact. None when the model lacks C, g or bias.
    """
    if not all(callable(getattr(num, k, None)) for k in ("C", "g", "bias")):
        return None
    try:
        C = np.asarray(num.C(q_t, qd_t), dtype=float)
        g = np.asarray(num.g(q_t), dtype=float)
        h = np.stack(
            [
                np.broadcast_to(
                    np.asarray(num.bias(q_t[k], qd_t[k], t=float(tk)), float), g[k].shape
                )
                for k, tk in enumerate(grid)
            ]
        )
    except TypeError:  # a model whose bias takes no time
        return None
    return np.einsum("...ij,...j->...i", C, qd_t) + g - h
