"""No wrong number from an internal name (issue 22, item 4).

The derivation uses plain symbols ``_ldq{i}``, ``_ldv{i}``, ``_lda{i}``, ``_ldu{i}``,
``_ldt``, ... and the trig encoder ``_lagdyn_*``; a user symbol with such a name
was merged with them (a parameter ``_ldq0`` became coordinate 0). The whole ``_ld``
prefix (and ``_lagdyn_``) is refused when a system is built and where names are made.
"""

from __future__ import annotations

import pytest
import sympy as sp

import lagdyn as ld

RESERVED = ["_ldq0", "_ldq1", "_ldv0", "_lda0", "_ldu0", "_ldt", "_ldcasadi_qdd0", "_ldx"]
RESERVED += ["_lagdyn_z0", "_lagdyn_unit_angle"]
MESSAGE = "names starting with _ld are reserved for lagdyn's internal symbols"


def _pendulum_like(p: sp.Symbol) -> tuple[sp.Expr, list[sp.Expr]]:
    x, y = ld.coordinates("x y")
    xd, yd = x.diff(ld.t), y.diff(ld.t)
    return p * xd**2 / 2 + yd**2 / 2 - sp.cos(x) - y**2, [x, y]


@pytest.mark.parametrize("name", RESERVED)
def test_parameter_with_internal_name_is_refused(name: str) -> None:
    L, q = _pendulum_like(sp.Symbol(name, positive=True))
    with pytest.raises(ld.LagdynError, match=MESSAGE) as info:
        ld.LagrangianSystem(L, q)
    assert repr(name) in str(info.value)


def test_ldq0_no_longer_merges_with_coordinate_0() -> None:
    """Before: M[0, 0] became x(t) and the forward dynamics was wrong."""
    L, q = _pendulum_like(sp.Symbol("_ldq0", positive=True))
    with pytest.raises(ld.LagdynError, match="'_ldq0'"):
        ld.LagrangianSystem(L, q)


def test_ldv0_is_refused_not_called_non_quadratic() -> None:
    L, q = _pendulum_like(sp.Symbol("_ldv0", positive=True))
    with pytest.raises(ld.LagdynError, match=MESSAGE) as info:
        ld.LagrangianSystem(L, q)
    assert not isinstance(info.value, ld.NotQuadraticError)


def test_reserved_names_in_forces_defaults_and_coordinates() -> None:
    x, y = ld.coordinates("x y")
    L = x.diff(ld.t) ** 2 / 2 + y.diff(ld.t) ** 2 / 2
    c = sp.Symbol("_ldu1", positive=True)
    with pytest.raises(ld.LagdynError, match="'_ldu1'"):
        ld.LagrangianSystem(L, [x, y], forces=[-c * x.diff(ld.t), 0])
    with pytest.raises(ld.LagdynError, match="'_ldk0'"):
        ld.LagrangianSystem(L, [x, y], defaults={sp.Symbol("_ldk0"): 1.0})
    z = sp.Function("_ldq1")(ld.t)  # a coordinate named like an internal symbol
    with pytest.raises(ld.LagdynError, match="'_ldq1'"):
        ld.LagrangianSystem(L + z.diff(ld.t) ** 2 / 2, [x, y, z])
    with pytest.raises(ld.LagdynError, match="'_ldq1'"):
        ld.LagrangianSystem.from_energies(z.diff(ld.t) ** 2 / 2, z**2, [z])


@pytest.mark.parametrize("name", ["_ldq0", "_ldv3", "_lagdyn_z0", "_ld"])
def test_coordinates_and_parameters_refuse_reserved_names(name: str) -> None:
    with pytest.raises(ld.CoordinateError, match=MESSAGE):
        ld.coordinates(name)
    with pytest.raises(ld.CoordinateError, match=MESSAGE):
        ld.coordinates([name])
    with pytest.raises(ld.LagdynError, match=MESSAGE):
        ld.parameters(f"m {name}")


def test_near_names_are_still_fine() -> None:
    m, ld_ = ld.parameters("m_ldq0 ld_q0")
    (x,) = ld.coordinates("_x")
    sys_ = ld.LagrangianSystem(m * x.diff(ld.t) ** 2 / 2 - ld_ * x**2 / 2, [x])
    assert sys_.M[0, 0] == m


def test_a_lone_surrogate_in_a_name_is_refused_when_the_system_is_built() -> None:
    """The probe: ``sp.Symbol('x\\ud800')`` reached lambdify and the exports and died there
    with a raw UnicodeEncodeError."""
    L, q = _pendulum_like(sp.Symbol("m\ud800", positive=True))
    with pytest.raises(ld.LagdynError, match="not valid Unicode text"):
        ld.LagrangianSystem(L, q)


def test_t_is_the_time_not_a_parameter() -> None:
    """The probe: a parameter made as ``ld.parameters("t")`` (a symbol named t, distinct from
    the time ``ld.t``) was bound per call as the time — forward dynamics 0 instead of −0.4 —
    and raised a raw TypeError elsewhere."""
    with pytest.raises(ld.CoordinateError, match="'t' is the time"):
        ld.parameters("t")
    with pytest.raises(ld.CoordinateError, match="'t' is the time"):
        ld.coordinates("t")
    x = ld.coordinates("x")[0]
    k = sp.Symbol("t", positive=True)
    with pytest.raises(ld.LagdynError, match="symbol named 't' that is not lagdyn's time"):
        ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 - k * x**2 / 2, [x])
    # the time itself stays welcome in forces
    s = ld.LagrangianSystem(x.diff(ld.t) ** 2 / 2 - x**2 / 2, [x], forces=[sp.sin(ld.t)])
    assert s.forces[0] == sp.sin(ld.t)
