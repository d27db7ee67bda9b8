"""URDF input (issue 21, items 5, 6, 7, 15, 18): trees in any order, problems named at
their cause, a warning for a base that may be floating, and Pinocchio's joint order.

Each test states the rule of ``docs/guarantees.md`` ("URDF input") it checks. The
cross-checks against Pinocchio run when ``pin`` and example-robot-data are installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld

INERTIAL = (
    '<inertial><mass value="{m}"/><origin xyz="{c}"/>'
    '<inertia ixx="{i}" ixy="0" ixz="0" iyy="{i}" iyz="0" izz="{i}"/></inertial>'
)


def link(name, m=1, c="0.1 0 0", i=0.01, inertial=True):
    body = INERTIAL.format(m=m, c=c, i=i) if inertial else ""
    return f'<link name="{name}">{body}</link>'


def joint(name, parent, child, kind="revolute", axis="0 0 1", origin="0.2 0 0", extra=""):
    ax = f'<axis xyz="{axis}"/>' if axis is not None else ""
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{origin}"/>{ax}{extra}</joint>'
    )


def robot(*parts, name="r"):
    return f'<robot name="{name}">' + "".join(parts) + "</robot>"


def load(xml, **kw):
    """from_urdf, failing on any warning unless the test expects one."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return ld.robot.from_urdf(xml, parameters=kw.pop("parameters", "numeric"), **kw)


# a tree: base → a (joint "j_a") → a2 ("j_a2"); base → b ("j_b"); listed children first
TREE_PARTS = [
    link("base", inertial=False),
    joint("j_b", "base", "b", axis="1 0 0"),
    joint("j_a2", "a", "a2", axis="0 1 0"),
    link("a2", m=0.5),
    joint("j_a", "base", "a"),
    link("a", m=2),
    link("b", m=1.5),
]
ORDERED_PARTS = [TREE_PARTS[i] for i in (0, 4, 5, 2, 3, 1, 6)]


# ------------------------------------------------------------------ item 6: any order


def test_tree_listed_children_first_loads_in_depth_first_name_order():
    """A joint listed before its parent's joint is fine: the tree is ordered depth-first
    from the root, a link's child joints by name (j_a, then its child j_a2, then j_b)."""
    shuffled = load(robot(*TREE_PARTS))
    assert shuffled.chain.joint_names == ("j_a", "j_a2", "j_b")
    assert [lk.parent for lk in shuffled.chain.links] == [-1, 0, -1]
    ordered = load(robot(*ORDERED_PARTS))
    assert ordered.chain.joint_names == ("j_a", "j_a2", "j_b")
    assert sp.simplify(shuffled.M - ordered.M) == sp.zeros(3, 3)


def test_sibling_joints_ordered_by_name_not_by_file_position():
    """Pinocchio (urdfdom) visits a link's child joints in the order of their names."""
    xml = robot(
        link("base", inertial=False),
        joint("zeta", "base", "z"),
        link("z"),
        joint("alpha", "base", "a"),
        link("a"),
    )
    assert load(xml).chain.joint_names == ("alpha", "zeta")


@pytest.mark.parametrize(
    ("parts", "match"),
    [
        (  # a joint whose parent link does not exist: the joint and the parent named
            [link("a"), link("b"), joint("j", "a", "b"), joint("k", "ghost", "a")],
            r"joint 'k': its parent is an unknown link 'ghost' \(no <link name='ghost'>\)",
        ),
        (
            [link("a"), joint("j", "a", "zz")],
            r"joint 'j': its child is an unknown link 'zz'",
        ),
        (  # two parents
            [link("a"), link("b"), link("c"), joint("j", "a", "b"), joint("k", "c", "b")],
            r"link 'b' is the child of two joints, 'j' and 'k'",
        ),
        (  # a cycle beside a proper tree: the cycle's joints are named
            [
                link("a"),
                link("b"),
                link("c"),
                link("d"),
                joint("j", "a", "b"),
                joint("k", "c", "d"),
                joint("l", "d", "c"),
            ],
            r"the joints \['.', '.'\] form a cycle .*not connected to the root 'a'",
        ),
        (  # every link on a cycle: no root
            [link("a"), link("b"), joint("j", "a", "b"), joint("k", "b", "a")],
            r"form a cycle \(not a tree\); no link is the root",
        ),
        (
            [link("a"), link("b"), link("c"), joint("j", "a", "b")],
            r"not one tree: \['a', 'c'\] have no parent joint",
        ),
    ],
)
def test_what_cannot_be_a_tree_is_refused_by_name(parts, match):
    with pytest.raises(ld.LagdynError, match=match):
        load(robot(*parts))


