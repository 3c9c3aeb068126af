"""Contact of free bodies' shapes with a rigid obstacle: the penalty and the regularised
Coulomb friction of :mod:`fxrod.core.forms.contact`, at points instead of along the rod.

A free body (:class:`fxrod.core.freebody.FreeBody`) touches obstacles through its shapes
(:class:`fxrod.core.freebody.ContactSphere`, ``ContactCapsule``: spheres fixed in the body).
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
"""

from __future__ import annotations

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.forms.base import Extension
from fxrod.core.forms.contact import OVERLAP_TOL, penalty
from fxrod.core.freebody import ContactCapsule
from fxrod.core.kinematics import split_q
from fxrod.core.obstacles import HalfSpace, Obstacle, safe_norm
from fxrod.errors import ParameterError, check_nonnegative, check_positive


class BodyContact(Extension):
    """Penalty contact of the free bodies' shapes with a rigid obstacle, with optional
    regularised Coulomb friction (the law of :class:`fxrod.core.forms.contact.Contact`).

    Parameters
    ----------
    obstacle : fxrod.core.obstacles.Obstacle
        The obstacle (fixed or moving); a capsule touches a half-space only.
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

    def bind(self, rod) -> None:
        """The contact spheres of the structure's free bodies, their offsets in the
        directors of the bodies' nodes; refuse a model without shapes, a capsule on an
        obstacle other than a half-space and an overlap at t = 0."""
        bodies = getattr(rod, "bodies", [])
        if not any(b.shapes for b in bodies):
            raise ParameterError("BodyContact", "a model without body shapes",
                                 "free bodies with shapes (FreeBody(..., shapes=...))")
        self.spheres = []
        centres = []
        for i, b in enumerate(bodies):
            k = rod.body_rod(i)
            q = rod.initial_configuration([rod.coordinate(k, "0")])[0]
            to_node = q[3:].reshape(3, 3) @ b.R          # body directors -> node directors
            for sh in b.shapes:
                if isinstance(sh, ContactCapsule) and not isinstance(self.obstacle, HalfSpace):
                    raise ParameterError(f"capsule of body {i}", type(self.obstacle).__name__,
                                         "a HalfSpace obstacle (capsules touch planes)")
                for off, r in sh.spheres():
                    c = to_node @ off
                    self.spheres.append((k, c, r))
                    centres.append(q[:3] + q[3:].reshape(3, 3).T @ c)
        gap = self.obstacle.distance_at(np.array(centres)) - [s[2] for s in self.spheres]
        i = int(np.argmin(gap))
        if not np.isfinite(gap[i]) or gap[i] < -OVERLAP_TOL * max(1.0, rod.length):
            raise ParameterError(f"gap of contact sphere {i} at t = 0", float(gap[i]),
                                 ">= 0 (the obstacle must not overlap a body at t = 0)")

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
