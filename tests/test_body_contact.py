"""Free bodies touching obstacles (fxrod.core.forms.bodycontact) against Coulomb's law.

A solid ball (radius R, J = 2/5 m R^2, a free body with no rod: its massless carrier is
all it needs) first settles on the ground under gravity (critically damped penalty
contact, ``c = 2 sqrt(k m)``: after 0.15 s its gap is the static ``-m g/k`` to ~1e-12 m),
then is launched along e1 at v0 (:meth:`fxrod.core.model.RodModel.set_body_velocity`).
The friction ``mu p`` acts where the ball touches, so with the slip ``v_s = v - omega R``
(omega the spin about e2): ``v' = -mu g s``, ``omega' = 5/2 mu g/R s``, ``s`` the law's
``v_s/sqrt(v_s^2 + eps^2)``, and ``v - 2/7 v_s`` is constant (the angular momentum about
the contact line):

* launched with the backspin ``omega_0 = -5/2 v0/R``, ``v = 2/7 v_s`` throughout: slip and
  speed vanish together and the ball stops dead at Coulomb's ``v0^2/(2 mu g)``; with the
  regularised law exactly ``4/(49 mu g) int_0^V sqrt(v^2 + eps^2) dv`` (V = 7/2 v0), which
  exceeds Coulomb's by ``(eps/V)^2 (ln(2V/eps) + 1/2)`` relatively (3e-8 here);
* launched without spin it slides until ``v = 5/7 v0`` and rolls on at that speed (the
  angular momentum about the contact line, ``m v R + J omega``, is conserved whatever the
  friction law), having lost ``m v0^2/7`` to friction.

Error model (the discretisation; the regularisation is in the closed form): the midpoint
rule integrates the constant friction force exactly; its error is that of the rotations
it builds, O(h^2) on the scale of the slip rate ``V/R`` (V the initial slip speed): the
friction's lever is ``R cos^2(theta/2)`` (the midpoint directors are shorter than unit,
theta the rotation of a step, ``theta <= omega h``: a relative error of the torque of at
most ``(omega h)^2/4``) and the rotation of a step is ``2 arctan(omega h/2)``. The tests
bound the relative errors by ``(V h/R)^2`` and check the order 2 by halving h. The nodal
velocity of the midpoint rule rings (``v_{n+1} = 2 (x_{n+1} - x_n)/h - v_n``), so speeds
are read from positions.
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.forms.bodycontact import BodyContact
from fxrod.core.freebody import (
    ContactBox,
    ContactCapsule,
    ContactCylinder,
    ContactSphere,
    FreeBody,
)
from fxrod.core.loads import Gravity
from fxrod.core.model import RodModel
from fxrod.core.obstacles import HalfSpace, Sphere
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import effort_norm, newton_bound, roundoff, skip_if_chain_refuses

TIGHT = SolverSettings(atol=1e-12, jacobian_lag=1)
R, RHO, G, MU, K, V0, EPS = 0.1, 1000.0, 9.81, 0.3, 1e5, 0.5, 1e-4   # SI units
SETTLE, SLIDE = 0.15, 0.3                                             # s


def _launch(h: float, spin: float) -> dict[str, np.ndarray]:
    """Settle the ball, launch it at V0 with the spin ``spin V0/R`` about e2; per step
    after the launch: ``t``, ``x`` (travel along e1), the energy balance residual, its
    Newton bound and the dissipation of the step."""
    body = FreeBody.sphere(R, RHO, (0.0, 0.0, R), contact=True)
    c = 2.0 * np.sqrt(K * body.mass)
    model = RodModel(Structure([], bodies=[body]), loads=[Gravity((0.0, 0.0, -G))],
                     extensions=[BodyContact(HalfSpace(), K, friction=MU, v_reg=EPS,
                                             damping=c)])
    skip_if_chain_refuses(model)
    it = Integrator(model, h, TIGHT)
    for _ in range(round(SETTLE / h)):
        it.step()
    centre = model.structure.coordinate(0, "0")
    s = model.space.Q.tabulate_dof_coordinates()[:, 0]
    node = int(np.argmin(np.abs(s - centre)))

    def x_now() -> float:
        return float(model.w0.x.array[model.space.q_map].reshape(-1, 12)[node, 0])

    def spin_now() -> float:            # omega . e2, omega = 1/2 sum_k d_k x v_dk
        q = model.w0.x.array[model.space.q_map].reshape(-1, 12)[node, 3:].reshape(3, 3)
        v = model.v0.x.array.reshape(-1, 12)[node, 3:].reshape(3, 3)
        return float(0.5 * sum(np.cross(q[k], v[k]) for k in range(3))[1])

    z = float(model.w0.x.array[model.space.q_map].reshape(-1, 12)[node, 2])
    assert abs(z - (R - body.mass * G / K)) <= 1e-9 * R       # settled: gap -m g/k
    model.set_body_velocity(0, (V0, 0.0, 0.0), (0.0, spin * V0 / R, 0.0))
    H0 = model.ledger.current()["H"]
    x0 = x_now()
    out = {k: [] for k in ("t", "x", "spin", "res", "bound", "diss")}
    for n in range(1, round(SLIDE / h) + 1):
        w_prev = model.w0.x.array.copy()
        r = it.step()
        out["t"].append(n * h)
        out["x"].append(x_now() - x0)
        out["spin"].append(spin_now())
        out["res"].append(r.energy_residual)
        out["bound"].append(newton_bound(TIGHT, effort_norm(model, w_prev, h))
                            + roundoff(H0))
        out["diss"].append(r.dissipation)
    out = {k: np.array(v) for k, v in out.items()}
    out["mass"] = body.mass
    return out


def _ledger_closes(run: dict[str, np.ndarray]) -> None:
    assert np.all(run["diss"] >= 0.0)
    assert np.all(np.abs(run["res"]) <= run["bound"])


def test_ball_with_backspin_stops_at_coulomb_distance():
    """Backspin ``-5/2 v0/R``: the ball stops dead at ``v0^2/(2 mu g)`` (42.47 mm), within
    ``(omega_0 h)^2/4`` (the friction's lever), ``mu g h^2/2`` (the stop falls between two
    samples, the ball decelerating at mu g) and the regularisation's excess; the ledger
    closes every step with a dissipation >= 0."""
    V = 3.5 * V0
    coulomb = V0**2 / (2.0 * MU * G)
    regularised = 4.0 / (49.0 * MU * G) * 0.5 * (V * np.sqrt(V**2 + EPS**2)
                                                  + EPS**2 * np.arcsinh(V / EPS))
    excess = (EPS / V) ** 2 * (np.log(2.0 * V / EPS) + 0.5)
    assert 0.0 < regularised / coulomb - 1.0 <= excess
    h = 1e-3
    run = _launch(h, -2.5)
    stop = run["x"].max()
    lever = (2.5 * V0 / R * h) ** 2 / 4.0
    tol = lever + MU * G * h**2 / 2.0 / coulomb        # the lever; the stop between samples
    print(f"h = {h}: stops at {stop * 1e3:.6f} mm, Coulomb {coulomb * 1e3:.6f} mm "
          f"(rel {stop / coulomb - 1:+.2e}, tol {tol + excess:.1e})")
    assert abs(stop / regularised - 1.0) <= tol
    assert abs(stop / coulomb - 1.0) <= tol + excess
    # then it stands: the lever's defect leaves at most 5/7 lever v0 (it creeps back)
    assert np.all(np.abs(np.diff(run["x"][run["t"] > 0.25])) <= 5 / 7 * lever * V0 * h)
    _ledger_closes(run)


def test_ball_without_spin_rolls_at_five_sevenths():
    """Launched without spin, the ball slides, then rolls at ``5/7 v0`` (the angular
    momentum about the contact line), within ``(v0 h/R)^2``, order 2, with ``omega R = v``
    and having dissipated ``m v0^2/7``; the ledger closes every step. Without the
    friction's lever (the torque) it would stop instead; with the lever's sign flipped it
    rolls backwards-spinning."""
    errs = []
    for h in (1e-3, 5e-4):
        run = _launch(h, 0.0)
        late = run["t"] > 0.2
        speed = np.polyfit(run["t"][late], run["x"][late], 1)[0]
        tol = (V0 * h / R) ** 2
        errs.append(abs(speed / (5.0 / 7.0 * V0) - 1.0))
        print(f"h = {h}: rolls at {speed:.9f} m/s vs 5/7 v0 = {5 / 7 * V0:.9f} "
              f"(rel {speed / (5 / 7 * V0) - 1:+.2e}, tol {tol:.1e}), omega R/v - 1 = "
              f"{0.5 * (run['spin'][-1] + run['spin'][-2]) * R / speed - 1:+.2e}")
        assert errs[-1] <= tol
        spin = 0.5 * (run["spin"][-1] + run["spin"][-2])     # the ringing averaged out
        assert abs(spin * R / speed - 1.0) <= tol             # rolling: omega R = v
        lost = run["mass"] * V0**2 / 7.0         # m v0^2/2 - (m + J/R^2) (5/7 v0)^2/2
        assert abs(run["diss"].sum() / lost - 1.0) <= 2.0 * tol
        _ledger_closes(run)
    assert abs(errs[0] / errs[1] - 4.0) <= 0.5


def _belt(h: float, U: float = 0.5, start: float = SETTLE, t_end: float = 0.45
          ) -> tuple[float, np.ndarray, np.ndarray, float]:
    """The ball settled on a belt (a moving HalfSpace) that starts at ``start`` at the speed
    U along e1: its final speed (from positions), the energy residuals and their bounds
    per step, and the belt's work [J]."""
    ball = FreeBody.sphere(R, RHO, (0.0, 0.0, R), contact=True)
    belt = HalfSpace(motion=lambda t: (U * max(t - start, 0.0), 0.0, 0.0))
    contact = BodyContact(belt, K, friction=MU, v_reg=EPS,
                          damping=2.0 * np.sqrt(K * ball.mass))
    model = RodModel(Structure([], bodies=[ball]), [Gravity((0.0, 0.0, -G))],
                     extensions=[contact])
    skip_if_chain_refuses(model)
    it = Integrator(model, h, TIGHT)
    model.ledger.current()
    m = ball.mass                # the energies' scale: the resting penalty's, the motion's
    scale = (m * G) ** 2 / (2.0 * K) + m * U**2
    t, x, res, bound, port = [], [], [], [], 0.0
    for _ in range(round(t_end / h)):
        w_prev = model.w0.x.array.copy()
        r = it.step()
        t.append(it.t)
        x.append(model.w0.x.array[model.space.q_map].reshape(-1, 12)[0, 0])
        res.append(r.energy_residual)
        bound.append(newton_bound(TIGHT, effort_norm(model, w_prev, h)) + roundoff(scale))
        port += r.port_work
    late = np.array(t) > t_end - 0.1
    speed = np.polyfit(np.array(t)[late], np.array(x)[late], 1)[0]
    return speed, np.array(res), np.array(bound), port


