# lagdyn-key: golden
# coordinates: q_0 = a(t), q_1 = b(t)
# free parameters: none
# bound parameters: m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 10.0
# all parameters: g, l1, l2, m1, m2
"""Numeric kernels (lagdyn codegen 8), n = 2."""
import math
import numpy
from math import cos, sin

_array, _f64 = numpy.array, numpy.float64

#: output shape of one state, per kernel
SHAPES = {'M': (2, 2), 'C': (2, 2), 'g': (2,), 'energy': (), 'bias': (2,), 'inverse_dynamics': (2,), 'forward_dynamics': (2,)}
#: states per chunk of each batched function (temporaries stay in cache)
CHUNKS = {'M': 8192, 'C': 8192, 'g': 8192, 'energy': 8192, 'bias': 8192, 'inverse_dynamics': 8192, 'forward_dynamics': 8192}

def M_1(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    M_0_1 = cos(w0)
    return (2.0, M_0_1, M_0_1, 1.0,)


def M_a(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    M_0_1 = cos(w0)
    return _array(((2.0, M_0_1,), (M_0_1, 1.0,),))


def M_batch(q, qd, u, p, t, out):
    q_0 = q[0]
    q_1 = q[1]
    w0 = q_0 - q_1
    M_0_1 = numpy.cos(w0)
    out[0, 0] = 2
    out[0, 1] = M_0_1
    out[1, 0] = M_0_1
    out[1, 1] = 1
    return out


def C_1(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    w1 = sin(w0)
    return (0.0, qd_1*w1, -qd_0*w1, 0.0,)


def C_a(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    w1 = sin(w0)
    return _array(((0.0, qd_1*w1,), (-qd_0*w1, 0.0,),))


def C_batch(q, qd, u, p, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    w0 = q_0 - q_1
    w1 = numpy.sin(w0)
    out[0, 0] = 0
    out[0, 1] = qd_1*w1
    out[1, 0] = -qd_0*w1
    out[1, 1] = 0
    return out


def g_1(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w2 = sin(q_0)
    w3 = 20*w2
    w4 = sin(q_1)
    return (w3, 10*w4,)


def g_a(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w2 = sin(q_0)
    w3 = 20*w2
    w4 = sin(q_1)
    return _array((w3, 10*w4,))


def g_batch(q, qd, u, p, t, out):
    q_0 = q[0]
    q_1 = q[1]
    w2 = numpy.sin(q_0)
    w3 = 20*w2
    w4 = numpy.sin(q_1)
    out[0] = w3
    out[1] = 10*w4
    return out


def energy_1(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w2 = sin(q_0)
    w4 = sin(q_1)
    w5 = cos(q_0)
    w6 = cos(q_1)
    w7 = w2*w4 + w5*w6
    w8 = (1/2)*qd_1
    return ((1/2)*qd_0*(qd_0*(2*w2*w2 + 2*w5*w5) + qd_1*w7) - 20*w5 - 10*w6 + w8*(qd_0*w7 + w8*(2*w4*w4 + 2*w6*w6)),)


def energy_a(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w2 = sin(q_0)
    w4 = sin(q_1)
    w5 = cos(q_0)
    w6 = cos(q_1)
    w7 = w2*w4 + w5*w6
    w8 = (1/2)*qd_1
    return _f64((1/2)*qd_0*(qd_0*(2*w2*w2 + 2*w5*w5) + qd_1*w7) - 20*w5 - 10*w6 + w8*(qd_0*w7 + w8*(2*w4*w4 + 2*w6*w6)))


def energy_batch(q, qd, u, p, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    w2 = numpy.sin(q_0)
    w4 = numpy.sin(q_1)
    w5 = numpy.cos(q_0)
    w6 = numpy.cos(q_1)
    w7 = w2*w4 + w5*w6
    w8 = (1/2)*qd_1
    out[...] = (1/2)*qd_0*(qd_0*(2*w2*w2 + 2*w5*w5) + qd_1*w7) - 20*w5 - 10*w6 + w8*(qd_0*w7 + w8*(2*w4*w4 + 2*w6*w6))
    return out


def bias_1(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    w1 = sin(w0)
    w2 = sin(q_0)
    w3 = 20*w2
    w4 = sin(q_1)
    return (qd_1*qd_1*w1 + w3, -qd_0*qd_0*w1 + 10*w4,)


def bias_a(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    w1 = sin(w0)
    w2 = sin(q_0)
    w3 = 20*w2
    w4 = sin(q_1)
    return _array((qd_1*qd_1*w1 + w3, -qd_0*qd_0*w1 + 10*w4,))


def bias_batch(q, qd, u, p, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    w0 = q_0 - q_1
    w1 = numpy.sin(w0)
    w2 = numpy.sin(q_0)
    w3 = 20*w2
    w4 = numpy.sin(q_1)
    out[0] = qd_1*qd_1*w1 + w3
    out[1] = -qd_0*qd_0*w1 + 10*w4
    return out


def inverse_dynamics_1(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    w1 = sin(w0)
    w2 = sin(q_0)
    w3 = 20*w2
    w4 = sin(q_1)
    M_0_1 = cos(w0)
    h_0 = qd_1*qd_1*w1 + w3
    h_1 = -qd_0*qd_0*w1 + 10*w4
    return (M_0_1*u_1 + h_0 + 2*u_0, M_0_1*u_0 + h_1 + u_1,)


def inverse_dynamics_a(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    w1 = sin(w0)
    w2 = sin(q_0)
    w3 = 20*w2
    w4 = sin(q_1)
    M_0_1 = cos(w0)
    h_0 = qd_1*qd_1*w1 + w3
    h_1 = -qd_0*qd_0*w1 + 10*w4
    return _array((M_0_1*u_1 + h_0 + 2*u_0, M_0_1*u_0 + h_1 + u_1,))


def inverse_dynamics_batch(q, qd, u, p, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    u_0 = u[0]
    u_1 = u[1]
    w0 = q_0 - q_1
    w1 = numpy.sin(w0)
    w2 = numpy.sin(q_0)
    w3 = 20*w2
    w4 = numpy.sin(q_1)
    M_0_1 = numpy.cos(w0)
    h_0 = qd_1*qd_1*w1 + w3
    h_1 = -qd_0*qd_0*w1 + 10*w4
    out[0] = M_0_1*u_1 + h_0 + 2*u_0
    out[1] = M_0_1*u_0 + h_1 + u_1
    return out


def forward_dynamics_1(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    w1 = sin(w0)
    w2 = sin(q_0)
    w3 = 20*w2
    w4 = sin(q_1)
    M_0_1 = cos(w0)
    h_0 = qd_1*qd_1*w1 + w3
    h_1 = -qd_0*qd_0*w1 + 10*w4
    r_0 = -h_0 + u_0
    r_1 = -h_1 + u_1
    idet = 1/(2 - M_0_1*M_0_1)
    return (idet*(-M_0_1*r_1 + r_0), idet*(-M_0_1*r_0 + 2*r_1),)


def forward_dynamics_a(q_0, q_1, qd_0, qd_1, u_0, u_1, t):
    w0 = q_0 - q_1
    w1 = sin(w0)
    w2 = sin(q_0)
    w3 = 20*w2
    w4 = sin(q_1)
    M_0_1 = cos(w0)
    h_0 = qd_1*qd_1*w1 + w3
    h_1 = -qd_0*qd_0*w1 + 10*w4
    r_0 = -h_0 + u_0
    r_1 = -h_1 + u_1
    idet = 1/(2 - M_0_1*M_0_1)
    return _array((idet*(-M_0_1*r_1 + r_0), idet*(-M_0_1*r_0 + 2*r_1),))


def forward_dynamics_batch(q, qd, u, p, t, out):
    q_0 = q[0]
    q_1 = q[1]
    qd_0 = qd[0]
    qd_1 = qd[1]
    u_0 = u[0]
    u_1 = u[1]
    w0 = q_0 - q_1
    w1 = numpy.sin(w0)
    w2 = numpy.sin(q_0)
    w3 = 20*w2
    w4 = numpy.sin(q_1)
    M_0_1 = numpy.cos(w0)
    h_0 = qd_1*qd_1*w1 + w3
    h_1 = -qd_0*qd_0*w1 + 10*w4
    r_0 = -h_0 + u_0
    r_1 = -h_1 + u_1
    idet = 1/(2 - M_0_1*M_0_1)
    out[0] = idet*(-M_0_1*r_1 + r_0)
    out[1] = idet*(-M_0_1*r_0 + 2*r_1)
    return out
