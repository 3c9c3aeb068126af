"""Linearised analysis of structures (fxrod.analysis.modes with joints, rings and rigid bodies,
theory §2.6-2.7) against independent references.

References (independent of fxrod):

* thin circular ring (inextensible, no shear, no rotary inertia), mass per length rhoA,
  radius R, n = 2, 3, ... waves around the ring, each a pair (cos, sin):
  in-plane bending ``omega_n^2 = EI n^2 (n^2 - 1)^2 / (rhoA R^4 (n^2 + 1))`` and
  out-of-plane bending-torsion ``omega_n^2 = EI n^2 (n^2 - 1)^2 / (rhoA R^4 (n^2 + EI/GJ))``
  (R. D. Blevins, *Formulas for Natural Frequency and Mode Shape*, Van Nostrand Reinhold
  1979, Table 9-2, cases 1 and 2; Love, *Mathematical Theory of Elasticity*, 4th ed., §§
  292-293); a free ring has six rigid-body modes carrying its mass ``2 pi R rhoA`` in each
  translation and ``2 pi R^3 rhoA`` (about the normal) and half of it (about a diameter);
* L-frame with a rigid body at its tip: a converged Euler-Bernoulli frame (Hermite cubic
  bending in two planes, linear extension and torsion, consistent masses, the body's
  6 x 6 mass ``[[m I, -m [c]x], [m [c]x, J_c - m [c]x^2]]`` at the tip node) assembled
  here with numpy and solved with scipy, 60 elements per member (1e-8 from 100);
* Euler column: two rods welded straight buckle like one, ``P_cr = pi^2 EI / (4 L^2)``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.linalg as sl

from fxrod.analysis.modes import buckling, modes
from fxrod.core.forms.bodies import RigidBody
from fxrod.core.geometry import Circle
from fxrod.core.joints import Rigid
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.runs.integrators import Integrator
from tests.claims import assert_claim
from tests.conftest import l_frame_with_body

STEEL = Section.circular(radius=0.005, E=2e11, rho=7850.0, nu=0.3)
SEC = dataclasses.replace(STEEL, M11=0.0, M22=0.0)        # no rotary inertia


def _skew(c: np.ndarray) -> np.ndarray:
    return np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])


def eb_frame(members, sec, n_el: int, bodies=(), clamp=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Circular frequencies [rad/s] of an Euler-Bernoulli space frame of straight members
    ``(start, end)`` clamped at ``clamp``, with rigid bodies ``(node, m, c, J_c)``."""
    nodes: list[np.ndarray] = []
    index: dict[tuple, int] = {}

    def node(x) -> int:
        x = np.asarray(x, dtype=float)
        key = tuple(np.round(x, 9))
        if key not in index:
            index[key] = len(nodes)
            nodes.append(x)
        return index[key]

    elems = []
    for a, b in members:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        ids = [node(a + (b - a) * k / n_el) for k in range(n_el + 1)]
        elems += list(zip(ids[:-1], ids[1:], strict=True))
    n = 6 * len(nodes)
    K, M = np.zeros((n, n)), np.zeros((n, n))
    for i, j in elems:
        d = nodes[j] - nodes[i]
        h = float(np.linalg.norm(d))
        ex = d / h
        ey = np.cross([0.0, 0.0, 1.0] if abs(ex[2]) < 0.9 else [1.0, 0.0, 0.0], ex)
        ey /= np.linalg.norm(ey)
        R = np.array([ex, ey, np.cross(ex, ey)])
        k, m = np.zeros((12, 12)), np.zeros((12, 12))
        bar = np.array([[1.0, -1.0], [-1.0, 1.0]])
        k[np.ix_([0, 6], [0, 6])] = sec.k_e / h * bar
        m[np.ix_([0, 6], [0, 6])] = sec.rhoA * h / 6 * np.array([[2.0, 1.0], [1.0, 2.0]])
        k[np.ix_([3, 9], [3, 9])] = sec.k_t / h * bar
        kb = np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                       [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]]) / h**3
        mb = sec.rhoA * h / 420 * np.array(
            [[156, 22 * h, 54, -13 * h], [22 * h, 4 * h * h, 13 * h, -3 * h * h],
             [54, 13 * h, 156, -22 * h], [-13 * h, -3 * h * h, -22 * h, 4 * h * h]])
        for idx, EI, S in (([1, 5, 7, 11], sec.k_b1, np.eye(4)),
                           ([2, 4, 8, 10], sec.k_b2, np.diag([1.0, -1.0, 1.0, -1.0]))):
            k[np.ix_(idx, idx)] = EI * S @ kb @ S
            m[np.ix_(idx, idx)] = S @ mb @ S
        T = np.kron(np.eye(4), R)
        dofs = np.r_[6 * i:6 * i + 6, 6 * j:6 * j + 6]
        K[np.ix_(dofs, dofs)] += T.T @ k @ T
        M[np.ix_(dofs, dofs)] += T.T @ m @ T
    for x, mass, c, J in bodies:
        i, C = node(x), _skew(np.asarray(c, dtype=float))
        M[6 * i:6 * i + 6, 6 * i:6 * i + 6] += np.block(
            [[mass * np.eye(3), -mass * C], [mass * C, J - mass * C @ C]])
    free = np.setdiff1d(np.arange(n), 6 * node(clamp) + np.arange(6))
    # massless rotations: the pencil (M, K) with K positive definite, mu = 1/omega^2
    mu = sl.eigh(M[np.ix_(free, free)], K[np.ix_(free, free)], eigvals_only=True)
    return np.sort(1.0 / np.sqrt(mu[mu > 1e-12 * mu.max()]))


