"""Accuracy of generated numerics against high-precision mpmath (issue 11 item 1, issue 22
item 5).

Two tables, printed as markdown. ``python benchmarks/accuracy_codegen.py [--zoo] [--forms]``
(both by default):

* ``--zoo``: for every zoo model and every available backend, the largest normwise
  relative error of M, C, g, bias, energy and forward dynamics at 4 random states and,
  where the chart has a singularity, at states within 1e-8 of it (one-state and batched
  paths), against a 50-digit evaluation of the system's expressions.
* ``--forms``: Lagrangians written with factors that vanish (``sin(x/2)⁴``,
  ``(1 − cos x)²``, ``1 + cos y``, ``sin x sin y``), at states 1e-4, 1e-6, 1e-8 from the
  zeros: the largest *entrywise* relative error of M, bias, energy and forward dynamics
  against the user's own expressions (M = ∂²L/∂q̇², h = ∂²L/∂q̇∂q q̇ − ∂L/∂q,
  E = q̇·∂L/∂q̇ − L, differentiated without expanding) at 120 digits; the last column is
  the same expressions evaluated in doubles (what the user's own code gets).

The script uses only public API, so it runs unchanged on older versions (for the
"before" column of benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

import lagdyn as ld
from lagdyn.numeric import lambdify

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "numeric"))
from test_accuracy import MODELS, Reference, _backends, _states

NAMES = ("M", "C", "g", "bias", "energy", "forward_dynamics")


def worst(num, ref, states) -> tuple[float, float]:
    rand, sing = 0.0, 0.0
    for k, (q, qd, tau) in enumerate(states):
        for name in NAMES:
            args = {"M": (q,), "g": (q,), "C": (q, qd), "bias": (q, qd), "energy": (q, qd)}.get(
                name, (q, qd, tau)
            )
            expect = ref(name, q, qd, tau)
            scale = np.max(np.abs(expect)) or 1.0
            for got in (
                getattr(num, name)(*args),
                getattr(num, name)(*(a[None] for a in args))[0],
            ):
                err = float(np.max(np.abs(np.asarray(got, dtype=float) - expect)) / scale)
                if k < 4:
                    rand = max(rand, err)
                else:
                    sing = max(sing, err)
    return rand, sing


def zoo_table(backends: list[str], cache: str) -> None:
    print("| model | " + " | ".join(f"{b} random / singular" for b in backends) + " |")
    print("| --- |" + " --- |" * len(backends))
    for model in MODELS:
        system = ld.zoo.get(model)
        ref = Reference(system)
        states = _states(model, system.n, np.random.default_rng(11))
        cells = []
        for b in backends:
            num = lambdify(system, system.defaults, backend=b, cache_dir=cache)
            r, s = worst(num, ref, states)
            cells.append(f"{r:.1e} / {s:.1e}" if len(states) > 4 else f"{r:.1e} / –")
        print(f"| {model} | " + " | ".join(cells) + " |", flush=True)


# -- Lagrangians written with factors that vanish ------------------------------------

x, y = ld.coordinates("x y")
xd, yd = ld.velocities([x, y])
#: label -> (L, the state at distance d from the zeros)
FORMS = {
    "sin(x/2)⁴ ẏ²/2": (
        xd**2 / 2 + sp.sin(x / 2) ** 4 * yd**2 / 2,
        lambda d: (d, 0.3),
    ),
    "(1 − cos x)² ẏ²/2": (
        xd**2 / 2 + (1 - sp.cos(x)) ** 2 * yd**2 / 2,
        lambda d: (d, 0.3),
    ),
    "(1 − cos x)²(1 − cos y)² ẏ²/2": (
        xd**2 / 2 + (1 - sp.cos(x)) ** 2 * (1 - sp.cos(y)) ** 2 * yd**2 / 2,
        lambda d: (d, 2 * d),
    ),
    "sin²(x/2)(1 + cos y) ẏ²/2 + sin x ẋẏ/3 − (1 − cos x)(1 + cos y)": (
        xd**2 / 2
        + sp.sin(x / 2) ** 2 * (1 + sp.cos(y)) * yd**2 / 2
        + sp.sin(x) * xd * yd / 3
        - (1 - sp.cos(x)) * (1 + sp.cos(y)),
        lambda d: (d, math.pi - d),
    ),
    "ẏ²/2 + sin x sin y ẋẏ/2 − cos x cos y": (
        xd**2 / 2 + yd**2 / 2 + sp.sin(x) * sp.sin(y) * xd * yd / 2 - sp.cos(x) * sp.cos(y),
        lambda d: (d, 1.1),
    ),
}
DISTANCES = (1e-4, 1e-6, 1e-8)
FORM_NAMES = ("M", "bias", "energy", "forward_dynamics")


class UserExpressions:
    """The user's own M, h and energy of ``L``, differentiated without expanding."""

    def __init__(self, system: ld.LagrangianSystem, L: sp.Expr) -> None:
        qs, vs = system.plain_symbols
        Lp = system.plain(L)
        n = self.n = len(qs)
        M = [sp.diff(Lp, vs[i], vs[j]) for i in range(n) for j in range(n)]
        h = [
            sum(sp.diff(Lp, vs[i], qs[j]) * vs[j] for j in range(n)) - sp.diff(Lp, qs[i])
            for i in range(n)
        ]
        E = [sum(v * sp.diff(Lp, v) for v in vs) - Lp]
        exprs = {"M": M, "bias": h, "energy": E}
        args = [*qs, *vs]
        self.mp = {k: sp.lambdify(args, e, modules="mpmath") for k, e in exprs.items()}
        self.double = {k: sp.lambdify(args, e, modules="math") for k, e in exprs.items()}

    def exact(self, name: str, q, qd, tau) -> np.ndarray:
        n = self.n
        with mpmath.workdps(120):
            z = [mpmath.mpf(float(v)) for v in (*q, *qd)]
            if name == "forward_dynamics":
                flat = self.mp["M"](*z)
                M = mpmath.matrix([flat[i * n : (i + 1) * n] for i in range(n)])
                rhs = mpmath.matrix([mpmath.mpf(float(v)) for v in tau]) - mpmath.matrix(
                    self.mp["bias"](*z)
                )
                return np.array([float(v) for v in mpmath.lu_solve(M, rhs)])
            return np.array([float(v) for v in self.mp[name](*z)])

    def doubles(self, name: str, q, qd, tau) -> np.ndarray:
        z = [float(v) for v in (*q, *qd)]
        if name == "forward_dynamics":
            M = np.array(self.double["M"](*z), dtype=float).reshape(self.n, self.n)
            h = np.array(self.double["bias"](*z), dtype=float)
            with np.errstate(all="ignore"):
                try:
                    return np.linalg.solve(M, np.asarray(tau, dtype=float) - h)
                except np.linalg.LinAlgError:
                    return np.full(self.n, np.inf)
        return np.array(self.double[name](*z), dtype=float)


