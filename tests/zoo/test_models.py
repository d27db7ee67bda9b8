"""The zoo models built with the kinematic builders (issue 4).

Each model: M equal to the rate Hessian of a hand Lagrangian, exact skew proof, passivity, defaults for every parameter,
and agreement with sympy.physics.mechanics.LagrangesMethod (from a Lagrangian written
by hand from positions and angular velocities) at random states.
"""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from helpers import lagdyn_qdd, lagranges_qdd
from lagdyn.zoo.chains import n_link_pendulum, planar_arm
from lagdyn.zoo.spatial import elastic_pendulum, spherical_pendulum
from lagdyn.zoo.underactuated import acrobot, cart_pole, furuta_pendulum

t = ld.t


def _sq(v: sp.Matrix) -> sp.Expr:
    return (v.T * v)[0, 0]


def _p(system, name):
    return {s.name: s for s in system.parameters}[name]


# ---------------------------------------------------------------- hand Lagrangians
def hand_n_link(system, n, relative):
    q = system.q
    angles = [sum(q[: k + 1]) for k in range(n)] if relative else list(q)
    x = y = 0
    T = U = 0
    g = _p(system, "g")
    for k, th in enumerate(angles, 1):
        x, y = x + _p(system, f"l{k}") * sp.sin(th), y - _p(system, f"l{k}") * sp.cos(th)
        v = sp.Matrix([x, y]).diff(t)
        m = _p(system, f"m{k}")
        T += m * _sq(v) / 2
        U += m * g * y
    return T - U


def hand_planar_arm(system, n):
    q = system.q
    g = _p(system, "g")
    x = y = th = 0
    T = U = 0
    for k in range(1, n + 1):
        th = th + q[k - 1]
        lc, m, inertia = _p(system, f"lc{k}"), _p(system, f"m{k}"), _p(system, f"I{k}")
        c = sp.Matrix([x + lc * sp.cos(th), y + lc * sp.sin(th)])
        T += m * _sq(c.diff(t)) / 2 + inertia * th.diff(t) ** 2 / 2
        U += m * g * c[1]
        if k < n:
            lk = _p(system, f"l{k}")
            x, y = x + lk * sp.cos(th), y + lk * sp.sin(th)
    return T - U


def hand_cart_pole(system):
    x, th = system.q
    mc, mp, ell, Ip, g = (_p(system, s) for s in ("mc", "mp", "l", "Ip", "g"))
    c = sp.Matrix([x + ell * sp.sin(th), ell * sp.cos(th)])
    T = mc * x.diff(t) ** 2 / 2 + mp * _sq(c.diff(t)) / 2 + Ip * th.diff(t) ** 2 / 2
    return T - mp * g * c[1]


def hand_acrobot(system):
    return hand_planar_arm(system, 2)


def hand_furuta(system):
    th1, th2 = system.q
    m1, m2, L1, lc1, lc2, J1, J2, g = (
        _p(system, s) for s in ("m1", "m2", "L1", "lc1", "lc2", "J1", "J2", "g")
    )
    w1, w2 = th1.diff(t), th2.diff(t)
    arm = m1 * lc1**2 * w1**2 / 2 + J1 * w1**2 / 2
    # pendulum COM: (L1 cos th1 - lc2 sin th1 ... ) written from the geometry
    c = sp.Matrix(
        [
            L1 * sp.cos(th1) + lc2 * sp.sin(th1) * sp.sin(th2),
            L1 * sp.sin(th1) - lc2 * sp.cos(th1) * sp.sin(th2),
            lc2 * sp.cos(th2),
        ]
    )
    # body angular velocity of a rod along its z axis: (w2, w1 sin th2, w1 cos th2)
    pend = m2 * _sq(c.diff(t)) / 2 + J2 * (w2**2 + (w1 * sp.sin(th2)) ** 2) / 2
    return arm + pend - m2 * g * c[2]


def hand_spherical(system):
    th, ph = system.q
    m, ell, g = (_p(system, s) for s in ("m", "l", "g"))
    T = m * ell**2 * (th.diff(t) ** 2 + sp.sin(th) ** 2 * ph.diff(t) ** 2) / 2
    return T + m * g * ell * sp.cos(th)


def hand_elastic(system):
    r, th = system.q
    m, k, l0, g = (_p(system, s) for s in ("m", "k", "l0", "g"))
    T = m * (r.diff(t) ** 2 + r**2 * th.diff(t) ** 2) / 2
    return T - k * (r - l0) ** 2 / 2 + m * g * r * sp.cos(th)


MODELS = {  # name: (factory, build, hand-written Lagrangian)
    "n_link_pendulum_3": (
        n_link_pendulum,
        lambda: n_link_pendulum(3),
        lambda s: hand_n_link(s, 3, False),
    ),
    "n_link_pendulum_3_relative": (
        n_link_pendulum,
        lambda: n_link_pendulum(3, coordinates="relative"),
        lambda s: hand_n_link(s, 3, True),
    ),
    "planar_arm_3": (planar_arm, lambda: planar_arm(3), lambda s: hand_planar_arm(s, 3)),
    "cart_pole": (cart_pole, cart_pole, hand_cart_pole),
    "acrobot": (acrobot, acrobot, hand_acrobot),
    "furuta_pendulum": (furuta_pendulum, furuta_pendulum, hand_furuta),
    "spherical_pendulum": (spherical_pendulum, spherical_pendulum, hand_spherical),
    "elastic_pendulum": (elastic_pendulum, elastic_pendulum, hand_elastic),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request):
    _, build, hand = MODELS[request.param]
    system = build()
    return request.param, system, hand(system)


