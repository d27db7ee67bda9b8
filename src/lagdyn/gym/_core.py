"""The engine behind :mod:`lagdyn.gym`: one batched transition of B copies of a model.

Nothing here imports gymnasium: the environments of :mod:`lagdyn.gym.env` wrap a
:class:`Core`, which owns

- the model (:func:`resolve`: a zoo name, a ``LagrangianSystem`` or ``RobotSystem`` with its
  parameter values, a ``NumericModel``, or any object with ``n`` and a batched
  ``forward_dynamics``);
- the step ``x (B, 2n), τ (B, n), t (B, 1) → x' (B, 2n)`` (:func:`build_stepper`): for a model
  that comes from a system, one generated kernel ``step`` that inlines the integrator's stages
  of the model's own forward dynamics (:func:`step_program`, printed and compiled by the one
  code generator and cached like every other kernel), so a step of all B environments is one
  call of the batched compiled kernel; otherwise the integrator's stages call the model's
  batched ``forward_dynamics``;
- the action map (Box or Discrete actions → τ on the actuated coordinates), the observation
  map, the reset distribution, the post-step state rules (angle wrapping, velocity limits)
  and the reward and termination callables, all batched over B.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from ..errors import BackendUnavailableError, LagdynError, ShapeError
from ..symbols import coordinate_labels

__all__: list[str] = []  # internal; see lagdyn.gym

log = logging.getLogger("lagdyn")

INSTALL = "pip install 'lagdyn[rl]'"
#: The integrators of the environments (``integrator=``).
INTEGRATORS = ("rk4", "euler", "semi-implicit euler", "midpoint")
#: Bumped whenever the generated step kernel changes shape (part of its cache key).
STEP_VERSION = "1"
#: The built-in observations (``observation=``).
OBSERVATIONS = ("state", "wrapped", "sincos")
TWO_PI = 2.0 * math.pi
#: Set (to True) on the callables of the ready-made tasks, whose results are known to be
#: fresh arrays of the right shape and dtype (float64 rewards, finite for finite states;
#: boolean terminations; float64 resets of shape (size, 2n)): the environments then skip the
#: defensive copies and checks they apply to user callables.
FRESH = "_lagdyn_fresh"
#: Set on a task's reward that is ``(on_terminal, otherwise)`` by the step's termination
#: (the acrobot's 0 / −1): the environments then take it from the termination they compute
#: anyway instead of evaluating the termination twice.
BY_TERMINATION = "_lagdyn_by_termination"
#: Set on a task's (:data:`FRESH`) observation, termination or reward: the same function as
#: sympy expressions, ``f(y) -> [exprs]`` / ``f(y) -> relation`` / ``f(z, u, y) -> expr``
#: (``z``, ``y`` the state symbols before and after the step, ``u`` the applied τ; a result
#: may also be ``(assignments, expr)``), from which the vector environment generates its
#: whole step in C (:mod:`lagdyn.gym._vstep`).
EXPR = "_lagdyn_expr"
#: Set on a reset that draws ``np.random.Generator.uniform(low, high)`` per state entry:
#: ``(low (2n,), high (2n,), float32, shift (2n,))`` — each draw rounded to float32 when
#: ``float32``, then ``shift`` subtracted.
UNIFORM = "_lagdyn_uniform"


def fresh(fn: Any) -> bool:
    """Whether ``fn`` is marked :data:`FRESH`."""
    return getattr(fn, FRESH, False) is True


def import_gymnasium() -> Any:
    """The ``gymnasium`` module (1.0 or newer), or the install hint as an error.

    Raises
    ------
    BackendUnavailableError
        gymnasium is missing or older than 1.0 (no ``AutoresetMode``).
    """
    try:
        import gymnasium
        import gymnasium.vector
    except ImportError as exc:
        raise BackendUnavailableError(f"lagdyn.gym needs gymnasium ({exc}): {INSTALL}") from exc
    if not hasattr(gymnasium.vector, "AutoresetMode"):
        version = getattr(gymnasium, "__version__", "unknown")
        raise BackendUnavailableError(
            f"lagdyn.gym needs gymnasium 1.0 or newer (found {version}): {INSTALL}"
        )
    return gymnasium


# --------------------------------------------------------------------------- the model
@dataclass
class Resolved:
    """A model made ready for stepping.

    ``system`` is the symbolic system when known (fused step kernel, drawing, angles);
    ``numeric`` a numeric model when one was given; ``values`` every parameter value known
    (by name, for the drawing); ``binding`` the parameters as the generated code binds them;
    ``free`` the values of the binding's free parameters, ``(1, n_free)``.
    """

    n: int
    names: tuple[str, ...]
    system: Any = None
    numeric: Any = None
    binding: Any = None
    free: np.ndarray = field(default_factory=lambda: np.zeros((1, 0)))
    values: dict[str, float] = field(default_factory=dict)
    route: str | None = None
    backend: str | None = None  # the numeric model's own backend

    @property
    def time_dependent(self) -> bool:
        """Whether the generalized forces read the time ``t`` (True when there is no system
        to tell: the time is then passed to every step)."""
        from ..symbols import t

        system = self.system
        forces = getattr(system, "forces", None)
        if forces is None:
            return True
        return bool(sp.Matrix(forces).has(t))


def _is_numeric_model(model: Any) -> bool:
    from ..numeric.model import NumericModel

    return isinstance(model, NumericModel)


def resolve(model: Any, params: Mapping[Any, Any] | None) -> Resolved:
    """The model behind ``model`` (see :func:`lagdyn.gym.make`) with its parameter values.

    Raises
    ------
    LagdynError
        An unknown zoo name, a constrained system, an object that is no model, a parameter
        without a value, an unknown parameter name, or a value that breaks its symbol's
        assumptions.
    """
    from ..codegen import Binding
    from ..constraints import ConstrainedSystem

    if params is not None and not isinstance(params, Mapping):
        raise LagdynError(
            f"params must be a mapping of parameter (symbol or name) to value, "
            f"got {type(params).__name__}"
        )
    if isinstance(model, str):
        from ..zoo import get

        model = get(model)
    if isinstance(model, ConstrainedSystem) or hasattr(model, "constraint_forces"):
        raise LagdynError(
            "lagdyn.gym steps unconstrained models (M q̈ + h = τ); a constrained system "
            "needs its constraints solved at every step: describe the mechanism in independent "
            "coordinates (ld.change_coordinates) and pass that system"
        )
    if _is_numeric_model(model):
        return _resolve_numeric(model, params)
    if hasattr(model, "lambdify") and hasattr(model, "parameters") and hasattr(model, "q"):
        given = {_name(k): v for k, v in dict(params or {}).items()}
        known = {s.name for s in model.parameters}
        unknown = sorted(set(given) - known)
        if unknown:
            raise LagdynError(
                f"params: {', '.join(unknown)} are not parameters of the model "
                f"(its parameters: {', '.join(sorted(known)) or 'none'})"
            )
        values = {**{_name(k): v for k, v in dict(model.defaults or {}).items()}, **given}
        missing = [s.name for s in model.parameters if s.name not in values]
        if missing:
            raise LagdynError(
                f"the model's parameters {', '.join(missing)} have no value (no default): "
                f"pass them in params={{{', '.join(repr(m) + ': ...' for m in missing)}}}"
            )
        binding = Binding(model.parameters, values, strict=True)
        return Resolved(
            n=int(model.n),
            names=tuple(coordinate_labels(model.q)),
            system=model,
            binding=binding,
            values={s.name: float(v) for s, v in binding.bound.items()},
        )
    if hasattr(model, "forward_dynamics") and hasattr(model, "n"):
        if params:
            raise LagdynError(
                f"params= applies to systems and NumericModels; this "
                f"{type(model).__name__} takes its parameters itself"
            )
        n = _positive_int("the model's n", model.n)
        q = getattr(model, "q", None)
        names = (
            tuple(coordinate_labels(q))
            if q is not None and len(q) == n
            else tuple(f"q{i}" for i in range(n))
        )
        return Resolved(n=n, names=names, numeric=model)
    raise LagdynError(
        f"lagdyn.gym needs a zoo name, a LagrangianSystem (or RobotSystem), a NumericModel or "
        f"a model with n and a batched forward_dynamics(q, qd, tau); got {type(model).__name__}"
    )


def _resolve_numeric(num: Any, params: Mapping[Any, Any] | None) -> Resolved:
    from ..codegen import Binding

    binding = Binding(num.parameters, num.bound)
    free = np.zeros((1, 0))
    given = dict(params or {})
    bound_names = {s.name for s in num.bound}
    rebound = sorted(_name(k) for k in given if _name(k) in bound_names)
    if rebound:
        raise LagdynError(
            f"params: {', '.join(rebound)} were bound when the model was lambdified; "
            "lambdify it again with the new values (or leave them free to pass them here)"
        )
    if num.free_parameters:
        arr = binding.values(given or None)
        if arr.shape != (len(num.free_parameters),):
            raise ShapeError(
                f"params values must be numbers, one per free parameter; got shape {arr.shape}"
            )
        binding.check_list(arr.tolist())
        free = arr.reshape(1, -1).astype(np.float64)
    elif given:
        unknown = sorted(_name(k) for k in given)
        raise LagdynError(
            f"params: {', '.join(unknown)} are not free parameters of this NumericModel "
            "(it has none)"
        )
    values = {s.name: float(v) for s, v in num.bound.items()}
    values.update({s.name: float(v) for s, v in zip(num.free_parameters, free[0])})
    return Resolved(
        n=int(num.n),
        names=tuple(coordinate_labels(num.q)),
        system=getattr(num, "system", None),
        numeric=num,
        binding=binding,
        free=free,
        values=values,
        route=getattr(num, "route", None),
        backend=num.backend,
    )


def _name(key: Any) -> str:
    return key.name if isinstance(key, sp.Symbol) else str(key)


def _positive_int(label: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise LagdynError(f"{label} must be a positive integer, got {value!r}")
    return int(value)


def positive_number(label: str, value: Any) -> float:
    """``value`` as a float if it is a finite positive number, else a named error."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not math.isfinite(float(value)) or float(value) <= 0:
        raise LagdynError(f"{label} must be a finite positive number, got {value!r}")
    return float(value)


