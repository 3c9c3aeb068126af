# %% [markdown]
# # Bundle: a thousand fibres falling onto a sphere, with friction and fibre-fibre contact.
#
# Short fibres (L = 1 cm, radius 1 mm, 4 elements: a node every 1.25 mm) lie in crossed
# layers above a sphere (radius 3 cm) resting on the ground. They fall under gravity, land
# on the sphere, the ground and each other and come to rest: penalty contact with
# regularised Coulomb friction on the sphere and the ground (``Contact``, with normal
# damping) and between the fibres (``RodContact``, node pairs). All fibres are one
# ``Structure``; under MPI the ranks share them and find the pairs by a collective search.
#
# At rest the obstacles carry the bundle's weight: the force of the sphere and the ground on
# the fibres (normal and friction), averaged over the last steps, is ``m g`` to the momentum
# left in the bundle, and the ledger closes every step (tests/test_bundle.py).
#
#     python demos/bundle.py [--out DIR] [--rods 1000] [--quick]
#     mpirun -n 2 python demos/bundle.py
#
# Writes ``DIR/bundle.csv`` (the standard columns, ``obstacle_force_1..3`` [N], the columns
# of both contacts and of the fibre pairs, ``weight`` [N]), its units file, ``DIR/bundle.png``
# and a ParaView series.

# %%
from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from dolfinx import fem

from fxrod import (
    Contact,
    Gravity,
    HalfSpace,
    Integrator,
    Rod,
    RodContact,
    RodModel,
    Section,
    Simulation,
    SolverSettings,
    Sphere,
    Structure,
)
from fxrod.runs.probes import ColumnProbe, RodContactProbe

R, LENGTH, N_ELEMENTS = 1e-3, 1e-2, 4                 # fibre radius, length [m]; elements
FIBRE = Section.circular(radius=R, E=1e7, rho=1000.0, nu=0.4)
SPHERE, G = 0.03, 9.81                                # sphere radius [m], gravity [m/s^2]
K_OBSTACLE, K_PAIR, MU = 1e4, 100.0, 0.3              # N/m^2, N/m per node pair, Coulomb
DAMPING = 2.0 * math.sqrt(K_OBSTACLE * FIBRE.rhoA)   # critical normal damping [N s/m^2]
# a backtracking line search: plain Newton cycles on the regularised friction of a sliding fibre
SETTINGS = SolverSettings(atol=1e-12, rtol=1e-10, linesearch="bt")


