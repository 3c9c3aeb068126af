"""State feedback designed on the linear port-Hamiltonian model (fxrod.analysis.lqr) and run on the
nonlinear rod through the actuation port; the tip-control demo.

The plant: a soft cantilever along e1 (L = 0.2 m, r = 10 mm, E = 10 MPa, rho = 1100
kg/m^3, 6 elements), clamped at s = 0 with d1 = e3, two tendons at +-8 mm along d1 over the
whole length, each at the bias tension T* = 2 N (an antagonistic pair: the equilibrium is
the straight rod shortened by 2 T*/EA, found by one quasi-static step). The LQR gain is
designed on the modal PH model about that equilibrium (8 modes, the 4 the tendons move).

Tests and their references:

* ``test_lqr_decay_rate_matches_linear_closed_loop``: the decay rate of the slowest
  closed-loop mode in the nonlinear run, measured on its left eigenvector, against the
  linear prediction: the eigenvalue of the sampled closed loop (implicit midpoint rule with
  the zero-order hold), within 2 %; the continuous eigenvalue, which ignores the hold's
  half-step delay, is off by more. The energy balance with the controller's port work
  closes every step to the Newton bound plus round-off (tests/roundoff.py).
* ``test_sampled_design_is_optimal``: the gain designed with the step (discrete Riccati
  equation of the sampled plant) against the definition of optimality: its cost over a
  long horizon, summed by the simulation of the sampled loop, equals ``x0^T P x0`` and is
  below the cost of the continuous gain and of perturbed gains.
* ``test_tip_control_demo_quick``: demos/tip_control.py --quick: the tip error to the
  target shrinks, and the ledger closes with the controller's work to the Newton bound.
"""

from __future__ import annotations

import csv
import runpy
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla

from fxrod.analysis import lqr
from fxrod.core.forms.actuation import Actuation, Tendon
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.conftest import assert_units_files
from tests.roundoff import effort_norm, newton_bound, roundoff

L, RADIUS, OFFSET, T_BIAS = 0.2, 0.01, 0.008, 2.0
SEC = Section.circular(radius=RADIUS, E=1e7, rho=1100.0, nu=0.45)
#: Newton stops on the residual norm only (|F|_2 <= atol), what newton_bound assumes.
SETTINGS = SolverSettings(atol=1e-12, stol=0.0)
H = 4e-3               # step [s]
N_STEPS = 75
ROOT = Path(__file__).resolve().parents[1]


def cantilever(quasistatic: bool) -> RodModel:
    """The plant with both tendons at the bias tension."""
    rod = Rod(SEC, start=(0.0, 0.0, 0.0), end=(L, 0.0, 0.0), d1=(0.0, 0.0, 1.0),
              n_elements=6)
    act = Actuation([Tendon((OFFSET, 0.0), T_BIAS, name="top"),
                     Tendon((-OFFSET, 0.0), T_BIAS, name="bottom")])
    return RodModel(rod, supports=[Clamp("0")], extensions=[act], quasistatic=quasistatic)


@pytest.fixture(scope="module")
def plant():
    """The dynamic model at the biased equilibrium, its plant and the energy weight."""
    static = cantilever(True)
    Integrator(static, 1.0, SETTINGS).advance_to(1.0)
    model = cantilever(False)
    model.w0.x.array[:] = static.w0.x.array
    model.w.x.array[:] = static.w0.x.array
    model.ledger.invalidate()
    p = lqr.actuated_plant(model, 8)
    W = (p.ph.Q.T @ p.ph.E).toarray()          # x^T W x = 2 H
    return model, p, W


