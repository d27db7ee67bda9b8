r"""Derivatives of the dynamics of a chain as straight-line programs (for optimal control).

Two kernels:

``inverse_dynamics_derivatives`` (inputs ``q, qd, qdd``), shape ``(n, 3n)``
    :math:`[\partial\tau/\partial q \mid \partial\tau/\partial\dot q \mid M]` of
    :math:`\tau = \mathrm{RNEA}(q, \dot q, \ddot q)` (friction included when the system has
    it; the Coulomb term's derivative is 0 away from :math:`\dot q = 0`).
``forward_dynamics_derivatives`` (inputs ``q, qd, tau``), shape ``(n, 3n)``
    :math:`[\partial\ddot q/\partial q \mid \partial\ddot q/\partial\dot q \mid M^{-1}]`:
    q̈ from M, h and an unrolled factorization of M, then (Carpentier & Mansard 2018,
    eq. 9) :math:`\partial\ddot q/\partial x = -M^{-1}\,\partial\tau/\partial x` with the
    derivatives of RNEA taken at the acceleration q̈ (held fixed), and :math:`M^{-1}` from
    the same factorization.

Two ways to differentiate RNEA (``method`` of :func:`derivative_program`,
:data:`DERIVATIVE_METHODS`):

``"analytical"`` (the default)
    the recursive derivatives of Carpentier & Mansard (RSS 2018) in one fixed frame
    (:mod:`lagdyn.recursive.rnea_derivatives`): one pass for the composites, then one
    product of 6-vectors per entry. The forward-dynamics kernel takes M and h from the same
    pass (q̈ = 0), solves for q̈ by Featherstone's LᵀDL factorization (:func:`_ltdl`: no
    fill-in across branches) and adds its accelerations on.
``"forward"``
    forward-mode differentiation of the straight-line RNEA program (:func:`tangents`: every
    intermediate gets one tangent per direction it depends on; structural zeros are never
    formed), M by CRBA.

The analytical programs are the smaller ones on every arm measured (operations after the
joint CSE, ID / FD derivatives: UR5 2,379 / 3,689 against 3,533 / 4,959 by forward mode;
Panda 4,427 / 6,468 against 11,947 / 14,499; PUMA 560 3,005 / 4,288 against 4,642 /
6,099; ``derivative_sizes`` measures them).

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> arm = ld.zoo.get("planar_3r")
>>> num = arm.lambdify(arm.defaults, route="recursive")
>>> dq, dv, Minv = num.forward_dynamics_derivatives(np.zeros(3), np.zeros(3), np.zeros(3))
>>> bool(np.allclose(Minv @ num.M(np.zeros(3)), np.eye(3)))
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp

from ..codegen import Binding, Kernel, Program
from ..codegen.build import DERIVATIVE_KERNELS, DERIVATIVES_VERSION
from ..codegen.cache import cache_key
from ..codegen.ir import prune
from ..errors import LagdynError
from .algebra import _Builder, _kinematics
from .crba import _crba_into
from .forward import _ldlt_solve
from .program import _finish_outputs
from .rnea import _rnea_into
from .rnea_derivatives import _rnea_derivatives_into, _World
from .route import _chain_parts, _check_symbols, _code_and_chain, _empty_program

#: How :func:`derivative_program` differentiates RNEA: ``"analytical"`` (the recursive
#: derivatives of Carpentier & Mansard, :mod:`lagdyn.recursive.rnea_derivatives`) or
#: ``"forward"`` (forward-mode differentiation of the RNEA program, :func:`tangents`).
DERIVATIVE_METHODS = ("analytical", "forward")

__all__ = [
    "DERIVATIVES_VERSION",
    "DERIVATIVE_KERNELS",
    "DERIVATIVE_METHODS",
    "derivative_plan",
    "derivative_program",
    "derivative_sizes",
    "tangents",
]


def tangents(
    b: _Builder,
    outputs: Sequence[sp.Expr],
    seeds: Mapping[sp.Symbol, int],
    directions: int,
    *,
    fixed: set[sp.Basic] | frozenset[sp.Basic] = frozenset(),
) -> list[list[sp.Expr]]:
    """Forward-mode derivatives of ``outputs`` along ``directions`` seeds, on builder ``b``.

    ``seeds`` maps an input symbol to its direction (``∂seed/∂direction = 1``); symbols in
    ``fixed`` (and every input not seeded) have zero tangent: their derivatives are
    partial ones with those held. Only the assignments of ``b.body`` that an output
    reaches are differentiated; each tangent is a new intermediate of ``b`` (identical
    ones shared), built from the exact partial derivatives of one right-hand side
    (``sign`` has derivative 0: the Coulomb friction term away from zero velocity).
    Returns ``out[i][k] = ∂outputs[i]/∂direction k``.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.recursive.algebra import _Builder
    >>> from lagdyn.recursive.derivatives import tangents
    >>> x, y = sp.symbols("x y", real=True)
    >>> b = _Builder("w")
    >>> w = b.let(sp.sin(x) * y)
    >>> tangents(b, [w * x], {x: 0, y: 1}, 2)
    [[w4, w3]]
    >>> b.body[1:]
    [(w1, sin(x)), (w2, y*cos(x)), (w3, w1*x), (w4, w0 + w2*x)]
    """
    defs = dict(b.body)
    need: set[sp.Basic] = set()
    stack: list[sp.Basic] = [s for e in outputs for s in sp.sympify(e).free_symbols]
    while stack:
        s = stack.pop()
        if s in need or s in fixed or s not in defs:
            continue
        need.add(s)
        stack.extend(defs[s].free_symbols)
    tan: dict[sp.Basic, dict[int, sp.Expr]] = {s: {k: sp.Integer(1)} for s, k in seeds.items()}
    for s, e in list(b.body):
        if s in need:
            t = _tangent(b, e, tan)
            if t:
                tan[s] = t
    out = []
    for e in outputs:
        t = _tangent(b, sp.sympify(e), tan)
        out.append([t.get(k, sp.Integer(0)) for k in range(directions)])
    return out


def _tangent(
    b: _Builder, e: sp.Expr, tan: Mapping[sp.Basic, Mapping[int, sp.Expr]]
) -> dict[int, sp.Expr]:
    """The tangents of ``e`` by direction, from those of its free symbols (each named in ``b``)."""
    if not any(x in tan for x in e.free_symbols):
        return {}
    out: dict[int, sp.Expr] = {}
    for k, v in _linear(e, tan).items():
        if v != 0:
            out[k] = b.let(v)
    return out


def _linear(e: sp.Expr, tan: Mapping[sp.Basic, Mapping[int, sp.Expr]]) -> dict[int, sp.Expr]:
    """Forward-mode derivative of ``e`` by direction: sums, products, integer powers, sin,
    cos and sign by rule (sign: 0), anything else by ``sympy.diff`` of its free symbols."""
    if e.is_Symbol:
        return dict(tan.get(e, {}))
    if e.is_Number or not any(x in tan for x in e.free_symbols):
        return {}
    terms: dict[int, list[sp.Expr]] = {}
    if e.is_Add:
        for a in e.args:
            for k, d in _linear(a, tan).items():
                terms.setdefault(k, []).append(d)
    elif e.is_Mul:
        args = e.args
        for i, a in enumerate(args):
            da = _linear(a, tan)
            if da:
                rest = sp.Mul(*args[:i], *args[i + 1 :])
                for k, d in da.items():
                    terms.setdefault(k, []).append(rest * d)
    elif e.is_Pow and e.exp.is_Integer:
        db = _linear(e.base, tan)
        factor = e.exp * e.base ** (e.exp - 1)
        return {k: factor * d for k, d in db.items()}
    elif isinstance(e, (sp.sin, sp.cos)):
        da = _linear(e.args[0], tan)
        factor = sp.cos(e.args[0]) if isinstance(e, sp.sin) else -sp.sin(e.args[0])
        return {k: factor * d for k, d in da.items()}
    elif isinstance(e, sp.sign):  # the Coulomb term: derivative 0 away from zero velocity
        return {}
    else:
        for x in sorted((x for x in e.free_symbols if x in tan), key=str):
            partial = sp.diff(e, x)
            if partial.has(sp.DiracDelta):
                partial = partial.replace(sp.DiracDelta, lambda *a: sp.Integer(0))
            for k, dx in tan[x].items():
                terms.setdefault(k, []).append(partial * dx)
    return {k: sp.Add(*v) for k, v in terms.items()}


def _named(b: _Builder, xs: Sequence[sp.Expr], prefix: str) -> list[sp.Symbol]:
    """``xs`` as symbols assigned in ``b`` (a fresh assignment where one is an expression)."""
    defined = {s for s, _ in b.body}
    out = []
    for i, x in enumerate(xs):
        if isinstance(x, sp.Symbol) and x in defined:
            out.append(x)
        else:
            s = sp.Symbol(f"{prefix}{i}", real=True)
            b.body.append((s, sp.sympify(x)))
            out.append(s)
    return out


def _outputs(
    system: Any,
    chain: Any,
    code: Mapping[str, Sequence[sp.Symbol]],
    wanted: Sequence[str],
    method: str = "analytical",
) -> tuple[_Builder, dict[str, list[sp.Expr]]]:
    """The builder and the flat outputs of the wanted derivative kernels."""
    n = chain.n
    q, qd = code["q"], code["qd"]
    b = _Builder("w")
    kin = _kinematics(chain, b, q)
    friction: list[sp.Expr] = [sp.Integer(0)] * n
    viscous: list[sp.Expr] | None = None
    if system.friction:
        friction = [
            link.viscous * qd[i] + link.coulomb * sp.sign(qd[i])
            for i, link in enumerate(chain.links)
        ]
        viscous = [link.viscous for link in chain.links]
    seeds = {**{q[k]: k for k in range(n)}, **{qd[k]: n + k for k in range(n)}}
    zero = [sp.Integer(0)] * n
    out: dict[str, list[sp.Expr]] = {}

    def partials(qdd: Sequence[sp.Expr], held: set[sp.Basic]) -> tuple[Any, Any, Any]:
        """(∂τ/∂q, ∂τ/∂q̇, M) at ``qdd`` (n × n each) by ``method``."""
        if method == "analytical":
            return _rnea_derivatives_into(chain, b, kin, qd, qdd, viscous)
        tau, _ = _rnea_into(chain, b, kin, qd, qdd, True)
        tau = [b.let(tau[i] + friction[i]) for i in range(n)]
        d = tangents(b, tau, seeds, 2 * n, fixed=held)
        return [r[:n] for r in d], [r[n:] for r in d], _crba_into(chain, b, kin)

    if "inverse_dynamics_derivatives" in wanted:
        dq, dv, M = partials(code["qdd"], set())
        out["inverse_dynamics_derivatives"] = [x for i in range(n) for x in (*dq[i], *dv[i], *M[i])]
    if "forward_dynamics_derivatives" in wanted:
        if method == "analytical":
            # one base-frame pass: M and h from it, q̈ solved, then the pass accelerated
            world = _World(chain, b, kin, qd)
            world.accelerate(zero)
            M, h = world.M, world.bias()
        else:
            M = _crba_into(chain, b, kin)
            h, _ = _rnea_into(chain, b, kin, qd, zero, True)
        rhs = [b.let(code["tau"][i] - h[i] - friction[i]) for i in range(n)]
        if method == "analytical":
            # M = Lᵀ D L with L shaped like the tree (no fill-in across branches)
            L, Dinv = _ltdl(b, chain.parents, M)
            qdd = _named(b, _ltdl_solve(b, chain.parents, L, Dinv, rhs), "qdd")
            cols = [
                _ltdl_solve(b, chain.parents, L, Dinv, [sp.Integer(int(i == j)) for i in range(n)])
                for j in range(n)
            ]
        else:
            qdd = _named(b, _ldlt_solve(b, M, rhs), "qdd")
            # M⁻¹ by columns from the same factorization (the builder shares L and D)
            cols = [
                _ldlt_solve(b, M, [sp.Integer(int(i == j)) for i in range(n)]) for j in range(n)
            ]
        Minv = [[cols[max(i, j)][min(i, j)] for j in range(n)] for i in range(n)]
        if method == "analytical":
            world.accelerate(qdd)
            dq, dv = world.partials(viscous)
        else:
            dq, dv, _ = partials(qdd, set(qdd))
        rows = []
        for i in range(n):
            rq = [b.let(-sp.Add(*(Minv[i][k] * dq[k][j] for k in range(n)))) for j in range(n)]
            rv = [b.let(-sp.Add(*(Minv[i][k] * dv[k][j] for k in range(n)))) for j in range(n)]
            rows += [*rq, *rv, *Minv[i]]
        out["forward_dynamics_derivatives"] = rows
    return b, out


def _ltdl(
    b: _Builder, parents: Sequence[int], M: list[list[sp.Expr]]
) -> tuple[dict[tuple[int, int], sp.Expr], list[sp.Expr]]:
    """Featherstone's LᵀDL factorization of a tree's mass matrix, unrolled on ``b``.

    ``M = Lᵀ D L`` with L unit lower triangular and ``L[k, i]`` nonzero only for ``i`` an
    ancestor of ``k`` (the sparsity of M: no fill-in). Returns those entries by ``(k, i)``
    and ``1/D``.
    """
    n = len(M)
    A = {(i, j): M[i][j] for i in range(n) for j in range(i + 1)}
    Dinv: list[sp.Expr] = [sp.Integer(0)] * n
    L: dict[tuple[int, int], sp.Expr] = {}
    for k in range(n - 1, -1, -1):
        Dinv[k] = b.let(1 / A[(k, k)])
        i = parents[k]
        while i >= 0:
            a = b.let(A[(k, i)] * Dinv[k])
            j = i
            while j >= 0:
                A[(i, j)] = b.let(A[(i, j)] - a * A[(k, j)])
                j = parents[j]
            L[(k, i)] = a
            i = parents[i]
    return L, Dinv


def _ltdl_solve(
    b: _Builder,
    parents: Sequence[int],
    L: dict[tuple[int, int], sp.Expr],
    Dinv: Sequence[sp.Expr],
    rhs: Sequence[sp.Expr],
) -> list[sp.Expr]:
    """``x`` with ``Lᵀ D L x = rhs`` (:func:`_ltdl`), structural zeros kept."""
    n = len(rhs)
    x = list(rhs)
    for i in range(n - 1, -1, -1):  # L⁻ᵀ
        x[i] = b.let(x[i])
        j = parents[i]
        while j >= 0:
            x[j] = x[j] - L[(i, j)] * x[i]
            j = parents[j]
    x = [b.let(x[i] * Dinv[i]) for i in range(n)]
    for i in range(n):  # L⁻¹
        j = parents[i]
        acc = x[i]
        while j >= 0:
            acc -= L[(i, j)] * x[j]
            j = parents[j]
        x[i] = b.let(acc)
    return x


def derivative_program(
    system: Any,
    binding: Binding,
    *,
    cse: bool = True,
    wanted: Sequence[str] | None = None,
    method: str = "analytical",
) -> Program:
    """The derivative kernels of a robot chain (:data:`DERIVATIVE_KERNELS`), one program.

    Bound parameters are substituted into the chain before the programs are built (their
    zeros vanish); one joint ``sympy.cse`` runs over the whole program (``cse=False``
    skips it). ``wanted`` restricts the kernels built (default both); ``method`` chooses
    how RNEA is differentiated (:data:`DERIVATIVE_METHODS`).

    Raises
    ------
    LagdynError
        An unknown ``method``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.recursive.derivatives import derivative_program
    >>> arm = ld.zoo.get("planar_3r")
    >>> prog = derivative_program(arm, Binding(arm.parameters, arm.defaults))
    >>> prog.kernels["forward_dynamics_derivatives"].shape
    (3, 9)
    """
    n = system.n
    code, chain = _code_and_chain(system, binding)
    names = list(DERIVATIVE_KERNELS) if wanted is None else list(wanted)
    if method not in DERIVATIVE_METHODS:
        raise LagdynError(
            f"unknown derivative method {method!r}; choose one of {DERIVATIVE_METHODS}"
        )
    b, outputs = _outputs(system, chain, code, names, method)
    body, outs = _finish_outputs(outputs, b.body, cse)
    prog = _empty_program(system, binding, code)
    known = {s for v in code.values() for s in v} | {s for s, _ in body}
    for k, exprs in outs.items():
        _check_symbols(k, exprs, known)
        prog.kernels[k] = Kernel(
            k, DERIVATIVE_KERNELS[k], prune(body, [], exprs), exprs, (n, 3 * n)
        )
    return prog


def derivative_plan(
    system: Any, binding: Binding, backend: str
) -> tuple[str, Callable[[], Program]]:
    """``(cache key, program factory)`` of the derivative kernels of a robot chain.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.recursive.derivatives import derivative_plan
    >>> arm = ld.zoo.get("planar_3r")
    >>> key, make = derivative_plan(arm, Binding(arm.parameters, arm.defaults), "numpy")
    >>> len(key), sorted(make().kernels)
    (64, ['forward_dynamics_derivatives', 'inverse_dynamics_derivatives'])
    """
    key = cache_key(
        system,
        f"robot-derivatives-{DERIVATIVES_VERSION}",
        _chain_parts(system),
        binding.key(),
        backend,
    )
    return key, lambda: derivative_program(system, binding)


def derivative_sizes(
    system: Any, params: Mapping[Any, float] | None = None, method: str = "analytical"
) -> dict[str, int]:
    """Operations (``count_ops`` after the joint CSE) of each derivative kernel by ``method``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.derivatives import derivative_sizes
    >>> arm = ld.zoo.get("planar_3r")
    >>> sizes = derivative_sizes(arm, arm.defaults)
    >>> sorted(sizes), all(v > 0 for v in sizes.values())
    (['forward_dynamics_derivatives', 'inverse_dynamics_derivatives'], True)
    """
    prog = derivative_program(system, Binding(system.parameters, params), method=method)
    out = {}
    for name, k in prog.kernels.items():
        exprs = [e for _, e in k.body] + list(k.outputs)
        out[name] = int(sum(sp.count_ops(e) for e in exprs))
    return out
