# %% [markdown]
# # Tendon hook: a soft finger curled by one tendon, checked against its closed form.
#
# A silicone finger lies along e1, clamped at the origin. One tendon runs above the
# centreline over its distal three quarters: pulling it compresses that part and bends it
# towards the tendon. The tension is ramped quasi-statically (t is a load factor,
# T = t T_max) to the value that curls the distal part through 225 degrees. The end state
# has a closed form (fxrod.problems.soft_arm.tendon_hook_exact): a straight, unstressed
# shank on [0, s_a] and beyond an arc with the constant strains ``Gamma = (1 - T/k_e) e3``,
# ``K = (0, T rho/k_b, 0)``. Every load step is a discrete equilibrium, so the computed tip
# follows the closed-form tip at every load.
#
#     python demos/tendon_hook.py [--out DIR] [--quick] [--n-elements 16] [--steps 10]
#     mpirun -n 2 python demos/tendon_hook.py
#
# Writes ``DIR/tendon_hook.csv`` (standard columns, ``tension`` [N], the closed-form tip
# ``tip_exact_1..3`` [m]) and pictures; ``fxrod run tendon-hook`` runs the same case.

# %%
import dataclasses
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fxrod import Actuation, Clamp, Problem, Rod, RodModel, Tendon
from fxrod.errors import check_int_min
from fxrod.output.tables import LoadParameter
from fxrod.problems.soft_arm import HOOK, HookParameters, end_state_error, tendon_hook_exact
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import output_files, recorded, wrote

NAME = "tendon_hook"
OPTIONS = (
    Option("n_elements", HOOK.n_elements, "-", "number of elements", bounds="[1, inf)"),
    Option("steps", 10, "-", "load steps", bounds="[1, inf)"),
    Option("formulation", "material", "-", "actuation formulation",
           choices=("material", "spatial")),
    *RUN_CONTROL,
)
CHECK_TIMES = np.linspace(0.0, 1.0, 101)   #: load factors at which the tension is sign-checked


# %% [markdown]
# ## The model
# ``HOOK`` (fxrod.problems.soft_arm): L = 0.2 m, radius 0.01 m, E = 1 MPa, nu = 0.45. The rod
# runs along e1 with ``d1 = e3`` (up); the tendon sits at the material offset (8 mm, 0),
# guided at s_a = 0.05 m and anchored at the tip, in an Actuation extension. The model is
# quasi-static (t a load factor) unless asked otherwise (then t is time [s]).

# %%
def problem(n_elements: int | None = None, steps: int = 10, formulation: str = "material",
            comm=None, p: HookParameters = HOOK, tension=None,
            check_times: Sequence[float] | None = CHECK_TIMES,
            quasistatic: bool = True) -> Problem:
    """The hook (``p`` with ``n_elements`` elements) in ``steps`` equal steps of t in [0, 1];
    ``tension`` [N] defaults to ``t * p.tension``. The Actuation is ``model.extensions[0]``."""
    if n_elements is not None:
        p = dataclasses.replace(p, n_elements=n_elements)
    rod = Rod(p.section, start=(0.0, 0.0, 0.0), end=(p.length, 0.0, 0.0), d1=(0.0, 0.0, 1.0),
              n_elements=p.n_elements)
    if tension is None:
        T_max = p.tension

        def tension(t: float) -> float:
            return t * T_max
    tendon = Tendon((p.offset, 0.0), tension, s_range=(p.s_a, p.length), name="flexor")
    act = Actuation([tendon], formulation=formulation, check_times=check_times)
    model = RodModel(rod, supports=[Clamp("0")], extensions=[act], comm=comm,
                     quasistatic=quasistatic)
    return Problem(model, 1.0 / check_int_min("steps", steps, 1), 1.0)


def parameters(model) -> HookParameters:
    """The hook parameters of a model built by :func:`problem` with the default ``p``."""
    return dataclasses.replace(HOOK, n_elements=model.rod.n_elements)


# %% [markdown]
# ## The run
# Every load step: the standard columns, the tension and the closed-form tip.

# %%
def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Every load step recorded, a ParaView frame and a snapshot each (``control``: the
    run-control options)."""
    p = parameters(problem.model)

    def exact(sim: Simulation, res) -> dict[str, float]:
        tension = sim.integ.t * p.tension
        tip = tendon_hook_exact(p, tension=tension)[0][0]
        return {"tension": tension, **{f"tip_exact_{i + 1}": float(tip[i]) for i in range(3)}}

    probe = ColumnProbe({"tension": "N", **{f"tip_exact_{i}": "m" for i in (1, 2, 3)}}, exact)
    loads = np.round(np.linspace(0.0, 1.0, int(round(1.0 / problem.h)) + 1), 12)
    return recorded(problem, out, NAME, snapshot_times=loads, probes=[probe], quiet=quiet,
                    paraview_every=1, load=LoadParameter("tendon tension T", "N", p.tension),
                    **control)


# %% [markdown]
# ## Against the closed form
# Errors of the final centreline and directors at the nodes
# (:func:`fxrod.problems.soft_arm.end_state_error`); the load steps and their animation.

# %%
def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """End-state errors; the load steps with the closed form and their animation."""
    rank, p = sim.comm.rank, parameters(sim.model)
    err = sim.comm.bcast(end_state_error(sim, p), root=0)   # collective
    figs = []
    if pictures and out is not None and rank == 0:
        from fxrod.viz.figures import tendon_hook_pictures

        figs = tendon_hook_pictures(sim, out, NAME, p)
    s = {"tension": float(sim.rows[-1]["tension"]), "steps": sim.integ.step_count,
         "n_elements": p.n_elements, "error_position": err[0], "error_directors": err[1]}
    files = output_files(sim, *figs)
    text = (f"{NAME}: T = {p.tension:.6g} N, {s['steps']} load steps, {p.n_elements} "
            f"elements; end state vs closed form: max |phi - phi_exact|/L = {err[0]:.2e}, "
            f"max |d - d_exact| = {err[1]:.2e}")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {NAME: sim}, files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, steps: int,
        formulation: str, comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, steps, formulation, comm)
    with simulation(prob, out, quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


CASE = Case("tendon-hook", "a tendon curls a silicone finger into a hook; checked against "
            "a closed form", OPTIONS, {"n_elements": 8, "steps": 5}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
