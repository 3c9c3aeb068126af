"""The optimal actuation's machinery and tables (``demos/optimal_actuation.py``): L-BFGS-B on
scaled chamber forces with one CSV row per iteration, the table of the optimised inputs
against the paper's, and the tip's distance to a target path."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fxrod.analysis.optimize import ScaledProblem, minimize
from fxrod.output.tables import CSVWriter

#: Columns of ``optimal_actuation.csv`` (one row per L-BFGS-B iteration) with their units
#: and meanings (``optimal_actuation_columns.json``).
ITERATION_UNITS = {"iteration": "-", "evaluations": "-", "J": "-", "rms_error": "m",
                   "grad_norm": "-"}
ITERATION_MEANINGS = {
    "iteration": "L-BFGS-B iteration (0: the start)",
    "evaluations": "forward + adjoint runs so far (line-search trial points included)",
    "J": "tracking objective, normalised by the target's distance from the start",
    "rms_error": "root-mean-square tip distance to the heart data over the steps",
    "grad_norm": "norm of dJ/dx of the last evaluation (x = chamber forces / 5 N)"}


@dataclass
class Tracking:
    """An optimal-control problem of tip tracking: the adjoint
    (:class:`fxrod.analysis.adjoint.Adjoint`) over the input histories, the forward problem
    (:class:`fxrod.runs.problem.Problem`), the target path ``(N, 3)`` [m] at ``t_n = n h``,
    the knots [s] and the weight [1/m^2] of the objective ``TipTracking``."""

    adjoint: object
    problem: object
    target: np.ndarray
    knots: np.ndarray
    weight: float

    def rms(self, J: float) -> float:
        """Root-mean-square tip error [m] of an objective value."""
        return float(np.sqrt(J / self.weight / len(self.target)))


def lbfgsb(adj, maxiter: int, scale: float, rms: Callable[[float], float],
           path: Path | None = None):
    """L-BFGS-B over the parameters of the adjoint ``adj``
    (:class:`fxrod.analysis.adjoint.Adjoint`) from their current values, seen by the
    optimiser divided by ``scale`` (:class:`fxrod.analysis.optimize.ScaledProblem`); one row
    of :data:`ITERATION_UNITS` per iteration into the CSV ``path`` (row 0: the start),
    ``rms(J)`` the rms tip error [m] of an objective value. Returns scipy's result (``p``,
    ``history``, ``failures``) with ``rows`` (the iterations after the start)."""
    rows = []
    writer = None if path is None else CSVWriter(
        path, list(ITERATION_UNITS), adj.model.comm, units=ITERATION_UNITS,
        meanings=ITERATION_MEANINGS)

    def write(row: dict) -> None:
        rows.append(row)
        if writer is not None:
            writer.write(row)

    def record(intermediate_result) -> None:
        if not rows:                                   # the starting point
            J0 = prob.history[0].J
            write({"iteration": 0, "evaluations": 1, "J": J0, "rms_error": rms(J0),
                   "grad_norm": prob.history[0].grad_norm})
        J = float(intermediate_result.fun)
        write({"iteration": len(rows), "evaluations": len(prob.history), "J": J,
               "rms_error": rms(J), "grad_norm": prob.history[-1].grad_norm})

    prob = ScaledProblem(adj, np.full(adj.get().size, scale))
    res = minimize(adj, problem=prob, callback=record,
                   options={"maxiter": maxiter, "gtol": 1e-12, "ftol": 1e-15})
    if writer is not None:
        writer.close()
    res.rows = rows[1:]
    return res


def write_inputs(path: Path, knots: np.ndarray, tau: np.ndarray, paper: np.ndarray,
                 comm) -> Path:
    """One row a knot: ``t`` [s], the optimised ``tau_1..3`` and the paper's
    ``paper_tau_1..3`` [N] (``tau``, ``paper``: ``(n_knots, 3)``), with units and meanings."""
    cols = ["t"] + [f"tau_{k}" for k in (1, 2, 3)] + [f"paper_tau_{k}" for k in (1, 2, 3)]
    units = {"t": "s", **{c: "N" for c in cols[1:]}}
    meanings = {"t": "time of the knot",
                **{f"tau_{k}": f"optimised chamber force p_k A_k of chamber {k} (<= 0)"
                   for k in (1, 2, 3)},
                **{f"paper_tau_{k}": f"the paper's open-loop heart input of chamber {k}"
                   for k in (1, 2, 3)}}
    with CSVWriter(path, cols, comm, units=units, meanings=meanings) as w:
        for t, a, b in zip(knots, tau, paper, strict=True):
            w.write(dict(zip(cols, [float(t), *map(float, a), *map(float, b)], strict=True)))
    return Path(path)


def tip_errors(sim, target: np.ndarray) -> tuple[float, float]:
    """rms and max distance [m] of the recorded tip of ``sim`` (rows after t = 0) to the
    ``target`` path ``(N, 3)`` [m]."""
    tip = np.c_[sim.column("tip_1"), sim.column("tip_2"), sim.column("tip_3")]
    d = np.linalg.norm(tip[1:] - target, axis=1)
    return float(np.sqrt(np.mean(d**2))), float(d.max())
