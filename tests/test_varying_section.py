"""Sections varying along s: a tapered cantilever under its own weight against the
Euler-Bernoulli closed form (an independent quadrature of the double integral), and the
mass of a tapered rod in free fall.

Closed form (small load, shear-rigid and inextensible): ``w_tip = int_0^L M(x) (L - x) /
EI(x) dx`` with ``M(x) = int_x^L q(xi) (xi - x) dxi``, ``q = rho g pi r^2``,
``EI = E pi r^4 / 4`` for ``r(s) = r0 (1 - s / (2 L))``. The P2/DG1 element converges at
order 4 (measured relative tip errors 2.3e-5, 1.4e-6, 9.0e-8 for 8, 16, 32 elements).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad

from fxrod.core.forms.viscoelastic import GeneralizedMaxwell
from fxrod.core.loads import Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, VaryingSection
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.claims import assert_claim
from tests.roundoff import newton_bound, roundoff

L, R0, E, RHO = 1.0, 0.01, 2e11, 7850.0


def radius(s):
    return R0 * (1.0 - 0.5 * np.asarray(s) / L)


SEC = VaryingSection.circular(radius=radius, E=E, rho=RHO, nu=0.3)


def test_tapered_cantilever_under_gravity():
    g = 1e-3

    def q(x):
        return RHO * g * np.pi * radius(x) ** 2

    def M(x):
        return quad(lambda xi: q(xi) * (xi - x), x, L, epsabs=0.0, epsrel=1e-13)[0]

    w = quad(lambda x: M(x) * (L - x) / (E * np.pi * radius(x) ** 4 / 4.0), 0.0, L,
             epsabs=0.0, epsrel=1e-12)[0]
    err = []
    for n in (8, 32):
        rod = Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), n, constraints=("kirchhoff",))
        model = RodModel(rod, [Gravity((0.0, 0.0, -g))], [Clamp("0")], quasistatic=True)
        Integrator(model, 1.0).advance_to(1.0)
        err.append(abs(model.nodes.tip()[2] / (-w) - 1.0))
    assert_claim("vs-tapered", err[1], 2e-7)
    assert np.log(err[0] / err[1]) / np.log(4.0) >= 3.8


@pytest.mark.exactness
def test_tapered_rod_free_fall_momentum():
    """p_3 = -m g t with the mass m = rho pi r0^2 L 7/12 of the taper (exact quadrature),
    to the Newton tolerance (each step adds the sum of its z-momentum rows, < sqrt(nodes)
    atol) plus round-off (tests/roundoff.py)."""
    g, n_elements = 9.81, 4
    model = RodModel(Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), n_elements),
                     [Gravity((0.0, 0.0, -g))])
    settings = SolverSettings()
    sim = Simulation(Integrator(model, 0.01, settings))
    sim.run(0.1)
    m = RHO * np.pi * R0**2 * L * 7.0 / 12.0
    t = sim.column("t")
    k = np.arange(len(t))                       # steps taken
    bound = newton_bound(settings, np.sqrt(2 * n_elements + 1), k) + roundoff(m * g * t[-1], k)
    assert np.all(np.abs(sim.column("p_3") + m * g * t) <= bound)


def test_section_function_must_be_positive():
    bad = VaryingSection.circular(radius=lambda s: R0 * (1.0 - 2.0 * s), E=E, rho=RHO, nu=0.3)
    with pytest.raises(ParameterError, match=r"k_s1 at s = 0.5"):
        Rod(bad, (0, 0, 0), (L, 0, 0), (0, 1, 0), 4)
    with pytest.raises(ParameterError, match="uniform Section"):   # not yet viscoelastic
        RodModel(Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), 4),
                 extensions=[GeneralizedMaxwell.proportional()])


@pytest.mark.parametrize("lam,n", [(0.3, 1.0), (0.6, 2.0)])
def test_graded_cantilever_vs_closed_form_and_ancf(lam, n):
    """The Cosserat (Kirchhoff) cantilever with the graded modulus E(x) = E0 (1 - lam x^n)
    of the blog's steel beam (0.02 m square, L = 1 m) under its weight, against the
    closed-form deflection (q L^4/(2 E0 I)) int (1-xi)^3/(1 - lam xi^n) dxi at a small
    gravity (linear regime) and against the planar ANCF beam with the same E(x) and load
    (another formulation, 40 elements)."""
    from fxrod.ancf import ANCFBeam, blog_beam, solve_static

    E0, rho, a, g = 2.07e11, 7850.0, 0.02, 9.81e-3
    A, I = a * a, a**4 / 12

    def E(s):
        return E0 * (1.0 - lam * np.asarray(s) ** n)

    G = lambda s: E(s) / 2.6  # noqa: E731  (nu = 0.3)
    sec = VaryingSection(rhoA=rho * A, M11=rho * I, M22=rho * I,
                         k_s1=lambda s: 5 / 6 * G(s) * A, k_s2=lambda s: 5 / 6 * G(s) * A,
                         k_e=lambda s: E(s) * A, k_b1=lambda s: E(s) * I,
                         k_b2=lambda s: E(s) * I, k_t=lambda s: G(s) * 0.1406 * a**4)
    rod = Rod(sec, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 32, constraints=("kirchhoff",))
    model = RodModel(rod, [Gravity((0.0, 0.0, -g))], [Clamp("0")], quasistatic=True)
    Integrator(model, 1.0).advance_to(1.0)
    w = -model.nodes.tip()[2]
    integral = quad(lambda xi: (1 - xi) ** 3 / (1 - lam * xi**n), 0.0, 1.0, epsabs=0.0,
                    epsrel=1e-13)[0]
    exact = rho * A * g / (2 * E0 * I) * integral
    assert_claim("vs-graded-closed", w / exact - 1.0, 4.4e-8)    # measured 7.2e-9, 1.5e-8
    ancf = solve_static(ANCFBeam(blog_beam(lam, n), 40, gravity=(0.0, -g)), n_steps=1)
    assert_claim("vs-graded-ancf", w / -ancf.tip_displacement[1] - 1.0, 3e-8)  # 5e-9, 1.1e-8


def test_stepped_column_buckling():
    """A clamped-free Kirchhoff column whose bending stiffness steps from EI_1 on [0, a] to
    EI_2 = EI_1 / 4 on [a, L] (a = L / 2, on an element boundary): the first critical load
    against the stepped column's closed form ``tan(k_1 a) tan(k_2 (L - a)) = k_2 / k_1``,
    ``k_i = sqrt(P / EI_i)`` (deflection of each segment about the tip's; the uniform column
    gives pi^2 EI / (4 L^2)), to 1e-5 at n_e 32 (measured 1.9e-7; the uniform column 5.8e-7
    at n_e 16)."""
    from scipy.optimize import brentq

    from fxrod.analysis.modes import buckling
    from fxrod.core.loads import EndLoad

    E, G, a_side, L, P = 2.1e11, 8.1e10, 0.02, 1.0, 1000.0
    A, I = a_side**2, a_side**4 / 12

    def EI(s):
        return np.where(np.asarray(s) < 0.5 * L, E * I, E * I / 4.0)

    sec = VaryingSection(rhoA=7850.0 * A, M11=0.0, M22=0.0, k_s1=5 / 6 * G * A,
                         k_s2=5 / 6 * G * A, k_e=E * A, k_b1=EI, k_b2=EI,
                         k_t=G * 0.1406 * a_side**4)
    rod = Rod(sec, (0, 0, 0), (L, 0, 0), (0, 1, 0), 32, constraints=("kirchhoff",))
    model = RodModel(rod, [EndLoad("L", force=(-P, 0, 0))], [Clamp("0")], quasistatic=True)
    Integrator(model, 1.0).step()
    b = buckling(model, 2)

    def characteristic(p: float) -> float:
        k1, k2 = np.sqrt(p / (E * I)), np.sqrt(p / (E * I / 4.0))
        return np.tan(k1 * 0.5 * L) * np.tan(k2 * 0.5 * L) - k2 / k1

    uniform_weak = np.pi**2 * E * I / 4.0 / (4 * L**2)       # all of it EI_2
    uniform_stiff = np.pi**2 * E * I / (4 * L**2)            # all of it EI_1
    p_cr = brentq(characteristic, uniform_weak * 1.0001, uniform_stiff * 0.9999)
    assert np.all(np.abs(b.factor[:2] * P / p_cr - 1.0) <= 1e-5)
