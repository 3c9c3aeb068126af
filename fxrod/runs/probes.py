"""Probes: what a :class:`fxrod.runs.simulation.Simulation` records at every stored time.

A probe declares its CSV columns with their SI units (``columns``: name -> unit) and returns
their values for the current state (``__call__(sim, res)``, ``res`` the
:class:`fxrod.runs.integrators.StepResult` of the step just taken, None for the initial row).
The table of every column is ``docs/output.md``. Write your own with :class:`ColumnProbe`::

    ColumnProbe({"tension": "N"}, lambda sim, res: {"tension": f(sim.integ.t)})

Contact read-outs: :class:`ContactFieldProbe` (nodal contact forces, gaps and the
stick/slide state of a :class:`fxrod.core.forms.contact.Contact`, written as a ParaView series
beside the rod's, with the obstacle's surface) and :class:`RodContactProbe` (rod-rod
contact of a :class:`fxrod.core.forms.rodcontact.RodContact`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import ufl
from dolfinx import fem, la

from fxrod.core.diagnostics import RodMomentum
from fxrod.core.kinematics import split_q
from fxrod.core.ledger import LEDGER_COLUMNS
from fxrod.core.obstacles import Cylinder, HalfSpace, Obstacle, Sphere
from fxrod.output.paraview import (
    PVDWriter,
    cylinder_surface,
    plane_patch,
    sphere_surface,
    write_vtp,
)


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
    """The energy ledger (:class:`fxrod.core.ledger.EnergyLedger`): ``kinetic``,
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
    [kg m^2/s] and the centre of the centreline ``com_i = 1/L int phi_i ds`` [m]: the rod's
    from the nodal arrays (:class:`fxrod.core.diagnostics.RodMomentum`, made once per
    model), plus the momenta of the extensions' masses (rigid bodies: their UFL point terms,
    compiled on first use in a model that has them)."""

    columns = {**{f"p_{i}": "kg m/s" for i in (1, 2, 3)},
               **{f"J_{i}": "kg m^2/s" for i in (1, 2, 3)},
               **{f"com_{i}": "m" for i in (1, 2, 3)}}
    _names = tuple(columns)

    def __init__(self) -> None:
        self._rod: RodMomentum | None = None

    @staticmethod
    def _body_forms(m) -> dict:
        """The extensions' momenta as UFL forms by column (empty without such masses)."""
        bodies = [b for b in (e.momentum(ufl.split(m.w0)[0], m.v0) for e in m.extensions)
                  if b is not None]
        if not bodies:
            return {}
        return {f"{k}_{i + 1}": sum((b[j][i] * b[2] for b in bodies[1:]),
                                    bodies[0][j][i] * bodies[0][2])
                for j, k in enumerate("pJ") for i in range(3)}

    def __call__(self, sim, res) -> dict[str, float]:
        m = sim.model
        if self._rod is None or self._rod.model is not m:
            self._rod = RodMomentum(m)
        out = dict(zip(self._names, self._rod.values().tolist(), strict=True))
        for k, f in m.functionals("momentum_bodies", lambda: self._body_forms(m)).items():
            out[k] += f.value()
        return out


class TipProbe:
    """Centreline position at s = L, ``tip_i`` [m]."""

    columns = {f"tip_{i}": "m" for i in (1, 2, 3)}

    def __call__(self, sim, res) -> dict[str, float]:
        t1, t2, t3 = sim.model.nodes.tip().tolist()
        return {"tip_1": t1, "tip_2": t2, "tip_3": t3}


class ConstraintProbe:
    """Largest nodal orthonormality residual ``constraint_max`` [-] (theory §1.1)."""

    columns = {"constraint_max": "-"}

    def __call__(self, sim, res) -> dict[str, float]:
        return {"constraint_max": sim.model.nodes.constraint_max()}


class StrainProbe:
    """``strain_energy_displacement`` [J]: elastic energy of the displacement-based strains
    ``eps(q) - eps0`` with the full (instantaneous) stiffness of the unconstrained strains;
    equals ``strain_energy`` of an elastic rod up to the strain consistency (theory §2.3).
    The model's form (:attr:`fxrod.core.model.RodModel.strain_energy_displacement`, compiled
    with its residual), summed by :class:`fxrod.core.ledger.Functional`."""

    columns = {"strain_energy_displacement": "J"}

    def __call__(self, sim, res) -> dict[str, float]:
        m = sim.model
        (f,) = m.functionals("strain_displacement", lambda: {
            "strain_energy_displacement": m.strain_energy_displacement}).values()
        return {"strain_energy_displacement": f.value()}


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
        #: every support's six column names, in the order of its reaction's entries
        self._names = [[f"{lab}_{kind}_{i}" for kind in ("force", "moment") for i in (1, 2, 3)]
                       for lab in self.labels]

    def __call__(self, sim, res) -> dict[str, float]:
        out = {}
        for lab, names in zip(self.labels, self._names, strict=True):
            r = res.reactions[lab] if res is not None else [0.0] * 6
            out.update(zip(names, (float(r[i]) for i in range(6)), strict=True))
        return out


