"""Fast path of the ANCF solvers: FFCx kernels from C, banded LU, Newton in C (theory §A4).

The general path hands every Newton solve to PETSc SNES (:class:`fxrod.newton.NewtonSolver`)
with DOLFINx's assembly and a MUMPS LU. For a beam of 10-40 elements (40-164 unknowns) that
machinery, not the arithmetic, is the cost: a 300-step release spends ~0.75 ms per step in
Python callbacks, coefficient packing and PETSc object traffic whatever the element count.
This module keeps the same compiled forms and runs

* the same FFCx kernels (same packed coefficients and constants, gathered with
  :class:`fxrod.fastassembly.FormKernels`) over the cells from a small C loop, adding element
  vectors into a numpy array and element matrices into a banded array;
* a banded LU with partial pivoting: numbered node by node (``[r_x, r_y, l_e r'_x,
  l_e r'_y]`` of node k at ``4k..4k+3``) the Jacobian has ``kl = ku = 7``;
* SNES ``newtonls`` with ``linesearch="basic"`` and ``jacobian_lag=1`` step for step in C:
  ``x <- x - J(x)^-1 F(x)``, Dirichlet rows ``x - g = 0`` and unit diagonal, and PETSc's
  default convergence test (``|F| < atol``; ``|F| <= rtol |F_0|``; ``|dx| < stol |x|``;
  ``|F| > 1e4 |F_0|`` diverged; ``max_it``), returning the SNES reason codes.

The iterates are those of the general path up to round-off (the element tensors are the
same numbers; only the order of the additions and the LU differ), see tests/test_ancf_fast.py.

:class:`FastNewton` applies to a residual on the beam's space with ``jacobian_lag == 1``
and ``linesearch == "basic"`` (:meth:`FastNewton.applicable`); its :meth:`FastNewton.solve`
returns ``None`` (the caller then uses the general path) when the iterate does not hold the
boundary values. Building raises ``RuntimeError`` when the C helper cannot be compiled or
its first residual differs from DOLFINx's. Serial objects (``MPI.COMM_SELF``), like the beam.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import ufl
from dolfinx import fem

from fxrod.ancf.element import ANCFBeam
from fxrod.fastassembly import FormKernels, build_helper
from fxrod.settings import SolverSettings

#: Lower and upper bandwidth of the node-by-node numbering (two nodes of 4 dofs per element).
BAND = 7
#: PETSc's default divergence tolerance: ``|F| > DIVTOL |F_0|`` is SNES_DIVERGED_DTOL.
DIVTOL = 1.0e4
#: SNES reason codes returned by the C Newton loop (PETSc's values).
CONVERGED_FNORM_ABS, CONVERGED_FNORM_RELATIVE, CONVERGED_SNORM_RELATIVE = 2, 3, 4
DIVERGED_LINEAR_SOLVE, DIVERGED_FUNCTION_NANORINF, DIVERGED_MAX_IT = -3, -4, -5
DIVERGED_DTOL = -9

#: The C structs shared by the helper's source and its cffi declarations.
_TYPES = """
typedef struct {
    uintptr_t kernel; int n_ent; const int32_t* local; double* coeffs; int stride;
    const double* coords; const int32_t* dofs; int n_upd; const int64_t* upd_pos;
    const int32_t* upd_src; const int32_t* upd_dof;
} ancf_integral;
typedef struct {
    const ancf_integral* its; int n_its; double* consts; int n_const;
    double* const* const_src; const int32_t* const_size; double* const* coef_src;
} ancf_form;
"""

_C_SOURCE = r"""
#include <stdint.h>
#include <string.h>
#include <math.h>
typedef void (*kern_t)(double*, const double*, const double*, const double*, const int*,
                       const uint8_t*, void*);
""" + _TYPES + r"""

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
"""

_CDEF = _TYPES + """
void ancf_gather(const ancf_form* f);
void ancf_vector(const ancf_form* f, int n, double* b);
void ancf_matrix(const ancf_form* f, int n, const int8_t* is_bc, int kl, int w, double* W);
int ancf_band_solve(int n, int kl, int ku, double* W, double* b);
int ancf_newton(const ancf_form* F, const ancf_form* J, int n, double* x,
                const int32_t* perm, const int8_t* is_bc, int kl, int ku, double* W,
                double* b, double atol, double rtol, double stol, double divtol,
                int max_it, int* its);
