# %% [markdown]
# # Plectoneme: a rod twisted under low tension, with self-contact.
#
# A rod is clamped at one end and turned there about its axis while the other end keeps its
# orientation and is pulled by a low tension. Straight, the torque grows linearly with the
# twist; past its critical twist the rod snaps into a loop, the torque drops, and the
# strands wind around each other (a plectoneme) at a plateau torque (theory C8).
# Self-contact (``RodContact``: a penalty between the P2 nodes, node spacing below r) keeps
# the strands 2r apart; with ``--no-contact`` they pass through each other.
#
#     python demos/plectoneme.py [--out DIR] [--quick] [--no-contact] [--turns 5.5]
#
# Writes ``DIR/plectoneme.csv`` (columns ``t, twist_turns, torque, end_force, min_distance,
# contact_energy`` and the default probes, docs/output.md), ``DIR/plectoneme.png`` (the rod
# at the end) and ``DIR/plectoneme_torque.png`` (torque against twist). The same case runs
# as ``fxrod run plectoneme`` (the registry reads this file). Summary keys: ``torque_max``
# [N m], ``twist_max_turns`` (twist at the peak torque), ``plateau_torque`` [N m] and
# ``plateau_spread`` (mean and relative spread over the last half turn), ``min_distance``
# [m] (smallest over the run), ``slope`` [N m/rad] (pre-buckling fit) and ``slope_ref``
# (``1/(L/GJ + 1/k_r)``).

# %%
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from fxrod import (
    Clamp,
    ElasticSupport,
    EndLoad,
    GeneralizedMaxwell,
    PointLoad,
    Problem,
    Rod,
    RodContact,
    RodModel,
    Section,
    SolverSettings,
)
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result, control, exit_on_signal
from fxrod.studies.cases.common import output_files, recorded, wrote

NAME = "plectoneme"
LENGTH = 1.0          # [m]
RADIUS = 0.01         # rod (and contact) radius r [m]
#: E = 1e7 Pa, nu = 0.3, rho = 1000 kg/m^3: B = 0.0785 N m^2, GJ = B/1.3.
SECTION = Section.circular(radius=RADIUS, E=1e7, rho=1000.0, nu=0.3)
B, GJ = SECTION.k_b1, SECTION.k_t
TENSION = 36.0 * B / LENGTH**2     # [N]: L / sqrt(B/T) = 6
T_RAMP = 0.2          # tension ramp, then twisting [s]
K_ROTATION = 1e3 * GJ / LENGTH     # rotational spring at s = L [N m/rad]
IMPERFECTION = 1e-3   # lateral force at L/2 over T [-]
#: Nodes of the rod closer than this along it never interact (RodContact's default) [m].
EXCLUDE = 4.0 * RADIUS
#: Columns of ``plectoneme.csv`` besides the default probes.
COLUMNS = {"twist_turns": "-", "torque": "N m", "end_force": "N", "min_distance": "m",
           "contact_energy": "J"}

OPTIONS = (
    Option("n_elements", 64, "-", "elements (node spacing L/(2 n) below r)", bounds="[1, inf)"),
    Option("h", 5e-3, "s", "time step", bounds="(0, inf)"),
    Option("turns", 5.5, "-", "turns of the clamp at s = 0", bounds="(0, inf)"),
    Option("rate", 2.0, "1/s", "turns per second", bounds="(0, inf)"),
    Option("tension", TENSION, "N", "end tension T", bounds="(0, inf)"),
    Option("stiffness", 1e6, "N/m", "contact penalty of one node pair", bounds="(0, inf)"),
    Option("tau", 0.01, "s", "Kelvin-Voigt retardation time", bounds="(0, inf)"),
    Option("no_contact", False, "-", "run without self-contact (the strands pass through)"),
    *RUN_CONTROL,
)


def turns_at(t: float, rate: float) -> float:
    """Turns of the clamp at s = 0 at time ``t`` [s]: 0 until ``T_RAMP``, then ``rate``/s."""
    return rate * max(t - T_RAMP, 0.0)


# %% [markdown]
# ## The model
# The rod lies along e3. The end s = 0 is clamped and turned about e3 by the clamp's
# prescribed motion after ``T_RAMP``. The end s = L is held in orientation by a stiff
# rotational spring ``k_r = 1000 GJ/L`` and in position by a soft spring ``k_t = T/(0.3 L)``,
# and pulled by the dead force T along e3 (ramped in over ``T_RAMP``): the soft loading
# device lets the tension grow as the end approaches, so the plectoneme cannot swallow the
# whole rod in the snap. A lateral force ``1e-3 T`` at L/2 is the imperfection that selects
# the buckling direction; Kelvin-Voigt damping ``tau`` dissipates the energy released in
# the snap.

