"""Graded steel cantilever under gravity with the 2D ANCF beam (seed 004's study, correct numbers).

The seed blog's beam -- L = 1 m, 0.02 x 0.02 m, rho = 7850 kg/m^3, E0 = 2.07e11 Pa -- with
the axially graded modulus ``E(x) = E0 (1 - lam (x/L)^n)`` for the five cases
``(lam, n) = (0, -), (0.3, 1), (0.3, 2), (0.6, 1), (0.6, 2)``. For each case:

1. static tip deflection under gravity (Newton, ANCF option (1), full clamp) and the first
   circular eigenfrequency (SLEPc), both checked against linear Euler-Bernoulli theory
   integrated numerically (:mod:`fxrod.ancf.linear_beam`);
2. the dynamic release from the straight state with the explicit central difference at
   0.9 of the SLEPc stability limit, with its energy balance.

Outputs in ``--out DIR`` (rank 0 only):

* ``ancf_graded_cantilever.csv`` -- one row per case: ``lam, n, tip_deflection [m],
  omega_1 [rad/s]`` plus the linear-theory values, their relative gaps, the explicit step
  and the explicit run's energy error (``n = 1`` for the uniform case, where it is moot);
* ``ancf_graded_cantilever_release.csv`` -- time series of the releases (design.md columns);
* ``ancf_graded_cantilever_tip.png`` (tip histories), ``..._shapes.png`` (static shapes),
  ``..._curvature.png`` (curvature along the beam), ``..._energy.png`` (explicit energy),
  ``ancf_graded_cantilever.png`` (pyvista snapshots, displacements magnified).

MPI: every beam is a serial object on ``MPI.COMM_SELF``; the five cases are dealt out
round-robin to the ranks of ``COMM_WORLD`` and gathered on rank 0, so
``mpirun -n 2 python demos/ancf_graded_cantilever.py`` splits the work.

The demo exits with status 1 if ANCF and linear theory disagree by more than 1e-4 or the
explicit energy error exceeds 1e-6 (``--quick`` runs the same checks on shorter runs).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from mpi4py import MPI

import fxrod  # noqa: F401  (dolfinx_solver before dolfinx / petsc4py)
from fxrod.ancf import (
    ANCFBeam,
    CentralDifference,
    blog_beam,
    eigenfrequencies,
    solve_static,
)
from fxrod.ancf import linear_beam as lb
from fxrod.io import CSVWriter, prepare_output_dir

NAME = "ancf_graded_cantilever"
CASES: list[tuple[float, float]] = [(0.0, 1.0), (0.3, 1.0), (0.3, 2.0), (0.6, 1.0), (0.6, 2.0)]
GRAVITY = 9.81  # [m/s^2]
TOL_LINEAR = 1e-4  # relative gap ANCF vs linear theory (geometric nonlinearity is ~2e-6)
TOL_ENERGY = 1e-6  # relative energy error of the explicit run


def run_case(lam: float, n: float, n_el: int, n_el_dyn: int, t_end: float,
             n_frames: int) -> dict:
    """Static, modal and explicit-dynamic results of one case (serial, COMM_SELF)."""
    props = blog_beam(lam, n)
    beam = ANCFBeam(props, n_el, gravity=(0.0, -GRAVITY))
    omega_1 = float(eigenfrequencies(beam, 1)[0])
    static = solve_static(beam, n_steps=1)
    x, K = beam.curvature(static.q, per_element=8)
    _, r, _, _ = beam.sample(static.q, per_element=8)
    out = {
        "lam": lam, "n": n,
        "tip_deflection": float(-static.tip_displacement[1]),
        "omega_1": omega_1,
        "tip_deflection_linear": lb.tip_deflection(props, g=GRAVITY),
        "omega_1_linear": float(lb.frequencies(props, 1)[0]),
        "x": x, "K": K, "shape": r,
        "K_linear": -lb.curvature(props, x, g=GRAVITY),
    }
    dyn = ANCFBeam(props, n_el_dyn, gravity=(0.0, -GRAVITY))
    cd = CentralDifference(dyn, safety=0.9)
    n_steps = int(np.ceil(t_end / cd.dt))
    every = max(1, n_steps // 2000)
    frames, frame_t = [], []
    hist = None
    for _ in range(n_frames):  # run in chunks to keep snapshots
        frames.append(dyn.centreline(cd.q, per_element=4))
        frame_t.append(cd.t)
        hist = cd.run(t_end / n_frames, record_every=every, history=hist)
    frames.append(dyn.centreline(cd.q, per_element=4))
    frame_t.append(cd.t)
    out.update({
        "dt": cd.dt, "dt_critical": cd.stable.dt_critical, "n_el_dynamic": n_el_dyn,
        "energy_error": hist.relative_energy_error(), "history": hist.as_columns(),
        "balance": hist.balance, "frames": frames, "frame_t": frame_t,
    })
    return out


def _plots(results: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def label(res: dict) -> str:
        return "uniform" if res["lam"] == 0.0 else f"lam={res['lam']:g}, n={res['n']:g}"

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        h = res["history"]
        ax.plot(h["t"], 1e3 * h["tip_2"], lw=0.9, label=label(res))
    ax.set_xlabel("t [s]")
    ax.set_ylabel("tip y [mm]")
    ax.set_title("Dynamic release under gravity (explicit central difference)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / f"{NAME}_tip.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        line, = ax.plot(res["shape"][:, 0], 1e3 * res["shape"][:, 1], label=label(res))
        w = lb.deflection(blog_beam(res["lam"], res["n"]), res["x"][::8], g=GRAVITY)
        ax.plot(res["x"][::8], -1e3 * w, "o", ms=3, mfc="none", color=line.get_color())
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [mm]")
    ax.set_title("Static shapes: ANCF (lines) vs linear Euler-Bernoulli (circles)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / f"{NAME}_shapes.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        line, = ax.plot(res["x"], 1e3 * res["K"], label=label(res))
        ax.plot(res["x"][::4], 1e3 * res["K_linear"][::4], "o", ms=3, mfc="none",
                color=line.get_color())
    ax.set_xlabel("x [m]")
    ax.set_ylabel("curvature K [1/km]")
    ax.set_title("Static curvature: ANCF (lines) vs M/EI(x) (circles)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / f"{NAME}_curvature.png", dpi=120)
    plt.close(fig)

    res = results[0]
    h = res["history"]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.5, 5.5), sharex=True)
    a1.plot(h["t"], h["kinetic"], label="kinetic T")
    a1.plot(h["t"], h["strain_energy"], label="strain U")
    a1.plot(h["t"], h["external_work"], label="gravity work W")
    a1.set_ylabel("energy [J]")
    a1.legend(fontsize=8)
    a1.grid(alpha=0.3)
    a2.plot(h["t"], res["balance"] - res["balance"][0])
    a2.set_ylabel("T + U - W - (T + U - W)(0) [J]")
    a2.set_xlabel("t [s]")
    a2.grid(alpha=0.3)
    a1.set_title(f"Explicit run, uniform beam: dt = 0.9 dt_cr = {res['dt']:.3g} s, "
                 f"energy error {res['energy_error']:.2g}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / f"{NAME}_energy.png", dpi=120)
    plt.close(fig)


def _snapshots(results: list[dict], out: Path) -> None:
    from fxrod.viz import snapshot_figure

    res = max(results, key=lambda r: r["tip_deflection"])
    scale = 100.0
    # viz looks along -e2 with e3 up: show the bending plane (x, y) as (e1, e3)
    frames = [np.column_stack([f[:, 0], f[:, 2], scale * f[:, 1]]) for f in res["frames"]]
    snapshot_figure(
        frames, res["frame_t"], out / f"{NAME}.png", radius=0.006, azimuth=0.0,
        elevation=0.0,
        title=f"ANCF release, lam={res['lam']:g}, n={res['n']:g}; y magnified x{scale:g}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=f"results/{NAME}", help="output directory")
    parser.add_argument("--quick", action="store_true", help="short run for CI (< 1 min)")
    parser.add_argument("--n-el", type=int, default=None, help="elements for statics/modes")
    parser.add_argument("--t-end", type=float, default=None, help="explicit run length [s]")
    args = parser.parse_args(argv)
    comm = MPI.COMM_WORLD
    n_el = args.n_el or (20 if args.quick else 40)
    t_end = args.t_end or (0.1 if args.quick else 0.5)
    n_el_dyn = 10
    out = prepare_output_dir(args.out, comm)
    t0 = time.perf_counter()
    mine = [run_case(lam, n, n_el, n_el_dyn, t_end, n_frames=6)
            for i, (lam, n) in enumerate(CASES) if i % comm.size == comm.rank]
    gathered = comm.gather(mine, root=0)
    status = 0
    if comm.rank == 0:
        results = sorted((r for part in gathered for r in part),
                         key=lambda r: CASES.index((r["lam"], r["n"])))
        cols = ["lam", "n", "tip_deflection", "omega_1", "tip_deflection_linear",
                "omega_1_linear", "rel_gap_tip", "rel_gap_omega", "dt", "dt_critical",
                "energy_error"]
        print(f"{'lam':>4} {'n':>3} {'tip [m]':>12} {'linear':>12} {'gap':>9} "
              f"{'omega_1':>10} {'linear':>10} {'gap':>9} {'E err':>8}")
        with CSVWriter(out / f"{NAME}.csv", cols) as csv:
            for r in results:
                r["rel_gap_tip"] = r["tip_deflection"] / r["tip_deflection_linear"] - 1.0
                r["rel_gap_omega"] = r["omega_1"] / r["omega_1_linear"] - 1.0
                csv.write({c: r[c] for c in cols})
                print(f"{r['lam']:4.1f} {r['n']:3.0f} {r['tip_deflection']:12.6e} "
                      f"{r['tip_deflection_linear']:12.6e} {r['rel_gap_tip']:9.1e} "
                      f"{r['omega_1']:10.4f} {r['omega_1_linear']:10.4f} "
                      f"{r['rel_gap_omega']:9.1e} {r['energy_error']:8.1e}")
                bad = (abs(r["rel_gap_tip"]) > TOL_LINEAR or abs(r["rel_gap_omega"]) > TOL_LINEAR
                       or r["energy_error"] > TOL_ENERGY)
                status = status or int(bad)
        series = ["t", "lam", "n", "kinetic", "strain_energy", "H", "external_work",
                  "dissipated", "energy_residual", "tip_1", "tip_2", "tip_3"]
        with CSVWriter(out / f"{NAME}_release.csv", series) as csv:
            for r in results:
                h = r["history"]
                for i in range(len(h["t"])):
                    row = {c: float(h[c][i]) for c in series if c in h}
                    csv.write(row | {"lam": r["lam"], "n": r["n"]})
        _plots(results, out)
        _snapshots(results, out)
        print(f"wrote {out} in {time.perf_counter() - t0:.1f} s"
              + ("" if status == 0 else " -- CHECK FAILED"))
    status = comm.bcast(status, root=0)
    return status


if __name__ == "__main__":
    sys.exit(main())
