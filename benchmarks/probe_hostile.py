"""Adversarial probe of an installed lagdyn: hostile inputs per category, one process each.

The measurement asked for by issue 22 ("the hostile-input count per category, with the
same categories as the probe"). Run it against an installed copy (the editable install is
fine)::

    python benchmarks/probe_hostile.py                    # every category, table on stdout
    python benchmarks/probe_hostile.py --category names   # one category (repeatable)
    python benchmarks/probe_hostile.py --details          # plus one line per non-OK input
    python benchmarks/probe_hostile.py --list             # the inputs, without running them

Options: ``--timeout S`` (per input, default 20 s: past it the input is a *hang*), ``--jobs N``
(inputs run in parallel, default 1), ``--keep`` (keep the scratch directory),
``--browser`` (also load every lab-title page in headless Chromium), ``--json PATH`` (every
outcome, machine-readable), ``--filter TEXT`` (only inputs whose summary contains TEXT).

Categories (rows) and what they try
-----------------------------------
``urdf``        ``ld.robot.from_urdf``: masses and inertias (negative, NaN, inf, huge exponents,
                not positive semidefinite, triangle inequality), structure (duplicate names,
                cycles, missing or two parents, several roots, 10,000 joints, 10,000 fixed
                joints listed in reverse order), axes and rpy, XML attacks (entity expansion,
                external entities, deep nesting), source types (bytes, None, a directory, a
                FIFO) — in both parameter modes. Oracle: Pinocchio's CRBA on the same file.
``dh``          ``from_dh`` / ``from_screws``: NaN, inf, complex, ``"1/0"``, huge exponents,
                coordinate- or time-dependent geometry, ragged rows, non-unit screws, "rotations"
                that are not rotations, invalid inertia. Oracle: an independent numpy
                forward-kinematics + Jacobian mass matrix.
``names``       hostile symbol names (newline, ``*/``, triple quotes, backslash-newline, ``#``,
                ``//``, ``%``, ``$(...)``, NUL, U+2028/U+2029, homoglyphs, full-width letters,
                reserved prefixes ``_ld``/``_lagdyn_``, keywords and library names of every
                target) entering through ``ld.coordinates``, ``ld.parameters``, ``sp.Symbol``,
                ``sp.Function(name)(t)`` and parameter binding by name, into ``lambdify``
                (numpy, C), every export target, an FMU (sources only) and the HTML page of
                ``derive``. Oracles: the
                equations of motion by hand; generated files compiled and run (C with gcc, C++
                with g++ -fsyntax-only, JS under node, numba/JAX files executed with stand-in
                modules — ``numba.njit`` the identity, ``jax.numpy`` numpy — since neither is
                installed here, CasADi files loaded); comments and strings stripped per
                language (trigraphs and line splicing for C, U+2028/U+2029 for JS, ``#= =#``
                and ``$(...)`` for Julia, ``%{ %}`` for MATLAB, the AST for Python) and the
                payload's marker searched in what is left, and the code's line count compared
                with a benign export's.
``export_name`` ``export --name`` / ``lagdyn.export.code.export(name=)``: keywords, macros and
                library names of C, C++, JS, Julia, MATLAB and Python, path tricks, non-ASCII,
                long names — per target, and ``export_fmu(name=)``; accepted names must give
                files inside the directory that compile (C, C++), load (JS as a CommonJS module
                and as a browser global, numba, JAX, CasADi) and compute the numbers of the
                numpy backend, or be valid identifiers of the language (Julia, MATLAB; an FMU's
                modelIdentifier as given, its XML parsing).
``lab_title``   ``lagdyn lab --title``: HTML and script break-outs, template placeholders
                (``@CONFIG@``), entities, line separators. Oracle: the page parsed, the title
                element and ``LAB_CONFIG.title`` equal to the title, the scripts unchanged.
``parser``      ``lagdyn.parse.parse_expr`` and ``--lagrangian``/``--coordinates``: huge and nested
                exponents, deep nesting, long inputs, unicode, attribute access, dunders,
                lambdas, calls, ranges. Oracle: the expected sympy expression.
``cache``       ``LAGDYN_CACHE_DIR``: directories owned by uid 65534 or writable by group/others,
                parents writable by others, planted sealed modules (code that would run),
                tampered modules, symlinked cache files and ``.build``, umask 0.
``numerics``    ``NumericModel`` calls (numpy and C backends): 10**400, ragged lists, complex,
                NaN/inf, wrong shapes and dtypes, object/string arrays, per-call parameters.
                Oracle: the equations of motion by hand (IEEE propagation accepted).
``files``       every writer (``lagdyn export``, ``lagdyn lab --out``, ``lagdyn simulate
                --png/--csv``, ``lagdyn.export.code.export``, ``ld.lab.write``,
                ``SimulationResult.to_csv``, ``plot.animate``): dangling symlinks, symlinks to the
                user's files, existing files with and without ``--force``, directories and FIFOs
                in the way, paths through a file, a full disk (a 64 KiB tmpfs; skipped with a
                note when it cannot be mounted).
``simulation``  ``ld.simulate`` and ``lagdyn simulate``: huge t and dt, NaN/complex/inf x0,
                tol ≤ 0, bad methods and substeps, a constrained start off its constraint.
                Oracle: the harmonic oscillator's closed-form solution (a result off by more than
                the method's error must come with a warning).

Columns
-------
``tried``; ``ok`` (accepted and right, checked by an independent oracle); ``named error`` (a
``lagdyn.errors.LagdynError`` subclass, or a CLI exit with one clean line and no traceback);
``raw exception`` (any other exception, a traceback, or a crash such as a GMP abort);
``silent wrong`` (accepted, and the oracle shows the result wrong — including invalid physics
or broken generated code accepted silently); ``hang`` (past the timeout, killed); ``code
run`` (a canary file created by an injected payload, or a payload's marker found in the code
of a generated file); ``file lost or outside`` (a user file overwritten, truncated or removed,
or a file created outside the directory the user chose). The goal of issue 22: every column
but ``named error`` and ``ok`` at zero. An outcome is counted once, in the worst column
(code run > file > hang > raw > silent wrong > named error > ok).

Timing: about 2,300 inputs and 4 minutes of CPU (inputs, compilers, node, the parent's
forks); on two idle cores that is the wall time with ``--jobs 1``, and ``--jobs 2`` halves
it. The wall and CPU time per category are printed under the table. An input known to block
forever when mishandled (a FIFO) gets a 5-10 s timeout instead of 20 s.

Isolation
---------
lagdyn is imported once; every input runs in a process forked from it (its own process
group, an address-space limit, its own scratch directory as the working directory, its own
``LAGDYN_CACHE_DIR``), so a hang or a hard crash costs only that input. Each input's
scratch has a ``victim/`` directory beside the working directory, holding "the user's
files": any change there is a lost file or a file outside. Runs as root are needed for the
cache category (``os.chown`` to uid 65534) and the tmpfs; without them those inputs are
skipped and the note says so.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # OpenMP teams in a forked child can deadlock
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import argparse
import contextlib
import dataclasses
import hashlib
import html
import html.parser
import io
import json
import logging
import math
import re
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import traceback
import types
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

# --------------------------------------------------------------------------- outcomes
COLUMNS = ("tried", "ok", "named", "raw", "wrong", "hang", "code", "file")
HEADINGS = {
    "tried": "tried",
    "ok": "ok",
    "named": "named error",
    "raw": "raw exception",
    "wrong": "silent wrong",
    "hang": "hang",
    "code": "code run",
    "file": "file lost or outside",
}
#: Worst first: an input is counted in the first of these that applies.
SEVERITY = ("code", "file", "hang", "raw", "wrong", "named", "ok")
CATEGORIES = {
    "urdf": "URDF",
    "dh": "DH and screws",
    "names": "names into generated code (API)",
    "export_name": "`export --name`",
    "lab_title": "lab title",
    "parser": "parser",
    "cache": "cache",
    "numerics": "numerics",
    "files": "output files",
    "simulation": "simulation",
}
CANARY = "ldpwn.canary"  # what every code payload creates in its working directory
MARK = "LDPWN"  # appears in the code part of every payload


@dataclasses.dataclass
class Outcome:
    kind: str  # one of SEVERITY
    message: str = ""

    def worse(self, other: Outcome) -> Outcome:
        return self if SEVERITY.index(self.kind) <= SEVERITY.index(other.kind) else other


def ok(msg: str = "") -> Outcome:
    return Outcome("ok", msg)


def wrong(msg: str) -> Outcome:
    return Outcome("wrong", msg)


def named(msg: str) -> Outcome:
    return Outcome("named", msg)


def raw(msg: str) -> Outcome:
    return Outcome("raw", msg)


def code_run(msg: str) -> Outcome:
    return Outcome("code", msg)


def file_lost(msg: str) -> Outcome:
    return Outcome("file", msg)


class WrongResult(Exception):  # noqa: N818 - an outcome, not an error
    """Raised by an oracle inside a case: the result is silently wrong."""


class InjectedCode(Exception):  # noqa: N818 - an outcome
    """Raised by an oracle inside a case: a payload reached code."""


@dataclasses.dataclass
class Ctx:
    """One input's scratch: ``work`` is the working directory (the user's chosen place),
    ``victim`` holds the user's other files, ``cache`` is ``LAGDYN_CACHE_DIR``."""

    root: Path
    work: Path
    victim: Path
    cache: Path
    timeout: float
    messages: list[str] = dataclasses.field(default_factory=list)  # warnings and log records
    data: dict[str, Any] = dataclasses.field(default_factory=dict)

    def all_messages(self) -> list[str]:
        return self.messages + [str(w.message) for w in self.data.get("caught", [])]

    def warned(self, pattern: str = "") -> bool:
        return any(re.search(pattern, m, re.I) for m in self.all_messages())


@dataclasses.dataclass
class Case:
    category: str
    summary: str
    run: Callable[[Ctx], Outcome | None]  # in the forked worker; None means ok
    setup: Callable[[Ctx], None] | None = None  # in the parent, before the fork
    check: Callable[[Ctx, Outcome], Outcome] | None = None  # in the parent, afterwards
    timeout: float | None = None


# --------------------------------------------------------------------------- helpers
def short(text: object, n: int = 160) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= n else s[: n - 1] + "…"


def rep(text: str, n: int = 60) -> str:
    """A printable summary of a hostile string."""
    r = repr(text)
    if len(r) > n:
        r = r[: n - 12] + f"…(len {len(text)})"
    return r


def run_proc(
    args: list[str],
    *,
    cwd: Path | str | None = None,
    timeout: float = 60.0,
    env: Any = None,
    input: bytes | None = None,
    own_group: bool = False,
) -> tuple[int, str, str]:
    """Run a helper program (compiler, node, ...); kill it on timeout.

    In a worker the helper stays in the worker's process group (killed with it); in the
    parent (``own_group``) it gets its own session, killed as a group."""
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=own_group,
    )
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            if own_group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        out, err = proc.communicate()
        return -999, out.decode(errors="replace"), err.decode(errors="replace") + "\n(timeout)"
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def snapshot(path: Path) -> dict[str, tuple[str, str]]:
    """Every entry under ``path`` (not following links): kind and content hash."""
    out: dict[str, tuple[str, str]] = {}
    if not path.exists() and not path.is_symlink():
        return out
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(path))
            try:
                st = p.lstat()
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                try:
                    out[rel] = ("file", hashlib.sha256(p.read_bytes()).hexdigest())
                except OSError as exc:
                    out[rel] = ("file", f"unreadable {exc}")
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", "")
            else:
                out[rel] = ("other", oct(st.st_mode))
    return out


def snapshot_diff(before: dict[str, Any], after: dict[str, Any]) -> str:
    changes = []
    for k in sorted(set(before) | set(after)):
        if k not in after:
            changes.append(f"removed {k}")
        elif k not in before:
            changes.append(f"created {k}")
        elif before[k] != after[k]:
            changes.append(f"changed {k}")
    return ", ".join(changes)


def find_canaries(root: Path) -> list[str]:
    found = []
    for dirpath, _dirnames, filenames in os.walk(root, followlinks=False):
        for name in filenames:
            if name == CANARY:
                found.append(str(Path(dirpath, name).relative_to(root)))
    return found


def lagdyn_error() -> type[BaseException]:
    from lagdyn.errors import LagdynError

    return LagdynError


def close(a: Any, b: Any, rtol: float = 1e-9, atol: float = 1e-12) -> bool:
    import numpy as np

    a = np.asarray(a, dtype=complex)
    b = np.asarray(b, dtype=complex)
    if a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


# ---------------------------------------------------------------- the CLI, in process
def run_cli(argv: list[str], ctx: Ctx) -> Outcome | tuple[int, str, str]:
    """``lagdyn ARGV`` in this (forked) process: an Outcome for errors, else (0, out, err).

    Exit 2 with one clean line is a named error when the exception that reached ``main``
    is a LagdynError, a usage error, argparse's or an OSError; any other exception type
    (caught by main's last-resort handler) or a traceback on stderr is a raw exception.
    """
    from lagdyn import cli
    from lagdyn.cli import commands

    seen: dict[str, BaseException] = {}
    original = commands.run

    def wrapped(args: Any, out: Any) -> int:
        try:
            return original(args, out)
        except BaseException as exc:
            seen["exc"] = exc
            raise

    commands.run = wrapped
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(argv)
            except SystemExit as exc:  # argparse
                rc = exc.code if isinstance(exc.code, int) else 2
    finally:
        commands.run = original
    o, e = out.getvalue(), err.getvalue()
    if "Traceback (most recent call last)" in e or "Traceback (most recent call last)" in o:
        return raw("traceback on stderr: " + short(e[-300:]))
    exc = seen.get("exc")
    if rc in (0, 1, 3):
        return rc, o, e
    if rc == 130:
        return raw("interrupted")
    msg = short(e.strip().splitlines()[-1] if e.strip() else f"exit {rc}, no message")
    if exc is None:
        return named(msg)  # argparse usage error, or refused before any command ran
    from lagdyn.cli import _UsageError

    if isinstance(exc, (lagdyn_error(), _UsageError, OSError)):
        return named(msg)
    return raw(f"CLI fallback caught {type(exc).__name__}: {msg}")


# =========================================================================== the model
# L = m x'^2/2 + (m + k x^2) y'^2/2 - k x^2/2 - m y: the hand oracle of names and numerics.
Q0 = (0.3, -0.2)
QD0 = (0.5, 0.7)
MV, KV = 2.0, 3.0


def hand_M(x: Any, m: float = MV, k: float = KV) -> Any:
    import numpy as np

    x = np.asarray(x)
    z = np.zeros_like(x)
    return np.stack([np.stack([m + z, z], -1), np.stack([z, m + k * x**2], -1)], -2)


def hand_fd(x: Any, y: Any, xd: Any, yd: Any, m: float = MV, k: float = KV) -> Any:
    import numpy as np

    xdd = (k * x * yd**2 - k * x) / m
    ydd = -(2 * k * x * xd * yd + m) / (m + k * x**2)
    return np.stack([np.asarray(xdd), np.asarray(ydd)], -1)


def hand_energy(x: Any, y: Any, xd: Any, yd: Any, m: float = MV, k: float = KV) -> Any:
    return m * xd**2 / 2 + (m + k * x**2) * yd**2 / 2 + k * x**2 / 2 + m * y


def oracle_model(xname: str = "x", kname: str = "k", how_x: str = "ld", how_k: str = "ld") -> Any:
    """(system, x, y, m, k) of the hand-oracle model with the given names and entry points."""
    import sympy as sp

    import lagdyn as ld

    if how_x == "ld":
        x = ld.coordinates([xname])[0]
    else:  # a plain sympy function of lagdyn's t: bypasses ld.coordinates
        try:
            x = sp.Function(xname)(ld.t)
        except Exception as exc:  # sympy itself refuses: not lagdyn's input
            raise SkipInput(f"sympy cannot make a function named {xname!r}: {exc}") from None
    y = ld.coordinates(["yy_"])[0]
    (m,) = ld.parameters("mm_")
    if how_k == "ld":
        ks = ld.parameters(kname)
        k = ks[0]
    else:
        try:
            k = sp.Symbol(kname, positive=True)
        except Exception as exc:
            raise SkipInput(f"sympy cannot make a symbol named {kname!r}: {exc}") from None
    xd, yd = sp.diff(x, ld.t), sp.diff(y, ld.t)
    L = m * xd**2 / 2 + (m + k * x**2) * yd**2 / 2 - k * x**2 / 2 - m * y
    return ld.LagrangianSystem(L, [x, y]), x, y, m, k


def check_numeric_model(num: Any, per_call: Any = None, energy: bool = True) -> None:
    """Raise WrongResult unless M, forward dynamics and energy match the hand oracle."""
    import numpy as np

    kw = {} if per_call is None else {"params": per_call}
    M = np.asarray(num.M(list(Q0), **kw))
    if not close(M, hand_M(Q0[0])):
        raise WrongResult(f"M = {M.tolist()} != {hand_M(Q0[0]).tolist()}")
    fd = np.asarray(num.forward_dynamics(list(Q0), list(QD0), **kw))
    ref = hand_fd(*Q0, *QD0)
    if not close(fd, ref):
        raise WrongResult(f"forward_dynamics = {fd.tolist()} != {ref.tolist()}")
    if not energy:
        return
    e = float(np.asarray(num.energy(list(Q0), list(QD0), **kw)))
    if not close(e, hand_energy(*Q0, *QD0)):
        raise WrongResult(f"energy = {e} != {hand_energy(*Q0, *QD0)}")


