"""The capability matrix (docs/capabilities.md) and the cells issue 33 found silently wrong.

The matrix: every (feature, analysis) cell is listed once, its status agrees with the
summary table, every "verified" cell names a test that exists, and every "refused" cell
quotes a message that fxrod's source raises.

The cells, each against an independent reference:

* (a) a free rod's and a helix's modal analysis: six zero frequencies whatever the number of
  modes asked (the first ``n`` if fewer), then the free-free Euler-Bernoulli frequencies
  ``(beta_n L)^2 sqrt(EI / (rhoA L^4))``, ``beta_n L`` the roots of ``cos x cosh x = 1``;
  the rigid modes carry the whole mass ``rhoA L`` in every direction;
* (b) obstacle contact in a dynamic and in a quasi-static model: a free rod pressed into the
  ground by gravity (uniform penetration, an exact equilibrium) bounces at
  ``omega^2 = k / rhoA`` (Winkler foundation); the PH export's stiffness maps the uniform
  vertical translation ``r`` to ``K r = (k / rhoA) M r``;
* (c) rod-rod contact in the operator of the modes, buckling and the PH export: its rows
  equal central differences of the model's own residual moved along ``w = w0``;
* (d) rod-rod contact in the adjoint: Taylor tests (second-order remainders) in statics and
  in dynamics;
* (e) buckling of a freshly built column: Euler's load ``pi^2 EI / (4 L^2)``.
"""

from __future__ import annotations

import ast
import dataclasses
import re

import numpy as np
import pytest
from dolfinx import fem
from dolfinx.fem.petsc import assemble_vector
from petsc4py import PETSc

from fxrod.analysis.adjoint import Adjoint, FinalPose, InputHistory, taylor_remainders
from fxrod.analysis.continuation import Continuation
from fxrod.analysis.modes import EIG_TOL, buckling, modes, stiffness_matrix
from fxrod.analysis.phmodel import Input, linear_ph
from fxrod.core.forms.contact import Contact
from fxrod.core.forms.rodcontact import RodContact
from fxrod.core.geometry import Helix
from fxrod.core.loads import EndLoad, Gravity
from fxrod.core.model import RodModel
from fxrod.core.obstacles import HalfSpace
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.newton import global_bc_dofs
from fxrod.solvers.settings import SolverSettings
from tests.conftest import ROOT

#: Machine epsilon of float64.
EPS = float(np.finfo(float).eps)
#: Round-off growth factor: a sum of n products is off by n eps / 2 times the sum of the
#: magnitudes of its terms; an assembled row of a P2 rod element couples at most 66
#: unknowns, the products here sum at most that many terms twice (assembly and product).
ROUNDOFF_C = 64
DOC = ROOT / "docs" / "capabilities.md"
STATUS = {"verified": "V", "refused": "R", "does not apply": "-", "unknown": "?"}

STEEL = Section.circular(radius=0.01, E=2e11, rho=7850.0, nu=0.3)
#: Euler-Bernoulli with a rotary inertia 1e-6 of the section's: the spin about the axis keeps
#: a mass (the pencil stays regular), the bending frequencies stay Euler-Bernoulli's.
EB = dataclasses.replace(STEEL, M11=1e-6 * STEEL.M11, M22=1e-6 * STEEL.M22)
BETA_FREE = np.array([4.7300407449, 7.8532046241, 10.9956078380])


def roundoff(scale: float) -> float:
    """Round-off bound ``ROUNDOFF_C eps scale`` of a quantity of magnitude ``scale``."""
    return ROUNDOFF_C * EPS * scale


# ---------------------------------------------------------------------- the matrix
def _cells() -> tuple[list[str], list[str], dict, dict]:
    """Parse docs/capabilities.md: the analyses (columns) and features (rows) of the summary
    table, its symbols ``{(feature, analysis): "V" | "R" | "-" | "?"}`` and the cells of the detail
    table ``{(feature, analysis): [(status, text), ...]}`` (its fourth column, the reference or
    a note, is for the reader)."""
    text = DOC.read_text()
    summary = text.split("<!-- summary -->")[1].split("<!-- /summary -->")[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in summary.strip().splitlines() if line.strip().startswith("|")]
    analyses = rows[0][1:]
    symbols, features = {}, []
    for row in rows[2:]:
        features.append(row[0])
        for a, sym in zip(analyses, row[1:], strict=True):
            symbols[(row[0], a)] = sym
    detail = text.split("<!-- cells -->")[1].split("<!-- /cells -->")[0]
    cells: dict = {}
    for line in detail.strip().splitlines()[2:]:
        feature, analysis, cell = (c.strip() for c in line.strip().strip("|").split("|")[:3])
        status, _, rest = cell.partition(":")
        cells.setdefault((feature, analysis), []).append((status.strip(), rest.strip()))
    return features, analyses, symbols, cells


