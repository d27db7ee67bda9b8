/* lagdyn FMU core: the model state, its checks and the fixed-step integrators.
 *
 * Shared by the FMI 3.0 and FMI 2.0 glue (fmi3_glue.c, fmi2_glue.c). Everything mutable lives
 * in one LdInstance allocated by the instantiate call: no global or static mutable data, so
 * several instances (of this or other models) in one process are independent. The model
 * header lagdyn_fmu_model.h (generated per model) defines the sizes, the model's functions
 * and the constant tables (names, start values, ranges) used here.
 *
 * Value references (both FMI versions; 0 is the independent variable "time"):
 *   LD_VR_Q + i     q[i]            state, output
 *   LD_VR_QD + i    qd[i]           state, output (FMI 3: derivative of q[i])
 *   LD_VR_DQ + i    der(q[i])       = qd[i], local (FMI 2: derivative of q[i])
 *   LD_VR_QDD + i   qdd[i]          output, derivative of qd[i]
 *   LD_VR_E         energy          output
 *   LD_VR_TAU + k   tau of coordinate LD_INPUT_COORD[k]   input
 *   LD_VR_P + j     p[j]            tunable parameter (constrained models: the last two are
 *                                   the Baumgarte gains alpha, beta)
 *   LD_VR_LAM + k   lambda[k]       output: multiplier of constraint k (constrained models)
 *   LD_VR_PHI + k   phi[k]          output: residual of constraint k (constrained models)
 *
 * Constrained models (LD_NC > 0 constraints Phi(q) = 0) are integrated as the ODE of the
 * KKT system [[M, -J^T], [J, 0]] [qdd; lambda] = [tau - h; gamma] with Baumgarte's
 * gamma = -Jdot qd - 2 alpha J qd - beta^2 Phi, solved by LU with partial pivoting.
 */
#ifndef LAGDYN_FMU_CORE_H
#define LAGDYN_FMU_CORE_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagdyn_fmu_model.h"

#ifndef LD_NC
#define LD_NC 0
#endif

#define LD_VR_TIME 0u
#define LD_VR_Q 1u
#define LD_VR_QD (LD_VR_Q + LD_N)
#define LD_VR_DQ (LD_VR_QD + LD_N)
#define LD_VR_QDD (LD_VR_DQ + LD_N)
#define LD_VR_E (LD_VR_QDD + LD_N)
#define LD_VR_TAU (LD_VR_E + 1u)
#define LD_VR_P (LD_VR_TAU + LD_NI)
#define LD_VR_END (LD_VR_P + LD_NP)
#define LD_VR_LAM LD_VR_END
#define LD_VR_PHI (LD_VR_LAM + LD_NC)
#define LD_VR_LAST (LD_VR_PHI + LD_NC)
#define LD_NC1 (LD_NC > 0 ? LD_NC : 1)

/* arrays of at least one entry (a model may have no parameter or no input) */
#define LD_NP1 (LD_NP > 0 ? LD_NP : 1)
#define LD_NI1 (LD_NI > 0 ? LD_NI : 1)

#define LD_OK 0
#define LD_ERROR 1

typedef void (*LdLogFn)(void *self, int error, const char *message);

typedef struct {
    double time;
    double q[LD_N], qd[LD_N];
    double tau[LD_N]; /* full torque vector: unactuated coordinates stay 0 */
    double p[LD_NP1];
    double qdd[LD_N]; /* cached accelerations of (time, q, qd, tau, p) */
    double lam[LD_NC1]; /* cached multipliers (constrained models) */
    int qdd_valid;
    int midpoint_guess_valid;
    double midpoint_guess[LD_N]; /* the last midpoint velocity (Newton's predictor) */
    char *name;
    int logging_on;
    LdLogFn log; /* set by the glue: forwards to the importer's logger */
    void *glue;  /* the glue's own data (callbacks, environment) */
} LdInstance;

static void ld_log(LdInstance *s, int error, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    if (!s || !s->log) return;
    if (!error && !s->logging_on) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->log(s, error, buf);
}

static char *ld_strdup(const char *text) {
    size_t len = text ? strlen(text) : 0;
    char *out = (char *)malloc(len + 1);
    if (!out) return NULL;
    if (len) memcpy(out, text, len);
    out[len] = '\0';
    return out;
}

