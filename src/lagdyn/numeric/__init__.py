r"""Fast numeric models: joint-CSE code generation into batched numpy, C, numba or JAX.

:func:`lambdify` turns a :class:`~lagdyn.LagrangianSystem` into a
:class:`NumericModel` whose methods evaluate M, C, g, the energy, and forward and
inverse dynamics over arrays of states:

.. math:: M(q)\ddot q + C(q,\dot q)\dot q + G(q)\dot q + g(q) = \tau + Q(q,\dot q,t).

How it works
------------
1. The system's M, C, G, g, Q and energy (plain symbols, bound parameters folded in
   as numbers) go through **one** ``sympy.cse`` together. Each generated function
   (``M``, ``C``, ``g``, ``energy``, ``bias``, ``inverse_dynamics``,
   ``forward_dynamics``) keeps only the common subexpressions it needs.
2. Forward dynamics is fused: M, the bias ``h = C q̇ + G q̇ + g − Q`` and the solve in
   one function — Cramer's rule for n = 2, an unrolled LDLᵀ up to n = 8, stacked
   ``np.linalg.solve`` above.
3. The program is printed as real source (``model.source``) by sympy printers:
   numpy code over chunks of 8192 states and ``math`` code for a single state
   (``backend="numpy"``), or C99 compiled with cffi (``backend="c"``). Outputs are
   written into preallocated arrays, so constant entries broadcast.
4. :func:`lambdify_expressions` sends any other matrices of q, q̇, t and parameters
   (constraint Jacobians, task-space maps) through the same pipeline and returns an
   :class:`ExpressionModel` with one batched method per output.
5. Generated modules are cached on disk by a hash of their symbolic input (see
   :mod:`lagdyn.codegen.cache`); a cached file that fails its hash check is never
   run: it is logged and regenerated. Code generation itself lives in
   :mod:`lagdyn.codegen`; this package loads and calls what it emits.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> sys = ld.zoo.double_pendulum()
>>> num = ld.numeric.lambdify(sys, sys.defaults)
>>> num.forward_dynamics(np.zeros((1000, 2)), np.zeros((1000, 2))).shape
(1000, 2)
"""

from __future__ import annotations

from .backends import Backend, Kernels
from .expressions import ExpressionModel, lambdify_expressions
from .lambdify import derivative_model, lambdify
from .model import DerivativeModel, NumericModel

__all__ = [  # noqa: RUF022 - grouped by concept, as STYLE.md asks
    # models of a LagrangianSystem
    "NumericModel",
    "lambdify",
    # derivatives of the dynamics (optimal control)
    "DerivativeModel",
    "derivative_model",
    # models of any expressions of its state
    "ExpressionModel",
    "lambdify_expressions",
    # backend interface
    "Backend",
    "Kernels",
]
