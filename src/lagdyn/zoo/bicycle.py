r"""The Whipple bicycle of the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (2007).

J. P. Meijaard, J. M. Papadopoulos, A. Ruina and A. L. Schwab, *Linearized dynamics
equations for the balance and steer of a bicycle: a benchmark and review*, Proc. R.
Soc. A 463 (2007) 1955–1982 (MPRS below). Four rigid bodies: the rear wheel R, the rear
frame B (with the rider), the front frame H (handlebar and fork) and the front wheel F;
knife-edge wheels rolling without slipping on flat level ground; no friction in the
hinges. The full nonlinear model is built here with lagdyn's own machinery and the
benchmark's linearized equations

.. math:: M\ddot q + v\,C_1\dot q + (g K_0 + v^2 K_2)\,q = f, \qquad q = (\varphi, \delta),
          \quad f = (T_\varphi, T_\delta),

are *computed* from it (:meth:`WhippleBicycle.benchmark_matrices`), never typed in.

Conventions (those of MPRS): x forward, y to the right, z **down**; gravity g along +z.
Coordinates q = (x, y, ψ, φ, θ, δ, θ_R, θ_F): the rear contact point (x, y), the yaw ψ,
the roll (lean) φ of the rear frame (positive to the right), the pitch θ of the rear
frame (θ = 0 in the upright reference configuration; it is fixed by the others through
the holonomic constraint that the front wheel touch the ground), the steer δ of the
front frame about the steer axis (positive to the right), and the rotations θ_R, θ_F
of the wheels relative to their frames. The rear frame is oriented by
R_B = R_z(ψ) R_x(φ) R_y(θ), the front frame by R_B R_y(λ) R_z(δ) R_y(−λ) (λ the steer
axis tilt from the vertical), each wheel by a further rotation about its axle.

Constraints: one holonomic (the height of the front contact point is zero; the contact
point is the point of the rim lowest in the ground's normal direction, so the
constraint has a square root and no closed-form solution for θ) and four velocity
constraints (the material points of both wheels at their contacts have no horizontal
velocity). 8 coordinates − 1 − 4 leave 3 degrees of freedom of speed: φ̇, δ̇, θ̇_R.

Parameters (MPRS Table 1; names as in the paper, ``lam`` for λ): ``w`` wheelbase,
``c`` trail, ``lam`` steer axis tilt, ``g``; rear wheel ``r_R m_R I_Rxx I_Ryy``; rear
frame ``x_B z_B m_B I_Bxx I_Byy I_Bzz I_Bxz``; front frame ``x_H z_H m_H I_Hxx I_Hyy
I_Hzz I_Hxz``; front wheel ``r_F m_F I_Fxx I_Fyy``. Positions are those of the mass
centres in the upright reference configuration, measured from the rear contact point
(z negative above the ground); inertia tensors are about the mass centres in the global
axes of that configuration, with entries ``[[Ixx, 0, Ixz], [0, Iyy, 0], [Ixz, 0, Izz]]``.

Examples
--------
>>> import lagdyn as ld
>>> bike = ld.zoo.get("whipple_bicycle")
>>> bike.n, bike.m_holonomic, bike.m_velocity, bike.dof
(8, 1, 4, 3)
>>> M, C1, K0, K2 = bike.benchmark_matrices()
>>> round(float(M[0, 1]), 12), round(float(K2[0, 1]), 11)
(2.319413322087, 76.59734589573)
"""

from __future__ import annotations

import copy
import difflib
import math
import numbers
from collections.abc import Callable, Mapping
from functools import cache, cached_property
from typing import Any

import numpy as np
import symengine as se
import sympy as sp

from ..constraints import ConstrainedSystem
from ..errors import LagdynError
from ..symbols import coordinates, parameters, t
from ..system import LagrangianSystem
from ..trig.convert import plain_symengine

__all__ = ["BENCHMARK_PARAMETERS", "WhippleBicycle", "whipple_bicycle"]

