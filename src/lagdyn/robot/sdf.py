"""Robots from SDF files (a restricted reader): a spanning tree and its loop closures.

SDF (the format of Gazebo and Drake) lists a mechanism's joints without asking for a tree:
Cassie's legs, in example-robot-data's ``cassie_description/robots/cassie_v2.sdf``, close two
loops each with ``ball`` joints (the achilles rod on the hip, the plantar rod on the foot).
:func:`read_sdf` reads one ``<model>``, picks a spanning tree from its root link and turns
the other joints into loops for :func:`lagdyn.robot.close_loops`; :func:`from_sdf` builds
the tree with :func:`lagdyn.robot.from_urdf` (the same parser guards, inertia checks,
Pinocchio's joint order and free-flyer conventions) and returns an :class:`SdfModel`
holding the tree, the loops and the URDF it was built from.

What is read (SDF 1.4-1.9, the parts Cassie's files use):

* ``<sdf><model>``: one model, its ``<link>`` and ``<joint>`` elements (no nested models,
  ``<include>``, ``<frame>``); the model's own ``<pose>`` is ignored (the root link's frame
  is the base frame).
* A link's ``<pose>`` is relative to the model frame, or to the link named by its
  ``relative_to`` (1.7+) or ``frame`` (1.5-1.6) attribute; its ``<inertial>`` has a
  ``<pose>`` in the link frame, ``<mass>`` and ``<inertia>`` (SDF's defaults when absent:
  mass 1, ixx = iyy = izz = 1, products 0 — a link without ``<inertial>`` has them).
* A joint's ``<pose>`` is relative to its child link's frame (or ``relative_to`` a link);
  its ``<axis><xyz>`` is expressed in the joint frame, or in the model frame with
  ``<use_parent_model_frame>1`` (1.4-1.6) or ``expressed_in="__model__"`` (1.7+);
  ``<dynamics><damping>`` and ``<friction>`` become the URDF joint's dynamics (used with
  ``friction=True``); limits, springs (``spring_stiffness``) and everything visual are
  ignored.
* Joint types: ``revolute``, ``continuous``, ``prismatic``, ``fixed`` make the tree;
  ``ball`` joints are always loop closures (``"point"`` loops: the joint's origin on both
  links); a ``fixed`` joint whose child already has a parent closes a ``"weld"`` loop. The
  tree joint of a link is the first tree-type joint (in file order) naming it as child;
  every later joint naming it is a closure. A closing ``revolute`` or ``prismatic`` joint
  (a loop kind :func:`close_loops` does not have), ``gearbox``, ``universal``,
  ``revolute2``, ``screw`` joints, a parent ``world`` with ``base="floating"``, cycles of
  tree joints and links no joint reaches are refused by name.

The URDF written (:attr:`SdfModel.urdf`, loadable by Pinocchio too): every SDF link is a URDF
link with the SDF link's frame; where a tree joint's frame is not its child link's (a
joint ``<pose>``), the joint moves a massless link ``<joint>__frame`` to which the SDF link
is welded (fixed joint ``<link>__pose``); each closure adds two massless frames
``<joint>__on_parent`` and ``<joint>__on_child``, welded to the closing joint's two links at
its frame (they coincide at the file's pose, q = 0). Angles are written as roll-pitch-yaw
of the composed rotations (``repr`` of doubles). :func:`~lagdyn.robot.from_urdf` reads
angles within 1e-9 of a multiple of π/12 as that multiple: a composed angle that close
to one moves a frame by up to 1e-9 rad (Cassie's file: two relative rolls of 7.4e-10 rad,
from link poses written to four or five digits, become 0; Pinocchio reading the same URDF
keeps them).

Examples
--------
>>> from lagdyn.robot.sdf import read_sdf
>>> tree = read_sdf(EXAMPLE_SDF)
>>> tree.root, tree.loops
('ground', (('crank_rod__on_parent', 'crank_rod__on_child', 'point'),))
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import LagdynError

__all__ = ["EXAMPLE_SDF", "SdfModel", "SdfTree", "from_sdf", "read_sdf"]

#: A planar four-bar in SDF 1.6: a crank (1 m, at 0.5 rad), a rod (0.8 m) and a rocker
#: hinged on the ground 2 m away; the rocker's end (0.433 m) holds the rod's end with a ball
#: joint (its pose is relative to its child, the rocker). The ground is the root link.
EXAMPLE_SDF = """<sdf version="1.6">
  <model name="four_bar">
    <link name="ground"><pose>0 0 0 0 0 0</pose>
      <inertial><mass>5</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz>
        <ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial></link>
    <link name="crank"><pose>0 0 0 0 0 0.5</pose>
      <inertial><pose>0.5 0 0 0 0 0</pose><mass>1</mass><inertia><ixx>0.001</ixx>
        <iyy>0.08</iyy><izz>0.08</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial></link>
    <link name="rod"><pose>0.8775825618903728 0.479425538604203 0 0 0 -0.3</pose>
      <inertial><pose>0.4 0 0 0 0 0</pose><mass>2</mass><inertia><ixx>0.002</ixx>
        <iyy>0.6</iyy><izz>0.6</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial></link>
    <link name="rocker"><pose>2 0 0 0 0 2.5454313562813184</pose>
      <inertial><pose>0.2 0 0 0 0 0</pose><mass>1</mass><inertia><ixx>0.001</ixx>
        <iyy>0.05</iyy><izz>0.05</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial></link>
    <joint name="crank_joint" type="revolute"><parent>ground</parent><child>crank</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
    <joint name="rod_joint" type="revolute"><parent>crank</parent><child>rod</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
    <joint name="rocker_joint" type="revolute"><parent>ground</parent><child>rocker</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
    <joint name="crank_rod" type="ball"><pose>0.4328091059486093 0 0 0 0 0</pose>
      <parent>rod</parent><child>rocker</child></joint>
  </model>
