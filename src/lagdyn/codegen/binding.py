"""Parameter binding: the one parser of ``params`` in lagdyn.

A :class:`Binding` splits a model's parameters into those *bound* at generation
time (folded into the code as numbers) and those left *free* (passed per call).
Keys are symbols or names (``{"g": 9.81}`` and ``{g: 9.81}`` mean the same);
values must be finite real numbers. Defaults (``system.defaults``) are never bound
implicitly: pass them explicitly.

Every bound value is checked against its symbol's assumptions by
:func:`check_value` (a ``positive`` mass bound to ``-1`` is refused: the proofs,
"M positive definite" first, used the assumption); per-call values are checked by
:meth:`Binding.values` (vectorised; see ``docs/guarantees.md``, "Parameter values").

Names that are not parameters of the system are accepted (one dictionary may serve
several models), reported in :attr:`Binding.ignored` and announced by one
:class:`~lagdyn.LagdynWarning` naming them, with a "did you mean" when a name is close
to a parameter left free, or looks like a parameter (the Cyrillic ``а`` beside ``a``: the
note names the foreign character). ``strict=True`` rejects them.

:meth:`Binding.values` parses the per-call ``params=`` of a generated model.
"""

from __future__ import annotations

import difflib
import math
import numbers
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import FrameType
from typing import Any

import numpy as np
import sympy as sp

from ..errors import LagdynError, LagdynWarning, ShapeError, UnboundParameterError, shape_text
from ..symbols import confusable_note, skeleton

__all__ = ["Binding", "check_value", "real_array", "value_rules"]


#: The largest finite double, for messages.
_DOUBLE_MAX = "1.8e308"


def _name(key: Any) -> str:
    return key.name if isinstance(key, sp.Symbol) else str(key)


def _real(label: str, value: Any) -> float:
    if isinstance(value, (complex, np.complexfloating, str, bytes, bool, np.bool_)) or (
        isinstance(value, sp.Basic) and value.is_number and value.is_extended_real is False
    ):  # a string is never evaluated; True is not a mass
        raise LagdynError(f"{label} must be a real number, got {value!r}")
    try:
        v = float(value)
    except OverflowError:
        shown = f"an integer of {len(str(abs(value)))} digits" if isinstance(value, int) else "it"
        raise LagdynError(
            f"{label} must be a finite real number; {shown} overflows a double (largest "
            f"{_DOUBLE_MAX})"
        ) from None
    except (TypeError, ValueError):
        raise LagdynError(f"{label} must be a real number, got {value!r}") from None
    if not math.isfinite(v):
        raise LagdynError(f"{label} must be a finite real number, got {value!r}")
    return v


#: The assumptions a value is checked against, strongest first: (name, test that passes,
#: what the test reads as). ``positive`` implies ``nonnegative`` and ``nonzero``, so only
#: the strongest of the sign assumptions a symbol has is reported.
_SIGN_RULES: tuple[tuple[str, str], ...] = (
    ("positive", "> 0"),
    ("negative", "< 0"),
    ("nonnegative", ">= 0"),
    ("nonpositive", "<= 0"),
    ("nonzero", "!= 0"),
)


def value_rules(symbol: sp.Symbol) -> tuple[str, ...]:
    """The assumptions of ``symbol`` that a bound value must satisfy.

    The strongest sign assumption (``positive``, ``negative``, ``nonnegative``,
    ``nonpositive`` or ``nonzero``, as sympy derives them from the declaration), then
    ``integer``. ``real`` is not listed: every value must be a finite real number.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.binding import value_rules
    >>> value_rules(sp.Symbol("m", positive=True)), value_rules(sp.Symbol("n", integer=True))
    (('positive',), ('integer',))
    >>> value_rules(sp.Symbol("k", nonnegative=True, nonzero=True))
    ('positive',)
    >>> value_rules(sp.Symbol("x", real=True))
    ()
    """
    rules: list[str] = []
    for name, _ in _SIGN_RULES:
        if getattr(symbol, f"is_{name}", None):
            rules.append(name)
            break
    if symbol.is_integer:
        rules.append("integer")
    return tuple(rules)


def _breaks(rule: str, v: float) -> bool:
    """Whether ``v`` certainly breaks ``rule`` (NaN breaks none; bound values are finite)."""
    if rule == "positive":
        return v <= 0
    if rule == "negative":
        return v >= 0
    if rule == "nonnegative":
        return v < 0
    if rule == "nonpositive":
        return v > 0
    if rule == "nonzero":
        return v == 0
    return math.isfinite(v) and not float(v).is_integer()  # integer


