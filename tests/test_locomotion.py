"""Rods in fluids and locomotion: sedimentation, the curvature wave as a power port, the
swimmer (fxrod/core/forms/drag.py, fxrod/core/forms/actuation.py, demos/swimmer.py).

References, test by test:

* ``test_oblique_sedimentation_terminal_velocity``: the closed-form terminal velocity of a
  straight rod in resistive-force drag, ``F_t/(c_t L)`` along the rod and ``F_n/(c_n L)``
  across it (F the weight less the buoyancy), approached exponentially with the time
  constants ``rhoA/c_t``, ``rhoA/c_n`` (the residual transient is the bound); the ledger's
  dissipation per step is >= 0.
* ``test_curvature_wave_statics_is_the_intrinsic_shape``: a cantilever whose intrinsic
  curvature is ``A sin(k s + phase)`` takes the shape of that curvature (no load): the tip
  of the ODE ``theta' = kappa_0`` integrated to 1e-12, converging with order 4.
* ``test_curvature_wave_power_port_closes_the_balance``: the exact discrete power balance
  ``H_{n+1} - H_n = W_act^n - D^n`` (to the Newton tolerance and round-off,
  tests/roundoff.py), with and without drag.
* ``test_curvature_wave_bad_input_is_one_line``: one-line ParameterError naming the
  parameter, before any form is compiled.
* ``test_swimmer_speed_against_resistive_force_theory`` (slow): the small-amplitude
  resistive-force speed of the finite filament with its recoil (Gray & Hancock 1955; Lauga &
  Powers 2009), demos/swimmer.py.
* ``test_forward_backward_friction_creep`` (slow): the closed-form creep per period of a
  rigid block under a sinusoidal force between its forward and backward Coulomb
  thresholds (fxrod/core/forms/contact.py).
* ``test_forward_backward_friction_is_consistent_and_mirrors``: the mirrored problem gives
  the mirrored path (an exact symmetry of the discrete law); the energy balance to the
  Newton tolerance, D >= 0.
* ``test_friction_backward_bad_input_is_one_line``: one-line ParameterError naming it.
* ``test_friction_law_bad_input_is_one_line``: an unknown ``friction_law`` is refused.
* ``test_snake_moves_forward_and_the_ledger_closes``: demos/snake.py (PyElastica's continuum
  snake) moves head first with lateral friction above axial, backwards with it below, and
  drifts only by an inertial amount of relative order the Froude number on isotropic
  friction; the energy balance closes every step to the Newton tolerance.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from fxrod.core.forms.actuation import CurvatureWave
from fxrod.core.forms.contact import Contact
from fxrod.core.forms.drag import MorisonDrag, ResistiveForceDrag
from fxrod.core.loads import DistributedLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.obstacles import HalfSpace
from fxrod.core.rod import Rod, VaryingSection
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.problems.locomotion import write_snake_csv, write_swimmer_csv
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.conftest import ROOT, assert_units_files
from tests.rods import LENGTH, SEC, straight_rod
from tests.roundoff import effort_norm, newton_bound, roundoff

G = 9.81
#: Newton stops on the residual norm only (|F|_2 <= atol), what newton_bound assumes.
SETTINGS = SolverSettings(atol=1e-12, stol=0.0)


# ------------------------------------------------------------------ sedimentation
@pytest.mark.parametrize("theta", [0.0, 35.0, 90.0])
def test_oblique_sedimentation_terminal_velocity(theta):
    """A straight free rod at ``theta`` [deg] to gravity (0: vertical) with resistive-force
    drag and buoyancy (MorisonDrag with zero drag coefficients: ``-rho_f A_b g``) falls at
    the terminal velocity ``F_t/(c_t L)`` along the rod and ``F_n/(c_n L)`` across it, with
    ``F = (rhoA - rho_f A_b) L g`` the net weight: an oblique rod drifts sideways at
    ``|F| sin cos (1/c_t - 1/c_n)/L``. The approach is exponential with the time constants
    ``rhoA/c`` (per direction); the midpoint rule's factor ``(1 - a)/(1 + a)`` per step
    (``a = c h/(2 rhoA)``) is below ``exp(-2a)``, so after the time T the transient left is at
    most ``exp(-c T/rhoA) |v_inf|`` (here < 1e-8 of it), the bound together with Newton's
    tolerance and round-off. A flipped coefficient, projection or buoyancy fails it. The
    ledger's dissipation of every step is >= 0."""
    c_t, c_n, h, n = 1.5, 3.0, 0.1, 80
    rho_f, diameter = 1000.0, 0.02
    th = math.radians(theta)
    e = np.array([math.sin(th), 0.0, math.cos(th)])
    g = np.array([0.0, 0.0, -G])
    buoy = MorisonDrag(rho_f, diameter, C_dn=0.0, g=g, name="buoyancy")
    model = RodModel(straight_rod(e), loads=[Gravity(g)],
                     extensions=[ResistiveForceDrag(c_t, c_n), buoy])
    sim = Simulation(Integrator(model, h, SETTINGS))
    sim.run(n * h)
    p = np.array([sim.column(f"p_{i}")[-1] for i in (1, 2, 3)])
    v = p / (SEC.rhoA * LENGTH)
    F = (SEC.rhoA - rho_f * buoy.area) * LENGTH * g                 # net weight [N]
    F_t, F_n = (F @ e) * e, F - (F @ e) * e
    v_t, v_n = F_t / (c_t * LENGTH), F_n / (c_n * LENGTH)
    # Newton: the momentum rows along a translation, sqrt(n_nodes) atol per step [N s/m]
    newton = newton_bound(SETTINGS, math.sqrt(2 * 4 + 1) / (SEC.rhoA * LENGTH), n)
    bound = 0.0
    for v_inf, c, vv in ((v_t, c_t, (v @ e) * e), (v_n, c_n, v - (v @ e) * e)):
        b = (math.exp(-c * n * h / SEC.rhoA) * np.linalg.norm(v_inf) + newton
             + roundoff(np.linalg.norm(v_t + v_n), n))
        assert np.linalg.norm(vv - v_inf) <= b, (vv, v_inf, b)
        bound += b
    # the sideways drift, towards the lower end (-e1) for c_n > c_t
    drift = -np.linalg.norm(F) * math.sin(th) * math.cos(th) * (1 / c_t - 1 / c_n) / LENGTH
    assert abs(v[0] - drift) <= bound
    assert (v[0] < -bound) == (0.0 < theta < 90.0)
    D = np.diff(sim.column("dissipated"))
    assert np.all(D >= 0.0) and D[0] > 0.0


