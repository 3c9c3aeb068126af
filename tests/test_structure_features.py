"""Structures of several rods get what single rods have: obstacle contact with friction,
viscoelasticity, actuation (chambers, tendons, a curvature wave on one member), and Coulomb
friction between rods. Each test against an independent reference:

* ``test_frame_on_the_ground_carries_its_weight``: a flat L-frame of two members of
  different densities lies on frictional ground under gravity (one load step): the step's
  contact force (pressure and the friction of the frame's slip) sums to the frame's weight
  and its moment to the weight's moment, exact equilibrium to Newton's tolerance
  (:func:`tests.roundoff.newton_bound`) plus round-off;
* ``test_frame_drop_with_friction_keeps_the_energy_balance``: a tilted L-frame dropped on
  frictional ground: the discrete energy balance with the penalty's stored energy and the
  friction's dissipation closes every step to Newton's tolerance paired with the step's
  efforts (:func:`tests.roundoff.effort_norm`) plus round-off, the dissipation of every
  step is >= 0 and the frame did hit the ground and slide;
* ``test_kelvin_voigt_frame_creeps_to_the_linear_frame``: a quasi-static Kelvin-Voigt
  L-frame under a constant tip force: every load step is the implicit Euler creep
  ``w_el (1 - (1 + h/tau)^-n)`` of linear frame theory's tip drop ``w_el`` (bending of both
  members, the column's shortening, shear), to the geometric nonlinearity ``P (a+b)^2/EI``;
* ``test_kelvin_voigt_frame_swinging_keeps_the_energy_balance``: a Kelvin-Voigt L-frame
  swinging down under gravity: the balance with the dashpot's dissipation closes every step
  to Newton's tolerance paired with the efforts (the branch's rows with its stress), and
  the dissipation of every step is >= 0;
* ``test_tendon_on_one_leg_bends_it_into_the_arc``: a tendon on the free leg of a clamped
  L-frame (members of different sections): the leg takes the closed-form constant-strain
  arc (``fxrod.problems.soft_arm.static_strains``; nodal error of order 4 in the element length)
  while the other leg stays at its reference to round-off (the joint transmits nothing);
* ``test_curvature_wave_on_one_leg``: a standing intrinsic curvature on the free leg: the
  leg's tip turns by the closed-form integral of the curvature, the other leg stays
  straight to round-off;
* ``test_rods_pressed_and_pulled_slide_with_coulomb_friction``: a short rod lies on a
  clamped steel rod under gravity and is pulled along it with twice the friction limit:
  its momentum at the end is the pull's impulse less ``mu`` times the normal impulse (the
  normal impulse from its own vertical momentum and weight), to the tilt of the node-pair
  normals over ``mu``; the energy balance with the friction's dissipation closes every
  step (Newton's tolerance) and the dissipation of every step is >= 0;
* ``test_rod_friction_mpi_equals_serial``: the pulled rod of the previous test on 2 ranks
  (``mpirun -n 2``): the top rod's end and the ledger's work and dissipation equal the
  serial run's to the round-off of both runs (:func:`tests.roundoff.roundoff`);
* ``test_refusals``: the combinations that still cannot work raise a one-line
  ParameterError before any form is compiled.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import ufl
from dolfinx import fem

from fxrod.analysis.adjoint import Adjoint
from fxrod.analysis.continuation import Continuation
from fxrod.analysis.modes import modes
from fxrod.core.forms.actuation import Actuation, CurvatureWave, Tendon
from fxrod.core.forms.contact import Contact
from fxrod.core.forms.rodcontact import RodContact
from fxrod.core.forms.viscoelastic import GeneralizedMaxwell
from fxrod.core.joints import Rigid
from fxrod.core.loads import EndLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.obstacles import HalfSpace
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.problems.soft_arm import constant_strain_curve, static_strains, tendon_stretch
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import effort_norm, newton_bound, roundoff, skip_if_chain_refuses

G = 9.81
R = 0.01                                             # section radius [m]
LIGHT = Section.circular(R, 1e6, 1000.0, nu=0.4)     # rhoA = 0.314 kg/m
HEAVY = Section.circular(R, 2e6, 2500.0, nu=0.4)     # same radius, 2.5 times the density
K_GROUND = 1e5                                       # penalty stiffness [N/m^2]
SETTINGS = SolverSettings()


def _nodes(structure: Structure) -> int:
    """P2 nodes of a structure (2 n_e + 1 per member)."""
    return sum(2 * r.n_elements + 1 for r in structure.rods)


def _flat_frame(z: float, lift: float = 0.0) -> Structure:
    """An L-frame in the plane z: a light leg along x (0.5 m) welded to a heavy leg along
    y (0.3 m); ``lift`` raises the light leg's free end and the heavy leg's tip [m]."""
    a = Rod(LIGHT, start=(0, 0, z + lift), end=(0.5, 0, z), d1=(0, 1, 0), n_elements=4)
    b = Rod(HEAVY, start=(0.5, 0, z), end=(0.5, 0.3, z + 0.5 * lift), d1=(-1, 0, 0),
            n_elements=4)
    return Structure([a, b], [Rigid((0, "L"), (1, "0"))])


# ------------------------------------------------------------------ obstacle contact
def test_frame_on_the_ground_carries_its_weight():
    # laid 3e-11 m (4e-11 of its length, within the contact's overlap tolerance) into the
    # ground: the penalty has its stiffness from the first iterate on
    frame = _flat_frame(R - 3e-11)
    contact = Contact(HalfSpace(), stiffness=K_GROUND, friction=0.3)
    g = np.array([0.0, 0.0, -G])
    model = RodModel(frame, [Gravity(tuple(g))], extensions=[contact], quasistatic=True)
    skip_if_chain_refuses(model)
    w_start = model.w0.x.array.copy()
    Integrator(model, 1.0, SETTINGS).advance_to(1.0)
    # the step's contact line load: the normal pressure and the friction of the slip from
    # the start (the state at t_n put back; after the update the slip reads zero)
    model.w0.x.array[:] = w_start
    dx = contact.measure(model.ctx)
    q1 = ufl.split(model.w)[0]
    phi = ufl.as_vector([q1[i] for i in range(3)])
    f = contact.force
    value = lambda e: model.comm.allreduce(fem.assemble_scalar(fem.form(e * dx)))  # noqa: E731
    force = np.array([value(f[i]) for i in range(3)])
    weight = np.array([value(model.rhoA * g[i]) for i in range(3)])
    moment = np.array([value(ufl.cross(phi, f)[i] + model.rhoA * ufl.cross(phi, ufl.as_vector(
        g))[i]) for i in range(3)])
    friction = np.array([value(contact.f_t[i]) for i in range(3)])
    model.w0.x.array[:] = model.w.x.array
    W = G * (LIGHT.rhoA * 0.5 + HEAVY.rhoA * 0.3)
    assert abs(weight[2] + W) <= roundoff(W)
    # the residual's translation rows (|e|_2 = sqrt(nodes)) and rotation rows (|e|_2 <=
    # |q|_2: omega x phi, omega x d_i at every node)
    q = model.w0.x.array[model.field_dofs("q")]
    assert np.all(np.abs(force + weight) <= newton_bound(SETTINGS, math.sqrt(_nodes(frame)))
                  + roundoff(W))
    assert np.all(np.abs(moment) <= newton_bound(SETTINGS, np.linalg.norm(q))
                  + roundoff(W * 0.6))
    assert force[2] > 0.99 * W                          # pressed by the whole weight
    assert friction[2] == 0.0 and np.max(np.abs(friction)) < 1e-3 * W


def test_frame_drop_with_friction_keeps_the_energy_balance():
    frame = _flat_frame(R + 0.02, lift=0.02)
    contact = Contact(HalfSpace(), stiffness=K_GROUND, friction=0.3, v_reg=1e-2)
    model = RodModel(frame, [Gravity((0, 0, -G))], extensions=[contact])
    skip_if_chain_refuses(model)
    h = 5e-4
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    res, efforts, diss, gap = [], [], [], []
    for _ in range(300):
        w_prev = model.w0.x.array.copy()
        d0 = model.ledger.totals["dissipated"]
        res.append(integ.step().energy_residual)
        efforts.append(effort_norm(model, w_prev, h))
        diss.append(model.ledger.totals["dissipated"] - d0)
        gap.append(model.nodes.node_q(frame.coordinate(0, "L"))[2] - R)     # the corner
    work = model.ledger.totals["external_work"]
    assert min(gap) < 0.0                                        # it hit the ground
    assert np.min(diss) >= 0.0
    assert sum(diss) > 1e-3 * work                               # and slid on it
    assert np.all(np.abs(res) <= newton_bound(SETTINGS, np.array(efforts)) + roundoff(work))


# ------------------------------------------------------------------ viscoelasticity
def test_kelvin_voigt_frame_creeps_to_the_linear_frame():
    sec = Section.circular(radius=0.02, E=1e7, rho=1000.0, nu=0.3)
    a, b, P, tau, h = 1.0, 0.8, 1e-4, 0.1, 0.02
    column = Rod(sec, start=(0, 0, 0), end=(0, 0, a), d1=(1, 0, 0), n_elements=8)
    beam = Rod(sec, start=(0, 0, a), end=(b, 0, a), d1=(0, 1, 0), n_elements=8)
    frame = Structure([column, beam], [Rigid((0, "L"), (1, "0"))])
    model = RodModel(frame, [EndLoad("L", rod=1, force=(0.0, 0.0, -P))], [Clamp("0")],
                     extensions=[GeneralizedMaxwell.kelvin_voigt(tau)], quasistatic=True)
    skip_if_chain_refuses(model)
    integ = Integrator(model, h, SolverSettings(atol=1e-11, jacobian_lag=1))
    tip = frame.coordinate(1, "L")
    drop = []
    for _ in range(10):
        integ.step()
        drop.append(a - model.nodes.node_q(tip)[2])
    EI, EA, kGA = sec.k_b1, sec.k_e, sec.k_s1
    w_el = P * b**3 / (3 * EI) + P * b**2 * a / EI + P * a / EA + P * b / kGA
    n = np.arange(1, 11)
    creep = w_el * (1.0 - (1.0 + h / tau) ** -n)
    assert np.all(np.abs(np.array(drop) / creep - 1.0) <= P * (a + b) ** 2 / EI)
    assert drop[-1] > 0.8 * w_el                                   # it crept most of the way


def test_kelvin_voigt_frame_swinging_keeps_the_energy_balance():
    sec = Section.circular(radius=0.02, E=1e6, rho=1000.0, nu=0.3)
    column = Rod(sec, start=(0, 0, 0), end=(0, 0, 0.5), d1=(1, 0, 0), n_elements=4)
    beam = Rod(sec, start=(0, 0, 0.5), end=(0.4, 0, 0.5), d1=(0, 1, 0), n_elements=4)
    frame = Structure([column, beam], [Rigid((0, "L"), (1, "0"))])
    kv = GeneralizedMaxwell.kelvin_voigt(0.01)
    model = RodModel(frame, [Gravity((0, 0, -G))], [Clamp("0")], extensions=[kv])
    skip_if_chain_refuses(model)
    h = 2e-3
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    rod_dofs = [model.field_dofs(n) for n in ("q", "sigma", "lambda")]
    branch = model.field_dofs("maxwell.sigma_1")
    res, efforts, diss = [], [], []
    for _ in range(50):
        w_prev = model.w0.x.array.copy()
        d0 = model.ledger.totals["dissipated"]
        res.append(integ.step().energy_residual)
        w = model.w0.x.array
        q, sg, lam = rod_dofs
        # the efforts (v_m, sigma_m, -lambda) of the rod's rows and the branch's midpoint
        # stress (a rigid branch stores it) of its rows
        efforts.append(math.sqrt(np.sum(((w[q] - w_prev[q]) / h) ** 2)
                                 + np.sum((0.5 * (w[sg] + w_prev[sg])) ** 2)
                                 + np.sum(w[lam] ** 2) + np.sum(w[branch] ** 2)))
        diss.append(model.ledger.totals["dissipated"] - d0)
    work = model.ledger.totals["external_work"]
    assert np.all(np.abs(res) <= newton_bound(SETTINGS, np.array(efforts)) + roundoff(work))
    assert np.min(diss) >= 0.0 and sum(diss) > 0.01 * work


# ------------------------------------------------------------------ actuation
def _clamped_l_frame(n: int, extension) -> tuple[RodModel, Structure]:
    """A stiff column (0.3 m, radius 15 mm) clamped at its base, welded to a softer leg
    (0.2 m along x, radius 10 mm, d1 = e3); quasi-static, four load steps."""
    col = Rod(Section.circular(0.015, 5e6, 1100.0, nu=0.45), start=(0, 0, 0), end=(0, 0, 0.3),
              d1=(1, 0, 0), n_elements=n)
    leg = Rod(LEG, start=(0, 0, 0.3), end=(0.2, 0, 0.3), d1=(0, 0, 1), n_elements=n)
    frame = Structure([col, leg], [Rigid((0, "L"), (1, "0"))])
    model = RodModel(frame, supports=[Clamp("0")], extensions=[extension], quasistatic=True)
    skip_if_chain_refuses(model)
    Integrator(model, 0.25, SETTINGS).advance_to(1.0)
    return model, frame


LEG = Section.circular(0.01, 1e6, 1100.0, nu=0.45)
#: the leg's reference frame (d1, d2, d3 as columns)
LEG_FRAME = np.column_stack([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])


def _legs(model: RodModel, frame: Structure):
    """Mesh coordinates of the nodes, their member and arc length, and their q (12,)."""
    x = np.unique(model.space.Q.tabulate_dof_coordinates()[:, 0])
    k, s = frame.locate(x)
    q = np.array([model.nodes.node_q(xi) for xi in x])
    return k, s, q


def test_tendon_on_one_leg_bends_it_into_the_arc():
    T, rho = 2.0, 0.006
    Gam, Kap = static_strains(LEG, [T], [(rho, 0.0)])
    assert tendon_stretch(LEG, Gam, Kap, (rho, 0.0)) > 0.0
    err = {}
    for n in (4, 8):
        act = Actuation([Tendon((rho, 0.0), lambda t: t * T, rod=1)])
        model, frame = _clamped_l_frame(n, act)
        k, s, q = _legs(model, frame)
        phi, Rx = constant_strain_curve(Gam, Kap, s[k == 1], (0.0, 0.0, 0.3), LEG_FRAME)
        err[n] = float(np.max(np.linalg.norm(q[k == 1, :3] - phi, axis=1)))
        d = q[k == 1, 3:].reshape(-1, 3, 3).transpose(0, 2, 1)
        assert np.max(np.abs(d - Rx)) <= 10 * err[n] / 0.2
        ref = frame.initial_configuration(frame.offsets[0] + s[k == 0])
        assert np.max(np.abs(q[k == 0] - ref)) <= roundoff(1.0, 4)
    assert Kap[1] * 0.2 > 0.3                                       # a visible arc (rad)
    assert abs(np.log2(err[4] / err[8]) - 4.0) <= 0.2, err          # order 4
    assert err[8] <= 1e-8


def test_curvature_wave_on_one_leg():
    A, lam, phase = 4.0, 0.5, 0.3
    wave = CurvatureWave(A, lam, axis=2, phase=phase, ramp=1.0, rod=1)
    model, frame = _clamped_l_frame(8, wave)
    k, s, q = _legs(model, frame)
    ref = frame.initial_configuration(frame.offsets[0] + s[k == 0])
    assert np.max(np.abs(q[k == 0] - ref)) <= roundoff(1.0, 4)
    # the free leg's curvature K_2 = kappa_0 (no moment): its d3 turns in the (d1, d3) plane
    # by int_0^L kappa_0 ds
    kw = 2 * math.pi / lam
    turn = A / kw * (math.cos(phase) - math.cos(kw * 0.2 + phase))
    d3 = q[(k == 1) & np.isclose(s, 0.2), 9:12][0]
    angle = math.atan2(d3[2], d3[0])           # d3 turns from e1 towards d1 = e3
    assert abs(angle - turn) <= 1e-4 * abs(turn), (angle, turn)


# ------------------------------------------------------------------ rod-rod friction
RC, MU = 0.02, 0.3                                   # contact radius [m], friction [-]
TOP = Section.circular(0.01, 1e7, 1000.0, nu=0.3)


def _pressed_and_pulled() -> tuple[RodModel, RodContact, Structure, float, float]:
    """A short rod (0.125 m, 4 elements) lying on a clamped-clamped steel rod (1 m, 32
    elements, its nodes under the short rod's), pressed by its weight W and pulled along the
    base at its end with F = 2 mu W: ``(model, contact, rods, W [N], F [N])``."""
    base = Rod(Section.circular(0.01, 2e11, 7800.0, nu=0.3), start=(0, 0, 0), end=(1, 0, 0),
               d1=(0, 1, 0), n_elements=32)
    top = Rod(TOP, start=(0.25, 0, 2 * RC), end=(0.375, 0, 2 * RC), d1=(0, 1, 0),
              n_elements=4)
    W = TOP.rhoA * 0.125 * G
    F = 2.0 * MU * W                                 # twice the friction limit
    contact = RodContact(radius=RC, stiffness=1e4, friction=MU)
    rods = Structure([base, top])
    model = RodModel(rods, [Gravity((0, 0, -G)), EndLoad("L", rod=1, force=(F, 0, 0))],
                     [Clamp("0", rod=0), Clamp("L", rod=0)], extensions=[contact])
    return model, contact, rods, W, F


def test_rods_pressed_and_pulled_slide_with_coulomb_friction():
    rc, mu, sec, h, steps = RC, MU, TOP, 1e-4, 80
    model, contact, rods, W, F = _pressed_and_pulled()
    skip_if_chain_refuses(model)
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    res, efforts, diss = [], [], []
    for _ in range(steps):
        w_prev = model.w0.x.array.copy()
        d0 = model.ledger.totals["dissipated"]
        res.append(integ.step().energy_residual)
        efforts.append(effort_norm(model, w_prev, h))
        diss.append(model.ledger.totals["dissipated"] - d0)
    x = ufl.SpatialCoordinate(model.mesh)[0]
    on_top = ufl.conditional(ufl.ge(x, rods.offsets[1]), 1.0, 0.0)
    p = np.array([fem.assemble_scalar(fem.form(on_top * model.rhoA * model.v0[i]
                                                 * model.ctx.dx)) for i in range(3)])
    T = steps * h
    normal = W * T + p[2]                            # the normal impulse on the top rod
    slide = max(model.nodes.node_q(rods.offsets[1] + s)[0] - 0.25 - s
                for s in np.linspace(0.0, 0.125, 9))          # at the top rod's P2 nodes
    # the pairs' normals tilt by up to slide/(2 rc): their x-part against mu; the
    # regularised law lags behind mu p while the sliding speed a t is below ~eps:
    # int_0^T (1 - a t/sqrt((a t)^2 + eps^2)) dt < eps/a, relative eps/(a T)
    tilt = slide / (2 * rc) / mu
    lag = contact.v_reg / ((F - mu * W) / (sec.rhoA * 0.125) * T)
    assert 0.0 < tilt < 0.05
    assert abs((F * T - p[0]) / (mu * normal) - 1.0) <= tilt + lag
    work = model.ledger.totals["external_work"]
    assert np.all(np.abs(res) <= newton_bound(SETTINGS, np.array(efforts)) + roundoff(work))
    assert np.min(diss) >= 0.0 and sum(diss) > 0.01 * work


@pytest.mark.mpi
def test_rod_friction_mpi_equals_serial():
    from tests.conftest import run_mpi

    steps, h = 40, 1e-4
    code = ("from tests.test_structure_features import _pressed_and_pulled, SETTINGS\n"
            "from fxrod.runs.integrators import Integrator\n"
            "model, contact, rods, W, F = _pressed_and_pulled()\n"
            f"integ = Integrator(model, {h}, SETTINGS)\n"
            "model.ledger.current()\n"
            f"for _ in range({steps}): integ.step()\n"
            "q = model.nodes.node_q(rods.coordinate(1, 'L'))\n"
            "t = model.ledger.totals\n"
            "out = [*q, t['external_work'], t['dissipated']]\n"
            "if model.comm.rank == 0: print('OUT', *[repr(float(v)) for v in out])\n")
    out = run_mpi(["-c", code]).stdout
    mpi = np.array([float(v) for v in out.split("OUT", 1)[1].split()[:14]])
    model, contact, rods, W, F = _pressed_and_pulled()
    integ = Integrator(model, h, SETTINGS)
    model.ledger.current()
    for _ in range(steps):
        integ.step()
    t = model.ledger.totals
    serial = np.array([*model.nodes.node_q(rods.coordinate(1, "L")), t["external_work"],
                       t["dissipated"]])
    assert t["dissipated"] > 0.0
    # each run's round-off over its steps (scales: the directors, positions < 1 m; the
    # energies of the external work)
    scale = np.r_[np.ones(12), t["external_work"], t["external_work"]]
    assert np.all(np.abs(mpi - serial) <= roundoff(scale, 2 * steps)), mpi - serial


# ------------------------------------------------------------------ refusals
def test_refusals():
    frame = _flat_frame(R + 0.01)
    uniform = Structure([Rod(LIGHT, start=(0, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0),
                             n_elements=2),
                         Rod(LIGHT, start=(0.5, 0, 0), end=(0.5, 0.5, 0), d1=(0, 0, 1),
                             n_elements=2)], [Rigid((0, "L"), (1, "0"))])
    cases = [
        (frame, [GeneralizedMaxwell.kelvin_voigt(0.1)], "one Section and one constraint set"),
        (frame, [Actuation([Tendon((0.005, 0.0), 1.0)])], "the index of the member"),
        (frame, [Actuation([Tendon((0.005, 0.0), 1.0, rod=2)])], "< 2 (the rods)"),
        (frame, [CurvatureWave(1.0, 0.5)], "the index of the member it runs"),
        (frame, [Contact(HalfSpace(), 1e5, radius=lambda s: 0 * s + R)],
         "a float on a structure"),
    ]
    # each member touches at its own section's contact radius: the heavy leg's 25 mm
    # overlap the ground 20 mm below the frame's centreline
    fat = Section.circular(R, 2e6, 2500.0, nu=0.4, contact_radius=0.025)
    frame_fat = Structure([frame.rods[0], Rod(fat, start=(0.5, 0, R + 0.01),
                                              end=(0.5, 0.3, R + 0.01), d1=(-1, 0, 0),
                                              n_elements=4)], frame.joints)
    cases.append((frame_fat, [Contact(HalfSpace(), 1e5)], "gap at rod 1, s = "))
    for st, ext, match in cases:
        with pytest.raises(ParameterError, match=re.escape(match)):
            RodModel(st, extensions=ext)
    # rod-rod friction is a dissipative port: the linearised analyses and the continuation
    model = RodModel(uniform, supports=[Clamp("0")],
                     extensions=[RodContact(0.01, 1e4, friction=0.2)], quasistatic=True)
    with pytest.raises(ParameterError, match="none that dissipate"):
        modes(model, 2)
    with pytest.raises(ParameterError, match="none that dissipate"):
        Continuation(model)
    # and the adjoint, which differentiates in the state at t_n by swapping w and w0: the
    # sliding velocity (d_1 - d_0)/h would be differentiated wrongly
    pulled = _pressed_and_pulled()[0]
    with pytest.raises(ParameterError, match="0 in the adjoint"):
        Adjoint(Integrator(pulled, 1e-4), 1e-3, None, [])
