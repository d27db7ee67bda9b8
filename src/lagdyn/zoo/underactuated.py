"""Underactuated benchmarks: cart-pole, Spong's acrobot, the Furuta (rotary) pendulum.

lagdyn systems carry one generalized force slot per coordinate; which of them a
controller may use is a property of the task, stated in each docstring (e.g. the
acrobot is driven at the elbow only: ``equations([0, tau2])``).
"""

from __future__ import annotations

import sympy as sp

from ..geometry import Drawing, attach
from ..kinematics import Particle, RigidBody2D, RigidBody3D, from_bodies
from ..symbols import coordinates, parameters
from ..system import LagrangianSystem

__all__ = ["acrobot", "cart_pole", "furuta_pendulum"]


def _rz(angle: sp.Expr) -> sp.Matrix:
    """Active rotation by ``angle`` about z."""
    c, s = sp.cos(angle), sp.sin(angle)
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _rx(angle: sp.Expr) -> sp.Matrix:
    """Active rotation by ``angle`` about x."""
    c, s = sp.cos(angle), sp.sin(angle)
    return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])


def cart_pole() -> LagrangianSystem:
    r"""The cart-pole: a cart on a horizontal rail carrying a freely pivoting pole.

    ::

                 o   pole: mass mp, COM at distance l from the pivot,
                  \        inertia Ip about its COM
                   \ θ (from the upward vertical, tips toward +x)
              +-----o-----+
              |  cart mc  | --> x
              +-o-------o-+
          ==================== rail          gravity g along −y

    Conventions: ``x`` is the cart position along the rail; ``theta`` the pole angle
    from the *upward* vertical, positive when the pole leans toward +x (``theta = 0``
    is the upright, unstable equilibrium; ``theta = pi`` hangs down). The pole's COM is
    at ``(x + l sin θ, l cos θ)``. Only the cart is actuated in the usual task:
    ``equations([F, 0])``.

    Model parameters (positive symbols): ``mc mp l Ip g``. Defaults (Barto, Sutton &
    Anderson 1983): mc = 1, mp = 0.1, l = 0.5 (half the pole length), Ip = mp (2l)²/12,
    g = 9.81.

    Returns
    -------
    LagrangianSystem

    Examples
    --------
    >>> from lagdyn.zoo.underactuated import cart_pole
    >>> cp = cart_pole()
    >>> cp.q
    (x(t), theta(t))
    >>> cp.M[0, 0], cp.M[0, 1]
    (mc + mp, l*mp*cos(theta(t)))
    """
    x, th = coordinates("x theta")
    mc, mp, ell, Ip, g = parameters("mc mp l Ip g")
    cart = Particle(mc, (x, 0))
    pole = RigidBody2D(mp, Ip, (x + ell * sp.sin(th), ell * sp.cos(th)), -th)
    defaults = {mc: 1.0, mp: 0.1, ell: 0.5, Ip: 0.1 * 1.0**2 / 12, g: 9.81}
    system = from_bodies([cart, pole], [x, th], gravity=(0, -g), defaults=defaults)
    tip = (x + 2 * ell * sp.sin(th), 2 * ell * sp.cos(th))  # the pole's far end
    return attach(system, Drawing.chain([(x, 0), tip], pivots=(), carts=(0,)))


def acrobot() -> LagrangianSystem:
    r"""Spong's acrobot: a two-link planar arm actuated at the elbow only.

    ::

                      o  link 2 (m2, I2, COM at lc2)
                     /  q2 (relative to link 1)
                    o  elbow: the only motor
                   /
                  /  link 1 (m1, I1, COM at lc1, length l1)
                 / q1 (from the horizontal)
          ------o------ x    shoulder: passive, fixed

    Conventions (Spong 1995, "The swing up control problem for the Acrobot"): ``q1``
    is the angle of link 1 from the horizontal x axis, ``q2`` the elbow angle of link 2
    relative to link 1, both counter-clockwise; the upright equilibrium is
    ``(q1, q2) = (pi/2, 0)``. Gravity along −y. The mass matrix is the seed-001 form
    ``[[α + 2β cos q2, δ + β cos q2], [δ + β cos q2, δ]]``. The usual task drives the
    elbow only: ``equations([0, tau2])``.

    Model parameters (positive symbols): ``m1 m2 l1 lc1 lc2 I1 I2 g``. Defaults
    (Spong 1995): m1 = m2 = 1, l1 = 1, lc1 = 0.5, lc2 = 1 (link 2 is 2 long),
    I1 = 0.083, I2 = 0.33, g = 9.8.

    Returns
    -------
    LagrangianSystem

    Examples
    --------
    >>> from lagdyn.zoo.underactuated import acrobot
    >>> acro = acrobot()
    >>> acro.M[1, 1]
    I2 + lc2**2*m2
    >>> {str(k): v for k, v in acro.defaults.items()}["I2"]
    0.33
    """
    q1, q2 = coordinates("q1 q2")
    m1, m2, l1, lc1, lc2, I1, I2, g = parameters("m1 m2 l1 lc1 lc2 I1 I2 g")
    th2 = q1 + q2
    link1 = RigidBody2D(m1, I1, (lc1 * sp.cos(q1), lc1 * sp.sin(q1)), q1)
    link2 = RigidBody2D(
        m2, I2, (l1 * sp.cos(q1) + lc2 * sp.cos(th2), l1 * sp.sin(q1) + lc2 * sp.sin(th2)), th2
    )
    defaults = {m1: 1.0, m2: 1.0, l1: 1.0, lc1: 0.5, lc2: 1.0, I1: 0.083, I2: 0.33, g: 9.8}
    system = from_bodies([link1, link2], [q1, q2], gravity=(0, -g), defaults=defaults)
    elbow = (l1 * sp.cos(q1), l1 * sp.sin(q1))
    tip = (elbow[0] + 2 * lc2 * sp.cos(th2), elbow[1] + 2 * lc2 * sp.sin(th2))
    return attach(system, Drawing.chain([(0, 0), elbow, tip]))


