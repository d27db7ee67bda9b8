"""The closed-form route: a chain as a :class:`LagrangianSystem` (:class:`RobotSystem`).

Examples
--------
>>> import lagdyn as ld
>>> arm = ld.zoo.get("spatial_3r")
>>> type(arm).__name__, arm.chain.n
('RobotSystem', 3)
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import symengine as se
import sympy as sp

import lagdyn.trig.convert as _convert

from .._moved import warn_moved
from ..errors import LagdynError
from ..geometry import Drawing
from ..recursive import Program, coriolis, crba, forward_dynamics, rnea
from ..recursive.chain import Chain
from ..symbols import t as _time
from ..system import LagrangianSystem, _validate_coordinates
from ._checks import check_chain

__all__ = ["RobotSystem", "build"]

Mat = sp.ImmutableMatrix
_EYE = sp.ImmutableMatrix.eye(3)
_ZERO3 = sp.ImmutableMatrix.zeros(3, 1)


class RobotSystem(LagrangianSystem):
    """A :class:`LagrangianSystem` built from a :class:`~lagdyn.robot.Chain`, closed form lazy.

    Everything of a ``LagrangianSystem`` works (M, C, g, proofs, LaTeX, ``lambdify``); the
    closed-form mass matrix and potential (:func:`closed_form`) are only assembled on first
    use, so building a 7-DOF arm and its recursive programs never pays for them. ``chain``
    holds the links; :meth:`program` builds the recursive programs of
    :mod:`lagdyn.recursive` (cached).

    The closed form is bounded: when its expected size
    (:func:`lagdyn.recursive.route.closed_size`) exceeds ``closed_limit``, everything that
    needs it (``M``, ``C``, ``g``, ``lambdify(route="closed")``, the closed-form proofs,
    LaTeX) raises a :class:`~lagdyn.LagdynError` at once that names the recursive route,
    instead of expanding for minutes and gigabytes.

    The chain is checked first (:func:`lagdyn.robot._checks.check_chain`): unique joint
    names, no symbol named like lagdyn's internal ones (``_ld…``), every entry a finite
    real constant or parameter (never a coordinate or time), placements that are rotations.

    Parameters
    ----------
    chain : Chain
        The links, coordinates, gravity and defaults.
    friction : bool
        Include the joints' viscous and Coulomb friction as generalized forces.
    closed_limit : float, optional
        The largest closed-form size built; default (None)
        :data:`lagdyn.recursive.route.CLOSED_LIMIT`. Also settable on the system
        (``arm.closed_limit = 8``) before the closed form is first used.

    Examples
    --------
    >>> import lagdyn as ld
    >>> arm = ld.zoo.get("planar_3r")
    >>> arm.program("M").shape
    (3, 3)
    >>> arm.closed_limit is None
    True
    """

    def __init__(
        self, chain: Chain, *, friction: bool = False, closed_limit: float | None = None
    ) -> None:
        if not isinstance(chain, Chain):
            raise LagdynError(f"a RobotSystem is built from a Chain, got {type(chain).__name__}")
        check_chain(chain)
        self.chain = chain
        self.friction = friction
        self.closed_limit = closed_limit
        #: Named frames (a URDF's links, those welded by fixed joints included, and joints):
        #: name → :class:`~lagdyn.recursive.kinematics.Frame` (its link, −1 the world, and
        #: its placement in that link's frame).
        self.frames: dict[str, Any] = {}
        q = _validate_coordinates(chain.q)
        self._q = q
        self.defaults = dict(chain.defaults)
        forces = None
        if friction:
            forces = [
                -link.viscous * x.diff(_time) - link.coulomb * sp.sign(x.diff(_time))
                for link, x in zip(chain.links, q)
            ]
            if all(f == 0 for f in forces):
                forces = None
        self._forces_in = self._validate_forces(forces)
        self._qs, self._vs = _convert.state_symbols(self.n)
        self._fwd, self._bwd = _convert.substitution(self._q, self.qd, self._qs, self._vs)
        self._symtab = _convert.SymbolTable.from_symbols(
            set(chain.parameters), extra={s.name: d for s, d in self._bwd.items()}
        )

    @cached_property
    def drawing(self) -> Drawing:
        """The arm as a 3-D stick figure: the base, then every link frame's origin.

        Examples
        --------
        >>> import lagdyn as ld
        >>> arm = ld.zoo.get("planar_3r")
        >>> arm.drawing.links
        ((0, 1), (1, 2), (2, 3))
        """
        frames = self.chain.forward_kinematics()
        points = [(0, 0, 0), *[tuple(p) for _, p in frames]]
        links = tuple((link.parent + 1, i + 1) for i, link in enumerate(self.chain.links))
        return Drawing(tuple(tuple(sp.sympify(c) for c in p) for p in points), links)

    @cached_property
    def _closed(self) -> tuple[sp.ImmutableMatrix, sp.Expr]:
        # every closed-form use (M, C, g, U, proofs, LaTeX, the closed route) starts here
        from ..recursive.route import check_closed_size

        check_closed_size(self, self.closed_limit)
        return closed_form(self.chain)

    @property
    def _M_dyn(self) -> sp.ImmutableMatrix:
        return self._closed[0]

    @property
    def _V_dyn(self) -> sp.Expr:
        return self._closed[1]

    @property
    def _b_dyn(self) -> sp.ImmutableMatrix:
        return sp.ImmutableMatrix.zeros(self.n, 1)

    @cached_property
    def _L(self) -> sp.Expr:
        # ½ q̇ᵀMq̇ − V as one flat sum (a matrix product builds and re-flattens nested sums)
        M, v, n = self._M_dyn, self.qd, self.n
        terms = [M[i, i] * v[i] ** 2 / 2 for i in range(n)]
        terms += [M[i, j] * v[i] * v[j] for i in range(n) for j in range(i + 1, n)]
        return sp.Add(*terms, -self._V_dyn)

    @cached_property
    def parameters(self) -> tuple[sp.Symbol, ...]:
        """The chain's symbols (inertial, geometric, gravity, friction), sorted by name.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("panda").parameters
        (g,)
        """
        return self.chain.parameters

    def recursive_model(self, params: Any = None) -> Any:
        """Deprecated: ``lambdify(params, route="recursive")``, the recursive route's model.

        ``params`` default to ``defaults``. The numpy evaluator of single programs this
        returned (``RecursiveModel``) is gone: the recursive programs are generated through
        :mod:`lagdyn.codegen` like every other model; complex-step derivatives run through
        ``system.program(name).lambdify(params)``.

        Examples
        --------
        >>> import warnings, numpy as np, lagdyn as ld
        >>> arm = ld.zoo.get("planar_3r")
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     model = arm.recursive_model()
        >>> model.route, model.forward_dynamics(np.zeros(3), np.zeros(3)).shape
        ('recursive', (3,))
        """
        warn_moved(
            "RobotSystem.recursive_model()",
            'RobotSystem.lambdify(params, route="recursive")',
        )
        return self.lambdify(self.defaults if params is None else params, route="recursive")

    def numeric_plan(
        self, binding: Any, backend: str, route: str | None = None, forward: str | None = None
    ) -> tuple[str, str, Any]:
        """``(route, cache key, program factory)`` for :func:`lagdyn.numeric.lambdify`.

        ``route`` is ``"recursive"``, ``"closed"`` or ``None`` (the default by size, see
        :mod:`lagdyn.recursive.route`); ``forward`` the recursive route's forward-dynamics
        algorithm (``"aba"``, ``"crba"``, None: by size).

        Examples
        --------
        >>> import lagdyn as ld
        >>> from lagdyn.codegen import Binding
        >>> arm = ld.zoo.get("ur5")
        >>> arm.numeric_plan(Binding(arm.parameters), "numpy")[0]
        'recursive'
        """
        from ..recursive.route import plan

        return plan(self, binding, backend, route, forward)

    def is_skew_symmetric(
        self, C: sp.MatrixBase | None = None, *, route: str | None = None
    ) -> bool | None:
        """Ṁ − 2C skew: on the recursive programs (default) or on the closed form.

        ``route="recursive"`` (the default without a user ``C``) decides it exactly for the
        CRBA M and the recursive Coriolis C that the generated code runs, without building
        the closed form: the programs are expanded on the torus with every input a
        variable and Ṁ formed by the chain rule on the expanded M
        (:mod:`lagdyn.recursive.proofs`); ``True`` and ``False`` are both certain.
        ``route="closed"`` (the default with a user ``C``) is
        :func:`lagdyn.structure.is_skew_symmetric` on the closed-form M and C (or ``C``).
        Without a ``route``, programs the exact evaluation cannot take (floating-point
        rotations) go to the closed form.

        Raises
        ------
        LagdynError
            An unknown route, a user ``C`` with the recursive route, programs the
            recursive route cannot decide when it was asked for (floating-point rotations:
            use the closed route), or a closed form above the system's ``closed_limit``
            (see :class:`RobotSystem`).

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("puma560", parameters="symbolic").is_skew_symmetric()
        True
        """
        if route is None:
            route = "recursive" if C is None else "closed"
            if route == "recursive":
                from ..recursive.proofs import is_skew_symmetric as on_programs

                verdict = on_programs(self)
                if verdict is not None:
                    return verdict
                route = "closed"
        if route == "closed":
            from ..structure import is_skew_symmetric as on_closed_form

            return on_closed_form(self, C, route="closed")
        if route != "recursive":
            raise LagdynError(f"route must be 'closed' or 'recursive', got {route!r}")
        if C is not None:
            raise LagdynError("a user C is checked on the closed route (route='closed')")
        from ..recursive.proofs import is_skew_symmetric

        verdict = is_skew_symmetric(self)
        if verdict is None:
            from ..recursive.route import CLOSED_LIMIT, closed_size

            limit = CLOSED_LIMIT if self.closed_limit is None else self.closed_limit
            size = closed_size(self).size
            advice = (
                "prove skew-symmetry on the closed form (route='closed')"
                if size <= limit
                else f"and the closed form is too large for route='closed' (size {size} > "
                f"closed_limit {limit:g}): neither exact route decides it for this chain"
            )
            raise LagdynError(
                "the recursive programs hold floating-point rotations, a constant angle such "
                "as π/7 or 0.123 rad whose cosine exact evaluation cannot take, or functions "
                f"it cannot take; {advice}"
            )
        return verdict

    def program(self, name: str) -> Program:
        """The recursive program ``name``: ``"tau"``, ``"h"``, ``"g"``, ``"M"``, ``"qdd"``, ``"C"``.

        Raises
        ------
        LagdynError
            An unknown name.

        Examples
        --------
        >>> import lagdyn as ld
        >>> ld.zoo.get("planar_3r").program("g").name
        'g'
        """
        cache: dict[str, Program] = self.__dict__.setdefault("_programs", {})
        if name not in cache:
            c, fr = self.chain, self.friction
            makers: dict[str, Any] = {
                "tau": lambda: rnea(c, friction=fr),
                "h": lambda: rnea(c, qdd=False),
                "g": lambda: rnea(c, qd=False, qdd=False),
                "M": lambda: crba(c),
                "qdd": lambda: forward_dynamics(c, friction=fr),
                "C": lambda: coriolis(c),
            }
            if name not in makers:
                raise LagdynError(f"unknown program {name!r}; known: {', '.join(makers)}")
            cache[name] = makers[name]()
        return cache[name]


def build(
    chain: Chain, *, friction: bool = False, closed_limit: float | None = None
) -> RobotSystem:
    """The :class:`RobotSystem` of ``chain`` (closed form assembled lazily, bounded by
    ``closed_limit``).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot.system import build
    >>> build(ld.zoo.get("planar_3r").chain).n
    3
    """
    return RobotSystem(chain, friction=friction, closed_limit=closed_limit)


def closed_form(chain: Chain, *, plain: bool = False) -> tuple[sp.ImmutableMatrix, sp.Expr]:
    r"""The closed-form mass matrix M(q) and potential U(q) of a chain (geometric Jacobians).

    Per link, with the world placement (R, p) of its frame, the world first moment
    :math:`h_w = R h` and inertia :math:`I_w = R I R^T` about the frame origin,

    .. math:: M = \sum_i m J_p^T J_p + J_\omega^T I_w J_\omega
              - J_p^T [h_w]_\times J_\omega + J_\omega^T [h_w]_\times J_p,

    plus the armatures on the diagonal; :math:`U = -\sum_i g\cdot(m p + h_w)`. The
    entries are nested products (nothing is expanded); symmetry holds by construction. The
    arithmetic runs in symengine. ``plain=True`` returns them in the plain symbols ``_ldq{i}``
    instead of q(t).

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot.system import closed_form
    >>> closed_form(ld.zoo.get("planar_3r").chain)[0][2, 2]
    1/3
    """
    n = chain.n
    qs, _ = _convert.state_symbols(n)
    table = _convert.SymbolTable.from_symbols(
        chain.parameters, extra={s.name: s if plain else x for s, x in zip(qs, chain.q)}
    )
    M, U, _ = closed_form_symengine(chain)
    entries = {(i, j): table.to_sympy(M[i, j]) for i in range(n) for j in range(i, n)}
    Msym = sp.ImmutableMatrix(n, n, lambda i, j: entries[min(i, j), max(i, j)])
    return Msym, table.to_sympy(U)


def _se_mat(m: Any) -> Any:
    return se.DenseMatrix(m.rows, m.cols, [se.sympify(x) for x in m])


def _se_cross(a: Any, b: Any) -> Any:
    return se.DenseMatrix(
        3,
        1,
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]],
    )


def closed_form_symengine(chain: Chain) -> tuple[Any, Any, list[Any]]:
    """The closed form of :func:`closed_form` as symengine objects in plain symbols.

    Returns ``(M, U, q)``: an n × n ``symengine.DenseMatrix``, the potential, and the plain
    coordinate symbols ``_ldq{i}``; fast to evaluate with ``symengine.Lambdify``.

    Examples
    --------
    >>> import lagdyn as ld
    >>> from lagdyn.robot.system import closed_form_symengine
    >>> M, U, q = closed_form_symengine(ld.zoo.get("planar_3r").chain)
    >>> M.shape, float(M[2, 2].subs({x: 0.3 for x in q}))
    ((3, 3), 0.3333333333333333)
    """
    n = chain.n
    qs = [se.Symbol(s.name) for s in _convert.state_symbols(n)[0]]
    eye, zero = se.eye(3), se.zeros(3, 1)
    frames: list[tuple[Any, Any]] = []
    axes: list[Any] = []
    origins: list[Any] = []
    for i, link in enumerate(chain.links):
        R, p = (_se_mat(m) for m in link.transform(sp.Symbol(qs[i].name, real=True)))
        Rp, pp = frames[link.parent] if link.parent >= 0 else (eye, zero)
        RA, pA = (_se_mat(m) for m in link.pre)
        axes.append(Rp * RA * _se_mat(link.axis))
        origins.append(pp + Rp * pA)
        frames.append((Rp * R, pp + Rp * p))
    g = _se_mat(chain.gravity)
    M = se.zeros(n, n)
    U = se.Integer(0)
    for i, link in enumerate(chain.links):
        R, p = frames[i]
        m = se.sympify(link.mass)
        Jp = se.zeros(3, n)
        Jw = se.zeros(3, n)
        for j in chain.ancestors(i):
            if chain.links[j].joint == "revolute":
                col, wcol = _se_cross(axes[j], p - origins[j]), axes[j]
            else:
                col, wcol = axes[j], zero
            for r in range(3):
                Jp[r, j] = col[r]
                Jw[r, j] = wcol[r]
        hw = R * _se_mat(link.first_moment)
        Iw = R * _se_mat(link.inertia) * R.T
        S = se.DenseMatrix(3, 3, [0, -hw[2], hw[1], hw[2], 0, -hw[0], -hw[1], hw[0], 0])
        crossterm = Jw.T * S * Jp
        M = M + Jp.T * Jp * m + Jw.T * Iw * Jw + crossterm + crossterm.T
        U = U - (g.T * (p * m + hw))[0, 0]
    for i, link in enumerate(chain.links):
        M[i, i] = M[i, i] + se.sympify(link.armature)
    return M, U, qs
