"""Moved to :mod:`lagdyn.recursive.route`; this alias warns and is removed in the next release."""

import sys

from .._moved import warn_moved
from ..recursive import route as _new

warn_moved("lagdyn.robot.route", "lagdyn.recursive.route", stacklevel=2)
sys.modules[__name__] = _new
