# %% [markdown]
# # Optimal actuation: the soft arm's tip on the heart path, by adjoint gradients.
#
# The pneumatic arm of Ex. 6.4 (demos/soft_arm.py, h = 0.05 s) starts at rest with zero
# chamber forces. Which force histories ``tau_k(t) = p_k A_k`` [N] (the paper's input
# variable) make its tip follow the authors' published heart path, with the arm's own
# dynamics? The histories are piecewise linear between knots every 0.1 s, bounded to
# [-150, 0] N (pressures >= 0); the objective is
# ``J = sum_n |tip(t_n) - target(t_n)|^2 / sum_n |target(t_n) - tip(0)|^2`` (1 at rest).
# L-BFGS-B takes its gradients from the discrete adjoint of the midpoint steps
# (fxrod.analysis.adjoint): one backward sweep per gradient, whatever the number of knots.
# The reference is the arm driven by the paper's open-loop inputs (81).
#
#     python demos/optimal_actuation.py [--out DIR] [--quick] [--t-end 4] [--n-elements 10]
#                                       [--knot-step 0.1] [--maxiter 200]
#
# ``fxrod run optimal-actuation`` runs the same. Writes ``DIR/optimal_actuation.csv`` (one
# row per L-BFGS-B iteration: ``iteration, evaluations, J, rms_error`` [m], ``grad_norm``),
# ``DIR/optimal_actuation_inputs.csv`` (per knot ``t`` [s], optimised ``tau_1..3`` [N], the
# paper's ``paper_tau_1..3`` [N]), ``DIR/optimal_actuation_tip.csv`` (the run with the
# optimised inputs) and ``DIR/optimal_actuation.png`` (the tip path vs the heart). Summary
# keys: ``iterations``, ``evaluations``, ``J``, ``rms_error``, ``max_error`` [m] (optimised
# inputs vs the target), ``open_loop_rms_error``, ``open_loop_max_error`` [m] (the paper's
# inputs), ``max_input_gap`` [N] (largest ``|tau - tau_paper|`` at the knots).

# %%
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fxrod import Adjoint, Problem, Simulation
from fxrod.analysis.adjoint import InputHistory, TipTracking
from fxrod.analysis.optimize import ScaledProblem, minimize
from fxrod.data import reference_path
from fxrod.output.tables import CSVWriter, prepare_output_dir
from fxrod.problems.soft_arm import SOFT_ARM, chamber_forces
from fxrod.studies.cases import Case, Option, Result, demo
from fxrod.studies.cases.common import output_files, tip_path, wrote

NAME = "optimal_actuation"
#: The authors' heart tip path (columns time, x_tip, y_tip, z_tip [s, m]).
DATA = ("kinon2026/results/example_04_soft_robotic_arm", "ex04_pressure_heart_results.csv")
#: Lower bound of every chamber force [N] (three times the paper's amplitude ``|f_max|``).
TAU_MIN = 3.0 * SOFT_ARM.f_max
#: Scale of the chamber forces seen by the optimiser [N] (first trial steps of this size).
TAU_SCALE = 5.0

OPTIONS = (
    Option("t_end", SOFT_ARM.t_end, "s", "end of the tracked path", bounds="(0, 4]"),
    Option("n_elements", SOFT_ARM.n_elements, "-", "number of elements", bounds="[1, inf)"),
    Option("knot_step", 0.1, "s", "spacing of the input knots", bounds="(0, inf)"),
    Option("maxiter", 600, "-", "L-BFGS-B iterations", bounds="[1, inf)"),
)



# %% [markdown]
# ## The optimal-control problem
# The arm with the heart input as demos/soft_arm.py builds it; its three chambers' forces
# become ``InputHistory`` parameters (zero at the start), the objective ``TipTracking`` of
# the data rows at t_n = n h; the adjoint owns the stepper.

# %%
@dataclass
class Tracking:
    """The optimal-control problem: the adjoint over the three input histories, the
    target path ``(N, 3)`` [m] at ``t_n = n h`` and the knots [s]."""

    adjoint: Adjoint
    problem: Problem
    target: np.ndarray
    knots: np.ndarray
    weight: float

    def rms(self, J: float) -> float:
        """Root-mean-square tip error [m] of an objective value."""
        return float(np.sqrt(J / self.weight / len(self.target)))


def target_path(t_end: float) -> np.ndarray:
    """The published heart tip positions at ``t_n = n h``, n = 1..N (``N h = t_end``)."""
    data = np.loadtxt(reference_path(*DATA), delimiter=",", skiprows=1)
    n = int(round(t_end / SOFT_ARM.h))
    return data[1:n + 1, 1:4]


