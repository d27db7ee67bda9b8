r"""Batched numeric functions of arbitrary expressions of a system's state.

:func:`lambdify_expressions` sends any sympy matrices in :math:`q(t)`,
:math:`\dot q(t)`, the system's parameters and :math:`t` through the same pipeline
as :func:`~lagdyn.numeric.lambdify` — one joint CSE over every output, sympy
printers, the backend registry, the content-hash cache — and returns an
:class:`ExpressionModel` with one method per output. Other modules (constraint
Jacobians, task-space maps, observables) use it instead of ``sympy.lambdify``.

Shapes: an output matrix of shape ``(r, c)`` evaluated at states ``(..., n)`` gives
``(..., r, c)``; a column vector ``(m, 1)`` gives ``(..., m)``; a scalar
expression gives ``(...)``. Constant entries broadcast.
"""

from __future__ import annotations

import keyword
import os
from collections.abc import Mapping
from typing import Any

import sympy as sp

import lagdyn.numeric.backends as backends

from ..codegen import Binding, Program, expression_program
from ..codegen.cache import DiskCache, cache_key
from ..errors import LagdynError
from .lambdify import BackendName
from .model import _KernelModel

__all__ = ["ExpressionModel", "lambdify_expressions"]


class ExpressionModel(_KernelModel):
    r"""Numeric functions of expressions of a system's state (from :func:`lambdify_expressions`).

    Each output ``name`` is a method ``model.name(q, qd=None, params=None, t=0.0)``:

    - ``q``, ``qd`` : array_like, shape ``(..., n)``; ``qd`` is required only by
      outputs that depend on the rates (default zero otherwise);
    - ``params`` : mapping or array_like ``(..., n_free)`` ordered as
      :attr:`free_parameters`: every unbound parameter of the system, in the order
      of :class:`NumericModel` for the same binding (so one ``params`` array serves
      both, even where an output does not use them all), followed by symbols that
      only the outputs contain;
    - ``t`` : float or array_like ``(...)``.

    It returns an ndarray of shape ``(..., *shapes[name])``. Leading axes of every
    argument broadcast; one state ``(n,)`` takes the scalar fast path.

    Attributes
    ----------
    names : tuple of str
        The outputs, in the order given.
    shapes : dict of str to tuple of int
        Per-state output shape: ``(r, c)``, ``(m,)`` for a column vector, ``()`` for a scalar.
    free_parameters : tuple of sympy.Symbol
        Parameters to pass per call.
    source : str
        The generated source.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> sys = ld.zoo.double_pendulum()
    >>> l1, l2 = sp.symbols("l1 l2", positive=True)
    >>> q1, q2 = sys.q
    >>> tip = sp.Matrix([l1 * sp.sin(q1) + l2 * sp.sin(q2), -l1 * sp.cos(q1) - l2 * sp.cos(q2)])
    >>> em = ld.numeric.lambdify_expressions(sys, {"tip": tip}, sys.defaults)
    >>> em.tip([0.0, 0.0])
    array([ 0., -2.])
    >>> em.tip([[0.0, 0.0], [0.0, 0.0]]).shape
    (2, 2)
    """

    def __init__(
        self,
        system: Any,
        kernels: Any,
        *,
        shapes: Mapping[str, tuple[int, ...]],
        uses_qd: Mapping[str, bool],
        binding: Binding,
        backend: str,
        key: str,
    ) -> None:
        super().__init__(system, kernels, shapes=shapes, binding=binding, backend=backend, key=key)
        self.names: tuple[str, ...] = tuple(shapes)
        self.shapes: dict[str, tuple[int, ...]] = dict(shapes)
        self._uses_qd = dict(uses_qd)

    def __repr__(self) -> str:
        free = ", ".join(str(s) for s in self.free_parameters) or "none"
        return (
            f"ExpressionModel(n={self.n}, outputs={list(self.names)}, backend={self.backend!r}, "
            f"free parameters: {free})"
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self.__dict__.get("_shapes", {}):
            raise AttributeError(f"{type(self).__name__!s} has no attribute or output {name!r}")
        return _Output(self, name)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.names})

    def evaluate(self, name: str, q: Any, qd: Any = None, params: Any = None, t: Any = 0.0) -> Any:
        """Output ``name`` at the given states (the same as ``model.<name>(...)``).

        Parameters
        ----------
        name : str
            One of :attr:`names`.
        q, qd : array_like, shape (..., n)
        params : mapping or array_like (..., n_free), optional
        t : float or array_like (...), optional

        Returns
        -------
        ndarray, shape (..., *shapes[name])

        Raises
        ------
        ShapeError
            Inputs of the wrong shape or dtype, or batch shapes that do not broadcast.
        UnboundParameterError
            Free parameters not passed.
        LagdynError
            Unknown output, or ``qd`` missing for an output that depends on the rates.

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> c = sp.Matrix([sp.cos(sys.q[0])])
        >>> em = ld.numeric.lambdify_expressions(sys, {"c": c}, sys.defaults)
        >>> em.evaluate("c", [0.0, 1.0])
        array([1.])
        """
        if name not in self._shapes:
            raise LagdynError(f"unknown output {name!r}; outputs: {', '.join(self.names)}")
        if qd is None and self._uses_qd[name]:
            raise LagdynError(f"output {name!r} depends on the rates: pass qd")
        r = self._single(name, q, qd, None, params, t)
        return r if r is not None else self._evaluate(name, q, qd, None, params, t)


