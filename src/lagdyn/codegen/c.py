"""C99: the runtime extension module (cffi) and the exported ``NAME.h``/``NAME.c``.

Both are printed by one :class:`CPrinter` from the same kernels. The runtime module
has, per kernel, an inline per-state body, a one-state entry ``ld_<name>_1`` (every
input a double by value), a batched loop with its OpenMP dispatcher (one template,
instantiated per kernel), and — without per-call parameters — a METH_FASTCALL
CPython entry point ``f(q, qd, x, t)`` that returns a fresh ndarray.
"""

from __future__ import annotations

from string import Template

import sympy as sp
from sympy.printing.c import C99CodePrinter

from ..errors import LagdynError
from .common import PrinterMixin, code_name, describe, header_lines, kernel_args, prod, reads
from .ir import HEADER, Kernel, Program
from .python import slot_symbols

__all__ = [
    "RUNTIME_VERSION",
    "SOA_LANES",
    "SOA_VERSION",
    "CPrinter",
    "export_files",
    "runtime_source",
    "soa_functions",
]

#: Bumped whenever the runtime module's C changes for the same program (part of the C
#: backend's cache key, so that a cached module built from older C is not loaded).
RUNTIME_VERSION = "2"


class CPrinter(PrinterMixin, C99CodePrinter):
    """C99 for one state; small integer powers as products (no ``pow`` call).

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.c import CPrinter
    >>> CPrinter().doprint(sp.Symbol("x") ** 3)
    '(x*x*x)'
    """

    def _print_Pow(self, expr: sp.Pow) -> str:
        return self.small_power(expr) or str(super()._print_Pow(expr))


# ------------------------------------------------------------------ runtime module
#: Kernels of at most this many statements (intermediates and outputs) have their per-state
#: body forced inline (``always_inline``): gcc does not inline a large body into the
#: ``omp simd`` loop by itself, and the loop then calls scalar ``sin``/``cos`` one state at
#: a time instead of their vector versions.
INLINE_LIMIT = 200

#: Per-kernel part of the runtime module after the state body; ``$name``, ``$size``,
#: ``$n``, ``$x`` (name of the third slot), ``$args`` (one-state arguments), ``$vecs``.
_KERNEL = Template(
    """void ld_${name}_1($args, double *out, long i) {
$vecs
    ${name}_state(q, qd, $x, params, t, out + i * $size);
}
static const int ld_${name}_size = $size;
static const int ld_${name}_ndim = $ndim;
static const int ld_${name}_rows = $rows;
static const int ld_${name}_cols = $cols;
static void ${name}_range(long k0, long k1, const double *q, const double *qd,
                          const double *$x, long sx, const double *params, long sp,
                          const double *t, long st, double *out) {
$simd
    for (long k = k0; k < k1; ++k)
        ${name}_state(q + k * $n, qd + k * $n, $x + k * sx, params + k * sp, t[k * st],
                      out + k * $size);
}
void ld_$name(long N, const double *q, const double *qd, const double *$x, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads) {
#ifdef _OPENMP
    if (nthreads == 0) nthreads = omp_get_max_threads();
    if (nthreads > 1 && N >= 16384) {
#pragma omp parallel num_threads(nthreads)
        {
            long T = omp_get_num_threads(), i = omp_get_thread_num();
            ${name}_range(N * i / T, N * (i + 1) / T, q, qd, $x, sx, params, sp, t, st, out);
        }
        return;
    }
#endif
    (void)nthreads;
    ${name}_range(0, N, q, qd, $x, sx, params, sp, t, st, out);
}
"""
)
_CDEF = Template(
    """void ld_${name}_1($args, double *out, long i);
static const int ld_${name}_size;
static const int ld_${name}_ndim;
static const int ld_${name}_rows;
static const int ld_${name}_cols;
void ld_$name(long N, const double *q, const double *qd, const double *x, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads);
"""
)
#: Glue for the one-state CPython entry points; ``$n`` is the number of coordinates.
_FAST_PRELUDE = Template(
    """
/* One-state entry points called straight from Python (METH_FASTCALL): f(q, qd, x, t)
   with q, qd, x float64 arrays of shape (n,) (qd, x may be None) returns a fresh ndarray;
   any other input returns NotImplemented and the caller takes its general path. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
static const double ld_zeros[$n + 1] = {0};
static const double *ld_vec(PyObject *o) {
    if (!PyArray_CheckExact(o)) return NULL;
    PyArrayObject *a = (PyArrayObject *)o;
    if (PyArray_NDIM(a) != 1 || PyArray_DIM(a, 0) != $n || PyArray_TYPE(a) != NPY_DOUBLE
        || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a)) return NULL;
    return (const double *)PyArray_DATA(a);
}
static int ld_args(PyObject *const *args, Py_ssize_t nargs, const double **q,
                   const double **qd, const double **x, double *t) {
    if (nargs != 4) return 0;
    *q = ld_vec(args[0]);
    *qd = args[1] == Py_None ? ld_zeros : ld_vec(args[1]);
    *x = args[2] == Py_None ? ld_zeros : ld_vec(args[2]);
    if (!*q || !*qd || !*x || !PyFloat_CheckExact(args[3])) return 0;
    *t = PyFloat_AS_DOUBLE(args[3]);
    return 1;
}
static PyObject *ld_new(int ndim, npy_intp d0, npy_intp d1, double **data) {
    npy_intp dims[2] = {d0, d1};
    PyObject *o = PyArray_SimpleNew(ndim, dims, NPY_DOUBLE);
    if (o) *data = (double *)PyArray_DATA((PyArrayObject *)o);
    return o;
}
"""
)
_FAST_ARRAY = Template(
    """static PyObject *py_$name(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, *out; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *o = ld_new($ndim, $d0, $d1, &out);
    if (o) ${name}_state(q, qd, x, 0, t, out);
    return o;
}
"""
)
_FAST_SCALAR = Template(  # a scalar: numpy.float64, as the numpy backend returns
    """static PyObject *py_$name(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, v; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    ${name}_state(q, qd, x, 0, t, &v);
    PyArray_Descr *d = PyArray_DescrFromType(NPY_DOUBLE);
    PyObject *o = PyArray_Scalar(&v, d, NULL);
    Py_DECREF(d);
    return o;
}
"""
)
_FAST_TABLE = Template(
    """static PyMethodDef ld_defs[] = {
$entries
    {NULL, NULL, 0, NULL}
};
void *ld_pyfast(void) {
    PyGILState_STATE gil = PyGILState_Ensure(); /* cffi calls C without the GIL */
    PyObject *d = NULL;
    if (_import_array() < 0) { PyErr_Clear(); goto done; }
    d = PyDict_New();
    for (PyMethodDef *m = ld_defs; d && m->ml_name; ++m) {
        PyObject *f = PyCFunction_New(m, NULL);
        if (!f || PyDict_SetItemString(d, m->ml_name, f) < 0) { PyErr_Clear(); }
        Py_XDECREF(f);
    }
done:
    PyGILState_Release(gil);
    return d;
}
"""
)


