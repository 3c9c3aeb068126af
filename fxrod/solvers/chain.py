"""The chain solver: the linear Newton systems of open rods by static
condensation of each element's interior unknowns and a block-tridiagonal solve of the
vertex unknowns.

On the mixed P2/DG1/nodal space every element couples to its neighbours only through its
two vertices (12 position/director and 6 multiplier unknowns each, ``nv = 18``); its
``ni = 30`` interior unknowns (mid-node q and multipliers, the DG1 stresses) appear in no
other element. With the element matrices ``A_e`` (from
:class:`fxrod.native.assembly.KernelJacobian`, Dirichlet rows and columns zero) ordered
``[interior | left vertex | right vertex]``::

    X_e = A_II^-1 A_IB(:, active)                  (LU of A_II, see below)
    S_e = A_BB - A_BI X_e                          (element Schur complements)

("active": the vertex columns that A_IB couples, 24 of 36; the vertex multipliers do not
couple to the interior). The vertex system ``sum_e S_e`` is block tridiagonal with
18 x 18 blocks and is factored by block Gaussian elimination (block Thomas algorithm,
partial pivoting inside each diagonal block) in a small C loop; a solve is the
forward/backward block sweep and the interior back-substitution
``x_I = A_II^-1 r_I - X_e x_B``.

The LU of A_II eliminates the cell-local fields (the unknowns of discontinuous
sub-elements: the DG1 stresses, 12 of 30) first, pivoting among themselves: their block is
the compliance (2 x 2 blocks), so their elimination costs little and fills only the
q/multiplier block (48 % of the LU entries nonzero instead of 81 % with plain partial
pivoting). Where that meets a pivot below its block's largest entry / ``MAX_GROWTH``
(a field whose block is singular), the cell is refactored with plain partial pivoting.

Saddle-point variant (zero-compliance stresses: the Kirchhoff rod's shear and extension).
Their compliance rows are zero, and A_II is singular (rank 29 of 30 for the Kirchhoff rod:
its 12 mid-node unknowns cannot satisfy the 6 constraint rows and the 6 orthonormality rows
alone). When a factorisation meets a singular interior block, the stresses whose rows in the
stress block are zero move, once and for the whole run, out of the interior and into the
vertex block on the cell's right (:meth:`ChainSolver._retain`): blocks of ``nv + nr``
unknowns (24 x 24 for the Kirchhoff rod, ``nr = 6``; a chain's first vertex block is padded
with ``nr`` unknowns of unit diagonal), so the vertex system stays block tridiagonal and
the pivoting inside its diagonal blocks handles the zero diagonal of the constraints.
If the block is still singular (statics: no mass term holds the mid-node position), the
unknowns that carry its numerical null space join the vertex blocks too (27 x 27 for the
quasi-static Kirchhoff rod). Otherwise the solver reports a singular interior block.

Attached to a :class:`fxrod.native.assembly.KernelJacobian` (:meth:`ChainSolver.attach`, as
:class:`fxrod.solvers.newton.NewtonSolver` does), the factorisation runs inside the Jacobian
assembly, cell by cell: FFCx kernel into a 66 x 66 buffer, condensation right away; no
array of all element matrices is zeroed, written or read (348 MB at 10 000 cells). The
factorisation is checked by the backward error of a solve of the vertex system with a
fixed random right-hand side (18 x 18 blocks; the interiors are pivoted LUs with a
growth bound), beyond :data:`MAX_BACKWARD_ERROR` a ``RuntimeError`` (MUMPS from then on).

Storage, per element: the LU of A_II (30 x 30), X_e (30 x 24: its active columns only) and
the nonzero rows of A_BI (24 x 30), 18.7 kB; per vertex the factored diagonal block
(18 x 18) and the coupling blocks without the rows and columns of the vertex multipliers,
whose entries are zero (L 12 x 12, G 18 x 12; the widths are measured by the
condensation, :meth:`ChainSolver._widen`), and for the check the diagonal and
super-diagonal blocks before the factorisation (18 x 18, 18 x 12), 9.8 kB: ~ 29 kB per
element (ints aside; flying spaghetti, tests/test_memory.py).
Flops per element (measured nonzero counts): condensation ~ 6e4 (LU ~ 1e4, X_e ~ 3e4,
Schur ~ 3e4), vertex sweep ~ 2e4 (nonzero columns of the coupling blocks only), a solve
~ 6e3. No ordering, no symbolic phase.

Applicable to disjoint open chains of cells (every vertex in one or two cells, no loop:
one rod, or a :class:`fxrod.core.structure.Structure` of rods without joints, e.g. an
:class:`fxrod.runs.ensemble.Ensemble`) whose every unknown is a vertex or a cell-interior
unknown of the mixed space (:meth:`ChainSolver.applicable`). The vertices are numbered
chain after chain, so the vertex system stays block tridiagonal with zero blocks between
the chains; the block elimination does not pivot across blocks, so a
singular diagonal block raises ``RuntimeError`` (the Newton solver reports a failed linear
solve). Under MPI one open rod is solved in pieces, one per rank (:mod:`fxrod.solvers.chain_mpi`,
with the piece elimination ``fxrod_btri_factor_piece`` of ``chain.c``).
"""