# %%
def problem(n_elements: int = 64, h: float = 5e-3, turns: float = 5.5, rate: float = 2.0,
            tension: float = TENSION, stiffness: float = 1e6, tau: float = 0.01,
            no_contact: bool = False, comm=None) -> Problem:
    """The twisted rod: dynamics over ``T_RAMP + turns / rate`` [s]."""
    def motion(t):
        a = 2.0 * np.pi * turns_at(t, rate)
        c, s = np.cos(a), np.sin(a)
        return np.zeros(3), np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])

    def ramp(t):
        return min(t / T_RAMP, 1.0)

    rod = Rod(SECTION, start=(0, 0, 0), end=(0, 0, LENGTH), d1=(1, 0, 0),
              n_elements=n_elements)
    ext = [ElasticSupport("L", k_translation=tension / (0.3 * LENGTH), k_rotation=K_ROTATION),
           GeneralizedMaxwell.kelvin_voigt(tau)]
    if not no_contact:
        ext.append(RodContact(radius=RADIUS, stiffness=stiffness, exclude=EXCLUDE))
    loads = [EndLoad("L", force=lambda t: (0.0, 0.0, tension * ramp(t))),
             PointLoad(0.5 * LENGTH, force=lambda t: (IMPERFECTION * tension * ramp(t), 0, 0))]
    model = RodModel(rod, loads, [Clamp("0", motion=motion)], ext, comm=comm)
    settings = SolverSettings(max_it=30, jacobian_lag=1)
    return Problem(model, h, T_RAMP + turns / rate, settings)


# %% [markdown]
# ## The run
# Adaptive steps (a failed Newton solve halves h); one CSV row per step with the clamp's
# turns, the torque about e3 and the tension from the reaction at s = 0 (step averages),
# the smallest distance between nodes that the contact sees and the penalty energy.

# %%
def min_distance(model) -> float:
    """Smallest distance [m] between two nodes of the centreline farther apart along the rod
    than ``EXCLUDE`` (the pairs :class:`RodContact` sees), over every rank; capped at
    ``2 EXCLUDE``."""
    comm = model.comm
    n = model.space.Q.dofmap.index_map.size_local
    s = np.concatenate(comm.allgather(model.space.Q.tabulate_dof_coordinates()[:n, 0]))
    x = np.concatenate(comm.allgather(model.nodes.q_owned()[:, :3]))
    p = np.array(sorted(cKDTree(x).query_pairs(2.0 * EXCLUDE)), dtype=np.int64).reshape(-1, 2)
    p = p[np.abs(s[p[:, 0]] - s[p[:, 1]]) >= EXCLUDE]
    if not p.size:
        return 2.0 * EXCLUDE
    return float(np.min(np.linalg.norm(x[p[:, 0]] - x[p[:, 1]], axis=1)))


def probe(model, rate: float) -> ColumnProbe:
    """The columns of :data:`COLUMNS` (the contact energy at the step's end)."""
    contact = [e for e in model.extensions if isinstance(e, RodContact)]

    def row(sim, res) -> dict[str, float]:
        f = res.reactions["clamp_0"] if res is not None else np.zeros(6)
        return {"twist_turns": turns_at(sim.integ.t, rate), "torque": float(f[5]),
                "end_force": -float(f[2]),
                "min_distance": min_distance(model),
                "contact_energy": contact[0].stored_energy_value() if contact else 0.0}

    return ColumnProbe(COLUMNS, row)


def simulation(problem: Problem, out: Path | None, rate: float, quiet: bool = True,
               **control) -> Simulation:
    """The recorded run, the centreline kept at the end (``control``: the run-control
    options)."""
    control = {**control, "adaptive": True}
    return recorded(problem, out, NAME, snapshot_times=[problem.t_end], quiet=quiet,
                    probes=[probe(problem.model, rate)], **control)


# %% [markdown]
# ## Against the straight rod
# Before buckling the torque grows as ``M = theta / (L/GJ + 1/k_r)`` (plus a constant
# viscous part ``tau GJ omega / L`` while the twist rate is constant); the rod cannot buckle
# below the infinite rod's helical-buckling torque ``2 sqrt(B T)``.

