"""Moved to :mod:`lagdyn.recursive.program`; this alias warns and is removed in the next release."""

import sys

from .._moved import warn_moved
from ..recursive import program as _new

warn_moved("lagdyn.robot.programs", "lagdyn.recursive.program", stacklevel=2)
sys.modules[__name__] = _new