def _ring_model(n_elements: int) -> RodModel:
    rod = Rod(SEC, curve=Circle(0.5, centre=(0.1, -0.2, 0.3)), n_elements=n_elements,
              constraints=("kirchhoff",))
    return RodModel(rod, quasistatic=True)


def test_free_ring_in_and_out_of_plane():
    """Free steel ring (R = 0.5 m, r = 5 mm, n_e 64, inextensible Kirchhoff rod): six exact
    zeros, whose effective masses sum to the ring's mass (1e-10) and inertia; then the
    pairs n = 2, 3 out of plane and in plane against the ring formulas (measured 1.5e-6,
    2.1e-6, 1.2e-5, 1.4e-5; 2.4e-5 .. 2.2e-4 at n_e 32: order 4)."""
    R, centre = 0.5, np.array([0.1, -0.2, 0.3])
    m = modes(_ring_model(64), 14, centre=centre)
    assert np.all(m.omega[:6] == 0.0)
    mass = 2 * np.pi * R * SEC.rhoA
    rigid = m.effective_mass[:6].sum(axis=0)
    assert rigid[:3] == pytest.approx(mass * np.ones(3), rel=1e-10)
    # the rotations: the P2-interpolated circle's |phi - c|^2 (measured 1.9e-7, O(h^4))
    assert rigid[3:] == pytest.approx(mass * R**2 * np.array([0.5, 0.5, 1.0]), rel=5.5e-7)
    n = np.array([2.0, 3.0])
    c = SEC.k_b1 * n**2 * (n**2 - 1) ** 2 / (SEC.rhoA * R**4)
    out_of_plane = np.sqrt(c / (n**2 + SEC.k_b1 / SEC.k_t))
    in_plane = np.sqrt(c / (n**2 + 1))
    exact = np.repeat([out_of_plane[0], in_plane[0], out_of_plane[1], in_plane[1]], 2)
    elastic = m.omega[6:]
    err = np.abs(elastic / exact - 1.0)
    assert np.all(err <= np.repeat([4.5e-6, 6e-6, 3.4e-5, 4e-5], 2)), err
    assert_claim("modes-ring", err, 4e-5)
    normal = [np.abs(s[:, 2]).max() / np.abs(s[:, 0:3]).max() for s in m.shapes[6:]]
    assert np.allclose(normal, [1, 1, 0, 0, 1, 1, 0, 0], atol=1e-9)   # z: out of plane


