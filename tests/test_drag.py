"""Drag and damping as dissipative ports of the midpoint step (issue 35, first part;
fxrod/core/forms/drag.py).

Every test compares with an independent closed form. A straight rod translating uniformly
(free, under uniform loads and a uniform drag) is an exact solution of the discrete
equations: it has no strain, so its centreline velocity obeys the scalar midpoint rule of
``m dv/dt = F(v)`` exactly, and the tests assert that recurrence to the Newton tolerance and
round-off (tests/roundoff.py):

* a linear law ``m dv/dt = W - c v`` (ambient damping, resistive-force theory, per
  direction: along and across the rod) gives ``m (v_{n+1} - v_n)/h = W - c (v_{n+1} +
  v_n)/2``, i.e. with ``a = c h/(2 m)`` and ``v_inf = W/c``::

      v_{n+1} - v_inf = r (v_n - v_inf),   r = (1 - a)/(1 + a),
      v_n = v_inf + (v_0 - v_inf) r^n                                          (*)

  (m = rhoA per unit length; r is the (1,1) Pade approximant of exp(-2a): the discrete
  approach is geometric like the exact exponential one);
* Morison's quadratic law ``m dv/dt = W - k |v| v`` gives a quadratic equation for the
  midpoint velocity ``v_m = (v_n + v_{n+1})/2`` of every step, solved in closed form, and
  the same terminal velocity ``v_inf = sqrt(W/k)`` as the continuous law.

Newton's tolerance enters the velocity through the momentum rows along a translation:
``|sum_i F_i| <= sqrt(n_nodes) |F|_2 <= sqrt(2 n_e + 1) atol`` per step, i.e.
``sqrt(2 n_e + 1) atol/(rhoA L)`` in m/s; errors of earlier steps are damped by ``r < 1``,
so the steps add at most (newton_bound with ``steps``).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from fxrod.core.forms.drag import (
    AddedMass,
    AmbientDamping,
    MorisonDrag,
    RayleighDamping,
    ResistiveForceDrag,
)
from fxrod.core.loads import EndLoad, Gravity, smooth_impulse
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.rods import LENGTH, SEC, straight_rod
from tests.roundoff import effort_norm, newton_bound, roundoff

G = 9.81
N_EL = 4
#: Newton stops on the residual norm only (|F|_2 <= atol), what newton_bound assumes.
SETTINGS = SolverSettings(atol=1e-12, stol=0.0)


def _velocity(sim: Simulation) -> np.ndarray:
    """Centreline velocity of the uniformly translating rod, from the momentum [m/s]."""
    p = np.column_stack([sim.column(f"p_{i}") for i in (1, 2, 3)])
    return p / (SEC.rhoA * LENGTH)


def _newton_velocity(steps) -> np.ndarray:
    """Newton's share of the velocity error [m/s] after ``steps`` steps (module doc)."""
    return newton_bound(SETTINGS, np.sqrt(2 * N_EL + 1) / (SEC.rhoA * LENGTH), steps)


def _geometric(v0, v_inf, c, h, n):
    """(*): ``v_inf + (v0 - v_inf) r^n`` with ``r = (1 - a)/(1 + a)``, ``a = c h/(2 rhoA)``."""
    a = c * h / (2.0 * SEC.rhoA)
    r = (1.0 - a) / (1.0 + a)
    return v_inf + (v0 - v_inf) * r ** n


# ------------------------------------------------------------------ ambient damping
def test_free_rod_ambient_damping_decays_geometrically():
    """A free rod with ambient damping c_v and an initial uniform velocity v_0: the midpoint
    rule gives exactly ``v_n = v_0 ((1 - a)/(1 + a))^n``, ``a = c_v h/(2 rhoA)`` ((*) with
    W = 0). Asserted to the Newton tolerance plus round-off; a flipped damping sign (growth)
    or a damping on the end velocity instead of the midpoint one (``1/(1 + 2a)``: off by
    ~a^2 per step, 1e-2 here) fails it. Measured error 1.4e-14 m/s (bound 9.6e-11)."""
    c_v, h, n = 2.0, 0.05, 20
    v0 = np.array([0.3, -0.2, 0.5])
    model = RodModel(straight_rod((1.0, 0.0, 0.0), N_EL), extensions=[AmbientDamping(c_v)])
    model.set_velocity(v0)
    sim = Simulation(Integrator(model, h, SETTINGS))
    sim.run(n * h)
    k = np.arange(n + 1)
    exact = v0[None, :] * _geometric(1.0, 0.0, c_v, h, k)[:, None]
    err = np.max(np.abs(_velocity(sim) - exact), axis=1)
    assert np.all(err <= _newton_velocity(k) + roundoff(np.linalg.norm(v0), k + 1)), err
    D = np.diff(sim.column("dissipated"))
    assert np.all(D > 0.0)


