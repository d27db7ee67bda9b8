"""``lambdify``: from a LagrangianSystem to a NumericModel."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any, Literal

import lagdyn.numeric.backends as backends

from ..codegen import Binding, Program, system_program
from ..codegen.cache import DiskCache, cache_key
from .model import NumericModel

__all__ = ["lambdify"]

log = logging.getLogger("lagdyn")

BackendName = Literal["numpy", "c", "numba", "jax"]


def lambdify(
    system: Any,
    params: Mapping[Any, float] | None = None,
    *,
    backend: BackendName | str = "numpy",
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    strict: bool = False,
    **options: Any,
) -> NumericModel:
    """Generate fast numeric functions of ``system``.

    Parameters
    ----------
    system : LagrangianSystem
    params : mapping of sympy.Symbol (or name) to float, optional
        Parameter values to bind now (folded into the generated code). Parameters
        not given stay free: pass them per call with ``params=`` (see
        :attr:`NumericModel.free_parameters`). Defaults (``system.defaults``) are
        never bound implicitly. Names that are not parameters of the system are
        ignored (see :class:`lagdyn.codegen.Binding`) unless ``strict=True``.
    backend : {"numpy", "c", "numba", "jax"}
        Where the kernels run (see :mod:`lagdyn.numeric.backends`).
    cache : bool
        Keep generated modules on disk, keyed by a content hash (default True).
    cache_dir : path-like, optional
        Cache location; default ``$LAGDYN_CACHE_DIR`` or ``~/.cache/lagdyn``.
    strict : bool
        Reject names in ``params`` that are not parameters of the system.
    **options
        Backend options: ``threads=`` for ``backend="c"`` and ``"numba"`` — batched
        calls run on **one thread by default** (shared machines lose more to waiting
        threads than they gain); pass ``threads=2`` (``0``: all cores) to parallelize.

    Returns
    -------
    NumericModel

    Raises
    ------
    LagdynError
        A value in ``params`` that is not a finite real number (or, with
        ``strict=True``, a name that is not a parameter of ``system``).
    SingularMassMatrixError
        Bound values that make M singular (e.g. every mass zero); the message names them.
    BackendUnavailableError
        The backend's optional dependency or compiler is missing.

    Examples
    --------
    >>> import lagdyn as ld
    >>> sys = ld.zoo.double_pendulum()
    >>> num = ld.numeric.lambdify(sys, {"m1": 1.0, "m2": 1.0, "l1": 1.0, "l2": 1.0})
    >>> num.free_parameters
    (g,)
    >>> num.g([0.5, 0.0], params={"g": 9.81}).round(3)
    array([9.406, 0.   ])
    """
    binding = Binding(system.parameters, params, strict=strict)
    be = backends.get(backend)
    parts = {"M": system.M, "b": system.b, "U": [system.U], "Q": system.forces}
    key = cache_key(system, "system", parts, binding.key(), be.name)
    disk = DiskCache(cache_dir) if cache else None

    def program() -> Program:
        return system_program(system, binding)

    # a cache hit needs no program: entries only exist for bindings that passed its checks
    kernels = be.build(program, key, disk, **options)
    return NumericModel(system, kernels, binding=binding, backend=be.name, key=key)