def test_l_frame_with_tip_body_against_euler_bernoulli_frame():
    """A column (1 m) clamped at its base, welded at right angles to a beam (0.8 m), a rigid
    body (0.5 kg, offset centre of mass, full inertia tensor) at the beam's tip; shear-rigid
    rods without rotary inertia, n_e 8 per member: the first four frequencies (two
    out-of-plane bending-torsion, two in-plane) against the Euler-Bernoulli frame (measured
    3.4e-7, 3.9e-7, 3.2e-6, 2.8e-6; 1.1e-8 .. 2.1e-7 at n_e 16)."""
    a, b, ne = 1.0, 0.8, 8
    J, mass, c = np.diag([2e-3, 1e-3, 2.5e-3]), 0.5, np.array([0.05, 0.02, -0.03])
    column = Rod(SEC, start=(0, 0, 0), end=(0, 0, a), d1=(1, 0, 0), n_elements=ne,
                 constraints=("shear_rigid",))
    beam = Rod(SEC, start=(0, 0, a), end=(b, 0, a), d1=(0, 1, 0), n_elements=ne,
               constraints=("shear_rigid",))
    tip = np.array([b, 0.0, a])
    body = RigidBody((1, "L"), mass=mass, inertia=J, centre=tuple(tip + c))
    model = RodModel(Structure([column, beam], [Rigid((0, "L"), (1, "0"))]), [],
                     [Clamp("0")], [body], quasistatic=True)
    m = modes(model, 4)
    ref = eb_frame([((0, 0, 0), (0, 0, a)), ((0, 0, a), tuple(tip))], SEC, 60,
                   bodies=[(tuple(tip), mass, c, J)])[:4]
    err = np.abs(m.omega / ref - 1.0)
    assert np.all(err <= [1e-6, 1.1e-6, 9e-6, 8e-6]), err
    assert_claim("modes-l-frame", err, 9e-6)
    without = eb_frame([((0, 0, 0), (0, 0, a)), ((0, 0, a), tuple(tip))], SEC, 60)[:4]
    assert np.all(np.abs(without / ref - 1.0) > 0.3)       # the body matters


def test_welded_column_buckles_like_one_rod():
    """A clamped-free column of two rods welded straight (2 x 8 elements) under a dead
    axial load: the same discrete system as one rod of 16 elements, so the same buckling
    factors (1e-9), pi^2 EI/(4 L^2) (measured 5.8e-7)."""
    P, L = 10.0, 1.0
    rods = [Rod(STEEL, start=(0, 0, 0), end=(L / 2, 0, 0), d1=(0, 1, 0), n_elements=8,
                constraints=("kirchhoff",)),
            Rod(STEEL, start=(L / 2, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=8,
                constraints=("kirchhoff",))]
    one = Rod(STEEL, start=(0, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=16,
              constraints=("kirchhoff",))
    factors = []
    for rod in (Structure(rods, [Rigid((0, "L"), (1, "0"))]), one):
        model = RodModel(rod, [EndLoad("L", rod=0 if rod is one else 1, force=(-P, 0, 0))],
                         [Clamp("0")], quasistatic=True)
        Integrator(model, 1.0).step()
        factors.append(buckling(model, 2).factor)
    p_cr = np.pi**2 * STEEL.k_b1 / (4 * L**2)
    assert factors[0] == pytest.approx(factors[1], rel=1e-9)
    assert factors[0] * P == pytest.approx([p_cr, p_cr], rel=1.5e-6)


@pytest.mark.mpi
def test_structure_modes_same_under_mpi():
    """The free ring and the L-frame with its tip body on two ranks: the same frequencies
    (1e-9) as on one (the reduced operators T^T A T assembled in parallel)."""
    import json

    from tests.conftest import run_mpi

    code = ("import json; from mpi4py import MPI; "
            "from tests.test_linear_structures import _ring_model, _frame; "
            "from fxrod.analysis.modes import modes; "
            "w = [modes(_ring_model(32), 12).omega.tolist(), modes(_frame(), 4).omega.tolist()]; "
            "MPI.COMM_WORLD.rank == 0 and print(json.dumps(w))")
    ring, frame = json.loads(run_mpi(["-c", code]).stdout.strip().splitlines()[-1])
    assert ring == pytest.approx(modes(_ring_model(32), 12).omega.tolist(), rel=1e-9, abs=0)
    assert frame == pytest.approx(modes(_frame(), 4).omega.tolist(), rel=1e-9)


def _frame() -> RodModel:
    return l_frame_with_body(STEEL)