#: The benchmark parameters of MPRS (Table 1), SI units; ``lam`` = λ = π/10.
BENCHMARK_PARAMETERS: dict[str, float] = {
    "w": 1.02,
    "c": 0.08,
    "lam": math.pi / 10,
    "g": 9.81,
    "r_R": 0.3,
    "m_R": 2.0,
    "I_Rxx": 0.0603,
    "I_Ryy": 0.12,
    "x_B": 0.3,
    "z_B": -0.9,
    "m_B": 85.0,
    "I_Bxx": 9.2,
    "I_Byy": 11.0,
    "I_Bzz": 2.8,
    "I_Bxz": 2.4,
    "x_H": 0.9,
    "z_H": -0.7,
    "m_H": 4.0,
    "I_Hxx": 0.05892,
    "I_Hyy": 0.06,
    "I_Hzz": 0.00708,
    "I_Hxz": -0.00756,
    "r_F": 0.35,
    "m_F": 3.0,
    "I_Fxx": 0.1405,
    "I_Fyy": 0.28,
}

# parameters that must be positive (the others are real: positions, products of inertia)
_POSITIVE = frozenset(
    {"w", "lam", "g", "r_R", "m_R", "I_Rxx", "I_Ryy", "m_B", "I_Bxx", "I_Byy", "I_Bzz"}
    | {"m_H", "I_Hxx", "I_Hyy", "I_Hzz", "r_F", "m_F", "I_Fxx", "I_Fyy"}
)
_COORDINATES = "x y psi phi theta delta theta_R theta_F"
# indices in q of the roll, pitch, steer and the rear wheel rotation
_X, _Y, _PSI, _PHI, _THETA, _DELTA, _TH_R, _TH_F = range(8)


# ---------------------------------------------------------------------- the model
def _rx(a: Any) -> sp.Matrix:
    return sp.Matrix([[1, 0, 0], [0, sp.cos(a), -sp.sin(a)], [0, sp.sin(a), sp.cos(a)]])


def _ry(a: Any) -> sp.Matrix:
    return sp.Matrix([[sp.cos(a), 0, sp.sin(a)], [0, 1, 0], [-sp.sin(a), 0, sp.cos(a)]])


def _rz(a: Any) -> sp.Matrix:
    return sp.Matrix([[sp.cos(a), -sp.sin(a), 0], [sp.sin(a), sp.cos(a), 0], [0, 0, 1]])


def _symbols() -> dict[str, sp.Symbol]:
    names = list(BENCHMARK_PARAMETERS)
    positive = parameters(" ".join(n for n in names if n in _POSITIVE))
    real = parameters(" ".join(n for n in names if n not in _POSITIVE), positive=False)
    table = {s.name: s for s in (*positive, *real)}
    return {n: table[n] for n in names}


