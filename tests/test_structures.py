"""Rods coupled by joints and closed rods (theory §2.7): rings at rest, rigid motion and
free flight of a ring; welded rods equal one rod; the right-angle frame against the linear
frame formula; spherical and revolute joints in motion; bad input."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.geometry import Arc, Circle, CurveFunction
from fxrod.core.joints import Revolute, Rigid, Spherical
from fxrod.core.loads import DistributedLoad, EndLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.claims import assert_claim, assert_printed

SEC = Section.circular(radius=0.02, E=1e7, rho=1000.0, nu=0.3)
TIGHT = SolverSettings(atol=1e-11, jacobian_lag=1)


def ring(n: int = 16) -> Rod:
    return Rod(SEC, curve=Circle(0.5), n_elements=n)


def test_ring_at_rest_and_closed():
    """An unloaded ring stays exactly at rest (H = 0, momenta 0); its two ends are one
    material point (position and frame) to round-off."""
    model = RodModel(ring())
    assert model.reduction.n_eliminated == 18     # 12 q and 6 multipliers of the end L
    sim = Simulation(Integrator(model, 0.1))
    sim.run(0.5)
    for col in ("H", "kinetic", "strain_energy", "p_1", "p_2", "p_3", "J_1", "J_2", "J_3"):
        assert_claim("struct-ring-rest", sim.column(col), 0.0)
    L = model.structure.rods[0].length
    assert np.max(np.abs(model.nodes.node_q(L) - model.nodes.node_q(0.0))) <= 1e-15


def test_ring_rigid_translation():
    """A ring given a uniform velocity translates rigidly: no strain energy, H and p
    constant, the ends stay joined."""
    model = RodModel(ring())
    v = np.array([0.3, 0.1, -0.2])
    model.set_velocity(v_phi=v)
    sim = Simulation(Integrator(model, 0.02, TIGHT))
    sim.run(1.0)
    H = sim.column("H")
    assert np.ptp(H) <= 1e-13 * H[0]
    assert_claim("struct-ring-rigid", sim.column("strain_energy"), 0.0)
    mass = SEC.rhoA * model.structure.rods[0].length
    for i in range(3):
        assert np.max(np.abs(sim.column(f"p_{i + 1}") - mass * v[i])) <= 1e-13 * mass
    L = model.structure.rods[0].length
    assert np.max(np.abs(model.nodes.node_q(L) - model.nodes.node_q(0.0))) <= 1e-15


def test_ring_free_flight_conserves():
    """A spinning ring hit by a pulse (a force and moment at the joined point and a
    uniform load) deforms; the energy balance holds to solver tolerance every step, after
    the pulse the momenta are constant to round-off and the orthonormality constraints
    hold to the Newton tolerance (atol / h: the constraint rows are scaled by h)."""
    def f(t):
        return np.sin(np.pi * t / 0.2) if t < 0.2 else 0.0

    model = RodModel(ring(), [EndLoad("0", force=lambda t: 2.0 * f(t) * np.array([1.0, 0.0, 0.3]),
                                      moment=lambda t: 0.2 * f(t) * np.array([0.0, 1.0, 0.0])),
                              DistributedLoad(force=lambda t: f(t) * np.array([0.0, 0.5, 0.0]))])
    model.set_velocity(omega=(0.0, 0.0, 2.0))
    h = 0.01
    sim = Simulation(Integrator(model, h, TIGHT))
    sim.run(0.6)
    H = sim.column("H")
    assert_claim("struct-ring-balance", sim.column("energy_residual") / H.max(), 1e-10)
    assert np.max(sim.column("strain_energy")) > 1e-4 * H.max()   # it really deforms
    after = sim.column("t") >= 0.2 - 1e-12
    for c in ("p_1", "p_2", "p_3", "J_1", "J_2", "J_3"):
        x = sim.column(c)[after]
        assert np.ptp(x) <= 1e-11 * max(1.0, np.max(np.abs(x))), c
    assert np.max(sim.column("constraint_max")) <= TIGHT.atol / h


def _cantilever(parts: int, n: int, P: float):
    """A straight cantilever of length 1 along e1 as ``parts`` rods welded straight."""
    L = 1.0 / parts
    rods = [Rod(SEC, start=(k * L, 0.0, 0.0), end=((k + 1) * L, 0.0, 0.0), d1=(0, 1, 0),
                n_elements=n) for k in range(parts)]
    joints = [Rigid((k, "L"), (k + 1, "0")) for k in range(parts - 1)]
    body = rods[0] if parts == 1 else Structure(rods, joints)
    model = RodModel(body, [EndLoad("L", rod=parts - 1, force=(0.0, 0.0, -P))], [Clamp("0")],
                     quasistatic=True)
    Integrator(model, 1.0, TIGHT).advance_to(1.0)
    x = model.structure.coordinate(parts - 1, "L")
    return model.nodes.node_q(x), model


def test_welded_rods_equal_one_rod():
    """Three rods welded straight are the same discrete system as one rod with the same
    elements: the large-deflection tip equals the single rod's to round-off."""
    q1, _ = _cantilever(1, 12, 20.0)
    q3, m3 = _cantilever(3, 4, 20.0)
    assert m3.reduction.n_eliminated == 2 * 18
    assert abs(q1[2]) > 0.1                         # a large deflection
    assert_claim("struct-welded", q1 - q3, 1e-12)


