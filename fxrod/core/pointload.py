"""A point load at an interior node of a rod (SI units): the apex load of an arch.

The load's power ``n . w_phi(s_p) + m . omega(w)(s_p)`` is an integral over the interior
facet (mesh vertex) at ``s_p``; the continuous P2 test functions make the restriction
``('+')`` their nodal value there. The same UFL expression, tested with ``v_m``, is its
external work in the energy ledger, like the loads of :mod:`fxrod.core.loads`.
"""

from __future__ import annotations

import numpy as np
import ufl
from dolfinx import mesh as dmesh
from mpi4py import MPI

from fxrod.core.loads import _ForceMoment
from fxrod.errors import ParameterError, check_finite

#: Tag of the loaded vertex in the load's own facet tags.
_TAG = 1


class PointLoad(_ForceMoment):
    """Point force [N] and moment [N m] at an interior mesh vertex ``s`` (0 < s < L) [m].

    Parameters
    ----------
    s : float
        Arc length of the loaded point [m]; a vertex of the mesh (for the apex of a rod
        meshed with an even number of elements, ``L/2``). Ends take :class:`EndLoad`.
    force, moment : 3-vector or callable ``t -> 3-vector``, optional
        Spatial (dead) load, or material components when ``follower`` is true. In a
        quasi-static model ``t`` is the load factor.
    follower : bool
        Treat force and moment as material (follower) loads ``n = R N_mat``.

    Raises
    ------
    ParameterError
        For a non-finite ``s`` (here), and, when the model is built, an ``s`` that is not an
        interior vertex of the mesh.
    """

    def __init__(self, s: float, force=None, moment=None, follower: bool = False) -> None:
        self.s = check_finite("s", s)
        super().__init__(force, moment, follower)
        self._dS = None

    def setup(self, ctx) -> None:
        super().setup(ctx)
        msh = ctx.mesh
        x = msh.geometry.x[:, 0]
        length = float(msh.comm.allreduce(x.max() if x.size else 0.0, op=MPI.MAX))
        tol = 1e-10 * max(length, 1.0)
        if not (tol < self.s < length - tol):
            raise ParameterError("s", self.s, f"inside (0, {length:g}) m (ends: EndLoad)")
        n_owned = msh.topology.index_map(0).size_local
        found = dmesh.locate_entities(msh, 0, lambda p: np.isclose(p[0], self.s, atol=tol))
        found = found[found < n_owned].astype(np.int32)   # integrated once, by its owner
        if msh.comm.allreduce(found.size) != 1:
            raise ParameterError("s", self.s, "a vertex of the mesh (n_elements such that a "
                                 "node lies at s)")
        msh.topology.create_connectivity(0, 1)
        tags = dmesh.meshtags(msh, 0, found, np.full(found.size, _TAG, dtype=np.int32))
        self._dS = ufl.Measure("dS", domain=msh, subdomain_data=tags)

    def power(self, ctx, w_phi, w_d):
        return self._density(ctx, w_phi, w_d)("+") * self._dS(_TAG)