# %%
def slope(sim: Simulation) -> float:
    """Least-squares slope dM/dtheta [N m/rad] of the torque against the clamp's twist over
    the rows with 0.25 theta_peak <= theta <= 0.75 theta_peak (the straight, linear branch,
    away from the start-up of the twist, whose torsional vibration decays slowly)."""
    turns, torque = sim.column("twist_turns"), sim.column("torque")
    peak = turns[int(np.argmax(torque))]
    on = (turns >= 0.25 * peak) & (turns <= 0.75 * peak)
    return float(np.polyfit(2 * np.pi * turns[on], torque[on], 1)[0])


def plateau(sim: Simulation, last: float = 0.5) -> tuple[float, float]:
    """Mean torque [N m] over the last ``last`` turns and its relative spread
    ``(max - min) / mean`` there."""
    turns, torque = sim.column("twist_turns"), sim.column("torque")
    tail = torque[turns >= turns[-1] - last]
    mean = float(np.mean(tail))
    return mean, float((np.max(tail) - np.min(tail)) / mean)


def torque_figure(sim: Simulation, path: Path) -> Path:
    """Torque against twist with the straight branch ``theta / (L/GJ + 1/k_r)`` and the
    infinite rod's critical torque ``2 sqrt(B T)`` (matplotlib, rank 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    turns, torque = sim.column("twist_turns"), sim.column("torque")
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    ax.plot(turns, torque, lw=1.5, label="fxrod (clamp torque)")
    ref = 2 * np.pi * turns / (LENGTH / GJ + 1.0 / K_ROTATION)
    ax.plot(turns, np.where(ref <= 1.1 * np.max(torque), ref, np.nan), "k--", lw=0.8,
            label="straight rod")
    ax.axhline(2.0 * np.sqrt(B * TENSION), color="0.5", lw=0.8, ls=":",
               label="2 sqrt(B T)")
    ax.set_xlabel("twist [turns]")
    ax.set_ylabel("torque [N m]")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """Summary, text and the pictures (rank 0): the rod at the end of the run and the
    torque-twist curve."""
    torque, turns = sim.column("torque"), sim.column("twist_turns")
    i = int(np.argmax(torque))
    s = {"torque_max": float(torque[i]), "twist_max_turns": float(turns[i]),
         "min_distance": float(np.min(sim.column("min_distance"))),
         "slope": slope(sim),
         "slope_ref": 1.0 / (LENGTH / GJ + 1.0 / K_ROTATION)}
    s["plateau_torque"], s["plateau_spread"] = plateau(sim)
    files: list[Path] = []
    if out is not None and pictures and sim.comm.rank == 0:
        from fxrod import viz

        t = max(sim.snapshots)
        files.append(Path(viz.snapshot_figure([sim.snapshots[t]], [t], out / f"{NAME}.png",
                                              radius=RADIUS, azimuth=30.0, elevation=10.0,
                                              title="twisted rod: plectoneme")))
        files.append(torque_figure(sim, out / f"{NAME}_torque.png"))
    text = (f"{NAME}: peak torque {s['torque_max']:.5f} N m at {s['twist_max_turns']:.3f} "
            f"turns, plateau {s['plateau_torque']:.4f} N m (spread "
            f"{100 * s['plateau_spread']:.1f} %); min distance {s['min_distance'] * 1e3:.3f} "
            f"mm (2r = {2e3 * RADIUS:g} mm); slope {s['slope']:.6g} N m/rad (1/(L/GJ + "
            f"1/k_r) = {s['slope_ref']:.6g})")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(output_files(sim)
                                                                     + files)))),
                  {NAME: sim}, output_files(sim) + files, rank=sim.comm.rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, h: float,
        turns: float, rate: float, tension: float, stiffness: float, tau: float,
        no_contact: bool, comm=None, **control) -> Result:
    """Build, run and post-process the case (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, turns, rate, tension, stiffness, tau, no_contact, comm)
    with simulation(prob, out, rate, quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


CASE = Case("plectoneme", "a rod twisted under low tension buckles into a plectoneme "
            "(self-contact; --no-contact lets it pass through itself)", OPTIONS,
            {"turns": 0.5, "h": 0.01}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    args = CASE.parse_args()
    prob = problem(args.n_elements, args.h, args.turns, args.rate, args.tension,
                   args.stiffness, args.tau, args.no_contact)
    with exit_on_signal(NAME, prob.model.comm), \
            simulation(prob, args.out, args.rate, args.quiet, **control(args)) as sim:
        sim.run(prob.t_end)
    result = finish(sim, args.out, pictures=args.pictures)
    raise SystemExit(result.report(args.quiet))
