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

/* dst (nb x nb) = -A B, A (ar x ac, the rest of its nb x nb zero) times B (ac used rows
   of width bw: row l at B + l * bw, the columns from bw on zero). */
static void neg_product(int nb, int ar, int ac, const double* A, const double* B, int bw,
                        double* dst)
{
    memset(dst, 0, (size_t)nb * nb * sizeof(double));
    for (int i = 0; i < ar; ++i)
        for (int l = 0; l < ac; ++l) {
            const double a = A[i * ac + l];
            if (a != 0.0)
                for (int j = 0; j < bw; ++j) dst[i * nb + j] -= a * B[l * bw + j];
        }
}

/* The block Thomas elimination of a piece of a block-tridiagonal matrix (diagonal blocks
   D[k], sub-diagonal L[k] = A(k+1, k), super-diagonal U[k] = A(k, k+1), nb x nb each, m
   diagonal blocks) that keeps its last block row and column, and with first set its first
   too (a piece of a chain between two others: the other pieces' Schur complements add to
   the kept blocks). The coupling blocks are stored without their trailing zeros
   (fxrod_chain_condense): L[k] as its first lr rows and lc columns (lr x lc, the rest
   zero), U[k] as its first uw columns (nb x uw). The eliminated blocks k (0 <= k < m - 1,
   from 1 with first) become the LU of their pivot block in D[k] and G[k] = pivot_k^-1 U[k]
   in U[k] (the same nb x uw); D[m - 1] becomes its Schur complement. With first, the fill
   of the kept first block (the spike, nb x nb each) is W[k] = pivot_k^-1 A'(k, 0) and C[k]
   = A'(0, k) (A' the matrix as the elimination reaches block k); D[0] becomes its Schur
   complement and the kept blocks couple through C[m - 1] = S(0, m - 1) and W[m - 1] =
   S(m - 1, 0). Returns -1 - k on a singular pivot block k. */
int fxrod_btri_factor_piece(int m, int nb, int lr, int lc, int uw, double* D, const double* L,
                            double* U, int* piv, int first, double* W, double* C)
{
    const size_t bb = (size_t)nb * nb, lb = (size_t)lr * lc, ub = (size_t)nb * uw;
    const int s = first ? 1 : 0;
    if (first && m > 1) {  /* R_1 = L[0] and C_1 = U[0], expanded */
        memset(W + bb, 0, bb * sizeof(double));
        memset(C + bb, 0, bb * sizeof(double));
        for (int i = 0; i < lr; ++i)
            for (int j = 0; j < lc; ++j) W[bb + i * nb + j] = L[i * lc + j];
        for (int i = 0; i < nb; ++i)
            for (int j = 0; j < uw; ++j) C[bb + i * nb + j] = U[i * uw + j];
    }
    for (int k = s; k < m; ++k) {
        double* Dk = D + k * bb;
        if (k > s) {  /* D[k] -= L[k-1] G[k-1] */
            const double* Lk = L + (k - 1) * lb;
            const double* G = U + (k - 1) * ub;
            for (int i = 0; i < lr; ++i)
                for (int l = 0; l < lc; ++l) {
                    const double a = Lk[i * lc + l];
                    if (a != 0.0)
                        for (int j = 0; j < uw; ++j) Dk[i * nb + j] -= a * G[l * uw + j];
                }
        }
        if (k == m - 1) break;   /* kept */
        if (lu(nb, Dk, piv + k * nb, 0) != 0) return -1 - k;
        /* G = pivot^-1 U on U's nonzero columns (e.g. no multipliers) */
        double* Uk = U + k * ub;
        double T[64 * 64];
        int nc = 0, cols[64];
        for (int j = 0; j < uw; ++j) {
            int nz = 0;
            for (int i = 0; i < nb && !nz; ++i) nz = Uk[i * uw + j] != 0.0;
            if (nz) cols[nc++] = j;
        }
        for (int i = 0; i < nb; ++i)
            for (int c = 0; c < nc; ++c) T[i * nc + c] = Uk[i * uw + cols[c]];
        if (nc) lu_solve(nb, Dk, piv + k * nb, T, nc);
        for (int i = 0; i < nb; ++i)
            for (int c = 0; c < nc; ++c) Uk[i * uw + cols[c]] = T[i * nc + c];
        if (first) {  /* the spike: W[k] = pivot^-1 R_k, D[0] -= C_k W[k], then the fill */
            double* Wk = W + k * bb;
            const double* Ck = C + k * bb;
            lu_solve(nb, Dk, piv + k * nb, Wk, nb);
            for (int i = 0; i < nb; ++i)
                for (int l = 0; l < nb; ++l) {
                    const double a = Ck[i * nb + l];
                    if (a != 0.0)
                        for (int j = 0; j < nb; ++j) D[i * nb + j] -= a * Wk[l * nb + j];
                }
            neg_product(nb, lr, lc, L + k * lb, Wk, nb, W + (k + 1) * bb);
            neg_product(nb, nb, nb, Ck, Uk, uw, C + (k + 1) * bb);
        }
    }
    return 0;
}

