"""Solo12 landing on grippy ground and on ice: unilateral contacts with Coulomb friction.

Shows frictional contacts by time stepping (docs/contacts.md, "Friction and unilateral
contacts"): Solo12 from example-robot-data with ``base="floating"``, its joints held by a PD
law about a standing pose plus the torques that hold that pose (``Contacts.statics``), is
dropped from 3 cm while moving forward at 0.5 m/s. ``Contacts.rollout`` steps it at
dt = 2 ms: the feet are detected against the ground z = 0 (a foot that would reach it within
the step is in contact: no penetration), each step solves the Coulomb law in De Saxcé's form
for the impulses of the feet in contact (projected Gauss–Seidel, every step converged or
reported). On μ = 0.9 the feet hold (the hind feet slip a few millimetres under the impact)
and the body sways on its PD-held legs; on μ = 0.05 (ice) the feet slide and the robot
decelerates at about μ g. Printed per ground: touchdown time, how far the feet slid,
the final speed, the largest ‖λ_t‖/(μ λ_n) (≤ 1: inside the cone) and the largest solver
residual. With matplotlib the base's forward position and speed on both grounds are drawn
to ``quadruped_friction.png`` in OUTDIR (an existing file is left alone).

Usage: ``python examples/quadruped_friction.py [OUTDIR]`` (default ``.``).
"""

import sys
import time
from pathlib import Path

import numpy as np

import lagdyn as ld

try:
    from lagdyn.robot._data import urdf_path

    path = urdf_path("solo_description", "solo12.urdf")
except ImportError as exc:  # example-robot-data is optional
    print(f"this example needs example-robot-data (pip install example-robot-data): {exc}")
    sys.exit(0)

FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
start = time.perf_counter()
solo = ld.robot.from_urdf(path, base="floating", parameters="numeric")
num = solo.lambdify({"g": 9.81}, kernels=["M", "bias", "g"])
feet = num.contacts(list(FEET))  # point contacts, world axes: x, y tangent, z normal

# the standing pose: feet on z = 0, legs bent; the torques that hold it there
q0 = solo.neutral()
q0[7:] = [0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6]
q0[2] = -num.frame_placement(q0, "FL_FOOT")[1][2]
tau0, _ = feet.statics(q0)
kp, kd = 8.0, 0.2


def control(t, q, v):
    """PD about the standing pose plus its holding torques (joints only)."""
    tau = tau0.copy()
    tau[6:] += kp * (q0[7:] - q[7:]) - kd * v[6:]
    tau[:6] = 0.0  # the base is not actuated
    return tau


dt, steps = 2e-3, 300
q_start, v_start = q0.copy(), np.zeros(solo.nv)
q_start[2] += 0.03  # 3 cm up
v_start[0] = 0.5  # moving forward at 0.5 m/s

runs = {}
for mu in (0.9, 0.05):
    run = feet.rollout(q_start, v_start, control, dt, steps, mu=mu)
    runs[mu] = run
    active = run.active.any(axis=1)
    touchdown = run.t[1:][active][0]
    lam = run.lam.reshape(steps, len(FEET), 3)
    lt, ln = np.linalg.norm(lam[..., :2], axis=-1), lam[..., 2]
    ratio = np.where(ln > 1e-12, lt / np.maximum(mu * ln, 1e-300), 0.0).max()
    first = int(np.argmax(active))  # the first step with a foot on the ground
    slid = [
        np.linalg.norm(
            (num.frame_placement(run.q[-1], f)[1] - num.frame_placement(run.q[first + 1], f)[1])[:2]
        )
        for f in FEET
    ]
    lowest = min(num.frame_placement(qk, f)[1][2] for qk in run.q for f in FEET)
    print(
        f"μ = {mu}: touchdown at t = {touchdown:.3f} s; feet slid {np.round(slid, 4)} m after "
        f"touchdown; base at x = {run.q[-1][0]:+.4f} m moving {run.v[-1][0]:+.4f} m/s at "
        f"t = {run.t[-1]:.2f} s"
    )
    print(
        f"  largest ‖λ_t‖/(μ λ_n) = {ratio:.6f} (≤ 1: in the cone); largest residual "
        f"{run.residual.max():.1e} m/s; all steps converged: {bool(run.converged.all())}; "
        f"lowest foot {lowest:+.1e} m"
    )
    assert run.converged.all() and ratio <= 1 + 1e-9 and lowest > -1e-6
grip, ice = runs[0.9], runs[0.05]
assert abs(grip.v[-1][0]) < 0.05 < ice.v[-1][0], "grip stops the robot, ice does not"
k = int(np.argmax(ice.active.any(axis=1)))
drop, expected = ice.v[k][0] - ice.v[-1][0], 0.05 * 9.81 * (ice.t[-1] - ice.t[k])
print(f"on ice the base slowed by {drop:.4f} m/s after touchdown; μ g Δt = {expected:.4f} m/s")
assert abs(drop - expected) < 0.15 * expected
print(f"on ice the base travelled {ice.q[-1][0] - grip.q[-1][0]:+.4f} m farther")
print(f"done in {time.perf_counter() - start:.1f} s")

try:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from lagdyn.errors import LagdynError
    from lagdyn.plot import save_figure
except ImportError:
    print("matplotlib is not installed: no plot")
    sys.exit(0)

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
out.mkdir(parents=True, exist_ok=True)
fig = Figure(figsize=(6, 5))
ax1, ax2 = fig.subplots(2, 1, sharex=True)
for mu, run in runs.items():
    ax1.plot(run.t, run.q[:, 0], label=f"μ = {mu}")
    ax2.plot(run.t, run.v[:, 0], label=f"μ = {mu}")
ax1.set_ylabel("base x (m)")
ax1.legend()
ax2.set_ylabel("base ẋ (m/s)")
ax2.set_xlabel("t (s)")
fig.suptitle("Solo12 landing at 0.5 m/s: grippy ground and ice")
fig.tight_layout()
try:  # save_figure refuses to replace an existing file
    print("wrote", save_figure(fig, out / "quadruped_friction.png", dpi=100))
except LagdynError as exc:
    print(f"plot not written: {exc}")