def _source_strings() -> list[str]:
    """Every string constant of fxrod's source (implicit concatenations joined, the literal
    parts of f-strings joined with their fields left out)."""
    out = []
    for p in (ROOT / "fxrod").rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.append(node.value)
            elif isinstance(node, ast.JoinedStr):
                out.append("".join(v.value for v in node.values
                                   if isinstance(v, ast.Constant)))
    return out


def test_matrix_is_complete_and_consistent():
    """Each of the 20 x 9 cells once in the detail table, with the summary's status."""
    features, analyses, symbols, cells = _cells()
    assert len(features) == 20 and len(analyses) == 9
    assert set(cells) == set(symbols)
    for key, entries in cells.items():
        assert len(entries) == 1, key
        status, text = entries[0]
        assert status in STATUS, (key, status)
        assert symbols[key] == STATUS[status], key
        assert (status == "unknown") == (text == ""), key


def test_verified_cells_name_existing_tests():
    """A verified cell's node id ``tests/test_x.py::test_name[params]`` names a test
    function defined in that file."""
    _, _, _, cells = _cells()
    for key, [(status, text)] in cells.items():
        if status != "verified":
            continue
        m = re.fullmatch(r"`?(tests/test_\w+\.py)::(test_\w+)(\[[^\]]*\])?`?", text)
        assert m, (key, text)
        path = ROOT / m.group(1)
        assert path.is_file(), (key, text)
        assert re.search(rf"^def {m.group(2)}\(", path.read_text(), re.M), (key, text)


def test_refused_cells_quote_raised_messages():
    """A refused cell quotes (in double quotes) a message string of fxrod's source."""
    _, _, _, cells = _cells()
    strings = _source_strings()
    for key, [(status, text)] in cells.items():
        if status != "refused":
            continue
        m = re.fullmatch(r'"(.+)"', text)
        assert m, (key, text)
        assert any(m.group(1) in s for s in strings), (key, text)


# ---------------------------------------------------------------------- (a) rigid modes
@pytest.mark.parametrize("n_modes", [1, 5, 6, 7, 8, 12])
def test_free_rod_six_rigid_modes_whatever_asked(n_modes):
    """Six exact zeros (the first n_modes of them if fewer), then the free-free bending pairs
    (n_e 16, discretisation error measured 1.6e-5, 1.2e-4, 4.5e-4; order 4); the rigid modes
    carry the rod's mass rhoA L along every axis (Parseval over an M-orthonormal basis of the
    translations: a sum of 6 (M r)-products over the 12 (2 n_e + 1) unknowns, round-off
    n eps rhoA L)."""
    model = RodModel(Rod(EB, (0, 0, 0), (1, 0, 0), (0, 1, 0), 16, constraints=("kirchhoff",)))
    m = modes(model, n_modes)
    assert m.omega.size == n_modes
    assert np.all(m.omega[:6] == 0.0)
    exact = np.repeat(BETA_FREE**2 * np.sqrt(EB.k_b1 / EB.rhoA), 2)[:max(n_modes - 6, 0)]
    gap = np.abs(m.omega[6:] / exact - 1.0)
    assert np.all(gap <= np.repeat([2e-5, 1.5e-4, 5e-4], 2)[:gap.size])
    if n_modes >= 6:
        n = 12 * 33
        mass = m.effective_mass[:6, :3].sum(axis=0)
        assert np.all(np.abs(mass - EB.rhoA) <= n * EPS * EB.rhoA)