@cache
def _model() -> tuple[LagrangianSystem, sp.Expr, list[sp.Expr], dict[str, sp.Symbol]]:
    """The symbolic model, once per process: (system, holonomic, velocity rows, symbols).

    The energies and constraints do not depend on the parameter values, so every bicycle
    shares them; only ``defaults`` differ.
    """
    q = coordinates(_COORDINATES)
    x, y, psi, phi, theta, delta, th_r, th_f = q
    p = _symbols()
    w, c, lam, g = p["w"], p["c"], p["lam"], p["g"]
    r_r, r_f = p["r_R"], p["r_F"]

    def rate(e: Any) -> Any:
        return sp.diff(e, t)

    ey, ez = sp.Matrix([0, 1, 0]), sp.Matrix([0, 0, 1])
    steer = _ry(lam) * _rz(delta) * _ry(-lam)  # about the tilted axis R_y(λ) e_z
    # body angular velocities in body axes: B from R_z(ψ) R_x(φ) R_y(θ), H = B · steer
    w_b = _ry(theta).T * (_rx(phi).T * rate(psi) * ez + sp.Matrix([rate(phi), 0, 0]))
    w_b += rate(theta) * ey
    w_h = steer.T * w_b + rate(delta) * _ry(lam) * ez
    # positions from the rear contact, in the yaw frame (world = (x, y, 0) + R_z(ψ) r)
    roll = _rx(phi)
    r_b_axes = roll * _ry(theta)
    r_h_axes = r_b_axes * steer
    rear_hub = roll * sp.Matrix([0, 0, -r_r])
    pivot = sp.Matrix([w + c, 0, r_r])  # where the steer axis meets the ground, from the hub

    def front(point: list[Any]) -> sp.Matrix:  # a point of the front frame (reference coords)
        return rear_hub + r_b_axes * (pivot + steer * (sp.Matrix(point) - pivot))

    rear_com = rear_hub + r_b_axes * sp.Matrix([p["x_B"], 0, p["z_B"] + r_r])
    front_com = front([p["x_H"], 0, p["z_H"] + r_r])
    front_hub = front([w, 0, r_r - r_f])
    base = _rz(psi).T * sp.Matrix([rate(x), rate(y), 0])

    def velocity(r: sp.Matrix) -> sp.Matrix:  # in the yaw frame
        return base + rate(psi) * sp.Matrix([-r[1], r[0], 0]) + rate(r)

    def tensor(body: str) -> sp.Matrix:
        xx, yy, zz, xz = (p[f"I_{body}{a}"] for a in ("xx", "yy", "zz", "xz"))
        return sp.Matrix([[xx, 0, xz], [0, yy, 0], [xz, 0, zz]])

    wheel_r = sp.diag(p["I_Rxx"], p["I_Ryy"], p["I_Rxx"])
    wheel_f = sp.diag(p["I_Fxx"], p["I_Fyy"], p["I_Fxx"])
    omega_r = w_b + rate(th_r) * ey  # in B axes: the wheel is symmetric about its axle
    omega_f = w_h + rate(th_f) * ey
    bodies = [
        (p["m_R"], wheel_r, rear_hub, omega_r),
        (p["m_B"], tensor("B"), rear_com, w_b),
        (p["m_H"], tensor("H"), front_com, w_h),
        (p["m_F"], wheel_f, front_hub, omega_f),
    ]
    T = sp.Integer(0)
    U = sp.Integer(0)
    for m, inertia, r, omega in bodies:
        v = velocity(r)
        T += m * (v.T * v)[0, 0] / 2 + (omega.T * inertia * omega)[0, 0] / 2
        U -= m * g * r[2]  # z down: the height is −z
    system = LagrangianSystem.from_energies(T, U, list(q))
    # the front contact: from the hub along the rim, straight down in the wheel's plane
    axle = r_h_axes * ey
    down = (ez - axle[2] * axle) / sp.sqrt(1 - axle[2] ** 2)
    contact = front_hub + r_f * down
    holonomic = contact[2]
    slip_r = velocity(rear_hub) + (r_b_axes * omega_r).cross(-rear_hub)
    slip_f = velocity(front_hub) + (r_h_axes * omega_f).cross(r_f * down)
    rows = [slip_r[0], slip_r[1], slip_f[0], slip_f[1]]
    return system, holonomic, rows, p


