"""Ensemble benchmark (issue 22): N flying spaghetti stepped together on one core.

    python bench/ensemble.py [--members 1000] [--n-elements 10] [--steps 100] [--h 0.1]
                             [--json bench/ensemble.json]

The rod and loads of ``demos/flying_spaghetti.py`` (Table 1, loads (74)); member k
carries the load factor ``0.5 + k/(N - 1)`` (0.5 .. 1.5). Steps of h = 0.1 s from t = 0
with the chain solver and fxrod's other defaults (Newton atol 1e-11 of the paper). Prints
the wall time of the setup (mesh, forms, JIT, solver) and of the stepping with a
CPU-time breakdown (residual, Jacobian with the chain solver's cell-by-cell condensation and
factorisation, factorisation check, solves, rest), Newton iterations, and the
tips' spread at the end; writes the row as JSON. Target of the issue: 1000 rods x 10
elements x 100 steps in <= 60 s on one core.

Newton iterations: one Newton solve serves all members, so each step takes as many
iterations as its hardest member (load factor 1.5: 6.5 a step over the 100 steps alone,
against 4.9 at factor 1.0), plus the effect of the 2-norm over all members on the
absolute tolerance (atol on ``|F|`` of N members is ~ atol / sqrt(N) a member: 6.85 its
a step for N = 100 at atol 1e-11, 6.17 at 1e-10; measured 2026-12).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from step_cost import instrument  # bench/ is the script's directory

import fxrod  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fxrod.core.rod import Rod
from fxrod.problems.paper import PAPER_SETTINGS, flying_spaghetti_section
from fxrod.studies.cases import demo


def measure(members: int, n_elements: int, steps: int, h: float) -> dict:
    from dataclasses import replace

    from fxrod.runs.ensemble import Ensemble

    t0 = time.perf_counter()
    rod = Rod(flying_spaghetti_section(), start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0),
              d1=(0.0, 1.0, 0.0), n_elements=n_elements)
    amps = np.linspace(0.5, 1.5, members)
    ens = Ensemble(rod, demo("flying_spaghetti").loads(), amps)
    t_model = time.perf_counter() - t0
    integ = ens.integrator(h, replace(PAPER_SETTINGS, linear_solver="chain"))
    setup = time.perf_counter() - t0
    acc = instrument(integ.newton)
    its = 0
    t1 = time.perf_counter()
    cpu0 = time.process_time()
    for _ in range(steps):
        its += integ.step().newton_its
    stepping = time.perf_counter() - t1
    cpu = time.process_time() - cpu0
    tips = ens.tips()
    row = {
        "members": members, "n_elements": n_elements, "steps": steps, "h": h,
        "unknowns": int(ens.model.w.x.array.size), "setup_s": setup, "model_s": t_model,
        "stepping_s": stepping, "stepping_cpu_s": cpu, "total_s": setup + stepping,
        "ms_per_step": 1e3 * stepping / steps, "newton_its_per_step": its / steps,
        "chain": integ.newton.chain is not None and integ.newton.chain.reason is None,
        "residual_s": acc["residual"], "jacobian_s": acc["jacobian"],
        "factor_s": acc["factor"], "solve_s": acc["solve"],
        "tip_x_min": float(tips[:, 0].min()), "tip_x_max": float(tips[:, 0].max()),
    }
    row["other_s"] = cpu - sum(row[k] for k in ("residual_s", "jacobian_s", "factor_s",
                                                      "solve_s"))
    return row


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=1000)
    ap.add_argument("--n-elements", type=int, default=10)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--h", type=float, default=0.1)
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args(argv)
    r = measure(a.members, a.n_elements, a.steps, a.h)
    print(f"{r['members']} rods x {r['n_elements']} elements x {r['steps']} steps "
          f"({r['unknowns']} unknowns, chain solver: {r['chain']})")
    print(f"setup {r['setup_s']:.2f} s (model {r['model_s']:.2f} s), stepping "
          f"{r['stepping_s']:.2f} s ({r['ms_per_step']:.1f} ms/step, cpu "
          f"{r['stepping_cpu_s']:.2f} s), total {r['total_s']:.2f} s")
    print(f"stepping: residual {r['residual_s']:.2f} s, Jacobian {r['jacobian_s']:.2f} s, "
          f"factor {r['factor_s']:.2f} s, solve {r['solve_s']:.2f} s, other "
          f"{r['other_s']:.2f} s; {r['newton_its_per_step']:.2f} Newton its/step")
    print(json.dumps(r))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(r, fh, indent=1)
    return r


if __name__ == "__main__":
    main()
