"""Case ``flying-spaghetti``: Ex. 6.1 of Kinon, Eugster & Betsch (2026), after Simo &
Vu-Quoc (1988).

A free rod loaded at one end by a force and a moment that rise and fall over t in [0, 5],
then flying freely (:func:`fxrod.problems.paper.flying_spaghetti`). Steps: :func:`problem`,
:func:`simulation` (every step recorded, one ParaView frame per step, centrelines kept for
the pictures), :func:`finish`. Files: ``DIR/flying_spaghetti.csv`` (the standard columns),
``.pvd`` (ParaView), ``.png`` (snapshots every 2.5 s, azimuth 55, elevation 15) and ``.gif``.

``load_scale`` [-] multiplies the end force and moment, ``stiffness_scale`` [-] the shear,
axial, bending and torsion stiffness: they are the case's ensemble options
(:attr:`fxrod.studies.cases.Case.ensemble_options`), so ``fxrod sweep flying-spaghetti --ensemble
B``
runs B points over them as one :class:`fxrod.runs.ensemble.Ensemble` (:func:`run_ensemble`).

Summary keys: ``t`` [s], ``steps``, ``H`` [J], ``p_1..3`` [kg m/s], ``J_1..3`` [kg m^2/s],
``tip_1..3`` [m], ``max_energy_residual`` [J] (an ensemble member: all but the last).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.problems.paper import PAPER_SETTINGS, flying_spaghetti_loads, flying_spaghetti_section
from fxrod.runs.ensemble import Ensemble
from fxrod.runs.ensemble_run import EnsembleRun
from fxrod.runs.problem import Problem
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import (
    frame_times,
    last_row,
    output_files,
    recorded,
    snapshots_at,
    wrote,
)

NAME = "flying_spaghetti"
#: Snapshot interval of the figure [s].
PICTURE_EVERY = 2.5

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


def section(stiffness_scale: float = 1.0) -> Section:
    """Table 1's section with every stiffness times ``stiffness_scale`` [-]."""
    sec = flying_spaghetti_section()
    return dataclasses.replace(sec, **{k: stiffness_scale * getattr(sec, k) for k in
                                       ("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")})


def template(n_elements: int = 10, kirchhoff: bool = False,
             stiffness_scale: float = 1.0) -> Rod:
    """The free rod from (0, 0, 8) to (6, 0, 0) [m] of :func:`fxrod.problems.paper.flying_spaghetti`
    with :func:`section`; ``kirchhoff`` constrains shear and extension."""
    return Rod(section(stiffness_scale), start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0),
               d1=(0.0, 1.0, 0.0), n_elements=n_elements,
               constraints=("kirchhoff",) if kirchhoff else ())


def scaled_loads(load_scale: float = 1.0) -> list[EndLoad]:
    """The loads (74) times ``load_scale`` [-] (in their time functions)."""
    (load,) = flying_spaghetti_loads()
    return [EndLoad(load.end, force=lambda t: load_scale * load.force(t),
                    moment=lambda t: load_scale * load.moment(t))]


def problem(n_elements: int = 10, h: float = 0.1, t_end: float = 15.0,
            kirchhoff: bool = False, comm=None, load_scale: float = 1.0,
            stiffness_scale: float = 1.0) -> Problem:
    """The rod of Table 1 with the loads (74), step ``h`` [s] up to ``t_end`` [s], Newton
    atol 1e-11 (:func:`fxrod.problems.paper.flying_spaghetti`); ``kirchhoff`` constrains shear and
    extension; ``load_scale`` and ``stiffness_scale`` [-] scale the loads and stiffness."""
    model = RodModel(template(n_elements, kirchhoff, stiffness_scale),
                     scaled_loads(load_scale), comm=comm)
    return Problem(model, h, t_end, PAPER_SETTINGS)


def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Record every step (CSV row and ParaView frame) and keep the centrelines of the
    pictures (:func:`fxrod.studies.cases.common.frame_times`); ``control``: the
    :data:`fxrod.studies.cases.RUN_CONTROL` values."""
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
                  {NAME: sim}, files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        n_elements: int, kirchhoff: bool, load_scale: float, stiffness_scale: float,
        comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, t_end, kirchhoff, comm, load_scale, stiffness_scale)
    sim = simulation(prob, out, quiet, **control)
    with sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


def run_ensemble(outs: list[Path | None], members: list[dict], *, quiet: bool, h: float,
                 t_end: float, n_elements: int, kirchhoff: bool, adaptive: bool = False,
                 comm=None) -> list[Result]:
    """Run the points ``members`` (their :data:`ENSEMBLE_OPTIONS`) as one
    :class:`fxrod.runs.ensemble.Ensemble` on ``comm`` (serial; the chain solver, the paper's
    tolerances) up to ``t_end`` [s]; member k writes ``outs[k]/flying_spaghetti.csv``
    (:class:`fxrod.runs.ensemble_run.EnsembleRun`). One :class:`Result` a member."""
    ens = Ensemble(template(n_elements, kirchhoff), flying_spaghetti_loads(),
                   [m["load_scale"] for m in members], comm=comm,
                   sections=[section(m["stiffness_scale"]) for m in members])
    integ = ens.integrator(h, PAPER_SETTINGS.replace(linear_solver="auto", adaptive=adaptive))
    rec = EnsembleRun(ens, integ, outs, NAME, quiet=quiet)
    rec.run(t_end)
    results = []
    for k in range(len(outs)):
        s = rec.summary(k)
        files = rec.files(k)
        text = (f"{NAME} member {k}: {s['steps']} steps; t = {s['t']:g}, H = {s['H']:.10g}, "
                f"tip = ({s['tip_1']:.6g}, {s['tip_2']:.6g}, {s['tip_3']:.6g})")
        results.append(Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                              files=files, rank=ens.model.comm.rank))
    return results


CASE = Case("flying-spaghetti", "Ex. 6.1: free rod, end load pulse, then free flight; "
            "energy and momenta conserved", OPTIONS, {"t_end": 5.0}, run,
            ensemble_options=ENSEMBLE_OPTIONS, ensemble_runner=run_ensemble)
