"""Case ``quasistatic-cantilever``: Ex. 6.3 of Kinon, Eugster & Betsch (2026), after Harsch
et al. (2021).

A cantilever of length 2 pi loaded at its tip by a dead force and moment proportional to the
load factor t in [0, 1] (:func:`fxrod.problems.paper.quasistatic_cantilever`), solved twice: the
shearable, extensible Reissner rod ("unconstrained") and the Kirchhoff rod ("constrained",
the Euler elastica). Steps: :func:`problem`, :func:`simulation` (one per variant),
:func:`finish`. Files: ``DIR/quasistatic_cantilever_unconstrained.csv`` and
``..._constrained.csv`` (t = load factor), ``DIR/quasistatic_cantilever_centrelines.csv``
(columns ``case, t, node, x, y, z``: the nodal centrelines at t = 0, 0.1, 0.2, 0.4, 1) and
``DIR/quasistatic_cantilever.png`` (the paper's Fig. 14 with the exact solutions of
:mod:`fxrod.data`).

Summary keys: ``t`` (final load factor), ``<variant>_tip_1``, ``<variant>_tip_2`` [m] for the
variants ``unconstrained`` and ``constrained``.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numpy as np

from fxrod.data import reference_path
from fxrod.errors import check_range
from fxrod.output.tables import write_columns_json
from fxrod.problems.paper import quasistatic_cantilever
from fxrod.runs.problem import Problem
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import output_files, recorded, restart_of, wrote

NAME = "quasistatic_cantilever"
#: The two variants: name -> Kirchhoff constraints.
VARIANTS = {"unconstrained": False, "constrained": True}
#: Load factors of the centrelines (the paper's Fig. 14).
TIMES = (0.1, 0.2, 0.4, 1.0)

OPTIONS = (
    Option("h", 0.1, "-", "load-factor increment", bounds="(0, inf)"),
    Option("t_end", 1.0, "-", "final load factor, in [0, 1]", bounds="[0, 1]"),
    Option("n_elements", 8, "-", "number of elements", bounds="[1, inf)"),
    Option("evaluation", "endpoint", "-", "where the balance is evaluated",
           choices=("endpoint", "midpoint")),
    *RUN_CONTROL,     # adaptive: always on (step cutting)
)


def problem(constrained: bool, n_elements: int = 8, h: float = 0.1, t_end: float = 1.0,
            evaluation: str = "endpoint", comm=None) -> Problem:
    """One variant, load steps of ``h`` up to the load factor ``t_end`` in [0, 1].

    Raises
    ------
    ParameterError
        If ``t_end`` is outside [0, 1].
    """
    t_end = check_range("t_end", t_end, 0.0, 1.0)
    prob = quasistatic_cantilever(n_elements, constrained=constrained, comm=comm,
                                  evaluation=evaluation, h=h)
    return dataclasses.replace(prob, t_end=t_end)


def simulation(problem: Problem, out: Path | None, variant: str,
               quiet: bool = True, **control) -> Simulation:
    """Load stepping with step cutting, a ParaView frame per step, the centrelines at
    :data:`TIMES` kept; ``control``: the :data:`fxrod.studies.cases.RUN_CONTROL` values (a
    ``restart`` directory without this variant's checkpoint starts it afresh when it is
    not the first)."""
    name = f"{NAME}_{variant}"
    if variant != next(iter(VARIANTS)):
        control = {**control, "restart": restart_of(control.get("restart"), name)}
    return recorded(problem, out, name, snapshot_times=[0.0, *TIMES], quiet=quiet,
                    paraview_every=1, **{**control, "adaptive": True})


def write_centrelines(sims: dict[str, Simulation], path: Path) -> Path:
    """The kept centrelines of every variant as one CSV (``case, t, node, x, y, z`` [m])."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["case", "t", "node", "x", "y", "z"])
        for variant, sim in sims.items():
            for t, pts in sorted(sim.snapshots.items()):
                for i, p in enumerate(pts):
                    w.writerow([variant, repr(float(t)), i, *(repr(float(x)) for x in p)])
    write_columns_json(path, {"case": "-", "t": "-", "node": "-", "x": "m", "y": "m", "z": "m"},
                       meanings={"case": "variant (unconstrained or constrained)",
                                 "t": "load factor of the kept centreline",
                                 "node": "node index along the rod from s = 0",
                                 "x": "node position, component 1",
                                 "y": "node position, component 2",
                                 "z": "node position, component 3"})
    return path


def figure(sims: dict[str, Simulation], path: Path) -> Path:
    """Centrelines at :data:`TIMES` and the tip path of both variants, with the exact
    solutions (dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(reference_path("exact", "exact_centerlines.csv")) as fh:
        exact = list(csv.DictReader(fh))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, (variant, sim) in zip(axes, sims.items(), strict=True):
        for t, pts in sorted(sim.snapshots.items()):
            ax.plot(pts[:, 0], pts[:, 1], "o-", ms=3, label=f"fxrod t = {t:g}")
        ax.plot(sim.column("tip_1"), sim.column("tip_2"), "k.", ms=4, label="fxrod tip")
        tipf = ("elastica_constrained_tip.csv" if VARIANTS[variant]
                else "reissner_unconstrained_tip.csv")
        tip = np.loadtxt(reference_path("exact", tipf), delimiter=",", skiprows=1)
        ax.plot(tip[:, 1], tip[:, 2], "k-", lw=0.8, label="exact tip path")
        rows = [r for r in exact if r["case"] == variant]
        for t in sorted({float(r["t"]) for r in rows}):
            xy = np.array([[float(r["x"]), float(r["y"])] for r in rows if float(r["t"]) == t])
            ax.plot(xy[:, 0], xy[:, 1], "k--", lw=0.8)
        ax.set_title(f"{variant} (dashed: exact)")
        ax.set_aspect("equal")
        ax.set_xlabel("x")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("y")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def finish(sims: dict[str, Simulation], out: Path | None, pictures: bool = True) -> Result:
    """Tips at the final load factor; the centrelines CSV and the figure (rank 0)."""
    sim0 = next(iter(sims.values()))
    rank = sim0.comm.rank
    extra = []
    if out is not None and rank == 0:
        extra.append(write_centrelines(sims, out / f"{NAME}_centrelines.csv"))
        if pictures:
            extra.append(figure(sims, out / f"{NAME}.png"))
    s = {"t": float(sim0.rows[-1]["t"])}
    lines = []
    for variant, sim in sims.items():
        r = sim.rows[-1]
        s[f"{variant}_tip_1"], s[f"{variant}_tip_2"] = float(r["tip_1"]), float(r["tip_2"])
        lines.append(f"{variant}: tip at t = {r['t']:g}: ({r['tip_1']:.9f}, {r['tip_2']:.9f})")
    files = [f for sim in sims.values() for f in output_files(sim)] + extra
    return Result(CASE.name, s, "\n".join(filter(None, (*lines, wrote(files)))),
                  dict(sims), files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        n_elements: int, evaluation: str, comm=None, **control) -> Result:
    """Build, run and post-process both variants (the options of :data:`OPTIONS`) on
    ``comm``."""
    sims = {}
    for variant, constrained in VARIANTS.items():
        prob = problem(constrained, n_elements, h, t_end, evaluation, comm)
        with simulation(prob, out, variant, quiet, **control) as sims[variant]:
            sims[variant].run(prob.t_end)
    return finish(sims, out, pictures)


CASE = Case("quasistatic-cantilever", "Ex. 6.3: Reissner rod and Euler elastica vs exact "
            "solutions (Fig. 14)", OPTIONS, {"h": 0.2}, run)