/* The transposed solve A^T x = b with the LU of lu (P A = L U, so A^T = U^T L^T P): U^T
   forward and L^T backward by rows of the factors (row k of U and L is contiguous), then the
   row interchanges in reverse. */
static void lu_solve1_t(int n, const double* LU, const int* piv, double* b)
{
    for (int k = 0; k < n; ++k) {
        const double* Uk = LU + (size_t)k * n;
        const double z = b[k] / Uk[k];
        b[k] = z;
        for (int i = k + 1; i < n; ++i) b[i] -= Uk[i] * z;
    }
    for (int k = n - 1; k > 0; --k) {
        const double* Lk = LU + (size_t)k * n;
        const double w = b[k];
        for (int i = 0; i < k; ++i) b[i] -= Lk[i] * w;
    }
    for (int k = n - 1; k >= 0; --k)
        if (piv[k] != k) { double t = b[k]; b[k] = b[piv[k]]; b[piv[k]] = t; }
}

/* y[0..w) -= A^T x for the ar x w row-major A (row stride w) and x of length ar. */
static void sub_at(int ar, int w, const double* A, const double* x, double* y)
{
    for (int i = 0; i < ar; ++i) {
        const double xi = x[i];
        if (xi != 0.0)
            for (int j = 0; j < w; ++j) y[j] -= A[(size_t)i * w + j] * xi;
    }
}

/* Block Thomas factorisation of the block-tridiagonal matrix of fxrod_btri_factor_piece
   (no kept block: the last pivot block is factored too). Returns -1 - k on a singular
   pivot block k. */
int fxrod_btri_factor(int m, int nb, int lr, int lc, int uw, double* D, const double* L,
                      double* U, int* piv)
{
    const int rc = fxrod_btri_factor_piece(m, nb, lr, lc, uw, D, L, U, piv, 0, NULL, NULL);
    if (rc != 0) return rc;
    if (lu(nb, D + (size_t)(m - 1) * nb * nb, piv + (size_t)(m - 1) * nb, 0) != 0)
        return -m;
    return 0;
}

/* The forward sweep with the factors of fxrod_btri_factor_piece on r (m x nb): the
   eliminated blocks k receive z_k = pivot_k^-1 (r_k - L[k-1] z_{k-1}), the kept ones the
   right-hand side of their Schur complement. The rows of L beyond lr and the columns of L
   beyond lc are zero: left out of the dot products, whose four partial sums hold the same
   terms (lc and uw are multiples of 4 or nb: round_width), so the result is that of the
   full blocks to the bit. */
void fxrod_btri_forward(int m, int nb, int lr, int lc, const double* D, const int* piv,
                        const double* L, int first, const double* C, double* r)
{
    const size_t bb = (size_t)nb * nb, lb = (size_t)lr * lc;
    const int s = first ? 1 : 0;
    for (int k = s; k < m; ++k) {
        double* rk = r + (size_t)k * nb;
        if (k > s) {
            const double* Lk = L + (k - 1) * lb;
            const double* z = r + (size_t)(k - 1) * nb;
            for (int i = 0; i < lr; ++i) rk[i] -= dot4(Lk + (size_t)i * lc, z, 0, lc);
        }
        if (k == m - 1) break;
        lu_solve1(nb, D + k * bb, piv + (size_t)k * nb, rk);
        if (first) {
            const double* Ck = C + k * bb;
            for (int i = 0; i < nb; ++i) r[i] -= dot4(Ck + (size_t)i * nb, rk, 0, nb);
        }
    }
}

/* The back substitution with the factors of fxrod_btri_factor_piece: r holds the forward
   sweep's z at the eliminated blocks and the solution at the kept ones; it becomes the
   solution x_k = z_k - G[k] x_{k+1} (- W[k] x_0 with first). */