def test_free_rod_spin_decays_with_angular_damping():
    """A free rod spinning about its axis with ``omega_0`` under the angular damping
    ``c_omega`` alone: ``J dω/dt = -c_omega ω`` with the polar mass moment
    ``J = M11 + M22`` [kg m], i.e. ``ω = ω_0 exp(-c_omega t/J)``; the axial angular momentum
    ``J_1 = J L ω`` follows it. The discrete rotation of the directors (a Cayley map at the
    nodes, ``ω_m = sin(α)/h`` for a step angle α) departs from the linear law at second
    order in ``α = ω h``: measured 7.1e-4 relative at ``ω_0 h = 0.1`` and 1.8e-4 at half the
    step; asserted to ``0.15 (ω_0 h)^2``. A flipped angular damping (growth), or one on the
    director velocities' sum ``Σ|v_dk|^2 = 2|ω|^2`` instead of ``|ω|^2`` (rate 2c/J: up to
    0.25 off), fails it; no other component of the angular momentum appears."""
    J = SEC.M11 + SEC.M22
    c, w0, h, n = 2.0 * J, 2.0, 0.05, 20                  # decay time J/c = 0.5 s
    model = RodModel(straight_rod((1.0, 0.0, 0.0), N_EL), extensions=[AmbientDamping(0.0, c)])
    model.set_velocity(omega=(w0, 0.0, 0.0))
    sim = Simulation(Integrator(model, h, SETTINGS))
    sim.run(n * h)
    Jx = sim.column("J_1")
    assert Jx[0] == pytest.approx(J * LENGTH * w0, rel=1e-14)
    t = sim.column("t")
    err = np.max(np.abs(Jx / Jx[0] - np.exp(-c * t / J)))
    assert err <= 0.15 * (w0 * h) ** 2, err
    assert np.max(np.abs(sim.column("J_2"))) + np.max(np.abs(sim.column("J_3"))) \
        <= roundoff(abs(Jx[0]), n)
    assert np.all(np.diff(sim.column("dissipated")) > 0.0)


# ------------------------------------------------------------------ resistive-force theory
@pytest.mark.parametrize("angle", [0.0, 90.0, 30.0])
def test_rft_sedimentation_terminal_velocity(angle):
    """A straight rod at ``angle`` [degrees] to the horizontal sediments under gravity
    with resistive-force drag (c_t, c_n): along the tangent t and across it the velocity
    follows (*) with ``c = c_t`` and ``c = c_n``, and reaches
    ``v_inf = rhoA (g.t) t / c_t + rhoA (g - (g.t) t)/c_n``: horizontal ``rhoA g/c_n``,
    vertical ``rhoA g/c_t``. A flipped sign of either coefficient, or of the tangential
    projection, fails it (the oblique rod drifts sideways at 1/c_t - 1/c_n)."""
    c_t, c_n, h, n = 1.5, 3.0, 0.05, 40
    th = np.radians(angle)
    t = np.array([np.cos(th), 0.0, np.sin(th)])
    g = np.array([0.0, 0.0, -G])
    model = RodModel(straight_rod(t, N_EL), loads=[Gravity(g)],
                     extensions=[ResistiveForceDrag(c_t, c_n)])
    sim = Simulation(Integrator(model, h, SETTINGS))
    sim.run(n * h)
    k = np.arange(n + 1)[:, None]
    W = SEC.rhoA * g
    Wt = np.dot(W, t) * t
    exact = (_geometric(0.0, Wt / c_t, c_t, h, k) + _geometric(0.0, (W - Wt) / c_n, c_n, h, k))
    v = _velocity(sim)
    err = np.max(np.abs(v - exact), axis=1)
    v_inf = Wt / c_t + (W - Wt) / c_n
    bound = _newton_velocity(k[:, 0]) + roundoff(np.linalg.norm(v_inf), k[:, 0] + 1)
    assert np.all(err <= bound), np.max(err / bound)
    # the terminal velocity itself (the approach is geometric with r <= 0.94: at n = 40 the
    # remaining (v - v_inf) is below r^40 |v_inf| < 0.1 |v_inf|)
    r = max((1 - a) / (1 + a) for a in (c_t * h / (2 * SEC.rhoA), c_n * h / (2 * SEC.rhoA)))
    assert np.linalg.norm(v[-1] - v_inf) <= r ** n * np.linalg.norm(v_inf) + bound[-1]