class ColumnProbe:
    """A probe from a function: ``ColumnProbe({"name": "unit", ...}, fn)`` with
    ``fn(sim, res) -> {"name": value, ...}``."""

    def __init__(self, columns: dict[str, str], fn: Callable) -> None:
        self.columns = dict(columns)
        self._fn = fn

    def __call__(self, sim, res) -> dict[str, float]:
        return self._fn(sim, res)


#: A contact node slides when its slip speed exceeds this many regularisation velocities
#: ``v_reg``: the regularised Coulomb law then mobilises ``1/sqrt(1 + 1/49)`` = 99 % of
#: ``mu p`` (module notes of :mod:`fxrod.core.forms.contact`); below it, it sticks (creeps).
SLIDE_FACTOR = 7.0
#: ``contact_state`` values: no contact force, sticking, sliding.
FREE, STICK, SLIDE = 0, 1, 2


@dataclass
class ContactFrame:
    """Nodal contact data of one state, P2 nodes sorted by arc length (rank 0).

    Attributes
    ----------
    s : (n,) array
        Arc length [m].
    x : (n, 3) array
        Centreline positions [m].
    force : (n, 3) array
        Nodal contact force [N] of the step ending at t (normal and friction): the contact
        line load integrated against each node's P2 shape function, so that the nodal forces
        sum to the resultant ``int f ds``.
    gap : (n,) array
        Gap ``sdf(x - u(t)) - r`` [m] at the node (negative: penetration).
    slip : (n,) array
        Tangential slip speed [m/s] relative to the obstacle over the step (load-factor
        units in statics).
    state : (n,) array of int
        :data:`FREE`, :data:`STICK` or :data:`SLIDE` (:data:`SLIDE_FACTOR`).
    """

    s: np.ndarray
    x: np.ndarray
    force: np.ndarray
    gap: np.ndarray
    slip: np.ndarray
    state: np.ndarray

    def arrows(self) -> tuple[np.ndarray, np.ndarray]:
        """``(points [m], forces [N])`` of the nodes that carry a contact force."""
        on = self.state != FREE
        return self.x[on], self.force[on]


def obstacle_surface(obstacle: Obstacle, centre, size: float, t: float = 0.0):
    """A triangulated surface of an obstacle in its pose at time t: ``(points [m],
    triangles)``, or None for a user :class:`fxrod.core.obstacles.SignedDistance`.

    Unbounded shapes are cut to the scene: a half-space to a square of half-width ``size``
    [m] about the projection of ``centre`` [m] on its plane, an infinite cylinder to the
    length ``2 size`` about the projection of ``centre`` on its axis.
    """
    u = obstacle.displacement(t)
    c = np.asarray(centre, dtype=float) - u
    if isinstance(obstacle, HalfSpace):
        n = obstacle.normal
        pts, tris = plane_patch(c - np.dot(n, c - obstacle.point) * n, n, size)
    elif isinstance(obstacle, Sphere):
        pts, tris = sphere_surface(obstacle.centre, obstacle.radius)
    elif isinstance(obstacle, Cylinder):
        a, p = obstacle.axis, obstacle.point
        if obstacle.length is None:
            pts, tris = cylinder_surface(p + np.dot(a, c - p) * a, a, obstacle.radius,
                                         2.0 * size)
        else:
            pts, tris = cylinder_surface(p, a, obstacle.radius, obstacle.length, caps=True)
    else:
        return None
    return pts + u, tris