def test_ball_on_a_belt_rolls_at_two_sevenths_and_the_belt_works():
    """A moving obstacle: a belt starts under the settled ball at U. In the belt's frame the
    ball is launched at -U without spin, so it ends rolling at ``2/7 U`` (ground frame);
    the belt's work is booked as port work and the ledger closes every step. The error is
    the midpoint rule's, ``O((U h/R)^2)``: below ``(U h/R)^2`` and of order 2 in h."""
    U, errs = 0.5, []
    for h in (1e-3, 5e-4):
        speed, res, bound, port = _belt(h, U)
        errs.append(abs(speed / (2.0 / 7.0 * U) - 1.0))
        print(f"h = {h}: belt ball at {speed:.9f} m/s vs 2/7 U = {2 / 7 * U:.9f} "
              f"(rel {speed / (2 / 7 * U) - 1:+.2e}); belt's work {port:.6f} J")
        assert errs[-1] <= (U * h / R) ** 2
        assert np.all(np.abs(res) <= bound) and port > 0.0
    assert abs(errs[0] / errs[1] - 4.0) <= 0.5


def test_capsule_slides_like_a_block():
    """A capsule (radius 5 cm, segment 0.3 m: ``ContactCapsule``, its two end spheres)
    lying on the ground, settled and launched along its axis at v0 without spin, slides
    without rolling: friction acts at both ends below the centre and its moment only shifts
    the normal forces between them, whose sum stays m g; it stops at Coulomb's
    ``v0^2/(2 mu g)`` (the translational regularised law exceeds it by
    ``(eps/v0)^2 (ln(2 v0/eps) + 1/2)`` relatively), within ``mu g h^2/2`` of the stop
    between two samples."""
    r, length, h = 0.05, 0.3, 1e-3
    axis_e1 = [(0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)]      # d3 = e1
    body = FreeBody.cylinder(r, length, RHO, (0.0, 0.0, r), directors=axis_e1,
                             shapes=[ContactCapsule(r, length)])
    contact = BodyContact(HalfSpace(), K, friction=MU, v_reg=EPS,
                          damping=2.0 * np.sqrt(K * body.mass / 2.0))   # each end's half
    model = RodModel(Structure([], bodies=[body]), [Gravity((0.0, 0.0, -G))],
                     extensions=[contact])
    skip_if_chain_refuses(model)
    it = Integrator(model, h, TIGHT)
    for _ in range(round(SETTLE / h)):
        it.step()

    def x_now() -> float:
        return float(model.w0.x.array[model.space.q_map].reshape(-1, 12)[0, 0])

    model.set_body_velocity(0, (V0, 0.0, 0.0))
    x0, travel = x_now(), []
    for _ in range(round(SLIDE / h)):
        it.step()
        travel.append(x_now() - x0)
    coulomb = V0**2 / (2.0 * MU * G)
    tol = MU * G * h**2 / 2.0 / coulomb + (EPS / V0) ** 2 * (np.log(2.0 * V0 / EPS) + 0.5)
    print(f"capsule stops at {max(travel) * 1e3:.6f} mm, Coulomb {coulomb * 1e3:.6f} mm "
          f"(rel {max(travel) / coulomb - 1:+.2e}, tol {tol:.1e})")
    assert abs(max(travel) / coulomb - 1.0) <= tol


