"""Rod-rod and self-contact between the P2 nodes of the centrelines: a pairwise penalty in
the Hamiltonian, evaluated with a central discrete gradient, added to the Newton system
outside UFL (it couples distant nodes).

Two nodes ``a``, ``b`` at positions ``x_a``, ``x_b`` (on different rods, or on one rod
farther apart along it than ``exclude``) store ``V(g) = k/2 <-g>^2`` with the gap
``g = |x_a - x_b| - 2 r`` [m] and the pair stiffness ``k`` [N/m]: a node pair pressed by a
force ``f`` [N] overlaps by ``f/k`` in equilibrium, and a pair whose relative kinetic plus
potential energy is ``e`` [J] cannot overlap deeper than ``sqrt(2 e/k)``. Contact is
between nodes: the node spacing (half an element) must stay below about ``r`` so that
rods cannot slip between nodes.

Discrete gradient (dynamics, midpoint evaluation). With ``d = x_a - x_b`` at ``t_n``
(``d_0``) and ``t_{n+1}`` (``d_1``) and ``V'_bar = (V(g_1) - V(g_0)) / (g_1 - g_0)``
(``V'(g_m)`` if ``g_1 = g_0``), the force on ``a`` is::

    f_a = -f_b = -V'_bar 2 d_m / (|d_0| + |d_1|),    d_m = (d_0 + d_1)/2,

the discrete gradient of ``V`` as a function of ``|d|^2`` (LaBudde-Greenspan): since
``|d_1|^2 - |d_0|^2 = 2 d_m . (d_1 - d_0)``, ``f_a . (dx_a) + f_b . (dx_b) = -(V(g_1) -
V(g_0))`` exactly, the forces are equal and opposite (linear momentum) and parallel to
``d_m`` (no torque about any point at the midpoint: angular momentum). In a quasi-static
model (end-point evaluation) the exact gradient at ``t_{n+1}`` is used.

Candidate pairs are the node pairs closer than ``2 r`` at ``t_n`` or at the iterate
(:class:`scipy.spatial.cKDTree`); every other pair has ``g >= 0`` at both ends, hence no
force and no energy, so the set is exact. The extension registers itself with
:func:`fxrod.newton.register_nonlocal`: both Newton solvers add its residual rows and
Jacobian blocks after the UFL assembly; the ledger books :meth:`RodContact.stored_energy_value`.
In parallel every rank gathers all nodal positions and adds the rows it owns.
"""

from __future__ import annotations

import numpy as np
import ufl
from petsc4py import PETSc
from scipy.spatial import cKDTree

from fxrod.errors import ParameterError, check_positive
from fxrod.forms.base import Extension
from fxrod.newton import register_nonlocal

#: Pairs closer than this at t = 0, relative to 2 r, count as touching (not overlapping).
OVERLAP_TOL = 1e-10


