"""The table of Lee's frame (``demos/lee_frame.py``): the load and the displacement of the
loaded point along the continuation's path, with units and meanings."""

from __future__ import annotations

from pathlib import Path

from fxrod.output.tables import CSVWriter

#: Columns of ``lee_frame.csv`` with their units and meanings (``lee_frame_columns.json``).
COLUMNS = {"load": "N", "u": "m", "v": "m"}
MEANINGS = {"load": "load P = lambda EI/L^2, positive downward",
            "u": "horizontal displacement of the loaded point (towards the far pin positive)",
            "v": "vertical displacement of the loaded point, positive downward"}


def write_load_csv(cont, path: Path, load_per_lambda: float) -> Path:
    """One row a point of the path of ``cont`` (:class:`fxrod.analysis.continuation.Continuation`
    recording the point ``"load"``): the load ``lambda * load_per_lambda`` [N] and the loaded
    point's displacement ``u``, ``v`` [m] (v positive downward); collective."""
    with CSVWriter(path, COLUMNS, comm=cont.model.comm, units=COLUMNS,
                   meanings=MEANINGS) as w:
        for p in cont.path:
            d = p.displacements["load"]
            w.write({"load": p.lam * load_per_lambda, "u": float(d[0]), "v": float(-d[1])})
    return Path(path)