def test_lqr_decay_rate_matches_linear_closed_loop(plant):
    """The rod starts at the equilibrium with a small bending velocity (tip 5 mm/s, a
    deflection of ~0.1 mm) and the loop ``u = u* - K x(y)``, K the continuous LQR gain
    (W = the energy weight, R = 1e-3 J/(N^2 s)), acts through the zero-order hold for
    75 steps of 4 ms. The slowest closed-loop mode's coordinate ``z_n = w^H x_n`` (w its
    left eigenvector of the sampled loop, x_n from the rod's arrays) decays in the linear
    sampled loop exactly as ``mu^n``; the nonlinear run's rate ``ln(|z_N|/|z_0|)/(N h)``
    must equal ``ln|mu|/h`` within 2 % (measured: 1e-8 relative, the nonlinearity at this
    amplitude is of second order). The hold acts half a step late: the continuous
    ``Re(lambda)`` is 2.5 % slower, outside the band. Each step's balance residual stays
    below atol |e|_2 plus round-off with the controller's port work booked (measured 0.15
    of the bound), and the loop takes energy out (port work -8.7e-8 J)."""
    model, p, W = plant
    A, B = p.A, p.B
    K = lqr.lqr_gain(A, B, W, 1e-3)
    lam = lqr.closed_loop_rates(A, B, K)[0]
    mu_rate = lqr.closed_loop_rates(A, B, K, H)[0]
    Ad, Bd = lqr.sampled(A, B, H)
    vals, left = sla.eig(Ad - Bd @ K, left=True, right=False)
    w = left[:, np.argmin(np.abs(np.log(vals.astype(complex)) / H - mu_rate))]
    v_tip = 5e-3
    model.set_velocity(lambda s: np.array([0 * s, 0 * s, v_tip * (s / L) ** 2]),
                       lambda s: np.array([0 * s, -2 * v_tip * s / L**2, 0 * s]))
    log = {"z": [], "eff": [], "w": [model.w0.x.array.copy()], "u": []}
    ctrl = lqr.StateFeedback(p, K)

    def record(t, y):
        if t > 0.0:
            log["eff"].append(effort_norm(model, log["w"][-1], H))
            log["w"].append(model.w0.x.array.copy())
        log["z"].append(w.conj() @ p.state(y))

    sim = Simulation(Integrator(model, H, SETTINGS), controller=ctrl, callbacks=[record])
    sim.run(N_STEPS * H)
    u = np.array([h[1] for h in sim.control.history])
    z = np.abs(np.array(log["z"]))
    rate = np.log(z[-1] / z[0]) / (N_STEPS * H)
    print(f"rate {rate:.5f} 1/s, sampled loop {mu_rate.real:.5f} (off by "
          f"{abs(rate / mu_rate.real - 1):.1e}), continuous {lam.real:.5f} (off by "
          f"{abs(lam.real / mu_rate.real - 1):.1e}); |u - u*| <= "
          f"{np.abs(u - p.u_eq).max():.3f} N, "
          f"|z_N/z_0| {z[-1] / z[0]:.2e}")
    assert np.abs(u - p.u_eq).max() < 0.5 * T_BIAS             # the tendons stay taut
    assert z[-1] / z[0] < 0.05                                  # a decay worth measuring
    assert abs(rate / mu_rate.real - 1) < 0.02
    assert abs(lam.real / mu_rate.real - 1) > 0.02              # the hold's delay counts
    res = sim.column("energy_residual")[1:]
    scale = np.maximum.reduce([np.abs(sim.column(c)) for c in ("H", "port_work",
                                                               "external_work")])[1:]
    bound = newton_bound(SETTINGS, np.array(log["eff"])) + roundoff(scale)
    print(f"max |residual| / bound {np.max(np.abs(res) / bound):.2e}, port work "
          f"{sim.column('port_work')[-1]:.2e} J, H_0 {sim.column('H')[0]:.2e} J")
    assert np.all(np.abs(res) <= bound)
    assert sim.column("port_work")[-1] < 0.0                    # the loop takes energy out


