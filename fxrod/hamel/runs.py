"""Drivers for the Hamel lattice: the time loop recording a :class:`fxrod.history.History`,
Example 2 of the HFVI momentum paper (theory §H7), and a plain free-beam run returning the
tip trajectory (for cross-formulation checks)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from fxrod.errors import ConvergenceError, ParameterError, check_int_min, check_positive
from fxrod.hamel.lattice import HamelBeam
from fxrod.hamel.section import HamelSection
from fxrod.history import History

__all__ = ["VECTORS", "Frames", "StepControl", "example2", "example2_velocity", "run",
           "run_free_beam", "series"]

#: Vector quantities of the rows of :meth:`HamelBeam.step`: name -> its columns.
VECTORS: dict[str, tuple[str, ...]] = {
    "Jd": tuple(f"Jd_{k}" for k in range(1, 7)),
    "J_lead": ("J_1", "J_2", "J_3", "p_1", "p_2", "p_3"),
    "J_mid": tuple(f"Jmid_{k}" for k in range(1, 7)),
    "tip": ("tip_1", "tip_2", "tip_3"),
    "com": ("com_1", "com_2", "com_3"),
}


def series(history: History, name: str) -> np.ndarray:
    """A quantity of a Hamel history over its rows.

    Parameters
    ----------
    history : History
        Rows recorded by :func:`run` (see :meth:`HamelBeam.step` for the columns).
    name : str
        A vector of :data:`VECTORS` -- ``"Jd"`` (exact discrete momentum), ``"J_lead"``
        (leading term), ``"J_mid"`` (mid-frame momentum), all (angular [kg m^2/s], linear
        [kg m/s]); ``"tip"``, ``"com"`` [m] -- or any column name.

    Returns
    -------
    ndarray
        ``(len(history), k)`` for a vector of ``k`` components, ``(len(history),)`` for a
        column.
    """
    if name in VECTORS:
        return np.column_stack([history.column(c) for c in VECTORS[name]])
    return history.column(name)


@dataclass
class Frames:
    """Centreline snapshots taken by :func:`run` every ``every`` steps and after the last.

    Attributes
    ----------
    every : int
        Steps between snapshots (>= 1).
    t : list of float
        Snapshot times [s].
    positions : list of ndarray (n_nodes, 3)
        Node positions [m].
    rotations : list of ndarray (n_nodes, 3, 3)
        Node rotations.
    """

    every: int
    t: list[float] = field(default_factory=list)
    positions: list[np.ndarray] = field(default_factory=list)
    rotations: list[np.ndarray] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.every = check_int_min("every", self.every, 1)

    def take(self, beam: HamelBeam) -> None:
        """Store the current state of ``beam``."""
        self.t.append(beam.t)
        self.positions.append(beam.positions)
        self.rotations.append(beam.rotations)


def run(
    beam: HamelBeam,
    n_steps: int,
    record_every: int = 1,
    *,
    history: History | None = None,
    frames: Frames | None = None,
    callback: Callable[[dict[str, float]], None] | None = None,
) -> History:
    """Advance ``beam`` by ``n_steps`` steps, recording every ``record_every``-th level.

    Parameters
    ----------
    beam : HamelBeam
        The lattice (advanced in place; its final state is ``beam.t``, ``beam.positions``).
    n_steps : int
        Number of steps (>= 1); levels ``n .. n + n_steps - 1`` are diagnosed.
    record_every : int
        Record every ``record_every``-th level.
    history : History, optional
        Rows are appended to it (default: a new one); see :meth:`HamelBeam.step` for the
        columns.
    frames : Frames, optional
        Filled with centreline snapshots every ``frames.every`` steps (and at the end).
    callback : callable, optional
        Called with every recorded row (e.g. to write a CSV row).

    Returns
    -------
    History
        ``history`` with the recorded rows.
    """
    n_steps = check_int_min("n_steps", n_steps, 1)
    record_every = check_int_min("record_every", record_every, 1)
    hist = History() if history is None else history
    for k in range(n_steps):
        if frames is not None and k % frames.every == 0:
            frames.take(beam)
        row = beam.step()
        if k % record_every == 0:
            hist.append(row)
            if callback is not None:
                callback(row)
    if frames is not None:
        frames.take(beam)
    return hist


class StepControl:
    """The step sizes of a Hamel run, like :class:`fxrod.integrators.Integrator`: the
    fixed ``beam.h`` or, with ``beam.settings.adaptive``, a step whose solve fails
    (:class:`~fxrod.errors.ConvergenceError`: node-wise Newton, rotation per step, neighbour
    rotation, non-finite state) is retried from the same state with half the size, down to
    ``settings.h_min`` (default ``h / 2**10``); after ``settings.grow_after`` successes the
    step doubles again, up to ``h``. Every step of any size conserves ``J_d`` exactly
    (:meth:`HamelBeam.step`).

    Attributes
    ----------
    h : float
        Size of the next step [s].
    successes : int
        Accepted steps since the last change of size.
    """

    def __init__(self, beam: HamelBeam) -> None:
        self.beam = beam
        s = beam.settings
        self.adaptive = bool(s.adaptive)
        self.h_min = beam.h / 2**10 if s.h_min is None else s.h_min
        if self.h_min > beam.h:
            raise ParameterError("h_min", s.h_min, f"<= h = {beam.h}")
        self.h = beam.h
        self.successes = 0

    def get_state(self) -> dict[str, float | int]:
        """``h`` and ``successes`` for a checkpoint."""
        return {"h": self.h, "successes": self.successes}

    def set_state(self, st: dict) -> None:
        """Restore :meth:`get_state`."""
        self.h, self.successes = float(st["h"]), int(st["successes"])

    def step(self, t_end: float | None = None) -> dict[str, float]:
        """One accepted step of size :attr:`h`, shortened to land on ``t_end`` [s] if given
        and ahead; the row of :meth:`HamelBeam.step`.

        Raises
        ------
        fxrod.errors.ConvergenceError
            If the step fails (not adaptive: the beam is left as the step left it), or its
            size fell below ``h_min``.
        """
        beam = self.beam
        h = self.h
        if t_end is not None:
            eps = 1e-12 * max(1.0, abs(t_end))
            remaining = t_end - beam.t
            if eps < remaining < h - eps:
                h = remaining
        if not self.adaptive:
            return beam.step(h)
        start, halved = beam.get_state(), False
        while True:
            try:
                row = beam.step(h)
                break
            except ConvergenceError as err:
                beam.set_state(start)
                h, halved = 0.5 * h, True
                self.successes = 0
                if h < self.h_min * (1 - 1e-12):
                    raise ConvergenceError(err.t, 2 * h, err.reason,
                                           f"step size fell below h_min = {self.h_min:g}"
                                           ) from err
        self.successes += 1
        if halved:
            self.h = h
        if self.successes >= beam.settings.grow_after and self.h < beam.h:
            self.h = min(beam.h, 2 * self.h)
            self.successes = 0
        return row


def example2_velocity(n_elements: int = 9) -> np.ndarray:
    """Initial convective velocities of Example 2 (theory §H7), shape (n_elements + 1, 6).

    ``omega = (0.1, 1, 0.2)`` rad/s on all sections, ``pi_1 = 2`` m/s on sections 5 and 6,
    ``pi_2 = 3`` m/s on sections 2 and 3 (1-based), ``pi_3 = 0``.
    """
    n = check_int_min("n_elements", n_elements, 5) + 1
    z = np.zeros((n, 6))
    z[:, :3] = (0.1, 1.0, 0.2)
    z[[4, 5], 3] = 2.0
    z[[1, 2], 4] = 3.0
    return z


def example2(h: float = 1e-4, n_elements: int = 9, **kwargs) -> HamelBeam:
    """Example 2 of the HFVI momentum paper (theory §H7): free beam, l = 1 m, square
    a = 0.1 m, rho = 1000 kg/m^3, E = 1e7 Pa, nu = 0.35 (K, P as theory §H6), 9 elements
    (10 nodes), initial velocities :func:`example2_velocity`, time step ``h`` [s]. Extra
    keywords go to :class:`HamelBeam`."""
    section = HamelSection.square(0.1, E=1e7, nu=0.35, rho=1000.0)
    return HamelBeam(section, 1.0, n_elements, h, example2_velocity(n_elements), **kwargs)


def run_free_beam(
    K: np.ndarray,
    P: np.ndarray,
    length: float,
    n_elements: int,
    h: float,
    t_end: float,
    velocity0: np.ndarray | Callable[[np.ndarray], np.ndarray],
    record_every: int = 1,
    **kwargs,
) -> tuple[np.ndarray, np.ndarray]:
    """Free-free beam, straight along E2, from convective velocities; tip trajectory.

    Parameters
    ----------
    K, P : array (6,)
        Diagonal section inertia and stiffness (see :class:`HamelSection`).
    length : float
        Beam length [m].
    n_elements : int
        Lattice intervals (``dh = length / n_elements``).
    h : float
        Time step [s]; ``t_end`` must be a multiple of it.
    t_end : float
        Final time [s].
    velocity0 : array or callable
        Initial convective velocities ``(omega, pi)`` (see :class:`HamelBeam`); a callable
        ``s -> (n, 6)`` makes resolution studies consistent.
    record_every : int
        Keep every ``record_every``-th time (the final time is always kept).
    **kwargs
        Passed to :class:`HamelBeam` (``weights``, ``ends``, ...).

    Returns
    -------
    t : ndarray (m,)
        Times [s], from 0 to ``t_end``.
    tip : ndarray (m, 3)
        Centreline position at ``s = length`` [m].
    """
    h = check_positive("h", h)
    t_end = check_positive("t_end", t_end)
    n_steps = int(round(t_end / h))
    if n_steps < 1 or not math.isclose(n_steps * h, t_end, rel_tol=1e-9):
        raise ParameterError("t_end", t_end, f"a positive multiple of h = {h:g}")
    beam = HamelBeam(HamelSection(K, P), length, n_elements, h, velocity0, **kwargs)
    hist = run(beam, n_steps, record_every=record_every)
    t = np.append(hist.column("t"), beam.t)
    tip = np.vstack([series(hist, "tip"), beam.positions[-1]])
    return t, tip
