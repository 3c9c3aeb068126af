"""Time-series output shared by all formulations.

The CSV contract (docs/output.md): one header row, one row per stored
time, comma separated; the units and meanings of the columns in the units file
``X_columns.json`` beside ``X.csv`` (:func:`write_columns_json`), never in the column names.
Only MPI rank 0 writes; every row is flushed as it is written so that
an interrupted run leaves a readable file. A row with NaN or Inf is refused with an error
naming the column, so no silent garbage reaches the file. A row that cannot be written (disk
full, file removed, handle error) raises :class:`fxrod.errors.OutputError` and is cut off
again: the file ends with the last complete row.
"""

from __future__ import annotations

import csv
import io
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Standard column names of the time-series CSV (docs/output.md).
STANDARD_COLUMNS: tuple[str, ...] = (
    "t", "kinetic", "strain_energy", "H", "external_work", "dissipated", "energy_residual",
    "p_1", "p_2", "p_3", "J_1", "J_2", "J_3", "com_1", "com_2", "com_3",
    "tip_1", "tip_2", "tip_3", "constraint_max", "newton_its",
)

#: Columns a quasi-static run (``RodModel(..., quasistatic=True)``) does not write to its CSV
#: (docs/output.md, "Quasi-static runs"): without inertia there is no kinetic energy or
#: momentum, ``H`` equals ``strain_energy``, and the ledger's flows (``external_work``,
#: ``port_work``, ``support_work``, ``dissipated``) are sums of the end-point power times
#: the load increment (a right-rectangle rule of the work along the load path, first order
#: in the increment), so ``energy_residual`` measures that quadrature error, not the solve.
STATIC_OMITTED: tuple[str, ...] = (
    "kinetic", "H", "external_work", "port_work", "support_work", "dissipated",
    "energy_residual", "p_1", "p_2", "p_3", "J_1", "J_2", "J_3",
)


@dataclass(frozen=True)
class LoadParameter:
    """What the column ``t`` of a quasi-static run stands for: the load parameter
    ``value = per_t * t`` (e.g. the tip force ``P = 600 N * t``), for the axis of
    ``fxrod plot`` and the column description ``<name>_columns.json``.

    Attributes
    ----------
    name : str
        Name of the parameter, e.g. ``"tip force F"`` (non-empty).
    unit : str
        Its SI unit, e.g. ``"N"`` (``"-"``: dimensionless).
    per_t : float
        Value of the parameter per unit of ``t`` (finite, nonzero).
    """

    name: str = "load factor t"
    unit: str = "-"
    per_t: float = 1.0

    def __post_init__(self) -> None:
        from fxrod.errors import ParameterError, check_finite

        if not isinstance(self.name, str) or not self.name.strip():
            raise ParameterError("load parameter name", self.name, "a non-empty text")
        if not isinstance(self.unit, str) or not self.unit.strip():
            raise ParameterError("load parameter unit", self.unit,
                                 "a non-empty text (\"-\": dimensionless)")
        if check_finite("per_t", self.per_t) == 0.0:
            raise ParameterError("per_t", self.per_t, "a finite nonzero number")

    @property
    def label(self) -> str:
        """Axis label ``name [unit]``."""
        return f"{self.name} [{self.unit}]"


#: One-line meaning of the columns fxrod writes under the same name in several CSVs
#: (docs/output.md); a CSV's own columns get theirs from its writer (``meanings=``).
#: ``_1.._3``-suffixed names are looked up without the suffix, and a support's reaction
#: ``<support>_force_k`` / ``<support>_moment_k`` by its kind (:func:`column_meaning`).
MEANINGS: dict[str, str] = {
    "t": "time (load factor in a quasi-static run)",
    "kinetic": "kinetic energy 1/2 v.M v at t",
    "strain_energy": "stored elastic energy at t",
    "strain_energy_displacement": "stored energy from the displacement-based strains",
    "H": "Hamiltonian: kinetic plus stored energy at t",
    "external_work": "work of the loads since t = 0",
    "port_work": "work supplied through actuator ports since t = 0",
    "support_work": "work done by moving supports since t = 0",
    "dissipated": "energy dissipated since t = 0",
    "energy_residual": "energy balance of the step ending at t (0 in the first row)",
    "p": "linear momentum, component k",
    "J": "angular momentum about the origin, component k",
    "com": "centre of the centreline, component k",
    "tip": "centreline position at s = L, component k",
    "constraint_max": "largest nodal orthonormality residual of the directors",
    "newton_its": "Newton iterations of the step ending at t",
    "h": "size of the step ending at t (0 in the first row)",
    "tau": "force of chamber k",
    "tension": "tendon tension",
    "tip_exact": "tip of the closed-form static solution, component k",
    "force": "reaction force of the support on the rod, component k (step average)",
    "moment": "reaction moment of the support on the rod, component k (step average)",
    "twist_turns": "turns of the clamp at s = 0 about e3",
    "torque": "axial moment the clamp applies at s = 0 (step average)",
    "end_force": "tension carried into the clamp at s = 0 (step average)",
    "min_distance": "smallest distance between centreline nodes farther apart than 4r",
    "contact_energy": "penalty energy of the rod-rod contact at t",
    "Jd": "discrete momentum map of the Hamel lattice, component k (1-3 angular, 4-6 linear)",
    "Jmid": "momentum map of the midpoint rule, component k (1-3 angular, 4-6 linear)",
}

