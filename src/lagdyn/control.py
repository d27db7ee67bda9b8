r"""Linearization, equilibria and LQR for a :class:`~lagdyn.LagrangianSystem`.

With the state :math:`x = (q, \dot q)` the equations of motion
:math:`F(q, \dot q, \ddot q) = M(q)\ddot q + h(q, \dot q) - Q(q, \dot q) = \tau` give
:math:`\dot x = f(x, \tau)` with :math:`\ddot q = M^{-1}(\tau + Q - h)`. Its Jacobians at
:math:`(q_0, \dot q_0, \tau_0)` follow without differentiating the inverse:

.. math::
    A = \begin{bmatrix} 0 & 1 \\ -M^{-1}\,\partial F/\partial q & -M^{-1}\,\partial F/\partial\dot q
        \end{bmatrix}, \qquad
    B = \begin{bmatrix} 0 \\ M^{-1} \end{bmatrix},

with :math:`\partial F/\partial q` evaluated at the acceleration :math:`\ddot q_0` of the
linearization point (zero at an equilibrium). :func:`linearize` returns exact sympy
matrices, or numbers from generated kernels of the symbolic Jacobians (never finite
differences) when the point and every parameter are numbers; for robot chains those are
the derivative kernels of their numeric route
(:meth:`~lagdyn.numeric.NumericModel.forward_dynamics_derivatives`: the recursive programs
differentiated from 4 joints on, so no closed form is built). :func:`equilibrium` solves
:math:`g(q) - Q(q, 0) = \tau` by Newton's method on the generated Jacobian, and
:func:`lqr` computes the infinite-horizon LQR gain through scipy.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> cp = ld.zoo.cart_pole()
>>> A, B = cp.linearize([0.0, 0.0], params=cp.defaults)
>>> K, P, E = ld.control.lqr(A, B[:, :1], np.eye(4), np.eye(1))
>>> bool(np.all(E.real < 0))
True
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import sympy as sp

from ._common import SystemLike as LagrangianSystem  # duck-typed: no import of system.py
from .errors import BackendUnavailableError, LagdynError, ShapeError

__all__ = ["LQRResult", "equilibrium", "linearize", "lqr"]


# ---------------------------------------------------------------------------- helpers
def _acc(n: int) -> tuple[sp.Symbol, ...]:
    """Plain symbols for q̈ (names sort in index order)."""
    return tuple(sp.Symbol(f"_ldlinqdd{i:03d}", real=True) for i in range(n))


def _vector(value: Any, n: int, name: str) -> list[sp.Expr]:
    """A length-n list of sympy numbers/expressions; strings are refused."""
    if value is None:
        return [sp.Integer(0)] * n
    if isinstance(value, (str, bytes)):
        raise LagdynError(f"{name} must be numbers or sympy expressions, got a string")
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (int, float, sp.Expr)) and n == 1:
        value = [value]
    try:
        items = list(value)
    except TypeError:
        raise ShapeError(f"{name} must be a sequence of {n} values") from None
    if len(items) != n:
        raise ShapeError(f"{name} has {len(items)} entries, expected {n}")
    out = []
    for x in items:
        if isinstance(x, (str, bytes)):
            raise LagdynError(f"{name} must be numbers or sympy expressions, got a string")
        try:
            out.append(sp.sympify(x, strict=True))
        except sp.SympifyError:
            raise LagdynError(f"{name} entry {x!r} is not a number or sympy expression") from None
    return out


def _params(system: LagrangianSystem, params: Mapping[Any, Any] | None) -> dict[sp.Symbol, Any]:
    """``params`` keyed by the system's own symbols (names accepted)."""
    if params is None:
        return {}
    by_name = {s.name: s for s in system.parameters}
    out: dict[sp.Symbol, Any] = {}
    unknown = []
    for k, v in params.items():
        s = by_name.get(k) if isinstance(k, str) else k
        if s is None or s not in system.parameters:
            unknown.append(str(k))
            continue
        out[s] = v
    if unknown:
        raise LagdynError(
            f"params names {', '.join(unknown)}, not parameters of the system "
            f"({', '.join(by_name) or 'none'})"
        )
    return out


