"""The chain solver (issue 22): the linear Newton systems of open rods by static
condensation of each element's interior unknowns and a block-tridiagonal solve of the
vertex unknowns.

On the mixed P2/DG1/nodal space every element couples to its neighbours only through its
two vertices (12 position/director and 6 multiplier unknowns each, ``nv = 18``); its
``ni = 30`` interior unknowns (mid-node q and multipliers, the DG1 stresses) appear in no
other element. With the element matrices ``A_e`` (from
:class:`fxrod.fastassembly.FastJacobian`, Dirichlet rows and columns zero) ordered
``[interior | left vertex | right vertex]``::

    X_e = A_II^-1 [A_IB | I]                       (batched LU with partial pivoting)
    S_e = A_BB - A_BI A_II^-1 A_IB                 (element Schur complements)

the vertex system ``sum_e S_e`` is block tridiagonal with 18 x 18 blocks and is factored by
block Gaussian elimination (block Thomas algorithm, partial pivoting inside each diagonal
block) in a small C loop; a solve is the forward/backward block sweep and the interior
back-substitution ``x_I = A_II^-1 (r_I - A_IB x_B)``. Cost per element and factorisation:
about ``2/3 ni^3 + 2 ni^2 (2 nv + ni) + 2 (2 nv)^2 ni`` ~ 1.5e5 flops for the condensation
and ``~ 14/3 nv^3`` ~ 2.7e4 for the vertex sweep; a solve ~ ``4 ni (ni + 2 nv) + 8 nv^2``
~ 8e3 flops. No ordering, no symbolic phase.

Applicable to disjoint open chains of cells (every vertex in one or two cells, no loop:
one rod, or a :class:`fxrod.structure.Structure` of rods without joints, e.g. an
:class:`fxrod.ensemble.Ensemble`) whose every unknown is a vertex or a cell-interior
unknown of the mixed space (:meth:`ChainSolver.applicable`). The vertices are numbered
chain after chain, so the vertex system stays block tridiagonal with zero blocks between
the chains; the block elimination does not pivot across blocks, so a
singular diagonal block raises ``RuntimeError`` (the Newton solver reports a failed linear
solve).
"""

from __future__ import annotations

import numpy as np

from fxrod.fastassembly import build_helper

_C_SOURCE = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>

/* In-place LU with partial pivoting of the n x n row-major A; -1 on a zero pivot. */
static int lu(int n, double* A, int* piv)
{
    for (int k = 0; k < n; ++k) {
        int p = k;
        double big = fabs(A[k * n + k]);
        for (int i = k + 1; i < n; ++i)
            if (fabs(A[i * n + k]) > big) { big = fabs(A[i * n + k]); p = i; }
        piv[k] = p;
        if (big == 0.0) return -1;
        if (p != k)
            for (int j = 0; j < n; ++j) {
                double t = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = t;
            }
        const double inv = 1.0 / A[k * n + k];
        for (int i = k + 1; i < n; ++i) {
            const double l = A[i * n + k] * inv;
            A[i * n + k] = l;
            if (l != 0.0)
                for (int j = k + 1; j < n; ++j) A[i * n + j] -= l * A[k * n + j];
        }
    }
    return 0;
}

/* Solve LU X = B in place for the n x m row-major B. */
static void lu_solve(int n, const double* LU, const int* piv, double* B, int m)
{
    for (int k = 0; k < n; ++k)  /* the row interchanges first (LAPACK's convention) */
        if (piv[k] != k)
            for (int j = 0; j < m; ++j) {
                double t = B[k * m + j]; B[k * m + j] = B[piv[k] * m + j]; B[piv[k] * m + j] = t;
            }
    for (int k = 0; k < n; ++k) {
        for (int i = k + 1; i < n; ++i) {
            const double l = LU[i * n + k];
            if (l != 0.0)
                for (int j = 0; j < m; ++j) B[i * m + j] -= l * B[k * m + j];
        }
    }
    for (int k = n - 1; k >= 0; --k) {  /* row-oriented back substitution */
        const double inv = 1.0 / LU[k * n + k];
        double* Bk = B + (size_t)k * m;
        for (int j = 0; j < m; ++j) Bk[j] *= inv;
        for (int i = 0; i < k; ++i) {
            const double u = LU[i * n + k];
            if (u != 0.0)
                for (int j = 0; j < m; ++j) B[(size_t)i * m + j] -= u * Bk[j];
        }
    }
}

