"""Locating robot description files of the optional ``example-robot-data`` package.

The package (extra ``robot``) installs its URDFs under
``<site-packages>/cmeel.prefix/share/example-robot-data/robots``, in ``<package>/urdf`` or
``<package>/robots`` (iCub, Solo, Talos); nothing is downloaded.

Examples
--------
>>> from lagdyn.robot._data import urdf_path
>>> urdf_path("ur_description", "ur5_robot.urdf").name
'ur5_robot.urdf'
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from ..errors import BackendUnavailableError, LagdynError

__all__ = ["urdf_path"]

_FOLDERS = ("urdf", "robots")


def urdf_path(package: str, filename: str) -> Path:
    """The path of ``robots/<package>/urdf/<filename>`` (or ``…/robots/<filename>``, where
    example-robot-data keeps iCub, Solo and Talos) in example-robot-data.

    Raises
    ------
    BackendUnavailableError
        example-robot-data is not installed (``pip install 'lagdyn[robot]'``).
    LagdynError
        The file is not in the installed package.

    Examples
    --------
    >>> from lagdyn.robot._data import urdf_path
    >>> urdf_path("no_such_description", "x.urdf")
    Traceback (most recent call last):
    ...
    lagdyn.errors.LagdynError: no_such_description/urdf/x.urdf is not in example-robot-data (...)
    """
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        raise BackendUnavailableError(
            "example-robot-data is not installed: pip install 'lagdyn[robot]'"
        ) from None
    root = Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")))
    for folder in _FOLDERS:
        path = root / package / folder / filename
        if path.is_file():
            return path
    raise LagdynError(
        f"{package}/urdf/{filename} is not in example-robot-data ({root}; "
        f"looked in {package}/{' and '.join(_FOLDERS)})"
    )
