"""The stepper protocol: what :class:`fxrod.runs.simulation.Simulation` needs of a time stepper,
whichever formulation it steps.

:class:`Stepper` is met by the Cosserat :class:`fxrod.runs.integrators.Integrator` as it is; its
model supplies the rest of a recorded run (probes, energy ledger, checkpoint of the fields,
centrelines). A companion formulation's stepper -- the planar ANCF beam's
:class:`fxrod.ancf.steppers.CentralDifferenceStepper`, the Hamel lattice's
:class:`fxrod.hamel.HamelStepper` -- meets :class:`CompanionStepper`: it names its own
probes (its CSV columns with their SI units, the energy columns among them), its
fingerprint and its centreline, and hands its whole state to the checkpoint as scalars and
arrays. ``Simulation`` then records it with the same probes, CSV contract, checkpoints,
restart and SIGINT/SIGTERM handling as a rod.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np


@dataclass
class StepInfo:
    """Outcome of one accepted step of a companion stepper.

    Attributes
    ----------
    t : float
        Time at the end of the step [s].
    h : float
        Size of the step [s].
    newton_its : int
        Newton iterations of the step (0 for an explicit step).
    energy_residual : float
        Energy balance residual of the step [J] (NaN where the stepper diagnoses its
        energy only at recorded rows: the column ``energy_residual`` of its probe).
    """

    t: float
    h: float
    newton_its: int
    energy_residual: float


class StepOutcome(Protocol):
    """What a step returns: :class:`StepInfo` or :class:`fxrod.runs.integrators.StepResult`."""

    t: float
    h: float
    newton_its: int
    energy_residual: float


@runtime_checkable
class Stepper(Protocol):
    """A time stepper as :class:`fxrod.runs.simulation.Simulation` drives it.

    Attributes
    ----------
    t : float
        Time of the current state [s] (a load factor [-] in a quasi-static rod).
    h : float
        Size of the next step [s].
    step_count : int
        Accepted steps so far.
    """

    t: float
    h: float
    step_count: int

    def step(self, h: float | None = None) -> StepOutcome:
        """One accepted step (of size ``h`` if given and the stepper allows it)."""
        ...

    def advance_to(self, t_end: float,
                   callback: Callable[[Any, StepOutcome], None] | None = None) -> None:
        """Step to ``t_end`` [s], calling ``callback(stepper, outcome)`` after each step."""
        ...

    def get_state(self) -> dict:
        """The state for a checkpoint: :meth:`set_state` continues bit for bit."""
        ...

    def set_state(self, st: dict) -> None:
        """Restore a state of :meth:`get_state`."""
        ...


@runtime_checkable
class CompanionStepper(Stepper, Protocol):
    """A stepper that carries its own recording (no :class:`fxrod.core.model.RodModel`).

    Attributes
    ----------
    comm : mpi4py communicator
        Ranks that step alike (rank 0 writes the files).
    """

    comm: Any

    def probes(self) -> list:
        """Its default probes (:class:`fxrod.runs.probes.Probe`: ``columns`` name -> SI unit and
        ``__call__(sim, res)``), the energy columns among them, in CSV order."""
        ...

    def fingerprint(self) -> dict[str, str]:
        """What identifies its problem in a checkpoint
        (:func:`fxrod.runs.checkpoint.companion_fingerprint`)."""
        ...

    def centreline(self) -> np.ndarray:
        """The current centreline a snapshot keeps, ``(n_points, k)`` with the positions
        [m] in the first three columns (every rank holds it)."""
        ...


def split_state(st: dict) -> tuple[dict, dict]:
    """A companion's state as JSON scalars and arrays (the numpy arrays, by key)."""
    arrays = {k: v for k, v in st.items() if isinstance(v, np.ndarray)}
    return {k: v for k, v in st.items() if k not in arrays}, arrays