def test_rft_background_flow_carries_the_rod_and_books_its_work():
    """A free rod at rest in a uniform background flow u (no other load) is carried to
    the flow's velocity along (c_t) and across (c_n) its tangent by (*) with ``v_inf = u``;
    the drag then vanishes. The flow's work is booked as port work,
    ``W_port^n = h int u . f ds = h L u . C (u - v_m)`` per step, closed form with the
    midpoint velocity of (*); the balance ``H_{n+1} - H_n = W_port^n - D^n`` closes to the
    Newton tolerance; all the supplied work ends up as kinetic energy plus dissipation. A
    flow entering with the wrong sign (the rod driven to -u), or a port work booked with the
    wrong sign (balance off by 2 W_port), fails it."""
    c_t, c_n, h, n = 1.0, 2.0, 0.05, 30
    u = np.array([0.2, 0.1, -0.05])
    model = RodModel(straight_rod((1.0, 0.0, 0.0), N_EL),
                     extensions=[ResistiveForceDrag(c_t, c_n, flow=lambda t: u)])
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    res, port, efforts = [], [], []
    for _ in range(n):
        w_prev = model.w0.x.array.copy()
        r = integ.step()
        res.append(r.energy_residual)
        port.append(r.port_work)
        efforts.append(effort_norm(model, w_prev, h))
    k = np.arange(n + 1)
    ut = np.array([u[0], 0.0, 0.0])
    un = u - ut

    def v_at(kk):
        return (_geometric(0.0, ut, c_t, h, kk[:, None])
                + _geometric(0.0, un, c_n, h, kk[:, None]))

    vm = 0.5 * (v_at(k[1:]) + v_at(k[:-1]))
    exact_port = h * LENGTH * (c_t * (ut @ (ut - vm).T) + c_n * (un @ (un - vm).T))
    H = SEC.rhoA * LENGTH * u @ u / 2.0
    # the port work is linear in v_m, whose error is the velocity's bound
    vel = _newton_velocity(k[1:]) + roundoff(np.linalg.norm(u), k[1:] + 1)
    assert np.all(np.abs(np.array(port) - exact_port)
                  <= h * LENGTH * c_n * np.linalg.norm(u) * vel + roundoff(H)), \
        np.max(np.abs(np.array(port) - exact_port))
    assert np.all(np.abs(res) <= newton_bound(SETTINGS, np.array(efforts)) + roundoff(H))
    p = np.array([model.ledger.totals[c] for c in ("port_work", "dissipated")])
    kin = model.ledger.current()["kinetic"]
    assert abs(p[0] - p[1] - kin) <= np.sum(newton_bound(SETTINGS, np.array(efforts))) \
        + roundoff(H, n)
    v_end = v_at(np.array([n]))[0]
    assert kin == pytest.approx(0.5 * SEC.rhoA * LENGTH * v_end @ v_end, rel=1e-9)
    assert np.all(np.array(port) > 0.0)


# ------------------------------------------------------------------ Morison
@pytest.mark.parametrize("orientation", ["horizontal", "vertical"])
def test_morison_terminal_settling(orientation):
    """A solid cylinder (density rho_s = 2000 kg/m^3) settles in water (rho_f = 1000 kg/m^3)
    under gravity, buoyancy and Morison drag: the midpoint velocity of each step solves
    ``rhoA (2 v_m - 2 v_n)/h = W - k v_m^2`` (closed form of the quadratic below), W the
    weight minus the buoyancy per length, ``k = rho_f D C_dn/2`` (horizontal, normal drag)
    or ``rho_f pi D C_dt/2`` (vertical, tangential drag); the rod reaches
    ``rhoA g - rho_f A g = k v^2``. Asserted to the Newton tolerance and round-off plus the
    regularisation ``v_reg^2/(2 v^2)`` (1e-16 relative here). A flipped buoyancy (W with
    +rho_f A g), a flipped drag, or the drag on the wrong area fails it."""
    rho_f, C_dn, C_dt, h, n = 1000.0, 1.2, 0.5, 0.02, 60
    D = 2.0 * SEC.radius
    vertical = orientation == "vertical"
    direction = (0.0, 0.0, 1.0) if vertical else (1.0, 0.0, 0.0)
    ext = MorisonDrag(rho_f, D, C_dn, C_dt)
    model = RodModel(straight_rod(direction, N_EL), loads=[Gravity((0.0, 0.0, -G))],
                     extensions=[ext])
    sim = Simulation(Integrator(model, h, SETTINGS))
    sim.run(n * h)
    W = (SEC.rhoA - rho_f * np.pi * D ** 2 / 4.0) * G          # net weight [N/m], down
    k = 0.5 * rho_f * (np.pi * D * C_dt if vertical else D * C_dn)
    m = SEC.rhoA
    s = [0.0]                                                    # sinking speed [m/s]
    for _ in range(n):     # k v_m^2 + (2 m/h) v_m - (2 m s_n/h + W) = 0, v_m > 0
        b, c = 2.0 * m / h, 2.0 * m * s[-1] / h + W
        vm = 2.0 * c / (b + np.sqrt(b * b + 4.0 * k * c))      # the positive root
        s.append(2.0 * vm - s[-1])
    v = _velocity(sim)
    steps = np.arange(n + 1)
    v_inf = np.sqrt(W / k)
    err = np.abs(-v[:, 2] - np.array(s)) + np.abs(v[:, 0]) + np.abs(v[:, 1])
    bound = _newton_velocity(steps) + roundoff(v_inf, steps + 1) + 0.5 * ext.v_reg ** 2 / v_inf
    assert np.all(err <= bound), np.max(err / bound)
    # terminal velocity (the closed-form sequence converges to it to 1e-6 at n = 60)
    assert abs(-v[-1, 2] / v_inf - 1.0) <= 1e-5
    assert np.all(np.diff(sim.column("dissipated")) > 0.0)


