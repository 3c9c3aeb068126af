"""Sweeps over models with each feature of the capability matrix, and the cells of dynamics
with cross-sections and of load stepping with viscoelasticity, rigid bodies and ensembles.

A sweep runs a registered case, a user's ``Case``, or a user's function returning a
Problem (:func:`fxrod.studies.sweep_plan.find_case`; ``path/to/module.py:function`` on the command
line). Every sweep below (``sweep_and_singles``) is checked against the single runs of its
points (``Case.run`` of the same values outside the sweep, within
:func:`tests.roundoff.roundoff` of the steps of both runs) and against a closed form or an
exact identity over the points:

* ``test_user_function_sweep_tube_cantilever`` (cross-sections): tube cantilever, tip
  ``P L^3/(3 EI) + P L/(k G A)`` (Cowper's k) to ``(P L^2/EI)^2``.
* ``test_script_spec_is_the_same_case``: ``module.py:function`` runs the function's points.
* ``test_user_case_refusals_are_one_line``, ``test_user_function_must_return_a_problem``:
  one-line refusals; a bad return fails the point, the sweep goes on.
* ``test_user_function_sweep_under_mpi_equals_serial`` (mpi): groups of 1 and 2 ranks,
  the serial sweep's tips to round-off.
* ``test_sweep_curved_helix_spring_is_linear_to_second_order`` (curved): ``helix-spring``
  at F, 2F, 4F, a Taylor test of the extension (second-order remainder).
* ``test_sweep_ring_diametral_load`` (rings): the thin ring's ``(pi/4 - 2/pi) P R^3/EI``.
* ``test_sweep_graded_cantilever`` (varying sections): the graded cantilever's integral.
* ``test_sweep_quasistatic_cantilever_constraints`` (Kirchhoff, inextensible): the exact
  elastica and Reissner tips, order 4 in the element length.
* ``test_sweep_l_frame_joint`` (joints): linear frame theory of the welded L-frame.
* ``test_sweep_elastic_support`` (springs): ``P/k_t + P L^2/k_r + P L^3/(3 EI)``.
* ``test_sweep_crossing_rods_contact`` (rod-rod contact): Timoshenko beams in series with
  the penalty.
* ``test_sweep_cross_flow_drag`` (drag): the uniform-load cantilever ``q L^4/(8 EI) + q
  L^2/(2 k_s)``, ``q = c_n u``.
* ``test_sweep_rigid_body_momentum`` (rigid bodies): momentum = the midpoint rule's impulse
  (exact discrete identity, round-off and Newton's atol), whatever the body's mass.
* ``test_sweep_free_body_momentum`` (free rigid bodies): the same with a free body welded
  to the rod, its points checkpointed like any run's.
* ``test_sweep_kelvin_voigt_retardation`` (viscoelasticity): the implicit Euler creep
  ``w_el (1 - (1 + h/tau)^-n)`` of each tau.
* ``test_sweep_capstan_friction`` (obstacle contact with friction): Euler-Eytelwein
  ``exp(mu theta)`` within the case's 1 %.
* ``test_load_stepping_kelvin_voigt_creep``: quasi-static Kelvin-Voigt creep, the implicit
  Euler recurrence every step and first-order convergence to ``w_el (1 - exp(-t/tau))``.
* ``test_load_stepping_rigid_body_carries_no_static_load``: the bare cantilever's closed
  form (a body without weight has no static effect).
* ``test_load_stepping_ensemble_members_closed_form``: each member's closed-form tip and
  its single run (round-off).
* ``test_dynamics_box_section_spin_and_translation``: kinetic energy and momenta of the
  box's closed-form A, I_1, I_2 (round-off); energy and momenta conserved (round-off plus
  Newton's atol times the efforts, :mod:`tests.roundoff`).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fxrod.core.forms.bodies import RigidBody
from fxrod.core.forms.drag import AddedMass, ResistiveForceDrag
from fxrod.core.forms.rodcontact import RodContact
from fxrod.core.joints import Rigid
from fxrod.core.loads import EndLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section, VaryingSection
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.probes import ColumnProbe
from fxrod.runs.problem import Problem
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import Case
from fxrod.studies.sweep import run_sweep
from fxrod.studies.sweep_plan import find_case, make_plan
from tests.roundoff import roundoff

E, NU, RHO = 2.0e11, 0.3, 7850.0          # steel [Pa, -, kg/m^3]
G = E / (2.0 * (1.0 + NU))                 # [Pa]
RO, RI = 0.02, 0.016                       # tube radii [m]
RING_R = 0.5                               # ring radius [m]
GRADED_E0 = 2.07e11                        # modulus at the clamp of the graded rod [Pa]
FRAME_SEC = Section.circular(radius=0.02, E=1e7, rho=1000.0, nu=0.3)
FRAME_A, FRAME_B = 1.0, 0.8                # L-frame column and beam [m]
SPRING_SEC = Section.circular(radius=0.01, E=2e11, rho=7850.0, nu=0.3)
CROSS_R = 0.01                             # crossing rods' radius [m]
CROSS_SEC = Section.circular(radius=CROSS_R, E=1e7, rho=1000.0, nu=0.3)
DRAG_SEC = Section.circular(radius=0.01, E=1e9, rho=1000.0, nu=0.3)
DRAG_CN = 0.5                              # normal RFT coefficient [N s/m^2]
PUSH = np.array([0.0, 2.0, 1.0])           # amplitude of the push on the rod with a body [N]
TIGHT = SolverSettings(atol=1e-11, jacobian_lag=1)


def cowper_tube(nu: float, m: float) -> float:
    """Cowper's shear factor of a tube of radius ratio ``m`` (closed form)."""
    return (6 * (1 + nu) * (1 + m**2) ** 2 /
            ((7 + 6 * nu) * (1 + m**2) ** 2 + (20 + 12 * nu) * m**2))


