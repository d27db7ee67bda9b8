r"""The planar five-bar parallel robot, closed through :func:`lagdyn.robot.close_loops`.

The mechanism is written as a small URDF tree (:data:`FIVE_BAR_URDF`: two legs of two
links hanging from a base, each ending in a fixed ``*_tip`` frame) and closed by one planar
loop holding the two tips together, so the zoo model is built by the same path as a user's
parallel robot: ``from_urdf`` → ``close_loops``.

Examples
--------
>>> import lagdyn as ld
>>> fb = ld.zoo.five_bar()
>>> [str(q) for q in fb.system.q]
['q1(t)', 'q2(t)', 'q3(t)', 'q4(t)']
"""

from __future__ import annotations

from ..robot.loops import ClosedLoopSystem, close_loops
from ..robot.urdf import from_urdf
from ..symbols import parameters as _parameters

__all__ = ["FIVE_BAR_URDF", "five_bar"]

#: Base width d = 0.2 m, proximal links l1 = 0.15 m, distal links l2 = 0.2 m; uniform
#: rods, proximal 0.2 kg, distal 0.15 kg (inertia m l²/12 about the COM, across the rod).
#: At q = 0 the proximal links point up (+y) and the distal ones meet at the apex
#: (0, l1 + l2 sin 60°), 60° from the x axis: every joint origin turns by a multiple of π/6.
FIVE_BAR_URDF = """<?xml version="1.0"?>
<robot name="five_bar">
  <link name="base"/>
  <joint name="left_motor" type="revolute"><parent link="base"/><child link="left_proximal"/>
    <origin xyz="-0.1 0 0" rpy="0 0 1.5707963267948966"/><axis xyz="0 0 1"/></joint>
  <link name="left_proximal"><inertial><origin xyz="0.075 0 0"/><mass value="0.2"/>
    <inertia ixx="0" ixy="0" ixz="0" iyy="0.000375" iyz="0" izz="0.000375"/></inertial></link>
  <joint name="left_elbow" type="revolute">
    <parent link="left_proximal"/><child link="left_distal"/>
    <origin xyz="0.15 0 0" rpy="0 0 -0.5235987755982988"/><axis xyz="0 0 1"/></joint>
  <link name="left_distal"><inertial><origin xyz="0.1 0 0"/><mass value="0.15"/>
    <inertia ixx="0" ixy="0" ixz="0" iyy="0.0005" iyz="0" izz="0.0005"/></inertial></link>
  <joint name="left_tip_joint" type="fixed"><parent link="left_distal"/><child link="left_tip"/>
    <origin xyz="0.2 0 0"/></joint>
  <link name="left_tip"/>
  <joint name="right_motor" type="revolute"><parent link="base"/><child link="right_proximal"/>
    <origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/><axis xyz="0 0 1"/></joint>
  <link name="right_proximal"><inertial><origin xyz="0.075 0 0"/><mass value="0.2"/>
    <inertia ixx="0" ixy="0" ixz="0" iyy="0.000375" iyz="0" izz="0.000375"/></inertial></link>
  <joint name="right_elbow" type="revolute">
    <parent link="right_proximal"/><child link="right_distal"/>
    <origin xyz="0.15 0 0" rpy="0 0 0.5235987755982988"/><axis xyz="0 0 1"/></joint>
  <link name="right_distal"><inertial><origin xyz="0.1 0 0"/><mass value="0.15"/>
    <inertia ixx="0" ixy="0" ixz="0" iyy="0.0005" iyz="0" izz="0.0005"/></inertial></link>
  <joint name="right_tip_joint" type="fixed"><parent link="right_distal"/><child link="right_tip"/>
    <origin xyz="0.2 0 0"/></joint>
  <link name="right_tip"/>
</robot>
"""


def five_bar(*, parameters: str = "numeric", vertical: bool = False) -> ClosedLoopSystem:
    r"""A planar five-bar (2-DOF parallel) robot: two actuated proximal links on a base of
    width d, two distal links meeting at the end effector, the loop a holonomic constraint.

    ::

                       E  (apex: the end effector, where the two tips meet)
                      / \
                 l2  /   \  l2            left_motor at (−d/2, 0), right_motor at (d/2, 0)
                    /     \               q1 = left_motor, q2 = left_elbow (relative),
                   B1      B2             q3 = right_motor, q4 = right_elbow (relative)
                   |       |              q = 0: proximal links along +y, distal links
               l1  |       |  l1          60° from the x axis (the configuration drawn)
                   |       |
           ========A1==d===A2========    joint axes along z; the mechanism moves in xy

    Built from :data:`FIVE_BAR_URDF` by :func:`lagdyn.robot.from_urdf` and closed by
    :func:`lagdyn.robot.close_loops` with the loop ``("left_tip", "right_tip", "planar")``:
    :math:`\Phi(q) = p_{left\,tip}(q) - p_{right\,tip}(q)` (x and y, world frame), so n = 4,
    m = 2, two degrees of freedom (the two motors). Coordinates in Pinocchio's order
    (depth-first, joints by name).

    Parameters (defaults, SI): d = 0.2, l1 = 0.15, l2 = 0.2; uniform rods of 0.2 kg
    (proximal) and 0.15 kg (distal). These are illustrative values of our own, of the size
    of laboratory five-bars (such as ETS Montréal's DexTAR), not a product's data sheet.

    Parameters
    ----------
    parameters : {"numeric", "symbolic"}
        The file's inertial numbers, or ten symbols per link (``XX1`` … ``M4``) with the
        numbers as ``defaults`` (the geometry stays numeric).
    vertical : bool
        Gravity in the mechanism's plane, along −y (``(0, -g, 0)``, g = 9.81): a five-bar
        standing up. Default: the mechanism lies flat; gravity along −z does no work and is
        left out.

    Examples
    --------
    >>> import lagdyn as ld
    >>> fb = ld.zoo.five_bar(vertical=True)
    >>> qdd, lam = fb.solve([0.0, 0.0, 0.0, 0.0], [0.0] * 4, [0.0] * 4)
    >>> abs(float(qdd[0] + qdd[2])) < 1e-12        # the symmetric fall: mirrored motors
    True
    """
    g = _parameters("g")[0] if vertical else None
    robot = from_urdf(
        FIVE_BAR_URDF,
        parameters=parameters,
        gravity=(0, -g, 0) if g is not None else (0, 0, 0),
        base="fixed",
    )
    if g is not None:
        robot.defaults[g] = 9.81
    return close_loops(robot, [("left_tip", "right_tip", "planar")])
