"""The subcommands of ``lagdyn`` (see :mod:`lagdyn.cli`): models, printing, proofs, export,
benchmarks.

Examples
--------
>>> import lagdyn as ld
>>> from lagdyn.cli.commands import readable
>>> readable(ld.zoo.double_pendulum().qd[0], ld.zoo.double_pendulum())
adot
"""

from __future__ import annotations

import argparse
import json
import re
import runpy
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TextIO

import sympy as sp
from sympy.printing.str import StrPrinter

from .. import structure, zoo
from .._files import check_new_file, write_files_atomically
from ..errors import LagdynError
from ..system import LagrangianSystem
from ..trig.forms import natural_form
from .options import UsageError as _UsageError
from .options import check_input_file, check_output, parse_options, urdf_parameters

__all__ = ["readable", "run"]


def run(args: argparse.Namespace, out: Any) -> int:
    """Run the parsed subcommand ``args.command``; return the exit status.

    Examples
    --------
    >>> import argparse, io
    >>> from lagdyn.cli.commands import run
    >>> buf = io.StringIO()
    >>> run(argparse.Namespace(command="zoo"), buf), "cart_pole" in buf.getvalue()
    (0, True)
    """
    if args.command == "zoo":
        return _cmd_zoo(out)
    commands: dict[str, Callable[[argparse.Namespace, Any], int]] = {
        "derive": _cmd_derive,
        "check": _cmd_check,
        "export": _cmd_export,
        "lab": _cmd_lab,
        "bench": _cmd_bench,
        "simulate": _cmd_simulate,
    }
    return commands[args.command](args, out)


def _cmd_simulate(args: argparse.Namespace, out: Any) -> int:
    from .simulate import simulate_cli

    label, build = _model(args)
    return simulate_cli(args, out, system=build(), label=label)


# ---------------------------------------------------------------------- models
#: Most coordinates a --lagrangian model may have (`x:5000` would derive for hours).
MAX_COORDINATES = 200


def _from_file(path_text: str) -> LagrangianSystem:
    path = Path(path_text)
    if not path.is_file():
        raise _UsageError(f"--file {path_text}: no such file")
    try:
        namespace = runpy.run_path(str(path), run_name="__lagdyn_model__")
    except LagdynError:
        raise
    except SystemExit as exc:  # sys.exit() in a model file is not the model's result
        raise _UsageError(
            f"--file {path_text} called sys.exit({exc.code!r}) instead of defining `system`"
        ) from None
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
    if len(q) > MAX_COORDINATES:
        raise _UsageError(
            f"--coordinates gives {len(q)} coordinates; the command line takes at most "
            f"{MAX_COORDINATES} (build larger models in Python)"
        )
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
        forces = [parse_expr(s, names, unknown=mode, time=True) for s in parts]
    return LagrangianSystem(L, q, forces)


#: The options of --urdf and the from_urdf keyword each one sets.
_URDF_FLAGS = ("lock", "fixed_base", "friction", "no_check_inertia")

#: Advice in from_urdf's messages (Python keywords) and the flag that does the same.
_URDF_HINTS = (
    ("locked=", "--lock JOINT"),
    ("check_inertia=False", "--no-check-inertia"),
    ("base='fixed'", "--fixed-base"),
)


def _urdf_message(path: str, text: str) -> str:
    """A message of :func:`lagdyn.robot.from_urdf` as the CLI says it: the option and the
    path first, the command-line flags for the Python keywords it suggests."""
    flags = [flag for word, flag in _URDF_HINTS if word in text]
    hint = f" (on the command line: {', '.join(flags)})" if flags else ""
    return f"--urdf {path}: {text}{hint}"


