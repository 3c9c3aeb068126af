#include <math.h>
#include <stdint.h>
#include <string.h>
typedef void (*fxrod_kernel_t)(double*, const double*, const double*, const double*,
                               const int*, const uint8_t*, void*);

/* Offsets of the element entries (i, j) of every cell within CSR row dofs[i], found by
   walking the sorted column indices once; 65535 marks an entry that is never added (row
   or column of a Dirichlet dof). Returns -1 if an entry is missing from the pattern or a
   row is longer than 65534 entries. */
int fxrod_element_offsets(int n_cells, const int32_t* dofs, int nd, const int32_t* order,
    const int8_t* is_bc, const int32_t* indptr, const int32_t* indices, uint16_t* off)
{
    for (int c = 0; c < n_cells; ++c) {
        const int32_t* cd = dofs + (size_t)c * nd;
        const int32_t* ord = order + (size_t)c * nd;
        uint16_t* oc = off + (size_t)c * nd * nd;
        for (int i = 0; i < nd; ++i) {
            const int32_t r = cd[i];
            const int32_t start = indptr[r], end = indptr[r + 1];
            if (end - start > 65534) return -1;
            int32_t p = start;
            for (int jj = 0; jj < nd; ++jj) {
                const int j = ord[jj];
                const int32_t col = cd[j];
                while (p < end && indices[p] < col) ++p;
                if (p == end || indices[p] != col) return -1;
                oc[i * nd + j] = (is_bc[r] || is_bc[col]) ? 65535 : (uint16_t)(p - start);
            }
        }
    }
    return 0;
}

/* The CSR pattern of the element dofs (every pair of dofs of a cell, as DOLFINx's
   sparsity pattern of a cell-integral form): the cells holding dof r are
   cell_of[dof_ptr[r] .. dof_ptr[r + 1]) (a cell once per dof it holds); mark (n ints, -1)
   is work space. With indices NULL only the row lengths into indptr[1..n]; else the sorted
   column indices of every row. */
void fxrod_csr_pattern(int n, const int32_t* dofs, int nd, const int32_t* dof_ptr,
    const int32_t* cell_of, int32_t* mark, int32_t* indptr, int32_t* indices)
{
    for (int r = 0; r < n; ++r) {
        int32_t len = 0;
        int32_t* row = indices ? indices + indptr[r] : NULL;
        for (int32_t p = dof_ptr[r]; p < dof_ptr[r + 1]; ++p) {
            const int32_t* cd = dofs + (size_t)cell_of[p] * nd;
            for (int j = 0; j < nd; ++j)
                if (mark[cd[j]] != r) {
                    mark[cd[j]] = r;
                    if (row) {  /* insertion into the sorted row */
                        int32_t i = len;
                        while (i > 0 && row[i - 1] > cd[j]) { row[i] = row[i - 1]; --i; }
                        row[i] = cd[j];
                    }
                    ++len;
                }
        }
        if (!row) indptr[r + 1] = len;
    }
}

/* The coordinates of cell c's ngd geometry nodes into coords (3 per node). */
static void gather_coords(double* coords, const double* x, const int32_t* gdofs, int c,
                          int ngd)
{
    for (int g = 0; g < ngd; ++g)
        memcpy(coords + 3 * g, x + 3 * (size_t)gdofs[(size_t)c * ngd + g],
               3 * sizeof(double));
}

/* The packed coefficients of entity e (DOLFINx's layout, stride values) into cbuf: the
   ncoef coefficients' columns one after the other, seg[k] of them read from the array at
   srcs[k] at the positions rel[e * stride + j]. */
static void gather_coeffs(double* cbuf, int e, const int32_t* rel, int stride, int ncoef,
                          const int32_t* seg, const uintptr_t* srcs)
{
    const int32_t* r = rel + (size_t)e * stride;
    for (int k = 0, j = 0; k < ncoef; ++k) {
        const double* src = (const double*)srcs[k];
        for (const int end = j + seg[k]; j < end; ++j) cbuf[j] = src[r[j]];
    }
}