void fxrod_btri_back(int m, int nb, int uw, const double* G, int first, const double* W,
                     double* r)
{
    const size_t ub = (size_t)nb * uw, bb = (size_t)nb * nb;
    const int s = first ? 1 : 0;
    for (int k = m - 2; k >= s; --k) {
        double* xk = r + (size_t)k * nb;
        const double* Gk = G + k * ub;
        const double* x1 = r + (size_t)(k + 1) * nb;
        for (int i = 0; i < nb; ++i) xk[i] -= dot4(Gk + (size_t)i * uw, x1, 0, uw);
        if (first) {
            const double* Wk = W + k * bb;
            for (int i = 0; i < nb; ++i) xk[i] -= dot4(Wk + (size_t)i * nb, r, 0, nb);
        }
    }
}

/* Solve with the factors of fxrod_btri_factor; r (m x nb) is overwritten by x. */
void fxrod_btri_solve(int m, int nb, int lr, int lc, int uw, const double* D,
                      const int* piv, const double* L, const double* G, double* r)
{
    fxrod_btri_forward(m, nb, lr, lc, D, piv, L, 0, NULL, r);
    lu_solve1(nb, D + (size_t)(m - 1) * nb * nb, piv + (size_t)(m - 1) * nb,
              r + (size_t)(m - 1) * nb);
    fxrod_btri_back(m, nb, uw, G, 0, NULL, r);
}

/* The transposed forward sweep with the factors of fxrod_btri_factor_piece (S = Lo Up, Lo
   the pivot blocks and L, Up the unit upper factor with G): z = Up^-T r on r (m x nb), that is
   z_k = r_k - G[k-1]^T z_{k-1} from the first eliminated block on, the last (kept) block
   included; with first, the kept first block's right-hand side r_0 - sum_k W[k]^T z_k. */
void fxrod_btri_forward_t(int m, int nb, int uw, const double* G, int first, const double* W,
                          double* r)
{
    const size_t ub = (size_t)nb * uw, bb = (size_t)nb * nb;
    for (int k = first ? 1 : 0; k < m - 1; ++k) {
        const double* z = r + (size_t)k * nb;
        if (first) sub_at(nb, nb, W + k * bb, z, r);
        sub_at(nb, uw, G + k * ub, z, r + (size_t)(k + 1) * nb);
    }
}

/* The transposed back substitution (Lo^-T): r holds the transposed forward sweep's z at the
   eliminated blocks and the solution at the kept ones; it becomes the solution
   x_k = pivot_k^-T (z_k - L[k]^T x_{k+1} (- C[k]^T x_0 with first)). */
void fxrod_btri_back_t(int m, int nb, int lr, int lc, const double* D, const int* piv,
                       const double* L, int first, const double* C, double* r)
{
    const size_t bb = (size_t)nb * nb, lb = (size_t)lr * lc;
    for (int k = m - 2; k >= (first ? 1 : 0); --k) {
        double* xk = r + (size_t)k * nb;
        sub_at(lr, lc, L + k * lb, r + (size_t)(k + 1) * nb, xk);
        if (first) sub_at(nb, nb, C + k * bb, r, xk);
        lu_solve1_t(nb, D + k * bb, piv + (size_t)k * nb, xk);
    }
}

