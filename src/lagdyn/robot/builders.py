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
import warnings
from collections.abc import Iterable, Mapping, Sequence, Sized
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
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
from ._checks import (
    MAX_JOINTS,
    check_count,
    check_rotation,
    check_unit,
    constant,
    inertia_complaint,
    user_stacklevel,
)
from .system import RobotSystem, build

#: The assumption every mass keeps (the rule of :func:`lagdyn.codegen.binding.check_value`).
_MASS = sp.Symbol("mass", nonnegative=True)

__all__ = ["exact", "exact_angle", "from_dh", "from_screws", "make_chain"]

Mat = sp.ImmutableMatrix
_EYE = sp.ImmutableMatrix.eye(3)
_Z = (0, 0, 1)


#: The longest text read as a number (a double needs 17 significant digits; a longer string
#: is not a number a file means, and an exponent is never expanded from it).
MAX_NUMBER_TEXT = 400


def _text_number(x: str) -> sp.Rational:
    """A decimal or ``p/q`` string as the exact rational it spells; the work is bounded: the
    string is read as a double first, so ``"1e1000000000"`` is refused at once (it overflows
    a double) instead of being expanded to a billion digits."""
    text = x.strip()
    shown = repr(x) if len(x) <= 60 else repr(x[:40]) + f"… ({len(x)} characters)"
    if not text or not text.isascii() or len(text) > MAX_NUMBER_TEXT:
        raise LagdynError(
            f"not a number: {shown}"
            + (
                f" (longer than {MAX_NUMBER_TEXT} characters)"
                if len(text) > MAX_NUMBER_TEXT
                else ""
            )
        )
    try:
        f: float | None = float(text)
    except ValueError:
        f = None
    if f is None:  # p/q, which a float cannot read
        try:
            fr = Fraction(text)
        except ZeroDivisionError:
            raise LagdynError(f"not a number: {shown} divides by zero") from None
        except ValueError:
            raise LagdynError(f"not a number: {shown}") from None
        try:
            float(fr)
        except OverflowError:
            raise LagdynError(
                f"{shown} overflows a double (not a finite number as a double: its magnitude "
                "exceeds 1.8e308)"
            ) from None
        return sp.Rational(fr.numerator, fr.denominator)
    if math.isnan(f):
        raise LagdynError(f"not a finite number: {shown}")
    if math.isinf(f):
        if text.lstrip("+-").lower() in ("inf", "infinity"):
            raise LagdynError(f"not a finite number: {shown}")
        raise LagdynError(
            f"{shown} overflows a double (not a finite number as a double: its magnitude "
            "exceeds 1.8e308)"
        )
    d = Decimal(text)
    if f == 0 and d != 0:
        raise LagdynError(
            f"{shown} underflows a double (nonzero, but smaller than the smallest double, "
            "5e-324): rescale the units"
        )
    num, den = d.as_integer_ratio()
    return sp.Rational(num, den)


def exact(x: Any) -> sp.Expr:
    """A number as an exact sympy number (a float by its decimal digits); expressions kept.

    Python floats, numpy scalars (``np.float64``, ``np.float32``, ``np.int64``) and 0-d
    arrays are read by their shortest decimal representation, so ``0.425`` and
    ``np.float64(0.425)`` are both 17/40; strings are read as decimals or ``p/q``. NaN,
    infinities, complex numbers and numbers that overflow a double are refused; a string is
    read as a double first, so a huge exponent (``"1e1000000000"``) is refused at once, never
    expanded.

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
    >>> exact("1e1000000000")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: '1e1000000000' overflows a double (not a finite number as a ...
    """
    if isinstance(x, np.ndarray):
        if x.shape != ():
            raise ShapeError(f"expected a number, got an array of shape {x.shape}")
        x = x[()]
    if isinstance(x, np.generic):
        if isinstance(x, np.floating):
            if not np.isfinite(x):
                raise LagdynError(f"not a finite number: {x}")
            return _text_number(str(x))  # numpy 2's repr is 'np.float64(…)'; str is the digits
        if isinstance(x, (np.integer, np.bool_)):
            value = sp.Integer(int(x))
            _check_double(value, x)
            return value
        raise LagdynError(f"not a real number: {x!r}")
    if isinstance(x, (str, Decimal)):
        return _text_number(str(x))
    if isinstance(x, float):
        if not math.isfinite(x):
            raise LagdynError(f"not a finite number: {x!r}")
        return sp.Rational(float.__repr__(x))
    if isinstance(x, complex):
        raise LagdynError(f"not a real number: {x!r}")
    if isinstance(x, bool):
        raise LagdynError(f"not a number: {x!r}")
    try:
        value = sp.sympify(x, strict=True)
    except (sp.SympifyError, TypeError) as exc:
        raise LagdynError(f"not a number or expression: {x!r}") from exc
    if getattr(value, "is_Matrix", False):
        raise LagdynError(f"not a number or expression but a {value.rows} × {value.cols} matrix")
    if not isinstance(value, sp.Expr):
        raise LagdynError(f"not a number or expression: {x!r}")
    if value.is_number:
        if value.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or value.is_finite is False:
            raise LagdynError(f"not a finite number: {x!r}")
        if value.is_extended_real is False:
            raise LagdynError(f"not a real number: {x!r}")
        _check_double(value, x)
    return value


