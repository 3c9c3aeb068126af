"""Natural frequencies of the mixed rod (fxrod.linear.modes) against Euler-Bernoulli.

A clamped-free Kirchhoff rod (shear-rigid, inextensible) without rotary inertia has the
bending frequencies ``omega_n = (beta_n L)^2 / L^2 sqrt(EI / rhoA)``, ``beta_n L`` the roots
of ``1 + cos x cosh x = 0`` (1.8751041, 4.6940911, 7.8547574), each twice (two bending
planes of the circular section). The multipliers, stresses and supported dofs carry no mass
and must not appear as modes. Measured relative errors of omega_1: 1.0e-4, 6.3e-6, 3.9e-7 for
4, 8, 16 elements (order 4); omega_2 at 16 elements: 1.5e-5.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fxrod.bcs import Clamp
from fxrod.linear import modes
from fxrod.model import RodModel
from fxrod.rod import Rod, Section

SEC = dataclasses.replace(Section.circular(radius=0.01, E=2e11, rho=7850.0, nu=0.3),
                          M11=0.0, M22=0.0)
BETA_L = np.array([1.8751040687, 4.6940911330, 7.8547574382])


def _omega(n_elements: int) -> np.ndarray:
    rod = Rod(SEC, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), n_elements, constraints=("kirchhoff",))
    return modes(RodModel(rod, [], [Clamp("0")], quasistatic=True), 6).omega


def test_cantilever_bending_frequencies():
    exact = np.repeat(BETA_L**2 * np.sqrt(SEC.k_b1 / SEC.rhoA), 2)
    w4, w16 = _omega(4), _omega(16)
    err16 = np.abs(w16 / exact - 1.0)
    assert np.all(err16[:2] <= 1e-6) and np.all(err16[2:4] <= 3e-5) and np.all(err16 <= 3e-4)
    order = np.log(abs(w4[0] / exact[0] - 1.0) / err16[0]) / np.log(4.0)
    assert order >= 3.8
    assert w16[1] == pytest.approx(w16[0], rel=1e-6)        # the two bending planes


def test_mode_shapes_respect_the_clamp():
    rod = Rod(SEC, (0, 0, 0), (1.0, 0, 0), (0, 1, 0), 8, constraints=("kirchhoff",))
    model = RodModel(rod, [], [Clamp("0")], quasistatic=True)
    m = modes(model, 2)
    s = model.space.Q.tabulate_dof_coordinates()[:, 0]
    root = int(np.argmin(np.abs(s)))
    for shape in m.shapes:
        assert np.all(shape[root] == 0.0)                   # the clamped node does not move
        tip = shape[int(np.argmax(s))]
        assert np.linalg.norm(tip[0:3]) > 0.0
