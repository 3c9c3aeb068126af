"""2D gradient-deficient ANCF Euler-Bernoulli beam (theory §A), the fxrod companion.

Planar large-deflection beams with axially graded properties, as UFL forms on a uniform 1D
mesh with basix Hermite C1 interpolation (:mod:`fxrod.ancf.element`, theory §A7). Solvers:
static Newton with load stepping, explicit central difference with the SLEPc stability
limit, an implicit energy-consistent (discrete-gradient) step (:mod:`fxrod.ancf.steppers`,
Newton through :class:`fxrod.solvers.newton.NewtonSolver`, time series in a
:class:`fxrod.output.history.History`), eigenfrequencies (:mod:`fxrod.ancf.modal`), and an
independent linear Euler-Bernoulli check for graded cantilevers
(:mod:`fxrod.ancf.linear_beam`).

Example (the blog's graded steel cantilever under gravity)::

    from fxrod.ancf import ANCFBeam, blog_beam, solve_static, eigenfrequencies
    beam = ANCFBeam(blog_beam(lam=0.6, n=2), n_elements=40, gravity=(0.0, -9.81))
    tip = solve_static(beam).tip_displacement      # [m]
    omega_1 = eigenfrequencies(beam, 1)[0]          # [rad/s]
"""

from __future__ import annotations

import fxrod  # noqa: F401  (imports dolfinx_solver before dolfinx / petsc4py)
from fxrod.ancf.benchmarks import half_circle_tip, r1_beam, r1_tip_displacement
from fxrod.ancf.element import QUADRATURE, STRAINS, SUPPORTS, ANCFBeam
from fxrod.ancf.material import BeamProperties, GradedModulus, blog_beam, graded_modulus
from fxrod.ancf.modal import critical_time_step, eigenfrequencies, max_eigenfrequency
from fxrod.ancf.steppers import (
    CentralDifference,
    CentralDifferenceStepper,
    EnergyConsistentStepper,
    InstabilityError,
    StaticResult,
    default_settings,
    energy_balance,
    relative_energy_error,
    solve_static,
)

__all__ = [
    "QUADRATURE", "STRAINS", "SUPPORTS",
    "ANCFBeam", "BeamProperties", "CentralDifference", "CentralDifferenceStepper",
    "EnergyConsistentStepper",
    "GradedModulus", "InstabilityError", "StaticResult",
    "blog_beam", "critical_time_step", "default_settings", "eigenfrequencies",
    "energy_balance", "graded_modulus", "half_circle_tip", "max_eigenfrequency", "r1_beam",
    "r1_tip_displacement", "relative_energy_error", "solve_static",
]
