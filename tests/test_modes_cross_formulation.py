"""Cross-formulation modal check: the planar ANCF companion (fxrod.ancf.modal, theory §A4)
and the Cosserat modal analysis (fxrod.analysis.modes) on the shared planar problem R1 of theory §A5
(L = 2 m, 0.1 m square steel section, Exudyn clamp, dead tip force f = 3 EI / L^2, tip
displaced by (-0.509, -1.207) m): the in-plane natural frequencies about the deformed
equilibrium. Same physics on both sides: shear-rigid, extensible (ANCF strain option (1)),
no rotary inertia; two discretisations (Hermite cubic positions vs P2 positions and
directors with DG1 stresses) of the same continuum."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.analysis.modes import modes
from fxrod.ancf.benchmarks import R1_B, R1_E, R1_FORCE, R1_L, R1_RHO, r1_beam
from fxrod.ancf.modal import eigenfrequencies
from fxrod.ancf.steppers import solve_static
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from tests.claims import assert_claim

N_E = 32


def _cosserat_r1() -> RodModel:
    A, I = R1_B**2, R1_B**4 / 12.0
    sec = Section(rhoA=R1_RHO * A, M11=0.0, M22=0.0, k_s1=1e3 * R1_E * A,
                  k_s2=1e3 * R1_E * A, k_e=R1_E * A, k_b1=R1_E * I, k_b2=R1_E * I,
                  k_t=R1_E * I)
    rod = Rod(sec, (0, 0, 0), (R1_L, 0, 0), (0, 0, 1), N_E, constraints=("shear_rigid",))
    load = EndLoad("L", force=lambda t: t * np.array([0.0, -R1_FORCE, 0.0]))
    return RodModel(rod, [load], [Clamp("0")], quasistatic=True)


def _in_plane(m) -> np.ndarray:
    """Frequencies of the modes without displacement out of the x-y plane."""
    return np.array([w for w, s in zip(m.omega, m.shapes, strict=True)
                     if np.abs(s[:, 2]).max() <= 1e-6 * np.abs(s[:, 0:3]).max()])


def test_ancf_and_cosserat_frequencies_of_the_deformed_r1_cantilever():
    """n_e 32 each: the first five in-plane frequencies about the deformed R1 equilibrium
    (177.5, 789.0, 2106.1 rad/s bending, 4098 axial-bending, 5330 rad/s) agree to measured
    8.6e-7, 1.9e-6, 2.6e-7, 6.5e-6, 8.9e-6 (16 x larger at n_e 16: both converge with
    order 4 to the same continuum); the tip equilibria agree to 3e-7 m."""
    beam = r1_beam(N_E)
    solve_static(beam, n_steps=10)
    ancf = eigenfrequencies(beam, 5, q=beam.state())
    model = _cosserat_r1()
    Integrator(model, 0.1, SolverSettings(adaptive=True)).advance_to(1.0)
    tip = model.nodes.tip()[:2] - np.array([R1_L, 0.0])
    assert tip == pytest.approx(beam.tip() - np.array([R1_L, 0.0]), abs=1e-6)
    cosserat = _in_plane(modes(model, 12))[:5]
    assert np.all(np.abs(cosserat / ancf - 1.0) <= [2.5e-6, 5e-6, 7.5e-7, 1.9e-5, 2.6e-5])
    assert_claim("modes-ancf-cosserat", cosserat / ancf - 1.0, 2.6e-5)