/* Block Thomas factorisation of the block-tridiagonal matrix with diagonal blocks D[k],
   sub-diagonal blocks L[k] = A(k+1, k) and super-diagonal blocks U[k] = A(k, k+1)
   (nb x nb each, m diagonal blocks). D[k] becomes the LU of the k-th pivot block,
   U[k] becomes G[k] = pivot_k^-1 U[k]. Returns -1 - k on a singular pivot block k. */
int fxrod_btri_factor(int m, int nb, double* D, const double* L, double* U, int* piv)
{
    const size_t bb = (size_t)nb * nb;
    for (int k = 0; k < m; ++k) {
        double* Dk = D + k * bb;
        if (k > 0) {  /* D[k] -= L[k-1] G[k-1] */
            const double* Lk = L + (k - 1) * bb;
            const double* G = U + (k - 1) * bb;
            for (int i = 0; i < nb; ++i)
                for (int l = 0; l < nb; ++l) {
                    const double a = Lk[i * nb + l];
                    if (a != 0.0)
                        for (int j = 0; j < nb; ++j) Dk[i * nb + j] -= a * G[l * nb + j];
                }
        }
        if (lu(nb, Dk, piv + k * nb) != 0) return -1 - k;
        if (k < m - 1) lu_solve(nb, Dk, piv + k * nb, U + k * bb, nb);
    }
    return 0;
}

/* Solve with the factors of fxrod_btri_factor; r (m x nb) is overwritten by x. */
void fxrod_btri_solve(int m, int nb, const double* D, const int* piv, const double* L,
                      const double* G, double* r)
{
    const size_t bb = (size_t)nb * nb;
    for (int k = 0; k < m; ++k) {
        double* rk = r + (size_t)k * nb;
        if (k > 0) {
            const double* Lk = L + (k - 1) * bb;
            const double* z = r + (size_t)(k - 1) * nb;
            for (int i = 0; i < nb; ++i) {
                double s = 0.0;
                for (int j = 0; j < nb; ++j) s += Lk[i * nb + j] * z[j];
                rk[i] -= s;
            }
        }
        lu_solve(nb, D + k * bb, piv + (size_t)k * nb, rk, 1);
    }
    for (int k = m - 2; k >= 0; --k) {
        double* xk = r + (size_t)k * nb;
        const double* Gk = G + k * bb;
        const double* x1 = r + (size_t)(k + 1) * nb;
        for (int i = 0; i < nb; ++i) {
            double s = 0.0;
            for (int j = 0; j < nb; ++j) s += Gk[i * nb + j] * x1[j];
            xk[i] -= s;
        }
    }
}

/* Element condensation of the nc cells of the chains (cell k joins vertex positions lpos[k]
   and lpos[k] + 1; the positions of several chains follow each other, so the coupling
   blocks between one chain's last and the next one's first vertex stay zero):
   E(p, q) = elem[cells[k]][perm[k][p]][perm[k][q]] is the element matrix ordered
   [interior (ni) | left vertex (nv) | right vertex (nv)]. Per cell: LUI[k], the LU of A_II
   (unit diagonal on Dirichlet interior dofs); ABI[k] = A_BI (nb x ni, nb = 2 nv);
   act[k] (nb): 1 for the vertex columns that A_IB couples (the others, e.g. the vertex
   multipliers, have X = 0 and S = A_BB); X[k] = A_II^-1 A_IB (ni x nb, zero in the
   inactive columns). The Schur complements S = A_BB - A_BI X are summed into the diagonal
   blocks D, super-diagonal U[k] = S(l, r) and sub-diagonal L[k] = S(r, l). work: nd * nd
   doubles. Returns -1 - k if the interior block of cell k has a pivot below
   max|A_II| / max_growth. */
