"""Chains from URDF files, parsed with the standard library's ``xml.etree``.

Conventions (ROS REP 103 / the URDF spec): a joint's ``origin`` places the joint frame in
the parent link's frame (``rpy`` is fixed-axis roll–pitch–yaw, R = Rz(y) Ry(p) Rx(r)); the
child link's frame *is* the joint frame, moved by the joint (rotation about ``axis``, default
``1 0 0``, normalised if it is not a unit vector, as Pinocchio does; or translation along
it); a link's ``<inertial>`` gives the mass, the COM frame (origin) and the inertia about the
COM in that frame, and a link without one is massless (as in urdfdom and Pinocchio).
``continuous`` joints are revolute; ``fixed`` joints are merged (the child's inertia is added
to the moving link it is welded to); ``floating`` and ``planar`` joints, movable ``<mimic>``
joints and closed loops are rejected, and so are entity declarations and DTDs (no entity
is ever expanded, no other file read). The root link is welded to the world (a warning says so
when it carries mass). Coordinates ``q1 … qn`` follow Pinocchio's order of movable joints:
depth-first from the root link, the child joints of a link in the order of their names,
whatever order the file lists them in; q = 0 is the file's configuration.
Decimals are read exactly (``0.425`` → 17/40) and angles within 1e-9 of a multiple of π/12
snap to it (``1.57079632679`` → π/2), so closed forms stay exact. The rules for bad input
are in ``docs/guarantees.md`` ("URDF input").

Examples
--------
>>> import lagdyn as ld
>>> xml = '''<robot name="r">
...   <link name="base"/>
...   <joint name="j1" type="continuous"><parent link="base"/><child link="l1"/>
...     <axis xyz="0 0 1"/></joint>
...   <link name="l1"><inertial><mass value="2"/><origin xyz="1 0 0"/>
...     <inertia ixx="0.25" ixy="0" ixz="0" iyy="0.25" iyz="0" izz="0.5"/></inertial></link>
... </robot>'''
>>> arm = ld.robot.from_urdf(xml, parameters="numeric")
>>> arm.M
Matrix([[5/2]])
"""

from __future__ import annotations

import math
import os
import warnings
import xml.etree.ElementTree as ET
import xml.parsers.expat as expat
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, overload

import symengine as se
import sympy as sp

from ..codegen.binding import check_value
from ..errors import LagdynError, SingularMassMatrixError
from ..recursive.chain import Link, inertia_about_origin, standard_parameters, symbolic_inertia
from ..recursive.floating import FloatingChain
from ..recursive.kinematics import Frame
from ._checks import MAX_JOINTS, check_count, inertia_complaint, user_stacklevel
from .builders import exact, exact_angle, make_chain
from .floating import FloatingRobot
from .system import RobotSystem, build

#: The assumption every mass keeps (the rule of :func:`lagdyn.codegen.binding.check_value`).
_MASS = sp.Symbol("mass", nonnegative=True)

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


def _number(text: str, what: str) -> Any:
    """One number of the file, exact and finite, or an error naming where it is."""
    try:
        return exact(text)
    except LagdynError as exc:
        raise LagdynError(f"{what}: {exc}") from None


def _floats(text: str | None, count: int, default: Sequence[Any], what: str) -> list[Any]:
    if text is None:
        return list(default)
    parts = text.split()
    if len(parts) != count:
        raise LagdynError(f"{what}: expected {count} numbers, got {text!r}")
    return [_number(x, what) for x in parts]


def _odd(angle: Any) -> bool:
    """An angle that is not a rational multiple of π (its cosine is transcendental, so
    products of such rotations do not simplify)."""
    return bool(angle != 0 and not (angle / sp.pi).is_Rational)


def _rpy(roll: Any, pitch: Any, yaw: Any) -> sp.ImmutableMatrix:
    """``rpy(roll, pitch, yaw)`` (Rz Ry Rx) entry by entry, without matrix products."""
    if roll == 0 and pitch == 0 and yaw == 0:
        return _EYE
    cr, sr = sp.cos(roll), sp.sin(roll)
    cp, s_p = sp.cos(pitch), sp.sin(pitch)
    cy, sy = sp.cos(yaw), sp.sin(yaw)
    return Mat(
        [
            [cy * cp, cy * s_p * sr - sy * cr, cy * s_p * cr + sy * sr],
            [sy * cp, sy * s_p * sr + cy * cr, sy * s_p * cr - cy * sr],
            [-s_p, cp * sr, cp * cr],
        ]
    )


def _origin(elem: ET.Element | None, what: str) -> tuple[Any, Any, int]:
    """``(R, p, k)`` of an ``<origin>``: the rotation (``_EYE`` itself when there is none),
    the offset, and how many of its angles are not rational multiples of π."""
    if elem is None:
        return _EYE, _ZERO3, 0
    xyz = _floats(elem.get("xyz"), 3, (0, 0, 0), f"{what} xyz")
    angles = [exact_angle(x) for x in _floats(elem.get("rpy"), 3, (0, 0, 0), f"{what} rpy")]
    p = _ZERO3 if all(x == 0 for x in xyz) else Mat(xyz)
    return _rpy(*angles), p, sum(map(_odd, angles))


