"""The chain solver across MPI ranks: one open rod cut into contiguous pieces, one per rank.

DOLFINx's partition of an interval mesh gives each rank one contiguous run of cells (seen
on 2, 3 and 4 ranks at 10^3 and 10^5 cells, so fxrod adds no partitioner of its own;
:func:`piece_of` checks it, and the solver is not applicable otherwise). Rank ``r`` owns
the cells of its piece and shares the vertex at each cut with its neighbour; the ``p - 1``
cut vertices ("interfaces", ``nv = 18`` unknowns each) are numbered along the rod, from the
end of lower global vertex number.

Each rank condenses its cells exactly as :class:`fxrod.solvers.chain.ChainSolver` does
(the same C condensation, cell by cell inside the Jacobian assembly) into the block-
tridiagonal vertex system of its piece, whose blocks at an interface hold its own cells'
share. The piece's vertices are then eliminated onto its interfaces by the block Thomas
sweep (``fxrod_btri_factor_piece``): the two end pieces walk from the rod's end to their
interface, a middle piece from its first interface to its second, carrying the fill of its
first one (the "spike", two 18 x 18 blocks per vertex). The Schur complements left at the
interfaces are summed over the ranks (one ``Allreduce`` of ``3 (p - 1)`` blocks of 18 x 18:
at most two ranks add to an entry, so the sum does not depend on the reduction's order)
into the interface system, block tridiagonal with ``p - 1`` blocks, which every rank
factors and, in each solve, solves after an ``Allreduce`` of its right-hand side
(``p - 1`` vectors of 18); each rank then back-substitutes on its piece. A solve costs one
reduction of ``18 (p - 1)`` doubles; a factorisation four (the interface blocks; the
check's solve and its backward error, two). The dofs of a cut vertex that another rank owns
are padding in this rank's solves (no right-hand side: the owner's value counts once; the
solution written by the owner only), so a solve reads and writes the owned values alone.

The iterates are those of the serial chain solver up to round-off: the same element
matrices and condensation; only the order of the vertex elimination differs (towards the
cuts instead of from one end), within the backward error the check bounds
(:data:`fxrod.solvers.chain.MAX_BACKWARD_ERROR`). The factorisation is checked as in serial
by a solve of the vertex system with a fixed random right-hand side, its backward error
reduced over the ranks, so every rank takes the same decision (the chain solver, or MUMPS
from then on).

Takes one open rod (a :class:`fxrod.core.structure.Structure` of one rod, no joints) on at
least one cell per rank, with compliant stresses: the saddle-point variant of zero-compliance
stresses (Kirchhoff rods, :meth:`fxrod.solvers.chain.ChainSolver._retain`) is serial only,
and such a factorisation is reported as a singular interior block (then MUMPS).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mpi4py import MPI

from fxrod.solvers.chain import ChainSolver, _load_lib, chain_layout


@dataclass(frozen=True)
class Piece:
    """This rank's piece of the rod: its owned cells and where its chain meets the others.

    Attributes
    ----------
    n_cells : int
        The owned cells (the first ``n_cells`` of the local mesh).
    start : int
        The local vertex its chain is walked from: the rod's end (end pieces) or the first
        interface (middle pieces); the chain's last vertex is an interface.
    first : int
        The interface index of the chain's first vertex (middle pieces), else -1.
    last : int
        The interface index of the chain's last vertex.
    n_interfaces : int
        The interfaces of the whole rod (ranks - 1).
    """

    n_cells: int
    start: int
    first: int
    last: int
    n_interfaces: int


def piece_of(V) -> Piece | None:
    """This rank's :class:`Piece` of the mesh of ``V`` (collective), or None (on every rank)
    unless every rank owns one contiguous run of cells and the runs form one open chain."""
    msh = V.mesh
    comm = msh.comm
    topo = msh.topology
    ok = topo.dim == 1
    n_cells, ends, gids, shared = 0, np.zeros(0, np.int64), np.zeros(0, np.int64), []
    if ok:
        topo.create_connectivity(1, 0)
        c2v = np.asarray(topo.connectivity(1, 0).array).reshape(-1, 2)
        vmap = topo.index_map(0)
        n_vertices = vmap.size_local + vmap.num_ghosts
        n_cells = topo.index_map(1).size_local
        deg_own = np.bincount(c2v[:n_cells].ravel(), minlength=n_vertices)
        deg_all = np.bincount(c2v.ravel(), minlength=n_vertices)
        ends = np.flatnonzero(deg_own == 1)
        ok = n_cells > 0 and ends.size == 2 and deg_all.max() <= 2
        if ok:
            gids = np.asarray(vmap.local_to_global(ends.astype(np.int32)), dtype=np.int64)
            shared = (deg_all[ends] == 2).tolist()   # a ghost cell on the other side
    every = comm.allgather((bool(ok), gids.tolist(), shared))
    if not all(e[0] for e in every):
        return None
    # the pieces along the rod, from the outer piece whose rod end has the lower number
    outer = [r for r, e in enumerate(every) if sum(e[2]) == 1]
    inner = [r for r, e in enumerate(every) if sum(e[2]) == 2]
    if len(outer) != 2 or len(outer) + len(inner) != comm.size:
        return None

    def rod_end(r):
        return next(g for g, s in zip(every[r][1], every[r][2], strict=True) if not s)

    order, cuts = [min(outer, key=rod_end)], []
    holder: dict[int, list[int]] = {}
    for r, e in enumerate(every):
        for g, s in zip(e[1], e[2], strict=True):
            if s:
                holder.setdefault(g, []).append(r)
    if any(len(h) != 2 for h in holder.values()):
        return None
    while len(order) < comm.size:
        r = order[-1]
        nxt = [g for g, s in zip(every[r][1], every[r][2], strict=True)
               if s and g not in cuts]
        if len(nxt) != 1:
            return None
        cuts.append(nxt[0])
        order.append(next(q for q in holder[nxt[0]] if q != r))
    if len(set(order)) != comm.size:
        return None
    k = order.index(comm.rank)
    local = dict(zip(gids.tolist(), ends.tolist(), strict=True))
    if 0 < k < comm.size - 1:   # from the cut shared with the previous piece
        return Piece(n_cells, local[cuts[k - 1]], k - 1, k, comm.size - 1)
    mine = cuts[0] if k == 0 else cuts[-1]
    start = next(v for g, v in local.items() if g != mine)
    return Piece(n_cells, start, -1, cuts.index(mine), comm.size - 1)


class ChainPieces(ChainSolver):
    """:class:`fxrod.solvers.chain.ChainSolver` on this rank's piece of one open rod, with
    the interface system across the ranks (module docstring). Collective: every rank
    constructs it, factors and solves together.

    Parameters
    ----------
    V : dolfinx.fem.FunctionSpace
        The mixed space (block size 1) of one open rod on several ranks.
    bc_dofs : numpy.ndarray
        Dirichlet dofs (local indices, ghosts included).

    Raises
    ------
    RuntimeError
        When :meth:`applicable` is false or the C helper cannot be built.
    """

    def __init__(self, V, bc_dofs: np.ndarray) -> None:
        self.comm = V.mesh.comm
        try:   # every rank or none (the construction is collective)
            _load_lib()
            built = True
        except Exception:  # noqa: BLE001  (any build failure; raised below on every rank)
            built = False
        if not self.comm.allreduce(built, op=MPI.LAND):
            raise RuntimeError("chain solver: its C helper does not build on every rank")
        super().__init__(V, bc_dofs)

    @classmethod
    def _layout(cls, V, retained: tuple[int, ...] = ()):
        """:func:`fxrod.solvers.chain.chain_layout` of this rank's piece (collective), or
        None on every rank; the interface vertices must carry the same global dofs on the
        two ranks that share them."""
        piece = piece_of(V)
        if piece is None or retained:
            return None
        layout = chain_layout(V, retained, piece.n_cells, piece.start)
        kept = []
        if layout is not None:
            vd = layout[1]
            l2g = V.dofmap.index_map.local_to_global
            kept = [(piece.last, l2g(vd[-1].astype(np.int32)).tolist())]
            if piece.first >= 0:
                kept.append((piece.first, l2g(vd[0].astype(np.int32)).tolist()))
        every = V.mesh.comm.allgather(None if layout is None else kept)
        if any(e is None for e in every):
            return None
        dofs: dict[int, list] = {}
        for e in every:
            for j, g in e:
                dofs.setdefault(j, []).append(g)
        if any(len(g) != 2 or g[0] != g[1] for g in dofs.values()):
            return None
        return layout

    @classmethod
    def applicable(cls, V) -> bool:
        """One open rod in contiguous pieces, one per rank (collective)."""
        return cls._layout(V) is not None

    def _setup(self, retained: tuple[int, ...]) -> None:
        """The layout of this rank's piece (:meth:`_layout`) and the interface arrays."""
        super()._setup(retained)
        self.piece = pc = piece_of(self.V)
        nv, m, q = self.nv, self.m, pc.n_interfaces
        # the unit diagonal of a Dirichlet dof at an interface: on its owner only
        k, i = self._bc_at
        owned = self.vertex_dofs[k, i] < self.n_owned
        self._bc_at = (k[owned], i[owned])
        # the interface dofs another rank owns: as padding in the solves (right-hand side
        # 0: the owner adds the value; solution not written), so that they read and write
        # the owned values only
        self.vertex_dofs[self.vertex_dofs >= self.n_owned] = -1
        # the spike of a middle piece (fxrod_btri_factor_piece), else no storage
        spike = (m, nv, nv) if pc.first >= 0 else (1, 1, 1)
        self.W, self.C = np.zeros(spike), np.zeros(spike)
        # the interface system: diagonal, sub- and super-diagonal blocks, and the flag of
        # a failed factorisation, reduced in one buffer
        nn = nv * nv
        self._ibuf = np.zeros((3 * q - 2) * nn + 1)
        a, b = q * nn, (2 * q - 1) * nn
        self.DI = self._ibuf[:a].reshape(q, nv, nv)
        self.LI = self._ibuf[a:b].reshape(q - 1, nv, nv)
        self.UI = self._ibuf[b:-1].reshape(q - 1, nv, nv)
        self.pivS = np.zeros((q, nv), dtype=np.int32)
        self.rI = np.zeros((q, nv))
        # the check's kept rows (first, last: residual, row sums, right-hand side), its
        # maxima, and the rows of every interface
        self._kept, self._perr = np.zeros((2, 3, nv)), np.zeros(4)
        self._krows = np.zeros((q, 3, nv))
        p = self._p
        coupling = (self.LI, self.UI) if q > 1 else (self.DI, self.DI)   # unused if q = 1
        self._ptrs_i = (p(self.DI, "double*"), p(coupling[0], "double*"),
                        p(coupling[1], "double*"), p(self.pivS, "int*"), p(self.rI, "double*"))

    def _retain(self, E: np.ndarray) -> bool:
        """The zero-compliance variant is serial only (module docstring): a singular
        interior block stays one (:meth:`_factor_vertices` reports it on every rank)."""
        return False

    def _factor_vertices(self, rc: int) -> None:
        """After this rank's condensation (return code ``rc``): the piece's elimination onto
        its interfaces, the interface system reduced over the ranks and factored (the same
        on every rank). Raises RuntimeError on every rank if any rank fails."""
        k, i = self._bc_at
        self.D[k, i, i] = 1.0
        np.copyto(self.S_D, self.D)
        np.copyto(self.S_U, self.U)
        pc, m = self.piece, self.m
        D, L, U, piv, _ = self._ptrs
        p = self._p
        self._ibuf[:] = 0.0
        why = ""
        if rc != 0:
            why = f"element {-1 - rc} of rank {self.comm.rank} has a (numerically) " \
                  "singular interior block (zero-compliance stresses?)"
        else:
            rc = self.lib.lib.fxrod_btri_factor_piece(
                *self._btri, D, L, U, piv, int(pc.first >= 0), p(self.W, "double*"),
                p(self.C, "double*"))
            if rc != 0 or not np.isfinite(self.D.sum()):
                why = f"singular vertex pivot block {-1 - rc} of rank {self.comm.rank}"
            else:
                self.DI[pc.last] += self.D[m - 1]
                if pc.first >= 0:   # the blocks (first, last) and (last, first)
                    self.DI[pc.first] += self.D[0]
                    self.UI[pc.first] += self.C[m - 1]
                    self.LI[pc.first] += self.W[m - 1]
        self._ibuf[-1] = 1.0 if why else 0.0
        self.comm.Allreduce(MPI.IN_PLACE, self._ibuf, op=MPI.SUM)
        if self._ibuf[-1] == 0.0:
            rc = self.lib.lib.fxrod_btri_factor(self.piece.n_interfaces, self.nv, self.nv,
                                                self.nv, self.nv, *self._ptrs_i[:4])
            if rc != 0 or not np.isfinite(self.DI.sum()):
                why = f"singular interface pivot block {-1 - rc}"
        elif not why:
            why = "a singular block on another rank"
        if why:
            raise RuntimeError(f"chain solver: {why}")
        self.factored = True

    def _interfaces(self, r: np.ndarray, solve) -> None:
        """The cut vertices' rows of ``r`` (m, nv) replaced by the interface system's
        solution: the rows of every rank summed (one Allreduce), then ``solve`` (the factored
        system's solve or transposed solve, ``fxrod_btri_solve[_t]``) in place."""
        pc, m, nv = self.piece, self.m, self.nv
        first = pc.first >= 0
        rI = self.rI
        rI[:] = 0.0
        rI[pc.last] = r[m - 1]
        if first:
            rI[pc.first] = r[0]
        self.comm.Allreduce(MPI.IN_PLACE, rI, op=MPI.SUM)
        DI, LI, UI, pivS, rI_ptr = self._ptrs_i
        solve(pc.n_interfaces, nv, nv, nv, nv, DI, pivS, LI, UI, rI_ptr)
        r[m - 1] = rI[pc.last]
        if first:
            r[0] = rI[pc.first]

    def _sweep(self, r: np.ndarray) -> None:
        """Solve the vertex system with the right-hand side ``r`` (m, nv; this rank's
        share at the interfaces) in place: forward sweep of the piece, the interface system
        (one reduction), back substitution."""
        pc, m, nv = self.piece, self.m, self.nv
        D, L, G, piv, _ = self._ptrs
        p, lib = self._p, self.lib.lib
        _, _, lr, lc, uw = self._btri
        first = int(pc.first >= 0)
        r_ptr = p(r, "double*")
        lib.fxrod_btri_forward(m, nv, lr, lc, D, piv, L, first, p(self.C, "double*"), r_ptr)
        self._interfaces(r, lib.fxrod_btri_solve)
        lib.fxrod_btri_back(m, nv, uw, G, first, p(self.W, "double*"), r_ptr)

    def _check_vertex_system(self) -> float:
        """Backward error of a solve of the vertex system (all ranks) with a fixed random
        right-hand side (:meth:`_piece_error`)."""
        np.copyto(self.rB0, self._probe)
        np.copyto(self.rB, self._probe)
        self._sweep(self.rB)
        return self._piece_error(self.rB)

    def _piece_error(self, x: np.ndarray) -> float:
        """``|S x - r|_inf / (|S|_inf |x|_inf + |r|_inf)`` over the whole vertex system for
        the vertex values ``x`` (m, nv; contiguous) and this rank's right-hand side
        :attr:`rB0`: the rows at the interfaces summed over the ranks (collective)."""
        pc = self.piece
        first = int(pc.first >= 0)
        kept, err = self._kept, self._perr
        _, L, _, _, _ = self._ptrs
        p = self._p
        self.lib.lib.fxrod_btri_residual_piece(
            *self._btri, p(self.S_D, "double*"), L, p(self.S_U, "double*"), p(x, "double*"),
            self._rB0_ptr, first, p(err, "double*"), p(kept, "double*"))
        # per interface: residual, row sums, right-hand side, summed over its two ranks
        rows = self._krows
        rows[:] = 0.0
        rows[pc.last] = kept[1]
        if first:
            rows[pc.first] = kept[0]
        self.comm.Allreduce(MPI.IN_PLACE, rows, op=MPI.SUM)
        out = np.array([max(err[0], np.max(np.abs(rows[:, 0]))),
                        max(err[1], np.max(rows[:, 1])), err[2],
                        max(err[3], np.max(np.abs(rows[:, 2])))])
        if not np.all(np.isfinite(out)):
            out[0] = np.inf
        self.comm.Allreduce(MPI.IN_PLACE, out, op=MPI.MAX)
        return float(out[0] / (out[1] * out[2] + out[3]))

    def vertex_error(self, x: np.ndarray) -> float:
        """Backward error of the vertex system in the last :meth:`solve` (collective; ``x``
        its solution, whose vertex values this solver keeps)."""
        return self._piece_error(self.rB)

    def backward_error(self, elem: np.ndarray, b: np.ndarray, x: np.ndarray) -> float:
        """:meth:`vertex_error` of the last :meth:`solve` (the element matrices of the
        other ranks are not at hand)."""
        return self.vertex_error(x)

    def solve(self, b: np.ndarray, out: np.ndarray) -> None:
        """``out = A^-1 b`` for the owned values ``b`` and ``out`` (this rank's parts of the
        distributed vectors, contiguous float64; collective)."""
        p, lib = self._p, self.lib.lib
        a = self._solve_args
        # (nc, m, ni, nv, lpos, LUI, pivI, X, ABI, act, D, piv, L, U, lay, idofs, vdofs)
        nc, m, ni, nv, lpos, LUI, pivI, X, ABI, act = a[:10]
        lay, idofs, vdofs = a[14:17]
        rB, b_ptr, out_ptr = self._ptrs[4], p(b, "double*"), p(out, "double*")
        lib.fxrod_chain_rhs(nc, m, ni, nv, lpos, LUI, pivI, ABI, act, lay, idofs, vdofs,
                            b_ptr, out_ptr, rB)
        np.copyto(self.rB0, self.rB)
        self._sweep(self.rB)
        lib.fxrod_chain_back(nc, m, ni, nv, lpos, X, act, lay, idofs, vdofs, rB, out_ptr)

    def solve_transpose(self, b: np.ndarray, out: np.ndarray) -> None:
        """``out = A^-T b`` for the owned values ``b`` and ``out`` (collective; ``out`` may
        be ``b``): the transposed sweeps of the piece (``fxrod_btri_forward_t``,
        ``fxrod_btri_back_t``) around the transposed interface system."""
        p, lib = self._p, self.lib.lib
        a = self._solve_args
        nc, m, ni, nv, lpos, LUI, pivI, X, ABI, act = a[:10]
        D, piv, L, G, lay, idofs, vdofs = a[10:17]
        rB, b_ptr = self._ptrs[4], p(b, "double*")
        pc = self.piece
        first = int(pc.first >= 0)
        _, _, lr, lc, uw = self._btri
        lib.fxrod_chain_rhs_t(nc, m, ni, nv, lpos, X, act, lay, idofs, vdofs, b_ptr, rB)
        r = self.rB
        lib.fxrod_btri_forward_t(m, nv, uw, G, first, p(self.W, "double*"), rB)
        self._interfaces(r, lib.fxrod_btri_solve_t)
        lib.fxrod_btri_back_t(m, nv, lr, lc, D, piv, L, first, p(self.C, "double*"), rB)
        lib.fxrod_chain_back_t(nc, m, ni, nv, lpos, LUI, pivI, ABI, act, lay, idofs, vdofs,
                               b_ptr, rB, p(out, "double*"))
