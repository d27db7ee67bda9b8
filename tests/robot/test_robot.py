"""Robot chains (lagdyn.robot): builders, recursive programs against the closed form, the zoo arms.

The closed-form route (geometric Jacobians, :func:`lagdyn.robot.system.closed_form`) and the
recursive programs (RNEA, CRBA, LDLᵀ, Coriolis) share only the link data, so agreement is a
real cross-check; Christoffel symbols come from LagrangianSystem's own derivation.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lagdyn as ld
from helpers import TREE, closed_numeric, compiled, rel, states, tree_model, zoo
from lagdyn import recursive as programs

FEW = settings(max_examples=5, deadline=None)


# ---------------------------------------------------------------------- the required figure
def test_puma560_gravity_torques_at_zero():
    puma = zoo("puma560")
    assert puma.defaults[sp.Symbol("g", positive=True)] == 9.81
    g = compiled(puma, "g")(q=np.zeros(6))
    np.testing.assert_allclose(g, [0, 37.4837, 0.2489, 0, 0, 0], atol=5e-5)
    _, g_closed, _ = closed_numeric(puma)
    np.testing.assert_allclose(g_closed(np.zeros(6)), g, atol=1e-12)


# ---------------------------------------------------------------------- exact, n ≤ 3
def _exact_zero(expr):
    qs = [sp.Symbol(f"_ldq{i}", real=True) for i in range(3)]
    return ld.structure.is_zero(expr, [s for s in qs if expr.has(s)])


@pytest.mark.parametrize("name", ["planar_3r", "spatial_3r"])
def test_recursive_equals_closed_form_exactly(name):
    arm = ld.zoo.get(name)
    qs, vs = arm.plain_symbols
    M = programs.crba(arm.chain).inline()
    assert all(_exact_zero(M[i, j] - arm.plain(arm.M[i, j])) for i in range(3) for j in range(3))
    C = programs.coriolis(arm.chain).inline()
    assert all(_exact_zero(C[i, j] - arm.plain(arm.C[i, j])) for i in range(3) for j in range(3))
    g = programs.rnea(arm.chain, qd=False, qdd=False).inline()
    assert all(_exact_zero(g[i] - arm.plain(arm.g[i])) for i in range(3))
    ins = programs.input_symbols(3)
    tau = programs.rnea(arm.chain).inline()
    rhs = arm.plain(arm.M) * sp.Matrix(ins["qdd"]) + arm.plain(arm.C) * sp.Matrix(vs)
    assert all(_exact_zero(tau[i] - rhs[i] - arm.plain(arm.g[i])) for i in range(3))


def test_symbolic_parameters_two_link_exact_and_linear():
    """Ten symbols per link: τ equals the closed form and is linear in the parameters."""
    arm = ld.robot.from_dh([(0, 0, sp.pi / 2), (0, 1, 0)])
    assert len(arm.parameters) == 21  # 2 × 10 + g
    tau = programs.rnea(arm.chain).inline()
    ins = programs.input_symbols(2)
    qs, vs = arm.plain_symbols
    rhs = arm.plain(arm.M) * sp.Matrix(ins["qdd"]) + arm.plain(arm.C) * sp.Matrix(vs)
    assert all(_exact_zero(tau[i] - rhs[i] - arm.plain(arm.g[i])) for i in range(2))
    inertial = [s for s in arm.parameters if s.name != "g"]
    for e in tau:
        e = sp.expand(e.subs(sp.Symbol("g", positive=True), 1))
        poly = sp.Poly(e, *inertial)
        assert poly.total_degree() <= 1  # linear in the barycentric parameters


# ---------------------------------------------------------------------- numeric, all arms
@pytest.mark.parametrize("name", ["puma560", "ur5"])
def test_recursive_programs_match_closed_form_numerically(name):
    """M, g against the closed form; τ, q̈, C against M and RNEA; Ṁ − 2C skew (UR5 only:
    the programs of a 6-DOF arm take seconds to build, the tree below covers C and q̈ too)."""
    arm = zoo(name)
    M_closed, g_closed, _ = closed_numeric(arm)
    M, tau, g = (compiled(arm, k) for k in ("M", "tau", "g"))
    full = name == "ur5"
    for q, v, a, u in states(arm.n, 7, 2):
        Mq = M(q=q)
        np.testing.assert_allclose(Mq, M_closed(q), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(g(q=q), g_closed(q), rtol=1e-12, atol=1e-12)
        hq = tau(q=q, qd=v, qdd=np.zeros(arm.n))
        np.testing.assert_allclose(tau(q=q, qd=v, qdd=a), Mq @ a + hq, rtol=1e-12, atol=1e-11)
        if not full:
            continue
        qdd = compiled(arm, "qdd")(q=q, qd=v, tau=u)
        np.testing.assert_allclose(qdd, np.linalg.solve(Mq, u - hq), rtol=1e-10)
        Cq = compiled(arm, "C")(q=q, qd=v)
        np.testing.assert_allclose(Cq @ v, hq - g(q=q), rtol=1e-12, atol=1e-11)
        Mdot = M(q=q + 1e-30j * v).imag / 1e-30  # complex step through CRBA: exact Ṁ
        N = Mdot - 2 * Cq
        np.testing.assert_allclose(N + N.T, 0, atol=1e-11)


@FEW
@given(st.lists(st.floats(-3, 3), min_size=12, max_size=12))
def test_tree_urdf_random_states(values):
    model = tree_model()
    M_closed, g_closed, U_closed = model["closed"]
    f = model["f"]
    x = np.array(values)
    q, v, a = x[:4], x[4:8], x[8:12]
    Mq = f["M"](q=q)
    np.testing.assert_allclose(Mq, M_closed(q), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(f["g"](q=q), g_closed(q), rtol=1e-12, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(Mq) > 0)
    C = f["C"](q=q, qd=v)
    h = f["h"](q=q, qd=v)
    np.testing.assert_allclose(C @ v, h - g_closed(q), rtol=1e-11, atol=1e-11)
    Mdot = f["M"](q=q + 1e-30j * v).imag / 1e-30
    np.testing.assert_allclose(Mdot - 2 * C, -(Mdot - 2 * C).T, atol=1e-11)
    np.testing.assert_allclose(model["E"](q, v), v @ Mq @ v / 2 + U_closed(q), rtol=1e-12)
    tau = f["tau"](q=q, qd=v, qdd=a)
    np.testing.assert_allclose(tau, Mq @ a + h, rtol=1e-11, atol=1e-11)
    # ABA inverts RNEA: q̈ = ABA(q, q̇, RNEA(q, q̇, a)) = a
    np.testing.assert_allclose(f["aba"](q=q, qd=v, tau=tau), a, rtol=1e-9, atol=1e-9)


def test_tree_branches_decouple():
    """The two branches of the tree (slide and roll) share no mass-matrix entry."""
    tree = ld.robot.from_urdf(TREE, parameters="numeric")
    M = programs.crba(tree.chain)
    assert M.outputs[2 * 4 + 3] == 0 and M.outputs[3 * 4 + 2] == 0
    assert M.outputs[1 * 4 + 3] == 0


# ---------------------------------------------------------------------- customization


# ---------------------------------------------------------------------- builders agree
def test_modified_dh_panda_matches_franka_urdf_frames():
    """The zoo Panda (modified DH) equals franka_description's URDF (hand stripped)."""
    from lagdyn.robot._data import urdf_path

    try:
        path = urdf_path("panda_description", "panda.urdf")
    except ImportError as exc:
        pytest.skip(f"example-robot-data not installed: {exc}")
    root = ET.parse(path).getroot()
    for elem in list(root):
        name = elem.get("name", "")
        if elem.tag in ("link", "joint") and (
            "hand" in name or "finger" in name or name in ("panda_link8", "panda_joint8")
        ):
            root.remove(elem)
    urdf = ld.robot.from_urdf(ET.tostring(root, encoding="unicode"), parameters="numeric")
    dh = zoo("panda")
    M_closed, g_closed, _ = closed_numeric(dh)
    for q, v, a, _ in states(7, 5, 2):
        np.testing.assert_allclose(compiled(dh, "M")(q=q), M_closed(q), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(compiled(dh, "g")(q=q), g_closed(q), rtol=1e-12, atol=1e-12)
        for key, kw in (("M", {"q": q}), ("tau", {"q": q, "qd": v, "qdd": a})):
            np.testing.assert_allclose(
                compiled(urdf, key)(**kw), compiled(dh, key)(**kw), rtol=1e-10, atol=1e-12
            )


def test_dh_urdf_and_screws_agree_on_a_spatial_arm():
    """One 3R arm three ways: modified DH, a hand-written URDF, and screws."""
    inertia = [
        {"m": 2, "com": (0.1, 0.0, 0.2), "I": (0.03, 0.02, 0.01, 0.001, 0, 0)},
        {"m": 1.5, "com": (0.3, 0.02, 0), "I": (0.01, 0.04, 0.04, 0, 0, 0.002)},
        {"m": 0.7, "com": (0.1, 0, 0.05), "I": (0.002, 0.003, 0.004, 0, 0.0005, 0)},
    ]
    dh = ld.robot.from_dh(
        [(0.4, 0, 0), (0, 0.1, -sp.pi / 2), (0.05, 0.6, 0)],
        "modified",
        inertia=inertia,
        parameters="numeric",
    )

    def inertial(spec):
        (xx, yy, zz, xy, yz, xz), c = spec["I"], spec["com"]
        return (
            f'<inertial><mass value="{spec["m"]}"/><origin xyz="{c[0]} {c[1]} {c[2]}"/>'
            f'<inertia ixx="{xx}" ixy="{xy}" ixz="{xz}" iyy="{yy}" iyz="{yz}" izz="{zz}"/>'
            "</inertial>"
        )

    xml = f"""<robot name="m3r"><link name="b"/>
      <joint name="j1" type="revolute"><parent link="b"/><child link="l1"/>
        <origin xyz="0 0 0.4"/><axis xyz="0 0 1"/></joint>
      <link name="l1">{inertial(inertia[0])}</link>
      <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
        <origin xyz="0.1 0 0" rpy="-1.5707963267949 0 0"/><axis xyz="0 0 1"/></joint>
      <link name="l2">{inertial(inertia[1])}</link>
      <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>
        <origin xyz="0.6 0 0.05"/><axis xyz="0 0 1"/></joint>
      <link name="l3">{inertial(inertia[2])}</link></robot>"""
    urdf = ld.robot.from_urdf(xml, parameters="numeric")
    # screws: the home frames are the DH frames at q = 0
    frames = dh.chain.forward_kinematics([0, 0, 0])
    screws = []
    for R, p in frames:
        w = R[:, 2]
        screws.append(list(w) + list(-w.cross(p)))
    scr = ld.robot.from_screws(screws, frames, inertia=inertia, parameters="numeric")
    for q, v, a, _ in states(3, 11, 3):
        ref = compiled(dh, "tau")(q=q, qd=v, qdd=a)
        for other in (urdf, scr):
            np.testing.assert_allclose(
                compiled(other, "tau")(q=q, qd=v, qdd=a), ref, rtol=1e-12, atol=1e-12
            )
        np.testing.assert_allclose(
            compiled(scr, "M")(q=q), compiled(dh, "M")(q=q), rtol=1e-12, atol=1e-12
        )


def test_urdf_fixed_joint_merges_inertia():
    """A point mass on a fixed joint equals the same mass written into the parent's inertial."""
    base = """<robot name="r"><link name="b"/>
      <joint name="j" type="revolute"><parent link="b"/><child link="l"/><axis xyz="0 1 0"/></joint>
      <link name="l"><inertial><mass value="{m}"/><origin xyz="{c}"/>
        <inertia ixx="{i}" ixy="0" ixz="0" iyy="{i}" iyz="0" izz="0.1"/></inertial></link>{extra}
      </robot>"""
    extra = """<joint name="f" type="fixed"><parent link="l"/><child link="tip"/>
        <origin xyz="0 0 0.5" rpy="0.3 0.2 0.1"/></joint>
      <link name="tip"><inertial><mass value="1"/>
        <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>"""
    split = ld.robot.from_urdf(
        base.format(m=1, c="0 0 0", i=0.1, extra=extra), parameters="numeric"
    )
    # merged by hand: mass 2, COM (0, 0, 0.25), Ixx = Iyy = 0.1 + 2 · 0.25²
    merged = ld.robot.from_urdf(
        base.format(m=2, c="0 0 0.25", i=0.225, extra=""), parameters="numeric"
    )
    assert sp.simplify(split.M[0, 0] - merged.M[0, 0]) == 0
    assert sp.simplify(split.g[0] - merged.g[0]) == 0


def test_urdf_snaps_angles_and_reads_decimals_exactly():
    tree = ld.robot.from_urdf(TREE, parameters="numeric")
    R, p = tree.chain.links[1].pre
    assert R == sp.Matrix([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    assert p == sp.Matrix([sp.Rational(1, 20), 0, sp.Rational(1, 5)])
    assert tree.chain.joint_names == ("yaw", "pitch", "slide", "roll")
    assert [link.joint for link in tree.chain.links] == [
        "revolute",
        "revolute",
        "prismatic",
        "revolute",
    ]


@pytest.mark.parametrize(
    ("xml", "match"),
    [
        (
            '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="floating">'
            '<parent link="a"/><child link="b"/></joint></robot>',
            "floating",
        ),
        (
            '<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>'
            '<joint name="k" type="revolute"><parent link="a"/><child link="c"/>'
            '<mimic joint="j"/></joint></robot>',
            "mimic",
        ),
        (
            '<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>'
            '<joint name="k" type="revolute"><parent link="c"/><child link="b"/></joint></robot>',
            "closed loop",
        ),
        (
            '<robot name="r"><link name="a"/><joint name="j" type="revolute"><parent link="a"/>'
            '<child link="zz"/></joint></robot>',
            "unknown link",
        ),
        ("<robot name='r'><link", "malformed"),
        ("<sdf/>", "not a URDF"),
        ("/no/such/file.urdf", "not found"),
    ],
)
def test_urdf_rejections(xml, match):
    with pytest.raises(ld.LagdynError, match=match):
        ld.robot.from_urdf(xml)


def test_bad_dh_and_screw_input():
    with pytest.raises(ld.LagdynError, match="convention"):
        ld.robot.from_dh([(0, 1, 0)], "craig")
    with pytest.raises(ld.LagdynError, match="R or P"):
        ld.robot.from_dh([(0, 1, 0)], joints="X")
    with pytest.raises(ld.LagdynError, match="numeric"):
        ld.robot.from_dh([(0, 1, 0)], parameters="numeric")
    with pytest.raises(ld.ShapeError):
        ld.robot.from_dh([(0, 1)])
    with pytest.raises(ld.LagdynError, match="pitch"):
        ld.robot.from_screws([(0, 0, 1, 0, 0, 1)], [(sp.eye(3), (0, 0, 0))])
    with pytest.raises(ld.LagdynError, match="joint type"):
        ld.robot.Link("x", "spherical", (0, 0, 1))


# ---------------------------------------------------------------------- armature and friction
def test_armature_and_friction():
    spec = {"m": 1, "com": (-0.5, 0, 0), "armature": 0.3, "viscous": 0.2, "coulomb": 0.1}
    arm = ld.robot.from_dh([(0, 1, 0)] * 2, inertia=[spec] * 2, parameters="numeric", friction=True)
    bare = ld.robot.from_dh(
        [(0, 1, 0)] * 2, inertia=[{"m": 1, "com": (-0.5, 0, 0)}] * 2, parameters="numeric"
    )
    assert sp.simplify(arm.M - bare.M - sp.eye(2) * sp.Rational(3, 10)) == sp.zeros(2)
    qd = arm.qd
    assert arm.forces[0] == -sp.Rational(1, 5) * qd[0] - sp.Rational(1, 10) * sp.sign(qd[0])
    q, v, a = np.array([0.3, -0.2]), np.array([0.5, -0.7]), np.array([0.1, 0.4])
    tau_f = compiled(arm, "tau")(q=q, qd=v, qdd=a)
    tau_0 = compiled(bare, "tau")(q=q, qd=v, qdd=a)
    np.testing.assert_allclose(tau_f - tau_0, 0.3 * a + 0.2 * v + 0.1 * np.sign(v), rtol=1e-12)
    qdd = compiled(arm, "qdd")(q=q, qd=v, tau=tau_f)
    np.testing.assert_allclose(qdd, a, rtol=1e-10)


def test_robot_system_is_a_lagrangian_system():
    arm = ld.zoo.get("planar_3r")
    assert isinstance(arm, ld.LagrangianSystem)
    assert arm.is_skew_symmetric()
    num = arm.lambdify(arm.defaults)
    q = np.array([0.1, 0.2, -0.3])
    np.testing.assert_allclose(num.M(q), compiled(arm, "M")(q=q), rtol=1e-12)
    assert "q_{1}" in arm.latex() or "q1" in arm.latex()
    with pytest.raises(ld.LagdynError, match="unknown program"):
        arm.program("aba")


def test_zoo_registers_the_arms():
    for name in ("puma560", "ur5", "panda", "planar_3r", "spatial_3r"):
        assert name in ld.zoo.names()
        assert ld.zoo.summary(name)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_prismatic_dh_with_symbolic_geometry_exact(convention):
    """An RP arm with symbolic lengths: τ from RNEA equals M q̈ + C q̇ + g exactly."""
    l, d = sp.symbols("l d", positive=True)
    rows = [
        {"d": 0, "a": l, "alpha": sp.pi / 2},
        {"d": d, "a": 0, "alpha": 0, "joint": "P"},
    ]
    arm = ld.robot.from_dh(rows, convention)
    assert [link.joint for link in arm.chain.links] == ["revolute", "prismatic"]
    tau = programs.rnea(arm.chain).inline()
    ins = programs.input_symbols(2)
    qs, vs = arm.plain_symbols
    rhs = arm.plain(arm.M) * sp.Matrix(ins["qdd"]) + arm.plain(arm.C) * sp.Matrix(vs)
    rhs += arm.plain(arm.g)
    assert all(ld.structure.is_zero(tau[i] - rhs[i], [qs[0]]) for i in range(2))


# ---------------------------------------------------------------------- lambdify routes
_KERNEL_ARGS = {
    "M": ("q",),
    "C": ("q", "qd"),
    "g": ("q",),
    "bias": ("q", "qd"),
    "energy": ("q", "qd"),
    "forward_dynamics": ("q", "qd", "u"),
    "inverse_dynamics": ("q", "qd", "u"),
}


def _route_model(system, route, backend, params=None, **kw):
    pytest.importorskip("cffi") if backend == "c" else None
    try:
        return system.lambdify(
            system.defaults if params is None else params, route=route, backend=backend, **kw
        )
    except ld.BackendUnavailableError as exc:
        pytest.skip(str(exc))


# ---------------------------------------------------------------------- ABA, joint frames, CSE


# exactness: test_recursive_equals_closed_form_exactly runs the (joint-frame) programs


# ---------------------------------------------------------------------- UR5: DH against URDF
def _moved_inertials(link, K_R, K_p):
    """``link``'s inertial parameters re-expressed in a frame where its frame is (K_R, K_p)."""
    m, h, I = link.mass, link.first_moment, link.inertia
    Rh = K_R * h
    P, H = ld.robot.skew(K_p), ld.robot.skew(Rh)
    return m, Rh + m * K_p, K_R * I * K_R.T - m * P * P - P * H - H * P


def test_ur5_dh_table_against_urdf():
    """UR's DH table and ur_description's URDF describe the same arm: every URDF link frame
    is a constant transform K_i of DH frame i (base turned by π about z, no joint offsets),
    the flange sits where the DH table puts it, and with the URDF's inertials moved into the
    DH frames M and g agree to rounding."""
    from dataclasses import replace

    from lagdyn.robot.system import build

    urdf = zoo("ur5")
    dh = ld.zoo.get("ur5", frames="dh")
    Lz = sp.diag(-1, -1, 1)
    zero = [0] * 6
    fu, fd = urdf.chain.forward_kinematics(zero), dh.chain.forward_kinematics(zero)
    K = []
    for (Ru, pu), (Rd, pd) in zip(fu, fd):  # T_u = Lz T_d K  →  K = T_d⁻¹ Lz⁻¹ T_u, exact
        K.append((sp.simplify(Rd.T * Lz.T * Ru), sp.simplify(Rd.T * (Lz.T * pu - pd))))
    assert K[1][1].T == sp.Matrix([[sp.Rational(17, 40), 0, sp.Rational(2717, 20000)]])
    rng = np.random.default_rng(17)
    for q in rng.uniform(-3, 3, (3, 6)):
        fu, fd = urdf.chain.forward_kinematics(list(q)), dh.chain.forward_kinematics(list(q))
        for (Ru, pu), (Rd, pd), (KR, Kp) in zip(fu, fd, K):
            np.testing.assert_allclose(
                np.array(Lz * Rd * KR, dtype=float), np.array(Ru, dtype=float), atol=1e-12
            )
            np.testing.assert_allclose(
                np.array(Lz * (pd + Rd * Kp), dtype=float).ravel(),
                np.array(pu, dtype=float).ravel(),
                atol=1e-12,
            )
    # the flange at q = 0, from the DH table: (a2 + a3, −(d4 + d6), d1 − d5) in UR's base
    flange = dh.chain.forward_kinematics(zero)[5][1]
    assert list(flange) == [
        sp.Rational("-0.81725"),
        sp.Rational("-0.19145"),
        sp.Rational("-0.005491"),
    ]
    # the URDF's inertials moved into the DH frames: the same M and g
    links = []
    for link_d, link_u, (KR, Kp) in zip(dh.chain.links, urdf.chain.links, K):
        m, h, I = _moved_inertials(link_u, KR, Kp)
        links.append(replace(link_d, mass=m, first_moment=h, inertia=I))
    moved = build(dh.chain.with_links(links))
    f = {k: programs.crba(c.chain).lambdify(c.defaults) for k, c in (("u", urdf), ("d", moved))}
    g = {
        k: programs.rnea(c.chain, qd=False, qdd=False).lambdify(c.defaults)
        for k, c in (("u", urdf), ("d", moved))
    }
    for q in rng.uniform(-3, 3, (3, 6)):
        assert rel(f["d"](q=q), f["u"](q=q)) < 1e-12
        assert rel(g["d"](q=q), g["u"](q=q)) < 1e-12
    # and UR's own inertials (forearm 2.33 kg, COMs of UR's table) give a different arm
    g_ur = programs.rnea(dh.chain, qd=False, qdd=False).lambdify(dh.defaults)
    q = np.array([0.3, -0.8, 1.1, 0.2, 0.5, 0.1])
    assert 1e-3 < rel(g_ur(q=q), g["u"](q=q)) < 0.3
    with pytest.raises(ld.LagdynError, match="frames must be"):
        ld.zoo.get("ur5", frames="world")


# Gaz et al. (2019)'s published gravity model of the Panda (marcocognetti/
# FrankaEmikaPandaDynModel, cpp/.../GravityVector.cpp, built from the *identified* dynamic
# coefficients), evaluated at three configurations; g = 9.81 in their model.
_GAZ_GRAVITY = [
    ([0, 0, 0, 0, 0, 0, 0], [0, -3.481913, 0, -3.206071, 0, 1.685878, 0]),
    (
        [0, -np.pi / 4, 0, -3 * np.pi / 4, 0, np.pi / 2, np.pi / 4],
        [0, -1.738757, -0.668258, 18.52398, 0.715814, 1.671368, 0],
    ),
    (
        [0.3, -0.5, 0.2, -1.8, 0.4, 1.2, -0.6],
        [0, -7.015919, -3.073019, 16.419601, 1.055627, 1.532445, -0.017283],
    ),
]


def test_panda_inertials_reproduce_gaz_gravity_model():
    """The zoo Panda carries the *feasible* physical parameters of Gaz et al. (supplementary
    tables VIII–IX, as franka_description / example-robot-data ship them); their published
    gravity model uses the identified coefficients those parameters approximate, so the two
    gravity vectors agree to about 1.5 % (not to rounding) — a wrong mass, COM or frame
    shows up as tens of per cent."""
    panda = zoo("panda")
    g = programs.rnea(panda.chain, qd=False, qdd=False).lambdify(panda.defaults)
    for q, ref in _GAZ_GRAVITY:
        got, ref = g(q=np.array(q, dtype=float)), np.array(ref)
        assert np.max(np.abs(got - ref)) < 0.02 * np.max(np.abs(ref))
        assert np.all(np.sign(got[np.abs(ref) > 0.1]) == np.sign(ref[np.abs(ref) > 0.1]))
