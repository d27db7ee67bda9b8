"""A whole vector-environment step as one generated C call (:class:`WholeStep`).

For a vector environment whose every piece has a symbolic or tabular description — a model
with a fused step kernel on the C backend, discrete torques or a Box of τ, the built-in
observations or a task's, a task's (or no) reward and termination, and a uniform reset box —
one call of one compiled function does, for every copy:

1. the action: the index checked and its row of the torque table looked up, or the Box
   action clipped and checked finite (an invalid action is an error, never undefined
   behaviour: the function returns before touching any state);
2. the integrator's step of the model's own generated dynamics (the ``step`` kernel of
   :func:`lagdyn.gym._core.step_program`, printed by :mod:`lagdyn.codegen.c`), repeated per
   substep, then the angles wrapped and the rates clipped in a separate loop (``floor`` and
   the clip's selects in a loop without calls, so gcc vectorizes both loops: the libmvec
   ``sin``/``cos`` calls forbid the if-conversion of a loop's selects);
3. the step counter, truncation, termination and reward;
4. the observations, written as float32 (or the environment's dtype) straight into the
   output arrays;
5. Gymnasium's autoreset of the copies that ended (``NextStep``, ``SameStep``; none for
   ``Disabled``), whose new initial states come from a counter-based generator: draw ``j`` of
   copy ``i``'s ``e``-th autoreset is SplitMix64's finaliser of ``(key, i, e, j)``, a double
   in [0, 1) from its top 53 bits, mapped to ``low + (high - low) u`` exactly as
   ``numpy.random.Generator.uniform`` maps its doubles; ``key`` is drawn from the
   environment's ``np_random`` at each ``reset()``. So autoresets are reproducible from
   ``reset(seed=...)`` and follow the task's reset distribution, but they are not the
   values ``np_random`` would have drawn;
6. the finiteness check of the new states (the copy that blew up is named).

The generated code is the sympy C printer's (the dynamics, termination, reward and
observation expressions) inside fixed C loops of this module; it is compiled with the C
backend's flags (``-O3``, ``-march=native``, OpenMP ``simd`` with glibc's vector ``sin`` and
``cos``, no ``-ffast-math``) and cached on disk like every lagdyn kernel.
"""

from __future__ import annotations

import hashlib
import logging
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import BackendUnavailableError, LagdynError, ShapeError
from ._core import BY_TERMINATION, EXPR, UNIFORM, Core, FusedStepper, fresh, step_program

__all__: list[str] = []  # internal; see lagdyn.gym.make_vec

log = logging.getLogger("lagdyn")

#: Bumped whenever the generated whole-step C changes shape (part of its cache key).
VSTEP_VERSION = "1"
#: Return codes of ``ld_vstep`` (the copy's index in ``*where``).
BAD_ACTION, NOT_FINITE = -1, -2
GOLDEN = 0x9E3779B97F4A7C15
#: Over the C backend's flags: no code traps on floating-point exceptions, which lets gcc
#: vectorize ``floor`` (the angle wrap) with ``vroundpd``. Values are unchanged (this flag
#: does not license any transformation that changes a result, unlike ``-ffast-math``).
EXTRA_FLAGS = ("-fno-trapping-math",)


def _printer() -> Any:
    from ..codegen.c import CPrinter

    class Printer(CPrinter):
        """Booleans as branch-free integer arithmetic (``|``, ``&``, ``!``): no ``||``."""

        def _print_Or(self, expr: Any) -> str:
            return "(" + " | ".join(f"({self._print(a)})" for a in expr.args) + ")"

        def _print_And(self, expr: Any) -> str:
            return "(" + " & ".join(f"({self._print(a)})" for a in expr.args) + ")"

        def _print_Not(self, expr: Any) -> str:
            return f"(!({self._print(expr.args[0])}))"

        def _print_BooleanTrue(self, expr: Any) -> str:
            return "1"

        def _print_BooleanFalse(self, expr: Any) -> str:
            return "0"

    return Printer()


def _syms(prefix: str, k: int) -> list[sp.Symbol]:
    return [sp.Symbol(f"{prefix}_{i}", real=True) for i in range(k)]


