"""Contact of free bodies' shapes with a rigid obstacle: the penalty and the regularised
Coulomb friction of :mod:`fxrod.core.forms.contact`, at points instead of along the rod.

A free body (:class:`fxrod.core.freebody.FreeBody`) touches obstacles through its shapes
(:class:`fxrod.core.freebody.ContactSphere`; ``ContactCapsule`` and ``ContactBox`` on a
plane: their end and corner spheres, fixed in the body; ``ContactCylinder`` on a plane:
its rims, below).
A sphere of radius ``r`` centred at ``x = phi + c_j d_j`` (``phi, d_j`` the body's node, its
centre of mass and directors; ``c`` the sphere's offset in them, fixed) has the gap
``g = sdf(x - u(t)) - r`` [m] and the stored energy ``V(g) = k/2 <-g>^2`` (``k`` [N/m], a
point force per metre of penetration: a body of weight W rests ``W/k`` deep). ``x`` is
linear in the node's ``q``, so the discrete gradient of the contact module
(:func:`fxrod.core.forms.contact.penalty`) gives the normal force ``f_n = p grad g`` on
the sphere's centre with ``-f_n . (x_1 - x_0) = V(g_1) - V(g_0)`` exactly: the balance of
a frictionless fixed obstacle is exact to solver tolerance, as for the rod.

Friction acts where the sphere touches, at ``-r n`` from its centre (``n`` the unit normal
of the step): the body's material point there moves by ``dx_c = dx + b_j dd_j``,
``b_j = c_j - r n . d_j`` (``d_j`` at the midpoint), and the friction force is the
obstacle contact's regularised Coulomb law (isotropic)::

    f_t = -p mu v_t / sqrt(|v_t|^2 + eps^2),   v_t the tangential part of dx_c/h,

applied there: it turns the body (a ball launched without spin starts rolling). Its
virtual work and its power use the same ``b_j``, so the step dissipates exactly
``D = h p mu |v_t|^2 / sqrt(|v_t|^2 + eps^2) >= 0``, booked in the ledger like the rod's.
The midpoint directors are shorter than unit by ``cos(theta/2)`` (theta the rotation
of the step), so the lever of the friction is ``r cos^2(theta/2)``: a relative error
``(omega h)^2/4`` of the torque at the spin rate omega. Optional normal damping
``f_d = -c <g < 0> (v . n) n`` (``c`` [N s/m]) acts on the centre, as for the rod.

A rounded cylinder (:class:`fxrod.core.freebody.ContactCylinder`, on a
:class:`fxrod.core.obstacles.HalfSpace` of normal ``n``) touches by the lowest point of
each rim circle (core radius ``Rc``, centre ``x_r = phi + c_j d_j``, axis ``A = a_j d_j``),
a point that moves on the body as it turns: its gap ``g = n . (x_r - p) - Rc S(|A x n|) -
rounding``, ``S(s) = (sqrt(s^2 + delta^2) - delta)/(sqrt(1 + delta^2) - delta)``
(``delta`` = :data:`RIM_REG`; ``S(s) = s`` on its side, s = 1, and standing on a face,
s = 0, within ``delta (1 - s)`` between, and smooth where ``|s|`` is not), is a function of
the body's node, and the discrete gradient is taken in ``y = (phi - u, Rc d_1, Rc d_2, Rc d_3)``
(Gonzalez): the balance stays exact. Friction and damping act at that point, with the
levers of the midpoint directors.
"""

from __future__ import annotations

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.forms.base import Extension
from fxrod.core.forms.contact import OVERLAP_TOL, penalty
from fxrod.core.freebody import ContactCylinder
from fxrod.core.kinematics import split_q
from fxrod.core.obstacles import HalfSpace, Obstacle, safe_norm
from fxrod.errors import ParameterError, check_nonnegative, check_positive

#: Regularisation of a rim's lowest point on a plane: its depth below the rim's centre is
#: ``Rc (sqrt(sin^2 theta + delta^2) - delta)/(sqrt(1 + delta^2) - delta)``, ``delta`` this
#: (theta the angle between the axis and the normal): ``Rc sin theta`` on its side and on a
#: face (exact), within ``Rc delta (1 - sin theta)`` between, smooth on a face.
RIM_REG = 1e-3


