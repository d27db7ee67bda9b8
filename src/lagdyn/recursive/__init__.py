"""Recursive algorithms over a kinematic tree, emitted as straight-line symbolic programs.

One algorithm a file, as in Pinocchio's ``algorithm/``: the tree and its links
(:mod:`~lagdyn.recursive.chain`), the spatial algebra the passes share
(:mod:`~lagdyn.recursive.algebra`), the straight-line program they emit and what every
algorithm shares (:mod:`~lagdyn.recursive.program`), recursive Newton–Euler
(:mod:`~lagdyn.recursive.rnea`), the composite-rigid-body algorithm
(:mod:`~lagdyn.recursive.crba`), forward dynamics by CRBA + LDLᵀ or by the articulated-body
algorithm (:mod:`~lagdyn.recursive.forward`, :mod:`~lagdyn.recursive.aba`), the
Christoffel-consistent Coriolis matrix and the energy (:mod:`~lagdyn.recursive.coriolis`),
exact identities decided on the programs (:mod:`~lagdyn.recursive.proofs`), the numeric route
of a chain (:mod:`~lagdyn.recursive.route`) and the regressor of the standard inertial
parameters (:mod:`~lagdyn.recursive.regressor`). Programs are evaluated and printed as
:mod:`lagdyn.codegen` kernels (:meth:`Program.lambdify`, :meth:`Program.kernel_program`).

This layer sits below :mod:`lagdyn.system`: it uses only :mod:`lagdyn.codegen`,
:mod:`lagdyn.trig` and :mod:`lagdyn.errors`; systems reach it duck-typed (anything with a
``chain``, see :func:`chain_of`). :mod:`lagdyn.robot` builds those systems.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> from lagdyn import recursive
>>> arm = ld.zoo.get("planar_3r")
>>> f = recursive.rnea(arm.chain, qd=False, qdd=False).lambdify(arm.defaults)
>>> np.round(f(q=np.zeros(3)), 4)
array([44.145, 19.62 ,  4.905])
"""

from . import chain, program
from .chain import (
    Chain,
    Link,
    chain_of,
    inertia_about_origin,
    rotation_about,
    rpy,
    skew,
    standard_parameters,
)
from .coriolis import coriolis, energy
from .crba import crba
from .forward import ABA_FROM, FORWARD_METHODS, choose_forward, forward_dynamics
from .program import Program, input_symbols, joint_cse
from .rnea import rnea

__all__ = [
    "ABA_FROM",
    "FORWARD_METHODS",
    "Chain",
    "Link",
    "Program",
    "chain",
    "chain_of",
    "choose_forward",
    "coriolis",
    "crba",
    "energy",
    "forward_dynamics",
    "inertia_about_origin",
    "input_symbols",
    "joint_cse",
    "program",
    "rnea",
    "rotation_about",
    "rpy",
    "skew",
    "standard_parameters",
]