# =========================================================================== the runner
class _Records(logging.Handler):
    def __init__(self, sink: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            self.sink.append(record.getMessage())


def _child(case: Case, ctx: Ctx, wfd: int, mem_limit: int | None) -> None:
    """The forked worker: run one case, send its Outcome (JSON) down ``wfd``, exit."""
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    result: dict[str, str]
    try:
        if mem_limit:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
        os.chdir(ctx.work)
        os.environ["LAGDYN_CACHE_DIR"] = str(ctx.cache)
        os.environ.update(ctx.data.get("env", {}))
        if "umask" in ctx.data:
            os.umask(ctx.data["umask"])
        # what the input prints (progress bars, compilers) goes to files, not the table
        for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
            out_fd = os.open(ctx.root / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(out_fd, fd)
            os.close(out_fd)
        handler = _Records(ctx.messages)
        logging.getLogger("lagdyn").addHandler(handler)
        logging.getLogger("lagdyn").propagate = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ctx.data["caught"] = caught
            try:
                out = case.run(ctx)
                outcome = out if out is not None else ok()
            except WrongResult as exc:
                outcome = wrong(str(exc))
            except SkipInput as exc:
                outcome = Outcome("skip", str(exc))
            except InjectedCode as exc:
                outcome = code_run(str(exc))
            except MemoryError as exc:
                outcome = raw(f"MemoryError {exc}")
            except RecursionError as exc:
                outcome = raw(f"RecursionError {short(exc)}")
            except BaseException as exc:
                if isinstance(exc, lagdyn_error()):
                    outcome = named(f"{type(exc).__name__}: {exc}")
                else:
                    tb = traceback.extract_tb(exc.__traceback__)
                    where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
                    outcome = raw(f"{type(exc).__name__}{where}: {exc}")
        result = {"kind": outcome.kind, "message": short(outcome.message, 400)}
        result["warnings"] = short(" | ".join([str(w.message) for w in caught] + ctx.messages), 300)
    except BaseException as exc:
        result = {"kind": "raw", "message": f"probe worker: {type(exc).__name__}: {exc}"}
    try:
        data = json.dumps(result).encode()
        view = memoryview(data)
        while view:
            n = os.write(wfd, view)
            view = view[n:]
        os.close(wfd)
    finally:
        os._exit(0)


@dataclasses.dataclass
class _Running:
    index: int
    case: Case
    ctx: Ctx
    pid: int
    rfd: int
    started: float
    before: dict[str, Any]
    chunks: list[bytes]
    timeout: float


class Runner:
    def __init__(self, base: Path, timeout: float, jobs: int, mem_limit: int | None) -> None:
        self.base = base
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self.mem_limit = mem_limit

    def _ctx(self, index: int, case: Case) -> Ctx:
        root = self.base / f"{index:05d}"
        work, victim = root / "work", root / "victim"
        work.mkdir(parents=True)
        victim.mkdir()
        (victim / "notes.txt").write_text("the user's own file\n")
        return Ctx(root, work, victim, root / "cache", case.timeout or self.timeout)

    def _start(self, index: int, case: Case) -> _Running | Outcome:
        ctx = self._ctx(index, case)
        if case.setup is not None:
            try:
                case.setup(ctx)
            except SkipInput:
                raise
            except Exception as exc:
                return raw(f"probe setup failed: {type(exc).__name__}: {exc}")
        before = snapshot(ctx.victim)
        rfd, wfd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(rfd)
            _child(case, ctx, wfd, self.mem_limit)
        os.close(wfd)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        return _Running(index, case, ctx, pid, rfd, time.monotonic(), before, [], ctx.timeout)

    def _finish(self, r: _Running, outcome: Outcome) -> Outcome:
        ctx = r.ctx
        canaries = find_canaries(ctx.root)
        if canaries:
            outcome = code_run(f"canary {', '.join(canaries)} created; " + outcome.message)
        diff = snapshot_diff(r.before, snapshot(ctx.victim))
        if diff:
            outcome = outcome.worse(file_lost(f"outside the chosen directory: {diff}"))
        if r.case.check is not None:  # also after a hang: checks release what setups hold
            try:
                outcome = r.case.check(ctx, outcome)
            except Exception as exc:
                outcome = outcome.worse(raw(f"probe check failed: {type(exc).__name__}: {exc}"))
        return outcome

    def run(
        self, cases: list[tuple[int, Case]], report: Callable[[int, Case, Outcome, str], None]
    ) -> None:
        pending = list(cases)
        running: list[_Running] = []
        while pending or running:
            while pending and len(running) < self.jobs:
                index, case = pending.pop(0)
                try:
                    started = self._start(index, case)
                except SkipInput as exc:
                    report(index, case, Outcome("skip", str(exc)), "")
                    continue
                if isinstance(started, Outcome):
                    report(index, case, started, "")
                else:
                    running.append(started)
            if not running:
                continue
            fds = [r.rfd for r in running]
            readable, _, _ = select.select(fds, [], [], 0.05)
            now = time.monotonic()
            for r in list(running):
                done = False
                outcome: Outcome | None = None
                warned = ""
                if r.rfd in readable:
                    chunk = os.read(r.rfd, 1 << 16)
                    if chunk:
                        r.chunks.append(chunk)
                    else:
                        done = True
                if done:
                    # leftovers of the worker's group (a compiler, node, ...): the worker is
                    # not reaped yet, so its id cannot have been reused
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(r.pid, signal.SIGKILL)
                    _, status = os.waitpid(r.pid, 0)
                    data = b"".join(r.chunks)
                    if data:
                        try:
                            got = json.loads(data)
                            outcome = Outcome(got["kind"], got["message"])
                            warned = got.get("warnings", "")
                        except ValueError:
                            outcome = raw("worker sent garbage")
                    else:
                        sig = -os.waitstatus_to_exitcode(status)
                        what = signal.Signals(sig).name if sig > 0 else f"exit {-sig}"
                        outcome = raw(f"worker crashed ({what}) with no result")
                elif now - r.started > r.timeout:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(r.pid, signal.SIGKILL)
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(r.pid, 0)
                    outcome = Outcome("hang", f"no result after {r.timeout:g} s (killed)")
                if outcome is None:
                    continue
                os.close(r.rfd)
                running.remove(r)
                outcome = self._finish(r, outcome)
                report(r.index, r.case, outcome, warned)


class SkipInput(Exception):  # noqa: N818 - an outcome
    """Raised by a setup: this input cannot be run here (the note says why)."""


# ===================================================================== generated code
@dataclasses.dataclass
class Spec:
    """Arguments to evaluate generated functions with, and what they must return."""

    n: int
    q: list[float]
    qd: list[float]
    p: list[float]
    M: list[list[float]]
    fd: list[float]
    energy: float
    t: float = 0.0

    @property
    def tau(self) -> list[float]:
        return [0.0] * self.n


def names_spec() -> Spec:
    """The hand-oracle model exported with m bound to 2 and k free (p = [3])."""
    import numpy as np

    return Spec(
        2,
        list(Q0),
        list(QD0),
        [KV],
        hand_M(Q0[0]).tolist(),
        np.asarray(hand_fd(*Q0, *QD0)).tolist(),
        float(hand_energy(*Q0, *QD0)),
    )


_C_PROTO = re.compile(r"\b(void|double)\s+(\w+)\s*\(([^)]*)\)\s*;")


def _c_value(arg: str, spec: Spec) -> tuple[str, str]:
    """(declaration, expression) of one C argument, chosen by its parameter name."""
    name = arg.strip().split()[-1].lstrip("*")
    arrays = {"q": spec.q, "qd": spec.qd, "qdd": [0.0] * spec.n, "tau": spec.tau, "p": spec.p}
    if name in arrays:
        values = arrays[name] or [0.0]
        return f"double a_{name}[] = {{{', '.join(repr(float(v)) for v in values)}}};", f"a_{name}"
    if name == "t":
        return "", repr(float(spec.t))
    if name == "out":
        return "", "out"
    raise WrongResult(f"unknown C argument {arg!r}")


def check_c_export(directory: Path, files: dict[str, str], spec: Spec) -> str:
    """Preprocess (trigraphs on, defines kept) and look for the marker; compile a harness,
    run it and compare M, forward dynamics and energy. Returns a note."""
    c_files = [f for f in files if f.endswith(".c")]
    h_files = [f for f in files if f.endswith(".h")]
    if len(c_files) != 1 or len(h_files) != 1:
        raise WrongResult(f"C export wrote {sorted(files)}")
    src = directory / c_files[0]
    header = files[h_files[0]]
    protos = {m.group(2): (m.group(1), m.group(3)) for m in _C_PROTO.finditer(header)}
    want = {}
    for suffix in ("_forward_dynamics", "_energy", "_M"):
        hits = [name for name in protos if name.endswith(suffix)]
        if len(hits) != 1:
            raise WrongResult(f"C header: no single function *{suffix} ({hits})")
        want[suffix] = hits[0]
    lines = ["#include <stdio.h>", f'#include "{h_files[0]}"', "int main(void) {"]
    lines.append(f"  double out[{spec.n * spec.n}];")
    for suffix, fn in want.items():
        ret, args = protos[fn]
        decls, exprs = [], []
        for a in args.split(","):
            d, e = _c_value(a, spec)
            if d:
                decls.append(d)
            exprs.append(e)
        lines.append("  {")
        lines.extend("    " + d for d in decls)
        call = f"{fn}({', '.join(exprs)})"
        if ret == "double":
            lines.append(f'    printf("%.17g\\n", {call});')
        else:
            count = spec.n * spec.n if suffix == "_M" else spec.n
            lines.append(f"    {call};")
            lines.append(f'    for (int i = 0; i < {count}; i++) printf("%.17g\\n", out[i]);')
        lines.append("  }")
    lines += ["  return 0;", "}"]
    harness = directory / "probe_harness.c"
    harness.write_text("\n".join(lines) + "\n")
    exe = directory / "probe_harness"
    rc, _, err = run_proc(
        ["gcc", "-O0", "-w", "-I", str(directory), str(harness), str(src), "-lm", "-o", str(exe)],
        timeout=120,
    )
    if rc != 0:
        raise WrongResult(f"C export does not compile: {short(err)}")
    rc, out, err = run_proc([str(exe)], cwd=directory.parent, timeout=30)
    if rc != 0:
        raise WrongResult(f"C harness exit {rc}: {short(err)}")
    values = [float(v) for v in out.split()]
    n = spec.n
    fd, energy, M = values[:n], values[n], values[n + 1 :]
    if not close(fd, spec.fd):
        raise WrongResult(f"C forward_dynamics {fd} != {spec.fd}")
    if not close(energy, spec.energy):
        raise WrongResult(f"C energy {energy} != {spec.energy}")
    if not close(M, [v for row in spec.M for v in row]):
        raise WrongResult(f"C M {M} != {spec.M}")
    rc, pre, err = run_proc(
        ["gcc", "-E", "-dD", "-P", "-trigraphs", "-I", str(directory), str(src)], timeout=60
    )
    if rc != 0:
        raise WrongResult(f"C export does not preprocess: {short(err)}")
    code = re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', '""', pre)
    if MARK.lower() in code.lower():
        raise InjectedCode("C export: the payload is code after preprocessing")
    return "c ok"


def check_cpp_export(directory: Path, files: dict[str, str], spec: Spec) -> str:
    hpp = [f for f in files if f.endswith(".hpp")]
    if len(hpp) != 1:
        raise WrongResult(f"C++ export wrote {sorted(files)}")
    rc, pre, err = run_proc(
        ["g++", "-E", "-dD", "-P", "-trigraphs", "-x", "c++", str(directory / hpp[0])], timeout=60
    )
    if rc != 0:
        raise WrongResult(f"C++ export does not preprocess: {short(err)}")
    code = re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', '""', pre)
    if MARK.lower() in code.lower():
        raise InjectedCode("C++ export: the payload is code after preprocessing")
    spaces = re.findall(r"^namespace\s+(\w+)\s*\{", files[hpp[0]], re.M)
    if len(spaces) != 1:
        raise WrongResult(f"C++ export: namespaces {spaces}")
    ns = spaces[0]
    q = ", ".join(map(repr, spec.q))
    qd = ", ".join(map(repr, spec.qd))
    p = ", ".join(map(repr, spec.p or [0.0]))
    tau = ", ".join(map(repr, spec.tau))
    harness = directory / "probe_harness.cpp"
    harness.write_text(
        f'#include "{hpp[0]}"\n'
        "int main() {\n"
        f"  double q[] = {{{q}}}, qd[] = {{{qd}}}, p[] = {{{p}}}, tau[] = {{{tau}}};\n"
        f"  double out[{spec.n * spec.n}];\n"
        f"  {ns}::M<double>(q, p, out);\n"
        f"  {ns}::forward_dynamics<double>(q, qd, tau, p, 0.0, out);\n"
        f"  double e = {ns}::energy<double>(q, qd, p);\n"
        "  (void)e;\n  return 0;\n}\n"
    )
    pch = SHARED.get("cpp_pch")  # a precompiled <cmath> (prepared by the parent)
    rc, _, err = run_proc(
        [
            "g++",
            "-fsyntax-only",
            "-w",
            *(["-include", pch] if pch else []),
            "-I",
            str(directory),
            str(harness),
        ],
        timeout=120,
    )
    if rc != 0:
        raise WrongResult(f"C++ export does not compile: {short(err)}")
    return "cpp ok"


_NODE_SCRIPT = r"""
const fs = require("fs"), vm = require("vm"), path = require("path");
const file = path.resolve(process.argv[1]);
const spec = JSON.parse(process.argv[2]);
function use(m) {
  return {M: m.M(spec.q, spec.p), fd: m.forward_dynamics(spec.q, spec.qd, spec.tau, spec.p, 0),
          E: m.energy(spec.q, spec.qd, spec.p), C: m.COORDINATES, P: m.PARAMETERS};
}
const out = {};
out.cjs = use(require(file));
const ctx = {}; vm.createContext(ctx);
vm.runInContext(fs.readFileSync(file, "utf8"), ctx);
const decl = /^var\s+([^\s=]+)\s*=/m.exec(fs.readFileSync(file, "utf8"));
out.global_name = decl ? decl[1] : null;
const g = decl ? vm.runInContext("typeof " + decl[1] + " === 'object' ? " + decl[1] + " : null", ctx) : null;
out.global = g ? use(g) : null;
console.log(JSON.stringify(out));
"""


def check_js_export(
    directory: Path, files: dict[str, str], spec: Spec, names: tuple[list[str], list[str]] | None
) -> str:
    js = [f for f in files if f.endswith(".js")]
    if len(js) != 1:
        raise WrongResult(f"JS export wrote {sorted(files)}")
    rc, out, err = run_proc(
        [
            "node",
            "-e",
            _NODE_SCRIPT,
            "--",
            str(directory / js[0]),
            json.dumps(dataclasses.asdict(spec) | {"tau": spec.tau}),
        ],
        cwd=directory.parent,
        timeout=60,
    )
    if rc != 0:
        raise WrongResult(f"JS export does not load: {short(err[-400:])}")
    got = json.loads(out.strip().split("\n")[-1])
    for how in ("cjs", "global"):
        r = got.get(how)
        if r is None:
            raise WrongResult(
                f"JS export: no usable browser global (declared {got.get('global_name')!r})"
            )
        if (
            not close(r["M"], spec.M)
            or not close(r["fd"], spec.fd)
            or not close(r["E"], spec.energy)
        ):
            raise WrongResult(f"JS export ({how}) computes M={r['M']} fd={r['fd']} E={r['E']}")
        if names is not None and (r["C"] != names[0] or r["P"] != names[1]):
            raise WrongResult(
                f"JS export: COORDINATES {r['C']!r}, PARAMETERS {r['P']!r}, expected {names}"
            )
    return "js ok"


def _stub_modules() -> dict[str, types.ModuleType]:
    import numpy as np

    numba = types.ModuleType("numba")

    def njit(*args: Any, **kwargs: Any) -> Any:
        if args and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f

    numba.njit = njit  # type: ignore[attr-defined]
    numba.jit = njit  # type: ignore[attr-defined]
    numba.prange = range  # type: ignore[attr-defined]
    jax = types.ModuleType("jax")
    jnp = types.ModuleType("jax.numpy")
    jnp.__dict__.update({k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    jax.numpy = jnp  # type: ignore[attr-defined]
    jax.jit = lambda f, **kw: f  # type: ignore[attr-defined]
    jax.config = types.SimpleNamespace(update=lambda *a, **k: None)  # type: ignore[attr-defined]
    return {"numba": numba, "jax": jax, "jax.numpy": jnp}


def check_python_export(
    directory: Path, files: dict[str, str], spec: Spec, names: tuple[list[str], list[str]] | None
) -> str:
    import inspect

    import numpy as np

    (fname,) = [f for f in files if f.endswith(".py")]
    text = files[fname]
    saved = {k: sys.modules.get(k) for k in ("numba", "jax", "jax.numpy")}
    sys.modules.update(_stub_modules())
    try:
        ns: dict[str, Any] = {"__name__": "probe_export"}
        exec(compile(text, str(directory / fname), "exec"), ns)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v

    def call(fn_name: str, shape: tuple[int, ...]) -> Any:
        fn = ns.get(fn_name)
        if not callable(fn):
            raise WrongResult(f"{fname}: no function {fn_name}")
        args = []
        for par in inspect.signature(fn).parameters:
            value = {
                "q": spec.q,
                "qd": spec.qd,
                "tau": spec.tau,
                "p": spec.p,
                "qdd": [0.0] * spec.n,
                "t": spec.t,
            }.get(par)
            if par == "out":
                value = np.zeros(shape)
            elif value is None:
                raise WrongResult(f"{fname}: {fn_name} has an argument {par!r}")
            args.append(np.asarray(value, dtype=float) if isinstance(value, list) else value)
        return np.asarray(fn(*args), dtype=float)

    n = spec.n
    M, fd, E = call("M", (n, n)), call("forward_dynamics", (n,)), call("energy", ())
    if not close(M, spec.M) or not close(fd, spec.fd) or not close(E, spec.energy):
        raise WrongResult(f"{fname} computes M={M.tolist()} fd={fd.tolist()} E={E}")
    if names is not None:
        got = (list(ns.get("COORDINATES", ())), list(ns.get("PARAMETERS", ())))
        if got != names:
            raise WrongResult(f"{fname}: COORDINATES/PARAMETERS {got!r}, expected {names!r}")
    return f"{fname} ok"


def _strip_lines(text: str, lang: str) -> list[str]:
    """Code lines of a Julia or MATLAB file: comments removed, strings as "S"."""
    out: list[str] = []
    depth = 0  # julia #= =# nesting
    in_block = False  # matlab %{ %}
    in_doc = False  # julia """ strings
    for line in text.split("\n"):
        if lang == "matlab":
            s = line.strip()
            if in_block:
                if s == "%}":
                    in_block = False
                continue
            if s == "%{":
                in_block = True
                continue
            code = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", '"S"', line)
            code = code.split("%", 1)[0]
            code = code.split("...", 1)[0]
        else:
            code, i, buf = line, 0, []
            while i < len(code):
                if in_doc:
                    j = code.find('"""', i)
                    segment = code[i:] if j < 0 else code[i:j]
                    if re.search(r"\$[\w(]", segment):  # interpolation: code inside a string
                        buf.append(segment)
                    if j < 0:
                        i = len(code)
                        break
                    in_doc = False
                    buf.append('"S"')
                    i = j + 3
                elif depth:
                    a, b = code.find("#=", i), code.find("=#", i)
                    if b < 0 and a < 0:
                        i = len(code)
                    elif a >= 0 and (b < 0 or a < b):
                        depth += 1
                        i = a + 2
                    else:
                        depth -= 1
                        i = b + 2
                elif code.startswith("#=", i):
                    depth += 1
                    i += 2
                elif code.startswith('"""', i):
                    in_doc = True
                    i += 3
                elif code[i] == "#":
                    break
                elif code[i] == '"':
                    m = re.compile(r'"(\\.|[^"\\])*"').match(code, i)
                    if not m:
                        raise WrongResult("julia: an unterminated string")
                    if re.search(r"\$[\w(]", m.group()):  # interpolation: code
                        buf.append(m.group())
                    buf.append('"S"')
                    i = m.end()
                else:
                    buf.append(code[i])
                    i += 1
            code = "".join(buf)
        if code.strip():
            out.append(code.strip())
    if depth or in_doc or in_block:
        raise WrongResult(f"{lang}: a comment or string never closes")
    return out


_JULIA_KEYWORDS = set(
    [
        "baremodule",
        "begin",
        "break",
        "catch",
        "const",
        "continue",
        "do",
        "else",
        "elseif",
        "end",
        "export",
        "false",
        "finally",
        "for",
        "function",
        "global",
        "if",
        "import",
        "let",
        "local",
        "macro",
        "module",
        "quote",
        "return",
        "struct",
        "true",
        "try",
        "using",
        "while",
        "abstract",
        "mutable",
        "primitive",
        "type",
        "where",
        "outer",
        "public",
    ]
)
_MATLAB_KEYWORDS = set(
    [
        "break",
        "case",
        "catch",
        "classdef",
        "continue",
        "else",
        "elseif",
        "end",
        "for",
        "function",
        "global",
        "if",
        "otherwise",
        "parfor",
        "persistent",
        "return",
        "spmd",
        "switch",
        "try",
        "while",
        "arguments",
        "methods",
        "properties",
        "events",
        "enumeration",
    ]
)


def check_text_export(target: str, files: dict[str, str], baseline: dict[str, str] | None) -> str:
    """Julia and MATLAB (no interpreter here): marker not in code, the code lines the same in
    number as the benign baseline's, identifiers valid for the language."""
    lang = "julia" if target == "julia" else "matlab"
    for fname, text in files.items():
        code = _strip_lines(text, lang)
        if MARK.lower() in "\n".join(code).lower():
            raise InjectedCode(f"{fname}: the payload is {lang} code")
        if baseline is not None and fname in baseline:
            base_lines = len(_strip_lines(baseline[fname], lang))
            if base_lines != len(code):
                raise WrongResult(
                    f"{fname}: {len(code)} code lines, the benign export has {base_lines}"
                )
        if lang == "julia":
            mods = re.findall(r"^module\s+(\S+)", "\n".join(code), re.M)
            if len(mods) != 1 or not mods[0].isidentifier() or mods[0] in _JULIA_KEYWORDS:
                raise WrongResult(f"{fname}: module name {mods!r} is not a Julia identifier")
        else:
            stem = fname[:-2] if fname.endswith(".m") else fname
            fn = re.findall(r"^function\s+(?:\w+\s*=\s*)?([^\s(]+)\s*\(", "\n".join(code), re.M)
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,62}", stem) or stem in _MATLAB_KEYWORDS:
                raise WrongResult(
                    f"{fname}: not a valid MATLAB function file name (ASCII letter first, "
                    "letters/digits/_, at most 63 characters, no keyword)"
                )
            if fn[:1] != [stem]:
                raise WrongResult(f"{fname}: declares function {fn[:1]}, not {stem!r}")
    return f"{target} ok"


def check_casadi_export(directory: Path, files: dict[str, str], spec: Spec) -> str:
    import casadi
    import numpy as np

    got = {}
    for fname in files:
        if not fname.endswith(".casadi"):
            continue
        f = casadi.Function.load(str(directory / fname))
        for key in ("M", "forward_dynamics", "energy"):
            if fname.endswith(f"_{key}.casadi"):
                got[key] = f
    if set(got) != {"M", "forward_dynamics", "energy"}:
        raise WrongResult(f"CasADi export wrote {sorted(files)}")

    def call(f: Any) -> Any:
        vals = []
        for i in range(f.n_in()):
            nm = f.name_in(i)
            vals.append(
                {
                    "q": spec.q,
                    "qd": spec.qd,
                    "tau": spec.tau,
                    "p": spec.p,
                    "t": spec.t,
                    "qdd": [0.0] * spec.n,
                }[nm]
            )
        return np.asarray(f(*vals), dtype=float)

    M, fd, E = call(got["M"]), call(got["forward_dynamics"]).ravel(), call(got["energy"]).ravel()
    if not close(M, spec.M) or not close(fd, spec.fd) or not close(E[0], spec.energy):
        raise WrongResult(f"CasADi export computes M={M.tolist()} fd={fd.tolist()} E={E.tolist()}")
    return "casadi ok"


_TRIGRAPHS = {
    "=": "#",
    "/": "\\",
    "'": "^",
    "(": "[",
    ")": "]",
    "!": "|",
    "<": "{",
    ">": "}",
    "-": "~",
}


def strip_c(text: str) -> list[str]:
    """Code lines of a C/C++ file as the compiler's first phases see it: trigraphs
    replaced, backslash-newlines spliced, comments removed (CR, LF and CRLF all end a
    line, as in GCC), string and character literals as "S"."""
    text = re.sub(r"\?\?([=/'()!<>-])", lambda m: _TRIGRAPHS[m.group(1)], text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"\\[ \t]*\n", "", text)
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise WrongResult("a /* comment never closes")
            out.append(" ")
            i = j + 2
        elif c in "\"'":
            m = re.compile(rf"{c}(\\.|[^{c}\\\n])*{c}").match(text, i)
            if not m:
                raise WrongResult(f"an unterminated {c} literal")
            out.append('"S"')
            i = m.end()
        else:
            out.append(c)
            i += 1
    return [line.strip() for line in "".join(out).split("\n") if line.strip()]


_JS_NEWLINES = "\n\r\u2028\u2029"


def strip_js(text: str) -> list[str]:
    """Code lines of a JS file: comments removed (LF, CR, U+2028, U+2029 end a line),
    string literals as "S", template literals kept only for their ${...} parts."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = min([k for k in (text.find(t, i) for t in _JS_NEWLINES) if k >= 0], default=n)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise WrongResult("a /* comment never closes")
            block = text[i:j]
            out.append("\n" if any(t in block for t in _JS_NEWLINES) else " ")
            i = j + 2
        elif c in "\"'":
            m = re.compile(rf"{c}(\\[\s\S]|[^{c}\\\n\r])*{c}").match(text, i)
            if not m:
                raise WrongResult(f"an unterminated {c} string")
            out.append('"S"')
            i = m.end()
        elif c == "`":
            m = re.compile(r"`(\\[\s\S]|[^`\\])*`").match(text, i)
            if not m:
                raise WrongResult("an unterminated template literal")
            out.append('"S"' + " ".join(re.findall(r"\$\{[^}]*\}", m.group())))
            i = m.end()
        else:
            out.append("\n" if c in _JS_NEWLINES else c)
            i += 1
    return [line.strip() for line in "".join(out).split("\n") if line.strip()]


def python_code_text(text: str, what: str) -> tuple[str, int]:
    """The AST of a Python file with every string constant emptied (dumped), and its
    number of statements; a file that does not parse is broken output."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        raise WrongResult(f"{what}: the generated Python does not parse: {short(exc)}") from None
    statements = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
        if isinstance(node, ast.stmt):
            statements += 1
    return ast.dump(tree), statements


def check_python_text(text: str, what: str, baseline: str | None = None) -> None:
    code, statements = python_code_text(text, what)
    if MARK.lower() in code.lower():
        raise InjectedCode(f"{what}: the payload is Python code")
    if baseline is not None:
        _, expected = python_code_text(baseline, "baseline")
        if statements != expected:
            raise WrongResult(f"{what}: {statements} statements, the benign file has {expected}")


def check_static(target: str, files: dict[str, str], baseline: dict[str, str] | None) -> None:
    """Comments and strings stripped per language: the marker must not be code, and the
    code must have as many lines (statements) as the benign export's."""
    for fname, text in files.items():
        if target in ("c", "cpp"):
            lines = strip_c(text)
            base = strip_c(baseline[fname]) if baseline and fname in baseline else None
        elif target == "js":
            lines = strip_js(text)
            base = strip_js(baseline[fname]) if baseline and fname in baseline else None
        elif target in ("numba", "jax"):
            check_python_text(text, fname, baseline.get(fname) if baseline else None)
            continue
        else:
            continue
        if MARK.lower() in "\n".join(lines).lower():
            raise InjectedCode(f"{fname}: the payload is {target} code")
        if base is not None and len(base) != len(lines):
            raise WrongResult(
                f"{fname}: {len(lines)} code lines, the benign export has {len(base)}"
            )


TARGETS = ("c", "cpp", "js", "numba", "jax", "julia", "matlab", "casadi")


def check_export(
    target: str,
    directory: Path,
    files: dict[str, str],
    spec: Spec,
    names: tuple[list[str], list[str]] | None = None,
    baseline: dict[str, str] | None = None,
    live: bool = True,
) -> str:
    """Check one target's files (written to ``directory``); raise WrongResult / InjectedCode.

    Always: every file inside ``directory``, the static check (:func:`check_static`);
    Python and CasADi files are run. ``live``: C compiled and run, C++ compiled, JS loaded
    under node."""
    for fname in files:
        p = (directory / fname).resolve()
        if directory.resolve() not in p.parents:
            raise WrongResult(f"file name {fname!r} leaves the directory")
    if not (live and target in ("c", "cpp", "js")):
        check_static(target, files, baseline)
    if target in ("numba", "jax"):
        return check_python_export(directory, files, spec, names)
    if target in ("julia", "matlab"):
        return check_text_export(target, files, baseline)
    if target == "casadi":
        return check_casadi_export(directory, files, spec)
    if not live:
        return f"{target} static ok"
    # live: run (a payload may create the canary) before the static check names it
    if target == "c":
        note = check_c_export(directory, files, spec)
    elif target == "cpp":
        note = check_cpp_export(directory, files, spec)
    elif target == "js":
        note = check_js_export(directory, files, spec, names)
    else:
        raise ValueError(target)
    check_static(target, files, baseline)
    return note


# =========================================================================== names
PY_CODE = f"{MARK} = __import__('os').system('touch {CANARY}')"
C_CODE = (
    f"__attribute__((constructor)) static void {MARK}(void) "
    f'{{ extern int system(const char *); system("touch {CANARY}"); }}'
)
JS_CODE = f"var {MARK} = require('fs').writeFileSync('{CANARY}', '1');"
JL_CODE = f"{MARK} = run(`touch {CANARY}`)"
M_CODE = f"{MARK} = system('touch {CANARY}');"

#: (label, name): payloads that break out of a comment, docstring or string of some target.
BREAKOUTS = [
    ("newline + Python", f"x\n{PY_CODE}\n#"),
    ("CR + Python", f"x\r{PY_CODE}\r#"),
    ("CRLF + Python", f"x\r\n{PY_CODE}\r\n#"),
    ("NEL U+0085 + Python", f"x\x85{PY_CODE}\x85#"),
    ("form feed + Python", f"x\x0c{PY_CODE}"),
    ("vertical tab + Python", f"x\x0b{PY_CODE}"),
    ('""" + Python', f'x"""\n{PY_CODE}\n"""'),
    ("''' + Python", f"x'''\n{PY_CODE}\n'''"),
    ('""" alone', 'x"""'),
    ("*/ + C", f"x */ {C_CODE} /* y"),
    ("*/ + JS", f"x */ {JS_CODE} /* y"),
    ("/* opens a comment", "x /* y"),
    ("newline + C", f"x\n{C_CODE}\n//"),
    ("newline + JS", f"x\n{JS_CODE}\n//"),
    ("U+2028 + JS", f"x\u2028{JS_CODE}\u2028//"),
    ("U+2029 + JS", f"x\u2029{JS_CODE}\u2029//"),
    ("backslash-newline + C", f"x\\\n{C_CODE}"),
    ("trailing backslash", "x\\"),
    ("trigraph ??/", "x??/"),
    ("trigraph ??/ + newline", f"x??/\n{C_CODE}"),
    ("// comment", "x // y"),
    ("# comment", "x # y"),
    ("% comment", "x % y"),
    ("%{ block", "%{"),
    ("newline + MATLAB", f"x\n{M_CODE}\n%"),
    ("... continuation", "x ..."),
    ("#= block", "x #= y"),
    ("=# close", "x =# y"),
    ("newline + Julia", f"x\n{JL_CODE}\n#"),
    ("$() interpolation", f"x $({JL_CODE})"),
    ("${} template", f"x ${{{JS_CODE}}}"),
    ("backtick", f"x `{JS_CODE}`"),
    ("</script> + JS", f"x</script><script>{JS_CODE}</script>"),
    ("HTML tag", f'x<img src=x onerror="{MARK}">'),
    ("double quote + JS", f'x", {JS_CODE} "'),
    ("single quote + Python", f"x', {PY_CODE}, '"),
    ("NUL", "x\x00y"),
    ("lone surrogate", "x\ud800"),
    ("RTL override", "x\u202ey"),
    ("zero-width space", "x\u200by"),
    ("BOM", "\ufeffx"),
    ("emoji", "x\U0001f642"),
    ("combining dot", "x\u0307"),
    ("space", "x y"),
    ("empty", ""),
    ("LaTeX", "x}\\input{/etc/passwd}"),
    ("dash dash", "x -- y"),
]
#: Names that are identifiers but reserved, keywords or library names somewhere.
IDENTIFIERS = [
    ("reserved _ldq0", "_ldq0"),
    ("reserved _ldq1", "_ldq1"),
    ("reserved _ldv0", "_ldv0"),
    ("reserved _lda0", "_lda0"),
    ("reserved _ldu0", "_ldu0"),
    ("reserved _ldp0", "_ldp0"),
    ("reserved _lagdyn_z0", "_lagdyn_z0"),
    ("reserved _ld", "_ld"),
    ("homoglyph Cyrillic a", "\u0430"),
    ("full-width x", "\uff58"),
    ("full-width k", "\uff4b"),
    ("Greek theta", "\u03b8"),
    *[
        (f"keyword/library {w}", w)
        for w in [
            "lambda",
            "def",
            "None",
            "True",
            "class",
            "import",
            "int",
            "double",
            "return",
            "const",
            "out",
            "q",
            "p",
            "t",
            "qd",
            "tau",
            "w0",
            "q_0",
            "p_0",
            "out_0",
            "function",
            "var",
            "NaN",
            "Infinity",
            "Math",
            "this",
            "end",
            "begin",
            "pi",
            "i",
            "j",
            "eps",
            "I",
            "E",
            "oo",
            "nan",
            "zoo",
            "S",
            "N",
            "O",
            "Q",
            "beta",
            "gamma",
            "np",
            "math",
            "sin",
            "cos",
            "exp",
            "sqrt",
            "jax",
            "numba",
            "self",
            "__import__",
            "__builtins__",
            "print",
            "main",
            "NAN",
            "M_PI",
        ]
    ],
    ("control theta1", "theta1"),
]


def _export_all(
    system: Any, params: Any, directory: Path, targets: Iterable[str], name: str = "model"
) -> dict[str, dict[str, str]]:
    from lagdyn.export import code

    out = {}
    for target in targets:
        d = directory / target
        paths = code.export(system, target, d, name=name, params=params)
        out[target] = {
            Path(p).name: Path(p).read_text(encoding="utf-8", errors="replace") for p in paths
        }
    return out


def _names_case(label: str, name: str, entry: str, sink: str) -> Case:
    role = "coordinate" if entry in ("ld.coordinates", "sp.Function") else "parameter"

    def build() -> Any:
        if entry == "ld.coordinates":
            return oracle_model(xname=name, how_x="ld")
        if entry == "sp.Function":
            return oracle_model(xname=name, how_x="sympy")
        if entry == "ld.parameters":
            return oracle_model(kname=name, how_k="ld")
        return oracle_model(kname=name, how_k="sympy")

    def run(ctx: Ctx) -> Outcome | None:
        system, x, _y, m, k = build()
        if sink == "numpy":
            num = system.lambdify({m: MV, k: KV})
            check_python_text(num.source, "numpy module")
            check_numeric_model(num)
            free = system.lambdify({m: MV})
            # energy with per-call parameters is a numerics input (not a names one)
            check_numeric_model(free, per_call={k: KV}, energy=False)
            check_numeric_model(free, per_call=[KV], energy=False)
            return ok()
        if sink == "by name":  # the parameter bound by its name, not its symbol
            num = system.lambdify({"mm_": MV, k.name: KV})
            check_numeric_model(num)
            return ok()
        if sink == "c":
            num = system.lambdify({m: MV, k: KV}, backend="c")
            check_numeric_model(num)
            return ok()
        if sink == "fmu":
            from lagdyn.export.fmu import export_fmu

            path = export_fmu(system, ctx.work / "fmu", params={m: MV, k: KV}, sources_only=True)
            check_fmu(path, coordinate=str(x.func.__name__), parameter=str(k.name))
            return ok()
        if sink == "html":
            from lagdyn.export.markdown import markdown

            page = markdown(system, html=True)
            check_html(page, "derive --html page")
            return ok()
        if sink in ("exports", "live"):
            names = ([str(x.func.__name__), "yy_"], [str(k.name)])
            spec = names_spec()
            live = sink == "live"
            targets = ("c", "cpp", "js") if live else TARGETS
            files = _export_all(system, {m: MV}, ctx.work, targets)
            baseline = SHARED["names_baseline"]
            notes = []
            for target, f in files.items():
                try:
                    notes.append(
                        check_export(
                            target,
                            ctx.work / target,
                            f,
                            spec,
                            names,
                            baseline.get(target),
                            live=live,
                        )
                    )
                except (WrongResult, InjectedCode) as exc:
                    raise type(exc)(f"{target}: {exc}") from None
            return ok(", ".join(notes))
        raise ValueError(sink)

    return Case("names", f"{role} via {entry} -> {sink}: {label} {rep(name, 40)}", run)


def check_fmu(
    path: Path,
    *,
    coordinate: str | None = None,
    parameter: str | None = None,
    identifier: str | None = None,
) -> None:
    """An FMU (sources only): modelDescription.xml parses and holds the names as given;
    the C sources carry no payload as code."""
    import xml.etree.ElementTree as ET
    import zipfile

    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        try:
            root = ET.fromstring(z.read("modelDescription.xml"))
        except ET.ParseError as exc:
            raise WrongResult(f"modelDescription.xml does not parse: {exc}") from None
        for member in names:
            if member.endswith((".c", ".h")):
                text = z.read(member).decode("utf-8", errors="replace")
                if MARK.lower() in "\n".join(strip_c(text)).lower():
                    raise InjectedCode(f"{member}: the payload is C code")
    # variable names may be lagdyn's own (q.q1 for a name that is no identifier); they must
    # be unique and hold no line break
    variables = [
        v.get("name", "")
        for v in root.iter()
        if v.get("valueReference") is not None and v.get("name") is not None
    ]
    if len(set(variables)) != len(variables) or any(not v or "\n" in v for v in variables):
        raise WrongResult(f"FMU variable names {variables}")
    if identifier is not None:
        ids = {e.get("modelIdentifier") for e in root.iter() if e.get("modelIdentifier")}
        if ids != {identifier}:
            raise WrongResult(f"modelIdentifier {ids}, expected {identifier!r}")


class _TagScan(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.handlers: list[str] = []
        self.title = ""
        self._in_title = False
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in_title = tag == "title"
        self._in_script = tag == "script"
        if tag == "script":
            self.scripts.append("")
        for k, v in attrs:
            if (
                k.lower().startswith("on")
                or MARK.lower() in k.lower()
                or (v and v.strip().lower().startswith("javascript:"))
            ):
                self.handlers.append(f"{tag} {k}={v!r}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._in_script:
            self.scripts[-1] += data


def check_html(page: str, what: str) -> _TagScan:
    scan = _TagScan()
    scan.feed(page)
    scan.close()
    if scan.handlers:
        raise InjectedCode(f"{what}: event handler attributes {scan.handlers[:2]}")
    if any(MARK.lower() in t for t in scan.tags):
        raise InjectedCode(f"{what}: an element from the payload")
    if "script" in scan.tags and what.startswith("derive"):
        raise InjectedCode(f"{what}: a <script> element")
    return scan


LIVE_PAYLOADS = {
    "*/ + C",
    "*/ + JS",
    "newline + C",
    "U+2028 + JS",
    "backslash-newline + C",
    "trigraph ??/ + newline",
    "/* opens a comment",
    "${} template",
    "reserved _ldq0",
}
#: Payloads aimed at Python source: also sent as coordinate names into the numpy module
#: (every payload goes there as a parameter name).
PYTHON_PAYLOADS = {
    label
    for label, _ in BREAKOUTS
    if "Python" in label
    or label.endswith("alone")
    or label in ("backslash-newline + C", "trailing backslash", "U+2028 + JS", "# comment")
}
#: Payloads also sent into an FMU (C sources, modelDescription.xml).
FMU_PAYLOADS = {
    "*/ + C",
    "newline + C",
    "backslash-newline + C",
    "trailing backslash",
    "trigraph ??/ + newline",
    "/* opens a comment",
    "HTML tag",
    "double quote + JS",
    "</script> + JS",
    "space",
    "empty",
    "emoji",
    "RTL override",
    "LaTeX",
}
#: Identifiers also sent through every export target (the others stop at numpy there).
EXPORTED_IDENTIFIERS = {
    "lambda",
    "function",
    "end",
    "NaN",
    "__import__",
    "out",
    "p",
    "q",
    "w0",
    "pi",
    "I",
    "main",
    "M_PI",
    "\u0430",
    "\uff58",
}


try:
    import importlib.util

    _HAS_FMU = importlib.util.find_spec("lagdyn.export.fmu") is not None
except (ImportError, ValueError):  # an older lagdyn
    _HAS_FMU = False


def names_cases() -> list[Case]:
    cases = []
    for label, name in BREAKOUTS + IDENTIFIERS:
        is_id = name.isidentifier() and name.isprintable()
        reserved = label.startswith("reserved")
        for entry in ("ld.coordinates", "ld.parameters", "sp.Symbol"):
            cases.append(_names_case(label, name, entry, "numpy"))
        if reserved or label in PYTHON_PAYLOADS:
            cases.append(_names_case(label, name, "sp.Function", "numpy"))
        if not is_id or reserved:
            cases.append(_names_case(label, name, "sp.Function", "exports"))
        if not is_id or reserved or name in EXPORTED_IDENTIFIERS:
            cases.append(_names_case(label, name, "sp.Symbol", "exports"))
        if is_id and (reserved or name in EXPORTED_IDENTIFIERS):
            cases.append(_names_case(label, name, "sp.Symbol", "by name"))
        if label in LIVE_PAYLOADS:
            cases.append(_names_case(label, name, "sp.Symbol", "live"))
        if label in FMU_PAYLOADS and _HAS_FMU:
            cases.append(_names_case(label, name, "sp.Function", "fmu"))
        if not is_id and any(w in label for w in ("HTML", "</script>", "LaTeX", "newline + JS")):
            cases.append(_names_case(label, name, "sp.Function", "html"))
    # the C runtime backend compiles (4 s each): the payload kinds that target C
    for label, name in BREAKOUTS + IDENTIFIERS:
        if label in ("*/ + C", "backslash-newline + C", "reserved _ldq0"):
            cases.append(_names_case(label, name, "sp.Symbol", "c"))
    for label, fake, meant in (
        ("Cyrillic a", "\u0430", "a"),
        ("full-width k", "\uff4b", "k"),
        ("Greek omicron", "\u03bf", "o"),
    ):
        cases.append(_homoglyph_case(label, fake, meant))
    return cases


def prepare_names() -> None:
    """Warm every code path once in the parent (imports, printers) and keep the benign
    export of the hand-oracle model as the baseline of the static checks."""
    if "names_baseline" in SHARED:
        return
    prepare_cpp_pch()
    system, _x, _y, m, k = oracle_model()
    system.lambdify({m: MV, k: KV})
    d = Path(tempfile.mkdtemp(prefix="baseline-", dir=Path.cwd()))
    SHARED["names_baseline"] = _export_all(system, {m: MV}, d, TARGETS)
    from lagdyn.export.markdown import markdown

    markdown(system, html=True)
    _stub_modules()
    import casadi  # noqa: F401


def _homoglyph_case(label: str, fake: str, meant: str) -> Case:
    """A system holding both a parameter and its look-alike: a note must say so."""

    def run(ctx: Ctx) -> Outcome | None:
        import sympy as sp

        import lagdyn as ld

        x, y = ld.coordinates("x yy_")
        a, b = sp.Symbol(meant, positive=True), sp.Symbol(fake, positive=True)
        xd, yd = sp.diff(x, ld.t), sp.diff(y, ld.t)
        system = ld.LagrangianSystem(a * xd**2 / 2 + b * yd**2 / 2 - a * x**2 / 2, [x, y])
        num = system.lambdify({meant: 2.0, fake: 3.0})
        if not close(num.M([0.1, 0.2]), [[2.0, 0.0], [0.0, 3.0]]):
            raise WrongResult(f"M = {num.M([0.1, 0.2]).tolist()}")
        if ctx.warned(re.escape(fake)) or ctx.warned("look|homoglyph|confus|similar"):
            return ok("warned")
        return wrong(f"parameters {meant!r} and {fake!r} accepted without a note")

    return Case("names", f"homoglyph: parameters {meant!r} and {label} in one system", run)


# =========================================================================== export --name
_C_KEYWORDS = [
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "_Complex",
    "_Imaginary",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Generic",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "bool",
    "true",
    "false",
    "nullptr",
    "alignas",
    "alignof",
    "constexpr",
    "static_assert",
    "thread_local",
    "typeof",
]
_C_MACROS = [
    "main",
    "NAN",
    "INFINITY",
    "HUGE_VAL",
    "M_PI",
    "M_E",
    "EOF",
    "NULL",
    "errno",
    "assert",
    "sin",
    "cos",
    "tan",
    "exp",
    "log",
    "sqrt",
    "pow",
    "fabs",
    "abs",
    "floor",
    "ceil",
    "fmod",
    "atan2",
    "hypot",
    "isnan",
    "isinf",
    "printf",
    "malloc",
    "free",
    "exit",
    "complex",
    "I",
    "math_errhandling",
    "double_t",
    "__LINE__",
    "__FILE__",
    "__cplusplus",
    "unix",
    "linux",
    "i386",
    "FP_NAN",
]
_CPP_KEYWORDS = [
    "and",
    "or",
    "not",
    "xor",
    "bitand",
    "compl",
    "class",
    "namespace",
    "template",
    "typename",
    "this",
    "new",
    "delete",
    "operator",
    "private",
    "public",
    "protected",
    "virtual",
    "friend",
    "try",
    "catch",
    "throw",
    "using",
    "explicit",
    "mutable",
    "std",
    "concept",
    "requires",
    "co_await",
    "co_return",
    "co_yield",
    "char8_t",
    "decltype",
    "noexcept",
    "static_cast",
    "export",
    "module",
    "import",
    "final",
    "override",
]
_JS_NAMES = [
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "let",
    "static",
    "enum",
    "await",
    "implements",
    "package",
    "protected",
    "interface",
    "private",
    "public",
    "null",
    "true",
    "false",
    "NaN",
    "Infinity",
    "undefined",
    "eval",
    "arguments",
    "Math",
    "Object",
    "module",
    "exports",
    "require",
    "globalThis",
    "window",
    "document",
    "console",
    "JSON",
    "Array",
    "Function",
    "Symbol",
    "constructor",
    "__proto__",
    "prototype",
    "hasOwnProperty",
    "toString",
]
_JULIA_NAMES = [
    "begin",
    "end",
    "function",
    "if",
    "else",
    "elseif",
    "for",
    "while",
    "try",
    "catch",
    "finally",
    "return",
    "module",
    "baremodule",
    "using",
    "import",
    "export",
    "struct",
    "mutable",
    "abstract",
    "primitive",
    "type",
    "quote",
    "macro",
    "let",
    "local",
    "global",
    "const",
    "do",
    "true",
    "false",
    "Base",
    "Core",
    "Main",
    "pi",
    "im",
    "Inf",
    "NaN",
    "nothing",
    "missing",
    "where",
    "in",
    "isa",
    "ccall",
]
_MATLAB_NAMES = [
    "end",
    "function",
    "if",
    "else",
    "elseif",
    "for",
    "while",
    "switch",
    "case",
    "otherwise",
    "try",
    "catch",
    "return",
    "break",
    "continue",
    "global",
    "persistent",
    "parfor",
    "spmd",
    "classdef",
    "methods",
    "properties",
    "events",
    "enumeration",
    "pi",
    "i",
    "j",
    "eps",
    "Inf",
    "NaN",
    "ans",
    "sin",
    "cos",
    "exp",
    "zeros",
    "ones",
    "size",
    "numel",
    "disp",
    "error",
]
_PY_NAMES = [
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
    "match",
    "case",
    "type",
    "_",
    "print",
    "math",
    "numpy",
    "numba",
    "jax",
    "np",
    "jnp",
    "M",
    "C",
    "g",
    "energy",
    "bias",
    "N",
    "COORDINATES",
    "PARAMETERS",
    "__init__",
    "__main__",
    "sys",
    "os",
]
#: Names every target gets: path tricks, characters no identifier has, lengths.
_NAME_PAYLOADS = [
    ("empty", ""),
    ("blank", " "),
    ("dot", "."),
    ("dot dot", ".."),
    ("parent path", "../evil"),
    ("absolute path into the victim dir", "@VICTIM@/evil"),
    ("slash", "a/b"),
    ("backslash", "a\\b"),
    ("option-like", "-rf"),
    ("space", "a b"),
    ("newline", "a\nb"),
    ("comment close", "a*/b"),
    ("NUL", "a\x00b"),
    ("leading digit", "1abc"),
    ("accented", "\u00e9t\u00e9"),
    ("full-width", "\uff4d\uff4f\uff44\uff45\uff4c"),
    ("Cyrillic", "\u043c\u043e\u0434\u0435\u043b\u044c"),
    ("300 letters", "a" * 300),
    ("60 letters (MATLAB 63-character limit)", "a" * 60),
    ("file name with suffix", "model.c"),
    ("dash", "a-b"),
    ("dot inside", "a.b"),
    ("underscore", "_"),
    ("double underscore", "__"),
    ("reserved _ld", "_ldq0"),
    ("capitalised", "Model"),
    ("control mymodel", "mymodel"),
]


def _pendulum_spec() -> Spec:
    """Numbers of the double pendulum (all five parameters free) from the numpy backend."""
    import numpy as np

    system = SHARED["dp"]
    num = SHARED["dp_num"]
    q, qd, p = [0.3, -0.4], [0.5, 0.2], [9.81, 1.1, 0.9, 1.3, 0.7]
    return Spec(
        2,
        q,
        qd,
        p,
        np.asarray(num.M(q, params=p)).tolist(),
        np.asarray(num.forward_dynamics(q, qd, params=p)).tolist(),
        num_energy(system, q, qd, p),
    )


def num_energy(system: Any, q: list[float], qd: list[float], p: list[float]) -> float:
    """E = T + U by sympy at these values (the numpy backend's energy with per-call
    parameters is itself a numerics input)."""
    import sympy as sp

    sub = dict(zip(system.parameters, p))
    sub.update({system.qd[i]: qd[i] for i in range(system.n)})
    sub.update({system.q[i]: q[i] for i in range(system.n)})
    return float(sp.N((system.T + system.U).subs(sub), 30))


def _resolve_name(name: str, ctx: Ctx) -> str:
    return name.replace("@VICTIM@", str(ctx.victim))


def _check_written(ctx: Ctx, out: Path, target: str, files: dict[str, str]) -> str:
    """Everything the export wrote is inside ``out``; the files pass :func:`check_export`."""
    strays = []
    for dirpath, _, filenames in os.walk(ctx.work):
        for f in filenames:
            p = Path(dirpath, f)
            if out not in p.parents and p.name not in (
                "probe_harness.c",
                "probe_harness.cpp",
                "probe_harness",
            ):
                strays.append(str(p.relative_to(ctx.work)))
    if strays:
        raise _OutsideError(f"files written outside --out: {strays}")
    spec = SHARED["dp_spec"]
    names = (["a", "b"], ["g", "l1", "l2", "m1", "m2"])
    live = target in ("c", "cpp", "js")
    return check_export(target, out, files, spec, names, SHARED["dp_baseline"].get(target), live)


class _OutsideError(Exception):
    pass


def _export_name_case(label: str, name: str, target: str, via: str) -> Case:
    def run(ctx: Ctx) -> Outcome | None:
        out = ctx.work / "out"
        real = _resolve_name(name, ctx)
        if via == "cli":
            got = run_cli(
                [
                    "export",
                    "double_pendulum",
                    "-t",
                    target,
                    "--out",
                    str(out),
                    f"--name={real}",
                    "--no-progress",
                ],
                ctx,
            )
            if isinstance(got, Outcome):
                return got
        else:
            from lagdyn.export import code

            code.export(SHARED["dp"], target, out, name=real)
        files = {}
        if out.is_dir():
            for p in out.iterdir():
                files[p.name] = p.read_text(encoding="utf-8", errors="replace")
        try:
            return ok(_check_written(ctx, out, target, files))
        except _OutsideError as exc:
            return file_lost(str(exc))

    return Case("export_name", f"{via} {target}: {label} {rep(name, 40)}", run)


def _fmu_name_case(label: str, name: str) -> Case:
    def run(ctx: Ctx) -> Outcome | None:
        from lagdyn.export.fmu import export_fmu

        out = ctx.work / "out"
        real = _resolve_name(name, ctx)
        path = export_fmu(SHARED["dp"], out, name=real, sources_only=True)
        if out.resolve() not in Path(path).resolve().parents:
            return file_lost(f"the FMU was written to {path}")
        check_fmu(Path(path), identifier=real)
        return ok()

    return Case("export_name", f"api fmu: {label} {rep(name, 40)}", run)


def export_name_cases() -> list[Case]:
    cases = []
    groups = [
        (_C_MACROS, ("c", "cpp")),
        (_C_KEYWORDS, ("cpp",)),
        (_CPP_KEYWORDS, ("cpp",)),
        (_JS_NAMES, ("js",)),
        (_JULIA_NAMES, ("julia",)),
        (_MATLAB_NAMES, ("matlab",)),
        (_PY_NAMES, ("numba", "jax")),
        (["casadi", "Function", "SX", "MX"], ("casadi",)),
    ]
    for words, targets in groups:
        for w in words:
            for t in targets:
                cases.append(_export_name_case("keyword/library", w, t, "api"))
    for label, name in _NAME_PAYLOADS:
        for t in TARGETS:
            cases.append(_export_name_case(label, name, t, "api"))
    if _HAS_FMU:
        for label, name in _NAME_PAYLOADS:
            cases.append(_fmu_name_case(label, name))
        for w in ("main", "NAN", "unix", "fmi3Instantiate", "ld", "lagdyn_fmu", "int", "M_PI"):
            cases.append(_fmu_name_case("keyword/library", w))
    # the command line: every payload once (target c), and the C/C++ macros (target cpp)
    for label, name in _NAME_PAYLOADS:
        if "\x00" not in name:  # an argv cannot hold NUL
            cases.append(_export_name_case(label, name, "c", "cli"))
    for w in ("main", "NAN", "INFINITY", "M_PI", "sin", "exp", "std", "namespace", "int"):
        cases.append(_export_name_case("keyword/library", w, "cpp", "cli"))
    for w in ("function", "NaN", "undefined", "Infinity"):
        cases.append(_export_name_case("keyword/library", w, "js", "cli"))
    return cases


def prepare_cpp_pch() -> None:
    if "cpp_pch" in SHARED:
        return
    d = Path(tempfile.mkdtemp(prefix="pch-", dir=Path.cwd()))
    (d / "pre.hpp").write_text("#include <cmath>\n")
    rc, _, _ = run_proc(
        ["g++", "-x", "c++-header", str(d / "pre.hpp"), "-o", str(d / "pre.hpp.gch")],
        own_group=True,
        timeout=300,
    )
    SHARED["cpp_pch"] = str(d / "pre.hpp") if rc == 0 else None


def prepare_export_name() -> None:
    import lagdyn as ld

    prepare_names()
    prepare_cpp_pch()
    dp = ld.zoo.double_pendulum()
    SHARED["dp"] = dp
    SHARED["dp_num"] = dp.lambdify({})
    SHARED["dp_spec"] = _pendulum_spec()
    d = Path(tempfile.mkdtemp(prefix="dp-baseline-", dir=Path.cwd()))
    SHARED["dp_baseline"] = _export_all(dp, None, d, TARGETS)
    # the baseline itself must pass the checks (else the oracle is wrong)
    for target, files in SHARED["dp_baseline"].items():
        check_export(
            target,
            d / target,
            files,
            SHARED["dp_spec"],
            (["a", "b"], ["g", "l1", "l2", "m1", "m2"]),
            files,
            live=True,
        )


# =========================================================================== URDF
def _joint(
    name: str,
    parent: str,
    child: str,
    *,
    type: str = "revolute",
    xyz: str = "0 0 0.1",
    rpy: str = "0 0 0",
    axis: str | None = "0 0 1",
    extra: str = "",
) -> str:
    ax = "" if axis is None else f'<axis xyz="{axis}"/>'
    return (
        f'<joint name="{name}" type="{type}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}" rpy="{rpy}"/>{ax}'
        f'<limit effort="10" velocity="10" lower="-3" upper="3"/>{extra}</joint>\n'
    )


def _link(
    name: str,
    mass: str | None = "2",
    com: str = "0.1 0 0",
    inertia: tuple[str, ...] | None = ("0.1", "0", "0", "0.2", "0", "0.3"),
) -> str:
    if mass is None:
        return f'<link name="{name}"/>\n'
    keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    it = (
        ""
        if inertia is None
        else "<inertia " + " ".join(f'{k}="{v}"' for k, v in zip(keys, inertia)) + "/>"
    )
    return (
        f'<link name="{name}"><inertial><mass value="{mass}"/><origin xyz="{com}"/>{it}'
        f"</inertial></link>\n"
    )


def arm_urdf(
    *,
    mass2: str = "1.5",
    inertia2: tuple[str, ...] | None = ("0.05", "0", "0", "0.04", "0", "0.03"),
    axis2: str | None = "0 1 0",
    rpy2: str = "0 0 0",
    xyz2: str = "0.5 0 0",
    type2: str = "revolute",
    com2: str = "0.2 0 0.1",
    prolog: str = "",
) -> str:
    """A world link, a revolute joint about z, a second joint (the probe's fields), two links."""
    return (
        f'{prolog}<robot name="probe">\n'
        + _link("world", None)
        + _joint("j1", "world", "l1")
        + _link("l1")
        + _joint("j2", "l1", "l2", type=type2, xyz=xyz2, rpy=rpy2, axis=axis2)
        + _link("l2", mass2, com2, inertia2)
        + "</robot>\n"
    )


@contextlib.contextmanager
def captured_fd2() -> Iterator[list[str]]:
    """What C++ code (urdfdom) prints on file descriptor 2, instead of the terminal."""
    got: list[str] = []
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            yield got
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            got.append(tmp.read().decode(errors="replace"))


def pin_oracle(source: Any, q: Any) -> tuple[Any, Any] | None:
    """Pinocchio's M (symmetrised CRBA) and g at q, or None if Pinocchio (urdfdom) refuses
    or complains about the file (``source``: XML text or bytes, or a path). Continuous
    joints take (cos, sin) in Pinocchio's configuration."""
    import numpy as np
    import pinocchio as pin

    with captured_fd2() as err:
        try:
            if isinstance(source, bytes):
                model = pin.buildModelFromXML(source.decode("utf-8"))
            elif isinstance(source, str) and source.lstrip().startswith("<"):
                model = pin.buildModelFromXML(source)
            else:
                model = pin.buildModelFromUrdf(str(source))
        except Exception:
            model = None
    if model is None or "Error" in err[0]:
        return None
    data = model.createData()
    q = np.asarray(q, dtype=float)
    if model.nv != q.size:
        return None
    qp = pin.neutral(model)
    k = 0
    for joint in model.joints[1:]:
        if joint.nq == 2 and joint.nv == 1:
            qp[joint.idx_q : joint.idx_q + 2] = np.cos(q[k]), np.sin(q[k])
        else:
            qp[joint.idx_q : joint.idx_q + joint.nq] = q[k : k + joint.nv]
        k += joint.nv
    M = np.array(pin.crba(model, data, qp))
    M = np.triu(M) + np.triu(M, 1).T
    g = np.array(pin.computeGeneralizedGravity(model, data, qp))
    return M, g


def _lagdyn_numbers(arm: Any, q: Any) -> tuple[Any, Any]:
    import numpy as np

    num = arm.lambdify(dict(arm.defaults or {}))
    return np.asarray(num.M(q)), np.asarray(num.g(q))


def _urdf_case(
    label: str,
    make: Callable[[Ctx], Any],
    expect: str,
    *,
    mode: str = "numeric",
    kwargs: dict[str, Any] | None = None,
    warn: str | None = None,
    setup: Callable[[Ctx], None] | None = None,
    timeout: float | None = None,
    reference: str | None = None,
) -> Case:
    """``reference``: the file Pinocchio reads instead (the same robot spelled as urdfdom
    reads it). ``expect``: "valid" (accepted and equal to Pinocchio's M and g), "refuse" (any
    acceptance is silently wrong), "warn" (accepted with a warning matching ``warn``, or
    refused), "either" (refusal or an acceptance that matches Pinocchio), "accept" (accepted,
    no oracle but the number of coordinates: files Pinocchio cannot load quickly)."""

    def run(ctx: Ctx) -> Outcome | None:
        import numpy as np

        import lagdyn as ld

        source = make(ctx)
        arm = ld.robot.from_urdf(source, parameters=mode, **(kwargs or {}))
        if expect == "refuse":
            return wrong(f"accepted (n = {arm.n}, defaults {short(dict(arm.defaults or {}), 80)})")
        if expect == "accept":
            return ok(f"n = {arm.n}")
        if expect == "warn" and not ctx.warned(warn or "."):
            return wrong(f"accepted without a warning ({warn})")
        q = np.linspace(0.3, -0.4, arm.n)
        ref = pin_oracle(source if reference is None else reference, q)
        if ref is None:
            if expect == "either":
                return ok("accepted; Pinocchio refuses the file")
            return wrong("accepted; Pinocchio refuses this file (no reference)")
        M, g = _lagdyn_numbers(arm, q)
        if not close(M, ref[0], rtol=1e-8, atol=1e-10):
            raise WrongResult(f"M = {M.tolist()}, Pinocchio {ref[0].tolist()}")
        if not close(g, ref[1], rtol=1e-8, atol=1e-10):
            raise WrongResult(f"g = {g.tolist()}, Pinocchio {ref[1].tolist()}")
        return ok("matches Pinocchio")

    return Case("urdf", f"{mode}: {label}", run, setup=setup, timeout=timeout)


def _number_expectation(text: str) -> str:
    """valid / refuse / either for one number as urdfdom reads it (a decimal strtod takes);
    Python spellings of a number (``1_000``, ``1/3``) may be refused or read as that number."""
    t = text.strip()
    if re.fullmatch(r"\d+(_\d+)+|\d+/[1-9]\d*", t):
        return "either"
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t):
        return "refuse"
    try:
        v = float(t)
    except ValueError:
        return "refuse"
    if not math.isfinite(v):
        return "refuse"
    if v == 0 and re.search(r"[1-9]", t.split("e")[0].split("E")[0]):
        return "either"  # underflows to 0
    return "valid"


def urdf_cases() -> list[Case]:
    cases: list[Case] = []

    def const(xml: str) -> Callable[[Ctx], Any]:
        return lambda ctx: xml

    numbers = [
        "1.5",
        "0",
        "-0",
        "-1",
        "-1e-300",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "1e308",
        "1e309",
        "1e400",
        "-1e400",
        "1e-400",
        "1e5000",
        "1e-5000",
        "1e1000000000",
        "1e-1000000000",
        "9" * 400,
        "0x10",
        "1_000",
        " 2 ",
        "2 3",
        "",
        "abc",
        "1/0",
        "1/3",
        "2.",
        ".5",
        "+3",
        "1E2",
    ]
    for mode in ("numeric", "symbolic"):
        for v in numbers:
            if mode == "symbolic" and v == "1e-1000000000":
                continue  # one of each hang is enough
            exp = _number_expectation(v)
            if exp == "valid" and float(v) < 0:
                exp = "refuse"  # a negative mass
            if exp == "valid" and float(v) == 0:
                exp = "either"  # a massless link with inertia: allowed, or refused as singular
            spelled = v.strip()
            if "/" in spelled and exp != "refuse":  # the reference spells it as a decimal
                a, b = spelled.split("/")
                spelled = repr(int(a) / int(b))
            ref = arm_urdf(mass2=spelled.replace("_", "")) if exp != "refuse" else None
            cases.append(
                _urdf_case(f"mass {v!r}", const(arm_urdf(mass2=v)), exp, mode=mode, reference=ref)
            )
    inertias = [
        ("diagonal", ("0.05", "0", "0", "0.04", "0", "0.03"), "valid"),
        ("full, positive definite", ("0.05", "0.01", "-0.005", "0.04", "0.002", "0.03"), "valid"),
        ("zero (point mass)", ("0",) * 6, "valid"),
        ("negative ixx", ("-0.05", "0", "0", "0.04", "0", "0.03"), "refuse"),
        ("indefinite (large ixy)", ("0.05", "0.5", "0", "0.04", "0", "0.03"), "refuse"),
        ("negative definite", ("-0.05", "0", "0", "-0.04", "0", "-0.03"), "refuse"),
        ("triangle inequality violated", ("0.01", "0", "0", "0.01", "0", "0.5"), "warn"),
        ("NaN ixy", ("0.05", "nan", "0", "0.04", "0", "0.03"), "refuse"),
        ("inf izz", ("0.05", "0", "0", "0.04", "0", "inf"), "refuse"),
        ("huge exponent iyy", ("0.05", "0", "0", "1e1000000000", "0", "0.03"), "refuse"),
        ("1e400 ixx", ("1e400", "0", "0", "0.04", "0", "0.03"), "refuse"),
        ("missing ixz", ("0.05", "0", None, "0.04", "0", "0.03"), "refuse"),
    ]
    for mode in ("numeric", "symbolic"):
        for label, values, exp in inertias:
            if mode == "symbolic" and "huge exponent" in label:
                continue
            if None in values:
                xml = arm_urdf().replace('ixz="0" iyy="0.04"', 'iyy="0.04"')
            else:
                xml = arm_urdf(inertia2=values)  # type: ignore[arg-type]
            cases.append(
                _urdf_case(f"inertia {label}", const(xml), exp, mode=mode, warn="triangle|A \\+ B")
            )
        cases.append(
            _urdf_case(
                "inertia indefinite, check_inertia=False",
                const(arm_urdf(inertia2=("0.05", "0.5", "0", "0.04", "0", "0.03"))),
                "valid",
                mode=mode,
                kwargs={"check_inertia": False},
            )
        )
        cases.append(
            _urdf_case(
                "no <inertia> in <inertial>", const(arm_urdf(inertia2=None)), "refuse", mode=mode
            )
        )
    axes = [
        ("0 1 0", "valid"),
        ("0 2 0", "valid"),
        ("1 1 0", "valid"),
        ("0 0 0", "refuse"),
        ("nan 0 1", "refuse"),
        ("inf 0 0", "refuse"),
        ("1e-300 0 0", "either"),
        ("1 0", "refuse"),
        ("0 0 1 0", "refuse"),
        ("1e400 0 0", "refuse"),
        ("", "either"),
        ("-0 -0 -1", "valid"),
        ("0.6 0.8 0", "valid"),
        ("1e1000000000 0 0", "refuse"),
    ]
    for mode in ("numeric", "symbolic"):
        for ax, exp in axes:
            if mode == "symbolic" and "e1000000000" in ax:
                continue
            # Pinocchio reads a tiny axis without normalising it (its norm underflows): the
            # reference is the unit axis the file means
            ref = arm_urdf(axis2="1 0 0") if ax == "1e-300 0 0" else None
            cases.append(
                _urdf_case(f"axis {ax!r}", const(arm_urdf(axis2=ax)), exp, mode=mode, reference=ref)
            )
    rpys = [
        ("0 0 1.5707963267948966", "valid"),
        ("0.123 0.456 0.789", "valid"),
        ("3.14159265359 0 0", "valid"),
        ("1e10 0 0", "valid"),
        ("nan 0 0", "refuse"),
        ("1 2", "refuse"),
        ("1e400 0 0", "refuse"),
        ("1e1000000000 0 0", "refuse"),
        ("0 0 1e-400", "either"),
    ]
    for ang, exp in rpys:
        cases.append(_urdf_case(f"rpy {ang!r}", const(arm_urdf(rpy2=ang)), exp))
    xyzs = [
        ("0.5 0 0", "valid"),
        ("1e308 0 0", "either"),
        ("1e6 0 0", "valid"),
        ("nan 0 0", "refuse"),
        ("0.5 0", "refuse"),
        ("-1e-1000000000 0 0", "either"),
    ]
    for xyz, exp in xyzs:
        cases.append(_urdf_case(f"origin xyz {xyz!r}", const(arm_urdf(xyz2=xyz)), exp))
    for t, exp in (
        ("prismatic", "valid"),
        ("continuous", "valid"),
        ("floating", "refuse"),
        ("planar", "refuse"),
        ("spherical", "refuse"),
        ("", "refuse"),
        ("Revolute", "refuse"),
    ):
        cases.append(_urdf_case(f"joint type {t!r}", const(arm_urdf(type2=t)), exp))
    cases += _urdf_structure_cases(const)
    cases += _urdf_xml_cases(const)
    cases += _urdf_source_cases()
    return cases


def _urdf_structure_cases(const: Callable[[str], Callable[[Ctx], Any]]) -> list[Case]:
    W = _link("world", None)
    base = arm_urdf()
    chain3 = base.replace("</robot>", _joint("j3", "l2", "l3") + _link("l3") + "</robot>")
    items = [
        ("duplicate link name", base.replace("</robot>", _link("l2") + "</robot>"), "refuse"),
        (
            "duplicate link name, the first the moving one",
            base.replace('<robot name="probe">\n', '<robot name="probe">\n' + _link("l1", "5")),
            "refuse",
        ),
        ("duplicate joint name", chain3.replace('name="j3"', 'name="j2"'), "refuse"),
        (
            "joint to a missing child",
            base.replace('<child link="l2"/>', '<child link="nope"/>'),
            "refuse",
        ),
        (
            "joint from a missing parent",
            base.replace('<parent link="l1"/>', '<parent link="nope"/>'),
            "refuse",
        ),
        (
            "link with two parents",
            chain3.replace("</robot>", _joint("j4", "world", "l3") + "</robot>"),
            "refuse",
        ),
        ("cycle", chain3.replace("</robot>", _joint("j4", "l3", "l1") + "</robot>"), "refuse"),
        (
            "cycle without a root",
            '<robot name="c">'
            + _link("a")
            + _link("b")
            + _joint("j1", "a", "b")
            + _joint("j2", "b", "a")
            + "</robot>",
            "refuse",
        ),
        ("self loop", base.replace("</robot>", _joint("j9", "l2", "l2") + "</robot>"), "refuse"),
        ("two roots", base.replace("</robot>", _link("island") + "</robot>"), "refuse"),
        ("joint without a name", base.replace('name="j2"', ""), "refuse"),
        ("link without a name", base.replace("</robot>", "<link/></robot>"), "refuse"),
        ("joint without parent element", base.replace('<parent link="l1"/>', ""), "refuse"),
        ("empty robot", '<robot name="e"/>', "refuse"),
        ("no joints", '<robot name="e">' + W + "</robot>", "refuse"),
        (
            "only fixed joints",
            arm_urdf(type2="fixed").replace('type="revolute"', 'type="fixed"'),
            "refuse",
        ),
        (
            "movable mimic joint",
            base.replace(
                '</joint>\n<link name="l2"', '<mimic joint="j1"/></joint>\n<link name="l2"', 1
            ),
            "refuse",
        ),
        ("root element not robot", "<notrobot/>", "refuse"),
        (
            "fixed joint chain (valid)",
            base.replace(
                "</robot>",
                _joint("f1", "l2", "l3", type="fixed", axis=None) + _link("l3", "0.5") + "</robot>",
            ),
            "valid",
        ),
        (
            "joint order in the file reversed (valid)",
            '<robot name="r">'
            + _link("l2", "1.5", "0.2 0 0.1", ("0.05", "0", "0", "0.04", "0", "0.03"))
            + _joint("j2", "l1", "l2", xyz="0.5 0 0", axis="0 1 0")
            + _link("l1")
            + _joint("j1", "world", "l1")
            + W
            + "</robot>",
            "valid",
        ),
        (
            "names with XML-escaped quotes (valid)",
            base.replace('name="l2"', 'name="l&quot;2"').replace('link="l2"', 'link="l&quot;2"'),
            "valid",
        ),
    ]
    cases = [_urdf_case(label, const(xml), exp) for label, xml, exp in items]
    cases.append(
        _urdf_case(
            "duplicate link name (symbolic)",
            const(base.replace("</robot>", _link("l2") + "</robot>")),
            "refuse",
            mode="symbolic",
        )
    )
    cases.append(
        _urdf_case(
            "link massless moved by a joint",
            const(
                arm_urdf().replace(
                    _link("l2", "1.5", "0.2 0 0.1", ("0.05", "0", "0", "0.04", "0", "0.03")),
                    _link("l2", None),
                )
            ),
            "either",
        )
    )

    def long_chain(n: int, reverse_fixed: bool = False) -> Callable[[Ctx], Any]:
        def make(ctx: Ctx) -> Any:
            parts = ['<robot name="big">', _link("world", None)]
            if reverse_fixed:  # n fixed joints listed from the tip back to the root
                parts.append(_joint("j0", "world", "f0") + _link("f0", "1"))
                body = []
                for i in range(n):
                    body.append(
                        _joint(f"fj{i:05d}", f"f{i}", f"f{i + 1}", type="fixed", axis=None)
                        + _link(
                            f"f{i + 1}", "0.001", "0 0 0", ("1e-6", "0", "0", "1e-6", "0", "1e-6")
                        )
                    )
                parts.extend(reversed(body))
            else:
                prev = "world"
                for i in range(n):
                    parts.append(_joint(f"j{i:05d}", prev, f"l{i}") + _link(f"l{i}"))
                    prev = f"l{i}"
            parts.append("</robot>")
            return "".join(parts)

        return make

    cases.append(_urdf_case("10,000 revolute joints", long_chain(10_000), "accept"))
    cases.append(
        _urdf_case(
            "10,000 fixed joints listed in reverse order",
            long_chain(10_000, reverse_fixed=True),
            "valid",
        )
    )
    cases.append(_urdf_case("300 revolute joints", long_chain(300), "accept"))
    return cases


def _urdf_xml_cases(const: Callable[[str], Callable[[Ctx], Any]]) -> list[Case]:
    base = arm_urdf()
    laughs = (
        '<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY a "1234567890">\n'
        + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(9))
        + "]>\n"
    )
    items: list[tuple[str, Callable[[Ctx], Any], str]] = [
        (
            "billion laughs entity expansion",
            const(laughs + base.replace('<robot name="probe">', '<robot name="&j;">')),
            "refuse",
        ),
        (
            "internal entity for a mass (valid XML)",
            const('<!DOCTYPE robot [<!ENTITY m "1.5">]>\n' + arm_urdf(mass2="&m;")),
            "either",
        ),
        (
            "invalid UTF-8 bytes",
            lambda ctx: base.replace("probe", "pr\udcffobe").encode("utf-8", "surrogateescape"),
            "either",
        ),
        (
            "external entity (file) for a mass",
            lambda ctx: (
                f'<!DOCTYPE robot [<!ENTITY m SYSTEM "file://{ctx.victim}/mass.txt">]>\n'
                + arm_urdf(mass2="&m;")
            ),
            "refuse",
        ),
        (
            "external DTD",
            const('<!DOCTYPE robot SYSTEM "http://127.0.0.1:9/x.dtd">\n' + base),
            "either",
        ),
        (
            "parameter entity",
            lambda ctx: (
                f'<!DOCTYPE robot [<!ENTITY % p SYSTEM "file://{ctx.victim}/mass.txt"> %p;]>\n'
                + base
            ),
            "either",
        ),
        (
            "XInclude",
            const(
                base.replace(
                    "</robot>",
                    '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd"/></robot>',
                )
            ),
            "either",
        ),
        (
            "100,000 nested elements",
            const(base.replace("</robot>", "<a>" * 100_000 + "</a>" * 100_000 + "</robot>")),
            "either",
        ),
        ("unclosed tag", const(base[:-20]), "refuse"),
        (
            "10 MB attribute",
            const(base.replace('name="probe"', 'name="' + "x" * 10_000_000 + '"')),
            "either",
        ),
        ("mass attribute of 1 MB digits", const(arm_urdf(mass2="1" * 1_000_000)), "refuse"),
        ("lone surrogate in the XML text", const(base.replace("probe", "pr\udcffobe")), "either"),
    ]

    def victim_mass(ctx: Ctx) -> None:
        (ctx.victim / "mass.txt").write_text("1.5")

    entity_ref = arm_urdf(mass2="1.5")
    return [
        _urdf_case(
            label,
            make,
            exp,
            setup=victim_mass,
            reference=entity_ref if label.startswith("internal entity") else None,
        )
        for label, make, exp in items
    ]


def _urdf_source_cases() -> list[Case]:
    base = arm_urdf()

    def in_file(name: str, data: bytes) -> Callable[[Ctx], Any]:
        def make(ctx: Ctx) -> Any:
            p = ctx.work / name
            p.write_bytes(data)
            return str(p)

        return make

    def fifo(ctx: Ctx) -> None:
        os.mkfifo(ctx.work / "robot.urdf")

    items: list[tuple[str, Callable[[Ctx], Any], str, Any]] = [
        ("bytes", lambda ctx: base.encode(), "either", None),
        ("None", lambda ctx: None, "refuse", None),
        ("int", lambda ctx: 42, "refuse", None),
        ("list", lambda ctx: [base], "refuse", None),
        ("a path (str)", in_file("r.urdf", base.encode()), "valid", None),
        ("a pathlib.Path", lambda ctx: Path(in_file("r.urdf", base.encode())(ctx)), "valid", None),
        ("a missing file", lambda ctx: str(ctx.work / "missing.urdf"), "refuse", None),
        ("a directory", lambda ctx: str(ctx.work), "refuse", None),
        ("an empty string", lambda ctx: "", "refuse", None),
        ("whitespace then XML", lambda ctx: "\n  \t" + base, "either", None),
        (
            "a UTF-8 BOM then XML (file)",
            in_file("bom.urdf", b"\xef\xbb\xbf" + base.encode()),
            "either",
            None,
        ),
        (
            "UTF-16 file",
            in_file(
                "u16.urdf", ('<?xml version="1.0" encoding="UTF-16"?>' + base).encode("utf-16")
            ),
            "either",
            None,
        ),
        (
            "latin-1 bytes in a UTF-8 file",
            in_file("l1.urdf", base.replace("probe", "pr\xe9be").encode("latin-1")),
            "either",
            None,
        ),
        ("a 5,000-character path", lambda ctx: "a" * 5000, "refuse", None),
        ("/dev/null", lambda ctx: "/dev/null", "refuse", None),
        ("a FIFO", lambda ctx: str(ctx.work / "robot.urdf"), "refuse", fifo),
        ("/dev/zero", lambda ctx: "/dev/zero", "refuse", None),
    ]
    return [
        _urdf_case(
            f"source {label}", make, exp, setup=setup, timeout=5.0 if label in ("a FIFO",) else None
        )
        for label, make, exp, setup in items
    ]


def prepare_urdf() -> None:
    import pinocchio  # noqa: F401

    import lagdyn as ld

    ld.robot.from_urdf(arm_urdf(), parameters="numeric").lambdify({})


# =========================================================================== DH and screws
def _rot(axis: str, angle: float) -> Any:
    import numpy as np

    c, s_ = math.cos(angle), math.sin(angle)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s_], [0, s_, c]])
    if axis == "y":
        return np.array([[c, 0, s_], [0, 1, 0], [-s_, 0, c]])
    return np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1]])


