"""ANCF statics under gravity, modes, stability limit and steppers (theory §A4, §A5 R5/R6/R8)."""

from __future__ import annotations

import numpy as np
import pytest

import fxrod  # noqa: F401  (dolfinx_solver first)
from fxrod.ancf import (
    ANCFBeam,
    BeamProperties,
    CentralDifference,
    EnergyConsistentStepper,
    InstabilityError,
    blog_beam,
    critical_time_step,
    default_settings,
    eigenfrequencies,
    max_eigenfrequency,
    relative_energy_error,
    solve_static,
)
from fxrod.ancf.benchmarks import r1_beam
from fxrod.errors import ConvergenceError, ParameterError
from tests.claims import assert_claim, assert_printed

G = (0.0, -9.81)


@pytest.fixture(scope="module")
def explicit_run():
    """10-element blog beam released under gravity, h = 0.95 h_cr, 0.3 s (§A5 R8 demo)."""
    beam = ANCFBeam(blog_beam(), 10, gravity=G)
    cd = CentralDifference(beam, safety=0.95)
    hist = cd.run(0.3, record_every=5)
    return beam, cd, hist


@pytest.mark.parametrize("strain", ["gerstmayr", "green"])
def test_r5_static_gravity_deflection(strain: str) -> None:
    """R5: tip deflection 1.3951e-3 m (rel 1e-4); nonlinear value slightly below linear."""
    beam = ANCFBeam(blog_beam(), 40, gravity=G, strain=strain)
    delta = -solve_static(beam, n_steps=1).tip_displacement[1]
    assert delta == pytest.approx(1.3951e-3, rel=1e-4)
    linear = 7850 * 4e-4 * 9.81 / (8 * 2.07e11 * 0.02**4 / 12)
    assert_printed("ancf-r5", delta)  # §A5: 40 elements, either option
    assert 0.0 < linear - delta  # dead load: geometric nonlinearity stiffens
    assert_claim("ancf-r5-gap", (linear - delta) / linear, 3e-6)


def test_r6_first_frequency() -> None:
    """R6: omega_1 = 104.24 rad/s (rel 1e-3); 40 elements give 104.2415 (§A5)."""
    beam = ANCFBeam(blog_beam(), 40, gravity=G)
    w = eigenfrequencies(beam, 2)
    assert w[0] == pytest.approx(104.24, rel=1e-3)
    exact = 1.8751040687119611**2 * np.sqrt(2.07e11 * 0.02**4 / 12 / (7850 * 4e-4))
    assert_printed("ancf-r6", w[0])
    assert_claim("ancf-r6-exact", w[0] / exact - 1.0, 1e-8)
    assert w[1] == pytest.approx(exact * (4.6940911329741745 / 1.8751040687119611) ** 2,
                                 rel=1e-6)


R8 = {10: 4.08e-6, 20: 2.04e-6, 40: 7.04e-7, 80: 1.76e-7}


@pytest.mark.parametrize("n_elements", sorted(R8))
def test_r8_critical_step_table(n_elements: int) -> None:
    """R8: SLEPc h_cr = 2/omega_max within 0.1 % of the §A5 table (3 digits; measured
    2.5e-4); omega_max within 0.1 % of the element constants of §A4 (measured 3.7e-4)."""
    beam = ANCFBeam(blog_beam(), n_elements)
    h_cr = critical_time_step(beam)
    assert_claim("ancf-r8", h_cr / R8[n_elements] - 1.0, 1e-3)
    le, c = 1.0 / n_elements, np.sqrt(2.07e11 / 7850)
    axial, bending = 9.55 * c / le, 59.9 * np.sqrt(2.07e11 * 0.02**2 / 12 / 7850) / le**2
    assert max_eigenfrequency(beam) == pytest.approx(max(axial, bending), rel=1e-3)


def test_slepc_extremes_match_dense_numpy() -> None:
    """SLEPc omega_max and omega_1 equal a dense numpy eigen-solve of (K_t, M) on free dofs."""
    beam = ANCFBeam(blog_beam(0.6, 2), 10)
    free = beam.free_dofs
    K = beam.jacobian(beam.q_ref).convert("dense").getDenseArray()[np.ix_(free, free)]
    M = beam.mass_matrix().convert("dense").getDenseArray()[np.ix_(free, free)]
    lam = np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real)
    assert max_eigenfrequency(beam) == pytest.approx(np.sqrt(lam[-1]), rel=1e-9)
    assert eigenfrequencies(beam, 1)[0] == pytest.approx(np.sqrt(lam[0]), rel=1e-9)