def sweep_and_singles(case: Case | object, params: list[str], out, quick: bool = False,
                      keys: tuple[str, ...] = ()) -> list[dict]:
    """Sweep ``case`` over ``params`` into ``out``; assert every point done and its summary
    equal to the single run of the point (``keys``, default every number) within the
    round-off of the steps of both runs; return the records' summaries."""
    plan = make_plan(case, params, quick=quick)
    res = run_sweep(plan, out, quiet=True, checkpoint_every=0)
    assert [r["status"] for r in res.rows] == ["done"] * len(plan.points), \
        [r["reason"] for r in res.rows]
    c = find_case(case)
    sums = []
    for i, point in enumerate(plan.points):
        rec = res.rows[i]
        single = c.run(None, quick, pictures=False, **point)
        steps = max(len(s.rows) for s in single.simulations.values()) if \
            single.simulations else 1
        for k in keys or single.summary:
            ref = float(single.summary[k])
            assert abs(float(rec[k]) - ref) <= roundoff(max(abs(ref), 1e-300), 2 * steps), \
                (i, k, rec[k], ref)
        sums.append({k: float(rec[k]) for k in single.summary})
    return sums


# ----------------------------------------------------------------- user's function, tube
def tube_cantilever(force: float = 10.0, n_elements: int = 8, comm=None) -> Problem:
    """Steel tube 40 x 4 mm, 1 m, clamped, tip force ``force`` [N] along -z in one load
    step."""
    sec = Section.tube(RO, RI, E=E, rho=RHO, nu=NU)
    rod = Rod(sec, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), n_elements)
    model = RodModel(rod, [EndLoad("L", force=lambda t: (0.0, 0.0, -force * t))],
                     [Clamp("0")], quasistatic=True, comm=comm)
    return Problem(model, 1.0, 1.0)


def test_user_function_sweep_tube_cantilever(tmp_path):
    forces = (5.0, 10.0, 20.0)
    sums = sweep_and_singles(tube_cantilever, [f"force={','.join(map(str, forces))}"],
                             tmp_path)
    A, Iax = math.pi * (RO**2 - RI**2), math.pi * (RO**4 - RI**4) / 4.0
    kGA = cowper_tube(NU, RI / RO) * G * A
    for P, s in zip(forces, sums, strict=True):
        exact = P / (3 * E * Iax) + P / kGA
        assert abs(-s["tip_3"] / exact - 1.0) <= (P / (E * Iax)) ** 2


def test_script_spec_is_the_same_case(tmp_path):
    """``path/to/module.py:function`` (the command line's spelling) loads the function as
    the case: its plan keeps the spec, its points equal the function's (a file in the
    working directory: the sweep's table is named by the module and function)."""
    spec = "tests/test_capability_sweeps.py:tube_cantilever"
    plan = make_plan(spec, ["force=5"])
    assert plan.case == spec and plan.user.name == "test_capability_sweeps_tube_cantilever"
    res = run_sweep(plan, tmp_path, quiet=True, checkpoint_every=0)
    assert res.table.name == "sweep_test_capability_sweeps_tube_cantilever.csv"
    single = find_case(tube_cantilever).run(None, pictures=False, force=5.0).summary
    assert res.rows[0]["status"] == "done" and res.rows[0]["tip_3"] == single["tip_3"]


# ----------------------------------------------------------------- users' functions
def ring(load: float = 1e-4, n_elements: int = 64, comm=None) -> tuple[Problem, list]:
    """A closed steel ring (R = 0.5 m, wire radius 5 mm, inextensible Kirchhoff rod)
    clamped at its bottom point and pulled down at the top by ``P = load EI / R^2`` [N] in
    one load step; probe ``shortening`` [m] of the diameter."""
    from fxrod.core.geometry import Circle
    from fxrod.core.pointload import PointLoad

    sec = Section.circular(0.005, E=2e11, rho=7850.0, nu=0.3)
    rod = Rod(sec, curve=Circle(RING_R, normal=(0, 0, 1), start_direction=(0, -1, 0)),
              n_elements=n_elements, constraints=("kirchhoff", "inextensible"))
    P = load * sec.k_b1 / RING_R**2
    model = RodModel(rod, [PointLoad(np.pi * RING_R, force=(0, -P, 0))], [Clamp("0")],
                     quasistatic=True, comm=comm)
    probe = ColumnProbe({"shortening": "m"}, lambda sim, res: {
        "shortening": RING_R - sim.model.nodes.node_q(np.pi * RING_R)[1]})
    return Problem(model, 1.0, 1.0), [probe]


def graded_cantilever(lam: float = 0.3, n: float = 1.0, g: float = 9.81e-3,
                      comm=None) -> Problem:
    """The Kirchhoff cantilever of graded modulus ``E(x) = E0 (1 - lam x^n)`` (0.02 m
    square steel, L = 1 m, 32 elements) under the weight of gravity ``g`` [m/s^2]."""
    E0, rho, a = GRADED_E0, 7850.0, 0.02
    A, I = a * a, a**4 / 12

    def E_of(s):
        return E0 * (1.0 - lam * np.asarray(s) ** n)

    def G_of(s):
        return E_of(s) / 2.6                     # nu = 0.3

    sec = VaryingSection(rhoA=rho * A, M11=rho * I, M22=rho * I,
                         k_s1=lambda s: 5 / 6 * G_of(s) * A, k_s2=lambda s: 5 / 6 * G_of(s) * A,
                         k_e=lambda s: E_of(s) * A, k_b1=lambda s: E_of(s) * I,
                         k_b2=lambda s: E_of(s) * I, k_t=lambda s: G_of(s) * 0.1406 * a**4)
    rod = Rod(sec, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 32, constraints=("kirchhoff",))
    model = RodModel(rod, [Gravity((0.0, 0.0, -g))], [Clamp("0")], quasistatic=True,
                     comm=comm)
    return Problem(model, 1.0, 1.0)