from __future__ import annotations

import contextlib

import numpy as np
import scipy.linalg

from fxrod import native
from fxrod.solvers import mumps

#: Largest ratio of an element interior block's largest entry to a pivot of its LU before
#: the chain solver declares the block singular (zero-compliance stresses: 1e34 measured).
MAX_GROWTH = 1e13
#: Largest backward error ``|A x - b|_inf / (|A|_inf |x|_inf + |b|_inf)`` of the check solve
#: after each factorisation (the block elimination does not pivot across blocks, so a
#: nearly singular pivot block shows here); beyond it :class:`ChainPC` switches to MUMPS.
MAX_BACKWARD_ERROR = 1e-10
#: Singular values of a reduced element interior block below this times its largest count
#: as its null space (:meth:`ChainSolver._retain`): condensing such directions would lose
#: more than five digits. Quasi-static Kirchhoff rod, measured: three singular values of
#: 1e-17 to 1e-12 in the straight state, two of them 9e-7 when bent (geometric stiffness),
#: the next one up 1.6e-4 and 9e-2; the same three unknowns either way, so a restarted run
#: retains what the uninterrupted one did.
NULL_TOL = 1e-5


def _load_lib():
    """The chain solver's C helper (:func:`fxrod.native.load`), built with ``-O3`` and,
    where the CPU has AVX2, ``-mavx2`` (4-wide vectors in the condensation's row updates: 10 %
    off a step at n_e 1000; without ``-mfma``, so no product is fused into an addition and the
    results are those of the plain build to the bit)."""
    return native.load("chain")


def prepare() -> None:
    """Build (or load) the chain solver's C helper ahead of its use, e.g. while the C
    compiler builds a model's forms (:func:`fxrod.native.jit.forms`); a failure is reported where
    the solver is created (:class:`fxrod.solvers.newton.NewtonSolver` then uses MUMPS)."""
    with contextlib.suppress(Exception):
        _load_lib()