class ContactFieldProbe:
    """Nodal contact forces, gaps and stick/slide states of a
    :class:`fxrod.core.forms.contact.Contact` named ``c``.

    Columns: ``c_total_force_1..3`` [N], the resultant of the nodal contact forces of the
    step ending at t (normal and friction; 0 in the first row), ``c_nodes_sticking`` and
    ``c_nodes_sliding`` [-], the P2 nodes carrying a contact force that stick or slide.

    When the simulation writes ParaView frames (``paraview_every``), this probe writes
    ``DIR/<name>_c.pvd`` at the same steps: a polyline through the P2 nodes with the point
    data ``s`` [m], ``contact_force`` [N], ``gap`` [m], ``slip_speed`` [m/s] and
    ``contact_state`` (0 free, 1 stick, 2 slide); and the obstacle's surface once,
    ``DIR/<name>_c_obstacle.vtp``, or a series ``DIR/<name>_c_obstacle.pvd`` if it moves.
    The frames at the simulation's snapshot times are kept in :attr:`frames` (rank 0) for
    the pictures (:func:`fxrod.viz.snapshot_figure`), the latest in :attr:`last`.

    Parameters
    ----------
    contact : fxrod.core.forms.contact.Contact
        A contact extension of the simulated model (single rod).
    """

    def __init__(self, contact) -> None:
        self.contact = contact
        n = contact.name
        self.columns = {**{f"{n}_total_force_{i}": "N" for i in (1, 2, 3)},
                        f"{n}_nodes_sticking": "-", f"{n}_nodes_sliding": "-"}
        self.frames: dict[float, ContactFrame] = {}
        self.last: ContactFrame | None = None
        self._built = False
        self._pvd = self._obstacle_pvd = None

    def _build(self, m) -> None:
        """Forms of the nodal force (the step's force with the state at t_n taken from a
        copy of the previous state) and the nodal gap and obstacle normal."""
        c, Q = self.contact, m.space.Q
        self._prev = fem.Function(m.space.W)
        self._prev.x.array[:] = m.w0.x.array
        force = ufl.replace(c.force, {m.w0: self._prev})
        v = ufl.TestFunction(Q)
        self._force = fem.form(ufl.dot(force, split_q(v)[0]) * c.measure(m.ctx))
        self._u = fem.Constant(m.mesh, np.zeros(3))
        r = c.radius if c.radius is not None else m.rod.section.contact_radius
        rf = fem.Function(fem.functionspace(m.mesh, ("Lagrange", 2)))
        rf.interpolate(lambda x: np.broadcast_to(
            np.asarray(r(x[0]) if callable(r) else r, dtype=float), x[0].shape))
        y = ufl.variable(split_q(ufl.split(m.w0)[0])[0] - self._u)
        sdf = c.obstacle.distance(y)
        grad = ufl.diff(sdf, y)
        self._nodal = fem.Function(Q)
        self._expr = fem.Expression(ufl.as_vector([sdf - rf, grad[0], grad[1], grad[2]]
                                                  + [0.0] * 8),
                                    Q.element.interpolation_points)
        self._n_own = Q.dofmap.index_map.size_local
        self._s = Q.tabulate_dof_coordinates()[: self._n_own, 0].copy()
        self._built = True

    def _frame(self, sim, res) -> ContactFrame | None:
        """The nodal data of the state (collective); gathered to rank 0 (None elsewhere)."""
        m, c = sim.model, self.contact
        t = float(sim.integ.t)
        h = None if res is None else float(res.h)
        b = fem.assemble_vector(self._force)
        b.scatter_reverse(la.InsertMode.add)
        n_own = self._n_own
        force = b.array[: 12 * n_own].reshape(-1, 12)[:, :3]
        self._u.value[:] = c.obstacle.displacement(t)
        self._nodal.interpolate(self._expr)
        nodal = self._nodal.x.array[: 12 * n_own].reshape(-1, 12)
        gap, normal = nodal[:, 0], nodal[:, 1:4]
        normal = normal / np.maximum(np.linalg.norm(normal, axis=1), 1e-300)[:, None]
        x = m.q_nodal_local()[:n_own, :3]
        if h is None:
            slip = np.zeros(n_own)
        else:
            xp = self._prev.x.array[m.space.q_map].reshape(-1, 12)[:n_own, :3]
            du = c.obstacle.displacement(t) - c.obstacle.displacement(t - h)
            v = (x - xp - du) / h
            vt = v - np.sum(v * normal, axis=1)[:, None] * normal
            slip = np.linalg.norm(vt, axis=1)
        self._prev.x.array[:] = m.w0.x.array
        touching = np.linalg.norm(force, axis=1) > 0.0
        state = np.where(touching, np.where(slip > SLIDE_FACTOR * c.v_reg, SLIDE, STICK), FREE)
        parts = m.comm.gather((self._s, x, force, gap, slip, state), root=0)
        if m.comm.rank != 0:
            return None
        arrays = [np.concatenate([p[k] for p in parts]) for k in range(6)]
        order = np.argsort(arrays[0], kind="stable")
        return ContactFrame(*(a[order] for a in arrays))

    def _write(self, sim, frame: ContactFrame | None) -> None:
        """The ParaView frame of the state and the obstacle's surface (rank 0 writes)."""
        m, c, t = sim.model, self.contact, float(sim.integ.t)
        name = f"{sim.name}_{c.name}"
        if self._pvd is None:
            resume = float(sim.integ.t) if sim.integ.step_count > 0 else None
            self._pvd = PVDWriter(sim.out_dir, name, active=m.comm.rank == 0,
                                  resume_until=resume)
            x0 = m.rod.initial_configuration(np.linspace(0.0, m.rod.length, 33))[:, :3]
            self._scene = (x0.mean(axis=0), max(float(np.ptp(x0, axis=0).max()),
                                                0.5 * m.rod.length))
            if c.obstacle.moving:
                self._obstacle_pvd = PVDWriter(sim.out_dir, f"{name}_obstacle",
                                               active=m.comm.rank == 0, resume_until=resume)
            elif m.comm.rank == 0:
                surf = obstacle_surface(c.obstacle, *self._scene)
                if surf is not None:
                    sim._write(write_vtp, sim.out_dir / f"{name}_obstacle.vtp", surf[0], {},
                               {}, surf[1])
        if frame is None:
            return
        sim._write(self._pvd.write, t, frame.x, point_data={
            "s": frame.s, "contact_force": frame.force, "gap": frame.gap,
            "slip_speed": frame.slip, "contact_state": frame.state.astype(float)})
        if self._obstacle_pvd is not None:
            surf = obstacle_surface(c.obstacle, *self._scene, t=t)
            if surf is not None:
                sim._write(self._obstacle_pvd.write, t, surf[0], polys=surf[1])

    def __call__(self, sim, res) -> dict[str, float]:
        m, n = sim.model, self.contact.name
        if not self._built:
            self._build(m)
        frame = self._frame(sim, res)
        t, h = float(sim.integ.t), sim.integ.h
        if frame is not None:
            self.last = frame
            if any(abs(t - ts) <= 0.5 * h * (1 + 1e-9) for ts in sim.snapshot_times):
                self.frames[t] = frame
        if sim.pvd is not None and sim.integ.step_count % sim.paraview_every == 0:
            self._write(sim, frame)
        counts = np.zeros(5)
        if frame is not None:
            counts = np.r_[frame.force.sum(axis=0), np.sum(frame.state == STICK),
                           np.sum(frame.state == SLIDE)]
        counts = m.comm.bcast(counts, root=0) if m.comm.size > 1 else counts
        out = {f"{n}_total_force_{i + 1}": float(counts[i]) for i in range(3)}
        out[f"{n}_nodes_sticking"] = int(counts[3])
        out[f"{n}_nodes_sliding"] = int(counts[4])
        return out


