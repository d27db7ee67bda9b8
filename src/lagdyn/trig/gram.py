r"""The Gram sum :math:`M = \sum_r J_r^T W_r J_r`, one frequency at a time.

A mass matrix assembled from kinematics is a *Gram sum*: every body contributes
:math:`J^T W J` with :math:`J = \partial p/\partial q` (the Jacobian of a position or of an
angle, shape ``d × n``) and a weight :math:`W` (``d × d``: a mass times the identity, an
inertia tensor). The same sum is needed twice: the builder (:mod:`lagdyn.kinematics`)
assembles M from it, and the prover (:func:`lagdyn.structure.positive_definite`) checks
that the M a system returns equals it. Both compute it here.

*Terms.* A term is a pair ``(W, J)`` of nested lists (``W`` ``d × d``, ``J`` ``d × n``) of
sympy expressions; zero entries are skipped. The cell ``(i, j)`` (``i ≤ j``) of the sum is

.. math:: M_{ij} = \sum_{(W, J)} \sum_{r, s} J_{ri} W_{rs} J_{sj}.

*Per frequency* (:func:`gram_per_frequency`). When every entry of ``J`` is linear in
``cos``/``sin`` of rational combinations of ``q`` (:mod:`lagdyn.trig.linear`) and the
weights are free of them (planar chains: :math:`x = \sum_k l_k \sin\theta_k`), each
product :math:`J_{ri} J_{sj}` is formed by the product-to-sum formulas

.. math:: 2\cos a\cos b = \cos(a - b) + \cos(a + b), \quad
          2\sin a\sin b = \cos(a - b) - \cos(a + b), \ \dots

and every frequency is expanded on its own: half the terms of the Laurent expansion (no
conjugate halves) and no decoding.

*Laurent* (:func:`gram_laurent`). Otherwise the entries are encoded
(:class:`lagdyn.trig.laurent.Encoder`) and the products summed there; one expansion per
cell then gives M's canonical dictionary.

*Rows* (:func:`gram_rows`). With scalar weights the sum is :math:`\sum_r w_r\,
\mathrm{row}_r^T \mathrm{row}_r`, one row per position coordinate; the rows (and which row
is the ``y`` partner of an ``x`` row, so that the prover can form :math:`x + iy`) are
what the positive-definiteness proof reads.

Examples
--------
The point mass in polar coordinates, :math:`p = (r\cos\theta, r\sin\theta)`:

>>> import sympy
>>> from lagdyn.trig.laurent import encoder_for
>>> r, th, m = sympy.symbols("r theta m")
>>> J = [[sympy.cos(th), -r * sympy.sin(th)], [sympy.sin(th), r * sympy.cos(th)]]
>>> W = [[m, 0], [0, m]]
>>> enc = encoder_for([e for row in J + W for e in row if e != 0], [r, th])
>>> cells = gram_sum([(W, J)], enc)
>>> {cell: enc.rebuild(poly) for cell, poly in cells.items()}
{(0, 0): m, (0, 1): 0, (1, 1): m*r**2}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import symengine as se
import sympy

from .laurent import Encoder, NotRepresentableError, TrigPoly
from .linear import (
    Form,
    LinearTrigEncoder,
    NotLinearError,
    collapse,
    combine,
    is_zero_form,
    product_into,
    products_form,
    scaled,
)

__all__ = [
    "gram_laurent",
    "gram_matches",
    "gram_per_frequency",
    "gram_rows",
    "gram_sum",
]

#: ``(W, J)``: a ``d × d`` weight and a ``d × n`` Jacobian, nested lists of expressions.
Term = tuple[Sequence[Sequence[Any]], Sequence[Sequence[Any]]]

#: ``(weight, row, partner)``: one row of a Gram sum with scalar weights (``partner``:
#: index of the row that is this row's imaginary partner in ``x + i y``, or −1).
Row = tuple[Any, list[Any], int]

Cell = tuple[int, int]


def gram_rows(terms: Sequence[tuple[Any, sympy.MatrixBase]]) -> list[Row] | None:
    """The rows ``(w_r, J_r, partner)`` of ``M = Σ_r w_r J_rᵀ J_r``, or None when a weight
    is a matrix (a 3-D inertia tensor).

    Parameters
    ----------
    terms : sequence of (weight, Jacobian)
        ``weight`` a scalar sympy expression (or a matrix), ``Jacobian`` a sympy matrix of
        shape ``(d, n)``.

    Returns
    -------
    list of (weight, row, partner) or None
        One row per row of each Jacobian; the first row of a Jacobian with two rows or
        more names the second as its partner (``x`` and ``y`` of a planar position).

    Examples
    --------
    >>> import sympy
    >>> x, m = sympy.symbols("x m")
    >>> J = sympy.Matrix([[sympy.cos(x)], [sympy.sin(x)]])
    >>> gram_rows([(m, J)])
    [(m, [cos(x)], 1), (m, [sin(x)], -1)]
    >>> gram_rows([(sympy.eye(2), J)]) is None
    True
    """
    rows: list[Row] = []
    for W, J in terms:
        if isinstance(W, sympy.MatrixBase):
            return None
        start = len(rows)
        for r in range(J.rows):
            pair = start + 1 if (r == 0 and J.rows >= 2 and J.cols > 0) else -1
            rows.append((W, [J[r, j] for j in range(J.cols)], pair))
    return rows


def gram_per_frequency(
    terms: Sequence[Term], lin: LinearTrigEncoder, scale: Any = None
) -> dict[Cell, Form] | None:
    """The upper triangle of ``2 Σ JᵀWJ`` in per-frequency form (:mod:`lagdyn.trig.linear`).

    Parameters
    ----------
    terms : sequence of (W, J)
        Nested lists (``W`` ``d × d``, ``J`` ``d × n``); zero entries are skipped.
    lin : LinearTrigEncoder
        The reader of the entries (its coordinates are the ``n`` columns).
    scale : symengine expression, optional
        Multiplies every coefficient (``½`` gives Σ JᵀWJ itself).

    Returns
    -------
    dict or None
        ``{(i, j): form}`` for ``i ≤ j`` (coefficient lists unexpanded); None when an
        entry is not linear in its trigonometric atoms or a weight depends on ``q``.

    Examples
    --------
    >>> import sympy, symengine
    >>> from lagdyn.trig.linear import LinearTrigEncoder, is_zero_form
    >>> a, b, l = sympy.symbols("a b l")
    >>> lin = LinearTrigEncoder([a, b])
    >>> J = [[l * sympy.cos(a), l * sympy.cos(b)]]
    >>> cells = gram_per_frequency([([[1]], J)], lin, symengine.Rational(1, 2))
    >>> sorted(cells[0, 1])      # l² cos a cos b = l²/2 (cos(a − b) + cos(a + b))
    [(1, -1), (1, 1)]
    >>> is_zero_form(cells[0, 1])
    False
    >>> gram_per_frequency([([[sympy.cos(a)]], J)], lin) is None   # weight depends on q
    True
    """
    n = lin.n
    zero = lin.zero_key
    try:
        forms = [
            (
                [[collapse(lin.form(e)) if e != 0 else None for e in row] for row in W],
                [[collapse(lin.form(e)) if e != 0 else None for e in row] for row in J],
            )
            for W, J in terms
        ]
    except NotLinearError:
        return None
    acc: dict[Cell, Any] = {(i, j): {} for i in range(n) for j in range(i, n)}
    for We, Je in forms:
        for r, w_row in enumerate(We):
            for s, w in enumerate(w_row):
                if w is None:
                    continue
                if set(w) != {zero} or w[zero][1] is not None:
                    return None  # a weight that depends on the angles
                weight = w[zero][0]
                for i in range(n):
                    a = Je[r][i]
                    if a is None:
                        continue
                    # the weight multiplies the left factor once, not every product
                    aw = scaled([a], weight)[0]
                    for j in range(i, n):
                        b = Je[s][j]
                        if b is not None:
                            product_into(acc[i, j], aw, b)
    return {cell: products_form(products, scale) for cell, products in acc.items()}


def gram_laurent(encoded: Sequence[Term], n: int) -> dict[Cell, list[Any]]:
    """The upper triangle of Σ JᵀWJ from encoded entries: per cell, the unexpanded
    products ``J_ri · (W J)_rj`` whose sum is the cell.

    Parameters
    ----------
    encoded : sequence of (W, J)
        Nested lists of Laurent polynomials (:meth:`lagdyn.trig.laurent.Encoder.encode`),
        ``None`` for a zero entry.
    n : int
        The number of columns of every ``J``.

    Returns
    -------
    dict
        ``{(i, j): [products]}`` for ``i ≤ j``; expand a cell's sum to compare or decode it.

    Examples
    --------
    >>> import sympy, symengine
    >>> from lagdyn.trig.laurent import encoder_for
    >>> x, m = sympy.symbols("x m")
    >>> enc = encoder_for([sympy.cos(x), sympy.sin(x)], [x])
    >>> J = [[enc.encode(sympy.cos(x))], [enc.encode(sympy.sin(x))]]
    >>> cells = gram_laurent([([[enc.encode(m), None], [None, enc.encode(m)]], J)], 1)
    >>> symengine.expand(symengine.Add(*cells[0, 0]))      # m (cos² + sin²)
    m
    """
    acc: dict[Cell, list[Any]] = {(i, j): [] for i in range(n) for j in range(i, n)}
    for We, Je in encoded:
        d = len(Je)
        WJ = [
            [
                se.Add(
                    *[
                        We[r][s] * Je[s][j]
                        for s in range(d)
                        if We[r][s] is not None and Je[s][j] is not None
                    ]
                )
                for j in range(n)
            ]
            for r in range(d)
        ]
        for i in range(n):
            for r in range(d):
                a = Je[r][i]
                if a is None:
                    continue
                for j in range(i, n):
                    b = WJ[r][j]
                    if b != 0:
                        acc[i, j].append(a * b)
    return acc


def gram_sum(terms: Sequence[Term], encoder: Encoder) -> dict[Cell, TrigPoly] | None:
    """The canonical dictionaries of Σ JᵀWJ (upper triangle), in ``encoder``'s keys.

    Per frequency (:func:`gram_per_frequency`) when the entries allow it and are mostly
    sums (a Jacobian of single terms expands faster as one Laurent polynomial in C++);
    else by the Laurent encoding (:func:`gram_laurent`). ``encoder`` must have every
    nonzero entry registered; it is frozen here.

    Parameters
    ----------
    terms : sequence of (W, J)
        Nested lists of sympy expressions (``W`` ``d × d``, ``J`` ``d × n``).
    encoder : Encoder
        The shared encoder (:func:`lagdyn.trig.laurent.encoder_for` of the entries).

    Returns
    -------
    dict or None
        ``{(i, j): dictionary}`` for ``i ≤ j``; None when an entry is not representable.

    Examples
    --------
    Two links of a planar chain, :math:`x_2 = l_1\\sin a + l_2\\sin b`:

    >>> import sympy
    >>> from lagdyn.trig.laurent import encoder_for
    >>> a, b, l1, l2, m = sympy.symbols("a b l1 l2 m")
    >>> J = [[l1 * sympy.cos(a), l2 * sympy.cos(b)], [l1 * sympy.sin(a), l2 * sympy.sin(b)]]
    >>> W = [[m, 0], [0, m]]
    >>> enc = encoder_for([e for row in J + W for e in row if e != 0], [a, b])
    >>> enc.rebuild(gram_sum([(W, J)], enc)[0, 1])
    l1*l2*m*cos(a - b)
    """
    n = encoder.n
    linear = _gram_linear(terms, encoder)
    if linear is not None:
        return linear
    try:
        encoded = [
            (
                [[encoder.encode(e) if e != 0 else None for e in row] for row in W],
                [[encoder.encode(e) if e != 0 else None for e in row] for row in J],
            )
            for W, J in terms
        ]
        sums = gram_laurent(encoded, n)
        return {k: encoder.decode(se.expand(se.Add(*v))) if v else {} for k, v in sums.items()}
    except NotRepresentableError:
        return None


def _gram_linear(terms: Sequence[Term], encoder: Encoder) -> dict[Cell, TrigPoly] | None:
    """:func:`gram_per_frequency` (scaled by ½) converted to the encoder's dictionaries."""
    n = encoder.n
    sizes = [len(sympy.Add.make_args(e)) for _, J in terms for row in J for e in row if e != 0]
    if not sizes or sum(sizes) < 3 * len(sizes):
        return None  # mostly single terms: one Laurent expansion in C++ is faster
    lin = LinearTrigEncoder(encoder.q, symbol=encoder.symbol)
    cells = gram_per_frequency(terms, lin, se.Rational(1, 2))
    if cells is None:
        return None
    width = len(encoder.angles)
    den = encoder.denominators
    out: dict[Cell, TrigPoly] = {}
    for cell, form in cells.items():
        poly = {}
        for key, (a_terms, b_terms) in form.items():
            a = se.expand(se.Add(*a_terms)) if a_terms else se.Integer(0)
            b = se.expand(se.Add(*b_terms)) if b_terms else se.Integer(0)
            if a == 0 and b == 0:
                continue
            steps = [k * den[i] for i, k in enumerate(key)]
            if any(getattr(x, "denominator", 1) != 1 for x in steps):
                return None  # cannot happen: sums of registered frequencies
            poly[tuple(int(x) for x in steps) + (0,) * (width - n)] = (a, b)
        out[cell] = poly
    encoder.poly_q |= lin.poly_q
    encoder.freeze()
    return out


