# %% [markdown]
# # Graded steel cantilever under gravity with the planar ANCF beam.
#
# A steel cantilever whose Young's modulus falls along the beam, ``E(x) = E0 (1 - lam
# (x/L)^n)``, sags under its weight. How much softer is it than the uniform beam? The planar
# ANCF beam answers for five gradings, and linear Euler-Bernoulli theory for graded beams
# (integrated numerically) checks it: the gaps are ~1e-6, the geometric nonlinearity of a
# 1.4 mm deflection. For each grading the script computes
#
# 1. the static tip deflection under gravity (Newton) and the first circular eigenfrequency
#    (SLEPc), against linear theory;
# 2. the release from the straight state under gravity with the explicit central difference
#    at 0.9 of the stability limit, whose energy balance holds to ~1e-9.
#
# Every beam is serial; under ``mpirun -n 2`` the gradings are dealt to the ranks.
#
#     python demos/ancf_graded_cantilever.py [--out DIR] [--quick] [--n-elements 40]
#         [--checkpoint-every K] [--restart DIR]
#     mpirun -n 2 python demos/ancf_graded_cantilever.py --quick
#
# ``--quick`` uses 20 elements and 0.1 s releases. Writes ``DIR/ancf_graded_cantilever.csv``
# (one row per grading, :data:`TABLE`), ``..._release.csv`` (the releases' time series,
# :data:`SERIES`), each release's own recorded run ``DIR/<label>.csv`` (:func:`label`, with
# its checkpoint ``DIR/<label>_checkpoint.npz``), ``.pvd`` (ParaView frames of the largest
# release) and the pictures ``.png`` (snapshots, deflection magnified), ``_tip.png``,
# ``_shapes.png``, ``_curvature.png``, ``_energy.png``. The same case runs as
# ``fxrod run ancf-graded-cantilever`` (the registry reads this file). Summary keys:
# ``max_gap_tip``, ``max_gap_omega`` (largest relative gaps to linear theory),
# ``max_energy_error``. Exits with status 1 if a gap exceeds :data:`TOL_LINEAR` or an energy
# error :data:`TOL_ENERGY`.

# %%
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod.ancf import (
    ANCFBeam,
    BeamProperties,
    CentralDifference,
    eigenfrequencies,
    energy_balance,
    graded_modulus,
    relative_energy_error,
    solve_static,
)
from fxrod.ancf import linear_beam as lb
from fxrod.ancf.steppers import CentralDifferenceStepper
from fxrod.errors import CheckpointError, ConvergenceError, OutputError, ParameterError
from fxrod.output.history import History
from fxrod.output.paraview import PVDWriter
from fxrod.output.tables import CSVWriter, prepare_output_dir
from fxrod.runs.checkpoint import companion_fingerprint, describe
from fxrod.runs.simulation import Interrupted, Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result, control, exit_on_signal
from fxrod.studies.cases.common import raise_shared, restart_file, wrote

NAME = "ancf_graded_cantilever"
#: The gradings ``(lam, n)`` (``n = 1`` for the uniform beam, where it is moot).
GRADINGS: list[tuple[float, float]] = [(0.0, 1.0), (0.3, 1.0), (0.3, 2.0), (0.6, 1.0),
                                       (0.6, 2.0)]
GRAVITY = 9.81  # [m/s^2]
TOL_LINEAR = 1e-4  # relative gap ANCF vs linear theory (geometric nonlinearity is ~2e-6)
TOL_ENERGY = 1e-6  # relative energy error of the explicit run
#: Elements of the explicit releases; snapshots per release.
N_ELEMENTS_DYNAMIC, N_FRAMES = 10, 6
OPTIONS = (
    Option("n_elements", 40, "-", "elements of the statics and the modes", bounds="[1, inf)"),
    Option("t_end", 0.5, "s", "length of the explicit releases", bounds="(0, inf)"),
    *RUN_CONTROL,
)


# %% [markdown]
# ## The beam
# The blog's steel cantilever: L = 1 m, square 0.02 x 0.02 m, rho = 7850 kg/m^3 and
# E0 = 207 GPa, graded as above (``lam = 0``: the uniform beam). The element is the
# gradient-deficient ANCF Euler-Bernoulli element (positions and slopes as nodal unknowns,
# Hermite C1 interpolation), clamped at x = 0 and loaded by its weight.