# ------------------------------------------------------------------ curvature wave
def _intrinsic_tip(A: float, k: float, phase: float) -> np.ndarray:
    """Tip ``(along d3, along d2)`` [m] of a rod of length 1 whose curvature about d1 is
    ``A sin(k s + phase)``: ``theta' = kappa_0`` and ``d3' = K_1 d1 x d3 = -K_1 d2``, so the
    tangent is ``cos theta d3_0 - sin theta d2_0`` (ODE integrated to 1e-12)."""
    def f(s, y):
        return [A * math.sin(k * s + phase), math.cos(y[0]), -math.sin(y[0])]
    sol = solve_ivp(f, (0.0, LENGTH), [0.0, 0.0, 0.0], rtol=1e-12, atol=1e-14)
    return sol.y[1:, -1]


def test_curvature_wave_statics_is_the_intrinsic_shape():
    """A cantilever (clamped at s = 0, no load) whose CurvatureWave has zero frequency,
    ``kappa_0 = A sin(k s + phase)``, ramped in with the load factor: its equilibrium is
    the stress-free shape of the intrinsic curvature kappa_0, the tip of the ODE
    ``theta' = kappa_0``. The nodal tip error falls with order 4 in the element length
    (like the rod's statics under loads): measured 2.4e-4 -> 1.3e-5 m for n_e = 8 -> 16,
    asserted order in [3.5, 4.5] and the n_e = 16 error below its Richardson estimate from
    the coarse pair. A moment with the wrong sign bends the rod the other way (error 0.5 m),
    one with the wrong stiffness (e.g. k_b2 for axis 1 of a non-circular section) or the
    wrong axis does not converge to this tip."""
    A, lam, phase = 3.0, 0.8, 0.7
    ref = _intrinsic_tip(A, 2.0 * math.pi / lam, phase)
    err = []
    for ne in (8, 16):
        rod = Rod(SEC, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
                  n_elements=ne)                                   # d2 = e3
        wave = CurvatureWave(A, lam, phase=phase, ramp=1.0)
        model = RodModel(rod, supports=[Clamp("0")], extensions=[wave], quasistatic=True)
        Integrator(model, 0.25).advance_to(1.0)
        tip = model.nodes.tip()
        assert tip[1] == 0.0                                       # planar: no d1 part
        err.append(np.linalg.norm(tip[[0, 2]] - ref))
    order = math.log2(err[0] / err[1])
    assert 3.5 <= order <= 4.5, err
    assert err[1] <= err[0] / 2 ** 3.5


