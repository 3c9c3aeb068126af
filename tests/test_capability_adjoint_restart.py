"""Capability cells of the adjoint gradients, checkpoint/restart and ``mpirun -n 2``.

Each against an independent reference:

* adjoint gradients (:class:`fxrod.analysis.adjoint.Adjoint`) of a curved rod (a quarter arc; a
  straight rod with a natural curvature, which starts stressed, of a uniform and of a
  varying section), a rod held by elastic supports only, a rod carrying a rigid body at its
  tip, a rod sliding with regularised Coulomb friction on the ground (dynamics and statics)
  and a rod of a box cross-section (its compliance and mass per length): Taylor tests, the
  remainder ``|J(x + e d) - J(x) - e dJ/dx . d|`` of order 2 (within 0.1) over four
  halvings of e; :class:`fxrod.analysis.adjoint.SectionParameters` (a solid circle's E, G, rho,
  radius) of a tube is refused;
* checkpoint/restart of a ring, a tapered rod (a varying section), a rod with a rigid body,
  a rod in a fluid with the four drag and damping laws of :mod:`fxrod.core.forms.drag` together,
  and a rod of a box section: the run stopped at a checkpoint and restarted in a new model
  ends at the state of the uninterrupted run, every field (q, sigma, lambda, the
  extensions' fields, v) within :func:`tests.roundoff.roundoff` of its largest value over
  the steps of both runs, and so does the energy H of every step after the restart;
* ``mpirun -n 2`` of the tapered rod, the rod with drag and damping and the rod of a box
  section: the two-rank run's final state (saved by :mod:`fxrod.runs.checkpoint`, keyed
  independently of the partition) equals the serial run's, each field within the same
  round-off model; the adjoint of the rod with a natural curvature gives the serial J
  (round-off over the steps of both runs) and gradient (every component within the
  round-off of its magnitude over the forward and adjoint solves of both runs).
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from dolfinx import fem

from fxrod.analysis.adjoint import (
    Adjoint,
    ConstantParameter,
    FinalPose,
    InputHistory,
    RadiusProfile,
    SectionParameters,
    taylor_remainders,
)
from fxrod.core.forms.bodies import RigidBody
from fxrod.core.forms.contact import Contact
from fxrod.core.forms.drag import (
    AddedMass,
    AmbientDamping,
    MorisonDrag,
    RayleighDamping,
    ResistiveForceDrag,
)
from fxrod.core.forms.springs import ElasticSupport
from fxrod.core.forms.viscoelastic import GeneralizedMaxwell
from fxrod.core.freebody import CARRIER_SECTION, FreeBody
from fxrod.core.geometry import Arc, Circle
from fxrod.core.joints import Spherical
from fxrod.core.loads import EndLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.obstacles import HalfSpace
from fxrod.core.rod import Rod, Section, VaryingSection
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import CheckpointError, ParameterError
from fxrod.runs import checkpoint
from fxrod.runs.integrators import Integrator
from fxrod.runs.probes import BodyProbe
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.conftest import run_mpi
from tests.roundoff import roundoff

#: A soft rod (EI = 0.079 N m^2, rhoA = 0.31 kg/m): large motions under small loads.
SOFT = Section.circular(radius=0.01, E=1e7, rho=1000.0, nu=0.3)
TIGHT = SolverSettings(atol=1e-11, jacobian_lag=1)
LENGTH = 0.5                                              # m
H, STEPS = 0.01, 8                                        # s, dynamic steps of the adjoints
EPS = (1e-1, 5e-2, 2.5e-2, 1.25e-2)


def straight(section=SOFT, n: int = 4) -> Rod:
    """A straight rod of LENGTH along e1, d1 = e2."""
    return Rod(section, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
               n_elements=n)


@functools.cache
def box_section() -> Section:
    """A 20 mm x 12 mm box of 2 mm walls (finite elements of the cross-section, once)."""
    return Section.box(0.02, 0.012, 0.002, E=1e7, rho=1000.0, nu=0.3)


def assert_taylor(model: RodModel, params: list, direction: np.ndarray, t_end: float = H * STEPS,
                  h: float = H, target=(0.4, 0.1, -0.1), weight: float = 1e2,
                  eps=EPS) -> Adjoint:
    """Second-order Taylor remainders of the final tip position's distance to ``target``."""
    adj = Adjoint(Integrator(model, h, TIGHT), t_end, FinalPose(target, weight), params)
    r, orders = taylor_remainders(adj, direction, eps)
    assert np.all(r > 0.0) and np.all(np.abs(orders - 2.0) < 0.1), (r, orders)
    return adj


