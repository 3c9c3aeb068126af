"""Per-step cost of the flying spaghetti for several mesh sizes, with a breakdown.

    python bench/step_cost.py [--sizes 10,100,1000,10000] [--steps N] [--json out.json]
                              [--linear-solver chain]

For each n_e: a few warm-up steps, then N timed steps (from t = 0: the loading phase;
``--start 6`` times the free flight instead, where the rod tumbles and Newton needs more
iterations). Breakdown per step in CPU time (:func:`instrument`; MUMPS: PETSc log
events): residual assembly, Jacobian assembly (with the chain solver: also its
cell-by-cell condensation and block factorisation), factorisation (MUMPS ``PCSetUp``:
symbolic + numeric; chain solver: the backward-error check), solves (``PCApply``; chain:
the check solve too), and the rest of ``cpu_ms`` (Python overhead, vector updates).
``cpu_ms`` is the process CPU time per step (less disturbed than wall time when other
processes share the cores). ``ms/step`` is the mean, ``median`` the median over the
timed steps (this machine's timings scatter by +-15 % from run to run).
``--unoptimised`` measures the path the speed-ups replaced (DOLFINx assembly, plain
predictor, MUMPS's automatic scaling; still modified Newton); run it with
``FXROD_MALLOC_TUNING=0`` in the environment to also drop the allocator setting.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import fxrod  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fxrod.studies.cases import demo


def _timed(fn, acc, key):
    """``fn`` adding its process CPU time [s] to ``acc[key]`` (CPU: less disturbed than
    wall time when other processes share the cores)."""
    def wrapper(*args, **kw):
        t0 = time.process_time()
        out = fn(*args, **kw)
        acc[key] += time.process_time() - t0
        return out
    return wrapper


def instrument(newton) -> dict:
    """Time the Newton solver's parts by wrapping its objects' methods (the SNES path and
    the fast path without SNES alike): residual (``KernelResidual.assemble``), Jacobian
    (``KernelJacobian.assemble``; with the chain solver attached it also condenses and
    factors, cell by cell), factor (``ChainSolver.factor``: the vertex sweep when not
    attached; and the check, ``backward_error``), solve (``ChainSolver.solve``, the check
    solve included). Returns the accumulator [s] (MUMPS runs: PETSc events instead)."""
    acc = {"residual": 0.0, "jacobian": 0.0, "factor": 0.0, "solve": 0.0}
    for obj, name, key in ((newton.fast_residual, "assemble", "residual"),
                           (newton.fast_jacobian, "assemble", "jacobian")):
        if obj is not None:
            setattr(obj, name, _timed(getattr(obj, name), acc, key))
    chain = newton.chain.chain if newton.chain is not None else None
    if chain is not None:
        for name, key in (("factor", "factor"), ("backward_error", "factor"),
                          ("solve", "solve")):
            setattr(chain, name, _timed(getattr(chain, name), acc, key))
    return acc


def measure(n_e: int, steps: int, warmup: int = 2, start: float = 0.0, **integ_kw) -> dict:
    from petsc4py import PETSc

    t0 = time.perf_counter()
    integ = demo("flying_spaghetti").problem(n_e).integrator(**integ_kw)
    setup = time.perf_counter() - t0
    newton = integ.newton
    acc = instrument(newton)
    snes = newton.snes
    if newton.fast_residual is None:  # DOLFINx's callbacks
        vec, (f, fargs, fkw) = snes.getFunction()
        snes.setFunction(_timed(f, acc, "residual"), vec, args=fargs, kargs=fkw)
    if newton.fast_jacobian is None:
        A, P, (j, jargs, jkw) = snes.getJacobian()
        snes.setJacobian(_timed(j, acc, "jacobian"), A, P, args=jargs, kargs=jkw)
    for _ in range(warmup):
        integ.step()
    if start > 0.0:
        integ.advance_to(start)
    acc.update(dict.fromkeys(acc, 0.0))
    ev = {k: PETSc.Log.Event(k) for k in ("PCSetUp", "PCApply")}
    before = {k: e.getPerfInfo()["time"] for k, e in ev.items()}
    its = 0
    per_step = []
    cpu0 = time.process_time()
    for _ in range(steps):
        t0 = time.perf_counter()
        its += integ.step().newton_its
        per_step.append(time.perf_counter() - t0)
    wall = sum(per_step)
    cpu = time.process_time() - cpu0
    after = {k: e.getPerfInfo()["time"] for k, e in ev.items()}
    if newton.chain is not None and newton.chain.chain is not None:
        fact, solve = acc["factor"], acc["solve"]
    else:  # MUMPS: PETSc's events
        fact = after["PCSetUp"] - before["PCSetUp"]
        solve = after["PCApply"] - before["PCApply"]
    row = {
        "n_e": n_e, "unknowns": integ.model.space.W.dofmap.index_map.size_global
        * integ.model.space.W.dofmap.index_map_bs, "setup_s": setup,
        "ms_per_step": 1e3 * wall / steps, "median_ms": 1e3 * statistics.median(per_step),
        "cpu_ms": 1e3 * cpu / steps, "linear_solver": integ.settings.linear_solver,
        "newton_its_per_step": its / steps, "t_start": start,
        "residual_ms": 1e3 * acc["residual"] / steps, "jacobian_ms": 1e3 * acc["jacobian"] / steps,
        "factor_ms": 1e3 * fact / steps, "solve_ms": 1e3 * solve / steps,
    }
    row["other_ms"] = row["cpu_ms"] - (row["residual_ms"] + row["jacobian_ms"]
                                            + row["factor_ms"] + row["solve_ms"])
    return row


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100,1000,10000")
    ap.add_argument("--steps", type=int, default=0, help="timed steps (default: by size)")
    ap.add_argument("--lag", type=int, default=None, help="jacobian_lag (default: fxrod's)")
    ap.add_argument("--start", type=float, default=0.0, help="time steps from this t [s]")
    ap.add_argument("--unoptimised", action="store_true",
                    help="DOLFINx assembly, plain predictor, MUMPS auto scaling")
    ap.add_argument("--linear-solver", default=None, choices=("mumps", "chain"))
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args(argv)
    kw = {} if a.lag is None else {"jacobian_lag": a.lag}
    if a.linear_solver is not None:
        kw["linear_solver"] = a.linear_solver
    if a.unoptimised:
        kw.update(fast_assembly=False, predictor="plain", mumps_icntl={8: 77})
    from mpi4py import MPI
    from petsc4py import PETSc

    PETSc.Log.begin()
    rank0 = MPI.COMM_WORLD.rank == 0
    say = print if rank0 else (lambda *a, **k: None)
    rows = []
    hdr = (f"{'n_e':>6} {'unknowns':>9} {'ms/step':>9} {'median':>8} {'cpu':>8} {'its':>5} "
           f"{'resid':>7} "
           f"{'jac':>7} "
           f"{'factor':>7} {'solve':>7} {'other':>7}")
    say(hdr)
    for n in (int(s) for s in a.sizes.split(",")):
        steps = a.steps or max(5, min(50, 20000 // n))
        r = measure(n, steps, start=a.start, **kw)
        rows.append(r)
        say(f"{r['n_e']:>6} {r['unknowns']:>9} {r['ms_per_step']:>9.2f} {r['median_ms']:>8.2f} "
              f"{r['cpu_ms']:>8.2f} "
              f"{r['newton_its_per_step']:>5.2f} {r['residual_ms']:>7.2f} {r['jacobian_ms']:>7.2f} "
              f"{r['factor_ms']:>7.2f} {r['solve_ms']:>7.2f} {r['other_ms']:>7.2f}", flush=True)
    if len(rows) > 1:
        import math

        def growth(a0: dict, a1: dict) -> str:
            p = math.log(a1["ms_per_step"] / a0["ms_per_step"]) / math.log(a1["n_e"] / a0["n_e"])
            return f"{a0['n_e']} -> {a1['n_e']}: {p:.2f}"

        pairs = zip(rows[:-1], rows[1:], strict=True)
        say("growth exponents: " + ", ".join(growth(a, b) for a, b in pairs)
            + (f"; overall {growth(rows[0], rows[-1])}" if len(rows) > 2 else ""))
    if rank0 and a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return rows


if __name__ == "__main__":
    main()