def _chain_order(c2v: np.ndarray, n_vertices: int,
                 start: int | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """Vertices along the chains, one open chain after the other (each from its end of
    lower vertex number, the chain of ``start`` first and from there), and each cell's
    left vertex position (0 or 1 in ``c2v[c]``); None unless the cells form disjoint open
    chains covering every vertex."""
    n_cells = c2v.shape[0]
    cells_of = [[] for _ in range(n_vertices)]
    for c, (a, b) in enumerate(c2v):
        cells_of[a].append(c)
        cells_of[b].append(c)
    degree = np.array([len(x) for x in cells_of])
    if n_cells == 0 or np.any(degree > 2) or np.any(degree == 0):
        return None
    order, left = [], np.zeros(n_cells, dtype=np.int64)
    seen = np.zeros(n_cells, dtype=bool)
    done = np.zeros(n_vertices, dtype=bool)
    ends = np.flatnonzero(degree == 1)
    if start is not None:
        ends = np.concatenate([[start], ends[ends != start]])
    for end in ends:
        if done[end]:
            continue  # the far end of a chain already walked
        v = int(end)
        order.append(v)
        while True:
            nxt = [c for c in cells_of[v] if not seen[c]]
            if not nxt:
                break
            c = nxt[0]
            seen[c] = True
            a, b = c2v[c]
            left[c] = 0 if a == v else 1
            v = int(b if a == v else a)
            order.append(v)
        done[v] = True
    if not seen.all():  # a closed loop of cells
        return None
    return np.array(order), left


def chain_layout(V, retained: tuple[int, ...] = (), n_cells: int | None = None,
                 start: int | None = None):
    """(per-cell permutation to [interior | left block | right block], -1 at the
    padding; block dofs along the chains (m, nb), -1 at the padding; interior dofs;
    cells and their left vertex positions in chain order; number of leading interior
    dofs of discontinuous sub-elements), or None. A vertex block holds the vertex's
    unknowns and the ``retained`` interior unknowns of the cell on its left (padding
    at a chain's first vertex). The cells are the first ``n_cells`` (default: all; under
    MPI the owned ones), walked from the vertex ``start`` (:func:`_chain_order`); their
    unknowns must be the owned ones, and ghosts only at the chains' end vertices."""
    msh = V.mesh
    if msh.topology.dim != 1 or V.dofmap.bs != 1:
        return None
    dofs = np.asarray(V.dofmap.list)
    if n_cells is not None:
        dofs = dofs[:n_cells]
    layout = V.dofmap.dof_layout
    vloc = [np.asarray(layout.entity_closure_dofs(0, i)) for i in (0, 1)]
    iloc = np.asarray(layout.entity_dofs(1, 0))
    nd = dofs.shape[1]
    if sorted(np.concatenate([*vloc, iloc]).tolist()) != list(range(nd)):
        return None
    # the cell-local fields (discontinuous sub-elements, e.g. the stresses) first
    local = np.zeros(nd, dtype=bool)
    for i in range(V.num_sub_spaces):
        sub = V.sub(i)
        if getattr(getattr(sub.element, "basix_element", None), "discontinuous", False):
            local |= np.isin(dofs[0], np.asarray(sub.dofmap.list)[0])
    iloc = np.concatenate([iloc[local[iloc]], iloc[~local[iloc]]])
    kept = np.setdiff1d(np.arange(iloc.size), np.asarray(retained, dtype=np.int64))
    rloc, iloc = iloc[list(retained)], iloc[kept]
    n_local = int(np.count_nonzero(local[iloc]))
    msh.topology.create_connectivity(1, 0)
    c2v = np.asarray(msh.topology.connectivity(1, 0).array).reshape(-1, 2)[:dofs.shape[0]]
    vmap = msh.topology.index_map(0)
    n_vertices = vmap.size_local + vmap.num_ghosts
    used, compact = np.unique(c2v, return_inverse=True)   # the cells' vertices
    chain = _chain_order(compact.reshape(-1, 2), used.size,
                         None if start is None else int(np.searchsorted(used, start)))
    if chain is None:
        return None
    order, left = used[chain[0]], chain[1]
    pos = np.empty(n_vertices, dtype=np.int64)
    pos[order] = np.arange(order.size)
    nv, nr = vloc[0].size, rloc.size
    vertex_dofs = np.full((order.size, nv + nr), -1, dtype=np.int64)
    pad = np.full(nr, -1, dtype=np.int64)
    perm = np.empty((dofs.shape[0], iloc.size + 2 * (nv + nr)), dtype=np.int64)
    for c in range(dofs.shape[0]):
        lv, rv = (0, 1) if left[c] == 0 else (1, 0)
        perm[c] = np.concatenate([iloc, vloc[lv], pad, vloc[rv], rloc])
        for loc, k in ((lv, pos[c2v[c, lv]]), (rv, pos[c2v[c, rv]])):
            g = dofs[c, vloc[loc]]
            if vertex_dofs[k, 0] >= 0 and not np.array_equal(vertex_dofs[k, :nv], g):
                return None
            vertex_dofs[k, :nv] = g
        vertex_dofs[pos[c2v[c, rv]], nv:] = dofs[c, rloc]
    # the cells in chain order: a cell joins the vertex positions first and first + 1
    first = np.minimum(pos[c2v[:, 0]], pos[c2v[:, 1]])
    cells = np.argsort(first)
    perm, interior = perm[cells], dofs[cells][:, iloc]
    every = np.concatenate([vertex_dofs[vertex_dofs >= 0], interior.ravel()])
    n_owned = V.dofmap.index_map.size_local
    ghost = vertex_dofs >= n_owned
    if (np.unique(every).size != every.size or np.count_nonzero(every < n_owned) != n_owned
            or np.any(interior >= n_owned) or ghost[1:-1].any()):
        return None
    return (np.ascontiguousarray(perm), vertex_dofs, np.ascontiguousarray(interior),
            cells, first[cells], n_local)



class ChainSolver:
    """Condensation and block-tridiagonal solve of the Jacobian of open rods.

    Parameters
    ----------
    V : dolfinx.fem.FunctionSpace
        The mixed space (block size 1) on disjoint open chains of interval cells (one rod,
        or a :class:`fxrod.core.structure.Structure` of rods without joints), serial
        (one rod on several ranks: :class:`fxrod.solvers.chain_mpi.ChainPieces`).
    bc_dofs : numpy.ndarray
        Dirichlet dofs: their rows and columns of the element matrices are zero and their
        diagonal is one in the assembled matrix.

    Raises
    ------
    RuntimeError
        When :meth:`applicable` is false or the C helper cannot be built.
    """

    def __init__(self, V, bc_dofs: np.ndarray) -> None:
        self.V = V
        imap = V.dofmap.index_map
        #: the owned unknowns (the right-hand sides and solutions of :meth:`solve` under MPI)
        self.n_owned = imap.size_local
        is_bc = np.zeros(imap.size_local + imap.num_ghosts, dtype=bool)
        is_bc[np.asarray(bc_dofs, dtype=np.int64)] = True
        self._is_bc = is_bc
        self.is_bc = is_bc.astype(np.int8)
        self.dofs = np.ascontiguousarray(V.dofmap.list, dtype=np.int32)
        self.lib = _load_lib()
        self.ffi = self.lib.ffi
        self._setup(())
        self._null_retained = False
        #: the :class:`fxrod.native.assembly.KernelJacobian` whose assembly this solver factors
        #: cell by cell (:meth:`attach`), or None
        self.attached = None
        self._fused_error: str | None = None

    def _setup(self, retained: tuple[int, ...]) -> None:
        """Layout and work arrays with the interior unknowns at the positions ``retained``
        (of the interior order, zero-compliance stresses) moved into the vertex blocks."""
        layout = self._layout(self.V, retained)
        if layout is None:
            raise RuntimeError("the chain solver needs disjoint open chains of cells whose "
                               "unknowns are vertex or cell-interior unknowns")
        perm, vertex_dofs, interior_dofs, cells, lpos, n_local = layout
        #: positions (in the interior order) of the interior unknowns kept in the vertex
        #: blocks: the zero-compliance stresses (saddle-point variant, :meth:`_retain`)
        self.retained = tuple(retained)
        #: interior unknowns eliminated first, among themselves (cell-local fields)
        self.n_local = n_local
        self.pad = np.ascontiguousarray(perm < 0, dtype=np.int8)
        self.perm = np.ascontiguousarray(np.maximum(perm, 0), dtype=np.int32)
        self.vertex_dofs = np.ascontiguousarray(vertex_dofs, dtype=np.int32)
        self.interior_dofs = np.ascontiguousarray(interior_dofs, dtype=np.int32)
        self.cells = np.ascontiguousarray(cells, dtype=np.int32)
        self.lpos = np.ascontiguousarray(lpos, dtype=np.int32)
        n_cells = self.perm.shape[0]
        self.ni = self.interior_dofs.shape[1]
        self.nv = self.vertex_dofs.shape[1]
        self.m = self.vertex_dofs.shape[0]
        is_bc = self._is_bc
        self.bc_interior = np.ascontiguousarray(is_bc[self.interior_dofs], dtype=np.int8)
        # padding slots get a unit diagonal like Dirichlet dofs
        self.bc_vertex = np.where(self.vertex_dofs >= 0, is_bc[self.vertex_dofs], True)
        nv, m, ni = self.nv, self.m, self.ni
        if 2 * nv > 64 or ni > 64:
            raise RuntimeError("chain solver: more than 32 unknowns per vertex block or 64 "
                               "interior unknowns per element")
        self.LUI = np.zeros((n_cells, ni, ni))
        self.pivI = np.zeros((n_cells, ni), dtype=np.int32)
        self.act = np.zeros((n_cells, 2 * nv), dtype=np.int8)
        self.work = np.zeros(self.perm.shape[1] ** 2)
        self.D = np.zeros((m, nv, nv))
        self.piv = np.zeros((m, nv), dtype=np.int32)
        self.rB = np.zeros((m, nv))
        self.rB0 = np.zeros((m, nv))
        self._probe = np.random.default_rng(22).standard_normal((m, nv))
        # the diagonal blocks before their factorisation, for the check (:meth:`vertex_error`)
        self.S_D = np.zeros_like(self.D)
        self._bc_at = np.nonzero(self.bc_vertex)   # (vertex, slot) of the unit diagonals
        #: widths of the compact arrays (:meth:`_compact`): columns of X, rows of A_BI,
        #: rows and columns of L, columns of U; then the widths the last condensation needed
        self.lay = np.zeros(10, dtype=np.int32)
        self._err = np.zeros(2)
        self._compact()
        self.factored = False

    def _compact(self) -> None:
        """(Re)allocate the arrays whose widths the condensation measures (``lay[:5]``,
        see ``fxrod_chain_condense``): X_e as its active columns (24 of 36 for the rod),
        the nonzero rows of A_BI (24 of 36), the coupling blocks without their trailing zero
        rows and columns (the vertex multipliers: L 12 x 12, U 18 x 12 of 18 x 18), and the
        pointers the C helper is called with."""
        n_cells, ni, nv, m = self.perm.shape[0], self.ni, self.nv, self.m
        cx, cb, lr, lc, uw = (int(v) for v in self.lay[:5])
        self.X = self.ABI = self.L = self.U = self.S_U = None   # free before allocating
        self.X = np.zeros((n_cells, ni, cx))
        self.ABI = np.zeros((n_cells, cb, ni))
        self.L = np.zeros((max(m - 1, 1), lr, lc))
        self.U = np.zeros((max(m - 1, 1), nv, uw))
        # the coupling blocks before the factorisation, for the check (:meth:`vertex_error`)
        self.S_U = np.zeros_like(self.U)
        p = self._p
        self._ptrs = (p(self.D, "double*"), p(self.L, "double*"), p(self.U, "double*"),
                      p(self.piv, "int*"), p(self.rB, "double*"))
        D, L, U, piv, _ = self._ptrs
        self._lay_ptr = p(self.lay, "int32_t*")
        self._solve_args = (
            n_cells, m, ni, nv, p(self.lpos, "int32_t*"), p(self.LUI, "double*"),
            p(self.pivI, "int*"), p(self.X, "double*"), p(self.ABI, "double*"),
            p(self.act, "int8_t*"), D, piv, L, U, self._lay_ptr,
            p(self.interior_dofs, "int32_t*"), p(self.vertex_dofs, "int32_t*"))
        self._btri = (m, nv, lr, lc, uw)
        self._rB0_ptr = p(self.rB0, "double*")
        self._residual_args = (*self._btri, p(self.S_D, "double*"), L,
                               p(self.S_U, "double*"))
        self._err_ptr = p(self._err, "double*")
        #: the pointers of the arrays last passed to :meth:`solve` (by identity)
        self._io: tuple = (None, None, None, None)

    def _widen(self) -> None:
        """After a condensation that needed wider compact arrays than :attr:`lay` holds (it
        stored nothing beyond the first such cell and measured the rest): reallocate them
        at the widths needed."""
        self.lay[:5] = np.maximum(self.lay[:5], self.lay[5:])
        fj = self.attached
        self.detach()
        self._compact()
        if fj is not None:
            self.attach(fj)

    def _retain(self, E: np.ndarray) -> bool:
        """After a singular interior block whose permuted element matrix is ``E``: move
        interior unknowns into the vertex blocks; True if that changed the layout. First
        the stresses with zero compliance (a zero row in the stress block: constrained
        components); if the block is still singular (quasi-static Kirchhoff rod: nothing
        but the constraints holds the mid-node position), the unknowns that carry its
        numerical null space (singular values below :data:`NULL_TOL` times the largest;
        the coordinates picked by a pivoted QR of the null vectors)."""
        ni, ns = self.ni, self.n_local
        # the current interior positions in the order of the layout without retention
        kept = np.setdiff1d(np.arange(ni + len(self.retained)), self.retained)
        if not self.retained:
            new = [i for i in range(ns) if not np.any(E[i, :ns])]
        elif self._null_retained:
            return False
        else:
            _, s, vt = np.linalg.svd(E[:ni, :ni])
            d = int(np.count_nonzero(s <= NULL_TOL * s[0]))
            new = [] if d == 0 or 2 * (self.nv + d) > 64 else \
                list(scipy.linalg.qr(vt[ni - d:], pivoting=True)[2][:d])
            self._null_retained = True
        if not new:
            return False
        fj = self.attached
        self.detach()
        self._setup(tuple(sorted((*self.retained, *kept[new].tolist()))))
        if fj is not None:
            self.attach(fj)
        return True

    def _p(self, arr, ctype):
        return self.ffi.cast(ctype, arr.ctypes.data)

    @classmethod
    def _layout(cls, V, retained: tuple[int, ...] = ()):
        """:func:`chain_layout` of every cell of a serial mesh, or None."""
        if V.mesh.comm.size != 1:
            return None
        return chain_layout(V, retained)

    @classmethod
    def applicable(cls, V) -> bool:
        """Serial, disjoint open chains of cells, every unknown a vertex or cell-interior
        one."""
        return cls._layout(V) is not None

    def attach(self, fast_jacobian) -> None:
        """Factor the Jacobian of ``fast_jacobian`` (a
        :class:`fxrod.native.assembly.KernelJacobian` of the same space, CSR assembly off)
        whenever it is assembled, cell by cell from its FFCx kernels: no array of element
        matrices is written or read. Its ``elem`` array (kept for callers that pass it to
        :meth:`factor` and :meth:`backward_error`) then stays untouched; :meth:`factor`
        of it reports the outcome of the last assembly, :meth:`backward_error` of it is
        :meth:`vertex_error`. :meth:`detach` undoes this."""
        fj = fast_jacobian
        k = fj.kernels
        n_cells = self.perm.shape[0]
        pos = np.empty(n_cells, dtype=np.int64)
        pos[self.cells] = np.arange(n_cells)
        chain_pos, ints, ents = [], [], []
        for i, it in enumerate(k.integrals):   # integral order: as the assembly adds them
            chain_pos.append(pos[it["cells"]])
            ints.append(np.full(it["cells"].size, i))
            ents.append(np.arange(it["cells"].size))
        chain_pos, ints, ents = (np.concatenate(a) for a in (chain_pos, ints, ents))
        order = np.lexsort((ents, ints, chain_pos))
        self._ent_ptr = np.zeros(n_cells + 1, dtype=np.int32)
        np.cumsum(np.bincount(chain_pos, minlength=n_cells), out=self._ent_ptr[1:])
        self._ent_i = np.ascontiguousarray(ints[order], dtype=np.int32)
        self._ent_e = np.ascontiguousarray(ents[order], dtype=np.int32)
        ptr = k.ffi.cast
        self._kern = np.array([it["kernel"] for it in k.integrals], dtype=np.uintp)
        self._rels = np.array([it["rel"].ctypes.data for it in k.integrals], dtype=np.uintp)
        self._srcs = np.ascontiguousarray(np.concatenate([it["srcs"] for it in k.integrals]),
                                          dtype=np.uintp)
        self._cstride = np.array([it["stride"] for it in k.integrals], dtype=np.int32)
        self._locals = np.array([0 if it["local"] is None else it["local"].ctypes.data
                                 for it in k.integrals], dtype=np.uintp)
        cell_dofs = self.dofs[self.cells]                       # (n_cells, nd), chain order
        self._bc_perm = np.ascontiguousarray(
            self.is_bc[np.take_along_axis(cell_dofs, self.perm.astype(np.int64), axis=1)]
            | self.pad, dtype=np.int8)
        nd, ne = self.dofs.shape[1], self.perm.shape[1]
        self._cellbuf = np.zeros((2, ne * ne))    # Ec (nd x nd) and E (ne x ne)
        self._coords = np.zeros(3 * fj.gdofs.shape[1])
        p = self._p
        self._fused_args = (
            n_cells, self.ni, self.nv, nd, ne, self.n_local, p(self.lpos, "int32_t*"),
            p(self.perm, "int32_t*"),
            p(self._bc_perm, "int8_t*"), p(self.bc_interior, "int8_t*"),
            p(self._ent_ptr, "int32_t*"), p(self._ent_i, "int32_t*"),
            p(self._ent_e, "int32_t*"), p(self._kern, "uintptr_t*"),
            p(self._rels, "uintptr_t*"), p(self._cstride, "int32_t*"),
            len(k.coefficients), p(k.segments, "int32_t*"), p(self._srcs, "uintptr_t*"),
            k.cbuf_ptr, p(self._locals, "uintptr_t*"), ptr("double*", k.consts.ctypes.data),
            p(fj.x, "double*"), p(fj.gdofs, "int32_t*"), fj.gdofs.shape[1],
            p(self.cells, "int32_t*"), MAX_GROWTH, p(self.LUI, "double*"),
            p(self.pivI, "int*"), p(self.X, "double*"), p(self.ABI, "double*"),
            p(self.act, "int8_t*"), *self._ptrs[:3], self._lay_ptr, p(self._cellbuf[0], "double*"),
            p(self._cellbuf[1], "double*"),
            p(self._coords, "double*"))
        self.attached = fj
        fj.condenser = self

    def detach(self) -> None:
        """Stop factoring on the attached Jacobian's assembly (:meth:`attach`)."""
        if self.attached is not None:
            self.attached.condenser = None
            self.attached = None

    def factor_jacobian(self, fast_jacobian) -> None:
        """Compute the attached Jacobian's element matrices from its kernels (each cell's
        coefficients gathered from their arrays, the constants packed by the caller) and
        factor them, cell by cell; a failure is kept for :meth:`factor` to raise (this runs
        inside the Jacobian assembly). A condensation that needs wider compact arrays
        (:meth:`_widen`) is repeated in them."""
        self.factored = False
        self.D[:] = 0.0
        rc = self.lib.lib.fxrod_chain_condense_kernels(*self._fused_args)
        if rc > 0:
            self._widen()
            self.factor_jacobian(fast_jacobian)
            return
        ne = self.perm.shape[1]
        if rc < 0 and self._retain(self._cellbuf[1][:ne * ne].reshape(ne, ne)):
            self.factor_jacobian(fast_jacobian)   # the saddle-point variant
            return
        self._fused_error = None
        try:
            self._factor_vertices(rc)
            err = self._check_vertex_system()
            if not np.isfinite(err) or err > MAX_BACKWARD_ERROR:
                raise RuntimeError(f"chain solver: backward error {err:.1e} of its check "
                                   "solve")
        except RuntimeError as err:
            self._fused_error = str(err)

    def _check_vertex_system(self) -> float:
        """Backward error of a solve of the factored vertex system with a fixed random
        right-hand side (:meth:`vertex_error` of it; the element interiors are LUs with
        pivoting and a growth bound, so the vertex sweep without pivoting across blocks is
        what this checks)."""
        np.copyto(self.rB0, self._probe)
        np.copyto(self.rB, self._probe)   # the solve's work array
        D, L, U, piv, rB = self._ptrs
        self.lib.lib.fxrod_btri_solve(*self._btri, D, piv, L, U, rB)
        return self._btri_error(self.rB, rB)

    def factor(self, elem: np.ndarray) -> None:
        """Factor the matrix assembled from the element matrices ``elem`` (n_cells, nd,
        nd), in DOLFINx's cell numbering, Dirichlet rows and columns zero (when ``elem``
        is the attached Jacobian's, see :meth:`attach`: report its last factorisation).

        Raises
        ------
        RuntimeError
            A (numerically) singular interior block or vertex pivot block.
        """
        if self.attached is not None and elem is self.attached.elem:
            if self._fused_error is not None:
                raise RuntimeError(self._fused_error)
            return
        nd, ne = self.dofs.shape[1], self.perm.shape[1]
        if elem.shape != (self.perm.shape[0], nd, nd) \
                or not elem.flags.c_contiguous or elem.dtype != np.float64:
            raise RuntimeError("chain solver: element matrices of the wrong shape or layout")
        self.factored = False
        self.D[:] = 0.0
        p, lib = self._p, self.lib.lib
        rc = lib.fxrod_chain_condense(
            self.perm.shape[0], self.ni, self.nv, nd, ne, self.n_local,
            p(self.cells, "int32_t*"), p(self.lpos, "int32_t*"), p(self.perm, "int32_t*"),
            p(self.pad, "int8_t*"), p(elem, "double*"), p(self.bc_interior, "int8_t*"),
            MAX_GROWTH, p(self.LUI, "double*"), p(self.pivI, "int*"), p(self.X, "double*"),
            p(self.ABI, "double*"), p(self.act, "int8_t*"), *self._ptrs[:3], self._lay_ptr,
            p(self.work, "double*"))
        if rc > 0:
            self._widen()
            self.factor(elem)
            return
        if rc < 0 and self._retain(self.work.reshape(ne, ne)):
            self.factor(elem)   # the saddle-point variant
            return
        self._factor_vertices(rc)

    def _factor_vertices(self, rc: int) -> None:
        """After the condensation (return code ``rc``): unit diagonal at the Dirichlet
        vertex dofs, keep the vertex system, block-tridiagonal factorisation."""
        if rc != 0:
            raise RuntimeError(f"chain solver: element {-1 - rc} has a (numerically) singular "
                               "interior block (zero-compliance stresses?)")
        k, i = self._bc_at
        self.D[k, i, i] = 1.0
        np.copyto(self.S_D, self.D)
        np.copyto(self.S_U, self.U)
        D, L, U, piv, _ = self._ptrs
        rc = self.lib.lib.fxrod_btri_factor(*self._btri, D, L, U, piv)
        if rc != 0 or not np.isfinite(self.D.sum()):  # a sum: no temporary array
            raise RuntimeError(f"chain solver: singular vertex pivot block {-1 - rc}")
        self.factored = True

    def vertex_error(self, x: np.ndarray) -> float:
        """Backward error ``|S x_B - r_B|_inf / (|S|_inf |x_B|_inf + |r_B|_inf)`` of the
        vertex system (Schur complement ``S``, block tridiagonal) in the last
        :meth:`solve`, whose solution was ``x``. It checks the block elimination without
        pivoting across blocks; the element interiors are LUs with partial pivoting and a
        growth bound (``MAX_GROWTH``). Reads ~3 blocks of 18 x 18 per vertex instead of
        every element matrix."""
        vd = self.vertex_dofs
        xB = np.ascontiguousarray(np.where(vd >= 0, x[vd], 0.0))
        return self._btri_error(xB, self._p(xB, "double*"))

    def _btri_error(self, xB: np.ndarray, xB_ptr) -> float:
        """Backward error of ``xB`` (m, nv; ``xB_ptr`` its pointer) in the vertex system
        with right-hand side :attr:`rB0`."""
        err = self._err
        self.lib.lib.fxrod_btri_residual(*self._residual_args, xB_ptr, self._rB0_ptr,
                                         self._err_ptr)
        scale = err[1] * np.max(np.abs(xB)) + np.max(np.abs(self.rB0))
        return float(err[0] / scale)

    def backward_error(self, elem: np.ndarray, b: np.ndarray, x: np.ndarray) -> float:
        """``|A x - b|_inf / (|A|_inf |x|_inf + |b|_inf)`` for the matrix assembled from the
        element matrices ``elem`` (as :meth:`factor`; ``|A|_inf`` bounded above by the sum
        of the elements' row sums, at most twice the assembled one in a vertex row), ``x``
        the last :meth:`solve` of ``b``. For the attached Jacobian's ``elem``
        (:meth:`attach`): :meth:`vertex_error`."""
        if self.attached is not None and elem is self.attached.elem:
            return self.vertex_error(x)
        y, rowabs = np.empty_like(b), np.empty_like(b)
        p = self._p
        self.lib.lib.fxrod_elem_matvec(
            self.dofs.shape[0], self.dofs.shape[1], p(self.dofs, "int32_t*"),
            p(elem, "double*"), p(self.is_bc, "int8_t*"), b.size, p(x, "double*"),
            p(y, "double*"), p(rowabs, "double*"))
        scale = np.max(rowabs) * np.max(np.abs(x)) + np.max(np.abs(b))
        return float(np.max(np.abs(y - b)) / scale)

    def solve(self, b: np.ndarray, out: np.ndarray) -> None:
        """``out = A^-1 b`` (contiguous float64 arrays, global dof numbering) with the
        factors of :meth:`factor`."""
        b_in, b_ptr, out_in, out_ptr = self._io
        if b is not b_in or out is not out_in:   # new arrays: cast once, keep them alive
            b_ptr, out_ptr = self._p(b, "double*"), self._p(out, "double*")
            self._io = (b, b_ptr, out, out_ptr)
        self.lib.lib.fxrod_chain_solve(*self._solve_args, b_ptr, out_ptr, self._ptrs[4],
                                       self._rB0_ptr)


    def solve_transpose(self, b: np.ndarray, out: np.ndarray) -> None:
        """``out = A^-T b`` (contiguous float64 arrays, global dof numbering; ``out`` may be
        ``b``) with the factors of :meth:`factor`: the adjoint's systems,
        ``S^T x_B = b_B - X^T b_I`` and ``x_I = A_II^-T (b_I - A_BI^T x_B)``, the transposed
        LUs of the interior blocks and of the block-tridiagonal vertex system."""
        p = self._p
        a = self._solve_args
        self.lib.lib.fxrod_chain_solve_t(*a, p(b, "double*"), p(out, "double*"),
                                         self._ptrs[4])


class ChainPC:
    """PETSc ``python`` preconditioner context that solves exactly with a
    :class:`ChainSolver` (``ksp_type preonly``), factored from the element matrices of a
    :class:`fxrod.native.assembly.KernelJacobian` whenever the Jacobian changes.

    If the chain solver cannot be used (``chain`` None) or meets a singular block (e.g. a
    diverging Newton iterate), it solves with MUMPS LU on the assembled matrix from then on
    (``icntl``: its ICNTL values), with a warning unless ``quiet`` (the ``"auto"`` linear
    solver); :attr:`reason` says why.
    """

    def __init__(self, chain: ChainSolver | None, fast_jacobian, icntl: dict[int, int],
                 quiet: bool = False, matrix=None) -> None:
        self.chain = chain
        self.fast_jacobian = fast_jacobian
        self.icntl = icntl
        self.quiet = quiet
        #: ``matrix()``: the assembled Jacobian for MUMPS (under MPI), or None: the fast
        #: Jacobian's CSR matrix
        self.matrix = matrix
        self.mumps: mumps.DirectSolver | None = None
        self.reason = None if chain is not None else "not applicable"
        self.out = None
        self.probe = None

    def setUp(self, pc) -> None:  # noqa: N802  (petsc4py's name)
        if self.reason is None:
            try:
                self.chain.factor(self.fast_jacobian.elem)
                self._check()
                return
            except RuntimeError as err:
                import warnings

                self.chain.detach()
                self.reason = str(err)
                if not self.quiet:
                    warnings.warn(f"fxrod: {err}; using MUMPS", RuntimeWarning, stacklevel=2)
        fj = self.fast_jacobian
        if self.matrix is not None:
            A = self.matrix()
        else:
            if fj is not None and not fj.csr:
                fj.csr = True  # MUMPS needs the assembled matrix from now on
                fj.assemble(constants=False)
            # the CSR matrix (the operator may be one that only multiplies by it)
            A = fj.matrix() if fj is not None else pc.getOperators()[0]
        if self.mumps is None:
            self.mumps = mumps.DirectSolver(A.getComm(), self.icntl, scaled=False)
        self.mumps.factor(A)

    def _check(self) -> None:
        """Solve with a fixed random right-hand side and check the backward error (on the
        element matrices: the CSR matrix need not be assembled; with the chain solver
        attached to the Jacobian, its factorisation has checked the vertex system)."""
        n = self.chain.n_owned
        if self.out is None:
            self.out = np.zeros(n)
        if self.chain.attached is not None:
            return
        if self.probe is None:
            self.probe = np.random.default_rng(22).standard_normal(n)
        self.chain.solve(self.probe, self.out)
        err = self.chain.backward_error(self.fast_jacobian.elem, self.probe, self.out)
        if not np.isfinite(err) or err > MAX_BACKWARD_ERROR:
            raise RuntimeError(f"chain solver: backward error {err:.1e} of its check solve")

    def apply(self, pc, x, y) -> None:
        if self.reason is not None:
            self.mumps.solve(x, y)
            return
        self.chain.solve(x.getArray(readonly=True), self.out)
        y.setArray(self.out)

    def destroy(self, pc) -> None:
        if self.mumps is not None:
            self.mumps.destroy()
            self.mumps = None
