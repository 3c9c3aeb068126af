"""Probes: what a :class:`fxrod.simulation.Simulation` records at every stored time.

A probe declares its CSV columns with their SI units (``columns``: name -> unit) and returns
their values for the current state (``__call__(sim, res)``, ``res`` the
:class:`fxrod.integrators.StepResult` of the step just taken, None for the initial row).
The table of every column is ``docs/output.md``. Write your own with :class:`ColumnProbe`::

    ColumnProbe({"tension": "N"}, lambda sim, res: {"tension": f(sim.integ.t)})
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import ufl
from dolfinx import fem
from mpi4py import MPI

from fxrod.kinematics import split_q
from fxrod.ledger import LEDGER_COLUMNS


class Probe(Protocol):
    """Anything with ``columns`` (name -> SI unit) and ``__call__(sim, res) -> dict``."""

    columns: dict[str, str]

    def __call__(self, sim, res) -> dict[str, float]: ...


class SolverProbe:
    """``newton_its`` [-] and the step size ``h`` [s] of the step ending at t (0 initially)."""

    columns = {"newton_its": "-", "h": "s"}

    def __call__(self, sim, res) -> dict[str, float]:
        if res is None:
            return {"newton_its": 0, "h": 0.0}
        return {"newton_its": res.newton_its, "h": res.h}


class EnergyProbe:
    """The energy ledger (:class:`fxrod.ledger.EnergyLedger`): ``kinetic``,
    ``strain_energy``, ``H`` [J] at t; cumulated ``external_work``, ``port_work``,
    ``dissipated`` [J]; ``energy_residual`` [J] of the step ending at t."""

    columns = dict(LEDGER_COLUMNS)

    def __call__(self, sim, res) -> dict[str, float]:
        ledger = sim.model.ledger
        out = ledger.current()
        out.update(ledger.totals)
        out["energy_residual"] = 0.0 if res is None else res.energy_residual
        return out


class MomentumProbe:
    """Linear momentum ``p_i`` [kg m/s], angular momentum about the origin ``J_i``
    [kg m^2/s] and the centre of the centreline ``com_i = 1/L int phi_i ds`` [m]."""

    columns = {**{f"p_{i}": "kg m/s" for i in (1, 2, 3)},
               **{f"J_{i}": "kg m^2/s" for i in (1, 2, 3)},
               **{f"com_{i}": "m" for i in (1, 2, 3)}}

    def __init__(self) -> None:
        self._forms = None

    def _compile(self, m) -> dict:
        dx = m.ctx.dx
        phi, d = split_q(ufl.split(m.w0)[0])
        vphi, vd = split_q(m.v0)
        p = m.rhoA * vphi
        J = ufl.cross(phi, m.rhoA * vphi) + m.M11 * ufl.cross(d[0], vd[0]) \
            + m.M22 * ufl.cross(d[1], vd[1])
        bodies = [b for b in (e.momentum(ufl.split(m.w0)[0], m.v0) for e in m.extensions)
                  if b is not None]
        forms = {}
        for i in range(3):
            forms[f"p_{i + 1}"] = sum((b[0][i] * b[2] for b in bodies), p[i] * dx)
            forms[f"J_{i + 1}"] = sum((b[1][i] * b[2] for b in bodies), J[i] * dx)
            forms[f"com_{i + 1}"] = phi[i] / m.rod.length * dx
        return {k: fem.form(f) for k, f in forms.items()}

    def __call__(self, sim, res) -> dict[str, float]:
        m = sim.model
        if self._forms is None:
            self._forms = self._compile(m)
        return {k: m.comm.allreduce(fem.assemble_scalar(f), op=MPI.SUM)
                for k, f in self._forms.items()}


class TipProbe:
    """Centreline position at s = L, ``tip_i`` [m]."""

    columns = {f"tip_{i}": "m" for i in (1, 2, 3)}

    def __call__(self, sim, res) -> dict[str, float]:
        tip = sim.model.nodes.tip()
        return {f"tip_{i + 1}": float(tip[i]) for i in range(3)}


class ConstraintProbe:
    """Largest nodal orthonormality residual ``constraint_max`` [-] (theory §1.1)."""

    columns = {"constraint_max": "-"}

    def __call__(self, sim, res) -> dict[str, float]:
        return {"constraint_max": sim.model.nodes.constraint_max()}


class StrainProbe:
    """``strain_energy_displacement`` [J]: elastic energy of the displacement-based strains
    ``eps(q) - eps0`` with the full (instantaneous) stiffness of the unconstrained strains;
    equals ``strain_energy`` of an elastic rod up to the strain consistency (theory §2.3)."""

    columns = {"strain_energy_displacement": "J"}

    def __init__(self) -> None:
        self._form = None

    def __call__(self, sim, res) -> dict[str, float]:
        m = sim.model
        if self._form is None:
            eps = m.strain_form()
            self._form = fem.form(0.5 * ufl.dot(eps, ufl.elem_mult(m.K, eps)) * m.ctx.dx)
        val = m.comm.allreduce(fem.assemble_scalar(self._form), op=MPI.SUM)
        return {"strain_energy_displacement": val}


class ReactionProbe:
    """Reaction force ``<support>_force_1..3`` [N] and moment ``<support>_moment_1..3``
    [N m] of every support of the model (e.g. ``clamp_0_moment_2``), averaged over the
    step ending at t (exact equilibrium values in statics); 0 in the first row."""

    def __init__(self, model) -> None:
        self.labels = [s.label for s in model.supports]
        self.columns = {}
        for lab in self.labels:
            self.columns.update({f"{lab}_force_{i}": "N" for i in (1, 2, 3)})
            self.columns.update({f"{lab}_moment_{i}": "N m" for i in (1, 2, 3)})

    def __call__(self, sim, res) -> dict[str, float]:
        out = {}
        for lab in self.labels:
            r = res.reactions[lab] if res is not None else [0.0] * 6
            out.update({f"{lab}_force_{i + 1}": float(r[i]) for i in range(3)})
            out.update({f"{lab}_moment_{i + 1}": float(r[3 + i]) for i in range(3)})
        return out


class ColumnProbe:
    """A probe from a function: ``ColumnProbe({"name": "unit", ...}, fn)`` with
    ``fn(sim, res) -> {"name": value, ...}``."""

    def __init__(self, columns: dict[str, str], fn: Callable) -> None:
        self.columns = dict(columns)
        self._fn = fn

    def __call__(self, sim, res) -> dict[str, float]:
        return self._fn(sim, res)


def default_probes(model) -> list:
    """The probes every Cosserat simulation records: the standard CSV columns, then the
    reactions of the model's supports."""
    return [SolverProbe(), EnergyProbe(), MomentumProbe(), TipProbe(), ConstraintProbe(),
            StrainProbe(), ReactionProbe(model)]
