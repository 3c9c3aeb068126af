"""Gravity and distributed loads against closed forms, in statics and in dynamics.

Statics (Euler-Bernoulli, small loads, Kirchhoff rod so that shear and extension are
rigid): a cantilever of bending stiffness EI under a uniform load q [N/m] deflects at the
tip by ``q L^4 / (8 EI)``, under a uniform distributed couple m [N m/m] by
``m L^3 / (3 EI)``. At w/L ~ 2e-7 the geometric nonlinearity is O((w/L)^2) ~ 1e-13 relative;
the mixed P2/DG1 element is nodally exact for these polynomial loads, so the tip agrees to
round-off (measured 4e-16 relative for 4 to 16 elements).

Dynamics: a free rod under gravity falls with its centre at ``-g t^2/2`` and momentum
``-rhoA L g t``; the implicit midpoint rule integrates a constant acceleration exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.loads import DistributedLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import newton_bound, roundoff

SEC = Section.circular(radius=0.01, E=2e11, rho=7850.0, nu=0.3)   # steel, r = 1 cm
L = 1.0


def _cantilever(load, n_elements=8, **kw) -> RodModel:
    rod = Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), n_elements, constraints=("kirchhoff",))
    return RodModel(rod, [load], [Clamp("0")], **kw)


@pytest.mark.parametrize("n_elements", [4, 16])
def test_quasistatic_gravity_deflects_cantilever(n_elements):
    """Gravity acts in statics (a quasi-static model keeps its loads): w = q L^4 / (8 EI)."""
    g = 1e-3
    model = _cantilever(Gravity((0.0, 0.0, -g)), n_elements, quasistatic=True)
    Integrator(model, 1.0).advance_to(1.0)
    w = SEC.rhoA * g * L**4 / (8.0 * SEC.k_b1)
    assert model.nodes.tip()[2] == pytest.approx(-w, rel=1e-12)


def test_quasistatic_distributed_force_and_couple():
    """DistributedLoad: force q [N/m] gives q L^4/(8 EI); couple m [N m/m] about e2 gives
    m L^3/(3 EI) (downwards for a positive couple about e2 on a rod along e1)."""
    q, m = 0.01, 1e-3
    model = _cantilever(DistributedLoad(force=(0.0, 0.0, -q)), quasistatic=True)
    Integrator(model, 1.0).advance_to(1.0)
    assert model.nodes.tip()[2] == pytest.approx(-q * L**4 / (8.0 * SEC.k_b1), rel=1e-12)
    model = _cantilever(DistributedLoad(moment=(0.0, m, 0.0)), quasistatic=True)
    Integrator(model, 1.0).advance_to(1.0)
    assert model.nodes.tip()[2] == pytest.approx(-m * L**3 / (3.0 * SEC.k_b1), rel=1e-12)


@pytest.mark.exactness
@pytest.mark.parametrize("load", ["gravity", "distributed"])
def test_free_fall(load):
    """A free rod under gravity (or the equal distributed force rhoA g): centre of mass
    -g t^2/2, momentum -rhoA L g t, energy balance H_{n+1} - H_n = W_ext^n, exact but for
    the Newton tolerance and round-off (tests/roundoff.py). Per step p_3 changes by
    -h rhoA L g plus the sum of the accepted residual's z-momentum rows (< sqrt(nodes) atol:
    the chain solver's first iterate leaves ~1e-13 there, which Newton accepts, MUMPS's
    ~1e-17); com_3 moves by h (p_n + p_{n+1}) / (2 rhoA L)."""
    g, h, n_elements = 9.81, 0.01, 4
    ld = Gravity((0.0, 0.0, -g)) if load == "gravity" else \
        DistributedLoad(force=(0.0, 0.0, -SEC.rhoA * g))
    rod = Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), n_elements)
    model = RodModel(rod, [ld])
    settings = SolverSettings(atol=1e-12, rtol=1e-14)
    sim = Simulation(Integrator(model, h, settings))
    sim.run(0.2)
    t = sim.column("t")
    k = np.arange(len(t))                       # steps taken
    m, nodes = SEC.rhoA * L, 2 * n_elements + 1
    dp = newton_bound(settings, np.sqrt(nodes), k) + roundoff(m * g * t[-1], k)
    assert np.all(np.abs(sim.column("p_3") + m * g * t) <= dp)
    dcom = h / m * np.cumsum(dp) + roundoff(0.5 * g * t[-1] ** 2, k)
    assert np.all(np.abs(sim.column("com_3") + 0.5 * g * t**2) <= dcom)
    W, W_exact = sim.column("external_work"), m * g * 0.5 * g * t[-1] ** 2
    assert abs(W[-1] - W_exact) <= m * g * dcom[-1] + roundoff(W_exact, k[-1])
    # per step: the residual paired with the efforts, here the midpoint velocities (every
    # node at <= g t; stresses and multipliers of a rigid motion ~0), plus round-off of H
    de = newton_bound(settings, np.sqrt(nodes) * g * t[-1]) + roundoff(0.5 * m * (g * t[-1]) ** 2)
    assert np.max(np.abs(sim.column("energy_residual"))) <= de
    assert np.max(sim.column("strain_energy")) <= 1e-20   # a rigid-body motion


def test_gravity_may_be_a_function_of_time():
    """Gravity ramped in time on a free rod, ``g(t) = -g0 t / T``: the momentum is
    ``p_3 = -m g0 t^2 / (2 T)`` exactly (the midpoint evaluation integrates the linear
    force exactly), the centre of mass is the trapezoidal sum of that velocity,
    ``-g0 t^3 / (6 T) - g0 h^2 t / (12 T)`` (the rule's error for a quadratic is exact),
    both but for the Newton tolerance and round-off; a callable that does not give a
    3-vector is refused in one line before any form is compiled."""
    g0, T, h, n_elements = 9.81, 0.2, 0.01, 4
    rod = Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), n_elements)
    model = RodModel(rod, [Gravity(lambda t: (0.0, 0.0, -g0 * t / T))])
    settings = SolverSettings(atol=1e-12, rtol=1e-14)
    sim = Simulation(Integrator(model, h, settings))
    sim.run(T)
    t = sim.column("t")
    k = np.arange(len(t))
    m, nodes = SEC.rhoA * L, 2 * n_elements + 1
    dp = newton_bound(settings, np.sqrt(nodes), k) + roundoff(m * g0 * t[-1], k)
    assert np.all(np.abs(sim.column("p_3") + m * g0 * t**2 / (2 * T)) <= dp)
    z = -g0 * t**3 / (6 * T) - g0 * h**2 * t / (12 * T)
    dz = h * k * dp / m + roundoff(L, k)
    assert np.all(np.abs(sim.column("com_3") - z) <= dz)
    with pytest.raises(ParameterError, match="^invalid g"):
        Gravity(lambda t: (0.0, -9.81))
