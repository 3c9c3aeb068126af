"""The linearised columns of the capability matrix (docs/capabilities.md): the PH export
(:func:`fxrod.analysis.phmodel.linear_ph`), modes and buckling (:mod:`fxrod.analysis.modes`) and the
arc-length continuation (:class:`fxrod.analysis.continuation.Continuation`) of the features curved
and closed rods, varying sections, springs, actuation, cross-sections, rigid bodies and
ensembles, each against an independent reference:

* ``test_ph_export_cross_sections``: the export's finite generalised eigenvalues
  ``+- i omega`` of ``((J - R) Q, E)`` for a clamped tube and a clamped I-beam
  (Euler-Bernoulli, no rotary inertia) against ``omega_n = (beta_n L)^2 sqrt(EI / (rhoA
  L^4))`` with the section's ``EI`` in each principal plane, ``beta_n L`` the roots of
  ``1 + cos x cosh x = 0``; the error falls at order 4 in the element size;
* ``test_ph_export_free_ring``: a free thin ring (radius R, inextensible Kirchhoff rod):
  in-plane ``omega_n^2 = EI n^2 (n^2 - 1)^2 / (rhoA R^4 (n^2 + 1))`` and out-of-plane
  ``omega_n^2 = EI n^2 (n^2 - 1)^2 / (rhoA R^4 (n^2 + EI/GJ))`` (Blevins, *Formulas for
  Natural Frequency and Mode Shape*, 1979, Table 9-2), order 4;
* ``test_ph_export_curved_prestressed_helix``: the export's stiffness ``K`` (and the
  operator of the modes) of a clamped helix at its equilibrium under an end load
  (prestress) against the central difference of the model's own residual, exact but for
  round-off (the momentum rows are affine in q at fixed stresses under dead loads);
* ``test_ph_export_cantilever_with_a_tip_spring``: the Euler-Bernoulli clamped-spring
  frequency equation ``1 + cos b cosh b = k L^3 / (EI b^3) (cos b sinh b - sin b cosh b)``;
* ``test_ph_export_stepped_cantilever``: a cantilever whose section steps at mid-length,
  against a converged Euler-Bernoulli Hermite-cubic finite-element model (numpy, 200
  elements, another discretisation), order 4;
* ``test_actuated_equilibrium_operator_taylor``: a tendon-actuated rod (the tendon's
  tension is a follower-type load, its stiffness state dependent) at its actuated
  equilibrium: the operator of the modes and buckling and the PH export's ``K`` against the
  residual, Taylor remainders of order 2; without the tendon's stiffness the remainder is of
  order 1;
* ``test_ensemble_modes_buckling_and_ph_export``: an ensemble of two cantilevers with
  different sections and load amplitudes: modes, PH export and linear buckling give the
  union of the members' spectra, each member against its closed form (Euler-Bernoulli
  frequencies, Euler's load ``pi^2 EI / (4 L^2)`` over its amplitude);
* continuation: ``test_continuation_ring_diametral_load`` (the thin ring's diametral
  shortening ``(pi/4 - 2/pi) P R^3 / EI``, Castigliano), ``test_continuation_stepped_column``
  (the stepped column's critical load, ``tan(k_1 a) tan(k_2 (L - a)) = k_2 / k_1``),
  ``test_continuation_cross_section_column`` (a box column bifurcates at Euler's load of
  its weak axis), ``test_continuation_rigid_body`` (a cantilever with a tip body under an
  end force: the Euler-Bernoulli tip deflection ``F L^3 / (3 EI)``, the body adds no static
  term) and ``test_continuation_ensemble`` (each member's tip deflection ``a_k lambda F
  L^3 / (3 EI_k)``); ``test_continuation_refuses_what_turns_non_symmetric_on_the_path``:
  the refusal of a non-symmetric tangent that the model does not declare (factorised by
  LDL^T: symmetric at the start, not on the path). Follower loads, moments and spatial
  actuators are factorised by LU: tests/test_continuation_nonsymmetric.py.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.linalg as sl
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from dolfinx import fem
from dolfinx.fem.petsc import assemble_vector
from petsc4py import PETSc
from scipy.optimize import brentq

from fxrod.analysis.modes import stiffness_matrix
from fxrod.analysis.phmodel import Input, linear_ph
from fxrod.core.forms.springs import ElasticSupport
from fxrod.core.geometry import Circle, Helix
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section, VaryingSection
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from tests.roundoff import roundoff

STEEL = Section.circular(radius=0.005, E=2e11, rho=7850.0, nu=0.3)
#: Roots of 1 + cos x cosh x = 0 (clamped-free Euler-Bernoulli beam).
BETA_L = np.array([1.8751040687, 4.6940911330, 7.8547574382])
TIP = [Input("F_z", "force", "L", (0, 0, 1))]


def eb(section: Section) -> Section:
    """``section`` without rotary inertia (Euler-Bernoulli)."""
    return dataclasses.replace(section, M11=0.0, M22=0.0)


def ph_frequencies(ph, k: int, shift: float = 0.0) -> np.ndarray:
    """The ``k`` lowest natural frequencies [rad/s] of the PH export, ascending (zeros of
    rigid-body motions included).

    A non-zero eigenvalue ``s`` of ``(J Q, E)`` with eigenvector ``(q, v, sigma, lambda)``
    has ``v = s q`` (first block row), ``C sigma = B q`` and ``G q = 0`` (third and fourth,
    divided by ``s``), so the second block row reads ``-s^2 M q = K q + B^T sigma + G^T
    lambda``: ``s = +- i omega`` with ``omega^2`` an eigenvalue of the symmetric pencil
    ``([[K, B^T, G^T], [B, -C, 0], [G, 0, 0]], diag(M, 0, 0))``, assembled here from the
    export's blocks (``K = Q_qq``, ``M = E_vv``, ``C = E_ss``, ``B^T, G^T = -J_vs,
    -J_vl``) and solved by shift-invert Lanczos (ARPACK) about ``shift`` [rad^2/s^2]."""
    q, v, sg, lm = (ph.block(b) for b in ("q", "v", "sigma", "lambda"))
    K, M, C = ph.Q[q, q], ph.E[v, v], ph.E[sg, sg]
    Bt, Gt = -ph.J[v, sg], -ph.J[v, lm]
    S = sp.bmat([[K, Bt, Gt], [Bt.T, -C, None], [Gt.T, None, None]], format="csc")
    n = S.shape[0]
    Mass = sp.block_diag([M, sp.csr_matrix((n - M.shape[0],) * 2)], format="csc")
    w2 = spla.eigsh(S, k, M=Mass, sigma=shift, return_eigenvectors=False)
    return np.sqrt(np.clip(np.sort(w2), 0.0, None))


def nearest(computed: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """Relative error of the computed value nearest each exact one."""
    return np.array([np.min(np.abs(computed / e - 1.0)) for e in exact])


def order(errors_coarse: np.ndarray, errors_fine: np.ndarray) -> np.ndarray:
    """Observed convergence order of errors at element sizes h and h/2."""
    return np.log2(np.abs(errors_coarse) / np.abs(errors_fine))


def cantilever(section, n_elements: int, extensions=(), length: float = 1.0) -> RodModel:
    """A clamped-free Kirchhoff rod along x (d1 = y), quasi-static, unloaded."""
    rod = Rod(section, (0, 0, 0), (length, 0, 0), (0, 1, 0), n_elements,
              constraints=("kirchhoff",))
    return RodModel(rod, [], [Clamp("0")], list(extensions), quasistatic=True)


# ---------------------------------------------------------------------- PH export
@pytest.mark.parametrize("shape", ["tube", "ibeam"])
def test_ph_export_cross_sections(shape):
    """Clamped tube (r 12/10 mm) and I-beam (100 x 50 mm, web 5 mm, flanges 8 mm), 1 m: the
    export's first three bending frequencies in each principal plane (EI = k_b1 about d1,
    k_b2 about d2) against Euler-Bernoulli; the error falls at order 4 from n_e 8 to 16
    (asserted 4 +- 0.3, measured 3.96 .. 4.00) and is below 2e-4 at n_e 16 (the
    discretisation, measured 1.2e-4 for the third pair)."""
    if shape == "tube":
        sec = eb(Section.tube(0.012, 0.010, E=2e11, rho=7850.0, nu=0.3))
    else:
        sec = eb(Section.ibeam(0.1, 0.05, 0.005, 0.008, E=2e11, rho=7850.0, nu=0.3))
    # the plane with displacement along z bends about d1 = y: EI = k_b1, about d2: k_b2
    exact = np.sort(np.concatenate([BETA_L**2 * np.sqrt(k / sec.rhoA)
                                    for k in (sec.k_b1, sec.k_b2)]))
    errs = []
    for n in (8, 16):
        w = ph_frequencies(linear_ph(cantilever(sec, n), TIP), 12)
        errs.append(nearest(w, exact))
    assert np.all(np.abs(errs[1]) <= 2e-4), errs[1]
    assert np.all(np.abs(order(*errs) - 4.0) <= 0.3), order(*errs)


def test_ph_export_free_ring():
    """Free steel ring (R = 0.5 m, r = 5 mm, inextensible Kirchhoff rod, no rotary inertia):
    the export's first eight elastic frequencies (n = 2, 3, out of and in plane, each a
    pair) against the ring formulas, order 4 from n_e 16 to 32 (asserted 4 +- 0.3, measured
    3.93 .. 3.99), below 2.5e-4 at n_e 32 (measured 2.2e-4, as the modal analysis in
    tests/test_linear_structures.py); the six rigid-body motions are zeros of the pencil."""
    R, sec = 0.5, eb(STEEL)
    n = np.array([2.0, 3.0])
    c = sec.k_b1 * n**2 * (n**2 - 1) ** 2 / (sec.rhoA * R**4)
    out_of_plane, in_plane = np.sqrt(c / (n**2 + sec.k_b1 / sec.k_t)), np.sqrt(c / (n**2 + 1))
    exact = np.repeat([out_of_plane[0], in_plane[0], out_of_plane[1], in_plane[1]], 2)
    errs = []
    for n_e in (16, 32):
        rod = Rod(sec, curve=Circle(R, centre=(0.1, -0.2, 0.3)), n_elements=n_e,
                  constraints=("kirchhoff",))
        w = ph_frequencies(linear_ph(RodModel(rod, quasistatic=True), TIP), 14,
                           shift=-1.0)
        assert np.all(w[:6] <= 1e-6 * w[6])
        errs.append(w[6:] / exact - 1.0)
    assert np.all(np.abs(errs[1]) <= 2.5e-4), errs[1]
    assert np.all(np.abs(order(*errs) - 4.0) <= 0.3), order(*errs)


def test_ph_export_cantilever_with_a_tip_spring():
    """A translational spring k at the free end (k L^3 / EI = 3): the export's first
    bending pair against the clamped-spring frequency equation (root between the
    cantilever's 1.8751 and the propped cantilever's 3.9266), order 4 from n_e 8 to 16
    (asserted 4 +- 0.3), below 1e-6 at n_e 16: the export takes the spring's stiffness."""
    sec = eb(STEEL)
    k = 3.0 * sec.k_b1                                   # L = 1 m

    def frequency_equation(bl: float) -> float:
        kappa = k / (sec.k_b1 * bl**3)
        return (1.0 + np.cos(bl) * np.cosh(bl)
                - kappa * (np.cos(bl) * np.sinh(bl) - np.sin(bl) * np.cosh(bl)))

    bl = brentq(frequency_equation, BETA_L[0], 3.9266, xtol=1e-14)
    assert bl > 1.05 * BETA_L[0]                         # the spring matters
    exact = bl**2 * np.sqrt(sec.k_b1 / sec.rhoA)
    errs = []
    for n in (8, 16):
        model = cantilever(sec, n, [ElasticSupport("L", k_translation=k)])
        errs.append(ph_frequencies(linear_ph(model, TIP), 2) / exact - 1.0)
    assert np.all(np.abs(errs[1]) <= 1e-6), errs[1]
    assert np.all(np.abs(order(*errs) - 4.0) <= 0.3), order(*errs)