def _T(R: Any = None, p: Any = (0, 0, 0)) -> Any:
    import numpy as np

    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    T[:3, 3] = p
    return T


def dh_frames(
    rows: list[tuple[float, float, float, float]],
    kinds: str,
    convention: str,
    q: Any,
    thetas: list[float] | None = None,
) -> list[Any]:
    """World placements of the link frames of a DH chain (rows d, a, alpha, offset)."""
    out, T = [], _T()
    for i, (d, a, alpha, offset) in enumerate(rows):
        theta = thetas[i] if thetas else 0.0
        if kinds[i] == "R":
            theta, dd = q[i] + offset, d
        else:
            dd = q[i] + offset
        if convention == "standard":
            step = (
                _T(_rot("z", theta))
                @ _T(None, (0, 0, dd))
                @ _T(None, (a, 0, 0))
                @ _T(_rot("x", alpha))
            )
        else:
            step = (
                _T(_rot("x", alpha))
                @ _T(None, (a, 0, 0))
                @ _T(_rot("z", theta))
                @ _T(None, (0, 0, dd))
            )
        T = T @ step
        out.append(T)
    return out


def poe_frames(screws: list[list[float]], homes: list[Any], q: Any) -> list[Any]:
    import numpy as np
    from scipy.linalg import expm

    out, E = [], np.eye(4)
    for S, Mi, qi in zip(screws, homes, q):
        w, v = np.asarray(S[:3], float), np.asarray(S[3:], float)
        X = np.zeros((4, 4))
        X[:3, :3] = [[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]
        X[:3, 3] = v
        E = E @ expm(X * qi)
        out.append(E @ Mi)
    return out


def mass_matrix_oracle(
    frames_of: Callable[[Any], list[Any]], inertia: list[dict[str, Any]], q: Any, g0: float = 9.81
) -> tuple[Any, Any]:
    """M = Σ m Jvᵀ Jv + Jωᵀ R I Rᵀ Jω and g = ∂V/∂q by central differences of the frames."""
    import numpy as np

    q = np.asarray(q, float)
    n, h = q.size, 1e-6

    def parts(qq: Any) -> list[tuple[Any, Any]]:
        return [
            (F[:3, :3], F[:3, :3] @ np.asarray(sp_["com"], float) + F[:3, 3])
            for F, sp_ in zip(frames_of(qq), inertia)
        ]

    base = parts(q)
    plus, minus = [], []
    for j in range(n):
        e = np.zeros(n)
        e[j] = h
        plus.append(parts(q + e))
        minus.append(parts(q - e))
    M = np.zeros((n, n))
    g = np.zeros(n)
    for i, spec in enumerate(inertia):
        R, _ = base[i]
        Jv = np.stack([(plus[j][i][1] - minus[j][i][1]) / (2 * h) for j in range(n)], 1)
        Jw = []
        for j in range(n):
            dR = (plus[j][i][0] - minus[j][i][0]) / (2 * h)
            W = dR @ R.T
            Jw.append([W[2, 1], W[0, 2], W[1, 0]])
        Jw = np.array(Jw).T
        m = float(spec["m"])
        Ic = np.asarray(spec.get("I", np.zeros((3, 3))), float)
        if Ic.shape == (3,):
            Ic = np.diag(Ic)
        elif Ic.shape == (6,):  # Ixx Iyy Izz Ixy Iyz Ixz (Corke's order)
            xx, yy, zz, xy, yz, xz = Ic
            Ic = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        M += m * Jv.T @ Jv + Jw.T @ R @ Ic @ R.T @ Jw
        g += m * g0 * Jv[2]
    return M, g


_DH_INERTIA = [
    {
        "m": 1.2,
        "com": (-0.4, 0.05, 0.0),
        "I": ((0.02, 0.001, 0.0), (0.001, 0.03, 0.0), (0.0, 0.0, 0.04)),
    },
    {
        "m": 0.8,
        "com": (-0.3, 0.0, 0.02),
        "I": ((0.01, 0.0, 0.0), (0.0, 0.02, 0.0), (0.0, 0.0, 0.025)),
    },
    {
        "m": 0.5,
        "com": (0.0, -0.1, 0.0),
        "I": ((0.004, 0.0, 0.0), (0.0, 0.003, 0.0), (0.0, 0.0, 0.005)),
    },
]


def _compare_arm(
    arm: Any,
    frames_of: Callable[[Any], list[Any]],
    inertia: list[dict[str, Any]],
    params: dict[Any, float] | None = None,
) -> Outcome:
    import numpy as np

    q = np.linspace(0.3, -0.5, arm.n)
    values = {**dict(arm.defaults or {}), **(params or {})}
    num = arm.lambdify(values)
    M, g = np.asarray(num.M(q)), np.asarray(num.g(q))
    Mr, gr = mass_matrix_oracle(frames_of, inertia, q)
    if not close(M, Mr, rtol=1e-6, atol=1e-8):
        raise WrongResult(f"M = {np.round(M, 8).tolist()}, independent {np.round(Mr, 8).tolist()}")
    if not close(g, gr, rtol=1e-6, atol=1e-8):
        raise WrongResult(f"g = {np.round(g, 8).tolist()}, independent {np.round(gr, 8).tolist()}")
    return ok("matches the independent M and g")


def _dh_case(
    label: str,
    make: Callable[[], tuple[Any, dict[str, Any]]],
    expect: str,
    reference: tuple[list[Any], str, str] | None = None,
    inertia: list[dict[str, Any]] | None = None,
    bind: Callable[[Any], dict[Any, float]] | None = None,
    warn: str | None = None,
    mode: str = "numeric",
) -> Case:
    """``make()`` -> (table, kwargs) for from_dh; ``reference`` = (float rows, kinds,
    convention) of the same chain for the oracle."""

    def run(ctx: Ctx) -> Outcome | None:
        import lagdyn as ld

        table, kw = make()
        n = len(reference[0]) if reference else 2
        inert = inertia if inertia is not None else _DH_INERTIA[:n]
        kw = {"inertia": inert, "parameters": mode, **kw}
        arm = ld.robot.from_dh(table, **kw)
        if expect == "refuse":
            return wrong(f"accepted: M = {short(arm.M if arm.n < 3 else '(3 joints)', 150)}")
        if expect == "warn" and not ctx.warned(warn or "."):
            return wrong("accepted without a warning")
        if reference is None:
            return ok("accepted")
        rows, kinds, conv = reference
        return _compare_arm(
            arm,
            lambda qq: dh_frames(rows, kinds, conv, qq),
            [dict(x) for x in inert],
            bind(arm) if bind else None,
        )

    return Case("dh", f"DH {mode}: {label}", run)


def dh_cases() -> list[Case]:
    import numpy as np
    import sympy as sp

    cases: list[Case] = []
    half_pi = math.pi / 2
    planar = [(0.0, 1.0, 0.0, 0.0), (0.0, 0.8, 0.0, 0.0)]
    spatial = [(0.3, 0.0, half_pi, 0.0), (0.0, 0.7, 0.0, 0.2), (0.1, 0.5, -half_pi, 0.0)]

    def fixed(table: Any, **kw: Any) -> Callable[[], tuple[Any, dict[str, Any]]]:
        return lambda: (table, kw)

    valid = [
        ("planar 2R floats", [(0, 1, 0), (0, 0.8, 0)], {}, (planar, "RR", "standard")),
        (
            "spatial 3R, alpha as floats",
            [(0.3, 0, half_pi), (0, 0.7, 0, 0.2), (0.1, 0.5, -half_pi)],
            {},
            (spatial, "RRR", "standard"),
        ),
        (
            "spatial 3R, alpha as sympy pi/2",
            [
                (sp.Rational(3, 10), 0, sp.pi / 2),
                (0, sp.Rational(7, 10), 0, sp.Rational(1, 5)),
                (sp.Rational(1, 10), sp.Rational(1, 2), -sp.pi / 2),
            ],
            {},
            (spatial, "RRR", "standard"),
        ),
        (
            "spatial 3R, modified",
            [(0.3, 0, half_pi), (0, 0.7, 0, 0.2), (0.1, 0.5, -half_pi)],
            {"convention": "modified"},
            (spatial, "RRR", "modified"),
        ),
        ("numpy array table", np.array([[0, 1, 0], [0, 0.8, 0]]), {}, (planar, "RR", "standard")),
        (
            "numpy float32 entries",
            [(np.float32(0), np.float32(1), np.float32(0)), (0, np.float32(0.8), 0)],
            {},
            (planar, "RR", "standard"),
        ),
        ("string entries", [("0", "1", "0"), ("0", "0.8", "0")], {}, (planar, "RR", "standard")),
        (
            "Fraction entries",
            [
                (0, __import__("fractions").Fraction(1), 0),
                (0, __import__("fractions").Fraction(4, 5), 0),
            ],
            {},
            (planar, "RR", "standard"),
        ),
        (
            "prismatic second joint (offset 0.2)",
            [(0, 1, half_pi), (0, 0, 0, 0.2)],
            {"joints": "RP"},
            ([(0, 1, half_pi, 0), (0, 0, 0, 0.2)], "RP", "standard"),
        ),
        ("mapping rows", [{"a": 1}, {"a": 0.8}], {}, (planar, "RR", "standard")),
        ("negative zero", [(-0.0, 1, -0.0), (0, 0.8, 0)], {}, (planar, "RR", "standard")),
        (
            "generic angle 0.123",
            [(0, 1, 0.123), (0, 0.8, 0)],
            {},
            ([(0, 1, 0.123, 0), (0, 0.8, 0, 0)], "RR", "standard"),
        ),
        (
            "huge angle 1e10",
            [(0, 1, 1e10), (0, 0.8, 0)],
            {},
            ([(0, 1, 1e10, 0), (0, 0.8, 0, 0)], "RR", "standard"),
        ),
    ]
    for mode in ("numeric", "symbolic"):
        for label, table, kw, ref in valid:
            cases.append(_dh_case(label, fixed(table, **kw), "valid", ref, mode=mode))
    # a prismatic row's d: the joint variable's offset, or refused; ignoring it is wrong
    cases.append(
        _dh_case(
            "prismatic row with d = 0.2 (no offset)",
            fixed([(0, 1, 0), (0.2, 0, 0)], joints="RP"),
            "either",
            ([(0, 1, 0, 0), (0, 0, 0, 0.2)], "RP", "standard"),
        )
    )
    l = sp.Symbol("l", positive=True)
    cases.append(
        _dh_case(
            "symbolic length l bound to 0.8",
            fixed([(0, 1, 0), (0, l, 0)]),
            "valid",
            (planar, "RR", "standard"),
            bind=lambda arm: {l: 0.8},
        )
    )
    # bad entries in a (row 2) and in alpha (row 1)
    from decimal import Decimal

    bad = [
        ("nan", float("nan")),
        ("inf", float("inf")),
        ("-inf", -math.inf),
        ("complex 1+0j", 1 + 0j),
        ("1j", 1j),
        ('"1/0"', "1/0"),
        ('"nan"', "nan"),
        ('"abc"', "abc"),
        ("None", None),
        ('""', ""),
        ("[1]", [1]),
        ("sp.I", sp.I),
        ("sp.zoo", sp.zoo),
        ("sp.oo", sp.oo),
        ("sp.nan", sp.nan),
        ('"1e1000000000"', "1e1000000000"),
        ('"1e400"', "1e400"),
        ("10**400", 10**400),
        ("Decimal NaN", Decimal("NaN")),
        ("np.nan", np.nan),
        ("np.complex128(1)", np.complex128(1)),
        ("np.array([1.0])", np.array([1.0])),
        ("object()", object()),
        ("sqrt(-1)", sp.sqrt(-1)),
        ('"1_0"', "1_0"),
        ("True", True),
        ("1e-320 (subnormal)", 1e-320),
        ("sp.Float('1e-5000')", sp.Float("1e-5000")),
        ("sp.Symbol('x', complex) value", sp.Symbol("zc", complex=True)),
        ("a matrix", sp.eye(2)),
    ]
    for label, v in bad:
        exp, ref = "refuse", None
        as_number = {
            "True": 1.0,
            '"1_0"': 10.0,
            "1e-320 (subnormal)": 1e-320,
            "sp.Float('1e-5000')": 0.0,
        }
        if label in as_number:  # Python reads these as numbers: refusal, or that number
            exp = "either"
            ref = ([(0.0, 1.0, 0.0, 0.0), (0.0, as_number[label], 0.0, 0.0)], "RR", "standard")
        cases.append(_dh_case(f"a = {label}", fixed([(0, 1, 0), (0, v, 0)]), exp, ref))
        if label in ("nan", "inf", '"1/0"', '"1e1000000000"', "1j", "sp.zoo", "10**400", '"abc"'):
            cases.append(_dh_case(f"alpha = {label}", fixed([(0, 1, v), (0, 0.8, 0)]), exp))
    # geometry that depends on a coordinate or on time
    import lagdyn as ld

    q1 = ld.coordinates("q1")[0]
    deps = [
        ("q1(t)", q1),
        ("t", ld.t),
        ("sin(q1)", sp.sin(q1)),
        ("f(t)", sp.Function("f")(ld.t)),
        ("q1'(t)", sp.diff(q1, ld.t)),
        ("plain Symbol named q1", sp.Symbol("q1")),
    ]
    for label, v in deps:
        exp = "either" if label.startswith("plain") else "refuse"
        if exp == "either":  # a parameter that shares the coordinate's name: bound to 1
            cases.append(
                _dh_case(
                    f"a = {label}",
                    fixed([(0, v, 0), (0, 1, 0)]),
                    exp,
                    ([(0.0, 1.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0)], "RR", "standard"),
                    bind=lambda arm, v=v: {v: 1.0},
                )
            )
            continue
        cases.append(_dh_case(f"a = {label}", fixed([(0, v, 0), (0, 1, 0)]), exp))
        if exp == "refuse":
            cases.append(_dh_case(f"d = {label}", fixed([(v, 1, 0), (0, 1, 0)]), exp))
            cases.append(_dh_case(f"alpha = {label}", fixed([(0, 1, v), (0, 1, 0)]), exp))
    # ragged and malformed tables
    ragged = [
        ("row of 2", [(0, 1), (0, 1, 0)], {}),
        ("row of 5", [(0, 1, 0, 0, 0), (0, 1, 0)], {}),
        ("empty table", [], {}),
        ("row as a 3-character string", ["abc", (0, 1, 0)], {}),
        ("row None", [None, (0, 1, 0)], {}),
        ("unknown key", [{"a": 1, "b": 2}, {"a": 1}], {}),
        ("joints 'RX'", [(0, 1, 0), (0, 1, 0)], {"joints": "RX"}),
        ("joints 'R' for two rows", [(0, 1, 0), (0, 1, 0)], {"joints": "R"}),
        ("convention 'craig'", [(0, 1, 0), (0, 1, 0)], {"convention": "craig"}),
        ("table None", None, {}),
        ("table a string", "0 1 0", {}),
        ("numpy 2x2 table", np.zeros((2, 2)), {}),
        ("three inertia entries for two rows", [(0, 1, 0), (0, 1, 0)], {"inertia": _DH_INERTIA}),
        ("gravity of 2 entries", [(0, 1, 0), (0, 1, 0)], {"gravity": (0, -9.81)}),
        ("gravity NaN", [(0, 1, 0), (0, 1, 0)], {"gravity": (0, 0, float("nan"))}),
    ]
    for label, table, kw in ragged:
        cases.append(_dh_case(label, fixed(table, **kw), "refuse"))
    # inertia specifications
    good = _DH_INERTIA[0]
    specs = [
        ("negative mass", {**good, "m": -1.0}, "refuse"),
        ("NaN mass", {**good, "m": float("nan")}, "refuse"),
        ("complex mass", {**good, "m": 1 + 1j}, "refuse"),
        ('mass "1e1000000000"', {**good, "m": "1e1000000000"}, "refuse"),
        ("mass 1e400 (int)", {**good, "m": 10**400}, "refuse"),
        (
            "inertia not PSD",
            {**good, "I": ((0.02, 0.5, 0), (0.5, 0.03, 0), (0, 0, 0.04))},
            "refuse",
        ),
        ("inertia negative diagonal", {**good, "I": (-0.02, 0.03, 0.04)}, "refuse"),
        (
            "inertia not symmetric",
            {**good, "I": ((0.02, 0.01, 0), (0.0, 0.03, 0), (0, 0, 0.04))},
            "refuse",
        ),
        ("inertia violates the triangle inequality", {**good, "I": (0.01, 0.01, 0.05)}, "warn"),
        ("inertia NaN", {**good, "I": (0.02, float("nan"), 0.04)}, "refuse"),
        ("inertia 2x2", {**good, "I": ((1, 0), (0, 1))}, "refuse"),
        ("inertia 5 numbers", {**good, "I": (1, 1, 1, 0, 0)}, "refuse"),
        ("com NaN", {**good, "com": (float("nan"), 0, 0)}, "refuse"),
        ("com of 2", {**good, "com": (0.1, 0)}, "refuse"),
        ("negative armature", {**good, "armature": -1.0}, "refuse"),
        ("unknown key", {**good, "mass": 1.0}, "refuse"),
    ]
    for mode in ("numeric", "symbolic"):
        for label, spec, exp in specs:
            inert = [spec, _DH_INERTIA[1]]
            cases.append(
                _dh_case(
                    f"link 1 {label}",
                    fixed([(0, 1, 0), (0, 0.8, 0)]),
                    exp,
                    (planar, "RR", "standard"),
                    inertia=inert,
                    mode=mode,
                    warn="triangle|A \\+ B",
                )
            )
    cases += screw_cases()
    return cases


def _screw_case(
    label: str,
    screws: Any,
    homes: Any,
    expect: str,
    reference: tuple[list[Any], list[Any]] | None = None,
    mode: str = "numeric",
    inertia: list[dict[str, Any]] | None = None,
) -> Case:
    def run(ctx: Ctx) -> Outcome | None:
        import lagdyn as ld

        inert = inertia if inertia is not None else _DH_INERTIA[: len(screws)]
        arm = ld.robot.from_screws(screws, homes, inertia=inert, parameters=mode)
        if expect == "refuse":
            return wrong(f"accepted: M = {short(arm.M, 150)}")
        if reference is None:
            return ok("accepted")
        S, H = reference
        return _compare_arm(arm, lambda qq: poe_frames(S, H, qq), [dict(x) for x in inert])

    return Case("dh", f"screws {mode}: {label}", run)


def screw_cases() -> list[Case]:
    import numpy as np
    import sympy as sp

    import lagdyn as ld

    I3 = np.eye(3)
    S2 = [[0, 0, 1, 0, 0, 0], [0, 0, 1, 0, -1, 0]]
    H2 = [(I3, (1, 0, 0)), (I3, (2, 0, 0))]
    H2T = [_T(I3, (1, 0, 0)), _T(I3, (2, 0, 0))]
    R03 = _rot("x", 0.3)
    cases = []
    valid = [
        ("planar 2R", S2, H2),
        ("planar 2R, 4x4 homes", S2, H2T),
        ("revolute + prismatic", [[0, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0]], H2),
        ("rotated home (floats)", S2, [(R03, (1, 0, 0)), (I3, (2, 0, 0))]),
        ("spatial axes", [[0, 0, 1, 0, 0, 0], [0, 1, 0, 0, 0, 1]], H2),
    ]
    for mode in ("numeric", "symbolic"):
        for label, S, H in valid:
            HT = [h if isinstance(h, np.ndarray) else _T(h[0], h[1]) for h in H]
            cases.append(_screw_case(label, S, H, "valid", (S, HT), mode=mode))
    q1 = ld.coordinates("q1")[0]
    bad = [
        ("omega of norm 2", [[0, 0, 2, 0, 0, 0], S2[1]], H2),
        ("omega of norm 0.5", [[0, 0, 0.5, 0, 0, 0], S2[1]], H2),
        ("prismatic v of norm 2", [[0, 0, 1, 0, 0, 0], [0, 0, 0, 2, 0, 0]], H2),
        ("zero screw", [[0, 0, 0, 0, 0, 0], S2[1]], H2),
        ("pitch (omega . v != 0)", [[0, 0, 1, 0, 0, 1], S2[1]], H2),
        ("NaN entry", [[0, 0, float("nan"), 0, 0, 0], S2[1]], H2),
        ("complex entry", [[0, 0, 1j, 0, 0, 0], S2[1]], H2),
        ('"1/0" entry', [[0, 0, "1/0", 0, 0, 0], S2[1]], H2),
        ("5-vector", [[0, 0, 1, 0, 0], S2[1]], H2),
        ("coordinate in a screw", [[0, 0, 1, 0, q1, 0], S2[1]], H2),
        ("home R = 2 I", S2, [(2 * I3, (1, 0, 0)), (I3, (2, 0, 0))]),
        ("home R a reflection", S2, [(np.diag([1.0, 1.0, -1.0]), (1, 0, 0)), (I3, (2, 0, 0))]),
        (
            "home R sheared",
            S2,
            [(np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]]), (1, 0, 0)), (I3, (2, 0, 0))],
        ),
        ("home R NaN", S2, [(np.full((3, 3), np.nan), (1, 0, 0)), (I3, (2, 0, 0))]),
        ("home 3x3", S2, [I3, I3]),
        (
            "home bottom row not 0 0 0 1",
            S2,
            [np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1.0]]), H2T[1]],
        ),
        ("home p depends on t", S2, [(I3, (ld.t, 0, 0)), (I3, (2, 0, 0))]),
        ("three screws, two homes", [*S2, [0, 0, 1, 0, -2, 0]], H2),
        ("home p NaN", S2, [(I3, (float("nan"), 0, 0)), (I3, (2, 0, 0))]),
        ("home R symbolic in q1", S2, [(sp.Matrix(sp.rot_axis3(q1)), (1, 0, 0)), (I3, (2, 0, 0))]),
    ]
    for mode in ("numeric", "symbolic"):
        for label, S, H in bad:
            cases.append(_screw_case(label, S, H, "refuse", mode=mode))
    return cases


