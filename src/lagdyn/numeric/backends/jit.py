"""The numba and jax backends: modules of :mod:`lagdyn.codegen.numba` and
:mod:`lagdyn.codegen.jax`, jitted.

JAX computes in float64 inside the model's calls only: ``jax_enable_x64`` is set
for the duration of each call (the ``jax.enable_x64`` context) and the process-wide
setting is left as it was.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ...codegen import jax as jaxcode
from ...codegen import numba as numbacode
from ...codegen.cache import DiskCache
from ...errors import BackendUnavailableError
from .base import Backend, Kernels, ProgramFactory, from_flat, no_options, pack_batch, python_module

__all__ = ["JaxBackend", "JaxKernels", "NumbaBackend", "NumbaKernels"]


class NumbaKernels(Kernels):
    """The generated scalar kernels jitted by numba; batched loop with ``prange``.

    Batched calls run on one thread unless ``threads=`` asks for more (the loop is
    compiled with ``parallel=True`` and ``numba.set_num_threads`` applies).

    Examples
    --------
    >>> from lagdyn.numeric.backends import Kernels, NumbaKernels
    >>> issubclass(NumbaKernels, Kernels)
    True
    """

    def __init__(self, source: str, module: types.ModuleType, numba: Any, threads: int) -> None:
        self.source = source
        ns = module.__dict__
        self.kernel_names = frozenset(k[:-2] for k in ns if k.endswith("_1") and callable(ns[k]))
        self.shapes = dict(ns["SHAPES"])
        jit = numba.njit(cache=False, error_model="numpy")  # IEEE inf/nan, as in C
        for k in self.kernel_names:  # the loops call the jitted kernels through the globals
            ns[f"{k}_1"] = jit(ns[f"{k}_1"])
        self._ns = ns
        self._single = {k: from_flat(self.shapes[k], ns[f"{k}_1"]) for k in self.kernel_names}
        self._loops: dict[str, Any] = {}
        self._numba = numba
        self._threads = threads

    def _loop(self, name: str) -> Any:
        if name not in self._loops:
            self._loops[name] = self._numba.njit(
                parallel=self._threads != 1, cache=False, error_model="numpy"
            )(self._ns[f"{name}_loop"])
        return self._loops[name]

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
        B = out.shape[0]
        if B == 0:
            return
        packed = pack_batch(q, qd, x, p, t, B)
        if self._threads > 1:
            self._numba.set_num_threads(min(self._threads, self._numba.config.NUMBA_NUM_THREADS))
        self._loop(name)(packed, out.reshape(B, -1))

    def single_functions(self) -> dict[str, Callable[..., Any]]:
        return dict(self._single)


class NumbaBackend(Backend):
    """The generated scalar code jitted by numba (``pip install 'lagdyn[numba]'``).

    Examples
    --------
    >>> from lagdyn.numeric import backends
    >>> backends.get("numba").name
    'numba'
    """

    name = "numba"

    def build(
        self, program: ProgramFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        threads = int(options.pop("threads", 1) or 1)
        no_options(self.name, options)
        try:
            import numba
        except ImportError as exc:
            raise BackendUnavailableError(
                "backend 'numba' needs numba: pip install 'lagdyn[numba]'"
            ) from exc
        source, module = python_module(lambda k: numbacode.runtime_source(program(), k), key, cache)
        return NumbaKernels(source, module, numba, threads)


class JaxKernels(Kernels):
    """``jax.numpy`` kernels: ``jit(vmap(f))`` for batches.

    ``functions[name]`` is the per-state function of the packed state vector
    ``x = [q, qd, x3, p, t]``, returning a flat ``jnp`` array; it composes with
    ``jax.jit``, ``jax.vmap`` and ``jax.grad``. Model methods called with jax
    arrays (or inside ``jit``/``grad``/``vmap``) stay in jax end to end.

    Examples
    --------
    >>> from lagdyn.numeric.backends import JaxKernels, Kernels
    >>> issubclass(JaxKernels, Kernels)
    True
    """

    def __init__(self, source: str, module: types.ModuleType, jax: Any, jnp: Any) -> None:
        self.source = source
        self.jax = jax
        self.jnp = jnp
        ns = module.__dict__
        self.kernel_names = frozenset(k[:-2] for k in ns if k.endswith("_x") and callable(ns[k]))
        self.shapes = dict(ns["SHAPES"])
        self.functions = {k: ns[f"{k}_x"] for k in self.kernel_names}
        self._jit = {k: jax.jit(jax.vmap(f)) for k, f in self.functions.items()}
        self._one = {k: jax.jit(f) for k, f in self.functions.items()}

    @contextlib.contextmanager
    def float64(self) -> Iterator[None]:
        """float64 for this model's computations only (the process setting is restored)."""
        scope: Any = getattr(self.jax, "enable_x64", None)  # newer jax; older: jax.experimental
        if scope is None:
            import jax.experimental

            scope = jax.experimental.enable_x64
        with scope(True):
            yield

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
        B = out.shape[0]
        if B == 0:
            return
        with self.float64():
            res = self._jit[name](pack_batch(q, qd, x, p, t, B))
            out[...] = np.asarray(res, dtype=np.float64).reshape(out.shape)

    def single_functions(self) -> dict[str, Callable[..., Any]]:
        def make(k: str) -> Callable[..., Any]:
            one, shape = self._one[k], self.shapes[k]

            def call(*x: float) -> Any:
                with self.float64():
                    return np.asarray(one(np.array(x, dtype=np.float64))).reshape(shape)[()]

            return call

        return {k: make(k) for k in self.kernel_names}


class JaxBackend(Backend):
    """``jax.numpy`` kernels traced by JAX (``pip install 'lagdyn[jax]'``); float64 per call.

    Examples
    --------
    >>> from lagdyn.numeric import backends
    >>> backends.get("jax").name
    'jax'
    """

    name = "jax"

    def build(
        self, program: ProgramFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        no_options(self.name, options)
        try:
            import jax
            import jax.numpy as jnp
        except ImportError as exc:
            raise BackendUnavailableError(
                "backend 'jax' needs jax: pip install 'lagdyn[jax]'"
            ) from exc
        source, module = python_module(lambda k: jaxcode.runtime_source(program(), k), key, cache)
        return JaxKernels(source, module, jax, jnp)
