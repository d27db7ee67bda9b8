r"""Robot arms: PUMA 560, UR5, Franka Panda, a planar 3R and a spatial 3R.

Every factory returns a :class:`~lagdyn.robot.RobotSystem` (a :class:`LagrangianSystem` with
``chain`` and the recursive programs) with coordinates ``q1 … qn`` and gravity ``(0, 0, -g)``
along the base z axis (``(0, -g, 0)`` for the planar arm), ``g`` = 9.81 in ``defaults``.
``parameters="numeric"`` (default) binds the published inertial numbers (exact decimals);
``parameters="symbolic"`` gives ten barycentric symbols per link (``XX1 … M1``) with those
numbers as ``defaults``.

Examples
--------
>>> import lagdyn as ld
>>> [ld.zoo.get(name).n for name in ("planar_3r", "spatial_3r", "puma560", "ur5", "panda")]
[3, 3, 6, 6, 7]
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..errors import LagdynError
from ..robot.builders import from_dh
from ..robot.system import RobotSystem
from ..robot.urdf import from_urdf

# Arms whose closed form (M by the trig-polynomial path, C, proofs, generated numerics) takes
# tens of seconds each: the zoo-wide contract tests skip them; tests/robot/ cover them
# through the recursive route and numeric closed-form cross-checks.
LARGE = ("panda", "puma560", "ur5")

__all__ = ["LARGE", "UR5_URDF", "panda", "planar_3r", "puma560", "spatial_3r", "ur5"]

_pi = sp.pi


def planar_3r(*, parameters: str = "numeric") -> RobotSystem:
    r"""A planar 3R arm of three uniform unit rods (m = 1, l = 1), standard DH.

    ::

        y ↑   o───────o───────o───────●
          │  q1      q2      q3
          └──→ x      gravity −y

    Joint axes along z; q = 0 is the arm stretched along x; link frame i at the tip of
    rod i (standard DH, a = 1), COM at (−½, 0, 0) in it, :math:`I_{zz} = 1/12` about the
    COM. Gravity ``(0, -g, 0)``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.planar_3r().M[2, 2]
    1/3
    """
    rod = {
        "m": 1,
        "com": (sp.Rational(-1, 2), 0, 0),
        "I": (0, sp.Rational(1, 12), sp.Rational(1, 12), 0, 0, 0),
    }
    g = sp.Symbol("g", positive=True)
    system = from_dh([(0, 1, 0)] * 3, inertia=[rod] * 3, parameters=parameters, gravity=(0, -g, 0))
    system.defaults.setdefault(g, 9.81)
    system.chain.defaults.setdefault(g, 9.81)  # type: ignore[attr-defined]
    return system


def spatial_3r(*, parameters: str = "numeric") -> RobotSystem:
    r"""A spatial 3R elbow arm (anthropomorphic, standard DH), unit rods.

    DH rows (d, a, α): (1, 0, π/2), (0, 1, 0), (0, 1, 0): a vertical waist joint, then
    shoulder and elbow with horizontal parallel axes. Link 1: m = 1, COM (0, −½, 0),
    inertia diag(1/12, 0, 1/12) about it; links 2–3: uniform rods along their x axes
    (COM (−½, 0, 0), :math:`I_{yy} = I_{zz} = 1/12`). Gravity along −z of the base.

    Examples
    --------
    >>> import lagdyn as ld
    >>> arm = ld.zoo.spatial_3r()
    >>> arm.chain.parents, arm.g[0]
    ((-1, 0, 1), 0)
    """
    h = sp.Rational(1, 2)
    i12 = sp.Rational(1, 12)
    inertia = [
        {"m": 1, "com": (0, -h, 0), "I": (i12, 0, i12, 0, 0, 0)},
        {"m": 1, "com": (-h, 0, 0), "I": (0, i12, i12, 0, 0, 0)},
        {"m": 1, "com": (-h, 0, 0), "I": (0, i12, i12, 0, 0, 0)},
    ]
    return from_dh([(1, 0, _pi / 2), (0, 1, 0), (0, 1, 0)], inertia=inertia, parameters=parameters)


# Corke, Robotics Toolbox for Python, models/DH/Puma560.py (Armstrong, Khatib & Burdick 1986;
# the link-1 inertia Izz = 0.35 is Corke's: it lumps the base). Inertia about the COM,
# order Ixx Iyy Izz Ixy Iyz Ixz; motor inertia Jm and gear ratio G give the armature Jm G².
_PUMA_DH = [
    (0, 0, _pi / 2),
    (0, 0.4318, 0),
    (0.15005, 0.0203, -_pi / 2),
    (0.4318, 0, _pi / 2),
    (0, 0, -_pi / 2),
    (0, 0, 0),
]
_PUMA_INERTIA: list[dict[str, Any]] = [
    {"m": 0, "com": (0, 0, 0), "I": (0, 0.35, 0, 0, 0, 0)},
    {"m": 17.4, "com": (-0.3638, 0.006, 0.2275), "I": (0.13, 0.524, 0.539, 0, 0, 0)},
    {"m": 4.8, "com": (-0.0203, -0.0141, 0.070), "I": (0.066, 0.086, 0.0125, 0, 0, 0)},
    {"m": 0.82, "com": (0, 0.019, 0), "I": (1.8e-3, 1.3e-3, 1.8e-3, 0, 0, 0)},
    {"m": 0.34, "com": (0, 0, 0), "I": (0.3e-3, 0.4e-3, 0.3e-3, 0, 0, 0)},
    {"m": 0.09, "com": (0, 0, 0.032), "I": (0.15e-3, 0.15e-3, 0.04e-3, 0, 0, 0)},
]
_PUMA_MOTORS = [
    (200e-6, -62.6111),
    (200e-6, 107.815),
    (200e-6, -53.7063),
    (33e-6, 76.0364),
    (33e-6, 71.923),
    (33e-6, 76.686),
]  # (Jm, G)


def puma560(*, parameters: str = "numeric", armature: bool = False) -> RobotSystem:
    r"""The Unimation PUMA 560 (6R), standard DH, Armstrong, Khatib & Burdick (1986).

    Kinematic and inertial parameters as in Peter Corke's Robotics Toolbox
    (``models/DH/Puma560.py``): DH rows (d, a, α) = (0, 0, π/2), (0, 0.4318, 0),
    (0.15005, 0.0203, −π/2), (0.4318, 0, π/2), (0, 0, −π/2), (0, 0, 0) in metres; masses
    0, 17.4, 4.8, 0.82, 0.34, 0.09 kg; COMs and inertias about the COM in the distal DH
    link frames; link 1's :math:`I_{yy}` = 0.35 lumps the base. q = 0 is Corke's zero
    configuration (arm horizontal along x, forearm up); gravity −z of the base.
    ``armature=True`` adds the motor inertias :math:`J_m G^2` on the diagonal.

    Gravity torques at q = 0, g = 9.81: [0, 37.4837, 0.2489, 0, 0, 0] N·m.

    Examples
    --------
    >>> import lagdyn as ld
    >>> puma = ld.zoo.puma560()
    >>> [round(float(x.subs(puma.defaults).subs({q: 0 for q in puma.q})), 4) for x in puma.g]
    [0.0, 37.4837, 0.2489, 0.0, 0.0, 0.0]
    """
    inertia = [dict(spec) for spec in _PUMA_INERTIA]
    if armature:
        for spec, (jm, gr) in zip(inertia, _PUMA_MOTORS):
            spec["armature"] = sp.Rational(repr(jm)) * sp.Rational(repr(gr)) ** 2
    # Corke's inertias break the triangle inequality A + B ≥ C (link 1 lumps the base into
    # Iyy; link 3: 0.0125 + 0.066 < 0.086): kept as published, without the warning
    return from_dh(_PUMA_DH, inertia=inertia, parameters=parameters, check_inertia=False)


# ur_description (Universal Robots ROS package, BSD-3; the copy in example-robot-data),
# kinematics and inertials only; the arm's DH: d1 = 0.089159, a2 = −0.425, a3 = −0.39225,
# d4 = 0.10915, d5 = 0.09465, d6 = 0.0823.
UR5_URDF = """<robot name="ur5">
  <link name="base_link"/>
  <joint name="shoulder_pan_joint" type="revolute"><parent link="base_link"/>
    <child link="shoulder_link"/><origin xyz="0.0 0.0 0.089159" rpy="0.0 0.0 0.0"/>
    <axis xyz="0 0 1"/></joint>
  <link name="shoulder_link"><inertial><mass value="3.7"/><origin xyz="0.0 0.0 0.0"/>
    <inertia ixx="0.010267495893" ixy="0.0" ixz="0.0" iyy="0.010267495893" iyz="0.0"
             izz="0.00666"/></inertial></link>
  <joint name="shoulder_lift_joint" type="revolute"><parent link="shoulder_link"/>
    <child link="upper_arm_link"/><origin xyz="0.0 0.13585 0.0" rpy="0.0 1.57079632679 0.0"/>
    <axis xyz="0 1 0"/></joint>
  <link name="upper_arm_link"><inertial><mass value="8.393"/><origin xyz="0.0 0.0 0.28"/>
    <inertia ixx="0.22689067591" ixy="0.0" ixz="0.0" iyy="0.22689067591" iyz="0.0"
             izz="0.0151074"/></inertial></link>
  <joint name="elbow_joint" type="revolute"><parent link="upper_arm_link"/>
    <child link="forearm_link"/><origin xyz="0.0 -0.1197 0.425" rpy="0.0 0.0 0.0"/>
    <axis xyz="0 1 0"/></joint>
  <link name="forearm_link"><inertial><mass value="2.275"/><origin xyz="0.0 0.0 0.25"/>
    <inertia ixx="0.049443313556" ixy="0.0" ixz="0.0" iyy="0.049443313556" iyz="0.0"
             izz="0.004095"/></inertial></link>
  <joint name="wrist_1_joint" type="revolute"><parent link="forearm_link"/>
    <child link="wrist_1_link"/><origin xyz="0.0 0.0 0.39225" rpy="0.0 1.57079632679 0.0"/>
    <axis xyz="0 1 0"/></joint>
  <link name="wrist_1_link"><inertial><mass value="1.219"/><origin xyz="0.0 0.0 0.0"/>
    <inertia ixx="0.111172755531" ixy="0.0" ixz="0.0" iyy="0.111172755531" iyz="0.0"
             izz="0.21942"/></inertial></link>
  <joint name="wrist_2_joint" type="revolute"><parent link="wrist_1_link"/>
    <child link="wrist_2_link"/><origin xyz="0.0 0.093 0.0" rpy="0.0 0.0 0.0"/>
    <axis xyz="0 0 1"/></joint>
  <link name="wrist_2_link"><inertial><mass value="1.219"/><origin xyz="0.0 0.0 0.0"/>
    <inertia ixx="0.111172755531" ixy="0.0" ixz="0.0" iyy="0.111172755531" iyz="0.0"
             izz="0.21942"/></inertial></link>
  <joint name="wrist_3_joint" type="revolute"><parent link="wrist_2_link"/>
    <child link="wrist_3_link"/><origin xyz="0.0 0.0 0.09465" rpy="0.0 0.0 0.0"/>
    <axis xyz="0 1 0"/></joint>
  <link name="wrist_3_link"><inertial><mass value="0.1879"/><origin xyz="0.0 0.0 0.0"/>
    <inertia ixx="0.0171364731454" ixy="0.0" ixz="0.0" iyy="0.0171364731454" iyz="0.0"
             izz="0.033822"/></inertial></link>
  <joint name="ee_fixed_joint" type="fixed"><parent link="wrist_3_link"/>
    <child link="ee_link"/><origin xyz="0.0 0.0823 0.0" rpy="0.0 0.0 1.57079632679"/></joint>
  <link name="ee_link"/>
