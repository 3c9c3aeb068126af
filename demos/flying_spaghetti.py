# %% [markdown]
# # Flying spaghetti (Kinon, Eugster & Betsch 2026, Ex. 6.1; Simo & Vu-Quoc 1988).
#
# A free, straight rod is pushed at one end by a force and a moment that rise and fall over
# t in [0, 5]; then it tumbles freely. The mixed port-Hamiltonian midpoint rule conserves
# energy and momenta: after the pulse H, p = (50, 0, 0) and J stay constant to the Newton
# tolerance (1e-11), and ``H_{n+1} - H_n = W_ext`` holds during the pulse.
#
#     python demos/flying_spaghetti.py [--out DIR] [--quick] [--h 0.1] [--n-elements 10]
#     mpirun -n 2 python demos/flying_spaghetti.py
#
# Writes ``DIR/flying_spaghetti.csv`` (energies, momenta, tip, constraint residual per
# step), a ParaView series and pictures; ``fxrod run flying-spaghetti`` runs the same case
# (``--quick``: up to t = 5, the end of the loading).

# %%
from pathlib import Path

import numpy as np

from fxrod import EndLoad, Problem, Rod, RodModel, piecewise_linear_hat
from fxrod.problems.paper import PAPER_SETTINGS, flying_spaghetti_section
from fxrod.runs.ensemble import Ensemble
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result, ensemble_results
from fxrod.studies.cases.common import frame_times, last_row, output_files, recorded, wrote

NAME = "flying_spaghetti"
PICTURE_EVERY = 2.5      # snapshot interval of the figure [s]
OPTIONS = (
    Option("h", 0.1, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 15.0, "s", "end time", bounds="(0, inf)"),
    Option("n_elements", 10, "-", "number of elements", bounds="[1, inf)"),
    Option("kirchhoff", False, "-", "constrained (C_N = 0) rod"),
    Option("load_scale", 1.0, "-", "factor on the end force and moment"),
    Option("stiffness_scale", 1.0, "-", "factor on every stiffness", bounds="(0, inf)"),
    *RUN_CONTROL,
)
ENSEMBLE_OPTIONS = ("load_scale", "stiffness_scale")  # change only a member of an ensemble


# %% [markdown]
# ## The model
# The section of Table 1 (rhoA = 1, M_rho = 10, bending and torsion stiffness 1e3, shear and
# axial stiffness 1e4, consistent units; ``flying_spaghetti_section``), every stiffness
# times ``stiffness_scale``. The rod runs from (0, 0, 8) to (6, 0, 0) with d1 = e2, no
# supports. At s = L act the force f(t) (1/10, 0, 0) and the moment f(t) (0, 1, 1/2), the hat
# f rising from 0 to 200 at t = 2.5 and back to 0 at t = 5 (the loads (74)). ``rotation``
# turns rod and loads (the objectivity test). Newton to atol 1e-11, as the authors.

# %%
def template(n_elements: int = 10, kirchhoff: bool = False, stiffness_scale: float = 1.0,
             rotation: np.ndarray | None = None) -> Rod:
    """The free rod, turned by ``rotation``; ``kirchhoff`` constrains shear and extension."""
    Q = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
    return Rod(flying_spaghetti_section(stiffness_scale), start=tuple(Q @ [0.0, 0.0, 8.0]),
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
# Every step writes one CSV row and one ParaView frame; the pictures' centrelines stay.

# %%
def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        n_elements: int, kirchhoff: bool, load_scale: float, stiffness_scale: float,
        comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, t_end, kirchhoff, comm, load_scale, stiffness_scale)
    with recorded(prob, out, NAME, quiet=quiet, paraview_every=1, **control,
                  snapshot_times=frame_times(prob.h, prob.t_end, PICTURE_EVERY)) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


# %% [markdown]
# ## Post-processing
# The final state (H, p, J, the largest energy residual), the snapshots and the animation.

# %%
def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """Summary of the final state; the pictures (rank 0)."""
    pngs = []
    if pictures and out is not None and sim.comm.rank == 0:
        from fxrod.viz.figures import snapshots_and_animation

        pngs = snapshots_and_animation(sim, out, NAME, PICTURE_EVERY, 0.25, 0.12,
                                       title="flying spaghetti", zoom=1.35)
    s = last_row(sim, ("t", "H", "p_1", "p_2", "p_3", "J_1", "J_2", "J_3", "tip_1", "tip_2",
                       "tip_3"))
    s.update(steps=sim.integ.step_count,
             max_energy_residual=float(np.max(np.abs(sim.column("energy_residual")))))
    files = output_files(sim, *pngs)
    text = (f"{NAME}: {s['steps']} steps; t = {s['t']:g}, H = {s['H']:.10g}, "
            f"p = ({s['p_1']:.6g}, {s['p_2']:.3g}, {s['p_3']:.3g}), J = ({s['J_1']:.7g}, "
            f"{s['J_2']:.9g}, {s['J_3']:.9g}), max |energy residual| = "
            f"{s['max_energy_residual']:.2e}")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {NAME: sim}, files, rank=sim.comm.rank)


# %% [markdown]
# ## Many at once
# ``fxrod sweep flying-spaghetti --ensemble B`` steps B points of the load and stiffness
# factors as one :class:`fxrod.runs.ensemble.Ensemble`; member k writes into ``outs[k]``.

# %%
def run_ensemble(outs: list[Path | None], members: list[dict], *, quiet: bool, h: float,
                 t_end: float, n_elements: int, kirchhoff: bool, adaptive: bool = False,
                 comm=None) -> list[Result]:
    """The points ``members`` (:data:`ENSEMBLE_OPTIONS`) up to ``t_end`` [s], stepped together."""
    ens = Ensemble(template(n_elements, kirchhoff), loads(),
                   [m["load_scale"] for m in members], comm=comm,
                   sections=[flying_spaghetti_section(m["stiffness_scale"]) for m in members])
    settings = PAPER_SETTINGS.replace(linear_solver="auto", adaptive=adaptive)
    return ensemble_results(ens, settings, h, t_end, outs, NAME, CASE.name, quiet)


CASE = Case("flying-spaghetti", "Ex. 6.1: free rod, end load pulse, then free flight; "
            "energy and momenta conserved", OPTIONS, {"t_end": 5.0}, run,
            ensemble_options=ENSEMBLE_OPTIONS, ensemble_runner=run_ensemble)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