def _refusal(symbol: sp.Symbol, label: str, value: Any, rule: str) -> LagdynError:
    test = dict(_SIGN_RULES).get(rule, "an integer")
    how = f"sp.Symbol({symbol.name!r}, real=True)"
    return LagdynError(
        f"{label} = {value!r} breaks the assumption that {symbol.name} is {rule} "
        f"({test}): the symbol was declared {rule} (ld.parameters declares positive "
        f"symbols) and lagdyn's proofs (M positive definite, ...) hold only for such values. "
        f"Bind a {rule} value, or declare the parameter without the assumption "
        f"(ld.parameters(..., positive=False) or {how}) if such values are meant."
    )


def check_value(symbol: sp.Symbol, value: Any, *, label: str | None = None) -> float:
    """``value`` as a float, if it may be bound to ``symbol``; else a :class:`LagdynError`.

    The one rule for values of parameters, shared by every path that binds them
    (:func:`lagdyn.numeric.lambdify` on every backend, ``to_casadi``, the exports,
    :func:`lagdyn.simulate`, the robot builders): a finite real number that satisfies
    the assumptions the symbol was declared with (:func:`value_rules`: ``positive``,
    ``nonnegative``, ``negative``, ``nonpositive``, ``nonzero``, ``integer``). The message
    names the parameter (or ``label``), the value and the assumption.

    Parameters
    ----------
    symbol : sympy.Symbol
        The parameter (its assumptions are the rule).
    value : number
        A Python, numpy or sympy number.
    label : str, optional
        How the message names the value (default ``params[NAME]``).

    Raises
    ------
    LagdynError
        Not a real number, NaN or infinite, or against an assumption of ``symbol``.

    Examples
    --------
    >>> import sympy as sp
    >>> from lagdyn.codegen.binding import check_value
    >>> m = sp.Symbol("m", positive=True)
    >>> check_value(m, 2)
    2.0
    >>> check_value(m, -1.0)
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: params[m] = -1.0 breaks the assumption that m is positive (> 0): ...
    >>> check_value(sp.Symbol("n", integer=True), 1.5, label="link 2: n")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: link 2: n = 1.5 breaks the assumption that n is integer ...
    """
    label = f"params[{symbol.name}]" if label is None else label
    v = _real(label, value)
    for rule in value_rules(symbol):
        if _breaks(rule, v):
            raise _refusal(symbol, label, value, rule)
    return v


def _stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside lagdyn, seen from the caller."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(root):
        frame = frame.f_back
        level += 1
    return level


def _suggestion(name: str, candidates: Sequence[str]) -> str | None:
    """The candidate closest to ``name`` (case-insensitive first), or ``None``."""
    lower = {c.lower(): c for c in reversed(candidates)}
    if name.lower() in lower:
        return lower[name.lower()]
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if close:
        return close[0]
    close = difflib.get_close_matches(name.lower(), list(lower), n=1, cutoff=0.6)
    return lower[close[0]] if close else None


