r"""A system as a Drake ``LeafSystem``: ``system.to_drake(params)`` (extra ``drake``).

:func:`to_drake` wraps the compiled forward dynamics of :meth:`LagrangianSystem.lambdify
<lagdyn.LagrangianSystem.lambdify>` in a ``pydrake.systems.framework.LeafSystem`` that
Drake's ``DiagramBuilder`` and ``Simulator`` use like any of their own systems:

==================  =========================  ==============================================
port / state        size                       meaning
==================  =========================  ==============================================
continuous state    2n: q (n), q̇ (n)           ``DeclareContinuousState(n, n, 0)``: q is
                                               Drake's generalized position, q̇ its velocity
input ``tau``       n, or the actuated count   generalized forces τ (``inputs=``: only some
                                               coordinates are actuated, the others get 0);
                                               unconnected, it reads as zero
output ``state``    2n                         [q, q̇]
output ``energy``   1                          E = ½ q̇ᵀ M q̇ + V
numeric parameter   the ``tunable`` count      the tunable parameters, in the order of
                                               :attr:`free_parameters` (index 0)
==================  =========================  ==============================================

``DoCalcTimeDerivatives`` returns [q̇, q̈] with q̈ = M⁻¹(τ + Q − C q̇ − G q̇ − g) from the
:class:`~lagdyn.NumericModel`'s one-state entry point (the compiled C entry on
``backend="c"``, the scalar one otherwise); robot chains take the route ``lambdify``
chooses (``route=`` to force one). Neither output depends on the input, so a controller may
feed ``state`` back into ``tau`` without an algebraic loop.

Parameters are bound when the system is made, as :func:`lagdyn.simulate` binds them:
``system.defaults`` updated by ``params``, folded into the generated code. The parameters
named in ``tunable`` stay free instead and become one Drake numeric parameter (start values
from the same defaults and ``params``), changed per context with
``context.get_mutable_numeric_parameter(0).SetFromVector(...)``; values are checked against
each symbol's assumptions on every evaluation.

The system is double-only (Drake cannot convert a Python ``LeafSystem`` to ``AutoDiffXd``
or ``Expression``): Drake's ``Linearize`` and gradient-based trajectory optimisation do not
apply to it; use :func:`lagdyn.linearize` and :meth:`~lagdyn.LagrangianSystem.to_casadi`.
Non-finite inputs τ and non-finite accelerations (a singular M) raise a
:class:`~lagdyn.LagdynError` naming the time and the state, instead of handing NaN to Drake's
integrator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .codegen.binding import check_value
from .errors import BackendUnavailableError, LagdynError
from .symbols import coordinate_labels

__all__ = ["coordinate_names", "to_drake"]

_INSTALL = "pip install 'lagdyn[drake]' (Drake publishes wheels for Linux and macOS)"


def _framework() -> Any:
    """``pydrake.systems.framework``, or a :class:`BackendUnavailableError` naming the extra."""
    try:
        from pydrake.systems import framework
    except ImportError as exc:
        raise BackendUnavailableError(f"pydrake is not installed: {_INSTALL}") from exc
    return framework


def coordinate_names(system: Any) -> list[str]:
    """The names of the coordinates as ``inputs=`` takes them (``q1`` for ``q1(t)``).

    The name of each coordinate's function (``a`` for ``a(t)``), or ``q1``, ``q2``, … for
    all when two coincide or one is not printable — the names of the FMU export's inputs.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.drake import coordinate_names
    >>> coordinate_names(ld.zoo.cart_pole())
    ['x', 'theta']
    """
    return coordinate_labels(system.q)


def _actuated(inputs: Sequence[Any] | None, coords: list[str]) -> list[int]:
    if inputs is None:
        return list(range(len(coords)))
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, Sequence):
        raise LagdynError(
            f"inputs={inputs!r} must be a sequence of coordinate names or indices "
            f"(e.g. inputs=[{coords[0]!r}])"
        )
    out: list[int] = []
    for item in inputs:
        if isinstance(item, str) and item in coords:
            k = coords.index(item)
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            k = int(item)
            if not 0 <= k < len(coords):
                k = -1
        else:
            k = -1
        if k < 0:
            raise LagdynError(
                f"inputs: {item!r} is not a coordinate of the model; give names from "
                f"{', '.join(coords)} or indices 0..{len(coords) - 1}"
            )
        if k in out:
            raise LagdynError(f"inputs: coordinate {coords[k]!r} is given twice")
        out.append(k)
    if not out:
        raise LagdynError("inputs is empty: name at least one actuated coordinate")
    return sorted(out)


def _values(
    system: Any, params: Mapping[Any, float] | None, tunable: Sequence[Any]
) -> tuple[dict[str, float], list[Any]]:
    """(values to bind by name, tunable symbols) from defaults, ``params`` and ``tunable``."""
    by_name = {str(s): s for s in system.parameters}
    if params is not None and not isinstance(params, Mapping):
        raise LagdynError(
            f"params must be a mapping of parameter (or name) to value, got {params!r}"
        )
    values: dict[str, Any] = {str(k): v for k, v in dict(system.defaults or {}).items()}
    for key, value in dict(params or {}).items():
        if str(key) not in by_name:
            raise LagdynError(
                f"params: {str(key)!r} is not a parameter of the model "
                f"(its parameters: {', '.join(by_name) or 'none'})"
            )
        values[str(key)] = value
    if isinstance(tunable, (str, bytes)) or not isinstance(tunable, Sequence):
        raise LagdynError(f"tunable={tunable!r} must be a sequence of parameter names")
    free: list[Any] = []
    for item in tunable:
        sym = by_name.get(str(item))
        if sym is None:
            raise LagdynError(
                f"tunable: {str(item)!r} is not a parameter of the model "
                f"(its parameters: {', '.join(by_name) or 'none'})"
            )
        if sym in free:
            raise LagdynError(f"tunable: parameter {sym} is given twice")
        free.append(sym)
    missing = [name for name in by_name if name not in values]
    if missing:
        raise LagdynError(
            f"parameter(s) {', '.join(missing)} have no value: pass them with "
            f"params={{{', '.join(repr(m) + ': ...' for m in missing)}}} (tunable ones too: "
            "the value is their start value)"
        )
    names = {str(s) for s in free}
    bound = {k: v for k, v in values.items() if k in by_name and k not in names}
    starts = {str(s): check_value(s, values[str(s)], label=f"the start value of {s}") for s in free}
    return {**bound, **starts}, free


_CLASS: Any = None


def _system_class() -> Any:
    """The ``LeafSystem`` subclass, defined once pydrake is imported."""
    global _CLASS
    if _CLASS is not None:
        return _CLASS
    framework = _framework()
    LeafSystem = framework.LeafSystem
    BasicVector = framework.BasicVector

    class LagdynSystem(LeafSystem):  # type: ignore[misc, valid-type]
        """A lagdyn model as a Drake ``LeafSystem`` (made by :func:`lagdyn.drake.to_drake`)."""

        def __init__(
            self, model: Any, coordinates: list[str], actuated: list[int], starts: list[float]
        ) -> None:
            LeafSystem.__init__(self)
            n = model.n
            self.model = model
            self.coordinates = tuple(coordinates)
            self.actuated = tuple(actuated)
            self.free_parameters = tuple(model.free_parameters)
            self._n = n
            self._all = len(actuated) == n
            self._index = np.array(actuated, dtype=np.intp)
            self._tunable = bool(self.free_parameters)
            self.DeclareContinuousState(n, n, 0)
            self._tau = self.DeclareVectorInputPort("tau", len(actuated))
            if self._tunable:
                self.DeclareNumericParameter(BasicVector(np.asarray(starts, dtype=float)))
            prerequisites = {self.xc_ticket(), self.all_parameters_ticket()}
            self.DeclareStateOutputPort("state", framework.ContinuousStateIndex(0))
            self.DeclareVectorOutputPort(
                "energy", 1, self._calc_energy, prerequisites_of_calc=prerequisites
            )

        def _params(self, context: Any) -> Any:
            if not self._tunable:
                return None
            p = context.get_numeric_parameter(0).CopyToVector()
            if not np.isfinite(p).all():
                bad = [str(self.free_parameters[i]) for i in np.flatnonzero(~np.isfinite(p))]
                raise LagdynError(
                    f"numeric parameter 0 has non-finite values for {', '.join(bad)}: "
                    f"{p.tolist()} (in the order {', '.join(map(str, self.free_parameters))})"
                )
            return p

        def _input(self, context: Any) -> np.ndarray:
            port = self._tau
            n = self._n
            if not port.HasValue(context):
                return np.zeros(n)
            u = np.asarray(port.Eval(context), dtype=float)
            if not np.isfinite(u).all():
                bad = [self.coordinates[self.actuated[i]] for i in np.flatnonzero(~np.isfinite(u))]
                raise LagdynError(
                    f"input port tau has non-finite values for {', '.join(bad)} at "
                    f"t = {context.get_time()!r}: {u.tolist()}"
                )
            if self._all:
                return u
            tau = np.zeros(n)
            tau[self._index] = u
            return tau

        def DoCalcTimeDerivatives(self, context: Any, derivatives: Any) -> None:
            n = self._n
            x = context.get_continuous_state_vector().CopyToVector()
            q = x[:n]
            qd = x[n:]
            t = float(context.get_time())
            qdd = self.model.forward_dynamics(
                q, qd, self._input(context), params=self._params(context), t=t
            )
            if not np.isfinite(qdd).all():
                raise LagdynError(
                    f"non-finite accelerations at t = {t!r}, q = {q.tolist()}, "
                    f"qd = {qd.tolist()}: the mass matrix is singular there or the state "
                    "overflowed (is the integrator's accuracy too loose?)"
                )
            derivatives.get_mutable_vector().SetFromVector(np.concatenate([qd, qdd]))

        def _calc_energy(self, context: Any, output: Any) -> None:
            n = self._n
            x = context.get_continuous_state_vector().CopyToVector()
            e = self.model.energy(x[:n], x[n:], params=self._params(context))
            output.SetAtIndex(0, float(e))

    _CLASS = LagdynSystem
    return _CLASS


def to_drake(
    system: Any,
    params: Mapping[Any, float] | None = None,
    *,
    tunable: Sequence[Any] = (),
    inputs: Sequence[str | int] | None = None,
    name: str = "lagdyn",
    **options: Any,
) -> Any:
    """``system`` as a Drake ``LeafSystem``: continuous state (q, q̇), input ``tau``, outputs
    ``state`` and ``energy`` (see the module documentation).

    Parameters
    ----------
    system : LagrangianSystem
        The model (a :class:`~lagdyn.robot.RobotSystem` too).
    params : mapping of parameter (or name) to float, optional
        Values overriding ``system.defaults``; every parameter needs a value.
    tunable : sequence of parameter names or symbols
        Parameters left free in the generated code and exposed as Drake numeric parameter 0
        (their values from ``params`` or the defaults are its start values). Default none:
        everything is bound, which lets ``backend="c"`` use its compiled one-state entry.
    inputs : sequence of coordinate names or indices, optional
        The actuated coordinates, in the order of the coordinates (:func:`coordinate_names`);
        the input port ``tau`` has one entry each. Default: every coordinate.
    name : str
        The Drake system's name (``set_name``).
    **options
        Passed to :meth:`~lagdyn.LagrangianSystem.lambdify`: ``backend=`` (``"c"`` compiles
        the kernels, the fastest here), ``route=``, ``forward=``, ``cache=``.

    Returns
    -------
    pydrake.systems.framework.LeafSystem
        With the attributes ``model`` (the :class:`~lagdyn.NumericModel`), ``coordinates``,
        ``actuated`` (indices) and ``free_parameters`` (the tunable symbols, in the order
        of the numeric parameter).

    Raises
    ------
    BackendUnavailableError
        pydrake is not installed (``pip install 'lagdyn[drake]'``).
    LagdynError
        A parameter without a value or with a bad one, an unknown or repeated tunable
        parameter or input coordinate, a system without coordinates; anything
        :meth:`~lagdyn.LagrangianSystem.lambdify` refuses.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from pydrake.systems.analysis import Simulator
    >>> plant = ld.zoo.double_pendulum().to_drake()
    >>> plant.get_input_port(0).get_name(), plant.get_output_port(0).size()
    ('tau', 4)
    >>> sim = Simulator(plant)
    >>> sim.get_mutable_context().SetContinuousState([0.5, 0.0, 0.0, 0.0])
    >>> energy = plant.GetOutputPort("energy")
    >>> e0 = energy.Eval(sim.get_context())[0]
    >>> print(f"{e0:.4f}")
    -27.5517
    >>> sim.get_mutable_integrator().set_target_accuracy(1e-8)
    >>> _ = sim.AdvanceTo(1.0)
    >>> bool(abs(energy.Eval(sim.get_context())[0] - e0) < 1e-6)  # no torque: E is conserved
    True
    """
    cls = _system_class()
    n = getattr(system, "n", None)
    if not isinstance(n, int) or not hasattr(system, "lambdify"):
        raise LagdynError(
            f"to_drake needs a LagrangianSystem (or RobotSystem), got {type(system).__name__}"
        )
    if n == 0:
        raise LagdynError("the system has no coordinates: a Drake system needs at least one state")
    if not isinstance(name, str) or not name:
        raise LagdynError(f"name={name!r} must be a non-empty string")
    coords = coordinate_names(system)
    actuated = _actuated(inputs, coords)
    values, free = _values(system, params, tunable)
    names = {str(s) for s in free}
    model = system.lambdify({k: v for k, v in values.items() if k not in names}, **options)
    if set(model.free_parameters) != set(free):  # pragma: no cover - every other one is bound
        raise LagdynError(f"lambdify left {model.free_parameters} free, expected {free}")
    starts = [values[str(s)] for s in model.free_parameters]
    out = cls(model, coords, actuated, starts)
    out.set_name(name)
    return out