static void ld_reset(LdInstance *s) {
    int i;
    s->time = 0.0;
    for (i = 0; i < LD_N; i++) {
        s->q[i] = LD_Q_START[i];
        s->qd[i] = LD_QD_START[i];
        s->tau[i] = 0.0;
    }
    for (i = 0; i < LD_NP; i++) s->p[i] = LD_P_START[i];
    s->qdd_valid = 0;
    s->midpoint_guess_valid = 0;
}

/* The start time of an experiment (FMI 2 SetupExperiment, FMI 3 EnterInitializationMode):
 * 0 on success, 1 (logged) when it is not finite. */
static int ld_start(LdInstance *s, double start_time) {
    if (!isfinite(start_time)) {
        ld_log(s, 1, "the start time %g is not finite", start_time);
        return 1;
    }
    s->time = start_time;
    s->qdd_valid = 0;
    return 0;
}

static LdInstance *ld_new(const char *name) {
    LdInstance *s = (LdInstance *)calloc(1, sizeof(LdInstance));
    if (!s) return NULL;
    s->name = ld_strdup(name);
    if (!s->name) {
        free(s);
        return NULL;
    }
    ld_reset(s);
    return s;
}

static void ld_free(LdInstance *s) {
    if (!s) return;
    free(s->name);
    free(s);
}

/* ------------------------------------------------------------------ variable names */

static void ld_variable_name(unsigned vr, char *buf, size_t size) {
    if (vr == LD_VR_TIME) snprintf(buf, size, "time");
    else if (vr < LD_VR_QD) snprintf(buf, size, "q.%s", LD_Q_NAME[vr - LD_VR_Q]);
    else if (vr < LD_VR_DQ) snprintf(buf, size, "qd.%s", LD_Q_NAME[vr - LD_VR_QD]);
    else if (vr < LD_VR_QDD) snprintf(buf, size, "der(q.%s)", LD_Q_NAME[vr - LD_VR_DQ]);
    else if (vr < LD_VR_E) snprintf(buf, size, "qdd.%s", LD_Q_NAME[vr - LD_VR_QDD]);
    else if (vr == LD_VR_E) snprintf(buf, size, "energy");
    else if (vr < LD_VR_P)
        snprintf(buf, size, "tau.%s", LD_Q_NAME[LD_INPUT_COORD[vr - LD_VR_TAU]]);
    else if (vr < LD_VR_END) snprintf(buf, size, "%s", LD_P_NAME[vr - LD_VR_P]);
    else if (vr < LD_VR_PHI) snprintf(buf, size, "lambda.%u", vr - LD_VR_LAM + 1);
    else if (vr < LD_VR_LAST) snprintf(buf, size, "phi.%u", vr - LD_VR_PHI + 1);
    else snprintf(buf, size, "<unknown value reference %u>", vr);
}

/* ------------------------------------------------------------------ dynamics */

/* Cholesky factor of the n x n row-major A in place (lower triangle); 0 unless A is not
 * positive definite. */
static int ld_cholesky(double *A, int n) {
    int i, j, k;
    for (j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (k = 0; k < j; k++) d -= A[j * n + k] * A[j * n + k];
        if (!(d > 0.0) || !isfinite(d)) return LD_ERROR;
        d = sqrt(d);
        A[j * n + j] = d;
        for (i = j + 1; i < n; i++) {
            double v = A[i * n + j];
            for (k = 0; k < j; k++) v -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = v / d;
        }
    }
    return LD_OK;
}

static void ld_cholesky_solve(const double *L, int n, double *x) {
    int i, k;
    for (i = 0; i < n; i++) {
        double v = x[i];
        for (k = 0; k < i; k++) v -= L[i * n + k] * x[k];
        x[i] = v / L[i * n + i];
    }
    for (i = n - 1; i >= 0; i--) {
        double v = x[i];
        for (k = i + 1; k < n; k++) v -= L[k * n + i] * x[k];
        x[i] = v / L[i * n + i];
    }
}

