"""Serial assembly through the FFCx kernels from small C loops: the Jacobian straight into the
CSR arrays of the PETSc matrix, residuals, vectors and functionals.

DOLFINx inserts every 66 x 66 element matrix of the mixed rod form with ``MatSetValues``,
which searches each of the 4356 column positions in its row: at n_e = 1000 that insertion
takes 58 % of the Jacobian assembly, the FFCx kernel 15 % (perf). This module calls the same
FFCx kernels (same packed coefficients and constants as DOLFINx, from the same compiled
form) from a small C loop that adds each element row into the matrix's value array by
walking the sorted column indices of that row once. The matrix entries are the ones
DOLFINx assembles (same kernels, same Dirichlet treatment: rows and columns of constrained
dofs zero, unit diagonal), up to the order of the floating-point additions
(tests/test_speed_paths.py compares them).

The same C loops serve residuals (:class:`KernelResidual`, a :class:`KernelVector` with the
Dirichlet rows), the supports' rows for the reactions (:class:`KernelVector` on the cells at
the supports) and the energy ledger's functionals (:class:`KernelScalar`), each giving
DOLFINx's values to the bit (the same kernels, the same additions in the same order).

Serial only (the matrix is a ``seqaij`` wrapping numpy arrays); under MPI the integrator
keeps DOLFINx's assembly. Forms with interior-facet integrals are not handled (the rod has
none) and also keep DOLFINx's assembly.
"""

from __future__ import annotations

import contextlib
import warnings
import weakref

import numpy as np

from fxrod import native
from fxrod.native import compat


def _load_lib():
    """The assembly helper (:func:`fxrod.native.load`), loaded once per process."""
    return native.load("assembly")


def prepare() -> None:
    """Build (or load) the assembly helper ahead of its use, e.g. while the C compiler builds
    a model's forms (:func:`fxrod.native.jit.forms`); a failure is reported where the helper is
    needed (:meth:`KernelJacobian.applicable`)."""
    with contextlib.suppress(Exception):
        _load_lib()


