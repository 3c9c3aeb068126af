# %% [markdown]
# # Free flying beam with the Hamel field variational integrator (Example 2, theory §H7).
#
# The Hamel field variational integrator (HFVI) discretises the geometrically exact beam on a
# lattice in space and time: every node carries a frame g = (R, x) in SE(3), and the discrete
# Hamel equations advance the convective velocities (omega, pi). Its discrete momentum map
# J_d is an exact invariant: a free beam set spinning and drifting keeps it to round-off,
# while its leading term deviates at O(h) and the mid-frame momentum at O(h^2).
#
#     python demos/hamel_free_beam.py [--out DIR] [--quick] [--h 1e-4] [--every 10]
#     mpirun -n 2 python demos/hamel_free_beam.py
#
# Writes ``DIR/hamel_free_beam.csv`` (:data:`fxrod.hamel.COLUMNS`), a ParaView series and
# the paper's Figs. 2-3; ``fxrod run hamel-free-beam`` runs the same case.

# %%
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod.hamel import Frames, HamelBeam, HamelSection, HamelStepper, default_settings, series
from fxrod.output.history import History
from fxrod.problems.hamel import fingerprint, write_frames
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import wrote

NAME = "hamel_free_beam"
#: Theory §H7: J_d(0) = (L; P) [kg m^2/s; kg m/s] for uniform weights w_j = dh.
JD0_THEORY = np.array([9.259e-4, 1.8519e-2, -2.22037, 4.44444, 6.66667, 0.0])
TOL_JD = 1e-11          # conservation of J_d required by the checks (relative)
OPTIONS = (
    Option("h", 1e-4, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 1.0, "s", "end time", bounds="(0, inf)"),
    Option("every", 10, "-", "write every N-th step to the CSV", bounds="[1, inf)"),
    *RUN_CONTROL,
)


# %% [markdown]
# ## The lattice
# A free-free beam, l = 1 m, of square section a = 0.1 m (rho = 1000 kg/m^3, E = 1e7 Pa,
# nu = 0.35; K and P as theory §H6), on 9 elements (10 nodes), straight along E2. Its initial
# convective velocities: omega = (0.1, 1, 0.2) rad/s, pi_1 = 2 m/s on sections 5-6, pi_2 =
# 3 m/s on sections 2-3 (1-based). Node-wise Newton to round-off (the conservation needs it).

# %%
def problem(h: float, adaptive: bool = False) -> HamelBeam:
    """Example 2 with the time step ``h`` [s]; ``adaptive`` halves failing steps
    (:class:`fxrod.hamel.StepControl`)."""
    section = HamelSection.square(0.1, E=1e7, nu=0.35, rho=1000.0)
    n_elements = 9
    velocity = np.zeros((n_elements + 1, 6))        # (omega, pi) at the nodes
    velocity[:, :3] = (0.1, 1.0, 0.2)
    velocity[[4, 5], 3] = 2.0
    velocity[[1, 2], 4] = 3.0
    settings = default_settings(adaptive=True) if adaptive else None
    return HamelBeam(section, 1.0, n_elements, h, velocity, settings=settings)


# %% [markdown]
# ## The run
# A :class:`fxrod.runs.simulation.Simulation` of the lattice's stepper diagnoses every level
# (J_d, its leading term, the mid-frame momentum, the energies) and writes every N-th.