/* M(q)^{-1} b into x (b and x may alias) */
static int ld_mass_solve(const double *q, const double *p, const double *b, double *x) {
    double Mm[LD_N * LD_N];
    int i;
    LD_FN_M(q, p, Mm);
    if (ld_cholesky(Mm, LD_N)) return LD_ERROR;
    for (i = 0; i < LD_N; i++) x[i] = b[i];
    ld_cholesky_solve(Mm, LD_N, x);
    return LD_OK;
}

static int ld_lu_solve(double *A, double *b, int n);

#if LD_NC > 0
/* the KKT system of the constrained model: qdd and lambda (lam may be NULL) */
static int ld_kkt(const double *p, double t, const double *q, const double *qd,
                  const double *tau, double *qdd, double *lam) {
    enum { K = LD_N + LD_NC };
    double A[K * K], b[K], Mm[LD_N * LD_N], h[LD_N], J[LD_NC * LD_N], jd[LD_NC], phi[LD_NC];
    const double alpha = p[LD_NP - 2], beta = p[LD_NP - 1];
    int i, j;
    LD_FN_M(q, p, Mm);
    LD_FN_BIAS(q, qd, p, t, h);
    LD_FN_J(q, qd, p, t, J);
    LD_FN_JDQD(q, qd, p, t, jd);
    LD_FN_PHI(q, qd, p, t, phi);
    for (i = 0; i < K * K; i++) A[i] = 0.0;
    for (i = 0; i < LD_N; i++) {
        for (j = 0; j < LD_N; j++) A[i * K + j] = Mm[i * LD_N + j];
        for (j = 0; j < LD_NC; j++) {
            A[i * K + LD_N + j] = -J[j * LD_N + i];
            A[(LD_N + j) * K + i] = J[j * LD_N + i];
        }
        b[i] = tau[i] - h[i];
    }
    for (j = 0; j < LD_NC; j++) {
        double phid = 0.0;
        for (i = 0; i < LD_N; i++) phid += J[j * LD_N + i] * qd[i];
        b[LD_N + j] = -jd[j] - 2.0 * alpha * phid - beta * beta * phi[j];
    }
    if (ld_lu_solve(A, b, K)) return LD_ERROR;
    for (i = 0; i < LD_N; i++) qdd[i] = b[i];
    if (lam)
        for (j = 0; j < LD_NC; j++) lam[j] = b[LD_N + j];
    return LD_OK;
}
#endif

/* accelerations qdd = M^{-1}(tau - h); LD_ERROR when M is not positive definite or the
 * result is not finite */
static int ld_accel(const double *p, double t, const double *q, const double *qd,
                    const double *tau, double *qdd) {
    int i;
#if LD_NC > 0
    if (ld_kkt(p, t, q, qd, tau, qdd, NULL)) return LD_ERROR;
#elif defined(LD_FN_FD)
    LD_FN_FD(q, qd, tau, p, t, qdd);
#else
    double h[LD_N];
    LD_FN_BIAS(q, qd, p, t, h);
    for (i = 0; i < LD_N; i++) h[i] = tau[i] - h[i];
    if (ld_mass_solve(q, p, h, qdd)) return LD_ERROR;
#endif
    for (i = 0; i < LD_N; i++)
        if (!isfinite(qdd[i])) return LD_ERROR;
    return LD_OK;
}

static int ld_update(LdInstance *s) {
    int bad;
    if (s->qdd_valid) return LD_OK;
#if LD_NC > 0
    bad = ld_kkt(s->p, s->time, s->q, s->qd, s->tau, s->qdd, s->lam);
    if (!bad) {
        int i;
        for (i = 0; i < LD_N; i++)
            if (!isfinite(s->qdd[i])) bad = 1;
        for (i = 0; i < LD_NC; i++)
            if (!isfinite(s->lam[i])) bad = 1;
    }
#else
    bad = ld_accel(s->p, s->time, s->q, s->qd, s->tau, s->qdd);
#endif
    if (bad) {
        ld_log(s, 1,
               "the accelerations are not finite at t = %g: the mass matrix is singular or "
               "the state, inputs or parameters are out of range",
               s->time);
        return LD_ERROR;
    }
    s->qdd_valid = 1;
    return LD_OK;
}

