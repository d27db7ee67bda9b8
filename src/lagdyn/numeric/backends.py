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

import ctypes
import hashlib
import importlib.machinery
import importlib.util
import itertools
import logging
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import types
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import lagdyn.numeric._codegen as _codegen

from ..errors import BackendUnavailableError, LagdynError
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
    ``single_functions()[name](q_0, …, qd_0, …, u_0, …, p_0, …, t)`` evaluates one
    state given as positional floats and returns a fresh ndarray of the kernel's shape
    (a float64 scalar for scalar kernels): the hot path of one-state calls.
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
        u: np.ndarray,
        p: np.ndarray,
        t: np.ndarray,
        out: np.ndarray,
    ) -> None:
        """Evaluate ``name`` over a batch, writing into ``out``."""

    @abstractmethod
    def single_functions(self) -> dict[str, Callable[..., Any]]:
        """``{name: f}``: ``f(*x)`` evaluates one state ``x = [*q, *qd, *u, *p, t]``."""

    def array_functions(self) -> dict[str, Callable[..., Any]]:
        """``{name: f}``: ``f(q, qd, u, t)`` for one state as float64 ``(n,)`` arrays (qd, u
        may be None, t a float), returning ``NotImplemented`` for any other input.

        Only compiled backends have them (no Python frame between the caller and C).
        """
        return {}

    def single(self, name: str, x: Sequence[float]) -> Any:
        """Evaluate ``name`` at one packed state ``x = [*q, *qd, *u, *p, t]``."""
        return self.single_functions()[name](*x)


def _from_flat(shape: tuple[int, ...], f: Callable[..., Sequence[float]]) -> Callable[..., Any]:
    """Wrap ``f`` (returning a flat tuple) to return an ndarray of ``shape``."""
    array, f64 = np.array, np.float64
    if not shape:
        return lambda *x: f64(f(*x)[0])
    if len(shape) == 1:
        return lambda *x: array(f(*x))
    return lambda *x: array(f(*x)).reshape(shape)


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


