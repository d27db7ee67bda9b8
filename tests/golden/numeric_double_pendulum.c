// lagdyn-key: golden
// coordinates: q_0 = a, q_1 = b
// free parameters: none
// bound parameters: g = 10.0, l1 = 1.0, l2 = 1.0, m1 = 1.0, m2 = 1.0
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__GNUC__) || defined(__clang__)
#define LD_INLINE static inline __attribute__((always_inline))
#else
#define LD_INLINE static inline
#endif
#pragma omp declare simd notinbranch
double sin(double);
#pragma omp declare simd notinbranch
double cos(double);
LD_INLINE void M_state(const double *q, const double *qd, const double *x, const double *params, double t, double *out) {
    const double q_0 = q[0];
    const double q_1 = q[1];
    (void)q; (void)qd; (void)x; (void)params; (void)t;
    const double w0 = q_0 - q_1;
    const double w1 = cos(w0);
    out[0] = 2;
    out[1] = w1;
    out[2] = w1;
    out[3] = 1;
}
void ld_M_1(double q_0, double q_1, double qd_0, double qd_1, double x_0, double x_1, double t, double *out, long i) {
    const double q[2] = {q_0, q_1};
    const double qd[2] = {qd_0, qd_1};
    const double x[2] = {x_0, x_1};
    const double *params = 0;
    M_state(q, qd, x, params, t, out + i * 4);
}
static const int ld_M_size = 4;
static const int ld_M_ndim = 2;
static const int ld_M_rows = 2;
static const int ld_M_cols = 2;
static void M_range(long k0, long k1, const double *q, const double *qd,
                          const double *x, long sx, const double *params, long sp,
                          const double *t, long st, double *out) {
#pragma omp simd
    for (long k = k0; k < k1; ++k)
        M_state(q + k * 2, qd + k * 2, x + k * sx, params + k * sp, t[k * st],
                      out + k * 4);
}
void ld_M(long N, const double *q, const double *qd, const double *x, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads) {
#ifdef _OPENMP
    if (nthreads == 0) nthreads = omp_get_max_threads();
    if (nthreads > 1 && N >= 16384) {
#pragma omp parallel num_threads(nthreads)
        {
            long T = omp_get_num_threads(), i = omp_get_thread_num();
            M_range(N * i / T, N * (i + 1) / T, q, qd, x, sx, params, sp, t, st, out);
        }
        return;
    }
#endif
    (void)nthreads;
    M_range(0, N, q, qd, x, sx, params, sp, t, st, out);
}

LD_INLINE void C_state(const double *q, const double *qd, const double *x, const double *params, double t, double *out) {
    const double q_0 = q[0];
    const double q_1 = q[1];
    const double qd_0 = qd[0];
    const double qd_1 = qd[1];
    (void)q; (void)qd; (void)x; (void)params; (void)t;
    const double w0 = q_0 - q_1;
    const double w2 = sin(w0);
    out[0] = 0;
    out[1] = qd_1*w2;
    out[2] = -qd_0*w2;
    out[3] = 0;
}
void ld_C_1(double q_0, double q_1, double qd_0, double qd_1, double x_0, double x_1, double t, double *out, long i) {
    const double q[2] = {q_0, q_1};
    const double qd[2] = {qd_0, qd_1};
    const double x[2] = {x_0, x_1};
    const double *params = 0;
    C_state(q, qd, x, params, t, out + i * 4);
}
static const int ld_C_size = 4;
static const int ld_C_ndim = 2;
static const int ld_C_rows = 2;
static const int ld_C_cols = 2;
static void C_range(long k0, long k1, const double *q, const double *qd,
                          const double *x, long sx, const double *params, long sp,
                          const double *t, long st, double *out) {
#pragma omp simd
    for (long k = k0; k < k1; ++k)
        C_state(q + k * 2, qd + k * 2, x + k * sx, params + k * sp, t[k * st],
                      out + k * 4);
}
void ld_C(long N, const double *q, const double *qd, const double *x, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads) {
#ifdef _OPENMP
    if (nthreads == 0) nthreads = omp_get_max_threads();
    if (nthreads > 1 && N >= 16384) {
#pragma omp parallel num_threads(nthreads)
        {
            long T = omp_get_num_threads(), i = omp_get_thread_num();
            C_range(N * i / T, N * (i + 1) / T, q, qd, x, sx, params, sp, t, st, out);
        }
        return;
    }
#endif
    (void)nthreads;
    C_range(0, N, q, qd, x, sx, params, sp, t, st, out);
}

