"""Hostile input to the robot builders (issue 22, items 6, 8 and 9): every input that gave a
silent wrong model, a raw exception or a hang is refused with a named ``LagdynError``.

One test per reproduction of the probe; each fails on the code before the fix (a wrong M,
a raw ``TypeError``/``ZeroDivisionError``, or work that does not finish). The rules are those
of ``docs/guarantees.md`` ("URDF input", "Robot builders").
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import lagdyn as ld
from lagdyn.recursive.chain import rpy
from lagdyn.robot import Link, exact_angle, make_chain
from lagdyn.robot import urdf as urdf_module
from lagdyn.robot.system import build

ROD = {"m": 1, "com": (-0.5, 0, 0)}
INERTIA = '<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>'


def one_link(mass="1", origin='xyz="1 0 0"', extra=""):
    """A base and one revolute link whose <mass value> and joint <origin> are given."""
    return (
        '<robot name="r"><link name="base"/>'
        '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
        f'<origin {origin}/><axis xyz="0 0 1"/>{extra}</joint>'
        f'<link name="l1"><inertial><mass value="{mass}"/>{INERTIA}</inertial></link></robot>'
    )


def fixed_chain(n, *, moving=1, reverse=False, rpy_angles="0 0 0", xyz="0.1 0 0"):
    """``n`` joints in a row, the first ``moving`` revolute and the rest fixed, every link
    of mass 1; ``reverse`` lists the elements leaves first."""
    links = ['<link name="l0"/>']
    joints = []
    for i in range(1, n + 1):
        kind = "revolute" if i <= moving else "fixed"
        joints.append(
            f'<joint name="j{i}" type="{kind}"><parent link="l{i - 1}"/><child link="l{i}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy_angles}"/><axis xyz="0 0 1"/></joint>'
        )
        links.append(f'<link name="l{i}"><inertial><mass value="1"/>{INERTIA}</inertial></link>')
    if reverse:
        links.reverse()
        joints.reverse()
    return '<robot name="long">' + "".join(links + joints) + "</robot>"


def quiet(f, *args, **kw):
    """Call ``f`` with warnings turned into errors (none is expected)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return f(*args, **kw)


# ------------------------------------------------------ item 6: geometry in q or t


def test_dh_length_in_a_coordinate_is_refused():
    """from_dh([(0, q1, 0)]) gave M = q1² (the length moved with the joint) instead of an
    error: DH entries are constants or parameters."""
    (q1,) = ld.coordinates("q1,")
    with pytest.raises(ld.LagdynError, match=r"DH row 1: a = q1\(t\) depends on the coordinate"):
        ld.robot.from_dh([(0, q1, 0)], parameters="numeric", inertia=[ROD])


def test_dh_offset_in_time_is_refused():
    with pytest.raises(ld.LagdynError, match="DH row 1: d = t depends on time"):
        ld.robot.from_dh([(ld.t, 1, 0)], parameters="numeric", inertia=[ROD])


def test_screw_home_in_a_coordinate_is_refused():
    (q1,) = ld.coordinates("q1,")
    with pytest.raises(ld.LagdynError, match=r"home placement 1: p\[0\] = q1\(t\) depends"):
        ld.robot.from_screws([(0, 0, 1, 0, 0, 0)], [(sp.eye(3), (q1, 0, 0))], inertia=[ROD])


def test_a_chain_built_by_hand_with_time_in_a_placement_is_refused():
    link = Link("a", "revolute", (0, 0, 1), mass=1, pre=(sp.eye(3), (ld.t, 0, 0)))
    chain, _ = make_chain([link], gravity=None, defaults={})
    with pytest.raises(ld.LagdynError, match="link 'a': pre offset = t depends on time"):
        build(chain)


# ------------------------------------------------ item 6: axes and rotations


def test_screw_axis_that_is_not_unit_is_refused_with_its_norm():
    """ω = (0, 0, 2) gave M = 16 for a unit rod."""
    home = [(sp.eye(3), (1, 0, 0))]
    with pytest.raises(ld.LagdynError, match=r"screw 1: ω = \(0, 0, 2\) has norm 2, not 1"):
        ld.robot.from_screws([(0, 0, 2, 0, 0, 0)], home, parameters="numeric", inertia=[ROD])
    with pytest.raises(ld.LagdynError, match=r"screw 1: v .* has norm 3, not 1"):
        ld.robot.from_screws([(0, 0, 0, 0, 0, 3)], home, parameters="numeric", inertia=[ROD])


