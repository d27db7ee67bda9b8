"""``--urdf PATH``: a robot from a URDF file in every command that takes a model."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import lagdyn.recursive.route as route
from lagdyn.cli import main

#: Two revolute joints about z, uniform rods of length 1 and mass 3 (I = 1/4 about the COM):
#: M = [[5 + 3 cos q2, 1 + 3/2 cos q2], [1 + 3/2 cos q2, 1]], exactly.
ARM = """<?xml version="1.0"?>
<robot name="arm">
  <link name="world"/>
  <joint name="shoulder" type="continuous">
    <parent link="world"/><child link="upper"/><axis xyz="0 0 1"/>
    <dynamics damping="0.5" friction="0.25"/>
  </joint>
  <link name="upper">
    <visual><geometry><mesh filename="package://arm_description/meshes/upper.stl"/></geometry>
    </visual>
    <inertial><mass value="3"/><origin xyz="0.5 0 0"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0.25" iyz="0" izz="0.25"/></inertial>
  </link>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="fore"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/>
    <limit effort="1" lower="-3" upper="3" velocity="1"/>
  </joint>
  <link name="fore">
    <inertial><mass value="3"/><origin xyz="0.5 0 0"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0.25" iyz="0" izz="0.25"/></inertial>
  </link>
</robot>
"""

M_ARM = [["3*cos(q2) + 5", "3*cos(q2)/2 + 1"], ["3*cos(q2)/2 + 1", "1"]]


@pytest.fixture
def arm(tmp_path: Path) -> str:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM)
    return str(path)


def _write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


def _json(out: str) -> dict:
    return json.loads(out[: out.rindex("}") + 1])


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("lagdyn: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# ------------------------------------------------------------------------- every command
def test_derive_json_gives_the_exact_mass_matrix_and_the_joints(arm, capsys):
    assert main(["derive", "--urdf", arm, "--json"]) == 0
    data = _json(capsys.readouterr().out)
    assert data["model"] == "arm"  # the file's stem, as for --file
    assert data["coordinates"] == ["q1", "q2"]
    assert data["joints"] == ["shoulder", "elbow"]
    assert data["parameters"] == ["g"]  # numeric by default: the file's numbers
    assert data["M"] == M_ARM
    assert data["proofs"] == {
        "symmetric": True,
        "skew_symmetric": True,
        "passive": True,
        "positive_definite": True,
    }


def test_derive_text_names_the_joint_of_each_coordinate(arm, capsys):
    assert main(["derive", "--urdf", arm, "--no-proofs"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == [
        "arm: 2 degrees of freedom, coordinates (q1, q2)",
        "joints: q1 = shoulder, q2 = elbow",
    ]
    assert "M(q) =" in out and "equations of motion" in out


def test_symbolic_parameters_with_the_files_numbers_as_defaults(arm, capsys):
    assert main(["derive", "--urdf", arm, "--parameters", "symbolic", "--json", "--no-proofs"]) == 0
    data = _json(capsys.readouterr().out)
    assert data["parameters"] == [
        *(
            f"{k}{i}"
            for k in ("M", "MX", "MY", "MZ", "XX", "XY", "XZ", "YY", "YZ", "ZZ")
            for i in (1, 2)
        ),
        "g",
    ]
    assert data["M"][1][1] == "ZZ2"
    # the defaults are the file's numbers: the symbolic model simulates as the numeric one
    tmp = Path(arm).parent
    for kind in ("symbolic", "numeric"):
        argv = ["simulate", "--urdf", arm, "--t", "0.05", "--x0", "0.5,1,1,-2"]
        argv += ["--csv", str(tmp / f"{kind}.csv")]
        assert main([*argv, "--parameters", kind]) == 0
    sym = np.loadtxt(tmp / "symbolic.csv", delimiter=",", skiprows=1)
    num = np.loadtxt(tmp / "numeric.csv", delimiter=",", skiprows=1)
    assert sym.shape == num.shape == (6, 11)
    np.testing.assert_allclose(sym, num, rtol=1e-12, atol=1e-12)
    assert abs(num[-1, 2] - num[0, 2]) > 0.05  # it moved (q2)
    out = tmp / "out"
    argv = ["export", "--urdf", arm, "-t", "c", "--out", str(out), "--parameters", "symbolic"]
    assert main([*argv, "--bind-defaults"]) == 0
    assert "n = 2 coordinates, 0 free parameters" in (out / "arm.h").read_text()


def test_check_proves_both_routes(arm, capsys):
    assert main(["check", "--urdf", arm]) == 0
    out = capsys.readouterr().out
    assert out.startswith("arm: 2 degrees of freedom, trigpoly path")
    assert out.endswith("all proofs passed\n")
    assert main(["check", "--urdf", arm, "--route", "recursive"]) == 0
    out = capsys.readouterr().out
    assert "recursive programs" in out and out.endswith("all proofs passed\n")


def test_export_c_compiles_and_gives_the_urdfs_mass_matrix(arm, tmp_path, capsys):
    out = tmp_path / "gen"
    assert main(["export", "--urdf", arm, "-t", "c", "--out", str(out)]) == 0
    assert capsys.readouterr().out.split() == [str(out / "arm.c"), str(out / "arm.h")]
    cc = os.environ.get("CC", "cc")
    driver = tmp_path / "main.c"
    driver.write_text(
        '#include <stdio.h>\n#include "arm.h"\n'
        "int main(void) { double q[2] = {0.3, 0.0}, p[1] = {9.81}, M[4];\n"
        '  arm_M(q, p, M); printf("%.17g %.17g %.17g %.17g\\n", M[0], M[1], M[2], M[3]);\n'
        "  return 0; }\n"
    )
    exe = tmp_path / "main"
    try:
        subprocess.run(
            [cc, "-O0", "-I", str(out), str(driver), str(out / "arm.c"), "-lm", "-o", str(exe)],
            check=True,
            capture_output=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no working C compiler: {exc}")
    values = [
        float(x) for x in subprocess.run([str(exe)], capture_output=True, text=True).stdout.split()
    ]
    assert values == [8.0, 2.5, 2.5, 1.0]  # q2 = 0: 5 + 3, 1 + 3/2, 1


def test_simulate_and_bench(arm, capsys):
    assert main(["simulate", "--urdf", arm, "--t", "0.05"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "arm: n = 2, t = 0 … 0.05, 6 samples"
    assert out[1] == "initial state: q1 = 2, q2 = 2.4 (at rest)"
    assert main(["bench", "--urdf", arm, "--repeat", "1", "--states", "10"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("arm: 2 degrees of freedom, trigpoly path")
    assert "proofs: all proofs passed" in out and "forward dynamics, 10 states" in out


def test_lab_refuses_a_spatial_robot_before_deriving(arm, tmp_path, capsys):
    page = tmp_path / "lab.html"
    assert main(["lab", "--urdf", arm, "--out", str(page)]) == 2
    err = _one_line_error(capsys)
    assert "arm is a spatial robot" in err and "lagdyn simulate --gif" in err
    assert not page.exists()


# ------------------------------------------------------------------------- from_urdf's options
def test_lock_holds_a_joint(arm, capsys):
    assert main(["derive", "--urdf", arm, "--lock", "elbow", "--json", "--no-proofs"]) == 0
    data = _json(capsys.readouterr().out)
    assert data["joints"] == ["shoulder"]
    assert data["M"] == [["8"]]  # the forearm welded straight: 5 + 3


def test_friction_reads_the_dynamics_tag(arm, capsys):
    assert main(["derive", "--urdf", arm, "--json", "--no-proofs"]) == 0
    assert _json(capsys.readouterr().out)["Q"] == ["0", "0"]
    assert main(["derive", "--urdf", arm, "--friction", "--json", "--no-proofs"]) == 0
    Q = _json(capsys.readouterr().out)["Q"]
    assert Q[1] == "0" and Q[0] in (
        "-0.5*dot(q1) - 0.25*sign(dot(q1))",
        "-dot(q1)/2 - sign(dot(q1))/4",
    )


def test_warnings_are_one_line_each_once_and_silenced_by_fixed_base(tmp_path, capsys):
    heavy_base = ARM.replace(
        '<link name="world"/>',
        '<link name="world"><inertial><mass value="9"/>'
        '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>',
    ).replace('"world"', '"pedestal"')
    path = _write(tmp_path, "heavy.urdf", heavy_base)
    assert main(["bench", "--urdf", path, "--repeat", "2", "--states", "10"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err  # two builds, one warning
    assert err[0].startswith(
        f"lagdyn: warning: --urdf {path}: URDF 'arm': the root link 'pedestal'"
    )
    assert err[0].endswith("(on the command line: --fixed-base)")
    assert main(["check", "--urdf", path, "--fixed-base"]) == 0
    assert capsys.readouterr().err == ""


def test_massless_link_suggests_lock_on_the_command_line(tmp_path, capsys):
    text = ARM.replace(
        """    <inertial><mass value="3"/><origin xyz="0.5 0 0"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0.25" iyz="0" izz="0.25"/></inertial>
  </link>
