"""The Newton iteration of the chain solver path without SNES.

For a rod of 10 elements the arithmetic of one Newton iteration (a residual, one element
factorisation in a few, one block-tridiagonal solve) costs less than the PETSc round trips
around it: SNES callbacks, vector copies, the KSP/PC dispatch to the Python chain
preconditioner. :class:`ArrayNewtonSolver` is a :class:`fxrod.solvers.newton.NewtonSolver` (same
attributes, same SNES kept for the cases below) whose :meth:`ArrayNewtonSolver.solve` runs
the iteration that SNES ``newtonls`` performs with the options of
:func:`fxrod.solvers.newton.snes_options` on arrays:

* residual ``F(x)`` by :class:`fxrod.native.assembly.KernelResidual` (Dirichlet rows ``x - g``);
* Jacobian element matrices by :class:`fxrod.native.assembly.KernelJacobian` and
  :class:`fxrod.solvers.chain.ChainSolver` ``factor`` in the Newton iterations ``i`` with
  ``i % lag == 0`` (PETSc's ``snes_lag_jacobian``: modified Newton; with
  ``jacobian_persists``, ``(i + j) % lag == 0`` with ``j`` the iterations of the earlier
  solves, as ``snes_lag_jacobian_persists`` counts them), each factorisation checked as
  :class:`fxrod.solvers.chain.ChainPC` does (inside the factorisation when the chain solver is
  attached to the Jacobian's assembly, else the backward error of one solve with a fixed
  random right-hand side below :data:`fxrod.solvers.chain.MAX_BACKWARD_ERROR`);
* the update ``x <- x - J^-1 F(x)`` (line search ``basic``) and the convergence test of
  every path, :class:`fxrod.solvers.newton.ConvergenceTest` (PETSc's default test, and the round-off
  floor in full Newton); ``max_it``. The SNES reason codes are PETSc's.

The numbers are the general path's: the same element tensors, the same factorisation and
solve functions, the same update, so the iterates agree to round-off
(tests/test_fastnewton.py). Only the norms are summed in another order (a convergence test
exactly at its tolerance could decide differently).

An ensemble (:mod:`fxrod.runs.ensemble`) asks for the tests group by group
(:meth:`ArrayNewtonSolver.converge_per_group`): each member must pass them on its own rows,
as in a solve of its own, instead of the whole vector passing them once.

The solve is handed to SNES (the general path, from the same initial iterate) when the
fast path does not reproduce it: a line search other than ``basic`` (the ``bt`` retry), an
iterate off the boundary values (a support moved at the start of a step), a monitor set on
the SNES (``snes.setMonitor``: it asks for SNES's iterates), or a factorisation the chain
solver rejects (SNES then meets it too and :class:`fxrod.solvers.chain.ChainPC` switches to MUMPS
for good, and so does this solver).
"""

from __future__ import annotations

import math

import numpy as np

from fxrod.native import assembly
from fxrod.solvers.chain import MAX_BACKWARD_ERROR
from fxrod.solvers.newton import (
    DIVERGED_MAX_IT,
    NewtonSolver,
)
from fxrod.solvers.settings import SolverSettings


