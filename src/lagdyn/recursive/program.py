r"""Symbolic recursive dynamics of a :class:`~lagdyn.robot.Chain`, emitted as programs.

A :class:`Program` is straight-line code: a list of assignments ``(symbol, expression)``
with named intermediates, then flat output expressions (row-major, ``shape``). Its inputs
are plain real symbols: ``q`` (``_ldq{i}``), ``qd`` (``_ldv{i}``, the same symbols as
:attr:`LagrangianSystem.plain_symbols`), ``qdd`` (``_lda{i}``) and ``tau`` (``_ldu{i}``);
every other free symbol is a parameter. This is the IR the code generator prints; closed
forms are the special case of an empty body.

Customization happens while the program is built: every intermediate is a sympy expression
of earlier symbols, so products with structural zeros and ones (DH entries that are 0,
axes along coordinate axes, parameters bound to numbers) are simplified away by sympy before
an assignment is made, identical right-hand sides are shared, and ``-x`` or numbers are never
given a name. Algorithms (Featherstone's notation, spatial vectors kept as pairs of
3-vectors in link frames, barycentric inertias m, h = m c, I about the link origin):

- :func:`rnea`: recursive Newton–Euler, τ = M q̈ + C q̇ + g (+ friction when asked); h with
  ``qdd=False``, g with ``qd=False, qdd=False``;
- :func:`crba`: composite-rigid-body algorithm, M (armature on the diagonal);
- :func:`forward_dynamics`: CRBA + RNEA (q̈ = 0) + LDLᵀ solve, q̈ = M⁻¹(τ − h);
- :func:`coriolis`: the Christoffel-consistent C(q, q̇) of Echeandia & Wensing (2021),
  :math:`C = \sum_i J_i^T (B_i J_i + I_i \dot J_i)` with
  :math:`B(I, v) = \tfrac12[(v\times^*) I - I (v\times) + (I v)\bar\times]`, accumulated
  recursively like Pinocchio's ``computeCoriolisMatrix`` (Ṁ − 2C is skew).

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.recursive import program as programs
>>> arm = ld.zoo.get("planar_3r")
>>> prog = programs.rnea(arm.chain, qd=False, qdd=False)     # gravity torques
>>> f = prog.lambdify(arm.defaults)
>>> np.round(f(q=np.zeros(3)), 4)
array([44.145, 19.62 ,  4.905])
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..errors import LagdynError, UnboundParameterError
from .aba import _aba_into
from .algebra import (  # noqa: F401  (re-exported: regressor and route build on them)
    _ZERO,
    Vec,
    _add,
    _apply_inertia,
    _Builder,
    _composites,
    _cross,
    _dot,
    _floats,
    _force_up,
    _inertia_add,
    _Kinematics,
    _kinematics,
    _mtv,
    _mv,
    _scale,
)
from .chain import Chain, in_joint_frames
from .coriolis import _coriolis_into, _energy_into

__all__ = [
    "ABA_FROM",
    "FORWARD_METHODS",
    "Program",
    "choose_forward",
    "coriolis",
    "crba",
    "energy",
    "forward_dynamics",
    "input_symbols",
    "joint_cse",
    "rnea",
]

INPUTS = ("q", "qd", "qdd", "tau")
#: The forward-dynamics algorithms of :func:`forward_dynamics`.
FORWARD_METHODS = ("aba", "crba")
#: Smallest number of joints whose default forward dynamics is ABA (CRBA + LDLᵀ below):
#: the generated ABA has fewer operations from about 6 joints for planar chains and from
#: 10 for generic spatial ones; at 6–7 joints the UR5, Panda and PUMA 560 are 5–20 %
#: smaller by CRBA (``benchmarks/RESULTS.md``).
ABA_FROM = 10
_PREFIX = {"q": "_ldq", "qd": "_ldv", "qdd": "_lda", "tau": "_ldu"}


def input_symbols(n: int) -> dict[str, tuple[sp.Symbol, ...]]:
    """The plain input symbols of a program for ``n`` joints, by input name.

    Examples
    --------
    >>> from lagdyn.recursive.program import input_symbols
    >>> input_symbols(2)["qdd"]
    (_lda0, _lda1)
    """
    return {k: tuple(sp.Symbol(f"{p}{i}", real=True) for i in range(n)) for k, p in _PREFIX.items()}


@dataclass(frozen=True)
class Program:
    """A straight-line program: ``body`` assignments then flat ``outputs`` of ``shape``.

    Attributes
    ----------
    name : str
        What it computes (``"tau"``, ``"M"``, ``"h"``, ``"g"``, ``"qdd"``, ``"C"``).
    inputs : dict
        The input symbols it may use, by name (``q``, ``qd``, ``qdd``, ``tau``).
    body : tuple of (Symbol, Expr)
        Assignments in order; each right-hand side uses inputs, parameters and earlier symbols.
    outputs : tuple of Expr
        Row-major outputs.
    shape : tuple of int
        ``(n,)`` or ``(n, n)``.
    seconds : float
        Time taken to build it.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive import program as programs
    >>> prog = programs.crba(ld.zoo.get("planar_3r").chain)
    >>> prog.shape, prog.count_ops() > 0
    ((3, 3), True)
    """

    name: str
    inputs: dict[str, tuple[sp.Symbol, ...]]
    body: tuple[tuple[sp.Symbol, sp.Expr], ...]
    outputs: tuple[sp.Expr, ...]
    shape: tuple[int, ...]
    seconds: float = 0.0

    @property
    def parameters(self) -> tuple[sp.Symbol, ...]:
        """The free symbols that are neither inputs nor intermediates, sorted by name.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.recursive import program as programs
        >>> programs.rnea(ld.zoo.get("puma560").chain).parameters
        (g,)
        """
        known: set[sp.Basic] = {s for syms in self.inputs.values() for s in syms}
        known |= {s for s, _ in self.body}
        free: set[sp.Basic] = set()
        for _, e in self.body:
            free |= e.free_symbols
        for e in self.outputs:
            free |= e.free_symbols
        return tuple(sorted((s for s in free - known), key=str))

    def count_ops(self, *, cse: bool = True) -> int:
        """Operation count (sympy ``count_ops``) of body and outputs, after a joint CSE.

        Rational coefficients are counted as numbers (as floats), not as divisions.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.recursive import program as programs
        >>> programs.rnea(ld.zoo.get("planar_3r").chain, qd=False, qdd=False).count_ops()
        38
        """
        exprs = [_floats(e) for _, e in self.body] + [_floats(e) for e in self.outputs]
        if cse:
            repl, red = sp.cse(exprs, symbols=sp.numbered_symbols("_cse"), order="none")
            exprs = [e for _, e in repl] + list(red)
        return int(sum(sp.count_ops(e) for e in exprs))

    def inline(self) -> sp.ImmutableMatrix:
        """The outputs as closed forms in the inputs (every intermediate substituted).

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.recursive import program as programs
        >>> chain = ld.zoo.get("planar_3r").chain
        >>> programs.crba(chain).inline()[2, 2]
        1/3
        """
        sub: dict[sp.Basic, sp.Expr] = {}
        for s, e in self.body:
            sub[s] = e.xreplace(sub)
        return sp.ImmutableMatrix(*self._shape2, [e.xreplace(sub) for e in self.outputs])

    @property
    def _shape2(self) -> tuple[int, int]:
        return (self.shape[0], self.shape[1] if len(self.shape) > 1 else 1)

    def source(self, params: Mapping[sp.Symbol, float] | None = None) -> str:
        """Python/numpy source of a batched function ``f(q, qd, qdd, tau)`` (sympy printer).

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.recursive import program as programs
        >>> arm = ld.zoo.get("planar_3r")
        >>> print(programs.rnea(arm.chain, qd=False, qdd=False).source(arm.defaults)
        ...       .splitlines()[0])
        def _program(q=None, qd=None, qdd=None, tau=None):
        """
        from sympy.printing.numpy import NumPyPrinter

        values = {sp.Symbol(str(k), **_assumptions(k)): v for k, v in dict(params or {}).items()}
        values.update(dict(params or {}))
        missing = [s for s in self.parameters if s not in values]
        if missing:
            raise UnboundParameterError(missing, f"program {self.name!r}")
        bind = {s: sp.Float(float(values[s]), 17) for s in self.parameters}
        printer = NumPyPrinter({"fully_qualified_modules": True, "order": "none"})
        lines = ["def _program(q=None, qd=None, qdd=None, tau=None):"]
        used: set[sp.Basic] = set()
        for _, e in self.body:
            used |= e.free_symbols
        for e in self.outputs:
            used |= e.free_symbols
        lines.append("    _shape, _dtype = (), numpy.float64")
        for name in INPUTS:
            syms = self.inputs[name]
            if any(s in used for s in syms):
                lines.append(f"    {name} = numpy.asarray({name})")
                lines.append(f"    _dtype = numpy.result_type(_dtype, {name}.dtype)")
                lines.append(f"    _shape = numpy.broadcast_shapes(_shape, {name}.shape[:-1])")
            for i, s in enumerate(syms):
                if s in used:
                    lines.append(f"    {s.name} = {name}[..., {i}]")
        for s, e in self.body:
            lines.append(f"    {s.name} = {printer.doprint(e.xreplace(bind))}")
        lines.append(f"    _out = numpy.zeros(_shape + {self.shape!r}, dtype=_dtype)")
        for k, e in enumerate(self.outputs):
            if e == 0:
                continue
            idx = (k,) if len(self.shape) == 1 else divmod(k, self.shape[1])
            lines.append(
                f"    _out[(..., {', '.join(map(str, idx))})] = {printer.doprint(e.xreplace(bind))}"
            )
        lines.append("    return _out")
        return "\n".join(lines) + "\n"

    def lambdify(self, params: Mapping[sp.Symbol, float] | None = None) -> Callable[..., Any]:
        """A batched numpy function ``f(q=..., qd=..., qdd=..., tau=...)`` of this program.

        Arrays have shape ``(..., n)``; the result ``(...,) + shape``, float64 (complex when an
        input is complex, e.g. for complex-step derivatives). Every parameter must be bound in
        ``params``.

        Raises
        ------
        UnboundParameterError
            A parameter without a value.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn.recursive import program as programs
        >>> arm = ld.zoo.get("planar_3r")
        >>> M = programs.crba(arm.chain).lambdify(arm.defaults)
        >>> M(q=np.zeros((5, 3))).shape
        (5, 3, 3)
        """
        import numpy

        namespace: dict[str, Any] = {"numpy": numpy}
        code = compile(self.source(params), f"<lagdyn program {self.name}>", "exec")
        exec(code, namespace)
        fn: Callable[..., Any] = namespace["_program"]
        return fn


def _assumptions(sym: Any) -> dict[str, bool]:
    return {"positive": True} if getattr(sym, "is_positive", False) else {"real": True}


# ---------------------------------------------------------------------- program builder


def _finish(
    name: str,
    b: _Builder,
    outputs: Sequence[sp.Expr],
    shape: tuple[int, ...],
    start: float,
    n: int | None = None,
) -> Program:
    """The program of ``b``'s needed assignments and ``outputs`` (``n`` joints: shape[0])."""
    outs = tuple(sp.sympify(o) for o in outputs)
    return Program(
        name,
        input_symbols(shape[0] if n is None else n),
        _prune(b.body, outs),
        outs,
        shape,
        time.perf_counter() - start,
    )


