"""The integrators behind :func:`lagdyn.simulate` and ``ConstrainedNumericModel.simulate``.

One stack for free and constrained motion: each runner takes an acceleration function
``accel(t, q, qd, tau) -> qdd`` (batched over leading axes), an :class:`Actuation` and the
grid, and returns the states ``(n_t, ..., 2n)``. Internal: the public entry points are
:func:`lagdyn.simulate` and :meth:`lagdyn.numeric.constrained.ConstrainedNumericModel.simulate`.

Examples
--------
>>> import numpy as np
>>> from lagdyn.simulation.integrators import Actuation, Progress, run_rk4
>>> grid = np.linspace(0.0, 1.0, 11)
>>> accel = lambda t, q, qd, tau: -q          # harmonic oscillator
>>> xs = run_rk4(accel, Actuation(None, grid, 1, ()), np.array([1.0, 0.0]), grid, 1, 1,
...              Progress(10, False, ""))
>>> bool(abs(xs[-1, 0] - np.cos(1.0)) < 1e-5)
True
"""

from __future__ import annotations

import importlib
import math
import sys
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..codegen.binding import real_array
from ..errors import BackendUnavailableError, LagdynError, LagdynWarning, ShapeError
from ..numeric.model import check_option

__all__: list[str] = []  # internal; see lagdyn.simulation

#: Largest array of states a simulation may return (output times × batch × 2n doubles);
#: above it the run is refused before anything is allocated or integrated.
MAX_OUTPUT_BYTES = 2**30
#: Most integration steps (grid intervals × substeps) a fixed-step run may take; above it
#: the run is refused before it starts (``substeps=10**12`` would run for years).
MAX_STEPS = 10**8
#: A fixed-step run whose step h exceeds this many times the fastest time scale of the
#: motion at the start (h·ρ, ρ the spectral radius of the linearized dynamics) warns.
STEP_SCALE_WARNING = 1.0
#: A fixed-step run whose energy balance is off by more than this fraction of its energy
#: scale gets a :class:`~lagdyn.LagdynWarning` (unforced runs; 1.0 when τ or Q do work,
#: whose integral on the output grid is itself approximate).
ENERGY_DRIFT_WARNING = 0.1

TauCallable = Callable[[float, np.ndarray, np.ndarray], Any]
StepHook = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


class Progress:
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


class Actuation:
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
            arr = real_array("tau", tau)
            if arr.dtype.kind not in "fiu":
                raise ShapeError(
                    f"tau must be real numbers, an array or a callable; got dtype {arr.dtype}"
                )
            arr = arr.astype(float)
            if arr.ndim >= 2 and arr.shape[0] == t.shape[0] and arr.shape[-1] == n:
                if not broadcasts(arr.shape[1:], target):
                    raise ShapeError(
                        f"tau over time has shape {arr.shape}; expected (n_t, n) = "
                        f"({t.shape[0]}, {n}) or (n_t, ..., n) with ... broadcasting to the "
                        f"batch shape {batch}"
                    )
                self.series = arr
            elif broadcasts(arr.shape, target):
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
        arr = real_array("tau(t, q, qd)", out)
        if arr.dtype.kind not in "fiu":
            raise ShapeError(f"tau(t, q, qd) returned a non-real value of dtype {arr.dtype}")
        arr = arr.astype(float, copy=False)
        shape = (*q.shape[:-1], self.n)  # q.shape, or (..., nv) for a floating base
        if arr.ndim == 0 or arr.shape[-1] != self.n or not broadcasts(arr.shape, shape):
            raise ShapeError(
                f"tau(t, q, qd) returned shape {arr.shape}; expected (..., {self.n}) "
                f"broadcasting to the state shape {shape}"
            )
        return np.broadcast_to(arr, shape)

    def _interp(self, time: float) -> np.ndarray:
        assert self.series is not None
        t = self.t
        i = int(np.clip(np.searchsorted(t, time, side="right") - 1, 0, t.shape[0] - 2))
        w = (time - t[i]) / (t[i + 1] - t[i])
        w = min(max(w, 0.0), 1.0)
        return (1.0 - w) * self.series[i] + w * self.series[i + 1]


