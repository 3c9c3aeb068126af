"""Reference problems of theory §A5 as one-call functions.

:func:`r1_tip_displacement` is the hook for cross-checks with other formulations (e.g. the
Cosserat rod of the core solver): the Exudyn tip-load cantilever (R1) for a given element
count. Units: SI (m, N, N m).

Note on theory §A5 (R4, option 2). The method notes state that Green strain + Frenet
curvature converges to the tip (-0.00098, 1.272925), tip angle 180.09 deg. That disagrees with the
closed-form solution of the same continuum model (:func:`green_half_circle_tip`):
for b = h = 0.1 m it is (-0.0082076, 1.2705766), 180.74 deg, and for Exudyn's own
b = h = 0.01 m of ``ANCF_test_halfcircle.py`` (-8.2245e-5, 1.2732134), 180.0074 deg. The
ANCF solution converges to the closed form at the l_e^4 rate with the Exudyn support (measured
gaps 1.2e-5, 7.4e-7, 4.6e-8 m at 16, 32, 64 elements), so the notes' option-2 numbers
are not used. Option (1) agrees with the notes: (7.6e-7, 1.2732402) at 32 elements.
"""

from __future__ import annotations

import numpy as np

from fxrod.ancf.element import ANCFBeam
from fxrod.ancf.material import BeamProperties
from fxrod.ancf.steppers import solve_static

#: R1 data (Exudyn ``ANCFcantileverTest.py``): L [m], E [Pa], rho [kg/m^3], b = h [m].
R1_L, R1_E, R1_RHO, R1_B = 2.0, 2.07e11, 7800.0, 0.1
#: R1 tip load ``f = 3 EI / L^2`` [N] (so that ``f L^2 / EI = 3``), acting in -y.
R1_FORCE: float = 3.0 * R1_E * (R1_B**4 / 12.0) / R1_L**2
#: Converged Exudyn tip displacement (u_x, u_y) [m] and the per-mesh table (theory §A5).
R1_CONVERGED: tuple[float, float] = (-0.508537304326, -1.207239854550)
R1_TABLE: dict[int, tuple[float, float]] = {
    1: (-0.3622447299, -0.9941447587),
    2: (-0.4889263083, -1.1752228651),
    4: (-0.5074287151, -1.2055337022),
    8: (-0.5085092365, -1.2071977560),
    16: (-0.5085365798, -1.2072388949),
    32: (-0.5085372777, -1.2072398264),
}


def r1_properties() -> BeamProperties:
    """Beam of R1: L = 2 m, E = 2.07e11 Pa, rho = 7800 kg/m^3, b = h = 0.1 m."""
    return BeamProperties(L=R1_L, E=R1_E, rho=R1_RHO, b=R1_B, h=R1_B)


def r1_beam(n_elements: int, strain: str = "gerstmayr") -> ANCFBeam:
    """The R1 cantilever: Exudyn clamp (x, y, r'_y fixed at x = 0), tip force (0, -f)."""
    return ANCFBeam(r1_properties(), n_elements, strain=strain, left="clamped_axial_free",
                    tip_force=(0.0, -R1_FORCE))


def r1_tip_displacement(n_elements: int, strain: str = "gerstmayr",
                        n_steps: int = 10) -> np.ndarray:
    """Static tip displacement ``(u_x, u_y)`` [m] of R1 with ``n_elements`` ANCF elements.

    Option (1) reproduces the Exudyn table :data:`R1_TABLE` (theory §A5) to ~1e-10 m.
    """
    return solve_static(r1_beam(n_elements, strain), n_steps=n_steps).tip_displacement


def half_circle_tip(n_elements: int, strain: str = "gerstmayr", L: float = 2.0,
                    b: float = 0.1, n_steps: int = 4,
                    left: str = "clamped_axial_free") -> np.ndarray:
    """R4: tip position [m] under the tip moment ``pi EI / L`` (exact: ``(0, 2L/pi)``).

    Steel (E = 2.07e11 Pa), square section ``b x b`` [m]. The default support is Exudyn's
    (``x, y, r'_y`` fixed at ``x = 0``, as in ``ANCF_test_halfcircle.py``). With option (2)
    a full clamp (``left="clamped"``) forces ``|r'(0)| = 1`` against the uniform stretch of
    the exact solution: a boundary layer one element wide, first-order mesh convergence.
    """
    props = BeamProperties(L=L, E=R1_E, rho=R1_RHO, b=b, h=b)
    EI = R1_E * b**4 / 12.0
    beam = ANCFBeam(props, n_elements, strain=strain, left=left, tip_moment=np.pi * EI / L)
    return solve_static(beam, n_steps=n_steps).tip


def green_half_circle_tip(L: float = 2.0, b: float = 0.1) -> np.ndarray:
    """Closed-form R4 tip [m] for strain option (2) (Green strain, Frenet curvature).

    A uniform moment ``M`` gives a circular arc with uniform stretch ``s`` and
    ``theta' = k``: stationarity of ``EA ((s^2-1)/2)^2 / 2 + EI (k/s)^2 / 2 - M k`` gives
    ``s^2 = 1 + 2 M^2 / (EA EI)`` and ``k = M s^2 / EI``; the tip of the arc of radius ``s/k``
    is ``(s/k) (sin kL, 1 - cos kL)``. For ``M = pi EI / L`` the tip angle overshoots 180
    degrees by ``180 (s^2 - 1)`` degrees: the axial-bending coupling artefact of option (2).
    """
    A, EI = b * b, R1_E * b**4 / 12.0
    M = np.pi * EI / L
    s2 = 1.0 + 2.0 * M**2 / (R1_E * A * EI)
    k = M * s2 / EI
    R = np.sqrt(s2) / k
    return np.array([R * np.sin(k * L), R * (1.0 - np.cos(k * L))])