def test_m_is_the_rate_hessian_of_the_hand_lagrangian(model):
    """M = ∂²L/∂q̇² of the Lagrangian written by hand (an independent reference, which also
    checks the symmetry of M: the builders assemble M as JᵀWJ)."""
    _, system, L_hand = model
    qd = system.qd
    for i in range(system.n):
        for j in range(system.n):
            ref = sp.diff(L_hand, qd[i], qd[j])
            assert ld.structure.is_zero(system.M[i, j] - ref), (i, j)


def test_skew_and_passive(model):
    _, system, _ = model
    assert system.is_skew_symmetric()
    assert system.is_passive()


def test_defaults_cover_parameters(model):
    _, system, _ = model
    assert set(system.parameters) <= set(system.defaults)
    assert all(isinstance(v, float) and v > 0 for v in system.defaults.values())


def test_docstring(model):
    name = model[0]
    doc = MODELS[name][0].__doc__ or ""
    assert "::" in doc and "Examples" in doc and "Conventions" in doc
    assert "parameters" in doc.lower() and "Defaults" in doc


def test_matches_lagranges_method(model):
    name, system, L_hand = model
    rng = random.Random(zlib.crc32(name.encode()))  # stable across runs (hash() is salted)
    params = {s: sp.Float(v * rng.uniform(0.8, 1.25)) for s, v in system.defaults.items()}
    for _ in range(2):
        q0 = [rng.uniform(0.3, 1.2) for _ in range(system.n)]
        qd0 = [rng.uniform(-1.0, 1.0) for _ in range(system.n)]
        tau = [rng.uniform(-1.0, 1.0) for _ in range(system.n)]
        ours = lagdyn_qdd(system, q0, qd0, params, tau)
        ref = lagranges_qdd(L_hand, system.q, None, q0, qd0, params, tau)
        err = np.max(np.abs(ours - ref)) / max(1.0, np.max(np.abs(ref)))
        assert err <= 1e-10, (name, ours, ref)


# ---------------------------------------------------------------- exact identities
def _same(a: sp.MatrixBase, b: sp.MatrixBase) -> bool:
    return all(ld.structure.is_zero(x - y) for x, y in zip(a, b))


def test_two_link_pendulum_is_the_double_pendulum():
    dp = ld.zoo.double_pendulum()
    nl = n_link_pendulum(2)
    sub = dict(zip(nl.q, dp.q))
    for attr in ("M", "C", "g"):
        ours = getattr(nl, attr).xreplace({**dict(zip(nl.qd, dp.qd)), **sub})
        assert all(sp.expand(x) == 0 for x in ours - getattr(dp, attr)), attr


def test_planar_arm_2_is_two_link_planar():
    arm, ref = planar_arm(2), ld.zoo.two_link_planar()
    for attr in ("M", "C", "g"):
        assert all(sp.expand(x) == 0 for x in getattr(arm, attr) - getattr(ref, attr)), attr


def test_acrobot_mass_matrix_is_seed_001_form():
    acro = acrobot()
    q1, q2 = acro.q
    m1, m2, l1, lc1, lc2, I1, I2 = (
        _p(acro, s) for s in ("m1", "m2", "l1", "lc1", "lc2", "I1", "I2")
    )
    alpha = I1 + I2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2)
    beta, delta = m2 * l1 * lc2, I2 + m2 * lc2**2
    M = sp.Matrix(
        [
            [alpha + 2 * beta * sp.cos(q2), delta + beta * sp.cos(q2)],
            [delta + beta * sp.cos(q2), delta],
        ]
    )
    assert _same(acro.M, M)


def test_furuta_mass_matrix_formula():
    fp = furuta_pendulum()
    th1, th2 = fp.q
    m1, m2, L1, lc1, lc2, J1, J2 = (_p(fp, s) for s in ("m1", "m2", "L1", "lc1", "lc2", "J1", "J2"))
    M = sp.Matrix(
        [
            [
                J1 + m1 * lc1**2 + m2 * L1**2 + (J2 + m2 * lc2**2) * sp.sin(th2) ** 2,
                -m2 * L1 * lc2 * sp.cos(th2),
            ],
            [-m2 * L1 * lc2 * sp.cos(th2), J2 + m2 * lc2**2],
        ]
    )
    assert _same(fp.M, M)


def test_relative_n_link_by_change_of_coordinates():
    from lagdyn.coordchange import change_coordinates

    ab = n_link_pendulum(3)
    rel = n_link_pendulum(3, coordinates="relative")
    phi = rel.q
    mapping = {ab.q[k]: sum(phi[: k + 1]) for k in range(3)}
    changed = change_coordinates(ab, phi, mapping)
    for attr in ("M", "C", "g"):
        assert all(sp.expand(x) == 0 for x in getattr(changed, attr) - getattr(rel, attr)), attr


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_bad_link_counts(bad):
    with pytest.raises(ld.LagdynError):
        n_link_pendulum(bad)
    with pytest.raises(ld.LagdynError):
        planar_arm(bad)


def test_bad_coordinates_option():
    with pytest.raises(ld.LagdynError, match="absolute"):
        n_link_pendulum(2, coordinates="cartesian")


def test_one_link_models():
    assert n_link_pendulum(1).M[0, 0] == _p(n_link_pendulum(1), "l1") ** 2 * _p(
        n_link_pendulum(1), "m1"
    )
    assert planar_arm(1).n == 1