</robot>""",
        "  </link>\n</robot>",
    )
    path = _write(tmp_path, "massless.urdf", text)
    assert main(["derive", "--urdf", path]) == 2
    err = _one_line_error(capsys)
    assert "joint 'elbow' (row 2) moves only massless links" in err
    assert err.rstrip().endswith("(on the command line: --lock JOINT)")
    assert main(["derive", "--urdf", path, "--lock", "elbow", "--no-proofs"]) == 0


def test_an_inertia_that_is_not_psd_and_no_check_inertia(tmp_path, capsys):
    path = _write(
        tmp_path,
        "bad.urdf",
        ARM.replace(
            'iyy="0.25" iyz="0" izz="0.25"/></inertial>\n  </link>\n</robot>',
            'iyy="0.25" iyz="0" izz="-0.25"/></inertial>\n  </link>\n</robot>',
        ),
    )
    assert main(["check", "--urdf", path]) == 2
    err = _one_line_error(capsys)
    assert "link 'fore': the inertia" in err and "is not positive semidefinite" in err
    assert "(on the command line: --no-check-inertia)" in err
    assert main(["derive", "--urdf", path, "--no-check-inertia", "--no-proofs"]) == 0


# ------------------------------------------------------------------------- bad input
BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE robot [\n <!ENTITY a "aaaaaaaaaa">\n'
    + "".join(f' <!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(8))
    + ']>\n<robot name="&i;"><link name="base"/></robot>\n'
)


@pytest.mark.parametrize(
    "name, text, fragment",
    [
        ("notxml.urdf", "hello", "malformed URDF XML: syntax error: line 1, column 0"),
        ("empty.urdf", "", "malformed URDF XML: no element found"),
        ("binary.urdf", b"\x00\xff\xfe\x00garbage", "malformed URDF XML"),
        ("html.urdf", "<html/>", "not a URDF: the root element is <html>, expected <robot>"),
        (
            "still.urdf",
            '<robot name="r"><link name="a"/></robot>',
            "URDF 'r' has no joints: nothing moves",
        ),
        (
            "bogus.urdf",
            '<?xml version="1.0" encoding="bogus"?><robot/>',
            "names an encoding Python does not know",
        ),
        (
            "external.urdf",
            '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            '<robot name="&x;"/>',
            "lagdyn refuses entity declarations and DTDs",
        ),
    ],
)
def test_a_bad_file_is_one_line_naming_the_option(tmp_path, capsys, name, text, fragment):
    path = _write(tmp_path, name, text)
    assert main(["derive", "--urdf", path]) == 2
    err = _one_line_error(capsys)
    assert err.startswith(f"lagdyn: error: --urdf {path}: ") and fragment in err


def test_entity_expansion_bomb_is_refused(tmp_path, capsys):
    """Refused at its first entity declaration, whatever expat's own amplification limit."""
    path = _write(tmp_path, "lol.urdf", BILLION_LAUGHS)
    assert main(["check", "--urdf", path]) == 2
    assert "lagdyn refuses entity declarations and DTDs" in _one_line_error(capsys)


