"""Supports (clamp, pin, hinge) and their reactions against closed forms and balance laws.

* Clamp with a tip load P: reaction force P, reaction moment P x_tip (lever arm of the
  deformed tip) -- exact statics of the whole rod.
* Dynamics: the clamp's reaction closes the discrete momentum balance
  p_{n+1} - p_n = h (R + F_{n+1/2}) to round-off.
* Hinge + pin (simply supported, shear-rigid rod, small uniform load q): midspan deflection
  5 q L^4 / (384 EI), reactions q L / 2 (an inextensible rod between two fixed points would
  leave its axial force undetermined: a singular, statically indeterminate system).
* A hinge resists bending about the other axes like a clamp (tip moment M: deflection
  M L^2 / (2 EI)) and lets the rod swing freely about its axis: a hinged rod under gravity
  is a planar pendulum whose energy ledger stays exact (fixed supports do no work).
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.loads import DistributedLoad, EndLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp, Hinge, Pin
from fxrod.errors import ConvergenceError, ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.claims import assert_claim

SEC = Section.circular(radius=0.01, E=2e11, rho=7850.0, nu=0.3)
L = 1.0


def _rod(n=8, **kw):
    return Rod(SEC, (0, 0, 0), (L, 0, 0), (0, 1, 0), n, **kw)


def test_clamp_reaction_statics():
    P = 1.0
    model = RodModel(_rod(), [EndLoad("L", force=(0.0, 0.0, -P))], [Clamp("0")],
                     quasistatic=True)
    sim = Simulation(Integrator(model, 1.0))
    sim.run(1.0)
    r = sim.rows[-1]
    x_tip = model.nodes.tip()[0]
    assert_claim("clamp-statics", [r["clamp_0_force_3"] / P - 1.0,
                                   r["clamp_0_moment_2"] / (-P * x_tip) - 1.0], 1e-12)
    for c in ("force_1", "force_2", "moment_1", "moment_3"):
        assert_claim("clamp-statics", r[f"clamp_0_{c}"] / P, 1e-12)


def test_clamp_reaction_closes_momentum_balance():
    h = 1e-3

    def f(t):
        return np.array([0.0, 0.0, -np.sin(40.0 * t)])

    model = RodModel(_rod(), [EndLoad("L", force=f)], [Clamp("0")])
    sim = Simulation(Integrator(model, h))
    sim.run(0.05)
    t = sim.column("t")
    dp = np.diff(sim.column("p_3"))
    load = np.array([f(tk - 0.5 * h)[2] for tk in t[1:]])
    gap = dp - h * (sim.column("clamp_0_force_3")[1:] + load)
    assert_claim("clamp-momentum", gap / np.max(np.abs(dp)), 7e-13)


def test_simply_supported_beam():
    q = 0.1
    model = RodModel(_rod(16, constraints=("shear_rigid",)),
                     [DistributedLoad(force=(0.0, 0.0, -q))],
                     [Hinge("0", axis="d1"), Pin("L")], quasistatic=True)
    sim = Simulation(Integrator(model, 1.0))
    sim.run(1.0)
    s, qn = model.nodes.gather_nodes()
    w_mid = qn[np.argmin(np.abs(s - 0.5 * L)), 2]
    assert w_mid == pytest.approx(-5.0 * q * L**4 / (384.0 * SEC.k_b1), rel=1e-6)
    r = sim.rows[-1]
    assert r["hinge_0_force_3"] == pytest.approx(0.5 * q * L, rel=1e-9)
    assert r["pin_L_force_3"] == pytest.approx(0.5 * q * L, rel=1e-9)


def test_hinge_resists_other_axes():
    """Hinge about d1 = e2 at s = 0, tip moment M about e3: the hinge holds like a clamp
    (tip deflection M L^2 / (2 EI) along e2); d1 stays e2 at the hinge."""
    M = 1e-2
    model = RodModel(_rod(8, constraints=("kirchhoff",)),
                     [EndLoad("L", moment=(0.0, 0.0, M))], [Hinge("0", axis="d1")],
                     quasistatic=True)
    Integrator(model, 1.0).advance_to(1.0)
    assert model.nodes.tip()[1] == pytest.approx(M * L**2 / (2.0 * SEC.k_b1), rel=1e-6)
    q0 = model.nodes.node_q(0.0)
    assert np.array_equal(q0[3:6], [0.0, 1.0, 0.0]) and np.array_equal(q0[0:3], [0, 0, 0])


def test_hinge_is_free_about_its_axis():
    """A moment about the hinge axis has no static equilibrium (a mechanism): the step
    fails with a clear ConvergenceError instead of a wrong answer."""
    model = RodModel(_rod(4), [EndLoad("L", moment=(0.0, 1e-3, 0.0))],
                     [Hinge("0", axis="d1")], quasistatic=True)
    with pytest.raises(ConvergenceError):
        Integrator(model, 1.0, SolverSettings(max_it=10)).advance_to(1.0)


@pytest.mark.parametrize("support", [Hinge("0", axis="d1"), Pin("0")])
def test_pendulum_energy_ledger(support):
    """A rod hinged (or pinned) at s = 0 swings under gravity in the e1-e3 plane: the
    ledger balance holds at solver tolerance, the support point stays fixed."""
    model = RodModel(_rod(6), [Gravity((0.0, 0.0, -9.81))], [support])
    sim = Simulation(Integrator(model, 0.01, SolverSettings(atol=1e-12, jacobian_lag=1)))
    sim.run(0.5)
    W = sim.column("external_work")
    assert W[-1] > 0.1
    assert np.max(np.abs(sim.column("energy_residual"))) <= 1e-12 * W[-1]
    assert np.max(np.abs(sim.column("tip_2"))) <= 1e-14
    assert np.array_equal(model.nodes.node_q(0.0)[0:3], [0.0, 0.0, 0.0])
    assert sim.column("tip_3")[-1] < -0.3


def test_bad_supports():
    with pytest.raises(ParameterError, match="axis"):
        Hinge("0", axis="x")
    with pytest.raises(ParameterError, match="end"):
        Pin("middle")
    with pytest.raises(ParameterError, match="supports"):
        RodModel(_rod(2), [], [Clamp("0"), Pin("0")])


def test_internal_forces_at_snapshots(tmp_path):
    """Cantilever with tip load P: shear force n_3 = -P along the rod, bending moment
    m_2(s) = P (x_tip - x(s)); the root moment balances the clamp's reaction moment."""
    P = 1.0
    model = RodModel(_rod(4), [EndLoad("L", force=(0.0, 0.0, -P))], [Clamp("0")],
                     quasistatic=True)
    sim = Simulation(Integrator(model, 0.5), tmp_path, "c", snapshot_times=[1.0])
    sim.run(1.0)
    sim.close()
    from fxrod.output.tables import read_csv

    d = read_csv(tmp_path / "c_internal_forces.csv")
    assert np.all(d["t"] == 1.0) and d["s"].size == 8
    # DG1 material components rotated with the nodal directors: a discretisation error
    # (measured 1.8e-9 relative on 4 elements), not round-off
    np.testing.assert_allclose(d["n_3"], -P, rtol=5e-9)
    x_tip = model.nodes.tip()[0]
    s, qn = model.nodes.gather_nodes()
    x = np.interp(d["s"], s, qn[:, 0])
    np.testing.assert_allclose(d["m_2"], P * (x_tip - x), atol=1e-9 * P)
    # the same discretisation error (measured 5.1e-10 relative)
    assert d["m_2"][0] == pytest.approx(-sim.rows[-1]["clamp_0_moment_2"], rel=1.5e-9)