def _box_on_ground(h: float):
    """A rounded box (0.2 x 0.1 x 0.06 m, edges rounded at 1 cm) flat on the ground,
    settled (critical damping of a quarter of its mass on each bottom corner)."""
    a = np.array([0.1, 0.05, 0.03])
    body = FreeBody.box(*(2 * a), RHO, (0.0, 0.0, a[2]), shapes=[ContactBox(a, 0.01)])
    contact = BodyContact(HalfSpace(), K, friction=MU, v_reg=EPS,
                          damping=2.0 * np.sqrt(K * body.mass / 4.0))
    model = RodModel(Structure([], bodies=[body]), [Gravity((0.0, 0.0, -G))],
                     extensions=[contact])
    skip_if_chain_refuses(model)
    it = Integrator(model, h, TIGHT)
    for _ in range(round(SETTLE / h)):
        it.step()
    return model, it, body, a


def test_box_rests_on_four_corners_and_slides_like_a_block():
    """A box flat on the ground rests on its four bottom corner spheres, each carrying a
    quarter of the weight: ``W/(4 k)`` deep (settled to 1e-9 of it) and level; launched
    along e1 it slides to Coulomb's ``v0^2/(2 mu g)`` (the tipping moment of the friction
    only shifts the normal forces between its front and back corners), within ``mu g h^2/2``
    of the stop between samples and the regularisation's excess."""
    h = 1e-3
    model, it, body, a = _box_on_ground(h)
    q = model.w0.x.array[model.space.q_map].reshape(-1, 12)[0]
    depth = a[2] - q[2]
    quarter = body.mass * G / (4.0 * K)
    print(f"box rests {depth * 1e6:.6f} um deep vs W/(4k) = {quarter * 1e6:.6f} um")
    assert abs(depth / quarter - 1.0) <= 1e-9
    assert abs(q[9]) <= 1e-9 and abs(q[10]) <= 1e-9               # d3 stays vertical
    model.set_body_velocity(0, (V0, 0.0, 0.0))
    x0, travel = q[0], []
    for _ in range(round(SLIDE / h)):
        it.step()
        travel.append(model.w0.x.array[model.space.q_map].reshape(-1, 12)[0, 0] - x0)
    coulomb = V0**2 / (2.0 * MU * G)
    tol = MU * G * h**2 / 2.0 / coulomb + (EPS / V0) ** 2 * (np.log(2.0 * V0 / EPS) + 0.5)
    print(f"box stops at {max(travel) * 1e3:.6f} mm, Coulomb {coulomb * 1e3:.6f} mm "
          f"(rel {max(travel) / coulomb - 1:+.2e}, tol {tol:.1e})")
    assert abs(max(travel) / coulomb - 1.0) <= tol


