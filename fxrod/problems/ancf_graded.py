"""The tables of the graded ANCF cantilever (``demos/ancf_graded_cantilever.py``): the columns
of its CSVs with their units and meanings, the CSVs and the printed table, and what
identifies a release in a checkpoint."""

from __future__ import annotations

from pathlib import Path

from fxrod.output.paraview import PVDWriter
from fxrod.output.tables import CSVWriter
from fxrod.runs.checkpoint import companion_fingerprint, describe

#: Columns of the table and of the release time series.
TABLE = ["lam", "n", "tip_deflection", "omega_1", "tip_deflection_linear", "omega_1_linear",
         "rel_gap_tip", "rel_gap_omega", "dt", "dt_critical", "energy_error"]
SERIES = ["t", "lam", "n", "kinetic", "strain_energy", "H", "external_work", "dissipated",
          "energy_residual", "tip_1", "tip_2", "tip_3"]
#: Units of the columns of both CSVs (their ``_columns.json``) and the meanings of the
#: table's and the grading's own (the standard columns: docs/output.md).
UNITS = {"lam": "-", "n": "-", "tip_deflection": "m", "omega_1": "rad/s",
         "tip_deflection_linear": "m", "omega_1_linear": "rad/s", "rel_gap_tip": "-",
         "rel_gap_omega": "-", "dt": "s", "dt_critical": "s", "energy_error": "-",
         "t": "s", "kinetic": "J", "strain_energy": "J", "H": "J", "external_work": "J",
         "dissipated": "J", "energy_residual": "J", "tip_1": "m", "tip_2": "m", "tip_3": "m"}
MEANINGS = {
    "lam": "grading depth lam of E(x) = E0 (1 - lam (x/L)^n)",
    "n": "grading exponent n of E(x) = E0 (1 - lam (x/L)^n)",
    "tip_deflection": "static tip deflection under gravity (ANCF)",
    "omega_1": "first circular eigenfrequency (ANCF)",
    "tip_deflection_linear": "static tip deflection of linear Euler-Bernoulli theory",
    "omega_1_linear": "first circular eigenfrequency of linear Euler-Bernoulli theory",
    "rel_gap_tip": "tip_deflection / tip_deflection_linear - 1",
    "rel_gap_omega": "omega_1 / omega_1_linear - 1",
    "dt": "step of the explicit release (central difference)",
    "dt_critical": "stability limit 2/omega_max of the explicit step",
    "energy_error": "relative energy error of the explicit release",
}


def table_lines(results: list[dict]) -> list[str]:
    """The printed table: one line per grading (ANCF, linear theory, gaps, energy error)."""
    lines = [f"{'lam':>4} {'n':>3} {'tip [m]':>12} {'linear':>12} {'gap':>9} "
             f"{'omega_1':>10} {'linear':>10} {'gap':>9} {'E err':>8}"]
    lines += [f"{r['lam']:4.1f} {r['n']:3.0f} {r['tip_deflection']:12.6e} "
              f"{r['tip_deflection_linear']:12.6e} {r['rel_gap_tip']:9.1e} "
              f"{r['omega_1']:10.4f} {r['omega_1_linear']:10.4f} "
              f"{r['rel_gap_omega']:9.1e} {r['energy_error']:8.1e}" for r in results]
    return lines


def write_tables(results: list[dict], out: Path, name: str) -> list[Path]:
    """``out/<name>.csv`` (:data:`TABLE`, one row per grading), ``out/<name>_release.csv``
    (:data:`SERIES`, every release's rows), with their units files, and the ParaView series
    ``out/<name>.pvd`` of the largest release; returns the three paths."""
    paths = [out / f"{name}.csv", out / f"{name}_release.csv"]
    with CSVWriter(paths[0], TABLE, units={c: UNITS[c] for c in TABLE},
                   meanings=MEANINGS) as csv:
        for r in results:
            csv.write({c: r[c] for c in TABLE})
    with CSVWriter(paths[1], SERIES, units={c: UNITS[c] for c in SERIES},
                   meanings=MEANINGS) as csv:
        for r in results:
            for row in r["history"].rows:
                csv.write(row | {"lam": r["lam"], "n": r["n"]})
    largest = max(results, key=lambda r: r["tip_deflection"])
    pvd = PVDWriter(out, name)
    for t, pts in zip(largest["frame_t"], largest["frames"], strict=True):
        pvd.write(t, pts)
    return [*paths, pvd.path]


def release_fingerprint(props, n_elements: int, n_dynamic: int, gravity: float,
                        t_end: float, n_frames: int) -> dict[str, str]:
    """What identifies the release of one grading (``props``: its
    :class:`fxrod.ancf.BeamProperties`) in a checkpoint: ``n_elements`` of the statics,
    ``n_dynamic`` of the release, ``gravity`` [m/s^2], ``t_end`` [s] in ``n_frames`` chunks."""
    return companion_fingerprint({
        "mesh": f"{n_elements} elements (statics, modes), {n_dynamic} elements (release)",
        "geometry": f"straight L = {props.L!r} m",
        "section": describe(props, props.L),
        "supports": "clamped at x = 0",
        "loads": f"gravity {gravity!r} m/s^2",
        "kind": "ANCF, explicit central difference from the straight state at rest",
        "step": f"h = 0.9 h_critical, t_end = {t_end!r} s in {n_frames} chunks",
    })


def post_process(results: list[dict], out: Path | None, name: str,
                 pictures: bool) -> tuple[dict[str, float], list[str], list[Path]]:
    """On rank 0, the gradings' ``results``: the summary (``max_gap_tip``, ``max_gap_omega``:
    the largest relative gaps to linear theory, ``max_energy_error``), the printed table and,
    with ``out``, the files (:func:`write_tables`, and with ``pictures`` the snapshots of the
    largest release and the plots of :mod:`fxrod.viz.figures`)."""
    summary = {"max_gap_tip": max(abs(r["rel_gap_tip"]) for r in results),
               "max_gap_omega": max(abs(r["rel_gap_omega"]) for r in results),
               "max_energy_error": max(r["energy_error"] for r in results)}
    files = []
    if out is not None:
        files = write_tables(results, out, name)
        if pictures:
            from fxrod.viz.figures import ancf_grading_plots, ancf_release_snapshots

            largest = max(results, key=lambda r: r["tip_deflection"])
            files += [ancf_release_snapshots(largest, out / f"{name}.png"),
                      *ancf_grading_plots(results, out, name)]
    return summary, table_lines(results), files
