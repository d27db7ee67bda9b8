"""The ``lagdyn`` command line.

Subcommands
-----------
``lagdyn zoo``
    List the models.
``lagdyn derive MODEL [--latex | --markdown | --html | --json] [--simplify]``
    Derive a model, prove its structure and print M, C, g, the equations and the
    timings (coordinates without ``(t)``, dots for rates); or print it as LaTeX
    (``--standalone`` for a complete document, ``--group-parameters``,
    ``--trig short``), Markdown/HTML with KaTeX math, or JSON (expressions in the
    syntax of :func:`lagdyn.parse.parse_expr`, with ``dot(q1)`` for rates).
``lagdyn check MODEL``
    Run every structure proof; exit status 1 when one fails.
``lagdyn export MODEL --target c|cpp|jax|numba|julia|matlab --out DIR [--bind-defaults] [--force]``
    Write simulator source code (see :mod:`lagdyn.export.code`): every file or none,
    existing files refused unless ``--force``, never written through a symlink.
``lagdyn simulate MODEL [--t T] [--gif PATH] ...``
    Simulate and report energy drift and the passivity balance (see
    :mod:`lagdyn.cli.simulate`).
``lagdyn bench MODEL``
    Time the derivation and the proofs (and the numerics when :mod:`lagdyn.numeric`
    is available and the model has default parameter values).

MODEL is a name from ``lagdyn zoo`` (model options with ``-o/--option KEY=VALUE``, the same
spelling in every command), or a user model:

* ``--file model.py``: a Python file that defines ``system`` (a
  :class:`~lagdyn.LagrangianSystem`). The file **is executed** as Python, like
  ``python model.py``: use it only with your own files.
* ``--lagrangian "m*l**2*dot(th)**2/2 + m*g*l*cos(th)" --coordinates th
  [--parameters "m l g"] [--forces "-c*dot(th)"]``: parsed by the restricted parser
  (arithmetic and math functions only, never ``eval``). Without ``--parameters``
  every other name becomes a positive parameter. ``--forces`` takes one expression
  per coordinate, separated by ``;``.

Progress of long derivations goes to stderr (``--progress``; on by default when
stderr is a terminal). Errors print one line on stderr and exit with status 2.

Examples
--------
>>> import contextlib, io
>>> from lagdyn.cli import main
>>> with contextlib.redirect_stdout(io.StringIO()) as buf:
...     status = main(["zoo"])
>>> status, "double_pendulum " in buf.getvalue()
(0, True)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import runpy
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NoReturn, TextIO

import sympy as sp

from .. import structure, zoo
from .._files import write_files_atomically
from .._version import __version__
from ..errors import LagdynError
from ..system import LagrangianSystem
from .options import UsageError as _UsageError
from .options import parse_options

__all__ = ["main", "readable"]

TARGETS = ("c", "cpp", "jax", "numba", "julia", "matlab")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit code 2 (raised to main)
        raise _UsageError(message)


def _add_model_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", nargs="?", help="a name from `lagdyn zoo`")
    p.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the zoo model factory, e.g. -o coordinates=relative or -o n=4",
    )
    user = p.add_argument_group("user models (instead of MODEL)")
    user.add_argument("--file", metavar="PATH", help="a Python file defining `system` (executed!)")
    user.add_argument("--lagrangian", metavar="EXPR", help="L in the restricted syntax")
    user.add_argument("--coordinates", metavar="NAMES", help='coordinates of --lagrangian: "q1 q2"')
    user.add_argument("--parameters", metavar="NAMES", help='its parameters: "m l g"')
    user.add_argument("--forces", metavar="EXPRS", help="generalized forces, ';'-separated")
    p.add_argument("--progress", action="store_true", default=None, help="progress on stderr")
    p.add_argument("--no-progress", dest="progress", action="store_false")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lagdyn", description="Symbolic Euler–Lagrange equations of motion.")
    parser.add_argument("--version", action="version", version=f"lagdyn {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    sub.add_parser("zoo", help="list the models of the zoo")

    derive = sub.add_parser("derive", help="derive a model, prove its structure, print it")
    _add_model_arguments(derive)
    fmt = derive.add_mutually_exclusive_group()
    for flag, text in (
        ("--latex", "LaTeX"),
        ("--markdown", "Markdown with $$ math"),
        ("--html", "an HTML page (KaTeX)"),
        ("--json", "JSON"),
    ):
        fmt.add_argument(flag, dest="format", action="store_const", const=flag[2:], help=text)
    derive.add_argument("--simplify", action="store_true", help="sympy-simplify each entry")
    derive.add_argument("--no-proofs", action="store_true", help="skip the structure proofs")
    derive.add_argument(
        "--what",
        default=None,
        metavar="ITEMS",
        help="LaTeX/Markdown pieces, comma-separated: M,C,G,g,Q,christoffel,equations,energy",
    )
    derive.add_argument("--group-parameters", action="store_true", help="name constant groups")
    derive.add_argument("--trig", choices=("full", "short"), default="full")
    derive.add_argument("--standalone", action="store_true", help="a complete .tex document")

    check = sub.add_parser("check", help="run every structure proof (exit 1 on failure)")
    _add_model_arguments(check)

    export = sub.add_parser("export", help="write simulator source code")
    _add_model_arguments(export)
    export.add_argument("--target", "-t", required=True, choices=TARGETS)
    export.add_argument("--out", dest="output", required=True, metavar="DIR", help="directory")
    export.add_argument(
        "--force", action="store_true", help="overwrite existing files of the same names"
    )
    export.add_argument("--name", default=None, help="file/function prefix (default: the model)")
    export.add_argument(
        "--bind-defaults", action="store_true", help="fold the default parameter values in"
    )

    sim = sub.add_parser("simulate", help="simulate a model: energy report, plots, GIF/MP4")
    _add_model_arguments(sim)
    from .simulate import add_cli_arguments

    add_cli_arguments(sim, model_arguments=False)

    bench = sub.add_parser("bench", help="time derivation, proofs and numerics")
    _add_model_arguments(bench)
    bench.add_argument("--repeat", type=int, default=3, help="best of N builds (default 3)")
    bench.add_argument("--states", type=int, default=10_000, help="states for numeric timing")
    return parser


def _cmd_simulate(args: argparse.Namespace, out: Any) -> int:
    from .simulate import simulate_cli

    label, build = _model(args)
    return simulate_cli(args, out, system=build(), label=label)


# ---------------------------------------------------------------------- models
def _from_file(path_text: str) -> LagrangianSystem:
    path = Path(path_text)
    if not path.is_file():
        raise _UsageError(f"--file {path_text}: no such file")
    try:
        namespace = runpy.run_path(str(path), run_name="__lagdyn_model__")
    except LagdynError:
        raise
    except Exception as exc:  # the user's file failed: report it in one line
        raise _UsageError(f"--file {path_text} raised {type(exc).__name__}: {exc}") from exc
    system = namespace.get("system")
    if not isinstance(system, LagrangianSystem):
        found = "nothing" if system is None else type(system).__name__
        raise _UsageError(
            f"--file {path_text} must define `system` as a lagdyn.LagrangianSystem, found {found}"
        )
    return system


def _from_lagrangian(args: argparse.Namespace) -> LagrangianSystem:
    from ..parse import parse_expr
    from ..symbols import coordinates, parameters

    if not args.coordinates:
        raise _UsageError('--lagrangian needs --coordinates, e.g. --coordinates "q1 q2"')
    q = coordinates(args.coordinates)
    names: dict[str, sp.Basic] = {qi.func.__name__: qi for qi in q}
    strict = args.parameters is not None
    if strict:
        for p in parameters(args.parameters):
            if p.name in names:
                raise _UsageError(f"{p.name!r} is both a coordinate and a parameter")
            names[p.name] = p
    mode: Literal["error", "symbol"] = "error" if strict else "symbol"
    L = parse_expr(args.lagrangian, names, unknown=mode)
    forces = None
    if args.forces:
        parts = [s for s in args.forces.split(";")]
        if len(parts) != len(q):
            raise _UsageError(f"--forces has {len(parts)} expressions, expected {len(q)} (';')")
        forces = [parse_expr(s, names, unknown=mode) for s in parts]
    return LagrangianSystem(L, q, forces)


def _model(args: argparse.Namespace) -> tuple[str, Callable[[], LagrangianSystem]]:
    """The model's label and a factory building it (called again by ``bench``)."""
    given = [x for x in (args.model, args.file, args.lagrangian) if x]
    if len(given) != 1:
        what = "only one of" if given else "a model is required:"
        raise _UsageError(f"{what} a name from `lagdyn zoo`, --file or --lagrangian")
    if args.option and not args.model:
        raise _UsageError("-o/--option (KEY=VALUE) applies to zoo models only")
    for flag in ("coordinates", "parameters", "forces"):
        if getattr(args, flag) and not args.lagrangian:
            raise _UsageError(f"--{flag} applies to --lagrangian only")
    if args.model:
        options = parse_options(args.option)
        return args.model, lambda: zoo.get(args.model, **options)
    if args.file:
        return Path(args.file).stem, lambda: _from_file(args.file)
    return "user model", lambda: _from_lagrangian(args)


