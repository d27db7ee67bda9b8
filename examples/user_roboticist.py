"""A roboticist's first session: a URDF arm, its mass matrix, inverse dynamics, and proofs.

Written from the docs alone (docs/robots.md): a three-joint arm given as URDF text (a file
path works the same) is loaded with ``ld.robot.from_urdf``; its closed-form mass matrix is
printed, its inverse dynamics evaluated on a batch of states on the recursive route and
checked against M q̈ + h, and the identities of its recursive programs (Ṁ − 2C skew,
C q̇ + g = h, M q̈ + h = τ, forward dynamics, dE/dt = q̇ᵀτ) are proved on the programs
themselves with ``lagdyn.recursive.proofs.prove``.
"""

import numpy as np

import lagdyn as ld
from lagdyn.recursive import proofs

URDF = """<robot name="rrr">
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0 0 0.2"/><mass value="2.0"/>
      <inertia ixx="0.03" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.004"/></inertial>
  </link>
  <link name="fore">
    <inertial><origin xyz="0 0 0.15"/><mass value="1.2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.002"/></inertial>
  </link>
  <link name="hand">
    <inertial><origin xyz="0 0 0.05"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="shoulder_yaw" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit effort="50" velocity="3"/></joint>
  <joint name="shoulder_pitch" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.4"/><axis xyz="0 1 0"/><limit effort="50" velocity="3"/></joint>
  <joint name="elbow" type="revolute"><parent link="fore"/><child link="hand"/>
    <origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><limit effort="20" velocity="3"/></joint>
</robot>"""

arm = ld.robot.from_urdf(URDF)  # ten symbolic inertial parameters per link; values in defaults
print(f"{arm.n} joints: {', '.join(arm.chain.joint_names)}; {len(arm.parameters)} parameters")
print("M[2, 2] =", arm.M[2, 2], "(closed form, in the barycentric parameters)")

num = arm.lambdify(arm.defaults, route="recursive")  # the file's numbers, g = 9.81
print("M(0) =", num.M(np.zeros(arm.n)).round(4).tolist())
rng = np.random.default_rng(1)
q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 100, arm.n))  # a batch of 100 states
tau = num.inverse_dynamics(q, qd, qdd)
check = np.einsum("...ij,...j->...i", num.M(q), qdd) + num.bias(q, qd)
print(f"inverse dynamics of 100 states: max |τ − (M q̈ + h)| = {np.abs(tau - check).max():.1e}")
assert np.allclose(tau, check, rtol=1e-12, atol=1e-12)
closed = arm.lambdify(arm.defaults, route="closed")  # from the closed form: the same numbers
assert np.allclose(closed.inverse_dynamics(q, qd, qdd), tau, rtol=1e-10, atol=1e-10)

report = proofs.prove(arm)  # on the recursive programs, exact arithmetic at random points
print("\n".join(report.lines()))
assert report.ok  # every identity proved
