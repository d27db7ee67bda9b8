"""Named frames as robots store them: ``(body, R or None, p or None)`` or a ``Frame``."""

from __future__ import annotations

from typing import Any

__all__ = ["frame_entry"]


def frame_entry(value: Any) -> tuple[int, Any, Any]:
    """``(body, R or None, p or None)`` of a frame given as such a triple or as a
    :class:`~lagdyn.recursive.kinematics.Frame` (``body``, ``rotation``, ``position``).

    Examples
    --------
    >>> from lagdyn.robot._frames import frame_entry
    >>> frame_entry((2, None, None))
    (2, None, None)
    """
    if hasattr(value, "body"):
        return int(value.body), value.rotation, value.position
    b, R, p = value
    return int(b), R, p
