r"""Plots and animations of simulations (matplotlib, extra ``plot``).

Every plotting function returns a :class:`matplotlib.figure.Figure` built without
``pyplot`` (no window ever opens, no global state; save it with :func:`save_figure`, or
``fig.savefig(path)``), or draws into the ``ax`` it is given.

- :func:`plot_timeseries` — q, q̇ and the energy balance against time;
- :func:`plot_energy` — E(t) − E(0) and the passivity residual;
- :func:`plot_phase` — phase portraits (q_i, q̇_i), every batch member;
- :func:`plot_chain` — a stroboscopic picture of a planar chain;
- :func:`animate` — a GIF (pillow) or MP4 (ffmpeg) of a planar chain or particles;
- :func:`plot_chaos` — divergence of two nearby initial states on a log scale;
- :func:`save_figure` — ``fig.savefig`` by lagdyn's file rules (whole file or none, never
  over an existing file without ``force``, never through a symlink).

Positions of points for pictures and animations come from a callable
``positions(q) -> (..., k, 2)``: k points in the plane, consecutive points joined by rods.
:func:`chain_positions` computes them for serial pendulums and arms, and
:func:`positions_for` picks the right convention for a zoo model.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn import plot
>>> plot.chain_positions(np.array([0.0, np.pi / 2])).round(12)
array([[ 0.,  0.],
       [ 0., -1.],
       [ 1., -1.]])
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ._files import atomic_path, check_new_file
from .errors import BackendUnavailableError, LagdynError, ShapeError
from .geometry import drawing_of

if TYPE_CHECKING:  # pragma: no cover
    from .simulation.result import SimulationResult

__all__ = [
    "animate",
    "chain_positions",
    "coordinate_label",
    "frame_indices",
    "plot_chain",
    "plot_chaos",
    "plot_energy",
    "plot_phase",
    "plot_timeseries",
    "positions_for",
    "rate_label",
    "save_figure",
]

Positions = Callable[[np.ndarray], Any]


def _figure(figsize: tuple[float, float], **kwargs: Any) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise BackendUnavailableError(
            "lagdyn.plot needs matplotlib: pip install 'lagdyn[plot]'"
        ) from exc
    return Figure(figsize=figsize, **kwargs)


def _members(result: SimulationResult) -> list[SimulationResult]:
    shape = result.batch_shape
    if not shape:
        return [result]
    return [result[idx] for idx in np.ndindex(*shape)]


# --------------------------------------------------------------------------- positions
def chain_positions(
    q: Any,
    lengths: Any = 1.0,
    *,
    relative: bool = False,
    reference: Literal["down", "horizontal"] = "down",
) -> np.ndarray:
    r"""Joint positions of a planar serial chain with a fixed pivot at the origin.

    Parameters
    ----------
    q : array_like, shape (..., n)
        Link angles.
    lengths : float or array_like, shape (n,)
        Link lengths.
    relative : bool
        ``False``: every angle is absolute (measured from the reference direction);
        ``True``: joint angles, link k at ``q_1 + … + q_k``.
    reference : {"down", "horizontal"}
        ``"down"``: angles from the downward vertical, link direction
        ``(sin θ, −cos θ)`` (pendulums of the zoo); ``"horizontal"``: from the x axis,
        ``(cos θ, sin θ)`` (the planar arms).

    Returns
    -------
    ndarray, shape (..., n + 1, 2)
        The pivot followed by the n link ends.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.plot import chain_positions
    >>> chain_positions([0.0, 0.0], [1.0, 2.0])
    array([[ 0.,  0.],
           [ 0., -1.],
           [ 0., -3.]])
    >>> chain_positions([0.0, np.pi / 2], relative=True, reference="horizontal").round(12)
    array([[0., 0.],
           [1., 0.],
           [1., 1.]])
    """
    qa = np.asarray(q, dtype=float)
    if qa.ndim == 0:
        raise ShapeError("chain_positions: q must have shape (..., n)")
    n = qa.shape[-1]
    ls = np.broadcast_to(np.asarray(lengths, dtype=float), (n,))
    angles = np.cumsum(qa, axis=-1) if relative else qa
    if reference == "down":
        dx, dy = np.sin(angles), -np.cos(angles)
    elif reference == "horizontal":
        dx, dy = np.cos(angles), np.sin(angles)
    else:
        raise LagdynError(f"reference must be 'down' or 'horizontal', got {reference!r}")
    pts = np.zeros((*qa.shape[:-1], n + 1, 2))
    pts[..., 1:, 0] = np.cumsum(ls * dx, axis=-1)
    pts[..., 1:, 1] = np.cumsum(ls * dy, axis=-1)
    return pts


def positions_for(model: str, system: Any = None) -> Positions:
    """The ``positions(q)`` function of a model, from the drawing it carries.

    Every zoo model carries its geometry (``system.drawing``, a
    :class:`lagdyn.geometry.Drawing`: its points as expressions in q and the parameters,
    which are pivots and which are carts); the parameter values are ``system.defaults``.
    Spatial models (spherical pendulum, Furuta pendulum) are projected onto the picture plane
    of an oblique view. Nothing is inferred from coordinate names.

    Parameters
    ----------
    model : str
        A zoo name; used to build the system when ``system`` is omitted, and in messages.
    system : LagrangianSystem, optional
        The built system.

    Returns
    -------
    callable
        ``positions(q) -> (..., k, 2)``, with the drawing as its ``drawing`` attribute.

    Raises
    ------
    LagdynError
        For a model without a drawing (attach one with :func:`lagdyn.geometry.attach`, or
        pass your own ``positions(q)`` to :func:`animate`).

    Examples
    --------
    >>> from lagdyn.plot import positions_for
    >>> positions_for("double_pendulum")([0.0, 0.0]).tolist()
    [[0.0, 0.0], [0.0, -1.0], [0.0, -2.0]]
    >>> positions_for("cart_pole")([1.0, 0.0]).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    >>> positions_for("furuta_pendulum")([0.0, 0.0]).shape
    (3, 2)
    """
    if system is None:
        from .zoo import get

        system = get(model)
    drawing = drawing_of(system)
    if drawing is None:
        raise LagdynError(
            f"model {model!r} carries no drawing geometry; attach one with "
            "lagdyn.geometry.attach(system, Drawing(...)) or pass your own "
            "positions(q) -> (..., k, 2) to lagdyn.plot.animate"
        )
    return drawing.positions(system.q, dict(getattr(system, "defaults", {}) or {}))


# --------------------------------------------------------------------------- labels
_GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi",
    "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi", "Omega",
}  # fmt: skip


def _math_name(name: str) -> str | None:
    """Mathtext of a one-letter or Greek name with an optional index, else None."""
    m = re.fullmatch(r"([A-Za-z]+)_?(\d*)", name)
    if m is None or not (len(m.group(1)) == 1 or m.group(1) in _GREEK):
        return None
    letter = m.group(1) if len(m.group(1)) == 1 else "\\" + m.group(1)
    return letter + (f"_{{{m.group(2)}}}" if m.group(2) else "")


def coordinate_label(name: str) -> str:
    r"""A coordinate's name for a legend or an axis: ``a``, ``θ₁`` (as mathtext), ``x_cart``.

    Examples
    --------
    >>> from lagdyn.plot import coordinate_label, rate_label
    >>> coordinate_label("a"), coordinate_label("theta1"), coordinate_label("cart")
    ('$a$', '$\\theta_{1}$', 'cart')
    >>> rate_label("a"), rate_label("theta1"), rate_label("cart")
    ('$\\dot{a}$', '$\\dot{\\theta}_{1}$', 'rate of cart')
    """
    math = _math_name(name)
    return f"${math}$" if math else name


def rate_label(name: str) -> str:
    r"""A coordinate's rate: ȧ, θ̇₁ (mathtext, the dot over the whole letter), else "rate of x".

    Examples
    --------
    >>> from lagdyn.plot import rate_label
    >>> rate_label("q2"), rate_label("th")
    ('$\\dot{q}_{2}$', 'rate of th')
    """
    math = _math_name(name)
    if math is None:
        return f"rate of {name}"
    letter, _, index = math.partition("_")
    return f"$\\dot{{{letter}}}{'_' + index if index else ''}$"


# --------------------------------------------------------------------------- static plots
def plot_timeseries(
    result: SimulationResult,
    *,
    figsize: tuple[float, float] = (7, 6),
    title: str | None = None,
    units: tuple[str, str, str] = ("s", "SI", "J"),
) -> Any:
    r"""Three panels against time: q, q̇, and E(t) − E(0) with the passivity residual.

    Batched results draw every member (thin lines). ``title`` (e.g. the model name) heads
    the figure; ``units`` are those of time, of the coordinates and of energy, shown on the
    axes (SI by default: rad or m per coordinate, as the model defines them).

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulation import simulate
    >>> from lagdyn.plot import plot_timeseries
    >>> res = simulate(ld.zoo.double_pendulum(), [1.0, 0.0, 0.0, 0.0], np.linspace(0, 1, 51))
    >>> fig = plot_timeseries(res)
    >>> len(fig.axes), [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    (3, ['$\\dot{a}$', '$\\dot{b}$'])
    """
    fig = _figure(figsize, layout="constrained")
    ax_q, ax_v, ax_e = fig.subplots(3, 1, sharex=True)
    members = _members(result)
    lw = 1.5 if len(members) == 1 else 0.8
    for m, res in enumerate(members):
        for i, name in enumerate(res.names):
            color = f"C{i % 10}"
            label = coordinate_label(name) if m == 0 else None
            ax_q.plot(res.t, res.q[:, i], color=color, lw=lw, label=label)
            rate = rate_label(name) if m == 0 else None
            ax_v.plot(res.t, res.qd[:, i], color=color, lw=lw, label=rate)
        ax_e.plot(
            res.t, res.energy_drift, color="C0", lw=lw, label="E(t) − E(0)" if m == 0 else None
        )
        if np.any(res.tau) or (res.Q is not None and np.any(res.Q)):
            ax_e.plot(
                res.t,
                res.passivity_residual,
                color="C3",
                lw=lw,
                ls="--",
                label="E − E(0) − ∫q̇ᵀ(τ + Q) dt" if m == 0 else None,
            )
    t_unit, q_unit, e_unit = units
    # q̇ as mathtext: a combining dot after "q" is lost in DejaVu Sans at small sizes
    if q_unit == "SI":  # each coordinate in rad or m, as the model defines it
        ax_q.set_ylabel("$q$ [rad, m]")
        ax_v.set_ylabel(f"$\\dot{{q}}$ [rad/{t_unit}, m/{t_unit}]")
    else:
        ax_q.set_ylabel(f"$q$ [{q_unit}]")
        ax_v.set_ylabel(f"$\\dot{{q}}$ [{q_unit}/{t_unit}]")
    ax_e.set_ylabel(f"energy [{e_unit}]")
    ax_e.set_xlabel(f"t [{t_unit}]")
    for ax, size in ((ax_q, "medium"), (ax_v, "medium"), (ax_e, "small")):
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize=size)  # medium: the dots of ȧ stay visible
    head = f"{title}: " if title else ""
    ax_q.set_title(f"{head}{result.method}, {result.t.shape[0]} samples")
    return fig


def plot_energy(
    result: SimulationResult, *, ax: Any = None, relative: bool = False, log: bool = False
) -> Any:
    """Energy drift E(t) − E(0) and, with actuation, the passivity residual.

    Parameters
    ----------
    result : SimulationResult
    ax : matplotlib Axes, optional
        Draw here; a new figure otherwise.
    relative : bool
        Divide by |E(0)| (or by the energy swing when E(0) = 0).
    log : bool
        Plot absolute values on a log scale.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulation import simulate
    >>> from lagdyn.plot import plot_energy
    >>> res = simulate(ld.zoo.double_pendulum(), [1.0, 0.0, 0.0, 0.0], np.linspace(0, 1, 51))
    >>> plot_energy(res, log=True).axes[0].get_yscale()
    'log'
    """
    if ax is None:
        fig = _figure((6, 3.2), layout="constrained")
        ax = fig.subplots()
    else:
        fig = ax.figure
    for m, res in enumerate(_members(result)):
        drift = res.energy_drift
        resid = res.passivity_residual
        if relative:
            scale = abs(res.energy[0]) or (np.ptp(res.energy) or 1.0)
            drift, resid = drift / scale, resid / scale
        if log:
            drift, resid = np.abs(drift), np.abs(resid)
        lbl = "|E − E(0)|" if log else "E − E(0)"
        ax.plot(res.t, drift, color="C0", lw=1.2, label=f"{lbl} ({res.method})" if m == 0 else None)
        if np.any(res.tau):
            ax.plot(
                res.t,
                resid,
                color="C3",
                lw=1.2,
                ls="--",
                label="passivity residual" if m == 0 else None,
            )
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("t")
    ax.set_ylabel("relative energy error" if relative else "energy error")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def plot_phase(result: SimulationResult, coordinate: int | None = None, *, ax: Any = None) -> Any:
    """Phase portraits (q_i, q̇_i): one panel per coordinate, or only ``coordinate``.

    Batched results draw one curve per member: a fan of trajectories.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulation import simulate
    >>> from lagdyn.plot import plot_phase
    >>> x0 = np.array([[a, 0.0, 0.0, 0.0] for a in (0.2, 0.4)])
    >>> res = simulate(ld.zoo.double_pendulum(), x0, np.linspace(0, 1, 51))
    >>> len(plot_phase(res).axes), len(plot_phase(res, 1).axes[0].lines)
    (2, 2)
    """
    n = result.n
    coords = list(range(n)) if coordinate is None else [int(coordinate)]
    if any(not 0 <= c < n for c in coords):
        raise LagdynError(f"coordinate must be in 0 … {n - 1}, got {coordinate!r}")
    if ax is not None:
        if len(coords) != 1:
            raise LagdynError("plot_phase: pass coordinate= when drawing into a given ax")
        axes = [ax]
        fig = ax.figure
    else:
        fig = _figure((3.4 * len(coords), 3.2), layout="constrained")
        axes = list(np.atleast_1d(fig.subplots(1, len(coords))))
    members = _members(result)
    for a, c in zip(axes, coords):
        for m, res in enumerate(members):
            color = f"C{m % 10}" if len(members) > 1 else f"C{c % 10}"
            a.plot(res.q[:, c], res.qd[:, c], lw=0.9, color=color)
            if len(members) <= 20:
                a.scatter([res.q[0, c]], [res.qd[0, c]], s=9, color=color, zorder=3)
        name = result.names[c] if result.names else f"q{c}"
        a.set_xlabel(coordinate_label(name))
        a.set_ylabel(rate_label(name))
        a.grid(alpha=0.3)
    return fig


def _limits(pts: np.ndarray, margin: float = 0.1) -> tuple[float, float, float, float]:
    finite = pts[np.isfinite(pts).all(axis=-1)]
    if finite.size == 0:
        return (-1.0, 1.0, -1.0, 1.0)
    lo, hi = finite.min(axis=0), finite.max(axis=0)
    span = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-9))
    cx, cy = (lo + hi) / 2
    half = span / 2 * (1 + margin) + 1e-3
    return (cx - half, cx + half, cy - half, cy + half)


def _member_positions(result: SimulationResult, positions: Positions) -> np.ndarray:
    """Positions of every member: (members, n_t, k, 2)."""
    pts = np.asarray(positions(result.q), dtype=float)
    lead = result.q.shape[:-1]
    if pts.ndim < 3 or pts.shape[: len(lead)] != lead or pts.shape[-1] != 2:
        raise ShapeError(
            f"positions(q) returned shape {pts.shape}; expected {(*lead, 'k', 2)} "
            "(k points in the plane per state)"
        )
    return pts.reshape(-1, result.t.shape[0], pts.shape[-2], 2)


def plot_chain(
    result: SimulationResult,
    positions: Positions,
    *,
    count: int = 8,
    ax: Any = None,
    trace: bool = True,
) -> Any:
    """A stroboscopic picture: the chain at ``count`` evenly spaced times, fading in.

    Pivots are marked (a triangle): the drawing's, or the points that never move.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> from lagdyn.simulation import simulate
    >>> from lagdyn.plot import plot_chain, positions_for
    >>> res = simulate(ld.zoo.double_pendulum(), [1.0, 0.0, 0.0, 0.0], np.linspace(0, 1, 51))
    >>> fig = plot_chain(res, positions_for("double_pendulum"), count=4)
    >>> len(fig.axes[0].lines)  # the trace, 4 poses, the pivot
    6
    >>> from lagdyn.plot import chain_positions
    >>> fig = plot_chain(res, lambda q: chain_positions(q), count=4)  # no drawing
    >>> len(fig.axes[0].lines)  # the point that never moves is still marked as the pivot
    6
    """
    pts = _member_positions(result, positions)
    if ax is None:
        fig = _figure((4.5, 4.5), layout="constrained")
        ax = fig.subplots()
    else:
        fig = ax.figure
    idx = np.linspace(0, result.t.shape[0] - 1, max(int(count), 1)).round().astype(int)
    for m in range(pts.shape[0]):
        color = f"C{m % 10}"
        if trace:
            ax.plot(pts[m, :, -1, 0], pts[m, :, -1, 1], lw=0.6, color=color, alpha=0.5)
        for j, k in enumerate(idx):
            alpha = 0.15 + 0.85 * (j + 1) / len(idx)
            ax.plot(pts[m, k, :, 0], pts[m, k, :, 1], "-o", color=color, alpha=alpha, lw=2, ms=4)
    for i in _pivots(pts, getattr(positions, "drawing", None)):
        ax.plot(pts[0, 0, i, 0], pts[0, 0, i, 1], marker="^", ms=10, color="0.25", zorder=3)
    x0, x1, y0, y1 = _limits(pts.reshape(-1, 2))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)
    return fig


def _pivots(pts: np.ndarray, drawing: Any) -> tuple[int, ...]:
    """The points drawn as pivots: the drawing's, else every point that never moves."""
    if drawing is not None:
        return tuple(drawing.pivots)
    still = np.all(np.abs(pts - pts[:1, :1]) <= 1e-12 * (1 + np.abs(pts[:1, :1])), axis=(0, 1, 3))
    return tuple(int(i) for i in np.flatnonzero(still))


# --------------------------------------------------------------------------- animation
def frame_indices(
    t: Any, *, fps: float = 30.0, speed: float = 1.0, frames: int | None = None
) -> np.ndarray:
    """Indices into the time grid ``t`` of the animation frames.

    With ``frames`` given, that many evenly spaced samples; otherwise one frame every
    ``speed / fps`` seconds of simulated time, ``floor((t[-1] − t[0]) · fps / speed) + 1``
    frames, each the last sample at or before its time.

    Examples
    --------
    >>> import numpy as np
    >>> from lagdyn.plot import frame_indices
    >>> frame_indices(np.linspace(0, 1, 101), fps=10).tolist()
    [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    >>> len(frame_indices(np.linspace(0, 1, 101), frames=5))
    5
    """
    ta = np.asarray(t, dtype=float)
    if frames is not None:
        if frames < 1:
            raise LagdynError(f"frames must be ≥ 1, got {frames!r}")
        return np.linspace(0, ta.shape[0] - 1, int(frames)).round().astype(int)
    if fps <= 0 or speed <= 0:
        raise LagdynError(f"fps and speed must be positive, got fps={fps!r}, speed={speed!r}")
    step = speed / fps
    count = math.floor(float(ta[-1] - ta[0]) / step + 1e-9) + 1
    times = ta[0] + step * np.arange(count)
    idx = np.searchsorted(ta, times + 1e-12 * max(1.0, abs(ta[-1])), side="right") - 1
    return np.clip(idx, 0, ta.shape[0] - 1)


def save_figure(fig: Any, path: str | Path, *, force: bool = False, **kwargs: Any) -> Path:
    """``fig.savefig(path, **kwargs)`` by lagdyn's file rules: the whole file or none.

    The figure is rendered to a temporary file beside ``path`` (same suffix, so the format
    is picked as ``savefig`` picks it), flushed, then placed: a failure (a full disk)
    leaves no partial file, an existing file or symlink is refused unless ``force``, and
    a symlink is replaced by the file, never written through. Missing parent directories
    are created.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or Path
    force : bool
        Replace an existing file.
    **kwargs
        Passed to ``fig.savefig`` (``dpi``, ``format``, ``bbox_inches`` ...).

    Returns
    -------
    Path

    Raises
    ------
    LagdynError
        An existing file or symlink without ``force``, a directory in the way, or an OS
        error while writing.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld, tempfile, pathlib
    >>> from lagdyn.plot import plot_energy, save_figure
    >>> res = ld.simulate(ld.zoo.double_pendulum(), [1.0, 0, 0, 0], np.linspace(0, 0.1, 11))
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "energy.png"
    >>> save_figure(plot_energy(res), out, dpi=40).read_bytes()[:4]
    b'\\x89PNG'
    """
    out = check_new_file(path, force=force)
    with atomic_path(out, force=force) as tmp:
        fig.savefig(str(tmp), **kwargs)
    return out


def animate(
    result: SimulationResult,
    positions: Positions,
    path: str | Path,
    *,
    fps: int = 30,
    speed: float = 1.0,
    frames: int | None = None,
    trail: float = 1.0,
    figsize: tuple[float, float] = (4.0, 4.0),
    dpi: int = 80,
    title: str | None = None,
    force: bool = False,
) -> Path:
    """Save an animation of a planar chain (or particles) as GIF (pillow) or MP4 (ffmpeg).

    The file is rendered under a temporary name beside ``path`` and placed when complete
    (see :func:`save_figure`): an interrupted or failed render (a full disk) leaves no
    partial file.

    Parameters
    ----------
    result : SimulationResult
        One trajectory or a batch (every member drawn, one colour each).
    positions : callable
        ``positions(q) -> (..., k, 2)``: k points per state; consecutive points are
        joined by rods (see :func:`chain_positions`, :func:`positions_for`).
    path : str or Path
        Output file; the suffix picks the format: ``.gif`` or ``.mp4``. Missing parent
        directories are created.
    fps, speed, frames
        Frame rate of the file; simulated seconds per real second; or an explicit frame
        count (see :func:`frame_indices`).
    trail : float
        Seconds of trace drawn behind the last point (0 for none).
    figsize, dpi
        The frame size in pixels is ``figsize · dpi``.
    title : str, optional
    force : bool
        Replace an existing file (a symlink is replaced by the file; its target is never
        written).

    Returns
    -------
    Path
        The written file.

    Raises
    ------
    BackendUnavailableError
        Without matplotlib, pillow (GIF) or ffmpeg (MP4).
    LagdynError
        For another suffix, an existing file or symlink without ``force``, a directory in
        the way, or a failure while writing (nothing is left behind).

    Notes
    -----
    When ``positions`` carries a :class:`lagdyn.geometry.Drawing` (as the functions from
    :func:`positions_for` do), its links are drawn, its pivots marked and its carts drawn
    as boxes on a rail; otherwise consecutive points are joined and every point that never
    moves (the pivot of :func:`chain_positions`) is marked as a pivot.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld, tempfile, pathlib
    >>> from lagdyn.simulation import simulate
    >>> from lagdyn.plot import animate, positions_for
    >>> res = simulate(ld.zoo.double_pendulum(), [1.0, 0.0, 0.0, 0.0], np.linspace(0, 0.5, 51))
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "dp.gif"
    >>> animate(res, positions_for("double_pendulum"), out, frames=3, dpi=20).exists()
    True
    """
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise LagdynError(f"animate: unsupported file type {out.suffix!r}; use .gif or .mp4")
    check_new_file(out, force=force)  # before any frame is drawn
    fig = _figure(figsize, dpi=dpi)
    from matplotlib import animation
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    if suffix == ".gif":
        try:
            import PIL  # noqa: F401
        except ImportError as exc:
            raise BackendUnavailableError(
                "GIF output needs pillow: pip install pillow (or 'lagdyn[plot]')"
            ) from exc
        writer: Any = animation.PillowWriter(fps=fps)
    else:
        if shutil.which("ffmpeg") is None and not animation.writers.is_available("ffmpeg"):
            raise BackendUnavailableError("MP4 output needs ffmpeg on the PATH; use .gif instead")
        writer = animation.FFMpegWriter(fps=fps)

    pts = _member_positions(result, positions)
    t = result.t
    idx = frame_indices(t, fps=fps, speed=speed, frames=frames)
    ax = fig.add_axes((0.02, 0.02, 0.96, 0.9 if title else 0.96))
    x0, x1, y0, y1 = _limits(pts.reshape(-1, 2))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    if title:
        fig.suptitle(title, fontsize="medium")
    drawing = getattr(positions, "drawing", None)
    k_pts = pts.shape[2]
    links = drawing.links if drawing is not None else [(i, i + 1) for i in range(k_pts - 1)]
    pivots = _pivots(pts, drawing)
    carts = drawing.carts if drawing is not None else ()
    # one polyline per member: the links, separated by NaN breaks
    order = [i for a, b in links for i in (a, b, -1)] or list(range(k_pts))
    sel = np.array([max(i, 0) for i in order])
    gap = np.array([i < 0 for i in order])
    span = max(x1 - x0, y1 - y0)
    for i in pivots:  # fixed points: a pivot marker (taken from the first frame)
        ax.plot(pts[0, 0, i, 0], pts[0, 0, i, 1], marker="^", ms=11, color="0.25", zorder=3)
    if carts:
        ax.axhline(float(pts[0, 0, carts[0], 1]), color="0.6", lw=1, zorder=0)  # the rail
    from matplotlib.patches import Rectangle

    boxes: list[list[Any]] = []
    w, hgt = 0.12 * span, 0.06 * span
    rods, trails = [], []
    for m in range(pts.shape[0]):
        color = f"C{m % 10}"
        (trl,) = ax.plot([], [], lw=0.8, color=color, alpha=0.6)
        (rod,) = ax.plot([], [], "-o", lw=2, ms=5, color=color)
        rods.append(rod)
        trails.append(trl)
        boxes.append(
            [ax.add_patch(Rectangle((0, 0), w, hgt, fc="none", ec=color, lw=2)) for _ in carts]
        )
    clock = ax.text(0.02, 0.95, "", transform=ax.transAxes, fontsize="small", va="top")
    dt = float(np.median(np.diff(t))) if t.shape[0] > 1 else 1.0
    tail = max(round(trail / dt), 0) if trail > 0 else 0
    try:
        with atomic_path(out, force=force) as tmp, writer.saving(fig, str(tmp), dpi):
            for k in idx:
                for m in range(pts.shape[0]):
                    xy = pts[m, k, sel, :].copy()
                    xy[gap] = np.nan
                    rods[m].set_data(xy[:, 0], xy[:, 1])
                    for box, i in zip(boxes[m], carts):
                        box.set_xy((pts[m, k, i, 0] - w / 2, pts[m, k, i, 1] - hgt / 2))
                    if tail:
                        lo = max(0, k - tail)
                        trails[m].set_data(pts[m, lo : k + 1, -1, 0], pts[m, lo : k + 1, -1, 1])
                clock.set_text(f"t = {t[k]:.2f}")
                writer.grab_frame()
    except subprocess.CalledProcessError as exc:  # ffmpeg failed (a full disk, ...)
        raise LagdynError(f"cannot write {str(out)!r}: ffmpeg failed ({exc})") from exc
    return out


# --------------------------------------------------------------------------- chaos
def plot_chaos(
    model: Any = None,
    x0: Any = None,
    *,
    delta: float = 1e-8,
    t: float = 20.0,
    dt: float = 0.01,
    method: str = "rk4",
    substeps: int = 1,
) -> Any:
    r"""Sensitivity to initial conditions: two states ``delta`` apart, their distance in time.

    Simulates ``x0`` and ``x0 + delta·e_1`` together (one batch) and plots
    ``‖x_a(t) − x_b(t)‖`` on a log scale with a fitted exponential growth rate (an estimate
    of the largest Lyapunov exponent, fitted while the distance is below 10⁻²), and the
    first angle of both runs.

    Parameters
    ----------
    model : LagrangianSystem or numeric model, optional
        Default: the double pendulum of the zoo.
    x0 : array_like, shape (2n,), optional
        Default: both angles released from rest at 2.0 and 2.4 rad (far into the chaotic
        regime) for the double pendulum, zeros otherwise.
    delta : float
        Initial separation, added to the first angle.
    t, dt, method, substeps
        Passed to :func:`lagdyn.simulate` (``t`` is the final time).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels; ``fig.lyapunov`` holds the fitted growth rate (or NaN).

    Examples
    --------
    >>> from lagdyn.plot import plot_chaos
    >>> fig = plot_chaos(t=2.0, dt=0.02)
    >>> fig.axes[0].get_yscale(), bool(fig.lyapunov > 0)
    ('log', True)
    """
    from .simulation.api import simulate

    if model is None:
        from .zoo import double_pendulum

        model = double_pendulum()
    n = int(model.n)
    if x0 is None:
        base = np.zeros(2 * n)
        base[:n] = np.linspace(2.0, 2.4, n) if n > 1 else 2.0
    else:
        base = np.asarray(x0, dtype=float)
    pair = np.stack([base, base.copy()])
    pair[1, 0] += delta
    res = simulate(model, pair, float(t), dt=dt, method=method, substeps=substeps)
    dist = np.linalg.norm(res.x[1] - res.x[0], axis=-1)
    dist = np.maximum(dist, np.finfo(float).tiny)
    fit_mask = (dist < 1e-2) & (res.t > 0)
    rate = float("nan")
    if fit_mask.sum() >= 5:
        rate = float(np.polyfit(res.t[fit_mask], np.log(dist[fit_mask]), 1)[0])
    fig = _figure((7, 5), layout="constrained")
    ax_d, ax_q = fig.subplots(2, 1, sharex=True)
    ax_d.semilogy(res.t, dist, color="C0", lw=1.2, label="‖x_a(t) − x_b(t)‖ (state space)")
    if np.isfinite(rate):
        tt = res.t[fit_mask]
        c = np.polyfit(res.t[fit_mask], np.log(dist[fit_mask]), 1)[1]
        ax_d.semilogy(
            tt, np.exp(c + rate * tt), "k--", lw=1, label=f"fit: growth rate λ ≈ {rate:.2f} / s"
        )
    ax_d.set_ylabel("distance in state space")
    ax_d.set_title(f"two initial states {delta:g} apart")
    ax_d.grid(alpha=0.3, which="both")
    ax_d.legend(fontsize="small")
    name = res.names[0] if res.names else "q0"
    ax_q.plot(res.t, res.q[0, :, 0], color="C1", lw=1, label=f"{name}: run a, from x0")
    ax_q.plot(
        res.t, res.q[1, :, 0], color="C2", lw=1, ls="--", label=f"{name}: run b, {name} + {delta:g}"
    )
    ax_q.set_xlabel("t [s]")
    ax_q.set_ylabel(name)
    ax_q.grid(alpha=0.3)
    ax_q.legend(fontsize="small")
    fig.lyapunov = rate
    fig.result = res
    return fig
