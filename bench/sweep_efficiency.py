"""Parallel efficiency of ``fxrod sweep`` on 2 ranks: 8 equal points, serial vs mpirun -n 2.

    python bench/sweep_efficiency.py [--points 8] [--t-end 0.1] [--json bench/sweep_efficiency.json]

Each point is the Ex. 6.2 cantilever (``cantilever-vibration``, 8 elements, steps of 1 ms up
to ``--t-end``), all with the same parameters, so the ideal speed-up on 2 ranks is 2.
Measured per run: ``sweep_s``, the sweep itself (dealing, runs, records, table; as printed
by ``fxrod sweep``), and ``process_s``, the whole command (Python and MPI start-up
included). Efficiency = T_serial / (2 T_parallel). ``busy`` = (sum of the points' wall
times) / (ranks x ``sweep_s``): the share of the ranks' time spent in points, i.e. what the
dealing and the records cost, independent of how much slower each point runs when the ranks
share the machine's cores and memory bandwidth. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(ranks: int, points: int, t_end: float, out: Path) -> dict:
    """One sweep on ``ranks`` ranks; its times [s]."""
    cmd = [sys.executable, "-m", "fxrod", "sweep", "cantilever-vibration",
           "--param", "n_elements=" + ",".join(["8"] * points),
           "--param", f"t_end={t_end}", "--out", str(out)]
    if ranks > 1:
        mpirun = Path(sys.executable).parent / "mpirun"
        cmd = [str(mpirun if mpirun.exists() else shutil.which("mpirun")), "-n", str(ranks),
               *cmd]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True)
    total = time.perf_counter() - t0
    sweep = float(re.search(r"rank\(s\), ([0-9.]+) s ->", p.stdout).group(1))
    with open(out / "sweep_cantilever-vibration.csv", newline="") as fh:
        busy = sum(float(r["wall_time"]) for r in csv.DictReader(fh)) / (ranks * sweep)
    return {"ranks": ranks, "points": points, "sweep_s": sweep, "process_s": total,
            "busy": busy}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--t-end", type=float, default=0.1)
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(1, 1, a.t_end, Path(tmp) / "warm")      # JIT-compile the forms once
        rows = [run(n, a.points, a.t_end, Path(tmp) / f"n{n}") for n in (1, 2)]
    for r in rows:
        for k in ("sweep", "process"):
            r[f"{k}_efficiency"] = rows[0][f"{k}_s"] / (r["ranks"] * r[f"{k}_s"])
    print(f"{'ranks':>5} {'points':>6} {'sweep [s]':>10} {'eff':>6} {'process [s]':>12} "
          f"{'eff':>6} {'busy':>6}")
    for r in rows:
        print(f"{r['ranks']:5d} {r['points']:6d} {r['sweep_s']:10.2f} "
              f"{r['sweep_efficiency']:6.2f} {r['process_s']:12.2f} "
              f"{r['process_efficiency']:6.2f} {r['busy']:6.2f}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1) + "\n")
        print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