def _from_urdf(args: argparse.Namespace, shown: set[str]) -> LagrangianSystem:
    """The robot of ``--urdf`` (see :func:`lagdyn.robot.from_urdf`).

    The path is passed as a :class:`~pathlib.Path`, so it is always read as a file (never
    as XML text), by from_urdf's one parser. Its warnings (a root link carrying mass,
    odd inertias) go to stderr as ``lagdyn: warning: …`` lines, each once per run.
    """
    import warnings

    from ..robot import from_urdf

    path = check_input_file("--urdf", args.urdf)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            system = from_urdf(
                path,
                parameters=urdf_parameters(args.parameters),
                friction=bool(args.friction),
                locked=tuple(args.lock),
                base="fixed" if args.fixed_base else None,
                check_inertia=not args.no_check_inertia,
            )
    except LagdynError as exc:
        raise LagdynError(_urdf_message(args.urdf, str(exc))) from None
    except LookupError as exc:  # the XML reader's own: an unknown encoding
        raise LagdynError(
            _urdf_message(args.urdf, f"unreadable XML: {type(exc).__name__}: {exc}")
        ) from None
    for w in caught:
        message = " ".join(_urdf_message(args.urdf, str(w.message)).split())
        if message not in shown:
            shown.add(message)
            print(f"lagdyn: warning: {message}", file=sys.stderr)
    if not isinstance(system, LagrangianSystem):  # a URDF declaring a floating joint
        raise LagdynError(
            _urdf_message(
                args.urdf,
                "it declares a floating base, which the command line does not handle (no "
                "Lagrangian in a quaternion); use ld.robot.from_urdf(path) in Python "
                "(docs/floating_base.md)",
            )
        )
    return system


def _model(args: argparse.Namespace) -> tuple[str, Callable[[], LagrangianSystem]]:
    """The model's label and a factory building it (called again by ``bench``)."""
    urdf = getattr(args, "urdf", None)
    given = [x for x in (args.model, args.file, args.lagrangian) if x]
    if urdf is not None:
        given.append(urdf)
    if len(given) != 1:
        what = "only one of" if given else "a model is required:"
        raise _UsageError(f"{what} a name from `lagdyn zoo`, --file, --lagrangian or --urdf")
    if args.option and not args.model:
        raise _UsageError("-o/--option (KEY=VALUE) applies to zoo models only")
    for flag in ("coordinates", "forces"):
        if getattr(args, flag) and not args.lagrangian:
            raise _UsageError(f"--{flag} applies to --lagrangian only")
    if args.parameters is not None and not (args.lagrangian or urdf is not None):
        raise _UsageError("--parameters applies to --lagrangian and --urdf only")
    for flag in _URDF_FLAGS:
        if getattr(args, flag, None) and urdf is None:
            raise _UsageError(f"--{flag.replace('_', '-')} applies to --urdf only")
    if args.model:
        options = parse_options(args.option)
        zoo.check_options(args.model, options)  # a mistyped name or option: before any work
        if args.model in zoo.constrained_names():
            raise _UsageError(
                f"{args.model} is a constrained model (ld.ConstrainedSystem), which the "
                f"command line does not take; use it from Python: ld.zoo.get({args.model!r})"
            )
        if args.model in zoo.floating_names():
            raise _UsageError(
                f"{args.model} is a floating-base robot (ld.robot.FloatingRobot), which the "
                f"command line does not take; use it from Python: ld.zoo.get({args.model!r})"
            )
        return args.model, lambda: zoo.get(args.model, **options)
    if args.file:
        return Path(args.file).stem, lambda: _from_file(args.file)
    if urdf is not None:
        check_input_file("--urdf", urdf)  # before any work
        urdf_parameters(args.parameters)
        shown: set[str] = set()
        return Path(urdf).stem, lambda: _from_urdf(args, shown)
    return "user model", lambda: _from_lagrangian(args)


def _closed_too_large(system: Any) -> str | None:
    """For a robot whose closed form exceeds its ``closed_limit``: why, in one phrase.

    ``None`` for every other system (and for robots within the limit): no closed form is
    built here, only its size estimated (:func:`lagdyn.recursive.route.closed_size`).
    """
    from ..recursive import chain_of

    if chain_of(system) is None:
        return None
    from ..recursive.route import CLOSED_LIMIT, closed_size

    limit = getattr(system, "closed_limit", None)
    limit = CLOSED_LIMIT if limit is None else limit
    found = closed_size(system)
    if found.size <= limit:
        return None
    angles = f" and {found.angles} distinct constant angles" if found.angles else ""
    return (
        f"the closed form of this robot is too large to build (size {found.size}: "
        f"{found.joints} joints{angles} on the path to link {found.link!r}; the limit is "
        f"{limit:g})"
    )


