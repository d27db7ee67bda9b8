"""What every robot builder checks in what it is given, before anything is derived.

A chain's geometry (axes, placements, DH and screw entries), its inertial parameters,
gravity and friction must be constants or parameters: real, finite numbers within the
range of a double, or expressions in symbols — never in a coordinate, a rate or time (a DH
length ``q1`` would make M = q1² instead of 1 + q1²). Rotations must be rotations, joint
axes unit vectors, inertias about the centre of mass positive semidefinite; names may not
collide (two joints of one name, a symbol named like lagdyn's internal ``_ldq0``). And the
size of what is built is bounded before the work starts (:data:`MAX_JOINTS`).

:func:`check_chain` applies the rules to any :class:`~lagdyn.recursive.Chain` (it runs when a
:class:`~lagdyn.robot.RobotSystem` is made); the builders apply the same rules to the
entries they read, so that their messages name the DH row, the screw or the URDF element.

Examples
--------
>>> import lagdyn as ld
>>> q1, = ld.coordinates("q1,")
>>> ld.robot.from_dh([(0, q1, 0)])
Traceback (most recent call last):
...
lagdyn.errors.LagdynError: DH row 1: a = q1(t) depends on the coordinate q1(t): ...
"""

from __future__ import annotations

import math
import os
import random
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import symengine as se
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.matrices.expressions import MatrixExpr

from .._validate import check_float_range
from ..errors import LagdynError
from ..symbols import reserved_message
from ..symbols import t as _time

__all__ = [
    "MAX_JOINTS",
    "ROTATION_TOL",
    "check_chain",
    "check_count",
    "check_rotation",
    "check_unit",
    "constant",
    "inertia_complaint",
]

#: The most joints a builder reads (DH rows, screws, or ``<joint>`` elements of a URDF,
#: fixed ones included). Real robot descriptions have up to about 130 (example-robot-data:
#: tiago_dual 129, PR2 81); building 1,000 moving joints takes about 7 s and their
#: recursive programs minutes, so larger inputs are refused before any work.
MAX_JOINTS = 1000

#: How far a rotation given in numbers may be from orthogonal (and its determinant from 1),
#: and a unit vector from unit length: the rounding of a matrix typed as floats.
ROTATION_TOL = 1e-9

_DOUBLE_MAX = 1.7976931348623157e308

#: What symengine raises for a sympy object it cannot take.
_SE_ERRORS = (
    RuntimeError,
    TypeError,
    ValueError,
    NotImplementedError,
    AttributeError,
    se.SympifyError,
)


def user_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside lagdyn, seen from the caller, so that a
    builder's warning points at the user's line (through the zoo, too)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(root):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def check_count(n: int, what: str) -> None:
    """Refuse more than :data:`MAX_JOINTS` joints, before anything is built.

    Examples
    --------
    >>> from lagdyn.robot._checks import check_count
    >>> check_count(2000, "the DH table")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: the DH table has 2000 joints, more than the 1000 ...
    """
    if n > MAX_JOINTS:
        raise LagdynError(
            f"{what} has {n} joints, more than the {MAX_JOINTS} a lagdyn robot may have "
            "(lagdyn.robot.MAX_JOINTS; real robots have up to about 130): split the model, "
            "or lock the joints that do not move"
        )


def _dependence(e: sp.Basic) -> str | None:
    """What of a system's motion ``e`` depends on (a coordinate, a rate, time), or None."""
    if not e.free_symbols and not e.atoms(AppliedUndef):
        return None
    derivs = e.atoms(sp.Derivative)
    if derivs:
        return f"the rate {sorted(map(str, derivs))[0]}"
    funcs = e.atoms(AppliedUndef)
    if funcs:
        return f"the coordinate {sorted(map(str, funcs))[0]}"
    if _time in e.free_symbols:
        return "time t"
    return None


def _short(e: Any) -> str:
    text = str(e)
    return text if len(text) <= 80 else text[:60] + f"… ({len(text)} characters)"


def _value(e: sp.Expr) -> tuple[float, float]:
    """(re, im) of a constant at 64 bits of precision: symengine (MPFR, whose exponent range
    holds values beyond a double's) is a hundred times faster than ``evalf`` on the large
    exact constants of merged URDF links; sympy for what symengine cannot take."""
    try:
        re, im = se.sympify(e).n(64, real=False).as_real_imag()
        return _float(re), _float(im)
    except (RuntimeError, TypeError, ValueError, AttributeError, NotImplementedError):
        v = e.evalf(30)
        if v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            return math.nan, 0.0
        re, im = v.as_real_imag()
        return _float(re), _float(im)


def _float(x: Any) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf
    except (TypeError, ValueError):
        return math.nan