def _cylinder_on_incline(h: float, slope: float = 0.3, mu: float = 0.5):
    """A solid cylinder (radius 5 cm, length 10 cm, rims rounded at 1 cm), its axis across
    an incline of ``slope`` rad, laid at rest on it (normal damping critical on each rim)
    and let go: its travel down the slope per step and the ledger's residuals and bounds."""
    Rr, half = 0.05, 0.05
    n = np.array([np.sin(slope), 0.0, np.cos(slope)])
    across = [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]             # d3 = e2
    body = FreeBody.cylinder(Rr, 2 * half, RHO, tuple(Rr * n), directors=across,
                             shapes=[ContactCylinder(Rr, half, 0.01)])
    model = RodModel(Structure([], bodies=[body]), [Gravity((0.0, 0.0, -G))],
                     extensions=[BodyContact(HalfSpace(normal=n), K, friction=mu, v_reg=EPS,
                                             damping=2.0 * np.sqrt(K * body.mass / 2.0))])
    skip_if_chain_refuses(model)
    it = Integrator(model, h, TIGHT)
    H0 = model.ledger.current()["H"]
    down = np.array([np.cos(slope), 0.0, -np.sin(slope)])
    t, x, res, bound = [], [], [], []
    for _ in range(round(0.3 / h)):
        w_prev = model.w0.x.array.copy()
        r = it.step()
        t.append(it.t)
        x.append(model.w0.x.array[model.space.q_map].reshape(-1, 12)[0, :3] @ down)
        res.append(r.energy_residual)
        bound.append(newton_bound(TIGHT, effort_norm(model, w_prev, h)) + roundoff(H0))
    return np.array(t), np.array(x), np.array(res), np.array(bound)