class FormKernels:
    """The FFCx kernels of a compiled form with their integration domains, where each
    entity's coefficients come from, and the packed constants (serial runs).

    An entity's coefficients are gathered as DOLFINx's ``pack_coefficients`` lays them out,
    with index arrays built once: by default (``packed=False``) the C loops of this module
    gather them entity by entity straight from the coefficients' arrays into a buffer of
    one entity (no array of all packed coefficients: the values are those at the
    assembly); ``packed=True`` keeps an array of all of them per integral (``"coeffs"``,
    filled by the caller, e.g. :mod:`fxrod.ancf.banded`, from ``"index"``). The
    construction checks the layout against ``pack_coefficients`` by packing every
    coefficient's dof numbers, so a layout it does not reproduce (dof transformations, an
    unknown integral type) raises ``RuntimeError``.

    Parameters
    ----------
    form : dolfinx.fem.Form
        Compiled form with only cell and exterior-facet integrals.
    cells : numpy.ndarray, optional
        Only the integration entities of these cells (all by default); the integrals in
        DOLFINx's order (cells, then exterior facets).
    packed : bool
        Keep every integral's packed coefficients (``"coeffs"``) and their positions in the
        coefficients' values laid end to end (``"index"``, int64; the last position, one
        past them, stands for a coefficient the integral does not use: zero). Otherwise
        every integral has ``"rel"`` (int32, the positions within each coefficient's array,
        the coefficients' columns one after the other, ``segments`` columns each) and
        ``"srcs"`` (the addresses of the coefficients' arrays, of a zero for the ones the
        integral does not use).
    """

    def __init__(self, form, cells: np.ndarray | None = None, packed: bool = True) -> None:
        from dolfinx import fem

        self._fem = fem
        self.form = form
        self.ffi = _load_lib().ffi
        cpp = compat.cpp_object(form)
        self.coefficients = list(cpp.coefficients)
        sizes = [c.x.array.size for c in self.coefficients]
        self._bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        if self._bounds[-1] >= np.iinfo(np.int32).max:
            raise RuntimeError("more coefficient values than int32 positions")
        self._zero = np.zeros(1)
        ufcx = form.ufcx_form
        mod_ffi = form.module.ffi
        offsets = [ufcx.form_integral_offsets[i] for i in range(4)]
        reference = fem.pack_coefficients(form)
        self.integrals = []
        #: columns of each coefficient in an entity's packed coefficients
        self.segments = np.zeros(len(self.coefficients), dtype=np.int32)
        codes = {"cell": 0, "exterior_facet": 1}
        for t in sorted(form.integral_types, key=lambda t: codes.get(t.name, -1)):
            code = codes.get(t.name)
            if code is None:
                raise RuntimeError(f"integral type {t.name} not supported")
            for i in range(cpp.num_integrals(t, 0)):
                integral = ufcx.form_integrals[offsets[code] + i]
                kptr = int(mod_ffi.cast("uintptr_t", integral.tabulate_tensor_float64))
                dom = np.asarray(cpp.domains(t, i), dtype=np.int32)
                if t.name == "cell":
                    dom = dom.reshape(-1, 1)
                else:
                    dom = dom.reshape(-1, 2)
                keep = (np.ones(dom.shape[0], dtype=bool) if cells is None
                        else np.isin(dom[:, 0], cells))
                if not keep.any():
                    continue   # no entity here: nothing to add
                dom = dom[keep]
                ent_cells = np.ascontiguousarray(dom[:, 0])
                local = None if t.name == "cell" else np.ascontiguousarray(dom[:, 1])
                enabled = [bool(integral.enabled_coefficients[k])
                           for k in range(len(self.coefficients))]
                index = self._gather_index(ent_cells, enabled)
                ref = np.asarray(reference[(t, i)])
                if index.shape[1] != (ref.shape[1] if ref.ndim == 2 else 0):
                    raise RuntimeError("coefficient layout differs from DOLFINx's")
                it = {"key": (t, i), "kernel": kptr, "cells": ent_cells, "local": local,
                      "index": index, "stride": index.shape[1], "keep": keep,
                      "enabled": enabled}
                self.integrals.append(it)
        self._check_gather()
        for it in self.integrals:
            if packed:
                it["coeffs"] = np.zeros(it["index"].shape if it["index"].size else (1,))
            else:
                self._unpack(it)
        packed_consts = np.asarray(fem.pack_constants(form))
        self.consts = np.zeros(max(1, packed_consts.size))
        #: DOLFINx's packing without its Python wrapper (a sequence check per call, half
        #: the cost of a small functional's value), when it returns what the wrapper does
        self._cpp_pack = None
        self._no_consts = packed_consts.size == 0      # nothing to pack, ever
        if packed_consts.dtype == np.float64 and packed_consts.ndim == 1:
            self._cpp_pack = compat.constants_packer(form)
        for it in self.integrals:
            it["ptrs"] = (self.ptr(it["cells"], "int32_t*"), self.ptr(it["local"], "int32_t*"),
                          *((self.ptr(it["coeffs"], "double*"),) if packed else
                            (self.ptr(it["rel"], "int32_t*"), it["stride"],
                             len(self.coefficients), self.ptr(self.segments, "int32_t*"),
                             self.ptr(it["srcs"], "uintptr_t*"))))
        self.consts_ptr = self.ptr(self.consts, "double*")
        #: the coefficients of one entity (the C loops' buffer, ``packed=False``)
        self.cbuf = np.zeros(max([1] + [it["stride"] for it in self.integrals]))
        self.cbuf_ptr = self.ptr(self.cbuf, "double*")

    def _unpack(self, it: dict) -> None:
        """``"rel"`` and ``"srcs"`` of integral ``it`` from its ``"index"`` (dropped)."""
        index = it.pop("index")
        rel = index - np.repeat(self._bounds[:-1], self.segments)
        for k, on in enumerate(it["enabled"]):
            if not on:
                lo = int(self.segments[:k].sum())
                rel[:, lo:lo + self.segments[k]] = 0
        it["rel"] = np.ascontiguousarray(rel, dtype=np.int32)
        it["srcs"] = np.array([c.x.array.ctypes.data if on else self._zero.ctypes.data
                               for c, on in zip(self.coefficients, it["enabled"],
                                                strict=True)], dtype=np.uintp)

    def ptr(self, arr, ctype):
        """A cffi pointer of type ``ctype`` to the data of ``arr`` (NULL for None)."""
        return self.ffi.cast(ctype, arr.ctypes.data) if arr is not None else self.ffi.NULL

    def _gather_index(self, cells: np.ndarray, enabled: list[bool]) -> np.ndarray:
        """Positions in the coefficients' values laid end to end of every entity's packed
        values (DOLFINx packs zeros for the coefficients an integral does not use: the
        position one past the end); sets :attr:`segments`."""
        cols = []
        for k, c in enumerate(self.coefficients):
            dm = c.function_space.dofmap
            bs = dm.bs
            cell_dofs = np.asarray(dm.map())[cells]            # (n_ent, n_dofs)
            idx = (cell_dofs[:, :, None] * bs + np.arange(bs)).reshape(cells.size, -1)
            self.segments[k] = idx.shape[1]
            cols.append(idx + self._bounds[k] if enabled[k]
                        else np.full_like(idx, self._bounds[-1]))
        if not cols:
            return np.zeros((cells.size, 0), dtype=np.int64)
        return np.ascontiguousarray(np.concatenate(cols, axis=1), dtype=np.int64)

    def _check_gather(self) -> None:
        """Pack every coefficient's global value numbers with DOLFINx and compare."""
        saved = [c.x.array.copy() for c in self.coefficients]
        try:
            for k, c in enumerate(self.coefficients):
                c.x.array[:] = np.arange(self._bounds[k], self._bounds[k + 1], dtype=float)
            ref = self._fem.pack_coefficients(self.form)
            for it in self.integrals:
                r = np.asarray(ref[it["key"]])
                r = r[it["keep"]] if r.ndim == 2 else r
                mine = np.where(it["index"] == self._bounds[-1], 0.0, it["index"])
                if it["index"].size and not np.array_equal(r, mine):
                    raise RuntimeError("coefficient packing differs from DOLFINx's")
        finally:
            for c, v in zip(self.coefficients, saved, strict=True):
                c.x.array[:] = v

    def pack_constants(self) -> None:
        """Copy the form's constants into :attr:`consts` (they change between solves)."""
        if self._no_consts:
            return
        if self._cpp_pack is not None:
            pack, cpp_form = self._cpp_pack
            c = pack(cpp_form)
            self.consts[: c.size] = c
            return
        c = np.asarray(self._fem.pack_constants(self.form), dtype=np.float64).ravel()
        self.consts[: c.size] = c


