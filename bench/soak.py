"""Soak: memory and wall time per step over a long free flight of the flying spaghetti.

    python bench/soak.py [--steps 10000] [--block 1000] [--n-elements 10] [--json bench/soak.json]
    mpirun -n 2 python bench/soak.py --steps 100000 --block 10000 --json soak_mpi.json

The rod (n_e = 10, h = 0.1, the paper's Newton tolerance, stol 1e-12) is loaded to t = 5
and then flies freely for ``--steps`` steps, written to a CSV in a temporary directory with
``keep_rows=False`` (as a long production run would). After every block of ``--block`` steps
the script records the wall time per step, the resident set (current VmRSS and the peak;
under MPI the largest over the ranks), the Newton iterations per step and the largest
energy residual of the block; rank 0 prints a table and writes the JSON. The test suite
checks the physics of the soak (tests/test_reliability.py::test_soak_short, test_soak_long,
test_soak_mpi); timings live here because they scatter with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from mpi4py import MPI

import fxrod  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fxrod.output.tables import read_csv
from fxrod.problems.paper import PAPER_SETTINGS
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import demo


def rss_mb() -> float:
    """Current resident set [MB] (Linux /proc; the peak where /proc is missing)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return peak_rss_mb()


def peak_rss_mb() -> float:
    """Peak resident set [MB] of this process (ru_maxrss is in kB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10_000, help="free-flight steps")
    ap.add_argument("--block", type=int, default=1000, help="steps per table row")
    ap.add_argument("--n-elements", type=int, default=10)
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args(argv)
    h = 0.1
    rows = []
    comm = MPI.COMM_WORLD
    tmpdir = tempfile.mkdtemp() if comm.rank == 0 else None
    tmp = comm.bcast(tmpdir, root=0)
    try:
        # stol 1e-12: the rod flies 10^4 length units and more from the origin, where the
        # residual's round-off floor is above atol and Newton's last updates stagnate at
        # ~1e-13 of |x| (at 1e-13 a step 12 km out ran into max_it; README, solver notes)
        integ = Integrator(demo("flying_spaghetti").problem(a.n_elements).model, h,
                           PAPER_SETTINGS.replace(stol=1e-12))
        integ.advance_to(5.0)
        sim = Simulation(integ, tmp, "soak", keep_rows=False, quiet=True)
        rss_start, t_sim = rss_mb(), 5.0
        done = 0
        while done < a.steps:
            n = min(a.block, a.steps - done)
            count0 = integ.step_count
            t0 = time.perf_counter()
            t_sim = 5.0 + h * (done + n)
            sim.run(t_sim)
            dt = time.perf_counter() - t0
            done += n
            rows.append({"steps": done, "t": t_sim, "ms_per_step": 1e3 * dt / n,
                         "rss_mb": comm.allreduce(rss_mb(), op=MPI.MAX),
                         "peak_rss_mb": comm.allreduce(peak_rss_mb(), op=MPI.MAX),
                         "steps_in_block": integ.step_count - count0})
        sim.close()
        if comm.rank != 0:
            return {}
        d = read_csv(Path(tmp) / "soak.csv")
    finally:
        comm.Barrier()
        if comm.rank == 0:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    res = np.abs(d["energy_residual"][1:])
    its = d["newton_its"][1:]
    edges = np.r_[0, [r["steps"] for r in rows]]
    for r, lo, hi in zip(rows, edges[:-1], edges[1:], strict=True):
        r["newton_its_mean"] = float(np.mean(its[lo:hi]))
        r["max_energy_residual"] = float(np.max(res[lo:hi]))
    H = d["H"]
    out = {"n_elements": a.n_elements, "h": h, "steps": a.steps, "block": a.block,
           "ranks": comm.size, "csv_rows": int(len(d["t"])),
           "rss_start_mb": rss_start, "rss_end_mb": rows[-1]["rss_mb"],
           "rss_growth": rows[-1]["rss_mb"] / rows[0]["rss_mb"] - 1.0,
           "ms_per_step_first_block": rows[0]["ms_per_step"],
           "ms_per_step_last_block": rows[-1]["ms_per_step"],
           "H_max": float(np.max(H)), "H_relative_spread": float(np.ptp(H) / np.max(H)),
           "blocks": rows}
    print(f"soak: flying spaghetti, n_e = {a.n_elements}, h = {h}, {a.steps} free-flight "
          f"steps from t = 5 on {comm.size} rank(s) (RSS before: {rss_start:.1f} MB)")
    print(f"{'steps':>7} {'t':>8} {'ms/step':>8} {'Newton':>7} {'RSS MB':>8} {'peak MB':>8} "
          f"{'max |res|':>10}")
    for r in rows:
        print(f"{r['steps']:>7} {r['t']:>8.1f} {r['ms_per_step']:>8.2f} "
              f"{r['newton_its_mean']:>7.2f} {r['rss_mb']:>8.1f} {r['peak_rss_mb']:>8.1f} "
              f"{r['max_energy_residual']:>10.2e}")
    print(f"RSS growth from the first to the last block {100 * out['rss_growth']:+.2f} %; "
          f"ms/step first/last block {out['ms_per_step_first_block']:.2f} / "
          f"{out['ms_per_step_last_block']:.2f}; H spread {out['H_relative_spread']:.1e}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
