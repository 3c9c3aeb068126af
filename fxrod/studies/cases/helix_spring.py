"""Case ``helix-spring``: a steel helical spring pulled along its axis.

A pre-curved and pre-twisted rod: a helix of coil radius 10 mm, pitch 4 mm and 5 turns
(wire radius 1 mm, steel), in parallel-transport frames, clamped at s = 0 and pulled at its
free end by a dead force along the coil axis, applied through the coil centre (a force and
the moment that moves its line of action onto the axis), ramped by the load factor t in
[0, 1] (:func:`fxrod.problems.paper.helix_spring`). Steps: :func:`problem`, :func:`simulation`,
:func:`finish`.

Files: ``DIR/helix_spring.csv`` (t = load factor), the ParaView series, the internal forces at
t = 0.5 and 1, and ``DIR/helix_spring.png`` (one panel a snapshot).

Summary keys: ``extension`` [m] (axial tip displacement at t = 1), ``linear_extension`` [m]
(Castigliano's linear spring: F l [R^2 (cos^2 a / GJ + sin^2 a / EI) + sin^2 a / EA +
cos^2 a / (kappa G A)]), ``first_step_ratio`` (measured / linear after the first step).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fxrod.problems.paper import helix_spring
from fxrod.runs.problem import Problem
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


def problem(n_elements: int = 40, force: float = 50.0, h: float = 0.1, comm=None) -> Problem:
    """The spring with load steps of ``h`` up to the full force."""
    return helix_spring(n_elements, force, h=h, comm=comm)


def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Load stepping; shapes kept at t = 0, 0.5, 1; ``control``: the
    :data:`fxrod.studies.cases.RUN_CONTROL` values."""
    return recorded(problem, out, NAME, snapshot_times=[0.0, 0.5, 1.0], paraview_every=1,
                    quiet=quiet, **control)


def linear_extension(problem: Problem, force: float) -> float:
    """Castigliano's extension [m] of the linear spring under ``force`` [N]."""
    rod = problem.model.rod
    curve, k = rod.curve, rod.section.stiffness
    a = np.arctan2(curve.c, curve.radius)
    return force * rod.length * (curve.radius**2 * (np.cos(a)**2 / k[5] + np.sin(a)**2 / k[3])
                                 + np.sin(a)**2 / k[2] + np.cos(a)**2 / k[0])


def finish(sim: Simulation, problem: Problem, force: float, out: Path | None,
           pictures: bool = True) -> Result:
    """Extension against the linear spring; the picture (rank 0)."""
    rank = sim.comm.rank
    z = sim.column("tip_3")
    t = sim.column("t")
    lin = linear_extension(problem, force)
    s = {"extension": float(z[-1] - z[0]), "linear_extension": float(lin),
         "first_step_ratio": float((z[1] - z[0]) / (t[1] * lin))}
    files = output_files(sim)
    if out is not None and rank == 0 and pictures:
        from fxrod import viz

        # The coils of the loaded shapes overlap: one panel a load factor, the same scale,
        # tubes as thick as the wire.
        times = sorted(sim.snapshots)
        files.append(Path(viz.snapshot_figure([sim.snapshots[k] for k in times], times,
                                              out / f"{NAME}.png",
                                              radius=problem.model.rod.section.radius,
                                              title=f"helical spring, {force:g} N at t = 1",
                                              elevation=10.0, layout="side-by-side",
                                              time_label="load factor t [-]")))
    text = (f"{NAME}: extension {s['extension'] * 1e3:.4f} mm at {force:g} N (linear "
            f"spring: {lin * 1e3:.4f} mm); first step / linear = {s['first_step_ratio']:.6f}")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))), {NAME: sim},
                  files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, force: float,
        h: float, comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, force, h, comm)
    with simulation(prob, out, quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, prob, force, out, pictures)


CASE = Case("helix-spring", "a pre-curved, pre-twisted helical spring pulled along its axis "
            "vs the linear spring rate", OPTIONS, {"n_elements": 20, "h": 0.25}, run)
