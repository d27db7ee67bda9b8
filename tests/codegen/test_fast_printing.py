"""The printers' fast paths (lagdyn.codegen.common) print what sympy's own methods print.

Every printer is run twice on random expressions: with the fast paths and with them
switched off (``common._FAST = False``: sympy's doprint, _print_Add, _print_Mul,
parenthesize and as_ordered_terms), and the texts must be equal. Helpers are compared with
the sympy functions they stand for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.printing.precedence import precedence

from lagdyn.codegen import common
from lagdyn.codegen.c import CPrinter
from lagdyn.codegen.cpp import CxxPrinter
from lagdyn.codegen.javascript import JsPrinter
from lagdyn.codegen.jax import JaxPrinter
from lagdyn.codegen.julia import JuliaPrinter
from lagdyn.codegen.matlab import OctavePrinter
from lagdyn.codegen.python import BatchPrinter, ScalarPrinter

x, y, z = sp.symbols("x y z", real=True)
w = sp.Symbol("w")
ATOMS = [x, y, z, w, sp.pi, sp.E]
NUMBERS = [
    sp.Integer(2),
    sp.Integer(-3),
    sp.Rational(1, 3),
    sp.Rational(-5, 7),
    sp.Float(0.1),
    sp.Float(-2.5),
    sp.Float("1.0000000000000002"),
    sp.Float(-1e300),
    sp.Integer(2**40),
]
SPECIAL = [sp.zoo, sp.oo, -sp.oo, sp.nan, sp.I]


def leaves(special: bool) -> st.SearchStrategy[sp.Expr]:
    return st.sampled_from(ATOMS + NUMBERS + (SPECIAL if special else []))


def exprs(special: bool = False) -> st.SearchStrategy[sp.Expr]:
    def extend(children: st.SearchStrategy[sp.Expr]) -> st.SearchStrategy[sp.Expr]:
        lists = st.lists(children, min_size=2, max_size=4)
        return st.one_of(
            lists.map(lambda a: sp.Add(*a)),
            lists.map(lambda a: sp.Mul(*a)),
            st.tuples(children, st.sampled_from([-4, -3, -2, -1, 2, 3, 5, sp.Rational(1, 2)])).map(
                lambda t: sp.Pow(t[0], t[1])
            ),
            children.map(sp.sin),
            children.map(sp.cos),
            children.map(sp.Abs),
            children.map(lambda a: -a),
        )

    return st.recursive(leaves(special), extend, max_leaves=12)


PRINTERS = [
    CPrinter,
    CxxPrinter,
    JsPrinter,
    JaxPrinter,
    JuliaPrinter,
    OctavePrinter,
    ScalarPrinter,
    BatchPrinter,
]


@contextmanager
def sympy_only() -> Iterator[None]:
    """The fast paths switched off: every printer takes sympy's own methods."""
    saved = common._FAST, common.PrinterMixin._fast_cache
    common._FAST, common.PrinterMixin._fast_cache = False, {}
    try:
        yield
    finally:
        common._FAST, common.PrinterMixin._fast_cache = saved


def printed(printer: type, e: sp.Expr) -> str:
    try:
        return str(printer().doprint(e))
    except Exception as exc:  # both paths must fail alike
        return f"raised {type(exc).__name__}"


@pytest.mark.skipif(not common._FAST, reason="the fast paths are for sympy 1.14")
@settings(max_examples=150, deadline=None)
@given(e=exprs(special=True))
def test_printers_print_what_sympy_prints(e):
    for printer in PRINTERS:
        fast = printed(printer, e)
        with sympy_only():
            slow = printed(printer, e)
        assert fast == slow, (printer.__name__, sp.srepr(e))


@settings(max_examples=300, deadline=None)
@given(e=exprs(special=True))
def test_helpers_agree_with_sympy(e):
    assert common._precedence(e) == precedence(e)
    for a in sp.preorder_traversal(e):
        assert common._precedence(a) == precedence(a), sp.srepr(a)
        if type(a) is sp.Add:
            assert common._ordered_terms(a) == a.as_ordered_terms(), sp.srepr(a)


def test_products_whose_negation_is_themselves():
    # zoo*x == -zoo*x: sympy's precedence_Mul cannot extract a sign there
    for e in [sp.zoo * x, sp.nan * x, -sp.oo * x, sp.Float("-inf") * x, sp.Float(0.0) * x]:
        if type(e) is sp.Mul:
            assert common._precedence(e) == precedence(e)


def test_re_is_rewritten_as_sympy_does():
    # doprint's fast path leaves expressions with re(...) to sympy's rewrite
    e = sp.re(w) + sp.re(x) * y + sp.UnevaluatedExpr(sp.re(z))
    assert common._has_re(e) and not common._has_re(x * sp.sin(y))
    for printer in PRINTERS:
        fast = printed(printer, e)
        with sympy_only():
            assert printed(printer, e) == fast


def test_code_name_is_str():
    for s in [x, w, sp.Symbol("M_0_1", positive=True), sp.Dummy("d")]:
        assert common.code_name(s) == str(s)


@pytest.mark.parametrize("c", NUMBERS + SPECIAL, ids=str)
def test_every_leading_coefficient(c):
    terms = [c * x, c * x * y, c * sp.sin(x), c / x, c * x**2, c * x + y, c + x * c, c * (x + y)]
    for e in terms:
        for a in sp.preorder_traversal(e):
            assert common._precedence(a) == precedence(a), sp.srepr(a)
            if type(a) is sp.Add:
                assert common._ordered_terms(a) == a.as_ordered_terms(), sp.srepr(a)
        for printer in PRINTERS:
            fast = printed(printer, e)
            with sympy_only():
                assert printed(printer, e) == fast, (printer.__name__, sp.srepr(e))