def _is_number(x: Any) -> bool:
    e = sp.sympify(x)
    return bool(e.is_number and e.is_real is not False and not e.has(sp.zoo, sp.nan))


def _residual(system: LagrangianSystem) -> tuple[sp.Matrix, tuple[sp.Symbol, ...]]:
    """F = M q̈ + h − Q in plain symbols, with q̈ symbols."""
    n = system.n
    acc = _acc(n)
    M = system.M.applyfunc(system.plain)
    h = system.h.applyfunc(system.plain)
    Q = system.forces.applyfunc(system.plain)
    return sp.Matrix(M) * sp.Matrix(acc) + sp.Matrix(h) - sp.Matrix(Q), acc


def _tidy(e: sp.Expr) -> sp.Expr:
    """Cancel common factors (exact; trig functions are treated as generators)."""
    return sp.cancel(e)


# ---------------------------------------------------------------------------- linearize
def linearize(
    system: LagrangianSystem,
    q0: Any,
    qd0: Any = None,
    tau0: Any = None,
    params: Mapping[Any, Any] | None = None,
    *,
    t: Any = 0,
    backend: str = "numpy",
) -> tuple[Any, Any]:
    r"""The linearization ``ẋ ≈ A (x − x0) + B (τ − τ0)`` at ``x0 = (q0, q̇0)``.

    Parameters
    ----------
    system : LagrangianSystem
    q0 : sequence of n numbers or sympy expressions
    qd0 : sequence of n, optional
        Default zero.
    tau0 : sequence of n, optional
        Actuation at the point (default zero).
    params : mapping of sympy.Symbol (or name) to number or expression, optional
        Parameter values substituted; unlisted parameters stay symbolic.
    t : number, optional
        Time, for forces that depend on it.
    backend : str
        Numeric backend of the generated Jacobian kernels.

    Returns
    -------
    A : shape (2n, 2n)
    B : shape (2n, n)
        numpy arrays when ``q0``, ``qd0``, ``tau0``, ``t`` and every parameter are numbers
        (evaluated by generated kernels of the exact Jacobians); otherwise exact
        ``sympy.ImmutableMatrix`` objects.

    Raises
    ------
    ShapeError
        Vectors of the wrong length.
    LagdynError
        Strings, or unknown parameter names.

    Examples
    --------
    The simple pendulum hanging down, exactly:

    >>> import sympy as sp, lagdyn as ld
    >>> th, = ld.coordinates("theta")
    >>> m, l, g = ld.parameters("m l g")
    >>> pend = ld.LagrangianSystem(m * l**2 * th.diff(ld.t)**2 / 2 + m * g * l * sp.cos(th), [th])
    >>> A, B = ld.control.linearize(pend, [0])
    >>> A
    Matrix([
    [   0, 1],
    [-g/l, 0]])
    >>> B
    Matrix([
    [         0],
    [1/(l**2*m)]])
    """
    n = system.n
    qv = _vector(q0, n, "q0")
    vv = _vector(qd0, n, "qd0")
    tv = _vector(tau0, n, "tau0")
    pv = _params(system, params)
    numeric = (
        all(_is_number(x) for x in (*qv, *vv, *tv, t))
        and set(pv) == set(system.parameters)
        and all(_is_number(v) for v in pv.values())
    )
    if numeric:
        return _linearize_numeric(system, qv, vv, tv, pv, t, backend)
    return _linearize_symbolic(system, qv, vv, tv, pv, t)


