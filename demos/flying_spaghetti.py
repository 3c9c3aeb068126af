# %% [markdown]
# # Flying spaghetti (Kinon, Eugster & Betsch 2026, Ex. 6.1; Simo & Vu-Quoc 1988).
#
# A free, initially straight rod is pushed at one end by a force and a moment that rise and
# fall over t in [0, 5]; then it tumbles freely through space. The mixed port-Hamiltonian
# discretisation with the implicit midpoint rule is energy-momentum consistent: after the
# pulse the Hamiltonian H, the linear momentum p = (50, 0, 0) and the angular momentum J stay
# constant to the Newton tolerance (absolute 1e-11), step after step, and the energy balance
# ``H_{n+1} - H_n = W_ext`` holds during the pulse.
#
#     python demos/flying_spaghetti.py [--out DIR] [--quick] [--h 0.1] [--n-elements 10]
#     mpirun -n 2 python demos/flying_spaghetti.py
#
# ``--quick`` stops at t = 5 (end of the loading); ``--help`` lists the other options. Writes
# ``DIR/flying_spaghetti.csv`` (energies, momenta, tip, constraint residual per step),
# ``.pvd`` (ParaView), ``.png`` (snapshots every 2.5 s) and ``.gif``. The same case runs as
# ``fxrod run flying-spaghetti`` (the registry reads this file); ``fxrod sweep
# flying-spaghetti --ensemble B`` runs B points of its ensemble options as one ensemble.

# %%
import dataclasses
from pathlib import Path

import numpy as np

from fxrod import EndLoad, Problem, Rod, RodModel, Section, piecewise_linear_hat
from fxrod.problems.paper import PAPER_SETTINGS, flying_spaghetti_section
from fxrod.runs.ensemble import Ensemble
from fxrod.runs.ensemble_run import EnsembleRun
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result, control, exit_on_signal
from fxrod.studies.cases.common import (
    frame_times,
    last_row,
    output_files,
    recorded,
    snapshots_at,
    wrote,
)

NAME = "flying_spaghetti"
PICTURE_EVERY = 2.5      # snapshot interval of the figure [s]
OPTIONS = (
    Option("h", 0.1, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 15.0, "s", "end time", bounds="(0, inf)"),
    Option("n_elements", 10, "-", "number of elements", bounds="[1, inf)"),
    Option("kirchhoff", False, "-", "constrained (C_N = 0) rod"),
    Option("load_scale", 1.0, "-", "factor on the end force and moment"),
    Option("stiffness_scale", 1.0, "-", "factor on the shear, axial, bending and torsion "
           "stiffness", bounds="(0, inf)"),
    *RUN_CONTROL,
)
#: The options that only change a member of an ensemble (load factor, section).
ENSEMBLE_OPTIONS = ("load_scale", "stiffness_scale")


# %% [markdown]
# ## The model
# The section of Table 1 (rhoA = 1, M_rho = 10, bending and torsion stiffness 1e3, shear and
# axial stiffness 1e4, consistent units; ``flying_spaghetti_section``), every stiffness
# times ``stiffness_scale``. The rod runs from (0, 0, 8) to (6, 0, 0) with d1 = e2, no
# supports. At s = L act the force f(t) (1/10, 0, 0) and the moment f(t) (0, 1, 1/2), the hat
# f rising from 0 to 200 at t = 2.5 and back to 0 at t = 5 (the loads (74)). ``rotation``
# turns the rod and the loads (the objectivity test). Newton to atol 1e-11, as the authors.

# %%
def section(stiffness_scale: float = 1.0) -> Section:
    """Table 1's section with every stiffness times ``stiffness_scale`` [-]."""
    sec = flying_spaghetti_section()
    return dataclasses.replace(sec, **{k: stiffness_scale * getattr(sec, k) for k in
                                       ("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")})


def template(n_elements: int = 10, kirchhoff: bool = False, stiffness_scale: float = 1.0,
             rotation: np.ndarray | None = None) -> Rod:
    """The free rod, turned by ``rotation``; ``kirchhoff`` constrains shear and extension."""
    Q = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
    return Rod(section(stiffness_scale), start=tuple(Q @ [0.0, 0.0, 8.0]),
               end=tuple(Q @ [6.0, 0.0, 0.0]), d1=tuple(Q @ [0.0, 1.0, 0.0]),
               n_elements=n_elements, constraints=("kirchhoff",) if kirchhoff else ())


def loads(load_scale: float = 1.0, rotation: np.ndarray | None = None) -> list[EndLoad]:
    """The loads (74) times ``load_scale``, turned by ``rotation``."""
    f = piecewise_linear_hat(200.0, 2.5, 5.0)
    Q = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
    n, m = Q @ np.array([0.1, 0.0, 0.0]), Q @ np.array([0.0, 1.0, 0.5])
    return [EndLoad("L", force=lambda t: load_scale * (f(t) * n),
                    moment=lambda t: load_scale * (f(t) * m))]


