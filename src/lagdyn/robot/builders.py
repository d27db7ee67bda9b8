r"""Chains from Denavit–Hartenberg tables and from screw axes (product of exponentials).

Both return a :class:`~lagdyn.robot.system.RobotSystem` (a :class:`LagrangianSystem` with
the chain attached). Inertial parameters are either symbolic (ten per link, SYMORO names
``XX1 … M1`` in the link frame; numeric values given in ``inertia`` become the system's
``defaults``) or bound to numbers (``parameters="numeric"``). Gravity is ``(0, 0, -g)``
with a symbol ``g`` (default 9.81) unless given.

Examples
--------
>>> import lagdyn as ld
>>> arm = ld.robot.from_dh([(0, 1, 0), (0, 1, 0)])       # planar 2R, symbolic inertia
>>> len(arm.parameters)
21
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..codegen.binding import check_value
from ..errors import LagdynError, ShapeError
from ..recursive.chain import (
    Chain,
    Link,
    inertia_about_origin,
    rotation_about,
    standard_parameters,
    symbolic_inertia,
)
from ..symbols import coordinates
from .system import RobotSystem, build

#: The assumption every mass keeps (the rule of :func:`lagdyn.codegen.binding.check_value`).
_MASS = sp.Symbol("mass", nonnegative=True)

__all__ = ["exact", "exact_angle", "from_dh", "from_screws", "make_chain"]

Mat = sp.ImmutableMatrix
_EYE = sp.ImmutableMatrix.eye(3)
_Z = (0, 0, 1)


def exact(x: Any) -> sp.Expr:
    """A number as an exact sympy number (a float by its decimal digits); expressions kept.

    Python floats, numpy scalars (``np.float64``, ``np.float32``, ``np.int64``) and 0-d
    arrays are read by their shortest decimal representation, so ``0.425`` and
    ``np.float64(0.425)`` are both 17/40; NaN and infinities are refused.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.robot import exact
    >>> exact(0.425), exact("0.1"), exact(np.float64(0.425)), exact(np.array(3))
    (17/40, 1/10, 17/40, 3)
    >>> exact(float("nan"))
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: not a finite number: nan
    """
    if isinstance(x, np.ndarray):
        if x.shape != ():
            raise ShapeError(f"expected a number, got an array of shape {x.shape}")
        x = x[()]
    if isinstance(x, np.generic):
        if isinstance(x, np.floating):
            if not np.isfinite(x):
                raise LagdynError(f"not a finite number: {x}")
            return sp.Rational(str(x))  # numpy 2's repr is 'np.float64(…)'; str is the digits
        if isinstance(x, (np.integer, np.bool_)):
            return sp.Integer(int(x))
        raise LagdynError(f"not a real number: {x!r}")
    if isinstance(x, str):
        text = x.strip()
        try:
            value = sp.Rational(text)
        except (TypeError, ValueError):
            raise LagdynError(f"not a number: {x!r}") from None
        try:
            finite = math.isfinite(float(text))
        except ValueError:  # '1/3' is a rational a float cannot read
            finite = True
        if not finite:
            raise LagdynError(f"not a finite number (outside the range of a double): {x!r}")
        return value
    if isinstance(x, float):
        if not math.isfinite(x):
            raise LagdynError(f"not a finite number: {x!r}")
        return sp.Rational(float.__repr__(x))
    try:
        value = sp.sympify(x, strict=True)
    except (sp.SympifyError, TypeError) as exc:
        raise LagdynError(f"not a number or expression: {x!r}") from exc
    if value.is_number and (value.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or value.is_finite is False):
        raise LagdynError(f"not a finite number: {x!r}")
    return value


def exact_angle(x: Any, tol: float = 1e-9) -> sp.Expr:
    """An angle, snapped to a multiple of π/12 when within ``tol`` (1.57079632679 → π/2).

    Examples
    --------
    >>> from lagdyn.robot import exact_angle
    >>> exact_angle(1.57079632679), exact_angle("-3.14159265359"), exact_angle(0.5)
    (pi/2, -pi, 1/2)
    """
    e = exact(x)
    if e.is_number and not e.free_symbols:
        v = float(e)
        k = round(v / (math.pi / 12))
        if abs(v - k * math.pi / 12) < tol:
            return sp.pi * k / 12
    return e


def _symbol(name: str, value: float, defaults: dict[sp.Symbol, float]) -> sp.Symbol:
    s = sp.Symbol(name, positive=True)
    defaults.setdefault(s, value)
    return s


def _inertia_entry(
    spec: Mapping[str, Any] | None,
    index: int,
    link: Link,
    parameters: str,
    defaults: dict[sp.Symbol, float],
) -> Link:
    """Fill the inertial parameters of ``link`` from ``spec`` (about the COM) or symbols."""
    numeric = None
    if spec is not None:
        unknown = set(spec) - {"m", "com", "I", "armature", "viscous", "coulomb"}
        if unknown:
            raise LagdynError(f"link {index}: unknown inertia keys {sorted(unknown)}")
        m = exact(spec.get("m", 0))
        check_value(_MASS, m, label=f"link {index}: mass")
        c = Mat([exact(x) for x in _entries(spec.get("com", (0, 0, 0)))])
        Ic = _entries(spec.get("I", (0, 0, 0, 0, 0, 0)))
        if isinstance(Ic, sp.MatrixBase):
            Ic = Ic.tolist() if Ic.shape == (3, 3) else list(Ic)
        elif not isinstance(Ic, (list, tuple)):
            try:
                Ic = list(Ic)
            except TypeError:
                raise ShapeError(f"link {index}: I must be 3 × 3, 6 or 3 numbers") from None
        if len(Ic) == 3 and isinstance(Ic[0], (list, tuple)):
            Im = _exact_matrix(Ic)
        elif len(Ic) == 6:  # Ixx Iyy Izz Ixy Iyz Ixz (Corke's order)
            xx, yy, zz, xy, yz, xz = (exact(v) for v in Ic)
            Im = Mat([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        elif len(Ic) == 3:
            Im = Mat(sp.diag(*[exact(v) for v in Ic]))
        else:
            raise ShapeError(f"link {index}: I must be 3 × 3, 6 or 3 numbers")
        numeric = (m, Mat(m * c), inertia_about_origin(m, c, Im))
        extras = {k: exact(spec[k]) for k in ("armature", "viscous", "coulomb") if k in spec}
        from dataclasses import replace

        link = replace(link, **extras)
    if parameters == "numeric":
        if numeric is None:
            raise LagdynError(f"parameters='numeric' needs the inertia of link {index}")
        from dataclasses import replace

        return replace(link, mass=numeric[0], first_moment=numeric[1], inertia=numeric[2])
    if parameters != "symbolic":
        raise LagdynError(f"parameters must be 'symbolic' or 'numeric', got {parameters!r}")
    sym = symbolic_inertia(link, index)
    if numeric is not None:
        for value, s in zip(
            (*_flat_inertia(numeric[2]), *numeric[1], numeric[0]),
            standard_parameters(index).values(),
        ):
            check_value(s, value, label=f"link {index}: {s.name}")
            defaults[s] = float(value)
    return sym


def _entries(value: Any) -> Any:
    """Nested lists of a numpy array (its entries as numpy scalars, read exactly by
    :func:`exact`, instead of the sympy Floats ``Matrix(array)`` would make)."""
    if isinstance(value, np.ndarray):
        return [_entries(v) for v in value] if value.ndim else value[()]
    return value


def _exact_matrix(value: Any) -> sp.ImmutableMatrix:
    """A matrix (rows, a numpy array or a sympy matrix) with every entry read by :func:`exact`."""
    value = _entries(value)
    if isinstance(value, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in value):
        return Mat([[exact(v) for v in row] for row in value])
    return Mat(value).applyfunc(exact)


def _flat_inertia(I: Any) -> tuple[Any, ...]:
    return (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2])


def make_chain(
    links: Sequence[Link],
    *,
    gravity: Sequence[Any] | None,
    defaults: dict[sp.Symbol, float],
    names: Sequence[str] | None = None,
) -> tuple[Chain, Any]:
    """A :class:`Chain` with coordinates ``q1 … qn`` and the default gravity ``(0, 0, -g)``.

    Examples
    --------
    >>> from lagdyn.robot import Link, make_chain
    >>> chain, q = make_chain([Link("a", "revolute", (0, 0, 1), mass=1)], gravity=None, defaults={})
    >>> chain.gravity.T
    Matrix([[0, 0, -g]])
    """
    n = len(links)
    q = coordinates(" ".join(f"q{i + 1}" for i in range(n)) + ("," if n == 1 else ""))
    if gravity is None:
        g = _symbol("g", 9.81, defaults)
        gvec: Any = (0, 0, -g)
    else:
        gvec = [exact(x) for x in gravity]
    chain = Chain(tuple(links), tuple(q), gvec, dict(defaults), tuple(names or ()))
    return chain, q


def _rows(table: Sequence[Any]) -> list[dict[str, Any]]:
    rows = []
    for k, row in enumerate(table):
        if isinstance(row, Mapping):
            unknown = set(row) - {"d", "a", "alpha", "offset", "theta", "joint"}
            if unknown:
                raise LagdynError(f"DH row {k + 1}: unknown keys {sorted(unknown)}")
            rows.append(dict(row))
        else:
            vals = list(row)
            if len(vals) not in (3, 4):
                raise ShapeError(f"DH row {k + 1}: give (d, a, alpha) or (d, a, alpha, offset)")
            rows.append(dict(zip(("d", "a", "alpha", "offset"), vals)))
    if not rows:
        raise LagdynError("the DH table is empty")
    return rows


def from_dh(
    table: Sequence[Any],
    convention: str = "standard",
    *,
    joints: str | None = None,
    inertia: Sequence[Mapping[str, Any] | None] | None = None,
    parameters: str = "symbolic",
    gravity: Sequence[Any] | None = None,
    friction: bool = False,
) -> RobotSystem:
    r"""A serial chain from a Denavit–Hartenberg table.

    Parameters
    ----------
    table : sequence of rows
        Per joint ``(d, a, alpha)``, ``(d, a, alpha, offset)`` or a mapping with keys
        ``d, a, alpha, offset, theta, joint``. Revolute: θ = q + offset; prismatic
        (``joint="P"``): d = q + offset, θ = ``theta``. Numbers may be floats (taken by
        their decimal digits; angles within 1e-9 of a multiple of π/12 snap to it) or
        sympy expressions.
    convention : {"standard", "modified"}
        Standard (distal, Corke's ``DHRobot``): link frame i at the far end,
        :math:`T = R_z(\theta) T_z(d) T_x(a) R_x(\alpha)`. Modified (proximal, Craig's):
        :math:`T = R_x(\alpha_{i-1}) T_x(a_{i-1}) R_z(\theta_i) T_z(d_i)`, the row holding
        :math:`\alpha_{i-1}, a_{i-1}`.
    joints : str, optional
        ``"R"``/``"P"`` per joint (overrides the rows' ``joint``).
    inertia : sequence of mappings, optional
        Per link ``{"m": mass, "com": (x, y, z) in the link frame, "I": inertia about the
        COM (3 × 3, or Ixx Iyy Izz Ixy Iyz Ixz)}`` plus optional ``armature``,
        ``viscous``, ``coulomb``.
    parameters : {"symbolic", "numeric"}
        Ten symbols per link (the ``inertia`` numbers go to ``defaults``) or the numbers.
    gravity : 3-vector, optional
        In the base frame; default ``(0, 0, -g)``.
    friction : bool
        Add viscous/Coulomb friction forces (needs coefficients in ``inertia``).

    Returns
    -------
    RobotSystem
        With ``chain`` attached; coordinates ``q1 … qn``.

    Raises
    ------
    LagdynError
        Unknown convention, keys or joint letters, missing numeric inertia.

    Examples
    --------
    >>> import lagdyn as ld
    >>> arm = ld.robot.from_dh([(0, 1, 0), (0, 1, 0)], parameters="numeric",
    ...                        inertia=[{"m": 1, "com": (-0.5, 0, 0)}] * 2)
    >>> arm.M[1, 1]
    1/4
    """
    if convention not in ("standard", "modified"):
        raise LagdynError(f"convention must be 'standard' or 'modified', got {convention!r}")
    rows = _rows(table)
    n = len(rows)
    kinds = list(joints) if joints is not None else [str(r.get("joint", "R")) for r in rows]
    if len(kinds) != n or any(k not in ("R", "P") for k in kinds):
        raise LagdynError(f"joints must be {n} letters R or P, got {kinds}")
    if inertia is not None and len(inertia) != n:
        raise ShapeError(f"{n} DH rows but {len(inertia)} inertia entries")
    defaults: dict[sp.Symbol, float] = {}
    links = []
    for i, (row, kind) in enumerate(zip(rows, kinds)):
        d, a = exact(row.get("d", 0)), exact(row.get("a", 0))
        alpha = exact_angle(row.get("alpha", 0))
        offset = exact_angle(row.get("offset", 0)) if kind == "R" else exact(row.get("offset", 0))
        theta = exact_angle(row.get("theta", 0))
        Rx = rotation_about((1, 0, 0), alpha)
        joint = "revolute" if kind == "R" else "prismatic"
        if convention == "standard":
            if kind == "R":
                pre = (rotation_about(_Z, offset), (0, 0, 0))
                post = (Rx, (a, 0, d))
            else:
                pre = (rotation_about(_Z, theta), (0, 0, 0))
                post = (Rx, (a, 0, offset))
        else:
            if kind == "R":
                pre = (
                    Mat(Rx * rotation_about(_Z, offset)),
                    (a, -d * sp.sin(alpha), d * sp.cos(alpha)),
                )
                post = (_EYE, (0, 0, 0))
            else:
                pre = (Mat(Rx * rotation_about(_Z, theta)), (a, 0, 0))
                post = (_EYE, (0, 0, offset))
        link = Link(f"link{i + 1}", joint, _Z, parent=i - 1, pre=pre, post=post)
        spec = inertia[i] if inertia is not None else None
        links.append(_inertia_entry(spec, i + 1, link, parameters, defaults))
    chain, _ = make_chain(links, gravity=gravity, defaults=defaults)
    return build(chain, friction=friction)


def _exp_twist(w: Any, v: Any, theta: Any) -> tuple[Any, Any]:
    """exp([S] θ) for a unit screw S = (ω, v) (|ω| = 1 or ω = 0, |v| = 1)."""
    w, v = Mat(w), Mat(v)
    if all(x == 0 for x in w):
        return _EYE, Mat(v * theta)
    R = rotation_about(w, theta)
    K = sp.Matrix([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    G = sp.eye(3) * theta + (1 - sp.cos(theta)) * K + (theta - sp.sin(theta)) * K * K
    return R, Mat(G * v)


def from_screws(
    screws: Sequence[Sequence[Any]],
    home: Sequence[Any],
    *,
    inertia: Sequence[Mapping[str, Any] | None] | None = None,
    parameters: str = "symbolic",
    gravity: Sequence[Any] | None = None,
    friction: bool = False,
) -> RobotSystem:
    r"""A serial chain from space-frame screw axes (product of exponentials).

    Link i's frame at q is :math:`e^{[S_1]q_1}\cdots e^{[S_i]q_i} M_i` (Lynch & Park).

    Parameters
    ----------
    screws : sequence of 6-vectors
        Space-frame screws :math:`S_i = (\omega_i, v_i)`: a revolute joint has unit ω
        and :math:`v = -\omega\times r` for a point r on its axis; a prismatic joint ω = 0
        and unit v.
    home : sequence of 4 × 4 matrices or (R, p) pairs
        :math:`M_i`, the world placement of link frame i at q = 0 (inertia is expressed in it).
    inertia, parameters, gravity, friction
        As in :func:`from_dh`.

    Raises
    ------
    ShapeError
        Screws or home placements of the wrong size or number.

    Examples
    --------
    A planar 2R arm along x with unit links (frames at the link tips):

    >>> import sympy as sp, lagdyn as ld
    >>> home = [(sp.eye(3), (1, 0, 0)), (sp.eye(3), (2, 0, 0))]
    >>> arm = ld.robot.from_screws([(0, 0, 1, 0, 0, 0), (0, 0, 1, 0, -1, 0)], home,
    ...     parameters="numeric", inertia=[{"m": 1}, {"m": 1}])
    >>> arm.M[1, 1]
    1
    """
    n = len(screws)
    if len(home) != n:
        raise ShapeError(f"{n} screws but {len(home)} home placements")
    if inertia is not None and len(inertia) != n:
        raise ShapeError(f"{n} screws but {len(inertia)} inertia entries")
    defaults: dict[sp.Symbol, float] = {}
    placements = []
    for k, Mi in enumerate(home):
        Mi = _entries(Mi)
        if isinstance(Mi, (tuple, list)) and len(Mi) == 2:
            R = _exact_matrix(Mi[0])
            p = Mat([exact(x) for x in Mi[1]])
        else:
            T = _exact_matrix(Mi)
            if T.shape != (4, 4):
                raise ShapeError(f"home placement {k + 1} must be 4 × 4 or (R, p)")
            R, p = Mat(T[:3, :3]).applyfunc(exact), Mat(T[:3, 3]).applyfunc(exact)
        placements.append((R, p))
    links = []
    for i, S in enumerate(screws):
        S = [exact(x) for x in S]
        if len(S) != 6:
            raise ShapeError(f"screw {i + 1} must have 6 entries (ω, v)")
        w, v = Mat(S[:3]), Mat(S[3:])
        R, p = placements[i]
        # body screw in frame i: Ad_{M_i^{-1}} S
        wb = Mat(R.T * w)
        vb = Mat(R.T * (v + w.cross(p)))
        if any(x != 0 for x in w):
            if sp.expand(w.dot(v)) != 0:
                raise LagdynError(
                    f"screw {i + 1} has a nonzero pitch (ω·v ≠ 0): not a revolute joint"
                )
            joint = "revolute"
            # axis through r_b = wb × vb (|wb| = 1): joint frame = Trans(r_b)
            rb = Mat(wb.cross(vb))
            post: tuple[Any, Any] = (_EYE, Mat(-rb))
            pre_offset = rb
            axis = wb
        else:
            joint, axis, post, pre_offset = "prismatic", vb, (_EYE, (0, 0, 0)), Mat([0, 0, 0])
        if i == 0:
            Rl, pl = _EYE, Mat([0, 0, 0])
        else:
            Rl, pl = placements[i - 1]
        RA = Mat(Rl.T * R)
        pA = Mat(Rl.T * (p - pl)) + RA * pre_offset
        link = Link(f"link{i + 1}", joint, axis, parent=i - 1, pre=(RA, pA), post=post)
        spec = inertia[i] if inertia is not None else None
        links.append(_inertia_entry(spec, i + 1, link, parameters, defaults))
    chain, _ = make_chain(links, gravity=gravity, defaults=defaults)
    return build(chain, friction=friction)
