"""Operation counts and their scaling (lagdyn.cli.opcounts, `lagdyn bench --ops`)."""

from __future__ import annotations

import io
import itertools

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from lagdyn import recursive as programs
from lagdyn.cli import main, opcounts
from lagdyn.errors import LagdynError
from lagdyn.recursive.algebra import _floats


def test_recursive_tau_grows_by_the_same_count_per_joint():
    """The O(n) claim, exactly: every added joint adds the same number of operations."""
    planar = [
        opcounts.chain_counts("planar", n, closed=False, columns=["tau"]) for n in range(3, 8)
    ]
    steps = {b.ops["tau"] - a.ops["tau"] for a, b in itertools.pairwise(planar)}
    assert len(steps) == 1
    spatial = [
        opcounts.chain_counts("spatial", n, closed=False, columns=["tau"]) for n in (4, 5, 6)
    ]
    steps = {b.ops["tau"] - a.ops["tau"] for a, b in itertools.pairwise(spatial)}
    assert len(steps) == 1


def test_crba_forward_dynamics_grows_faster_than_linear_and_aba_does_not():
    rows = [
        opcounts.chain_counts("planar", n, closed=False, columns=["qdd_crba", "qdd_aba"])
        for n in (4, 6, 8)
    ]
    crba = [r.ops["qdd_crba"] for r in rows]
    aba = [r.ops["qdd_aba"] for r in rows]
    assert crba[2] - crba[1] > crba[1] - crba[0]  # LDLᵀ: O(n³)
    assert aba[2] - aba[1] == aba[1] - aba[0]  # ABA: O(n)


def test_closed_route_is_counted_for_small_chains():
    c = opcounts.chain_counts("spatial", 2, columns=["M", "tau"])
    assert set(c.closed) == {"M", "h", "tau", "qdd"}
    assert all(v > 0 for v in c.closed.values())


_X = sp.symbols("x0:4")


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.recursive(
            st.sampled_from([*_X, sp.Integer(3), sp.Rational(1, 2)]),
            lambda sub: st.one_of(
                st.tuples(sub, sub).map(lambda ab: ab[0] + ab[1]),
                st.tuples(sub, sub).map(lambda ab: ab[0] * ab[1]),
                st.tuples(sub, sub).map(lambda ab: ab[0] - ab[1]),
                sub.map(sp.cos),
            ),
            max_leaves=8,
        ),
        min_size=1,
        max_size=4,
    )
)
def test_fast_count_is_close_to_sympys(exprs):
    """The symengine counter against sympy's count_ops after sympy.cse (Program.count_ops)."""
    ours = opcounts.count_ops(exprs)
    floats = [_floats(sp.sympify(e)) for e in exprs]
    repl, red = sp.cse(floats, order="none")
    theirs = sum(sp.count_ops(e) for _, e in repl) + sum(sp.count_ops(e) for e in red)
    assert abs(ours - theirs) <= max(2, 0.25 * theirs)


def test_fast_count_is_close_to_program_count_ops_on_a_real_program():
    chain = opcounts.spatial_chain(4).chain
    prog = programs.forward_dynamics(chain, method="aba")
    exact = prog.count_ops()
    fast = opcounts.count_ops([e for _, e in prog.body] + list(prog.outputs))
    assert 0.95 * exact <= fast <= 1.01 * exact


def test_linear_fit():
    a, b, r2, dev = opcounts.linear_fit([2, 3, 4, 5], [3, 5, 7, 9])
    assert (round(a, 9), round(b, 9), round(r2, 9), round(dev, 9)) == (2, -1, 1, 0)
    a, b, r2, dev = opcounts.linear_fit([1, 2, 3], [1, 4, 9])
    assert r2 < 1 and dev > 0
    with pytest.raises(LagdynError, match="two"):
        opcounts.linear_fit([1], [1])


def test_report_validates_its_arguments():
    with pytest.raises(LagdynError, match="max_n"):
        list(opcounts.report(max_n=2))
    with pytest.raises(LagdynError, match="closed_max"):
        list(opcounts.report(closed_max=-1))
    with pytest.raises(LagdynError, match="kind"):
        list(opcounts.report(kinds=["helix"]))
    with pytest.raises(LagdynError, match="arm"):
        list(opcounts.report(arms=["r2d2"]))


def test_cli_bench_ops(monkeypatch, capsys):
    calls = {}

    def fake(**kw):
        calls.update(kw)
        yield "table"

    monkeypatch.setattr(opcounts, "report", fake)
    assert main(["bench", "--ops", "--max-n", "5", "--closed-max", "2", "--numeric"]) == 0
    assert calls == {"max_n": 5, "closed_max": 2, "parameters": "numeric"}
    assert "table" in capsys.readouterr().out
    assert main(["bench", "--ops", "ur5"]) == 2
    assert "no MODEL" in capsys.readouterr().err


def test_report_prints_the_fit_and_the_references():
    out = io.StringIO()
    for line in opcounts.report(max_n=4, closed_max=2, kinds=["planar"], arms=()):
        print(line, file=out)
    text = out.getvalue()
    assert "planar: recursive τ ≈ 61.0·n" in text and "slope 61.0" in text
    assert "Hollerbach" in text


@pytest.mark.parametrize("arm", sorted(opcounts.SYMPYBOTICS))
def test_every_program_is_smaller_than_sympybotics(arm):
    """Issue 12's customized-recursive reference, counted the same way (sympy, after CSE)."""
    import lagdyn as ld

    system = ld.zoo.get(arm, parameters="symbolic")
    for what, theirs in opcounts.SYMPYBOTICS[arm].items():
        assert system.program(what).count_ops() < theirs, what