def l_frame(force: float = 1e-4, comm=None) -> Problem:
    """An L-frame: a column of height 1 m clamped at its base, welded (Rigid joint) at right
    angles to a beam of 0.8 m, the vertical tip load ``force`` [N] (16 elements a member)."""
    column = Rod(FRAME_SEC, start=(0, 0, 0), end=(0, 0, FRAME_A), d1=(1, 0, 0), n_elements=16)
    beam = Rod(FRAME_SEC, start=(0, 0, FRAME_A), end=(FRAME_B, 0, FRAME_A), d1=(0, 1, 0),
               n_elements=16)
    model = RodModel(Structure([column, beam], [Rigid((0, "L"), (1, "0"))]),
                     [EndLoad("L", rod=1, force=(0.0, 0.0, -force))], [Clamp("0")],
                     quasistatic=True, comm=comm)
    return Problem(model, 1.0, 1.0, TIGHT)


def sprung_cantilever(k_translation: float = 1e5, k_rotation: float = 1e3,
                      force: float = 1e-2, comm=None) -> Problem:
    """A Kirchhoff steel cantilever (1 m, radius 1 cm, 8 elements) held at s = 0 only by
    translational [N/m] and rotational [N m/rad] springs, tip load ``force`` [N]."""
    from fxrod.core.forms.springs import ElasticSupport

    rod = Rod(SPRING_SEC, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 8, constraints=("kirchhoff",))
    model = RodModel(rod, [EndLoad("L", force=(0, 0, -force))],
                     extensions=[ElasticSupport("0", k_translation, k_rotation)],
                     quasistatic=True, comm=comm)
    return Problem(model, 1.0, 1.0)


def crossing_rods(force: float = 1e-3, stiffness: float = 1e4, comm=None) -> Problem:
    """A cantilever (0.5 m along y) whose free end rests on the midpoint of a clamped-clamped
    beam (1 m along x) and carries the end load ``force`` [N] downwards; rod-rod contact of
    penalty ``stiffness`` [N/m]; two load steps."""
    lower = Rod(CROSS_SEC, start=(-0.5, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0), n_elements=8)
    upper = Rod(CROSS_SEC, start=(0, -0.5, 2 * CROSS_R), end=(0, 0, 2 * CROSS_R),
                d1=(1, 0, 0), n_elements=4)
    model = RodModel(Structure([lower, upper]),
                     [EndLoad("L", force=lambda t: (0, 0, -force * t), rod=1)],
                     [Clamp("0", rod=0), Clamp("L", rod=0), Clamp("0", rod=1)],
                     [RodContact(radius=CROSS_R, stiffness=stiffness)], quasistatic=True,
                     comm=comm)
    return Problem(model, 0.5, 1.0, SolverSettings(atol=1e-13, rtol=1e-14, jacobian_lag=1))


def cross_flow_cantilever(speed: float = 1.0, n_elements: int = 16, comm=None) -> Problem:
    """A cantilever (1 m, radius 1 cm, E = 1e9 Pa) in a uniform cross-flow along e2 of
    ``speed`` [m/s] with resistive-force drag (c_n = 0.5, c_t = 0.2 N s/m^2), two load
    steps."""
    rod = Rod(DRAG_SEC, start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=n_elements)
    ext = ResistiveForceDrag(c_t=0.2, c_n=DRAG_CN, flow=lambda t: (0.0, t * speed, 0.0))
    model = RodModel(rod, supports=[Clamp("0")], extensions=[ext], quasistatic=True,
                     comm=comm)
    return Problem(model, 0.5, 1.0, SolverSettings(atol=1e-12))


def falling_rod_in_water(rho_f: float = 1000.0, comm=None) -> Problem:
    """A free rod (1 m, radius 1 cm, 4 elements) along x falling from rest under gravity in
    still water of density ``rho_f`` [kg/m^3] (its added mass, C_a = 1, no drag); ten steps
    of 10 ms."""
    rod = Rod(DRAG_SEC, start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=4)
    model = RodModel(rod, [Gravity((0.0, 0.0, -9.81))],
                     extensions=[AddedMass(rho_f, 0.02, 1.0)], comm=comm)
    return Problem(model, 0.01, 0.1, TIGHT)


def rod_with_body(mass: float = 0.5, comm=None) -> Problem:
    """A free rod (0.6 m, 4 elements) with a rigid body (``mass`` [kg], offset centre) fixed
    at s = 0, pushed at s = L by the force pulse ``sin(pi t / 0.1) (0, 2, 1)`` [N] over
    0.1 s; dynamics to 0.2 s in steps of 5 ms."""
    rod = Rod(FRAME_SEC, start=(0, 0, 0), end=(0.6, 0, 0), d1=(0, 0, 1), n_elements=4)
    body = RigidBody((0, "0"), mass=mass, inertia=np.diag([2e-3, 1e-3, 2.5e-3]),
                     centre=(0.01, 0.02, 0.005))
    model = RodModel(rod, [EndLoad("L", force=lambda t: pulse(t) * PUSH)],
                     extensions=[body], comm=comm)
    return Problem(model, 5e-3, 0.2, TIGHT)


