r"""Functional Mock-up Units (FMI 3.0 and 2.0): a model for Simulink, OpenModelica, Dymola, FMPy.

:func:`export_fmu` writes one ``NAME.fmu`` (a zip archive) holding Model Exchange and
Co-Simulation of one :class:`~lagdyn.LagrangianSystem`:

- ``modelDescription.xml``: the variables (below), FMI 3.0 by default or FMI 2.0;
- ``sources/``: the model's C99 code (:func:`lagdyn.export.code.generate`, target ``"c"``,
  every parameter left free), the FMI glue (``fmi3_glue.c`` or ``fmi2_glue.c`` over
  ``lagdyn_fmu_core.h``), the standard FMI headers and, for FMI 3.0, ``buildDescription.xml``;
- ``binaries/x86_64-linux/NAME.so`` (FMI 3.0) or ``binaries/linux64/NAME.so`` (FMI 2.0) on
  x86-64 Linux (:data:`PLATFORMS`: also aarch64 Linux and macOS), built
  at export time by the system C compiler (``cc -shared -fPIC -O2``); ``sources_only=True``
  leaves it out.

Variables (value references in this order; ``time`` is 0):

==============  ==========================  =============================================
name            causality / variability     meaning
==============  ==========================  =============================================
``q.X``         output, continuous (state)  generalized coordinate ``X`` (start 0)
``qd.X``        output, continuous (state)  its velocity q̇ (start 0)
``der(q.X)``    local, continuous           = q̇, the derivative of the state ``q.X``
``qdd.X``       output, continuous          acceleration q̈ = M⁻¹(τ − h), derivative of ``qd.X``
``energy``      output, continuous          E = ½q̇ᵀMq̇ + V
``tau.X``       input, continuous           generalized force on ``X`` (start 0)
``P``           parameter, tunable          each free parameter, start = its default
==============  ==========================  =============================================

Co-Simulation takes fixed internal steps of ``step_size`` by ``step`` = ``"rk4"`` (classical
Runge–Kutta, as ``lagdyn.simulate(method="rk4")``) or ``"midpoint"`` (the canonical implicit
midpoint of ``lagdyn.simulate(method="midpoint")``, solved by Newton's method with the
generated Jacobian, ``sources/NAME_nt.c``; robot chains on the recursive route, which have no
closed form to differentiate, use a finite-difference Jacobian); a communication step that
is not a multiple of ``step_size`` ends with one shorter step. Inputs are held constant over
a communication step.

A :class:`~lagdyn.ConstrainedSystem` exports as the Baumgarte-stabilised ODE of its KKT
system, with the gains as parameters ``baumgarte_alpha``, ``baumgarte_beta`` and the outputs
``lambda.K`` (multipliers) and ``phi.K`` (residuals); see ``baumgarte`` in :func:`export_fmu`.

The binary keeps all of its state in the instance (no global data), checks every value it
is given (NaN, infinite, or against a parameter's sign assumption: ``fmi*Error`` and a log
message naming the variable) and writes no file.

Examples
--------
>>> import tempfile, zipfile, lagdyn as ld
>>> from lagdyn.export.fmu import export_fmu
>>> path = export_fmu(ld.zoo.double_pendulum(), tempfile.mkdtemp(), name="dp",
...                   sources_only=True)
>>> path.name
'dp.fmu'
>>> sorted(zipfile.ZipFile(path).namelist())[:3]
['modelDescription.xml', 'sources/buildDescription.xml', 'sources/dp.c']
"""

from __future__ import annotations

import hashlib
import io
import platform
import shutil
import subprocess
import sys
import tempfile
import uuid
import zipfile
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal
from xml.sax.saxutils import quoteattr

from .._files import check_new_file, write_file_atomically
from .._version import __version__
from ..codegen.binding import check_value
from ..codegen.names import check_export_name
from ..errors import LagdynError
from ..symbols import coordinate_labels

__all__ = ["PLATFORMS", "binary_platform", "export_fmu", "find_compiler"]

