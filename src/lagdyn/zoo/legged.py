"""Legged robots of example-robot-data as floating-base models (:class:`FloatingRobot`).

Each factory reads the URDF that the optional package ``example-robot-data`` installs
(nothing is downloaded; ``pip install 'lagdyn[robot]'``, or ``'lagdyn[crosscheck]'``, which
adds Pinocchio) with ``ld.robot.from_urdf(path, base="floating")``: Pinocchio's free-flyer
conventions, q = (base position, quaternion x y z w, joints), v = (base linear and angular
velocity in the base frame, joint rates), joints in Pinocchio's order. :data:`FEET` names
the contact frames of each model (fixed-joint links of the file, frames of the model).

These are not :class:`~lagdyn.LagrangianSystem` objects, so they have a registry of their
own (:func:`lagdyn.zoo.floating_names`), kept out of :func:`lagdyn.zoo.names` (whose models
every LagrangianSystem tool accepts); :func:`lagdyn.zoo.get` builds them like the others.
For a plain Lagrangian (Euler angles for the base) use
:func:`lagdyn.robot.euler.euler_chart`.

Examples
--------
>>> from lagdyn.zoo.legged import FEET
>>> FEET["solo12"]
('FL_FOOT', 'FR_FOOT', 'HL_FOOT', 'HR_FOOT')
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..errors import BackendUnavailableError
from ..robot.floating import FloatingRobot
from ..robot.urdf import from_urdf

__all__ = ["FEET", "SOURCES", "anymal", "go1", "solo12", "talos_legs"]

#: The contact frames (feet, soles) of each legged model, in the order of its legs' joints.
FEET: dict[str, tuple[str, ...]] = {
    "solo12": ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"),
    "go1": ("FL_foot", "FR_foot", "RL_foot", "RR_foot"),
    "anymal": ("LF_FOOT", "LH_FOOT", "RF_FOOT", "RH_FOOT"),
    "talos_legs": ("left_sole_link", "right_sole_link"),
}

#: The example-robot-data file of each model: (package folder, file name).
SOURCES: dict[str, tuple[str, str]] = {
    "solo12": ("solo_description", "solo12.urdf"),
    "go1": ("go1_description", "go1.urdf"),
    "anymal": ("anymal_b_simple_description", "anymal.urdf"),
    "talos_legs": ("talos_data", "talos_reduced.urdf"),
}


def _path(name: str) -> str:
    from ..robot._data import urdf_path

    package, filename = SOURCES[name]
    try:
        return str(urdf_path(package, filename))
    except BackendUnavailableError:
        raise BackendUnavailableError(
            f"zoo model {name!r} reads {package}/{filename} from example-robot-data, which is "
            "not installed: pip install 'lagdyn[robot]' (or 'lagdyn[crosscheck]', which "
            "adds Pinocchio)"
        ) from None


def solo12(*, parameters: str = "numeric") -> FloatingRobot:
    """Solo12 (Open Dynamic Robot Initiative): a 2.5 kg quadruped, 12 joints.

    Source: example-robot-data ``solo_description/robots/solo12.urdf``. Base ``base_link``;
    joints ``FL_HAA, FL_HFE, FL_KFE, FR_…, HL_…, HR_…`` (hip abduction/adduction, hip and
    knee flexion/extension; front/hind, left/right); feet ``FL_FOOT, FR_FOOT, HL_FOOT,
    HR_FOOT`` (fixed-joint links). nq = 19, nv = 18.

    Parameters
    ----------
    parameters : {"numeric", "symbolic"}
        As for :func:`lagdyn.robot.from_urdf`.

    Raises
    ------
    BackendUnavailableError
        example-robot-data is not installed.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot._data import urdf_path
    >>> urdf_path("solo_description", "solo12.urdf").name   # the file it reads
    'solo12.urdf'
    >>> robot = ld.zoo.get("solo12")
    >>> robot.nq, robot.nv, robot.joint_names[:3]
    (19, 18, ('FL_HAA', 'FL_HFE', 'FL_KFE'))
    """
    return from_urdf(_path("solo12"), base="floating", parameters=parameters)


def go1(*, parameters: str = "numeric") -> FloatingRobot:
    """Unitree Go1: a 12 kg quadruped, 12 joints.

    Source: example-robot-data ``go1_description/urdf/go1.urdf`` (the floating base is the
    link ``base``, to which ``trunk``, the IMU, cameras and rotors are welded). Joints
    ``FL_hip_joint, FL_thigh_joint, FL_calf_joint, FR_…, RL_…, RR_…`` (Pinocchio's order:
    child joints by name, not the file's); feet ``FL_foot, FR_foot, RL_foot, RR_foot``.
    nq = 19, nv = 18.

    Raises
    ------
    BackendUnavailableError
        example-robot-data is not installed.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot._data import urdf_path
    >>> urdf_path("go1_description", "go1.urdf").name   # the file it reads
    'go1.urdf'
    >>> ld.zoo.get("go1").joint_names[:3]
    ('FL_hip_joint', 'FL_thigh_joint', 'FL_calf_joint')
    """
    return from_urdf(_path("go1"), base="floating", parameters=parameters)


def anymal(*, parameters: str = "numeric") -> FloatingRobot:
    """ANYbotics ANYmal B (simplified collision model): a quadruped, 12 joints.

    Source: example-robot-data ``anymal_b_simple_description/robots/anymal.urdf``. Base
    ``base``; joints ``LF_HAA, LF_HFE, LF_KFE, LH_…, RF_…, RH_…`` (Pinocchio's order);
    feet ``LF_FOOT, LH_FOOT, RF_FOOT, RH_FOOT``. nq = 19, nv = 18.

    Raises
    ------
    BackendUnavailableError
        example-robot-data is not installed.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot._data import urdf_path
    >>> urdf_path("anymal_b_simple_description", "anymal.urdf").name   # the file it reads
    'anymal.urdf'
    >>> ld.zoo.get("anymal").joint_names[:3]
    ('LF_HAA', 'LF_HFE', 'LF_KFE')
    """
    return from_urdf(_path("anymal"), base="floating", parameters=parameters)


def talos_legs(*, parameters: str = "numeric") -> FloatingRobot:
    """PAL Robotics' Talos humanoid, its legs: 12 joints, the upper body locked at q = 0.

    Source: example-robot-data ``talos_data/robots/talos_reduced.urdf`` with every joint
    that is not ``leg_*`` locked (``from_urdf(locked=...)``: torso, head, arms and grippers
    welded to the base ``base_link`` at their zero position — example-robot-data's own
    ``talos_legs`` loader locks them at the SRDF ``half_sitting`` pose instead, so its base
    inertia differs). Joints ``leg_left_1_joint`` … ``leg_left_6_joint``,
    ``leg_right_1_joint`` … ``leg_right_6_joint`` (hip yaw, roll, pitch, knee, ankle pitch,
    roll); feet ``left_sole_link, right_sole_link``. nq = 19, nv = 18.

    Raises
    ------
    BackendUnavailableError
        example-robot-data is not installed.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot._data import urdf_path
    >>> urdf_path("talos_data", "talos_reduced.urdf").name   # the file it reads
    'talos_reduced.urdf'
    >>> ld.zoo.get("talos_legs").joint_names[-1]
    'leg_right_6_joint'
    """
    path = _path("talos_legs")
    root = ET.parse(path).getroot()
    locked = [
        str(j.get("name"))
        for j in root.findall("joint")  # the robot's joints, not transmissions
        if j.get("type") != "fixed" and not str(j.get("name")).startswith("leg_")
    ]
    return from_urdf(path, base="floating", parameters=parameters, locked=locked)
