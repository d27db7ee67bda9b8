"""``render_mode="rgb_array"``: the model's drawing rasterized with numpy (no window, no GUI).

The picture is the model's :class:`lagdyn.geometry.Drawing` (what :mod:`lagdyn.plot` and the
lab page draw): links as rods, joints as disks, fixed pivots dark, carts as boxes on a rail;
3-D drawings are projected as in :mod:`lagdyn.plot`. Shapes are anti-aliased by their pixel
coverage; a frame of 400 × 400 takes about a millisecond.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import LagdynError, ShapeError

__all__: list[str] = []  # internal; see lagdyn.gym

BACKGROUND = (255.0, 255.0, 255.0)
RAIL = (160.0, 160.0, 160.0)
CART = (60.0, 60.0, 60.0)
LINK = (45.0, 95.0, 200.0)
JOINT = (235.0, 165.0, 40.0)
PIVOT = (25.0, 25.0, 25.0)


class Renderer:
    """Frames ``(height, width, 3)`` of ``uint8`` of one configuration ``q``.

    ``positions(q) -> (..., k, 2)`` comes from the drawing; ``bounds`` is the world window
    ``(xmin, xmax, ymin, ymax)`` (default: the drawing's extent over ``samples``, with a
    margin), widened to the picture's aspect ratio.
    """

    def __init__(
        self,
        positions: Callable[[Any], np.ndarray],
        drawing: Any,
        size: Sequence[int],
        bounds: Sequence[float] | None,
        samples: np.ndarray,
    ) -> None:
        try:
            width, height = (int(v) for v in size)
        except (TypeError, ValueError):
            raise LagdynError(f"render_size must be (width, height), got {size!r}") from None
        if not (16 <= width <= 4096 and 16 <= height <= 4096):
            raise LagdynError(
                f"render_size must be between 16 and 4096 pixels a side, got {(width, height)}"
            )
        self.width, self.height = width, height
        self.positions = positions
        self.links = tuple(drawing.links)
        self.pivots = tuple(drawing.pivots)
        self.carts = tuple(drawing.carts)
        if bounds is None:
            pts = np.asarray(positions(samples), dtype=np.float64).reshape(-1, 2)
            pts = pts[np.isfinite(pts).all(axis=1)]
            lo, hi = pts.min(axis=0), pts.max(axis=0)
            span = max(float((hi - lo).max()), 1e-9)
            lo, hi = lo - 0.1 * span, hi + 0.1 * span
            xmin, xmax, ymin, ymax = float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1])
        else:
            try:
                xmin, xmax, ymin, ymax = (float(v) for v in bounds)
            except (TypeError, ValueError):
                raise LagdynError(
                    f"render_bounds must be (xmin, xmax, ymin, ymax), got {bounds!r}"
                ) from None
            if not (
                all(math.isfinite(v) for v in (xmin, xmax, ymin, ymax))
                and xmin < xmax
                and ymin < ymax
            ):
                raise LagdynError(
                    f"render_bounds must be finite with xmin < xmax and ymin < ymax, got {bounds!r}"
                )
        scale = min(width / (xmax - xmin), height / (ymax - ymin))
        cx, cy = (xmin + xmax) / 2, (ymin + ymax) / 2
        self.scale = scale
        self.x0 = cx - width / (2 * scale)  # world x at the left edge
        self.y1 = cy + height / (2 * scale)  # world y at the top edge
        base = min(width, height)
        self.rod = max(1.5, 0.012 * base)
        self.joint = max(2.0, 0.022 * base)
        self.pivot = max(2.5, 0.028 * base)
        self.cart = (max(6.0, 0.12 * base), max(4.0, 0.07 * base))

    def pixels(self, pts: np.ndarray) -> np.ndarray:
        """World points ``(k, 2)`` → pixel coordinates (x right, y down)."""
        out = np.empty_like(pts)
        out[:, 0] = (pts[:, 0] - self.x0) * self.scale
        out[:, 1] = (self.y1 - pts[:, 1]) * self.scale
        return out

    def __call__(self, q: np.ndarray) -> np.ndarray:
        pts = np.asarray(self.positions(np.asarray(q, dtype=np.float64)), dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 2:
            raise ShapeError(f"the drawing gave points of shape {pts.shape}, expected (k, 2)")
        px = self.pixels(pts)
        img = np.empty((self.height, self.width, 3), dtype=np.float32)
        img[...] = BACKGROUND
        w, h = self.cart
        for c in self.carts:
            y = px[c, 1] + h / 2
            if math.isfinite(y):
                _capsule(img, (0.0, y), (float(self.width), y), 1.0, RAIL)
        for i, j in self.links:
            _capsule(img, px[i], px[j], self.rod, LINK)
        for c in self.carts:
            _box(img, px[c], w / 2, h / 2, CART)
        for k in range(len(px)):
            if k in self.carts:
                continue
            if k in self.pivots:
                _capsule(img, px[k], px[k], self.pivot, PIVOT)
            else:
                _capsule(img, px[k], px[k], self.joint, JOINT)
        return np.rint(img).astype(np.uint8)


def _window(img: np.ndarray, xs: Sequence[float], ys: Sequence[float], pad: float) -> Any:
    """Pixel index ranges covering the box of ``xs``, ``ys`` widened by ``pad`` (or None)."""
    if not all(math.isfinite(v) for v in (*xs, *ys)):
        return None
    height, width = img.shape[:2]
    x0 = max(math.floor(min(xs) - pad - 1), 0)
    x1 = min(math.ceil(max(xs) + pad + 1), width)
    y0 = max(math.floor(min(ys) - pad - 1), 0)
    y1 = min(math.ceil(max(ys) + pad + 1), height)
    if x0 >= x1 or y0 >= y1:
        return None
    return x0, x1, y0, y1


def _blend(img: np.ndarray, win: Any, alpha: np.ndarray, color: Sequence[float]) -> None:
    x0, x1, y0, y1 = win
    region = img[y0:y1, x0:x1]
    region += alpha[..., None] * (np.asarray(color, dtype=np.float32) - region)


def _capsule(
    img: np.ndarray, a: Sequence[float], b: Sequence[float], r: float, color: Sequence[float]
) -> None:
    """A rod of radius ``r`` from ``a`` to ``b`` (a disk when ``a == b``), anti-aliased."""
    ax, ay, bx, by = float(a[0]), float(a[1]), float(b[0]), float(b[1])
    win = _window(img, (ax, bx), (ay, by), r)
    if win is None:
        return
    x0, x1, y0, y1 = win
    xs = np.arange(x0, x1, dtype=np.float32)[None, :] + 0.5
    ys = np.arange(y0, y1, dtype=np.float32)[:, None] + 0.5
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 > 0:
        t = np.clip(((xs - ax) * dx + (ys - ay) * dy) / length2, 0.0, 1.0)
        ex, ey = ax + t * dx - xs, ay + t * dy - ys
    else:
        ex, ey = ax - xs, ay - ys
    alpha = np.clip(r + 0.5 - np.sqrt(ex * ex + ey * ey), 0.0, 1.0)
    _blend(img, win, alpha, color)


def _box(img: np.ndarray, c: Sequence[float], hw: float, hh: float, color: Sequence[float]) -> None:
    """An axis-aligned box of half sizes ``hw``, ``hh`` centred at ``c``, anti-aliased."""
    cx, cy = float(c[0]), float(c[1])
    win = _window(img, (cx - hw, cx + hw), (cy - hh, cy + hh), 0.0)
    if win is None:
        return
    x0, x1, y0, y1 = win
    xs = np.arange(x0, x1, dtype=np.float32)[None, :] + 0.5
    ys = np.arange(y0, y1, dtype=np.float32)[:, None] + 0.5
    inside = np.minimum(hw - np.abs(xs - cx), hh - np.abs(ys - cy))
    _blend(img, win, np.clip(inside + 0.5, 0.0, 1.0), color)
