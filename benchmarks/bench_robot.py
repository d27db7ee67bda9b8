"""Robot arms: derivation time and operation counts (after CSE) of the recursive programs
against the closed form (M by geometric Jacobians), numeric and symbolic parameters.

Usage: ``python benchmarks/bench_robot.py [--closed]`` (``--closed`` also counts the
closed-form M, which takes much longer).

``python benchmarks/bench_robot.py --routes [--skip-closed=panda]``: for UR5, Panda and
PUMA 560 (numeric parameters, g bound) and each ``lambdify`` route, the generation time,
op counts per kernel, and forward dynamics µs per state (one state, batch of 10⁴) on the
numpy and C backends; Pinocchio's ``aba``/``rnea`` in the same process when ``pin`` and
``example-robot-data`` are installed. Results: ``benchmarks/RESULTS.md``.
"""

import sys
import time
from functools import partial

import symengine as se
import sympy as sp

import lagdyn as ld
from lagdyn.cli import opcounts
from lagdyn.recursive.algebra import _floats
from lagdyn.robot.system import closed_form_symengine


def counts(closed):
    """Build time and op counts of each recursive program (and the closed-form M)."""
    print(
        f"{'arm':10} {'params':9} {'build':>6} "
        + " ".join(f"{k:>14}" for k in ("M", "h", "tau", "g", "qdd", "C"))
    )
    for name in ("puma560", "ur5", "panda"):
        for parameters in ("numeric", "symbolic"):
            start = time.perf_counter()
            arm = ld.zoo.get(name, parameters=parameters)
            built = time.perf_counter() - start
            cells = []
            for key in ("M", "h", "tau", "g", "qdd", "C"):
                prog = arm.program(key)
                cells.append(f"{prog.count_ops():6d} {prog.seconds:5.2f}s")
            print(f"{name:10} {parameters:9} {built:5.2f}s " + " ".join(f"{c:>14}" for c in cells))
            if closed:
                start = time.perf_counter()
                M, _U, _q = closed_form_symengine(arm.chain)
                entries = [M[i, j] for i in range(arm.n) for j in range(i, arm.n)]
                t_build = time.perf_counter() - start
                repl, red = se.cse(entries)
                ops = sum(sp.count_ops(_floats(sp.sympify(e))) for _, e in repl) + sum(
                    sp.count_ops(_floats(sp.sympify(e))) for e in red
                )
                print(
                    f"{'':10} closed-form M (Jacobians, symengine): {t_build:.2f} s, {ops} ops after CSE"
                )


# ---------------------------------------------------------------------- lambdify routes
def _same(value):
    """``value`` itself (a builder for ``Backend.build`` bound to one program)."""
    return value


def _kernel_ops(prog):
    """Operation count (sympy count_ops) per kernel: its body and outputs as generated,
    rational coefficients counted as one multiplication (the C printer writes ``(p/q)*x``,
    which the compiler folds), not as a multiplication and a division."""
    return {
        name: int(
            sum(sp.count_ops(_floats(e)) for _, e in k.body)
            + sum(sp.count_ops(_floats(e)) for e in k.outputs)
        )
        for name, k in prog.kernels.items()
    }


def _min_us(fn, number, repeat=5):
    import timeit

    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def _pinocchio(name):
    """Pinocchio's (aba, rnea) µs per one-state call on the arm's URDF, or None."""
    try:
        import numpy as np
        import pinocchio as pin

        from lagdyn.robot._data import urdf_path
    except ImportError:
        return None
    files = {
        "ur5": ("ur_description", "ur5_robot.urdf"),
        "panda": ("panda_description", "panda.urdf"),
    }
    if name not in files:
        return None
    try:
        path = urdf_path(*files[name])
    except ImportError:
        return None
    model = pin.buildModelFromUrdf(str(path))
    if name == "panda":
        locked = [model.getJointId(n) for n in ("panda_finger_joint1", "panda_finger_joint2")]
        model = pin.buildReducedModel(model, locked, pin.neutral(model))
    data = model.createData()
    rng = np.random.default_rng(0)
    q = pin.randomConfiguration(model)
    v, a = rng.uniform(-1, 1, model.nv), rng.uniform(-1, 1, model.nv)
    aba = _min_us(lambda: pin.aba(model, data, q, v, a), 100_000)
    rnea = _min_us(lambda: pin.rnea(model, data, q, v, a), 100_000)
    crba = _min_us(lambda: pin.crba(model, data, q), 100_000)
    Q = [pin.randomConfiguration(model) for _ in range(2000)]
    V, A = rng.uniform(-1, 1, (2, 2000, model.nv))

    def loop():
        for i in range(2000):
            pin.aba(model, data, Q[i], V[i], A[i])

    loop_us = _min_us(loop, 1, repeat=5) / 2000
    return aba, rnea, loop_us, crba