@pytest.mark.parametrize("drag", [False, True])
def test_curvature_wave_power_port_closes_the_balance(drag):
    """A free rod driven by a travelling curvature wave (with or without resistive-force
    drag): every step closes ``H_{n+1} - H_n = W_act^n - D^n`` to ``atol |e|_2`` (the
    residual paired with the efforts, tests/roundoff.py) plus round-off of H. The
    actuator's work is the port work, booked by the ledger: without it (or with its sign
    flipped) the balance is off by ``|W_act|``, asserted far above the bound. With drag, the
    dissipation is >= 0 every step."""
    h, n = 0.01, 30
    wave = CurvatureWave(4.0, 0.5, frequency=2.0, axis=2, ramp=0.05)
    ext = [wave] + ([ResistiveForceDrag(0.5, 1.0)] if drag else [])
    model = RodModel(straight_rod((1.0, 0.0, 0.0), n_elements=8), extensions=ext)
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    res, bound, port, diss = [], [], [], []
    for _ in range(n):
        w_prev = model.w0.x.array.copy()
        r = integ.step()
        H = model.ledger.H
        res.append(r.energy_residual)
        port.append(r.port_work)
        diss.append(r.dissipation)
        bound.append(newton_bound(SETTINGS, effort_norm(model, w_prev, h)) + roundoff(H))
    res, bound, port = np.abs(res), np.array(bound), np.abs(port)
    assert np.all(res <= bound), np.max(res / bound)
    assert np.max(port) > 1e6 * np.max(bound)                    # the port is not negligible
    assert np.all(np.array(diss) >= 0.0) and (max(diss) > 0.0) == drag


@pytest.mark.parametrize("kwargs, name", [
    ({"wavelength": 0.0}, "wavelength"),
    ({"wavelength": -0.5}, "wavelength"),
    ({"wavelength": float("nan")}, "wavelength"),
    ({"amplitude": float("nan")}, "amplitude"),
    ({"amplitude": float("inf")}, "amplitude"),
    ({"frequency": float("inf")}, "frequency"),
    ({"axis": 3}, "axis"),
    ({"ramp": -1.0}, "ramp"),
    ({"phase": "zero"}, "phase"),
])
def test_curvature_wave_bad_input_is_one_line(kwargs, name):
    """A bad parameter is refused in one line naming it, before any model is built; a
    varying section when the model is built, before any form is compiled."""
    args = {"amplitude": 1.0, "wavelength": 0.5} | kwargs
    t0 = time.perf_counter()
    with pytest.raises(ParameterError) as exc:
        CurvatureWave(**args)
    msg = str(exc.value)
    assert exc.value.name == name and "\n" not in msg and msg.startswith(f"invalid {name} ")
    assert time.perf_counter() - t0 < 0.1


