"""Chains from URDF files, parsed with the standard library's ``xml.etree``.

Conventions (ROS REP 103 / the URDF spec): a joint's ``origin`` places the joint frame in
the parent link's frame (``rpy`` is fixed-axis roll–pitch–yaw, R = Rz(y) Ry(p) Rx(r)); the
child link's frame *is* the joint frame, moved by the joint (rotation about ``axis``, default
``1 0 0``, or translation along it); a link's ``<inertial>`` gives the mass, the COM frame
(origin) and the inertia about the COM in that frame. ``continuous`` joints are revolute;
``fixed`` joints are merged (the child's inertia is added to the moving link it is welded to);
``floating`` and ``planar`` joints, ``<mimic>`` and closed loops are rejected. Coordinates
``q1 … qn`` follow the file's order of movable joints; q = 0 is the file's configuration.
Decimals are read exactly (``0.425`` → 17/40) and angles within 1e-9 of a multiple of π/12
snap to it (``1.57079632679`` → π/2), so closed forms stay exact.

Examples
--------
>>> import lagdyn as ld
>>> xml = '''<robot name="r">
...   <link name="base"/>
...   <joint name="j1" type="continuous"><parent link="base"/><child link="l1"/>
...     <axis xyz="0 0 1"/></joint>
...   <link name="l1"><inertial><mass value="2"/><origin xyz="1 0 0"/>
...     <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0.5"/></inertial></link>
... </robot>'''
>>> arm = ld.robot.from_urdf(xml, parameters="numeric")
>>> arm.M
Matrix([[5/2]])
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import sympy as sp

from ..errors import LagdynError
from ..recursive.chain import Link, inertia_about_origin, rpy, standard_parameters, symbolic_inertia
from .builders import exact, exact_angle, make_chain
from .system import RobotSystem, build

__all__ = ["from_urdf", "transform_inertia"]

Mat = sp.ImmutableMatrix
_EYE = sp.ImmutableMatrix.eye(3)
_ZERO3 = sp.ImmutableMatrix.zeros(3, 1)
_ZERO33 = sp.ImmutableMatrix.zeros(3, 3)


def transform_inertia(R: Any, p: Any, m: Any, h: Any, I: Any) -> tuple[Any, Any, Any]:
    """Barycentric parameters (m, h, I about the origin) moved into a frame where the body
    frame sits at rotation ``R``, origin ``p``.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.robot.urdf import transform_inertia
    >>> transform_inertia(sp.eye(3), (1, 0, 0), 2, (0, 0, 0), sp.zeros(3))[2]
    Matrix([
    [0, 0, 0],
    [0, 2, 0],
    [0, 0, 2]])
    """
    R, p, h, I = Mat(R), Mat(p), Mat(h), Mat(I)
    Rh = Mat(R * h)
    P = Mat([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])
    H = Mat([[0, -Rh[2], Rh[1]], [Rh[2], 0, -Rh[0]], [-Rh[1], Rh[0], 0]])
    I2 = Mat(R * I * R.T - m * P * P - P * H - H * P).applyfunc(sp.expand)
    return m, Mat(Rh + m * p).applyfunc(sp.expand), I2


def _floats(text: str | None, count: int, default: Sequence[Any], what: str) -> list[Any]:
    if text is None:
        return list(default)
    parts = text.split()
    if len(parts) != count:
        raise LagdynError(f"{what}: expected {count} numbers, got {text!r}")
    return parts


def _origin(elem: ET.Element | None, what: str) -> tuple[Any, Any]:
    if elem is None:
        return _EYE, _ZERO3
    xyz = [exact(x) for x in _floats(elem.get("xyz"), 3, (0, 0, 0), f"{what} xyz")]
    angles = [exact_angle(x) for x in _floats(elem.get("rpy"), 3, (0, 0, 0), f"{what} rpy")]
    return rpy(*angles), Mat(xyz)


def _inertial(link: ET.Element) -> tuple[Any, Any, Any]:
    """(m, h, I about the link origin) of a ``<link>`` from its ``<inertial>``."""
    inertial = link.find("inertial")
    name = link.get("name")
    if inertial is None:
        return sp.Integer(0), _ZERO3, _ZERO33
    mass = inertial.find("mass")
    m = exact(mass.get("value", "0")) if mass is not None else sp.Integer(0)
    R, c = _origin(inertial.find("origin"), f"link {name!r} inertial origin")
    ie = inertial.find("inertia")
    if ie is None:
        Ic = _ZERO33
    else:
        v = {k: exact(ie.get(k, "0")) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        Ic = Mat(
            [
                [v["ixx"], v["ixy"], v["ixz"]],
                [v["ixy"], v["iyy"], v["iyz"]],
                [v["ixz"], v["iyz"], v["izz"]],
            ]
        )
    Ic = Mat(R * Ic * R.T)
    return m, Mat(m * c), inertia_about_origin(m, c, Ic).applyfunc(sp.expand)


def _parse(source: str | os.PathLike[str]) -> ET.Element:
    text = str(source)
    try:
        if isinstance(source, str) and text.lstrip().startswith("<"):
            return ET.fromstring(text)
        path = Path(source)
        if not path.is_file():
            raise LagdynError(f"URDF file not found: {text!r}")
        return ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise LagdynError(f"malformed URDF XML: {exc}") from exc


def from_urdf(
    source: str | os.PathLike[str],
    *,
    parameters: str = "symbolic",
    gravity: Sequence[Any] | None = None,
    friction: bool = False,
    locked: Sequence[str] = (),
) -> RobotSystem:
    """A chain from a URDF file (path) or XML text.

    Parameters
    ----------
    source : str or path
        A file path, or the XML itself (a string starting with ``<``).
    parameters : {"symbolic", "numeric"}
        Ten symbols per moving link (the file's numbers, fixed links merged, become
        ``defaults``) or the file's numbers.
    gravity : 3-vector, optional
        In the root link's frame; default ``(0, 0, -g)``.
    friction : bool
        Use each joint's ``<dynamics damping friction>`` as viscous and Coulomb friction.
    locked : sequence of str
        Names of movable joints to lock at 0 (treated as fixed, e.g. a gripper's fingers).

    Returns
    -------
    RobotSystem
        ``chain.joint_names`` are the movable joints' names, in coordinate order.

    Raises
    ------
    LagdynError
        Malformed XML, a missing file, floating/planar joints, mimic joints, a link with two
        parents (closed loop), several roots, or a joint listed before its parent's joint.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.robot.from_urdf('<robot name="r"><link name="a"/></robot>')
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: URDF 'r' has no movable joint
    """
    root = _parse(source)
    if root.tag != "robot":
        raise LagdynError(f"not a URDF: the root element is <{root.tag}>, expected <robot>")
    rname = root.get("name", "")
    links = {str(e.get("name")): e for e in root.findall("link")}
    joints = root.findall("joint")
    problems: list[str] = []
    parent_of: dict[str, str] = {}
    unknown = set(locked) - {j.get("name") for j in joints}
    if unknown:
        problems.append(f"locked joints not in the file: {sorted(unknown)}")
    for j in joints:
        jn, kind = j.get("name"), j.get("type")
        if jn in locked:
            pass
        elif kind in ("floating", "planar"):
            problems.append(
                f"joint {jn!r} is {kind} (floating bases and planar joints are not supported)"
            )
        elif kind not in ("revolute", "continuous", "prismatic", "fixed"):
            problems.append(f"joint {jn!r} has unknown type {kind!r}")
        if j.find("mimic") is not None and jn not in locked:
            problems.append(f"joint {jn!r} is a mimic joint (not supported)")
        pe, ce = j.find("parent"), j.find("child")
        if pe is None or ce is None:
            problems.append(f"joint {jn!r} lacks <parent> or <child>")
            continue
        child, parent = ce.get("link", ""), pe.get("link", "")
        for ln in (child, parent):
            if ln not in links:
                problems.append(f"joint {jn!r} names the unknown link {ln!r}")
        if child in parent_of:
            problems.append(f"link {child!r} has two parent joints (closed loop)")
        parent_of[child] = parent
    roots = [name for name in links if name not in parent_of]
    if not problems and len(roots) != 1:
        problems.append(f"expected one root link, found {roots or 'none (a cycle)'}")
    if problems:
        raise LagdynError(f"URDF {rname!r}: " + "; ".join(problems))
    # placement of every link frame in the frame of the moving body it is welded to
    body_of: dict[str, tuple[int, Any, Any]] = {roots[0]: (-1, _EYE, _ZERO3)}
    defaults: dict[sp.Symbol, float] = {}
    chain_links: list[Link] = []
    names: list[str] = []
    inertials: list[tuple[Any, Any, Any]] = []
    pending = list(joints)
    while pending:
        progressed = False
        for j in list(pending):
            parent = str(j.find("parent").get("link"))  # type: ignore[union-attr]
            child = str(j.find("child").get("link"))  # type: ignore[union-attr]
            if parent not in body_of:
                continue
            pending.remove(j)
            progressed = True
            b, Rb, pb = body_of[parent]
            Ro, po = _origin(j.find("origin"), f"joint {j.get('name')!r} origin")
            R, p = Mat(Rb * Ro), Mat(pb + Rb * po)
            kind = "fixed" if j.get("name") in locked else j.get("type")
            if kind == "fixed":
                body_of[child] = (b, R, p)
                if b >= 0:
                    m, h, I = _inertial(links[child])
                    mm, hh, II = transform_inertia(R, p, m, h, I)
                    m0, h0, I0 = inertials[b]
                    inertials[b] = (m0 + mm, Mat(h0 + hh), Mat(I0 + II))
                continue
            ax = j.find("axis")
            axis = [
                exact(x)
                for x in _floats(
                    ax.get("xyz") if ax is not None else None,
                    3,
                    (1, 0, 0),
                    f"joint {j.get('name')!r} axis",
                )
            ]
            dyn = j.find("dynamics")
            damping = exact(dyn.get("damping", "0")) if dyn is not None else 0
            coulomb = exact(dyn.get("friction", "0")) if dyn is not None else 0
            index = len(chain_links)
            chain_links.append(
                Link(
                    child,
                    "prismatic" if kind == "prismatic" else "revolute",
                    axis,
                    parent=b,
                    pre=(R, p),
                    viscous=damping if friction else 0,
                    coulomb=coulomb if friction else 0,
                )
            )
            names.append(str(j.get("name")))
            inertials.append(_inertial(links[child]))
            body_of[child] = (index, _EYE, _ZERO3)
        if not progressed:  # pragma: no cover - excluded by the root/parent checks above
            raise LagdynError(f"URDF {rname!r}: joints not connected to the root")
    if not chain_links:
        raise LagdynError(f"URDF {rname!r} has no movable joint")
    order = [
        str(j.get("name"))
        for j in joints
        if j.get("type") != "fixed" and j.get("name") not in locked
    ]
    if order != names:
        raise LagdynError(
            f"URDF {rname!r}: the movable joints must be listed parents first; the file's order "
            f"{order} is not a valid coordinate order"
        )
    final = []
    for k, (link, (m, h, I)) in enumerate(zip(chain_links, inertials)):
        if parameters == "numeric":
            final.append(replace(link, mass=m, first_moment=h, inertia=I))
        elif parameters == "symbolic":
            final.append(symbolic_inertia(link, k + 1))
            values = (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2], *h, m)
            for s, v in zip(standard_parameters(k + 1).values(), values):
                defaults[s] = float(v)
        else:
            raise LagdynError(f"parameters must be 'symbolic' or 'numeric', got {parameters!r}")
    chain, _ = make_chain(final, gravity=gravity, defaults=defaults, names=names)
    return build(chain, friction=friction)
