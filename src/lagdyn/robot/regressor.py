"""Moved to :mod:`lagdyn.recursive.regressor`; this alias warns, removed in the next release."""

import sys

from .._moved import warn_moved
from ..recursive import regressor as _new

warn_moved("lagdyn.robot.regressor", "lagdyn.recursive.regressor", stacklevel=2)
sys.modules[__name__] = _new