@pytest.mark.parametrize("n_modes", [5, 6, 7, 8])
def test_helix_six_rigid_modes_whatever_asked(n_modes):
    """A free helix (curved and twisted): six exact zeros whatever is asked (the probe found
    five for 7 and 8), the next modes elastic (omega > 0); the rigid modes carry the helix's
    mass rhoA L along every axis (round-off as for the straight rod)."""
    rod = Rod(EB, curve=Helix(0.5, 0.4, 1.5), n_elements=12)
    m = modes(RodModel(rod), n_modes)
    assert np.all(m.omega[:min(n_modes, 6)] == 0.0)
    assert np.all(m.omega[6:] > 0.0)
    if n_modes >= 6:
        n = 12 * 25
        mass = m.effective_mass[:6, :3].sum(axis=0)
        assert np.all(np.abs(mass - EB.rhoA * rod.length) <= n * EPS * EB.rhoA * rod.length)


# ---------------------------------------------------------------------- (b) obstacle contact
R_C = 0.01
SEC_C = Section.circular(R_C, 2e11, 1000.0, nu=0.4)
SEC_C = dataclasses.replace(SEC_C, M11=1e-6 * SEC_C.M11, M22=1e-6 * SEC_C.M22)
K_GROUND, DELTA = 1e5, 1e-4              # penalty [N/m^2], penetration [m]


def resting_rod(quasistatic: bool, friction: float = 0.0,
                friction_backward: float | None = None) -> RodModel:
    """A free straight rod (1 m, 8 elements) in the ground z <= 0 by DELTA along its whole
    length, held there by gravity g = k DELTA / rhoA: the line load rhoA g equals the penalty
    k DELTA, the rod is unstressed (an exact equilibrium)."""
    rod = Rod(SEC_C, start=(0, 0, R_C), end=(1, 0, R_C), d1=(0, 1, 0), n_elements=8)
    model = RodModel(rod, [Gravity((0, 0, -K_GROUND * DELTA / SEC_C.rhoA))], [],
                     [Contact(HalfSpace(), stiffness=K_GROUND, friction=friction,
                              friction_backward=friction_backward)],
                     quasistatic=quasistatic)
    model.w0.x.array[model.space.q_map[2::12]] -= DELTA
    model.w.x.array[:] = model.w0.x.array
    return model


@pytest.mark.parametrize("quasistatic", [False, True])
def test_obstacle_bounce_mode_full_stiffness(quasistatic):
    """The mode carrying the vertical mass bounces at omega^2 = k / rhoA (the dynamic model
    gave 0.4994 k / rhoA: its midpoint discrete gradient differentiated in w alone). The
    uniform vertical translation is an exact eigenvector (the contact and the mass integrate
    the same P2 products with one Gauss rule); friction, a damping once linearised, leaves
    the undamped modes alone. Bound: the eigen-solver's relative tolerance (symmetric
    pencil) plus round-off."""
    m = modes(resting_rod(quasistatic, friction=0.5), 8)
    assert np.all(m.omega[:4] == 0.0)          # slide x, y, turn about z, spin about x
    i = int(np.argmax(m.effective_mass[:, 2]))
    assert abs(m.omega[i] ** 2 * SEC_C.rhoA / K_GROUND - 1.0) <= EIG_TOL + roundoff(1.0)


@pytest.mark.parametrize("quasistatic", [False, True])
def test_obstacle_ph_export_full_stiffness(quasistatic):
    """The PH export's K maps the uniform vertical translation r to (k / rhoA) M r (half of
    it before): exact but for the round-off of one product of K's rows (c eps |K| |r|).
    Friction is refused there with one line."""
    ph = linear_ph(resting_rod(quasistatic), [Input("f", "force", "L", (0, 0, 1))])
    K = ph.Q[ph.block("q"), ph.block("q")]
    M = ph.E[ph.block("v"), ph.block("v")]
    r = (ph.q_component == 2).astype(float)
    gap = np.max(np.abs(K @ r - K_GROUND / SEC_C.rhoA * (M @ r)))
    assert gap <= roundoff(np.max(abs(K) @ r))
    assert np.max(np.abs(K @ r)) > 1e6 * gap
    for mu, mu_back in ((0.5, None), (0.0, 0.5)):       # backward friction alone too
        with pytest.raises(ParameterError, match="0 in the PH export"):
            linear_ph(resting_rod(quasistatic, mu, mu_back), [Input("f", "force")])