def _prune(
    body: Sequence[tuple[sp.Symbol, sp.Expr]], outputs: Sequence[sp.Expr]
) -> tuple[tuple[sp.Symbol, sp.Expr], ...]:
    """Drop assignments that no output needs (dead code)."""
    need: set[sp.Basic] = set()
    for e in outputs:
        need |= e.free_symbols
    kept = []
    for s, e in reversed(body):
        if s in need:
            kept.append((s, e))
            need |= e.free_symbols
    return tuple(reversed(kept))


def joint_cse(
    body: Sequence[tuple[sp.Symbol, sp.Expr]],
    outputs: Sequence[sp.Expr],
    prefix: str = "y",
) -> tuple[list[tuple[sp.Symbol, sp.Expr]], list[sp.Expr]]:
    """One ``sympy.cse`` over a straight-line program's right-hand sides and outputs.

    The recursive builders share identical right-hand sides but not common *parts* of them
    (the same product ``R[0][1]·x`` in several sums); a joint CSE names those too. Returns
    the new body in dependency order (the new names interleaved before their first use)
    and the reduced outputs.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.recursive.program import joint_cse
    >>> a, b, c, x = sp.symbols("a b c x")
    >>> joint_cse([(x, a * b + c)], [a * b + 1, x])
    ([(y0, a*b), (x, c + y0)], [y0 + 1, x])
    """
    names = [s for s, _ in body]
    repl, red = sp.cse(
        [e for _, e in body] + list(outputs), symbols=sp.numbered_symbols(prefix), order="none"
    )
    defs: dict[sp.Basic, sp.Expr] = dict(repl)
    defs.update(zip(names, red[: len(names)]))
    done: set[sp.Basic] = set()
    out: list[tuple[sp.Symbol, sp.Expr]] = []
    # emit the body in its own order, each right after what it reads (iterative DFS)
    for root in names + [s for s, _ in repl]:
        stack: list[tuple[sp.Basic, bool]] = [(root, False)]
        while stack:
            sym, expanded = stack.pop()
            if sym in done:
                continue
            if expanded:
                done.add(sym)
                out.append((sym, defs[sym]))
                continue
            stack.append((sym, True))
            deps = [d for d in defs[sym].free_symbols if d in defs and d not in done]
            stack.extend((d, False) for d in sorted(deps, key=str, reverse=True))
    return out, list(red[len(names) :])