class BodyContact(Extension):
    """Penalty contact of the free bodies' shapes with a rigid obstacle, with optional
    regularised Coulomb friction (the law of :class:`fxrod.core.forms.contact.Contact`).

    Parameters
    ----------
    obstacle : fxrod.core.obstacles.Obstacle
        The obstacle (fixed or moving); a capsule or a box touches a half-space only.
    stiffness : float
        Penalty stiffness ``k`` [N/m] (point force per metre of penetration), > 0.
    friction : float
        Coulomb coefficient ``mu`` [-], >= 0. Default 0: frictionless.
    v_reg : float
        Regularisation velocity ``eps`` [m/s] of the friction law, > 0. Default 1e-4.
    damping : float
        Normal contact damping ``c`` [N s/m], >= 0. Default 0.
    name : str
        Name in the model (default ``"body_contact"``); prefixes the probe columns.
    """

    structures = True

    def __init__(self, obstacle: Obstacle, stiffness: float, friction: float = 0.0,
                 v_reg: float = 1e-4, damping: float = 0.0,
                 name: str = "body_contact") -> None:
        if not isinstance(obstacle, Obstacle):
            raise ParameterError("obstacle", obstacle, "a fxrod.core.obstacles.Obstacle")
        self.obstacle = obstacle
        self.k = check_positive("stiffness", stiffness)
        self.mu = check_nonnegative("friction", friction)
        self.v_reg = check_positive("v_reg", v_reg)
        self.damping = check_nonnegative("damping", damping)
        self.name = name
        #: the contact spheres: (carrier rod index, offset in the node's directors [m],
        #: radius [m])
        self.spheres: list[tuple[int, np.ndarray, float]] = []
        #: the cylinders' rims: (carrier rod index, rim centre and axis in the node's
        #: directors, core radius [m], rounding [m])
        self.rims: list[tuple[int, np.ndarray, np.ndarray, float, float]] = []

    def bind(self, rod) -> None:
        """The contact spheres of the structure's free bodies, their offsets in the
        directors of the bodies' nodes; refuse a model without shapes, a capsule on an
        obstacle other than a half-space and an overlap at t = 0."""
        bodies = getattr(rod, "bodies", [])
        if not any(b.shapes for b in bodies):
            raise ParameterError("BodyContact", "a model without body shapes",
                                 "free bodies with shapes (FreeBody(..., shapes=...))")
        self.spheres, self.rims = [], []
        centres = []
        for i, b in enumerate(bodies):
            k = rod.body_rod(i)
            q = rod.initial_configuration([rod.coordinate(k, "0")])[0]
            to_node = q[3:].reshape(3, 3) @ b.R          # body directors -> node directors
            for sh in b.shapes:
                if sh.plane_only and not isinstance(self.obstacle, HalfSpace):
                    raise ParameterError(f"{type(sh).__name__} of body {i}",
                                         type(self.obstacle).__name__, "a HalfSpace obstacle "
                                         "(capsules, boxes and cylinders touch planes)")
                if isinstance(sh, ContactCylinder):
                    centres.extend(self._rims(k, sh, q, to_node))
                    continue
                for off, r in sh.spheres():
                    c = to_node @ off
                    self.spheres.append((k, c, r))
                    centres.append(q[:3] + q[3:].reshape(3, 3).T @ c)
        gap = np.concatenate([self.obstacle.distance_at(np.array(centres[:len(self.spheres)]))
                              - [s[2] for s in self.spheres], centres[len(self.spheres):]]) \
            if self.spheres else np.array(centres)
        i = int(np.argmin(gap))
        if not np.isfinite(gap[i]) or gap[i] < -OVERLAP_TOL * max(1.0, rod.length):
            raise ParameterError(f"gap of contact sphere {i} at t = 0", float(gap[i]),
                                 ">= 0 (the obstacle must not overlap a body at t = 0)")

    def _rims(self, k: int, sh: ContactCylinder, q: np.ndarray, to_node: np.ndarray
              ) -> list[float]:
        """Keep the two rims of a cylinder on body node ``k`` (centre and axis in the node's
        directors, core radius, rounding); return their gaps [m] in the reference ``q``."""
        axis = to_node @ np.array([0.0, 0.0, 1.0])
        n, p = self.obstacle.normal, self.obstacle.point
        d = q[3:].reshape(3, 3)
        gaps = []
        for side in (-1.0, 1.0):
            c = to_node @ (np.asarray(sh.offset)
                           + side * (sh.half_length - sh.rounding) * np.array([0.0, 0.0, 1.0]))
            self.rims.append((k, c, axis, sh.radius - sh.rounding, sh.rounding))
            A = d.T @ axis
            s = np.sqrt(np.dot(np.cross(A, n), np.cross(A, n)) + RIM_REG ** 2)
            gaps.append(float(n @ (q[:3] + d.T @ c - p) - (sh.radius - sh.rounding)
                              * (s - RIM_REG) / (np.sqrt(1.0 + RIM_REG ** 2) - RIM_REG)
                              - sh.rounding))
        return gaps

    def setup(self, ctx, fields) -> None:
        """Per sphere: the discrete normal force on its centre, the friction force where it
        touches, the stored energy, the dissipated power and the port's displacement."""
        self._ctx = ctx
        mesh = ctx.mesh
        self._u0 = fem.Constant(mesh, np.zeros(3))
        self._u1 = fem.Constant(mesh, np.zeros(3))
        k = fem.Constant(mesh, np.float64(self.k))
        sdf = self.obstacle.distance
        endpoint = float(ctx.theta.value) == 1.0
        phi0, d0 = split_q(ctx.q0)
        phi1, d1 = split_q(ctx.q1)
        dphi, dd = split_q(ctx.dq)
        self._terms = []
        for rod, c, r in self.spheres:
            def at(phi, d, c=c):
                return phi + sum(float(c[j]) * d[j] for j in range(3))

            x0, x1 = at(phi0, d0), at(phi1, d1)
            y0, y1 = x0 - self._u0, x1 - self._u1
            g0, g1 = sdf(y0) - r, sdf(y1) - r
            pressure, grad = penalty(k, sdf, y0, y1, g0, g1, endpoint, 1e-9 * max(1.0, r))
            n = grad / safe_norm(grad)
            f_c = pressure * grad                     # on the centre
            dx_centre = dphi + sum(float(c[j]) * dd[j] for j in range(3))
            virtual, power = -ufl.dot(f_c, dx_centre), None
            if self.mu > 0.0:                         # where it touches
                b = [float(c[j]) - r * ufl.dot(n, ctx.d_e[j]) for j in range(3)]
                vc = (phi1 - phi0 + sum(b[j] * (d1[j] - d0[j]) for j in range(3))
                      - (self._u1 - self._u0)) / ctx.h
                vt = vc - ufl.dot(vc, n) * n
                speed = ufl.sqrt(ufl.dot(vt, vt) + self.v_reg ** 2)
                f_x = -pressure * self.mu * vt / speed
                power = pressure * self.mu * ufl.dot(vt, vt) / speed   # -f_t . v_t >= 0
                virtual = virtual - ufl.dot(f_x, dphi + sum(b[j] * dd[j] for j in range(3)))
                f_c = f_c + f_x                       # the force, for the port's work
            if self.damping > 0.0:
                touching = ufl.conditional(ufl.lt(g0 + g1, 0.0), 1.0, 0.0)
                vn = ufl.dot((y1 - y0) / ctx.h, n)
                f_d = -self.damping * touching * vn * n
                virtual = virtual - ufl.dot(f_d, dx_centre)
                f_c = f_c + f_d
                d_power = self.damping * touching * vn * vn
                power = d_power if power is None else power + d_power
            gap = sdf(x0 - self._u1) - r                 # the state at t_n
            self._terms.append({
                "ds": ctx.ds_end("0", rod),
                "virtual": virtual,
                "force": f_c, "power": power,
                "energy": 0.5 * k * ufl.min_value(gap, 0.0) ** 2})
        for rod, c, axis, Rc, rho in self.rims:
            self._terms.append(self._rim(ctx, k, endpoint, rod, c, axis, Rc, rho))

    def _rim(self, ctx, k, endpoint: bool, rod: int, c: np.ndarray, axis: np.ndarray,
             Rc: float, rho: float) -> dict:
        """The terms of a cylinder's rim on the plane: its gap a function of the body's
        node ``y = (phi - u, Rc d1, Rc d2, Rc d3)``, the discrete gradient in ``y``, the
        friction at the rim's lowest point (see the module notes)."""
        n = ufl.as_vector(self.obstacle.normal.tolist())
        p = ufl.as_vector(self.obstacle.point.tolist())
        phi0, d0 = split_q(ctx.q0)
        phi1, d1 = split_q(ctx.q1)
        dphi, dd = split_q(ctx.dq)

        def lowest(d):
            """The rim's centre offset and its direction to the lowest point (unnormalised)
            and the length that normalises it (regularised)."""
            A = sum(float(axis[j]) * d[j] for j in range(3))
            across = ufl.cross(A, n)
            return (sum(float(c[j]) * d[j] for j in range(3)), n - ufl.dot(n, A) * A,
                    ufl.sqrt(ufl.dot(across, across) + RIM_REG ** 2))

        scale = 1.0 / (np.sqrt(1.0 + RIM_REG ** 2) - RIM_REG)

        def gap(y):
            d = [ufl.as_vector([y[3 + 3 * j + i] for i in range(3)]) / Rc for j in range(3)]
            x, _, length = lowest(d)
            return ufl.dot(n, ufl.as_vector([y[i] for i in range(3)]) + x - p) \
                - Rc * scale * (length - RIM_REG) - rho

        def vec(phi, d, u):
            return ufl.as_vector([*(phi - u)] + [Rc * d[j][i] for j in range(3)
                                                 for i in range(3)])

        y0, y1 = vec(phi0, d0, self._u0), vec(phi1, d1, self._u1)
        g0, g1 = gap(y0), gap(y1)
        pressure, grad = penalty(k, gap, y0, y1, g0, g1, endpoint, 1e-9 * Rc)
        on_phi = ufl.as_vector([grad[i] for i in range(3)])
        virtual = -pressure * (ufl.dot(on_phi, dphi) + Rc * sum(
            ufl.dot(ufl.as_vector([grad[3 + 3 * j + i] for i in range(3)]), dd[j])
            for j in range(3)))
        f_c, power = pressure * on_phi, None
        if self.mu > 0.0 or self.damping > 0.0:          # at the rim's lowest point
            x, down, length = lowest(ctx.d_e)
            b = [ufl.dot(x - Rc * down / length - rho * n, ctx.d_e[j]) for j in range(3)]
            vc = (phi1 - phi0 + sum(b[j] * (d1[j] - d0[j]) for j in range(3))
                  - (self._u1 - self._u0)) / ctx.h
            vn = ufl.dot(vc, n)
            vt = vc - vn * n
            speed = ufl.sqrt(ufl.dot(vt, vt) + self.v_reg ** 2)
            touching = ufl.conditional(ufl.lt(g0 + g1, 0.0), 1.0, 0.0)
            f_x = -pressure * self.mu * vt / speed - self.damping * touching * vn * n
            power = pressure * self.mu * ufl.dot(vt, vt) / speed \
                + self.damping * touching * vn * vn
            virtual = virtual - ufl.dot(f_x, dphi + sum(b[j] * dd[j] for j in range(3)))
            f_c = f_c + f_x
        state = gap(vec(phi0, d0, self._u1))             # the state at t_n
        return {"ds": ctx.ds_end("0", rod), "virtual": virtual, "force": f_c,
                "power": power, "energy": 0.5 * k * ufl.min_value(state, 0.0) ** 2}

    def _sum(self, key: str, scale=1.0):
        forms = [scale * t[key] * t["ds"] for t in self._terms if t[key] is not None]
        return sum(forms[1:], forms[0]) if forms else None

    def residual(self, ctx):
        """``-(f_n . dx + f_t . dx_c)`` in the body nodes' rows (the model multiplies every
        row by h)."""
        return self._sum("virtual")

    def stored_energy(self, ctx):
        """Penalty energy ``sum k/2 <-g>^2`` [J] of the state at t_n."""
        return self._sum("energy")

    def dissipation(self, ctx):
        """Dissipation of the step by friction and damping ``D >= 0`` [J]."""
        return self._sum("power", ctx.h)

    def port_work(self, ctx):
        """Work of a moving obstacle on the bodies ``sum f . (u_{n+1} - u_n)`` [J]."""
        if not self.obstacle.moving:
            return None
        forms = [ufl.dot(t["force"], self._u1 - self._u0) * t["ds"] for t in self._terms]
        return sum(forms[1:], forms[0])

    def update(self, t_eval: float, t_mid: float) -> None:
        """Obstacle displacements at ``t_n`` and ``t_{n+1}``."""
        if not self.obstacle.moving:
            return
        h = float(self._ctx.h.value)
        self._u0.value[:] = self.obstacle.displacement(t_mid - 0.5 * h)
        self._u1.value[:] = self.obstacle.displacement(t_mid + 0.5 * h)
