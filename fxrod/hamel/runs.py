"""Drivers for the Hamel lattice: time loop with recorded diagnostics, the seed's example 2,
and a plain free-beam run returning the tip trajectory (for cross-formulation checks)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from fxrod.errors import ParameterError, check_int_min, check_positive
from fxrod.hamel.lattice import HamelBeam, StepRecord
from fxrod.hamel.section import Section

__all__ = ["History", "run", "run_free_beam", "seed_example2", "seed_example2_velocity"]


@dataclass
class History:
    """Recorded diagnostics (one entry per recorded level ``n``), see :class:`StepRecord`.

    Arrays are stacked over the records (``Jd (m, 6)``, ``tip (m, 3)``, ...).
    ``frames``/``frame_rotations``/``frame_times`` hold centreline snapshots (n_nodes, 3) [m]
    and rotations (n_nodes, 3, 3) when requested; ``final_positions`` is the centreline
    after the last step (time ``t_final``).
    """

    records: list[StepRecord]
    t_final: float
    final_positions: np.ndarray
    frames: list[np.ndarray] = field(default_factory=list)
    frame_rotations: list[np.ndarray] = field(default_factory=list)
    frame_times: list[float] = field(default_factory=list)

    def _col(self, name: str) -> np.ndarray:
        return np.array([getattr(r, name) for r in self.records])

    t = property(lambda self: self._col("t"), doc="times t_n [s]")
    H = property(lambda self: self._col("H"), doc="discrete energy [J]")
    kinetic = property(lambda self: self._col("kinetic"), doc="kinetic energy [J]")
    strain_energy = property(lambda self: self._col("strain_energy"), doc="strain energy [J]")
    Jd = property(lambda self: self._col("Jd"), doc="exact discrete momentum (m, 6)")
    J_lead = property(lambda self: self._col("J_lead"), doc="leading-term momentum (m, 6)")
    J_mid = property(lambda self: self._col("J_mid"), doc="mid-frame momentum (m, 6)")
    tip = property(lambda self: self._col("tip"), doc="tip position (m, 3) [m]")
    com = property(lambda self: self._col("com"), doc="weighted node mean (m, 3) [m]")
    newton_its = property(lambda self: self._col("newton_its"), doc="Newton iterations")

    def rows(self) -> list[dict[str, float]]:
        """CSV rows (see :meth:`StepRecord.row`)."""
        return [r.row() for r in self.records]


def run(
    beam: HamelBeam,
    n_steps: int,
    every: int = 1,
    frames_every: int | None = None,
    callback: Callable[[StepRecord], None] | None = None,
) -> History:
    """Advance ``beam`` by ``n_steps`` steps, recording every ``every``-th level.

    Parameters
    ----------
    beam : HamelBeam
        The lattice (advanced in place).
    n_steps : int
        Number of steps (>= 1); levels ``n .. n + n_steps - 1`` are diagnosed.
    every : int
        Record every ``every``-th level.
    frames_every : int, optional
        Also store the centreline every ``frames_every`` steps (and at the end).
    callback : callable, optional
        Called with every recorded :class:`StepRecord` (e.g. to write a CSV row).
    """
    n_steps = check_int_min("n_steps", n_steps, 1)
    every = check_int_min("every", every, 1)
    if frames_every is not None:
        frames_every = check_int_min("frames_every", frames_every, 1)
    h = History(records=[], t_final=beam.t, final_positions=beam.positions)

    def snapshot() -> None:
        h.frames.append(beam.positions)
        h.frame_rotations.append(beam.rotations)
        h.frame_times.append(beam.t)

    for k in range(n_steps):
        if frames_every is not None and k % frames_every == 0:
            snapshot()
        rec = beam.step()
        if k % every == 0:
            h.records.append(rec)
            if callback is not None:
                callback(rec)
    if frames_every is not None:
        snapshot()
    h.t_final, h.final_positions = beam.t, beam.positions
    return h


def seed_example2_velocity(n_nodes: int = 10) -> np.ndarray:
    """Initial convective velocities of the seed's example 2 (spec A.7), shape (n_nodes, 6).

    ``omega = (0.1, 1, 0.2)`` rad/s on all sections, ``pi_1 = 2`` m/s on sections 5 and 6,
    ``pi_2 = 3`` m/s on sections 2 and 3 (1-based), ``pi_3 = 0``.
    """
    n = check_int_min("n_nodes", n_nodes, 6)
    z = np.zeros((n, 6))
    z[:, :3] = (0.1, 1.0, 0.2)
    z[[4, 5], 3] = 2.0
    z[[1, 2], 4] = 3.0
    return z


def seed_example2(dt: float = 1e-4, n_nodes: int = 10, **kwargs) -> HamelBeam:
    """The seed's example 2: free beam, l = 1 m, square a = 0.1 m, rho = 1000 kg/m^3,
    E = 1e7 Pa, nu = 0.35 (K, P as spec A.6), 10 nodes, initial velocities
    :func:`seed_example2_velocity`. Extra keywords go to :class:`HamelBeam`."""
    section = Section.square(0.1, E=1e7, nu=0.35, rho=1000.0)
    return HamelBeam(section, 1.0, n_nodes, dt, seed_example2_velocity(n_nodes), **kwargs)


def run_free_beam(
    K: np.ndarray,
    P: np.ndarray,
    length: float,
    n_nodes: int,
    dt: float,
    t_end: float,
    velocity0: np.ndarray | Callable[[np.ndarray], np.ndarray],
    every: int = 1,
    **kwargs,
) -> tuple[np.ndarray, np.ndarray]:
    """Free-free beam, straight along E2, from convective velocities; tip trajectory.

    Parameters
    ----------
    K, P : array (6,)
        Diagonal section inertia and stiffness (see :class:`Section`).
    length : float
        Beam length [m].
    n_nodes : int
        Lattice nodes (``dh = length/(n_nodes - 1)``).
    dt : float
        Time step [s]; ``t_end`` must be a multiple of it.
    t_end : float
        Final time [s].
    velocity0 : array or callable
        Initial convective velocities ``(omega, pi)`` (see :class:`HamelBeam`); a callable
        ``s -> (n, 6)`` makes resolution studies consistent.
    every : int
        Keep every ``every``-th time (the final time is always kept).
    **kwargs
        Passed to :class:`HamelBeam` (``weights``, ``ends``, ...).

    Returns
    -------
    t : ndarray (m,)
        Times [s], from 0 to ``t_end``.
    tip : ndarray (m, 3)
        Centreline position at ``s = length`` [m].
    """
    dt = check_positive("dt", dt)
    t_end = check_positive("t_end", t_end)
    n_steps = int(round(t_end / dt))
    if n_steps < 1 or not math.isclose(n_steps * dt, t_end, rel_tol=1e-9):
        raise ParameterError("t_end", t_end, f"a positive multiple of dt = {dt:g}")
    beam = HamelBeam(Section(K, P), length, n_nodes, dt, velocity0, **kwargs)
    h = run(beam, n_steps, every=every)
    t = np.append(h.t, h.t_final)
    tip = np.vstack([h.tip, h.final_positions[-1]])
    return t, tip