def prepare_dh() -> None:
    import scipy.linalg  # noqa: F401

    import lagdyn as ld

    ld.robot.from_dh(
        [(0, 1, 0), (0, 1, 0)], parameters="numeric", inertia=_DH_INERTIA[:2]
    ).lambdify({"g": 9.81})


# =========================================================================== parser
def _parser_symbols() -> dict[str, Any]:
    import sympy as sp

    import lagdyn as ld

    x, y = ld.coordinates("x y")
    m, k = sp.symbols("m k", positive=True)
    return {"x": x, "y": y, "m": m, "k": k}


def _same_value(got: Any, expected: Any, syms: dict[str, Any]) -> bool:
    """Equal at a random state (rates too), evaluated at 30 digits."""
    import sympy as sp

    import lagdyn as ld

    x, y, m, k = syms["x"], syms["y"], syms["m"], syms["k"]
    xd, yd = sp.diff(x, ld.t), sp.diff(y, ld.t)
    xdd, ydd = sp.diff(x, ld.t, 2), sp.diff(y, ld.t, 2)
    values = {
        xdd: sp.Rational(3, 7),
        ydd: sp.Rational(-2, 9),
        xd: sp.Rational(5, 11),
        yd: sp.Rational(-4, 13),
        x: sp.Rational(37, 100),
        y: sp.Rational(-21, 100),
        m: sp.Rational(13, 10),
        k: sp.Rational(7, 3),
    }

    def value(e: Any) -> Any:
        return sp.sympify(e).subs(values).evalf(30)

    a, b = value(got), value(expected)
    if a.free_symbols or b.free_symbols:
        return bool(sp.simplify(sp.sympify(got) - sp.sympify(expected)) == 0)
    if a == b:
        return True
    try:
        return abs(complex(a) - complex(b)) <= 1e-20 * max(1.0, abs(complex(b)))
    except (TypeError, OverflowError):
        return bool(sp.Abs(a - b) <= sp.Float("1e-20", 30) * sp.Max(1, sp.Abs(b)))


