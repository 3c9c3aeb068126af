"""Quasi-static cantilever (Kinon, Eugster & Betsch 2026, Ex. 6.3; Harsch et al. 2021).

A cantilever of length 2 pi, clamped at the origin, loaded at its tip by a dead force
t (0, -P, 0) and moment t (0, 0, 2.5 P), P = 10 k_b / L^2, with the load factor t in [0, 1].
Two cases: shearable/extensible ("unconstrained") and Kirchhoff ("constrained", C_N = 0,
the Euler elastica). Exact planar solutions overlaid (shared/reference/exact).

    python demos/quasistatic_cantilever.py [--out DIR] [--quick] [--h 0.1] [--n-elements 8]

Writes DIR/quasistatic_cantilever_unconstrained.csv and ..._constrained.csv (t = load
factor), DIR/quasistatic_cantilever_centrelines.csv (centrelines at t = 0.1, 0.2, 0.4, 1) and
DIR/quasistatic_cantilever.png (the paper's Fig. 14).
"""

from __future__ import annotations

import argparse
import csv
import os
from pathlib import Path

import numpy as np

import fxrod  # noqa: F401
from fxrod.errors import check_range
from fxrod.examples import quasistatic_cantilever
from fxrod.integrators import Integrator
from fxrod.simulation import Simulation

NAME = "quasistatic_cantilever"
TIMES = (0.1, 0.2, 0.4, 1.0)


def exact_dir() -> Path | None:
    """Where the exact planar solutions are (shared/reference/exact), if present."""
    here = Path(__file__).resolve().parents[1]
    for cand in (os.environ.get("FXROD_SHARED"), here.parent / "shared"):
        if cand and (Path(cand) / "reference/exact").exists():
            return Path(cand) / "reference/exact"
    return None


def run_case(constrained: bool, n_elements: int, h: float, t_end: float, out: str | None,
             evaluation: str = "endpoint", quiet: bool = True) -> Simulation:
    """One load-stepping run; returns the Simulation (rows and centreline snapshots)."""
    model = quasistatic_cantilever(n_elements, constrained=constrained)
    integ = Integrator(model, h, mode="quasistatic", evaluation=evaluation, adaptive=True)
    name = f"{NAME}_{'constrained' if constrained else 'unconstrained'}"
    sim = Simulation(integ, out, name, snapshot_times=[0.0, *TIMES], quiet=quiet)
    sim.run(t_end)
    sim.close()
    return sim


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=f"results/{NAME}")
    ap.add_argument("--quick", action="store_true", help="h = 0.2")
    ap.add_argument("--h", type=float, default=0.1, help="load-factor increment")
    ap.add_argument("--t-end", type=float, default=1.0, help="final load factor, in [0, 1]")
    ap.add_argument("--n-elements", type=int, default=8)
    ap.add_argument("--evaluation", choices=("endpoint", "midpoint"), default="endpoint")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    t_end = check_range("t_end", a.t_end, 0.0, 1.0)
    h = 0.2 if a.quick else a.h
    sims = {c: run_case(c, a.n_elements, h, t_end, a.out, a.evaluation, a.quiet)
            for c in (False, True)}
    from mpi4py import MPI

    if MPI.COMM_WORLD.rank != 0:
        return sims
    with open(Path(a.out) / f"{NAME}_centrelines.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["case", "t", "node", "x", "y", "z"])
        for c, sim in sims.items():
            for t, pts in sorted(sim.snapshots.items()):
                for i, p in enumerate(pts):
                    w.writerow(["constrained" if c else "unconstrained", t, i, *map(repr, p)])
    figure(sims, Path(a.out) / f"{NAME}.png")
    for c, sim in sims.items():
        r = sim.rows[-1]
        print(f"{'constrained' if c else 'unconstrained'}: tip at t = {r['t']:g}: "
              f"({r['tip_1']:.9f}, {r['tip_2']:.9f})")
    return sims


def figure(sims, path) -> None:
    """Centrelines at t = 0.1, 0.2, 0.4, 1 and the tip path, with the exact solution."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    ex = exact_dir()
    for ax, (c, sim) in zip(axes, sims.items(), strict=True):
        case = "constrained" if c else "unconstrained"
        for t, pts in sorted(sim.snapshots.items()):
            ax.plot(pts[:, 0], pts[:, 1], "o-", ms=3, label=f"fxrod t = {t:g}")
        ax.plot(sim.column("tip_1"), sim.column("tip_2"), "k.", ms=4, label="fxrod tip")
        if ex is not None:
            tipf = "elastica_constrained_tip.csv" if c else "reissner_unconstrained_tip.csv"
            tip = np.loadtxt(ex / tipf, delimiter=",", skiprows=1)
            ax.plot(tip[:, 1], tip[:, 2], "k-", lw=0.8, label="exact tip path")
            with open(ex / "exact_centerlines.csv") as fh:
                rows = [r for r in csv.DictReader(fh) if r["case"] == case]
            for t in sorted({float(r["t"]) for r in rows}):
                xy = np.array([[float(r["x"]), float(r["y"])] for r in rows
                               if float(r["t"]) == t])
                ax.plot(xy[:, 0], xy[:, 1], "k--", lw=0.8)
        ax.set_title(f"{case} (dashed: exact)")
        ax.set_aspect("equal")
        ax.set_xlabel("x")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("y")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
