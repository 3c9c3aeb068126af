"""Contact output (issue 20, item 6): nodal contact forces, gaps and stick/slide states in
the CSV and in ParaView, obstacles as surfaces, force arrows in the pyvista pictures, the
rod-rod contact probe.

References (closed forms, independent of the output code):

* A rod at rest on the ground (penalty k, line weight rhoA g): its nodal contact forces sum
  to the weight rhoA g L, each node carries the P2 consistent share (l/6, 2l/3, l/6 of the
  element's load) and the gap is -rhoA g / k.
* During the drop, the discrete momentum balance of the midpoint rule holds to the Newton
  tolerance: ``(p_{n+1} - p_n)/h = W + sum of the nodal contact forces of the step``.
* On a plane inclined by alpha: sliding (tan alpha > mu) the friction resultant is mu times
  the normal one (up to the regularisation, 1 - (eps/v)^2/2 < 1e-5); sticking (tan alpha <
  mu) the contact forces carry the whole weight and the nodes creep at the regularised law's
  eps s/sqrt(1 - s^2), below the sliding threshold.
* Two crossing rods (statics): the probe's force equals the clamps' reactions of the lower
  beam and the linear Timoshenko value of tests/test_rodcontact.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import pyvista as pv

from fxrod import viz
from fxrod.core.forms.contact import Contact
from fxrod.core.forms.rodcontact import RodContact
from fxrod.core.loads import EndLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.obstacles import Cylinder, HalfSpace, Sphere
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.output.paraview import pvd_entries, read_pvd
from fxrod.runs.integrators import Integrator
from fxrod.runs.probes import SLIDE, STICK, ContactFieldProbe, RodContactProbe, obstacle_surface
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.claims import assert_claim
from tests.conftest import ROOT, assert_picture

G = 9.81
R = 0.01                                        # section radius [m]
SEC = Section.circular(R, 1e6, 1000.0, nu=0.4)  # rhoA = 0.314 kg/m
K = 1e5                                         # penalty stiffness [N/m^2]
N_EL = 4


def _on_plane(alpha_deg: float, mu: float, out=None, t_end: float = 0.1):
    """A 1 m rod laid on the plane through 0 with slope alpha (downhill -e1) under gravity,
    critically damped normal contact with friction mu, recorded every 2 ms."""
    a = np.radians(alpha_deg)
    n = np.array([-np.sin(a), 0.0, np.cos(a)])
    up = np.array([np.cos(a), 0.0, np.sin(a)])
    rod = Rod(SEC, start=tuple(R * n), end=tuple(R * n + up), d1=(0, 1, 0), n_elements=N_EL)
    contact = Contact(HalfSpace(normal=n), stiffness=K, friction=mu,
                      damping=2 * np.sqrt(K * SEC.rhoA))
    model = RodModel(rod, loads=[Gravity((0, 0, -G))], extensions=[contact])
    probe = ContactFieldProbe(contact)
    sim = Simulation(Integrator(model, 2e-3, SolverSettings()), out, "rest",
                     paraview_every=10 if out is not None else 0, snapshot_times=[t_end],
                     probes=[probe])
    sim.run(t_end)
    return sim, probe, n, up


@pytest.fixture(scope="module")
def resting(tmp_path_factory):
    out = tmp_path_factory.mktemp("rest")
    sim, probe, _, _ = _on_plane(0.0, 0.5, out)
    return sim, probe, out


def _total(sim) -> np.ndarray:
    return np.stack([sim.column(f"contact_total_force_{i}") for i in (1, 2, 3)], axis=1)


def test_rod_at_rest_nodal_forces_are_the_weight(resting):
    """Sum of the nodal forces = weight rhoA g L (1e-9), P2 consistent shares, gap = -f/k."""
    sim, probe, _ = resting
    W = SEC.rhoA * G * 1.0
    assert_claim("contact-nodal-weight", (_total(sim)[-1] - (0.0, 0.0, W)) / W, 1e-9)
    fr = probe.last
    l_e = 1.0 / N_EL
    share = np.r_[np.tile([1 / 3, 2 / 3], N_EL), 1 / 3]     # vertex, midpoint, ...
    share[[0, -1]] = 1 / 6                                    # end vertices
    assert np.max(np.abs(fr.force[:, 2] - SEC.rhoA * G * l_e * share)) <= 1e-9 * W
    assert np.max(np.abs(fr.force[:, :2])) <= 1e-9 * W
    assert np.max(np.abs(fr.gap + SEC.rhoA * G / K)) <= 1e-6 * SEC.rhoA * G / K
    assert np.all(fr.state == STICK)
    assert sim.column("contact_nodes_sticking")[-1] == 2 * N_EL + 1
    assert sim.column("contact_nodes_sliding")[-1] == 0


def test_momentum_balance_of_the_nodal_forces(resting):
    """(p_{n+1} - p_n)/h = W + the step's total contact force, every step (1e-8 W)."""
    sim, _, _ = resting
    W = np.array([0.0, 0.0, -SEC.rhoA * G])
    p = np.stack([sim.column(f"p_{i}") for i in (1, 2, 3)], axis=1)
    h = sim.column("h")[1:, None]
    err = (p[1:] - p[:-1]) / h - W - _total(sim)[1:]
    assert np.max(np.abs(err)) <= 1e-8 * SEC.rhoA * G


