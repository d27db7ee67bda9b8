"""SDF models (lagdyn.robot.sdf): a small spatial SDF against its hand-converted URDF in
Pinocchio, the four-bar's loop, Cassie's file (link frames and composite inertia against
the file read independently here, its four ball-joint loops closed at the file's pose),
bad input."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import lagdyn as ld
from lagdyn.errors import LagdynError
from lagdyn.robot.sdf import EXAMPLE_SDF, from_sdf, read_sdf

HALF_PI = "1.5707963267948966"

# a base, a link turned 90° about z whose joint axis is given in the model frame, a link
# rolled 90° about x whose joint frame sits 0.1 above it (a joint <pose>)
SPATIAL_SDF = f"""<sdf version="1.6"><model name="spatial">
  <link name="base"><pose>0 0 0.5 0 0 0</pose><inertial><pose>0.05 0 0 0 0 0</pose>
    <mass>3</mass><inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.15</izz><ixy>0.01</ixy>
    <ixz>0</ixz><iyz>0</iyz></inertia></inertial></link>
  <link name="a"><pose>0 0 1 0 0 {HALF_PI}</pose><inertial><pose>0.1 0 0 0 0 0</pose>
    <mass>1</mass><inertia><ixx>0.02</ixx><iyy>0.02</iyy><izz>0.03</izz><ixy>0</ixy>
    <ixz>0.001</ixz><iyz>0</iyz></inertia></inertial></link>
  <link name="b"><pose>0.3 0 1 {HALF_PI} 0 0</pose><inertial><pose>0 0 0.2 0 0 0</pose>
    <mass>2</mass><inertia><ixx>0.02</ixx><iyy>0.02</iyy><izz>0.01</izz><ixy>0</ixy>
    <ixz>0</ixz><iyz>0.002</iyz></inertia></inertial></link>
  <joint name="ja" type="revolute"><parent>base</parent><child>a</child>
    <axis><xyz>1 0 0</xyz><use_parent_model_frame>1</use_parent_model_frame></axis></joint>
  <joint name="jb" type="revolute"><pose>0 0 0.1 0 0 0</pose><parent>a</parent>
    <child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
</model></sdf>"""

# the same robot converted by hand: ja's frame is a's (base frame + (0, 0, 0.5), yaw 90°,
# the model's x axis is -y there); jb's frame is b's frame moved 0.1 along b's z, i.e.
# (0.3, -0.1, 1) in the model, (-0.1, -0.3, 0) and rpy (90°, 0, -90°) in a's frame; b's
# centre of mass is 0.1 above that frame
SPATIAL_URDF = f"""<robot name="spatial">
  <link name="base"><inertial><origin xyz="0.05 0 0"/><mass value="3"/>
    <inertia ixx="0.1" iyy="0.2" izz="0.15" ixy="0.01" ixz="0" iyz="0"/></inertial></link>
  <link name="a"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.03" ixy="0" ixz="0.001" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0 0 0.1"/><mass value="2"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0.002"/></inertial></link>
  <joint name="ja" type="revolute"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.5" rpy="0 0 {HALF_PI}"/><axis xyz="0 -1 0"/>
    <limit lower="-9" upper="9" effort="1" velocity="1"/></joint>
  <joint name="jb" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="-0.1 -0.3 0" rpy="{HALF_PI} 0 -{HALF_PI}"/><axis xyz="0 0 1"/>
    <limit lower="-9" upper="9" effort="1" velocity="1"/></joint>