def coordinate_indices(label: str, spec: Any, names: Sequence[str]) -> tuple[int, ...]:
    """Indices of coordinates given by index or name (``actuated=``, ``angles=``)."""
    n = len(names)
    if isinstance(spec, (str, int, np.integer)):
        spec = [spec]
    try:
        items = list(spec)
    except TypeError:
        raise LagdynError(
            f"{label} must be a sequence of coordinate indices or names, got {spec!r}"
        ) from None
    out: list[int] = []
    for item in items:
        if isinstance(item, str):
            if item not in names:
                raise LagdynError(
                    f"{label}: {item!r} is not a coordinate; the coordinates are {', '.join(names)}"
                )
            i = names.index(item)
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            i = int(item)
            if not 0 <= i < n:
                raise LagdynError(f"{label}: index {i} is out of range for {n} coordinates")
        else:
            raise LagdynError(f"{label}: {item!r} is neither a coordinate name nor an index")
        if i in out:
            raise LagdynError(f"{label}: coordinate {names[i]!r} is given twice")
        out.append(i)
    return tuple(out)


# --------------------------------------------------------------------------- step kernel
def step_program(
    prog: Any,
    integrator: str,
    wrap: Sequence[int] = (),
    velocity_limits: np.ndarray | None = None,
) -> Any:
    """The program of one kernel ``step``: one integrator step of ``prog``'s forward dynamics.

    The kernel reads the state ``x = (q, q̇)`` as its input vector ``q`` (``2n`` entries, so
    a batch of states ``(B, 2n)`` goes in and out without a copy), ``tau`` (``n``), ``params =
    (*free parameters, dt)`` and ``t``, and returns the next state ``(2n,)``. The stages of the
    integrator inline the ``forward_dynamics`` kernel of ``prog`` (its intermediates renamed
    per stage); τ is held over the step. The arithmetic is that of :func:`lagdyn.simulate`
    (RK4: the classical stages; ``"euler"``: ``q' = q + h q̇``, ``q̇' = q̇ + h q̈``;
    ``"semi-implicit euler"``: ``q̇'`` first, then ``q' = q + h q̇'``). Then the angles
    ``wrap`` are wrapped to [−π, π) and q̇ is clipped to ``±velocity_limits``.

    Raises
    ------
    LookupError
        ``prog`` has no ``forward_dynamics`` kernel (M is solved numerically above
        :data:`lagdyn.codegen.MAX_UNROLLED` coordinates).
    """
    from ..codegen import program

    fd = prog.kernels.get("forward_dynamics")
    if fd is None:
        raise LookupError("no forward_dynamics kernel")
    qs, vs = prog.vector("q"), prog.vector("qd")
    taus, ps = prog.vector("tau"), prog.vector("params")
    t = prog.t
    n = len(qs)
    # the state as one input vector: q_0 … q_{n-1} are the program's own q symbols
    row = tuple(sp.Symbol(f"q_{i}", real=True) for i in range(2 * n))
    if row[:n] != tuple(qs):
        raise LookupError("unexpected code symbols")  # pragma: no cover - codegen changed
    h = sp.Symbol(f"p_{len(ps)}", real=True)
    body: list[tuple[sp.Symbol, sp.Expr]] = []

    def assign(name: str, value: sp.Expr) -> sp.Symbol:
        s = sp.Symbol(name, real=True)
        body.append((s, value))
        return s

    def stage(k: int, q: Sequence[Any], v: Sequence[Any], time: Any) -> list[sp.Symbol]:
        renamed = {s: sp.Symbol(f"s{k}_{s.name}", real=True) for s, _ in fd.body}
        sub = {**dict(zip(qs, q)), **dict(zip(vs, v)), t: time, **renamed}
        for s, e in fd.body:
            body.append((renamed[s], sp.sympify(e).xreplace(sub)))
        return [assign(f"s{k}_a{i}", sp.sympify(e).xreplace(sub)) for i, e in enumerate(fd.outputs)]

    q0, v0 = row[:n], row[n:]
    if integrator == "rk4":
        a1 = stage(1, q0, v0, t)
        hh = assign("rk_hh", h / 2)
        t2 = assign("rk_t2", t + hh)
        q2 = [assign(f"s2_q{i}", q0[i] + hh * v0[i]) for i in range(n)]
        v2 = [assign(f"s2_v{i}", v0[i] + hh * a1[i]) for i in range(n)]
        a2 = stage(2, q2, v2, t2)
        q3 = [assign(f"s3_q{i}", q0[i] + hh * v2[i]) for i in range(n)]
        v3 = [assign(f"s3_v{i}", v0[i] + hh * a2[i]) for i in range(n)]
        a3 = stage(3, q3, v3, t2)
        t4 = assign("rk_t4", t + h)
        q4 = [assign(f"s4_q{i}", q0[i] + h * v3[i]) for i in range(n)]
        v4 = [assign(f"s4_v{i}", v0[i] + h * a3[i]) for i in range(n)]
        a4 = stage(4, q4, v4, t4)
        h6 = assign("rk_h6", h / 6)
        outs = [q0[i] + h6 * (v0[i] + 2 * v2[i] + 2 * v3[i] + v4[i]) for i in range(n)]
        outs += [v0[i] + h6 * (a1[i] + 2 * a2[i] + 2 * a3[i] + a4[i]) for i in range(n)]
    elif integrator == "euler":
        a1 = stage(1, q0, v0, t)
        outs = [q0[i] + h * v0[i] for i in range(n)] + [v0[i] + h * a1[i] for i in range(n)]
    elif integrator == "semi-implicit euler":
        a1 = stage(1, q0, v0, t)
        v1 = [assign(f"e_v{i}", v0[i] + h * a1[i]) for i in range(n)]
        outs = [q0[i] + h * v1[i] for i in range(n)] + list(v1)
    else:  # pragma: no cover - checked by the caller
        raise LagdynError(f"no step kernel for integrator {integrator!r}")
    for i in wrap:
        angle = assign(f"w_q{i}", outs[i])
        outs[i] = angle - 2 * sp.pi * sp.floor((angle + sp.pi) / (2 * sp.pi))
    if velocity_limits is not None:
        for i, limit in enumerate(velocity_limits):
            if math.isfinite(limit):
                rate = assign(f"c_v{i}", outs[n + i])
                bound = sp.Float(float(limit))
                outs[n + i] = sp.Piecewise(
                    (bound, rate > bound), (-bound, rate < -bound), (rate, True)
                )
    out = program(
        body,
        {"step": outs},
        {"q": row, "tau": taus, "params": (*ps, h)},
        t=t,
        parameter_names=(*prog.parameter_names, "dt"),
    )
    out.coordinate_names = prog.coordinate_names
    out.bound = dict(prog.bound)
    return out


