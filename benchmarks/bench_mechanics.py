"""from_mechanics against the KanesMethod it reads (issue 24's target).

sympy's n-link pendulum on a cart (``sympy.physics.mechanics.models.n_link_pendulum_on_cart``):
reading the model with ``ld.from_mechanics`` plus lagdyn's M, C, g and the exact skew proof
of Ṁ − 2C, against ``KanesMethod.kanes_equations`` alone on the same model (built afresh
for each side, in this process). Target: lagdyn's whole pipeline faster than Kane's call.

sympy's own rolling discs (``--discs``, also run by default): the documentation disc
("A rolling disc", ``rollingdisc_example_kane.rst``: body rates, the contact point's velocity
zero, no contact coordinates) and the disc of ``test_linearize.py`` (six coordinates, q6
dependent, body rates and the centre's velocity in the disc frame, three velocity
constraints). sympy's side: ``kanes_equations`` and ``linearize(A_and_B=True)`` at upright
rolling; lagdyn's: ``from_mechanics`` (which adds the documentation disc's contact
coordinates), the reduced (Maggi) M_r and forcing, and ``linearize_at`` at the same point;
the two A matrices are compared in Kane's states (max difference printed).

Run ``python benchmarks/bench_mechanics.py [n ...] [--discs]`` (default n = 3 6 10 and the
discs).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import sympy as sp

import lagdyn as ld


def _model(n: int):  # a sympy KanesMethod
    from sympy.physics.mechanics.models import n_link_pendulum_on_cart

    return n_link_pendulum_on_cart(n)


def kane(n: int) -> float:
    """Seconds of ``kanes_equations`` (the model built beforehand, not timed)."""
    from sympy.physics.mechanics import KanesMethod

    km = _model(n)
    # n_link_pendulum_on_cart returns a formed KanesMethod: build an unformed twin
    fresh = KanesMethod(km._inertial, km.q, km.u, kd_eqs=[q.diff() - u for q, u in zip(km.q, km.u)])
    start = time.perf_counter()
    fresh.kanes_equations(km.bodies, km.loads)
    return time.perf_counter() - start


def lagdyn_pipeline(n: int) -> tuple[float, bool | None]:
    """Seconds of from_mechanics + M, C, g + the skew proof, and the proof's verdict."""
    km = _model(n)
    start = time.perf_counter()
    system = ld.from_mechanics(km)
    _ = system.M, system.C, system.g
    verdict = system.is_skew_symmetric()
    return time.perf_counter() - start, verdict


def documentation_disc():  # sympy's rollingdisc_example_kane.rst, unformed
    import sympy.physics.mechanics as me

    q1, q2, q3, u1, u2, u3 = me.dynamicsymbols("q1 q2 q3 u1 u2 u3")
    r, m, g = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w_R_N_qd = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    C = me.Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    inertia = me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2)
    kd = [me.dot(R.ang_vel_in(N) - w_R_N_qd, uv) for uv in L]
    disc = me.RigidBody("BodyD", Dmc, R, m, (inertia, Dmc))
    km = me.KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3], kd_eqs=kd)
    return km, [disc], [(Dmc, -m * g * Y.z)]


