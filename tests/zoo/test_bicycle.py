"""The Whipple bicycle against the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (2007).

Three independent references: the published numbers (M, C1, K0, K2 of §5 / Table 2, the
eigenvalues of Table 2 at v = 0..10 m/s, the weave and capsize speeds), sympy's own
KanesMethod bicycle (the reference A matrix of sympy/physics/mechanics/tests/test_kane3.py),
and the closed-form expressions of the paper's Appendix A written out below from the
benchmark parameters alone (a hand derivation, independent of the model), at the benchmark
point and at perturbed parameter sets. The model is built once per module (the derivation is
cached per process; other parameter values reuse it).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.errors import LagdynError
from lagdyn.zoo.bicycle import BENCHMARK_PARAMETERS, WhippleBicycle, whipple_bicycle

# MPRS §5 (the numerical benchmark values) — also in the issue and sympy's test_kane3.py
PUBLISHED = {
    "M": [[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]],
    "C1": [[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]],
    "K0": [[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]],
    "K2": [[0.0, 76.59734589573222], [0.0, 2.65431523794604]],
}
WEAVE, CAPSIZE = 4.29238253634111, 6.02426201538837  # MPRS Table 2 (a)

# MPRS Table 2 (b), (c): the eigenvalues at v = 0, 1, ..., 10 m/s
TABLE_2 = {
    0: [-5.53094371765393, -3.13164324790656, 3.13164324790656, 5.53094371765393],
    1: [-3.13423125066578, 3.52696170990070 + 0.80774027519930j, -7.11008014637442],
    2: [-3.07158645641514, 2.68234517512745 + 1.68066296590675j, -8.67387984831735],
    3: [-2.63366137253667, 1.70675605663975 + 2.31582447384325j, -10.35101467245920],
    4: [-1.42944427361326, 0.41325331521125 + 3.07910818603206j, -12.15861426576450],
    5: [-0.32286642900409, -0.77534188219585 + 4.46486771378823j, -14.07838969279820],
    6: [-0.00406690076970, -1.52644486584142 + 5.87673060598709j, -16.08537123098030],
    7: [0.10268170574766, -2.13875644258362 + 7.19525913329805j, -18.15788466125262],
    8: [0.14327879765713, -2.69348683581097 + 8.46037971396931j, -20.27940894394569],
    9: [0.15790184030917, -3.21675402252485 + 9.69377351531791j, -22.43788559040858],
    10: [0.16105338653172, -3.72016840437287 + 10.90681139476287j, -24.62459635017404],
}


def _spectrum(values: list[complex]) -> np.ndarray:
    """The full spectrum (complex pairs completed), sorted like WhippleBicycle.eigenvalues."""
    out = []
    for e in values:
        out.append(complex(e))
        if complex(e).imag:
            out.append(complex(e).conjugate())
    ev = np.array(out)
    return ev[np.lexsort((ev.imag, ev.real))]


# ---------------------------------------------------------------------- Appendix A
def appendix_a(p: dict[str, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """M, C1, K0, K2 from the closed forms of MPRS Appendix A (written from the paper)."""
    w, c, lam = p["w"], p["c"], p["lam"]
    rR, mR, IRxx, IRyy = p["r_R"], p["m_R"], p["I_Rxx"], p["I_Ryy"]
    xB, zB, mB = p["x_B"], p["z_B"], p["m_B"]
    IBxx, IBzz, IBxz = p["I_Bxx"], p["I_Bzz"], p["I_Bxz"]
    xH, zH, mH = p["x_H"], p["z_H"], p["m_H"]
    IHxx, IHzz, IHxz = p["I_Hxx"], p["I_Hzz"], p["I_Hxz"]
    rF, mF, IFxx, IFyy = p["r_F"], p["m_F"], p["I_Fxx"], p["I_Fyy"]
    IRzz, IFzz = IRxx, IFxx
    sl, cl = math.sin(lam), math.cos(lam)
    # the whole bicycle (A1-A5)
    mT = mR + mB + mH + mF
    xT = (xB * mB + xH * mH + w * mF) / mT
    zT = (-rR * mR + zB * mB + zH * mH - rF * mF) / mT
    ITxx = IRxx + IBxx + IHxx + IFxx + mR * rR**2 + mB * zB**2 + mH * zH**2 + mF * rF**2
    ITxz = IBxz + IHxz - mB * xB * zB - mH * xH * zH + mF * w * rF
    ITzz = IRzz + IBzz + IHzz + IFzz + mB * xB**2 + mH * xH**2 + mF * w**2
    # the front assembly (A6-A10)
    mA = mH + mF
    xA = (xH * mH + w * mF) / mA
    zA = (zH * mH - rF * mF) / mA
    IAxx = IHxx + IFxx + mH * (zH - zA) ** 2 + mF * (rF + zA) ** 2
    IAxz = IHxz - mH * (xH - xA) * (zH - zA) + mF * (w - xA) * (rF + zA)
    IAzz = IHzz + IFzz + mH * (xH - xA) ** 2 + mF * (w - xA) ** 2
    # about the steer axis (A11-A15)
    uA = (xA - w - c) * cl - zA * sl
    IAll = mA * uA**2 + IAxx * sl**2 + 2 * IAxz * sl * cl + IAzz * cl**2
    IAlx = -mA * uA * zA + IAxx * sl + IAxz * cl
    IAlz = mA * uA * xA + IAxz * sl + IAzz * cl
    mu = c / w * cl
    SR, SF = IRyy / rR, IFyy / rF
    ST = SR + SF
    SA = mA * uA + mu * mT * xT
    M = np.array(
        [[ITxx, IAlx + mu * ITxz], [IAlx + mu * ITxz, IAll + 2 * mu * IAlz + mu**2 * ITzz]]
    )
    K0 = np.array([[mT * zT, -SA], [-SA, -SA * sl]])
    K2 = np.array([[0.0, (ST - mT * zT) / w * cl], [0.0, (SA + SF * sl) / w * cl]])
    C1 = np.array(
        [
            [0.0, mu * ST + SF * cl + ITxz / w * cl - mu * mT * zT],
            [-(mu * ST + SF * cl), IAlz / w * cl + mu * (SA + ITzz / w * cl)],
        ]
    )
    return M, C1, K0, K2


def _perturbed(seed: int) -> dict[str, float]:
    """Every benchmark parameter moved by up to ±15 % (a different bicycle)."""
    rng = np.random.default_rng(seed)
    return {k: v * (1 + rng.uniform(-0.15, 0.15)) for k, v in BENCHMARK_PARAMETERS.items()}


# ---------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def bike() -> WhippleBicycle:
    return ld.zoo.get("whipple_bicycle")


@pytest.fixture(scope="module")
def matrices(bike: WhippleBicycle) -> tuple[np.ndarray, ...]:
    return bike.benchmark_matrices()


# ---------------------------------------------------------------------- the model
def test_the_model_is_a_constrained_system(bike: WhippleBicycle):
    assert isinstance(bike, ld.ConstrainedSystem)
    assert (bike.n, bike.m_holonomic, bike.m_velocity, bike.dof) == (8, 1, 4, 3)
    assert [str(q.func) for q in bike.system.q] == list(bike.coordinates)
    assert {s.name for s in bike.system.parameters} == set(BENCHMARK_PARAMETERS)
    assert bike.system.defaults == {bike.symbols[k]: v for k, v in BENCHMARK_PARAMETERS.items()}
    assert "whipple_bicycle" in ld.zoo.constrained_names()


def test_upright_reference_satisfies_the_constraints(bike: WhippleBicycle):
    """Exactly, for every parameter value: the front wheel touches at φ = θ = δ = 0 and
    straight running at any speed v (ẋ = v, θ̇_R = −v/r_R, θ̇_F = −v/r_F) rolls."""
    q, qd = bike.system.q, bike.system.qd
    upright = {qi: 0 for qi in q}
    assert sp.simplify(bike.constraints[0].xreplace(upright)) == 0
    v = sp.Symbol("v")
    rates = [v, 0, 0, 0, 0, 0, -v / bike.symbols["r_R"], -v / bike.symbols["r_F"]]
    W = bike.constraint_matrix.xreplace(upright)
    assert sp.simplify(W * sp.Matrix(rates)) == sp.zeros(5, 1)
    # and a tilted, steered state is not upright: the constraint is not trivially zero
    tilted = {**upright, q[3]: sp.Rational(1, 5), q[5]: sp.Rational(1, 3)}
    values = {s: sp.Float(bike.values[k]) for k, s in bike.symbols.items()}
    assert abs(float(bike.constraints[0].xreplace(tilted).subs(values))) > 1e-3
    assert qd[6] not in bike.constraints[0].free_symbols


# ---------------------------------------------------------------------- benchmark values
@pytest.mark.parametrize("name", ["M", "C1", "K0", "K2"])
def test_benchmark_matrices_match_the_published_values(matrices, name):
    got = dict(zip(["M", "C1", "K0", "K2"], matrices, strict=True))[name]
    # the published values have 14 digits after the point: agreement far beyond 8 digits
    np.testing.assert_allclose(got, PUBLISHED[name], rtol=1e-11, atol=1e-11)


def test_benchmark_matrices_match_appendix_a(matrices):
    for got, want in zip(matrices, appendix_a(BENCHMARK_PARAMETERS), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11)


def test_appendix_a_reproduces_the_published_values():
    """The hand-written reference itself is right (else the previous test proves nothing)."""
    for got, name in zip(appendix_a(BENCHMARK_PARAMETERS), ["M", "C1", "K0", "K2"], strict=True):
        np.testing.assert_allclose(got, PUBLISHED[name], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_perturbed_bicycles_match_appendix_a(bike, seed):
    """Other bicycles: every parameter moved; the model's linearization and the closed
    forms still agree to rounding."""
    params = _perturbed(seed)
    other = whipple_bicycle(**params)
    assert other.values == params
    assert bike.values == BENCHMARK_PARAMETERS  # the cached base bicycle is untouched
    for got, want in zip(other.benchmark_matrices(), appendix_a(params), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    assert not np.allclose(other.benchmark_matrices()[0], PUBLISHED["M"])


def test_one_parameter_changed_moves_the_matrices_as_appendix_a(bike):
    params = {**BENCHMARK_PARAMETERS, "c": 0.05, "lam": math.pi / 9}
    other = whipple_bicycle(c=0.05, lam=math.pi / 9)
    for got, want in zip(other.benchmark_matrices(), appendix_a(params), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------- linearize(speed=v)
@pytest.mark.parametrize("speed", [0.0, 2.7, 4.6, -3.0])
def test_linearize_is_the_benchmark_form(bike, matrices, speed):
    """A, B at speed v are those of M q̈ + v C1 q̇ + (g K0 + v² K2) q = f — including a
    negative speed (rolling backwards): the split by v and g holds at every speed."""
    M, C1, K0, K2 = matrices
    A, B = bike.linearize(speed=speed)
    Minv = np.linalg.inv(M)
    g = BENCHMARK_PARAMETERS["g"]
    want_A = np.block(
        [
            [np.zeros((2, 2)), np.eye(2)],
            [-Minv @ (g * K0 + speed**2 * K2), -speed * Minv @ C1],
        ]
    )
    want_B = np.vstack([np.zeros((2, 2)), Minv])
    np.testing.assert_allclose(A, want_A, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(B, want_B, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("speed", range(6))
def test_linearize_matches_sympy_kanes_method_reference(bike, speed):
    """The reference A of sympy's test_kane3.py (KanesMethod on the same bicycle, Moore's
    parametrization), rows of the roll and steer accelerations, v = 0..5 m/s."""
    v = float(speed)
    res = np.array(
        [
            [
                9.48977444677355,
                -0.891197738059089 * v**2 - 0.571523173729245,
                -0.105522449805691 * v,
                -0.330515398992311 * v,
            ],
            [
                11.7194768719633,
                -1.97171508499972 * v**2 + 30.9087533932407,
                3.67680523332152 * v,
                -3.08486552743311 * v,
            ],
        ]
    )
    A, _ = bike.linearize(speed=v)
    np.testing.assert_allclose(A[2:], res, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(A[:2], [[0, 0, 1, 0], [0, 0, 0, 1]])


@pytest.mark.slow  # ~5 s of CPU: the generic path differentiates the whole model again
def test_linearize_agrees_with_the_generic_numeric_linearization(bike):
    """Two implementations of the first variation: the bicycle's own (states φ, δ and
    their rates) and lagdyn.nonholonomic.linearize_at on the same ConstrainedSystem
    (independent speeds φ̇, δ̇, θ̇_R; its fifth state, the rear wheel rate, decouples)."""
    from lagdyn.nonholonomic import linearize_at

    v = 5.0
    x, y, psi, phi, theta, delta, th_r, th_f = bike.system.q
    qd = bike.system.qd
    tau = bike.system.tau
    A5, B5 = linearize_at(
        bike,
        [0] * 8,
        [0.0, 0.0, -v / bike.values["r_R"]],
        independent=[qd[3], qd[5], qd[6]],
        ignorable=[x, y, psi, th_r, th_f],
        inputs=[tau[3], tau[5]],
    )
    A, B = bike.linearize(speed=v)
    np.testing.assert_allclose(A5[:4, :4], A, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(B5[:4], B, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(A5[4], 0, atol=1e-9)  # the rear wheel rate: no dynamics


@pytest.mark.parametrize("speed", sorted(TABLE_2))
def test_eigenvalues_match_table_2(bike, speed):
    got = bike.eigenvalues(float(speed))
    want = _spectrum(TABLE_2[speed])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)


def test_weave_and_capsize_speeds(bike):
    weave, capsize = bike.stability_speeds()
    assert weave == pytest.approx(WEAVE, abs=1e-9)  # 4.292382536..., 10 significant digits
    assert capsize == pytest.approx(CAPSIZE, abs=1e-9)  # 6.024262015...
    # at the weave speed the weave pair is on the imaginary axis (Table 2 (a): 3.43503...)
    ev = bike.eigenvalues(weave)
    pair = ev[np.abs(ev.imag) > 1]
    np.testing.assert_allclose(np.abs(pair.imag), 3.43503384866144, atol=1e-9)
    assert np.abs(pair.real).max() < 1e-9
    assert max(bike.eigenvalues(5.0).real) < 0 < max(bike.eigenvalues(7.0).real)


# ---------------------------------------------------------------------- bad input
def test_unknown_parameters_are_named():
    with pytest.raises(LagdynError, match=r"no parameter 'wheelbase'.*its parameters.*w, c, lam"):
        whipple_bicycle(wheelbase=1.1)
    with pytest.raises(LagdynError, match=r"no parameters 'm_b' \(did you mean 'm_B'.*'foo'"):
        whipple_bicycle(m_b=80.0, foo=1.0)
    with pytest.raises(LagdynError, match="no parameter 'trail'"):
        ld.zoo.get("whipple_bicycle", trail=0.1)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"w": "1.02"}, r"w = '1.02' is not a real number"),
        ({"m_B": -85.0}, r"m_B = -85.0 must be positive"),
        ({"r_F": 0}, r"r_F = 0.0 must be positive"),
        ({"c": float("nan")}, r"c = nan is not finite"),
        ({"g": True}, r"g = True is not a real number"),
        ({"lam": 2.0}, r"lam = 2.0 is not a tilt below π/2"),
        ({"I_Bxz": 6.0}, r"inertia tensor of B is not positive definite"),
    ],
)
def test_bad_parameter_values_are_refused(params, message):
    with pytest.raises(LagdynError, match=message):
        whipple_bicycle(**params)


@pytest.mark.parametrize("speed", ["5", float("inf"), float("nan"), None, 1j])
def test_bad_speeds_are_refused(bike, speed):
    with pytest.raises(LagdynError, match="speed must be"):
        bike.linearize(speed=speed)


def test_speed_takes_no_other_options(bike):
    with pytest.raises(LagdynError, match=r"takes no other options, got q0"):
        bike.linearize(speed=1.0, q0=[0] * 8)


def test_linearize_needs_a_speed(bike):
    """Never the general exact reduction, which does not finish on this model (a hang)."""
    with pytest.raises(LagdynError, match=r"pass speed=v in m/s \(got q0\)"):
        bike.linearize(q0=[0] * 8)
    with pytest.raises(LagdynError, match=r"pass speed=v in m/s$"):
        bike.linearize()


def test_a_bicycle_without_a_stable_speed_says_so(bike):
    # negative trail: no self-stability at any speed up to 10 m/s
    with pytest.raises(LagdynError, match=r"no self-stable speed in \[0, 10.0\]"):
        whipple_bicycle(c=-0.08).stability_speeds()
    with pytest.raises(LagdynError, match=r"v_max must be positive, got -1.0"):
        bike.stability_speeds(v_max=-1)


def test_a_stable_range_reaching_v_max_has_an_infinite_capsize_speed(bike):
    weave, capsize = bike.stability_speeds(v_max=5.5)
    assert weave == pytest.approx(WEAVE, abs=1e-9)
    assert capsize == math.inf