class _Progress:
    """One progress line on stderr: ``lagdyn: deriving M… C… g… proofs… done``."""

    def __init__(self, enabled: bool, label: str) -> None:
        self.enabled = enabled
        if enabled:
            print(f"lagdyn: {label}:", end="", file=sys.stderr, flush=True)

    def step(self, what: str) -> None:
        if self.enabled:
            print(f" {what}…", end="", file=sys.stderr, flush=True)

    def done(self, seconds: float) -> None:
        if self.enabled:
            print(f" done ({seconds * 1e3:.0f} ms)", file=sys.stderr, flush=True)
            self.enabled = False

    def abort(self) -> None:
        if self.enabled:
            print(file=sys.stderr)
            self.enabled = False


def _derive(system: LagrangianSystem, progress: _Progress) -> float:
    t0 = time.perf_counter()
    progress.step("deriving M")
    _ = system.M
    progress.step("C")
    _ = system.C
    progress.step("g")
    _ = system.g, system.G
    return time.perf_counter() - t0


# ---------------------------------------------------------------------- printing
def _dotted(name: str, dots: int) -> sp.Symbol:
    base, digits = re.fullmatch(r"(.*?)(\d*)", name).groups()  # type: ignore[union-attr]
    return sp.Symbol(base + ("", "dot", "ddot")[dots] + digits)