def test_path_errors(tmp_path, capsys, monkeypatch):
    missing = str(tmp_path / "nope.urdf")
    cases = [
        (missing, f"--urdf {missing}: no such file"),
        (str(tmp_path), f"--urdf {tmp_path}: is a directory, expected a file"),
        ("", "--urdf: empty file name"),
    ]
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.urdf"
        os.mkfifo(fifo)
        cases.append((str(fifo), f"--urdf {fifo}: not a regular file"))
    for path, message in cases:
        for command in ("derive", "check", "export", "simulate", "bench", "lab"):
            extra = {
                "export": ["-t", "c", "--out", str(tmp_path / "o")],
                "lab": ["--out", str(tmp_path / "l.html")],
            }
            assert main([command, "--urdf", path, *extra.get(command, [])]) == 2
            assert _one_line_error(capsys) == f"lagdyn: error: {message}\n"
    locked = _write(tmp_path, "locked.urdf", ARM)
    real_open = Path.open

    def refuse(self, *args, **kwargs):
        if self == Path(locked):
            raise PermissionError(13, "Permission denied")
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)
    assert main(["derive", "--urdf", locked]) == 2
    assert (
        _one_line_error(capsys)
        == f"lagdyn: error: --urdf {locked}: cannot be read (Permission denied)\n"
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["double_pendulum", "--urdf", "{arm}"],
            "only one of a name from `lagdyn zoo`, --file, --lagrangian or --urdf",
        ),
        (
            ["--file", "{arm}", "--urdf", "{arm}"],
            "only one of a name from `lagdyn zoo`, --file, --lagrangian or --urdf",
        ),
        (["--lagrangian", "dot(x)**2", "--coordinates", "x", "--urdf", "{arm}"], "only one of"),
        ([], "a model is required: a name from `lagdyn zoo`, --file, --lagrangian or --urdf"),
        (
            ["--urdf", "{arm}", "--parameters", "m l"],
            "with --urdf, --parameters is symbolic or numeric, got 'm l'",
        ),
        (["--urdf", "{arm}", "-o", "n=2"], "-o/--option (KEY=VALUE) applies to zoo models only"),
        (["--urdf", "{arm}", "--coordinates", "x"], "--coordinates applies to --lagrangian only"),
        (["ur5", "--lock", "elbow"], "--lock applies to --urdf only"),
        (["ur5", "--fixed-base"], "--fixed-base applies to --urdf only"),
        (["ur5", "--friction"], "--friction applies to --urdf only"),
        (["ur5", "--no-check-inertia"], "--no-check-inertia applies to --urdf only"),
        (
            ["ur5", "--parameters", "numeric"],
            "--parameters applies to --lagrangian and --urdf only",
        ),
        (["--urdf", "{arm}", "--lock", "wrist"], "locked joints not in the file: ['wrist']"),
    ],
)
def test_usage_errors(arm, capsys, argv, message):
    argv = [a.replace("{arm}", arm) for a in argv]
    assert main(["derive", *argv]) == 2
    assert message in _one_line_error(capsys)