# ------------------------------------------------------------------ balance of a cantilever
CASES = {
    "rft": lambda: [ResistiveForceDrag(0.3, 0.6, flow=lambda t: (0.05 * np.sin(20 * t),
                                                                 0.02, -0.03))],
    "morison": lambda: [MorisonDrag(1000.0, 0.02, 1.2, 0.3,
                                    current=lambda t: (0.1, 0.05 * np.cos(15 * t), 0.0))],
    "ambient": lambda: [AmbientDamping(0.2, 2e-3)],
    "rayleigh": lambda: [RayleighDamping(0.3)],             # alpha part (no field)
    # the added mass is booked as kinetic energy: its discrete gradient closes the balance
    "added mass": lambda: [MorisonDrag(1000.0, 0.02, 1.2, 0.3,
                                       current=lambda t: (0.1, 0.05 * np.cos(15 * t), 0.0)),
                           AddedMass(1000.0, 0.02, 1.0)],
}


def _hit_cantilever(extensions: list) -> RodModel:
    """A flexible cantilever (soft section, 1 m, 8 elements) under gravity, hit at its tip by
    a smooth 50 ms impulse of a 3D force [N] and a twisting moment [N m], with
    ``extensions`` (drag or damping)."""
    sec = Section.circular(radius=0.01, E=2e6, rho=1000.0, nu=0.3)
    rod = Rod(sec, start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=8)
    f = smooth_impulse(0.0, 0.05)
    load = EndLoad("L", force=lambda t: f(t) * np.array([0.0, 0.2, 0.3]),
                   moment=lambda t: f(t) * np.array([0.02, 0.0, 0.0]))
    return RodModel(rod, [load, Gravity((0.0, 0.0, -G))], [Clamp("0")], extensions=extensions)


@pytest.mark.parametrize("case", list(CASES))
def test_cantilever_balance_closes_and_dissipation_is_nonnegative(case):
    """A flexible cantilever (soft section, 8 elements) hit by a 3D tip impulse (force and
    twisting moment) vibrates with drag or damping, in a time-varying flow: at every step
    the ledger's balance ``H_{n+1} - H_n - W_ext - W_port + D`` is below the Newton bound
    (atol times the norm of the step's efforts, tests/roundoff.py) plus round-off, and
    ``D^n >= 0``. A residual term whose sign or velocity differs from the one booked fails
    the balance; one whose dissipation is negative fails ``D^n >= 0``; the damping must
    have taken energy (> 1 % of the input)."""
    model = _hit_cantilever(CASES[case]())
    h, n = 5e-3, 60
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    res, D, efforts, scale = [], [], [], []
    for _ in range(n):
        w_prev = model.w0.x.array.copy()
        r = integ.step()
        res.append(r.energy_residual)
        D.append(r.dissipation)
        efforts.append(effort_norm(model, w_prev, h))
        scale.append(max(abs(model.ledger.H), abs(r.external_work), abs(r.port_work)))
    bound = newton_bound(SETTINGS, np.array(efforts)) + roundoff(np.array(scale))
    assert np.all(np.abs(res) <= bound), np.max(np.abs(res) / bound)
    assert np.all(np.array(D) >= 0.0)
    tot = model.ledger.totals
    assert tot["dissipated"] > 1e-2 * (abs(tot["external_work"]) + abs(tot["port_work"]))


# ------------------------------------------------------------------ added mass
@pytest.mark.parametrize("direction", ["across", "along"])
def test_added_mass_free_fall_across_and_along_the_rod(direction):
    """A free straight rod in still water falls under its weight, across its axis or along
    it, from rest: with the added mass ``m_a`` (AddedMass, C_a = 1, m_a = rhoA/2 here) the
    acceleration across the axis is ``rhoA g/(rhoA + m_a)`` (the fluid's inertia), along it
    ``g`` (none). Uniform acceleration is an exact solution of the midpoint step (no strain,
    d3 constant, the configuration force zero for v across d3): the centre falls
    ``a t^2/2`` and the momentum, the rod's and the fluid's impulse ``m_a P(d3) v``, is the
    weight's impulse ``rhoA L g t``, both to the Newton bound and round-off."""
    added = AddedMass(1000.0, 0.02, 1.0)
    g = np.array([0.0, 0.0, -G]) if direction == "across" else np.array([-G, 0.0, 0.0])
    model = RodModel(straight_rod((1.0, 0.0, 0.0), N_EL), [Gravity(tuple(g))], [],
                     extensions=[added])
    h, steps = 0.01, 10
    sim = Simulation(Integrator(model, h, SETTINGS))
    sim.run(steps * h)
    t = np.array(sim.column("t"))
    com = np.column_stack([sim.column(f"com_{i}") for i in (1, 2, 3)])
    p = np.column_stack([sim.column(f"p_{i}") for i in (1, 2, 3)])
    m_a = added.mass
    assert m_a == pytest.approx(SEC.rhoA / 2, rel=1e-12)    # across: 2/3 of g
    a = g * (SEC.rhoA / (SEC.rhoA + m_a) if direction == "across" else 1.0)
    v_bound = _newton_velocity(steps) + roundoff(G * t[-1], steps + 1)
    assert np.all(np.abs(com - com[0] - 0.5 * np.outer(t**2, a)) <= v_bound * t[-1])
    assert np.all(np.abs(p - np.outer(t, SEC.rhoA * LENGTH * g))
                  <= (SEC.rhoA + m_a) * LENGTH * v_bound)