class RodContactProbe:
    """Rod-rod contact (:class:`fxrod.core.forms.rodcontact.RodContact` named ``c``) at the state
    at t: ``c_min_gap`` [m], the smallest node-pair gap (empty when no node pair is closer
    than ``2 r``), ``c_force`` [N], the magnitude of the resultant contact force on rod
    ``rod``, and ``c_pairs`` [-], the node pairs in contact (gap < 0). The touching pairs of
    the last state are kept for the pictures (:meth:`arrows`, rank 0 and others alike).

    Parameters
    ----------
    contact : fxrod.core.forms.rodcontact.RodContact
        The rod-rod contact extension of the simulated model.
    rod : int
        Index of the rod whose resultant is reported.
    """

    def __init__(self, contact, rod: int = 0) -> None:
        self.contact = contact
        self.rod = int(rod)
        n = contact.name
        self.columns = {f"{n}_min_gap": "m", f"{n}_force": "N", f"{n}_pairs": "-"}
        self._arrows = (np.empty((0, 3)), np.empty((0, 3)))

    def arrows(self) -> tuple[np.ndarray, np.ndarray]:
        """``(points [m], forces [N])`` at both nodes of every touching pair of the last
        state: ``-G`` on the first node, ``+G`` on the second (equal and opposite)."""
        return self._arrows

    def __call__(self, sim, res) -> dict[str, float]:
        c, n = self.contact, self.contact.name
        xa, xb, G = c.touching()              # after the step: w = w0, the state at t
        self._arrows = (np.vstack([xa, xb]), np.vstack([-G, G]))
        out = {f"{n}_force": float(np.linalg.norm(c.force_on(self.rod))),
               f"{n}_pairs": len(G)}
        gap = c.min_gap()
        if np.isfinite(gap):
            out[f"{n}_min_gap"] = gap
        return out


