"""Contact of the rod's surface with a rigid obstacle (:mod:`fxrod.core.obstacles`): a penalty
potential in the Hamiltonian, evaluated with a discrete gradient, and regularised Coulomb
friction whose dissipation is booked in the energy ledger (theory, section "Contact").

At every point of the contact quadrature the gap is the obstacle's signed distance
of the centreline minus the section radius, ``g = sdf(phi - u(t)) - r(s)`` [m], ``u`` the
obstacle's prescribed displacement. The stored energy per unit length is the quadratic
penalty ``V(g) = k/2 <-g>^2`` (``k`` [N/m^2]), so a line load ``f`` [N/m] pressed on the
obstacle penetrates by ``f/k`` in equilibrium, and a point whose kinetic plus potential
energy per unit length is ``e`` [J/m] cannot penetrate deeper than ``sqrt(2 e/k)``.

Quadrature (``quadrature``): ``"gauss"`` (default) evaluates gap, pressure and friction at
the 3 Gauss points of the main measure; ``"nodal"`` at the 3 Gauss-Lobatto points of each
element, which are the P2 nodes (``ctx.dx_nodal``, weights l/6, 2l/3, l/6): every node then
carries its own contact force, computed from its own gap. Nodal contact is what a rope
wrapped on a drum needs: the nodes of the reference lie exactly on the obstacle (zero gap,
where the P2 interpolant between them cuts the surface by ~ l^3/R^2 at the Gauss points),
and each node is pressed and slides on its own (see theory C5 for the Capstan). Both rules
keep the discrete gradient exact: its identity ``-f_n . dy = V(g_1) - V(g_0)`` holds point
by point, and the stored energy, the residual, the dissipation and the port work are all
integrated with the same rule, so the balance of a frictionless fixed obstacle is exact to
solver tolerance with either.

Discrete gradient (dynamics, midpoint evaluation). With ``y_i = phi_i - u(t_i)``,
``g_i = g(y_i)``::

    V'_bar  = (V(g_1) - V(g_0)) / (g_1 - g_0)     (V'((g_0 + g_1)/2) if g_1 = g_0)
    grad_bar g = grad g(y_m) + (g_1 - g_0 - grad g(y_m) . dy) / |dy|^2 dy    (Gonzalez 1996)

(the second with ``grad g(y_m)`` alone when ``|dy| < 1e-9 L``), so
``V'_bar grad_bar g . dy = V(g_1) - V(g_0)`` exactly and the normal line load
``f_n = -V'_bar grad_bar g`` keeps the energy balance of a frictionless fixed obstacle exact
to solver tolerance. For the quadratic penalty ``V'_bar = k (m_0 + m_1)/2 rho``, ``m =
min(g, 0)``, ``rho = (m_1 - m_0)/(g_1 - g_0) in [0, 1]``: bounded, also when the point
crosses the surface within the step. In a quasi-static model with the end-point evaluation
the exact gradient at ``t_{n+1}`` is used instead (exact equilibrium of every load step).

Friction: regularised Coulomb law on the relative sliding velocity ``v_t`` (tangential part
of ``(y_1 - y_0)/h``)::

    f_t = -p M^2 v_t / sqrt(v_t . M^2 v_t + mu_max^2 eps^2),   p = -V'_bar [N/m]

with ``M^2 = mu_l^2 P + (mu_a^2 - mu_l^2) a a^T`` (``a`` the rod's tangent ``d3`` projected
onto the contact plane, ``P`` the tangent projector): isotropic for ``mu_a = mu_l``, the
elliptic (maximum-dissipation) anisotropic Coulomb law otherwise.

Forward and backward friction (a snake's scales): with ``friction_backward`` the axial
coefficient depends on the sense of sliding along ``a``, ``mu_f`` (``friction``) forward
(``a . v_t > 0``, along ``+d3``) and ``mu_b`` backward, blended smoothly over the same
regularisation speed::

    mu_a(v_a) = (mu_f + mu_b)/2 + (mu_f - mu_b)/2 v_a/sqrt(v_a^2 + eps^2),   v_a = a . v_t,

between ``min(mu_f, mu_b)`` and ``max(mu_f, mu_b)``. ``M^2`` stays positive semidefinite
for every velocity, so the law dissipates like the symmetric one,
``-f_t . v_t = p q/sqrt(q + mu_max^2 eps^2) >= 0`` with ``q = v_t . M^2 v_t``, and this
dissipation is what the ledger books; sliding fast forward (backward) the axial friction
is ``mu_f p`` (``mu_b p``), so a rod pushed back and forth by a symmetric axial force
between ``mu_f`` and ``mu_b`` times its weight creeps forward (towards ``+d3``) when
``mu_f < mu_b``.

Why regularised: it keeps the step a smooth system for the one Newton/MUMPS solver (no
active-set or semi-smooth machinery), works unchanged in quasi-statics (the law is
homogeneous of degree 0 in the velocity, so load-factor "velocities" are fine) and its
dissipation ``D = -h f_t . v_t >= 0`` is an explicit form the ledger books, so the balance
closes exactly. The price: a sticking point creeps at ``|v_t| = eps s / sqrt(1 - s^2)``,
``s = |f_t| / (mu p) < 1``, and a sliding one feels ``mu p (1 - eps^2 / (2 |v_t|^2))``. Choose
``eps`` (``v_reg``) well below the sliding speeds of interest and above the velocity noise
of the solver tolerance; the default 1e-4 m/s is 1e-3 of a 0.1 m/s slide.

Optional normal damping ``f_d = -c <g < 0> (v . n) n`` (``c`` [N s/m^2], ``g`` the mean
gap of the step) dissipates ``D_d = h c (v . n)^2`` while in contact: a coefficient of
restitution below one, and a way to let a rod laid on an obstacle settle.

A moving obstacle does the work ``W_port = int f . (u(t_{n+1}) - u(t_n)) ds`` (booked as port
work, with ``f = f_n + f_t``). The penalty energy of a state uses the obstacle where it is at
the end of the last step: evaluate the ledger's ``H`` once before the first step
(``model.ledger.current()``; a :class:`fxrod.runs.simulation.Simulation` does it with its first
row), since ``update`` moves the obstacle before the ledger would otherwise first read it.
"""

