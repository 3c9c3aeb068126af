"""The sparsity pattern of a step matrix grown by terms outside UFL (contact pairs appearing).

DOLFINx preallocates a step matrix for the entries its forms produce; the rod-rod contact and
the bodies' pair contact add blocks where no form puts an entry. Inserting into an AIJ matrix
without room makes PETSc reallocate it once per overflowing row, and under MPI an entry in a
new off-rank column disassembles the matrix's off-diagonal part as well: at 1000 fibres on 2
ranks (``bench/bundle.py``) that insertion took 58 % of the first three steps. :func:`grow`
preallocates the matrix once more for the union of its pattern and the new blocks (explicit
zeros kept, so the pattern does not grow entry by entry in later steps), in a serial run and
across ranks alike.

A preallocated MPIAIJ matrix restarts the nonzero state PETSc uses to tell a new pattern, so
a factorisation could reuse the symbolic analysis of the old pattern (MUMPS then writes past
its arrays). :func:`grow` therefore raises the matrix's pattern epoch (:func:`epoch`), and
every solver that factors such a matrix keeps a :class:`PatternWatch`, which resets its
preconditioner (a new analysis) once the epoch has moved.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from petsc4py import PETSc

#: The attribute of a matrix that holds its pattern epoch.
_EPOCH = "fxrod_pattern_epoch"


def epoch(A: PETSc.Mat) -> int:
    """How many times :func:`grow` gave ``A`` a new pattern (0: DOLFINx's)."""
    value = A.getAttr(_EPOCH)
    return 0 if value is None else int(value)


def grow(A: PETSc.Mat, rows: np.ndarray, cols: np.ndarray, blocks: np.ndarray) -> None:
    """``A += blocks`` with ``A`` preallocated anew for the union of its pattern and the
    blocks' entries, zeros included (collective).

    Parameters
    ----------
    A : petsc4py.PETSc.Mat
        An assembled AIJ matrix (serial or MPI).
    rows, cols : numpy.ndarray
        (m, k) global row and column indices of the ``m`` blocks, -1 where an entry is left
        out (rows of other ranks, Dirichlet rows and columns).
    blocks : numpy.ndarray
        (m, k, k) the blocks' values.
    """
    r0, r1 = A.getOwnershipRange()
    c0, c1 = A.getOwnershipRangeColumn()
    m = r1 - r0
    rr = np.broadcast_to(rows[:, :, None], blocks.shape)
    cc = np.broadcast_to(cols[:, None, :], blocks.shape)
    ok = (rr >= 0) & (cc >= 0)
    C = sp.csr_matrix((blocks[ok], (rr[ok] - r0, cc[ok])), shape=(m, A.getSize()[1]))
    C.sum_duplicates()
    ai, aj, av = A.getValuesCSR()
    # room per row in the diagonal and off-diagonal column blocks: the entries of A and of
    # the blocks (an entry in both counted twice; the assembly frees what stays unused)
    off = _off_columns(ai, aj, c0, c1) + _off_columns(C.indptr, C.indices, c0, c1)
    room = np.diff(ai) + np.diff(C.indptr)
    keep = A.getOption(PETSc.Mat.Option.KEEP_NONZERO_PATTERN)
    A.setOption(PETSc.Mat.Option.IGNORE_ZERO_ENTRIES, False)   # keep the zeros
    A.setPreallocationNNZ(((room - off).astype(PETSc.IntType), off.astype(PETSc.IntType)))
    # an MPI matrix's preallocation makes new diagonal and off-diagonal parts: DOLFINx's
    # option (Dirichlet rows zeroed in place) is set on them again
    A.setOption(PETSc.Mat.Option.KEEP_NONZERO_PATTERN, keep)
    A.setValuesCSR(ai, aj, av, addv=PETSc.InsertMode.ADD_VALUES)
    A.setValuesCSR(C.indptr.astype(PETSc.IntType), C.indices.astype(PETSc.IntType),
                   C.data, addv=PETSc.InsertMode.ADD_VALUES)
    A.assemble()
    # fxrod zeroes its matrices before each assembly: skipping zeros is harmless
    A.setOption(PETSc.Mat.Option.IGNORE_ZERO_ENTRIES, True)
    A.setAttr(_EPOCH, epoch(A) + 1)


def _off_columns(indptr: np.ndarray, indices: np.ndarray, c0: int, c1: int) -> np.ndarray:
    """Per row of the CSR pattern ``(indptr, indices)``: its entries outside the columns
    ``c0 <= j < c1`` (few: the couplings to other ranks' unknowns)."""
    outside = np.flatnonzero((indices < c0) | (indices >= c1))
    return np.diff(np.searchsorted(outside, indptr))


class PatternWatch:
    """The pattern epoch of a matrix at a solver's last analysis.

    :meth:`check` resets the solver's preconditioner when the matrix's epoch has moved, so
    that its next set-up analyses the new pattern instead of reusing the old analysis.
    """

    def __init__(self, A: PETSc.Mat | None = None) -> None:
        self._seen = 0 if A is None else epoch(A)

    def check(self, A: PETSc.Mat, pc: PETSc.PC) -> bool:
        """Reset ``pc`` if ``A``'s pattern changed since the last call; whether it did."""
        now = epoch(A)
        if now == self._seen:
            return False
        self._seen = now
        pc.reset()
        return True