def _linearize_symbolic(
    system: LagrangianSystem,
    qv: list[sp.Expr],
    vv: list[sp.Expr],
    tv: list[sp.Expr],
    pv: Mapping[sp.Symbol, Any],
    t: Any,
) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
    from .symbols import t as time

    n = system.n
    qs, vs = system.plain_symbols
    F, acc = _residual(system)
    Fq = F.jacobian(list(qs))
    Fv = F.jacobian(list(vs))
    point: dict[Any, Any] = {**dict(zip(qs, qv)), **dict(zip(vs, vv)), time: sp.sympify(t)}
    point.update({s: sp.sympify(v) for s, v in pv.items()})
    zero_acc = dict.fromkeys(acc, sp.Integer(0))
    M0 = sp.Matrix(system.M.applyfunc(system.plain)).subs(point)
    r0 = F.subs(zero_acc).subs(point)  # h − Q at the point
    rhs = sp.Matrix(tv) - r0
    rhs = rhs.applyfunc(sp.expand)
    qdd0 = sp.zeros(n, 1) if all(x == 0 for x in rhs) else M0.LUsolve(rhs).applyfunc(_tidy)
    at = {**point, **dict(zip(acc, qdd0))}
    Minv = M0.inv().applyfunc(_tidy)
    lower_q = (-Minv * Fq.subs(at)).applyfunc(_tidy)
    lower_v = (-Minv * Fv.subs(at)).applyfunc(_tidy)
    A = sp.zeros(2 * n, 2 * n)
    A[:n, n:] = sp.eye(n)
    A[n:, :n] = lower_q
    A[n:, n:] = lower_v
    B = sp.zeros(2 * n, n)
    B[n:, :] = Minv
    return sp.ImmutableMatrix(A), sp.ImmutableMatrix(B)


