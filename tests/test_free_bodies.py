"""Free rigid bodies (fxrod.core.freebody) against closed forms.

* torque-free asymmetric body over 10^4 steps: the discrete energy and angular momentum are
  conserved by the midpoint step (the inertia rows give ``T_{n+1} - T_n``; the rows tested
  with a rotation of the midpoint configuration give ``a . (L_{n+1} - L_n)``), so they drift
  only by the accepted Newton residuals and round-off (tests/roundoff.py);
* torque-free axisymmetric body: the symmetry axis precesses about L at
  ``Omega_p = |L| / I1`` and, in the body frame, the transverse angular velocity turns at
  ``Omega_b = (I3 - I1)/I1 omega_3`` (Euler's equations);
* heavy symmetric top on a fixed point: steady precession at the slow root of
  ``m g l = Omega (I3 omega_3 - I1' Omega cos theta)``.
* the body probe (``body_1..3``, ``body_v_1..3``, ``body_L_1..3``): centre at ``c + v t``,
  angular momentum about the centre ``J omega`` constant (round-off and Newton models);
* a body hanging from an elastic rod: bouncing at ``beta c/L``, ``beta tan beta = rho A L/M``
  (Rayleigh: ``sqrt(k/(M + rho A L/3))``), and swinging inside the bracket of the
  extensible string and the rigid rotation of the stretched rod (the rod's compliance).

Tolerance of the rates (the midpoint rule's O(h^2) error): for a uniform rotation at rate
``Omega`` the midpoint rule is the Cayley map, whose angle per step is ``2 arctan(Omega h/2)``:
a relative rate error ``(Omega h)^2 / 12 + O(h^4)``. The motions here compose two rotations
(the precession and the spin relative to it), so their rates are bounded by that error of the
fastest rotation ``Omega_max = |Omega_p| + |psi_dot|`` (the sum of both rates); the order 2
itself is checked by halving h (error ratio 4 within 1/8).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fxrod.core.freebody import FreeBody
from fxrod.core.joints import Rigid, Spherical
from fxrod.core.loads import DistributedLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp, Pin
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import effort_norm, newton_bound, roundoff, skip_if_chain_refuses

TIGHT = SolverSettings(atol=1e-12, jacobian_lag=1)


def _node(model, x: float) -> tuple[np.ndarray, np.ndarray]:
    """``(q, v)`` (12,) at t_n of the node at mesh coordinate x."""
    s = model.space.Q.tabulate_dof_coordinates()[:, 0]
    i = int(np.argmin(np.abs(s - x)))
    return (model.w0.x.array[model.space.q_map].reshape(-1, 12)[i].copy(),
            model.v0.x.array.reshape(-1, 12)[i].copy())


def _mass_matrix(body: FreeBody, q_ref: np.ndarray) -> np.ndarray:
    """The body's 4 x 4 nodal mass matrix at its centre node, from its data (theory §2.7):
    ``diag(m, E)`` with ``E = tr(J)/2 I - J`` in the node's reference directors."""
    R = q_ref[3:].reshape(3, 3).T
    Jn = R.T @ body.inertia @ R
    M = np.zeros((4, 4))
    M[0, 0], M[1:, 1:] = body.mass, 0.5 * np.trace(Jn) * np.eye(3) - Jn
    return M


def _energy_momentum(M, q, v) -> tuple[float, np.ndarray]:
    """``T = 1/2 M_ab V_a . V_b`` and ``L = M_ab X_a x V_b`` of the node state."""
    X, V = q.reshape(4, 3), v.reshape(4, 3)
    T = 0.5 * float(np.einsum("ab,ai,bi->", M, V, V))
    L = sum(M[a, b] * np.cross(X[a], V[b]) for a in range(4) for b in range(4))
    return T, L


def _omega(q, v) -> np.ndarray:
    d, vd = q[3:].reshape(3, 3), v[3:].reshape(3, 3)
    return 0.5 * sum(np.cross(d[k], vd[k]) for k in range(3))


def _rate(angles, T: float) -> float:
    a = np.unwrap(np.asarray(angles))
    return float((a[-1] - a[0]) / T)


# ------------------------------------------------------------------ 1. conservation
def test_torque_free_asymmetric_body_conserves_energy_and_momentum():
    """An asymmetric body (J = 1, 2, 2.5 kg m^2, tumbling about all three axes) flies free:
    energy and angular momentum about the origin conserved to the Newton tolerance plus
    round-off over every step, orthonormal directors likewise, and the initial momenta are
    the closed forms ``m v`` and ``J omega + m c x v``."""
    J = np.array([1.0, 2.0, 2.5])
    D = np.array([[np.cos(0.3), np.sin(0.3), 0.0], [-np.sin(0.3), np.cos(0.3), 0.0],
                  [0.0, 0.0, 1.0]])
    om, c, vc = np.array([0.3, 1.0, 0.2]), np.array([0.1, 0.2, 0.3]), np.array([0.1, 0, 0])
    body = FreeBody(2.0, J, c, directors=D, velocity=vc, angular_velocity=om)
    steps = 10_000                                          # 25 s here
    model = RodModel(Structure([], bodies=[body]))
    skip_if_chain_refuses(model)
    h = 0.01
    it = Integrator(model, h, TIGHT)
    x0 = model.structure.coordinate(0, "0")
    q, v = _node(model, x0)
    M = _mass_matrix(body, q)
    T0, L0 = _energy_momentum(M, q, v)
    Jsp = D.T @ np.diag(J) @ D
    assert np.allclose(L0, Jsp @ om + 2.0 * np.cross(c, vc), rtol=0, atol=roundoff(3.0))
    assert abs(T0 - 0.5 * (2.0 * vc @ vc + om @ Jsp @ om)) <= roundoff(T0)
    w_l = 1.0 / 6.0 * np.linalg.norm(body.anchor - body.centre)   # GLL weight of the node
    dT = dL = dg = 0.0
    effort = 0.0
    for n in range(1, steps + 1):
        w_prev = model.w0.x.array.copy()
        it.step()
        effort += effort_norm(model, w_prev, h)
        q, v = _node(model, x0)
        T, L = _energy_momentum(M, q, v)
        d = q[3:].reshape(3, 3)
        # the energy balance of step k is F . e_k: atol sum_k |e_k|_2 over the steps
        dT = max(dT, abs(T - T0) - newton_bound(TIGHT, effort) - roundoff(T0, n))
        # L along each axis: the rows tested with a x q_m, |a x q_m|_2 <= sqrt(|phi|^2 + 3)
        e_L = np.sqrt(q[:3] @ q[:3] + 3.0)
        dL = max(dL, np.max(np.abs(L - L0)) - newton_bound(TIGHT, e_L, n)
                 - roundoff(np.linalg.norm(L0), n))
        # d_i . d_j: the constraint rows are w_l Delta g_ij (g = (d_i . d_j - delta_ij)/2)
        dg = max(dg, np.max(np.abs(d @ d.T - np.eye(3)))
                 - newton_bound(TIGHT, 2.0 / w_l, n) - roundoff(1.0, n))
    assert dT <= 0.0 and dL <= 0.0 and dg <= 0.0, (dT, dL, dg)
    assert abs(_energy_momentum(M, q, v)[0] - T0) < 1e-6 * T0
    assert np.linalg.norm(_omega(q, v) - om) > 0.1        # it really tumbled
    print(f"free body {steps} steps: |T - T0|/T0 = {abs(T - T0) / T0:.2e}, "
          f"|L - L0| = {np.max(np.abs(L - L0)):.2e}, |D D^T - I| = "
          f"{np.max(np.abs(d @ d.T - np.eye(3))):.2e}")