# ---------------------------------------------------------------------- algorithms
def _forward_pass(
    chain: Chain,
    b: _Builder,
    kin: _Kinematics,
    qd: Sequence[sp.Expr],
    qdd: Sequence[sp.Expr],
    g0: Vec,
) -> tuple[list[Vec], list[Vec], list[Vec], list[Vec]]:
    """RNEA's forward pass: angular and linear velocity and acceleration of every link in its
    own frame (``g0`` = −gravity as the base's linear acceleration, or zero)."""
    w: list[Vec] = []
    v: list[Vec] = []
    dw: list[Vec] = []
    dv: list[Vec] = []
    for i, link in enumerate(chain.links):
        R, p, sw, sv = kin.R[i], kin.p[i], kin.sw[i], kin.sv[i]
        if link.parent >= 0:
            wl, vl, dwl, dvl = w[link.parent], v[link.parent], dw[link.parent], dv[link.parent]
        else:
            wl, vl, dwl, dvl = _ZERO, _ZERO, _ZERO, g0
        wi = b.vec(_add(_mtv(R, wl), _scale(qd[i], sw)))
        vi = b.vec(_add(_mtv(R, _add(vl, _cross(wl, p))), _scale(qd[i], sv)))
        swq, svq = _scale(qd[i], sw), _scale(qd[i], sv)
        dwi = b.vec(_add(_mtv(R, dwl), _scale(qdd[i], sw), _cross(wi, swq)))
        dvi = b.vec(
            _add(
                _mtv(R, _add(dvl, _cross(dwl, p))),
                _scale(qdd[i], sv),
                _cross(wi, svq),
                _cross(vi, swq),
            )
        )
        w.append(wi)
        v.append(vi)
        dw.append(dwi)
        dv.append(dvi)
    return w, v, dw, dv


