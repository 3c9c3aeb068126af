# %% [markdown]
# # Free flying beam with the Hamel field variational integrator (Example 2, theory §H7).
#
# The Hamel field variational integrator (HFVI) discretises the geometrically exact beam on a
# lattice in space and time: every node carries a frame g = (R, x) in SE(3), and the discrete
# Hamel equations advance the convective velocities (omega, pi) from one time level to the
# next. Its discrete momentum map J_d is an exact invariant of the scheme: a free beam set
# spinning and drifting keeps it to round-off, while its leading term (the momentum at the
# frames g^n) deviates at O(h) and the mid-frame momentum at O(h^2). This script builds the
# lattice, runs it and checks that.
#
#     python demos/hamel_free_beam.py [--out DIR] [--quick] [--h 1e-4] [--every 10]
#         [--adaptive] [--checkpoint-every K] [--restart DIR]
#     mpirun -n 2 python demos/hamel_free_beam.py
#
# ``--quick`` stops at t = 0.2 s. Writes ``DIR/hamel_free_beam.csv`` (the columns of
# :data:`fxrod.hamel.COLUMNS`, every ``every``-th step and the last), the paper's Figs. 2-3
# as ``..._angular.png`` and ``..._linear.png``, the deviations in ``..._deviation.png``,
# snapshots with the director triads in ``hamel_free_beam.png`` and ``hamel_free_beam.pvd``
# (ParaView). Every rank computes the (cheap) lattice; rank 0 writes. The same case runs as
# ``fxrod run hamel-free-beam`` (the registry reads this file). Summary keys: ``t`` [s],
# ``steps``, ``rel_dev_angular``, ``rel_dev_linear`` (largest ``|J_d - J_d(0)|`` relative to
# ``|J_d(0)|``), ``dev_leading``, ``dev_mid`` (largest deviation of the leading term and of
# the mid-frame momentum from J_d(0)), ``rel_dev_H``. Exits with status 1 unless J_d is
# conserved to 1e-11 and J_d(0) equals :data:`JD0_THEORY`.

# %%
import hashlib
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod.hamel import Frames, HamelBeam, HamelSection, HamelStepper, default_settings, series
from fxrod.output.history import History
from fxrod.output.paraview import PVDWriter
from fxrod.runs.checkpoint import companion_fingerprint, describe
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result, exit_on_signal
from fxrod.studies.cases.common import wrote

NAME = "hamel_free_beam"
#: Theory §H7: J_d(0) = (L; P) [kg m^2/s; kg m/s] for uniform weights w_j = dh.
JD0_THEORY = np.array([9.259e-4, 1.8519e-2, -2.22037, 4.44444, 6.66667, 0.0])
#: Conservation of J_d required by the checks (relative).
TOL_JD = 1e-11
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
# convective velocities: omega = (0.1, 1, 0.2) rad/s on every section, pi_1 = 2 m/s on
# sections 5-6 and pi_2 = 3 m/s on sections 2-3 (1-based). The node-wise Newton solves go to
# round-off, which the exact conservation needs; ``adaptive`` halves a failing step.

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


def fingerprint(beam: HamelBeam) -> dict[str, str]:
    """What identifies the run of ``beam`` (at its initial state) in a checkpoint."""
    initial = np.concatenate([beam.configuration.ravel(), beam.velocity.x.array])
    digest = hashlib.sha256(np.round(initial, 12).tobytes()).hexdigest()[:16]
    return companion_fingerprint({
        "mesh": f"{beam.n_elements} elements",
        "geometry": f"straight L = {beam.length!r} m along E2, {beam.weights_kind} weights, "
                    f"strain update {beam.strain_update}; initial state digest {digest}",
        "section": describe(beam.section, beam.length),
        "supports": f"ends {beam.ends[0]}, {beam.ends[1]}",
        "kind": "Hamel field variational integrator",
        "step": f"h = {beam.h!r}",
        "settings": describe(beam.settings, beam.length),
    })


# %% [markdown]
# ## The run
# A :class:`fxrod.runs.simulation.Simulation` of the lattice's stepper diagnoses every level
# (J_d, the leading term, the mid-frame momentum, the energies) and writes every N-th; it
# keeps 9 snapshots, checkpoints and restarts as every case does.

# %%
def run_beam(beam: HamelBeam, t_end: float, out: Path | None, every: int = 10,
             comm=MPI.COMM_WORLD, *, checkpoint_every: int = 0,
             restart: str | Path | None = None) -> tuple[History, Frames]:
    """Advance ``beam`` to ``t_end`` [s] (rounded to whole steps; adaptive steps land on
    it): every level diagnosed (the history), every ``every``-th and the last written to the
    CSV (rank 0; the diagnostics of a level need the step that leaves it, so the beam takes
    one step beyond ``t_end``), 9 snapshots kept. Checkpoints
    ``DIR/hamel_free_beam_checkpoint.npz`` every ``checkpoint_every`` steps, at the end, on a
    failed step and on SIGINT/SIGTERM (then :class:`fxrod.runs.simulation.Interrupted` is
    raised); ``restart``: continue from such a checkpoint, bitwise as the uninterrupted run."""
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
# The largest deviation of J_d from J_d(0) must be round-off, and J_d(0) that of theory §H7.