def test_paraview_contact_series_and_obstacle(resting):
    """The contact series is readable by pyvista, its frames carry the nodal data whose
    forces sum to the weight; the ground is written once as a plane at z = 0."""
    sim, _, out = resting
    pvd = out / "rest_contact.pvd"
    times = [t for t, _ in pvd_entries(pvd)]
    assert times == pytest.approx([0.0, 0.02, 0.04, 0.06, 0.08, 0.1])
    last = pv.read(out / pvd_entries(pvd)[-1][1])
    for name in ("s", "contact_force", "gap", "slip_speed", "contact_state"):
        assert name in last.point_data
    W = SEC.rhoA * G
    assert np.sum(last.point_data["contact_force"][:, 2]) == pytest.approx(W, rel=1e-9)
    assert np.all(last.point_data["contact_state"] == STICK)
    x = read_pvd(pvd)[-1][1]
    assert x[:, 2] == pytest.approx(R - W / K, rel=1e-6)        # centreline at r + gap
    ground = pv.read(out / "rest_contact_obstacle.vtp")
    assert ground.n_cells > 0 and np.max(np.abs(ground.points[:, 2])) == 0.0
    assert not (out / "rest_contact_obstacle.pvd").exists()   # fixed: written once


@pytest.mark.parametrize("alpha, mu, state, t_end", [(30.0, 0.3, SLIDE, 0.1),
                                                     (20.0, 0.5, STICK, 0.2)])
def test_inclined_plane_stick_slide(alpha, mu, state, t_end):
    """Sliding: friction resultant = mu x normal resultant (1e-5); sticking: the contact
    carries the weight (1e-6: the settling transient decays by 4x every 0.02 s, 3e-7 left
    at 0.2 s) and the nodes creep at eps s/sqrt(1 - s^2) (1e-5), below the threshold."""
    sim, probe, n, up = _on_plane(alpha, mu, t_end=t_end)
    F = _total(sim)[-1]
    fn, ft = F @ n, F @ up
    fr = probe.last
    assert np.all(fr.state == state)
    if state == SLIDE:
        assert ft == pytest.approx(mu * fn, rel=1e-5)
        assert sim.column("contact_nodes_sliding")[-1] == 2 * N_EL + 1
    else:
        W = SEC.rhoA * G
        assert np.max(np.abs(F - (0.0, 0.0, W))) <= 1e-6 * W
        s = np.tan(np.radians(alpha)) / mu
        assert fr.slip == pytest.approx(1e-4 * s / np.sqrt(1 - s * s), rel=1e-5)


def test_obstacle_surfaces_lie_on_the_obstacles():
    """Every vertex of the triangulated obstacles is on the surface (closed forms), also for
    a translated (moving) obstacle."""
    centre = np.array([0.3, 0.2, 0.1])
    sph = Sphere((1.0, 2.0, 3.0), 0.5, motion=lambda t: (t, 0.0, 0.0))
    pts, tris = obstacle_surface(sph, centre, 1.0, t=0.25)
    assert np.linalg.norm(pts - (1.25, 2.0, 3.0), axis=1) == pytest.approx(0.5, rel=1e-12)
    assert tris.max() == len(pts) - 1
    cyl = Cylinder((0.0, 0.0, 1.0), (0.0, 1.0, 1.0), 0.2)
    pts, _ = obstacle_surface(cyl, centre, 1.0)
    a = np.array([0.0, 1.0, 1.0]) / np.sqrt(2)
    y = pts - (0.0, 0.0, 1.0)
    assert np.linalg.norm(y - np.outer(y @ a, a), axis=1) == pytest.approx(0.2, rel=1e-12)
    assert np.ptp(y @ a) == pytest.approx(2.0)                 # cut to 2 x size
    plane = HalfSpace((0, 0, 0.5), (1.0, 0.0, 1.0))
    pts, _ = obstacle_surface(plane, centre, 1.0)
    assert np.abs((pts - (0, 0, 0.5)) @ plane.normal).max() < 1e-15


def test_force_glyphs_carry_the_forces():
    """One arrow per nonzero force, the arrow scale * |f| long along f."""
    pts = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    f = np.array([[0.0, 0.0, 2.0], [0.0, 0.0, 0.0], [0.0, 0.0, 4.0]])
    g = viz.force_glyphs(pts, f, scale=0.05)
    assert np.asarray(g.field_data["force"]).sum(axis=0) == pytest.approx(f.sum(axis=0))
    single = viz.force_glyphs(pts[2:], f[2:], scale=0.05)
    zmin, zmax = single.bounds[4], single.bounds[5]
    assert (zmin, zmax) == pytest.approx((0.0, 0.2), abs=1e-6)