def _rnea_into(
    chain: Chain,
    b: _Builder,
    kin: _Kinematics,
    qd: Sequence[sp.Expr],
    qdd: Sequence[sp.Expr],
    gravity: bool,
) -> tuple[Vec, list[tuple[Vec, Vec]]]:
    """RNEA on an existing builder; returns τ (without friction) and link velocities."""
    n = chain.n
    links = chain.links
    g0 = [-x for x in chain.gravity] if gravity else _ZERO
    w, v, dw, dv = _forward_pass(chain, b, kin, qd, qdd, g0)
    nf: list[Vec] = []
    ff: list[Vec] = []
    for link, wi, vi, dwi, dvi in zip(links, w, v, dw, dv):
        m, h, I = link.mass, list(link.first_moment), link.inertia
        Il = [[I[r, c] for c in range(3)] for r in range(3)]
        Lw = b.vec(_add(_mv(Il, wi), _cross(h, vi)))
        Lv = b.vec(_add(_scale(m, vi), _scale(-1, _cross(h, wi))))
        nf.append(b.vec(_add(_mv(Il, dwi), _cross(h, dvi), _cross(wi, Lw), _cross(vi, Lv))))
        ff.append(b.vec(_add(_scale(m, dvi), _scale(-1, _cross(h, dwi)), _cross(wi, Lv))))
    tau: Vec = [sp.Integer(0)] * n
    for i in range(n - 1, -1, -1):
        link = links[i]
        tau[i] = b.let(_dot(kin.sw[i], nf[i]) + _dot(kin.sv[i], ff[i]) + link.armature * qdd[i])
        if link.parent >= 0:
            R, p = kin.R[i], kin.p[i]
            fr = b.vec(_mv(R, ff[i]))
            nr = _add(_mv(R, nf[i]), _cross(p, fr))
            j = link.parent
            ff[j] = b.vec(_add(ff[j], fr))
            nf[j] = b.vec(_add(nf[j], nr))
    return tau, list(zip(w, v))