#: The binaries folder and library suffix, by (sys.platform, machine) and FMI version; FMI 2
#: names only 32/64-bit x86 platforms.
PLATFORMS: dict[tuple[str, str], dict[int, tuple[str, str]]] = {
    ("linux", "x86_64"): {3: ("x86_64-linux", ".so"), 2: ("linux64", ".so")},
    ("linux", "aarch64"): {3: ("aarch64-linux", ".so")},
    ("darwin", "x86_64"): {3: ("x86_64-darwin", ".dylib"), 2: ("darwin64", ".dylib")},
    ("darwin", "arm64"): {3: ("aarch64-darwin", ".dylib")},
}
_HEADERS = {
    3: ("fmi3Functions.h", "fmi3FunctionTypes.h", "fmi3PlatformTypes.h"),
    2: ("fmi2Functions.h", "fmi2FunctionTypes.h", "fmi2TypesPlatform.h"),
}
_GLUE = {3: "fmi3_glue.c", 2: "fmi2_glue.c"}
_CORE = "lagdyn_fmu_core.h"
_MODEL_HEADER = "lagdyn_fmu_model.h"
#: Forward dynamics is generated up to this n; above, the glue solves M q̈ = τ − h by Cholesky.
_MAX_GENERATED_FD = 8
_RESERVED_PREFIXES = ("fmi", "ld_", "lagdyn_fmu")


def find_compiler() -> str | None:
    """The system C compiler (``cc``, else ``gcc``, else ``clang``) on ``PATH``, or None.

    Examples
    --------
    >>> from lagdyn.export.fmu import find_compiler
    >>> find_compiler() is None or isinstance(find_compiler(), str)
    True
    """
    for cc in ("cc", "gcc", "clang"):
        path = shutil.which(cc)
        if path:
            return path
    return None


def _fmi_file(name: str) -> str:
    return (resources.files("lagdyn.export") / "fmi" / name).read_text(encoding="utf-8")


def _check_system(system: Any) -> tuple[Any, list[Any] | None]:
    """(the Lagrangian system, its constraints Φ or None for an unconstrained one)."""
    # duck-typed: export/ sits below the system layer (tests/test_imports.py)
    constraints = None
    if hasattr(system, "kkt_matrix") and hasattr(system, "constraints"):
        if getattr(system, "m_velocity", 0):
            raise LagdynError(
                "export_fmu: velocity (nonholonomic) constraints are not exported; export "
                "the holonomic model, or simulate with ConstrainedSystem.simulate"
            )
        constraints = list(system.constraints)
        system = system.system
    if not all(hasattr(system, a) for a in ("M", "h", "q", "parameters", "defaults", "n")):
        raise LagdynError(
            f"export_fmu needs a LagrangianSystem; got {type(system).__name__} "
            "(build one with lagdyn.zoo, lagdyn.from_mechanics or LagrangianSystem)"
        )
    if system.n < 1:
        raise LagdynError("an FMU needs at least one coordinate; this model has 0 DOF")
    return system, constraints


def _all_parameters(system: Any, constraints: list[Any] | None) -> list[Any]:
    """The system's parameters (in the order of the generated code's ``p``), then those only
    the constraints hold, sorted by name."""
    own = list(system.parameters)
    extra: set[Any] = set()
    if constraints:
        times = {a for q in system.q for a in getattr(q, "args", ())}
        for c in constraints:
            extra |= {x for x in c.free_symbols if x not in times and x not in own}
    return own + sorted(extra, key=str)


def _check_name(name: str) -> None:
    check_export_name(name, "c")
    low = name.lower()
    if low == "ld" or low.startswith(_RESERVED_PREFIXES):
        raise LagdynError(
            f"export name {name!r} clashes with the FMI glue: names 'ld' or starting with "
            f"{', '.join(repr(p) for p in _RESERVED_PREFIXES)} are reserved; choose another name"
        )


def _parameter_starts(
    parameters: list[Any], defaults: Mapping[Any, float] | None, params: Mapping[Any, float] | None
) -> list[float]:
    by_name = {str(s): s for s in parameters}
    values: dict[Any, float] = {}
    for key, value in dict(defaults or {}).items():
        sym = by_name.get(str(key))
        if sym is not None:
            values[sym] = value
    for key, value in dict(params or {}).items():
        sym = by_name.get(str(key))
        if sym is None:
            raise LagdynError(
                f"params: {str(key)!r} is not a free parameter of the model "
                f"(its parameters: {', '.join(by_name) or 'none'})"
            )
        values[sym] = value
    missing = [str(s) for s in parameters if s not in values]
    if missing:
        raise LagdynError(
            f"parameter(s) {', '.join(missing)} have no default value: pass their start values "
            f"with params={{{', '.join(repr(m) + ': ...' for m in missing)}}}"
        )
    return [
        check_value(s, values[s], label=f"the start value of parameter {s}") for s in parameters
    ]


