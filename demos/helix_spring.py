# %% [markdown]
# # A helical spring: a pre-curved, pre-twisted rod pulled along its axis.
#
# A steel wire wound into a helix is clamped at one end and pulled at the other along the
# coil axis. For a small force it is the linear spring of the textbooks (Castigliano, the
# section forces uniform along the wire); at 50 N the coils open by more than half the pitch
# and the spring stiffens a little. This script builds the problem, runs it and compares.
#
#     python demos/helix_spring.py [--out DIR] [--quick] [--n-elements 40] [--force 50]
#
# Writes ``DIR/helix_spring.csv`` (t = load factor), a ParaView series, the internal forces
# at t = 0.5 and 1, and ``DIR/helix_spring.png``. The same case runs as
# ``fxrod run helix-spring`` (the registry reads this file).

# %%
from pathlib import Path

import numpy as np

from fxrod import Clamp, EndLoad, Helix, Problem, Rod, RodModel, Section, SolverSettings
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import output_files, recorded, wrote

NAME = "helix_spring"
OPTIONS = (
    Option("n_elements", 40, "-", "number of elements", bounds="[1, inf)"),
    Option("force", 50.0, "N", "axial force at t = 1"),
    Option("h", 0.1, "-", "load-factor increment", bounds="(0, inf)"),
    *RUN_CONTROL,
)


# %% [markdown]
# ## The model
# The section is a steel wire of radius 1 mm (E = 200 GPa, nu = 0.3, the shear factor 0.9
# of a circle). The stress-free rod is a helix of coil radius 10 mm, pitch 4 mm and five
# turns, with parallel-transport (Bishop) director frames. It is clamped at s = 0. At the
# free end a dead force along the coil axis acts through the coil centre: the force, plus
# the moment that moves its line of action from the wire's end onto the axis. Both grow
# with the load factor t in [0, 1]; the steps are quasi-static, halved where Newton fails.

# %%
def problem(n_elements: int = 40, force: float = 50.0, h: float = 0.1, comm=None) -> Problem:
    """The spring under ``t * force`` [N], load steps of ``h`` up to t = 1."""
    section = Section.circular(radius=1e-3, E=2e11, rho=7850.0, nu=0.3, shear_factor=0.9)
    rod = Rod(section, curve=Helix(0.01, 0.004, 5.0), n_elements=n_elements)
    end = rod.initial_configuration([rod.length])[0][:3]
    arm = np.array([-end[0], -end[1], 0.0])          # from the wire's end to the coil axis
    F = np.array([0.0, 0.0, float(force)])
    pull = EndLoad("L", force=lambda t: t * F, moment=lambda t: t * np.cross(arm, F))
    model = RodModel(rod, [pull], [Clamp("0")], comm=comm, quasistatic=True)
    return Problem(model, h, 1.0, SolverSettings(adaptive=True))


# %% [markdown]
# ## The run
# One CSV row per load step; the shapes at t = 0, 0.5 and 1 are kept for the picture.

# %%
def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Load stepping, recorded (``control``: the run-control options)."""
    return recorded(problem, out, NAME, snapshot_times=[0.0, 0.5, 1.0], paraview_every=1,
                    quiet=quiet, **control)


# %% [markdown]
# ## Against the linear spring
# Castigliano's extension of a helix with pitch angle a, wire length l and coil radius R:
# ``delta = F l [R^2 (cos^2 a / GJ + sin^2 a / EI) + sin^2 a / EA + cos^2 a / (kappa G A)]``.
# The first load step (t = 0.1) should give it to a few parts in a thousand; the full load
# a little less (the opened coils are stiffer).

# %%
def linear_extension(problem: Problem, force: float) -> float:
    """Castigliano's extension [m] of the linear spring under ``force`` [N]."""
    rod = problem.model.rod
    curve, k = rod.curve, rod.section.stiffness
    a = np.arctan2(curve.c, curve.radius)
    return force * rod.length * (curve.radius**2 * (np.cos(a)**2 / k[5] + np.sin(a)**2 / k[3])
                                 + np.sin(a)**2 / k[2] + np.cos(a)**2 / k[0])


def finish(sim: Simulation, problem: Problem, force: float, out: Path | None,
           pictures: bool = True) -> Result:
    """The extension against the linear spring, and the picture (rank 0): one panel a load
    factor, tubes as thick as the wire (the loaded coils would overlap in one view)."""
    z, t = sim.column("tip_3"), sim.column("t")
    lin = linear_extension(problem, force)
    s = {"extension": float(z[-1] - z[0]), "linear_extension": float(lin),
         "first_step_ratio": float((z[1] - z[0]) / (t[1] * lin))}
    files = output_files(sim)
    if out is not None and sim.comm.rank == 0 and pictures:
        from fxrod import viz

        times = sorted(sim.snapshots)
        files.append(Path(viz.snapshot_figure(
            [sim.snapshots[k] for k in times], times, out / f"{NAME}.png",
            radius=problem.model.rod.section.radius, title=f"helical spring, {force:g} N at t = 1",
            elevation=10.0, layout="side-by-side", time_label="load factor t [-]")))
    text = (f"{NAME}: extension {s['extension'] * 1e3:.4f} mm at {force:g} N (linear "
            f"spring: {lin * 1e3:.4f} mm); first step / linear = {s['first_step_ratio']:.6f}")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))), {NAME: sim},
                  files, rank=sim.comm.rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, force: float,
        h: float, comm=None, **control) -> Result:
    """Build, run and compare (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, force, h, comm)
    with simulation(prob, out, quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, prob, force, out, pictures)


CASE = Case("helix-spring", "a pre-curved, pre-twisted helical spring pulled along its axis "
            "vs the linear spring rate", OPTIONS, {"n_elements": 20, "h": 0.25}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
