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
force and no energy, so the set is exact. The extension is a term outside UFL
(``outside_ufl``, the model's ``nonlocal_terms``): every solver of the model adds its
residual rows and Jacobian blocks after the UFL assembly; the ledger books
:meth:`RodContact.stored_energy_value`.
In parallel every rank gathers all nodal positions and adds the rows it owns.

Coulomb friction (``friction`` ``mu`` > 0): the regularised law of the obstacle contact
(:mod:`fxrod.core.forms.contact`) on the relative sliding velocity of the pair. With the normal
``n`` of the pair (``d_m/|d_m|`` at the midpoint, ``d_1/|d_1|`` in statics), its pressure
``p = |f_a| >= 0`` [N] and the relative velocity ``v = (d_1 - d_0)/h`` of node ``a``
against node ``b`` (``v_t`` its part normal to ``n``), the friction force on ``a`` is::

    f_t = -mu p v_t / sqrt(|v_t|^2 + eps^2),    on b: -f_t,

equal and opposite (linear momentum), and the step dissipates
``D = -h f_t . v = h mu p |v_t|^2 / sqrt(|v_t|^2 + eps^2) >= 0`` [J], booked in the ledger
(the pairs' sum, a constant integrated over the mesh: :meth:`RodContact.dissipation`, set
at the iterate the solver evaluated last, its converged one), so the balance
``H_{n+1} - H_n = W - D`` closes as with the obstacle. A sliding pair feels
``mu p (1 - eps^2/(2 |v_t|^2))``, a sticking pair creeps at ``eps s/sqrt(1 - s^2)``,
``s = |f_t|/(mu p) < 1``. The force is a function of ``d_1`` alone (given the state at
``t_n``); its derivative in ``d_1`` is taken by the complex step (exact to round-off). A
rod-rod contact with friction is a dissipative port: the linearised analyses and the
continuation refuse it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import ufl
from petsc4py import PETSc
from scipy.spatial import cKDTree

from fxrod.core.forms.base import Extension
from fxrod.errors import ParameterError, check_nonnegative, check_positive

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
        Nodes closer than this along the rods [m] never interact: along one rod (periodic
        along a closed rod) or through a joint of a structure (the sum of both nodes'
        distances to the joint); default ``4 r``; must exceed ``2 r``.
    name : str
        Name in the model (default ``"rodcontact"``).
    friction : float
        Coulomb coefficient ``mu`` [-] between the rods, >= 0 (default 0: frictionless).
    v_reg : float
        Regularisation velocity ``eps`` [m/s] of the friction law (load-factor units in a
        quasi-static model), > 0. Default 1e-4.
    """

    structures = True
    outside_ufl = True

    def __init__(self, radius: float, stiffness: float, exclude: float | None = None,
                 name: str = "rodcontact", friction: float = 0.0, v_reg: float = 1e-4) -> None:
        self.r = check_positive("radius", radius)
        self.k = check_positive("stiffness", stiffness)
        self.exclude = 4.0 * self.r if exclude is None else check_positive("exclude", exclude)
        if self.exclude <= 2.0 * self.r:
            raise ParameterError("exclude", exclude, f"> 2 radius = {2.0 * self.r:.6g} m")
        self.name = name
        self.mu = check_nonnegative("friction", friction)
        self.v_reg = check_positive("v_reg", v_reg)
        #: a dissipative port with friction (the linearised analyses refuse it)
        self.dissipative = self.mu > 0.0
        #: the friction dissipation [J] of the step at the last iterate evaluated
        self._D = 0.0

    # ------------------------------------------------------------------ checks
    def bind(self, rod) -> None:
        """Keep the layout of the rods (index, arc length, closed) for the exclusion."""
        rods = getattr(rod, "rods", [rod])
        self._locate = getattr(rod, "locate",
                               lambda x: (np.zeros(np.shape(x), dtype=int), np.asarray(x)))
        self._lengths = np.array([r.length for r in rods])
        self._closed = np.array([bool(r.curve.closed) for r in rods])
        self._reference = rod.initial_configuration
        self._junctions = self._junctions_of(rods, getattr(rod, "joints", ()))
        self._cache: list[tuple[np.ndarray, np.ndarray]] = []
        self._known: dict[int, np.ndarray] = {}

    @staticmethod
    def _junctions_of(rods, joints) -> list[dict[int, float]]:
        """The joints' nodes grouped into junctions (nodes tied by joints, directly or
        through other joints), each as ``{rod: s [m]}``."""
        def s_of(node) -> tuple[int, float]:
            k, where = node
            return k, {"0": 0.0, "L": rods[k].length}.get(where, where)

        groups: list[set[tuple[int, float]]] = []
        for j in joints:
            a, b = s_of(j.a), s_of(j.b)
            hit = [g for g in groups if a in g or b in g]
            merged = set().union({a, b}, *hit)
            groups = [g for g in groups if not any(g is h for h in hit)] + [merged]
        return [dict(g) for g in groups]

    def setup(self, ctx, fields) -> None:
        """Find the unknown ``w`` and the state ``w0`` behind the context, index the nodal
        positions (global numbering) and check that no
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

    def _near(self, x: np.ndarray) -> np.ndarray:
        """Keys ``a n + b`` (``a < b``) of the node pairs closer than ``2 r`` in ``x``
        (n nodes, KD-tree); the last three node sets are remembered (the state at ``t_n``
        within a step, the residual and the Jacobian at one iterate)."""
        for xc, key in self._cache:
            if np.array_equal(xc, x):
                return key
        p = cKDTree(x).query_pairs(2.0 * self.r, output_type="ndarray").astype(np.int64)
        key = p[:, 0] * x.shape[0] + p[:, 1]
        self._cache.insert(0, (x.copy(), key))
        del self._cache[3:]
        return key

    def _pairs(self, *xs: np.ndarray) -> np.ndarray:
        """Node pairs closer than ``2 r`` in any of ``xs`` that may touch, (m, 2), sorted."""
        n = xs[0].shape[0]
        key = np.unique(np.concatenate([self._near(x) for x in xs]))
        a, b = key // n, key % n
        ds = np.abs(self._s[a] - self._s[b])
        L = self._lengths[self._rod[a]]
        ds = np.where(self._closed[self._rod[a]], np.minimum(ds, L - ds), ds)
        ds = np.where(self._rod[a] == self._rod[b], ds, np.inf)
        for junction in self._junctions:      # along the rods through a joint
            sa = np.array([junction.get(k, np.nan) for k in self._rod[a]])
            sb = np.array([junction.get(k, np.nan) for k in self._rod[b]])
            via = np.abs(self._s[a] - sa) + np.abs(self._s[b] - sb)
            ds = np.where(np.isnan(via), ds, np.minimum(ds, via))
        return np.column_stack([a, b])[ds >= self.exclude]

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
            return self._with_friction(p, d0, d1, G, K)
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
        return self._with_friction(p, d0, d1, G, K)

    def _friction(self, d0: np.ndarray, d1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Friction rows ``G_t = -f_t`` [N] of the pairs (``d_0``, ``d_1``: (m, 3), ``d_1``
        real or complex for the complex step) and their dissipation ``D`` [J] (real part
        meaningful)."""
        h = float(self._ctx.h.value)
        dot = lambda a, b: np.sum(a * b, axis=1)                          # noqa: E731
        l1 = np.sqrt(dot(d1, d1))
        g1 = l1 - 2.0 * self.r
        m1 = np.where(g1.real < 0.0, g1, 0.0)
        if float(self._ctx.theta.value) == 1.0:
            P, n = -self.k * m1, d1 / l1[:, None]
        else:
            l0 = np.sqrt(dot(d0, d0))
            g0 = l0 - 2.0 * self.r
            m0 = np.minimum(g0, 0.0)
            dg = g1 - g0
            close = np.abs(dg.real) <= 1e-12 * self.r
            gm = 0.5 * (g0 + g1)
            slope = np.where(close, self.k * np.where(gm.real < 0.0, gm, 0.0),
                             0.5 * self.k * (m1 * m1 - m0 * m0) / np.where(close, 1.0, dg))
            dm = 0.5 * (d0 + d1)
            ldm = np.sqrt(dot(dm, dm))
            P, n = -slope * 2.0 * ldm / (l0 + l1), dm / ldm[:, None]
        v = (d1 - d0) / h
        vt = v - dot(v, n)[:, None] * n
        q = dot(vt, vt)
        root = np.sqrt(q + self.v_reg ** 2)
        return (self.mu * P / root)[:, None] * vt, h * self.mu * P * q / root

    def _with_friction(self, p, d0, d1, G, K):
        """Add the friction rows and blocks (complex step in ``d_1``) to the normal ones and
        set the step's dissipation (:meth:`dissipation_value`, read by the ledger)."""
        if self.mu == 0.0:
            return p, G, K
        Gt, D = self._friction(d0, d1)
        self._D = float(np.sum(D.real))
        if K is not None:
            step = 1e-30 * max(self.r, 1e-300)
            Kt = np.empty_like(K)
            for j in range(3):
                dj = d1.astype(complex)
                dj[:, j] += 1j * step
                Kt[:, :, j] = self._friction(d0, dj)[0].imag / step
            K = K + Kt
        return p, G + Gt.real, K

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
        in ``skip`` left out) and assemble it.

        Every pair gives one 6 x 6 block ``h [[K, -K], [-K, K]]`` on the dofs of ``(x_a,
        x_b)``, rows of other ranks and rows/columns in ``skip`` as index -1 (ignored by
        PETSc). When, in a serial run, pairs appear that are not yet in the sparsity
        pattern of ``A``, the matrix is preallocated once more with the union of its
        pattern and the new pairs' whole blocks (explicit zeros kept, so the pattern does
        not grow entry by entry in later steps) and its values are put back; inserting
        into a matrix without room makes PETSc reallocate it once per overflowing row
        (quadratic in the pairs). A grown pattern means a new MUMPS analysis (its ICNTL
        values are kept: :func:`fxrod.solvers.newton.set_mumps_icntl`)."""
        p, _, K = self._forces(jacobian=True)
        h = float(self._ctx.h.value)
        dofs = self._global[p].reshape(-1, 6)                        # (x_a, x_b) of each pair
        out = np.isin(dofs, skip)
        cols = np.where(out, -1, dofs).astype(PETSc.IntType)
        mine = np.repeat(self._owner[p] == self.comm.rank, 3, axis=1)
        rows = np.where(out | ~mine, -1, dofs).astype(PETSc.IntType)
        hK = h * K
        blocks = np.block([[hK, -hK], [-hK, hK]])
        key = p[:, 0] * self._global.size + p[:, 1]
        known = self._known.get(A.handle, np.empty(0, dtype=np.int64))
        if self.comm.size == 1 and np.isin(key, known, invert=True).any():
            self._repattern(A, rows, cols, blocks)
            self._known = {A.handle: np.union1d(known, key)}
            return
        # under MPI the pattern grows by insertion (an assembled MPIAIJ matrix cannot be
        # preallocated anew)
        A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
        A.setValuesRCV(rows, cols, blocks, addv=PETSc.InsertMode.ADD_VALUES)
        A.assemble()

    @staticmethod
    def _repattern(A: PETSc.Mat, rows: np.ndarray, cols: np.ndarray,
                   blocks: np.ndarray) -> None:
        """``A += blocks`` (at ``rows x cols``, -1 skipped) with ``A`` preallocated anew for
        the union of its pattern and the blocks' entries (zeros included)."""
        r0, r1 = A.getOwnershipRange()
        shape = (r1 - r0, A.getSize()[1])
        rr = np.broadcast_to(rows[:, :, None], blocks.shape)
        cc = np.broadcast_to(cols[:, None, :], blocks.shape)
        ok = (rr >= 0) & (cc >= 0)
        C = sp.csr_matrix((blocks[ok], (rr[ok] - r0, cc[ok])), shape=shape)
        C.sum_duplicates()
        ai, aj, av = (np.array(a) for a in A.getValuesCSR())   # copies: A is reallocated
        pattern = (sp.csr_matrix((np.ones(aj.size), aj, ai), shape=shape)
                   + sp.csr_matrix((np.ones(C.indices.size), C.indices, C.indptr),
                                   shape=shape)).tocsr()
        pattern.sort_indices()
        A.setOption(PETSc.Mat.Option.IGNORE_ZERO_ENTRIES, False)   # keep the zeros
        A.setPreallocationCSR((pattern.indptr.astype(PETSc.IntType),
                               pattern.indices.astype(PETSc.IntType), np.zeros(pattern.nnz)))
        A.setValuesCSR(ai.astype(PETSc.IntType), aj.astype(PETSc.IntType), av,
                       addv=PETSc.InsertMode.ADD_VALUES)
        A.setValuesCSR(C.indptr.astype(PETSc.IntType), C.indices.astype(PETSc.IntType),
                       C.data, addv=PETSc.InsertMode.ADD_VALUES)
        A.assemble()
        # fxrod zeroes its matrices before each assembly: skipping zeros is harmless
        A.setOption(PETSc.Mat.Option.IGNORE_ZERO_ENTRIES, True)

    def dissipation_value(self) -> float:
        """Friction dissipation of the step ``D`` [J]: the pairs' sum at the last iterate
        the solver evaluated (the converged one), the same on every rank; 0 without
        friction. The ledger adds it to the dissipation of the UFL terms."""
        return self._D

    def stored_energy_value(self) -> float:
        """Penalty energy [J] of the state at ``t_n`` (the same on every rank)."""
        x = self._gather(self.w0)
        p = self._pairs(x)
        g = np.linalg.norm(x[p[:, 0]] - x[p[:, 1]], axis=1) - 2.0 * self.r
        return float(0.5 * self.k * np.sum(np.minimum(g, 0.0) ** 2))

    def force_on(self, rod: int = 0) -> np.ndarray:
        """Resultant contact force [N] (3,) on rod ``rod`` at the last iterate (the step
        average in dynamics), friction included."""
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

