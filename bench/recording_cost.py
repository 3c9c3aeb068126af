"""What recording a run costs: ``Simulation`` with the default probes against the bare
stepping loop, on Ex. 6.2 (the cantilever, n_e 8, h 1e-3) and the flying spaghetti (n_e 10,
h 0.1).

    python bench/recording_cost.py [--repeat 9] [--json out.json]

For each problem, in one process after a warm-up run (forms compiled): the wall time of
``integrator.advance_to(t_end)`` (the bare loop), of ``Simulation(integrator).run(t_end)``
(rows in memory, the default probes) and of the same with a CSV written to a temporary
directory; the median and the minimum over ``--repeat`` fresh integrators of each,
interleaved, and their ratios to the bare loop's. A ratio of 1.15 is the target of the
feedback-control issue (a controlled run must cost little more than the steps).

Where the recorded run's extra time goes (``components``), on a fresh model after a run:
the first row (``first_row_ms``: what the probes make on first use, the compiled
functionals wrapped and the momentum's mass matrices), then per row [us] each default probe
(``probes_us``, by class), the whole row with the history (``row_us``) and the CSV line
written and flushed (``csv_write_us``), each the minimum over five rounds of many calls.
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


def _per_call_us(fn, calls: int = 2000) -> float:
    """The time [us] of one ``fn()``: the minimum over five rounds of ``calls`` calls."""
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return 1e6 * best


def components(name: str) -> dict:
    """The first row [ms] of a fresh model and the per-row costs [us] of the recording."""
    problem = PROBLEMS[name]()
    integ = problem.integrator()
    sim = Simulation(integ)
    t0 = time.perf_counter()
    sim._record(None)
    first = time.perf_counter() - t0
    integ.advance_to(problem.t_end)
    row = sim._row(None)
    probes = {type(p).__name__: _per_call_us(lambda p=p: p(sim, None)) for p in sim.probes}
    with tempfile.TemporaryDirectory() as tmp:
        writer = Simulation(integ, out_dir=tmp, name="run").csv
        csv_us = _per_call_us(lambda: writer.write(row))
        writer.close()
    return {"first_row_ms": 1e3 * first, "probes_us": probes,
            "row_us": _per_call_us(lambda: sim._record(None)), "csv_write_us": csv_us}


def measure(name: str, repeat: int) -> dict:
    """Medians and minima [s] of the three ways of running ``name`` and their ratios to the
    bare loop's."""
    make = PROBLEMS[name]
    _bare(make())                                            # warm-up: forms compiled
    times = {"bare": [], "memory": [], "csv": []}
    for _ in range(repeat):                                  # interleaved
        times["bare"].append(_bare(make()))
        times["memory"].append(_recorded(make(), csv=False))
        times["csv"].append(_recorded(make(), csv=True))
    med = {k: statistics.median(v) for k, v in times.items()}
    low = {k: min(v) for k, v in times.items()}
    return {"median_s": med, "ratio_memory": med["memory"] / med["bare"],
            "ratio_csv": med["csv"] / med["bare"], "min_s": low,
            "ratio_memory_min": low["memory"] / low["bare"],
            "ratio_csv_min": low["csv"] / low["bare"], "repeat": repeat,
            "components": components(name)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--json", default=None, help="write the results to this file")
    args = ap.parse_args()
    out = {name: measure(name, args.repeat) for name in PROBLEMS}
    print(f"{'problem':18s} {'':6s} {'bare s':>8s} {'memory s':>9s} {'csv s':>8s} "
          f"{'memory/bare':>12s} {'csv/bare':>9s}")
    for name, r in out.items():
        for stat, key, sfx in (("median", "median_s", ""), ("min", "min_s", "_min")):
            m = r[key]
            print(f"{name:18s} {stat:6s} {m['bare']:8.3f} {m['memory']:9.3f} {m['csv']:8.3f} "
                  f"{r['ratio_memory' + sfx]:12.2f} {r['ratio_csv' + sfx]:9.2f}")
        c = r["components"]
        print(f"  first row {c['first_row_ms']:.2f} ms; per row {c['row_us']:.1f} us ("
              + ", ".join(f"{k} {v:.1f}" for k, v in c["probes_us"].items())
              + f"), CSV line {c['csv_write_us']:.1f} us")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
