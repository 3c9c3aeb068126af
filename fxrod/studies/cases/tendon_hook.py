"""Case ``tendon-hook``: a soft finger curled into a hook by one tendon, checked against its
closed form.

A silicone rod along e1, clamped at the origin, with one tendon above the centreline over
the distal three quarters (:func:`fxrod.problems.soft_arm.tendon_hook`); the tension is ramped
quasi-statically (t is a load factor) to the value that curls the distal part through 225
degrees, and the end state is compared with the exact statics
(:func:`fxrod.problems.soft_arm.tendon_hook_exact`). Steps: :func:`problem`, :func:`simulation`,
:func:`finish`. Files: ``DIR/tendon_hook.csv`` (standard columns, ``tension`` [N] and the
closed-form tip ``tip_exact_1..3`` [m]), ``DIR/tendon_hook.png`` (the load steps and the
closed form) and ``DIR/tendon_hook.gif``.

Summary keys: ``tension`` [N] at the end, ``steps``, ``n_elements``, ``error_position``
(``max |phi - phi_exact| / L``), ``error_directors`` (``max |d_k - d_k,exact|``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from fxrod.output.tables import LoadParameter
from fxrod.problems.soft_arm import HOOK, HookParameters, tendon_hook, tendon_hook_exact
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.problem import Problem
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


def problem(n_elements: int = HOOK.n_elements, steps: int = 10,
            formulation: str = "material", comm=None) -> Problem:
    """The hook of :data:`fxrod.problems.soft_arm.HOOK` with ``n_elements`` elements, loaded in
    ``steps`` equal load steps; the tension is sign-checked at 101 load factors."""
    p = dataclasses.replace(HOOK, n_elements=n_elements)
    return tendon_hook(p, formulation=formulation, check_times=np.linspace(0.0, 1.0, 101),
                       comm=comm, steps=steps)


def parameters(model) -> HookParameters:
    """The hook parameters of a model built by :func:`problem`."""
    return dataclasses.replace(HOOK, n_elements=model.rod.n_elements)


def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Every load step recorded with the tension and the closed-form tip, written as a
    ParaView frame and kept in memory for the pictures; ``control``: the
    :data:`fxrod.studies.cases.RUN_CONTROL` values."""
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


def end_state_error(sim: Simulation, p: HookParameters = HOOK) -> tuple[float, float] | None:
    """Errors of the final state vs the closed form (rank 0, None elsewhere):
    ``max_nodes |phi - phi_exact| / L`` and ``max_nodes |d_k - d_k,exact|``."""
    g = sim.centreline()
    if g is None:
        return None
    s, q = g
    phi, R = tendon_hook_exact(p, s=s)
    e_pos = float(np.max(np.linalg.norm(q[:, 0:3] - phi, axis=1))) / p.length
    d = q[:, 3:12].reshape(-1, 3, 3).transpose(0, 2, 1)   # columns d_k
    return e_pos, float(np.max(np.abs(d - R)))


def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """End-state errors; the load steps with the closed form and their animation."""
    rank = sim.comm.rank
    p = parameters(sim.model)
    err = end_state_error(sim, p)   # collective
    err = sim.comm.bcast(err, root=0)
    figs = []
    if pictures and out is not None and rank == 0:
        from fxrod import viz

        times = sorted(sim.snapshots)
        frames = [sim.snapshots[t] for t in times]
        exact = tendon_hook_exact(p, s=np.linspace(0.0, p.length, 101))[0]
        figs.append(viz.snapshot_figure(
            frames, times, out / f"{NAME}.png", radius=p.radius / 3, azimuth=0.0,
            elevation=0.0, title=f"tendon hook, T = 0 ... {p.tension:.3g} N "
                                 "(black: closed form)", extra_lines=[exact]))
        figs.append(viz.animation(frames, times, out / f"{NAME}.gif", radius=p.radius / 3,
                                  azimuth=0.0, elevation=0.0, fps=4))
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
