"""Case ``flying-spaghetti``: Ex. 6.1 of Kinon, Eugster & Betsch (2026), after Simo &
Vu-Quoc (1988).

A free rod loaded at one end by a force and a moment that rise and fall over t in [0, 5],
then flying freely (:func:`fxrod.examples.flying_spaghetti`). Steps: :func:`problem`,
:func:`simulation` (every step recorded, one ParaView frame per step, centrelines kept for
the pictures), :func:`finish`. Files: ``DIR/flying_spaghetti.csv`` (the standard columns),
``.pvd`` (ParaView), ``.png`` (snapshots every 2.5 s, azimuth 55, elevation 15) and ``.gif``.

Summary keys: ``t`` [s], ``steps``, ``H`` [J], ``p_1..3`` [kg m/s], ``J_1..3`` [kg m^2/s],
``max_energy_residual`` [J].
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fxrod.cases import RUN_CONTROL, Case, Option, Result
from fxrod.cases.common import (
    frame_times,
    last_row,
    output_files,
    recorded,
    snapshots_at,
    wrote,
)
from fxrod.examples import flying_spaghetti
from fxrod.problem import Problem
from fxrod.simulation import Simulation

NAME = "flying_spaghetti"
#: Snapshot interval of the figure [s].
PICTURE_EVERY = 2.5

OPTIONS = (
    Option("h", 0.1, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 15.0, "s", "end time", bounds="(0, inf)"),
    Option("n_elements", 10, "-", "number of elements", bounds="[1, inf)"),
    Option("kirchhoff", False, "-", "constrained (C_N = 0) rod"),
    *RUN_CONTROL,
)


def problem(n_elements: int = 10, h: float = 0.1, t_end: float = 15.0,
            kirchhoff: bool = False, comm=None) -> Problem:
    """The rod of Table 1 with the loads (74), step ``h`` [s] up to ``t_end`` [s], Newton
    atol 1e-11; ``kirchhoff`` constrains shear and extension."""
    return flying_spaghetti(n_elements, constraints=("kirchhoff",) if kirchhoff else (),
                            comm=comm, h=h, t_end=t_end)


def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Record every step (CSV row and ParaView frame) and keep the centrelines of the
    pictures (:func:`fxrod.cases.common.frame_times`); ``control``: the
    :data:`fxrod.cases.RUN_CONTROL` values."""
    return recorded(problem, out, NAME, quiet=quiet, paraview_every=1,
                    snapshot_times=frame_times(problem.h, problem.t_end, PICTURE_EVERY),
                    **control)


def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """Summary of the final state; snapshots and animation from the kept centrelines."""
    rank = sim.comm.rank
    png, gif = (None, None) if out is None else (out / f"{NAME}.png", out / f"{NAME}.gif")
    if pictures and png is not None and rank == 0:
        from fxrod import viz

        t_end = sim.rows[-1]["t"]
        frames, times = snapshots_at(sim, np.arange(0.0, t_end + 1e-9, PICTURE_EVERY))
        viz.snapshot_figure(frames, times, png, radius=0.25, title="flying spaghetti",
                            zoom=1.35)
        times = sorted(sim.snapshots)
        viz.animation([sim.snapshots[t] for t in times], times, gif, radius=0.12)
    s = last_row(sim, ("t", "H", "p_1", "p_2", "p_3", "J_1", "J_2", "J_3"))
    s["steps"] = sim.integ.step_count
    s["max_energy_residual"] = float(np.max(np.abs(sim.column("energy_residual"))))
    files = output_files(sim, *(p for p in (png, gif) if p is not None))
    text = (f"{NAME}: {s['steps']} steps; t = {s['t']:g}, H = {s['H']:.10g}, "
            f"p = ({s['p_1']:.6g}, {s['p_2']:.3g}, {s['p_3']:.3g}), J = ({s['J_1']:.7g}, "
            f"{s['J_2']:.9g}, {s['J_3']:.9g}), max |energy residual| = "
            f"{s['max_energy_residual']:.2e}")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {NAME: sim}, files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        n_elements: int, kirchhoff: bool, comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, t_end, kirchhoff, comm)
    sim = simulation(prob, out, quiet, **control)
    with sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


CASE = Case("flying-spaghetti", "Ex. 6.1: free rod, end load pulse, then free flight; "
            "energy and momenta conserved", OPTIONS, {"t_end": 5.0}, run)
