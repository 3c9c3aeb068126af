"""The soft arm grasping a rough cylinder (demos/soft_arm_grasp.py): dynamics, contact
with friction, chamber actuation.

* The energy ledger closes every step: ``H_{n+1} - H_n - W_port + D`` (chamber work in,
  friction out) is at solver tolerance, 1e-10 of the chamber work.
* The arm touches the cylinder and the contact length grows as it wraps.
* Penetration: at least the mean line load over k (the penalty law: the deepest point
  carries at least the mean pressure ``F_n / l_c``) and below the case's stated bound
  ``p_max / k``.
* Independent reference: until it touches, the slowly ramped arm follows the exact static
  arc of constant strains (fxrod.problems.soft_arm.static_strains), so the contact begins when the
  ramp reaches the amplitude f* at which that arc reaches the cylinder. The dynamic arm
  lags the quasi-static one by a time that falls with the ramp's duration: measured
  +1.64 %, +0.53 %, +0.25 % for ramps of 1, 2, 4 s (h = 0.01, 0.01, 0.02 s); +1.24 % at
  1 s with h = 0.005 s.
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.problems.soft_arm import contact_onset, grasp_gap, grasp_onset_force
from fxrod.studies.cases import CASES, demo
from tests.claims import assert_claim, assert_printed

case = demo("soft_arm_grasp")


@pytest.fixture(scope="module")
def quick():
    return CASES["soft-arm-grasp"].run(None, quick=True)


def test_ledger_closes_every_step(quick):
    sim = quick.sim
    port = sim.column("port_work")
    assert port[-1] > 1.0                                  # the chambers did work [J]
    assert sim.column("dissipated")[-1] > 0.0              # friction dissipated
    assert_claim("grasp-ledger", sim.column("energy_residual") / port[-1], 1e-10)


def test_contact_length_grows_as_it_wraps(quick):
    sim = quick.sim
    t, length = sim.column("t"), sim.column("contact_contact_length")
    onset = quick.summary["onset_time"]
    assert np.all(length[t < onset] == 0.0)
    assert np.all(length[t > onset + 0.05] > 0.0)          # stays in contact
    # mean over consecutive windows of 0.1 s after the onset: increasing
    windows = [length[(t > a) & (t <= a + 0.1)].mean() for a in np.arange(0.3, 0.6, 0.1)]
    assert np.all(np.diff(windows) > 0.0)
    assert quick.summary["contact_length"] > 2 * windows[0]   # measured 2.5 x
    assert sim.column("contact_force_1")[-1] < 0.0         # the cylinder pushes back


def test_penetration_bounds(quick):
    sim, s = quick.sim, quick.summary
    length, fn = sim.column("contact_contact_length"), sim.column("contact_normal_force")
    gap = sim.column("contact_gap_min")
    k = sim.model.extensions[1].k
    touching = length > 0.0
    assert np.all(-gap[touching] >= fn[touching] / (k * length[touching]) * (1 - 1e-9))
    assert 0.0 < s["max_penetration"] < s["penetration_bound"]


def test_onset_against_the_static_arc(quick):
    s = quick.summary
    # exact arc: the amplitude at which it touches, against a direct check of its gap
    cyl = (case.CENTRE, case.AXIS, case.CYLINDER_RADIUS)
    f_star = grasp_onset_force(-150.0, *cyl)
    assert grasp_gap(0.999 * f_star, *cyl) > 0.0 > grasp_gap(1.001 * f_star, *cyl)
    assert_printed("grasp-onset", s["onset_time"])
    assert_printed("grasp-onset-exact", s["onset_time_exact"])
    assert_printed("grasp-lag", s["onset_time"] / s["onset_time_exact"] - 1.0)
    assert s["onset_time"] > s["onset_time_exact"]         # the dynamic arm lags


@pytest.mark.slow
def test_onset_converges_with_a_slower_ramp():
    errors = []
    for ramp, h in ((1.0, 0.01), (4.0, 0.02)):
        prob = case.problem(h=h, ramp=ramp, t_end=0.35 * ramp)
        with case.simulation(prob, None, ramp=ramp) as sim:
            sim.run(prob.t_end)
        errors.append(contact_onset(sim) / case.onset_time(-150.0, ramp) - 1.0)
    assert 0.0 < errors[1] < 5e-3
    assert errors[1] < errors[0] / 4


@pytest.mark.slow
def test_full_grasp_wraps_84_degrees():
    """The wrap angle: contact length over the cylinder's radius, measured 83.8 degrees."""
    result = CASES["soft-arm-grasp"].run(None)
    s = result.summary
    assert_printed("grasp-wrap", np.degrees(s["wrap_angle"]))
    assert s["max_penetration"] < s["penetration_bound"]
    assert s["max_relative_energy_residual"] < 1e-10
