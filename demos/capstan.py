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
# Writes ``DIR/capstan.csv`` (columns ``mu, theta, tension_ratio``, one row per pair), the
# load steps of each run ``DIR/capstan_mu<mu>_theta<deg>.csv`` (with the contact columns),
# ``DIR/capstan.png`` (the ropes at slip on their drums),
# ``DIR/capstan_mu<mu>_theta<deg>_contact.png`` (3D, the contact forces at slip as arrows)
# and the contact fields in ``DIR/capstan_mu<mu>_theta<deg>_contact.pvd`` when ParaView
# output is asked for. The same case runs as ``fxrod run capstan`` (the registry reads this
# file). Summary keys: ``ratio_<i>`` (T_out / T_in of pair i) and ``error_<i>`` (its
# relative difference from exp(mu theta)).

# %%
from pathlib import Path

import numpy as np

from fxrod import (
    Clamp,
    Contact,
    CurveFunction,
    Cylinder,
    EndLoad,
    Problem,
    Rod,
    RodModel,
    Section,
    SolverSettings,
)
from fxrod.core.forms.contact import QUADRATURES
from fxrod.output.tables import CSVWriter, LoadParameter
from fxrod.runs.probes import ContactFieldProbe
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result, control, exit_on_signal
from fxrod.studies.cases.common import contact_figure, output_files, recorded, restart_of, wrote

NAME = "capstan"
#: (mu, theta [rad]) of the runs.
PAIRS = ((0.3, np.pi), (0.5, 0.5 * np.pi))
#: Columns of ``capstan.csv`` with their units and meanings (``capstan_columns.json``).
COLUMNS = {"mu": "-", "theta": "rad", "tension_ratio": "-"}
MEANINGS = {"mu": "Coulomb friction coefficient", "theta": "wrap angle",
            "tension_ratio": "T_out/T_in over the second half of the pull"}
DRUM_RADIUS = 0.1     # [m]
ROPE_RADIUS = 0.005   # [m]
TAIL = 0.1            # length of each straight tail [m]
T_IN = 1.0            # dead force at s = 0 [N]
PULL = 0.02           # clamp displacement per unit load factor [m]
#: Rope section: EA = GA = 1e4 N, EI = GJ = 1e-6 N m^2 (EI / (T_in R^2) ~ 1e-4): a string.
SECTION = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1e4, k_s2=1e4, k_e=1e4, k_b1=1e-6,
                  k_b2=1e-6, k_t=1e-6, radius=ROPE_RADIUS)

OPTIONS = (
    Option("n_elements", 40, "-", "elements of the rope", bounds="[1, inf)"),
    Option("h", 0.05, "-", "load-factor increment", bounds="(0, inf)"),
    Option("t_end", 1.0, "-", "final load factor (pull PULL t_end)", bounds="(0, inf)"),
    Option("stiffness", 1e5, "N/m^2", "penalty stiffness", bounds="(0, inf)"),
    Option("v_reg", 1e-4, "m", "friction regularisation (per unit load factor)",
           bounds="(0, inf)"),
    Option("quadrature", "nodal", "-", "contact points", choices=QUADRATURES),
    *RUN_CONTROL,
)


# %% [markdown]
# ## The rope on the drum
# The stress-free rope is the wrapped shape itself: a tail, an arc of radius R + r over the
# top of the drum (axis e2) through theta, symmetric about e3, and a tail; d1 = e2. So it
# touches the drum along the arc at t = 0 and no contact has to be found first.