# ------------------------------------------------------------------ item 18: empty files


@pytest.mark.parametrize(
    ("xml", "match"),
    [
        ('<robot name="r"/>', r"URDF 'r' is empty: it has no <link> and no <joint>"),
        (robot(link("a")), r"URDF 'r' has no joints: nothing moves \(one link, 'a'\)"),
        (robot(link("a"), link("b")), r"has no joints: nothing moves \(links \['a', 'b'\]\)"),
        (
            robot(link("a"), link("b"), joint("f", "a", "b", kind="fixed")),
            r"no movable joint \(every joint is fixed\)",
        ),
    ],
)
def test_empty_urdf_says_so(xml, match):
    with pytest.raises(ld.LagdynError, match=match) as info:
        load(xml)
    assert "cycle" not in str(info.value)


# ------------------------------------------------------------------ item 7: named causes


def test_massless_moving_link_is_named_at_load():
    """A link without <inertial> is massless (as urdfdom and Pinocchio read it); a joint that
    moves only massless links leaves its row of M zero: refused at load (numeric), naming
    the joint, the link and the way out."""
    xml = robot(
        link("base", inertial=False),
        joint("j1", "base", "l1"),
        link("l1"),
        joint("j2", "l1", "l2", axis="0 1 0"),
        link("l2", inertial=False),
    )
    with pytest.raises(ld.SingularMassMatrixError) as info:
        load(xml)
    message = str(info.value)
    assert "joint 'j2' (row 2) moves only massless links ('l2' without <inertial>)" in message
    assert "locked=['j2']" in message
    # symbolic: the model is valid, its defaults are not: a warning with the same cause
    with pytest.warns(UserWarning, match=r"joint 'j2' \(row 2\) moves only massless links"):
        ld.robot.from_urdf(xml)
    # locking the joint, as suggested, loads
    assert load(xml, locked=["j2"]).n == 1


def test_massless_link_carrying_a_massive_child_is_fine():
    xml = robot(
        link("base", inertial=False),
        joint("j1", "base", "l1"),
        link("l1", inertial=False),
        joint("f", "l1", "tip", kind="fixed"),
        link("tip", m=1),
    )
    assert load(xml).M[0, 0] != 0


@pytest.mark.parametrize(
    ("inertial", "match"),
    [
        (
            '<inertial><mass value="1"/></inertial>',
            r"link 'l1': <inertial> has no <inertia> element",
        ),
        (
            '<inertial><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>',
            r"link 'l1': <inertial> has no <mass value=...>",
        ),
        (
            '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>',
            r"link 'l1': <inertia> lacks ixy, ixz, iyz",
        ),
        (
            '<inertial><mass value="-1"/>'
            '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>',
            r"link 'l1': mass = -1 breaks the assumption that mass is nonnegative",
        ),
        (  # not positive semidefinite (eigenvalues -1, 1, 1)
            '<inertial><mass value="1"/>'
            '<inertia ixx="0" ixy="1" ixz="0" iyy="0" iyz="0" izz="1"/></inertial>',
            r"link 'l1': the inertia .* is not positive semidefinite",
        ),
    ],
)
def test_bad_inertial_is_refused_naming_the_link(inertial, match):
    xml = robot(
        link("base", inertial=False),
        joint("j1", "base", "l1"),
        f'<link name="l1">{inertial}</link>',
    )
    with pytest.raises(ld.LagdynError, match=match):
        load(xml)