def test_curvature_wave_refuses_a_varying_section_before_compiling(monkeypatch):
    """On a VaryingSection the wave's bending stiffness is not one number: refused in one
    line when the model is built, before any form is compiled (the JIT is never called)."""
    import fxrod.native.jit

    def no_compile(*a, **k):
        raise AssertionError("a form was compiled")
    monkeypatch.setattr(fxrod.native.jit, "forms", no_compile)
    sec = VaryingSection.circular(radius=lambda s: 0.01 * (1.0 - 0.3 * s), E=1e8,
                                  rho=2000.0, nu=0.3)
    rod = Rod(sec, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=4)
    with pytest.raises(ParameterError, match="a uniform Section for a CurvatureWave") as exc:
        RodModel(rod, extensions=[CurvatureWave(1.0, 0.5)])
    assert "\n" not in str(exc.value)


# ------------------------------------------------------------------ the swimmer
@pytest.mark.slow
def test_swimmer_speed_against_resistive_force_theory(tmp_path):
    """demos/swimmer.py: a free stiff filament in resistive-force drag (c_n/c_t = 2) with a
    curvature wave of wavenumber k travelling from s = 0 to s = L swims head first (towards
    -e1, against the wave) at the small-amplitude speed of resistive-force theory
    ``U = eps^2 C`` with ``eps = b k = A/k`` (Gray & Hancock 1955; Lauga & Powers 2009:
    ``C = -(c_n/c_t - 1) c/2`` for an infinite filament). The reference
    (``reference_speed``) is that of the finite filament with its recoil (the sideways
    translation and rotation that cancel the lateral drag's force and moment), 7.6 % below
    the infinite filament's for two wavelengths on the body.

    Error budget of ``r = U/U_ref`` at ``eps = 0.1`` (n_e = 16, 40 steps per period), every
    term estimated by the runs: the next order in the amplitude, ``r - 1 = D eps^2``,
    estimated from the run at ``2 eps`` as ``(r(2 eps) - r(eps))/3`` (the test checks the
    ratio of the two deviations is near 4, i.e. that the term is of order eps^2); the time
    step and the mesh, bounded by the change when each is halved (an error that falls at
    least linearly loses at least that much); the inertia, ``rhoA omega/c_n = 3e-4``; the
    elasticity (Sperm number 0.60: the lateral drag bends the body by ``~ Sp^4/500``
    relative) 2.5e-4. Measured: r = 0.9903, 0.9624 at eps = 0.1, 0.2; 0.9888 with 80 steps,
    0.9923 with 32 elements. The infinite-filament speed (r = 0.92) or a swimmer that goes
    with the wave fails it. The demo's CSV holds t, the centre of mass and the speed."""
    sys.path.insert(0, str(ROOT / "demos"))
    try:
        import swimmer
    finally:
        sys.path.pop(0)
    k = 2.0 * math.pi / swimmer.WAVELENGTH
    eps = 0.1

    def ratio(e, **kw):
        run = swimmer.swim(e * k, periods=4, **kw)
        x = run["x"]
        n0 = run["steps_per_period"]
        step = x[-1] - x[n0]
        assert step[0] < 0.0 and np.all(np.abs(x[:, 1]) <= 1e-12)   # head first, planar
        assert np.all(run["dissipated"] >= 0.0)
        return swimmer.swimming_speed(run) / abs(swimmer.reference_speed(e * k)), run

    r1, run = ratio(eps)
    r2, _ = ratio(2.0 * eps)
    r_h, _ = ratio(eps, steps_per_period=80)
    r_mesh, _ = ratio(eps, n_elements=32)
    assert 3.0 <= (r2 - 1.0) / (r1 - 1.0) <= 5.0, (r1, r2)          # order eps^2
    budget = abs(r2 - r1) / 3.0 + abs(r_h - r1) + abs(r_mesh - r1) + 3e-4 + 2.5e-4
    assert abs(r1 - 1.0) <= budget, (r1, budget)
    u_inf = (swimmer.C_N / swimmer.C_T - 1.0) * eps ** 2 * swimmer.FREQUENCY \
        * swimmer.WAVELENGTH / 2.0
    assert abs(swimmer.swimming_speed(run) / u_inf - 1.0) > 2.0 * budget   # recoil matters
    write_swimmer_csv(run, tmp_path / "swimmer.csv")
    rows = np.genfromtxt(tmp_path / "swimmer.csv", delimiter=",", names=True)
    assert list(rows.dtype.names) == ["t", "x_1", "x_2", "x_3", "speed"]
    assert np.allclose(rows["x_1"], run["x"][:, 0], rtol=1e-9, atol=1e-12)
    assert rows["speed"][-1] == pytest.approx(
        np.linalg.norm(run["x"][-1] - run["x"][-41]), rel=1e-8)
    assert_units_files(tmp_path)


