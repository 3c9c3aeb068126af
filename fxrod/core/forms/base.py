"""What every term of the midpoint step (42) sees: the :class:`Context` (UFL states at
``t_n``, ``t_{n+1}``, the midpoint and the evaluation state), the :class:`Fields` of one
owner, and the :class:`Extension` interface through which extra physics enters the residual
and the energy ledger.

This module sits below the model (:mod:`fxrod.core.model`): the model imports it, never the
other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.kinematics import split_q


def members(rod) -> list[tuple[float, object]]:
    """The members of a rod or a :class:`fxrod.core.structure.Structure`: ``(o_k, rod_k)`` with
    the mesh coordinate ``o_k`` [m] of member k's arc length ``s = 0`` (its mesh coordinate
    is ``o_k + s``); a single rod is the one member ``(0, rod)``."""
    rods = getattr(rod, "rods", None)
    if rods is None:
        return [(0.0, rod)]
    return [(float(o), r) for o, r in zip(rod.offsets, rods, strict=True)]


@dataclass(frozen=True)
class Fields:
    """The UFL pieces of one owner's named unknown fields.

    Attributes
    ----------
    new : mapping of str to UFL expression
        The fields at ``t_{n+1}`` (the step unknowns).
    old : mapping of str to UFL expression
        The fields at ``t_n``.
    test : mapping of str to UFL test function
        Their test functions.
    """

    new: Mapping[str, object]
    old: Mapping[str, object]
    test: Mapping[str, object]


class Extension:
    """Interface of a physics extension (viscoelastic branches, actuators, ...).

    Every method has a neutral default, so an extension implements only what it needs. The
    model calls them in this order: :meth:`bind` (validation against the rod, before any form
    is built), :meth:`fields` and :meth:`compliance` (to build the mixed space and the
    stress compliance), :meth:`setup` (with its own named fields), then the form methods;
    :meth:`update` before every step. An extension object belongs to one model.

    Attributes
    ----------
    name : str
        Unique name within a model; prefixes the extension's field names
        (``"<name>.<field>"``, see :meth:`fxrod.core.model.RodModel.field_dofs`).
    """

    name: str = "extension"
    #: Whether the extension adds rows and blocks outside UFL to every system of the model
    #: (``add_residual(b, skip)``, ``add_jacobian(A, skip)``: terms coupling distant dofs,
    #: e.g. rod-rod contact); the model lists them in ``nonlocal_terms``.
    outside_ufl: bool = False
    #: Whether the extension is a dissipative port without a potential (drag, ambient
    #: damping): the linearised analyses (modes, buckling, the PH export) and the
    #: continuation refuse it in one line.
    dissipative: bool = False
    #: Whether the extension may act in a structure of several rods (it then receives the
    #: :class:`fxrod.core.structure.Structure` in :meth:`bind`).
    structures: bool = False

    def bind(self, rod) -> None:
        """Check the extension's data against the rod (raise ParameterError on misfit)."""

    def fields(self) -> dict[str, object]:
        """Extra unknown fields ``{name: basix element}`` appended to the mixed space."""
        return {}

    def compliance(self, rod_compliance: np.ndarray) -> np.ndarray | None:
        """Compliance of the model's stress field when this extension is present (e.g. the
        long-term branch of a viscoelastic model), or None to keep the rod's."""
        return None

    def setup(self, ctx: Context, fields: Fields) -> None:
        """Receive the context and the UFL pieces of the extension's own fields."""

    def momentum_stress(self, ctx: Context):
        """A 6-vector added to ``sigma_e`` in the momentum balance, or None."""
        return None

    def residual(self, ctx: Context):
        """Residual terms (already divided by h) of the extension's own fields, or terms in
        the momentum rows tested with ``ctx.dq`` (e.g. spring forces), or None."""
        return None

    def stored_energy(self, ctx: Context):
        """Energy [J] stored in the extension's fields at ``t_n`` (a scalar form), or None."""
        return None

    def kinetic_energy(self, ctx: Context):
        """Kinetic energy [J] of the extension's masses at ``t_n`` (a scalar form), or None."""
        return None

    def momentum(self, q, v):
        """Linear [kg m/s] and angular [kg m^2/s] momentum of the extension's masses at the
        state ``(q, v)``: ``(p, J, measure)`` with UFL 3-vector densities, or None."""
        return None

    def dissipation(self, ctx: Context):
        """Energy [J] dissipated in one step, ``D^n`` (a scalar form), or None."""
        return None

    def port_work(self, ctx: Context):
        """Work [J] supplied through the extension's port in one step (a scalar form), or
        None."""
        return None

    def update(self, t_eval: float, t_mid: float) -> None:
        """Update time-dependent constants before a step (times in s)."""


@dataclass
class Context:
    """UFL pieces shared by all terms of the residual.

    ``q1, sig1, lam`` are the step unknowns (``t_{n+1}``), ``q0, sig0, v0`` the state at
    ``t_n``, ``dq`` the test function of the momentum rows; ``theta`` places the evaluation
    state ``(.)_e = (.)_n + theta ((.)_{n+1} - (.)_n)`` (1/2 in dynamics). ``C`` is the
    compliance of the stress field ``sigma``.
    ``inertia`` is False for a quasi-static problem (no inertia rows, no kinetic energy).
    """

    mesh: object
    dx: ufl.Measure
    dx_nodal: ufl.Measure
    ds: ufl.Measure
    h: fem.Constant
    theta: fem.Constant
    rhoA: fem.Constant
    M11: fem.Constant
    M22: fem.Constant
    C: fem.Constant
    q1: object
    q0: object
    v0: object
    sig1: object
    sig0: object
    lam: object
    dq: object = None
    inertia: bool = True
    loads: list = field(default_factory=list)
    #: ``(mass [kg], point measure)`` of the free bodies' centre nodes (their weight)
    point_masses: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.vm = (self.q1 - self.q0) / self.h          # (42a), eliminated
        self.v1 = 2.0 * self.vm - self.v0
        self.qm = 0.5 * (self.q1 + self.q0)
        self.q_e = self.q0 + self.theta * (self.q1 - self.q0)
        self.sig_e = self.sig0 + self.theta * (self.sig1 - self.sig0)
        self.sigma_momentum = self.sig_e
        _, self.d_e = split_q(self.q_e)

    @property
    def d_eval(self):
        """Directors at the evaluation state (midpoint in dynamics)."""
        return self.d_e

    def ds_end(self, end: str, rod: int = 0) -> ufl.Measure:
        """Point measure at ``s = 0`` (tag ``2 rod + 1``) or ``s = L`` (tag ``2 rod + 2``) of
        rod ``rod`` (0 for a single rod)."""
        return self.ds(2 * rod + (1 if end == "0" else 2))