def test_rounded_decimals_of_a_thin_disk_pass_the_triangle_inequality():
    """Izz = Ixx + Iyy written with four digits (0.0833 + 0.0833 < 0.1667) is rounding."""
    xml = robot(
        link("base", inertial=False),
        joint("j1", "base", "l1"),
        '<link name="l1"><inertial><mass value="1"/><inertia ixx="0.0833" ixy="0" ixz="0" '
        'iyy="0.0833" iyz="0" izz="0.1667"/></inertial></link>',
    )
    assert load(xml).M[0, 0] == sp.Rational(1667, 10000)


def test_triangle_inequality_violation_warns_naming_the_link():
    """Principal moments with A + B < C (positive definite, so M stays positive definite,
    but no body has them: real files carry such values) give a warning naming the link;
    check_inertia=False accepts them silently."""
    xml = robot(
        link("base", inertial=False),
        joint("j1", "base", "l1"),
        '<link name="l1"><inertial><mass value="1"/>'
        '<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.5"/></inertial></link>',
    )
    with pytest.warns(
        UserWarning, match=r"the inertia of link 'l1' \(principal moments 0.1, 0.1, 0.5\) violates"
    ):
        arm = ld.robot.from_urdf(xml, parameters="numeric")
    assert arm.M[0, 0] == sp.Rational(1, 2)
    assert load(xml, check_inertia=False).M[0, 0] == sp.Rational(1, 2)


def test_indefinite_inertia_accepted_on_request_and_ignored_on_the_world():
    bad = (
        '<link name="{}"><inertial><mass value="1"/>'
        '<inertia ixx="0.1" ixy="0.5" ixz="0" iyy="0.1" iyz="0" izz="0.2"/></inertial></link>'
    )
    moving = robot(link("base", inertial=False), joint("j1", "base", "l1"), bad.format("l1"))
    with pytest.raises(
        ld.LagdynError, match=r"link 'l1'.*not positive semidefinite.*check_inertia=False"
    ):
        load(moving)
    assert load(moving, check_inertia=False).M[0, 0] == sp.Rational(1, 5)
    # a link welded to the world does not enter M: its inertia is not checked
    welded = robot(bad.format("base"), joint("j1", "base", "l1"), link("l1"))
    assert load(welded, base="fixed").n == 1


def test_zero_axis_refused_and_non_unit_axis_normalised():
    parts = [link("base", inertial=False), link("l1", m=2, c="1 0 0", i=0.25)]
    with pytest.raises(ld.LagdynError, match=r"joint 'j1' has the zero axis"):
        load(robot(*parts, joint("j1", "base", "l1", axis="0 0 0")))
    unit = load(robot(*parts, joint("j1", "base", "l1", axis="0 0 1")))
    scaled = load(robot(*parts, joint("j1", "base", "l1", axis="0 0 2")))
    assert unit.M == scaled.M == sp.Matrix([[sp.Rational(9, 4)]])  # 2·1² + 0.25
    slanted = load(robot(*parts, joint("j1", "base", "l1", axis="0 1 1")))
    assert sp.simplify(slanted.M[0, 0] - sp.Rational(9, 4)) == 0  # |u × c|² = 1, uᵀIu = 1/4


@pytest.mark.parametrize(
    ("where", "xml", "match"),
    [
        (
            "axis",
            robot(link("b"), joint("j", "b", "l", axis="0 nan 1"), link("l")),
            "joint 'j' axis",
        ),
        (
            "origin",
            robot(link("b"), joint("j", "b", "l", origin="inf 0 0"), link("l")),
            "joint 'j' origin xyz",
        ),
        ("mass", robot(link("b"), joint("j", "b", "l"), link("l", m="nan")), "link 'l': mass"),
        (
            "com",
            robot(link("b"), joint("j", "b", "l"), link("l", c="0 -inf 0")),
            "link 'l' inertial origin xyz",
        ),
        (
            "inertia",
            robot(link("b"), joint("j", "b", "l"), link("l", i="NaN")),
            "link 'l': inertia ixx",
        ),
        (
            "overflow",
            robot(link("b"), joint("j", "b", "l"), link("l", m="1e999")),
            "link 'l': mass",
        ),
        (
            "damping",
            robot(link("b"), joint("j", "b", "l", extra='<dynamics damping="nan"/>'), link("l")),
            "joint 'j' damping",
        ),
    ],
)
def test_non_finite_numbers_refused_where_they_are(where, xml, match):
    with pytest.raises(ld.LagdynError, match=match + ".*(finite|not a number)"):
        load(xml, base="fixed")


