"""Numeric backends: load what :mod:`lagdyn.codegen` emits; one small interface, by name.

A :class:`Backend` turns a :class:`~lagdyn.codegen.Program` (the joint-CSE kernels
of one model) into :class:`Kernels`: a ``batch`` entry point over arrays of states
and a ``single`` entry point for one state. Built-in backends:

``"numpy"``
    Generated Python source: numpy code over chunks of states, plus scalar ``math``
    code for one state. Always available.
``"c"``
    The kernels printed as C99, compiled through cffi (API mode); batched loop in C
    (OpenMP, ``omp simd`` with vector sin/cos when available). Needs cffi and a C
    compiler (``pip install 'lagdyn[fast]'``).
``"numba"``, ``"jax"``
    The scalar kernels jitted by numba (parallel batched loop), or ``jax.numpy``
    kernels traced by JAX (``jit``/``vmap``). Optional dependencies, imported only
    when requested.

Examples
--------
>>> from lagdyn.numeric import backends
>>> "numpy" in backends.names()
True
>>> backends.get("numpy").name
'numpy'
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import LagdynError
from .base import Backend, Kernels, ProgramFactory
from .compiled import CBackend, CKernels
from .jit import JaxBackend, JaxKernels, NumbaBackend, NumbaKernels
from .numpy import NumpyBackend, NumpyKernels

__all__ = [
    "Backend",
    "CBackend",
    "CKernels",
    "JaxBackend",
    "JaxKernels",
    "Kernels",
    "NumbaBackend",
    "NumbaKernels",
    "NumpyBackend",
    "NumpyKernels",
    "ProgramFactory",
    "get",
    "names",
    "register",
]

_REGISTRY: dict[str, Callable[[], Backend]] = {}


def register(name: str, factory: Callable[[], Backend]) -> None:
    """Register a backend factory under ``name`` (used by ``lambdify(backend=name)``).

    Examples
    --------
    >>> from lagdyn.numeric import backends
    >>> backends.register("numpy2", backends.NumpyBackend)
    >>> backends.get("numpy2").name
    'numpy'
    """
    _REGISTRY[name] = factory


def names() -> list[str]:
    """Registered backend names (availability is checked only when building).

    Examples
    --------
    >>> from lagdyn.numeric import backends
    >>> {"numpy", "c", "numba", "jax"} <= set(backends.names())
    True
    """
    return sorted(_REGISTRY)


def get(name: str) -> Backend:
    """The backend registered as ``name``.

    Raises
    ------
    LagdynError
        Unknown name.

    Examples
    --------
    >>> from lagdyn.numeric import backends
    >>> backends.get("c").name
    'c'
    """
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise LagdynError(
            f"unknown numeric backend {name!r}; registered: {', '.join(names())}"
        ) from None
    return factory()


register("numpy", NumpyBackend)
register("c", CBackend)
register("numba", NumbaBackend)
register("jax", JaxBackend)