# ------------------------------------------------------------------ snake friction
MU_F, MU_B, F0 = 0.2, 0.6, 0.4     # forward, backward coefficient; force amplitude / weight
OMEGA = 2.0 * math.pi               # rad/s: period 1 s


def _creep_per_period() -> float:
    """Closed-form forward slide [m] per period of a rigid block of weight ``m g`` on
    Coulomb ground pushed by ``F0 m g sin(omega t)`` with ``MU_F < F0 < MU_B``: stuck until
    ``sin(omega t_1) = MU_F/F0``, then ``dv/dt = g (F0 sin(omega t) - MU_F)`` until v = 0
    again at t_2 (root by brentq); backwards ``|F| < MU_B m g`` keeps it stuck.
    ``x = g (F0/omega (cos(omega t_1) tau - (sin(omega t_2) - sin(omega t_1))/omega)
    - MU_F tau^2/2)``, ``tau = t_2 - t_1``."""
    t1 = math.asin(MU_F / F0) / OMEGA

    def v(t):
        return G * (F0 / OMEGA * (math.cos(OMEGA * t1) - math.cos(OMEGA * t)) - MU_F * (t - t1))
    t2 = brentq(v, 0.25, 1.0)         # v > 0 on (t1, 0.25]: F > MU_F m g up to t = 0.25
    tau = t2 - t1
    return G * (F0 / OMEGA * (math.cos(OMEGA * t1) * tau
                              - (math.sin(OMEGA * t2) - math.sin(OMEGA * t1)) / OMEGA)
                - MU_F * tau ** 2 / 2.0)


def _snake(v_reg: float, steps: int, mirror: bool = False, periods: int = 2):
    """A rod (along +e1 = d3, on the ground z = 0, resting on its radius) pushed by the
    uniform axial line load ``F0 rhoA g sin(omega t)`` for ``periods`` periods of ``steps``
    steps: ``(x, res, bound, D)``, the displacement of its tip along e1 at the end of each
    period [m], the balance residuals and their bounds [J], the dissipations [J].
    ``mirror``: the coefficients swapped and the force reversed."""
    R = SEC.radius
    mu_f, mu_b, sign = (MU_B, MU_F, -1.0) if mirror else (MU_F, MU_B, 1.0)
    rod = Rod(SEC, start=(0.0, 0.0, R), end=(LENGTH, 0.0, R), d1=(0.0, 1.0, 0.0),
              n_elements=4)
    k = 1e5                                                        # N/m^2
    contact = Contact(HalfSpace(), stiffness=k, friction=mu_f, friction_backward=mu_b,
                      v_reg=v_reg, damping=2.0 * math.sqrt(k * SEC.rhoA))
    q = sign * F0 * SEC.rhoA * G
    push = DistributedLoad(force=lambda t: (q * math.sin(OMEGA * t), 0.0, 0.0))
    model = RodModel(rod, loads=[Gravity((0.0, 0.0, -G)), push], extensions=[contact])
    settings = SolverSettings(adaptive=True, atol=1e-10, stol=0.0)
    integ = Integrator(model, 1.0 / steps, settings)
    model.ledger.current()
    x0 = model.nodes.tip()[0]
    x, res, bound, D = [], [], [], []
    for period in range(1, periods + 1):
        while integ.t < period - 1e-9:
            w_prev = model.w0.x.array.copy()
            r = integ.step()
            res.append(r.energy_residual)
            bound.append(newton_bound(settings, effort_norm(model, w_prev, r.h))
                         + roundoff(model.ledger.totals["external_work"]))
            D.append(r.dissipation)
        x.append(model.nodes.tip()[0] - x0)
    return np.array(x), np.abs(res), np.array(bound), np.array(D)


