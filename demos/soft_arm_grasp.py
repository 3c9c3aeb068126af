# %% [markdown]
# # The soft arm grasps a cylinder: bending against it and wrapping around it.
#
# The pneumatic arm of Ex. 6.4 (demos/soft_arm.py), clamped at the origin along e3, is
# pressurised on one side (``tau_k = f(t)/2 (1 + cos alpha_k)``, f ramping as a cosine to
# -150 N over 1 s, then held) and bends towards +e1, onto a fixed rough cylinder 0.01 m
# beside it, and wraps over it: its free arc (radius 0.059 m) curls more tightly than the
# cylinder lets it (R_c + r = 0.065 m). The ledger books the chamber work as port work and
# the friction as dissipation (theory C6).
#
#     python demos/soft_arm_grasp.py [--out DIR] [--quick] [--f-max -150] [--friction 0.5]
#     mpirun -n 2 python demos/soft_arm_grasp.py --quick
#
# Writes ``DIR/soft_arm_grasp.csv`` (standard columns, ``tau_1..3`` [N], ``contact_*``), a
# ParaView series with the nodal contact fields and pictures; ``fxrod run soft-arm-grasp``
# runs the same case (``--quick``: up to t = 0.6 s, first contact and the start of the wrap).

# %%
import math
from pathlib import Path

from fxrod import Clamp, Contact, Cylinder, Problem, RodModel, SolverSettings
from fxrod.core.forms.contact import QUADRATURES
from fxrod.errors import ParameterError
from fxrod.problems.soft_arm import SOFT_ARM, grasp_onset_force, grasp_summary, one_side_forces
from fxrod.runs.probes import ColumnProbe, ContactFieldProbe
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result, demo
from fxrod.studies.cases.common import output_files, recorded, wrote

NAME = "soft_arm_grasp"
#: The cylinder: a point of its axis [m], the axis, its radius R_c [m].
CENTRE, AXIS, CYLINDER_RADIUS = (0.075, 0.0, 0.07), (0.0, 1.0, 0.0), 0.035
DESIGN_LINE_LOAD = 3000.0     # p_max [N/m]: the stated penetration bound is p_max / k
PICTURE_TIMES = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.5)   # of the picture [s]
OPTIONS = (
    Option("n_elements", 20, "-", "elements of the arm", bounds="[1, inf)"),
    Option("h", 0.01, "s", "time step", bounds="(0, inf)"),
    Option("t_end", 1.5, "s", "end time", bounds="(0, inf)"),
    Option("f_max", -150.0, "N", "chamber force amplitude (<= 0)", bounds="(-inf, 0]"),
    Option("ramp", 1.0, "s", "duration of the cosine ramp of the amplitude", bounds="(0, inf)"),
    Option("friction", 0.5, "-", "Coulomb coefficient arm-cylinder", bounds="[0, inf)"),
    Option("stiffness", 1e6, "N/m^2", "penalty stiffness", bounds="(0, inf)"),
    Option("v_reg", 1e-2, "m/s", "friction regularisation velocity", bounds="(0, inf)"),
    Option("quadrature", "nodal", "-", "contact points", choices=QUADRATURES),
    *RUN_CONTROL,
)


def amplitude(t: float, f_max: float, ramp: float) -> float:
    """Amplitude f(t) [N]: ``f_max (1 - cos(pi t/ramp))/2`` on [0, ramp], then ``f_max``."""
    return f_max * (0.5 * (1.0 - math.cos(math.pi * min(max(t, 0.0), ramp) / ramp)))


# %% [markdown]
# ## The model
# The arm and its chambers as demos/soft_arm.py builds them (``SOFT_ARM``), clamped,
# dynamic (midpoint rule). The cylinder is a penalty contact at the P2 nodes with
# regularised Coulomb friction. Why these numbers: the grasp's line load, 700-850 N/m,
# penetrates k = 1e6 N/m^2 by under 1 mm (3 % of r; the bound p_max / k = 3 mm holds for up
# to 3000 N/m); v_reg = 0.01 m/s lies below the sliding speeds (~0.1 m/s) and above the
# creep that makes Newton fail (1e-3 m/s failed at t = 0.74 s).