def test_duplicate_names_refused():
    xml = robot(link("a"), link("b"), link("b"), joint("j", "a", "b"))
    with pytest.raises(ld.LagdynError, match=r"duplicate link names \['b'\]"):
        load(xml)
    xml = robot(link("a"), link("b"), link("c"), joint("j", "a", "b"), joint("j", "a", "c"))
    with pytest.raises(ld.LagdynError, match=r"duplicate joint names \['j'\]"):
        load(xml)


def test_mimic_joint_error_suggests_locked():
    xml = robot(
        link("base", inertial=False),
        joint("finger1", "base", "f1", kind="prismatic"),
        link("f1"),
        joint("finger2", "base", "f2", kind="prismatic", extra='<mimic joint="finger1"/>'),
        link("f2"),
    )
    with pytest.raises(
        ld.LagdynError,
        match=r"mimic joints are not supported: 'finger2' \(mimics 'finger1'\); lock them at "
        r"q = 0 with locked=\['finger2'\]",
    ):
        load(xml)
    assert load(xml, locked=["finger2"]).chain.joint_names == ("finger1",)


# ------------------------------------------------------------------ item 15: fixed mimic


def test_fixed_joint_with_mimic_tag_is_accepted():
    """Talos's files carry <mimic> on fixed joints: nothing moves, nothing to mimic."""
    xml = robot(
        link("base", inertial=False),
        joint("j1", "base", "l1"),
        link("l1"),
        joint("f", "l1", "l2", kind="fixed", extra='<mimic joint="j1" multiplier="1"/>'),
        link("l2"),
    )
    assert load(xml).chain.joint_names == ("j1",)


# ------------------------------------------------------------------ item 5: floating base


def test_root_with_mass_warns_that_the_base_is_welded():
    """Solo12's layout: the root link has mass and no world link: a warning naming the root
    link and its mass; base='fixed' states the intent and silences it."""
    xml = robot(link("trunk", m=1.25), joint("hip", "trunk", "leg"), link("leg"), name="quad")
    with pytest.warns(
        UserWarning,
        match=r"URDF 'quad': the root link 'trunk' has mass 1.25 kg; lagdyn welds the base to "
        r"the world .* Pass base='floating' for a floating base",
    ):
        ld.robot.from_urdf(xml, parameters="numeric")
    assert load(xml, base="fixed").n == 1


def test_massless_root_with_welded_trunk_warns_too():
    """A1's layout: a massless root 'base' with the trunk on a fixed joint."""
    xml = robot(
        link("base", inertial=False),
        joint("floating_base", "base", "trunk", kind="fixed"),
        link("trunk", m=6),
        joint("hip", "trunk", "leg"),
        link("leg"),
        name="a1",
    )
    with pytest.warns(
        UserWarning, match=r"root link 'base' \(with \['trunk'\] welded to it\) has mass 6 kg"
    ):
        ld.robot.from_urdf(xml, parameters="numeric")


def test_world_root_does_not_warn():
    """A root link named 'world' (UR5's layout) is the file saying the base is fixed."""
    xml = robot(
        link("world", inertial=False),
        joint("world_joint", "world", "base_link", kind="fixed"),
        link("base_link", m=4),
        joint("j1", "base_link", "l1"),
        link("l1"),
    )
    assert load(xml).n == 1  # load() turns warnings into errors


def test_base_must_be_none_fixed_floating_or_planar():
    with pytest.raises(ld.LagdynError, match="base must be None, 'fixed', 'floating' or"):
        ld.robot.from_urdf(robot(*ORDERED_PARTS), base="free")


# ------------------------------------------------------------------ example-robot-data