def bundle(rods: int, along: int | None = None, drop: float = 2e-3, comm=None):
    """``rods`` fibres in crossed layers of ``along`` x ``4 along`` fibres (default
    ``(rods/4)^(1/3)``), the lowest ``drop`` [m] above the sphere's top. Returns the model,
    the sphere's and the ground's contacts and the fibre-fibre contact."""
    along = along or max(1, round((rods / 4) ** (1 / 3)))
    across, pitch, step = 4 * along, LENGTH + 2 * R, 3 * R
    fibres = []
    for n in range(rods):
        layer, i = divmod(n, along * across)
        a = (i // across - (along - 1) / 2) * pitch              # along the fibre [m]
        b = (i % across - (across - 1) / 2) * step               # across [m]
        z = SPHERE + R + drop + layer * step
        ends = [(a - LENGTH / 2, b, z), (a + LENGTH / 2, b, z)]
        if layer % 2:                                            # odd layers along e2
            ends = [(y, x, z) for x, y, z in ends]
        fibres.append(Rod(FIBRE, start=ends[0], end=ends[1], d1=(0, 0, 1),
                          n_elements=N_ELEMENTS))
    sphere = Contact(Sphere((0, 0, 0), SPHERE), K_OBSTACLE, friction=MU, damping=DAMPING,
                     name="sphere")
    ground = Contact(HalfSpace((0, 0, -SPHERE)), K_OBSTACLE, friction=MU, damping=DAMPING,
                     name="ground")
    pairs = RodContact(radius=R, stiffness=K_PAIR, friction=MU)
    model = RodModel(Structure(fibres), [Gravity((0, 0, -G))], [],
                     [sphere, ground, pairs], comm=comm)
    return model, sphere, ground, pairs


def obstacle_force(model, contacts) -> ColumnProbe:
    """``obstacle_force_1..3`` [N]: the force of the obstacles on the fibres over the step
    ending at t (normal and friction, the forms' ``f``), evaluated with the state at the
    start of the step that the probe kept from its last call."""
    forms = [fem.form(sum(c.force[i] * c.measure(model.ctx) for c in contacts))
             for i in range(3)]
    kept = {}

    def row(sim, res) -> dict[str, float]:
        now, before = model.w0.x.array.copy(), kept.get("w", model.w0.x.array)
        model.w0.x.array[:] = before                       # w0 = w_n, w = w_{n+1}
        f = [model.comm.allreduce(fem.assemble_scalar(a)) for a in forms]
        model.w0.x.array[:] = kept["w"] = now
        return {f"obstacle_force_{i + 1}": f[i] for i in range(3)}

    return ColumnProbe({f"obstacle_force_{i}": "N" for i in (1, 2, 3)}, row)


def simulate(rods: int, t_end: float, h: float = 1e-3, out: Path | None = None,
             along: int | None = None, drop: float = 2e-3, settings=None, probes=(),
             comm=None) -> Simulation:
    """Drop ``rods`` fibres and run to ``t_end`` [s] with steps ``h`` [s]; ``out``: write
    the CSV, its units and the ParaView series there; ``probes(model)``: more columns."""
    model, sphere, ground, pairs = bundle(rods, along, drop, comm)
    weight = FIBRE.rhoA * LENGTH * G * rods
    probes = [sphere.probe(), ground.probe(), RodContactProbe(pairs),
              obstacle_force(model, [sphere, ground]),
              ColumnProbe({"weight": "N"}, lambda sim, res: {"weight": weight}),
              *(p(model) for p in probes)]
    sim = Simulation(Integrator(model, h, settings or SETTINGS), out, "bundle", probes=probes,
                     paraview_every=10 if out is not None else 0)
    sim.run(t_end)
    return sim


def picture(x: np.ndarray, sim: Simulation, path: Path) -> None:
    """Side view of the fibres' nodes ``x`` [m] (n, 3) on the sphere."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.add_patch(plt.Circle((0, 0), SPHERE, color="0.8"))
    ax.axhline(-SPHERE, color="0.3")
    ax.plot(x[:, 0], x[:, 2], ".", ms=1.5)
    ax.set(aspect="equal", xlabel="x [m]", ylabel="z [m]",
           title=f"{sim.model.structure.n_members} fibres at t = {sim.integ.t:.3g} s")
    fig.savefig(path, dpi=120)
    plt.close(fig)


# %%
if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Fibres falling onto a sphere.")
    parser.add_argument("--out", type=Path, default=Path("results/bundle"))
    parser.add_argument("--rods", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="8 fibres, 0.15 s")
    args = parser.parse_args()
    rods, t_end = (8, 0.15) if args.quick else (args.rods, 0.5)
    sim = simulate(rods, t_end, out=args.out)
    last, t = sim.rows[-1], sim.column("t")
    carried = np.mean(sim.column("obstacle_force_3")[t > t_end - 0.05]) / last["weight"]
    nodes = sim.model.nodes.gather_nodes()              # collective; rank 0 gets them
    if sim.comm.rank == 0:
        picture(nodes[1][:, :3], sim, args.out / "bundle.png")
        res = np.max(np.abs(sim.column("energy_residual")))
        print(f"{rods} fibres at t = {last['t']:.3g} s: the obstacles carry {carried:.4f} of "
              f"the weight (last 0.05 s), {last['rodcontact_pairs']:.0f} fibre pairs touch, "
              f"max |energy residual| {res:.2e} J; wrote {args.out / 'bundle.csv'}")
