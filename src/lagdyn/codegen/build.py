"""Programs of a :class:`~lagdyn.LagrangianSystem`: one joint CSE over every output.

:func:`system_program` builds the kernels of :func:`lagdyn.numeric.lambdify` from
the canonical ``system.M``, the factored ``system.h`` (``C q̇ + G q̇ + g``), ``g``,
``C`` and ``Q``: ``M``, ``C``, ``g``, ``energy`` (``½ q̇ᵀ M q̇ + V`` from the same
M), ``bias`` (``h − Q``), ``inverse_dynamics`` and ``forward_dynamics`` (Cramer's
rule for n = 2, an unrolled LDLᵀ up to :data:`MAX_UNROLLED`). Before the CSE each
expression is put in its *numeric form* (:class:`~lagdyn.codegen.trig.NumericForm`, one
memo for the whole program, applied while the coefficients are exact — bound values
are folded in after): multiple angles become products of sines and cosines, so that no
constant cancels against a cosine (``1/2 − cos(2θ)/2`` is printed as ``sin(θ)²``), and
every sum that cancels near a zero of an angle — the canonical form of a factor the
user wrote, ``3/8 − cos θ/2 + cos(2θ)/8`` for ``sin(θ/2)⁴`` — is printed with the factor
back (:func:`~lagdyn.codegen.trig.zeros_factored`). The canonical form stays the one of
proofs and display.

:func:`expression_program` does the same for any matrices of the state
(:func:`lagdyn.numeric.lambdify_expressions`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import LagdynError, SingularMassMatrixError
from .binding import Binding
from .ir import Kernel, Program, code_symbols, propagate_constants, prune
from .trig import NumericForm, reduced_angle_constants, shared_trig

#: The numeric routes of a system: the recursive programs of a robot chain, or the closed form.
ROUTES = ("recursive", "closed")


def check_route(route: str | None) -> None:
    """Refuse a route name other than ``"recursive"``, ``"closed"`` or ``None`` (by size).

    The one check of a ``route=`` argument (``lambdify``, ``to_casadi``, the regressor).

    Raises
    ------
    LagdynError
        An unknown route name.

    Examples
    --------
    >>> check_route("closed")
    >>> check_route("fast")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: unknown route 'fast'; choose 'recursive', 'closed' or None
    """
    if route is not None and route not in ROUTES:
        raise LagdynError(f"unknown route {route!r}; choose 'recursive', 'closed' or None")


__all__ = [
    "DERIVATIVE_KERNELS",
    "KERNELS",
    "MAX_UNROLLED",
    "ROUTES",
    "bound_number",
    "check_route",
    "derivative_program",
    "expression_program",
    "full_precision_floats",
    "output_shape",
    "system_program",
]

#: Largest n whose forward dynamics get an unrolled LDLᵀ solve (n = 2: Cramer's rule).
MAX_UNROLLED = 8
#: Kernel names of :func:`system_program` and their input vectors.
KERNELS: dict[str, tuple[str, ...]] = {
    "M": ("q", "params"),
    "C": ("q", "qd", "params"),
    "g": ("q", "params"),
    "energy": ("q", "qd", "params"),
    "bias": ("q", "qd", "params", "t"),
    "inverse_dynamics": ("q", "qd", "qdd", "params", "t"),
    "forward_dynamics": ("q", "qd", "tau", "params", "t"),
}


#: The derivative kernels of :func:`derivative_program` (and of the recursive route's
#: :func:`lagdyn.recursive.derivatives.derivative_program`) and their input vectors; one
#: state's output is ``(n, 3n)``: ``[∂q̈/∂q | ∂q̈/∂q̇ | M⁻¹]`` and ``[∂τ/∂q | ∂τ/∂q̇ | M]``.
DERIVATIVE_KERNELS: dict[str, tuple[str, ...]] = {
    "forward_dynamics_derivatives": ("q", "qd", "tau", "params", "t"),
    "inverse_dynamics_derivatives": ("q", "qd", "qdd", "params", "t"),
}
#: Part of the cache key of the derivative kernels (bumped when the generated programs change).
DERIVATIVES_VERSION = "2"


def output_shape(name: str, n: int) -> tuple[int, ...]:
    """Shape of one state's output of kernel ``name`` of :func:`system_program`.

    Examples
    --------
    >>> from lagdyn.codegen import output_shape
    >>> output_shape("M", 3), output_shape("energy", 3)
    ((3, 3), ())
    """
    if name in ("M", "C"):
        return (n, n)
    if name in DERIVATIVE_KERNELS:
        return (n, 3 * n)
    if name == "energy":
        return ()
    return (n,)


class _Converter:
    """System expressions → code expressions (plain symbols renamed, bound values folded)."""

    def __init__(self, system: Any, binding: Binding) -> None:
        from ..symbols import t as time

        self.system = system
        n = system.n
        qs, vs = system.plain_symbols
        self.vectors = {
            "q": code_symbols("q", n),
            "qd": code_symbols("qd", n),
            "qdd": code_symbols("qdd", n),
            "tau": code_symbols("tau", n),
            "params": code_symbols("p", len(binding.free)),
        }
        self.t = sp.Symbol("t", real=True)
        rename: dict[sp.Basic, sp.Basic] = {
            **dict(zip(qs, self.vectors["q"])),
            **dict(zip(vs, self.vectors["qd"])),
        }
        rename.update(zip(binding.free, self.vectors["params"]))
        rename.update({s: bound_number(v) for s, v in binding.bound.items()})
        rename[time] = self.t
        self.rename = rename
        self.allowed = {*self.vectors["q"], *self.vectors["qd"], *self.vectors["params"], self.t}

    def __call__(
        self, exprs: Iterable[sp.Expr], form: Callable[[sp.Expr], sp.Expr] | None = None
    ) -> list[sp.Expr]:
        """``exprs`` in code symbols; ``form`` (the numeric form) is applied before the
        bound values are folded in, while the coefficients are still exact."""
        out = []
        for e in exprs:
            e = sp.sympify(self.system.plain(e))
            if form is not None:
                e = form(e)
            e = reduced_angle_constants(e.xreplace(self.rename))
            e = full_precision_floats(e)
            extra = e.free_symbols - self.allowed
            undef = e.atoms(AppliedUndef, sp.Derivative)
            if extra or undef:
                bad = {str(x) for x in extra} | {str(f) for f in undef}
                raise LagdynError(
                    "cannot generate numeric code: the expressions contain "
                    f"{', '.join(sorted(bad))}, which are neither coordinates, rates, t "
                    "nor parameters"
                )
            if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
                raise LagdynError(
                    f"cannot generate numeric code: an expression evaluates to {e} "
                    "(undefined, infinite or complex) with the bound parameters"
                )
            out.append(e)
        return out


def _new_program(system: Any, conv: _Converter, binding: Binding) -> Program:
    return Program(
        n=system.n,
        vectors=dict(conv.vectors),
        t=conv.t,
        parameter_names=tuple(s.name for s in binding.free),
        coordinate_names=tuple(getattr(q.func, "__name__", str(q)) for q in system.q),
        bound={s.name: v for s, v in binding.bound.items()},
    )


def system_program(system: Any, binding: Binding) -> Program:
    """The kernels of :func:`lagdyn.numeric.lambdify`: one joint CSE, one kernel per function.

    Raises
    ------
    SingularMassMatrixError
        Bound parameter values that make M singular (named in the message).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = system_program(dp, Binding(dp.parameters, dp.defaults))
    >>> sorted(prog.kernels)[:3], prog.kernels["forward_dynamics"].inputs
    (['C', 'M', 'bias'], ('q', 'qd', 'tau', 'params', 't'))
    """
    n = system.n
    conv = _Converter(system, binding)
    cq, cv = conv.vectors["q"], conv.vectors["qd"]
    qdd, tau = conv.vectors["qdd"], conv.vectors["tau"]

    form = NumericForm(system.plain_symbols[1])  # one memo: the kernels share sums and atoms
    M = conv(system.M, form)
    if binding.bound:
        _check_nonsingular(M, cq, conv.vectors["params"], binding)
    C = conv(system.C, form)
    g = conv(system.g, form)
    h = conv(system.h, form)
    Q = conv(system.forces, form)
    U = conv([system.U], form)[0]
    upper = [(i, j) for i in range(n) for j in range(i, n)]
    m_up = [M[i * n + j] for i, j in upper]
    m_full = {ij: e for ij, e in zip(upper, m_up)}
    for i, j in upper:
        m_full[j, i] = m_full[i, j]
    kinetic = sp.Add(
        *[m_full[i, i] * cv[i] ** 2 / 2 for i in range(n)],
        *[m_full[i, j] * cv[i] * cv[j] for i, j in upper if i != j],
    )
    base: dict[str, list[sp.Expr]] = {
        "M": m_up,
        "C": C,
        "g": g,
        "energy": [kinetic + U],
        "bias": [h[i] - Q[i] for i in range(n)],
    }
    order = list(base)
    flat = [e for k in order for e in base[k]]
    trig, flat = shared_trig(flat, cq, decide_on=len(base["M"]) + len(base["C"]) + n)
    repl, reduced = sp.cse(flat, symbols=sp.numbered_symbols("w"), order="none")
    repl = trig + repl
    red: dict[str, list[sp.Expr]] = {}
    pos = 0
    for k in order:
        red[k] = list(reduced[pos : pos + len(base[k])])
        pos += len(base[k])

    prog = _new_program(system, conv, binding)
    Msym = {(i, j): sp.Symbol(f"M_{i}_{j}", real=True) for i, j in upper}
    for i, j in upper:
        Msym[j, i] = Msym[i, j]
    hsym = [sp.Symbol(f"h_{i}", real=True) for i in range(n)]
    Mfull = [Msym[i, j] for i in range(n) for j in range(n)]
    Mdef = [(Msym[ij], e) for ij, e in zip(upper, red["M"])]
    hdef = list(zip(hsym, red["bias"]))

    def kernel(name: str, post: list[tuple[sp.Symbol, sp.Expr]], outputs: list[sp.Expr]) -> None:
        post, outputs = propagate_constants(post, outputs)
        body = prune(repl, post, outputs)
        prog.kernels[name] = Kernel(name, KERNELS[name], body, outputs, output_shape(name, n))

    kernel("M", Mdef, Mfull)
    kernel("C", [], red["C"])
    kernel("g", [], red["g"])
    kernel("energy", [], red["energy"])
    kernel("bias", [], red["bias"])
    tau_id = [sp.Add(*[Msym[i, j] * qdd[j] for j in range(n)], hsym[i]) for i in range(n)]
    kernel("inverse_dynamics", Mdef + hdef, tau_id)
    if n <= MAX_UNROLLED:
        rsym = [sp.Symbol(f"r_{i}", real=True) for i in range(n)]
        rdef = [(rsym[i], tau[i] - hsym[i]) for i in range(n)]
        solve_def, x = _solve_program(n, Msym, rsym)
        kernel("forward_dynamics", Mdef + hdef + rdef + solve_def, x)
    return prog


def derivative_program(system: Any, binding: Binding) -> Program:
    r"""The derivative kernels of the closed form (:data:`DERIVATIVE_KERNELS`), one joint CSE.

    With the residual :math:`F(q, \dot q, \ddot q) = M(q)\ddot q + h(q, \dot q) - Q` (in its
    numeric form, bound values folded in), ``inverse_dynamics_derivatives`` is
    :math:`[\partial F/\partial q \mid \partial F/\partial\dot q \mid M]` at the given
    q̈, and ``forward_dynamics_derivatives`` is
    :math:`[-M^{-1}\partial F/\partial q \mid -M^{-1}\partial F/\partial\dot q \mid M^{-1}]`
    with the derivatives taken at :math:`\ddot q = M^{-1}(\tau - h + Q)` and M factored once
    (an unrolled LDLᵀ) for q̈ and :math:`M^{-1}`. Exact symbolic derivatives; ``sign`` has
    derivative 0 (Coulomb friction away from zero velocity).

    Raises
    ------
    SingularMassMatrixError
        Bound parameter values that make M singular (named in the message).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.codegen.build import derivative_program
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = derivative_program(dp, Binding(dp.parameters, dp.defaults))
    >>> prog.kernels["forward_dynamics_derivatives"].shape
    (2, 6)
    """
    n = system.n
    conv = _Converter(system, binding)
    cq, cv = conv.vectors["q"], conv.vectors["qd"]
    qdd, tau = conv.vectors["qdd"], conv.vectors["tau"]
    form = NumericForm(system.plain_symbols[1])
    M = conv(system.M, form)
    if binding.bound:
        _check_nonsingular(M, cq, conv.vectors["params"], binding)
    h = conv(system.h, form)
    Q = conv(system.forces, form)
    upper = [(i, j) for i in range(n) for j in range(i, n)]
    bias = [h[i] - Q[i] for i in range(n)]
    # the acceleration stays out of the CSE: ∂(M q̈)/∂q is assembled after it from ∂M/∂q
    dM = [_derivative(M[i * n + j], cq[k]) for i, j in upper for k in range(n)]
    dbq = [_derivative(bias[i], cq[k]) for i in range(n) for k in range(n)]
    dbv = [_derivative(bias[i], cv[k]) for i in range(n) for k in range(n)]
    m_up = [M[i * n + j] for i, j in upper]
    flat = [*m_up, *bias, *dM, *dbq, *dbv]
    trig, flat = shared_trig(flat, cq, decide_on=len(m_up) + n)
    repl, reduced = sp.cse(flat, symbols=sp.numbered_symbols("w"), order="none")
    repl = trig + repl
    k0, k1 = len(m_up), len(m_up) + n
    r_m, r_b = reduced[:k0], reduced[k0:k1]
    r_dm = dict(zip([(i, j, k) for i, j in upper for k in range(n)], reduced[k1 : k1 + len(dM)]))
    k2 = k1 + len(dM)
    r_q, r_v = reduced[k2 : k2 + n * n], reduced[k2 + n * n :]
    for i, j in upper:
        for k in range(n):
            r_dm[j, i, k] = r_dm[i, j, k]

    prog = _new_program(system, conv, binding)
    Msym = {(i, j): sp.Symbol(f"M_{i}_{j}", real=True) for i, j in upper}
    for i, j in upper:
        Msym[j, i] = Msym[i, j]
    Mdef = [(Msym[ij], e) for ij, e in zip(upper, r_m)]

    def kernel(name: str, post: list[tuple[sp.Symbol, sp.Expr]], outputs: list[sp.Expr]) -> None:
        post, outputs = propagate_constants(post, outputs)
        body = prune(repl, post, outputs)
        prog.kernels[name] = Kernel(
            name, DERIVATIVE_KERNELS[name], body, outputs, output_shape(name, n)
        )

    def dF_dq(i: int, k: int, a: Sequence[sp.Expr]) -> sp.Expr:
        return sp.Add(*(r_dm[i, j, k] * a[j] for j in range(n)), r_q[i * n + k])

    rows: list[sp.Expr] = []
    for i in range(n):
        rows += [dF_dq(i, k, qdd) for k in range(n)]
        rows += [r_v[i * n + k] for k in range(n)]
        rows += [Msym[i, j] for j in range(n)]
    kernel("inverse_dynamics_derivatives", list(Mdef), rows)

    hsym = [sp.Symbol(f"h_{i}", real=True) for i in range(n)]
    hdef = list(zip(hsym, r_b))
    rhs = [tau[i] - hsym[i] for i in range(n)]
    unit = [[sp.Integer(int(i == j)) for i in range(n)] for j in range(n)]
    solve_def, (x, *cols) = _factor_solve(n, Msym, [rhs, *unit])
    Minv = [[cols[max(i, j)][min(i, j)] for j in range(n)] for i in range(n)]
    dq_sym = {(i, k): sp.Symbol(f"Fq_{i}_{k}", real=True) for i in range(n) for k in range(n)}
    dv_sym = {(i, k): sp.Symbol(f"Fv_{i}_{k}", real=True) for i in range(n) for k in range(n)}
    dq_def = [(dq_sym[i, k], dF_dq(i, k, x)) for i in range(n) for k in range(n)]
    dv_def = [(dv_sym[i, k], r_v[i * n + k]) for i in range(n) for k in range(n)]
    rows = []
    for i in range(n):
        rows += [-sp.Add(*(Minv[i][j] * dq_sym[j, k] for j in range(n))) for k in range(n)]
        rows += [-sp.Add(*(Minv[i][j] * dv_sym[j, k] for j in range(n))) for k in range(n)]
        rows += Minv[i]
    post = Mdef + hdef + solve_def + dq_def + dv_def
    kernel("forward_dynamics_derivatives", post, rows)
    return prog


def _derivative(e: sp.Expr, x: sp.Symbol) -> sp.Expr:
    """∂e/∂x, with ``sign`` (Coulomb friction) of derivative 0 and no unevaluated parts."""
    d = sp.diff(e, x)
    if d.has(sp.DiracDelta):
        d = d.replace(sp.DiracDelta, lambda *a: sp.Integer(0))
    if d.has(sp.Derivative, sp.Subs):
        raise LagdynError(
            f"cannot generate derivative kernels: the derivative of {e} with respect to {x} "
            "is not in closed form"
        )
    return d


def _factor_solve(
    n: int, Msym: Mapping[tuple[int, int], sp.Symbol], rhss: Sequence[Sequence[sp.Expr]]
) -> tuple[list[tuple[sp.Symbol, sp.Expr]], list[list[sp.Expr]]]:
    """One unrolled LDLᵀ factorization of M, then straight-line solves of ``M x = r`` for
    each ``r`` of ``rhss`` (numbers in a right-hand side stay numbers: unit vectors give
    the columns of M⁻¹ without multiplying by their zeros)."""
    prog: list[tuple[sp.Symbol, sp.Expr]] = []

    def let(name: str, e: sp.Expr) -> sp.Expr:
        e = sp.sympify(e)
        if e.is_Number or e.is_Symbol:
            return e
        s = sp.Symbol(name, real=True)
        prog.append((s, e))
        return s

    D: list[sp.Expr] = []
    Dinv: list[sp.Expr] = []
    L: dict[tuple[int, int], sp.Expr] = {}
    LD: dict[tuple[int, int], sp.Expr] = {}
    for j in range(n):
        D.append(let(f"D_{j}", Msym[j, j] - sp.Add(*[L[j, k] * LD[j, k] for k in range(j)])))
        Dinv.append(let(f"Di_{j}", 1 / D[j]))
        for i in range(j + 1, n):
            LD[i, j] = let(
                f"LD_{i}_{j}", Msym[i, j] - sp.Add(*[L[i, k] * LD[j, k] for k in range(j)])
            )
            L[i, j] = let(f"L_{i}_{j}", LD[i, j] * Dinv[j])
    out = []
    for r_idx, r in enumerate(rhss):
        y: list[sp.Expr] = []
        for i in range(n):
            y.append(let(f"y{r_idx}_{i}", r[i] - sp.Add(*[L[i, k] * y[k] for k in range(i)])))
        x: list[sp.Expr] = [sp.Integer(0)] * n
        for i in reversed(range(n)):
            x[i] = let(
                f"x{r_idx}_{i}",
                y[i] * Dinv[i] - sp.Add(*[L[k, i] * x[k] for k in range(i + 1, n)]),
            )
        out.append(x)
    return prog, out


def expression_program(
    system: Any,
    outputs: Mapping[str, Sequence[sp.Expr]],
    shapes: Mapping[str, tuple[int, ...]],
    binding: Binding,
) -> Program:
    """One kernel per entry of ``outputs`` (flat, row-major entries), one joint CSE.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.codegen import Binding, expression_program
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = expression_program(dp, {"c": [sp.cos(dp.q[0])]}, {"c": (1,)},
    ...                           Binding(dp.parameters, dp.defaults))
    >>> prog.kernels["c"].outputs
    [cos(q_0)]
    """
    conv = _Converter(system, binding)
    order = list(outputs)
    flat: list[sp.Expr] = []
    form = NumericForm(system.plain_symbols[1])
    for k in order:
        flat += conv(outputs[k], form)
    trig, flat = shared_trig(flat, conv.vectors["q"])
    repl, reduced = sp.cse(flat, symbols=sp.numbered_symbols("w"), order="none")
    repl = trig + repl
    del conv.vectors["qdd"], conv.vectors["tau"]
    prog = _new_program(system, conv, binding)
    pos = 0
    for k in order:
        size = len(outputs[k])
        outs = [sp.sympify(e) for e in reduced[pos : pos + size]]
        pos += size
        prog.kernels[k] = Kernel(
            k, ("q", "qd", "params", "t"), prune(repl, [], outs), outs, tuple(shapes[k])
        )
    return prog


def _check_nonsingular(
    M: list[sp.Expr], q: Sequence[sp.Symbol], free: Sequence[sp.Symbol], binding: Binding
) -> None:
    """Raise if the bound parameter values make M singular (exact zero rows, or a
    determinant that vanishes at random points to 40 digits)."""
    n = len(q)
    names = ", ".join(f"{s.name} = {v!r}" for s, v in binding.bound.items())
    zero_rows = [i for i in range(n) if all(M[i * n + j] == 0 for j in range(n))]
    if not zero_rows:
        rng = random.Random(1234)
        singular = True
        for _ in range(3):
            point = {s: sp.Float(rng.uniform(-3, 3), 40) for s in q}
            point.update({s: sp.Float(rng.uniform(0.5, 2.0), 40) for s in free})
            A = sp.Matrix(n, n, [sp.N(e.xreplace(point), 40) for e in M])
            det = A.det(method="berkowitz")
            scale = math.prod(float(sp.Abs(A[i, i])) or 1.0 for i in range(n)) or 1.0
            if abs(float(det)) > 1e-30 * scale:
                singular = False
                break
        if not singular:
            return
    raise SingularMassMatrixError(
        "the bound parameter values make the mass matrix singular ("
        + names
        + (
            f"; rows {', '.join(str(i) for i in zero_rows)} of M vanish"
            if zero_rows
            else "; det M = 0"
        )
        + "): bind other values or remove the coordinates they freeze"
    )


def bound_number(v: float) -> sp.Expr:
    """A bound parameter value as a sympy number: integers stay integers, other values are
    53-bit Floats (what generated code folds in).

    Examples
    --------
    >>> bound_number(2.0), bound_number(0.5)
    (2, 0.500000000000000)
    """
    v = float(v)
    if v.is_integer() and abs(v) < 2**53:
        return sp.Integer(int(v))
    return sp.Float(v, precision=53)


def full_precision_floats(e: sp.Expr) -> sp.Expr:
    """``e`` with its Floats at full double precision (sympy prints a Float with its own
    precision, so a 53-bit Float would print with 15 digits and lose the last ones).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> e = sp.Float(1 / 3, 15) * x
    >>> e, full_precision_floats(e)
    (0.333333333333333*x, 0.3333333333333333*x)
    """
    floats = e.atoms(sp.Float)
    if not floats:
        return e
    return e.xreplace({f: sp.Float(repr(float(f)), 17) for f in floats})


def _solve_program(
    n: int, Msym: Mapping[tuple[int, int], sp.Symbol], r: Sequence[sp.Symbol]
) -> tuple[list[tuple[sp.Symbol, sp.Expr]], list[sp.Expr]]:
    """Straight-line solve of M x = r: Cramer's rule for n ≤ 2, unrolled LDLᵀ above."""
    if n == 1:
        return [], [r[0] / Msym[0, 0]]
    if n == 2:
        a, b, d = Msym[0, 0], Msym[0, 1], Msym[1, 1]
        inv = sp.Symbol("idet", real=True)
        return [(inv, 1 / (a * d - b * b))], [
            (d * r[0] - b * r[1]) * inv,
            (a * r[1] - b * r[0]) * inv,
        ]
    prog: list[tuple[sp.Symbol, sp.Expr]] = []
    D = [sp.Symbol(f"D_{j}", real=True) for j in range(n)]
    Dinv = [sp.Symbol(f"Di_{j}", real=True) for j in range(n)]
    L: dict[tuple[int, int], sp.Symbol] = {}
    LD: dict[tuple[int, int], sp.Symbol] = {}  # L_ik * D_k
    for j in range(n):
        prog.append((D[j], Msym[j, j] - sp.Add(*[L[j, k] * LD[j, k] for k in range(j)])))
        prog.append((Dinv[j], 1 / D[j]))
        for i in range(j + 1, n):
            LD[i, j] = sp.Symbol(f"LD_{i}_{j}", real=True)
            prog.append((LD[i, j], Msym[i, j] - sp.Add(*[L[i, k] * LD[j, k] for k in range(j)])))
            L[i, j] = sp.Symbol(f"L_{i}_{j}", real=True)
            prog.append((L[i, j], LD[i, j] * Dinv[j]))
    y = [sp.Symbol(f"y_{i}", real=True) for i in range(n)]
    for i in range(n):
        prog.append((y[i], r[i] - sp.Add(*[L[i, k] * y[k] for k in range(i)])))
    x = [sp.Symbol(f"x_{i}", real=True) for i in range(n)]
    for i in reversed(range(n)):
        prog.append((x[i], y[i] * Dinv[i] - sp.Add(*[L[k, i] * x[k] for k in range(i + 1, n)])))
    return prog, list(x)
