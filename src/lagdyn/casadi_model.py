"""Moved to :mod:`lagdyn.numeric.casadi`; this alias warns and is removed in the next release."""

import sys

from ._moved import warn_moved
from .numeric import casadi as _new

warn_moved("lagdyn.casadi_model", "lagdyn.numeric.casadi", stacklevel=2)
sys.modules[__name__] = _new
