"""The ``lagdyn`` command line.

``lagdyn zoo`` lists the models; ``lagdyn derive NAME`` derives one, proves its
structure and prints M, C, g, the equations and the timings, with coordinate
names written without ``(t)`` and dots for rates.

Errors print one line on stderr and exit with status 2.

Examples
--------
>>> from lagdyn.cli import main
>>> main(["zoo"])  # doctest: +ELLIPSIS
double_pendulum ...
0
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

import sympy as sp

from . import __version__, structure, zoo
from .errors import LagdynError
from .system import LagrangianSystem

__all__ = ["main", "readable"]


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit code 2 (raised to main)
        raise _UsageError(message)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lagdyn", description="Symbolic Euler–Lagrange equations of motion.")
    parser.add_argument("--version", action="version", version=f"lagdyn {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    sub.add_parser("zoo", help="list the models of the zoo")
    derive = sub.add_parser("derive", help="derive a zoo model, prove its structure, print it")
    derive.add_argument("model", help="a name from `lagdyn zoo`")
    derive.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the model factory, e.g. -o coordinates=relative or -o n=4",
    )
    derive.add_argument("--no-proofs", action="store_true", help="skip the structure proofs")
    return parser


def _parse_options(items: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.isidentifier():
            raise _UsageError(f"bad --option {item!r}: expected KEY=VALUE")
        out[key] = int(value) if re.fullmatch(r"-?\d+", value) else value
    return out


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


def _cmd_zoo(out: Any) -> int:
    width = max(len(n) for n in zoo.names())
    for name in zoo.names():
        print(f"{name:<{width}}  {zoo.summary(name)}", file=out)
    return 0


def _cmd_derive(args: argparse.Namespace, out: Any) -> int:
    options = _parse_options(args.option)
    t0 = time.perf_counter()
    system = zoo.get(args.model, **options)
    t_build = time.perf_counter() - t0
    t1 = time.perf_counter()
    M, C, g = system.M, system.C, system.g
    t_derive = time.perf_counter() - t1
    names = ", ".join(q.func.__name__ for q in system.q)
    print(f"{args.model}: {system.n} degrees of freedom, coordinates ({names})", file=out)
    print(f"parameters: {', '.join(str(p) for p in system.parameters)}", file=out)
    print(f"derivation path: {system.derivation_path}", file=out)
    for title, mat in (("M(q)", M), ("C(q, q̇)", C), ("g(q)", g)):
        print(f"\n{title} =", file=out)
        print(_pretty(mat, system), file=out)
    print("\nequations of motion  M q̈ + C q̇ + g = τ:", file=out)
    eqs = system.M * sp.Matrix(system.qdd) + system.C * sp.Matrix(system.qd) + system.g
    if any(x != 0 for x in system.G):
        eqs += system.G * sp.Matrix(system.qd)
    for i in range(system.n):
        tau = sp.Symbol(f"τ_{system.q[i].func.__name__}")
        print(_pretty(sp.Eq(eqs[i], tau + system.forces[i]), system), file=out)
    total = t_build + t_derive
    if not args.no_proofs:
        report = structure.check(system)
        print("\nstructure:", file=out)
        for line, secs in zip(report.lines(), report.seconds.values()):
            print(f"  {line}  ({secs * 1e3:.1f} ms)", file=out)
        total += sum(report.seconds.values())
    print(
        f"\ntime: build {t_build * 1e3:.1f} ms, derive M C g {t_derive * 1e3:.1f} ms, "
        f"total {total * 1e3:.1f} ms",
        file=out,
    )
    if not args.no_proofs and not report.ok:
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lagdyn`` command with arguments ``argv``; return the exit status.

    Examples
    --------
    >>> from lagdyn.cli import main
    >>> main(["derive", "no_such_model"])
    2
    """
    parser = _build_parser()
    out = sys.stdout
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.command == "zoo":
            return _cmd_zoo(out)
        if args.command == "derive":
            return _cmd_derive(args, out)
        parser.print_help(out)
        return 0
    except (_UsageError, LagdynError, TypeError) as exc:
        print(f"lagdyn: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