def gram_matches(
    M: Mapping[Cell, Any] | sympy.MatrixBase, terms: Sequence[Term], lin: LinearTrigEncoder
) -> bool | None:
    """Whether ``M`` equals Σ JᵀWJ entry by entry (upper triangle), per frequency.

    Parameters
    ----------
    M : sympy matrix (or mapping of cells)
        The mass matrix as returned, its entries read as given.
    terms : sequence of (W, J)
        Nested lists of sympy expressions.
    lin : LinearTrigEncoder
        The reader (its coordinates are the columns).

    Returns
    -------
    bool or None
        True / False (exact), or None when an entry is not linear in its trigonometric
        atoms or a weight depends on ``q`` (then compare with :func:`gram_laurent`).

    Examples
    --------
    >>> import sympy
    >>> from lagdyn.trig.linear import LinearTrigEncoder
    >>> a, b, l, m = sympy.symbols("a b l m")
    >>> J = [[l * sympy.cos(a), l * sympy.cos(b)], [l * sympy.sin(a), l * sympy.sin(b)]]
    >>> W = [[m, 0], [0, m]]
    >>> M = sympy.Matrix([[l**2*m, l**2*m*sympy.cos(a - b)], [l**2*m*sympy.cos(a - b), l**2*m]])
    >>> gram_matches(M, [(W, J)], LinearTrigEncoder([a, b]))
    True
    >>> gram_matches(2 * M, [(W, J)], LinearTrigEncoder([a, b]))
    False
    """
    cells = gram_per_frequency(terms, lin)
    if cells is None:
        return None
    try:
        for (i, j), doubled in cells.items():
            # the products are doubled: compare with 2 M_ij
            if not is_zero_form(combine((1, doubled), (-2, lin.form(M[i, j])))):
                return False
    except NotLinearError:
        return None
    return True