def test_continuation_refuses_friction_either_way():
    """Friction (forward, or backward only) is refused by the arc-length continuation in one
    line: a path-dependent, non-symmetric contact law."""
    for mu, mu_back in ((0.5, None), (0.0, 0.5)):
        model = resting_rod(True, mu, mu_back)
        with pytest.raises(ParameterError, match="0 in the arc-length continuation"):
            Continuation(model)


# ---------------------------------------------------------------------- rod-rod contact
R_R = 0.01
SEC_R = Section.circular(radius=R_R, E=1e7, rho=1000.0, nu=0.3)
P_R, K_R = 1e-2, 1e2                       # end load [N], pair stiffness [N/m]
TIGHT = SolverSettings(atol=1e-13, rtol=1e-14, jacobian_lag=1)


def crossing(quasistatic: bool) -> tuple[RodModel, RodContact]:
    """A cantilever (rod 1, 0.5 m along y, 4 elements) whose free end rests on the midpoint
    of a clamped-clamped beam (rod 0, 1 m along x, 8 elements), loaded by P_R t downwards at
    its end; pair stiffness K_R (an overlap of about 9e-5 m under P_R)."""
    lower = Rod(SEC_R, start=(-0.5, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0), n_elements=8)
    upper = Rod(SEC_R, start=(0, -0.5, 2 * R_R), end=(0, 0, 2 * R_R), d1=(1, 0, 0),
                n_elements=4)
    contact = RodContact(radius=R_R, stiffness=K_R)
    load = EndLoad("L", force=lambda t: (0, 0, -P_R * t), rod=1)
    model = RodModel(Structure([lower, upper]), [load],
                     [Clamp("0", rod=0), Clamp("L", rod=0), Clamp("0", rod=1)], [contact],
                     quasistatic=quasistatic)
    return model, contact


@pytest.fixture(scope="module")
def pressed_state() -> np.ndarray:
    """The crossing's quasi-static equilibrium under P_R (local mixed array)."""
    model, contact = crossing(True)
    integ = Integrator(model, 0.5, TIGHT)
    integ.step()
    integ.step()
    assert contact.min_gap() < -5e-5
    return model.w0.x.array.copy()


def _momentum_rows(model, x: np.ndarray) -> np.ndarray:
    """The momentum rows of the model's residual F / h with w = w0 = x (at rest: no
    inertia), through the model's own form and the terms' add_residual (owned dofs)."""
    model.w.x.array[:] = x
    model.w0.x.array[:] = x
    b = assemble_vector(fem.form(model.F))
    b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
    for term in model.nonlocal_terms:
        term.add_residual(b, global_bc_dofs(model.w, model.bcs))
    out = b.array.copy() / float(model.h.value)
    b.destroy()
    return out


@pytest.mark.parametrize("quasistatic", [False, True])
def test_rod_rod_contact_in_the_linear_operator(quasistatic, pressed_state):
    """The q rows of the operator of modes and buckling (stiffness_matrix) and the PH
    export's K, applied to a direction v (free q dofs, components in [-1, 1]), equal the
    central difference of the momentum rows along w = w0 = x + e v (before: the contact
    block, 17 of |A v| = 17 here, was missing). In the dynamic model the difference goes
    through the contact's midpoint discrete gradient at x_n = x_{n+1}, a path other than the
    linearisation's end-point Jacobian.

    Bound: the momentum rows are affine in q but for the pair forces f = k (|d| - 2r) d/|d|
    (strains are bilinear in q: internal and constraint forces are linear in q at fixed
    stresses and multipliers; dead loads are constant). Along a relative motion u the third
    derivative of d/|d| is at most 15 |u|^3 / |d|^3, so the central difference is off by at
    most e^2/6 * 15 k 2r |u|^3 / |d|^3 (|u| <= 2 sqrt(3), |d| >= 2r - 1e-4), plus round-off
    c eps F / e of rows whose terms are below F = 1 N (load 1e-2 N, stresses below it)."""
    model, _ = crossing(quasistatic)
    for ld in model.loads:
        ld.update(1.0)
    x = pressed_state
    n_own = model.space.W.dofmap.index_map.size_local * model.space.W.dofmap.index_map_bs
    free = np.zeros(x.size, dtype=bool)
    free[model.space.q_map] = True
    for bc in model.bcs:
        free[bc.dof_indices()[0]] = False
    free = free[:n_own]
    v = np.zeros(x.size)
    v[:n_own][free] = np.random.default_rng(7).uniform(-1.0, 1.0, int(free.sum()))
    e = 1e-6
    fd = (_momentum_rows(model, x + e * v) - _momentum_rows(model, x - e * v)) / (2 * e)
    u, d = 2 * np.sqrt(3), 2 * R_R - 1e-4
    bound = e**2 / 6 * 15 * K_R * 2 * R_R * u**3 / d**3 + roundoff(1.0) / e
    A = stiffness_matrix(model, x)
    vec = A.createVecRight()
    vec.array[:] = v[:n_own]
    Av = A.createVecLeft()
    A.mult(vec, Av)
    assert np.max(np.abs(Av.array[free] - fd[free])) <= bound
    assert np.max(np.abs(Av.array[free])) > 1e4 * bound
    model.w.x.array[:] = x
    model.w0.x.array[:] = x
    ph = linear_ph(model, [Input("f", "force", "L", (0, 0, 1), rod=1)])
    K = ph.Q[ph.block("q"), ph.block("q")]
    assert np.max(np.abs(K @ v[:n_own][free] - fd[free])) <= bound
    for m in (A, vec, Av):
        m.destroy()


