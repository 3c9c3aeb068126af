#include <math.h>
#include <stdint.h>
#include <string.h>

/* In-place LU with partial pivoting of the n x n row-major A, the pivots of the first ns
   columns chosen among the first ns rows only (a block eliminated first without rows from
   outside it: its sparsity stays); -1 on a zero pivot. */
static int lu(int n, double* A, int* piv, int ns)
{
    for (int k = 0; k < n; ++k) {
        int p = k;
        double big = fabs(A[k * n + k]);
        const int rows = k < ns ? ns : n;
        for (int i = k + 1; i < rows; ++i)
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

/* sum_{k in [lo, hi)} a[k] b[k] with four partial sums (instruction-level parallelism;
   a fixed order, so the result is reproducible). */
static double dot4(const double* a, const double* b, int lo, int hi)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = lo;
    for (; k + 4 <= hi; k += 4) {
        s0 += a[k] * b[k]; s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2]; s3 += a[k + 3] * b[k + 3];
    }
    for (; k < hi; ++k) s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

/* lu_solve for one right-hand side b, by rows: contiguous dot products without branches
   (the solves read the factors once and are bound by memory traffic). */
static void lu_solve1(int n, const double* LU, const int* piv, double* b)
{
    for (int k = 0; k < n; ++k)
        if (piv[k] != k) { double t = b[k]; b[k] = b[piv[k]]; b[piv[k]] = t; }
    for (int i = 1; i < n; ++i) b[i] -= dot4(LU + (size_t)i * n, b, 0, i);
    for (int i = n - 1; i >= 0; --i) {
        const double* Ui = LU + (size_t)i * n;
        b[i] = (b[i] - dot4(Ui, b, i + 1, n)) * (1.0 / Ui[i]);
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
        if (lu(nb, Dk, piv + k * nb, 0) != 0) return -1 - k;
        if (k < m - 1) {  /* G = pivot^-1 U on U's nonzero columns (e.g. no multipliers) */
            double* Uk = U + k * bb;
            double T[64 * 64];
            int nc = 0, cols[64];
            for (int j = 0; j < nb; ++j) {
                int nz = 0;
                for (int i = 0; i < nb && !nz; ++i) nz = Uk[i * nb + j] != 0.0;
                if (nz) cols[nc++] = j;
            }
            for (int i = 0; i < nb; ++i)
                for (int c = 0; c < nc; ++c) T[i * nc + c] = Uk[i * nb + cols[c]];
            if (nc) lu_solve(nb, Dk, piv + k * nb, T, nc);
            for (int i = 0; i < nb; ++i)
                for (int c = 0; c < nc; ++c) Uk[i * nb + cols[c]] = T[i * nc + c];
        }
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
            for (int i = 0; i < nb; ++i) rk[i] -= dot4(Lk + (size_t)i * nb, z, 0, nb);
        }
        lu_solve1(nb, D + k * bb, piv + (size_t)k * nb, rk);
    }
    for (int k = m - 2; k >= 0; --k) {
        double* xk = r + (size_t)k * nb;
        const double* Gk = G + k * bb;
        const double* x1 = r + (size_t)(k + 1) * nb;
        for (int i = 0; i < nb; ++i) xk[i] -= dot4(Gk + (size_t)i * nb, x1, 0, nb);
    }
}

/* A_II of E (unit diagonal at the Dirichlet interior dofs bc) into A and its LU (see lu,
   first ns columns pivoted within the first ns rows); -1 if a pivot is below the largest
   entry of its block (the first ns rows and columns, or the whole A_II) / max_growth. */
static int interior_lu(int ni, int nd, int ns, const double* E, const int8_t* bc,
                       double max_growth, double* A, int* piv)
{
    double amax = 0.0, smax = 0.0;
    for (int i = 0; i < ni; ++i)
        for (int j = 0; j < ni; ++j) {
            const double a = E[i * nd + j];
            A[i * ni + j] = a;
            if (fabs(a) > amax) amax = fabs(a);
            if (i < ns && j < ns && fabs(a) > smax) smax = fabs(a);
        }
    for (int i = 0; i < ni; ++i)
        if (bc[i]) A[i * ni + i] = 1.0;
    if (amax == 0.0) amax = 1.0;
    if (lu(ni, A, piv, ns) != 0) return -1;
    for (int i = 0; i < ni; ++i)
        if (fabs(A[i * ni + i]) * max_growth < (i < ns ? smax : amax)) return -1;
    return 0;
}