def forced_inline(k: Kernel) -> bool:
    """Whether the per-state body of ``k`` is forced inline (:data:`INLINE_LIMIT`)."""
    return len(k.body) + len(k.outputs) <= INLINE_LIMIT


def _state_body(program: Program, k: Kernel, pr: CPrinter) -> list[str]:
    """``static inline void <name>_state(q, qd, x, params, t, out)`` (``LD_INLINE``: forced
    inline, so that the batched loop vectorizes it, when :func:`forced_inline`)."""
    slots = slot_symbols(program, k)
    x = slots[2][0]
    used = k.used_symbols()
    inline = "LD_INLINE" if forced_inline(k) else "static inline"
    out = [
        f"{inline} void {k.name}_state(const double *q, const double *qd, "
        f"const double *{x}, const double *params, double t, double *out) {{"
    ]
    out += [
        f"    const double {s} = {slot}[{i}];"
        for slot, syms in slots
        for i, s in enumerate(syms)
        if s in used
    ]
    out.append(f"    (void)q; (void)qd; (void){x}; (void)params; (void)t;")
    out += [f"    const double {code_name(s)} = {pr.doprint(e)};" for s, e in k.body]
    out += [f"    out[{i}] = {pr.doprint(e)};" for i, e in enumerate(k.outputs)]
    out.append("}")
    return out


#: States per block of the struct-of-arrays entry (:func:`soa_functions`).
SOA_LANES = 8
#: Bumped whenever :func:`soa_functions` prints different C (part of the C backend's cache
#: key for modules built with the ``soa`` option).
SOA_VERSION = "2"