#: Meanings of the columns of a named probe, ``<name>_<suffix>`` (contact probes,
#: docs/output.md); ``_k``: component k.
SUFFIX_MEANINGS: dict[str, str] = {
    "normal_force": "penalty line pressure integrated along the rod",
    "force_k": "normal contact force on the rod, summed along it, component k",
    "gap_min": "smallest gap at the quadrature points (negative: penetration)",
    "contact_length": "length of rod in contact",
    "total_force_k": "resultant of the nodal contact forces of the step, component k",
    "nodes_sticking": "P2 nodes in contact that stick",
    "nodes_sliding": "P2 nodes in contact that slide",
    "min_gap": "smallest node-pair gap |x_a - x_b| - 2r",
    "force": "magnitude of the resultant rod-rod contact force",
    "pairs": "node pairs in contact",
}


def _support(label: str) -> bool:
    """Whether ``label`` names a support (``clamp_0``, ``pin_L``, ``hinge_2``: an end)."""
    end = label.rpartition("_")[2]
    return end == "L" or end.isdigit()


def column_meaning(name: str) -> str:
    """:data:`MEANINGS` of a column: its name, else the name without a ``_1.._9`` suffix,
    else a support's reaction ``<support>_force_k``, else a probe's column
    ``<name>_<suffix>`` (:data:`SUFFIX_MEANINGS`, the longest suffix first), "component
    k" (or "chamber k") naming the component; "" when none is known."""
    if name in MEANINGS:
        return MEANINGS[name]
    stem, _, k = name.rpartition("_")
    if not (stem and k.isdigit()):
        key, k = name, ""
    else:
        label, _, kind = stem.rpartition("_")
        key = (stem if stem in MEANINGS else kind if kind in ("force", "moment")
               and _support(label) else stem + "_k")
    text = MEANINGS.get(key, "")
    for suffix in sorted(SUFFIX_MEANINGS, key=len, reverse=True):
        if text:
            break
        if key.endswith("_" + suffix):
            text = SUFFIX_MEANINGS[suffix]
    return text.replace("component k", f"component {k}").replace("chamber k", f"chamber {k}") \
        if k else text


def columns_json_path(csv_path: str | os.PathLike) -> Path:
    """``X_columns.json`` beside ``X.csv``: the units and meanings of its columns (and, for
    a quasi-static run, the meaning of ``t``)."""
    p = Path(csv_path)
    return p.with_name(f"{p.stem}_columns.json")


def write_columns_json(csv_path: str | os.PathLike, units: Mapping[str, str],
                       load: LoadParameter | None = None,
                       meanings: Mapping[str, str] | None = None) -> Path:
    """Write :func:`columns_json_path`, the units file of every CSV fxrod writes:
    ``{"quasistatic": bool, "units": {column: unit}, "meanings": {column: text},
    "load": {"name", "unit", "per_t"} or null}``; returns the path.

    ``units`` names every column of the CSV, in its order, with its SI unit (``"-"``:
    dimensionless or a count; the column names themselves carry no unit). ``meanings``
    gives one line per column; a column it leaves out gets :func:`column_meaning`.
    ``quasistatic`` is true when ``load`` (what ``t`` stands for) is given."""
    import json

    path = columns_json_path(csv_path)
    meanings = {} if meanings is None else meanings
    doc = {"quasistatic": load is not None, "units": dict(units),
           "meanings": {c: meanings.get(c) or column_meaning(c) for c in units},
           "load": None if load is None else {"name": load.name, "unit": load.unit,
                                              "per_t": float(load.per_t)}}
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return path