/* Condensation of one element matrix E (nd x nd, ordered [interior (ni) | left vertex
   (nv) | right vertex (nv)], Dirichlet rows and columns zero) of chain position k (see
   fxrod_chain_condense): the interior LU eliminates the first ns interior unknowns (the
   cell-local fields, e.g. the stresses) first, among themselves, and if that meets a small
   pivot, all of them with partial pivoting. Returns -1 on a (numerically) singular
   interior block. */
static int condense_cell(int k, int ni, int nv, int nd, int ns, const double* E, int lp,
    const int8_t* bc_int, double max_growth, double* LUI, int* pivI, double* X, double* ABI,
    int8_t* act, double* D, double* L, double* U)
{
    const int nb = 2 * nv;
    const size_t bb = (size_t)nv * nv;
    double* A = LUI + (size_t)k * ni * ni;
    double* Xk = X + (size_t)k * ni * nb;
    double* Bk = ABI + (size_t)k * nb * ni;
    int8_t* ak = act + (size_t)k * nb;
    const int8_t* bc = bc_int + (size_t)k * ni;
    int* piv = pivI + (size_t)k * ni;
    if ((ns == 0 || interior_lu(ni, nd, ns, E, bc, max_growth, A, piv) != 0)
        && interior_lu(ni, nd, 0, E, bc, max_growth, A, piv) != 0)
        return -1;
    int na = 0, cols[64];
    for (int b = 0; b < nb; ++b) {
        int nz = 0, nzr = 0;
        for (int i = 0; i < ni && !nz; ++i) nz = E[i * nd + ni + b] != 0.0;
        for (int i = 0; i < ni && !nzr; ++i) nzr = E[(ni + b) * nd + i] != 0.0;
        ak[b] = (int8_t)(nz | (nzr << 1));
        if (nz) cols[na++] = b;
    }
    /* compact right-hand sides A_IB(:, active), solved in place: X (ni x na) */
    for (int i = 0; i < ni; ++i)
        for (int c = 0; c < na; ++c) Xk[i * na + c] = E[i * nd + ni + cols[c]];
    if (na) lu_solve(ni, A, piv, Xk, na);
    double* Dl = D + lp * bb;
    double* Dr = D + (lp + 1) * bb;
    double* Uk = U + lp * bb;
    double* Lk = L + lp * bb;
    for (int a = 0; a < nb; ++a) {
        const double* Erow = E + (size_t)(ni + a) * nd;
        double s[64], sc[64];
        for (int b = 0; b < nb; ++b) s[b] = Erow[ni + b];
        if (ak[a] & 2) {  /* A_BI row a (nonzero rows only, compact) */
            for (int c = 0; c < na; ++c) sc[c] = 0.0;
            for (int i = 0; i < ni; ++i) {
                const double e = Erow[i];
                Bk[i] = e;
                if (e != 0.0)
                    for (int c = 0; c < na; ++c) sc[c] += e * Xk[i * na + c];
            }
            Bk += ni;
            for (int c = 0; c < na; ++c) s[cols[c]] -= sc[c];
        }
        if (a < nv)
            for (int b = 0; b < nv; ++b) { Dl[a * nv + b] += s[b]; Uk[a * nv + b] = s[nv + b]; }
        else
            for (int b = 0; b < nv; ++b) {
                Lk[(a - nv) * nv + b] = s[b]; Dr[(a - nv) * nv + b] += s[nv + b];
            }
    }
    return 0;
}

/* Element condensation of the nc cells of the chains (cell k joins vertex positions lpos[k]
   and lpos[k] + 1; the positions of several chains follow each other, so the coupling
   blocks between one chain's last and the next one's first vertex stay zero):
   E(p, q) = elem[cells[k]][perm[k][p]][perm[k][q]] is the element matrix ordered
   [interior (ni) | left vertex (nv) | right vertex (nv)]. Per cell: LUI[k], the LU of A_II
   (unit diagonal on Dirichlet interior dofs); act[k] (nb, nb = 2 nv): bit 1 for the
   vertex columns that A_IB couples (the active ones; the others, e.g. the vertex
   multipliers, have X = 0 and S = A_BB), bit 2 for the nonzero rows of A_BI;
   X[k] = A_II^-1 A_IB(:, active) (ni x na, compact, in space for ni x nb); ABI[k] the
   nonzero rows of A_BI (compact, in space for nb x ni). The Schur complements
   S = A_BB - A_BI X are summed into the diagonal blocks D, super-diagonal
   U[k] = S(l, r) and sub-diagonal L[k] = S(r, l). work: nd * nd doubles. Returns
   -1 - k if the interior block of cell k is (numerically) singular (condense_cell). */
