"""Drawings of the zoo models (lagdyn.geometry): 3-D geometry, bobs on spheres, carts."""

from __future__ import annotations

import numpy as np

import lagdyn as ld
from lagdyn.geometry import drawing_of, project
from lagdyn.plot import positions_for


def test_furuta_is_drawn_from_its_3d_geometry_not_as_a_double_pendulum():
    sys_ = ld.zoo.furuta_pendulum()
    d = {str(k): v for k, v in sys_.defaults.items()}
    th1, th2 = 0.7, 0.4
    arm = np.array([d["L1"] * np.cos(th1), d["L1"] * np.sin(th1), 0.0])
    # pendulum along R2 = Rz(th1) Rx(th2) applied to (0, 0, 2 lc2)
    local = np.array([0.0, -np.sin(th2), np.cos(th2)]) * 2 * d["lc2"]
    rz = np.array([[np.cos(th1), -np.sin(th1), 0], [np.sin(th1), np.cos(th1), 0], [0, 0, 1]])
    tip = arm + rz @ local
    expected = project(np.array([[0.0, 0.0, 0.0], arm, tip]))
    got = positions_for("furuta_pendulum")([th1, th2])
    np.testing.assert_allclose(got, expected, atol=1e-14)
    planar = ld.plot.chain_positions([th1, th2], [1.0, 1.0])
    assert got.shape == planar.shape and not np.allclose(got, planar)


def test_spherical_pendulum_bob_stays_on_the_sphere():
    sys_ = ld.zoo.spherical_pendulum()
    drawing = drawing_of(sys_)
    assert drawing is not None and drawing.dim == 3
    q = np.random.default_rng(1).uniform(-3, 3, size=(20, 2))
    # an orthographic projection never lengthens: |projected| <= l, and the pivot is fixed
    pts = positions_for("spherical_pendulum", sys_)(q)
    assert np.all(np.linalg.norm(pts[:, 1] - pts[:, 0], axis=-1) <= 1.0 + 1e-12)
    np.testing.assert_array_equal(pts[:, 0], 0.0)


def test_every_zoo_model_carries_a_drawing():
    for name in ld.zoo.names():
        system = ld.zoo.get(name)
        assert drawing_of(system) is not None, name
        pts = positions_for(name, system)(np.full(system.n, 0.3))
        assert pts.ndim == 2 and pts.shape[1] == 2 and np.all(np.isfinite(pts)), name


def test_cart_pole_cart_is_a_box_and_has_no_pivot():
    d = drawing_of(ld.zoo.cart_pole())
    assert d.carts == (0,) and d.pivots == ()
