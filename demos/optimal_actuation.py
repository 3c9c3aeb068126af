# %% [markdown]
# # Optimal actuation: the soft arm's tip on the heart path, by adjoint gradients.
#
# The pneumatic arm of Ex. 6.4 (demos/soft_arm.py, h = 0.05 s) starts at rest with zero
# chamber forces. Which force histories ``tau_k(t) = p_k A_k`` [N] make its tip follow the
# authors' published heart path, with the arm's own dynamics? The histories are piecewise
# linear between knots every 0.1 s, bounded to [-150, 0] N (pressures >= 0); the objective
# ``J = sum_n |tip(t_n) - target(t_n)|^2 / sum_n |target(t_n) - tip(0)|^2`` is 1 at rest.
# L-BFGS-B takes its gradients from the discrete adjoint of the midpoint steps: one backward
# sweep per gradient, whatever the number of knots. The reference is the arm driven by the
# paper's open-loop inputs (81).
#
#     python demos/optimal_actuation.py [--out DIR] [--quick] [--t-end 4] [--maxiter 200]
#
# Writes ``DIR/optimal_actuation.csv`` (one row per iteration), ``..._inputs.csv`` (the
# optimised and the paper's forces per knot), ``..._tip.csv`` (the optimised run) and a
# picture; ``fxrod run optimal-actuation`` runs the same case.

# %%
from pathlib import Path

import numpy as np

from fxrod import Adjoint, Simulation
from fxrod.analysis.adjoint import InputHistory, TipTracking
from fxrod.data import reference_path
from fxrod.output.tables import prepare_output_dir
from fxrod.problems.optimal_actuation import Tracking, lbfgsb, tip_errors, write_inputs
from fxrod.problems.soft_arm import SOFT_ARM, chamber_forces
from fxrod.studies.cases import Case, Option, Result, demo
from fxrod.studies.cases.common import output_files, wrote

NAME = "optimal_actuation"
#: The authors' heart tip path (columns time, x_tip, y_tip, z_tip [s, m]).
DATA = ("kinon2026/results/example_04_soft_robotic_arm", "ex04_pressure_heart_results.csv")
TAU_MIN = 3.0 * SOFT_ARM.f_max   # lower bound of every force [N]: 3 times the paper's |f_max|
TAU_SCALE = 5.0                  # the forces' scale [N] seen by the optimiser

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
def target_path(t_end: float) -> np.ndarray:
    """The published heart tip positions at ``t_n = n h``, n = 1..N (``N h = t_end``)."""
    data = np.loadtxt(reference_path(*DATA), delimiter=",", skiprows=1)
    n = int(round(t_end / SOFT_ARM.h))
    return data[1:n + 1, 1:4]


def problem(t_end: float = SOFT_ARM.t_end, n_elements: int = SOFT_ARM.n_elements,
            knot_step: float = 0.1, comm=None) -> Tracking:
    """Three chamber-force histories [N] on knots every ``knot_step`` [s], zero at first."""
    prob = demo("soft_arm").problem("heart", n_elements=n_elements, comm=comm)
    act = prob.model.extensions[0]
    knots = np.arange(0.0, t_end + 1e-9, knot_step)
    inputs = [InputHistory(f"tau_{k + 1}", (act, a), knots, values=np.zeros(knots.size),
                           lower=TAU_MIN, upper=0.0) for k, a in enumerate(act.actuators)]
    target = target_path(t_end)
    weight = 1.0 / float(np.sum((target - [0.0, 0.0, SOFT_ARM.length]) ** 2))
    adj = Adjoint(prob.integrator(), t_end, TipTracking(target, weight=weight), inputs)
    return Tracking(adj, prob, target, knots, weight)


# %% [markdown]
# ## The reference: the paper's open-loop inputs
# The same arm driven by the heart inputs (81): its tip misses the data by a few 1e-4 m
# (the authors' element details differ, tests/test_actuation.py).

# %%
def open_loop(t_end: float, n_elements: int, comm=None) -> tuple[float, float]:
    """rms and max tip error [m] of the arm driven by the paper's open-loop heart inputs."""
    prob = demo("soft_arm").problem("heart", n_elements=n_elements, comm=comm)
    sim = Simulation(prob.integrator(), None, "open_loop", quiet=True)
    sim.run(t_end)
    return tip_errors(sim, target_path(t_end))


# %% [markdown]
# ## The optimisation and its result
# L-BFGS-B on the forces scaled by 5 N (``lbfgsb``: one CSV row per iteration); a trial
# point whose Newton solve fails counts as a large objective, so the line search backs off.
# Then the run with the optimised inputs, its tip error next to the open-loop one, the
# inputs table and the picture.

# %%
def finish(tracking: Tracking, res, out: Path | None, open_loop_errors: tuple[float, float],
           pictures: bool = True) -> Result:
    """Inputs table, the recorded run with the optimised inputs, the picture, the summary."""
    comm = tracking.adjoint.model.comm
    tracking.problem.model.set_initial_state()     # the optimised inputs, from rest
    with Simulation(tracking.problem.integrator(), out, f"{NAME}_tip", quiet=True) as sim:
        sim.run(tracking.adjoint.t_end)
    rms, mx = tip_errors(sim, tracking.target)
    tau = np.asarray(res.p).reshape(3, -1).T
    paper = np.array([chamber_forces("heart", t) for t in tracking.knots])
    files = output_files(sim)
    if out is not None:
        files += [out / f"{NAME}.csv",
                  write_inputs(out / f"{NAME}_inputs.csv", tracking.knots, tau, paper, comm)]
        if pictures and comm.rank == 0:
            from fxrod.viz.figures import tracking_figure

            files.append(tracking_figure(out / f"{NAME}.png", sim, tracking.target))
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
                  {f"{NAME}_tip": sim}, files, rank=comm.rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, t_end: float, n_elements: int,
        knot_step: float, maxiter: int, comm=None) -> Result:
    """Build, optimise and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    tracking = problem(t_end, n_elements, knot_step, comm)
    if out is not None:
        out = prepare_output_dir(out, tracking.adjoint.model.comm)
    ref = open_loop(t_end, n_elements, comm)
    res = lbfgsb(tracking.adjoint, maxiter, TAU_SCALE, tracking.rms,
                 None if out is None else out / f"{NAME}.csv")
    return finish(tracking, res, out, ref, pictures)


CASE = Case("optimal-actuation", "chamber inputs tracking the soft arm's heart path, by "
            "L-BFGS-B with adjoint gradients from zero inputs",
            OPTIONS, {"t_end": 0.5, "n_elements": 4, "maxiter": 6}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
