"""The rolling disc: lagdyn's nonholonomic pipeline against KanesMethod (issue 24).

Both sides build the same model — a thin disc rolling without slipping, coordinates
(x, y, yaw ψ, lean θ, spin φ), independent speeds ψ̇, θ̇, φ̇ and the no-slip velocity
constraints — derive its equations, reduce them to the independent speeds and linearize
them about upright straight rolling at spin ω = 5 rad/s (all coordinates kept, so the A
matrices are the same 8 × 8 and are compared to 1e-10 here). Each side runs in a fresh
sympy cache state as far as one process allows: the lagdyn side runs first.

lagdyn: ``ld.zoo.rolling.rolling_disc()`` (Lagrangian from the energies + constraint rows),
``reduced()`` (M_r, F) and ``linearize``. Kane: frames, points, bodies,
``kanes_equations`` and ``linearize(A_and_B=True)``.

Run ``python benchmarks/bench_nonholonomic.py [repeats]`` (default 1).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import sympy as sp

import lagdyn as ld


def lagdyn_side(spin: float) -> tuple[float, float, np.ndarray]:
    """(seconds to derive + reduce, seconds to linearize, A)."""
    start = time.perf_counter()
    disc = ld.zoo.rolling.rolling_disc()
    psi, theta, phi = disc.system.q[2:]
    red = disc.reduced(independent=[psi, theta, phi])
    _ = red.M_reduced, red.forcing([0] * 5)
    derived = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ld.LagdynWarning)  # x, ψ, φ keep changing
        A, _ = red.linearize(
            [0, 0, 0, 0, 0], [0, 0, spin], params={"m": 1.0, "r": 1.0, "g": 9.81}, inputs=[]
        )
    linearized = time.perf_counter() - start
    return derived, linearized, np.array(A, dtype=float)


def kane_side(spin: float) -> tuple[float, float, np.ndarray]:
    """(seconds of model + kanes_equations, seconds of linearize, A)."""
    import sympy.physics.mechanics as me

    start = time.perf_counter()
    x, y, psi, theta, phi = q = me.dynamicsymbols("x y psi theta phi")
    u = me.dynamicsymbols("u1:6")
    m, r, g = sp.symbols("m r g", positive=True)
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [psi, N.z])
    B = A.orientnew("B", "Axis", [theta, A.x])
    D = B.orientnew("D", "Axis", [phi, B.y])
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + y * N.y + r * B.z)
    C.set_vel(N, C.pos_from(O).dt(N))
    kd = [c.diff() - ui for c, ui in zip([psi, theta, phi, x, y], u, strict=True)]
    inertia = me.inertia(B, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    disc = me.RigidBody("disc", C, D, m, (inertia, C))
    km = me.KanesMethod(
        N,
        q_ind=q,
        u_ind=u[:3],
        kd_eqs=kd,
        u_dependent=u[3:],
        velocity_constraints=[u[3] - r * sp.cos(psi) * u[2], u[4] - r * sp.sin(psi) * u[2]],
    )
    km.kanes_equations([disc], [(C, -m * g * N.z)])
    derived = time.perf_counter() - start
    start = time.perf_counter()
    op = [
        dict.fromkeys(q, 0.0),
        {u[0]: 0.0, u[1]: 0.0, u[2]: spin, u[3]: spin, u[4]: 0.0},
        {ui.diff(): 0.0 for ui in u},
        {m: 1.0, r: 1.0, g: 9.81},
    ]
    A_k, _, _ = km.linearize(A_and_B=True, op_point=op, linear_solver="LU")
    linearized = time.perf_counter() - start
    return derived, linearized, np.array(A_k, dtype=float)


def main(argv: list[str]) -> None:
    repeats = int(argv[0]) if argv else 1
    print("| step | KanesMethod (s) | lagdyn (s) | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for _ in range(repeats):
        ld_d, ld_l, A_ld = lagdyn_side(5.0)
        k_d, k_l, A_k = kane_side(5.0)
        assert np.abs(A_ld - A_k).max() < 1e-10, "the linearizations disagree"
        print(f"| derive + reduce | {k_d:.3f} | {ld_d:.3f} | {k_d / ld_d:.1f}× |")
        print(f"| linearize | {k_l:.3f} | {ld_l:.3f} | {k_l / ld_l:.1f}× |")
        total_k, total_l = k_d + k_l, ld_d + ld_l
        print(f"| total | {total_k:.3f} | {total_l:.3f} | {total_k / total_l:.1f}× |")
        print(f"max |A_lagdyn − A_Kane| = {np.abs(A_ld - A_k).max():.1e}")


if __name__ == "__main__":
    main(sys.argv[1:])