# %%
def rope_curve(theta: float) -> CurveFunction:
    """The wrapped rope through ``theta`` [rad] in the e1-e3 plane; ``d1 = e2``."""
    rho, arc = DRUM_RADIUS + ROPE_RADIUS, (DRUM_RADIUS + ROPE_RADIUS) * theta

    def fn(s):
        s = np.asarray(s, dtype=float)
        a = np.clip(s - TAIL, 0.0, arc) / rho - 0.5 * theta
        t = np.stack([np.cos(a), 0 * a, -np.sin(a)], -1)
        phi = rho * np.stack([np.sin(a), 0 * a, np.cos(a)], -1) \
            + np.minimum(s - TAIL, 0.0)[:, None] * t + np.maximum(s - TAIL - arc, 0.0)[:, None] * t
        d1 = np.tile([0.0, 1.0, 0.0], (s.size, 1))
        return phi, np.stack([d1, np.cross(t, d1), t], -1)

    return CurveFunction(fn, 2 * TAIL + arc)


# %% [markdown]
# ## The model
# The end s = 0 carries the dead force T_in along its tail; the end s = L is clamped and
# moved out along its tail by ``PULL t``. Contact is a penalty at the P2 nodes
# (``quadrature="nodal"``) with regularised Coulomb friction mu; the model is quasi-static
# (t is a load factor), evaluated at the step's end point.

# %%
def problem(mu: float, theta: float, n_elements: int = 40, h: float = 0.05,
            t_end: float = 1.0, stiffness: float = 1e5, v_reg: float = 1e-4,
            quadrature: str = "nodal", comm=None) -> Problem:
    """The rope over the drum with friction ``mu`` through ``theta`` [rad]."""
    curve = rope_curve(theta)
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
# Every load step is a CSV row with the contact columns. Why the rope is pulled rather than
# T_in ramped with the clamp held: every point slides at ``PULL`` per unit load factor, 200
# times ``v_reg``, so the friction is ``mu p / sqrt(1 + (v_reg / v)^2)`` = ``mu p (1 -
# 1.25e-5)``; a rope that only creeps sees a fraction of it (``exp(mu theta / sqrt 2)`` at
# ``v = v_reg``). The first Newton iterate starts from the rope slid along itself by
# ``PULL h``, so the friction starts on its sliding branch; only the path to the solution
# depends on it.

# %%
def simulation(problem: Problem, out: Path | None, name: str, first: bool,
               quiet: bool = True, **control) -> Simulation:
    """Every load step recorded with the contact columns, the start and end shapes kept;
    ``control``: the :data:`fxrod.studies.cases.RUN_CONTROL` values."""
    if not first:
        control = {**control, "restart": restart_of(control.get("restart"), name)}
    contact = problem.model.extensions[0]
    sim = recorded(problem, out, name, snapshot_times=[0.0, problem.t_end], quiet=quiet,
                   probes=[contact.probe(), ContactFieldProbe(contact)],
                   load=LoadParameter("pull of the end s = L", "m", PULL), **control)
    if sim.integ.step_count == 0:
        seed_slide(sim.integ, problem.h)
    return sim


def seed_slide(integ, h: float) -> None:
    """The first step's Newton iterate: the rope slid along itself by ``PULL h`` (the
    quasi-static predictor extrapolates this increment)."""
    m = integ.model
    s = m.space.Q.tabulate_dof_coordinates()[:, 0]

    def q(s):
        phi, R = m.rod.curve.evaluate(s)
        return np.concatenate([phi, R[:, :, 0], R[:, :, 1], R[:, :, 2]], axis=1).reshape(-1)

    dw = np.zeros_like(m.w.x.array)
    dw[m.space.q_map] = q(s + PULL * h) - q(s)
    state = integ.get_state()
    state.update(dw_prev=dw, dv_prev=np.zeros_like(m.v0.x.array), h_prev=h)
    integ.set_state(state)


# %% [markdown]
# ## Against exp(mu theta)
# The whole rope slides from the first step on, so the clamp's reaction along the outgoing
# tail is the tension at slip; averaged over the second half of the pull (steady sliding).

# %%
def tension_ratio(sim: Simulation) -> float:
    """``T_out / T_in`` averaged over the steps with t >= t_end / 2."""
    rod = sim.model.rod
    t_out = rod.curve.evaluate([rod.length])[1][0][:, 2]
    f = np.stack([sim.column(f"clamp_L_force_{i}") for i in (1, 2, 3)], axis=1)
    t = sim.column("t")
    late = t >= 0.5 * t[-1] - 1e-12
    return float(np.mean(f[late] @ t_out) / T_IN)