def rod_with_free_body(mass: float = 0.5, comm=None) -> Problem:
    """The free rod of :func:`rod_with_body` with a free body (:mod:`fxrod.core.freebody`;
    ``mass`` [kg], the same inertia) welded by a rigid joint to s = 0 instead."""
    from fxrod.core.freebody import FreeBody

    rod = Rod(FRAME_SEC, start=(0, 0, 0), end=(0.6, 0, 0), d1=(0, 0, 1), n_elements=4)
    body = FreeBody(mass, (2e-3, 1e-3, 2.5e-3), (0.0, 0.0, 0.0))
    st = Structure([rod], [Rigid((0, "0"), (1, "0"))], bodies=[body])
    model = RodModel(st, [EndLoad("L", force=lambda t: pulse(t) * PUSH)], comm=comm)
    return Problem(model, 5e-3, 0.2, TIGHT)


def pulse(t: float) -> float:
    """The push's time profile [-]: a sine half-wave over [0, 0.1] s."""
    return float(np.sin(np.pi * t / 0.1)) if t < 0.1 else 0.0


def _no_default(force):
    """A function with a parameter that has no default."""


def _managed(restart: str = ""):
    """A function with a parameter named like an option the sweep sets."""


def _variadic(**options):
    """A function of variadic keywords."""


def _not_a_problem(force: float = 1.0):
    """A function that returns no Problem."""
    return force


@pytest.mark.parametrize("case,needle", [
    (_no_default, "a default value"),
    (_managed, "a name other than adaptive, checkpoint_every, restart"),
    (_variadic, "keyword parameters only"),
    ("tests/no_such_file.py:f", "an existing Python file"),
    ("tests/test_capability_sweeps.py:no_such_function", "a Case or a function"),
    ("no-such-case", "path/to/module.py:function"),
])
def test_user_case_refusals_are_one_line(case, needle):
    """What a sweep cannot take is refused in one line before any point runs."""
    with pytest.raises(ParameterError) as err:
        make_plan(case, ["force=1"])
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_user_function_must_return_a_problem(tmp_path):
    """A function returning something else: the point fails with the one-line reason, the
    sweep goes on (the table records it)."""
    res = run_sweep(make_plan(_not_a_problem, ["force=1,2"]), tmp_path, quiet=True)
    assert [r["status"] for r in res.rows] == ["failed", "failed"]
    assert "a function returning a fxrod Problem" in res.rows[0]["reason"]


@pytest.mark.slow
@pytest.mark.mpi
def test_user_function_sweep_under_mpi_equals_serial(tmp_path):
    """``mpirun -n 2 fxrod sweep module.py:function`` in groups of one rank (the function
    gets its group's communicator) and in one group of two: the tips of the serial sweep of
    the same points (one load step; the group of two: its distributed solve, round-off)."""
    from fxrod.studies.sweep_plot import read_table
    from tests.conftest import run_mpi

    spec = "tests/test_capability_sweeps.py:tube_cantilever"
    serial = run_sweep(make_plan(spec, ["force=5,10,20"]), tmp_path / "serial", quiet=True,
                       checkpoint_every=0).rows
    for k in (1, 2):
        out = tmp_path / f"groups_of_{k}"
        run_mpi(["-m", "fxrod", "sweep", spec, "--param", "force=5,10,20",
                 "--ranks-per-case", str(k), "--out", str(out)])
        rows = read_table(out / "sweep_test_capability_sweeps_tube_cantilever.csv")
        for r, ref in zip(rows, serial, strict=True):
            assert r["status"] == "done"
            for c in ("tip_1", "tip_2", "tip_3"):
                assert abs(float(r[c]) - ref[c]) <= roundoff(1.0, 2), (k, c, r[c], ref[c])


# ------------------------------------------------------------------ sweeps x features
def test_sweep_curved_helix_spring_is_linear_to_second_order(tmp_path):
    """curved rods: ``helix-spring`` (12 elements, one load step) at F, 2F, 4F (F = 0.25 N):
    the extension is linear in the force with a second-order remainder, ``e(4F) - 2 e(2F)``
    four times ``e(2F) - 2 e(F)`` (a Taylor test: log2 of the ratio 2 to 0.1)."""
    sums = sweep_and_singles("helix-spring", ["force=0.25,0.5,1.0", "n_elements=12", "h=1.0"],
                             tmp_path)
    e = [s["extension"] for s in sums]
    r1, r2 = e[1] - 2 * e[0], e[2] - 2 * e[1]
    assert abs(np.log2(r2 / r1) - 2.0) <= 0.1, (r1, r2)


def test_sweep_ring_diametral_load(tmp_path):
    """closed rods: the clamped ring pulled at its top (a user's function with a probe),
    ``P R^2/EI`` = 0.5e-4 and 1e-4: the diameter shortens by the thin ring's closed form
    ``(pi/4 - 2/pi) P R^3 / EI`` to 4e-5 (the bound of ``tests/test_curved.py`` at 1e-4;
    the geometric nonlinearity halves with the load)."""
    loads = (0.5e-4, 1e-4)
    sums = sweep_and_singles(ring, ["load=0.5e-4,1e-4"], tmp_path)
    for lam, s in zip(loads, sums, strict=True):
        exact = (np.pi / 4 - 2 / np.pi) * lam * RING_R
        assert abs(s["shortening"] / exact - 1.0) <= 4e-5