def _parse_case(label: str, text: str, expect: Any, unknown: str = "error") -> Case:
    """``expect``: "refuse", "either" (refusal, or any result), or a callable building the
    expected sympy expression from the symbols."""

    def run(ctx: Ctx) -> Outcome | None:
        from lagdyn.parse import parse_expr

        syms = _parser_symbols()
        got = parse_expr(text, syms, unknown=unknown)  # type: ignore[arg-type]
        if expect == "refuse":
            return wrong(f"accepted as {short(got, 120)}")
        if expect == "either":
            return ok(f"accepted as {short(got, 80)}")
        want = expect(syms)
        if not _same_value(got, want, syms):
            raise WrongResult(f"parsed as {short(got, 120)}, expected {short(want, 120)}")
        return ok()

    return Case("parser", f"parse_expr: {label} {rep(text, 50)}", run)


def _cli_parse_case(label: str, argv: list[str], expect: str) -> Case:
    """A ``lagdyn derive --json`` run: "valid" (exit 0 with M), "refuse" or "either"."""

    def run(ctx: Ctx) -> Outcome | None:
        got = run_cli(["derive", *argv, "--json", "--no-proofs", "--no-progress"], ctx)
        if isinstance(got, Outcome):
            return got
        rc, out, _ = got
        if expect == "refuse":
            return wrong(f"accepted (exit {rc}): {short(out, 100)}")
        if expect == "valid":
            data = json.loads(out[out.index("{") :])
            if "M" not in data:
                raise WrongResult(f"no M in {short(out, 100)}")
        return ok()

    return Case("parser", f"lagdyn derive: {label} {rep(' '.join(argv), 60)}", run)