def _check_double(value: sp.Expr, x: Any) -> None:
    """Refuse a number whose magnitude overflows a double (evaluated, never expanded)."""
    if isinstance(value, sp.Rational):
        big = value != 0 and int(abs(value.p)).bit_length() - int(value.q).bit_length() > 1024
    else:
        v = value.evalf(20)
        big = bool(v.is_Number and abs(v) > sp.Float("1.7976931348623157e308"))
    if big:
        shown = str(x) if len(str(x)) <= 40 else str(x)[:30] + "…"
        raise LagdynError(
            f"{shown} overflows a double (not a finite number as a double: its magnitude "
            "exceeds 1.8e308)"
        )


def _entry(x: Any, where: str) -> sp.Expr:
    """One entry of a DH row, a screw, a placement or an inertia: :func:`exact`, then
    :func:`~lagdyn.robot._checks.constant` (no coordinate, rate or time), named ``where``."""
    try:
        value = exact(x)
    except LagdynError as exc:
        raise LagdynError(f"{where}: {exc}") from None
    return constant(value, where)


#: Angles beyond this many radians are never snapped: a double's spacing there approaches
#: the snapping tolerance, and 1e300 rad would "snap" to a multiple of π/12 it is not.
SNAP_LIMIT = 1e6


def exact_angle(x: Any, tol: float = 1e-9) -> sp.Expr:
    """An angle, snapped to a multiple of π/12 when within ``tol`` (1.57079632679 → π/2).

    Only angles below :data:`SNAP_LIMIT` (10⁶ rad) in magnitude are snapped; larger ones
    are kept as read.

    Examples
    --------
    >>> from lagdyn.robot import exact_angle
    >>> exact_angle(1.57079632679), exact_angle("-3.14159265359"), exact_angle(0.5)
    (pi/2, -pi, 1/2)
    >>> exact_angle(1e300) == 10**300
    True
    """
    e = exact(x)
    if e.is_number and not e.free_symbols:
        v = float(e)
        if abs(v) < SNAP_LIMIT:
            k = round(v / (math.pi / 12))
            if abs(v - k * math.pi / 12) < tol:
                return sp.pi * k / 12
    return e


def _symbol(name: str, value: float, defaults: dict[sp.Symbol, float]) -> sp.Symbol:
    s = sp.Symbol(name, positive=True)
    defaults.setdefault(s, value)
    return s


def _vector(value: Any, n: int, where: str) -> sp.ImmutableMatrix:
    """``n`` entries read by :func:`_entry` (a sequence, a numpy array or a sympy matrix)."""
    value = _entries(value)
    if isinstance(value, sp.MatrixBase):
        value = list(value)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ShapeError(f"{where} must be {n} numbers, got {value!r}")
    if len(value) != n:
        raise ShapeError(f"{where} must be {n} numbers, got {len(value)}")
    return Mat([_entry(x, f"{where}[{i}]") for i, x in enumerate(value)])