_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def _check_inertia(name: str, Ic: Any) -> str | None:
    """Refuse an inertia about the COM that is not positive semidefinite (M could lose its
    definiteness); return a complaint for principal moments that violate the triangle
    inequality (A + B ≥ C: no body has them, though M stays positive definite). Both
    beyond the rounding of the file's decimals: 1e-3 of the trace, plus 1e-12 kg·m²."""
    return inertia_complaint(f"link {name!r}", Ic)


def _inertial(link: ET.Element) -> tuple[Any, Any, Any, Any] | None:
    """(m, h, I about the link origin, I about the COM in the inertial frame) of a
    ``<link>`` from its ``<inertial>``; ``None`` for a link without one (massless, as
    urdfdom and Pinocchio read it).

    Like urdfdom, an ``<inertial>`` needs ``<mass value>`` and ``<inertia>`` with all six
    entries; the mass must be finite and nonnegative.
    """
    inertial = link.find("inertial")
    name = str(link.get("name"))
    if inertial is None:
        return None
    where = f"link {name!r}: <inertial>"
    mass = inertial.find("mass")
    if mass is None or mass.get("value") is None:
        raise LagdynError(f"{where} has no <mass value=...> (urdfdom refuses it too)")
    m = _number(str(mass.get("value")), f"link {name!r}: mass")
    check_value(_MASS, m, label=f"link {name!r}: mass")
    R, c, _ = _origin(inertial.find("origin"), f"link {name!r} inertial origin")
    ie = inertial.find("inertia")
    if ie is None:
        raise LagdynError(f"{where} has no <inertia> element (urdfdom refuses it too)")
    missing = [k for k in _INERTIA_KEYS if ie.get(k) is None]
    if missing:
        raise LagdynError(f"link {name!r}: <inertia> lacks {', '.join(missing)}")
    v = {k: _number(str(ie.get(k)), f"link {name!r}: inertia {k}") for k in _INERTIA_KEYS}
    Ic = Mat(
        [
            [v["ixx"], v["ixy"], v["ixz"]],
            [v["ixy"], v["iyy"], v["iyz"]],
            [v["ixz"], v["iyz"], v["izz"]],
        ]
    )
    if R is _EYE and c is _ZERO3:  # the common case, without matrix arithmetic
        return m, _ZERO3, Ic, Ic
    Iw = Ic if R is _EYE else Mat(R * Ic * R.T)
    I = inertia_about_origin(m, c, Iw).applyfunc(sp.expand)
    return m, Mat(m * c), I, Ic


def _refuse_entity(name: str, is_parameter: int, value: Any, *rest: Any) -> None:
    """Expat's ``EntityDeclHandler``: every ``<!ENTITY>`` declaration is refused, when it is
    met (before any entity is expanded)."""
    system_id = rest[1] if len(rest) > 1 else None
    what = f"SYSTEM {system_id!r}" if system_id else repr(_shorten(str(value)))
    raise LagdynError(
        f"the URDF declares <!ENTITY {'% ' if is_parameter else ''}{name} {what}>: lagdyn "
        "refuses entity declarations and DTDs (internal entities can expand exponentially, "
        "the billion laughs; external ones read other files): write the values into the file"
    )


def _shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:30] + f"… ({len(text)} characters)"


def _from_text(data: str | bytes) -> ET.Element:
    """The root element of XML text (``str`` or ``bytes``).

    A first pass of expat (through :mod:`xml.parsers.expat`, whose handlers the C
    ``ElementTree`` parser does not expose) refuses every ``<!ENTITY>`` declaration when it
    meets it, before any entity is expanded, and any ``<!DOCTYPE>`` with an internal subset
    or an external DTD. Then ``ElementTree`` builds the tree.
    """
    doctype: list[tuple[str, bool]] = []

    def start(name: str, system_id: str | None, public_id: str | None, internal: int) -> None:
        if system_id or public_id:
            raise LagdynError(
                f"the URDF declares <!DOCTYPE {name}> with the external DTD "
                f"{_shorten(str(system_id or public_id))!r}: lagdyn reads no DTD; remove the "
                "declaration"
            )
        doctype.append((name, bool(internal)))

    def end() -> None:
        if doctype and doctype[-1][1]:
            raise LagdynError(
                f"the URDF declares <!DOCTYPE {doctype[-1][0]} [...]> with an internal subset: "
                "lagdyn refuses DTDs and entity declarations; remove it"
            )

    screen = expat.ParserCreate()
    screen.StartDoctypeDeclHandler = start
    screen.EndDoctypeDeclHandler = end
    screen.EntityDeclHandler = _refuse_entity
    screen.Parse(data, True)
    return ET.fromstring(data)


def _parse(source: Any) -> ET.Element:
    """The ``<robot>`` element of a path or of XML text (``str`` or ``bytes``).

    Expat parses it, with a ``<!DOCTYPE>`` holding an internal subset or an external DTD and
    every ``<!ENTITY>`` declaration refused before any entity is expanded.
    """
    if isinstance(source, (bytes, bytearray)):
        return _guarded(lambda: _from_text(bytes(source)), "the URDF bytes")
    if not isinstance(source, (str, os.PathLike)):
        raise LagdynError(
            "from_urdf reads a file path (str or os.PathLike) or the XML itself (str or "
            f"bytes), got {type(source).__name__}"
        )
    text = os.fspath(source)
    if isinstance(text, bytes):  # a PathLike of bytes
        text = os.fsdecode(text)
    shown = repr(text) if len(text) <= 80 else repr(text[:60]) + f"… ({len(text)} characters)"
    if isinstance(source, str) and text.lstrip("\ufeff \t\r\n").startswith("<"):
        return _guarded(lambda: _from_text(text.lstrip("\ufeff")), "the URDF text")
    path = Path(text)
    try:
        found = path.is_file()
    except (OSError, ValueError):  # an embedded NUL, a name too long for the system
        found = False
    if not found:
        raise LagdynError(f"URDF file not found: {shown}")

    def read() -> ET.Element:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise LagdynError(f"cannot read the URDF file {shown}: {exc.strerror or exc}") from None
        return _from_text(data)

    return _guarded(read, f"the URDF file {shown}")


