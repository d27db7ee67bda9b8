"""Quick start: a Lagrangian in, M, C, g and proofs out.

Shows the path a new user takes: write L for a pendulum on a cart, derive the
equations, prove their structure.
"""

import sympy as sp

import lagdyn as ld

x, th = ld.coordinates("x theta")
xd, thd = ld.velocities([x, th])
M_cart, m, l, g = ld.parameters("M_c m l g")

# pendulum bob position relative to the cart, angle from the downward vertical
px, py = x + l * sp.sin(th), -l * sp.cos(th)
T = M_cart * xd**2 / 2 + m * (sp.diff(px, ld.t) ** 2 + sp.diff(py, ld.t) ** 2) / 2
U = m * g * py
cart = ld.LagrangianSystem.from_energies(T, U, [x, th])

print("M =", cart.M)
print("C =", cart.C)
print("g =", cart.g)
for line in ld.structure.check(cart).lines():
    print(line)