def soa_functions(program: Program, k: Kernel, pr: CPrinter) -> tuple[list[str], str]:
    """Opt-in batch entry of one kernel that evaluates blocks of states in vector lanes.

    ``ld_<name>_soa(N, q, qd, x, out)`` takes the arrays of the batched entry (one state a
    row, every slot the kernel reads given in full: ``n`` values a state; ``out``:
    ``size`` a state) and evaluates :data:`SOA_LANES` states at a time: each block is
    copied into local columns (struct of arrays; a last partial block repeats its first
    state), the per-state body, forced inline, runs in an ``omp simd`` loop over the block
    with unit-stride loads and stores, and the results are copied back. A large body in
    the row-per-state loop is not vectorized by the compiler; this one is, and the copies
    stay in L1. With gcc these two functions also contract a·b + c into fused
    multiply-adds (one rounding instead of two; ``-std=c99`` leaves contraction off
    elsewhere). Kernels that read ``params`` or ``t`` are refused. Returns the C lines
    and the cffi ``cdef`` line.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.c import CPrinter, soa_functions
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = system_program(dp, Binding(dp.parameters, dp.defaults))
    >>> lines, cdef = soa_functions(prog, prog.kernels["forward_dynamics"], CPrinter())
    >>> cdef.split("(")[0], "#pragma omp simd" in lines
    ('void ld_forward_dynamics_soa', True)
    """
    slots = slot_symbols(program, k)
    used = k.used_symbols()
    if any(s in used for s in slots[3][1]) or program.t in used:
        raise LagdynError(f"kernel {k.name!r} reads params or t: no struct-of-arrays entry")
    n, L, size = program.n, SOA_LANES, prod(k.shape)
    x = slots[2][0]
    read = [slot for slot, syms in slots[:3] if any(s in used for s in syms)]
    gcc = "#if defined(__GNUC__) && !defined(__clang__)"
    lines = [
        gcc,  # fused multiply-adds here only (-std=c99 turns contraction off)
        "#pragma GCC push_options",
        '#pragma GCC optimize ("fp-contract=fast")',
        "#endif",
        f"LD_INLINE void {k.name}_soa_state(const double *q, const double *qd, "
        f"const double *{x}, double *out) {{",
    ]
    lines += [
        f"    const double {s} = {slot}[{i * L}];"
        for slot, syms in slots[:3]
        for i, s in enumerate(syms)
        if s in used
    ]
    lines.append(f"    (void)q; (void)qd; (void){x};")
    lines += [f"    const double {code_name(s)} = {pr.doprint(e)};" for s, e in k.body]
    lines += [f"    out[{i * L}] = {pr.doprint(e)};" for i, e in enumerate(k.outputs)]
    sig = (
        f"void ld_{k.name}_soa(long N, const double *q, const double *qd, const double *{x}, "
        "double *out)"
    )
    local = {slot: f"b_{slot} + j" if slot in read else "0" for slot, _ in slots[:3]}
    lines += [
        "}",
        sig + " {",
        *(f"    double b_{slot}[{n * L}];" for slot in read),
        f"    double b_out[{size * L}];",
        f"    for (long k0 = 0; k0 < N; k0 += {L}) {{",
        f"        const long w = N - k0 < {L} ? N - k0 : {L};",
        f"        for (long j = 0; j < {L}; ++j) {{",
        "            const long s = k0 + (j < w ? j : 0);",
        f"            for (long i = 0; i < {n}; ++i) {{",
        *(f"                b_{slot}[i * {L} + j] = {slot}[s * {n} + i];" for slot in read),
        "            }",
        "        }",
        "#pragma omp simd",
        f"        for (long j = 0; j < {L}; ++j)",
        f"            {k.name}_soa_state({local['q']}, {local['qd']}, {local[x]}, b_out + j);",
        "        for (long j = 0; j < w; ++j)",
        f"            for (long i = 0; i < {size}; ++i)",
        f"                out[(k0 + j) * {size} + i] = b_out[i * {L} + j];",
        "    }",
        "}",
        gcc,
        "#pragma GCC pop_options",
        "#endif",
    ]
    return lines, sig + ";"


