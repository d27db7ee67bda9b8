"""``lambdify``: from a LagrangianSystem to a NumericModel."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import sympy as sp

import lagdyn.numeric._codegen as _codegen
import lagdyn.numeric.backends as backends

from ..errors import LagdynError
from ._cache import DiskCache
from .model import NumericModel

__all__ = ["lambdify", "split_parameters"]

log = logging.getLogger("lagdyn")

BackendName = Literal["numpy", "c", "numba", "jax"]


def lambdify(
    system: Any,
    params: Mapping[Any, float] | None = None,
    *,
    backend: BackendName | str = "numpy",
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    **options: Any,
) -> NumericModel:
    """Generate fast numeric functions of ``system``.

    Parameters
    ----------
    system : LagrangianSystem
    params : mapping of sympy.Symbol (or name) to float, optional
        Parameter values to bind now (folded into the generated code). Parameters
        not given stay free: pass them per call with ``params=`` (see
        :attr:`NumericModel.free_parameters`).
    backend : {"numpy", "c", "numba", "jax"}
        Where the kernels run (see :mod:`lagdyn.numeric.backends`).
    cache : bool
        Keep generated modules on disk, keyed by a content hash (default True).
    cache_dir : path-like, optional
        Cache location; default ``$LAGDYN_CACHE_DIR`` or ``~/.cache/lagdyn``.
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
        ``params`` naming something that is not a parameter of ``system``.
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
    bound, free = split_parameters(system.parameters, params)
    be = backends.get(backend)
    key = _codegen.cache_key(system, bound, free, be.name)
    disk = DiskCache(cache_dir) if cache else None

    def spec() -> _codegen.Spec:
        return _codegen.build_spec(system, bound, free)

    kernels = be.build(spec, key, disk, **options)
    return NumericModel(system, kernels, bound=bound, free=free, backend=be.name, key=key)


def split_parameters(
    parameters: Sequence[sp.Symbol], params: Mapping[Any, float] | None
) -> tuple[dict[sp.Symbol, float], list[sp.Symbol]]:
    """``(bound, free)``: the values in ``params`` checked against ``parameters``.

    Keys are symbols or names; a key that is not a parameter, or a value that is not
    a real number, raises :class:`~lagdyn.LagdynError` (every unknown name at once).
    Both results follow the order of ``parameters``.

    Examples
    --------
    >>> import sympy as sp
    >>> a, b = sp.symbols("a b")
    >>> split_parameters((a, b), {"b": 2})
    ({b: 2.0}, [a])
    """
    by_name = {s.name: s for s in parameters}
    bound: dict[sp.Symbol, float] = {}
    unknown = []
    for key, value in (params or {}).items():
        name = key.name if isinstance(key, sp.Symbol) else str(key)
        if name not in by_name:
            unknown.append(name)
            continue
        try:
            bound[by_name[name]] = float(value)
        except (TypeError, ValueError):
            raise LagdynError(f"params[{name}] must be a real number, got {value!r}") from None
    if unknown:
        raise LagdynError(
            f"params: {', '.join(sorted(unknown))} are not parameters of the system "
            f"(its parameters: {', '.join(by_name) or 'none'})"
        )
    bound = {s: bound[s] for s in parameters if s in bound}
    free = [s for s in parameters if s not in bound]
    return bound, free