def _guarded(parse: Any, what: str) -> ET.Element:
    """``parse()``, with the parser's own errors named: malformed XML, an encoding the XML
    declaration names that Python does not know, text that is not valid Unicode."""
    try:
        root: ET.Element = parse()
        return root
    except ET.ParseError as exc:
        raise LagdynError(f"malformed URDF XML: {exc}") from exc
    except expat.ExpatError as exc:
        where = f"line {exc.lineno}, column {exc.offset}"
        raise LagdynError(f"malformed URDF XML: {expat.ErrorString(exc.code)}: {where}") from None
    except LookupError as exc:  # <?xml encoding="bogus"?>
        raise LagdynError(
            f"{what}: the XML declaration names an encoding Python does not know ({exc}); "
            "save the file as UTF-8"
        ) from None
    except UnicodeError as exc:  # a lone surrogate in a str: it cannot be encoded for expat
        raise LagdynError(
            f"{what} is not valid Unicode text ({exc.reason} at position {exc.start}, "  # type: ignore[attr-defined]
            f"{exc.object[exc.start : exc.start + 1]!r}): "  # type: ignore[attr-defined]
            "a lone surrogate, perhaps from a file decoded with errors='surrogateescape'"
        ) from None


def _names(items: list[ET.Element], tag: str, problems: list[str]) -> None:
    """Missing and duplicate ``name`` attributes of ``<link>`` or ``<joint>`` elements."""
    seen: dict[str, int] = {}
    for e in items:
        n = e.get("name")
        if not n:
            problems.append(f"a <{tag}> without a name")
        else:
            seen[n] = seen.get(n, 0) + 1
    duplicates = sorted(n for n, k in seen.items() if k > 1)
    if duplicates:
        problems.append(f"duplicate {tag} names {duplicates}")


def _cycle(start: str, parent_of: dict[str, tuple[str, str]]) -> list[str]:
    """The joints of the loop that ``start`` (a link no root reaches) leads into."""
    path: list[str] = []
    link = start
    while link not in path:
        path.append(link)
        link = parent_of[link][1]
    loop = path[path.index(link) :]
    return [parent_of[x][0] for x in loop]


def _tree(root: ET.Element, locked: Sequence[str]) -> tuple[str, list[ET.Element], dict[str, Any]]:
    """Check that the file is one tree and order it: (root link, joints depth-first, links).

    The order is Pinocchio's (urdfdom's): depth-first from the root, the child joints of a
    link visited in the order of their names.
    """
    rname = root.get("name", "")
    link_elems, joints = root.findall("link"), root.findall("joint")
    check_count(len(joints), f"URDF {rname!r}")
    if len(link_elems) > MAX_JOINTS + 1:
        raise LagdynError(
            f"URDF {rname!r} has {len(link_elems)} links, more than the {MAX_JOINTS + 1} of a "
            f"tree of {MAX_JOINTS} joints (lagdyn.robot.MAX_JOINTS)"
        )
    if not link_elems and not joints:
        raise LagdynError(f"URDF {rname!r} is empty: it has no <link> and no <joint>")
    problems: list[str] = []
    _names(link_elems, "link", problems)
    _names(joints, "joint", problems)
    links = {str(e.get("name")): e for e in link_elems}
    joint_names = {j.get("name") for j in joints}
    unknown = [x for x in locked if x not in joint_names]
    if unknown:
        problems.append(f"locked joints not in the file: {sorted(unknown)}")
    parent_of: dict[str, tuple[str, str]] = {}  # child link -> (joint, parent link)
    mimics: list[tuple[str, str]] = []  # movable mimic joints, the joints they follow
    for j in joints:
        jn, kind = j.get("name"), j.get("type")
        movable = jn not in locked and kind != "fixed"
        if jn in locked:
            pass
        elif kind == "planar":
            problems.append(
                f"joint {jn!r} is planar (planar joints are not supported; a planar base is "
                "base='planar')"
            )
        elif kind == "floating":
            pass  # a floating base: checked in from_urdf
        elif kind not in ("revolute", "continuous", "prismatic", "fixed"):
            problems.append(f"joint {jn!r} has unknown type {kind!r}")
        mimic = j.find("mimic")
        if mimic is not None and movable:
            mimics.append((str(jn), str(mimic.get("joint"))))
        pe, ce = j.find("parent"), j.find("child")
        if pe is None or ce is None or not pe.get("link") or not ce.get("link"):
            problems.append(f"joint {jn!r} lacks <parent link=...> or <child link=...>")
            continue
        parent, child = str(pe.get("link")), str(ce.get("link"))
        for role, ln in (("parent", parent), ("child", child)):
            if ln not in links:
                problems.append(
                    f"joint {jn!r}: its {role} is an unknown link {ln!r} (no <link name={ln!r}>)"
                )
        if child in parent_of:
            problems.append(
                f"link {child!r} is the child of two joints, {parent_of[child][0]!r} and "
                f"{jn!r} (a closed loop: not a tree)"
            )
        else:
            parent_of[child] = (str(jn), parent)
    if mimics:
        problems.append(
            "mimic joints are not supported: "
            + ", ".join(f"{a!r} (mimics {b!r})" for a, b in mimics)
            + f"; lock them at q = 0 with locked={[a for a, _ in mimics]}"
            + " (and the joints they mimic, to hold the whole mechanism still)"
        )
    if problems:
        raise LagdynError(f"URDF {rname!r}: " + "; ".join(problems))
    if not joints:
        raise LagdynError(
            f"URDF {rname!r} has no joints: nothing moves (links {sorted(links)})"
            if len(links) > 1
            else f"URDF {rname!r} has no joints: nothing moves (one link, {next(iter(links))!r})"
        )
    roots = [name for name in links if name not in parent_of]
    if len(roots) > 1:
        raise LagdynError(
            f"URDF {rname!r}: the links are not one tree: {roots} have no parent joint "
            "(connect them with joints)"
        )
    children: dict[str, list[ET.Element]] = {}
    by_child: dict[str, ET.Element] = {}
    for j in joints:
        children.setdefault(str(j.find("parent").get("link")), []).append(j)  # type: ignore[union-attr]
        by_child[str(j.find("child").get("link"))] = j  # type: ignore[union-attr]
    ordered: list[ET.Element] = []
    reached: set[str] = set()
    stack = roots[:1]
    while stack:  # depth-first; a link's child joints in the order of their names
        link = stack.pop()
        reached.add(link)
        if link in by_child:
            ordered.append(by_child[link])
        below = sorted(children.get(link, []), key=lambda j: str(j.get("name")))
        stack.extend(str(j.find("child").get("link")) for j in reversed(below))  # type: ignore[union-attr]
    lost = [name for name in links if name not in reached]
    if lost:
        loop = _cycle(lost[0], parent_of)
        raise LagdynError(
            f"URDF {rname!r}: the joints {loop} form a cycle (not a tree)"
            + (
                "; no link is the root"
                if not roots
                else f", not connected to the root {roots[0]!r}"
            )
        )
    return roots[0], ordered, links


