"""A teacher's first session: the double pendulum in absolute and relative angles.

Written from the docs alone (README, docs/tutorials/seed-lab.md, docs/lab.md): seed 003's
double pendulum — unit masses on unit rods, g = 10 — in absolute angles (a, b) from the zoo,
changed to relative angles u = (a, b − a) with ``change_coordinates`` and compared with the
zoo's relative model; the seed's reference numbers (M_abs = [[2, 1], [1, 1]],
M_rel = [[5, 2], [2, 1]], their eigenvalues, the invariant kinetic energy 0.5 J, the
generalized forces (3, 3) and (6, 3) of an end force (3, 0) N) are checked exactly; both
conventions are proved passive; and the lab page for the class is written.
"""

import sys
from pathlib import Path

import sympy as sp

import lagdyn as ld

dp = ld.zoo.double_pendulum()  # absolute angles a, b from the downward vertical
a, b = dp.q
seed = {p: sp.nsimplify(v) for p, v in dp.defaults.items()}  # exact: unit masses, rods, g = 10
print("absolute angles, M =", dp.M)

u1, u2 = ld.coordinates("u1 u2")
rel = dp.change_coordinates([u1, u2], {a: u1, b: u1 + u2})  # q = A u, M_rel = AᵀM A
print("relative angles, M =", sp.simplify(rel.M))

zoo_rel = ld.zoo.get("double_pendulum_relative")
same = zoo_rel.M.subs(dict(zip(zoo_rel.q, (u1, u2)))) - rel.M
assert sp.simplify(same) == sp.zeros(2, 2), "the zoo's relative model differs"
print("the zoo's double_pendulum_relative has the same M")

at_rest = {a: 0, b: 0, u1: 0, u2: 0}
M_abs = dp.M.subs(seed).subs(at_rest)
M_rel = rel.M.subs(seed).subs(at_rest)
print("at a = b = 0: M_abs =", M_abs.tolist(), " M_rel =", M_rel.tolist())
assert M_abs == sp.Matrix([[2, 1], [1, 1]]) and M_rel == sp.Matrix([[5, 2], [2, 1]])
print(
    "eigenvalues",
    [round(float(e), 4) for e in sorted(M_abs.eigenvals())],
    "against",
    [round(float(e), 4) for e in sorted(M_rel.eigenvals())],
    "(not invariant)",
)

qd_abs, qd_rel = sp.Matrix([1, -1]), sp.Matrix([1, -2])  # rates mapped: u̇ = (ȧ, ḃ − ȧ)
K_abs = (qd_abs.T * M_abs * qd_abs)[0] / 2
K_rel = (qd_rel.T * M_rel * qd_rel)[0] / 2
print(f"kinetic energy {K_abs} J = {K_rel} J (invariant)")
assert K_abs == K_rel == sp.Rational(1, 2)

end = (sp.sin(a) + sp.sin(b), -sp.cos(a) - sp.cos(b))  # the second mass, unit rods
Q_abs = ld.generalized_force(end, (3, 0), [a, b]).subs(at_rest)  # Jᵀf
end_u = [e.subs({a: u1, b: u1 + u2}) for e in end]  # the same point in relative angles
Q_rel = ld.generalized_force(end_u, (3, 0), [u1, u2]).subs(at_rest)  # = Aᵀ Q_abs
print("end force (3, 0) N: Q_abs =", list(Q_abs), " Q_rel =", list(Q_rel))
assert list(Q_abs) == [3, 3] and list(Q_rel) == [6, 3]

for name, system in (("absolute", dp), ("relative", rel)):
    print(f"{name}:", "; ".join(ld.structure.check(system).lines()[1:3]))
    assert system.is_skew_symmetric() and system.is_passive()

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
out.mkdir(parents=True, exist_ok=True)
page = ld.lab.write(out / "double_pendulum_lab.html", dp, force=True)
print("wrote", page, "— open it in a browser: sliders, both conventions, a swing mode")