"""

_HELPER = None


def _helper():
    """The compiled C helper (cffi module), built once per machine and cached."""
    global _HELPER
    if _HELPER is None:
        _HELPER = build_helper("_fxrod_ancf", _C_SOURCE, _CDEF)
    return _HELPER


def band_numbering(beam: ANCFBeam) -> np.ndarray:
    """``perm[d]``: the node-by-node number of DOLFINx dof ``d`` (``4k + [0, 1]`` for the
    position of node ``k``, ``4k + [2, 3]`` for its scaled slope)."""
    perm = np.empty(beam.n_dofs, dtype=np.int32)
    k4 = 4 * np.arange(beam.n_elements + 1)
    for c in (0, 1):
        perm[beam.pos_dofs[:, c]] = k4 + c
        perm[beam.slope_dofs[:, c]] = k4 + 2 + c
    return perm


class BandedForm:
    """A compiled residual or Jacobian form of ``beam`` evaluated by the C helper in the
    band numbering of :func:`band_numbering`.

    The C loop packs the form's constants and coefficients itself on every evaluation,
    straight from the arrays of the ``Constant`` and ``Function`` objects (positions from
    :class:`fxrod.fastassembly.FormKernels`, checked there against DOLFINx's packing; the
    constants checked here against ``dolfinx.fem.pack_constants``).

    Parameters
    ----------
    form : dolfinx.fem.Form
        Linear or bilinear form on the beam's space.
    beam : ANCFBeam
        The beam.

    Raises
    ------
    RuntimeError
        If the form's layout is not one the helper reproduces, or (linear forms) its value
        at the current state differs from DOLFINx's assembly.
    """

    def __init__(self, form: fem.Form, beam: ANCFBeam) -> None:
        self.mod = _helper()
        self.ffi = ffi = self.mod.ffi
        self.kernels = k = FormKernels(form)
        self.beam = beam
        self.perm = band_numbering(beam)
        self.b = np.zeros(beam.n_dofs)
        ptr = k.ptr
        coef = [np.asarray(c.x.array) for c in k.coefficients]
        starts = np.concatenate([[0], np.cumsum([c.size for c in coef])]).astype(np.int64)
        consts = [np.asarray(c.value) for c in form._cpp_object.constants]
        self._keep: list = [coef, consts]
        bs = beam.V.dofmap.bs
        cell_dofs = np.asarray(beam.V.dofmap.list)
        gdofs = np.asarray(beam.mesh.geometry.dofmaps[0])
        its = ffi.new("ancf_integral[]", len(k.integrals))
        for st, it in zip(its, k.integrals, strict=True):
            cells = it["cells"]
            dofs = (cell_dofs[cells][:, :, None] * bs + np.arange(bs)).reshape(cells.size, -1)
            if dofs.shape[1] != 8 or gdofs.shape[1] != 2:
                raise RuntimeError("not a Hermite interval element of 8 dofs")
            dofs = np.ascontiguousarray(self.perm[dofs], dtype=np.int32)
            coords = np.ascontiguousarray(
                beam.mesh.geometry.x[gdofs[cells]].reshape(cells.size, 6))
            index = it["index"].ravel()
            pos = np.flatnonzero(index < starts[-1]).astype(np.int64)  # used coefficients
            src = (np.searchsorted(starts, index[pos], side="right") - 1).astype(np.int32)
            dof = (index[pos] - starts[src]).astype(np.int32)
            self._keep += [dofs, coords, pos, src, dof]
            st.kernel, st.n_ent, st.stride = it["kernel"], cells.size, it["stride"]
            st.local = ptr(it["local"], "int32_t*")
            st.coeffs = ptr(it["coeffs"], "double*")
            st.coords = ptr(coords, "double*")
            st.dofs = ptr(dofs, "int32_t*")
            st.n_upd = pos.size
            st.upd_pos = ptr(pos, "int64_t*")
            st.upd_src = ptr(src, "int32_t*")
            st.upd_dof = ptr(dof, "int32_t*")
        const_src = ffi.new("double*[]", max(1, len(consts)))
        for i, c in enumerate(consts):
            const_src[i] = ptr(c, "double*")
        const_size = np.array([c.size for c in consts] or [0], dtype=np.int32)
        coef_src = ffi.new("double*[]", max(1, len(coef)))
        for i, c in enumerate(coef):
            coef_src[i] = ptr(c, "double*")
        self._keep += [its, const_src, const_size, coef_src]
        self.cform = ffi.new("ancf_form*", {
            "its": its, "n_its": len(k.integrals), "consts": k.consts_ptr,
            "n_const": len(consts), "const_src": const_src,
            "const_size": ptr(const_size, "int32_t*"), "coef_src": coef_src})
        self._b_ptr = ptr(self.b, "double*")
        self._check(form)

    def vector(self) -> np.ndarray:
        """The (linear) form at ``beam.r``, no boundary conditions, in the band numbering
        (the array :attr:`b`, overwritten by the next call)."""
        self.mod.lib.ancf_vector(self.cform, self.b.size, self._b_ptr)
        return self.b

    def _check(self, form: fem.Form) -> None:
        """Compare the packing of the constants (and for a linear form :meth:`vector`) at
        the current state with DOLFINx's."""
        k = self.kernels
        if form.rank == 1:
            ref = fem.assemble_vector(form).array
            mine = self.vector()[self.perm]
            scale = max(float(np.max(np.abs(ref))), 1.0)
            if not np.allclose(mine, ref, rtol=0.0, atol=1e-12 * scale):
                raise RuntimeError("the ANCF fast residual differs from DOLFINx's")
        self.mod.lib.ancf_gather(self.cform)
        packed = np.asarray(fem.pack_constants(form), dtype=float).ravel()
        if not np.array_equal(k.consts[: packed.size], packed):
            raise RuntimeError("the ANCF constants differ from DOLFINx's packing")