def _mass_text(m: Any) -> str:
    return f"{float(m):.6g} kg"


#: The most constant angles that are not multiples of π/12 (rpy angles such as 0.3) one
#: placement may compose through a run of fixed joints: their exact product has a number of
#: terms exponential in them (12 angles: about 150 terms per rotation entry). Real files
#: compose at most 9 (icub_reduced's IMU frame).
MAX_COMPOSED_ANGLES = 12

#: The most terms (summed over the entries) of the products of such rotations in one file
#: (a rotation after a fixed joint that turned by one; a placement shared by several links
#: counted once): the cost of the merged constants grows with it (about 3 ms a term on one
#: core). Real files need up to about 140 (icub_reduced).
MAX_COMPOSED_TERMS = 1000


def _se(m: Any) -> Any:
    return se.DenseMatrix(m.rows, m.cols, [se.sympify(x) for x in m.flat()])


def _sympy_matrix(m: Any) -> sp.ImmutableMatrix:
    return Mat(m.rows, m.cols, [sp.sympify(x) for x in m])


def _then(Rb: Any, pb: Any, Ro: Any, po: Any) -> tuple[Any, Any]:
    """The placement ``(Rb, pb)·(Ro, po)`` in symengine, ``None`` standing for the identity
    rotation and the zero offset (``Ro is _EYE``, ``po is _ZERO3`` for the sympy ones).

    Expanded, so that a run of fixed joints stays a sum of products of the angles' sines and
    cosines (bounded by :data:`MAX_COMPOSED_ANGLES`), not a tree of products three times
    larger per joint; each fixed joint costs the same, however long the run."""
    R = Rb if Ro is _EYE else _se(Ro) if Rb is None else (Rb * _se(Ro)).expand()
    if po is _ZERO3:
        return R, pb
    step = _se(po) if Rb is None else (Rb * _se(po)).expand()
    return R, step if pb is None else (pb + step).expand()


def _terms(*matrices: Any) -> int:
    """The number of terms of the entries of symengine matrices (``None`` counts nothing)."""
    return sum(
        len(x.args) if isinstance(x, se.Add) else 1 for m in matrices if m is not None for x in m
    )


def _se_inertia(own: tuple[Any, Any, Any]) -> list[Any]:
    m, h, I = own
    return [se.sympify(m), _se(Mat(h)), _se(Mat(I))]


def _merge(acc: list[Any], R: Any, p: Any, inertial: Any, expand: bool) -> None:
    """Add a welded link's (m, h, I) at placement (R, p) (symengine, ``None`` for the
    identity and zero) to ``acc``, as :func:`transform_inertia` does; expanded when R holds
    no transcendental cosine (the product R I Rᵀ of such rotations would square their
    number of terms)."""
    m, h, I = (se.sympify(inertial[0]), _se(inertial[1]), _se(inertial[2]))
    Rh, I2 = (h, I) if R is None else (R * h, R * I * R.T)
    h2 = Rh
    if p is not None:

        def cross(v: Any) -> Any:
            return se.DenseMatrix(3, 3, [0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0])

        P, H = cross(p), cross(Rh)
        I2 = I2 - P * P * m - P * H - H * P
        h2 = Rh + p * m
    if expand:
        I2, h2 = I2.expand(), h2.expand()
    acc[0] = acc[0] + m
    acc[1] = acc[1] + h2
    acc[2] = acc[2] + I2