</robot>"""


def _cassie() -> Path | None:
    try:
        from lagdyn.robot._data import urdf_path

        robots = urdf_path("solo_description", "solo12.urdf").parents[2]
    except Exception:
        return None
    path = robots / "cassie_description" / "robots" / "cassie_v2.sdf"
    return path if path.is_file() else None


CASSIE = _cassie()
needs_cassie = pytest.mark.skipif(CASSIE is None, reason="example-robot-data missing")


@pytest.mark.parametrize("base", ["fixed", "floating"])
def test_spatial_sdf_equals_its_hand_converted_urdf_in_pinocchio(base: str) -> None:
    pin = pytest.importorskip("pinocchio")
    robot = from_sdf(SPATIAL_SDF, base=base).tree
    with_root = pin.JointModelFreeFlyer() if base == "floating" else None
    args = [with_root] if with_root is not None else []
    model = pin.buildModelFromXML(SPATIAL_URDF, *args)
    data = model.createData()
    if base == "floating":
        num = robot.lambdify({"g": 9.81}, kernels=["M", "bias"])
        M_of, h_of = num.M, num.bias
    else:
        num = robot.lambdify({"g": 9.81})
        M_of, h_of = num.M, lambda q, v: num.C(q, v) @ v + num.g(q)
    rng = np.random.default_rng(7)
    for _ in range(3):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        v = rng.normal(size=model.nv)
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        np.testing.assert_allclose(M_of(q), M, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(
            h_of(q, v), pin.nonLinearEffects(model, data, q, v), rtol=1e-12, atol=1e-12
        )


def test_poses_relative_to_a_link_are_composed() -> None:
    """b's pose written relative to a (SDF 1.7 ``relative_to``) gives the same robot."""
    relative = SPATIAL_SDF.replace(
        f"<pose>0.3 0 1 {HALF_PI} 0 0</pose>",
        f'<pose relative_to="a">0 -0.3 0 {HALF_PI} 0 -{HALF_PI}</pose>',
    )
    assert relative != SPATIAL_SDF
    q = np.array([0.4, -0.7])
    one, two = (
        from_sdf(x, base="fixed").tree.lambdify({"g": 9.81}) for x in (SPATIAL_SDF, relative)
    )
    np.testing.assert_allclose(one.M(q), two.M(q), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(one.g(q), two.g(q), rtol=1e-14, atol=1e-14)
    cyclic = SPATIAL_SDF.replace("<pose>0 0 1 0 0", '<pose relative_to="b">0 0 1 0 0').replace(
        f"<pose>0.3 0 1 {HALF_PI}", f'<pose relative_to="a">0.3 0 1 {HALF_PI}'
    )
    with pytest.raises(LagdynError, match="refer in a cycle"):
        read_sdf(cyclic)


def test_four_bar_closes_at_the_files_pose_and_keeps_closed() -> None:
    tree = read_sdf(EXAMPLE_SDF)
    assert tree.root == "ground" and tree.closures == ("crank_rod",)
    assert tree.loops == (("crank_rod__on_parent", "crank_rod__on_child", "point"),)
    cs = from_sdf(EXAMPLE_SDF, base="fixed").closed(redundant="lstsq")
    assert (cs.n, cs.dof) == (3, 1)
    assert cs.residual < 1e-12  # q = 0 is the file's pose: the rod's end on the rocker's
    # the rod's end is 0.8 m from the crank tip, as the file's rod pose and joint pose say
    frame = ld.robot.loops.frame_placement(cs.system, "crank_rod__on_parent")[1]
    tip = np.array([float(x) for x in frame.subs(dict.fromkeys(cs.system.q, 0))])
    assert np.linalg.norm(tip[:2] - [np.cos(0.5), np.sin(0.5)]) == pytest.approx(0.8)
    # KKT dynamics without stabilisation: the loop stays closed along the motion
    res = cs.simulate([0.0, 0.0, 0.0, 2.0, 0.0, 0.0], np.linspace(0, 0.5, 101), start="project")
    assert np.max(np.abs(res.phi)) < 1e-6
    assert np.ptp(res.q[:, 0]) > 0.3  # it moved


def _pose(text: str | None) -> tuple[np.ndarray, np.ndarray]:
    from scipy.spatial.transform import Rotation

    x = [float(v) for v in (text or "0 0 0 0 0 0").split()]
    return Rotation.from_euler("xyz", x[3:]).as_matrix(), np.array(x[:3])


@pytest.fixture(scope="module")
def cassie() -> tuple[object, ET.Element]:
    if CASSIE is None:
        pytest.skip("example-robot-data missing")
    return from_sdf(CASSIE, base="floating"), ET.parse(CASSIE).getroot()


@needs_cassie
def test_cassie_tree_and_loops(cassie: tuple[object, ET.Element]) -> None:
    model, _ = cassie
    found = model.sdf  # type: ignore[attr-defined]
    assert found.root == "pelvis"
    assert sorted(found.closures) == sorted(
        f"{s}-{j}" for s in ("left", "right") for j in ("pitch-rod-joint", "plantar-foot-joint")
    )
    assert all(kind == "point" for _, _, kind in found.loops)
    robot = model.tree  # type: ignore[attr-defined]
    assert (robot.nq, robot.nv) == (29, 28)  # 11 joints a leg: springs, crank, rods


@needs_cassie
def test_cassie_frames_and_inertia_are_the_files(cassie: tuple[object, ET.Element]) -> None:
    """At q = 0 every link frame sits where the file puts it (relative to the pelvis), and
    the composite inertia of the whole robot (the base block of M) is the file's, both read
    here with scipy's rotations, independently of the reader."""
    model, root = cassie
    robot = model.tree  # type: ignore[attr-defined]
    num = robot.lambdify({"g": 9.81}, kernels=["M", "bias"])  # the loops' tests reuse it
    q = robot.neutral()
    Rp, pp = _pose(root.find("model/link[@name='pelvis']/pose").text)  # type: ignore[union-attr]
    mass, h, I_o = 0.0, np.zeros(3), np.zeros((3, 3))
    for link in root.iter("link"):
        R, p = _pose(link.findtext("pose"))
        R, p = Rp.T @ R, Rp.T @ (p - pp)
        Rf, pf = num.frame_placement(q, str(link.get("name")))
        # 1e-9: two relative rolls of 7.4e-10 rad of the file are read as 0 (from_urdf
        # snaps angles within 1e-9 of multiples of π/12)
        np.testing.assert_allclose(Rf, R, atol=1e-9)
        np.testing.assert_allclose(pf, p, atol=1e-9)
        Ri, c = _pose(link.findtext("inertial/pose"))
        m = float(link.findtext("inertial/mass"))  # type: ignore[arg-type]
        v = {
            k: float(link.findtext(f"inertial/inertia/{k}"))
            for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
        }  # type: ignore[arg-type]
        Ic = np.array(
            [
                [v["ixx"], v["ixy"], v["ixz"]],
                [v["ixy"], v["iyy"], v["iyz"]],
                [v["ixz"], v["iyz"], v["izz"]],
            ]
        )
        Rc, pc = R @ Ri, R @ c + p
        mass += m
        h += m * pc
        I_o += Rc @ Ic @ Rc.T + m * (pc @ pc * np.eye(3) - np.outer(pc, pc))
    M = num.M(q)
    assert M[0, 0] == pytest.approx(mass, rel=1e-14) and mass == pytest.approx(32.94)
    np.testing.assert_allclose(M[3:6, 3:6], I_o, atol=1e-10)
    skew = np.array([[0, -h[2], h[1]], [h[2], 0, -h[0]], [-h[1], h[0], 0]])
    np.testing.assert_allclose(M[3:6, 0:3], skew, atol=1e-10)


def test_bad_input_is_named() -> None:
    with pytest.raises(LagdynError, match="ENTITY"):
        read_sdf('<!DOCTYPE sdf [<!ENTITY a "b">]><sdf><model name="m"/></sdf>')
    with pytest.raises(LagdynError, match="not an SDF"):
        read_sdf("<robot/>")
    gearbox = EXAMPLE_SDF.replace(
        'name="rocker_joint" type="revolute"', 'name="rocker_joint" type="gearbox"'
    )
    with pytest.raises(LagdynError, match="'rocker_joint' has type 'gearbox'"):
        read_sdf(gearbox)
    hinge = EXAMPLE_SDF.replace('name="crank_rod" type="ball"', 'name="crank_rod" type="revolute"')
    with pytest.raises(LagdynError, match=r"'crank_rod' \(revolute\) closes a loop"):
        read_sdf(hinge)
    unknown = EXAMPLE_SDF.replace("<child>rocker</child></joint>", "<child>rokker</child></joint>")
    with pytest.raises(LagdynError, match="'rokker' is not a link"):
        read_sdf(unknown)
    world = EXAMPLE_SDF.replace(
        "<parent>ground</parent><child>rocker", "<parent>world</parent><child>rocker"
    )
    with pytest.raises(LagdynError, match="needs base='fixed'"):
        read_sdf(world)
    with pytest.raises(LagdynError, match="SDF file not found"):
        read_sdf("/nonexistent/robot.sdf")
    bad_pose = EXAMPLE_SDF.replace("<pose>2 0 0 0 0", "<pose>2 0 0 0")
    with pytest.raises(LagdynError, match="link 'rocker' <pose>: expected 6 numbers"):
        read_sdf(bad_pose)


# ---------------------------------------------------------------------- numeric loops
def _closed_state(c: Any, q: Any, rng: Any) -> tuple[Any, Any, float]:
    """A configuration projected onto the loops and a velocity with J v = 0."""
    q, res = c.project(q)
    J = c.jacobian(q)
    v = rng.normal(size=J.shape[-1])
    return q, v - np.linalg.pinv(J) @ (J @ v), res


def test_four_bar_numeric_loop_equals_close_loops() -> None:
    """The numeric loop rows (generated frame kernels, J = J_A − J_B) against the symbolic
    close_loops KKT on the SDF four-bar: the same q̈ and the same loop force (world axes)
    to 1e-9 at random closed states. The planar loop's z row is zero everywhere: it is
    found and dropped (rows along the on_parent frame's x and y), and without the
    reduction it is named as redundant and lstsq gives the same answer."""
    sdf = from_sdf(EXAMPLE_SDF, base="fixed")
    cs = sdf.closed(redundant="lstsq")  # symbolic rows p_A − p_B (x, y)
    c = sdf.closures()
    assert c.m == 2 and c.row_names[1].endswith("[crank_rod__on_parent.y]")
    raw = sdf.closures(reduce=False)
    assert raw.m == 3
    rng = np.random.default_rng(7)
    for _ in range(3):
        q, v, res = _closed_state(c, rng.uniform(-0.4, 0.4, 3), rng)
        assert res < 1e-12
        tau = rng.normal(size=3)
        a, lam = c.dynamics(q, v, tau)
        a_s, lam_s = cs.solve(q, v, tau)
        f = c.loop_forces(q, lam)["crank_rod__on_parent~crank_rod__on_child"]
        np.testing.assert_allclose(a, a_s, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(f[:2], lam_s, rtol=1e-9, atol=1e-9)
        assert abs(f[2]) < 1e-12
        assert raw.redundant_rows(q) == ("crank_rod__on_parent~crank_rod__on_child[z]",)
        with pytest.raises(ld.ConstraintError, match=r"row 2 \(crank_rod__on_parent~.*\[z\]\)"):
            raw.dynamics(q, v, tau)
        b, mu = raw.dynamics(q, v, tau, method="lstsq")
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(mu, f, rtol=1e-9, atol=1e-9)


def test_numeric_loops_bad_input_is_named() -> None:
    sdf = from_sdf(EXAMPLE_SDF, base="fixed")
    from lagdyn.robot.contacts import closures, fixed_model

    fm = fixed_model(sdf.tree)
    with pytest.raises(LagdynError, match="kind must be 'point' or 'weld'"):
        closures(fm, [("crank_rod__on_parent", "crank_rod__on_child", "planar")])
    with pytest.raises(LagdynError, match="no frame named 'crank_rod__on_prent'"):
        closures(fm, [("crank_rod__on_prent", "crank_rod__on_child")])
    with pytest.raises(LagdynError, match="closed on itself"):
        closures(fm, [("crank", "crank")])
    # the crank's tip can never reach the ground link's origin (its own pivot, 1 m away)
    far = closures(fm, [("crank_rod__on_parent", "ground")], reduce=False)
    with pytest.raises(ld.ConstraintError, match="did not close"):
        far.project([0.0, 0.0, 0.0])
    fl = from_sdf(EXAMPLE_SDF, base="floating")
    num = fl.tree.lambdify({"g": 9.81}, kernels=["M", "bias"])
    with pytest.raises(LagdynError, match="fused contact kernel has no loop rows"):
        ld.robot.contacts.Contacts(num, loops=fl.loops, fused=True)


@pytest.fixture(scope="module")
def cassie_closed(cassie: tuple[object, ET.Element]) -> object:
    return cassie[0].closed()  # type: ignore[attr-defined]


@needs_cassie
def test_cassie_loops_close_numerically(
    cassie: tuple[object, ET.Element], cassie_closed: object
) -> None:
    """SdfModel.closed() of the floating Cassie: numeric loop rows built in about a second
    (close_loops' symbolic rows did not finish in 15 min). Cassie v2's plantar-rod loops
    are planar (crank, rod and foot joints all turn about parallel axes), so each has one
    dependent row (exactly zero on the left, 1e-10 on the right: the file's rounded link
    poses): they are found and kept as two rows in the on_parent frame, 3 + 3 + 2 + 2 = 10
    independent rows. J v̇ = −γ to rounding, every solver agrees, impulses stop the loops,
    and 60 Euler steps with Baumgarte on Φ (from the placements) pull a loop error of 1e-4 m
    back while the joints move."""
    model, _ = cassie
    robot = model.tree  # type: ignore[attr-defined]
    c: Any = cassie_closed
    assert c.m == 10 and c.m_contacts == 0
    reduced = [n for n in c.row_names if "plantar" in n]
    assert len(reduced) == 4 and all(
        n.endswith(("__on_parent.x]", "__on_parent.y]")) for n in reduced
    )
    rng = np.random.default_rng(3)
    q0 = robot.neutral().copy()
    q0[7:] += rng.normal(scale=0.1, size=robot.nq - 7)
    q, v, res = _closed_state(c, q0, rng)
    assert res < 1e-10  # the right plantar loop's out-of-plane 1e-11 m stays (not a row)
    assert c.redundant_rows(q) == ()
    assert np.linalg.matrix_rank(c.jacobian(q), tol=1e-8) == 10
    tau = rng.normal(size=robot.nv)
    a, lam = c.dynamics(q, v, tau)
    gamma = -c.drift(q, v)
    assert np.abs(c.jacobian(q) @ a - gamma).max() < 1e-12 * (1 + np.abs(gamma).max())
    assert np.all(np.isfinite(lam))
    for method in ("schur", "lstsq", "augmented_lagrangian"):
        b, mu = c.dynamics(q, v, tau, method=method)
        assert np.abs(b - a).max() < 1e-6 * np.abs(a).max(), method
    forces = c.loop_forces(q, lam)
    assert len(forces) == 4 and all(f.shape == (3,) for f in forces.values())
    vp, imp = c.impulse(q, v + rng.normal(size=robot.nv))
    assert np.abs(c.jacobian(q) @ vp).max() < 1e-10 and np.all(np.isfinite(imp))
    # Baumgarte on Φ from the placements: start ~1e-3 m off the loops; the error obeys
    # Φ̈ + 2αΦ̇ + α²Φ = 0 (critically damped): after αt = 4 it is (1 + 4) e⁻⁴ = 9 % of Φ(0)
    q = c.model.integrate(q, 1e-3 * rng.normal(size=robot.nv))
    phi0 = float(np.abs(c.loop_error(q)).max())
    assert phi0 > 1e-4
    v, dt, gain = np.zeros(robot.nv), 2e-4, 200.0
    tau = np.zeros(robot.nv)
    tau[6:] = rng.normal(scale=0.2, size=robot.nv - 6)
    for _ in range(100):
        a, lam = c.dynamics(q, v, tau, baumgarte=(gain, gain))
        v = v + dt * a
        q = c.model.integrate(q, v, dt)
    ratio = float(np.abs(c.loop_error(q)).max()) / phi0
    assert 0.07 < ratio < 0.12  # measured 0.092 (without Baumgarte: 0.9998)
    assert np.abs(q[7:] - q0[7:]).max() > 1e-2  # it moved


@needs_cassie
def test_cassie_stands_on_its_feet_with_its_loops_closed(
    cassie: tuple[object, ET.Element],
) -> None:
    """Ground contacts and loops together (a standing Cassie needs both): both feet as
    surface contacts plus the four loops, 12 + 10 independent rows at a closed posture;
    statics' forces carry the file's weight (32.94 kg) and dynamics at those torques keeps
    the robot still with the same forces."""
    model, _ = cassie
    robot = model.tree  # type: ignore[attr-defined]
    feet = [("left-foot", 6), ("right-foot", 6)]
    c = model.closures(contacts=feet)  # type: ignore[attr-defined]
    assert (c.m_contacts, c.m) == (12, 22)
    q = robot.neutral()
    q[7:] += np.random.default_rng(0).normal(scale=0.1, size=robot.nq - 7)
    q, res = c.project(q)
    assert res < 1e-10 and c.redundant_rows(q) == ()
    tau, lam = c.statics(q)
    forces = c.forces(lam)
    weight = forces["left-foot"][2] + forces["right-foot"][2]
    assert weight == pytest.approx(32.94 * 9.81, rel=1e-12)
    a, lam2 = c.dynamics(q, np.zeros(robot.nv), tau)
    assert np.abs(a).max() < 1e-9
    np.testing.assert_allclose(lam2, lam, atol=1e-8 * np.abs(lam).max())
    # the same set from the numeric model: model.contacts(feet, loops=...)
    same = c.model.contacts(feet, loops=model.loops)  # type: ignore[attr-defined]
    assert same.row_names == c.row_names
    v = np.random.default_rng(1).normal(size=robot.nv)
    for x, y in zip(same.dynamics(q, v, tau), c.dynamics(q, v, tau)):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)
    assert c.model.contacts(feet, loops=model.loops) is same  # built once per set


@needs_cassie
def test_cassie_loops_against_pinocchio(
    cassie: tuple[object, ET.Element], cassie_closed: object
) -> None:
    """Pinocchio's constraintDynamics with RigidConstraintModel CONTACT_3D between the two
    joints' frames of each loop, on the URDF that read_sdf writes: the same v̇ and loop
    forces to 1e-9 at random closed states. The right plantar loop is left out: its
    out-of-plane row is 1e-10 (the file's rounding) but not zero, and Pinocchio keeps it
    as a (near-singular) constraint while lagdyn drops it; the left one is exactly planar
    and Pinocchio's proximal solver handles its zero row (λ compared in the plane)."""
    pin = pytest.importorskip("pinocchio")
    from lagdyn.robot.contacts import closures

    model, _ = cassie
    robot = model.tree  # type: ignore[attr-defined]
    loops = [lp for lp in model.loops if not lp[0].startswith("right-plantar")]  # type: ignore[attr-defined]
    c = closures(cassie_closed.model, loops)  # type: ignore[attr-defined]
    assert c.m == 8
    pm = pin.buildModelFromXML(model.sdf.urdf, pin.JointModelFreeFlyer())  # type: ignore[attr-defined]
    pdata = pm.createData()
    cms = []
    for a, b, _ in loops:
        fa, fb = pm.frames[pm.getFrameId(a)], pm.frames[pm.getFrameId(b)]
        cms.append(
            pin.RigidConstraintModel(
                pin.ContactType.CONTACT_3D,
                pm,
                fa.parentJoint,
                fa.placement,
                fb.parentJoint,
                fb.placement,
                pin.LOCAL_WORLD_ALIGNED,
            )
        )
    cms = pin.StdVec_RigidConstraintModel(cms)
    cds = pin.StdVec_RigidConstraintData([x.createData() for x in cms])
    pin.initConstraintDynamics(pm, pdata, cms, cds)
    prox = pin.ProximalSettings(1e-15, 1e-6, 1000)
    rng = np.random.default_rng(2)
    for _ in range(2):
        q = robot.neutral().copy()
        q[7:] += rng.normal(scale=0.2, size=robot.nq - 7)
        q[:3] = rng.normal(size=3)
        quat = rng.normal(size=4)
        q[3:7] = quat / np.linalg.norm(quat)
        q, v, res = _closed_state(c, q, rng)
        assert res < 1e-12
        tau = rng.normal(size=robot.nv)
        a, lam = c.dynamics(q, v, tau)
        ap = pin.constraintDynamics(pm, pdata, q, v, tau, cms, cds, prox)
        assert np.abs(ap - a).max() < 1e-9 * np.abs(a).max()
        mine = c.loop_forces(q, lam)
        lp = np.asarray(pdata.lambda_c)
        R = c.frames.placement(q)[0][c.frames.index[loops[2][0]]]
        for k, (fa, fb, _) in enumerate(loops):
            f, g = lp[3 * k : 3 * k + 3], mine[f"{fa}~{fb}"]
            if "plantar" in fa:  # in the loop's plane (its normal is the on_parent z)
                f, g = (R.T @ f)[:2], (R.T @ g)[:2]
            assert np.abs(f - g).max() < 1e-9 * np.abs(lam).max(), fa
