"""Free bodies touching each other and the rods (fxrod.core.forms.bodypairs.ShapeContact).

* Two balls collide head-on (the pair penalty a linear spring ``k``): equal and opposite
  forces, so the momentum is constant to round-off and the ledger closes every step to the
  Newton tolerance; two conserved quantities in one dimension leave the rebound exact
  (restitution 1); the contact lasts ``pi sqrt(m_eff/k)`` (``m_eff = m/2``) within the
  midpoint rule's phase error: its period is ``2 pi/omega_h``, ``omega_h = (2/h)
  arctan(omega h/2)``, ``(omega h)^2/12`` relative, and the entry and exit fall between
  steps; order 2 shown by halving h. The same for a ball striking a capsule, a rounded box
  and a rounded cylinder on a face (their surfaces there are planes or spheres).
* A ball off-centre and spinning strikes a box, a capsule and a cylinder: linear and
  angular momentum constant (the discrete gradient's forces are equal, opposite and on one
  line through the bodies' midpoint positions), the ledger closes.
* A ball resting on a clamped-clamped beam (settled by the pairs' normal damping): the
  beam's mid-span deflection is the Timoshenko closed form ``W L^3/(192 EI) + W L/(4 GA)``
  and the ball sits ``W/k`` deeper (one node pair carries it), within the oscillation left
  and the geometric nonlinearity ``(w/r)^2``.
* A ball with backspin ``-5/2 v0/R`` launched along a rod stops dead at Coulomb's
  ``v0^2/(2 mu g)``: the friction acts at the contact points, the rod's nodes pass under
  the ball (the bumps between nodes change its height by at most ``e^2/(8 (R + r))``,
  ``e`` the node spacing, which shifts the stop by at most that over ``mu``), and the
  friction on the ball is ``mu`` times its normal force while it slides; the ledger
  closes every step with ``D >= 0``.
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.forms.bodypairs import ShapeContact
from fxrod.core.freebody import (
    ContactBox,
    ContactCapsule,
    ContactCylinder,
    ContactSphere,
    FreeBody,
)
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import effort_norm, newton_bound, roundoff

TIGHT = SolverSettings(atol=1e-12, jacobian_lag=1)
R, RHO, K, V = 0.05, 1000.0, 1e4, 0.2          # ball radius, density, pair stiffness, speed
G, MU, EPS = 9.81, 0.3, 1e-4


def _centre(model, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Position [m] and velocity [m/s] of body i's centre at t_n (serial)."""
    st = model.structure
    s = model.space.Q.tabulate_dof_coordinates()[:, 0]
    node = int(np.argmin(np.abs(s - st.coordinate(st.body_rod(i), "0"))))
    return (model.q_nodal_local()[node, :3].copy(),
            model.v0.x.array.reshape(-1, 12)[node, :3].copy())


def _spin(model, i: int) -> np.ndarray:
    """Angular momentum [kg m^2/s] of body i about its centre at t_n (serial):
    ``sum_jk E_jk d_j x v_dk`` (the director formulation's)."""
    st = model.structure
    s = model.space.Q.tabulate_dof_coordinates()[:, 0]
    node = int(np.argmin(np.abs(s - st.coordinate(st.body_rod(i), "0"))))
    d = model.q_nodal_local()[node, 3:].reshape(3, 3)
    v = model.v0.x.array.reshape(-1, 12)[node, 3:].reshape(3, 3)
    b = st.bodies[i]
    J = (d @ b.R) @ (b.R.T @ b.inertia @ b.R) @ (d @ b.R).T     # in the node's directors
    E = 0.5 * np.trace(J) * np.eye(3) - J
    return sum(E[j, k] * np.cross(d[j], v[k]) for j in range(3) for k in range(3))