int fxrod_chain_condense(int nc, int ni, int nv, int nd, const int32_t* cells,
    const int32_t* lpos, const int32_t* perm, const double* elem, const int8_t* bc_int,
    double max_growth, double* LUI, int* pivI, double* X, double* ABI, int8_t* act,
    double* D, double* L, double* U, double* work)
{
    const int nb = 2 * nv;
    const size_t bb = (size_t)nv * nv;
    double* E = work;
    for (int k = 0; k < nc; ++k) {
        const int32_t* P = perm + (size_t)k * nd;
        const double* Ec = elem + (size_t)cells[k] * nd * nd;
        for (int p = 0; p < nd; ++p) {
            const double* row = Ec + (size_t)P[p] * nd;
            for (int q = 0; q < nd; ++q) E[p * nd + q] = row[P[q]];
        }
        double* A = LUI + (size_t)k * ni * ni;
        double* Xk = X + (size_t)k * ni * nb;
        double* Bk = ABI + (size_t)k * nb * ni;
        int8_t* ak = act + (size_t)k * nb;
        double amax = 0.0;
        for (int i = 0; i < ni; ++i)
            for (int j = 0; j < ni; ++j) {
                const double a = E[i * nd + j];
                A[i * ni + j] = a;
                if (fabs(a) > amax) amax = fabs(a);
            }
        for (int i = 0; i < ni; ++i)
            if (bc_int[(size_t)k * ni + i]) A[i * ni + i] = 1.0;
        if (amax == 0.0) amax = 1.0;
        if (lu(ni, A, pivI + (size_t)k * ni) != 0) return -1 - k;
        for (int i = 0; i < ni; ++i)
            if (fabs(A[i * ni + i]) * max_growth < amax) return -1 - k;
        int na = 0, cols[64];
        for (int b = 0; b < nb; ++b) {
            int nz = 0;
            for (int i = 0; i < ni && !nz; ++i) nz = E[i * nd + ni + b] != 0.0;
            ak[b] = (int8_t)nz;
            if (nz) cols[na++] = b;
        }
        /* compact right-hand sides A_IB(:, active), solved in place, then spread out */
        double Xc[64 * 64];
        for (int i = 0; i < ni; ++i)
            for (int c = 0; c < na; ++c) Xc[i * na + c] = E[i * nd + ni + cols[c]];
        if (na) lu_solve(ni, A, pivI + (size_t)k * ni, Xc, na);
        memset(Xk, 0, (size_t)ni * nb * sizeof(double));
        for (int i = 0; i < ni; ++i)
            for (int c = 0; c < na; ++c) Xk[i * nb + cols[c]] = Xc[i * na + c];
        double* Dl = D + lpos[k] * bb;
        double* Dr = D + (lpos[k] + 1) * bb;
        double* Uk = U + lpos[k] * bb;
        double* Lk = L + lpos[k] * bb;
        for (int a = 0; a < nb; ++a) {
            const double* Erow = E + (size_t)(ni + a) * nd;
            double s[64];
            for (int b = 0; b < nb; ++b) s[b] = Erow[ni + b];
            for (int i = 0; i < ni; ++i) {
                const double e = Erow[i];
                Bk[a * ni + i] = e;
                if (e != 0.0)
                    for (int c = 0; c < na; ++c) s[cols[c]] -= e * Xc[i * na + c];
            }
            if (a < nv)
                for (int b = 0; b < nv; ++b) { Dl[a * nv + b] += s[b]; Uk[a * nv + b] = s[nv + b]; }
            else
                for (int b = 0; b < nv; ++b) {
                    Lk[(a - nv) * nv + b] = s[b]; Dr[(a - nv) * nv + b] += s[nv + b];
                }
        }
    }
    return 0;
}

/* Solve with the factors of fxrod_chain_condense and fxrod_btri_factor: out = A^-1 b.
   idofs (nc x ni) and vdofs (m x nv) are the global interior and vertex dofs;
   yI (nc x ni) and rB (m x nv) are work arrays. */
