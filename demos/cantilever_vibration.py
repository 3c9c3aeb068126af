"""Nonlinear cantilever vibrations (Kinon, Eugster & Betsch 2026, Ex. 6.2).

After Herrmann & Kotyczka 2024.

An aluminium Kirchhoff rod (L = 1 m, r = 2 mm), clamped at s = 0, hit at its tip by a
smooth 50 ms force/moment impulse, then vibrating freely: energy constant after the pulse,
orthonormality and strain consistency at round-off. ``--viscoelastic`` adds one Maxwell
branch (tau = 0.08 s, 1/4 elastic and 3/4 viscous split, Kirchhoff constraints kept).

    python demos/cantilever_vibration.py [--out DIR] [--quick] [--h 1e-3] [--n-elements 8]
                                         [--viscoelastic]

Writes DIR/cantilever_vibration.csv (or ..._viscoelastic.csv) with the design.md columns and
tipvel_B_1..3 (tip velocity in the director frame), mid_g_1..6 (g_ij at s = L/2),
Gamma_1..3 and K_1..3 (|| Pi_DG1(eps(q) - eps0) - C sigma ||, the paper's Fig. 12), and
DIR/cantilever_vibration.png (tip path snapshots); with --viscoelastic also the H(t)
comparison figure (the paper's Fig. 13) when the elastic CSV exists in DIR.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import fxrod  # noqa: F401
from fxrod.diagnostics import StrainConsistency, nodal_constraint_values
from fxrod.examples import cantilever_vibration
from fxrod.integrators import Integrator
from fxrod.simulation import Simulation

NAME = "cantilever_vibration"
EXTRA = ([f"tipvel_B_{i}" for i in (1, 2, 3)] + [f"mid_g_{i}" for i in range(1, 7)]
         + ["Gamma_1", "Gamma_2", "Gamma_3", "K_1", "K_2", "K_3"])


def build(n_elements: int = 8, viscoelastic: bool = False):
    """The Ex. 6.2 model, elastic or with the paper's Maxwell branch."""
    if not viscoelastic:
        return cantilever_vibration(n_elements)
    from fxrod.examples import cantilever_vibration_section
    from fxrod.forms.viscoelastic import GeneralizedMaxwell
    from fxrod.rod import Rod

    rod = Rod(cantilever_vibration_section(), (0, 0, 0), (1, 0, 0), (0, -1, 0), n_elements,
              ("kirchhoff",))
    ext = GeneralizedMaxwell.proportional(rod, (0.75,), (0.08,))
    return cantilever_vibration(n_elements, extensions=[ext])


def extra_columns(sim: Simulation, consistency: StrainConsistency) -> dict:
    """Tip velocity in the director frame, mid-node constraints, strain consistency."""
    d = sim.diag
    R = d.tip_frame()
    V = R.T @ d.tip_velocity()
    g = nodal_constraint_values(d.node_q(0.5 * sim.model.rod.length))
    e = consistency.norms()
    out = {f"tipvel_B_{i + 1}": V[i] for i in range(3)}
    out.update({f"mid_g_{i + 1}": g[i] for i in range(6)})
    out.update({f"Gamma_{i + 1}": e[i] for i in range(3)})
    out.update({f"K_{i + 1}": e[3 + i] for i in range(3)})
    return out


def run(n_elements=8, h=1e-3, t_end=0.3, out=None, viscoelastic=False, quiet=True,
        name=None) -> Simulation:
    model = build(n_elements, viscoelastic)
    # full Newton: its last iterate is at round-off, so the nodal constraints stay at
    # ~1e-13 over the whole run (the default modified Newton stops just below atol and
    # lets |g| drift by ~atol per step)
    integ = Integrator(model, h, atol=1e-13, rtol=1e-14, jacobian_lag=1)
    cons = StrainConsistency(model)
    name = name or (NAME + ("_viscoelastic" if viscoelastic else ""))
    sim = Simulation(integ, out, name, snapshot_times=list(np.arange(0, t_end + 1e-9, 0.025)),
                     extra_columns=EXTRA, extra=lambda s: extra_columns(s, cons), quiet=quiet)
    sim.run(t_end)
    sim.close()
    return sim


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=f"results/{NAME}")
    ap.add_argument("--quick", action="store_true", help="t_end = 0.1 s")
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--t-end", type=float, default=0.3)
    ap.add_argument("--n-elements", type=int, default=8)
    ap.add_argument("--viscoelastic", action="store_true")
    ap.add_argument("--no-pictures", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    t_end = 0.1 if a.quick else a.t_end
    sim = run(a.n_elements, a.h, t_end, a.out, a.viscoelastic, a.quiet)
    if sim.comm.rank == 0:
        r = sim.rows[-1]
        print(f"{sim.name}: t = {r['t']:g}, H = {r['H']:.12g} J, tip = ({r['tip_1']:.9f}, "
              f"{r['tip_2']:.9f}, {r['tip_3']:.9f}) m, max |energy residual| = "
              f"{np.max(np.abs(sim.column('energy_residual'))):.2e} J")
        if not a.no_pictures:
            from fxrod import viz

            times = sorted(sim.snapshots)
            tip = np.c_[sim.column("tip_1"), sim.column("tip_2"), sim.column("tip_3")]
            viz.snapshot_figure([sim.snapshots[t] for t in times], times,
                                Path(a.out) / f"{sim.name}.png", radius=4e-3,
                                extra_lines=[tip], title=sim.name)
            if a.viscoelastic and (Path(a.out) / f"{NAME}.csv").exists():
                from fxrod.plots_viscoelastic import energy_dissipation_figure

                energy_dissipation_figure(Path(a.out) / f"{NAME}.csv",
                                          Path(a.out) / f"{sim.name}.csv",
                                          Path(a.out) / f"{NAME}_energy.png")
    return sim


if __name__ == "__main__":
    main()
