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
    "KERNELS",
    "MAX_UNROLLED",
    "ROUTES",
    "bound_number",
    "check_route",
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
