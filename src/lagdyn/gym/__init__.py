r"""Gymnasium environments of lagdyn models (extra ``rl``: ``pip install 'lagdyn[rl]'``).

:func:`make` turns any lagdyn model — a zoo name, a ``LagrangianSystem`` or ``RobotSystem``
with its parameter values, a ``NumericModel`` — into a ``gymnasium.Env`` whose state is
``(q, q̇)`` and whose actions are the generalized forces τ on the actuated coordinates;
:func:`make_vec` steps ``num_envs`` copies as one ``gymnasium.vector.VectorEnv`` with one
call of the model's compiled step kernel per step (the integrator's stages are generated
into the kernel: no Python loop over the copies). Reward, termination, observation and
reset are callables of the batched state, so one set of functions serves both; seeding,
Gymnasium's autoreset rules and ``render_mode="rgb_array"`` (the model's own drawing) are
built in. :mod:`lagdyn.gym.tasks` has ready-made tasks on the zoo's underactuated models —
``"pendulum"`` (swing-up), ``"cart_pole"``, ``"acrobot"`` — including Gymnasium's own
``CartPole-v1`` and ``Acrobot-v1`` (``gymnasium_compat=True``).

gymnasium is imported when an environment is made; without it :func:`make` raises
:class:`~lagdyn.BackendUnavailableError` naming the extra.

Examples
--------
>>> import numpy as np, lagdyn as ld
>>> env = ld.gym.make("cart_pole", backend="numpy")
>>> obs, info = env.reset(seed=0)
>>> total = 0.0
>>> for _ in range(20):
...     obs, reward, terminated, truncated, info = env.step(int(obs[1] > 0))
...     total += reward
>>> total
20.0
"""

from __future__ import annotations

from . import legged, tasks
from .env import LagdynEnv, LagdynVectorEnv, make, make_vec

__all__ = ["LagdynEnv", "LagdynVectorEnv", "legged", "make", "make_vec", "tasks"]
