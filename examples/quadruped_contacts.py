"""A quadruped on its feet: Solo12 standing on four point contacts, then dropped onto the ground.

Shows the frames and contacts of a floating-base robot (docs/contacts.md), in Pinocchio's
free-flyer conventions: Solo12 from example-robot-data with ``base="floating"``, its feet
(frames behind fixed joints) placed by generated forward kinematics; the static balance on
four point contacts (``Contacts.statics``: joint torques and contact forces with no wrench
on the base) — the forces sum to m g to rounding, and the contact dynamics with those torques
keeps the robot still; then the robot is lifted by 5 cm and let go with its joints held by a
PD law (plus the standing torques once on the ground): free fall (``forward_dynamics``,
q ⊕ v dt), the impact when the feet reach the ground (``contact_impulse``: plastic, the
feet stop, the impulse per foot printed; the kinetic energy lost is printed), and the
stance after it (``contact_dynamics`` with Baumgarte stabilisation on the touchdown points)
until the weight is carried again. With matplotlib, the base height and the total vertical
contact force are drawn to ``quadruped_contacts.png`` in OUTDIR, and the drop is animated
(side view: the base and each leg's hip, knee and foot from the generated frame
placements, ``model.frame_placement``; a frame every 10 ms, 61 frames at 25 fps) to
``quadruped_contacts.gif`` with matplotlib's pillow writer. An existing file of either name
is left alone (nothing is overwritten).

Usage: ``python examples/quadruped_contacts.py [OUTDIR]`` (default ``.``).
"""

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import lagdyn as ld
from lagdyn.robot.floating import integrate

try:
    from lagdyn.robot._data import urdf_path

    path = urdf_path("solo_description", "solo12.urdf")
except ImportError as exc:  # example-robot-data is optional
    print(f"this example needs example-robot-data (pip install example-robot-data): {exc}")
    sys.exit(0)

FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
start = time.perf_counter()
solo = ld.robot.from_urdf(path, base="floating", parameters="numeric")
num = solo.lambdify({"g": 9.81}, kernels=["M", "bias", "g", "forward_dynamics"])
feet = num.contacts([(f, 3) for f in FEET])  # point contacts, world axes
print(f"Solo12: nq = {solo.nq}, nv = {solo.nv}, {len(solo.frames)} frames, feet {FEET}")

# --- standing: the feet on the ground z = 0, the legs bent ---------------------------------
q0 = solo.neutral()
q0[7:] = [0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6]
q0[2] = -num.frame_placement(q0, "FL_FOOT")[1][2]  # lift the base until the feet touch z = 0
mass = float(num.M(q0)[0, 0])
tau0, lam0 = feet.statics(q0)
forces = feet.forces(lam0)
print(f"standing at base height {q0[2]:.4f} m, mass {mass:.4f} kg, weight {mass * 9.81:.4f} N")
for name, f in forces.items():
    p = num.frame_placement(q0, name)[1]
    print(f"  {name}: at ({p[0]:+.4f}, {p[1]:+.4f}, {p[2]:+.1e}) m, force {np.round(f, 4)} N")
total = sum(forces.values())
print(
    f"  sum of the contact forces {np.round(total, 10)} N; "
    f"m g − Σ f_z = {mass * 9.81 - total[2]:.1e}"
)
print(f"  joint torques holding the pose: {np.round(tau0[6:9], 4)} N·m (front left leg)")
a, lam = feet.dynamics(q0, np.zeros(solo.nv), tau0)
print(f"  contact dynamics with these torques: max |v̇| = {np.max(np.abs(a)):.1e}")
assert abs(total[2] - mass * 9.81) < 1e-9 * mass * 9.81 and np.max(np.abs(a)) < 1e-9

# --- the drop ------------------------------------------------------------------------------
kp, kd = 8.0, 0.2  # the joints' PD law about the standing pose (+ its holding torques)


def control(q, v, stance):
    tau = tau0.copy() if stance else np.zeros(solo.nv)
    tau[6:] += kp * (q0[7:] - q[7:]) - kd * v[6:]
    return tau


dt, height = 5e-4, 0.05
q, v = q0.copy(), np.zeros(solo.nv)
q[2] += height
t, log = 0.0, []
every = 20  # a frame of the animation every 20 steps (10 ms)
frames = [q.copy()]
while True:  # flight: free-floating dynamics until a foot reaches the ground
    zf = min(num.frame_placement(q, f)[1][2] for f in FEET)
    if zf <= 0:
        break
    v = v + dt * num.forward_dynamics(q, v, control(q, v, False))
    q = integrate(q, v, dt)
    t += dt
    log.append((t, q[2], 0.0))
    if len(log) % every == 0:
        frames.append(q.copy())
