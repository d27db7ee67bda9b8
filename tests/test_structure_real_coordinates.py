"""Coordinates are real, and no proof is refuted without a counterexample (issue 21, item 1).

``L = ẋ²/2 − k|x|`` used to give ``g = k(re(x)∂re(x)/∂x + im(x)∂im(x)/∂x) sign(x)/x``,
a ``lambdify`` that failed and ``is_passive() == False`` after "could not decide".
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.cli import main

x, y = ld.coordinates("x y")
xd, yd = ld.velocities([x, y])
k, m = ld.parameters("k m")


def test_abs_differentiates_as_a_real_function() -> None:
    s = ld.LagrangianSystem(xd**2 / 2 - k * sp.Abs(x), [x])
    assert s.g[0] == k * sp.sign(x)
    assert not s.g.has(sp.re, sp.im, sp.Derivative)
    num = s.lambdify({k: 2.0})
    np.testing.assert_allclose(num.g([-0.5]), [-2.0])
    np.testing.assert_allclose(num.forward_dynamics([0.3], [0.0], [0.0]), [-2.0])
    assert s.is_passive() is True
    report = ld.structure.check(s)
    assert report.proved and report.ok


@pytest.mark.parametrize(
    ("V", "dV"),
    [
        (sp.Max(x, 0) * k, k * sp.Heaviside(x)),  # symengine leaves d max/dx unevaluated
        (sp.Abs(x) ** 3, 3 * x * sp.Abs(x)),
        (sp.Piecewise((x**2, x > 0), (0, True)), sp.Piecewise((2 * x, x > 0), (0, True))),
    ],
)
def test_nonsmooth_potentials(V: sp.Expr, dV: sp.Expr) -> None:
    s = ld.LagrangianSystem(xd**2 / 2 - V, [x])
    assert not s.g.has(sp.re, sp.im, sp.Derivative)
    values = np.linspace(-1.5, 1.5, 7) + 0.01
    params = {k: 1.7} if k in s.parameters else {}
    got = s.lambdify(params).g(values[:, None])[:, 0]
    want = [float(dV.subs({k: 1.7, x: v})) for v in values]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_abs_in_the_mass_matrix_general_path() -> None:
    s = ld.LagrangianSystem((1 + sp.Abs(x)) * xd**2 / 2, [x])
    assert s.C[0, 0] == sp.sign(x) * xd / 2
    assert s.is_skew_symmetric() is True and s.is_passive() is True


def test_undecided_is_none_not_false(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """When the zero-test ladder cannot decide, every proof answers None, never False."""
    import lagdyn.trig.identities as identities

    monkeypatch.setattr(identities, "decide_zero", lambda *a, **k: None)
    s = ld.LagrangianSystem((1 + sp.Abs(x)) * xd**2 / 2 - k * sp.Abs(y) + yd**2 / 2, [x, y])
    with caplog.at_level(logging.WARNING, logger="lagdyn"):
        assert ld.structure.is_zero(
            sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1 + sp.Abs(x) - sp.Abs(x)
        ) in (
            True,
            None,
        )
        assert ld.structure.is_symmetric(
            sp.Matrix([[1, sp.Abs(x)], [sp.Abs(x) * 1 + x - x, 1]])
        ) in (True, None)
        assert s.is_skew_symmetric() in (True, None)
        report = ld.structure.check(s)
    assert False not in (report.symmetric, report.skew_symmetric, report.passive)
    assert report.ok
    assert "answering False" not in caplog.text


def test_cli_exit_status_3_when_undecided(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import lagdyn.structure as structure

    monkeypatch.setattr(structure, "is_passive", lambda system: None)
    status = main(["check", "--coordinates", "x", "--lagrangian", "dot(x)**2/2 - 3*Abs(x)"])
    out = capsys.readouterr().out
    assert status == 3 and "FAILED" not in out, out


def test_cli_check_exits_0_for_abs_potential(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--coordinates", "x", "--lagrangian", "dot(x)**2/2 - 3*Abs(x)"]) == 0
    assert "FAILED" not in capsys.readouterr().out