# ---------------------------------------------------------------------- parameters
def _check_parameters(given: Mapping[str, Any]) -> dict[str, float]:
    valid = list(BENCHMARK_PARAMETERS)
    unknown = [k for k in given if k not in BENCHMARK_PARAMETERS]
    if unknown:
        hints = []
        for k in unknown:
            close = [n for n in valid if n.lower() == str(k).lower()]
            close = close or difflib.get_close_matches(str(k), valid, n=2, cutoff=0.6)
            hints.append(
                f"{k!r}" + (f" (did you mean {' or '.join(map(repr, close))}?)" if close else "")
            )
        plural = "s" if len(unknown) > 1 else ""
        raise LagdynError(
            f"whipple_bicycle has no parameter{plural} {', '.join(hints)}; its parameters "
            f"(MPRS 2007, Table 1): {', '.join(valid)}"
        )
    values = dict(BENCHMARK_PARAMETERS)
    problems = []
    for k, v in given.items():
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            problems.append(f"{k} = {v!r} is not a real number")
            continue
        v = float(v)
        if not math.isfinite(v):
            problems.append(f"{k} = {v} is not finite")
        elif k in _POSITIVE and v <= 0:
            problems.append(f"{k} = {v} must be positive")
        values[k] = v
    if problems:
        raise LagdynError("bad bicycle parameters: " + "; ".join(problems))
    if values["lam"] >= math.pi / 2:
        problems.append(f"lam = {values['lam']} is not a tilt below π/2 (the steer axis)")
    for body in ("B", "H"):
        xx, zz, xz = (values[f"I_{body}{a}"] for a in ("xx", "zz", "xz"))
        if xx * zz - xz * xz <= 0:
            problems.append(
                f"the inertia tensor of {body} is not positive definite "
                f"(I_{body}xx I_{body}zz − I_{body}xz² = {xx * zz - xz * xz:.6g} ≤ 0)"
            )
    if problems:
        raise LagdynError("bad bicycle parameters: " + "; ".join(problems))
    return values


def whipple_bicycle(**parameters: float) -> WhippleBicycle:
    r"""The Whipple bicycle of Meijaard et al. (2007) with their benchmark parameters.

    Keyword arguments override the benchmark values (:data:`BENCHMARK_PARAMETERS`; names
    as in the paper's Table 1, ``lam`` for the steer axis tilt λ).

    Returns
    -------
    WhippleBicycle
        A :class:`~lagdyn.ConstrainedSystem` (1 holonomic, 4 velocity constraints) whose
        ``system.defaults`` hold the parameter values.

    Raises
    ------
    LagdynError
        An unknown parameter name (the message names it and lists the valid ones), a value
        that is not a finite real number, a mass, radius, moment of inertia, wheelbase,
        tilt or g that is not positive, a frame inertia that is not positive definite.

    Examples
    --------
    >>> from lagdyn.zoo.bicycle import whipple_bicycle
    >>> whipple_bicycle(w=1.1).system.defaults[whipple_bicycle().symbols["w"]]
    1.1
    >>> whipple_bicycle(wheelbase=1.1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: whipple_bicycle has no parameter 'wheelbase'; its parameters ...
    """
    values = _check_parameters(parameters)
    return _base()._with_values(values)


@cache
def _base() -> WhippleBicycle:
    """The bicycle with the benchmark values, built once per process (the others copy it)."""
    return WhippleBicycle(BENCHMARK_PARAMETERS)


