"""Drivers for the Hamel lattice: the time loop recording a :class:`fxrod.output.history.History`,
the stepper recorded by :class:`fxrod.runs.simulation.Simulation` (:class:`HamelStepper`),
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
from fxrod.output.history import History
from fxrod.solvers.stepper import StepInfo

__all__ = ["COLUMNS", "VECTORS", "Frames", "HamelProbe", "HamelStepper", "StepControl",
           "example2", "example2_velocity", "run", "run_free_beam", "series"]

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
    """The step sizes of a Hamel run, like :class:`fxrod.runs.integrators.Integrator`: the
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


#: The columns of a Hamel row (:meth:`HamelBeam.step`) and their SI units, in CSV order.
COLUMNS: dict[str, str] = {
    "kinetic": "J", "strain_energy": "J", "H": "J",
    **{f"Jd_{k}": "kg m^2/s" for k in (1, 2, 3)}, **{f"Jd_{k}": "kg m/s" for k in (4, 5, 6)},
    **{f"J_{k}": "kg m^2/s" for k in (1, 2, 3)}, **{f"p_{k}": "kg m/s" for k in (1, 2, 3)},
    **{f"Jmid_{k}": "kg m^2/s" for k in (1, 2, 3)},
    **{f"Jmid_{k}": "kg m/s" for k in (4, 5, 6)},
    **{f"tip_{k}": "m" for k in (1, 2, 3)}, **{f"com_{k}": "m" for k in (1, 2, 3)},
    "newton_its": "-",
}


class HamelProbe:
    """The row of the current level of a :class:`HamelStepper` (:data:`COLUMNS`: energies
    [J], ``J_d``, its leading term and the mid-frame momentum (angular [kg m^2/s], linear
    [kg m/s]), tip and centre [m], the Newton iterations of the step leaving the level)."""

    columns = COLUMNS

    def __call__(self, sim, res) -> dict[str, float]:
        row = sim.integ.row
        return {c: row[c] for c in COLUMNS}


class HamelStepper:
    """The steps of a :class:`HamelBeam` (with :class:`StepControl`) as a
    :class:`fxrod.solvers.stepper.CompanionStepper`, recorded by
    :class:`fxrod.runs.simulation.Simulation`.

    The diagnostics of a level (its row, :meth:`HamelBeam.step`) need the step that leaves
    it, so the beam runs one step ahead: the stepper's state is level ``n`` (``t``,
    :attr:`row`, :meth:`centreline`) while the beam is at level ``n + 1``; the first step
    leaving a level is taken when its row is first asked for. A run to ``t_end`` thus leaves
    the beam at ``t_end`` plus one step. The step leaving a level before ``t_end`` is
    shortened to land on it (adaptive steps: :class:`StepControl`).

    Parameters
    ----------
    beam : HamelBeam
        The lattice at its initial level.
    fingerprint : dict of str to str
        What identifies the problem in a checkpoint, taken at the initial level
        (:func:`fxrod.runs.checkpoint.companion_fingerprint`).
    comm : mpi4py communicator, optional
        Ranks that step the lattice alike (default ``MPI.COMM_SELF``).
    """

    def __init__(self, beam: HamelBeam, fingerprint: dict[str, str], comm=None) -> None:
        from mpi4py import MPI

        self.beam = beam
        self.control = StepControl(beam)
        self.comm = MPI.COMM_SELF if comm is None else comm
        self._fingerprint = dict(fingerprint)
        self.step_count = 0
        self._row: dict[str, float] | None = None
        self._level: tuple[np.ndarray, np.ndarray] | None = None
        self._t_end: float | None = None

    def _leave(self) -> None:
        """Take the step that leaves the beam's level (landing on the run's end). A failed
        step leaves the stepper and the beam as they were (a checkpoint of the last good
        state), then raises :class:`~fxrod.errors.ConvergenceError`."""
        beam, t_end = self.beam, self._t_end
        level, start = (beam.positions, beam.rotations), beam.get_state()
        land = t_end is not None and beam.t < t_end - 1e-12 * max(1.0, abs(t_end))
        try:
            row = self.control.step(t_end if land else None)
        except ConvergenceError:
            beam.set_state(start)
            raise
        self._level, self._row = level, row

    @property
    def row(self) -> dict[str, float]:
        """The row of the current level (:meth:`HamelBeam.step`)."""
        if self._row is None:
            self._leave()
        return self._row

    @property
    def t(self) -> float:
        """Time of the current level [s]."""
        return self.row["t"]

    @property
    def h(self) -> float:
        """Size of the next step [s] (:attr:`StepControl.h`)."""
        return self.control.h

    def step(self, h: float | None = None) -> StepInfo:
        """Advance one level (``h``: None or :attr:`h`; the sizes are the step control's).
        The outcome: the step's size, its Newton iterations and the change of ``H`` [J]
        (the scheme conserves ``J_d`` exactly, ``H`` only approximately)."""
        if h is not None and h != self.control.h:
            raise ParameterError("h", h, f"None or the step control's {self.control.h!r} s")
        prev = self.row
        self._leave()
        self.step_count += 1
        row = self._row
        return StepInfo(row["t"], row["t"] - prev["t"], int(prev["newton_its"]),
                        row["H"] - prev["H"])

    def advance_to(self, t_end: float, callback=None) -> None:
        """Step to the level ``t_end`` [s], calling ``callback(self, outcome)`` after each."""
        self._t_end = float(t_end)
        eps = 1e-12 * max(1.0, abs(t_end))
        while self.t < t_end - eps:
            res = self.step()
            if callback is not None:
                callback(self, res)

    def get_state(self) -> dict:
        """The beam one step ahead (``beam_*``), the step control, the current level's row,
        positions and rotations, and the step count."""
        row = self.row                   # the level's row (and nodes) exist once asked for
        b = self.beam.get_state()
        return {**{f"beam_{k}": v for k, v in b.items()}, "control": self.control.get_state(),
                "row": dict(row), "level_x": self._level[0],
                "level_R": self._level[1], "step_count": self.step_count}

    def set_state(self, st: dict) -> None:
        """Restore :meth:`get_state`."""
        self.beam.set_state({k: st[f"beam_{k}"] for k in HamelBeam.STATE})
        self.control.set_state(st["control"])
        self._row = {k: int(v) if k == "newton_its" else float(v)
                     for k, v in st["row"].items()}
        self._level = (np.array(st["level_x"], dtype=float),
                       np.array(st["level_R"], dtype=float))
        self.step_count = int(st["step_count"])

    def probes(self) -> list:
        """:class:`HamelProbe`."""
        return [HamelProbe()]

    def fingerprint(self) -> dict[str, str]:
        """The problem's fingerprint as given."""
        return self._fingerprint

    def centreline(self) -> np.ndarray:
        """The current level's nodes ``(n_nodes, 12)``: positions [m], then the directors
        ``d1, d2, d3`` (the columns of the rotations)."""
        if self._level is None:          # kept when the level's row is computed
            self._leave()
        x, R = self._level
        return np.column_stack([x, R[:, :, 0], R[:, :, 1], R[:, :, 2]])


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