def test_ph_export_cantilever_with_a_tip_body():
    """A free body welded at a cantilever's tip (tests/test_free_bodies.py:
    M = rho A L/2, J = 0.01 rho A L^3): the export's first bending pair against the
    frequency equation of a cantilever with a tip mass and rotary inertia, order 4 from
    n_e 8 to 16 (asserted 4 +- 0.3), below 2e-7 at n_e 16 (the modal analysis: 9.4e-8);
    its torsion mode (a massless rod twisting the body: exact in P2) at ``sqrt(k_t/(L J))``
    to 1e-10 (ARPACK's and the modes' tolerance; measured equal to 1e-13). The export
    takes the body's inertia and its carrier."""
    from tests.test_free_bodies import SEC_EB, tip_body_cantilever, tip_mass_frequency

    errs = []
    for n in (8, 16):
        model, M, J = tip_body_cantilever(n)
        w = ph_frequencies(linear_ph(model, [Input("F_z", "force", "L", (0, 0, 1))]), 3)
        errs.append(w[:2] / tip_mass_frequency(SEC_EB.k_b1, SEC_EB.rhoA, 1.0, M, J) - 1.0)
        assert abs(w[2] / np.sqrt(SEC_EB.k_t / J) - 1.0) <= 1e-10
    assert np.all(np.abs(errs[1]) <= 2e-7), errs[1]
    assert np.all(np.abs(order(*errs) - 4.0) <= 0.3), order(*errs)


