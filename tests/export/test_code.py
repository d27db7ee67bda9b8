"""Exported source code agrees with a numpy reference to 1e-12, for every target.

C is compiled with the system compiler and called through ctypes, C++ through a
small ``extern "C"`` shim; the Python targets are imported (with stand-ins for
jax/numba when those are not installed: the generated code is then run by numpy
and plain Python); Julia and Octave run when they are on the PATH.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.export.code import SIGNATURES, export, generate

RTOL = ATOL = 1e-12


def triple_pendulum() -> ld.LagrangianSystem:
    """n = 3 (the unrolled LDLᵀ solve), damping on q1 and a time-dependent force on q2."""
    q = ld.coordinates("q1 q2 q3")
    m, l, g, c = ld.parameters("m l g c")
    x = y = sp.S.Zero
    T = V = sp.S.Zero
    for qi in q:
        x += l * sp.sin(qi)
        y -= l * sp.cos(qi)
        T += m * (x.diff(ld.t) ** 2 + y.diff(ld.t) ** 2) / 2
        V += m * g * y
    forces = [-c * q[0].diff(ld.t), sp.sin(ld.t), 0]
    defaults = {m: 1.3, l: 0.7, g: 9.81, c: 0.2}
    return ld.LagrangianSystem.from_energies(T, V, q, forces, defaults=defaults)


MODELS = {
    name: (lambda name=name: ld.zoo.get(name))
    for name in ("two_link_planar", "double_pendulum_relative")
}
MODELS["triple_pendulum"] = triple_pendulum


class Reference:
    """numpy evaluation of the sympy matrices (sympy.lambdify, independent of lagdyn.numeric)."""

    def __init__(self, system: ld.LagrangianSystem) -> None:
        self.n = system.n
        self.params = list(system.parameters)
        self.p = np.array(
            [float(system.defaults.get(s, 0.7 + 0.1 * k)) for k, s in enumerate(self.params)]
        )
        qs, vs = system.plain_symbols
        args = [qs, vs, self.params, ld.t]

        def f(expr: Any) -> Any:
            return sp.lambdify(args, system.plain(sp.Matrix(expr)), "numpy")

        self._M, self._C, self._G = f(system.M), f(system.C), f(system.G)
        self._g, self._Q = f(system.g), f(system.forces)
        self._E = sp.lambdify(args, system.plain(system.energy), "numpy")

    def all(self, q: np.ndarray, qd: np.ndarray, u: np.ndarray, t: float) -> dict[str, Any]:
        a = (q, qd, self.p, t)
        M = np.array(self._M(*a), dtype=float)
        C = np.array(self._C(*a), dtype=float)
        G = np.array(self._G(*a), dtype=float)
        g = np.array(self._g(*a), dtype=float).ravel()
        Q = np.array(self._Q(*a), dtype=float).ravel()
        h = (C + G) @ qd + g - Q
        return {
            "M": M,
            "C": C,
            "g": g,
            "energy": float(self._E(*a)),
            "bias": h,
            "inverse_dynamics": M @ u + h,
            "forward_dynamics": np.linalg.solve(M, u - h),
        }


def states(n: int, count: int = 4) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, float]]:
    rng = np.random.default_rng(7)
    return [
        (rng.uniform(-3, 3, n), rng.normal(size=n), rng.normal(size=n), float(rng.uniform(0, 5)))
        for _ in range(count)
    ]


def check(name: str, got: Any, want: Any) -> None:
    np.testing.assert_allclose(
        np.asarray(got, dtype=float).reshape(np.shape(want)),
        want,
        rtol=RTOL,
        atol=ATOL,
        err_msg=name,
    )


@pytest.fixture(scope="module", params=sorted(MODELS))
def model(request: pytest.FixtureRequest) -> tuple[str, ld.LagrangianSystem, Reference]:
    system = MODELS[request.param]()
    return request.param, system, Reference(system)


def _args(kernel: str, q: Any, qd: Any, u: Any, p: Any, t: Any) -> list[Any]:
    table = {"q": q, "qd": qd, "qdd": u, "tau": u, "p": p, "t": t}
    return [table[a] for a in SIGNATURES[kernel]]


# ---------------------------------------------------------------- C and C++
@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler")
def test_c(model: Any, tmp_path: Path) -> None:
    _, system, ref = model
    export(system, "c", tmp_path, name="mdl")
    lib_path = tmp_path / "libmdl.so"
    subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-shared",
            "-fPIC",
            "-o",
            str(lib_path),
            str(tmp_path / "mdl.c"),
            "-lm",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    lib = ctypes.CDLL(str(lib_path))
    _run_pointer_api(lib, "mdl_", system.n, ref)


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")
def test_cpp(model: Any, tmp_path: Path) -> None:
    _, system, ref = model
    export(system, "cpp", tmp_path, name="mdl")
    shim = ['#include "mdl.hpp"', 'extern "C" {']
    for k, args in SIGNATURES.items():
        params = ", ".join("double t" if a == "t" else f"const double *{a}" for a in args)
        call = ", ".join(args)
        if k == "energy":
            shim.append(f"double c_{k}({params}) {{ return mdl::{k}<double>({call}); }}")
        else:
            shim.append(f"void c_{k}({params}, double *out) {{ mdl::{k}<double>({call}, out); }}")
    # float instantiation must compile too (templates on the scalar type)
    shim.append(
        "void c_float_M(const float *q, const float *p, float *out) { mdl::M<float>(q, p, out); }"
    )
    shim.append("}")
    (tmp_path / "shim.cpp").write_text("\n".join(shim))
    lib_path = tmp_path / "libmdlxx.so"
    subprocess.run(
        [
            "g++",
            "-std=c++17",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-shared",
            "-fPIC",
            "-o",
            str(lib_path),
            str(tmp_path / "shim.cpp"),
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    _run_pointer_api(ctypes.CDLL(str(lib_path)), "c_", system.n, ref)


def _run_pointer_api(lib: Any, prefix: str, n: int, ref: Reference) -> None:
    dbl = ctypes.POINTER(ctypes.c_double)

    def ptr(a: np.ndarray) -> Any:
        return a.ctypes.data_as(dbl)

    p = np.ascontiguousarray(ref.p)
    for q, qd, u, t in states(n):
        want = ref.all(q, qd, u, t)
        for kernel in SIGNATURES:
            fn = getattr(lib, prefix + kernel)
            args = [
                ctypes.c_double(x) if isinstance(x, float) else ptr(np.ascontiguousarray(x))
                for x in _args(kernel, q, qd, u, p, t)
            ]
            if kernel == "energy":
                fn.restype = ctypes.c_double
                got: Any = fn(*args)
            else:
                out = np.zeros(np.shape(want[kernel]))
                fn(*args, ptr(out))
                got = out
            check(kernel, got, want[kernel])


# ---------------------------------------------------------------- Python targets
def _load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_jax(model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, system, ref = model
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
    except ImportError:  # run the generated code on numpy instead
        fake = types.ModuleType("jax")
        fake.numpy = np  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "jax", fake)
        monkeypatch.setitem(sys.modules, "jax.numpy", np)
    (path,) = export(system, "jax", tmp_path, name="mdl")
    mod = _load(path, "mdl_jax")
    assert mod.N == system.n and mod.PARAMETERS == tuple(str(s) for s in system.parameters)
    for q, qd, u, t in states(system.n):
        want = ref.all(q, qd, u, t)
        for kernel in SIGNATURES:
            check(kernel, getattr(mod, kernel)(*_args(kernel, q, qd, u, ref.p, t)), want[kernel])


def test_numba(model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, system, ref = model
    if importlib.util.find_spec("numba") is None:  # run the generated code as plain Python
        fake = types.ModuleType("numba")

        def njit(*args: Any, **kwargs: Any) -> Any:
            if args and callable(args[0]):
                return args[0]
            return lambda f: f

        fake.njit = njit  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "numba", fake)
    (path,) = export(system, "numba", tmp_path, name="mdl")
    mod = _load(path, "mdl_numba")
    n = system.n
    st = states(n)
    for q, qd, u, t in st:
        want = ref.all(q, qd, u, t)
        for kernel in SIGNATURES:
            args = _args(kernel, q, qd, u, ref.p, t)
            if kernel == "energy":
                got = mod.energy(*args)
            else:
                got = getattr(mod, kernel)(*args, np.zeros(np.shape(want[kernel])))
            check(kernel, got, want[kernel])
    # batched: a leading axis of states, p and t shared
    Q = np.array([s[0] for s in st])
    QD = np.array([s[1] for s in st])
    U = np.array([s[2] for s in st])
    out = mod.forward_dynamics_batch(Q, QD, U, ref.p, 0.5, np.zeros((len(st), n)))
    for k in range(len(st)):
        check("batch", out[k], ref.all(Q[k], QD[k], U[k], 0.5)["forward_dynamics"])
    energies = mod.energy_batch(Q, QD, ref.p, np.zeros(len(st)))
    check(
        "energy_batch",
        energies,
        [ref.all(Q[k], QD[k], U[k], 0.0)["energy"] for k in range(len(st))],
    )


# ---------------------------------------------------------------- Julia and Octave
def _literal(a: Any, sep: str) -> str:
    return "[" + sep.join(repr(float(x)) for x in np.ravel(a)) + "]"


@pytest.mark.skipif(shutil.which("julia") is None, reason="julia not installed")
def test_julia(model: Any, tmp_path: Path) -> None:  # pragma: no cover - needs julia
    _, system, ref = model
    export(system, "julia", tmp_path, name="mdl")
    q, qd, u, t = states(system.n)[0]
    want = ref.all(q, qd, u, t)
    n = system.n
    script = [f'include("{tmp_path / "mdl.jl"}")', "using .Mdl"]
    script += [
        f"q = {_literal(q, ', ')}",
        f"qd = {_literal(qd, ', ')}",
        f"u = {_literal(u, ', ')}",
        f"p = {_literal(ref.p, ', ')}",
        f"t = {t!r}",
    ]
    for kernel in SIGNATURES:
        args = ", ".join({"qdd": "u", "tau": "u"}.get(a, a) for a in SIGNATURES[kernel])
        if kernel == "energy":
            script.append(f"println(repr(energy({args})))")
        else:
            shape = f"{n}, {n}" if kernel in ("M", "C") else f"{n}"
            script.append(f"out = zeros({shape}); {kernel}!(out, {args})")
            script.append(
                'println(join(repr.(vec(permutedims(out))), " "))'
                if kernel in ("M", "C")
                else 'println(join(repr.(out), " "))'
            )
    run = subprocess.run(
        ["julia", "--startup-file=no", "-e", "\n".join(script)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    for kernel, line in zip(SIGNATURES, run.stdout.strip().splitlines()):
        check(kernel, [float(x) for x in line.split()], want[kernel])


@pytest.mark.skipif(shutil.which("octave") is None, reason="octave not installed")
def test_octave(model: Any, tmp_path: Path) -> None:  # pragma: no cover - needs octave
    _, system, ref = model
    export(system, "matlab", tmp_path, name="mdl")
    q, qd, u, t = states(system.n)[0]
    want = ref.all(q, qd, u, t)
    script = [
        f"addpath('{tmp_path}');",
        f"q = {_literal(q, '; ')};",
        f"qd = {_literal(qd, '; ')};",
        f"u = {_literal(u, '; ')};",
        f"p = {_literal(ref.p, '; ')};",
        f"t = {t!r};",
    ]
    for kernel in SIGNATURES:
        args = ", ".join({"qdd": "u", "tau": "u"}.get(a, a) for a in SIGNATURES[kernel])
        script.append(f"x = mdl_{kernel}({args}); x = x.'; printf('%.17g ', x(:)); printf('\\n');")
    run = subprocess.run(
        ["octave", "--no-gui", "--quiet", "--eval", "\n".join(script)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    for kernel, line in zip(SIGNATURES, run.stdout.strip().splitlines()):
        check(kernel, [float(x) for x in line.split()], want[kernel])


# ---------------------------------------------------------------- files and errors
def test_generated_files_and_headers() -> None:
    arm = ld.zoo.two_link_planar()
    names = {t: sorted(generate(arm, t, name="arm")) for t in ("c", "cpp", "jax", "numba", "julia")}
    assert names == {
        "c": ["arm.c", "arm.h"],
        "cpp": ["arm.hpp"],
        "jax": ["arm_jax.py"],
        "numba": ["arm_numba.py"],
        "julia": ["arm.jl"],
    }
    matlab = generate(arm, "matlab", name="arm")
    assert sorted(matlab) == sorted(f"arm_{k}.m" for k in SIGNATURES)
    header = generate(arm, "c", name="arm")["arm.h"]
    assert "generated by lagdyn" in header and "row-major" in header
    assert "p[0] = I1" in header and "#define ARM_N 2" in header
    assert "malloc" not in generate(arm, "c", name="arm")["arm.c"]


def test_bound_parameters_are_folded_in() -> None:
    dp = ld.zoo.double_pendulum()
    src = generate(dp, "c", name="dp", params=dp.defaults)["dp.h"]
    assert "#define DP_NP 0" in src
    partial = {s: v for s, v in dp.defaults.items() if s.name == "g"}
    assert "p[0] = l1" in generate(dp, "c", name="dp", params=partial)["dp.h"]


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"target": "fortran"}, "unknown target"),
        ({"target": "c", "name": "1abc"}, "must be an identifier"),
        ({"target": "c", "name": "_x"}, "must be an identifier"),
        ({"target": "c", "params": {sp.Symbol("zz"): 1.0}, "strict": True}, "not parameters"),
        ({"target": "c", "params": {"g": float("nan")}}, "finite real number"),
        (
            {"target": "cpp", "name": "double"},
            "clashes with C\\+\\+: 'double' is a C\\+\\+ keyword",
        ),
        ({"target": "c", "name": "for"}, "clashes with C: 'for' is a C keyword"),
    ],
)
def test_errors(kwargs: dict[str, Any], fragment: str) -> None:
    target = kwargs.pop("target")
    with pytest.raises(ld.LagdynError, match=fragment):
        generate(ld.zoo.double_pendulum(), target, **kwargs)


def test_cli_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lagdyn.cli import main

    assert main(["export", "double_pendulum", "--target", "c", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "double_pendulum.c" in out and (tmp_path / "double_pendulum.h").is_file()
    assert (
        main(["export", "double_pendulum", "-t", "julia", "--out", str(tmp_path), "--name", "dp"])
        == 0
    )
    assert (tmp_path / "dp.jl").is_file()
    assert (
        main(
            [
                "export",
                "double_pendulum",
                "--option",
                "coordinates=relative",
                "-t",
                "cpp",
                "--out",
                str(tmp_path),
                "--bind-defaults",
            ]
        )
        == 0
    )
    assert "constexpr int NP = 0;" in (tmp_path / "double_pendulum.hpp").read_text()
    assert main(["export", "double_pendulum", "-t", "c", "--out", str(tmp_path / "dp.jl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("lagdyn: error:")


def test_params_by_name_as_in_lambdify():
    """Issue 10: export parses params like lambdify ({"g": 9.81} works)."""
    dp = ld.zoo.double_pendulum()
    by_name = generate(dp, "c", name="dp", params={"g": 9.81})
    by_symbol = generate(dp, "c", name="dp", params={sp.Symbol("g", positive=True): 9.81})
    assert by_name == by_symbol
    assert "bound parameters: g = 9.81" in by_name["dp.h"]


@pytest.mark.parametrize("target", ["julia", "matlab"])
def test_one_based_headers(target):
    """Issue 11 item 11: Julia/MATLAB headers describe the 1-based layout, not C's."""
    files = generate(ld.zoo.double_pendulum(), target, name="dp")
    text = next(iter(files.values()))
    assert "1-based" in text and "q[1]..q[2]" in text
    assert "row-major" not in text and "out[i*2 + j]" not in text
