"""SDF models (lagdyn.robot.sdf): a small spatial SDF against its hand-converted URDF in
Pinocchio, the four-bar's loop, Cassie's file (link frames and composite inertia against
the file read independently here, its four ball-joint loops closed at the file's pose),
bad input."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

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
    num = robot.lambdify({"g": 9.81}, kernels=["M"])
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


@needs_cassie
@pytest.mark.slow
def test_cassie_closed_loop_kkt_keeps_the_loops_closed(cassie: tuple[object, ET.Element]) -> None:
    """Cassie's four ball-joint loops closed numerically (close_loops' symbolic rows are too
    slow at this size): KKT forward dynamics with the loop rows J = J_A − J_B (linear
    velocity of the two frames, world axes) and drifts γ = J̇_A v − J̇_B v, small joint
    torques, 100 semi-implicit Euler steps of 0.2 ms without stabilisation: the loops
    (closed at the file's pose to 1e-11: the two snapped rolls) stay closed to 1e-5 m while
    the joints move by centiradians, and the 12 rows are independent."""
    from lagdyn.robot.floating import integrate

    model, _ = cassie
    robot, loops = model.tree, model.loops  # type: ignore[attr-defined]
    num = robot.lambdify({"g": 9.81}, kernels=["M", "bias"])

    def phi(q: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [num.frame_placement(q, a)[1] - num.frame_placement(q, b)[1] for a, b, _ in loops]
        )

    q, v = robot.neutral(), np.zeros(robot.nv)
    assert np.abs(phi(q)).max() < 1e-10
    tau = np.zeros(robot.nv)
    tau[6:] = np.random.default_rng(1).normal(scale=0.2, size=robot.nv - 6)
    worst, dt = 0.0, 2e-4
    for _ in range(100):
        J = np.vstack(
            [num.frame_jacobian(q, a)[:3] - num.frame_jacobian(q, b)[:3] for a, b, _ in loops]
        )
        gamma = np.concatenate(
            [num.frame_drift(q, v, a)[:3] - num.frame_drift(q, v, b)[:3] for a, b, _ in loops]
        )
        K = np.block([[num.M(q), -J.T], [J, np.zeros((12, 12))]])
        a = np.linalg.solve(K, np.concatenate([tau - num.bias(q, v), -gamma]))[: robot.nv]
        v = v + dt * a
        q = integrate(q, v, dt)
        worst = max(worst, float(np.abs(phi(q)).max()))
    assert np.linalg.matrix_rank(J) == 12
    assert np.abs(q[7:] - robot.neutral()[7:]).max() > 0.01  # it moved
    assert worst < 1e-5
