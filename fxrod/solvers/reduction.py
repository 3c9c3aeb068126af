"""Exact elimination of linear joint relations (theory §2.7): ``w = T w_r``.

The joints of a structure make some unknowns (the *slaves*) linear combinations of others
(the *masters*): ``w_i = sum_j c_ij w_j``. With the sparse prolongation ``T`` (identity on
the masters, the relation rows on the slaves) Newton's method runs on the reduced unknowns
``w_r``: residual ``T^T F(T w_r)`` and Jacobian ``T^T J T`` (PETSc PtAP). The relations hold
to round-off at every iterate, and the joint forces, which ``T^T`` adds into the masters'
rows, do no work in any virtual displacement ``T dw_r``: the energy ledger stays exact.

Dirichlet conditions act on the reduced unknowns (supported dofs must be masters): their
rows are ``w_r - g``. :class:`ReducedNewtonSolver` is the PETSc SNES + MUMPS Newton of
:mod:`fxrod.solvers.newton` on the reduced system, with the same settings and interface.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable

import numpy as np
from dolfinx import fem
from dolfinx.fem.petsc import assemble_matrix, assemble_vector, create_matrix, create_vector
from mpi4py import MPI
from petsc4py import PETSc

from fxrod.errors import ParameterError
from fxrod.native import jit
from fxrod.native.malloc import tune_malloc
from fxrod.solvers import mumps
from fxrod.solvers.newton import ConvergenceTest, snes_options, solve_with
from fxrod.solvers.settings import SolverSettings

_PREFIX = itertools.count(1)


def resolve(relations: dict[int, list[tuple[int, float]]]) -> dict[int, dict[int, float]]:
    """Substitute slaves that depend on slaves until every slave depends on masters only.

    ``relations``: ``{slave: [(master, coefficient), ...]}`` in global indices (the same on
    every rank). Raises ParameterError for a cycle (redundant joints at one point).
    """
    out: dict[int, dict[int, float]] = {}

    def expand(i: int, seen: tuple[int, ...]) -> dict[int, float]:
        if i in out:
            return out[i]
        if i in seen:
            raise ParameterError("joints", "a cycle of joints at one node",
                                 "each node eliminated at most once (redundant joints)")
        row: dict[int, float] = {}
        for j, c in relations[i]:
            sub = expand(j, (*seen, i)) if j in relations else {j: 1.0}
            for m, cm in sub.items():
                row[m] = row.get(m, 0.0) + c * cm
        out[i] = row
        return row

    for i in relations:
        expand(i, ())
    return out


class Reduction:
    """The prolongation ``T`` of a mixed space with slave relations.

    Parameters
    ----------
    W : dolfinx.fem.FunctionSpace
        The (mixed) space of the unknown.
    relations : dict
        ``{slave global dof: [(master global dof, coefficient), ...]}``, identical on every
        rank (global indices of the unrolled dofs).
    """

    def __init__(self, W: fem.FunctionSpace, relations: dict[int, list[tuple[int, float]]]
                 ) -> None:
        comm = W.mesh.comm
        im, bs = W.dofmap.index_map, W.dofmap.index_map_bs
        n_own = im.size_local * bs
        r0 = im.local_range[0] * bs
        rows = resolve(relations)
        own = np.arange(r0, r0 + n_own)
        is_slave = np.isin(own, np.fromiter(rows, dtype=np.int64, count=len(rows)))
        self.masters_local = np.flatnonzero(~is_slave).astype(np.int32)
        n_red = self.masters_local.size
        offset = comm.exscan(n_red) or 0
        red_of_own = np.full(n_own, -1, dtype=np.int64)
        red_of_own[self.masters_local] = offset + np.arange(n_red)
        # global reduced index of every master some slave refers to (a few dofs: allgather)
        wanted = sorted({m for row in rows.values() for m in row})
        mine = {m: int(red_of_own[m - r0]) for m in wanted if r0 <= m < r0 + n_own}
        red_of = {k: v for d in comm.allgather(mine) for k, v in d.items()}
        missing = [m for m in wanted if m not in red_of]
        if missing:
            raise ParameterError("joints", "a master dof that is itself eliminated",
                                 "joints whose master nodes are not slaves of others")
        # CSR of the owned rows: one 1 per master row, the relation on each slave row
        slave_rows = {int(i): sorted((red_of[m], c) for m, c in rows[int(r0 + i)].items()
                                     if c != 0.0) for i in np.flatnonzero(is_slave)}
        counts = np.ones(n_own, dtype=PETSc.IntType)
        for i, e in slave_rows.items():
            counts[i] = len(e)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(PETSc.IntType)
        cols = np.empty(indptr[-1], dtype=PETSc.IntType)
        vals = np.ones(indptr[-1])
        cols[indptr[self.masters_local]] = red_of_own[self.masters_local]
        for i, e in slave_rows.items():
            cols[indptr[i]:indptr[i + 1]] = [j for j, _ in e]
            vals[indptr[i]:indptr[i + 1]] = [c for _, c in e]
        T = PETSc.Mat().createAIJ(((n_own, PETSc.DECIDE), (n_red, PETSc.DECIDE)),
                                  csr=(indptr, cols, vals), comm=comm)
        T.assemble()
        self.T = T
        self.W = W
        self.n_owned = n_own
        self.red_offset = offset
        self.n_eliminated = comm.allreduce(int(is_slave.sum()), op=MPI.SUM)

    def restrict(self, w: np.ndarray, x_r: PETSc.Vec) -> None:
        """``x_r`` = the masters of the full array ``w`` (owned part)."""
        x_r.array[:] = w[self.masters_local]

    def prolong(self, x_r: PETSc.Vec, w: fem.Function) -> None:
        """``w = T x_r`` (owned and ghost entries)."""
        self.T.mult(x_r, w.x.petsc_vec)
        w.x.scatter_forward()

    def fold(self, b: PETSc.Vec) -> np.ndarray:
        """``T^T b`` written back at the masters' full indices (owned, slaves zero): the
        residual rows of the master nodes including the rows of their slaves."""
        r = self.T.createVecRight()
        self.T.multTranspose(b, r)
        out = np.zeros(self.n_owned)
        out[self.masters_local] = r.array
        r.destroy()
        return out

    def reduced_dofs(self, full_local: np.ndarray) -> np.ndarray:
        """Local reduced indices of owned full dofs that are masters (ParameterError for a
        slave, e.g. a support on an eliminated node)."""
        full_local = np.asarray(full_local, dtype=np.int64)
        if full_local.size == 0:       # nothing asked (a rank may own no dof at all)
            return np.empty(0, dtype=np.int32)
        pos = np.searchsorted(self.masters_local, full_local)
        pos = np.minimum(pos, max(self.masters_local.size - 1, 0))
        ok = self.masters_local.size > 0 and np.all(self.masters_local[pos] == full_local)
        if not ok:
            raise ParameterError("supports", "a support on the eliminated node of a joint",
                                 "supports on the joint's first node a (or on free nodes)")
        return pos.astype(np.int32)


def weak_callback(method: Callable) -> Callable:
    """A PETSc callback that calls the bound ``method`` without keeping its object alive.

    PETSc holds its callbacks in C, out of reach of Python's cycle collector: a bound method
    of the solver that owns the SNES would keep the solver, its model's mesh and their MPI
    communicators alive for the rest of the process (MPICH has 2048 per process)."""
    ref = weakref.WeakMethod(method)

    def call(*args):
        return ref()(*args)

    return call


class ReducedNewtonSolver:
    """SNES Newton (MUMPS LU) on ``T^T F(T w_r) = 0`` with Dirichlet rows ``w_r - g``.

    The same interface and settings as :class:`fxrod.solvers.newton.NewtonSolver`: ``solve(lag,
    linesearch) -> (reason, iterations)`` from the iterate in ``w``; on return ``w`` holds
    ``T w_r``.
    """

    def __init__(self, F, w: fem.Function, bcs: list, settings: SolverSettings,
                 reduction: Reduction, J=None, terms=()) -> None:
        import ufl

        self.settings = s = settings
        if s.malloc_tuning:
            tune_malloc()
        self.w, self.bcs, self.red = w, bcs, reduction
        self.terms = list(terms)    # rows and blocks outside UFL (rod-rod contact)
        self._pattern: int | None = None   # the pattern of the last Jacobian with terms
        self._skip = np.empty(0, dtype=np.int64)  # the reduced Dirichlet rows handle bcs
        self.F, self.J = jit.forms([F, J if J is not None else ufl.derivative(F, w)])
        self.b = create_vector(w.function_space)
        self.A = create_matrix(self.J)
        T = reduction.T
        self.x = T.createVecRight()
        self.r = T.createVecRight()
        assemble_matrix(self.A, self.J)
        self.A.assemble()
        self.Jr = self.A.ptap(T)
        self.Jr.setOption(PETSc.Mat.Option.KEEP_NONZERO_PATTERN, True)
        # Dirichlet rows in the reduced numbering (supported dofs are masters)
        n_own = reduction.n_owned
        bc_local = np.unique(np.concatenate(
            [bc.dof_indices()[0][:bc.dof_indices()[1]] for bc in bcs] or [np.empty(0)]
        ).astype(np.int64))
        bc_local = bc_local[bc_local < n_own]
        self.bc_red = reduction.reduced_dofs(bc_local)
        self.bc_full = bc_local.astype(np.int32)
        self.bc_rows = (self.bc_red + reduction.red_offset).astype(np.int32)
        self.g = np.zeros(self.bc_red.size)

        snes = PETSc.SNES().create(w.function_space.mesh.comm)
        snes.setOptionsPrefix(f"fxrodred{next(_PREFIX)}_")
        opts = PETSc.Options()
        pre = snes.getOptionsPrefix()
        for k, v in {**snes_options(s), **mumps.snes_options()}.items():
            opts[f"{pre}{k}"] = v
        snes.setFromOptions()
        snes.setFunction(weak_callback(self._residual), self.r)
        snes.setJacobian(weak_callback(self._jacobian), self.Jr, self.Jr)
        ksp = snes.getKSP()
        ksp.setOperators(self.Jr, self.Jr)
        mumps.configure(ksp.getPC(), s.icntl())
        self.snes = snes
        self.test = ConvergenceTest(s)            # the convergence test of every path
        snes.setConvergenceTest(self.test.snes)

    # ------------------------------------------------------------------ callbacks
    def _set(self, x: PETSc.Vec) -> None:
        self.red.prolong(x, self.w)

    def _residual(self, snes, x, f) -> None:
        self._set(x)
        with self.b.localForm() as bl:
            bl.set(0.0)
        assemble_vector(self.b, self.F)
        self.b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
        for t in self.terms:
            t.add_residual(self.b, self._skip)
        self.red.T.multTranspose(self.b, f)
        if self.bc_red.size:
            f.array[self.bc_red] = x.array_r[self.bc_red] - self.g

    def _jacobian(self, snes, x, J, P) -> None:
        self._set(x)
        self.A.zeroEntries()
        assemble_matrix(self.A, self.J)
        self.A.assemble()
        if self.terms:   # the pattern may grow: recompute T^T A T and take its pattern
            for t in self.terms:
                t.add_jacobian(self.A, self._skip)
            self.Jr.zeroEntries()
            product = self.A.ptap(self.red.T)
            self.Jr.axpy(1.0, product,
                         structure=PETSc.Mat.Structure.DIFFERENT_NONZERO_PATTERN)
            product.destroy()
            ia, ja, _ = self.Jr.getValuesCSR()      # this rank's rows
            pattern = hash((ia.tobytes(), ja.tobytes()))
            if self.Jr.getComm().tompi4py().allreduce(pattern != self._pattern, op=MPI.LOR):
                self._pattern = pattern    # a new pattern: MUMPS analyses it anew (PETSc
                snes.getKSP().getPC().reset()   # would factor it on the old analysis)
        else:
            self.A.ptap(self.red.T, result=self.Jr)
        self.Jr.zeroRows(self.bc_rows, diag=1.0)

    def solve(self, lag: int | None = None, linesearch: str | None = None) -> tuple[int, int]:
        """Solve from the iterate in ``w``; return ``(SNES reason, Newton iterations)``."""
        self.test.full_newton = (self.settings.jacobian_lag if lag is None else lag) == 1
        g = np.zeros(self.w.x.array.size)
        for bc in self.bcs:
            bc.set(g)
        self.g = g[self.bc_full]
        self.red.restrict(self.w.x.array, self.x)
        self.x.array[self.bc_red] = self.g
        out = solve_with(self.snes, self.settings, lambda: self.snes.solve(None, self.x), lag,
                         linesearch)
        self._set(self.x)
        return out
