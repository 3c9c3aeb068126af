"""MUMPS, fxrod's sparse direct solver: the only module that configures it.

Every MUMPS factorisation in fxrod is set up here with the ICNTL values of one
:class:`fxrod.solvers.settings.SolverSettings`
(:meth:`~fxrod.solvers.settings.SolverSettings.icntl`): the
LU of the Newton solvers (inside PETSc SNES, :func:`snes_options` and :func:`configure`), the
chain solver's fallback, the continuation's LDL^T with its inertia (or, for a non-symmetric
tangent, its LU with the sign of the determinant), the shift-invert of modes and buckling,
and the adjoint's transpose solves (:class:`DirectSolver`).

The settings' ICNTL defaults are tuned for Newton's step matrices, whose solves the next
iterate corrects (no scaling: :data:`fxrod.solvers.settings.MUMPS_DEFAULTS`). A factorisation whose
solves an analysis takes as they are - an eigen-solver's shift-invert, the continuation's
LDL^T and its inertia, the adjoint's transpose solves - keeps MUMPS's scaling (``scaled``,
ICNTL(8) = 77): without it the modes of a rod on an elastic ground lost a digit (relative
error 1.9e-12 against the eigen-solver's 1e-12) and a corrector of the deep arch's
continuation failed where the scaled factorisation needs no cut.

Two behaviours every path shares:

- the ICNTL values are written to the PETSc options database under the factor's own prefix
  as well as into the factor: PETSc makes a new factor, read from the options, when the
  sparsity pattern grows (rod-rod contact pairs appearing);
- a factorisation that runs out of workspace (INFOG(1) = -8 or -9: more delayed pivots of the
  indefinite saddle-point matrix than the analysis foresaw) doubles ICNTL(14), the percentage
  of extra workspace, and is tried again (:func:`grow_workspace`).
"""

from __future__ import annotations

import itertools

from petsc4py import PETSc

from fxrod.solvers.pattern import PatternWatch

#: The factorisations: ``"lu"`` (general; the sign of the determinant on request:
#: :meth:`DirectSolver.determinant_sign`) and ``"ldlt"`` (symmetric indefinite, with the
#: inertia: :meth:`DirectSolver.negative_eigenvalues`).
FACTORS = {"lu": PETSc.PC.Type.LU, "ldlt": PETSc.PC.Type.CHOLESKY}

#: Largest ICNTL(14) (extra workspace in percent) :func:`grow_workspace` goes to.
MAX_WORKSPACE = 3200

_PREFIX = itertools.count(1)


def snes_options() -> dict[str, str]:
    """PETSc options that make an SNES's linear solver a MUMPS LU (``preonly``)."""
    return {"ksp_type": "preonly", "pc_type": "lu", "pc_factor_mat_solver_type": "mumps"}


def new_prefix(kind: str) -> str:
    """A PETSc options prefix of its own for a new solver object, ``fxrod<kind><n>_``."""
    return f"fxrod{kind}{next(_PREFIX)}_"


def _with_scaling(icntl: dict[int, int], scaled: bool) -> dict[int, int]:
    """``icntl`` with MUMPS's automatic scaling (ICNTL(8) = 77) when ``scaled``."""
    return {**icntl, 8: 77} if scaled else dict(icntl)


def set_options(prefix: str, icntl: dict[int, int], factor: str = "lu",
                scaled: bool = True) -> None:
    """Write a MUMPS ``factor`` with the ICNTL values ``icntl`` into the options database
    under ``prefix``: for a linear solver that PETSc or SLEPc sets up later (the spectral
    transformation's KSP of an eigen-solver, prefix ``<eps prefix>st_``); the owner's
    ``setFromOptions`` reads them. ``scaled``: keep MUMPS's scaling (module docstring)."""
    icntl = _with_scaling(icntl, scaled)
    opts = PETSc.Options()
    values = {"ksp_type": "preonly", "pc_type": FACTORS[factor],
              "pc_factor_mat_solver_type": "mumps",
              **{f"mat_mumps_icntl_{k}": v for k, v in icntl.items()}}
    for k, v in values.items():
        opts[f"{prefix}{k}"] = v


def set_icntl(pc: PETSc.PC, icntl: dict[int, int]) -> None:
    """Give the MUMPS factor of ``pc`` (prepared with ``setFactorSetUpSolverType``) the ICNTL
    values ``icntl`` and keep them in the options database under ``pc``'s prefix (a new
    factor after a pattern change reads them from there)."""
    pre = pc.getOptionsPrefix()
    if not pre:
        raise ValueError("set_icntl needs a PC with an options prefix of its own")
    opts = PETSc.Options()
    factor = pc.getFactorMatrix()
    for k, v in icntl.items():
        opts[f"{pre}mat_mumps_icntl_{k}"] = v
        opts.getInt(f"{pre}mat_mumps_icntl_{k}")   # marked as used: no warning at exit
        factor.setMumpsIcntl(k, v)