def _joints_line(system: Any) -> str | None:
    """``joints: q1 = shoulder, q2 = elbow (prismatic)`` for a robot, else ``None``."""
    from ..recursive import chain_of

    chain = chain_of(system)
    if chain is None:
        return None
    parts = []
    for q, name, link in zip(system.q, chain.joint_names, chain.links):
        kind = "" if link.joint == "revolute" else f" ({link.joint})"
        parts.append(f"{q.func.__name__} = {name}{kind}")
    return f"joints: {', '.join(parts)}"


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
    """The symbol of coordinate ``name``'s ``dots``-th rate, marked on the whole name.

    A name printed as one letter (``x``, ``theta``, ``q1``) takes dots over it (ẋ, θ̈, q̇₁);
    a longer one takes primes after it (``th'``, ``lc''₂``): a combining dot would sit on
    its last letter only (``tḣ``) and read as a different symbol.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.cli.commands import _dotted
    >>> [sp.pretty(_dotted(n, 2), use_unicode=True) for n in ("th", "theta_1", "q2")]
    ["th''", 'θ̈₁', 'q̈₂']
    """
    base, digits = re.fullmatch(r"(.*?)_?(\d*)", name).groups()  # type: ignore[union-attr]
    if dots == 0:
        return sp.Symbol(name)
    index = f"_{digits}" if digits else ""
    if base and len(sp.pretty(sp.Symbol(base), use_unicode=True)) == 1:
        return sp.Symbol(base + ("", "dot", "ddot")[dots] + index)
    return sp.Symbol((base or name) + "'" * dots + (index if base else ""))


def readable(expr: Any, system: LagrangianSystem, *, unicode_names: bool = False) -> Any:
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
    if unicode_names:  # symbols named as they pretty-print (φ̇₁, l₁₀), for linear output
        for p in sp.sympify(expr).free_symbols:
            if p not in repl:
                repl[p] = p
        repl = {k: _unicode_symbol(v) for k, v in repl.items()}
    # the form a person writes (sin²θ rather than 1/2 − cos 2θ/2); values are unchanged
    expr = sp.sympify(expr)
    if isinstance(expr, sp.MatrixBase):
        expr = expr.applyfunc(natural_form)
    elif isinstance(expr, sp.Equality):
        expr = sp.Eq(natural_form(expr.lhs), natural_form(expr.rhs), evaluate=False)
    else:
        expr = natural_form(expr)
    return expr.xreplace(repl)


#: Expressions with more nodes than this are printed on one line in sympy's linear syntax,
#: terms in stored order: the 2-D pretty printer costs more than deriving them.
LARGE = 400


def _nodes(expr: Any, limit: int) -> int:
    """The number of nodes of ``expr``, counted up to ``limit``."""
    count, stack = 0, [expr]
    while stack and count <= limit:
        node = stack.pop()
        count += 1
        stack.extend(getattr(node, "args", ()))
    return count


_UNICODE: dict[sp.Symbol, sp.Symbol] = {}


def _unicode_symbol(symbol: sp.Symbol) -> sp.Symbol:
    found = _UNICODE.get(symbol)
    if found is None:
        found = _UNICODE[symbol] = sp.Symbol(sp.pretty(symbol, use_unicode=True))
    return found


def _pretty(expr: Any, system: LagrangianSystem) -> str:
    if _nodes(expr, LARGE) <= LARGE:
        return sp.pretty(readable(expr, system), use_unicode=True, wrap_line=False)
    if isinstance(expr, sp.Equality):
        return f"{_pretty(expr.lhs, system)} = {_pretty(expr.rhs, system)}"
    # large: one line in sympy's linear syntax with the pretty symbol names, terms in
    # stored order (2-D layout and sorting cost more than the derivation at n ≈ 15)
    return _linear_printer(system).doprint(natural_form(expr))