class RodContact(Extension):
    """Frictionless penalty contact between the nodes of the rods of a model.

    Parameters
    ----------
    radius : float
        Contact radius ``r`` [m] of the rods (two centrelines touch at ``2 r``), > 0.
    stiffness : float
        Penalty stiffness ``k`` [N/m] of one node pair, > 0.
    exclude : float, optional
        Nodes of one rod closer than this along the rod [m] never interact (periodic along
        a closed rod); default ``4 r``; must exceed ``2 r``.
    name : str
        Name in the model (default ``"rodcontact"``).
    """

    structures = True

    def __init__(self, radius: float, stiffness: float, exclude: float | None = None,
                 name: str = "rodcontact") -> None:
        self.r = check_positive("radius", radius)
        self.k = check_positive("stiffness", stiffness)
        self.exclude = 4.0 * self.r if exclude is None else check_positive("exclude", exclude)
        if self.exclude <= 2.0 * self.r:
            raise ParameterError("exclude", exclude, f"> 2 radius = {2.0 * self.r:.6g} m")
        self.name = name

    # ------------------------------------------------------------------ checks
    def bind(self, rod) -> None:
        """Keep the layout of the rods (index, arc length, closed) for the exclusion."""
        rods = getattr(rod, "rods", [rod])
        self._locate = getattr(rod, "locate",
                               lambda x: (np.zeros(np.shape(x), dtype=int), np.asarray(x)))
        self._lengths = np.array([r.length for r in rods])
        self._closed = np.array([bool(r.curve.closed) for r in rods])
        self._reference = rod.initial_configuration

    def setup(self, ctx, fields) -> None:
        """Find the unknown ``w`` and the state ``w0`` behind the context, index the nodal
        positions (global numbering), register with the Newton solvers and check that no
        pair overlaps in the reference (t = 0)."""
        self._ctx = ctx
        (w,) = ufl.algorithms.extract_coefficients(ctx.q1)
        (w0,) = ufl.algorithms.extract_coefficients(ctx.q0)
        self.w, self.w0 = w, w0
        W = w.function_space
        Q, qmap = W.sub(0).collapse()
        qmap = np.asarray(qmap, dtype=np.int64).reshape(-1, 12)
        imap = W.dofmap.index_map
        bs = W.dofmap.index_map_bs
        n_nodes = Q.dofmap.index_map.size_local
        own = qmap[:n_nodes, :3]                                   # local W dofs of x
        glob = imap.local_to_global((own // bs).reshape(-1)).reshape(-1, 3) * bs + own % bs
        xs = Q.tabulate_dof_coordinates()[:n_nodes, 0]
        comm = W.mesh.comm
        self.comm = comm
        self._local = own
        self._global = np.concatenate(comm.allgather(glob)).astype(PETSc.IntType)
        owner = [np.full(n, rank) for rank, n in enumerate(comm.allgather(n_nodes))]
        self._owner = np.concatenate(owner)
        xs = np.concatenate(comm.allgather(xs))
        rod, s = self._locate(xs)
        self._rod, self._s = np.asarray(rod), np.asarray(s)
        register_nonlocal(w, self)
        x = self._reference(xs)[:, :3]
        pairs = self._pairs(x)
        if pairs.size:
            g = np.linalg.norm(x[pairs[:, 0]] - x[pairs[:, 1]], axis=1) - 2.0 * self.r
            i = int(np.argmin(g))
            if g[i] < -OVERLAP_TOL * 2.0 * self.r:
                a, b = pairs[i]
                raise ParameterError(
                    f"node gap (rod {self._rod[a]}, s = {self._s[a]:.6g}) - (rod "
                    f"{self._rod[b]}, s = {self._s[b]:.6g}) at t = 0", float(g[i]),
                    ">= 0 (the rods must not overlap at t = 0)")

    # ------------------------------------------------------------------ pairs
    def _gather(self, f) -> np.ndarray:
        """All nodal positions [m] of ``f`` (every rank), (n_nodes, 3)."""
        return np.concatenate(self.comm.allgather(f.x.array[self._local]))

    def _pairs(self, *xs: np.ndarray) -> np.ndarray:
        """Node pairs closer than ``2 r`` in any of ``xs`` that may touch, (m, 2)."""
        found = set()
        for x in xs:
            found |= cKDTree(x).query_pairs(2.0 * self.r)
        if not found:
            return np.empty((0, 2), dtype=np.int64)
        p = np.array(sorted(found), dtype=np.int64)
        a, b = p[:, 0], p[:, 1]
        ds = np.abs(self._s[a] - self._s[b])
        L = self._lengths[self._rod[a]]
        ds = np.where(self._closed[self._rod[a]], np.minimum(ds, L - ds), ds)
        keep = (self._rod[a] != self._rod[b]) | (ds >= self.exclude)
        return p[keep]

    def _slope(self, g0: np.ndarray, g1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Secant slope ``V'_bar`` [N] of the penalty and its derivative in ``g_1`` [N/m]."""
        k = self.k
        m0, m1 = np.minimum(g0, 0.0), np.minimum(g1, 0.0)
        dg = g1 - g0
        close = np.abs(dg) <= 1e-12 * self.r
        safe = np.where(close, 1.0, dg)
        slope = np.where(close, k * np.minimum(0.5 * (g0 + g1), 0.0),
                         0.5 * k * (m1 * m1 - m0 * m0) / safe)
        dslope = np.where(close, 0.5 * k * (0.5 * (g0 + g1) < 0.0), (k * m1 - slope) / safe)
        return slope, dslope

    def _forces(self, jacobian: bool):
        """Pairs, pair force ``G`` with ``R_a = h G = -R_b`` [N] and, if asked, its
        derivative ``dG/dx_a = -dG/dx_b`` [N/m] at the current iterate."""
        x0, x1 = self._gather(self.w0), self._gather(self.w)
        p = self._pairs(x0, x1)
        d0 = x0[p[:, 0]] - x0[p[:, 1]]
        d1 = x1[p[:, 0]] - x1[p[:, 1]]
        l0, l1 = np.linalg.norm(d0, axis=1), np.linalg.norm(d1, axis=1)
        g0, g1 = l0 - 2.0 * self.r, l1 - 2.0 * self.r
        n1 = d1 / l1[:, None]
        eye = np.eye(3)[None]
        nn = n1[:, :, None] * n1[:, None, :]
        if float(self._ctx.theta.value) == 1.0:          # end-point evaluation: exact
            m1 = np.minimum(g1, 0.0)
            G = self.k * m1[:, None] * n1
            K = (self.k * (g1 < 0.0)[:, None, None] * nn
                 + (self.k * m1 / l1)[:, None, None] * (eye - nn)) if jacobian else None
            return p, G, K
        slope, dslope = self._slope(g0, g1)
        S = l0 + l1
        c = 2.0 / S
        dm = 0.5 * (d0 + d1)
        G = (slope * c)[:, None] * dm
        K = None
        if jacobian:
            K = ((dslope * c)[:, None, None] * dm[:, :, None] * n1[:, None, :]
                 + (slope / S)[:, None, None] * eye
                 - (slope * c / S)[:, None, None] * dm[:, :, None] * n1[:, None, :])
        return p, G, K

    # ------------------------------------------------------------------ hooks
    def add_residual(self, b: PETSc.Vec, skip: np.ndarray) -> None:
        """Add ``h`` times the contact forces' rows (the model's residual scaling) to the
        owned entries of ``b`` (global dofs in ``skip``, Dirichlet rows, excluded)."""
        p, G, _ = self._forces(jacobian=False)
        h = float(self._ctx.h.value)
        for side, sign in ((0, 1.0), (1, -1.0)):
            nodes = p[:, side]
            mine = self._owner[nodes] == self.comm.rank
            rows = self._global[nodes[mine]].reshape(-1)
            val = (sign * h * G[mine]).reshape(-1)
            ok = ~np.isin(rows, skip)
            b.setValues(rows[ok], val[ok], addv=PETSc.InsertMode.ADD_VALUES)
        b.assemble()

    def add_jacobian(self, A: PETSc.Mat, skip: np.ndarray) -> None:
        """Add the contact blocks to the owned rows of the assembled ``A`` (rows and columns
        in ``skip`` left out) and assemble it; new nonzeros are allowed."""
        p, _, K = self._forces(jacobian=True)
        h = float(self._ctx.h.value)
        A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
        for (a, b), Kab in zip(p, K, strict=True):
            for row, sign in ((a, 1.0), (b, -1.0)):
                if self._owner[row] != self.comm.rank:
                    continue
                rows = self._global[row]
                for col, s2 in ((a, 1.0), (b, -1.0)):
                    cols = self._global[col]
                    blk = sign * s2 * h * Kab
                    rk, ck = ~np.isin(rows, skip), ~np.isin(cols, skip)
                    if rk.any() and ck.any():
                        A.setValues(rows[rk], cols[ck], blk[np.ix_(rk, ck)],
                                    addv=PETSc.InsertMode.ADD_VALUES)
        A.assemble()

    def stored_energy_value(self) -> float:
        """Penalty energy [J] of the state at ``t_n`` (the same on every rank)."""
        x = self._gather(self.w0)
        p = self._pairs(x)
        g = np.linalg.norm(x[p[:, 0]] - x[p[:, 1]], axis=1) - 2.0 * self.r
        return float(0.5 * self.k * np.sum(np.minimum(g, 0.0) ** 2))

    def force_on(self, rod: int = 0) -> np.ndarray:
        """Resultant contact force [N] (3,) on rod ``rod`` at the last iterate (the step
        average in dynamics)."""
        p, G, _ = self._forces(jacobian=False)
        on_a = (self._rod[p[:, 0]] == rod)[:, None]
        on_b = (self._rod[p[:, 1]] == rod)[:, None]
        return np.sum(np.where(on_b, G, 0.0) - np.where(on_a, G, 0.0), axis=0)

    def min_gap(self) -> float:
        """Smallest node-pair gap ``g`` [m] at ``t_n`` among the pairs that may touch
        (``+inf`` if none is closer than ``2 r``)."""
        x = self._gather(self.w0)
        p = self._pairs(x)
        if not p.size:
            return float("inf")
        return float(np.min(np.linalg.norm(x[p[:, 0]] - x[p[:, 1]], axis=1)) - 2.0 * self.r)