def test_sweep_graded_cantilever(tmp_path):
    """varying sections: the graded Kirchhoff cantilever (``E = E0 (1 - lam x)``) under a
    small gravity, lam = 0.3 and 0.6: the tip deflection ``(q L^4/(2 E0 I)) int_0^1
    (1 - xi)^3 / (1 - lam xi) dxi`` to 4.4e-8 (the bound of
    ``tests/test_varying_section.py``, same model)."""
    from scipy.integrate import quad

    lams = (0.3, 0.6)
    sums = sweep_and_singles(graded_cantilever, ["lam=0.3,0.6"], tmp_path)
    a, g = 0.02, 9.81e-3
    for lam, s in zip(lams, sums, strict=True):
        integral = quad(lambda xi, lam=lam: (1 - xi) ** 3 / (1 - lam * xi), 0.0, 1.0,
                        epsabs=0.0, epsrel=1e-13)[0]
        exact = 7850.0 * a * a * g / (2 * GRADED_E0 * a**4 / 12) * integral
        assert abs(-s["tip_3"] / exact - 1.0) <= 4.4e-8


def test_sweep_quasistatic_cantilever_constraints(tmp_path):
    """constraints: ``quasistatic-cantilever`` (Reissner rod and Kirchhoff elastica) at
    n_e = 8 and 16: the tips at t = 1 against the exact solutions (fxrod.data) within 1.25x
    the errors stated in ``tests/test_quasistatic.py`` and converging with order 4 (log2 of
    the error ratio 4 to 0.1)."""
    from fxrod.data import reference_path
    from tests.test_quasistatic import TIP_ERRORS

    sums = sweep_and_singles("quasistatic-cantilever", ["n_elements=8,16"], tmp_path)
    for variant, constrained in (("unconstrained", False), ("constrained", True)):
        name = "elastica_constrained_tip.csv" if constrained else \
            "reissner_unconstrained_tip.csv"
        a = np.loadtxt(reference_path("exact", name), delimiter=",", skiprows=1)
        exact = a[np.argmin(np.abs(a[:, 0] - 1.0)), 1:]
        err = [np.hypot(s[f"{variant}_tip_1"] - exact[0], s[f"{variant}_tip_2"] - exact[1])
               for s in sums]
        assert err[0] <= 1.25 * TIP_ERRORS[constrained][8]
        assert err[1] <= 1.25 * TIP_ERRORS[constrained][16]
        assert abs(np.log2(err[0] / err[1]) - 4.0) <= 0.1, err


def test_sweep_l_frame_joint(tmp_path):
    """joints and structures: the welded L-frame (a user's function), tip loads 0.5e-4 and
    1e-4 N: the tip drop of linear frame theory ``P b^3/(3 EI) + P b^2 a/EI + P a/EA +
    P b/(kGA)`` to 1e-4 (the bound of ``tests/test_structures.py`` at 1e-4 N; the geometric
    error is of order P)."""
    forces = (0.5e-4, 1e-4)
    sums = sweep_and_singles(l_frame, ["force=0.5e-4,1e-4"], tmp_path)
    EI, EA, kGA = FRAME_SEC.k_b1, FRAME_SEC.k_e, FRAME_SEC.k_s1
    a, b = FRAME_A, FRAME_B
    for P, s in zip(forces, sums, strict=True):
        drop = P * b**3 / (3 * EI) + P * b**2 * a / EI + P * a / EA + P * b / kGA
        assert abs((a - s["tip_3"]) / drop - 1.0) <= 1e-4


def test_sweep_elastic_support(tmp_path):
    """springs: the Kirchhoff cantilever on translational and rotational springs only,
    k_t = 1e5 and 1e4 N/m: tip deflection ``P/k_t + P L^2/k_r + P L^3/(3 EI)`` to 1e-6
    relative (the bound of ``tests/test_supports.py``, same model)."""
    sums = sweep_and_singles(sprung_cantilever, ["k_translation=1e5,1e4"], tmp_path)
    P, kr = 1e-2, 1e3
    for kt, s in zip((1e5, 1e4), sums, strict=True):
        w = P / kt + P / kr + P / (3.0 * SPRING_SEC.k_b1)
        assert abs(-s["tip_3"] / w - 1.0) <= 1e-6


def test_sweep_crossing_rods_contact(tmp_path):
    """rod-rod contact: the cantilever resting on a clamped-clamped beam, P = 0.5e-3 and
    1e-3 N: the beam's clamps carry ``F = P c_u / (c_u + c_l + 1/k)`` (Timoshenko beams in
    series with the penalty) to 1e-3 (the bound of ``tests/test_rodcontact.py``)."""
    forces = (0.5e-3, 1e-3)
    sums = sweep_and_singles(crossing_rods, ["force=0.5e-3,1e-3"], tmp_path)
    EI, GA, k = CROSS_SEC.k_b1, CROSS_SEC.k_s1, 1e4
    c_u = 0.5**3 / (3 * EI) + 0.5 / GA
    c_l = 1.0 / (192 * EI) + 1.0 / (4 * GA)
    for P, s in zip(forces, sums, strict=True):
        F = s["clamp_0_force_3"] + s["clamp_L_force_3"]
        assert abs(F / (P * c_u / (c_u + c_l + 1.0 / k)) - 1.0) <= 1e-3


def test_sweep_cross_flow_drag(tmp_path):
    """drag: the cantilever in a uniform cross-flow (RFT), speeds giving tip deflections of
    0.5e-4 and 1e-4 L: ``q L^4/(8 EI) + q L^2/(2 k_s)`` with ``q = c_n u`` to 1e-7 (the
    bound of ``tests/test_drag.py`` at 1e-4 L, same model; the nonlinearity ~ (w/L)^2)."""
    EI, ks = DRAG_SEC.k_b1, DRAG_SEC.k_s1
    compliance = 1.0 / (8 * EI) + 1.0 / (2 * ks)           # tip per unit load [m^2/N]
    speeds = [f / (DRAG_CN * compliance) for f in (0.5e-4, 1e-4)]
    sums = sweep_and_singles(cross_flow_cantilever,
                             [f"speed={speeds[0]!r},{speeds[1]!r}"], tmp_path)
    for u, s in zip(speeds, sums, strict=True):
        assert abs(s["tip_2"] / (DRAG_CN * u * compliance) - 1.0) <= 1e-7