static double ld_energy(LdInstance *s) { return LD_FN_ENERGY(s->q, s->qd, s->p); }

/* ------------------------------------------------------------------ checked setters */

/* Set the variable vr to value; LD_ERROR (logged, naming the variable) when it is not a
 * settable variable or the value is NaN, infinite or outside its range. */
static int ld_set(LdInstance *s, unsigned vr, double value) {
    char name[160];
    ld_variable_name(vr, name, sizeof name);
    if ((vr >= LD_VR_DQ && vr <= LD_VR_E) || (vr >= LD_VR_END && vr < LD_VR_LAST)) {
        ld_log(s, 1, "variable %s (value reference %u) is calculated and cannot be set", name, vr);
        return LD_ERROR;
    }
    if (vr == LD_VR_TIME || vr >= LD_VR_LAST) {
        ld_log(s, 1, "value reference %u is not a settable variable of this model", vr);
        return LD_ERROR;
    }
    if (!isfinite(value)) {
        ld_log(s, 1, "%s %s: the value %g is not a finite number",
               vr >= LD_VR_P ? "parameter" : "variable", name, value);
        return LD_ERROR;
    }
    if (vr < LD_VR_QD) s->q[vr - LD_VR_Q] = value;
    else if (vr < LD_VR_DQ) s->qd[vr - LD_VR_QD] = value;
    else if (vr < LD_VR_P) s->tau[LD_INPUT_COORD[vr - LD_VR_TAU]] = value;
    else {
        int j = (int)(vr - LD_VR_P);
        if (LD_P_KIND[j] == 1 && !(value > 0.0)) {
            ld_log(s, 1, "parameter %s must be positive; got %g", name, value);
            return LD_ERROR;
        }
        if (LD_P_KIND[j] == 2 && !(value >= 0.0)) {
            ld_log(s, 1, "parameter %s must be nonnegative; got %g", name, value);
            return LD_ERROR;
        }
        s->p[j] = value;
    }
    s->qdd_valid = 0;
    s->midpoint_guess_valid = 0;
    return LD_OK;
}

static int ld_get(LdInstance *s, unsigned vr, double *value) {
    if (vr == LD_VR_TIME) *value = s->time;
    else if (vr < LD_VR_QD) *value = s->q[vr - LD_VR_Q];
    else if (vr < LD_VR_DQ) *value = s->qd[vr - LD_VR_QD];
    else if (vr < LD_VR_QDD) *value = s->qd[vr - LD_VR_DQ];
    else if (vr < LD_VR_E) {
        if (ld_update(s)) return LD_ERROR;
        *value = s->qdd[vr - LD_VR_QDD];
    } else if (vr == LD_VR_E) *value = ld_energy(s);
    else if (vr < LD_VR_P) *value = s->tau[LD_INPUT_COORD[vr - LD_VR_TAU]];
    else if (vr < LD_VR_END) *value = s->p[vr - LD_VR_P];
#if LD_NC > 0
    else if (vr < LD_VR_PHI) {
        if (ld_update(s)) return LD_ERROR;
        *value = s->lam[vr - LD_VR_LAM];
    } else if (vr < LD_VR_LAST) {
        double phi[LD_NC];
        LD_FN_PHI(s->q, s->qd, s->p, s->time, phi);
        *value = phi[vr - LD_VR_PHI];
    }
#endif
    else {
        ld_log(s, 1, "value reference %u is not a variable of this model", vr);
        return LD_ERROR;
    }
    return LD_OK;
}

/* ------------------------------------------------------------------ fixed-step integrators */

/* One classical Runge-Kutta step of size h from (t, q, v), tau held constant (as lagdyn's
 * run_rk4). */