def test_bench_ops_takes_no_urdf(arm, capsys):
    assert main(["bench", "--ops", "--urdf", arm]) == 2
    assert "--ops counts its own chains and arms: give no MODEL" in _one_line_error(capsys)


def test_a_path_that_looks_like_xml_is_read_as_a_path(tmp_path, capsys, monkeypatch):
    """from_urdf reads a *string* starting with '<' as XML text: the CLI passes a Path."""
    monkeypatch.chdir(tmp_path)
    name = '<robot name="x">'
    (tmp_path / name).write_text(ARM)
    assert main(["check", "--urdf", name]) == 0
    assert capsys.readouterr().out.startswith('<robot name="x">: 2 degrees of freedom')


# ------------------------------------------------------------------------- above the closed limit
@pytest.fixture
def small_limit(monkeypatch):
    """Every chain of more than one joint counts as too large for the closed form (as a
    7-DOF arm does at the real limit), and takes the recursive route by default."""
    monkeypatch.setattr(route, "CLOSED_LIMIT", 1)
    monkeypatch.setattr(route, "RECURSIVE_FROM", 2)


def test_derive_prints_what_it_can_without_the_closed_form(arm, small_limit, capsys):
    assert main(["derive", "--urdf", arm]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:3] == [
        "arm: 2 degrees of freedom, coordinates (q1, q2)",
        "joints: q1 = shoulder, q2 = elbow",
        "parameters: g",
    ]
    assert (
        "M(q), C(q, q̇), g(q) and the equations are not printed: the closed form of this "
        "robot is too large to build (size 2: 2 joints on the path to link 'fore'; the limit "
        "is 1)."
    ) in out
    assert "structure (recursive programs" in out and out.endswith("all proofs passed\n")
    assert "M(q) =" not in out
    assert main(["derive", "--urdf", arm, "--json"]) == 2
    err = _one_line_error(capsys)
    assert "derive --json prints the closed form" in err and "lagdyn export -t casadi" in err


