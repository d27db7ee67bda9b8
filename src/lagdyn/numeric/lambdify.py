"""``lambdify``: from a LagrangianSystem to a NumericModel."""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Literal

import lagdyn.codegen.build as _build
import lagdyn.numeric.backends as backends

from ..codegen import Binding, Program, system_program
from ..codegen.build import DERIVATIVES_VERSION, check_route, derivative_program
from ..codegen.cache import DiskCache, cache_key
from ..errors import LagdynError
from .model import DerivativeModel, NumericModel

__all__ = ["derivative_model", "derivative_plan", "lambdify", "plan_program"]

log = logging.getLogger("lagdyn")

BackendName = Literal["numpy", "c", "numba", "jax"]

#: The last programs built in this process (the kernels of ``lambdify`` and the derivative
#: kernels), by their backend-independent key: a model lambdified for a second backend (or
#: again without the disk cache) reuses its program instead of deriving and CSE-ing it
#: again. Programs are not changed after they are built.
_PROGRAMS: OrderedDict[str, Program] = OrderedDict()
_PROGRAMS_KEPT = 4


def _remembered(key: str, make: Callable[[], Program]) -> Callable[[], Program]:
    """``make``, its program kept in :data:`_PROGRAMS` under ``key``."""

    # the unrolled-solve limit is module state a caller (or a test) may change: part of the
    # memo's key (the disk cache's key does not hold it: change it with cache=False)
    key = f"{key}|unrolled={_build.MAX_UNROLLED}"

    def program() -> Program:
        prog = _PROGRAMS.get(key)
        if prog is None:
            prog = make()
            _PROGRAMS[key] = prog
            while len(_PROGRAMS) > _PROGRAMS_KEPT:
                _PROGRAMS.popitem(last=False)
        else:
            _PROGRAMS.move_to_end(key)
        return prog

    return program


RouteName = Literal["recursive", "closed"]


