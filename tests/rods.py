"""Rods shared by several test modules (SI units)."""

from __future__ import annotations

import numpy as np

from fxrod.core.rod import Rod, Section

#: Length [m] of the straight test rod.
LENGTH = 1.0
#: A thin steel-like circular section of radius 1 cm: rhoA = 0.628 kg/m.
SEC = Section.circular(radius=0.01, E=1e8, rho=2000.0, nu=0.3)


def straight_rod(direction, n_elements: int = 4) -> Rod:
    """A straight rod of :data:`SEC` and :data:`LENGTH` from the origin along ``direction``,
    with d1 normal to it (to e2, or to e1 when the rod runs nearly along e2)."""
    e3 = np.asarray(direction, dtype=float)
    e3 /= np.linalg.norm(e3)
    d1 = np.cross(e3, (0.0, 1.0, 0.0))
    if np.linalg.norm(d1) < 0.5:
        d1 = np.cross(e3, (1.0, 0.0, 0.0))
    return Rod(SEC, start=(0.0, 0.0, 0.0), end=tuple(LENGTH * e3), d1=tuple(d1),
               n_elements=n_elements)
