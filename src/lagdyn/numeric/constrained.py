r"""Batched numeric solvers for constrained systems (:class:`lagdyn.ConstrainedSystem`).

Given M(q), the bias h = C q̇ + G q̇ + g − Q, the constraint values Φ(q), the
constraint matrix W = [J_c; A] (holonomic rows, then velocity rows A q̇ + b = 0), the
rate-free part β = [0; b] and the velocity product [J̇_c q̇; Ȧ q̇ + ḃ] — all generated through
:func:`lagdyn.numeric.lambdify` and :func:`lagdyn.numeric.lambdify_expressions`
(one joint CSE each, cached on disk) — the accelerations and multipliers of

.. math::
    M\ddot q + h = \tau + J_c^T\lambda, \qquad
    J_c\ddot q = -\dot J_c\dot q - 2\alpha\dot\Phi - \beta^2\Phi =: \gamma

(with velocity constraints, J_c stands for W and their rows of γ are
−(Ȧq̇ + ḃ) − α(Aq̇ + b): the constraint differentiated once, its drift damped at rate α)

come from one of four methods, all batched over leading axes:

``"kkt"`` (default)
    the (n + m) KKT system ``[[M, −J_cᵀ], [J_c, 0]] [q̈; λ] = [τ − h; γ]`` solved by a
    stacked ``np.linalg.solve``;
``"schur"``
    λ from the Schur complement ``J_c M⁻¹ J_cᵀ λ = γ − J_c M⁻¹(τ − h)``, then q̈;
``"penalty"``
    ``(M + k J_cᵀJ_c) q̈ = τ − h + k J_cᵀγ``, ``λ = k(γ − J_c q̈)``: exact only as the
    stiffness k → ∞ (error O(1/k));
``"augmented_lagrangian"``
    the penalty system iterated on λ, ``λ ← λ + k(γ − J_c q̈)``, until
    ``|J_c q̈ − γ| ≤ tol`` (relative): exact to the tolerance at moderate k.

Baumgarte stabilisation ``baumgarte=(alpha, beta)`` adds the terms in γ; without it
the twice-differentiated constraint lets Φ drift during integration.
:meth:`ConstrainedNumericModel.project` projects positions and velocities back onto
the constraint manifold (M-weighted least change);
:class:`lagdyn.simulation.constrained.ConstrainedSimulator` (what
:meth:`ConstrainedSystem.lambdify` returns) adds ``simulate``, which integrates with any of these.

A rank-deficient J_c at a state raises :class:`~lagdyn.errors.ConstraintError` naming
the state (its q, and its batch index) and the dependent rows, unless the system was built
with ``redundant="lstsq"``, in which case the KKT system is solved in the least-squares
sense (minimum-norm λ). A state holding NaN or infinity (or whose M, J_c, bias are not
finite) gives NaN q̈ and λ there, as the numeric models do (IEEE policy), never a linear
algebra error; the other states of a batch are unaffected.

Examples
--------
>>> import lagdyn as ld
>>> x, y = ld.coordinates("x y")
>>> m, l, g = ld.parameters("m l g")
>>> free = ld.LagrangianSystem.from_energies(
...     m * (x.diff(ld.t)**2 + y.diff(ld.t)**2) / 2, m * g * y, [x, y])
>>> pend = ld.ConstrainedSystem(free, [x**2 + y**2 - l**2])
>>> num = pend.lambdify({m: 1.0, l: 1.0, g: 9.81})
>>> qdd, lam = num.solve([0.0, -1.0], [1.0, 0.0])   # at the bottom, moving at 1 m/s
>>> tension = -2 * lam[0] * 1.0                    # |J_cᵀλ| = 2|λ| l, pulling inwards
>>> round(float(tension), 10)                      # m (v²/l + g)
10.81
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from ..codegen.binding import check_real, real_array
from ..errors import ConstraintError, LagdynError, ShapeError
from .expressions import lambdify_expressions
from .model import check_option

__all__ = ["ConstrainedNumericModel", "penalty_solve"]

Method = Literal["kkt", "schur", "penalty", "augmented_lagrangian"]
METHODS = ("kkt", "schur", "penalty", "augmented_lagrangian")


class ConstrainedNumericModel:
    """Numeric KKT solvers, projection and simulation for a :class:`ConstrainedSystem`.

    Parameters
    ----------
    system : ConstrainedSystem
    params : mapping of sympy.Symbol (or name) to float, optional
        Parameter values bound now; others are passed per call as ``params=``.
    backend : {"numpy", "c", "numba", "jax"}
        Backend of the generated functions (see :func:`lagdyn.numeric.lambdify`).
    **options
        Passed to the backends (``cache``, ``cache_dir``, ``threads``).

    Examples
    --------
    >>> import lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> weld = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]])
    >>> num = weld.lambdify(dp.defaults)
    >>> qdd, lam = num.solve([[0.3, 0.3], [0.1, 0.1]], [[0.0, 0.0], [0.0, 0.0]])
    >>> qdd.shape, lam.shape
    ((2, 2), (2, 1))
    """

    def __init__(
        self,
        system: Any,
        params: Mapping[Any, float] | None = None,
        *,
        backend: str = "numpy",
        **options: Any,
    ) -> None:
        self.system = system
        self.n = system.n
        self.m = system.m
        #: holonomic rows (Φ, first) among the m; the others are velocity constraints
        self.m_holonomic = getattr(system, "m_holonomic", system.m)
        self.redundant = system.redundant
        # the dynamics take the values of their own parameters; the kinematics (Φ, J, J̇q̇)
        # take every value, so a name neither knows is warned about once, by them
        own = {str(s) for s in system.system.parameters}
        dyn_params = (
            {k: v for k, v in params.items() if str(k) in own}
            if isinstance(params, Mapping)
            else params
        )
        self.dynamics = system.system.lambdify(dyn_params, backend=backend, **options)
        outputs: dict[str, Any] = {
            "J": getattr(system, "constraint_matrix", system.J),
            "Jdot_qd": getattr(system, "velocity_product", system.Jdot_qd),
        }
        if self.m_holonomic:
            outputs["phi"] = system.constraints
        if self.m > self.m_holonomic:
            outputs["beta"] = system.constraint_bias
        #: whether the constraints hold time explicitly or have a rate-free part (b ≠ 0):
        #: then their forces may do work and the energy is not checked
        self.rheonomic = self.m > self.m_holonomic and (
            system.time_dependent or any(e != 0 for e in system.constraint_bias)
        )
        self.kinematics = lambdify_expressions(
            system.system,
            outputs,
            params,
            backend=backend,
            **options,
        )
        self.q = system.system.q  # coordinate names for simulation results
        #: Parameters to pass per call (``params=``): the system's free ones, then those
        #: that only the constraints contain.
        self.free_parameters = self.kinematics.free_parameters

    def _dyn_params(self, params: Any) -> Any:
        """The part of per-call ``params`` that the dynamics model takes."""
        if params is None:
            return None
        if isinstance(params, Mapping):
            own = {str(p) for p in self.dynamics.free_parameters}
            return {k: v for k, v in params.items() if str(k) in own}
        arr = np.asarray(params, dtype=float)
        return arr[..., : len(self.dynamics.free_parameters)]

    # ------------------------------------------------------------------ pieces
    def phi(self, q: Any, *, params: Any = None) -> np.ndarray:
        """Constraint values Φ(q), shape ``(..., m)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
        >>> num.phi([0.5, 0.25])
        array([0.25])
        """
        if not self.m_holonomic:
            return np.zeros((*np.shape(q)[:-1], 0))
        return np.asarray(self.kinematics.phi(q, params=params))

    def phi_dot(self, q: Any, qd: Any, *, params: Any = None, t: Any = 0.0) -> np.ndarray:
        """Φ̇ = J_c q̇ for the holonomic rows, then A q̇ + b for the velocity rows (the
        residual of the velocity constraints), shape ``(..., m)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
        >>> num.phi_dot([0.0, 0.0], [1.0, 0.5])
        array([0.5])
        """
        J = np.asarray(self.kinematics.J(q, params=params, t=t))
        out = np.einsum("...ij,...j->...i", J, np.asarray(qd, dtype=float))
        return out + self._beta(q, params, t) if self.m > self.m_holonomic else out

    def velocity_residual(self, q: Any, qd: Any, *, params: Any = None, t: Any = 0.0) -> np.ndarray:
        """A q̇ + b of the velocity constraints alone, shape ``(..., m_velocity)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> disc = ld.zoo.get("rolling_disc")
        >>> num = disc.lambdify(disc.system.defaults)
        >>> num.velocity_residual([0, 0, 0, 0, 0], [1.0, 0, 0, 0, 1.0])
        array([0., 0.])
        """
        return self.phi_dot(q, qd, params=params, t=t)[..., self.m_holonomic :]

    def _beta(self, q: Any, params: Any, t: Any) -> np.ndarray:
        """[0; b] at q (shape (..., m))."""
        return np.asarray(self.kinematics.beta(q, params=params, t=t))

    def energy(self, q: Any, qd: Any, *, params: Any = None) -> np.ndarray:
        """The energy of the unconstrained system, shape ``(...)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
        >>> float(num.energy([0.0, 0.0], [0.0, 0.0]))
        -30.0
        """
        return np.asarray(self.dynamics.energy(q, qd, params=self._dyn_params(params)))

    # ------------------------------------------------------------------ solve
    def solve(
        self,
        q: Any,
        qd: Any,
        tau: Any = None,
        *,
        method: Method = "kkt",
        baumgarte: tuple[float, float] | None = None,
        stiffness: float | None = None,
        tol: float = 1e-12,
        max_iter: int = 100,
        params: Any = None,
        t: Any = 0.0,
    ) -> tuple[np.ndarray, np.ndarray]:
        r"""Accelerations q̈ and multipliers λ at the given states.

        Parameters
        ----------
        q, qd : array_like, shape (..., n)
        tau : array_like, shape (..., n), optional
            Actuation (zero by default).
        method : {"kkt", "schur", "penalty", "augmented_lagrangian"}
        baumgarte : (alpha, beta), optional
            Stabilisation gains (≥ 0) adding ``−2αΦ̇ − β²Φ`` to the acceleration constraint.
        stiffness : float, optional
            k of the penalty methods; default ``1e8`` (penalty) and ``1e4``
            (augmented Lagrangian), each multiplied by the mean diagonal of M over the
            mean diagonal of J_cᵀJ_c so that k is dimensionless.
        tol, max_iter
            Relative tolerance on ``|J_c q̈ − γ|`` and iteration cap (augmented Lagrangian).
        params
            Per-call values of unbound parameters (see :attr:`dynamics.free_parameters`).
        t : float
            Time, for forces that depend on it.

        Returns
        -------
        qdd : ndarray, shape (..., n)
        lam : ndarray, shape (..., m)

        Raises
        ------
        ConstraintError
            J_c rank-deficient at a state (rows named), unless ``redundant="lstsq"``;
            the augmented Lagrangian not converging.
        ShapeError
            Inputs of the wrong shape.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
        >>> a, _ = num.solve([0.4, 0.4], [0.0, 0.0], method="kkt")
        >>> b, _ = num.solve([0.4, 0.4], [0.0, 0.0], method="augmented_lagrangian")
        >>> bool(np.allclose(a, b, atol=1e-9))
        True
        """
        if method not in METHODS:
            raise LagdynError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
        check_option("tol", tol)
        check_option("max_iter", max_iter, integer=True)
        if stiffness is not None:
            check_option("stiffness", stiffness)
        q_arr, qd_arr, tau_arr = self._states(q, qd, tau)
        dp = self._dyn_params(params)
        M = np.asarray(self.dynamics.M(q_arr, params=dp))
        h = np.asarray(self.dynamics.bias(q_arr, qd_arr, params=dp, t=t))
        J = np.asarray(self.kinematics.J(q_arr, params=params, t=t))
        jd = np.asarray(self.kinematics.Jdot_qd(q_arr, qd_arr, params=params, t=t))
        shape = np.broadcast_shapes(M.shape[:-2], h.shape[:-1], J.shape[:-2], tau_arr.shape[:-1])
        M = np.broadcast_to(M, (*shape, self.n, self.n))
        J = np.broadcast_to(J, (*shape, self.m, self.n))
        f = np.broadcast_to(tau_arr - h, (*shape, self.n))
        gamma = -np.broadcast_to(jd, (*shape, self.m))
        if baumgarte is not None:
            alpha, beta = _gains(baumgarte)
            mh = self.m_holonomic
            phid = np.einsum("...ij,...j->...i", J, np.broadcast_to(qd_arr, (*shape, self.n)))
            if self.m > mh:
                phid = phid + self._beta(q_arr, params, t)
            gain = np.concatenate([np.full(mh, 2 * alpha), np.full(self.m - mh, alpha)])
            gamma = gamma - gain * phid
            if mh:
                phi = np.asarray(self.kinematics.phi(q_arr, params=params))
                pad = np.zeros((*np.shape(phi)[:-1], self.m - mh))
                gamma = gamma - beta**2 * np.concatenate([phi, pad], axis=-1)
        gamma = np.broadcast_to(gamma, (*shape, self.m))
        ok = (
            np.isfinite(M).all(axis=(-2, -1))
            & np.isfinite(J).all(axis=(-2, -1))
            & np.isfinite(f).all(axis=-1)
            & np.isfinite(gamma).all(axis=-1)
        )
        if ok.all():
            return self._dispatch(M, J, f, gamma, q_arr, method, stiffness, tol, max_iter)
        # non-finite states: NaN there (IEEE policy), the finite ones solved as usual
        qdd = np.full((*shape, self.n), np.nan)
        lam = np.full((*shape, self.m), np.nan)
        if ok.any():
            qb = np.broadcast_to(q_arr, (*shape, self.n))
            qdd[ok], lam[ok] = self._dispatch(
                M[ok], J[ok], f[ok], gamma[ok], qb[ok], method, stiffness, tol, max_iter
            )
        return qdd, lam

    def _dispatch(
        self,
        M: np.ndarray,
        J: np.ndarray,
        f: np.ndarray,
        gamma: np.ndarray,
        q: np.ndarray,
        method: str,
        stiffness: float | None,
        tol: float,
        max_iter: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        if self.redundant != "lstsq":  # named rows, before a solver could hide them
            self._check_rank(J, q)
        if method == "kkt":
            return self._kkt(M, J, f, gamma)
        if method == "schur":
            return self._schur(M, J, f, gamma)
        return penalty_solve(M, J, f, gamma, method, stiffness, tol, max_iter)

    def _states(self, q: Any, qd: Any, tau: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        arrays = []
        for name, value in (("q", q), ("qd", qd), ("tau", tau)):
            if value is None:
                value = np.zeros(self.n)
            arr = real_array(name, value)
            if arr.dtype.kind not in "fiu":
                kind = "complex" if arr.dtype.kind == "c" else str(arr.dtype)
                raise ShapeError(f"{name} has dtype {kind}, expected real numbers")
            if arr.ndim == 0 or arr.shape[-1] != self.n:
                raise ShapeError(f"{name} must have shape (..., {self.n}), got {arr.shape}")
            arrays.append(arr.astype(float, copy=False))
        return arrays[0], arrays[1], arrays[2]

    def _kkt(
        self, M: np.ndarray, J: np.ndarray, f: np.ndarray, gamma: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        lstsq = self.redundant == "lstsq"
        qdd, lam = kkt_solve(M, J, f, gamma, lstsq=lstsq)
        if lstsq:
            self._check_consistent(J, qdd, gamma)
        return qdd, lam

    def _schur(
        self, M: np.ndarray, J: np.ndarray, f: np.ndarray, gamma: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        lstsq = self.redundant == "lstsq"
        qdd, lam = schur_solve(M, J, f, gamma, lstsq=lstsq)
        if lstsq:
            self._check_consistent(J, qdd, gamma)
        return qdd, lam

    def _check_consistent(self, J: np.ndarray, qdd: np.ndarray, gamma: np.ndarray) -> None:
        """With ``redundant="lstsq"``: refuse a least-squares compromise between rows that
        demand incompatible accelerations (dependent but inconsistent constraints)."""
        worst = inconsistency(J, qdd, gamma)
        if worst is not None:
            raise ConstraintError(
                f"inconsistent constraints: J_c q̈ = γ has no solution (residual {worst:.3g}); "
                "the dependent rows contradict each other, so redundant='lstsq' would only "
                "give a least-squares compromise"
            )

    def _check_rank(self, J: np.ndarray, q: Any = None) -> None:
        """Raise naming the state and the dependent rows when J_c is rank-deficient at
        some state (non-finite states are not judged: they give NaN)."""
        if self.m == 0 or J.size == 0:
            return
        flat = J.reshape(-1, self.m, self.n)
        # Hadamard: det(J Jᵀ) ≤ Π diag(J Jᵀ), with equality for orthogonal rows; a tiny
        # ratio flags (near-)dependent rows without an SVD of every state
        gram = flat @ np.swapaxes(flat, -1, -2)
        diag = np.prod(np.diagonal(gram, axis1=-2, axis2=-1), axis=-1)
        ratio = np.linalg.det(gram) / np.maximum(diag, np.finfo(float).tiny)
        finite = np.isfinite(flat).all(axis=(-2, -1))
        bad = np.nonzero(~(ratio > 1e-16) & finite)[0]
        if bad.size == 0:
            return
        index = int(bad[0])
        rows, residual = _dependent_rows(flat[index])
        exprs = ", ".join(f"{i} ({_row(self.system, i)})" for i in rows)
        how = (
            "vanishes or depends on the other rows there"
            if len(rows) == 1
            else "vanish or depend on the other rows there"
        )
        if residual > 0:
            how += f" (to a relative {residual:.1e})"
        raise ConstraintError(
            f"singular constraints {_state_text(J.shape[:-2], index, q)}: row"
            f"{'s' if len(rows) > 1 else ''} {exprs} of {_matrix_name(self)} {how}; pass "
            "redundant='lstsq' "
            "to ConstrainedSystem to solve in the least-squares sense"
        )

    # ------------------------------------------------------------------ projection
    def project(
        self,
        q: Any,
        qd: Any,
        *,
        tol: float = 1e-12,
        max_iter: int = 20,
        params: Any = None,
        t: Any = 0.0,
    ) -> tuple[np.ndarray, np.ndarray]:
        r"""Project positions onto Φ(q) = 0 and velocities onto J_c q̇ = 0 and
        A q̇ + b = 0.

        Gauss–Newton steps ``q ← q − M⁻¹J_cᵀ(J_c M⁻¹ J_cᵀ)⁻¹Φ`` (the least change in the
        kinetic metric) until ``max|Φ| ≤ tol``; then the same projection of q̇ onto every
        row, W q̇ + β = 0 with W = [J_c; A] (exact in one step: the rows are linear in q̇).

        Raises
        ------
        ConstraintError
            ``max|Φ| > tol`` after ``max_iter`` steps, or J_c rank-deficient at the result
            (unless ``redundant="lstsq"``): never a silently unprojected state.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = ld.ConstrainedSystem(dp, [dp.q[0] - dp.q[1]]).lambdify(dp.defaults)
        >>> q, qd = num.project([0.5, 0.3], [1.0, 0.0])
        >>> bool(abs(q[0] - q[1]) < 1e-12 and abs(qd[0] - qd[1]) < 1e-12)
        True
        """
        check_option("tol", tol)
        check_option("max_iter", max_iter, integer=True, zero=True)
        q_arr = np.array(check_real(np, "q", q, self.n), dtype=float)
        qd_arr = np.array(check_real(np, "qd", qd, self.n), dtype=float)
        if not (np.isfinite(q_arr).all() and np.isfinite(qd_arr).all()):
            raise ConstraintError("project: q or qd holds NaN or infinite values")
        worst = float("inf")
        for _ in range(max_iter + 1):
            phi = self.phi(q_arr, params=params)
            worst = float(np.max(np.abs(phi), initial=0.0))
            if worst <= tol:
                break
            q_arr = q_arr - self._metric_step(q_arr, phi, params, self.m_holonomic, t)
        if not worst <= tol:
            J = np.asarray(self.kinematics.J(q_arr, params=params, t=t))
            if self.redundant != "lstsq":
                self._check_rank(J, q_arr)  # names the dependent rows when J_c is singular
            raise ConstraintError(
                f"project: max |Φ| = {worst:.3g} > tol {tol:.3g} after {max_iter} Gauss–Newton "
                "steps (a singular configuration or constraints that cannot all hold); "
                "start closer to the constraint manifold or raise max_iter"
            )
        J = np.asarray(self.kinematics.J(q_arr, params=params, t=t))
        if self.redundant != "lstsq":
            self._check_rank(J, q_arr)
        phid = self.phi_dot(q_arr, qd_arr, params=params, t=t)
        qd_arr = qd_arr - self._metric_step(q_arr, phid, params, self.m, t)
        return q_arr, qd_arr

    def _metric_step(
        self, q: np.ndarray, r: np.ndarray, params: Any, rows: int, t: Any = 0.0
    ) -> np.ndarray:
        """M⁻¹Jᵀ(J M⁻¹ Jᵀ)⁺ r over the first ``rows`` rows of W."""
        M = np.asarray(self.dynamics.M(q, params=self._dyn_params(params)))
        J = np.asarray(self.kinematics.J(q, params=params, t=t))[..., :rows, :]
        MinvJt = np.linalg.solve(M, np.swapaxes(J, -1, -2))
        S = J @ MinvJt
        y = np.einsum("...ij,...j->...i", np.linalg.pinv(S), r)
        return np.einsum("...ij,...j->...i", MinvJt, y)


def kkt_solve(
    M: np.ndarray, J: np.ndarray, f: np.ndarray, gamma: np.ndarray, *, lstsq: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The KKT system ``[[M, −Jᵀ], [J, 0]] [a; λ] = [f; γ]`` of a batch, solved directly or
    (``lstsq``) in the least-squares sense with the pseudo-inverse (minimum-norm λ for
    dependent rows; check the result with :func:`inconsistency`).

    Examples
    --------
    >>> import numpy as np
    >>> M, J = np.eye(2), np.array([[1.0, 0.0]])
    >>> kkt_solve(M, J, np.array([1.0, 2.0]), np.zeros(1))   # the row holds a[0] = 0
    (array([0., 2.]), array([-1.]))
    """
    n, m = M.shape[-1], J.shape[-2]
    K = np.zeros((*M.shape[:-2], n + m, n + m))
    K[..., :n, :n] = M
    K[..., :n, n:] = -np.swapaxes(J, -1, -2)
    K[..., n:, :n] = J
    rhs = np.concatenate([f, gamma], axis=-1)
    if lstsq:
        x = np.einsum("...ij,...j->...i", np.linalg.pinv(K), rhs)
    else:
        x = np.linalg.solve(K, rhs[..., None])[..., 0]
    return x[..., :n], x[..., n:]