# %%
def problem(n_elements: int = 20, h: float = 0.01, t_end: float = 1.5, f_max: float = -150.0,
            ramp: float = 1.0, friction: float = 0.5, stiffness: float = 1e6,
            v_reg: float = 1e-2, quadrature: str = "nodal", comm=None) -> Problem:
    """The clamped arm, its chambers ramped to ``f_max`` [N] over ``ramp`` [s], the cylinder."""
    if f_max > 0.0:
        raise ParameterError("f_max", f_max, "<= 0 N (chamber forces are non-positive)")
    arm = demo("soft_arm")
    forces = [lambda t, k=k: float(one_side_forces(amplitude(t, f_max, ramp))[k])
              for k in range(3)]
    contact = Contact(Cylinder(CENTRE, AXIS, CYLINDER_RADIUS), stiffness=stiffness,
                      friction=friction, v_reg=v_reg, quadrature=quadrature)
    model = RodModel(arm.arm(SOFT_ARM, n_elements), supports=[Clamp("0")],
                     extensions=[arm.chambers(forces, SOFT_ARM), contact], comm=comm)
    return Problem(model, h, t_end, SolverSettings(max_it=50))


# %% [markdown]
# ## The run
# Every step: the standard columns, the chamber forces and the contact probe (normal force,
# smallest gap, contact length), a ParaView frame with the nodal contact fields.

# %%
def simulation(problem: Problem, out: Path | None, f_max: float = -150.0,
               ramp: float = 1.0, quiet: bool = True, **control) -> Simulation:
    """Every step recorded with the chamber forces and the contact columns."""
    taus = ColumnProbe({f"tau_{k}": "N" for k in (1, 2, 3)},
                       lambda sim, res: {f"tau_{k + 1}": float(v) for k, v in enumerate(
                           one_side_forces(amplitude(sim.integ.t, f_max, ramp)))})
    contact = problem.model.extensions[1]
    times = [t for t in PICTURE_TIMES if t <= problem.t_end + 1e-9]
    return recorded(problem, out, NAME, snapshot_times=times, paraview_every=1,
                    probes=[taus, contact.probe(), ContactFieldProbe(contact)], quiet=quiet,
                    **control)


# %% [markdown]
# ## Against an independent reference: the contact onset
# Until it touches, the slowly ramped arm follows the exact static arc of constant strains;
# the amplitude f* at which that arc first reaches R_c + r from the cylinder's axis gives
# the onset time. Then contact length and wrap angle, penetration against p_max / k, the
# energy balance (``grasp_summary``) and the pictures.

# %%
def onset_time(f_max: float, ramp: float) -> float:
    """``t* = ramp/pi arccos(1 - 2 f*/f_max)`` [s]: when the ramp reaches f*."""
    f_star = grasp_onset_force(f_max, CENTRE, AXIS, CYLINDER_RADIUS)
    return ramp / math.pi * math.acos(1.0 - 2.0 * f_star / f_max)


def finish(sim: Simulation, out: Path | None, f_max: float = -150.0, ramp: float = 1.0,
           pictures: bool = True) -> Result:
    """The summary against the static arc and the pictures (rank 0)."""
    rank = sim.comm.rank
    s, text = grasp_summary(sim, NAME, onset_time(f_max, ramp),
                            DESIGN_LINE_LOAD / sim.model.extensions[1].k,
                            CYLINDER_RADIUS + 0.5 * SOFT_ARM.diameter)
    figs = []
    if pictures and out is not None and rank == 0:
        from fxrod.viz.figures import grasp_pictures

        figs = grasp_pictures(sim, out, NAME, CENTRE, CYLINDER_RADIUS, 0.5 * SOFT_ARM.diameter)
    files = output_files(sim, *figs)
    return Result(CASE.name, s, "\n".join(filter(None, (text, wrote(files)))),
                  {sim.name: sim}, files, rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, h: float,
        t_end: float, f_max: float, ramp: float, friction: float, stiffness: float,
        v_reg: float, quadrature: str, comm=None, **control) -> Result:
    """Build, run and post-process (the options of :data:`OPTIONS`) on ``comm``."""
    prob = problem(n_elements, h, t_end, f_max, ramp, friction, stiffness, v_reg, quadrature, comm)
    with simulation(prob, out, f_max, ramp, quiet=quiet, **control) as sim:
        sim.run(prob.t_end)
    return finish(sim, out, f_max, ramp, pictures=pictures)


CASE = Case("soft-arm-grasp", "soft arm pressurised on one side wraps around a rough "
            "cylinder (contact, friction, dynamics)", OPTIONS, {"t_end": 0.6}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for t_end = 0.6 s.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
