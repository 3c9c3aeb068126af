"""Case ``soft-arm``: Ex. 6.4 of Kinon, Eugster & Betsch (2026), the pneumatic soft arm.

A silicone arm clamped at the origin along e3 with three pressure chambers
(:func:`fxrod.problems.soft_arm.soft_arm`): the circle input (79)-(80) bends it towards +e1, drives
the
tip once around a circle at nearly constant height and straightens it again; the heart input
(81) draws a cardioid. Steps: :func:`problem`, :func:`simulation`, :func:`finish`. Files:
``DIR/soft_arm_<path>.csv`` (standard columns, ``port_work`` = chamber work, the chamber
forces ``tau_1..3`` [N]), ``.pvd`` (ParaView, every step), ``.png`` (snapshots every 0.5 s
and the tip path, azimuth 55, elevation 15, as the paper's Fig. 16) and ``.gif``.

Summary keys: ``t`` [s], ``steps``, ``tip_1..3`` [m] at the end, ``z_min``, ``z_max`` [m]
(tip height during the revolution t in [t1, t2] of the circle, the whole run for the
heart), ``max_relative_energy_residual`` (``|residual| / max(1, H)``), ``port_work`` [J].
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from fxrod.problems.soft_arm import PATHS, SOFT_ARM, SoftArmParameters, chamber_forces, soft_arm
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.problem import Problem
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import last_row, output_files, recorded, tip_path, wrote

NAME = "soft_arm"
#: Snapshot interval of the figure [s].
PICTURE_EVERY = 0.5

OPTIONS = (
    Option("path", "circle", "-", "input path of the tip", choices=PATHS),
    Option("t_end", SOFT_ARM.t_end, "s", "end time", bounds="(0, inf)"),
    Option("n_elements", SOFT_ARM.n_elements, "-", "number of elements", bounds="[1, inf)"),
    Option("chamber_radius", SOFT_ARM.chamber_radius, "m", "offset r_k of the chambers",
           bounds="(0, inf)"),
    Option("rho", SOFT_ARM.rho, "kg/m^3", "density of the silicone", bounds="(0, inf)"),
    *RUN_CONTROL,
)


def parameters(chamber_radius: float = SOFT_ARM.chamber_radius,
               rho: float = SOFT_ARM.rho) -> SoftArmParameters:
    """:data:`fxrod.problems.soft_arm.SOFT_ARM` with the chamber offset [m] and density [kg/m^3] of
    the options (the defaults give it unchanged)."""
    return dataclasses.replace(SOFT_ARM, chamber_radius=chamber_radius, rho=rho)


def problem(path: str = "circle", n_elements: int = SOFT_ARM.n_elements,
            t_end: float = SOFT_ARM.t_end, p: SoftArmParameters = SOFT_ARM,
            comm=None) -> Problem:
    """The arm with the ``path`` input, step ``p.h`` [s] up to ``t_end`` [s]."""
    return dataclasses.replace(soft_arm(path, p, n_elements=n_elements, comm=comm),
                               t_end=t_end)


def simulation(problem: Problem, out: Path | None, path: str = "circle",
               p: SoftArmParameters = SOFT_ARM, quiet: bool = True, **control) -> Simulation:
    """Every step recorded with the chamber forces, written as a ParaView frame and kept in
    memory for the pictures; ``control``: the :data:`fxrod.studies.cases.RUN_CONTROL` values."""
    forces = ColumnProbe({f"tau_{k}": "N" for k in (1, 2, 3)},
                         lambda sim, res: {f"tau_{k + 1}": float(v) for k, v in
                                           enumerate(chamber_forces(path, sim.integ.t, p))})
    steps = np.round(np.arange(0.0, problem.t_end + 1e-9, problem.h), 10)
    return recorded(problem, out, f"{NAME}_{path}", snapshot_times=steps, paraview_every=1,
                    probes=[forces], quiet=quiet, **control)


def finish(sim: Simulation, out: Path | None, path: str = "circle",
           p: SoftArmParameters = SOFT_ARM, pictures: bool = True) -> Result:
    """Summary of the run (tip, height band, energy residual, chamber work); snapshots every
    0.5 s with the tip path, and an animation every 0.1 s (rank 0)."""
    rank = sim.comm.rank
    tip = tip_path(sim)
    t = sim.column("t")
    figs = []
    if pictures and out is not None and rank == 0:
        from fxrod import viz

        times = [ts for ts in sorted(sim.snapshots)
                 if abs(ts / PICTURE_EVERY - round(ts / PICTURE_EVERY)) < 1e-9]
        figs.append(viz.snapshot_figure([sim.snapshots[ts] for ts in times], times,
                                        out / f"{sim.name}.png", radius=0.004,
                                        title=f"soft arm, {path} input", extra_lines=[tip]))
        frames = sorted(sim.snapshots)[::2]
        figs.append(viz.animation([sim.snapshots[ts] for ts in frames], frames,
                                  out / f"{sim.name}.gif", radius=0.004, trail=tip[::2]))
    H = sim.column("H")
    res = np.abs(sim.column("energy_residual")[1:]) / np.maximum(1.0, H[1:])
    lo, hi = (p.t1, min(p.t2, t[-1])) if path == "circle" else (0.0, t[-1])
    rev = (t >= lo - 1e-9) & (t <= hi + 1e-9)
    s = last_row(sim, ("t", "tip_1", "tip_2", "tip_3", "port_work"))
    s.update(steps=sim.integ.step_count, z_min=float(tip[rev, 2].min()),
             z_max=float(tip[rev, 2].max()), max_relative_energy_residual=float(res.max()))
    files = output_files(sim, *figs)
    text = (f"{sim.name}: {s['steps']} steps; tip at t = {s['t']:g}: ({s['tip_1']:.6f}, "
            f"{s['tip_2']:.6f}, {s['tip_3']:.6f}) m; z in [{s['z_min']:.5f}, "
            f"{s['z_max']:.5f}] m for t in [{lo:g}, {hi:g}] s; max |energy residual|/max(1, H)"
            f" = {s['max_relative_energy_residual']:.2e}; chamber work "
            f"{s['port_work']:.6g} J")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {sim.name: sim}, files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, path: str, t_end: float,
        n_elements: int, chamber_radius: float, rho: float, comm=None,
        **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``; the
    other parameters are those of :data:`fxrod.problems.soft_arm.SOFT_ARM`."""
    p = parameters(chamber_radius, rho)
    prob = problem(path, n_elements, t_end, p, comm)
    with simulation(prob, out, path, p, quiet=quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, path, p, pictures=pictures)


CASE = Case("soft-arm", "Ex. 6.4: pneumatic three-chamber soft arm, --path circle|heart",
            OPTIONS, {"t_end": 1.0}, run)
