"""The installed version of lagdyn, in a module of its own.

Modules inside the package import ``__version__`` from here, never from the package's
``__init__`` (that import would tie every module into one import cycle).

Examples
--------
>>> from lagdyn._version import __version__
>>> isinstance(__version__, str)
True
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lagdyn")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
