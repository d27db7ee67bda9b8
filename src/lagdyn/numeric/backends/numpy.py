"""The numpy backend: the Python module of :mod:`lagdyn.codegen.python`."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ...codegen import python as pycode
from ...codegen.cache import DiskCache
from .base import Backend, Kernels, ProgramFactory, from_flat, no_options, python_module

__all__ = ["NumpyBackend", "NumpyKernels"]

#: States per chunk when a module does not say (temporaries of a few kernels stay in cache).
CHUNK = 8192


class NumpyKernels(Kernels):
    """Generated numpy code over chunks of states, ``math`` code for one.

    Examples
    --------
    >>> import lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> type(dp.lambdify(dp.defaults)._kernels).__name__
    'NumpyKernels'
    """

    def __init__(self, source: str, module: types.ModuleType) -> None:
        self.source = source
        self.module = module
        ns = module.__dict__
        self.kernel_names = frozenset(
            k[: -len("_batch")] for k in ns if k.endswith("_batch") and callable(ns[k])
        )
        self._batch = {k: ns[f"{k}_batch"] for k in self.kernel_names}
        self._chunks: dict[str, int] = {
            k: int(ns.get("CHUNKS", {}).get(k, CHUNK)) for k in self.kernel_names
        }
        self.shapes = dict(ns["SHAPES"])
        self._single = {
            k: ns.get(f"{k}_a") or from_flat(self.shapes[k], ns[f"{k}_1"])
            for k in self.kernel_names
        }

    def batch(
        self,
        name: str,
        q: np.ndarray,
        qd: np.ndarray,
        x: np.ndarray,
        p: np.ndarray,
        t: np.ndarray,
        out: np.ndarray,
    ) -> None:
        fn = self._batch[name]
        B = out.shape[0]
        if B == 0:
            return
        shape = out.shape[1:]
        step = min(B, self._chunks[name])
        tmp = np.empty((*shape, step))
        with np.errstate(all="ignore"):  # IEEE inf/nan at singular states, as in C
            self._chunks_into(fn, q, qd, x, p, t, out, tmp, B, step)

    @staticmethod
    def _chunks_into(
        fn: Any,
        q: np.ndarray,
        qd: np.ndarray,
        x: np.ndarray,
        p: np.ndarray,
        t: np.ndarray,
        out: np.ndarray,
        tmp: np.ndarray,
        B: int,
        step: int,
    ) -> None:
        for s in range(0, B, step):
            e = min(s + step, B)
            o = tmp[..., : e - s]
            fn(
                _rows(q, s, e),
                _rows(qd, s, e),
                _rows(x, s, e),
                _rows(p, s, e),
                _rows(t, s, e)[0],
                o,
            )
            out[s:e] = np.moveaxis(o, -1, 0)

    def single_functions(self) -> dict[str, Callable[..., Any]]:
        return dict(self._single)


def _rows(x: np.ndarray, s: int, e: int) -> np.ndarray:
    """Rows of ``x[s:e]`` as contiguous ``(k, m)`` (broadcast inputs stay ``(k, 1)``)."""
    if x.shape[0] == 1:
        return x.T
    return np.ascontiguousarray(x[s:e].T)


class NumpyBackend(Backend):
    """Generated numpy/``math`` source (always available).

    Examples
    --------
    >>> from lagdyn.numeric import backends
    >>> backends.get("numpy").name
    'numpy'
    """

    name = "numpy"

    def build(
        self, program: ProgramFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        no_options(self.name, options)
        source, module = python_module(lambda k: pycode.runtime_source(program(), k), key, cache)
        return NumpyKernels(source, module)