def test_float_rounded_unit_axis_is_accepted():
    u = 1 / np.sqrt(3)
    arm = ld.robot.from_screws(
        [(u, u, u, 0, 0, 0)], [(np.eye(3), (0, 0, 0))], parameters="numeric", inertia=[ROD]
    )
    assert arm.n == 1


@pytest.mark.parametrize(
    ("R", "match"),
    [
        (2 * sp.eye(3), r"the rotation is not orthogonal \(RᵀR − I has an entry of 3;"),
        (sp.diag(1, 1, -1), r"det R = -1, not 1: a reflection"),
        (sp.Matrix([[1, 0, 0], [0, 0.7, -0.7], [0, 0.7, 0.7]]), "the rotation is not orthogonal"),
    ],
)
def test_home_rotation_that_is_not_a_rotation_is_refused(R, match):
    with pytest.raises(ld.LagdynError, match="home placement 1: R: " + match):
        ld.robot.from_screws([(0, 0, 1, 0, 0, 0)], [(R, (1, 0, 0))], inertia=[ROD])


def test_homogeneous_home_with_a_wrong_last_row_is_refused():
    T = sp.Matrix([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 2]])
    with pytest.raises(ld.LagdynError, match=r"last row .* \(0, 0, 0, 1\), got \(0, 0, 0, 2\)"):
        ld.robot.from_screws([(0, 0, 1, 0, 0, 0)], [T], inertia=[ROD])


def test_rotation_in_parameters_is_refuted_at_random_values():
    a = sp.Symbol("a", positive=True)
    good = sp.Matrix([[sp.cos(a), -sp.sin(a), 0], [sp.sin(a), sp.cos(a), 0], [0, 0, 1]])
    arm = ld.robot.from_screws([(0, 0, 1, 0, 0, 0)], [(good, (1, 0, 0))], inertia=[ROD])
    assert a in arm.parameters
    with pytest.raises(ld.LagdynError, match="not orthogonal"):
        ld.robot.from_screws([(0, 0, 1, 0, 0, 0)], [(a * good, (1, 0, 0))], inertia=[ROD])


def test_a_chain_built_by_hand_with_a_scaled_rotation_is_refused():
    link = Link("a", "revolute", (0, 0, 1), mass=1, pre=(2 * sp.eye(3), (0, 0, 0)))
    chain, _ = make_chain([link], gravity=None, defaults={})
    with pytest.raises(ld.LagdynError, match="link 'a': pre rotation: the rotation is not"):
        build(chain)


# ------------------------------------------------ item 6: physics, both modes


@pytest.mark.parametrize("parameters", ["symbolic", "numeric"])
def test_dh_inertia_that_is_not_positive_semidefinite_is_refused(parameters):
    """Ixy = 5 with unit moments (principal moments −4, 1, 6): symbolic mode took it as
    the defaults of XY1 without a word."""
    spec = {"m": 1, "I": (1, 1, 1, 5, 0, 0)}
    with pytest.raises(ld.LagdynError, match=r"link 1: the inertia .* not positive semidefinite"):
        ld.robot.from_dh([(0, 1, 0)], inertia=[spec], parameters=parameters)
    accepted = quiet(
        ld.robot.from_dh, [(0, 1, 0)], inertia=[spec], parameters=parameters, check_inertia=False
    )
    assert accepted.n == 1


@pytest.mark.parametrize("parameters", ["symbolic", "numeric"])
def test_dh_triangle_inequality_violation_warns_naming_the_link(parameters):
    spec = {"m": 1, "I": (0.1, 0.1, 0.5)}
    with pytest.warns(UserWarning, match=r"inertia of link 1 \(principal moments 0.1, 0.1, 0.5"):
        ld.robot.from_dh([(0, 1, 0)], inertia=[spec], parameters=parameters)


def test_screw_inertia_in_parameters_that_cannot_be_a_body_is_refused():
    a = sp.Symbol("a", positive=True)
    home = [(sp.eye(3), (1, 0, 0))]
    with pytest.raises(ld.LagdynError, match=r"link 1: .* for any value of its parameters"):
        ld.robot.from_screws(
            [(0, 0, 1, 0, 0, 0)], home, parameters="numeric", inertia=[{"m": 1, "I": (-a, a, a)}]
        )