def force_history(model: RodModel, peak: np.ndarray, t_end: float = H * STEPS) -> InputHistory:
    """The tip force [N] of ``model.loads[0]`` on 3 knots, a ramp to ``peak``."""
    return InputHistory("force", model.loads[0], np.linspace(0.0, t_end, 3),
                        values=np.outer([0.0, 0.5, 1.0], peak))


def compliance_and_force(model: RodModel, peak: np.ndarray, seed: int) -> tuple[list, np.ndarray]:
    """The compliance C [1/N, 1/(N m^2)] and the tip force history as parameters, and a
    random direction: 10 % of C, 10 % of the peak force."""
    params = [ConstantParameter("C", model.C), force_history(model, peak)]
    rng = np.random.default_rng(seed)
    d = np.concatenate([model.C.value * 0.1 * rng.normal(size=6),
                        0.1 * np.max(np.abs(peak)) * rng.normal(size=9)])
    return params, d


# ---------------------------------------------------------------------- adjoint gradients
def natural_curvature_adjoint() -> Adjoint:
    """A straight cantilever with a natural curvature of 1/m (it starts stressed, with an
    initial stress that depends on the section) under a tip force: the gradient of the
    final tip position's distance to a target with respect to E and the radius."""
    rod = Rod(SOFT, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=4, natural_curvature=(1.0, 0.0, 0.0))
    model = RodModel(rod, [EndLoad("L", force=(0.0, 0.0, 0.0))], [Clamp("0")])
    sec = SectionParameters(model, ["E", "radius"], E=1e7, G=1e7 / 2.6, rho=1000.0,
                            radius=0.01)
    return Adjoint(Integrator(model, H, TIGHT), H * STEPS, FinalPose((0.4, 0.1, -0.1), 1e2),
                   [sec, force_history(model, np.array([0.0, 0.02, -0.05]))])


@pytest.mark.parametrize("shape", ["arc", "natural-curvature", "tapered-natural-curvature"])
def test_adjoint_curved_rod(shape):
    """A clamped quarter arc (radius 0.3 m, 6 elements) and its compliance; a straight rod
    with a natural curvature of 1/m and its E and radius (it starts stressed, with an
    initial stress that depends on them: without that share the remainders were of order
    1), and the same rod of a varying section and its radius profile (two segments); each
    under a tip force history."""
    peak = np.array([0.0, 0.02, -0.05])
    if shape == "arc":
        rod = Rod(SOFT, curve=Arc(0.3, np.pi / 2), n_elements=6)
        model = RodModel(rod, [EndLoad("L", force=(0.0, 0.0, 0.0))], [Clamp("0")])
        params, d = compliance_and_force(model, peak, 11)
        assert_taylor(model, params, d, target=(0.3, 0.3, -0.05))
        return
    rng = np.random.default_rng(12)
    if shape == "natural-curvature":
        adj = natural_curvature_adjoint()
        d = np.concatenate([[1e6, -5e-4], 0.005 * rng.normal(size=9)])
    else:
        sec = VaryingSection.circular(radius=lambda s: 0.01 - 0.004 * s, E=1e7, rho=1000.0,
                                      nu=0.3)
        rod = Rod(sec, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
                  n_elements=4, natural_curvature=(1.0, 0.0, 0.0))
        model = RodModel(rod, [EndLoad("L", force=(0.0, 0.0, 0.0))], [Clamp("0")])
        radius = RadiusProfile(model, [0.0, LENGTH / 2, LENGTH], [0.01, 0.009], E=1e7,
                               G=1e7 / 2.6, rho=1000.0)
        adj = Adjoint(Integrator(model, H, TIGHT), H * STEPS,
                      FinalPose((0.4, 0.1, -0.1), 1e2), [radius, force_history(model, peak)])
        d = np.concatenate([[1e-3, -5e-4], 0.005 * rng.normal(size=9)])
    r, orders = taylor_remainders(adj, d, np.array(EPS) / 2)    # orders 2.15, 2.08, 2.04 at EPS
    assert np.all(r > 0.0) and np.all(np.abs(orders - 2.0) < 0.1), (r, orders)
    if shape == "natural-curvature":   # with Maxwell branches the initial stress is refused
        rod = Rod(SOFT, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
                  n_elements=4, natural_curvature=(1.0, 0.0, 0.0))
        model = RodModel(rod, [], [Clamp("0")], [GeneralizedMaxwell.proportional((0.75,),
                                                                                (0.08,))])
        with pytest.raises(ParameterError, match="without an extension that sets the "):
            Adjoint(Integrator(model, H, TIGHT), H, FinalPose((0.4, 0.0, 0.0)),
                    [ConstantParameter("C", model.C)])


