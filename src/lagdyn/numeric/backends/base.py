"""The backend interface: :class:`Backend` builds :class:`Kernels` from a program."""

from __future__ import annotations

import types
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...codegen.cache import DiskCache, seal
from ...codegen.ir import Program
from ...errors import LagdynError

__all__ = ["Backend", "Kernels", "ProgramFactory"]

ProgramFactory = Callable[[], Program]


class Kernels(ABC):
    """Compiled kernels of one model.

    ``batch(name, q, qd, x, p, t, out)`` evaluates kernel ``name`` for ``B`` states:
    every input is a C-contiguous float64 array of shape ``(1, k)`` or ``(B, k)``
    (``x`` is the kernel's third vector: ``qdd``, ``tau`` or unused; ``t`` has
    ``k = 1``), ``out`` is preallocated with shape ``(B, *kernel_shape)``.
    ``single_functions()[name](q_0, …, qd_0, …, x_0, …, p_0, …, t)`` evaluates one
    state given as positional floats and returns a fresh ndarray of the kernel's
    shape (a float64 scalar for scalar kernels): the hot path of one-state calls.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.numeric.backends import Kernels
    >>> dp = ld.zoo.double_pendulum()
    >>> isinstance(dp.lambdify(dp.defaults)._kernels, Kernels)
    True
    """

    source: str
    kernel_names: frozenset[str]
    shapes: dict[str, tuple[int, ...]]

    @abstractmethod
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
        """Evaluate ``name`` over a batch, writing into ``out``."""

    @abstractmethod
    def single_functions(self) -> dict[str, Callable[..., Any]]:
        """``{name: f}``: ``f(*x)`` evaluates one state ``x = [*q, *qd, *x3, *p, t]``."""

    def array_functions(self) -> dict[str, Callable[..., Any]]:
        """``{name: f}``: ``f(q, qd, x, t)`` for one state as float64 ``(n,)`` arrays (qd, x
        may be None, t a float), returning ``NotImplemented`` for any other input.

        Only compiled backends have them (no Python frame between the caller and C).
        """
        return {}

    def single(self, name: str, x: Sequence[float]) -> Any:
        """Evaluate ``name`` at one packed state ``x = [*q, *qd, *x3, *p, t]``."""
        return self.single_functions()[name](*x)


class Backend(ABC):
    """A way to turn generated kernels into callables; subclasses register by name.

    Examples
    --------
    >>> from lagdyn.numeric.backends import Backend, get
    >>> isinstance(get("numpy"), Backend)
    True
    """

    name: str = ""

    @abstractmethod
    def build(
        self, program: ProgramFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        """Kernels for the model whose content hash is ``key`` (``program()`` generates)."""


def no_options(backend: str, options: dict[str, Any]) -> None:
    if options:
        raise LagdynError(f"backend {backend!r} takes no options, got {', '.join(sorted(options))}")


def from_flat(shape: tuple[int, ...], f: Callable[..., Sequence[float]]) -> Callable[..., Any]:
    """Wrap ``f`` (returning a flat tuple) to return an ndarray of ``shape``."""
    array, f64 = np.array, np.float64
    if not shape:
        return lambda *x: f64(f(*x)[0])
    if len(shape) == 1:
        return lambda *x: array(f(*x))
    return lambda *x: array(f(*x)).reshape(shape)


def exec_module(source: str, modname: str) -> types.ModuleType:
    mod = types.ModuleType(modname)
    mod.__file__ = f"<{modname}>"
    exec(compile(source, f"<{modname}>", "exec"), mod.__dict__)
    return mod


def python_module(
    emit: Callable[[str], str], key: str, cache: DiskCache | None
) -> tuple[str, types.ModuleType]:
    """Sealed generated Python source (from the cache when it verifies) and its module.

    ``emit(key)`` prints the source when the cache has no verified copy.
    """
    body = cache.load_text(key, ".py", "#") if cache is not None else None
    if body is None:
        body = emit(key)
        if cache is not None:
            cache.store_text(key, ".py", body, "#")
    source = seal(body, "#")
    return source, exec_module(source, f"lagdyn_generated_{key[:16]}")


def pack_batch(
    q: np.ndarray, qd: np.ndarray, x: np.ndarray, p: np.ndarray, t: np.ndarray, B: int
) -> np.ndarray:
    """The inputs packed per state as ``(B, 3n + n_free + 1)``."""
    parts = [np.broadcast_to(a, (B, a.shape[1])) for a in (q, qd, x, p, t)]
    return np.ascontiguousarray(np.concatenate(parts, axis=1))