class FastNewton:
    """Newton's method for ``F(beam.r) = 0`` in C (see the module docstring).

    Parameters
    ----------
    F : ufl.Form
        Residual, linear in the beam's test function ``beam.w``.
    beam : ANCFBeam
        The beam; ``beam.r`` holds the initial iterate and, after :meth:`solve`, the result.
    settings : SolverSettings
        ``atol`` [N], ``rtol``, ``stol``, ``max_it`` are used (see :meth:`applicable`).

    Raises
    ------
    RuntimeError
        As :class:`BandedForm` (or if the C helper cannot be built).
    """

    def __init__(self, F: ufl.Form, beam: ANCFBeam, settings: SolverSettings) -> None:
        self.beam = beam
        self.settings = s = settings
        self.F = BandedForm(fem.form(F), beam)
        self.J = BandedForm(fem.form(ufl.derivative(F, beam.r, beam.du)), beam)
        n = beam.n_dofs
        self.perm = self.F.perm
        self.is_bc = np.zeros(n, dtype=np.int8)
        self.is_bc[self.perm[beam.fixed_dofs]] = 1
        self.g = beam.q_ref[beam.fixed_dofs].copy()  # the boundary values
        self.W = np.zeros((n, 3 * BAND + 1))
        self._x = beam.r.x.array
        self._its = self.F.ffi.new("int*")
        ptr = self.F.kernels.ptr
        self._args = (self.F.cform, self.J.cform, n, ptr(self._x, "double*"),
                      ptr(self.perm, "int32_t*"), ptr(self.is_bc, "int8_t*"), BAND, BAND,
                      ptr(self.W, "double*"), self.F._b_ptr, s.atol, s.rtol, s.stol, DIVTOL,
                      s.max_it, self._its)

    @staticmethod
    def applicable(settings: SolverSettings) -> bool:
        """Whether the fast path reproduces SNES with ``settings``: ``fast_assembly`` on,
        full Newton (``jacobian_lag == 1``) with plain steps (``linesearch == "basic"``)."""
        return (settings.fast_assembly and settings.jacobian_lag == 1
                and settings.linesearch == "basic")

    def solve(self) -> tuple[int, int] | None:
        """Solve from the iterate in ``beam.r``: ``(SNES reason, Newton iterations)``, or
        ``None`` (nothing changed) if the iterate does not hold the boundary values."""
        if not np.array_equal(self._x[self.beam.fixed_dofs], self.g):
            return None
        reason = self.F.mod.lib.ancf_newton(*self._args)
        return int(reason), int(self._its[0])


class FastAcceleration:
    """``M^-1 (Q_ext - dU/dq)`` of the central difference: the force by the C loop, the
    consistent mass of the free dofs factorised once (banded Cholesky, LAPACK ``dpbtrf``).

    Parameters
    ----------
    beam : ANCFBeam
        The beam.
    M : numpy.ndarray
        Its consistent mass matrix [kg] (dense, DOLFINx numbering).

    Raises
    ------
    RuntimeError
        As :class:`BandedForm` (the force is checked against DOLFINx's).
    """

    def __init__(self, beam: ANCFBeam, M: np.ndarray) -> None:
        self.beam = beam
        self.force = BandedForm(beam.residual_form(), beam)
        perm = self.force.perm
        free = beam.free_dofs
        self.order = free[np.argsort(perm[free])]  # free dofs in band order
        self.rows = perm[self.order]
        Mf = M[np.ix_(self.order, self.order)]
        m = Mf.shape[0]
        ab = np.zeros((BAND + 1, m))  # upper band storage: ab[BAND + i - j, j] = M[i, j]
        for k in range(BAND + 1):
            ab[BAND - k, k:] = np.diagonal(Mf, k)
        self.factor = scipy.linalg.cholesky_banded(ab, lower=False, check_finite=False)

    def __call__(self, q: np.ndarray) -> np.ndarray:
        """Accelerations [1/s^2 x dof] at ``q`` (zero on the fixed dofs)."""
        self.beam.set_state(q)
        f = self.force.vector()
        a = np.zeros_like(q)
        a[self.order] = scipy.linalg.cho_solve_banded((self.factor, False), -f[self.rows],
                                                      check_finite=False)
        return a