@pytest.mark.parametrize("key", ["armature", "viscous", "coulomb"])
def test_negative_armature_and_friction_are_refused(key):
    with pytest.raises(ld.LagdynError, match=f"link 1: {key} = -1 is negative"):
        ld.robot.from_dh([(0, 1, 0)], inertia=[{**ROD, key: -1}], parameters="numeric")


def test_negative_urdf_damping_is_refused():
    xml = one_link(extra='<dynamics damping="-0.5"/>')
    with pytest.raises(ld.LagdynError, match=r"joint 'j1' damping = -1/2 is negative"):
        ld.robot.from_urdf(xml, base="fixed")


def test_symbolic_urdf_default_that_overflows_a_double_is_refused():
    """mass 1e308 at 10 m: the default of the first moment was float('inf'), silently."""
    xml = one_link(mass="1e308").replace(INERTIA, '<origin xyz="10 0 0"/>' + INERTIA)
    with pytest.raises(ld.LagdynError, match=r"link 'l1': the default of \w+ overflows a double"):
        ld.robot.from_urdf(xml, base="fixed")
    with pytest.raises(ld.LagdynError, match=r"link 'l1': first moment .*overflows a double"):
        ld.robot.from_urdf(xml, base="fixed", parameters="numeric")


# ------------------------------------------------ item 6: names


def test_parameter_named_like_an_internal_symbol_is_refused():
    """A DH length named _ldq0 merged with coordinate 0: M held q1(t) and the numbers were
    those of another arm."""
    a = sp.Symbol("_ldq0", positive=True)
    with pytest.raises(ld.LagdynError, match="'_ldq0': names starting with _ld are reserved"):
        ld.robot.from_dh([(0, 1, 0), (0, a, 0)], parameters="numeric", inertia=[ROD, ROD])
    g = sp.Symbol("_lagdyn_g", positive=True)
    with pytest.raises(ld.LagdynError, match="'_lagdyn_g'"):
        ld.robot.from_dh([(0, 1, 0)], inertia=[ROD], gravity=(0, 0, -g))


def test_duplicate_joint_names_are_refused():
    links = [
        Link("a", "revolute", (0, 0, 1), mass=1),
        Link("b", "revolute", (0, 0, 1), parent=0, mass=1),
    ]
    chain, _ = make_chain(links, gravity=None, defaults={}, names=["j", "j"])
    with pytest.raises(ld.LagdynError, match=r"duplicate joint names \['j'\]"):
        build(chain)


def test_robot_system_needs_a_chain():
    with pytest.raises(ld.LagdynError, match="built from a Chain, got NoneType"):
        ld.robot.RobotSystem(None)


# ------------------------------------------------ item 9: entries that raised raw errors


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ([(0, 1j, 0)], r"DH row 1: a: not a real number: 1j"),
        ([(0, sp.I, 0)], r"DH row 1: a: not a real number: I"),
        ([(0, "1/0", 0)], r"DH row 1: a: not a number: '1/0' divides by zero"),
        ([(0, (1, 2), 0)], r"DH row 1: a: not a number or expression"),
        ([(0, 10**400, 0)], r"DH row 1: a: 1000.* overflows a double"),
        ([5], r"DH row 1: give \(d, a, alpha\) or \(d, a, alpha, offset\), got 5"),
        (None, "the DH table must be a sequence of rows, got NoneType"),
        ([(0, 1, 0)] * 1001, r"the DH table has 1001 joints, more than the 1000"),
    ],
)
def test_bad_dh_entries_are_named(table, match):
    with pytest.raises(ld.LagdynError, match=match):
        ld.robot.from_dh(table)


def test_wrong_home_shape_is_named():
    with pytest.raises(ld.ShapeError, match=r"home placement 1: R must be 3 × 3, got shape"):
        ld.robot.from_screws([(0, 0, 1, 0, 0, 0)], [(sp.eye(2), (1, 0, 0))])


def test_joints_must_be_letters():
    with pytest.raises(ld.LagdynError, match="joints must be a string of R and P letters"):
        ld.robot.from_dh([(0, 1, 0)], joints=5)


def test_urdf_from_bytes_is_the_same_robot():
    """bytes are XML text (ElementTree reads their encoding declaration)."""
    xml = one_link()
    assert (
        quiet(ld.robot.from_urdf, xml.encode(), base="fixed").M
        == quiet(ld.robot.from_urdf, xml, base="fixed").M
    )