def readable(expr: Any, system: LagrangianSystem) -> Any:
    """``expr`` with q(t), q̇, q̈ replaced by plain symbols that pretty-print with dots.

    Examples
    --------
    >>> import sympy as sp, lagdyn as ld
    >>> arm = ld.zoo.two_link_planar()
    >>> print(sp.pretty(readable(arm.qd[0] * arm.q[1], arm), use_unicode=True))
    q₂⋅q̇₁
    """
    repl: dict[sp.Expr, sp.Symbol] = {}
    for q, qd, qdd in zip(system.q, system.qd, system.qdd):
        name = q.func.__name__
        repl[qdd] = _dotted(name, 2)
        repl[qd] = _dotted(name, 1)
        repl[q] = sp.Symbol(name)
    return sp.sympify(expr).xreplace(repl)


def _pretty(expr: Any, system: LagrangianSystem) -> str:
    return sp.pretty(readable(expr, system), use_unicode=True, wrap_line=False)


def _parseable(expr: Any, system: Any) -> str:
    """``expr`` in the restricted parser's syntax: ``q1``, ``dot(q1)``, ``ddot(q1)``."""
    repl: dict[sp.Expr, sp.Symbol] = {}
    for q, qd, qdd in zip(system.q, system.qd, system.qdd):
        name = q.func.__name__
        repl[qdd] = sp.Symbol(f"ddot({name})")
        repl[qd] = sp.Symbol(f"dot({name})")
        repl[q] = sp.Symbol(name)
    return str(sp.sympify(expr).xreplace(repl))