static int ld_rk4_step(LdInstance *s, double t, double h) {
    double a1[LD_N], a2[LD_N], a3[LD_N], a4[LD_N];
    double q2[LD_N], v2[LD_N], q3[LD_N], v3[LD_N], q4[LD_N], v4[LD_N];
    int i;
    const double *q = s->q, *v = s->qd;
    if (ld_accel(s->p, t, q, v, s->tau, a1)) return LD_ERROR;
    for (i = 0; i < LD_N; i++) {
        q2[i] = q[i] + 0.5 * h * v[i];
        v2[i] = v[i] + 0.5 * h * a1[i];
    }
    if (ld_accel(s->p, t + 0.5 * h, q2, v2, s->tau, a2)) return LD_ERROR;
    for (i = 0; i < LD_N; i++) {
        q3[i] = q[i] + 0.5 * h * v2[i];
        v3[i] = v[i] + 0.5 * h * a2[i];
    }
    if (ld_accel(s->p, t + 0.5 * h, q3, v3, s->tau, a3)) return LD_ERROR;
    for (i = 0; i < LD_N; i++) {
        q4[i] = q[i] + h * v3[i];
        v4[i] = v[i] + h * a3[i];
    }
    if (ld_accel(s->p, t + h, q4, v4, s->tau, a4)) return LD_ERROR;
    for (i = 0; i < LD_N; i++) {
        s->q[i] = q[i] + (h / 6.0) * (v[i] + 2.0 * v2[i] + 2.0 * v3[i] + v4[i]);
        s->qd[i] = v[i] + (h / 6.0) * (a1[i] + 2.0 * a2[i] + 2.0 * a3[i] + a4[i]);
    }
    return LD_OK;
}

/* the momentum rate pdot = M a + (C + C^T) v = tau - h + (C + C^T) v at (qm, vm) */
static int ld_pdot(LdInstance *s, double t, const double *qm, const double *vm, double *out) {
    double Cm[LD_N * LD_N], hb[LD_N];
    int i, j;
    LD_FN_C(qm, vm, s->p, Cm);
    LD_FN_BIAS(qm, vm, s->p, t, hb);
    for (i = 0; i < LD_N; i++) {
        double v = s->tau[i] - hb[i];
        for (j = 0; j < LD_N; j++) v += (Cm[i * LD_N + j] + Cm[j * LD_N + i]) * vm[j];
        out[i] = v;
    }
    return LD_OK;
}

/* R(vbar) = M(qbar) vbar - p0 - h/2 pdot(qbar, vbar), qbar = q + h/2 vbar */
static int ld_midpoint_residual(LdInstance *s, double tm, double h, const double *p0,
                                const double *vbar, double *R) {
    double qm[LD_N], Mm[LD_N * LD_N], f[LD_N];
    int i, j;
    for (i = 0; i < LD_N; i++) qm[i] = s->q[i] + 0.5 * h * vbar[i];
    LD_FN_M(qm, s->p, Mm);
    ld_pdot(s, tm, qm, vbar, f);
    for (i = 0; i < LD_N; i++) {
        double v = -p0[i] - 0.5 * h * f[i];
        for (j = 0; j < LD_N; j++) v += Mm[i * LD_N + j] * vbar[j];
        R[i] = v;
        if (!isfinite(v)) return LD_ERROR;
    }
    return LD_OK;
}