def _input_coordinates(inputs: Sequence[Any] | None, coords: list[str]) -> list[int]:
    if inputs is None:
        return list(range(len(coords)))
    out: list[int] = []
    for item in inputs:
        if isinstance(item, str) and item in coords:
            k = coords.index(item)
        elif isinstance(item, int) and not isinstance(item, bool) and 0 <= item < len(coords):
            k = item
        else:
            raise LagdynError(
                f"inputs: {item!r} is not a coordinate of the model; give names from "
                f"{', '.join(coords)} or indices 0..{len(coords) - 1}"
            )
        if k in out:
            raise LagdynError(f"inputs: coordinate {coords[k]!r} is given twice")
        out.append(k)
    return sorted(out)


def _c_string(text: str) -> str:
    """A C string literal of ``text`` (UTF-8; every byte but [A-Za-z0-9_] as a 3-digit octal)."""
    body = "".join(
        chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) == "_") else f"\\{b:03o}"
        for b in text.encode("utf-8")
    )
    return f'"{body}"'


def _c_strings(items: Sequence[str]) -> str:
    return ", ".join(_c_string(s) for s in items) or "0"


def _num(x: float) -> str:
    return repr(float(x))


def _model_header(
    name: str,
    n: int,
    coords: list[str],
    inputs: list[int],
    pnames: list[str],
    starts: list[float],
    kinds: list[int],
    token: str,
    step: str,
    step_size: float,
    *,
    generated_fd: bool,
    nc: int = 0,
    newton: bool = False,
) -> str:
    lines = [
        "/* generated by lagdyn — do not edit: the model tables of the FMI glue */",
        "#ifndef LAGDYN_FMU_MODEL_H",
        "#define LAGDYN_FMU_MODEL_H",
        f'#include "{name}.h"',
        f"#define LD_N {n}",
        f"#define LD_NP {len(pnames)}",
        f"#define LD_NI {len(inputs)}",
        f"#define LD_FN_M {name}_M",
        f"#define LD_FN_C {name}_C",
        f"#define LD_FN_BIAS {name}_bias",
        f"#define LD_FN_ENERGY {name}_energy",
    ]
    if nc:
        lines += [
            f'#include "{name}_con.h"',
            f"#define LD_NC {nc}",
            f"#define LD_FN_PHI {name}_con_phi",
            f"#define LD_FN_J {name}_con_J",
            f"#define LD_FN_JDQD {name}_con_Jdot_qd",
        ]
    if newton:
        lines += [f'#include "{name}_nt.h"', f"#define LD_FN_NEWTON {name}_nt_J"]
    if generated_fd:
        lines.append(f"#define LD_FN_FD {name}_forward_dynamics")
    lines += [
        f'#define LD_INSTANTIATION_TOKEN "{token}"',
        f"#define LD_STEP_SIZE {_num(step_size)}",
        f"#define LD_METHOD {1 if step == 'midpoint' else 0}",
        "#define LD_TOL 1e-12",
        "#define LD_MAX_ITER 50",
        f"static const char *const LD_Q_NAME[{n}] = {{{_c_strings(coords)}}};",
        f"static const double LD_Q_START[{n}] = {{{', '.join(['0.0'] * n)}}};",
        f"static const double LD_QD_START[{n}] = {{{', '.join(['0.0'] * n)}}};",
        f"static const int LD_INPUT_COORD[{max(len(inputs), 1)}] = "
        f"{{{', '.join(map(str, inputs)) or '0'}}};",
        f"static const char *const LD_P_NAME[{max(len(pnames), 1)}] = {{{_c_strings(pnames)}}};",
        f"static const double LD_P_START[{max(len(pnames), 1)}] = "
        f"{{{', '.join(map(_num, starts)) or '0.0'}}};",
        f"static const int LD_P_KIND[{max(len(pnames), 1)}] = "
        f"{{{', '.join(map(str, kinds)) or '0'}}};",
        "#endif",
        "",
    ]
    return "\n".join(lines)


