"""A recorded run of an :class:`fxrod.runs.ensemble.Ensemble`: per member, one row per step.

:class:`EnsembleRun` steps an ensemble's integrator to ``t_end`` and records, after every
accepted step (and at t = 0), each member's

* ``t`` [s], ``H`` [J] (kinetic plus stored elastic energy, :meth:`Ensemble.energies`),
* ``p_1..3`` [kg m/s] and ``J_1..3`` [kg m^2/s]: linear momentum and angular momentum about
  the origin (the integrands of :class:`fxrod.runs.probes.MomentumProbe`, tested with the
  members' cell indicators: one vector assembly for all members),
* ``tip_1..3`` [m] (:meth:`Ensemble.tips`) and ``newton_its`` (of the joint step),

and writes member k's rows to ``outs[k]/<name>.csv`` when the run ends (also when it fails
or is stopped). SIGINT/SIGTERM stop the run at the end of the current step and raise
:class:`fxrod.runs.simulation.Interrupted` (no checkpoint: an ensemble run restarts from t = 0).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.kinematics import split_q
from fxrod.errors import ParameterError
from fxrod.output.tables import CSVWriter
from fxrod.runs.ensemble import Ensemble
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Interrupted, Progress, caught_signals

#: The columns of a member's CSV and their units.
COLUMNS: dict[str, str] = {"t": "s", "H": "J",
                           **{f"p_{i}": "kg m/s" for i in (1, 2, 3)},
                           **{f"J_{i}": "kg m^2/s" for i in (1, 2, 3)},
                           **{f"tip_{i}": "m" for i in (1, 2, 3)},
                           "newton_its": "-"}
#: Their meanings (``<name>_columns.json``).
MEANINGS: dict[str, str] = {
    "t": "time", "H": "the member's kinetic plus stored elastic energy",
    **{f"p_{i}": f"the member's linear momentum, component {i}" for i in (1, 2, 3)},
    **{f"J_{i}": f"the member's angular momentum about the origin, component {i}"
       for i in (1, 2, 3)},
    **{f"tip_{i}": f"the member's centreline at s = L, component {i}" for i in (1, 2, 3)},
    "newton_its": "Newton iterations of the ensemble's joint step"}


class EnsembleRun:
    """Step ``integrator`` (of ``ensemble``'s model) and record every member.

    Parameters
    ----------
    ensemble : Ensemble
        The members.
    integrator : Integrator
        Its stepper (:meth:`Ensemble.integrator`).
    outs : list of Path or None
        Output directory of each member (None: keep its rows in memory only).
    name : str
        Base name of the members' CSV files.
    quiet : bool
        No progress bar.

    Attributes
    ----------
    rows : list of list of dict
        The rows of each member.
    """

    def __init__(self, ensemble: Ensemble, integrator: Integrator, outs: list[Path | None],
                 name: str, quiet: bool = True) -> None:
        if len(outs) != ensemble.size:
            raise ParameterError("outs", len(outs), f"{ensemble.size} output directories "
                                 "(one a member)")
        self.ensemble, self.integ, self.outs, self.name = ensemble, integrator, outs, name
        self.quiet = quiet
        self.rows: list[list[dict]] = [[] for _ in outs]
        self._momenta = None

    def momenta(self) -> np.ndarray:
        """Linear and angular momentum ``(p, J)`` of every member (N, 6) at t_n."""
        m, ens = self.ensemble.model, self.ensemble
        if self._momenta is None:
            D = fem.functionspace(m.mesh, ("DG", 0, (6,)))
            v = ufl.TestFunction(D)
            phi, d = split_q(ufl.split(m.w0)[0])
            vphi, vd = split_q(m.v0)
            p = m.rhoA * vphi
            J = ufl.cross(phi, p) + m.M11 * ufl.cross(d[0], vd[0]) \
                + m.M22 * ufl.cross(d[1], vd[1])
            form = fem.form(sum(p[i] * v[i] + J[i] * v[3 + i] for i in range(3)) * m.ctx.dx)
            mid = D.tabulate_dof_coordinates()[:, 0]
            self._momenta = (form, ens.structure.locate(mid)[0])
        form, member = self._momenta
        per_cell = fem.assemble_vector(form).array.reshape(-1, 6)
        return np.stack([np.bincount(member, weights=per_cell[:, j], minlength=ens.size)
                         for j in range(6)], axis=1)

    def _record(self, newton_its: int) -> None:
        H = self.ensemble.energies()
        PJ = self.momenta()
        tips = self.ensemble.tips()
        for k, rows in enumerate(self.rows):
            rows.append({"t": self.integ.t, "H": float(H[k]),
                         **{f"p_{i + 1}": float(PJ[k, i]) for i in range(3)},
                         **{f"J_{i + 1}": float(PJ[k, 3 + i]) for i in range(3)},
                         **{f"tip_{i + 1}": float(tips[k, i]) for i in range(3)},
                         "newton_its": newton_its})

    def run(self, t_end: float) -> None:
        """Record t = 0, step to ``t_end`` [s] recording every step, write the CSVs.

        Raises
        ------
        Interrupted
            SIGINT/SIGTERM, at the end of the step then under way (rows and CSVs kept).
        ConvergenceError
            A step of the joint Newton solve failed (rows and CSVs up to the last step).
        """
        progress = Progress(t_end, self.ensemble.model.comm, quiet=self.quiet)
        with caught_signals() as stop:

            def step_done(integ, res) -> None:
                self._record(res.newton_its)
                progress.update(integ.t, res.h, res.newton_its)
                if stop["signal"]:
                    raise Interrupted(stop["signal"], integ.t)

            try:
                self._record(0)
                self.integ.advance_to(t_end, step_done)
            finally:
                progress.close()
                self._write()

    def _write(self) -> None:
        if self.ensemble.model.comm.rank != 0:
            return
        for out, rows in zip(self.outs, self.rows, strict=True):
            if out is None:
                continue
            with CSVWriter(Path(out) / f"{self.name}.csv", list(COLUMNS), units=COLUMNS,
                           meanings=MEANINGS) as w:
                for r in rows:
                    w.write(r)

    def files(self, k: int) -> list[Path]:
        """The files member ``k`` wrote (rank 0)."""
        out = self.outs[k]
        if out is None or self.ensemble.model.comm.rank != 0:
            return []
        return [Path(out) / f"{self.name}.csv"]

    def summary(self, k: int) -> dict[str, float]:
        """Member ``k``'s last row (without ``newton_its``) and ``steps``."""
        last = {c: float(v) for c, v in self.rows[k][-1].items() if c != "newton_its"}
        return last | {"steps": self.integ.step_count}
