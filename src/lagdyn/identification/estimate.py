r"""Least-squares identification of base parameters from measured motion and torques.

Stacking the base regressor at N measured states gives the overdetermined system
:math:`W^{1/2} Y_b \hat\pi_b = W^{1/2}\tau`; its least-squares solution comes with the
classical statistics (Gautier & Khalil): residual variance
:math:`\hat\sigma^2 = \|W^{1/2}(\tau - Y_b\hat\pi_b)\|^2/(Nn - r)`, covariance
:math:`\hat\sigma^2 (Y_b^T W Y_b)^{-1}`, standard errors, and the condition number of
:math:`W^{1/2}Y_b`, which measures how well the data excite the parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from ..errors import LagdynError, ShapeError
from .base import BaseParameters, NumericBaseParameters, base_parameters

if TYPE_CHECKING:  # pragma: no cover
    from .regressor import RegressorFunction

__all__ = ["IdentificationResult", "identify"]


@dataclass(frozen=True)
class IdentificationResult:
    """Estimated base parameters with their statistics (from :func:`identify`).

    Attributes
    ----------
    base : tuple of sympy.Expr
        The base parameters π_b, in the order of :attr:`estimates`.
    estimates : ndarray, shape (r,)
    covariance : ndarray, shape (r, r)
    std_errors : ndarray, shape (r,)
    condition_number : float
        Of the weighted, stacked base regressor.
    residual_rms : float
        Root mean square of the unweighted torque residual.
    n_samples : int
    function : RegressorFunction
        The numeric base regressor, for :meth:`predict`.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> rng = np.random.default_rng(0)
    >>> q, qd, qdd = rng.normal(size=(3, 50, 2))
    >>> num = dp.lambdify(dp.defaults)
    >>> tau = num.inverse_dynamics(q, qd, qdd)
    >>> res = ld.identify(dp, q, qd, qdd, tau, params=["m1", "m2"])
    >>> res.estimates.round(10)
    array([1., 1.])
    """

    base: tuple[sp.Expr, ...]
    estimates: np.ndarray
    covariance: np.ndarray
    std_errors: np.ndarray
    condition_number: float
    residual_rms: float
    n_samples: int
    function: Any

    @property
    def relative_std_errors(self) -> np.ndarray:
        """Standard errors relative to |estimate| (inf where the estimate is 0).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> q, qd, qdd = np.random.default_rng(1).normal(size=(3, 40, 2))
        >>> tau = dp.lambdify(dp.defaults).inverse_dynamics(q, qd, qdd)
        >>> res = ld.identify(dp, q, qd, qdd, tau, params=["m1", "m2"])
        >>> bool(np.all(res.relative_std_errors < 1e-6))
        True
        """
        with np.errstate(divide="ignore"):
            return np.asarray(self.std_errors / np.abs(self.estimates))

    def predict(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """Torques ``Y_b(q, qd, qdd) π̂_b`` of the identified model, shape (..., n).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> q, qd, qdd = np.random.default_rng(2).normal(size=(3, 40, 2))
        >>> num = dp.lambdify(dp.defaults)
        >>> res = ld.identify(dp, q, qd, qdd, num.inverse_dynamics(q, qd, qdd), params=["m1", "m2"])
        >>> ref = num.inverse_dynamics(q[:3], qd[:3], qdd[:3])
        >>> bool(np.allclose(res.predict(q[:3], qd[:3], qdd[:3]), ref))
        True
        """
        return np.asarray(self.function(q, qd, qdd) @ self.estimates)

    def text(self) -> str:
        """A printable table of the estimates, standard errors and fit statistics.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> q, qd, qdd = np.random.default_rng(3).normal(size=(3, 40, 2))
        >>> tau = dp.lambdify(dp.defaults).inverse_dynamics(q, qd, qdd)
        >>> print(ld.identify(dp, q, qd, qdd, tau, params=["m1", "m2"]).text().splitlines()[0])
        base parameter      estimate   std error
        """
        width = max(len("base parameter"), *(len(sp.sstr(b)) for b in self.base))
        lines = [f"{'base parameter':<{width}}  {'estimate':>12}  {'std error':>10}"]
        for b, x, s in zip(self.base, self.estimates, self.std_errors):
            lines.append(f"{sp.sstr(b):<{width}}  {x:>12.6g}  {s:>10.3g}")
        lines.append(
            f"{self.n_samples} samples, condition number {self.condition_number:.4g}, "
            f"residual rms {self.residual_rms:.3g}"
        )
        return "\n".join(lines)


def _states(q: Any, qd: Any, qdd: Any, tau: Any, n: int) -> tuple[np.ndarray, ...]:
    arrays = []
    for name, a in (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau)):
        arr = np.asarray(a, dtype=float)
        if arr.ndim != 2 or arr.shape[1] != n:
            raise ShapeError(f"{name} must have shape (N, {n}), got {arr.shape}")
        arrays.append(arr)
    N = arrays[0].shape[0]
    bad = [nm for nm, a in zip(("q", "qd", "qdd", "tau"), arrays) if a.shape[0] != N]
    if bad:
        raise ShapeError(f"{', '.join(bad)} must have {N} rows like q")
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise LagdynError("q, qd, qdd and tau must be finite (no NaN or inf)")
    return tuple(arrays)


def _solve(
    A: np.ndarray, b: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Weighted least squares: (x, residual, covariance, condition number)."""
    Aw = A * w[:, None]
    bw = b * w
    U, s, Vt = np.linalg.svd(Aw, full_matrices=False)
    if s.size == 0 or s[-1] <= s[0] * 1e-13:
        raise LagdynError(
            "the data do not excite every base parameter (the stacked regressor is "
            "rank deficient): use a richer trajectory (ld.identification.excitation_trajectory)"
        )
    x = Vt.T @ ((U.T @ bw) / s)
    r = b - A @ x
    dof = max(A.shape[0] - A.shape[1], 1)
    sigma2 = float(np.sum((w * r) ** 2)) / dof
    cov = sigma2 * (Vt.T / s**2) @ Vt
    return x, r, cov, float(s[0] / s[-1])


