"""Parameter studies of a case: MPI groups, dynamic dealing, resumable records.

:func:`run_sweep` runs the points of a :class:`fxrod.studies.sweep_plan.Plan` (one case, values of
its options: a registered case, a user's :class:`fxrod.studies.cases.Case`, or a user's function
returning a :class:`fxrod.runs.problem.Problem`, :func:`fxrod.studies.sweep_plan.find_case`).
``MPI.COMM_WORLD`` is split into groups of ``ranks_per_case`` consecutive ranks; each point
runs on its group's communicator (``Case.run(comm=...)``).
World rank 0 deals the points: a thread of it answers the group leaders' requests (mpi4py
messages on a duplicate of the world communicator), so a group that finishes gets the next
point at once and long and short points mix well; on one group the points simply run in
order.

Output directory ``DIR``:

* ``DIR/sweep.json``: the plan (case, quick, points);
* ``DIR/case_NNNN/``: the files of point NNNN (its CSV, ...) and ``case.json``, written as
  soon as the point ends: its parameters and all option values, ``status``, ``reason``,
  ``summary`` (:attr:`fxrod.studies.cases.Result.summary`), ``wall_time`` [s], ``group`` and the
  world ``ranks`` of the group;
* ``DIR/sweep_<case>.csv`` (and ``.parquet`` where pyarrow is importable): one row per point
  (:func:`write_table`).

Status of a point: ``done``; ``failed`` (an exception: its type and message; or the case's
own checks failed: :attr:`fxrod.studies.cases.Result.failure`), the sweep goes on; ``interrupted``
(SIGTERM/SIGINT); ``pending`` (not started). SIGTERM/SIGINT stop every group at the end of
its current step with a checkpoint (stepped cases: the sweep passes ``checkpoint_every``);
the groups take no new point. ``resume`` skips the done and failed points and continues the
others, from their checkpoint where one was written.

Ensembles (``ensemble=B``, ``fxrod sweep ... --ensemble B``): for a case with ensemble
options (:attr:`fxrod.studies.cases.Case.ensemble_options`) and a plan that varies only them
(:func:`fxrod.studies.sweep_plan.ensemble_split`), the dealer hands out batches of up to B points
(at most an equal share of the points of each group, so that every group gets work) and each
group runs a batch as ONE :class:`fxrod.runs.ensemble.Ensemble` on its single rank
(``ranks_per_case`` must be 1; the chain solver is serial): :func:`run_batch`. Every point
of the batch gets its directory, its CSV (the case's per-member columns) and its
``case.json`` as above, with ``wall_time`` the batch's wall time divided by its number of
points, plus ``batch`` (the indices run together) and ``batch_wall_time`` [s]. A batch is
the unit of interruption: SIGTERM/SIGINT stop it at the end of a step and all its points
are recorded ``interrupted`` (no checkpoint: ``resume`` runs them again from t = 0). A batch
whose joint Newton solve fails is run again point by point (the plain path), so that only
the failing points are recorded ``failed``; their records carry ``batch_failure``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from mpi4py import MPI

from fxrod.errors import ParameterError, check_int_min
from fxrod.output.tables import CSVWriter, prepare_output_dir
from fxrod.runs.simulation import Interrupted, caught_signals
from fxrod.studies.cases import Case
from fxrod.studies.sweep_plan import Plan, ensemble_split, plan_case

#: Points that a resumed sweep does not run again.
FINISHED = ("done", "failed")
#: Polling interval of the dealer's messages [s].
POLL = 2e-3
#: Default interval of the points' checkpoints [steps] (and one at every stop).
CHECKPOINT_EVERY = 100


@dataclass
class SweepResult:
    """The outcome of :func:`run_sweep`.

    Attributes
    ----------
    rows : list of dict
        The table (rank 0; empty elsewhere), one row per point.
    table : Path or None
        ``DIR/sweep_<case>.csv`` (rank 0).
    signal : int
        The signal that stopped the sweep (0: none).
    """

    rows: list[dict] = field(default_factory=list)
    table: Path | None = None
    signal: int = 0

    @property
    def counts(self) -> dict[str, int]:
        """Points by status."""
        out: dict[str, int] = {}
        for r in self.rows:
            out[r["status"]] = out.get(r["status"], 0) + 1
        return out


def _wait(req, status: MPI.Status | None = None):
    """Complete an mpi4py request by polling (the GIL is free in between)."""
    while True:
        done, msg = req.test(status)
        if done:
            return msg
        time.sleep(POLL)


class Dealer:
    """Deals the indices of ``todo`` to the groups, the next one to the next asking leader.

    With several groups, world rank 0 runs :meth:`_serve` in a thread (MPI must provide
    ``MPI_THREAD_MULTIPLE``, mpi4py's default); with one group the indices are taken in
    order. Collective on ``world`` (construction and :meth:`close`).
    """

    ASK, REPLY = 11, 12

    def __init__(self, world, todo: list[int], n_groups: int) -> None:
        self.todo = list(todo)
        self.n_groups = n_groups
        self._next = 0
        self.comm = world.Dup()
        self._thread = None
        if world.rank == 0 and n_groups > 1:
            if MPI.Query_thread() < MPI.THREAD_MULTIPLE:
                raise RuntimeError("the sweep's dealer needs MPI_THREAD_MULTIPLE")
            self._thread = threading.Thread(target=self._serve, daemon=True)
            self._thread.start()

    def ask(self, stop: bool) -> int | None:
        """The next index for the asking group leader (None: no more, or ``stop``)."""
        if self.n_groups == 1:
            if stop or self._next >= len(self.todo):
                return None
            self._next += 1
            return self.todo[self._next - 1]
        _wait(self.comm.isend(stop, dest=0, tag=self.ASK))
        return _wait(self.comm.irecv(source=0, tag=self.REPLY))

    def _serve(self) -> None:
        """Answer every leader until each has been told that there is nothing left."""
        finished = 0
        while finished < self.n_groups:
            st = MPI.Status()
            stop = _wait(self.comm.irecv(source=MPI.ANY_SOURCE, tag=self.ASK), st)
            idx = None
            if not stop and self._next < len(self.todo):
                idx, self._next = self.todo[self._next], self._next + 1
            finished += idx is None
            _wait(self.comm.isend(idx, dest=st.Get_source(), tag=self.REPLY))

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join()
        self.comm.Free()


def case_dir(out: Path, index: int) -> Path:
    """Directory of point ``index``."""
    return Path(out) / f"case_{index:04d}"


def read_record(out: Path, index: int) -> dict | None:
    """The ``case.json`` of point ``index`` (None if absent or unreadable)."""
    try:
        return json.loads((case_dir(out, index) / "case.json").read_text())
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: dict) -> None:
    """Write ``data`` atomically (temporary file, then rename)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def _prepare(plan: Plan, out: Path, resume: bool, world) -> list[int]:
    """Rank 0 compares the plan with ``DIR/sweep.json`` (``resume``) and writes it; every
    rank gets the indices to run (resume: those not finished)."""
    todo: list[int] | str = list(range(len(plan.points)))
    if world.rank == 0:
        path = out / "sweep.json"
        stored = None
        if resume and path.exists():
            stored = Plan.from_json(json.loads(path.read_text()))
        if stored is not None and stored != plan:
            todo = (f"invalid resume = {str(out)!r}: must be a sweep of the same case and "
                    f"points (it holds {stored.case}, {len(stored.points)} points "
                    f"{stored.names}); use another --out")
        else:
            _write_json(path, plan.to_json())
            if resume:
                todo = [i for i in todo
                        if (read_record(out, i) or {}).get("status") not in FINISHED]
    todo = world.bcast(todo, root=0) if world.size > 1 else todo
    if isinstance(todo, str):
        raise ValueError(todo)
    return todo


def _has_checkpoint(d: Path, group) -> bool:
    """Whether ``d`` holds a checkpoint (rank 0 of ``group`` looks)."""
    found = group.rank == 0 and any(d.glob("*_checkpoint.npz"))
    return group.bcast(found, root=0) if group.size > 1 else found


def run_point(case: Case, plan: Plan, index: int, out: Path, group, group_id: int,
              ranks: tuple[int, int], *, resume: bool = False,
              checkpoint_every: int = CHECKPOINT_EVERY, pictures: bool = False,
              extra: dict | None = None) -> dict:
    """Run point ``index`` on ``group`` and write its ``case.json`` at once (rank 0 of the
    group); every exception is recorded, :class:`fxrod.runs.simulation.Interrupted` as
    ``interrupted``; ``extra`` entries are added to the record. Returns the record (with
    ``signal``, not written)."""
    d = prepare_output_dir(case_dir(out, index), group)   # the record's home, even if the
    values = dict(plan.points[index])                     # case fails before writing
    names = {o.name for o in case.options}
    if "checkpoint_every" in names:
        values.setdefault("checkpoint_every", checkpoint_every)
    restarted = resume and "restart" in names and _has_checkpoint(d, group)
    if restarted:
        values["restart"] = str(d)
    summary, reason, signum = {}, "", 0
    t0 = time.perf_counter()
    try:
        res = case.run(d, plan.quick, pictures=pictures, quiet=True,    # no comm: 1 rank
                       comm=group if case.takes_comm else None, **values)
        status, reason, summary = ("done" if res.ok else "failed"), res.failure, res.summary
    except Interrupted as err:
        status, reason, signum = "interrupted", str(err), err.signum
    except Exception as err:  # noqa: BLE001  (every failure is recorded, the sweep goes on)
        status, reason = "failed", f"{type(err).__name__}: {err}".replace("\n", " ")
    wall = time.perf_counter() - t0
    wall = group.allreduce(wall, op=MPI.MAX) if group.size > 1 else wall
    record = {"index": index, "case": case.name, "quick": plan.quick,
              "params": plan.points[index],
              "values": case.values(plan.quick, **{k: v for k, v in values.items()
                                                   if k != "restart"}),
              "status": status, "reason": reason,
              "summary": {k: float(v) for k, v in summary.items()},
              "wall_time": wall, "group": group_id, "ranks": list(ranks),
              "restarted": restarted, **(extra or {})}
    if group.rank == 0:
        _write_json(d / "case.json", record)
    return record | {"signal": signum}


def run_batch(case: Case, plan: Plan, batch: list[int], out: Path, group, group_id: int,
              ranks: tuple[int, int], common: dict, members: list[dict], *,
              checkpoint_every: int = CHECKPOINT_EVERY, pictures: bool = False) -> list[dict]:
    """Run the points ``batch`` as one ensemble on ``group`` (one rank) and write their
    ``case.json`` files (:meth:`fxrod.studies.cases.Case.run_ensemble` with the shared values
    ``common`` and the points' ensemble options ``members[i]``). ``wall_time`` of each
    point is the batch's divided by its size. A failed batch of several points runs again
    point by point (:func:`run_point` with ``checkpoint_every`` and ``pictures``). Returns
    the records (with ``signal``, not written)."""
    dirs = [prepare_output_dir(case_dir(out, i), group) for i in batch]
    results, reason, signum = [], "", 0
    t0 = time.perf_counter()
    try:
        results = case.run_ensemble(dirs, [members[i] for i in batch], plan.quick,
                                    quiet=True, comm=group, **common)
        status = "done"
    except Interrupted as err:
        status, signum = "interrupted", err.signum
        reason = (f"batch stopped by signal {err.signum} after the step ending at "
                  f"t = {err.t:.6g}; resume runs it again from t = 0")
    except Exception as err:  # noqa: BLE001  (every failure is recorded, the sweep goes on)
        status, reason = "failed", f"{type(err).__name__}: {err}".replace("\n", " ")
    wall = time.perf_counter() - t0
    if status == "failed" and len(batch) > 1:
        return [run_point(case, plan, i, out, group, group_id, ranks,
                          checkpoint_every=checkpoint_every, pictures=pictures,
                          extra={"batch_failure": reason}) for i in batch]
    records = []
    for k, i in enumerate(batch):
        res = results[k] if results else None
        record = {"index": i, "case": case.name, "quick": plan.quick,
                  "params": plan.points[i], "values": case.values(plan.quick, **plan.points[i]),
                  "status": status if res is None or res.ok else "failed",
                  "reason": reason if res is None else res.failure,
                  "summary": {} if res is None else {key: float(v) for key, v in
                                                     res.summary.items()},
                  "wall_time": wall / len(batch), "group": group_id, "ranks": list(ranks),
                  "restarted": False, "batch": list(batch), "batch_wall_time": wall}
        if group.rank == 0:
            _write_json(dirs[k] / "case.json", record)
        records.append(record | {"signal": signum})
    return records


def batches(todo: list[int], size: int, n_groups: int) -> list[list[int]]:
    """``todo`` in consecutive batches of at most ``size`` points and at most an equal
    share of each of the ``n_groups`` groups."""
    b = max(1, min(size, -(-len(todo) // n_groups)))
    return [todo[i:i + b] for i in range(0, len(todo), b)]


def _point_units(out: Path, n_points: int) -> dict[str, str]:
    """Units of the columns the first point with CSVs declares (their ``_columns.json``):
    the units of the summary keys named like a column (``H``, ``tip_1``, ...); the others
    are "?" in the table's units file (a case names their units only in its module's text)."""
    units: dict[str, str] = {}
    for i in range(n_points):
        for j in sorted(case_dir(out, i).glob("*_columns.json")):
            try:
                doc = json.loads(j.read_text())
                for k, u in doc["units"].items():
                    units.setdefault(k, u)
            except (OSError, ValueError, KeyError, AttributeError):
                continue
        if units:
            break
    return units


def _unit_of(key: str, units: dict[str, str]) -> str:
    """Unit of a summary key: that of the column of its name, or of ``max_<column>`` /
    ``min_<column>``'s column; "?" if none."""
    for name in (key, key.removeprefix("max_"), key.removeprefix("min_")):
        if name in units:
            return units[name]
    return "?"


def write_table(plan: Plan, out: Path) -> tuple[list[dict], Path]:
    """The table of the sweep from the points' records: ``index``, the parameters,
    ``status``, the summary numbers (every key any point declared), ``wall_time`` [s],
    ``group``, ``ranks`` (``first-last``), ``reason``; written to ``DIR/sweep_<case>.csv``
    and, where pyarrow is importable, ``.parquet``. Booleans are written as 0/1."""
    rows, keys = [], {}
    for i, point in enumerate(plan.points):
        rec = read_record(out, i) or {"status": "pending"}
        keys.update(dict.fromkeys(rec.get("summary", {})))
        ranks = rec.get("ranks")
        rows.append({"index": i, **{k: int(v) if isinstance(v, bool) else v
                                    for k, v in point.items()},
                     "status": rec["status"], **rec.get("summary", {}),
                     "wall_time": rec.get("wall_time", ""), "group": rec.get("group", ""),
                     "ranks": f"{ranks[0]}-{ranks[1]}" if ranks else "",
                     "reason": rec.get("reason", "")})
    cols = ["index", *plan.names, "status", *keys, "wall_time", "group", "ranks", "reason"]
    case = plan_case(plan)
    path = Path(out) / f"sweep_{case.name}.csv"
    opts = {o.name: o for o in case.options}
    found = _point_units(out, len(plan.points))
    units = {"index": "-", **{n: opts[n].unit if n in opts else "-" for n in plan.names},
             "status": "-", **{k: _unit_of(k, found) for k in keys}, "wall_time": "s",
             "group": "-", "ranks": "-", "reason": "-"}
    meanings = {"index": "point number (its directory case_NNNN)",
                **{n: f"swept option: {opts[n].help}" if n in opts else "swept option"
                   for n in plan.names},
                "status": "done, failed, interrupted or pending",
                **{k: "summary value of the point" + ("" if _unit_of(k, found) != "?" else
                                                      " (unit: the case module's summary keys)")
                   for k in keys},
                "wall_time": "wall time of the point (largest over its group's ranks)",
                "group": "rank group that ran it", "ranks": "world ranks of that group",
                "reason": "why it failed or stopped"}
    with CSVWriter(path, cols, units=units, meanings=meanings) as w:
        for r in rows:
            w.write({c: r.get(c, "") for c in cols})
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return rows, path
    pq.write_table(pa.Table.from_pylist([{c: r.get(c) for c in cols} for r in rows]),
                   path.with_suffix(".parquet"))
    return rows, path


def groups(world, ranks_per_case: int) -> tuple[int, int]:
    """``(number of groups, this rank's group)`` of ``ranks_per_case`` consecutive ranks.

    Raises
    ------
    ParameterError
        Unless ``ranks_per_case`` is an integer >= 1 dividing the world size.
    """
    k = check_int_min("ranks_per_case", ranks_per_case, 1)
    if world.size % k:
        raise ParameterError("ranks_per_case", k, f"a divisor of the {world.size} MPI ranks")
    return world.size // k, world.rank // k


def run_sweep(plan: Plan, out, *, comm=None, ranks_per_case: int = 1, resume: bool = False,
              checkpoint_every: int = CHECKPOINT_EVERY, pictures: bool = False,
              quiet: bool = False, ensemble: int = 0) -> SweepResult:
    """Run every point of ``plan`` on groups of ``ranks_per_case`` ranks; write the table.

    Parameters
    ----------
    plan : Plan
        The case and its points (:func:`fxrod.studies.sweep_plan.make_plan`).
    out : path-like
        Output directory ``DIR`` (created).
    comm : mpi4py communicator, optional
        The ranks of the sweep (default ``MPI.COMM_WORLD``).
    ranks_per_case : int
        Ranks of each group (a divisor of the size of ``comm``).
    resume : bool
        Skip the finished points of ``DIR`` (same plan required), continue the others from
        their checkpoints.
    checkpoint_every : int
        Checkpoint interval [steps] of stepped cases (0: none, then a stopped point starts
        afresh on resume); a point that sets the option itself keeps its value.
    pictures : bool
        Let the cases draw their pictures.
    quiet : bool
        No line per point and no summary line.
    ensemble : int
        Run up to this many points at a time as one ensemble per group (0: every point
        alone); see the module's notes.

    Raises
    ------
    ParameterError
        Before any point runs: bad ``ranks_per_case``/``checkpoint_every``/``ensemble``, an
        unwritable ``DIR``, a case without ``comm`` support on more than one rank; with
        ``ensemble``: ``ranks_per_case`` > 1, a case without ensemble options, or a plan
        that varies another option (:func:`fxrod.studies.sweep_plan.ensemble_split`).
    ValueError
        ``resume`` of a directory holding another plan.
    """
    world = MPI.COMM_WORLD if comm is None else comm
    case = plan_case(plan)
    if check_int_min("ensemble", ensemble, 0) and ranks_per_case != 1:
        raise ParameterError("ranks_per_case", ranks_per_case, "1 with --ensemble (an "
                             "ensemble runs on one rank)")
    n_groups, gid = groups(world, ranks_per_case)
    check_int_min("checkpoint_every", checkpoint_every, 0)
    if world.size > 1 and not case.takes_comm:
        raise ParameterError("case", case.name, "a case whose run() takes a comm keyword "
                             "(needed on more than one MPI rank)")
    common, members = ensemble_split(case, plan) if ensemble else ({}, [])
    out = prepare_output_dir(out, world)
    todo = _prepare(plan, out, resume, world)
    work = batches(todo, ensemble, n_groups) if ensemble else todo
    t0 = time.perf_counter()
    group = world.Split(color=gid, key=world.rank)
    ranks = (gid * ranks_per_case, (gid + 1) * ranks_per_case - 1)
    dealer = Dealer(world, work, n_groups)
    with caught_signals() as stop:
        try:
            while True:
                sig = group.allreduce(stop["signal"], op=MPI.MAX) if group.size > 1 \
                    else stop["signal"]
                item = dealer.ask(bool(sig)) if group.rank == 0 else None
                item = group.bcast(item, root=0) if group.size > 1 else item
                if item is None:
                    break
                recs = (run_batch(case, plan, item, out, group, gid, ranks, common, members,
                                  checkpoint_every=checkpoint_every, pictures=pictures)
                        if ensemble else
                        [run_point(case, plan, item, out, group, gid, ranks, resume=resume,
                                   checkpoint_every=checkpoint_every, pictures=pictures)])
                for rec in recs:
                    stop["signal"] = stop["signal"] or rec["signal"]
                    if group.rank == 0 and not quiet:
                        print(f"sweep {case.name}: point {rec['index']} {rec['status']} in "
                              f"{rec['wall_time']:.2f} s on ranks {ranks[0]}-{ranks[1]}"
                              + (f" (batch of {len(item)})" if ensemble else "")
                              + (f": {rec['reason']}" if rec["reason"] else ""), flush=True)
        finally:
            dealer.close()
            group.Free()
    result = SweepResult(signal=world.allreduce(stop["signal"], op=MPI.MAX))
    if world.rank == 0:
        result.rows, result.table = write_table(plan, out)
        if not quiet:
            counts = ", ".join(f"{n} {s}" for s, n in result.counts.items())
            print(f"sweep {case.name}: {len(plan.points)} points ({counts}) on {n_groups} "
                  f"group(s) of {ranks_per_case} rank(s), {time.perf_counter() - t0:.2f} s "
                  f"-> {result.table}", flush=True)
    return result
