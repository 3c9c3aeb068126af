"""Snapshots are taken at the step nearest each requested time and keyed exactly."""

from __future__ import annotations

import numpy as np

from fxrod.core.loads import Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import newton_bound, roundoff


def test_snapshot_keys_are_the_nearest_steps_times():
    """h = 0.3 and snapshots asked at 0.5, 0.9, 1.0: the steps at 0.6 and 0.9 are taken,
    keyed 0.6 and 0.9 (not 0.8999999999999999 = 3 * 0.3); the falling rod's snapshot is at
    the step's time: z = -g t^2 / 2 (the midpoint rule is exact for a constant
    acceleration), but for the Newton tolerance and round-off."""
    g, h = 9.81, 0.3
    rod = Rod(Section.circular(0.01, E=1e9, nu=0.3, rho=1e3), (0, 0, 0), (1, 0, 0),
              (0, 1, 0), 2)
    settings = SolverSettings(atol=1e-12, rtol=1e-14)
    sim = Simulation(Integrator(RodModel(rod, [Gravity((0.0, 0.0, -g))]), h, settings),
                     snapshot_times=[0.5, 0.9, 1.0])
    sim.run(1.2)
    assert sorted(sim.snapshots) == [0.6, 0.9]
    for t, steps in ((0.6, 2), (0.9, 3)):
        z = sim.snapshots[t][:, 2]
        bound = newton_bound(settings, np.sqrt(5), steps) * h / (rod.section.rhoA * 1.0) \
            + roundoff(g * t**2, steps)
        assert np.abs(z + g * t**2 / 2).max() <= bound + roundoff(1.0, steps)
