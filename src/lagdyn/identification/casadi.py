"""The regressor of a :class:`~lagdyn.numeric.casadi.CasadiModel`, as a ``casadi.Function``.

:class:`CasadiRegressor` is handed to the model at construction
(:meth:`LagrangianSystem.to_casadi` does it): the model's ``regressor_params`` and
``regressor`` ask it on first access. For a robot chain whose columns are its standard
parameters the regressor is the recursive program of
:func:`lagdyn.recursive.regressor.regressor_program`, converted node by node (no closed
form); every other regressor comes from the closed form of :func:`lagdyn.identification.regressor`.

Examples
--------
>>> import lagdyn as ld
>>> dp = ld.zoo.double_pendulum()
>>> cm = dp.to_casadi(dp.defaults)
>>> cm.regressor.size_out(0)
(2, 7)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

import lagdyn.codegen.casadi as cg

from ..codegen import Binding, expression_program, program
from ..codegen.build import bound_number
from ..codegen.ir import code_symbols
from ..errors import LagdynError
from ..recursive.chain import chain_of
from ..recursive.regressor import regressor_program
from ..recursive.route import _clean
from .regressor import _resolve, _use_recursive, linear_parameters, regressor

__all__ = ["CasadiRegressor"]


class CasadiRegressor:
    """Builds the regressor columns and function of a ``CasadiModel``.

    Parameters
    ----------
    columns : sequence, optional
        The parameters π of the columns (as for :func:`lagdyn.regressor`); default a robot
        chain's standard parameters, else the products of
        :func:`~lagdyn.identification.linear_parameters` of every parameter except ``g``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.numeric.casadi import to_casadi
    >>> dp = ld.zoo.double_pendulum()
    >>> m1, m2, l1, l2 = (next(s for s in dp.parameters if s.name == n)
    ...                   for n in ("m1", "m2", "l1", "l2"))
    >>> cm = to_casadi(dp, dp.defaults, regressor=CasadiRegressor([m1 * l1, m2 * l2]))
    >>> cm.regressor_params
    (l1*m1, l2*m2)
    """

    def __init__(self, columns: Sequence[Any] | None = None) -> None:
        self.columns = columns

    def params(self, model: Any) -> tuple[sp.Expr, ...]:
        """The columns' parameters π for ``model``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.numeric.casadi import to_casadi
        >>> dp = ld.zoo.double_pendulum()
        >>> CasadiRegressor().params(to_casadi(dp, dp.defaults))
        (l1*m1, l1*m2, l2*m2, l1**2*m1, l1**2*m2, l2**2*m2, l1*l2*m2)
        """
        system = model.system
        if self.columns is not None:
            return _resolve(system, self.columns)
        if chain_of(system) is not None:
            from ..recursive.regressor import standard_parameters_of

            try:
                return standard_parameters_of(system)
            except LagdynError:  # no symbolic inertial parameters: the closed form's products
                pass
        unknown = [s for s in system.parameters if s.name != "g"]
        return tuple(linear_parameters(system, unknown))

    def function(self, model: Any, params: Sequence[sp.Expr]) -> Any:
        """``Y(q, qd, qdd[, p])`` of ``model`` for the columns ``params``.

        Its ``p`` is the same vector as the model's other functions' (entries of the
        regressor's own unknowns are not read).

        Raises
        ------
        LagdynError
            The equations are not linear in ``params``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.numeric.casadi import to_casadi
        >>> dp = ld.zoo.double_pendulum()
        >>> cm = to_casadi(dp, dp.defaults)
        >>> reg = CasadiRegressor()
        >>> reg.function(cm, reg.params(cm)).size_out(0)
        (2, 7)
        """
        params = tuple(params)
        ca = cg.import_casadi()
        system, n = model.system, model.n
        if model.requested_route != "closed" and _use_recursive(system, params, None):
            return _recursive(model, params)
        Y = regressor(system, params, route="closed" if model.requested_route == "closed" else None)
        k = len(params)
        acc = tuple(sp.Symbol(f"_ldcasadi_qdd{i}", real=True) for i in range(n))
        rows = sp.Matrix(Y).xreplace({system.qdd[i]: acc[i] for i in range(n)})
        unknown = {s for p in params for s in p.free_symbols}
        values: dict[Any, float] = dict(model.bound)
        values.update({s: 0.0 for s in unknown if s not in values})  # Y does not contain them
        binding = Binding((*system.parameters, *acc), values, check=False)  # zeros: placeholders
        prog = expression_program(system, {"Y": list(rows)}, {"Y": (n, k)}, binding)
        kern = prog.kernels["Y"]
        if prog.t in kern.used_symbols():  # pragma: no cover - a known force is not linear in π
            raise LagdynError("the regressor depends on time; it cannot be a casadi Function")
        names = model._inputs(("q", "qd", "qdd", "params"))
        X = dict(zip(names, model._symbols(ca, ("q", "qd", "qdd", "params"))))
        env: dict[sp.Basic, Any] = {}
        env.update({s: X["q"][i] for i, s in enumerate(prog.vector("q"))})
        env.update({s: X["qd"][i] for i, s in enumerate(prog.vector("qd"))})
        where = {s: i for i, s in enumerate(model.free_parameters)}
        for code, sym in zip(prog.vector("params"), binding.free):
            env[code] = X["qdd"][acc.index(sym)] if sym in acc else X["params"][where[sym]]
        arg = [cg.ARG[v] for v in names]
        return cg.graph_function(kern, env, "regressor", list(X.values()), arg, "Y")


def _recursive(model: Any, params: tuple[sp.Expr, ...]) -> Any:
    """Y of a chain's standard parameters from its recursive regressor program.

    Bound parameters other than π are substituted into the chain as numbers and the free
    ones as the entries of ``p``, as the recursive dynamics do; π itself is not read.
    """
    n, k = model.n, len(params)
    code = {
        "q": code_symbols("q", n),
        "qd": code_symbols("qd", n),
        "qdd": code_symbols("qdd", n),
        "params": code_symbols("p", len(model.free_parameters)),
    }
    known: dict[sp.Symbol, Any] = {s: bound_number(v) for s, v in model.bound.items()}
    known.update(zip(model.free_parameters, code["params"]))
    prog = regressor_program(model.system, params, known, code=code)
    body = [(s, _clean(e)) for s, e in prog.body]
    outs = sp.Matrix(n, k, [_clean(sp.sympify(e)) for e in prog.outputs])
    built = program(
        body,
        {"Y": outs},
        code,
        t=model.program.t,
        parameter_names=tuple(s.name for s in model.free_parameters),
    )
    names = model._inputs(("q", "qd", "qdd", "params"))
    return cg.kernel_function(built, built.kernels["Y"], name="regressor", inputs=names)