def hermite_cantilever(EI, rhoA, length: float, n_el: int, k: int) -> np.ndarray:
    """The ``k`` lowest circular frequencies [rad/s] of a clamped-free Euler-Bernoulli beam
    with element-wise constant ``EI(s)``, ``rhoA(s)`` (taken at the element midpoints):
    Hermite cubic elements with consistent mass, numpy/scipy."""
    h = length / n_el
    kb = np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                   [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]]) / h**3
    mb = h / 420 * np.array([[156, 22 * h, 54, -13 * h], [22 * h, 4 * h * h, 13 * h, -3 * h * h],
                             [54, 13 * h, 156, -22 * h], [-13 * h, -3 * h * h, -22 * h, 4 * h * h]])
    n = 2 * (n_el + 1)
    K, M = np.zeros((n, n)), np.zeros((n, n))
    for e in range(n_el):
        s = (e + 0.5) * h
        dofs = np.arange(2 * e, 2 * e + 4)
        K[np.ix_(dofs, dofs)] += float(EI(s)) * kb
        M[np.ix_(dofs, dofs)] += float(rhoA(s)) * mb
    # the pencil (M, K): mu = 1/omega^2, the lowest omega the largest mu, accurate relative
    # to the largest (K's condition, ~n_el^4, would spoil the smallest omega^2 of (K, M))
    mu = sl.eigh(M[2:, 2:], K[2:, 2:], eigvals_only=True, subset_by_index=[n - 2 - k, n - 3])
    return np.sort(1.0 / np.sqrt(mu))


