# %% [markdown]
# # The capstan (Euler-Eytelwein): a rope pulled over a rough drum until it slips.
#
# A rope lies over a fixed rough cylinder through the wrap angle theta and is pulled out at
# one end against a dead force T_in at the other. Once the whole rope slides, the outgoing
# tension is the capstan law's ``T_out = T_in exp(mu theta)``; the clamp's reaction
# measures it for (mu, theta) = (0.3, pi) and (0.5, pi/2) (theory C5).
#
#     python demos/capstan.py [--out DIR] [--quick] [--n-elements 40] [--h 0.05]
#
# Writes ``DIR/capstan.csv`` (``mu, theta, tension_ratio``), each run's load steps with the
# contact columns and pictures; ``fxrod run capstan`` runs the same case.

# %%
from pathlib import Path

import numpy as np

from fxrod import Clamp, Contact, Cylinder, EndLoad, Problem, Rod, RodModel
from fxrod.core.forms.contact import QUADRATURES
from fxrod.core.rod import Section
from fxrod.output.tables import LoadParameter
from fxrod.problems import capstan
from fxrod.runs.probes import ContactFieldProbe
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import output_files, recorded, restart_of, wrote

NAME = "capstan"
PAIRS = ((0.3, np.pi), (0.5, 0.5 * np.pi))          # (mu, theta [rad]) of the runs
DRUM_RADIUS, ROPE_RADIUS, TAIL = 0.1, 0.005, 0.1   # [m]; TAIL: each straight tail
T_IN, PULL = 1.0, 0.02   # dead force at s = 0 [N], clamp displacement per load factor [m]
#: Rope section: EA = GA = 1e4 N, EI = GJ = 1e-6 N m^2 (EI / (T_in R^2) ~ 1e-4): a string.
SECTION = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1e4, k_s2=1e4, k_e=1e4, k_b1=1e-6,
                  k_b2=1e-6, k_t=1e-6, radius=ROPE_RADIUS)

OPTIONS = (
    Option("n_elements", 40, "-", "elements of the rope", bounds="[1, inf)"),
    Option("h", 0.05, "-", "load-factor increment", bounds="(0, inf)"),
    Option("t_end", 1.0, "-", "final load factor (pull PULL t_end)", bounds="(0, inf)"),
    Option("stiffness", 1e5, "N/m^2", "penalty stiffness", bounds="(0, inf)"),
    Option("v_reg", 1e-4, "m", "friction regularisation (per load factor)", bounds="(0, inf)"),
    Option("quadrature", "nodal", "-", "contact points", choices=QUADRATURES),
    *RUN_CONTROL,
)


# %% [markdown]
# ## The rope on the drum
# The stress-free rope is the wrapped shape itself (``capstan.wrapped_rope``): a tail, an
# arc of radius R + r over the drum (axis e2) through theta, and a tail; d1 = e2. So it
# touches the drum at t = 0 and no contact has to be found first. The end s = 0 carries the
# dead force T_in along its tail; the end s = L is clamped and pulled out by ``PULL t``.
# Penalty contact at the P2 nodes with regularised Coulomb friction mu; quasi-static.

# %%
def problem(mu: float, theta: float, n_elements: int = 40, h: float = 0.05,
            t_end: float = 1.0, stiffness: float = 1e5, v_reg: float = 1e-4,
            quadrature: str = "nodal", comm=None) -> Problem:
    """The rope over the drum with friction ``mu`` through ``theta`` [rad]."""
    curve = capstan.wrapped_rope(theta, DRUM_RADIUS + ROPE_RADIUS, TAIL)
    rod = Rod(SECTION, curve=curve, n_elements=n_elements)
    (end,), (frame,) = curve.evaluate([curve.length])
    t_out = frame[:, 2]
    clamp = Clamp("L", motion=lambda t: (end + PULL * t * t_out, frame))
    t_in = curve.evaluate([0.0])[1][0][:, 2]
    contact = Contact(Cylinder((0.0, 0.0, 0.0), (0.0, 1.0, 0.0), DRUM_RADIUS),
                      stiffness=stiffness, friction=mu, v_reg=v_reg, quadrature=quadrature)
    model = RodModel(rod, loads=[EndLoad("0", force=tuple(-T_IN * t_in))], supports=[clamp],
                     extensions=[contact], comm=comm, quasistatic=True)
    return Problem(model, h, t_end, SolverSettings(max_it=50))


