r"""Drawing geometry that a model carries with it: symbolic points, links, pivots and carts.

A :class:`Drawing` lists the points of a mechanism as sympy expressions in its coordinates
and parameters (2-D or 3-D), which points are joined, which are fixed pivots and which are
carts. The zoo attaches one to every model it builds (``system.drawing``); :mod:`lagdyn.plot`
turns it into a numeric ``positions(q) -> (..., k, 2)`` with the parameter values bound,
projecting 3-D points onto the picture plane of an oblique view. Nothing is inferred from
coordinate names.

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn.geometry import drawing_of
>>> d = drawing_of(ld.zoo.double_pendulum())
>>> d.dim, d.links, d.pivots
(2, ((0, 1), (1, 2)), (0,))
>>> d.positions(ld.zoo.double_pendulum().q, {"l1": 1.0, "l2": 1.0})([0.0, 0.0]).tolist()
[[0.0, 0.0], [0.0, -1.0], [0.0, -2.0]]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from .errors import LagdynError, ShapeError

__all__ = ["Drawing", "attach", "drawing_of", "project"]

Positions = Callable[[Any], np.ndarray]

#: Oblique view of 3-D drawings: azimuth and elevation of the viewer, in degrees.
VIEW = (-60.0, 20.0)


@dataclass(frozen=True)
class Drawing:
    """Points (sympy expressions in q and parameters) and how to draw them.

    Attributes
    ----------
    points : tuple of tuples of sympy expressions
        Each point's 2 or 3 coordinates (x, y) or (x, y, z); gravity along −y (2-D) or −z
        (3-D).
    links : tuple of (i, j)
        Segments drawn between points ``i`` and ``j``.
    pivots : tuple of int
        Fixed points, drawn as a pivot marker.
    carts : tuple of int
        Points drawn as a cart (a box on a rail).

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> from lagdyn.geometry import Drawing
    >>> (x,) = ld.coordinates("x")
    >>> d = Drawing.chain([(x, 0), (x + 1, -1)], pivots=(), carts=(0,))
    >>> d.positions([x], {})([2.0]).tolist()
    [[2.0, 0.0], [3.0, -1.0]]
    """

    points: tuple[tuple[sp.Expr, ...], ...]
    links: tuple[tuple[int, int], ...]
    pivots: tuple[int, ...] = (0,)
    carts: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        dims = {len(p) for p in self.points}
        if not self.points or len(dims) != 1 or dims - {2, 3}:
            raise ShapeError("a Drawing needs points with 2 or with 3 coordinates each")
        k = len(self.points)
        for i in (*[i for ij in self.links for i in ij], *self.pivots, *self.carts):
            if not 0 <= i < k:
                raise ShapeError(f"point index {i} out of range for {k} points")

    @classmethod
    def chain(
        cls,
        points: Sequence[Sequence[Any]],
        *,
        pivots: tuple[int, ...] = (0,),
        carts: tuple[int, ...] = (),
    ) -> Drawing:
        """Points joined in order (a serial chain).

        Examples
        --------
        >>> from lagdyn.geometry import Drawing
        >>> Drawing.chain([(0, 0), (0, -1), (1, -1)]).links
        ((0, 1), (1, 2))
        """
        pts = tuple(tuple(sp.sympify(c) for c in p) for p in points)
        links = tuple((i, i + 1) for i in range(len(pts) - 1))
        return cls(pts, links, pivots, carts)

    @property
    def dim(self) -> int:
        """2 for planar drawings, 3 for spatial ones (projected when plotted)."""
        return len(self.points[0])

    def positions(self, q: Sequence[Any], params: Mapping[Any, float]) -> Positions:
        """Numeric ``positions(q) -> (..., k, 2)`` with ``params`` (symbols or names) bound.

        3-D points are projected by :func:`project`. The returned function carries this
        drawing as its ``drawing`` attribute (for pivots and carts).

        Raises
        ------
        LagdynError
            A parameter of the drawing without a value.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.cart_pole()
        >>> pos = sys.drawing.positions(sys.q, sys.defaults)
        >>> pos([1.0, 0.0]).shape
        (2, 2)
        """
        values = {str(k): float(v) for k, v in dict(params).items()}
        qs = [sp.Symbol(f"_draw{i}") for i in range(len(q))]
        to_plain = {qi: s for qi, s in zip(q, qs)}
        exprs = [sp.sympify(c).xreplace(to_plain) for p in self.points for c in p]
        free = sorted({s for e in exprs for s in e.free_symbols} - set(qs), key=str)
        missing = [str(s) for s in free if str(s) not in values]
        if missing:
            raise LagdynError(f"the drawing needs values for {', '.join(missing)}")
        bound = {s: values[str(s)] for s in free}
        exprs = [e.xreplace(bound) for e in exprs]
        foreign = sorted({str(f) for e in exprs for f in e.atoms(AppliedUndef)})
        if foreign:
            raise LagdynError(f"the drawing depends on {', '.join(foreign)}, not coordinates")
        fn = sp.lambdify(qs, exprs, modules="numpy")
        n, k, d = len(q), len(self.points), self.dim

        def positions(qv: Any) -> np.ndarray:
            qa = np.asarray(qv, dtype=float)
            if qa.ndim == 0 or qa.shape[-1] != n:
                raise ShapeError(f"positions: q must have shape (..., {n}), got {qa.shape}")
            cols = fn(*np.moveaxis(qa, -1, 0))
            out = np.stack([np.broadcast_to(np.asarray(c, float), qa.shape[:-1]) for c in cols])
            pts = np.moveaxis(out, 0, -1).reshape(*qa.shape[:-1], k, d)
            return project(pts) if d == 3 else pts

        positions.drawing = self  # type: ignore[attr-defined]
        return positions


def project(points: Any, view: tuple[float, float] = VIEW) -> np.ndarray:
    """Orthographic projection of 3-D points ``(..., 3)`` onto the picture plane ``(..., 2)``.

    The viewer looks from azimuth ``view[0]`` and elevation ``view[1]`` (degrees); z is up
    in the picture.

    Examples
    --------
    >>> from lagdyn.geometry import project
    >>> project([0.0, 0.0, -1.0]).round(12).tolist()   # straight down stays straight down
    [0.0, -0.939692620786]
    """
    p = np.asarray(points, dtype=float)
    if p.shape[-1:] != (3,):
        raise ShapeError(f"project: points must have shape (..., 3), got {p.shape}")
    az, el = (math.radians(v) for v in view)
    right = np.array([-math.sin(az), math.cos(az), 0.0])
    up = np.array([-math.sin(el) * math.cos(az), -math.sin(el) * math.sin(az), math.cos(el)])
    return np.stack([p @ right, p @ up], axis=-1)


def attach(system: Any, drawing: Drawing) -> Any:
    """Attach ``drawing`` to ``system`` (as ``system.drawing``) and return the system.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.geometry import Drawing, attach
    >>> (x,) = ld.coordinates("x")
    >>> free = ld.LagrangianSystem.from_mass_matrix([[1]], 0, [x])
    >>> attach(free, Drawing.chain([(x, 0)], pivots=())).drawing.dim
    2
    """
    if not isinstance(drawing, Drawing):
        raise LagdynError(
            f"drawing must be a lagdyn.geometry.Drawing, got {type(drawing).__name__}"
        )
    setattr(system, "drawing", drawing)  # noqa: B010  (LagrangianSystem has no such field)
    return system


def drawing_of(system: Any) -> Drawing | None:
    """The drawing attached to ``system`` (zoo models have one), or None.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.geometry import drawing_of
    >>> drawing_of(ld.zoo.furuta_pendulum()).dim
    3
    """
    d = getattr(system, "drawing", None)
    return d if isinstance(d, Drawing) else None