# %%
def properties(lam: float, n: float) -> BeamProperties:
    """The cantilever of grading ``(lam, n)``."""
    L = 1.0
    E = 2.07e11 if lam == 0.0 else graded_modulus(2.07e11, lam, n, L)
    return BeamProperties(L=L, E=E, rho=7850.0, b=0.02, h=0.02)


def cantilever(props: BeamProperties, n_elements: int) -> ANCFBeam:
    """The beam of ``props`` on ``n_elements``, clamped at x = 0, under gravity."""
    return ANCFBeam(props, n_elements, gravity=(0.0, -GRAVITY))


# %% [markdown]
# ## Statics and the first mode against linear theory
# One Newton solve for the deflection under the full weight, the lowest eigenvalue for the
# frequency; the curvature along the beam against M(x)/EI(x).

# %%
def run_grading(lam: float, n: float, n_elements: int, t_end: float,
                checkpoint_every: int = 0, restart: Path | None = None,
                directory: Path | None = None) -> dict:
    """Static, modal and explicit-dynamic results of one grading (serial, COMM_SELF); the
    release checkpointed into ``directory`` and restarted from ``restart`` (see
    :func:`release`)."""
    props = properties(lam, n)
    beam = cantilever(props, n_elements)
    omega_1 = float(eigenfrequencies(beam, 1)[0])
    static = solve_static(beam, n_steps=1)
    x, K = beam.curvature(static.q, per_element=8)
    _, r, _, _ = beam.sample(static.q, per_element=8)
    out = {
        "lam": lam, "n": n,
        "tip_deflection": float(-static.tip_displacement[1]),
        "omega_1": omega_1,
        "tip_deflection_linear": lb.tip_deflection(props, g=GRAVITY),
        "omega_1_linear": float(lb.frequencies(props, 1)[0]),
        "x": x, "K": K, "shape": r,
        "K_linear": -lb.curvature(props, x, g=GRAVITY),
    }
    out["rel_gap_tip"] = out["tip_deflection"] / out["tip_deflection_linear"] - 1.0
    out["rel_gap_omega"] = out["omega_1"] / out["omega_1_linear"] - 1.0
    out.update(release(lam, n, n_elements, t_end, checkpoint_every, restart, directory))
    return out


# %% [markdown]
# ## The release
# From the straight state at rest the beam falls under gravity: explicit central difference
# on 10 elements at 0.9 of the stability limit 2/omega_max (SLEPc), recorded and
# checkpointed by a :class:`fxrod.runs.simulation.Simulation` like any run.

