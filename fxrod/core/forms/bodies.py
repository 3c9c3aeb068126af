"""Rigid bodies attached to a rod end (theory §2.7).

A body fixed rigidly to the node ``(rod, end)`` moves with the node's frame: its material
point with body coordinates ``X`` (components in the node's directors) is at
``x = phi + X_j d_j``. Its kinetic energy is quadratic in the nodal velocities
``(v_phi, v_d1, v_d2, v_d3)``::

    T = 1/2 m |v_phi|^2 + S_j v_phi . v_dj + 1/2 E_jk v_dj . v_dk

with the mass m [kg], first moment ``S_j = m c_j`` [kg m] (``c`` the centre of mass in body
coordinates) and the Euler tensor about the node ``E_jk = E^c_jk + m c_j c_k`` [kg m^2],
``E^c = tr(J^c)/2 I - J^c`` from the inertia tensor ``J^c`` about the centre of mass. The
inertia rows are ``M_ab (v_{n+1} - v_n)_b / h . dq_a``: with ``v_{n+1/2} = (q_{n+1} -
q_n)/h`` (42a) they give ``T_{n+1} - T_n`` exactly, so the ledger stays exact. Further rods
fixed to the same body are joined to the node by rigid links
(``fxrod.core.joints.Rigid(..., link=True)``).
"""

from __future__ import annotations

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.forms.base import Extension
from fxrod.core.kinematics import split_q
from fxrod.errors import ParameterError, check_positive, check_vector


class RigidBody(Extension):
    """A rigid body fixed to a rod end: its inertia at that node.

    Parameters
    ----------
    node : tuple (int, str)
        ``(rod index, "0" | "L")``: the rod end the body is fixed to.
    mass : float
        Mass m [kg], > 0.
    inertia : (3, 3) array_like
        Inertia tensor about the centre of mass in the reference (spatial axes) [kg m^2],
        symmetric positive semi-definite with the triangle inequalities of a body.
    centre : sequence of 3 floats
        Position of the centre of mass in the reference configuration [m].
    name : str, optional
        Name in the model (default ``"body_<rod>_<end>"``).
    """

    structures = True

    def __init__(self, node: tuple, mass: float, inertia, centre,
                 name: str | None = None) -> None:
        if not (isinstance(node, tuple | list) and len(node) == 2 and node[1] in ("0", "L")
                and isinstance(node[0], int) and node[0] >= 0):
            raise ParameterError("node", node, "(rod index >= 0, '0' | 'L')")
        self.node = (int(node[0]), str(node[1]))
        self.mass = check_positive("mass", mass)
        J = np.asarray(inertia, dtype=float)
        if J.shape != (3, 3) or not np.all(np.isfinite(J)) or \
                np.max(np.abs(J - J.T)) > 1e-12 * max(1.0, np.max(np.abs(J))):
            raise ParameterError("inertia", inertia, "a finite symmetric (3, 3) tensor [kg m^2]")
        ev = np.linalg.eigvalsh(J)
        if ev[0] < -1e-12 * max(1.0, ev[-1]) or ev[2] > ev[0] + ev[1] + 1e-12 * ev[-1]:
            raise ParameterError("inertia", tuple(ev), "principal moments >= 0 with the "
                                 "triangle inequalities of a rigid body")
        self.inertia = J
        self.centre = check_vector("centre", centre, 3)
        self.name = name or f"body_{self.node[0]}_{self.node[1]}"
        self.M: np.ndarray | None = None

    def bind(self, rod) -> None:
        """The generalised mass matrix (4, 4) of the node from the reference frame."""
        from fxrod.core.structure import Structure

        st = rod if isinstance(rod, Structure) else Structure([rod])
        if self.node[0] >= len(st.rods):
            raise ParameterError("node rod index", self.node[0], f"< {len(st.rods)}")
        q = st.initial_configuration([st.coordinate(*self.node)])[0]
        R = q[3:].reshape(3, 3).T                       # columns d1, d2, d3
        c = R.T @ (self.centre - q[:3])                 # centre in body coordinates
        Jc = R.T @ self.inertia @ R
        E = 0.5 * np.trace(Jc) * np.eye(3) - Jc + self.mass * np.outer(c, c)
        M = np.empty((4, 4))
        M[0, 0], M[0, 1:], M[1:, 0], M[1:, 1:] = self.mass, self.mass * c, self.mass * c, E
        self.M = M

    def setup(self, ctx, fields) -> None:
        self._ctx = ctx
        self._Mc = fem.Constant(ctx.mesh, self.M)
        self._ds = ctx.ds_end(self.node[1], self.node[0])

    def _blocks(self, q):
        phi, d = split_q(q)
        return [phi, *d]

    def _quadratic(self, a, b):
        A, B = self._blocks(a), self._blocks(b)
        return sum(self._Mc[i, j] * ufl.dot(A[i], B[j]) for i in range(4) for j in range(4))

    def residual(self, ctx):
        if not ctx.inertia:
            return None
        return self._quadratic(ctx.dq, (ctx.v1 - ctx.v0) / ctx.h) * self._ds

    def kinetic_energy(self, ctx):
        if not ctx.inertia:
            return None
        return 0.5 * self._quadratic(ctx.v0, ctx.v0) * self._ds

    def momentum(self, q, v):
        """Linear and angular momentum of the body at the state ``(q, v)``: two UFL
        3-vectors and the node's point measure."""
        X, V = self._blocks(q), self._blocks(v)
        M = self._Mc
        p = sum(M[0, j] * V[j] for j in range(4))
        J = sum(M[i, j] * ufl.cross(X[i], V[j]) for i in range(4) for j in range(4))
        return p, J, self._ds