LD_INLINE void g_state(const double *q, const double *qd, const double *x, const double *params, double t, double *out) {
    const double q_0 = q[0];
    const double q_1 = q[1];
    (void)q; (void)qd; (void)x; (void)params; (void)t;
    const double w3 = 20*sin(q_0);
    const double w4 = sin(q_1);
    out[0] = w3;
    out[1] = 10*w4;
}
void ld_g_1(double q_0, double q_1, double qd_0, double qd_1, double x_0, double x_1, double t, double *out, long i) {
    const double q[2] = {q_0, q_1};
    const double qd[2] = {qd_0, qd_1};
    const double x[2] = {x_0, x_1};
    const double *params = 0;
    g_state(q, qd, x, params, t, out + i * 2);
}
static const int ld_g_size = 2;
static const int ld_g_ndim = 1;
static const int ld_g_rows = 2;
static const int ld_g_cols = 1;
static void g_range(long k0, long k1, const double *q, const double *qd,
                          const double *x, long sx, const double *params, long sp,
                          const double *t, long st, double *out) {
#pragma omp simd
    for (long k = k0; k < k1; ++k)
        g_state(q + k * 2, qd + k * 2, x + k * sx, params + k * sp, t[k * st],
                      out + k * 2);
}
void ld_g(long N, const double *q, const double *qd, const double *x, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads) {
#ifdef _OPENMP
    if (nthreads == 0) nthreads = omp_get_max_threads();
    if (nthreads > 1 && N >= 16384) {
#pragma omp parallel num_threads(nthreads)
        {
            long T = omp_get_num_threads(), i = omp_get_thread_num();
            g_range(N * i / T, N * (i + 1) / T, q, qd, x, sx, params, sp, t, st, out);
        }
        return;
    }
#endif
    (void)nthreads;
    g_range(0, N, q, qd, x, sx, params, sp, t, st, out);
}

LD_INLINE void energy_state(const double *q, const double *qd, const double *x, const double *params, double t, double *out) {
    const double q_0 = q[0];
    const double q_1 = q[1];
    const double qd_0 = qd[0];
    const double qd_1 = qd[1];
    (void)q; (void)qd; (void)x; (void)params; (void)t;
    const double w0 = q_0 - q_1;
    const double w1 = cos(w0);
    const double w5 = (qd_0*qd_0);
    const double w6 = (qd_1*qd_1);
    out[0] = qd_0*qd_1*w1 + w5 + (1.0/2.0)*w6 - 20*cos(q_0) - 10*cos(q_1);
}
void ld_energy_1(double q_0, double q_1, double qd_0, double qd_1, double x_0, double x_1, double t, double *out, long i) {
    const double q[2] = {q_0, q_1};
    const double qd[2] = {qd_0, qd_1};
    const double x[2] = {x_0, x_1};
    const double *params = 0;
    energy_state(q, qd, x, params, t, out + i * 1);
}
static const int ld_energy_size = 1;
static const int ld_energy_ndim = 0;
static const int ld_energy_rows = 1;
static const int ld_energy_cols = 1;
static void energy_range(long k0, long k1, const double *q, const double *qd,
                          const double *x, long sx, const double *params, long sp,
                          const double *t, long st, double *out) {
#pragma omp simd
    for (long k = k0; k < k1; ++k)
        energy_state(q + k * 2, qd + k * 2, x + k * sx, params + k * sp, t[k * st],
                      out + k * 1);
}
void ld_energy(long N, const double *q, const double *qd, const double *x, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads) {
#ifdef _OPENMP
    if (nthreads == 0) nthreads = omp_get_max_threads();
    if (nthreads > 1 && N >= 16384) {
#pragma omp parallel num_threads(nthreads)
        {
            long T = omp_get_num_threads(), i = omp_get_thread_num();
            energy_range(N * i / T, N * (i + 1) / T, q, qd, x, sx, params, sp, t, st, out);
        }
        return;
    }
#endif
    (void)nthreads;
    energy_range(0, N, q, qd, x, sx, params, sp, t, st, out);
}

