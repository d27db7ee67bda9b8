"""Pinocchio timed from its C++ headers: one C++ program per model, g++ with lagdyn's flags.

The pip wheel of Pinocchio (``pin``) ships its headers and libraries under
``site-packages/cmeel.prefix`` but not ``urdf_model`` (urdfdom_headers) nor a model
loader, so the model is not parsed in C++: :func:`model_source` prints C++ that rebuilds
the ``pinocchio.Model`` built in Python (joint types, parents, placements, inertias,
exactly; rotors and armature included) with ``addJoint``/``appendBodyToJoint``. Eigen
comes from CasADi's bundled copy (3.4) when the system has none.

:func:`time_pinocchio` compiles and runs that program and returns microseconds per call
(the minimum over repeats of the mean over a loop through 64 random states, so nothing
is constant-folded and the states stay in cache) for ``rnea``, ``aba``, ``crba``,
``nonLinearEffects``, ``computeCoriolisMatrix``, ``computeGeneralizedGravity``,
``computeRNEADerivatives`` and ``computeABADerivatives``. :func:`harness` returns the
pieces (includes, model builder, state generator, timing macro) for programs that time
other code next to Pinocchio in the same process (``bench_derivatives.py`` links
lagdyn's exported C into it).

Flags: ``FLAGS`` = ``-O3 -march=native -fno-math-errno -DNDEBUG`` (lagdyn's C backend
compiles with ``-O3 -march=native -fno-math-errno``; ``-DNDEBUG`` turns Eigen's
assertions off, as every release build of Pinocchio does).

Usage::

    from _pinocchio_cpp import time_pinocchio
    time_pinocchio("ur5_robot.urdf")                 # fixed base
    time_pinocchio("solo12.urdf", freeflyer=True)    # floating base
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

FLAGS = ["-O3", "-march=native", "-fno-math-errno", "-DNDEBUG"]
ALGORITHMS = (
    "rnea",
    "aba",
    "crba",
    "nonLinearEffects",
    "computeCoriolisMatrix",
    "computeGeneralizedGravity",
    "computeRNEADerivatives",
    "computeABADerivatives",
)

_CALLS = {
    "rnea": "pinocchio::rnea(model, data, Q[k], V[k], A[k]);",
    "aba": "pinocchio::aba(model, data, Q[k], V[k], A[k], pinocchio::Convention::WORLD);",
    "crba": "pinocchio::crba(model, data, Q[k], pinocchio::Convention::WORLD);",
    "nonLinearEffects": "pinocchio::nonLinearEffects(model, data, Q[k], V[k]);",
    "computeCoriolisMatrix": "pinocchio::computeCoriolisMatrix(model, data, Q[k], V[k]);",
    "computeGeneralizedGravity": "pinocchio::computeGeneralizedGravity(model, data, Q[k]);",
    "computeRNEADerivatives": ("pinocchio::computeRNEADerivatives(model, data, Q[k], V[k], A[k]);"),
    "computeABADerivatives": "pinocchio::computeABADerivatives(model, data, Q[k], V[k], A[k]);",
}


def prefix() -> Path:
    """``site-packages/cmeel.prefix`` of the installed ``pin`` wheel."""
    import pinocchio

    for parent in Path(pinocchio.__file__).resolve().parents:
        cand = parent / "cmeel.prefix"
        if (cand / "include" / "pinocchio").is_dir():
            return cand
    raise RuntimeError("cmeel.prefix with Pinocchio's headers not found (pip install pin)")


def eigen_include() -> Path:
    """An Eigen 3.4 include directory: the system's, else CasADi's bundled copy."""
    for cand in (Path("/usr/include/eigen3"), Path("/usr/local/include/eigen3")):
        if (cand / "Eigen" / "Core").is_file():
            return cand
    try:
        import casadi
    except ImportError as exc:
        raise RuntimeError("no Eigen headers: install libeigen3-dev or casadi") from exc
    cand = Path(casadi.__file__).parent / "include" / "eigen3"
    if (cand / "Eigen" / "Core").is_file():
        return cand
    raise RuntimeError("no Eigen headers found (system or CasADi)")


def compile_args() -> tuple[list[str], list[str]]:
    """(compile flags with include paths, link flags) for a program using Pinocchio."""
    p = prefix()
    cflags = [
        *FLAGS,
        "-std=c++17",
        # what Pinocchio's CMake config exports (pinocchioTargets.cmake): its joint
        # variant has 25 types, its visitors up to 12 arguments
        "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS",
        "-DBOOST_MPL_LIMIT_LIST_SIZE=30",
        "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
        "-DBOOST_FUSION_INVOKE_MAX_ARITY=12",
        f"-I{p / 'include'}",
        f"-I{eigen_include()}",
    ]
    # no Pinocchio library: every template is instantiated here with these flags (linking
    # the wheel's instantiations, built without -march=native, would mix Eigen alignments)
    lflags: list[str] = []
    return cflags, lflags


def _vec(x: Sequence[float]) -> str:
    return ", ".join(repr(float(v)) for v in x)


def _joint(joint: Any) -> str:
    """The C++ constructor of a Pinocchio joint model (the types of fixed-base arms and a
    free flyer)."""
    name = joint.shortname()
    simple = {
        "JointModelRX": "JointModelRX()",
        "JointModelRY": "JointModelRY()",
        "JointModelRZ": "JointModelRZ()",
        "JointModelRUBX": "JointModelRUBX()",
        "JointModelRUBY": "JointModelRUBY()",
        "JointModelRUBZ": "JointModelRUBZ()",
        "JointModelPX": "JointModelPX()",
        "JointModelPY": "JointModelPY()",
        "JointModelPZ": "JointModelPZ()",
        "JointModelFreeFlyer": "JointModelFreeFlyer()",
    }
    if name in simple:
        return "pinocchio::" + simple[name]
    if name in ("JointModelRevoluteUnaligned", "JointModelRevoluteUnboundedUnaligned"):
        return f"pinocchio::{name}(Eigen::Vector3d({_vec(joint.extract().axis)}))"
    if name == "JointModelPrismaticUnaligned":
        return f"pinocchio::{name}(Eigen::Vector3d({_vec(joint.extract().axis)}))"
    raise NotImplementedError(f"joint type {name} is not in the C++ harness")


def model_source(model: Any) -> str:
    """A C++ translation unit defining ``pinocchio::Model build_model()`` that rebuilds
    ``model`` (a ``pinocchio.Model``); compiled apart from the timing loop (and at the
    same time) with the same flags."""
    lines = [
        "#include <pinocchio/multibody.hpp>",
        "pinocchio::Model build_model() {",
        "pinocchio::Model model;",
        "{",
    ]
    lines.append(f"  model.gravity.linear(Eigen::Vector3d({_vec(model.gravity.linear)}));")
    for j in range(1, model.njoints):
        place = model.jointPlacements[j]
        R = np.asarray(place.rotation)
        inertia = model.inertias[j]
        lines += [
            "  {",
            f"    Eigen::Matrix3d R; R << {_vec(R.reshape(-1))};",
            f"    pinocchio::SE3 M(R, Eigen::Vector3d({_vec(place.translation)}));",
            f"    auto id = model.addJoint({model.parents[j]}, {_joint(model.joints[j])}, M, "
            f'"j{j}");',
            f"    Eigen::Matrix3d I; I << {_vec(np.asarray(inertia.inertia).reshape(-1))};",
            f"    model.appendBodyToJoint(id, pinocchio::Inertia({float(inertia.mass)!r}, "
            f"Eigen::Vector3d({_vec(inertia.lever)}), I), pinocchio::SE3::Identity());",
            "  }",
        ]
    if model.nv:
        lines.append(f"  model.armature = Eigen::VectorXd::Zero({model.nv});")
        lines.append(f"  model.armature << {_vec(model.armature)};")
        lines.append(f"  model.rotorInertia << {_vec(model.rotorInertia)};")
        lines.append(f"  model.rotorGearRatio << {_vec(model.rotorGearRatio)};")
    lines += ["}", "return model;", "}", ""]
    return "\n".join(lines)


INCLUDES = """
#include <pinocchio/multibody.hpp>
pinocchio::Model build_model();
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
"""

#: ``TIME(label, statement)``: minimum over REPEATS of the mean time of ``statement`` over
#: ITERS calls cycling through the NS states (index ``k``), printed as ``label µs``.
TIMING = """
static const int NS = 64;
static volatile double sink = 0;
#define TIME(label, stmt) do { \\
    double best = 1e300; \\
    for (int r = 0; r < REPEATS; ++r) { \\
        auto t0 = std::chrono::steady_clock::now(); \\
        for (long it = 0; it < ITERS; ++it) { int k = (int)(it % NS); stmt; } \\
        auto t1 = std::chrono::steady_clock::now(); \\
        double us = std::chrono::duration<double, std::micro>(t1 - t0).count() / ITERS; \\
        if (us < best) best = us; \\
    } \\
    std::printf("%s %.6f\\n", label, best); \\
} while (0)
"""

STATES = """
pinocchio::Model model = build_model();
std::srand(1);
std::vector<Eigen::VectorXd> Q(NS), V(NS), A(NS);
for (int k = 0; k < NS; ++k) {
    Q[k] = pinocchio::randomConfiguration(model, -Eigen::VectorXd::Ones(model.nq),
                                          Eigen::VectorXd::Ones(model.nq));
    V[k] = Eigen::VectorXd::Random(model.nv);
    A[k] = Eigen::VectorXd::Random(model.nv);
}
pinocchio::Data data(model);
"""


def harness(model: Any) -> dict[str, str]:
    """The pieces of a timing program: ``includes``, ``timing`` (the TIME macro),
    ``model`` (the translation unit of ``build_model()``, passed to :func:`build_and_run`
    as ``model_unit``), ``states`` (``model``, ``Q``, ``V``, ``A``, ``data``) and ``calls``
    (one statement per algorithm of :data:`ALGORITHMS`, reading ``k``)."""
    return {
        "includes": INCLUDES,
        "timing": TIMING,
        "model": model_source(model),
        "states": STATES,
        "calls": dict(_CALLS),
    }


def build_and_run(
    source: str,
    model_unit: str,
    extra_objects: Sequence[str] = (),
    workdir: str | None = None,
) -> dict[str, float]:
    """Compile ``source`` and ``model_unit`` (C++) with :func:`compile_args`, link
    ``extra_objects``, run the program and parse its ``label value`` lines."""
    if shutil.which("g++") is None:
        raise RuntimeError("g++ is not installed")
    cflags, lflags = compile_args()
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        src = Path(tmp) / "bench.cpp"
        unit = Path(tmp) / "model.cpp"
        obj = Path(tmp) / "model.o"
        exe = Path(tmp) / "bench"
        src.write_text(source)
        unit.write_text(model_unit)
        main_obj = Path(tmp) / "bench.o"
        jobs = [
            subprocess.Popen(
                ["g++", *cflags, "-c", str(c), "-o", str(o)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for c, o in ((unit, obj), (src, main_obj))
        ]
        for job in jobs:
            _, err = job.communicate()
            if job.returncode:
                raise RuntimeError("g++ failed:\n" + err[-4000:])
        cmd = ["g++", *cflags, str(main_obj), str(obj), *extra_objects, "-o", str(exe)]
        res = subprocess.run([*cmd, *lflags, "-lm"], capture_output=True, text=True)
        if res.returncode:
            raise RuntimeError("g++ failed:\n" + res.stderr[-4000:])
        run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    out: dict[str, float] = {}
    for line in run.stdout.splitlines():
        label, _, value = line.rpartition(" ")
        out[label] = float(value)
    return out


def time_pinocchio(
    urdf: str,
    freeflyer: bool = False,
    *,
    locked: Sequence[str] = (),
    algorithms: Sequence[str] = ALGORITHMS,
    iters: int = 20000,
    repeats: int = 7,
) -> dict[str, float]:
    """Microseconds per call of Pinocchio's algorithms on ``urdf``, compiled from C++.

    ``freeflyer``: a free-flyer root joint; ``locked``: joint names locked at the neutral
    configuration (``pin.buildReducedModel``, as lagdyn's ``locked=``).
    """
    import pinocchio as pin

    if freeflyer:
        model = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    else:
        model = pin.buildModelFromUrdf(str(urdf))
    if locked:
        ids = [model.getJointId(n) for n in locked]
        model = pin.buildReducedModel(model, ids, pin.neutral(model))
    return time_model(model, algorithms=algorithms, iters=iters, repeats=repeats)


def time_model(
    model: Any,
    *,
    algorithms: Sequence[str] = ALGORITHMS,
    iters: int = 20000,
    repeats: int = 7,
    extra: str = "",
    extra_objects: Sequence[str] = (),
) -> dict[str, float]:
    """:func:`time_pinocchio` for a ``pinocchio.Model``; ``extra`` C++ statements run after
    Pinocchio's timings in the same ``main`` (``Q``, ``V``, ``A``, ``NS``, ``TIME`` in
    scope), linked with ``extra_objects``."""
    parts = harness(model)
    body = "\n".join(f'TIME("{a}", {parts["calls"][a]});' for a in algorithms)
    src = (
        parts["includes"]
        + f"\n#define ITERS {int(iters)}\n#define REPEATS {int(repeats)}\n"
        + parts["timing"]
        + "\nint main() {\n"
        + parts["states"]
        + body
        + "\n"
        + extra
        + '\nstd::printf("sink %f\\n", (double)sink);\nreturn 0;\n}\n'
    )
    out = build_and_run(src, parts["model"], extra_objects)
    out.pop("sink", None)
    return out


if __name__ == "__main__":  # python benchmarks/_pinocchio_cpp.py path/to/robot.urdf
    for k, v in time_pinocchio(sys.argv[1], freeflyer="--freeflyer" in sys.argv).items():
        print(f"{k:28} {v:8.3f} µs")
