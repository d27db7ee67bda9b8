r"""Base parameters: the identifiable combinations of a regressor's parameters.

Columns of the regressor Y are often linearly dependent as functions of the state
(I1 and m1 lc1² always appear together; a link's mass shows up only through its
first moment), so only combinations of the parameters π are identifiable. Writing
:math:`\pi = (\pi_1, \pi_2)` with :math:`Y_1` of full column rank and
:math:`Y_2 = Y_1 K`,

.. math:: \tau = Y\pi = Y_1(\pi_1 + K\pi_2) = Y_b\,\pi_b .

- :func:`base_parameters` finds K **exactly**: every entry of Y is brought into a
  canonical form (trig functions of sums expanded, sin q_i, cos q_i as variables with
  cos² = 1 − sin² reduced), so that linear dependence of the columns over the field of
  the known parameters is decided by an exact reduced row echelon form of their
  coefficients. Each base parameter is ``π_j + Σ K_jk π_k`` with exact, usually rational
  K; the identity Y_b π_b = Y π is then verified in the same canonical form.
- :func:`numeric_base_parameters` stacks Y at random states and uses QR with column
  pivoting: rank, independent columns, numeric K.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp
from sympy.polys.matrices import DomainMatrix

from ..errors import LagdynError, ShapeError
from ..recursive.chain import chain_of
from ._canonical import _Canonical, _canonical_terms
from .regressor import _build, _matrix_dynamic, _resolve, regressor_function

if TYPE_CHECKING:  # pragma: no cover
    # duck-typed: system.py reaches this package (to_casadi), so no import of lagdyn.system
    from typing import Any as LagrangianSystem

    from .regressor import RegressorFunction

__all__ = [
    "BaseColumns",
    "BaseParameters",
    "NumericBaseParameters",
    "base_parameters",
    "base_parameters_text",
    "numeric_base_parameters",
]


# ---------------------------------------------------------------------------- symbolic
@dataclass(frozen=True)
class BaseParameters:
    r"""The base parameters of a regressor (from :func:`base_parameters`).

    Attributes
    ----------
    system : LagrangianSystem
    params : tuple of sympy.Expr
        The standard parameters π, one per column of :attr:`Y`.
    Y : sympy.ImmutableMatrix, shape (n, p)
        The regressor of ``params``.
    rank : int
        The number of base parameters.
    independent : tuple of int
        Indices of the columns of Y kept (π₁); the others (π₂) are combinations of them.
    dependent : tuple of int
        The remaining indices.
    K : sympy.ImmutableMatrix, shape (rank, p − rank)
        Exact: ``Y[:, dependent] = Y[:, independent] K`` and ``π_b = π₁ + K π₂``.
    base : tuple of sympy.Expr
        The base parameters π_b as expressions in the system's symbols.
    Y_b : sympy.ImmutableMatrix, shape (n, rank)
        The base regressor ``Y[:, independent]``: τ = Y_b π_b.

    Examples
    --------
    >>> import lagdyn as ld
    >>> cp = ld.zoo.cart_pole()
    >>> mc, mp, l, Ip = ld.parameters("mc mp l Ip")
    >>> bp = ld.identification.base_parameters(cp, [mc, mp, l * mp, l**2 * mp, Ip])
    >>> bp.base
    (mc + mp, l*mp, Ip + l**2*mp)
    """

    system: Any
    params: tuple[sp.Expr, ...]
    Y: sp.ImmutableMatrix
    rank: int
    independent: tuple[int, ...]
    dependent: tuple[int, ...]
    K: sp.ImmutableMatrix
    base: tuple[sp.Expr, ...]
    Y_b: sp.ImmutableMatrix
    _Y_plain: sp.ImmutableMatrix = field(repr=False, compare=False)

    def text(self) -> str:
        """Printable summary: rank, each base parameter, the grouped and dropped parameters.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> print(ld.identification.base_parameters(dp, ["m1", "m2"]).text())
        2 standard parameters, 2 base parameters (rank 2)
          pi_b1 = m1
          pi_b2 = m2
        """
        p = len(self.params)
        lines = [f"{p} standard parameters, {self.rank} base parameters (rank {self.rank})"]
        for k, b in enumerate(self.base):
            lines.append(f"  pi_b{k + 1} = {sp.sstr(b)}")
        unid = [
            self.params[j]
            for col, j in enumerate(self.dependent)
            if all(self.K[r, col] == 0 for r in range(self.rank))
        ]
        if unid:
            lines.append("  not identifiable (no effect on τ): " + ", ".join(map(str, unid)))
        return "\n".join(lines)

    def base_values(self, standard: Any) -> np.ndarray:
        """π_b from values of the standard parameters, in the order of :attr:`base`.

        Parameters
        ----------
        standard : mapping of parameter (or name) to float, or array_like (p,)
            A mapping of the system's symbols (as its ``defaults``) evaluates each base
            parameter in it; an array holds the values of :attr:`params` (then K must be
            free of known parameters).

        Returns
        -------
        ndarray, shape (rank,)

        Examples
        --------
        >>> import lagdyn as ld
        >>> cp = ld.zoo.cart_pole()
        >>> mc, mp, l, Ip = ld.parameters("mc mp l Ip")
        >>> bp = ld.identification.base_parameters(cp, [mc, mp, l * mp, l**2 * mp, Ip])
        >>> bp.base
        (mc + mp, l*mp, Ip + l**2*mp)
        >>> bp.base_values(cp.defaults).round(12).tolist()
        [1.1, 0.05, 0.033333333333]
        """
        if isinstance(standard, Mapping):
            by_name = _values_by_name(standard)
            missing = sorted(
                {s.name for b in self.base for s in b.free_symbols if s.name not in by_name}
            )
            if missing:
                raise LagdynError(f"no values for the parameters {', '.join(missing)}")
            return np.array(
                [float(b.xreplace({s: by_name[s.name] for s in b.free_symbols})) for b in self.base]
            )
        known = sorted({s.name for s in self.K.free_symbols})
        if known:
            raise LagdynError(
                f"K depends on the known parameters {', '.join(known)}: pass a mapping of "
                "every parameter's value instead of an array"
            )
        pi = _standard_array(standard, len(self.params))
        K = np.array(self.K.tolist(), dtype=float).reshape(self.rank, len(self.dependent))
        dep = list(self.dependent)
        return np.asarray(pi[list(self.independent)] + (K @ pi[dep] if dep else 0.0))

    def function(
        self, values: Mapping[Any, float] | None = None, **options: Any
    ) -> RegressorFunction | BaseColumns:
        """Generated numerics for the base regressor Y_b (see :func:`regressor_function`).

        For a robot chain's standard parameters, the columns ``independent`` of the
        recursive regressor (:class:`BaseColumns`), which is much smaller than Y_b inlined.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> Yb = ld.identification.base_parameters(dp, ["m1", "m2"]).function(dp.defaults)
        >>> Yb(np.zeros(2), np.zeros(2), np.zeros(2))
        array([[0., 0.],
               [0., 0.]])
        """
        from .regressor import _use_recursive

        if _use_recursive(self.system, self.params, options.pop("route", None)):
            full = regressor_function(self.system, self.params, values, **options)
            return BaseColumns(full, self.independent, self.base)
        return regressor_function(self.system, self.base, values, Y=self.Y_b, **options)


def base_parameters(
    system: LagrangianSystem, params: Any, *, route: str | None = None
) -> BaseParameters:
    r"""The base parameters of ``params``, exactly: rank, grouping, τ = Y_b π_b.

    Parameters
    ----------
    system : LagrangianSystem
    params : sequence of sympy.Symbol, str or sympy.Expr
        Standard parameters, as for :func:`~lagdyn.identification.regressor` (e.g. from
        :func:`~lagdyn.identification.linear_parameters`). Earlier parameters are preferred as
        the independent ones.
    route : {None, "recursive", "closed"}
        How the regressor of a robot chain is obtained (see
        :func:`~lagdyn.identification.regressor`).

    Returns
    -------
    BaseParameters

    Raises
    ------
    LagdynError
        As :func:`~lagdyn.identification.regressor`; or a regressor entry the canonical form
        cannot represent (then use :func:`numeric_base_parameters`).

    Examples
    --------
    The seed 001 arm: its standard parameters reduce to α − δ, β, δ and two gravity terms.

    >>> import lagdyn as ld
    >>> arm = ld.zoo.two_link_planar()
    >>> unknown = ["m1", "m2", "l1", "lc1", "lc2", "I1", "I2"]
    >>> params = ld.identification.linear_parameters(arm, unknown)
    >>> bp = ld.identification.base_parameters(arm, params)
    >>> bp.base
    (I1 + l1**2*m2 + lc1**2*m1, I2 + lc2**2*m2, l1*m2 + lc1*m1, lc2*m2, l1*lc2*m2)
    """
    built = _build(system, params, route)
    Yp = built.Y
    n, p = Yp.shape
    qs, _ = system.plain_symbols
    canon = _Canonical(list(Yp), qs)
    tables: list[list[dict[Any, sp.Expr] | None]] = [
        [canon.table(Yp[i, j]) for j in range(p)] for i in range(n)
    ]
    try:
        if any(t is None for row in tables for t in row):  # one form for every entry
            canon.encoder = None
            tables = [[_canonical_terms(Yp[i, j], qs) for j in range(p)] for i in range(n)]
        cols: list[dict[tuple[int, Any], sp.Expr]] = [{} for _ in range(p)]
        for i in range(n):
            for j in range(p):
                for key, c in (tables[i][j] or {}).items():
                    cols[j][(i, key)] = c
    except (sp.PolynomialError, sp.GeneratorsNeeded) as exc:
        raise LagdynError(
            f"the regressor is outside the canonical form ({exc}); "
            "use ld.identification.numeric_base_parameters"
        ) from exc
    rowkeys = sorted({k for c in cols for k in c}, key=lambda k: (k[0], str(k[1])))
    if not rowkeys:
        raise LagdynError("the regressor is zero: no parameter affects the equations")
    index = {k: r for r, k in enumerate(rowkeys)}
    sparse: dict[int, dict[int, sp.Expr]] = {}
    for j, c in enumerate(cols):
        for k, v in c.items():
            sparse.setdefault(index[k], {})[j] = v
    dM = DomainMatrix.from_dict_sympy(len(rowkeys), p, sparse).to_field()
    R_dm, pivots = dM.rref()
    R = R_dm.to_Matrix()
    r = len(pivots)
    indep = tuple(int(j) for j in pivots)
    dep = tuple(j for j in range(p) if j not in indep)
    K = sp.ImmutableMatrix(r, len(dep), lambda a, b: sp.factor(R[a, dep[b]]))
    pr = built.params
    base = tuple(
        sp.expand(
            pr[indep[a]] + sum((K[a, b] * pr[dep[b]] for b in range(len(dep))), sp.Integer(0))
        )
        for a in range(r)
    )
    Yb_plain = sp.ImmutableMatrix(n, r, lambda i, a: Yp[i, indep[a]])
    # exact check in canonical form: Y[:, dep] - Y_b K == 0
    for i in range(n):
        for b in range(len(dep)):
            terms = [(Yp[i, indep[a]], K[a, b]) for a in range(r) if K[a, b] != 0]
            if not canon.combination_is_zero(Yp[i, dep[b]], terms):
                raise LagdynError(  # pragma: no cover - would be a bug in the reduction
                    f"internal error: column {pr[dep[b]]} is not reproduced by the base regressor"
                )
    return BaseParameters(
        system=system,
        params=pr,
        Y=_matrix_dynamic(system, Yp),
        rank=r,
        independent=indep,
        dependent=dep,
        K=K,
        base=base,
        Y_b=_matrix_dynamic(system, Yb_plain),
        _Y_plain=Yp,
    )


def base_parameters_text(system: LagrangianSystem, params: Any = None) -> str:
    """Printable base parameters (what ``lagdyn derive MODEL --base-parameters`` prints).

    Parameters
    ----------
    system : LagrangianSystem
    params : sequence, optional
        Standard parameters; default :func:`~lagdyn.identification.linear_parameters` of every
        parameter except the gravity ``g`` (for robot chains, the inertial, armature and
        friction symbols of :func:`lagdyn.recursive.regressor.standard_parameters_of`).

    Returns
    -------
    str

    Examples
    --------
    >>> import lagdyn as ld
    >>> print(ld.identification.base_parameters_text(ld.zoo.cart_pole()))
    standard parameters: Ip, mc, mp, l*mp, l**2*mp
    5 standard parameters, 3 base parameters (rank 3)
      pi_b1 = Ip + l**2*mp
      pi_b2 = mc + mp
      pi_b3 = l*mp
    """
    from .regressor import linear_parameters

    if params is None and chain_of(system) is not None:
        from ..recursive.regressor import standard_parameters_of

        params = standard_parameters_of(system)
    if params is None:
        syms = [s for s in system.parameters if s.name != "g"]
        if not syms:
            raise LagdynError("the system has no parameters besides g to identify")
        params = linear_parameters(system, syms)
    bp = base_parameters(system, params)
    return f"standard parameters: {', '.join(map(str, bp.params))}\n" + bp.text()


def _values_by_name(standard: Mapping[Any, Any]) -> dict[str, Any]:
    return {k if isinstance(k, str) else getattr(k, "name", str(k)): v for k, v in standard.items()}


def _standard_array(standard: Any, p: int) -> np.ndarray:
    pi = np.asarray(standard, dtype=float)
    if pi.shape != (p,):
        raise ShapeError(f"standard must have shape ({p},), got {pi.shape}")
    return pi


# ---------------------------------------------------------------------------- numeric
@dataclass(frozen=True)
class NumericBaseParameters:
    """Base parameters found numerically (from :func:`numeric_base_parameters`).

    Attributes
    ----------
    params : tuple of sympy.Expr
    rank : int
    independent, dependent : tuple of int
        Column indices, ascending. ``independent`` prefers earlier parameters, as
        :func:`base_parameters` does: column j is independent when it is not (within
        ``tol``) a combination of the independent columns before it, so both functions
        choose the same columns, in the same order, and :meth:`base` lists the base
        parameters in the order of :attr:`BaseParameters.base`.
    K : ndarray, shape (rank, p − rank)
        ``Y[:, dependent] ≈ Y[:, independent] K``.
    diagonal : ndarray, shape (p,)
        |R_kk| of the pivoted QR, relative to the first: the gap that decided the rank.
    system : LagrangianSystem
        The system (None when built by hand).
    regressor : RegressorFunction
        The numeric regressor of ``params`` the rank was computed from.

    Examples
    --------
    >>> import lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> nb = ld.identification.numeric_base_parameters(dp, ["m1", "m2"], dp.defaults)
    >>> nb.rank
    2
    """

    params: tuple[sp.Expr, ...]
    rank: int
    independent: tuple[int, ...]
    dependent: tuple[int, ...]
    K: np.ndarray
    diagonal: np.ndarray
    system: Any = field(default=None, repr=False, compare=False)
    regressor: Any = field(default=None, repr=False, compare=False)

    def base_values(self, standard: Any) -> np.ndarray:
        """π_b = π₁ + K π₂ from values of the standard parameters.

        Parameters
        ----------
        standard : mapping of parameter (or name) to float, or array_like (p,)
            Values of :attr:`params`; a mapping may hold symbols of the parameters (as a
            system's ``defaults`` does): each parameter is evaluated in it.

        Returns
        -------
        ndarray, shape (rank,)

        Examples
        --------
        >>> import lagdyn as ld
        >>> cp = ld.zoo.cart_pole()
        >>> mc, mp, l, Ip = ld.parameters("mc mp l Ip")
        >>> params = [mc, mp, l * mp, l**2 * mp, Ip]
        >>> nb = ld.identification.numeric_base_parameters(cp, params, cp.defaults)
        >>> nb.base()
        (mc + 1.0*mp, l*mp, 1.0*Ip + l**2*mp)
        >>> nb.base_values(cp.defaults).round(12).tolist()   # mc + mp, l mp, Ip + l² mp
        [1.1, 0.05, 0.033333333333]
        """
        if isinstance(standard, Mapping):
            by_name = _values_by_name(standard)
            pi = np.array(
                [
                    float(p.xreplace({s: by_name[s.name] for s in p.free_symbols}))
                    if all(s.name in by_name for s in p.free_symbols)
                    else np.nan
                    for p in self.params
                ]
            )
            if np.any(np.isnan(pi)):
                missing = [str(p) for p, v in zip(self.params, pi) if np.isnan(v)]
                raise LagdynError(f"no values for the standard parameters {', '.join(missing)}")
        else:
            pi = _standard_array(standard, len(self.params))
        dep = list(self.dependent)
        return np.asarray(pi[list(self.independent)] + (self.K @ pi[dep] if dep else 0.0))

    def function(self) -> BaseColumns:
        """The numeric base regressor Y_b = Y[:, independent] (from :attr:`regressor`).

        Raises
        ------
        LagdynError
            No regressor function attached.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> nb = ld.identification.numeric_base_parameters(dp, ["m1", "m2"], dp.defaults)
        >>> nb.function()(np.zeros(2), np.zeros(2), np.ones(2)).shape
        (2, 2)
        """
        if self.regressor is None:
            raise LagdynError("these numeric base parameters carry no regressor function")
        return BaseColumns(self.regressor, self.independent, self.base())

    def base(self, digits: int = 12) -> tuple[sp.Expr, ...]:
        """π_b = π₁ + K π₂ with K rounded to ``digits`` significant digits (for display).

        Examples
        --------
        >>> import lagdyn as ld
        >>> cp = ld.zoo.cart_pole()
        >>> mc, mp, l, Ip = ld.parameters("mc mp l Ip")
        >>> params = [mc, mp, l * mp, Ip, l**2 * mp]
        >>> nb = ld.identification.numeric_base_parameters(cp, params, cp.defaults)
        >>> nb.rank, len(nb.base())
        (3, 3)
        """
        out = []
        for a, i in enumerate(self.independent):
            e = self.params[i]
            for b, j in enumerate(self.dependent):
                k = float(self.K[a, b])
                if abs(k) > 10.0 ** (-digits):
                    e += sp.Float(k, digits) * self.params[j]
            out.append(e)
        return tuple(out)


class BaseColumns:
    """The base regressor Y_b = Y[..., independent] of numeric base parameters.

    Attributes
    ----------
    params : tuple of sympy.Expr
        The base parameters (numeric K, rounded to 12 digits).
    n : int

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> Yb = ld.identification.numeric_base_parameters(dp, ["m1", "m2"], dp.defaults).function()
    >>> Yb.params, Yb(np.zeros((4, 2)), np.zeros((4, 2)), np.ones((4, 2))).shape
    ((m1, m2), (4, 2, 2))
    """

    def __init__(self, full: Any, columns: tuple[int, ...], params: tuple[sp.Expr, ...]) -> None:
        self.full = full
        self.columns = list(columns)
        self.params = params
        self.n = full.n

    def __call__(self, q: Any, qd: Any, qdd: Any, t: Any = 0.0) -> np.ndarray:
        """Y_b at states of shape ``(..., n)``: an array ``(..., n, rank)``.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> nb = ld.identification.numeric_base_parameters(dp, ["m1", "m2"], dp.defaults)
        >>> nb.function()(np.zeros(2), np.zeros(2), np.zeros(2)).shape
        (2, 2)
        """
        return np.asarray(self.full(q, qd, qdd, t)[..., self.columns])

    def __repr__(self) -> str:
        return f"BaseColumns(n={self.n}, rank={len(self.columns)})"


def pivoted_qr(A: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Householder QR with column pivoting, ``A[:, perm] = Q R`` (numpy only).

    Parameters
    ----------
    A : array_like, shape (m, p)

    Returns
    -------
    Q : ndarray, shape (m, min(m, p))
    R : ndarray, shape (min(m, p), p)
    perm : ndarray of int, shape (p,)

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.identification.base import pivoted_qr
    >>> A = np.array([[1.0, 2.0, 0.0], [1.0, 2.0, 1.0]])
    >>> Q, R, perm = pivoted_qr(A)
    >>> perm
    array([1, 2, 0])
    >>> np.allclose(Q @ R, A[:, perm])
    True
    """
    R = np.array(A, dtype=float, copy=True)
    m, p = R.shape
    kmax = min(m, p)
    Q = np.eye(m)
    perm = np.arange(p)
    for k in range(kmax):
        norms = np.einsum("ij,ij->j", R[k:, k:], R[k:, k:])
        j = k + int(np.argmax(norms))
        if j != k:
            R[:, [k, j]] = R[:, [j, k]]
            perm[[k, j]] = perm[[j, k]]
        x = R[k:, k]
        nx = np.linalg.norm(x)
        if nx == 0.0:
            continue
        v = x.copy()
        v[0] += np.copysign(nx, x[0]) if x[0] != 0 else nx
        v /= np.linalg.norm(v)
        R[k:, k:] -= 2.0 * np.outer(v, v @ R[k:, k:])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    return Q[:, :kmax], np.triu(R[:kmax]), perm


def numeric_base_parameters(
    system: LagrangianSystem,
    params: Any,
    values: Mapping[Any, float] | None = None,
    *,
    n_samples: int | None = None,
    tol: float = 1e-9,
    seed: int = 0,
    function: RegressorFunction | None = None,
) -> NumericBaseParameters:
    """Rank and independent columns of Y stacked at random states (pivoted QR).

    Parameters
    ----------
    system : LagrangianSystem
    params : sequence
        Standard parameters, as for :func:`~lagdyn.identification.regressor`.
    values : mapping, optional
        Values of the known parameters (default ``system.defaults``).
    n_samples : int, optional
        Number of random states (default ``max(20, 4 p)``).
    tol : float
        A column is dependent when its |R_kk| ≤ ``tol`` · |R_00| (columns are scaled to
        unit norm first).
    seed : int
        Random state seed.
    function : RegressorFunction, optional
        A regressor function already generated for ``params``.

    Returns
    -------
    NumericBaseParameters

    Examples
    --------
    >>> import lagdyn as ld
    >>> arm = ld.zoo.two_link_planar()
    >>> params = ld.identification.linear_parameters(arm, ["m1", "m2", "lc1", "lc2", "I1", "I2"])
    >>> ld.identification.numeric_base_parameters(arm, params, arm.defaults).rank
    4
    """
    pr = _resolve(system, params)
    vals = dict(system.defaults) if values is None else values
    Yf = function if function is not None else regressor_function(system, pr, vals)
    p, n = len(pr), system.n
    ns = n_samples if n_samples is not None else max(20, 4 * p)
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, (ns, n))
    qd = rng.normal(size=(ns, n))
    qdd = rng.normal(size=(ns, n))
    W = Yf(q, qd, qdd).reshape(ns * n, p)
    scale = np.linalg.norm(W, axis=0)
    zero = scale == 0.0
    Ws = W / np.where(zero, 1.0, scale)
    _, R, perm = pivoted_qr(Ws)
    d = np.abs(np.diag(R))
    ref = d[0] if d.size and d[0] > 0 else 1.0
    rank = int(np.sum(d > tol * ref))
    indep = _earliest_independent(Ws, rank, tol, sorted(int(j) for j in perm[:rank]))
    dep = tuple(j for j in range(p) if j not in indep)
    if rank:
        Ks = np.linalg.lstsq(Ws[:, list(indep)], Ws[:, list(dep)], rcond=None)[0]
        s_ind = np.where(zero, 1.0, scale)[list(indep)]
        s_dep = np.where(zero, 1.0, scale)[list(dep)] if dep else np.ones(0)
        K = Ks * s_dep[None, :] / s_ind[:, None]
        if dep:
            K[:, zero[list(dep)]] = 0.0
    else:
        K = np.zeros((0, p))
    full = np.zeros(p)
    full[: d.size] = d / ref
    return NumericBaseParameters(pr, rank, indep, dep, K, full, system, Yf)


def _earliest_independent(
    Ws: np.ndarray, rank: int, tol: float, fallback: list[int]
) -> tuple[int, ...]:
    """The first ``rank`` columns of ``Ws`` (unit-norm columns) that are independent, left
    to right, as the exact reduction's pivots are; the QR pivots (sorted) if the greedy
    choice does not reach the rank."""
    chosen: list[int] = []
    for j in range(Ws.shape[1]):
        if len(chosen) == rank:
            break
        s = np.linalg.svd(Ws[:, [*chosen, j]], compute_uv=False)
        if s[0] > 0 and s[-1] > tol * s[0]:
            chosen.append(j)
    return tuple(chosen if len(chosen) == rank else fallback)