def linearize_disc():  # sympy's test_linearize.py::test_linearize_rolling_disc_kane, unformed
    import sympy.physics.mechanics as me

    t = me.dynamicsymbols._t
    r, m, g = sp.symbols("r m g")
    q = me.dynamicsymbols("q1:7")
    q1, q2, q3, q4, q5, q6 = q
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1:7")
    N = me.ReferenceFrame("N")
    NO = me.Point("NO")
    A = N.orientnew("A", "Axis", [q1, N.z])
    B = A.orientnew("B", "Axis", [q2, A.x])
    C = B.orientnew("C", "Axis", [q3, B.y])
    CO = NO.locatenew("CO", q4 * N.x + q5 * N.y + q6 * N.z)
    w_c_n_qd, w_b_n_qd = C.ang_vel_in(N), B.ang_vel_in(N)
    C.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
    v_co_n_qd = CO.pos_from(NO).dt(N)
    CO.set_vel(N, u4 * C.x + u5 * C.y + u6 * C.z)
    P = CO.locatenew("P", r * B.z)
    P.v2pt_theory(CO, N, C)
    f_c = sp.Matrix([q6 - me.dot(CO.pos_from(P), N.z)])
    f_v = sp.Matrix([me.dot(P.vel(N), uv) for uv in C])
    kindiffs = sp.Matrix(
        [me.dot(w_c_n_qd - C.ang_vel_in(N), uv) for uv in B]
        + [me.dot(v_co_n_qd - CO.vel(N), uv) for uv in N]
    )
    qdots = sp.solve(kindiffs, [qi.diff(t) for qi in q])
    B.set_ang_vel(N, w_b_n_qd.subs(qdots))
    C.set_ang_acc(N, C.ang_vel_in(N).dt(B) + me.cross(B.ang_vel_in(N), C.ang_vel_in(N)))
    inertia = me.inertia(C, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    disc = me.RigidBody("Disc", CO, C, m, (inertia, CO))
    km = me.KanesMethod(
        N, [q1, q2, q3, q4, q5], [u1, u2, u3], kd_eqs=kindiffs, q_dependent=[q6],
        configuration_constraints=f_c, u_dependent=[u4, u5, u6], velocity_constraints=f_v,
    )  # fmt: skip
    return km, [disc], [(CO, m * g * A.z)]


def disc_row(name: str) -> str:
    """One table row: sympy's kanes_equations + linearize vs lagdyn's read + reduce +
    linearize_at, at upright rolling (spin 0.8, m = r = g = 1), and max |A − A_Kane|."""
    from sympy.physics.mechanics import dynamicsymbols

    from lagdyn.nonholonomic import linearize_at

    t = dynamicsymbols._t
    build = {"documentation": documentation_disc, "test_linearize": linearize_disc}[name]
    spin, q1v, q3v = 0.8, 0.4, 0.7
    km, bodies, loads = build()
    start = time.perf_counter()
    km.kanes_equations(bodies, loads)
    t_eom = time.perf_counter() - start
    holonomic = len(km.q) == 6
    q0 = [q1v, 0.0, q3v, 0.1, -0.2, -1.0] if holonomic else [q1v, 0.0, q3v]
    u0 = [0.0, spin, 0.0]
    if holonomic:
        u0 += [-spin * np.cos(q3v), 0.0, -spin * np.sin(q3v)]
    ud0 = {u.diff(t): 0.0 for u in km.u}
    if holonomic:
        ud0[km.u[3].diff(t)] = spin**2 * np.sin(q3v)
        ud0[km.u[5].diff(t)] = -(spin**2) * np.cos(q3v)
    op = [dict(zip(km.q, q0)), dict(zip(km.u, u0)), ud0, {sp.Symbol(n): 1.0 for n in "mrg"}]
    start = time.perf_counter()
    A_kane, _, _ = km.linearize(A_and_B=True, op_point=op, linear_solver="LU")
    t_lin = time.perf_counter() - start

    km2, bodies2, loads2 = build()
    km2.kanes_equations(bodies2, loads2)  # from_mechanics reads bodies and loads from it
    start = time.perf_counter()
    cs = ld.from_mechanics(km2)
    q = list(cs.system.q)
    red = cs.reduced(independent=q[:3])
    _ = red.M_reduced, red.forcing([0] * cs.n)
    t_read = time.perf_counter() - start
    ignorable = [] if holonomic else q[3:]
    q0_ld = q0 if holonomic else [*q0, 0.1, -0.2]
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ld.LagdynWarning)
        A, _ = linearize_at(
            cs, q0_ld, [0.0, 0.0, spin], independent=q[:3], ignorable=ignorable, inputs=[],
            params={"m": 1.0, "r": 1.0, "g": 1.0},
        )  # fmt: skip
    t_ld_lin = time.perf_counter() - start
    # Kane's states (q, u) from lagdyn's (q, q̇_I): u_I = Ω(q2) q̇_I, constant q2 here
    s = len(q0) - (1 if holonomic else 0)
    Om = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=float)  # upright: u = (q̇2, q̇3, q̇1)
    T = np.block([[np.eye(s), np.zeros((s, 3))], [np.zeros((3, s)), Om]])
    diff = np.abs(T @ np.array(A, dtype=float) @ np.linalg.inv(T) - np.array(A_kane, dtype=float))
    total_k, total_l = t_eom + t_lin, t_read + t_ld_lin
    return (
        f"| {name} | {t_eom:.2f} + {t_lin:.2f} = {total_k:.2f} | {t_read:.2f} + {t_ld_lin:.2f} "
        f"= {total_l:.2f} | {total_k / total_l:.1f}× | {diff.max():.1e} |"
    )


def main(argv: list[str]) -> None:
    discs = "--discs" in argv or not argv
    sizes = [int(a) for a in argv if a != "--discs"] or ([] if argv else [3, 6, 10])
    if sizes:
        print(
            "| n | KanesMethod.kanes_equations (s) | lagdyn: read + M, C, g + skew proof (s) "
            "| ratio | proof |"
        )
        print("| ---: | ---: | ---: | ---: | --- |")
    for n in sizes:
        tk = kane(n)
        tl, verdict = lagdyn_pipeline(n)
        print(f"| {n} | {tk:.2f} | {tl:.2f} | {tk / tl:.1f}× | {verdict} |")
    if discs:
        print()
        print(
            "| rolling disc | sympy: kanes_equations + linearize (s) | lagdyn: read + reduce "
            "+ linearize_at (s) | ratio | max abs(A - A_Kane) |"
        )
        print("| --- | ---: | ---: | ---: | ---: |")
        for name in ("documentation", "test_linearize"):
            print(disc_row(name))


if __name__ == "__main__":
    main(sys.argv[1:])
