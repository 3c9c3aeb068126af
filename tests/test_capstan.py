"""The capstan (Euler-Eytelwein) with rigid-obstacle contact (demos/capstan.py).

* A rope (EI / (T_in R^2) ~ 1e-4) pulled over a rough drum slips with
  ``T_out / T_in = exp(mu theta)`` (theory B6.1) within 1 % for (mu, theta) = (0.3, pi) and
  (0.5, pi/2): the quick variant in the default tier, the full one in the slow tier.
* The regularised Coulomb law (theory C3.1): a rope sliding at ``|v_t| = v`` feels
  ``mu p v / sqrt(v^2 + eps^2)``, so pulled at ``v = eps`` it slips at
  ``exp(mu theta / sqrt 2)`` (what the earlier attempt, pulled at the regularisation
  velocity, measured as a "stall near 1.9").
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.problems.capstan import tension_ratio
from fxrod.studies.cases import CASES, demo
from tests.claims import assert_claim

case = demo("capstan")


def _errors(result) -> list[float]:
    """T_out/T_in against exp(mu theta), relative, for each pair."""
    return [result.summary[f"ratio_{i}"] / np.exp(mu * theta) - 1.0
            for i, (mu, theta) in enumerate(case.PAIRS)]


def test_capstan_quick_within_one_percent():
    """The issue asks 1 %; measured +0.055 % and -0.002 % (asserted 1.5e-3)."""
    assert_claim("capstan-quick", _errors(CASES["capstan"].run(None, quick=True)), 1.5e-3)


@pytest.mark.slow
def test_capstan_full_within_one_percent():
    """Measured +0.021 % and +0.022 % (asserted 6e-4)."""
    assert_claim("capstan-full", _errors(CASES["capstan"].run(None)), 6e-4)


def test_regularised_friction_at_the_regularisation_velocity():
    mu, theta = 0.3, np.pi
    prob = case.problem(mu, theta, h=0.1, t_end=1.0, v_reg=case.PULL)
    with case.simulation(prob, None, "regularised", True) as sim:
        sim.run(prob.t_end)
    # 2e-3: the step-to-step spread of the discrete capstan while sliding (nodes entering
    # and leaving the arc: T_out within +-0.2 % between steps, measured at both eps)
    assert tension_ratio(sim, case.T_IN) == pytest.approx(np.exp(mu * theta / np.sqrt(2)), rel=2e-3)
