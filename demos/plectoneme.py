# %% [markdown]
# # Plectoneme: a rod twisted under low tension, with self-contact.
#
# A rod is clamped at one end and turned there about its axis while the other end keeps its
# orientation and is pulled by a low tension. The torque grows linearly with the twist; past
# the critical twist the rod snaps into a loop, and the strands wind around each other (a
# plectoneme) at a plateau torque (theory C8). Self-contact (``RodContact``, a penalty
# between the P2 nodes) keeps them 2r apart; with ``--no-contact`` they pass through.
#
#     python demos/plectoneme.py [--out DIR] [--quick] [--no-contact] [--turns 5.5]
#
# Writes ``DIR/plectoneme.csv`` (``t, twist_turns, torque, end_force, min_distance,
# contact_energy`` and the default probes, docs/output.md) and pictures (the rod at the end,
# the torque against the twist); ``fxrod run plectoneme`` runs the same case.

# %%
from pathlib import Path

import numpy as np

from fxrod import Clamp, ElasticSupport, EndLoad, GeneralizedMaxwell, PointLoad, Problem, Rod
from fxrod.core.forms.rodcontact import RodContact
from fxrod.core.model import RodModel
from fxrod.core.rod import Section
from fxrod.problems.plectoneme import plateau, slope, twist_probe
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import output_files, recorded, wrote

NAME = "plectoneme"
LENGTH, RADIUS = 1.0, 0.01          # length, rod (and contact) radius r [m]
#: E = 1e7 Pa, nu = 0.3, rho = 1000 kg/m^3: B = 0.0785 N m^2, GJ = B/1.3.
SECTION = Section.circular(radius=RADIUS, E=1e7, rho=1000.0, nu=0.3)
B, GJ = SECTION.k_b1, SECTION.k_t
TENSION = 36.0 * B / LENGTH**2     # [N]: L / sqrt(B/T) = 6
K_ROTATION = 1e3 * GJ / LENGTH     # rotational spring at s = L [N m/rad]
T_RAMP, IMPERFECTION = 0.2, 1e-3   # tension ramp [s], lateral force at L/2 over T [-]
EXCLUDE = 4.0 * RADIUS   # nodes closer along the rod never interact (RodContact's) [m]

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
# The rod lies along e3. The end s = 0 is clamped and turned about e3 after ``T_RAMP``. The
# end s = L is held in orientation by a stiff rotational spring ``k_r = 1000 GJ/L``, in
# position by a soft spring ``k_t = T/(0.3 L)`` (the tension grows as the end approaches, so
# the plectoneme cannot swallow the whole rod in the snap) and pulled by the dead force T
# (ramped in). A lateral force ``1e-3 T`` at L/2 selects the buckling direction; Kelvin-Voigt
# damping ``tau`` dissipates the energy released in the snap.

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

    rod = Rod(SECTION, start=(0, 0, 0), end=(0, 0, LENGTH), d1=(1, 0, 0), n_elements=n_elements)
    ext = [ElasticSupport("L", k_translation=tension / (0.3 * LENGTH), k_rotation=K_ROTATION),
           GeneralizedMaxwell.kelvin_voigt(tau)]
    if not no_contact:
        ext.append(RodContact(radius=RADIUS, stiffness=stiffness, exclude=EXCLUDE))
    loads = [EndLoad("L", force=lambda t: (0.0, 0.0, tension * ramp(t))),
             PointLoad(0.5 * LENGTH, force=lambda t: (IMPERFECTION * tension * ramp(t), 0, 0))]
    model = RodModel(rod, loads, [Clamp("0", motion=motion)], ext, comm=comm)
    return Problem(model, h, T_RAMP + turns / rate, SolverSettings(max_it=30, jacobian_lag=1))


# %% [markdown]
# ## The run
# Adaptive steps (a failed Newton solve halves h); one CSV row per step with the clamp's
# turns, the torque about e3 and the tension from the reaction at s = 0 (step averages),
# the smallest distance between nodes that the contact sees and the penalty energy.

# %%
def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, h: float,
        turns: float, rate: float, tension: float, stiffness: float, tau: float,
        no_contact: bool, comm=None, **control) -> Result:
    """Build, run and post-process the case (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, turns, rate, tension, stiffness, tau, no_contact, comm)
    probe = twist_probe(prob.model, lambda t: turns_at(t, rate), EXCLUDE)
    with recorded(prob, out, NAME, snapshot_times=[prob.t_end], quiet=quiet, probes=[probe],
                  **{**control, "adaptive": True}) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, pictures)


# %% [markdown]
# ## Against the straight rod
# Straight, the torque is ``theta / (L/GJ + 1/k_r)`` (plus the viscous ``tau GJ omega / L``);
# the rod cannot buckle below the infinite rod's helical-buckling torque ``2 sqrt(B T)``.

# %%
def finish(sim: Simulation, out: Path | None, pictures: bool = True) -> Result:
    """Summary, text and the pictures (rank 0): the rod at the end, the torque-twist curve."""
    torque, turns = sim.column("torque"), sim.column("twist_turns")
    i = int(np.argmax(torque))
    s = {"torque_max": float(torque[i]), "twist_max_turns": float(turns[i]),
         "min_distance": float(np.min(sim.column("min_distance"))), "slope": slope(sim),
         "slope_ref": 1.0 / (LENGTH / GJ + 1.0 / K_ROTATION)}
    s["plateau_torque"], s["plateau_spread"] = plateau(sim)
    files = output_files(sim)
    if out is not None and pictures and sim.comm.rank == 0:
        from fxrod.viz.figures import plectoneme_pictures

        files += plectoneme_pictures(sim, out, NAME, RADIUS, s["slope_ref"],
                                     2.0 * np.sqrt(B * TENSION))
    text = (f"{NAME}: peak torque {s['torque_max']:.5f} N m at {s['twist_max_turns']:.3f} "
            f"turns, plateau {s['plateau_torque']:.4f} N m (spread "
            f"{100 * s['plateau_spread']:.1f} %); min distance {s['min_distance'] * 1e3:.3f} "
            f"mm (2r = {2e3 * RADIUS:g} mm); slope {s['slope']:.6g} N m/rad (1/(L/GJ + "
            f"1/k_r) = {s['slope_ref']:.6g})")
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))), {NAME: sim},
                  files, rank=sim.comm.rank)


CASE = Case("plectoneme", "a rod twisted under low tension buckles into a plectoneme "
            "(self-contact; --no-contact lets it pass through itself)", OPTIONS,
            {"turns": 0.5, "h": 0.01}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