def test_added_mass_lowers_the_bending_frequencies_by_the_mass_ratio():
    """A cantilever's natural frequencies in still water (AddedMass) against the dry ones,
    for an Euler-Bernoulli section (no rotary inertia, which the fluid would not add to):
    every bending mode's kinetic energy is the centreline's translation across the axis,
    so ``omega_wet = omega_dry sqrt(rhoA/(rhoA + m_a))`` exactly, in the modal analysis and
    in the linear PH export (the same mass form), to the eigen-solver's tolerance
    ``EIG_TOL`` (a relative bound on each eigenvalue). The six lowest modes are bending
    ones (two planes), the axial modes along d3 far above."""
    import dataclasses

    from fxrod.analysis.modes import EIG_TOL, modes
    from fxrod.analysis.phmodel import Input, linear_ph
    from tests.test_capability_linearised import ph_frequencies

    sec = dataclasses.replace(Section.circular(radius=0.005, E=2e9, rho=1000.0, nu=0.3),
                              M11=0.0, M22=0.0)
    added = AddedMass(1000.0, 0.01, 1.0)

    def model(extensions, quasistatic=False):
        rod = Rod(sec, start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
                  n_elements=8)
        return RodModel(rod, supports=[Clamp("0")], extensions=extensions,
                        quasistatic=quasistatic)

    expected = np.sqrt(sec.rhoA / (sec.rhoA + added.mass))
    dry, wet = (np.asarray(modes(model(e), 6).omega) for e in ([], [added]))
    assert np.all(np.abs(wet / dry / expected - 1.0) <= EIG_TOL), wet / dry / expected - 1.0
    tip = [Input("F_z", "force", "L", (0.0, 0.0, 1.0))]
    ph = ph_frequencies(linear_ph(model([added], quasistatic=True), tip), 6)
    assert np.all(np.abs(ph / wet - 1.0) <= EIG_TOL), ph / wet - 1.0


def test_added_mass_leaves_the_buckling_path_alone():
    """The added mass has no static part: the arc-length continuation of an Euler column
    (EI = L = 1, Kirchhoff rod, 16 elements) with an AddedMass in the model finds the
    bifurcation at Euler's load ``pi^2/4`` to the same bound as without it (the claim
    ``cont-euler`` of tests/test_continuation.py)."""
    from fxrod.analysis.continuation import ArcLengthSettings, Continuation
    from tests.test_continuation import COLUMN

    rod = Rod(COLUMN, (0, 0, 0), (0, 0, 1.0), (1, 0, 0), 16, constraints=("kirchhoff",))
    load = EndLoad("L", force=lambda lam: (0.0, 0.0, -lam))
    model = RodModel(rod, [load], [Clamp("0")], extensions=[AddedMass(1000.0, 0.02, 1.0)],
                     quasistatic=True)
    cont = Continuation(model, ArcLengthSettings(ds=0.3, ds_max=0.3, psi=1.0))
    cont.run(20, stop=lambda p: bool(cont.critical))
    (bif,) = cont.critical
    assert bif.event == "bifurcation"
    assert abs(bif.lam / (np.pi ** 2 / 4.0) - 1.0) <= 1.5e-6