def parser_cases() -> list[Case]:
    import sympy as sp

    import lagdyn as ld

    def D(s: str) -> Callable[[dict[str, Any]], Any]:  # expected expression from symbols
        return lambda S: eval(
            s, {"sp": sp, "ld": ld, "d": lambda e: sp.diff(e, ld.t), **{k: v for k, v in S.items()}}
        )

    valid = [
        ("Lagrangian", "m*dot(x)**2/2 - k*x**2/2", D("m*d(x)**2/2 - k*x**2/2")),
        (
            "functions",
            "sin(x) + cos(y) + tan(x) + exp(-y) + log(2+x) + sqrt(1+y**2)",
            D("sp.sin(x)+sp.cos(y)+sp.tan(x)+sp.exp(-y)+sp.log(2+x)+sp.sqrt(1+y**2)"),
        ),
        ("decimal is exact", "0.1*x", D("sp.Rational(1,10)*x")),
        ("exponent notation", "1e3*x", D("1000*x")),
        ("pi", "pi*x", D("sp.pi*x")),
        ("negative power", "x**-2", D("x**-2")),
        ("half power", "x**0.5", D("sp.sqrt(x)")),
        ("rational power", "x**(1/3)", D("x**sp.Rational(1,3)")),
        ("power at the cap", "x**1000", D("x**1000")),
        ("2**2**2**2", "2**2**2**2", D("2**16")),
        ("ddot", "ddot(x)", D("d(d(x))")),
        ("unary plus/minus", "-+-x", D("x")),
        ("Abs", "Abs(x) + abs(y)", D("sp.Abs(x)+sp.Abs(y)")),
        ("atan2", "atan2(y, x)", D("sp.atan2(y, x)")),
        ("full-width x (NFKC)", "\uff58**2", D("x**2")),
        ("spaces and newline inside parentheses", "(x +\n y)", D("x+y")),
        ("1e-400 underflows", "1e-400*x", "either"),
        ("a 4,000-digit integer", "1" * 4000 + "*x", "either"),
        ("10**400 (exact, not a literal)", "10**400*x", D("10**400*x")),
        ("200 nested parentheses", "(" * 200 + "x" + ")" * 200, D("x")),
        ("hex literal", "0x10*x", D("16*x")),
        ("underscore literal", "1_000*x", D("1000*x")),
        ("octal literal", "0o7*x", D("7*x")),
        ("tab before", "\tx", D("x")),
        ("backslash continuation", "x + \\\n 1", D("x + 1")),
    ]
    cases = [_parse_case(label, text, exp) for label, text, exp in valid]
    refuse = [
        ("x**1001 (over the cap)", "x**1001"),
        ("x**10**10", "x**10**10"),
        ("9**9**9", "9**9**9"),
        ("2**2**2**2**2**2", "2**2**2**2**2**2"),
        ("x**-10**10", "x**-10**10"),
        ("((1+x)**1000)**1000", "((1+x)**1000)**1000"),
        ("(((x+1)**100)**100)**100", "(((x+1)**100)**100)**100"),
        ("(sin x + cos x + sin y + cos y)**300", "(sin(x)+cos(x)+sin(y)+cos(y))**300"),
        ("(x+y+m+k)**900", "(x+y+m+k)**900"),
        ("1e1000000000", "1e1000000000*x"),
        ("1e309", "1e309*x"),
        ("5,000-digit literal", "1" * 5000 + "*x"),
        ("10,000 nested parentheses", "(" * 10000 + "x" + ")" * 10000),
        ("100,000 unary minus", "-" * 100000 + "x"),
        ("10,000 unary minus", "-" * 10000 + "x"),
        ("sin nested 5,000 deep", "sin(" * 5000 + "x" + ")" * 5000),
        ("20,001 characters", "x" + "+x" * 10000),
        ("1 MB", "x+" * 500000 + "x"),
        ("__import__ call", f"__import__('os').system('touch {CANARY}')"),
        ("attribute", "x.__class__"),
        ("dunder chain", "(1).__class__.__bases__[0].__subclasses__()"),
        ("function attribute", "sin.__globals__"),
        ("lambda", "(lambda: 0)()"),
        ("comprehension", "[c for c in ()]"),
        ("exec", "exec('1')"),
        ("eval", "eval('x')"),
        ("open", f"open('{CANARY}', 'w')"),
        ("getattr", "getattr(x, 'func')"),
        ("f-string", "f'{x}'"),
        ("conditional", "x if y else m"),
        ("walrus", "(a := 1)"),
        ("Symbol", "Symbol('x')"),
        ("sympify", "sympify('x')"),
        ("S", "S('x')"),
        ("string", "'abc'"),
        ("bytes", "b'abc'"),
        ("Ellipsis", "..."),
        ("subscript", "x[0]"),
        ("matmul", "x@y"),
        ("floor division", "x//y"),
        ("modulo", "x%y"),
        ("invert", "~x"),
        ("shift", "x<<3"),
        ("not", "not x"),
        ("and", "x and y"),
        ("comparison", "x<y"),
        ("equality", "x==y"),
        ("caret", "x^2"),
        ("Piecewise", "Piecewise((1, x > 0))"),
        ("1/0", "1/0"),
        ("0/0", "0/0"),
        ("x/0", "x/0"),
        ("oo", "oo"),
        ("nan", "nan"),
        ("zoo", "zoo"),
        ("I", "I*x"),
        ("E (refused by design)", "E*x"),
        ("dot of a constant", "dot(1)"),
        ("dot without argument", "dot()"),
        ("sin of two arguments", "sin(x, y)"),
        ("sin()", "sin()"),
        ("keyword argument", "sin(x=1)"),
        ("star argument", "sin(*[x])"),
        ("two statements", "x; y"),
        ("newline between statements", "x\ny"),
        ("assignment", "x = 1"),
        ("import", "import os"),
        ("comment only", "# comment"),
        ("empty", ""),
        ("blank", "   "),
        ("time t in L", "t*x"),
        ("Derivative", "Derivative(x, t)"),
        ("Function", "Function('f')(t)"),
        ("integrate", "integrate(x)"),
        ("factorial", "factorial(10**10)"),
        ("gamma", "gamma(x)"),
        ("complex literal", "1j*x"),
        ("True", "True*x"),
        ("None", "None"),
        ("x.real", "x.real"),
        ("NUL", "x\x00+1"),
        ("U+2028", "x\u2028+1"),
        ("U+2029", "x +\u2029 1"),
        ("BOM", "\ufeffx"),
        ("zero-width space", "x\u200b+1"),
        ("Cyrillic х", "\u0445**2"),
        ("Greek theta (unknown name)", "\u03b8*x"),
        ("combining dot", "x\u0307"),
        ("dotted x (U+1E8B)", "\u1e8b**2"),
        ("unknown name", "zz*x"),
        ("qd spelling", "xd**2"),
        ("yield", "(yield)"),
        ("await", "await x"),
        ("starred", "*x"),
        ("dict", "{x: 1}"),
        ("set", "{x}"),
        ("tuple", "(x, y)"),
        ("list", "[x]"),
        ("slice", "x[1:2]"),
        ("global name sin shadowed", "sin"),
        ("call of a name", "x(1)"),
        ("call of a call", "sin(x)(y)"),
    ]
    cases += [_parse_case(label, text, "refuse") for label, text in refuse]
    # new names (unknown="symbol") that look like the known ones
    for label, text in (
        ("Cyrillic а next to a", "a*\u0430"),
        ("Latin a next to Greek alpha", "\u03b1*a"),
        ("full-width ｍ for m (NFKC)", "\uff4d*x"),
    ):
        exp = "either" if ("NFKC" in label or "alpha" in label) else "refuse"
        cases.append(_parse_case(label, text, exp, unknown="symbol"))
    # through the command line
    L = "m*dot(x)**2/2 - k*x**2/2"
    cli = [
        ("valid", ["--lagrangian", L, "--coordinates", "x", "--parameters", "m k"], "valid"),
        ("valid, parameters implied", ["--lagrangian", L, "--coordinates", "x"], "valid"),
        (
            "((1+dot(x))**1000)**1000",
            ["--lagrangian", "((1+dot(x))**1000)**1000", "--coordinates", "x"],
            "refuse",
        ),
        (
            "(sin+cos)**300",
            [
                "--lagrangian",
                "dot(x)**2*(sin(x)+cos(x)+sin(y)+cos(y))**300 + dot(y)**2",
                "--coordinates",
                "x y",
            ],
            "refuse",
        ),
        (
            "(1+x)**1000 * dot(x)**2",
            ["--lagrangian", "(1+x)**1000*dot(x)**2", "--coordinates", "x"],
            "either",
        ),
        ("x**10**10", ["--lagrangian", "dot(x)**2 + x**10**10", "--coordinates", "x"], "refuse"),
        (
            "__import__",
            ["--lagrangian", f"__import__('os').system('touch {CANARY}')", "--coordinates", "x"],
            "refuse",
        ),
        (
            "--coordinates x:100000000",
            ["--lagrangian", "dot(x0)**2", "--coordinates", "x:100000000"],
            "refuse",
        ),
        ("--coordinates x:201", ["--lagrangian", "dot(x0)**2", "--coordinates", "x:201"], "refuse"),
        ("--coordinates x:0", ["--lagrangian", "dot(x)**2", "--coordinates", "x:0"], "refuse"),
        (
            "--coordinates with a dunder",
            ["--lagrangian", "dot(x)**2", "--coordinates", "__class__"],
            "either",
        ),
        (
            "--coordinates duplicate",
            ["--lagrangian", "dot(x)**2", "--coordinates", "x x"],
            "refuse",
        ),
        (
            "--coordinates _ldq0",
            ["--lagrangian", "dot(_ldq0)**2", "--coordinates", "_ldq0"],
            "refuse",
        ),
        (
            "--parameters clash",
            ["--lagrangian", L, "--coordinates", "x", "--parameters", "m k x"],
            "refuse",
        ),
        (
            "--parameters _ldq0",
            ["--lagrangian", "_ldq0*dot(x)**2", "--coordinates", "x", "--parameters", "_ldq0"],
            "refuse",
        ),
        ("--forces count", ["--lagrangian", L, "--coordinates", "x", "--forces", "1;2"], "refuse"),
        (
            "--forces dunder",
            ["--lagrangian", L, "--coordinates", "x", "--forces", "x.__class__"],
            "refuse",
        ),
        (
            "--forces time-dependent",
            ["--lagrangian", L, "--coordinates", "x", "--forces", "sin(t)"],
            "valid",
        ),
        ("L time-dependent", ["--lagrangian", "dot(x)**2/2 - t*x", "--coordinates", "x"], "refuse"),
        ("not quadratic", ["--lagrangian", "dot(x)**4", "--coordinates", "x"], "refuse"),
        ("ddot in L", ["--lagrangian", "dot(x)**2 + ddot(x)", "--coordinates", "x"], "refuse"),
        (
            "1 MB Lagrangian",
            ["--lagrangian", "dot(x)**2+" + "x+" * 300000 + "x", "--coordinates", "x"],
            "refuse",
        ),
        ("singular", ["--lagrangian", "dot(x)**2 + y", "--coordinates", "x y"], "refuse"),
    ]
    cases += [_cli_parse_case(label, argv, exp) for label, argv, exp in cli]
    return cases


def prepare_parser() -> None:
    from lagdyn.parse import parse_expr

    parse_expr("sin(x)", _parser_symbols())


# =========================================================================== numerics
def prepare_numerics() -> None:
    if "num_numpy" in SHARED:
        return
    system, _x, _y, m, k = oracle_model()
    SHARED["num_k"] = k
    SHARED["num_numpy"] = system.lambdify({m: MV, k: KV})
    SHARED["num_numpy_free"] = system.lambdify({m: MV})
    SHARED["num_c"] = system.lambdify({m: MV, k: KV}, backend="c")
    SHARED["num_c_free"] = system.lambdify({m: MV}, backend="c")


def _expected(fn: str, q: Any, qd: Any = None, k: Any = KV) -> Any:
    import numpy as np

    q = np.asarray(q)
    if fn == "M":
        return hand_M(q[..., 0], k=k)
    qd = np.asarray(qd)
    if fn == "fd":
        return hand_fd(q[..., 0], q[..., 1], qd[..., 0], qd[..., 1], k=k)
    return hand_energy(q[..., 0], q[..., 1], qd[..., 0], qd[..., 1], k=k)


def _numeric_case(
    label: str,
    backend: str,
    call: Callable[[Any], Any],
    expected: Callable[[], Any] | None,
    expect: str,
) -> Case:
    """``expect``: "valid" (equal to ``expected()``), "refuse", "ieee" (refused, or equal
    to the hand value with NaN/inf where IEEE puts them), "complex" (refused, or equal to
    the complex hand value; a real result drops the imaginary part silently)."""

    def run(ctx: Ctx) -> Outcome | None:
        import numpy as np

        got = call(SHARED)
        if expect == "refuse":
            return wrong(f"accepted: {short(np.asarray(got).tolist(), 120)}")
        want = expected() if expected is not None else None
        if want is None:
            return ok("accepted")
        g = np.asarray(got)
        if g.dtype == object:
            raise WrongResult(f"returned an object array {short(g.tolist(), 100)}")
        if not close(g, want, rtol=1e-6 if expect != "valid32" else 1e-3):
            raise WrongResult(
                f"returned {short(g.tolist(), 120)}, expected {short(np.asarray(want).tolist(), 120)}"
            )
        return ok()

    return Case("numerics", f"{backend}: {label}", run)


def numerics_cases() -> list[Case]:
    import fractions
    from decimal import Decimal

    import numpy as np
    import sympy as sp

    cases: list[Case] = []
    q0 = list(Q0)
    qd0 = list(QD0)
    strided = np.arange(8.0).reshape(2, 4)[:, ::2] / 10
    fortran = np.asfortranarray(np.linspace(-1, 1, 10).reshape(5, 2))
    big_endian = np.array(q0, dtype=">f8")
    readonly = np.array(q0)
    readonly.flags.writeable = False
    rng = np.random.default_rng(7)
    batch = rng.normal(size=(5, 2))
    batch3 = rng.normal(size=(3, 4, 2))
    qs: list[tuple[str, Any, str, Any]] = [
        # label, q, expectation, the q the hand oracle evaluates (None: q itself)
        ("list", q0, "valid", None),
        ("tuple", tuple(q0), "valid", None),
        ("float32 array", np.array(q0, dtype=np.float32), "valid32", None),
        ("float16 array", np.array(q0, dtype=np.float16), "valid32", None),
        ("int list", [1, 0], "valid", [1.0, 0.0]),
        ("int64 2**60", [2**60, 0], "ieee", [float(2**60), 0.0]),
        ("bool array", np.array([True, False]), "ieee", [1.0, 0.0]),
        ("batch (5, 2)", batch, "valid", None),
        ("batch (3, 4, 2)", batch3, "valid", None),
        ("empty batch (0, 2)", np.zeros((0, 2)), "valid", None),
        ("non-contiguous (2, 2)", strided, "valid", None),
        ("Fortran order (5, 2)", fortran, "valid", None),
        ("negative strides", np.array(q0)[::-1], "valid", None),
        ("big-endian float64", big_endian, "valid", np.array(q0)),
        ("read-only array", readonly, "valid", None),
        ("np.matrix (1, 2)", np.matrix(q0), "ieee", np.array([q0])),
        ("[10**400, 0]", [10**400, 0], "ieee", [math.inf, 0.0]),
        ("[1e308, 0]", [1e308, 0.0], "ieee", None),
        ("[nan, 0]", [math.nan, 0.0], "ieee", None),
        ("[inf, 0]", [math.inf, 0.0], "ieee", None),
        ("complex [0.3+0.1j, -0.2]", [0.3 + 0.1j, -0.2], "complex", None),
        ("complex [1+0j, 0]", [1 + 0j, 0], "complex", None),
        ("ragged [[0.1, 0.2], [0.3]]", [[0.1, 0.2], [0.3]], "refuse", None),
        ("shape (3,)", [0.1, 0.2, 0.3], "refuse", None),
        ("shape (2, 3)", np.zeros((2, 3)), "refuse", None),
        ("scalar", 0.3, "refuse", None),
        ("empty list", [], "refuse", None),
        ("None", None, "refuse", None),
        ("a string", "0.3", "refuse", None),
        ("strings ['0.3', '-0.2']", ["0.3", "-0.2"], "ieee", q0),
        ("object array of floats", np.array(q0, dtype=object), "ieee", q0),
        (
            "object array of sympy Floats",
            np.array([sp.Float(0.3), sp.Float(-0.2)], dtype=object),
            "ieee",
            q0,
        ),
        ("sympy numbers [pi/10, 0]", [sp.pi / 10, 0], "ieee", [math.pi / 10, 0.0]),
        ("Decimals", [Decimal("0.3"), Decimal("-0.2")], "ieee", q0),
        ("Fractions", [fractions.Fraction(3, 10), fractions.Fraction(-1, 5)], "ieee", q0),
        ("a dict", {"x": 0.3, "yy_": -0.2}, "refuse", None),
        (
            "datetime64 array",
            np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"),
            "refuse",
            None,
        ),
        ("a set", {0.3, -0.2}, "refuse", None),
        (
            "nested object array",
            np.array([np.array([0.3]), np.array([-0.2])], dtype=object),
            "refuse",
            None,
        ),
    ]
    for backend in ("numpy", "c"):
        key = f"num_{backend}"
        for label, q, exp, q_hand in qs:

            def call(S: dict[str, Any], q: Any = q, key: str = key) -> Any:
                return S[key].M(q)

            def want(q: Any = q, q_hand: Any = q_hand, exp: str = exp) -> Any:
                base = np.asarray(
                    q if q_hand is None else q_hand, dtype=complex if exp == "complex" else float
                )
                return _expected("M", base)

            cases.append(
                _numeric_case(
                    f"M(q), q = {label}", backend, call, None if exp == "refuse" else want, exp
                )
            )
        fds: list[tuple[str, Any, Any, Any, str]] = [
            ("valid", q0, qd0, None, "valid"),
            ("tau zeros (2,)", q0, qd0, [0.0, 0.0], "valid"),
            ("tau (3,)", q0, qd0, [0.0, 0.0, 0.0], "refuse"),
            ("tau complex", q0, qd0, [1j, 0], "complex"),
            ("tau NaN", q0, qd0, [math.nan, 0.0], "ieee"),
            ("qd (3,)", q0, [0.1, 0.2, 0.3], None, "refuse"),
            ("q batch (5, 2), qd batch (3, 2)", batch, batch[:3], None, "refuse"),
            ("q batch (5, 2), qd (2,) broadcast", batch, qd0, None, "ieee"),
            ("qd complex", q0, [0.5j, 0.7], None, "complex"),
            ("qd 10**400", q0, [10**400, 0], None, "ieee"),
            ("qd None (read as rest)", q0, None, None, "ieee"),
        ]
        for label, q, qd, tau, exp in fds:

            def call(
                S: dict[str, Any], q: Any = q, qd: Any = qd, tau: Any = tau, key: str = key
            ) -> Any:
                return S[key].forward_dynamics(q, qd, tau)

            def want(q: Any = q, qd: Any = qd, tau: Any = tau, exp: str = exp) -> Any:
                dt = complex if exp == "complex" else float
                vv = np.zeros(2) if qd is None else qd
                qq, vv = np.asarray(q, dtype=dt), np.asarray(vv, dtype=dt)
                qq, vv = np.broadcast_arrays(qq, vv)
                base = _expected("fd", qq, vv)
                if tau is not None:  # M is diagonal: entry by entry, so NaN stays put
                    M = _expected("M", qq).astype(dt)
                    diag = np.stack([M[..., 0, 0], M[..., 1, 1]], -1)
                    base = base + np.asarray(tau, dtype=dt) / diag
                return base

            cases.append(
                _numeric_case(
                    f"forward_dynamics, {label}",
                    backend,
                    call,
                    None if exp == "refuse" else want,
                    exp,
                )
            )
        for label, t_value, exp in (
            ("t nan", math.nan, "ieee"),
            ("t complex", 1j, "ieee"),
            ("t a string", "0", "refuse"),
            ("t an array (2,)", [0.0, 1.0], "ieee"),
        ):

            def call(S: dict[str, Any], t_value: Any = t_value, key: str = key) -> Any:
                return S[key].forward_dynamics(q0, qd0, t=t_value)

            cases.append(
                _numeric_case(
                    f"forward_dynamics, {label}",
                    backend,
                    call,
                    None if exp == "refuse" else (lambda: None),
                    exp,
                )
            )
        free = f"num_{backend}_free"
        ps: list[tuple[str, Callable[[dict[str, Any]], Any], str, Any]] = [
            ("params {k: 3}", lambda S: {S["num_k"]: KV}, "valid", KV),
            ("params [3.0]", lambda S: [KV], "valid", KV),
            ("params {'k': 3} by name", lambda S: {"k": KV}, "valid", KV),
            ("params {k: -1} (k positive)", lambda S: {S["num_k"]: -1.0}, "refuse", None),
            ("params {k: 0} (k positive)", lambda S: {S["num_k"]: 0.0}, "refuse", None),
            ("params {k: nan}", lambda S: {S["num_k"]: math.nan}, "ieee", math.nan),
            ("params {k: inf}", lambda S: {S["num_k"]: math.inf}, "ieee", math.inf),
            ("params {k: 1j}", lambda S: {S["num_k"]: 1j}, "refuse", None),
            ("params {k: '3'}", lambda S: {S["num_k"]: "3"}, "refuse", None),
            ("params {k: 10**400}", lambda S: {S["num_k"]: 10**400}, "ieee", math.inf),
            ("params {'K': 3} (wrong case)", lambda S: {"K": KV}, "refuse", None),
            ("params [3.0, 4.0] (too many)", lambda S: [KV, 4.0], "refuse", None),
            ("params None (k unbound)", lambda S: None, "refuse", None),
            ("params batch [[3], [4]] with q batch (2, 2)", lambda S: [[KV], [4.0]], "batch", None),
        ]
        for label, make, exp, kval in ps:
            for fn in ("M", "energy"):

                def call(
                    S: dict[str, Any],
                    make: Any = make,
                    fn: str = fn,
                    free: str = free,
                    exp: str = exp,
                ) -> Any:
                    q = np.array([q0, [0.1, 0.4]]) if exp == "batch" else q0
                    qd = np.array([qd0, qd0]) if exp == "batch" else qd0
                    f = getattr(S[free], fn)
                    return f(q, params=make(S)) if fn == "M" else f(q, qd, params=make(S))

                def want(fn: str = fn, kval: Any = kval, exp: str = exp) -> Any:
                    if exp == "batch":
                        q = np.array([q0, [0.1, 0.4]])
                        kk = np.array([KV, 4.0])
                        if fn == "M":
                            return np.stack([hand_M(q[i, 0], k=kk[i]) for i in range(2)])
                        return np.array(
                            [hand_energy(q[i, 0], q[i, 1], *QD0, k=kk[i]) for i in range(2)]
                        )
                    if fn == "M":
                        return hand_M(Q0[0], k=kval)
                    return hand_energy(*Q0, *QD0, k=kval)

                cases.append(
                    _numeric_case(
                        f"{fn}, {label}",
                        backend,
                        call,
                        None if exp == "refuse" else want,
                        "valid" if exp == "batch" else exp,
                    )
                )
    return cases