def runtime_source(
    program: Program, key: str, *, simd: bool, soa: tuple[str, ...] = ()
) -> tuple[str, str]:
    """C99 source of the runtime module (unsealed) and its cffi ``cdef``.

    The batched loop reads ``q`` and ``qd`` densely (row stride n, a compile-time
    constant, which lets gcc vectorize it); the third vector, ``params`` and ``t``
    carry a row stride (0 when broadcast). The kernels named in ``soa`` also get the
    struct-of-arrays entry of :func:`soa_functions` (opt-in; nothing else changes), and
    their row entries evaluate one state through it (one block), so that the large body
    is compiled once.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.c import runtime_source
    >>> dp = ld.zoo.double_pendulum()
    >>> prog = system_program(dp, Binding(dp.parameters, dp.defaults))
    >>> src, cdef = runtime_source(prog, "k", simd=False)
    >>> "void *ld_pyfast(void);" in cdef
    True
    """
    pr = CPrinter()
    n = program.n
    src = [
        f"// lagdyn-key: {key}",
        *[f"// {c}" for c in program.comments()],
        "#include <math.h>",
        "#ifdef _OPENMP",
        "#include <omp.h>",
        "#endif",
        "#if defined(__GNUC__) || defined(__clang__)",
        "#define LD_INLINE static inline __attribute__((always_inline))",
        "#else",
        "#define LD_INLINE static inline",
        "#endif",
    ]
    if simd:
        src += [
            "#pragma omp declare simd notinbranch",
            "double sin(double);",
            "#pragma omp declare simd notinbranch",
            "double cos(double);",
        ]
    unknown = sorted(set(soa) - set(program.kernels))
    if unknown:
        raise LagdynError(f"soa names kernels the program does not have: {', '.join(unknown)}")
    cdef = []
    for name, k in program.kernels.items():
        slots = slot_symbols(program, k)
        x = slots[2][0]
        if name in soa:  # the body once, vectorized; the row entries call it per state
            lines, sig = soa_functions(program, k, pr)
            src += [
                *lines,
                f"static void {name}_state(const double *q, const double *qd, const double *{x}, "
                "const double *params, double t, double *out) {",
                f"    (void)params; (void)t; ld_{name}_soa(1, q, qd, {x}, out);",
                "}",
            ]
            cdef.append(sig)
        else:
            src += _state_body(program, k, pr)
        args = ", ".join([*(f"double {s}" for _, syms in slots for s in syms), "double t"])
        vecs = "\n".join(
            f"    const double {slot}[{len(syms)}] = {{{', '.join(map(str, syms))}}};"
            if syms
            else f"    const double *{slot} = 0;"
            for slot, syms in slots
        )
        dims = [*k.shape, 1, 1][:2]
        fields = dict(
            name=name,
            args=args,
            vecs=vecs,
            x=x,
            n=n,
            size=prod(k.shape),
            ndim=len(k.shape),
            rows=dims[0],
            cols=dims[1],
            simd="#pragma omp simd" if simd else "",
        )
        src.append(_KERNEL.substitute(fields))
        cdef.append(_CDEF.substitute(fields))
    if not program.vector("params"):  # one-state CPython entry points
        src.append(_FAST_PRELUDE.substitute(n=n))
        entries = []
        for name, k in program.kernels.items():
            if k.shape:
                d = [*k.shape, 0][:2]
                src.append(_FAST_ARRAY.substitute(name=name, ndim=len(k.shape), d0=d[0], d1=d[1]))
            else:
                src.append(_FAST_SCALAR.substitute(name=name))
            entries.append(
                f'    {{"{name}", (PyCFunction)(void (*)(void))py_{name}, METH_FASTCALL, NULL}},'
            )
        src.append(_FAST_TABLE.substitute(entries="\n".join(entries)))
        cdef.append("void *ld_pyfast(void);")
    return "\n".join(src) + "\n", "\n".join(cdef) + "\n"


# ------------------------------------------------------------------ exported files
def function_body(program: Program, k: Kernel, pr: CPrinter, scalar_type: str) -> list[str]:
    """Statements of an exported C/C++ function (reads, assignments, outputs)."""
    used_args = {a for _, a, _ in reads(program, k)}
    body = [f"    (void){a};" for a in kernel_args(k) if a not in used_args]
    body += [f"    const {scalar_type} {s} = {a}[{i}];" for s, a, i in reads(program, k)]
    body += [f"    const {scalar_type} {s} = {pr.doprint(e)};" for s, e in k.body]
    if k.shape == ():
        body.append(f"    return {pr.doprint(k.outputs[0])};")
    else:
        body += [f"    out[{i}] = {pr.doprint(e)};" for i, e in enumerate(k.outputs)]
    return body


def export_files(program: Program, name: str) -> dict[str, str]:
    """``NAME.h`` and ``NAME.c``: C99, ``double``, outputs into caller-provided arrays.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.codegen import Binding, system_program
    >>> from lagdyn.codegen.c import export_files
    >>> dp = ld.zoo.double_pendulum()
    >>> sorted(export_files(system_program(dp, Binding(dp.parameters)), "dp"))
    ['dp.c', 'dp.h']
    """
    pr = CPrinter()
    up = name.upper()
    head = "\n".join(" * " + x if x else " *" for x in header_lines(program, name)[1:])
    h = [
        f"/* {HEADER} */",
        "/*",
        head,
        " */",
        f"#ifndef {up}_H",
        f"#define {up}_H",
        "",
        f"#define {up}_N {program.n}",
        f"#define {up}_NP {len(program.vector('params'))}",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
    ]
    c = [f"/* {HEADER} */", f'#include "{name}.h"', "#include <math.h>", ""]
    for k in program.kernels.values():
        params = ["double t" if a == "t" else f"const double *{a}" for a in kernel_args(k)]
        if k.shape == ():
            sig = f"double {name}_{k.name}({', '.join(params)})"
        else:
            sig = f"void {name}_{k.name}({', '.join([*params, 'double *out'])})"
        h += [f"/* {describe(k.name)} */", sig + ";"]
        c += [sig + " {", *function_body(program, k, pr, "double"), "}", ""]
    h += ["", "#ifdef __cplusplus", "}", "#endif", f"#endif /* {up}_H */", ""]
    return {f"{name}.h": "\n".join(h), f"{name}.c": "\n".join(c)}