vz = feet.jacobian(q) @ v
print(f"touchdown after {t:.3f} s (free fall: {np.sqrt(2 * height / 9.81):.3f} s), feet at")
print(f"  {np.round(vz[2::3], 4)} m/s (z); base at {v[2]:+.4f} m/s")
v_plus, impulse = feet.impulse(q, v)  # plastic impact on the four feet
imp = feet.forces(impulse)
print("impact: impulses (N·s) " + ", ".join(f"{k} {np.round(x, 4)}" for k, x in imp.items()))
print(
    f"  feet after: max |J_c v⁺| = {np.max(np.abs(feet.jacobian(q) @ v_plus)):.1e} m/s; "
    f"base {v[2]:+.4f} → {v_plus[2]:+.4f} m/s; Σ Λ_z = {sum(x[2] for x in imp.values()):.4f} N·s"
)
M = num.M(q)
print(f"  kinetic energy {v @ M @ v / 2:.4f} J → {v_plus @ M @ v_plus / 2:.4f} J")
assert v_plus @ M @ v_plus <= v @ M @ v
v = v_plus
anchors = [num.frame_placement(q, f)[1] for f in FEET]  # the touchdown points
fz = []
stance = 0.6
while t < stance:  # stance: four point contacts, Baumgarte on the touchdown points
    a, lam = feet.dynamics(q, v, control(q, v, True), baumgarte=(20.0, 20.0), anchors=anchors)
    v = v + dt * a
    q = integrate(q, v, dt)
    t += dt
    fz.append(lam[2::3])
    log.append((t, q[2], lam[2::3].sum()))
    if len(log) % every == 0:
        frames.append(q.copy())
fz = np.array(fz)
drift = max(np.linalg.norm(num.frame_placement(q, f)[1] - p) for f, p in zip(FEET, anchors))
print(
    f"stance to t = {t:.2f} s: base height {q[2]:.4f} m (standing {q0[2]:.4f} m), "
    f"|v| = {np.linalg.norm(v):.1e}"
)
print(
    f"  Σ f_z = {fz[-1].sum():.4f} N against m g = {mass * 9.81:.4f} N; smallest foot force "
    f"{fz.min():.3f} N (> 0: the ground only pushes); feet moved {drift:.1e} m"
)
print(f"done in {time.perf_counter() - start:.1f} s")

try:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import animation
    from matplotlib.figure import Figure

    from lagdyn.errors import LagdynError
    from lagdyn.plot import save_figure
except ImportError:
    print("matplotlib is not installed: no plot, no animation")
    sys.exit(0)

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
out.mkdir(parents=True, exist_ok=True)
tt, zz, ff = np.array(log).T
fig = Figure(figsize=(6, 5))
ax1, ax2 = fig.subplots(2, 1, sharex=True)
ax1.plot(tt, zz, label="base height")
ax1.axhline(q0[2], color="gray", ls=":", label="standing")
ax1.set_ylabel("m")
ax1.legend()
ax2.plot(tt, ff, label="Σ contact forces, z")
ax2.axhline(mass * 9.81, color="gray", ls=":", label="m g")
ax2.set_xlabel("t (s)")
ax2.set_ylabel("N")
ax2.set_ylim(0, 3 * mass * 9.81)
ax2.legend()
fig.suptitle("Solo12 dropped from 5 cm onto four point contacts")
fig.tight_layout()
try:  # save_figure refuses to replace an existing file
    print("wrote", save_figure(fig, out / "quadruped_contacts.png", dpi=100))
except LagdynError as exc:
    print(f"plot not written: {exc}")

# --- the animation: side view (x, z) of the base and the legs ------------------------------
LEGS = [[f"{leg}_{part}" for part in ("HFE", "KFE", "FOOT")] for leg in ("FL", "FR", "HL", "HR")]
pts = np.array([[[num.frame_placement(qk, f)[1] for f in leg] for leg in LEGS] for qk in frames])
gif = out / "quadruped_contacts.gif"
if gif.exists() or gif.is_symlink():
    print(f"animation not written: {gif} exists")
    sys.exit(0)
fig = Figure(figsize=(4, 2.6))
ax = fig.add_axes((0.02, 0.02, 0.96, 0.86))
ax.set_aspect("equal")
ax.set_xlim(pts[..., 0].min() - 0.05, pts[..., 0].max() + 0.05)
ax.set_ylim(-0.03, pts[..., 2].max() + 0.05)
ax.set_xticks([])
ax.set_yticks([])
ax.axhline(0.0, color="0.5", lw=1.5)  # the ground
fig.suptitle("Solo12 dropped from 5 cm (side view)", fontsize="medium")
(body,) = ax.plot([], [], lw=4, color="0.2", solid_capstyle="round")
legs = [
    ax.plot([], [], "-o", lw=2, ms=3, color="C0" if leg[0][1] == "L" else "C1")[0] for leg in LEGS
]
clock = ax.text(0.02, 0.95, "", transform=ax.transAxes, fontsize="small", va="top")
writer = animation.PillowWriter(fps=25)  # 10 ms a frame: slow motion, 0.4 × real time
# drawn in a new temporary folder beside the target, then linked to it (os.link never
# replaces a file that appeared meanwhile)
with tempfile.TemporaryDirectory(prefix=".quadruped_contacts-", dir=out) as tmp:
    drawn = Path(tmp) / gif.name
    with writer.saving(fig, str(drawn), dpi=80):
        for k, xyz in enumerate(pts):
            hips = xyz[:, 0]  # the hip flexion joints: front left, front right, hind ...
            body.set_data([hips[0, 0], hips[2, 0]], [hips[0, 2], hips[2, 2]])
            for line, leg in zip(legs, xyz):
                line.set_data(leg[:, 0], leg[:, 2])
            clock.set_text(f"t = {k * every * dt:.2f} s")
            writer.grab_frame()
    try:
        os.link(drawn, gif)
        print(f"wrote {gif} ({len(pts)} frames, {gif.stat().st_size / 1e3:.0f} kB)")
    except FileExistsError:
        print(f"animation not written: {gif} exists")
