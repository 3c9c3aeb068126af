# %% [markdown]
# # Quasi-static cantilever (Kinon, Eugster & Betsch 2026, Ex. 6.3; Harsch et al. 2021).
#
# A straight cantilever of length 2 pi carries at its tip a dead force and a dead moment
# proportional to the load factor t in [0, 1]. Every step is a static equilibrium solved by
# Newton's method (the inertia terms are dropped), with step cutting if a step fails. Two
# variants: the shearable, extensible Reissner rod ("unconstrained") and the Kirchhoff rod
# ("constrained", C_N = 0: the Euler elastica). Both have exact planar solutions, shipped in
# ``fxrod.data`` and drawn dashed in the figure (the paper's Fig. 14).
#
#     python demos/quasistatic_cantilever.py [--out DIR] [--quick] [--h 0.1] [--n-elements 8]
#
# ``--quick`` uses h = 0.2. Writes ``DIR/quasistatic_cantilever_unconstrained.csv`` and
# ``..._constrained.csv`` (t = load factor), ``DIR/quasistatic_cantilever_centrelines.csv``
# (columns ``case, t, node, x, y, z``: the centrelines at t = 0, 0.1, 0.2, 0.4, 1) and
# ``DIR/quasistatic_cantilever.png``. The same case runs as ``fxrod run
# quasistatic-cantilever`` (the registry reads this file).

# %%
from pathlib import Path

import numpy as np

from fxrod import Clamp, EndLoad, Problem, Rod, RodModel, Section
from fxrod.errors import check_range
from fxrod.problems.paper import write_centrelines
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import output_files, recorded, restart_of, wrote

NAME = "quasistatic_cantilever"
VARIANTS = {"unconstrained": False, "constrained": True}   # name -> Kirchhoff constraints
TIMES = (0.1, 0.2, 0.4, 1.0)     # load factors of the centrelines (the paper's Fig. 14)
OPTIONS = (
    Option("h", 0.1, "-", "load-factor increment", bounds="(0, inf)"),
    Option("t_end", 1.0, "-", "final load factor, in [0, 1]", bounds="[0, 1]"),
    Option("n_elements", 8, "-", "number of elements", bounds="[1, inf)"),
    Option("evaluation", "endpoint", "-", "where the balance is evaluated",
           choices=("endpoint", "midpoint")),
    *RUN_CONTROL,     # adaptive: always on (step cutting)
)


# %% [markdown]
# ## The model
# A massless section (bending stiffness k_b = 2, torsion 0.5, shear 1, axial 5, in consistent
# units) on a rod along e1 with d1 = e2, clamped at the origin. The tip carries the force
# t (0, -P, 0) and the moment t (0, 0, 2.5 P), P = 10 k_b / L^2: dead loads, or followers
# (``follower``) turning with the tip. ``evaluation`` says where the balance is evaluated.

# %%
def problem(n_elements: int = 8, constrained: bool = False, h: float = 0.1,
            t_end: float = 1.0, evaluation: str = "endpoint", follower: bool = False,
            comm=None) -> Problem:
    """One variant, load steps of ``h`` up to the load factor ``t_end``.

    Raises
    ------
    ParameterError
        If ``t_end`` is outside [0, 1].
    """
    t_end = check_range("t_end", t_end, 0.0, 1.0)
    section = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1.0, k_s2=1.0, k_e=5.0,
                      k_b1=2.0, k_b2=2.0, k_t=0.5, radius=0.05)
    rod = Rod(section, start=(0.0, 0.0, 0.0), end=(2 * np.pi, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=n_elements, constraints=("kirchhoff",) if constrained else ())
    P = 10.0 * 2.0 / (2.0 * np.pi) ** 2
    load = EndLoad("L", force=lambda t: t * np.array([0.0, -P, 0.0]),
                   moment=lambda t: t * np.array([0.0, 0.0, 2.5 * P]), follower=follower)
    model = RodModel(rod, [load], [Clamp("0")], comm=comm, quasistatic=True,
                     evaluation=evaluation)
    return Problem(model, h, t_end)


# %% [markdown]
# ## The run
# Load stepping with step cutting, a ParaView frame per step, the centrelines at
# :data:`TIMES` kept in memory. A restart directory without the second variant's checkpoint
# starts that variant afresh.

# %%
def simulation(problem: Problem, out: Path | None, variant: str,
               quiet: bool = True, **control) -> Simulation:
    """One variant, recorded (``control``: the run-control options)."""
    name = f"{NAME}_{variant}"
    if variant != next(iter(VARIANTS)):
        control = {**control, "restart": restart_of(control.get("restart"), name)}
    return recorded(problem, out, name, snapshot_times=[0.0, *TIMES], quiet=quiet,
                    paraview_every=1, **{**control, "adaptive": True})


# %% [markdown]
# ## Against the exact solutions
# The tips at the final load, the kept centrelines as one CSV
# (:func:`fxrod.problems.paper.write_centrelines`) and the figure with the exact solutions.

# %%
def finish(sims: dict[str, Simulation], out: Path | None, pictures: bool = True) -> Result:
    """Tips at the final load factor; the centrelines CSV and the figure (rank 0)."""
    sim0 = next(iter(sims.values()))
    extra = []
    if out is not None and sim0.comm.rank == 0:
        extra.append(write_centrelines(sims, out / f"{NAME}_centrelines.csv"))
        if pictures:
            from fxrod.viz.figures import quasistatic_cantilever_figure

            extra.append(quasistatic_cantilever_figure(sims, VARIANTS, out / f"{NAME}.png"))
    s = {"t": float(sim0.rows[-1]["t"])}
    lines = []
    for variant, sim in sims.items():
        r = sim.rows[-1]
        s[f"{variant}_tip_1"], s[f"{variant}_tip_2"] = float(r["tip_1"]), float(r["tip_2"])
        lines.append(f"{variant}: tip at t = {r['t']:g}: ({r['tip_1']:.9f}, {r['tip_2']:.9f})")
    files = [f for sim in sims.values() for f in output_files(sim)] + extra
    return Result(CASE.name, s, "\n".join(filter(None, (*lines, wrote(files)))),
                  dict(sims), files, rank=sim0.comm.rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        n_elements: int, evaluation: str, comm=None, **control) -> Result:
    """Build, run and compare both variants (the options of :data:`OPTIONS`) on ``comm``."""
    sims = {}
    for variant, constrained in VARIANTS.items():
        prob = problem(n_elements, constrained, h, t_end, evaluation, comm=comm)
        with simulation(prob, out, variant, quiet, **control) as sims[variant]:
            sims[variant].run(prob.t_end)
    return finish(sims, out, pictures)


CASE = Case("quasistatic-cantilever", "Ex. 6.3: Reissner rod and Euler elastica vs exact "
            "solutions (Fig. 14)", OPTIONS, {"h": 0.2}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
