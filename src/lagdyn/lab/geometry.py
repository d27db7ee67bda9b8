"""Planar geometry of a model for the lab: particle positions, links, constraints, conventions.

The one place that knows how a model is drawn: :func:`model_geometry` reads a
``geometry`` carried by the system when there is one, takes user ``points``, or
recognises the planar zoo models by their coordinates and parameters (the
conventions of :func:`lagdyn.plot.positions_for`, written symbolically here because
the page needs the positions' Jacobian).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..errors import LagdynError
from ..structure import is_zero

__all__ = ["Convention", "Geometry", "default_conventions", "model_geometry"]


@dataclass(frozen=True)
class Geometry:
    """Planar particle positions of a model and the rigid links between them.

    Attributes
    ----------
    points : tuple of (sympy.Expr, sympy.Expr)
        Positions in the system's coordinates and parameters; the last is the "end"
        point, where the lab's end force acts.
    links : tuple of (int, int)
        Drawn segments between point indices; ``-1`` is the fixed pivot at the origin.
    masses : tuple of sympy.Expr or None
        Point masses (for the direct point kinetic energy), None for rigid bodies.
    name : str
        What the geometry was recognised as (a zoo name, ``"points"`` or ``"model"``).

    Examples
    --------
    >>> import lagdyn as ld
    >>> geo = model_geometry(ld.zoo.double_pendulum())
    >>> geo.name, geo.links
    ('double_pendulum', ((-1, 0), (0, 1)))
    """

    points: tuple[tuple[sp.Expr, sp.Expr], ...]
    links: tuple[tuple[int, int], ...]
    masses: tuple[sp.Expr, ...] | None = None
    name: str = "model"

    def ambient(self) -> tuple[sp.Symbol, ...]:
        """Symbols of the ambient coordinates ``z = (x1, y1, x2, y2, ...)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> model_geometry(ld.zoo.double_pendulum()).ambient()
        (x1, y1, x2, y2)
        """
        out: list[sp.Symbol] = []
        for k in range(len(self.points)):
            out += [sp.Symbol(f"x{k + 1}", real=True), sp.Symbol(f"y{k + 1}", real=True)]
        return tuple(out)

    def constraints(self, q: Sequence[sp.Expr]) -> tuple[sp.Expr, ...]:
        """Constraints h(z) = 0 that the configuration map satisfies identically.

        One ``|z_i − z_j|² − d²`` per link whose length d does not depend on q (the
        fixed pivot is the origin), and one ``z_k − c`` per point component that is
        constant (a cart on its rail). Found by exact proofs, so a model where a link
        stretches (the elastic pendulum) gets no constraint for it.

        Examples
        --------
        >>> import lagdyn as ld
        >>> model_geometry(ld.zoo.cart_pole()).constraints(ld.zoo.cart_pole().q)
        (y1, -4*l**2 + (-x1 + x2)**2 + (-y1 + y2)**2)
        """
        z = self.ambient()
        pts = [sp.Matrix(p) for p in self.points]
        out: list[sp.Expr] = []
        for k, p in enumerate(pts):
            for c in range(2):
                if all(is_zero(sp.diff(p[c], x)) for x in q):
                    out.append(z[2 * k + c] - sp.simplify(p[c]))

        def point(k: int) -> sp.Matrix:
            return pts[k] if k >= 0 else sp.zeros(2, 1)

        def amb(k: int) -> sp.Matrix:
            return sp.Matrix(z[2 * k : 2 * k + 2]) if k >= 0 else sp.zeros(2, 1)

        for i, j in self.links:
            d2 = sp.expand((point(j) - point(i)).dot(point(j) - point(i)))
            if all(is_zero(sp.diff(d2, x)) for x in q):
                zi, zj = amb(j), amb(i)
                length2 = sp.trigsimp(d2)
                out.append((zi - zj).dot(zi - zj) - length2)
        return tuple(out)


@dataclass(frozen=True)
class Convention:
    """Another set of coordinates for the same model: ``old q = mapping(new q)``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> [c.label for c in default_conventions(ld.zoo.double_pendulum())]
    ['relative']
    """

    label: str
    new_q: tuple[sp.Expr, ...]
    mapping: Mapping[sp.Expr, Any]


def _names(system: Any) -> list[str]:
    return [str(s)[:-3] if str(s).endswith("(t)") else str(s) for s in system.q]


def _params(system: Any) -> dict[str, sp.Symbol]:
    return {s.name: s for s in system.parameters}


def _chain(
    angles: Sequence[sp.Expr], lengths: Sequence[sp.Expr], reference: str
) -> list[tuple[sp.Expr, sp.Expr]]:
    pts = []
    x, y = sp.Integer(0), sp.Integer(0)
    for th, ell in zip(angles, lengths):
        if reference == "down":
            x, y = x + ell * sp.sin(th), y - ell * sp.cos(th)
        else:
            x, y = x + ell * sp.cos(th), y + ell * sp.sin(th)
        pts.append((x, y))
    return pts


def _serial(n: int) -> tuple[tuple[int, int], ...]:
    return tuple((k - 1, k) for k in range(n))


def _recognise(system: Any) -> Geometry | None:
    names, par, q, n = _names(system), _params(system), list(system.q), system.n

    def lengths(stem: str = "l") -> list[sp.Expr] | None:
        got = [par.get(f"{stem}{k + 1}") for k in range(n)]
        return None if any(g is None for g in got) else got

    def cumulative() -> list[sp.Expr]:
        return [sp.Add(*q[: k + 1]) for k in range(n)]

    if names in (["a", "b"], ["u1", "u2"]) and lengths():
        angles = q if names == ["a", "b"] else cumulative()
        m = [par.get("m1"), par.get("m2")]
        return Geometry(
            tuple(_chain(angles, lengths() or [], "down")),
            _serial(2),
            tuple(m) if all(m) else None,
            "double_pendulum" if names == ["a", "b"] else "double_pendulum_relative",
        )
    for stem, relative in (("theta", False), ("phi", True)):
        if names == [f"{stem}{k + 1}" for k in range(n)] and lengths():
            angles = cumulative() if relative else q
            m = [par.get(f"m{k + 1}") for k in range(n)]
            return Geometry(
                tuple(_chain(angles, lengths() or [], "down")),
                _serial(n),
                tuple(m) if all(m) else None,
                "n_link_pendulum_relative" if relative else "n_link_pendulum",
            )
    if names == [f"q{k + 1}" for k in range(n)] and lengths("lc"):
        lc = lengths("lc") or []
        ls = [par.get(f"l{k + 1}", 2 * lc[k]) for k in range(n)]  # the tip: twice the COM
        return Geometry(tuple(_chain(cumulative(), ls, "horizontal")), _serial(n), None, "arm")
    if names == ["x", "theta"] and "l" in par:
        x, th = q
        ell = 2 * par["l"]  # l: pivot to the pole's centre of mass
        pts = ((x, sp.Integer(0)), (x + ell * sp.sin(th), ell * sp.cos(th)))
        return Geometry(pts, ((0, 1),), None, "cart_pole")
    if names == ["r", "theta"]:
        r, th = q
        mass = par.get("m")
        return Geometry(
            ((r * sp.sin(th), -r * sp.cos(th)),),
            ((-1, 0),),
            (mass,) if mass is not None else None,
            "elastic_pendulum",
        )
    return None


def model_geometry(
    system: Any,
    points: Sequence[Sequence[Any]] | None = None,
    *,
    links: Sequence[tuple[int, int]] | None = None,
    masses: Sequence[Any] | None = None,
) -> Geometry:
    """The planar geometry of ``system``: user points, a carried geometry, or a zoo model.

    Parameters
    ----------
    system : LagrangianSystem
    points : sequence of (x, y) expressions in ``system.q``, optional
        Particle positions; the last one is where the lab's end force acts.
    links : sequence of (int, int), optional
        Drawn segments for ``points`` (``-1``: the origin); default a chain from the
        origin through the points in order.
    masses : sequence of expressions, optional
        Point masses of ``points`` (enables the direct point-energy check).

    Returns
    -------
    Geometry

    Raises
    ------
    LagdynError
        When no points are given and the model is not recognised, or a point is not
        planar or depends on rates.

    Examples
    --------
    >>> import lagdyn as ld
    >>> model_geometry(ld.zoo.acrobot()).name
    'arm'
    >>> model_geometry(ld.zoo.n_link_pendulum(3)).points[2][1]
    -l1*cos(theta1(t)) - l2*cos(theta2(t)) - l3*cos(theta3(t))
    """
    if points is not None:
        pts = []
        for p in points:
            v = tuple(sp.sympify(c) for c in p)
            if len(v) != 2:
                raise LagdynError(f"lab points must be planar (x, y), got {p!r}")
            if any(c.atoms(sp.Derivative) for c in v):
                raise LagdynError(f"lab point {p!r} depends on rates; positions depend on q only")
            pts.append(v)
        if not pts:
            raise LagdynError("lab: points is empty")
        lk = tuple(links) if links is not None else _serial(len(pts))
        ms = tuple(sp.sympify(m) for m in masses) if masses is not None else None
        return Geometry(tuple(pts), lk, ms, "points")
    carried = getattr(system, "geometry", None)
    if isinstance(carried, Geometry):
        return carried
    got = _recognise(system)
    if got is None:
        raise LagdynError(
            f"lab: no known planar geometry for a model with coordinates {_names(system)}; "
            "pass points=[(x1, y1), ...] (particle positions in the coordinates)"
        )
    return got


def default_conventions(system: Any) -> list[Convention]:
    """The second angle convention of the pendulums (absolute ↔ relative), else none.

    Examples
    --------
    >>> import lagdyn as ld
    >>> conv = default_conventions(ld.zoo.double_pendulum(coordinates="relative"))
    >>> conv[0].label, conv[0].new_q
    ('absolute', (a(t), b(t)))
    """
    from ..symbols import coordinates

    names, q, n = _names(system), list(system.q), system.n
    if names == ["a", "b"]:
        u = coordinates("u1 u2")
        return [Convention("relative", tuple(u), {q[0]: u[0], q[1]: u[0] + u[1]})]
    if names == ["u1", "u2"]:
        a, b = coordinates("a b")
        return [Convention("absolute", (a, b), {q[0]: a, q[1]: b - a})]
    theta = [f"theta{k + 1}" for k in range(n)]
    phi = [f"phi{k + 1}" for k in range(n)]
    if names == theta and n > 1:
        new = coordinates(" ".join(phi))
        return [Convention("relative", tuple(new), {q[k]: sp.Add(*new[: k + 1]) for k in range(n)})]
    if names == phi and n > 1:
        new = coordinates(" ".join(theta))
        mapping = {q[0]: new[0], **{q[k]: new[k] - new[k - 1] for k in range(1, n)}}
        return [Convention("absolute", tuple(new), mapping)]
    return []
