"""Reference data shipped with fxrod: published results and exact solutions.

The files sit in this package directory, in the sub-folders listed in ``PROVENANCE.md`` (which
says where each file comes from and under which terms):

* ``kinon2026/results/...`` -- the result CSVs published by Kinon, Eugster & Betsch with their
  paper (CMAME 458 (2026) 118966), used to validate the examples of its Sec. 6;
* ``exact/...`` -- exact planar solutions of the quasi-static cantilever (Ex. 6.3).

Example::

    import numpy as np
    from fxrod.data import reference_path

    tip = np.loadtxt(reference_path("exact", "elastica_constrained_tip.csv"),
                     delimiter=",", skiprows=1)
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA_DIR", "reference_path"]

#: The directory holding the data files (inside the installed package).
DATA_DIR = Path(__file__).resolve().parent


def reference_path(*parts: str) -> Path:
    """Path of the shipped data file ``DATA_DIR / parts[0] / parts[1] / ...``.

    ``parts`` are path components relative to the data directory, for example
    ``reference_path("exact", "exact_centerlines.csv")`` or
    ``reference_path("kinon2026/results/example_02_dynamic_cantilever",
    "ex02_cantilever_results.csv")``.

    Raises:
        ValueError: no parts, or a part that is absolute or leaves the data directory.
        FileNotFoundError: the file does not exist (e.g. package data not installed).
    """
    if not parts:
        raise ValueError("reference_path() needs at least one path component")
    rel = Path(*parts)
    path = (DATA_DIR / rel).resolve()
    if rel.is_absolute() or not path.is_relative_to(DATA_DIR):
        raise ValueError(f"reference_path: {rel} is not inside the fxrod data directory")
    if not path.is_file():
        raise FileNotFoundError(f"fxrod reference data file not found: {rel} (in {DATA_DIR})")
    return path
