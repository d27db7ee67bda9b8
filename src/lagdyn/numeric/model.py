r"""NumericModel: batched numeric M, C, g, dynamics and energy of a LagrangianSystem.

Shapes: every state argument has shape ``(..., n)``; leading (batch) axes of all
arguments broadcast against each other, and against the batch axes of ``params``
(``(..., n_free)``) and ``t`` (``(...)``). One state ``(n,)`` gives ``M`` of shape
``(n, n)``; ``(B, n)`` gives ``(B, n, n)``.

Non-finite values and singular states follow IEEE arithmetic on every path (one
state or a batch; numpy, C, numba or jax) and never raise: inputs are not screened
for NaN or infinity, which propagate (a NaN anywhere in a state makes that state's
outputs NaN where they depend on it; other states are unaffected), and a state where
M is singular (a chart singularity such as θ = 0 of the spherical pendulum) or where
a function leaves its domain gives ``inf``/``nan`` in the outputs that depend on it.
Bound parameter values that make M singular everywhere are refused by ``lambdify``
(:class:`~lagdyn.SingularMassMatrixError`).

Per-call parameter values (``params=``) are checked against their symbols'
assumptions, as bound ones are at ``lambdify``: a ``positive`` mass passed as ``-1``
raises :class:`~lagdyn.LagdynError` naming the parameter, the value (and its batch
index) and the assumption. The check is vectorised (one comparison per assumption
present, none when the free parameters have none); NaN passes and propagates, like a
NaN state; jax arrays are not checked (inside ``jit`` their values are unknown).

Dask arrays (chunked along batch axes) are accepted by every method and give lazy
dask arrays back (``map_blocks``), so huge state sets run chunk by chunk.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sp

from ..codegen import KERNELS, Binding, output_shape
from ..codegen.binding import check_real, real_array
from ..codegen.build import DERIVATIVE_KERNELS
from ..errors import LagdynError, ShapeError, UnboundParameterError
from .backends import Kernels

__all__ = ["DerivativeModel", "NumericModel", "check_option"]


def check_option(name: str, value: Any, *, integer: bool = False, zero: bool = False) -> Any:
    """``value`` if it is a finite positive number (an int with ``integer``; 0 allowed with
    ``zero``), else a :class:`~lagdyn.LagdynError` naming the option.

    Tolerances, iteration counts and gains of the solvers go through it: ``tol=-1`` can
    never be met and made iterations report "did not converge (change 0 > tol -1)".

    Examples
    --------
    >>> from lagdyn.numeric.model import check_option
    >>> check_option("tol", 1e-9)
    1e-09
    >>> check_option("tol", -1)
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: tol must be a positive number, got -1
    >>> check_option("max_iter", 2.5, integer=True)
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: max_iter must be a positive integer, got 2.5
    """
    what = ("a non-negative" if zero else "a positive") + (" integer" if integer else " number")
    if integer:
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
            value, bool
        )
        ok = ok and math.isfinite(value)
    if not (ok and (value >= 0 if zero else value > 0)):
        raise LagdynError(f"{name} must be {what}, got {value!r}")
    return value


_ARG_NAMES = {
    "forward_dynamics": ("q", "qd", "tau"),
    "inverse_dynamics": ("q", "qd", "qdd"),
    "forward_dynamics_derivatives": ("q", "qd", "tau"),
    "inverse_dynamics_derivatives": ("q", "qd", "qdd"),
}


def real_last(name: str, a: Any, n: int) -> np.ndarray:
    """``a`` as float64 with a last axis of length ``n`` (batched inputs), or a
    :class:`ShapeError` naming ``name``.

    Examples
    --------
    >>> real_last("v", [1, 2], 2)
    array([1., 2.])
    >>> real_last("v", [1, 2], 3)
    Traceback (most recent call last):
    ...
    lagdyn.errors.ShapeError: v has shape (2,), expected (..., 3)
    >>> real_last("v", [1j, 2], 2)
    Traceback (most recent call last):
    ...
    lagdyn.errors.ShapeError: v must be real numbers of shape (..., 2), got complex numbers
    """
    raw = a if isinstance(a, np.ndarray) else None
    if raw is None and not isinstance(a, (str, bytes)):
        try:
            raw = np.asarray(a)
        except (TypeError, ValueError):
            raw = None
    x = None
    if raw is not None and raw.dtype.kind in "biuf":
        x = raw.astype(np.float64, copy=False)
    elif raw is not None and raw.dtype.kind == "O":  # real numbers of other types (sympy)
        try:
            x = raw.astype(np.float64)
        except (TypeError, ValueError):
            x = None
    if x is None:
        kind = "complex numbers" if raw is not None and raw.dtype.kind == "c" else None
        if kind is None:
            kind = f"{type(a).__name__}" if raw is None else f"dtype {raw.dtype}"
        raise ShapeError(f"{name} must be real numbers of shape (..., {n}), got {kind}")
    if x.ndim == 0 or x.shape[-1] != n:
        raise ShapeError(f"{name} has shape {x.shape}, expected (..., {n})")
    return x


def chol_solve(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """X with L Lᵀ X = B for a batch of lower Cholesky factors L (..., n, n) and B (..., n, k).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 2.0], [2.0, 3.0]])
    >>> chol_solve(np.linalg.cholesky(A), np.array([[2.0], [1.0]])).ravel()
    array([0.5, 0. ])
    """
    y = np.linalg.solve(L, B)
    return np.linalg.solve(np.swapaxes(L, -1, -2), y)


def _is_dask(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "dask"


def _is_jax(x: Any) -> bool:
    return type(x).__module__.split(".")[0] in ("jax", "jaxlib")


class _KernelModel:
    """Validation, batching, single-state and dask paths shared by the numeric models."""

    #: compiled one-state entry points by kernel name (see :meth:`_call`); none by default
    _compiled: Mapping[str, Any] = {}
    #: scalar one-state functions, used directly when no parameter is passed per call
    _scalar: Mapping[str, Any] = {}

    def __init__(
        self,
        system: Any,
        kernels: Kernels,
        *,
        shapes: Mapping[str, tuple[int, ...]],
        binding: Binding,
        backend: str,
        key: str,
    ) -> None:
        self.n: int = system.n
        self.q: tuple[sp.Expr, ...] = tuple(system.q)
        self._binding = binding
        self.parameters: tuple[sp.Symbol, ...] = binding.parameters
        self.bound: dict[sp.Symbol, float] = dict(binding.bound)
        self.free_parameters: tuple[sp.Symbol, ...] = tuple(binding.free)
        self.backend = backend
        self.key = key
        self._kernels = kernels
        self._shapes: dict[str, tuple[int, ...]] = dict(shapes)
        self._names = {s.name: i for i, s in enumerate(self.free_parameters)}
        self._zeros = [0.0] * self.n
        self._single_fns = kernels.single_functions()
        self._shape1 = (self.n,)
        self._nfree = len(self.free_parameters)
        self._pshape = (self._nfree,)
        self._checked = bool(binding.free_rules)  # per-call values to check (Binding.check_free)

    @property
    def source(self) -> str:
        """The generated source code (read-only; regenerated from the system, never edited)."""
        return self._kernels.source

    # ------------------------------------------------------------------ evaluation
    def _evaluate(self, kernel: str, q: Any, qd: Any, u: Any, params: Any, t: Any) -> Any:
        values = (q, qd, u, params, t)
        if any(_is_dask(a) for a in values):
            return self._evaluate_dask(kernel, q, qd, u, params, t)
        if (self.backend == "jax" and any(_is_jax(a) for a in values)) or (
            isinstance(params, Mapping) and any(_is_jax(a) for a in params.values())
        ):
            return self._evaluate_jax(kernel, q, qd, u, params, t)
        return self._evaluate_numpy(kernel, q, qd, u, params, t)

    def _evaluate_jax(self, kernel: str, q: Any, qd: Any, u: Any, params: Any, t: Any) -> Any:
        """Inputs with jax arrays or tracers on the jax backend: jax in, jax out (grad-able).

        Computed in the precision of the caller's jax arrays: lagdyn never switches the
        process to float64; enable it yourself (``jax.enable_x64``) for float64 end to end.
        """
        kern: Any = self._kernels
        jnp = kern.jnp
        n = self.n
        na, nb, nc = self._arg_names(kernel)

        def arr(label: str, a: Any, k: int) -> Any:
            x = jnp.asarray(a)
            if x.dtype.kind not in "fiu":
                raise ShapeError(f"{label} has dtype {x.dtype}, expected real values (..., {k})")
            if x.ndim == 0 or x.shape[-1] != k:
                raise ShapeError(f"{label} has shape {x.shape}, expected (..., {k})")
            return x.astype(jnp.result_type(float))

        args = [arr(na, q, n)]
        args.append(jnp.zeros(n) if qd is None else arr(nb, qd, n))
        args.append(jnp.zeros(n) if u is None else arr(nc, u, n))
        args.append(self._binding.values(params, xp=jnp))
        args.append(jnp.asarray(t, dtype=jnp.result_type(float))[..., None])
        try:
            batch = np.broadcast_shapes(*(a.shape[:-1] for a in args))
        except ValueError:
            raise ShapeError(
                "batch shapes do not broadcast: "
                + ", ".join(f"{lab} {a.shape}" for lab, a in zip((na, nb, nc, "params", "t"), args))
            ) from None
        x = jnp.concatenate([jnp.broadcast_to(a, (*batch, a.shape[-1])) for a in args], axis=-1)
        out = kern.jax.vmap(kern.functions[kernel])(x.reshape(-1, x.shape[-1]))
        return out.reshape((*batch, *self._shapes[kernel]))

    def _call(self, kernel: str, q: Any, qd: Any, u: Any, params: Any, t: Any) -> Any:
        """Evaluate ``kernel``: compiled one-state entry point, else the scalar one-state
        path, else the batched kernels."""
        if params is None:
            compiled = self._compiled.get(kernel)
            # the C entry reads raw doubles: byte-swapped arrays take the checked path
            if (
                compiled is not None
                and (type(q) is not _ND or q.dtype is _F8 or q.dtype.isnative)
                and (type(qd) is not _ND or qd.dtype is _F8 or qd.dtype.isnative)
                and (type(u) is not _ND or u.dtype is _F8 or u.dtype.isnative)
            ):
                try:
                    r = compiled(q, qd, u, t)
                except OverflowError:  # an int beyond a double: named by the checks below
                    r = NotImplemented
                if r is not NotImplemented:
                    return r
            scalar = self._scalar.get(kernel)
            if scalar is not None and type(q) is _ND and type(t) is float:
                # the common one-state case without a compiler: float64 vectors in
                s1 = self._shape1
                if q.shape == s1 and q.dtype is _F8:
                    x = q.tolist()
                    for v in (qd, u):
                        if v is None:
                            x += self._zeros
                        elif type(v) is _ND and v.shape == s1 and v.dtype is _F8:
                            x += v.tolist()
                        else:
                            break
                    else:
                        try:
                            return scalar(*x, t)
                        except _FLOAT_ERRORS:  # IEEE results from the batched path
                            pass
        r = self._single(kernel, q, qd, u, params, t)
        return r if r is not None else self._evaluate(kernel, q, qd, u, params, t)

    def _single(self, kernel: str, q: Any, qd: Any, u: Any, params: Any, t: Any) -> Any:
        """One state through the scalar entry point, or ``None`` when the input is not one state."""
        s1 = self._shape1
        if type(q) is _ND and q.shape == s1 and q.dtype is _F8:
            x = q.tolist()
        else:
            x = _pack_state(q, s1)
            if x is None:
                return None
        for v in (qd, u):
            if v is None:
                x += self._zeros
            elif type(v) is _ND and v.shape == s1 and v.dtype is _F8:
                x += v.tolist()
            else:
                y = _pack_state(v, s1)
                if y is None:
                    return None
                x += y
        if self._nfree:
            if type(params) is not _ND or params.shape != self._pshape or params.dtype is not _F8:
                return None
            values = params.tolist()
            if self._checked:
                self._binding.check_list(values)
            x += values
        elif params is not None:
            return None
        if type(t) is float:
            x.append(t)
        elif type(t) is int and -_INT_MAX < t < _INT_MAX:
            x.append(float(t))
        else:
            return None
        fn = self._single_fns.get(kernel)
        if fn is None:
            return None
        try:
            return fn(*x)
        except _FLOAT_ERRORS:  # ZeroDivisionError, math domain error: IEEE via the batch path
            return None

    def _arg_names(self, kernel: str) -> tuple[str, str, str]:
        return _ARG_NAMES.get(kernel, ("q", "qd", "u"))

    def _check(self, name: str, a: Any, k: int) -> np.ndarray:
        return check_real(np, name, a, k)

    def _params_array(self, params: Any) -> np.ndarray:
        return self._binding.values(params)

    def _evaluate_numpy(self, kernel: str, q: Any, qd: Any, u: Any, params: Any, t: Any) -> Any:
        n = self.n
        na, nb, nc = self._arg_names(kernel)
        args = [self._check(na, q, n)]
        labels = [na]
        args.append(self._check(nb, qd, n) if qd is not None else np.zeros((n,)))
        labels.append(nb)
        args.append(self._check(nc, u, n) if u is not None else np.zeros((n,)))
        labels.append(nc)
        p = self._params_array(params)
        args.append(p)
        labels.append("params")
        ta = real_array("t", t)
        if ta.dtype.kind not in "fiu":
            raise ShapeError(f"t has dtype {ta.dtype}, expected a real scalar or array (...)")
        args.append(ta.astype(np.float64, copy=False)[..., None])
        labels.append("t")
        try:
            batch = np.broadcast_shapes(*(a.shape[:-1] for a in args))
        except ValueError:
            shapes = ", ".join(
                f"{lab} {a.shape if lab != 't' else a.shape[:-1]}"
                for lab, a in zip(labels, args)
                if (lab not in (nb, nc) or (qd, u)[(nb, nc).index(lab)] is not None)
            )
            raise ShapeError(
                f"batch shapes do not broadcast: {shapes}; state arguments must be (..., {n}) "
                "with broadcastable leading axes"
            ) from None
        B = math.prod(batch)
        fq, fqd, fu, fp, ft = (_flatten(a, batch, B) for a in args)
        if kernel == "forward_dynamics" and kernel not in self._kernels.kernel_names:
            M = np.empty((B, n, n))
            h = np.empty((B, n))
            self._kernels.batch("M", fq, fqd, fu, fp, ft, out=M)
            self._kernels.batch("bias", fq, fqd, fu, fp, ft, out=h)
            rhs = fu - h
            out = _solve(M, rhs)
        else:
            shape = self._shapes[kernel]
            out = np.empty((B, *shape))
            if B:
                self._kernels.batch(kernel, fq, fqd, fu, fp, ft, out=out)
        return out.reshape((*batch, *self._shapes[kernel]))

    def _evaluate_dask(self, kernel: str, q: Any, qd: Any, u: Any, params: Any, t: Any) -> Any:
        da = _dask_array()
        n = self.n
        na, nb, nc = self._arg_names(kernel)
        if isinstance(params, Mapping) and params:
            raise LagdynError(
                "with dask inputs pass params as an array (..., n_free), not a mapping"
            )
        nf = len(self.free_parameters)
        if nf and params is None:
            raise UnboundParameterError(
                self.free_parameters, advice="pass params= per call or bind them in lambdify"
            )
        parts: list[tuple[str, Any, int]] = [(na, q, n)]
        if qd is not None:
            parts.append((nb, qd, n))
        if u is not None:
            parts.append((nc, u, n))
        if nf:
            parts.append(("params", params, nf))
        arrays = []
        for label, a, k in parts:
            arr = a if _is_dask(a) else da.from_array(np.asarray(a), chunks=-1)
            if arr.dtype.kind not in "fiu":
                raise ShapeError(f"{label} has dtype {arr.dtype}, expected real values (..., {k})")
            if arr.ndim == 0 or arr.shape[-1] != k:
                raise ShapeError(f"{label} has shape {arr.shape}, expected (..., {k})")
            arrays.append(arr.rechunk({arr.ndim - 1: -1}))
        ta = t if _is_dask(t) else da.from_array(np.asarray(t, dtype=float), chunks=-1)
        arrays.append(ta[..., None])
        try:
            batch = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
        except ValueError:
            raise ShapeError(
                "batch shapes do not broadcast: "
                + ", ".join(f"{lab} {a.shape}" for (lab, _, _), a in zip(parts, arrays))
            ) from None
        nd = len(batch)
        arrays = [
            a.reshape((1,) * (nd + 1 - a.ndim) + a.shape) if a.ndim < nd + 1 else a for a in arrays
        ]
        present = [lab for lab, _, _ in parts]
        shape = self._shapes[kernel]

        def block(*blocks: np.ndarray) -> np.ndarray:
            values = dict(zip(present, blocks[:-1]))
            return self._evaluate_numpy(
                kernel,
                values[na],
                values.get(nb),
                values.get(nc),
                values.get("params"),
                blocks[-1][..., 0],
            )

        out_ind = tuple(range(nd)) + tuple(range(nd + 1, nd + 1 + len(shape)))
        args: list[Any] = []
        for i, a in enumerate(arrays):
            args += [a, (*range(nd), nd + 100 + i)]
        new_axes = {nd + 1 + i: s for i, s in enumerate(shape)}
        return da.blockwise(
            block,
            out_ind,
            *args,
            new_axes=new_axes,
            concatenate=True,
            dtype=np.float64,
            align_arrays=True,
        )


class NumericModel(_KernelModel):
    r"""Fast numeric functions of a :class:`~lagdyn.LagrangianSystem` (from :func:`lambdify`).

    Equations: :math:`M(q)\ddot q + C(q,\dot q)\dot q + G(q)\dot q + g(q) = \tau + Q(q,\dot q,t)`.

    Every method takes states of shape ``(..., n)`` and keyword-only ``params`` (the
    free parameters, a mapping or an array ``(..., n_free)`` ordered as
    :attr:`free_parameters`) and, where forces may depend on time, ``t`` (default 0).

    Attributes
    ----------
    n : int
        Degrees of freedom.
    parameters : tuple of sympy.Symbol
        Every parameter of the system.
    bound : dict
        Parameter values fixed at :func:`lambdify` time.
    free_parameters : tuple of sympy.Symbol
        Parameters to pass per call.
    backend : str
        Name of the backend that evaluates the kernels.
    route : str
        How the kernels were generated: ``"closed"`` (closed-form M, C, g) or
        ``"recursive"`` (the recursive programs of a robot chain).
    system : LagrangianSystem
        The system the kernels were generated from (the implicit midpoint method of
        :func:`lagdyn.simulate` derives its Newton Jacobian from it).
    source : str
        The generated source (Python or C), with its ``generated by lagdyn`` header.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> sys = ld.zoo.double_pendulum()
    >>> num = sys.lambdify(sys.defaults)
    >>> num.M(np.zeros((5, 2))).shape
    (5, 2, 2)
    >>> num.forward_dynamics([0.0, 0.0], [0.0, 0.0])
    array([0., 0.])
    """

    def __init__(
        self,
        system: Any,
        kernels: Kernels,
        *,
        binding: Binding,
        backend: str,
        key: str,
        route: str = "closed",
        derivatives: Callable[[], DerivativeModel] | None = None,
    ) -> None:
        n = system.n
        self.route = route
        self.system = system
        self._derivative_factory = derivatives
        self._derivative_model: DerivativeModel | None = None
        shapes = {k: output_shape(k, n) for k in KERNELS}
        super().__init__(system, kernels, shapes=shapes, binding=binding, backend=backend, key=key)
        # compiled one-state entry points (float64 arrays in, a fresh ndarray out, or
        # NotImplemented): only when no parameter is passed per call
        self._compiled = {} if self._nfree else kernels.array_functions()
        self._scalar = {} if self._nfree else self._single_fns

    def __repr__(self) -> str:
        free = ", ".join(str(s) for s in self.free_parameters) or "none"
        return f"NumericModel(n={self.n}, backend={self.backend!r}, free parameters: {free})"

    # ------------------------------------------------------------------ public API
    def M(self, q: Any, *, params: Any = None) -> Any:
        """The mass matrix.

        Parameters
        ----------
        q : array_like, shape (..., n)
        params : mapping or array_like (..., n_free), optional
            Values of :attr:`free_parameters`.

        Returns
        -------
        ndarray, shape (..., n, n)

        Examples
        --------
        >>> import lagdyn as ld
        >>> num = ld.zoo.double_pendulum().lambdify({"m1": 1, "m2": 1, "l1": 1, "l2": 1, "g": 10})
        >>> num.M([0.0, 0.0])
        array([[2., 1.],
               [1., 1.]])
        """
        return self._call("M", q, None, None, params, 0.0)

    def C(self, q: Any, qd: Any, *, params: Any = None) -> Any:
        """The Coriolis/centrifugal matrix C(q, q̇), shape ``(..., n, n)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> sys.lambdify(sys.defaults).C([0.0, 0.0], [1.0, 1.0]).shape
        (2, 2)
        """
        return self._call("C", q, qd, None, params, 0.0)

    def g(self, q: Any, *, params: Any = None) -> Any:
        """The gravity vector g(q) = ∂V/∂q, shape ``(..., n)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> sys.lambdify(sys.defaults).g([0.0, 0.0])
        array([0., 0.])
        """
        return self._call("g", q, None, None, params, 0.0)

    def bias(self, q: Any, qd: Any, *, params: Any = None, t: Any = 0.0) -> Any:
        """The bias h = C q̇ + G q̇ + g − Q, shape ``(..., n)`` (so M q̈ + h = τ).

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> sys.lambdify(sys.defaults).bias([0.0, 0.0], [0.0, 0.0])
        array([0., 0.])
        """
        return self._call("bias", q, qd, None, params, t)

    def energy(self, q: Any, qd: Any, *, params: Any = None) -> Any:
        """The energy E = ½ q̇ᵀ M q̇ + V, shape ``(...)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> float(sys.lambdify(sys.defaults).energy([0.0, 0.0], [0.0, 0.0]))
        -30.0
        """
        return self._call("energy", q, qd, None, params, 0.0)

    def forward_dynamics(
        self, q: Any, qd: Any, tau: Any = None, *, params: Any = None, t: Any = 0.0
    ) -> Any:
        r"""Accelerations :math:`\ddot q = M^{-1}(\tau + Q - C\dot q - G\dot q - g)`.

        Parameters
        ----------
        q, qd : array_like, shape (..., n)
        tau : array_like, shape (..., n), optional
            Actuation; default zero.
        params : mapping or array_like (..., n_free), optional
        t : float or array_like (...), optional
            Time, for forces that depend on it (default 0).

        Returns
        -------
        ndarray, shape (..., n)

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> num = sys.lambdify(sys.defaults)
        >>> num.forward_dynamics([0.0, 0.0], [0.0, 0.0], [1.0, 0.0])
        array([ 1., -1.])
        """
        return self._call("forward_dynamics", q, qd, tau, params, t)

    def inverse_dynamics(
        self, q: Any, qd: Any, qdd: Any, *, params: Any = None, t: Any = 0.0
    ) -> Any:
        r"""Actuation :math:`\tau = M\ddot q + C\dot q + G\dot q + g - Q`, shape ``(..., n)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> sys.lambdify(sys.defaults).inverse_dynamics([0.0, 0.0], [0.0, 0.0], [1.0, -1.0])
        array([1., 0.])
        """
        return self._call("inverse_dynamics", q, qd, qdd, params, t)

    def _derivatives(self) -> DerivativeModel:
        """The derivative kernels, generated (or loaded from the cache) on first use."""
        model = self._derivative_model
        if model is None:
            if self._derivative_factory is None:
                raise LagdynError(
                    "this NumericModel was built without derivative kernels: make it with "
                    "lagdyn.numeric.lambdify (or system.lambdify)"
                )
            model = self._derivative_factory()
            self._derivative_model = model
        return model

    def forward_dynamics_derivatives(
        self, q: Any, qd: Any, tau: Any = None, *, params: Any = None, t: Any = 0.0
    ) -> tuple[Any, Any, Any]:
        r"""Derivatives of the forward dynamics: :math:`\partial\ddot q/\partial q`,
        :math:`\partial\ddot q/\partial\dot q` and :math:`\partial\ddot q/\partial\tau = M^{-1}`.

        Exact (generated from symbolic derivatives, never finite differences): with
        :math:`F = M\ddot q + h - Q`, :math:`\partial\ddot q/\partial x = -M^{-1}\,
        \partial F/\partial x` at the acceleration :math:`\ddot q` of the state, M factored
        once. Robot chains on the recursive route differentiate the recursive programs
        (:mod:`lagdyn.recursive.derivatives`); other models the closed form
        (:func:`lagdyn.codegen.build.derivative_program`). The kernels are generated on
        the first call (and cached on disk like the others). Coulomb friction
        (``sign(q̇)``) is differentiated as 0.

        Parameters
        ----------
        q, qd : array_like, shape (..., n)
        tau : array_like, shape (..., n), optional
            Actuation; default zero.
        params : mapping or array_like (..., n_free), optional
        t : float or array_like (...), optional

        Returns
        -------
        dqdd_dq, dqdd_dqd, Minv : ndarray, shape (..., n, n) each

        Examples
        --------
        >>> import sympy as sp, lagdyn as ld
        >>> th, = ld.coordinates("theta")
        >>> pend = ld.LagrangianSystem(th.diff(ld.t)**2 / 2 + 9.81 * sp.cos(th), [th])
        >>> dq, dv, Minv = pend.lambdify().forward_dynamics_derivatives([0.0], [0.0])
        >>> float(dq[0, 0]), float(dv[0, 0]), float(Minv[0, 0])
        (-9.81, 0.0, 1.0)
        """
        return self._derivatives().forward_dynamics_derivatives(q, qd, tau, params=params, t=t)

    def inverse_dynamics_derivatives(
        self, q: Any, qd: Any, qdd: Any, *, params: Any = None, t: Any = 0.0
    ) -> tuple[Any, Any, Any]:
        r"""Derivatives of the inverse dynamics: :math:`\partial\tau/\partial q`,
        :math:`\partial\tau/\partial\dot q` and :math:`\partial\tau/\partial\ddot q = M`.

        Exact, generated like :meth:`forward_dynamics_derivatives`.

        Returns
        -------
        dtau_dq, dtau_dqd, M : ndarray, shape (..., n, n) each

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> num = sys.lambdify(sys.defaults)
        >>> dq, dv, M = num.inverse_dynamics_derivatives(np.zeros(2), np.zeros(2), np.zeros(2))
        >>> bool(np.allclose(M, num.M(np.zeros(2)))), dq.shape
        (True, (2, 2))
        """
        return self._derivatives().inverse_dynamics_derivatives(q, qd, qdd, params=params, t=t)

    def step(
        self,
        x: Any,
        u: Any = None,
        dt: float = 0.01,
        *,
        method: str = "rk4",
        params: Any = None,
        t: float = 0.0,
        tol: float = 1e-12,
        max_iter: int = 50,
    ) -> Any:
        r"""One step ``x_{k+1}`` of ``ẋ = f(x, u)`` (``x = [q, q̇]``, ``u`` held over the step).

        ``method="rk4"``: the classical Runge–Kutta step of :func:`lagdyn.simulate`.
        ``method="midpoint"``: the implicit midpoint rule on ``ẋ = f(x, u)``,
        :math:`x_{k+1} = x_k + \Delta t\, f(\tfrac12(x_k + x_{k+1}), u)`, solved by
        Newton's method with the exact Jacobian of the derivative kernels (``tol`` on the
        relative change, ``max_iter`` iterations). This is the midpoint rule in
        :math:`(q, \dot q)`; :func:`lagdyn.simulate` integrates closed-form systems in
        :math:`(q, p = M\dot q)` (the symplectic variant), a different map of the same order.

        Returns
        -------
        ndarray, shape (..., 2n)

        Raises
        ------
        LagdynError
            An unknown ``method``, a step that is not a positive number, or a midpoint step
            whose Newton iteration does not converge (the message says so).

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = dp.lambdify(dp.defaults)
        >>> num.step([0.1, 0.0, 0.0, 0.0], None, 0.01).shape
        (4,)
        """
        return self._step(x, u, dt, method, params, t, tol, max_iter, False)[0]

    def step_derivatives(
        self,
        x: Any,
        u: Any = None,
        dt: float = 0.01,
        *,
        method: str = "rk4",
        params: Any = None,
        t: float = 0.0,
        tol: float = 1e-12,
        max_iter: int = 50,
    ) -> tuple[Any, Any, Any]:
        r"""The step of :meth:`step` and its exact Jacobians
        :math:`\partial x_{k+1}/\partial x_k` and :math:`\partial x_{k+1}/\partial u_k`
        (what iLQR and DDP consume).

        RK4: the chain rule through the four stages, each stage's Jacobian from
        :meth:`forward_dynamics_derivatives`. Implicit midpoint: the implicit function
        theorem at the converged step, :math:`(I - \tfrac{\Delta t}2 F)\,\partial x_{k+1}
        = (I + \tfrac{\Delta t}2 F)\,\partial x_k + \Delta t\, G\,\partial u` with
        :math:`F = \partial f/\partial x`, :math:`G = \partial f/\partial u` at the
        midpoint. Never finite differences.

        Returns
        -------
        x1 : ndarray, shape (..., 2n)
        A : ndarray, shape (..., 2n, 2n)
        B : ndarray, shape (..., 2n, n)

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> num = dp.lambdify(dp.defaults)
        >>> x1, A, B = num.step_derivatives(np.zeros(4), np.zeros(2), 0.01, method="midpoint")
        >>> A.shape, B.shape
        ((4, 4), (4, 2))
        """
        return self._step(x, u, dt, method, params, t, tol, max_iter, True)

    def _step(
        self,
        x: Any,
        u: Any,
        dt: Any,
        method: str,
        params: Any,
        t: float,
        tol: float,
        max_iter: int,
        jacobians: bool,
    ) -> tuple[Any, Any, Any]:
        n = self.n
        if method not in ("rk4", "midpoint"):
            raise LagdynError(f"unknown step method {method!r}; choose 'rk4' or 'midpoint'")
        h = float(check_option("dt", dt))
        check_option("tol", tol)
        check_option("max_iter", max_iter, integer=True)
        xa = real_array("x", x)
        if xa.ndim == 0 or xa.shape[-1] != 2 * n:
            raise ShapeError(f"x has shape {xa.shape}, expected (..., {2 * n}) = [q, qd]")
        xa = xa.astype(np.float64, copy=False)
        ua = np.zeros(n) if u is None else check_real(np, "u", u, n).astype(np.float64)
        kw = {"params": params}
        if method == "rk4":
            return _rk4(self, xa, ua, h, float(t), kw, jacobians)
        return _midpoint(self, xa, ua, h, float(t), kw, tol, max_iter, jacobians)

    def rhs(self, t: Any, x: Any, tau: Any = None, *, params: Any = None) -> Any:
        """State derivative ``[q̇, q̈]`` of ``x = [q, q̇]``, shape ``(..., 2n)``.

        The signature of :func:`scipy.integrate.solve_ivp`:
        ``solve_ivp(num.rhs, (0, 1), x0)``.

        Examples
        --------
        >>> import lagdyn as ld
        >>> sys = ld.zoo.double_pendulum()
        >>> sys.lambdify(sys.defaults).rhs(0.0, [0.0, 0.0, 1.0, 0.0])
        array([1., 0., 0., 0.])
        """
        n = self.n
        if _is_dask(x):
            da = _dask_array()
            x = x.rechunk({x.ndim - 1: -1})
            q, qd = x[..., :n], x[..., n:]
            return da.concatenate(
                [qd, self.forward_dynamics(q, qd, tau, params=params, t=t)], axis=-1
            )
        xa = real_array("x", x)
        if xa.ndim == 0 or xa.shape[-1] != 2 * n:
            raise ShapeError(f"x has shape {xa.shape}, expected (..., {2 * n}) = [q, qd]")
        q, qd = xa[..., :n], xa[..., n:]
        qdd = self.forward_dynamics(q, qd, tau, params=params, t=t)
        return np.concatenate([np.broadcast_to(qd, qdd.shape), qdd], axis=-1)


class DerivativeModel(_KernelModel):
    r"""The derivative kernels of a system: :math:`\partial\ddot q/\partial(q, \dot q, \tau)`
    and :math:`\partial\tau/\partial(q, \dot q, \ddot q)` (from
    :func:`lagdyn.numeric.derivative_model`, or built on first use by
    :meth:`NumericModel.forward_dynamics_derivatives`).

    Shapes, batching, per-call ``params`` and the one-state fast path are those of
    :class:`NumericModel`.

    Examples
    --------
    >>> import numpy as np, lagdyn as ld
    >>> dp = ld.zoo.double_pendulum()
    >>> der = ld.numeric.derivative_model(dp, dp.defaults)
    >>> [a.shape for a in der.forward_dynamics_derivatives(np.zeros((4, 2)), np.zeros(2))]
    [(4, 2, 2), (4, 2, 2), (4, 2, 2)]
    """

    def __init__(
        self,
        system: Any,
        kernels: Kernels,
        *,
        binding: Binding,
        backend: str,
        key: str,
        route: str = "closed",
    ) -> None:
        n = system.n
        self.route = route
        shapes = {k: output_shape(k, n) for k in DERIVATIVE_KERNELS}
        super().__init__(system, kernels, shapes=shapes, binding=binding, backend=backend, key=key)
        self._compiled = {} if self._nfree else kernels.array_functions()
        self._scalar = {} if self._nfree else self._single_fns

    def __repr__(self) -> str:
        return f"DerivativeModel(n={self.n}, backend={self.backend!r}, route={self.route!r})"

    def forward_dynamics_derivatives(
        self, q: Any, qd: Any, tau: Any = None, *, params: Any = None, t: Any = 0.0
    ) -> tuple[Any, Any, Any]:
        """See :meth:`NumericModel.forward_dynamics_derivatives`.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> der = ld.numeric.derivative_model(dp, dp.defaults)
        >>> dq, dv, Minv = der.forward_dynamics_derivatives(np.zeros(2), np.zeros(2))
        >>> bool(np.all(dv == 0))  # at rest the velocity terms vanish
        True
        """
        out = self._call("forward_dynamics_derivatives", q, qd, tau, params, t)
        return _split3(out, self.n)

    def inverse_dynamics_derivatives(
        self, q: Any, qd: Any, qdd: Any, *, params: Any = None, t: Any = 0.0
    ) -> tuple[Any, Any, Any]:
        """See :meth:`NumericModel.inverse_dynamics_derivatives`.

        Examples
        --------
        >>> import numpy as np, lagdyn as ld
        >>> dp = ld.zoo.double_pendulum()
        >>> der = ld.numeric.derivative_model(dp, dp.defaults)
        >>> der.inverse_dynamics_derivatives(np.zeros(2), np.zeros(2), np.zeros(2))[2].shape
        (2, 2)
        """
        out = self._call("inverse_dynamics_derivatives", q, qd, qdd, params, t)
        return _split3(out, self.n)


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...ij,...jk->...ik", a, b)


def _rk4(
    num: NumericModel,
    x: np.ndarray,
    u: np.ndarray,
    h: float,
    t: float,
    kw: dict[str, Any],
    jacobians: bool,
) -> tuple[Any, Any, Any]:
    """RK4 step (u held) and, with ``jacobians``, its chain rule through the stages."""
    n = num.n
    q, v = x[..., :n], x[..., n:]
    batch = np.broadcast_shapes(x.shape[:-1], u.shape[:-1])
    times = (t, t + 0.5 * h, t + 0.5 * h, t + h)
    if not jacobians:
        a1 = num.forward_dynamics(q, v, u, t=times[0], **kw)
        q2, v2 = q + 0.5 * h * v, v + 0.5 * h * a1
        a2 = num.forward_dynamics(q2, v2, u, t=times[1], **kw)
        q3, v3 = q + 0.5 * h * v2, v + 0.5 * h * a2
        a3 = num.forward_dynamics(q3, v3, u, t=times[2], **kw)
        q4, v4 = q + h * v3, v + h * a3
        a4 = num.forward_dynamics(q4, v4, u, t=times[3], **kw)
        q1 = q + (h / 6.0) * (v + 2.0 * v2 + 2.0 * v3 + v4)
        v1 = v + (h / 6.0) * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        return np.concatenate(np.broadcast_arrays(q1, v1), axis=-1), None, None
    eye = np.eye(3 * n)
    Dq = np.broadcast_to(eye[:n], (*batch, n, 3 * n))
    Dv = np.broadcast_to(eye[n : 2 * n], (*batch, n, 3 * n))
    Du = eye[2 * n :]
    stages_v, stages_a, stages_Dv, stages_Da = [], [], [], []
    qs, vs, Dqs, Dvs = q, v, Dq, Dv
    for k in range(4):
        a = num.forward_dynamics(qs, vs, u, t=times[k], **kw)
        Aq, Av, Bu = num.forward_dynamics_derivatives(qs, vs, u, t=times[k], **kw)
        Da = _mm(Aq, Dqs) + _mm(Av, Dvs) + _mm(Bu, np.broadcast_to(Du, (*Bu.shape[:-2], n, 3 * n)))
        stages_v.append(vs)
        stages_a.append(a)
        stages_Dv.append(Dvs)
        stages_Da.append(Da)
        if k < 3:
            c = 0.5 * h if k < 2 else h
            qs, vs = q + c * vs, v + c * a
            Dqs, Dvs = Dq + c * Dvs, Dv + c * Da
    w = (1.0, 2.0, 2.0, 1.0)
    q1 = q + (h / 6.0) * sum(wk * vk for wk, vk in zip(w, stages_v))
    v1 = v + (h / 6.0) * sum(wk * ak for wk, ak in zip(w, stages_a))
    Dq1 = Dq + (h / 6.0) * sum(wk * d for wk, d in zip(w, stages_Dv))
    Dv1 = Dv + (h / 6.0) * sum(wk * d for wk, d in zip(w, stages_Da))
    x1 = np.concatenate(np.broadcast_arrays(q1, v1), axis=-1)
    J = np.concatenate(np.broadcast_arrays(Dq1, Dv1), axis=-2)
    return x1, J[..., : 2 * n], J[..., 2 * n :]


def _midpoint(
    num: NumericModel,
    x: np.ndarray,
    u: np.ndarray,
    h: float,
    t: float,
    kw: dict[str, Any],
    tol: float,
    max_iter: int,
    jacobians: bool,
) -> tuple[Any, Any, Any]:
    """Implicit midpoint x1 = x + h f((x + x1)/2, u) by Newton; Jacobians by the implicit
    function theorem at the solution."""
    n = num.n
    tm = t + 0.5 * h
    batch = np.broadcast_shapes(x.shape[:-1], u.shape[:-1])
    x = np.broadcast_to(x, (*batch, 2 * n))
    eye = np.eye(2 * n)

    def rate(z: np.ndarray) -> np.ndarray:
        a = num.forward_dynamics(z[..., :n], z[..., n:], u, t=tm, **kw)
        return np.concatenate([z[..., n:], a], axis=-1)

    def jac(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Aq, Av, Bu = num.forward_dynamics_derivatives(z[..., :n], z[..., n:], u, t=tm, **kw)
        F = np.zeros((*Aq.shape[:-2], 2 * n, 2 * n))
        F[..., :n, n:] = np.eye(n)
        F[..., n:, :n] = Aq
        F[..., n:, n:] = Av
        G = np.zeros((*Bu.shape[:-2], 2 * n, n))
        G[..., n:, :] = Bu
        return F, G

    x1 = x + h * rate(x)
    err = math.inf
    for _ in range(max_iter):
        m = 0.5 * (x + x1)
        F, _ = jac(m)
        R = x1 - x - h * rate(m)
        dx = np.linalg.solve(eye - 0.5 * h * F, R[..., None])[..., 0]
        x1 = x1 - dx
        err = float(np.max(np.abs(dx) / (1.0 + np.abs(x1)), initial=0.0))
        if not math.isfinite(err):
            break
        if err <= tol:
            break
    else:
        err = math.inf if not math.isfinite(err) else err
    if not (err <= tol):
        raise LagdynError(
            f"implicit midpoint step: Newton's iteration did not converge at t = {t:.6g} "
            f"(step {h:.3g}, {max_iter} iterations, change {err:.3g} > tol {tol:.3g}); "
            "use a smaller step or raise max_iter"
        )
    if not jacobians:
        return x1, None, None
    F, G = jac(0.5 * (x + x1))
    lhs = eye - 0.5 * h * F
    A = np.linalg.solve(lhs, eye + 0.5 * h * F)
    B = np.linalg.solve(lhs, h * G)
    return x1, A, B


def _split3(out: Any, n: int) -> tuple[Any, Any, Any]:
    """``[A | B | C]`` of shape ``(..., n, 3n)`` as three ``(..., n, n)`` arrays."""
    return out[..., :n], out[..., n : 2 * n], out[..., 2 * n :]


_F8 = np.dtype(np.float64)
#: What Python's ``math`` raises where IEEE arithmetic gives inf or nan (the scalar
#: one-state functions take floats only, so a ValueError there is a domain error).
_FLOAT_ERRORS = (ArithmeticError, ValueError)
_ND = np.ndarray
#: Python ints at or beyond this do not fit a double (float() raises OverflowError)
_INT_MAX = 2**1023


def _pack_state(a: Any, shape: tuple[int]) -> list[float] | None:
    """``a`` as a list of floats if it is one float state of ``shape``, else ``None``."""
    if type(a) is np.ndarray:
        if a.shape == shape and a.dtype is _F8:
            return a.tolist()
        return None
    if type(a) is list or type(a) is tuple:
        if len(a) != shape[0]:
            return None
        for v in a:
            if type(v) is not float and (type(v) is not int or not -_INT_MAX < v < _INT_MAX):
                return None  # the batched path names what is wrong
        return [float(v) for v in a]
    return None


def _solve(M: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Stacked solves ``M x = rhs``; a singular state gives NaN (the per-call policy)."""
    if not len(M):
        return np.empty(rhs.shape)
    try:
        return np.linalg.solve(M, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError:
        out = np.full(rhs.shape, np.nan)
        for b in range(len(M)):
            with contextlib.suppress(np.linalg.LinAlgError):
                out[b] = np.linalg.solve(M[b], rhs[b])
        return out


def _flatten(a: np.ndarray, batch: tuple[int, ...], B: int) -> np.ndarray:
    """``a`` of shape (..., k) as a C-contiguous (1, k) or (B, k) array."""
    k = a.shape[-1]
    lead = a.shape[:-1]
    if math.prod(lead) == 1 and B != 1:
        return np.ascontiguousarray(a.reshape(1, k))
    if lead != batch:
        a = np.broadcast_to(a, (*batch, k))
    return np.ascontiguousarray(a.reshape(B, k))


def _dask_array() -> Any:
    try:
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - dask is in the test extra
        from ..errors import BackendUnavailableError

        raise BackendUnavailableError("dask is not installed: pip install 'lagdyn[dask]'") from exc
    return da