class _LinearPrinter(StrPrinter):
    """sympy's linear syntax (``sstr`` with ``order="none"``) that prints q(t), q̇, q̈ and
    parameters under their pretty names without substituting them into the expression
    (sympy's ``xreplace`` rebuilds and re-sorts every node) and prints each distinct
    subexpression once (a node's text does not depend on its parent: the parent adds
    the parentheses)."""

    def __init__(self, names: dict[sp.Basic, str]) -> None:
        super().__init__({"order": "none"})
        self._names = names
        self._memo: dict[sp.Basic, str] = {}

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if kwargs:
            return super()._print(expr, **kwargs)
        found = self._memo.get(expr)
        if found is None:
            found = self._names.get(expr)
            if found is None:
                if isinstance(expr, sp.Symbol):
                    found = str(_unicode_symbol(expr))
                else:
                    found = super()._print(expr)
            self._memo[expr] = found
        return found


def _linear_printer(system: Any) -> _LinearPrinter:
    printer = _PRINTERS.get(id(system))
    if printer is None or printer[0] is not system:
        names: dict[sp.Basic, str] = {}
        for q, qd, qdd in zip(system.q, system.qd, system.qdd):
            name = q.func.__name__
            names[qdd] = str(_unicode_symbol(_dotted(name, 2)))
            names[qd] = str(_unicode_symbol(_dotted(name, 1)))
            names[q] = str(_unicode_symbol(sp.Symbol(name)))
        printer = (system, _LinearPrinter(names))
        _PRINTERS.clear()  # one system at a time: the memo holds its subexpressions
        _PRINTERS[id(system)] = printer
    return printer[1]


_PRINTERS: dict[int, tuple[Any, _LinearPrinter]] = {}


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


#: Exit status when a structure property is neither proved nor refuted (see lagdyn.cli).
EXIT_UNKNOWN = 3

_PROOF_NAMES = {
    "symmetric": "M symmetric",
    "skew_symmetric": "Ṁ − 2C skew-symmetric",
    "passive": "passivity",
    "positive_definite": "M positive definite",
}


def _proofs(report: Any) -> dict[str, bool | None]:
    return {key: getattr(report, key) for key in _PROOF_NAMES}