class _Products:
    """Context of a PETSc ``python`` matrix whose products are those of a
    :class:`KernelJacobian`'s CSR matrix (:meth:`KernelJacobian.matrix`, built at the first
    product): the operator handed to SNES when the Jacobian is only factored (a line
    search other than "basic" multiplies by it). Holds the Jacobian weakly (the matrix
    belongs to it)."""

    def __init__(self, fast_jacobian: KernelJacobian) -> None:
        self._fj = weakref.ref(fast_jacobian)

    def mult(self, mat, x, y) -> None:
        self._fj().matrix().mult(x, y)

    def multTranspose(self, mat, x, y) -> None:  # noqa: N802  (petsc4py's name)
        self._fj().matrix().multTranspose(x, y)


class KernelJacobian:
    """Assemble the compiled Jacobian form ``J_form`` into a ``seqaij`` matrix that shares
    its CSR arrays with numpy (serial runs), or only into element matrices or a condenser
    (the chain solver, :attr:`condenser`).

    The CSR arrays (12 bytes per nonzero, ~48 kB per rod element, and the positions of the
    element entries in them, 8.7 kB per element) exist only where the matrix is assembled:
    with ``csr=False`` (the chain solver's path, which factors the Jacobian inside its
    assembly) they are built when :attr:`csr` is first set (MUMPS after a factorisation the
    chain solver rejects, a line search that multiplies by the Jacobian).

    Parameters
    ----------
    J_form : dolfinx.fem.Form
        The compiled Jacobian of the residual (bilinear, same test/trial space).
    u : dolfinx.fem.Function
        The unknown tied to the residual and Jacobian.
    bcs : list of DirichletBC
        Constrained dofs: their rows and columns are zero, their diagonal is one.
    pattern : petsc4py.PETSc.Mat, optional
        An assembled matrix whose sparsity pattern holds ``J_form``'s, copied at once; by
        default the pairs of element dofs of the form's cells (DOLFINx's pattern of a form
        with cell and exterior-facet integrals), built when the matrix is first needed.
    csr : bool
        Assemble the CSR matrix (False: see :meth:`keep_element_matrices`; :attr:`A` is
        then an operator whose products are those of :meth:`matrix`).

    Raises
    ------
    RuntimeError
        The pattern does not hold the element dofs (or has rows longer than 65534).
    """

    supported_types = ("cell", "exterior_facet")

    def __init__(self, J_form, u, bcs, pattern=None, csr: bool = True) -> None:
        from petsc4py import PETSc

        self._petsc = PETSc
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
        self.n = n = V.dofmap.index_map.size_local
        self.is_bc = np.zeros(n + V.dofmap.index_map.num_ghosts, dtype=np.int8)
        bc_dofs = [np.asarray(bc.dof_indices()[0], dtype=np.int64) for bc in bcs]
        self.bc_dofs = np.unique(np.concatenate(bc_dofs)) if bc_dofs else np.zeros(0, int)
        self.is_bc[self.bc_dofs] = 1
        self.Ae = np.zeros(nd * nd)
        self.coords = np.zeros(3 * self.gdofs.shape[1])
        self.kernels = k = FormKernels(J_form, packed=False)
        #: pack the constants on every :meth:`snes_callback` (False: the owner packs them
        #: once per solve with ``kernels.pack_constants()``)
        self.constants_each_call = True
        self._static = (k.ptr(self.x, "double*"), k.ptr(self.gdofs, "int32_t*"),
                        self.gdofs.shape[1], k.ptr(self.dofs, "int32_t*"), self.nd)
        self._is_bc_ptr = k.ptr(self.is_bc, "int8_t*")
        self._Ae_coords = (k.ptr(self.Ae, "double*"), k.ptr(self.coords, "double*"))
        #: the CSR arrays of :meth:`matrix` (None until it is built)
        self.indptr = self.indices = self.vals = self.off = None
        self._A_csr = None
        if pattern is not None:
            ai, aj, _ = pattern.getValuesCSR()
            self._build_csr(np.ascontiguousarray(ai, dtype=np.int32),
                            np.ascontiguousarray(aj, dtype=np.int32))
        #: assemble the CSR matrix (False: only :attr:`elem` or the :attr:`condenser`, see
        #: :meth:`keep_element_matrices`)
        self.csr = bool(csr)
        #: the operator of the Newton systems: the CSR matrix, or (``csr=False`` at
        #: construction) a PETSc ``python`` matrix with the CSR matrix's products
        self.A = self.matrix() if csr else PETSc.Mat().createPython(
            [n, n], _Products(self), comm=PETSc.COMM_SELF)
        self.A.assemble()
        self._elem = None
        self._keep_elem = False
        self._elem_ptr = k.ffi.NULL
        #: with :attr:`csr` False: an object whose ``factor_jacobian(self)`` computes and
        #: consumes the element matrices cell by cell in place of :attr:`elem` (the chain
        #: solver, :meth:`fxrod.solvers.chain.ChainSolver.attach`), or None
        self.condenser = None
        #: what :attr:`elem` is while the condenser consumes the element matrices: a
        #: read-only view of one zero (no memory), passed as "the attached Jacobian's"
        self._consumed = np.broadcast_to(np.zeros(1), (self.dofs.shape[0], nd, nd))

    def _pattern(self) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr, indices)`` of the pairs of element dofs of the form's cells, rows
        sorted (DOLFINx's sparsity pattern of the form)."""
        cells = np.unique(np.concatenate([it["cells"] for it in self.kernels.integrals]))
        cd = np.ascontiguousarray(np.sort(self.dofs[cells], axis=1))  # sorted: fast inserts
        flat = cd.ravel()
        cell_of = np.ascontiguousarray(np.argsort(flat, kind="stable") // self.nd,
                                       dtype=np.int32)
        dof_ptr = np.zeros(self.n + 1, dtype=np.int32)
        np.cumsum(np.bincount(flat, minlength=self.n), out=dof_ptr[1:])
        mark = np.full(self.n, -1, dtype=np.int32)
        indptr = np.zeros(self.n + 1, dtype=np.int32)
        p, f = self._ptr, self.lib.lib.fxrod_csr_pattern
        args = (self.n, p(cd, "int32_t*"), self.nd, p(dof_ptr, "int32_t*"),
                p(cell_of, "int32_t*"), p(mark, "int32_t*"), p(indptr, "int32_t*"))
        f(*args, self.ffi.NULL)
        np.cumsum(indptr, out=indptr)
        indices = np.empty(int(indptr[-1]), dtype=np.int32)
        mark[:] = -1
        f(*args, p(indices, "int32_t*"))
        return indptr, indices

    def _build_csr(self, indptr: np.ndarray, indices: np.ndarray) -> None:
        """The CSR arrays on the pattern ``(indptr, indices)`` (int32), the positions of the
        element entries in them and the ``seqaij`` matrix that wraps them."""
        self.indptr, self.indices = indptr, indices
        self.vals = np.zeros(indices.size)
        n, nd = self.n, self.nd
        # the diagonal of the Dirichlet rows (unit): its position in each sorted row
        pos = np.array([indptr[r] + np.searchsorted(indices[indptr[r]:indptr[r + 1]], r)
                        for r in self.bc_dofs], dtype=np.int64)
        held = pos < indptr[self.bc_dofs + 1]
        held[held] = indices[pos[held]] == self.bc_dofs[held]
        self.bc_diag = pos[held]
        order = np.ascontiguousarray(np.argsort(self.dofs, axis=1, kind="stable"),
                                     dtype=np.int32)
        self.off = np.empty(self.dofs.shape[0] * nd * nd, dtype=np.uint16)
        p = self._ptr
        rc = self.lib.lib.fxrod_element_offsets(
            self.dofs.shape[0], p(self.dofs, "int32_t*"), nd, p(order, "int32_t*"),
            p(self.is_bc, "int8_t*"), p(indptr, "int32_t*"), p(indices, "int32_t*"),
            p(self.off, "uint16_t*"))
        if rc != 0:
            raise RuntimeError("fast Jacobian assembly: the sparsity pattern does not hold "
                               "the element dofs (or has rows longer than 65534 entries)")
        PETSc = self._petsc
        self._A_csr = PETSc.Mat().createAIJWithArrays((n, n), (indptr, indices, self.vals),
                                                      comm=PETSc.COMM_SELF)
        self._A_csr.assemble()
        self._csr_ptrs = (p(self.off, "uint16_t*"), p(indptr, "int32_t*"),
                          p(self.vals, "double*"))

    def matrix(self):
        """The CSR matrix (``seqaij`` on :attr:`vals`, :attr:`indices`, :attr:`indptr`),
        built at the first call; :meth:`assemble` fills it while :attr:`csr` is set.

        Returns
        -------
        petsc4py.PETSc.Mat
        """
        if self._A_csr is None:
            self._build_csr(*self._pattern())
        return self._A_csr

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

    @property
    def elem(self) -> np.ndarray | None:
        """The element matrices by cell (n_cells, nd, nd) [the Jacobian's units], Dirichlet
        rows and columns zero, after :meth:`keep_element_matrices` (None before): the
        chain solver's input. While the :attr:`condenser` consumes them (:attr:`csr`
        False) no such array exists (10 000 cells: 348 MB): a read-only view of zeros
        stands for them, which the condenser recognises as its own Jacobian's."""
        if not self._keep_elem:
            return None
        if self._elem is None:
            if self.condenser is not None and not self.csr:
                return self._consumed
            self._elem = np.zeros((self.dofs.shape[0], self.nd, self.nd))
            self._elem_ptr = self.kernels.ptr(self._elem, "double*")
        return self._elem

    def keep_element_matrices(self, csr: bool = True) -> None:
        """Also keep every cell's element matrix in :attr:`elem` on each assembly;
        ``csr=False``: only those (the CSR values are then left alone and only the state
        of :attr:`A` is increased, so that a preconditioner set up from :attr:`elem` sees
        a new operator; set :attr:`csr` to assemble the CSR matrix again)."""
        self._keep_elem = True
        self.csr = bool(csr)

    def assemble(self, constants: bool = True) -> None:
        """Assemble the Jacobian at the current ``u`` into the CSR matrix, :attr:`elem` or
        the :attr:`condenser` (``constants=False`` reuses the constants packed by the last
        call: within one Newton solve they do not change)."""
        k = self.kernels
        if constants:
            k.pack_constants()
        if self.condenser is not None:
            self.condenser.factor_jacobian(self)
            if not self.csr:
                self.A.stateIncrease()  # a new operator for the preconditioner
                return
        if self.csr:
            self.matrix()
            self.vals[:] = 0.0
            csr = self._csr_ptrs
        else:  # no CSR values: NULL for vals
            csr = (k.ffi.NULL, k.ffi.NULL, k.ffi.NULL)
        elem = k.ffi.NULL
        if self.condenser is None and self.elem is not None:
            self._elem.fill(0.0)
            elem = self._elem_ptr
        add = self.lib.lib.fxrod_add_element_matrices
        for it in k.integrals:
            add(it["kernel"], it["cells"].size, *it["ptrs"], k.cbuf_ptr, k.consts_ptr,
                *self._static, *csr, *self._Ae_coords, elem, self._is_bc_ptr)
        if self.csr:
            self.vals[self.bc_diag] = 1.0
            self._A_csr.assemble()  # bumps the matrix state: the LU is refreshed
        if self.A is not self._A_csr:
            self.A.stateIncrease()  # a new operator for the preconditioner

    def snes_callback(self, snes, x, J, P) -> None:
        """``SNES.setJacobian`` callback: copy x into u (as DOLFINx does), assemble."""
        from dolfinx.fem.petsc import assign

        assign(x, self.u)
        self.u.x.scatter_forward()
        self.assemble(constants=self.constants_each_call)


class KernelVector:
    """Assemble a linear form through its FFCx kernels from a small C loop, without
    Dirichlet conditions, optionally only on some cells: the rows those cells hold get
    exactly DOLFINx's ``assemble_vector`` values (the same contributions added in the same
    order) when every cell that holds them is among ``cells`` (serial runs; the supports'
    rows for their reactions).

    Parameters
    ----------
    form : dolfinx.fem.Form
        Compiled linear form (cell and exterior-facet integrals).
    V : dolfinx.fem.FunctionSpace
        Its test space (block size 1).
    cells : numpy.ndarray, optional
        The cells to assemble (all by default).

    Raises
    ------
    RuntimeError
        As :class:`FormKernels`.
    """

    def __init__(self, form, V, cells: np.ndarray | None = None) -> None:
        self.lib = _load_lib()
        self.kernels = k = FormKernels(form, cells, packed=False)
        if V.dofmap.bs != 1 or V.element.needs_dof_transformations:
            raise RuntimeError("fast vector assembly: blocked dofmap or dof transformations")
        msh = V.mesh
        self.dofs = np.ascontiguousarray(V.dofmap.list, dtype=np.int32)
        self.gdofs = np.ascontiguousarray(msh.geometry.dofmaps[0], dtype=np.int32)
        self.x = np.ascontiguousarray(msh.geometry.x, dtype=np.float64)
        #: the assembled vector (local dof numbering, the ghost rows after the owned ones;
        #: zero outside the cells' rows)
        self.b = np.zeros(V.dofmap.index_map.size_local + V.dofmap.index_map.num_ghosts)
        self.be = np.zeros(self.dofs.shape[1])
        self.coords = np.zeros(3 * self.gdofs.shape[1])
        self._static = (k.ptr(self.x, "double*"), k.ptr(self.gdofs, "int32_t*"),
                        self.gdofs.shape[1], k.ptr(self.dofs, "int32_t*"), self.dofs.shape[1],
                        k.ptr(self.b, "double*"), k.ptr(self.be, "double*"),
                        k.ptr(self.coords, "double*"))
        self._add = self.lib.lib.fxrod_add_element_vectors
        self._args: list[tuple] | None = None

    def assemble(self) -> np.ndarray:
        """:attr:`b` at the current coefficients and constants."""
        self.kernels.pack_constants()
        return self.add_elements()

    def add_elements(self) -> np.ndarray:
        """:attr:`b` at the current coefficients and the constants as last packed into
        :attr:`kernels`."""
        if self._args is None:   # every integral's arguments of the C loop, made once
            k = self.kernels
            self._args = [(it["kernel"], it["cells"].size, *it["ptrs"], k.cbuf_ptr,
                           k.consts_ptr, *self._static) for it in k.integrals]
        self.b[:] = 0.0
        add = self._add
        for args in self._args:
            add(*args)
        return self.b


class KernelResidual:
    """Assemble the residual ``F(u)`` with Dirichlet rows ``x - g`` into a numpy array, as
    DOLFINx's ``assemble_residual`` (SNES callback of ``NonlinearProblem``) does, through
    the same FFCx kernels (serial runs).

    DOLFINx also lifts the residual by ``J[:, bc] (g - x)``; that term is exactly zero when
    the iterate holds the boundary values exactly (every Newton iterate from a predictor
    that does). When it does not (a support moved at the start of a step),
    :meth:`snes_callback` hands that evaluation to DOLFINx's ``fallback``.

    Parameters
    ----------
    F_form : dolfinx.fem.Form
        The compiled residual (linear form on ``u``'s space, block size 1).
    u : dolfinx.fem.Function
        The unknown tied to the residual.
    bcs : list of DirichletBC
        Dirichlet conditions.
    fallback : callable
        ``fallback(snes, x, b)``: DOLFINx's residual callback.
    """

    def __init__(self, F_form, u, bcs, fallback) -> None:
        #: the element-vector assembly of ``F_form`` (no Dirichlet rows)
        self.vector = KernelVector(F_form, u.function_space)
        self.kernels = self.vector.kernels
        self.u = u
        self.bcs = bcs
        self.fallback = fallback
        n = u.x.array.size
        bc_dofs = [np.asarray(bc.dof_indices()[0], dtype=np.int64) for bc in bcs]
        self.bc_dofs = np.unique(np.concatenate(bc_dofs)) if bc_dofs else np.zeros(0, int)
        #: the values of ``u`` (its array; :meth:`assemble` of it copies nothing)
        self.values = u.x.array
        #: the residual (the vector's array)
        self.b = self.vector.b
        self._n = n
        #: the boundary values at :attr:`bc_dofs` (:meth:`boundary_values_held`)
        self.g = np.zeros(self.bc_dofs.size)
        #: residual evaluations handed to DOLFINx (iterate off the boundary values)
        self.fallbacks = 0

    def boundary_values_held(self, x: np.ndarray) -> bool:
        """Whether ``x`` equals the boundary values :attr:`g` exactly at every Dirichlet dof
        (kept for :meth:`assemble`)."""
        if self.bc_dofs.size == 0:
            return True
        g = np.empty(self._n)   # only the Dirichlet entries are written and read
        g[self.bc_dofs] = x[self.bc_dofs]
        for bc in self.bcs:
            bc.set(g)  # g[bc dofs] = boundary values
        self.g[:] = g[self.bc_dofs]
        return bool(np.array_equal(self.g, x[self.bc_dofs]))

    def assemble(self, x: np.ndarray) -> np.ndarray:
        """Residual at ``x`` (copied into ``u`` unless it is :attr:`values`) in :attr:`b`:
        element vectors, then ``b[bc] = x[bc] - g`` (the caller has checked
        :meth:`boundary_values_held`; the constants are those of the last
        ``kernels.pack_constants()``; the kernels read every coefficient at the assembly)."""
        if x is not self.values:
            self.values[:] = x
        self.vector.add_elements()
        if self.bc_dofs.size:
            self.b[self.bc_dofs] = x[self.bc_dofs] - self.g
        return self.b

    def snes_callback(self, snes, x, b) -> None:
        """``SNES.setFunction`` callback."""
        xa = x.getArray(readonly=True)
        if not self.boundary_values_held(xa):
            self.fallbacks += 1
            self.fallback(snes, x, b)
            return
        b.setArray(self.assemble(xa))


class KernelScalar:
    """Assemble a scalar form (cell and exterior-facet integrals) through its FFCx kernels
    from a small C loop, as DOLFINx's ``assemble_scalar`` does (each integral summed over
    its entities in order, the integrals added in the form's order), without its per-call
    packing (serial runs; the energy ledger's entries).

    Parameters
    ----------
    form : dolfinx.fem.Form
        Compiled functional.

    Raises
    ------
    RuntimeError
        An integral type other than cell / exterior facet, or a coefficient layout
        :class:`FormKernels` does not reproduce.
    """

    def __init__(self, form) -> None:
        self.lib = _load_lib()
        self.kernels = k = FormKernels(form, packed=False)
        msh = form.mesh
        self.gdofs = np.ascontiguousarray(msh.geometry.dofmaps[0], dtype=np.int32)
        self.x = np.ascontiguousarray(msh.geometry.x, dtype=np.float64)
        self.coords = np.zeros(3 * self.gdofs.shape[1])
        self.total = np.zeros(1)
        self._static = (k.ptr(self.x, "double*"), k.ptr(self.gdofs, "int32_t*"),
                        self.gdofs.shape[1], k.ptr(self.coords, "double*"),
                        k.ptr(self.total, "double*"))
        # every integral's arguments of the C loop, made once (a read-out is evaluated
        # every recorded step: its Python costs more than its arithmetic on a small rod)
        self._add = self.lib.lib.fxrod_add_element_scalars
        self._args = [(it["kernel"], it["cells"].size, *it["ptrs"], k.cbuf_ptr,
                       k.consts_ptr, *self._static) for it in k.integrals]

    def value(self) -> float:
        """The form's value at the current coefficients and constants."""
        self.kernels.pack_constants()
        add, total, value = self._add, self.total, 0.0
        for args in self._args:
            total[0] = 0.0
            add(*args)
            value += total[0]
        return float(value)
