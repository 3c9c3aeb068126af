"""Newton's method for a UFL residual ``F(w) = 0``: PETSc SNES with a MUMPS LU, configured
from one :class:`fxrod.solvers.settings.SolverSettings`. Shared by every formulation (Cosserat rod,
ANCF beam) and every stepper (dynamics, load stepping).

The solver only solves: it never changes the forms, the boundary conditions or any
constant of the problem. Serial runs assemble the Jacobian with
:class:`fxrod.native.assembly.KernelJacobian` (same FFCx kernels, direct CSR insertion) and the
residual with :class:`fxrod.native.assembly.KernelResidual` unless ``settings.fast_assembly``
(``fast_residual``) is off or the helper cannot be built (then with a warning). The
constants of the forms are packed once per solve (they do not change within one). One
open rod on several ranks, on the chain solver (:mod:`fxrod.solvers.chain_mpi`): the
residual and the element matrices of each rank's cells by the same kernels (the ghost rows
added to their owners), the element matrices factored inside the Jacobian callback, the
chain solver the preconditioner of a ``preonly`` KSP.

Terms that couple distant dofs (rod-rod contact, :mod:`fxrod.core.forms.rodcontact`) cannot be
UFL forms: the model holds them (:attr:`fxrod.core.model.RodModel.nonlocal_terms`) and hands them
to its solvers (``terms``), which add their rows (``add_residual(b, skip)``) and blocks
(``add_jacobian(A, skip)``, ``skip`` the global Dirichlet dofs) after the UFL assembly.
Their pattern changes between iterates, so the Jacobian is then assembled by DOLFINx and the
terms grow its pattern where new pairs need room (:func:`fxrod.solvers.pattern.grow`); the
driver watches the pattern's epoch and resets the preconditioner, so that MUMPS analyses the
new pattern (:class:`fxrod.solvers.pattern.PatternWatch`); without such terms nothing
changes.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import warnings

import numpy as np
from dolfinx import fem
from dolfinx.fem.forms import derivative_block
from dolfinx.fem.petsc import NonlinearProblem, assemble_matrix, create_matrix
from mpi4py import MPI
from petsc4py import PETSc

from fxrod.errors import ParameterError
from fxrod.native import compat, jit
from fxrod.native.assembly import KernelJacobian, KernelResidual
from fxrod.native.malloc import tune_malloc
from fxrod.solvers import backends, mumps
from fxrod.solvers.backends import Capabilities
from fxrod.solvers.chain import ChainPC, ChainSolver
from fxrod.solvers.chain_mpi import ChainPieces
from fxrod.solvers.pattern import PatternWatch
from fxrod.solvers.settings import SolverSettings

_SNES_REASONS = {v: k for k, v in PETSc.SNES.ConvergedReason.__dict__.items()
                 if isinstance(v, int)}
_PREFIX = itertools.count(1)


def global_bc_dofs(w: fem.Function, bcs: list) -> np.ndarray:
    """Global indices of the owned Dirichlet dofs of ``w``'s space."""
    imap = w.function_space.dofmap.index_map
    bs = w.function_space.dofmap.index_map_bs
    local = [bc.dof_indices()[0][:bc.dof_indices()[1]] for bc in bcs]
    local = np.unique(np.concatenate(local)).astype(np.int64) if local else np.empty(0, int)
    return (imap.local_to_global(local // bs) * bs + local % bs).astype(np.int64)


#: SNES reason codes (PETSc's values).
CONVERGED_FNORM_ABS, CONVERGED_FNORM_RELATIVE, CONVERGED_SNORM_RELATIVE = 2, 3, 4
DIVERGED_FUNCTION_NANORINF, DIVERGED_MAX_IT, DIVERGED_DTOL = -4, -5, -9
#: PETSc's default divergence tolerance: ``|F| > DIVTOL |F_0|`` is SNES_DIVERGED_DTOL.
DIVTOL = 1.0e4
#: The round-off floor test (:class:`ConvergenceTest`): an update below ``FLOOR_STOL |x|``
#: (the square root of machine epsilon: half the digits of the state).
FLOOR_STOL = math.sqrt(float(np.finfo(float).eps))


class ConvergenceTest:
    """fxrod's Newton convergence test, one meaning on every path (PETSc SNES through
    ``setConvergenceTest``, the chain solver's array loop in :mod:`fxrod.solvers.array_newton`).

    PETSc's default test: ``|F| < atol`` (also before the first iteration); from the first
    iteration on ``|F| <= rtol |F_0|``, ``|dx| < stol |x|``, ``|F| > DIVTOL |F_0|``
    (diverged); a non-finite ``|F|`` is DIVERGED_FUNCTION_NANORINF; ``max_it`` is the
    solver's. And, in full Newton (Jacobian lag 1) only, the round-off floor: Newton's
    quadratic convergence has ended where the residual no longer falls below half its last
    value for two iterations in a row while the update is below ``FLOOR_STOL |x|``; the
    residual is then at the round-off of its own evaluation (e.g. a rod 12 km from the
    origin: ``eps |q| rhoA l / h`` ~ 1e-11 N s above an atol of 1e-12), and the iterate is
    accepted as CONVERGED_SNORM_RELATIVE. A lagged Jacobian converges linearly, where a
    stalled residual does not mean the floor: the test is off there, and with ``stol = 0``
    (no test on the update: Newton stops at ``atol`` or ``rtol`` only).

    Parameters
    ----------
    settings : SolverSettings
        ``atol``, ``rtol``, ``stol``.
    """

    def __init__(self, settings: SolverSettings) -> None:
        self.settings = settings
        self.floor = False
        #: whether the next solve is full Newton (set by the solver before it)
        self.full_newton = False
        self._f0 = self._prev = self._ttol = 0.0
        self._stalls = 0

    # ------------------------------------------------------------ group by group
    #: group of every unknown (an ensemble's members), or None: the whole vector
    groups: np.ndarray | None = None

    def set_groups(self, groups: np.ndarray) -> None:
        """Judge the tests group by group: ``groups[i]`` is the group (e.g. the ensemble
        member) of unknown ``i``, groups that share no equation. Each group passes the tests
        (``atol``, ``rtol``, ``stol``, divergence) on its own rows, as in a solve of its own,
        and the solve ends when every group has passed at some iteration; on every path
        (the array loop and SNES). The round-off floor test is not applied per group."""
        self.groups = np.ascontiguousarray(groups, dtype=np.intp)
        self._n_groups = int(self.groups.max()) + 1

    def group_norms(self, v: np.ndarray) -> np.ndarray:
        """Euclidean norm of ``v`` over each group's rows."""
        return np.sqrt(np.bincount(self.groups, weights=v * v, minlength=self._n_groups))

    def start_groups(self, f: np.ndarray) -> int:
        """The group tests before the first iteration (``f``: the groups' residual norms)."""
        s = self.settings
        if not np.all(np.isfinite(f)):
            return DIVERGED_FUNCTION_NANORINF
        self._why = np.where(f < s.atol, CONVERGED_FNORM_ABS, 0)
        self._gttol, self._gdtol = s.rtol * f, DIVTOL * f
        return CONVERGED_FNORM_ABS if self._why.all() else 0

    def step_groups(self, f: np.ndarray, y: np.ndarray, x: np.ndarray) -> int:
        """The group tests after an iteration: ``f`` the groups' residual norms, ``y`` and
        ``x`` the update and the iterate (whole vectors). The reason is the largest of the
        groups' reasons once every group has passed (any group's failure fails it)."""
        s, why = self.settings, self._why
        if not np.all(np.isfinite(f)):
            return DIVERGED_FUNCTION_NANORINF
        open_ = why == 0
        why[open_ & (f <= self._gttol)] = CONVERGED_FNORM_RELATIVE
        why[open_ & (f < s.atol)] = CONVERGED_FNORM_ABS
        open_ = why == 0
        if open_.any():
            stalled = open_ & (self.group_norms(y) < s.stol * self.group_norms(x))
            why[stalled] = CONVERGED_SNORM_RELATIVE
            if np.any((why == 0) & (f > self._gdtol)):
                return DIVERGED_DTOL
        return int(why.max()) if why.all() else 0

    def snes(self, snes, it: int, norms: tuple[float, float, float]) -> int:
        """The test as SNES's convergence test (``norms = (|x|, |dx|, |F|)``). A method of
        the test, not of the solver: SNES keeps the callback, and a reference back to the
        solver would be a cycle through PETSc that Python's collector cannot see (each
        solver, its matrices and its mesh's communicators would never be freed)."""
        xnorm, ynorm, fnorm = norms
        if self.groups is not None:
            f = self.group_norms(snes.getFunction()[0].getArray(readonly=True))
            if it == 0:
                return self.start_groups(f)
            return self.step_groups(f, snes.getSolutionUpdate().getArray(readonly=True),
                                    snes.getSolution().getArray(readonly=True))
        return self.start(fnorm, self.full_newton) if it == 0 else self(fnorm, ynorm, xnorm)

    def start(self, fnorm: float, floor: bool) -> int:
        """The test before the first iteration (``|F_0| = fnorm``); ``floor``: whether the
        round-off floor test applies to this solve (full Newton). Returns the reason (0:
        iterate)."""
        self._f0 = self._prev = fnorm
        self._ttol = self.settings.rtol * fnorm
        self._stalls = 0
        self.floor = floor and self.settings.stol > 0.0
        if not math.isfinite(fnorm):
            return DIVERGED_FUNCTION_NANORINF
        return CONVERGED_FNORM_ABS if fnorm < self.settings.atol else 0

    def __call__(self, fnorm: float, ynorm: float, xnorm: float) -> int:
        """The test after an iteration with the residual norm ``fnorm``, the update's norm
        ``ynorm`` and the iterate's ``xnorm``. Returns the reason (0: iterate)."""
        s = self.settings
        if not math.isfinite(fnorm):
            return DIVERGED_FUNCTION_NANORINF
        if fnorm < s.atol:
            return CONVERGED_FNORM_ABS
        if fnorm <= self._ttol:
            return CONVERGED_FNORM_RELATIVE
        if ynorm < s.stol * xnorm:
            return CONVERGED_SNORM_RELATIVE
        if self.floor:
            stalled = fnorm >= 0.5 * self._prev and ynorm <= FLOOR_STOL * xnorm
            self._stalls = self._stalls + 1 if stalled else 0
            if self._stalls >= 2:
                return CONVERGED_SNORM_RELATIVE
        self._prev = fnorm
        if fnorm > DIVTOL * self._f0:
            return DIVERGED_DTOL
        return 0


class _DistributedResidual:
    """SNES residual callback on the chain solver's path across ranks: the element vectors of
    this rank's cells by :class:`fxrod.native.assembly.KernelResidual`'s kernels (the ghost
    rows too), the ghost rows added to their owners, the Dirichlet rows ``x - g``: DOLFINx's
    ``assemble_residual`` up to the order of the additions. Where any rank's iterate is off
    the boundary values (the lifting term, see :class:`fxrod.native.assembly.KernelResidual`)
    every rank calls DOLFINx's callback ``fallback``."""

    def __init__(self, fr: KernelResidual, w: fem.Function, comm, fallback) -> None:
        from dolfinx import la

        self.fr, self.w, self.comm, self.fallback = fr, w, comm, fallback
        imap = w.function_space.dofmap.index_map
        self.n = imap.size_local
        self._add = la.InsertMode.add
        self.vec = la.vector(imap, 1)
        self._own = fr.bc_dofs < self.n

    def __call__(self, snes, x, b) -> None:
        from dolfinx.fem.petsc import assign

        assign(x, self.w)
        self.w.x.scatter_forward()
        u, fr = self.w.x.array, self.fr
        if not self.comm.allreduce(fr.boundary_values_held(u), op=MPI.LAND):
            self.fallback(snes, x, b)
            return
        v = self.vec.array
        v[:] = fr.vector.add_elements()
        self.vec.scatter_reverse(self._add)
        out = b.getArray()
        out[:] = v[:self.n]
        bc = fr.bc_dofs[self._own]
        out[bc] = u[bc] - fr.g[self._own]


class _DistributedJacobian:
    """PETSc ``python`` matrix context of the distributed Jacobian on the chain solver's path
    across ranks: its products (a line search other than "basic") and :meth:`matrix` (the
    MUMPS fallback) assemble the Jacobian with DOLFINx at the current iterate, once per
    Jacobian evaluation (:attr:`stale`), into a matrix made at the first need."""

    def __init__(self, J, bcs: list) -> None:
        self.J, self.bcs = J, bcs
        self.A = None
        #: whether the iterate changed since the last assembly
        self.stale = True

    def matrix(self):
        """The Jacobian assembled at the current iterate (petsc4py.PETSc.Mat)."""
        if self.A is None:
            self.A = create_matrix(self.J)
        if self.stale:
            self.A.zeroEntries()
            assemble_matrix(self.A, self.J, bcs=self.bcs)
            self.A.assemble()
            self.stale = False
        return self.A

    def mult(self, mat, x, y) -> None:
        self.matrix().mult(x, y)

    def multTranspose(self, mat, x, y) -> None:  # noqa: N802  (petsc4py's name)
        self.matrix().multTranspose(x, y)

    def destroy(self, mat) -> None:
        if self.A is not None:
            self.A.destroy()
            self.A = None


def snes_reason_name(code: int) -> str:
    """Human-readable name of a PETSc SNES converged reason, e.g. ``DIVERGED_MAX_IT (-5)``."""
    return f"{_SNES_REASONS.get(code, 'UNKNOWN')} ({code})"


def snes_options(s: SolverSettings) -> dict[str, object]:
    """PETSc options of fxrod's Newton solvers: SNES ``newtonls`` with the settings'
    tolerances, line search and Jacobian lag (the linear solver's options are the caller's:
    :func:`fxrod.solvers.mumps.snes_options` or the chain solver)."""
    return {
        "snes_type": "newtonls",
        "snes_linesearch_type": s.linesearch,
        "snes_atol": s.atol,
        "snes_rtol": s.rtol,
        "snes_stol": s.stol,
        "snes_max_it": s.max_it,
        "snes_lag_jacobian": s.jacobian_lag,
        "snes_lag_jacobian_persists": s.jacobian_persists,
    }


def set_lag(snes: PETSc.SNES, lag: int, persists: bool = False) -> None:
    """Set snes_lag_jacobian and snes_lag_jacobian_persists (petsc4py has no setters)
    through the options database."""
    opts = PETSc.Options()
    pre = snes.getOptionsPrefix()
    opts[f"{pre}snes_lag_jacobian"] = lag
    opts[f"{pre}snes_lag_jacobian_persists"] = persists
    snes.setFromOptions()
    del opts[f"{pre}snes_lag_jacobian"]
    del opts[f"{pre}snes_lag_jacobian_persists"]


def solve_with(snes: PETSc.SNES, s: SolverSettings, solve, lag: int | None = None,
               linesearch: str | None = None) -> tuple[int, int]:
    """Run ``solve()`` (one SNES solve) with the Jacobian lag and line search overridden for
    this solve only; return ``(SNES reason, Newton iterations)``. A PETSc error (e.g. a
    singular factorisation) is reported as DIVERGED_LINEAR_SOLVE; if MUMPS ran out of
    workspace, its ICNTL(14) is doubled for the next solves
    (:func:`fxrod.solvers.mumps.grow_workspace`)."""
    lag_changed = lag is not None and lag != s.jacobian_lag
    if lag_changed:
        set_lag(snes, lag)
    ls = snes.getLineSearch()
    if linesearch is not None:
        ls.setType(linesearch)
    try:
        solve()
        reason = snes.getConvergedReason()
    except PETSc.Error:
        reason = int(PETSc.SNES.ConvergedReason.DIVERGED_LINEAR_SOLVE)
    finally:
        if lag_changed:
            set_lag(snes, s.jacobian_lag, s.jacobian_persists)
        if linesearch is not None:
            ls.setType(s.linesearch)
    if reason == PETSc.SNES.ConvergedReason.DIVERGED_LINEAR_SOLVE:
        mumps.grow_workspace(snes.getKSP().getPC())
    return reason, snes.getIterationNumber()


def chain_refusal(settings: SolverSettings, comm, terms, W) -> str | None:
    """Why the chain solver cannot solve the systems of a problem on the space ``W`` (None
    when it can): it factors the element matrices of open rods, serially, and of one open
    rod across ranks (:data:`fxrod.solvers.backends.BACKENDS`; collective under MPI)."""
    lacking = backends.missing("chain", Capabilities(mpi=comm.size > 1,
                                                     outside_ufl=bool(terms)))
    if lacking:
        return f"the chain backend does not take {lacking[0]}"
    if not settings.fast_assembly:
        return "the chain solver needs fast_assembly=True"
    if comm.size > 1:
        if not ChainPieces.applicable(W):
            return "across ranks the chain solver takes one open rod without joints"
    elif not ChainSolver.applicable(W):
        return "the chain solver takes open rods without joints"
    return None


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
    terms : sequence, optional
        Terms outside UFL (``add_residual``, ``add_jacobian``) added to every system.

    Raises
    ------
    ParameterError
        ``linear_solver="chain"`` where the chain solver cannot run (it names why).
    """

    def __init__(self, F, w: fem.Function, bcs: list, settings: SolverSettings,
                 J=None, terms=()) -> None:
        self.settings = s = settings
        if s.malloc_tuning:
            tune_malloc()
        self.w = w
        self.bcs = bcs
        self.terms = list(terms)
        comm = w.function_space.mesh.comm
        fast = s.fast_assembly and not self.terms
        refusal = (None if s.linear_solver == "mumps"
                   else chain_refusal(s, comm, self.terms, w.function_space))
        chain = s.linear_solver != "mumps" and refusal is None
        if s.linear_solver == "chain" and not chain:
            raise ParameterError("linear_solver", "chain", f"'auto' or 'mumps' ({refusal})")
        # the linear solves: the chain solver as a PETSc "python" preconditioner, or MUMPS
        opts = {**snes_options(s), **({"ksp_type": "preonly", "pc_type": "python"} if chain
                                      else mumps.snes_options())}
        # fxrod.native.jit: a RodModel's F and default J were compiled with its ledger already
        F, J = jit.forms([F, derivative_block(F, w) if J is None else J])
        fast = fast and KernelJacobian.applicable(J, comm)
        prefix = f"fxrod{next(_PREFIX)}_"
        self.fast_jacobian = None
        self.fast_residual = None
        #: the chain preconditioner context (:class:`fxrod.solvers.chain.ChainPC`) or None
        self.chain = None
        A = None
        if chain and comm.size > 1:
            self._pieces(F, J, w, bcs, prefix, opts, comm)
            return
        if chain and fast:
            # The chain solver factors the Jacobian inside its assembly: no matrix of the
            # full pattern (the fast Jacobian builds its CSR matrix if a fallback needs it)
            try:
                self.fast_jacobian = KernelJacobian(J, w, bcs, csr=False)
                fj = self.fast_jacobian
                self.problem = compat.nonlinear_problem(F, fj.J, fj.u, fj.A, fj.snes_callback,
                                                        bcs, prefix, opts)
            except RuntimeError as err:  # unexpected pattern: DOLFINx's assembly instead
                warnings.warn(f"fxrod: {err}; using DOLFINx's assembly", RuntimeWarning,
                              stacklevel=2)
                self.fast_jacobian, fast = None, False
        if self.fast_jacobian is None:
            self.problem = NonlinearProblem(F, w, bcs=bcs, J=J, petsc_options_prefix=prefix,
                                            petsc_options=opts)
            # A first assembly with every entry of the dofmap pattern inserted fixes the
            # sparsity pattern (hence the MUMPS analysis) for the whole run.
            A = self.problem.A
            A.zeroEntries()
            assemble_matrix(A, self.problem.J, bcs=bcs)
            A.assemble()
            if fast:
                try:
                    self.fast_jacobian = KernelJacobian(self.problem.J, w, bcs, A)
                except RuntimeError as err:  # unexpected pattern: DOLFINx's assembly
                    warnings.warn(f"fxrod: {err}; using DOLFINx's assembly", RuntimeWarning,
                                  stacklevel=2)
        self.snes = self.problem.solver
        #: the convergence test of every path (:class:`ConvergenceTest`)
        self.test = ConvergenceTest(s)
        self.snes.setConvergenceTest(self.test.snes)
        if self.fast_jacobian is not None:
            A_fast = self.fast_jacobian.A
            self.snes.setJacobian(self.fast_jacobian.snes_callback, A_fast, A_fast)
            if A is not None:
                compat.replace_matrix(self.problem, A_fast)
                A.destroy()
            A = A_fast
            self.fast_jacobian.constants_each_call = False  # packed by solve()
            if s.fast_residual:
                self._use_fast_residual(w, bcs)
        else:
            # The element matrices of the mixed rod form are ~77 % structural zeros (nodal
            # multiplier blocks, uncoupled director components): skip them on insertion.
            A.setOption(PETSc.Mat.Option.IGNORE_ZERO_ENTRIES, True)
            if self.terms:
                self._add_nonlocal(w, bcs)
        ksp = self.snes.getKSP()
        ksp.setOperators(A, A)
        pc = ksp.getPC()
        if chain:
            self._use_chain(pc, bcs, comm)
            return
        mumps.configure(pc, s.icntl())

    def _pieces(self, F, J, w: fem.Function, bcs: list, prefix: str, opts: dict,
                comm) -> None:
        """The chain solver across ranks (:class:`fxrod.solvers.chain_mpi.ChainPieces`) in
        SNES: the residual by this rank's kernels (:class:`_DistributedResidual`), the
        element matrices of the owned cells computed and factored inside the Jacobian
        callback (:class:`fxrod.native.assembly.KernelJacobian` on this rank's cells), the
        distributed operator a PETSc ``python`` matrix whose products (a line search other
        than "basic") and a MUMPS fallback assemble the Jacobian with DOLFINx
        (:class:`_DistributedJacobian`)."""
        from dolfinx.fem.petsc import assign

        s = self.settings
        self.fast_residual = None
        ctx = _DistributedJacobian(J, bcs)
        imap = w.function_space.dofmap.index_map
        n = imap.size_local
        A = PETSc.Mat().createPython(((n, imap.size_global), (n, imap.size_global)), ctx,
                                     comm=comm)
        A.setUp()
        fj = None
        if s.fast_assembly and KernelJacobian.applicable(J, MPI.COMM_SELF):
            # the kernels of the owned cells, serially on each rank (no CSR matrix)
            fj = KernelJacobian(J, w, bcs, csr=False)
            fj.constants_each_call = False  # packed by solve()

        def jacobian(snes, x, J_, P):
            assign(x, w)
            w.x.scatter_forward()
            ctx.stale = True
            if fj is not None and fj.condenser is not None:
                fj.assemble(constants=False)
            A.stateIncrease()   # a new operator for the preconditioner

        self.problem = compat.nonlinear_problem(F, J, w, A, jacobian, bcs, prefix, opts)
        self.snes = self.problem.solver
        if fj is not None and s.fast_residual:
            vec, (f, fargs, fkw) = self.snes.getFunction()
            try:
                self.fast_residual = KernelResidual(F, w, bcs, None)
            except RuntimeError as err:  # a layout it does not reproduce: DOLFINx's
                warnings.warn(f"fxrod: {err}; using DOLFINx's residual assembly",
                              RuntimeWarning, stacklevel=3)
            else:
                self.snes.setFunction(
                    _DistributedResidual(self.fast_residual, w, comm,
                                         lambda snes, x, b: f(snes, x, b, *fargs, **fkw)),
                    vec)
        self.test = ConvergenceTest(s)
        self.snes.setConvergenceTest(self.test.snes)
        ksp = self.snes.getKSP()
        ksp.setOperators(A, A)
        solver = None
        if fj is not None:
            try:
                solver = ChainPieces(w.function_space, fj.bc_dofs)
                fj.keep_element_matrices(csr=False)
                solver.attach(fj)
            except Exception as err:  # noqa: BLE001  (e.g. no C compiler: MUMPS, say why)
                warnings.warn(f"fxrod: chain solver unavailable ({err}); using MUMPS",
                              RuntimeWarning, stacklevel=3)
                solver = None
        self.fast_jacobian = fj
        self.chain = ChainPC(solver, fj, s.icntl(), quiet=s.linear_solver == "auto",
                             matrix=ctx.matrix)
        ksp.getPC().setPythonContext(self.chain)

    def _use_chain(self, pc, bcs: list, comm) -> None:
        """The linear solves by :class:`fxrod.solvers.chain.ChainSolver` (MUMPS if it fails)."""
        solver = None
        if self.fast_jacobian is not None:
            try:
                solver = ChainSolver(self.w.function_space, self.fast_jacobian.bc_dofs)
                self.fast_jacobian.keep_element_matrices(csr=False)
                solver.attach(self.fast_jacobian)  # factored while assembled, cell by cell
            except Exception as err:  # noqa: BLE001  (e.g. no C compiler: MUMPS, say why)
                warnings.warn(f"fxrod: chain solver unavailable ({err}); using MUMPS",
                              RuntimeWarning, stacklevel=3)
                solver = None
        self.chain = ChainPC(solver, self.fast_jacobian, self.settings.icntl(),
                             quiet=self.settings.linear_solver == "auto")
        pc.setPythonContext(self.chain)

    def _add_nonlocal(self, w: fem.Function, bcs: list) -> None:
        """Wrap DOLFINx's callbacks: the registered terms' rows and blocks after them."""
        skip = global_bc_dofs(w, bcs)
        vec, (f, fargs, fkw) = self.snes.getFunction()
        J, P, (jac, jargs, jkw) = self.snes.getJacobian()
        terms = self.terms   # not self: SNES keeps its callbacks out of the cycle collector
        watch = PatternWatch(J)   # a pattern grown by the terms: MUMPS analyses it anew

        def residual(snes, x, b):
            f(snes, x, b, *fargs, **fkw)
            for t in terms:
                t.add_residual(b, skip)

        def jacobian(snes, x, A, B):
            jac(snes, x, A, B, *jargs, **jkw)
            for t in terms:
                t.add_jacobian(A, skip)
            watch.check(A, snes.getKSP().getPC())

        self.snes.setFunction(residual, vec)
        self.snes.setJacobian(jacobian, J, P)

    def _use_fast_residual(self, w: fem.Function, bcs: list) -> None:
        """Replace DOLFINx's residual callback by :class:`KernelResidual` (which hands an
        iterate off the boundary values back to DOLFINx's callback)."""
        vec, (f, fargs, fkw) = self.snes.getFunction()

        def dolfinx_residual(snes, x, b):
            f(snes, x, b, *fargs, **fkw)

        try:
            self.fast_residual = KernelResidual(self.problem.F, w, bcs, dolfinx_residual)
        except RuntimeError as err:  # a layout it does not reproduce: DOLFINx's assembly
            warnings.warn(f"fxrod: {err}; using DOLFINx's residual assembly",
                          RuntimeWarning, stacklevel=3)
            return
        self.snes.setFunction(self.fast_residual.snes_callback, vec)

    def solve(self, lag: int | None = None, linesearch: str | None = None) -> tuple[int, int]:
        """Solve from the iterate in ``w``; return ``(SNES reason, Newton iterations)``.

        ``lag`` and ``linesearch`` override the settings for this solve only.
        """
        self.test.full_newton = (self.settings.jacobian_lag if lag is None else lag) == 1
        for fast in (self.fast_jacobian, self.fast_residual):
            if fast is not None:
                fast.kernels.pack_constants()
        if (linesearch or self.settings.linesearch) == "basic":
            return solve_with(self.snes, self.settings, self.problem.solve, lag, linesearch)
        with self._jacobian_assembled():
            return solve_with(self.snes, self.settings, self.problem.solve, lag, linesearch)

    @contextlib.contextmanager
    def _jacobian_assembled(self):
        """On the chain path the Jacobian is only factored, never assembled as a matrix; a
        line search other than "basic" needs it (bt's slope ``F . J dx``, its local-minimum
        test ``J^T F``), so during such a solve the matrix is assembled as well."""
        fj = self.fast_jacobian
        if self.chain is None or fj is None or fj.csr or self.chain.matrix is not None:
            yield   # (across ranks the operator assembles itself: _DistributedJacobian)
            return
        fj.csr = True
        try:
            yield
        finally:
            if self.chain.reason is None:   # still on the chain solver (not on MUMPS)
                fj.csr = False