def read_columns_json(csv_path: str | os.PathLike) -> dict | None:
    """The column description beside ``csv_path`` (:func:`write_columns_json`), or None
    when there is none or it cannot be read."""
    import json

    path = columns_json_path(csv_path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


class NonFiniteError(FloatingPointError):
    """A value to be written is NaN or Inf."""


def prepare_output_dir(path: str | os.PathLike, comm=None) -> Path:
    """Create ``path`` (rank 0) and check that it is writable (by a file of a unique name,
    so that runs on other communicators may check the same directory at the same time).

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
            # a probe of its own (several serial runs may check one directory at once)
            with tempfile.NamedTemporaryFile(dir=p, prefix=".fxrod_write_test") as probe:
                probe.write(b"ok")
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
    units : mapping of str to str, optional
        SI unit of every column (``"-"``: dimensionless): written with ``meanings`` to
        the units file ``X_columns.json`` beside ``X.csv`` (:func:`write_columns_json`,
        rank 0).
    meanings : mapping of str to str, optional
        One line per column for the units file.
    """

    def __init__(self, path, columns: Sequence[str], comm=None, append: bool = False,
                 units: Mapping[str, str] | None = None,
                 meanings: Mapping[str, str] | None = None) -> None:
        self.path = Path(path)
        self.columns = list(columns)
        if units is not None and set(units) != set(self.columns):
            raise ValueError(f"{self.path.name}: units for {sorted(set(units))}, columns "
                             f"{self.columns}")
        self._active = comm is None or comm.rank == 0
        self._fh = None
        self._good = 0       # bytes of the file up to its last complete row
        if self._active:
            try:
                exists = self.path.exists() and self.path.stat().st_size > 0
                self._fh = open(self.path, "a" if append else "w", newline="")  # noqa: SIM115
                self._good = self._fh.tell()
                if not (append and exists):
                    self._put(io_line(self.columns))
                if units is not None:
                    write_columns_json(self.path, {c: units[c] for c in self.columns},
                                       meanings=meanings)
            except OSError as e:
                self._fail(e)

    def _put(self, line: str) -> None:
        """Append one line and flush it; the file must still be linked in its directory."""
        self._fh.write(line)
        self._fh.flush()
        if os.fstat(self._fh.fileno()).st_nlink == 0:
            raise FileNotFoundError(2, "the file (or its directory) was removed")
        self._good = self._fh.tell()

    def _fail(self, err: OSError):
        """Close the file, cut it back to its last complete row, raise ``OutputError``."""
        from fxrod.errors import OutputError

        fh, self._fh = self._fh, None
        if fh is not None:
            try:
                fh.close()
            except OSError:
                pass  # the unwritten tail of the buffer is dropped
            try:
                os.truncate(self.path, self._good)
            except OSError:
                pass  # removed: nothing to cut
        raise OutputError(self.path, err) from None

    def write(self, row: Mapping[str, float]) -> None:
        """Write one row; missing columns are written empty, NaN/Inf is refused.

        Raises
        ------
        NonFiniteError
            If a value is NaN or Inf (nothing written).
        fxrod.errors.OutputError
            If the row cannot be written; the file keeps its complete rows and is closed.
        """
        values = [row.get(c, "") for c in self.columns]
        if set(map(type, values)) <= _NUMBERS and math.isfinite(sum(values)):
            # finite Python floats and ints only (the common row): the line :func:`io_line`
            # writes, each value's repr, made in one call
            line = repr(values)[1:-1].replace(", ", ",") + "\r\n"
        else:
            line = io_line([self._checked(c, v, row)
                            for c, v in zip(self.columns, values, strict=True)])
        if self._active:
            if self._fh is None:
                raise ValueError(f"{self.path}: writer is closed")
            try:
                self._put(line)
            except OSError as e:
                self._fail(e)

    @staticmethod
    def _checked(c: str, v, row: Mapping[str, float]):
        """The value of column ``c`` to write: a float (NaN/Inf refused) or the plain value."""
        if not isinstance(v, float | np.floating):
            return v
        if not math.isfinite(float(v)):
            raise NonFiniteError(f"column {c!r} is {float(v)} at t = "
                                 f"{_plain(row.get('t'))}; row not written")
        return float(v)

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fh is not None:
            fh, self._fh = self._fh, None
            try:
                fh.close()
            except OSError as e:
                self._fh = fh
                self._fail(e)

    def __enter__(self) -> CSVWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


#: The types of a row written by its values' reprs in one call (:meth:`CSVWriter.write`).
_NUMBERS = {float, int}


def _plain(v):
    """A NumPy scalar as the Python number it holds (so the file shows ``1.0``)."""
    return v.item() if isinstance(v, np.generic) else v


def io_line(values: Sequence) -> str:
    """One CSV line (``\\r\\n`` ended, as :mod:`csv` writes it) of the plain values."""
    buf = io.StringIO()
    csv.writer(buf).writerow([_plain(v) for v in values])
    return buf.getvalue()


def truncate_csv(path, n_rows: int | None = None, t_max: float | None = None) -> None:
    """Keep the header and the first ``n_rows`` data rows of a CSV, or the rows whose first
    column is at most ``t_max`` (restart). The file is cut in place (no temporary file, no
    space needed)."""
    p = Path(path)
    if not p.exists():
        return
    with open(p, "rb+") as fh:
        keep = len(fh.readline())
        for i, line in enumerate(fh):
            if not line.endswith(b"\n"):
                break                                  # an incomplete last row
            if n_rows is not None and i >= n_rows:
                break
            if t_max is not None and float(line.split(b",", 1)[0]) > t_max:
                break
            keep += len(line)
        fh.truncate(keep)


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
