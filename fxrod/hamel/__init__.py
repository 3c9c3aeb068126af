"""Hamel field variational integrator (HFVI) for the geometrically exact beam on SE(3).

Method note: ``spec/hamel.md``; seed: discrete momentum conservation of the HFVI.

* :mod:`fxrod.hamel.se3`: hat/vee, exp/log, ad, Ad, their duals, dexp and ``T = dexp^-1``.
* :class:`Section`: constant diagonal section matrices K, P (square or circular sections).
* :class:`HamelBeam`: the lattice scheme (discrete Hamel equations, free/clamped ends).
* :mod:`fxrod.hamel.momentum`: ``J_d``, its leading term, the mid-frame momentum, energies.
* :func:`run`, :func:`run_free_beam`, :func:`seed_example2`: drivers.
"""

from __future__ import annotations

from fxrod.hamel import momentum, se3
from fxrod.hamel.lattice import EPS_REF, HamelBeam, StepRecord, critical_time_step
from fxrod.hamel.runs import History, run, run_free_beam, seed_example2, seed_example2_velocity
from fxrod.hamel.section import Section, saint_venant_square

__all__ = [
    "EPS_REF",
    "HamelBeam",
    "History",
    "Section",
    "StepRecord",
    "critical_time_step",
    "momentum",
    "run",
    "run_free_beam",
    "saint_venant_square",
    "se3",
    "seed_example2",
    "seed_example2_velocity",
]
