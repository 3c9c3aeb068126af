"""Serial Jacobian assembly straight into the CSR arrays of the PETSc matrix.

DOLFINx inserts every 66 x 66 element matrix of the mixed rod form with ``MatSetValues``,
which searches each of the 4356 column positions in its row: at n_e = 1000 that insertion
takes 58 % of the Jacobian assembly, the FFCx kernel 15 % (perf). This module calls the same
FFCx kernels (same packed coefficients and constants as DOLFINx, from the same compiled
form) from a small C loop that adds each element row into the matrix's value array by
walking the sorted column indices of that row once. The matrix entries are the ones
DOLFINx assembles (same kernels, same Dirichlet treatment: rows and columns of constrained
dofs zero, unit diagonal), up to the order of the floating-point additions
(tests/test_speed_paths.py compares them).

Serial only (the matrix is a ``seqaij`` wrapping numpy arrays); under MPI the integrator
keeps DOLFINx's assembly. Forms with interior-facet integrals are not handled (the rod has
none) and also keep DOLFINx's assembly.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np

_C_SOURCE = r"""
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

void fxrod_add_element_matrices(uintptr_t kernel, int n_ent, const int32_t* cells,
    const int32_t* local_index, const double* coeffs, int cstride, const double* consts,
    const double* x, const int32_t* gdofs, int ngd, const int32_t* dofs, int nd,
    const uint16_t* off, const int32_t* indptr, double* vals, double* Ae, double* coords)
{
    fxrod_kernel_t k = (fxrod_kernel_t)kernel;
    for (int e = 0; e < n_ent; ++e) {
        const int c = cells[e];
        for (int g = 0; g < ngd; ++g)
            memcpy(coords + 3 * g, x + 3 * (size_t)gdofs[(size_t)c * ngd + g],
                   3 * sizeof(double));
        memset(Ae, 0, (size_t)nd * nd * sizeof(double));
        k(Ae, coeffs + (size_t)e * cstride, consts, coords,
          local_index ? local_index + e : NULL, NULL, NULL);
        const int32_t* cd = dofs + (size_t)c * nd;
        const uint16_t* oc = off + (size_t)c * nd * nd;
        for (int i = 0; i < nd; ++i) {
            double* row = vals + indptr[cd[i]];
            const double* Ar = Ae + (size_t)i * nd;
            const uint16_t* oi = oc + (size_t)i * nd;
            for (int j = 0; j < nd; ++j)
                if (Ar[j] != 0.0 && oi[j] != 65535) row[oi[j]] += Ar[j];
        }
    }
}
"""

_CDEF = """
int fxrod_element_offsets(int n_cells, const int32_t* dofs, int nd, const int32_t* order,
    const int8_t* is_bc, const int32_t* indptr, const int32_t* indices, uint16_t* off);
void fxrod_add_element_matrices(uintptr_t kernel, int n_ent, const int32_t* cells,
    const int32_t* local_index, const double* coeffs, int cstride, const double* consts,
    const double* x, const int32_t* gdofs, int ngd, const int32_t* dofs, int nd,
    const uint16_t* off, const int32_t* indptr, double* vals, double* Ae, double* coords);
