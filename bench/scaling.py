"""Strong and weak scaling across MPI ranks, with a model that predicts larger rank counts.

    python bench/scaling.py [--elements 100000] [--rods 64] [--steps 3] [--ranks 1,2]
                            [--json bench/scaling.json] [--dry-run]

Each measurement runs in a fresh interpreter under ``mpirun -n p`` (``--child``), times
``--steps`` steps after one warm-up step (wall time and process CPU time, the slowest rank;
the CPU time includes waits in MPI, which poll) and reports the peak
resident memory of every rank:

* **strong scaling**: the flying spaghetti with ``--elements`` elements (one long rod, the
  same problem on every rank count): serial with fxrod's default path (the chain solver)
  and with MUMPS, then on p ranks with both (the default: the chain solver across ranks,
  :mod:`fxrod.solvers.chain_mpi`; and MUMPS);
* **weak scaling**: a bundle of ``--rods`` rods per rank (10 elements each, parallel, 1 cm
  apart, each clamped at one end and bending under gravity: one ``Structure`` without
  joints, distributed by DOLFINx), so the work per rank stays the same.

**The communication model.** The 2-rank child also measures MPI's latency ``alpha`` [s] and
bandwidth ``beta`` [B/s] on this machine (ping-pong of 8 B and 1 MiB messages). A step of
the long rod on the chain solver across p ranks costs

    T(p) = T_par/p + T_seq + T_comm(p),
    T_comm(p) = its (n_red alpha log2(p) + ceil(log2(p)) (alpha + 8 (3 s^2 + s) (p - 1)/beta)),

with ``its`` the Newton iterations of the step, ``n_red = 4`` collective reductions per
iteration (residual norm, step norm, line search, convergence test) and, at most once per
iteration, the reductions of the interface system of ``p - 1`` cut vertices (``s = 18``
unknowns each): its blocks at a factorisation (``3 s^2`` doubles per cut) and its
right-hand side at a solve (``s``). ``T_par`` (the work that divides: assembly,
condensation and elimination of the pieces) and ``T_seq`` (what does not: Python, the
interface system) follow from the measured ``T(1)`` (the serial chain solver) and ``T(2)``;
the model then predicts ``T(p)`` for p = 4 ... 1024 and the parallel efficiency
``T(1)/(p T(p))``. It is a model of this machine's MPI (shared memory); on a cluster
measure ``alpha, beta`` there (``--dry-run`` prints the commands; the SLURM script
``bench/scaling.slurm`` runs them on N ranks).

``--dry-run`` prints the commands and the model's formula without running anything
(``tests/test_scaling_bench.py`` runs it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
#: Collective reductions per Newton iteration (model of the module docstring).
N_REDUCTIONS = 4
#: Unknowns of a cut vertex of the chain (12 position/director, 6 multipliers).
SEPARATOR = 18


def mpirun(ranks: int) -> list[str]:
    """The launcher for ``ranks`` processes (the venv's mpirun, else PATH's)."""
    exe = Path(sys.executable).parent / "mpirun"
    return [str(exe if exe.exists() else shutil.which("mpirun") or "mpirun"), "-n", str(ranks)]


def command(kind: str, ranks: int, size: int, steps: int, solver: str = "auto") -> list[str]:
    """The command of one measurement (``kind``: "strong" or "weak")."""
    cmd = [sys.executable, str(HERE), "--child", kind, "--size", str(size), "--steps",
           str(steps), "--solver", solver]
    return mpirun(ranks) + cmd if ranks > 1 else cmd


def _bundle(rods: int, comm):
    """``rods`` parallel cantilevers (10 elements, 1 m, 1 cm apart) under gravity."""
    from fxrod import Clamp, Gravity, Rod, RodModel, Section, Structure

    sec = Section.circular(radius=1e-3, E=1e9, rho=1000.0, nu=0.3)
    members = [Rod(sec, start=(0.0, 0.01 * i, 0.0), end=(1.0, 0.01 * i, 0.0),
                   d1=(0.0, 0.0, 1.0), n_elements=10) for i in range(rods)]
    return RodModel(Structure(members), [Gravity()], [Clamp("0", rod=i) for i in range(rods)],
                    comm=comm)


def _ping_pong(comm) -> tuple[float, float]:
    """MPI latency [s] (8 B round trips / 2) and bandwidth [B/s] (1 MiB) between ranks 0, 1."""
    import numpy as np

    out = []
    for nbytes, reps in ((8, 2000), (1 << 20, 50)):
        buf = np.zeros(nbytes // 8)
        comm.Barrier()
        t0 = time.perf_counter()
        for _ in range(reps):
            if comm.rank == 0:
                comm.Send(buf, 1)
                comm.Recv(buf, 1)
            elif comm.rank == 1:
                comm.Recv(buf, 0)
                comm.Send(buf, 0)
        out.append((time.perf_counter() - t0) / (2 * reps))
    alpha = out[0]
    return alpha, (1 << 20) / max(out[1] - alpha, 1e-12)


def child(kind: str, size: int, steps: int, solver: str) -> dict | None:
    """One measurement on this communicator; the row on rank 0."""
    from mpi4py import MPI

    import fxrod  # noqa: F401  (dolfinx_solver before petsc4py)
    from fxrod.runs.integrators import Integrator
    from fxrod.solvers.settings import SolverSettings
    from fxrod.studies.cases import demo

    comm = MPI.COMM_WORLD
    t0 = time.perf_counter()
    if kind == "strong":
        prob = demo("flying_spaghetti").problem(size, comm=comm)
        integ = prob.integrator(linear_solver=solver)
    else:
        integ = Integrator(_bundle(size, comm), 1e-3, SolverSettings(linear_solver=solver))
    setup = time.perf_counter() - t0
    integ.step()                                             # warm-up
    comm.Barrier()
    t0, c0 = time.perf_counter(), time.process_time()
    its = sum(integ.step().newton_its for _ in range(steps))
    wall = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
    cpu = comm.allreduce(time.process_time() - c0, op=MPI.MAX)   # waits in MPI included
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0        # MiB (Linux)
    peaks = comm.gather(peak, root=0)
    chain = getattr(integ.newton, "chain", None)
    row = {"kind": kind, "ranks": comm.size, "size": size, "steps": steps,
           "linear_solver": integ.settings.linear_solver,
           "backend": "chain" if chain is not None and chain.reason is None else "mumps",
           "setup_s": setup,
           "ms_per_step": 1e3 * wall / steps, "cpu_ms_per_step": 1e3 * cpu / steps,
           "newton_its_per_step": its / steps,
           "peak_mb_per_rank": peaks}
    if comm.size > 1:
        row["alpha_s"], row["beta_B_per_s"] = _ping_pong(comm)
    return row if comm.rank == 0 else None


def comm_time(p: int, its: float, alpha: float, beta: float) -> float:
    """``T_comm(p)`` [s] of one step (module docstring)."""
    if p <= 1:
        return 0.0
    levels = math.ceil(math.log2(p))
    cut = 3 * SEPARATOR**2 + SEPARATOR
    return its * (N_REDUCTIONS * alpha * math.log2(p)
                  + levels * (alpha + 8.0 * cut * (p - 1) / beta))


def model(t1: float, t2: float, its: float, alpha: float, beta: float,
          ranks=(4, 8, 16, 64, 256, 1024)) -> dict:
    """``T_par``, ``T_seq`` [s] from ``T(1)``, ``T(2)`` [s per step] and the predictions
    (none where ``T(2) >= T(1)``: no part divides at this size, the fit has no meaning)."""
    t_par = 2.0 * (t1 - t2 + comm_time(2, its, alpha, beta))
    t_seq = t1 - t_par
    out = {"T_par_s": t_par, "T_seq_s": t_seq, "T_comm_2_s": comm_time(2, its, alpha, beta),
           "excess_2_s": t2 - t1 / 2.0}
    if t_par > 0.0:
        pred = {p: t_par / p + t_seq + comm_time(p, its, alpha, beta) for p in ranks}
        out["predicted_ms_per_step"] = {str(p): 1e3 * t for p, t in pred.items()}
        out["predicted_efficiency"] = {str(p): t1 / (p * t) for p, t in pred.items()}
    return out


def run(cmd: list[str]) -> dict:
    """Run one measurement; its JSON row."""
    p = subprocess.run(cmd, capture_output=True, text=True, check=True,
                       env={**os.environ, "UCX_TLS": "self,sm,tcp", "OMP_NUM_THREADS": "1"})
    return json.loads([ln for ln in p.stdout.splitlines() if ln.startswith("{")][-1])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", type=int, default=100_000, help="the long rod's elements")
    ap.add_argument("--rods", type=int, default=64, help="rods per rank of the bundle")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--ranks", default="1,2", help="rank counts, comma-separated")
    ap.add_argument("--json", default=None, help="write the results here (else print only)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands only")
    ap.add_argument("--child", choices=("strong", "weak"), help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--solver", default="auto", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        row = child(a.child, a.size, a.steps, a.solver)
        if row is not None:
            print(json.dumps(row))
        return row or {}
    ranks = [int(r) for r in a.ranks.split(",")]
    plan = [("strong", 1, a.elements, "auto"), ("strong", 1, a.elements, "mumps")]
    plan += [("strong", p, a.elements, solver) for p in ranks if p > 1
             for solver in ("auto", "mumps")]
    plan += [("weak", p, a.rods * p, "auto") for p in ranks]
    if a.dry_run:
        for kind, p, size, solver in plan:
            print(" ".join(command(kind, p, size, a.steps, solver)))
        print("model: T(p) = T_par/p + T_seq + its (n_red alpha log2 p + ceil(log2 p) "
              f"(alpha + 8 (2 s)^2/beta)), n_red = {N_REDUCTIONS}, s = {SEPARATOR}")
        return {"plan": plan}
    rows = [run(command(kind, p, size, a.steps, solver)) for kind, p, size, solver in plan]
    out: dict = {"rows": rows}
    print(f"{'kind':>6} {'ranks':>5} {'size':>7} {'backend':>7} {'ms/step':>10} {'its':>5} "
          f"{'peak MiB/rank':>14}")
    for r in rows:
        print(f"{r['kind']:>6} {r['ranks']:>5} {r['size']:>7} {r['backend']:>7} "
              f"{r['ms_per_step']:>10.1f} {r['newton_its_per_step']:>5.1f} "
              f"{max(r['peak_mb_per_rank']):>14.0f}")
    chain1 = next(r for r in rows if r["kind"] == "strong" and r["linear_solver"] == "auto"
                  and r["ranks"] == 1)
    two = next((r for r in rows if r["kind"] == "strong" and r["ranks"] == 2
                and r["linear_solver"] == "auto"), None)
    if two is not None:
        out["chain_ratio_2"] = two["ms_per_step"] / chain1["ms_per_step"]
        print(f"chain solver: 2 ranks / serial = {out['chain_ratio_2']:.2f} per step")
        out["model"] = model(chain1["ms_per_step"] / 1e3, two["ms_per_step"] / 1e3,
                             two["newton_its_per_step"], two["alpha_s"], two["beta_B_per_s"])
        m = out["model"]
        print(f"MPI: alpha {two['alpha_s'] * 1e6:.2f} us, beta {two['beta_B_per_s'] / 1e9:.2f} "
              f"GB/s; T_par {m['T_par_s'] * 1e3:.1f} ms, T_seq {m['T_seq_s'] * 1e3:.1f} ms, "
              f"T_comm(2) {m['T_comm_2_s'] * 1e6:.1f} us per step (the model); T(2) - T(1)/2 = "
              f"{m['excess_2_s'] * 1e3:.1f} ms (measured)")
        if "predicted_efficiency" in m:
            print("predicted efficiency: " + ", ".join(
                f"p = {p}: {e:.2f}" for p, e in m["predicted_efficiency"].items()))
        else:
            print("no speed-up on 2 ranks at this size: no prediction")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