@pytest.mark.parametrize("source", [None, 3, ["<robot/>"]])
def test_urdf_source_that_is_neither_text_nor_path_is_named(source):
    with pytest.raises(ld.LagdynError, match=r"from_urdf reads a file path .* got"):
        ld.robot.from_urdf(source)


def test_locked_must_be_names():
    """[None, "nope"] raised a TypeError from sorting the unknown names."""
    with pytest.raises(ld.LagdynError, match="locked must be joint names"):
        ld.robot.from_urdf(one_link(), locked=[None, "nope"])


# ------------------------------------------------ item 8: bounded work


@pytest.mark.parametrize(
    ("mass", "match"),
    [
        ("1e1000000000", r"'1e1000000000' overflows a double"),
        ("-1e1000000000", r"'-1e1000000000' overflows a double"),
        ("1e-1000000000", r"'1e-1000000000' underflows a double"),
        ("9" * 310 + "/7", r"'9+'… \(312 characters\) overflows a double"),
        ("1" * 500, r"not a number: .* \(longer than 400 characters\)"),
    ],
)
def test_huge_exponents_are_refused_at_once(mass, match):
    """'1e1000000000' was expanded exactly (a billion digits): the load never finished."""
    with pytest.raises(ld.LagdynError, match=r"link 'l1': mass: " + match):
        ld.robot.from_urdf(one_link(mass=mass))


def test_huge_exponent_in_a_dh_entry_is_refused_at_once():
    with pytest.raises(ld.LagdynError, match=r"DH row 1: d: '1e1000000000' overflows a double"):
        ld.robot.from_dh([("1e1000000000", 1, 0)])
    with pytest.raises(ld.LagdynError, match=r"link 1: m: '1e1000000000' overflows"):
        ld.robot.from_dh([(0, 1, 0)], inertia=[{"m": "1e1000000000"}])


def test_huge_exponent_in_an_origin_is_named():
    xml = one_link(origin='xyz="1e1000000000 0 0"')
    with pytest.raises(ld.LagdynError, match=r"joint 'j1' origin xyz: .* overflows a double"):
        ld.robot.from_urdf(xml)


@pytest.mark.parametrize("moving", [10_000, 1])
def test_ten_thousand_joints_are_refused_before_any_work(moving):
    """10,000 moving joints, or one moving joint and 9,999 fixed ones listed leaves first
    (67 s in the probe, merged one joint at a time): refused by the cap, naming it."""
    xml = fixed_chain(10_000, moving=moving, reverse=True)
    with pytest.raises(ld.LagdynError, match=r"URDF 'long' has 10000 joints, more than the 1000"):
        ld.robot.from_urdf(xml)


def test_long_fixed_run_listed_leaves_first_merges_exactly():
    """200 fixed joints (quarter turns about two axes, so the placements cycle) welded to
    one moving link, listed leaves first: one body whose mass, first moment and inertia are
    the sums, as a plain numpy accumulation of the placements gives them."""
    half = "1.5707963267948966"
    xml = fixed_chain(201, reverse=True, rpy_angles=f"{half} 0 {half}", xyz="1 0 0.5")
    arm = quiet(ld.robot.from_urdf, xml, base="fixed", parameters="numeric")
    assert arm.n == 1
    link = arm.chain.links[0]
    assert link.mass == 201
    step = np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]])  # Rz(π/2) Rx(π/2)
    R, p = np.eye(3), np.zeros(3)
    h, inertia = np.zeros(3), np.zeros((3, 3))
    for _ in range(201):  # link 1 at the identity, then each fixed joint
        h += p
        inertia += 0.1 * np.eye(3) + (p @ p) * np.eye(3) - np.outer(p, p)
        p, R = p + R @ np.array([1, 0, 0.5]), R @ step
    np.testing.assert_allclose(np.array(link.first_moment, dtype=float).ravel(), h, rtol=1e-15)
    np.testing.assert_allclose(np.array(link.inertia, dtype=float), inertia, rtol=1e-15)


def test_fixed_joints_composing_too_many_transcendental_angles_are_refused():
    """rpy 0.1 0.2 0.3 on five fixed joints in a row: the exact product of their rotations
    has hundreds of terms per entry and every further joint multiplies them (four took
    20 s to load, five far longer); four (12 angles) now load in about 2 s."""
    xml = fixed_chain(6, reverse=True, rpy_angles="0.1 0.2 0.3")
    with pytest.raises(
        ld.LagdynError, match=r"joint 'j6' composes 15 constant angles .* fixed joints \['j2'"
    ):
        ld.robot.from_urdf(xml, base="fixed")


