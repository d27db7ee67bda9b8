"""``ld.zoo.get`` and the CLI's MODEL: unknown options and mistyped names (issue 21 item 9)."""

from __future__ import annotations

import pytest

import lagdyn as ld
from lagdyn.cli import main


def test_unknown_option_is_a_lagdyn_error_listing_the_valid_ones():
    with pytest.raises(ld.LagdynError) as info:
        ld.zoo.get("n_link_pendulum", N=4)
    message = str(info.value)
    assert "'N'" in message and "did you mean 'n'" in message
    assert "n (default 3)" in message and "coordinates (default 'absolute')" in message
    assert "got an unexpected keyword" not in message  # no Python signature


def test_a_model_without_options_says_so():
    with pytest.raises(ld.LagdynError, match="acrobot has no option 'n'; it takes no options"):
        ld.zoo.get("acrobot", n=2)


def test_options_are_read_from_the_factory_signature():
    assert ld.zoo.options("n_link_pendulum") == {"n": 3, "coordinates": "absolute"}
    # a registered option shows as that entry's default
    assert ld.zoo.options("double_pendulum_relative") == {"coordinates": "relative"}
    assert ld.zoo.options("puma560") == {"parameters": "numeric", "armature": False}


def test_mistyped_model_name_gets_did_you_mean():
    with pytest.raises(ld.LagdynError, match="did you mean 'double_pendulum'"):
        ld.zoo.get("doble_pendulum")
    with pytest.raises(ld.LagdynError, match="did you mean 'acrobot'"):
        ld.zoo.get("Acrobot")
    with pytest.raises(ld.LagdynError, match="unknown model 'zzz'; known models: acrobot"):
        ld.zoo.get("zzz")  # nothing close: no suggestion, the list


@pytest.mark.parametrize("command", ["derive", "check", "export", "lab", "simulate", "bench"])
def test_every_cli_command_suggests_the_model_name(command, capsys, tmp_path):
    extra = {"export": ["-t", "c", "--out", str(tmp_path / "x")], "lab": ["--out", "x.html"]}
    assert main([command, "n_link_pendlum", *extra.get(command, [])]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'n_link_pendulum'" in err
    assert err.count("\n") == 1  # one line, no traceback


def test_cli_unknown_option_lists_the_model_options(capsys):
    assert main(["derive", "n_link_pendulum", "-o", "m=3"]) == 2
    err = capsys.readouterr().err
    assert "n_link_pendulum has no option 'm'" in err
    assert "its options: n (default 3), coordinates (default 'absolute')" in err
    assert "n_link_pendulum()" not in err and "keyword argument" not in err