def _coefficient(text: str, what: str) -> Any:
    """A ``<dynamics>`` coefficient: a finite, nonnegative number."""
    value = _number(text, what)
    if value < 0:
        raise LagdynError(
            f"{what} = {value} is negative: friction dissipates, so it is nonnegative"
        )
    return value


def _default(s: sp.Symbol, v: Any, link: str) -> float:
    """The default of a standard parameter: the file's numbers, which must fit a double."""
    try:
        value = float(v)
    except (OverflowError, TypeError):
        value = math.inf
    if not math.isfinite(value):
        raise LagdynError(
            f"link {link!r}: the default of {s.name} overflows a double (the file's mass, "
            "centre of mass and inertia combine to more than 1.8e308): rescale the units"
        )
    return value


@overload
def from_urdf(
    source: str | os.PathLike[str],
    *,
    parameters: str = ...,
    gravity: Sequence[Any] | None = ...,
    friction: bool = ...,
    locked: Sequence[str] = ...,
    base: Literal["floating"],
    check_inertia: bool = ...,
) -> FloatingRobot: ...


@overload
def from_urdf(
    source: str | os.PathLike[str],
    *,
    parameters: str = ...,
    gravity: Sequence[Any] | None = ...,
    friction: bool = ...,
    locked: Sequence[str] = ...,
    base: Literal["fixed", "planar"] | None = ...,
    check_inertia: bool = ...,
) -> RobotSystem: ...