int fxrod_chain_condense(int nc, int ni, int nv, int nd, int ne, int ns,
    const int32_t* cells, const int32_t* lpos, const int32_t* perm, const int8_t* pad,
    const double* elem, const int8_t* bc_int, double max_growth, double* LUI, int* pivI,
    double* X, double* ABI, int8_t* act, double* D, double* L, double* U, double* work)
{
    double* E = work;
    for (int k = 0; k < nc; ++k) {
        const int32_t* P = perm + (size_t)k * ne;
        const int8_t* z = pad + (size_t)k * ne;
        const double* Ec = elem + (size_t)cells[k] * nd * nd;
        for (int p = 0; p < ne; ++p) {
            const double* row = Ec + (size_t)P[p] * nd;
            for (int q = 0; q < ne; ++q) E[p * ne + q] = z[p] | z[q] ? 0.0 : row[P[q]];
        }
        if (condense_cell(k, ni, nv, ne, ns, E, lpos[k], bc_int, max_growth, LUI, pivI, X, ABI,
                          act, D, L, U) != 0)
            return -1 - k;
    }
    return 0;
}

typedef void (*fxrod_kernel_t)(double*, const double*, const double*, const double*,
                               const int*, const uint8_t*, void*);

/* fxrod_chain_condense with the element matrices computed cell by cell (no array of all
   element matrices): the Jacobian contributions of chain cell k are the entities
   ent_e[j] of the integrals ent_i[j], j in [ent_ptr[k], ent_ptr[k + 1]) (integral order,
   as the assembly adds them), each tabulated by kernels[i] (coefficients coeffs[i] with
   stride cstride[i], local facet indices locals[i] or NULL), accumulating (as FFCx
   kernels do) into the cell's matrix Ec (nd x nd, DOLFINx cell dof order), whose rows and
   columns of Dirichlet dofs (bc_perm[k][p] for the permuted dof p, also set at the
   padding) stay zero; E (ne x ne) is Ec permuted to [interior | left | right]. */
int fxrod_chain_condense_kernels(int nc, int ni, int nv, int nd, int ne, int ns,
    const int32_t* lpos,
    const int32_t* perm, const int8_t* bc_perm, const int8_t* bc_int,
    const int32_t* ent_ptr, const int32_t* ent_i, const int32_t* ent_e,
    const uintptr_t* kernels, const uintptr_t* coeffs, const int32_t* cstride,
    const uintptr_t* locals, const double* consts, const double* x, const int32_t* gdofs,
    int ngd, const int32_t* cells, double max_growth, double* LUI, int* pivI, double* X,
    double* ABI, int8_t* act, double* D, double* L, double* U, double* Ec,
    double* E, double* coords)
{
    for (int k = 0; k < nc; ++k) {
        const int c = cells[k];
        for (int g = 0; g < ngd; ++g)
            memcpy(coords + 3 * g, x + 3 * (size_t)gdofs[(size_t)c * ngd + g],
                   3 * sizeof(double));
        memset(Ec, 0, (size_t)nd * nd * sizeof(double));
        for (int j = ent_ptr[k]; j < ent_ptr[k + 1]; ++j) {  /* the kernels accumulate */
            const int i = ent_i[j], e = ent_e[j];
            const int32_t* loc = (const int32_t*)locals[i];
            ((fxrod_kernel_t)kernels[i])(Ec, (const double*)coeffs[i] + (size_t)e * cstride[i],
                                         consts, coords, loc ? loc + e : NULL, NULL, NULL);
        }
        const int32_t* P = perm + (size_t)k * ne;
        const int8_t* bp = bc_perm + (size_t)k * ne;
        for (int p = 0; p < ne; ++p) {
            const double* row = Ec + (size_t)P[p] * nd;
            double* Ep = E + (size_t)p * ne;
            if (bp[p]) { memset(Ep, 0, (size_t)ne * sizeof(double)); continue; }
            for (int q = 0; q < ne; ++q) Ep[q] = bp[q] ? 0.0 : row[P[q]];
        }
        if (condense_cell(k, ni, nv, ne, ns, E, lpos[k], bc_int, max_growth, LUI, pivI, X, ABI,
                          act, D, L, U) != 0)
            return -1 - k;
    }
    return 0;
}