def test_check_takes_the_recursive_route_unless_told(arm, small_limit, capsys):
    assert main(["check", "--urdf", arm]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("note: the closed form of this robot is too large to build")
    assert out[-1] == "all proofs passed"
    assert main(["check", "planar_3r"]) == 0  # zoo arms too
    capsys.readouterr()
    assert main(["check", "--urdf", arm, "--route", "closed"]) == 2
    assert _one_line_error(capsys).endswith("; use --route recursive\n")


def test_export_refuses_closed_form_targets_and_bench_and_simulate_run(
    arm, small_limit, tmp_path, capsys
):
    out = tmp_path / "gen"
    assert main(["export", "--urdf", arm, "-t", "c", "--out", str(out)]) == 2
    err = _one_line_error(capsys)
    assert "`-t c` writes the closed form; `-t casadi` writes the recursive programs" in err
    assert not out.exists()
    assert main(["bench", "--urdf", arm, "--repeat", "1", "--states", "10"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("arm: 2 degrees of freedom, recursive route (the closed form")
    assert "proofs: all proofs passed" in text and "numeric: failed" not in text
    assert main(["simulate", "--urdf", arm, "--t", "0.02"]) == 0  # no closed form built
    assert "initial state: q1 = 2, q2 = 2.4 (at rest)" in capsys.readouterr().out


def test_export_of_a_real_7_dof_arm_is_refused_before_any_work(tmp_path, capsys):
    assert main(["export", "panda", "-t", "c", "--out", str(tmp_path / "x")]) == 2
    err = _one_line_error(capsys)
    assert "panda: the closed form of this robot is too large to build (size 7" in err


# ------------------------------------------------------------------------- a real robot
def test_ur5_from_example_robot_data(capsys):
    """The UR5 of example-robot-data: package:// meshes (never read), 6 joints."""
    from lagdyn.errors import LagdynError
    from lagdyn.robot._data import urdf_path

    try:
        path = str(urdf_path("ur_description", "ur5_robot.urdf"))
    except LagdynError as exc:
        pytest.skip(f"example-robot-data is not installed: {exc}")
    assert "package://" in Path(path).read_text()
    assert main(["check", "--urdf", path, "--route", "recursive"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ur5_robot: 6 degrees of freedom, recursive programs")
    assert out.endswith("all proofs passed\n")


def test_help_mentions_urdf(capsys):
    for command in ("derive", "check", "export", "simulate", "bench", "lab"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "--urdf PATH" in out and "--lock JOINT" in out and "--fixed-base" in out