class _Output:
    """``model.<name>``: a callable bound to one output of an :class:`ExpressionModel`."""

    __slots__ = ("_model", "_name")

    def __init__(self, model: ExpressionModel, name: str) -> None:
        self._model = model
        self._name = name

    def __call__(self, q: Any, qd: Any = None, params: Any = None, t: Any = 0.0) -> Any:
        return self._model.evaluate(self._name, q, qd, params, t)

    def __repr__(self) -> str:
        dims = ", ".join(map(str, self._model.shapes[self._name]))
        return f"<output {self._name!r} of shape (..., {dims})>"


_RESERVED = frozenset(dir(ExpressionModel)) | {
    "n",
    "q",
    "parameters",
    "bound",
    "free_parameters",
    "backend",
    "key",
    "names",
    "shapes",
}


def _as_entries(name: str, value: Any) -> tuple[list[sp.Expr], tuple[int, ...]]:
    """Flat row-major entries and per-state shape of one output."""
    if isinstance(value, sp.MatrixBase):
        m = value
    elif isinstance(value, (list, tuple)):
        m = sp.Matrix(value)
    else:
        try:
            e = sp.sympify(value)
        except (sp.SympifyError, TypeError) as exc:
            raise LagdynError(f"outputs[{name!r}] is not a sympy expression or matrix") from exc
        if not isinstance(e, sp.Expr):
            raise LagdynError(f"outputs[{name!r}] is not a sympy expression or matrix")
        return [e], ()
    rows, cols = m.shape
    shape = (rows,) if cols == 1 else (rows, cols)
    return list(m), shape


