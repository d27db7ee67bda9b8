"""A real arm: the UR5 from its URDF, recursive programs, a second of free fall.

Shows the robot route end to end: ``ld.zoo.get("ur5")`` (ur_description's URDF, or the
file from the optional example-robot-data package when it is installed) becomes a
LagrangianSystem whose recursive programs (RNEA, CRBA, LDLᵀ, Coriolis) are built in a
fraction of a second; their sizes are printed; the identities the generated code relies on
(Ṁ − 2C skew, C q̇ + g = h, CRBA against RNEA, forward dynamics, dE/dt = q̇ᵀτ) are proved
on the UR5's programs themselves (:mod:`lagdyn.recursive.proofs`: exact arithmetic at random
points, no closed form), the closed-form proof is shown on the small spatial 3R, and the
skew property is checked numerically on the UR5; then the arm falls for one second under
gravity (``ld.simulate``,
RK4 on the recursive forward dynamics) and the energy drift is reported. With matplotlib
and pillow, the end-effector path is drawn to ``ur5_fall.png`` and the falling arm (its 3-D
stick figure in an oblique view, :func:`lagdyn.plot.animate`) to ``ur5_fall.gif`` in OUTDIR.

Usage: ``python examples/ur5.py [OUTDIR]`` (default ``docs/assets/gallery``).
"""

import sys
import time
from pathlib import Path

import numpy as np

import lagdyn as ld

try:
    from lagdyn.robot._data import urdf_path

    arm = ld.robot.from_urdf(urdf_path("ur_description", "ur5_robot.urdf"), parameters="numeric")
    source = "example-robot-data ur5_robot.urdf"
except ImportError:
    arm = ld.zoo.get("ur5")
    source = "lagdyn.zoo (ur_description numbers)"
print(f"UR5 from {source}: {arm.n} joints {', '.join(arm.chain.joint_names)}")

for name in ("M", "h", "tau", "qdd", "C"):
    prog = arm.program(name)
    print(
        f"  {name:>3}: {len(prog.body):4d} statements, {prog.count_ops():5d} operations after CSE, "
        f"built in {prog.seconds:.2f} s"
    )

start = time.perf_counter()
report = ld.robot.proofs.prove(arm)
print(f"UR5 programs ({time.perf_counter() - start:.2f} s):")
for line in report.lines():
    print("  " + line)
assert report.ok

small = ld.zoo.get("spatial_3r")
start = time.perf_counter()
print(f"spatial 3R: Ṁ − 2C skew (exact proof): {small.is_skew_symmetric()}", end=" ")
print(f"({time.perf_counter() - start:.2f} s)")

model = arm.lambdify(arm.defaults, route="recursive")  # generated from the recursive programs
M = arm.program("M").lambdify(arm.defaults)  # one program as numpy code, complex inputs too
rng = np.random.default_rng(0)
q, v = rng.uniform(-2, 2, (2, 6))
Mdot = M(q=q + 1e-30j * v).imag / 1e-30  # complex step through CRBA: Ṁ to machine precision
N = Mdot - 2 * model.C(q, v)
print(
    f"UR5: max |N + Nᵀ| / max |N| at a random state = {np.abs(N + N.T).max() / np.abs(N).max():.1e}"
)

x0 = np.concatenate([[0.0, -0.3, 0.5, 0.0, 0.4, 0.0], np.zeros(6)])
t = np.linspace(0.0, 1.0, 201)
result = ld.simulate(model, x0, t, method="rk4", substeps=4)
print(result.report())

try:
    import matplotlib
    import PIL  # noqa: F401  (GIF writer)

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
except ImportError:
    print("matplotlib or pillow is not installed: no figure, no animation")
else:
    from lagdyn import plot

    out = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else Path(__file__).parents[1] / "docs/assets/gallery"
    )
    out.mkdir(parents=True, exist_ok=True)
    tip = np.array([arm.chain.forward_kinematics(list(qk))[-1][1] for qk in result.q[::10]])
    tip = tip.astype(float).reshape(len(tip), 3)
    fig = Figure(figsize=(4, 3))
    ax = fig.add_subplot(projection="3d")
    ax.plot(tip[:, 0], tip[:, 1], tip[:, 2], "o-", ms=2)
    ax.set_title("UR5 wrist, 1 s of free fall")
    fig.savefig(out / "ur5_fall.png", dpi=80)
    print("wrote", out / "ur5_fall.png")
    # the arm's 3-D stick figure (base, then every link frame origin), oblique view
    positions = plot.positions_for("ur5", arm)
    gif = plot.animate(
        result,
        positions,
        out / "ur5_fall.gif",
        frames=25,
        fps=25,
        dpi=50,
        trail=0.5,
        title="UR5, 1 s of free fall",
        force=True,
    )
    print("wrote", gif)
