"""Per-step cost of a bundle of fibres in contact (demos/bundle.py) and its growth with the
number of fibres, on 1 and 2 MPI ranks.

    python bench/bundle.py [--rods 125,250,500,1000] [--ranks 1,2] [--steps 20]
                           [--json bench/bundle.json]

Each measurement runs in a fresh interpreter (``mpirun -n p`` for p > 1): the demo's fibres
(4 elements, 210 unknowns each) start resting on the sphere's top
(``drop = 0``), the layers above land in the first steps; after one warm-up step, the run
to ``--steps`` steps of h = 1 ms later is timed (wall time, the slowest rank) with the demo's
solver settings (``demos/bundle.py``'s ``SETTINGS``: MUMPS, the chain solver takes no
contact, and a backtracking line search against the friction's Newton cycles) and
adaptive step cutting (a step whose Newton iterations do not converge is halved: at 250
fibres one does, a layer landing). A row reports the milliseconds per 1 ms step of
simulated time (cut steps included) and per Newton iteration, the accepted steps, the
Newton iterations and fibre pairs in contact per accepted step, the set-up
time (forms compiled, contact checked) and the peak resident memory of every rank.

The growth exponent ``a`` of ``ms_per_step ~ rods^a`` is fitted over the 1-rank rows
(``growth_exponent``): 1 is linear cost in the number of fibres. JSON only with ``--json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
from scaling import mpirun  # noqa: E402  (the launcher of bench/scaling.py)


def command(rods: int, ranks: int, steps: int) -> list[str]:
    """The command of one measurement."""
    cmd = [sys.executable, str(HERE), "--child", str(rods), "--steps", str(steps)]
    return mpirun(ranks) + cmd if ranks > 1 else cmd


def child(rods: int, steps: int) -> dict | None:
    """One measurement on COMM_WORLD; the row on rank 0."""
    from mpi4py import MPI

    import fxrod  # noqa: F401  (dolfinx_solver before petsc4py)
    from fxrod.runs.integrators import Integrator
    from fxrod.studies.cases import demo

    comm = MPI.COMM_WORLD
    t0 = time.perf_counter()
    bundle = demo("bundle")
    model, _, _, pairs = bundle.bundle(rods, drop=0.0, comm=comm)
    h = 1e-3
    integ = Integrator(model, h, dataclasses.replace(bundle.SETTINGS, adaptive=True))
    setup = time.perf_counter() - t0
    integ.step()                                                  # warm-up
    comm.Barrier()
    its, touching, accepted, t0 = 0, 0, 0, time.perf_counter()
    t_end = integ.t + steps * h
    while integ.t < t_end - 1e-9 * h:
        its += integ.step().newton_its
        touching += len(pairs.touching()[2])
        accepted += 1
    wall = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0        # MiB (Linux)
    peaks = comm.gather(peak, root=0)
    row = {"rods": rods, "ranks": comm.size, "steps": steps,
           "unknowns": model.w.function_space.dofmap.index_map.size_global
           * model.w.function_space.dofmap.index_map_bs,
           "linear_solver": integ.settings.linear_solver, "setup_s": setup,
           "ms_per_step": 1e3 * wall / steps, "accepted_steps": accepted,
           "newton_its_per_step": its / accepted,
           "ms_per_newton_it": 1e3 * wall / max(its, 1), "pairs_per_step": touching / accepted,
           "peak_mb_per_rank": peaks}
    return row if comm.rank == 0 else None


def run(cmd: list[str]) -> dict:
    """Run one measurement; its JSON row."""
    p = subprocess.run(cmd, capture_output=True, text=True, check=True,
                       env={**os.environ, "UCX_TLS": "self,sm,tcp", "OMP_NUM_THREADS": "1"})
    return json.loads([ln for ln in p.stdout.splitlines() if ln.startswith("{")][-1])


def growth(rows: list[dict]) -> float | None:
    """Least-squares exponent ``a`` of ``ms_per_step ~ rods^a`` over the 1-rank rows."""
    one = [r for r in rows if r["ranks"] == 1]
    if len(one) < 2:
        return None
    x = np.log([r["rods"] for r in one])
    y = np.log([r["ms_per_step"] for r in one])
    return float(np.polyfit(x, y, 1)[0])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rods", default="125,250,500,1000", help="fibre counts, comma-separated")
    ap.add_argument("--ranks", default="1,2", help="rank counts, comma-separated")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--json", default=None, help="write the results here (else print only)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        row = child(a.child, a.steps)
        if row is not None:
            print(json.dumps(row))
        return row or {}
    plan = [(n, p) for p in (int(r) for r in a.ranks.split(","))
            for n in (int(r) for r in a.rods.split(","))]
    print(f"{'rods':>5} {'ranks':>5} {'unknowns':>9} {'ms/step':>9} {'its':>5} {'ms/it':>8} "
          f"{'pairs':>7} {'setup s':>8} {'MiB/rank':>9}")
    rows = []
    for n, p in plan:
        r = run(command(n, p, a.steps))
        rows.append(r)
        print(f"{r['rods']:>5} {r['ranks']:>5} {r['unknowns']:>9} {r['ms_per_step']:>9.1f} "
              f"{r['newton_its_per_step']:>5.1f} {r['ms_per_newton_it']:>8.1f} "
              f"{r['pairs_per_step']:>7.0f} {r['setup_s']:>8.1f} "
              f"{max(r['peak_mb_per_rank']):>9.0f}", flush=True)
    out = {"rows": rows, "growth_exponent": growth(rows)}
    if out["growth_exponent"] is not None:
        print(f"ms per step ~ rods^{out['growth_exponent']:.2f} on one rank")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