def constant(value: Any, where: str) -> sp.Expr:
    """``value`` as a sympy expression if it is a constant or an expression in parameters.

    Refused, naming ``where``: an expression in a coordinate, a rate or time, or any
    applied function; NaN, infinities and complex values; numbers outside the range of a
    double (they would become ``inf`` or 0 in generated code).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.robot._checks import constant
    >>> constant(sp.Rational(1, 2), "DH row 1: a")
    1/2
    >>> constant(sp.I, "DH row 1: a")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: DH row 1: a = I is not a real number ...
    """
    if isinstance(value, sp.Rational):  # the common case: one comparison of bit lengths
        check_float_range(where, value)
        return value
    e = scalar(value, where)
    if not e.free_symbols and _constant_symengine(e, where):
        return e
    why = _dependence(e)
    if why is not None:
        raise LagdynError(
            f"{where} = {_short(e)} depends on {why}: a robot's geometry, inertia, gravity and "
            "friction must be constants or parameters (symbols), not coordinates, rates or "
            "time (the joints move the links; a DH or screw entry does not)"
        )
    _check_symbols(e, where)
    if e.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        raise LagdynError(f"{where} = {e} is not a finite number")
    if e.is_number:
        _check_value(e, *_value(e), where)
    elif e.is_extended_real is False or e.has(sp.I):
        raise LagdynError(f"{where} = {_short(e)} is not a real number")
    check_float_range(where, e)
    return e


def scalar(value: Any, where: str) -> sp.Expr:
    """``value`` as one sympy expression, or a refusal naming ``where``: a matrix, a list,
    a set, a relation, a string or anything else that is not one number or expression is
    refused, and so is an expression lagdyn cannot differentiate and print (an unevaluated
    integral or sum, a matrix element, an ``O(x)``: symengine does not take it).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.robot._checks import scalar
    >>> scalar(sp.eye(2), "DH row 1: a")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: DH row 1: a: not a number or expression but a 2 × 2 matrix: ...
    """
    shape = getattr(value, "shape", None)
    if getattr(value, "is_Matrix", False) or isinstance(value, (sp.MatrixBase, se.MatrixBase)):
        size = " × ".join(map(str, shape)) if shape else "?"
        raise LagdynError(
            f"{where}: not a number or expression but a {size} matrix: each entry is one "
            "number or expression in parameters"
        )
    try:
        e = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError, ValueError, AttributeError):
        raise LagdynError(f"{where}: not a number or expression: {_short(repr(value))}") from None
    if not isinstance(e, sp.Expr) or e.is_Matrix or e.atoms(MatrixExpr):
        raise LagdynError(f"{where}: not a number or expression: {_short(repr(value))}")
    try:
        se.sympify(e)
    except _SE_ERRORS:
        raise LagdynError(
            f"{where} = {_short(e)} is not an expression lagdyn can use (it holds "
            f"{type(e).__name__ if not e.args else _unusable(e)}): give a number or an "
            "expression of parameters in elementary functions"
        ) from None
    return e


def _unusable(e: sp.Basic) -> str:
    """The kind of the outermost subexpression of ``e`` that symengine does not take
    although it takes the expressions in it (an ``Integral``, not the sum holding it)."""
    for node in sp.preorder_traversal(e):
        try:
            se.sympify(node)
        except _SE_ERRORS:
            if isinstance(node, sp.Expr) and not any(
                _fails(a) for a in node.args if isinstance(a, sp.Expr)
            ):
                return type(node).__name__
    return type(e).__name__


def _fails(e: sp.Basic) -> bool:
    try:
        se.sympify(e)
    except _SE_ERRORS:
        return True
    return False


def _check_symbols(e: sp.Expr, where: str) -> None:
    """Refuse a symbol declared not real (``real=False``, ``imaginary=True``) or declared
    complex without being real (``complex=True``, ``algebraic=True``), or noncommutative: a
    length, an angle or an inertia is a real number. A plain ``sp.Symbol("a")`` (no
    assumption) is a real parameter, as in every builder."""
    for s in sorted(e.free_symbols, key=str):
        if s.is_commutative is False:
            raise LagdynError(
                f"{where} = {_short(e)}: the symbol {s} is noncommutative; a robot's geometry "
                "and inertia are real numbers"
            )
        if s.is_real is False or (s.is_real is None and s.is_complex):
            given = ", ".join(
                f"{k}={v}"
                for k, v in sorted((getattr(s, "_assumptions_orig", None) or {}).items())
                if k != "commutative"
            )
            raise LagdynError(
                f"{where} = {_short(e)}: the symbol {s} is declared "
                + ("not real" if s.is_real is False else "complex")
                + (f" ({given})" if given else "")
                + ", but a robot's geometry, inertia, gravity and friction are real "
                f"numbers: use sp.Symbol({s.name!r}, real=True) or ld.parameters"
            )


