r"""Physical consistency of inertial parameters: positive mass, positive-definite pseudo-inertia.

A rigid body's 10 standard parameters in barycentric form — mass m, first moment
:math:`h = m c` and inertia :math:`I` about the link frame's origin — come from a real
mass distribution exactly when its 4×4 pseudo-inertia (Wensing, Kim & Slotine 2017)

.. math::
    J = \begin{bmatrix} \tfrac12 \operatorname{tr}(I)\,\mathbb 1 - I & h \\ h^T & m \end{bmatrix}
      = \int \begin{bmatrix} x x^T & x \\ x^T & 1 \end{bmatrix} \rho(x)\, dV

is positive definite. That includes m > 0 and the triangle inequalities of the
principal moments about the centre of mass. Chains expose (m, h, I) per link; this
check applies to any identified triple.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ShapeError

__all__ = ["is_physically_consistent", "pseudo_inertia"]


def pseudo_inertia(m: Any, mc: Any, I: Any) -> np.ndarray:
    """The 4×4 pseudo-inertia matrix of a body from (m, m·c, I about the frame origin).

    Parameters
    ----------
    m : float
        Mass.
    mc : array_like, shape (3,)
        First moment m·c (c: centre of mass in the link frame).
    I : array_like, shape (3, 3)
        Inertia tensor about the link frame's origin (not the centre of mass).

    Returns
    -------
    ndarray, shape (4, 4)

    Raises
    ------
    ShapeError
        ``mc`` not (3,) or ``I`` not (3, 3) symmetric.

    Examples
    --------
    A unit point mass at (1, 0, 0):

    >>> import numpy as np, lagdyn as ld
    >>> ld.identification.pseudo_inertia(1.0, [1.0, 0, 0], np.diag([0.0, 1.0, 1.0]))
    array([[1., 0., 0., 1.],
           [0., 0., 0., 0.],
           [0., 0., 0., 0.],
           [1., 0., 0., 1.]])
    """
    h = np.asarray(mc, dtype=float)
    In = np.asarray(I, dtype=float)
    if h.shape != (3,):
        raise ShapeError(f"mc must have shape (3,), got {h.shape}")
    if In.shape != (3, 3) or not np.allclose(In, In.T, rtol=1e-12, atol=1e-300):
        raise ShapeError(f"I must be a symmetric (3, 3) matrix, got shape {In.shape}")
    J = np.empty((4, 4))
    J[:3, :3] = 0.5 * np.trace(In) * np.eye(3) - In
    J[:3, 3] = h
    J[3, :3] = h
    J[3, 3] = float(m)
    return J


def is_physically_consistent(m: Any, mc: Any = None, I: Any = None, *, tol: float = 0.0) -> bool:
    """Whether (m, m·c, I) can come from a real body: m > 0 and pseudo-inertia ≻ 0.

    With ``m`` alone (a point mass, or a link whose first moment and inertia were not
    identified) only the mass is checked.

    Parameters
    ----------
    m : float
    mc : array_like (3,), optional
    I : array_like (3, 3), optional
        Inertia about the link frame's origin.
    tol : float
        Required margin: the smallest eigenvalue must exceed ``tol``.

    Returns
    -------
    bool

    Examples
    --------
    A uniform rod of length 1 along x from the origin, and a body with too small an inertia:

    >>> import numpy as np, lagdyn as ld
    >>> I_rod = np.diag([0.0, 1 / 3, 1 / 3]) + np.diag([1e-6, 0, 0])
    >>> ld.identification.is_physically_consistent(1.0, [0.5, 0, 0], I_rod)
    True
    >>> ld.identification.is_physically_consistent(1.0, [0.5, 0, 0], np.diag([0.1, 0.1, 0.1]))
    False
    >>> ld.identification.is_physically_consistent(-1.0)
    False
    """
    if mc is None and I is None:
        return bool(float(m) > tol)
    if mc is None or I is None:
        raise ShapeError("give both mc and I, or neither")
    J = pseudo_inertia(m, mc, I)
    return bool(float(m) > tol and np.linalg.eigvalsh(J)[0] > tol)
