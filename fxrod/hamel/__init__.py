"""Hamel field variational integrator (HFVI) for the geometrically exact beam on SE(3).

Method: theory §H (discrete momentum conservation of the HFVI).

* :mod:`fxrod.hamel.se3`: hat/vee, exp/log, ad, Ad, their duals, dexp and ``T = dexp^-1``.
* :class:`HamelSection`: constant diagonal section matrices K, P (square or circular
  sections).
* :class:`HamelBeam`: the lattice scheme (discrete Hamel equations, free/clamped ends), with
  :func:`critical_time_step` (a step size [s]) and :func:`default_settings` (its node-wise
  Newton solves).
* :mod:`fxrod.hamel.momentum`: ``J_d``, its leading term, the mid-frame momentum, energies.
* :func:`run`, :func:`run_free_beam`, :func:`example2`: drivers; :func:`run` records a
  :class:`fxrod.output.history.History`, :func:`series` reads its vector quantities;
  :class:`HamelStepper` is the stepper a :class:`fxrod.runs.simulation.Simulation` records.
"""

from __future__ import annotations

from fxrod.hamel import momentum, se3
from fxrod.hamel.lattice import EPS_REF, HamelBeam, critical_time_step, default_settings
from fxrod.hamel.runs import (
    COLUMNS,
    VECTORS,
    Frames,
    HamelProbe,
    HamelStepper,
    StepControl,
    example2,
    example2_velocity,
    run,
    run_free_beam,
    series,
)
from fxrod.hamel.section import HamelSection, saint_venant_square

__all__ = [
    "COLUMNS",
    "EPS_REF",
    "VECTORS",
    "Frames",
    "HamelProbe",
    "HamelStepper",
    "StepControl",
    "HamelBeam",
    "HamelSection",
    "critical_time_step",
    "default_settings",
    "example2",
    "example2_velocity",
    "momentum",
    "run",
    "run_free_beam",
    "saint_venant_square",
    "se3",
    "series",
]