def test_sweep_added_mass_free_fall(tmp_path):
    """added mass: the rod falling across its axis in water of two densities: the tip falls
    ``a t^2/2`` with ``a = g rhoA/(rhoA + rho_f pi D^2/4)`` (uniform acceleration is exact in
    the midpoint step: tests/test_drag.py), to Newton's atol over the ten steps (a velocity
    error of ``sqrt(nodes) atol/(rhoA L)`` per step) and round-off."""
    sums = sweep_and_singles(falling_rod_in_water, ["rho_f=500.0,1000.0"], tmp_path)
    t, n = 0.1, 10
    for rho_f, s in zip((500.0, 1000.0), sums, strict=True):
        a = 9.81 * DRAG_SEC.rhoA / (DRAG_SEC.rhoA + rho_f * np.pi * 0.02 ** 2 / 4)
        bound = n * TIGHT.atol * np.sqrt(9) / DRAG_SEC.rhoA * t + roundoff(a * t * t, n)
        assert abs(s["tip_3"] + 0.5 * a * t * t) <= bound, s["tip_3"] + 0.5 * a * t * t


def test_sweep_rigid_body_momentum(tmp_path):
    """rigid bodies: the free rod with a rigid body, pushed by a force pulse, body masses
    0.5 and 1 kg: after the pulse the momentum of rod and body is the impulse of the
    scheme's midpoint rule ``h sum_n F(t_{n+1/2})`` whatever the mass (exact discrete
    identity: round-off and Newton's atol over the 40 steps), while the tips differ."""
    sums = sweep_and_singles(rod_with_body, ["mass=0.5,1.0"], tmp_path)
    h, n = 5e-3, 40
    impulse = h * sum(pulse((k + 0.5) * h) for k in range(n)) * PUSH
    bound = roundoff(np.abs(impulse).max(), n) + n * TIGHT.atol * np.sqrt(9)
    for s in sums:
        p = np.array([s["p_1"], s["p_2"], s["p_3"]])
        assert np.max(np.abs(p - impulse)) <= bound, p - impulse
    assert abs(sums[0]["tip_2"] - sums[1]["tip_2"]) > 1e-3


def test_sweep_free_body_momentum(tmp_path):
    """free rigid bodies: the free rod with a free body welded to it, pushed by the force
    pulse, body masses 0.5 and 1 kg: each point equals its single run, and after the pulse
    the momentum of rod and body is the midpoint rule's impulse (round-off and Newton's
    atol over the 40 steps; the translation has ``|e|_2 <= sqrt(12)``, the 9 rod nodes and
    the carrier's 3), while the body's centre ``body_1..3`` moves less for the heavier
    body."""
    sums = sweep_and_singles(rod_with_free_body, ["mass=0.5,1.0"], tmp_path)
    h, n = 5e-3, 40
    impulse = h * sum(pulse((k + 0.5) * h) for k in range(n)) * PUSH
    bound = roundoff(np.abs(impulse).max(), n) + n * TIGHT.atol * np.sqrt(12)
    for s in sums:
        p = np.array([s["p_1"], s["p_2"], s["p_3"]])
        assert np.max(np.abs(p - impulse)) <= bound, p - impulse
    moved = [np.hypot(s["body_2"], s["body_3"]) for s in sums]
    assert moved[0] > moved[1] > 0.0


def ball_on_ground(friction: float = 0.2, comm=None) -> Problem:
    """A ball (radius 0.1 m, 1000 kg/m^3: a free body with a contact sphere) laid on the
    ground and launched along e1 at 0.5 m/s without spin: penalty contact (k = 1e6 N/m,
    critically damped), Coulomb friction ``friction`` [-] (eps = 1e-3 m/s); 150 steps of
    1 ms."""
    from fxrod.core.forms.bodycontact import BodyContact
    from fxrod.core.freebody import FreeBody
    from fxrod.core.obstacles import HalfSpace

    ball = FreeBody.sphere(0.1, 1000.0, (0.0, 0.0, 0.1), contact=True, velocity=(0.5, 0, 0))
    contact = BodyContact(HalfSpace(), 1e6, friction=friction, v_reg=1e-3,
                          damping=2.0 * np.sqrt(1e6 * ball.mass))
    model = RodModel(Structure([], bodies=[ball]), [Gravity((0.0, 0.0, -9.81))],
                     extensions=[contact], comm=comm)
    return Problem(model, 1e-3, 0.15, TIGHT)


def test_sweep_body_contact_rolls_at_five_sevenths(tmp_path):
    """free bodies in contact: the ball of :func:`ball_on_ground` swept over mu = 0.2 and
    0.4: each point equals its single run; each slides, then rolls at ``5/7 v0`` whatever
    mu (the angular momentum about the contact line), within the contact point's depth
    below the ground ``2 delta/R`` (``delta = m g/k``: the friction's moment about that
    line) and the ringing of the midpoint rule's nodal velocity after the friction stops,
    ``mu g h/2``; the slides differ."""
    sums = sweep_and_singles(ball_on_ground, ["friction=0.2,0.4"], tmp_path)
    m, v0, g, h = 4.0 / 3.0 * np.pi * 1e-3 * 1000.0, 0.5, 9.81, 1e-3
    for mu, s in zip((0.2, 0.4), sums, strict=True):
        tol = 2.0 * m * g / (1e6 * 0.1) + mu * g * h / 2.0 / (5.0 / 7.0 * v0)
        assert abs(s["p_1"] / (m * 5.0 / 7.0 * v0) - 1.0) <= tol, (mu, s["p_1"])
    assert sums[0]["body_1"] - sums[1]["body_1"] > 1e-3