def test_forward_backward_friction_is_consistent_and_mirrors():
    """Snake friction, the exact discrete identities of one period of the problem of
    :func:`test_forward_backward_friction_creep`: every step closes the energy balance to
    the Newton tolerance (atol |e|_2 plus round-off) with D >= 0, the rod ends forward
    (towards +d3, the low-friction sense), and the mirrored problem (coefficients swapped,
    force reversed) runs the mirrored path to round-off, which a law that does not follow
    the sense of d3 (e.g. blends the coefficients with the lab axis, or the sign of
    the force instead of the sliding velocity) fails. Newton runs to ``atol = 1e-10`` with
    ``stol = 0`` (newton_bound's assumption): the stuck rod's friction stiffness
    ``mu p/v_reg`` puts the residual's round-off floor near 1e-11 N s, above the default
    atol, where the update test would otherwise stop Newton."""
    x, res, bound, D = _snake(1e-5, 200, periods=1)
    assert np.all(res <= bound), np.max(res / bound)
    assert np.all(D >= 0.0)
    assert x[0] > 0.0
    x_m, *_ = _snake(1e-5, 200, mirror=True, periods=1)
    assert abs(x_m[0] + x[0]) <= roundoff(LENGTH, 200), x_m[0] + x[0]


@pytest.mark.parametrize("value", [-0.1, float("nan"), "high"])
def test_friction_backward_bad_input_is_one_line(value):
    """A backward coefficient that is not a finite number >= 0 is refused in one line naming
    it, before any model is built."""
    with pytest.raises(ParameterError) as exc:
        Contact(HalfSpace(), stiffness=1e5, friction=0.2, friction_backward=value)
    assert exc.value.name == "friction_backward" and "\n" not in str(exc.value)


@pytest.mark.slow
def test_forward_backward_friction_creep():
    """Snake friction: a rod on flat ground with the forward coefficient ``mu_f = 0.2``
    (sliding along +d3) and the backward one ``mu_b = 0.6``, pushed back and forth by the
    symmetric axial force ``0.4 m g sin(omega t)``: it slides forward once per period and
    sticks backwards, creeping forward by the rigid block's closed-form slide
    (:func:`_creep_per_period`, 0.1258 m) every period.

    Error budget, estimated by the runs: the regularisation (v_reg = 1e-5 m/s) lets the
    block start early and creep while stuck; its error shrinks with v_reg (measured
    6.9e-4, 8e-5 m at 1e-4, 1e-5 m/s), so it is below the change from 10 v_reg to v_reg;
    the time step (200 per period), below the change when it is halved. The penalty
    contact and the axial strain (1e-4) are rigid to 1e-4 of that. A law that used mu_f
    both ways (the rod slides back), mu_b forwards or blends the two with the wrong sign
    fails it."""
    ref = _creep_per_period()
    x, *_ = _snake(1e-5, 200)
    x_reg, *_ = _snake(1e-4, 200, periods=1)
    x_h, *_ = _snake(1e-5, 400, periods=1)
    budget = abs(x_reg[0] - x[0]) + abs(x_h[0] - x[0])
    assert abs(x[0] - ref) <= budget <= 0.01 * ref, (x, ref, budget)
    assert abs(x[1] - x[0] - ref) <= budget            # the same creep every period


# ------------------------------------------------------------------ the continuum snake
def _snake_demo():
    sys.path.insert(0, str(ROOT / "demos"))
    try:
        import snake
    finally:
        sys.path.pop(0)
    return snake


