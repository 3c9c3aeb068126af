"""The banded path of the ANCF solvers: FFCx kernels from C, banded LU, Newton in C (theory §A4).

The general path hands every Newton solve to PETSc SNES
(:class:`fxrod.solvers.newton.NewtonSolver`) with DOLFINx's assembly and a MUMPS LU. For a
beam of 10-40 elements (40-164 unknowns) that machinery, not the arithmetic, is the cost
(bench/README.md): a release spends most of its time in Python callbacks, coefficient
packing and PETSc object traffic whatever the element count.
This module keeps the same compiled forms and runs

* the same FFCx kernels (same packed coefficients and constants, gathered with
  :class:`fxrod.native.assembly.FormKernels`) over the cells from a small C loop, adding element
  vectors into a numpy array and element matrices into a banded array;
* a banded LU with partial pivoting: numbered node by node (``[r_x, r_y, l_e r'_x,
  l_e r'_y]`` of node k at ``4k..4k+3``) the Jacobian has ``kl = ku = 7``;
* SNES ``newtonls`` with ``linesearch="basic"`` and ``jacobian_lag=1`` step for step in C:
  ``x <- x - J(x)^-1 F(x)``, Dirichlet rows ``x - g = 0`` and unit diagonal, and PETSc's
  default convergence test (``|F| < atol``; ``|F| <= rtol |F_0|``; ``|dx| < stol |x|``;
  ``|F| > 1e4 |F_0|`` diverged; ``max_it``), returning the SNES reason codes.

The iterates are those of the general path up to round-off (the element tensors are the
same numbers; only the order of the additions and the LU differ), see tests/test_ancf_fast.py.

:class:`BandedNewton` applies to a residual on the beam's space with ``jacobian_lag == 1``
and ``linesearch == "basic"`` (:meth:`BandedNewton.applicable`); its :meth:`BandedNewton.solve`
returns ``None`` (the caller then uses the general path) when the iterate does not hold the
boundary values. Building raises ``RuntimeError`` when the C helper cannot be compiled or
its first residual differs from DOLFINx's. Serial objects (``MPI.COMM_SELF``), like the beam.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import ufl
from dolfinx import fem

from fxrod import native
from fxrod.ancf.element import ANCFBeam
from fxrod.native import compat
from fxrod.native.assembly import FormKernels
from fxrod.solvers.settings import SolverSettings

#: Lower and upper bandwidth of the node-by-node numbering (two nodes of 4 dofs per element).
BAND = 7
#: PETSc's default divergence tolerance: ``|F| > DIVTOL |F_0|`` is SNES_DIVERGED_DTOL.
DIVTOL = 1.0e4
#: SNES reason codes returned by the C Newton loop (PETSc's values).
CONVERGED_FNORM_ABS, CONVERGED_FNORM_RELATIVE, CONVERGED_SNORM_RELATIVE = 2, 3, 4
DIVERGED_LINEAR_SOLVE, DIVERGED_FUNCTION_NANORINF, DIVERGED_MAX_IT = -3, -4, -5
DIVERGED_DTOL = -9

def _helper():
    """The compiled C helper (:func:`fxrod.native.load`), built once per machine and cached."""
    return native.load("ancf")


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
    :class:`fxrod.native.assembly.FormKernels`, checked there against DOLFINx's packing; the
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
        consts = [np.asarray(c.value) for c in compat.cpp_object(form).constants]
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


class BandedNewton:
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


class BandedAcceleration:
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