def creeping_cantilever(tau: float = 0.1, force: float = 1e-2, h: float = 0.02,
                        t_end: float = 0.4, comm=None) -> Problem:
    """A quasi-static Kelvin-Voigt steel cantilever (1 m, radius 1 cm, 8 elements,
    retardation time ``tau`` [s] in extension, bending, shear and torsion), the dead tip
    force ``force`` [N] along -z from t = 0 on, load steps ``h`` [s] to ``t_end`` [s]."""
    from fxrod.core.forms.viscoelastic import GeneralizedMaxwell

    rod = Rod(SPRING_SEC, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 8)
    model = RodModel(rod, [EndLoad("L", force=(0, 0, -force))], [Clamp("0")],
                     extensions=[GeneralizedMaxwell.kelvin_voigt(tau)], quasistatic=True,
                     comm=comm)
    return Problem(model, h, t_end)


def creep_bound_and_elastic(force: float) -> tuple[float, float]:
    """The elastic tip deflection ``P L^3/(3 EI) + P L/(k GA)`` [m] of the creeping
    cantilever and the relative geometric nonlinearity ``(P L^2/EI)^2`` that bounds a
    linear closed form of it."""
    EI, kGA = SPRING_SEC.k_b1, SPRING_SEC.k_s1
    return force / (3 * EI) + force / kGA, (force / EI) ** 2


def test_load_stepping_kelvin_voigt_creep():
    """load stepping x viscoelasticity: a quasi-static Kelvin-Voigt cantilever under a
    constant tip force creeps toward the elastic deflection ``w_el`` as the closed form
    ``w_el (1 - exp(-t/tau))``; the load steps (the endpoint balance, rates
    ``(eps_{n+1} - eps_n)/h``) are its implicit Euler steps, ``w_n = w_el (1 - (1 +
    h/tau)^-n)``, matched every step to the geometric nonlinearity ``(P L^2/EI)^2``; halving
    h halves the gap to the closed form at t = 2 tau (first order, log2 of the ratio 1 to
    0.1) and the final state approaches ``w_el``."""
    from fxrod.runs.simulation import Simulation

    tau, P = 0.1, 1e-2
    w_el, nonlin = creep_bound_and_elastic(P)
    gaps = []
    for h in (0.02, 0.01):
        prob = creeping_cantilever(tau, P, h, 0.2)
        sim = Simulation(prob.integrator())
        sim.run(prob.t_end)
        n = np.round(sim.column("t") / h)
        w = -sim.column("tip_3")
        assert np.max(np.abs(w - w_el * (1 - (1 + h / tau) ** -n))) <= nonlin * w_el
        gaps.append(abs(w[-1] - w_el * (1 - np.exp(-0.2 / tau))))
    assert abs(np.log2(gaps[0] / gaps[1]) - 1.0) <= 0.1, gaps


def test_sweep_kelvin_voigt_retardation(tmp_path):
    """viscoelasticity x sweeps: the creeping cantilever swept over tau = 0.1 and 0.2 s
    (20 load steps of 0.02 s): each point's tip is the implicit Euler creep
    ``w_el (1 - (1 + h/tau)^-n)`` of its own retardation time, to ``(P L^2/EI)^2``."""
    sums = sweep_and_singles(creeping_cantilever, ["tau=0.1,0.2"], tmp_path)
    w_el, nonlin = creep_bound_and_elastic(1e-2)
    for tau, s in zip((0.1, 0.2), sums, strict=True):
        assert abs(-s["tip_3"] / (w_el * (1 - (1 + 0.02 / tau) ** -20)) - 1.0) <= nonlin


def test_sweep_capstan_friction(tmp_path):
    """obstacle contact with friction x sweeps: ``capstan`` (quick) at penalty stiffnesses
    5e4 and 1e5 N/m^2: T_out / T_in of both (mu, theta) pairs against Euler-Eytelwein
    ``exp(mu theta)`` within the 1 % the case promises."""
    from fxrod.studies.cases import demo

    capstan = demo("capstan")

    sums = sweep_and_singles("capstan", ["stiffness=5e4,1e5"], tmp_path, quick=True)
    for s in sums:
        for i, (mu, theta) in enumerate(capstan.PAIRS):
            assert abs(s[f"ratio_{i}"] / np.exp(mu * theta) - 1.0) <= 1e-2


def test_load_stepping_rigid_body_carries_no_static_load():
    """load stepping x rigid bodies: a quasi-static tube cantilever carrying a rigid body
    (2 kg, offset centre) at its tip under a tip force: a body without weight (gravity on
    bodies is refused) adds inertia only, so the tip deflection is the bare cantilever's
    closed form ``P L^3/(3 EI) + P L/(k GA)`` to ``(P L^2/EI)^2``."""
    from fxrod.runs.integrators import Integrator

    P = 10.0
    sec = Section.tube(RO, RI, E=E, rho=RHO, nu=NU)
    rod = Rod(sec, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 8)
    body = RigidBody((0, "L"), mass=2.0, inertia=np.diag([1e-3, 2e-3, 2e-3]),
                     centre=(1.05, 0.0, 0.01))
    model = RodModel(rod, [EndLoad("L", force=lambda t: (0.0, 0.0, -P * t))], [Clamp("0")],
                     extensions=[body], quasistatic=True)
    Integrator(model, 1.0).advance_to(1.0)
    A, Iax = math.pi * (RO**2 - RI**2), math.pi * (RO**4 - RI**4) / 4.0
    exact = P / (3 * E * Iax) + P / (cowper_tube(NU, RI / RO) * G * A)
    assert abs(-model.nodes.tip()[2] / exact - 1.0) <= (P / (E * Iax)) ** 2