def test_adjoint_elastic_supports():
    """A rod held at s = 0 by translational and rotational springs only (no clamp)."""
    model = RodModel(straight(), [EndLoad("L", force=(0.0, 0.0, 0.0))],
                     extensions=[ElasticSupport("0", 50.0, 0.5)])
    params, d = compliance_and_force(model, np.array([0.0, 0.02, -0.05]), 12)
    assert_taylor(model, params, d)


def test_adjoint_rigid_body():
    """A cantilever carrying a rigid body (0.05 kg, centre of mass off the tip) at its
    tip."""
    body = RigidBody((0, "L"), mass=0.05, inertia=np.diag([2e-5, 1e-5, 2.5e-5]),
                     centre=(LENGTH + 0.02, 0.01, 0.0))
    model = RodModel(straight(), [EndLoad("L", force=(0.0, 0.0, 0.0))], [Clamp("0")],
                     [body])
    params, d = compliance_and_force(model, np.array([0.0, 0.02, -0.05]), 13)
    assert_taylor(model, params, d)


@pytest.mark.parametrize("quasistatic", [False, True])
def test_adjoint_obstacle_contact_with_friction(quasistatic):
    """A rod pressed on the ground by gravity (penalty 1e4 N/m^2) is pulled along and
    across by a tip force against regularised Coulomb friction (mu = 0.4, v_reg 1e-3):
    the friction law is smooth in the slip velocity, so its discrete adjoint is the
    derivative of the path. Free in dynamics, clamped at s = 0 in statics (where friction
    alone cannot hold a free rod at the first load step). Every contact point of the
    unperturbed run stays pressed in every step (the penalty's kink at zero gap is not
    crossed) and the rod slides. The orders reach 2 from below (1.5, 1.8, 1.9 at e = 0.1
    to 0.0125): the halvings start at e = 0.0125."""
    contact = Contact(HalfSpace((0.0, 0.0, -SOFT.radius)), 1e4, friction=0.4, v_reg=1e-3)
    model = RodModel(straight(), [EndLoad("L", force=(0.0, 0.0, 0.0)),
                                  Gravity((0.0, 0.0, -9.81))],
                     [Clamp("0")] if quasistatic else [], [contact], quasistatic=quasistatic)
    peak = np.array([0.3, 0.2, 0.0]) * SOFT.rhoA * 9.81 * LENGTH    # N, beyond mu * weight
    h, t_end = (0.25, 1.0) if quasistatic else (H, H * STEPS)
    params = [ConstantParameter("C", model.C), force_history(model, peak, t_end)]
    rng = np.random.default_rng(14)
    d = np.concatenate([model.C.value * 0.1 * rng.normal(size=6),
                        0.1 * np.max(peak) * rng.normal(size=9)])
    assert_taylor(model, params, d, t_end=t_end, h=h, target=(0.6, 0.1, 0.0),
                  eps=np.array(EPS) / 8)
    gap = fem.Expression(contact.gap_state, contact.points, comm=model.comm)
    cells = np.arange(model.mesh.topology.index_map(1).size_local, dtype=np.int32)
    gaps = []
    model.set_initial_state()
    Integrator(model, h, TIGHT).advance_to(
        t_end, callback=lambda it, res: gaps.append(np.max(gap.eval(model.mesh, cells))))
    assert len(gaps) == round(t_end / h) and max(gaps) < 0.0
    tip = model.nodes.tip()
    assert np.hypot(tip[0] - LENGTH, tip[1]) > 1e-3, tip