from __future__ import annotations

from collections.abc import Callable

import basix
import numpy as np
import ufl
from dolfinx import fem
from mpi4py import MPI

from fxrod.core.forms.base import Extension, members
from fxrod.core.kinematics import split_q
from fxrod.core.obstacles import Obstacle, safe_norm
from fxrod.core.spaces import GAUSS_DEGREE, quadrature_function
from fxrod.errors import ParameterError, check_nonnegative, check_positive

#: Points closer than this to the surface at t = 0, relative to the rod length, count as
#: touching (not overlapping): a rod laid exactly on the ground is accepted.
OVERLAP_TOL = 1e-10
#: Contact quadratures: the main Gauss rule, or the P2 nodes (Gauss-Lobatto).
QUADRATURES = ("gauss", "nodal")
#: Anisotropic friction laws (:class:`Contact`'s ``friction_law``).
FRICTION_LAWS = ("elliptic", "componentwise")


def penalty(k, sdf, y0, y1, g0, g1, endpoint: bool, small: float):
    """The penalty's pressure ``-V'_bar`` and the gradient of the gap (UFL) of a point that
    moves from ``y0`` to ``y1`` (gaps ``g0``, ``g1``) past the signed distance ``sdf``,
    ``V(g) = k/2 <-g>^2``: the discrete gradient of the module notes (``small`` [m] the
    step below which its correction is left out), or the exact gradient at ``y1`` with the
    end-point evaluation (``endpoint``)."""
    if endpoint:                          # end-point evaluation (statics): exact gradient
        y = ufl.variable(y1)
        return -k * ufl.min_value(g1, 0.0), ufl.diff(sdf(y), y)
    dy = y1 - y0                          # discrete gradient (Gonzalez)
    ym = ufl.variable(0.5 * (y0 + y1))
    gm = ufl.diff(sdf(ym), ym)
    dy2 = ufl.dot(dy, dy)
    corr = (g1 - g0 - ufl.dot(gm, dy)) / ufl.conditional(ufl.gt(dy2, 0.0), dy2, 1.0)
    grad = gm + ufl.conditional(ufl.gt(dy2, small**2), corr, 0.0) * dy
    m0, m1 = ufl.min_value(g0, 0.0), ufl.min_value(g1, 0.0)
    dg = g1 - g0
    rho = ufl.conditional(ufl.ne(dg, 0.0),
                          (m1 - m0) / ufl.conditional(ufl.ne(dg, 0.0), dg, 1.0),
                          ufl.conditional(ufl.lt(g0, 0.0), 1.0, 0.0))
    return -0.5 * k * (m0 + m1) * rho, grad