# =========================================================================== simulation
OMEGA = 2.0  # the oscillator m x''= -k x with m = 2, k = 8


def prepare_simulation() -> None:
    if "osc" in SHARED:
        return
    import sympy as sp

    import lagdyn as ld
    import lagdyn.simulation

    (x,) = ld.coordinates(["x"])
    m, k = ld.parameters("m k")
    xd = sp.diff(x, ld.t)
    osc = ld.LagrangianSystem(m * xd**2 / 2 - k * x**2 / 2, [x], defaults={m: 2.0, k: 8.0})
    SHARED["osc"] = osc
    SHARED["osc_num"] = osc.lambdify({m: 2.0, k: 8.0})
    # a pendulum in Cartesian coordinates held on the unit circle
    X, Y = ld.coordinates("X Y")
    Xd, Yd = sp.diff(X, ld.t), sp.diff(Y, ld.t)
    (g,) = ld.parameters("g")
    cart = ld.LagrangianSystem((Xd**2 + Yd**2) / 2 - g * Y, [X, Y])
    SHARED["pend"] = ld.ConstrainedSystem(cart, [X**2 + Y**2 - 1]).lambdify({g: 9.81})
    ld.simulate(SHARED["osc_num"], [1.0, 0.0], 0.05)


def exact_oscillator(x0: Any, t: Any) -> Any:
    import numpy as np

    x0 = np.asarray(x0, float)
    t = np.asarray(t, float)
    q0, v0 = x0[..., 0:1], x0[..., 1:2]
    q = q0 * np.cos(OMEGA * t) + v0 / OMEGA * np.sin(OMEGA * t)
    v = -q0 * OMEGA * np.sin(OMEGA * t) + v0 * np.cos(OMEGA * t)
    return q, v


class UserCallbackError(Exception):
    """What the probe's own tau callback raises."""


def _raising_tau(t: Any, q: Any, qd: Any) -> Any:
    raise UserCallbackError("the user's tau failed")


def _sim_case(
    label: str,
    kwargs: Callable[[dict[str, Any]], dict[str, Any]],
    expect: str,
    tol: float = 1e-6,
    model: str = "osc_num",
    timeout: float | None = None,
) -> Case:
    """``expect``: "valid" (the trajectory within ``tol`` of the closed form, or a warning
    that says it is not), "refuse", "either" (refused, or valid as above)."""

    def run(ctx: Ctx) -> Outcome | None:
        import numpy as np

        import lagdyn as ld

        kw = kwargs(SHARED)
        try:
            res = ld.simulate(SHARED[model], **kw)
        except UserCallbackError as exc:  # the user's own exception, passed through: fine
            return named(f"the callback's own error passed through: {exc}")
        if expect == "refuse":
            return wrong(f"accepted ({res.x.shape[-2] if res.x.ndim > 1 else '?'} points)")
        if model != "osc_num":
            return ok()
        t = np.asarray(res.t) if hasattr(res, "t") else None
        x = np.asarray(res.x)
        if t is None or x.size == 0:
            return ok("accepted")
        q_ref, v_ref = exact_oscillator(np.asarray(kw["x0"], float), t)
        q, v = x[..., 0], x[..., 1]
        err = float(np.nanmax(np.abs(np.concatenate([np.ravel(q - q_ref), np.ravel(v - v_ref)]))))
        finite = bool(np.all(np.isfinite(x)))
        if finite and err <= tol * max(1.0, float(np.abs(x).max(initial=1.0))):
            return ok(f"error {err:.1e}")
        if ctx.warned("energy|drift|unstable|step|blow|diverg|accura"):
            return ok(f"error {err:.1e}, warned")
        return wrong(f"off the closed form by {err:.3g} (finite: {finite}) without a warning")

    return Case("simulation", label, run, timeout=timeout)


def simulation_cases() -> list[Case]:
    import numpy as np

    def kw(**k: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
        base = {"x0": [1.0, 0.0], "t": np.linspace(0.0, 1.0, 101)}
        return lambda S: {**base, **k}

    items: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]], str, float]] = [
        ("rk4, valid", kw(), "valid", 1e-7),
        ("midpoint, valid", kw(method="midpoint"), "valid", 1e-3),
        ("scipy-DOP853, valid", kw(method="scipy-DOP853"), "valid", 1e-6),
        ("scipy-RK45, valid", kw(method="scipy-RK45"), "valid", 1e-6),
        ("scalar t = 5", kw(t=5.0), "valid", 1e-6),
        (
            "batch x0 (4, 2)",
            kw(x0=np.array([[1, 0], [0, 1], [0.5, 0.5], [-1, 2.0]])),
            "valid",
            1e-6,
        ),
        ("t = 1000 (1e5 steps)", kw(t=1000.0), "valid", 1e-3),
        ("t = 1e12", kw(t=1e12), "refuse", 0),
        ("t = 1e7 (1e9 points)", kw(t=1e7), "refuse", 0),
        ("t = inf", kw(t=math.inf), "refuse", 0),
        ("t = nan", kw(t=math.nan), "refuse", 0),
        ("t = -1", kw(t=-1.0), "refuse", 0),
        ("t = 0", kw(t=0.0), "refuse", 0),
        ("t non-monotone", kw(t=[0.0, 1.0, 0.5]), "refuse", 0),
        ("t empty", kw(t=[]), "refuse", 0),
        ("t one point", kw(t=[0.0]), "either", 1e-9),
        ("t 2-D", kw(t=np.zeros((2, 2))), "refuse", 0),
        ("t complex", kw(t=np.array([0, 1j])), "refuse", 0),
        ("t with NaN", kw(t=[0.0, math.nan, 1.0]), "refuse", 0),
        ("t a string", kw(t="10"), "refuse", 0),
        ("dt = 0", kw(t=1.0, dt=0.0), "refuse", 0),
        ("dt = -0.01", kw(t=1.0, dt=-0.01), "refuse", 0),
        ("dt = nan", kw(t=1.0, dt=math.nan), "refuse", 0),
        ("dt = inf", kw(t=1.0, dt=math.inf), "refuse", 0),
        ("dt = 1e6 (t = 1e7): RK4 blows up", kw(t=1e7, dt=1e6), "valid", 1e-6),
        ("one RK4 step of 1e6 s", kw(t=[0.0, 1e6]), "valid", 1e-6),
        ("RK4 with omega dt = 20", kw(t=np.linspace(0, 100, 11)), "valid", 1e-6),
        (
            "midpoint with omega dt = 20",
            kw(t=np.linspace(0, 100, 11), method="midpoint"),
            "valid",
            1e-6,
        ),
        ("substeps = 0", kw(substeps=0), "refuse", 0),
        ("substeps = -1", kw(substeps=-1), "refuse", 0),
        ("substeps = 1.5", kw(substeps=1.5), "refuse", 0),
        ("substeps = 10**12", kw(substeps=10**12), "refuse", 0),
        ("x0 NaN", kw(x0=[math.nan, 0.0]), "refuse", 0),
        ("x0 inf", kw(x0=[math.inf, 0.0]), "refuse", 0),
        ("x0 complex", kw(x0=[1 + 1j, 0.0]), "refuse", 0),
        ("x0 (3,)", kw(x0=[1.0, 0.0, 0.0]), "refuse", 0),
        ("x0 a string", kw(x0="1,0"), "refuse", 0),
        ("x0 None", kw(x0=None), "refuse", 0),
        ("x0 10**400", kw(x0=[10**400, 0]), "refuse", 0),
        ("x0 1e200 (energy overflows)", kw(x0=[1e200, 0.0]), "either", 1e-6),
        ("method 'euler'", kw(method="euler"), "refuse", 0),
        ("method 'scipy-nope'", kw(method="scipy-nope"), "refuse", 0),
        ("method None", kw(method=None), "refuse", 0),
        ("midpoint tol = 0", kw(method="midpoint", tol=0.0), "either", 1e-3),
        ("midpoint tol = -1", kw(method="midpoint", tol=-1.0), "refuse", 0),
        ("midpoint tol = nan", kw(method="midpoint", tol=math.nan), "refuse", 0),
        ("midpoint max_iter = 0", kw(method="midpoint", max_iter=0), "refuse", 0),
        ("scipy rtol = -1", kw(method="scipy-RK45", rtol=-1.0), "refuse", 0),
        ("scipy rtol = 0", kw(method="scipy-RK45", rtol=0.0), "either", 1e-6),
        ("tau (3,)", kw(tau=[0.0, 0.0, 0.0]), "refuse", 0),
        ("tau complex", kw(tau=[1j]), "refuse", 0),
        ("tau callable raising its own error", kw(tau=_raising_tau), "own error", 0),
        ("tau callable of the wrong shape", kw(tau=lambda t, q, qd: np.zeros(3)), "refuse", 0),
        (
            "tau callable returning NaN",
            kw(tau=lambda t, q, qd: np.full(q.shape, np.nan)),
            "either",
            1e-6,
        ),
        ("params with a numeric model", kw(params={"k": 1.0}), "refuse", 0),
        ("progress='yes'", kw(progress="yes"), "either", 1e-7),
    ]
    cases = [_sim_case(label, k, exp, tol) for label, k, exp, tol in items]
    cases.append(
        _sim_case(
            "system with params {k: -1}",
            lambda S: {"x0": [1.0, 0.0], "t": 1.0, "params": {"k": -1.0}},
            "refuse",
            model="osc",
        )
    )
    cases.append(
        _sim_case(
            "system with params {k: nan}",
            lambda S: {"x0": [1.0, 0.0], "t": 1.0, "params": {"k": math.nan}},
            "refuse",
            model="osc",
        )
    )
    cases += [
        _constrained_case(*c)
        for c in (
            ("constrained, start on the circle", [0.6, -0.8, 0.0, 0.0], {}, "valid"),
            ("constrained, start off the circle", [1.5, 0.0, 0.0, 0.0], {}, "refuse"),
            ("constrained, radial velocity", [0.6, -0.8, 0.6, -0.8], {}, "refuse"),
            ("constrained, start at the origin", [0.0, 0.0, 0.0, 0.0], {}, "refuse"),
            ("constrained, NaN start", [math.nan, -1.0, 0.0, 0.0], {}, "refuse"),
            (
                "constrained, dt = 1e3 blow-up",
                [0.6, -0.8, 0.0, 0.0],
                {"t": [0.0, 1e3, 2e3]},
                "valid",
            ),
        )
    ]
    cases += _cli_sim_cases()
    return cases


def _constrained_case(label: str, x0: list[float], extra: dict[str, Any], expect: str) -> Case:
    def run(ctx: Ctx) -> Outcome | None:
        import numpy as np

        t = extra.get("t", np.linspace(0, 1.0, 101))
        res = SHARED["pend"].simulate(x0, t)
        if expect == "refuse":
            if ctx.warned("constraint|phi|off"):
                return ok("warned")
            return wrong("a start off the constraint accepted without a word")
        x = np.asarray(res.x)
        q = x[..., :2]
        r = np.abs(np.hypot(q[..., 0], q[..., 1]) - 1)
        if np.all(np.isfinite(x)) and float(r.max()) < 1e-3:
            return ok(f"|phi| <= {float(r.max()):.1e}")
        if ctx.warned("energy|drift|constraint|phi|unstable|step"):
            return ok("warned")
        return wrong(
            f"left the constraint by {float(np.nanmax(r)) if np.isfinite(r).any() else 'nan'} "
            "without a warning"
        )

    return Case("simulation", label, run)


def _cli_sim_cases() -> list[Case]:
    base = [
        "simulate",
        "--lagrangian",
        "m*dot(x)**2/2 - k*x**2/2",
        "--coordinates",
        "x",
        "--parameters",
        "m k",
        "--set",
        "m=2",
        "--set",
        "k=8",
        "--no-progress",
    ]
    items = [
        ("valid", ["--t", "1", "--x0", "1,0"], "valid"),
        ("--t 1e12", ["--t", "1e12"], "refuse"),
        ("--t nan", ["--t", "nan"], "refuse"),
        ("--t -1", ["--t", "-1"], "refuse"),
        ("--dt 0", ["--t", "1", "--dt", "0"], "refuse"),
        ("--dt 1e6 --t 1e7", ["--t", "1e7", "--dt", "1e6"], "warn"),
        ("--x0 1j,0", ["--t", "1", "--x0", "1j,0"], "refuse"),
        ("--x0 nan,0", ["--t", "1", "--x0", "nan,0"], "refuse"),
        ("--x0 1,2,3", ["--t", "1", "--x0", "1,2,3"], "refuse"),
        ("--x0 abc", ["--t", "1", "--x0", "abc"], "refuse"),
        ("--x0 1e400,0", ["--t", "1", "--x0", "1e400,0"], "refuse"),
        ("--method euler", ["--t", "1", "--method", "euler"], "refuse"),
        ("--substeps 0", ["--t", "1", "--substeps", "0"], "refuse"),
        ("--substeps 10**12", ["--t", "1", "--substeps", "1000000000000"], "refuse"),
        ("--set m=-1", ["--t", "1", "--set", "m=-1"], "refuse"),
        ("--set m=nan", ["--t", "1", "--set", "m=nan"], "refuse"),
        ("--set zz=1", ["--t", "1", "--set", "zz=1"], "either"),
        ("--set m=1e400", ["--t", "1", "--set", "m=1e400"], "refuse"),
        ("--fps 0 with --gif", ["--t", "0.1", "--fps", "0", "--gif", "a.gif"], "refuse"),
    ]

    def make(label: str, argv: list[str], expect: str) -> Case:
        def run(ctx: Ctx) -> Outcome | None:
            got = run_cli(base + argv, ctx)
            if isinstance(got, Outcome):
                return got
            rc, out, err = got
            if expect == "refuse":
                return wrong(f"accepted (exit {rc}): {short(out + err, 120)}")
            if expect == "warn" and not re.search(
                r"warn|drift|unstable|blow", out + err + " ".join(ctx.all_messages()), re.I
            ):
                return wrong(f"blow-up without a warning: {short(out, 150)}")
            return ok()

        return Case("simulation", f"lagdyn simulate {label}", run)

    return [make(*i) for i in items]


# =========================================================================== cache
NOBODY = 65534
PAYLOAD = f'\nimport os as _probe_os\n_probe_os.system("touch {CANARY}")\n'


def prepare_cache() -> None:
    """The cache file name of the hand-oracle model (numpy, m = 2, k = 3), and a sealed
    module with a payload (what a user who can write the directory could plant)."""
    if "cache_key_file" in SHARED:
        return
    from lagdyn.codegen.cache import seal

    d = Path(tempfile.mkdtemp(prefix="cache-key-", dir=Path.cwd()))
    system, _x, _y, m, k = oracle_model()
    system.lambdify({m: MV, k: KV}, cache_dir=d / "c")
    files = sorted((d / "c").glob("*.py"))
    if len(files) != 1:
        raise RuntimeError(f"expected one cached module, found {files}")
    text = files[0].read_text()
    first, second, body = text.split("\n", 2)
    SHARED["cache_key_file"] = files[0].name
    SHARED["cache_sealed"] = seal(body + PAYLOAD, "#")
    SHARED["cache_tampered"] = f"{first}\n{second}\n{body}{PAYLOAD}"


def _trusted(path: Path) -> bool:
    """The issue's rule, independently: the directory is ours and not writable by group or
    others; every directory above it is ours or root's, and not writable by group or
    others unless sticky."""
    real = Path(os.path.realpath(path))
    uid = os.geteuid()
    st = os.stat(real)
    if st.st_uid != uid or st.st_mode & 0o022:
        return False
    for p in real.parents:
        st = os.stat(p)
        if st.st_uid not in (0, uid):
            return False
        if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            return False
    return True


def _mkdir(path: Path, mode: int, owner: int | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    if owner is not None:
        os.chown(path, owner, owner)
    os.chmod(path, mode)
    return path


def _plant(directory: Path, what: str, owner: int | None = None) -> None:
    if what == "none":
        return
    f = directory / SHARED["cache_key_file"]
    text = (
        SHARED["cache_sealed"]
        if what in ("sealed", "sealed, owned by nobody")
        else SHARED["cache_tampered"]
    )
    f.write_text(text)
    if owner is not None:
        os.chown(f, owner, owner)
    if what == "sealed, owned by nobody":
        os.chown(f, NOBODY, NOBODY)


def _cache_case(
    label: str,
    setup: Callable[[Ctx], None],
    backend: str = "numpy",
    check: Callable[[Ctx, Outcome], Outcome] | None = None,
) -> Case:
    def run(ctx: Ctx) -> Outcome | None:
        system, _x, _y, m, k = oracle_model()
        for _ in range(2):  # the second time reads what the first may have written
            num = system.lambdify({m: MV, k: KV}, backend=backend)
            check_numeric_model(num)
        return ok("refused with a warning" if ctx.warned("cache") else "used")

    def guarded_setup(ctx: Ctx) -> None:
        if os.geteuid() != 0:
            raise SkipInput("needs root (chown to another uid)")
        setup(ctx)

    return Case("cache", f"{backend}: {label}", run, setup=guarded_setup, check=check)


def cache_cases() -> list[Case]:
    cases: list[Case] = []
    modes = (0o700, 0o750, 0o755, 0o711, 0o770, 0o775, 0o777, 0o1777)
    for owner_label, owner in (("yours", None), ("owned by uid 65534", NOBODY)):
        for mode in modes:
            for planted in ("none", "sealed", "tampered"):
                trusted = owner is None and not mode & 0o022
                if trusted and planted == "sealed":
                    continue  # your own cache: trusted by design

                def setup(
                    ctx: Ctx, owner: int | None = owner, mode: int = mode, planted: str = planted
                ) -> None:
                    c = _mkdir(ctx.root / "par" / "cache", 0o700)
                    _plant(c, planted, owner)
                    if owner is not None:
                        os.chown(c, owner, owner)
                    os.chmod(c, mode)
                    ctx.cache = c

                cases.append(
                    _cache_case(
                        f"cache dir {owner_label}, mode {mode:04o}, planted {planted}", setup
                    )
                )
    parents = [
        ("parent 0777", lambda ctx: _mkdir(ctx.root / "par", 0o777)),
        ("parent 1777 (sticky)", lambda ctx: _mkdir(ctx.root / "par", 0o1777)),
        ("parent 0775", lambda ctx: _mkdir(ctx.root / "par", 0o775)),
        ("parent owned by uid 65534", lambda ctx: _mkdir(ctx.root / "par", 0o755, NOBODY)),
        (
            "grandparent 0777",
            lambda ctx: (_mkdir(ctx.root / "g", 0o777), _mkdir(ctx.root / "g" / "par", 0o755)),
        ),
    ]
    for label, make_parent in parents:
        for planted in ("none", "sealed"):

            def setup(ctx: Ctx, make_parent: Any = make_parent, planted: str = planted) -> None:
                make_parent(ctx)
                par = ctx.root / "g" / "par" if (ctx.root / "g").exists() else ctx.root / "par"
                c = _mkdir(par / "cache", 0o700)
                _plant(c, planted)
                ctx.cache = c

            if label.startswith("parent 1777") and planted == "sealed":
                continue  # a sticky parent is fine: the cache is trusted
            cases.append(_cache_case(f"your cache dir 0700, {label}, planted {planted}", setup))

    def own(ctx: Ctx) -> Path:
        c = _mkdir(ctx.root / "par" / "cache", 0o700)
        ctx.cache = c
        return c

    def planted_other_owner(ctx: Ctx) -> None:
        _plant(own(ctx), "sealed, owned by nobody")

    def planted_symlink(ctx: Ctx) -> None:
        c = own(ctx)
        (ctx.victim / "evil.py").write_text(SHARED["cache_sealed"])
        os.symlink(ctx.victim / "evil.py", c / SHARED["cache_key_file"])

    def symlink_to_other(ctx: Ctx) -> None:
        other = _mkdir(ctx.root / "par" / "other", 0o700)
        _plant(other, "sealed")
        os.chown(other, NOBODY, NOBODY)
        os.symlink(other, ctx.root / "par" / "link")
        ctx.cache = ctx.root / "par" / "link"

    def symlink_through_writable(ctx: Ctx) -> None:
        c = _mkdir(ctx.root / "open" / "cache", 0o700)
        os.chmod(ctx.root / "open", 0o777)
        _plant(c, "sealed")
        _mkdir(ctx.root / "par", 0o755)
        os.symlink(c, ctx.root / "par" / "link")
        ctx.cache = ctx.root / "par" / "link"

    def dangling(ctx: Ctx) -> None:
        _mkdir(ctx.root / "par", 0o755)
        os.symlink(ctx.root / "nowhere", ctx.root / "par" / "cache")
        ctx.cache = ctx.root / "par" / "cache"

    def a_file(ctx: Ctx) -> None:
        _mkdir(ctx.root / "par", 0o755)
        (ctx.root / "par" / "cache").write_text("not a directory")
        ctx.cache = ctx.root / "par" / "cache"

    def under_a_file(ctx: Ctx) -> None:
        a_file(ctx)
        ctx.cache = ctx.root / "par" / "cache" / "sub"

    def empty_env(ctx: Ctx) -> None:
        ctx.data["env"] = {"LAGDYN_CACHE_DIR": "", "HOME": str(_mkdir(ctx.root / "home", 0o700))}

    def home_writable(ctx: Ctx) -> None:
        home = _mkdir(ctx.root / "home", 0o777)
        c = _mkdir(home / ".cache" / "lagdyn", 0o700)
        os.chmod(home / ".cache", 0o755)
        _plant(c, "sealed")
        ctx.data["env"] = {"LAGDYN_CACHE_DIR": "", "HOME": str(home)}

    def fifo_file(ctx: Ctx) -> None:
        c = own(ctx)
        os.mkfifo(c / SHARED["cache_key_file"])

    def tmp_symlink(ctx: Ctx) -> None:
        c = own(ctx)
        link = c / ".tmp-oldjunk"
        os.symlink(ctx.victim / "notes.txt", link)
        os.utime(link, (1, 1), follow_symlinks=False)

    specials = [
        ("your cache dir, a planted sealed module owned by uid 65534", planted_other_owner),
        ("your cache dir, the module a symlink to a sealed module elsewhere", planted_symlink),
        ("cache path a symlink to a directory of uid 65534 (sealed module)", symlink_to_other),
        ("cache path a symlink into a 0777 directory (sealed module)", symlink_through_writable),
        ("cache path a dangling symlink", dangling),
        ("cache path a regular file", a_file),
        ("cache path under a regular file", under_a_file),
        ("LAGDYN_CACHE_DIR empty (default under HOME)", empty_env),
        ("default cache under a 0777 HOME (sealed module)", home_writable),
        ("the module path a FIFO", fifo_file),
        ("an old .tmp- symlink to your file (the sweep)", tmp_symlink),
    ]
    cases += [_cache_case(label, setup) for label, setup in specials]
    for umask in (0o000, 0o002, 0o022):

        def setup(ctx: Ctx, umask: int = umask) -> None:
            ctx.cache = ctx.root / "a" / "b" / "c"
            ctx.data["umask"] = umask

        def check(ctx: Ctx, outcome: Outcome) -> Outcome:
            bad = [
                f"{p.relative_to(ctx.root)} {stat.S_IMODE(p.stat().st_mode):04o}"
                for p in (ctx.root / "a", ctx.root / "a" / "b", ctx.root / "a" / "b" / "c")
                if p.exists() and p.stat().st_mode & 0o022
            ]
            if bad:
                return outcome.worse(wrong(f"directories created writable by others: {bad}"))
            return outcome

        cases.append(
            _cache_case(f"missing cache dir and parents, umask {umask:04o}", setup, check=check)
        )

    def build_link(ctx: Ctx) -> None:
        c = own(ctx)
        os.symlink(ctx.victim, c / ".build")

    def old_build_link(ctx: Ctx) -> None:
        c = own(ctx)
        b = _mkdir(c / ".build", 0o700)
        link = b / "lagdyn-build-old"
        os.symlink(ctx.victim, link)
        os.utime(link, (1, 1), follow_symlinks=False)

    cases.append(
        _cache_case("your cache, .build a symlink to your directory", build_link, backend="c")
    )
    cases.append(
        _cache_case(
            "your cache, an old build directory a symlink to your directory",
            old_build_link,
            backend="c",
        )
    )
    return cases


# =========================================================================== output files
def prepare_files() -> None:
    if "dp_result" in SHARED:
        return
    import lagdyn as ld
    import lagdyn.lab
    import lagdyn.plot
    from lagdyn.export import code  # noqa: F401

    dp = SHARED.get("dp") or ld.zoo.double_pendulum()
    SHARED["dp"] = dp
    num = dp.lambdify(dp.defaults)
    SHARED["dp_result"] = ld.simulate(num, [0.5, 0.0, 0.0, 0.0], [0.0, 0.05, 0.1])
    SHARED["dp_positions"] = ld.plot.positions_for("double_pendulum")
    d = Path(tempfile.mkdtemp(prefix="warm-", dir=Path.cwd()))
    ld.lab.write(d / "p.html", dp)
    ld.plot.animate(SHARED["dp_result"], SHARED["dp_positions"], d / "a.gif", frames=2)
    # a tiny tmpfs for the full-disk inputs (root only)
    probe = d / "mnt"
    probe.mkdir()
    rc, _, err = run_proc(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)], own_group=True, timeout=30
    )
    if rc == 0:
        run_proc(["umount", str(probe)], own_group=True, timeout=30)
        SHARED["tmpfs"] = True
    else:
        SHARED["tmpfs"] = False
        NOTES.append(f"files: full-disk inputs skipped (cannot mount a tmpfs: {short(err, 80)})")