_KERNELS: weakref.WeakKeyDictionary[Any, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _kernels(system: LagrangianSystem, pv: Mapping[sp.Symbol, Any], backend: str) -> Any:
    """Generated kernels of M, F, ∂F/∂q, ∂F/∂q̇ for one parameter binding (memoised)."""
    from .numeric import lambdify_expressions

    key = (backend, tuple(sorted((s.name, float(v)) for s, v in pv.items())))
    per = _KERNELS.setdefault(system, {})
    if key not in per:
        qs, vs = system.plain_symbols
        F, _ = _residual(system)
        outputs = {
            "M": sp.Matrix(system.M.applyfunc(system.plain)),
            "F": F,
            "Fq": F.jacobian(list(qs)),
            "Fv": F.jacobian(list(vs)),
        }
        bound = {s: float(v) for s, v in pv.items()}
        per[key] = lambdify_expressions(system, outputs, bound, backend=backend)
    return per[key]


def _model(system: LagrangianSystem, pv: Mapping[sp.Symbol, Any], backend: str) -> Any:
    """The derivative kernels of ``system`` for one binding (robot chains; memoised)."""
    from .numeric import derivative_model

    key = ("derivatives", backend, tuple(sorted((s.name, float(v)) for s, v in pv.items())))
    per = _KERNELS.setdefault(system, {})
    if key not in per:
        per[key] = derivative_model(system, {s: float(v) for s, v in pv.items()}, backend=backend)
    return per[key]


def _linearize_numeric(
    system: LagrangianSystem,
    qv: list[sp.Expr],
    vv: list[sp.Expr],
    tv: list[sp.Expr],
    pv: Mapping[sp.Symbol, Any],
    t: Any,
    backend: str,
) -> tuple[np.ndarray, np.ndarray]:
    n = system.n
    if getattr(system, "numeric_plan", None) is not None:
        # robot chains: the derivative kernels of their numeric route (recursive from 4
        # joints on: no closed form is built)
        num = _model(system, pv, backend)
        q = np.array([float(x) for x in qv])
        qd = np.array([float(x) for x in vv])
        tau = np.array([float(x) for x in tv])
        dq, dv, Minv = num.forward_dynamics_derivatives(q, qd, tau, t=float(t))
        A = np.zeros((2 * n, 2 * n))
        A[:n, n:] = np.eye(n)
        A[n:, :n] = dq
        A[n:, n:] = dv
        B = np.zeros((2 * n, n))
        B[n:, :] = Minv
        return A, B
    em = _kernels(system, pv, backend)
    q = np.array([float(x) for x in qv])
    qd = np.array([float(x) for x in vv])
    tau = np.array([float(x) for x in tv])
    tt = float(t)
    zero = np.zeros(n)
    M0 = np.asarray(em.M(q, qd, params=zero, t=tt)).reshape(n, n)
    r0 = np.asarray(em.F(q, qd, params=zero, t=tt)).reshape(n)
    qdd0 = np.linalg.solve(M0, tau - r0)
    Fq = np.asarray(em.Fq(q, qd, params=qdd0, t=tt)).reshape(n, n)
    Fv = np.asarray(em.Fv(q, qd, params=qdd0, t=tt)).reshape(n, n)
    Minv = np.linalg.inv(M0)
    A = np.zeros((2 * n, 2 * n))
    A[:n, n:] = np.eye(n)
    A[n:, :n] = -Minv @ Fq
    A[n:, n:] = -Minv @ Fv
    B = np.zeros((2 * n, n))
    B[n:, :] = Minv
    return A, B


# ---------------------------------------------------------------------------- equilibrium
def equilibrium(
    system: LagrangianSystem,
    q_guess: Any,
    tau: Any = None,
    params: Mapping[Any, float] | None = None,
    *,
    tol: float = 1e-12,
    max_iter: int = 50,
    backend: str = "numpy",
) -> np.ndarray:
    r"""A configuration q* at rest under the actuation τ: ``g(q*) − Q(q*, 0) = τ``.

    Newton's method from ``q_guess`` on the generated Jacobian ∂F/∂q (least-squares
    steps, so families of equilibria — a cart anywhere on its rail — converge to the
    nearest member).

    Parameters
    ----------
    system : LagrangianSystem
    q_guess : array_like, shape (n,)
    tau : array_like, shape (n,), optional
        Constant actuation (default zero).
    params : mapping, optional
        Parameter values (default ``system.defaults``); every parameter needs one.
    tol : float
        Convergence: max |g − Q − τ| ≤ ``tol`` · (1 + max |τ|, scale of g).
    max_iter : int
    backend : str

    Returns
    -------
    ndarray, shape (n,)

    Raises
    ------
    LagdynError
        No convergence (no equilibrium near the guess for this actuation).
    UnboundParameterError
        Parameters without values.

    Examples
    --------
    The acrobot stands upright at (π/2, 0) without torque; with an elbow torque it bends:

    >>> import numpy as np, lagdyn as ld
    >>> acro = ld.zoo.acrobot()
    >>> q = ld.control.equilibrium(acro, [1.4, 0.1])
    >>> bool(np.allclose(q, [np.pi / 2, 0.0]))
    True
    >>> q = ld.control.equilibrium(acro, [1.4, 0.1], tau=[0.0, 1.0])
    >>> bool(abs(q[1]) > 0.01)
    True
    """
    from .errors import UnboundParameterError

    n = system.n
    pv = _params(system, dict(system.defaults) if params is None else params)
    missing = [s for s in system.parameters if s not in pv]
    if missing:
        raise UnboundParameterError(missing, "equilibrium")
    em = _kernels(system, pv, backend)
    q = np.array([float(x) for x in _vector(q_guess, n, "q_guess")])
    target = np.array([float(x) for x in _vector(tau, n, "tau")])
    zero = np.zeros(n)
    scale = 1.0 + float(np.max(np.abs(target)))
    for _ in range(max_iter):
        r = np.asarray(em.F(q, zero, params=zero)).reshape(n) - target
        J = np.asarray(em.Fq(q, zero, params=zero)).reshape(n, n)
        scale = max(scale, float(np.max(np.abs(J))) if J.size else 1.0)
        if np.max(np.abs(r)) <= tol * scale:
            return q
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        q = q + step
    r = np.asarray(em.F(q, zero, params=zero)).reshape(n) - target
    if np.max(np.abs(r)) <= tol * scale * 1e3:
        return q
    raise LagdynError(
        f"no equilibrium found near {np.asarray(q_guess).tolist()} for tau = {target.tolist()} "
        f"(residual {np.max(np.abs(r)):.3g} after {max_iter} Newton steps)"
    )


# ---------------------------------------------------------------------------- LQR
class LQRResult(NamedTuple):
    """The infinite-horizon LQR solution (from :func:`lqr`); unpacks as ``K, P, E``.

    Attributes
    ----------
    K : ndarray, shape (m, 2n)
        The gain: ``u = −K (x − x0)``.
    P : ndarray, shape (2n, 2n)
        The solution of the continuous algebraic Riccati equation.
    eigenvalues : ndarray, shape (2n,)
        Of the closed loop ``A − B K``.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> K, P, E = ld.control.lqr(np.zeros((1, 1)), np.ones((1, 1)), np.eye(1), np.eye(1))
    >>> K
    array([[1.]])
    """

    K: np.ndarray
    P: np.ndarray
    eigenvalues: np.ndarray


def _float_matrix(value: Any, name: str) -> np.ndarray:
    if isinstance(value, sp.MatrixBase):
        if value.free_symbols:
            raise LagdynError(
                f"{name} has free symbols {', '.join(sorted(map(str, value.free_symbols)))}: "
                "linearize with numeric params"
            )
        value = np.array(value.tolist(), dtype=float)
    arr = np.asarray(value, dtype=float)
    if arr.ndim != 2:
        raise ShapeError(f"{name} must be a 2-D matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise LagdynError(f"{name} must be finite")
    return arr


def lqr(A: Any, B: Any, Q: Any, R: Any) -> LQRResult:
    r"""Continuous-time LQR: minimise ∫ xᵀQx + uᵀRu dt for ẋ = Ax + Bu.

    Solves :math:`A^TP + PA - PBR^{-1}B^TP + Q = 0` with
    ``scipy.linalg.solve_continuous_are`` and returns :math:`K = R^{-1}B^TP`.

    Parameters
    ----------
    A : array_like or sympy.Matrix, shape (N, N)
    B : array_like or sympy.Matrix, shape (N, m)
    Q : array_like, shape (N, N)
        Symmetric positive semi-definite state weight.
    R : array_like, shape (m, m)
        Symmetric positive definite input weight.

    Returns
    -------
    LQRResult
        ``K, P, eigenvalues``.

    Raises
    ------
    BackendUnavailableError
        scipy is not installed (``pip install 'lagdyn[sim]'``).
    ShapeError
        Inconsistent shapes.
    LagdynError
        Symbolic entries, or no stabilising solution ((A, B) not stabilisable).

    Examples
    --------
    A double integrator:

    >>> import numpy as np, lagdyn as ld
    >>> A = np.array([[0.0, 1.0], [0.0, 0.0]]); B = np.array([[0.0], [1.0]])
    >>> ld.control.lqr(A, B, np.eye(2), np.eye(1)).K.round(6)
    array([[1.      , 1.732051]])
    """
    try:
        from scipy.linalg import solve_continuous_are
    except ImportError as exc:
        raise BackendUnavailableError("lqr needs scipy: pip install 'lagdyn[sim]'") from exc
    Am, Bm = _float_matrix(A, "A"), _float_matrix(B, "B")
    Qm, Rm = _float_matrix(Q, "Q"), _float_matrix(R, "R")
    N, m = Bm.shape
    problems = []
    if Am.shape != (N, N):
        problems.append(f"A has shape {Am.shape}, expected ({N}, {N}) to match B {Bm.shape}")
    if Qm.shape != (N, N):
        problems.append(f"Q has shape {Qm.shape}, expected ({N}, {N})")
    if Rm.shape != (m, m):
        problems.append(f"R has shape {Rm.shape}, expected ({m}, {m})")
    if problems:
        raise ShapeError("; ".join(problems))
    if not np.allclose(Rm, Rm.T) or np.linalg.eigvalsh((Rm + Rm.T) / 2)[0] <= 0:
        raise LagdynError("R must be symmetric positive definite")
    if not np.allclose(Qm, Qm.T) or np.linalg.eigvalsh((Qm + Qm.T) / 2)[0] < -1e-12:
        raise LagdynError("Q must be symmetric positive semi-definite")
    try:
        P = solve_continuous_are(Am, Bm, Qm, Rm)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise LagdynError(
            f"no stabilising LQR solution: (A, B) may not be stabilisable ({exc})"
        ) from exc
    K = np.linalg.solve(Rm, Bm.T @ P)
    E = np.linalg.eigvals(Am - Bm @ K)
    return LQRResult(K, P, E)