class _Var:
    def __init__(
        self,
        name: str,
        vr: int,
        causality: str,
        variability: str,
        description: str,
        *,
        initial: str | None = None,
        start: float | None = None,
        derivative: int | None = None,
    ) -> None:
        self.name, self.vr, self.causality, self.variability = name, vr, causality, variability
        self.description, self.initial, self.start, self.derivative = (
            description,
            initial,
            start,
            derivative,
        )


def _joint_names(system: Any, n: int) -> list[str]:
    """`` (joint NAME)`` per coordinate of a robot chain (its URDF/DH joint names), else ''."""
    names = getattr(getattr(system, "chain", None), "joint_names", None)
    if not isinstance(names, (list, tuple)) or len(names) != n:
        return [""] * n
    return [f" (joint {j})" for j in names]


def _variables(
    coords: list[str],
    inputs: list[int],
    pnames: list[str],
    starts: list[float],
    nc: int = 0,
    joints: list[str] | None = None,
) -> list[_Var]:
    n = len(coords)
    joint = joints or [""] * n
    vq, vqd, vdq, vqdd = 1, 1 + n, 1 + 2 * n, 1 + 3 * n
    ve, vtau = 1 + 4 * n, 2 + 4 * n
    vp = vtau + len(inputs)
    out = [_Var("time", 0, "independent", "continuous", "simulation time")]
    out += [
        _Var(f"q.{c}", vq + i, "output", "continuous", f"generalized coordinate {c}{joint[i]}",
             initial="exact", start=0.0)
        for i, c in enumerate(coords)
    ]  # fmt: skip
    out += [
        _Var(f"qd.{c}", vqd + i, "output", "continuous", f"velocity of {c}", initial="exact",
             start=0.0)
        for i, c in enumerate(coords)
    ]  # fmt: skip
    out += [
        _Var(f"der(q.{c})", vdq + i, "local", "continuous", f"derivative of q.{c} (= qd.{c})",
             initial="calculated", derivative=vq + i)
        for i, c in enumerate(coords)
    ]  # fmt: skip
    out += [
        _Var(f"qdd.{c}", vqdd + i, "output", "continuous", f"acceleration of {c}",
             initial="calculated", derivative=vqd + i)
        for i, c in enumerate(coords)
    ]  # fmt: skip
    out.append(
        _Var("energy", ve, "output", "continuous", "energy E = qd' M qd / 2 + V",
             initial="calculated")
    )  # fmt: skip
    out += [
        _Var(f"tau.{coords[k]}", vtau + j, "input", "continuous",
             f"generalized force on {coords[k]}{joint[k]}", start=0.0)
        for j, k in enumerate(inputs)
    ]  # fmt: skip
    out += [
        _Var(p, vp + j, "parameter", "tunable", f"model parameter {p}", initial="exact",
             start=starts[j])
        for j, p in enumerate(pnames)
    ]  # fmt: skip
    vlam = vp + len(pnames)
    out += [
        _Var(f"lambda.{k + 1}", vlam + k, "output", "continuous",
             f"multiplier of constraint {k + 1}", initial="calculated")
        for k in range(nc)
    ]  # fmt: skip
    out += [
        _Var(f"phi.{k + 1}", vlam + nc + k, "output", "continuous",
             f"residual of constraint {k + 1}", initial="calculated")
        for k in range(nc)
    ]  # fmt: skip
    return out


def _attrs(**kw: Any) -> str:
    return "".join(f" {k}={quoteattr(str(v))}" for k, v in kw.items() if v is not None)