# ---------------------------------------------------------------------- the bicycle
class WhippleBicycle(ConstrainedSystem):
    r"""The Whipple bicycle: a :class:`~lagdyn.ConstrainedSystem` plus its benchmark tools.

    Built by :func:`whipple_bicycle`. ``system`` is the unconstrained
    :class:`~lagdyn.LagrangianSystem` of the four bodies (8 coordinates, symbolic
    parameters, ``defaults`` the values); the holonomic row is the front contact height,
    the four velocity rows the horizontal slip of the two contact points.

    :meth:`linearize` with ``speed=v`` gives the benchmark's reduced model about upright
    straight running, :meth:`benchmark_matrices` its M, C1, K0, K2.

    Examples
    --------
    >>> import lagdyn as ld
    >>> bike = ld.zoo.get("whipple_bicycle")
    >>> [str(c) for c in bike.coordinates]
    ['x', 'y', 'psi', 'phi', 'theta', 'delta', 'theta_R', 'theta_F']
    """

    def __init__(self, values: Mapping[str, float]) -> None:
        base, holonomic, rows, symbols = _model()
        system = copy.copy(base)  # the same energies; the parameter values are its own
        system.defaults = {symbols[k]: float(v) for k, v in values.items()}
        super().__init__(system, [holonomic], velocity_constraints=rows)
        #: The parameter symbols by name.
        self.symbols: dict[str, sp.Symbol] = dict(symbols)
        #: The parameter values by name.
        self.values: dict[str, float] = {k: float(v) for k, v in values.items()}

    def _with_values(self, values: Mapping[str, float]) -> WhippleBicycle:
        """This bicycle with other parameter values: the symbolic model is shared (it does
        not depend on them), ``system.defaults``, :attr:`values` and numerics are new."""
        bike = copy.copy(self)
        bike.__dict__.pop("_linear", None)
        bike._numeric = None
        bike.system = copy.copy(self.system)
        bike.system.defaults = {self.symbols[k]: float(v) for k, v in values.items()}
        bike.values = {k: float(v) for k, v in values.items()}
        return bike

    @property
    def coordinates(self) -> tuple[str, ...]:
        """The coordinate names, in the order of ``system.q``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("whipple_bicycle").coordinates[3:6]
        ('phi', 'theta', 'delta')
        """
        return tuple(_COORDINATES.split())

    # ------------------------------------------------------------------ linearization
    @cached_property
    def _linear(self) -> _SteadyLinearization:
        return _SteadyLinearization(self)

    def linearize(self, **options: Any) -> tuple[Any, Any]:
        r"""(A, B) of the benchmark's reduced model at forward speed ``speed=v`` (m/s).

        The linearization of the full nonlinear equations about upright straight running
        at forward speed v (φ = δ = θ = ψ = 0, ẋ = v, θ̇_R = −v/r_R, θ̇_F = −v/r_F), states
        (φ, δ, φ̇, δ̇) and inputs (T_φ, T_δ): δẋ = A δx + B δf, numpy arrays of shape
        (4, 4) and (4, 2). A negative speed is rolling backwards (the same steady motion,
        reversed): the equations hold for it as they are.

        Raises
        ------
        LagdynError
            No ``speed``, other options with it, or a speed that is not a finite real
            number. (The general symbolic :meth:`lagdyn.ConstrainedSystem.linearize`, about
            any point, is not offered here: its exact reduction of the bicycle's
            square-root rows does not finish in reasonable time.)

        Examples
        --------
        >>> import lagdyn as ld
        >>> A, B = ld.zoo.get("whipple_bicycle").linearize(speed=5.0)
        >>> A.shape, B.shape
        ((4, 4), (4, 2))
        >>> sorted(round(float(e.real), 6) for e in __import__("numpy").linalg.eigvals(A))
        [-14.07839, -0.775342, -0.775342, -0.322866]
        """
        if "speed" not in options:
            given = f" (got {', '.join(sorted(options))})" if options else ""
            raise LagdynError(
                "the Whipple bicycle linearizes about upright straight running: pass "
                f"speed=v in m/s{given}"
            )
        speed = options.pop("speed")
        if options:
            raise LagdynError(
                f"linearize(speed=...) takes no other options, got {', '.join(sorted(options))}"
            )
        v = _speed(speed)
        M, C, K = self._linear.matrices(v, self.values["g"])
        Minv = np.linalg.inv(M)
        A = np.zeros((4, 4))
        A[:2, 2:] = np.eye(2)
        A[2:, :2] = -Minv @ K
        A[2:, 2:] = -Minv @ C
        B = np.zeros((4, 2))
        B[2:, :] = Minv
        return A, B

    def benchmark_matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        r"""M, C1, K0, K2 of MPRS: M q̈ + v C1 q̇ + (g K0 + v² K2) q = f, q = (φ, δ).

        Read off the linearization of the full equations (:meth:`linearize`): M is the
        reduced mass matrix, v C1 the coefficient of (φ̇, δ̇) at speed v, g K0 + v² K2 that
        of (φ, δ); the split by v and g is exact because the linearized equations are
        polynomials in them of those degrees (the tests check it at other speeds).

        Examples
        --------
        >>> import lagdyn as ld
        >>> M, C1, K0, K2 = ld.zoo.get("whipple_bicycle").benchmark_matrices()
        >>> M.round(8).tolist()
        [[80.81722, 2.31941332], [2.31941332, 0.29784188]]
        >>> K0.round(8).tolist()
        [[-80.95, -2.59951685], [-2.59951685, -0.80329488]]
        """
        lin = self._linear
        M, C1, K2 = lin.matrices(1.0, 0.0)
        _, _, K0 = lin.matrices(0.0, 1.0)
        return M, C1, K0, K2

    def eigenvalues(self, speed: float) -> np.ndarray:
        """The eigenvalues of :meth:`linearize` at ``speed``, sorted by real part.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ev = ld.zoo.get("whipple_bicycle").eigenvalues(0.0)
        >>> [round(float(e.real), 8) for e in ev]
        [-5.53094372, -3.13164325, 3.13164325, 5.53094372]
        """
        A, _ = self.linearize(speed=speed)
        ev = np.linalg.eigvals(A)
        return ev[np.lexsort((ev.imag, ev.real))]

    def stability_speeds(self, v_max: float = 10.0) -> tuple[float, float]:
        """(weave, capsize): the speeds bounding the first self-stable range in [0, v_max].

        The weave speed is where the last eigenvalue with positive real part (the weave
        pair) crosses into the left half-plane, the capsize speed where one (the capsize
        mode) leaves it again; located on a grid of 0.1 m/s (at most 2000 steps), then
        by bisection to 1e-12 m/s. A range that reaches v_max gives ``capsize = inf``.

        Raises
        ------
        LagdynError
            ``v_max`` not a positive finite number, or no self-stable speed up to it.

        Examples
        --------
        >>> import lagdyn as ld
        >>> weave, capsize = ld.zoo.get("whipple_bicycle").stability_speeds()
        >>> round(weave, 6), round(capsize, 6)
        (4.292383, 6.024262)
        """
        v_max = _speed(v_max)
        if v_max <= 0:
            raise LagdynError(f"v_max must be positive, got {v_max}")

        def stable(v: float) -> bool:
            return bool(max(self.eigenvalues(v).real) < 0)

        points = min(math.ceil(10 * v_max), 2000) + 1  # 0.1 m/s steps, at most 2000 of them
        grid = [float(v) for v in np.linspace(0.0, v_max, points)]
        flags = [stable(v) for v in grid]
        if not any(flags):
            raise LagdynError(f"this bicycle has no self-stable speed in [0, {v_max}] m/s")
        first = flags.index(True)
        after = [i for i in range(first, len(grid)) if not flags[i]]

        def bisect(lo: float, hi: float) -> float:  # stable(lo) != stable(hi)
            s_lo = stable(lo)
            while hi - lo > 1e-12:
                mid = (lo + hi) / 2
                if stable(mid) == s_lo:
                    lo = mid
                else:
                    hi = mid
            return (lo + hi) / 2

        weave = bisect(grid[first - 1], grid[first]) if first > 0 else 0.0
        capsize = bisect(grid[after[0] - 1], grid[after[0]]) if after else math.inf
        return weave, capsize

    def __repr__(self) -> str:
        return "WhippleBicycle(n=8, holonomic=1, velocity=4, dof=3)"