# ------------------------------------------------------------------ head-on impacts
def _target(shape: str) -> FreeBody:
    """A body of the ball's mass whose shape's face at -e1 is 2 cm right of the ball."""
    ball = FreeBody.sphere(R, RHO, (0.0, 0.0, 0.0))
    m, J = ball.mass, ball.inertia
    if shape == "sphere":
        sh, a = ContactSphere(R), R
    elif shape == "capsule":      # d3 = e2: the ball meets its side (a cylinder there)
        sh, a = ContactCapsule(R, 0.1), R
        return FreeBody(m, J, (R + 0.02 + a, 0, 0), shapes=[sh],
                        directors=[(0, 0, 1), (1, 0, 0), (0, 1, 0)], velocity=(-V, 0, 0))
    elif shape == "box":
        sh, a = ContactBox((0.04, 0.06, 0.06), 0.01), 0.04
    else:                         # cylinder of axis e1: the ball meets its flat end
        sh, a = ContactCylinder(0.06, 0.04, 0.01), 0.04
        return FreeBody(m, J, (R + 0.02 + a, 0, 0), shapes=[sh],
                        directors=[(0, 1, 0), (0, 0, 1), (1, 0, 0)], velocity=(-V, 0, 0))
    return FreeBody(m, J, (R + 0.02 + a, 0, 0), shapes=[sh], velocity=(-V, 0, 0))


def _head_on(shape: str, h: float) -> dict:
    """Ball at the origin moving along e1 at V towards a body of equal mass moving at -V:
    the contact duration from the free flights' gap lines, the velocities after, the
    momentum and the ledger per step."""
    ball = FreeBody.sphere(R, RHO, (0.0, 0.0, 0.0), contact=True, velocity=(V, 0, 0))
    target = _target(shape)
    model = RodModel(Structure([], bodies=[ball, target]), extensions=[ShapeContact(K)])
    it = Integrator(model, h, TIGHT)
    m = ball.mass
    H0 = model.ledger.current()["H"]
    gap0 = float(_centre(model, 1)[0][0] - _centre(model, 0)[0][0])
    t, gap, p, res, bound = [], [], [], [], []
    for _ in range(round(0.1 / h)):
        w_prev = model.w0.x.array.copy()
        r = it.step()
        (xa, va), (xb, vb) = _centre(model, 0), _centre(model, 1)
        t.append(it.t)
        gap.append(xb[0] - xa[0] - gap0 + 0.02)
        p.append(m * (va + vb))
        res.append(r.energy_residual)
        bound.append(newton_bound(TIGHT, effort_norm(model, w_prev, h)) + roundoff(H0))
    t, gap = np.array(t), np.array(gap)
    before = (gap > 0) & (t < t[np.argmin(gap)])
    after = (gap > 0) & (t > t[np.argmin(gap)])
    a1, b1 = np.polyfit(t[before][-5:], gap[before][-5:], 1)
    a2, b2 = np.polyfit(t[after][:5], gap[after][:5], 1)
    return {"duration": -b2 / a2 + b1 / a1, "v_in": a1, "v_out": a2, "p": np.array(p),
            "res": np.array(res), "bound": np.array(bound), "m": m, "min_gap": gap.min()}


@pytest.mark.parametrize("shape", ["sphere", "capsule", "box", "cylinder"])
def test_head_on_impact_duration_and_elastic_rebound(shape):
    """Contact duration ``pi sqrt(m_eff/k)`` within ``(omega h)^2/4``, order 2 in h; the
    rebound exact (restitution 1 to the ledger's bound), momentum constant to round-off,
    the ledger closes every step, the deepest overlap ``2 V sqrt(m_eff/k)``."""
    errs = []
    for h in (1e-3, 5e-4):
        run = _head_on(shape, h)
        m_eff = run["m"] / 2.0
        omega = np.sqrt(K / m_eff)
        T = np.pi / omega
        errs.append(abs(run["duration"] / T - 1.0))
        print(f"{shape} h = {h}: contact {run['duration'] * 1e3:.6f} ms vs pi sqrt(m/k) "
              f"{T * 1e3:.6f} ms (rel {run['duration'] / T - 1:+.2e}); restitution "
              f"{-run['v_out'] / run['v_in']:.12f}")
        assert errs[-1] <= (omega * h) ** 2 / 4.0
        # restitution: the relative kinetic energy m_eff v^2/2 is exact to the ledger
        e_rel = 0.5 * m_eff * run["v_in"] ** 2
        assert abs(-run["v_out"] / run["v_in"] - 1.0) <= run["bound"].sum() / e_rel
        assert np.all(np.abs(run["res"]) <= run["bound"])
        steps = len(run["p"])             # the momentum rows of the 6 carrier nodes
        assert np.max(np.abs(run["p"] - run["p"][0])) <= roundoff(run["m"] * V, steps) \
            + newton_bound(TIGHT, np.sqrt(6.0), steps)
        depth = 2.0 * V * np.sqrt(m_eff / K)
        assert abs(-run["min_gap"] / depth - 1.0) <= (omega * h) ** 2
    assert 3.0 <= errs[0] / errs[1] <= 5.0


