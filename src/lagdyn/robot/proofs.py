"""Moved to :mod:`lagdyn.recursive.proofs`; this alias warns and is removed in the next release."""

import sys

from .._moved import warn_moved
from ..recursive import proofs as _new

warn_moved("lagdyn.robot.proofs", "lagdyn.recursive.proofs", stacklevel=2)
sys.modules[__name__] = _new
