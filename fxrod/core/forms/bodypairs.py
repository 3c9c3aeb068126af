"""Contact of free bodies' shapes with the rods and with each other: a pairwise penalty in
the Hamiltonian with a discrete gradient, and the regularised Coulomb friction of the
obstacle contact, added to the Newton system outside UFL (it couples a body's node with
rod nodes and other bodies anywhere).

A *pair* is a point and a shape. The point is a P2 node of a rod's centreline (radius
``r``, the rods' contact radius) or the centre of a :class:`fxrod.core.freebody.ContactSphere`
of a body (radius its own), ``x = phi_P + c_j d^P_j`` (``c`` its offset in the node's
directors, 0 on a rod); the shape is one of another body's shapes (sphere, capsule, rounded
box or cylinder), fixed in that body's node ``(phi, d_j)``. The point's coordinates in
the body, ``xi_j = (x - phi) . d_j``, are bilinear in the unknowns, and the gap is the
shape's signed distance there minus the point's radius, ``g = f(xi) - r`` [m] (the true
distance where the directors are orthonormal, at ``t_n`` and ``t_{n+1}``). The stored
energy is ``V(g) = k/2 <-g>^2`` (``k`` [N/m] per pair, as for the rod-rod pairs of
:mod:`fxrod.core.forms.rodcontact`: a body of weight W on one rod node rests ``W/k`` deep).

Discrete gradient (Gonzalez 1996 in the body's coordinates): with ``xi_0``, ``xi_1`` at
``t_n``, ``t_{n+1}``, ``V'_bar = (V(g_1) - V(g_0))/(g_1 - g_0)`` and::

    grad_bar f = grad f(xi_m) + (g_1 - g_0 - grad f(xi_m) . dxi)/|dxi|^2 dxi,

``V(g_1) - V(g_0) = V'_bar grad_bar f . dxi`` exactly, and since ``xi`` is bilinear,
``dxi_j = d_j,m . dw + w_m . dd_j`` exactly (``w = x - phi``, ``_m`` the midpoint). So the
generalised forces ``F = V'_bar grad_bar f_j d_j,m`` on the point (``c_j F`` on its
directors), ``-F`` on the body's centre and ``V'_bar grad_bar f_j w_m`` on its directors
do the work ``-(V(g_1) - V(g_0))``: the balance is exact to solver tolerance. They are
equal and opposite (linear momentum) and their moment about any point vanishes
(``w_m x F + sum_j d_j,m x V'_bar grad_bar f_j w_m = 0``: angular momentum), whatever the
shape. (The friction below keeps the linear momentum exactly; its two application points
agree to the midpoint directors' defect, so the angular momentum to ``O((omega h)^2)``.)

Friction acts where the pair touches, ``p = x_m - r n`` (``n`` the unit normal, the
direction of ``grad_bar f_j d_j,m``, ``P = -V'_bar |grad_bar f_j d_j,m| >= 0`` the
normal force): the point's material point there moves by ``dx_P = dphi_P + b^P_j dd^P_j``
(``b^P_j = c_j - r n . d^P_j,m``; on a rod the section's surface: the friction turns the
rod's section too), the body's by ``dx_B = dphi + b_j dd_j``, ``b_j = (p - phi_m) . d_j,m``;
with ``v = (dx_P - dx_B)/h`` and ``v_t`` its tangential part the force on the point is the
obstacle contact's law::

    f_t = -mu P v_t / sqrt(|v_t|^2 + eps^2),   -f_t on the body,

and the step dissipates exactly ``D = h mu P |v_t|^2/sqrt(|v_t|^2 + eps^2) >= 0`` (booked
by the ledger: :meth:`ShapeContact.dissipation_value`). Optional normal damping
``f_d = -c s (v . n) n`` [N s/m] acts at the same points, ``s = (<g_1> - <g_0>)/(g_1 -
g_0) in [0, 1]`` (``<g> = min(g, 0)``) the fraction of the step spent in contact
(continuous in the unknowns, so Newton meets no switch), and dissipates
``D_d = h c s (v . n)^2 >= 0``. The Jacobian blocks of a pair (24 x 24, its two nodes)
are the complex-step derivatives of its rows (exact to round-off).

Candidate pairs: the rod nodes within the shape's extent plus ``r`` of the body's centre at
``t_n`` or at the iterate (every other pair has ``g >= 0`` at both ends: no force, no
energy, no friction). Contact is at the rod's nodes: their spacing (half an element) must
stay below the size of the body's surface that touches, or a rod slips between nodes.
Between bodies a pair needs a sphere on one side (sphere-sphere, sphere-capsule,
sphere-box, sphere-cylinder); other pairs of shapes are refused. In parallel every rank
gathers all nodes and adds the rows it owns (the result of the serial run to round-off).
Dynamics only (the model refuses it in a quasi-static model); the linearised analyses
refuse it. Each change of the set of candidate pairs changes the Jacobian's pattern, and
MUMPS analyses the new pattern (:class:`fxrod.solvers.reduction.ReducedNewtonSolver`).
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI
from petsc4py import PETSc

from fxrod.core.forms.base import Extension
from fxrod.core.forms.rodcontact import owned_nodes
from fxrod.core.freebody import ContactSphere
from fxrod.errors import ParameterError, check_nonnegative, check_positive
from fxrod.solvers import pattern

#: Pairs closer than this at t = 0, relative to the shape's extent, count as touching.
OVERLAP_TOL = 1e-10
#: Step of the complex-step derivatives (relative to the unknowns' magnitudes ~ 1).
CSTEP = 1e-30


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot product of (m, 3) arrays."""
    return np.sum(a * b, axis=-1)