def _speed(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise LagdynError(f"speed must be a real number (m/s), got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise LagdynError(f"speed must be finite, got {v}")
    return v


# ---------------------------------------------------------------------- linearization
class _SteadyLinearization:
    r"""The linearization of the Lagrange–d'Alembert equations about straight running.

    With W = [J_c; A] the constraint rows (holonomic first), the equations are
    M q̈ + h = τ + Wᵀλ, W q̇ = 0, Φ(q) = 0. About a steady motion (q₀(t), q̇₀ constant,
    q̈₀ = 0, λ₀ from h₀ = W₀ᵀλ₀), the first variation is

        M₀ δq̈ + (∂h/∂q − ∂(Wᵀλ₀)/∂q) δq + ∂h/∂q̇ δq̇ − W₀ᵀ δλ = δτ,
        W₀ δq̇ + ∂(W q̇₀)/∂q δq = 0,   J_c δq = 0.

    The velocity rows give δq̇ = S₀ δu + P δq (u the independent speeds φ̇, δ̇, θ̇_R;
    S₀ the null-space basis, P from the dependent rows) and δq̈ = S₀ δu̇ + P δq̇; S₀ᵀ
    removes δλ. The holonomic row gives δθ from δφ, δδ. x, y, θ_R, θ_F do not appear in
    M, h or W at all (checked exactly) and ψ drops out of the reduced equations (checked
    to rounding): the states are (φ, δ) and their rates. Every derivative is taken of the
    model's own M, h (lagdyn's derivation) and constraint rows, symbolically in symengine
    with the parameters as symbols, then evaluated at the point for the bicycle's values.
    """

    def __init__(self, bike: WhippleBicycle) -> None:
        function, self.layout = _derivatives()
        names = list(BENCHMARK_PARAMETERS)
        self._values = [bike.values[k] for k in names if k != "g"]
        self._function = function
        self.n, self.m = bike.n, bike.m
        self._rates0 = np.array(
            [1.0, 0, 0, 0, 0, 0, -1 / bike.values["r_R"], -1 / bike.values["r_F"]]
        )
        self.independent = [_PHI, _DELTA, _TH_R]
        self.kept = [_PHI, _DELTA]

    def _arrays(self, v: float, g: float) -> dict[str, np.ndarray]:
        flat = np.asarray(self._function([v, g, *self._values]), dtype=float).ravel()
        out = {}
        pos = 0
        for name, shape in self.layout:
            size = int(np.prod(shape))
            out[name] = flat[pos : pos + size].reshape(shape)
            pos += size
        return out

    def matrices(self, v: float, g: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(M, C, K) of the (φ, δ) rows at speed v and gravity g: M q̈ + C q̇ + K q = f."""
        n = self.n
        a = self._arrays(v, g)
        M0, W0, h0 = a["M"], a["W"], a["h"]
        scale = max(1.0, float(np.abs(M0).max()))
        tol = 1e-9 * scale * max(1.0, abs(g), v * v)
        lam0, *_ = np.linalg.lstsq(W0.T, h0, rcond=None)
        if np.abs(W0.T @ lam0 - h0).max() > tol:  # pragma: no cover - symmetry
            raise LagdynError("upright straight running is not a steady motion of this bicycle")
        # columns: all n coordinates (zero for those the equations do not depend on)
        Hq = np.zeros((n, n))
        dW = np.zeros((self.m, n, n))
        Hq[:, _AT] = a["Hq"]
        dW[:, :, _AT] = a["dW"]
        Hq -= np.einsum("k,kjl->jl", lam0, dW)
        Wq = np.einsum("kjl,j->kl", dW, v * self._rates0)  # ∂(W q̇₀)/∂q
        ind = self.independent
        dep = [j for j in range(n) if j not in ind]
        Wd = W0[:, dep]
        S = np.zeros((n, len(ind)))
        S[ind, :] = np.eye(len(ind))
        S[dep, :] = -np.linalg.solve(Wd, W0[:, ind])
        P = np.zeros((n, n))
        P[dep, :] = -np.linalg.solve(Wd, Wq)
        G = M0 @ P + a["Hv"]
        Mr = S.T @ M0 @ S
        Cu = S.T @ G @ S
        Kq = S.T @ (G @ P + Hq)
        # ψ and the cyclic coordinates drop out; the pitch follows from J_c δq = 0
        if np.abs(Kq[:, [_PSI, *_CYCLIC]]).max() > tol:  # pragma: no cover - symmetry
            raise LagdynError("the reduced bicycle equations depend on the yaw or a wheel angle")
        J = W0[0]
        dtheta = -J[self.kept] / J[_THETA]
        K = Kq[:, self.kept] + np.outer(Kq[:, _THETA], dtheta)
        # the (φ, δ) rows do not involve the rear wheel speed's perturbation (symmetry)
        if max(np.abs(Mr[:2, 2]).max(), np.abs(Cu[:2, 2]).max()) > tol:
            raise LagdynError(  # pragma: no cover - symmetry
                "the lean and steer equations couple to the rear wheel speed"
            )
        return Mr[:2, :2], Cu[:2, :2], K[:2, :]


_AT = [_PSI, _PHI, _THETA, _DELTA]  # the coordinates the equations depend on
_CYCLIC = [_X, _Y, _TH_R, _TH_F]  # those they do not (checked exactly)


@cache
def _derivatives() -> tuple[Callable[..., Any], tuple[tuple[str, tuple[int, ...]], ...]]:
    """M, h, W and their first derivatives at upright straight running, as one function.

    Arguments (v, g, the other parameters in the order of :data:`BENCHMARK_PARAMETERS`);
    the layout names the blocks of the flat result.
    """
    bike = _base()
    system = bike.system
    q, qd = list(system.q), list(system.qd)
    n, m = len(q), bike.m
    qs, vs = system.plain_symbols
    forward: dict[Any, sp.Symbol] = dict(zip(qd, vs, strict=True))
    forward.update(dict(zip(q, qs, strict=True)))
    v = se.Symbol("_ld_speed")
    params = {k: se.Symbol(s.name) for k, s in bike.symbols.items()}
    sq = [se.Symbol(s.name) for s in qs]
    sv = [se.Symbol(s.name) for s in vs]
    rates0 = [v, 0, 0, 0, 0, 0, -v / params["r_R"], -v / params["r_F"]]
    point = {s: se.Integer(0) for s in sq}
    point.update({s: se.sympify(r) for s, r in zip(sv, rates0, strict=True)})

    def plain(e: sp.Expr) -> se.Basic:
        out = plain_symengine(e, forward)
        return se.sympify(system.plain(e)) if out is None else out

    M = [[plain(system.M[i, j]) for j in range(n)] for i in range(n)]
    h = [plain(system.h[i]) for i in range(n)]
    W = [[plain(bike.constraint_matrix[i, j]) for j in range(n)] for i in range(m)]
    # exact: the cyclic coordinates are absent from M, h and W
    every = [e for row in M for e in row] + h + [e for row in W for e in row]
    present = {str(s) for e in every for s in e.free_symbols}
    found = [str(q[j]) for j in _CYCLIC if str(sq[j]) in present]
    if found:  # pragma: no cover - a modelling error
        raise LagdynError(f"the bicycle's equations depend on {', '.join(found)}")
    k = len(_AT)
    entries: list[se.Basic] = [M[i][j] for i in range(n) for j in range(n)]
    entries += h
    entries += [se.diff(h[i], sq[j]) for i in range(n) for j in _AT]
    entries += [se.diff(h[i], sv[j]) for i in range(n) for j in range(n)]
    entries += [W[i][j] for i in range(m) for j in range(n)]
    entries += [se.diff(W[i][j], sq[a]) for i in range(m) for j in range(n) for a in _AT]
    entries = [e.xreplace(point) for e in entries]
    layout = (
        ("M", (n, n)),
        ("h", (n,)),
        ("Hq", (n, k)),
        ("Hv", (n, n)),
        ("W", (m, n)),
        ("dW", (m, n, k)),
    )
    args = [v, params["g"], *(params[name] for name in BENCHMARK_PARAMETERS if name != "g")]
    return se.Lambdify(args, entries, real=True, cse=True), layout