# ------------------------------------------------------------------ Rayleigh damping
def _modal_decay(alpha: float, beta: float, periods: float = 2.0, order: int = 4):
    """A clamped-free cantilever (the module's section, 8 elements) started from rest in its
    reference with the velocity of its first natural mode (:func:`fxrod.analysis.modes.modes` of
    the undamped model), tip amplitude 1e-3 L, integrated with ``omega_1 h = 0.05`` over
    ``periods`` periods. Returns ``(zeta, omega, omega_1)``: the damping ratio and frequency
    of the measured pole nearest ``omega_1``, and the undamped ``omega_1``.

    The pole: the nodal displacements of a linear system sampled every step obey one linear
    recurrence of order ``2 order`` (linear prediction, Prony; fitted by least squares over
    all nodes and components, so the higher modes the nonlinearity may feed do not bias
    it); its roots z are the discrete poles, and the midpoint rule maps a continuous pole
    ``lambda`` to ``z = (1 + lambda h/2)/(1 - lambda h/2)`` exactly, so
    ``lambda = (2/h)(z - 1)/(z + 1)`` has no time-discretisation error; ``lambda =
    -zeta omega + i omega sqrt(1 - zeta^2)`` gives ``zeta = -Re lambda/abs(lambda)``. This is
    the logarithmic decrement ``delta = 2 pi zeta/sqrt(1 - zeta^2)`` of every displacement
    of the mode, measured without peak picking."""
    from fxrod.analysis.modes import modes

    def rod():
        return Rod(SEC, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
                   n_elements=8)

    md = modes(RodModel(rod(), supports=[Clamp("0")]), 1)
    w1, shape = md.omega[0], md.shapes[0]
    model = RodModel(rod(), supports=[Clamp("0")],
                     extensions=[RayleighDamping(alpha, beta)])
    tip = np.max(np.linalg.norm(shape[:, :3], axis=1))
    model.v0.x.array[:] = (1e-3 * LENGTH * w1 / tip) * shape.reshape(-1)
    model.ledger.invalidate()
    h = 0.05 / w1
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    x0 = model.q_nodal_local()[:, :3].copy()
    X, D, res = [np.zeros(x0.size)], [], []
    for _ in range(int(round(periods * 2.0 * np.pi / 0.05))):
        r = integ.step()
        X.append((model.q_nodal_local()[:, :3] - x0).ravel())
        D.append(r.dissipation)
        res.append(r.energy_residual)
    X = np.array(X)
    X = X[:, np.abs(X).max(axis=0) > 1e-3 * np.abs(X).max()]
    k = 2 * order
    A = np.vstack([np.column_stack([x[k - 1 - i:len(x) - 1 - i] for i in range(k)])
                   for x in X.T])
    c = np.linalg.lstsq(A, np.concatenate([x[k:] for x in X.T]), rcond=None)[0]
    z = np.roots(np.r_[1.0, -c])
    lam = 2.0 / h * (z - 1.0) / (z + 1.0)
    pole = lam[np.argmin(np.abs(np.abs(lam) - w1))]
    return -pole.real / abs(pole), abs(pole), w1, np.array(D), np.array(res), model


@pytest.mark.parametrize("part", ["alpha", "beta"])
def test_rayleigh_modal_damping_ratio(part):
    """Rayleigh damping ``alpha M + beta K`` damps the first mode of a cantilever with the
    closed-form ratio ``zeta_1 = alpha/(2 omega_1) + beta omega_1/2`` (0.02 here, from
    alpha alone or beta alone), at the undamped frequency ``omega_1`` (3.9302 rad/s, the
    discrete model's; Euler-Bernoulli 3.9310). The damping matrix of the linearised step is
    exactly ``alpha M + beta K`` (the same M and projected K as the modes), so the mode
    stays uncoupled and the pole measured by :func:`_modal_decay` has no discretisation
    error; what remains is the geometric nonlinearity at the amplitude 1e-3 L, of relative
    order ``(A/L)^2 = 1e-6``, and Newton's tolerance. Measured ``zeta = 0.019999995``
    (both parts, -2.4e-7 and -2.6e-7 relative), ``omega`` within 2e-8; asserted to 1e-5
    relative. A flipped sign of the term (zeta = -0.02), a damping of the unprojected P2
    strain rate (+2.3 %) or one on half or twice the mass fails it. The balance closes at
    every step (measured 1e-17 J against ``H_0 = 1.2e-6 J``; asserted 1e-9 H_0, below the
    ~1e-9 J dissipated per step, so a term booked with another sign fails it) and
    ``D^n >= 0``; the energy left after two periods, 0.606 H_0, is
    ``exp(-2 zeta_1 omega_1 t) = exp(-0.16 pi)``."""
    w1 = 3.930227410361981                           # the first mode's omega_1 (checked)
    alpha, beta = (0.04 * w1, 0.0) if part == "alpha" else (0.0, 0.04 / w1)
    zeta, omega, w1_model, D, res, model = _modal_decay(alpha, beta)
    assert w1_model == pytest.approx(w1, rel=1e-9)
    closed = alpha / (2.0 * w1) + beta * w1 / 2.0
    assert closed == pytest.approx(0.02, rel=1e-12)
    assert zeta / closed - 1.0 == pytest.approx(0.0, abs=1e-5), zeta
    assert omega / w1 - 1.0 == pytest.approx(0.0, abs=1e-5), omega
    assert np.all(D >= 0.0) and D.sum() > 0.0
    H0 = model.ledger.H + D.sum()                    # the initial (kinetic) energy [J]
    assert np.max(np.abs(res)) <= 1e-9 * H0, np.max(np.abs(res)) / H0


def test_rayleigh_stiffness_part_balance_in_large_motion():
    """The cantilever of the balance test above, hit by the same 3D tip impulse, with both
    Rayleigh parts (the stiffness part's viscous stress ``sigma_v = beta (sigma_{n+1} -
    sigma_n)/h`` tests the compliance rows too: tests/roundoff.py's effort norm adds it to
    the midpoint stress): the balance closes at every step below the Newton bound (atol
    times the norm of the step's efforts) plus round-off (a term booked with another sign is
    off by 2 D^n, ~1e-4 of the energy in play), and ``D^n >= 0``; the damping took > 1 %
    of the input."""
    model = _hit_cantilever([RayleighDamping(0.3, 2e-3)])
    h = 5e-3
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    res, D, bound = [], [], []
    for _ in range(60):
        w_prev = model.w0.x.array.copy()
        r = integ.step()
        res.append(r.energy_residual)
        D.append(r.dissipation)
        e = effort_norm(model, w_prev, h, stress_rate=2e-3)
        scale = max(abs(model.ledger.H), abs(r.external_work))
        bound.append(newton_bound(SETTINGS, e, 1) + roundoff(scale, 1))
    assert np.all(np.abs(res) <= np.array(bound)), np.max(np.abs(res) / np.array(bound))
    assert np.all(np.array(D) >= 0.0)
    tot = model.ledger.totals
    assert tot["dissipated"] > 1e-2 * abs(tot["external_work"])