def _verdict(report: Any) -> tuple[str, int]:
    """The summary line and exit status: 0 all proved, 1 one refuted, 3 one unknown."""
    results = _proofs(report)
    failed = [_PROOF_NAMES[k] for k, v in results.items() if v is False]
    unknown = [_PROOF_NAMES[k] for k, v in results.items() if v is None]
    if failed:
        return f"a proof FAILED: {', '.join(failed)}", 1
    if unknown:
        return (
            f"not proven (neither proved nor refuted): {', '.join(unknown)}",
            EXIT_UNKNOWN,
        )
    return "all proofs passed", 0


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
    if args.symbol and args.format != "latex":
        raise _UsageError("--symbol needs --latex")
    symbols: dict[str, str] = {}
    for item in args.symbol:
        name, eq, tex = item.partition("=")
        if not eq or not name.strip() or not tex.strip():
            raise _UsageError(f"--symbol takes NAME=LATEX (e.g. 'lc2=\\ell_{{c_2}}'), got {item!r}")
        symbols[name.strip()] = tex.strip()
    progress = _Progress(_show_progress(args), label)
    t0 = time.perf_counter()
    try:
        # building splits L into M, b, U: the long silent phase of large models
        progress.step("building the system")
        system = factory()
        t_build = time.perf_counter() - t0
        too_large = _closed_too_large(system)
        if too_large is not None:
            progress.abort()
            return _derive_recursive(args, label, system, too_large, t_build, out)
        t_derive = _derive(system, progress)
        view: Any = system
        if args.simplify:
            progress.step("simplifying")
            view = _Simplified(system)
        report = None
        if not args.no_proofs and args.format in (None, "json"):
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
            print(latex(view, standalone=args.standalone, symbols=symbols, **opts), file=out)
        else:
            print(markdown(view, html=args.format == "html", title=label, **opts), file=out)
        return 0
    if args.format == "json":
        data = _json(label, view)
        if args.base_parameters:
            from ..identification import base_parameters, linear_parameters

            syms = [p for p in system.parameters if p.name != "g"]
            standard = linear_parameters(system, syms)
            data["base_parameters"] = [str(b) for b in base_parameters(system, standard).base]
        if report is not None:
            data["proofs"] = _proofs(report)
            data["proofs_verdict"] = _verdict(report)[0]
        print(json.dumps(data, indent=2, ensure_ascii=False), file=out)
        return 0 if report is None else _verdict(report)[1]
    _print_text(label, view, out)
    if args.base_parameters:
        from ..identification import base_parameters_text

        print("\nbase parameters:", file=out)
        print(base_parameters_text(system), file=out)
    total = t_build + t_derive
    if report is not None:
        print("\nstructure:", file=out)
        for line, secs in zip(report.lines(), report.seconds.values()):
            print(f"  {line}  ({secs * 1e3:.1f} ms)", file=out)
        for note in report.notes:
            print(f"  note: {note}", file=out)
        total += sum(report.seconds.values())
    print(
        f"\ntime: build {t_build * 1e3:.1f} ms, derive M C g {t_derive * 1e3:.1f} ms, "
        f"total {total * 1e3:.1f} ms",
        file=out,
    )
    if report is None:
        return 0
    line, status = _verdict(report)
    print(line, file=out)
    for note in report.notes:
        print(f"note: {note}", file=out)
    return status


def _derive_recursive(
    args: argparse.Namespace, label: str, system: Any, why: str, t_build: float, out: TextIO
) -> int:
    """``derive`` of a robot whose closed form is refused: what can be printed without it.

    The text output gives the chain (coordinates, joints, parameters), says why M, C, g are
    not printed, and runs the proofs of the recursive programs (as ``check`` does); the
    formats that consist of the closed form (LaTeX, Markdown, HTML, JSON) are refused.
    """
    if args.format is not None or args.simplify or args.base_parameters:
        what = f"--{args.format}" if args.format else "--simplify/--base-parameters"
        raise LagdynError(
            f"{label}: {why}, and derive {what} prints the closed form; without it: "
            "`lagdyn derive` (the chain and the recursive proofs), `lagdyn check`, "
            "`lagdyn export -t casadi` (the recursive programs)"
        )
    names = ", ".join(q.func.__name__ for q in system.q)
    print(f"{label}: {_dof(system.n)}, coordinates ({names})", file=out)
    print(_joints_line(system), file=out)
    print(f"parameters: {', '.join(str(p) for p in system.parameters) or 'none'}", file=out)
    print(
        f"\nM(q), C(q, q̇), g(q) and the equations are not printed: {why}. The recursive "
        "route builds none: `lagdyn simulate` and `lagdyn export -t casadi` take it.",
        file=out,
    )
    if args.no_proofs:
        print(f"\ntime: build {t_build * 1e3:.1f} ms", file=out)
        return 0
    from ..recursive import proofs

    t0 = time.perf_counter()
    report = proofs.prove(system)
    print("\nstructure (recursive programs, as `lagdyn check`):", file=out)
    for line, secs in zip(report.lines(), report.seconds.values()):
        print(f"  {line}  ({secs * 1e3:.1f} ms)", file=out)
    print(
        f"\ntime: build {t_build * 1e3:.1f} ms, recursive programs "
        f"{report.build_seconds * 1e3:.1f} ms, proofs "
        f"{(time.perf_counter() - t0 - report.build_seconds) * 1e3:.1f} ms",
        file=out,
    )
    return _programs_verdict(report, out)


#: Matrices whose pretty form is wider than this are printed one entry per line.
WIDTH = 100


