r"""Exciting trajectories: finite Fourier series optimised for a well-conditioned regressor.

Each joint follows a finite Fourier series with base frequency :math:`\omega_f` (Swevers
et al. 1997), periodic and smooth, with analytic rates and accelerations:

.. math::
    q_i(t) = q_{i,0} + \sum_{l=1}^{L} \frac{a_{il}}{\omega_f l}\sin(\omega_f l t)
             - \frac{b_{il}}{\omega_f l}\cos(\omega_f l t).

:func:`excitation_trajectory` chooses the coefficients to minimise the condition number
of the base regressor stacked along the trajectory (scipy's L-BFGS-B when scipy is
installed, else a seeded random search), with the joint excursion bounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import LagdynError, ShapeError

__all__ = ["FourierTrajectory", "excitation_trajectory"]


@dataclass(frozen=True)
class FourierTrajectory:
    """A finite Fourier series trajectory, one series per joint.

    Attributes
    ----------
    omega : float
        Base angular frequency ω_f (period 2π/ω_f).
    a, b : ndarray, shape (n, L)
        Sine and cosine coefficients of the rates.
    q0 : ndarray, shape (n,)
        Offsets.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> FT = ld.identification.FourierTrajectory
    >>> traj = FT(1.0, np.array([[1.0]]), np.array([[0.0]]), np.zeros(1))
    >>> q, qd, qdd = traj(np.array([0.0, np.pi / 2]))
    >>> q.round(12).ravel(), qd.round(12).ravel()
    (array([0., 1.]), array([1., 0.]))
    """

    omega: float
    a: np.ndarray
    b: np.ndarray
    q0: np.ndarray

    @property
    def period(self) -> float:
        """2π/ω_f.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> FT = ld.identification.FourierTrajectory
        >>> FT(np.pi, np.ones((1, 1)), np.zeros((1, 1)), np.zeros(1)).period
        2.0
        """
        return float(2 * np.pi / self.omega)

    def __call__(self, t: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Positions, rates and accelerations at times ``t``: three arrays (len(t), n).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> FT = ld.identification.FourierTrajectory
        >>> traj = FT(2.0, np.ones((2, 3)), np.zeros((2, 3)), np.zeros(2))
        >>> [x.shape for x in traj(np.linspace(0, 1, 5))]
        [(5, 2), (5, 2), (5, 2)]
        """
        tt = np.atleast_1d(np.asarray(t, dtype=float))
        L = self.a.shape[1]
        wl = self.omega * np.arange(1, L + 1)  # (L,)
        s = np.sin(tt[:, None] * wl)  # (N, L)
        c = np.cos(tt[:, None] * wl)
        q = self.q0 + (s / wl) @ self.a.T - (c / wl) @ self.b.T
        qd = c @ self.a.T + s @ self.b.T
        qdd = (-s * wl) @ self.a.T + (c * wl) @ self.b.T
        return q, qd, qdd


def _excursion(a: np.ndarray, b: np.ndarray, omega: float) -> float:
    """An upper bound of max |q − q0| over time: Σ_l sqrt(a² + b²)/(ω l)."""
    L = a.shape[1]
    wl = omega * np.arange(1, L + 1)
    return float(np.max(np.sum(np.hypot(a, b) / wl, axis=1)))