def test_ph_export_stepped_cantilever():
    """A clamped-free Kirchhoff rod whose bending stiffness and mass step at mid-length
    (EI_2 = EI_1 / 4, rhoA_2 = rhoA_1 / 2, the step on an element boundary): the export's
    first three bending frequencies (each twice: a round section) against the Hermite
    Euler-Bernoulli model of 100 elements (3e-9 from 200), order 4 from n_e 8 to 16
    (asserted 4 +- 0.2), below 2e-4 at n_e 16."""
    EI1, rhoA1 = STEEL.k_b1, STEEL.rhoA

    def EI(s):
        return np.where(np.asarray(s) < 0.5, EI1, EI1 / 4.0)

    def rhoA(s):
        return np.where(np.asarray(s) < 0.5, rhoA1, rhoA1 / 2.0)

    sec = VaryingSection(rhoA=rhoA, M11=0.0, M22=0.0, k_s1=STEEL.k_s1, k_s2=STEEL.k_s2,
                         k_e=STEEL.k_e, k_b1=EI, k_b2=EI, k_t=STEEL.k_t)
    exact = np.repeat(hermite_cantilever(EI, rhoA, 1.0, 100, 3), 2)
    errs = []
    for n in (8, 16):
        errs.append(ph_frequencies(linear_ph(cantilever(sec, n), TIP), 6) / exact - 1.0)
    assert np.all(np.abs(errs[1]) <= 2e-4), errs[1]
    assert np.all(np.abs(order(*errs) - 4.0) <= 0.2), order(*errs)


# ---------------------------------------------------------------------- Taylor tests
def free_dofs(model, name: str = "q") -> np.ndarray:
    """Owned mixed-space indices of the unsupported dofs of field ``name``, ascending: the
    order of the PH export's states of that block (a serial model without joints)."""
    n_own = model.space.W.dofmap.index_map.size_local * model.space.W.dofmap.index_map_bs
    free = np.zeros(model.w.x.array.size, dtype=bool)
    free[model.field_dofs(name)] = True
    for bc in model.bcs:
        free[bc.dof_indices()[0]] = False
    return np.flatnonzero(free[:n_own])


def momentum_rows(model, x: np.ndarray) -> np.ndarray:
    """The model's own residual F / h with ``w = w0 = x`` (owned rows; quasi-static: no
    inertia); its q rows are the momentum balance."""
    saved = model.w.x.array.copy(), model.w0.x.array.copy()
    model.w.x.array[:] = x
    model.w0.x.array[:] = x
    b = assemble_vector(fem.form(model.F))
    b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
    out = b.array.copy() / float(model.h.value)
    b.destroy()
    model.w.x.array[:], model.w0.x.array[:] = saved
    return out


