# %% [markdown]
# # A right-angle cantilever: two rods welded into a frame, in large 3D motion.
#
# Simo & Vu-Quoc (1988): two legs welded at a right angle, clamped at one end, hit out of
# plane at the elbow by a force pulse. Afterwards the frame swings and twists freely through
# large motions, and its energy H stays constant to the Newton tolerance: the weld (a
# ``Rigid`` joint) neither stores nor dissipates energy.
#
#     python demos/right_angle_cantilever.py [--out DIR] [--quick] [--n-elements 10] [--h 0.1]
#
# Writes ``DIR/right_angle_cantilever.csv`` (standard columns and the elbow ``elbow_1..3``
# [m]), a ParaView series and a picture; ``fxrod run right-angle-cantilever`` runs the same.

# %%
from pathlib import Path

import numpy as np

from fxrod import (
    Clamp,
    EndLoad,
    Problem,
    Rigid,
    Rod,
    RodModel,
    Section,
    SolverSettings,
    Structure,
    piecewise_linear_hat,
)
from fxrod.errors import ParameterError
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import frame_times, output_files, recorded, wrote

NAME = "right_angle_cantilever"
PEAK, T_PULSE = 50.0, 2.0  # peak of the force pulse at t = 1, and its end [s]
COLUMNS: dict[str, str] = {f"elbow_{i}": "m" for i in (1, 2, 3)}  # the elbow position [m]

OPTIONS = (
    Option("n_elements", 10, "-", "elements per leg", bounds="[1, inf)"),
    Option("h", 0.1, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 30.0, "s", "end time, at least the end of the pulse (2 s)",
           bounds="[2, inf)"),
    *RUN_CONTROL,
)


# %% [markdown]
# ## The frame
# Consistent units: EA = GA = 1e6, EI = GJ = 1e3, rho A = 1, rho I = 10 per bending axis.
# Leg 1 runs along e1 from the clamp at the origin to the elbow (10, 0, 0), leg 2 along e2
# to the tip (10, 10, 0), both with d1 = e3 out of plane. The ``Rigid`` joint makes leg 2's
# directors at the elbow a fixed combination of leg 1's, eliminated exactly. The force
# along e3 at the elbow (leg 1's end) is the triangular pulse 0 -> 50 at t = 1 -> 0 at
# t = 2. Newton stops at atol 1e-10, so that the energy balance shows.

# %%
def problem(n_elements: int = 10, h: float = 0.1, t_end: float = 30.0, comm=None) -> Problem:
    """The frame with ``n_elements`` per leg, step ``h`` [s], up to ``t_end`` [s] (at least
    :data:`T_PULSE`: the summary reads the motion after the pulse)."""
    if not t_end >= T_PULSE:
        raise ParameterError("t_end", t_end, f">= {T_PULSE:g} s (the end of the pulse: the "
                             "summary reads the motion after it)")
    sec = Section(rhoA=1.0, M11=10.0, M22=10.0, k_s1=1e6, k_s2=1e6, k_e=1e6,
                  k_b1=1e3, k_b2=1e3, k_t=1e3, radius=0.3)
    leg1 = Rod(sec, start=(0.0, 0.0, 0.0), end=(10.0, 0.0, 0.0), d1=(0.0, 0.0, 1.0),
               n_elements=n_elements)
    leg2 = Rod(sec, start=(10.0, 0.0, 0.0), end=(10.0, 10.0, 0.0), d1=(0.0, 0.0, 1.0),
               n_elements=n_elements)
    f = piecewise_linear_hat(PEAK, 1.0, T_PULSE)
    model = RodModel(Structure([leg1, leg2], [Rigid((0, "L"), (1, "0"))]),
                     [EndLoad("L", force=lambda t: f(t) * np.array([0.0, 0.0, 1.0]))],
                     [Clamp("0")], comm=comm)
    return Problem(model, h, t_end, SolverSettings(atol=1e-10, rtol=1e-14))


# %% [markdown]
# ## The run
# Every step is a CSV row; a column probe records the elbow; six shapes are kept for the
# picture and a ParaView frame every 0.5 s.

# %%
def probe(problem: Problem) -> ColumnProbe:
    """The elbow position (:data:`COLUMNS`)."""
    x = problem.model.structure.coordinate(0, "L")

    def values(sim: Simulation, res) -> dict[str, float]:
        return dict(zip(COLUMNS, sim.model.nodes.node_q(x)[:3], strict=True))

    return ColumnProbe(COLUMNS, values)


def simulation(problem: Problem, out: Path | None, quiet: bool = True,
               **control) -> Simulation:
    """Every step recorded (``control``: the run-control options)."""
    return recorded(problem, out, NAME,
                    snapshot_times=frame_times(problem.h, problem.t_end, max_frames=6),
                    paraview_every=max(1, round(0.5 / problem.h)), probes=[probe(problem)],
                    quiet=quiet, **control)


# %% [markdown]
# ## After the pulse
# The energy after the pulse and its drift, the out-of-plane ranges of elbow and tip.

# %%
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
        from fxrod.viz.figures import kept_snapshots

        files.append(kept_snapshots(sim, out / f"{NAME}.png", radius=0.3, azimuth=-60.0,
                                    elevation=25.0, title="right-angle cantilever"))
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

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