def excitation_trajectory(
    model: Any,
    *,
    n_harmonics: int = 5,
    period: float = 10.0,
    n_samples: int = 100,
    q0: Any = None,
    amplitude: float = 1.0,
    values: Mapping[Any, float] | None = None,
    seed: int = 0,
    maxiter: int = 100,
    optimizer: str = "auto",
) -> tuple[FourierTrajectory, float]:
    """A Fourier trajectory minimising the condition number of the stacked base regressor.

    Parameters
    ----------
    model : BaseParameters or RegressorFunction
        Whose (base) regressor should be well conditioned.
    n_harmonics : int
        Harmonics per joint (L).
    period : float
        Period 2π/ω_f of the trajectory.
    n_samples : int
        Samples over one period at which Y_b is stacked.
    q0 : array_like (n,), optional
        Offsets (default zeros).
    amplitude : float
        Bound on every joint's excursion |q − q0|.
    values : mapping, optional
        Known parameter values when ``model`` is a BaseParameters (default the system's
        defaults).
    seed : int
        Seed of the initial guess (and of the random search).
    maxiter : int
        Iterations of the optimiser (or candidates of the random search).
    optimizer : {"auto", "scipy", "random"}
        ``"auto"`` uses scipy when installed.

    Returns
    -------
    trajectory : FourierTrajectory
    condition_number : float
        Of the stacked base regressor along the returned trajectory.

    Examples
    --------
    >>> import lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> bp = ld.identification.base_parameters(dp, ["m1", "m2"])
    >>> traj, cond = ld.identification.excitation_trajectory(bp, n_harmonics=2, maxiter=5)
    >>> traj.a.shape, bool(cond < 100)
    ((2, 2), True)
    """
    if hasattr(model, "function") and hasattr(model, "Y_b"):
        vals = dict(model.system.defaults) if values is None else values
        Yf = model.function(vals)
    elif callable(model) and hasattr(model, "params"):
        Yf = model
    else:
        raise LagdynError(
            f"model must be BaseParameters or a RegressorFunction, got {type(model).__name__}"
        )
    n, p = Yf.n, len(Yf.params)
    if n_harmonics < 1 or n_samples < 1 or period <= 0 or amplitude <= 0:
        raise LagdynError("n_harmonics, n_samples, period and amplitude must be positive")
    if optimizer not in ("auto", "scipy", "random"):
        raise LagdynError(f"optimizer must be 'auto', 'scipy' or 'random', got {optimizer!r}")
    offset = np.zeros(n) if q0 is None else np.asarray(q0, dtype=float)
    if offset.shape != (n,):
        raise ShapeError(f"q0 must have shape ({n},), got {offset.shape}")
    omega = 2 * np.pi / period
    L = n_harmonics
    times = np.linspace(0.0, period, n_samples, endpoint=False)

    def unpack(x: np.ndarray) -> FourierTrajectory:
        a = x[: n * L].reshape(n, L)
        b = x[n * L :].reshape(n, L)
        ex = _excursion(a, b, omega)
        scale = amplitude / ex if ex > 0 else 1.0
        return FourierTrajectory(omega, a * scale, b * scale, offset)

    def cond(x: np.ndarray) -> float:
        traj = unpack(x)
        A = Yf(*traj(times)).reshape(n_samples * n, p)
        s = np.linalg.svd(A, compute_uv=False)
        if s[-1] <= 0 or not np.isfinite(s[0]):
            return 1e12
        return float(min(s[0] / s[-1], 1e12))

    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=2 * n * L)
    best_x, best = x0, cond(x0)
    use_scipy = optimizer == "scipy"
    if optimizer == "auto":
        try:
            import scipy.optimize  # noqa: F401

            use_scipy = True
        except ImportError:
            use_scipy = False
    if use_scipy:
        try:
            from scipy.optimize import minimize
        except ImportError as exc:
            from ..errors import BackendUnavailableError

            raise BackendUnavailableError(
                "optimizer='scipy' needs scipy: pip install 'lagdyn[sim]'"
            ) from exc
        res = minimize(
            lambda x: np.log(cond(x)), x0, method="L-BFGS-B", options={"maxiter": maxiter}
        )
        if np.exp(res.fun) < best:
            best_x, best = res.x, float(np.exp(res.fun))
    else:
        for _ in range(maxiter):
            cand = best_x + rng.normal(scale=0.3, size=best_x.shape)
            c = cond(cand)
            if c < best:
                best_x, best = cand, c
    return unpack(best_x), best