def problem(t_end: float = SOFT_ARM.t_end, n_elements: int = SOFT_ARM.n_elements,
            knot_step: float = 0.1, comm=None) -> Tracking:
    """The arm with three chamber-force histories [N] on knots ``0, knot_step, ...,
    t_end`` (zero: at rest), tracking the heart data up to ``t_end`` [s]."""
    prob = demo("soft_arm").problem("heart", n_elements=n_elements, comm=comm)
    act = prob.model.extensions[0]
    knots = np.arange(0.0, t_end + 1e-9, knot_step)
    inputs = [InputHistory(f"tau_{k + 1}", (act, a), knots, values=np.zeros(knots.size),
                           lower=TAU_MIN, upper=0.0) for k, a in enumerate(act.actuators)]
    target = target_path(t_end)
    weight = 1.0 / float(np.sum((target - [0.0, 0.0, SOFT_ARM.length]) ** 2))
    adj = Adjoint(prob.integrator(), t_end,
                  TipTracking(target, weight=weight), inputs)
    return Tracking(adj, prob, target, knots, weight)


# %% [markdown]
# ## The reference: the paper's open-loop inputs
# The same arm driven by the heart inputs (81): its tip misses the data by a few 1e-4 m
# (the authors' element details differ, tests/test_actuation.py).

# %%
def tip_run(tracking: Tracking, out: Path | None, name: str) -> Simulation:
    """A recorded run of the model with the inputs it holds, from rest to the end."""
    tracking.problem.model.set_initial_state()
    sim = Simulation(tracking.problem.integrator(), out, name, quiet=True)
    sim.run(tracking.adjoint.t_end)
    return sim


def errors(sim: Simulation, target: np.ndarray) -> tuple[float, float]:
    """rms and max distance [m] of the recorded tip (rows after t = 0) to the target."""
    d = np.linalg.norm(tip_path(sim)[1:] - target, axis=1)
    return float(np.sqrt(np.mean(d**2))), float(d.max())


def open_loop(t_end: float, n_elements: int, comm=None) -> tuple[float, float]:
    """rms and max tip error [m] of the arm driven by the paper's open-loop heart inputs."""
    prob = demo("soft_arm").problem("heart", n_elements=n_elements, comm=comm)
    sim = Simulation(prob.integrator(), None, "open_loop", quiet=True)
    sim.run(t_end)
    return errors(sim, target_path(t_end))


# %% [markdown]
# ## The optimisation
# L-BFGS-B on the forces scaled by 5 N; a trial point whose Newton solve fails counts as
# a large objective, so the line search backs off. One CSV row per iteration.

# %%
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


def optimise(tracking: Tracking, maxiter: int, out: Path | None):
    """L-BFGS-B from zero inputs; one CSV row per iteration (``optimal_actuation.csv``,
    row 0: the start). Returns scipy's result (``p``, ``history``, ``failures``) with
    ``rows`` (the iterations)."""
    adj = tracking.adjoint
    rows = []
    writer = None if out is None else CSVWriter(
        out / f"{NAME}.csv", list(ITERATION_UNITS), adj.model.comm, units=ITERATION_UNITS,
        meanings=ITERATION_MEANINGS)

    def write(row: dict) -> None:
        rows.append(row)
        if writer is not None:
            writer.write(row)

    def record(intermediate_result) -> None:
        if not rows:                                   # the starting point (zero inputs)
            J0 = prob.history[0].J
            write({"iteration": 0, "evaluations": 1, "J": J0, "rms_error": tracking.rms(J0),
                   "grad_norm": prob.history[0].grad_norm})
        J = float(intermediate_result.fun)
        write({"iteration": len(rows), "evaluations": len(prob.history), "J": J,
               "rms_error": tracking.rms(J), "grad_norm": prob.history[-1].grad_norm})

    prob = ScaledProblem(adj, np.full(adj.get().size, TAU_SCALE))
    res = minimize(adj, problem=prob, callback=record,
                   options={"maxiter": maxiter, "gtol": 1e-12, "ftol": 1e-15})
    if writer is not None:
        writer.close()
    res.rows = rows[1:]
    return res


# %% [markdown]
# ## Post-processing
# The run with the optimised inputs, its tip error against the data next to the open-loop
# one, the inputs table and the picture.