def test_elastic_support_statics():
    """A Kirchhoff cantilever on translational and rotational springs at s = 0 (free of
    any other support), tip load P: tip deflection P/k_t + P L^2/k_r + P L^3/(3 EI)."""
    from fxrod.core.forms.springs import ElasticSupport

    P, kt, kr = 1e-2, 1e5, 1e3
    model = RodModel(_rod(8, constraints=("kirchhoff",)), [EndLoad("L", force=(0, 0, -P))],
                     extensions=[ElasticSupport("0", kt, kr)], quasistatic=True)
    Integrator(model, 1.0).advance_to(1.0)
    w = P / kt + P * L**2 / kr + P * L**3 / (3.0 * SEC.k_b1)
    assert model.nodes.tip()[2] == pytest.approx(-w, rel=1e-6)


def test_elastic_support_ledger_and_prescribed_base_motion():
    """Dynamics: a rod on an elastic support swinging, and a rod whose clamped base is
    rotated by a prescribed motion; the ledger balance H_{n+1} - H_n = W_ext + W_support
    holds at solver tolerance (spring energy in H, the base's work in support_work)."""
    from fxrod.core.forms.springs import ElasticSupport

    settings = SolverSettings(atol=1e-12, jacobian_lag=1)
    model = RodModel(_rod(6), [Gravity((0.0, 0.0, -9.81))],
                     extensions=[ElasticSupport("0", 1e4, 10.0)])
    sim = Simulation(Integrator(model, 0.005, settings))
    sim.run(0.2)
    W = sim.column("external_work")[-1]
    assert np.max(np.abs(sim.column("energy_residual"))) <= 1e-11 * W

    rod = _rod(6)
    R0 = rod.frame

    def base(t):
        a = 0.5 * (1.0 - np.cos(np.pi * min(t, 0.1) / 0.1))
        c, s = np.cos(a), np.sin(a)
        return np.zeros(3), np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ R0

    model = RodModel(rod, [], [Clamp("0", motion=base)])
    sim = Simulation(Integrator(model, 0.005, settings))
    sim.run(0.2)
    Ws = sim.column("support_work")
    assert Ws[-1] > 1e-3
    assert_claim("base-rotation-work", sim.column("H")[-1] / Ws[-1] - 1.0, 1e-10)
    assert np.max(np.abs(sim.column("energy_residual"))) <= 1e-11 * Ws[-1]
    with pytest.raises(ParameterError, match="reference pose"):
        RodModel(_rod(2), [], [Clamp("0", motion=lambda t: (np.ones(3), np.eye(3)))])


def test_internal_forces_in_paraview(tmp_path):
    """The ParaView frames carry the spatial internal force n and moment m along the rod."""
    from fxrod.output.paraview import read_pvd

    P = 1.0
    model = RodModel(_rod(4), [EndLoad("L", force=(0.0, 0.0, -P))], [Clamp("0")],
                     quasistatic=True)
    with Simulation(Integrator(model, 1.0), tmp_path, "c", paraview_every=1) as sim:
        sim.run(1.0)
    t, n = read_pvd(tmp_path / "c.pvd", field="n")[-1]
    m = read_pvd(tmp_path / "c.pvd", field="m")[-1][1]
    assert t == 1.0 and n.shape == m.shape and n.shape[1] == 3
    np.testing.assert_allclose(n[:, 2], -P, rtol=5e-9)
    assert m[0, 1] == pytest.approx(P * model.nodes.tip()[0], rel=1.5e-9)
