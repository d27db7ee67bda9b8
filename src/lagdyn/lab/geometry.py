"""Planar geometry of a model for the lab: particle positions, links, constraints, conventions.

The one place that knows how a model is drawn for the lab: :func:`model_geometry`
takes user ``points``, or the model's own :class:`~lagdyn.geometry.Drawing`
(``system.drawing``: every zoo model carries one; a user model attaches one with
:func:`lagdyn.geometry.attach`). A drawing's fixed pivot at the origin becomes the
lab's pivot (index ``-1``), its carts stay carts, and point masses are found by an
exact proof (``M = Σ m_k J_kᵀ J_k``) when the model is made of point masses at the
drawn points. Coordinate names only pick labels (``double_pendulum`` …), the seed's
opening state and the default second convention.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..errors import LagdynError
from ..geometry import Drawing, drawing_of
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
        A label: a zoo name recognised from the coordinates (``"double_pendulum"``,
        ``"cart_pole"`` …), ``"points"`` for user points, else ``"model"``.
    carts : tuple of int
        Points drawn as a cart on a horizontal rail.

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
    carts: tuple[int, ...] = ()

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
        # an expression proved constant in q equals its value at q = 0 (no simplify needed;
        # trigsimp where q = 0 is a singular point of how it is written)
        at_zero = {x: sp.S.Zero for x in q}

        def constant(e: sp.Expr, fallback: Any) -> sp.Expr:
            value = sp.expand(e.xreplace(at_zero))
            return fallback(e) if value.has(sp.nan, sp.zoo, sp.oo, -sp.oo) else value

        out: list[sp.Expr] = []
        for k, p in enumerate(pts):
            for c in range(2):
                if all(is_zero(sp.diff(p[c], x)) for x in q):
                    out.append(z[2 * k + c] - constant(p[c], sp.simplify))

        def point(k: int) -> sp.Matrix:
            return pts[k] if k >= 0 else sp.zeros(2, 1)

        def amb(k: int) -> sp.Matrix:
            return sp.Matrix(z[2 * k : 2 * k + 2]) if k >= 0 else sp.zeros(2, 1)

        for i, j in self.links:
            d2 = sp.expand((point(j) - point(i)).dot(point(j) - point(i)))
            if all(is_zero(sp.diff(d2, x)) for x in q):
                zi, zj = amb(j), amb(i)
                length2 = constant(d2, sp.trigsimp)
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


def _serial(n: int) -> tuple[tuple[int, int], ...]:
    return tuple((k - 1, k) for k in range(n))


def _label(system: Any) -> str:
    """A label from the coordinate names (what the zoo calls them), else ``"model"``."""
    names, n = _names(system), system.n
    if names == ["a", "b"]:
        return "double_pendulum"
    if names == ["u1", "u2"]:
        return "double_pendulum_relative"
    if names == [f"theta{k + 1}" for k in range(n)]:
        return "n_link_pendulum"
    if names == [f"phi{k + 1}" for k in range(n)]:
        return "n_link_pendulum_relative"
    if names == [f"q{k + 1}" for k in range(n)]:
        return "arm"
    if names == ["x", "theta"]:
        return "cart_pole"
    if names == ["r", "theta"]:
        return "elastic_pendulum"
    return "model"


def _point_masses(system: Any, points: Sequence[Sequence[sp.Expr]]) -> tuple[sp.Expr, ...] | None:
    """Masses m_k with ``M = Σ m_k J_kᵀ J_k`` (J_k = ∂z_k/∂q), proved exactly, else None.

    Candidates come from a linear solve at exact sample configurations; they are kept
    only when the identity is then proved for every entry of M.
    """
    q, n, k = list(system.q), system.n, len(points)
    jac = [sp.Matrix([[sp.diff(c, x) for x in q] for c in p]) for p in points]
    grams = [J.T * J for J in jac]
    M = system.M
    mu = sp.symbols(f"_mu0:{k}")
    half = sp.pi / 2
    samples = [
        [sp.Integer(0)] * n,
        [half * (i + 1) for i in range(n)],
        [half * (i % 2) + sp.pi / 3 for i in range(n)],
    ]
    eqs = []
    for sample in samples:
        sub = dict(zip(q, sample))
        for i in range(n):
            for j in range(i, n):
                rhs = sp.Add(*[m * G[i, j].xreplace(sub) for m, G in zip(mu, grams)])
                eqs.append(sp.expand(M[i, j].xreplace(sub) - rhs))
    solutions = list(sp.linsolve(eqs, mu))
    if len(solutions) != 1 or set(mu) & solutions[0].free_symbols:
        return None
    masses = tuple(sp.simplify(m) for m in solutions[0])
    for i in range(n):
        for j in range(i, n):
            rest = M[i, j] - sp.Add(*[m * G[i, j] for m, G in zip(masses, grams)])
            if not is_zero(sp.expand(rest)):
                return None
    return masses


def _from_drawing(system: Any, drawing: Drawing) -> Geometry:
    if drawing.dim != 2:
        raise LagdynError(
            "lab: the model's drawing is spatial (3-D) and the lab is planar; pass "
            "points=[(x1, y1), ...] for a planar view"
        )
    index: dict[int, int] = {}
    points: list[tuple[sp.Expr, sp.Expr]] = []
    for i, p in enumerate(drawing.points):
        x, y = (sp.sympify(c) for c in p)
        if i in drawing.pivots and x == 0 and y == 0:
            index[i] = -1  # the fixed pivot at the origin
            continue
        index[i] = len(points)
        points.append((x, y))
    if not points:
        raise LagdynError("lab: the model's drawing has no moving point")
    links = tuple(
        (index[i], index[j]) for i, j in drawing.links if (index[i], index[j]) != (-1, -1)
    )
    carts = tuple(index[i] for i in drawing.carts if index[i] >= 0)
    return Geometry(tuple(points), links, _point_masses(system, points), _label(system), carts)


def model_geometry(
    system: Any,
    points: Sequence[Sequence[Any]] | None = None,
    *,
    links: Sequence[tuple[int, int]] | None = None,
    masses: Sequence[Any] | None = None,
) -> Geometry:
    """The planar geometry of ``system``: user points, or the model's drawing.

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
        When no points are given and the model carries no planar drawing, or a point
        is not planar or depends on rates.

    Examples
    --------
    >>> import lagdyn as ld
    >>> geo = model_geometry(ld.zoo.acrobot())
    >>> geo.name, geo.links, geo.masses
    ('arm', ((-1, 0), (0, 1)), None)
    >>> model_geometry(ld.zoo.double_pendulum()).masses
    (m1, m2)
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
    drawing = drawing_of(system)
    if drawing is None:
        raise LagdynError(
            f"lab: the model with coordinates {_names(system)} carries no drawing; attach "
            "one (lagdyn.geometry.attach(system, Drawing.chain([...])), e.g. in a --file "
            "model) or pass points=[(x1, y1), ...] (particle positions in the coordinates)"
        )
    return _from_drawing(system, drawing)


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