# %%
def finish(tracking: Tracking, res, out: Path | None, open_loop_errors: tuple[float, float],
           pictures: bool = True) -> Result:
    """Inputs table, the recorded run with the optimised inputs, the picture, the summary."""
    adj = tracking.adjoint
    comm = adj.model.comm
    rank = comm.rank
    sim = tip_run(tracking, out, f"{NAME}_tip")
    rms, mx = errors(sim, tracking.target)
    tau = np.asarray(res.p).reshape(3, -1).T
    paper = np.array([chamber_forces("heart", t) for t in tracking.knots])
    files = output_files(sim)
    if out is not None:
        cols = ["t"] + [f"tau_{k}" for k in (1, 2, 3)] + [f"paper_tau_{k}" for k in (1, 2, 3)]
        units = {"t": "s", **{c: "N" for c in cols[1:]}}
        meanings = {"t": "time of the knot",
                    **{f"tau_{k}": f"optimised chamber force p_k A_k of chamber {k} (<= 0)"
                       for k in (1, 2, 3)},
                    **{f"paper_tau_{k}": f"the paper's open-loop heart input of chamber {k}"
                       for k in (1, 2, 3)}}
        with CSVWriter(out / f"{NAME}_inputs.csv", cols, comm, units=units,
                       meanings=meanings) as w:
            for t, a, b in zip(tracking.knots, tau, paper, strict=True):
                w.write(dict(zip(cols, [float(t), *map(float, a), *map(float, b)],
                                 strict=True)))
        files += [out / f"{NAME}.csv", out / f"{NAME}_inputs.csv"]
        if pictures and rank == 0:
            files.append(picture(out / f"{NAME}.png", sim, tracking.target))
    s = {"iterations": len(res.rows), "evaluations": len(res.history), "J": float(res.fun),
         "rms_error": rms, "max_error": mx, "open_loop_rms_error": open_loop_errors[0],
         "open_loop_max_error": open_loop_errors[1],
         "max_input_gap": float(np.abs(tau - paper).max())}
    text = (f"{NAME}: {s['iterations']} L-BFGS-B iterations ({s['evaluations']} runs, "
            f"{res.failures} failed trial runs): tip error rms {rms:.3e} m, max {mx:.3e} m "
            f"(paper's open-loop inputs: rms {open_loop_errors[0]:.3e} m, max "
            f"{open_loop_errors[1]:.3e} m); largest |tau - tau_paper| {s['max_input_gap']:.3g}"
            " N")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {f"{NAME}_tip": sim}, files, rank=rank)


def picture(path: Path, sim: Simulation, target: np.ndarray) -> Path:
    """Tip path seen from above (x, y) and its height z(t), optimised vs the heart data."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tip, t = tip_path(sim), sim.column("t")
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2))
    a.plot(target[:, 0], target[:, 1], "k.", label="heart path (authors' data)")
    a.plot(tip[:, 0], tip[:, 1], "C3-", label="tip, optimised inputs")
    a.set(xlabel="x [m]", ylabel="y [m]", aspect="equal", title="tip seen from above")
    a.legend(loc="lower left", fontsize=8)
    b.plot(t[1:], target[:, 2], "k.", label="data")
    b.plot(t, tip[:, 2], "C3-", label="optimised")
    b.set(xlabel="t [s]", ylabel="z [m]", title="tip height")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def run(out: Path | None, *, pictures: bool, quiet: bool, t_end: float, n_elements: int,
        knot_step: float, maxiter: int, comm=None) -> Result:
    """Build, optimise and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    tracking = problem(t_end, n_elements, knot_step, comm)
    if out is not None:
        out = prepare_output_dir(out, tracking.adjoint.model.comm)
    ref = open_loop(t_end, n_elements, comm)
    res = optimise(tracking, maxiter, out)
    return finish(tracking, res, out, ref, pictures)


CASE = Case("optimal-actuation", "chamber inputs tracking the soft arm's heart path, by "
            "L-BFGS-B with adjoint gradients from zero inputs",
            OPTIONS, {"t_end": 0.5, "n_elements": 4, "maxiter": 6}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    args = CASE.parse_args()
    tracking = problem(args.t_end, args.n_elements, args.knot_step)
    out = None if args.out is None else prepare_output_dir(args.out,
                                                           tracking.adjoint.model.comm)
    reference = open_loop(args.t_end, args.n_elements)
    result = optimise(tracking, args.maxiter, out)
    summary = finish(tracking, result, out, reference, pictures=args.pictures)
    raise SystemExit(summary.report(args.quiet))
