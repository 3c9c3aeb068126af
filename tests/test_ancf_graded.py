"""Graded cantilevers: ANCF vs linear Euler-Bernoulli theory.

The references are computed here, independently of fxrod: the tip deflection under the
weight q = rhoA g from the closed-form integral

    delta = (q L^4 / (2 E0 I)) int_0^1 (1 - xi)^3 / (1 - lam xi^n) dxi

(unit-load method with M = q (L - x)^2 / 2 and EI = E0 I (1 - lam xi^n)) by adaptive
quadrature (scipy.integrate.quad), and the first frequency by shooting on
(EI w'')'' = omega^2 rhoA w (clamped at x = 0, M = V = 0 at x = L) with an adaptive
Runge-Kutta integrator and a bracketing root finder. fxrod's own linear method
(fxrod.ancf.linear_beam: nested Gauss quadrature, Legendre-Ritz) is checked against them.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

import fxrod  # noqa: F401  (dolfinx_solver first)
from fxrod.ancf import ANCFBeam, BeamProperties, blog_beam, eigenfrequencies, solve_static
from fxrod.ancf import linear_beam as lb
from fxrod.ancf.material import graded_modulus
from tests.claims import assert_printed

CASES = [(0.0, 1.0), (0.3, 1.0), (0.3, 2.0), (0.6, 1.0), (0.6, 2.0)]
#: The blog's beam (theory §A5 R5): E0 [Pa], rho [kg/m^3], square side [m], L [m], g [m/s^2].
E0, RHO, SIDE, LENGTH, GRAV = 2.07e11, 7850.0, 0.02, 1.0, 9.81
I_SEC, A_SEC = SIDE**4 / 12, SIDE**2


@cache
def delta_quad(lam: float, n: float, g: float = GRAV) -> float:
    """Linear tip deflection [m] under the weight, by quadrature of the closed-form integral."""
    val, err = quad(lambda xi: (1 - xi) ** 3 / (1 - lam * xi**n), 0.0, 1.0,
                    epsabs=0.0, epsrel=1e-13)
    assert err <= 1e-13 * val
    return RHO * A_SEC * g * LENGTH**4 / (2 * E0 * I_SEC) * val


@cache
def omega_shooting(lam: float, n: float) -> float:
    """First bending frequency [rad/s] of the clamped-free graded beam by shooting."""
    def EI(x):
        return E0 * I_SEC * (1 - lam * (x / LENGTH) ** n)

    def free_end(w):
        def rhs(x, y):                      # y = (w, w', M = EI w'', V = M')
            return [y[1], y[2] / EI(x), y[3], w**2 * RHO * A_SEC * y[0]]

        ends = [solve_ivp(rhs, (0.0, LENGTH), y0, method="DOP853", rtol=1e-13,
                          atol=1e-16).y[2:, -1] for y0 in ([0, 0, 1, 0], [0, 0, 0, 1])]
        return np.linalg.det(np.array(ends).T)

    return brentq(free_end, 80.0, 120.0, xtol=1e-12)


def test_graded_modulus_profile() -> None:
    E = graded_modulus(2.07e11, 0.6, 2.0, 1.0)
    np.testing.assert_allclose(E(np.array([0.0, 0.5, 1.0])),
                               2.07e11 * np.array([1.0, 1 - 0.6 * 0.25, 0.4]), rtol=1e-15)


def test_references_uniform_closed_forms() -> None:
    """The quadrature and the shooting reproduce q L^4/8EI and (beta_1 L)^2 sqrt(EI/rhoA)."""
    EI, rhoA = E0 * I_SEC, RHO * A_SEC
    assert delta_quad(0.0, 1.0) == pytest.approx(rhoA * GRAV / (8 * EI), rel=1e-13)
    assert omega_shooting(0.0, 1.0) == pytest.approx(
        1.8751040687119611**2 * np.sqrt(EI / rhoA), rel=1e-10)


@pytest.mark.parametrize("lam, n", CASES)
def test_linear_method_matches_references(lam: float, n: float) -> None:
    """fxrod.ancf.linear_beam (nested Gauss, Legendre-Ritz) = quadrature / shooting:
    measured 4e-16 (tip) and 4e-11 (omega_1) relative."""
    props = blog_beam(lam, n)
    assert lb.tip_deflection(props) == pytest.approx(delta_quad(lam, n), rel=1e-12)
    assert lb.frequencies(props, 1)[0] == pytest.approx(omega_shooting(lam, n), rel=1e-9)


def test_linear_method_uniform_closed_forms() -> None:
    """The linear method itself: q L^4/8EI + P L^3/3EI and (beta_k L)^2 sqrt(EI/rhoA)."""
    p = blog_beam()
    EI, rhoA = 2.07e11 * 0.02**4 / 12, 7850 * 4e-4
    assert lb.tip_deflection(p, tip_load=5.0) == pytest.approx(
        rhoA * 9.81 / (8 * EI) + 5.0 / (3 * EI), rel=1e-13)
    w = lb.frequencies(p, 3)
    beta = np.array([1.8751040687119611, 4.6940911329741745, 7.8547574382376126])
    np.testing.assert_allclose(w, beta**2 * np.sqrt(EI / rhoA), rtol=1e-9)


@pytest.mark.parametrize("lam, n", CASES)
def test_graded_case_matches_linear_theory(lam: float, n: float) -> None:
    """Five-case matrix: ANCF (40 el.) vs linear theory (quadrature, shooting), with the gaps
    explained; the README's table holds these values to its printed digits.

    * omega_1: the linearized ANCF at the straight state is a cubic-Hermite FE model of the
      same linear beam; the gap is discretization, measured <= 3.1e-9 (h^4 convergence).
    * static tip: at full gravity the nonlinear ANCF sits 0.8-2.2e-6 *below* linear theory
      (geometric stiffening of a dead load, ~(delta/L)^2). At 1 % of gravity that effect drops
      by 1e4 and the gap is discretization only, measured <= 3.6e-9.
    """
    props = blog_beam(lam, n)
    lin_tip, lin_w = delta_quad(lam, n), omega_shooting(lam, n)

    beam = ANCFBeam(props, 40, gravity=(0.0, -9.81))
    w = eigenfrequencies(beam, 1)[0]
    assert w == pytest.approx(lin_w, rel=1e-8)
    tip = -solve_static(beam, n_steps=1).tip_displacement[1]
    gap = tip / lin_tip - 1.0
    assert -3e-6 < gap < 0.0

    small = ANCFBeam(props, 40, gravity=(0.0, -0.0981))
    tip_small = -solve_static(small, n_steps=1).tip_displacement[1]
    assert tip_small == pytest.approx(delta_quad(lam, n, g=0.0981), rel=1e-8)

    claim = {(0.0, 1.0): "graded-0", (0.3, 1.0): "graded-0.3-1", (0.3, 2.0): "graded-0.3-2",
             (0.6, 1.0): "graded-0.6-1", (0.6, 2.0): "graded-0.6-2"}[(lam, n)]
    assert_printed(claim, [tip, lin_tip, w, lin_w])


def test_graded_softening_is_modest() -> None:
    """Softening at the free end, where M ~ (L-x)^2 vanishes, changes little (theory §A6).

    The blog claims +31 % (lam=0.3, n=1) and x2.3 (lam=0.6, n=1); linear theory gives +6.7 %
    and +15.3 %, and so does the nonlinear ANCF beam (40 elements) to 1e-5."""
    base = delta_quad(0.0, 1.0)
    assert_printed("graded-softening", [delta_quad(lam, 1.0) / base - 1 for lam in (0.3, 0.6)])
    for lam in (0.3, 0.6):
        tips = [-solve_static(ANCFBeam(blog_beam(la, 1.0), 40, gravity=(0.0, -9.81)),
                              n_steps=1).tip_displacement[1] for la in (0.0, lam)]
        assert tips[1] / tips[0] - 1 == pytest.approx(delta_quad(lam, 1.0) / base - 1,
                                                      abs=1e-5)


def test_general_graded_callables() -> None:
    """Tapered height, graded density and modulus as callables; tip load plus gravity.

    E ~ 1 - 0.4 (x/L)^1.5 is not smooth at the root, so the ANCF gap to the linear method
    converges a bit slower than h^4: measured 1.3e-6 (16 el.), 1.0e-7 (32 el.) and
    1.5e-8 (64 el.) against a linear value converged to ~1e-11 (64 vs 256 panels).
    """
    L = 0.8
    props = BeamProperties(L=L, E=graded_modulus(7e10, 0.4, 1.5, L),
                           rho=lambda x: 2700.0 * (1.0 + 0.5 * x / L), b=0.03,
                           h=lambda x: 0.025 * (1.0 - 0.4 * x / L))
    P = 0.5  # [N] downward
    lin = lb.tip_deflection(props, g=0.0981, tip_load=P)
    gaps, k_err = {}, {}
    for n_elements in (16, 32):
        beam = ANCFBeam(props, n_elements, gravity=(0.0, -0.0981), tip_force=(0.0, -P))
        res = solve_static(beam, n_steps=1)
        gaps[n_elements] = abs(-res.tip_displacement[1] / lin - 1.0)
        x, K = beam.curvature(res.q, per_element=4)
        K_lin = -lb.curvature(props, x, g=0.0981, tip_load=P)
        k_err[n_elements] = np.max(np.abs(K - K_lin)) / np.max(np.abs(K_lin))
    assert gaps[32] < 2e-7
    assert gaps[16] / gaps[32] > 8.0
    # pointwise curvature = second derivative of a cubic: O(h^2), measured 2.8e-3 at 32 el.
    assert k_err[32] < 4e-3
    assert k_err[16] / k_err[32] > 3.5
    # discretization of omega_k grows like (k h)^4: measured 3.2e-8 (mode 1), 4.3e-7 (mode 2)
    w, w_lin = eigenfrequencies(beam, 2), lb.frequencies(props, 2)
    assert abs(w[0] / w_lin[0] - 1.0) < 1e-7
    assert abs(w[1] / w_lin[1] - 1.0) < 1e-6