def test_right_angle_frame_linear():
    """An L-frame: a column of height a clamped at its base, welded at right angles to a
    beam of length b, a small vertical load P at the beam's tip. Linear frame theory
    (bending of both members, the column's shortening, shear): tip drop
    P b^3/(3 EI) + P b^2 a/EI + P a/EA + P b/(kGA); horizontal tip shift P b a^2/(2 EI)."""
    a, b, P = 1.0, 0.8, 1e-4
    column = Rod(SEC, start=(0, 0, 0), end=(0, 0, a), d1=(1, 0, 0), n_elements=16)
    beam = Rod(SEC, start=(0, 0, a), end=(b, 0, a), d1=(0, 1, 0), n_elements=16)
    model = RodModel(Structure([column, beam], [Rigid((0, "L"), (1, "0"))]),
                     [EndLoad("L", rod=1, force=(0.0, 0.0, -P))], [Clamp("0")],
                     quasistatic=True)
    Integrator(model, 1.0, TIGHT).advance_to(1.0)
    tip = model.nodes.node_q(model.structure.coordinate(1, "L"))[:3]
    EI, EA, kGA = SEC.k_b1, SEC.k_e, SEC.k_s1
    drop = P * b**3 / (3 * EI) + P * b**2 * a / EI + P * a / EA + P * b / kGA
    shift = P * b * a**2 / (2 * EI)
    assert_claim("struct-l-frame", -(tip[2] - a) / drop - 1.0, 1e-4)  # geometric: O(P^2)
    assert tip[0] - b == pytest.approx(shift, rel=1e-3)       # the column leans to the load


