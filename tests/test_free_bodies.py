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

Tolerance of the rates (the midpoint rule's O(h^2) error): for a uniform rotation at rate
``Omega`` the midpoint rule is the Cayley map, whose angle per step is ``2 arctan(Omega h/2)``:
a relative rate error ``(Omega h)^2 / 12 + O(h^4)``. The motions here compose two rotations
(the precession and the spin relative to it), so their rates are bounded by that error of the
fastest rotation ``Omega_max = |Omega_p| + |psi_dot|`` (the sum of both rates); the order 2
itself is checked by halving h (error ratio 4 within 1/8).
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.freebody import FreeBody
from fxrod.core.joints import Spherical
from fxrod.core.loads import DistributedLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Pin
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


def test_refused_analyses_and_backends(tmp_path):
    """The analyses not verified with free bodies and the chain solver refuse in one line."""
    from fxrod.analysis.modes import modes
    from fxrod.runs import checkpoint

    model = RodModel(Structure([], bodies=[FreeBody.sphere(0.1, 1000.0, (0, 0, 0))]))
    for call in (lambda: modes(model, 6), lambda: checkpoint.save(tmp_path / "c", model, {})):
        with pytest.raises(ParameterError, match="free bodies") as e:
            call()
        assert "\n" not in str(e.value)
    with pytest.raises(ParameterError, match="chain"):
        Integrator(model, 0.01, SolverSettings(linear_solver="chain"))


def test_refusals_before_any_form():
    body = FreeBody.box(0.1, 0.2, 0.3, 1000.0, (0, 0, 0))
    with pytest.raises(ParameterError) as e:               # a joint to a node that is not
        Structure([], [Spherical((0, "L"), (3, "0"))], bodies=[body])
    assert "joint node b rod index" in str(e.value)
    with pytest.raises(ParameterError, match="quasistatic"):
        RodModel(Structure([], bodies=[body]), quasistatic=True)
    with pytest.raises(ParameterError, match="loads"):
        RodModel(Structure([], bodies=[body]), loads=[DistributedLoad(force=(0, 0, 1))])
    with pytest.raises(ParameterError, match="bodies"):
        Structure([], bodies=["ball"])


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