def operator_times(model, x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``A v`` (owned rows) with the operator ``A`` of the modes and buckling at ``x``."""
    A = stiffness_matrix(model, x)
    vec, Av = A.createVecRight(), A.createVecLeft()
    vec.array[:] = v[:vec.getLocalSize()]
    A.mult(vec, Av)
    out = Av.array.copy()
    for m in (A, vec, Av):
        m.destroy()
    return out


def taylor(model, x: np.ndarray, idx: np.ndarray, Kv, v: np.ndarray,
           eps=(4e-4, 2e-4, 1e-4, 5e-5)) -> np.ndarray:
    """Remainders ``max |F_q(x + e v) - F_q(x) - e (K v)_q|`` over the free q rows ``idx``
    for the step sizes ``eps`` (``v`` a mixed-space array on the free q dofs)."""
    f0 = momentum_rows(model, x)[idx]
    return np.array([np.max(np.abs(momentum_rows(model, x + e * v)[idx] - f0 - e * Kv))
                     for e in eps])


def direction(model, x: np.ndarray, idx: np.ndarray, seed: int) -> np.ndarray:
    """A random direction on the free q dofs (components in [-1, 1])."""
    v = np.zeros(x.size)
    v[idx] = np.random.default_rng(seed).uniform(-1.0, 1.0, idx.size)
    return v


def test_ph_export_curved_prestressed_helix():
    """A clamped helix (radius 0.05 m, pitch 0.02 m, 2 turns, n_e 16) at its equilibrium
    under a tip force of 20 N along its axis (prestressed: K carries the geometric stiffness
    of the stresses and multipliers): the PH export's K and the operator of the modes,
    applied to a direction v, against the central difference of the model's momentum rows
    along v. With dead loads these rows are affine in q at fixed stresses and multipliers
    (strains and the orthonormality constraints are bilinear in q), so the difference is
    exact but for round-off: ``2 c eps F / e`` (tests/roundoff.py), ``F`` the largest sum
    of the magnitudes of a row's terms (internal forces ``|B^T| |sigma| + |G^T| |lambda|``
    and the load)."""
    sec = Section.circular(radius=0.002, E=2e11, rho=7850.0, nu=0.3)
    rod = Rod(sec, curve=Helix(0.05, 0.02, 2.0), n_elements=16)
    model = RodModel(rod, [EndLoad("L", force=(0.0, 0.0, 20.0))], [Clamp("0")],
                     quasistatic=True)
    Integrator(model, 1.0).step()
    x = model.w0.x.array.copy()
    idx = free_dofs(model)
    v = direction(model, x, idx, 3)
    ph = linear_ph(model, TIP)
    K = ph.Q[ph.block("q"), ph.block("q")]
    Bt, Gt = abs(ph.J[ph.block("v"), ph.block("sigma")]), abs(ph.J[ph.block("v"),
                                                                   ph.block("lambda")])
    sig, lam = (np.abs(x[free_dofs(model, f)]) for f in ("sigma", "lambda"))
    e = 1e-3
    bound = 2.0 * roundoff(float(np.max(Bt @ sig + Gt @ lam)) + 20.0) / e
    fd = (momentum_rows(model, x + e * v) - momentum_rows(model, x - e * v))[idx] / (2 * e)
    for Kv in (K @ v[idx], operator_times(model, x, v)[idx]):
        assert np.max(np.abs(Kv - fd)) <= bound
        assert np.max(np.abs(Kv)) > 1e6 * bound


def test_actuated_equilibrium_operator_taylor():
    """The tendon hook (n_e 8, curled through 90 degrees by the tension T, the tendon over
    [s_a, L]) at its actuated equilibrium: the operator of the modes and buckling and the
    PH export's K against the model's residual, Taylor remainders of order 2 (asserted
    2 +- 0.1). The tendon's tension acts along the deformed tendon line (a follower-type
    load, its stiffness state dependent): the operator without it (the same state in the
    model without the actuator) leaves a first-order remainder (asserted 1 +- 0.1)."""
    from fxrod.problems.soft_arm import HookParameters
    from fxrod.studies.cases import demo

    hook = HookParameters(n_elements=8, hook_angle=0.5 * np.pi)
    model = demo("tendon_hook").problem(p=hook, steps=2).model
    Integrator(model, 0.5).advance_to(1.0)
    x = model.w0.x.array.copy()
    idx = free_dofs(model)
    v = direction(model, x, idx, 5)
    ph = linear_ph(model, TIP)
    K = ph.Q[ph.block("q"), ph.block("q")]
    for Kv in (K @ v[idx], operator_times(model, x, v)[idx]):
        r = taylor(model, x, idx, Kv, v)
        assert np.all(np.abs(np.log2(r[:-1] / r[1:]) - 2.0) <= 0.1), r
    bare = RodModel(model.rod, [], [Clamp("0")], quasistatic=True)
    r_bare = taylor(model, x, idx, operator_times(bare, x, v)[idx], v)
    assert np.all(np.abs(np.log2(r_bare[:-1] / r_bare[1:]) - 1.0) <= 0.1), r_bare


# ---------------------------------------------------------------------- ensembles
def test_ensemble_modes_buckling_and_ph_export():
    """An ensemble of two clamped-free Kirchhoff rods (1 m, n_e 16; radii 5 and 3 mm, no
    rotary inertia) under an axial end force P of amplitudes 1 and 2: the modes, the PH
    export and the linear buckling of the one model are the union of the members' spectra.
    The first eight frequencies (each member's first two bending pairs) equal the sorted
    union of the members' single-rod modes to 1e-10 (the eigen-solver's tolerance) and the
    Euler-Bernoulli frequencies of each member to 2e-5 (the order-4 discretisation error
    at n_e 16, test_ph_export_cross_sections); the load factors are each member's Euler
    load over its amplitude, pi^2 EI_k / (4 L^2 a_k P), each twice, to 1.5e-6 (the
    discretisation, as for one column in tests/test_capabilities.py)."""
    from fxrod.analysis.modes import buckling, modes
    from fxrod.runs.ensemble import Ensemble

    P = 100.0
    secs = [eb(Section.circular(radius=r, E=2e11, rho=7850.0, nu=0.3)) for r in (0.005, 0.003)]
    amps = np.array([1.0, 2.0])
    rod = Rod(secs[0], (0, 0, 0), (1, 0, 0), (0, 1, 0), 16, constraints=("kirchhoff",))
    ens = Ensemble(rod, [EndLoad("L", force=(-P, 0.0, 0.0))], amps, supports=[Clamp("0")],
                   sections=secs, quasistatic=True)
    exact = np.sort(np.concatenate([np.repeat(BETA_L[:2] ** 2 * np.sqrt(s.k_b1 / s.rhoA), 2)
                                    for s in secs]))
    single = np.sort(np.concatenate([modes(cantilever(s, 16), 4).omega for s in secs]))
    w_modes = modes(ens.model, 8).omega
    ph = linear_ph(ens.model, [Input("F0", "force", rod=0), Input("F1", "force", rod=1)])
    w_ph = ph_frequencies(ph, 8)
    for w in (w_modes, w_ph):
        assert np.all(np.abs(w / single - 1.0) <= 1e-10), w / single - 1.0
        assert np.all(np.abs(w / exact - 1.0) <= 2e-5), w / exact - 1.0
    b = buckling(ens.model, 6)
    mu, n = np.array([[(2 * n - 1) ** 2 * np.pi**2 * s.k_b1 / (4.0 * a * P), 2 * n - 1]
                      for s, a in zip(secs, amps, strict=True) for n in (1, 2)]).T
    keep = np.argsort(mu)[:3]
    err = np.sort(b.factor) / np.repeat(mu[keep], 2) - 1.0
    assert np.all(np.abs(err) <= 1.5e-6 * np.repeat(n[keep], 2) ** 4), err


# ---------------------------------------------------------------------- continuation
def continuation_critical(model, steps: int = 20) -> float:
    """The load factor of the first critical point the continuation locates (arc length
    0.3 in the load factor)."""
    from fxrod.analysis.continuation import ArcLengthSettings, Continuation

    cont = Continuation(model, ArcLengthSettings(ds=0.3, ds_max=0.3, psi=1.0))
    cont.run(steps, stop=lambda p: bool(cont.critical))
    (crit,) = cont.critical
    assert crit.event == "bifurcation"
    return crit.lam


def column(section, p_ref: float, n_elements: int) -> RodModel:
    """A clamped-free Kirchhoff column (1 m along x, d1 = y) under the dead end force
    ``-lambda p_ref`` [N] along its axis."""
    rod = Rod(section, (0, 0, 0), (1, 0, 0), (0, 1, 0), n_elements, constraints=("kirchhoff",))
    load = EndLoad("L", force=lambda lam: (-lam * p_ref, 0.0, 0.0))
    return RodModel(rod, [load], [Clamp("0")], quasistatic=True)


def test_continuation_cross_section_column():
    """A box column (40 x 20 mm, wall 2 mm; k_b1 != k_b2), n_e 16: the continuation locates
    the bifurcation at Euler's load of the weak axis, pi^2 min(EI) / (4 L^2), to 1.5e-6
    (the discretisation, 5.8e-7 for the round column at n_e 16)."""
    sec = Section.box(0.04, 0.02, 0.002, E=2e11, rho=7850.0, nu=0.3)
    p_cr = np.pi**2 * min(sec.k_b1, sec.k_b2) / 4.0
    assert max(sec.k_b1, sec.k_b2) > 2.0 * min(sec.k_b1, sec.k_b2)
    lam = continuation_critical(column(sec, p_cr / 1.5, 16))
    assert abs(lam / 1.5 - 1.0) <= 1.5e-6


def test_continuation_stepped_column():
    """A clamped-free Kirchhoff column whose bending stiffness steps from EI_1 to EI_1 / 4
    at mid-length (an element boundary), n_e 32: the continuation's bifurcation against
    the stepped column's closed form ``tan(k_1 a) tan(k_2 (L - a)) = k_2 / k_1``,
    ``k_i = sqrt(P / EI_i)``, to 1e-5 (tests/test_varying_section.py: 1.9e-7 at n_e 32
    for the linear buckling of the same column)."""
    EI1 = STEEL.k_b1

    def EI(s):
        return np.where(np.asarray(s) < 0.5, EI1, EI1 / 4.0)

    sec = VaryingSection(rhoA=STEEL.rhoA, M11=0.0, M22=0.0, k_s1=STEEL.k_s1,
                         k_s2=STEEL.k_s2, k_e=STEEL.k_e, k_b1=EI, k_b2=EI, k_t=STEEL.k_t)

    def characteristic(p: float) -> float:
        k1, k2 = np.sqrt(p / EI1), np.sqrt(p / (EI1 / 4.0))
        return np.tan(k1 * 0.5) * np.tan(k2 * 0.5) - k2 / k1

    weak = np.pi**2 * EI1 / 16.0                        # all of it EI_1 / 4
    p_cr = brentq(characteristic, weak, 0.999 * np.pi**2 * EI1 / 4.0, xtol=1e-14)
    lam = continuation_critical(column(sec, p_cr / 1.5, 32))
    assert abs(lam / 1.5 - 1.0) <= 1e-5


def test_continuation_ring_diametral_load():
    """A closed steel ring (R = 0.5 m, r = 5 mm, inextensible Kirchhoff rod, n_e 64)
    clamped at its bottom and pulled down at the top by lambda P, P R^2 / EI = 1e-4: every
    point of the path shortens the diameter by the thin ring's closed form
    ``(pi/4 - 2/pi) lambda P R^3 / EI`` (Castigliano) to 4e-5 (as the load stepping,
    tests/test_curved.py::test_ring_under_diametral_load: the geometric nonlinearity,
    1.3e-5 at lambda = 1, and the discretisation)."""
    from fxrod.analysis.continuation import ArcLengthSettings, Continuation
    from fxrod.core.pointload import PointLoad

    R = 0.5
    rod = Rod(STEEL, curve=Circle(R, normal=(0, 0, 1), start_direction=(0, -1, 0)),
              n_elements=64, constraints=("kirchhoff", "inextensible"))
    P = 1e-4 * STEEL.k_b1 / R**2
    model = RodModel(rod, [PointLoad(np.pi * R, force=lambda lam: (0.0, -lam * P, 0.0))],
                     [Clamp("0")], quasistatic=True)
    cont = Continuation(model, ArcLengthSettings(ds=0.25, ds_max=0.25, psi=1.0),
                        points={"top": np.pi * R})
    path = cont.run(10, stop=lambda p: p.lam >= 1.0)
    assert path[-1].lam >= 1.0 and all(p.index == 0 for p in path)
    per_unit = (np.pi / 4 - 2 / np.pi) * P * R**3 / STEEL.k_b1
    for p in path[1:]:
        assert abs(-p.displacements["top"][1] / (p.lam * per_unit) - 1.0) <= 4e-5


def test_continuation_rigid_body():
    """A Kirchhoff cantilever (1 m, n_e 16) with a rigid body at its tip (0.5 kg, offset
    centre of mass; inertia only: no static term) under the end force lambda F along z,
    F L^3 / (3 EI) = 1e-5 L: every point of the path deflects the tip by the Euler-Bernoulli
    closed form lambda F L^3 / (3 EI) to 1e-7 relative (the geometric nonlinearity, of
    order (w / L)^2 = 1e-10). A spatial end moment (its load stiffness is skew) makes the
    continuation factorise by LU."""
    from fxrod.analysis.continuation import ArcLengthSettings, Continuation
    from fxrod.core.forms.bodies import RigidBody

    F = 3e-5 * STEEL.k_b1
    body = RigidBody((0, "L"), mass=0.5, inertia=np.diag([2e-3, 1e-3, 2.5e-3]),
                     centre=(1.05, 0.02, -0.03))
    rod = Rod(STEEL, (0, 0, 0), (1, 0, 0), (0, 1, 0), 16, constraints=("kirchhoff",))
    model = RodModel(rod, [EndLoad("L", force=lambda lam: (0.0, 0.0, lam * F))],
                     [Clamp("0")], [body], quasistatic=True)
    cont = Continuation(model, ArcLengthSettings(ds=0.25, ds_max=0.25, psi=1.0))
    path = cont.run(10, stop=lambda p: p.lam >= 1.0)
    assert path[-1].lam >= 1.0 and all(p.index == 0 for p in path)
    for p in path[1:]:
        assert abs(p.displacements["tip"][2] / (p.lam * F / (3 * STEEL.k_b1)) - 1.0) <= 1e-7
    moment = RodModel(rod, [EndLoad("L", moment=lambda lam: (0.0, lam, 0.0))], [Clamp("0")],
                      [body], quasistatic=True)
    assert not Continuation(moment).symmetric


def test_continuation_refuses_what_turns_non_symmetric_on_the_path():
    """The LDL^T's tangent is checked at every point, not only at the start: a
    spatial-formulation tendon (tension lambda T, zero at the start, where the tangent is
    symmetric) is factorised by LU, and the check on the path refuses a model whose tangent
    turns non-symmetric there and that does not declare it (the same tendon with the
    material formulation set back to spatial after the constructor)."""
    from fxrod.analysis.continuation import ArcLengthSettings, Continuation
    from fxrod.problems.soft_arm import HookParameters
    from fxrod.studies.cases import demo

    hook = HookParameters(n_elements=8)
    tendon_hook = demo("tendon_hook").problem
    assert not Continuation(tendon_hook(p=hook, formulation="spatial").model).symmetric
    spatial = tendon_hook(p=hook, formulation="spatial").model
    act = spatial.extensions[0]
    act.formulation = "material"
    cont = Continuation(spatial, ArcLengthSettings(ds=0.02, ds_max=0.1))
    act.formulation = "spatial"
    with pytest.raises(ParameterError, match="a non-symmetric tangent"):
        cont.run(10, stop=lambda p: p.lam >= 0.3)
    assert [p.lam for p in cont.path] == [0.0]       # the start passed the check


def test_continuation_ensemble():
    """An ensemble of two Kirchhoff cantilevers (1 m, n_e 16; radii 5 and 3 mm) under the
    end force a_k lambda F along z (amplitudes 1 and 2, F L^3 / (3 EI_1) = 1e-5 L): one
    path for both, every point each member's tip deflection the Euler-Bernoulli closed form
    a_k lambda F L^3 / (3 EI_k) to 1e-7 relative (the geometric nonlinearity, of order
    (w / L)^2 <= 1.4e-8 for the second member)."""
    from fxrod.analysis.continuation import ArcLengthSettings, Continuation
    from fxrod.runs.ensemble import Ensemble

    secs = [Section.circular(radius=r, E=2e11, rho=7850.0, nu=0.3) for r in (0.005, 0.003)]
    F = 3e-5 * secs[0].k_b1
    amps = np.array([1.0, 2.0])
    rod = Rod(secs[0], (0, 0, 0), (1, 0, 0), (0, 1, 0), 16, constraints=("kirchhoff",))
    ens = Ensemble(rod, [EndLoad("L", force=lambda lam: (0.0, 0.0, lam * F))], amps,
                   supports=[Clamp("0")], sections=secs, quasistatic=True)
    st = ens.structure
    cont = Continuation(ens.model, ArcLengthSettings(ds=0.25, ds_max=0.25, psi=1.0),
                        points={f"m{k}": st.coordinate(k, "L") for k in range(2)})
    path = cont.run(10, stop=lambda p: p.lam >= 1.0)
    assert path[-1].lam >= 1.0 and all(p.index == 0 for p in path)
    for p in path[1:]:
        for k, (a, s) in enumerate(zip(amps, secs, strict=True)):
            exact = a * p.lam * F / (3 * s.k_b1)
            assert abs(p.displacements[f"m{k}"][2] / exact - 1.0) <= 1e-7