def test_load_stepping_ensemble_members_closed_form():
    """load stepping x ensembles: a quasi-static ensemble of three tube cantilevers (tip
    force times 0.5, 1, 2; the last with a thicker tube) stepped together: each member's
    tip is its own closed form ``a P L^3/(3 EI_k) + a P L/(k G A_k)`` to ``(a P L^2/EI)^2``,
    and equals the member's single run to round-off."""
    from fxrod.runs.ensemble import Ensemble
    from fxrod.runs.integrators import Integrator

    P, amps, ri = 10.0, (0.5, 1.0, 2.0), (RI, RI, 0.014)
    secs = [Section.tube(RO, r, E=E, rho=RHO, nu=NU) for r in ri]
    rod = Rod(secs[0], (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 8)
    load = EndLoad("L", force=lambda t: (0.0, 0.0, -P * t))
    ens = Ensemble(rod, [load], amps, [Clamp("0")], sections=secs, quasistatic=True)
    integ = ens.integrator(0.5)
    integ.advance_to(1.0)
    tips = ens.tips()
    for k, (a, r, sec) in enumerate(zip(amps, ri, secs, strict=True)):
        A, Iax = math.pi * (RO**2 - r**2), math.pi * (RO**4 - r**4) / 4.0
        exact = a * P / (3 * E * Iax) + a * P / (cowper_tube(NU, r / RO) * G * A)
        assert abs(-tips[k, 2] / exact - 1.0) <= (a * P / (E * Iax)) ** 2
        single = RodModel(Rod(sec, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 8),
                          [EndLoad("L", force=lambda t, a=a: (0.0, 0.0, -a * P * t))],
                          [Clamp("0")], quasistatic=True)
        Integrator(single, 0.5, integ.settings).advance_to(1.0)
        ref = single.nodes.tip()
        assert np.max(np.abs(tips[k] - ref)) <= roundoff(1.0, 2 * 2), (tips[k] - ref)


def test_dynamics_box_section_spin_and_translation():
    """dynamics x cross-sections: a free steel box rod (40 x 20 x 2 mm, L = 1 m, 4
    elements) translating at v e3 and spinning about its axis e1 at omega: the kinetic
    energy is ``rho A v^2 L / 2 + rho (I_1 + I_2) omega^2 L / 2`` and the momenta
    ``p_3 = rho A v L``, ``J_1 = rho (I_1 + I_2) omega L``, ``J_2 = -rho A v L^2 / 2`` with
    the box's closed-form A, I_1, I_2 (round-off); over 20 steps of 1 ms the energy is
    conserved to Newton's atol times the efforts (:func:`tests.roundoff.effort_norm`) plus
    round-off, the momenta to round-off plus Newton's atol on their rows."""
    from types import SimpleNamespace

    from fxrod.runs.integrators import Integrator
    from fxrod.runs.probes import MomentumProbe
    from tests.roundoff import effort_norm, newton_bound

    b, hh, t = 0.04, 0.02, 0.002
    sec = Section.box(b, hh, t, E=E, rho=RHO, nu=NU)
    A = b * hh - (b - 2 * t) * (hh - 2 * t)
    I1 = (b * hh**3 - (b - 2 * t) * (hh - 2 * t) ** 3) / 12.0
    I2 = (hh * b**3 - (hh - 2 * t) * (b - 2 * t) ** 3) / 12.0
    v, om, L, steps, h = 0.3, 20.0, 1.0, 20, 1e-3
    rod = Rod(sec, (0, 0, 0), (L, 0, 0), (0, 1, 0), 4)
    model = RodModel(rod, [])
    model.set_velocity(v_phi=(0.0, 0.0, v), omega=(om, 0.0, 0.0))
    settings = SolverSettings(atol=1e-10)
    integ = Integrator(model, h, settings)
    T0 = RHO * A * v**2 * L / 2 + RHO * (I1 + I2) * om**2 * L / 2
    p0, J0 = RHO * A * v * L, RHO * (I1 + I2) * om * L          # p_3, J_1
    J0_2 = -RHO * A * v * L**2 / 2
    view = SimpleNamespace(model=model)
    mom = MomentumProbe()
    rows, efforts = [{**model.ledger.current(), **mom(view, None)}], 0.0
    for _ in range(steps):
        w_prev = model.w0.x.array.copy()
        integ.step()
        efforts += effort_norm(model, w_prev, h)
        rows.append({**model.ledger.current(), **mom(view, None)})
    r0 = rows[0]
    assert abs(r0["kinetic"] - T0) <= roundoff(T0)
    assert abs(r0["p_3"] - p0) <= roundoff(p0) and abs(r0["J_1"] - J0) <= roundoff(J0)
    assert abs(r0["J_2"] - J0_2) <= roundoff(abs(J0_2))
    H = np.array([r["H"] for r in rows])
    assert np.max(np.abs(H - H[0])) <= roundoff(T0, steps) + settings.atol * efforts
    nodes = 2 * 4 + 1
    for k, ref in (("p_3", p0), ("J_1", J0), ("J_2", J0_2)):
        x = np.array([r[k] for r in rows])
        bound = roundoff(abs(ref), steps) + newton_bound(settings, np.sqrt(nodes) * L, steps)
        assert np.max(np.abs(x - x[0])) <= bound, (k, np.ptp(x))
