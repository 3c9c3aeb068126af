"""Support reactions in dynamics (fxrod.core.model.RodModel.support_response, the
``<support>_force_i`` and ``<support>_moment_i`` columns) close the discrete balances of
linear and angular momentum of the implicit midpoint step.

A rod of mass m hangs from a support at ``P0`` (off the origin) under an oblique gravity g:
a fixed clamp, a clamp moved and turned along a prescribed motion, or a hinge about ``d1``.
Testing the step equations with a rigid translation and with a rigid rotation
``omega x q_e`` of the midpoint state about the origin (both in the discrete space; the
strain and constraint terms vanish on them, and the inertia terms become exactly the
changes of p and J because ``phi_{n+1} x v_{n+1} - phi_n x v_n = phi_m x (v_{n+1} - v_n)``
when ``(v_n + v_{n+1}) / 2 = (phi_{n+1} - phi_n) / h``; likewise for the directors), only
the loads and the supports' rows remain: for the step ``[t_n, t_{n+1}]``,

    (p_{n+1} - p_n) / h = m g + f,
    (J_{n+1} - J_n) / h = m c_{n+1/2} x g + phi_s,{n+1/2} x f + M,

with ``p`` and ``J`` (about the origin) the rod's momenta, ``c`` its centre (``com``),
``phi_s`` the support's position and ``(f, M)`` the reactions of the step, the moment taken
with the directors at the midpoint state as the midpoint rule does. A hinge also transmits
no moment about its axis: ``M . d1 = 0``.
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.loads import Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp, Hinge
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import newton_bound, roundoff

SEC = Section.circular(radius=0.02, E=1e7, rho=1000.0, nu=0.3)
L, N_EL = 0.5, 6                          # [m], elements
H, T_END = 1e-3, 0.1                      # step, duration [s]
G = np.array([0.0, 1.0, -9.81])           # oblique gravity [m/s^2]: every component acts
P0 = np.array([0.1, -0.2, 0.3])           # the supported end s = 0 [m]
LIFT, TURN, OMEGA = 0.05, 0.3, 20.0       # moving clamp: [m], [rad], [rad/s]


def _rod() -> Rod:
    return Rod(SEC, start=tuple(P0), end=tuple(P0 + (L, 0.0, 0.0)), d1=(0, 1, 0),
               n_elements=N_EL)


def _norm(a):
    """Euclidean norms of the rows of ``a`` (of ``a`` if a vector)."""
    return np.linalg.norm(a, axis=-1)


def _ramp(t):
    return 1.0 - np.cos(OMEGA * t)            # starts at rest


def _base(t):
    """The moving clamp's pose: lifted along e3 by ``LIFT ramp(t)`` and turned about e3 by
    ``TURN ramp(t)``."""
    c, s = np.cos(TURN * _ramp(t)), np.sin(TURN * _ramp(t))
    rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return P0 + np.array([0.0, 0.0, LIFT * _ramp(t)]), rz @ _rod().frame


SUPPORTS = {
    "clamp": (Clamp("0"), lambda t: P0),
    "moving-clamp": (Clamp("0", motion=_base), lambda t: _base(t)[0]),
    "hinge": (Hinge("0", axis="d1"), lambda t: P0),
}


@pytest.mark.parametrize("case", list(SUPPORTS))
def test_reactions_close_the_momentum_balances(case):
    """Per step, the residuals of the two balances are the free rows of the step equations
    (Newton stops at ``|F|_2 <= atol``; the rows are h times forces) tested with the rigid
    motion: ``|e_f| <= sqrt(n_nodes) atol / h`` and, with ``|omega x q| <= |q|`` at every
    node, ``|e_M| <= sqrt(n_nodes (r^2 + 3)) atol / h``, r >= |phi| (support within
    ``|P0| + 2 LIFT``, rod within 2 L of it); round-off (tests/roundoff.py) of the
    magnitude of the terms in one step. For the hinge, ``|M . d1| <= sqrt(2) atol / h``
    (its free rows ``d2, d3``)."""
    support, position = SUPPORTS[case]
    model = RodModel(_rod(), [Gravity(G)], [support])
    settings = SolverSettings(stol=0.0)     # Newton stops at |F| <= atol only
    sim = Simulation(Integrator(model, H, settings))
    sim.run(T_END)

    def col(name):
        return np.column_stack([sim.column(f"{name}_{i}") for i in (1, 2, 3)])

    t = sim.column("t")
    assert np.allclose(np.diff(t), H, rtol=1e-12, atol=0.0)
    p, J, c = col("p"), col("J"), col("com")
    f, M = col(f"{support.label}_force")[1:], col(f"{support.label}_moment")[1:]
    mass = SEC.rhoA * L
    c_mid = 0.5 * (c[1:] + c[:-1])
    phi_s = 0.5 * np.array([position(a) + position(b) for a, b in zip(t[:-1], t[1:],
                                                                      strict=True)])
    e_f = np.diff(p, axis=0) / H - mass * G - f
    e_M = np.diff(J, axis=0) / H - mass * np.cross(c_mid, G) - np.cross(phi_s, f) - M

    n_nodes = 2 * N_EL + 1
    r = np.linalg.norm(P0) + 2 * LIFT + 2 * L
    tol_f = newton_bound(settings, np.sqrt(n_nodes) / H) \
        + roundoff(_norm(p).max() / H + mass * _norm(G) + _norm(f))
    tol_M = newton_bound(settings, np.sqrt(n_nodes * (r * r + 3.0)) / H) \
        + roundoff(_norm(J).max() / H + mass * r * _norm(G) + r * _norm(f) + _norm(M))
    assert np.all(_norm(e_f) <= tol_f), np.max(_norm(e_f) / tol_f)
    assert np.all(_norm(e_M) <= tol_M), np.max(_norm(e_M) / tol_M)
    # the checks resolve 1e-6 of the reactions (the O(h) error of a wrong state is ~1e-3)
    assert _norm(f).max() > 1e6 * tol_f.max() and _norm(M).max() > 1e6 * tol_M.max()
    if case == "hinge":
        d1 = np.array([0.0, 1.0, 0.0])
        assert np.all(np.abs(M @ d1) <= newton_bound(settings, np.sqrt(2.0) / H)
                      + roundoff(_norm(M)))