def test_adjoint_box_section():
    """A cantilever of a box section: its compliance, its mass per length and the tip force
    history; SectionParameters (E, G, rho, radius of a solid circle) of a tube is
    refused."""
    model = RodModel(straight(box_section()), [EndLoad("L", force=(0.0, 0.0, 0.0))],
                     [Clamp("0")])
    params, d = compliance_and_force(model, np.array([0.0, 0.02, -0.05]), 15)
    params.append(ConstantParameter("rhoA", model.rhoA))
    d = np.append(d, 0.1 * float(model.rhoA.value))
    assert_taylor(model, params, d)
    tube = Section.tube(0.01, 0.008, E=1e7, rho=1000.0, nu=0.3, shear_factor=1.0)
    model = RodModel(straight(tube), [EndLoad("L", force=(0.0, 0.0, 0.0))], [Clamp("0")])
    with pytest.raises(ParameterError, match="those the model was built with"):
        SectionParameters(model, ["E"], E=1e7, G=1e7 / 2.6, rho=1000.0, radius=0.01)


# ---------------------------------------------------------------------- checkpoint/restart
def pulse(t: float) -> float:
    """A half-sine pulse of 0.05 s [-]."""
    return float(np.sin(np.pi * t / 0.05)) if t < 0.05 else 0.0


def tip_pulse(amplitude=(0.0, 0.02, -0.05), end: str = "L") -> EndLoad:
    """A tip force [N] pulse."""
    a = np.asarray(amplitude, dtype=float)
    return EndLoad(end, force=lambda t: pulse(t) * a)


def ring_model() -> RodModel:
    """A free spinning ring (radius 0.15 m, 8 elements) hit by a force pulse at s = 0."""
    model = RodModel(Rod(SOFT, curve=Circle(0.15), n_elements=8), [tip_pulse(end="0")])
    model.set_velocity(omega=(0.0, 0.0, 2.0))
    return model


def tapered_model() -> RodModel:
    """A cantilever whose radius tapers linearly from 10 mm to 5 mm."""
    sec = VaryingSection.circular(radius=lambda s: 0.01 * (1.0 - 0.5 * s / LENGTH), E=1e7,
                                  rho=1000.0, nu=0.3)
    return RodModel(straight(sec), [tip_pulse()], [Clamp("0")])


def body_model() -> RodModel:
    """A cantilever carrying a rigid body at its tip."""
    body = RigidBody((0, "L"), mass=0.05, inertia=np.diag([2e-5, 1e-5, 2.5e-5]),
                     centre=(LENGTH + 0.02, 0.01, 0.0))
    return RodModel(straight(), [tip_pulse()], [Clamp("0")], [body])


def free_body_model() -> RodModel:
    """A cantilever under gravity with a spinning, moving free body on a ball joint at its
    tip (the body's unknowns are the nodes of its carrier, keyed like any rod's)."""
    body = FreeBody(0.05, (2e-5, 1e-5, 2.5e-5), (LENGTH, 0.0, 0.0), velocity=(0.0, 0.1, 0.0),
                    angular_velocity=(3.0, 1.0, 5.0))
    st = Structure([straight()], [Spherical((0, "L"), (1, "0"))], bodies=[body])
    return RodModel(st, [tip_pulse(), Gravity((0.0, 0.0, -9.81))], [Clamp("0")])


def body_contact_model() -> RodModel:
    """A ball (a free body with a contact sphere) thrown spinning onto the ground: penalty
    contact with Coulomb friction and normal damping (fxrod.core.forms.bodycontact)."""
    from fxrod.core.forms.bodycontact import BodyContact
    from fxrod.core.obstacles import HalfSpace

    ball = FreeBody.sphere(0.1, 1000.0, (0.0, 0.0, 0.1), contact=True,
                           velocity=(0.5, 0.1, -0.2), angular_velocity=(0.0, -3.0, 1.0))
    contact = BodyContact(HalfSpace(), 1e5, friction=0.3, damping=100.0)
    return RodModel(Structure([], bodies=[ball]), [Gravity((0.0, 0.0, -9.81))],
                    extensions=[contact])