def from_urdf(
    source: str | os.PathLike[str],
    *,
    parameters: str = "symbolic",
    gravity: Sequence[Any] | None = None,
    friction: bool = False,
    locked: Sequence[str] = (),
    base: str | None = None,
    check_inertia: bool = True,
) -> RobotSystem | FloatingRobot:
    """A chain from a URDF file (path) or XML text.

    Parameters
    ----------
    source : str, bytes or path
        A file path (``str`` or ``os.PathLike``), or the XML itself: a string starting with
        ``<``, or ``bytes`` (read as XML, with the encoding its declaration names). At most
        :data:`~lagdyn.robot.MAX_JOINTS` ``<joint>`` elements, fixed ones included.
    parameters : {"symbolic", "numeric"}
        Ten symbols per moving link (the file's numbers, fixed links merged, become
        ``defaults``) or the file's numbers.
    gravity : 3-vector, optional
        In the root link's frame; default ``(0, 0, -g)``.
    friction : bool
        Use each joint's ``<dynamics damping friction>`` as viscous and Coulomb friction
        (read and checked, nonnegative, whether or not this is set).
    locked : sequence of str
        Names of movable joints to lock at 0 (treated as fixed, e.g. a gripper's fingers or
        a mimic joint).
    base : {None, "fixed", "floating", "planar"}
        As in Pinocchio, the root link is welded to the world unless ``base="floating"`` is
        asked or the file declares a ``floating`` joint (from its root link, e.g. ``world``):
        then the result is a :class:`~lagdyn.robot.floating.FloatingRobot` whose base body
        is the root link (or the floating joint's child) with the links welded to it, in
        Pinocchio's ``JointModelFreeFlyer`` conventions (q = base position, quaternion
        x y z w, joints; v = base linear and angular velocity in the base frame, joint
        rates; see ``docs/floating_base.md``). ``base="planar"`` puts three joints under
        the root link — ``<root>_x``, ``<root>_y`` (prismatic along the root's x and y) and
        ``<root>_yaw`` (revolute about z) — and returns a plain :class:`RobotSystem` with
        3 more coordinates (world-frame rates, unlike Pinocchio's ``JointModelPlanar``,
        whose q holds cos θ, sin θ and whose v is in the moving frame). With ``None``, a
        welded root that carries mass (not a link named ``world``) may be a floating robot:
        a warning says so; ``base="fixed"`` states that a fixed base is meant and silences
        it. A declared floating joint with ``base="fixed"`` or ``"planar"`` is an error.
    check_inertia : bool
        Refuse a moving link whose inertia about its COM is not positive semidefinite, and
        warn about principal moments with A + B < C (no body has them), each beyond 1e-3 of
        the trace plus 1e-12 kg·m². ``False`` accepts such files silently, as Pinocchio does.

    Returns
    -------
    RobotSystem or FloatingRobot
        A :class:`~lagdyn.robot.floating.FloatingRobot` for a floating base, else a
        :class:`RobotSystem`. ``chain.joint_names`` are the movable joints' names, in
        coordinate order:
        depth-first from the root link, the child joints of a link in the order of their
        names (Pinocchio's order, so q vectors agree with ``pin.buildModelFromUrdf``).

    Raises
    ------
    LagdynError
        A source that is neither a path nor XML text, malformed XML, an ``<!ENTITY>``
        declaration or a ``<!DOCTYPE>`` with an internal subset or an external DTD (refused
        before anything is expanded), an encoding Python does not know, text with a lone
        surrogate (not valid Unicode), a missing file, an empty file, more than
        ``MAX_JOINTS`` joints, planar joints, a floating joint that does not start at the
        root link (or more than one, or one with ``base="fixed"``), a movable joint from
        the world beside a declared floating base, movable mimic joints, duplicate
        names, a joint naming a link that does not exist, a link with two parents (closed
        loop), a cycle, several roots, a zero axis, a number that is not finite or overflows
        (or underflows) a double — read as a double first, so a huge exponent costs nothing
        —, an ``<inertial>`` without ``<mass>`` or ``<inertia>``, a negative mass or
        ``<dynamics>`` coefficient, an inertia that is not positive semidefinite, a run of
        fixed joints composing more than :data:`MAX_COMPOSED_ANGLES` rpy angles that are not
        multiples of π/12 (or more than :data:`MAX_COMPOSED_TERMS` terms of such placements
        in the file). Every message names the joint or link.
    SingularMassMatrixError
        ``parameters="numeric"`` and a movable joint that moves only massless links (links
        without ``<inertial>``): its row of M would be zero.

    Warns
    -----
    UserWarning
        The root link (with the links welded to it) has mass and is not named ``world``:
        the base is welded to the world. A moving link's inertia violates the triangle
        inequality. With ``parameters="symbolic"``, a joint that moves only massless links
        (the defaults make M singular).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.robot.from_urdf('<robot name="r"><link name="a"/></robot>')
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: URDF 'r' has no joints: nothing moves (one link, 'a')
    """
    if parameters not in ("symbolic", "numeric"):
        raise LagdynError(f"parameters must be 'symbolic' or 'numeric', got {parameters!r}")
    if base not in (None, "fixed", "floating", "planar"):
        raise LagdynError(f"base must be None, 'fixed', 'floating' or 'planar', got {base!r}")
    if isinstance(locked, str):
        locked = (locked,)
    if not isinstance(locked, (list, tuple, set, frozenset)) or not all(
        isinstance(x, str) for x in locked
    ):
        raise LagdynError(f"locked must be joint names (strings), got {locked!r}")
    locked = tuple(locked)
    root = _parse(source)
    if root.tag != "robot":
        raise LagdynError(f"not a URDF: the root element is <{root.tag}>, expected <robot>")
    rname = root.get("name", "")
    root_link, joints, links = _tree(root, locked)
    masses = {name: _inertial(e) for name, e in links.items()}  # every link checked
    declared = _floating_joint(rname, root_link, joints, locked, base)
    floating = base == "floating" or declared is not None
    # placement of every link frame in the frame of the moving body it is welded to, and
    # the joints whose angles (not rational multiples of π) that placement composes; body
    # −1 is the world (fixed base) or the floating base body, −2 the world under a declared
    # floating joint
    body_of: dict[str, tuple[int, Any, Any, tuple[str, ...]]] = {
        root_link: (-2 if declared is not None else -1, None, None, ())
    }
    members: list[list[str]] = []  # the links of each moving body
    welded_to_root: list[str] = [root_link]
    chain_links: list[Link] = []
    names: list[str] = []
    inertials: list[tuple[Any, Any, Any]] = []
    base_link = root_link if declared is None else str(declared.find("child").get("link"))  # type: ignore[union-attr]
    base_acc: list[Any] = [se.Integer(0), se.zeros(3, 1), se.zeros(3, 3)]  # the floating base
    if floating and declared is None and masses[root_link] is not None:
        _merge(base_acc, None, None, masses[root_link], True)
    if base == "planar":
        chain_links, names, members, inertials = _planar_base(root_link, masses[root_link])
        body_of[root_link] = (2, None, None, ())
    work = 0  # terms of the placements that compose transcendental angles
    gravity_turn: Any = None  # the rotation of a declared floating joint's origin
    merged: dict[int, list[Any]] = {}  # body -> [m, h, I] in symengine (fixed links added)
    for j in joints:  # depth-first: a link's body is known before its children's
        jn = str(j.get("name"))
        parent = str(j.find("parent").get("link"))  # type: ignore[union-attr]
        child = str(j.find("child").get("link"))  # type: ignore[union-attr]
        b, Rb, pb, oddb = body_of[parent]
        Ro, po, k = _origin(j.find("origin"), f"joint {jn!r} origin")
        odd = oddb + (jn,) * k
        if len(odd) > MAX_COMPOSED_ANGLES:
            raise LagdynError(
                f"URDF {rname!r}: joint {jn!r} composes {len(odd)} constant angles that are "
                f"not multiples of π/12 through the fixed joints {sorted(set(odd))} (at most "
                f"{MAX_COMPOSED_ANGLES}: their exact product grows exponentially). Round the "
                "rpy angles of those joints to multiples of π/12 where that is meant, or "
                "merge the fixed joints in the file"
            )
        R, p = _then(Rb, pb, Ro, po)
        if odd and Rb is not None:  # a product of rotations: its size is bounded
            work += _terms(None if R is Rb else R, None if p is pb else p)
            if work > MAX_COMPOSED_TERMS:
                raise LagdynError(
                    f"URDF {rname!r}: the fixed joints compose constant angles that are not "
                    f"multiples of π/12 into placements of more than {MAX_COMPOSED_TERMS} "
                    f"terms in all (at joint {jn!r}; their exact products grow with every "
                    "angle and every link they carry). Round the rpy angles to multiples "
                    "of π/12 where that is meant, or merge the fixed joints in the file"
                )
        kind = "fixed" if jn in locked else j.get("type")
        if kind == "floating":  # the declared floating base: its frame is the base frame
            gravity_turn = Ro
            body_of[child] = (-1, None, None, ())
            if masses[child] is not None:
                _merge(base_acc, None, None, masses[child], True)
            continue
        if b == -2 and kind != "fixed":
            raise LagdynError(
                f"URDF {rname!r}: joint {jn!r} moves {child!r} relative to the world "
                f"{root_link!r}, beside the floating base {base_link!r}: only one tree can "
                "hang from a floating base (make it the floating joint's descendant)"
            )
        if kind == "fixed":
            body_of[child] = (b, R, p, odd)
            if b == -1 and floating:
                if masses[child] is not None:
                    _merge(base_acc, R, p, masses[child], not odd)
                continue
            if b < 0:
                if j.get("type") == "fixed" and b == -1:
                    welded_to_root.append(child)
                continue
            members[b].append(child)
            if masses[child] is not None:
                if b not in merged:
                    merged[b] = _se_inertia(inertials[b])
                _merge(merged[b], R, p, masses[child], not odd)
            continue
        pre = (  # the file's own sympy origin when no fixed joint comes before it
            Ro if Rb is None else _sympy_matrix(R),
            (po if pb is None else _ZERO3 if p is None else _sympy_matrix(p)),
        )
        ax = j.find("axis")
        axis = _floats(
            ax.get("xyz") if ax is not None else None, 3, (1, 0, 0), f"joint {jn!r} axis"
        )
        if all(a == 0 for a in axis):
            raise LagdynError(f"URDF {rname!r}: joint {jn!r} has the zero axis '0 0 0'")
        dyn = j.find("dynamics")
        damping, coulomb = (
            (
                _coefficient(dyn.get(key, "0"), f"joint {jn!r} {key}")
                if dyn is not None
                else sp.Integer(0)
            )
            for key in ("damping", "friction")
        )
        index = len(chain_links)
        chain_links.append(
            Link(
                child,
                "prismatic" if kind == "prismatic" else "revolute",
                axis,  # normalised by Link, as Pinocchio does
                parent=b,
                pre=pre,
                viscous=damping if friction else 0,
                coulomb=coulomb if friction else 0,
            )
        )
        names.append(jn)
        members.append([child])
        own = masses[child]
        inertials.append(own[:3] if own is not None else (sp.Integer(0), _ZERO3, _ZERO33))
        body_of[child] = (index, None, None, ())
    for b, (m, h, I) in merged.items():  # back to sympy once per body
        sym = [[sp.sympify(I[min(r, c), max(r, c)]) for c in range(3)] for r in range(3)]
        inertials[b] = (sp.sympify(m), _sympy_matrix(h), Mat(sym))
    if not chain_links:
        raise LagdynError(
            f"URDF {rname!r} has no movable joint"
            + (f" (locked: {list(locked)})" if locked else " (every joint is fixed)")
            + (
                f": a floating base {base_link!r} without joints is one free rigid body, "
                "which lagdyn's floating-base models do not cover (they need a joint)"
                if floating
                else ""
            )
        )
    if not floating and base != "planar":
        _warn_floating_base(rname, root_link, welded_to_root, masses, base)
    if check_inertia:  # the links that move (those welded to the world do not enter M)
        moving = [(name, m) for group in members for name in group if (m := masses[name])]
        unlike = [c for c in (_check_inertia(name, m[3]) for name, m in moving) if c]
        if unlike:
            warnings.warn(
                f"URDF {rname!r}: the inertia of {', '.join(unlike)} violates the triangle "
                "inequality A + B ≥ C of principal moments, which no mass distribution "
                "gives (M stays positive definite; pass check_inertia=False to accept it "
                "silently)",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
    _check_massless(rname, chain_links, names, members, inertials, masses, parameters)
    defaults: dict[sp.Symbol, float] = {}
    final = []
    for k, (link, (m, h, I)) in enumerate(zip(chain_links, inertials)):
        if parameters == "numeric":
            final.append(replace(link, mass=m, first_moment=h, inertia=I))
        else:
            final.append(symbolic_inertia(link, k + 1))
            values = (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2], *h, m)
            for s, v in zip(standard_parameters(k + 1).values(), values):
                defaults[s] = _default(s, v, link.name)
    chain, _ = make_chain(final, gravity=gravity, defaults=defaults, names=names)
    if not floating:
        system = build(chain, friction=friction)
        system.frames = _frames(body_of, joints)
        return system
    if gravity_turn is not None and gravity_turn != _EYE:  # gravity in the floating joint frame
        chain = replace(chain, gravity=Mat(gravity_turn.T * chain.gravity))
    m, h, I = (sp.sympify(base_acc[0]), _sympy_matrix(base_acc[1]), _sympy_matrix(base_acc[2]))
    I = Mat(3, 3, lambda r, c: I[min(r, c), max(r, c)])
    fc = FloatingChain(chain, mass=m, first_moment=h, inertia=I, name=base_link)
    if parameters == "symbolic":
        fc = fc.with_symbolic_base()
        for s_, v in zip(
            standard_parameters(0).values(),
            (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2], *h, m),
        ):
            defaults[s_] = _default(s_, v, base_link)
    frames: dict[str, Any] = {  # every link's frame, on the moving body it is welded to
        k: (b, *(None if x is None else _sympy_matrix(x) for x in (R, p)))
        for k, (b, R, p, _) in body_of.items()
        if b >= -1
    }
    for j in joints:  # a joint's frame is its child link's (as Pinocchio places them)
        child = str(j.find("child").get("link"))  # type: ignore[union-attr]
        frames.setdefault(str(j.get("name")), frames.get(child))
    return FloatingRobot(
        fc,
        defaults=dict(chain.defaults) | defaults,
        friction=friction,
        name=rname,
        frames={k: v for k, v in frames.items() if v is not None},
    )


