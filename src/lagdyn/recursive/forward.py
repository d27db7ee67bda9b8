"""Forward dynamics q̈ = M⁻¹(τ − h) of a chain as a program: CRBA + LDLᵀ, or ABA.

``method="crba"`` builds M by :mod:`~lagdyn.recursive.crba`, h by
:mod:`~lagdyn.recursive.rnea` with q̈ = 0 and solves by an unrolled LDLᵀ factorization
(:func:`_ldlt_solve`, O(n²) program); ``method="aba"`` runs the articulated-body algorithm
of :mod:`~lagdyn.recursive.aba` (O(n)); the default is by size (:func:`choose_forward`,
:data:`ABA_FROM`).

Examples
--------
>>> from lagdyn.recursive.forward import ABA_FROM, choose_forward
>>> ABA_FROM, choose_forward(3)
(10, 'crba')
"""

from __future__ import annotations

import time

import sympy as sp

from ..errors import LagdynError
from .aba import _aba_into
from .algebra import Vec, _Builder, _kinematics
from .chain import Chain, in_joint_frames
from .crba import _crba_into
from .program import Program, _finish, input_symbols
from .rnea import _rnea_into

__all__ = ["ABA_FROM", "FORWARD_METHODS", "choose_forward", "forward_dynamics"]

#: The forward-dynamics algorithms of :func:`forward_dynamics`.
FORWARD_METHODS = ("aba", "crba")
#: Smallest number of joints whose default forward dynamics is ABA (CRBA + LDLᵀ below):
#: the generated ABA has fewer operations from about 6 joints for planar chains and from
#: 10 for generic spatial ones; at 6–7 joints the UR5, Panda and PUMA 560 are 5–20 %
#: smaller by CRBA (``benchmarks/RESULTS.md``).
ABA_FROM = 10


def choose_forward(n: int, method: str | None = None) -> str:
    """The forward-dynamics algorithm for ``n`` joints: ``method``, or the default by size.

    Raises
    ------
    LagdynError
        An unknown ``method``.

    Examples
    --------
    >>> from lagdyn.recursive.forward import choose_forward
    >>> choose_forward(6), choose_forward(12), choose_forward(6, "aba")
    ('crba', 'aba', 'aba')
    """
    if method is None:
        return "aba" if n >= ABA_FROM else "crba"
    if method not in FORWARD_METHODS:
        raise LagdynError(f"unknown forward-dynamics method {method!r}; choose 'aba' or 'crba'")
    return method


def forward_dynamics(chain: Chain, *, friction: bool = False, method: str | None = None) -> Program:
    r"""Forward dynamics q̈ = M⁻¹(τ − h) as a program, shape (n,).

    ``method="crba"``: CRBA, RNEA with q̈ = 0 and an unrolled LDLᵀ solve (O(n²) program);
    ``method="aba"``: Featherstone's articulated-body algorithm (three recursive passes,
    O(n)); ``None``: ABA from :data:`ABA_FROM` joints on, CRBA below. With
    ``friction=True`` the friction forces are subtracted from τ first.

    Raises
    ------
    LagdynError
        An unknown ``method``.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.recursive.forward import forward_dynamics
    >>> arm = ld.zoo.get("planar_3r")
    >>> f = forward_dynamics(arm.chain).lambdify(arm.defaults)
    >>> hanging = np.array([-np.pi / 2, 0, 0])   # straight down: an equilibrium
    >>> np.round(f(q=hanging, qd=np.zeros(3), tau=np.zeros(3)), 6) + 0.0
    array([0., 0., 0.])
    """
    method = choose_forward(chain.n, method)
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    ins = input_symbols(n)
    b = _Builder()
    kin = _kinematics(chain, b, ins["q"])
    tau = list(ins["tau"])
    if friction:
        for i, link in enumerate(chain.links):
            tau[i] -= link.viscous * ins["qd"][i] + link.coulomb * sp.sign(ins["qd"][i])
    if method == "aba":
        qdd = _aba_into(chain, b, kin, ins["qd"], tau)
    else:
        M = _crba_into(chain, b, kin)
        h, _ = _rnea_into(chain, b, kin, ins["qd"], [sp.Integer(0)] * n, True)
        qdd = _ldlt_solve(b, M, [b.let(tau[i] - h[i]) for i in range(n)])
    return _finish("qdd", b, qdd, (n,), start)


def _ldlt_solve(b: _Builder, M: list[list[sp.Expr]], rhs: Vec) -> Vec:
    """Solve M x = rhs by an unrolled LDLᵀ factorization (structural zeros stay zero)."""
    n = len(M)
    L: list[list[sp.Expr]] = [[sp.Integer(0)] * n for _ in range(n)]
    D: Vec = [sp.Integer(0)] * n
    Dinv: Vec = [sp.Integer(0)] * n
    for j in range(n):
        D[j] = b.let(M[j][j] - sp.Add(*(L[j][k] ** 2 * D[k] for k in range(j))))
        Dinv[j] = b.let(1 / D[j])
        for i in range(j + 1, n):
            L[i][j] = b.let(
                (M[i][j] - sp.Add(*(L[i][k] * L[j][k] * D[k] for k in range(j)))) * Dinv[j]
            )
    y: Vec = [sp.Integer(0)] * n
    for i in range(n):
        y[i] = b.let(rhs[i] - sp.Add(*(L[i][k] * y[k] for k in range(i))))
    x: Vec = [sp.Integer(0)] * n
    for i in range(n - 1, -1, -1):
        x[i] = b.let(y[i] * Dinv[i] - sp.Add(*(L[k][i] * x[k] for k in range(i + 1, n))))
    return x