def routes(names=("ur5", "panda", "puma560"), skip_closed=()):
    """Generation time, op counts and forward-dynamics timings per route and backend."""
    import numpy as np

    from lagdyn.codegen import Binding
    from lagdyn.numeric import NumericModel, backends
    from lagdyn.recursive.route import plan

    B = 10_000
    print(
        "\n| arm | route | generation s | ops M | ops C | ops bias | ops τ (inverse) "
        "| ops q̈ (forward) | numpy 1 state µs | numpy batch µs/state | C build s "
        "| C 1 state µs | C batch µs/state | C τ 1 state µs | C M 1 state µs |"
    )
    print("|" + " --- |" * 15)
    pins = {}
    for name in names:
        for route in ("recursive", "closed"):
            if route == "closed" and name in skip_closed:
                print(f"| {name} | closed | skipped | | | | | | | | | | |")
                continue
            arm = ld.zoo.get(name)  # fresh: nothing derived or cached on it
            binding = Binding(arm.parameters, {"g": 9.81})
            start = time.perf_counter()
            chosen, key, factory = plan(arm, binding, "numpy", route)
            prog = factory()
            gen = time.perf_counter() - start
            ops = _kernel_ops(prog)
            rng = np.random.default_rng(1)
            q1, v1, u1 = rng.uniform(-2, 2, (3, arm.n))
            Q, V, U = rng.uniform(-2, 2, (3, B, arm.n))
            cells = [f"{gen:.1f}"] + [
                str(ops[k]) for k in ("M", "C", "bias", "inverse_dynamics", "forward_dynamics")
            ]
            for be_name in ("numpy", "c"):
                be = backends.get(be_name)
                start = time.perf_counter()
                try:
                    kernels = be.build(partial(_same, prog), key + be_name, None)
                except ld.BackendUnavailableError:
                    cells += ["n/a"] * (5 if be_name == "c" else 2)
                    continue
                built = time.perf_counter() - start
                model = NumericModel(
                    arm, kernels, binding=binding, backend=be_name, key=key, route=chosen
                )
                model.forward_dynamics(Q, V, U)  # warm
                one = _min_us(partial(model.forward_dynamics, q1, v1, u1), 20_000)
                batch = _min_us(partial(model.forward_dynamics, Q, V, U), 1, repeat=5) / B
                if be_name == "c":
                    cells.append(f"{built:.1f}")
                cells += [f"{one:.2f}", f"{batch:.3f}"]
                if be_name == "c":
                    inv = _min_us(partial(model.inverse_dynamics, q1, v1, u1), 20_000)
                    mass = _min_us(partial(model.M, q1), 20_000)
                    cells += [f"{inv:.2f}", f"{mass:.2f}"]
            print(f"| {name} | {route} | " + " | ".join(cells) + " |", flush=True)
        pins[name] = _pinocchio(name)
    for name, p in pins.items():
        if p is None:
            print(f"\nPinocchio {name}: not measured (pin / example-robot-data / URDF missing)")
        else:
            print(
                f"\nPinocchio {name}: aba {p[0]:.2f} µs, rnea {p[1]:.2f} µs, crba {p[3]:.2f} µs per call; "
                f"aba in a Python loop over states {p[2]:.2f} µs/state"
            )


# ---------------------------------------------------------------------- ABA against CRBA
def planar_chain(n):
    """A planar nR arm of uniform unit rods, numeric (lagdyn.cli.opcounts.planar_chain)."""
    return opcounts.planar_chain(n, "numeric")


def spatial_chain(n):
    """A spatial nR arm with generic inertias, numeric (lagdyn.cli.opcounts.spatial_chain)."""
    return opcounts.spatial_chain(n, "numeric")


def _arm(name):
    if name.startswith("planar"):
        return planar_chain(int(name[6:]))
    if name.startswith("spatial"):
        return spatial_chain(int(name[7:]))
    return ld.zoo.get(name)


def forward_methods(names, batch=10_000):
    """Per arm and method: forward-dynamics ops after CSE, generation time of the route's
    forward kernel, C build time, one-call and batched µs per state on the C backend."""
    import numpy as np

    from lagdyn.codegen import Binding
    from lagdyn.numeric import NumericModel, backends
    from lagdyn.recursive.route import recursive_program

    print(
        "| chain | n | method | ops (CSE) | generation s | C build s | C 1 state µs "
        "| C batch µs/state |"
    )
    print("|" + " --- |" * 8)
    be = backends.get("c")
    for name in names:
        for method in ("crba", "aba"):
            arm = _arm(name)
            binding = Binding(arm.parameters, {"g": 9.81})
            start = time.perf_counter()
            prog = recursive_program(
                arm, binding, forward=method, outputs_wanted=("forward_dynamics",)
            )
            gen = time.perf_counter() - start
            k = prog.kernels["forward_dynamics"]
            ops = int(
                sum(sp.count_ops(_floats(e)) for _, e in k.body)
                + sum(sp.count_ops(_floats(e)) for e in k.outputs)
            )
            key = f"bench-forward-{name}-{method}-{time.time()}"
            start = time.perf_counter()
            kernels = be.build(partial(_same, prog), key, None)
            built = time.perf_counter() - start
            model = NumericModel(arm, kernels, binding=binding, backend="c", key=key)
            rng = np.random.default_rng(1)
            q1, v1, u1 = rng.uniform(-2, 2, (3, arm.n))
            Q, V, U = rng.uniform(-2, 2, (3, batch, arm.n))
            model.forward_dynamics(Q, V, U)
            one = _min_us(partial(model.forward_dynamics, q1, v1, u1), 20_000)
            many = _min_us(partial(model.forward_dynamics, Q, V, U), 1, repeat=7) / batch
            print(
                f"| {name} | {arm.n} | {method} | {ops} | {gen:.2f} | {built:.1f} "
                f"| {one:.2f} | {many:.3f} |",
                flush=True,
            )


if "--forward" in sys.argv:
    forward_methods(
        [a for a in sys.argv[1:] if not a.startswith("--")]
        or ["ur5", "panda", "puma560"]
        + [f"planar{n}" for n in (2, 3, 4, 6, 8, 10, 12)]
        + [f"spatial{n}" for n in (2, 3, 4, 6, 8, 10, 12)]
    )
elif "--routes" in sys.argv:
    routes(
        skip_closed=tuple(a.split("=", 1)[1] for a in sys.argv if a.startswith("--skip-closed="))
    )
else:
    counts("--closed" in sys.argv)