</sdf>"""

_TREE_TYPES = ("revolute", "continuous", "prismatic", "fixed")
_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def _rpy_matrix(r: float, p: float, y: float) -> np.ndarray:
    """R = Rz(y) Ry(p) Rx(r), SDF's (and URDF's) fixed-axis roll-pitch-yaw."""
    cr, sr, cp, sp_, cy, sy = (
        math.cos(r),
        math.sin(r),
        math.cos(p),
        math.sin(p),
        math.cos(y),
        math.sin(y),
    )
    return np.array(
        [
            [cy * cp, cy * sp_ * sr - sy * cr, cy * sp_ * cr + sy * sr],
            [sy * cp, sy * sp_ * sr + cy * cr, sy * sp_ * cr - cy * sr],
            [-sp_, cp * sr, cp * cr],
        ]
    )


def _matrix_rpy(R: np.ndarray) -> tuple[float, float, float]:
    """Roll, pitch, yaw with ``_rpy_matrix(*rpy) == R`` (to rounding); at gimbal lock the
    roll takes the whole turn about the common axis."""
    pitch = math.atan2(-R[2, 0], math.hypot(R[0, 0], R[1, 0]))
    if math.hypot(R[0, 0], R[1, 0]) < 1e-12:
        return math.atan2(-R[1, 2], R[1, 1]), pitch, 0.0
    return math.atan2(R[2, 1], R[2, 2]), pitch, math.atan2(R[1, 0], R[0, 0])


Pose = tuple[np.ndarray, np.ndarray]  # (R, p): x_outer = R x_inner + p

_IDENTITY: Pose = (np.eye(3), np.zeros(3))


def _then(a: Pose, b: Pose) -> Pose:
    return a[0] @ b[0], a[0] @ b[1] + a[1]


def _inverse(a: Pose) -> Pose:
    return a[0].T, -(a[0].T @ a[1])


def _is_identity(a: Pose) -> bool:
    return bool(np.array_equal(a[0], np.eye(3)) and not np.any(a[1]))


def _numbers(text: str | None, count: int, what: str) -> list[float]:
    parts = (text or "").split()
    if len(parts) != count:
        raise LagdynError(f"{what}: expected {count} numbers, got {text!r}")
    try:
        values = [float(x) for x in parts]
    except ValueError:
        raise LagdynError(f"{what}: not a number in {text!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise LagdynError(f"{what}: not a finite number in {text!r}")
    return values


def _pose_of(elem: ET.Element | None, what: str) -> tuple[Pose, str | None]:
    """The ``<pose>`` of an element and the frame it is relative to (None: the default)."""
    if elem is None:
        return _IDENTITY, None
    pose = elem.find("pose")
    if pose is None:
        return _IDENTITY, None
    values = _numbers(pose.text, 6, f"{what} <pose>")
    if any(pose.get(k) for k in ("degrees", "rotation_format")) and pose.get("degrees") not in (
        None,
        "false",
        "0",
    ):
        raise LagdynError(f"{what} <pose>: only radians roll-pitch-yaw are read")
    frame = pose.get("relative_to") or pose.get("frame") or None
    return (_rpy_matrix(*values[3:]), np.array(values[:3])), frame


def _fmt(values: Any) -> str:
    """Doubles by ``repr``; rounding residue of the compositions (below 1e-15) as 0."""
    return " ".join(repr(float(v) + 0.0 if abs(v) >= 1e-15 else 0.0) for v in values)


def _origin(pose: Pose) -> str:
    R, p = pose
    if _is_identity(pose):
        return ""
    return f'<origin xyz="{_fmt(p)}" rpy="{_fmt(_matrix_rpy(R))}"/>'


@dataclass(frozen=True)
class SdfTree:
    """What :func:`read_sdf` found: the URDF of the spanning tree, its loops and the file's
    masses.

    Attributes
    ----------
    name : str
        The model's name.
    root : str
        The root link (the base).
    urdf : str
        The spanning tree as URDF text (see the module docstring for its frames).
    loops : tuple of (frame_a, frame_b, kind)
        One per closing joint, for :func:`lagdyn.robot.close_loops`.
    closures : tuple of str
        The closing joints' names, in the order of ``loops``.
    masses : dict
        Every link's mass as the file gives it (SDF's default 1 for a link without
        ``<inertial>``).

    Examples
    --------
    >>> from lagdyn.robot.sdf import EXAMPLE_SDF, read_sdf
    >>> found = read_sdf(EXAMPLE_SDF)
    >>> found.name, found.closures, found.masses["crank"]
    ('four_bar', ('crank_rod',), 1.0)
    """

    name: str
    root: str
    urdf: str
    loops: tuple[tuple[str, str, str], ...]
    closures: tuple[str, ...]
    masses: dict[str, float]


def _parse(source: Any) -> ET.Element:
    """The ``<sdf>`` element, through the URDF reader's guarded parser (entity
    declarations and DTDs refused before anything is expanded)."""
    from .urdf import _parse as parse_xml

    if isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("<"):
        pass
    elif isinstance(source, (str, os.PathLike)) and not os.path.isfile(os.fspath(source)):
        raise LagdynError(f"SDF file not found: {os.fspath(source)!r}")
    try:
        return parse_xml(source)
    except LagdynError as exc:
        raise LagdynError(str(exc).replace("URDF", "SDF")) from None


def read_sdf(source: str | os.PathLike[str] | bytes, *, base: str = "floating") -> SdfTree:
    """Read an SDF model: the URDF of its spanning tree and its loop closures.

    Parameters
    ----------
    source : str, bytes or path
        A file path, or the XML itself (a string starting with ``<``, or bytes).
    base : {"floating", "fixed"}
        ``"fixed"`` also accepts joints from the link ``world`` (the root is then
        ``world``).

    Returns
    -------
    SdfTree

    Raises
    ------
    LagdynError
        Malformed XML, entity declarations or DTDs, no ``<model>`` or more than one, a
        nested model, duplicate or missing names, a joint naming an unknown link, an
        unsupported joint type (named), a closing joint that is not ``ball`` or
        ``fixed``, a cycle of tree joints or a link that the root does not reach, a pose or
        axis that is not six (three) finite numbers, a zero axis, a pose relative to an
        unknown frame or a cycle of relative poses, a negative mass.

    Examples
    --------
    >>> from lagdyn.robot.sdf import EXAMPLE_SDF, read_sdf
    >>> tree = read_sdf(EXAMPLE_SDF)
    >>> tree.closures, sum(tree.masses.values())
    (('crank_rod',), 9.0)
    """
    if base not in ("floating", "fixed"):
        raise LagdynError(f"base must be 'floating' or 'fixed', got {base!r}")
    root_elem = _parse(source)
    if root_elem.tag != "sdf":
        raise LagdynError(f"not an SDF file: the root element is <{root_elem.tag}>, not <sdf>")
    models = root_elem.findall("model")
    if len(models) != 1 or root_elem.find("world") is not None:
        raise LagdynError(
            f"the SDF file holds {len(models)} <model> elements directly under <sdf>; "
            "lagdyn reads exactly one (no <world>)"
        )
    model = models[0]
    mname = model.get("name", "")
    unsupported = [t for t in ("model", "include", "frame") if model.find(t) is not None]
    if unsupported:
        raise LagdynError(
            f"SDF model {mname!r}: nested <{unsupported[0]}> elements are not read "
            "(flatten the model into links and joints)"
        )
    links = {str(e.get("name")): e for e in model.findall("link")}
    joints = model.findall("joint")
    problems: list[str] = []
    if len(links) != len(model.findall("link")) or "" in links or "None" in links:
        problems.append("links without a name or with the same name")
    jnames = [str(j.get("name")) for j in joints]
    if len(set(jnames)) != len(jnames) or "None" in jnames:
        problems.append("joints without a name or with the same name")
    world = base == "fixed" and any(j.findtext("parent", "").strip() == "world" for j in joints)
    for j in joints:
        jn = j.get("name")
        for role in ("parent", "child"):
            ln = (j.findtext(role) or "").strip()
            if ln not in links and not (world and role == "parent" and ln == "world"):
                hint = " (a joint from the world needs base='fixed')" if ln == "world" else ""
                problems.append(f"joint {jn!r}: its {role} {ln!r} is not a link{hint}")
        kind = j.get("type")
        if kind not in (*_TREE_TYPES, "ball"):
            problems.append(f"joint {jn!r} has type {kind!r} (read: {(*_TREE_TYPES, 'ball')})")
    if problems:
        raise LagdynError(f"SDF model {mname!r}: " + "; ".join(problems))

    # --- link frames in the model frame --------------------------------------------------
    placed: dict[str, Pose] = {"world": _IDENTITY} if world else {}

    def link_pose(name: str, seen: tuple[str, ...] = ()) -> Pose:
        if name in placed:
            return placed[name]
        if name in seen:
            raise LagdynError(f"SDF model {mname!r}: the link poses {list(seen)} refer in a cycle")
        pose, frame = _pose_of(links[name], f"link {name!r}")
        if frame not in (None, "__model__"):
            if frame not in links:
                raise LagdynError(
                    f"SDF model {mname!r}: link {name!r} has a pose relative to {frame!r}, "
                    "which is not a link of the model"
                )
            pose = _then(link_pose(frame, (*seen, name)), pose)
        placed[name] = pose
        return pose

    for name in links:
        link_pose(name)

    # --- the spanning tree: a link's first tree-type joint is its parent joint ---------------
    tree: dict[str, ET.Element] = {}  # child link -> tree joint
    closing: list[ET.Element] = []
    for j in joints:
        child = str(j.findtext("child")).strip()
        if j.get("type") in _TREE_TYPES and child not in tree:
            tree[child] = j
        else:
            closing.append(j)
    roots = [n for n in (["world"] if world else []) + list(links) if n not in tree]
    children: dict[str, list[ET.Element]] = {}
    for j in tree.values():
        children.setdefault(str(j.findtext("parent")).strip(), []).append(j)
    if not roots:
        raise LagdynError(f"SDF model {mname!r}: every link has a parent joint (a cycle)")
    root = roots[0]
    reached, stack = {root}, [root]
    while stack:
        for j in children.get(stack.pop(), []):
            c = str(j.findtext("child")).strip()
            reached.add(c)
            stack.append(c)
    lost = [n for n in links if n not in reached]
    if lost:
        raise LagdynError(
            f"SDF model {mname!r}: the root {root!r} (the first link without a parent joint) "
            f"does not reach the links {lost} through revolute, prismatic or fixed joints "
            "(several roots, or a cycle)"
        )

    # --- joint frames, axes, closures ------------------------------------------------------
    def joint_frame(j: ET.Element) -> Pose:
        """The joint frame in the model frame (its pose is relative to the child link)."""
        jn = j.get("name")
        pose, frame = _pose_of(j, f"joint {jn!r}")
        ref = frame if frame not in (None, "") else str(j.findtext("child")).strip()
        if ref == "__model__":
            return pose
        if ref not in placed:
            raise LagdynError(
                f"SDF model {mname!r}: joint {jn!r} has a pose relative to {ref!r}, which is "
                "not a link of the model"
            )
        return _then(placed[ref], pose)

    out = [f'<robot name="{mname}">']
    masses: dict[str, float] = {}
    if world:
        out.append('<link name="world"/>')
    for name, elem in links.items():
        out.append(_link_xml(name, elem, mname, masses))
    for child, j in tree.items():
        jn = str(j.get("name"))
        parent = str(j.findtext("parent")).strip()
        X_J = joint_frame(j)
        X_C = placed[child]
        same = np.array_equal(X_J[0], X_C[0]) and np.array_equal(X_J[1], X_C[1])
        moved = child if same else f"{jn}__frame"
        origin = _origin(_then(_inverse(placed[parent]), X_J))
        kind = j.get("type")
        axis_xml = ""
        if kind != "fixed":
            axis = _axis(j, X_J, mname)
            axis_xml = f'<axis xyz="{_fmt(axis)}"/>' + _dynamics(j, mname)
            if kind != "continuous":
                axis_xml += '<limit lower="-1e3" upper="1e3" effort="1e6" velocity="1e6"/>'
        out.append(
            f'<joint name="{jn}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{moved}"/>{origin}{axis_xml}</joint>'
        )
        if moved != child:  # the SDF link welded to the joint frame
            out.append(f'<link name="{moved}"/>')
            out.append(
                f'<joint name="{child}__pose" type="fixed"><parent link="{moved}"/>'
                f'<child link="{child}"/>{_origin(_then(_inverse(X_J), X_C))}</joint>'
            )
    loops = []
    for j in closing:
        jn = str(j.get("name"))
        kind = j.get("type")
        if kind not in ("ball", "fixed"):
            raise LagdynError(
                f"SDF model {mname!r}: joint {jn!r} ({kind}) closes a loop (its child "
                f"{str(j.findtext('child')).strip()!r} already has a parent joint); only ball "
                "(point) and fixed (weld) joints are read as loop closures"
            )
        X_J = joint_frame(j)
        for side in ("parent", "child"):
            ln = str(j.findtext(side)).strip()
            out.append(f'<link name="{jn}__on_{side}"/>')
            out.append(
                f'<joint name="{jn}__on_{side}_joint" type="fixed"><parent link="{ln}"/>'
                f'<child link="{jn}__on_{side}"/>{_origin(_then(_inverse(placed[ln]), X_J))}'
                "</joint>"
            )
        loops.append((f"{jn}__on_parent", f"{jn}__on_child", "point" if kind == "ball" else "weld"))
    out.append("</robot>")
    return SdfTree(
        name=mname,
        root=root,
        urdf="\n".join(out),
        loops=tuple(loops),
        closures=tuple(str(j.get("name")) for j in closing),
        masses=masses,
    )


def _axis(j: ET.Element, X_J: Pose, mname: str) -> np.ndarray:
    """The joint axis in the joint frame."""
    jn = j.get("name")
    ax = j.find("axis")
    xyz = ax.find("xyz") if ax is not None else None
    if xyz is None:
        raise LagdynError(f"SDF model {mname!r}: joint {jn!r} has no <axis><xyz>")
    a = np.array(_numbers(xyz.text, 3, f"joint {jn!r} axis"))
    if not np.any(a):
        raise LagdynError(f"SDF model {mname!r}: joint {jn!r} has the zero axis")
    in_model = (ax.findtext("use_parent_model_frame") or "").strip() in ("1", "true")  # type: ignore[union-attr]
    expressed = xyz.get("expressed_in")
    if expressed not in (None, "", "__model__", jn):
        raise LagdynError(
            f"SDF model {mname!r}: joint {jn!r} axis expressed_in={expressed!r} (read: the "
            "joint frame or __model__)"
        )
    if in_model or expressed == "__model__":
        a = X_J[0].T @ a
    return a


def _dynamics(j: ET.Element, mname: str) -> str:
    dyn = j.find("axis/dynamics")
    if dyn is None:
        return ""
    values = {}
    for key in ("damping", "friction"):
        text = dyn.findtext(key)
        if text is not None:
            values[key] = _numbers(text, 1, f"joint {j.get('name')!r} {key}")[0]
    return (
        "<dynamics " + " ".join(f'{k}="{v!r}"' for k, v in values.items()) + "/>" if values else ""
    )


def _link_xml(name: str, elem: ET.Element, mname: str, masses: dict[str, float]) -> str:
    """The URDF ``<link>`` of an SDF link: its inertial in the link frame."""
    inertial = elem.find("inertial")
    what = f"SDF model {mname!r}: link {name!r}"
    mass, values = 1.0, {"ixx": 1.0, "iyy": 1.0, "izz": 1.0, "ixy": 0.0, "ixz": 0.0, "iyz": 0.0}
    pose: Pose = _IDENTITY
    if inertial is not None:
        if inertial.findtext("mass") is not None:
            mass = _numbers(inertial.findtext("mass"), 1, f"{what} mass")[0]
        ie = inertial.find("inertia")
        for k in _INERTIA_KEYS:
            text = ie.findtext(k) if ie is not None else None
            if text is not None:
                values[k] = _numbers(text, 1, f"{what} inertia {k}")[0]
        pose, frame = _pose_of(inertial, f"{what} inertial")
        if frame not in (None, "", name):
            raise LagdynError(f"{what}: an inertial pose relative to {frame!r} is not read")
    if mass < 0:
        raise LagdynError(f"{what}: negative mass {mass!r}")
    masses[name] = mass
    inertia = " ".join(f'{k}="{values[k]!r}"' for k in _INERTIA_KEYS)
    return (
        f'<link name="{name}"><inertial>{_origin(pose)}<mass value="{mass!r}"/>'
        f"<inertia {inertia}/></inertial></link>"
    )


@dataclass(frozen=True)
class SdfModel:
    """An SDF robot: the tree (:func:`lagdyn.robot.from_urdf` of :attr:`sdf`'s URDF) and the
    loops that close it.

    Attributes
    ----------
    tree : RobotSystem or FloatingRobot
        The spanning tree.
    sdf : SdfTree
        What :func:`read_sdf` found (URDF text, loops, closing joints, masses).

    Examples
    --------
    >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
    >>> four_bar = from_sdf(EXAMPLE_SDF, base="fixed")
    >>> four_bar.tree.n, four_bar.loops
    (3, (('crank_rod__on_parent', 'crank_rod__on_child', 'point'),))
    """

    tree: Any
    sdf: SdfTree

    @property
    def _floating(self) -> bool:
        from .floating import FloatingRobot

        return isinstance(self.tree, FloatingRobot)

    @property
    def loops(self) -> tuple[tuple[str, str, str], ...]:
        """``(frame_a, frame_b, kind)`` of each closing joint."""
        return self.sdf.loops

    def closed(self, **kwargs: Any) -> Any:
        """The closed-loop robot: for a floating base the numeric loop closure
        :meth:`closures` (``kwargs``: its arguments; Cassie's four loops close in seconds),
        for a fixed base :func:`lagdyn.robot.close_loops` of the tree and the file's loops
        (``kwargs`` passed on: ``redundant``, ``q0``, ``tol`` ...), a symbolic
        :class:`~lagdyn.ConstrainedSystem` for small mechanisms such as the four-bar.

        Examples
        --------
        >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
        >>> cs = from_sdf(EXAMPLE_SDF, base="fixed").closed(redundant="lstsq")
        >>> cs.dof, cs.residual < 1e-9
        (1, True)
        >>> from_sdf(EXAMPLE_SDF, base="floating").closed()   # planar: 2 independent rows
        Contacts({}, loops=1, m=2, reference='local_world_aligned')
        """
        if self._floating:
            return self.closures(**kwargs)
        from .loops import close_loops

        return close_loops(self.tree, list(self.loops), **kwargs)

    def closures(
        self,
        params: Mapping[Any, float] | None = None,
        *,
        contacts: Sequence[Any] = (),
        reduce: bool = True,
        reference: str = "local_world_aligned",
        backend: str = "numpy",
        **options: Any,
    ) -> Any:
        """The file's loops closed numerically (:func:`lagdyn.robot.contacts.closures`):
        a :class:`~lagdyn.robot.contacts.Contacts` with the loops' rows J_A − J_B from
        generated frame kernels (and ground ``contacts`` before them), for either base.

        Parameters
        ----------
        params : mapping, optional
            Parameter values (default the tree's defaults, e.g. g = 9.81).
        contacts : sequence of (str, int), optional
            Ground contacts beside the loops (a standing robot).
        reduce : bool
            Drop each loop's rows that depend on its others everywhere (Cassie's planar
            plantar loops: 2 rows each), :func:`~lagdyn.robot.contacts.closures`.
        reference, backend, **options
            As :meth:`~lagdyn.robot.floating.FloatingModel.contacts` and ``lambdify``.

        Examples
        --------
        >>> import numpy as np
        >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
        >>> four_bar = from_sdf(EXAMPLE_SDF, base="fixed").closures()
        >>> four_bar.m, four_bar.row_names[1]        # planar: the z row is dropped
        (2, 'crank_rod__on_parent~crank_rod__on_child[crank_rod__on_parent.y]')
        """
        from .contacts import closures, fixed_model

        if not self._floating:
            model: Any = fixed_model(self.tree, params, backend=backend, **options)
        else:
            options.setdefault("kernels", ["M", "bias"])
            model = self.tree.lambdify(params, backend=backend, **options)
        return closures(model, list(self.loops), contacts, reduce=reduce, reference=reference)


def from_sdf(
    source: str | os.PathLike[str] | bytes,
    *,
    base: str = "floating",
    parameters: str = "numeric",
    gravity: Sequence[Any] | None = None,
    friction: bool = False,
    check_inertia: bool = True,
) -> SdfModel:
    """A robot from an SDF file: its spanning tree and loop closures (:class:`SdfModel`).

    Parameters
    ----------
    source : str, bytes or path
        A file path or the XML itself.
    base : {"floating", "fixed"}
        The root link floats (a :class:`~lagdyn.robot.floating.FloatingRobot`, Pinocchio's
        free flyer) or is welded to the world (a :class:`~lagdyn.robot.RobotSystem`).
    parameters, gravity, friction, check_inertia
        As for :func:`lagdyn.robot.from_urdf`.

    Returns
    -------
    SdfModel
        ``.tree`` the robot tree, ``.loops`` for :func:`~lagdyn.robot.close_loops`,
        ``.closed()`` the closed-loop system, ``.sdf`` what was read.

    Raises
    ------
    LagdynError
        What :func:`read_sdf` and :func:`~lagdyn.robot.from_urdf` refuse.

    Examples
    --------
    >>> from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf
    >>> from_sdf(EXAMPLE_SDF, base="fixed").tree.chain.joint_names
    ('crank_joint', 'rod_joint', 'rocker_joint')
    """
    from .urdf import from_urdf

    found = read_sdf(source, base=base)
    tree: Any = from_urdf(
        found.urdf,
        base="floating" if base == "floating" else "fixed",
        parameters=parameters,
        gravity=gravity,
        friction=friction,
        check_inertia=check_inertia,
    )
    return SdfModel(tree=tree, sdf=found)
