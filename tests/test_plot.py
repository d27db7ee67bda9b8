"""Tests of lagdyn.plot: positions match the zoo kinematics, figures and animations are written."""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.plot import chain_positions, frame_indices, positions_for
from lagdyn.simulation import simulate

pytest.importorskip("matplotlib")
Image = pytest.importorskip("PIL.Image")


@pytest.fixture(autouse=True)
def _agg(monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")


@pytest.fixture(scope="module")
def result():
    return simulate(ld.zoo.double_pendulum(), [1.0, 2.0, 0.0, 0.0], np.linspace(0.0, 1.0, 101))


def _potential_from_positions(pts, masses, g):
    return g * np.sum(np.asarray(masses) * pts[..., 1:, 1], axis=-1)


@pytest.mark.parametrize(
    "name, options",
    [
        ("double_pendulum", {}),
        ("double_pendulum", {"coordinates": "relative"}),
        ("double_pendulum_relative", {}),
    ],
)
def test_positions_agree_with_the_model_potential(name, options):
    """U(q) of the zoo model equals Σ m g y computed from positions_for (unit masses)."""
    system = ld.zoo.get(name, **options)
    num = system.lambdify(system.defaults)
    rng = np.random.default_rng(3)
    q = rng.uniform(-3, 3, size=(20, system.n))
    pts = positions_for(name, system)(q)
    g = next(v for k, v in system.defaults.items() if str(k) == "g")
    expected = num.energy(q, np.zeros_like(q))
    np.testing.assert_allclose(
        _potential_from_positions(pts, np.ones(system.n), g), expected, atol=1e-12
    )


def test_n_link_pendulum_positions():
    chains = pytest.importorskip("lagdyn.zoo.chains")
    for coords in ("absolute", "relative"):
        system = chains.n_link_pendulum(3, coordinates=coords)
        num = system.lambdify(system.defaults)
        q = np.random.default_rng(0).uniform(-3, 3, size=(10, 3))
        pts = positions_for("n_link_pendulum", system)(q)
        np.testing.assert_allclose(
            _potential_from_positions(pts, np.ones(3), 9.81),
            num.energy(q, np.zeros_like(q)),
            atol=1e-12,
        )


def test_chain_positions_shapes_and_errors():
    assert chain_positions(np.zeros((4, 5, 3))).shape == (4, 5, 4, 2)
    with pytest.raises(ld.ShapeError):
        chain_positions(1.0)
    with pytest.raises(ld.LagdynError, match="reference"):
        chain_positions([0.0], reference="up")
    with pytest.raises(ld.LagdynError, match="carries no drawing geometry"):
        positions_for("mystery", _FakeSystem())


class _FakeSystem:
    n = 1
    q = ("x(t)",)
    defaults = None


def test_frame_indices():
    t = np.linspace(0.0, 2.0, 201)
    assert len(frame_indices(t, fps=10)) == 21
    assert len(frame_indices(t, fps=10, speed=2.0)) == 11
    assert frame_indices(t, frames=3).tolist() == [0, 100, 200]
    with pytest.raises(ld.LagdynError):
        frame_indices(t, fps=0)


def test_gif_has_expected_frames_and_size(result, tmp_path):
    from lagdyn.plot import animate

    path = animate(
        result,
        positions_for("double_pendulum"),
        tmp_path / "dp.gif",
        fps=20,
        figsize=(3, 2),
        dpi=50,
    )
    with Image.open(path) as im:
        assert im.format == "GIF"
        assert im.size == (150, 100)
        assert im.n_frames == len(frame_indices(result.t, fps=20)) == 21


def test_batched_animation_draws_every_member(tmp_path):
    from lagdyn.plot import animate

    x0 = np.array([[2.0, 2.4, 0.0, 0.0], [2.0 + 1e-3, 2.4, 0.0, 0.0]])
    res = simulate(ld.zoo.double_pendulum(), x0, np.linspace(0, 0.5, 51))
    path = animate(res, positions_for("double_pendulum"), tmp_path / "two.gif", frames=4, dpi=30)
    with Image.open(path) as im:
        assert im.n_frames == 4


def test_mp4(result, tmp_path):
    from lagdyn.plot import animate

    if shutil.which("ffmpeg") is None:
        with pytest.raises(ld.BackendUnavailableError, match="ffmpeg"):
            animate(result, positions_for("double_pendulum"), tmp_path / "dp.mp4", frames=3)
        return
    path = animate(result, positions_for("double_pendulum"), tmp_path / "dp.mp4", frames=3)
    assert path.stat().st_size > 0


def test_bad_suffix_and_bad_positions(result, tmp_path):
    from lagdyn.plot import animate

    with pytest.raises(ld.LagdynError, match="unsupported"):
        animate(result, positions_for("double_pendulum"), tmp_path / "x.avi")
    with pytest.raises(ld.ShapeError, match="positions"):
        animate(result, lambda q: q, tmp_path / "x.gif")


def test_png_figures(result, tmp_path):
    from lagdyn import plot

    figs = {
        "ts": plot.plot_timeseries(result),
        "energy": plot.plot_energy(result, relative=True),
        "phase": plot.plot_phase(result),
        "chain": plot.plot_chain(result, positions_for("double_pendulum")),
    }
    for name, fig in figs.items():
        path = tmp_path / f"{name}.png"
        fig.savefig(path, dpi=50)
        with Image.open(path) as im:
            w, h = fig.get_size_inches() * 50
            assert im.size == (round(w), round(h)), name


def test_plot_into_given_axes(result):
    from matplotlib.figure import Figure

    from lagdyn import plot

    fig = Figure()
    ax = fig.subplots()
    assert plot.plot_energy(result, ax=ax) is fig
    assert plot.plot_phase(result, 0, ax=ax) is fig
    with pytest.raises(ld.LagdynError):
        plot.plot_phase(result, ax=ax)
    with pytest.raises(ld.LagdynError):
        plot.plot_phase(result, 5)


def test_chaos_plot_grows_exponentially():
    from lagdyn.plot import plot_chaos

    fig = plot_chaos(t=5.0, dt=0.01)
    assert fig.axes[0].get_yscale() == "log"
    assert 0.5 < fig.lyapunov < 20
    dist = np.linalg.norm(fig.result.x[1] - fig.result.x[0], axis=-1)
    assert dist[-1] > 1e2 * dist[0]


def test_missing_matplotlib(monkeypatch, result):
    from lagdyn import plot  # loaded before the block: a first import under it stays cached

    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)

    with pytest.raises(ld.BackendUnavailableError, match=r"lagdyn\[plot\]"):
        plot.plot_timeseries(result)