def _description_fmi3(
    name: str, token: str, variables: list[_Var], step_size: float, description: str
) -> str:
    head = _attrs(
        fmiVersion="3.0",
        modelName=name,
        instantiationToken=token,
        description=description,
        generationTool=f"lagdyn {__version__}",
        variableNamingConvention="flat",
    )
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<fmiModelDescription{head}>",
        f'  <ModelExchange modelIdentifier="{name}" needsCompletedIntegratorStep="false" '
        'canGetAndSetFMUState="false" '
        'canSerializeFMUState="false"/>',
        f'  <CoSimulation modelIdentifier="{name}" canHandleVariableCommunicationStepSize="true" '
        f'fixedInternalStepSize="{_num(step_size)}" canGetAndSetFMUState="false" '
        'canSerializeFMUState="false" canReturnEarlyAfterIntermediateUpdate="false" '
        'hasEventMode="false"/>',
        "  <LogCategories>",
        '    <Category name="logEvents" description="informational messages"/>',
        '    <Category name="logStatusError" description="errors: bad values, failed steps"/>',
        "  </LogCategories>",
        f'  <DefaultExperiment startTime="0" stopTime="10" stepSize="{_num(step_size)}"/>',
        "  <ModelVariables>",
    ]
    for v in variables:
        a = _attrs(
            name=v.name,
            valueReference=v.vr,
            description=v.description,
            causality=v.causality,
            variability=v.variability,
            initial=v.initial,
            derivative=v.derivative,
            start=None if v.start is None else _num(v.start),
        )
        lines.append(f"    <Float64{a}/>")
    lines += ["  </ModelVariables>", "  <ModelStructure>"]
    lines += [
        f'    <Output valueReference="{v.vr}"/>' for v in variables if v.causality == "output"
    ]
    lines += [
        f'    <ContinuousStateDerivative valueReference="{v.vr}"/>'
        for v in variables
        if v.derivative is not None
    ]
    lines += [
        f'    <InitialUnknown valueReference="{v.vr}"/>'
        for v in variables
        if v.initial == "calculated"
    ]
    lines += ["  </ModelStructure>", "</fmiModelDescription>", ""]
    return "\n".join(lines)


def _description_fmi2(
    name: str, token: str, variables: list[_Var], step_size: float, description: str
) -> str:
    variables = [v for v in variables if v.vr != 0]  # FMI 2 has no variable for time
    index = {v.vr: i + 1 for i, v in enumerate(variables)}
    head = _attrs(
        fmiVersion="2.0",
        modelName=name,
        guid=token,
        description=description,
        generationTool=f"lagdyn {__version__}",
        variableNamingConvention="flat",
        numberOfEventIndicators=0,
    )
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<fmiModelDescription{head}>",
        # the binary allocates with malloc/free, not the importer's callbacks
        f'  <ModelExchange modelIdentifier="{name}" completedIntegratorStepNotNeeded="true" '
        'canNotUseMemoryManagementFunctions="true"/>',
        f'  <CoSimulation modelIdentifier="{name}" canHandleVariableCommunicationStepSize="true" '
        'canNotUseMemoryManagementFunctions="true"/>',
        "  <LogCategories>",
        '    <Category name="logEvents" description="informational messages"/>',
        '    <Category name="logStatusError" description="errors: bad values, failed steps"/>',
        "  </LogCategories>",
        f'  <DefaultExperiment startTime="0" stopTime="10" stepSize="{_num(step_size)}"/>',
        "  <ModelVariables>",
    ]
    for v in variables:
        a = _attrs(
            name=v.name,
            valueReference=v.vr,
            description=v.description,
            causality=v.causality,
            variability=v.variability,
            initial=v.initial,
        )
        real = _attrs(
            start=None if v.start is None else _num(v.start),
            derivative=None if v.derivative is None else index[v.derivative],
        )
        lines.append(f"    <ScalarVariable{a}><Real{real}/></ScalarVariable>")
    lines += ["  </ModelVariables>", "  <ModelStructure>"]

    def block(tag: str, chosen: list[_Var]) -> None:
        if chosen:
            lines.append(f"    <{tag}>")
            lines.extend(f'      <Unknown index="{index[v.vr]}"/>' for v in chosen)
            lines.append(f"    </{tag}>")

    block("Outputs", [v for v in variables if v.causality == "output"])
    block("Derivatives", [v for v in variables if v.derivative is not None])
    block("InitialUnknowns", [v for v in variables if v.initial == "calculated"])
    lines += ["  </ModelStructure>", "</fmiModelDescription>", ""]
    return "\n".join(lines)


def _build_description(name: str, sources: list[str]) -> str:
    files = "\n".join(f'      <SourceFile name="{s}"/>' for s in sources)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<fmiBuildDescription fmiVersion="3.0">\n'
        f'  <BuildConfiguration modelIdentifier="{name}">\n'
        '    <SourceFileSet language="C99">\n'
        f"{files}\n"
        "    </SourceFileSet>\n"
        '    <Library name="m"/>\n'
        "  </BuildConfiguration>\n"
        "</fmiBuildDescription>\n"
    )


