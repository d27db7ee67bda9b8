"""``lagdyn simulate``: its options and the command itself.

Examples
--------
>>> import argparse, io
>>> from lagdyn.cli.simulate import add_cli_arguments, simulate_cli
>>> p = argparse.ArgumentParser()
>>> add_cli_arguments(p)
>>> buf = io.StringIO()
>>> simulate_cli(p.parse_args(["cart_pole", "--t", "0.05"]), buf)
0
>>> print(buf.getvalue().splitlines()[1])
initial state: x = 1, theta = 2 (at rest)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._files import check_new_file
from ..errors import LagdynError
from .options import check_output, parse_options

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

# numpy, sympy and the simulation load inside the functions: the parser of `lagdyn --help`
# imports this module

__all__ = ["add_cli_arguments", "default_state", "simulate_cli"]


def _outside_trig(expr: Any, q: Any) -> bool:
    """True when the coordinate ``q`` occurs in ``expr`` other than inside sin/cos/tan."""
    import sympy as sp

    if expr == q:
        return True
    if isinstance(expr, (sp.sin, sp.cos, sp.tan)):
        return False
    return any(_outside_trig(a, q) for a in getattr(expr, "args", ()))


def default_state(system: Any) -> np.ndarray:
    """The CLI's default initial state: angles 2.0 … 2.4 rad, other coordinates 1, at rest.

    A coordinate counts as an angle when the model's drawing, M and U contain it only
    inside sin, cos and tan (the cart position of the cart-pole and the spring length of
    the elastic pendulum do not); a coordinate that occurs nowhere is not an angle. For a
    robot (a :class:`~lagdyn.robot.RobotSystem`, e.g. from ``--urdf``) the joints say it:
    revolute joints are angles, prismatic ones are not; no closed form is built (a 7-DOF
    arm's would be refused).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.cli.simulate import default_state
    >>> default_state(ld.zoo.double_pendulum()).tolist()
    [2.0, 2.4, 0.0, 0.0]
    >>> default_state(ld.zoo.elastic_pendulum()).tolist()
    [1.0, 2.0, 0.0, 0.0]
    >>> default_state(ld.zoo.cart_pole()).tolist()
    [1.0, 2.0, 0.0, 0.0]
    >>> default_state(ld.zoo.get("panda"))[:7].round(3).tolist()
    [2.0, 2.067, 2.133, 2.2, 2.267, 2.333, 2.4]
    """
    import numpy as np
    import sympy as sp

    from ..recursive import chain_of

    n = int(system.n)
    angles = iter(np.linspace(2.0, 2.4, n) if n > 1 else [2.0])
    chain = chain_of(system)
    if chain is not None:
        q0 = [float(next(angles)) if link.joint == "revolute" else 1.0 for link in chain.links]
        return np.concatenate([q0, np.zeros(n)])
    exprs: list[Any] = [*getattr(system, "M", []), getattr(system, "U", 0)]
    drawing = getattr(system, "drawing", None)
    if drawing is not None:
        exprs += [c for p in drawing.points for c in p]
    exprs = [sp.sympify(e) for e in exprs]
    q0 = []
    for qi in getattr(system, "q", [None] * n):
        occurs = any(e.has(qi) for e in exprs) if qi is not None else False
        is_angle = occurs and not any(_outside_trig(e, qi) for e in exprs)
        q0.append(float(next(angles)) if is_angle else 1.0)
    return np.concatenate([q0, np.zeros(n)])


def add_cli_arguments(parser: Any, *, model_arguments: bool = True) -> None:
    """Add the options of ``lagdyn simulate`` to an :mod:`argparse` (sub)parser.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    model_arguments : bool
        Also add the positional ``model`` and ``--option/-o KEY=VALUE`` (leave them to the
        caller when it has its own model selection, as ``lagdyn.cli`` does).

    Examples
    --------
    >>> import argparse
    >>> from lagdyn.cli.simulate import add_cli_arguments
    >>> p = argparse.ArgumentParser()
    >>> add_cli_arguments(p)
    >>> p.parse_args(["double_pendulum", "--t", "2"]).t
    2.0
    """
    if model_arguments:
        parser.add_argument("model", help="a name from `lagdyn zoo`")
        parser.add_argument(
            "-o",
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="an option of the model factory, e.g. -o n=3",
        )
    sim = parser.add_argument_group("simulation")
    sim.add_argument("--t", type=float, default=10.0, help="final time (default 10)")
    sim.add_argument("--dt", type=float, default=0.01, help="output step (default 0.01)")
    sim.add_argument(
        "--x0",
        default=None,
        help="initial state q1,..,qn,qd1,..,qdn (default: angles 2.0 … 2.4 rad, other "
        "coordinates 1, at rest)",
    )
    sim.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter value overriding the model defaults, e.g. --set g=9.81",
    )
    sim.add_argument("--method", default="rk4", help="rk4 (default), midpoint or scipy-<name>")
    sim.add_argument("--substeps", type=int, default=1, help="steps per output interval")
    out = parser.add_argument_group("output")
    out.add_argument("--gif", default=None, help="save an animation (GIF) here")
    out.add_argument("--mp4", default=None, help="save an animation (MP4, needs ffmpeg)")
    out.add_argument("--png", default=None, help="save time series (q, qd, energy) here")
    out.add_argument("--csv", default=None, help="save the trajectory as CSV here")
    out.add_argument("--fps", type=int, default=30, help="animation frames per second")
    out.add_argument(
        "--force",
        action="store_true",
        help="overwrite existing output files (a symlink is replaced, never written through)",
    )


def simulate_cli(
    args: Any, out: Any = None, *, system: Any = None, label: str | None = None
) -> int:
    """Run ``lagdyn simulate`` from parsed arguments (see :func:`add_cli_arguments`).

    Prints the simulation report; writes the requested GIF / MP4 / PNG / CSV files.

    Parameters
    ----------
    args : argparse.Namespace
        From a parser set up by :func:`add_cli_arguments`.
    out : text stream, optional
        Where the report goes (default stdout).
    system : LagrangianSystem, optional
        The model, when the caller built it (user models); otherwise
        ``zoo.get(args.model, **options)``.
    label : str, optional
        The model's name in the report and the animation title (default ``args.model``).

    Returns
    -------
    int
        The exit status, 0.

    Raises
    ------
    LagdynError
        Bad ``--x0``, ``--set`` or ``--option`` values, unknown models or parameters, an
        animation of a model without drawing geometry, an output path through an existing
        file, an existing output file or symlink without ``--force`` (missing directories
        are created; every file is written whole or not at all, see :mod:`lagdyn._files`).

    Examples
    --------
    >>> import argparse, io
    >>> from lagdyn.cli.simulate import add_cli_arguments, simulate_cli
    >>> p = argparse.ArgumentParser()
    >>> add_cli_arguments(p)
    >>> buf = io.StringIO()
    >>> simulate_cli(p.parse_args(["double_pendulum", "--t", "0.1"]), buf)
    0
    >>> "energy drift" in buf.getvalue()
    True
    """
    import numpy as np

    from ..simulation.api import simulate

    stream = out if out is not None else sys.stdout
    name = label if label is not None else getattr(args, "model", None) or "model"
    if system is None:
        from ..zoo import get

        system = get(args.model, **parse_options(getattr(args, "option", []) or []))
    n = system.n
    by_name = {str(s): s for s in getattr(system, "parameters", ())}
    params: dict[Any, float] = {}
    for item in getattr(args, "set", []) or []:
        key, sep, value = item.partition("=")
        if not sep or key not in by_name:
            known = ", ".join(sorted(by_name)) or "none"
            raise LagdynError(f"bad --set {item!r}: expected NAME=VALUE with NAME in {known}")
        try:
            params[by_name[key]] = float(value)
        except ValueError as exc:
            raise LagdynError(f"bad --set {item!r}: {value!r} is not a number") from exc
    force = bool(getattr(args, "force", False))
    outputs = [getattr(args, flag, None) for flag in ("csv", "png", "gif", "mp4")]
    for flag in ("gif", "mp4", "png", "csv"):  # fail before simulating
        check_output(f"--{flag}", getattr(args, flag, None))
        if getattr(args, flag, None):
            check_new_file(getattr(args, flag), force=force)
    named = [str(Path(p).absolute()) for p in outputs if p]
    if len(set(named)) < len(named):
        raise LagdynError("two outputs (--csv, --png, --gif, --mp4) name the same file")
    if args.x0 is None:
        x0 = default_state(system)
    else:
        try:
            x0 = np.array([float(v) for v in args.x0.split(",")])
        except ValueError as exc:
            raise LagdynError(f"bad --x0 {args.x0!r}: expected comma-separated numbers") from exc
    positions = None
    if args.gif or args.mp4:  # fail before simulating when the geometry is unknown
        from .. import plot

        positions = plot.positions_for(name, system)
    res = simulate(
        system,
        x0,
        float(args.t),
        dt=float(args.dt),
        method=args.method,
        substeps=int(args.substeps),
        params=params or None,
        progress=getattr(args, "progress", None),
    )
    print(f"{name}: n = {n}, t = 0 … {res.t[-1]:g}, {res.t.shape[0]} samples", file=stream)
    start = ", ".join(f"{nm} = {v:g}" for nm, v in zip(res.names, x0[:n]))
    rest = " (at rest)" if not np.any(x0[n:]) else ""
    print(f"initial state: {start}{rest}", file=stream)
    print(res.report().lines(), file=stream)
    # every file through lagdyn._files: missing directories are created, the whole file or
    # none, never over a file without --force, never through a symlink
    if args.csv:
        res.to_csv(args.csv, force=force)
        print(f"wrote {args.csv}", file=stream)
    if args.png or args.gif or args.mp4:
        from .. import plot

        if args.png:
            fig = plot.plot_timeseries(res, title=name)
            plot.save_figure(fig, args.png, force=force, dpi=100)
            print(f"wrote {args.png}", file=stream)
        for path in (args.gif, args.mp4):
            if path and positions is not None:
                plot.animate(res, positions, path, fps=int(args.fps), title=name, force=force)
                print(f"wrote {path}", file=stream)
    return 0
