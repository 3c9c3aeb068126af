"""Checkpoints, restart and signals of the companion cases (ANCF, Hamel), whose steppers are
not :class:`fxrod.integrators.Integrator`: the same guarantees as
:class:`fxrod.simulation.Simulation` through the same machinery.

A :class:`Checkpoints` object is told after every step (:meth:`Checkpoints.after_step`); it
writes the stepper's state with :func:`fxrod.checkpoint.save_arrays` every ``every`` steps,
at the end (:meth:`Checkpoints.finish`) and before a failed step is re-raised
(:meth:`Checkpoints.failed`), keeping the last two; SIGINT/SIGTERM stop the run at the end
of the current step (after a checkpoint) with :class:`fxrod.simulation.Interrupted`, which
:func:`fxrod.cases.exit_on_signal` turns into the exit status ``128 + signal``. A restart
(:meth:`Checkpoints.restore`) refuses a missing, damaged or foreign checkpoint with one
:class:`fxrod.errors.CheckpointError` line (exit status 2).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod import checkpoint
from fxrod.checkpoint import CHECKPOINT_NAME
from fxrod.errors import ParameterError
from fxrod.history import History
from fxrod.simulation import Interrupted

#: A stepper's state for a checkpoint: its scalars (JSON) and its arrays.
State = tuple[dict, dict]


class Checkpoints:
    """Checkpoints of one companion run ``DIR/<name>_checkpoint.npz`` (collective over
    ``comm``, whose ranks step alike; rank 0 writes).

    Parameters
    ----------
    out : path-like or None
        Output directory (needed when ``every > 0`` or when restarting).
    name : str
        Base name of the checkpoint file.
    comm : mpi4py communicator
        Ranks that run the same steps (``MPI.COMM_SELF`` for a serial run of one rank).
    fingerprint : dict of str to str
        :func:`fxrod.checkpoint.companion_fingerprint` of the problem.
    every : int
        Checkpoint every ``every`` steps, at the end and on failure/interrupt (0: never).
    """

    def __init__(self, out, name: str, comm, fingerprint: dict[str, str],
                 every: int = 0) -> None:
        if isinstance(every, bool) or not isinstance(every, int | np.integer) or every < 0:
            raise ParameterError("checkpoint_every", every, "an integer >= 0")
        if every and out is None:
            raise ParameterError("out_dir", None, "a directory when checkpointing/restarting")
        self.path = None if out is None else Path(out) / f"{name}_{CHECKPOINT_NAME}"
        self.comm = comm
        self.fingerprint = fingerprint
        self.every = int(every)
        self._saved_step: int | None = None
        self._signal = 0

    def restore(self, restart) -> dict:
        """The scalars and ``"arrays"`` of the checkpoint ``restart`` (a file, or a
        directory holding ``<name>_checkpoint.npz``) of this problem.

        Raises
        ------
        fxrod.errors.CheckpointError
            One line, if it is missing, truncated, corrupt or of another problem.
        """
        if self.path is None:
            raise ParameterError("out_dir", None, "a directory when checkpointing/restarting")
        path = Path(restart)
        if path.is_dir():
            path = path / self.path.name
        st = checkpoint.load_arrays(path, self.comm, self.fingerprint)
        self._saved_step = int(st["step"])
        return st

    def save(self, step: int, state: Callable[[], State]) -> None:
        """Write the state of step ``step`` (unless it is saved already)."""
        if self._saved_step == step:
            return
        scalars, arrays = state()
        scalars = {**scalars, "step": step, "fingerprint": self.fingerprint}
        checkpoint.save_arrays(self.path, self.comm, scalars, arrays)
        self._saved_step = step

    def after_step(self, step: int, t: float, state: Callable[[], State]) -> None:
        """After the accepted step ``step`` (ending at ``t`` [s]): checkpoint every
        ``every`` steps; stop with :class:`Interrupted` if a signal came (on any rank)."""
        sig = self._signal
        if self.comm.size > 1:
            sig = self.comm.allreduce(sig, op=MPI.MAX)
        if self.every and (step % self.every == 0 or sig):
            self.save(step, state)
        if sig:
            raise Interrupted(sig, t)

    def failed(self, step: int, state: Callable[[], State]) -> None:
        """A step failed: checkpoint the last good state (the caller re-raises)."""
        if self.every:
            self.save(step, state)

    finish = failed

    def __enter__(self) -> Checkpoints:
        self._old = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handler)
        return self

    def _handler(self, signum, frame) -> None:
        self._signal = signum

    def __exit__(self, *exc) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)


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
    for ranks that run different work, e.g. the gradings of a case): a rank's own error is
    re-raised, the others get a copy (message and attributes)."""
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


def pack_history(history: History) -> tuple[dict, np.ndarray]:
    """A history for a checkpoint: its columns (and which hold integers) and its rows as
    one float array (every row has every column)."""
    first = history.rows[0] if history.rows else {}
    ints = [c for c, v in first.items() if isinstance(v, int | np.integer)]
    rows = np.array([[float(v) for v in r.values()] for r in history.rows])
    return {"columns": history.columns, "int_columns": ints}, rows


def unpack_history(scalars: dict, rows: np.ndarray) -> History:
    """The history of :func:`pack_history` (the same values, integers as integers)."""
    ints = set(scalars["int_columns"])
    return History({c: int(v) if c in ints else float(v)
                    for c, v in zip(scalars["columns"], row, strict=True)} for row in rows)