def figure(sims: dict[tuple[float, float], Simulation], path: Path) -> Path:
    """The ropes at t = 0 and at the end of the pull on their drums (e1-e3 plane), one
    panel per pair (matplotlib, rank 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(sims), figsize=(5 * len(sims), 4.6))
    for ax, ((mu, theta), sim) in zip(np.atleast_1d(axes), sims.items(), strict=True):
        ax.add_patch(plt.Circle((0.0, 0.0), DRUM_RADIUS, color="0.8", ec="0.3"))
        for k, (t, x) in enumerate(sorted(sim.snapshots.items())):
            ax.plot(x[:, 0], x[:, 2], "-" if k else "--", lw=2.5 if k else 1.0,
                    color="C0" if k else "0.5", label=f"t = {t:g}")
        ax.set_aspect("equal")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("z [m]")
        ax.set_title(f"mu = {mu:g}, theta = {np.degrees(theta):.0f} deg\nT_out/T_in = "
                     f"{tension_ratio(sim):.4f}, exp(mu theta) = {np.exp(mu * theta):.4f}",
                     fontsize=10)
        ax.legend(loc="lower center", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def finish(sims: dict[tuple[float, float], Simulation], out: Path | None,
           pictures: bool = True) -> Result:
    """``capstan.csv`` (one row per pair), the summary and the pictures (rank 0)."""
    rank = next(iter(sims.values())).comm.rank
    ratios = {pair: tension_ratio(sim) for pair, sim in sims.items()}
    files: list[Path] = []
    if out is not None and rank == 0:
        w = CSVWriter(out / f"{NAME}.csv", COLUMNS, units=COLUMNS, meanings=MEANINGS)
        for (mu, theta), r in ratios.items():
            w.write(dict(zip(COLUMNS, (mu, theta, r), strict=True)))
        w.close()
        files.append(out / f"{NAME}.csv")
        if pictures:
            files.append(figure(sims, out / f"{NAME}.png"))
            files += [contact_figure(sim, out / f"{label(*p)}_contact.png", ROPE_RADIUS,
                                     time_label="load factor") for p, sim in sims.items()]
    files += [f for sim in sims.values() for f in output_files(sim)]
    s, lines = {}, []
    for i, ((mu, theta), r) in enumerate(ratios.items()):
        s[f"ratio_{i}"], s[f"error_{i}"] = r, r / np.exp(mu * theta) - 1.0
        lines.append(f"{NAME}: mu = {mu:g}, theta = {theta:.6f}: T_out/T_in = {r:.6f}, "
                     f"exp(mu theta) = {np.exp(mu * theta):.6f} ({100 * s[f'error_{i}']:+.3f} %)")
    return Result(CASE.name, s, "\n".join(filter(None, (*lines, wrote(files)))),
                  {label(*p): sim for p, sim in sims.items()}, files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, h: float,
        t_end: float, stiffness: float, v_reg: float, quadrature: str, comm=None,
        **control) -> Result:
    """Build, run and compare every pair of :data:`PAIRS` (the options of :data:`OPTIONS`)
    on ``comm``."""
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
    args = CASE.parse_args()
    sims = {}
    for i, (mu, theta) in enumerate(PAIRS):
        prob = problem(mu, theta, args.n_elements, args.h, args.t_end, args.stiffness,
                       args.v_reg, args.quadrature)
        with exit_on_signal(NAME, prob.model.comm), \
                simulation(prob, args.out, label(mu, theta), i == 0, args.quiet,
                           **control(args)) as sim:
            sim.run(prob.t_end)
        sims[(mu, theta)] = sim
    result = finish(sims, args.out, pictures=args.pictures)
    raise SystemExit(result.report(args.quiet))
