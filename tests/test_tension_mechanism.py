"""The mixed element's shear mechanism under tension: a rod in tension N whose elements are
longer than ``sqrt(24 EI/N)`` has an unstable equilibrium (issue 35: the mooring line's
dynamics blew up from its static state).

Model (theory §2.1: q in P2, the stresses in DG1, the directors orthonormal at the nodes).
On an element of length l (``xi`` in [-1, 1], Legendre ``L2 = (3 xi^2 - 1)/2``) rotate the
directors of a straight rod stretched by the tension N by the angle ``theta = c L2(xi)``
about ``d1`` (nodal values c at the vertices, -c/2 at the midpoint: continuous across
elements), the centreline unmoved:

* the shear strain ``-theta`` is orthogonal to the DG1 stresses, so it stores no shear
  (nor axial) energy: the element's shear has no stiffness against its Legendre-2 part;
* the bending energy is ``EI/2 int theta'^2 ds = 6 EI c^2/l``;
* the axial strain ``d3 . phi' - 1`` changes at second order by ``-I(theta^2)/2`` (the
  directors are interpolated in P2 from nodes that turn on the unit circle; I the P2
  interpolant), so the tension stores ``-N/2 int I(theta^2) ds = -N l c^2/4`` (Simpson:
  ``l/6 c^2 + 2l/3 c^2/4 + l/6 c^2 = l c^2/2``).

The second variation ``c^2 (6 EI/l - N l/4)`` is negative iff ``N l^2 > 24 EI``: on a
uniform mesh of an endless rod the equilibrium is unstable exactly beyond 24. A clamped
rod cannot take the uniform pattern at its ends (theta = 0 there), so its threshold lies
slightly above 24 (by O(1/n^2)). In the continuum the shear stiffness GA >> N keeps the
section normal to the centreline and the equilibrium is stable: the instability is the
discretisation's, removed by elements shorter than ``sqrt(24 EI/N)`` (or a bending
stiffness above ``N l^2/24``). It grows at ``sqrt(-omega^2)`` (~ 1e2..1e3 /s for the
chain of demos/mooring.py with EI = 1e3 N m^2 on 64 elements), and the implicit midpoint
rule amplifies a mode of growth rate ``lam`` by ``|(1 + lam h/2)/(1 - lam h/2)|`` per step,
most for ``lam h`` near 2: a broad unstable spectrum blows up at every step size.

The test: the lowest ``omega^2`` of the undamped linearisation (the modes analysis's
operators, fxrod/analysis/modes.py) of a clamped rod of 16 elements pulled to the tension
N, at ``N l^2/EI = 23`` (stable: below 24) and 26 (unstable: this rod turns unstable
between 24.0 and 24.5, measured; 24.96 with 8 elements), and the unstable mode's shape:
the directors turn with the midpoint against the vertices,
``theta_mid = -(theta_left + theta_right)/4`` (the Legendre-2 pattern), to 5 % of the
largest turn: the mode's envelope (a half sine over
the rod, zero at the clamps) changes by ``(pi/n)^2/2 ~ 2 %`` over an element. The read-out
``fxrod.core.diagnostics.tension_mechanism_ratio`` gives ``N l^2/(24 EI)`` of the state
(the axial stress is ``EA`` times the imposed stretch ``N/EA``, to round-off).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

from fxrod.analysis import modes as md
from fxrod.core.diagnostics import tension_mechanism_ratio
from fxrod.core.geometry import Straight
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section, VaryingSection
from fxrod.core.supports import Clamp
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings

EA, RHO_A, DIAMETER = 5.4e8, 115.0, 0.137      # the chain of demos/mooring.py [N, kg/m, m]
LENGTH, N_ELEMENTS, TENSION = 20.0, 16, 1.5e5  # m, -, N


def _pulled_rod(ei: float, varying: bool = False):
    """A straight rod clamped at both ends, its end ``L`` moved along the axis by
    ``N L/EA`` in two quasi-static steps: the tension N everywhere. ``varying``: a
    :class:`VaryingSection` with ``EI_1 = ei (1 + s/L)`` and ``EI_2 = 2 ei``."""
    mass = dict(rhoA=RHO_A, M11=RHO_A * DIAMETER**2 / 16.0, M22=RHO_A * DIAMETER**2 / 16.0)
    if varying:
        section = VaryingSection(**mass, k_s1=EA / 2.6, k_s2=EA / 2.6, k_e=EA,
                                 k_b1=lambda s: ei * (1.0 + s / LENGTH), k_b2=2.0 * ei,
                                 k_t=ei / 1.3)
    else:
        section = Section(**mass, k_s1=EA / 2.6, k_s2=EA / 2.6, k_e=EA, k_b1=ei, k_b2=ei,
                          k_t=ei / 1.3)
    rod = Rod(section, curve=Straight((0.0, 0.0, 0.0), (LENGTH, 0.0, 0.0), (0.0, 1.0, 0.0)),
              n_elements=N_ELEMENTS)
    R = rod.initial_configuration(np.array([LENGTH]))[0, 3:].reshape(3, 3).T
    stretch = TENSION * LENGTH / EA

    def motion(t):
        return np.array([LENGTH + stretch * min(t, 1.0), 0.0, 0.0]), R

    model = RodModel(rod, [], supports=[Clamp("0"), Clamp("L", motion=motion)],
                     quasistatic=True)
    integ = Integrator(model, 0.5, SolverSettings(atol=1e-8))
    for _ in range(2):
        integ.step()
    return model


def _lowest_mode(model, shift: float = -1e3):
    """The lowest ``omega^2`` [rad^2/s^2] of the pencil ``(A, M)`` at the model's state and
    its eigenvector (dense shift-invert: the massless rows' infinite eigenvalues go to 0)."""
    state = model.w0.x.array.copy()
    A = md.stiffness_matrix(model, state).convert("dense").getDenseArray().copy()
    M = md.system_matrix(model, md.mass_form(model), state, diag=0.0)
    M = M.convert("dense").getDenseArray().copy()
    nu, vec = sl.eig(sl.solve(A - shift * M, M))
    keep = np.abs(nu) > 1e-9 * np.abs(nu).max()
    lam = shift + 1.0 / nu[keep]
    i = int(np.argmin(lam.real))
    return float(lam[i].real), vec[:, keep][:, i].real


@pytest.mark.parametrize(("ratio", "stable"), [(23.0, True), (26.0, False)])
def test_tension_mechanism_threshold(ratio, stable):
    ell = LENGTH / N_ELEMENTS
    model = _pulled_rod(TENSION * ell**2 / ratio)
    # the read-out of the criterion: the axial stress is EA times the imposed stretch
    assert tension_mechanism_ratio(model) == pytest.approx(ratio / 24.0, rel=1e-9)
    omega2, vec = _lowest_mode(model)
    assert (omega2 > 0.0) == stable, (ratio, omega2)
    if stable:
        return
    # the mode: the directors' Legendre-2 pattern (d3 turns across the axis e1)
    x = model.space.Q.tabulate_dof_coordinates()[:, 0]
    q = vec[model.space.q_map].reshape(-1, 12)[np.argsort(x)]
    d3 = q[:, 10:12]                       # d3_y, d3_z: the turn of d3 in either plane
    theta = d3[:, int(np.argmax(np.abs(d3).sum(axis=0)))]
    vertex, mid = theta[0::2], theta[1::2]
    inner = slice(2, N_ELEMENTS - 2)       # away from the clamps (theta = 0 there)
    predicted = -0.25 * (vertex[:-1] + vertex[1:])
    assert np.allclose(mid[inner], predicted[inner], rtol=0.0,
                       atol=0.05 * np.abs(vertex).max()), (mid, predicted)


def test_tension_mechanism_ratio_of_a_varying_section():
    """The read-out takes the smaller bending stiffness at each element end: with
    ``EI_1 = EI (1 + s/L)`` and ``EI_2 = 2 EI`` the largest ratio is ``N l^2/(24 EI)`` at
    s = 0 (the axial stress is ``EA`` times the imposed stretch, to round-off)."""
    ell = LENGTH / N_ELEMENTS
    ei = TENSION * ell**2 / 12.0
    model = _pulled_rod(ei, varying=True)
    assert tension_mechanism_ratio(model) == pytest.approx(0.5, rel=1e-9)


def test_a_step_that_fails_on_the_mechanism_says_so():
    """A dynamic run from the pulled rod's state at ``N l^2/EI = 26`` (unstable), nudged by
    a small transverse velocity, blows up within a few steps; the failed step's message
    names the criterion and its value at the last accepted state (>= 1)."""
    from fxrod.errors import ConvergenceError

    ell = LENGTH / N_ELEMENTS
    static = _pulled_rod(TENSION * ell**2 / 26.0)
    R = static.rod.initial_configuration(np.array([LENGTH]))[0, 3:].reshape(3, 3).T
    end = np.array([LENGTH + TENSION * LENGTH / EA, 0.0, 0.0])
    model = RodModel(static.rod, [], supports=[Clamp("0"), Clamp("L", motion=lambda t: (
        np.array([LENGTH + (TENSION * LENGTH / EA) * min(t, 1.0), 0.0, 0.0]), R))])
    model.w0.x.array[:] = static.w0.x.array
    model.w.x.array[:] = static.w0.x.array
    v = model.v0.x.array.reshape(-1, 12)
    x = model.space.Q.tabulate_dof_coordinates()[:, 0]
    v[:, 2] = 1e-6 * np.sin(np.pi * x / LENGTH)            # a nudge across the rod [m/s]
    assert np.allclose(static.w0.x.array[model.space.q_map].reshape(-1, 12)[np.argmax(x), :3],
                       end)
    integ = Integrator(model, 0.01, SolverSettings(atol=1e-8))
    state = integ.get_state()                               # start at t = 1 s: the clamp
    integ.set_state({**state, "t": 1.0, "t_base": 1.0})     # at its pulled pose
    with pytest.raises(ConvergenceError, match=r"N l\^2/\(24 EI\) = [0-9.]+ >= 1"):
        for _ in range(200):
            integ.step()
