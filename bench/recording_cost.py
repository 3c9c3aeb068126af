"""What recording a run costs: ``Simulation`` with the default probes against the bare
stepping loop, on Ex. 6.2 (the cantilever, n_e 8, h 1e-3) and the flying spaghetti (n_e 10,
h 0.1).

    python bench/recording_cost.py [--repeat 5] [--json out.json]

For each problem, in one process after a warm-up run (forms compiled): the wall time of
``integrator.advance_to(t_end)`` (the bare loop), of ``Simulation(integrator).run(t_end)``
(rows in memory, the default probes) and of the same with a CSV written to a temporary
directory; the median over ``--repeat`` fresh integrators of each, interleaved, and the
ratios to the bare loop. A ratio of 1.15 is the target of the feedback-control issue (a
controlled run must cost little more than the steps).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

import fxrod  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import demo

PROBLEMS = {
    "ex62": lambda: demo("cantilever_vibration").problem(n_elements=8, h=1e-3),
    "flying_spaghetti": lambda: demo("flying_spaghetti").problem(10),
}


def _bare(problem) -> float:
    integ = problem.integrator()
    t0 = time.perf_counter()
    integ.advance_to(problem.t_end)
    return time.perf_counter() - t0


def _recorded(problem, csv: bool) -> float:
    integ = problem.integrator()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        Simulation(integ, out_dir=tmp if csv else None, name="run").run(problem.t_end)
        return time.perf_counter() - t0


def measure(name: str, repeat: int) -> dict:
    """Medians [s] of the three ways of running ``name`` and their ratios to the bare loop."""
    make = PROBLEMS[name]
    _bare(make())                                            # warm-up: forms compiled
    times = {"bare": [], "memory": [], "csv": []}
    for _ in range(repeat):                                  # interleaved
        times["bare"].append(_bare(make()))
        times["memory"].append(_recorded(make(), csv=False))
        times["csv"].append(_recorded(make(), csv=True))
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"median_s": med, "ratio_memory": med["memory"] / med["bare"],
            "ratio_csv": med["csv"] / med["bare"], "repeat": repeat}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default=None, help="write the results to this file")
    args = ap.parse_args()
    out = {name: measure(name, args.repeat) for name in PROBLEMS}
    print(f"{'problem':18s} {'bare s':>8s} {'memory s':>9s} {'csv s':>8s} "
          f"{'memory/bare':>12s} {'csv/bare':>9s}")
    for name, r in out.items():
        m = r["median_s"]
        print(f"{name:18s} {m['bare']:8.3f} {m['memory']:9.3f} {m['csv']:8.3f} "
              f"{r['ratio_memory']:12.2f} {r['ratio_csv']:9.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
