"""Case ``cantilever-vibration``: Ex. 6.2 of Kinon, Eugster & Betsch (2026), after Herrmann &
Kotyczka (2024).

An aluminium Kirchhoff cantilever hit at its tip by a smooth 50 ms impulse, then vibrating
freely (:func:`fxrod.problems.paper.cantilever_vibration`); ``viscoelastic`` adds the paper's
Maxwell branch (:func:`maxwell_branch`). Steps: :func:`problem`, :func:`simulation`,
:func:`finish`. Files: ``DIR/cantilever_vibration.csv`` (``..._viscoelastic.csv``) with the
standard columns and :data:`COLUMNS`, ``.pvd`` (a ParaView frame every 10 ms), ``.png``
(snapshots every 25 ms and the tip path) and, for the viscoelastic run when the elastic CSV
is in DIR, ``cantilever_vibration_energy.png`` (H(t) of both, the paper's Fig. 13).

Summary keys: ``t`` [s], ``H`` [J], ``tip_1..3`` [m], ``max_energy_residual`` [J].
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fxrod.core.diagnostics import StrainConsistency, nodal_constraint_values
from fxrod.core.forms.viscoelastic import GeneralizedMaxwell
from fxrod.problems.paper import cantilever_vibration
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.problem import Problem
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import (
    frame_times,
    last_row,
    output_files,
    recorded,
    tip_path,
    wrote,
)

NAME = "cantilever_vibration"
#: Snapshot interval of the figure [s].
PICTURE_EVERY = 0.025
#: Interval of the ParaView frames [s].
PARAVIEW_EVERY = 0.01
#: Case-specific CSV columns and their units: tip velocity in the director frame, the six
#: nodal constraints g_ij at s = L/2, the strain consistency
#: ``|| Pi_DG1(eps(q) - eps0) - C sigma ||`` per component (the paper's Fig. 12).
COLUMNS: dict[str, str] = {
    **{f"tipvel_B_{i}": "m/s" for i in (1, 2, 3)},
    **{f"mid_g_{i}": "-" for i in range(1, 7)},
    **{f"Gamma_{i}": "-" for i in (1, 2, 3)},
    **{f"K_{i}": "1/m" for i in (1, 2, 3)},
}

OPTIONS = (
    Option("h", 1e-3, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 0.3, "s", "end time", bounds="(0, inf)"),
    Option("n_elements", 8, "-", "number of elements", bounds="[1, inf)"),
    Option("viscoelastic", False, "-", "add one Maxwell branch (tau = 0.08 s, 3/4 viscous)"),
    Option("scale", 1.0, "-", "factor on the tip impulse"),
    *RUN_CONTROL,
)


def maxwell_branch() -> GeneralizedMaxwell:
    """The paper's viscoelastic rod: one Maxwell branch with 3/4 of the stiffness and the
    relaxation time 0.08 s, the long-term spring keeps 1/4 (theory §3.1)."""
    return GeneralizedMaxwell.proportional((0.75,), (0.08,))


def problem(n_elements: int = 8, h: float = 1e-3, t_end: float = 0.3,
            viscoelastic: bool = False, scale: float = 1.0, comm=None) -> Problem:
    """Ex. 6.2, elastic or with :func:`maxwell_branch`; ``scale`` multiplies the impulse.
    Full Newton to atol 1e-13: its last iterate is at round-off, so the nodal constraints
    stay at ~1e-13 over the whole run."""
    ext = [maxwell_branch()] if viscoelastic else []
    return cantilever_vibration(n_elements, extensions=ext, comm=comm, scale=scale, h=h,
                                t_end=t_end)


def probe(model) -> ColumnProbe:
    """The :data:`COLUMNS` of ``model``."""
    consistency = StrainConsistency(model)

    def values(sim: Simulation, res) -> dict[str, float]:
        nodes = sim.model.nodes
        V = nodes.tip_frame().T @ nodes.tip_velocity()
        g = nodal_constraint_values(nodes.node_q(0.5 * sim.model.rod.length))
        e = consistency.norms()
        return dict(zip(COLUMNS, [*V, *g, *e], strict=True))

    return ColumnProbe(COLUMNS, values)


def simulation(problem: Problem, out: Path | None, name: str = NAME,
               quiet: bool = True, **control) -> Simulation:
    """Record every step with :func:`probe`, a ParaView frame every 10 ms and the
    centrelines every 25 ms; ``control``: the :data:`fxrod.studies.cases.RUN_CONTROL` values."""
    return recorded(problem, out, name,
                    snapshot_times=frame_times(problem.h, problem.t_end, PICTURE_EVERY,
                                               max_frames=0),
                    paraview_every=max(1, round(PARAVIEW_EVERY / problem.h)),
                    probes=[probe(problem.model)], quiet=quiet, **control)


def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """Summary of the final state; snapshot figure with the tip path; the H(t) comparison
    of the viscoelastic run."""
    rank = sim.comm.rank
    pngs = []
    if pictures and out is not None and rank == 0:
        from fxrod import viz

        times = sorted(sim.snapshots)
        pngs.append(viz.snapshot_figure([sim.snapshots[t] for t in times], times,
                                        out / f"{sim.name}.png", radius=4e-3,
                                        extra_lines=[tip_path(sim)], title=sim.name))
        if sim.name != NAME and (out / f"{NAME}.csv").exists():
            from fxrod.viz.viscoelastic import energy_dissipation_figure

            pngs.append(energy_dissipation_figure(out / f"{NAME}.csv",
                                                  out / f"{sim.name}.csv",
                                                  out / f"{NAME}_energy.png"))
    s = last_row(sim, ("t", "H", "tip_1", "tip_2", "tip_3"))
    s["max_energy_residual"] = float(np.max(np.abs(sim.column("energy_residual"))))
    files = output_files(sim, *pngs)
    text = (f"{sim.name}: t = {s['t']:g}, H = {s['H']:.12g} J, tip = ({s['tip_1']:.9f}, "
            f"{s['tip_2']:.9f}, {s['tip_3']:.9f}) m, max |energy residual| = "
            f"{s['max_energy_residual']:.2e} J")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {sim.name: sim}, files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        n_elements: int, viscoelastic: bool, scale: float, comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, t_end, viscoelastic, scale, comm)
    sim = simulation(prob, out, NAME + ("_viscoelastic" if viscoelastic else ""), quiet,
                     **control)
    with sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


CASE = Case("cantilever-vibration", "Ex. 6.2: Kirchhoff cantilever hit by a 50 ms impulse; "
            "--viscoelastic adds a Maxwell branch", OPTIONS, {"t_end": 0.1}, run)