def test_sampled_design_is_optimal(plant):
    """The gain designed with the step h (discrete Riccati equation of the sampled plant)
    is the optimum of the cost ``J(K) = sum_n h (x_n^T W x_n + u_n^T R u_n)`` of the
    sampled loop ``x_{n+1} = (A_d - B_d K) x_n``, which is evaluated independently of the
    Riccati solver by the Lyapunov equation ``P_K = A_K^T P_K A_K + h (W + K^T R K)``,
    ``J = x0^T P_K x0``: (a) stationary: along a random direction D the cost grows as
    eps^2 (the remainder ``J(K + eps D) - J(K)``, D random relative perturbations of the
    entries, falls by 4 when eps halves, within 2 %; measured 3.988, 3.994) and is
    positive; (b) the continuous gain, held by the zero-order hold, costs more."""
    _, p, W = plant
    A, B, R = p.A, p.B, 1e-3
    Ad, Bd = lqr.sampled(A, B, H)
    x0 = np.random.default_rng(1).standard_normal(A.shape[0])

    def cost(K):
        Acl = Ad - Bd @ K
        assert np.max(np.abs(np.linalg.eigvals(Acl))) < 1.0
        P = sla.solve_discrete_lyapunov(Acl.T, H * (W + R * K.T @ K))
        return float(x0 @ P @ x0)

    Kd = lqr.lqr_gain(A, B, W, R, h=H)
    J0 = cost(Kd)
    D = np.random.default_rng(2).standard_normal(Kd.shape) * np.abs(Kd)   # relative
    rem = np.array([cost(Kd + e * D) - J0 for e in (1e-2, 5e-3, 2.5e-3)])
    print(f"J {J0:.6e}, remainders {rem}, ratios {rem[:-1] / rem[1:]}")
    assert np.all(rem > 0.0)
    assert np.allclose(rem[:-1] / rem[1:], 4.0, rtol=0.02)
    assert cost(lqr.lqr_gain(A, B, W, R)) > J0


def test_tip_control_demo_quick(tmp_path, monkeypatch):
    """demos/tip_control.py --quick (4 elements, 30 steps of 10 ms), run in this process:
    tip_control.csv has the seven columns and a row per step; the tip starts 10 mm from
    the target and ends within a twentieth of that (measured 0.11 mm) against gravity,
    which the design does not know; no chamber output was clipped; every step's balance
    residual is below atol |e|_2 plus round-off (tests/roundoff.py), with the chambers'
    port work booked."""
    monkeypatch.setattr(sys, "argv", ["tip_control.py", "--quick", "--out", str(tmp_path)])
    g = runpy.run_path(str(ROOT / "demos" / "tip_control.py"), run_name="__main__")
    with open(tmp_path / "tip_control.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["t", "tip_1", "tip_2", "tip_3", "target_1", "target_2", "target_3"]
    assert_units_files(tmp_path, at_least=2)     # tip_control.csv, tip_control_run.csv
    data = np.array(rows[1:], dtype=float)
    assert data.shape == (31, 7)
    err = np.linalg.norm(data[:, 1:4] - data[:, 4:7], axis=1)
    print(f"tip error {err[0]:.3e} m -> {err[-1]:.3e} m")
    assert abs(err[0] - 0.01) < 1e-12
    assert err[-1] < 0.05 * err[0]
    assert g["controller"].clipped == 0
    sim = g["sim"]
    res = np.abs(sim.column("energy_residual")[1:])
    scale = np.maximum.reduce([np.abs(sim.column(c)) for c in ("H", "port_work",
                                                               "external_work")])[1:]
    bound = newton_bound(g["settings"], np.array(g["effort"].values)) + roundoff(scale)
    print(f"max |residual| / bound {np.max(res / bound):.2e}")
    assert np.all(res <= bound)
    assert abs(sim.column("port_work")[-1]) > 1e-3


def test_refusals_in_one_line(plant):
    """The spatial actuator formulation (its input matrix is not the material stress's)
    is refused before modal_ph compiles a form; a gain of the wrong shape is refused by
    StateFeedback; both in one line."""
    _, p, _ = plant
    act = Actuation([Tendon((OFFSET, 0.0), T_BIAS)], formulation="spatial")
    spatial = types.SimpleNamespace(extensions=[act])    # refused before it is needed
    with pytest.raises(ParameterError, match="'material' for an LQR design") as err:
        lqr.actuated_plant(spatial, 4)
    assert "\n" not in str(err.value)
    with pytest.raises(ParameterError, match=r"\(actuators, modal states\)") as err:
        lqr.StateFeedback(p, np.zeros((1, 3)))
    assert "\n" not in str(err.value)
