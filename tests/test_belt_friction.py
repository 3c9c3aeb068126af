"""Friction with a moving obstacle acts on the rod's velocity relative to the obstacle
(fxrod.core.forms.contact, a translating fxrod.core.obstacles.HalfSpace), against the closed form
of a
body dragged by a conveyor belt.

A short straight rod lies flat on a horizontal belt (the half-space ``z <= 0``), pressed by
gravity g, Coulomb coefficient mu. It first settles on the resting belt (critical normal
damping); from ``T0`` on the belt moves in its plane at the constant speed V along an
in-plane direction e oblique to the rod. Every point of the rod has the same gap, pressure
and velocity, so the rod translates like a point mass: Coulomb friction accelerates it at
``mu g`` along e while it slides, until it moves with the belt and sticks,

    v(t) = min(mu g (t - T0), V) e.

The speed V is chosen so that the sticking time ``V / (mu g)`` is a step boundary: then every
step of the midpoint rule slides or sticks throughout, and its average velocity
``(com_{n+1} - com_n) / h`` is the closed form at the step's midpoint (the velocity is
linear in time within a sliding step). Friction computed from the rod's own velocity
instead would leave the rod at rest on the moving belt.
"""

from __future__ import annotations

import numpy as np

from fxrod.core.forms.contact import Contact
from fxrod.core.loads import Gravity
from fxrod.core.model import RodModel
from fxrod.core.obstacles import HalfSpace
from fxrod.core.rod import Rod, Section
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from tests.roundoff import newton_bound, roundoff

G = 9.81                                        # [m/s^2]
R = 0.01                                        # section radius [m]
SEC = Section.circular(R, 1e6, 1000.0, nu=0.4)  # rhoA = 0.314 kg/m
K = 1e5                                         # penalty stiffness [N/m^2]
MU = 0.3                                        # Coulomb coefficient [-]
V_REG = 1e-4                                    # regularisation velocity eps [m/s]
H = 1e-3                                        # step [s]
T0 = 0.05                                       # the belt starts [s]: 28 / omega_normal
N_SLIDE = 34                                    # sliding steps
V = MU * G * N_SLIDE * H                        # belt speed [m/s] (0.100 m/s)
E = np.array([0.6, 0.8, 0.0])                   # belt direction (rod along e1)
LENGTH, N_EL = 0.2, 2


def test_belt_drags_the_rod_with_relative_velocity_friction():
    """Step-average velocity of the centre of mass against ``min(mu g t, V) e``.

    The regularised law ``f = mu p w / sqrt(w^2 + eps^2)`` on the relative speed w gives at
    most ``mu p eps^2 / (2 w^2)`` less than Coulomb, w no less than Coulomb's
    ``V - mu g t``; so after sliding step k (midpoint ``t_j = (j + 1/2) h`` after T0) the
    velocity lags by at most

        D_k = sum_{j <= k} h mu g eps^2 / (2 (V - mu g t_j)^2).

    Once stuck the friction force opposes the relative speed, which therefore stays below
    its value at the sticking time, ``D_{N-1}``. Other deviations per step, in the velocity
    [m/s]: the Newton residual of the in-plane and vertical momentum rows,
    ``(1 + mu) sqrt(n_nodes) atol / m`` (|sum of rows| <= sqrt(rows) |rows|_2), counted
    from t = 0 (on the resting belt friction only slows any in-plane motion), and the
    pressure's departure from the weight over the step, ``mu (|dp_3| + c L |dz|) / m``
    (vertical momentum balance with the damping ``c``; the settled rod's residual motion);
    round-off (tests/roundoff.py) of the velocity over the steps and of the positions'
    difference in one step."""
    rod = Rod(SEC, start=(0, 0, R), end=(LENGTH, 0, R), d1=(0, 1, 0), n_elements=N_EL)
    belt = HalfSpace(motion=lambda t: V * max(t - T0, 0.0) * E)
    damping = 2.0 * np.sqrt(K * SEC.rhoA)                  # critical for the normal mode
    contact = Contact(belt, stiffness=K, friction=MU, v_reg=V_REG, damping=damping)
    model = RodModel(rod, [Gravity((0.0, 0.0, -G))], extensions=[contact])
    settings = SolverSettings(stol=0.0)     # Newton stops at |F| <= atol only
    sim = Simulation(Integrator(model, H, settings))
    sim.run(T0 + 2 * N_SLIDE * H)

    t = sim.column("t")
    com = np.column_stack([sim.column(f"com_{i}") for i in (1, 2, 3)])
    start = int(np.flatnonzero(np.isclose(t, T0, rtol=0.0, atol=1e-12))[0])
    t, com, p3 = t[start:], com[start:], sim.column("p_3")[start:]
    assert np.allclose(np.diff(t), H, rtol=1e-12, atol=0.0)
    vm = np.diff(com, axis=0) / H                      # step averages
    tm = 0.5 * (t[1:] + t[:-1]) - T0
    exact = np.minimum(MU * G * tm, V)[:, None] * E
    err = np.linalg.norm(vm[:, :2] - exact[:, :2], axis=1)

    mass = SEC.rhoA * LENGTH
    normal = MU * (np.abs(np.diff(p3)) + damping * LENGTH * np.abs(np.diff(com[:, 2]))) / mass
    steps = start + np.arange(1, len(tm) + 1)          # steps since t = 0
    noise = (newton_bound(settings, (1.0 + MU) * np.sqrt(2 * N_EL + 1) / mass, steps)
             + np.cumsum(normal) + roundoff(V, steps) + roundoff(np.max(np.abs(com)) / H))
    slide = np.arange(len(tm)) < N_SLIDE
    D = np.cumsum(H * MU * G * V_REG**2 / (2.0 * (V - MU * G * tm[slide]) ** 2))
    bound = np.concatenate([D, np.full(np.count_nonzero(~slide), D[-1])]) + noise
    assert np.all(err <= bound), np.max(err / bound)