def drag_model() -> RodModel:
    """A cantilever in a fluid with the four laws together: resistive-force drag in an
    unsteady flow, Morison drag and buoyancy in a current with the added mass, ambient and
    Rayleigh damping."""
    ext = [ResistiveForceDrag(0.3, 0.6, flow=lambda t: (0.0, 0.05 * np.sin(20.0 * t), 0.0)),
           MorisonDrag(1000.0, 0.02, 1.2, 0.3, current=(0.0, 0.0, 0.02)),
           AddedMass(1000.0, 0.02, 1.0), AmbientDamping(0.2, 2e-3), RayleighDamping(0.5, 1e-3)]
    return RodModel(straight(), [tip_pulse()], [Clamp("0")], ext)


def box_model() -> RodModel:
    """A cantilever of a box section."""
    return RodModel(straight(box_section()), [tip_pulse()], [Clamp("0")])


def assert_same_state(model: RodModel, w_ref: np.ndarray, v_ref: np.ndarray, steps: int,
                      floors: dict[str, float] | None = None) -> None:
    """The state of ``model`` equals ``(w_ref, v_ref)`` field by field (q, sigma, lambda,
    the extensions' fields, v) within ``roundoff`` of the field's largest value over
    ``steps`` steps (at least of ``floors[field]``: the scale of a field that is zero but
    for round-off)."""
    floors = floors or {}
    fields = {name: model.field_dofs(name) for name in model.field_names}
    for name, idx in fields.items():
        ref, gap = w_ref[idx], np.max(np.abs(model.w0.x.array[idx] - w_ref[idx]))
        scale = max(np.max(np.abs(ref)), floors.get(name, 0.0))
        assert gap <= roundoff(scale, steps), (name, gap)
    gap = np.max(np.abs(model.v0.x.array - v_ref))
    assert gap <= roundoff(np.max(np.abs(v_ref)), steps), ("v", gap)


RESTART = {"ring": ring_model, "varying-section": tapered_model, "rigid-body": body_model,
           "drag-and-damping": drag_model, "box-section": box_model,
           "free-body": free_body_model, "body-contact": body_contact_model}
RESTART_STEPS, RESTART_EVERY = 12, 3                    # steps of H, checkpoint interval


def _simulation(build, out, every: int = 0, restart=None) -> Simulation:
    """A simulation of ``build()`` stepped by H, writing to ``out``."""
    return Simulation(Integrator(build(), H, TIGHT), out, "run", checkpoint_every=every,
                      restart=restart)


