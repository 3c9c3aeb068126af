"""Arc-length continuation and stability along quasi-static paths (fxrod.analysis.continuation).

References:

* Deep circular arch (215 deg, R = 100, clamped-hinged, apex point load): DaDeppo, D. A. &
  Schmidt, R. (1975), "Instability of clamped-hinged circular arches subjected to a point
  load", J. Appl. Mech. 42, 894-896: limit load ``P R^2/EI = 8.97`` of the inextensible
  elastica (also the reference of Simo & Vu-Quoc 1986, Part II, and Wriggers & Simo 1990).
  Measured limit loads (Kirchhoff rod, ``demos/deep_arch.py``): 8.810929 (n_e 16),
  8.963223 (32), 8.972475 (64), 8.973052 (128): successive differences 0.152, 0.00925,
  0.00058 (order 4), extrapolated 8.97309.
* Euler column, clamped-free, axial tip load: bifurcation at ``pi^2 EI/(4 L^2)``; the
  post-buckled elastica (Timoshenko & Gere, Theory of Elastic Stability, §2.7):
  ``P = EI K(k)^2/L^2``, tip deflection ``delta = 2 k L/K(k)``, tip height
  ``L (2 E(k)/K(k) - 1)``, ``K, E`` the complete elliptic integrals of modulus k. Measured
  at n_e 16: bifurcation 5.8e-7 relative above pi^2/4; post-buckling deflections within
  5e-6 L and heights within 5e-5 L of the elastica at the same load.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import ellipe, ellipk

from fxrod.analysis.continuation import ArcLengthSettings, Continuation
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.pointload import PointLoad
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ConvergenceError, ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo
from tests.claims import assert_claim, assert_printed

deep_arch = demo("deep_arch")

#: Column: EI = 1 about d1 (the weak axis), 2 about d2, L = 1 (inextensible, unshearable).
COLUMN = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1.0, k_s2=1.0, k_e=1.0, k_b1=1.0,
                 k_b2=2.0, k_t=1.0)


def _column(n_elements: int = 16, follower: bool = False) -> RodModel:
    rod = Rod(COLUMN, (0, 0, 0), (0, 0, 1.0), (1, 0, 0), n_elements,
              constraints=("kirchhoff",))
    load = EndLoad("L", force=lambda lam: (0.0, 0.0, -lam), follower=follower)
    return RodModel(rod, [load], [Clamp("0")], quasistatic=True)


def _arch_path(n_elements: int, max_steps: int = 60) -> Continuation:
    """The deep arch traced up to just past its first critical point."""
    cont = deep_arch.continuation(deep_arch.model(n_elements))
    cont.run(max_steps, stop=lambda p: bool(cont.critical))
    return cont


def test_deep_arch_limit_load():
    cont = _arch_path(64)
    (lim,) = cont.critical
    assert lim.event == "limit"
    assert_printed("arch-limit", lim.lam)                               # 8.972475
    assert_claim("arch-vs-published", lim.lam - deep_arch.PUBLISHED_LIMIT, 0.005)
    before = [p for p in cont.path if p.lam < lim.lam and p.s < lim.s]
    assert all(p.index == 0 for p in before) and lim.index == 1
    assert cont.path[-1].lam < lim.lam                   # past the top of the path


@pytest.mark.slow
def test_deep_arch_mesh_convergence():
    lims = np.array([_arch_path(n).critical[0].lam for n in (16, 32, 64, 128)])
    diff = np.abs(np.diff(lims))
    order = np.log2(diff[:-1] / diff[1:])
    assert np.all(order >= 3.5)                          # 4.04, 4.00
    extrapolated = lims[-1] + (lims[-1] - lims[-2]) / 15.0
    assert extrapolated == pytest.approx(deep_arch.PUBLISHED_LIMIT, abs=0.005)   # 8.97309


def test_load_control_stops_at_the_limit_arc_length_passes():
    """Load stepping with step cutting stalls below the limit load; the arc-length path
    passes it and goes on on the unstable branch with a falling load."""
    cont = deep_arch.continuation(deep_arch.model(16))
    cont.run(25)
    lam_c = cont.critical[0].lam                         # 8.810929 at n_e 16
    m = deep_arch.model(16)
    stepper = Integrator(m, 0.5, SolverSettings(adaptive=True, mumps_icntl={14: 200}))
    with pytest.raises(ConvergenceError):
        stepper.advance_to(10.0)
    assert lam_c - 0.01 <= stepper.t <= lam_c
    u2_load_control = m.nodes.node_q(0.5 * m.rod.length)[1] - deep_arch.RADIUS
    beyond = [p for p in cont.path if p.s > cont.critical[0].s]
    assert beyond and all(p.index == 1 for p in beyond)
    assert beyond[-1].displacements["apex"][1] < u2_load_control - 5.0
    assert beyond[-1].lam < lam_c - 0.5


def _elastica(P: float) -> tuple[float, float]:
    """Tip deflection and tip height [m] of the clamped-free elastica (EI = L = 1)."""
    m = brentq(lambda m: ellipk(m) ** 2 - P, 0.0, 1.0 - 1e-15)
    K, E = ellipk(m), ellipe(m)
    return 2.0 * math.sqrt(m) / K, 2.0 * E / K - 1.0


def test_euler_column_bifurcation_and_elastica():
    cont = Continuation(_column(16), ArcLengthSettings(ds=0.3, ds_max=0.3, psi=1.0,
                                                        switch_branch=True))
    cont.run(20)
    (bif,) = cont.critical
    p_cr = math.pi**2 / 4.0
    assert bif.event == "bifurcation"
    assert_claim("cont-euler", bif.lam / p_cr - 1.0, 1.5e-6)    # 5.8e-7
    trivial = [p for p in cont.path if p.s < bif.s]
    assert all(p.index == 0 for p in trivial) and bif.index == 1
    branch = [p for p in cont.path if p.s > bif.s]
    assert len(branch) >= 10 and all(p.index == 0 for p in branch)   # stable post-buckling
    assert max(p.lam for p in branch) > 1.6 * p_cr             # tip rotation ~ 110 deg
    for p in branch:
        delta, height = _elastica(p.lam)
        u = p.displacements["tip"]
        assert abs(u[0]) < 1e-12                                     # in the weak plane
        assert_claim("cont-elastica", abs(u[1]) - delta, 1.5e-5)              # 5e-6
        assert_claim("cont-elastica-height", 1.0 + u[2] - height, 1e-4)       # 5e-5


def test_branch_sign_picks_the_other_side():
    s = ArcLengthSettings(ds=0.3, ds_max=0.3, switch_branch=True)
    sides = []
    for sign in (1, -1):
        cont = Continuation(_column(8), dataclasses.replace(s, branch_sign=sign))
        cont.run(12)
        sides.append(cont.path[-1].displacements["tip"][1])
    assert sides[0] == pytest.approx(-sides[1], rel=1e-8) and abs(sides[0]) > 0.1


@pytest.mark.parametrize("bad", [
    {"ds": 0.0}, {"ds": 20.0}, {"ds_min": 1.0, "ds_max": 0.5}, {"psi": -1.0},
    {"target_its": 0}, {"max_it": 1}, {"ctol": 1.0}, {"critical_rtol": 0.5},
    {"branch_sign": 0}, {"director_weight": -1.0},
])
def test_bad_options(bad):
    with pytest.raises(ParameterError):
        ArcLengthSettings(**bad)


def test_bad_models():
    assert not Continuation(_column(4, follower=True)).symmetric     # LU, not refused
    rod = Rod(COLUMN, (0, 0, 0), (0, 0, 1.0), (1, 0, 0), 4)
    with pytest.raises(ParameterError, match="quasi-static"):
        Continuation(RodModel(rod, [], [Clamp("0")]))
    with pytest.raises(ParameterError, match="points"):
        Continuation(_column(4), points={"far": 2.0})
    with pytest.raises(ParameterError, match="vertex"):
        RodModel(rod, [PointLoad(0.3, force=(1.0, 0, 0))], [Clamp("0")], quasistatic=True)
    with pytest.raises(ParameterError, match="inside"):
        RodModel(rod, [PointLoad(1.0, force=(1.0, 0, 0))], [Clamp("0")], quasistatic=True)


def test_tendon_actuation_path_follows_the_closed_form():
    """Continuation of a tendon-actuated rod (the tendon hook, T = lambda T_max): the inputs
    are evaluated at lambda >= 0 only (a one-sided load derivative at the start, where the
    central one asked the actuator for lambda = -1e-4), and every point of the path is the
    closed-form hook at its tension within the load stepping's discretisation error
    (1.8e-5 L at T_max, n_e 16)."""
    from fxrod.problems.soft_arm import HOOK, tendon_hook_exact
    from fxrod.studies.cases import demo

    cont = Continuation(demo("tendon_hook").problem(p=HOOK).model,
                        ArcLengthSettings(ds=0.02, ds_max=0.1))
    path = cont.run(30, stop=lambda p: p.lam >= 0.5)
    assert path[-1].lam >= 0.5 and all(p.index == 0 for p in path)
    tip0 = np.array([HOOK.length, 0.0, 0.0])
    for p in path[1:]:
        exact = tendon_hook_exact(HOOK, tension=p.lam * HOOK.tension)[0][0] - tip0
        assert np.linalg.norm(p.displacements["tip"] - exact) <= 5e-5 * HOOK.length
