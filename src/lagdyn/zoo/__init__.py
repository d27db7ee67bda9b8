"""The model zoo: ready-made systems with documented conventions and default parameters.

Every factory returns a :class:`lagdyn.LagrangianSystem` whose ``defaults`` hold
numeric parameter values. The registry maps names to factories for the CLI.
Constrained mechanisms (Cartesian pendulum, ambient double pendulum, four-bar,
slider–crank) live in :mod:`lagdyn.zoo.mechanisms` and return
:class:`~lagdyn.ConstrainedSystem` objects. Models that are not LagrangianSystems are
registered apart and reached by :func:`get` all the same: constrained ones (rolling disc,
bicycle, five-bar: :func:`constrained_names`) and floating-base robots (Solo12, Go1,
ANYmal, Talos legs from example-robot-data: :func:`floating_names`).

Examples
--------
>>> import lagdyn as ld
>>> "double_pendulum" in ld.zoo.names()
True
>>> ld.zoo.get("two_link_planar").n
2
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from typing import Any

from ..errors import LagdynError
from ..system import LagrangianSystem
from . import bicycle, legged, mechanisms, rolling
from .arms import two_link_planar
from .chains import n_link_pendulum, planar_arm
from .parallel import five_bar
from .pendulums import double_pendulum
from .robots import panda, planar_3r, puma560, spatial_3r, ur5
from .spatial import elastic_pendulum, spherical_pendulum
from .underactuated import acrobot, cart_pole, furuta_pendulum

__all__ = [
    "acrobot",
    "cart_pole",
    "check_options",
    "constrained_names",
    "double_pendulum",
    "elastic_pendulum",
    "five_bar",
    "floating_names",
    "furuta_pendulum",
    "get",
    "mechanisms",
    "n_link_pendulum",
    "names",
    "options",
    "planar_arm",
    "register",
    "register_constrained",
    "register_floating",
    "spherical_pendulum",
    "summary",
    "two_link_planar",
]

_REGISTRY: dict[str, tuple[Callable[..., LagrangianSystem], dict[str, Any], str]] = {}


def register(
    name: str, factory: Callable[..., LagrangianSystem], summary: str, **options: Any
) -> None:
    """Register ``factory`` (called with ``options``) under ``name`` for :func:`get` and the CLI.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.register("my_arm", ld.zoo.two_link_planar, "the seed-001 arm again")
    >>> ld.zoo.get("my_arm").n
    2
    """
    _REGISTRY[name] = (factory, dict(options), summary)


#: Models that are not a LagrangianSystem (ConstrainedSystem with velocity constraints,
#: ...): reached by :func:`get` like the others, listed by :func:`constrained_names` and
#: kept out of :func:`names`, whose models every LagrangianSystem tool accepts.
_CONSTRAINED: dict[str, tuple[Callable[..., Any], dict[str, Any], str]] = {}


def register_constrained(
    name: str, factory: Callable[..., Any], summary: str, **options: Any
) -> None:
    """Register a factory of a constrained model (not a LagrangianSystem) for :func:`get`.

    Examples
    --------
    >>> import lagdyn as ld
    >>> "rolling_disc" in ld.zoo.constrained_names(), "rolling_disc" in ld.zoo.names()
    (True, False)
    """
    _CONSTRAINED[name] = (factory, dict(options), summary)


def constrained_names() -> list[str]:
    """The registered constrained models (see :func:`register_constrained`), sorted.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.constrained_names()[:2]
    ['chaplygin_sleigh', 'five_bar']
    """
    return sorted(_CONSTRAINED)


#: Floating-base robots (:class:`~lagdyn.robot.floating.FloatingRobot`, not a
#: LagrangianSystem either: nq ≠ nv): reached by :func:`get`, listed by
#: :func:`floating_names`, kept out of :func:`names` and :func:`constrained_names`.
_FLOATING: dict[str, tuple[Callable[..., Any], dict[str, Any], str]] = {}


def register_floating(name: str, factory: Callable[..., Any], summary: str, **options: Any) -> None:
    """Register a factory of a floating-base robot for :func:`get`.

    Examples
    --------
    >>> import lagdyn as ld
    >>> "solo12" in ld.zoo.floating_names(), "solo12" in ld.zoo.names()
    (True, False)
    """
    _FLOATING[name] = (factory, dict(options), summary)


def floating_names() -> list[str]:
    """The registered floating-base robots (see :func:`register_floating`), sorted.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.floating_names()
    ['anymal', 'go1', 'solo12', 'talos_legs']
    """
    return sorted(_FLOATING)


def names() -> list[str]:
    """The registered model names, sorted.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.names()[:3]
    ['acrobot', 'cart_pole', 'double_pendulum']
    """
    return sorted(_REGISTRY)


def summary(name: str) -> str:
    """A one-line description of a registered model.

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.summary("double_pendulum")
    'double pendulum, point masses, absolute angles from the downward vertical (seed 003)'
    """
    return _entry(name)[2]


def options(name: str) -> dict[str, Any] | None:
    """The options of model ``name`` and their defaults, read from its factory's signature.

    ``None`` when the factory takes arbitrary keyword arguments (nothing can be checked).

    Raises
    ------
    LagdynError
        For an unknown name (with "did you mean" when a known name is close).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.options("n_link_pendulum")
    {'n': 3, 'coordinates': 'absolute'}
    >>> ld.zoo.options("acrobot")
    {}
    """
    factory, registered, _ = _entry(name)
    found: dict[str, Any] = {}
    for p in inspect.signature(factory).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return None
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            default = registered.get(p.name, p.default)
            found[p.name] = None if default is p.empty else default
    return found


def check_options(name: str, given: dict[str, Any]) -> None:
    """Refuse options that model ``name`` does not take, listing the ones it does.

    Raises
    ------
    LagdynError
        An unknown model name or option (with "did you mean" when a valid one is close).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.check_options("n_link_pendulum", {"N": 4})
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: n_link_pendulum has no option 'N' (did you mean 'n'?); its \
options: n (default 3), coordinates (default 'absolute')
    """
    valid = options(name)
    if valid is None:
        return
    unknown = [k for k in given if k not in valid]
    if not unknown:
        return
    listed = ", ".join(f"{k} (default {v!r})" for k, v in valid.items())
    hints = [_did_you_mean(k, valid) for k in unknown]
    what = ", ".join(f"{k!r}{hint}" for k, hint in zip(unknown, hints))
    plural = "s" if len(unknown) > 1 else ""
    text = f"its options: {listed}" if valid else "it takes no options"
    raise LagdynError(f"{name} has no option{plural} {what}; {text}")


def get(name: str, **options: Any) -> LagrangianSystem:
    """Build the registered model ``name``; ``options`` override the registered ones.

    Raises
    ------
    LagdynError
        For an unknown name (the message lists the known ones, with "did you mean" when
        one is close) or an option the model's factory does not take (the message lists
        the model's options and their defaults).

    Examples
    --------
    >>> import lagdyn as ld
    >>> ld.zoo.get("double_pendulum", coordinates="relative").q
    (u1(t), u2(t))
    >>> ld.zoo.get("doble_pendulum")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: unknown model 'doble_pendulum' (did you mean 'double_pendulum' ...
    """
    factory, registered, _ = _entry(name)
    check_options(name, options)
    return factory(**{**registered, **options})


def _did_you_mean(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(word, list(choices), n=2, cutoff=0.6)
    if not close and word.lower() in {c.lower() for c in choices}:
        close = [c for c in choices if c.lower() == word.lower()]
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def _entry(name: str) -> tuple[Callable[..., LagrangianSystem], dict[str, Any], str]:
    try:
        if name in _FLOATING:
            return _FLOATING[name]
        return _REGISTRY[name] if name in _REGISTRY else _CONSTRAINED[name]
    except (KeyError, TypeError):
        known = names() + constrained_names() + floating_names()
        hint = _did_you_mean(name, known) if isinstance(name, str) else ""
        raise LagdynError(
            f"unknown model {name!r}{hint}; known models: {', '.join(known)}"
        ) from None


register(
    "two_link_planar",
    two_link_planar,
    "2-link planar arm with link inertias, angles from the horizontal (seed 001)",
)
register(
    "double_pendulum",
    double_pendulum,
    "double pendulum, point masses, absolute angles from the downward vertical (seed 003)",
)
register(
    "double_pendulum_relative",
    double_pendulum,
    "double pendulum, point masses, relative angles u = (a, b - a) (seed 003)",
    coordinates="relative",
)
register(
    "n_link_pendulum",
    n_link_pendulum,
    "n-link pendulum (n=3, -o n=N), point masses, absolute angles from the downward vertical",
)
register(
    "n_link_pendulum_relative",
    n_link_pendulum,
    "n-link pendulum (n=3, -o n=N), relative joint angles",
    coordinates="relative",
)
register(
    "planar_arm",
    planar_arm,
    "n-link planar arm (n=3) with link inertias, q1 from the horizontal, relative joint angles",
)
register("cart_pole", cart_pole, "cart-pole, pole angle from the upward vertical")
register("acrobot", acrobot, "Spong's acrobot, elbow actuated, angles from the horizontal")
register(
    "furuta_pendulum",
    furuta_pendulum,
    "Furuta rotary inverted pendulum, pendulum angle from the upward vertical",
)
register(
    "spherical_pendulum",
    spherical_pendulum,
    "spherical pendulum, polar angle from the downward vertical and azimuth",
)
register(
    "elastic_pendulum",
    elastic_pendulum,
    "planar spring pendulum, length r and angle from the downward vertical",
)
register("puma560", puma560, "PUMA 560 (6R), standard DH, Armstrong-Khatib-Burdick parameters")
register("ur5", ur5, "Universal Robots UR5 (6R) from ur_description's URDF")
register("panda", panda, "Franka Emika Panda (7R), modified DH, Gaz et al. 2019 parameters")
register("planar_3r", planar_3r, "planar 3R arm of uniform unit rods, standard DH")
register("spatial_3r", spatial_3r, "spatial 3R elbow arm of unit rods, standard DH")
register_constrained(
    "rolling_disc",
    rolling.rolling_disc,
    "thin disc rolling without slipping on a plane (x, y, yaw, lean, spin; nonholonomic)",
)
register_constrained(
    "chaplygin_sleigh",
    rolling.chaplygin_sleigh,
    "Chaplygin's sleigh: a body on a knife edge that cannot slide sideways (nonholonomic)",
)
register_constrained(
    "whipple_bicycle",
    bicycle.whipple_bicycle,
    "Whipple bicycle, benchmark parameters of Meijaard et al. 2007 (roll, steer; nonholonomic)",
)
register_constrained(
    "five_bar",
    five_bar,
    "planar five-bar parallel robot from a URDF tree closed by one planar loop (2 DOF)",
)
for _name, _summary in (
    ("solo12", "Solo12 quadruped, floating base (example-robot-data; feet FL/FR/HL/HR_FOOT)"),
    ("go1", "Unitree Go1 quadruped, floating base (example-robot-data; feet *_foot)"),
    ("anymal", "ANYmal B quadruped, floating base (example-robot-data; feet *_FOOT)"),
    ("talos_legs", "Talos humanoid's legs, upper body locked (example-robot-data; soles)"),
):
    register_floating(_name, getattr(legged, _name), _summary)
