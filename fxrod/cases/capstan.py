"""Case ``capstan``: a rope pulled over a fixed cylinder until it slips (Euler-Eytelwein).

A rope (a rod with tiny bending and torsional stiffness, stiff in extension) lies over a
fixed cylinder of radius 0.1 m (axis e3) through the wrap angle theta, its two straight
legs tangent to the cylinder. The rope's surface touches the cylinder (section radius
5 mm): penalty contact with regularised Coulomb friction mu (:class:`fxrod.forms.contact.
Contact`). Quasi-static, t a load factor: for t in [0, 1] a dead force T_in = 1 N is raised
at s = 0 along the incoming leg, while the end s = L is clamped; for t in [1, 2] the clamp
is pulled out along the outgoing leg by 5 cm, so the rope slides over the cylinder. While it
slides, the clamp's reaction along the leg is the outgoing tension T_out, and Euler's
capstan equation gives ``T_out / T_in = exp(mu theta)`` for a perfectly flexible rope.

Files: ``DIR/capstan.csv`` with the columns ``mu, theta, tension_ratio`` (one row per
(mu, theta)). Summary keys: ``ratio_<i>`` and ``capstan_<i>`` (``exp(mu theta)``) of row i,
``worst_gap`` (largest relative difference).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fxrod.bcs import Clamp
from fxrod.cases import Case, Option, Result
from fxrod.cases.common import wrote
from fxrod.forms.contact import Contact
from fxrod.geometry import CurveFunction
from fxrod.loads import EndLoad
from fxrod.model import RodModel
from fxrod.obstacles import Cylinder
from fxrod.problem import Problem
from fxrod.rod import Rod, Section
from fxrod.settings import SolverSettings
from fxrod.simulation import Simulation

NAME = "capstan"
#: (mu, theta) of the runs.
PAIRS = ((0.3, np.pi), (0.5, 0.5 * np.pi))
#: Cylinder radius [m], rope radius [m], length of each straight leg [m].
R_CYLINDER, R_ROPE, LEG = 0.1, 0.005, 0.12
#: Tension at the free end [N], pull-out distance of the clamp [m].
T_IN, PULL = 1.0, 0.05
#: Regularisation velocity of the friction law [m per unit load factor]: the rope slides at
#: PULL = 0.05 per unit t, where the regularised law gives mu p (1 - 2e-4).
V_REG = 1e-3
#: Rope: stiff in shear and extension [N], nearly free in bending and torsion [N m^2]; the
#: bending correction to the capstan ratio is of order k_b / (T rho^2) ~ 1e-4.
ROPE = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1e4, k_s2=1e4, k_e=1e4, k_b1=1e-6,
               k_b2=1e-6, k_t=1e-6, radius=R_ROPE)

OPTIONS = (
    Option("n_elements", 96, "-", "number of elements of the rope"),
    Option("h", 0.05, "-", "load-factor step"),
    Option("stiffness", 1e5, "N/m^2", "penalty stiffness of the contact"),
)


def rope(theta: float, n_elements: int) -> Rod:
    """The rope over the cylinder: a leg, an arc of radius ``R_CYLINDER + R_ROPE`` through
    ``theta`` (symmetric about e2, clockwise over the top), a leg; ``d1 = e3``."""
    rho = R_CYLINDER + R_ROPE
    b0 = 0.5 * (np.pi + theta)                    # polar angle where the rope meets the arc
    arc = rho * theta

    def fn(s):
        s = np.asarray(s, dtype=float)
        beta = b0 - np.clip(s - LEG, 0.0, arc) / rho
        phi = np.c_[rho * np.cos(beta), rho * np.sin(beta), np.zeros_like(s)]
        t = np.c_[np.sin(beta), -np.cos(beta), np.zeros_like(s)]
        phi += (np.minimum(s - LEG, 0.0) + np.maximum(s - LEG - arc, 0.0))[:, None] * t
        e3 = np.tile([0.0, 0.0, 1.0], (s.size, 1))
        return phi, np.stack([e3, np.cross(t, e3), t], axis=-1)

    return Rod(ROPE, curve=CurveFunction(fn, 2 * LEG + arc), n_elements=n_elements)


def problem(mu: float, theta: float, n_elements: int = 96, h: float = 0.05,
            stiffness: float = 1e5, comm=None) -> tuple[Problem, np.ndarray]:
    """The quasi-static pull and the outgoing direction (unit 3-vector)."""
    rod = rope(theta, n_elements)
    q_in, q_out = rod.initial_configuration([0.0, rod.length])
    t_in, t_out = q_in[9:12], q_out[9:12]

    def pull(t):
        return q_out[:3] + PULL * max(t - 1.0, 0.0) * t_out, q_out[3:12].reshape(3, 3).T

    ramp = lambda t: -T_IN * min(t, 1.0) * t_in  # noqa: E731 - backwards along the leg
    contact = Contact(Cylinder((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), R_CYLINDER),
                      stiffness=stiffness, friction=mu, v_reg=V_REG)
    model = RodModel(rod, loads=[EndLoad("0", force=ramp)],
                     supports=[Clamp("L", motion=pull)], extensions=[contact], comm=comm,
                     quasistatic=True)
    settings = SolverSettings(atol=1e-11, jacobian_lag=1, adaptive=True)
    return Problem(model, h, 2.0, settings), t_out


def tension_ratio(mu: float, theta: float, **options) -> tuple[float, Simulation]:
    """``T_out / T_in`` at the end of the pull, with the recorded run (in memory)."""
    prob, t_out = problem(mu, theta, **options)
    with Simulation(prob.integrator(), None, f"{NAME}_{mu:g}", probes=[
            prob.model.extensions[0].probe()]) as sim:
        sim.run(prob.t_end)
    f = np.array([sim.column(f"clamp_L_force_{i}")[-1] for i in (1, 2, 3)])
    return float(f @ t_out) / T_IN, sim


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, h: float,
        stiffness: float) -> Result:
    """Both (mu, theta) pairs; ``capstan.csv``."""
    rows, sims, s = [], {}, {}
    for i, (mu, theta) in enumerate(PAIRS):
        ratio, sims[f"mu{mu:g}"] = tension_ratio(mu, theta, n_elements=n_elements, h=h,
                                                 stiffness=stiffness)
        rows.append((mu, theta, ratio))
        s[f"ratio_{i}"], s[f"capstan_{i}"] = ratio, float(np.exp(mu * theta))
    s["worst_gap"] = max(abs(r / np.exp(m * t) - 1.0) for m, t, r in rows)
    rank = next(iter(sims.values())).comm.rank
    files = []
    if out is not None and rank == 0:
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{NAME}.csv"
        np.savetxt(path, np.array(rows), delimiter=",", header="mu,theta,tension_ratio",
                   comments="", fmt="%.17g")
        files.append(path)
    lines = [f"{NAME}: mu = {m:g}, theta = {t:.4f}: T_out/T_in = {r:.5f}, "
             f"exp(mu theta) = {np.exp(m * t):.5f}" for m, t, r in rows]
    lines.append(f"largest relative difference: {s['worst_gap']:.2e}")
    return Result(CASE.name, s, "\n".join(filter(None, (*lines, wrote(files)))), sims,
                  files, rank=rank)


CASE = Case("capstan", "capstan: a rope pulled over a fixed cylinder with friction, "
            "T_out/T_in vs exp(mu theta)", OPTIONS, {"n_elements": 48, "h": 0.1}, run)
