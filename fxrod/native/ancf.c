#include <stdint.h>
#include <string.h>
#include <math.h>
typedef void (*kern_t)(double*, const double*, const double*, const double*, const int*,
                       const uint8_t*, void*);
#include "ancf_types.h"


/* Pack the constants and the coefficients of every entity from their arrays. */
void ancf_gather(const ancf_form* f)
{
    double* c = f->consts;
    for (int i = 0; i < f->n_const; ++i) {
        memcpy(c, f->const_src[i], (size_t)f->const_size[i] * sizeof(double));
        c += f->const_size[i];
    }
    for (int i = 0; i < f->n_its; ++i) {
        const ancf_integral* it = f->its + i;
        for (int p = 0; p < it->n_upd; ++p)
            it->coeffs[it->upd_pos[p]] = f->coef_src[it->upd_src[p]][it->upd_dof[p]];
    }
}

/* b = sum of the element vectors (8 dofs per entity, rows it->dofs). */
void ancf_vector(const ancf_form* f, int n, double* b)
{
    double be[8];
    ancf_gather(f);
    memset(b, 0, (size_t)n * sizeof(double));
    for (int i = 0; i < f->n_its; ++i) {
        const ancf_integral* it = f->its + i;
        kern_t k = (kern_t)it->kernel;
        for (int e = 0; e < it->n_ent; ++e) {
            memset(be, 0, sizeof be);
            k(be, it->coeffs + (size_t)e * it->stride, f->consts, it->coords + 6 * e,
              it->local ? it->local + e : NULL, NULL, NULL);
            const int32_t* d = it->dofs + 8 * e;
            for (int a = 0; a < 8; ++a) b[d[a]] += be[a];
        }
    }
}

/* The element matrices into the band W (row i, column j at W[i*w + j - i + kl]),
   Dirichlet rows and columns zero with unit diagonal. */
void ancf_matrix(const ancf_form* f, int n, const int8_t* is_bc, int kl, int w, double* W)
{
    double Ae[64];
    ancf_gather(f);
    memset(W, 0, (size_t)n * w * sizeof(double));
    for (int i = 0; i < f->n_its; ++i) {
        const ancf_integral* it = f->its + i;
        kern_t k = (kern_t)it->kernel;
        for (int e = 0; e < it->n_ent; ++e) {
            memset(Ae, 0, sizeof Ae);
            k(Ae, it->coeffs + (size_t)e * it->stride, f->consts, it->coords + 6 * e,
              it->local ? it->local + e : NULL, NULL, NULL);
            const int32_t* d = it->dofs + 8 * e;
            for (int a = 0; a < 8; ++a) {
                const int r = d[a];
                if (is_bc[r]) continue;
                for (int c = 0; c < 8; ++c)
                    if (!is_bc[d[c]]) W[(size_t)r * w + d[c] - r + kl] += Ae[a * 8 + c];
            }
        }
    }
    for (int r = 0; r < n; ++r)
        if (is_bc[r]) W[(size_t)r * w + kl] = 1.0;
}

/* Solve W y = b in place (b <- y) by banded LU with partial pivoting; W is overwritten.
   Returns -1 on a zero or non-finite pivot. */
int ancf_band_solve(int n, int kl, int ku, double* W, double* b)
{
    const int w = 2 * kl + ku + 1, reach = kl + ku;
    for (int k = 0; k < n; ++k) {
        const int last = k + kl < n - 1 ? k + kl : n - 1;
        const int cend = k + reach < n - 1 ? k + reach : n - 1;
        int p = k;
        double amax = fabs(W[(size_t)k * w + kl]);
        for (int r = k + 1; r <= last; ++r) {
            const double v = fabs(W[(size_t)r * w + k - r + kl]);
            if (v > amax) { amax = v; p = r; }
        }
        if (amax == 0.0 || !isfinite(amax)) return -1;
        if (p != k) {
            for (int c = k; c <= cend; ++c) {
                double* a = W + (size_t)k * w + c - k + kl;
                double* q = W + (size_t)p * w + c - p + kl;
                const double t = *a; *a = *q; *q = t;
            }
            const double t = b[k]; b[k] = b[p]; b[p] = t;
        }
        const double* rowk = W + (size_t)k * w - k + kl;
        for (int r = k + 1; r <= last; ++r) {
            double* rowr = W + (size_t)r * w - r + kl;
            if (rowr[k] == 0.0) continue;
            const double l = rowr[k] / rowk[k];
            for (int c = k + 1; c <= cend; ++c) rowr[c] -= l * rowk[c];
            b[r] -= l * b[k];
        }
    }
    for (int k = n - 1; k >= 0; --k) {
        const int cend = k + reach < n - 1 ? k + reach : n - 1;
        const double* rowk = W + (size_t)k * w - k + kl;
        double s = b[k];
        for (int c = k + 1; c <= cend; ++c) s -= rowk[c] * b[c];
        b[k] = s / rowk[k];
    }
    return 0;
}

static double norm2(int n, const double* v)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += v[i] * v[i];
    return sqrt(s);
}

static void residual(const ancf_form* F, int n, const int8_t* is_bc, double* b)
{
    ancf_vector(F, n, b);
    for (int r = 0; r < n; ++r)
        if (is_bc[r]) b[r] = 0.0;  /* x - g: the iterate holds the boundary values */
}

/* SNES newtonls with basic line search and Jacobian lag 1 (see the module docstring).
   x (DOLFINx numbering) is the unknown's array, updated in place; perm maps it to the
   band numbering. */
int ancf_newton(const ancf_form* F, const ancf_form* J, int n, double* x,
                const int32_t* perm, const int8_t* is_bc, int kl, int ku, double* W,
                double* b, double atol, double rtol, double stol, double divtol,
                int max_it, int* its)
{
    const int w = 2 * kl + ku + 1;
    *its = 0;
    residual(F, n, is_bc, b);
    double fnorm = norm2(n, b);
    const double fnorm0 = fnorm, ttol = rtol * fnorm;
    if (!isfinite(fnorm)) return -4;
    if (fnorm < atol) return 2;
    for (int i = 0; i < max_it; ++i) {
        ancf_matrix(J, n, is_bc, kl, w, W);
        if (ancf_band_solve(n, kl, ku, W, b) != 0) return -3;
        const double ynorm = norm2(n, b);
        for (int d = 0; d < n; ++d) x[d] -= b[perm[d]];
        const double xnorm = norm2(n, x);
        residual(F, n, is_bc, b);
        fnorm = norm2(n, b);
        *its = i + 1;
        if (!isfinite(fnorm)) return -4;
        if (fnorm < atol) return 2;
        if (fnorm <= ttol) return 3;
        if (ynorm < stol * xnorm) return 4;
        if (divtol > 0.0 && fnorm > divtol * fnorm0) return -9;
    }
    return -5;
}