/* Gaussian elimination with partial pivoting: A x = b, A destroyed, b becomes x */
static int ld_lu_solve(double *A, double *b, int n) {
    int i, j, k;
    for (k = 0; k < n; k++) {
        int piv = k;
        double best = fabs(A[k * n + k]);
        for (i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > best) {
                best = fabs(A[i * n + k]);
                piv = i;
            }
        if (!(best > 0.0) || !isfinite(best)) return LD_ERROR;
        if (piv != k) {
            double tmp;
            for (j = 0; j < n; j++) {
                tmp = A[k * n + j];
                A[k * n + j] = A[piv * n + j];
                A[piv * n + j] = tmp;
            }
            tmp = b[k];
            b[k] = b[piv];
            b[piv] = tmp;
        }
        for (i = k + 1; i < n; i++) {
            double f = A[i * n + k] / A[k * n + k];
            for (j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (i = n - 1; i >= 0; i--) {
        double v = b[i];
        for (j = i + 1; j < n; j++) v -= A[i * n + j] * b[j];
        b[i] = v / A[i * n + i];
    }
    return LD_OK;
}

/* finish a midpoint step from the converged midpoint velocity vbar */
static int ld_midpoint_finish(LdInstance *s, double h, const double *p0, const double *vbar) {
    double Mm[LD_N * LD_N], qm[LD_N], p1[LD_N];
    int i, j;
    for (i = 0; i < LD_N; i++) qm[i] = s->q[i] + 0.5 * h * vbar[i];
    LD_FN_M(qm, s->p, Mm);
    for (i = 0; i < LD_N; i++) {
        double v = -p0[i];
        for (j = 0; j < LD_N; j++) v += 2.0 * Mm[i * LD_N + j] * vbar[j];
        p1[i] = v;
    }
    for (i = 0; i < LD_N; i++) qm[i] = s->q[i] + h * vbar[i];
    if (ld_mass_solve(qm, s->p, p1, p1)) return LD_ERROR;
    for (i = 0; i < LD_N; i++) {
        s->q[i] = qm[i];
        s->qd[i] = p1[i];
        s->midpoint_guess[i] = vbar[i];
    }
    s->midpoint_guess_valid = 1;
    return LD_OK;
}

#ifdef LD_FN_NEWTON
/* One canonical implicit midpoint step in (q, p = M q̇), as lagdyn's newton_midpoint_step:
 * the midpoint velocity vbar solves R(vbar) = M(qbar) vbar - p0 - h/2 (P(qbar, vbar) + tau)
 * = 0, qbar = q + h/2 vbar, by Newton's method with the generated Jacobian
 * M + h/2 (K - P_v) - h^2/4 P_q (LD_FN_NEWTON stacks [M, K, P_q, P_v, P] per row, K =
 * d(M v)/dq, P = K v - h + Q); then q1 = q + h vbar, p1 = 2 M(qbar) vbar - p0,
 * v1 = M(q1)^{-1} p1. */
static int ld_midpoint_step(LdInstance *s, double t, double h) {
    enum { W = 4 * LD_N + 1 };
    double M0[LD_N * LD_N], p0[LD_N], vbar[LD_N], qm[LD_N], Jk[LD_N * W], R[LD_N];
    double A[LD_N * LD_N];
    const double tm = t + 0.5 * h;
    double err = INFINITY;
    int i, j, it;
    LD_FN_M(s->q, s->p, M0);
    for (i = 0; i < LD_N; i++) {
        double v = 0.0;
        for (j = 0; j < LD_N; j++) v += M0[i * LD_N + j] * s->qd[j];
        p0[i] = v;
        vbar[i] = s->midpoint_guess_valid ? 2.0 * s->qd[i] - s->midpoint_guess[i] : s->qd[i];
    }
    for (it = 0; it < LD_MAX_ITER; it++) {
        double prev = err, rho;
        for (i = 0; i < LD_N; i++) qm[i] = s->q[i] + 0.5 * h * vbar[i];
        LD_FN_NEWTON(qm, vbar, s->p, tm, Jk);
        for (i = 0; i < LD_N; i++) {
            const double *row = Jk + i * W;
            double r = -p0[i] - 0.5 * h * (row[4 * LD_N] + s->tau[i]);
            for (j = 0; j < LD_N; j++) {
                r += row[j] * vbar[j];
                A[i * LD_N + j] = row[j] + 0.5 * h * (row[LD_N + j] - row[3 * LD_N + j]) -
                                  0.25 * h * h * row[2 * LD_N + j];
            }
            R[i] = r;
        }
        if (ld_lu_solve(A, R, LD_N)) break;
        err = 0.0;
        for (i = 0; i < LD_N; i++) {
            double e;
            vbar[i] -= R[i];
            e = fabs(R[i]) / (1.0 + fabs(vbar[i]));
            if (!(e <= err)) err = e; /* NaN propagates as failure */
        }
        if (!isfinite(err)) break;
        /* converged when the change, or the estimated remaining error rho/(1-rho) change,
         * is within the tolerance (as lagdyn) */
        rho = (prev > 0.0 && isfinite(prev)) ? err / prev : 1.0;
        if (err <= LD_TOL || (rho < 0.5 && rho / (1.0 - rho) * err <= LD_TOL))
            return ld_midpoint_finish(s, h, p0, vbar);
    }
    return LD_ERROR;
}
#else
/* One canonical implicit midpoint step in (q, p = M q̇) (as lagdyn's run_midpoint): the
 * midpoint velocity vbar solves R(vbar) = 0 by Newton's method with a finite-difference
 * Jacobian (no generated Jacobian: robot chains on the recursive route); then
 * q1 = q + h vbar, p1 = 2 M(qbar) vbar - p0, v1 = M(q1)^{-1} p1. */
static int ld_midpoint_step(LdInstance *s, double t, double h) {
    double M0[LD_N * LD_N], p0[LD_N], vbar[LD_N], R[LD_N], Rj[LD_N], J[LD_N * LD_N];
    const double tm = t + 0.5 * h;
    int i, j, it;
    LD_FN_M(s->q, s->p, M0);
    for (i = 0; i < LD_N; i++) {
        double v = 0.0;
        for (j = 0; j < LD_N; j++) v += M0[i * LD_N + j] * s->qd[j];
        p0[i] = v;
        vbar[i] = s->midpoint_guess_valid ? 2.0 * s->qd[i] - s->midpoint_guess[i] : s->qd[i];
    }
    for (it = 0; it < LD_MAX_ITER; it++) {
        double err = 0.0;
        if (ld_midpoint_residual(s, tm, h, p0, vbar, R)) break;
        for (j = 0; j < LD_N; j++) {
            const double save = vbar[j];
            const double d = 1.4901161193847656e-08 * (1.0 + fabs(save));
            vbar[j] = save + d;
            if (ld_midpoint_residual(s, tm, h, p0, vbar, Rj)) {
                vbar[j] = save;
                return LD_ERROR;
            }
            vbar[j] = save;
            for (i = 0; i < LD_N; i++) J[i * LD_N + j] = (Rj[i] - R[i]) / d;
        }
        if (ld_lu_solve(J, R, LD_N)) break;
        for (i = 0; i < LD_N; i++) {
            double e;
            vbar[i] -= R[i];
            e = fabs(R[i]) / (1.0 + fabs(vbar[i]));
            if (!(e <= err)) err = e; /* NaN propagates as failure */
        }
        if (!isfinite(err)) break;
        if (err <= LD_TOL) return ld_midpoint_finish(s, h, p0, vbar);
    }
    return LD_ERROR;
}
#endif

/* Advance the state from s->time over H by internal steps of LD_STEP_SIZE (the last one
 * shorter when H is not a multiple of it); LD_ERROR leaves the state at the last good step. */
static int ld_do_step(LdInstance *s, double t0, double H) {
    double h = LD_STEP_SIZE;
    long k, steps;
    double ratio = H / h, done = 0.0;
    if (!(H > 0.0) || !isfinite(H)) {
        ld_log(s, 1, "the communication step size %g is not a positive finite number", H);
        return LD_ERROR;
    }
    steps = (long)floor(ratio + 0.5);
    if (steps >= 1 && fabs(ratio - (double)steps) <= 1e-9 * ratio) {
        h = H / (double)steps; /* a multiple: equal steps, as lagdyn's substeps */
    } else {
        steps = (long)floor(ratio);
    }
    s->time = t0;
    for (k = 0; k < steps; k++) {
        int bad = LD_METHOD == 1 ? ld_midpoint_step(s, t0 + (double)k * h, h)
                                 : ld_rk4_step(s, t0 + (double)k * h, h);
        if (bad) goto fail;
        done = (double)(k + 1) * h;
        s->time = t0 + done;
    }
    if (H - done > 1e-12 * H) { /* the last, partial step */
        double last = H - done;
        int bad = LD_METHOD == 1 ? ld_midpoint_step(s, t0 + done, last)
                                 : ld_rk4_step(s, t0 + done, last);
        if (bad) goto fail;
    }
    s->time = t0 + H;
    s->qdd_valid = 0;
    return LD_OK;
fail:
    s->qdd_valid = 0;
    ld_log(s, 1,
           "the %s step from t = %g did not succeed (non-finite accelerations, a singular mass "
           "matrix or no convergence of the Newton iteration); reduce the step size",
           LD_METHOD == 1 ? "implicit midpoint" : "RK4", s->time);
    return LD_ERROR;
}

#endif /* LAGDYN_FMU_CORE_H */
