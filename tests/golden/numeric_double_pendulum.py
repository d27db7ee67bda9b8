# lagdyn-key: golden
# coordinates: q_0 = a, q_1 = b
# free parameters: none
# bound parameters: g = 10.0, l1 = 1.0, l2 = 1.0, m1 = 1.0, m2 = 1.0
"""Numeric kernels (lagdyn codegen 11), n = 2."""
import math
import numpy
from math import cos, sin

_array, _f64 = numpy.array, numpy.float64

#: output shape of one state, per kernel
SHAPES = {'M': (2, 2), 'C': (2, 2), 'g': (2,), 'energy': (), 'bias': (2,), 'inverse_dynamics': (2,), 'forward_dynamics': (2,)}
#: states per chunk of each batched function (temporaries stay in cache)
CHUNKS = {'M': 8192, 'C': 8192, 'g': 8192, 'energy': 8192, 'bias': 8192, 'inverse_dynamics': 8192, 'forward_dynamics': 8192}

def M_1(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w0 = q_0 - q_1
    w1 = cos(w0)
    return (2.0, w1, w1, 1.0,)


def M_a(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w0 = q_0 - q_1
    w1 = cos(w0)
    return _array(((2.0, w1,), (w1, 1.0,),))


def M_batch(q, qd, x, params, t, out):
    q_0 = q[0]
    q_1 = q[1]
    w0 = q_0 - q_1
    w1 = numpy.cos(w0)
    out[0, 0] = 2
    out[0, 1] = w1
    out[1, 0] = w1
    out[1, 1] = 1
    return out


def C_1(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w0 = q_0 - q_1
    w2 = sin(w0)
    return (0.0, qd_1*w2, -qd_0*w2, 0.0,)


def C_a(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w0 = q_0 - q_1
    w2 = sin(w0)
    return _array(((0.0, qd_1*w2,), (-qd_0*w2, 0.0,),))


def C_batch(q, qd, x, params, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    w0 = q_0 - q_1
    w2 = numpy.sin(w0)
    out[0, 0] = 0
    out[0, 1] = qd_1*w2
    out[1, 0] = -qd_0*w2
    out[1, 1] = 0
    return out


def g_1(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w3 = 20*sin(q_0)
    w4 = sin(q_1)
    return (w3, 10*w4,)


def g_a(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w3 = 20*sin(q_0)
    w4 = sin(q_1)
    return _array((w3, 10*w4,))


def g_batch(q, qd, x, params, t, out):
    q_0 = q[0]
    q_1 = q[1]
    w3 = 20*numpy.sin(q_0)
    w4 = numpy.sin(q_1)
    out[0] = w3
    out[1] = 10*w4
    return out


def energy_1(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w0 = q_0 - q_1
    w1 = cos(w0)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    return (qd_0*qd_1*w1 + w5 + (1/2)*w6 - 20*cos(q_0) - 10*cos(q_1),)


def energy_a(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w0 = q_0 - q_1
    w1 = cos(w0)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    return _f64(qd_0*qd_1*w1 + w5 + (1/2)*w6 - 20*cos(q_0) - 10*cos(q_1))


def energy_batch(q, qd, x, params, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    w0 = q_0 - q_1
    w1 = numpy.cos(w0)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    out[...] = qd_0*qd_1*w1 + w5 + (1/2)*w6 - 20*numpy.cos(q_0) - 10*numpy.cos(q_1)
    return out


def bias_1(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w0 = q_0 - q_1
    w2 = sin(w0)
    w3 = 20*sin(q_0)
    w4 = sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    return (w2*w6 + w3, -w2*w5 + 10*w4,)


def bias_a(q_0, q_1, qd_0, qd_1, x_0, x_1, t):
    w0 = q_0 - q_1
    w2 = sin(w0)
    w3 = 20*sin(q_0)
    w4 = sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    return _array((w2*w6 + w3, -w2*w5 + 10*w4,))


def bias_batch(q, qd, x, params, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    w0 = q_0 - q_1
    w2 = numpy.sin(w0)
    w3 = 20*numpy.sin(q_0)
    w4 = numpy.sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    out[0] = w2*w6 + w3
    out[1] = -w2*w5 + 10*w4
    return out


def inverse_dynamics_1(q_0, q_1, qd_0, qd_1, qdd_0, qdd_1, t):
    w0 = q_0 - q_1
    w1 = cos(w0)
    w2 = sin(w0)
    w3 = 20*sin(q_0)
    w4 = sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    h_0 = w2*w6 + w3
    h_1 = -w2*w5 + 10*w4
    return (h_0 + 2*qdd_0 + qdd_1*w1, h_1 + qdd_0*w1 + qdd_1,)


def inverse_dynamics_a(q_0, q_1, qd_0, qd_1, qdd_0, qdd_1, t):
    w0 = q_0 - q_1
    w1 = cos(w0)
    w2 = sin(w0)
    w3 = 20*sin(q_0)
    w4 = sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    h_0 = w2*w6 + w3
    h_1 = -w2*w5 + 10*w4
    return _array((h_0 + 2*qdd_0 + qdd_1*w1, h_1 + qdd_0*w1 + qdd_1,))


def inverse_dynamics_batch(q, qd, qdd, params, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    qdd_0 = qdd[0]
    qdd_1 = qdd[1]
    w0 = q_0 - q_1
    w1 = numpy.cos(w0)
    w2 = numpy.sin(w0)
    w3 = 20*numpy.sin(q_0)
    w4 = numpy.sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    h_0 = w2*w6 + w3
    h_1 = -w2*w5 + 10*w4
    out[0] = h_0 + 2*qdd_0 + qdd_1*w1
    out[1] = h_1 + qdd_0*w1 + qdd_1
    return out


def forward_dynamics_1(q_0, q_1, qd_0, qd_1, tau_0, tau_1, t):
    w0 = q_0 - q_1
    w1 = cos(w0)
    w2 = sin(w0)
    w3 = 20*sin(q_0)
    w4 = sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    h_0 = w2*w6 + w3
    h_1 = -w2*w5 + 10*w4
    r_0 = -h_0 + tau_0
    r_1 = -h_1 + tau_1
    idet = (1/((2 - (w1*w1))))
    return (idet*(r_0 - r_1*w1), idet*(-r_0*w1 + 2*r_1),)


def forward_dynamics_a(q_0, q_1, qd_0, qd_1, tau_0, tau_1, t):
    w0 = q_0 - q_1
    w1 = cos(w0)
    w2 = sin(w0)
    w3 = 20*sin(q_0)
    w4 = sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    h_0 = w2*w6 + w3
    h_1 = -w2*w5 + 10*w4
    r_0 = -h_0 + tau_0
    r_1 = -h_1 + tau_1
    idet = (1/((2 - (w1*w1))))
    return _array((idet*(r_0 - r_1*w1), idet*(-r_0*w1 + 2*r_1),))


def forward_dynamics_batch(q, qd, tau, params, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    tau_0 = tau[0]
    tau_1 = tau[1]
    w0 = q_0 - q_1
    w1 = numpy.cos(w0)
    w2 = numpy.sin(w0)
    w3 = 20*numpy.sin(q_0)
    w4 = numpy.sin(q_1)
    w5 = (qd_0*qd_0)
    w6 = (qd_1*qd_1)
    h_0 = w2*w6 + w3
    h_1 = -w2*w5 + 10*w4
    r_0 = -h_0 + tau_0
    r_1 = -h_1 + tau_1
    idet = 1/(2 - (w1*w1))
    out[0] = idet*(r_0 - r_1*w1)
    out[1] = idet*(-r_0*w1 + 2*r_1)
    return out