class _Simplified:
    """The attributes the printers read, each entry passed through ``sympy.simplify``."""

    def __init__(self, system: LagrangianSystem) -> None:
        def s(m: Any) -> sp.ImmutableMatrix:
            return sp.ImmutableMatrix(m.applyfunc(sp.simplify))

        self.system = system
        self.n, self.q, self.qd, self.qdd = system.n, system.q, system.qd, system.qdd
        self.parameters, self.tau = system.parameters, system.tau
        self.derivation_path = system.derivation_path
        self.M, self.C, self.G, self.g = s(system.M), s(system.C), s(system.G), s(system.g)
        self.h = s(system.h)
        self.forces = s(system.forces)
        self.christoffel = tuple(
            tuple(tuple(sp.simplify(x) for x in row) for row in plane)
            for plane in system.christoffel
        )
        self.U = sp.simplify(system.U)
        self.energy = sp.simplify(system.energy)


def _dof(n: int) -> str:
    return f"{n} degree{'s' if n != 1 else ''} of freedom"


def _cmd_zoo(out: TextIO) -> int:
    width = max(len(n) for n in zoo.names())
    for name in zoo.names():
        print(f"{name:<{width}}  {zoo.summary(name)}", file=out)
    return 0


def _show_progress(args: argparse.Namespace) -> bool:
    return bool(sys.stderr.isatty()) if args.progress is None else bool(args.progress)


def _cmd_derive(args: argparse.Namespace, out: TextIO) -> int:
    label, factory = _model(args)
    if args.format not in ("latex", "markdown", "html") and (
        args.what or args.group_parameters or args.standalone or args.trig != "full"
    ):
        raise _UsageError(
            "--what, --group-parameters, --trig, --standalone need --latex/--markdown/--html"
        )
    if args.standalone and args.format != "latex":
        raise _UsageError("--standalone needs --latex")
    t0 = time.perf_counter()
    system = factory()
    t_build = time.perf_counter() - t0
    progress = _Progress(_show_progress(args), label)
    try:
        t_derive = _derive(system, progress)
        view: Any = system
        if args.simplify:
            progress.step("simplifying")
            view = _Simplified(system)
        report = None
        if not args.no_proofs and args.format is None:
            progress.step("proofs")
            report = structure.check(system)
        progress.done(time.perf_counter() - t0)
    finally:
        progress.abort()
    if args.format in ("latex", "markdown", "html"):
        from ..export import latex, markdown

        what = tuple(w.strip() for w in args.what.split(",")) if args.what else None
        opts: dict[str, Any] = {"group_parameters": args.group_parameters, "trig": args.trig}
        if what:
            opts["what"] = what
        if args.format == "latex":
            print(latex(view, standalone=args.standalone, **opts), file=out)
        else:
            print(markdown(view, html=args.format == "html", title=label, **opts), file=out)
        return 0
    if args.format == "json":
        print(json.dumps(_json(label, view), indent=2, ensure_ascii=False), file=out)
        return 0
    _print_text(label, view, out)
    total = t_build + t_derive
    if report is not None:
        print("\nstructure:", file=out)
        for line, secs in zip(report.lines(), report.seconds.values()):
            print(f"  {line}  ({secs * 1e3:.1f} ms)", file=out)
        total += sum(report.seconds.values())
    print(
        f"\ntime: build {t_build * 1e3:.1f} ms, derive M C g {t_derive * 1e3:.1f} ms, "
        f"total {total * 1e3:.1f} ms",
        file=out,
    )
    return 0 if report is None or report.ok else 1


def _print_text(label: str, system: Any, out: TextIO) -> None:
    names = ", ".join(q.func.__name__ for q in system.q)
    print(f"{label}: {_dof(system.n)}, coordinates ({names})", file=out)
    print(f"parameters: {', '.join(str(p) for p in system.parameters)}", file=out)
    print(f"derivation path: {system.derivation_path}", file=out)
    for title, mat in (("M(q)", system.M), ("C(q, q̇)", system.C), ("g(q)", system.g)):
        print(f"\n{title} =", file=out)
        print(_pretty(mat, system), file=out)
    print("\nequations of motion  M q̈ + C q̇ + g = τ:", file=out)
    # C q̇ + G q̇ + g as system.h: built directly, factored into linear velocity forms
    eqs = system.M * sp.Matrix(system.qdd) + system.h
    for i in range(system.n):
        tau = sp.Symbol(f"τ_{system.q[i].func.__name__}")
        print(_pretty(sp.Eq(eqs[i], tau + system.forces[i]), system), file=out)