def test_spherical_double_pendulum():
    """Two rods joined by a ball joint swing under gravity from a clamp: the energy
    balance holds to solver tolerance every step, the joint stays closed to round-off and
    it transmits no moment (the rods' relative rotation grows)."""
    L = 0.5
    upper = Rod(SEC, start=(0, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=6)
    lower = Rod(SEC, start=(L, 0, 0), end=(2 * L, 0, 0), d1=(0, 1, 0), n_elements=6)
    model = RodModel(Structure([upper, lower], [Spherical((0, "L"), (1, "0"))]),
                     [Gravity()], [Clamp("0")])
    sim = Simulation(Integrator(model, 0.005, TIGHT))
    sim.run(0.3)
    H0 = sim.rows[0]["H"]
    e = sim.column("energy_residual")
    assert np.max(np.abs(e)) <= 1e-10 * max(1.0, abs(sim.column("external_work")).max())
    qa = model.nodes.node_q(model.structure.coordinate(0, "L"))
    qb = model.nodes.node_q(model.structure.coordinate(1, "0"))
    assert_claim("struct-joints", qa[:3] - qb[:3], 1e-14)
    # the frames differ: no moment is transmitted
    assert np.max(np.abs(qa[3:] - qb[3:])) > 1e-3
    assert H0 == 0.0


def test_revolute_joint_keeps_axis():
    """A hinge about e2 between two rods of an arc-shaped gripper finger swinging in
    gravity: the hinge axis is the same material line of both rods at every step, the
    positions coincide, and the energy balance holds."""
    upper = Rod(SEC, start=(0, 0, 0), end=(0.4, 0, 0), d1=(0, 1, 0), n_elements=6)
    finger = Rod(SEC, curve=Arc(0.3, 1.0, start=(0.4, 0, 0), tangent=(1, 0, 0),
                                towards_centre=(0, 0, -1)), n_elements=6)
    axis = np.array([0.0, 1.0, 0.0])
    model = RodModel(Structure([upper, finger], [Revolute((0, "L"), (1, "0"), axis=axis)]),
                     [Gravity(g=(0.0, 0.3, -9.81))], [Clamp("0")])
    sim = Simulation(Integrator(model, 0.005, TIGHT))
    sim.run(0.2)
    st = model.structure
    q0 = st.initial_configuration([st.coordinate(0, "L"), st.coordinate(1, "0")])
    a_ref = q0[0, 3:].reshape(3, 3) @ axis
    b_ref = q0[1, 3:].reshape(3, 3) @ axis
    qa = model.nodes.node_q(st.coordinate(0, "L"))
    qb = model.nodes.node_q(st.coordinate(1, "0"))
    ax_a = qa[3:].reshape(3, 3).T @ a_ref
    ax_b = qb[3:].reshape(3, 3).T @ b_ref
    assert np.max(np.abs(ax_a - ax_b)) <= 1e-13
    assert_claim("struct-joints", qa[:3] - qb[:3], 1e-14)
    assert np.max(sim.column("constraint_max")) <= TIGHT.atol / 0.005
    assert np.max(np.abs(sim.column("energy_residual"))) <= 1e-10 * max(
        1.0, np.max(np.abs(sim.column("external_work"))))
    # the finger turns about the hinge: its tangent d3 (equal at the start) leaves the
    # upper rod's, which a weld would keep
    assert np.max(np.abs(qa[9:12] - qb[9:12])) > 1e-4


def test_bad_structures_are_rejected():
    rod_a = Rod(SEC, start=(0, 0, 0), end=(1, 0, 0), d1=(0, 1, 0), n_elements=4)
    rod_b = Rod(SEC, start=(1, 0, 0.1), end=(2, 0, 0), d1=(0, 1, 0), n_elements=4)
    with pytest.raises(ParameterError, match="same point"):
        Structure([rod_a, rod_b], [Rigid((0, "L"), (1, "0"))])
    with pytest.raises(ParameterError, match="rod index"):
        Structure([rod_a], [Rigid((0, "L"), (3, "0"))])
    with pytest.raises(ParameterError, match="a vertex of rod 0"):
        Structure([rod_a, rod_a], [Spherical((0, 0.3), (1, "0"))])
    with pytest.raises(ParameterError, match="axis"):
        Revolute((0, "L"), (1, "0"), axis=(0, 0, 0))
    with pytest.raises(ParameterError, match="joint node a"):
        Rigid(3, (1, "0"))
    with pytest.raises(ParameterError, match="list of Load"):
        RodModel(rod_a, EndLoad("L", force=(0, 0, 1.0)))
    with pytest.raises(ParameterError, match="EndLoad rod"):
        RodModel(rod_a, [EndLoad("L", rod=2, force=(0, 0, 1.0))])
    def line(s):
        return np.column_stack([0 * s, 0 * s, s]), np.broadcast_to(np.eye(3), (s.size, 3, 3))

    with pytest.raises(ParameterError, match="closed curve"):
        RodModel(Rod(SEC, curve=CurveFunction(line, 1.0, closed=True), n_elements=2))


def test_right_angle_cantilever_energy_after_pulse():
    """Simo & Vu-Quoc's right-angle cantilever at their step h = 0.25: after the pulse
    (t >= 2) H is constant to the Newton tolerance (atol 1e-10 on the h-scaled rows:
    measured drift 1.3e-12 of H, largest step residual 8e-11), the weld keeps the legs at
    right angles, the tip swings out of plane by several units (large motion)."""
    from fxrod.runs.simulation import Simulation as Sim
    from fxrod.studies.cases import demo

    prob = demo("right_angle_cantilever").problem(10, h=0.25, t_end=10.0)
    sim = Sim(prob.integrator())
    sim.run(prob.t_end)
    t, H = sim.column("t"), sim.column("H")
    after = t >= 2.0 - 1e-9
    assert_claim("struct-right-angle", np.ptp(H[after]) / H[after][0], 3e-12)
    assert np.max(np.abs(sim.column("energy_residual"))) <= 2e-10
    st = prob.model.structure
    qa = prob.model.nodes.node_q(st.coordinate(0, "L"))
    qb = prob.model.nodes.node_q(st.coordinate(1, "0"))
    # the weld: leg 2's tangent is -d2 of leg 1 (reference: d3 of leg 2 = e2 = -d2 of leg 1)
    assert np.max(np.abs(qb[9:12] + qa[6:9])) <= 1e-13
    assert np.max(sim.column("tip_3")) > 3.0


def test_free_structure_with_rigid_body_conserves():
    """A free-floating star: a rigid hub (a rigid body with an offset centre of mass) with
    three rods fixed to it at 120 degrees (rod 0 at the body's node, rods 1 and 2 by rigid
    links), hit by an end pulse: energy balance to solver tolerance every step; after the
    pulse H, the linear and the angular momentum (rods plus body) constant to round-off;
    the links keep their reference geometry to round-off."""
    from fxrod.core.forms.bodies import RigidBody

    r, L = 0.1, 0.6
    rods = []
    for k in range(3):
        e = np.array([np.cos(2 * np.pi * k / 3), np.sin(2 * np.pi * k / 3), 0.0])
        rods.append(Rod(SEC, start=tuple(r * e), end=tuple((r + L) * e), d1=(0, 0, 1),
                        n_elements=4))
    joints = [Rigid((0, "0"), (k, "0"), link=True) for k in (1, 2)]
    body = RigidBody((0, "0"), mass=0.5, inertia=np.diag([2e-3, 1e-3, 2.5e-3]),
                     centre=(0.01, 0.02, 0.005))

    def f(t):
        return np.sin(np.pi * t / 0.1) if t < 0.1 else 0.0

    model = RodModel(Structure(rods, joints),
                     [EndLoad("L", rod=1, force=lambda t: f(t) * np.array([0.0, 2.0, 1.0]),
                              moment=lambda t: f(t) * np.array([0.05, 0.0, 0.0]))],
                     extensions=[body])
    h = 0.005
    sim = Simulation(Integrator(model, h, TIGHT))
    sim.run(0.4)
    H = sim.column("H")
    assert np.max(np.abs(sim.column("energy_residual"))) <= 1e-10 * H.max()
    after = sim.column("t") >= 0.1 - 1e-12
    assert np.ptp(H[after]) <= 1e-10 * H.max()
    for c in ("p_1", "p_2", "p_3", "J_1", "J_2", "J_3"):
        x = sim.column(c)[after]
        assert_claim("struct-star", np.ptp(x) / max(1.0, np.max(np.abs(x))), 1e-12)
    assert np.max(np.abs(sim.column("p_2"))) > 1e-2          # it was really pushed
    st = model.structure
    q0 = model.nodes.node_q(st.coordinate(0, "0"))
    R0 = q0[3:].reshape(3, 3).T
    ref = st.initial_configuration([st.coordinate(0, "0")])[0]
    for k in (1, 2):
        qk = model.nodes.node_q(st.coordinate(k, "0"))
        refk = st.initial_configuration([st.coordinate(k, "0")])[0]
        c = ref[3:].reshape(3, 3) @ (refk[:3] - ref[:3])
        assert np.max(np.abs(qk[:3] - q0[:3] - R0 @ c)) <= 1e-14


def test_lee_frame_snap_through_and_snap_back():
    """Lee's frame (two rods welded at a right angle, 10 elements per member) traced by
    arc-length continuation: the first limit load P L^2/EI = 18.552 and the second -9.399,
    within 0.9 % and 0.5 % of Simo & Vu-Quoc's (1986) curves (digitised: the mean of the u and
    v curves' extremes, 18.715 and -9.35, which differ from each other by 0.5 % and 2.6 %);
    stable before the first limit point, one unstable direction between the two; the
    vertical displacement turns back (snap-back) between them."""
    from fxrod.studies.cases import demo

    lee = demo("lee_frame")
    cont = lee.continuation(10)
    lee.trace(cont, 95.0, 300)
    limits = [p for p in cont.critical if p.event == "limit"]
    assert len(limits) == 2
    first, second = (np.mean(pair) for pair in lee.DIGITISED_LIMITS)
    assert_printed("lee-limits", [limits[0].lam, limits[1].lam])
    assert_claim("lee-vs-published", [limits[0].lam / first - 1.0, limits[1].lam / second - 1.0],
                 1.5e-2)
    lam = np.array([p.lam for p in cont.path])
    index = np.array([p.index for p in cont.path])
    v = np.array([-p.displacements["load"][1] for p in cont.path])
    before = np.arange(len(lam)) < cont.path.index(limits[0])
    assert_printed("lee-index-before", index[before])
    between = (np.arange(len(lam)) > cont.path.index(limits[0])) & (
        np.arange(len(lam)) < cont.path.index(limits[1]))
    assert_printed("lee-index-between", index[between])
    vb = v[between]
    k = int(np.argmax(vb))
    assert vb[k] > vb[0] + 5.0 and vb[k:].min() < vb[k] - 5.0      # v turns back


@pytest.mark.slow
def test_lee_frame_mesh_convergence():
    """20 and 40 elements per member: the first limit load converged to 1.5e-5, 18.5567 at
    40 elements."""
    from fxrod.studies.cases import demo

    lee = demo("lee_frame")
    lam = []
    for n in (20, 40):
        cont = lee.continuation(n)
        lee.trace(cont, 52.0, 300)
        lam.append(next(p.lam for p in cont.critical if p.event == "limit"))
    assert_claim("lee-converged", lam[1] / lam[0] - 1.0, 4e-5)


def test_closed_chain_triangle_free_flight():
    """A closed chain: three rods welded into a triangle (the third joint closes the loop),
    free, hit by an end pulse: the balance holds to 1e-10 of H every step, p and J are
    constant to round-off after the pulse, the corners stay closed to round-off."""
    a = 0.6
    P = [np.array([0.0, 0.0, 0.0]), np.array([a, 0.0, 0.0]),
         np.array([0.5 * a, 0.5 * np.sqrt(3.0) * a, 0.0])]
    rods = [Rod(SEC, start=tuple(P[k]), end=tuple(P[(k + 1) % 3]), d1=(0, 0, 1), n_elements=4)
            for k in range(3)]
    joints = [Rigid((k, "L"), ((k + 1) % 3, "0")) for k in range(3)]

    def f(t):
        return np.sin(np.pi * t / 0.1) if t < 0.1 else 0.0

    model = RodModel(Structure(rods, joints),
                     [EndLoad("L", rod=1, force=lambda t: f(t) * np.array([0.5, 1.0, 2.0]))])
    sim = Simulation(Integrator(model, 0.005, TIGHT))
    sim.run(0.3)
    H = sim.column("H")
    assert np.max(np.abs(sim.column("energy_residual"))) <= 1e-10 * H.max()
    after = sim.column("t") >= 0.1 - 1e-12
    for c in ("p_1", "p_2", "p_3", "J_1", "J_2", "J_3"):
        x = sim.column(c)[after]
        assert np.ptp(x) <= 1e-12 * max(1.0, np.max(np.abs(x))), c
    st = model.structure
    for k in range(3):
        qa = model.nodes.node_q(st.coordinate(k, "L"))
        qb = model.nodes.node_q(st.coordinate((k + 1) % 3, "0"))
        assert np.max(np.abs(qa[:3] - qb[:3])) <= 1e-14


def test_gravity_with_a_rigid_body_is_refused_in_one_line():
    """A RigidBody carries inertia only: with Gravity its weight would be left out in
    silence, so the model refuses the pair in one line naming the bodies."""
    from fxrod.core.forms.bodies import RigidBody

    rod = Rod(SEC, start=(0, 0, 0), end=(1, 0, 0), d1=(0, 0, 1), n_elements=2)
    body = RigidBody((0, "L"), mass=0.5, inertia=np.diag([2e-3, 1e-3, 2.5e-3]),
                     centre=(1.0, 0.0, 0.0))
    with pytest.raises(ParameterError, match="^invalid loads = .*Gravity with the rigid bodies"):
        RodModel(rod, [Gravity()], [Clamp("0")], [body])
