"""A step matrix's pattern grown by contact blocks (fxrod.solvers.pattern), serial and across
ranks, and the solvers that factor it analysing the new pattern.

References, independent of the code under test:

* the matrix after :func:`grow` is the dense sum ``A + B`` of the matrix and the blocks,
  entry by entry, each entry one floating-point addition (so equal to the bit);
* the blocks' explicit zeros stay in the pattern and PETSc allocates nothing more when the
  same blocks are added again (``getInfo()["mallocs"]``, PETSc's count of reallocations);
* a solve with the grown matrix on 2 ranks matches a dense LU of the gathered matrix
  (numpy) within ``kappa`` times the round-off of the solve, ``kappa`` the condition number;
  a factorisation that reused the old pattern's analysis would not.
"""

from __future__ import annotations

import numpy as np
import pytest
from petsc4py import PETSc

from fxrod.solvers import pattern
from tests.conftest import run_mpi
from tests.roundoff import roundoff

N = 8


def tridiagonal(comm, n: int = N) -> PETSc.Mat:
    """An assembled n x n AIJ matrix, 4 on the diagonal and -1 beside it, with three
    nonzeros preallocated per row."""
    A = PETSc.Mat().createAIJ((n, n), nnz=(3, 1), comm=comm)
    r0, r1 = A.getOwnershipRange()
    for i in range(r0, r1):
        A.setValue(i, i, 4.0)
        for j in (i - 1, i + 1):
            if 0 <= j < n:
                A.setValue(i, j, -1.0)
    A.assemble()
    return A


def dense(A: PETSc.Mat) -> np.ndarray:
    """This rank's rows of ``A`` as a dense array."""
    ai, aj, av = A.getValuesCSR()
    out = np.zeros((ai.size - 1, A.getSize()[1]))
    out[np.repeat(np.arange(ai.size - 1), np.diff(ai)), aj] = av
    return out


def coupling(comm) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One 2 x 2 block coupling dofs 1 and N - 2 (a contact pair's pattern), one of its
    entries an explicit zero; rows of other ranks as -1."""
    A = tridiagonal(comm)
    r0, r1 = A.getOwnershipRange()
    A.destroy()
    dofs = np.array([[1, N - 2]], dtype=PETSc.IntType)
    rows = np.where((dofs >= r0) & (dofs < r1), dofs, -1).astype(PETSc.IntType)
    blocks = np.array([[[0.5, -0.25], [0.0, 0.75]]])
    return rows, dofs, blocks


def test_grow_adds_the_blocks_and_keeps_their_zeros():
    comm = PETSc.COMM_SELF
    A = tridiagonal(comm)
    before = dense(A)
    nnz = A.getInfo()["nz_used"]
    rows, cols, blocks = coupling(comm)
    assert pattern.epoch(A) == 0
    pattern.grow(A, rows, cols, blocks)
    expected = before.copy()
    expected[np.ix_(cols[0], cols[0])] += blocks[0]
    assert np.array_equal(dense(A), expected)
    assert A.getInfo()["nz_used"] == nnz + 2      # (1, N-2) and the zero at (N-2, 1)
    assert pattern.epoch(A) == 1
    A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, True)
    A.setValuesRCV(rows, cols, blocks, addv=PETSc.InsertMode.ADD_VALUES)
    A.assemble()
    assert A.getInfo()["mallocs"] == 0


def test_watch_resets_the_factorisation_once_per_new_pattern():
    """A serial LU after a grow solves the grown system; the watch reports the pattern
    change once."""
    from fxrod.solvers.mumps import DirectSolver
    from fxrod.solvers.settings import SolverSettings

    comm = PETSc.COMM_SELF
    A = tridiagonal(comm)
    direct = DirectSolver(comm, SolverSettings().icntl())
    b, x = A.createVecs()
    b.array[:] = np.arange(1.0, N + 1)
    direct.factor(A)
    watch = pattern.PatternWatch(A)
    pattern.grow(A, *coupling(comm))
    assert watch.check(A, direct.ksp.getPC()) and not watch.check(A, direct.ksp.getPC())
    direct.factor(A)
    direct.solve(b, x)
    M = dense(A)
    ref = np.linalg.solve(M, b.array)
    kappa = np.linalg.cond(M)
    assert np.max(np.abs(x.array - ref)) <= kappa * roundoff(np.max(np.abs(ref)), N)


@pytest.mark.mpi
def test_grow_and_solve_across_ranks():
    """On 2 ranks the block couples a row of rank 0 to a column of rank 1 (a new entry of
    the off-diagonal part): after the grow PETSc allocates nothing for the blocks, and the
    MUMPS solve of the grown system matches the dense solve of the gathered matrix."""
    code = """
import numpy as np
from mpi4py import MPI
import fxrod
from petsc4py import PETSc
from fxrod.solvers import pattern
from fxrod.solvers.mumps import DirectSolver
from fxrod.solvers.settings import SolverSettings
from tests.test_pattern import N, coupling, dense, tridiagonal

comm = PETSc.COMM_WORLD
A = tridiagonal(comm)
direct = DirectSolver(comm, SolverSettings().icntl())
b, x = A.createVecs()
r0, r1 = A.getOwnershipRange()
b.array[:] = np.arange(r0 + 1.0, r1 + 1.0)
direct.factor(A)
direct.solve(b, x)
rows, cols, blocks = coupling(comm)
pattern.grow(A, rows, cols, blocks)
A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, True)
mallocs = A.getInfo(PETSc.Mat.InfoType.GLOBAL_SUM)["mallocs"]
direct.factor(A)
direct.solve(b, x)
M = np.vstack(MPI.COMM_WORLD.allgather(dense(A)))
xs = np.concatenate(MPI.COMM_WORLD.allgather(x.array))
if MPI.COMM_WORLD.rank == 0:
    print("OUT", repr((M.tolist(), xs.tolist(), mallocs)))
"""
    out = run_mpi(["-c", code]).stdout
    M, x, mallocs = eval(out.split("OUT", 1)[1])                # noqa: S307 (our own print)
    M, x = np.array(M), np.array(x)
    assert mallocs == 0
    assert M[1, N - 2] == -0.25 and M[1, 1] == 4.5
    ref = np.linalg.solve(M, np.arange(1.0, N + 1))
    kappa = np.linalg.cond(M)
    assert np.max(np.abs(x - ref)) <= kappa * roundoff(np.max(np.abs(ref)), N)