def test_pictures_with_obstacle_and_contact_arrows(resting, tmp_path):
    """The snapshot with the ground, a sphere, a finite cylinder and the nodal contact
    arrows, and the animation with the ground, are written."""
    sim, probe, _ = resting
    t = max(sim.snapshots)
    png = viz.snapshot_figure(
        [sim.snapshots[t]], [t], tmp_path / "rest_contact.png",
        obstacles=[HalfSpace(), Sphere((0.5, 0.4, 0.2), 0.1),
                   Cylinder((0.5, -0.4, 0.1), (0, 0, 1), 0.05, length=0.2)],
        forces=[probe.frames[t].arrows()], elevation=25.0)
    assert_picture(png)
    gif = viz.animation([sim.snapshots[t]] * 2, [0.0, t], tmp_path / "rest.gif",
                        obstacles=[HalfSpace(motion=lambda s: (0.0, 0.0, -s))])
    assert gif.stat().st_size > 0


def crossing(P: float, k: float):
    """tests/test_rodcontact.py: a cantilever (rod 1) whose free end rests on the midpoint of
    a clamped-clamped beam (rod 0) and carries P [N] downwards (statics)."""
    sec = Section.circular(radius=R, E=1e7, rho=1000.0, nu=0.3)
    lower = Rod(sec, start=(-0.5, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0), n_elements=8)
    upper = Rod(sec, start=(0, -0.5, 2 * R), end=(0, 0, 2 * R), d1=(1, 0, 0), n_elements=4)
    contact = RodContact(radius=R, stiffness=k)
    model = RodModel(Structure([lower, upper]), [EndLoad("L", force=lambda t: (0, 0, -P * t),
                                                         rod=1)],
                     [Clamp("0", rod=0), Clamp("L", rod=0), Clamp("0", rod=1)], [contact],
                     quasistatic=True)
    return model, contact, sec


def test_rod_contact_probe_crossing_rods(tmp_path):
    """``rodcontact_force`` = the lower beam's clamp reactions (1e-8) and the Timoshenko
    value (1e-3); ``rodcontact_min_gap`` = -F/k (1e-3); the arrows are equal and opposite
    and those on rod 0 sum to its resultant; the picture is written."""
    P, k = 1e-3, 1e4
    model, contact, sec = crossing(P, k)
    probe = RodContactProbe(contact)
    sim = Simulation(Integrator(model, 0.5, SolverSettings(atol=1e-13, rtol=1e-14,
                                                           jacobian_lag=1)),
                     probes=[probe])
    sim.run(1.0)
    F = sim.column("rodcontact_force")[-1]
    reactions = sim.rows[-1]
    lower = sum(np.array([reactions[f"{c}_force_{i}"] for i in (1, 2, 3)])
                for c in ("clamp_0", "clamp_L"))
    assert F == pytest.approx(np.linalg.norm(lower), rel=1e-8)
    EI, GA = sec.stiffness[3], sec.stiffness[0]
    c_u = 0.5**3 / (3 * EI) + 0.5 / GA
    c_l = 1.0 / (192 * EI) + 1.0 / (4 * GA)
    assert F == pytest.approx(P * c_u / (c_u + c_l + 1.0 / k), rel=1e-3)
    assert sim.column("rodcontact_min_gap")[-1] == pytest.approx(-F / k, rel=1e-3)
    assert sim.column("rodcontact_pairs")[-1] >= 1
    assert abs(sim.column("rodcontact_min_gap")[0]) <= 1e-15   # touching at t = 0
    pts, f = probe.arrows()
    assert np.max(np.abs(f.sum(axis=0))) <= 1e-15 * F
    on_lower = pts[:, 2] < R
    assert np.linalg.norm(f[on_lower].sum(axis=0)) == pytest.approx(F, rel=1e-12)
    s, q = model.nodes.gather_nodes()
    frames = [q[s <= 1.0, :3], q[s > 1.0, :3]]                 # rod 0, rod 1
    png = viz.snapshot_figure(frames, [1.0, 1.0], tmp_path / "crossing.png", forces=[(pts, f)],
                              force_label="rod-rod contact force")
    assert_picture(png)


MPI_SCRIPT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from tests.test_contact_output import _on_plane
_on_plane(0.0, 0.5, out=sys.argv[1], t_end=0.1)
"""


@pytest.mark.mpi
def test_mpi_contact_output_equals_serial(resting, tmp_path):
    """Under ``mpirun -n 2`` the contact columns and the last ParaView frame's nodal forces
    equal the serial ones (1e-10 of the weight)."""
    from fxrod.output.tables import read_csv
    from tests.conftest import run_mpi

    script = tmp_path / "rest_mpi.py"
    script.write_text(MPI_SCRIPT)
    run_mpi([str(script), str(tmp_path)])
    _, _, serial = resting
    a, b = read_csv(serial / "rest.csv"), read_csv(tmp_path / "rest.csv")
    W = SEC.rhoA * G
    for c in ("contact_total_force_3", "contact_nodes_sticking", "contact_nodes_sliding"):
        assert np.max(np.abs(a[c] - b[c])) <= 1e-10 * W, c
    fa, fb = (read_pvd(d / "rest_contact.pvd", "contact_force")[-1][1] for d in (serial, tmp_path))
    assert np.max(np.abs(fa - fb)) <= 1e-10 * W