def python_module(
    spec: SpecFactory, key: str, cache: DiskCache | None
) -> tuple[str, types.ModuleType]:
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
    """Generated numpy code over chunks of states, ``math`` code for one."""

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
            k: ns.get(f"{k}_a") or _from_flat(self.shapes[k], ns[f"{k}_1"])
            for k in self.kernel_names
        }

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
        fn = self._batch[name]
        B = out.shape[0]
        shape = out.shape[1:]
        step = min(B, self._chunks[name])
        tmp = np.empty((*shape, step))
        for s in range(0, B, step):
            e = min(s + step, B)
            o = tmp[..., : e - s]
            fn(
                _rows(q, s, e),
                _rows(qd, s, e),
                _rows(u, s, e),
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
    """Generated numpy/``math`` source (always available)."""

    name = "numpy"

    def build(
        self, spec: SpecFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        _no_options(self.name, options)
        source, module = python_module(spec, key, cache)
        return NumpyKernels(source, module)


def _no_options(backend: str, options: dict[str, Any]) -> None:
    if options:
        raise LagdynError(f"backend {backend!r} takes no options, got {', '.join(sorted(options))}")


register("numpy", NumpyBackend)


# ---------------------------------------------------------------------------- C (cffi)
_INSTALL_FAST = "pip install 'lagdyn[fast]'"
_PROBE_CACHE: dict[str, tuple[list[str], list[str], bool]] = {}


def _compiler() -> list[str]:
    import sysconfig

    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return cc.split()


def _toolchain_fingerprint() -> str:
    """What the compiled module depends on besides the C source (part of the cache key)."""
    flags = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = line
                    break
    except OSError:
        flags = platform.processor()
    parts = [
        " ".join(_compiler()),
        platform.machine(),
        platform.system(),
        sys.implementation.cache_tag or "",
        importlib.machinery.EXTENSION_SUFFIXES[0],
        hashlib.sha256(flags.encode()).hexdigest()[:16],
    ]
    return "|".join(parts)


def _probe_flags() -> tuple[list[str], list[str], bool]:
    """(compile args, link args, simd) that work with this compiler: OpenMP, libmvec."""
    cc = _compiler()
    fp = " ".join(cc)
    if fp in _PROBE_CACHE:
        return _PROBE_CACHE[fp]
    if shutil.which(cc[0]) is None:
        raise BackendUnavailableError(
            f"backend 'c' needs a C compiler; {cc[0]!r} was not found "
            "(set CC, or install gcc/clang; "
            f"{_INSTALL_FAST} for cffi)"
        )
    base = ["-O3", "-std=c99", "-fno-math-errno", "-fno-builtin-sin", "-fno-builtin-cos"]
    test = (
        "#include <math.h>\n#pragma omp declare simd notinbranch\ndouble sin(double);\n"
        "double f(const double *x, double *y, long n) {\n#pragma omp parallel for simd\n"
        "for (long i = 0; i < n; ++i) y[i] = sin(x[i]);\nreturn y[0];}\n"
        "int main(void) { double x[64] = {0}, y[64]; return (int)f(x, y, 64); }\n"
    )

    def works(cflags: list[str], lflags: list[str]) -> bool:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "probe.c"
            src.write_text(test)
            try:
                res = subprocess.run(
                    [*cc, *cflags, str(src), "-o", str(Path(tmp) / "probe"), *lflags, "-lm"],
                    capture_output=True,
                    timeout=60,
                )
            except (OSError, subprocess.SubprocessError):
                return False
            return res.returncode == 0

    if not works(base, []):
        raise BackendUnavailableError(
            f"backend 'c': the C compiler {' '.join(cc)!r} cannot build a test program"
        )
    native = ["-march=native"] if works([*base, "-march=native"], []) else []
    omp = ["-fopenmp"] if works([*base, *native, "-fopenmp"], ["-fopenmp"]) else ["-fopenmp-simd"]
    lomp = ["-fopenmp"] if omp == ["-fopenmp"] else []
    mvec = works([*base, *native, *omp], [*lomp, "-lmvec"])
    result = ([*base, *native, *omp], [*lomp, *(["-lmvec"] if mvec else [])], mvec)
    _PROBE_CACHE[fp] = result
    log.debug("lagdyn: C flags %s, link %s, simd sin/cos %s", *result)
    return result


class CKernels(Kernels):
    """Kernels compiled from C99 through cffi (API mode)."""

    def __init__(self, source: str, module: Any, threads: int) -> None:
        self.source = source
        self.module = module
        self.ffi = module.ffi
        self.lib = module.lib
        self.threads = threads
        self.kernel_names = frozenset(
            k[3:-2] for k in dir(self.lib) if k.startswith("ld_") and k.endswith("_1")
        )
        lib = self.lib
        self.shapes = {
            k: (getattr(lib, f"ld_{k}_rows"), getattr(lib, f"ld_{k}_cols"))[
                : getattr(lib, f"ld_{k}_ndim")
            ]
            for k in self.kernel_names
        }
        self._single = {
            k: _c_single(self.ffi, getattr(self.lib, f"ld_{k}_1"), self.shapes[k])
            for k in self.kernel_names
        }
        self._arrays = _c_array_functions(self.ffi, self.lib)

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
        ffi = self.ffi
        B = out.shape[0]

        def buf(x: np.ndarray) -> tuple[Any, int]:
            if x.size == 0:
                return ffi.NULL, 0
            return ffi.from_buffer("double[]", x), (x.shape[1] if x.shape[0] != 1 else 0)

        if q.shape[0] != B:  # the C loop reads q and qd densely
            q = np.ascontiguousarray(np.broadcast_to(q, (B, q.shape[1])))
        if qd.shape[0] != B:
            qd = np.ascontiguousarray(np.broadcast_to(qd, (B, qd.shape[1])))
        (bq, _), (bqd, _), (bu, su), (bp, spp), (bt, st) = map(buf, (q, qd, u, p, t))
        getattr(self.lib, f"ld_{name}")(
            B,
            bq,
            bqd,
            bu,
            su,
            bp,
            spp,
            bt,
            st,
            ffi.from_buffer("double[]", out, require_writable=True),
            self.threads,
        )

    def single_functions(self) -> dict[str, Callable[..., Any]]:
        return dict(self._single)

    def array_functions(self) -> dict[str, Callable[..., Any]]:
        return dict(self._arrays)


def _c_array_functions(ffi: Any, lib: Any) -> dict[str, Callable[..., Any]]:
    """The module's METH_FASTCALL one-state functions ``f(q, qd, u, t)`` (empty if absent).

    ``ld_pyfast()`` returns a new reference to a dict of builtin functions as ``void *``;
    ctypes turns the address back into the object (the module keeps that reference).
    """
    make = getattr(lib, "ld_pyfast", None)
    if make is None:
        return {}
    ptr = make()
    if ptr == ffi.NULL:
        return {}
    table = ctypes.cast(int(ffi.cast("uintptr_t", ptr)), ctypes.py_object).value
    return dict(table) if isinstance(table, dict) else {}


#: Rows per preallocated output block of the compiled single-state path.
POOL = 64


def _c_single(ffi: Any, fn: Any, shape: tuple[int, ...]) -> Callable[..., Any]:
    """One crossing into C with the inputs as doubles by value; the result is a fresh row
    of a preallocated block (no ``np.empty`` or ``ffi.from_buffer`` per call).

    Rows are handed out once (an atomic counter per block), so results never alias,
    also across threads; a returned row keeps its block (``POOL`` rows) alive.
    """
    from_buffer, empty, count = ffi.from_buffer, np.empty, itertools.count

    def fresh() -> tuple[np.ndarray, Any, Any]:
        block = empty((POOL, *shape))
        return block, from_buffer("double[]", block, require_writable=True), count()

    cur = fresh()

    def call(*x: float) -> Any:
        nonlocal cur
        block, ptr, cnt = cur
        i = next(cnt)
        if i >= POOL:
            cur = block, ptr, cnt = fresh()
            i = next(cnt)
        fn(*x, ptr, i)
        return block[i]

    return call


def _load_extension(modname: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        modname, path, loader=importlib.machinery.ExtensionFileLoader(modname, str(path))
    )
    if spec is None or spec.loader is None:  # pragma: no cover
        raise LagdynError(f"cannot load compiled module {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class CBackend(Backend):
    """C99 printed by sympy, compiled with cffi in API mode (``pip install 'lagdyn[fast]'``).

    Options
    -------
    threads : int, optional
        OpenMP threads for batched calls. Default 1: machines running other jobs
        lose more to spin-waiting threads than they gain; ask for ``threads=2`` (or
        ``0`` for OpenMP's default, all cores or ``OMP_NUM_THREADS``) on an idle
        machine. Batches under 16384 states always run on one thread.
    """

    name = "c"

    def build(
        self, spec: SpecFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        threads = options.pop("threads", 1)
        _no_options(self.name, options)
        try:
            import cffi
        except ImportError as exc:
            raise BackendUnavailableError(f"backend 'c' needs cffi: {_INSTALL_FAST}") from exc
        nthreads = int(threads)  # 0: OpenMP's default (all cores or OMP_NUM_THREADS)
        if nthreads < 0:
            raise LagdynError(f"threads must be ≥ 0, got {threads!r}")
        key = hashlib.sha256(f"{key}|{_toolchain_fingerprint()}".encode()).hexdigest()
        modname = f"_lagdyn_c_{key[:24]}"
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        if cache is not None:
            hit = self._load_cached(cache, key, modname, suffix)
            if hit is not None:
                return CKernels(hit[0], hit[1], nthreads)
        cflags, lflags, simd = _probe_flags()
        body, cdef = _codegen.c_source(spec(), key, simd=simd)
        source = seal(body, "//")
        tmp = tempfile.mkdtemp(prefix="lagdyn-c-")
        try:
            ffi = cffi.FFI()
            ffi.cdef(cdef)
            ffi.set_source(
                modname,
                source,
                extra_compile_args=cflags,
                extra_link_args=lflags,
                libraries=["m"],
                include_dirs=[np.get_include()],
                # the one-state entry points use METH_FASTCALL and numpy's C API
                define_macros=[("_CFFI_NO_LIMITED_API", None)],
                py_limited_api=False,
            )
            t0 = time.perf_counter()
            try:
                built = Path(ffi.compile(tmpdir=tmp, verbose=False))
            except Exception as exc:  # distutils/setuptools raise assorted errors
                raise BackendUnavailableError(
                    f"backend 'c': compiling the generated module failed ({exc}); "
                    f"is a C compiler installed? {_INSTALL_FAST}"
                ) from exc
            log.info("lagdyn: compiled %s in %.2f s", modname, time.perf_counter() - t0)
            target = built
            if cache is not None:
                so_path = cache.path(key, suffix)
                data = built.read_bytes()
                if cache.store_bytes(so_path, data) is not None:
                    manifest = (
                        f"// lagdyn-key: {key}\nmodule: {modname}\n"
                        f"so-sha256: {sha256_bytes(data)}\n"
                    )
                    cache.store_text(key, ".c.manifest", manifest, "//")
                    cache.store_text(key, ".c", body, "//")
                    target = so_path
            module = _load_extension(modname, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return CKernels(source, module, nthreads)

    def _load_cached(
        self, cache: DiskCache, key: str, modname: str, suffix: str
    ) -> tuple[str, Any] | None:
        so_path = cache.path(key, suffix)
        if not so_path.exists() and not cache.path(key, ".c.manifest").exists():
            return None
        manifest = cache.load_text(key, ".c.manifest", "//")
        body = cache.load_text(key, ".c", "//")
        fields = dict(
            line.split(": ", 1) for line in (manifest or "").splitlines()[1:] if ": " in line
        )
        if (
            manifest is None
            or body is None
            or fields.get("module") != modname
            or not cache.verify_file(so_path, fields.get("so-sha256", ""))
        ):
            log.warning(
                "lagdyn: rejecting cached compiled module %s (hash does not verify); rebuilding",
                so_path,
            )
            for suf in (suffix, ".c", ".c.manifest"):
                cache.discard(cache.path(key, suf))
            return None
        return seal(body, "//"), _load_extension(modname, so_path)


register("c", CBackend)


# ---------------------------------------------------------------------------- numba, jax
def _pack_batch(
    q: np.ndarray, qd: np.ndarray, u: np.ndarray, p: np.ndarray, t: np.ndarray, B: int
) -> np.ndarray:
    """The inputs packed per state as ``(B, 3n + n_free + 1)``."""
    parts = [np.broadcast_to(a, (B, a.shape[1])) for a in (q, qd, u, p, t)]
    return np.ascontiguousarray(np.concatenate(parts, axis=1))


def _rebind(fn: Callable[..., Any], namespace: dict[str, Any]) -> Callable[..., Any]:
    """``fn`` with its globals replaced (the same generated code over other math functions)."""
    return types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)


class NumbaKernels(Kernels):
    """The generated scalar kernels jitted by numba; batched loop with ``prange``.

    Batched calls run on one thread unless ``threads=`` asks for more (the loop is
    compiled with ``parallel=True`` and ``numba.set_num_threads`` applies).
    """

    def __init__(self, source: str, module: types.ModuleType, numba: Any, threads: int) -> None:
        self.source = source
        ns = module.__dict__
        self.kernel_names = frozenset(k[:-2] for k in ns if k.endswith("_1") and callable(ns[k]))
        self.shapes = dict(ns["SHAPES"])
        self._jitted = {k: numba.njit(cache=False)(ns[f"{k}_1"]) for k in self.kernel_names}
        self._single = {k: _from_flat(self.shapes[k], f) for k, f in self._jitted.items()}
        self._batch: dict[str, Any] = {}
        self._numba = numba
        self._threads = threads

    def _loop(self, name: str, width: int) -> Any:
        if name not in self._batch:
            size = max(1, math.prod(self.shapes[name]))
            args = ", ".join(f"x[k, {j}]" for j in range(width))
            stores = "".join(f"\n        out[k, {j}] = r[{j}]" for j in range(size))
            src = (
                "def loop(x, out):\n"
                "    for k in prange(x.shape[0]):\n"
                f"        r = f({args}){stores}\n"
            )
            ns: dict[str, Any] = {"prange": self._numba.prange, "f": self._jitted[name]}
            exec(compile(src, f"<lagdyn numba loop {name}>", "exec"), ns)
            self._batch[name] = self._numba.njit(parallel=self._threads != 1, cache=False)(
                ns["loop"]
            )
        return self._batch[name]

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
        B = out.shape[0]
        x = _pack_batch(q, qd, u, p, t, B)
        loop = self._loop(name, x.shape[1])
        if self._threads > 1:
            self._numba.set_num_threads(min(self._threads, self._numba.config.NUMBA_NUM_THREADS))
        loop(x, out.reshape(B, -1))

    def single_functions(self) -> dict[str, Callable[..., Any]]:
        return dict(self._single)


class NumbaBackend(Backend):
    """The generated scalar code jitted by numba (``pip install 'lagdyn[numba]'``)."""

    name = "numba"

    def build(
        self, spec: SpecFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        threads = int(options.pop("threads", 1) or 1)
        _no_options(self.name, options)
        try:
            import numba
        except ImportError as exc:
            raise BackendUnavailableError(
                "backend 'numba' needs numba: pip install 'lagdyn[numba]'"
            ) from exc
        source, module = python_module(spec, key, cache)
        return NumbaKernels(source, module, numba, threads)


class JaxKernels(Kernels):
    """The generated scalar kernels over ``jax.numpy``: ``jit(vmap(f))`` for batches.

    ``functions[name]`` is the per-state function of the packed state vector
    ``x = [q, qd, u, p, t]``, returning a flat ``jnp`` array; it composes with
    ``jax.jit``, ``jax.vmap`` and ``jax.grad``. Model methods called with jax
    arrays (or inside ``jit``/``grad``/``vmap``) stay in jax end to end.
    """

    def __init__(self, source: str, module: types.ModuleType, jax: Any, jnp: Any) -> None:
        self.source = source
        self.jax = jax
        self.jnp = jnp
        ns = dict(module.__dict__)
        for fname in (
            "sin",
            "cos",
            "tan",
            "exp",
            "log",
            "sqrt",
            "sinh",
            "cosh",
            "tanh",
            "asin",
            "acos",
            "atan",
            "atan2",
            "fabs",
        ):
            if fname in ns:
                ns[fname] = getattr(
                    jnp,
                    {
                        "asin": "arcsin",
                        "acos": "arccos",
                        "atan": "arctan",
                        "atan2": "arctan2",
                        "fabs": "abs",
                    }.get(fname, fname),
                )
        ns["math"] = jnp
        self.kernel_names = frozenset(k[:-2] for k in ns if k.endswith("_1") and callable(ns[k]))
        self.shapes = dict(ns["SHAPES"])

        def packed(f: Callable[..., Any]) -> Callable[[Any], Any]:
            def g(x: Any) -> Any:
                vals = f(*(x[i] for i in range(x.shape[-1])))
                return jnp.stack(
                    [jnp.asarray(v, dtype=x.dtype) * jnp.ones_like(x[0]) for v in vals]
                )

            return g

        self.functions = {k: packed(_rebind(ns[f"{k}_1"], ns)) for k in self.kernel_names}
        self._jit = {k: jax.jit(jax.vmap(f)) for k, f in self.functions.items()}
        self._one = {k: jax.jit(f) for k, f in self.functions.items()}

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
        B = out.shape[0]
        res = self._jit[name](_pack_batch(q, qd, u, p, t, B))
        out[...] = np.asarray(res, dtype=np.float64).reshape(out.shape)

    def single_functions(self) -> dict[str, Callable[..., Any]]:
        def make(k: str) -> Callable[..., Any]:
            one, shape = self._one[k], self.shapes[k]
            return lambda *x: np.asarray(one(np.array(x, dtype=np.float64))).reshape(shape)[()]

        return {k: make(k) for k in self.kernel_names}


class JaxBackend(Backend):
    """The generated scalar code traced by JAX (``pip install 'lagdyn[jax]'``); float64 enabled."""

    name = "jax"

    def build(
        self, spec: SpecFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        _no_options(self.name, options)
        try:
            import jax
            import jax.numpy as jnp
        except ImportError as exc:
            raise BackendUnavailableError(
                "backend 'jax' needs jax: pip install 'lagdyn[jax]'"
            ) from exc
        jax.config.update("jax_enable_x64", True)
        source, module = python_module(spec, key, cache)
        return JaxKernels(source, module, jax, jnp)


register("numba", NumbaBackend)
register("jax", JaxBackend)