def fastest_backend() -> str:
    """``"c"`` when cffi imports (the compiler is probed at the first build), else numpy."""
    import importlib.util

    return "c" if importlib.util.find_spec("cffi") is not None else "numpy"


class FusedStepper:
    """One call of the generated ``step`` kernel per (sub)step, for all B states at once.

    States go in and come out as C-contiguous ``(B, 2n)`` float64 arrays (the kernel's input
    vector is the whole state): no copy, no Python loop over the states.
    """

    fused = True

    def __init__(
        self, kernels: Any, n: int, free: np.ndarray, dt: float, substeps: int, backend: str
    ) -> None:
        self.kernels = kernels
        self.n = n
        self.substeps = substeps
        self.h = dt / substeps
        self.p = np.ascontiguousarray(np.append(free.reshape(-1), self.h).reshape(1, -1))
        self.backend = backend
        self._none: dict[int, np.ndarray] = {}
        self._direct_of: Any = None
        self._direct: Any = None

    def direct(self) -> Any:
        """``(ld_step, ffi, params buffer, threads)`` when the kernels are the C backend's
        (its batched entry point called without the generic wrapper), else None."""
        kernels = self.kernels
        if kernels is not self._direct_of:
            self._direct_of = kernels
            lib, ffi = getattr(kernels, "lib", None), getattr(kernels, "ffi", None)
            fn = getattr(lib, "ld_step", None)
            threads = getattr(kernels, "threads", None)
            self._direct = None
            if ffi is not None and fn is not None and threads is not None:
                self._direct = (fn, ffi, ffi.from_buffer("double[]", self.p), int(threads))
        return self._direct

    def __call__(self, x: np.ndarray, tau: np.ndarray, t: np.ndarray) -> np.ndarray:
        direct = self.direct()
        if direct is not None:  # x, tau, t: C-contiguous float64, B or 1 rows
            fn, ffi, params, threads = direct
            buf = ffi.from_buffer
            size = x.shape[0]
            su = tau.shape[1] if tau.shape[0] != 1 else 0
            bu = buf("double[]", tau)
            for s in range(self.substeps):
                ts = t if s == 0 else t + s * self.h
                out = np.empty(x.shape)
                bx, bt = buf("double[]", x), buf("double[]", ts)
                st = 1 if ts.shape[0] != 1 else 0
                fn(size, bx, ffi.NULL, bu, su, params, 0, bt, st, buf("double[]", out), threads)
                x = out
            return x
        batch, size = self.kernels.batch, x.shape[0]
        none = self._none.get(size)
        if none is None:  # the unused q̇ slot of the kernel interface: (B, 0)
            none = self._none[size] = np.empty((size, 0))
        for s in range(self.substeps):
            out = np.empty(x.shape)
            batch("step", x, none, tau, self.p, t if s == 0 else t + s * self.h, out)
            x = out
        return x


