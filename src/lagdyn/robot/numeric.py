"""Moved to :mod:`lagdyn.recursive.numeric`; this alias warns and is removed in the next release."""

import sys

from .._moved import warn_moved
from ..recursive import numeric as _new

warn_moved("lagdyn.robot.numeric", "lagdyn.recursive.numeric", stacklevel=2)
sys.modules[__name__] = _new