/* Solve with the factors of fxrod_chain_condense and fxrod_btri_factor: out = A^-1 b.
   idofs (nc x ni) and vdofs (m x nv) are the global interior and vertex-block dofs
   (-1: padding, right-hand side 0, solution discarded);
   yI (nc x ni) and rB (m x nv) are work arrays; rB0 (m x nv) receives the right-hand side
   of the vertex system S x_B = rB0. */
void fxrod_chain_solve(int nc, int m, int ni, int nv, const int32_t* lpos,
    const double* LUI, const int* pivI,
    const double* X, const double* ABI, const int8_t* act, const double* D, const int* pivD,
    const double* L, const double* G, const int64_t* idofs, const int64_t* vdofs,
    const double* b, double* out, double* yI, double* rB, double* rB0)
{
    const int nb = 2 * nv;
    for (int k = 0; k < m * nv; ++k) rB[k] = vdofs[k] >= 0 ? b[vdofs[k]] : 0.0;
    for (int k = 0; k < nc; ++k) {
        double* y = yI + (size_t)k * ni;
        for (int i = 0; i < ni; ++i) y[i] = b[idofs[(size_t)k * ni + i]];
        lu_solve1(ni, LUI + (size_t)k * ni * ni, pivI + (size_t)k * ni, y);
        const double* Bk = ABI + (size_t)k * nb * ni;
        const int8_t* ak = act + (size_t)k * nb;
        double* r = rB + (size_t)lpos[k] * nv;   /* left and right vertex: contiguous */
        for (int a = 0; a < nb; ++a) {
            if (!(ak[a] & 2)) continue;
            r[a] -= dot4(Bk, y, 0, ni);
            Bk += ni;
        }
    }
    memcpy(rB0, rB, (size_t)m * nv * sizeof(double));
    fxrod_btri_solve(m, nv, D, pivD, L, G, rB);
    for (int k = 0; k < m * nv; ++k)
        if (vdofs[k] >= 0) out[vdofs[k]] = rB[k];
    for (int k = 0; k < nc; ++k) {
        const double* y = yI + (size_t)k * ni;
        const double* Xk = X + (size_t)k * ni * nb;
        const double* xB = rB + (size_t)lpos[k] * nv;
        const int8_t* ak = act + (size_t)k * nb;
        double xc[64];
        int na = 0;
        for (int j = 0; j < nb; ++j) if (ak[j] & 1) xc[na++] = xB[j];
        for (int i = 0; i < ni; ++i)
            out[idofs[(size_t)k * ni + i]] = y[i] - dot4(Xk + (size_t)i * na, xc, 0, na);
    }
}

/* err[0] = max |S x - r|, err[1] = max absolute row sum of S, for the block-tridiagonal S
   (diagonal blocks D, sub-diagonal L[k] = S(k+1, k), super-diagonal U[k] = S(k, k+1)). */
void fxrod_btri_residual(int m, int nb, const double* D, const double* L, const double* U,
                         const double* x, const double* r, double* err)
{
    const size_t bb = (size_t)nb * nb;
    double emax = 0.0, amax = 0.0;
    for (int k = 0; k < m; ++k)
        for (int i = 0; i < nb; ++i) {
            double s = -r[(size_t)k * nb + i], a = 0.0;
            const double* Dr = D + k * bb + (size_t)i * nb;
            for (int j = 0; j < nb; ++j) { s += Dr[j] * x[(size_t)k * nb + j]; a += fabs(Dr[j]); }
            if (k > 0) {
                const double* Lr = L + (k - 1) * bb + (size_t)i * nb;
                for (int j = 0; j < nb; ++j) {
                    s += Lr[j] * x[(size_t)(k - 1) * nb + j]; a += fabs(Lr[j]);
                }
            }
            if (k < m - 1) {
                const double* Ur = U + k * bb + (size_t)i * nb;
                for (int j = 0; j < nb; ++j) {
                    s += Ur[j] * x[(size_t)(k + 1) * nb + j]; a += fabs(Ur[j]);
                }
            }
            if (!(fabs(s) <= emax)) emax = fabs(s);  /* NaN propagates */
            if (a > amax) amax = a;
        }
    err[0] = emax;
    err[1] = amax;
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