def test_the_total_size_of_composed_constants_is_bounded(monkeypatch):
    monkeypatch.setattr(urdf_module, "MAX_COMPOSED_TERMS", 40)
    xml = fixed_chain(4, reverse=True, rpy_angles="0 0.2 0.3")
    with pytest.raises(ld.LagdynError, match=r"placements of more than 40 terms in all"):
        ld.robot.from_urdf(xml, base="fixed")


def test_a_huge_angle_is_not_snapped_to_a_multiple_of_pi():
    """1e300 rad was "snapped" to 954929658551372…·π/12 (its float neighbour's multiple):
    cos −0.5 instead of cos(1e300) = −0.168."""
    assert exact_angle(1e300) == sp.Integer(10) ** 300
    arm = ld.robot.from_dh([(0, 1, 1e300)], parameters="numeric", inertia=[ROD])
    alpha = sp.Integer(10) ** 300
    assert arm.chain.links[0].post[0][1, 1] == sp.cos(alpha)


def test_rpy_entry_by_entry_is_the_rotation_product():
    angles = [sp.Rational(1, 10), sp.pi / 3, -sp.Rational(7, 5)]
    assert urdf_module._rpy(*angles) == rpy(*angles)
    assert urdf_module._rpy(0, 0, 0) is urdf_module._EYE


# ------------------------------------------- entries that are not one real scalar


@pytest.mark.parametrize(
    "entry, match",
    [
        (sp.eye(2), r"DH row 1: a: not a number or expression but a 2 × 2 matrix"),
        (sp.Matrix([1]), r"DH row 1: a: not a number or expression but a 1 × 1 matrix"),
        (sp.MatrixSymbol("A", 2, 2), r"DH row 1: a: not a number or expression but a 2 × 2"),
        ([1, 2], r"DH row 1: a: not a number or expression: \[1, 2\]"),
        ((1, 2), r"DH row 1: a: not a number or expression: \(1, 2\)"),
        ({"a": 1}, r"DH row 1: a: not a number or expression: \{'a': 1\}"),
        ("abc", r"DH row 1: a: not a number: 'abc'"),
        (sp.Integral(sp.Symbol("x"), sp.Symbol("x")), r"DH row 1: a = .* holds Integral"),
        (sp.Sum(sp.Symbol("k"), (sp.Symbol("k"), 1, 3)), r"DH row 1: a = .* holds Sum"),
    ],
)
def test_dh_entry_that_is_not_one_scalar_is_named(entry, match):
    """A matrix entry gave a raw AttributeError in the checks ('ImmutableDenseMatrix' object
    has no attribute 'has'); an unevaluated integral or sum a raw symengine SympifyError
    when M was first asked for."""
    with pytest.raises(ld.LagdynError, match=match):
        ld.robot.from_dh([(0, entry, 0), (0, 1, 0)]).M  # noqa: B018


def test_exact_refuses_a_matrix():
    with pytest.raises(ld.LagdynError, match="not a number or expression but a 2 × 2 matrix"):
        ld.robot.exact(sp.eye(2))


@pytest.mark.parametrize(
    "symbol, declared",
    [
        (sp.Symbol("zc", complex=True), r"declared complex \(complex=True\)"),
        (sp.Symbol("zi", imaginary=True), r"declared not real \(imaginary=True\)"),
        (sp.Symbol("zr", real=False), r"declared not real \(real=False\)"),
        (sp.Symbol("za", algebraic=True), r"declared complex \(algebraic=True\)"),
        (sp.Symbol("zn", commutative=False), "noncommutative"),
    ],
)
def test_a_symbol_declared_complex_is_refused_as_a_length(symbol, declared):
    """A complex symbol used as a DH length was accepted (M held zc) before."""
    with pytest.raises(ld.LagdynError, match=rf"DH row 1: a = .*the symbol z. .*{declared}"):
        ld.robot.from_dh([(0, 1 + symbol, 0), (0, 1, 0)])


def test_a_complex_symbol_in_an_inertia_is_refused():
    zc = sp.Symbol("zc", complex=True)
    with pytest.raises(ld.LagdynError, match=r"link 1: m = zc: the symbol zc is declared complex"):
        ld.robot.from_dh([(0, 1, 0)], inertia=[{"m": zc}])


