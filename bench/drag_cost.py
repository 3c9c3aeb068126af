"""What drag, damping and added mass add to a step's cost.

    python bench/drag_cost.py [--repeat 7] [--steps 100] [--json bench/drag_cost.json]

A cantilever (1 m, radius 1 cm, E 2e6 Pa, 16 elements) under gravity, hit at its tip by a
smooth 50 ms impulse, ``--steps`` steps of 5 ms with fxrod's default settings (the chain
solver), without any fluid term (``bare``) and with each of: resistive-force drag in a flow
(``rft``), Morison drag with buoyancy in a current (``morison``), the same with the added
mass (``morison+added``), ambient damping (``ambient``), mass- and stiffness-proportional
Rayleigh damping (``rayleigh``), and all of them (``all``). Each variant's model is built
and its first step taken (forms compiled) before the clock; then the variants run
interleaved, ``--repeat`` times each, on fresh integrators (the same model re-initialised).
Prints the minimum and median wall time per step and their ratios to ``bare``; the issue's
target is a ratio of at most 1.2 per law.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import fxrod  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fxrod.core.forms.drag import (
    AddedMass,
    AmbientDamping,
    MorisonDrag,
    RayleighDamping,
    ResistiveForceDrag,
)
from fxrod.core.loads import EndLoad, Gravity, smooth_impulse
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.runs.integrators import Integrator

LAWS = {
    "bare": lambda: [],
    "rft": lambda: [ResistiveForceDrag(0.3, 0.6, flow=(0.0, 0.02, 0.0))],
    "morison": lambda: [MorisonDrag(1000.0, 0.02, 1.2, 0.3, current=(0.1, 0.0, 0.0))],
    "morison+added": lambda: [MorisonDrag(1000.0, 0.02, 1.2, 0.3, current=(0.1, 0.0, 0.0)),
                              AddedMass(1000.0, 0.02, 1.0)],
    "ambient": lambda: [AmbientDamping(0.2, 2e-3)],
    "rayleigh": lambda: [RayleighDamping(0.3, 2e-3)],
    "all": lambda: [ResistiveForceDrag(0.3, 0.6, flow=(0.0, 0.02, 0.0)),
                    MorisonDrag(1000.0, 0.02, 1.2, 0.3, current=(0.1, 0.0, 0.0)),
                    AddedMass(1000.0, 0.02, 1.0), AmbientDamping(0.2, 2e-3),
                    RayleighDamping(0.3, 2e-3)],
}


def model(extensions: list) -> RodModel:
    """The hit cantilever of the module docstring with ``extensions``."""
    sec = Section.circular(radius=0.01, E=2e6, rho=1000.0, nu=0.3)
    rod = Rod(sec, start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=16)
    f = smooth_impulse(0.0, 0.05)
    load = EndLoad("L", force=lambda t: f(t) * np.array([0.0, 0.2, 0.3]),
                   moment=lambda t: f(t) * np.array([0.02, 0.0, 0.0]))
    return RodModel(rod, [load, Gravity((0.0, 0.0, -9.81))], [Clamp("0")],
                    extensions=extensions)


def run(m: RodModel, steps: int) -> float:
    """Wall time per step [s] of ``steps`` steps from the reference state at rest."""
    m.set_initial_state()
    integ = Integrator(m, 5e-3)
    t0 = time.perf_counter()
    for _ in range(steps):
        integ.step()
    return (time.perf_counter() - t0) / steps


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--json", default=None, help="write the results here (else print only)")
    a = ap.parse_args(argv)
    models = {k: model(make()) for k, make in LAWS.items()}
    for m in models.values():                                  # compile
        run(m, 1)
    times: dict[str, list[float]] = {k: [] for k in LAWS}
    for _ in range(a.repeat):                                  # interleaved
        for k, m in models.items():
            times[k].append(run(m, a.steps))
    out = {}
    bmin, bmed = min(times["bare"]), statistics.median(times["bare"])
    print(f"{'law':<15} {'min ms/step':>12} {'median':>8} {'ratio min':>10} {'ratio med':>10}")
    for k, ts in times.items():
        lo, med = min(ts), statistics.median(ts)
        out[k] = {"ms_per_step": [1e3 * t for t in ts], "min_ms": 1e3 * lo,
                  "median_ms": 1e3 * med, "ratio_min": lo / bmin, "ratio_median": med / bmed}
        print(f"{k:<15} {1e3 * lo:>12.3f} {1e3 * med:>8.3f} {lo / bmin:>10.3f} "
              f"{med / bmed:>10.3f}")
    result = {"laws": out, "repeat": a.repeat, "steps": a.steps}
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(result, fh, indent=1)
    return result


if __name__ == "__main__":
    main()