# ------------------------------------------------------------------ statics
@pytest.mark.parametrize("law", ["rft", "morison", "morison and added mass"])
def test_statics_cantilever_in_cross_flow(law):
    """Quasi-static cantilever in a uniform cross-flow u (no velocity in statics: the drag of
    the flow alone, a uniform load ``q = c_n u`` (RFT) or ``q = rho_f D C_dn u^2/2``
    (Morison)): the tip deflects ``q L^4/(8 EI) + q L^2/(2 k_s)`` (Timoshenko beam,
    shear term 2e-4 relative here). The deflection is ``1e-4 L``: the geometric
    nonlinearity (the load follows the rotated tangent) is of relative order
    ``(w/L)^2 ~ 1e-8`` (measured -9.4e-9 RFT, -1.9e-8 Morison, with the P2/DG1
    discretisation's error at n_e = 16). Asserted to 1e-7 relative; a flipped drag bends
    the rod upstream (relative error 2). An added mass (AddedMass) has no static part and
    changes nothing."""
    L, n_e = 1.0, 16
    sec = Section.circular(radius=0.01, E=1e9, rho=1000.0, nu=0.3)
    rod = Rod(sec, start=(0.0, 0.0, 0.0), end=(L, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=n_e)
    EI, ks = sec.k_b1, sec.k_s1
    w_target = 1e-4 * L
    q = w_target / (L ** 4 / (8 * EI) + L ** 2 / (2 * ks))       # load for that tip [N/m]
    if law == "rft":
        c_n = 0.5
        u = q / c_n
        ext = ResistiveForceDrag(c_t=0.2, c_n=c_n, flow=lambda t: (0.0, t * u, 0.0))
    else:
        rho_f, D, C_dn = 1000.0, 0.02, 1.2
        u = np.sqrt(q / (0.5 * rho_f * D * C_dn))
        ext = MorisonDrag(rho_f, D, C_dn, C_dt=0.5, buoyancy=False,
                          current=lambda t: (0.0, np.sqrt(t) * u, 0.0))
    exts = [ext, AddedMass(1000.0, 0.02, 1.0)] if law == "morison and added mass" else [ext]
    model = RodModel(rod, supports=[Clamp("0")], extensions=exts, quasistatic=True)
    sim = Simulation(Integrator(model, 0.5, SolverSettings(atol=1e-12)))
    sim.run(1.0)
    tip = sim.column("tip_2")[-1]
    assert tip / w_target - 1.0 == pytest.approx(0.0, abs=1e-7), tip / w_target - 1.0
    assert abs(sim.column("tip_3")[-1]) <= 1e-12


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("make, name", [
    (lambda: ResistiveForceDrag(-1.0, 1.0), "c_t"),
    (lambda: ResistiveForceDrag(1.0, float("nan")), "c_n"),
    (lambda: ResistiveForceDrag(1.0, 1.0, flow=(1.0, 2.0)), "flow"),
    (lambda: ResistiveForceDrag(1.0, 1.0, flow=lambda t: (0.0, np.inf, 0.0)), "flow"),
    (lambda: ResistiveForceDrag(1.0, 1.0, flow="up"), "flow"),
    (lambda: AmbientDamping(-0.1), "c_v"),
    (lambda: AmbientDamping(0.1, -1.0), "c_omega"),
    (lambda: MorisonDrag(-1000.0, 0.02, 1.2), "rho_f"),
    (lambda: MorisonDrag(1000.0, 0.0, 1.2), "diameter"),
    (lambda: MorisonDrag(1000.0, 0.02, -1.2), "C_dn"),
    (lambda: MorisonDrag(1000.0, 0.02, 1.2, C_dt=-0.1), "C_dt"),
    (lambda: MorisonDrag(1000.0, 0.02, 1.2, current=(0.0, 1.0)), "current"),
    (lambda: MorisonDrag(1000.0, 0.02, 1.2, g=(0.0, 0.0, 0.0, -9.81)), "g"),
    (lambda: MorisonDrag(1000.0, 0.02, 1.2, C_a=1.0), "C_a"),
    (lambda: AddedMass(-1000.0, 0.02), "rho_f"),
    (lambda: AddedMass(1000.0, -0.02), "diameter"),
    (lambda: AddedMass(1000.0, 0.02, C_a=float("inf")), "C_a"),
    (lambda: MorisonDrag(1000.0, 0.02, 1.2, v_reg=0.0), "v_reg"),
    (lambda: RayleighDamping(-0.1), "alpha"),
    (lambda: RayleighDamping(0.1, float("inf")), "beta"),
])
def test_bad_input_is_one_line(make, name):
    t0 = time.perf_counter()
    with pytest.raises(ParameterError) as exc:
        make()
    msg = str(exc.value)
    assert exc.value.name == name and "\n" not in msg and msg.startswith(f"invalid {name} ")
    assert time.perf_counter() - t0 < 0.1          # before any form is compiled


def test_flow_that_turns_non_finite_is_refused_at_its_step():
    """A flow finite at t = 0 but not later is refused (one line) at the step that meets it."""
    model = RodModel(straight_rod((1.0, 0.0, 0.0), N_EL), extensions=[ResistiveForceDrag(
        1.0, 1.0, flow=lambda t: (0.0, 0.0, 0.0) if t < 0.1 else (np.nan, 0.0, 0.0))])
    integ = Integrator(model, 0.1, SETTINGS)
    integ.step()
    with pytest.raises(ParameterError, match="invalid flow"):
        integ.step()


# ------------------------------------------------------------------ the guide's example
def test_guide_example_prints_the_closed_form_speed(tmp_path):
    """The example of docs/guide/fluids.md (run as printed, in a fresh interpreter) prints
    the sinking speed the text states, ``rhoA g/c_n`` to its 4 printed digits (the run is
    within (1 - a)^50/(1 + a)^50 ~ 1e-7 of it), and an energy residual at round-off."""
    import re
    import subprocess
    import sys

    from tests.conftest import ROOT

    page = (ROOT / "docs" / "guide" / "fluids.md").read_text()
    code = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S)
                if "sinking speed" in b)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600, check=True).stdout
    v, closed = (float(x) for x in re.search(r"sinking speed (\S+) m/s, closed form (\S+)",
                                             out).groups())
    stated = float(re.search(r"prints a sinking speed of (\S+) m/s", page)[1])
    rhoA = Section.circular(radius=1e-3, E=1e9, rho=2000.0, nu=0.3).rhoA
    assert v == stated == closed == round(rhoA * G / 0.1, 4)
    assert float(re.search(r"largest energy residual (\S+) J", out)[1]) <= 1e-15


