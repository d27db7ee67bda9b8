r"""The recursive regressor of a robot chain: τ = Y(q, q̇, q̈) π as a straight-line program.

Inverse dynamics is linear in each link's ten barycentric parameters
:math:`\phi_i = (XX, XY, XZ, YY, YZ, ZZ, MX, MY, MZ, M)` (inertia about the link frame's
origin, first moment m·c, mass) and in the joints' armature and friction coefficients. With
the forward pass of recursive Newton–Euler (link velocities ω, v and accelerations ω̇, v̇,
gravity folded into the base acceleration), link i's wrench about its origin is
:math:`w_i = A_i(\omega, v, \dot\omega, \dot v)\,\phi_i`,

.. math::

    n &= I\dot\omega + \omega\times I\omega + h\times\dot v
          + \omega\times(h\times v) - v\times(h\times\omega),\\
    f &= m(\dot v + \omega\times v) - h\times\dot\omega - \omega\times(h\times\omega),

and joint j transmits :math:`\tau_j = S_j^T \sum_{i \succeq j} X^*_{j\leftarrow i} w_i`.
Since :math:`S_j^T X^*_{j\leftarrow i} = (X_{i\leftarrow j} S_j)^T`, the block of Y in row j
and the columns of link i is :math:`(X_{i\leftarrow j}S_j)^T A_i`: the joint axis is carried
*down* the chain (one 6-vector per pair j ⪯ i) instead of carrying ten wrench columns up,
and each block is ten dot products with the (sparse) columns of :math:`A_i`. Everything is
built on the same program builder as the algorithms of :mod:`lagdyn.recursive` (shared
sines, cosines, rotations; structural zeros and ones of the geometry vanish while building).

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.recursive.regressor import regressor_program, standard_parameters_of
>>> arm = ld.zoo.get("planar_3r", parameters="symbolic")
>>> params = standard_parameters_of(arm)
>>> len(params), params[:3]
(30, (XX1, XY1, XZ1))
>>> prog = regressor_program(arm, params)
>>> prog.shape
(3, 30)
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp

from ..errors import LagdynError
from .algebra import _add, _Builder, _cross, _dot, _kinematics, _mtv, _mv, _scale
from .chain import Chain, chain_of
from .program import Program, _finish, input_symbols
from .rnea import _forward_pass

__all__ = ["is_standard", "regressor_program", "standard_parameters_of"]

#: Bumped whenever the regressor program changes shape (part of the generated code's cache key).
REGRESSOR_VERSION = "2"
_FIELDS = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")


def _link_entries(chain: Chain) -> list[tuple[sp.Expr, ...]]:
    """Per link: its ten barycentric entries (Link.parameters order)."""
    return [tuple(sp.sympify(x) for x in link.parameters) for link in chain.links]


def _joint_entries(system: Any) -> list[tuple[sp.Expr, ...]]:
    """Per joint: armature, and viscous and Coulomb friction when the system has friction."""
    out = []
    for link in system.chain.links:
        fr = (link.viscous, link.coulomb) if getattr(system, "friction", False) else ()
        out.append((sp.sympify(link.armature), *(sp.sympify(x) for x in fr)))
    return out


def standard_parameters_of(system: Any) -> tuple[sp.Symbol, ...]:
    """The standard parameters of a robot system: every inertial or joint symbol, in order.

    Per link, the symbols among its ten barycentric entries (XX, XY, XZ, YY, YZ, ZZ, MX,
    MY, MZ, M — all ten for ``parameters="symbolic"``), then the joint's armature and,
    when the system has friction, viscous and Coulomb coefficients that are symbols.

    Raises
    ------
    LagdynError
        No symbolic inertial parameter (build the arm with ``parameters="symbolic"``), or an
        entry that is an expression of symbols rather than one symbol.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.regressor import standard_parameters_of
    >>> len(standard_parameters_of(ld.zoo.get("ur5", parameters="symbolic")))
    60
    """
    chain = system.chain
    out: list[sp.Symbol] = []
    bad: list[str] = []
    for i, (ents, joint) in enumerate(zip(_link_entries(chain), _joint_entries(system))):
        for e in (*ents, *joint):
            if isinstance(e, sp.Symbol):
                if e not in out:
                    out.append(e)
            elif e.free_symbols:
                bad.append(f"link {i + 1}: {e}")
    if bad:
        raise LagdynError(
            "the chain's inertial parameters must be symbols or numbers for a standard "
            "parameter set; expressions: " + "; ".join(bad)
        )
    if not out:
        raise LagdynError(
            "the chain has no symbolic inertial parameters: build it with "
            'parameters="symbolic" (e.g. ld.zoo.get("ur5", parameters="symbolic"))'
        )
    return tuple(out)


def is_standard(system: Any, params: Sequence[sp.Expr]) -> bool:
    """Whether ``params`` can take the recursive route: distinct symbols, each one entry
    of the chain, and every nonzero inertial or joint entry among them.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive.regressor import is_standard, standard_parameters_of
    >>> arm = ld.zoo.get("planar_3r", parameters="symbolic")
    >>> is_standard(arm, standard_parameters_of(arm)), is_standard(arm, ["M1"])
    (True, False)
    """
    chain = chain_of(system)
    if chain is None:
        return False
    pset = set(params)
    if len(pset) != len(params) or not all(isinstance(p, sp.Symbol) for p in params):
        return False
    entries = [e for ents in _link_entries(chain) for e in ents]
    entries += [e for ents in _joint_entries(system) for e in ents]
    seen: set[sp.Basic] = set()
    for e in entries:
        if e in pset:
            seen.add(e)
        elif e != 0:
            return False
    return seen == pset


def _wrench_columns(
    b: _Builder, w: list[Any], v: list[Any], dw: list[Any], dv: list[Any]
) -> list[tuple[list[sp.Expr], list[sp.Expr]]]:
    """The ten columns of A_i: (n, f) per unit barycentric parameter, named in ``b``."""
    ph = [sp.Dummy(f) for f in _FIELDS]
    XX, XY, XZ, YY, YZ, ZZ, MX, MY, MZ, m = ph
    Il = [[XX, XY, XZ], [XY, YY, YZ], [XZ, YZ, ZZ]]
    h = [MX, MY, MZ]
    cross = _cross
    add = _add
    Iw = _mv(Il, w)
    n = add(
        _mv(Il, dw),
        cross(w, Iw),
        cross(h, dv),
        cross(w, cross(h, v)),
        _scale(-1, cross(v, cross(h, w))),
    )
    f = add(
        _scale(m, add(dv, cross(w, v))),
        _scale(-1, cross(h, dw)),
        _scale(-1, cross(w, cross(h, w))),
    )
    n = [sp.expand(x) for x in n]
    f = [sp.expand(x) for x in f]
    cols = []
    for s in ph:
        cn = [b.let(sp.expand(x.coeff(s))) for x in n]
        cf = [b.let(sp.expand(x.coeff(s))) for x in f]
        cols.append((cn, cf))
    return cols


def regressor_program(
    system: Any,
    params: Sequence[Any] | None = None,
    values: Mapping[sp.Symbol, Any] | None = None,
    *,
    code: Mapping[str, Sequence[sp.Symbol]] | None = None,
) -> Program:
    r"""The regressor Y (shape (n, len(params))) of a robot chain as a recursive program.

    Parameters
    ----------
    system : RobotSystem
        A chain system whose inertial (and joint) parameters are symbols.
    params : sequence of sympy.Symbol, optional
        Standard parameters, each one entry of the chain (default
        :func:`standard_parameters_of`); every nonzero inertial entry must be among them.
    values : mapping, optional
        Known parameters (gravity, geometric symbols) substituted before building.
    code : mapping, optional
        Input symbols to build in (``q``, ``qd``, ``qdd``); default the plain program
        inputs of :func:`lagdyn.recursive.program.input_symbols`.

    Returns
    -------
    lagdyn.robot.Program
        Named ``"Y"``; ``outputs`` row-major; ``count_ops()`` counts after CSE.

    Raises
    ------
    LagdynError
        ``params`` is not a standard parameter set of the chain.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.recursive.regressor import regressor_program, standard_parameters_of
    >>> arm = ld.zoo.get("planar_3r", parameters="symbolic")
    >>> Y = regressor_program(arm).lambdify(arm.defaults)   # g = 9.81 (the rest unused)
    >>> Y(q=np.zeros(3), qd=np.zeros(3), qdd=np.zeros(3)).shape
    (3, 30)
    """
    from .route import _bind_chain

    start = time.perf_counter()
    pr = tuple(standard_parameters_of(system) if params is None else params)
    pr = tuple(sp.sympify(p) for p in pr)
    if not is_standard(system, pr):
        raise LagdynError(
            "params are not a standard parameter set of the chain: give distinct symbols, "
            "each one inertial (or armature/friction) entry of a link, covering every "
            "nonzero entry (see ld.robot.regressor.standard_parameters_of)"
        )
    n = system.n
    ins = input_symbols(n)
    if code is not None:
        ins = {**ins, **{k: tuple(v) for k, v in code.items()}}
    known = {s: v for s, v in dict(values or {}).items() if s not in set(pr)}
    chain = _bind_chain(system.chain, known)
    b = _Builder("y")
    kin = _kinematics(chain, b, ins["q"])
    qd, qdd = ins["qd"], ins["qdd"]
    links = chain.links
    cross, add, mtv = _cross, _add, _mtv
    g0 = [-x for x in chain.gravity]
    w, v, dw, dv = _forward_pass(chain, b, kin, qd, qdd, g0)
    col = {p: k for k, p in enumerate(pr)}
    Y = [[sp.Integer(0)] * len(pr) for _ in range(n)]
    entries = _link_entries(chain)
    # joint axis of j carried down to every descendant i: (X_{i<-j} S_j) in frame i
    carried: dict[tuple[int, int], tuple[list[sp.Expr], list[sp.Expr]]] = {}
    for i, link in enumerate(links):
        carried[(i, i)] = (list(kin.sw[i]), list(kin.sv[i]))
        par = link.parent
        if par >= 0:
            R, p = kin.R[i], kin.p[i]
            for j in chain.ancestors(par):
                swj, svj = carried[(par, j)]
                carried[(i, j)] = (
                    b.vec(mtv(R, swj)),
                    b.vec(mtv(R, add(svj, cross(swj, p)))),
                )
    for i in range(len(links)):
        ents = entries[i]
        if not any(e in col for e in ents):
            continue
        A = _wrench_columns(b, w[i], v[i], dw[i], dv[i])
        for j in chain.ancestors(i):
            sw, sv = carried[(i, j)]
            for k, e in enumerate(ents):
                if e in col:  # a symbol in several entries: its column is the sum
                    cn, cf = A[k]
                    Y[j][col[e]] += b.let(_dot(sw, cn) + _dot(sv, cf))
    for i, joint in enumerate(_joint_entries(system)):
        rates = (qdd[i], qd[i], sp.sign(qd[i]))
        for e, r in zip(joint, rates):
            if e in col:
                Y[i][col[e]] += r
    flat = [b.let(x) for row in Y for x in row]
    return _finish("Y", b, flat, (n, len(pr)), start)