def problem(n_elements: int = 10, h: float = 0.1, t_end: float = 15.0,
            kirchhoff: bool = False, comm=None, load_scale: float = 1.0,
            stiffness_scale: float = 1.0, rotation: np.ndarray | None = None) -> Problem:
    """The rod and loads above, step ``h`` [s] up to ``t_end`` [s]."""
    model = RodModel(template(n_elements, kirchhoff, stiffness_scale, rotation),
                     loads(load_scale, rotation), comm=comm)
    return Problem(model, h, t_end, PAPER_SETTINGS)


# %% [markdown]
# ## The run
# Every step writes one CSV row and one ParaView frame; the centrelines of the pictures stay
# in memory.

# %%
def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Every step recorded (``control``: the run-control options)."""
    return recorded(problem, out, NAME, quiet=quiet, paraview_every=1,
                    snapshot_times=frame_times(problem.h, problem.t_end, PICTURE_EVERY),
                    **control)


# %% [markdown]
# ## Post-processing
# The final state (H, p, J, the largest energy residual), the snapshots and the animation.

# %%
def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """Summary of the final state; the pictures (rank 0)."""
    png, gif = (None, None) if out is None else (out / f"{NAME}.png", out / f"{NAME}.gif")
    if pictures and png is not None and sim.comm.rank == 0:
        from fxrod import viz

        frames, times = snapshots_at(sim, np.arange(0.0, sim.rows[-1]["t"] + 1e-9,
                                                    PICTURE_EVERY))
        viz.snapshot_figure(frames, times, png, radius=0.25, title="flying spaghetti",
                            zoom=1.35)
        times = sorted(sim.snapshots)
        viz.animation([sim.snapshots[t] for t in times], times, gif, radius=0.12)
    s = last_row(sim, ("t", "H", "p_1", "p_2", "p_3", "J_1", "J_2", "J_3", "tip_1", "tip_2",
                       "tip_3"))
    s["steps"] = sim.integ.step_count
    s["max_energy_residual"] = float(np.max(np.abs(sim.column("energy_residual"))))
    files = output_files(sim, *(p for p in (png, gif) if p is not None))
    text = (f"{NAME}: {s['steps']} steps; t = {s['t']:g}, H = {s['H']:.10g}, "
            f"p = ({s['p_1']:.6g}, {s['p_2']:.3g}, {s['p_3']:.3g}), J = ({s['J_1']:.7g}, "
            f"{s['J_2']:.9g}, {s['J_3']:.9g}), max |energy residual| = "
            f"{s['max_energy_residual']:.2e}")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {NAME: sim}, files, rank=sim.comm.rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        n_elements: int, kirchhoff: bool, load_scale: float, stiffness_scale: float,
        comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, t_end, kirchhoff, comm, load_scale, stiffness_scale)
    with simulation(prob, out, quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


# %% [markdown]
# ## Many at once
# ``fxrod sweep flying-spaghetti --ensemble B`` steps B points over the load and stiffness
# factors together (one :class:`fxrod.runs.ensemble.Ensemble`, serial, the chain solver);
# member k writes ``outs[k]/flying_spaghetti.csv``.

# %%
def run_ensemble(outs: list[Path | None], members: list[dict], *, quiet: bool, h: float,
                 t_end: float, n_elements: int, kirchhoff: bool, adaptive: bool = False,
                 comm=None) -> list[Result]:
    """The points ``members`` (their :data:`ENSEMBLE_OPTIONS`) up to ``t_end`` [s]; one
    :class:`Result` a member."""
    ens = Ensemble(template(n_elements, kirchhoff), loads(),
                   [m["load_scale"] for m in members], comm=comm,
                   sections=[section(m["stiffness_scale"]) for m in members])
    integ = ens.integrator(h, PAPER_SETTINGS.replace(linear_solver="auto", adaptive=adaptive))
    rec = EnsembleRun(ens, integ, outs, NAME, quiet=quiet)
    rec.run(t_end)
    results = []
    for k in range(len(outs)):
        s, files = rec.summary(k), rec.files(k)
        text = (f"{NAME} member {k}: {s['steps']} steps; t = {s['t']:g}, H = {s['H']:.10g}, "
                f"tip = ({s['tip_1']:.6g}, {s['tip_2']:.6g}, {s['tip_3']:.6g})")
        results.append(Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                              files=files, rank=ens.model.comm.rank))
    return results


CASE = Case("flying-spaghetti", "Ex. 6.1: free rod, end load pulse, then free flight; "
            "energy and momenta conserved", OPTIONS, {"t_end": 5.0}, run,
            ensemble_options=ENSEMBLE_OPTIONS, ensemble_runner=run_ensemble)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.
# SIGINT/SIGTERM stop at the end of a step (a checkpoint written if asked).

# %%
if __name__ == "__main__":
    args = CASE.parse_args()
    prob = problem(args.n_elements, args.h, args.t_end, args.kirchhoff,
                   load_scale=args.load_scale, stiffness_scale=args.stiffness_scale)
    with exit_on_signal(NAME, prob.model.comm), \
            simulation(prob, args.out, args.quiet, **control(args)) as sim:
        sim.run(prob.t_end)
    result = finish(sim, args.out, pictures=args.pictures)
    raise SystemExit(result.report(args.quiet))