def furuta_pendulum() -> LagrangianSystem:
    r"""The Furuta (rotary inverted) pendulum: a horizontal arm driven about the vertical
    axis, carrying a pendulum that swings in the plane perpendicular to the arm.

    ::

                 z
                 ^        o  pendulum (m2, COM at lc2, inertia J2 about its COM)
                 |       /  θ2 from the upward vertical, about the arm axis
                 |  L1  /
                 o=====o    arm (m1, COM at lc1, inertia J1 about its COM)
                 |  θ1 about z (top view: from the x axis)
              motor

    Conventions: ``theta1`` is the arm angle about the vertical z axis, measured from x;
    ``theta2`` the pendulum angle from the upward vertical, a rotation about the arm's
    own axis (``theta2 = 0`` upright). Frames: arm ``R1 = Rz(θ1)``, pendulum
    ``R2 = Rz(θ1) Rx(θ2)``; the arm is a slender rod along its x axis (inertia
    ``diag(0, J1, J1)`` about its COM), the pendulum a slender rod along its z axis
    (``diag(J2, J2, 0)``). Pendulum COM at ``R1 (L1, 0, 0) + R2 (0, 0, lc2)``. Gravity
    along −z. The inertia is coupled and configuration dependent:

    .. math::
        M = \begin{bmatrix} J_1 + m_1 l_{c1}^2 + m_2 L_1^2 + (J_2 + m_2 l_{c2}^2)\sin^2\theta_2
                              & -m_2 L_1 l_{c2}\cos\theta_2 \\
                            -m_2 L_1 l_{c2}\cos\theta_2 & J_2 + m_2 l_{c2}^2 \end{bmatrix}.

    Only the arm is actuated in the usual task: ``equations([tau1, 0])``.

    Model parameters (positive symbols): ``m1 m2 L1 lc1 lc2 J1 J2 g``. Defaults (a
    small laboratory rig): m1 = 0.3, m2 = 0.1, L1 = 0.2, lc1 = 0.1, lc2 = 0.15,
    J1 = 0.001, J2 = 0.00075, g = 9.81.

    Returns
    -------
    LagrangianSystem

    Examples
    --------
    >>> from lagdyn.zoo.underactuated import furuta_pendulum
    >>> fp = furuta_pendulum()
    >>> fp.M[0, 1]
    -L1*lc2*m2*cos(theta2(t))
    >>> fp.U
    g*lc2*m2*cos(theta2(t))
    """
    th1, th2 = coordinates("theta1 theta2")
    m1, m2, L1, lc1, lc2, J1, J2, g = parameters("m1 m2 L1 lc1 lc2 J1 J2 g")
    R1 = _rz(th1)
    R2 = R1 * _rx(th2)
    arm = RigidBody3D(m1, sp.diag(0, J1, J1), tuple(R1 * sp.Matrix([lc1, 0, 0])), rotation=R1)
    pend_com = R1 * sp.Matrix([L1, 0, 0]) + R2 * sp.Matrix([0, 0, lc2])
    pend = RigidBody3D(m2, sp.diag(J2, J2, 0), tuple(pend_com), rotation=R2)
    defaults = {
        m1: 0.3,
        m2: 0.1,
        L1: 0.2,
        lc1: 0.1,
        lc2: 0.15,
        J1: 0.001,
        J2: 0.00075,
        g: 9.81,
    }
    system = from_bodies([arm, pend], [th1, th2], gravity=(0, 0, -g), defaults=defaults)
    arm_end = R1 * sp.Matrix([L1, 0, 0])
    tip = arm_end + R2 * sp.Matrix([0, 0, 2 * lc2])  # the pendulum's far end
    return attach(system, Drawing.chain([(0, 0, 0), tuple(arm_end), tuple(tip)]))