def rnea(
    chain: Chain, *, qd: bool = True, qdd: bool = True, gravity: bool = True, friction: bool = False
) -> Program:
    """Recursive Newton–Euler: the joint forces τ = M q̈ + C q̇ + g as a program.

    ``qdd=False`` gives h = C q̇ + g, ``qd=False, qdd=False`` gives g, ``gravity=False``
    drops g. ``friction=True`` adds the friction forces F_v q̇ + F_c sign(q̇) that the
    actuators must overcome.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.recursive import program as programs
    >>> puma = ld.zoo.get("puma560")
    >>> g = programs.rnea(puma.chain, qd=False, qdd=False).lambdify(puma.defaults)
    >>> np.round(g(q=np.zeros(6)), 4) + 0.0
    array([ 0.    , 37.4837,  0.2489,  0.    ,  0.    ,  0.    ])
    """
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    ins = input_symbols(n)
    zero = [sp.Integer(0)] * n
    b = _Builder()
    kin = _kinematics(chain, b, ins["q"])
    tau, _ = _rnea_into(
        chain, b, kin, ins["qd"] if qd else zero, ins["qdd"] if qdd else zero, gravity
    )
    if friction and qd:
        tau = [
            tau[i] + link.viscous * ins["qd"][i] + link.coulomb * sp.sign(ins["qd"][i])
            for i, link in enumerate(chain.links)
        ]
    name = "tau" if qdd else ("h" if qd else "g")
    return _finish(name, b, tau, (n,), start)


def _crba_into(chain: Chain, b: _Builder, kin: _Kinematics) -> list[list[sp.Expr]]:
    n = chain.n
    M: list[list[sp.Expr]] = [[sp.Integer(0)] * n for _ in range(n)]
    done = _composites(chain, b, kin)
    for i in range(n - 1, -1, -1):
        link = chain.links[i]
        m, h, I = done(i)
        Fn, Ff = _apply_inertia((m, h, I), kin.sw[i], kin.sv[i])
        Fn, Ff = b.vec(Fn), b.vec(Ff)
        M[i][i] = b.let(_dot(kin.sw[i], Fn) + _dot(kin.sv[i], Ff) + link.armature)
        j = i
        while chain.links[j].parent >= 0:
            Fn, Ff = _force_up(b, kin.R[j], kin.p[j], Fn, Ff)
            j = chain.links[j].parent
            M[i][j] = M[j][i] = b.let(_dot(kin.sw[j], Fn) + _dot(kin.sv[j], Ff))
    return M