#: (writer label, output file name, how it writes P with a force flag)
def _writers() -> list[tuple[str, str, Callable[[Ctx, Path, bool], Outcome | None]]]:
    def cli(args: list[str]) -> Callable[[Ctx, Path, bool], Outcome | None]:
        def write(ctx: Ctx, path: Path, force: bool) -> Outcome | None:
            folder = "" if str(path) in ("", ".") else str(path.parent)
            argv = [a.replace("@P@", str(path)).replace("@D@", folder) for a in args]
            got = run_cli(argv + (["--force"] if force else []) + ["--no-progress"], ctx)
            return got if isinstance(got, Outcome) else None

        return write

    def api_export(ctx: Ctx, path: Path, force: bool) -> Outcome | None:
        from lagdyn.export import code

        folder = "" if str(path) in ("", ".") else path.parent
        code.export(SHARED["dp"], "c", folder, name="m", force=force)
        return None

    def api_lab(ctx: Ctx, path: Path, force: bool) -> Outcome | None:
        import lagdyn as ld

        ld.lab.write(path, SHARED["dp"], force=force)
        return None

    def api_csv(ctx: Ctx, path: Path, force: bool) -> Outcome | None:
        SHARED["dp_result"].to_csv(path, force=force)
        return None

    def api_gif(ctx: Ctx, path: Path, force: bool) -> Outcome | None:
        import lagdyn as ld

        ld.plot.animate(SHARED["dp_result"], SHARED["dp_positions"], path, frames=2, force=force)
        return None

    return [
        (
            "lagdyn export",
            "m.c",
            cli(["export", "double_pendulum", "-t", "c", "--out", "@D@", "--name", "m"]),
        ),
        ("lagdyn lab --out", "page.html", cli(["lab", "double_pendulum", "--out", "@P@"])),
        (
            "lagdyn simulate --csv",
            "run.csv",
            cli(["simulate", "double_pendulum", "--t", "0.05", "--csv", "@P@"]),
        ),
        (
            "lagdyn simulate --png",
            "run.png",
            cli(["simulate", "double_pendulum", "--t", "0.05", "--png", "@P@"]),
        ),
        ("lagdyn.export.code.export", "m.c", api_export),
        ("ld.lab.write", "page.html", api_lab),
        ("SimulationResult.to_csv", "run.csv", api_csv),
        ("plot.animate", "run.gif", api_gif),
    ]


_OLD = "the user's old content\n"


def _files_case(
    writer: str,
    fname: str,
    write: Callable[[Ctx, Path, bool], Outcome | None],
    scenario: str,
    force: bool,
) -> Case:
    """One writer, one state of the target path P = work/out/FNAME."""
    must_refuse = scenario in (
        "dangling symlink",
        "symlink to your file",
        "your file",
        "a directory",
        "a FIFO",
        "through a file",
        "empty path",
        "NUL in the path",
        "full disk",
        "full disk, your file",
    ) and not (
        force
        and scenario
        in (
            "dangling symlink",
            "symlink to your file",
            "your file",
            "a FIFO",
            "full disk, your file",
        )
        and not scenario.startswith("full")
    )

    def target(ctx: Ctx) -> Path:
        if scenario == "missing parents":
            return ctx.work / "out" / "deeper" / "still" / fname
        if scenario == "through a file":
            return ctx.work / "out" / "afile" / fname
        if scenario.startswith("full disk"):
            return ctx.root / "disk" / "out" / fname
        return ctx.work / "out" / fname

    def setup(ctx: Ctx) -> None:
        out = ctx.work / "out"
        out.mkdir()
        P = target(ctx)
        if scenario == "dangling symlink":
            os.symlink(ctx.victim / "created-through-link.txt", P)
        elif scenario == "symlink to your file":
            os.symlink(ctx.victim / "notes.txt", P)
        elif scenario == "your file":
            P.write_text(_OLD)
        elif scenario == "hard link to your file":
            os.link(ctx.victim / "notes.txt", P)
        elif scenario == "a directory":
            P.mkdir()
            (P / "keep.txt").write_text(_OLD)
        elif scenario == "a FIFO":
            os.mkfifo(P)
        elif scenario == "through a file":
            (out / "afile").write_text(_OLD)
        elif scenario.startswith("full disk"):
            if os.geteuid() != 0 or not SHARED.get("tmpfs"):
                raise SkipInput("no tmpfs")
            disk = ctx.root / "disk"
            disk.mkdir()
            rc, _, err = run_proc(
                ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                own_group=True,
                timeout=30,
            )
            if rc != 0:
                raise SkipInput(f"mount failed: {err}")
            ctx.data["mounted"] = disk
            CLEANUPS.append(
                lambda disk=disk: run_proc(["umount", str(disk)], own_group=True, timeout=30)
            )
            (disk / "out").mkdir()
            if scenario == "full disk, your file":
                P.write_text(_OLD * 10)
            with contextlib.suppress(OSError), open(disk / "filler", "wb") as fh:
                while True:
                    fh.write(b"\0" * 4096)
                    fh.flush()
            with contextlib.suppress(OSError), open(disk / "filler2", "wb") as fh:
                while True:
                    fh.write(b"\0")
                    fh.flush()
        ctx.data["before"] = snapshot(P.parent if P.parent.exists() else out)
        ctx.data["before_dir"] = str(P.parent if P.parent.exists() else out)

    def run(ctx: Ctx) -> Outcome | None:
        P = target(ctx)
        if scenario == "empty path":
            P = Path("")
        if scenario == "NUL in the path":
            P = ctx.work / "out" / "a\x00b" / fname
        got = write(ctx, P, force)
        if got is not None:
            return got
        return ok("written")

    def check(ctx: Ctx, outcome: Outcome) -> Outcome:
        try:
            return _files_verdict(ctx, outcome)
        finally:
            disk = ctx.data.get("mounted")
            if disk is not None:
                run_proc(["umount", str(disk)], own_group=True, timeout=30)

    def _files_verdict(ctx: Ctx, outcome: Outcome) -> Outcome:
        P = target(ctx)
        d = Path(ctx.data["before_dir"])
        after = snapshot(d)
        before = ctx.data["before"]
        ignore = {"filler", "filler2"}
        name = P.name
        old_entry = before.get(name)
        new_entry = after.get(name)
        if outcome.kind in ("hang", "code", "file"):
            return outcome
        if outcome.kind in ("named", "raw"):
            # refused: the user's entry as it was, and nothing half-written left behind
            if old_entry is not None and new_entry != old_entry:
                return outcome.worse(file_lost(f"{name} changed although the write failed"))
            extra = [k for k in after if k not in before and k.split("/")[0] not in ignore]
            if extra:
                return outcome.worse(wrong(f"left behind after the refusal: {extra}"))
            return outcome
        # accepted
        if must_refuse:
            if old_entry is not None and new_entry != old_entry:
                return file_lost(f"{name} ({old_entry[0]}) replaced without --force")
            return wrong(f"accepted ({scenario}{', force' if force else ''})")
        try:
            st = P.lstat()
        except OSError:
            return wrong(f"reported success but {name} is missing")
        if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
            return wrong(f"{name} is not a non-empty regular file after the write")
        if force and old_entry is not None and old_entry[0] == "file" and new_entry == old_entry:
            return wrong(f"--force did not replace {name}")
        strays = [
            k for k in after if k not in before and k != name and (k.startswith(".") or "tmp" in k)
        ]
        if strays:
            return wrong(f"temporary files left: {strays}")
        return outcome

    return Case(
        "files",
        f"{writer}: P {scenario}{' --force' if force else ''}",
        run,
        setup=setup,
        check=check,
        timeout=10.0 if scenario == "a FIFO" else None,
    )


def files_cases() -> list[Case]:
    scenarios = [
        ("fresh", (False,)),
        ("missing parents", (False,)),
        ("dangling symlink", (False, True)),
        ("symlink to your file", (False, True)),
        ("your file", (False, True)),
        ("hard link to your file", (True,)),
        ("a directory", (False, True)),
        ("a FIFO", (False, True)),
        ("through a file", (False,)),
        ("empty path", (False,)),
        ("NUL in the path", (False,)),
        ("full disk", (False,)),
        ("full disk, your file", (True,)),
    ]
    cases = []
    for writer, fname, write in _writers():
        for scenario, forces in scenarios:
            if scenario == "NUL in the path" and writer.startswith("lagdyn "):
                continue  # an argv cannot hold NUL
            for force in forces:
                cases.append(_files_case(writer, fname, write, scenario, force))
    return cases


# =========================================================================== lab title
def _page_parts(page: str) -> tuple[_TagScan, dict[str, Any], list[str]]:
    """The parsed page, LAB_CONFIG (decoded as JSON) and the scripts with the config's
    JSON taken out."""
    scan = _TagScan()
    scan.feed(page)
    scan.close()
    config: dict[str, Any] = {}
    scripts = []
    for text in scan.scripts:
        at = text.find("var LAB_CONFIG = ")
        if at >= 0:
            start = at + len("var LAB_CONFIG = ")
            # a JS string literal allows escapes JSON does not (<\!-- is how a page hides
            # "<!--" from the HTML parser): read \X as X, as JS does
            js = re.sub(
                r"\\(.)",
                lambda m: m.group(0) if m.group(1) in '"\\/bfnrtu' else m.group(1),
                text[start:],
            )
            text = text[:start] + js
            try:
                config, end = json.JSONDecoder().raw_decode(text, start)
            except ValueError as exc:
                raise WrongResult(f"LAB_CONFIG is not JSON any more: {exc}") from None
            text = text[:start] + "CONFIG" + text[end:]
        scripts.append(text)
    return scan, config, scripts


def prepare_lab_title() -> None:
    if "lab_baseline" in SHARED:
        return
    import lagdyn as ld

    dp = SHARED.get("dp") or ld.zoo.double_pendulum()
    SHARED["dp"] = dp
    SHARED["lab_baseline"] = _page_parts(ld.lab.page(dp, title="BASELINE"))


def _browser_title(path: Path) -> tuple[str, str]:
    """document.title and the header's text after the page's scripts ran (Chromium)."""
    chrome = (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )
    if chrome is None:
        raise SkipInput("no chromium")
    with tempfile.TemporaryDirectory() as profile:
        rc, out, err = run_proc(
            [
                chrome,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--user-data-dir={profile}",
                "--dump-dom",
                path.as_uri(),
            ],
            own_group=True,
            timeout=60,
        )
    if rc != 0:
        raise RuntimeError(f"chromium exit {rc}: {short(err)}")
    scan = _TagScan()
    scan.feed(out)
    h1 = re.search(r"<h1>(.*?)</h1>", out, re.S)
    return scan.title, html.unescape(re.sub(r"<[^>]+>", "", h1.group(1))) if h1 else ""


def _lab_title_case(label: str, title: str, via: str) -> Case:
    def run(ctx: Ctx) -> Outcome | None:
        out = ctx.work / "page.html"
        if via == "cli":
            got = run_cli(
                ["lab", "double_pendulum", "--out", str(out), f"--title={title}", "--no-progress"],
                ctx,
            )
            if isinstance(got, Outcome):
                return got
        else:
            import lagdyn as ld

            ld.lab.write(out, SHARED["dp"], title=title)
        page = out.read_text(encoding="utf-8")
        scan, config, scripts = _page_parts(page)
        _base_scan, base_config, base_scripts = SHARED["lab_baseline"]
        if scan.handlers:
            raise InjectedCode(f"event handlers in the page: {scan.handlers[:2]}")
        if len(scripts) != len(base_scripts):
            raise InjectedCode(f"{len(scripts)} script elements, the page has {len(base_scripts)}")
        for a, b in zip(scripts, base_scripts):
            if a != b:
                if MARK.lower() in a.lower():
                    raise InjectedCode("the title reached a script as code")
                raise WrongResult("a script of the page changed with the title")
        if config.get("title") != title:
            raise WrongResult(f"LAB_CONFIG.title is {config.get('title')!r}")
        rest = {k: v for k, v in config.items() if k != "title"}
        if rest != {k: v for k, v in base_config.items() if k != "title"}:
            raise WrongResult("LAB_CONFIG changed beyond its title")
        if scan.title != title:
            raise WrongResult(f"<title> reads {scan.title!r}")
        return ok()

    def check(ctx: Ctx, outcome: Outcome) -> Outcome:
        if outcome.kind != "ok" or not OPTIONS.get("browser"):
            return outcome
        shown, header = _browser_title(ctx.work / "page.html")
        expected = " ".join(title.split())  # a browser collapses ASCII whitespace
        if shown != expected:
            return wrong(f"Chromium shows document.title {shown!r}")
        if not header.strip() or "Generalized" not in header:
            return wrong(f"the page's script did not run (header {header!r})")
        return outcome

    return Case("lab_title", f"{via}: {label} {rep(title, 50)}", run, check=check)


def lab_title_cases() -> list[Case]:
    titles = [
        ("plain", "My pendulum"),
        ("HTML break-out", f"</title><script>{JS_CODE}</script>"),
        ("img onerror", f'<img src=x onerror="{MARK}=1">'),
        ("script close", f"</script><script>{JS_CODE}</script>"),
        ("quotes and backslash", "\"\\'`"),
        ("JSON break-out", f'", "x": {MARK}, "y": "'),
        ("HTML comment opener", "<!-- x"),
        ("CDATA", "<![CDATA[ x ]]>"),
        ("entity text", "&amp; &lt;b&gt; &#x41;"),
        ("template placeholder @CONFIG@", "@CONFIG@"),
        ("template placeholder @LAB_JS@", "@LAB_JS@"),
        ("template placeholder @MODELS@", "@MODELS@"),
        ("template placeholder @TITLE@", "@TITLE@"),
        ("template placeholder @MODEL@", "@MODEL@"),
        ("placeholders together", "@MODEL@@CONFIG@@TITLE@"),
        ("dollar brace", "${alert(1)}"),
        ("non-ASCII", "진자 실험 — θ̇ ✓"),
        ("emoji", "\U0001f642 lab"),
        ("RTL override", "abc\u202edef"),
        ("5,000 characters", "x" * 5000),
        ("1 MB", "y" * 1_000_000),
        ("line break", "a\nb"),
        ("tab", "a\tb"),
        ("U+2028", "a\u2028b"),
        ("U+2029", "a\u2029b"),
        ("NUL", "a\x00b"),
        ("lone surrogate", "a\ud800b"),
        ("empty", ""),
        ("spaces only", "   "),
        ("leading and trailing spaces", "  t  "),
        ("zero-width space", "a\u200bb"),
        ("backslash u escape text", "\\u003cscript\\u003e"),
        ("javascript: URL", "javascript:alert(1)"),
        ("markdown", "**bold** [x](javascript:alert(1))"),
    ]
    cases = []
    for label, title in titles:
        via = "api" if ("\x00" in title or "\ud800" in title or len(title) > 100_000) else "cli"
        cases.append(_lab_title_case(label, title, via))
        if via == "cli" and label in (
            "HTML break-out",
            "template placeholder @CONFIG@",
            "line break",
            "plain",
        ):
            cases.append(_lab_title_case(label, title, "api"))
    return cases


# =========================================================================== main
BUILDERS: dict[str, Callable[[], list[Case]]] = {}
NOTES: list[str] = []


def register() -> None:
    BUILDERS.update(
        {
            "names": names_cases,
            "export_name": export_name_cases,
            "urdf": urdf_cases,
            "dh": dh_cases,
            "parser": parser_cases,
            "numerics": numerics_cases,
            "simulation": simulation_cases,
            "cache": cache_cases,
            "files": files_cases,
            "lab_title": lab_title_cases,
        }
    )
    PREPARE.update(
        {
            "names": prepare_names,
            "export_name": prepare_export_name,
            "urdf": prepare_urdf,
            "dh": prepare_dh,
            "parser": prepare_parser,
            "numerics": prepare_numerics,
            "simulation": prepare_simulation,
            "cache": prepare_cache,
            "files": prepare_files,
            "lab_title": prepare_lab_title,
        }
    )


def table(counts: dict[str, dict[str, int]]) -> str:
    cols = list(COLUMNS)
    lines = [
        "| category | " + " | ".join(HEADINGS[c] for c in cols) + " |",
        "| --- | " + " | ".join("---:" for _ in cols) + " |",
    ]
    total = dict.fromkeys(cols, 0)
    for cat, label in CATEGORIES.items():
        if cat not in counts:
            continue
        row = counts[cat]
        for c in cols:
            total[c] += row.get(c, 0)
        lines.append(f"| {label} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |")
    lines.append("| **total** | " + " | ".join(f"**{total[c]}**" for c in cols) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--category", action="append", choices=list(CATEGORIES))
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--details", action="store_true")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--json", default=None)
    parser.add_argument("--filter", default=None)
    parser.add_argument("--mem-gb", type=float, default=4.0, help="address-space limit per input")
    args = parser.parse_args(argv)
    OPTIONS["browser"] = args.browser
    register()
    chosen = args.category or list(CATEGORIES)
    base = Path(tempfile.mkdtemp(prefix="lagdyn-probe-"))
    os.environ["LAGDYN_CACHE_DIR"] = str(base / "parent-cache")
    os.chdir(base)
    t0 = time.monotonic()
    import numpy  # noqa: F401
    import sympy  # noqa: F401

    import lagdyn
    import lagdyn.cli.commands  # noqa: F401

    vsz = int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    mem_limit = vsz + int(args.mem_gb * 2**30) if args.mem_gb > 0 else None
    runner = Runner(base / "inputs", args.timeout, args.jobs, mem_limit)
    (base / "inputs").mkdir()
    counts: dict[str, dict[str, int]] = {}
    details: list[str] = []
    skipped: dict[str, list[str]] = {}
    timing: dict[str, tuple[float, float]] = {}
    records: list[dict[str, Any]] = []
    index = 0
    try:
        for cat in chosen:
            if cat not in BUILDERS:
                NOTES.append(f"{cat}: not implemented")
                continue
            cases = BUILDERS[cat]()
            if args.filter:
                cases = [c for c in cases if args.filter in c.summary]
            if args.list:
                for c in cases:
                    print(f"{cat}\t{c.summary}")
                continue
            prepare = PREPARE.get(cat)
            if prepare is not None and cases:
                prepare()
            row = counts.setdefault(cat, dict.fromkeys(COLUMNS, 0))
            started = time.monotonic()

            def report(
                i: int, case: Case, outcome: Outcome, warned: str, row: dict[str, int] = row
            ) -> None:
                if outcome.kind == "skip":
                    skipped.setdefault(case.category, []).append(
                        f"{case.summary}: {outcome.message}"
                    )
                    return
                row["tried"] += 1
                row[outcome.kind] += 1
                records.append(
                    {
                        "category": case.category,
                        "input": case.summary,
                        "outcome": outcome.kind,
                        "message": outcome.message,
                        "warnings": warned,
                    }
                )
                if outcome.kind not in ("ok", "named"):
                    details.append(
                        f"{CATEGORIES[case.category]} | {case.summary} | "
                        f"{HEADINGS[outcome.kind]} | {short(outcome.message, 300)}"
                    )
                if not args.keep:
                    shutil.rmtree(base / "inputs" / f"{i:05d}", ignore_errors=True)

            numbered = []
            for c in cases:
                numbered.append((index, c))
                index += 1
            cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            runner.run(numbered, report)
            cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
            timing[cat] = (time.monotonic() - started, cpu)
            print(
                f"# {cat}: {len(cases)} inputs in {timing[cat][0]:.0f} s "
                f"(CPU of the inputs {cpu:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    finally:
        cleanup()
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
        else:
            print(f"# scratch kept in {base}", file=sys.stderr)
    if args.list:
        return 0
    print(table(counts))
    print(
        f"\n{sum(r['tried'] for r in counts.values())} inputs in "
        f"{time.monotonic() - t0:.0f} s, timeout {args.timeout:g} s, jobs {args.jobs}"
    )
    cpu = sum(c for _, c in timing.values())
    print(
        "time per category (wall / CPU of the inputs): "
        + ", ".join(f"{cat} {w:.0f}/{c:.0f} s" for cat, (w, c) in timing.items())
        + f"; CPU total {cpu:.0f} s"
    )
    for cat, items in skipped.items():
        NOTES.append(
            f"{cat}: {len(items)} inputs skipped ("
            + "; ".join(items[:3])
            + ("; ..." if len(items) > 3 else "")
            + ")"
        )
    for note in NOTES:
        print(f"- note: {note}")
    if args.details and details:
        print("\n## Inputs not OK (category | input | outcome | message)\n")
        for line in details:
            print(f"- {line}")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1, ensure_ascii=False))
    return 0


OPTIONS: dict[str, Any] = {}
SHARED: dict[str, Any] = {}
PREPARE: dict[str, Callable[[], None]] = {}
CLEANUPS: list[Callable[[], None]] = []


def cleanup() -> None:
    for fn in CLEANUPS:
        with contextlib.suppress(Exception):
            fn()
    CLEANUPS.clear()


if __name__ == "__main__":
    sys.exit(main())
