"""Time stepping: implicit midpoint steps (42) solved with PETSc SNES, and quasi-static
load stepping on the same residual.

Dynamics (``mode="dynamic"``): structure operators and loads at ``t_{n+1/2}``
(``theta = 1/2``), which gives the discrete power balance (44), exact constraint
preservation (48) and momentum balances of spec 2.3.

Quasi-static (``mode="quasistatic"``, spec 2.4 item 4): zero inertia, ``t`` is a load
factor. ``evaluation="endpoint"`` (default) enforces equilibrium at ``(q_{n+1},
sigma_{n+1})`` with the loads at ``t_{n+1}``; the compliance rows keep the exact midpoint
strain increment, so ``C sigma_{n+1} = Pi(eps(q_{n+1}))`` and every load step is an exact
discrete equilibrium (no load-stepping error). ``evaluation="midpoint"`` is the paper's
midpoint scheme with zero mass: equilibrium at the midpoint, an O(h^2) load-stepping error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from dolfinx.fem.petsc import NonlinearProblem
from petsc4py import PETSc

from fxrod.errors import ConvergenceError, ParameterError, check_positive
from fxrod.fastassembly import FastJacobian

_SNES_REASONS = {v: k for k, v in PETSc.SNES.ConvergedReason.__dict__.items()
                 if isinstance(v, int)}


def snes_reason_name(code: int) -> str:
    """Human-readable name of a PETSc SNES converged reason."""
    return f"{_SNES_REASONS.get(code, 'UNKNOWN')} ({code})"


@dataclass
class StepResult:
    """Outcome of one accepted step."""

    t: float
    h: float
    newton_its: int
    external_work: float
    port_work: float
    dissipation: float


class Integrator:
    """Implicit midpoint / quasi-static stepper for a :class:`fxrod.model.RodModel`.

    Parameters
    ----------
    model : RodModel
        The discretised rod.
    h : float
        Step size [s] (load-factor increment in quasi-static mode), > 0.
    mode : {"dynamic", "quasistatic"}
        Dynamics with inertia, or zero inertia with t as a load factor.
    evaluation : {"midpoint", "endpoint"}, optional
        Where the momentum balance is evaluated; dynamics always use the midpoint.
    atol, rtol : float
        SNES absolute / relative tolerances on the 2-norm of the residual (42), whose rows
        are written as in the paper (not divided by h). Newton also stops when its update
        falls below 1e-13 relative (round-off: an absolute residual tolerance is not
        reachable once |x| is large, e.g. for a rod that has flown far from the origin).
    max_it : int
        Newton iterations per attempt.
    adaptive : bool
        Halve the step when Newton fails, regrow after ``grow_after`` successes (up to the
        nominal ``h``); give up below ``h_min``.
    h_min : float, optional
        Smallest step for adaptive stepping (default ``h / 2**10``).
    linesearch : str
        PETSc line search of the first attempts (default ``"basic"``: plain Newton steps).
    retry_linesearch : str or None
        Line search of the last retry of a failing step (default ``"bt"``, backtracking;
        None: no such retry). See :meth:`try_step`.
    jacobian_lag : int
        Rebuild (and refactorise) the Jacobian every ``jacobian_lag`` Newton iterations
        of a step, starting with the first (modified Newton; PETSc ``snes_lag_jacobian``).
        The converged step is the same to the Newton tolerance; only the path to it
        changes. The lag does not persist across steps, so every step depends only on the
        state and the last step's increments (both in the checkpoint): a restarted run
        reproduces an uninterrupted one exactly. A failing step is retried with full Newton
        (see :meth:`try_step`) before it counts as failed. 1 = full Newton, whose
        quadratic last iterate puts the constraint and energy residuals at round-off; with
        modified Newton they sit just below ``atol``.
    fast_assembly : bool
        Serial runs assemble the Jacobian with :class:`fxrod.fastassembly.FastJacobian`
        (same FFCx kernels, direct CSR insertion; ~3x faster than DOLFINx's generic
        insertion). ``False`` keeps DOLFINx's ``assemble_matrix`` (always used under MPI).
    predictor : {"extrapolate", "plain"}
        Initial Newton iterate of a step (see :meth:`_predict`); ``"plain"`` starts from
        ``(q_n + h v_n, w_n)``.
    mumps_icntl : dict, optional
        MUMPS ICNTL overrides of fxrod's defaults ``{7: 6, 8: 0}`` (QAMD ordering, no
        scaling); e.g. ``{8: 77}`` restores MUMPS's automatic scaling.
    """

    def __init__(
        self,
        model,
        h: float,
        mode: str = "dynamic",
        evaluation: str | None = None,
        atol: float = 1e-12,
        rtol: float = 1e-14,
        max_it: int = 25,
        adaptive: bool = False,
        h_min: float | None = None,
        grow_after: int = 3,
        linesearch: str = "basic",
        retry_linesearch: str | None = "bt",
        jacobian_lag: int = 8,
        fast_assembly: bool = True,
        predictor: str = "extrapolate",
        mumps_icntl: dict[int, int] | None = None,
    ) -> None:
        self.h_nominal = check_positive("h", h)
        if mode not in ("dynamic", "quasistatic"):
            raise ParameterError("mode", mode, "'dynamic' or 'quasistatic'")
        if evaluation is None:
            evaluation = "midpoint" if mode == "dynamic" else "endpoint"
        if evaluation not in ("midpoint", "endpoint"):
            raise ParameterError("evaluation", evaluation, "'midpoint' or 'endpoint'")
        if mode == "dynamic" and evaluation != "midpoint":
            raise ParameterError("evaluation", evaluation, "'midpoint' in dynamic mode")
        self.atol = check_positive("atol", atol)
        self.rtol = check_positive("rtol", rtol)
        if not isinstance(max_it, int) or max_it < 1:
            raise ParameterError("max_it", max_it, "an integer >= 1")
        if not isinstance(jacobian_lag, int) or jacobian_lag < 1:
            raise ParameterError("jacobian_lag", jacobian_lag, "an integer >= 1")
        self.jacobian_lag = jacobian_lag
        searches = ("basic", "bt", "l2", "cp", "nleqerr")  # PETSc SNESLineSearch types
        if linesearch not in searches:
            raise ParameterError("linesearch", linesearch, f"one of {searches}")
        if retry_linesearch is not None and retry_linesearch not in searches:
            raise ParameterError("retry_linesearch", retry_linesearch,
                                 f"None or one of {searches}")
        self.linesearch = linesearch
        self.retry_linesearch = retry_linesearch
        if predictor not in ("extrapolate", "plain"):
            raise ParameterError("predictor", predictor, "'extrapolate' or 'plain'")
        self.predictor = predictor
        icntl = {7: 6, 8: 0}
        if mumps_icntl is not None:
            if not isinstance(mumps_icntl, dict) or not all(
                    isinstance(k, int) and isinstance(v, int) for k, v in mumps_icntl.items()):
                raise ParameterError("mumps_icntl", mumps_icntl, "a dict of int: int")
            icntl.update(mumps_icntl)
        self.h_min = self.h_nominal / 2**10 if h_min is None else check_positive("h_min", h_min)
        if self.h_min > self.h_nominal:
            raise ParameterError("h_min", h_min, f"<= h = {self.h_nominal}")
        self.model = model
        self.mode = mode
        self.evaluation = evaluation
        self.adaptive = bool(adaptive)
        self.grow_after = int(grow_after)
        self.t = 0.0
        self._t_base, self._n_uniform = 0.0, 0   # t = t_base + n h_nominal (no drift)
        self.h = self.h_nominal
        self.step_count = 0
        self._successes = 0
        # increments of the last accepted step, for the predictor (see _predict)
        self._dw_prev: np.ndarray | None = None
        self._dv_prev: np.ndarray | None = None
        self._h_prev: float | None = None

        model.theta.value = 0.5 if evaluation == "midpoint" else 1.0
        if mode == "quasistatic":
            model.rhoA.value = 0.0
            model.M11.value = 0.0
            model.M22.value = 0.0

        opts = {
            "snes_type": "newtonls",
            "snes_linesearch_type": linesearch,
            "snes_atol": self.atol,
            "snes_rtol": self.rtol,
            "snes_stol": 1e-13,  # update at round-off (|x| grows in free flight): stop
            "snes_max_it": max_it,
            "ksp_type": "preonly",
            "pc_type": "lu",
            "pc_factor_mat_solver_type": "mumps",
            "snes_lag_jacobian": jacobian_lag,
            "snes_lag_jacobian_persists": False,
        }
        Integrator._count = getattr(Integrator, "_count", 0) + 1
        self.problem = NonlinearProblem(
            model.F, model.w, bcs=model.bcs,
            petsc_options_prefix=f"fxrod{Integrator._count}_", petsc_options=opts,
        )
        self.snes = self.problem.solver
        # A first assembly with every entry of the dofmap pattern inserted fixes the
        # sparsity pattern (hence the MUMPS analysis) for the whole run.
        from dolfinx.fem.petsc import assemble_matrix

        A = self.problem.A
        A.zeroEntries()
        assemble_matrix(A, self.problem.J, bcs=model.bcs)
        A.assemble()
        self.fast_jacobian = None
        if fast_assembly and FastJacobian.applicable(self.problem.J, model.comm):
            # serial: C loop over the FFCx kernels into the CSR arrays (fxrod.fastassembly)
            try:
                self.fast_jacobian = FastJacobian(self.problem.J, model.w, model.bcs, A)
            except RuntimeError as err:  # unexpected pattern: DOLFINx's assembly instead
                import warnings

                warnings.warn(f"fxrod: {err}; using DOLFINx's assembly", RuntimeWarning,
                              stacklevel=2)
        if self.fast_jacobian is not None:
            A_fast = self.fast_jacobian.A
            self.snes.setJacobian(self.fast_jacobian.snes_callback, A_fast, A_fast)
            self.problem._A = A_fast   # the problem owns (and destroys) the matrix in use
            A.destroy()
            A = A_fast
        else:
            # The element matrices of the mixed form are ~77 % structural zeros (nodal
            # multiplier blocks, uncoupled director components): skip them on insertion.
            A.setOption(PETSc.Mat.Option.IGNORE_ZERO_ENTRIES, True)
        ksp = self.snes.getKSP()
        ksp.setOperators(A, A)
        pc = ksp.getPC()
        pc.setFactorSetUpSolverType()
        mumps = pc.getFactorMatrix()
        # ICNTL(7) = 6, QAMD ordering: ~20 % faster than the default here. ICNTL(8) = 0, no
        # scaling: the rows are already scaled like the paper's (42); MUMPS's default
        # iterative row/column scaling costs a third of each factorisation (bench/).
        for k, v in icntl.items():
            mumps.setMumpsIcntl(k, v)
        from fxrod.diagnostics import Diagnostics

        self.diagnostics = Diagnostics(model)

    # ------------------------------------------------------------------
    def get_state(self) -> dict:
        """Stepper scalars for a checkpoint (the fields are saved by fxrod.checkpoint)."""
        return {"t": self.t, "h": self.h, "step_count": self.step_count,
                "successes": self._successes, "t_base": self._t_base,
                "n_uniform": self._n_uniform, "h_prev": self._h_prev,
                "dw_prev": self._dw_prev, "dv_prev": self._dv_prev}

    def set_state(self, st: dict) -> None:
        """Restore the stepper scalars written by :meth:`get_state`."""
        self.t = float(st["t"])
        self.h = float(st["h"])
        self.step_count = int(st["step_count"])
        self._successes = int(st["successes"])
        self._t_base, self._n_uniform = float(st["t_base"]), int(st["n_uniform"])
        self._h_prev = None if st.get("h_prev") is None else float(st["h_prev"])
        self._dw_prev, self._dv_prev = st.get("dw_prev"), st.get("dv_prev")
        if self._dw_prev is None or self._dv_prev is None or self._h_prev is None:
            self._dw_prev = self._dv_prev = self._h_prev = None

    def _set_lag(self, lag: int) -> None:
        """Set snes_lag_jacobian (petsc4py has no setter) through the options database."""
        opts = PETSc.Options()
        pre = self.snes.getOptionsPrefix()
        opts[f"{pre}snes_lag_jacobian"] = lag
        opts[f"{pre}snes_lag_jacobian_persists"] = False
        self.snes.setFromOptions()
        del opts[f"{pre}snes_lag_jacobian"]
        del opts[f"{pre}snes_lag_jacobian_persists"]

    def _update_loads(self, t0: float, h: float) -> None:
        te = t0 + float(self.model.theta.value) * h
        for ld in self.model.loads:
            ld.update(te)
        for ext in self.model.extensions:
            ext.update(te, t0 + 0.5 * h)

    def _predict(self, h: float, plain: bool = False) -> None:
        """Initial Newton iterate of a step of size h (only the path to the solution
        depends on it, not the solution).

        Stresses, multipliers and extension fields are extrapolated linearly from the last
        step, ``w_n + (h/h_prev) (w_n - w_{n-1})``. In dynamics the configuration uses the
        midpoint velocity ``v_{n+1/2} ~ v_n + (h/2) a_n`` with ``a_n ~ (v_n - v_{n-1})/h_prev``
        (third-order accurate), in quasi-static stepping the same linear extrapolation as the
        other fields. The first step (and a restart without that history, and the retry of
        a failed step: ``plain=True``) starts from ``w_n`` and ``q_n + h v_n``. Measured on
        the flying spaghetti (n_e 1000, h 0.1): 5 instead of 7 Newton iterations per step
        in free flight, 4.0 instead of 4.45 while it is loaded (bench/step_cost.py).
        """
        m = self.model
        w = m.w.x.array
        w[:] = m.w0.x.array
        qm = m.space.q_map
        extrapolate = (self._dw_prev is not None and not plain
                       and self.predictor == "extrapolate")
        if extrapolate:
            w += (h / self._h_prev) * self._dw_prev
        if self.mode == "dynamic":
            v_mid = m.v0.x.array
            if extrapolate:
                v_mid = v_mid + (0.5 * h / self._h_prev) * self._dv_prev
            w[qm] = m.w0.x.array[qm] + h * v_mid

    def try_step(self, h: float) -> StepResult:
        """Attempt one step of size h from the current state; raise ConvergenceError on
        failure (the state is left unchanged).

        Attempts, each only if the previous one failed: (1) the extrapolating predictor
        with the lagged Jacobian; (2) the plain predictor ``(q_n + h v_n, w_n)`` with full
        Newton (when h is long compared to a vibration period the extrapolation can
        overshoot); (3) the predictor of (1), full Newton and a backtracking line search
        (PETSc ``bt``), which finds the large-rotation free-flight steps of the flying
        spaghetti at h = 2.5 where Newton without line search diverges (from the plain
        predictor even with it). Only the path to the solution differs between them: an accepted
        step solves (42) to the Newton tolerance either way.
        """
        m = self.model
        m.h.value = h
        self._update_loads(self.t, h)
        extrapolates = self.predictor == "extrapolate" and self._dw_prev is not None
        attempts = [(not extrapolates, self.jacobian_lag, None), (True, 1, None)]
        if self.retry_linesearch not in (None, self.linesearch):
            attempts.append((not extrapolates, 1, self.retry_linesearch))
        tried = set()
        for plain, lag, linesearch in attempts:
            if (plain, lag, linesearch) in tried:
                continue  # the same as an attempt that failed already
            tried.add((plain, lag, linesearch))
            self._predict(h, plain=plain)
            if lag != self.jacobian_lag:
                self._set_lag(lag)
            ls = self.snes.getLineSearch()
            if linesearch is not None:
                ls.setType(linesearch)
            try:
                self.problem.solve()
            finally:
                if lag != self.jacobian_lag:
                    self._set_lag(self.jacobian_lag)
                if linesearch is not None:
                    ls.setType(self.linesearch)
            reason = self.snes.getConvergedReason()
            if reason > 0 and np.all(np.isfinite(m.w.x.array)):
                break
        its = self.snes.getIterationNumber()
        arr = m.w.x.array
        if reason <= 0 or not np.all(np.isfinite(arr)):
            m.w.x.array[:] = m.w0.x.array
            why = snes_reason_name(reason) if reason <= 0 else "non-finite solution"
            raise ConvergenceError(self.t, h, why, f"{its} Newton iterations")
        return StepResult(t=self.t + h, h=h, newton_its=its, external_work=0.0,
                          port_work=0.0, dissipation=0.0)

    def _accept(self, res: StepResult) -> StepResult:
        m = self.model
        sq = self.diagnostics.step_quantities()
        res.external_work = sq["external_work_step"]
        res.port_work = sq["port_work_step"]
        res.dissipation = sq["dissipation_step"]
        qm = m.space.q_map
        dq = m.w.x.array[qm] - m.w0.x.array[qm]
        m.v1.x.array[:] = 2.0 * dq / res.h - m.v0.x.array       # (42a)
        if self.mode == "quasistatic":
            m.v1.x.array[:] = 0.0
        self._dw_prev = m.w.x.array - m.w0.x.array
        self._dv_prev = m.v1.x.array - m.v0.x.array
        self._h_prev = res.h
        m.v0.x.array[:] = m.v1.x.array
        m.w0.x.array[:] = m.w.x.array
        if res.h == self.h_nominal:
            self._n_uniform += 1
            res.t = self._t_base + self._n_uniform * self.h_nominal
        else:
            self._t_base, self._n_uniform = res.t, 0
        self.t = res.t
        self.step_count += 1
        return res

    def step(self, h: float | None = None) -> StepResult:
        """Advance by one accepted step (cut adaptively when enabled)."""
        h = self.h if h is None else h
        while True:
            try:
                res = self.try_step(h)
            except ConvergenceError as err:
                if not self.adaptive:
                    raise
                h *= 0.5
                self._successes = 0
                if h < self.h_min * (1 - 1e-12):
                    raise ConvergenceError(err.t, 2 * h, err.reason,
                                           f"step size fell below h_min = {self.h_min:g}") \
                        from err
                continue
            break
        self._successes += 1
        if self.adaptive:
            self.h = h
            if self._successes >= self.grow_after and self.h < self.h_nominal:
                self.h = min(self.h_nominal, 2 * self.h)
                self._successes = 0
        return self._accept(res)

    def advance_to(self, t_end: float, callback=None) -> None:
        """Step until ``t_end`` (the last step is shortened to land on it).

        ``callback(integrator, result)`` is called after every accepted step.
        """
        if not (isinstance(t_end, int | float) and math.isfinite(t_end)) or t_end < 0:
            raise ParameterError("t_end", t_end, ">= 0 and finite")
        eps = 1e-12 * max(1.0, abs(t_end))
        while self.t < t_end - eps:
            remaining = t_end - self.t
            h = self.h if remaining > self.h + eps else remaining
            if abs(remaining - self.h) <= eps:
                h = self.h
            res = self.step(h)
            if abs(self.t - t_end) <= eps:
                self.t = res.t = float(t_end)
            if callback is not None:
                callback(self, res)