def test_linearised_analyses_and_continuation_refuse_drag_in_one_line():
    """Drag and damping have no potential: modes, buckling, the PH export and the
    continuation refuse them naming the extension (never run with them left out); the PH
    export takes a Rayleigh damping into R (tests/test_mooring.py)."""
    from fxrod.analysis.continuation import Continuation
    from fxrod.analysis.modes import buckling, modes
    from fxrod.analysis.phmodel import Input, linear_ph

    for ext in (ResistiveForceDrag(1.0, 2.0, flow=(0.0, 0.0, 0.1)), AmbientDamping(0.5),
                RayleighDamping(0.5)):
        model = RodModel(straight_rod((1.0, 0.0, 0.0), N_EL),
                         [EndLoad("L", force=(0.0, 0.0, -1.0))],
                         [Clamp("0")], [ext], quasistatic=True)
        analyses = [(modes, (model, 2)), (buckling, (model,))]
        if not isinstance(ext, RayleighDamping):
            analyses.append((linear_ph, (model, [Input("tip", "force")])))
        for analysis, args in analyses:
            with pytest.raises(ParameterError, match=f"extensions = '{ext.name}'.*dissipate"):
                analysis(*args)
        with pytest.raises(ParameterError, match="dissipate"):
            Continuation(model)


def test_adjoint_gradient_through_drag():
    """The discrete adjoint differentiates the drag's UFL terms: Taylor remainders of the
    gradient of a tip objective with respect to the flow's end force history fall with
    order 2 on a cantilever in a cross-flow (RFT), with ambient damping and an added mass."""
    from fxrod.analysis.adjoint import Adjoint, InputHistory, TipTracking, taylor_remainders

    h, steps = 0.01, 5
    model = RodModel(straight_rod((1.0, 0.0, 0.0), N_EL), [EndLoad("L", force=(0.0, 0.0, -0.5))],
                     [Clamp("0")], [ResistiveForceDrag(0.5, 1.0, flow=(0.0, 0.2, 0.0)),
                                    AmbientDamping(0.1, name="ambient"),
                                    AddedMass(1000.0, 0.02, 1.0)])
    knots = (np.arange(steps) + 0.5) * h
    history = InputHistory("tip force", model.loads[0], knots)
    adj = Adjoint(Integrator(model, h, SETTINGS), steps * h,
                  TipTracking(lambda t: (1.0, 0.01, -0.01), weight=1e4), [history])
    d = np.random.default_rng(5).normal(size=history.get().size)
    r, orders = taylor_remainders(adj, d, [1e-1, 5e-2, 2.5e-2])
    assert np.all(r > 0) and np.all(np.abs(orders - 2.0) <= 0.1), (r, orders)
