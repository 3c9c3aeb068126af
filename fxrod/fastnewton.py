"""Small-rod fast path (issue 22): the Newton iteration of the chain solver path without SNES.

For a rod of 10 elements the arithmetic of one Newton iteration (a residual, one element
factorisation in a few, one block-tridiagonal solve) costs less than the PETSc round trips
around it: SNES callbacks, vector copies, the KSP/PC dispatch to the Python chain
preconditioner. :class:`FastNewtonSolver` is a :class:`fxrod.newton.NewtonSolver` (same
attributes, same SNES kept for the cases below) whose :meth:`FastNewtonSolver.solve` runs
the iteration that SNES ``newtonls`` performs with the options of
:func:`fxrod.newton.snes_options` on arrays:

* residual ``F(x)`` by :class:`fxrod.fastassembly.FastResidual` (Dirichlet rows ``x - g``);
* Jacobian element matrices by :class:`fxrod.fastassembly.FastJacobian` and
  :class:`fxrod.chain.ChainSolver` ``factor`` in the Newton iterations ``i`` with
  ``i % lag == 0`` (PETSc's ``snes_lag_jacobian`` without persistence: modified Newton),
  each factorisation checked as :class:`fxrod.chain.ChainPC` does (inside the factorisation
  when the chain solver is attached to the Jacobian's assembly, else the backward error of
  one solve with a fixed random right-hand side below :data:`fxrod.chain.MAX_BACKWARD_ERROR`);
* the update ``x <- x - J^-1 F(x)`` (line search ``basic``) and PETSc's default
  convergence test: ``|F| < atol`` (also before the first iteration); then, from the first
  iteration on, ``|F| <= rtol |F_0|``, ``|dx| < stol |x|``, ``|F| > 1e4 |F_0|`` (diverged);
  ``max_it``; a non-finite ``|F|`` is ``DIVERGED_FUNCTION_NANORINF``. The SNES reason codes
  are PETSc's.

The numbers are the general path's: the same element tensors, the same factorisation and
solve functions, the same update, so the iterates agree to round-off
(tests/test_fastnewton.py). Only the norms are summed in another order (a convergence test
exactly at its tolerance could decide differently).

The solve is handed to SNES (the general path, from the same initial iterate) when the
fast path does not reproduce it: a line search other than ``basic`` (the ``bt`` retry), an
iterate off the boundary values (a support moved at the start of a step), a monitor set on
the SNES (``snes.setMonitor``: it asks for SNES's iterates), or a factorisation the chain
solver rejects (SNES then meets it too and :class:`fxrod.chain.ChainPC` switches to MUMPS
for good, and so does this solver).
"""

from __future__ import annotations

import math

import numpy as np

from fxrod.chain import MAX_BACKWARD_ERROR
from fxrod.newton import NewtonSolver
from fxrod.settings import SolverSettings

#: PETSc's default divergence tolerance: ``|F| > DIVTOL |F_0|`` is SNES_DIVERGED_DTOL.
DIVTOL = 1.0e4
#: SNES reason codes (PETSc's values).
CONVERGED_FNORM_ABS, CONVERGED_FNORM_RELATIVE, CONVERGED_SNORM_RELATIVE = 2, 3, 4
DIVERGED_FUNCTION_NANORINF, DIVERGED_MAX_IT, DIVERGED_DTOL = -4, -5, -9


def _norm(v: np.ndarray) -> float:
    """Euclidean norm in one thread (``np.linalg.norm`` calls a threaded BLAS ``dot``,
    whose idle threads spin on a shared machine)."""
    return math.sqrt(float(np.einsum("i,i->", v, v)))


class FastNewtonSolver(NewtonSolver):
    """:class:`fxrod.newton.NewtonSolver` with the chain solver, whose solves run without
    SNES when they can (see the module docstring).

    Parameters
    ----------
    F, w, bcs, settings, J
        As :class:`fxrod.newton.NewtonSolver`; ``settings.linear_solver`` should be
        ``"chain"`` (otherwise, or when the chain solver or the fast residual is not in
        use, every solve goes through SNES).
    """

    def __init__(self, F, w, bcs: list, settings: SolverSettings, J=None) -> None:
        super().__init__(F, w, bcs, settings, J=J)
        #: fast solves run (``solve`` without SNES), and solves handed to SNES
        self.fast_solves = 0
        self.snes_solves = 0
        if not self._chain_in_use() or self.fast_residual is None:
            return
        self._solver = self.chain.chain
        n = w.x.array.size
        self._y = np.zeros(n)
        self._probe = np.random.default_rng(22).standard_normal(n)
        self._probe_out = np.zeros(n)

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
        x = self.w.x.array
        if (not self.active or (linesearch or s.linesearch) != "basic"
                or self.snes.getMonitor() or not self.fast_residual.boundary_values_held(x)):
            self.snes_solves += 1
            return super().solve(lag=lag, linesearch=linesearch)
        x0 = x.copy()
        out = self._newton(x, s.jacobian_lag if lag is None else lag)
        if out is None:  # the chain solver rejected a factorisation: SNES from x0
            x[:] = x0
            self.snes_solves += 1
            return super().solve(lag=lag, linesearch=linesearch)
        self.fast_solves += 1
        return out

    def _factor(self) -> bool:
        """Assemble the element matrices at ``w`` and factor them; False if the chain
        solver rejects them (as :class:`fxrod.chain.ChainPC` would)."""
        self.fast_jacobian.assemble(constants=False)
        elem = self.fast_jacobian.elem
        try:
            self._solver.factor(elem)
        except RuntimeError:
            return False
        if self._solver.attached is not None:   # checked inside the fused factorisation
            return True
        self._solver.solve(self._probe, self._probe_out)
        err = self._solver.backward_error(elem, self._probe, self._probe_out)
        return bool(np.isfinite(err) and err <= MAX_BACKWARD_ERROR)

    def _newton(self, x: np.ndarray, lag: int) -> tuple[int, int] | None:
        """SNES newtonls (basic line search, Jacobian lag ``lag``) on ``x`` in place;
        ``(reason, iterations)`` or None when a factorisation is rejected."""
        s = self.settings
        fr, y, solver = self.fast_residual, self._y, self._solver
        fr.kernels.pack_constants()
        self.fast_jacobian.kernels.pack_constants()
        b = fr.assemble(x)
        fnorm = _norm(b)
        if not math.isfinite(fnorm):
            return DIVERGED_FUNCTION_NANORINF, 0
        if fnorm < s.atol:
            return CONVERGED_FNORM_ABS, 0
        fnorm0, ttol = fnorm, s.rtol * fnorm
        for i in range(s.max_it):
            if i % lag == 0 and not self._factor():
                return None
            solver.solve(b, y)
            ynorm = _norm(y)
            x -= y
            xnorm = _norm(x)
            b = fr.assemble(x)
            fnorm = _norm(b)
            its = i + 1
            if not math.isfinite(fnorm):
                return DIVERGED_FUNCTION_NANORINF, its
            if fnorm < s.atol:
                return CONVERGED_FNORM_ABS, its
            if fnorm <= ttol:
                return CONVERGED_FNORM_RELATIVE, its
            if ynorm < s.stol * xnorm:
                return CONVERGED_SNORM_RELATIVE, its
            if fnorm > DIVTOL * fnorm0:
                return DIVERGED_DTOL, its
        return DIVERGED_MAX_IT, s.max_it