# ------------------------------------------------------------------ 2. precession
def _axisymmetric_rates(h: float, t_end: float) -> tuple[float, float]:
    I1, I3 = 1.0, 1.6
    om = np.array([0.4, 0.0, 2.0])
    body = FreeBody(1.0, (I1, I1, I3), (0, 0, 0), angular_velocity=om)
    model = RodModel(Structure([], bodies=[body]))
    skip_if_chain_refuses(model)
    it = Integrator(model, h, TIGHT)
    N = int(round(t_end / h))
    L = np.array([I1 * om[0], 0.0, I3 * om[2]])
    e1 = np.cross(L, [0.0, 1.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(L / np.linalg.norm(L), e1)
    axis, body_angle = [], []
    for n in range(N + 1):
        q, v = _node(model, 0.0)
        d, w = q[3:].reshape(3, 3), _omega(q, v)
        axis.append(np.arctan2(d[2] @ e2, d[2] @ e1))
        body_angle.append(np.arctan2(w @ d[1], w @ d[0]))
        if n < N:
            it.step()
    return _rate(axis, N * h), _rate(body_angle, N * h)


def test_axisymmetric_body_precession_rates():
    """Torque-free axisymmetric body (I1 = I2 = 1, I3 = 1.6 kg m^2, omega = (0.4, 0, 2)
    rad/s): the axis precesses at ``|L|/I1``, the body-frame angular velocity turns at
    ``(I3 - I1)/I1 omega_3``; both within the midpoint rule's ``(Omega_max h)^2/12`` and
    of order 2 in h."""
    I1, I3, om = 1.0, 1.6, np.array([0.4, 0.0, 2.0])
    Op = np.linalg.norm([I1 * om[0], 0.0, I3 * om[2]]) / I1
    Ob = (I3 - I1) / I1 * om[2]
    Omax = Op + abs(Ob)                       # psi_dot = -Omega_b
    errs = []
    for h in (0.02, 0.01):
        p, b = _axisymmetric_rates(h, 20.0)
        errs.append((abs(p / Op - 1.0), abs(b / Ob - 1.0)))
        tol = (Omax * h) ** 2 / 12.0
        print(f"h = {h}: Omega_p {p:.10f} vs {Op:.10f} (rel {p / Op - 1:.3e}), "
              f"Omega_b {b:.10f} vs {Ob:.10f} (rel {b / Ob - 1:.3e}), tol {tol:.2e}")
        assert errs[-1][0] <= tol and errs[-1][1] <= tol
    for k in range(2):
        assert abs(errs[0][k] / errs[1][k] - 4.0) <= 0.5


# ------------------------------------------------------------------ 3. heavy top
def _top_rate(h: float, t_end: float) -> tuple[float, float, float, float]:
    m, ell, I1c, I3, g = 1.0, 0.1, 0.01, 0.015, 9.81
    th, om3 = np.pi / 6.0, 50.0
    I1 = I1c + m * ell**2                     # about the fixed point
    a, b, c = I1 * np.cos(th), -I3 * om3, m * g * ell
    Om = (-b - np.sqrt(b * b - 4.0 * a * c)) / (2.0 * a)          # the slow precession
    d3 = np.array([np.sin(th), 0.0, np.cos(th)])
    D = np.array([[np.cos(th), 0.0, -np.sin(th)], [0.0, 1.0, 0.0], d3])
    w = Om * np.array([0.0, 0.0, 1.0]) + (om3 - Om * np.cos(th)) * d3
    body = FreeBody(m, (I1c, I1c, I3), ell * d3, directors=D, velocity=np.cross(w, ell * d3),
                    angular_velocity=w, anchor=(0.0, 0.0, 0.0))
    model = RodModel(Structure([], bodies=[body]), loads=[Gravity((0.0, 0.0, -g))],
                     supports=[Pin("L", rod=0)])
    skip_if_chain_refuses(model)
    it = Integrator(model, h, TIGHT)
    N = int(round(t_end / h))
    ang, pivot = [], 0.0
    for n in range(N + 1):
        q, _ = _node(model, 0.0)
        # the node's d3 (the carrier's) points from the centre to the anchor: -d3 of the top
        ang.append(np.arctan2(-q[10], -q[9]))                 # the axis about the vertical
        pivot = max(pivot, np.linalg.norm(q[:3] + ell * q[9:12]))
        if n < N:
            it.step()
    return _rate(ang, N * h), Om, om3 - Om * np.cos(th) + Om, pivot


def test_heavy_symmetric_top_steady_precession():
    """A heavy symmetric top on a fixed point (its anchor pinned, gravity on its centre;
    m = 1 kg, l = 0.1 m, I1c = 0.01, I3 = 0.015 kg m^2, 30 degrees from the vertical,
    omega_3 = 50 rad/s) set in steady precession precesses at the slow root of
    ``m g l = Omega (I3 omega_3 - I1' Omega cos theta)`` (1.3510 rad/s; the fast-top
    estimate ``m g l/(I3 omega_3)`` is 1.308) within the midpoint rule's error, order 2; the
    fixed point stays put."""
    errs = []
    for h in (0.004, 0.002):
        rate, Om, Omax, pivot = _top_rate(h, 4.6)
        tol = (Omax * h) ** 2 / 12.0
        errs.append(abs(rate / Om - 1.0))
        print(f"h = {h}: precession {rate:.8f} vs {Om:.8f} (rel {rate / Om - 1:.3e}), "
              f"tol {tol:.2e}, pivot drift {pivot:.1e} m")
        assert errs[-1] <= tol
        assert pivot <= 1e-9
    assert abs(errs[0] / errs[1] - 4.0) <= 0.5


# ------------------------------------------------------------------ joined to a rod
def test_body_joined_to_a_rod_conserves():
    """A free body joined by a ball joint to the end of a free elastic rod, all pushed by
    an initial spin of the body: energy of the whole (ledger) constant to the Newton
    tolerance over 100 steps and the body's node stays on the rod's end."""
    sec = Section.circular(radius=0.01, E=1e7, rho=1000.0, nu=0.3)
    rod = Rod(sec, start=(0, 0, 0), end=(0.5, 0, 0), d1=(0, 0, 1), n_elements=4)
    body = FreeBody.sphere(0.05, 1000.0, (0.5, 0, 0), angular_velocity=(0, 0, 5.0),
                           velocity=(0, 0.1, 0))
    st = Structure([rod], [Spherical((0, "L"), (1, "0"))], bodies=[body])
    model = RodModel(st)
    skip_if_chain_refuses(model)
    from fxrod.runs.simulation import Simulation

    sim = Simulation(Integrator(model, 0.002, TIGHT))
    sim.run(0.2)
    H = sim.column("H")
    assert np.max(np.abs(sim.column("energy_residual"))) <= 1e-9 * H.max()
    assert np.ptp(H) <= 1e-9 * H.max()
    qa, _ = _node(model, st.coordinate(0, "L"))
    qb, _ = _node(model, st.coordinate(1, "0"))
    assert np.max(np.abs(qa[:3] - qb[:3])) <= roundoff(1.0)
    assert sim.column("strain_energy")[-1] > 0.0          # the rod was bent by the body


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("kwargs, name", [
    (dict(mass=0.0, inertia=(1, 1, 1), centre=(0, 0, 0)), "mass"),
    (dict(mass=1.0, inertia=(1, 1, 0), centre=(0, 0, 0)), "inertia"),
    (dict(mass=1.0, inertia=(1, 1, 3), centre=(0, 0, 0)), "inertia"),
    (dict(mass=1.0, inertia=[[1, 2, 0], [2, 1, 0], [0, 0, 1]], centre=(0, 0, 0)), "inertia"),
    (dict(mass=1.0, inertia=(1, 1, 1), centre=(0, 0)), "centre"),
    (dict(mass=1.0, inertia=(1, 1, 1), centre=(0, 0, 0), directors=np.ones((3, 3))),
     "directors"),
])
def test_bad_body_input_one_line(kwargs, name):
    with pytest.raises(ParameterError) as e:
        FreeBody(**kwargs)
    assert e.value.name == name and "\n" not in str(e.value)


def test_refused_analyses_and_backends():
    """The chain solver and the analyses not verified with bodies in contact refuse in one
    line (the rest is verified: modes and statics below, checkpoints and MPI in
    tests/test_capability_adjoint_restart.py)."""
    from fxrod.analysis.modes import modes
    from fxrod.core.forms.bodycontact import BodyContact
    from fxrod.core.obstacles import HalfSpace

    model = RodModel(Structure([], bodies=[FreeBody.sphere(0.1, 1000.0, (0, 0, 0))]))
    with pytest.raises(ParameterError, match="chain"):
        Integrator(model, 0.01, SolverSettings(linear_solver="chain"))
    ball = Structure([], bodies=[FreeBody.sphere(0.1, 1000.0, (0, 0, 0.1), contact=True)])
    for quasistatic in (False, True):
        with pytest.raises(ParameterError, match="bodies in contact are verified in "
                           "dynamics only") as e:
            modes(RodModel(ball, extensions=[BodyContact(HalfSpace(), 1e5)],
                           quasistatic=quasistatic), 6)
        assert "\n" not in str(e.value)


def test_refusals_before_any_form():
    body = FreeBody.box(0.1, 0.2, 0.3, 1000.0, (0, 0, 0))
    with pytest.raises(ParameterError) as e:               # a joint to a node that is not
        Structure([], [Spherical((0, "L"), (3, "0"))], bodies=[body])
    assert "joint node b rod index" in str(e.value)
    other = FreeBody.box(0.1, 0.2, 0.3, 1000.0, (0, 0, -2 * body.anchor[2]), anchor=body.anchor)
    with pytest.raises(ParameterError, match="anchor joined to another anchor") as e:
        RodModel(Structure([], [Spherical((0, "L"), (1, "L"))], bodies=[body, other]))
    assert "\n" not in str(e.value)
    with pytest.raises(ParameterError, match="loads"):
        RodModel(Structure([], bodies=[body]), loads=[DistributedLoad(force=(0, 0, 1))])
    with pytest.raises(ParameterError, match="bodies"):
        Structure([], bodies=["ball"])


def _tendon_leg(body: bool) -> tuple[RodModel, np.ndarray]:
    """A soft leg (0.2 m along x, radius 10 mm, d1 = e3) clamped at its base, bent by a
    tendon (2 N at 6 mm off its axis), quasi-static in four load steps; with ``body`` a free
    sphere 1 m away, clamped at its centre, in the same model. Returns the model and the
    leg's nodal q (P2 nodes in arc-length order, (9, 12))."""
    from fxrod.core.forms.actuation import Actuation, Tendon

    leg = Rod(Section.circular(0.01, 1e6, 1100.0, nu=0.45), start=(0, 0, 0), end=(0.2, 0, 0),
              d1=(0, 0, 1), n_elements=4)
    bodies = [FreeBody.sphere(0.05, 1000.0, (1.2, 0.0, 0.0))] if body else []
    st = Structure([leg], bodies=bodies)
    supports = [Clamp("0", rod=0)] + ([Clamp("0", rod=st.body_rod(0))] if body else [])
    act = Actuation([Tendon((0.006, 0.0), lambda t: 2.0 * t, rod=0)])
    model = RodModel(st, supports=supports, extensions=[act], quasistatic=True)
    skip_if_chain_refuses(model)
    Integrator(model, 0.25, TIGHT).advance_to(1.0)
    q = np.array([model.nodes.node_q(st.coordinate(0, "0") + s)
                  for s in np.linspace(0.0, 0.2, 9)])
    return model, q


def test_tendon_on_a_rod_beside_a_free_body():
    """Actuators act on the rods proper of a model with free bodies: a tendon bends a
    clamped leg as it does without the (clamped, 1 m away) body in the model, to the
    round-off of the four load steps (the leg's and the body's unknowns are uncoupled; the
    tendon's arc itself against its closed form: tests/test_structure_features.py), and the
    body stays where it is. A tendon on a body's carrier is refused in one line."""
    from fxrod.core.forms.actuation import Actuation, Tendon

    model, q = _tendon_leg(body=True)
    _, q_alone = _tendon_leg(body=False)
    assert np.max(np.abs(q[-1, :3] - q[0, :3] - (0.2, 0, 0))) > 0.01    # a visible bend
    assert np.max(np.abs(q - q_alone)) <= roundoff(1.0, 4)
    centre = model.nodes.node_q(model.structure.coordinate(1, "0"))
    assert np.array_equal(centre[:3], (1.2, 0.0, 0.0))
    st = Structure([Rod(Section.circular(0.01, 1e6, 1100.0, nu=0.45), start=(0, 0, 0),
                        end=(0.2, 0, 0), d1=(0, 0, 1), n_elements=2)],
                   bodies=[FreeBody.sphere(0.05, 1000.0, (1.2, 0.0, 0.0))])
    with pytest.raises(ParameterError, match=r"tendon 'actuator 1': rod = 1: must be < 1 "
                                             r"\(the rods proper; 1.. carry the free "
                                             r"bodies\)") as e:
        RodModel(st, extensions=[Actuation([Tendon((0.006, 0.0), 1.0, rod=1)])])
    assert "\n" not in str(e.value)


def test_primitives():
    s = FreeBody.sphere(0.1, 1000.0, (0, 0, 0))
    assert np.isclose(s.mass, 4.0 / 3.0 * np.pi * 1e-3 * 1000.0, rtol=1e-15)
    assert np.allclose(s.inertia, 0.4 * s.mass * 0.01 * np.eye(3), rtol=1e-15)
    c = FreeBody.cylinder(0.1, 0.5, 1000.0, (0, 0, 0))
    assert np.allclose(np.diag(c.inertia), c.mass * np.array(
        [(0.03 + 0.25) / 12, (0.03 + 0.25) / 12, 0.005]), rtol=1e-14)
    b = FreeBody.box(0.1, 0.2, 0.3, 1000.0, (0, 0, 0))
    assert np.allclose(np.diag(b.inertia), b.mass / 12 * np.array([0.13, 0.1, 0.05]),
                       rtol=1e-14)


# ------------------------------------------------------------------ body probe
def test_body_probe_records_centre_velocity_and_conserved_momentum():
    """The default probes of a model with a free body record its centre ``body_1..3``, its
    velocity ``body_v_1..3`` and its angular momentum about the centre ``body_L_1..3``: for
    a torque-free tumbling body the centre moves at the initial velocity, ``c + v t``, and
    ``L_c`` stays ``J omega`` of the initial state, both to the Newton tolerance plus
    round-off (``L_c = L_O - x x p``: the bound of ``L_O`` of the node (rows tested with
    ``a x q``, ``|a x q|_2 <= sqrt(|phi|^2 + 3)``), of ``p`` (rows tested with a
    translation, ``|e|_2 = 1``) times ``|x|``, and of ``x`` times ``|p|``; ``x_n - c - v t_n
    = h sum_k (v_k - v)`` with ``|v_k - v| <= k atol / m``)."""
    from fxrod.runs.simulation import Simulation

    J = np.array([1.0, 2.0, 2.5])
    D = np.array([[np.cos(0.3), np.sin(0.3), 0.0], [-np.sin(0.3), np.cos(0.3), 0.0],
                  [0.0, 0.0, 1.0]])
    m, om = 2.0, np.array([0.3, 1.0, 0.2])
    c, vc = np.array([0.1, 0.2, 0.3]), np.array([0.1, -0.05, 0.2])
    body = FreeBody(m, J, c, directors=D, velocity=vc, angular_velocity=om)
    model = RodModel(Structure([], bodies=[body]))
    skip_if_chain_refuses(model)
    h, steps = 0.01, 400
    sim = Simulation(Integrator(model, h, TIGHT))
    for name, unit in (("body_1", "m"), ("body_v_2", "m/s"), ("body_L_3", "kg m^2/s")):
        assert sim.units[name] == unit
    sim.run(steps * h)
    t = sim.column("t")
    n = np.arange(t.size)
    X = np.stack([sim.column(f"body_{k}") for k in (1, 2, 3)], axis=1)
    V = np.stack([sim.column(f"body_v_{k}") for k in (1, 2, 3)], axis=1)
    L = np.stack([sim.column(f"body_L_{k}") for k in (1, 2, 3)], axis=1)
    assert t.size == steps + 1 and np.allclose(t, n * h, rtol=0, atol=roundoff(t[-1]))
    Jsp = D.T @ np.diag(J) @ D
    L0 = Jsp @ om                                  # about the centre: no m c x v
    x_bound = newton_bound(TIGHT, n * h / m, n) + roundoff(np.linalg.norm(X, axis=1), n)
    v_bound = newton_bound(TIGHT, 1.0 / m, n) + roundoff(np.linalg.norm(vc), n)
    xn, pn = np.linalg.norm(X, axis=1), m * np.linalg.norm(vc)
    L_bound = (newton_bound(TIGHT, np.sqrt(xn**2 + 3.0), n) + newton_bound(TIGHT, xn, n)
               + pn * x_bound + roundoff(np.linalg.norm(L0) + xn * pn, n + 1))
    eX = np.max(np.abs(X - (c + np.outer(t, vc))), axis=1)
    eV = np.max(np.abs(V - vc), axis=1)
    eL = np.max(np.abs(L - L0), axis=1)
    print(f"body probe {steps} steps: |x - c - v t| = {eX.max():.2e} m, |v - v0| = "
          f"{eV.max():.2e} m/s, |L_c - J omega| = {eL.max():.2e} kg m^2/s "
          f"(bound {L_bound[-1]:.2e})")
    assert np.all(eX <= x_bound) and np.all(eV <= v_bound) and np.all(eL <= L_bound)
    q, v = _node(model, model.structure.coordinate(0, "0"))
    assert np.linalg.norm(_omega(q, v) - om) > 0.1     # it tumbled: L_c did not stand still


# ------------------------------------------------------------------ hanging from a rod
def _bounce(h: float, t_end: float, N: int = 8) -> tuple[float, float, float, float]:
    """A body (M = 10 rho A L) welded (Rigid) to the lower end of a vertical elastic rod
    clamped at the top, released from the unstretched reference under gravity: its
    measured bouncing frequency (zero crossings of the body's ``body_3`` about the static
    equilibrium), the exact one, Rayleigh's and the P2 bound ``(beta/N)^4``."""
    from scipy.optimize import brentq

    from fxrod.core.joints import Rigid
    from fxrod.core.supports import Clamp
    from fxrod.runs.simulation import Simulation

    L, r, E, rho, g = 1.0, 0.01, 1e7, 1000.0, 9.81
    sec = Section.circular(radius=r, E=E, rho=rho, nu=0.3)
    A = np.pi * r * r
    m_rod = rho * A * L
    M = 10.0 * m_rod
    rod = Rod(sec, start=(0, 0, 0), end=(0, 0, -L), d1=(1, 0, 0), n_elements=N)
    body = FreeBody(M, (1e-3, 1e-3, 1e-3), (0, 0, -L))
    st = Structure([rod], [Rigid((0, "L"), (1, "0"))], bodies=[body])
    model = RodModel(st, loads=[Gravity((0, 0, -g))], supports=[Clamp("0", rod=0)])
    skip_if_chain_refuses(model)
    sim = Simulation(Integrator(model, h, TIGHT))
    sim.run(t_end)
    k, mu = E * A / L, m_rod / M
    beta = brentq(lambda b: b * np.tan(b) - mu, 1e-9, np.pi / 2 - 1e-9)
    w_exact = beta * np.sqrt(E / rho) / L
    w_rayleigh = np.sqrt(k / (M + m_rod / 3.0))
    t = sim.column("t")
    y = sim.column("body_3") + L + (M + m_rod / 2.0) * g / k      # about the equilibrium
    i = np.flatnonzero(np.sign(y[:-1]) != np.sign(y[1:]))
    tc = t[i] - y[i] * (t[i + 1] - t[i]) / (y[i + 1] - y[i])
    assert len(tc) >= 15 and np.max(np.abs(sim.column("body_1"))) == 0.0
    return np.pi * (len(tc) - 1) / (tc[-1] - tc[0]), w_exact, w_rayleigh, (beta / N) ** 4


def test_body_hanging_from_a_rod_bounces_at_the_axial_frequency():
    """A body of mass M hanging from a clamped vertical rod (EA, rho A, L; M = 10 rho A L)
    bounces at the fundamental axial frequency of a bar with a tip mass,
    ``omega = beta c / L`` with ``beta tan beta = rho A L / M`` (c = sqrt(E/rho)), which is
    ``sqrt(k/(M + rho A L/3))``, k = EA/L (Rayleigh's rod-mass correction), within
    ``mu^2/90`` (mu = rho A L/M; 1.1e-4 here): 31.105 rad/s. The axial motion is linear
    (the stretch is linear in phi' for fixed directors), so gravity only shifts the
    equilibrium and the amplitude (the static stretch, 1 %) does not enter.

    Tolerance: the midpoint rule is the Cayley map for an oscillator, rate
    ``2/h arctan(omega h/2)``: a lag of at most ``(omega h)^2/12``; P2 elements add a
    relative error ``O((beta/N)^4)`` (bounded by ``(beta/N)^4``, 2e-6 at N = 8; the
    zero crossings interpolated linearly where the curvature vanishes are exact to
    O(h^3)). Order 2 in h: halving h divides the error by 4 within 1/8."""
    errs = []
    for h in (0.0016, 0.0008):
        w, w_ex, w_r, spatial = _bounce(h, 2.0)
        tol = (w_ex * h) ** 2 / 12.0 + spatial
        errs.append(abs(w / w_ex - 1.0))
        print(f"h = {h}: bouncing {w:.8f} rad/s vs exact {w_ex:.8f} (rel {w / w_ex - 1:.3e}, "
              f"tol {tol:.2e}); Rayleigh {w_r:.8f} (rel {w_r / w_ex - 1:.3e})")
        assert errs[-1] <= tol
    mu = 0.1
    assert 0.0 < w_r / w_ex - 1.0 <= mu**2 / 90.0        # Rayleigh's quotient: from above
    assert abs(errs[0] / errs[1] - 4.0) <= 0.5


def test_body_hanging_from_a_rod_swings_at_the_pendulum_frequency():
    """A body (M = 10 rho A L) on a ball joint at the lower end of an elastic rod pinned at
    the top (L = 1 m, r = 2 cm, E such that the static stretch at the body is
    ``eps = M g/EA = 0.3 %``), released at 0.02 rad under gravity, swings at the frequency
    of the continuum rod, bracketed by two closed forms:

    * above: Rayleigh's quotient of a rigid rotation of the statically stretched rod,
      ``omega_R^2 = g (M x_L + int rho A x ds) / (M x_L^2 + int rho A x^2 ds + M11 L)``,
      ``x(s) = s + g/EA ((M + rho A L) s - rho A s^2/2)`` (the rod's compliance: 1.6e-3
      below the rigid compound pendulum ``g/L (M + m/2)/(M + m/3)``);
    * below: the extensible string (no bending stiffness, which only raises frequencies),
      ``(P u')' + rho A omega^2 u = 0``, ``P = T/(1 + T/EA)``, ``T = g (M + rho A (L - s))``,
      ``u(0) = 0``, ``P u'(L) = M omega^2 u(L)``, solved by shooting (9e-5 below omega_R).

    The measured rate (zero crossings of ``body_1``) is corrected for the midpoint rule
    (the Cayley map: ``omega = 2/h tan(omega_h h/2)``) and for the amplitude
    (``omega_0 = omega (1 + theta_0^2/16)``); the bracket is widened by the sections' rotary
    inertia (``M11 L / I``, only in omega_R), the coupling with the bouncing excited by
    the release from the unstretched rod (relative amplitude eps: ``eps^2``) and P2's
    ``(beta/N)^4`` (``beta = omega L sqrt(rho A/(M g))``, the string's wavenumber at the
    body)."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq

    from fxrod.runs.simulation import Simulation

    L, r, rho, g, eps, th0, N, h = 1.0, 0.02, 1000.0, 9.81, 0.003, 0.02, 8, 0.01
    A = np.pi * r * r
    rhoA, M11 = rho * A, rho * np.pi * r**4 / 4.0
    m = rhoA * L
    M = 10.0 * m
    EA = M * g / eps
    sec = Section.circular(radius=r, E=EA / A, rho=rho, nu=0.3)
    tip = (L * np.sin(th0), 0.0, -L * np.cos(th0))
    rod = Rod(sec, start=(0, 0, 0), end=tip, d1=(np.cos(th0), 0.0, np.sin(th0)), n_elements=N)
    body = FreeBody(M, (1e-2, 1e-2, 1e-2), tip)
    st = Structure([rod], [Spherical((0, "L"), (1, "0"))], bodies=[body])
    model = RodModel(st, loads=[Gravity((0, 0, -g))], supports=[Pin("0", rod=0)])
    skip_if_chain_refuses(model)
    sim = Simulation(Integrator(model, h, TIGHT))
    sim.run(20.0)
    t, x = sim.column("t"), sim.column("body_1")
    i = np.flatnonzero(np.sign(x[:-1]) != np.sign(x[1:]))
    tc = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    assert len(tc) >= 15
    w_h = np.pi * (len(tc) - 1) / (tc[-1] - tc[0])
    w = 2.0 / h * np.tan(w_h * h / 2.0) * (1.0 + th0**2 / 16.0)
    # above: the rigid rotation of the stretched rod (Gauss-Legendre: exact for these degrees)
    xg, wg = np.polynomial.legendre.leggauss(8)
    s, ws = 0.5 * L * (xg + 1.0), 0.5 * L * wg

    def X(s):
        return s + g / EA * ((M + rhoA * L) * s - rhoA * s**2 / 2.0)

    inertia = M * X(L) ** 2 + ws @ (rhoA * X(s) ** 2) + M11 * L
    w_R = np.sqrt(g * (M * X(L) + ws @ (rhoA * X(s))) / inertia)
    w_rigid = np.sqrt(g / L * (M + m / 2.0) / (M + m / 3.0))

    # below: the extensible string
    def P(s):
        T = g * (M + rhoA * (L - s))
        return T / (1.0 + T / EA)

    def end_balance(om):
        y = solve_ivp(lambda s, y: [y[1] / P(s), -rhoA * om**2 * y[0]], (0.0, L),
                      [0.0, P(0.0)], rtol=1e-12, atol=1e-14).y[:, -1]
        return y[1] - M * om**2 * y[0]

    w_S = brentq(end_balance, 0.9 * w_R, w_R, xtol=1e-14)
    widen = eps**2 + M11 * L / inertia + (w_R * L * np.sqrt(rhoA / (M * g)) / N) ** 4
    print(f"pendulum: {w_h:.8f} rad/s measured, {w:.8f} corrected; bracket [{w_S:.8f}, "
          f"{w_R:.8f}] (rel {w / w_S - 1:+.2e}, {w / w_R - 1:+.2e}; widened by {widen:.1e}); "
          f"rigid unstretched {w_rigid:.8f} ({w_R / w_rigid - 1:+.2e})")
    assert w_S * (1.0 - widen) <= w <= w_R * (1.0 + widen)
    # the bracket and its widening resolve the compliance's shift ten times over
    assert w_S < w_R and 10.0 * (w_R - w_S + widen * w_R) < abs(w - w_rigid)


# ------------------------------------------------------------------ linearised analyses
def _rigid_gram(m, n: int = 6) -> np.ndarray:
    """``sum_i (phi_i^T M r)(phi_i^T M r)^T`` (6 x 6) over the first ``n`` modes of ``m``
    (unit modal mass ``phi = shape/a``: ``phi^T M r = Gamma sqrt(modal mass)``): ``R^T M R``
    of the six rigid motions ``r`` if the modes span them (Parseval over an M-orthonormal
    basis)."""
    L = m.participation[:n] * np.sqrt(m.modal_mass[:n])[:, None]
    return L.T @ L


def _rigid_mass(mass: float, inertia: np.ndarray) -> np.ndarray:
    """``R^T M R`` of a rigid body about its centre of mass: ``diag(m I, J)``."""
    G = np.zeros((6, 6))
    G[:3, :3], G[3:, 3:] = mass * np.eye(3), inertia
    return G


def test_free_body_six_rigid_modes():
    """A free body alone (J = 1, 2, 2.5 kg m^2 about turned axes, m = 2 kg): six exact zero
    frequencies whose modes carry ``R^T M R = diag(m I, J)`` about the centre (the inertia
    tensor with its products), to round-off (6 x 6 sums of products of a few unknowns)."""
    from fxrod.analysis.modes import modes

    D = np.array([[np.cos(0.3), np.sin(0.3), 0.0], [-np.sin(0.3), np.cos(0.3), 0.0],
                  [0.0, 0.0, 1.0]])
    body = FreeBody(2.0, (1.0, 2.0, 2.5), (0.1, 0.2, 0.3), directors=D)
    m = modes(RodModel(Structure([], bodies=[body])), 6, centre=body.centre)
    assert np.all(m.omega == 0.0)
    exact = _rigid_mass(body.mass, body.inertia)
    assert np.max(np.abs(_rigid_gram(m) - exact)) <= roundoff(2.5, 36)


def test_free_rod_with_a_welded_body_six_rigid_modes():
    """A free rod (1 m, 8 elements) with a body welded at its end by a rigid joint at the
    body's anchor (its centre 0.1 m beyond the end and 0.05 m aside: the joint at an anchor
    is the one the reduction dropped before), then six exact zeros whose modes carry the
    whole's mass and its inertia tensor about the common centre of mass: the rod's
    ``rho A int (|r|^2 I - r r^T) ds + L (M11 (I - d1 d1^T) + M22 (I - d2 d2^T))`` (d1 = y,
    d2 = z) plus the body's ``J + M (|c|^2 I - c c^T)``, to round-off; the next modes
    elastic."""
    from fxrod.analysis.modes import modes

    sec = Section.circular(radius=0.01, E=1e7, rho=1000.0, nu=0.3)
    L, M, Jb = 1.0, 0.5, np.array([1e-3, 2e-3, 1.5e-3])
    rod = Rod(sec, start=(0, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=8)
    body = FreeBody(M, Jb, (L + 0.1, 0.05, 0.0), anchor=(L, 0, 0))
    st = Structure([rod], [Rigid((0, "L"), (1, "L"))], bodies=[body])
    m_rod = sec.rhoA * L
    c = (m_rod * np.array([L / 2, 0, 0]) + M * body.centre) / (m_rod + M)
    xg, wg = np.polynomial.legendre.leggauss(4)
    s, ws = 0.5 * L * (xg + 1.0), 0.5 * L * wg
    J = np.zeros((3, 3))
    for si, wi in zip(s, ws, strict=True):
        r = np.array([si, 0, 0]) - c
        J += sec.rhoA * wi * (r @ r * np.eye(3) - np.outer(r, r))
    e = np.eye(3)
    J += L * (sec.M11 * (e - np.outer(e[1], e[1])) + sec.M22 * (e - np.outer(e[2], e[2])))
    r = body.centre - c
    J += body.inertia + M * (r @ r * np.eye(3) - np.outer(r, r))
    m = modes(RodModel(st), 8, centre=c)
    assert np.all(m.omega[:6] == 0.0) and np.all(m.omega[6:] > 0.0)
    gram = _rigid_gram(m)
    exact = _rigid_mass(m_rod + M, J)
    assert np.max(np.abs(gram - exact)) <= roundoff(m_rod + M, 12 * 17)


SEC_EB = dataclasses.replace(Section.circular(radius=0.01, E=2e11, rho=7850.0, nu=0.3),
                             M11=0.0, M22=0.0)          # Euler-Bernoulli: no rotary inertia


def tip_body_cantilever(n_elements: int, joint=Rigid, mass: float = 0.5,
                        rotary: float = 0.01) -> tuple[RodModel, float, float]:
    """A clamped Kirchhoff rod (1 m along x, steel, r = 1 cm, no rotary inertia) with a free
    body (M = mass rho A L, J = rotary rho A L^3 about every axis) at its tip on ``joint``:
    the model, M [kg] and J [kg m^2]."""
    rod = Rod(SEC_EB, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), n_elements, constraints=("kirchhoff",))
    M, J = mass * SEC_EB.rhoA, rotary * SEC_EB.rhoA
    st = Structure([rod], [joint((0, "L"), (1, "0"))], bodies=[FreeBody(M, (J, J, J),
                                                                       (1.0, 0, 0))])
    return RodModel(st, [], [Clamp("0", rod=0)]), M, J


def tip_mass_frequency(EI: float, rhoA: float, L: float, M: float, J: float) -> float:
    """The first bending frequency [rad/s] of a clamped Euler-Bernoulli rod with a tip body
    of mass M and rotary inertia J: ``w = A cosh + B sinh + C cos + D sin (beta x)``,
    ``w(0) = w'(0) = 0``, ``EI w''(L) = omega^2 J w'(L)``, ``EI w'''(L) = -omega^2 M w(L)``
    (the tip's natural conditions), ``omega = beta^2 sqrt(EI/rhoA)``: the lowest root of the
    4 x 4 determinant (below the bare cantilever's 1.8751/L)."""
    from scipy.optimize import brentq

    def det(lam: float) -> float:
        b = lam / L
        w2 = b**4 * EI / rhoA
        ch, sh, co, si = np.cosh(lam), np.sinh(lam), np.cos(lam), np.sin(lam)
        W, W1 = np.array([ch, sh, co, si]), b * np.array([sh, ch, -si, co])
        W2, W3 = b**2 * np.array([ch, sh, -co, -si]), b**3 * np.array([sh, ch, si, -co])
        A = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0],
                      (EI * W2 - w2 * J * W1) / (EI * b**2), (EI * W3 + w2 * M * W) / (EI * b**3)])
        return float(np.linalg.det(A))

    lam = brentq(det, 0.3, 1.8751040687, xtol=1e-15)
    return (lam / L) ** 2 * np.sqrt(EI / rhoA)


def test_cantilever_with_a_tip_body_frequency():
    """A body welded at the tip of a cantilever (M = rho A L/2, J = 0.01 rho A L^3): the first
    bending pair against the frequency equation of an Euler-Bernoulli cantilever with a tip
    mass and rotary inertia (50.1606 rad/s; 1.411 in beta L, the bare rod's 1.875), order 4
    from n_e 4 to 8 to 16 (P2, as the bare cantilever: measured 2.4e-5, 1.5e-6, 9.4e-8;
    asserted 4 +- 0.3 and 2e-7 at n_e 16); the torsion mode (a massless rod twisting the
    body, exact in P2) at ``sqrt(k_t/(L J))`` to the eigen-solver's tolerance. On a ball
    joint the body turns freely (three zeros) and J drops out: the tip-mass root, order 4
    from n_e 4 to 8."""
    from fxrod.analysis.modes import EIG_TOL, modes

    errs = []
    for n in (4, 8, 16):
        model, M, J = tip_body_cantilever(n)
        w = modes(model, 3).omega
        exact = tip_mass_frequency(SEC_EB.k_b1, SEC_EB.rhoA, 1.0, M, J)
        errs.append(w[:2] / exact - 1.0)
        assert abs(w[2] / np.sqrt(SEC_EB.k_t / J) - 1.0) <= EIG_TOL
    orders = np.log2(np.abs(np.array(errs[:-1]) / np.array(errs[1:])))
    assert np.all(np.abs(orders - 4.0) <= 0.3), orders
    assert np.all(np.abs(errs[-1]) <= 2e-7), errs[-1]
    errs = []
    for n in (4, 8):
        model, M, _ = tip_body_cantilever(n, Spherical)
        w = modes(model, 5).omega
        assert np.all(w[:3] == 0.0)
        errs.append(w[3:5] / tip_mass_frequency(SEC_EB.k_b1, SEC_EB.rhoA, 1.0, M, 0.0) - 1.0)
    assert np.all(np.abs(np.log2(np.abs(errs[0] / errs[1])) - 4.0) <= 0.3), errs


def test_column_buckles_under_the_weight_of_a_body():
    """A clamped Kirchhoff column (1 m along x) carrying a body on its top, gravity along -x:
    the body's weight M g (1000 N) is a dead axial load, the column buckles at
    ``M g mu = pi^2 EI/(4 L^2)`` to 1.5e-6 at n_e 16 (the Euler column's discretisation,
    tests/test_linear.py::test_euler_column_buckling) plus the rod's own weight, a fraction
    1e-9 here (rho A scaled down); about the loaded state and, classically, about the
    reference with the linear prestress, whose static residual takes the body's weight (it
    was built without it before: no prestress, no buckling)."""
    from fxrod.analysis.modes import buckling

    sec = dataclasses.replace(SEC_EB, rhoA=1e-9 * SEC_EB.rhoA)
    rod = Rod(sec, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 16, constraints=("kirchhoff",))
    g, W = 9.81, 1000.0
    p_cr = np.pi**2 * SEC_EB.k_b1 / 4.0
    weight = sec.rhoA * g * 1.0 / W                        # the rod's weight / M g
    for stepped in (True, False):      # about the loaded state, about the reference
        st = Structure([rod], [Rigid((0, "L"), (1, "0"))],
                       bodies=[FreeBody(W / g, (1e-3, 1e-3, 1e-3), (1.0, 0, 0))])
        model = RodModel(st, [Gravity((-g, 0, 0))], [Clamp("0", rod=0)], quasistatic=True)
        if stepped:
            Integrator(model, 1.0, TIGHT).step()
        b = buckling(model, 2)
        assert np.all(np.abs(b.factor * W / p_cr - 1.0) <= 1.5e-6 + weight), \
            (stepped, b.factor * W / p_cr)


# ------------------------------------------------------------------ load stepping
def _hanging(g: float, quasistatic: bool = True, n_elements: int = 4):
    """A body (M = 5 kg) on a ball joint at the lower end of a clamped vertical rod
    (L = 1 m, r = 1 cm, E = 1 GPa) under gravity ``g(t)``: the model, M, the rod."""
    sec = Section.circular(radius=0.01, E=1e9, rho=1000.0, nu=0.3)
    rod = Rod(sec, (0, 0, 0), (0, 0, -1.0), (1, 0, 0), n_elements)
    st = Structure([rod], [Spherical((0, "L"), (1, "0"))],
                   bodies=[FreeBody(5.0, (0.01, 0.01, 0.01), (0, 0, -1.0))])
    return RodModel(st, [Gravity(g)], [Clamp("0", rod=0)], quasistatic=quasistatic), 5.0, sec


def test_body_hanging_from_a_rod_static_stretch():
    """Load stepping: a body hanging from a clamped rod stretches it by
    ``(M g L + rho A g L^2/2)/EA``: exact (the stretch is linear in phi' with the
    directors fixed by symmetry, its displacement quadratic: in P2), so to round-off and
    the Newton tolerance (atol over the axial stiffness EA/L)."""
    model, M, sec = _hanging((0, 0, -9.81))
    Integrator(model, 1.0, TIGHT).step()
    z = _node(model, model.structure.coordinate(1, "0"))[0][2]
    exact = -1.0 - (M * 9.81 + sec.rhoA * 9.81 / 2.0) / sec.k_e
    assert abs(z - exact) <= roundoff(1.0) + TIGHT.atol / sec.k_e, z - exact


def test_body_hanging_from_a_rod_continuation():
    """Continuation: the arc-length path of the same rod and body with gravity ramped by the
    load factor (``g(lam) = -9.81 lam``) is the straight line ``lam`` times the stretch of
    the load stepping, at every point (round-off and the Newton tolerance)."""
    from fxrod.analysis.continuation import ArcLengthSettings, Continuation

    model, M, sec = _hanging(lambda t: (0, 0, -9.81 * t))
    x_body = model.structure.coordinate(1, "0")
    cont = Continuation(model, ArcLengthSettings(ds=0.3, ds_max=0.3),
                        points={"body": x_body}, solver=TIGHT)
    cont.run(4)
    lam = np.array([p.lam for p in cont.path])
    z = np.array([p.displacements["body"][2] for p in cont.path])
    assert lam.size >= 4 and lam[-1] > 0.5
    stretch = (M * 9.81 + sec.rhoA * 9.81 / 2.0) / sec.k_e
    assert np.all(np.abs(z + lam * stretch) <= roundoff(1.0, lam.size) + TIGHT.atol / sec.k_e)


def _tip_body_statics(g: float, n_elements: int, offset: float) -> tuple[float, float]:
    """Tip deflection [m] of a clamped rod (1 m along x) carrying a body (M = 5 kg) welded at
    its tip, its centre ``offset`` beyond it (the joint at the body's anchor), under
    gravity g along -z, and the linear closed form (Timoshenko cantilever: tip load
    P = M g, its moment P offset, the rod's weight q = rho A g)."""
    sec = Section.circular(radius=0.01, E=1e9, rho=1000.0, nu=0.3)
    rod = Rod(sec, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), n_elements)
    if offset:
        body = FreeBody(5.0, (0.01, 0.01, 0.01), (1.0 + offset, 0, 0), anchor=(1.0, 0, 0))
        joint = Rigid((0, "L"), (1, "L"))
    else:
        body, joint = FreeBody(5.0, (0.01, 0.01, 0.01), (1.0, 0, 0)), Rigid((0, "L"), (1, "0"))
    st = Structure([rod], [joint], bodies=[body])
    model = RodModel(st, [Gravity((0, 0, -g))], [Clamp("0", rod=0)], quasistatic=True)
    Integrator(model, 1.0, TIGHT).step()
    w = _node(model, st.coordinate(0, "L"))[0][2]
    P, q, EI, kGA = 5.0 * g, sec.rhoA * g, sec.k_b1, sec.k_s2
    return w, -(P / (3 * EI) + P / kGA + P * offset / (2 * EI) + q / (8 * EI) + q / (2 * kGA))


def test_body_on_a_cantilever_tip_static_deflection():
    """Load stepping: a body welded at a cantilever's tip (centre at the tip, or 0.1 m beyond
    it: the moment of its weight) deflects it by the linear closed form (Timoshenko
    cantilever, P = M g and P c at the tip, the rod's weight). The nodal values are exact
    in P2 for these loads (n_e 4 and 8 agree to 1e-12); what remains is the geometric
    nonlinearity, a relative error of the order of the tip rotation squared: asserted below
    ``theta^2`` (``theta = P L^2/(2 EI) + P c L/EI``, 3e-5 here) and proportional to the
    load squared (halving g divides it by 4 within 10 %)."""
    sec = Section.circular(radius=0.01, E=1e9, rho=1000.0, nu=0.3)
    g = 1e-4
    for c in (0.0, 0.1):
        theta = 5.0 * g * (0.5 + c) / sec.k_b1
        w, exact = _tip_body_statics(g, 4, c)
        w8, _ = _tip_body_statics(g, 8, c)
        w_half, exact_half = _tip_body_statics(g / 2, 4, c)
        err, err_half = w / exact - 1.0, w_half / exact_half - 1.0
        assert abs(w8 / w - 1.0) <= 1e-12
        assert abs(err) <= theta**2, (c, err, theta**2)
        assert abs(err / err_half / 4.0 - 1.0) <= 0.1, (err, err_half)
