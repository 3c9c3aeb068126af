"""A run: step a rod model, write the time-series CSV, centreline snapshots and ParaView
frames (design.md section 3). Only MPI rank 0 writes files."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from fxrod.io import STANDARD_COLUMNS, CSVWriter
from fxrod.paraview import PVDWriter, sample_p2_curve


class Progress:
    """One-line progress display (rank 0, only on a terminal unless forced)."""

    def __init__(self, t_end: float, comm, quiet: bool = False, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.t_end = t_end
        self.on = (not quiet) and comm.rank == 0 and self.stream.isatty()
        self._last = 0.0

    def update(self, t: float, h: float, its: int) -> None:
        now = time.monotonic()
        if not self.on or (now - self._last < 0.2 and t < self.t_end):
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


class Simulation:
    """Run an :class:`fxrod.integrators.Integrator` and record its output.

    Parameters
    ----------
    integrator : Integrator
        Stepper (holds the model).
    out_dir : path-like or None
        Output directory (None: nothing is written, rows are kept in memory).
    name : str
        Base name of the files (``DIR/NAME.csv``, ``DIR/NAME.pvd``).
    snapshot_times : sequence of float
        Times at which centrelines are kept for pictures.
    paraview_every : int
        Write a ParaView frame every k steps (0: none).
    extra_columns : sequence of str
        Additional CSV columns filled by ``extra``.
    extra : callable ``(sim) -> dict``, optional
        Extra values for each row.
    quiet : bool
        Suppress the progress bar.
    """

    def __init__(
        self,
        integrator,
        out_dir=None,
        name: str = "run",
        snapshot_times: Sequence[float] = (),
        paraview_every: int = 0,
        extra_columns: Sequence[str] = (),
        extra: Callable | None = None,
        quiet: bool = True,
    ) -> None:
        self.integ = integrator
        self.model = integrator.model
        self.diag = integrator.diagnostics
        self.comm = self.model.comm
        self.name = name
        self.out_dir = None if out_dir is None else Path(out_dir)
        self.columns = list(STANDARD_COLUMNS) + ["h", "port_work", "strain_energy_displacement"]
        self.columns += [c for c in extra_columns if c not in self.columns]
        self.extra = extra
        self.snapshot_times = sorted(float(t) for t in snapshot_times)
        self.snapshots: dict[float, np.ndarray] = {}
        self.rows: list[dict] = []
        self.quiet = quiet
        self.paraview_every = int(paraview_every)
        self.csv = None
        self.pvd = None
        if self.out_dir is not None:
            from fxrod.io import prepare_output_dir

            prepare_output_dir(self.out_dir, self.comm)
            self.csv = CSVWriter(self.out_dir / f"{name}.csv", self.columns, self.comm)
            if self.paraview_every > 0:
                self.pvd = PVDWriter(self.out_dir, name, active=self.comm.rank == 0)
        self._cum = {"external_work": 0.0, "dissipated": 0.0, "port_work": 0.0}
        self._H_prev = None

    # ------------------------------------------------------------------
    def _row(self, res=None) -> dict:
        st = self.diag.state_quantities()
        row = {"t": self.integ.t, **st}
        if res is None:
            row.update(energy_residual=0.0, newton_its=0, h=0.0)
        else:
            self._cum["external_work"] += res.external_work
            self._cum["dissipated"] += res.dissipation
            self._cum["port_work"] += res.port_work
            row["energy_residual"] = (st["H"] - self._H_prev - res.external_work
                                      - res.port_work + res.dissipation)
            row["newton_its"] = res.newton_its
            row["h"] = res.h
        row.update(self._cum)
        self._H_prev = st["H"]
        if self.extra is not None:
            row.update(self.extra(self))
        return row

    def centreline(self):
        """Gathered nodal ``(s, q)`` on rank 0 (None elsewhere)."""
        return self.diag.gather_nodes()

    def _record(self, res=None) -> None:
        row = self._row(res)
        self.rows.append(row)
        if self.csv is not None:
            self.csv.write(row)
        t = self.integ.t
        h = self.integ.h
        g = None
        for ts in self.snapshot_times:
            if ts not in self.snapshots and abs(t - ts) <= 0.5 * h * (1 + 1e-9):
                g = g or self.centreline()
                if g is not None:
                    self.snapshots[ts] = g[1][:, 0:3].copy()
                else:
                    self.snapshots[ts] = np.empty((0, 3))
        if self.pvd is not None and (self.integ.step_count % self.paraview_every == 0):
            g = g or self.centreline()
            if g is not None:
                s, q = g
                ss, qq = sample_p2_curve(s, q)
                self.pvd.write(t, qq[:, 0:3], point_data={
                    "s": ss, "d1": qq[:, 3:6], "d2": qq[:, 6:9], "d3": qq[:, 9:12]})

    def run(self, t_end: float) -> list[dict]:
        """Record the initial state, step to ``t_end`` recording every step; return rows."""
        progress = Progress(t_end, self.comm, quiet=self.quiet)
        try:
            if not self.rows:
                self._record(None)

            def cb(integ, res):
                self._record(res)
                progress.update(integ.t, res.h, res.newton_its)

            self.integ.advance_to(t_end, cb)
        finally:
            progress.close()
            if self.csv is not None:
                self.csv.close()
        return self.rows

    def column(self, name: str) -> np.ndarray:
        """One recorded column as an array."""
        return np.array([r.get(name, np.nan) for r in self.rows], dtype=float)