def configure(pc: PETSc.PC, icntl: dict[int, int], factor: str = "lu",
              scaled: bool = False) -> None:
    """Make ``pc`` (with operators and an options prefix of its own) a MUMPS ``factor``
    (:data:`FACTORS`) with the ICNTL values ``icntl``, MUMPS's scaling kept when ``scaled``
    (module docstring). The LDL^T of an indefinite matrix is always scaled, counts its
    inertia on the root node too (ICNTL(13) = 1) and starts with room for its delayed 2x2
    pivots (ICNTL(14) = 100 unless ``icntl`` sets it)."""
    pc.setType(FACTORS[factor])
    pc.setFactorSolverType("mumps")
    pc.setFactorSetUpSolverType()
    if factor == "ldlt":
        icntl, scaled = {13: 1, 14: 100, **icntl}, True
    set_icntl(pc, _with_scaling(icntl, scaled))


def grow_workspace(pc: PETSc.PC, limit: int = MAX_WORKSPACE) -> bool:
    """After a failed factorisation: if MUMPS ran out of workspace (INFOG(1) = -8 or -9),
    double ICNTL(14) (up to ``limit``) for the next factorisation of ``pc`` and return True.
    MUMPS sizes its workspace in the analysis, so ``pc`` is reset: the next set-up analyses
    again with the new value."""
    if pc.getType() not in FACTORS.values() or pc.getFactorSolverType() != "mumps":
        return False
    factor = pc.getFactorMatrix()
    extra = factor.getMumpsIcntl(14)
    if factor.getMumpsInfog(1) not in (-8, -9) or extra >= limit:
        return False
    set_icntl(pc, {14: min(2 * extra, limit)})
    pc.reset()
    return True


class DirectSolver:
    """A MUMPS factorisation of one matrix at a time, and its solves.

    Parameters
    ----------
    comm : MPI communicator
        The matrix's communicator.
    icntl : dict of int to int
        ICNTL values (:meth:`fxrod.solvers.settings.SolverSettings.icntl`).
    factor : {"lu", "ldlt"}
        The factorisation (:data:`FACTORS`); ``"ldlt"`` needs a symmetric matrix.
    scaled : bool
        Keep MUMPS's scaling (default: an analysis's solves, module docstring); False for
        Newton's step matrices.
    determinant : bool
        Let MUMPS compute the determinant with the factors (ICNTL(33) = 1; the scaling and
        the permutations accounted for): :meth:`determinant_sign`. Default False.
    """

    def __init__(self, comm, icntl: dict[int, int], factor: str = "lu",
                 scaled: bool = True, determinant: bool = False) -> None:
        if factor not in FACTORS:
            raise ValueError(f"factor: {factor!r} not one of {sorted(FACTORS)}")
        self.factor_kind = factor
        self.determinant = bool(determinant)
        self.icntl = {**icntl, 33: 1} if self.determinant else dict(icntl)
        self.scaled = scaled
        self.ksp = PETSc.KSP().create(comm)
        self.ksp.setOptionsPrefix(new_prefix("mumps"))
        self.ksp.setType(PETSc.KSP.Type.PREONLY)
        self._configured = False
        self._watch = PatternWatch()

    def factor(self, A: PETSc.Mat) -> None:
        """Factorise ``A`` (again when its values or pattern changed), growing the workspace
        when MUMPS asks for it; raise RuntimeError with INFOG(1) when MUMPS fails (e.g. an
        exactly singular matrix)."""
        pc = self.ksp.getPC()
        self._watch.check(A, pc)      # a pattern grown by contact pairs: a new analysis
        self.ksp.setOperators(A, A)
        if not self._configured:
            configure(pc, self.icntl, self.factor_kind, self.scaled)
            self._configured = True
        while True:
            try:
                self.ksp.setUp()
            except PETSc.Error:
                pass                                   # reported by INFOG(1) below
            # the factor after set-up: a grown pattern (contact pairs) makes a new one
            info = pc.getFactorMatrix().getMumpsInfog(1)
            if info >= 0 or not grow_workspace(pc):
                break
        if info < 0:
            raise RuntimeError(f"MUMPS factorisation failed (INFOG(1) = {info})")

    def solve(self, b: PETSc.Vec, x: PETSc.Vec) -> None:
        """``x = A^-1 b`` with the last factorisation."""
        self.ksp.solve(b, x)
        self._check()

    def solve_transpose(self, b: PETSc.Vec, x: PETSc.Vec) -> None:
        """``x = A^-T b`` with the last factorisation."""
        self.ksp.solveTranspose(b, x)
        self._check()

    def _check(self) -> None:
        reason = self.ksp.getConvergedReason()
        if reason < 0:
            raise RuntimeError(f"MUMPS solve failed (KSP reason {reason})")

    def negative_eigenvalues(self) -> int:
        """Number of negative eigenvalues of the last LDL^T-factorised matrix (INFOG(12))."""
        if self.factor_kind != "ldlt":
            raise ValueError("negative_eigenvalues needs the 'ldlt' factorisation")
        return int(self.ksp.getPC().getFactorMatrix().getMumpsInfog(12))

    def determinant_sign(self) -> int:
        """Sign (+1 or -1) of the determinant of the last factorised matrix: the sign of
        its mantissa RINFOG(12) (the determinant is RINFOG(12) 2^INFOG(34), global on every
        rank). Needs ``determinant=True``."""
        if not self.determinant:
            raise ValueError("determinant_sign needs determinant=True")
        mantissa = self.ksp.getPC().getFactorMatrix().getMumpsRinfog(12)
        if not mantissa:
            raise RuntimeError("MUMPS reported a zero determinant (an exactly singular matrix)")
        return 1 if mantissa > 0.0 else -1

    def destroy(self) -> None:
        """Free the factorisation."""
        self.ksp.destroy()