class ArrayNewtonSolver(NewtonSolver):
    """:class:`fxrod.solvers.newton.NewtonSolver` with the chain solver, whose solves run without
    SNES when they can (see the module docstring).

    Parameters
    ----------
    F, w, bcs, settings, J, terms
        As :class:`fxrod.solvers.newton.NewtonSolver`; ``settings.linear_solver`` should be
        ``"chain"`` (otherwise, or when the chain solver or the fast residual is not in
        use, every solve goes through SNES).
    """

    def __init__(self, F, w, bcs: list, settings: SolverSettings, J=None, terms=()) -> None:
        super().__init__(F, w, bcs, settings, J=J, terms=terms)
        #: fast solves run (``solve`` without SNES), and solves handed to SNES
        self.fast_solves = 0
        self.snes_solves = 0
        #: Newton iterations of earlier fast solves counted for the Jacobian lag
        #: (``settings.jacobian_persists``; PETSc's ``jac_iter``)
        self._jac_iter = 0
        self._offset = 0
        if not self._chain_in_use() or self.fast_residual is None:
            return
        self._solver = self.chain.chain
        n = w.x.array.size
        self._y = np.zeros(n)
        #: the check solve's vectors, made at the first factorisation not checked inside
        #: the fused one (a full-size pair per model otherwise kept for nothing)
        self._probe: np.ndarray | None = None
        self._probe_out: np.ndarray | None = None
        # the norms and the update in one thread, from C (np.linalg.norm calls a threaded
        # BLAS dot whose idle threads spin on a shared machine; and the Python calls cost
        # more than the arithmetic on a small rod)
        lib = assembly._load_lib()
        ffi, x, b = lib.ffi, self.fast_residual.values, self.fast_residual.b
        self._sumsq, self._update = lib.lib.fxrod_sumsq, lib.lib.fxrod_update
        self._sq = np.zeros(2)
        self._c = (n, ffi.cast("double*", x.ctypes.data), ffi.cast("double*", b.ctypes.data),
                   ffi.cast("double*", self._y.ctypes.data),
                   ffi.cast("double*", self._sq.ctypes.data))

    def converge_per_group(self, groups: np.ndarray) -> None:
        """Judge convergence group by group on every path, the solves handed to SNES too
        (:meth:`fxrod.solvers.newton.ConvergenceTest.set_groups`): ``groups[i]`` is the group (e.g.
        the ensemble member) of unknown ``i``. The test on the whole vector would instead
        ask each of N groups for about ``atol / sqrt(N)``."""
        g = np.ascontiguousarray(groups, dtype=np.intp)
        if g.shape != self._y.shape or g.min() < 0:
            raise ValueError("converge_per_group: one group index >= 0 per unknown")
        self.test.set_groups(g)

    @property
    def groups(self) -> np.ndarray | None:
        """The group of every unknown (:meth:`converge_per_group`), or None."""
        return self.test.groups

    def _chain_in_use(self) -> bool:
        """Whether the chain solver (not MUMPS) solves this solver's linear systems."""
        return (self.chain is not None and self.chain.reason is None
                and self.fast_jacobian is not None and self.fast_jacobian.elem is not None)

    @property
    def active(self) -> bool:
        """Whether solves can run without SNES (chain solver and fast residual in use)."""
        return self._chain_in_use() and self.fast_residual is not None

    def solve(self, lag: int | None = None, linesearch: str | None = None) -> tuple[int, int]:
        """Solve from the iterate in ``w``; return ``(SNES reason, Newton iterations)``.

        ``lag`` and ``linesearch`` override the settings for this solve only.
        """
        s = self.settings
        x = self.fast_residual.values if self.active else self.w.x.array
        if (not self.active or (linesearch or s.linesearch) != "basic"
                or self.snes.getMonitor() or not self.fast_residual.boundary_values_held(x)):
            self.snes_solves += 1
            return super().solve(lag=lag, linesearch=linesearch)
        x0 = x.copy()
        newton = self._newton if self.groups is None else self._newton_groups
        persists = s.jacobian_persists and lag in (None, s.jacobian_lag)
        self._offset = self._jac_iter if persists else 0
        out = newton(x, s.jacobian_lag if lag is None else lag)
        if out is None:  # the chain solver rejected a factorisation: SNES from x0
            x[:] = x0
            self.snes_solves += 1
            return super().solve(lag=lag, linesearch=linesearch)
        self.fast_solves += 1
        if persists:
            self._jac_iter += out[1]
        return out

    def _refactor(self, i: int, lag: int) -> bool:
        """Whether Newton iteration ``i`` of this solve builds the Jacobian (PETSc: when the
        iterations counted, across solves with ``jacobian_persists``, are a multiple of the
        lag; always when there are no factors to reuse)."""
        return (i + self._offset) % lag == 0 or not self._solver.factored

    def _factor(self) -> bool:
        """Assemble the element matrices at ``w`` and factor them; False if the chain
        solver rejects them (as :class:`fxrod.solvers.chain.ChainPC` would)."""
        self.fast_jacobian.assemble(constants=False)
        elem = self.fast_jacobian.elem
        try:
            self._solver.factor(elem)
        except RuntimeError:
            return False
        if self._solver.attached is not None:   # checked inside the fused factorisation
            return True
        if self._probe is None:
            self._probe = np.random.default_rng(22).standard_normal(self._y.size)
            self._probe_out = np.zeros(self._y.size)
        self._solver.solve(self._probe, self._probe_out)
        err = self._solver.backward_error(elem, self._probe, self._probe_out)
        return bool(np.isfinite(err) and err <= MAX_BACKWARD_ERROR)

    def _newton(self, x: np.ndarray, lag: int) -> tuple[int, int] | None:
        """SNES newtonls (basic line search, Jacobian lag ``lag``) on ``x`` (the unknown's
        values, :attr:`fxrod.native.assembly.KernelResidual.values`) in place;
        ``(reason, iterations)`` or None when a factorisation is rejected."""
        s = self.settings
        fr, y, solver = self.fast_residual, self._y, self._solver
        n, x_ptr, b_ptr, y_ptr, sq_ptr = self._c
        sumsq, update, sq = self._sumsq, self._update, self._sq
        fr.kernels.pack_constants()
        self.fast_jacobian.kernels.pack_constants()
        b = fr.assemble(x)
        test = self.test
        reason = test.start(math.sqrt(sumsq(n, b_ptr)), lag == 1)
        if reason:
            return reason, 0
        for i in range(s.max_it):
            if self._refactor(i, lag) and not self._factor():
                return None
            solver.solve(b, y)
            update(n, x_ptr, y_ptr, sq_ptr)               # x -= y and both norms
            ynorm, xnorm = math.sqrt(sq[0]), math.sqrt(sq[1])
            b = fr.assemble(x)
            reason = test(math.sqrt(sumsq(n, b_ptr)), ynorm, xnorm)
            if reason:
                return reason, i + 1
        return DIVERGED_MAX_IT, s.max_it

    def _newton_groups(self, x: np.ndarray, lag: int) -> tuple[int, int] | None:
        """:meth:`_newton` with the group tests of :meth:`converge_per_group`."""
        s, test = self.settings, self.test
        fr, y, solver = self.fast_residual, self._y, self._solver
        n, x_ptr, _, y_ptr, sq_ptr = self._c
        fr.kernels.pack_constants()
        self.fast_jacobian.kernels.pack_constants()
        reason = test.start_groups(test.group_norms(fr.assemble(x)))
        if reason:
            return reason, 0
        for i in range(s.max_it):
            if self._refactor(i, lag) and not self._factor():
                return None
            solver.solve(fr.b, y)
            self._update(n, x_ptr, y_ptr, sq_ptr)          # x -= y
            reason = test.step_groups(test.group_norms(fr.assemble(x)), y, x)
            if reason:
                return reason, i + 1
        return DIVERGED_MAX_IT, s.max_it