def _json(label: str, system: Any) -> dict[str, Any]:
    from ..export.latex import LagdynLatexPrinter

    tex = LagdynLatexPrinter(system.q).doprint
    n = system.n

    def mat(m: Any) -> list[list[str]]:
        return [[_parseable(m[i, j], system) for j in range(m.shape[1])] for i in range(m.shape[0])]

    eqs = system.M * sp.Matrix(system.qdd) + system.h
    return {
        "model": label,
        "n": n,
        "coordinates": [q.func.__name__ for q in system.q],
        "parameters": [str(p) for p in system.parameters],
        "derivation_path": system.derivation_path,
        "M": mat(system.M),
        "C": mat(system.C),
        "G": mat(system.G),
        "g": [_parseable(x, system) for x in system.g],
        "Q": [_parseable(x, system) for x in system.forces],
        "equations": [
            f"{_parseable(eqs[i], system)} = "
            f"{_parseable(sp.Symbol(f'tau_{i + 1}') + system.forces[i], system)}"
            for i in range(n)
        ],
        "latex": {"M": tex(system.M), "C": tex(system.C), "g": tex(system.g)},
    }


def _cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    label, factory = _model(args)
    system = factory()
    progress = _Progress(_show_progress(args), label)
    try:
        t0 = time.perf_counter()
        _derive(system, progress)
        progress.step("proofs")
        report = structure.check(system)
        progress.done(time.perf_counter() - t0)
    finally:
        progress.abort()
    print(f"{label}: {_dof(system.n)}, {system.derivation_path} path", file=out)
    for line, secs in zip(report.lines(), report.seconds.values()):
        print(f"  {line}  ({secs * 1e3:.1f} ms)", file=out)
    print("all proofs passed" if report.ok else "a proof FAILED", file=out)
    return 0 if report.ok else 1


def _cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    label, factory = _model(args)
    system = factory()
    try:
        from ..export import code
    except ImportError as exc:  # the numeric pipeline is an optional part of the install
        raise LagdynError(f"code export is unavailable: {exc}") from exc
    name = args.name or re.sub(r"\W", "_", label)
    if not name.isidentifier():
        raise _UsageError(f"--name {name!r} is not an identifier")
    params = system.defaults if args.bind_defaults else None
    if not args.output.strip():
        raise _UsageError("--out: empty directory name")
    files = code.generate(system, args.target, name=name, params=params)
    paths = write_files_atomically(args.output, files, force=args.force)
    for p in paths:
        print(p, file=out)
    return 0