def test_explicit_at_095_stable_and_energy_consistent(explicit_run) -> None:
    """R8 demo: 0.95 h_cr, 0.3 s: bounded, energy error <= 1e-6, tip in [-2.83e-3, 4e-5]."""
    beam, cd, hist = explicit_run
    assert cd.h == pytest.approx(0.95 * cd.h_critical, rel=1e-14)
    assert cd.t == pytest.approx(0.3, abs=cd.h)
    assert relative_energy_error(hist) <= 1e-6
    y = hist.column("tip_2")
    assert y.min() == pytest.approx(-2.83e-3, abs=0.02e-3)
    assert y.max() == pytest.approx(4e-5, abs=1e-5)
    assert -y.mean() == pytest.approx(1.40e-3, abs=0.01e-3)
    # tip period = 2 pi / omega_1 (§A5 R6: 0.06027 s from the explicit run)
    t = hist.column("t")
    s = y - y.mean()
    up = np.nonzero((s[:-1] < 0) & (s[1:] >= 0))[0]
    t_up = t[up] - s[up] * (t[up + 1] - t[up]) / (s[up + 1] - s[up])
    period = np.mean(np.diff(t_up))
    assert period == pytest.approx(2 * np.pi / 104.2415, rel=1e-3)  # measured 3e-4


def test_explicit_above_limit_refused_or_blows_up(explicit_run) -> None:
    """R8: 1.05 h_cr is refused; forced, the run diverges within a few hundred steps."""
    _, cd, _ = explicit_run
    beam = ANCFBeam(blog_beam(), 10, gravity=G)
    h = 1.05 * cd.h_critical
    with pytest.raises(ParameterError, match="invalid h ="):
        CentralDifference(beam, h, h_critical=cd.h_critical)
    forced = CentralDifference(beam, h, h_critical=cd.h_critical, force=True)
    with pytest.raises(InstabilityError) as err:
        forced.run(0.3)
    assert err.value.h == pytest.approx(h)
    assert err.value.t < 300 * h


def test_energy_consistent_step_conserves_energy() -> None:
    """Discrete-gradient step: T + U - W conserved to ~1e-12 at h = 250 h_cr (blog beam)."""
    beam = ANCFBeam(blog_beam(), 10, gravity=G)
    st = EnergyConsistentStepper(beam, 1e-3)
    hist = st.run(0.3)
    assert relative_energy_error(hist) < 1e-10
    y = hist.column("tip_2")
    assert -y.mean() == pytest.approx(1.40e-3, abs=0.03e-3)
    assert y.min() == pytest.approx(-2.83e-3, abs=0.03e-3)


@pytest.mark.parametrize("strain", ["gerstmayr", "green"])
def test_energy_consistent_large_deformation(strain: str) -> None:
    """Soft cantilever falling ~0.9 m under gravity: energy conserved to 1e-10, both options."""
    props = BeamProperties(L=1.0, E=1e7, rho=1000.0, b=0.02, h=0.02)
    beam = ANCFBeam(props, 12, gravity=G, strain=strain)
    hist = EnergyConsistentStepper(beam, 4e-3).run(0.6)
    assert np.min(hist.column("tip_2")) < -0.8
    assert relative_energy_error(hist) < 1e-10


def test_implicit_and_explicit_agree() -> None:
    """Both steppers give the same tip history over the first period (tip at t = 0.03 s)."""
    a = ANCFBeam(blog_beam(0.6, 1), 10, gravity=G)
    hist_imp = EnergyConsistentStepper(a, 1e-4).run(0.03)
    b = ANCFBeam(blog_beam(0.6, 1), 10, gravity=G)
    h_cr = critical_time_step(b)
    h = 0.03 / np.ceil(0.03 / (0.9 * h_cr))  # lands on t = 0.03 s exactly
    cd = CentralDifference(b, h, h_critical=h_cr)
    cd.run(0.03)
    y_imp = hist_imp.column("tip_2")[-1]
    assert b.tip(cd.q)[1] == pytest.approx(y_imp, rel=5e-4)  # measured 1.3e-4


def test_newton_failures_raise_convergence_error() -> None:
    """A static or implicit step that cannot converge raises ConvergenceError(t, h, reason)."""
    r1 = r1_beam(4)
    with pytest.raises(ConvergenceError) as err:
        solve_static(r1, n_steps=1, max_halvings=0, settings=default_settings(r1, max_it=1))
    assert err.value.t == 0.0 and err.value.h == 1.0
    assert "DIVERGED_MAX_IT" in err.value.reason
    beam = ANCFBeam(blog_beam(), 4, gravity=G)
    st = EnergyConsistentStepper(beam, 1e-3, settings=default_settings(beam, max_it=1))
    with pytest.raises(ConvergenceError) as err:
        st.run(0.01)
    assert err.value.h == pytest.approx(1e-3)


@pytest.mark.slow
def test_explicit_bending_governed_mesh() -> None:
    """40 elements (bending governs h_cr = 7.04e-7 s): stable and energy-consistent at 0.95."""
    beam = ANCFBeam(blog_beam(), 40, gravity=G)
    cd = CentralDifference(beam, safety=0.95)
    assert cd.h_critical == pytest.approx(7.04e-7, rel=1e-3)
    hist = cd.run(0.1, record_every=20)
    assert relative_energy_error(hist) <= 1e-6
    assert np.min(hist.column("tip_2")) == pytest.approx(-2.83e-3, abs=0.03e-3)
    forced = CentralDifference(ANCFBeam(blog_beam(), 40, gravity=G),
                               1.05 * cd.h_critical, h_critical=cd.h_critical, force=True)
    with pytest.raises(InstabilityError):
        forced.run(0.01)