# %%
def finish(beam: HamelBeam, h: History, frames: Frames, out: Path | None,
           pictures: bool = True, comm=MPI.COMM_WORLD) -> Result:
    """Conservation of J_d and its approximations; the ParaView series and the pictures
    (rank 0; the run's CSV is written by :func:`run_beam`)."""
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
        pvd = PVDWriter(out, NAME)
        for t, x, R in zip(frames.t, frames.positions, frames.rotations, strict=True):
            pvd.write(t, x, point_data={f"d{k + 1}": R[:, :, k] for k in range(3)})
        files = [out / f"{NAME}.csv", pvd.path]
        if pictures:
            from fxrod.viz import snapshot_figure

            files += plot_momenta(h, beam.h, out)
            files.append(snapshot_figure(frames.positions, frames.t, out / f"{NAME}.png",
                                         triads=frames.rotations,
                                         extra_lines=[series(h, "tip")],
                                         title=f"HFVI free beam, t = 0 .. {beam.t:g} s"))
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
    """Build, run and check (the options of :data:`OPTIONS`; ``quiet`` has no effect: there
    is no progress bar); rank 0 of ``comm`` (None: ``MPI.COMM_WORLD``) writes."""
    comm = MPI.COMM_WORLD if comm is None else comm
    beam = problem(h, adaptive)
    hist, frames = run_beam(beam, t_end, out, every, comm, checkpoint_every=checkpoint_every,
                            restart=restart)
    return finish(beam, hist, frames, out, pictures, comm)


CASE = Case("hamel-free-beam", "Hamel field variational integrator: free beam, exact "
            "discrete momentum", OPTIONS, {"t_end": 0.2}, run)


# %% [markdown]
# ## The pictures
# The paper's Figs. 2-3: each component of the angular and linear momentum over time, J_d
# against its two approximations; then the deviations from J_d(0) on a log scale.

# %%
def plot_momenta(h: History, dt: float, out: Path) -> list[Path]:
    """The paper's Figs. 2-3 (angular, linear momentum over time) and the deviations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t, Jd, J_lead, J_mid, H = (h.column("t"), series(h, "Jd"), series(h, "J_lead"),
                               series(h, "J_mid"), h.column("H"))
    paths = []
    for part, off, unit in (("angular", 0, "kg m$^2$/s"), ("linear", 3, "kg m/s")):
        fig, axs = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
        for k, ax in enumerate(axs):
            ax.plot(t, J_lead[:, off + k], lw=0.8, label="leading term at $g^n$ (O(h))")
            ax.plot(t, J_mid[:, off + k], lw=1.2, label="mid-frame (O(h$^2$))")
            ax.plot(t, Jd[:, off + k], "k--", lw=1.2, label="$J_d$ (exact)")
            sym = "L" if off == 0 else "P"
            ax.set_ylabel(f"${sym}_{k + 1}$ [{unit}]")
            ax.ticklabel_format(useOffset=False)
        axs[0].legend(fontsize=8, loc="best")
        axs[-1].set_xlabel("t [s]")
        fig.suptitle(f"HFVI free beam: {part} momentum (paper's Fig. {2 if off == 0 else 3})")
        fig.tight_layout()
        paths.append(out / f"{NAME}_{part}.png")
        fig.savefig(paths[-1], dpi=120)
        plt.close(fig)

    J0 = Jd[0]
    fig, ax = plt.subplots(figsize=(7, 4))
    tiny = 1e-18
    for lab, J in (("leading term", J_lead), ("mid-frame", J_mid), ("$J_d$", Jd)):
        ax.semilogy(t, np.abs(J - J0).max(axis=1) + tiny, lw=1, label=f"max|{lab} - $J_d(0)$|")
    ax.semilogy(t, np.abs(H - H[0]) / H[0] + tiny, lw=1, label="|H - H(0)|/H(0)")
    ax.set_xlabel("t [s]")
    ax.set_ylim(1e-16, 1.0)
    ax.legend(fontsize=8)
    ax.set_title(f"conservation (h = {dt:g} s)")
    fig.tight_layout()
    paths.append(out / f"{NAME}_deviation.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return paths


# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    args = CASE.parse_args()
    beam = problem(args.h, args.adaptive)
    with exit_on_signal(NAME, MPI.COMM_WORLD):
        history, frames = run_beam(beam, args.t_end, args.out, every=args.every,
                                   checkpoint_every=args.checkpoint_every,
                                   restart=args.restart)
    result = finish(beam, history, frames, args.out, pictures=args.pictures)
    raise SystemExit(result.report(args.quiet))
