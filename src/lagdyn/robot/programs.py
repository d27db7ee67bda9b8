"""Moved to :mod:`lagdyn.recursive`; this alias warns and is removed in the next release."""

import sys

import lagdyn.recursive as _new

from .._moved import warn_moved

warn_moved("lagdyn.robot.programs", "lagdyn.recursive", stacklevel=2)
sys.modules[__name__] = _new
