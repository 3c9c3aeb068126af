"""Flying spaghetti (Kinon, Eugster & Betsch 2026, Ex. 6.1; Simo & Vu-Quoc 1988).

A free rod, loaded at one end by a force and a moment that rise and fall over t in [0, 5],
then flies and tumbles freely; energy and momenta are conserved to solver tolerance.

    python demos/flying_spaghetti.py [--out DIR] [--quick] [--h 0.1] [--n-elements 10]
    mpirun -n 2 python demos/flying_spaghetti.py

Writes DIR/flying_spaghetti.csv (design.md columns), DIR/flying_spaghetti.png (pyvista
snapshots at t = 0, 2.5, ..., 15, azimuth 55, elevation 15), DIR/flying_spaghetti.gif and
DIR/flying_spaghetti.pvd (ParaView).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import fxrod  # noqa: F401  (imports dolfinx_solver first)
from fxrod.examples import flying_spaghetti
from fxrod.integrators import Integrator
from fxrod.simulation import Interrupted, Simulation

NAME = "flying_spaghetti"


def main(argv=None) -> Simulation:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=f"results/{NAME}")
    ap.add_argument("--quick", action="store_true", help="t_end = 5 (end of loading)")
    ap.add_argument("--h", type=float, default=0.1, help="time step")
    ap.add_argument("--t-end", type=float, default=15.0)
    ap.add_argument("--n-elements", type=int, default=10)
    ap.add_argument("--kirchhoff", action="store_true", help="constrained (C_N = 0) rod")
    ap.add_argument("--adaptive", action="store_true",
                    help="halve a step whose Newton solve fails, regrow afterwards")
    ap.add_argument("--checkpoint-every", type=int, default=0, metavar="K",
                    help="write the full state every K steps (and at the end)")
    ap.add_argument("--restart", default=None, metavar="DIR",
                    help="continue the run from the checkpoint in DIR")
    ap.add_argument("--no-pictures", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    t_end = 5.0 if a.quick else a.t_end

    model = flying_spaghetti(a.n_elements, constraints=("kirchhoff",) if a.kirchhoff else ())
    integ = Integrator(model, a.h, atol=1e-11, rtol=1e-14, adaptive=a.adaptive)
    snaps = list(np.arange(0.0, t_end + 1e-9, 2.5))
    sim = Simulation(integ, a.out, NAME, snapshot_times=snaps, paraview_every=1,
                     quiet=a.quiet, checkpoint_every=a.checkpoint_every, restart=a.restart)
    t0 = time.perf_counter()
    try:
        sim.run(t_end)
    except Interrupted as e:
        if model.comm.rank == 0:
            print(f"{NAME}: {e}", file=sys.stderr)
        raise SystemExit(128 + e.signum) from None
    wall = time.perf_counter() - t0
    sim.close()
    if model.comm.rank == 0:
        last = sim.rows[-1]
        print(f"{NAME}: {integ.step_count} steps in {wall:.2f} s; t = {last['t']:g}, "
              f"H = {last['H']:.10g}, p = ({last['p_1']:.6g}, {last['p_2']:.3g}, "
              f"{last['p_3']:.3g}), J = ({last['J_1']:.7g}, {last['J_2']:.9g}, "
              f"{last['J_3']:.9g}), max |energy residual| = "
              f"{np.max(np.abs(sim.column('energy_residual'))):.2e}")
        if not a.no_pictures:
            from fxrod import viz

            times = sorted(sim.snapshots)
            viz.snapshot_figure([sim.snapshots[t] for t in times], times,
                                f"{a.out}/{NAME}.png", radius=0.25,
                                title="flying spaghetti", zoom=1.35)
            frames = _frames_from_pvd(sim)
            viz.animation(frames[1], frames[0], f"{a.out}/{NAME}.gif", radius=0.12)
            print(f"wrote {a.out}/{NAME}.csv, .png, .gif, .pvd")
    return sim


def _frames_from_pvd(sim: Simulation, max_frames: int = 60):
    """Centrelines of the ParaView frames (subsampled) for the animation."""
    import pyvista as pv

    entries = sim.pvd.entries
    stride = max(1, len(entries) // max_frames)
    times, frames = [], []
    for t, rel in entries[::stride]:
        times.append(t)
        frames.append(np.asarray(pv.read(sim.out_dir / rel).points))
    return times, frames


if __name__ == "__main__":
    main()