class Contact(Extension):
    """Penalty contact with a rigid obstacle, with optional regularised Coulomb friction.

    Parameters
    ----------
    obstacle : fxrod.core.obstacles.Obstacle
        The obstacle (half-space, sphere, cylinder, user signed distance; fixed or moving).
    stiffness : float
        Penalty stiffness ``k`` [N/m^2] (line load per metre of penetration), > 0.
    friction : float
        Coulomb coefficient ``mu`` [-] (along the rod if ``friction_lateral`` is given),
        >= 0. Default 0: frictionless.
    friction_lateral : float, optional
        Coefficient across the rod ``mu_l`` [-], >= 0 (anisotropic friction); None: ``mu``.
    friction_backward : float, optional
        Coefficient for sliding backwards along the rod (along ``-d3``) ``mu_b`` [-], >= 0;
        ``friction`` is then the forward one (along ``+d3``). None: ``mu`` both ways.
    v_reg : float
        Regularisation velocity ``eps`` [m/s] of the friction law (load-factor units in a
        quasi-static model), > 0. Default 1e-4.
    damping : float
        Normal contact damping ``c`` [N s/m^2], >= 0. Default 0 (elastic contact).
    radius : float or callable, optional
        Section radius ``r`` [m] (or ``s -> r``) at which the surface touches; default the
        rod section's ``contact_radius`` (its ``radius`` unless given); on a structure a
        float or None (each member's section).
    name : str
        Name in the model (default ``"contact"``); prefixes the probe columns.
    quadrature : {"gauss", "nodal"}
        Points where the contact is evaluated: the main 3-point Gauss rule (default) or the
        P2 nodes (Gauss-Lobatto, ``ctx.dx_nodal``); see the module notes.
    friction_law : {"elliptic", "componentwise"}
        Anisotropic law: the elliptic (maximum-dissipation) one (default, see the module
        notes) or the componentwise one of snake models (Hu et al. 2009, PNAS; Gazzola et
        al. 2018 and PyElastica), ``f_t = -p (mu_a (a . u) a + mu_l (u - (a . u) a))`` with
        ``u = v_t/sqrt(|v_t|^2 + eps^2)``: each direction's coefficient times the component
        of the unit sliding direction. The two agree along and across the rod and for
        ``mu_a = mu_l``.
    """

    structures = True

    def __init__(self, obstacle: Obstacle, stiffness: float, friction: float = 0.0,
                 friction_lateral: float | None = None, v_reg: float = 1e-4,
                 damping: float = 0.0, radius: float | Callable | None = None,
                 name: str = "contact", quadrature: str = "gauss",
                 friction_backward: float | None = None,
                 friction_law: str = "elliptic") -> None:
        if not isinstance(obstacle, Obstacle):
            raise ParameterError("obstacle", obstacle, "a fxrod.core.obstacles.Obstacle")
        self.obstacle = obstacle
        self.k = check_positive("stiffness", stiffness)
        self.mu_a = check_nonnegative("friction", friction)
        self.mu_l = self.mu_a if friction_lateral is None else \
            check_nonnegative("friction_lateral", friction_lateral)
        self.mu_b = self.mu_a if friction_backward is None else \
            check_nonnegative("friction_backward", friction_backward)
        self.v_reg = check_positive("v_reg", v_reg)
        if friction_law not in FRICTION_LAWS:
            raise ParameterError("friction_law", friction_law,
                                 " or ".join(map(repr, FRICTION_LAWS)))
        self.friction_law = friction_law
        self.damping = check_nonnegative("damping", damping)
        if radius is not None and not callable(radius):
            check_nonnegative("radius", radius)
        self.radius = radius
        self.name = name
        if quadrature not in QUADRATURES:
            raise ParameterError("quadrature", quadrature, " or ".join(map(repr, QUADRATURES)))
        self.quadrature = quadrature
        self._r: Callable | None = None

    @property
    def points(self) -> np.ndarray:
        """Reference points (in [0, 1]) of the contact quadrature on an element, (n, 1)."""
        if self.quadrature == "nodal":
            return basix.make_quadrature(basix.CellType.interval, 3,
                                         rule=basix.QuadratureType.gll)[0]
        return basix.make_quadrature(basix.CellType.interval, GAUSS_DEGREE)[0]

    def measure(self, ctx) -> ufl.Measure:
        """The measure of the contact terms: ``ctx.dx`` or ``ctx.dx_nodal``."""
        return ctx.dx_nodal if self.quadrature == "nodal" else ctx.dx

    # ------------------------------------------------------------------ checks
    def bind(self, rod) -> None:
        """Take the radius from the rod's section (its ``contact_radius``; on a structure
        each member's own); refuse an obstacle that overlaps the rod at t = 0 or a signed
        distance that is not finite there (checked at the contact quadrature points of the
        reference)."""
        mem = members(rod)
        if len(mem) > 1 and callable(self.radius):
            raise ParameterError("contact radius", "a callable of s",
                                 "a float on a structure of several rods (or none: each "
                                 "member's section gives its own)")
        radii = []
        for k, (_, member) in enumerate(mem):
            r = member.section.contact_radius if self.radius is None else self.radius
            if r is None:
                raise ParameterError("contact radius" + (f" of rod {k}" if len(mem) > 1 else ""),
                                     None, "given, or a section with a radius "
                                     "(Section.circular)")
            radii.append(r if callable(r) else
                         (lambda s, r=float(r): np.full(np.shape(s), r)))
        self._r = radii[0] if len(mem) == 1 else self._members_radius(rod.locate, radii)
        self.length = rod.length
        x = np.concatenate([o + (np.linspace(0.0, m.length, m.n_elements + 1)[:-1, None]
                                 + m.length / m.n_elements * self.points[:, 0][None, :])
                            .reshape(-1) for o, m in mem])
        radius = np.asarray(self._r(x), dtype=float)
        if radius.shape != x.shape or not np.all(np.isfinite(radius)) or np.any(radius < 0):
            raise ParameterError("contact radius", radius, "finite values >= 0 along the rod")
        gap = self.obstacle.distance_at(rod.initial_configuration(x)[:, :3]) - radius

        def where(i: int) -> str:
            if len(mem) == 1:
                return f"s = {x[i]:.6g}"
            k, s = rod.locate(x[i])
            return f"rod {int(k)}, s = {float(s):.6g}"

        bad = np.flatnonzero(~np.isfinite(gap))
        if bad.size:
            raise ParameterError(f"signed distance at {where(bad[0])}", float(gap[bad[0]]),
                                 "finite along the rod at t = 0")
        i = int(np.argmin(gap))
        if gap[i] < -OVERLAP_TOL * rod.length:
            raise ParameterError(f"gap at {where(i)} at t = 0", float(gap[i]),
                                 ">= 0 (the obstacle must not overlap the rod at t = 0)")

    @staticmethod
    def _members_radius(locate: Callable, radii: list[Callable]) -> Callable:
        """The radius [m] at mesh coordinates x of a structure: member k's at its arc length
        (``locate``: x -> (k, s))."""
        def radius(x):
            k, s = locate(np.asarray(x, dtype=float))
            out = np.empty(np.shape(s))
            for i, r in enumerate(radii):
                on = k == i
                if on.any():
                    out[on] = r(s[on])
            return out
        return radius

    # ------------------------------------------------------------------ forms
    def setup(self, ctx, fields) -> None:
        """Constants, the gaps at t_n and t_{n+1}, the discrete normal line load and the
        friction line load."""
        self._ctx = ctx
        mesh = ctx.mesh
        c = lambda v: fem.Constant(mesh, np.asarray(v, dtype=np.float64))  # noqa: E731
        self._u0, self._u1 = c(np.zeros(3)), c(np.zeros(3))
        self._k = c(self.k)
        self._dx = self.measure(ctx)
        r = self._radius(mesh)
        sdf = self.obstacle.distance
        phi0, _ = split_q(ctx.q0)
        phi1, _ = split_q(ctx.q1)
        y0, y1 = phi0 - self._u0, phi1 - self._u1
        g0, g1 = sdf(y0) - r, sdf(y1) - r
        dy = y1 - y0
        pressure, grad = penalty(self._k, sdf, y0, y1, g0, g1,
                                 float(ctx.theta.value) == 1.0, 1e-9 * self.length)
        self.f_n = pressure * grad                       # normal line load [N/m]
        n = grad / safe_norm(grad)
        v = dy / ctx.h
        self.f_t = self._friction(ctx, pressure, n, v)
        self._diss_power = self._slip_power
        if self.damping > 0.0:
            touching = ufl.conditional(ufl.lt(g0 + g1, 0.0), 1.0, 0.0)
            vn = ufl.dot(v, n)
            f_d = -self.damping * touching * vn * n
            self.f_n = self.f_n + f_d
            d_power = self.damping * touching * vn * vn     # -f_d . v >= 0 [W/m]
            self._diss_power = d_power if self._diss_power is None else \
                self._diss_power + d_power
        # read-outs at the state t_n (the obstacle at u1 once the step is accepted)
        yn = ufl.variable(phi0 - self._u1)
        self.gap_state = sdf(yn) - r
        self.pressure_state = -self._k * ufl.min_value(self.gap_state, 0.0)
        self.f_state = self.pressure_state * ufl.diff(sdf(yn), yn)

    def _radius(self, mesh) -> fem.Function:
        """The section radius [m] exact at the contact points: at the Gauss points, or
        interpolated in P2 (exact at the nodes) for nodal contact."""
        if self.quadrature == "gauss":
            return quadrature_function(mesh, self._r)
        r = fem.Function(fem.functionspace(mesh, ("Lagrange", 2)))
        r.interpolate(lambda x: np.asarray(self._r(x[0]), dtype=float))
        return r

    def _friction(self, ctx, pressure, n, v):
        """Regularised (an)isotropic Coulomb line load [N/m] for the relative velocity v
        and the contact normal n, or None without friction (then ``_slip_power`` is None)."""
        self._slip_power = None
        if self.mu_a == 0.0 and self.mu_l == 0.0 and self.mu_b == 0.0:
            return None
        vt = v - ufl.dot(v, n) * n
        a = ctx.d_e[2] - ufl.dot(ctx.d_e[2], n) * n
        a = a / safe_norm(a)
        va = ufl.dot(a, vt)
        mua, mul2 = max(self.mu_a, self.mu_b), self.mu_l ** 2
        eps2 = max(mua ** 2, mul2) * self.v_reg ** 2
        if self.mu_b != self.mu_a:        # forward mu_f = mu_a, backward mu_b
            mean, half = 0.5 * (self.mu_a + self.mu_b), 0.5 * (self.mu_a - self.mu_b)
            mua = mean + half * va / ufl.sqrt(va * va + self.v_reg ** 2)
        mua2 = mua ** 2
        if self.friction_law == "componentwise":    # mu_a u_a a + mu_l u_l, u = v_t/|v_t|
            Mv = self.mu_l * vt + (mua - self.mu_l) * va * a
            speed = ufl.sqrt(ufl.dot(vt, vt) + self.v_reg ** 2)
            self._slip_power = pressure * ufl.dot(vt, Mv) / speed       # >= 0 [W/m]
            return -pressure * Mv / speed
        M2v = mul2 * vt + (mua2 - mul2) * va * a
        q2 = ufl.dot(vt, M2v)
        self._slip_power = pressure * q2 / ufl.sqrt(q2 + eps2)     # -f_t . v_t >= 0 [W/m]
        return -pressure * M2v / ufl.sqrt(q2 + eps2)

    @property
    def force(self):
        """Contact line load ``f = f_n + f_t`` [N/m] of the step (UFL)."""
        return self.f_n if self.f_t is None else self.f_n + self.f_t

    def residual(self, ctx):
        """``-f . dphi`` in the momentum rows (the model multiplies every row by h)."""
        dphi, _ = split_q(ctx.dq)
        return -ufl.dot(self.force, dphi) * self._dx

    def stored_energy(self, ctx):
        """Penalty energy ``int k/2 <-g>^2 ds`` [J] of the state at t_n."""
        m = ufl.min_value(self.gap_state, 0.0)
        return 0.5 * self._k * m * m * self._dx

    def dissipation(self, ctx):
        """Dissipation of the step by friction and damping ``D = -h int (f_t + f_d) . v ds
        >= 0`` [J]."""
        if self._diss_power is None:
            return None
        return ctx.h * self._diss_power * self._dx

    def port_work(self, ctx):
        """Work of a moving obstacle on the rod ``int f . (u_{n+1} - u_n) ds`` [J]."""
        if not self.obstacle.moving:
            return None
        return ufl.dot(self.force, self._u1 - self._u0) * self._dx

    def update(self, t_eval: float, t_mid: float) -> None:
        """Obstacle displacements at ``t_n`` and ``t_{n+1}`` (from the midpoint time and
        the step size)."""
        if not self.obstacle.moving:
            return
        h = float(self._ctx.h.value)
        self._u0.value[:] = self.obstacle.displacement(t_mid - 0.5 * h)
        self._u1.value[:] = self.obstacle.displacement(t_mid + 0.5 * h)

    def probe(self) -> ContactProbe:
        """A probe of this contact's CSV columns (see :class:`ContactProbe`)."""
        return ContactProbe(self)


