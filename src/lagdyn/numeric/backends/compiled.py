"""The C backend: the module of :mod:`lagdyn.codegen.c`, compiled through cffi (API mode).

Compiles run in a locked build directory of the cache (:meth:`DiskCache.build_dir`,
swept after a killed compile); the compiled module, its C source and the manifest
(last) are then published atomically, and a cached entry is only ever replaced, never
deleted. A failure that is not the compiler's (a full disk, a build directory removed
by another process, an unwritable file) is a :class:`~lagdyn.LagdynError` naming it.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.machinery
import importlib.util
import itertools
import logging
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ...codegen import c as ccode
from ...codegen.cache import DISK_FULL_ERRNOS, DiskCache, build_directory, seal, sha256_bytes
from ...errors import BackendUnavailableError, LagdynError
from .base import Backend, Kernels, ProgramFactory, no_options

__all__ = ["CBackend", "CKernels"]

log = logging.getLogger("lagdyn")

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
        try:
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
        except OSError as exc:  # the temporary directory failed, not the compiler
            raise _not_the_compiler(exc, Path(tempfile.gettempdir())) or LagdynError(
                str(exc)
            ) from exc

    if not works(base, []):
        failed = RuntimeError("the test program did not build")
        raise _not_the_compiler(failed, Path(tempfile.gettempdir())) or BackendUnavailableError(
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
    """Kernels compiled from C99 through cffi (API mode).

    Examples
    --------
    >>> from lagdyn.numeric.backends import CKernels, Kernels
    >>> issubclass(CKernels, Kernels)
    True
    """

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
        x: np.ndarray,
        p: np.ndarray,
        t: np.ndarray,
        out: np.ndarray,
    ) -> None:
        ffi = self.ffi
        B = out.shape[0]
        if B == 0:
            return

        def buf(a: np.ndarray) -> tuple[Any, int]:
            if a.size == 0:
                return ffi.NULL, 0
            return ffi.from_buffer("double[]", a), (a.shape[1] if a.shape[0] != 1 else 0)

        if q.shape[0] != B:  # the C loop reads q and qd densely
            q = np.ascontiguousarray(np.broadcast_to(q, (B, q.shape[1])))
        if qd.shape[0] != B:
            qd = np.ascontiguousarray(np.broadcast_to(qd, (B, qd.shape[1])))
        (bq, _), (bqd, _), (bu, su), (bp, spp), (bt, st) = map(buf, (q, qd, x, p, t))
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

    @property
    def soa_names(self) -> frozenset[str]:
        """The kernels with a struct-of-arrays entry (the backend's ``soa`` option)."""
        return frozenset(k for k in self.kernel_names if hasattr(self.lib, f"ld_{k}_soa"))

    def batch_soa(
        self, name: str, q: np.ndarray, qd: np.ndarray, x: np.ndarray, out: np.ndarray
    ) -> None:
        """The kernel's struct-of-arrays entry (:func:`lagdyn.codegen.c.soa_functions`):
        the states of ``q``, ``qd``, ``x`` (B, n) into ``out`` (B, size), all C-contiguous
        float64, one state a row."""
        B = out.shape[0]
        for a in (q, qd, x, out):
            if a.dtype != np.float64 or not a.flags.c_contiguous or a.shape[0] != B:
                raise LagdynError(
                    f"batch_soa: arrays must be C-contiguous float64 with {B} rows, got "
                    f"{a.dtype} {a.shape}"
                )
        ffi = self.ffi
        getattr(self.lib, f"ld_{name}_soa")(
            B,
            ffi.from_buffer("double[]", q),
            ffi.from_buffer("double[]", qd),
            ffi.from_buffer("double[]", x),
            ffi.from_buffer("double[]", out, require_writable=True),
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


def _compile_module(
    modname: str,
    cdef: str,
    source: str,
    cflags: list[str],
    lflags: list[str],
    tmp: Path,
    *,
    what: str,
    hint: str = "",
) -> tuple[Path, bytes, float]:
    """Compile the cffi (API mode) extension ``modname`` from sealed C ``source`` in ``tmp``.

    Returns the built file, its bytes and the seconds the compile took. The module links
    libm and numpy's headers; its METH_FASTCALL entry points use numpy's C API, so it is not
    limited-API. A failure that is not the compiler's raises what :func:`_not_the_compiler`
    names; any other raises :class:`BackendUnavailableError` ``"{what} failed ({exc}){hint}"``.
    """
    import cffi

    ffi = cffi.FFI()
    ffi.cdef(cdef)
    ffi.set_source(
        modname,
        source,
        extra_compile_args=cflags,
        extra_link_args=lflags,
        libraries=["m"],
        include_dirs=[np.get_include()],
        define_macros=[("_CFFI_NO_LIMITED_API", None)],
        py_limited_api=False,
    )
    t0 = time.perf_counter()
    try:
        built = Path(ffi.compile(tmpdir=str(tmp), verbose=False))
        data = built.read_bytes()
    except Exception as exc:  # distutils/setuptools raise assorted errors
        raise _not_the_compiler(exc, tmp) or BackendUnavailableError(
            f"{what} failed ({exc}){hint}"
        ) from exc
    return built, data, time.perf_counter() - t0


class CBackend(Backend):
    """C99 printed by :mod:`lagdyn.codegen.c`, compiled with cffi (``pip install 'lagdyn[fast]'``).

    Options
    -------
    threads : int, optional
        OpenMP threads for batched calls. Default 1: machines running other jobs
        lose more to spin-waiting threads than they gain; ask for ``threads=2`` (or
        ``0`` for OpenMP's default, all cores or ``OMP_NUM_THREADS``) on an idle
        machine. Batches under 16384 states always run on one thread.
    soa : tuple of str, optional
        Kernels that also get a struct-of-arrays batch entry (opt-in, see
        :func:`lagdyn.codegen.c.soa_functions`), called by :meth:`CKernels.batch_soa`;
        ignored without vector ``sin``/``cos`` (libmvec), where it would be slower.

    Examples
    --------
    >>> from lagdyn.numeric import backends
    >>> backends.get("c").name
    'c'
    """

    name = "c"

    def build(
        self, program: ProgramFactory, key: str, cache: DiskCache | None, **options: Any
    ) -> Kernels:
        threads = options.pop("threads", 1)
        soa = tuple(options.pop("soa", ()))
        no_options(self.name, options)
        try:
            import cffi  # noqa: F401  (missing cffi fails early, before the cache)
        except ImportError as exc:
            raise BackendUnavailableError(f"backend 'c' needs cffi: {_INSTALL_FAST}") from exc
        nthreads = int(threads)  # 0: OpenMP's default (all cores or OMP_NUM_THREADS)
        if nthreads < 0:
            raise LagdynError(f"threads must be ≥ 0, got {threads!r}")
        fingerprint = f"{_toolchain_fingerprint()}|c-runtime-{ccode.RUNTIME_VERSION}"
        if soa:
            fingerprint += f"|soa-{ccode.SOA_VERSION}-{ccode.SOA_LANES}:{','.join(soa)}"
        key = hashlib.sha256(f"{key}|{fingerprint}".encode()).hexdigest()
        modname = f"_lagdyn_c_{key[:24]}"
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        if cache is not None:
            hit = _load_cached(cache, key, modname, suffix)
            if hit is not None:
                return CKernels(hit[0], hit[1], nthreads)
        cflags, lflags, simd = _probe_flags()
        if not simd:  # no vector sin/cos (libmvec): the block loop is slower than the row loop
            soa = ()
        body, cdef = ccode.runtime_source(program(), key, simd=simd, soa=soa)
        source = seal(body, "//")
        with cache.build_dir() if cache is not None else build_directory() as tmp:
            built, data, seconds = _compile_module(
                modname,
                cdef,
                source,
                cflags,
                lflags,
                tmp,
                what="backend 'c': compiling the generated module",
                hint=f"; is a C compiler installed? {_INSTALL_FAST}",
            )
            log.info("lagdyn: compiled %s in %.2f s", modname, seconds)
            if cache is not None:
                so_path = cache.store_bytes(cache.path(key, suffix), data)
                if so_path is not None:
                    cache.store_text(key, ".c", body, "//")
                    manifest = (
                        f"// lagdyn-key: {key}\nmodule: {modname}\n"
                        f"so-sha256: {sha256_bytes(data)}\n"
                    )
                    cache.store_text(key, ".c.manifest", manifest, "//")  # last: publishes
            try:
                module = _load_extension(modname, built)
            except (OSError, ImportError) as exc:
                problem = _not_the_compiler(exc, tmp)
                if problem is None:
                    raise
                raise problem from exc
        return CKernels(source, module, nthreads)


#: A compile that fails with less free space than this on the build directory's disk is
#: reported as a full disk (the compiler's own message is not captured).
LOW_DISK_BYTES = 64 * 2**20


def _not_the_compiler(exc: BaseException, tmp: Path) -> LagdynError | None:
    """The failure named by its real cause when it is not the compiler's, else ``None``.

    A build directory that vanished (swept or deleted by another process), a full disk
    or quota, a file that cannot be written: none of these is a compiler problem, and
    "is a C compiler installed?" would send the user the wrong way.
    """
    if not tmp.is_dir():
        return LagdynError(
            f"backend 'c': the build directory {tmp} disappeared during the compile "
            "(removed by another process or a temporary-file cleaner); the compiler and "
            "the model are not at fault — run again"
        )
    if isinstance(exc, OSError):
        if exc.errno in DISK_FULL_ERRNOS:
            return LagdynError(
                f"backend 'c': no space left on the disk of the build directory {tmp} "
                f"({exc}); free some space, or point LAGDYN_CACHE_DIR (or TMPDIR with "
                "cache=False) at another disk, and run again"
            )
        return LagdynError(
            f"backend 'c': cannot write or read the build files in {tmp} ({exc}); "
            "the compiler is not at fault — check that directory and its disk"
        )
    try:
        free = shutil.disk_usage(tmp).free
    except OSError:
        return None
    if free < LOW_DISK_BYTES:
        return LagdynError(
            f"backend 'c': the compile failed with only {free} bytes free on the disk of "
            f"the build directory {tmp} — the disk is (nearly) full ({exc}); free some "
            "space, or point LAGDYN_CACHE_DIR (or TMPDIR with cache=False) at another "
            "disk, and run again"
        )
    return None


def _load_cached(cache: DiskCache, key: str, modname: str, suffix: str) -> tuple[str, Any] | None:
    """A published entry (manifest present and every hash verifying), else ``None``.

    Nothing is deleted: an entry without its manifest may be being written by another
    process; one that does not verify is rebuilt and published over.
    """
    manifest_path = cache.path(key, ".c.manifest")
    if cache.read_bytes(manifest_path) is None:
        return None
    manifest = cache.load_text(key, ".c.manifest", "//")
    body = cache.load_text(key, ".c", "//")
    fields = dict(line.split(": ", 1) for line in (manifest or "").splitlines()[1:] if ": " in line)
    so_path = cache.path(key, suffix)
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
        return None
    return seal(body, "//"), _load_extension(modname, so_path)