def broadcasts(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def _size_text(nbytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if nbytes < 1024 or unit == "EiB":
            return f"{nbytes:.0f} {unit}" if unit == "bytes" else f"{nbytes:.3g} {unit}"
        nbytes /= 1024
    return ""  # pragma: no cover


def check_output_size(n_t: int, width: int, what: str) -> None:
    """Refuse a run whose states (``n_t`` times × ``width`` doubles) exceed
    :data:`MAX_OUTPUT_BYTES`, with the estimate, before anything is allocated."""
    nbytes = float(n_t) * float(width) * 8.0
    if nbytes > MAX_OUTPUT_BYTES:
        raise LagdynError(
            f"simulate: {what} gives {n_t} output times × {width} state values: about "
            f"{_size_text(nbytes)} for the states alone, above the limit of "
            f"{_size_text(MAX_OUTPUT_BYTES)} (lagdyn.simulation.MAX_OUTPUT_BYTES); use a "
            "coarser output grid (a larger dt) with substeps=... for accuracy, or simulate "
            "in pieces"
        )


def initial_state(x0: Any, n: int) -> np.ndarray:
    """``x0`` as a finite float array ``(..., 2n)``, or a named error."""
    x = real_array("x0", x0)
    if x.dtype.kind == "c":
        raise ShapeError(
            "x0 holds complex values; states [q, qd] are real (pass x0.real if the imaginary "
            "parts are zero)"
        )
    if x.dtype.kind not in "fiu":
        raise ShapeError(f"x0 has dtype {x.dtype}, expected real numbers")
    x = np.array(x, dtype=float)
    if x.ndim == 0 or x.shape[-1] != 2 * n:
        raise ShapeError(
            f"x0 has shape {x.shape}; expected (..., 2n) = (..., {2 * n}) holding [q, qd] "
            f"for the {n} coordinates"
        )
    if not np.all(np.isfinite(x)):
        raise LagdynError("x0 contains NaN or infinite values")
    return x


def check_grid(t: Any, dt: float | None, width: int = 1) -> np.ndarray:
    """The output grid from ``t`` (a grid, or a final time with step ``dt``), refused when
    its states (``width`` doubles per time) would exceed :data:`MAX_OUTPUT_BYTES`."""
    arr = real_array("t", t)
    if arr.dtype.kind not in "fiu":
        raise LagdynError(f"t must be real times, got dtype {arr.dtype}")
    arr = arr.astype(float)
    if arr.ndim == 0:
        if dt is None:
            dt = 0.01
        if not (np.isfinite(arr) and arr > 0):
            raise LagdynError(f"a scalar t is the final time and must be positive, got {t!r}")
        if isinstance(dt, bool) or not isinstance(dt, (int, float, np.integer, np.floating)):
            raise LagdynError(f"dt must be a positive number, got {dt!r}")
        if not (dt > 0 and math.isfinite(dt)):
            raise LagdynError(f"dt must be a positive finite number, got {dt!r}")
        ratio = float(arr) / float(dt)
        if not ratio < 2.0**62:
            raise LagdynError(f"simulate: t = {float(arr):g} with dt = {dt:g} has too many steps")
        steps = max(1, math.ceil(ratio - 1e-9))
        check_output_size(steps + 1, width, f"t = {float(arr):g} with dt = {dt:g}")
        return np.linspace(0.0, float(arr), steps + 1)
    if dt is not None:
        raise LagdynError("dt= is only used with a scalar final time t")
    if arr.ndim != 1 or arr.shape[0] < 2:
        raise ShapeError(f"t must be a 1-D grid of at least 2 times, got shape {arr.shape}")
    check_output_size(arr.shape[0], width, "the grid t")
    if not np.all(np.isfinite(arr)):
        raise LagdynError("t contains NaN or infinite values")
    bad = np.nonzero(np.diff(arr) <= 0)[0]
    if bad.size:
        i = int(bad[0])
        raise LagdynError(
            f"t must be strictly increasing; t[{i}] = {arr[i]!r} ≥ t[{i + 1}] = {arr[i + 1]!r}"
        )
    return arr


def check_finite(q: np.ndarray, v: np.ndarray, t0: float, t1: float, steps: int) -> None:
    """Raise when the state left the doubles (NaN or inf) during ``[t0, t1]``."""
    if np.isfinite(q).all() and np.isfinite(v).all():
        return
    bad = ~(np.isfinite(q).all(axis=-1) & np.isfinite(v).all(axis=-1))
    member = ""
    if bad.ndim:
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        member = f" for batch member {first} ({int(bad.sum())} of {bad.size})"
    h = (t1 - t0) / max(steps, 1)
    raise LagdynError(
        f"simulate: the state became NaN or infinite between t = {t0:.6g} and t = {t1:.6g}"
        f"{member} (step {h:.3g}): the step is too large for the motion, or the motion "
        "blows up or reaches a singular state (M not invertible there); use a smaller dt "
        "or substeps=..., or method='midpoint'"
    )


def check_time_scale(
    method: str,
    accel: AccelFn,
    tau: Actuation,
    x0: np.ndarray,
    grid: np.ndarray,
    n: int,
    substeps: int,
) -> None:
    """Warn when a fixed step is long against the fastest time scale at the start.

    ρ is the largest |eigenvalue| of the Jacobian of (q, q̇) ↦ (q̇, q̈) at ``x0`` (forward
    differences, actuation included, so feedback gains count); h·ρ above
    :data:`STEP_SCALE_WARNING` means fewer than one step per radian of the fastest motion:
    RK4 then loses energy and the midpoint rule, though it conserves energy, turns the
    phase wrongly (ω h = 20: 2 atan(10) = 2.94 rad a step instead of 20). Skipped when it
    would cost more than the run (2n + 1 evaluations against 4 per step) and at states
    where the dynamics are not finite.
    """
    steps = (grid.shape[0] - 1) * substeps
    if 2 * n + 1 > 4 * steps:
        return
    h = float(np.diff(grid).max()) / substeps
    t0 = float(grid[0])

    def rate(x: np.ndarray) -> np.ndarray:
        q, v = x[..., :n], x[..., n:]
        a = np.broadcast_to(np.asarray(accel(t0, q, v, tau(t0, q, v)), dtype=float), q.shape)
        return np.concatenate([v, a], axis=-1)

    with np.errstate(all="ignore"):
        try:
            f0 = rate(x0)
            cols = []
            for j in range(2 * n):
                d = 1e-7 * (1.0 + np.abs(x0[..., j]))
                x = x0.copy()
                x[..., j] += d
                cols.append((rate(x) - f0) / d[..., None])
        except (LagdynError, ArithmeticError, ValueError):
            return  # the run itself will say what is wrong
        jac = np.stack(cols, axis=-1)  # (..., 2n, 2n)
        flat = jac.reshape(-1, 2 * n, 2 * n)
        flat = flat[np.isfinite(flat).all(axis=(-2, -1))]
        if not flat.size:
            return
        rho = float(np.abs(np.linalg.eigvals(flat)).max())
    if not h * rho > STEP_SCALE_WARNING:
        return
    warnings.warn(
        f"simulate: the step {h:.3g} is {h * rho:.3g} times the fastest time scale of the "
        f"motion at the start (1/ρ = {1 / rho:.3g}, ρ the largest |eigenvalue| of the "
        f"linearized dynamics): {method} resolves it poorly (accurate for h·ρ well below 1); "
        "use a smaller dt or substeps=... (LagdynWarning; "
        "lagdyn.simulation.STEP_SCALE_WARNING)",
        LagdynWarning,
        stacklevel=4,
    )


def check_energy(
    method: str,
    energy: np.ndarray,
    kinetic: np.ndarray | None,
    work: np.ndarray | None,
    grid: np.ndarray,
    substeps: int,
) -> None:
    """Warn when a fixed-step run's energy balance is off by more than
    :data:`ENERGY_DRIFT_WARNING` of its energy scale (arrays with time on axis 0).

    The balance is E(t) − E(0) − W(t) with W the work of τ and Q (zero when nothing acts);
    the scale is the largest of |E(0)|, the kinetic energy and |W| over the run, per
    trajectory. With τ or Q doing work the threshold is 1 (W is integrated on the output
    grid by the trapezoid rule, itself an approximation).
    """
    if method not in ("rk4", "midpoint") or energy.shape[0] < 2:
        return
    e0 = energy[:1]
    forced = work is not None and bool(np.any(work != 0))
    balance = energy - e0 - (work if forced else 0.0)
    scale = np.abs(e0[0])
    if kinetic is not None:
        scale = np.maximum(scale, np.abs(kinetic).max(axis=0))
    if forced:
        assert work is not None
        scale = np.maximum(scale, np.abs(work).max(axis=0))
    off = np.abs(balance).max(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.where(scale > 0, off / scale, np.where(off > 0, np.inf, 0.0))
    limit = 1.0 if forced else ENERGY_DRIFT_WARNING
    worst = float(np.max(relative, initial=0.0))
    if not worst > limit:
        return
    h = float(np.diff(grid).max()) / substeps
    what = "energy balance E(t) − E(0) − ∫q̇ᵀ(τ + Q)dt" if forced else "energy"
    i = np.unravel_index(int(np.argmax(relative)), np.shape(relative)) if np.ndim(off) else ()
    warnings.warn(
        f"simulate: the {what} is off by {float(off[i]):.3g} ({worst:.3g} × its energy scale "
        f"{float(scale[i]):.3g}), far more than {method} loses on steps it resolves: the step "
        f"({h:.3g}) is too large for this motion; use a smaller dt or substeps=..., or "
        "method='midpoint' (LagdynWarning; lagdyn.simulation.ENERGY_DRIFT_WARNING)",
        LagdynWarning,
        stacklevel=3,
    )


AccelFn = Callable[[float, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def run_rk4(
    accel: AccelFn,
    tau: Actuation,
    x0: np.ndarray,
    grid: np.ndarray,
    n: int,
    substeps: int,
    bar: Progress,
    after_step: StepHook | None = None,
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
            if after_step is not None:
                q, v = after_step(q, v)
        check_finite(q, v, t0, float(grid[k + 1]), substeps)
        out[k + 1, ..., :n] = q
        out[k + 1, ..., n:] = v
        done += substeps
        bar.update(done)
    return out


def run_midpoint(
    num: Any,
    accel: AccelFn,
    tau: Actuation,
    x0: np.ndarray,
    grid: np.ndarray,
    n: int,
    substeps: int,
    tol: float,
    max_iter: int,
    bar: Progress,
    after_step: StepHook | None = None,
) -> np.ndarray:
    newton = newton_kernel(num)
    canonical = newton is not None or (
        callable(getattr(num, "M", None)) and callable(getattr(num, "C", None))
    )
    out = np.empty((grid.shape[0], *x0.shape))
    out[0] = x0
    q, v = x0[..., :n].copy(), x0[..., n:].copy()
    vm: np.ndarray | None = None  # the last midpoint velocity (Newton's predictor)

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
            if newton is not None:
                q, v, vm = newton_midpoint_step(newton, mass, tau, q, v, t0, h, tol, max_iter, vm)
            elif canonical:  # in (q, p = M q̇): symplectic for natural systems
                M0 = mass(q)
                p = np.einsum("...ij,...j->...i", M0, v)

                def momentum_rates(
                    qm: np.ndarray, pm: np.ndarray, tm: float = tm
                ) -> tuple[Any, Any]:
                    Mm = mass(qm)
                    vm = solve(Mm, pm)
                    return vm, pdot(tm, qm, vm, Mm)

                f0 = pdot(t0, q, v, M0)
                q1, p1 = midpoint_solve(q, p, h, v, f0, momentum_rates, t0, tol, max_iter)
                q, v = q1, solve(mass(q1), p1)
            else:  # in (q, q̇)

                def velocity_rates(
                    qm: np.ndarray, vm: np.ndarray, tm: float = tm
                ) -> tuple[Any, Any]:
                    return vm, accel(tm, qm, vm, tau(tm, qm, vm))

                a0 = accel(t0, q, v, tau(t0, q, v))
                q, v = midpoint_solve(q, v, h, v, a0, velocity_rates, t0, tol, max_iter)
            if after_step is not None:
                q, v = after_step(q, v)
            t0 += h
        check_finite(q, v, float(grid[k]), float(grid[k + 1]), substeps)
        out[k + 1, ..., :n] = q
        out[k + 1, ..., n:] = v
        done += substeps
        bar.update(done)
    return out


#: Newton kernels of the midpoint step per numeric model (generated once per model)
_NEWTON: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def newton_kernel(num: Any) -> Any:
    r"""Generated kernel of the implicit midpoint step's Newton iteration, or None.

    One output ``J(q, v, t)`` of shape ``(n, 4n + 1)`` stacks ``[M, K, P_q, P_v, P]`` with
    :math:`K = \partial (M v)/\partial q`, :math:`P = K v - h + Q` (so that
    :math:`\dot p = P + \tau` for :math:`p = M\dot q`, since :math:`\dot M v = K v`) and
    its Jacobians, all exact derivatives of the system's closed form and bound with the
    model's parameters. None (the integrator falls back to fixed-point iteration) for
    models that do not come from a closed-form :class:`~lagdyn.LagrangianSystem` (a
    user :class:`~lagdyn.simulation.DynamicsModel`, the recursive route of robot chains,
    a model with parameters passed per call).
    """
    memo = _weakrefable(num)
    if memo and num in _NEWTON:
        return _NEWTON[num]
    system = getattr(num, "system", None)
    kernel = None
    if (
        system is not None
        and getattr(num, "route", "closed") == "closed"
        and not getattr(num, "free_parameters", ())
        and hasattr(system, "plain_symbols")
    ):
        import lagdyn.numeric.expressions as expressions

        stacked = midpoint_newton_rows(system)
        # the model's own backend when it compiles (C, numba), else numpy
        backend = num.backend if getattr(num, "backend", None) in ("c", "numba") else "numpy"
        kernel = expressions.lambdify_expressions(
            system, {"J": stacked}, dict(getattr(num, "bound", {})), backend=backend
        ).J
    if memo:
        _NEWTON[num] = kernel
    return kernel


def midpoint_newton_rows(system: Any) -> Any:
    r"""The (n, 4n + 1) sympy matrix ``[M, K, P_q, P_v, P]`` of the implicit midpoint's Newton
    iteration in plain symbols: :math:`K = \partial (M v)/\partial q`,
    :math:`P = K v - h + Q` and its Jacobians (what :func:`newton_kernel` compiles and the
    FMU export prints).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.simulation.integrators import midpoint_newton_rows
    >>> midpoint_newton_rows(ld.zoo.double_pendulum()).shape
    (2, 9)
    """
    import sympy as sp

    qs, vs = system.plain_symbols
    M = sp.Matrix(system.M.applyfunc(system.plain))
    hb = sp.Matrix(system.h.applyfunc(system.plain))
    Q = sp.Matrix(system.forces.applyfunc(system.plain))
    v = sp.Matrix(vs)
    K = (M * v).jacobian(list(qs))
    P = K * v - hb + Q
    stacked = M.row_join(K).row_join(P.jacobian(list(qs)))
    return stacked.row_join(P.jacobian(list(vs))).row_join(P)


def _weakrefable(obj: Any) -> bool:
    try:
        weakref.ref(obj)
    except TypeError:
        return False
    return True


def newton_midpoint_step(
    kernel: Any,
    mass: Callable[[np.ndarray], np.ndarray],
    tau: Actuation,
    q: np.ndarray,
    v: np.ndarray,
    t0: float,
    h: float,
    tol: float,
    max_iter: int,
    guess: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""One canonical implicit midpoint step ``(q, v) -> (q1, v1)`` solved by Newton.

    The unknown is the midpoint velocity :math:`\bar v`; with :math:`\bar q = q + \tfrac h2
    \bar v` and :math:`p = M(q) v` the step is :math:`R(\bar v) = M(\bar q)\bar v - p -
    \tfrac h2 (P(\bar q, \bar v) + \tau) = 0`, whose Jacobian
    :math:`M + \tfrac h2 (K - P_v) - \tfrac{h^2}{4} P_q` comes from the generated kernel
    (feedback torques enter the residual exactly but not the Jacobian: a simplified Newton
    step). Then :math:`q_1 = q + h\bar v`, :math:`p_1 = 2M(\bar q)\bar v - p`,
    :math:`v_1 = M(q_1)^{-1} p_1` — the same solution as the fixed-point form. Returns
    ``(q1, v1, v̄)``; ``guess`` is the previous step's ``v̄``.
    """
    n = q.shape[-1]
    tm = t0 + 0.5 * h
    matvec, solve = _linalg(q.ndim)
    p = matvec(mass(q), v)
    # predictor: v + (v - vm_prev), i.e. the midpoint velocity extrapolated from the
    # previous step (second order), else v; Newton converges quadratically from either
    vm = v if guess is None else 2.0 * v - guess
    err = math.inf
    for _ in range(max_iter):
        qm = q + 0.5 * h * vm
        J = np.asarray(kernel(qm, vm, t=tm), dtype=float)
        Mm = J[..., :n]
        f = J[..., 4 * n] + np.asarray(tau(tm, qm, vm), dtype=float)
        R = matvec(Mm, vm) - p - 0.5 * h * f
        Jac = Mm + (0.5 * h) * (J[..., n : 2 * n] - J[..., 3 * n : 4 * n])
        Jac -= (0.25 * h * h) * J[..., 2 * n : 3 * n]
        try:
            dv = solve(Jac, R)
        except np.linalg.LinAlgError:  # exactly singular: report as non-convergence
            break
        vm = vm - dv
        prev, err = err, float((np.abs(dv) / (1.0 + np.abs(vm))).max(initial=0.0))
        if not math.isfinite(err):
            break
        # converged when the change, or the estimated remaining error rho/(1-rho)·change
        # (rho = contraction of the last two changes; Hairer & Wanner, ODE II, IV.8), is
        # within tol: Newton's quadratic convergence usually saves the last evaluation
        rho = err / prev if 0.0 < prev < math.inf else 1.0
        if err <= tol or (rho < 0.5 and rho / (1.0 - rho) * err <= tol):
            p1 = 2.0 * matvec(mass(q + 0.5 * h * vm), vm) - p
            q1 = q + h * vm
            return q1, solve(mass(q1), p1), vm
    no_convergence(t0, h, max_iter, err, tol, "Newton iteration")
    raise AssertionError("not reached")  # pragma: no cover


def _linalg(ndim: int) -> tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]:
    """(matvec, solve) for one state (plain ``@``, cheapest) or a batch (broadcasting)."""
    if ndim == 1:
        return np.dot, np.linalg.solve
    return (
        lambda A, x: np.einsum("...ij,...j->...i", A, x),
        lambda A, b: np.linalg.solve(A, b[..., None])[..., 0],
    )


def midpoint_solve(
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
    no_convergence(t0, h, max_iter, err, tol)
    return q1, y1  # not reached: no_convergence raises


def no_convergence(
    t0: float, h: float, max_iter: int, err: float, tol: float, what: str = "fixed-point iteration"
) -> None:
    raise LagdynError(
        f"implicit midpoint: the {what} did not converge at t = {t0:.6g} "
        f"(step {h:.3g}, {max_iter} iterations, change {err:.3g} > tol {tol:.3g}); "
        "use a smaller step (substeps=...) or raise max_iter"
    )


def run_scipy(
    name: str,
    accel: AccelFn,
    tau: Actuation,
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
    finite = np.isfinite(xs).reshape(grid.shape[0], -1).all(axis=-1)
    if not finite.all():
        k = int(np.argmin(finite))
        check_finite(xs[k, ..., :n], xs[k, ..., n:], float(grid[k - 1]), float(grid[k]), 1)
    return xs, int(sol.nfev)


def integrate(
    method: str,
    accel: AccelFn,
    tau: Actuation,
    x0: np.ndarray,
    grid: np.ndarray,
    n: int,
    *,
    model: Any = None,
    substeps: int = 1,
    tol: float = 1e-12,
    max_iter: int = 50,
    rtol: float = 1e-9,
    atol: float = 1e-11,
    progress: bool | None = None,
    after_step: StepHook | None = None,
) -> tuple[np.ndarray, int]:
    """Run ``method`` ("rk4", "midpoint", "scipy-<name>"): states ``(n_t, ..., 2n)`` and steps.

    ``model`` (optional) provides ``M(q)`` and ``C(q, qd)`` for the canonical midpoint form;
    ``after_step(q, qd) -> (q, qd)`` is applied after every fixed step (projection).
    """
    if not isinstance(method, str):
        raise LagdynError(f"method must be a string, got {method!r}")
    if isinstance(substeps, bool) or not isinstance(substeps, int) or substeps < 1:
        raise LagdynError(f"substeps must be a positive integer, got {substeps!r}")
    check_option("tol", tol)
    check_option("max_iter", max_iter, integer=True)
    check_option("rtol", rtol)
    check_option("atol", atol, zero=True)
    if method.startswith("scipy-"):
        if after_step is not None:
            raise LagdynError("projection after every step needs a fixed-step method (rk4)")
        return run_scipy(method[6:], accel, tau, x0, grid, n, rtol, atol)
    if method not in ("rk4", "midpoint"):
        raise LagdynError(
            f"unknown method {method!r}: use 'rk4', 'midpoint' or 'scipy-<name>' "
            "(e.g. 'scipy-RK45', 'scipy-DOP853', 'scipy-Radau')"
        )
    total = (grid.shape[0] - 1) * substeps
    if total > MAX_STEPS:
        raise LagdynError(
            f"simulate: {grid.shape[0] - 1} grid intervals × {substeps} substeps are {total} "
            f"steps, above the limit of {MAX_STEPS} (lagdyn.simulation.MAX_STEPS; the run "
            "would take hours or years): take fewer substeps, or simulate in pieces"
        )
    check_time_scale(method, accel, tau, x0, grid, n, substeps)
    if progress is None:
        progress = total > 10_000 and sys.stderr.isatty()
    bar = Progress(total, bool(progress), f"lagdyn {method}")
    try:
        if method == "rk4":
            xs = run_rk4(accel, tau, x0, grid, n, substeps, bar, after_step)
        else:
            xs = run_midpoint(
                model, accel, tau, x0, grid, n, substeps, tol, max_iter, bar, after_step
            )
    finally:
        bar.close()
    return xs, total
