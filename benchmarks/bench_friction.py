"""One frictional time step of Solo12 on its four feet: lagdyn against Pinocchio 4's own
pipeline.

Usage: ``python benchmarks/bench_friction.py [--backend numpy|c] [--case sticking|sliding]
[--batches 1,1024] [--tol 1e-9]``.

lagdyn: ``Contacts.step`` (:mod:`lagdyn.robot.friction`) for a batch of states in one call:
M and h (generated kernels), the feet's placements and Jacobians (generated), the Delassus
matrix and the drift, projected Gauss–Seidel vectorised across the states, v⁺ and q⁺.

Pinocchio (same process, a Python loop over the states): ``crba``, ``nonLinearEffects``,
``computeJointJacobians`` + ``updateFramePlacements`` + four ``getFrameJacobian``
(LOCAL_WORLD_ALIGNED), G = J M⁻¹ Jᵀ and g = J v_free (one numpy solve), its
``PGSConstraintSolver`` (or ``--solver admm``) on a ``DelassusOperatorDense`` with
Coulomb cones (μ per foot), v⁺ and ``pin.integrate``. Tolerances: ours ``--tol`` on the
natural-map residual (m/s), Pinocchio's absolute and relative feasibility and
complementarity tolerances set to the same number (its own measures). The impulses of
both are compared state by state (largest difference relative to the largest impulse).

States: Solo12 standing (legs bent, feet on z = 0) with the joints perturbed by
N(0, 0.05²) rad, gravity-compensating torques (``Contacts.statics``); ``--case sliding``
adds a sideways trunk velocity of 0.5 m/s and μ = 0.05 (every foot slides); sticking uses
μ = 1.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import lagdyn as ld
from lagdyn.robot._data import urdf_path

FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")


def _best(f, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def states(robot, num, feet, batch, case, rng):
    q0 = robot.neutral()
    q0[7:] = np.tile([0.0, 0.8, -1.6], 4)
    _, p = num.frame_placement(q0, "FL_FOOT")
    q0[2] -= p[2]
    Q = np.tile(q0, (batch, 1))
    Q[:, 7:] += rng.normal(scale=0.05, size=(batch, 12))
    # put the lowest foot of each state on the ground
    heights = np.stack([num.frame_placement(Q, f)[1][:, 2] for f in FEET], axis=1)
    Q[:, 2] -= heights.min(axis=1)
    T, _ = feet.statics(Q)
    V = np.zeros((batch, 18))
    if case == "sliding":
        V[:, 1] = 0.5
    ground = np.stack([num.frame_placement(Q, f)[1][:, 2] for f in FEET], axis=1)
    return Q, V, T, ground


def pinocchio_pipeline(pin, path, mu, tol, solver_kind):
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    data = model.createData()
    ids = [model.getFrameId(f) for f in FEET]
    cms = pin.StdVec_ConstraintModel()
    for _ in FEET:
        cm = pin.PointContactConstraintModel(model)
        cm.setFriction(mu)
        cms.append(pin.ConstraintModel(cm))
    cds = pin.StdVec_ConstraintData()
    for cm in cms:
        cds.append(cm.createData())
    if solver_kind == "pgs":
        solver, settings, result = (
            pin.PGSConstraintSolver(12),
            pin.PGSSolverSettings(),
            pin.PGSSolverResult(),
        )
    else:
        solver, settings, result = (
            pin.ADMMConstraintSolver(),
            pin.ADMMSolverSettings(),
            pin.ADMMSolverResult(),
        )
    settings.max_iterations = 10000
    for name in (
        "absolute_complementarity_tol",
        "absolute_feasibility_tol",
        "relative_complementarity_tol",
        "relative_feasibility_tol",
    ):
        setattr(settings, name, tol)
    LWA = pin.LOCAL_WORLD_ALIGNED
    iters = []

    def step(q, v, tau, dt, ground):
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        h = pin.nonLinearEffects(model, data, q, v)
        pin.computeJointJacobians(model, data, q)
        pin.updateFramePlacements(model, data)
        J = np.vstack([pin.getFrameJacobian(model, data, i, LWA)[:3] for i in ids])
        sol = np.linalg.solve(M, np.column_stack([J.T, tau - h]))
        MinvJt, a = sol[:, :12], sol[:, 12]
        v_free = v + dt * a
        G = J @ MinvJt
        g = J @ v_free
        gap = np.array([data.oMf[i].translation[2] for i in ids]) - ground
        g[2::3] += np.where(gap > 0, gap, 0.2 * gap) / dt
        ok = solver.solve(pin.DelassusOperatorDense(G), g, cms, cds, settings, result)
        if not ok:
            raise RuntimeError("Pinocchio's solver did not converge")
        iters.append(result.iterations)
        lam = result.retrieveConstraintImpulses()
        v_plus = v_free + MinvJt @ lam
        return pin.integrate(model, q, dt * v_plus), v_plus, lam

    return step, iters


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="numpy")
    ap.add_argument("--case", default="sticking", choices=["sticking", "sliding"])
    ap.add_argument("--batches", default="1,1024")
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--solver", default="pgs", choices=["pgs", "admm"])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    import pinocchio as pin

    path = str(urdf_path("solo_description", "solo12.urdf"))
    t = time.perf_counter()
    robot = ld.robot.from_urdf(path, base="floating", parameters="numeric")
    num = robot.lambdify({"g": 9.81}, kernels=["M", "bias", "g"], backend=args.backend)
    feet = num.contacts(list(FEET))
    feet.jacobian(robot.neutral())  # build the frame kernels
    print(f"lagdyn build ({args.backend}): {time.perf_counter() - t:.1f} s")
    mu = 1.0 if args.case == "sticking" else 0.05
    dt = 0.002
    rng = np.random.default_rng(0)
    pin_step, iters = pinocchio_pipeline(pin, path, mu, args.tol, args.solver)
    print(
        f"Solo12, four point feet, {args.case} (mu = {mu}), dt = {dt}, tol = {args.tol:g}, "
        f"Pinocchio solver {args.solver.upper()}"
    )
    for batch in (int(b) for b in args.batches.split(",")):
        Q, V, T, ground = states(robot, num, feet, batch, args.case, rng)
        one = batch == 1
        q_in, v_in, t_in, g_in = (Q[0], V[0], T[0], ground[0]) if one else (Q, V, T, ground)

        def ours(q_in=q_in, v_in=v_in, t_in=t_in, g_in=g_in):
            return feet.step(q_in, v_in, t_in, dt, mu=mu, ground=g_in, tol=args.tol)

        def theirs(Q=Q, V=V, T=T, ground=ground):
            return [pin_step(Q[k], V[k], T[k], dt, ground[k]) for k in range(len(Q))]

        s = ours()
        ref = theirs()
        lam_ref = np.array([r[2] for r in ref])
        lam = np.reshape(s.lam, lam_ref.shape)
        diff = np.abs(lam - lam_ref).max() / np.abs(lam_ref).max()
        vdiff = np.abs(np.reshape(s.v, (batch, 18)) - np.array([r[1] for r in ref])).max()
        iters.clear()
        t_ours = _best(ours, args.rounds)
        t_pin = _best(theirs, args.rounds)
        print(
            f"  batch {batch:5d}: lagdyn {1e6 * t_ours / batch:9.1f} µs/state "
            f"({s.iterations} sweeps), Pinocchio loop {1e6 * t_pin / batch:9.1f} µs/state "
            f"(median {int(np.median(iters))} iterations)  ratio lagdyn/pin "
            f"{t_ours / t_pin:6.2f}   |Δλ|/|λ| {diff:.1e}, |Δv⁺| {vdiff:.1e}"
        )


if __name__ == "__main__":
    main()