class Binding:
    """Parameters bound at generation time, and the free ones passed per call.

    Parameters
    ----------
    parameters : sequence of sympy.Symbol
        Every parameter of the model, in order.
    values : mapping of sympy.Symbol or str to float, optional
        Values to bind now.
    strict : bool
        Reject names that are not in ``parameters`` (default: accept and ignore
        them, listing them in :attr:`ignored` and in one :class:`~lagdyn.LagdynWarning`).
    check : bool
        Check the values against the symbols' assumptions (:func:`check_value`; default
        True). ``False`` is for internal placeholders that do not enter the code (the
        identification symbols of a regressor, bound to 0 there), never for a user's values.

    Attributes
    ----------
    bound : dict of sympy.Symbol to float
        In the order of ``parameters``.
    free : list of sympy.Symbol
        In the order of ``parameters``.
    ignored : tuple of str
        Names in ``values`` that are not parameters.
    free_rules : tuple of (str, tuple of int)
        The assumptions per-call values are checked against (:meth:`check_free`): each
        rule with the indices of the free parameters that have it; empty when none has.

    Raises
    ------
    LagdynError
        A value that is not a finite real number or breaks its symbol's assumptions
        (:func:`check_value`), or (``strict=True``) an unknown name.

    Warns
    -----
    LagdynWarning
        Names that are not parameters (once per binding, all of them, with a "did you
        mean" for a name close to a parameter left free).

    Examples
    --------
    >>> import warnings
    >>> import sympy as sp
    >>> from lagdyn.codegen import Binding
    >>> a, b = sp.symbols("a b")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     bnd = Binding((a, b), {"b": 2, "A": 1.0})
    >>> bnd.bound, bnd.free, bnd.ignored
    ({b: 2.0}, [a], ('A',))
    >>> print(caught[0].message)
    params: A (did you mean a?) is not a parameter of the system and is ignored ...)
    """

    def __init__(
        self,
        parameters: Sequence[sp.Symbol],
        values: Mapping[Any, Any] | None = None,
        *,
        strict: bool = False,
        check: bool = True,
    ) -> None:
        if values is not None and not isinstance(values, Mapping):
            raise LagdynError(
                f"params must be a mapping of parameter (symbol or name) to value, "
                f"got {type(values).__name__}"
            )
        self.parameters: tuple[sp.Symbol, ...] = tuple(parameters)
        by_name = {s.name: s for s in self.parameters}
        given: dict[sp.Symbol, float] = {}
        unknown: list[str] = []
        for key, value in (values or {}).items():
            name = _name(key)
            if name not in by_name:
                unknown.append(name)
                continue
            label = f"params[{name}]"
            symbol = by_name[name]
            given[symbol] = (
                check_value(symbol, value, label=label) if check else _real(label, value)
            )
        if unknown and strict:
            raise LagdynError(
                f"params: {', '.join(sorted(unknown))} are not parameters of the system "
                f"(its parameters: {', '.join(by_name) or 'none'})"
            )
        self.ignored: tuple[str, ...] = tuple(sorted(unknown))
        self.bound: dict[sp.Symbol, float] = {s: given[s] for s in self.parameters if s in given}
        self.free: list[sp.Symbol] = [s for s in self.parameters if s not in given]
        self._ignored_text = self._describe_ignored()
        if self.ignored:
            warnings.warn(
                f"params: {self._ignored_text} (its parameters: "
                f"{', '.join(by_name) or 'none'}; pass strict=True to refuse unknown names)",
                LagdynWarning,
                stacklevel=_stacklevel(),
            )
        # per-call checks (values): the free parameters' assumptions, by rule
        groups: dict[str, list[int]] = {}
        for i, s in enumerate(self.free):
            for rule in value_rules(s) if check else ():
                groups.setdefault(rule, []).append(i)
        self.free_rules: tuple[tuple[str, tuple[int, ...]], ...] = tuple(
            (rule, tuple(ix)) for rule, ix in groups.items()
        )
        nf = len(self.free)
        self._index: dict[str, Any] = {
            rule: (Ellipsis if list(ix) == list(range(nf)) else np.array(ix))
            for rule, ix in self.free_rules
        }

    def _describe_ignored(self) -> str:
        """The ignored names as a sentence, with "did you mean" for near misses."""
        if not self.ignored:
            return ""
        free = [s.name for s in self.free]
        every = [s.name for s in self.parameters]
        parts = []
        for name in self.ignored:
            # a look-alike (Cyrillic а for a, full-width ｍ for m) first: it reads the same
            alike = next((c for c in every if c != name and skeleton(c) == skeleton(name)), None)
            if alike is not None:
                parts.append(f"{name} (did you mean {alike}? {confusable_note(name, [alike])})")
                continue
            close = _suggestion(name, free)
            parts.append(f"{name} (did you mean {close}?)" if close else name)
        if len(parts) == 1:
            return f"{parts[0]} is not a parameter of the system and is ignored"
        return f"{', '.join(parts)} are not parameters of the system and are ignored"

    def __repr__(self) -> str:
        bound = ", ".join(f"{s}={v!r}" for s, v in self.bound.items()) or "none"
        free = ", ".join(map(str, self.free)) or "none"
        return f"Binding(bound: {bound}; free: {free})"

    def key(self) -> str:
        """A deterministic text of the binding (part of cache keys).

        Examples
        --------
        >>> import sympy as sp
        >>> from lagdyn.codegen import Binding
        >>> Binding(sp.symbols("a b"), {"a": 1}).key()
        'free=b|bound=a=1.0'
        """
        bound = ",".join(f"{s.name}={v!r}" for s, v in self.bound.items())
        return f"free={','.join(s.name for s in self.free)}|bound={bound}"

    def values(self, params: Any, xp: Any = np) -> Any:
        """The free parameters' values of one call as an array ``(..., n_free)``.

        ``params`` is a mapping (symbols or names; values broadcast against each
        other), an array ordered as :attr:`free`, or ``None`` when nothing is free.
        ``xp`` is the array module (``numpy`` or ``jax.numpy``).

        Raises
        ------
        UnboundParameterError
            A free parameter without a value.
        LagdynError
            A name that is bound or unknown.
        ShapeError
            Values of the wrong shape or dtype.

        Examples
        --------
        >>> import sympy as sp
        >>> from lagdyn.codegen import Binding
        >>> a, b = sp.symbols("a b")
        >>> Binding((a, b), {"a": 1}).values({"b": [1.0, 2.0]})
        array([[1.],
               [2.]])
        """
        free = self.free
        nf = len(free)
        if params is None or (isinstance(params, Mapping) and not params):
            if nf:
                raise UnboundParameterError(
                    free,
                    where=self._ignored_note(),
                    advice="pass params= per call or bind them in lambdify",
                )
            return xp.zeros((0,))
        if isinstance(params, Mapping):
            index = {s.name: i for i, s in enumerate(free)}
            given: dict[int, Any] = {}
            unknown = []
            for key, value in params.items():
                name = _name(key)
                if name in index:
                    given[index[name]] = value
                else:
                    unknown.append(name)
            if unknown:
                bound = [u for u in unknown if u in {s.name for s in self.bound}]
                other = [u for u in unknown if u not in bound]
                msg = []
                if bound:
                    msg.append(f"{', '.join(bound)} were bound in lambdify")
                if other:
                    msg.append(f"{', '.join(other)} are not parameters of this model")
                raise LagdynError("params: " + "; ".join(msg))
            missing = [free[i] for i in range(nf) if i not in given]
            if missing:
                raise UnboundParameterError(
                    missing, where=self._ignored_note(), advice="add them to this call's params="
                )
            cols = [_column(xp, f"params[{free[i].name}]", given[i]) for i in range(nf)]
            try:
                cols = list(xp.broadcast_arrays(*cols))
            except ValueError:
                raise ShapeError(
                    "params: values have incompatible batch shapes "
                    + ", ".join(f"{free[i].name}: {np.shape(given[i])}" for i in range(nf))
                ) from None
            return self.check_free(xp.concatenate(cols, axis=-1))
        if nf == 0:
            if np.size(params) == 0:
                return xp.zeros((0,))
            raise LagdynError("params: this model has no free parameters (all bound in lambdify)")
        return self.check_free(check_real(xp, "params", params, nf))

    def _ignored_note(self) -> str:
        return f"when binding, {self._ignored_text}" if self.ignored else ""

    def check_free(self, p: Any) -> Any:
        """``p`` (free parameters' values, ``(..., n_free)``) if they keep every assumption.

        The per-call counterpart of :func:`check_value`, vectorised: one comparison per
        assumption present among the free parameters (none when they have none). NaN
        passes (per-call values follow IEEE arithmetic, as states do); jax arrays are
        not checked (inside ``jit`` or ``grad`` their values are unknown).

        Raises
        ------
        LagdynError
            A value against its parameter's assumption; the message names the
            parameter, the value, its batch index and the assumption.

        Examples
        --------
        >>> import numpy as np, sympy as sp
        >>> from lagdyn.codegen import Binding
        >>> m, x = sp.Symbol("m", positive=True), sp.Symbol("x", real=True)
        >>> Binding((m, x)).check_free(np.array([[1.0, -3.0], [2.0, 0.0]])).shape
        (2, 2)
        >>> Binding((m, x)).check_free(np.array([[1.0, -3.0], [0.0, 0.0]]))
        Traceback (most recent call last):
        ...
        lagdyn.errors.LagdynError: params[m] (batch index (1,)) = 0.0 breaks the assumption ...
        """
        if not self.free_rules or type(p) is not np.ndarray:
            return p
        if p.ndim == 1:  # one call's values: cheaper as floats than as array operations
            self.check_list(p.tolist())
            return p
        for rule, ix in self.free_rules:
            cols = p if self._index[rule] is Ellipsis else p[..., self._index[rule]]
            if rule == "positive":
                bad = cols <= 0
            elif rule == "negative":
                bad = cols >= 0
            elif rule == "nonnegative":
                bad = cols < 0
            elif rule == "nonpositive":
                bad = cols > 0
            elif rule == "nonzero":
                bad = cols == 0
            else:  # integer; NaN and inf pass (their difference is NaN)
                with np.errstate(invalid="ignore"):
                    bad = np.abs(cols - np.round(cols)) > 0
            if bad.any():
                where = np.argwhere(bad)[0]
                batch, j = tuple(int(k) for k in where[:-1]), ix[int(where[-1])]
                index = (*batch, j)
                value = float(p[index])
                label = f"params[{self.free[j].name}]"
                if batch:
                    label += f" (batch index {batch})"
                raise _refusal(self.free[j], label, value, rule)
        return p

    def check_list(self, values: list[float]) -> None:
        """:meth:`check_free` for one call's values as a list of floats (the one-state path).

        Examples
        --------
        >>> import sympy as sp
        >>> from lagdyn.codegen import Binding
        >>> Binding((sp.Symbol("m", positive=True),)).check_list([1.0])
        """
        for rule, ix in self.free_rules:
            for j in ix:
                v = values[j]
                if _breaks(rule, v):
                    raise _refusal(self.free[j], f"params[{self.free[j].name}]", v, rule)