void fxrod_chain_solve(int nc, int m, int ni, int nv, const int32_t* lpos,
    const double* LUI, const int* pivI,
    const double* X, const double* ABI, const int8_t* act, const double* D, const int* pivD,
    const double* L, const double* G, const int64_t* idofs, const int64_t* vdofs,
    const double* b, double* out, double* yI, double* rB)
{
    const int nb = 2 * nv;
    for (int k = 0; k < m * nv; ++k) rB[k] = b[vdofs[k]];
    for (int k = 0; k < nc; ++k) {
        double* y = yI + (size_t)k * ni;
        for (int i = 0; i < ni; ++i) y[i] = b[idofs[(size_t)k * ni + i]];
        lu_solve(ni, LUI + (size_t)k * ni * ni, pivI + (size_t)k * ni, y, 1);
        const double* Bk = ABI + (size_t)k * nb * ni;
        double* r = rB + (size_t)lpos[k] * nv;   /* left and right vertex: contiguous */
        for (int a = 0; a < nb; ++a) {
            double s = 0.0;
            for (int i = 0; i < ni; ++i) s += Bk[a * ni + i] * y[i];
            r[a] -= s;
        }
    }
    fxrod_btri_solve(m, nv, D, pivD, L, G, rB);
    for (int k = 0; k < m * nv; ++k) out[vdofs[k]] = rB[k];
    for (int k = 0; k < nc; ++k) {
        const double* y = yI + (size_t)k * ni;
        const double* Xk = X + (size_t)k * ni * nb;
        const double* xB = rB + (size_t)lpos[k] * nv;
        const int8_t* ak = act + (size_t)k * nb;
        int cols[64], na = 0;
        for (int j = 0; j < nb; ++j) if (ak[j]) cols[na++] = j;
        for (int i = 0; i < ni; ++i) {
            double s = y[i];
            for (int c = 0; c < na; ++c) s -= Xk[i * nb + cols[c]] * xB[cols[c]];
            out[idofs[(size_t)k * ni + i]] = s;
        }
    }
}

/* y = A x and rowabs = the sums of |A_e| over the element rows (an upper bound of the
   assembled matrix's absolute row sums) for the matrix assembled from the element
   matrices elem (n_cells x nd x nd on the dofs n_cells x nd) with a unit diagonal at the
   n dofs flagged in is_bc. */
void fxrod_elem_matvec(int n_cells, int nd, const int32_t* dofs, const double* elem,
    const int8_t* is_bc, int n, const double* x, double* y, double* rowabs)
{
    memset(y, 0, (size_t)n * sizeof(double));
    memset(rowabs, 0, (size_t)n * sizeof(double));
    for (int c = 0; c < n_cells; ++c) {
        const int32_t* cd = dofs + (size_t)c * nd;
        const double* E = elem + (size_t)c * nd * nd;
        for (int i = 0; i < nd; ++i) {
            double s = 0.0, a = 0.0;
            for (int j = 0; j < nd; ++j) {
                const double e = E[i * nd + j];
                s += e * x[cd[j]];
                a += fabs(e);
            }
            y[cd[i]] += s;
            rowabs[cd[i]] += a;
        }
    }
    for (int k = 0; k < n; ++k)
        if (is_bc[k]) { y[k] += x[k]; rowabs[k] += 1.0; }
}
"""

_CDEF = """
int fxrod_btri_factor(int m, int nb, double* D, const double* L, double* U, int* piv);
void fxrod_btri_solve(int m, int nb, const double* D, const int* piv, const double* L,
                      const double* G, double* r);
int fxrod_chain_condense(int nc, int ni, int nv, int nd, const int32_t* cells,
    const int32_t* lpos, const int32_t* perm, const double* elem, const int8_t* bc_int,
    double max_growth, double* LUI, int* pivI, double* X, double* ABI, int8_t* act,
    double* D, double* L, double* U, double* work);
void fxrod_chain_solve(int nc, int m, int ni, int nv, const int32_t* lpos,
    const double* LUI, const int* pivI,
    const double* X, const double* ABI, const int8_t* act, const double* D, const int* pivD,
    const double* L, const double* G, const int64_t* idofs, const int64_t* vdofs,
    const double* b, double* out, double* yI, double* rB);
void fxrod_elem_matvec(int n_cells, int nd, const int32_t* dofs, const double* elem,
    const int8_t* is_bc, int n, const double* x, double* y, double* rowabs);