def test_special_geometries_match_the_models():
    rng = np.random.default_rng(5)
    cp = ld.zoo.get("cart_pole")
    q = rng.uniform(-2, 2, size=(10, 2))
    pts = positions_for("cart_pole", cp)(q)
    np.testing.assert_allclose(pts[:, 0, 0], q[:, 0])
    # U = mp g (pole centre height) = mp g y_tip / 2
    u = cp.lambdify(cp.defaults).energy(q, np.zeros_like(q))
    np.testing.assert_allclose(u, 0.1 * 9.81 * pts[:, 1, 1] / 2, atol=1e-12)

    ep = ld.zoo.get("elastic_pendulum")
    q = np.column_stack([rng.uniform(0.5, 1.5, 10), rng.uniform(-2, 2, 10)])
    pts = positions_for("elastic_pendulum", ep)(q)
    u = ep.lambdify(ep.defaults).energy(q, np.zeros_like(q))
    np.testing.assert_allclose(u, 0.5 * 40.0 * (q[:, 0] - 1.0) ** 2 + 9.81 * pts[:, 1, 1])

    (x,) = ld.coordinates("x")
    bare = ld.LagrangianSystem.from_mass_matrix([[1]], 0, [x])  # built by hand: no drawing
    with pytest.raises(ld.LagdynError, match="carries no drawing geometry"):
        positions_for("bare", bare)