def _print_matrix(title: str, mat: Any, system: Any, out: TextIO) -> None:
    # the linear form is a cheap lower bound on the width: a matrix whose entries
    # already overflow it goes one entry per line without a whole-matrix pretty print
    narrow = sum(
        max(6 * len(sp.Add.make_args(mat[i, j])) for i in range(mat.rows)) for j in range(mat.cols)
    )
    if narrow <= WIDTH:
        text = _pretty(mat, system)
        if max(map(len, text.splitlines()), default=0) <= WIDTH:
            print(f"\n{title} =", file=out)
            print(text, file=out)
            return
    print(f"\n{title}, one entry per line:", file=out)
    symbol = title.split("(")[0]
    for i in range(mat.rows):
        for j in range(mat.cols):
            if mat[i, j] == 0:
                continue
            index = f"[{i + 1}, {j + 1}]" if mat.cols > 1 else f"[{i + 1}]"
            print(f"{symbol}{index} =", file=out)
            print(_pretty(mat[i, j], system), file=out)


def _print_text(label: str, system: Any, out: TextIO) -> None:
    names = ", ".join(q.func.__name__ for q in system.q)
    print(f"{label}: {_dof(system.n)}, coordinates ({names})", file=out)
    joints = _joints_line(getattr(system, "system", system))  # through --simplify's view
    if joints:
        print(joints, file=out)
    print(f"parameters: {', '.join(str(p) for p in system.parameters)}", file=out)
    print(f"derivation path: {system.derivation_path}", file=out)
    items = [("M(q)", system.M), ("C(q, q̇)", system.C)]
    if any(e != 0 for e in system.G):
        items.append(("G(q)", system.G))  # gyroscopic terms from L linear in q̇
    items.append(("g(q)", system.g))
    if any(e != 0 for e in system.forces):
        items.append(("Q(q, q̇)", system.forces))  # generalized forces
    for title, mat in items:
        _print_matrix(title, mat, system, out)
    print("\nequations of motion  M q̈ + C q̇ + G q̇ + g = τ + Q:", file=out)
    # C q̇ + G q̇ + g as system.h: built directly, factored into linear velocity forms
    eqs = system.M * sp.Matrix(system.qdd) + system.h
    for i in range(system.n):
        tau = sp.Symbol(f"τ_{i + 1}")  # numbered like the LaTeX export: τ₁, τ₂, …
        eq = sp.Eq(eqs[i], tau + system.forces[i], evaluate=False)  # no is_eq/evalf pass
        print(_pretty(eq, system), file=out)