"""

_LIB = None

#: Largest ratio of an element interior block's largest entry to a pivot of its LU before
#: the chain solver declares the block singular (zero-compliance stresses: 1e34 measured).
MAX_GROWTH = 1e13
#: Largest backward error ``|A x - b|_inf / (|A|_inf |x|_inf + |b|_inf)`` of the check solve
#: after each factorisation (the block elimination does not pivot across blocks, so a
#: nearly singular pivot block shows here); beyond it :class:`ChainPC` switches to MUMPS.
MAX_BACKWARD_ERROR = 1e-10


def _load_lib():
    global _LIB
    if _LIB is None:
        _LIB = build_helper("_fxrod_chain", _C_SOURCE, _CDEF, ("-O3",))
    return _LIB


def _chain_order(c2v: np.ndarray, n_vertices: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Vertices along the chains, one open chain after the other (each from its end of
    lower vertex number), and each cell's left vertex position (0 or 1 in ``c2v[c]``);
    None unless the cells form disjoint open chains covering every vertex."""
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
    for end in np.flatnonzero(degree == 1):
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


class ChainSolver:
    """Condensation and block-tridiagonal solve of the Jacobian of open rods.

    Parameters
    ----------
    V : dolfinx.fem.FunctionSpace
        The mixed space (block size 1) on disjoint open chains of interval cells (one rod,
        or a :class:`fxrod.structure.Structure` of rods without joints), serial.
    bc_dofs : numpy.ndarray
        Dirichlet dofs: their rows and columns of the element matrices are zero and their
        diagonal is one in the assembled matrix.

    Raises
    ------
    RuntimeError
        When :meth:`applicable` is false or the C helper cannot be built.
    """

    def __init__(self, V, bc_dofs: np.ndarray) -> None:
        layout = self._layout(V)
        if layout is None:
            raise RuntimeError("the chain solver needs disjoint open chains of cells whose "
                               "unknowns are vertex or cell-interior unknowns")
        perm, vertex_dofs, interior_dofs, cells, lpos = layout
        self.perm = np.ascontiguousarray(perm, dtype=np.int32)
        self.vertex_dofs = np.ascontiguousarray(vertex_dofs, dtype=np.int64)
        self.interior_dofs = np.ascontiguousarray(interior_dofs, dtype=np.int64)
        self.cells = np.ascontiguousarray(cells, dtype=np.int32)
        self.lpos = np.ascontiguousarray(lpos, dtype=np.int32)
        self.lib = _load_lib()
        self.ffi = self.lib.ffi
        n_cells = self.perm.shape[0]
        self.ni = self.interior_dofs.shape[1]
        self.nv = self.vertex_dofs.shape[1]
        self.m = self.vertex_dofs.shape[0]
        n = V.dofmap.index_map.size_local
        is_bc = np.zeros(n, dtype=bool)
        is_bc[np.asarray(bc_dofs, dtype=np.int64)] = True
        self.is_bc = is_bc.astype(np.int8)
        self.dofs = np.ascontiguousarray(V.dofmap.list, dtype=np.int32)
        self.bc_interior = np.ascontiguousarray(is_bc[self.interior_dofs], dtype=np.int8)
        self.bc_vertex = is_bc[self.vertex_dofs]              # (m, nv)
        nv, m, ni = self.nv, self.m, self.ni
        if 2 * nv > 64 or ni > 64:
            raise RuntimeError("chain solver: more than 32 unknowns per vertex or 64 "
                               "interior unknowns per element")
        self.LUI = np.zeros((n_cells, ni, ni))
        self.pivI = np.zeros((n_cells, ni), dtype=np.int32)
        self.X = np.zeros((n_cells, ni, 2 * nv))
        self.yI = np.zeros((n_cells, ni))
        self.ABI = np.zeros((n_cells, 2 * nv, ni))
        self.act = np.zeros((n_cells, 2 * nv), dtype=np.int8)
        self.work = np.zeros(self.perm.shape[1] ** 2)
        self.D = np.zeros((m, nv, nv))
        self.L = np.zeros((max(m - 1, 1), nv, nv))
        self.U = np.zeros((max(m - 1, 1), nv, nv))
        self.piv = np.zeros((m, nv), dtype=np.int32)
        self.rB = np.zeros((m, nv))
        p = self._p
        self._ptrs = (p(self.D, "double*"), p(self.L, "double*"), p(self.U, "double*"),
                      p(self.piv, "int*"), p(self.rB, "double*"))
        self.factored = False

    def _p(self, arr, ctype):
        return self.ffi.cast(ctype, arr.ctypes.data)

    @staticmethod
    def _layout(V):
        """(per-cell permutation to [interior | left vertex | right vertex], vertex dofs
        along the chains (m, nv), interior dofs, cells and their left vertex positions in
        chain order), or None."""
        msh = V.mesh
        if msh.comm.size != 1 or msh.topology.dim != 1 or V.dofmap.bs != 1:
            return None
        dofs = np.asarray(V.dofmap.list)
        layout = V.dofmap.dof_layout
        vloc = [np.asarray(layout.entity_closure_dofs(0, i)) for i in (0, 1)]
        iloc = np.asarray(layout.entity_dofs(1, 0))
        nd = dofs.shape[1]
        if sorted(np.concatenate([*vloc, iloc]).tolist()) != list(range(nd)):
            return None
        msh.topology.create_connectivity(1, 0)
        c2v = np.asarray(msh.topology.connectivity(1, 0).array).reshape(-1, 2)
        n_vertices = msh.topology.index_map(0).size_local
        chain = _chain_order(c2v, n_vertices)
        if chain is None:
            return None
        order, left = chain
        pos = np.empty(n_vertices, dtype=np.int64)
        pos[order] = np.arange(order.size)
        nv = vloc[0].size
        vertex_dofs = np.full((order.size, nv), -1, dtype=np.int64)
        perm = np.empty_like(dofs, dtype=np.int64)
        for c in range(dofs.shape[0]):
            lv, rv = (0, 1) if left[c] == 0 else (1, 0)
            perm[c] = np.concatenate([iloc, vloc[lv], vloc[rv]])
            for loc, k in ((lv, pos[c2v[c, lv]]), (rv, pos[c2v[c, rv]])):
                g = dofs[c, vloc[loc]]
                if vertex_dofs[k, 0] >= 0 and not np.array_equal(vertex_dofs[k], g):
                    return None
                vertex_dofs[k] = g
        # the cells in chain order: a cell joins the vertex positions first and first + 1
        first = np.minimum(pos[c2v[:, 0]], pos[c2v[:, 1]])
        cells = np.argsort(first)
        perm, interior = perm[cells], dofs[cells][:, iloc]
        every = np.concatenate([vertex_dofs.ravel(), interior.ravel()])
        if np.unique(every).size != every.size or every.size != V.dofmap.index_map.size_local:
            return None
        return (np.ascontiguousarray(perm), vertex_dofs, np.ascontiguousarray(interior),
                cells, first[cells])

    @classmethod
    def applicable(cls, V) -> bool:
        """Serial, disjoint open chains of cells, every unknown a vertex or cell-interior
        one."""
        return cls._layout(V) is not None

    def factor(self, elem: np.ndarray) -> None:
        """Factor the matrix assembled from the element matrices ``elem`` (n_cells, nd,
        nd), in DOLFINx's cell numbering, Dirichlet rows and columns zero.

        Raises
        ------
        RuntimeError
            A (numerically) singular interior block or vertex pivot block.
        """
        if elem.shape != (self.perm.shape[0], self.perm.shape[1], self.perm.shape[1]) \
                or not elem.flags.c_contiguous or elem.dtype != np.float64:
            raise RuntimeError("chain solver: element matrices of the wrong shape or layout")
        self.D[:] = 0.0
        p, lib = self._p, self.lib.lib
        rc = lib.fxrod_chain_condense(
            self.perm.shape[0], self.ni, self.nv, self.perm.shape[1],
            p(self.cells, "int32_t*"), p(self.lpos, "int32_t*"), p(self.perm, "int32_t*"),
            p(elem, "double*"), p(self.bc_interior, "int8_t*"),
            MAX_GROWTH, p(self.LUI, "double*"), p(self.pivI, "int*"), p(self.X, "double*"),
            p(self.ABI, "double*"), p(self.act, "int8_t*"), *self._ptrs[:3],
            p(self.work, "double*"))
        if rc != 0:
            raise RuntimeError(f"chain solver: element {-1 - rc} has a (numerically) singular "
                               "interior block (zero-compliance stresses?)")
        k, i = np.nonzero(self.bc_vertex)
        self.D[k, i, i] = 1.0
        rc = lib.fxrod_btri_factor(self.m, self.nv, *self._ptrs[:4])
        if rc != 0 or not np.all(np.isfinite(self.D)):
            raise RuntimeError(f"chain solver: singular vertex pivot block {-1 - rc}")
        p = self._p
        D, L, U, piv, _ = self._ptrs
        self._solve_args = (
            self.perm.shape[0], self.m, self.ni, self.nv, p(self.lpos, "int32_t*"),
            p(self.LUI, "double*"), p(self.pivI, "int*"),
            p(self.X, "double*"), p(self.ABI, "double*"), p(self.act, "int8_t*"), D, piv, L, U,
            p(self.interior_dofs, "int64_t*"), p(self.vertex_dofs, "int64_t*"))
        self._yI_ptr = p(self.yI, "double*")
        self.factored = True

    def backward_error(self, elem: np.ndarray, b: np.ndarray, x: np.ndarray) -> float:
        """``|A x - b|_inf / (|A|_inf |x|_inf + |b|_inf)`` for the matrix assembled from the
        element matrices ``elem`` (as :meth:`factor`; ``|A|_inf`` bounded above by the sum
        of the elements' row sums, at most twice the assembled one in a vertex row)."""
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
        p = self._p
        self.lib.lib.fxrod_chain_solve(*self._solve_args, p(b, "double*"), p(out, "double*"),
                                       self._yI_ptr, self._ptrs[4])


