"""Cross-formulation check (issue 8): the same free beam (Example 2 section of theory §H7,
smooth initial velocities) with the Hamel FVI and with the PH Cosserat rod converges to the
same motion as h, dh -> 0. Axes: Hamel body (E1, E2 axial, E3) = Cosserat (d2, d3, d1)."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.hamel.runs import run_free_beam
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings

A_SIDE, RHO, E, NU = 0.1, 1000.0, 1e7, 0.35
G = E / (2 * (1 + NU))
I_B = A_SIDE**4 / 12
K = np.array([RHO * I_B, 2 * RHO * I_B, RHO * I_B, RHO * A_SIDE**2, RHO * A_SIDE**2,
              RHO * A_SIDE**2])
P = np.array([E * I_B, G * 2 * I_B, E * I_B, 5 / 6 * G * A_SIDE**2, E * A_SIDE**2,
              5 / 6 * G * A_SIDE**2])
OMEGA = np.array([0.1, 1.0, 0.2])
T_END = 0.1


def v_phi(s):
    """Smooth initial centreline velocity [m/s] (a bending + axial profile)."""
    s = np.asarray(s)
    return np.vstack([2.0 * np.sin(np.pi * s), 0.5 * s, 3.0 * (1 - s) ** 2])


def hamel_tip(n_elements: int, h: float) -> np.ndarray:
    def vel(s):
        return np.hstack([np.tile(OMEGA, (len(s), 1)), v_phi(s).T])

    t, tip = run_free_beam(K, P, 1.0, n_elements, h, T_END, vel, record_every=1000000,
                           weights="trapezoid")
    return tip[-1]


def cosserat_tip(n_elements: int, h: float) -> np.ndarray:
    sec = Section(rhoA=K[3], M11=K[0], M22=K[2], k_s1=P[5], k_s2=P[3], k_e=P[4],
                  k_b1=P[2], k_b2=P[0], k_t=P[1])
    rod = Rod(sec, (0, 0, 0), (0, 1, 0), d1=(0, 0, 1), n_elements=n_elements)
    model = RodModel(rod)
    model.set_velocity(v_phi=v_phi, omega=OMEGA)
    integ = Integrator(model, h, SolverSettings(atol=1e-12, rtol=1e-14))
    integ.advance_to(T_END)
    return model.nodes.tip()


@pytest.mark.slow
def test_same_motion_study():
    diffs = []
    for n, dt, ne, h in ((10, 1e-4, 4, 2e-3), (20, 5e-5, 8, 1e-3), (40, 2.5e-5, 16, 5e-4)):
        diffs.append(np.linalg.norm(hamel_tip(n, dt) - cosserat_tip(ne, h)))
    print("tip difference at t = 0.1 s:", diffs)
    assert diffs[1] < diffs[0] and diffs[2] < diffs[1]


def test_same_motion_short():
    coarse = np.linalg.norm(hamel_tip(10, 1e-4) - cosserat_tip(4, 2e-3))
    fine = np.linalg.norm(hamel_tip(20, 5e-5) - cosserat_tip(8, 1e-3))
    assert fine < 0.5 * coarse, (coarse, fine)
    assert fine < 1e-3  # measured 4.4e-4 (coarse 2.1e-3; 40 / n_e = 16 elements: 2.2e-4)
