"""Tendon hook: a soft finger curled by one tendon, checked against its closed form.

A silicone rod (L = 0.2 m, radius 0.01 m, E = 1 MPa) along e1, clamped at the origin, carries
one tendon 8 mm above the centreline over s in [0.05, 0.2] m (guided at s = 0.05 m,
anchored at the tip). The tension is ramped quasi-statically (t is a load factor) to the
value that curls the distal part through 225 degrees. The end state is compared with the
exact statics (fxrod.soft_arm, module docstring): a straight unstressed shank and an arc
with ``Gamma = (1 - T/k_e) e3``, ``K = (0, T rho/k_b, 0)``.

    python demos/tendon_hook.py [--out DIR] [--quick] [--n-elements 16] [--steps 10]
    mpirun -n 2 python demos/tendon_hook.py

Writes DIR/tendon_hook.csv (design.md columns plus ``tension`` [N] and the closed-form tip
``tip_exact_1..3`` [m]), DIR/tendon_hook.png (load-step snapshots) and DIR/tendon_hook.gif.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

import fxrod  # noqa: F401  (imports dolfinx_solver first)
from fxrod.integrators import Integrator
from fxrod.simulation import Simulation
from fxrod.soft_arm import HOOK, tendon_hook, tendon_hook_exact

NAME = "tendon_hook"


def end_state_error(sim: Simulation, p=HOOK) -> tuple[float, float] | None:
    """Relative errors of the final centreline and directors vs the closed form (rank 0):
    ``max_nodes |phi - phi_exact| / L`` and ``max_nodes |d_k - d_k,exact|``."""
    g = sim.centreline()
    if g is None:
        return None
    s, q = g
    phi, R = tendon_hook_exact(p, s=s)
    e_pos = float(np.max(np.linalg.norm(q[:, 0:3] - phi, axis=1))) / p.length
    d = q[:, 3:12].reshape(-1, 3, 3).transpose(0, 2, 1)   # columns d_k
    e_dir = float(np.max(np.abs(d - R)))
    return e_pos, e_dir


def main(argv=None) -> Simulation:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=f"results/{NAME}")
    ap.add_argument("--quick", action="store_true", help="8 elements, 5 load steps")
    ap.add_argument("--n-elements", type=int, default=HOOK.n_elements)
    ap.add_argument("--steps", type=int, default=10, help="load steps")
    ap.add_argument("--formulation", choices=("material", "spatial"), default="material")
    ap.add_argument("--no-pictures", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    ne, steps = (8, 5) if a.quick else (a.n_elements, a.steps)
    p = dataclasses.replace(HOOK, n_elements=ne)

    model = tendon_hook(p, formulation=a.formulation,
                        check_times=np.linspace(0.0, 1.0, 101))
    integ = Integrator(model, 1.0 / steps, mode="quasistatic")
    loads = np.round(np.linspace(0.0, 1.0, steps + 1), 12)

    def extra(s: Simulation) -> dict:
        tip = tendon_hook_exact(p, tension=s.integ.t * p.tension)[0][0]
        return {"tension": s.integ.t * p.tension,
                **{f"tip_exact_{i + 1}": float(tip[i]) for i in range(3)}}

    sim = Simulation(integ, a.out, NAME, snapshot_times=loads, quiet=a.quiet,
                     extra_columns=["tension", "tip_exact_1", "tip_exact_2", "tip_exact_3"],
                     extra=extra)
    t0 = time.perf_counter()
    sim.run(1.0)
    sim.close()
    wall = time.perf_counter() - t0
    err = end_state_error(sim, p)
    if model.comm.rank == 0:
        print(f"{NAME}: T = {p.tension:.6g} N, {steps} load steps, {ne} elements in "
              f"{wall:.2f} s; end state vs closed form: max |phi - phi_exact|/L = {err[0]:.2e},"
              f" max |d - d_exact| = {err[1]:.2e}")
        if not a.no_pictures:
            from fxrod import viz

            times = sorted(sim.snapshots)
            frames = [sim.snapshots[t] for t in times]
            exact = tendon_hook_exact(p, s=np.linspace(0.0, p.length, 101))[0]
            viz.snapshot_figure(frames, times, f"{a.out}/{NAME}.png", radius=p.radius / 3,
                                azimuth=0.0, elevation=0.0,
                                title=f"tendon hook, T = 0 ... {p.tension:.3g} N "
                                      "(black: closed form)", extra_lines=[exact])
            viz.animation(frames, times, f"{a.out}/{NAME}.gif", radius=p.radius / 3,
                          azimuth=0.0, elevation=0.0, fps=4)
            print(f"wrote {a.out}/{NAME}.csv, .png, .gif")
    return sim


if __name__ == "__main__":
    main()
