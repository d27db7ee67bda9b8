"""Moved to :mod:`lagdyn.recursive.chain`; this alias warns and is removed in the next release."""

import sys

from .._moved import warn_moved
from ..recursive import chain as _new

warn_moved("lagdyn.robot.chain", "lagdyn.recursive.chain", stacklevel=2)
sys.modules[__name__] = _new
