"""Time-series output shared by all formulations.

The CSV contract (docs/output.md): one header row, one row per stored
time, comma separated. Only MPI rank 0 writes; every row is flushed as it is written so that
an interrupted run leaves a readable file. A row with NaN or Inf is refused with an error
naming the column, so no silent garbage reaches the file.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

#: Standard column names of the time-series CSV (docs/output.md).
STANDARD_COLUMNS: tuple[str, ...] = (
    "t", "kinetic", "strain_energy", "H", "external_work", "dissipated", "energy_residual",
    "p_1", "p_2", "p_3", "J_1", "J_2", "J_3", "com_1", "com_2", "com_3",
    "tip_1", "tip_2", "tip_3", "constraint_max", "newton_its",
)


class NonFiniteError(FloatingPointError):
    """A value to be written is NaN or Inf."""


def prepare_output_dir(path: str | os.PathLike, comm=None) -> Path:
    """Create ``path`` (rank 0) and check that it is writable.

    Raises
    ------
    fxrod.errors.ParameterError
        If the directory cannot be created or written.
    """
    from fxrod.errors import ParameterError

    p = Path(path)
    rank = 0 if comm is None else comm.rank
    err = None
    if rank == 0:
        try:
            p.mkdir(parents=True, exist_ok=True)
            probe = p / ".fxrod_write_test"
            probe.write_text("ok")
            probe.unlink()
        except OSError as e:
            err = str(e)
    if comm is not None and comm.size > 1:
        err = comm.bcast(err, root=0)
    if err is not None:
        raise ParameterError("out", str(path), f"a writable directory ({err})")
    return p


class CSVWriter:
    """Row-by-row CSV writer (rank 0 only), flushed after every row.

    Parameters
    ----------
    path : path-like
        File to (over)write, or append to when ``append`` is true.
    columns : sequence of str
        Column names, written as the header.
    comm : mpi4py communicator, optional
        Only its rank 0 writes.
    append : bool
        Continue an existing file (restart): the header is not written again.
    """

    def __init__(self, path, columns: Sequence[str], comm=None, append: bool = False) -> None:
        self.path = Path(path)
        self.columns = list(columns)
        self._active = comm is None or comm.rank == 0
        self._fh = None
        if self._active:
            exists = self.path.exists() and self.path.stat().st_size > 0
            self._fh = open(self.path, "a" if append else "w", newline="")  # noqa: SIM115
            self._writer = csv.writer(self._fh)
            if not (append and exists):
                self._writer.writerow(self.columns)
                self._fh.flush()

    def write(self, row: Mapping[str, float]) -> None:
        """Write one row; missing columns are written empty, NaN/Inf is refused."""
        values = []
        for c in self.columns:
            v = row.get(c, "")
            if isinstance(v, float | np.floating) and not math.isfinite(float(v)):
                raise NonFiniteError(f"column {c!r} is {v} at t = {row.get('t')}; row not written")
            values.append(repr(float(v)) if isinstance(v, float | np.floating) else v)
        if self._active:
            if self._fh is None:
                raise ValueError(f"{self.path}: writer is closed")
            self._writer.writerow(values)
            self._fh.flush()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> CSVWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def truncate_csv(path, n_rows: int) -> None:
    """Keep the header and the first ``n_rows`` data rows of a CSV (restart)."""
    p = Path(path)
    if not p.exists():
        return
    lines = p.read_text().splitlines(keepends=True)
    tmp = p.with_suffix(".csv.tmp")
    tmp.write_text("".join(lines[: 1 + n_rows]))
    tmp.replace(p)


def read_csv(path) -> dict[str, np.ndarray]:
    """Read an fxrod CSV into a dict of float arrays (empty cells become NaN)."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise ValueError(f"{path}: empty file, expected a header row")
    header, data = rows[0], rows[1:]
    out: dict[str, np.ndarray] = {}
    for j, name in enumerate(header):
        col = []
        for r in data:
            try:
                col.append(float(r[j]) if j < len(r) and r[j] != "" else np.nan)
            except ValueError:
                col.append(np.nan)
        out[name] = np.asarray(col)
    return out