@pytest.mark.parametrize("name", list(RESTART))
def test_restart_equals_the_uninterrupted_run(tmp_path, name):
    """Stopped after 6 of 12 steps (its last checkpoint) and restarted in a new model, the
    run ends at the uninterrupted run's state: every dof of w and v within
    ``roundoff(max |.|, 2 * 12)``, and so does the energy H of every step."""
    build, t_end = RESTART[name], RESTART_STEPS * H
    full = _simulation(build, tmp_path / "full")
    full.run(t_end)
    _simulation(build, tmp_path / "cut", RESTART_EVERY).run(t_end / 2)
    resumed = _simulation(build, tmp_path / "cut", RESTART_EVERY, restart=tmp_path / "cut")
    assert resumed.integ.step_count == RESTART_STEPS // 2
    resumed.run(t_end)
    assert resumed.integ.step_count == RESTART_STEPS
    assert_same_state(resumed.model, full.model.w0.x.array, full.model.v0.x.array,
                      2 * RESTART_STEPS)
    H_full = full.column("H")
    assert np.max(H_full) > 0.0
    assert np.max(np.abs(resumed.column("H")[-RESTART_STEPS // 2:]
                         - H_full[-RESTART_STEPS // 2:])) <= \
        roundoff(np.max(H_full), 2 * RESTART_STEPS)


def test_restart_of_other_coefficients_is_refused(tmp_path):
    """A checkpoint of a rod in a fluid does not restart a run whose damping coefficient
    differs (before, the fingerprint named the extensions' classes only)."""
    def damped(c_v: float):
        return lambda: RodModel(straight(), [tip_pulse()], [Clamp("0")], [AmbientDamping(c_v)])

    _simulation(damped(0.2), tmp_path, RESTART_EVERY).run(RESTART_EVERY * H)
    with pytest.raises(CheckpointError, match="extensions differs.*c_v=0.2.*c_v=0.3"):
        _simulation(damped(0.3), tmp_path / "b", RESTART_EVERY, restart=tmp_path)
    resumed = _simulation(damped(0.2), tmp_path / "c", RESTART_EVERY, restart=tmp_path)
    assert resumed.integ.step_count == RESTART_EVERY


# ---------------------------------------------------------------------- mpirun -n 2
MPI_CASES = {"varying-section": tapered_model, "drag-and-damping": drag_model,
             "box-section": box_model, "free-body": free_body_model,
             "body-contact": body_contact_model}
MPI_STEPS = 8
#: A body alone has no rod stresses: its carrier's (arbitrary stiffness k = 1, no energy)
#: stay zero up to its strains' round-off, eps |q| k: their scale k max|q| (1 N here).
MPI_FLOORS = {"body-contact": {"sigma": CARRIER_SECTION.k_e * 1.0}}


def stepped(build) -> RodModel:
    """``build()`` stepped MPI_STEPS steps of H."""
    model = build()
    integ = Integrator(model, H, TIGHT)
    for _ in range(MPI_STEPS):
        integ.step()
    return model


@pytest.mark.slow
@pytest.mark.mpi
def test_mpi_equals_serial(tmp_path):
    """Each model stepped on 2 ranks saves its final state (keyed by sub-space, component
    and s: independent of the partition); loaded into the serial model it equals the
    serial run's state within the round-off model (each field at its own scale). The
    adjoint of the rod with a natural curvature (the initial stress's share) gives the
    serial J and gradient within the round-off model (forward and adjoint solves of both
    runs). The models with free bodies (a body on a ball joint at a cantilever's tip, a
    ball alone in contact with the ground: its one-element carrier on one rank, the other
    rank without a dof) likewise, and the body probe's centre, velocity and angular
    momentum, read on the rank that owns the body's node, equal the serial ones."""
    code = ("import sys, json\n"
            "from fxrod.runs import checkpoint\n"
            "from fxrod.runs.probes import BodyProbe\n"
            "from tests.test_capability_adjoint_restart import MPI_CASES, stepped, "
            "natural_curvature_adjoint\n"
            "for name, build in MPI_CASES.items():\n"
            "    m = stepped(build)\n"
            "    checkpoint.save(f'{sys.argv[1]}/{name}.npz', m, {})\n"
            "    if m.structure.bodies:\n"
            "        b = [a.tolist() for a in BodyProbe(m).state(m, 0)]\n"
            "        if m.comm.rank == 0:\n"
            "            open(f'{sys.argv[1]}/{name}.json', 'w').write(json.dumps(b))\n"
            "adj = natural_curvature_adjoint()\n"
            "J, g = adj.value_and_grad()\n"
            "if adj.model.comm.rank == 0:\n"
            "    open(f'{sys.argv[1]}/grad.json', 'w').write(json.dumps([J, g.tolist()]))\n")
    run_mpi(["-c", code, str(tmp_path)])
    for name, build in MPI_CASES.items():
        model = stepped(build)
        w, v = model.w0.x.array.copy(), model.v0.x.array.copy()
        if model.structure.bodies:
            probe = BodyProbe(model).state(model, 0)
            for a, b in zip(probe, json.loads((tmp_path / f"{name}.json").read_text()),
                            strict=True):
                assert np.all(np.abs(np.asarray(b) - a)
                              <= roundoff(np.max(np.abs(a)), 2 * MPI_STEPS)), (name, a, b)
        checkpoint.load(tmp_path / f"{name}.npz", model)
        assert_same_state(model, w, v, 2 * MPI_STEPS, MPI_FLOORS.get(name))
    J_mpi, g_mpi = json.loads((tmp_path / "grad.json").read_text())
    J, g = natural_curvature_adjoint().value_and_grad()
    assert abs(J_mpi - J) <= roundoff(J, 2 * STEPS)
    assert np.all(np.abs(np.asarray(g_mpi) - g) <= roundoff(np.abs(g), 4 * STEPS))