"""

_LIB = None


def _cache_dir() -> Path:
    """``$FXROD_CACHE_DIR``, else ``$XDG_CACHE_HOME/fxrod`` (``~/.cache/fxrod``)."""
    if os.environ.get("FXROD_CACHE_DIR"):
        return Path(os.environ["FXROD_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fxrod"


def _load_lib():
    """Compile (once per machine, cached like FFCx's forms) and import the C helper."""
    global _LIB
    if _LIB is not None:
        return _LIB
    import cffi

    tag = hashlib.sha1((_C_SOURCE + _CDEF + sys.version).encode()).hexdigest()[:16]
    name = f"_fxrod_asm_{tag}"
    d = _cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    so = [p for p in d.glob(f"{name}*.so")]
    if not so:
        ffi = cffi.FFI()
        ffi.cdef(_CDEF)
        ffi.set_source(name, _C_SOURCE, extra_compile_args=["-O2"])
        tmp = d / f"build-{os.getpid()}"
        built = Path(ffi.compile(tmpdir=str(tmp)))
        target = d / built.name
        os.replace(built, target)  # atomic: concurrent processes may race here
        shutil.rmtree(tmp, ignore_errors=True)
        so = [target]
    spec = importlib.util.spec_from_file_location(name, so[0])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _LIB = mod
    return mod


class FastJacobian:
    """Assemble the compiled Jacobian form ``J_form`` into a ``seqaij`` matrix that shares
    its CSR arrays with numpy (serial runs).

    Parameters
    ----------
    J_form : dolfinx.fem.Form
        The compiled Jacobian of the residual (bilinear, same test/trial space).
    u : dolfinx.fem.Function
        The unknown tied to the residual and Jacobian.
    bcs : list of DirichletBC
        Constrained dofs: their rows and columns are zero, their diagonal is one.
    pattern : petsc4py.PETSc.Mat
        An assembled matrix with the sparsity pattern of ``J_form`` (DOLFINx's), copied.
    """

    supported_types = ("cell", "exterior_facet")

    def __init__(self, J_form, u, bcs, pattern) -> None:
        from dolfinx import fem
        from petsc4py import PETSc

        self._fem = fem
        self.lib = _load_lib()
        self.ffi = self.lib.ffi
        self.J = J_form
        self.u = u
        V = u.function_space
        msh = V.mesh
        self.dofs = np.ascontiguousarray(V.dofmap.list, dtype=np.int32)
        nd = self.dofs.shape[1]
        self.nd = nd
        self.gdofs = np.ascontiguousarray(msh.geometry.dofmaps[0], dtype=np.int32)
        self.x = np.ascontiguousarray(msh.geometry.x, dtype=np.float64)
        n = pattern.getSize()[0]
        self.is_bc = np.zeros(n, dtype=np.int8)
        bc_dofs = [np.asarray(bc.dof_indices()[0], dtype=np.int64) for bc in bcs]
        self.bc_dofs = np.unique(np.concatenate(bc_dofs)) if bc_dofs else np.zeros(0, int)
        self.is_bc[self.bc_dofs] = 1
        ai, aj, _ = pattern.getValuesCSR()
        self.indptr = np.ascontiguousarray(ai, dtype=np.int32)
        self.indices = np.ascontiguousarray(aj, dtype=np.int32)
        self.vals = np.zeros(self.indices.size)
        rows = np.repeat(np.arange(n), np.diff(self.indptr))
        diag_pos = np.flatnonzero(rows == self.indices)
        self.bc_diag = diag_pos[np.isin(rows[diag_pos], self.bc_dofs)]  # unit diagonal
        self.A = PETSc.Mat().createAIJWithArrays(pattern.getSize(),
                                                  (self.indptr, self.indices, self.vals),
                                                  comm=PETSc.COMM_SELF)
        self.A.assemble()
        order = np.ascontiguousarray(np.argsort(self.dofs, axis=1, kind="stable"),
                                     dtype=np.int32)
        self.off = np.empty(self.dofs.shape[0] * nd * nd, dtype=np.uint16)
        p = self._ptr
        rc = self.lib.lib.fxrod_element_offsets(
            self.dofs.shape[0], p(self.dofs, "int32_t*"), nd, p(order, "int32_t*"),
            p(self.is_bc, "int8_t*"), p(self.indptr, "int32_t*"), p(self.indices, "int32_t*"),
            p(self.off, "uint16_t*"))
        if rc != 0:
            raise RuntimeError("fast Jacobian assembly: the sparsity pattern does not hold "
                               "the element dofs (or has rows longer than 65534 entries)")
        self.Ae = np.zeros(nd * nd)
        self.coords = np.zeros(3 * self.gdofs.shape[1])
        # kernels and integration domains, by integral type
        ufcx = J_form.ufcx_form
        mod_ffi = J_form.module.ffi
        cpp = J_form._cpp_object
        offsets = [ufcx.form_integral_offsets[i] for i in range(4)]
        self.integrals = []
        for t in J_form.integral_types:
            tname = t.name
            code = {"cell": 0, "exterior_facet": 1}[tname]
            for i in range(cpp.num_integrals(t, 0)):
                integral = ufcx.form_integrals[offsets[code] + i]
                kptr = int(mod_ffi.cast("uintptr_t", integral.tabulate_tensor_float64))
                dom = np.asarray(cpp.domains(t, i), dtype=np.int32)
                if tname == "cell":
                    cells, local = np.ascontiguousarray(dom), None
                else:
                    dom = dom.reshape(-1, 2)
                    cells = np.ascontiguousarray(dom[:, 0])
                    local = np.ascontiguousarray(dom[:, 1])
                self.integrals.append(((t, i), kptr, cells, local))

    @classmethod
    def applicable(cls, J_form, comm) -> bool:
        """Serial run, only cell / exterior-facet integrals, and the C helper builds (it
        needs the C compiler FFCx uses and a writable cache directory; otherwise a warning
        says so and DOLFINx's assembly is used)."""
        if comm.size != 1 or not all(t.name in cls.supported_types
                                     for t in J_form.integral_types):
            return False
        if any(V.element.needs_dof_transformations for V in J_form.function_spaces):
            return False  # the C loop does not apply DOLFINx's dof transformations
        if any(V.dofmap.bs != 1 for V in J_form.function_spaces):
            return False  # the CSR offsets assume one value per dof (no blocked dofmaps)
        try:
            _load_lib()
        except Exception as err:  # noqa: BLE001  (any build failure: fall back, say why)
            warnings.warn(f"fxrod: fast Jacobian assembly unavailable ({err}); using "
                          "DOLFINx's assembly", RuntimeWarning, stacklevel=2)
            return False
        return True

    def _ptr(self, arr, ctype):
        return self.ffi.cast(ctype, arr.ctypes.data) if arr is not None else self.ffi.NULL

    def assemble(self) -> None:
        """Assemble the Jacobian at the current ``u`` into :attr:`A`."""
        fem = self._fem
        coeffs = fem.pack_coefficients(self.J)
        consts = np.ascontiguousarray(fem.pack_constants(self.J), dtype=np.float64)
        if consts.size == 0:
            consts = np.zeros(1)  # a valid pointer for kernels without constants
        self.vals[:] = 0.0
        p = self._ptr
        for key, kptr, cells, local in self.integrals:
            w = np.ascontiguousarray(coeffs[key], dtype=np.float64)
            stride = w.shape[1] if w.ndim == 2 else 0
            if w.size == 0:
                w = np.zeros(1)
            self.lib.lib.fxrod_add_element_matrices(
                kptr, cells.size, p(cells, "int32_t*"), p(local, "int32_t*"),
                p(w, "double*"), stride, p(consts, "double*"),
                p(self.x, "double*"), p(self.gdofs, "int32_t*"), self.gdofs.shape[1],
                p(self.dofs, "int32_t*"), self.nd, p(self.off, "uint16_t*"),
                p(self.indptr, "int32_t*"), p(self.vals, "double*"), p(self.Ae, "double*"),
                p(self.coords, "double*"))
        self.vals[self.bc_diag] = 1.0
        self.A.assemble()  # bumps the matrix state: the LU is refreshed

    def snes_callback(self, snes, x, J, P) -> None:
        """``SNES.setJacobian`` callback: copy x into u (as DOLFINx does), assemble."""
        from dolfinx.fem.petsc import assign

        assign(x, self.u)
        self.u.x.scatter_forward()
        self.assemble()
