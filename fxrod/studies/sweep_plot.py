"""The picture of a sweep table: one quantity against one parameter, one line per value of
a second parameter (:func:`plot_sweep`; ``fxrod sweep ... --plot Q:P[:P2]``)."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from fxrod.errors import ParameterError
from fxrod.studies.cases import CASES


def read_table(path: str | os.PathLike) -> list[dict[str, str]]:
    """The rows of a sweep table ``sweep_<case>.csv`` as texts."""
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def plot_sweep(table: str | os.PathLike, quantity: str, x: str, by: str | None = None,
               out: str | os.PathLike | None = None) -> Path:
    """Plot ``quantity`` of the done points against the parameter ``x``; with ``by``, one
    line per value of that parameter (the parameters' units from the case's options).

    Parameters
    ----------
    table : path-like
        A sweep table (:func:`fxrod.studies.sweep.write_table`).
    quantity, x, by : str
        Columns of the table (a summary number, parameters).
    out : path-like, optional
        PNG path (default ``<table stem>_<quantity>.png`` beside the table).

    Returns
    -------
    Path
        The PNG written.

    Raises
    ------
    ParameterError
        For a column the table does not have, or a table without done points.
    """
    rows = read_table(table)
    cols = list(rows[0]) if rows else []
    for name, col in (("quantity", quantity), ("x", x), ("by", by)):
        if col is not None and col not in cols:
            raise ParameterError(name, col, f"a column of {table}: {', '.join(cols)}")
    done = [r for r in rows if r["status"] == "done"]
    if not done:
        raise ParameterError("table", str(table), "a sweep table with done points")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines: dict[str, list[tuple[float, float]]] = {}
    for r in done:
        lines.setdefault(r[by] if by else "", []).append((float(r[x]), float(r[quantity])))
    case = CASES.get(Path(table).stem.removeprefix("sweep_"))
    units = {o.name: f" [{o.unit}]" for o in (case.options if case else ()) if o.unit != "-"}
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for label, pts in sorted(lines.items(), key=lambda kv: _number_or_text(kv[0])):
        xs, ys = zip(*sorted(pts), strict=True)
        ax.plot(xs, ys, "o-", label=f"{by} = {label}{units.get(by, '')}" if by else None)
    ax.set_xlabel(x + units.get(x, ""))
    ax.set_ylabel(quantity)
    ax.set_title(Path(table).stem)
    if by:
        ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = Path(out) if out else Path(table).with_name(f"{Path(table).stem}_{quantity}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _number_or_text(v: str) -> tuple[int, float | str]:
    """Sort key: numbers by value, before texts."""
    try:
        return 0, float(v)
    except ValueError:
        return 1, v