def test_cylinder_rolls_down_an_incline_at_two_thirds_g_sin():
    """A solid cylinder on its side rolls down an incline without slipping (mu above
    tan(a)/3) at ``2/3 g sin a`` once its bounce on the incline has died out (after
    0.05 s): the friction at its rims' lowest points turns it. The regularised law lets it
    creep at a constant slip, which leaves the acceleration alone;
    the error is the friction lever's ``(omega h)^2/4`` at the final spin (order 2, shown
    by halving h); the ledger closes every step (the rims' gaps move on the body)."""
    slope, errs = 0.3, []
    for h in (2e-3, 1e-3):
        t, x, res, bound = _cylinder_on_incline(h, slope)
        late = t > 0.05
        acc = 2.0 * np.polyfit(t[late], x[late], 2)[0]
        ref = 2.0 / 3.0 * G * np.sin(slope)
        omega = ref * t[-1] / 0.05
        errs.append(abs(acc / ref - 1.0))
        print(f"h = {h}: rolls down at {acc:.9f} m/s^2 vs 2/3 g sin a = {ref:.9f} "
              f"(rel {acc / ref - 1:+.2e}, tol {(omega * h) ** 2 / 4:.1e})")
        assert errs[-1] <= (omega * h) ** 2 / 4.0
        assert np.all(np.abs(res) <= bound)
    assert errs[0] > errs[1]