@pytest.mark.parametrize("shape", [ContactBox((0.04, 0.05, 0.06), 0.01),
                                   ContactCapsule(0.03, 0.1),
                                   ContactCylinder(0.05, 0.04, 0.01)])
def test_oblique_impact_conserves_momenta(shape):
    """A spinning ball strikes a tilted body off its centre: the linear and angular momenta
    (about the origin) are constant to round-off plus the Newton tolerance, the ledger
    closes every step and the bodies touched (the target moves and turns)."""
    c, s = np.cos(0.4), np.sin(0.4)
    dirs = [(c, s, 0.0), (-s, c, 0.0), (0.0, 0.0, 1.0)]
    dirs = [tuple(np.array(d) @ np.array([[1, 0, 0], [0, c, -s], [0, s, c]])) for d in dirs]
    ball = FreeBody.sphere(0.03, RHO, (-0.1, 0.02, 0.015), contact=True,
                           velocity=(0.5, 0.0, 0.0), angular_velocity=(1.0, -2.0, 3.0))
    target = FreeBody.box(0.1, 0.1, 0.1, 500.0, (0.0, 0.0, 0.0), directors=dirs,
                          shapes=[shape])
    h = 5e-4
    model = RodModel(Structure([], bodies=[ball, target]), extensions=[ShapeContact(2e4)])
    it = Integrator(model, h, TIGHT)
    H0 = model.ledger.current()["H"]

    def momenta():
        P, L = np.zeros(3), np.zeros(3)
        for i, b in enumerate((ball, target)):
            x, v = _centre(model, i)
            P += b.mass * v
            L += b.mass * np.cross(x, v) + _spin(model, i)
        return P, L

    P0, L0 = momenta()
    steps = round(0.2 / h)
    for _ in range(steps):
        w_prev = model.w0.x.array.copy()
        r = it.step()
        assert abs(r.energy_residual) <= newton_bound(TIGHT, effort_norm(model, w_prev, h)) \
            + roundoff(H0)
    P1, L1 = momenta()
    scale = ball.mass * 0.5
    tol = roundoff(scale, steps) + newton_bound(TIGHT, np.sqrt(6.0), steps)
    print(f"{type(shape).__name__}: |dP| {np.abs(P1 - P0).max():.2e}, |dL| "
          f"{np.abs(L1 - L0).max():.2e} (tol {tol:.1e})")
    assert np.abs(P1 - P0).max() <= tol
    assert np.abs(L1 - L0).max() <= tol * 0.2          # lever arms below 0.2 m
    assert np.linalg.norm(_centre(model, 1)[1]) > 0.01 and np.linalg.norm(_spin(model, 1)) > 0


# ------------------------------------------------------------------ a ball on a rod
SEC = Section.circular(0.005, 2e11, 7800.0, nu=0.3)      # steel, r = 5 mm
L_ROD = 0.2


def ball_on_beam(n: int = 8):
    """A steel ball (R 3 cm) on the mid-span node of a clamped-clamped steel rod (0.2 m),
    its weight an end load at its centre, pair stiffness = the beam's 192 EI/L^3, the
    pairs' damping critical for the ball on it."""
    r = SEC.contact_radius
    rod = Rod(SEC, start=(-L_ROD / 2, 0, 0), end=(L_ROD / 2, 0, 0), d1=(0, 1, 0), n_elements=n)
    ball = FreeBody.sphere(0.03, 7800.0, (0.0, 0.0, 0.03 + r), contact=True)
    k = 192.0 * SEC.stiffness[3] / L_ROD**3
    contact = ShapeContact(k, damping=2.0 * np.sqrt(k * ball.mass))
    model = RodModel(Structure([rod], bodies=[ball]),
                     [EndLoad("0", force=(0, 0, -ball.mass * G), rod=1)],
                     [Clamp("0"), Clamp("L")], [contact])
    return model, contact, ball, k