@pytest.mark.parametrize("quasistatic", [True, False])
def test_rod_rod_contact_adjoint_taylor(quasistatic):
    """The gradient of the final tip pose with respect to the end-load history passes the
    Taylor test (remainder order 2 within 0.1) through a run in contact, in statics (4
    load steps) and in dynamics (10 steps of 0.01 s); the probe had the adjoint's gradient
    at -2.956e-4 where finite differences gave +2.743e-4 (contact ignored)."""
    model, contact = crossing(quasistatic)
    h, t_end = (0.25, 1.0) if quasistatic else (0.01, 0.1)
    force = InputHistory("force", model.loads[0], [0.0, t_end],
                         values=np.array([[0.0, 0.0, 0.0], [0.0, 0.0, -P_R]]))
    adj = Adjoint(Integrator(model, h, TIGHT), t_end, FinalPose([0.0, 0.0, 0.0]), [force])
    d = P_R * np.random.default_rng(5).normal(size=6)
    r, orders = taylor_remainders(adj, d, [1e-1, 5e-2, 2.5e-2, 1.25e-2])
    assert contact.min_gap() < -1e-5                # the run ends in contact
    assert np.all(r > 0.0) and np.all(np.abs(orders - 2.0) < 0.1), (r, orders)


# ---------------------------------------------------------------------- (e) buckling
def column(force) -> RodModel:
    """A clamped-free Kirchhoff steel column (1 m, 16 elements) under an end force."""
    return RodModel(Rod(STEEL, (0, 0, 0), (1, 0, 0), (0, 1, 0), 16,
                        constraints=("kirchhoff",)), [EndLoad("L", force=force)],
                    [Clamp("0")], quasistatic=True)


def test_buckling_of_a_fresh_model():
    """Without a step: the loads are evaluated (t = 0, or the load factor given) and the
    linear prestress put on the reference: P_cr = pi^2 EI / (4 L^2) twice (two planes) to
    1.5e-6 (the discretisation, measured 5.8e-7 at n_e 16 as after a quasi-static step).
    A t about a loaded state and loads that stress nothing are refused with one line."""
    P = 1000.0
    p_cr = np.pi**2 * STEEL.k_b1 / 4.0
    b = buckling(column((-P, 0.0, 0.0)), 2)
    assert b.factor * P == pytest.approx([p_cr, p_cr], rel=1.5e-6)
    ramp = column(lambda t: (-P * t, 0.0, 0.0))
    b = buckling(ramp, 2, t=2.0)
    assert b.factor * 2.0 * P == pytest.approx([p_cr, p_cr], rel=1.5e-6)
    with pytest.raises(ParameterError, match="no geometric stiffness"):
        buckling(ramp, 1)                      # t = 0: the ramp is zero
    Integrator(ramp, 0.5).step()
    with pytest.raises(ParameterError, match="about the unloaded reference only"):
        buckling(ramp, 1, t=1.0)
