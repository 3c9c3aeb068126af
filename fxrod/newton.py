"""Newton's method for a UFL residual ``F(w) = 0``: PETSc SNES with a MUMPS LU, configured
from one :class:`fxrod.settings.SolverSettings`. Shared by every formulation (Cosserat rod,
ANCF beam) and every stepper (dynamics, load stepping).

The solver only solves: it never changes the forms, the boundary conditions or any
constant of the problem. Serial runs assemble the Jacobian with
:class:`fxrod.fastassembly.FastJacobian` (same FFCx kernels, direct CSR insertion) unless
``settings.fast_assembly`` is off or the helper cannot be built (then with a warning).
"""

from __future__ import annotations

import itertools
import warnings

from dolfinx import fem
from dolfinx.fem.petsc import NonlinearProblem, assemble_matrix
from petsc4py import PETSc

from fxrod._malloc import tune_malloc
from fxrod.fastassembly import FastJacobian
from fxrod.settings import SolverSettings

_SNES_REASONS = {v: k for k, v in PETSc.SNES.ConvergedReason.__dict__.items()
                 if isinstance(v, int)}
_PREFIX = itertools.count(1)


def snes_reason_name(code: int) -> str:
    """Human-readable name of a PETSc SNES converged reason, e.g. ``DIVERGED_MAX_IT (-5)``."""
    return f"{_SNES_REASONS.get(code, 'UNKNOWN')} ({code})"


class NewtonSolver:
    """SNES Newton solver of ``F(w) = 0`` with Dirichlet conditions ``bcs``.

    Parameters
    ----------
    F : ufl.Form
        Residual (a linear form in the test functions of ``w``'s space).
    w : dolfinx.fem.Function
        The unknown; holds the initial iterate before :meth:`solve` and the solution after.
    bcs : list of dolfinx.fem.DirichletBC
        Dirichlet conditions.
    settings : SolverSettings
        Tolerances, Jacobian lag, line search, MUMPS options, fast assembly.
    J : ufl.Form, optional
        Jacobian form (default: the Gateaux derivative of ``F`` with respect to ``w``).
    """

    def __init__(self, F, w: fem.Function, bcs: list, settings: SolverSettings,
                 J=None) -> None:
        self.settings = s = settings
        if s.malloc_tuning:
            tune_malloc()
        self.w = w
        self.bcs = bcs
        opts = {
            "snes_type": "newtonls",
            "snes_linesearch_type": s.linesearch,
            "snes_atol": s.atol,
            "snes_rtol": s.rtol,
            "snes_stol": s.stol,
            "snes_max_it": s.max_it,
            "ksp_type": "preonly",
            "pc_type": "lu",
            "pc_factor_mat_solver_type": "mumps",
            "snes_lag_jacobian": s.jacobian_lag,
            "snes_lag_jacobian_persists": False,
        }
        self.problem = NonlinearProblem(F, w, bcs=bcs, J=J,
                                        petsc_options_prefix=f"fxrod{next(_PREFIX)}_",
                                        petsc_options=opts)
        self.snes = self.problem.solver
        # A first assembly with every entry of the dofmap pattern inserted fixes the
        # sparsity pattern (hence the MUMPS analysis) for the whole run.
        A = self.problem.A
        A.zeroEntries()
        assemble_matrix(A, self.problem.J, bcs=bcs)
        A.assemble()
        self.fast_jacobian = None
        comm = w.function_space.mesh.comm
        if s.fast_assembly and FastJacobian.applicable(self.problem.J, comm):
            try:
                self.fast_jacobian = FastJacobian(self.problem.J, w, bcs, A)
            except RuntimeError as err:  # unexpected pattern: DOLFINx's assembly instead
                warnings.warn(f"fxrod: {err}; using DOLFINx's assembly", RuntimeWarning,
                              stacklevel=2)
        if self.fast_jacobian is not None:
            A_fast = self.fast_jacobian.A
            self.snes.setJacobian(self.fast_jacobian.snes_callback, A_fast, A_fast)
            # NonlinearProblem owns (and destroys) the matrix in use; 0.11 has no setter
            self.problem._A = A_fast
            A.destroy()
            A = A_fast
        else:
            # The element matrices of the mixed rod form are ~77 % structural zeros (nodal
            # multiplier blocks, uncoupled director components): skip them on insertion.
            A.setOption(PETSc.Mat.Option.IGNORE_ZERO_ENTRIES, True)
        ksp = self.snes.getKSP()
        ksp.setOperators(A, A)
        pc = ksp.getPC()
        pc.setFactorSetUpSolverType()
        mumps = pc.getFactorMatrix()
        for k, v in s.icntl(comm.size).items():
            mumps.setMumpsIcntl(k, v)

    def _set_lag(self, lag: int) -> None:
        """Set snes_lag_jacobian (petsc4py has no setter) through the options database."""
        opts = PETSc.Options()
        pre = self.snes.getOptionsPrefix()
        opts[f"{pre}snes_lag_jacobian"] = lag
        opts[f"{pre}snes_lag_jacobian_persists"] = False
        self.snes.setFromOptions()
        del opts[f"{pre}snes_lag_jacobian"]
        del opts[f"{pre}snes_lag_jacobian_persists"]

    def solve(self, lag: int | None = None, linesearch: str | None = None) -> tuple[int, int]:
        """Solve from the iterate in ``w``; return ``(SNES reason, Newton iterations)``.

        ``lag`` and ``linesearch`` override the settings for this solve only.
        """
        s = self.settings
        lag_changed = lag is not None and lag != s.jacobian_lag
        if lag_changed:
            self._set_lag(lag)
        ls = self.snes.getLineSearch()
        if linesearch is not None:
            ls.setType(linesearch)
        try:
            self.problem.solve()
        except PETSc.Error:  # e.g. a singular factorisation: report it as a failed solve
            return (int(PETSc.SNES.ConvergedReason.DIVERGED_LINEAR_SOLVE),
                    self.snes.getIterationNumber())
        finally:
            if lag_changed:
                self._set_lag(s.jacobian_lag)
            if linesearch is not None:
                ls.setType(s.linesearch)
        return self.snes.getConvergedReason(), self.snes.getIterationNumber()
