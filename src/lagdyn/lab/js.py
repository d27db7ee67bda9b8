"""The JavaScript the lab page embeds: model modules with positions, constraints, changes of
coordinates.

Builders over :mod:`lagdyn.codegen.javascript` (which only prints): every function is a
:class:`~lagdyn.codegen.javascript.JsFunction` of a codegen program, printed by
:func:`~lagdyn.codegen.javascript.model_source` (``js_source`` with forward dynamics
for any n).

* :func:`model_functions` — the functions of the ``js`` export
  (:func:`~lagdyn.codegen.javascript.model_program`: M, C, g, h, forces, bias, energy,
  inverse and forward dynamics) and the constants describing their inputs;
* :func:`map_functions` — functions of extra expressions: of the coordinates (positions,
  point masses, the map to another convention) or of other input symbols (constraints
  h(z) and C = ∂h/∂z in ambient coordinates);
* :func:`position_functions` — ``positions(q, p)`` and ``positions_jacobian(q, p)``;
* :func:`page_modules` — the page's modules ``lab_m0``, ``lab_m1``, ...;
* :func:`export_js` — one model module with positions, as a standalone script.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp

from ..codegen import Binding, expression_program, program
from ..codegen.build import bound_number, full_precision_floats
from ..codegen.javascript import (
    JsFunction,
    JsModule,
    kernel_function,
    model_program,
    model_source,
    module_constants,
)
from ..errors import LagdynError
from .geometry import Convention, Geometry

__all__ = [
    "export_js",
    "map_functions",
    "model_functions",
    "page_modules",
    "position_functions",
]

#: One line of documentation of each function of :func:`position_functions`.
POSITION_DOCS = {
    "positions": "particle positions z(q), flat (x1, y1, x2, y2, ...)",
    "positions_jacobian": "J = dz/dq, zd = J qd",
}


def model_functions(
    system: Any, params: Mapping[Any, float] | None = None, *, strict: bool = False
) -> tuple[list[JsFunction], dict[str, Any]]:
    """The dynamics functions of ``system`` and the constants describing their inputs.

    Functions (signatures as in every exported language): ``M(q, p)``,
    ``C(q, qd, p)``, ``g(q, p)``, ``h(q, qd, p, t)``, ``forces(q, qd, p, t)``,
    ``bias(q, qd, p, t)``, ``energy(q, qd, p)``, ``inverse_dynamics(q, qd, qdd, p, t)``
    and ``forward_dynamics(q, qd, tau, p, t)`` (absent above the unrolled size:
    :func:`export_js` and :func:`page_modules` then add a Cholesky solve in JS through
    :func:`~lagdyn.codegen.javascript.model_source`). ``p`` holds the free parameters in
    the order of ``PARAMETERS``; ``t`` defaults to 0.

    Parameters
    ----------
    system : LagrangianSystem
    params : mapping of sympy.Symbol or str to float, optional
        Parameters folded into the code as numbers; the others are read from ``p``.
    strict : bool
        Reject names in ``params`` that are not parameters of the system.

    Returns
    -------
    (list of JsFunction, dict)
        The functions and the constants ``N``, ``COORDINATES``, ``PARAMETERS`` (the
        free ones, the order of ``p``) and ``BOUND`` (folded values by name).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.lab.js import model_functions
    >>> fns, consts = model_functions(ld.zoo.double_pendulum(), {"g": 9.81})
    >>> [f.name for f in fns][:4], consts["PARAMETERS"]
    (['M', 'C', 'g', 'h'], ['l1', 'l2', 'm1', 'm2'])
    """
    prog = model_program(system, Binding(system.parameters, params, strict=strict))
    return [kernel_function(prog, k) for k in prog.kernels.values()], module_constants(prog)


def map_functions(
    system: Any,
    maps: Mapping[str, tuple[Sequence[Any], tuple[int, ...]]],
    params: Mapping[Any, float] | None = None,
    *,
    inputs: tuple[str, Sequence[sp.Symbol]] | None = None,
    docs: Mapping[str, str] | None = None,
    strict: bool = False,
) -> list[JsFunction]:
    """Functions of extra expressions of the coordinates (or of other input symbols).

    Parameters
    ----------
    system : LagrangianSystem
        Supplies the coordinates and the parameters.
    maps : mapping of name to (expressions, shape)
        Flat, row-major expressions in ``system.q`` and its parameters (or in the
        ``inputs`` symbols and the parameters).
    params : mapping, optional
        Parameters folded into the code (as in :func:`model_functions`).
    inputs : (str, sequence of sympy.Symbol), optional
        Read the expressions' variables from an array argument with this name instead
        of ``q`` (e.g. ``("z", ambient_symbols)`` for constraints h(z)).
    docs : mapping of str to str, optional
        One-line documentation per function.
    strict : bool
        Reject names in ``params`` that are not parameters of the system.

    Returns
    -------
    list of JsFunction
        ``name(q, p)`` (or ``name(<inputs>, p)``) per entry, one joint CSE.

    Raises
    ------
    LagdynError
        Expressions with rates or symbols that are neither inputs nor parameters.

    Examples
    --------
    >>> import lagdyn as ld, sympy as sp
    >>> from lagdyn.lab.js import map_functions
    >>> dp = ld.zoo.double_pendulum()
    >>> a, b = dp.q
    >>> l1 = sp.Symbol("l1", positive=True)
    >>> (tip,) = map_functions(dp, {"tip": ([l1 * sp.sin(a)], (1,))})
    >>> tip.name, [x.name for x in tip.args]
    ('tip', ['q', 'p'])
    """
    binding = Binding(system.parameters, params, strict=strict)
    doc = dict(docs or {})
    if inputs is None:
        prog = expression_program(
            system,
            {k: list(v[0]) for k, v in maps.items()},
            {k: tuple(v[1]) for k, v in maps.items()},
            binding,
        )
        rates = {*prog.vector("qd"), prog.t}
        out = []
        for k in prog.kernels.values():
            if rates & k.used_symbols():
                raise LagdynError(f"JS map {k.name!r} must depend on the coordinates only")
            k = dataclasses.replace(k, inputs=("q", "params"))
            out.append(kernel_function(prog, k, doc=doc.get(k.name, "")))
        return out
    # expressions in other input symbols (no coordinates): a program of their own
    arg_name, syms = inputs
    code_in = tuple(sp.Symbol(f"{arg_name}_{i}", real=True) for i in range(len(syms)))
    code_p = tuple(sp.Symbol(f"p_{k}", real=True) for k in range(len(binding.free)))
    rename: dict[Any, Any] = {**dict(zip(syms, code_in)), **dict(zip(binding.free, code_p))}
    rename.update({s: bound_number(v) for s, v in binding.bound.items()})
    order = list(maps)
    flat: list[sp.Expr] = []
    for key in order:
        exprs = [full_precision_floats(sp.sympify(e).xreplace(rename)) for e in maps[key][0]]
        for e in exprs:
            bad = e.free_symbols - {*code_in, *code_p}
            if bad:
                raise LagdynError(
                    f"JS map {key!r} uses {', '.join(sorted(map(str, bad)))}, which are neither "
                    f"{arg_name} nor parameters"
                )
        flat += exprs
    repl, reduced = sp.cse(flat, symbols=sp.numbered_symbols("w"), order="none")
    outputs: dict[str, list[sp.Expr]] = {}
    pos = 0
    for key in order:
        size = len(maps[key][0])
        outputs[key] = list(reduced[pos : pos + size])
        pos += size
    prog = program(
        repl,
        outputs,
        {"q": code_in, "params": code_p},
        parameter_names=[s.name for s in binding.free],
    )
    return [
        kernel_function(
            prog,
            dataclasses.replace(prog.kernels[key], shape=tuple(maps[key][1])),
            names={"q": arg_name},
            doc=doc.get(key, ""),
        )
        for key in order
    ]


def position_functions(
    system: Any, positions: Sequence[Any], params: Mapping[Any, float] | None = None
) -> list[JsFunction]:
    """``positions(q, p)`` (flat z, length N) and ``positions_jacobian(q, p)`` (N × n).

    Examples
    --------
    >>> import lagdyn as ld, sympy as sp
    >>> from lagdyn.lab.js import position_functions
    >>> dp = ld.zoo.double_pendulum()
    >>> a, b = dp.q
    >>> fns = position_functions(dp, [(sp.sin(a), -sp.cos(a))])
    >>> [f.shape for f in fns]
    [(2,), (2, 2)]
    """
    z = [sp.sympify(c) for pt in positions for c in pt]
    J = [sp.diff(zi, qj) for zi in z for qj in system.q]
    return map_functions(
        system,
        {"positions": (z, (len(z),)), "positions_jacobian": (J, (len(z), system.n))},
        params,
        docs=POSITION_DOCS,
    )


def export_js(
    system: Any,
    *,
    name: str = "model",
    params: Mapping[Any, float] | None = None,
    positions: Sequence[Any] | None = None,
    strict: bool = False,
) -> str:
    """The JavaScript module of ``system`` (``lagdyn export MODEL -t js``).

    Parameters
    ----------
    system : LagrangianSystem
    name : str
        The global name of the module object (a JS identifier).
    params : mapping of sympy.Symbol or str to float, optional
        Parameters folded into the code as numbers; the others are read from ``p``.
    positions : sequence of 2- or 3-vectors in ``system.q``, optional
        Particle positions: adds ``positions(q, p)`` (flat ``z``) and
        ``positions_jacobian(q, p)`` (``J = ∂z/∂q``).
    strict : bool
        Reject names in ``params`` that are not parameters of the system.

    Returns
    -------
    str
        One script: ``var <name> = {...}`` in a browser, ``module.exports`` in Node.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.lab.js import export_js
    >>> src = export_js(ld.zoo.double_pendulum(), name="dp", params={"g": 9.81})
    >>> "function forward_dynamics(q, qd, tau, p, t = 0)" in src
    True
    """
    binding = Binding(system.parameters, params, strict=strict)
    prog = model_program(system, binding)
    fns = [kernel_function(prog, k) for k in prog.kernels.values()]
    if positions is not None:
        fns += position_functions(system, positions, params)
    comments = (f"lagdyn model: {system!r}", *prog.comments())
    return model_source(JsModule(name, tuple(fns), module_constants(prog), comments))


def page_modules(system: Any, geo: Geometry, convs: Sequence[Convention]) -> list[str]:
    """The JS source of the page's modules: ``lab_m0`` (the system's own coordinates) and
    ``lab_m1``, ... (one per convention).

    ``lab_m0`` holds the dynamics of :func:`model_functions`, the positions and their
    Jacobian, the constraints ``h(z)`` and ``C = ∂h/∂z`` in ambient coordinates and the
    point masses (when the geometry has them); each convention's module holds its
    dynamics, positions and ``to_primary(u, p)`` (the primary q) with its Jacobian. Every
    module has ``forward_dynamics`` however large n is (above the unrolled solve size, a
    Cholesky solve in JS: :func:`~lagdyn.codegen.javascript.model_source`), so the page's
    swing runs for any model.

    Parameters
    ----------
    system : LagrangianSystem
    geo : Geometry
        From :func:`~lagdyn.lab.model_geometry`.
    convs : sequence of Convention
        Other coordinates (:func:`~lagdyn.lab.default_conventions`).

    Returns
    -------
    list of str
        One script per module; nothing is bound: ``p`` is passed in every call.

    Raises
    ------
    LagdynError
        A convention whose changed system has other parameters.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.lab import model_geometry
    >>> from lagdyn.lab.js import page_modules
    >>> dp = ld.zoo.double_pendulum()
    >>> (src,) = page_modules(dp, model_geometry(dp), [])
    >>> "var lab_m0 = " in src and "function constraints_jacobian(z, p)" in src
    True
    """
    from ..coordchange import change_coordinates

    sources: list[str] = []
    z = geo.ambient()
    hs = geo.constraints(system.q)
    fns, consts = model_functions(system)
    fns += position_functions(system, geo.points)
    if hs:
        Cm = [sp.diff(h, zj) for h in hs for zj in z]
        fns += map_functions(
            system,
            {
                "constraints": (list(hs), (len(hs),)),
                "constraints_jacobian": (Cm, (len(hs), len(z))),
            },
            inputs=("z", z),
        )
    if geo.masses is not None:
        fns += map_functions(system, {"point_masses": (list(geo.masses), (len(geo.masses),))})
    sources.append(model_source(JsModule("lab_m0", tuple(fns), consts)))
    for k, c in enumerate(convs, start=1):
        other = change_coordinates(system, list(c.new_q), c.mapping)
        other_pts = [tuple(sp.sympify(e).xreplace(dict(c.mapping)) for e in p) for p in geo.points]
        to_primary = [sp.sympify(c.mapping[x]) for x in system.q]
        A = [sp.diff(e, u) for e in to_primary for u in other.q]
        f2, c2 = model_functions(other)
        if c2["PARAMETERS"] != consts["PARAMETERS"]:
            raise LagdynError(
                f"lab convention {c.label!r}: the changed system has parameters "
                f"{c2['PARAMETERS']}, expected {consts['PARAMETERS']}"
            )
        f2 += position_functions(other, other_pts)
        f2 += map_functions(
            other,
            {
                "to_primary": (to_primary, (system.n,)),
                "to_primary_jacobian": (A, (system.n, other.n)),
            },
        )
        sources.append(model_source(JsModule(f"lab_m{k}", tuple(f2), c2)))
    return sources
