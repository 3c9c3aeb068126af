"""The field's benchmark structures of rods coupled by joints as ready problems (model,
settings, step and span), shared by the demos, the tests and the benchmarks. Parameters and
their provenance: theory §2.7.
"""

from __future__ import annotations

import numpy as np

from fxrod.core.joints import Rigid
from fxrod.core.loads import EndLoad, piecewise_linear_hat
from fxrod.core.model import RodModel
from fxrod.core.pointload import PointLoad
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp, Hinge
from fxrod.runs.problem import Problem
from fxrod.solvers.settings import SolverSettings


def right_angle_section() -> Section:
    """Simo & Vu-Quoc (1988), right-angle cantilever: EA = GA = 1e6, EI = GJ = 1e3,
    rho A = 1, rho I = 10 per bending axis (rho J = 20) (consistent units)."""
    return Section(rhoA=1.0, M11=10.0, M22=10.0, k_s1=1e6, k_s2=1e6, k_e=1e6,
                   k_b1=1e3, k_b2=1e3, k_t=1e3, radius=0.3)


def right_angle_cantilever(n_elements: int = 10, h: float = 0.1, t_end: float = 30.0,
                           peak: float = 50.0, comm=None) -> Problem:
    """Simo & Vu-Quoc (1988): two legs of length 10 welded at a right angle, clamped at the
    origin; leg 1 along e1 to the elbow (10, 0, 0), leg 2 along e2 to the tip (10, 10, 0);
    an out-of-plane force along e3 at the elbow, the triangular pulse 0 -> ``peak`` at
    t = 1 -> 0 at t = 2, then free motion. ``n_elements`` per leg, Newton atol 1e-10.
    """
    sec = right_angle_section()
    leg1 = Rod(sec, start=(0.0, 0.0, 0.0), end=(10.0, 0.0, 0.0), d1=(0.0, 0.0, 1.0),
               n_elements=n_elements)
    leg2 = Rod(sec, start=(10.0, 0.0, 0.0), end=(10.0, 10.0, 0.0), d1=(0.0, 0.0, 1.0),
               n_elements=n_elements)
    f = piecewise_linear_hat(peak, 1.0, 2.0)
    model = RodModel(Structure([leg1, leg2], [Rigid((0, "L"), (1, "0"))]),
                     [EndLoad("L", force=lambda t: f(t) * np.array([0.0, 0.0, 1.0]))],
                     [Clamp("0")], comm=comm)
    return Problem(model, h, t_end, SolverSettings(atol=1e-10, rtol=1e-14))


#: Lee's frame (Lee, Manuel & Rossow 1968; Simo & Vu-Quoc 1986): member length [m], the
#: distance of the load from the corner [m], E [Pa] and the 3 x 2 rectangle [m].
LEE_LENGTH, LEE_LOAD_AT, LEE_E, LEE_B, LEE_H = 120.0, 24.0, 720.0, 3.0, 2.0


def lee_section() -> Section:
    """E = 720, A = 6, I = 2 in the plane of the frame (b = 3, h = 2), G = E/2.6, shear
    factor 5/6; the out-of-plane bending and torsion stiffnesses are 100 EI because the
    benchmark is planar (with the real ones the frame buckles sideways first)."""
    E, b, h = LEE_E, LEE_B, LEE_H
    EI, GA = E * b * h**3 / 12.0, 5.0 / 6.0 * E / 2.6 * b * h
    return Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=GA, k_s2=GA, k_e=E * b * h, k_b1=EI,
                   k_b2=100.0 * EI, k_t=100.0 * EI)


def lee_frame(n_elements: int = 10, comm=None) -> RodModel:
    """Lee's frame: a column from (0, 0) to (0, 120) welded at right angles to a beam from
    (0, 120) to (120, 120), pinned at (0, 0) and (120, 120) (hinges about the out-of-plane
    director d1 = e3), Euler-Bernoulli members (shear-rigid, extensible), a dead downward
    point load at (24, 120) of ``lambda EI/L^2``: the load factor is ``lambda = P L^2/EI``.
    ``n_elements`` per member, a multiple of 5 (a node under the load). Quasi-static."""
    if n_elements % 5 or n_elements < 5:
        from fxrod.errors import ParameterError

        raise ParameterError("n_elements", n_elements, "a multiple of 5 (a node at 24 m)")
    L, sec = LEE_LENGTH, lee_section()
    column = Rod(sec, start=(0.0, 0.0, 0.0), end=(0.0, L, 0.0), d1=(0.0, 0.0, 1.0),
                 n_elements=n_elements, constraints=("shear_rigid",))
    beam = Rod(sec, start=(0.0, L, 0.0), end=(L, L, 0.0), d1=(0.0, 0.0, 1.0),
               n_elements=n_elements, constraints=("shear_rigid",))
    frame = Structure([column, beam], [Rigid((0, "L"), (1, "0"))])
    P = sec.k_b1 / L**2
    load = PointLoad(frame.coordinate(1, LEE_LOAD_AT),
                     force=lambda lam: (0.0, -lam * P, 0.0))
    return RodModel(frame, [load], [Hinge("0", axis="d1"), Hinge("L", rod=1, axis="d1")],
                    comm=comm, quasistatic=True)