void fxrod_add_element_matrices(uintptr_t kernel, int n_ent, const int32_t* cells,
    const int32_t* local_index, const int32_t* rel, int cstride, int ncoef,
    const int32_t* seg, const uintptr_t* srcs, double* cbuf, const double* consts,
    const double* x, const int32_t* gdofs, int ngd, const int32_t* dofs, int nd,
    const uint16_t* off, const int32_t* indptr, double* vals, double* Ae, double* coords,
    double* elem, const int8_t* is_bc)
{
    fxrod_kernel_t k = (fxrod_kernel_t)kernel;
    for (int e = 0; e < n_ent; ++e) {
        const int c = cells[e];
        gather_coords(coords, x, gdofs, c, ngd);
        gather_coeffs(cbuf, e, rel, cstride, ncoef, seg, srcs);
        memset(Ae, 0, (size_t)nd * nd * sizeof(double));
        k(Ae, cbuf, consts, coords, local_index ? local_index + e : NULL, NULL, NULL);
        const int32_t* cd = dofs + (size_t)c * nd;
        for (int i = 0; vals && i < nd; ++i) {  /* vals NULL: element matrices only */
            double* row = vals + indptr[cd[i]];
            const double* Ar = Ae + (size_t)i * nd;
            const uint16_t* oi = off + ((size_t)c * nd + i) * nd;
            for (int j = 0; j < nd; ++j)
                if (Ar[j] != 0.0 && oi[j] != 65535) row[oi[j]] += Ar[j];
        }
        if (elem) {  /* the element matrices by cell, Dirichlet rows and columns zero */
            double* ec = elem + (size_t)c * nd * nd;
            for (int i = 0; i < nd; ++i)
                for (int j = 0; j < nd; ++j)
                    if (!(is_bc[cd[i]] | is_bc[cd[j]])) ec[i * nd + j] += Ae[i * nd + j];
        }
    }
}

/* Element vectors of n_ent entities added into b (no Dirichlet treatment). */
void fxrod_add_element_vectors(uintptr_t kernel, int n_ent, const int32_t* cells,
    const int32_t* local_index, const int32_t* rel, int cstride, int ncoef,
    const int32_t* seg, const uintptr_t* srcs, double* cbuf, const double* consts,
    const double* x, const int32_t* gdofs, int ngd, const int32_t* dofs, int nd,
    double* b, double* be, double* coords)
{
    fxrod_kernel_t k = (fxrod_kernel_t)kernel;
    for (int e = 0; e < n_ent; ++e) {
        const int c = cells[e];
        gather_coords(coords, x, gdofs, c, ngd);
        gather_coeffs(cbuf, e, rel, cstride, ncoef, seg, srcs);
        memset(be, 0, (size_t)nd * sizeof(double));
        k(be, cbuf, consts, coords, local_index ? local_index + e : NULL, NULL, NULL);
        const int32_t* cd = dofs + (size_t)c * nd;
        for (int i = 0; i < nd; ++i)
            b[cd[i]] += be[i];
    }
}

/* The element scalars of n_ent entities added into *total by the kernels themselves, in
   entity order (as DOLFINx's assemble_scalar: the same additions in the same order). */
void fxrod_add_element_scalars(uintptr_t kernel, int n_ent, const int32_t* cells,
    const int32_t* local_index, const int32_t* rel, int cstride, int ncoef,
    const int32_t* seg, const uintptr_t* srcs, double* cbuf, const double* consts,
    const double* x, const int32_t* gdofs, int ngd, double* coords, double* total)
{
    fxrod_kernel_t k = (fxrod_kernel_t)kernel;
    for (int e = 0; e < n_ent; ++e) {
        gather_coords(coords, x, gdofs, cells[e], ngd);
        gather_coeffs(cbuf, e, rel, cstride, ncoef, seg, srcs);
        k(total, cbuf, consts, coords, local_index ? local_index + e : NULL, NULL, NULL);
    }
}

/* The sum of the squares of v (one thread, in order). */
double fxrod_sumsq(int64_t n, const double* v)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i)
        s += v[i] * v[i];
    return s;
}

/* x -= y; out = (|y|^2, |x|^2) of the updated x (one pass). */
void fxrod_update(int64_t n, double* x, const double* y, double* out)
{
    double sy = 0.0, sx = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        sy += y[i] * y[i];
        x[i] -= y[i];
        sx += x[i] * x[i];
    }
    out[0] = sy;
    out[1] = sx;
}

/* Largest nodal orthonormality residual |g_ij| = |1/2 (d_i.d_j - delta_ij)| over the n nodes
   whose 12 unknowns (phi, d_1, d_2, d_3) sit at w[qmap[12 a + c]]; NaN if any is NaN. */
double fxrod_constraint_max(int64_t n, const int32_t* qmap, const double* w)
{
    double worst = 0.0;
    int nan = 0;
    for (int64_t a = 0; a < n; ++a) {
        const int32_t* m = qmap + 12 * a;
        double d[3][3];
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c)
                d[k][c] = w[m[3 + 3 * k + c]];
        for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j) {
                double g = 0.5 * (d[i][0] * d[j][0] + d[i][1] * d[j][1] + d[i][2] * d[j][2]
                                  - (i == j ? 1.0 : 0.0));
                g = fabs(g);
                if (g != g)
                    nan = 1;
                else if (g > worst)
                    worst = g;
            }
    }
    return nan ? NAN : worst;
}