# ------------------------------------------------------------------ refusals
def test_bad_shapes_and_combinations_one_line():
    with pytest.raises(ParameterError) as e:
        ContactSphere(0.0)
    assert e.value.name == "radius" and "\n" not in str(e.value)
    with pytest.raises(ParameterError, match="length"):
        ContactCapsule(0.1, -1.0)
    with pytest.raises(ParameterError, match="shapes"):
        FreeBody.sphere(0.1, 1000.0, (0, 0, 1), shapes=["ball"])
    ball = FreeBody.sphere(0.1, 1000.0, (0, 0, 1), contact=True)
    with pytest.raises(ParameterError, match="BodyContact") as e:   # shapes, no contact
        RodModel(Structure([], bodies=[ball]))
    assert "\n" not in str(e.value)
    plain = FreeBody.sphere(0.1, 1000.0, (0, 0, 1))
    with pytest.raises(ParameterError, match="body shapes"):         # contact, no shapes
        RodModel(Structure([], bodies=[plain]), extensions=[BodyContact(HalfSpace(), 1e5)])
    sec = Section.circular(0.01, 1e7, 1000.0, nu=0.3)
    rod = Rod(sec, start=(0, 0, 1), end=(1, 0, 1), d1=(0, 1, 0), n_elements=2)
    with pytest.raises(ParameterError, match="body shapes"):         # a rod, no bodies
        RodModel(rod, extensions=[BodyContact(HalfSpace(), 1e5)])
    capsule = FreeBody.cylinder(0.05, 0.2, 1000.0, (0, 0, 1),
                                shapes=[ContactCapsule(0.05, 0.2)])
    with pytest.raises(ParameterError, match="HalfSpace"):
        RodModel(Structure([], bodies=[capsule]),
                 extensions=[BodyContact(Sphere((0, 0, -1), 1.0), 1e5)])
    with pytest.raises(ParameterError, match="overlap"):
        RodModel(Structure([], bodies=[FreeBody.sphere(0.1, 1000.0, (0, 0, 0.05),
                                                       contact=True)]),
                 extensions=[BodyContact(HalfSpace(), 1e5)])
    with pytest.raises(ParameterError, match="stiffness"):
        BodyContact(HalfSpace(), 0.0)


def test_backends():
    """The bodies' contact is UFL on the carriers' nodes, tied by the joint reduction: the
    backends with the ``joints`` flag (MUMPS LU and LDL^T) take it, the chain solver
    refuses it in one line."""
    from fxrod.solvers.backends import BACKENDS

    assert BACKENDS["mumps"].joints and BACKENDS["mumps-ldlt"].joints
    ball = FreeBody.sphere(0.1, 1000.0, (0, 0, 0.1), contact=True)
    model = RodModel(Structure([], bodies=[ball]), [Gravity((0.0, 0.0, -G))],
                     extensions=[BodyContact(HalfSpace(), 1e5, friction=0.3)])
    with pytest.raises(ParameterError, match="chain") as e:
        Integrator(model, 1e-3, SolverSettings(linear_solver="chain"))
    assert "\n" not in str(e.value)
    Integrator(model, 1e-3, SolverSettings(linear_solver="mumps")).step()