# %%
def run_beam(beam: HamelBeam, t_end: float, out: Path | None, every: int = 10,
             comm=MPI.COMM_WORLD, *, checkpoint_every: int = 0,
             restart: str | Path | None = None) -> tuple[History, Frames]:
    """Advance ``beam`` to ``t_end`` [s] (whole steps): every level diagnosed (the history;
    a level's diagnostics need the step that leaves it), every ``every``-th and the last in
    the CSV (rank 0), 9 snapshots kept; checkpoints and restarts as every case."""
    n_steps = int(round(t_end / beam.h))
    fe = max(1, n_steps // 8)
    stepper = HamelStepper(beam, fingerprint(beam), comm)
    with Simulation(stepper, out, NAME, checkpoint_every=checkpoint_every, restart=restart,
                    snapshot_times=[k * beam.h for k in range(0, n_steps + 1, fe)],
                    csv_every=every) as sim:
        sim.run(n_steps * beam.h)
    snaps = list(sim.snapshots.values())
    frames = Frames(every=fe, t=list(sim.snapshots), positions=[x[:, :3] for x in snaps],
                    rotations=[x[:, 3:].reshape(-1, 3, 3).transpose(0, 2, 1) for x in snaps])
    return History(sim.rows), frames


# %% [markdown]
# ## Conservation
# The largest deviation of J_d from J_d(0) must be round-off, and J_d(0) that of theory §H7;
# the pictures: the paper's Figs. 2-3 (J_d against its approximations), the deviations on a
# log scale, snapshots with the director triads.

# %%
def finish(beam: HamelBeam, h: History, frames: Frames, out: Path | None,
           pictures: bool = True, comm=MPI.COMM_WORLD) -> Result:
    """Conservation of J_d and its approximations; the ParaView series and the pictures."""
    Jd, H = series(h, "Jd"), h.column("H")
    J0 = Jd[0]
    dev = np.abs(Jd - J0).max(axis=0)
    s = {"t": beam.t, "steps": len(h),
         "rel_dev_angular": float(dev[:3].max() / np.abs(J0[:3]).max()),
         "rel_dev_linear": float(dev[3:].max() / np.abs(J0[3:]).max()),
         "dev_leading": float(np.abs(series(h, "J_lead") - J0).max()),
         "dev_mid": float(np.abs(series(h, "J_mid") - J0).max()),
         "rel_dev_H": float(np.abs(H - H[0]).max() / H[0])}
    ok = bool(s["rel_dev_angular"] <= TOL_JD and s["rel_dev_linear"] <= TOL_JD
              and np.allclose(J0, JD0_THEORY, rtol=1e-4, atol=1e-6))
    files = []
    if out is not None and comm.rank == 0:
        files = [out / f"{NAME}.csv", write_frames(out, NAME, frames)]
        if pictures:
            from fxrod.viz.figures import hamel_pictures

            files += hamel_pictures(h, frames, beam.h, beam.t, out, NAME)
    text = "\n".join(filter(None, (
        f"{NAME}: {s['steps']} steps of h = {beam.h:g} s (h_crit = {beam.h_critical:.3g} s)",
        "  J_d(0)         = " + np.array2string(J0, precision=6),
        f"  |J_d - J_d(0)| / |J_d(0)|: angular {s['rel_dev_angular']:.2e}, "
        f"linear {s['rel_dev_linear']:.2e}",
        f"  max |leading term - J_d| = {s['dev_leading']:.3e},  "
        f"max |mid-frame - J_d| = {s['dev_mid']:.3e}",
        f"  max |H - H0|/H0 = {s['rel_dev_H']:.3e};  tip at t = {beam.t:g} s: "
        + np.array2string(beam.positions[-1], precision=5),
        wrote(files))))
    return Result(CASE.name, s, text, files=files, ok=ok,
                  failure="" if ok else f"J_d not conserved to {TOL_JD:g} or J_d(0) differs "
                  "from theory §H7", rank=comm.rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        every: int, comm=None, adaptive: bool = False, checkpoint_every: int = 0,
        restart: str | None = None) -> Result:
    """Build, run and check (``quiet``: no effect, no progress bar); rank 0 writes."""
    comm = MPI.COMM_WORLD if comm is None else comm
    beam = problem(h, adaptive)
    hist, frames = run_beam(beam, t_end, out, every, comm, checkpoint_every=checkpoint_every,
                            restart=restart)
    return finish(beam, hist, frames, out, pictures, comm)


CASE = Case("hamel-free-beam", "Hamel field variational integrator: free beam, exact "
            "discrete momentum", OPTIONS, {"t_end": 0.2}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
