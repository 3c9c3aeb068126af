"""A revolute joint (fxrod.core.joints.Revolute) whose axis is along no director keeps that axis
as a material line of both joined frames in motion.

Two straight rods along e1 (directors ``d1 = e2, d2 = e3, d3 = e1``) are joined end to end by
a hinge about ``a = (e2 + e3) / sqrt(2)``, the direction ``(1, 1, 0) / sqrt(2)`` in both body
frames, so the relation of the eliminated director of B involves another director of B
(the coupling term ``-b_m / b_k d^B_m``); the first rod is clamped, the second swings under
gravity about the skew hinge by about a radian. Closed form (the constraint):

    sum_j a_j d^A_j(t) = sum_k b_k d^B_k(t),    a_j = a . d^A_j(0),  b_k = a . d^B_k(0),

and the relative rotation ``Q_A^T Q_B`` (``Q = sum_k d_k(t) d_k(0)^T``) fixes ``a``.
"""

from __future__ import annotations

import numpy as np

from fxrod.core.joints import Revolute
from fxrod.core.loads import Gravity
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import newton_bound, roundoff, skip_if_chain_refuses

SEC = Section.circular(radius=0.02, E=1e7, rho=1000.0, nu=0.3)
L, N_EL = 0.3, 3                          # each rod [m], elements per rod
H, STEPS = 0.005, 60                      # step [s], steps
AXIS = np.array([0.0, 1.0, 1.0]) / np.sqrt(2.0)


def test_skew_revolute_axis_stays_in_both_frames():
    """At every step: the hinge axis seen from A equals the one seen from B to round-off
    (the relation is eliminated exactly, ``w = T w_r``, at every iterate, so the error does
    not grow with the steps: tests/roundoff.py's one-step bound of the magnitude
    ``sum(|a_j| + |b_k|) / |b|_max`` of the terms of the eliminated director); the positions
    coincide to round-off; ``Q_A^T Q_B a = a`` up to the orthonormality of A's directors:
    ``Q_A^T Q_B a - a = D_A0^T (D_A D_A^T - I) a`` with ``|D D^T - I| <= 6 max|g_ij|`` and,
    per step, ``|g_ij(t_{n+1}) - g_ij(t_n)| <= atol / w`` (the constraint row of the node
    is ``w (g_ij(t_{n+1}) - g_ij(t_n))``, weight ``w = l/6`` at a rod end). The hinge turns
    by more than half a radian."""
    rod_a = Rod(SEC, start=(0, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=N_EL)
    rod_b = Rod(SEC, start=(L, 0, 0), end=(2 * L, 0, 0), d1=(0, 1, 0), n_elements=N_EL)
    st = Structure([rod_a, rod_b], [Revolute((0, "L"), (1, "0"), axis=AXIS)])
    model = RodModel(st, [Gravity((0.0, 0.0, -9.81))], [Clamp("0")])
    skip_if_chain_refuses(model)
    settings = SolverSettings(stol=0.0)     # Newton stops at |F| <= atol only
    integ = Integrator(model, H, settings)

    xa, xb = st.coordinate(0, "L"), st.coordinate(1, "0")
    qa0, qb0 = st.initial_configuration([xa, xb])
    DA0, DB0 = qa0[3:].reshape(3, 3), qb0[3:].reshape(3, 3)        # rows: d_k(0)
    a, b = DA0 @ AXIS, DB0 @ AXIS
    body = np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0)                 # along no director
    assert np.allclose(a, body, rtol=0.0, atol=1e-15) and np.allclose(b, body, rtol=0.0,
                                                                      atol=1e-15)
    round_off = roundoff((np.abs(a).sum() + np.abs(b).sum()) / np.abs(b).max())
    w_node = L / N_EL / 6.0
    for n in range(1, STEPS + 1):
        integ.step()
        qa, qb = model.nodes.node_q(xa), model.nodes.node_q(xb)
        DA, DB = qa[3:].reshape(3, 3), qb[3:].reshape(3, 3)
        assert np.max(np.abs(DA.T @ a - DB.T @ b)) <= round_off, n
        assert np.max(np.abs(qa[:3] - qb[:3])) <= roundoff(np.max(np.abs(qa[:3]))), n
        q_rel = (DA.T @ DA0).T @ (DB.T @ DB0)
        assert np.linalg.norm(q_rel @ AXIS - AXIS) <= newton_bound(settings, 6.0 / w_node, n) \
            + round_off, n
    angle = np.arccos(np.clip(0.5 * (np.trace(q_rel) - 1.0), -1.0, 1.0))
    assert angle > 0.5