LD_INLINE void bias_state(const double *q, const double *qd, const double *x, const double *params, double t, double *out) {
    const double q_0 = q[0];
    const double q_1 = q[1];
    const double qd_0 = qd[0];
    const double qd_1 = qd[1];
    (void)q; (void)qd; (void)x; (void)params; (void)t;
    const double w0 = q_0 - q_1;
    const double w2 = sin(w0);
    const double w3 = 20*sin(q_0);
    const double w4 = sin(q_1);
    const double w5 = (qd_0*qd_0);
    const double w6 = (qd_1*qd_1);
    out[0] = w2*w6 + w3;
    out[1] = -w2*w5 + 10*w4;
}
void ld_bias_1(double q_0, double q_1, double qd_0, double qd_1, double x_0, double x_1, double t, double *out, long i) {
    const double q[2] = {q_0, q_1};
    const double qd[2] = {qd_0, qd_1};
    const double x[2] = {x_0, x_1};
    const double *params = 0;
    bias_state(q, qd, x, params, t, out + i * 2);
}
static const int ld_bias_size = 2;
static const int ld_bias_ndim = 1;
static const int ld_bias_rows = 2;
static const int ld_bias_cols = 1;
static void bias_range(long k0, long k1, const double *q, const double *qd,
                          const double *x, long sx, const double *params, long sp,
                          const double *t, long st, double *out) {
#pragma omp simd
    for (long k = k0; k < k1; ++k)
        bias_state(q + k * 2, qd + k * 2, x + k * sx, params + k * sp, t[k * st],
                      out + k * 2);
}
void ld_bias(long N, const double *q, const double *qd, const double *x, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads) {
#ifdef _OPENMP
    if (nthreads == 0) nthreads = omp_get_max_threads();
    if (nthreads > 1 && N >= 16384) {
#pragma omp parallel num_threads(nthreads)
        {
            long T = omp_get_num_threads(), i = omp_get_thread_num();
            bias_range(N * i / T, N * (i + 1) / T, q, qd, x, sx, params, sp, t, st, out);
        }
        return;
    }
#endif
    (void)nthreads;
    bias_range(0, N, q, qd, x, sx, params, sp, t, st, out);
}

LD_INLINE void inverse_dynamics_state(const double *q, const double *qd, const double *qdd, const double *params, double t, double *out) {
    const double q_0 = q[0];
    const double q_1 = q[1];
    const double qd_0 = qd[0];
    const double qd_1 = qd[1];
    const double qdd_0 = qdd[0];
    const double qdd_1 = qdd[1];
    (void)q; (void)qd; (void)qdd; (void)params; (void)t;
    const double w0 = q_0 - q_1;
    const double w1 = cos(w0);
    const double w2 = sin(w0);
    const double w3 = 20*sin(q_0);
    const double w4 = sin(q_1);
    const double w5 = (qd_0*qd_0);
    const double w6 = (qd_1*qd_1);
    const double h_0 = w2*w6 + w3;
    const double h_1 = -w2*w5 + 10*w4;
    out[0] = h_0 + 2*qdd_0 + qdd_1*w1;
    out[1] = h_1 + qdd_0*w1 + qdd_1;
}
void ld_inverse_dynamics_1(double q_0, double q_1, double qd_0, double qd_1, double qdd_0, double qdd_1, double t, double *out, long i) {
    const double q[2] = {q_0, q_1};
    const double qd[2] = {qd_0, qd_1};
    const double qdd[2] = {qdd_0, qdd_1};
    const double *params = 0;
    inverse_dynamics_state(q, qd, qdd, params, t, out + i * 2);
}
static const int ld_inverse_dynamics_size = 2;
static const int ld_inverse_dynamics_ndim = 1;
static const int ld_inverse_dynamics_rows = 2;
static const int ld_inverse_dynamics_cols = 1;
static void inverse_dynamics_range(long k0, long k1, const double *q, const double *qd,
                          const double *qdd, long sx, const double *params, long sp,
                          const double *t, long st, double *out) {
#pragma omp simd
    for (long k = k0; k < k1; ++k)
        inverse_dynamics_state(q + k * 2, qd + k * 2, qdd + k * sx, params + k * sp, t[k * st],
                      out + k * 2);
}
void ld_inverse_dynamics(long N, const double *q, const double *qd, const double *qdd, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads) {
#ifdef _OPENMP
    if (nthreads == 0) nthreads = omp_get_max_threads();
    if (nthreads > 1 && N >= 16384) {
#pragma omp parallel num_threads(nthreads)
        {
            long T = omp_get_num_threads(), i = omp_get_thread_num();
            inverse_dynamics_range(N * i / T, N * (i + 1) / T, q, qd, qdd, sx, params, sp, t, st, out);
        }
        return;
    }
#endif
    (void)nthreads;
    inverse_dynamics_range(0, N, q, qd, qdd, sx, params, sp, t, st, out);
}