def _frames(body_of: dict[str, Any], joints: list[ET.Element]) -> dict[str, Frame]:
    """A fixed-base chain's frames: every link's (its moving body, −1 the world, and its
    placement there), and every joint's, its child link's."""
    frames = {
        k: Frame(
            k, b, _EYE if R is None else _sympy_matrix(R), _ZERO3 if p is None else _sympy_matrix(p)
        )
        for k, (b, R, p, _) in body_of.items()
    }
    for j in joints:
        child = frames[str(j.find("child").get("link"))]  # type: ignore[union-attr]
        name = str(j.get("name"))
        frames.setdefault(name, Frame(name, child.body, child.rotation, child.position))
    return frames


def _floating_joint(
    rname: str, root_link: str, joints: list[ET.Element], locked: Sequence[str], base: str | None
) -> ET.Element | None:
    """The file's floating joint (from the root link), ``None`` without one; refuse others."""
    found = [j for j in joints if j.get("type") == "floating" and j.get("name") not in locked]
    if not found:
        return None
    if base in ("fixed", "planar"):
        raise LagdynError(
            f"URDF {rname!r} declares the floating joint {found[0].get('name')!r}, but "
            f"base={base!r} was asked: remove the joint from the file, or leave base out"
        )
    if len(found) > 1:
        raise LagdynError(
            f"URDF {rname!r} has {len(found)} floating joints "
            f"{[j.get('name') for j in found]}: one floating base is supported"
        )
    j = found[0]
    if str(j.find("parent").get("link")) != root_link:  # type: ignore[union-attr]
        raise LagdynError(
            f"URDF {rname!r}: the floating joint {j.get('name')!r} does not start at the root "
            f"link {root_link!r}: a floating base must hang from the world"
        )
    return j


