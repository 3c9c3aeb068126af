"""Case ``ancf-graded-cantilever``: a graded steel cantilever under gravity with the planar
ANCF beam (:mod:`fxrod.ancf`), checked against linear Euler-Bernoulli theory.

The blog's beam (L = 1 m, 0.02 x 0.02 m, rho = 7850 kg/m^3, E0 = 2.07e11 Pa) with the axially
graded modulus ``E(x) = E0 (1 - lam (x/L)^n)`` for the :data:`GRADINGS`. For each grading
(:func:`run_grading`): the static tip deflection under gravity and the first circular
eigenfrequency, with the values of linear theory (:mod:`fxrod.ancf.linear_beam`); then the
release from the straight state, explicit central difference at 0.9 of the SLEPc stability
limit, and its energy error. Every beam is serial (``MPI.COMM_SELF``); the gradings are dealt
round-robin to the ranks and gathered on rank 0 (:func:`run_all`).

Files (:func:`finish`): ``DIR/ancf_graded_cantilever.csv`` (one row per grading: ``lam, n,
tip_deflection`` [m], ``omega_1`` [rad/s], the linear-theory values, their relative gaps, the
explicit step ``dt`` and its limit ``dt_critical`` [s], ``energy_error``),
``..._release.csv`` (the releases' time series), each release's own recorded run
``DIR/<label>.csv`` (:func:`label`; :class:`fxrod.runs.simulation.Simulation`, with its
checkpoint ``DIR/<label>_checkpoint.npz``), ``..._tip.png``, ``..._shapes.png``,
``..._curvature.png``, ``..._energy.png``, ``ancf_graded_cantilever.png`` (snapshots,
deflection magnified) and ``ancf_graded_cantilever.pvd`` (ParaView frames of that release).

Summary keys: ``max_gap_tip``, ``max_gap_omega`` (largest relative gaps to linear theory),
``max_energy_error``. The checks fail if a gap exceeds :data:`TOL_LINEAR` or an energy error
:data:`TOL_ENERGY`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod.ancf import (
    ANCFBeam,
    CentralDifference,
    blog_beam,
    eigenfrequencies,
    energy_balance,
    relative_energy_error,
    solve_static,
)
from fxrod.ancf import linear_beam as lb
from fxrod.ancf.steppers import CentralDifferenceStepper
from fxrod.errors import CheckpointError, ConvergenceError, OutputError, ParameterError
from fxrod.output.history import History
from fxrod.output.paraview import PVDWriter
from fxrod.output.tables import CSVWriter, prepare_output_dir
from fxrod.runs.checkpoint import CHECKPOINT_NAME, companion_fingerprint, describe
from fxrod.runs.simulation import Interrupted, Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import wrote

NAME = "ancf_graded_cantilever"
#: The gradings ``(lam, n)`` (``n = 1`` for the uniform beam, where it is moot).
GRADINGS: list[tuple[float, float]] = [(0.0, 1.0), (0.3, 1.0), (0.3, 2.0), (0.6, 1.0),
                                       (0.6, 2.0)]
GRAVITY = 9.81  # [m/s^2]
TOL_LINEAR = 1e-4  # relative gap ANCF vs linear theory (geometric nonlinearity is ~2e-6)
TOL_ENERGY = 1e-6  # relative energy error of the explicit run
#: Elements of the explicit releases; snapshots per release.
N_ELEMENTS_DYNAMIC, N_FRAMES = 10, 6
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

OPTIONS = (
    Option("n_elements", 40, "-", "elements of the statics and the modes", bounds="[1, inf)"),
    Option("t_end", 0.5, "s", "length of the explicit releases", bounds="(0, inf)"),
    *RUN_CONTROL,
)


def run_grading(lam: float, n: float, n_elements: int, t_end: float,
                checkpoint_every: int = 0, restart: Path | None = None,
                directory: Path | None = None) -> dict:
    """Static, modal and explicit-dynamic results of one grading (serial, COMM_SELF); the
    release checkpointed into ``directory`` and restarted from ``restart`` (see
    :func:`release`)."""
    props = blog_beam(lam, n)
    beam = ANCFBeam(props, n_elements, gravity=(0.0, -GRAVITY))
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


def fingerprint(props, n_elements: int, t_end: float) -> dict[str, str]:
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


def release(lam: float, n: float, n_elements: int, t_end: float, checkpoint_every: int = 0,
            restart: Path | None = None, out: Path | None = None) -> dict:
    """The release of grading ``(lam, n)`` from the straight state under gravity: explicit central
    difference at 0.9 of the SLEPc stability limit over ``t_end`` [s] in :data:`N_FRAMES`
    chunks (a snapshot at each chunk's start and at the end), every ``every``-th step of a
    chunk recorded. A :class:`fxrod.runs.simulation.Simulation` of the
    :class:`fxrod.ancf.steppers.CentralDifferenceStepper` records it into ``out`` as
    ``DIR/<label>.csv`` (:func:`label`), checkpointed every ``checkpoint_every`` steps;
    ``restart``: continue from that checkpoint (the stored step and stability limit are
    used, so the steps are bitwise those of an uninterrupted run)."""
    props = blog_beam(lam, n)
    dyn = ANCFBeam(props, N_ELEMENTS_DYNAMIC, gravity=(0.0, -GRAVITY))
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


def label(lam: float, n: float) -> str:
    """Base name of the checkpoint of a grading, ``ancf_graded_cantilever_lam0.3_n2``."""
    return f"{NAME}_lam{lam:g}_n{n:g}"


def restart_file(restart, name: str, names: list[str]) -> Path | None:
    """The checkpoint of run ``name`` among the runs ``names`` of a case restarted from
    ``restart``: a directory gives its ``<name>_checkpoint.npz`` (None, a fresh start, if
    that run had not checkpointed; :class:`fxrod.errors.CheckpointError` if no run had);
    a file of run ``name`` (e.g. a ``.prev.npz``) is taken, a file of another run gives the
    checkpoint of ``name`` next to it (if any), a file of no run is taken for every run
    (and refused by its fingerprint)."""
    if restart is None:
        return None
    p = Path(restart)
    own = f"{name}_{CHECKPOINT_NAME}"
    if p.is_dir():
        if any((p / f"{n}_{CHECKPOINT_NAME}").is_file() for n in names):
            return p / own if (p / own).is_file() else None
        return p / own               # refused by the loader: no checkpoint in DIR
    if p.name.startswith(own.removesuffix(".npz")):
        return p
    if any(p.name.startswith(f"{n}_checkpoint") for n in names):
        return p.parent / own if (p.parent / own).is_file() else None
    return p


def raise_shared(err: BaseException | None, comm) -> None:
    """Raise on every rank of ``comm`` the error of the first rank that had one (collective;
    the ranks run different gradings): a rank's own error is re-raised, the others get a
    copy (message and attributes)."""
    if comm.size == 1:
        if err is not None:
            raise err
        return
    shared = comm.allgather(None if err is None else (type(err), vars(err), err.args))
    first = next((i for i, s in enumerate(shared) if s is not None), None)
    if first is None:
        return
    if first == comm.rank:
        raise err
    cls, attrs, args = shared[first]
    copy = cls.__new__(cls)
    copy.__dict__.update(attrs)
    copy.args = args
    raise copy


def run_all(n_elements: int, t_end: float, comm=MPI.COMM_WORLD, *, adaptive: bool = False,
            checkpoint_every: int = 0, restart: str | Path | None = None,
            out: Path | None = None) -> list[dict]:
    """Every grading, dealt round-robin to the ranks of ``comm``; the results in
    :data:`GRADINGS` order on rank 0 (empty elsewhere).

    Each rank checkpoints the releases of its gradings into ``out`` every
    ``checkpoint_every`` steps (one file per grading, so a restart works with any number of
    ranks) and restarts each from its checkpoint in ``restart`` (a grading without one
    starts afresh). A rank stopped by a signal, a failed write or step, or a refused
    checkpoint stops the others after their current grading: the error is raised on every
    rank.

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
        w = lb.deflection(blog_beam(res["lam"], res["n"]), res["x"][::8], g=GRAVITY)
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
    no effect: there is no progress bar), the gradings dealt to the ranks of ``comm``
    (None: ``MPI.COMM_WORLD``); ``control``: the :data:`fxrod.studies.cases.RUN_CONTROL` values
    (see :func:`run_all`)."""
    comm = MPI.COMM_WORLD if comm is None else comm
    return finish(run_all(n_elements, t_end, comm, out=out, **control), out, pictures, comm)


CASE = Case("ancf-graded-cantilever", "planar ANCF beam with axially graded stiffness under "
            "gravity, vs linear theory", OPTIONS, {"n_elements": 20, "t_end": 0.1}, run)