def test_ball_resting_on_a_clamped_beam():
    """Settled, the mid-span deflects by ``W L^3/(192 EI) + W L/(4 GA)`` and the ball sits
    ``W/k`` deeper on it, within the oscillation left (its range over the last 5 ms) and
    ``(w/r)^2`` (the beam's stretching); the contact force carries the weight."""
    model, contact, ball, k = ball_on_beam()
    h = 1e-4
    it = Integrator(model, h, TIGHT)
    zs = []
    for _ in range(round(0.04 / h)):
        it.step()
        zs.append(contact.body_pose(0)[0][2])
    W, EI, GA, r = ball.mass * G, SEC.stiffness[3], SEC.stiffness[0], SEC.contact_radius
    w = W * L_ROD**3 / (192.0 * EI) + W * L_ROD / (4.0 * GA)
    drop = w + W / k
    left = np.ptp(zs[-50:]) / drop
    tol = left + (w / r) ** 2
    err = (0.03 + r - zs[-1]) / drop - 1.0
    print(f"ball sinks {(0.03 + r - zs[-1]) * 1e6:.6f} um vs {drop * 1e6:.6f} um "
          f"(rel {err:+.2e}, tol {tol:.1e})")
    assert left <= 1e-3 and abs(err) <= tol
    normal, _ = contact.force_on_body(0)
    assert abs(normal[2] / W - 1.0) <= tol


def _slide(n: int, h: float = 1e-3, v0: float = 0.5):
    """A light ball (R 0.1 m, 1000 kg/m^3) on a clamped steel rod of n elements, settled
    (critical normal damping, then none), then launched along the rod with the backspin
    ``-5/2 v0/R``: its travel, the friction over the normal force while it slides, the
    ledger per step."""
    r = SEC.contact_radius
    Rb = 0.1
    rod = Rod(SEC, start=(-L_ROD / 2, 0, 0), end=(L_ROD / 2, 0, 0), d1=(0, 1, 0), n_elements=n)
    ball = FreeBody.sphere(Rb, 1000.0, (-0.05, 0.0, Rb + r), contact=True)
    W = ball.mass * G
    k = W / 2e-3 / 2.0                   # ~2 mm deep on ~2 nodes
    contact = ShapeContact(k, friction=MU, v_reg=EPS, damping=2.0 * np.sqrt(2 * k * ball.mass))
    model = RodModel(Structure([rod], bodies=[ball]), [EndLoad("0", force=(0, 0, -W), rod=1)],
                     [Clamp("0"), Clamp("L")], [contact])
    it = Integrator(model, h, TIGHT)
    for _ in range(round(0.15 / h)):
        it.step()
    contact.set_damping(0.0)            # settled: the damping would take the bumps' energy
    model.set_body_velocity(0, (v0, 0.0, 0.0), (0.0, -2.5 * v0 / Rb, 0.0))
    H0 = model.ledger.current()["H"]
    x0 = contact.body_pose(0)[0][0]
    out = {k: [] for k in ("x", "d", "ratio", "res", "bound", "diss")}
    for _ in range(round(1.3 * v0 / (MU * G) / h)):
        w_prev = model.w0.x.array.copy()
        res = it.step()
        centre, directors = contact.body_pose(0)
        out["x"].append(centre[0] - x0)
        out["d"].append(directors)
        normal, friction = contact.force_on_body(0)
        out["ratio"].append(np.linalg.norm(friction) / normal[2])
        out["res"].append(res.energy_residual)
        out["bound"].append(newton_bound(TIGHT, effort_norm(model, w_prev, h)) + roundoff(H0))
        out["diss"].append(res.dissipation)
    return {k: np.array(v) for k, v in out.items()}, Rb + r, L_ROD / (2 * n)