def _joint_sigmas(A: np.ndarray, b: np.ndarray, N: int, n: int) -> np.ndarray:
    """Gautier's noise deviation of each joint, from the least squares of its own equations.

    σ_j² = ‖τ_j − Y_j Y_j⁺ τ_j‖² / (N − rank Y_j), with Y_j the N rows of joint j. A joint's
    own fit keeps its residual free of the errors of the other joints: the residual of the
    global ordinary fit carries, through the shared parameters, the noise of the joints with
    large torques into the joints with small ones (up to 18 times the true deviation of a
    UR5 wrist joint), which skews the weights and makes the standard errors wrong.
    """
    Aj = A.reshape(N, n, A.shape[1])
    bj = b.reshape(N, n)
    sig = np.empty(n)
    for j in range(n):
        U, s, _ = np.linalg.svd(Aj[:, j, :], full_matrices=False)
        tol = s[0] * max(Aj.shape[0], Aj.shape[2]) * np.finfo(float).eps if s.size else 0.0
        Ur = U[:, : int(np.sum(s > tol))]
        r = bj[:, j] - Ur @ (Ur.T @ bj[:, j])
        sig[j] = np.sqrt(float(r @ r) / max(N - Ur.shape[1], 1))
    return sig


def identify(
    model: Any,
    q: Any,
    qd: Any,
    qdd: Any,
    tau: Any,
    *,
    params: Any = None,
    values: Mapping[Any, float] | None = None,
    weights: Any = None,
    function: RegressorFunction | None = None,
) -> IdentificationResult:
    r"""Estimate the base parameters from measured states and torques by least squares.

    Parameters
    ----------
    model : LagrangianSystem, BaseParameters or NumericBaseParameters
        A system (with ``params``), exact base parameters from
        :func:`~lagdyn.identification.base_parameters`, or numeric ones from
        :func:`~lagdyn.identification.numeric_base_parameters` (estimates are then the
        numeric combinations π₁ + K π₂, e.g. for a 6-DOF arm).
    q, qd, qdd, tau : array_like, shape (N, n)
        Measured positions, rates, accelerations and generalized forces.
    params : sequence, optional
        Standard parameters when ``model`` is a system (default: the products
        :func:`~lagdyn.identification.linear_parameters` of every parameter except ``g``).
    values : mapping, optional
        Values of the known parameters (default ``system.defaults``).
    weights : None, "joint", array_like (n,) or (N, n)
        Weights of the torque equations (inverse standard deviations): ``None`` for
        ordinary least squares, ``"joint"`` for Gautier's two-step weighted least squares
        (one weight 1/σ_j per joint, σ_j from the residual of the least squares of joint
        j's own equations), or explicit weights.
    function : RegressorFunction, optional
        A numeric base regressor already generated (skips code generation).

    Returns
    -------
    IdentificationResult

    Raises
    ------
    ShapeError
        Arrays not of shape (N, n) or of different lengths.
    LagdynError
        Data that do not excite every base parameter; non-finite data; bad weights.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> arm = ld.zoo.two_link_planar()
    >>> q, qd, qdd = np.random.default_rng(0).normal(size=(3, 60, 2))
    >>> tau = arm.lambdify(arm.defaults).inverse_dynamics(q, qd, qdd)
    >>> res = ld.identify(arm, q, qd, qdd, tau)   # every parameter but g unknown
    >>> res.base[1], float(res.estimates[1].round(10))   # δ = I2 + m2 lc2² = 1/12 + 1/4
    (I2 + lc2**2*m2, 0.3333333333)
    """
    bp: Any
    if isinstance(model, NumericBaseParameters):
        if params is not None:
            raise LagdynError("params is given by the NumericBaseParameters model; do not pass it")
        if model.system is None:
            raise LagdynError("these numeric base parameters carry no system")
        bp = model
    elif isinstance(model, BaseParameters):
        bp = model
        if params is not None:
            raise LagdynError("params is given by the BaseParameters model; do not pass it")
    elif hasattr(model, "M") and hasattr(model, "plain_symbols"):
        if params is None:
            from .regressor import linear_parameters

            params = linear_parameters(model, [s for s in model.parameters if s.name != "g"])
        bp = base_parameters(model, params)
    else:
        raise LagdynError(
            f"model must be a LagrangianSystem or BaseParameters, got {type(model).__name__}"
        )
    system = bp.system
    n = system.n
    qa, qda, qdda, taua = _states(q, qd, qdd, tau, n)
    N = qa.shape[0]
    vals = dict(system.defaults) if values is None else values
    Yf: Any
    if function is not None:
        Yf = function
    elif isinstance(bp, NumericBaseParameters):
        Yf = bp.function()
    else:
        Yf = bp.function(vals)
    base = bp.base() if isinstance(bp, NumericBaseParameters) else bp.base
    A = Yf(qa, qda, qdda).reshape(N * n, bp.rank)
    b = taua.reshape(N * n)
    if weights is None:
        w = np.ones(N * n)
    elif isinstance(weights, str):
        if weights != "joint":
            raise LagdynError(f"weights must be None, 'joint' or an array, got {weights!r}")
        sig = _joint_sigmas(A, b, N, n)
        sig = np.where(sig > 0, sig, max(float(sig.max()), 1e-300))
        w = np.broadcast_to(1.0 / sig, (N, n)).reshape(N * n)
    else:
        wa = np.asarray(weights, dtype=float)
        try:
            w = np.broadcast_to(wa, (N, n)).reshape(N * n)
        except ValueError:
            raise ShapeError(f"weights must have shape (n,) or (N, n), got {wa.shape}") from None
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise LagdynError("weights must be finite and non-negative")
    x, r, cov, cond = _solve(A, b, w)
    return IdentificationResult(
        base=base,
        estimates=x,
        covariance=cov,
        std_errors=np.sqrt(np.maximum(np.diag(cov), 0.0)),
        condition_number=cond,
        residual_rms=float(np.sqrt(np.mean(r**2))),
        n_samples=N,
        function=Yf,
    )
