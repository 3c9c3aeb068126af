# %% [markdown]
# # The 45-degree bend (Bathe & Bolourchi 1979; Simo & Vu-Quoc 1986): a pre-curved rod.
#
# The stress-free reference is an arc of radius 100 through 45 degrees in the e1-e2 plane,
# starting at the origin tangent to e1 with its centre at (0, 100, 0). The rod is clamped at
# s = 0 and a dead force F along +e3, perpendicular to the plane of the arc, is raised to
# F = 600 in load steps. The tip ends near (47.2, 15.7, 53.4): bending and torsion couple
# because the rod is curved.
#
#     python demos/bend45.py [--out DIR] [--quick] [--n-elements 8] [--h 30]
#
# Writes ``DIR/bend45.csv`` (columns ``load, tip_1, tip_2, tip_3``), the full time series
# ``DIR/bend45_steps.csv``, the internal forces at F = 300, 450, 600, a ParaView series and
# ``DIR/bend45.png``; prints the tip at F = 300, 450, 600 next to Simo & Vu-Quoc's values.
# The same case runs as ``fxrod run bend45`` (the registry reads this file).

# %%
from pathlib import Path

import numpy as np

from fxrod import Arc, Clamp, EndLoad, Problem, Rod, RodModel, SolverSettings
from fxrod.output.tables import LoadParameter, write_columns_json
from fxrod.problems.paper import bend45_section
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import output_files, recorded, wrote

NAME = "bend45"
#: What the load factor t of the run is: the tip force F = t (``fxrod plot``'s axis).
LOAD = LoadParameter("tip force F", "N", 1.0)
#: Simo & Vu-Quoc (1986), 8 elements: tip at F = 300, 450, 600.
PUBLISHED = {300.0: (58.84, 22.33, 40.08), 450.0: (52.32, 18.62, 48.39),
             600.0: (47.23, 15.79, 53.37)}
OPTIONS = (
    Option("n_elements", 8, "-", "number of elements", bounds="[1, inf)"),
    Option("h", 30.0, "-", "load increment (force units)", bounds="(0, inf)"),
    *RUN_CONTROL,
)


# %% [markdown]
# ## The model
# The 1 x 1 square section has E = 1e7, G = E/2, shear factor 5/6, I = 1/12, J = 1/6
# (consistent units; ``bend45_section``). The reference curve is ``Arc(100, pi/4)``: the P2
# nodes sit on the exact arc and the stresses start at zero, so the unloaded arc is an
# equilibrium to round-off. The model is quasi-static: t is the load F itself, raised in
# steps of h up to 600 and halved where Newton fails.

# %%
def problem(n_elements: int = 8, h: float = 30.0, comm=None) -> Problem:
    """The bend with load steps of ``h`` up to F = 600."""
    rod = Rod(bend45_section(), curve=Arc(100.0, np.pi / 4), n_elements=n_elements)
    load = EndLoad("L", force=lambda t: t * np.array([0.0, 0.0, 1.0]))
    model = RodModel(rod, [load], [Clamp("0")], comm=comm, quasistatic=True)
    return Problem(model, h, 600.0, SolverSettings(adaptive=True))


# %% [markdown]
# ## The run
# One CSV row per load step; the shapes and internal forces at F = 300, 450, 600 are kept.

# %%
def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Load stepping, recorded (``control``: the run-control options)."""
    return recorded(problem, out, f"{NAME}_steps", snapshot_times=[0.0, *PUBLISHED],
                    paraview_every=1, quiet=quiet, load=LOAD, **control)


# %% [markdown]
# ## Against the published tips
# The load-tip table ``bend45.csv``, the tips at the published loads and the largest gap to
# Simo & Vu-Quoc's 8-element values, and the picture.

# %%
#: Columns of ``bend45.csv`` with their units and meanings (``bend45_columns.json``).
COLUMNS = {"load": "N", "tip_1": "m", "tip_2": "m", "tip_3": "m"}
MEANINGS = {"load": "tip force F (the load parameter, F = t)",
            **{f"tip_{k}": f"free end's centreline position, component {k}" for k in (1, 2, 3)}}


def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """``bend45.csv``, the picture, the tips at the published loads and their gap."""
    files = output_files(sim)
    s = {}
    for F in PUBLISHED:
        i = int(np.argmin(np.abs(sim.column("t") - F)))
        for k in range(3):
            s[f"tip_{F:g}_{k + 1}"] = float(sim.column(f"tip_{k + 1}")[i])
    s["published_gap"] = max(abs(s[f"tip_{F:g}_{k + 1}"] - PUBLISHED[F][k])
                             for F in PUBLISHED for k in range(3))
    if out is not None and sim.comm.rank == 0:
        table = np.column_stack([sim.column("t")] + [sim.column(f"tip_{k}") for k in (1, 2, 3)])
        path = out / f"{NAME}.csv"
        np.savetxt(path, table, delimiter=",", header=",".join(COLUMNS), comments="",
                   fmt="%.17g")
        write_columns_json(path, COLUMNS, meanings=MEANINGS)
        files.append(path)
        if pictures:
            from fxrod import viz

            times = sorted(sim.snapshots)
            files.append(Path(viz.snapshot_figure(
                [sim.snapshots[t] for t in times], times, out / f"{NAME}.png", radius=1.5,
                title="45-degree bend", azimuth=120.0, elevation=35.0)))
    lines = [f"{NAME}: tip at F = {F:g}: ({s[f'tip_{F:g}_1']:.3f}, {s[f'tip_{F:g}_2']:.3f}, "
             f"{s[f'tip_{F:g}_3']:.3f}); Simo & Vu-Quoc: {PUBLISHED[F]}" for F in PUBLISHED]
    lines.append(f"largest difference to the published values: {s['published_gap']:.3f}")
    return Result(CASE.name, s, "\n".join(filter(None, (*lines, wrote(files)))),
                  {NAME: sim}, files, rank=sim.comm.rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int,
        h: float, comm=None, **control) -> Result:
    """Build, run and compare (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, comm)
    with simulation(prob, out, quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


CASE = Case("bend45", "45-degree bend: a pre-curved cantilever under an out-of-plane tip "
            "force, vs the published tip positions", OPTIONS, {"h": 75.0}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
