r"""Simulation: integrate M q̈ + C q̇ + g = τ over a time grid, many initial states at once.

:func:`simulate` takes a numeric model (anything with ``n``, ``forward_dynamics(q, qd,
tau)`` and ``energy(q, qd)``, such as the :class:`~lagdyn.numeric.NumericModel` from
``system.lambdify(params)``) or a :class:`~lagdyn.LagrangianSystem` (lambdified with its
``defaults``), initial states ``x0 = [q, q̇]`` of shape ``(..., 2n)`` and an increasing
time grid ``t`` of shape ``(n_t,)``. It returns a :class:`SimulationResult` whose arrays
put the batch axes first: ``q``, ``qd`` of shape ``(..., n_t, n)``, ``energy`` of shape
``(..., n_t)``.

Methods
-------
``"rk4"``
    Classical fixed-step Runge–Kutta, order 4. Accurate over short horizons; its energy
    error grows secularly (slowly) over long runs.
``"midpoint"``
    Implicit midpoint rule, order 2, in canonical coordinates ``(q, p)`` with
    ``p = M(q) q̇`` when the model provides ``M`` and ``C`` (every ``NumericModel`` does):

    .. math::
        q_{k+1} = q_k + h\,\dot q(\bar x),\qquad
        p_{k+1} = p_k + h\,\dot p(\bar x),\qquad \bar x = \tfrac12 (x_k + x_{k+1}),

    with :math:`\dot p = M\ddot q + (C + C^T)\dot q` (since :math:`\dot M = C + C^T`).
    For natural conservative systems this is a symplectic, symmetric integrator: the
    energy error stays bounded over long runs, without secular drift. Models without
    ``M``/``C`` are integrated with the (symmetric) midpoint rule in ``(q, q̇)``. The
    implicit equations are solved by Newton's method with a Jacobian generated from the
    exact derivatives of the model's closed form (usually two evaluations a step; stable
    for stiff systems), or, for models without a closed-form system, by fixed-point
    iteration on the batched forward dynamics, until the change is at most
    ``tol · (1 + |value|)`` (default ``tol = 1e-12``), at most ``max_iter`` times;
    otherwise a :class:`~lagdyn.LagdynError` asks for a smaller step (``substeps``).
``"scipy-<name>"``
    :func:`scipy.integrate.solve_ivp` with ``method=<name>`` (``RK45``, ``DOP853``,
    ``Radau``, ``BDF``, ``LSODA``, ...), ``rtol``/``atol`` as given, outputs on the grid.
    Needs the ``sim`` extra (``pip install 'lagdyn[sim]'``).

Fixed-step methods take ``substeps`` steps between consecutive grid points.

Actuation ``tau``
-----------------
``None`` (zero); a constant array broadcastable to ``(..., n)``; an array over time of
shape ``(n_t, n)`` or ``(n_t, ..., n)`` (first axis along ``t``, linearly interpolated
between grid points); or a feedback callable ``tau(t, q, qd) -> (..., n)``.

Limits and checks
-----------------
Before anything runs, the states the run would return (output times × batch × 2n
doubles) are estimated and refused above :data:`MAX_OUTPUT_BYTES` (1 GiB), with the
estimate, and a fixed-step run of more than :data:`MAX_STEPS` steps (10⁸) is refused. A
step longer than the fastest time scale of the motion at the start (h·ρ above
:data:`STEP_SCALE_WARNING`, ρ the spectral radius of the linearized dynamics) gives a
:class:`~lagdyn.LagdynWarning`. A state that becomes NaN or infinite stops the run with a
:class:`~lagdyn.LagdynError` naming the time interval and the batch member. After a
fixed-step run, an energy balance off by more than :data:`ENERGY_DRIFT_WARNING` of the
energy scale gives a :class:`~lagdyn.LagdynWarning` (the step is too large for the motion).

Reports
-------
:attr:`SimulationResult.energy_drift` (E(t) − E(0)),
:attr:`SimulationResult.passivity_residual`
(:math:`E(t) - E(0) - \int_0^t \dot q^T\tau\,dt`, trapezoid rule on the grid: it stays at
integration error for a passive model), and, when a constraint function ``phi`` is given
(or the model has one), :math:`|\Phi(q)|`; :meth:`SimulationResult.report` summarizes them.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn.simulation import simulate
>>> sys = ld.zoo.double_pendulum()
>>> res = simulate(sys, [0.5, 0.0, 0.0, 0.0], np.linspace(0.0, 1.0, 101), method="midpoint")
>>> res.q.shape, res.energy.shape
((101, 2), (101,))
>>> bool(abs(res.energy_drift).max() < 1e-3)
True
"""

from .api import DynamicsModel, simulate
from .integrators import ENERGY_DRIFT_WARNING, MAX_OUTPUT_BYTES, MAX_STEPS, STEP_SCALE_WARNING
from .result import ConstrainedSimulationResult, SimulationReport, SimulationResult

__all__ = [
    "ENERGY_DRIFT_WARNING",
    "MAX_OUTPUT_BYTES",
    "MAX_STEPS",
    "STEP_SCALE_WARNING",
    "ConstrainedSimulationResult",
    "DynamicsModel",
    "SimulationReport",
    "SimulationResult",
    "simulate",
]