def lambdify(
    system: Any,
    params: Mapping[Any, float] | None = None,
    *,
    backend: BackendName | str = "numpy",
    route: RouteName | None = None,
    forward: str | None = None,
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
        never bound implicitly. Every value must be a finite real number that keeps its
        symbol's assumptions (``positive``, ``nonnegative``, ``integer``, ...: the proofs
        used them; :func:`lagdyn.codegen.binding.check_value`). Names that are not
        parameters of the system are ignored with one :class:`~lagdyn.LagdynWarning`
        naming them (see :class:`lagdyn.codegen.Binding`) unless ``strict=True``.
    backend : {"numpy", "c", "numba", "jax"}
        Where the kernels run (see :mod:`lagdyn.numeric.backends`).
    route : {"recursive", "closed"}, optional
        How the kernels are generated. ``"closed"``: from the closed-form M, C, g (every
        system). ``"recursive"``: from the recursive programs of a robot chain (RNEA,
        CRBA, recursive Coriolis; :mod:`lagdyn.recursive.route`), no closed form derived.
        Default ``None``: the system decides (robot chains with 4 or more joints take the
        recursive route, everything else the closed one).
    forward : {"aba", "crba"}, optional
        The forward-dynamics algorithm of the recursive route of robot chains:
        Featherstone's articulated-body algorithm or CRBA + LDLᵀ (default by size: CRBA
        below 10 joints, ABA from 10, as measured; :func:`lagdyn.recursive.program.choose_forward`).
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
        A value in ``params`` that is not a finite real number or breaks its symbol's
        assumptions (the message names the parameter, the value and the assumption), or,
        with ``strict=True``, a name that is not a parameter of ``system``; an unknown
        ``route``, or ``route="recursive"`` for a system that is not a robot chain.
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
    >>> ld.numeric.lambdify(sys, {"m1": -1.0})
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: params[m1] = -1.0 breaks the assumption that m1 is positive ...
    """
    binding = Binding(system.parameters, params, strict=strict)
    be = backends.get(backend)
    chosen, key, program = plan_program(system, binding, be.name, route, forward)
    assert key is not None  # plan_program is keyed by default
    # the program does not depend on the backend: the same key for every backend
    memo_key = plan_program(system, binding, "", chosen, forward)[1]
    assert memo_key is not None
    program = _remembered(memo_key, program)

    disk = DiskCache(cache_dir) if cache else None
    # a cache hit needs no program: entries only exist for bindings that passed its checks
    kernels = be.build(program, key, disk, **options)

    def derivatives() -> DerivativeModel:
        dkey, make = derivative_plan(system, binding, be.name, chosen)
        make = _remembered(derivative_plan(system, binding, "", chosen)[0], make)
        dkernels = be.build(make, dkey, disk, **options)
        return DerivativeModel(
            system, dkernels, binding=binding, backend=be.name, key=dkey, route=chosen
        )

    return NumericModel(
        system,
        kernels,
        binding=binding,
        backend=be.name,
        key=key,
        route=chosen,
        derivatives=derivatives,
    )


def derivative_model(
    system: Any,
    params: Mapping[Any, float] | None = None,
    *,
    backend: BackendName | str = "numpy",
    route: RouteName | None = None,
    cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    strict: bool = False,
    **options: Any,
) -> DerivativeModel:
    """Only the derivative kernels of ``system`` (what :func:`lambdify` builds on first use).

    For controllers and linearizations that need nothing else: the model's own kernels
    (M, C, the dynamics) are not generated. Arguments as :func:`lambdify`; the route
    defaults to the one ``lambdify`` would take (robot chains: recursive from 4 joints).

    Returns
    -------
    DerivativeModel

    Raises
    ------
    LagdynError
        As :func:`lambdify`.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> arm = ld.zoo.get("planar_3r")
    >>> der = ld.numeric.derivative_model(arm, arm.defaults)
    >>> dq, dv, Minv = der.forward_dynamics_derivatives(np.zeros(3), np.zeros(3))
    >>> der.route, Minv.shape
    ('closed', (3, 3))
    """
    binding = Binding(system.parameters, params, strict=strict)
    be = backends.get(backend)
    check_route(route)
    if getattr(system, "numeric_plan", None) is not None:
        from ..recursive.route import choose_route

        chosen = choose_route(system, route)
    elif route == "recursive":
        raise LagdynError(
            f"route='recursive' needs a robot chain (lagdyn.robot); a "
            f"{type(system).__name__} has only the closed-form route: leave it out"
        )
    else:
        chosen = "closed"
    key, make = derivative_plan(system, binding, be.name, chosen)
    make = _remembered(derivative_plan(system, binding, "", chosen)[0], make)
    disk = DiskCache(cache_dir) if cache else None
    kernels = be.build(make, key, disk, **options)
    return DerivativeModel(system, kernels, binding=binding, backend=be.name, key=key, route=chosen)


def derivative_plan(
    system: Any, binding: Binding, backend: str, route: str
) -> tuple[str, Callable[[], Program]]:
    """``(cache key, program factory)`` of the derivative kernels on ``route``.

    The recursive route differentiates the recursive programs of a robot chain
    (:func:`lagdyn.recursive.derivatives.derivative_program`); the closed route the closed
    form (:func:`lagdyn.codegen.build.derivative_program`).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> dp = ld.zoo.double_pendulum()
    >>> key, make = derivative_plan(dp, Binding(dp.parameters, dp.defaults), "numpy", "closed")
    >>> sorted(make().kernels)
    ['forward_dynamics_derivatives', 'inverse_dynamics_derivatives']
    """
    if route == "recursive":
        from ..recursive.derivatives import derivative_plan as recursive_plan

        return recursive_plan(system, binding, backend)
    parts = {"M": system.M, "b": system.b, "U": [system.U], "Q": system.forces}
    kind = f"system-derivatives-{DERIVATIVES_VERSION}"
    key = cache_key(system, kind, parts, binding.key(), backend)
    return key, partial(derivative_program, system, binding)


def plan_program(
    system: Any,
    binding: Binding,
    backend: str,
    route: str | None = None,
    forward: str | None = None,
    *,
    keyed: bool = True,
) -> tuple[str, str | None, Callable[[], Program]]:
    """``(route, cache key, program factory)``: what ``lambdify`` generates for ``system``.

    The one place where a route is chosen: robot chains plan through their
    ``numeric_plan`` (:func:`lagdyn.recursive.route.plan`: recursive from 4 joints on),
    every other system has the closed-form route of :func:`lagdyn.codegen.system_program`.
    ``keyed=False`` skips the cache key (``None``) for callers that do not cache.

    Raises
    ------
    LagdynError
        An unknown route, or ``route="recursive"``/``forward=`` for a system that is not a
        robot chain.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> arm = ld.zoo.get("ur5")
    >>> plan_program(arm, Binding(arm.parameters, arm.defaults), "numpy", keyed=False)[0]
    'recursive'
    >>> dp = ld.zoo.double_pendulum()
    >>> plan_program(dp, Binding(dp.parameters), "numpy", route="recursive")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: route='recursive' and forward= need a robot chain (lagdyn.robot); ...
    """
    check_route(route)
    planner = getattr(system, "numeric_plan", None)
    if planner is not None:  # systems with more than one route (robot chains)
        chosen, key, program = planner(binding, backend, route, forward)
        return chosen, key, program
    if route == "recursive" or forward is not None:
        raise LagdynError(
            f"route='recursive' and forward= need a robot chain (lagdyn.robot); a "
            f"{type(system).__name__} has only the closed-form route: leave them out"
        )
    key = None
    if keyed:
        parts = {"M": system.M, "b": system.b, "U": [system.U], "Q": system.forces}
        key = cache_key(system, "system", parts, binding.key(), backend)
    return "closed", key, partial(system_program, system, binding)