def _robot_path(package, filename):
    from lagdyn.robot._data import urdf_path

    try:
        return urdf_path(package, filename)
    except ImportError as exc:
        pytest.skip(f"example-robot-data is not installed: {exc}")


@pytest.mark.parametrize(
    ("package", "filename"), [("solo_description", "solo12.urdf"), ("a1_description", "a1.urdf")]
)
def test_quadrupeds_warn_about_their_welded_base(package, filename):
    path = _robot_path(package, filename)
    with pytest.warns(UserWarning, match=r"root link '\w+'.* has mass [0-9.]+ kg; lagdyn welds"):
        arm = ld.robot.from_urdf(path, parameters="numeric")
    assert arm.n == 12


@pytest.fixture(scope="module")
def pin():
    return pytest.importorskip("pinocchio", reason="Pinocchio (pip install pin) is not installed")


HUMANOIDS = [
    ("simple_humanoid_description", "simple_humanoid.urdf"),
    ("icub_description", "icub.urdf"),
]


@pytest.mark.parametrize(("package", "filename"), HUMANOIDS)
def test_humanoids_load_in_pinocchio_order(pin, package, filename):
    """simple_humanoid and iCub list joints children first; they load and their coordinates
    are Pinocchio's, joint by joint."""
    path = _robot_path(package, filename)
    with pytest.warns(UserWarning, match="lagdyn welds the base to the world"):
        arm = ld.robot.from_urdf(path, parameters="numeric")
    model = pin.buildModelFromUrdf(str(path))
    assert arm.chain.joint_names == tuple(model.names[i] for i in range(1, model.njoints))
    assert model.nq == model.nv == arm.n  # no continuous joints: q is Pinocchio's q


def test_simple_humanoid_agrees_with_pinocchio(pin):
    """M (CRBA) and τ (RNEA) of the 29-joint simple_humanoid agree with pin.crba / pin.rnea
    to 1e-9 relative at random states. The recursive programs are compiled one by one
    (numpy), which is what lambdify's default route (n ≥ 4) assembles; iCub's 32 joints
    took 30 s of CPU and add nothing the order test and this one do not cover."""
    path = _robot_path(*HUMANOIDS[0])
    with pytest.warns(UserWarning, match="lagdyn welds the base to the world"):
        arm = ld.robot.from_urdf(path, parameters="numeric")
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    fM = arm.program("M").lambdify(arm.defaults)
    ftau = arm.program("tau").lambdify(arm.defaults)
    rng = np.random.default_rng(21)
    for _ in range(3):
        q, v, a = (rng.uniform(-2, 2, arm.n) for _ in range(3))
        Mp = pin.crba(model, data, q)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        np.testing.assert_allclose(fM(q=q), Mp, rtol=0, atol=1e-9 * np.abs(Mp).max())
        tp = pin.rnea(model, data, q, v, a)
        np.testing.assert_allclose(ftau(q=q, qd=v, qdd=a), tp, rtol=0, atol=1e-9 * np.abs(tp).max())


LIMIT = '<limit effort="1" lower="-3" upper="3" velocity="1"/>'  # urdfdom needs it


def test_non_unit_axis_agrees_with_pinocchio(pin):
    """Pinocchio normalises a non-unit axis (JointModelRevoluteUnaligned); so does lagdyn."""
    xml = robot(
        link("base", inertial=False),
        joint("j1", "base", "l1", axis="0 3 4", extra=LIMIT),
        link("l1", m=2, c="1 0.5 0", i=0.25),
        joint("j2", "l1", "l2", axis="1 1 0", origin="0 0 0.7", extra=LIMIT),
        link("l2", m=1, c="0 0.3 0.2", i=0.1),
    )
    arm = load(xml)
    model = pin.buildModelFromXML(xml)
    data = model.createData()
    f = sp.lambdify([arm.q], arm.M, "numpy")
    for q in ([0.3, -1.1], [2.0, 0.4]):
        Mp = pin.crba(model, data, np.array(q))
        np.testing.assert_allclose(f(q), np.triu(Mp) + np.triu(Mp, 1).T, rtol=1e-12)
