"""Steppers over (model, settings): implicit midpoint steps (42) and quasi-static load
stepping on the same residual, solved with :class:`fxrod.solvers.newton.NewtonSolver` (with the
chain solver in a serial run: :class:`fxrod.solvers.array_newton.ArrayNewtonSolver`, without SNES).

A stepper never changes the physics: whether the problem is dynamic or quasi-static, and
where the balance is evaluated, are properties of the model (:class:`fxrod.core.model.RodModel`);
how the steps are solved is a :class:`fxrod.solvers.settings.SolverSettings`. Dynamics evaluate the
structure operators and loads at ``t_{n+1/2}``, which gives the discrete power balance (44),
exact constraint preservation (48) and the momentum balances of theory §2.3. In a
quasi-static model ``t`` is a load factor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from fxrod.core.diagnostics import tension_mechanism_ratio
from fxrod.errors import ConvergenceError, ParameterError, check_positive
from fxrod.solvers import backends
from fxrod.solvers.array_newton import ArrayNewtonSolver
from fxrod.solvers.backends import Capabilities
from fxrod.solvers.newton import NewtonSolver, snes_reason_name
from fxrod.solvers.reduction import ReducedNewtonSolver
from fxrod.solvers.settings import SolverSettings


@dataclass
class StepResult:
    """Outcome of one accepted step (energies in J, times in s; ``reactions``: support label
    -> (force [N], moment [N m]) of the step, see :meth:`fxrod.core.model.RodModel.reactions`)."""

    t: float
    h: float
    newton_its: int
    external_work: float = 0.0
    port_work: float = 0.0
    dissipation: float = 0.0
    energy_residual: float = 0.0
    reactions: dict = field(default_factory=dict)


class Integrator:
    """Implicit midpoint / quasi-static stepper for a :class:`fxrod.core.model.RodModel`.

    Parameters
    ----------
    model : RodModel
        The discretised system (dynamic or quasi-static).
    h : float
        Step size [s] (load-factor increment in a quasi-static model), > 0.
    settings : SolverSettings, optional
        How each step is solved (tolerances, Jacobian lag, line searches, predictor, MUMPS,
        adaptive step cutting); default ``SolverSettings()``.
    """

    def __init__(self, model, h: float, settings: SolverSettings | None = None) -> None:
        self.h_nominal = check_positive("h", h)
        settings = SolverSettings() if settings is None else settings
        if not isinstance(settings, SolverSettings):
            raise ParameterError("settings", settings, "a fxrod.SolverSettings")
        self.settings = settings
        self.h_min = self.h_nominal / 2**10 if settings.h_min is None else settings.h_min
        if self.h_min > self.h_nominal:
            raise ParameterError("h_min", settings.h_min, f"<= h = {self.h_nominal}")
        self.model = model
        self.t = 0.0
        self._t_base, self._n_uniform = 0.0, 0   # t = t_base + n h_nominal (no drift)
        self.h = self.h_nominal
        self.step_count = 0
        self._successes = 0
        # increments of the last accepted step, for the predictor (see _predict)
        self._dw_prev: np.ndarray | None = None
        self._dv_prev: np.ndarray | None = None
        self._h_prev: float | None = None
        terms = model.nonlocal_terms
        model.solver_settings = settings       # the analyses factorise as this run does
        if model.reduction is None:
            # the chain solver in a serial run without nonlocal terms: Newton without SNES
            # (fxrod.solvers.array_newton; it hands the solves it cannot reproduce to SNES)
            fast = (settings.linear_solver in ("auto", "chain") and model.comm.size == 1
                    and not terms)
            solver = ArrayNewtonSolver if fast else NewtonSolver
            self.newton = solver(model.F, model.w, model.bcs, settings, terms=terms)
        else:
            if settings.linear_solver == "chain":
                backends.require("linear_solver", "chain", Capabilities(joints=True),
                                 "'auto' or 'mumps'")
            self.newton = ReducedNewtonSolver(model.F, model.w, model.bcs, settings,
                                              model.reduction, terms=terms)

    # ------------------------------------------------------------------
    def get_state(self) -> dict:
        """Stepper scalars for a checkpoint (the fields are saved by fxrod.runs.checkpoint)."""
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
                       and self.settings.predictor == "extrapolate")
        if extrapolate:
            w += (h / self._h_prev) * self._dw_prev
        if not m.quasistatic:
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
        if m.ledger.H is None:   # H_n before the inputs move (a moving obstacle or support)
            m.ledger.H = m.ledger.current()["H"]
        m.begin_step(self.t, h)
        st = self.settings
        extrapolates = st.predictor == "extrapolate" and self._dw_prev is not None
        attempts = [(not extrapolates, st.jacobian_lag, None), (True, 1, None)]
        if st.retry_linesearch not in (None, st.linesearch):
            attempts.append((not extrapolates, 1, st.retry_linesearch))
        tried = set()
        ok = False
        for plain, lag, linesearch in attempts:
            if (plain, lag, linesearch) in tried:
                continue  # the same as an attempt that failed already
            tried.add((plain, lag, linesearch))
            self._predict(h, plain=plain)
            reason, its = self.newton.solve(lag=lag, linesearch=linesearch)
            ok = reason > 0 and bool(np.isfinite(m.w.x.array).all())
            if ok:
                break
        if not ok:
            m.w.x.array[:] = m.w0.x.array
            why = snes_reason_name(reason) if reason <= 0 else "non-finite solution"
            raise ConvergenceError(self.t, h, why, f"{its} Newton iterations"
                                   + self._failure_note())
        return StepResult(t=self.t + h, h=h, newton_its=its)

    def _failure_note(self) -> str:
        """What a failed step's message adds about the model: a quasi-static model without
        supports or extensions has no determined loaded equilibrium; a state whose tension
        makes the elements' shear mechanism unstable
        (:func:`fxrod.core.diagnostics.tension_mechanism_ratio` >= 1) cannot be stepped."""
        m = self.model
        if m.quasistatic and not m.supports and not m.extensions:
            return ("; the model has no supports: a free rod's rigid motions leave a loaded "
                    "equilibrium undetermined (add a support)")
        if not m.quasistatic:
            ratio = tension_mechanism_ratio(m)
            if ratio >= 1.0:
                return (f"; the tension makes the elements' shear mechanism unstable "
                        f"(N l^2/(24 EI) = {ratio:.3g} >= 1 at t_n): use elements shorter "
                        f"than sqrt(24 EI/N) or a larger bending stiffness")
        return ""

    def _accept(self, res: StepResult) -> StepResult:
        m = self.model
        res.reactions, support_work = m.support_response()
        flows = m.ledger.flows(support_work)
        res.external_work = flows["external_work"]
        res.port_work = flows["port_work"]
        res.dissipation = flows["dissipated"]
        self._dw_prev, self._dv_prev = m.finish_step()      # (42a), the state shift
        self._h_prev = res.h
        res.energy_residual = m.ledger.book(flows)
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
                if not self.settings.adaptive:
                    raise
                h *= 0.5
                self._successes = 0
                if h < self.h_min * (1 - 1e-12):
                    raise ConvergenceError(err.t, 2 * h, err.reason,
                                           f"step size fell below h_min = {self.h_min:g}"
                                           + self._failure_note()) from err
                continue
            break
        self._successes += 1
        if self.settings.adaptive:
            self.h = h
            if self._successes >= self.settings.grow_after and self.h < self.h_nominal:
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
