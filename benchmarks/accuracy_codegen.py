"""Accuracy of generated numerics against 50-digit mpmath (issue 11 item 1).

For every zoo model and every available backend: the largest normwise relative error
of M, C, g, bias, energy and forward dynamics at 4 random states and, where the chart
has a singularity, at states within 1e-8 of it (one-state and batched paths). Prints
a markdown table. Run ``python benchmarks/accuracy_codegen.py``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

import lagdyn as ld
from lagdyn.numeric import lambdify

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_numeric_accuracy import MODELS, Reference, _backends, _states

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


def main() -> None:
    backends = _backends()
    print("| model | " + " | ".join(f"{b} random / singular" for b in backends) + " |")
    print("| --- |" + " --- |" * len(backends))
    with tempfile.TemporaryDirectory() as cache:
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


if __name__ == "__main__":
    main()