def label(mu: float, theta: float) -> str:
    """Run name ``capstan_mu0.3_theta180``."""
    return f"{NAME}_mu{mu:g}_theta{round(np.degrees(theta))}"


# %% [markdown]
# ## The run
# Every load step is a CSV row with the contact columns. The rope is pulled (not T_in ramped)
# so that every point slides at ``PULL`` per load factor, 200 ``v_reg``: the friction is
# ``mu p / sqrt(1 + (v_reg / v)^2)`` = ``mu p (1 - 1.25e-5)`` (a creeping rope sees a
# fraction of it). Newton starts from the rope slid along itself by ``PULL h``.

# %%
def simulation(problem: Problem, out: Path | None, name: str, first: bool,
               quiet: bool = True, **control) -> Simulation:
    """Every load step recorded with the contact columns, the start and end shapes kept."""
    if not first:
        control = {**control, "restart": restart_of(control.get("restart"), name)}
    contact = problem.model.extensions[0]
    sim = recorded(problem, out, name, snapshot_times=[0.0, problem.t_end], quiet=quiet,
                   probes=[contact.probe(), ContactFieldProbe(contact)],
                   load=LoadParameter("pull of the end s = L", "m", PULL), **control)
    if sim.integ.step_count == 0:
        capstan.seed_slide(sim.integ, problem.h, PULL)
    return sim


# %% [markdown]
# ## Against exp(mu theta)
# The whole rope slides from the first step on, so the clamp's reaction along the outgoing
# tail is the tension at slip; averaged over the second half of the pull (steady sliding).

# %%
def finish(sims: dict[tuple[float, float], Simulation], out: Path | None,
           pictures: bool = True) -> Result:
    """``capstan.csv`` (one row per pair), the summary and the pictures (rank 0)."""
    rank = next(iter(sims.values())).comm.rank
    ratios = {pair: capstan.tension_ratio(sim, T_IN) for pair, sim in sims.items()}
    files: list[Path] = []
    if out is not None and rank == 0:
        files.append(capstan.write_ratios(ratios, out / f"{NAME}.csv"))
        if pictures:
            from fxrod.viz.figures import capstan_figure, contact_figure

            files.append(capstan_figure(sims, ratios, DRUM_RADIUS, out / f"{NAME}.png"))
            files += [contact_figure(sim, out / f"{label(*p)}_contact.png", ROPE_RADIUS,
                                     time_label="load factor") for p, sim in sims.items()]
    files += [f for sim in sims.values() for f in output_files(sim)]
    s, lines = capstan.ratio_summary(ratios, NAME)
    return Result(CASE.name, s, "\n".join(filter(None, (*lines, wrote(files)))),
                  {label(*p): sim for p, sim in sims.items()}, files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, h: float,
        t_end: float, stiffness: float, v_reg: float, quadrature: str, comm=None,
        **control) -> Result:
    """Build, run and compare every pair of :data:`PAIRS` on ``comm``."""
    sims = {}
    for i, (mu, theta) in enumerate(PAIRS):
        prob = problem(mu, theta, n_elements, h, t_end, stiffness, v_reg, quadrature, comm)
        with simulation(prob, out, label(mu, theta), i == 0, quiet, **control) as sim:
            sim.run(prob.t_end)
        sims[(mu, theta)] = sim
    return finish(sims, out, pictures)


CASE = Case("capstan", "rope over a rough drum pulled until it slips: T_out/T_in against "
            "exp(mu theta) (Euler-Eytelwein)", OPTIONS, {"h": 0.1, "t_end": 0.5}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
