"""Pneumatic soft robotic arm (Kinon, Eugster & Betsch 2026, Ex. 6.4; spec 4.4).

A silicone arm clamped at the origin along e3 with three pressure chambers. The circle input
(79)-(80) bends it towards +e1, drives the tip once around a circle at nearly constant
height and straightens it again; the heart input (81) draws a cardioid.

    python demos/soft_arm.py [--path circle|heart] [--out DIR] [--quick]
    mpirun -n 2 python demos/soft_arm.py --path heart

Writes DIR/soft_arm_<path>.csv (design.md columns, ``port_work`` = chamber work, and the
chamber forces ``tau_1..3`` [N] at t), DIR/soft_arm_<path>.png (centreline snapshots and the
tip path, azimuth 55, elevation 15, as the paper's Fig. 16) and DIR/soft_arm_<path>.gif.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import fxrod  # noqa: F401  (imports dolfinx_solver first)
from fxrod.integrators import Integrator
from fxrod.simulation import Simulation
from fxrod.soft_arm import PATHS, SOFT_ARM, chamber_forces, soft_arm

NAME = "soft_arm"


def main(argv=None) -> Simulation:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", choices=PATHS, default="circle")
    ap.add_argument("--out", default=f"results/{NAME}")
    ap.add_argument("--quick", action="store_true", help="t_end = 1 s (bending + start of path)")
    ap.add_argument("--n-elements", type=int, default=SOFT_ARM.n_elements)
    ap.add_argument("--no-pictures", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    p = SOFT_ARM
    t_end = 1.0 if a.quick else p.t_end
    name = f"{NAME}_{a.path}"

    model = soft_arm(a.path, p, n_elements=a.n_elements)
    integ = Integrator(model, p.h, atol=1e-11, rtol=1e-14)
    steps = np.round(np.arange(0.0, t_end + 1e-9, p.h), 10)
    sim = Simulation(
        integ, a.out, name, snapshot_times=steps, quiet=a.quiet,
        extra_columns=["tau_1", "tau_2", "tau_3"],
        extra=lambda s: {f"tau_{k + 1}": float(v)
                         for k, v in enumerate(chamber_forces(a.path, s.integ.t, p))},
    )
    t0 = time.perf_counter()
    sim.run(t_end)
    sim.close()
    wall = time.perf_counter() - t0
    if model.comm.rank == 0:
        tip = np.c_[sim.column("tip_1"), sim.column("tip_2"), sim.column("tip_3")]
        t = sim.column("t")
        H = sim.column("H")
        res = np.abs(sim.column("energy_residual")[1:]) / np.maximum(1.0, H[1:])
        # circle: the revolution t in [t1, t2]; heart: the whole run
        lo, hi = (p.t1, min(p.t2, t_end)) if a.path == "circle" else (0.0, t_end)
        rev = (t >= lo - 1e-9) & (t <= hi + 1e-9)
        print(f"{name}: {integ.step_count} steps in {wall:.2f} s; tip at t = {t[-1]:g}: "
              f"({tip[-1, 0]:.6f}, {tip[-1, 1]:.6f}, {tip[-1, 2]:.6f}) m; "
              f"z in [{tip[rev, 2].min():.5f}, {tip[rev, 2].max():.5f}] m for "
              f"t in [{lo:g}, {hi:g}] s; max |energy residual|/max(1, H) = "
              f"{res.max():.2e}; chamber work {sim.column('port_work')[-1]:.6g} J")
        if not a.no_pictures:
            from fxrod import viz

            times = [ts for ts in sorted(sim.snapshots)
                     if abs(ts / 0.5 - round(ts / 0.5)) < 1e-9]
            viz.snapshot_figure([sim.snapshots[ts] for ts in times], times,
                                f"{a.out}/{name}.png", radius=0.004,
                                azimuth=55.0, elevation=15.0,
                                title=f"soft arm, {a.path} input", extra_lines=[tip])
            frames = sorted(sim.snapshots)[::2]   # every 0.1 s
            viz.animation([sim.snapshots[ts] for ts in frames], frames, f"{a.out}/{name}.gif",
                          radius=0.004, trail=tip[::2])
            print(f"wrote {a.out}/{name}.csv, .png, .gif")
    return sim


if __name__ == "__main__":
    main()
