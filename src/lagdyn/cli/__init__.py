"""The ``lagdyn`` command line.

Subcommands
-----------
``lagdyn zoo``
    List the models.
``lagdyn derive MODEL [--latex | --markdown | --html | --json] [--simplify]``
    Derive a model, prove its structure and print M, C, g, the equations and the
    timings (coordinates without ``(t)``, dots for rates); or print it as LaTeX
    (``--standalone`` for a complete document, ``--group-parameters``,
    ``--trig short``), Markdown with ``$$`` math (KaTeX/MathJax), a self-contained HTML
    page whose math is MathML (``--html``: no script, style sheet or font is loaded, so it
    renders offline), or JSON (expressions in the syntax of
    :func:`lagdyn.parse.parse_expr`, with ``dot(q1)`` for rates). Rates print with dots
    over one-letter names (``q̇₁``, ``θ̈``) and primes after longer ones (``th''``).
``lagdyn check MODEL [--route closed|recursive]``
    Run every structure proof; exit status 1 when one fails. For a robot arm,
    ``--route recursive`` proves the identities of its recursive programs instead
    (:mod:`lagdyn.recursive.proofs`), without building the closed form; that is the default
    for a robot whose closed form is too large to build (a 7-DOF arm), which ``derive``
    prints without M, C and g (its joints, parameters and the recursive proofs), ``export``
    refuses for the targets printed from the closed form (``-t casadi`` takes the recursive
    route) and ``bench`` times on the recursive route.
``lagdyn export MODEL -t c|cpp|jax|numba|julia|matlab|js|casadi --out DIR [--bind-defaults]``
    Write simulator source code (see :mod:`lagdyn.export.code`): every file or none,
    existing files refused unless ``--force``, never written through a symlink (``casadi``:
    serialized ``casadi.Function`` files).
``lagdyn export MODEL -t fmu --out DIR [--fmi 2|3] [--inputs X,Y] [--sources-only]``
    Write ``DIR/NAME.fmu``, a Functional Mock-up Unit (Model Exchange and Co-Simulation;
    ``--step rk4|midpoint``, ``--step-size H``) with a binary built by the system C compiler
    (see :mod:`lagdyn.export.fmu`); an existing file is refused unless ``--force``.
``lagdyn lab MODEL --out lab.html [--force] [--lang en|ko]``
    Write the generalized-coordinate lab of a planar model (see :mod:`lagdyn.lab`): one
    offline HTML page computed live from exported JavaScript; an existing file is refused
    unless ``--force``.
``lagdyn simulate MODEL [--t T] [--gif PATH] ...``
    Simulate and report energy drift and the passivity balance (see
    :mod:`lagdyn.cli.simulate`).
``lagdyn bench MODEL``
    Time the derivation and the proofs (and the numerics when :mod:`lagdyn.numeric`
    is available and the model has default parameter values).
``lagdyn bench --ops [--max-n 20] [--closed-max 3] [--numeric]``
    Operation counts after CSE of M, h, τ and q̈ on both routes for planar and spatial
    chains n = 2…20 and the arms, the linear fit of the recursive τ, and the references
    (see :mod:`lagdyn.cli.opcounts`).

MODEL is a name from ``lagdyn zoo`` (model options with ``-o/--option KEY=VALUE``, the same
spelling in every command), a robot from a URDF file, or a user model:

* ``--urdf arm.urdf [--parameters numeric|symbolic] [--lock JOINT] [--fixed-base]
  [--friction] [--no-check-inertia]``: a fixed-base robot read by
  :func:`lagdyn.robot.from_urdf` (meshes are not read, so ``package://`` paths need no ROS).
  ``numeric`` (the default) puts the file's numbers in the equations; ``symbolic`` gives ten
  inertial parameters per moving link with the file's numbers as defaults (``export
  --bind-defaults`` folds them back in). ``--lock`` holds a joint at q = 0 (repeatable);
  ``--fixed-base`` silences the warning for a root link that carries mass; ``--friction``
  reads ``<dynamics damping friction>``. The label (and ``export``'s default ``--name``) is
  the file's stem; coordinates are ``q1 … qn`` in Pinocchio's joint order, and ``derive``
  prints which joint each one is. A missing, unreadable or malformed file, or one that
  from_urdf refuses, is one line naming ``--urdf`` and the path (exit status 2); from_urdf's
  warnings are ``lagdyn: warning:`` lines on stderr.

* ``--file model.py``: a Python file that defines ``system`` (a
  :class:`~lagdyn.LagrangianSystem`). The file **is executed** as Python, like
  ``python model.py``: use it only with your own files.
* ``--lagrangian "m*l**2*dot(th)**2/2 + m*g*l*cos(th)" --coordinates th
  [--parameters "m l g"] [--forces "-c*dot(th)"]``: parsed by the restricted parser
  (arithmetic and math functions only, never ``eval``). Without ``--parameters``
  every other name becomes a positive parameter. ``--forces`` takes one expression
  per coordinate, separated by ``;``.

Output paths (``export --out DIR``, ``lab --out FILE``, ``simulate --gif/--mp4/--png/--csv``)
follow one rule: missing parent directories are created; an empty name or a path through an
existing file is refused before any work.

Progress of long derivations goes to stderr (``--progress``; on by default when
stderr is a terminal).

Exit status: 0 success (every structure proof passed); 1 a structure proof failed (``check``,
``derive``), or stdout was closed early (broken pipe, ended quietly); 2 any error (one line on
stderr, no traceback); 3 a structure property could be neither proved nor refuted (``check`` and
``derive`` say which). ``derive --json`` includes the proof results (``"proofs"``: true, false
or null for unknown).

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
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .._version import __version__
from ..errors import LagdynError
from .options import UsageError as _UsageError

__all__ = ["main"]

TARGETS = ("c", "cpp", "jax", "numba", "julia", "matlab", "js", "casadi", "fmu")


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
    user.add_argument(
        "--parameters",
        metavar="NAMES",
        help='--lagrangian: its parameters, "m l g"; --urdf: numeric (default, the file\'s '
        "numbers) or symbolic (ten symbols per link, the file's numbers as defaults)",
    )
    user.add_argument("--forces", metavar="EXPRS", help="generalized forces, ';'-separated")
    user.add_argument(
        "--urdf", metavar="PATH", help="a robot from a URDF file (fixed base; meshes not read)"
    )
    urdf = p.add_argument_group("URDF options (with --urdf)")
    urdf.add_argument(
        "--lock",
        action="append",
        default=[],
        metavar="JOINT",
        help="hold a movable joint at q = 0, merged like a fixed one (repeatable): gripper "
        "fingers, mimic joints",
    )
    urdf.add_argument(
        "--fixed-base",
        action="store_true",
        help="a fixed base is meant: no warning when the root link carries mass",
    )
    urdf.add_argument(
        "--friction",
        action="store_true",
        help="the joints' <dynamics damping friction> as viscous and Coulomb friction",
    )
    urdf.add_argument(
        "--no-check-inertia",
        action="store_true",
        help="accept link inertias that are not positive semidefinite (as Pinocchio does)",
    )
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
        ("--html", "a self-contained HTML page, math as MathML (renders offline)"),
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
    derive.add_argument(
        "--base-parameters",
        action="store_true",
        help="print the identifiable base parameters (every parameter but g unknown)",
    )
    derive.add_argument("--group-parameters", action="store_true", help="name constant groups")
    derive.add_argument("--trig", choices=("full", "short"), default="full")
    derive.add_argument("--standalone", action="store_true", help="a complete .tex document")
    derive.add_argument(
        "--symbol",
        action="append",
        default=[],
        metavar="NAME=LATEX",
        help=r"LaTeX for a parameter or coordinate (repeatable): --symbol 'lc2=\ell_{c_2}'",
    )

    check = sub.add_parser("check", help="run every structure proof (exit 1 on failure)")
    _add_model_arguments(check)
    check.add_argument(
        "--route",
        choices=("closed", "recursive"),
        default=None,
        help="robot arms: prove the identities of the recursive programs instead of the "
        "closed form (symmetry and skew symmetry decided exactly, the others by exact "
        "arithmetic at random points, error < 2^-100); the default for a robot whose closed "
        "form is too large to build (otherwise closed)",
    )

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
    fmu = export.add_argument_group("FMU options (-t fmu; see lagdyn.export.fmu)")
    fmu.add_argument("--fmi", type=int, choices=(2, 3), default=None, help="FMI version (3)")
    fmu.add_argument(
        "--inputs", metavar="COORDS", default=None, help="actuated coordinates: x,theta (all)"
    )
    fmu.add_argument(
        "--step", choices=("rk4", "midpoint"), default=None, help="Co-Simulation method (rk4)"
    )
    fmu.add_argument(
        "--step-size", type=float, default=None, metavar="H", help="its internal step (0.001)"
    )
    fmu.add_argument("--sources-only", action="store_true", help="no binary (no C compiler needed)")

    lab = sub.add_parser("lab", help="write the interactive lab page of a planar model")
    _add_model_arguments(lab)
    lab.add_argument("--out", dest="output", required=True, metavar="PATH", help="HTML file")
    lab.add_argument("--force", action="store_true", help="overwrite an existing file")
    lab.add_argument("--lang", choices=("en", "ko"), default="en", help="initial label language")
    lab.add_argument("--title", default=None, help="page title")

    sim = sub.add_parser("simulate", help="simulate a model: energy report, plots, GIF/MP4")
    _add_model_arguments(sim)
    from .simulate import add_cli_arguments

    add_cli_arguments(sim, model_arguments=False)

    bench = sub.add_parser("bench", help="time derivation, proofs and numerics")
    _add_model_arguments(bench)
    bench.add_argument("--repeat", type=int, default=3, help="best of N builds (default 3)")
    bench.add_argument("--states", type=int, default=10_000, help="states for numeric timing")
    bench.add_argument(
        "--ops",
        action="store_true",
        help="operation counts of the recursive and closed routes for planar and spatial "
        "chains n = 2…MAX_N and the arms, with the linear fit of τ (no MODEL)",
    )
    bench.add_argument("--max-n", type=int, default=20, help="with --ops: largest n (20)")
    bench.add_argument(
        "--closed-max", type=int, default=3, help="with --ops: closed route up to this n (3)"
    )
    bench.add_argument(
        "--numeric", action="store_true", help="with --ops: the chains' numbers, not symbols"
    )
    return parser


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
    structure proof, 2 on any error (one line on stderr, no traceback), 3 when a structure
    property is unknown (see the module documentation).

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
        if args.command is not None:
            # the commands (and sympy) load only now: `lagdyn --help` stays fast
            from . import commands

            return commands.run(args, out)
        parser.print_help(out)
        return 0
    except KeyboardInterrupt:  # Ctrl-C (or a model file raising it): one line, no traceback
        print("lagdyn: interrupted", file=sys.stderr)
        return 130
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
