"""Recursive algorithms over a kinematic tree, emitted as straight-line symbolic programs.

One algorithm a file, as in Pinocchio's ``algorithm/``: the tree and its links
(:mod:`~lagdyn.recursive.chain`), the spatial algebra the passes share
(:mod:`~lagdyn.recursive.algebra`), the program and the algorithms that emit one
(:mod:`~lagdyn.recursive.program`: RNEA, CRBA, forward dynamics; ABA in
:mod:`~lagdyn.recursive.aba`, the Christoffel-consistent Coriolis matrix and the energy in
:mod:`~lagdyn.recursive.coriolis`), exact identities decided on the programs
(:mod:`~lagdyn.recursive.proofs`), the numeric route of a chain (:mod:`~lagdyn.recursive.route`),
the regressor of the standard inertial parameters (:mod:`~lagdyn.recursive.regressor`) and a
numpy evaluator of single programs (:mod:`~lagdyn.recursive.numeric`).

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
from .program import (
    Program,
    coriolis,
    crba,
    energy,
    forward_dynamics,
    joint_cse,
    rnea,
)

__all__ = [
    "Chain",
    "Link",
    "Program",
    "chain",
    "chain_of",
    "coriolis",
    "crba",
    "energy",
    "forward_dynamics",
    "inertia_about_origin",
    "joint_cse",
    "program",
    "rnea",
    "rotation_about",
    "rpy",
    "skew",
    "standard_parameters",
]