/* Solve S^T x = r with the factors of fxrod_btri_factor; r (m x nb) is overwritten by x. */
void fxrod_btri_solve_t(int m, int nb, int lr, int lc, int uw, const double* D,
                        const int* piv, const double* L, const double* G, double* r)
{
    fxrod_btri_forward_t(m, nb, uw, G, 0, NULL, r);
    lu_solve1_t(nb, D + (size_t)(m - 1) * nb * nb, piv + (size_t)(m - 1) * nb,
                r + (size_t)(m - 1) * nb);
    fxrod_btri_back_t(m, nb, lr, lc, D, piv, L, 0, NULL, r);
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

/* The width w of a row of a coupling block whose entries from w on are zero, raised to a
   multiple of 4, or to nb where that exceeds the four-wide part of nb: dot4 over the first
   w entries then adds the nonzero terms to the same partial sums as over all nb. */
static int round_width(int w, int nb)
{
    const int r = (w + 3) / 4 * 4;
    return r > nb / 4 * 4 ? nb : r;
}

/* Condensation of one element matrix E (nd x nd, ordered [interior (ni) | left vertex
   (nv) | right vertex (nv)], Dirichlet rows and columns zero) of chain position k (see
   fxrod_chain_condense): the interior LU eliminates the first ns interior unknowns (the
   cell-local fields, e.g. the stresses) first, among themselves, and if that meets a small
   pivot, all of them with partial pivoting. lay[0..4] are the capacities of the compact
   arrays (see fxrod_chain_condense), lay[5..9] the sizes they need, raised to this
   cell's. Returns 1 (nothing stored) if this cell needs more than the capacities or
   count_only is set, -1 on a (numerically) singular interior block. */
static int condense_cell(int k, int ni, int nv, int nd, int ns, const double* E, int lp,
    const int8_t* bc_int, double max_growth, double* LUI, int* pivI, double* X, double* ABI,
    int8_t* act, double* D, double* L, double* U, int32_t* lay, int count_only)
{
    const int nb = 2 * nv;
    const int cx = lay[0], cb = lay[1], lr = lay[2], lc = lay[3], uw = lay[4];
    int8_t* ak = act + (size_t)k * nb;
    int na = 0, nr = 0, cols[64];
    for (int b = 0; b < nb; ++b) {
        int nz = 0, nzr = 0;
        for (int i = 0; i < ni && !nz; ++i) nz = E[i * nd + ni + b] != 0.0;
        for (int i = 0; i < ni && !nzr; ++i) nzr = E[(ni + b) * nd + i] != 0.0;
        ak[b] = (int8_t)(nz | (nzr << 1));
        if (nz) cols[na++] = b;
        nr += nzr;
    }
    /* S(a, b) = E(a, b) - (A_BI X)(a, b) is zero unless E(a, b) is nonzero or row a of A_BI
       is nonzero and column b active: the trailing zeros of U = S(l, r), L = S(r, l) */
    int nu = 0, nlr = 0, nlc = 0;
    for (int a = 0; a < nb; ++a)
        for (int b = 0; b < nb; ++b) {
            if ((a < nv) == (b < nv)) continue;
            if (E[(size_t)(ni + a) * nd + ni + b] == 0.0 && !((ak[a] & 2) && (ak[b] & 1)))
                continue;
            if (a < nv) { if (b - nv + 1 > nu) nu = b - nv + 1; }
            else {
                if (a - nv + 1 > nlr) nlr = a - nv + 1;
                if (b + 1 > nlc) nlc = b + 1;
            }
        }
    const int need[5] = {na, nr, nlr, round_width(nlc, nv), round_width(nu, nv)};
    int over = count_only;
    for (int j = 0; j < 5; ++j) {
        if (need[j] > lay[5 + j]) lay[5 + j] = need[j];
        over |= need[j] > lay[j];
    }
    if (over) return 1;
    const size_t bb = (size_t)nv * nv;
    double* A = LUI + (size_t)k * ni * ni;
    double* Xk = X + (size_t)k * ni * cx;
    double* Bk = ABI + (size_t)k * cb * ni;
    const int8_t* bc = bc_int + (size_t)k * ni;
    int* piv = pivI + (size_t)k * ni;
    if ((ns == 0 || interior_lu(ni, nd, ns, E, bc, max_growth, A, piv) != 0)
        && interior_lu(ni, nd, 0, E, bc, max_growth, A, piv) != 0)
        return -1;
    /* compact right-hand sides A_IB(:, active), solved in place: X (ni x na) */
    for (int i = 0; i < ni; ++i)
        for (int c = 0; c < na; ++c) Xk[i * na + c] = E[i * nd + ni + cols[c]];
    if (na) lu_solve(ni, A, piv, Xk, na);
    double* Dl = D + lp * bb;
    double* Dr = D + (lp + 1) * bb;
    double* Uk = U + (size_t)lp * nv * uw;
    double* Lk = L + (size_t)lp * lr * lc;
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
        if (a < nv) {
            for (int b = 0; b < nv; ++b) Dl[a * nv + b] += s[b];
            for (int b = 0; b < uw; ++b) Uk[a * uw + b] = s[nv + b];
        } else {
            if (a - nv < lr)
                for (int b = 0; b < lc; ++b) Lk[(a - nv) * lc + b] = s[b];
            for (int b = 0; b < nv; ++b) Dr[(a - nv) * nv + b] += s[nv + b];
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
   X[k] = A_II^-1 A_IB(:, active) (ni x na, compact, in space for ni x lay[0]); ABI[k] the
   nonzero rows of A_BI (compact, in space for lay[1] x ni). The Schur complements
   S = A_BB - A_BI X are summed into the diagonal blocks D (nv x nv), the super-diagonal
   U[k] = S(l, r) (its first lay[4] columns: nv x lay[4]) and the sub-diagonal
   L[k] = S(r, l) (its first lay[2] rows and lay[3] columns), their other entries being zero.
   lay[5..9] receive the sizes needed (the maxima over the cells). work: nd * nd doubles.
   Returns -1 - k if the interior block of cell k is (numerically) singular
   (condense_cell), 1 if a cell needs more than the capacities (then nothing more is stored
   and the remaining cells are only measured). */
int fxrod_chain_condense(int nc, int ni, int nv, int nd, int ne, int ns,
    const int32_t* cells, const int32_t* lpos, const int32_t* perm, const int8_t* pad,
    const double* elem, const int8_t* bc_int, double max_growth, double* LUI, int* pivI,
    double* X, double* ABI, int8_t* act, double* D, double* L, double* U, int32_t* lay,
    double* work)
{
    double* E = work;
    int over = 0;
    for (int k = 0; k < nc; ++k) {
        const int32_t* P = perm + (size_t)k * ne;
        const int8_t* z = pad + (size_t)k * ne;
        const double* Ec = elem + (size_t)cells[k] * nd * nd;
        for (int p = 0; p < ne; ++p) {
            const double* row = Ec + (size_t)P[p] * nd;
            for (int q = 0; q < ne; ++q) E[p * ne + q] = z[p] | z[q] ? 0.0 : row[P[q]];
        }
        const int rc = condense_cell(k, ni, nv, ne, ns, E, lpos[k], bc_int, max_growth, LUI,
                                     pivI, X, ABI, act, D, L, U, lay, over);
        if (rc < 0) return -1 - k;
        over |= rc;
    }
    return over;
}

typedef void (*fxrod_kernel_t)(double*, const double*, const double*, const double*,
                               const int*, const uint8_t*, void*);

/* fxrod_chain_condense with the element matrices computed cell by cell (no array of all
   element matrices): the Jacobian contributions of chain cell k are the entities
   ent_e[j] of the integrals ent_i[j], j in [ent_ptr[k], ent_ptr[k + 1]) (integral order,
   as the assembly adds them), each tabulated by kernels[i] (local facet indices locals[i]
   or NULL) on its packed coefficients, gathered into cbuf (DOLFINx's layout, cstride[i]
   values: the ncoef coefficients' columns one after the other, seg[c] of them read from
   the array at srcs[i * ncoef + c] at the positions rels[i][e * cstride[i] + j]),
   accumulating (as FFCx kernels do) into the cell's matrix Ec (nd x nd, DOLFINx cell dof order), whose rows and
   columns of Dirichlet dofs (bc_perm[k][p] for the permuted dof p, also set at the
   padding) stay zero; E (ne x ne) is Ec permuted to [interior | left | right]. */
int fxrod_chain_condense_kernels(int nc, int ni, int nv, int nd, int ne, int ns,
    const int32_t* lpos,
    const int32_t* perm, const int8_t* bc_perm, const int8_t* bc_int,
    const int32_t* ent_ptr, const int32_t* ent_i, const int32_t* ent_e,
    const uintptr_t* kernels, const uintptr_t* rels, const int32_t* cstride, int ncoef,
    const int32_t* seg, const uintptr_t* srcs, double* cbuf,
    const uintptr_t* locals, const double* consts, const double* x, const int32_t* gdofs,
    int ngd, const int32_t* cells, double max_growth, double* LUI, int* pivI, double* X,
    double* ABI, int8_t* act, double* D, double* L, double* U, int32_t* lay, double* Ec,
    double* E, double* coords)
{
    int over = 0;
    for (int k = 0; k < nc; ++k) {
        const int c = cells[k];
        for (int g = 0; g < ngd; ++g)
            memcpy(coords + 3 * g, x + 3 * (size_t)gdofs[(size_t)c * ngd + g],
                   3 * sizeof(double));
        memset(Ec, 0, (size_t)nd * nd * sizeof(double));
        for (int j = ent_ptr[k]; j < ent_ptr[k + 1]; ++j) {  /* the kernels accumulate */
            const int i = ent_i[j], e = ent_e[j];
            const int32_t* loc = (const int32_t*)locals[i];
            const int32_t* r = (const int32_t*)rels[i] + (size_t)e * cstride[i];
            for (int c = 0, q = 0; c < ncoef; ++c) {
                const double* src = (const double*)srcs[(size_t)i * ncoef + c];
                for (const int end = q + seg[c]; q < end; ++q) cbuf[q] = src[r[q]];
            }
            ((fxrod_kernel_t)kernels[i])(Ec, cbuf, consts, coords, loc ? loc + e : NULL,
                                         NULL, NULL);
        }
        const int32_t* P = perm + (size_t)k * ne;
        const int8_t* bp = bc_perm + (size_t)k * ne;
        for (int p = 0; p < ne; ++p) {
            const double* row = Ec + (size_t)P[p] * nd;
            double* Ep = E + (size_t)p * ne;
            if (bp[p]) { memset(Ep, 0, (size_t)ne * sizeof(double)); continue; }
            for (int q = 0; q < ne; ++q) Ep[q] = bp[q] ? 0.0 : row[P[q]];
        }
        const int rc = condense_cell(k, ni, nv, ne, ns, E, lpos[k], bc_int, max_growth, LUI,
                                     pivI, X, ABI, act, D, L, U, lay, over);
        if (rc < 0) return -1 - k;
        over |= rc;
    }
    return over;
}

/* The condensed right-hand side for fxrod_chain_solve: rB (m x nv) = b at the vertex blocks
   (0 at the padding) minus A_BI A_II^-1 b_I, and out at the interior dofs = A_II^-1 b_I. */
void fxrod_chain_rhs(int nc, int m, int ni, int nv, const int32_t* lpos, const double* LUI,
    const int* pivI, const double* ABI, const int8_t* act, const int32_t* lay,
    const int32_t* idofs, const int32_t* vdofs, const double* b, double* out, double* rB)
{
    const int nb = 2 * nv, cb = lay[1];
    for (int k = 0; k < m * nv; ++k) rB[k] = vdofs[k] >= 0 ? b[vdofs[k]] : 0.0;
    for (int k = 0; k < nc; ++k) {
        const int32_t* id = idofs + (size_t)k * ni;
        double y[64];
        for (int i = 0; i < ni; ++i) y[i] = b[id[i]];
        lu_solve1(ni, LUI + (size_t)k * ni * ni, pivI + (size_t)k * ni, y);
        for (int i = 0; i < ni; ++i) out[id[i]] = y[i];
        const double* Bk = ABI + (size_t)k * cb * ni;
        const int8_t* ak = act + (size_t)k * nb;
        double* r = rB + (size_t)lpos[k] * nv;   /* left and right vertex: contiguous */
        for (int a = 0; a < nb; ++a) {
            if (!(ak[a] & 2)) continue;
            r[a] -= dot4(Bk, y, 0, ni);
            Bk += ni;
        }
    }
}

/* The back substitution of fxrod_chain_solve: rB (m x nv) the vertex solution, written to
   out at the vertex dofs; out at the interior dofs from A_II^-1 b_I (fxrod_chain_rhs) to
   x_I = A_II^-1 b_I - X x_B. */
void fxrod_chain_back(int nc, int m, int ni, int nv, const int32_t* lpos, const double* X,
    const int8_t* act, const int32_t* lay, const int32_t* idofs, const int32_t* vdofs,
    const double* rB, double* out)
{
    const int nb = 2 * nv, cx = lay[0];
    for (int k = 0; k < m * nv; ++k)
        if (vdofs[k] >= 0) out[vdofs[k]] = rB[k];
    for (int k = 0; k < nc; ++k) {
        const int32_t* id = idofs + (size_t)k * ni;
        const double* Xk = X + (size_t)k * ni * cx;
        const double* xB = rB + (size_t)lpos[k] * nv;
        const int8_t* ak = act + (size_t)k * nb;
        double xc[64];
        int na = 0;
        for (int j = 0; j < nb; ++j) if (ak[j] & 1) xc[na++] = xB[j];
        for (int i = 0; i < ni; ++i)
            out[id[i]] = out[id[i]] - dot4(Xk + (size_t)i * na, xc, 0, na);
    }
}

/* Solve with the factors of fxrod_chain_condense and fxrod_btri_factor: out = A^-1 b
   (out may be b). lay: the capacities of the compact arrays (fxrod_chain_condense).
   idofs (nc x ni) and vdofs (m x nv) are the global interior and vertex-block dofs
   (-1: padding, right-hand side 0, solution discarded); out at the interior dofs holds
   A_II^-1 b_I until the back-substitution; rB (m x nv) is a work array; rB0 (m x nv)
   receives the right-hand side of the vertex system S x_B = rB0. */
void fxrod_chain_solve(int nc, int m, int ni, int nv, const int32_t* lpos,
    const double* LUI, const int* pivI,
    const double* X, const double* ABI, const int8_t* act, const double* D, const int* pivD,
    const double* L, const double* G, const int32_t* lay, const int32_t* idofs,
    const int32_t* vdofs, const double* b, double* out, double* rB, double* rB0)
{
    fxrod_chain_rhs(nc, m, ni, nv, lpos, LUI, pivI, ABI, act, lay, idofs, vdofs, b, out, rB);
    memcpy(rB0, rB, (size_t)m * nv * sizeof(double));
    fxrod_btri_solve(m, nv, lay[2], lay[3], lay[4], D, pivD, L, G, rB);
    fxrod_chain_back(nc, m, ni, nv, lpos, X, act, lay, idofs, vdofs, rB, out);
}

/* The condensed right-hand side of the transposed system A^T y = b (fxrod_chain_solve_t):
   rB (m x nv) = b at the vertex blocks (0 at the padding) minus X^T b_I
   (= A_IB^T A_II^-T b_I). */
void fxrod_chain_rhs_t(int nc, int m, int ni, int nv, const int32_t* lpos, const double* X,
    const int8_t* act, const int32_t* lay, const int32_t* idofs, const int32_t* vdofs,
    const double* b, double* rB)
{
    const int nb = 2 * nv, cx = lay[0];
    for (int k = 0; k < m * nv; ++k) rB[k] = vdofs[k] >= 0 ? b[vdofs[k]] : 0.0;
    for (int k = 0; k < nc; ++k) {
        const int32_t* id = idofs + (size_t)k * ni;
        const int8_t* ak = act + (size_t)k * nb;
        int na = 0, cols[64];
        for (int j = 0; j < nb; ++j) if (ak[j] & 1) cols[na++] = j;
        double acc[64], y[64];
        for (int c = 0; c < na; ++c) acc[c] = 0.0;
        for (int i = 0; i < ni; ++i) y[i] = b[id[i]];
        sub_at(ni, na, X + (size_t)k * ni * cx, y, acc);   /* acc = -X^T b_I */
        double* r = rB + (size_t)lpos[k] * nv;
        for (int c = 0; c < na; ++c) r[cols[c]] += acc[c];
    }
}

/* The back substitution of fxrod_chain_solve_t: rB the vertex solution y_B, written to out
   at the vertex dofs; out at the interior dofs y_I = A_II^-T (b_I - A_BI^T y_B). out may be
   b. */
void fxrod_chain_back_t(int nc, int m, int ni, int nv, const int32_t* lpos, const double* LUI,
    const int* pivI, const double* ABI, const int8_t* act, const int32_t* lay,
    const int32_t* idofs, const int32_t* vdofs, const double* b, const double* rB,
    double* out)
{
    const int nb = 2 * nv, cb = lay[1];
    for (int k = 0; k < nc; ++k) {   /* b_I read before out is written (out may be b) */
        const int32_t* id = idofs + (size_t)k * ni;
        const int8_t* ak = act + (size_t)k * nb;
        const double* xB = rB + (size_t)lpos[k] * nv;
        double t[64], yb[64];
        int nr = 0;
        for (int a = 0; a < nb; ++a) if (ak[a] & 2) yb[nr++] = xB[a];
        for (int i = 0; i < ni; ++i) t[i] = b[id[i]];
        sub_at(nr, ni, ABI + (size_t)k * cb * ni, yb, t);
        lu_solve1_t(ni, LUI + (size_t)k * ni * ni, pivI + (size_t)k * ni, t);
        for (int i = 0; i < ni; ++i) out[id[i]] = t[i];
    }
    for (int k = 0; k < m * nv; ++k)
        if (vdofs[k] >= 0) out[vdofs[k]] = rB[k];
}

/* Solve A^T y = b with the factors of fxrod_chain_condense and fxrod_btri_factor (the
   adjoint's systems): out = A^-T b (out may be b; arguments as fxrod_chain_solve). */
void fxrod_chain_solve_t(int nc, int m, int ni, int nv, const int32_t* lpos,
    const double* LUI, const int* pivI,
    const double* X, const double* ABI, const int8_t* act, const double* D, const int* pivD,
    const double* L, const double* G, const int32_t* lay, const int32_t* idofs,
    const int32_t* vdofs, const double* b, double* out, double* rB)
{
    fxrod_chain_rhs_t(nc, m, ni, nv, lpos, X, act, lay, idofs, vdofs, b, rB);
    fxrod_btri_solve_t(m, nv, lay[2], lay[3], lay[4], D, pivD, L, G, rB);
    fxrod_chain_back_t(nc, m, ni, nv, lpos, LUI, pivI, ABI, act, lay, idofs, vdofs, b, rB,
                       out);
}

/* Row i of block row k of S x - r and the absolute row sum of S (block-tridiagonal S as in
   fxrod_btri_residual), into res and abs_sum. */
static void residual_row(int m, int nb, int lr, int lc, int uw, const double* D,
                         const double* L, const double* U, const double* x, const double* r,
                         int k, int i, double* res, double* abs_sum)
{
    const size_t bb = (size_t)nb * nb, lb = (size_t)lr * lc, ub = (size_t)nb * uw;
    double s = -r[(size_t)k * nb + i], a = 0.0;
    const double* Dr = D + k * bb + (size_t)i * nb;
    for (int j = 0; j < nb; ++j) { s += Dr[j] * x[(size_t)k * nb + j]; a += fabs(Dr[j]); }
    if (k > 0 && i < lr) {
        const double* Lr = L + (k - 1) * lb + (size_t)i * lc;
        for (int j = 0; j < lc; ++j) {
            s += Lr[j] * x[(size_t)(k - 1) * nb + j]; a += fabs(Lr[j]);
        }
    }
    if (k < m - 1) {
        const double* Ur = U + k * ub + (size_t)i * uw;
        for (int j = 0; j < uw; ++j) {
            s += Ur[j] * x[(size_t)(k + 1) * nb + j]; a += fabs(Ur[j]);
        }
    }
    *res = s;
    *abs_sum = a;
}

/* err[0] = max |S x - r|, err[1] = max absolute row sum of S, for the block-tridiagonal S
   (diagonal blocks D, sub-diagonal L[k] = S(k+1, k), super-diagonal U[k] = S(k, k+1),
   stored as in fxrod_btri_factor: L[k] lr x lc, U[k] nb x uw, the rest zero). */
void fxrod_btri_residual(int m, int nb, int lr, int lc, int uw, const double* D,
                         const double* L, const double* U, const double* x, const double* r,
                         double* err)
{
    double emax = 0.0, amax = 0.0;
    for (int k = 0; k < m; ++k)
        for (int i = 0; i < nb; ++i) {
            double s, a;
            residual_row(m, nb, lr, lc, uw, D, L, U, x, r, k, i, &s, &a);
            if (!(fabs(s) <= emax)) emax = fabs(s);  /* NaN propagates */
            if (a > amax) amax = a;
        }
    err[0] = emax;
    err[1] = amax;
}

/* fxrod_btri_residual of a piece of a chain (fxrod_btri_factor_piece) whose kept block rows
   (the last, and with first the first one) hold only the piece's share: those rows go to
   kept (2 x 3 x nb: the first block row's, then the last's: residual, absolute row sums
   and r), the others to err[0] (max |S x - r|), err[1] (max row sum) and err[3]
   (max |r|); err[2] = max |x| over all rows. */
void fxrod_btri_residual_piece(int m, int nb, int lr, int lc, int uw, const double* D,
                               const double* L, const double* U, const double* x,
                               const double* r, int first, double* err, double* kept)
{
    double emax = 0.0, amax = 0.0, xmax = 0.0, rmax = 0.0;
    for (int k = 0; k < m; ++k) {
        const int keep = k == m - 1 || (first && k == 0);
        double* out = kept + (size_t)(k == m - 1 ? 3 : 0) * nb;
        for (int i = 0; i < nb; ++i) {
            double s, a;
            const double xi = fabs(x[(size_t)k * nb + i]), ri = r[(size_t)k * nb + i];
            if (!(xi <= xmax)) xmax = xi;
            residual_row(m, nb, lr, lc, uw, D, L, U, x, r, k, i, &s, &a);
            if (keep) { out[i] = s; out[nb + i] = a; out[2 * nb + i] = ri; continue; }
            if (!(fabs(s) <= emax)) emax = fabs(s);
            if (a > amax) amax = a;
            if (fabs(ri) > rmax) rmax = fabs(ri);
        }
    }
    err[0] = emax;
    err[1] = amax;
    err[2] = xmax;
    err[3] = rmax;
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