def body_prefix(i: int) -> str:
    """Column prefix of free body ``i``: ``"body"`` for body 0 (``body_1..3``, the columns of
    a model with one body), ``"body<i>"`` for the others (``body1_1..3``, ...)."""
    return "body" if i == 0 else f"body{i}"


class BodyProbe:
    """Free rigid bodies (:mod:`fxrod.core.freebody`) at t, every body ``i`` of the model
    under the prefix ``b =`` :func:`body_prefix` (``body`` for body 0, ``body<i>`` else):
    its centre of mass ``b_1..3`` [m], the velocity of the centre ``b_v_1..3`` [m/s] and its
    angular momentum about the centre of mass ``b_L_1..3`` [kg m^2/s].

    The values are those of the body's node (the centre of its carrier, theory §2.7) with
    the nodal mass matrix ``M`` of its inertia (``diag(m, E)``, ``E = tr(J)/2 I - J``):
    ``L_c = sum_ab M_ab X_a x V_b - x x p`` with ``X = (phi, d1, d2, d3)``, ``V`` their
    velocities and ``p = m v`` (the angular momentum about the origin less the moment of
    the linear momentum), ``= J omega`` for ``omega = 1/2 d_k x v_dk``. The midpoint step
    conserves it exactly for a torque-free body (the rows tested with a rotation).
    Under MPI the rank that owns the body's node computes them and every rank gets them.

    Parameters
    ----------
    model : fxrod.core.model.RodModel
        A model with free bodies (``model.structure.bodies``).
    """

    def __init__(self, model) -> None:
        st = model.structure
        s = model.space.Q.tabulate_dof_coordinates()[:, 0]
        tol = 1e-12 * max(st.extent, 1.0)
        n_owned = model.space.Q.dofmap.index_map.size_local
        self._nodes, self._M = [], []
        self.columns = {}
        for i, ext in enumerate(model.free_bodies):
            x = st.coordinate(st.body_rod(i), "0")
            node = np.flatnonzero(np.abs(s[:n_owned] - x) <= tol)
            self._nodes.append(int(node[0]) if node.size else -1)     # -1: another rank's
            self._M.append(np.array(ext.M, dtype=float))
            b = body_prefix(i)
            self.columns.update({f"{b}_{k}": "m" for k in (1, 2, 3)})
            self.columns.update({f"{b}_v_{k}": "m/s" for k in (1, 2, 3)})
            self.columns.update({f"{b}_L_{k}": "kg m^2/s" for k in (1, 2, 3)})

    def state(self, model, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x [m], v [m/s], L [kg m^2/s])`` of body ``i`` at t: centre, its velocity and
        the angular momentum about it."""
        n = self._nodes[i]
        out = None
        if n >= 0:
            X = model.q_nodal_local()[n].reshape(4, 3)
            V = model.v0.x.array.reshape(-1, 12)[n].reshape(4, 3)
            M = self._M[i]
            p = M[0] @ V
            L = np.einsum("ab,aj,bk->jk", M, X, V)           # sum_ab M_ab X_a (x) V_b
            L = np.array([L[1, 2] - L[2, 1], L[2, 0] - L[0, 2], L[0, 1] - L[1, 0]])
            out = (X[0].copy(), V[0].copy(), L - np.cross(X[0], p))
        if model.comm.size == 1:
            return out
        return next(o for o in model.comm.allgather(out) if o is not None)

    def __call__(self, sim, res) -> dict[str, float]:
        out = {}
        for i in range(len(self._nodes)):
            b = body_prefix(i)
            for name, val in zip(("", "v_", "L_"), self.state(sim.model, i), strict=True):
                out.update({f"{b}_{name}{k + 1}": float(val[k]) for k in range(3)})
        return out


def default_probes(model) -> list:
    """The probes every Cosserat simulation records: the standard CSV columns, then the
    reactions of the model's supports, then the free bodies (:class:`BodyProbe`) of a model
    that has them."""
    probes = [SolverProbe(), EnergyProbe(), MomentumProbe(), TipProbe(), ConstraintProbe(),
              StrainProbe(), ReactionProbe(model)]
    if getattr(model.structure, "bodies", None):
        probes.append(BodyProbe(model))
    return probes
