# %% [markdown]
# # Nonlinear cantilever vibrations (Kinon, Eugster & Betsch 2026, Ex. 6.2; after Herrmann &
# Kotyczka 2024).
#
# An aluminium rod of length 1 m, clamped at s = 0, is hit at its tip by a smooth 50 ms
# impulse and then vibrates freely with large deflections. The midpoint rule keeps H constant
# after the pulse; full Newton keeps the directors' orthonormality and the mixed strains'
# consistency at round-off (the paper's Fig. 12). With ``--viscoelastic`` the rod dissipates
# (Fig. 13, drawn when the elastic run's CSV is already in DIR).
#
#     python demos/cantilever_vibration.py [--out DIR] [--quick] [--viscoelastic]
#
# Writes ``DIR/cantilever_vibration.csv`` (``..._viscoelastic.csv``: the standard columns
# and :data:`COLUMNS`), a ParaView series and a picture; ``fxrod run cantilever-vibration``
# runs the same case (``--quick``: up to t = 0.1 s).

# %%
from pathlib import Path

import numpy as np

from fxrod import Clamp, EndLoad, GeneralizedMaxwell, Problem, Rod, RodModel, SolverSettings
from fxrod.core.diagnostics import StrainConsistency, nodal_constraint_values
from fxrod.core.loads import smooth_impulse
from fxrod.problems.paper import cantilever_vibration_section
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import frame_times, last_row, output_files, recorded, wrote

NAME = "cantilever_vibration"
PICTURE_EVERY, PARAVIEW_EVERY = 0.025, 0.01   # intervals of the snapshots, ParaView [s]
OPTIONS = (
    Option("h", 1e-3, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 0.3, "s", "end time", bounds="(0, inf)"),
    Option("n_elements", 8, "-", "number of elements", bounds="[1, inf)"),
    Option("viscoelastic", False, "-", "add one Maxwell branch (tau = 0.08 s, 3/4 viscous)"),
    Option("scale", 1.0, "-", "factor on the tip impulse"),
    *RUN_CONTROL,
)


# %% [markdown]
# ## The model
# The section is a circle of radius 2 mm (E = 72 GPa, nu = 0.35, rho = 2850 kg/m^3;
# ``cantilever_vibration_section``). The rod lies along e1 with d1 = -e2, clamped at s = 0.
# Shear and extension are constrained (a Kirchhoff rod: C_N = 0, the shear force becomes a
# Lagrange multiplier). The impulse ``f(t) = (1 - cos(40 pi t))/2`` on [0, 0.05] s pushes the
# tip with the force f (0, 1, 1) N and the moment f (0.25, 0, 0) N m. The viscoelastic rod
# puts 3/4 of the stiffness in a Maxwell branch relaxing in 0.08 s. Full Newton to atol
# 1e-13 keeps the nodal constraints at round-off.

# %%
def maxwell_branch() -> GeneralizedMaxwell:
    """The paper's viscoelastic rod: one Maxwell branch with 3/4 of the stiffness and the
    relaxation time 0.08 s, the long-term spring keeps 1/4 (theory §3.1)."""
    return GeneralizedMaxwell.proportional((0.75,), (0.08,))


def problem(n_elements: int = 8, h: float = 1e-3, t_end: float = 0.3,
            viscoelastic: bool = False, scale: float = 1.0, comm=None, extensions=(),
            constraints=("kirchhoff",)) -> Problem:
    """Ex. 6.2 with steps ``h`` [s] up to ``t_end`` [s], ``scale`` times the impulse, with
    :func:`maxwell_branch` if ``viscoelastic``, and any further ``extensions``."""
    rod = Rod(cantilever_vibration_section(), start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0),
              d1=(0.0, -1.0, 0.0), n_elements=n_elements, constraints=constraints)
    f0 = smooth_impulse(0.0, 0.05)

    def f(t: float) -> float:
        return scale * f0(t)

    load = EndLoad("L", force=lambda t: f(t) * np.array([0.0, 1.0, 1.0]),
                   moment=lambda t: f(t) * np.array([0.25, 0.0, 0.0]))
    ext = [maxwell_branch(), *extensions] if viscoelastic else list(extensions)
    model = RodModel(rod, [load], [Clamp("0")], extensions=ext, comm=comm)
    return Problem(model, h, t_end, SolverSettings(atol=1e-13, rtol=1e-14, jacobian_lag=1))


# %% [markdown]
# ## The run
# Every step: the standard columns and :data:`COLUMNS`; ParaView every 10 ms, snapshots 25 ms.

# %%
#: Tip velocity in the director frame, the six nodal constraints g_ij at s = L/2, the strain
#: consistency ``|| Pi_DG1(eps(q) - eps0) - C sigma ||`` per component (the paper's Fig. 12).
COLUMNS: dict[str, str] = {
    **{f"tipvel_B_{i}": "m/s" for i in (1, 2, 3)},
    **{f"mid_g_{i}": "-" for i in range(1, 7)},
    **{f"Gamma_{i}": "-" for i in (1, 2, 3)},
    **{f"K_{i}": "1/m" for i in (1, 2, 3)},
}


def probe(model) -> ColumnProbe:
    """The :data:`COLUMNS` of ``model``."""
    consistency = StrainConsistency(model)

    def values(sim: Simulation, res) -> dict[str, float]:
        nodes = sim.model.nodes
        V = nodes.tip_frame().T @ nodes.tip_velocity()
        g = nodal_constraint_values(nodes.node_q(0.5 * sim.model.rod.length))
        return dict(zip(COLUMNS, [*V, *g, *consistency.norms()], strict=True))

    return ColumnProbe(COLUMNS, values)


def run(out: Path | None, *, pictures: bool, quiet: bool, h: float, t_end: float,
        n_elements: int, viscoelastic: bool, scale: float, comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, t_end, viscoelastic, scale, comm)
    name = NAME + ("_viscoelastic" if viscoelastic else "")
    with recorded(prob, out, name, probes=[probe(prob.model)], quiet=quiet, **control,
                  snapshot_times=frame_times(h, t_end, PICTURE_EVERY, max_frames=0),
                  paraview_every=max(1, round(PARAVIEW_EVERY / h))) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


# %% [markdown]
# ## Post-processing
# The final state, the largest energy residual, the snapshots (viscoelastic: H(t) of both).

# %%
def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """Summary of the final state and the pictures (rank 0)."""
    pngs = []
    if pictures and out is not None and sim.comm.rank == 0:
        from fxrod.viz.figures import cantilever_pictures

        pngs = cantilever_pictures(sim, out, NAME)
    s = last_row(sim, ("t", "H", "tip_1", "tip_2", "tip_3"))
    s["max_energy_residual"] = float(np.max(np.abs(sim.column("energy_residual"))))
    files = output_files(sim, *pngs)
    text = (f"{sim.name}: t = {s['t']:g}, H = {s['H']:.12g} J, tip = ({s['tip_1']:.9f}, "
            f"{s['tip_2']:.9f}, {s['tip_3']:.9f}) m, max |energy residual| = "
            f"{s['max_energy_residual']:.2e} J")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {sim.name: sim}, files, rank=sim.comm.rank)


CASE = Case("cantilever-vibration", "Ex. 6.2: Kirchhoff cantilever hit by a 50 ms impulse; "
            "--viscoelastic adds a Maxwell branch", OPTIONS, {"t_end": 0.1}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