def _json(label: str, system: Any) -> dict[str, Any]:
    from ..export.latex import LagdynLatexPrinter

    tex = LagdynLatexPrinter(system.q).doprint
    n = system.n

    def mat(m: Any) -> list[list[str]]:
        return [[_parseable(m[i, j], system) for j in range(m.shape[1])] for i in range(m.shape[0])]

    eqs = system.M * sp.Matrix(system.qdd) + system.h
    from ..recursive import chain_of

    chain = chain_of(getattr(system, "system", system))  # through --simplify's view
    joints = {"joints": list(chain.joint_names)} if chain is not None else {}
    return {
        "model": label,
        "n": n,
        "coordinates": [q.func.__name__ for q in system.q],
        **joints,
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
    if args.route == "recursive":
        return _check_programs(label, factory(), out)
    progress = _Progress(_show_progress(args), label)
    try:
        t0 = time.perf_counter()
        progress.step("building the system")
        system = factory()
        too_large = _closed_too_large(system)
        if too_large is not None:  # a robot: its recursive programs, unless told otherwise
            progress.abort()
            if args.route == "closed":
                raise LagdynError(f"{label}: {too_large}; use --route recursive")
            note = f"note: {too_large}: the recursive programs are proved instead"
            return _check_programs(label, system, out, note=note)
        _derive(system, progress)
        progress.step("proofs")
        report = structure.check(system)
        progress.done(time.perf_counter() - t0)
    finally:
        progress.abort()
    print(f"{label}: {_dof(system.n)}, {system.derivation_path} path", file=out)
    for line, secs in zip(report.lines(), report.seconds.values()):
        print(f"  {line}  ({secs * 1e3:.1f} ms)", file=out)
    line, status = _verdict(report)
    print(line, file=out)
    for note in report.notes:
        print(f"note: {note}", file=out)
    return status


def _check_programs(label: str, system: Any, out: TextIO, note: str | None = None) -> int:
    """``check --route recursive``: the identities of a robot's programs."""
    from ..recursive import chain_of

    if chain_of(system) is None:
        raise _UsageError(f"--route recursive needs a robot arm; {label} is not one")
    from ..recursive import proofs

    t0 = time.perf_counter()
    report = proofs.prove(system)
    print(
        f"{label}: {_dof(system.n)}, recursive programs "
        f"(built in {report.build_seconds:.2f} s, proved in "
        f"{time.perf_counter() - t0 - report.build_seconds:.2f} s)",
        file=out,
    )
    if note:
        print(note, file=out)
    for line, secs in zip(report.lines(), report.seconds.values()):
        print(f"  {line}  ({secs * 1e3:.1f} ms)", file=out)
    return _programs_verdict(report, out)


def _programs_summary(report: Any) -> tuple[str, int]:
    """The summary line of the recursive proofs and the exit status (0, 1 or 3)."""
    values = list(report.results.values())
    if False in values:
        return "a proof FAILED", 1
    if None in values:
        return "not proven (neither proved nor refuted)", EXIT_UNKNOWN
    return "all proofs passed", 0


def _programs_verdict(report: Any, out: TextIO) -> int:
    """Print :func:`_programs_summary`'s line; return its exit status."""
    line, status = _programs_summary(report)
    print(line, file=out)
    return status


#: Export targets printed from the closed form (robots above the closed limit cannot use
#: them); ``casadi`` follows the route of ``lambdify`` (recursive for robots).
_CLOSED_FORM_TARGETS = ("c", "cpp", "jax", "numba", "julia", "matlab", "js")


_FMU_OPTIONS = ("fmi", "inputs", "step", "step_size")


def _export_fmu(args: argparse.Namespace, label: str, system: Any, out: TextIO) -> int:
    """``export -t fmu``: one ``.fmu`` (see :func:`lagdyn.export.fmu.export_fmu`)."""
    from ..export.fmu import export_fmu

    if args.bind_defaults:
        raise _UsageError(
            "--bind-defaults does not apply to -t fmu: every parameter stays tunable, with "
            "its default as start value"
        )
    name = args.name or re.sub(r"\W", "_", label)
    check_output("--out", args.output, directory=True)
    inputs = None
    if args.inputs is not None:
        inputs = [c.strip() for c in args.inputs.split(",") if c.strip()]
    path = export_fmu(
        system,
        args.output,
        name=name,
        fmi=3 if args.fmi is None else args.fmi,
        inputs=inputs,
        step=args.step or "rk4",
        step_size=1e-3 if args.step_size is None else args.step_size,
        force=args.force,
        sources_only=args.sources_only,
    )
    print(path, file=out)
    return 0


def _cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    label, factory = _model(args)
    system = factory()
    if args.target == "fmu":
        return _export_fmu(args, label, system, out)
    given = [f"--{o.replace('_', '-')}" for o in _FMU_OPTIONS if getattr(args, o) is not None]
    if given or args.sources_only:
        raise _UsageError(f"{', '.join(given) or '--sources-only'}: only with -t fmu")
    if args.target in _CLOSED_FORM_TARGETS:
        too_large = _closed_too_large(system)
        if too_large is not None:
            raise LagdynError(
                f"{label}: {too_large}, and `-t {args.target}` writes the closed form; "
                "`-t casadi` writes the recursive programs"
            )
    try:
        from ..export import code
    except ImportError as exc:  # the numeric pipeline is an optional part of the install
        raise LagdynError(f"code export is unavailable: {exc}") from exc
    name = args.name or re.sub(r"\W", "_", label)
    if not name.isidentifier():
        raise _UsageError(f"--name {name!r} is not an identifier")
    params = system.defaults if args.bind_defaults else None
    check_output("--out", args.output, directory=True)
    files = code.generate(system, args.target, name=name, params=params)
    paths = write_files_atomically(args.output, files, force=args.force)
    for p in paths:
        print(p, file=out)
    return 0


def _cmd_lab(args: argparse.Namespace, out: TextIO) -> int:
    import lagdyn.lab as lab
    from lagdyn.lab.page import check_title

    label, factory = _model(args)
    check_output("--out", args.output)
    check_title(args.title)  # refuse before the (slow) derivation
    path = check_new_file(args.output, force=args.force)
    system = factory()
    from ..recursive import chain_of

    drawing = getattr(system, "drawing", None)  # a robot's is cheap: before deriving
    if chain_of(system) is not None and drawing is not None and drawing.dim != 2:
        raise LagdynError(
            f"lab: {label} is a spatial robot (its drawing is 3-D) and the lab shows planar "
            "models; `lagdyn simulate --gif` animates it"
        )
    written = lab.write(
        path, system, force=args.force, lang=args.lang, title=args.title, label=label
    )
    print(written, file=out)
    return 0


def _best(factory: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        value = factory()
        best = min(best, time.perf_counter() - t0)
    return best, value


def _cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    if args.ops:
        if args.model or args.file or args.lagrangian or args.urdf is not None:
            raise _UsageError("--ops counts its own chains and arms: give no MODEL")
        from .opcounts import report as opcount_report

        parameters = "numeric" if args.numeric else "symbolic"
        for line in opcount_report(
            max_n=args.max_n, closed_max=args.closed_max, parameters=parameters
        ):
            print(line, file=out, flush=True)
        return 0
    label, factory = _model(args)
    if args.repeat < 1 or args.states < 1:
        raise _UsageError("--repeat and --states must be positive")
    progress = _Progress(_show_progress(args), label)
    rows: list[tuple[str, float]] = []
    try:
        # every phase is timed on its own (best of --repeat): no differences of minima taken
        # from different repeats, which could come out negative
        builds, derives, proofs = [], [], []
        too_large: str | None = None
        report: Any = None
        for _ in range(args.repeat):
            progress.step("building")
            t0 = time.perf_counter()
            system = factory()
            t1 = time.perf_counter()
            too_large = _closed_too_large(system)
            if too_large is not None:  # a robot: its recursive programs and their proofs
                from ..recursive import proofs as recursive_proofs

                progress.step("recursive programs and proofs")
                report = recursive_proofs.prove(system)
                t3 = time.perf_counter()
                builds.append(t1 - t0)
                derives.append(report.build_seconds)
                proofs.append(t3 - t1 - report.build_seconds)
                continue
            progress.step("deriving")
            _derive(system, _Progress(False, ""))
            t2 = time.perf_counter()
            progress.step("proofs")
            report = structure.check(system)
            t3 = time.perf_counter()
            builds.append(t1 - t0)
            derives.append(t2 - t1)
            proofs.append(t3 - t2)
        rows.append(("build", min(builds)))
        if too_large is None:
            rows.append(("derive M C G g", min(derives)))
            rows.append(("structure proofs", min(proofs)))
        else:
            rows.append(("recursive programs", min(derives)))
            rows.append(("proofs of the recursive programs", min(proofs)))
        progress.done(sum(r[1] for r in rows))
    finally:
        progress.abort()
    if too_large is None:
        print(f"{label}: {_dof(system.n)}, {system.derivation_path} path", file=out)
    else:
        print(f"{label}: {_dof(system.n)}, recursive route ({too_large})", file=out)
    for what, secs in rows:
        print(f"  {what:<42} {secs * 1e3:9.2f} ms", file=out)
    if too_large is None:
        print(f"  proofs: {_verdict(report)[0]}", file=out)
    else:
        print(f"  proofs: {_programs_summary(report)[0]}", file=out)
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
