"""FMU export (lagdyn.export.fmu), checked by FMPy: validation, Model Exchange against a tight
``ld.simulate``, Co-Simulation against the same fixed-step method, inputs, parameters, several
instances in one process, and bad input.

Each unit is compiled once (module-scoped fixtures); the test file stays within ~30 s.
"""

from __future__ import annotations

import shutil
import types
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.errors import LagdynError
from lagdyn.export import fmu as fmu_mod
from lagdyn.export.fmu import export_fmu

fmpy = pytest.importorskip("fmpy", reason="FMPy (the test extra) checks the FMUs")
from fmpy.validation import validate_fmu  # noqa: E402

needs_cc = pytest.mark.skipif(
    fmu_mod.find_compiler() is None, reason="no C compiler (cc/gcc/clang) to build FMU binaries"
)

T_END = 1.0
DT = 0.01  # communication / output interval
X0_DP = {"q.a": 0.5, "q.b": -0.3, "qd.a": 0.1, "qd.b": 0.0}
X0_CP = {"q.x": 0.1, "q.theta": 0.4, "qd.x": 0.0, "qd.theta": 0.0}


def _dp_x0() -> np.ndarray:
    return np.array([0.5, -0.3, 0.1, 0.0])


def _cp_x0() -> np.ndarray:
    return np.array([0.1, 0.4, 0.0, 0.0])


