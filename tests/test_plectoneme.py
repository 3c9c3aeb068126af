"""The plectoneme case (demos/plectoneme.py): the straight twisted rod's torque against
the closed form theta / (L/GJ + 1/k_r); in the slow tier the buckled rod with self-contact
(strands kept apart, torque plateau) and without it (strands passing through each other)."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.studies.cases import demo
from tests.claims import assert_claim

case = demo("plectoneme")


def run(**options):
    return case.CASE.run(None, pictures=False, **options)


def test_straight_branch_torque_slope():
    """Up to 3 turns (below the critical twist) the rod stays straight (no node pair comes
    closer than at t = 0) and the least-squares slope of the clamp torque against the twist,
    over 0.75..2.25 turns, is 1/(L/GJ + 1/k_r) (GJ and the rotational spring k_r in series)
    to 2e-3: the constant viscous torque tau GJ omega / L does not change the slope; the
    residual is the slowly damped torsional vibration of the start."""
    res = run(turns=3.0, h=0.01)
    s, sim = res.summary, res.sim
    assert_claim("plect-straight", s["slope"] / s["slope_ref"] - 1.0, 2e-3)
    d = sim.column("min_distance")
    assert np.min(d) >= d[0] - 1e-12           # straight: stretched by T, never closer
    assert np.max(np.abs(sim.column("contact_energy"))) == 0.0


@pytest.mark.slow
def test_plectoneme_with_and_without_self_contact():
    """Twisted to 5.5 turns, with and without RodContact (the same run until the strands
    first touch):

    * the peak torque lies above the infinite rod's helical-buckling torque 2 sqrt(B T)
      (Greenhill: a straight rod under tension T is stable below it, a finite clamped one
      longer) and the loop pulls the loaded end in (tip_3 < 0.5 L);
    * with contact the strands stay apart: the smallest centreline distance of the node
      pairs never drops below 2r (1 - 0.05) (the penalty's design tolerance; measured
      2.9 %), and after the snap the torque stays on a plateau: over the last half turn
      within 15 % of its mean (measured 5.3 %), at most 0.7 of the peak (measured 0.54);
    * without contact the strands pass through each other (distance below r; measured
      3.7 mm), the loop unwinds (the end back above 0.9 L; with contact it stays below
      0.5 L) and the torque has no plateau (spread above 15 %);
    * the energy balance closes to 1e-12 of the clamp's work at every step, through the
      impacts (measured 1.7e-14)."""
    runs = {c: run(no_contact=not c) for c in (True, False)}
    for contact, res in runs.items():
        sim, s = res.sim, res.summary
        assert s["torque_max"] > 2.0 * np.sqrt(case.B * case.TENSION)
        assert np.min(sim.column("tip_3")) < 0.5 * case.LENGTH
        work = np.max(np.abs(sim.column("support_work")))
        assert_claim("plect-balance", sim.column("energy_residual") / work, 1e-12)
        if contact:
            overlap = max(0.0, 1.0 - s["min_distance"] / (2 * case.RADIUS))
            assert_claim("plect-overlap", overlap, 0.05)
            assert_claim("plect-plateau", s["plateau_spread"], 0.15)
            assert s["plateau_torque"] <= 0.7 * s["torque_max"]
            assert np.max(sim.column("contact_energy")) > 0.0
            assert sim.column("tip_3")[-1] < 0.5 * case.LENGTH      # the plectoneme holds
        else:
            assert s["min_distance"] < case.RADIUS
            assert s["plateau_spread"] > 0.15
            assert sim.column("tip_3")[-1] > 0.9 * case.LENGTH      # the loop unwound