def _matrix3(value: Any, where: str) -> sp.ImmutableMatrix:
    """A 3 × 3 matrix (rows, a numpy array or a sympy matrix), every entry by :func:`_entry`."""
    value = _entries(value)
    rows = value.tolist() if isinstance(value, sp.MatrixBase) else value
    if (
        isinstance(rows, (str, bytes))
        or not isinstance(rows, Sequence)
        or len(rows) != 3
        or any(
            isinstance(r, (str, bytes)) or not isinstance(r, Sequence) or len(r) != 3 for r in rows
        )
    ):
        shape = value.shape if isinstance(value, sp.MatrixBase) else None
        raise ShapeError(f"{where} must be 3 × 3" + (f", got shape {shape}" if shape else ""))
    return Mat(
        [[_entry(x, f"{where}[{i}, {j}]") for j, x in enumerate(r)] for i, r in enumerate(rows)]
    )


def _nonnegative(value: sp.Expr, where: str) -> sp.Expr:
    """Refuse a coefficient that is negative (armature, friction): M or dissipation would
    change sign."""
    if value.is_negative:
        raise LagdynError(
            f"{where} = {value} is negative: armature adds to M and friction dissipates, "
            "so both are nonnegative"
        )
    return value


def _inertia_entry(
    spec: Mapping[str, Any] | None,
    index: int,
    link: Link,
    parameters: str,
    defaults: dict[sp.Symbol, float],
    odd: list[str] | None,
) -> Link:
    """Fill the inertial parameters of ``link`` from ``spec`` (about the COM) or symbols.

    ``odd`` collects complaints about inertias that violate the triangle inequality
    (``None``: ``check_inertia=False``, no physical check)."""
    numeric = None
    where = f"link {index}"
    if spec is not None:
        if not isinstance(spec, Mapping):
            raise LagdynError(f"{where}: the inertia must be a mapping (m, com, I, ...) or None")
        unknown = set(spec) - {"m", "com", "I", "armature", "viscous", "coulomb"}
        if unknown:
            raise LagdynError(f"{where}: unknown inertia keys {sorted(map(str, unknown))}")
        m = _entry(spec.get("m", 0), f"{where}: m")
        check_value(_MASS, m, label=f"{where}: mass")
        c = _vector(spec.get("com", (0, 0, 0)), 3, f"{where}: com")
        Ic = _entries(spec.get("I", (0, 0, 0, 0, 0, 0)))
        if isinstance(Ic, sp.MatrixBase):
            Ic = Ic.tolist() if Ic.shape == (3, 3) else list(Ic)
        elif isinstance(Ic, (str, bytes)) or not isinstance(Ic, Sequence):
            raise ShapeError(f"{where}: I must be 3 × 3, 6 or 3 numbers")
        if len(Ic) == 3 and all(isinstance(r, (list, tuple)) for r in Ic):
            Im = _matrix3(Ic, f"{where}: I")
            if Im != Im.T:
                raise LagdynError(f"{where}: the inertia I is not symmetric")
        elif len(Ic) == 6:  # Ixx Iyy Izz Ixy Iyz Ixz (Corke's order)
            keys = ("Ixx", "Iyy", "Izz", "Ixy", "Iyz", "Ixz")
            xx, yy, zz, xy, yz, xz = (_entry(v, f"{where}: {k}") for k, v in zip(keys, Ic))
            Im = Mat([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        elif len(Ic) == 3:
            Im = Mat(
                sp.diag(*[_entry(v, f"{where}: {k}") for k, v in zip(["Ixx", "Iyy", "Izz"], Ic)])
            )
        else:
            raise ShapeError(f"{where}: I must be 3 × 3, 6 or 3 numbers")
        if odd is not None:
            complaint = inertia_complaint(where, Im)
            if complaint:
                odd.append(complaint)
        numeric = (m, Mat(m * c), inertia_about_origin(m, c, Im))
        extras = {
            k: _nonnegative(_entry(spec[k], f"{where}: {k}"), f"{where}: {k}")
            for k in ("armature", "viscous", "coulomb")
            if k in spec
        }
        link = replace(link, **extras)
    if parameters == "numeric":
        if numeric is None:
            raise LagdynError(f"parameters='numeric' needs the inertia of link {index}")
        return replace(link, mass=numeric[0], first_moment=numeric[1], inertia=numeric[2])
    sym = symbolic_inertia(link, index)
    if numeric is not None:
        for value, s in zip(
            (*_flat_inertia(numeric[2]), *numeric[1], numeric[0]),
            standard_parameters(index).values(),
        ):
            defaults[s] = check_value(s, value, label=f"link {index}: {s.name}")
    return sym


def _warn_inertia(odd: list[str] | None) -> None:
    if odd:
        warnings.warn(
            f"the inertia of {', '.join(odd)} violates the triangle inequality A + B ≥ C of "
            "principal moments, which no mass distribution gives (M stays positive definite; "
            "pass check_inertia=False to accept it silently)",
            UserWarning,
            stacklevel=user_stacklevel(),
        )


def _entries(value: Any) -> Any:
    """Nested lists of a numpy array (its entries as numpy scalars, read exactly by
    :func:`exact`, instead of the sympy Floats ``Matrix(array)`` would make)."""
    if isinstance(value, np.ndarray):
        return [_entries(v) for v in value] if value.ndim else value[()]
    return value


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

    Raises
    ------
    LagdynError
        More than :data:`~lagdyn.robot.MAX_JOINTS` links, a gravity entry that is not a
        constant or a parameter.

    Examples
    --------
    >>> from lagdyn.robot import Link, make_chain
    >>> chain, q = make_chain([Link("a", "revolute", (0, 0, 1), mass=1)], gravity=None, defaults={})
    >>> chain.gravity.T
    Matrix([[0, 0, -g]])
    """
    n = len(links)
    check_count(n, "the chain")
    q = coordinates(" ".join(f"q{i + 1}" for i in range(n)) + ("," if n == 1 else ""))
    if gravity is None:
        g = _symbol("g", 9.81, defaults)
        gvec: Any = (0, 0, -g)
    else:
        gvec = list(_vector(gravity, 3, "gravity"))
    chain = Chain(tuple(links), tuple(q), gvec, dict(defaults), tuple(names or ()))
    return chain, q


def _rows(table: Any) -> list[dict[str, Any]]:
    if isinstance(table, (str, bytes, Mapping)) or not isinstance(table, Iterable):
        raise LagdynError(f"the DH table must be a sequence of rows, got {type(table).__name__}")
    rows: list[dict[str, Any]] = []
    for k, row in enumerate(table):
        if k >= MAX_JOINTS:
            check_count(len(table) if isinstance(table, Sized) else k + 1, "the DH table")
        if isinstance(row, Mapping):
            unknown = set(row) - {"d", "a", "alpha", "offset", "theta", "joint"}
            if unknown:
                raise LagdynError(f"DH row {k + 1}: unknown keys {sorted(map(str, unknown))}")
            rows.append(dict(row))
            continue
        row = _entries(row)
        if isinstance(row, (str, bytes)) or not isinstance(row, Iterable):
            raise ShapeError(
                f"DH row {k + 1}: give (d, a, alpha) or (d, a, alpha, offset), got {row!r}"
            )
        vals = list(row)
        if len(vals) not in (3, 4):
            raise ShapeError(
                f"DH row {k + 1}: give (d, a, alpha) or (d, a, alpha, offset), got "
                f"{len(vals)} entries"
            )
        rows.append(dict(zip(("d", "a", "alpha", "offset"), vals)))
    if not rows:
        raise LagdynError("the DH table is empty")
    return rows


def _inertia_list(inertia: Any, n: int, what: str) -> list[Any]:
    if inertia is None:
        return [None] * n
    inertia = _entries(inertia)
    if isinstance(inertia, (str, bytes, Mapping)) or not isinstance(inertia, Sequence):
        raise LagdynError(f"inertia must be a sequence of {n} mappings (or None per link)")
    if len(inertia) != n:
        raise ShapeError(f"{n} {what} but {len(inertia)} inertia entries")
    return list(inertia)


def from_dh(
    table: Sequence[Any],
    convention: str = "standard",
    *,
    joints: str | None = None,
    inertia: Sequence[Mapping[str, Any] | None] | None = None,
    parameters: str = "symbolic",
    gravity: Sequence[Any] | None = None,
    friction: bool = False,
    check_inertia: bool = True,
) -> RobotSystem:
    r"""A serial chain from a Denavit–Hartenberg table.

    Parameters
    ----------
    table : sequence of rows
        Per joint ``(d, a, alpha)``, ``(d, a, alpha, offset)`` or a mapping with keys
        ``d, a, alpha, offset, theta, joint``. Revolute: θ = q + offset; prismatic
        (``joint="P"``): d = q + offset, θ = ``theta``. Numbers may be floats (taken by
        their decimal digits; angles within 1e-9 of a multiple of π/12 snap to it) or
        sympy expressions in parameters — never in a coordinate or time. At most
        :data:`~lagdyn.robot.MAX_JOINTS` rows.
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
        ``viscous``, ``coulomb`` (nonnegative).
    parameters : {"symbolic", "numeric"}
        Ten symbols per link (the ``inertia`` numbers go to ``defaults``) or the numbers.
        The numbers are checked the same way in both modes.
    gravity : 3-vector, optional
        In the base frame; default ``(0, 0, -g)``.
    friction : bool
        Add viscous/Coulomb friction forces (needs coefficients in ``inertia``).
    check_inertia : bool
        Refuse an inertia about the COM that is not positive semidefinite and warn about
        principal moments with A + B < C (no body has them; Corke's PUMA 560 data do), each
        beyond 1e-3 of the trace plus 1e-12 kg·m², as :func:`~lagdyn.robot.from_urdf` does.
        ``False`` accepts both silently.

    Returns
    -------
    RobotSystem
        With ``chain`` attached; coordinates ``q1 … qn``.

    Raises
    ------
    LagdynError
        Unknown convention, keys or joint letters, missing numeric inertia, an entry that
        is not a finite real constant or parameter (NaN, ``1j``, ``"1/0"``, a coordinate,
        time, a number that overflows a double), a negative mass, armature or friction, an
        inertia that is not positive semidefinite, more than ``MAX_JOINTS`` rows.
    ShapeError
        Rows that are not 3 or 4 entries, inertia entries of the wrong size or number.

    Warns
    -----
    UserWarning
        An inertia whose principal moments violate the triangle inequality.

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
    if parameters not in ("symbolic", "numeric"):
        raise LagdynError(f"parameters must be 'symbolic' or 'numeric', got {parameters!r}")
    rows = _rows(table)
    n = len(rows)
    if joints is not None and not isinstance(joints, (str, list, tuple)):
        raise LagdynError(f"joints must be a string of R and P letters, got {joints!r}")
    kinds = list(joints) if joints is not None else [str(r.get("joint", "R")) for r in rows]
    if len(kinds) != n or any(k not in ("R", "P") for k in kinds):
        raise LagdynError(f"joints must be {n} letters R or P, got {kinds}")
    specs = _inertia_list(inertia, n, "DH rows")
    defaults: dict[sp.Symbol, float] = {}
    odd: list[str] | None = [] if check_inertia else None
    links = []
    for i, (row, kind) in enumerate(zip(rows, kinds)):
        label = f"DH row {i + 1}"
        d, a = _entry(row.get("d", 0), f"{label}: d"), _entry(row.get("a", 0), f"{label}: a")
        alpha = exact_angle(_entry(row.get("alpha", 0), f"{label}: alpha"))
        offset = _entry(row.get("offset", 0), f"{label}: offset")
        offset = exact_angle(offset) if kind == "R" else offset
        theta = exact_angle(_entry(row.get("theta", 0), f"{label}: theta"))
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
        links.append(_inertia_entry(specs[i], i + 1, link, parameters, defaults, odd))
    _warn_inertia(odd)
    chain, _ = make_chain(links, gravity=gravity, defaults=defaults)
    return build(chain, friction=friction)


def _placement(Mi: Any, k: int) -> tuple[sp.ImmutableMatrix, sp.ImmutableMatrix]:
    """Home placement ``k`` (1-based): a 4 × 4 homogeneous matrix or an ``(R, p)`` pair."""
    where = f"home placement {k}"
    Mi = _entries(Mi)
    if isinstance(Mi, (tuple, list)) and len(Mi) == 2:
        R = _matrix3(Mi[0], f"{where}: R")
        p = _vector(Mi[1], 3, f"{where}: p")
    else:
        rows = Mi.tolist() if isinstance(Mi, sp.MatrixBase) else Mi
        if (
            isinstance(rows, (str, bytes))
            or not isinstance(rows, Sequence)
            or len(rows) != 4
            or any(
                isinstance(r, (str, bytes)) or not isinstance(r, Sequence) or len(r) != 4
                for r in rows
            )
        ):
            raise ShapeError(f"{where} must be 4 × 4 or (R, p)")
        T = Mat(
            [[_entry(x, f"{where}[{i}, {j}]") for j, x in enumerate(r)] for i, r in enumerate(rows)]
        )
        if list(T[3, :]) != [0, 0, 0, 1]:
            raise LagdynError(
                f"{where}: the last row of a homogeneous transform is (0, 0, 0, 1), got "
                f"{tuple(T[3, :])}"
            )
        R, p = Mat(T[:3, :3]), Mat(T[:3, 3])
    return check_rotation(R, f"{where}: R"), p


def from_screws(
    screws: Sequence[Sequence[Any]],
    home: Sequence[Any],
    *,
    inertia: Sequence[Mapping[str, Any] | None] | None = None,
    parameters: str = "symbolic",
    gravity: Sequence[Any] | None = None,
    friction: bool = False,
    check_inertia: bool = True,
) -> RobotSystem:
    r"""A serial chain from space-frame screw axes (product of exponentials).

    Link i's frame at q is :math:`e^{[S_1]q_1}\cdots e^{[S_i]q_i} M_i` (Lynch & Park).

    Parameters
    ----------
    screws : sequence of 6-vectors
        Space-frame screws :math:`S_i = (\omega_i, v_i)`: a revolute joint has unit ω
        and :math:`v = -\omega\times r` for a point r on its axis; a prismatic joint ω = 0
        and unit v. Units are checked (within 1e-9), not normalised.
    home : sequence of 4 × 4 matrices or (R, p) pairs
        :math:`M_i`, the world placement of link frame i at q = 0 (inertia is expressed in
        it); R must be a rotation (RᵀR = I and det R = 1, within 1e-9 for numbers).
    inertia, parameters, gravity, friction, check_inertia
        As in :func:`from_dh`.

    Raises
    ------
    ShapeError
        Screws or home placements of the wrong size or number.
    LagdynError
        A screw axis that is not a unit vector (its norm is given), a nonzero pitch, a
        home rotation that is not a rotation, an entry that is not a finite real constant
        or parameter, and the inertia problems of :func:`from_dh`.

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
    if parameters not in ("symbolic", "numeric"):
        raise LagdynError(f"parameters must be 'symbolic' or 'numeric', got {parameters!r}")
    screws, home = _entries(screws), _entries(home)
    for value, what in ((screws, "screws"), (home, "home")):
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
            raise LagdynError(f"{what} must be a sequence, got {type(value).__name__}")
    n = len(screws)
    check_count(n, "the screw list")
    if n == 0:
        raise LagdynError("no screws: a chain needs at least one joint")
    if len(home) != n:
        raise ShapeError(f"{n} screws but {len(home)} home placements")
    specs = _inertia_list(inertia, n, "screws")
    defaults: dict[sp.Symbol, float] = {}
    odd: list[str] | None = [] if check_inertia else None
    placements = [_placement(Mi, k + 1) for k, Mi in enumerate(home)]
    links = []
    for i, S in enumerate(screws):
        S = list(_vector(S, 6, f"screw {i + 1}"))
        w, v = Mat(S[:3]), Mat(S[3:])
        R, p = placements[i]
        # body screw in frame i: Ad_{M_i^{-1}} S
        wb = Mat(R.T * w)
        vb = Mat(R.T * (v + w.cross(p)))
        if any(x != 0 for x in w):
            check_unit(w, f"screw {i + 1}: ω")
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
            check_unit(v, f"screw {i + 1}: v (ω = 0: a prismatic joint's direction)")
            joint, axis, post, pre_offset = "prismatic", vb, (_EYE, (0, 0, 0)), Mat([0, 0, 0])
        if i == 0:
            Rl, pl = _EYE, Mat([0, 0, 0])
        else:
            Rl, pl = placements[i - 1]
        RA = Mat(Rl.T * R)
        pA = Mat(Rl.T * (p - pl)) + RA * pre_offset
        link = Link(f"link{i + 1}", joint, axis, parent=i - 1, pre=(RA, pA), post=post)
        links.append(_inertia_entry(specs[i], i + 1, link, parameters, defaults, odd))
    _warn_inertia(odd)
    chain, _ = make_chain(links, gravity=gravity, defaults=defaults)
    return build(chain, friction=friction)