@pytest.mark.slow
def test_ball_with_backspin_stops_on_a_rod_at_coulomb_distance():
    """Stops at ``v0^2/(2 mu g)`` within the bumps' ``e^2/(8 (R + r) mu)``, the friction's
    lever ``(omega_0 h)^2/4`` and the stop between samples ``mu g h^2/2``, and stands (it
    turns by less than ``e/(2 R)`` after: without the friction's moment it would spin on
    and slide back); while it slides
    fast the friction is ``mu`` times the normal force (within the normals' tilt
    ``e^2/(8 (R + r)^2)`` and the regularisation ``(eps/v)^2``); the ledger closes with
    ``D >= 0``."""
    v0, h = 0.5, 1e-3
    run, reach, e = _slide(8, h, v0)
    coulomb = v0**2 / (2.0 * MU * G)
    stop = run["x"].max()
    tol = (e**2 / (8.0 * reach * MU) + MU * G * h**2 / 2.0) / coulomb \
        + (2.5 * v0 / 0.1 * h) ** 2 / 4.0
    print(f"stops at {stop * 1e3:.4f} mm vs Coulomb {coulomb * 1e3:.4f} mm "
          f"(rel {stop / coulomb - 1:+.2e}, tol {tol:.1e})")
    assert abs(stop / coulomb - 1.0) <= tol
    # then it stands: spin and slip vanished together; it may only roll into the dip
    # between two nodes (at most e/2, a turn of e/(2 R))
    i = int(np.argmax(run["x"]))
    turn = np.arccos(np.clip((np.trace(run["d"][-1] @ run["d"][i].T) - 1.0) / 2.0, -1, 1))
    assert turn <= e / (2.0 * 0.1) and abs(run["x"][-1] - stop) <= e / 2.0
    sliding = slice(2, len(run["x"]) // 2)                 # slip speed > 3/2 v0 there
    assert np.all(np.abs(run["ratio"][sliding] / MU - 1.0) <= e**2 / (8 * reach**2) + 1e-6)
    assert np.all(run["diss"] >= 0.0) and np.all(np.abs(run["res"]) <= run["bound"])


# ------------------------------------------------------------------ shapes and input
@pytest.mark.parametrize("shape", [ContactSphere(0.05, (0.01, 0.0, -0.02)),
                                   ContactCapsule(0.03, 0.1),
                                   ContactBox((0.04, 0.05, 0.06), 0.01, (0.0, 0.01, 0.0)),
                                   ContactCylinder(0.05, 0.04, 0.01, (0.01, 0.0, 0.0))])
def test_signed_distances(shape):
    """Outside its core each shape's signed distance is the distance to the core's closest
    point (the core's projection: clipping for a box, a segment, a cylinder) minus the
    rounding, to round-off; its gradient equals central differences and has unit length."""
    rng = np.random.default_rng(1)
    xi = rng.uniform(-0.12, 0.12, (400, 3))
    d, grad = shape.distance(xi)
    p = xi - np.asarray(getattr(shape, "offset", (0.0, 0.0, 0.0)))
    if isinstance(shape, ContactSphere):
        proj, rounding = np.zeros_like(p), shape.radius
    elif isinstance(shape, ContactCapsule):
        proj = np.column_stack([0 * p[:, 0], 0 * p[:, 0],
                                np.clip(p[:, 2], -shape.length / 2, shape.length / 2)])
        rounding = shape.radius
    elif isinstance(shape, ContactBox):
        proj, rounding = np.clip(p, -shape.core, shape.core), shape.rounding
    else:
        rounding = shape.rounding
        rho = np.linalg.norm(p[:, :2], axis=1)
        scale = np.minimum(1.0, (shape.radius - rounding) / rho)
        hc = shape.half_length - rounding
        proj = np.column_stack([p[:, :2] * scale[:, None], np.clip(p[:, 2], -hc, hc)])
    ref = np.linalg.norm(p - proj, axis=1) - rounding
    outside = ref > -rounding + 1e-9
    assert np.max(np.abs(d[outside] - ref[outside])) <= 1e-15
    step = 1e-6
    fd = np.stack([(shape.distance(xi + step * e)[0] - shape.distance(xi - step * e)[0])
                   / (2 * step) for e in np.eye(3)], axis=1)
    assert np.max(np.abs(fd[outside] - grad[outside])) <= 1e-6
    assert np.allclose(np.linalg.norm(grad[outside], axis=1), 1.0)


def test_bad_input_and_refusals_one_line():
    with pytest.raises(ParameterError, match="rounding"):
        ContactBox((0.1, 0.1, 0.01), 0.02)
    with pytest.raises(ParameterError, match="half_extents"):
        ContactBox((0.1, -0.1, 0.1), 0.01)
    with pytest.raises(ParameterError, match="rounding"):
        ContactCylinder(0.05, 0.1, 0.06)
    with pytest.raises(ParameterError, match="stiffness"):
        ShapeContact(0.0)
    with pytest.raises(ParameterError, match="friction"):
        ShapeContact(1.0, friction=-0.1)
    box = FreeBody.box(0.1, 0.1, 0.1, 500.0, (0, 0, 0), shapes=[ContactBox((0.05,) * 3, 0.01)])
    box2 = FreeBody.box(0.1, 0.1, 0.1, 500.0, (1, 0, 0), shapes=[ContactBox((0.05,) * 3, 0.01)])
    with pytest.raises(ParameterError, match="ContactSphere on one side") as e:
        RodModel(Structure([], bodies=[box, box2]), extensions=[ShapeContact(1e3)])
    assert "\n" not in str(e.value)
    RodModel(Structure([], bodies=[box, box2]),
             extensions=[ShapeContact(1e3, between_bodies=False)])
    ball = FreeBody.sphere(0.05, 1000.0, (0, 0, 0), contact=True)
    near = FreeBody.sphere(0.05, 1000.0, (0.09, 0, 0), contact=True)
    with pytest.raises(ParameterError, match="overlap"):
        RodModel(Structure([], bodies=[ball, near]), extensions=[ShapeContact(1e3)])
    with pytest.raises(ParameterError, match="quasi-static"):
        RodModel(Structure([], bodies=[ball]), extensions=[ShapeContact(1e3)],
                 quasistatic=True)
    with pytest.raises(ParameterError, match="rods"):
        RodModel(Structure([], bodies=[ball]), extensions=[ShapeContact(1e3, rods=[2])])
    plain = FreeBody.sphere(0.05, 1000.0, (0, 0, 0))
    with pytest.raises(ParameterError, match="body shapes"):
        RodModel(Structure([], bodies=[plain]), extensions=[ShapeContact(1e3)])
    from fxrod.core.forms.bodycontact import BodyContact
    from fxrod.core.obstacles import Sphere

    drum = FreeBody.cylinder(0.05, 0.1, 1000.0, (0, 0, 1),
                             shapes=[ContactCylinder(0.05, 0.05, 0.01)])
    with pytest.raises(ParameterError, match="HalfSpace") as e:    # rims touch planes only
        RodModel(Structure([], bodies=[drum]),
                 extensions=[BodyContact(Sphere((0, 0, -1), 1.0), 1e5)])
    assert "\n" not in str(e.value)
    with pytest.raises(ParameterError, match="damping"):
        ShapeContact(1e3).set_damping(-1.0)


def test_linearised_analyses_and_the_adjoint_refuse_it():
    """Modes, buckling and the PH export refuse the pairs in one line; the adjoint refuses
    the joint reduction that carries the bodies."""
    from fxrod.analysis.adjoint import Adjoint, FinalPose
    from fxrod.analysis.modes import buckling, modes
    from fxrod.analysis.phmodel import Input, linear_ph

    model, *_ = ball_on_beam()
    for analysis in (lambda: modes(model, 2), lambda: buckling(model),
                     lambda: linear_ph(model, [Input("tip", "force", "L", (0, 0, 1))])):
        with pytest.raises(ParameterError, match="no ShapeContact for a linearised") as e:
            analysis()
        assert "\n" not in str(e.value)
    with pytest.raises(ParameterError, match="without joints"):
        Adjoint(Integrator(model, 1e-4, TIGHT), 1e-4, FinalPose((0.0, 0.0, 0.0)), [])


@pytest.mark.mpi
def test_ball_on_beam_mpi_equals_serial():
    """The ball settling on the beam on 2 ranks: the ball's pose after 100 steps equals the
    serial one to round-off (every rank gathers all nodes, each adds its rows)."""
    from tests.conftest import run_mpi

    code = ("from tests.test_body_pairs import ball_on_beam, TIGHT\n"
            "from fxrod.runs.integrators import Integrator\n"
            "model, contact, *_ = ball_on_beam()\n"
            "it = Integrator(model, 1e-4, TIGHT)\n"
            "for _ in range(100): it.step()\n"
            "x, d = contact.body_pose(0)\n"
            "if model.comm.rank == 0: print('X', *x.tolist(), *d.reshape(-1).tolist())\n")
    out = run_mpi(["-c", code]).stdout
    got = np.array([float(v) for v in out.split("X", 1)[1].split()[:12]])
    model, contact, *_ = ball_on_beam()
    it = Integrator(model, 1e-4, TIGHT)
    for _ in range(100):
        it.step()
    x, d = contact.body_pose(0)
    ref = np.concatenate([x, d.reshape(-1)])
    print(f"MPI - serial: {np.abs(got - ref).max():.2e}")
    assert np.abs(got - ref).max() <= roundoff(1.0, 100)


# ------------------------------------------------------------------ restart, sweeps
def test_restart_equals_the_uninterrupted_run(tmp_path):
    """The ball settling on the beam, stopped after 6 of 12 steps (its last checkpoint) and
    restarted in a new model, ends at the uninterrupted run's state (every dof, round-off
    of both runs' steps): the pairs keep no state but the nodes'."""
    from fxrod.runs.simulation import Simulation
    from tests.test_capability_adjoint_restart import assert_same_state

    h, steps = 1e-4, 12

    def sim(out, every=0, restart=None):
        return Simulation(Integrator(ball_on_beam()[0], h, TIGHT), out, "run",
                          checkpoint_every=every, restart=restart)

    full = sim(tmp_path / "full")
    full.run(steps * h)
    sim(tmp_path / "cut", 3).run(steps * h / 2)
    resumed = sim(tmp_path / "cut", 3, restart=tmp_path / "cut")
    resumed.run(steps * h)
    assert resumed.integ.step_count == steps
    assert_same_state(resumed.model, full.model.w0.x.array, full.model.v0.x.array, 2 * steps)


def head_on(stiffness: float = 1e4, comm=None):
    """Two balls (R 5 cm, 1000 kg/m^3) 2 cm apart approaching at 0.2 m/s each, pair
    stiffness ``stiffness`` [N/m]; 100 steps of 1 ms."""
    from fxrod.runs.problem import Problem

    ball = FreeBody.sphere(R, RHO, (0.0, 0.0, 0.0), contact=True, velocity=(V, 0, 0))
    other = FreeBody.sphere(R, RHO, (2 * R + 0.02, 0.0, 0.0), contact=True,
                            velocity=(-V, 0, 0))
    model = RodModel(Structure([], bodies=[ball, other]),
                     extensions=[ShapeContact(stiffness)], comm=comm)
    return Problem(model, 1e-3, 0.1, TIGHT)


def test_sweep_head_on_contact_duration(tmp_path):
    """The head-on impact swept over k = 1e4 and 4e4 N/m: every point equals its single run;
    each ball ends where the contact's duration ``pi sqrt(m_eff/k)`` puts it (it rebounds at
    V after ``0.01/V + T``), within V times the duration's error ``(omega h)^2/4 T``."""
    from tests.test_capability_sweeps import sweep_and_singles

    sums = sweep_and_singles(head_on, ["stiffness=1e4,4e4"], tmp_path)
    m, h, t_end = FreeBody.sphere(R, RHO, (0, 0, 0)).mass, 1e-3, 0.1
    for k, s in zip((1e4, 4e4), sums, strict=True):
        omega = np.sqrt(2.0 * k / m)
        T = np.pi / omega
        t_in = 0.01 / V
        x_end = V * t_in - V * (t_end - t_in - T)
        print(f"k = {k:g}: ball at {s['body_1']:.9f} m vs {x_end:.9f} m")
        assert abs(s["body_1"] - x_end) <= V * T * (omega * h) ** 2 / 4.0
