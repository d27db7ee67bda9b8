r"""CasADi functions of a system: ``system.to_casadi(params)`` and ``lagdyn export -t casadi``.

:func:`to_casadi` returns a :class:`CasadiModel` whose attributes are ``casadi.Function``\ s
on SX, built node by node from the same CSE :class:`~lagdyn.codegen.Program` that
:func:`lagdyn.numeric.lambdify` compiles (:mod:`lagdyn.codegen.casadi`): the closed-form
program of :func:`lagdyn.codegen.system_program` for every system, and for robot chains the
route :func:`lagdyn.numeric.lambdify` would take (the recursive Newton–Euler/CRBA program
from 4 joints on, :mod:`lagdyn.recursive.route`), so the graphs stay small.

=====================  ==========================  ==================================
attribute              inputs                      output
=====================  ==========================  ==================================
``M``                  q [, p]                     M (n × n)
``C``                  q, qd [, p]                 C (n × n)
``g``                  q [, p]                     g (n)
``h``                  q, qd [, p] [, t]           h = C q̇ + G q̇ + g − Q (n)
``energy``             q, qd [, p]                 E = ½ q̇ᵀ M q̇ + V
``inverse_dynamics``   q, qd, qdd [, p] [, t]      τ = M q̈ + h (n)
``forward_dynamics``   q, qd, tau [, p] [, t]      q̈ = M⁻¹ (τ − h) (n)
``regressor``          q, qd, qdd [, p]            Y (n × k) with τ = Y π
=====================  ==========================  ==================================

Parameters are bound as by :func:`lagdyn.numeric.lambdify` (:class:`~lagdyn.codegen.Binding`):
values given in ``params`` are folded into the graphs as numbers; every other parameter
stays free and is read from one extra input ``p`` (in the order of
:attr:`CasadiModel.free_parameters`, the same for every function), exactly as the free
parameters of a :class:`~lagdyn.NumericModel` are passed per call. A function has ``p``
only when some parameter is free, and ``t`` only when the generalized forces depend on time.

The regressor columns are :attr:`CasadiModel.regressor_params` (default: a robot chain's
standard parameters, every other system's products of
:func:`lagdyn.identification.linear_parameters` of every parameter except ``g``, as
:func:`lagdyn.identify` uses); it is built on first access: for a robot chain whose
``regressor_params`` are its standard parameters
(:func:`lagdyn.recursive.regressor.standard_parameters_of`) from the recursive program of
:func:`lagdyn.recursive.regressor.regressor_program`, node by node, unless ``route="closed"``;
otherwise from the closed form of :func:`lagdyn.identification.regressor`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import sympy as sp

import lagdyn.codegen.casadi as cg

from ..codegen import Binding, Program
from ..errors import LagdynError
from .lambdify import plan_program

__all__ = ["CasadiModel", "export_files", "program_of", "to_casadi"]

#: casadi Function name of each program kernel.
_ATTRIBUTES = {
    "M": "M",
    "C": "C",
    "g": "g",
    "bias": "h",
    "energy": "energy",
    "inverse_dynamics": "inverse_dynamics",
    "forward_dynamics": "forward_dynamics",
}


#: One line per function, for the export's README.
_WHAT = {
    "M": "mass matrix M(q)",
    "C": "Coriolis/centrifugal matrix C(q, qd)",
    "g": "gravity vector g(q) = dV/dq",
    "h": "bias h = C qd + G qd + g - Q (so M qdd + h = tau)",
    "energy": "energy E = qd' M qd / 2 + V",
    "inverse_dynamics": "joint forces tau = M qdd + h",
    "forward_dynamics": "accelerations qdd = M^-1 (tau - h)",
}


def program_of(system: Any, binding: Binding, route: str | None = None) -> tuple[str, Program]:
    """``(route, program)``: the kernels :func:`lagdyn.numeric.lambdify` would generate.

    Robot chains choose their route as ``lambdify`` does (``route=None``: recursive from 4
    joints on); every other system has the closed-form route only.

    Raises
    ------
    LagdynError
        ``route="recursive"`` for a system that is not a robot chain, or an unknown route
        (:func:`lagdyn.numeric.lambdify.plan_program`).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding
    >>> from lagdyn.numeric.casadi import program_of
    >>> arm = ld.zoo.get("ur5")
    >>> program_of(arm, Binding(arm.parameters, arm.defaults))[0]
    'recursive'
    """
    chosen, _, make = plan_program(system, binding, "casadi", route, keyed=False)
    return chosen, make()


class CasadiModel:
    r"""``casadi.Function``\ s of a system's dynamics (from :func:`to_casadi`).

    Attributes
    ----------
    n : int
        Degrees of freedom.
    M, C, g, h, energy, inverse_dynamics, forward_dynamics : casadi.Function
        See the table of :mod:`lagdyn.numeric.casadi`; inputs are column vectors named
        ``q``, ``qd``, ``qdd``/``tau``, then ``p`` (free parameters, if any) and ``t``
        (if the forces depend on time).
    regressor : casadi.Function
        ``Y(q, qd, qdd[, p])``, shape (n, k), with τ = Y π for :attr:`regressor_params`
        (built on first access).
    parameters, free_parameters : tuple of sympy.Symbol
        Every parameter; those read from ``p``, in order.
    bound : dict of sympy.Symbol to float
        Values folded into the graphs.
    route : str
        ``"closed"`` or ``"recursive"`` (robot chains).
    program : lagdyn.codegen.Program
        The program the graphs were built from.
    functions : dict of str to casadi.Function
        The functions above except the regressor, by attribute name.
    time_dependent : bool
        Whether the generalized forces read ``t`` (then ``h`` and the dynamics take it).

    Notes
    -----
    For a robot chain whose :attr:`regressor_params` are its standard parameters
    (:func:`lagdyn.recursive.regressor.standard_parameters_of`, the rule of
    :func:`lagdyn.identification.regressor`), the regressor is the recursive program of
    :func:`lagdyn.recursive.regressor.regressor_program` converted node by node (no closed form;
    the UR5's builds in about half a second), whatever the route of the other functions,
    unless ``route="closed"`` was asked for. Every other regressor comes from the closed form
    (:func:`lagdyn.identification.regressor` reads ``system.M`` and ``system.h``); for
    6-joint arms that derivation takes tens of seconds.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> cm = dp.to_casadi(dp.defaults)
    >>> print(cm.M.name_in(), cm.forward_dynamics.name_in())
    ['q'] ['q', 'qd', 'tau']
    >>> np.allclose(cm.M([0.3, 0.1]).full(), dp.lambdify(dp.defaults).M([0.3, 0.1]))
    True
    """

    def __init__(
        self,
        system: Any,
        binding: Binding,
        *,
        route: str | None = None,
        regressor: Any = None,
    ) -> None:
        ca = cg.import_casadi()
        self.system = system
        self._binding = binding
        self.n: int = system.n
        self.parameters: tuple[sp.Symbol, ...] = binding.parameters
        self.bound: dict[sp.Symbol, float] = dict(binding.bound)
        self.free_parameters: tuple[sp.Symbol, ...] = tuple(binding.free)
        self.route, self.program = program_of(system, binding, route)
        self.requested_route: str | None = route
        self._regressor = regressor
        prog = self.program
        timed = any(prog.t in k.used_symbols() for k in prog.kernels.values())
        self.time_dependent: bool = timed
        self.functions: dict[str, Any] = {}
        for kname, attr in _ATTRIBUTES.items():
            kern = prog.kernels.get(kname)
            if kern is None:
                continue
            self.functions[attr] = cg.kernel_function(
                prog, kern, name=attr, inputs=self._inputs(kern.inputs)
            )
        if "forward_dynamics" not in self.functions:  # closed route above n = 8: solve M q̈ = r
            Mf, hf = self.functions["M"], self.functions["h"]
            args = self._symbols(ca, ("q", "qd", "tau", "params", "t"))
            named = dict(zip(self._inputs(("q", "qd", "tau", "params", "t")), args))
            m_in = [named[v] for v in self._inputs(("q", "params"))]
            h_in = [named[v] for v in self._inputs(("q", "qd", "params", "t"))]
            qdd = ca.solve(Mf(*m_in), named["tau"] - hf(*h_in))
            names = [cg.ARG[v] for v in named]
            self.functions["forward_dynamics"] = ca.Function(
                "forward_dynamics", list(named.values()), [qdd], names, ["qdd"]
            )
        for attr, f in self.functions.items():
            setattr(self, attr, f)

    M: Any
    C: Any
    g: Any
    h: Any
    energy: Any
    inverse_dynamics: Any
    forward_dynamics: Any

    def __repr__(self) -> str:
        free = ", ".join(str(s) for s in self.free_parameters) or "none"
        return f"CasadiModel(n={self.n}, route={self.route!r}, free parameters: {free})"

    def _inputs(self, vectors: Sequence[str]) -> list[str]:
        """Input vectors of a function: ``params`` only if some are free, ``t`` only if read."""
        out = []
        for v in vectors:
            if v == "params" and not self.free_parameters:
                continue
            if v == "t" and not self.time_dependent:
                continue
            out.append(v)
        return out

    def _symbols(self, ca: Any, vectors: Sequence[str]) -> list[Any]:
        sizes = {"params": len(self.free_parameters), "t": 1}
        return [ca.SX.sym(cg.ARG[v], sizes.get(v, self.n)) for v in self._inputs(vectors)]

    @cached_property
    def regressor_params(self) -> tuple[sp.Expr, ...]:
        """The parameters π of the regressor's columns (see :attr:`regressor`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> dp.to_casadi(dp.defaults).regressor_params
        (l1*m1, l1*m2, l2*m2, l1**2*m1, l1**2*m2, l2**2*m2, l1*l2*m2)
        """
        return self._regressor_source().params(self)

    @cached_property
    def regressor(self) -> Any:
        """``Y(q, qd, qdd[, p])``: the regressor as a ``casadi.Function`` (n × k), τ = Y π.

        Built on first access by the regressor source handed to the constructor
        (:class:`lagdyn.identification.CasadiRegressor`, which
        :meth:`LagrangianSystem.to_casadi` passes): the recursive regressor program for a
        chain's standard parameters, otherwise the closed form of
        :func:`lagdyn.identification.regressor`.

        Raises
        ------
        LagdynError
            The model was built without a regressor source, or the equations are not linear
            in :attr:`regressor_params`.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> dp.to_casadi(dp.defaults).regressor.size_out(0)
        (2, 7)
        """
        return self._regressor_source().function(self, self.regressor_params)

    def _jacobians(self, base: Any, name: str, wrt: Sequence[str], outs: Sequence[str]) -> Any:
        """A Function of ``base``'s inputs returning its Jacobians by CasADi's AD."""
        ca = cg.import_casadi()
        names = base.name_in()
        args = [ca.SX.sym(k, *base.size_in(i)) for i, k in enumerate(names)]
        value = base(*args)
        named = dict(zip(names, args))
        jac = [ca.jacobian(value, named[k]) for k in wrt]
        return ca.Function(name, args, jac, names, list(outs))

    @cached_property
    def forward_dynamics_derivatives(self) -> Any:
        """``(∂q̈/∂q, ∂q̈/∂q̇, ∂q̈/∂τ)`` of :attr:`forward_dynamics` by CasADi's automatic
        differentiation (``casadi.jacobian`` of the graph), the same Jacobians as
        :meth:`lagdyn.NumericModel.forward_dynamics_derivatives`.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> f = dp.to_casadi(dp.defaults).forward_dynamics_derivatives
        >>> f.name_out(), f.size_out(0)
        (['dqdd_dq', 'dqdd_dqd', 'dqdd_dtau'], (2, 2))
        """
        return self._jacobians(
            self.forward_dynamics,
            "forward_dynamics_derivatives",
            ("q", "qd", "tau"),
            ("dqdd_dq", "dqdd_dqd", "dqdd_dtau"),
        )

    @cached_property
    def inverse_dynamics_derivatives(self) -> Any:
        """``(∂τ/∂q, ∂τ/∂q̇, ∂τ/∂q̈ = M)`` of :attr:`inverse_dynamics` by CasADi's AD.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> dp.to_casadi(dp.defaults).inverse_dynamics_derivatives.name_out()
        ['dtau_dq', 'dtau_dqd', 'dtau_dqdd']
        """
        return self._jacobians(
            self.inverse_dynamics,
            "inverse_dynamics_derivatives",
            ("q", "qd", "qdd"),
            ("dtau_dq", "dtau_dqd", "dtau_dqdd"),
        )

    @cached_property
    def step_rk4(self) -> Any:
        """``x1 = step_rk4(x, u, dt[, p][, t])``: one RK4 step of ``ẋ = (q̇, q̈)`` with ``u``
        held (the step of :meth:`lagdyn.NumericModel.step`), as a graph.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> dp.to_casadi(dp.defaults).step_rk4.name_in()
        ['x', 'u', 'dt']
        """
        ca = cg.import_casadi()
        n = self.n
        f = self.forward_dynamics
        x, u, dt = ca.SX.sym("x", 2 * n), ca.SX.sym("u", n), ca.SX.sym("dt")
        extra = [ca.SX.sym(k, *f.size_in(i)) for i, k in enumerate(f.name_in()) if i >= 3]
        t = next((a for a in extra if a.name().startswith("t")), None)

        def rate(z: Any, dtime: Any) -> Any:
            more = [a if a is not t else t + dtime for a in extra]
            return ca.vertcat(z[n:], f(z[:n], z[n:], u, *more))

        k1 = rate(x, 0)
        k2 = rate(x + 0.5 * dt * k1, 0.5 * dt)
        k3 = rate(x + 0.5 * dt * k2, 0.5 * dt)
        k4 = rate(x + dt * k3, dt)
        x1 = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        names = ["x", "u", "dt", *f.name_in()[3:]]
        return ca.Function("step_rk4", [x, u, dt, *extra], [x1], names, ["x1"])

    @cached_property
    def step_rk4_derivatives(self) -> Any:
        """``(∂x1/∂x, ∂x1/∂u)`` of :attr:`step_rk4` by CasADi's AD.

        Examples
        --------
        >>> import lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> dp.to_casadi(dp.defaults).step_rk4_derivatives.size_out(1)
        (4, 2)
        """
        return self._jacobians(self.step_rk4, "step_rk4_derivatives", ("x", "u"), ("A", "B"))

    def _regressor_source(self) -> Any:
        if self._regressor is None:
            raise LagdynError(
                "this CasadiModel has no regressor source: build it with system.to_casadi(...) "
                "or pass regressor=lagdyn.identification.CasadiRegressor() to to_casadi"
            )
        return self._regressor


def to_casadi(
    system: Any,
    params: Mapping[Any, float] | None = None,
    *,
    route: str | None = None,
    regressor: Any = None,
    strict: bool = False,
) -> CasadiModel:
    r"""``casadi.Function``\ s of ``system``'s dynamics, built from lagdyn's CSE program.

    Parameters
    ----------
    system : LagrangianSystem
        Any system, including robot chains.
    params : mapping of sympy.Symbol (or name) to float, optional
        Values folded into the graphs (as in :func:`lagdyn.numeric.lambdify`); every
        parameter not given is read from the input ``p`` of each function.
    route : {"recursive", "closed"}, optional
        For robot chains, as in :func:`lagdyn.numeric.lambdify` (default by size);
        ``"closed"`` also takes the regressor from the closed form.
    regressor : lagdyn.identification.CasadiRegressor, optional
        What builds :attr:`CasadiModel.regressor` on first access (its columns, its
        function); :meth:`LagrangianSystem.to_casadi` passes one.
    strict : bool
        Reject names in ``params`` that are not parameters of ``system``.

    Returns
    -------
    CasadiModel

    Raises
    ------
    BackendUnavailableError
        casadi is not installed (``pip install 'lagdyn[casadi]'``).
    LagdynError
        Bad parameter values; a function of the equations without a CasADi counterpart.
    SingularMassMatrixError
        Bound values that make M singular.

    Examples
    --------
    >>> import lagdyn as ld
    >>> cp = ld.zoo.cart_pole()
    >>> cm = cp.to_casadi({"g": 9.81})
    >>> print([s.name for s in cm.free_parameters], cm.h.name_in())
    ['Ip', 'l', 'mc', 'mp'] ['q', 'qd', 'p']
    """
    binding = Binding(system.parameters, params, strict=strict)
    return CasadiModel(system, binding, route=route, regressor=regressor)


def export_files(
    system: Any,
    name: str,
    params: Mapping[Any, float] | None = None,
    *,
    strict: bool = False,
) -> dict[str, str]:
    """The files of ``lagdyn export -t casadi``: one ``Function.save`` file per function.

    ``NAME_<function>.casadi`` for ``M``, ``C``, ``g``, ``h``, ``energy``,
    ``inverse_dynamics`` and ``forward_dynamics`` (load each with
    ``casadi.Function.load``) and ``NAME_README.md`` (layout, parameter order, signatures).

    Examples
    --------
    >>> import lagdyn as ld
    >>> sorted(export_files(ld.zoo.double_pendulum(), "dp"))[:3]
    ['dp_C.casadi', 'dp_M.casadi', 'dp_README.md']
    """
    cm = to_casadi(system, params, strict=strict)
    files = {f"{name}_{k}.casadi": cg.serialized(f) for k, f in cm.functions.items()}
    files[f"{name}_README.md"] = cg.readme(cm.program, name, cm.functions, _WHAT)
    return files
