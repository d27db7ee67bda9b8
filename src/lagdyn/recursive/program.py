r"""The recursive programs: straight-line code over joint inputs, and what they share.

A :class:`Program` is straight-line code: a list of assignments ``(symbol, expression)``
with named intermediates, then flat output expressions (row-major, ``shape``). Its inputs
are plain real symbols: ``q`` (``_ldq{i}``), ``qd`` (``_ldv{i}``, the same symbols as
:attr:`LagrangianSystem.plain_symbols`), ``qdd`` (``_lda{i}``) and ``tau`` (``_ldu{i}``);
every other free symbol is a parameter. It is evaluated, printed and exported as a kernel of
:mod:`lagdyn.codegen` (:meth:`Program.kernel_program`): one program IR, one numpy printer.

Customization happens while a program is built: every intermediate is a sympy expression
of earlier symbols, so products with structural zeros and ones (DH entries that are 0,
axes along coordinate axes, parameters bound to numbers) are simplified away by sympy before
an assignment is made, identical right-hand sides are shared, and ``-x`` or numbers are never
given a name. The algorithms that emit programs have one file each, as in Pinocchio's
``algorithm/`` (Featherstone's notation, spatial vectors kept as pairs of 3-vectors in link
frames, barycentric inertias m, h = m c, I about the link origin):

- :func:`~lagdyn.recursive.rnea.rnea`: recursive Newton–Euler, τ = M q̈ + C q̇ + g
  (+ friction when asked); h with ``qdd=False``, g with ``qd=False, qdd=False``;
- :func:`~lagdyn.recursive.crba.crba`: composite-rigid-body algorithm, M (armature on the
  diagonal);
- :func:`~lagdyn.recursive.forward.forward_dynamics`: CRBA + RNEA (q̈ = 0) + LDLᵀ solve,
  q̈ = M⁻¹(τ − h), or the articulated-body algorithm (:mod:`~lagdyn.recursive.aba`);
- :func:`~lagdyn.recursive.coriolis.coriolis`: the Christoffel-consistent C(q, q̇) of
  Echeandia & Wensing (2021), and :func:`~lagdyn.recursive.coriolis.energy`.

This module holds what they share: the program, its input symbols, the finishing step
(dead code pruned) and the joint CSE.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.recursive.rnea import rnea
>>> arm = ld.zoo.get("planar_3r")
>>> prog = rnea(arm.chain, qd=False, qdd=False)     # gravity torques
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

from ..codegen import Program as CodegenProgram
from ..codegen import program as codegen_program
from ..codegen import python as _python
from ..codegen.build import full_precision_floats
from ..errors import UnboundParameterError
from .algebra import _Builder, _floats

__all__ = ["INPUTS", "Program", "input_symbols", "joint_cse"]

#: The input vectors of a program, in order.
INPUTS = ("q", "qd", "qdd", "tau")
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
    >>> from lagdyn import recursive
    >>> prog = recursive.crba(ld.zoo.get("planar_3r").chain)
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
        >>> from lagdyn import recursive
        >>> recursive.rnea(ld.zoo.get("puma560").chain).parameters
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
        >>> from lagdyn import recursive
        >>> recursive.rnea(ld.zoo.get("planar_3r").chain, qd=False, qdd=False).count_ops()
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
        >>> from lagdyn import recursive
        >>> chain = ld.zoo.get("planar_3r").chain
        >>> recursive.crba(chain).inline()[2, 2]
        1/3
        """
        sub: dict[sp.Basic, sp.Expr] = {}
        for s, e in self.body:
            sub[s] = e.xreplace(sub)
        return sp.ImmutableMatrix(*self._shape2, [e.xreplace(sub) for e in self.outputs])

    @property
    def _shape2(self) -> tuple[int, int]:
        return (self.shape[0], self.shape[1] if len(self.shape) > 1 else 1)

    def kernel_program(self, params: Mapping[Any, float] | None = None) -> CodegenProgram:
        """This program as a one-kernel :class:`lagdyn.codegen.Program`, parameters bound.

        The kernel is named :attr:`name` and reads ``q``, ``qd`` and the one of ``qdd``,
        ``tau`` the program uses; every parameter is folded in as a number from ``params``
        (symbols or their names). This is what :meth:`lambdify` and :meth:`source` print.

        Raises
        ------
        UnboundParameterError
            A parameter without a value.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn import recursive
        >>> arm = ld.zoo.get("planar_3r")
        >>> k = recursive.rnea(arm.chain).kernel_program(arm.defaults).kernels["tau"]
        >>> k.inputs, k.shape
        (('q', 'qd', 'qdd'), (3,))
        """
        given = dict(params or {})
        by_name = {str(k): v for k, v in given.items()}  # a symbol or its name
        values: dict[Any, Any] = {
            s: given[s] if s in given else by_name[s.name]
            for s in self.parameters
            if s in given or s.name in by_name
        }
        missing = [s for s in self.parameters if s not in values]
        if missing:
            raise UnboundParameterError(missing, f"program {self.name!r}")
        bind = {s: sp.Float(float(values[s]), 17) for s in self.parameters}
        body = [(s, e.xreplace(bind)) for s, e in self.body]
        outputs = [sp.sympify(e).xreplace(bind) for e in self.outputs]
        used: set[sp.Basic] = set()
        for _, e in body:
            used |= e.free_symbols
        for e in outputs:
            used |= e.free_symbols
        inputs = {
            k: self.inputs[k]
            for k in INPUTS
            if k in ("q", "qd") or any(s in used for s in self.inputs[k])
        }
        return codegen_program(body, {self.name: outputs}, inputs, shapes={self.name: self.shape})

    def source(self, params: Mapping[Any, float] | None = None) -> str:
        """The numpy module :func:`lagdyn.codegen.python.runtime_source` prints for it.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn import recursive
        >>> arm = ld.zoo.get("planar_3r")
        >>> src = recursive.crba(arm.chain).source(arm.defaults)
        >>> "def M_batch(q, qd, x, params, t, out):" in src
        True
        """
        return _python.runtime_source(self.kernel_program(params), f"program-{self.name}")

    def lambdify(self, params: Mapping[Any, float] | None = None) -> Callable[..., Any]:
        """A batched numpy function ``f(q=..., qd=..., qdd=..., tau=...)`` of this program.

        Arrays have shape ``(..., n)``; the result ``(...,) + shape``, float64 (complex when an
        input is complex, e.g. for complex-step derivatives). Every parameter must be bound in
        ``params``. The code is :mod:`lagdyn.codegen`'s numpy printer's
        (:func:`lagdyn.codegen.python.batch_function` of :meth:`kernel_program`).

        Raises
        ------
        UnboundParameterError
            A parameter without a value.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> from lagdyn import recursive
        >>> arm = ld.zoo.get("planar_3r")
        >>> M = recursive.crba(arm.chain).lambdify(arm.defaults)
        >>> M(q=np.zeros((5, 3))).shape
        (5, 3, 3)
        """
        return _python.batch_function(self.kernel_program(params), self.name)


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


def _finish_outputs(
    outputs: Mapping[str, Sequence[Any]],
    body: Sequence[tuple[sp.Symbol, sp.Expr]],
    cse: bool,
) -> tuple[list[tuple[sp.Symbol, sp.Expr]], dict[str, list[sp.Expr]]]:
    """The body and the outputs of a program's kernels, Floats at full double precision.

    With ``cse``, one :func:`joint_cse` runs over the body and all the outputs together.
    Returns the body and the outputs by kernel name, in the order of ``outputs``.
    """
    flat = [full_precision_floats(sp.sympify(e)) for k in outputs for e in outputs[k]]
    new_body = [(s, full_precision_floats(sp.sympify(e))) for s, e in body]
    if cse:
        new_body, flat = joint_cse(new_body, flat, prefix="y")
    outs: dict[str, list[sp.Expr]] = {}
    for k in outputs:
        outs[k], flat = flat[: len(outputs[k])], flat[len(outputs[k]) :]
    return new_body, outs


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