def lambdify_expressions(
    system: Any,
    outputs: Mapping[str, Any],
    params: Mapping[Any, float] | None = None,
    *,
    backend: BackendName | str = "numpy",
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    strict: bool = False,
    **options: Any,
) -> ExpressionModel:
    r"""Batched numeric functions of expressions in a system's q(t), q̇(t), parameters and t.

    Every output goes through one joint ``sympy.cse`` together with the others, is
    printed as real source (``model.source``) and runs on the chosen backend, like
    :func:`~lagdyn.numeric.lambdify`.

    Parameters
    ----------
    system : LagrangianSystem
        Provides the coordinates q(t) (and q̇(t)) and the parameters.
    outputs : mapping of str to sympy.Matrix (or expression, or nested list)
        Output name (a Python identifier, becomes a method) → matrix ``(r, c)``;
        column vectors ``(m, 1)`` evaluate to ``(..., m)``, scalar expressions to ``(...)``.
    params : mapping of sympy.Symbol (or name) to float, optional
        Values bound now. Parameters are the system's, followed by any other symbol
        in ``outputs`` (sorted by name); those not bound are passed per call. Names
        that are not parameters are ignored unless ``strict=True``.
    backend : {"numpy", "c", "numba", "jax"}
    cache : bool
        Keep generated modules on disk, keyed by a content hash (default True).
    cache_dir : path-like, optional
        Cache location; default ``$LAGDYN_CACHE_DIR`` or ``~/.cache/lagdyn``.
    strict : bool
        Reject names in ``params`` that are not parameters.
    **options
        Backend options, e.g. ``threads=`` for ``backend="c"``.

    Returns
    -------
    ExpressionModel

    Raises
    ------
    LagdynError
        An output name that is not an identifier or clashes with a model attribute;
        an expression in anything but q, q̇, t and symbols (e.g. q̈ or another
        function of t); a value in ``params`` that is not a finite real number.
    BackendUnavailableError
        The backend's optional dependency or compiler is missing.

    Examples
    --------
    The constraint Jacobian of a pendulum in Cartesian coordinates:

    >>> import numpy as np, sympy as sp, lagdyn as ld
    >>> x, y = ld.coordinates("x y")
    >>> m, g, l = sp.symbols("m g l", positive=True)
    >>> xd, yd = ld.velocities([x, y])
    >>> sys = ld.LagrangianSystem(m * (xd**2 + yd**2) / 2 - m * g * y, [x, y])
    >>> h = sp.Matrix([x**2 + y**2 - l**2])
    >>> em = ld.numeric.lambdify_expressions(
    ...     sys, {"h": h, "J": h.jacobian([x, y])}, {"m": 1.0, "g": 9.81}
    ... )
    >>> em.free_parameters
    (l,)
    >>> em.J(np.array([[0.6, -0.8], [1.0, 0.0]]), params={"l": 1.0})
    array([[[ 1.2, -1.6]],
    <BLANKLINE>
           [[ 2. ,  0. ]]])
    >>> em.h([0.6, -0.8], params=[1.0]).round(12)
    array([0.])
    """
    entries: dict[str, list[sp.Expr]] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    bad = [
        str(k)
        for k in outputs
        if not isinstance(k, str)
        or not k.isidentifier()
        or keyword.iskeyword(k)
        or k.startswith("_")
        or k in _RESERVED
    ]
    if bad:
        raise LagdynError(
            f"output names must be public Python identifiers that are not attributes of "
            f"ExpressionModel; invalid: {', '.join(bad)}"
        )
    if not outputs:
        raise LagdynError("outputs is empty: give at least one name → matrix")
    for name, value in outputs.items():
        entries[name], shapes[name] = _as_entries(name, value)

    from ..symbols import t as time

    qs, vs = system.plain_symbols
    known = {*qs, *vs, time, *system.parameters}
    extra: set[sp.Symbol] = set()
    uses_qd: dict[str, bool] = {}
    vset = set(vs)
    for name, exprs in entries.items():
        syms: set[sp.Basic] = set()
        for e in exprs:
            syms |= sp.sympify(system.plain(e)).free_symbols
        uses_qd[name] = bool(syms & vset)
        extra |= {s for s in syms - known if isinstance(s, sp.Symbol)}
    parameters = (*system.parameters, *sorted(extra, key=lambda s: s.name))
    binding = Binding(parameters, params, strict=strict)
    be = backends.get(backend)
    parts = {f"{name}{shapes[name]}": exprs for name, exprs in entries.items()}
    key = cache_key(system, "expressions", parts, binding.key(), be.name)
    disk = DiskCache(cache_dir) if cache else None

    def program() -> Program:
        return expression_program(system, entries, shapes, binding)

    kernels = be.build(program, key, disk, **options)
    return ExpressionModel(
        system, kernels, shapes=shapes, uses_qd=uses_qd, binding=binding, backend=be.name, key=key
    )