@pytest.fixture(scope="module")
def units(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if fmu_mod.find_compiler() is None:
        pytest.skip("no C compiler (cc/gcc/clang) to build FMU binaries")
    d = tmp_path_factory.mktemp("fmus")
    dp, cp = ld.zoo.double_pendulum(), ld.zoo.cart_pole()
    return {
        "dp3": export_fmu(dp, d / "v3", name="dp"),
        "cp3": export_fmu(cp, d / "v3", name="cp", inputs=["x"]),
        "dp3mid": export_fmu(dp, d / "mid", name="dp", step="midpoint", step_size=2e-3),
        "dp2": export_fmu(dp, d / "v2", name="dp", fmi=2),
        "cp2": export_fmu(cp, d / "v2", name="cp", fmi=2, inputs=["x"]),
    }


def _grid() -> np.ndarray:
    return np.linspace(0.0, T_END, round(T_END / DT) + 1)


def _columns(result: Any, names: list[str]) -> np.ndarray:
    return np.column_stack([result[n] for n in names])


def _states(coords: list[str]) -> list[str]:
    return [f"q.{c}" for c in coords] + [f"qd.{c}" for c in coords]


def _simulate(path: Path, fmi_type: str, start: dict[str, float], **kw: Any) -> Any:
    return fmpy.simulate_fmu(
        str(path),
        fmi_type=fmi_type,
        stop_time=T_END,
        output_interval=DT,
        start_values=start,
        relative_tolerance=1e-11,
        **kw,
    )


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


# --- validation ------------------------------------------------------------------------


@needs_cc
@pytest.mark.parametrize("key", ["dp3", "cp3", "dp3mid", "dp2", "cp2"])
def test_fmpy_validates(units: dict[str, Path], key: str) -> None:
    assert validate_fmu(str(units[key])) == []
    md = fmpy.read_model_description(str(units[key]), validate=True)
    assert md.modelExchange is not None and md.coSimulation is not None
    names = [v.name for v in md.modelVariables]
    assert "energy" in names and (names[0] == "time") == (md.fmiVersion == "3.0")


@needs_cc
def test_contents_and_variables(units: dict[str, Path]) -> None:
    archive = zipfile.ZipFile(units["cp3"])
    files = set(archive.namelist())
    assert {
        "modelDescription.xml",
        "sources/buildDescription.xml",
        "sources/cp.c",
        "sources/cp.h",
        "sources/fmi3Functions.h",
        "binaries/x86_64-linux/cp.so",
    } <= files
    md = fmpy.read_model_description(str(units["cp3"]))
    by_name = {v.name: v for v in md.modelVariables}
    # only the actuated coordinate has an input
    assert [v.name for v in md.modelVariables if v.causality == "input"] == ["tau.x"]
    cp = ld.zoo.cart_pole()
    for sym in cp.parameters:
        v = by_name[str(sym)]
        assert (v.causality, v.variability) == ("parameter", "tunable")
        assert float(v.start) == cp.defaults[sym]
    assert by_name["qd.x"].derivative is None and by_name["der(q.x)"].derivative.name == "q.x"
    assert by_name["qdd.theta"].derivative.name == "qd.theta"


# --- simulation against lagdyn ---------------------------------------------------------


@needs_cc
@pytest.mark.parametrize("v", [3, 2])
def test_model_exchange_matches_simulate(units: dict[str, Path], v: int) -> None:
    dp = ld.zoo.double_pendulum()
    ref = ld.simulate(dp, _dp_x0(), _grid(), method="scipy-DOP853", rtol=1e-13, atol=1e-13)
    res = _simulate(units[f"dp{v}"], "ModelExchange", X0_DP, output=_states(["a", "b"]))
    assert np.allclose(res["time"], ref.t, rtol=0, atol=1e-12)
    assert _rel(_columns(res, _states(["a", "b"])), ref.x) < 1e-6


@needs_cc
@pytest.mark.parametrize("v", [3, 2])
def test_co_simulation_matches_rk4(units: dict[str, Path], v: int) -> None:
    dp = ld.zoo.double_pendulum()
    # the FMU's internal step is 1e-3: ten RK4 steps per communication step of 0.01
    ref = ld.simulate(dp, _dp_x0(), _grid(), method="rk4", substeps=10)
    res = _simulate(units[f"dp{v}"], "CoSimulation", X0_DP, output=[*_states(["a", "b"]), "energy"])
    assert _rel(_columns(res, _states(["a", "b"])), ref.x) < 1e-12
    assert np.abs(res["energy"] - ref.energy).max() < 1e-12 * np.abs(ref.energy).max()


@needs_cc
def test_co_simulation_midpoint_matches_simulate(units: dict[str, Path]) -> None:
    dp = ld.zoo.double_pendulum()
    ref = ld.simulate(dp, _dp_x0(), _grid(), method="midpoint", substeps=5)
    res = _simulate(units["dp3mid"], "CoSimulation", X0_DP, output=_states(["a", "b"]))
    # the same Newton iteration on the same generated Jacobian, to a change of 1e-12
    assert "sources/dp_nt.c" in zipfile.ZipFile(units["dp3mid"]).namelist()
    assert _rel(_columns(res, _states(["a", "b"])), ref.x) < 1e-12


@needs_cc
def test_co_simulation_midpoint_finite_difference_jacobian(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # without a generated Jacobian (robot chains on the recursive route) the unit's Newton
    # iteration uses finite differences: the same implicit step, solved to the tolerance
    monkeypatch.setattr(fmu_mod, "_newton_sources", lambda *a: {})
    dp = ld.zoo.double_pendulum()
    path = export_fmu(dp, tmp_path, name="dp", step="midpoint", step_size=2e-3)
    assert "sources/dp_nt.c" not in zipfile.ZipFile(path).namelist()
    ref = ld.simulate(dp, _dp_x0(), _grid(), method="midpoint", substeps=5)
    res = _simulate(path, "CoSimulation", X0_DP, output=_states(["a", "b"]))
    assert _rel(_columns(res, _states(["a", "b"])), ref.x) < 1e-9


def _step_input(t_switch: float, value: float) -> np.ndarray:
    return np.array(
        [(0.0, 0.0), (t_switch, 0.0), (t_switch, value), (T_END, value)],
        dtype=[("time", np.float64), ("tau.x", np.float64)],
    )


def _cart_pole_reference(method: str, **kw: Any) -> np.ndarray:
    """ld.simulate of the cart-pole with τ_x = 0 until 0.5, then 2 (two runs)."""
    cp = ld.zoo.cart_pole()
    grid = _grid()
    k = int(np.argmin(np.abs(grid - 0.5)))
    first = ld.simulate(cp, _cp_x0(), grid[: k + 1], method=method, **kw)
    second = ld.simulate(cp, first.x[-1], grid[k:], method=method, tau=[2.0, 0.0], **kw)
    return np.vstack([first.x, second.x[1:]])


@needs_cc
@pytest.mark.parametrize("v", [3, 2])
def test_cart_pole_torque_input_model_exchange(units: dict[str, Path], v: int) -> None:
    ref = _cart_pole_reference("scipy-DOP853", rtol=1e-13, atol=1e-13)
    res = _simulate(
        units[f"cp{v}"],
        "ModelExchange",
        X0_CP,
        input=_step_input(0.5, 2.0),
        output=_states(["x", "theta"]),
        record_events=False,
    )
    assert res.shape[0] == ref.shape[0]
    assert _rel(_columns(res, _states(["x", "theta"])), ref) < 1e-6
    # the input acted: without it the trajectory differs
    free = _simulate(units[f"cp{v}"], "ModelExchange", X0_CP, output=_states(["x", "theta"]))
    assert _rel(_columns(free, _states(["x", "theta"])), ref) > 1e-3


@needs_cc
@pytest.mark.parametrize("v", [3, 2])
def test_cart_pole_torque_input_co_simulation(units: dict[str, Path], v: int) -> None:
    ref = _cart_pole_reference("rk4", substeps=10)
    res = _simulate(
        units[f"cp{v}"],
        "CoSimulation",
        X0_CP,
        input=_step_input(0.5, 2.0),
        output=_states(["x", "theta"]),
    )
    assert _rel(_columns(res, _states(["x", "theta"])), ref) < 1e-12


@needs_cc
@pytest.mark.parametrize("v", [3, 2])
def test_changed_parameter_changes_trajectory_as_predicted(units: dict[str, Path], v: int) -> None:
    dp = ld.zoo.double_pendulum()
    ref = ld.simulate(dp, _dp_x0(), _grid(), method="rk4", substeps=10, params={"l2": 2.0})
    res = _simulate(
        units[f"dp{v}"], "CoSimulation", {**X0_DP, "l2": 2.0}, output=_states(["a", "b"])
    )
    got = _columns(res, _states(["a", "b"]))
    assert _rel(got, ref.x) < 1e-12
    default = ld.simulate(dp, _dp_x0(), _grid(), method="rk4", substeps=10)
    assert _rel(got, default.x) > 1e-2


# --- a robot from its URDF (recursive route) and the glue's Cholesky solve (n > 8) ------

UR5_X0 = np.array([0.1, -0.5, 0.8, 0.2, -0.3, 0.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
UR5_STATES = [f"q.q{i}" for i in range(1, 7)] + [f"qd.q{i}" for i in range(1, 7)]


@pytest.fixture(scope="module")
def ur5_unit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if fmu_mod.find_compiler() is None:
        pytest.skip("no C compiler (cc/gcc/clang) to build FMU binaries")
    ur5 = ld.zoo.ur5()  # built from its URDF (lagdyn.zoo.UR5_URDF)
    return export_fmu(ur5, tmp_path_factory.mktemp("ur5"), name="ur5")


@needs_cc
def test_ur5_from_urdf_recursive_route(ur5_unit: Path) -> None:
    assert validate_fmu(str(ur5_unit)) == []
    source = zipfile.ZipFile(ur5_unit).read("sources/ur5.c").decode()
    assert "ur5_forward_dynamics" in source
    md = fmpy.read_model_description(str(ur5_unit))
    by_name = {v.name: v for v in md.modelVariables}
    assert by_name["q.q1"].description == "generalized coordinate q1 (joint shoulder_pan_joint)"
    ur5 = ld.zoo.ur5()
    grid = np.linspace(0.0, 0.3, 31)
    start = dict(zip(UR5_STATES, UR5_X0))
    kw = {"stop_time": 0.3, "output_interval": DT, "start_values": start, "output": UR5_STATES}
    cs = fmpy.simulate_fmu(str(ur5_unit), fmi_type="CoSimulation", **kw)
    ref = ld.simulate(ur5, UR5_X0, grid, method="rk4", substeps=10)
    assert _rel(_columns(cs, UR5_STATES), ref.x) < 1e-12
    me = fmpy.simulate_fmu(str(ur5_unit), fmi_type="ModelExchange", relative_tolerance=1e-11, **kw)
    # RK4 at 1 ms is itself a tight reference here (its error is below 1e-9)
    assert _rel(_columns(me, UR5_STATES), ref.x) < 1e-6


@needs_cc
def test_cholesky_glue_when_forward_dynamics_is_not_generated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # above n = 8 the C export has no forward_dynamics and the glue solves M q̈ = τ − h by
    # Cholesky: forced here on the double pendulum (a 9-DOF closed form takes minutes)
    monkeypatch.setattr(fmu_mod, "_MAX_GENERATED_FD", 1)
    path = export_fmu(ld.zoo.double_pendulum(), tmp_path, name="dp")
    header = zipfile.ZipFile(path).read("sources/lagdyn_fmu_model.h").decode()
    assert "LD_FN_FD" not in header
    ref = ld.simulate(ld.zoo.double_pendulum(), _dp_x0(), _grid(), method="rk4", substeps=10)
    res = _simulate(path, "CoSimulation", X0_DP, output=_states(["a", "b"]))
    assert _rel(_columns(res, _states(["a", "b"])), ref.x) < 1e-12


# --- a constrained mechanism: a Baumgarte-stabilised ODE, multipliers and residuals ------


def _cartesian_pendulum() -> Any:
    """A point mass in (x, y) on a rod of length l: Φ = x² + y² − l² (l only in Φ)."""
    import sympy as sp

    x, y = sp.symbols("x y", cls=sp.Function)
    t = sp.Symbol("t")
    m, g, l = sp.symbols("m g l", positive=True)
    q = [x(t), y(t)]
    L = m * (q[0].diff(t) ** 2 + q[1].diff(t) ** 2) / 2 - m * g * q[1]
    free = ld.LagrangianSystem(L, q, defaults={m: 1.0, g: 9.81})
    return ld.ConstrainedSystem(free, [q[0] ** 2 + q[1] ** 2 - l**2])


CP_X0 = np.array([np.sin(0.5), -np.cos(0.5), 0.0, 0.0])
CART = ["q.x", "q.y", "qd.x", "qd.y"]


@pytest.fixture(scope="module")
def constrained_unit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if fmu_mod.find_compiler() is None:
        pytest.skip("no C compiler (cc/gcc/clang) to build FMU binaries")
    d = tmp_path_factory.mktemp("constrained")
    # internal step 5 ms: lagdyn's constrained RK4 (the reference) is slow at 1 ms
    cs = _cartesian_pendulum()
    return export_fmu(cs, d, name="rod", params={"l": 1.0}, baumgarte=(5, 5), step_size=5e-3)


@needs_cc
def test_constrained_mechanism_matches_constrained_simulate(constrained_unit: Path) -> None:
    assert validate_fmu(str(constrained_unit)) == []
    md = fmpy.read_model_description(str(constrained_unit))
    by_name = {v.name: v for v in md.modelVariables}
    assert by_name["baumgarte_alpha"].causality == "parameter"
    assert float(by_name["l"].start) == 1.0
    assert (by_name["lambda.1"].causality, by_name["phi.1"].causality) == ("output", "output")
    cs = _cartesian_pendulum()
    start = dict(zip(CART, CP_X0))
    kw = {"stop_time": T_END, "output_interval": DT, "start_values": start}
    res = fmpy.simulate_fmu(
        str(constrained_unit), fmi_type="CoSimulation", output=[*CART, "lambda.1", "phi.1"], **kw
    )
    ref = cs.simulate(CP_X0, _grid(), method="rk4", substeps=2, baumgarte=(5, 5), params={"l": 1})
    assert _rel(_columns(res, CART), ref.x) < 1e-12
    assert np.abs(res["lambda.1"] - ref.lam[:, 0]).max() < 1e-10 * np.abs(ref.lam).max()
    assert np.abs(res["phi.1"] - ref.phi[:, 0]).max() < 1e-12
    me = fmpy.simulate_fmu(
        str(constrained_unit), fmi_type="ModelExchange", output=CART, relative_tolerance=1e-11, **kw
    )
    # RK4 at 5 ms is a tight enough reference here (its error is about 1e-8)
    assert _rel(_columns(me, CART), ref.x) < 1e-6


def test_binary_platform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import platform

    monkeypatch.setattr(fmu_mod.sys, "platform", "linux")
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    assert fmu_mod.binary_platform(3) == ("x86_64-linux", ".so")
    assert fmu_mod.binary_platform(2) == ("linux64", ".so")
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    assert fmu_mod.binary_platform(3) == ("aarch64-linux", ".so")
    # FMI 2.0 names no ARM platform: refused before compiling, naming the way out
    with pytest.raises(LagdynError, match=r"no FMI 2.0 binary .*sources_only.* or export FMI 3.0"):
        export_fmu(ld.zoo.double_pendulum(), tmp_path, name="dp", fmi=2)
    monkeypatch.setattr(fmu_mod.sys, "platform", "win32")
    monkeypatch.setattr(platform, "machine", lambda: "AMD64")
    with pytest.raises(LagdynError, match=r"no FMI 3.0 binary for this platform \(win32"):
        export_fmu(ld.zoo.double_pendulum(), tmp_path, name="dp")
    assert list(tmp_path.iterdir()) == []
    export_fmu(ld.zoo.double_pendulum(), tmp_path, name="dp", sources_only=True)  # no binary


def test_constrained_export_options(tmp_path: Path) -> None:
    cs = _cartesian_pendulum()
    with pytest.raises(LagdynError, match="step='rk4' only"):
        export_fmu(cs, tmp_path, name="rod", params={"l": 1}, step="midpoint", sources_only=True)
    with pytest.raises(LagdynError, match="two finite gains"):
        export_fmu(cs, tmp_path, name="rod", params={"l": 1}, baumgarte=(-1, 1), sources_only=True)
    with pytest.raises(LagdynError, match=r"parameter\(s\) l have no default"):
        export_fmu(cs, tmp_path, name="rod", sources_only=True)
    path = export_fmu(cs, tmp_path, name="rod", params={"l": 1}, fmi=2, sources_only=True)
    md = fmpy.read_model_description(str(path), validate=True)
    assert [v.name for v in md.modelVariables][-2:] == ["lambda.1", "phi.1"]


# --- raw FMI calls: partial steps, several instances, bad values ------------------------


def _open3(path: Path, tmp: Path, *, cosim: bool = True, log: list[str] | None = None) -> Any:
    from fmpy.fmi3 import FMU3Model, FMU3Slave

    md = fmpy.read_model_description(str(path))
    unzipped = fmpy.extract(str(path), unzipdir=str(tmp / path.stem / str(id(log))))
    cls = FMU3Slave if cosim else FMU3Model
    unit = cls(
        guid=md.guid,
        unzipDirectory=unzipped,
        modelIdentifier=md.coSimulation.modelIdentifier,
        instanceName=path.stem,
    )

    def logger(env: Any, status: int, category: bytes, message: bytes) -> None:
        if log is not None:
            log.append(message.decode())

    unit.instantiate(logMessage=logger)
    vrs = {v.name: v.valueReference for v in md.modelVariables}
    return unit, vrs


@needs_cc
def test_partial_last_step(units: dict[str, Path], tmp_path: Path) -> None:
    unit, vr = _open3(units["dp3"], tmp_path)
    names = ["q.a", "q.b", "qd.a", "qd.b"]
    unit.enterInitializationMode(startTime=0.0)
    unit.setFloat64([vr[n] for n in names], list(_dp_x0()))
    unit.exitInitializationMode()
    unit.doStep(0.0, 0.0025)  # 2 steps of 1e-3, then one of 5e-4
    got = np.array(unit.getFloat64([vr[n] for n in names]))
    unit.terminate()
    unit.freeInstance()
    grid = np.array([0.0, 0.001, 0.002, 0.0025])
    ref = ld.simulate(ld.zoo.double_pendulum(), _dp_x0(), grid, method="rk4")
    assert np.abs(got - ref.x[-1]).max() < 1e-14
    whole = ld.simulate(ld.zoo.double_pendulum(), _dp_x0(), grid[[0, 2]], method="rk4")
    assert np.abs(got - whole.x[-1]).max() > 1e-9  # the last 5e-4 was taken


@needs_cc
def test_two_models_in_one_process_do_not_interfere(units: dict[str, Path], tmp_path: Path) -> None:
    a, va = _open3(units["dp3"], tmp_path)
    b, vb = _open3(units["cp3"], tmp_path)
    c, vc = _open3(units["dp3"], tmp_path, log=[])  # a second instance of the same binary
    for unit in (a, b, c):
        unit.enterInitializationMode(startTime=0.0)
    a.setFloat64([va["q.a"], va["q.b"], va["qd.a"], va["qd.b"]], list(_dp_x0()))
    b.setFloat64([vb["q.x"], vb["q.theta"], vb["qd.x"], vb["qd.theta"]], list(_cp_x0()))
    c.setFloat64([vc["q.a"], vc["l2"]], [1.0, 2.0])
    for unit in (a, b, c):
        unit.exitInitializationMode()
    t = 0.0
    for _ in range(100):  # interleaved
        for unit in (a, b, c):
            unit.doStep(t, DT)
        t += DT
    xa = np.array(a.getFloat64([va["q.a"], va["q.b"], va["qd.a"], va["qd.b"]]))
    xb = np.array(b.getFloat64([vb["q.x"], vb["q.theta"], vb["qd.x"], vb["qd.theta"]]))
    xc = np.array(c.getFloat64([vc["q.a"], vc["q.b"], vc["qd.a"], vc["qd.b"]]))
    for unit in (a, b, c):
        unit.terminate()
        unit.freeInstance()
    dp, cp = ld.zoo.double_pendulum(), ld.zoo.cart_pole()
    ra = ld.simulate(dp, _dp_x0(), _grid(), method="rk4", substeps=10).x[-1]
    rb = ld.simulate(cp, _cp_x0(), _grid(), method="rk4", substeps=10).x[-1]
    rc = ld.simulate(dp, [1.0, 0, 0, 0], _grid(), method="rk4", substeps=10, params={"l2": 2.0})
    assert np.abs(xa - ra).max() < 1e-12
    assert np.abs(xb - rb).max() < 1e-12
    assert np.abs(xc - rc.x[-1]).max() < 1e-12


@needs_cc
@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("m1", float("nan"), "parameter m1"),
        ("l2", -1.0, "parameter l2 must be positive"),
        ("q.a", float("inf"), "variable q.a"),
        ("tau.b", float("nan"), "variable tau.b"),
    ],
)
def test_bad_value_is_an_error_status_with_a_message(
    units: dict[str, Path], tmp_path: Path, variable: str, value: float, message: str
) -> None:
    from fmpy.fmi1 import FMICallException

    log: list[str] = []
    unit, vr = _open3(units["dp3"], tmp_path, log=log)
    unit.enterInitializationMode(startTime=0.0)
    with pytest.raises(FMICallException):
        unit.setFloat64([vr[variable]], [value])
    assert any(message in m for m in log), log
    # the instance is still usable: the bad value was not taken
    unit.exitInitializationMode()
    unit.doStep(0.0, DT)
    assert np.isfinite(unit.getFloat64([vr["q.a"], vr["energy"]])).all()
    unit.terminate()
    unit.freeInstance()


@needs_cc
@pytest.mark.parametrize("key", ["dp3", "dp2"])
@pytest.mark.parametrize("fmi_type", ["CoSimulation", "ModelExchange"])
def test_nan_parameter_through_simulate_fmu_is_an_error_not_a_crash(
    units: dict[str, Path], key: str, fmi_type: str
) -> None:
    from fmpy.fmi1 import FMICallException

    log: list[str] = []
    with pytest.raises(FMICallException):
        _simulate(units[key], fmi_type, {"m1": float("nan")}, logger=lambda *a: log.append(str(a)))
    assert any("parameter m1" in m for m in log), log


#: A C importer of the FMI 3 binary: two instances (Co-Simulation and Model Exchange), a wrong
#: token, NaN values, size mismatches, unknown references, a negative step, NULL instances;
#: everything freed. Run under valgrind: no invalid access, no leak.
HARNESS = r"""
/* loads an FMI 3 co-simulation binary, runs two instances, a bad value, frees everything */
#include <dlfcn.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "fmi3FunctionTypes.h"

static void logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String cat, fmi3String msg) {
    (void)env; (void)cat;
    if (status != fmi3OK) printf("log: %s\n", msg);
}

int main(int argc, char **argv) {
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    const char *token = argv[2];
    unsigned vr_param = (unsigned)atoi(argv[3]);
    if (!lib) { printf("dlopen: %s\n", dlerror()); return 2; }
#define F(name) fmi3##name##TYPE *name = (fmi3##name##TYPE *)dlsym(lib, "fmi3" #name)
    F(InstantiateCoSimulation); F(InstantiateModelExchange); F(FreeInstance);
    F(EnterInitializationMode); F(ExitInitializationMode); F(SetFloat64); F(GetFloat64);
    F(DoStep); F(Terminate); F(GetContinuousStateDerivatives); F(SetContinuousStates);
    fmi3Instance a = InstantiateCoSimulation("a", token, NULL, 0, 0, 0, 0, NULL, 0, NULL, logger, NULL);
    fmi3Instance b = InstantiateModelExchange("b", token, NULL, 0, 0, NULL, logger);
    fmi3Instance bad = InstantiateCoSimulation("c", "{wrong}", NULL, 0, 0, 0, 0, NULL, 0, NULL, logger, NULL);
    if (!a || !b || bad) return 3;
    fmi3ValueReference q0 = 1;
    double one = 1.0, nan = NAN, out[64], x[64];
    EnterInitializationMode(a, 0, 0, 0, 0, 0);
    EnterInitializationMode(b, 0, 0, 0, 0, 0);
    if (SetFloat64(a, &q0, 1, &one, 1) != fmi3OK) return 4;
    if (SetFloat64(a, &vr_param, 1, &nan, 1) != fmi3Error) return 5;
    if (SetFloat64(a, &q0, 1, &one, 2) != fmi3Error) return 6;     /* size mismatch */
    fmi3ValueReference huge = 100000;
    if (GetFloat64(a, &huge, 1, out, 1) != fmi3Error) return 7;    /* unknown reference */
    ExitInitializationMode(a); ExitInitializationMode(b);
    for (int k = 0; k < 100; k++) DoStep(a, k * 0.01, 0.01, 0, NULL, NULL, NULL, NULL);
    if (DoStep(a, 1.0, -1.0, 0, NULL, NULL, NULL, NULL) != fmi3Error) return 8;
    memset(x, 0, sizeof x);
    x[0] = nan;
    if (SetContinuousStates(b, x, 4) != fmi3Error) return 9;
    if (GetContinuousStateDerivatives(b, out, 3) != fmi3Error) return 10;
    if (GetContinuousStateDerivatives(b, out, 4) != fmi3OK) return 11;
    if (DoStep(NULL, 0, 0.01, 0, NULL, NULL, NULL, NULL) != fmi3Error) return 12;
    Terminate(a); Terminate(b);
    FreeInstance(a); FreeInstance(b); FreeInstance(NULL);
    dlclose(lib);
    printf("ok\n");
    return 0;
}
"""


@needs_cc
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_binary_under_valgrind(units: dict[str, Path], tmp_path: Path) -> None:
    import re
    import subprocess

    archive = zipfile.ZipFile(units["dp3"])
    archive.extractall(tmp_path / "fmu")
    text = archive.read("modelDescription.xml").decode()
    token = re.search(r'instantiationToken="([^"]+)"', text).group(1)
    md = fmpy.read_model_description(str(units["dp3"]))
    vr_m1 = next(v.valueReference for v in md.modelVariables if v.name == "m1")
    (tmp_path / "harness.c").write_text(HARNESS)
    include = Path(fmu_mod.__file__).parent / "fmi"
    cc = fmu_mod.find_compiler()
    exe = tmp_path / "harness"
    cmd = [cc, "-std=c99", "-D_GNU_SOURCE", f"-I{include}", "-o", str(exe)]
    subprocess.run([*cmd, str(tmp_path / "harness.c"), "-ldl", "-lm"], check=True)
    so = tmp_path / "fmu" / "binaries" / "x86_64-linux" / "dp.so"
    done = subprocess.run(
        ["valgrind", "-q", "--leak-check=full", "--error-exitcode=99",
         "--errors-for-leak-kinds=definite,indirect", str(exe), str(so), token, str(vr_m1)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "ok"
    assert "parameter m1: the value nan is not a finite number" in done.stdout
    assert "value reference 100000 is not a variable of this model" in done.stdout


@needs_cc
def test_model_without_parameters(tmp_path: Path) -> None:
    # accepted, not refused: an FMU with no parameter variables (LD_NP = 0 in the glue)
    import sympy as sp

    t = sp.Symbol("t")
    x = sp.Function("x")(t)
    oscillator = ld.LagrangianSystem(x.diff(t) ** 2 / 2 - x**2 / 2, [x])
    assert oscillator.parameters == ()
    path = export_fmu(oscillator, tmp_path, name="osc", fmi=2)
    assert validate_fmu(str(path)) == []
    res = fmpy.simulate_fmu(
        str(path), fmi_type="CoSimulation", stop_time=1.0, output_interval=DT,
        start_values={"q.x": 1.0},
    )  # fmt: skip
    assert abs(res["q.x"][-1] - np.cos(1.0)) < 1e-12


# --- bad input at export -------------------------------------------------------------


def test_zero_dof_model_is_refused(tmp_path: Path) -> None:
    empty = types.SimpleNamespace(
        M=None, h=None, q=(), parameters=(), defaults={}, n=0, plain_symbols=((), ())
    )
    with pytest.raises(LagdynError, match="at least one coordinate; this model has 0 DOF"):
        export_fmu(empty, tmp_path, name="empty", sources_only=True)


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("double pendulum", "must be an identifier"),
        ("2dp", "must be an identifier"),
        ("int", "clashes with C"),
        ("fmi3Model", "reserved"),
        ("ld", "reserved"),
    ],
)
def test_bad_names_are_refused(tmp_path: Path, name: str, match: str) -> None:
    with pytest.raises(LagdynError, match=match):
        export_fmu(ld.zoo.double_pendulum(), tmp_path, name=name, sources_only=True)
    assert list(tmp_path.iterdir()) == []


def test_existing_fmu_refused_without_force(tmp_path: Path) -> None:
    dp = ld.zoo.double_pendulum()
    path = export_fmu(dp, tmp_path, name="dp", sources_only=True)
    before = path.read_bytes()
    with pytest.raises(LagdynError, match="exist"):
        export_fmu(dp, tmp_path, name="dp", sources_only=True, params={"m1": 3.0})
    assert path.read_bytes() == before
    export_fmu(dp, tmp_path, name="dp", sources_only=True, params={"m1": 3.0}, force=True)
    assert path.read_bytes() != before


def test_missing_compiler_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fmu_mod, "find_compiler", lambda: None)
    with pytest.raises(LagdynError, match=r"no C compiler .* sources_only=True"):
        export_fmu(ld.zoo.double_pendulum(), tmp_path, name="dp")
    assert list(tmp_path.iterdir()) == []
    # a source-code FMU needs none
    path = export_fmu(ld.zoo.double_pendulum(), tmp_path, name="dp", sources_only=True)
    assert not any(n.startswith("binaries/") for n in zipfile.ZipFile(path).namelist())


def test_parameter_without_default_needs_params(tmp_path: Path) -> None:
    dp = ld.zoo.double_pendulum()
    bare = ld.LagrangianSystem(dp.L, list(dp.q))  # no defaults
    with pytest.raises(LagdynError, match=r"no default value: pass .*params="):
        export_fmu(bare, tmp_path, name="dp", sources_only=True)
    with pytest.raises(LagdynError, match="not a free parameter"):
        export_fmu(dp, tmp_path, name="dp", sources_only=True, params={"mass": 1.0})
    with pytest.raises(LagdynError, match="m1"):
        export_fmu(dp, tmp_path, name="dp", sources_only=True, params={"m1": -1.0})
    with pytest.raises(LagdynError, match="not a coordinate"):
        export_fmu(dp, tmp_path, name="dp", sources_only=True, inputs=["c"])
    assert list(tmp_path.iterdir()) == []


# --- command line --------------------------------------------------------------------


def test_cli_export_fmu(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lagdyn.cli import main

    argv = ["export", "cart_pole", "-t", "fmu", "--out", str(tmp_path), "--sources-only"]
    assert main([*argv, "--fmi", "2", "--inputs", "x", "--name", "cp"]) == 0
    path = tmp_path / "cp.fmu"
    assert capsys.readouterr().out.strip() == str(path)
    md = fmpy.read_model_description(str(path), validate=True)
    assert md.fmiVersion == "2.0"
    assert [v.name for v in md.modelVariables if v.causality == "input"] == ["tau.x"]
    # an existing unit is refused without --force, replaced with it
    assert main([*argv, "--name", "cp"]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert main([*argv, "--name", "cp", "--force"]) == 0
    assert fmpy.read_model_description(str(path)).fmiVersion == "3.0"
    # FMU options belong to -t fmu; --bind-defaults does not
    assert main(["export", "cart_pole", "-t", "c", "--out", str(tmp_path), "--fmi", "2"]) == 2
    assert "--fmi: only with -t fmu" in capsys.readouterr().err
    assert main([*argv, "--name", "cp2", "--bind-defaults"]) == 2
    assert "--bind-defaults does not apply to -t fmu" in capsys.readouterr().err
    assert main([*argv, "--name", "not-valid"]) == 2
    assert "must be an identifier" in capsys.readouterr().err


@needs_cc
def test_a_start_time_that_is_not_finite_is_an_error_naming_it(
    units: dict[str, Path], tmp_path: Path
) -> None:
    log: list[str] = []
    unit, _vr = _open3(units["dp3"], tmp_path, log=log)
    with pytest.raises(Exception, match=r"status 3 \(error\)"):
        unit.enterInitializationMode(startTime=float("nan"))
    assert any("start time nan is not finite" in m for m in log)
    unit.enterInitializationMode(startTime=0.0)  # the instance stays usable
    unit.exitInitializationMode()
    unit.terminate()
    unit.freeInstance()
