"""The energy ledger of a discrete system: stored energy, external work, port work,
dissipation and the balance residual of every step, defined and evaluated in one place.

Every entry is a UFL form built from the same pieces as the residual (the terms of
:mod:`fxrod.core.forms.elastic`, the loads' power, the extensions' hooks), so the balance is a
real check of the solved step, not an identity. For a step ``t_n -> t_{n+1}`` (theory §2.3,
eq. (44), (65)-(67))::

    H_{n+1} - H_n = W_ext^n + W_port^n + W_support^n - D^n

(``W_support`` the work of moving supports, from :meth:`fxrod.core.model.RodModel.support_response`)
and ``energy_residual = H_{n+1} - H_n - W_ext^n - W_port^n - W_support^n + D^n`` is zero to the
Newton tolerance. All energies in J (the units of the model's data).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import ufl
from dolfinx import fem
from mpi4py import MPI

from fxrod.core.forms import elastic
from fxrod.native import jit
from fxrod.native.assembly import KernelScalar


class Functional:
    """A compiled scalar form evaluated on the whole rod: through
    :class:`fxrod.native.assembly.KernelScalar` in a serial run where it applies (the FFCx kernels
    from a C loop, without DOLFINx's per-call packing), else DOLFINx's ``assemble_scalar``
    summed over the ranks.

    Parameters
    ----------
    form : dolfinx.fem.Form
        The compiled functional.
    comm : MPI communicator
        The model's communicator.
    """

    def __init__(self, form, comm) -> None:
        self.form, self.comm = form, comm
        self._fast: KernelScalar | None = None
        if comm.size == 1:
            try:
                self._fast = KernelScalar(form)
            except Exception:  # noqa: BLE001  (no C helper or layout: DOLFINx's assembly)
                self._fast = None

    def value(self) -> float:
        """The form's value at the current coefficients and constants (its units)."""
        if self._fast is not None:
            return self._fast.value()
        return self.comm.allreduce(fem.assemble_scalar(self.form), op=MPI.SUM)


#: The ledger's quantities with their units (CSV columns of the energy probe).
LEDGER_COLUMNS: dict[str, str] = {
    "kinetic": "J",
    "strain_energy": "J",
    "H": "J",
    "external_work": "J",
    "port_work": "J",
    "support_work": "J",
    "dissipated": "J",
    "energy_residual": "J",
}


def _sum_forms(forms: list):
    forms = [f for f in forms if f is not None]
    return sum(forms[1:], forms[0]) if forms else None


class EnergyLedger:
    """Energy bookkeeping of a :class:`fxrod.core.model.RodModel` (MPI-reduced).

    Attributes
    ----------
    H : float or None
        Stored energy ``H_n`` [J] of the current state (None until first evaluated).
    totals : dict of str to float
        Cumulated ``external_work``, ``port_work``, ``support_work``, ``dissipated`` [J]
        since the start.
    energy_residual : float
        Balance residual [J] of the last booked step (0 before the first step).

    Parameters
    ----------
    model : RodModel
        The system whose energy is booked.
    compile_with : sequence of ufl.Form
        Further forms compiled in the same batch as the ledger's (:func:`fxrod.native.jit.forms`;
        the model's residual and Jacobian), kept in :mod:`fxrod.native.jit`'s cache.
    meanwhile : callable, optional
        Run while the C compiler builds the forms (the fast assembly's helper).
    """

    def __init__(self, model, compile_with: Sequence[ufl.Form] = (),
                 meanwhile: Callable[[], None] | None = None) -> None:
        self.model = m = model
        ctx = m.ctx
        sig0 = ctx.sig0
        stored = [elastic.complementary_energy(ctx, sig0, m.C)]
        stored += [ext.stored_energy(ctx) for ext in m.extensions]
        kinetic = [elastic.kinetic_energy(ctx, m.v0)] if ctx.inertia else []
        kinetic += [ext.kinetic_energy(ctx) for ext in m.extensions]
        P = elastic.external_power(ctx, ctx.vm)
        work = None if P is None else m.h * P                                     # (44)
        port = _sum_forms([e.port_work(ctx) for e in m.extensions])
        diss = _sum_forms([e.dissipation(ctx) for e in m.extensions])
        # compiled in one batch with the forms ``compile_with`` (fxrod.native.jit: the C compiler
        # builds a Jacobian while the rest is generated; ``meanwhile`` runs during the build)
        (self._kinetic, self._strain, self._work, self._port, self._diss) = jit.forms(
            [_sum_forms(kinetic), _sum_forms(stored), work, port, diss, *compile_with],
            meanwhile=meanwhile)[:5]
        #: :class:`Functional` of each entry (by ``id`` of its form), made on first use
        self._functionals: dict[int, Functional] = {}
        self.reset()

    def _sum(self, form) -> float:
        """The value of ``form`` [J] on the whole rod (:class:`Functional`)."""
        if form is None:
            return 0.0
        key = id(form)
        if key not in self._functionals:
            self._functionals[key] = Functional(form, self.model.comm)
        return self._functionals[key].value()

    def reset(self) -> None:
        """Start the bookkeeping afresh at the current state."""
        self.totals = {"external_work": 0.0, "port_work": 0.0, "support_work": 0.0,
                       "dissipated": 0.0}
        self.energy_residual = 0.0
        self.invalidate()

    def invalidate(self) -> None:
        """Forget the stored energies of the current state (after changing the state other
        than by a step, e.g. :meth:`fxrod.core.model.RodModel.set_velocity`)."""
        self.H: float | None = None
        self._current: dict[str, float] | None = None

    def stored(self) -> dict[str, float]:
        """``kinetic``, ``strain_energy`` (elastic plus extensions' stored energy) and their
        sum ``H`` [J] of the state at ``t_n``."""
        kin = self._sum(self._kinetic)
        strain = self._sum(self._strain) + self._nonlocal_energy()
        return {"kinetic": kin, "strain_energy": strain, "H": kin + strain}

    def _nonlocal_energy(self) -> float:
        """Stored energy [J] of the extensions that are not UFL forms (rod-rod contact:
        ``stored_energy_value()``, the same value on every rank)."""
        return float(sum(e.stored_energy_value() for e in self.model.extensions
                         if hasattr(e, "stored_energy_value")))

    def current(self) -> dict[str, float]:
        """:meth:`stored` of the current state, evaluated once per state."""
        if self._current is None:
            self._current = self.stored()
        return dict(self._current)

    def flows(self, support_work: float = 0.0) -> dict[str, float]:
        """``external_work``, ``port_work``, ``support_work`` (given), ``dissipated`` [J] of
        the step just solved (call before the state update; also fixes ``H_n`` if not known
        yet)."""
        if self.H is None:
            self.H = self.current()["H"]
        return {"external_work": self._sum(self._work), "port_work": self._sum(self._port),
                "support_work": float(support_work),
                "dissipated": self._sum(self._diss) + self._nonlocal_dissipation()}

    def _nonlocal_dissipation(self) -> float:
        """Energy [J] dissipated in the step by the extensions that are not UFL forms
        (rod-rod friction: ``dissipation_value()``, the same value on every rank)."""
        return float(sum(e.dissipation_value() for e in self.model.extensions
                         if hasattr(e, "dissipation_value")))

    def book(self, flows: dict[str, float]) -> float:
        """Close a step after the state update: add ``flows`` to the totals, evaluate
        ``H_{n+1}`` and return the balance residual [J]."""
        self._current = self.stored()
        H_new = self._current["H"]
        self.energy_residual = (H_new - self.H - flows["external_work"] - flows["port_work"]
                                - flows["support_work"] + flows["dissipated"])
        for k, v in flows.items():
            self.totals[k] += v
        self.H = H_new
        return self.energy_residual

    def get_state(self) -> dict:
        """Bookkeeping scalars for a checkpoint."""
        return {"H": self.H, "totals": dict(self.totals),
                "energy_residual": self.energy_residual}

    def set_state(self, st: dict) -> None:
        """Restore the bookkeeping written by :meth:`get_state`."""
        self.invalidate()
        self.H = None if st["H"] is None else float(st["H"])
        self.totals = {k: float(v) for k, v in st["totals"].items()}
        self.energy_residual = float(st["energy_residual"])