def _planar_base(
    root_link: str, mass: Any
) -> tuple[list[Link], list[str], list[list[str]], list[tuple[Any, Any, Any]]]:
    """Three joints x, y (prismatic) and yaw (revolute about z) under the root link."""
    zero = (sp.Integer(0), _ZERO3, _ZERO33)
    links = [
        Link(f"{root_link}_x", "prismatic", (1, 0, 0)),
        Link(f"{root_link}_y", "prismatic", (0, 1, 0), parent=0),
        Link(root_link, "revolute", (0, 0, 1), parent=1),
    ]
    names = [f"{root_link}_x", f"{root_link}_y", f"{root_link}_yaw"]
    own = mass[:3] if mass is not None else zero
    return links, names, [[], [], [root_link]], [zero, zero, own]


def _warn_floating_base(
    rname: str,
    root_link: str,
    welded: list[str],
    masses: dict[str, Any],
    base: str | None,
) -> None:
    """Warn that a root carrying mass (a robot's trunk, not a ``world`` link) is welded."""
    carrying = [name for name in welded if masses[name] is not None and masses[name][0] != 0]
    if base == "fixed" or root_link == "world" or not carrying:
        return
    total = sum(masses[name][0] for name in carrying)
    others = [name for name in carrying if name != root_link]
    extra = f" (with {others} welded to it)" if others else ""
    warnings.warn(
        f"URDF {rname!r}: the root link {root_link!r}{extra} has mass {_mass_text(total)}; "
        "lagdyn welds the base to the world (a fixed-base model, as pin.buildModelFromUrdf "
        "without a root joint). Pass base='floating' for a floating base (a quadruped, a "
        "humanoid: q holds the base position and quaternion), or base='fixed' if a fixed base "
        "is meant.",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def _check_massless(
    rname: str,
    chain_links: list[Link],
    names: list[str],
    members: list[list[str]],
    inertials: list[tuple[Any, Any, Any]],
    masses: dict[str, Any],
    parameters: str,
) -> None:
    """Name a movable joint that moves only massless links: its row of M is zero."""
    n = len(chain_links)
    empty = [
        inertials[k][0] == 0
        and all(x == 0 for x in inertials[k][1])
        and all(x == 0 for x in inertials[k][2])
        for k in range(n)
    ]
    below = [[k] for k in range(n)]
    for k in reversed(range(n)):  # parents come first in the depth-first order
        parent = chain_links[k].parent
        if parent >= 0:
            below[parent].extend(below[k])
    dead = [k for k in range(n) if all(empty[i] for i in below[k])]
    if not dead:
        return
    parts = []
    for k in dead:
        moved = [name for i in below[k] for name in members[i]]
        without = [name for name in moved if masses[name] is None]
        why = f" ({', '.join(map(repr, without))} without <inertial>)" if without else ""
        parts.append(f"joint {names[k]!r} (row {k + 1}) moves only massless links{why}")
    message = (
        f"URDF {rname!r}: " + "; ".join(parts) + ": those rows of M are zero, so M is "
        "singular. Give the links an <inertial>, or lock the joints: "
        f"locked={[names[k] for k in dead]}"
    )
    if parameters == "numeric":
        raise SingularMassMatrixError(message)
    warnings.warn(
        message + " (the symbolic model's defaults make M singular)",
        UserWarning,
        stacklevel=user_stacklevel(),
    )