def test_snake_moves_forward_and_the_ledger_closes(tmp_path):
    """demos/snake.py, quick (8 elements, 50 steps per period, 3 periods of 2 s): PyElastica's
    continuum snake (a travelling curvature wave from the head at s = L to the tail, kinetic
    friction forward/backward/lateral ``mu, 1.5 mu, 2 mu``, the componentwise law of snake
    models). Checks, each with its number:

    * it moves head first (towards +e1, against the wave), as friction with the lateral
      coefficient above the axial one predicts (the oblique segments push the ground
      backwards; Hu et al. 2009), measured 0.0272 m/s over the third period (0.16 body
      lengths per period; PyElastica's run of the same drive: 0.0269 m/s, bench/peers.py);
    * with the lateral and axial coefficients swapped (``mu_l < mu_a``) it moves backwards,
      with the wave (measured -0.0285 m/s);
    * on isotropic friction (all three ``mu``) the frictional propulsion vanishes: what is
      left is an inertial drift, of relative order the Froude number ``Fr = L/(T^2 g mu)``
      (the ratio of the body's inertial forces to friction): bounded by ``Fr`` times the
      anisotropic speed, and halving when mu doubles (Fr halves): measured -0.0017 and
      -0.0008 m/s at Fr = 0.1 and 0.05, asserted ratio in [0.35, 0.65];
    * every step closes ``H_{n+1} - H_n = W_ext + W_port - D`` to the Newton tolerance
      (``atol |e|_2``, tests/roundoff.py) plus round-off of the largest energy, with D >= 0
      (friction and contact damping dissipate), and the port work of the muscles is far
      above that bound.

    A swapped lateral/axial friction, a wave travelling the other way or friction from the
    lab axis instead of the body's tangent fails the first two; the CSV has the demo's
    columns."""
    S = _snake_demo()
    kw = {"periods": 3, "n_elements": 8, "steps_per_period": 50}
    res, bound, diss, port = [], [], [], []

    def check(model, w_prev, r):
        res.append(abs(r.energy_residual))
        scale = max(abs(model.ledger.H), *(abs(v) for v in model.ledger.totals.values()))
        bound.append(newton_bound(settings, effort_norm(model, w_prev, r.h)) + roundoff(scale))
        diss.append(r.dissipation)
        port.append(abs(r.port_work))

    settings = SolverSettings(atol=1e-10, stol=0.0, adaptive=True)
    run = S.snake(**kw, settings=settings, callback=check)
    U = S.snake_speed(run["t"], run["x"], S.PERIOD, skip=2)
    assert U > 0.0 and abs(run["x"][-1, 1]) < 0.1 * (run["x"][-1, 0] - run["x"][0, 0])
    res, bound = np.array(res), np.array(bound)
    assert np.all(res <= bound), np.max(res / bound)
    assert np.all(np.array(diss) >= 0.0) and np.max(port) > 1e4 * np.max(bound)
    swapped = S.snake(**kw, mu=(S.MU_L, S.MU_L, S.MU_F))
    assert S.snake_speed(swapped["t"], swapped["x"], S.PERIOD, skip=2) < 0.0
    iso = []
    for mu in (S.MU_F, 2.0 * S.MU_F):
        r = S.snake(**kw, mu=(mu, mu, mu))
        iso.append(S.snake_speed(r["t"], r["x"], S.PERIOD, skip=2))
    froude = S.LENGTH / (S.PERIOD ** 2 * S.G * S.MU_F)
    assert abs(iso[0]) <= froude * U, (iso, U)
    assert 0.35 <= iso[1] / iso[0] <= 0.65, iso
    path = write_snake_csv(run, tmp_path / "snake.csv")
    rows = np.genfromtxt(path, delimiter=",", names=True)
    assert list(rows.dtype.names)[:5] == ["t", "com_1", "com_2", "com_3", "speed"]
    assert np.allclose(rows["com_1"], run["x"][:, 0], rtol=1e-9, atol=1e-12)
    assert_units_files(tmp_path)


def test_friction_law_bad_input_is_one_line():
    """An unknown friction law is refused in one line naming it, before any model is
    built."""
    with pytest.raises(ParameterError) as exc:
        Contact(HalfSpace(), stiffness=1e5, friction=0.2, friction_law="coulomb")
    assert exc.value.name == "friction_law" and "\n" not in str(exc.value)
