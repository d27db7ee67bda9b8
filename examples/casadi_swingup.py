"""Cart-pole swing-up by direct collocation in CasADi, replayed in lagdyn and caught by LQR.

Shows ``system.to_casadi()``: the forward dynamics lagdyn generates become a
``casadi.Function`` (an SX graph of the same CSE program lagdyn compiles), used inside a
CasADi ``Opti`` problem solved by IPOPT (shipped in the casadi wheel). The pole starts
hanging (θ = π; θ is measured from the upward vertical) with the cart at rest; the force on
the cart is bounded (|F| ≤ 20 N) and so is the travel (|x| ≤ 1 m). Trapezoidal collocation
on a uniform grid minimizes ∫F² dt and ends upright at rest.

The optimal force is then replayed open loop in ``ld.simulate`` (linear between the grid
points, as the collocation assumed); once the pole is near the top the LQR of
``ld.control.lqr`` around the upright equilibrium takes over and holds it there.

Usage: ``python examples/casadi_swingup.py [OUTDIR]``; with matplotlib and pillow, writes
``casadi_swingup.gif`` and ``casadi_swingup.png`` into OUTDIR (default
``docs/assets/gallery``). ``LAGDYN_FAST=1`` uses a coarser grid. Without casadi it says so
and exits.
"""

import os
import sys
from pathlib import Path

import numpy as np

import lagdyn as ld

try:
    import casadi as ca
except ImportError:
    print("casadi is not installed (pip install 'lagdyn[casadi]'): nothing to do")
    sys.exit(0)

FAST = os.environ.get("LAGDYN_FAST") == "1"
T, N = 2.5, (40 if FAST else 80)  # horizon [s], collocation intervals
F_MAX, X_MAX = 20.0, 1.0


def swing_up(cm):
    """The optimal (t, q, qd, F) of the swing-up, and IPOPT's return status."""
    fd = cm.forward_dynamics.map(N + 1)  # one graph over every grid point
    opti = ca.Opti()
    q = opti.variable(2, N + 1)
    qd = opti.variable(2, N + 1)
    F = opti.variable(1, N + 1)
    qdd = fd(q, qd, ca.vertcat(F, ca.DM.zeros(1, N + 1)))
    h = T / N
    opti.subject_to(q[:, 1:] - q[:, :-1] == h / 2 * (qd[:, 1:] + qd[:, :-1]))
    opti.subject_to(qd[:, 1:] - qd[:, :-1] == h / 2 * (qdd[:, 1:] + qdd[:, :-1]))
    opti.subject_to(q[:, 0] == ca.DM([0.0, np.pi]))
    opti.subject_to(qd[:, 0] == 0)
    opti.subject_to(q[:, -1] == 0)
    opti.subject_to(qd[:, -1] == 0)
    opti.subject_to(opti.bounded(-F_MAX, F, F_MAX))
    opti.subject_to(opti.bounded(-X_MAX, q[0, :], X_MAX))
    opti.minimize(h * ca.sumsqr(F))
    s = np.linspace(0.0, 1.0, N + 1)
    opti.set_initial(q[1, :], np.pi * (1 - s))  # a straight line from hanging to upright
    opti.set_initial(qd[1, :], -np.pi / T)
    opti.solver("ipopt", {"print_time": False}, {"print_level": 0, "sb": "yes"})
    sol = opti.solve()
    status = opti.stats()["return_status"]
    t = np.linspace(0.0, T, N + 1)
    return t, sol.value(q).T, sol.value(qd).T, sol.value(F).ravel(), status


def lqr_gain(cp):
    """The LQR gain around the upright equilibrium, force on the cart only."""
    A, B = cp.linearize([0.0, 0.0], params=cp.defaults)
    K, _, _ = ld.control.lqr(A, B[:, :1], np.diag([10.0, 10.0, 1.0, 1.0]), np.eye(1))
    return K


def replay(cp, t, F, K, hold=3.5):
    """Simulate the open-loop plan, switching to the LQR near the top; (result, switch time)."""
    caught = []

    def force(time, qs, qds):
        x = np.concatenate([qs, qds], axis=-1)
        near = abs(np.arctan2(np.sin(qs[1]), np.cos(qs[1]))) < 0.2 and abs(qds[1]) < 1.5
        if caught or (time > 0.8 * T and near):
            if not caught:
                caught.append(time)
            u = -(K @ x)[0]
        else:
            u = np.interp(time, t, F)
        return np.array([u, 0.0])

    res = ld.simulate(cp, [0.0, np.pi, 0.0, 0.0], T + hold, tau=force, dt=0.005)
    return res, (caught[0] if caught else None)


def main() -> None:
    cp = ld.zoo.cart_pole()
    cm = cp.to_casadi(cp.defaults)  # every parameter bound: f(q, qd, tau)
    t, q, _, F, status = swing_up(cm)
    print(f"IPOPT: {status}; max |F| = {np.abs(F).max():.2f} N, ", end="")
    print(f"max |x| = {np.abs(q[:, 0]).max():.2f} m")
    assert status == "Solve_Succeeded", status

    K = lqr_gain(cp)
    res, caught = replay(cp, t, F, K)
    theta = np.arctan2(np.sin(res.q[:, 1]), np.cos(res.q[:, 1]))
    print(f"LQR took over at t = {caught:.3f} s")
    print(f"final state: x = {res.q[-1, 0]:.4f} m, theta = {theta[-1]:.2e} rad")
    assert caught is not None and abs(theta[-1]) < 1e-2 and abs(res.q[-1, 0]) < 0.5

    gallery = Path(__file__).parents[1] / "docs/assets/gallery"
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else gallery
    try:
        import matplotlib  # noqa: F401
        import PIL  # noqa: F401
    except ImportError:
        print("matplotlib/pillow not installed: no figures")
        return
    from matplotlib.figure import Figure

    from lagdyn import plot

    out.mkdir(parents=True, exist_ok=True)
    x = np.concatenate([res.q, res.qd], axis=-1)
    applied = np.where(res.t < caught, np.interp(res.t, t, F), -(x @ K.T)[:, 0])
    fig = Figure(figsize=(6.4, 4.2))
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    ax1.plot(res.t, res.q[:, 0], label="x [m]")
    ax1.plot(res.t, res.q[:, 1], label="θ [rad] (0 = upright)")
    ax1.plot(t, q[:, 1], "k:", lw=1, label="θ planned (collocation)")
    ax2.plot(res.t, applied, label="F [N]")
    for ax in (ax1, ax2):
        ax.axvline(caught, color="grey", lw=0.8)
        ax.legend(loc="upper right", fontsize=8)
    ax2.set_xlabel("t [s] (grey line: LQR takes over)")
    ax1.set_title("cart-pole swing-up: CasADi/IPOPT plan replayed, then LQR")
    fig.tight_layout()
    fig.savefig(out / "casadi_swingup.png", dpi=80)
    plot.animate(
        res,
        plot.positions_for("cart_pole", cp),
        out / "casadi_swingup.gif",
        fps=15,
        frames=20 if FAST else None,
        figsize=(4.0, 2.6),
        dpi=60,
        trail=0.6,
        force=True,  # regenerating the gallery replaces its GIF
        title="CasADi swing-up, then LQR",
    )
    print("wrote", out / "casadi_swingup.png", out / "casadi_swingup.gif")


if __name__ == "__main__":
    main()