LD_INLINE void forward_dynamics_state(const double *q, const double *qd, const double *tau, const double *params, double t, double *out) {
    const double q_0 = q[0];
    const double q_1 = q[1];
    const double qd_0 = qd[0];
    const double qd_1 = qd[1];
    const double tau_0 = tau[0];
    const double tau_1 = tau[1];
    (void)q; (void)qd; (void)tau; (void)params; (void)t;
    const double w0 = q_0 - q_1;
    const double w1 = cos(w0);
    const double w2 = sin(w0);
    const double w3 = 20*sin(q_0);
    const double w4 = sin(q_1);
    const double w5 = (qd_0*qd_0);
    const double w6 = (qd_1*qd_1);
    const double h_0 = w2*w6 + w3;
    const double h_1 = -w2*w5 + 10*w4;
    const double r_0 = -h_0 + tau_0;
    const double r_1 = -h_1 + tau_1;
    const double idet = (1.0/((2 - (w1*w1))));
    out[0] = idet*(r_0 - r_1*w1);
    out[1] = idet*(-r_0*w1 + 2*r_1);
}
void ld_forward_dynamics_1(double q_0, double q_1, double qd_0, double qd_1, double tau_0, double tau_1, double t, double *out, long i) {
    const double q[2] = {q_0, q_1};
    const double qd[2] = {qd_0, qd_1};
    const double tau[2] = {tau_0, tau_1};
    const double *params = 0;
    forward_dynamics_state(q, qd, tau, params, t, out + i * 2);
}
static const int ld_forward_dynamics_size = 2;
static const int ld_forward_dynamics_ndim = 1;
static const int ld_forward_dynamics_rows = 2;
static const int ld_forward_dynamics_cols = 1;
static void forward_dynamics_range(long k0, long k1, const double *q, const double *qd,
                          const double *tau, long sx, const double *params, long sp,
                          const double *t, long st, double *out) {
#pragma omp simd
    for (long k = k0; k < k1; ++k)
        forward_dynamics_state(q + k * 2, qd + k * 2, tau + k * sx, params + k * sp, t[k * st],
                      out + k * 2);
}
void ld_forward_dynamics(long N, const double *q, const double *qd, const double *tau, long sx,
              const double *params, long sp, const double *t, long st, double *out,
              int nthreads) {
#ifdef _OPENMP
    if (nthreads == 0) nthreads = omp_get_max_threads();
    if (nthreads > 1 && N >= 16384) {
#pragma omp parallel num_threads(nthreads)
        {
            long T = omp_get_num_threads(), i = omp_get_thread_num();
            forward_dynamics_range(N * i / T, N * (i + 1) / T, q, qd, tau, sx, params, sp, t, st, out);
        }
        return;
    }
#endif
    (void)nthreads;
    forward_dynamics_range(0, N, q, qd, tau, sx, params, sp, t, st, out);
}


/* One-state entry points called straight from Python (METH_FASTCALL): f(q, qd, x, t)
   with q, qd, x float64 arrays of shape (n,) (qd, x may be None) returns a fresh ndarray;
   any other input returns NotImplemented and the caller takes its general path. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
static const double ld_zeros[2 + 1] = {0};
static const double *ld_vec(PyObject *o) {
    if (!PyArray_CheckExact(o)) return NULL;
    PyArrayObject *a = (PyArrayObject *)o;
    if (PyArray_NDIM(a) != 1 || PyArray_DIM(a, 0) != 2 || PyArray_TYPE(a) != NPY_DOUBLE
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

static PyObject *py_M(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, *out; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *o = ld_new(2, 2, 2, &out);
    if (o) M_state(q, qd, x, 0, t, out);
    return o;
}

static PyObject *py_C(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, *out; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *o = ld_new(2, 2, 2, &out);
    if (o) C_state(q, qd, x, 0, t, out);
    return o;
}

static PyObject *py_g(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, *out; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *o = ld_new(1, 2, 0, &out);
    if (o) g_state(q, qd, x, 0, t, out);
    return o;
}

static PyObject *py_energy(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, v; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    energy_state(q, qd, x, 0, t, &v);
    PyArray_Descr *d = PyArray_DescrFromType(NPY_DOUBLE);
    PyObject *o = PyArray_Scalar(&v, d, NULL);
    Py_DECREF(d);
    return o;
}

static PyObject *py_bias(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, *out; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *o = ld_new(1, 2, 0, &out);
    if (o) bias_state(q, qd, x, 0, t, out);
    return o;
}

static PyObject *py_inverse_dynamics(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, *out; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *o = ld_new(1, 2, 0, &out);
    if (o) inverse_dynamics_state(q, qd, x, 0, t, out);
    return o;
}

static PyObject *py_forward_dynamics(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const double *q, *qd, *x; double t, *out; (void)self;
    if (!ld_args(args, nargs, &q, &qd, &x, &t)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *o = ld_new(1, 2, 0, &out);
    if (o) forward_dynamics_state(q, qd, x, 0, t, out);
    return o;
}

static PyMethodDef ld_defs[] = {
    {"M", (PyCFunction)(void (*)(void))py_M, METH_FASTCALL, NULL},
    {"C", (PyCFunction)(void (*)(void))py_C, METH_FASTCALL, NULL},
    {"g", (PyCFunction)(void (*)(void))py_g, METH_FASTCALL, NULL},
    {"energy", (PyCFunction)(void (*)(void))py_energy, METH_FASTCALL, NULL},
    {"bias", (PyCFunction)(void (*)(void))py_bias, METH_FASTCALL, NULL},
    {"inverse_dynamics", (PyCFunction)(void (*)(void))py_inverse_dynamics, METH_FASTCALL, NULL},
    {"forward_dynamics", (PyCFunction)(void (*)(void))py_forward_dynamics, METH_FASTCALL, NULL},
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