@pytest.mark.parametrize(
    "symbol",
    [sp.Symbol("a"), sp.Symbol("a", real=True), sp.Symbol("a", positive=True), *ld.parameters("a")],
)
def test_plain_and_real_symbols_stay_parameters(symbol):
    """A plain symbol (no assumption) is the normal input and is read as a real parameter."""
    arm = ld.robot.from_dh([(0, symbol, 0), (0, 1, 0)])
    assert symbol in arm.M.free_symbols


# ------------------------------------------------ URDF: entities, encodings, Unicode

LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY a "1234567890">\n'
    + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(9))
    + "]>\n"
)


def as_source(xml, kind, tmp_path):
    """``xml`` given to from_urdf as text, bytes or a file path."""
    if kind == "text":
        return xml
    data = xml.encode("utf-8") if isinstance(xml, str) else xml
    if kind == "bytes":
        return data
    path = tmp_path / "robot.urdf"
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("kind", ["text", "bytes", "path"])
def test_urdf_billion_laughs_is_refused_at_the_first_entity(kind, tmp_path):
    """The stdlib parser expanded internal entities (a billion laughs was stopped only by
    expat ≥ 2.4's amplification limit, as a ParseError): every declaration is refused."""
    xml = LAUGHS + one_link().replace('<robot name="r">', '<robot name="&j;">')
    with pytest.raises(ld.LagdynError, match=r"declares <!ENTITY a '1234567890'>: lagdyn refuses"):
        ld.robot.from_urdf(as_source(xml, kind, tmp_path))


@pytest.mark.parametrize("kind", ["text", "bytes", "path"])
def test_urdf_single_internal_entity_is_refused(kind, tmp_path):
    """One entity for a mass was expanded and the robot built with mass 1.5."""
    xml = '<!DOCTYPE robot [<!ENTITY m "1.5">]>\n' + one_link(mass="&m;")
    with pytest.raises(ld.LagdynError, match=r"declares <!ENTITY m '1\.5'>: lagdyn refuses"):
        ld.robot.from_urdf(as_source(xml, kind, tmp_path))


@pytest.mark.parametrize(
    "doctype, match",
    [
        (
            '<!DOCTYPE robot [<!ENTITY m SYSTEM "file:///etc/passwd">]>',
            r"declares <!ENTITY m SYSTEM 'file:///etc/passwd'>",
        ),
        (
            '<!DOCTYPE robot [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]>',
            r"declares <!ENTITY % p SYSTEM 'file:///etc/passwd'>",
        ),
        (
            '<!DOCTYPE robot SYSTEM "http://127.0.0.1:9/x.dtd">',
            r"<!DOCTYPE robot> with the external DTD 'http://127.0.0.1:9/x.dtd'",
        ),
        (
            '<!DOCTYPE robot [<!ATTLIST robot name CDATA "x">]>',
            r"<!DOCTYPE robot \[\.\.\.\]> with an internal subset",
        ),
    ],
)
def test_urdf_external_entities_and_dtds_are_refused(doctype, match):
    with pytest.raises(ld.LagdynError, match=match):
        ld.robot.from_urdf(doctype + "\n" + one_link(mass="&m;" if "m " in doctype else "1"))


def test_urdf_xml_declaration_comments_and_a_bare_doctype_stay_fine():
    plain = ld.robot.from_urdf(one_link(), parameters="numeric").M
    xml = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- a comment -->\n<!DOCTYPE robot>\n'
    assert ld.robot.from_urdf(xml + one_link(), parameters="numeric").M == plain
    assert ld.robot.from_urdf((xml + one_link()).encode(), parameters="numeric").M == plain


@pytest.mark.parametrize("kind", ["bytes", "path"])
def test_urdf_unknown_encoding_is_named(kind, tmp_path):
    """An XML declaration naming an unknown encoding let a raw LookupError through."""
    xml = '<?xml version="1.0" encoding="bogus"?>' + one_link()
    with pytest.raises(ld.LagdynError, match=r"names an encoding Python does not know"):
        ld.robot.from_urdf(as_source(xml, kind, tmp_path))


def test_urdf_text_with_a_lone_surrogate_is_named():
    """A lone surrogate in str XML gave a raw UnicodeEncodeError inside ElementTree."""
    xml = one_link().replace('name="r"', 'name="pr\udcffobe"')
    with pytest.raises(ld.LagdynError, match=r"the URDF text is not valid Unicode text"):
        ld.robot.from_urdf(xml)