def entrywise(got: np.ndarray, exact: np.ndarray) -> float:
    worst_err = 0.0
    for a, b in zip(np.ravel(got), np.ravel(exact)):
        if b == 0:
            err = 0.0 if a == 0 else math.inf
        else:
            err = abs(a - b) / abs(b) if math.isfinite(a) else math.inf
        worst_err = max(worst_err, err)
    return worst_err


def _cell(err: float) -> str:
    return "inf" if not math.isfinite(err) else f"{err:.1e}"


def forms_table(backends: list[str], cache: str) -> None:
    print("| L | " + " | ".join(backends) + " | user's expression in doubles |")
    print("| --- |" + " --- |" * (len(backends) + 1))
    qd, tau = np.array([0.7, -1.1]), np.array([0.2, 0.5])
    for label, (L, state) in FORMS.items():
        system = ld.LagrangianSystem(L, [x, y])
        user = UserExpressions(system, L)
        cells = []
        for b in backends:
            num = lambdify(system, {}, backend=b, cache_dir=cache)
            err = 0.0
            for d in DISTANCES:
                q = np.array(state(d))
                for name in FORM_NAMES:
                    args = {"M": (q,), "bias": (q, qd), "energy": (q, qd)}.get(name, (q, qd, tau))
                    with np.errstate(all="ignore"):
                        got = np.asarray(getattr(num, name)(*args), dtype=float)
                    err = max(err, entrywise(got, user.exact(name, q, qd, tau)))
            cells.append(_cell(err))
        theirs = 0.0
        for d in DISTANCES:
            q = np.array(state(d))
            for name in FORM_NAMES:
                theirs = max(
                    theirs,
                    entrywise(user.doubles(name, q, qd, tau), user.exact(name, q, qd, tau)),
                )
        print(f"| {label} | " + " | ".join(cells) + f" | {_cell(theirs)} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", action="store_true", help="only the zoo table")
    parser.add_argument("--forms", action="store_true", help="only the table of factors")
    args = parser.parse_args()
    both = not (args.zoo or args.forms)
    backends = _backends()
    with tempfile.TemporaryDirectory() as cache:
        if args.zoo or both:
            zoo_table(backends, cache)
        if args.forms or both:
            if args.zoo or both:
                print()
            forms_table(backends, cache)


if __name__ == "__main__":
    main()
