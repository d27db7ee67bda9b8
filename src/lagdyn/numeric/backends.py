"""Numeric backends: one small interface, registered by name.

A :class:`Backend` turns a :class:`~lagdyn.numeric._codegen.Spec` (the joint-CSE
kernels of one model) into :class:`Kernels`: a ``batch`` entry point over arrays
of states and a ``single`` entry point for one state. Built-in backends:

``"numpy"``
    Generated Python source: numpy code over chunks of states, plus scalar ``math``
    code for one state. Always available.
``"c"``
    The same kernels printed as C99, compiled through cffi (API mode); batched
    loop in C (OpenMP, ``omp simd`` with vector sin/cos when available). Needs
    cffi and a C compiler (``pip install 'lagdyn[fast]'``).
``"numba"``, ``"jax"``
    The scalar kernels jitted by numba (parallel batched loop), or traced by JAX
    (``jit``/``vmap``). Optional dependencies, imported only when requested.

Examples
--------
>>> from lagdyn.numeric import backends
>>> "numpy" in backends.names()
True
>>> backends.get("numpy").name
'numpy'
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import logging
import os
import platform
import shutil
import sys
import tempfile
import time
import types
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import BackendUnavailableError, LagdynError
from . import _codegen
from ._cache import DiskCache, seal, sha256_bytes

__all__ = ["Backend", "Kernels", "get", "names", "register"]

log = logging.getLogger("lagdyn")

#: States per chunk in the numpy backend: temporaries of a few kernels stay in cache.
CHUNK = 8192

SpecFactory = Callable[[], "_codegen.Spec"]


class Kernels(ABC):
    """Compiled kernels of one model.

    ``batch(name, q, qd, u, p, t, out)`` evaluates kernel ``name`` for ``B`` states:
    every input is a C-contiguous float64 array of shape ``(1, k)`` or ``(B, k)``
    (``t`` has ``k = 1``), ``out`` is preallocated with shape ``(B, *kernel_shape)``.
    ``single(name, x)`` evaluates one state given as the flat list
    ``[*q, *qd, *u, *p, t]`` and returns the flat output list.
    """

    source: str
    kernel_names: frozenset[str]

    @abstractmethod
    def batch(
        self,
        name: str,
        q: np.ndarray,
        qd: np.ndarray,
        u: np.ndarray,
        p: np.ndarray,
        t: np.ndarray,
        out: np.ndarray,
    ) -> None:
        """Evaluate ``name`` over a batch, writing into ``out``."""

    @abstractmethod
    def single(self, name: str, x: list[float]) -> Any:
        """Evaluate ``name`` at one packed state; returns a flat sequence of floats."""

    def single_functions(self) -> dict[str, Callable[[list[float]], Any]]:
        """``{name: f}`` with ``f(x)`` equivalent to ``single(name, x)``, for the hot path."""
        return {k: (lambda x, k=k: self.single(k, x)) for k in self.kernel_names}


class Backend(ABC):
    """A way to turn generated kernels into callables; subclasses register by name."""

    name: str = ""

    @abstractmethod
    def build(
        self, spec: SpecFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        """Kernels for the model whose content hash is ``key`` (``spec()`` generates)."""


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


def _exec_module(source: str, modname: str) -> types.ModuleType:
    mod = types.ModuleType(modname)
    mod.__file__ = f"<{modname}>"
    exec(compile(source, f"<{modname}>", "exec"), mod.__dict__)
    return mod


def python_module(spec: SpecFactory, key: str, cache: DiskCache | None) -> tuple[str, types.ModuleType]:
    """Sealed generated Python source (from the cache when it verifies) and its module."""
    body = cache.load_text(key, ".py", "#") if cache is not None else None
    if body is None:
        body = _codegen.python_source(spec(), key)
        if cache is not None:
            cache.store_text(key, ".py", body, "#")
    source = seal(body, "#")
    return source, _exec_module(source, f"lagdyn_generated_{key[:16]}")


# ---------------------------------------------------------------------------- numpy
class NumpyKernels(Kernels):
    """Generated numpy code over chunks of :data:`CHUNK` states, ``math`` code for one."""

    def __init__(self, source: str, module: types.ModuleType) -> None:
        self.source = source
        self.module = module
        ns = module.__dict__
        self.kernel_names = frozenset(
            k[: -len("_batch")] for k in ns if k.endswith("_batch") and callable(ns[k])
        )
        self._batch = {k: ns[f"{k}_batch"] for k in self.kernel_names}
        self._single = {k: ns[f"{k}_1"] for k in self.kernel_names}

    def batch(self, name: str, q: np.ndarray, qd: np.ndarray, u: np.ndarray, p: np.ndarray,
              t: np.ndarray, out: np.ndarray) -> None:
        fn = self._batch[name]
        B = out.shape[0]
        shape = out.shape[1:]
        step = min(B, CHUNK)
        tmp = np.empty((*shape, step))
        for s in range(0, B, step):
            e = min(s + step, B)
            o = tmp[..., : e - s]
            fn(_rows(q, s, e), _rows(qd, s, e), _rows(u, s, e), _rows(p, s, e),
               _rows(t, s, e)[0], o)
            out[s:e] = np.moveaxis(o, -1, 0)

    def single(self, name: str, x: list[float]) -> list[float]:
        return self._single[name](x)  # type: ignore[no-any-return]

    def single_functions(self) -> dict[str, Callable[[list[float]], Any]]:
        return dict(self._single)


def _rows(x: np.ndarray, s: int, e: int) -> np.ndarray:
    """Rows of ``x[s:e]`` as contiguous ``(k, m)`` (broadcast inputs stay ``(k, 1)``)."""
    if x.shape[0] == 1:
        return x.T
    return np.ascontiguousarray(x[s:e].T)


class NumpyBackend(Backend):
    """Generated numpy/``math`` source (always available)."""

    name = "numpy"

    def build(self, spec: SpecFactory, key: str, cache: DiskCache | None, **options: Any) -> Kernels:
        _no_options(self.name, options)
        source, module = python_module(spec, key, cache)
        return NumpyKernels(source, module)


def _no_options(backend: str, options: dict[str, Any]) -> None:
    if options:
        raise LagdynError(f"backend {backend!r} takes no options, got {', '.join(sorted(options))}")


register("numpy", NumpyBackend)