class ChainPC:
    """PETSc ``python`` preconditioner context that solves exactly with a
    :class:`ChainSolver` (``ksp_type preonly``), factored from the element matrices of a
    :class:`fxrod.fastassembly.FastJacobian` whenever the Jacobian changes.

    If the chain solver cannot be used (``chain`` None) or meets a singular block (e.g.
    zero-compliance stresses: the element interior blocks are singular), it warns once and
    solves with MUMPS LU on the assembled matrix from then on (``icntl``: its ICNTL values).
    """

    def __init__(self, chain: ChainSolver | None, fast_jacobian, icntl: dict[int, int]) -> None:
        self.chain = chain
        self.fast_jacobian = fast_jacobian
        self.icntl = icntl
        self.mumps_ksp = None
        self.reason = None if chain is not None else "not applicable"
        self.out = None

    def setUp(self, pc) -> None:  # noqa: N802  (petsc4py's name)
        if self.reason is None:
            try:
                self.chain.factor(self.fast_jacobian.elem)
                self._check()
                return
            except RuntimeError as err:
                import warnings

                self.reason = str(err)
                warnings.warn(f"fxrod: {err}; using MUMPS", RuntimeWarning, stacklevel=2)
        if self.fast_jacobian is not None and not self.fast_jacobian.csr:
            self.fast_jacobian.csr = True  # MUMPS needs the assembled matrix from now on
            self.fast_jacobian.assemble(constants=False)
        A, _ = pc.getOperators()
        if self.mumps_ksp is None:
            from petsc4py import PETSc

            ksp = PETSc.KSP().create(A.getComm())
            ksp.setType("preonly")
            inner = ksp.getPC()
            inner.setType("lu")
            inner.setFactorSolverType("mumps")
            ksp.setOperators(A, A)
            inner.setFactorSetUpSolverType()
            for k, v in self.icntl.items():
                inner.getFactorMatrix().setMumpsIcntl(k, v)
            self.mumps_ksp = ksp
        self.mumps_ksp.setOperators(A, A)
        self.mumps_ksp.setUp()

    def _check(self) -> None:
        """Solve with a fixed random right-hand side and check the backward error (on the
        element matrices: the CSR matrix need not be assembled)."""
        if self.out is None:
            n = self.chain.is_bc.size
            self.out = np.zeros(n)
            self.probe = np.random.default_rng(22).standard_normal(n)
        self.chain.solve(self.probe, self.out)
        err = self.chain.backward_error(self.fast_jacobian.elem, self.probe, self.out)
        if not np.isfinite(err) or err > MAX_BACKWARD_ERROR:
            raise RuntimeError(f"chain solver: backward error {err:.1e} of its check solve")

    def apply(self, pc, x, y) -> None:
        if self.reason is not None:
            self.mumps_ksp.solve(x, y)
            reason = self.mumps_ksp.getConvergedReason()
            if reason < 0:
                raise RuntimeError(f"MUMPS failed (KSP reason {reason})")
            return
        self.chain.solve(x.getArray(readonly=True), self.out)
        y.setArray(self.out)

    def destroy(self, pc) -> None:
        if self.mumps_ksp is not None:
            self.mumps_ksp.destroy()
            self.mumps_ksp = None