class ContactProbe:
    """CSV columns of a :class:`Contact` named ``c`` at the state at t: ``c_normal_force``
    [N] (``int p ds``, the penalty line pressure integrated), ``c_force_1..3`` [N] (the
    normal contact force on the rod), ``c_gap_min`` [m] (smallest gap at the contact
    quadrature points; negative: penetration) and ``c_contact_length`` [m] (length in contact)."""

    def __init__(self, contact: Contact) -> None:
        self.contact = contact
        n = contact.name
        self.columns = {f"{n}_normal_force": "N", **{f"{n}_force_{i}": "N" for i in (1, 2, 3)},
                        f"{n}_gap_min": "m", f"{n}_contact_length": "m"}
        self._forms = None

    def __call__(self, sim, res) -> dict[str, float]:
        c, m, n = self.contact, sim.model, self.contact.name
        dx = c.measure(m.ctx)
        if self._forms is None:
            f = {f"{n}_normal_force": c.pressure_state * dx,
                 f"{n}_contact_length": ufl.conditional(ufl.lt(c.gap_state, 0.0), 1.0, 0.0) * dx}
            f.update({f"{n}_force_{i + 1}": c.f_state[i] * dx for i in range(3)})
            self._forms = ({k: fem.form(v) for k, v in f.items()},
                           fem.Expression(c.gap_state, c.points, comm=m.comm))
        forms, gap = self._forms
        out = {k: m.comm.allreduce(fem.assemble_scalar(v), op=MPI.SUM) for k, v in forms.items()}
        cells = np.arange(m.mesh.topology.index_map(1).size_local, dtype=np.int32)
        local = float(np.min(gap.eval(m.mesh, cells))) if cells.size else np.inf
        out[f"{n}_gap_min"] = m.comm.allreduce(local, op=MPI.MIN)
        return out
