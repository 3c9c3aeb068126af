"""Helpers shared by the cases of the registry: which states to keep for the pictures, the
numbers of a run's last row, the files a run wrote, and for a case of several runs dealt to
the ranks the checkpoint of each run and the errors shared between the ranks."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from fxrod.errors import CheckpointError, ConvergenceError, OutputError, ParameterError
from fxrod.runs.checkpoint import CHECKPOINT_NAME
from fxrod.runs.problem import Problem
from fxrod.runs.simulation import Interrupted, Simulation

#: Frames of an animation (at most).
MAX_FRAMES = 60


def frame_times(h: float, t_end: float, every: float | None = None,
                max_frames: int = MAX_FRAMES) -> list[float]:
    """Times at which a run keeps its centreline in memory for the pictures.

    Parameters
    ----------
    h : float
        Nominal step [s] (load-factor increment in statics).
    t_end : float
        End of the run [s].
    every : float, optional
        Keep the states at the multiples of ``every`` [s] (a snapshot figure).
    max_frames : int
        Also keep about ``max_frames`` states, every k-th step, for an animation (0: none).

    Returns
    -------
    list of float
        Sorted times [s] in ``[0, t_end]``.
    """
    n_steps = int(round(t_end / h))
    times = set()
    if max_frames > 0:
        k = max(1, (n_steps + 1) // max_frames)
        times |= {round(i * h, 12) for i in range(0, n_steps + 1, k)}
    if every is not None:
        times |= {round(float(t), 12) for t in np.arange(0.0, t_end + 1e-9, every)}
    return sorted(times)


def recorded(problem: Problem, out: Path | None, name: str, *, adaptive: bool = False,
             checkpoint_every: int = 0, restart: str | Path | None = None,
             **kwargs) -> Simulation:
    """The recorded run of a case: :class:`Simulation` over the problem's stepper
    (``adaptive`` switches adaptive steps on), with checkpoints every ``checkpoint_every``
    steps, continuing from ``restart`` (see :data:`fxrod.studies.cases.RUN_CONTROL`); ``kwargs``
    go to :class:`Simulation`."""
    integ = problem.integrator(adaptive=True) if adaptive else problem.integrator()
    return Simulation(integ, out, name, checkpoint_every=checkpoint_every, restart=restart,
                      **kwargs)


def restart_of(restart: str | Path | None, name: str) -> str | Path | None:
    """``restart`` for the run ``name`` of a case with several runs: a directory without a
    checkpoint of this run (it had not started) gives None, a fresh start."""
    if restart is None or not Path(restart).is_dir():
        return restart
    return restart if (Path(restart) / f"{name}_checkpoint.npz").exists() else None


def tip_path(sim: Simulation) -> np.ndarray:
    """Recorded tip positions ``(n_rows, 3)`` [m]."""
    return np.c_[sim.column("tip_1"), sim.column("tip_2"), sim.column("tip_3")]


def last_row(sim: Simulation, columns) -> dict[str, float]:
    """``{column: value}`` of the last recorded row, for the summary of a case."""
    row = sim.rows[-1]
    return {c: float(row[c]) for c in columns}


def output_files(sim: Simulation, *pictures: Path) -> list[Path]:
    """The files of a run on rank 0: its CSV, its internal forces at the snapshots and its
    ParaView collection (if any), and the given pictures that exist."""
    if sim.out_dir is None or sim.comm.rank != 0:
        return []
    files = [sim.out_dir / f"{sim.name}.csv"]
    forces = sim.out_dir / f"{sim.name}_internal_forces.csv"
    if forces.exists():
        files.append(forces)
    if sim.pvd is not None:
        files.append(sim.pvd.path)
    return files + [p for p in pictures if p.exists()]


def wrote(files: list[Path]) -> str:
    """``wrote DIR: a.csv, b.png`` (names relative to the first file's directory), or ""."""
    if not files:
        return ""
    d = files[0].parent
    return f"wrote {d}: " + ", ".join(os.path.relpath(f, d) for f in files)


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
    the ranks run different runs): a rank's own error is re-raised, the others get a copy
    (message and attributes)."""
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


def deal(names: list[str], run_one, comm, restart=None) -> list:
    """Run ``run_one(i, restart_i)`` for the runs ``names`` dealt round-robin to the ranks of
    ``comm`` (each run serial), ``restart_i`` the checkpoint of run i in ``restart``
    (:func:`restart_file`); the results in the order of ``names`` on rank 0 (empty
    elsewhere). A rank whose run is stopped (a signal, an unwritable file, a checkpoint that
    cannot be restarted, a failed solve, bad input found inside a run) runs no further run,
    and the error is raised on every rank (:func:`raise_shared`)."""
    mine, err = [], None
    for i, name in enumerate(names):
        if i % comm.size != comm.rank or err is not None:
            continue
        try:
            mine.append((i, run_one(i, restart_file(restart, name, names))))
        except (Interrupted, OutputError, CheckpointError, ConvergenceError, ParameterError) as e:
            err = e
    raise_shared(err, comm)
    gathered = comm.gather(mine, root=0)
    if comm.rank != 0:
        return []
    return [r for _, r in sorted((p for part in gathered for p in part), key=lambda p: p[0])]