class StagedStepper:
    """The integrator's stages in numpy around batched calls of ``forward_dynamics``; then
    the angles wrapped and q̇ clipped, after every (sub)step as in the step kernel."""

    fused = False

    def __init__(
        self,
        accel: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray],
        n: int,
        integrator: str,
        dt: float,
        substeps: int,
        backend: str,
        wrap: Sequence[int] = (),
        velocity_limits: np.ndarray | None = None,
        midpoint: Callable[..., Any] | None = None,
    ) -> None:
        self.accel = accel
        self.n = n
        self.integrator = integrator
        self.substeps = substeps
        self.h = dt / substeps
        self.backend = backend
        self.wrap = list(wrap)
        self.velocity_limits = velocity_limits
        self.midpoint = midpoint

    def __call__(self, x: np.ndarray, tau: np.ndarray, t: np.ndarray) -> np.ndarray:
        n, h, f = self.n, self.h, self.accel
        q, v = x[:, :n], x[:, n:]
        guess = None
        for s in range(self.substeps):
            ts = t if s == 0 else t + s * h
            if self.integrator == "rk4":
                a1 = f(q, v, tau, ts)
                q2, v2 = q + 0.5 * h * v, v + 0.5 * h * a1
                a2 = f(q2, v2, tau, ts + 0.5 * h)
                q3, v3 = q + 0.5 * h * v2, v + 0.5 * h * a2
                a3 = f(q3, v3, tau, ts + 0.5 * h)
                q4, v4 = q + h * v3, v + h * a3
                a4 = f(q4, v4, tau, ts + h)
                q = q + (h / 6.0) * (v + 2.0 * v2 + 2.0 * v3 + v4)
                v = v + (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
            elif self.integrator == "euler":
                a = f(q, v, tau, ts)
                q, v = q + h * v, v + h * a
            elif self.integrator == "semi-implicit euler":
                v = v + h * f(q, v, tau, ts)
                q = q + h * v
            else:  # midpoint
                assert self.midpoint is not None
                q, v, guess = self.midpoint(q, v, tau, h, guess)
            if self.wrap:
                q = q.copy()
                q[:, self.wrap] = wrap(q[:, self.wrap])
            if self.velocity_limits is not None:
                v = np.clip(v, -self.velocity_limits, self.velocity_limits)
        return np.ascontiguousarray(np.concatenate([q, v], axis=1))


def build_stepper(
    model: Resolved,
    integrator: str,
    dt: float,
    substeps: int,
    backend: str | None,
    wrap: Sequence[int] = (),
    velocity_limits: np.ndarray | None = None,
) -> FusedStepper | StagedStepper:
    """The batched step of ``model``: a fused generated kernel where the model comes from a
    system, else the integrator's stages around the model's ``forward_dynamics``.

    Raises
    ------
    LagdynError
        An unknown integrator or backend; ``"midpoint"`` for a model without a closed-form
        system (or with time-dependent forces).
    BackendUnavailableError
        An explicitly chosen backend whose dependency or compiler is missing.
    """
    if integrator not in INTEGRATORS:
        raise LagdynError(
            f"unknown integrator {integrator!r}; choose from {', '.join(map(repr, INTEGRATORS))}"
        )
    chosen = backend or model.backend
    if integrator != "midpoint" and model.system is not None and model.binding is not None:
        auto = chosen is None
        names = list(dict.fromkeys([fastest_backend(), "numpy"] if chosen is None else [chosen]))
        for i, name in enumerate(names):
            try:
                kernels = _step_kernels(model, integrator, name, wrap, velocity_limits)
            except BackendUnavailableError:
                if not auto or i == len(names) - 1:
                    raise
                log.info("lagdyn.gym: backend %r unavailable, using numpy", name)
                continue
            except LookupError:  # no forward_dynamics kernel: stages around the model
                break
            return FusedStepper(kernels, model.n, model.free, dt, substeps, name)
    num = _numeric(model, chosen)
    free = None if model.free.size == 0 else model.free[0]
    fd = num.forward_dynamics
    if model.numeric is not None and not _is_numeric_model(model.numeric):

        def accel(q: np.ndarray, v: np.ndarray, tau: np.ndarray, t: np.ndarray) -> np.ndarray:
            return np.asarray(fd(q, v, tau), dtype=np.float64)

    else:

        def accel(q: np.ndarray, v: np.ndarray, tau: np.ndarray, t: np.ndarray) -> np.ndarray:
            return fd(q, v, tau, params=free, t=t[:, 0])

    midpoint = _midpoint(num, model) if integrator == "midpoint" else None
    return StagedStepper(
        accel,
        model.n,
        integrator,
        dt,
        substeps,
        getattr(num, "backend", "user"),
        wrap,
        velocity_limits,
        midpoint,
    )


def _step_kernels(
    model: Resolved,
    integrator: str,
    backend: str,
    wrap: Sequence[int],
    velocity_limits: np.ndarray | None,
) -> Any:
    """The compiled ``step`` kernel (from the disk cache when it is there)."""
    import lagdyn.numeric.backends as backends

    from ..codegen.cache import DiskCache
    from ..numeric.lambdify import plan_program

    if getattr(model.system, "numeric_plan", None) is None and model.system.n > _max_unrolled():
        # the closed form's forward dynamics is solved numerically above this size
        raise LookupError("no forward_dynamics kernel")
    be = backends.get(backend)
    _, key, factory = plan_program(model.system, model.binding, be.name, model.route)
    limits_key = None if velocity_limits is None else [float(v) for v in velocity_limits]
    text = f"lagdyn-gym-step-{STEP_VERSION}|{key}|{integrator}|{list(wrap)}|{limits_key}"
    digest = hashlib.sha256(text.encode()).hexdigest()
    return be.build(
        lambda: step_program(factory(), integrator, wrap, velocity_limits), digest, DiskCache()
    )


def _max_unrolled() -> int:
    from ..codegen import MAX_UNROLLED

    return MAX_UNROLLED


def _numeric(model: Resolved, backend: str | None) -> Any:
    """A numeric model for the staged path (the given one, or the system lambdified)."""
    if model.numeric is not None:
        return model.numeric
    names = [backend] if backend else [fastest_backend(), "numpy"]
    for i, name in enumerate(dict.fromkeys(names)):
        try:
            return model.system.lambdify(model.values, backend=name)
        except BackendUnavailableError:
            if backend or i == len(names) - 1:
                raise
    raise AssertionError("not reached")  # pragma: no cover


def _midpoint(num: Any, model: Resolved) -> Callable[..., Any]:
    """The implicit midpoint step of :func:`lagdyn.simulate` (Newton, generated Jacobian)."""
    from ..simulation.integrators import newton_kernel, newton_midpoint_step

    kernel = newton_kernel(num) if _is_numeric_model(num) else None
    if kernel is None:
        raise LagdynError(
            "integrator='midpoint' needs a closed-form system with every parameter bound "
            "(its Newton Jacobian is generated from it); use 'rk4' for this model"
        )
    if model.time_dependent:
        raise LagdynError(
            "integrator='midpoint' steps models whose forces do not depend on time; "
            "use 'rk4' for this model"
        )

    def mass(q: np.ndarray) -> np.ndarray:
        return np.asarray(num.M(q), dtype=np.float64)

    def step(
        q: np.ndarray, v: np.ndarray, tau: np.ndarray, h: float, guess: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        def actuation(t: float, qm: np.ndarray, vm: np.ndarray) -> np.ndarray:
            return tau

        return newton_midpoint_step(kernel, mass, actuation, q, v, 0.0, h, 1e-12, 50, guess)  # type: ignore[arg-type]

    return step


# --------------------------------------------------------------------------- actions
class Actions:
    """Actions of the environments → τ on every coordinate (zero where not actuated).

    ``kind`` is ``"box"`` (τ on the actuated coordinates = the action, clipped to the box's
    finite bounds) or ``"discrete"`` (action ``k`` applies the row ``k`` of ``torques``).
    """

    def __init__(
        self,
        n: int,
        names: Sequence[str],
        actuated: Any,
        action_space: Any,
        torques: Any,
    ) -> None:
        self.n = n
        self.actuated = (
            tuple(range(n)) if actuated is None else coordinate_indices("actuated", actuated, names)
        )
        if not self.actuated:
            raise LagdynError("actuated is empty: name at least one coordinate to act on")
        m = self.m = len(self.actuated)
        self.identity = self.actuated == tuple(range(n))
        first = self.actuated[0]
        consecutive = self.actuated == tuple(range(first, first + m))
        self.span = slice(first, first + m) if consecutive else None
        self.table: np.ndarray | None = None
        self.low = np.full(m, -np.inf)
        self.high = np.full(m, np.inf)
        self.box: Any = None  # a gymnasium Box given by the user, kept as is
        if torques is not None:
            table = _real_matrix("torques", torques)
            if table.ndim == 1:
                if m != 1:
                    raise ShapeError(
                        f"torques: {m} coordinates are actuated, so each entry must be a "
                        f"sequence of {m} values; got a flat list"
                    )
                table = table[:, None]
            if table.ndim != 2 or table.shape[1] != m or table.shape[0] < 1:
                raise ShapeError(
                    f"torques must hold one τ of {m} values per action; got shape {table.shape}"
                )
            if action_space is not None and not _is_discrete(action_space, len(table)):
                raise LagdynError(
                    f"torques= gives {len(table)} discrete actions; pass no action_space "
                    f"(or gymnasium.spaces.Discrete({len(table)}))"
                )
            self.kind = "discrete"
            self.k = len(table)
            self.table = table
            full = np.zeros((len(table), n))
            full[:, self.actuated] = table
            self.full_table = full
            return
        self.kind = "box"
        if action_space is None:
            return
        if _is_discrete(action_space, None):
            raise LagdynError(
                "a Discrete action_space needs torques=[τ_0, τ_1, ...]: the τ each action applies"
            )
        if hasattr(action_space, "low") and hasattr(action_space, "high"):
            if tuple(action_space.shape) != (m,):
                raise ShapeError(
                    f"action_space has shape {tuple(action_space.shape)}; {m} coordinates are "
                    f"actuated ({', '.join(names[i] for i in self.actuated)}), so it must be ({m},)"
                )
            self.box = action_space
            self.low = np.asarray(action_space.low, dtype=np.float64).reshape(m)
            self.high = np.asarray(action_space.high, dtype=np.float64).reshape(m)
            return
        limit = _real_matrix("action_space", action_space)
        if limit.ndim > 1 or (limit.ndim == 1 and limit.shape != (m,)):
            raise ShapeError(
                f"action_space as limits must be one number or {m} numbers; got shape {limit.shape}"
            )
        limit = np.broadcast_to(limit, (m,))
        if not np.all(limit > 0):
            raise LagdynError(f"action_space limits must be positive, got {limit.tolist()}")
        self.low, self.high = -limit.astype(np.float64), limit.astype(np.float64)

    @property
    def bounded(self) -> bool:
        return bool(np.isfinite(self.low).any() or np.isfinite(self.high).any())

    def space(self, gym: Any) -> Any:
        """The gymnasium space of one environment's actions."""
        if self.kind == "discrete":
            return gym.spaces.Discrete(self.k)
        if self.box is not None:
            return self.box
        f32 = np.float32
        return gym.spaces.Box(self.low.astype(f32), self.high.astype(f32), (self.m,), f32)

    def __call__(self, actions: Any, batch: int, single: bool) -> tuple[np.ndarray, np.ndarray]:
        """``(τ (B, n), applied (B, m))`` for the actions of ``batch`` environments."""
        if self.kind == "discrete":
            if single and isinstance(actions, (int, np.integer)) and not isinstance(actions, bool):
                if not 0 <= actions < self.k:
                    raise LagdynError(
                        f"actions must be in 0..{self.k - 1} (Discrete({self.k})); got {actions}"
                    )
                i = int(actions)
                tau = self.full_table[i : i + 1].copy()  # a fresh (1, n) row
                return tau, self._applied(tau)
            a = actions if type(actions) is np.ndarray else np.asarray(actions)
            shape: tuple[int, ...] = () if single else (batch,)
            if a.shape != shape or a.dtype.kind not in "iu":
                raise ShapeError(
                    f"actions must be integers of shape {shape} (Discrete({self.k})); got "
                    f"{a.dtype} of shape {a.shape}"
                )
            a = a.reshape(batch)
            # one reduction checks both ends: negative integers are huge when unsigned
            if batch and int(a.astype(np.uint64, copy=False).max()) >= self.k:
                bad = a[(a < 0) | (a >= self.k)][0]
                raise LagdynError(
                    f"actions must be in 0..{self.k - 1} (Discrete({self.k})); got {bad}"
                )
            tau = np.take(self.full_table, a, axis=0)
            return tau, self._applied(tau)
        a = (
            np.asarray(actions, dtype=np.float64)
            if not isinstance(actions, np.ndarray)
            else actions
        )
        shape = (self.m,) if single else (batch, self.m)
        if a.shape != shape:
            if single and self.m == 1 and a.shape == ():
                a = a.reshape(1)
            else:
                raise ShapeError(
                    f"actions must have shape {shape} (τ on {self.m} actuated coordinates); "
                    f"got {a.shape}"
                )
        if a.dtype.kind not in "fiu":
            raise ShapeError(f"actions must be real numbers, got dtype {a.dtype}")
        a = a.reshape(batch, self.m)
        if self.bounded:
            a = np.clip(a, self.low, self.high, dtype=np.float64)
        elif a.dtype != np.float64:
            a = a.astype(np.float64)
        if not np.isfinite(a).all():
            bad = np.argwhere(~np.isfinite(a))[0]
            raise LagdynError(
                f"the action of environment {bad[0]} is not finite ({a[bad[0]].tolist()}); "
                "actions must be real numbers"
            )
        if self.identity:
            return np.ascontiguousarray(a), a
        tau = np.zeros((batch, self.n))
        tau[:, self.actuated] = a
        return tau, a

    def _applied(self, tau: np.ndarray) -> np.ndarray:
        """τ on the actuated coordinates ``(B, m)`` (a view when they are consecutive)."""
        if self.span is not None:
            return tau[:, self.span]
        return tau[:, list(self.actuated)]


def _is_discrete(space: Any, k: int | None) -> bool:
    if type(space).__name__ != "Discrete" or not hasattr(space, "n"):
        return False
    return k is None or (int(space.n) == k and int(getattr(space, "start", 0)) == 0)


def _real_matrix(label: str, value: Any) -> np.ndarray:
    from ..codegen.binding import real_array

    arr = real_array(label, value)
    if arr.dtype.kind not in "fiu":
        raise ShapeError(f"{label} must be real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise LagdynError(f"{label} contains NaN or infinite values")
    return arr


# --------------------------------------------------------------------------- observations
def wrap(a: np.ndarray) -> np.ndarray:
    """Angles into ``[-π, π)``."""
    return a - TWO_PI * np.floor((a + math.pi) / TWO_PI)


class Observations:
    """The state ``x (B, 2n)`` → observations ``(B, k)`` in ``dtype``, and their space."""

    def __init__(
        self,
        kind: Any,
        space: Any,
        n: int,
        angles: tuple[int, ...],
        velocity_limits: np.ndarray | None,
        wrapped_state: bool,
        dtype: Any,
    ) -> None:
        self.n = n
        self.angles = angles
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise LagdynError(f"dtype must be a floating-point type, got {self.dtype}")
        self.callable: Callable[[np.ndarray], Any] | None = None
        self.user_space = space
        vel_hi = np.full(n, np.inf) if velocity_limits is None else velocity_limits
        self.fresh = False
        if callable(kind):
            self.kind = "callable"
            self.callable = kind
            self.fresh = fresh(kind)
            self.low = self.high = None
            return
        if kind not in OBSERVATIONS:
            raise LagdynError(
                f"unknown observation {kind!r}; choose from {', '.join(map(repr, OBSERVATIONS))} "
                "or pass a callable observation(x) -> (B, k)"
            )
        if kind in ("wrapped", "sincos") and not angles:
            raise LagdynError(
                f"observation={kind!r} needs angle coordinates: pass angles=[...] (names or "
                "indices); none were found in the model's drawing"
            )
        if space is not None:
            raise LagdynError("observation_space= goes with a callable observation only")
        self.kind = kind
        pos_hi = np.full(n, np.inf)
        if kind == "wrapped" or wrapped_state:
            pos_hi[list(angles)] = math.pi
        if kind == "sincos":
            hi: list[float] = []
            for i in range(n):
                hi += [1.0, 1.0] if i in angles else [pos_hi[i]]
            self.high = np.array([*hi, *vel_hi])
        else:
            self.high = np.concatenate([pos_hi, vel_hi])
        self.low = -self.high

    def __call__(self, x: np.ndarray) -> np.ndarray:
        kind = self.kind
        if kind == "state":
            return x.astype(self.dtype)
        if kind == "wrapped":
            out = x.astype(self.dtype)
            idx = list(self.angles)
            out[:, idx] = wrap(x[:, idx])
            return out
        if kind == "sincos":
            cols = []
            for i in range(self.n):
                if i in self.angles:
                    cols += [np.cos(x[:, i]), np.sin(x[:, i])]
                else:
                    cols.append(x[:, i])
            cols += [x[:, self.n + i] for i in range(self.n)]
            return np.stack(cols, axis=1).astype(self.dtype)
        assert self.callable is not None
        if self.fresh:  # a task's observation: (B, k) floats
            return self.callable(x).astype(self.dtype)
        out = np.asarray(self.callable(x))
        if out.ndim != 2 or out.shape[0] != x.shape[0]:
            raise ShapeError(
                f"observation(x) must return shape (B, k) for x of shape {x.shape}; got {out.shape}"
            )
        return out.astype(self.dtype)

    def space(self, gym: Any, n: int) -> Any:
        """The gymnasium space of one environment's observations."""
        if self.kind == "callable":
            space = self.user_space
            if space is None:
                probe = self(np.zeros((1, 2 * n)))
                return gym.spaces.Box(-np.inf, np.inf, probe.shape[1:], self.dtype)
            if isinstance(space, tuple) and len(space) == 2:  # (low, high)
                low, high = (_bounds("observation_space", v) for v in space)
                if low.shape != high.shape or not np.all(low <= high):
                    raise ShapeError(
                        "observation_space=(low, high) needs low <= high of one shape; got "
                        f"shapes {low.shape} and {high.shape}"
                    )
                dt = self.dtype
                return gym.spaces.Box(low.astype(dt), high.astype(dt), low.shape, dt)
            if not isinstance(space, gym.spaces.Space):
                raise LagdynError(
                    "observation_space must be a gymnasium space or a pair (low, high), got "
                    f"{type(space).__name__}"
                )
            return space
        assert self.low is not None and self.high is not None
        dt = self.dtype
        return gym.spaces.Box(self.low.astype(dt), self.high.astype(dt), self.low.shape, dt)


def _bounds(label: str, value: Any) -> np.ndarray:
    from ..codegen.binding import real_array

    arr = real_array(label, value)
    if arr.dtype.kind not in "fiu" or np.isnan(arr.astype(np.float64)).any():
        raise LagdynError(f"{label} bounds must be real numbers (±inf allowed), got {value!r}")
    return arr.astype(np.float64)


def detect_angles(positions: Callable[[Any], np.ndarray] | None, n: int) -> tuple[int, ...]:
    """Coordinates the drawing moves and repeats after 2π (checked at a few states)."""
    if positions is None:
        return ()
    rng = np.random.default_rng(12345)
    q = rng.uniform(-1.0, 1.0, size=(3, n))
    base = positions(q)
    scale = max(1.0, float(np.abs(base).max()))
    out = []
    for i in range(n):
        e = np.zeros(n)
        e[i] = 1.0
        periodic = np.allclose(positions(q + TWO_PI * e), base, rtol=0.0, atol=1e-9 * scale)
        moves = not np.allclose(positions(q + 0.5 * e), base, rtol=0.0, atol=1e-9 * scale)
        if periodic and moves:
            out.append(i)
    return tuple(out)


def limits(label: str, value: Any, n: int) -> np.ndarray | None:
    """Positive limits per coordinate (``inf`` for none), from one number or n of them."""
    if value is None:
        return None
    from ..codegen.binding import real_array

    arr = real_array(label, value)
    if arr.dtype.kind not in "fiu":
        raise ShapeError(f"{label} must be real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape != (n,)):
        raise ShapeError(f"{label} must be one number or {n} numbers; got shape {arr.shape}")
    arr = np.broadcast_to(arr, (n,)).copy()
    if np.isnan(arr).any() or not np.all(arr > 0):
        raise LagdynError(f"{label} must be positive (inf for no limit), got {arr.tolist()}")
    return arr


# --------------------------------------------------------------------------- resets
ResetFn = Callable[[np.random.Generator, int], Any]


def uniform_reset(center: np.ndarray, noise: np.ndarray) -> ResetFn:
    """States drawn uniformly in ``center ± noise``."""

    def draw(rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.uniform(center - noise, center + noise, size=(size, center.shape[0]))

    setattr(draw, FRESH, True)
    setattr(draw, UNIFORM, (center - noise, center + noise, False, np.zeros_like(center)))

    return draw


def reset_states(
    fn: ResetFn,
    rng: np.random.Generator,
    size: int,
    n: int,
    *,
    finite: bool = True,
    width: int | None = None,
) -> np.ndarray:
    """``size`` initial states from ``fn``, checked: real, shape ``(size, 2n)`` (or
    ``(size, width)``: a legged model's (q, v)), finite.

    ``finite=False`` leaves the finiteness check to the caller (the vector step checks every
    state once after the autoreset; :meth:`Core.check_finite` names a bad reset there).
    """
    raw = fn(rng, size)
    if fresh(fn):  # a task's own draw: (size, 2n) float64, nobody else's array
        if finite and not math.isfinite(float(np.add.reduce(raw, axis=None))):
            raise LagdynError("reset(rng, size) returned NaN or infinite states")
        return raw if raw.flags.c_contiguous else np.ascontiguousarray(raw)
    try:
        x = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        from ..codegen.binding import real_array

        x = real_array("reset(rng, size)", raw)  # names ragged or non-numeric output
        raise ShapeError(f"reset(rng, size) must return real numbers, got {x.dtype}") from None
    w, label = (2 * n, "2n") if width is None else (width, "nq + nv")
    if x.shape != (size, w) or np.asarray(raw).dtype.kind not in "fiub":
        raise ShapeError(
            f"reset(rng, size) must return real states of shape (size, {label}) = ({size}, {w}); "
            f"got {np.asarray(raw).dtype} of shape {np.shape(raw)}"
        )
    if not x.flags.c_contiguous or x is raw:
        x = np.array(x, order="C")  # never keep the caller's array
    total = float(np.add.reduce(x, axis=None)) if finite else 0.0
    if not math.isfinite(total) and not np.isfinite(x).all():  # a sum can overflow: look
        raise LagdynError("reset(rng, size) returned NaN or infinite states")
    return x


def given_state(value: Any, size: int, n: int, *, width: int | None = None) -> np.ndarray:
    """``options={"state": ...}``: one state ``(2n,)`` for all, or ``(size, 2n)`` (``width``
    instead of 2n: a legged model's (q, v))."""
    from ..codegen.binding import real_array

    w = 2 * n if width is None else width
    x = real_array('options["state"]', value)
    if x.dtype.kind not in "fiu" or x.shape not in ((w,), (size, w)):
        raise ShapeError(
            f'options["state"] must be a state of shape ({w},) or ({size}, {w}); '
            f"got {x.dtype} of shape {x.shape}"
        )
    x = np.array(np.broadcast_to(x, (size, w)), dtype=np.float64, order="C")
    if not np.isfinite(x).all():
        raise LagdynError('options["state"] contains NaN or infinite values')
    return x


# --------------------------------------------------------------------------- the core
@dataclass
class Core:
    """Everything one transition of B environments needs (see the module docstring)."""

    model: Resolved
    stepper: Any  # FusedStepper, StagedStepper, or a legged model's ContactStepper
    actions: Actions
    observations: Observations
    reset: ResetFn
    reward: Callable[..., Any] | None
    termination: Callable[..., Any] | None
    max_episode_steps: int | None
    dt: float
    integrator: str
    renderer: Any = None
    wrap: tuple[int, ...] = ()  # angles wrapped to [-π, π) after every step and reset
    velocity_limits: np.ndarray | None = None  # q̇ clipped after every step (in the kernel)
    state_width: int | None = None  # of a state other than (q, q̇): a legged model's (q, v)

    def __post_init__(self) -> None:
        self.width = 2 * self.model.n if self.state_width is None else self.state_width
        self.timed = self.model.time_dependent
        self._zero = np.zeros((1, 1))
        self._fresh_reward = fresh(self.reward)
        self._fresh_termination = fresh(self.termination)
        pair = getattr(self.reward, BY_TERMINATION, None)
        self._by_termination = (
            (float(pair[0]), float(pair[1]))
            if self._fresh_reward and self._fresh_termination and pair is not None
            else None
        )

    def outcome(
        self, x: np.ndarray, applied: np.ndarray, x1: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(rewards (B,), terminated (B,))`` of the step ``x → x1`` (:meth:`rewards`,
        :meth:`terminated`)."""
        pair = self._by_termination
        if pair is not None:
            done = self.terminated(x1)
            return np.where(done, pair[0], pair[1]), done
        return self.rewards(x, applied, x1), self.terminated(x1)

    def settle(self, x: np.ndarray) -> np.ndarray:
        """Fresh states as the steps leave them: the ``wrap_angles`` angles in [−π, π)."""
        if self.wrap:
            idx = list(self.wrap)
            x[:, idx] = wrap(x[:, idx])
        return x

    def advance(self, x: np.ndarray, tau: np.ndarray, steps: np.ndarray) -> np.ndarray:
        """The states after one step of ``dt`` (angles wrapped, q̇ clipped after each
        substep); ``steps`` counts the steps since each state's reset (its time is
        ``steps · dt``, read only by models whose forces depend on time)."""
        t = (steps * self.dt).reshape(-1, 1) if self.timed else self._zero
        return self.stepper(x, tau, t)

    def failures(self) -> tuple[np.ndarray, np.ndarray] | None:
        """After :meth:`advance`: ``(failed (B,), residual (B,))`` of a stepper that can fail
        (a legged model's contact solves), else None."""
        failed = getattr(self.stepper, "failed", None)
        if failed is None:
            return None
        return failed, self.stepper.residual

    def rewards(self, x: np.ndarray, applied: np.ndarray, x1: np.ndarray) -> np.ndarray:
        """``reward(x, τ, x')`` as floats ``(B,)`` (zeros without a reward)."""
        batch = x.shape[0]
        if self.reward is None:
            return np.zeros(batch)
        if self._fresh_reward:
            return self.reward(x, applied, x1)
        r = np.array(self.reward(x, applied, x1), dtype=np.float64)  # a copy: never a view of x1
        if r.shape != (batch,):
            try:
                r = np.broadcast_to(r, (batch,)).copy()
            except ValueError:
                raise ShapeError(
                    f"reward(x, tau, x_next) must return shape ({batch},) (one reward per "
                    f"environment); got {r.shape}"
                ) from None
        if not math.isfinite(float(np.add.reduce(r))) and not np.isfinite(r).all():
            i = int(np.argwhere(~np.isfinite(r))[0, 0])
            raise LagdynError(
                f"reward(x, tau, x_next) is {r[i]} for environment {i} at the state "
                f"{x1[i].tolist()}"
            )
        return r

    def terminated(self, x1: np.ndarray) -> np.ndarray:
        """``termination(x')`` as booleans ``(B,)`` (all False without a termination)."""
        batch = x1.shape[0]
        if self.termination is None:
            return np.zeros(batch, dtype=bool)
        if self._fresh_termination:
            return self.termination(x1)
        d = np.array(self.termination(x1))  # a copy, as the rewards
        if d.dtype != np.bool_:
            if d.dtype.kind not in "iu":
                raise ShapeError(f"termination(x) must return booleans, got dtype {d.dtype}")
            d = d.astype(bool)
        if d.shape != (batch,):
            try:
                d = np.broadcast_to(d, (batch,)).copy()
            except ValueError:
                raise ShapeError(
                    f"termination(x) must return shape ({batch},) (one flag per "
                    f"environment); got {d.shape}"
                ) from None
        return d

    def check_finite(
        self, x: np.ndarray, steps: np.ndarray, restarted: np.ndarray | None = None
    ) -> None:
        """A :class:`LagdynError` naming the first environment whose state is not finite
        (``restarted``: the rows that hold fresh resets, not steps)."""
        if math.isfinite(float(np.add.reduce(x, axis=None))):
            return
        bad = ~np.isfinite(x).all(axis=1)
        if not bad.any():
            return
        i = int(np.argmax(bad))
        if restarted is not None and restarted[i]:
            raise LagdynError("reset(rng, size) returned NaN or infinite states")
        raise LagdynError(
            f"environment {i}: the state became NaN or infinite in the step to "
            f"t = {float(steps[i] * self.dt):.6g} ({x[i].tolist()}); use a smaller dt (or "
            "substeps=), bound the actions (action_space=), or terminate the episode before "
            "the motion blows up (termination=)"
        )