def _column(xp: Any, label: str, value: Any) -> Any:
    return check_real(xp, label, real_array(label, value, xp)[..., None], 1)


def _leaves(a: Any) -> Any:
    """The items of a nested sequence (lists, tuples, object arrays), depth first."""
    stack = [a]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)) or (
            isinstance(item, np.ndarray) and item.dtype.kind == "O"
        ):
            stack.extend(reversed(list(item)))
        else:
            yield item


def _is_real_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, numbers.Real):
        return True
    return isinstance(v, sp.Basic) and bool(v.is_number) and v.is_extended_real is True


def real_array(label: str, a: Any, xp: Any = np) -> Any:
    """``a`` as an array, or a :class:`LagdynError` naming ``label`` and what is wrong.

    Ragged nested lists are a :class:`ShapeError` ("ragged"), a Python integer too large
    for a double (``10**400``) a :class:`LagdynError` ("overflows a double"), never
    numpy's ``ValueError`` or ``OverflowError``. Object arrays of numbers a double holds
    (sympy or ``fractions`` numbers) become float64; anything else keeps its dtype for
    :func:`check_real` to name.

    Examples
    --------
    >>> from lagdyn.codegen.binding import real_array
    >>> real_array("q", [[0.0, 1.0], [2.0]])
    Traceback (most recent call last):
    ...
    lagdyn.errors.ShapeError: q is ragged: its rows have different lengths (outer shape (2,)); \
expected a rectangular array of numbers
    >>> real_array("q", [10**400, 0])
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: q holds an integer of 401 digits, which overflows a double \
(largest 1.8e308)
    """
    try:
        arr = xp.asarray(a)
    except OverflowError:
        arr = np.asarray(a, dtype=object)  # jax: report below
    except (ValueError, TypeError):
        raise ShapeError(
            f"{label} is ragged: its rows have different lengths (outer shape "
            f"{shape_text(a)}); expected a rectangular array of numbers"
        ) from None
    if getattr(arr, "dtype", None) is not None and arr.dtype.kind == "O":
        leaves = list(_leaves(a))
        if not all(_is_real_number(v) for v in leaves):
            return arr  # None, strings, complex: check_real names the dtype
        big = next((v for v in leaves if abs(v) > sys.float_info.max), None)
        if big is not None:
            what = (
                f"an integer of {len(str(abs(big)))} digits"
                if isinstance(big, int) and abs(big) > 10**30
                else repr(big)
            )
            raise LagdynError(
                f"{label} holds {what}, which overflows a double (largest {_DOUBLE_MAX})"
            )
        try:
            arr = np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError):
            pass
        else:
            arr = xp.asarray(arr)
    return arr


def check_real(xp: Any, label: str, a: Any, k: int) -> Any:
    """``a`` as float64 of shape ``(..., k)``, or :class:`ShapeError` naming ``label``
    (:func:`real_array` names ragged input and integers beyond a double)."""
    arr = real_array(label, a, xp)
    if arr.dtype.kind not in "fiu":
        kind = "complex" if arr.dtype.kind == "c" else str(arr.dtype)
        raise ShapeError(
            f"{label} has dtype {kind}, expected real floating-point values of shape (..., {k})"
        )
    if arr.ndim == 0 or arr.shape[-1] != k:
        raise ShapeError(f"{label} has shape {arr.shape}, expected (..., {k})")
    return arr.astype(xp.float64) if xp is not np else arr.astype(np.float64, copy=False)