def _block(value: Any) -> tuple[list[tuple[sp.Symbol, Any]], Any]:
    """A spec's result: ``expr`` or ``(assignments, expr)``."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], list):
        return value[0], value[1]
    return [], value


def _f(x: float) -> str:
    from ..codegen.common import float_text

    return float_text(x)


def _wrap_expr(a: sp.Expr) -> sp.Expr:
    """``a - 2π floor((a + π) / 2π)``, the numpy ``wrap`` of :mod:`lagdyn.gym._core`."""
    return a - 2 * sp.pi * sp.floor((a + sp.pi) / (2 * sp.pi))


# --------------------------------------------------------------------------- eligibility
def observation_exprs(core: Core, y: Sequence[sp.Symbol]) -> Any:
    """The observation of the state ``y`` as expressions, or None (no description)."""
    obs = core.observations
    if obs.kind == "state":
        return list(y)
    if obs.kind == "wrapped":
        return [_wrap_expr(v) if i in obs.angles else v for i, v in enumerate(y)]
    if obs.kind == "sincos":
        n = obs.n
        out: list[Any] = []
        for i in range(n):
            out += [sp.cos(y[i]), sp.sin(y[i])] if i in obs.angles else [y[i]]
        return out + list(y[n:])
    spec = getattr(obs.callable, EXPR, None)
    return None if spec is None or not obs.fresh else spec(list(y))


def plan(core: Core, mode: str) -> dict[str, Any] | None:
    """What the whole-step function needs from ``core``, or None when some piece has no
    symbolic description (a user's callable): the environment then steps in Python around
    the step kernel."""
    stepper = core.stepper
    if not isinstance(stepper, FusedStepper) or stepper.backend != "c":
        return None
    if stepper.direct() is None:
        return None
    n = core.model.n
    S = 2 * n
    y, z = _syms("y", S), _syms("z", S)
    u = _syms("u", core.actions.m)
    obs = observation_exprs(core, y)
    if obs is None or core.observations.dtype not in (np.float32, np.float64):
        return None
    termination = None
    if core.termination is not None:
        spec = getattr(core.termination, EXPR, None)
        if spec is None or not fresh(core.termination):
            return None
        termination = spec(list(y))
    reward: Any = sp.Float(0.0)
    pair = None
    if core.reward is not None:
        pair = getattr(core.reward, BY_TERMINATION, None)
        spec = getattr(core.reward, EXPR, None)
        if not fresh(core.reward) or (pair is None and spec is None):
            return None
        if pair is not None and termination is not None:
            reward = None
        else:
            if spec is None:
                return None
            pair = None
            reward = spec(list(z), list(u), list(y))
    uniform = getattr(core.reset, UNIFORM, None)
    if uniform is None or not fresh(core.reset):
        return None
    low, high, f32, shift = uniform
    low = np.asarray(low, dtype=np.float64).reshape(S)
    high = np.asarray(high, dtype=np.float64).reshape(S)
    shift = np.asarray(shift, dtype=np.float64).reshape(S)
    if not (np.isfinite(low).all() and np.isfinite(high - low).all()):
        return None
    return dict(
        n=n,
        y=y,
        z=z,
        u=u,
        obs=obs,
        termination=termination,
        reward=reward,
        pair=None if pair is None else (float(pair[0]), float(pair[1])),
        low=low,
        span=high - low,  # numpy's uniform: low + (high - low) * u
        f32=bool(f32),
        shift=shift,
        mode=mode,
    )


# --------------------------------------------------------------------------- C source
def _function(
    head: str, assigns: Sequence[tuple[sp.Symbol, Any]], lines: Sequence[str], pr: Any
) -> list[str]:
    out = [head + " {"]
    out += [f"    const double {s} = {pr.doprint(e)};" for s, e in assigns]
    out += [f"    {line}" for line in lines]
    return [*out, "}"]


def _reads(name: str, syms: Sequence[sp.Symbol], used: set[Any]) -> list[str]:
    return [f"const double {s} = {name}[{i}];" for i, s in enumerate(syms) if s in used]


def _used(*exprs: Any) -> set[Any]:
    out: set[Any] = set()
    for e in exprs:
        if isinstance(e, (list, tuple)):
            out |= _used(*e)
        elif isinstance(e, sp.Basic):
            out |= e.free_symbols
    return out


def extra_source(core: Core, p: dict[str, Any]) -> tuple[str, str]:
    """The C of everything but the dynamics (``ld_vstep`` and its helpers) and its cdef.

    It is generated without the model's program (so it keys the cache cheaply); the
    dynamics' ``step_state`` is printed before it by :func:`source`.
    """
    pr = _printer()
    n, S = p["n"], 2 * p["n"]
    y, z, u = p["y"], p["z"], p["u"]
    actions = core.actions
    m = actions.m
    otype = "float" if core.observations.dtype == np.float32 else "double"
    K = len(p["obs"])
    src: list[str] = ["#include <stdint.h>", "#include <float.h>"]

    # post-step rules: angles wrapped, rates clipped (a call-free loop: selects if-convert)
    wrap = list(core.wrap)
    lim = core.velocity_limits
    lines = []
    w = sp.Symbol("w", real=True)
    for i in wrap:
        lines.append(f"{{ const double w = y[{i}]; y[{i}] = {pr.doprint(_wrap_expr(w))}; }}")
    settle_lines = list(lines)
    if lim is not None:
        for i, v in enumerate(lim):
            if math.isfinite(v):
                j = n + i
                lines.append(f"{{ const double c = y[{j}] > {_f(v)} ? {_f(v)} : y[{j}];")
                lines.append(f"  y[{j}] = c < {_f(-v)} ? {_f(-v)} : c; }}")
    src += ["LD_INLINE void ld_post(double *y) {", *(f"    {x}" for x in lines), "}"]
    src += ["LD_INLINE void ld_settle(double *y) {", *(f"    {x}" for x in settle_lines), "}"]

    # observation, termination, reward
    oa: list[tuple[sp.Symbol, Any]] = []
    oexprs = p["obs"]
    used = _used(oexprs)
    src += _function(
        f"LD_INLINE void ld_observe(const double *y, {otype} *o)",
        oa,
        [
            *_reads("y", y, used),
            "(void)y;",
            *(f"o[{j}] = ({otype})({pr.doprint(sp.sympify(e))});" for j, e in enumerate(oexprs)),
        ],
        pr,
    )
    term = p["termination"]
    if term is None:
        src += ["LD_INLINE int ld_terminated(const double *y) { (void)y; return 0; }"]
    else:
        ta, te = _block(term)
        used = _used(te, [e for _, e in ta])
        src += [
            "LD_INLINE int ld_terminated(const double *y) {",
            *(f"    {r}" for r in _reads("y", y, used)),
            *(f"    const double {s} = {pr.doprint(e)};" for s, e in ta),
            f"    return ({pr.doprint(sp.sympify(te))}) != 0;",
            "}",
        ]
    if p["pair"] is not None:
        on, off = p["pair"]
        body = [f"return d * {_f(on)} + (1 - d) * {_f(off)};"]  # exact for d in {0, 1}
        ra: list[Any] = []
        used = set()
    else:
        ra, re = _block(p["reward"])
        used = _used(re, [e for _, e in ra])
        body = [f"return {pr.doprint(sp.sympify(re))};"]
    src += [
        "LD_INLINE double ld_reward(const double *z, const double *u, const double *y, int d) {",
        "    (void)z; (void)u; (void)y; (void)d;",
        *(f"    {r}" for r in _reads("z", z, used)),
        *(f"    {r}" for r in _reads("u", u, used)),
        *(f"    {r}" for r in _reads("y", y, used)),
        *(f"    const double {s} = {pr.doprint(e)};" for s, e in ra),
        *(f"    {b}" for b in body),
        "}",
    ]

    # the counter-based reset draw
    draws = []
    for j in range(S):
        v = f"{_f(p['low'][j])} + {_f(p['span'][j])} * ld_unit(ld_mix(base + {j + 1}ULL * G))"
        if p["f32"]:
            v = f"(double)(float)({v})"
        if p["shift"][j] != 0.0:
            v = f"({v}) - {_f(p['shift'][j])}"
        draws.append(f"y[{j}] = {v};")
    src += [
        "static inline uint64_t ld_mix(uint64_t z) {",
        "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;",
        "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;",
        "    return z ^ (z >> 31);",
        "}",
        "static inline double ld_unit(uint64_t r) { return (double)(r >> 11) * 0x1.0p-53; }",
        "static inline void ld_draw(uint64_t key, long i, uint64_t e, double *y) {",
        f"    const uint64_t G = {GOLDEN:#x}ULL;",
        "    const uint64_t base = ld_mix(ld_mix(key + ((uint64_t)i + 1) * G) + e * G);",
        *(f"    {d}" for d in draws),
        "    ld_settle(y);",
        "}",
    ]

    # the actions
    if actions.kind == "discrete":
        table = actions.full_table
        rows = ", ".join(_f(v) for v in table.reshape(-1))
        act = [
            "    const int64_t *a = (const int64_t *)actions;",
            f"    static const double table[{table.size}] = {{{rows}}};",
            "    uint64_t bad = 0;",
            "#pragma omp simd reduction(|:bad)",
            f"    for (long i = 0; i < N; ++i) bad |= (uint64_t)((uint64_t)a[i] >= {actions.k}U);",
            "    if (bad) {",
            "        for (long i = 0; i < N; ++i)",
            f"            if ((uint64_t)a[i] >= {actions.k}U) "
            f"{{ *where = i; return {BAD_ACTION}; }}",
            "    }",
            "#pragma omp simd",  # the lookups here, not as gathers in the dynamics' loop
            "    for (long i = 0; i < N; ++i) {",
            f"        const double *row = table + a[i] * {n};",
            *(f"        tau[i * {n} + {j}] = row[{j}];" for j in range(n)),
            "    }",
        ]
    else:
        lo, hi = actions.low, actions.high
        loop = []
        for j in range(m):
            loop.append(f"        double c{j} = a[i * {m} + {j}];")
            if math.isfinite(lo[j]):
                loop.append(f"        c{j} = c{j} < {_f(lo[j])} ? {_f(lo[j])} : c{j};")
            if math.isfinite(hi[j]):
                loop.append(f"        c{j} = c{j} > {_f(hi[j])} ? {_f(hi[j])} : c{j};")
            loop.append(f"        bad |= !(fabs(c{j}) <= DBL_MAX);")
        zero = [f"        tau[i * {n} + {c}] = 0.0;" for c in range(n) if c not in actions.actuated]
        put = [f"        tau[i * {n} + {c}] = c{j};" for j, c in enumerate(actions.actuated)]
        act = [
            "    const double *a = (const double *)actions;",
            "    int bad = 0;",
            "#pragma omp simd reduction(|:bad)",
            "    for (long i = 0; i < N; ++i) {",
            *loop,
            *zero,
            *put,
            "    }",
            "    if (bad) {",
            "        for (long i = 0; i < N; ++i) {",
            *(
                f"            if (!(fabs(tau[i * {n} + {c}]) <= DBL_MAX)) "
                f"{{ *where = i; return {BAD_ACTION}; }}"
                for c in actions.actuated
            ),
            "        }",
            "    }",
        ]

    substeps = core.stepper.substeps
    limit = core.max_episode_steps
    mode = p["mode"]
    time_arg = f"(double)steps[i] * {_f(core.dt)} + s * params[NP - 1]" if core.timed else "0.0"
    tv = f"        const double *tv = tau + i * {n};"  # τ of copy i
    trunc = f"k >= {int(limit)}" if limit is not None else "0"
    outcome = [
        f"        const double *y = xd + i * {S};",
        "        const int64_t k = steps[i] + 1;",
        "        const int d = ld_terminated(y);",
        "        steps[i] = k;",
        "        term[i] = (unsigned char)d;",
        f"        trunc[i] = (unsigned char)({trunc});",
        f"        double uu[{m}];",
        *(f"        uu[{j}] = tv[{c}];" for j, c in enumerate(actions.actuated)),
        f"        rew[i] = ld_reward(xs + i * {S}, uu, y, d);",
        f"        ld_observe(y, obs + i * {K});",
        f"        acc += {' + '.join(f'y[{j}]' for j in range(S))};",
    ]
    post = bool(wrap) or (lim is not None and bool(np.isfinite(lim).any()))
    if not post and substeps == 1:  # one loop: action, dynamics, outcome
        dyn = [
            "    double acc = 0.0;",
            "    const int s = 0; (void)s;",
            "#pragma omp simd reduction(+:acc)",
            "    for (long i = 0; i < N; ++i) {",
            tv,
            f"        step_state(xs + i * {S}, 0, tv, params, {time_arg}, xd + i * {S});",
            *outcome,
            "    }",
        ]
    else:
        dyn = [
            f"    for (int s = 0; s < {substeps}; ++s) {{",
            "        const double *src = s == 0 ? xs : xd;",
            "#pragma omp simd",
            "        for (long i = 0; i < N; ++i) {",
            "    " + tv,
            f"            step_state(src + i * {S}, 0, tv, params, {time_arg}, xd + i * {S});",
            "        }",
        ]
        if post:  # selects and floor: a loop without calls, so that it vectorizes
            dyn += [
                "#pragma omp simd",
                f"        for (long i = 0; i < N; ++i) ld_post(xd + i * {S});",
            ]
        dyn += [
            "    }",
            "    double acc = 0.0;",
            "#pragma omp simd reduction(+:acc)",
            "    for (long i = 0; i < N; ++i) {",
            tv,
            *outcome,
            "    }",
        ]
    # a sum that is not finite: look for the copy (a finite sum overflowing is no error)
    finite = [
        "    if (!(fabs(acc) <= DBL_MAX)) {",
        "        for (long i = 0; i < N; ++i)",
        f"            for (int j = 0; j < {S}; ++j)",
        f"                if (!(fabs(xd[i * {S} + j]) <= DBL_MAX)) "
        f"{{ *where = i; return {NOT_FINITE}; }}",
        "    }",
    ]
    reset_row = [
        f"            double *y = xd + i * {S};",
        "            ld_draw(key, i, episodes[i]++, y);",
        "            steps[i] = 0;",
        f"            ld_observe(y, obs + i * {K});",
    ]
    if mode == "NEXT_STEP":
        tail = [
            "    for (long i = 0; i < N; ++i)",
            "        if (restart[i]) {",
            *reset_row,
            "            rew[i] = 0.0; term[i] = 0; trunc[i] = 0;",
            "        }",
            *finite,
            "#pragma omp simd",
            "    for (long i = 0; i < N; ++i) restart[i] = (unsigned char)(term[i] | trunc[i]);",
            "    return 0;",
        ]
    elif mode == "SAME_STEP":
        tail = [
            *finite,
            "    long ended = 0;",
            "    for (long i = 0; i < N; ++i)",
            "        if (term[i] | trunc[i]) {",
            f"            for (int j = 0; j < {K}; ++j) final[i * {K} + j] = obs[i * {K} + j];",
            *reset_row,
            "            ++ended;",
            "        }",
            "    return ended;",
        ]
    else:
        tail = [*finite, "    return 0;"]
    stepper = core.stepper
    assert isinstance(stepper, FusedStepper)  # checked by plan()
    nparams = len(stepper.p.reshape(-1))
    # every buffer in one context set up once: a step call passes three arguments
    ctx = (
        "typedef struct {\n"
        "    long N;\n"
        "    double *x[2];\n"
        "    double *tau;\n"
        "    int64_t *steps;\n"
        "    unsigned char *restart;\n"
        f"    {otype} *obs[2];\n"
        "    double *rew[2];\n"
        "    unsigned char *term[2];\n"
        "    unsigned char *trunc[2];\n"
        f"    {otype} *final;\n"
        "    const double *params;\n"
        "    uint64_t key;\n"
        "    uint64_t *episodes;\n"
        "    long where;\n"
        "} ld_ctx;\n"
    )
    sig = "long ld_vstep(const void *actions, ld_ctx *c, int cur)"
    src += [
        ctx,
        f"#define NP {nparams}",
        sig + " {",
        "    const long N = c->N;",
        "    const double *xs = c->x[cur];",
        "    double *xd = c->x[1 - cur];",
        "    double *tau = c->tau;",
        "    int64_t *steps = c->steps;",
        "    unsigned char *restart = c->restart;",
        f"    {otype} *obs = c->obs[cur];",
        "    double *rew = c->rew[cur];",
        "    unsigned char *term = c->term[cur];",
        "    unsigned char *trunc = c->trunc[cur];",
        f"    {otype} *final = c->final;",
        "    const double *params = c->params;",
        "    const uint64_t key = c->key;",
        "    uint64_t *episodes = c->episodes;",
        "    long *where = &c->where;",
        "    (void)restart; (void)final; (void)key; (void)episodes;",
        *act,
        *dyn,
        *tail,
        "}",
    ]
    # the same call straight from Python (METH_FASTCALL): vstep(actions, ctx address, cur)
    # with the actions as the kernel reads them; any other array returns NotImplemented
    # and the caller converts it and calls through cffi
    if actions.kind == "discrete":
        layout = "PyArray_TYPE(a) != NPY_INT64 || PyArray_NDIM(a) != 1"
    else:
        layout = (
            f"PyArray_TYPE(a) != NPY_DOUBLE || PyArray_NDIM(a) != 2 || PyArray_DIM(a, 1) != {m}"
        )
    src += [
        "#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION",
        "#include <numpy/arrayobject.h>",
        "static PyObject *py_vstep(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {",
        "    (void)self;",
        "    if (nargs != 3 || !PyArray_CheckExact(args[0])) Py_RETURN_NOTIMPLEMENTED;",
        "    PyArrayObject *a = (PyArrayObject *)args[0];",
        "    ld_ctx *c = (ld_ctx *)PyLong_AsVoidPtr(args[1]);",
        "    const long cur = PyLong_AsLong(args[2]);",
        "    if (c == NULL || (cur != 0 && cur != 1)) {",
        '        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad context");',
        "        return NULL;",
        "    }",
        f"    if ({layout} || PyArray_DIM(a, 0) != c->N",
        "        || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a)",
        "        || !PyArray_ISNOTSWAPPED(a)) Py_RETURN_NOTIMPLEMENTED;",
        "    return PyLong_FromLong(ld_vstep(PyArray_DATA(a), c, (int)cur));",
        "}",
        ccode_table(),
    ]
    cdef = ctx + sig + ";\nvoid *ld_pyfast(void);\n"
    return "\n".join(src) + "\n", cdef


def ccode_table() -> str:
    """``ld_pyfast()``: the module's METH_FASTCALL functions as a dict (codegen's template)."""
    from ..codegen import c as ccode

    entry = '    {"vstep", (PyCFunction)(void (*)(void))py_vstep, METH_FASTCALL, NULL},'
    return ccode._FAST_TABLE.substitute(entries=entry)


def source(program: Any, extra: str, key: str, simd: bool) -> str:
    """The whole C module: the dynamics' ``step_state`` (the codegen printer), then
    :func:`extra_source`."""
    from ..codegen import c as ccode

    k = program.kernels["step"]
    head = [
        f"// lagdyn-key: {key}",
        "// one vector-environment step of lagdyn.gym (lagdyn.gym._vstep)",
        *[f"// {c}" for c in program.comments()],
        "#include <math.h>",
        "#if defined(__GNUC__) || defined(__clang__)",
        "#define LD_INLINE static inline __attribute__((always_inline))",
        "#else",
        "#define LD_INLINE static inline",
        "#endif",
    ]
    if simd:
        head += [
            "#pragma omp declare simd notinbranch",
            "double sin(double);",
            "#pragma omp declare simd notinbranch",
            "double cos(double);",
        ]
    body = ccode._state_body(program, k, ccode.CPrinter())
    return "\n".join([*head, *body]) + "\n" + extra


# --------------------------------------------------------------------------- build
def _compile(make_source: Callable[[str, bool], str], cdef: str, key: str) -> Any:
    """The compiled module (from the disk cache when it is there), as the C backend builds
    its modules."""
    import importlib.machinery

    from ..codegen.cache import DiskCache, seal, sha256_bytes
    from ..numeric.backends import compiled as cb

    try:
        import cffi  # noqa: F401  (missing cffi fails early, before the cache)
    except ImportError as exc:
        raise BackendUnavailableError(f"the whole-step kernel needs cffi: {exc}") from exc
    flags = " ".join(EXTRA_FLAGS)
    key = hashlib.sha256(f"{key}|{cb._toolchain_fingerprint()}|{flags}".encode()).hexdigest()
    modname = f"_lagdyn_vstep_{key[:24]}"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    cache = DiskCache()
    hit = cb._load_cached(cache, key, modname, suffix)
    if hit is not None:
        return hit[1]
    cflags, lflags, simd = cb._probe_flags()
    body = make_source(key, simd)
    with cache.build_dir() as tmp:
        built, data, seconds = cb._compile_module(
            modname,
            cdef,
            seal(body, "//"),
            [*cflags, *EXTRA_FLAGS],
            lflags,
            tmp,
            what="compiling the whole-step kernel",
        )
        log.info("lagdyn.gym: compiled %s in %.2f s", modname, seconds)
        so_path = cache.store_bytes(cache.path(key, suffix), data)
        if so_path is not None:
            cache.store_text(key, ".c", body, "//")
            manifest = f"// lagdyn-key: {key}\nmodule: {modname}\nso-sha256: {sha256_bytes(data)}\n"
            cache.store_text(key, ".c.manifest", manifest, "//")
        return cb._load_extension(modname, built)


# --------------------------------------------------------------------------- runtime
class WholeStep:
    """The compiled whole step of ``num_envs`` copies and its preallocated buffers.

    ``state`` is the current states ``(N, 2n)`` (one of two buffers the steps alternate);
    ``steps`` and ``restart`` are the environment's own arrays (written in place).
    """

    def __init__(
        self,
        core: Core,
        num_envs: int,
        mode: str,
        steps: np.ndarray,
        restart: np.ndarray,
    ) -> None:
        p = plan(core, mode)
        if p is None:
            raise LookupError("no symbolic description")
        from ..codegen import c as ccode
        from ..numeric.backends import compiled as cb
        from ..numeric.lambdify import plan_program

        model, stepper = core.model, core.stepper
        assert isinstance(stepper, FusedStepper)  # checked by plan()
        extra, cdef = extra_source(core, p)
        _, plan_key, factory = plan_program(model.system, model.binding, "c", model.route)
        text = (
            f"lagdyn-gym-vstep-{VSTEP_VERSION}|{plan_key}|{core.integrator}|{ccode.RUNTIME_VERSION}"
        )
        key = hashlib.sha256((text + "\n" + extra).encode()).hexdigest()

        def make_source(k: str, simd: bool) -> str:
            return source(step_program(factory(), core.integrator), extra, k, simd)

        module = _compile(make_source, cdef, key)
        self.ffi, self.fn = module.ffi, module.lib.ld_vstep
        self._fast = cb._c_array_functions(module.ffi, module.lib).get("vstep")
        ffi = self.ffi
        N, n = num_envs, core.model.n
        self.N, self.mode, self._dt = N, mode, core.dt
        self.odtype = core.observations.dtype
        K = len(p["obs"])
        self.K = K
        otype = "float[]" if self.odtype == np.float32 else "double[]"
        self._otype = otype
        self.discrete = core.actions.kind == "discrete"
        self.m = core.actions.m
        self.k = getattr(core.actions, "k", 0)
        self.xb = [np.zeros((N, 2 * n)), np.zeros((N, 2 * n))]
        self.cur = 0
        self.tau = np.zeros((N, n))
        self.episodes = np.zeros(N, dtype=np.uint64)
        self.final = np.zeros((N, K), dtype=self.odtype)
        self.steps = steps
        buf = ffi.from_buffer
        ctx = self.ctx = ffi.new("ld_ctx *")
        self._keep = [
            buf("double[]", self.xb[0]),
            buf("double[]", self.xb[1]),
            buf("double[]", self.tau),
            buf("int64_t[]", steps),
            buf("unsigned char[]", restart),
            buf(otype, self.final),
            buf("double[]", stepper.p),
            buf("uint64_t[]", self.episodes),
        ]
        ctx.N = N
        ctx.x[0], ctx.x[1], ctx.tau, ctx.steps, ctx.restart = self._keep[:5]
        ctx.final, ctx.params, ctx.episodes = self._keep[5:]
        ctx.key = 0
        self._outs: list[Any] = [None, None]
        for c in (0, 1):
            self._set_outputs(c)
        self._held = sys.getrefcount(self._outs[0][0])  # the pool's own references
        self._fn, self._from_buffer = self.fn, ffi.from_buffer
        self._address = int(ffi.cast("uintptr_t", ctx))

    def _set_outputs(self, c: int) -> tuple[np.ndarray, ...]:
        """New output arrays for the steps from buffer ``c``."""
        N, buf, ctx = self.N, self.ffi.from_buffer, self.ctx
        outs = (
            np.empty((N, self.K), dtype=self.odtype),
            np.empty(N),
            np.empty(N, dtype=bool),
            np.empty(N, dtype=bool),
        )
        ptrs = (
            buf(self._otype, outs[0]),
            buf("double[]", outs[1]),
            buf("unsigned char[]", outs[2]),
            buf("unsigned char[]", outs[3]),
        )
        ctx.obs[c], ctx.rew[c], ctx.term[c], ctx.trunc[c] = ptrs
        self._outs[c] = outs
        self._ptrs = getattr(self, "_ptrs", {})
        self._ptrs[c] = ptrs  # keeps the buffers' cdata alive
        return outs

    @property
    def state(self) -> np.ndarray:
        return self.xb[self.cur]

    def rekey(self, rng: np.random.Generator) -> None:
        """A new key for the autoreset draws, from the environment's generator."""
        self.ctx.key = int(rng.integers(0, 2**64, dtype=np.uint64))
        self.episodes[:] = 0

    def actions(self, actions: Any) -> np.ndarray:
        """``actions`` as the kernel reads them (int64 ``(N,)`` or float64 ``(N, m)``)."""
        a = actions if type(actions) is np.ndarray else np.asarray(actions)
        if self.discrete:
            if a.shape != (self.N,) or a.dtype.kind not in "iu":
                raise ShapeError(
                    f"actions must be integers of shape ({self.N},) (Discrete({self.k})); got "
                    f"{a.dtype} of shape {a.shape}"
                )
            if a.dtype.kind == "u" and a.size and int(a.max()) >= self.k:
                bad = int(a[a >= self.k][0])
                raise LagdynError(
                    f"actions must be in 0..{self.k - 1} (Discrete({self.k})); got {bad}"
                )
            return np.ascontiguousarray(a, dtype=np.int64)
        shape = (self.N, self.m)
        if a.shape != shape:
            raise ShapeError(
                f"actions must have shape {shape} (τ on {self.m} actuated coordinates); "
                f"got {a.shape}"
            )
        if a.dtype.kind not in "fiu":
            raise ShapeError(f"actions must be real numbers, got dtype {a.dtype}")
        return np.ascontiguousarray(a, dtype=np.float64)

    def __call__(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """One step: ``(obs, rewards, terminated, truncated, ended)`` (``ended``: the copies
        restarted in this step, ``SameStep``)."""
        cur = self.cur
        outs = self._outs[cur]
        # The output arrays are reused only when nobody else holds them (nor a view of
        # them): an array a step returned is never overwritten while it is referenced.
        held, refs = self._held, sys.getrefcount
        if (
            refs(outs[0]) > held
            or refs(outs[1]) > held
            or refs(outs[2]) > held
            or refs(outs[3]) > held
        ):
            outs = self._set_outputs(cur)
        a = actions
        fast = self._fast
        rc = fast(a, self._address, cur) if fast is not None else NotImplemented
        if rc is NotImplemented:  # not an array the kernel reads as it is: convert it
            a = self.actions(a)
            rc = self._fn(self._from_buffer(a), self.ctx, cur)
        if rc < 0:
            self._fail(rc, a)
        self.cur = 1 - cur
        return (*outs, rc)

    def _fail(self, rc: int, a: np.ndarray) -> None:
        i = int(self.ctx.where)
        if rc == BAD_ACTION:
            if self.discrete:
                raise LagdynError(
                    f"actions must be in 0..{self.k - 1} (Discrete({self.k})); got {int(a[i])}"
                )
            raise LagdynError(
                f"the action of environment {i} is not finite ({a[i].tolist()}); "
                "actions must be real numbers"
            )
        x = self.xb[1 - self.cur][i]
        t = float(self.steps[i]) * self._dt
        raise LagdynError(
            f"environment {i}: the state became NaN or infinite in the step to "
            f"t = {t:.6g} ({x.tolist()}); use a smaller dt (or substeps=), bound the actions "
            "(action_space=), or terminate the episode before the motion blows up "
            "(termination=)"
        )


def whole_step(
    core: Core, num_envs: int, mode: str, steps: np.ndarray, restart: np.ndarray
) -> WholeStep | None:
    """The :class:`WholeStep` of ``core``, or None (no symbolic description, or no C)."""
    try:
        ws = WholeStep(core, num_envs, mode, steps, restart)
    except LookupError:
        return None
    except BackendUnavailableError as exc:
        log.info("lagdyn.gym: no whole-step kernel (%s)", exc)
        return None
    return ws