def _check_value(e: sp.Expr, re: float, im: float, where: str) -> None:
    if math.isnan(re) or math.isnan(im):
        raise LagdynError(f"{where} = {_short(e)} is not a finite number")
    if im != 0:
        raise LagdynError(
            f"{where} = {_short(e)} is not a real number (its imaginary part is {im:.6g})"
        )
    if abs(re) > _DOUBLE_MAX:
        raise LagdynError(
            f"{where} = {_short(e)} overflows a double (magnitude above 1.8e308): "
            "generated numerics cannot represent it; rescale the units"
        )


def _constant_symengine(e: sp.Expr, where: str) -> bool:
    """Check a constant (no free symbol) in symengine, where walking the large exact
    constants of merged URDF links is cheap; False when symengine cannot take it."""
    try:
        s = se.sympify(e)
    except (RuntimeError, TypeError, ValueError, NotImplementedError, AttributeError):
        return False
    if s.atoms(se.FunctionSymbol, se.Derivative):
        return False  # sympy names the function
    if s.has(se.nan) or s.has(se.zoo) or s.has(se.oo) or s.has(-se.oo):
        raise LagdynError(f"{where} = {_short(e)} is not a finite number")
    numbers = s.atoms(se.Rational, se.Integer, se.RealDouble, se.RealMPFR)
    check_float_range(where, sp.Tuple(*(sp.sympify(x) for x in numbers)))
    try:
        re, im = s.n(64, real=False).as_real_imag()
    except (RuntimeError, TypeError, ValueError, NotImplementedError, AttributeError):
        return False
    _check_value(e, _float(re), _float(im), where)
    return True


def _sample(symbols: Iterable[sp.Symbol], rng: random.Random) -> dict[sp.Symbol, float]:
    """Random values of ``symbols`` that keep their sign assumptions (in [0.5, 1.5])."""
    out = {}
    for s in symbols:
        u = rng.uniform(0.5, 1.5)
        out[s] = -u if (s.is_negative or s.is_nonpositive) else u
    return out


def _numeric(m: sp.MatrixBase, values: dict[sp.Symbol, float]) -> np.ndarray:
    entries = [complex(sp.sympify(x).evalf(20, subs=values)) for x in m]
    return np.array(entries).real.reshape(m.shape)


def _points(m: sp.MatrixBase) -> list[np.ndarray]:
    """``m`` in floats: once if it is numeric, at two random parameter values otherwise."""
    symbols = sorted(m.free_symbols, key=str)
    if not symbols:
        return [np.array([float(x) for x in m]).reshape(m.shape)]
    rng = random.Random(1)
    return [_numeric(m, _sample(symbols, rng)) for _ in range(2)]


def check_rotation(R: Any, where: str) -> sp.ImmutableMatrix:
    """Refuse a 3 × 3 matrix that is not a rotation: RᵀR = I and det R = 1.

    A matrix of numbers may miss by :data:`ROTATION_TOL` (floats); a matrix in parameters
    is refuted at random values of them (a sin/cos pair of one angle passes).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.robot._checks import check_rotation
    >>> check_rotation(2 * sp.eye(3), "home 1")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: home 1: the rotation is not orthogonal ...
    """
    R = sp.ImmutableMatrix(R)
    if R.shape != (3, 3):
        raise LagdynError(f"{where}: a rotation must be 3 × 3, got shape {R.shape}")
    if R == sp.eye(3):
        return R
    for A in _points(R):
        err = float(np.abs(A.T @ A - np.eye(3)).max())
        if not err <= ROTATION_TOL:  # NaN fails too
            raise LagdynError(
                f"{where}: the rotation is not orthogonal (RᵀR − I has an entry of "
                f"{err:.3g}; allowed {ROTATION_TOL:g}), so it is not a rotation: {R.tolist()}"
            )
        det = float(np.linalg.det(A))
        if abs(det - 1) > ROTATION_TOL:
            raise LagdynError(
                f"{where}: det R = {det:.6g}, not 1: a reflection is not a rotation ({R.tolist()})"
            )
    return R


def check_unit(v: Sequence[Any], where: str) -> float:
    """The norm of ``v`` if it is 1 (within :data:`ROTATION_TOL`), else a refusal giving it.

    Examples
    --------
    >>> from lagdyn.robot._checks import check_unit
    >>> check_unit((0, 0, 2), "screw 1: ω")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: screw 1: ω = (0, 0, 2) has norm 2, not 1: ...
    """
    m = sp.ImmutableMatrix(list(v))
    for A in _points(m):
        norm = float(np.linalg.norm(A))
        if not abs(norm - 1) <= ROTATION_TOL:
            shown = "(" + ", ".join(str(x) for x in m) + ")"
            raise LagdynError(
                f"{where} = {shown} has norm {norm:.6g}, not 1: a screw's axis must be a unit "
                "vector (normalise it, and scale the joint variable instead if that was meant)"
            )
    return 1.0