def crba(chain: Chain) -> Program:
    """Composite-rigid-body algorithm: the mass matrix M(q) as a program, shape (n, n).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive import program as programs
    >>> M = programs.crba(ld.zoo.get("planar_3r").chain)
    >>> M.outputs[8], M.body[:2]   # q1 never appears: its cos and sin were pruned
    (1/3, ((x2, cos(_ldq1)), (x3, sin(_ldq1))))
    """
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    b = _Builder()
    kin = _kinematics(chain, b, input_symbols(n)["q"])
    M = _crba_into(chain, b, kin)
    return _finish("M", b, [x for row in M for x in row], (n, n), start)


def choose_forward(n: int, method: str | None = None) -> str:
    """The forward-dynamics algorithm for ``n`` joints: ``method``, or the default by size.

    Raises
    ------
    LagdynError
        An unknown ``method``.

    Examples
    --------
    >>> from lagdyn.recursive.program import choose_forward
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
    >>> from lagdyn.recursive import program as programs
    >>> arm = ld.zoo.get("planar_3r")
    >>> f = programs.forward_dynamics(arm.chain).lambdify(arm.defaults)
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


# ---------------------------------------------------------------------- Coriolis matrix


def coriolis(chain: Chain) -> Program:
    r"""The Christoffel-consistent Coriolis matrix C(q, q̇) as a program, shape (n, n).

    :math:`C = \sum_i J_i^T (B_i J_i + I_i \dot J_i)` (Echeandia & Wensing 2021), where
    :math:`B(I, v) = \tfrac12[(v\times^*)I - I(v\times) + (Iv)\bar\times]`, and
    :math:`(f\bar\times) v = v\times^* f`; summed over subtrees as in Pinocchio's
    ``computeCoriolisMatrix``: with composites :math:`B^c_i, I^c_i` and
    :math:`\dot S_j = v_j \times S_j`, :math:`C_{ji} = S_j\cdot(B^c_i S_i + I^c_i \dot S_i)`
    and :math:`C_{ij} = (B^{cT}_i S_i)\cdot S_j + (I^c_i S_i)\cdot \dot S_j` for ancestors
    j of i. :math:`C\dot q = h - g` and :math:`\dot M - 2C` is skew.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.recursive import program as programs
    >>> arm = ld.zoo.get("planar_3r")
    >>> C = programs.coriolis(arm.chain).inline()
    >>> import sympy as sp
    >>> [sp.simplify(C[i, j] - arm.plain(arm.C[i, j])) for i in range(3) for j in range(3)]
    [0, 0, 0, 0, 0, 0, 0, 0, 0]
    """
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    ins = input_symbols(n)
    b = _Builder()
    kin = _kinematics(chain, b, ins["q"])
    C = _coriolis_into(chain, b, kin, ins["qd"])
    return _finish("C", b, [x for row in C for x in row], (n, n), start)


def energy(chain: Chain) -> Program:
    r"""The total energy E = T + U of the chain as a program, shape (1,).

    Per link, with body velocities (ω, v) from the forward pass,
    :math:`T_i = \tfrac12(\omega^T I \omega + 2 v\cdot(\omega\times h) + m\,v\cdot v)`, and
    :math:`U_i = -g\cdot(m\,p + R h)` from the world placement (R, p) of its frame.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.recursive import program as programs
    >>> arm = ld.zoo.get("planar_3r")
    >>> E = programs.energy(arm.chain).lambdify(arm.defaults)
    >>> float(E(q=np.zeros(3), qd=np.zeros(3))[0])
    0.0
    """
    start = time.perf_counter()
    chain = in_joint_frames(chain)
    n = chain.n
    ins = input_symbols(n)
    b = _Builder()
    kin = _kinematics(chain, b, ins["q"])
    return _finish("E", b, [_energy_into(chain, b, kin, ins["qd"])], (1,), start, n)
