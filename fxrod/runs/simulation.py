"""A run: step a rod model, record its probes (time-series CSV), centreline snapshots and
ParaView frames. Only MPI rank 0 writes files. A controller on the actuation port
(:mod:`fxrod.runs.control`) and per-step callbacks with the full arrays
(:mod:`fxrod.runs.callbacks`)
run inside the same loop (serial runs). The stepper is a Cosserat
:class:`fxrod.runs.integrators.Integrator` or a companion formulation's
:class:`fxrod.solvers.stepper.CompanionStepper` (the planar ANCF beam's central difference, the
Hamel
lattice), recorded through the same probes, CSV, checkpoints, restart and signal handling.

Faults end a run with one line: a file that cannot be written (disk full, directory removed
or made read-only, handle error) raises :class:`fxrod.errors.OutputError` on every rank,
naming the path and the error, after the CSV has been cut back to its last complete row and
-- when checkpointing is on and space allows -- a checkpoint of the last good state has been
written; a checkpoint that cannot be restarted raises :class:`fxrod.errors.CheckpointError`.
"""

from __future__ import annotations

import contextlib
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod.errors import ConvergenceError, OutputError, ParameterError
from fxrod.output.history import History
from fxrod.output.paraview import PVDWriter, sample_dg1, sample_p2_curve
from fxrod.output.tables import (
    STANDARD_COLUMNS,
    STATIC_OMITTED,
    CSVWriter,
    LoadParameter,
    read_csv,
    truncate_csv,
    write_columns_json,
)
from fxrod.runs import checkpoint
from fxrod.runs.callbacks import ArrayRecorder, Callback, State
from fxrod.runs.checkpoint import CHECKPOINT_NAME
from fxrod.runs.control import Controller, ZeroOrderHold, actuation_port
from fxrod.runs.probes import default_probes
from fxrod.solvers.stepper import CompanionStepper, split_state

#: Columns of ``DIR/<name>_internal_forces.csv`` (one block of rows per snapshot time):
#: time [s], arc length [m], element index, material N [N], M [N m], spatial n [N], m [N m].
INTERNAL_FORCE_COLUMNS = ("t", "s", "element", "N_1", "N_2", "N_3", "M_1", "M_2", "M_3",
                          "n_1", "n_2", "n_3", "m_1", "m_2", "m_3")
#: Their units and meanings (``DIR/<name>_internal_forces_columns.json``).
INTERNAL_FORCE_UNITS = {"t": "s", "s": "m", "element": "-",
                        **{f"{k}_{i}": "N" if k in "Nn" else "N m"
                           for k in "NMnm" for i in (1, 2, 3)}}
INTERNAL_FORCE_MEANINGS = {
    "t": "snapshot time", "s": "arc length of the element end", "element": "element index",
    **{f"N_{i}": f"material force component {i} (1, 2 shear, 3 axial)" for i in (1, 2, 3)},
    **{f"M_{i}": f"material moment component {i} (1, 2 bending, 3 torsion)"
       for i in (1, 2, 3)},
    **{f"n_{i}": f"spatial force n = R N on [0, s] by the part beyond s, component {i}"
       for i in (1, 2, 3)},
    **{f"m_{i}": f"spatial moment m = R M, component {i}" for i in (1, 2, 3)}}



@contextlib.contextmanager
def caught_signals() -> Iterator[dict[str, int]]:
    """SIGINT and SIGTERM noted instead of acted on inside the block (main thread only:
    elsewhere nothing is installed): the yielded dict's ``"signal"`` is the number of the
    last one (0: none yet), for the caller to stop at a step boundary. The previous
    handlers are restored after the block."""
    stop = {"signal": 0}

    def handler(signum, frame):
        stop["signal"] = signum

    old = {}
    if threading.current_thread() is threading.main_thread():
        old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for s, h in old.items():
            signal.signal(s, h)

class Interrupted(RuntimeError):
    """The run was stopped by a signal at the end of a completed step."""

    def __init__(self, signum: int, t: float) -> None:
        self.signum = signum
        self.t = t
        super().__init__(f"stopped by signal {signum} after the step ending at t = {t:.6g}; "
                         "files closed, restart from the checkpoint to continue")

    def __reduce__(self):
        return type(self), (self.signum, self.t)


