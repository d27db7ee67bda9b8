r"""Operation counts of the generated dynamics and how they scale (``lagdyn bench --ops``).

For planar and spatial n-joint chains (n = 2 … ``max_n``) and the zoo arms, the number of
operations after CSE of M, h = C q̇ + g, τ (inverse dynamics) and q̈ (forward dynamics, by
CRBA + LDLᵀ and by ABA) on the recursive route — the straight-line programs of
:mod:`lagdyn.recursive.program`, each with its own CSE (a rational coefficient counts as one
multiplication) — and on the closed route (the kernels ``lambdify(route="closed")``
generates) up to ``closed_max`` joints, beyond which the closed form is too large to build
quickly. Counts are taken after ``symengine.cse`` with one operation per binary +, −, ×,
÷, power and function call (:func:`count_ops`: within 0–4 % of sympy's ``count_ops`` after
``sympy.cse``, which :meth:`~lagdyn.recursive.program.Program.count_ops` and the SymPyBotics
comparison use, and five times faster). Inertial parameters are symbolic (ten per link, as
SymPyBotics counts them) or the numbers of the chain (``parameters="numeric"``).

The recursive τ must grow linearly in n: :func:`linear_fit` fits ops = a·n + b by least
squares and reports the slope, the coefficient of determination and the largest relative
deviation. References printed beside the counts: SymPyBotics' symbolic RNEA on the UR5 and
the PUMA 560 (issue 12's measurements from its source), and the general-purpose numeric
RNEA of Luh, Walker & Paul as counted by Hollerbach (IEEE SMC 1980): 150n − 48
multiplications and 131n − 48 additions.

Examples
--------
>>> from lagdyn.cli import opcounts
>>> row = opcounts.chain_counts("planar", 2, closed=False)
>>> row.ops["tau"] > 0, row.ops["qdd_aba"] > 0
(True, True)
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import symengine as se
import sympy as sp

import lagdyn.recursive as programs

from ..errors import LagdynError
from ..recursive.algebra import _floats

__all__ = [
    "ARMS",
    "Counts",
    "chain_counts",
    "count_ops",
    "linear_fit",
    "planar_chain",
    "report",
    "spatial_chain",
]

#: The zoo arms counted besides the generated chains.
ARMS = ("puma560", "ur5", "panda")

#: What is counted, in column order (the n-scans leave out g and C).
COLUMNS = ("M", "h", "tau", "qdd_crba", "qdd_aba", "g", "C")
SCAN = COLUMNS[:5]

#: SymPyBotics' counts (symbolic RNEA with its own CSE; issue 12, measured from its source).
SYMPYBOTICS = {
    "ur5": {"tau": 987, "M": 767, "C": 6166, "g": 211},
    "puma560": {"tau": 962, "M": 780, "C": 6422},
}

#: Luh, Walker & Paul's general numeric RNEA, per Hollerbach (1980): multiplications and
#: additions as functions of n.
HOLLERBACH_RNEA = (lambda n: 150 * n - 48, lambda n: 131 * n - 48)

_ROD = {"m": 1, "com": ("-0.5", 0, 0), "I": (0, "0.0833", "0.0833", 0, 0, 0)}
_GENERIC = {
    "m": "1.5",
    "com": ("-0.12", "0.02", "0.03"),
    "I": ("0.02", "0.03", "0.025", "0.001", "0.002", "-0.0015"),
}


def planar_chain(n: int, parameters: str = "symbolic") -> Any:
    """A planar nR arm of uniform unit rods (standard DH rows (0, 1, 0), joint axes along z,
    gravity (0, −g, 0) in the plane).

    Examples
    --------
    >>> from lagdyn.cli.opcounts import planar_chain
    >>> planar_chain(4).n
    4
    """
    from ..robot.builders import from_dh

    g = sp.Symbol("g", positive=True)
    return from_dh([(0, 1, 0)] * n, inertia=[_ROD] * n, parameters=parameters, gravity=(0, -g, 0))


def spatial_chain(n: int, parameters: str = "symbolic") -> Any:
    """A spatial nR arm: standard DH rows (0.1, 0.3, ±π/2) alternating, generic inertias.

    With numbers, the COM is off every axis and the inertia tensor full, so the only
    structural zeros are the DH ones.

    Examples
    --------
    >>> from lagdyn.cli.opcounts import spatial_chain
    >>> spatial_chain(3).chain.links[1].joint
    'revolute'
    """
    from ..robot.builders import from_dh

    rows = [("0.1", "0.3", sp.pi / 2 if k % 2 == 0 else -sp.pi / 2) for k in range(n)]
    return from_dh(rows, inertia=[_GENERIC] * n, parameters=parameters)


@dataclass
class Counts:
    """Operation counts of one chain: ``ops[column]`` on the recursive route, ``closed``
    on the closed route (None when not built), and the seconds each route took.

    Examples
    --------
    >>> from lagdyn.cli.opcounts import chain_counts
    >>> chain_counts("planar", 2, closed=False).closed
    {}
    """

    name: str
    n: int
    ops: dict[str, int]
    closed: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    closed_seconds: float = 0.0


def count_ops(exprs: Sequence[Any]) -> int:
    """Operations of ``exprs`` after one ``symengine.cse``: one per binary +, −, ×, ÷, power
    and function call; a numeric factor other than −1 is one multiplication.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.cli.opcounts import count_ops
    >>> x, y = sp.symbols("x y")
    >>> count_ops([x * y + sp.cos(x * y), -x / y])  # x·y once, +, cos, −x ÷ y
    5
    """
    converted = [se.sympify(_floats(sp.sympify(e))) for e in exprs]
    repl, red = se.cse(converted)
    return sum(_ops(e) for _, e in repl) + sum(_ops(e) for e in red)


def _ops(e: Any) -> int:
    if e.is_Atom:
        return 0
    args = e.args
    if e.is_Add:
        return len(args) - 1 + sum(_ops(a) for a in args)
    if e.is_Mul:
        factors = [a for a in args if not a.is_Number]
        coefficient = [a for a in args if a.is_Number and a != -1]
        return len(factors) - 1 + len(coefficient) + sum(_ops(a) for a in factors)
    if e.is_Pow:
        base, exponent = args
        if exponent == -1:
            return 1 + _ops(base)
        if exponent.is_Number and exponent < 0:
            return 2 + _ops(base)
        return 1 + _ops(base) + _ops(exponent)
    return 1 + sum(_ops(a) for a in args)


def _program_ops(prog: programs.Program) -> int:
    return count_ops([e for _, e in prog.body] + list(prog.outputs))


def _recursive(system: Any, columns: Sequence[str]) -> dict[str, int]:
    chain = system.chain
    makers = {
        "M": lambda: programs.crba(chain),
        "h": lambda: programs.rnea(chain, qdd=False),
        "tau": lambda: programs.rnea(chain),
        "qdd_crba": lambda: programs.forward_dynamics(chain, method="crba"),
        "qdd_aba": lambda: programs.forward_dynamics(chain, method="aba"),
        "g": lambda: programs.rnea(chain, qd=False, qdd=False),
        "C": lambda: programs.coriolis(chain),
    }
    return {k: _program_ops(makers[k]()) for k in columns}


def _closed(system: Any) -> dict[str, int]:
    from ..codegen import Binding, system_program

    prog = system_program(system, Binding(system.parameters, {}))
    names = {"M": "M", "h": "bias", "tau": "inverse_dynamics", "qdd": "forward_dynamics"}
    out = {}
    for col, kernel in names.items():
        k = prog.kernels[kernel]
        out[col] = count_ops([e for _, e in k.body] + list(k.outputs))
    return out


def _system(kind: str, n: int, parameters: str) -> Any:
    if kind == "planar":
        return planar_chain(n, parameters)
    if kind == "spatial":
        return spatial_chain(n, parameters)
    if kind in ARMS:
        from ..zoo import get

        return get(kind, parameters=parameters)
    raise LagdynError(f"unknown chain kind {kind!r}: 'planar', 'spatial' or one of {ARMS}")


def chain_counts(
    kind: str,
    n: int = 0,
    *,
    closed: bool = True,
    parameters: str = "symbolic",
    columns: Sequence[str] = COLUMNS,
) -> Counts:
    """Counts of one chain: ``kind`` "planar"/"spatial" with ``n`` joints, or a zoo arm.

    Examples
    --------
    >>> from lagdyn.cli.opcounts import chain_counts
    >>> c = chain_counts("planar", 3)
    >>> c.ops["M"] < c.closed["M"] * 10, sorted(c.closed)
    (True, ['M', 'h', 'qdd', 'tau'])
    """
    system = _system(kind, n, parameters)
    t0 = time.perf_counter()
    ops = _recursive(system, columns)
    t1 = time.perf_counter()
    shut = _closed(system) if closed else {}
    t2 = time.perf_counter()
    return Counts(kind if kind in ARMS else f"{kind} {n}R", system.n, ops, shut, t1 - t0, t2 - t1)


def linear_fit(ns: Sequence[int], ops: Sequence[int]) -> tuple[float, float, float, float]:
    """Least-squares ops ≈ a·n + b: ``(a, b, R², largest |relative deviation|)``.

    Raises
    ------
    LagdynError
        Fewer than two points.

    Examples
    --------
    >>> from lagdyn.cli.opcounts import linear_fit
    >>> a, b, r2, dev = linear_fit([2, 3, 4], [10, 20, 30])
    >>> round(a, 6), round(b, 6), round(r2, 6), round(dev, 6)
    (10.0, -10.0, 1.0, 0.0)
    """
    if len(ns) < 2 or len(ns) != len(ops):
        raise LagdynError("linear_fit needs at least two (n, ops) points of equal length")
    k = len(ns)
    mx, my = sum(ns) / k, sum(ops) / k
    sxx = sum((x - mx) ** 2 for x in ns)
    sxy = sum((x - mx) * (y - my) for x, y in zip(ns, ops))
    a = sxy / sxx
    b = my - a * mx
    ss_res = sum((y - (a * x + b)) ** 2 for x, y in zip(ns, ops))
    ss_tot = sum((y - my) ** 2 for y in ops)
    r2 = 1.0 - ss_res / ss_tot if ss_tot else 1.0
    dev = max(abs(y - (a * x + b)) / y for x, y in zip(ns, ops))
    return a, b, r2, dev


def report(
    *,
    max_n: int = 20,
    closed_max: int = 3,
    parameters: str = "symbolic",
    kinds: Sequence[str] = ("planar", "spatial"),
    arms: Sequence[str] = ARMS,
) -> Iterator[str]:
    """The lines ``lagdyn bench --ops`` prints (tables, fits, references), as they come.

    Raises
    ------
    LagdynError
        ``max_n`` below 3 or above 40, a negative ``closed_max``, an unknown kind or arm.

    Examples
    --------
    >>> from lagdyn.cli.opcounts import report
    >>> lines = list(report(max_n=3, closed_max=0, arms=()))
    >>> any("slope" in line for line in lines)
    True
    """
    if not isinstance(max_n, int) or not 3 <= max_n <= 40:
        raise LagdynError(f"max_n must be an integer from 3 to 40, got {max_n!r}")
    if not isinstance(closed_max, int) or closed_max < 0:
        raise LagdynError(f"closed_max must be a non-negative integer, got {closed_max!r}")
    if parameters not in ("symbolic", "numeric"):
        raise LagdynError(f"parameters must be 'symbolic' or 'numeric', got {parameters!r}")
    for kind in kinds:
        if kind not in ("planar", "spatial"):
            raise LagdynError(f"unknown chain kind {kind!r}: 'planar' or 'spatial'")
    for arm in arms:
        if arm not in ARMS:
            raise LagdynError(f"unknown arm {arm!r}: one of {', '.join(ARMS)}")
    yield (
        f"Operations after CSE ({parameters} inertial parameters). Recursive route: "
        "M (CRBA), h (RNEA, q̈ = 0), τ (RNEA), q̈ by CRBA + LDLᵀ and by ABA, g, C "
        "(Christoffel-consistent); closed route (lambdify(route='closed') kernels) "
        f"up to n = {closed_max}."
    )
    header = (
        "| chain | n | M | h | τ | q̈ CRBA+LDLᵀ | q̈ ABA | s "
        "| closed M | closed h | closed τ | closed q̈ | closed s |"
    )
    for kind in kinds:
        yield ""
        yield header
        yield "|" + " --- |" * 13
        ns, taus = [], []
        for n in range(2, max_n + 1):
            c = chain_counts(kind, n, closed=n <= closed_max, parameters=parameters, columns=SCAN)
            ns.append(n)
            taus.append(c.ops["tau"])
            yield _row(c)
        a, b, r2, dev = linear_fit(ns, taus)
        yield ""
        yield (
            f"{kind}: recursive τ ≈ {a:.1f}·n {'+' if b >= 0 else '−'} {abs(b):.1f} operations "
            f"(least squares over n = 2…{max_n}: slope {a:.1f} per joint, R² = {r2:.5f}, "
            f"largest deviation {100 * dev:.1f} %)"
        )
        yield (
            f"{kind}: τ increments per added joint: "
            + ", ".join(str(y - x) for x, y in itertools.pairwise(taus))
        )
    if arms:
        yield ""
        yield header.replace(" | s |", " | g | C | s |")
        yield "|" + " --- |" * 15
        for arm in arms:
            yield _row(chain_counts(arm, closed=6 <= closed_max, parameters=parameters))
        yield ""
        yield (
            "Against SymPyBotics (symbolic parameters; our programs counted like theirs, "
            "sympy count_ops after sympy.cse, Program.count_ops):"
        )
        for arm, ref in SYMPYBOTICS.items():
            if arm in arms and parameters == "symbolic":
                system = _system(arm, 0, parameters)
                ours = {k: system.program(k).count_ops() for k in ref}
                yield f"  {arm}: " + ", ".join(f"{k} {ours[k]} against {v}" for k, v in ref.items())
    mul, add = HOLLERBACH_RNEA
    yield (
        "  general numeric RNEA (Luh, Walker & Paul; Hollerbach 1980): "
        f"150n − 48 multiplications + 131n − 48 additions = {mul(6) + add(6)} at n = 6, "
        "slope 281 per joint"
    )


def _row(c: Counts) -> str:
    rec = " | ".join(str(c.ops[k]) for k in COLUMNS if k in c.ops)
    if c.closed:
        shut = " | ".join(str(c.closed[k]) for k in ("M", "h", "tau", "qdd"))
        shut += f" | {c.closed_seconds:.1f}"
    else:
        shut = " | ".join(["–"] * 5)
    return f"| {c.name} | {c.n} | {rec} | {c.seconds:.1f} | {shut} |"