# %%
def release(lam: float, n: float, n_elements: int, t_end: float, checkpoint_every: int = 0,
            restart: Path | None = None, out: Path | None = None) -> dict:
    """The release of grading ``(lam, n)`` over ``t_end`` [s] in :data:`N_FRAMES` chunks (a
    snapshot at each chunk's start and at the end), about 2000 steps recorded, into ``out``
    as ``DIR/<label>.csv`` (:func:`label`), checkpointed every ``checkpoint_every`` steps;
    ``restart``: continue from that checkpoint (the stored step and stability limit are
    used, so the steps are bitwise those of an uninterrupted run)."""
    props = properties(lam, n)
    dyn = cantilever(props, N_ELEMENTS_DYNAMIC)
    cd = CentralDifference(dyn, safety=0.9)
    every = max(1, int(np.ceil(t_end / cd.h)) // 2000)
    per_chunk = cd.steps(t_end / N_FRAMES)
    total = N_FRAMES * per_chunk
    with Simulation(CentralDifferenceStepper(cd, fingerprint(props, n_elements, t_end)), out,
                    label(lam, n), checkpoint_every=checkpoint_every, restart=restart,
                    snapshot_times=[c * per_chunk * cd.h for c in range(N_FRAMES + 1)],
                    record_every=lambda i: i < total and i % per_chunk % every == 0) as sim:
        sim.run(total * cd.h)
    dyn.set_state(cd.q)
    hist = History(sim.rows)
    return {"dt": cd.h, "dt_critical": cd.h_critical, "energy_error": relative_energy_error(hist),
            "history": hist, "balance": energy_balance(hist),
            "frames": list(sim.snapshots.values()), "frame_t": list(sim.snapshots)}


def fingerprint(props: BeamProperties, n_elements: int, t_end: float) -> dict[str, str]:
    """What identifies the release of one grading in a checkpoint."""
    return companion_fingerprint({
        "mesh": f"{n_elements} elements (statics, modes), {N_ELEMENTS_DYNAMIC} elements "
                "(release)",
        "geometry": f"straight L = {props.L!r} m",
        "section": describe(props, props.L),
        "supports": "clamped at x = 0",
        "loads": f"gravity {GRAVITY!r} m/s^2",
        "kind": "ANCF, explicit central difference from the straight state at rest",
        "step": f"h = 0.9 h_critical, t_end = {t_end!r} s in {N_FRAMES} chunks",
    })


def label(lam: float, n: float) -> str:
    """Base name of the run of a grading, ``ancf_graded_cantilever_lam0.3_n2``."""
    return f"{NAME}_lam{lam:g}_n{n:g}"


# %% [markdown]
# ## Every grading
# The gradings are dealt round-robin to the ranks (each beam is serial) and gathered on
# rank 0. A rank stopped by a signal or a failure stops the others after their grading.

# %%
def run_all(n_elements: int, t_end: float, comm=MPI.COMM_WORLD, *, adaptive: bool = False,
            checkpoint_every: int = 0, restart: str | Path | None = None,
            out: Path | None = None) -> list[dict]:
    """Every grading on the ranks of ``comm``; the results in :data:`GRADINGS` order on rank
    0 (empty elsewhere). Each release is checkpointed into ``out`` every
    ``checkpoint_every`` steps (one file per grading, so a restart works with any number of
    ranks) and restarted from its checkpoint in ``restart`` (a grading without one starts
    afresh); an error on one rank is raised on every rank.

    Raises
    ------
    fxrod.errors.ParameterError
        If ``adaptive`` is true: the explicit central difference has no step to halve (its
        step is 0.9 of the stability limit, stable throughout), or if ``checkpoint_every``
        or ``restart`` come without ``out``.
    """
    if adaptive:
        raise ParameterError("adaptive", adaptive, "false: the explicit central difference "
                             "runs at the fixed step h = 0.9 h_critical, h_critical = "
                             "2/omega_max from SLEPc (dt_critical in the CSV); a larger step "
                             "is unstable, a smaller one is never needed")
    if (checkpoint_every or restart is not None) and out is None:
        raise ParameterError("out_dir", None, "a directory when checkpointing/restarting")
    if checkpoint_every:
        prepare_output_dir(out, comm)
    names = [label(lam, n) for lam, n in GRADINGS]
    mine, err = [], None
    for i, (lam, n) in enumerate(GRADINGS):
        if i % comm.size != comm.rank or err is not None:
            continue
        try:
            mine.append(run_grading(lam, n, n_elements, t_end, checkpoint_every,
                                    restart_file(restart, names[i], names), out))
        except (Interrupted, OutputError, CheckpointError, ConvergenceError) as e:
            err = e
    raise_shared(err, comm)
    gathered = comm.gather(mine, root=0)
    if comm.rank != 0:
        return []
    return sorted((r for part in gathered for r in part),
                  key=lambda r: GRADINGS.index((r["lam"], r["n"])))


# %% [markdown]
# ## The table and the checks
# One row per grading: ANCF, linear theory and their gap, the explicit step and its energy
# error; both CSVs with their units files.

# %%
#: Columns of the table and of the release time series.
TABLE = ["lam", "n", "tip_deflection", "omega_1", "tip_deflection_linear", "omega_1_linear",
         "rel_gap_tip", "rel_gap_omega", "dt", "dt_critical", "energy_error"]
SERIES = ["t", "lam", "n", "kinetic", "strain_energy", "H", "external_work", "dissipated",
          "energy_residual", "tip_1", "tip_2", "tip_3"]
#: Units of the columns of both CSVs (their ``_columns.json``) and the meanings of the
#: table's and the grading's own (the standard columns: docs/output.md).
UNITS = {"lam": "-", "n": "-", "tip_deflection": "m", "omega_1": "rad/s",
         "tip_deflection_linear": "m", "omega_1_linear": "rad/s", "rel_gap_tip": "-",
         "rel_gap_omega": "-", "dt": "s", "dt_critical": "s", "energy_error": "-",
         "t": "s", "kinetic": "J", "strain_energy": "J", "H": "J", "external_work": "J",
         "dissipated": "J", "energy_residual": "J", "tip_1": "m", "tip_2": "m", "tip_3": "m"}
MEANINGS = {
    "lam": "grading depth lam of E(x) = E0 (1 - lam (x/L)^n)",
    "n": "grading exponent n of E(x) = E0 (1 - lam (x/L)^n)",
    "tip_deflection": "static tip deflection under gravity (ANCF)",
    "omega_1": "first circular eigenfrequency (ANCF)",
    "tip_deflection_linear": "static tip deflection of linear Euler-Bernoulli theory",
    "omega_1_linear": "first circular eigenfrequency of linear Euler-Bernoulli theory",
    "rel_gap_tip": "tip_deflection / tip_deflection_linear - 1",
    "rel_gap_omega": "omega_1 / omega_1_linear - 1",
    "dt": "step of the explicit release (central difference)",
    "dt_critical": "stability limit 2/omega_max of the explicit step",
    "energy_error": "relative energy error of the explicit release",
}


def finish(results: list[dict], out: Path | None, pictures: bool = True,
           comm=MPI.COMM_WORLD) -> Result:
    """The table and the checks, the CSVs, the ParaView series of the largest release and
    the pictures (rank 0); the outcome of the checks is shared with every rank."""
    summary, text, files = {}, "", []
    if out is not None:
        prepare_output_dir(out, comm)
    if comm.rank == 0:
        gap_tip = max(abs(r["rel_gap_tip"]) for r in results)
        gap_omega = max(abs(r["rel_gap_omega"]) for r in results)
        summary = {"max_gap_tip": gap_tip, "max_gap_omega": gap_omega,
                   "max_energy_error": max(r["energy_error"] for r in results)}
        lines = [f"{'lam':>4} {'n':>3} {'tip [m]':>12} {'linear':>12} {'gap':>9} "
                 f"{'omega_1':>10} {'linear':>10} {'gap':>9} {'E err':>8}"]
        lines += [f"{r['lam']:4.1f} {r['n']:3.0f} {r['tip_deflection']:12.6e} "
                  f"{r['tip_deflection_linear']:12.6e} {r['rel_gap_tip']:9.1e} "
                  f"{r['omega_1']:10.4f} {r['omega_1_linear']:10.4f} "
                  f"{r['rel_gap_omega']:9.1e} {r['energy_error']:8.1e}" for r in results]
        if out is not None:
            with CSVWriter(out / f"{NAME}.csv", TABLE, units={c: UNITS[c] for c in TABLE},
                           meanings=MEANINGS) as csv:
                for r in results:
                    csv.write({c: r[c] for c in TABLE})
            with CSVWriter(out / f"{NAME}_release.csv", SERIES,
                           units={c: UNITS[c] for c in SERIES}, meanings=MEANINGS) as csv:
                for r in results:
                    for row in r["history"].rows:
                        csv.write(row | {"lam": r["lam"], "n": r["n"]})
            largest = max(results, key=lambda r: r["tip_deflection"])
            pvd = PVDWriter(out, NAME)
            for t, pts in zip(largest["frame_t"], largest["frames"], strict=True):
                pvd.write(t, pts)
            files = [out / f"{NAME}.csv", out / f"{NAME}_release.csv", pvd.path]
            if pictures:
                files += [snapshots(largest, out), *plots(results, out)]
        text = "\n".join(filter(None, (*lines, wrote(files))))
    ok = comm.bcast(comm.rank != 0 or (summary["max_gap_tip"] <= TOL_LINEAR
                                       and summary["max_gap_omega"] <= TOL_LINEAR
                                       and summary["max_energy_error"] <= TOL_ENERGY), root=0)
    failure = "" if ok else (f"ANCF vs linear theory above {TOL_LINEAR:g} or explicit energy "
                             f"error above {TOL_ENERGY:g}")
    return Result(CASE.name, summary, text, files=files, ok=ok, failure=failure,
                  rank=comm.rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int,
        t_end: float, comm=None, **control) -> Result:
    """Run every grading and post-process (the options of :data:`OPTIONS`; ``quiet`` has
    no effect: there is no progress bar) on the ranks of ``comm`` (None:
    ``MPI.COMM_WORLD``); ``control``: the run-control values (see :func:`run_all`)."""
    comm = MPI.COMM_WORLD if comm is None else comm
    return finish(run_all(n_elements, t_end, comm, out=out, **control), out, pictures, comm)


CASE = Case("ancf-graded-cantilever", "planar ANCF beam with axially graded stiffness under "
            "gravity, vs linear theory", OPTIONS, {"n_elements": 20, "t_end": 0.1}, run)


# %% [markdown]
# ## The pictures
# The tip over time, the static shapes and curvatures against linear theory, the uniform
# beam's energy balance, and snapshots of the largest release (deflection magnified).

# %%
def _label(res: dict) -> str:
    return "uniform" if res["lam"] == 0.0 else f"lam={res['lam']:g}, n={res['n']:g}"


def plots(results: list[dict], out: Path) -> list[Path]:
    """Tip histories, static shapes and curvatures vs linear theory, the uniform beam's
    explicit energy balance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def save(fig, suffix: str) -> Path:
        ax = fig.axes[0]
        if suffix != "energy":
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        path = out / f"{NAME}_{suffix}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path

    paths = []
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        h = res["history"]
        ax.plot(h.column("t"), 1e3 * h.column("tip_2"), lw=0.9, label=_label(res))
    ax.set(xlabel="t [s]", ylabel="tip y [mm]",
           title="Dynamic release under gravity (explicit central difference)")
    paths.append(save(fig, "tip"))

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        line, = ax.plot(res["shape"][:, 0], 1e3 * res["shape"][:, 1], label=_label(res))
        w = lb.deflection(properties(res["lam"], res["n"]), res["x"][::8], g=GRAVITY)
        ax.plot(res["x"][::8], -1e3 * w, "o", ms=3, mfc="none", color=line.get_color())
    ax.set(xlabel="x [m]", ylabel="y [mm]",
           title="Static shapes: ANCF (lines) vs linear Euler-Bernoulli (circles)")
    paths.append(save(fig, "shapes"))

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        line, = ax.plot(res["x"], 1e3 * res["K"], label=_label(res))
        ax.plot(res["x"][::4], 1e3 * res["K_linear"][::4], "o", ms=3, mfc="none",
                color=line.get_color())
    ax.set(xlabel="x [m]", ylabel="curvature K [1/km]",
           title="Static curvature: ANCF (lines) vs M/EI(x) (circles)")
    paths.append(save(fig, "curvature"))

    res = results[0]
    h = res["history"]
    t = h.column("t")
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.5, 5.5), sharex=True)
    a1.plot(t, h.column("kinetic"), label="kinetic T")
    a1.plot(t, h.column("strain_energy"), label="strain U")
    a1.plot(t, h.column("external_work"), label="gravity work W")
    a1.set_ylabel("energy [J]")
    a1.legend(fontsize=8)
    a1.grid(alpha=0.3)
    a2.plot(t, res["balance"] - res["balance"][0])
    a2.set(ylabel="T + U - W - (T + U - W)(0) [J]", xlabel="t [s]")
    a2.grid(alpha=0.3)
    a1.set_title(f"Explicit run, uniform beam: h = 0.9 h_cr = {res['dt']:.3g} s, "
                 f"energy error {res['energy_error']:.2g}", fontsize=10)
    paths.append(save(fig, "energy"))
    return paths


def snapshots(res: dict, out: Path, scale: float = 100.0) -> Path:
    """Snapshots of one release, the deflection magnified ``scale`` times."""
    from fxrod.viz import snapshot_figure

    # viz looks along -e2 with e3 up: show the bending plane (x, y) as (e1, e3)
    frames = [np.column_stack([f[:, 0], f[:, 2], scale * f[:, 1]]) for f in res["frames"]]
    return snapshot_figure(
        frames, res["frame_t"], out / f"{NAME}.png", radius=0.006, azimuth=0.0,
        elevation=0.0,
        title=f"ANCF release, lam={res['lam']:g}, n={res['n']:g}; y magnified x{scale:g}")


# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    args = CASE.parse_args()
    with exit_on_signal(NAME, MPI.COMM_WORLD):
        results = run_all(n_elements=args.n_elements, t_end=args.t_end, out=args.out,
                          **control(args))
    result = finish(results, args.out, pictures=args.pictures)
    raise SystemExit(result.report(args.quiet))