class Progress:
    """One-line progress display (rank 0, only on a terminal unless forced)."""

    def __init__(self, t_end: float, comm, quiet: bool = False, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.t_end = t_end
        self.on = (not quiet) and comm.rank == 0 and self.stream.isatty()
        self._last = 0.0

    def update(self, t: float, h: float, its: int) -> None:
        if not self.on:
            return
        now = time.monotonic()
        if now - self._last < 0.2 and t < self.t_end:
            return
        self._last = now
        frac = min(1.0, t / self.t_end) if self.t_end > 0 else 1.0
        bar = "#" * int(30 * frac)
        self.stream.write(f"\r[{bar:<30}] t = {t:.4g} / {self.t_end:.4g}  h = {h:.3g}  "
                          f"Newton {its}")
        self.stream.flush()

    def close(self) -> None:
        if self.on:
            self.stream.write("\n")


def _snapshot_key(t: float, wanted: list[float], h: float) -> float:
    """The key [s] of a snapshot taken at the step ending at ``t``: the requested time it
    lands on (up to the round-off of ``t = t_0 + n h``), else ``t`` to 12 significant
    digits (``3 * 0.3`` is 0.8999999999999999: the key is 0.9)."""
    for ts in wanted:
        if abs(t - ts) <= 1e-9 * h:
            return ts
    return float(f"{t:.12g}")


#: Which steps a run records (``record_every``) or writes to its CSV (``csv_every``):
#: every k-th step and the last one, or the steps ``n`` for which ``rule(n)`` is true.
StepRule = int | Callable[[int], bool]


def _check_rule(name: str, rule: StepRule) -> StepRule:
    """A :data:`StepRule` checked."""
    if callable(rule):
        return rule
    if isinstance(rule, bool) or not isinstance(rule, int | np.integer) or rule < 1:
        raise ParameterError(name, rule, "an integer >= 1 or a function step -> bool")
    return int(rule)


def _due(rule: StepRule, step: int, last: bool) -> bool:
    """Whether ``rule`` takes ``step`` (``last``: the run's last step)."""
    return bool(rule(step)) if callable(rule) else step % rule == 0 or last


class Simulation:
    """Run a stepper and record its output.

    Parameters
    ----------
    integrator : Integrator or fxrod.solvers.stepper.CompanionStepper
        Stepper: a Cosserat :class:`fxrod.runs.integrators.Integrator` (holds the model) or a
        companion formulation's stepper (:class:`fxrod.ancf.steppers.CentralDifferenceStepper`,
        :class:`fxrod.hamel.HamelStepper`), which names its own probes, fingerprint and
        centreline; a companion run takes no controller, callbacks or ParaView frames.
    out_dir : path-like or None
        Output directory (None: nothing is written, rows are kept in memory).
    name : str
        Base name of the files (``DIR/NAME.csv``, ``DIR/NAME.pvd``).
    snapshot_times : sequence of float
        Times [s] at which centrelines are kept for pictures (``snapshots``) and the stress
        resultants N(s), M(s), n(s), m(s) are written (``internal_forces`` and
        ``DIR/<name>_internal_forces.csv``): the recorded step nearest to each (within half
        a step), keyed by that step's time (the requested time where the step lands on it,
        else to 12 significant digits).
    paraview_every : int
        Write a ParaView frame every k steps (0: none): the centreline with the point data
        ``s`` [m], the directors ``d1, d2, d3`` and the spatial internal force ``n`` [N] and
        moment ``m`` [N m].
    probes : sequence of Probe
        Probes recorded in addition to :func:`fxrod.runs.probes.default_probes` (each declares
        its CSV columns with units; see :mod:`fxrod.runs.probes`).
    quiet : bool
        Suppress the progress bar.
    checkpoint_every : int
        Write a checkpoint every k steps, at the end and on failure/interrupt (0: never);
        the last two are kept (:mod:`fxrod.runs.checkpoint`). A companion stepper's state is
        saved as its scalars and arrays (:func:`fxrod.runs.checkpoint.save_arrays`).
    restart : path-like, optional
        Continue from the checkpoint in this directory (``DIR/<name>_checkpoint.npz``) or
        file; it must be of the same problem (:func:`fxrod.runs.checkpoint.fingerprint`). The
        CSV in ``out_dir`` is cut back to the checkpoint's step and its rows are read back
        (``rows``), the kept centrelines come from the checkpoint.
    keep_rows : bool
        Keep every row in memory (``rows``, ``column``); False keeps only the last one
        (long runs that write a CSV).
    load : fxrod.output.tables.LoadParameter, optional
        Quasi-static runs only: what ``t`` stands for (e.g. ``LoadParameter("tip force F",
        "N", 600.0)``: F = 600 N t); default the load factor t [-]. Written with the column
        units to ``DIR/<name>_columns.json`` and used by ``fxrod plot`` for its axis.
    controller : callable ``(t, y) -> forces``, optional
        Feedback on the model's actuators, called before every step with t_n [s] and the
        state y (:class:`fxrod.runs.callbacks.State`); its output [N] is held over the step
        (:mod:`fxrod.runs.control`). Serial runs without ``restart`` only.
    callbacks : sequence of Callback, ArrayRecorder or callable ``(t, state)``
        Called at step 0 and every ``every`` steps with the time [s] and the
        :class:`fxrod.runs.callbacks.State` (a plain callable: every step); an ArrayRecorder
        writes ``DIR/<name>_<recorder name>.npz`` when ``run`` returns or stops
        (:mod:`fxrod.runs.callbacks`). Serial runs without ``restart`` only.
    record_every : int or callable ``step -> bool``
        Record a row (probes, ``rows``) every k-th step and at the run's last step, or at
        the steps for which the function is true (the initial state is step 0).
    csv_every : int or callable ``step -> bool``
        Of the recorded rows, write to the CSV those of every k-th step and of the last
        step, or of the steps for which the function is true. Rows kept in memory but not
        written are saved in the checkpoint, so that a restart has them all.

    Attributes
    ----------
    columns : list of str
        CSV columns: the standard ones first (:data:`fxrod.output.tables.STANDARD_COLUMNS`), then
        the
        others in probe order. A quasi-static run leaves out
        :data:`fxrod.output.tables.STATIC_OMITTED` (kinetic energy, momenta, the ledger's flows and
        its balance residual, which have no static meaning; docs/output.md), while its
        rows in memory (``rows``, ``column``) keep every probe's value.
    units : dict of str to str
        SI unit of every column (``t`` and ``h``: ``"-"`` in a quasi-static run, the load
        factor and its increment).
    load : fxrod.output.tables.LoadParameter or None
        The load parameter of a quasi-static run (None in dynamics: ``t`` is time [s]).
    history : fxrod.output.history.History
        The recorded rows.
    snapshots : dict of float to ndarray
        Kept centrelines ``(n_nodes, 3)`` [m] (rank 0; empty arrays elsewhere) by the time
        [s] of their step; of a companion stepper, its :meth:`centreline` (positions [m]
        first, a Hamel lattice's directors after them).
    companion : bool
        Whether the stepper is a companion formulation's (no rod model: ``model`` is None).
    control : fxrod.runs.control.ZeroOrderHold or None
        The controller's hold (``control.history``: t_n and the forces of every call).
    callbacks : list of Callback or ArrayRecorder
        The run's callbacks.
    """

    def __init__(
        self,
        integrator,
        out_dir=None,
        name: str = "run",
        snapshot_times: Sequence[float] = (),
        paraview_every: int = 0,
        probes: Sequence = (),
        quiet: bool = True,
        checkpoint_every: int = 0,
        restart: str | Path | None = None,
        keep_rows: bool = True,
        load: LoadParameter | None = None,
        controller: Controller | None = None,
        callbacks: Sequence = (),
        record_every: StepRule = 1,
        csv_every: StepRule = 1,
    ) -> None:
        self.integ = integrator
        self.model = getattr(integrator, "model", None)
        self.companion = self.model is None
        if self.companion and not isinstance(integrator, CompanionStepper):
            raise ParameterError("integrator", type(integrator).__name__, "a fxrod "
                                 "Integrator or a fxrod.solvers.stepper.CompanionStepper")
        if self.companion and (controller is not None or callbacks or paraview_every):
            what = ("a controller" if controller is not None else "callbacks" if callbacks
                    else f"paraview_every = {paraview_every}")
            raise ParameterError("companion stepper", type(integrator).__name__,
                                 f"without {what} (controllers, callbacks and ParaView "
                                 "frames read a rod model's fields)")
        self.comm = integrator.comm if self.companion else self.model.comm
        self.name = name
        self.record_every = _check_rule("record_every", record_every)
        self.csv_every = _check_rule("csv_every", csv_every)
        self._t_end: float | None = None
        self._csv_rows = 0           # rows the CSV holds (or would, without out_dir)
        self._rows_in_csv = self.csv_every == 1     # else rows are checkpointed
        self.callbacks = self._check_callbacks(callbacks)
        if controller is not None or self.callbacks:
            what = "a controller" if controller is not None else "callbacks"
            if self.comm.size > 1:
                raise ParameterError("MPI size", self.comm.size, f"1 with {what} (they read "
                                     "the rod's arrays on one process)")
            if restart is not None:
                raise ParameterError("restart", str(restart), f"None with {what} (their own "
                                     "state is not checkpointed)")
        self.control = None if controller is None else ZeroOrderHold(controller, self.model)
        self._port = self.control.port if self.control is not None else (
            actuation_port(self.model) if self.callbacks else None)
        wanted = {f for c in self.callbacks for f in getattr(c, "fields", ())}
        if self._port is None and wanted & {"inputs", "port_outputs"}:
            raise ParameterError("ArrayRecorder fields", sorted(wanted), "without 'inputs' "
                                 "and 'port_outputs' on a model without actuators")
        static = bool(getattr(self.model, "quasistatic", False))   # a companion: False
        if load is not None and not isinstance(load, LoadParameter):
            raise ParameterError("load", load, "a fxrod.output.tables.LoadParameter or None")
        if load is not None and not static:
            raise ParameterError("load", load.label, "None for a dynamic model (t is the "
                                 "time [s]); a load parameter names t of a quasi-static run")
        self.load = (load or LoadParameter()) if static else None
        self.out_dir = None if out_dir is None else Path(out_dir)
        self.probes = (integrator.probes() if self.companion
                       else default_probes(self.model)) + list(probes)
        self.units = {"t": "s"}
        for pr in self.probes:
            for c, u in pr.columns.items():
                if c in self.units:
                    raise ParameterError("probe column", c, "declared by one probe only")
                self.units[c] = u
        if static:
            self.units.update(t="-", **({"h": "-"} if "h" in self.units else {}))
        # a companion's columns in its probes' order (the formulation's CSV contract)
        self.columns = [] if self.companion else [c for c in STANDARD_COLUMNS
                                                  if c in self.units]
        self.columns += [c for c in self.units if c not in self.columns]
        if static:
            self.columns = [c for c in self.columns if c not in STATIC_OMITTED]
        self.snapshot_times = sorted(float(t) for t in snapshot_times)
        self._taken: set[float] = set()   # snapshot times already served
        self.snapshots: dict[float, np.ndarray] = {}
        self.internal_forces: dict[float, np.ndarray] = {}
        self._internal_written = False
        self.history = History()
        self.keep_rows = bool(keep_rows)  # False: only the last row stays in memory
        self.quiet = quiet
        self.paraview_every = int(paraview_every)
        self.checkpoint_every = int(checkpoint_every)
        self.csv = None
        self.pvd = None
        self._io_error: OutputError | None = None   # rank 0: a failed write of this step
        self._fingerprint: dict | None = None
        self._row_missing = False    # restart: the checkpoint's own row is not in the CSV
        self._csv_t = float("nan")   # time of the last row written to the CSV
        self._checkpoint_t: float | None = None   # time of the last checkpoint written
        self._checkpoint_step: int | None = None   # and its step
        if isinstance(checkpoint_every, bool) or self.checkpoint_every < 0:
            raise ParameterError("checkpoint_every", checkpoint_every, "an integer >= 0")
        if (self.checkpoint_every or restart is not None) and self.out_dir is None:
            raise ParameterError("out_dir", None, "a directory when checkpointing/restarting")
        resumed_step = None
        if restart is not None:
            resumed_step = self._restore(restart)
        if self.out_dir is not None:
            from fxrod.output.tables import prepare_output_dir

            prepare_output_dir(self.out_dir, self.comm)
            csv_path = self.out_dir / f"{name}.csv"
            if resumed_step is not None:
                self._resume_files(csv_path, resumed_step)
            self.csv = self._rank0(lambda: CSVWriter(csv_path, self.columns, self.comm,
                                                     append=resumed_step is not None))
            # the units file (rank 0 writes; a failure is raised on every rank)
            self._rank0(lambda: None if self.comm.rank else write_columns_json(
                csv_path, {c: self.units[c] for c in self.columns},
                self.load))
            if self.paraview_every > 0:
                self.pvd = self._rank0(lambda: PVDWriter(
                    self.out_dir, name, active=self.comm.rank == 0,
                    resume_until=None if resumed_step is None else self.integ.t))
        if resumed_step is not None and not self.history.rows:
            self.history.append({"t": self.integ.t})  # marks the initial row as written

    @staticmethod
    def _check_callbacks(callbacks: Sequence) -> list:
        """The callbacks as Callback/ArrayRecorder objects (recorder names unique)."""
        out = [c if isinstance(c, Callback | ArrayRecorder) else Callback(c)
               for c in callbacks]
        names = [c.name for c in out if isinstance(c, ArrayRecorder)]
        if len(set(names)) < len(names):
            raise ParameterError("ArrayRecorder names", names, "unique (one file each)")
        return out

    def _rank0(self, make):
        """``make()`` whose file errors on rank 0 are raised on every rank."""
        obj, err = None, None
        try:
            obj = make()
        except OSError as e:
            err = e if isinstance(e, OutputError) else OutputError(self.out_dir, e)
        err = self.comm.bcast(err, root=0) if self.comm.size > 1 else err
        if err is not None:
            raise err
        return obj

    # ------------------------------------------------------------------ checkpoints
    @property
    def checkpoint_path(self) -> Path:
        return self.out_dir / f"{self.name}_{CHECKPOINT_NAME}"

    @property
    def fingerprint(self) -> dict[str, str]:
        """The problem's :func:`fxrod.runs.checkpoint.fingerprint` (collective on first use)."""
        if self._fingerprint is None:
            self._fingerprint = (self.integ.fingerprint() if self.companion
                                 else checkpoint.fingerprint(self.integ))
        return self._fingerprint

    def write_checkpoint(self) -> None:
        """Write the full state of the last completed step and the kept centrelines (rank 0
        writes one file; the previous checkpoint is kept, see :mod:`fxrod.runs.checkpoint`),
        unless the last checkpoint is of this step already.

        Raises
        ------
        fxrod.errors.OutputError
            On every rank if the file cannot be written.
        """
        if self._checkpoint_step == self.integ.step_count:
            return
        st = self.integ.get_state()
        run = dict(fingerprint=self.fingerprint, snapshots_taken=sorted(self._taken),
                   snapshot_t=list(self.snapshots), csv_rows=self._csv_rows)
        arrays = {"snapshots": np.array(list(self.snapshots.values()))}
        if not self._rows_in_csv:
            run["row_columns"], arrays["rows"] = _pack_rows(self.history)
        if self.companion:
            scalars, own = split_state(st)
            checkpoint.save_arrays(self.checkpoint_path, self.comm, {**scalars, **run},
                                   {**arrays, **{f"state_{k}": v for k, v in own.items()}})
        else:
            st.update(ledger=self.model.ledger.get_state(), **run)
            checkpoint.save(self.checkpoint_path, self.model, st, arrays)
        self._checkpoint_t = float(self.integ.t)
        self._checkpoint_step = self.integ.step_count

    def _restore(self, restart) -> int:
        path = Path(restart)
        if path.is_dir():
            path = path / f"{self.name}_{CHECKPOINT_NAME}"
        if self.companion:
            st = checkpoint.load_arrays(path, self.comm, self.fingerprint)
            self.integ.set_state(st | {k.removeprefix("state_"): v
                                       for k, v in st["arrays"].items()
                                       if k.startswith("state_")})
        else:
            st = checkpoint.load(path, self.model, self.fingerprint)
            self.integ.set_state(st)
            self.model.ledger.set_state(st["ledger"])
        self._csv_rows = int(st.get("csv_rows", self.integ.step_count + 1))
        if "rows" in st["arrays"]:     # rows kept in memory but not all in the CSV
            rows = _unpack_rows(st["row_columns"], st["arrays"]["rows"])
            for row in rows if self.keep_rows else rows[-1:]:
                self.history.append(row)
        self._taken = set(st.get("snapshots_taken", ()))
        self._checkpoint_t, self._checkpoint_step = self.integ.t, self.integ.step_count
        kept = st["arrays"].get("snapshots", np.empty((0, 0, 3)))
        for i, t in enumerate(st.get("snapshot_t", ())):
            self.snapshots[t] = kept[i] if self.comm.rank == 0 else np.empty((0, 3))
        return self.integ.step_count

    def _resume_files(self, csv_path: Path, step: int) -> None:
        """Cut the CSV back to the checkpoint's rows and read them back (rank 0 reads,
        every rank gets them; unless the rows come from the checkpoint); cut the internal
        forces after the checkpoint's time."""
        rows = None
        if self.comm.rank == 0:
            truncate_csv(csv_path, self._csv_rows)
            truncate_csv(self.out_dir / f"{self.name}_internal_forces.csv",
                         t_max=self.integ.t)
            data = read_csv(csv_path) if csv_path.exists() else {}
            n = len(next(iter(data.values()))) if data else 0
            first = 0 if self.keep_rows else max(0, n - 1)
            rows = ([{k: float(v[i]) for k, v in data.items()
                      if k in self.units and np.isfinite(v[i])} for i in range(first, n)], n)
        rows, n = self.comm.bcast(rows, root=0) if self.comm.size > 1 else rows
        if self._rows_in_csv:
            for row in rows:
                self.history.append(row)
        self._csv_t = float(rows[-1]["t"]) if rows else float("nan")
        self._row_missing = 0 < n < self._csv_rows
        self._internal_written = True             # append to the snapshot file

    # ------------------------------------------------------------------
    @property
    def rows(self) -> list[dict]:
        """The recorded rows (``history.rows``)."""
        return self.history.rows

    def _row(self, res=None) -> dict:
        row = {"t": self.integ.t}
        for pr in self.probes:
            row.update(pr(self, res))
        return row

    def _step_hooks(self, callbacks: bool, controls: bool) -> None:
        """At the end of a step (or at the start of the run): the callbacks due at this
        step (when ``callbacks``), then the controller for the next step (``controls``)."""
        step = self.integ.step_count
        due = [c for c in self.callbacks if step % c.every == 0] if callbacks else []
        if not (due or controls):
            return
        t = float(self.integ.t)
        state = State(self.model, t, self._port)
        for c in due:
            if isinstance(c, ArrayRecorder):
                c.step = step
            c(t, state)
        if controls:
            self.control(t, state)

    def _finish_callbacks(self) -> None:
        """Let every callback write its file (ArrayRecorder: the ``.npz``)."""
        for c in self.callbacks:
            c.finish(self.out_dir, self.name)

    def centreline(self):
        """Gathered nodal ``(s, q)`` on rank 0 (None elsewhere); of a companion stepper its
        :meth:`fxrod.solvers.stepper.CompanionStepper.centreline` (every rank)."""
        if self.companion:
            return self.integ.centreline()
        return self.model.nodes.gather_nodes()

    def _record(self, res=None) -> None:
        """Record the state of the last step: its row (if :attr:`record_every` takes the
        step; in the CSV if :attr:`csv_every` does too), snapshot and ParaView frame. A file
        that cannot be written is kept in ``_io_error`` (rank 0) for :meth:`_check_io`."""
        step = self.integ.step_count
        last = self._t_end is not None and abs(self.integ.t - self._t_end) <= 1e-12 * max(
            1.0, abs(self._t_end))
        if _due(self.record_every, step, last):
            row = self._row(res)
            if not self.keep_rows:
                self.history.rows.clear()
            self.history.append(row)
            if _due(self.csv_every, step, last):
                self._csv_rows += 1
                if self.csv is not None:
                    self._write(self.csv.write, row)
                    if self._io_error is None:
                        self._csv_t = float(row["t"])
        t = float(self.integ.t)
        h = self.integ.h
        want_snap = [ts for ts in self.snapshot_times
                     if ts not in self._taken and abs(t - ts) <= 0.5 * h * (1 + 1e-9)]
        if self.companion:
            if want_snap:
                self._taken.update(want_snap)
                c = self.integ.centreline()
                self.snapshots[_snapshot_key(t, want_snap, h)] = (
                    c.copy() if self.comm.rank == 0 else np.empty((0, c.shape[1])))
            return
        want_pvd = self.pvd is not None and self.integ.step_count % self.paraview_every == 0
        if not (want_snap or want_pvd):
            return
        g = self.centreline()  # collective: every rank takes the same branch
        self._taken.update(want_snap)
        if want_snap:
            t = _snapshot_key(t, want_snap, h)
            self.snapshots[t] = g[1][:, 0:3].copy() if g is not None else np.empty((0, 3))
            self._write(self._write_internal_forces, t, self.model.nodes.gather_stresses())
        st = self.model.nodes.gather_stresses() if want_pvd else None   # collective
        if want_pvd and g is not None:
            s, q = g
            ss, qq = sample_p2_curve(s, q)
            self._write(self.pvd.write, t, qq[:, 0:3], point_data={
                "s": ss, "d1": qq[:, 3:6], "d2": qq[:, 6:9], "d3": qq[:, 9:12],
                "n": sample_dg1(st[4]), "m": sample_dg1(st[5])})

    def _write(self, write, *args, **kwargs) -> None:
        """Call a file writer unless one already failed; keep its error."""
        if write is None or self._io_error is not None:
            return
        try:
            write(*args, **kwargs)
        except OSError as e:
            self._io_error = e if isinstance(e, OutputError) else OutputError(
                getattr(e, "filename", None) or self.out_dir, e)

    def _check_io(self, signum: int = 0) -> int:
        """Share a failed write of rank 0 and a received signal with every rank
        (collective); raise the write error after a last-good checkpoint. Returns the
        largest signal number received on any rank (0: none)."""
        if self.comm.size == 1 and self._io_error is None:
            return int(signum)          # nothing to share or raise (every step's case)
        flags = np.array([signum, self._io_error is not None], dtype=np.int64)
        if self.comm.size > 1:
            self.comm.Allreduce(MPI.IN_PLACE, flags, op=MPI.MAX)
        if not flags[1]:
            return int(flags[0])
        err = self.comm.bcast(self._io_error, root=0) if self.comm.size > 1 \
            else self._io_error
        kept = f"the CSV ends with the row of t = {self._csv_t:.6g}"
        if self.checkpoint_every:
            try:
                self.write_checkpoint()
                kept += f"; checkpoint of t = {self.integ.t:.6g} in {self.checkpoint_path}"
            except OutputError as e2:
                kept += f"; no new checkpoint ({str(e2).split(': ', 1)[-1]})"
                if self._checkpoint_t is not None:
                    kept += (f", the one of t = {self._checkpoint_t:.6g} is kept in "
                             f"{self.checkpoint_path}")
        raise err.with_kept(kept)

    def _write_internal_forces(self, t: float, st) -> None:
        """Keep the stress resultants of a snapshot (``internal_forces[t]``) and append them
        to ``DIR/<name>_internal_forces.csv`` (columns :data:`INTERNAL_FORCE_COLUMNS`)."""
        if st is None:       # not the root rank
            return
        s, elem, N, M, n, m = st
        table = np.column_stack([np.full(s.size, t), s, elem, N, M, n, m])
        self.internal_forces[t] = table
        if self.out_dir is None:
            return
        path = self.out_dir / f"{self.name}_internal_forces.csv"
        new = not (path.exists() and self._internal_written)
        with open(path, "w" if new else "a") as fh:
            if new:
                fh.write(",".join(INTERNAL_FORCE_COLUMNS) + "\n")
                write_columns_json(path, INTERNAL_FORCE_UNITS, meanings=INTERNAL_FORCE_MEANINGS)
            np.savetxt(fh, table, delimiter=",", fmt="%.17g")
        self._internal_written = True

    def run(self, t_end: float) -> list[dict]:
        """Record the initial state, step to ``t_end`` recording every step; return rows.

        SIGINT and SIGTERM stop the run at the end of the current step: the files are
        closed (and a checkpoint written when checkpointing is on), then ``Interrupted``
        is raised. A step that fails writes a checkpoint of the last good state first.
        After each recorded row the callbacks due at that step run, then the controller
        sets the inputs of the next step (if there is one); array recorders write their
        files when the run returns or stops.
        """
        if not (isinstance(t_end, int | float) and math.isfinite(t_end)) or t_end < 0:
            raise ParameterError("t_end", t_end, ">= 0 and finite")
        progress = Progress(t_end, self.comm, quiet=self.quiet)
        self._t_end = float(t_end)
        try:
            with caught_signals() as stop:
                self._run_steps(t_end, progress, stop)
        finally:
            if self.control is not None:
                self.control.release()   # the open-loop model again (run() may continue)
        self._finish_callbacks()
        return self.rows

    def _run_steps(self, t_end: float, progress: Progress, stop: dict[str, int]) -> None:
        """:meth:`run`'s steps; ``stop["signal"]``: a signal caught meanwhile (0: none)."""
        # advance_to steps while t < t_end - eps: the controller is called exactly then
        eps = 1e-12 * max(1.0, abs(t_end))
        control = self.control is not None
        try:
            if not self.rows or self._row_missing:
                self._row_missing = False
                self._record(None)
                self._check_io()
                self._step_hooks(True, control and self.integ.t < t_end - eps)
            elif control and self.integ.t < t_end - eps:
                self._step_hooks(False, True)    # a continued run: the next step's input

            def cb(integ, res):
                self._record(res)
                progress.update(integ.t, res.h, res.newton_its)
                flag = self._check_io(stop["signal"])
                if self.checkpoint_every and integ.step_count % self.checkpoint_every == 0:
                    self.write_checkpoint()
                self._step_hooks(True, control and not flag and integ.t < t_end - eps)
                if flag:
                    if self.checkpoint_every:
                        self.write_checkpoint()
                    raise Interrupted(flag, integ.t)

            try:
                self.integ.advance_to(t_end, cb)
            except ConvergenceError:
                if self.checkpoint_every:
                    self.write_checkpoint()
                raise
            if self.checkpoint_every:
                self.write_checkpoint()
        except BaseException:
            self.close()  # what was written stays readable
            with contextlib.suppress(OSError):
                self._finish_callbacks()   # the arrays up to the last completed step
            raise
        finally:
            progress.close()

    def close(self) -> None:
        """Close the CSV (rows are flushed as written; ``run`` may be called again
        before closing to continue the same run)."""
        if self.csv is not None:
            self.csv.close()

    def __enter__(self) -> Simulation:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def column(self, name: str) -> np.ndarray:
        """One recorded column as an array."""
        return self.history.column(name)


def _pack_rows(history: History) -> tuple[dict, np.ndarray]:
    """Rows for a checkpoint: their columns (and which hold integers) and one float array
    (NaN where a row has no value)."""
    columns = history.columns
    ints = sorted({c for r in history.rows for c, v in r.items()
                   if isinstance(v, int | np.integer)})
    rows = np.array([[float(r.get(c, np.nan)) for c in columns] for r in history.rows])
    return {"columns": columns, "int_columns": ints}, rows.reshape(len(history.rows), -1)


def _unpack_rows(columns: dict, rows: np.ndarray) -> list[dict]:
    """The rows of :func:`_pack_rows` (the same values, integers as integers)."""
    ints = set(columns["int_columns"])
    return [{c: int(v) if c in ints else float(v)
             for c, v in zip(columns["columns"], row, strict=True) if not np.isnan(v)}
            for row in rows]