def inertia_complaint(where: str, Ic: Any) -> str | None:
    """Refuse an inertia about the COM that is not positive semidefinite; return a complaint
    for principal moments that violate the triangle inequality (A + B ≥ C), else None.

    Numbers are decided on the eigenvalues, beyond the rounding of typed decimals (1e-3 of
    the trace plus 1e-12 kg·m²). An inertia in parameters is refused where the sign
    assumptions of its symbols decide a necessary condition: a diagonal entry (a moment
    about an axis) or a sum A + B − C of them that is negative.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.robot._checks import inertia_complaint
    >>> inertia_complaint("link 1", sp.diag(1, 1, 5))
    'link 1 (principal moments 1, 1, 5)'
    >>> inertia_complaint("link 1", sp.diag(-1, 1, 1))
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: link 1: the inertia about the centre of mass is not positive ...
    """
    Ic = sp.ImmutableMatrix(Ic)
    if Ic.free_symbols:
        d = [Ic[0, 0], Ic[1, 1], Ic[2, 2]]
        bad = [str(x) for x in d if x.is_negative]
        bad += [
            f"{d[i]} + {d[j]} - {d[k]}"
            for i, j, k in ((0, 1, 2), (1, 2, 0), (2, 0, 1))
            if (d[i] + d[j] - d[k]).is_negative
        ]
        if bad:
            raise LagdynError(
                f"{where}: the inertia about the centre of mass is not positive semidefinite "
                f"for any value of its parameters ({', '.join(bad)} < 0): no body has it"
            )
        return None
    values = np.linalg.eigvalsh(np.array([[float(x) for x in row] for row in Ic.tolist()]))
    tol = 1e-3 * float(abs(values).sum()) + 1e-12
    moments = ", ".join(f"{v:.6g}" for v in values)
    if values[0] < -tol:
        raise LagdynError(
            f"{where}: the inertia about the centre of mass is not positive semidefinite "
            f"(principal moments {moments}), so M need not be positive definite: correct "
            "it, or pass check_inertia=False to accept it"
        )
    if values[0] + values[1] < values[2] - tol:
        return f"{where} (principal moments {moments})"
    return None


_FIELDS = ("mass", "first_moment", "inertia", "armature", "viscous", "coulomb")


def check_chain(chain: Any) -> None:
    """Refuse a chain that no builder would make: every problem named, raised once.

    Joint names are unique; no symbol, coordinate or default is named like lagdyn's
    internal symbols (``_ld…``, ``_lagdyn_…``); every entry of every link (axis,
    placements, inertial parameters, friction) and of gravity is a :func:`constant`;
    placements hold rotations (:func:`check_rotation`); defaults are finite real numbers.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot._checks import check_chain
    >>> check_chain(ld.zoo.get("planar_3r").chain)
    """
    problems: list[str] = []
    seen: dict[str, int] = {}
    for name in chain.joint_names:
        seen[name] = seen.get(name, 0) + 1
    twice = sorted(n for n, k in seen.items() if k > 1)
    if twice:
        problems.append(f"duplicate joint names {twice}")
    names = {str(s) for s in chain.parameters}
    names |= {str(getattr(x, "func", x)) for x in chain.q}
    names |= {str(getattr(k, "name", k)) for k in chain.defaults}
    reserved = reserved_message(names)
    if reserved:
        problems.append(reserved)

    def entries(where: str, value: Any) -> None:
        items = list(value) if isinstance(value, sp.MatrixBase) else [value]
        for x in items:
            try:
                constant(x, where)
            except LagdynError as exc:
                problems.append(str(exc))
                return

    entries("gravity", chain.gravity)
    for link in chain.links:
        label = f"link {link.name!r}"
        entries(f"{label}: axis", link.axis)
        for part in ("pre", "post"):
            R, p = getattr(link, part)
            entries(f"{label}: {part} rotation", R)
            entries(f"{label}: {part} offset", p)
            if not problems:
                try:
                    check_rotation(R, f"{label}: {part} rotation")
                except LagdynError as exc:
                    problems.append(str(exc))
        for field in _FIELDS:
            entries(f"{label}: {field.replace('_', ' ')}", getattr(link, field))
    for key, value in chain.defaults.items():
        try:
            ok = math.isfinite(float(value))
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            problems.append(f"the default of {key} is {value!r}, not a finite real number")
    if problems:
        raise LagdynError("; ".join(problems))
