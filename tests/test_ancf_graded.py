"""Graded cantilevers: ANCF vs the independent linear Euler-Bernoulli method (linear_beam)."""

from __future__ import annotations

import numpy as np
import pytest

import fxrod  # noqa: F401  (dolfinx_solver first)
from fxrod.ancf import ANCFBeam, BeamProperties, blog_beam, eigenfrequencies, solve_static
from fxrod.ancf import linear_beam as lb
from fxrod.ancf.material import graded_modulus

CASES = [(0.0, 1.0), (0.3, 1.0), (0.3, 2.0), (0.6, 1.0), (0.6, 2.0)]
#: (lam, n) -> (tip deflection [m], omega_1 [rad/s]) of the linear method (closing note table)
LINEAR = {
    (0.0, 1.0): (1.3950815e-3, 104.241456),
    (0.3, 1.0): (1.4884274e-3, 101.036909),
    (0.3, 2.0): (1.4249831e-3, 103.232293),
    (0.6, 1.0): (1.6085373e-3, 97.360409),
    (0.6, 2.0): (1.4600247e-3, 102.105258),
}


def test_graded_modulus_profile() -> None:
    E = graded_modulus(2.07e11, 0.6, 2.0, 1.0)
    np.testing.assert_allclose(E(np.array([0.0, 0.5, 1.0])),
                               2.07e11 * np.array([1.0, 1 - 0.6 * 0.25, 0.4]), rtol=1e-15)


def test_linear_method_uniform_closed_forms() -> None:
    """The independent method itself: q L^4/8EI + P L^3/3EI and (beta_k L)^2 sqrt(EI/rhoA)."""
    p = blog_beam()
    EI, rhoA = 2.07e11 * 0.02**4 / 12, 7850 * 4e-4
    assert lb.tip_deflection(p, tip_load=5.0) == pytest.approx(
        rhoA * 9.81 / (8 * EI) + 5.0 / (3 * EI), rel=1e-13)
    w = lb.frequencies(p, 3)
    beta = np.array([1.8751040687119611, 4.6940911329741745, 7.8547574382376126])
    np.testing.assert_allclose(w, beta**2 * np.sqrt(EI / rhoA), rtol=1e-9)


@pytest.mark.parametrize("lam, n", CASES)
def test_graded_case_matches_linear_theory(lam: float, n: float) -> None:
    """Five-case matrix: ANCF (40 el.) vs linear theory, with the gaps explained.

    * omega_1: the linearized ANCF at the straight state is a cubic-Hermite FE model of the
      same linear beam; the gap is discretization, measured <= 3.1e-9 (h^4 convergence).
    * static tip: at full gravity the nonlinear ANCF sits 0.8-2.2e-6 *below* linear theory
      (geometric stiffening of a dead load, ~(delta/L)^2). At 1 % of gravity that effect drops
      by 1e4 and the gap is discretization only, measured <= 3.6e-9.
    """
    props = blog_beam(lam, n)
    ref_tip, ref_w = LINEAR[(lam, n)]
    lin_tip, lin_w = lb.tip_deflection(props), lb.frequencies(props, 1)[0]
    assert lin_tip == pytest.approx(ref_tip, rel=1e-7)
    assert lin_w == pytest.approx(ref_w, rel=1e-8)

    beam = ANCFBeam(props, 40, gravity=(0.0, -9.81))
    assert eigenfrequencies(beam, 1)[0] == pytest.approx(lin_w, rel=1e-8)
    gap = -solve_static(beam, n_steps=1).tip_displacement[1] / lin_tip - 1.0
    assert -3e-6 < gap < 0.0

    small = ANCFBeam(props, 40, gravity=(0.0, -0.0981))
    tip_small = -solve_static(small, n_steps=1).tip_displacement[1]
    assert tip_small == pytest.approx(lb.tip_deflection(props, g=0.0981), rel=1e-8)


def test_graded_softening_is_modest() -> None:
    """Softening at the free end, where M ~ (L-x)^2 vanishes, changes little (theory §A6).

    The blog claims +31 % (lam=0.3, n=1) and x2.3 (lam=0.6, n=1); correct: +6.7 % and +15.3 %.
    """
    base = LINEAR[(0.0, 1.0)][0]
    assert LINEAR[(0.3, 1.0)][0] / base - 1 == pytest.approx(0.0669, abs=5e-4)
    assert LINEAR[(0.6, 1.0)][0] / base - 1 == pytest.approx(0.1530, abs=5e-4)


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
