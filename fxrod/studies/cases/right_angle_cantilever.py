"""Case ``right-angle-cantilever``: Simo & Vu-Quoc (1988), a frame of two rods in dynamics.

Two legs of length 10 welded at a right angle (a :class:`fxrod.core.joints.Rigid` joint), clamped
at the origin, hit out of plane at the elbow by a triangular force pulse (peak 50 at t = 1,
zero after t = 2), then moving freely through large out-of-plane motions and twist
(:func:`fxrod.problems.frames.right_angle_cantilever`). Steps: :func:`problem`, :func:`simulation`,
:func:`finish`.

Files: ``DIR/right_angle_cantilever.csv`` with the standard columns (``tip_1..3``: the free
end) and ``elbow_1..3`` [m], the ParaView series and ``DIR/right_angle_cantilever.png``.

Summary keys: ``H_after`` [J] (energy at t = 2), ``H_drift`` [J] (largest change of H after
the pulse), ``elbow_3_min``, ``elbow_3_max``, ``tip_3_min``, ``tip_3_max`` [m].
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fxrod.errors import ParameterError
from fxrod.problems.frames import right_angle_cantilever
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.problem import Problem
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import frame_times, output_files, recorded, wrote

NAME = "right_angle_cantilever"
#: End of the load pulse [s].
T_PULSE = 2.0
#: Case-specific CSV columns: the elbow position [m].
COLUMNS: dict[str, str] = {f"elbow_{i}": "m" for i in (1, 2, 3)}

OPTIONS = (
    Option("n_elements", 10, "-", "elements per leg", bounds="[1, inf)"),
    Option("h", 0.1, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 30.0, "s", "end time, at least the end of the pulse (2 s)",
           bounds="[2, inf)"),
    *RUN_CONTROL,
)


def problem(n_elements: int = 10, h: float = 0.1, t_end: float = 30.0, comm=None) -> Problem:
    """The frame with ``n_elements`` per leg, step ``h`` [s], up to ``t_end`` [s].

    Raises
    ------
    ParameterError
        If ``t_end`` < :data:`T_PULSE` (the summary reads the motion after the pulse).
    """
    if not t_end >= T_PULSE:
        raise ParameterError("t_end", t_end, f">= {T_PULSE:g} s (the end of the pulse: the "
                             "summary reads the motion after it)")
    return right_angle_cantilever(n_elements, h=h, t_end=t_end, comm=comm)


def probe(problem: Problem) -> ColumnProbe:
    """The elbow position (:data:`COLUMNS`)."""
    x = problem.model.structure.coordinate(0, "L")

    def values(sim: Simulation, res) -> dict[str, float]:
        return dict(zip(COLUMNS, sim.model.nodes.node_q(x)[:3], strict=True))

    return ColumnProbe(COLUMNS, values)


def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Every step recorded; six shapes for the picture, a ParaView frame every 0.5 s;
    ``control``: the :data:`fxrod.studies.cases.RUN_CONTROL` values."""
    return recorded(problem, out, NAME,
                    snapshot_times=frame_times(problem.h, problem.t_end, max_frames=6),
                    paraview_every=max(1, round(0.5 / problem.h)), probes=[probe(problem)],
                    quiet=quiet, **control)


def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """Energy after the pulse and the ranges of the out-of-plane motion; the picture."""
    rank = sim.comm.rank
    t, H = sim.column("t"), sim.column("H")
    after = t >= T_PULSE - 1e-9
    s = {"H_after": float(H[after][0]), "H_drift": float(np.ptp(H[after])),
         **{f"{p}_3_{f.__name__}": float(f(sim.column(f"{p}_3"))) for p in ("elbow", "tip")
            for f in (np.min, np.max)}}
    files = output_files(sim)
    if out is not None and rank == 0 and pictures:
        from fxrod import viz

        times = sorted(sim.snapshots)
        files.append(Path(viz.snapshot_figure([sim.snapshots[k] for k in times], times,
                                              out / f"{NAME}.png", radius=0.3,
                                              title="right-angle cantilever",
                                              azimuth=-60.0, elevation=25.0)))
    text = (f"{NAME}: H after the pulse {s['H_after']:.6f}, drift {s['H_drift']:.2e}; "
            f"elbow u3 in [{s['elbow_3_min']:.3f}, {s['elbow_3_max']:.3f}], tip u3 in "
            f"[{s['tip_3_min']:.3f}, {s['tip_3_max']:.3f}]")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))), {NAME: sim},
                  files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, h: float,
        t_end: float, comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, t_end, comm)
    with simulation(prob, out, quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


CASE = Case("right-angle-cantilever", "two rods welded at a right angle, hit out of plane "
            "at the elbow (Simo & Vu-Quoc 1988): energy after the pulse",
            OPTIONS, {"t_end": 4.0, "h": 0.25, "n_elements": 4}, run)