</robot>
"""


# Universal Robots, "DH parameters for calculations of kinematics and dynamics" (UR5, CB
# series 3): standard DH rows (d, a, alpha); masses and COMs in the DH link frames. UR gives
# no inertia tensors for the UR5; these are ur_description's (ROS 2,
# config/ur5/physical_parameters.yaml) cylinder approximations about the COM, made for the
# same masses, with the cylinder axis mapped into the DH frames (shoulder, wrist 1, wrist 2:
# along y; upper arm, forearm: along x; wrist 3: along z). I: Ixx Iyy Izz Ixy Iyz Ixz.
_UR5_DH = [
    ("0.089159", 0, _pi / 2),
    (0, "-0.425", 0),
    (0, "-0.39225", 0),
    ("0.10915", 0, _pi / 2),
    ("0.09465", 0, -_pi / 2),
    ("0.0823", 0, 0),
]
_UR5_MASS = ("3.7", "8.393", "2.33", "1.219", "1.219", "0.1879")
_UR5_COM = (
    (0, "-0.02561", "0.00193"),
    ("0.2125", 0, "0.11336"),
    ("0.15", 0, "0.0265"),
    (0, "-0.0018", "0.01634"),
    (0, "0.0018", "0.01634"),
    (0, 0, "-0.001159"),
)
_UR5_CYLINDER = (  # (i_radial, i_axial, axis) about the COM
    ("0.014972358333333331", "0.01040625", 1),
    ("0.13388583541666665", "0.0151074", 0),
    ("0.031216803515624995", "0.004095", 0),
    ("0.002013889583333333", "0.0021942", 1),
    ("0.0018310395833333333", "0.0021942", 1),
    ("8.062475833333332e-05", "0.0001321171875", 2),
)


def _ur5_dh_inertia() -> list[dict[str, Any]]:
    out = []
    for m, com, (radial, axial, axis) in zip(_UR5_MASS, _UR5_COM, _UR5_CYLINDER):
        diag = [radial] * 3
        diag[axis] = axial
        out.append({"m": m, "com": com, "I": (*diag, 0, 0, 0)})
    return out


def ur5(*, parameters: str = "numeric", frames: str = "urdf") -> RobotSystem:
    r"""The Universal Robots UR5 (6R), from ``ur_description``'s URDF or UR's DH table.

    ``frames="urdf"`` (default): the URDF of ``ur_description`` as shipped by
    example-robot-data (text in :data:`UR5_URDF`). Link frames are the URDF's joint frames;
    masses 3.7, 8.393, 2.275, 1.219, 1.219, 0.1879 kg, COMs at the cylinder centres and
    cylinder-approximation inertias of that URDF; gravity −z of ``base_link``.

    ``frames="dh"``: Universal Robots' published standard DH table (d1 = 0.089159,
    a2 = −0.425, a3 = −0.39225, d4 = 0.10915, d5 = 0.09465, d6 = 0.0823,
    α = (π/2, 0, 0, π/2, −π/2, 0)) with UR's published masses (3.7, 8.393, 2.33, 1.219,
    1.219, 0.1879 kg) and COMs in the DH link frames; UR publishes no inertia tensors for the
    UR5, so these are ``ur_description``'s (ROS 2) cylinder approximations about the COM
    for the same masses. Link frame i is DH frame i (on joint axis i + 1; frame 6 is the
    tool flange); the base frame is ``base_link`` turned by π about z (UR's "base").

    Both have the same joint angles (q = 0 is the arm stretched horizontally, no offsets)
    and the same kinematics: for every link,
    :math:`T^{urdf}_i(q) = R_z(\pi)\, T^{dh}_i(q)\, K_i` with constant :math:`K_i`
    (``tests/robot/test_robot.py`` checks it and that M and g agree once the URDF inertials are
    moved into the DH frames). Their inertial parameters differ (the forearm mass, the COMs),
    so the dynamics of the two variants differ by a few per cent.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.ur5().chain.joint_names[:2]
    ('shoulder_pan_joint', 'shoulder_lift_joint')
    >>> [str(link.mass) for link in ld.zoo.ur5(frames="dh").chain.links][:3]
    ['37/10', '8393/1000', '233/100']
    """
    if frames == "urdf":
        return from_urdf(UR5_URDF, parameters=parameters)
    if frames == "dh":
        return from_dh(_UR5_DH, inertia=_ur5_dh_inertia(), parameters=parameters)
    raise LagdynError(f"ur5: frames must be 'urdf' or 'dh', got {frames!r}")


# Franka Emika Panda: modified DH (Franka's documentation, "Robot and interface
# specifications"), inertial parameters of Gaz et al., "Dynamic identification of the Franka
# Emika Panda robot with retrieval of feasible parameters using penalty-based optimization",
# IEEE RA-L 4(4), 2019 — the values franka_description / example-robot-data ship (COM and
# inertia about the COM, in the link frames, which are the modified-DH frames).
_PANDA_DH = [  # (d, a, alpha): row i holds a_{i-1}, alpha_{i-1}, d_i
    (0.333, 0, 0),
    (0, 0, -_pi / 2),
    (0.316, 0, _pi / 2),
    (0, 0.0825, _pi / 2),
    (0.384, -0.0825, -_pi / 2),
    (0, 0, _pi / 2),
    (0, 0.088, _pi / 2),
]
_PANDA_INERTIA: list[dict[str, Any]] = [  # I: Ixx Iyy Izz Ixy Iyz Ixz about the COM
    {
        "m": 4.970684,
        "com": (0.003875, 0.002081, -0.04762),
        "I": (0.70337, 0.70661, 0.009117, -0.000139, 0.019169, 0.006772),
    },
    {
        "m": 0.646926,
        "com": (-0.003141, -0.02872, 0.003495),
        "I": (0.007962, 0.02811, 0.025995, -0.003925, 0.000704, 0.010254),
    },
    {
        "m": 3.228604,
        "com": (0.027518, 0.039252, -0.066502),
        "I": (0.037242, 0.036155, 0.01083, -0.004761, -0.012805, -0.011396),
    },
    {
        "m": 3.587895,
        "com": (-0.05317, 0.104419, 0.027454),
        "I": (0.025853, 0.019552, 0.028323, 0.007796, 0.008641, -0.001332),
    },
    {
        "m": 1.225946,
        "com": (-0.011953, 0.041065, -0.038437),
        "I": (0.035549, 0.029474, 0.008627, -0.002117, 0.000229, -0.004037),
    },
    {
        "m": 1.666555,
        "com": (0.060149, -0.014117, -0.010517),
        "I": (0.001964, 0.004354, 0.005433, 0.000109, 0.000341, -0.001158),
    },
    {
        "m": 0.735522,
        "com": (0.010517, -0.004252, 0.061597),
        "I": (0.012516, 0.010027, 0.004815, -0.000428, -0.000741, -0.001196),
    },
]


def panda(*, parameters: str = "numeric") -> RobotSystem:
    r"""The Franka Emika Panda (7R) without hand, modified (Craig) DH.

    Rows (d, a_{i−1}, α_{i−1}): (0.333, 0, 0), (0, 0, −π/2), (0.316, 0, π/2),
    (0, 0.0825, π/2), (0.384, −0.0825, −π/2), (0, 0, π/2), (0, 0.088, π/2) — Franka's
    published kinematics; the flange (d = 0.107) carries no mass here. Link frames are the
    modified-DH frames, which are also franka_description's URDF link frames. Inertial
    parameters: the *feasible* parameters of Gaz et al. (2019), tables VIII–IX of their
    supplementary material (masses 4.970684 … 0.735522 kg), as example-robot-data ships
    them (link 1's COM height, −0.04762 m there and 0 in the paper's table, has no effect on
    the dynamics: link 1 only turns about the vertical). Gaz et al.'s own gravity model is
    built from the identified coefficients these parameters approximate; the two gravity
    vectors agree to about 1.5 % (``tests/robot/test_robot.py``). q = 0 is Franka's zero (arm
    straight up). Gravity −z of the base.

    Examples
    --------
    >>> import lagdyn as ld
    >>> round(float(sum(link.mass for link in ld.zoo.panda().chain.links)), 6)
    16.062132
    """
    return from_dh(_PANDA_DH, "modified", inertia=_PANDA_INERTIA, parameters=parameters)