def binary_platform(fmi: int) -> tuple[str, str]:
    """``(binaries folder, library suffix)`` of this platform for FMI ``fmi``.

    Raises
    ------
    LagdynError
        A platform this export cannot build a binary for (naming ``sources_only``).

    Examples
    --------
    >>> import sys, platform
    >>> from lagdyn.export.fmu import binary_platform
    >>> if sys.platform == "linux" and platform.machine() == "x86_64":
    ...     print(binary_platform(3), binary_platform(2))
    ... else:
    ...     print(('x86_64-linux', '.so'), ('linux64', '.so'))
    ('x86_64-linux', '.so') ('linux64', '.so')
    """
    key = ("darwin" if sys.platform == "darwin" else sys.platform, platform.machine().lower())
    if key[0].startswith("linux"):
        key = ("linux", "aarch64" if key[1] == "arm64" else key[1])
    found = PLATFORMS.get(key, {}).get(fmi)
    if found is None:
        raise LagdynError(
            f"no FMI {fmi}.0 binary for this platform ({key[0]}, {key[1]}): build one from a "
            "source-code FMU (sources_only=True, --sources-only)"
            + (" or export FMI 3.0" if fmi == 2 and 3 in PLATFORMS.get(key, {}) else "")
        )
    return found


def _compile(
    compiler: str, name: str, sources: dict[str, str], c_files: list[str], suffix: str
) -> bytes:
    with tempfile.TemporaryDirectory(prefix="lagdyn-fmu-") as tmp:
        for fname, text in sources.items():
            Path(tmp, fname).write_text(text, encoding="utf-8")
        out = Path(tmp, f"{name}{suffix}")
        cmd = [compiler, "-shared", "-fPIC", "-O2", "-std=c99", "-o", str(out)]
        cmd += [str(Path(tmp, c)) for c in c_files] + ["-lm"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise LagdynError(f"the C compiler {compiler!r} could not be run: {exc}") from exc
        if done.returncode != 0 or not out.exists():
            raise LagdynError(
                f"compiling the FMU binary failed ({compiler}, exit {done.returncode}):\n"
                f"{done.stderr.strip()[-2000:]}"
            )
        return out.read_bytes()


def _newton_sources(system: Any, name: str, parameters: list[Any]) -> dict[str, str]:
    """``NAME_nt.h``/``.c``: ``NAME_nt_J(q, qd, p, t)``, the (n, 4n + 1) rows [M, K, P_q, P_v, P]
    of the implicit midpoint's Newton iteration (K = ∂(M v)/∂q, P = K v − h + Q), the
    kernel ``lagdyn.simulate(method="midpoint")`` generates for the same system."""
    from ..codegen import Binding, export_files, expression_program
    from ..simulation.integrators import midpoint_newton_rows

    check_export_name(f"{name}_nt", "c")
    stacked = midpoint_newton_rows(system)
    n = system.n
    program = expression_program(
        system, {"J": list(stacked)}, {"J": (n, 4 * n + 1)}, Binding(parameters, None)
    )
    return export_files(program, "c", f"{name}_nt")


def _c_sources(
    system: Any,
    name: str,
    route: str | None,
    constraints: list[Any] | None,
    parameters: list[Any],
    newton: bool = False,
) -> tuple[dict[str, str], str]:
    """``NAME.h``/``NAME.c`` with every parameter free (and ``NAME_con.h``/``.c``: Φ, J_c,
    J̇_c q̇ of a constrained model), and the route they took."""
    import sympy as sp

    from ..codegen import Binding, export_files, expression_program, system_program
    from ..recursive.chain import chain_of
    from ..recursive.route import choose_route, recursive_program
    from . import code

    if constraints is not None:
        if chain_of(system) is not None or route == "recursive":
            raise LagdynError("FMU export of constrained robot chains is not supported")
        check_export_name(f"{name}_con", "c")
        binding = Binding(parameters, None)
        files = export_files(system_program(system, binding), "c", name)
        phi = sp.Matrix(constraints)
        J = phi.jacobian(list(system.q))
        qd = sp.Matrix(system.qd)
        jdq = (J * qd).jacobian(list(system.q)) * qd
        m, n = len(constraints), system.n
        program = expression_program(
            system,
            {"phi": list(phi), "J": list(J), "Jdot_qd": list(jdq)},
            {"phi": (m,), "J": (m, n), "Jdot_qd": (m,)},
            binding,
        )
        files.update(export_files(program, "c", f"{name}_con"))
        return files, "closed"
    if chain_of(system) is None:
        if route == "recursive":
            raise LagdynError("route='recursive' needs a robot chain (a RobotSystem)")
        chosen = "closed"
    else:
        chosen = choose_route(system, route)
    if chosen == "closed":
        files = code.generate(system, "c", name=name)
        if newton:
            files.update(_newton_sources(system, name, parameters))
        return files, chosen
    program = recursive_program(system, Binding(system.parameters, None))
    return export_files(program, "c", name), chosen


def export_fmu(
    system: Any,
    directory: str | Path,
    *,
    name: str = "model",
    params: Mapping[Any, float] | None = None,
    fmi: Literal[2, 3] = 3,
    inputs: Sequence[str | int] | None = None,
    step: Literal["rk4", "midpoint"] = "rk4",
    step_size: float = 1e-3,
    force: bool = False,
    sources_only: bool = False,
    route: Literal["closed", "recursive"] | None = None,
    baumgarte: tuple[float, float] = (5.0, 5.0),
) -> Path:
    """Write ``directory/NAME.fmu``: Model Exchange and Co-Simulation of ``system``.

    Parameters
    ----------
    system : LagrangianSystem or ConstrainedSystem
        A system with at least one coordinate (constrained: see ``baumgarte``).
    directory : str or Path
        Created with its parents when missing.
    name : str
        The FMU's ``modelIdentifier`` (and the prefix of its C functions): as for
        :func:`lagdyn.export.code.generate` with target ``"c"``; names ``ld`` or starting
        with ``fmi``, ``ld_``, ``lagdyn_fmu`` are reserved for the glue.
    params : mapping of parameter (or name) to float, optional
        Start values of parameters, overriding ``system.defaults``; every free parameter
        needs one (all stay tunable in the FMU).
    fmi : {3, 2}
        FMI version.
    inputs : sequence of coordinate names or indices, optional
        The actuated coordinates (one input ``tau.X`` each); default: all.
    step : {"rk4", "midpoint"}
        Co-Simulation's internal method.
    step_size : float
        Co-Simulation's internal step (s).
    force : bool
        Replace an existing ``NAME.fmu``.
    sources_only : bool
        Leave out the binary (no compiler needed); an importer builds it from ``sources/``.
    route : {"closed", "recursive"}, optional
        Robot chains (:class:`~lagdyn.robot.RobotSystem`): the C code of the recursive
        programs (CRBA, RNEA, ABA/LDLᵀ; no closed form is derived) or of the closed form;
        default by size, as ``system.lambdify`` (:mod:`lagdyn.recursive.route`). Other
        systems take the closed form.
    baumgarte : (alpha, beta)
        Constrained systems (:class:`~lagdyn.ConstrainedSystem`): start values of the
        Baumgarte gains, the tunable parameters ``baumgarte_alpha`` and ``baumgarte_beta``
        (the KKT system's acceleration constraint is J_c q̈ = −J̇_c q̇ − 2αΦ̇ − β²Φ, as
        ``ConstrainedSystem.simulate(baumgarte=(alpha, beta))``); the outputs
        ``lambda.K`` and ``phi.K`` are the multipliers and the residuals Φ_K(q).

    Returns
    -------
    pathlib.Path
        The ``.fmu`` written.

    Raises
    ------
    LagdynError
        A 0-DOF system, a constrained robot chain or constrained system with
        ``step="midpoint"``, a bad name, a parameter without a start value or
        with a bad one, an unknown input coordinate, an existing file without ``force``, no
        C compiler (unless ``sources_only``) or a failed compilation.

    Examples
    --------
    >>> import tempfile, lagdyn as ld
    >>> from lagdyn.export.fmu import export_fmu
    >>> export_fmu(ld.zoo.double_pendulum(), tempfile.mkdtemp(), name="not valid")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: export name 'not valid' must be an identifier: ...
    """
    if fmi not in (2, 3) or isinstance(fmi, bool):
        raise LagdynError(f"fmi={fmi!r}: the FMI version is 2 or 3")
    if step not in ("rk4", "midpoint"):
        raise LagdynError(f"step={step!r}: choose 'rk4' or 'midpoint'")
    if not isinstance(step_size, (int, float)) or not 0.0 < float(step_size) < float("inf"):
        raise LagdynError(f"step_size={step_size!r} must be a positive finite number")
    _check_name(name)
    system, constraints = _check_system(system)
    nc = len(constraints or ())
    if nc and step != "rk4":
        raise LagdynError("constrained systems export with step='rk4' only")
    if route not in (None, "closed", "recursive"):
        raise LagdynError(f"route={route!r}: choose 'closed', 'recursive' or None (by size)")
    target = Path(directory) / f"{name}.fmu"
    check_new_file(target, force=force)
    coords = coordinate_labels(system.q)
    actuated = _input_coordinates(inputs, coords)
    parameters = _all_parameters(system, constraints)
    starts = _parameter_starts(parameters, system.defaults, params)
    pnames = [str(s) for s in parameters]
    kinds = [1 if s.is_positive else 2 if s.is_nonnegative else 0 for s in parameters]
    if nc:
        gains = tuple(baumgarte) if isinstance(baumgarte, (tuple, list)) else ()
        if len(gains) != 2 or not all(
            isinstance(g, (int, float)) and 0.0 <= float(g) < float("inf") for g in gains
        ):
            raise LagdynError(f"baumgarte={baumgarte!r} must be two finite gains >= 0")
        pnames += ["baumgarte_alpha", "baumgarte_beta"]
        starts += [float(gains[0]), float(gains[1])]
        kinds += [2, 2]
    reserved = {"time", "energy", "baumgarte_alpha", "baumgarte_beta"}
    if len(set(pnames) | reserved) != len(pnames) + len(reserved) - (2 if nc else 0):
        raise LagdynError(
            f"a parameter named {', '.join(sorted(reserved & set(pnames[: len(parameters)])))} "
            "clashes with an FMU variable"
        )
    files, used_route = _c_sources(
        system, name, route, constraints, parameters, newton=step == "midpoint"
    )
    newton = f"{name}_nt.c" in files
    digest = hashlib.sha256()
    for key in sorted(files):
        digest.update(files[key].encode())
    digest.update(repr((fmi, coords, actuated, pnames, starts, step, step_size)).encode())
    token = "{" + str(uuid.UUID(bytes=digest.digest()[:16], version=4)) + "}"
    sources = dict(files)
    sources[_MODEL_HEADER] = _model_header(
        name,
        system.n,
        coords,
        actuated,
        pnames,
        starts,
        kinds,
        token,
        step,
        float(step_size),
        generated_fd=used_route == "recursive" or system.n <= _MAX_GENERATED_FD,
        nc=nc,
        newton=newton,
    )
    sources[_CORE] = _fmi_file(_CORE)
    sources[_GLUE[fmi]] = _fmi_file(_GLUE[fmi])
    for header in _HEADERS[fmi]:
        sources[header] = _fmi_file(header)
    c_files = [f"{name}.c", *([f"{name}_con.c"] if nc else [])]
    c_files += [*([f"{name}_nt.c"] if newton else []), _GLUE[fmi]]
    joints = _joint_names(system, system.n)
    variables = _variables(coords, actuated, pnames, starts, nc, joints)
    text = f"equations of motion of {name} ({system.n} DOF), generated by lagdyn"
    if nc:
        text = (
            f"equations of motion of {name} ({system.n} coordinates, {nc} constraints, "
            "Baumgarte-stabilised ODE), generated by lagdyn"
        )
    describe = _description_fmi3 if fmi == 3 else _description_fmi2
    model_description = describe(name, token, variables, float(step_size), text)
    binary = None
    if not sources_only:
        folder, suffix = binary_platform(fmi)
        compiler = find_compiler()
        if compiler is None:
            raise LagdynError(
                "no C compiler (cc, gcc or clang) on PATH to build the FMU binary: install "
                "one, or pass sources_only=True (--sources-only) for a source-code FMU"
            )
        binary = _compile(compiler, name, sources, c_files, suffix)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("modelDescription.xml", model_description)
        if fmi == 3:
            archive.writestr("sources/buildDescription.xml", _build_description(name, c_files))
        for fname in sorted(sources):
            archive.writestr(f"sources/{fname}", sources[fname])
        if binary is not None:
            archive.writestr(f"binaries/{folder}/{name}{suffix}", binary)
    return write_file_atomically(target, buffer.getvalue(), force=force)
