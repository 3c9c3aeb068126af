"""The ANCF fast path (fxrod.ancf.banded: FFCx kernels from C, banded LU, Newton in C) against
the general path (PETSc SNES, DOLFINx's assembly, MUMPS): same Newton iterates to 1e-12 m."""

from __future__ import annotations

import numpy as np
import pytest

import fxrod  # noqa: F401  (dolfinx_solver first)
from fxrod.ancf import (
    ANCFBeam,
    BeamProperties,
    CentralDifference,
    EnergyConsistentStepper,
    blog_beam,
    critical_time_step,
    default_settings,
    solve_static,
)
from fxrod.ancf import banded as ancf_fast
from fxrod.ancf.benchmarks import r1_beam

G = (0.0, -9.81)
TOL = 1e-12  # [m]: dofs are positions and l_e-scaled slopes, O(1 m)


def _half_circle(strain: str) -> ANCFBeam:
    """R4: steel cantilever bent into a half circle by the tip moment pi EI / L."""
    props = BeamProperties(L=2.0, E=2.07e11, rho=7800.0, b=0.1, h=0.1)
    EI = 2.07e11 * 0.1**4 / 12.0
    return ANCFBeam(props, 8, strain=strain, left="clamped_axial_free",
                    tip_moment=np.pi * EI / 2.0)


@pytest.mark.parametrize("make", [lambda s: r1_beam(8, s), _half_circle],
                         ids=["r1_tip_force", "r4_half_circle"])
@pytest.mark.parametrize("strain", ["gerstmayr", "green"])
def test_static_fast_equals_general(make, strain: str) -> None:
    """Load-stepped static Newton: same increments and iterations, same q to 1e-12 m."""
    out = {}
    for fast in (True, False):
        beam = make(strain)
        out[fast] = solve_static(beam, n_steps=4,
                                 settings=default_settings(beam, max_it=30,
                                                           fast_assembly=fast))
    f, g = out[True], out[False]
    assert (f.load_steps, f.newton_its) == (g.load_steps, g.newton_its)
    assert g.newton_its > 4 * 2  # a nonlinear solve, not one step per increment
    assert np.max(np.abs(f.q - g.q)) < TOL


def _release(n_e: int, steps: int, fast: bool, props: BeamProperties | None = None,
             strain: str = "gerstmayr", h: float = 1e-3):
    beam = ANCFBeam(props or blog_beam(), n_e, gravity=G, strain=strain)
    st = EnergyConsistentStepper(beam, h, settings=default_settings(beam, fast_assembly=fast))
    assert (st._newton.fast is not None) == fast
    its, qs = [], []
    for _ in range(steps):
        its.append(st.step())
        qs.append(beam.state())
    return np.array(its), np.array(qs), beam


def test_release_energy_consistent_fast_equals_general() -> None:
    """The blog cantilever released under gravity (40 elements, 100 steps of 1 ms): the same
    Newton iterations every step, q equal to 1e-12 m at every step."""
    its_f, q_f, _ = _release(40, 100, True)
    its_g, q_g, _ = _release(40, 100, False)
    assert np.array_equal(its_f, its_g)
    assert np.max(np.abs(q_f - q_g)) < TOL


@pytest.mark.parametrize("strain", ["gerstmayr", "green"])
def test_large_deformation_fast_equals_general(strain: str) -> None:
    """A soft cantilever falling ~0.5 m (several Newton iterations per step)."""
    props = BeamProperties(L=1.0, E=1e7, rho=1000.0, b=0.02, h=0.02)
    its_f, q_f, beam = _release(12, 60, True, props, strain, 4e-3)
    its_g, q_g, _ = _release(12, 60, False, props, strain, 4e-3)
    assert np.array_equal(its_f, its_g) and its_f.max() >= 3
    assert beam.tip(q_f[-1])[1] < -0.3  # [m]
    assert np.max(np.abs(q_f - q_g)) < TOL


def test_central_difference_fast_equals_general() -> None:
    """Explicit release at 0.95 h_cr over 2000 steps: same q to 1e-12 m."""
    q = {}
    h_cr = critical_time_step(ANCFBeam(blog_beam(), 10, gravity=G))
    for fast in (True, False):
        beam = ANCFBeam(blog_beam(), 10, gravity=G)
        cd = CentralDifference(beam, 0.95 * h_cr, h_critical=h_cr, fast_assembly=fast)
        assert (cd.fast is not None) == fast
        for n in range(2000):
            cd.step(None, n)
        q[fast] = cd.q
    assert beam.tip(q[True])[1] < -3e-4  # the tip fell 0.42 mm in 2000 steps [m]
    assert np.max(np.abs(q[True] - q[False])) < TOL


def test_fallbacks(monkeypatch) -> None:
    """Settings the fast path does not reproduce, an iterate off the boundary values and a
    helper that cannot be built all solve by SNES."""
    beam = ANCFBeam(blog_beam(), 4, gravity=G)
    st = EnergyConsistentStepper(beam, 1e-3, settings=default_settings(beam, linesearch="bt"))
    assert st._newton.fast is None and st.step() >= 1

    beam = ANCFBeam(blog_beam(), 4, gravity=G)
    ref = ANCFBeam(blog_beam(), 4, gravity=G)
    q = beam.state()
    q[beam.fixed_dofs[0]] += 1e-3  # off the clamp: DOLFINx lifts it back
    for b, fast in ((beam, True), (ref, False)):
        b.set_state(q)
        res = solve_static(b, n_steps=1, settings=default_settings(b, fast_assembly=fast))
        assert res.newton_its >= 1
    assert np.max(np.abs(beam.state() - ref.state())) < TOL
    assert beam.state()[beam.fixed_dofs[0]] == beam.q_ref[beam.fixed_dofs[0]]

    def broken():
        raise RuntimeError("no C compiler")

    monkeypatch.setattr(ancf_fast, "_helper", broken)
    beam = ANCFBeam(blog_beam(), 4, gravity=G)
    with pytest.warns(RuntimeWarning, match="fast path unavailable"):
        st = EnergyConsistentStepper(beam, 1e-3)
    assert st._newton.fast is None and st.step() >= 1
    with pytest.warns(RuntimeWarning, match="fast path unavailable"):
        cd = CentralDifference(beam, 1e-7, h_critical=1e-6)
    assert cd.fast is None