def _best(factory: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        value = factory()
        best = min(best, time.perf_counter() - t0)
    return best, value


def _cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    label, factory = _model(args)
    if args.repeat < 1 or args.states < 1:
        raise _UsageError("--repeat and --states must be positive")
    progress = _Progress(_show_progress(args), label)
    rows: list[tuple[str, float]] = []
    try:
        progress.step("building")
        t_build, system = _best(factory, args.repeat)
        rows.append(("build", t_build))
        progress.step("deriving")

        def derived() -> LagrangianSystem:
            s = factory()
            _derive(s, _Progress(False, ""))
            return s

        t_all, system = _best(derived, args.repeat)
        rows.append(("derive M C G g", t_all - t_build))
        progress.step("proofs")
        t_proof, report = _best(lambda: structure.check(factory()), args.repeat)
        rows.append(("structure proofs (incl. build + derive)", t_proof))
        progress.done(sum(r[1] for r in rows))
    finally:
        progress.abort()
    print(f"{label}: {_dof(system.n)}, {system.derivation_path} path", file=out)
    for what, secs in rows:
        print(f"  {what:<42} {secs * 1e3:9.2f} ms", file=out)
    print(f"  proofs: {'all passed' if report.ok else 'a proof FAILED'}", file=out)
    for line in _bench_numeric(system, args.states):
        print(f"  {line}", file=out)
    return 0


def _bench_numeric(system: LagrangianSystem, states: int) -> list[str]:
    try:
        import numpy as np

        from .. import numeric
    except ImportError as exc:
        return [f"numeric: unavailable ({exc})"]
    missing = [str(p) for p in system.parameters if p not in system.defaults]
    if missing:
        return [f"numeric: skipped, no default values for {', '.join(missing)}"]
    try:
        t0 = time.perf_counter()
        num = numeric.lambdify(system, system.defaults)
        t_lam = time.perf_counter() - t0
        rng = np.random.default_rng(0)
        q = rng.uniform(-np.pi, np.pi, (states, system.n))
        qd = rng.normal(size=(states, system.n))
        num.forward_dynamics(q[:2], qd[:2])  # warm up
        t_m, _ = _best(lambda: num.M(q), 3)
        t_fd, _ = _best(lambda: num.forward_dynamics(q, qd), 3)
    except Exception as exc:  # the numeric layer is optional here: report, do not fail
        return [f"numeric: failed ({type(exc).__name__}: {exc})"]
    per = 1e9 / states
    return [
        f"{'lambdify (codegen + compile or cache)':<42} {t_lam * 1e3:9.2f} ms",
        f"{f'M, {states} states':<42} {t_m * 1e3:9.2f} ms  ({t_m * per:.0f} ns/state)",
        f"{f'forward dynamics, {states} states':<42} {t_fd * 1e3:9.2f} ms  "
        f"({t_fd * per:.0f} ns/state)",
    ]


#: Options whose value may start with "-" (an expression or a list of numbers).
_DASH_VALUES = ("--lagrangian", "--forces", "--x0")


def _join_dash_values(argv: Sequence[str]) -> list[str]:
    """``--lagrangian -x**2`` → ``--lagrangian=-x**2`` (argparse would take it for an option)."""
    out: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        if items[i] in _DASH_VALUES and i + 1 < len(items) and items[i + 1].startswith("-"):
            out.append(f"{items[i]}={items[i + 1]}")
            i += 2
        else:
            out.append(items[i])
            i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lagdyn`` command with arguments ``argv``; return the exit status.

    Exit status 0 on success, 1 when ``check`` (or ``derive``) finds a failing
    structure proof, 2 on any error (one line on stderr, no traceback).

    Examples
    --------
    >>> from lagdyn.cli import main
    >>> main(["derive", "no_such_model"])
    2
    >>> main(["derive", "--lagrangian", "dot(x)**2/2 - k*x**2/2", "--coordinates", "x",
    ...       "--json"])  # doctest: +ELLIPSIS
    {
      "model": "user model",
      "n": 1,
      "coordinates": [
        "x"
      ],
      "parameters": [
        "k"
      ],
    ...
    0
    """
    parser = _build_parser()
    out = sys.stdout
    try:
        args = parser.parse_args(_join_dash_values(sys.argv[1:] if argv is None else argv))
        if args.command == "zoo":
            return _cmd_zoo(out)
        commands = {
            "derive": _cmd_derive,
            "check": _cmd_check,
            "export": _cmd_export,
            "bench": _cmd_bench,
            "simulate": _cmd_simulate,
        }
        if args.command in commands:
            return commands[args.command](args, out)
        parser.print_help(out)
        return 0
    except BrokenPipeError:  # `lagdyn ... | head`: stop quietly
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # no second error at interpreter exit
        return 1
    except (_UsageError, LagdynError, TypeError, OSError) as exc:
        message = " ".join(str(exc).split())
        print(f"lagdyn: error: {message}", file=sys.stderr)
        return 2
    except Exception as exc:  # anything else: still one line, no traceback
        message = " ".join(str(exc).split())
        print(f"lagdyn: error: {type(exc).__name__}: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
