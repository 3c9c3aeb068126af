"""``fxrod sweep --ensemble B`` against the plain sweep on one rank: 100 flying spaghetti.

    python bench/sweep_ensemble.py [--points 100] [--batches 0 10 100] [--n-elements 10]
                                   [--t-end 1] [--h 0.1] [--json bench/sweep_ensemble.json]

The plan varies ``load_scale`` over ``--points`` values in [0.5, 1.5] (10 elements, steps
of 0.1 s up to t = 1 s by default); B = 0 is the plain sweep (one model a point: its CSV,
ParaView series and checkpoint, the default linear solver), B > 0 runs B points at a time as one
:class:`fxrod.runs.ensemble.Ensemble` (the chain solver; a per-member CSV). Every form is
JIT-compiled by a small warm-up sweep of each kind first. Measured: ``sweep_s``, the wall
time of :func:`fxrod.studies.sweep.run_sweep` (dealing, runs, records, table), its time per point,
the speed-up over B = 0, and ``max_rel_diff``: the largest difference of H, p, J and tip
between the ensemble table and the plain one, relative to each quantity's magnitude. Prints
a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from fxrod.studies.sweep import run_sweep
from fxrod.studies.sweep_plan import make_plan

ROOT = Path(__file__).resolve().parents[1]
CASE = "flying-spaghetti"


def plan(points: int, n_elements: int, t_end: float, h: float):
    scales = ",".join(f"{s:.6g}" for s in np.linspace(0.5, 1.5, points))
    return make_plan(CASE, [f"load_scale={scales}", f"n_elements={n_elements}",
                            f"t_end={t_end}", f"h={h}"])


def max_rel_diff(rows: list[dict], ref: list[dict]) -> float:
    """Largest difference of H and the vectors p, J, tip, relative to their magnitude."""
    worst = 0.0
    for a, b in zip(rows, ref, strict=True):
        worst = max(worst, abs(a["H"] - b["H"]) / max(1.0, abs(b["H"])))
        for v in ("p", "J", "tip"):
            x = np.array([a[f"{v}_{j}"] for j in (1, 2, 3)])
            y = np.array([b[f"{v}_{j}"] for j in (1, 2, 3)])
            worst = max(worst, np.linalg.norm(x - y) / max(1.0, np.linalg.norm(y)))
    return float(worst)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--batches", type=int, nargs="+", default=[0, 10, 100])
    ap.add_argument("--n-elements", type=int, default=10)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--h", type=float, default=0.1)
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args()
    p = plan(a.points, a.n_elements, a.t_end, a.h)
    rows, tables = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        warm = plan(2, a.n_elements, a.h, a.h)        # JIT-compile the forms once
        for b in sorted(set(a.batches) | {0}):
            run_sweep(warm, Path(tmp) / f"warm{b}", quiet=True, ensemble=min(b, 2))
        for b in sorted(set(a.batches) | {0}):
            t0 = time.perf_counter()
            res = run_sweep(p, Path(tmp) / f"b{b}", quiet=True, ensemble=b)
            wall = time.perf_counter() - t0
            assert res.counts == {"done": a.points}, res.counts
            tables[b] = res.rows
            rows.append({"ensemble": b, "points": a.points, "n_elements": a.n_elements,
                         "t_end": a.t_end, "h": a.h, "sweep_s": wall,
                         "per_point_s": wall / a.points})
    for r in rows:
        r["speedup"] = rows[0]["sweep_s"] / r["sweep_s"]
        r["max_rel_diff"] = max_rel_diff(tables[r["ensemble"]], tables[0])
    print(f"{'ensemble B':>10} {'points':>6} {'sweep [s]':>10} {'per point [s]':>14} "
          f"{'speed-up':>9} {'max rel diff':>13}")
    for r in rows:
        print(f"{r['ensemble']:10d} {r['points']:6d} {r['sweep_s']:10.2f} "
              f"{r['per_point_s']:14.4f} {r['speedup']:9.1f} {r['max_rel_diff']:13.1e}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1) + "\n")
        print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
