"""Recorded time series of a run, shared by every formulation and stepper.

A :class:`History` keeps one row per recorded time, each a mapping of column name to a
scalar value, in the order the rows were appended. The column names are those of the CSV
output (``t``, ``kinetic``, ``strain_energy``, ``H``, ``external_work``, ``tip_1``, ...;
see :data:`fxrod.output.tables.STANDARD_COLUMNS`); a formulation may add its own. Quantities derived
from several values of a row (e.g. ``H = kinetic + strain_energy``) are computed by the
recorder when it appends the row, so that the history, its CSV file and any later analysis
see the same numbers.

Units are those of the appended values: fxrod records SI values, e.g. ``t`` [s], energies
[J], positions [m].
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from fxrod.output.tables import CSVWriter


class History:
    """Time series as a list of rows (dicts of column name to scalar value).

    Parameters
    ----------
    rows : iterable of mapping, optional
        Rows to start with (copied).

    Attributes
    ----------
    rows : list of dict
        The recorded rows, oldest first. A row need not hold every column.

    Examples
    --------
    >>> h = History()
    >>> h.append({"t": 0.0, "H": 1.0})
    >>> h.append({"t": 0.1, "H": 1.0, "newton_its": 3})
    >>> h.columns
    ['t', 'H', 'newton_its']
    >>> h.column("newton_its")
    array([nan,  3.])
    """

    def __init__(self, rows: Iterable[Mapping[str, float]] | None = None) -> None:
        self.rows: list[dict[str, float]] = []
        self._columns: dict[str, None] = {}  # insertion-ordered set of the column names
        for row in rows or ():
            self.append(row)

    def append(self, row: Mapping[str, float]) -> None:
        """Record one row (a copy of ``row``); new column names are added at the end."""
        row = dict(row)
        self.rows.append(row)
        self._columns.update(dict.fromkeys(row))

    @property
    def columns(self) -> list[str]:
        """Column names in the order of their first appearance."""
        return list(self._columns)

    def column(self, name: str) -> np.ndarray:
        """Values of column ``name`` over the rows, as a float array of length ``len(self)``.

        Rows without the column give NaN.

        Raises
        ------
        KeyError
            If no row has the column.
        """
        if name not in self._columns:
            raise KeyError(f"no column {name!r} in the history (columns: {self.columns})")
        return np.array([row.get(name, np.nan) for row in self.rows], dtype=float)

    def __len__(self) -> int:
        return len(self.rows)

    def write_csv(self, path: str | os.PathLike, comm=None,
                  columns: Sequence[str] | None = None,
                  units: Mapping[str, str] | None = None) -> None:
        """Write the rows to a CSV file through :class:`fxrod.output.tables.CSVWriter`.

        Parameters
        ----------
        path : path-like
            File to (over)write.
        comm : mpi4py communicator, optional
            Only its rank 0 writes (every rank checks the values).
        columns : sequence of str, optional
            Columns to write, in this order (default :attr:`columns`); missing values are
            written empty.
        units : mapping of str to str, optional
            SI unit of every written column: the units file ``X_columns.json`` beside
            ``X.csv`` (:func:`fxrod.output.tables.write_columns_json`).

        Raises
        ------
        fxrod.output.tables.NonFiniteError
            If a value to be written is NaN or Inf (the rows before it are written).
        """
        with CSVWriter(path, self.columns if columns is None else columns, comm,
                       units=units) as writer:
            for row in self.rows:
                writer.write(row)