def schur_solve(
    M: np.ndarray, J: np.ndarray, f: np.ndarray, gamma: np.ndarray, *, lstsq: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The same system by the Schur complement S = J M⁻¹ Jᵀ: S λ = γ − J M⁻¹ f, then
    a = M⁻¹(f + Jᵀ λ); ``lstsq`` solves S λ = r with the pseudo-inverse.

    Examples
    --------
    >>> import numpy as np
    >>> M, J = np.eye(2), np.array([[1.0, 0.0]])
    >>> schur_solve(M, J, np.array([1.0, 2.0]), np.zeros(1))
    (array([0., 2.]), array([-1.]))
    """
    Jt = np.swapaxes(J, -1, -2)
    MinvJt = np.linalg.solve(M, Jt)
    Minvf = np.linalg.solve(M, f[..., None])[..., 0]
    S = J @ MinvJt
    r = gamma - np.einsum("...ij,...j->...i", J, Minvf)
    if lstsq:
        lam = np.einsum("...ij,...j->...i", np.linalg.pinv(S), r)
    else:
        lam = np.linalg.solve(S, r[..., None])[..., 0]
    return Minvf + np.einsum("...ij,...j->...i", MinvJt, lam), lam


def inconsistency(J: np.ndarray, a: np.ndarray, gamma: np.ndarray) -> float | None:
    """The largest |J a − γ| when it exceeds 1e-8 (1 + max|γ| + max|J|): rows that a
    least-squares solve could not all satisfy (dependent and contradictory); else None.

    Examples
    --------
    >>> import numpy as np
    >>> J = np.array([[1.0, 0.0], [1.0, 0.0]])          # one row twice ...
    >>> inconsistency(J, np.array([0.5, 0.0]), np.array([0.0, 1.0]))   # ... asking 0 and 1
    0.5
    """
    resid = np.einsum("...ij,...j->...i", J, a) - gamma
    scale = 1.0 + np.max(np.abs(gamma), initial=0.0) + np.max(np.abs(J), initial=0.0)
    worst = float(np.max(np.abs(resid), initial=0.0))
    return None if worst <= 1e-8 * scale else worst


def penalty_solve(
    M: np.ndarray,
    J: np.ndarray,
    f: np.ndarray,
    gamma: np.ndarray,
    method: str = "penalty",
    stiffness: float | None = None,
    tol: float = 1e-12,
    max_iter: int = 50,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Solve M a = f + Jᵀλ with J a = γ by a penalty (``method="penalty"``) or the augmented
    Lagrangian iteration (``"augmented_lagrangian"``), batched over leading axes.

    The stiffness k (default 1e8 for the penalty, 1e4 for the iteration) is scaled by
    tr M / tr JᵀJ; the penalty returns a = (M + k JᵀJ)⁻¹(f + k Jᵀγ) and λ = k(γ − J a), the
    iteration adds λ until |γ − J a| ≤ ``tol`` (1 + |γ|). Used by the constrained systems and
    by the contacts of floating bases.

    Raises
    ------
    ConstraintError
        The iteration does not converge in ``max_iter`` steps, or its residual overflows.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.numeric.constrained import penalty_solve
    >>> M, J = np.eye(2), np.array([[1.0, -1.0]])
    >>> a, lam = penalty_solve(M, J, np.array([1.0, 0.0]), np.zeros(1), "augmented_lagrangian")
    >>> np.round(a, 9) + 0.0, np.round(lam, 9) + 0.0
    (array([0.5, 0.5]), array([-0.5]))
    """
    Jt = np.swapaxes(J, -1, -2)
    JtJ = Jt @ J
    if stiffness is None:
        stiffness = 1e8 if method == "penalty" else 1e4
    scale = np.trace(M, axis1=-2, axis2=-1) / np.maximum(
        np.trace(JtJ, axis1=-2, axis2=-1), np.finfo(float).tiny
    )
    k = (float(stiffness) * scale)[..., None, None]
    A = M + k * JtJ
    base = f + (k[..., 0] * np.einsum("...ij,...j->...i", Jt, gamma))
    if method == "penalty":
        qdd = np.linalg.solve(A, base[..., None])[..., 0]
        lam = k[..., 0] * (gamma - np.einsum("...ij,...j->...i", J, qdd))
        return qdd, lam
    lam = np.zeros_like(gamma)
    gscale = 1.0 + np.max(np.abs(gamma), initial=0.0)
    for _ in range(max_iter):
        rhs = base + np.einsum("...ij,...j->...i", Jt, lam)
        qdd = np.linalg.solve(A, rhs[..., None])[..., 0]
        resid = gamma - np.einsum("...ij,...j->...i", J, qdd)
        lam = lam + k[..., 0] * resid
        if np.max(np.abs(resid), initial=0.0) <= tol * gscale:
            return qdd, lam
    worst = float(np.max(np.abs(resid)))
    if not np.isfinite(worst):
        raise ConstraintError(
            "augmented Lagrangian: the residual overflowed to NaN or infinity (a state too "
            f"large for doubles, max |q̈| = {float(np.max(np.abs(qdd))):.3g}): the motion "
            "blew up; use a smaller step"
        )
    raise ConstraintError(
        f"augmented Lagrangian did not converge in {max_iter} iterations "
        f"(residual {worst:.3g}); raise stiffness or max_iter"
    )


def _gains(baumgarte: Any) -> tuple[float, float]:
    """(alpha, beta) as finite non-negative floats, or a named error."""
    try:
        alpha, beta = (float(v) for v in baumgarte)
    except (TypeError, ValueError):
        raise LagdynError(
            f"baumgarte must be a pair of gains (alpha, beta), got {baumgarte!r}"
        ) from None
    if not (alpha >= 0 and beta >= 0 and np.isfinite(alpha) and np.isfinite(beta)):
        raise LagdynError(f"baumgarte gains must be finite and >= 0, got {baumgarte}")
    return alpha, beta


def _state_text(batch: tuple[int, ...], index: int, q: Any) -> str:
    """``at q = [...]`` for one state, ``at state (i, j) of the batch (q = [...])`` else."""
    qs = None if q is None else np.asarray(q, dtype=float)
    where = tuple(int(i) for i in np.unravel_index(index, batch)) if batch else ()
    shown = ""
    if qs is not None:
        state = qs.reshape(-1, qs.shape[-1])[index] if qs.ndim > 1 else qs
        shown = np.array2string(state, precision=6, separator=", ")
    if not batch:
        return f"at q = {shown}" if shown else "at this state"
    return f"at state {where} of the batch" + (f" (q = {shown})" if shown else "")


def _dependent_rows(J: np.ndarray) -> tuple[list[int], float]:
    """The rows of J that depend on the earlier ones (Gram–Schmidt in row order).

    A row whose part orthogonal to the rows kept before it is below 1e-8 of its norm is
    dependent (a zero row too); the product of these relative parts is the Hadamard ratio
    :meth:`ConstrainedNumericModel._check_rank` tests, so when no single row is that
    small the row with the smallest part is named, with that part (else 0).
    """
    basis: list[np.ndarray] = []
    dependent: list[int] = []
    parts: list[float] = []
    for i, row in enumerate(np.asarray(J, dtype=float)):
        norm = float(np.linalg.norm(row))
        rest = row.copy()
        for _ in range(2):  # twice: classical Gram–Schmidt loses orthogonality once
            for b in basis:
                rest = rest - (rest @ b) * b
        part = float(np.linalg.norm(rest)) / norm if norm > 0 else 0.0
        parts.append(part)
        if part > 1e-8:
            basis.append(rest / np.linalg.norm(rest))
        else:
            dependent.append(i)
    if dependent:
        return dependent, 0.0
    worst = int(np.argmin(parts))
    return [worst], parts[worst]


def _row(system: Any, i: int) -> Any:
    """Constraint row ``i`` as given (Φ_i or a velocity constraint)."""
    rows = getattr(system, "rows", None)
    return rows[i] if rows is not None else system.constraints[i]


def _matrix_name(model: Any) -> str:
    return "[J_c; A]" if model.m > model.m_holonomic else "J_c"