def _along(c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``sum_j c_j d_j`` for coefficients (m, 3) and directors (m, 3, 3) (``d[:, j]``)."""
    return np.einsum("mj,mjk->mk", c, d)


def _coords(w: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Coordinates ``w . d_j`` (m, 3) of vectors w (m, 3) in directors d (m, 3, 3)."""
    return np.einsum("mk,mjk->mj", w, d)


class _Group:
    """Pairs of points with one shape of one body: the shape in the body's frame
    (``T`` maps coordinates in the node's directors to the body's), the body's node and
    the candidate points (nodes, offsets in their directors, radii, whether on a rod)."""

    def __init__(self, shape, body: int, node: int, T: np.ndarray, points: np.ndarray,
                 offsets: np.ndarray, radii: np.ndarray, point_body: int = -1) -> None:
        self.shape, self.body, self.node, self.T = shape, body, node, T
        self.points, self.offsets, self.radii = points, offsets, radii
        #: the body whose sphere is the point (-1: rod nodes)
        self.point_body = point_body


class ShapeContact(Extension):
    """Penalty contact of the free bodies' shapes with the rods' nodes and between bodies,
    with optional regularised Coulomb friction (the law of
    :class:`fxrod.core.forms.contact.Contact`) and normal damping.

    Parameters
    ----------
    stiffness : float
        Penalty stiffness ``k`` [N/m] of one pair (point force per metre of penetration),
        > 0.
    friction : float
        Coulomb coefficient ``mu`` [-], >= 0. Default 0: frictionless.
    v_reg : float
        Regularisation velocity ``eps`` [m/s] of the friction law, > 0. Default 1e-4.
    damping : float
        Normal damping ``c`` [N s/m] of a pair in contact, >= 0. Default 0.
    radius : float, optional
        Contact radius ``r`` [m] of the rods' centrelines (a body touches a rod at ``r``
        from its nodes), >= 0; default each rod section's ``contact_radius``.
    rods : sequence of int, optional
        The rods of the structure the bodies touch (default all; ``()``: none, the bodies
        touch each other only).
    between_bodies : bool
        Whether the bodies touch each other (default True).
    name : str
        Name in the model (default ``"shape_contact"``).
    """

    structures = True
    outside_ufl = True

    def __init__(self, stiffness: float, friction: float = 0.0, v_reg: float = 1e-4,
                 damping: float = 0.0, radius: float | None = None, rods=None,
                 between_bodies: bool = True, name: str = "shape_contact") -> None:
        self.k = check_positive("stiffness", stiffness)
        self.mu = check_nonnegative("friction", friction)
        self.v_reg = check_positive("v_reg", v_reg)
        self.damping = check_nonnegative("damping", damping)
        self.radius = None if radius is None else check_nonnegative("radius", radius)
        if rods is not None and (isinstance(rods, str | bytes) or not all(
                isinstance(i, int | np.integer) for i in rods)):
            raise ParameterError("rods", rods, "a sequence of rod indices")
        self.rods = None if rods is None else [int(i) for i in rods]
        self.between_bodies = bool(between_bodies)
        self.name = name
        #: a dissipative port: friction, or damping now or after set_damping (the
        #: linearised analyses refuse it)
        self.dissipative = True
        self._D = 0.0
        #: the pairs already in the pattern of a serial matrix (by its handle)
        self._known: dict[int, set[tuple[int, int]]] = {}
        self._last: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def set_damping(self, damping: float) -> None:
        """Change the normal damping ``c`` [N s/m] (>= 0) from the next step on, e.g. to let
        a body settle on a rod, then move undamped (the ledger books each step's own)."""
        self.damping = check_nonnegative("damping", damping)

    # ------------------------------------------------------------------ checks
    def bind(self, rod) -> None:
        """Keep the structure; refuse a model without body shapes, rods that do not exist,
        a rod without a contact radius and a pair of bodies' shapes without a sphere."""
        bodies = getattr(rod, "bodies", [])
        if not any(b.shapes for b in bodies):
            raise ParameterError("ShapeContact", "a model without body shapes",
                                 "free bodies with shapes (FreeBody(..., shapes=...))")
        n = rod.n_members
        rods = list(range(n)) if self.rods is None else self.rods
        for i in rods:
            if not 0 <= i < n:
                raise ParameterError("ShapeContact rods", i, f"0 .. {n - 1} (the rods)")
        self._members = rods
        self._radii = {}
        for i in rods:
            r = rod.rods[i].section.contact_radius if self.radius is None else self.radius
            if r is None:
                raise ParameterError(f"contact radius of rod {i}", None, "given (radius=...) "
                                     "or a section with a radius (Section.circular)")
            self._radii[i] = float(r)
        if self.between_bodies:
            for a, A in enumerate(bodies):
                for b, B in enumerate(bodies[a + 1:], a + 1):
                    for sa in A.shapes:
                        for sb in B.shapes:
                            if not (isinstance(sa, ContactSphere)
                                    or isinstance(sb, ContactSphere)):
                                raise ParameterError(
                                    f"shapes of bodies {a} and {b}",
                                    f"{type(sa).__name__} and {type(sb).__name__}",
                                    "a ContactSphere on one side of a pair between bodies "
                                    "(or between_bodies=False)")
        self._st = rod

    # ------------------------------------------------------------------ layout
    def setup(self, ctx, fields) -> None:
        """Index the nodes (global numbering, owners), the bodies' centre nodes and frames,
        build the pairs' groups and refuse an overlap in the reference (t = 0)."""
        self._ctx = ctx
        self.w, self.w0, own, glob, xs = owned_nodes(ctx)
        comm = self.w.function_space.mesh.comm
        self.comm, self._local = comm, own
        self._global = np.concatenate(comm.allgather(glob)).astype(PETSc.IntType)
        self._owner = np.concatenate([np.full(n, r) for r, n in
                                      enumerate(comm.allgather(xs.size))])
        xs = np.concatenate(comm.allgather(xs))
        st = self._st
        k, _ = st.locate(xs)
        k = np.asarray(k)
        ref = st.initial_configuration(xs)
        centre, frame = [], []
        for i, b in enumerate(st.bodies):
            node = int(np.argmin(np.abs(xs - st.coordinate(st.body_rod(i), "0"))))
            centre.append(node)
            frame.append(ref[node, 3:].reshape(3, 3) @ b.R)   # to_node[k, j] = d_k . e_j
        self._centres = centre
        on_rods = np.flatnonzero(np.isin(k, self._members))
        rod_r = np.array([self._radii[int(i)] for i in k[on_rods]])
        self._groups: list[_Group] = []
        for i, b in enumerate(st.bodies):
            for sh in b.shapes:
                if on_rods.size:
                    self._groups.append(_Group(sh, i, centre[i], frame[i].T, on_rods,
                                               np.zeros((on_rods.size, 3)), rod_r))
                if not self.between_bodies:
                    continue
                for a, A in enumerate(st.bodies):
                    for sa in A.shapes:
                        if a == i or not isinstance(sa, ContactSphere) or (
                                isinstance(sh, ContactSphere) and a > i):
                            continue          # sphere-sphere pairs once
                        self._groups.append(_Group(
                            sh, i, centre[i], frame[i].T, np.array([centre[a]]),
                            (frame[a] @ np.asarray(sa.offset))[None, :],
                            np.array([sa.radius]), point_body=a))
        for grp in self._groups:
            idx = self._candidates(grp, ref)
            if idx.size:
                g = self._gaps(grp, idx, ref)
                j = int(np.argmin(g))
                if g[j] < -OVERLAP_TOL * grp.shape.extent:
                    raise ParameterError(
                        f"gap of body {grp.body}'s {type(grp.shape).__name__} at t = 0",
                        float(g[j]), ">= 0 (rods and bodies must not overlap at t = 0)")

    def _gather(self, f) -> np.ndarray:
        """All nodes' ``q = (phi, d1, d2, d3)`` of ``f`` (every rank), (n_nodes, 12)."""
        return np.concatenate(self.comm.allgather(f.x.array[self._local]))

    def _candidates(self, grp: _Group, *Xs: np.ndarray) -> np.ndarray:
        """Indices into ``grp.points`` of the points within the shape's extent (plus their
        radius, with a margin) of the body's centre in any of the states ``Xs``."""
        near = np.zeros(grp.points.size, dtype=bool)
        reach = (grp.shape.extent + np.linalg.norm(grp.offsets, axis=1) + grp.radii) * 1.01
        for X in Xs:
            x = X[grp.points, :3] + _along(grp.offsets, X[grp.points, 3:].reshape(-1, 3, 3))
            near |= np.linalg.norm(x - X[grp.node, :3], axis=1) <= reach
        return np.flatnonzero(near)

    def _gaps(self, grp: _Group, idx: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Gaps [m] of the pairs ``idx`` of ``grp`` in the state X."""
        P, B = X[grp.points[idx]], X[grp.node]
        x = P[:, :3] + _along(grp.offsets[idx], P[:, 3:].reshape(-1, 3, 3))
        xi = _coords(x - B[:3], np.broadcast_to(B[3:].reshape(3, 3), (idx.size, 3, 3)))
        return grp.shape.distance(xi @ grp.T.T)[0] - grp.radii[idx]

    # ------------------------------------------------------------------ the pair law
    def _slope(self, g0: np.ndarray, g1: np.ndarray, scale: float) -> np.ndarray:
        """Secant slope ``V'_bar`` [N] of the penalty (complex-safe in ``g1``)."""
        k = self.k
        m0 = np.where(np.real(g0) < 0.0, g0, 0.0)
        m1 = np.where(np.real(g1) < 0.0, g1, 0.0)
        dg = g1 - g0
        close = np.abs(np.real(dg)) <= 1e-12 * scale
        gm = 0.5 * (g0 + g1)
        return np.where(close, k * np.where(np.real(gm) < 0.0, gm, 0.0),
                        0.5 * k * (m1 * m1 - m0 * m0) / np.where(close, 1.0, dg))

    @staticmethod
    def _in_contact(g0: np.ndarray, g1: np.ndarray, scale: float) -> np.ndarray:
        """The fraction of the step in contact, ``(<g_1> - <g_0>)/(g_1 - g_0)`` with
        ``<g> = min(g, 0)`` (1 inside, 0 outside, continuous in ``g_1``)."""
        m0 = np.where(np.real(g0) < 0.0, g0, 0.0)
        m1 = np.where(np.real(g1) < 0.0, g1, 0.0)
        dg = g1 - g0
        close = np.abs(np.real(dg)) <= 1e-12 * scale
        return np.where(close, 1.0 * (np.real(g0) < 0.0),
                        (m1 - m0) / np.where(close, 1.0, dg))

    def _rows(self, grp: _Group, idx: np.ndarray, P0, P1, B0, B1):
        """Rows ``dV/dq`` minus the friction and damping forces of the pairs ``idx`` on
        (point node, body node), (m, 24) (complex-safe in ``P1``, ``B1``), the forces on
        the body, normal (penalty and damping) and friction, (m, 3) each, and the
        dissipation (m,) [J]."""
        h = float(self._ctx.h.value)
        c, r, T = grp.offsets[idx], grp.radii[idx], grp.T
        dP0, dP1 = P0[:, 3:].reshape(-1, 3, 3), P1[:, 3:].reshape(-1, 3, 3)
        dB0, dB1 = B0[:, 3:].reshape(-1, 3, 3), B1[:, 3:].reshape(-1, 3, 3)
        x0, x1 = P0[:, :3] + _along(c, dP0), P1[:, :3] + _along(c, dP1)
        w0, w1 = x0 - B0[:, :3], x1 - B1[:, :3]
        s0, s1 = _coords(w0, dB0) @ T.T, _coords(w1, dB1) @ T.T     # the body's coordinates
        dist = grp.shape.distance
        g0, g1 = dist(s0)[0] - r, dist(s1)[0] - r
        _, gm = dist(0.5 * (s0 + s1))
        ds = s1 - s0
        ds2 = _dot(ds, ds)
        small = (1e-9 * grp.shape.extent) ** 2
        corr = (g1 - g0 - _dot(gm, ds)) / np.where(np.real(ds2) > 0.0, ds2, 1.0)
        gbar = (gm + np.where(np.real(ds2) > small, corr, 0.0)[:, None] * ds) @ T
        slope = self._slope(g0, g1, grp.shape.extent)
        dBm, wm = 0.5 * (dB0 + dB1), 0.5 * (w0 + w1)
        grad_x = _along(gbar, dBm)                        # grad_bar g in space
        F = slope[:, None] * grad_x                       # dV/dx on the point
        on_dB = slope[:, None, None] * gbar[:, :, None] * wm[:, None, :]
        f = np.zeros_like(F)
        f_d = np.zeros_like(F)
        D = np.zeros(idx.size, dtype=F.dtype)
        bP = bB = np.zeros_like(c, dtype=F.dtype)
        if self.mu > 0.0 or self.damping > 0.0:
            length = np.sqrt(_dot(grad_x, grad_x))
            zero = np.real(length) == 0.0
            n = grad_x / np.where(zero, 1.0, length)[:, None]
            P = -slope * length                           # normal force >= 0 [N]
            dPm = 0.5 * (dP0 + dP1)
            bP = c - r[:, None] * _coords(n, dPm)
            contact = 0.5 * (x0 + x1) - r[:, None] * n
            bB = _coords(contact - 0.5 * (B0[:, :3] + B1[:, :3]), dBm)
            v = ((P1[:, :3] - P0[:, :3] + _along(bP, dP1 - dP0))
                 - (B1[:, :3] - B0[:, :3] + _along(bB, dB1 - dB0))) / h
            vn = _dot(v, n)
            if self.mu > 0.0:
                vt = v - vn[:, None] * n
                q = _dot(vt, vt)
                root = np.sqrt(q + self.v_reg ** 2)
                f = f - (self.mu * P / root)[:, None] * vt
                D = D + h * self.mu * P * q / root
            if self.damping > 0.0:
                touching = self._in_contact(g0, g1, grp.shape.extent)
                f_d = -(self.damping * touching * vn)[:, None] * n
                D = D + h * self.damping * touching * vn * vn
        f_t, f = f, f + f_d
        rows = np.concatenate([F - f, (c[:, :, None] * F[:, None, :]
                                       - bP[:, :, None] * f[:, None, :]).reshape(-1, 9),
                               -F + f, (on_dB + bB[:, :, None] * f[:, None, :]).reshape(-1, 9)],
                              axis=1)
        return rows, F - f_d, -f_t, D

    def _evaluate(self, jacobian: bool):
        """Per group with pairs: the pairs' dofs (m, 24), rows (m, 24) and, if asked,
        blocks (m, 24, 24) at the current iterate; sets the step's dissipation and the
        last forces on the bodies."""
        X0, X1 = self._gather(self.w0), self._gather(self.w)
        out, D, last = [], 0.0, []
        for grp in self._groups:
            idx = self._candidates(grp, X0, X1)
            if not idx.size:
                continue
            P0, P1 = X0[grp.points[idx]], X1[grp.points[idx]]
            B0 = np.broadcast_to(X0[grp.node], (idx.size, 12))
            B1 = np.broadcast_to(X1[grp.node], (idx.size, 12))
            rows, fn, ft, d = self._rows(grp, idx, P0, P1, B0, B1)
            D += float(np.sum(d))
            last.append((grp, fn, ft))
            K = None
            if jacobian:
                z = np.concatenate([P1, B1], axis=1).astype(complex)
                K = np.empty((idx.size, 24, 24))
                for j in range(24):
                    zj = z.copy()
                    zj[:, j] += 1j * CSTEP
                    K[:, :, j] = self._rows(grp, idx, P0, zj[:, :12], B0, zj[:, 12:])[0].imag \
                        / CSTEP
            dofs = np.concatenate([self._global[grp.points[idx]],
                                   np.broadcast_to(self._global[grp.node], (idx.size, 12))],
                                  axis=1)
            owner = np.concatenate([np.repeat(self._owner[grp.points[idx]][:, None], 12, 1),
                                    np.full((idx.size, 12), self._owner[grp.node])], axis=1)
            out.append((dofs, owner, rows, K))
        self._D, self._last = D, last
        return out

    # ------------------------------------------------------------------ hooks
    def add_residual(self, b: PETSc.Vec, skip: np.ndarray) -> None:
        """Add ``h`` times the pairs' rows (the model's residual scaling) to the owned
        entries of ``b`` (global dofs in ``skip``, Dirichlet rows, left out)."""
        h = float(self._ctx.h.value)
        for dofs, owner, rows, _ in self._evaluate(jacobian=False):
            keep = (owner == self.comm.rank) & ~np.isin(dofs, skip)
            b.setValues(dofs[keep], h * rows[keep], addv=PETSc.InsertMode.ADD_VALUES)
        b.assemble()

    def add_jacobian(self, A: PETSc.Mat, skip: np.ndarray) -> None:
        """Add the pairs' 24 x 24 blocks (times ``h``) to the owned rows of the assembled
        ``A`` (rows and columns in ``skip`` left out) and assemble it; the matrix is
        preallocated anew once new pairs appear on any rank
        (:func:`fxrod.solvers.pattern.grow`, as the rod-rod contact's)."""
        groups = self._evaluate(jacobian=True)
        if not groups:
            return
        h = float(self._ctx.h.value)
        dofs = np.concatenate([g[0] for g in groups])
        owner = np.concatenate([g[1] for g in groups])
        blocks = h * np.concatenate([g[3] for g in groups])
        out = np.isin(dofs, skip)
        cols = np.where(out, -1, dofs).astype(PETSc.IntType)
        rows = np.where(out | (owner != self.comm.rank), -1, dofs).astype(PETSc.IntType)
        known = self._known.get(A.handle, set())
        pairs = {(int(a), int(b)) for a, b in zip(dofs[:, 0], dofs[:, 12], strict=True)}
        if self.comm.allreduce(not pairs <= known, op=MPI.LOR):
            pattern.grow(A, rows, cols, blocks)
            self._known = {A.handle: known | pairs}
            return
        A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
        A.setValuesRCV(rows, cols, blocks, addv=PETSc.InsertMode.ADD_VALUES)
        A.assemble()

    def dissipation_value(self) -> float:
        """Dissipation of the step by friction and damping ``D`` [J] at the last iterate the
        solver evaluated (the converged one), the same on every rank."""
        return self._D

    def stored_energy_value(self) -> float:
        """Penalty energy ``sum k/2 <-g>^2`` [J] of the state at ``t_n`` (every rank)."""
        X = self._gather(self.w0)
        e = 0.0
        for grp in self._groups:
            idx = self._candidates(grp, X)
            if idx.size:
                e += 0.5 * self.k * float(np.sum(np.minimum(self._gaps(grp, idx, X), 0.0) ** 2))
        return e

    def min_gap(self) -> float:
        """Smallest gap [m] of the candidate pairs at ``t_n`` (``+inf`` if none)."""
        X = self._gather(self.w0)
        gaps = [self._gaps(grp, idx, X) for grp in self._groups
                if (idx := self._candidates(grp, X)).size]
        return float(min((g.min() for g in gaps), default=np.inf))

    def body_pose(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Centre [m] (3,) and directors (rows d1, d2, d3 of the body's node, (3, 3)) of
        body ``i`` at ``t_n``, on every rank."""
        q = self._gather(self.w0)[self._centres[i]]
        return q[:3].copy(), q[3:].reshape(3, 3).copy()

    def pair_forces(self) -> tuple[np.ndarray, np.ndarray]:
        """Normal (with the damping) and friction force [N] of every candidate pair at the
        last iterate (the step's average in dynamics), each (m, 3), as
        :meth:`force_on_body` sums them; a candidate pair apart has zero forces."""
        if not self._last:
            return np.zeros((0, 3)), np.zeros((0, 3))
        return (np.concatenate([np.real(fn) for _, fn, _ in self._last]),
                np.concatenate([np.real(ft) for _, _, ft in self._last]))

    def force_on_body(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Resultant contact forces [N] on body ``i`` at the last iterate (the step's
        average in dynamics): ``(normal, friction)``, the normal one with the damping,
        each (3,); a body sphere that touches another body's shape counts with the reaction."""
        normal, friction = np.zeros(3), np.zeros(3)
        for grp, fn, ft in self._last:
            if grp.body == i:
                normal += np.real(fn).sum(axis=0)
                friction += np.real(ft).sum(axis=0)
            if grp.point_body == i:
                normal -= np.real(fn).sum(axis=0)
                friction -= np.real(ft).sum(axis=0)
        return normal, friction
