"""The field's benchmark structures of rods coupled by joints as ready problems (model,
settings, step and span), shared by the demos, the tests and the benchmarks. Parameters and
their provenance: theory §2.7.
"""

from __future__ import annotations

import numpy as np

from fxrod.bcs import Clamp
from fxrod.joints import Rigid
from fxrod.loads import EndLoad, piecewise_linear_hat
from fxrod.model import RodModel
from fxrod.problem import Problem
from fxrod.rod import Rod, Section
from fxrod.settings import SolverSettings
from fxrod.structure import Structure


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
