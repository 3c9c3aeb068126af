"""Drag and damping of a rod in a fluid: dissipative ports of the midpoint step (42).

Three extensions add a line load ``f`` [N/m] (and, for the ambient damping, a line moment
``m`` [N m/m]) to the momentum rows of (42b, c) (a fourth, :class:`RayleighDamping`, the
structural damping ``alpha M + beta K``, adds a viscous stress as well: see its
docstring); like every term there they are divided by h (the model multiplies the rows by
h) and tested with ``dq = (dphi, dd)``::

    (42b) + ... - (f, dphi) - (m, omega(d_e; dd)) = 0,

``omega(d; w_d) = 1/2 sum_k d_k x w_dk`` the angular velocity of director rates (theory
§1.2, eq. 14). All velocities are those of the midpoint rule (42a)::

    v_m = (phi_{n+1} - phi_n)/h,    omega_m = omega(d_m; (d_{n+1} - d_n)/h),

and every geometric quantity (the tangent t) is taken at the evaluation state ``q_e`` (the
midpoint in dynamics). Testing the momentum rows with ``v_m`` (the discrete power balance,
theory §2.3, eq. 44) books the power of each term exactly: with a background velocity
``u`` of the fluid (constant over the step) and ``w = v_m - u`` the relative velocity,

    h int f . v_m ds = h int f . w ds + h int f . u ds = -D^n + W_port^n

so the energy ledger (:mod:`fxrod.core.ledger`) closes,
``H_{n+1} - H_n = W_ext^n + W_port^n - D^n`` to the Newton tolerance, with

* ``D^n = -h int f . w ds >= 0``: the energy the drag dissipates in the step (every law here
  has ``f . w <= 0`` pointwise: it is the dissipation of a positive (semi)definite damping
  of the *relative* velocity, whatever the state);
* ``W_port^n = h int f . u ds``: the work the moving fluid does on the rod through the drag
  (a flow carrying a rod at rest supplies energy; a rod that moves with the flow receives
  none), plus the work ``h int f_b . v_m ds`` of the buoyancy of :class:`MorisonDrag`.

Statics (a quasi-static model, ``ctx.inertia`` False, and the linearised analyses of
:mod:`fxrod.analysis.modes`): there is no midpoint velocity, ``v_m`` is a load-step increment and
not
a velocity. The drag is then that of the flow alone, i.e. of the relative velocity ``-u``
(``f = C u`` for resistive-force theory, the quadratic drag of ``-u`` for Morison), a
configuration-dependent (through t) load of the load factor t; its work in a load step
``h int f . v_m ds = int f . (phi_{n+1} - phi_n) ds`` is booked as port work and nothing is
dissipated. The ambient damping has no static part.

The tangent: resistive-force theory and Morison's drag split the relative velocity into
its components along and across the rod's *centreline*, so t is the unit tangent of the
centreline at the evaluation state, ``t = phi_e'/|phi_e'|``, not the director d3 (they
differ by the shear angle of a shearable rod and coincide for a shear-rigid one). ``phi_e'``
is a polynomial with no zero on a rod that is not crushed to a point, and the projector
``t (x) t`` is invariant under a superposed rigid rotation of the rod and the flow together,
so the laws are objective. Any unit t gives a damping tensor with eigenvalues ``c_t`` and
``c_n`` (or the quadratic laws' ``|w_t|``, ``|w_n|`` factors), which is what makes
``D^n >= 0`` exact; t only has to be a function of the step's states, and Newton sees its
exact derivative (UFL).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.forms.base import Context, Extension
from fxrod.core.kinematics import angular_velocity, split_q
from fxrod.core.loads import as_time_function
from fxrod.errors import ParameterError, check_finite, check_nonnegative, check_vector

Vec3 = Sequence[float] | Callable[[float], Sequence[float]] | None

#: Regularisation speed [m/s] of ``|w|`` in the quadratic drag (default of MorisonDrag).
V_REG = 1e-9


def _nonnegative(name: str, value: float, unit: str) -> float:
    """``float(value)`` or a one-line ParameterError naming the unit."""
    try:
        return check_nonnegative(name, value)
    except ParameterError:
        raise ParameterError(name, value, f"a finite number >= 0 {unit}") from None


def _diameter(value: float) -> float:
    """The hydrodynamic diameter [m] as a float, or a one-line ParameterError."""
    d = check_finite("diameter", value)
    if d <= 0.0:
        raise ParameterError("diameter", value, "a finite number > 0 m")
    return d


def _centreline(ctx: Context):
    """``(v, t)``: the relative-velocity base ``v_m`` (zero in statics) and the unit
    tangent ``t = phi_e'/|phi_e'|`` of the centreline at the evaluation state."""
    phi_s, _ = split_q(ctx.q_e.dx(0))
    t = phi_s / ufl.sqrt(ufl.dot(phi_s, phi_s))
    if not ctx.inertia:
        return None, t
    v_m, _ = split_q(ctx.vm)                               # (42a)
    return v_m, t


class _LineDrag(Extension):
    """Shared machinery: the background velocity Constant, the residual ``-(f, dphi)``, the
    dissipation ``-h int f . w`` and the port work ``h int f . u (+ h int f_b . v_m)``."""

    _flow_fn: Callable[[float], np.ndarray] | None = None
    _flow_name = "flow"
    dissipative = True

    def setup(self, ctx: Context, fields) -> None:
        """The Constant of the background velocity ``u`` [m/s] (zero without a flow)."""
        self._u = fem.Constant(ctx.mesh, np.zeros(3))
        self._mesh = ctx.mesh
        self._extra_setup(ctx)

    def _extra_setup(self, ctx: Context) -> None:
        """Further Constants of a subclass."""

    def update(self, t_eval: float, t_mid: float) -> None:
        """The flow at the evaluation time (the midpoint time in dynamics, the load factor
        at the end of the step in statics), constant over the step."""
        if self._flow_fn is not None:
            self._u.value[:] = check_vector(self._flow_name, self._flow_fn(t_eval), 3)

    @property
    def constants(self) -> dict[str, fem.Constant]:
        """``{"u": background velocity [m/s]}`` (empty before the model is built)."""
        return {"u": self._u} if hasattr(self, "_u") else {}

    def _force(self, ctx: Context, w, t):
        """Drag line load [N/m] of the relative velocity ``w`` with tangent ``t``."""
        raise NotImplementedError

    def _relative(self, ctx: Context):
        """``(w, t, v_m)``: relative velocity ``v_m - u`` (``-u`` in statics), tangent, and
        the midpoint velocity (None in statics)."""
        v_m, t = _centreline(ctx)
        w = -self._u if v_m is None else v_m - self._u
        return w, t, v_m

    def _dead(self, ctx: Context):
        """A dead line load [N/m] (buoyancy) or None."""
        return None

    def residual(self, ctx: Context):
        """``-(f + f_b, dphi)`` in the momentum rows (divided by h like (42b))."""
        w, t, _ = self._relative(ctx)
        f = self._force(ctx, w, t)
        fb = self._dead(ctx)
        if fb is not None:
            f = f + fb
        dphi, _ = split_q(ctx.dq)
        return -ufl.dot(f, dphi) * ctx.dx

    def dissipation(self, ctx: Context):
        """``D^n = -h int f . (v_m - u) ds >= 0`` [J] (dynamics; None in statics)."""
        w, t, v_m = self._relative(ctx)
        if v_m is None:
            return None
        return -ctx.h * ufl.dot(self._force(ctx, w, t), w) * ctx.dx

    def port_work(self, ctx: Context):
        """``W_port^n = h int f . u ds + h int f_b . v_m ds`` [J]: the flow's work through
        the drag and the buoyancy's work (dynamics); in statics the work
        ``h int (f + f_b) . v_m ds`` of the flow's drag in the load step."""
        w, t, v_m = self._relative(ctx)
        f = self._force(ctx, w, t)
        fb = self._dead(ctx)
        if v_m is None:                                    # statics: v_m = dphi / h
            vm, _ = split_q(ctx.vm)
            tot = f if fb is None else f + fb
            return ctx.h * ufl.dot(tot, vm) * ctx.dx
        P = ufl.dot(f, self._u) if self._flow_fn is not None else None
        if fb is not None:
            P = ufl.dot(fb, v_m) if P is None else P + ufl.dot(fb, v_m)
        return None if P is None else ctx.h * P * ctx.dx


class ResistiveForceDrag(_LineDrag):
    """Resistive-force theory: anisotropic viscous drag per unit length (Gray & Hancock
    1955; Lauga & Powers 2009, eq. 20)::

        f = -(c_t t (x) t + c_n (I - t (x) t)) (v_m - u)    [N/m]

    with t the unit tangent of the centreline at the midpoint (module docstring), ``v_m`` the
    midpoint centreline velocity (42a) and ``u(t)`` a background flow, uniform in space.
    Dissipation ``D^n = h int (v_m - u) . C (v_m - u) ds >= 0``, the flow's port work
    ``W_port^n = h int u . f ds``. In statics the flow alone loads the rod: ``f = C u``.

    Parameters
    ----------
    c_t, c_n : float
        Tangential and normal drag coefficients [N s/m^2] (force per unit length per unit
        relative speed), >= 0. For a slender filament of radius a and length L in a fluid
        of viscosity mu, ``c_n ~ 2 c_t ~ 4 pi mu / (ln(L/a) + 1/2)`` (Lauga & Powers 2009).
    flow : 3-vector or callable ``t -> 3-vector``, optional
        Background velocity u [m/s], uniform along the rod, a function of time [s] (of the
        load factor in statics). Default none (fluid at rest).
    name : str
        Name of the extension in the model.

    Raises
    ------
    ParameterError
        A coefficient that is negative or not finite, a flow that is not a finite
        3-vector (at t = 0 here; at every step when the model evaluates it).
    """

    def __init__(self, c_t: float, c_n: float, flow: Vec3 = None,
                 name: str = "rft") -> None:
        self.c_t = _nonnegative("c_t", c_t, "N s/m^2")
        self.c_n = _nonnegative("c_n", c_n, "N s/m^2")
        self._flow_fn = as_time_function("flow", flow)
        self.flow = flow
        self.name = name

    def _extra_setup(self, ctx: Context) -> None:
        self._ct = fem.Constant(ctx.mesh, np.float64(self.c_t))
        self._cn = fem.Constant(ctx.mesh, np.float64(self.c_n))

    def _force(self, ctx: Context, w, t):
        # f = -(c_t t t^T + c_n (I - t t^T)) w
        wt = ufl.dot(t, w)
        return -(self._cn * w + (self._ct - self._cn) * wt * t)


class MorisonDrag(_LineDrag):
    """Morison's quadratic drag and buoyancy of a cylinder of diameter D in a current
    (Morison et al. 1950; the drag part of the line loads of MoorDyn and OrcaFlex)::

        f = -1/2 rho_f D C_dn |w_n| w_n - 1/2 rho_f pi D C_dt |w_t| w_t + f_b   [N/m]

    with ``w = v_m - U`` the velocity relative to the current U(t) (uniform in space),
    ``w_t = (t . w) t`` and ``w_n = w - w_t`` its components along and across the centreline
    tangent t (module docstring). The normal drag acts on the projected area per length D,
    the tangential (skin-friction) drag on the wetted perimeter ``pi D`` (MoorDyn's
    convention). ``|w|`` is regularised to ``sqrt(w . w + v_reg^2)``, which keeps the law
    differentiable at rest and dissipative: ``D^n = h int (k_n |w_n|_r |w_n|^2
    + k_t |w_t|_r |w_t|^2) ds >= 0`` with ``k_n = rho_f D C_dn / 2``,
    ``k_t = rho_f pi D C_dt / 2``; it changes the drag by a relative ``v_reg^2/(2 |w|^2)``.

    Buoyancy is the dead line load ``f_b = -rho_f A_b g`` with ``A_b = pi D^2/4`` the
    displaced area of the hydrodynamic diameter (not the section's area, which may be hollow
    or flooded); its work is booked as port work. Added mass is a separate extension,
    :class:`AddedMass` (a configuration-dependent mass, not a dissipative port): give both
    to the model; ``C_a`` here other than 0 is refused with a line that says so.

    In statics the rod is loaded by the drag of the current alone (relative velocity
    ``-U``) and the buoyancy.

    Parameters
    ----------
    rho_f : float
        Fluid density [kg/m^3], >= 0.
    diameter : float
        Hydrodynamic diameter D [m], > 0.
    C_dn : float
        Normal drag coefficient [-], >= 0 (about 1.2 for a smooth cylinder at Re ~ 1e4-1e5).
    C_dt : float
        Tangential drag coefficient [-] on the perimeter ``pi D``, >= 0. Default 0.
    current : 3-vector or callable ``t -> 3-vector``, optional
        Current U [m/s], uniform along the rod, a function of time [s] (of the load factor
        in statics). Default none (still water).
    buoyancy : bool
        Apply the buoyancy ``-rho_f A_b g``. Default True.
    g : 3-vector or callable ``t -> 3-vector``
        Acceleration of gravity [m/s^2] (the same as the model's Gravity load), default
        ``(0, 0, -9.81)``.
    C_a : float
        Must be 0: the added mass is :class:`AddedMass`, beside this extension.
    v_reg : float
        Regularisation speed [m/s] of ``|w|``, > 0. Default 1e-9 m/s.
    name : str
        Name of the extension in the model.

    Raises
    ------
    ParameterError
        A negative or non-finite coefficient or density, a non-positive diameter or
        ``v_reg``, ``C_a != 0``, a current or g that is not a finite 3-vector.
    """

    def __init__(self, rho_f: float, diameter: float, C_dn: float, C_dt: float = 0.0,
                 current: Vec3 = None, buoyancy: bool = True,
                 g: Vec3 = (0.0, 0.0, -9.81), C_a: float = 0.0, v_reg: float = V_REG,
                 name: str = "morison") -> None:
        self.rho_f = _nonnegative("rho_f", rho_f, "kg/m^3")
        self.diameter = _diameter(diameter)
        self.C_dn = _nonnegative("C_dn", C_dn, "(dimensionless)")
        self.C_dt = _nonnegative("C_dt", C_dt, "(dimensionless)")
        if check_finite("C_a", C_a) != 0.0:
            raise ParameterError("C_a", C_a, "0 in MorisonDrag (add AddedMass(rho_f, "
                                 "diameter, C_a) to the model beside it)")
        self.v_reg = check_finite("v_reg", v_reg)
        if self.v_reg <= 0.0:
            raise ParameterError("v_reg", v_reg, "a finite speed > 0 m/s")
        if not isinstance(buoyancy, bool | np.bool_):
            raise ParameterError("buoyancy", buoyancy, "True or False")
        self.buoyancy = bool(buoyancy)
        self._flow_fn, self._flow_name = as_time_function("current", current), "current"
        self._g_fn = as_time_function("g", g)
        if self._g_fn is None:
            raise ParameterError("g", g, "a finite 3-vector or a callable t -> 3-vector")
        self.current = current
        self.g = g
        self.name = name

    @property
    def area(self) -> float:
        """Displaced area per unit length ``A_b = pi D^2/4`` [m^2] of the buoyancy."""
        return math.pi * self.diameter ** 2 / 4.0

    def _extra_setup(self, ctx: Context) -> None:
        c = lambda v: fem.Constant(ctx.mesh, np.float64(v))  # noqa: E731
        self._kn = c(0.5 * self.rho_f * self.diameter * self.C_dn)
        self._kt = c(0.5 * self.rho_f * math.pi * self.diameter * self.C_dt)
        self._vr2 = c(self.v_reg ** 2)
        self._rhoAb = c(self.rho_f * self.area)
        self._g = fem.Constant(ctx.mesh, np.asarray(self._g_fn(0.0), dtype=float))

    def update(self, t_eval: float, t_mid: float) -> None:
        """Current and g at the evaluation time."""
        super().update(t_eval, t_mid)
        self._g.value[:] = check_vector("g", self._g_fn(t_eval), 3)

    def _force(self, ctx: Context, w, t):
        # f = -k_n |w_n|_r w_n - k_t |w_t|_r w_t,  |x|_r = sqrt(x.x + v_reg^2)
        wt = ufl.dot(t, w) * t
        wn = w - wt
        mag = lambda x: ufl.sqrt(ufl.dot(x, x) + self._vr2)  # noqa: E731
        return -(self._kn * mag(wn) * wn + self._kt * mag(wt) * wt)

    def _dead(self, ctx: Context):
        """Buoyancy ``f_b = -rho_f A_b g`` [N/m] (None when switched off)."""
        return -self._rhoAb * self._g if self.buoyancy else None


class AmbientDamping(Extension):
    """Linear damping of the rod's motion relative to a medium at rest::

        f = -c_v v_m    [N/m],    m = -c_omega omega_m    [N m/m]

    on the midpoint centreline velocity ``v_m`` (42a) and the midpoint angular velocity
    ``omega_m = 1/2 sum_k d_k,m x v_dk,m`` (theory §1.2, eq. 14, at the midpoint directors,
    the evaluation state of (42)). The moment enters the director rows through its power
    ``m . omega(d_m; dd)``, like a distributed moment (:mod:`fxrod.core.loads`). ``omega`` is the
    spatial angular velocity, independent of the choice of the directors, and the law is
    isotropic, so it does not depend on the body frame; it damps rigid rotations (about any
    axis) and no strain rate. Dissipation::

        D^n = h int (c_v |v_m|^2 + c_omega |omega_m|^2) ds >= 0.

    No port work; no static part (no velocity in statics).

    Parameters
    ----------
    c_v : float
        Damping of the centreline velocity [N s/m^2] (force per length per speed), >= 0.
    c_omega : float
        Damping of the angular velocity [N s] (moment per length per rad/s), >= 0.
        Default 0.
    name : str
        Name of the extension in the model.

    Raises
    ------
    ParameterError
        A coefficient that is negative or not finite.
    """

    dissipative = True

    def __init__(self, c_v: float, c_omega: float = 0.0, name: str = "damping") -> None:
        self.c_v = _nonnegative("c_v", c_v, "N s/m^2")
        self.c_omega = _nonnegative("c_omega", c_omega, "N s")
        self.name = name

    def setup(self, ctx: Context, fields) -> None:
        """The coefficients as Constants."""
        self._cv = fem.Constant(ctx.mesh, np.float64(self.c_v))
        self._cw = fem.Constant(ctx.mesh, np.float64(self.c_omega))

    @staticmethod
    def _rates(ctx: Context):
        """``(v_m, omega_m, d_e)`` of the step (42a)."""
        v_m, vd_m = split_q(ctx.vm)
        return v_m, angular_velocity(ctx.d_e, vd_m), ctx.d_e

    def residual(self, ctx: Context):
        """``(c_v v_m, dphi) + (c_omega omega_m, omega(d_e; dd))`` (None in statics)."""
        if not ctx.inertia:
            return None
        v_m, w_m, d_e = self._rates(ctx)
        dphi, dd = split_q(ctx.dq)
        return (self._cv * ufl.dot(v_m, dphi)
                + self._cw * ufl.dot(w_m, angular_velocity(d_e, dd))) * ctx.dx

    def dissipation(self, ctx: Context):
        """``D^n = h int (c_v |v_m|^2 + c_omega |omega_m|^2) ds >= 0`` [J]."""
        if not ctx.inertia:
            return None
        v_m, w_m, _ = self._rates(ctx)
        return ctx.h * (self._cv * ufl.dot(v_m, v_m) + self._cw * ufl.dot(w_m, w_m)) * ctx.dx


class RayleighDamping(Extension):
    """Rayleigh damping, mass- and stiffness-proportional: the damping operator
    ``alpha M + beta K`` of the step (42) with the model's own mass and stiffness::

        momentum rows (42b, c) + alpha (dq, M v_m) + (d eps[q_e; dq], sigma_v) = 0,
        sigma_v = beta (sigma_{n+1} - sigma_n)/h      (on the strains with a compliance)

    * ``M = diag(rhoA I, M11 I, M22 I, 0)`` the director mass matrix of the inertia rows
      (:func:`fxrod.core.forms.elastic.inertia`): a force ``-alpha rhoA v_m`` on the centreline
      and the director forces ``-alpha M_kk v_dk,m`` (k = 1, 2), i.e. alpha times the
      section's rotary inertia on the midpoint angular velocity (a spin ``omega`` about d3
      feels ``-alpha (M11 + M22) omega``). Masses of other extensions are not included.
    * ``sigma_v = beta K Pi(eps_dot)``: the viscous stress, ``K = C^-1`` the stiffness of the
      model's stress field (C its compliance: the rod's, the long-term one with
      :class:`fxrod.core.forms.viscoelastic.GeneralizedMaxwell`), ``eps_dot = d eps[q_m; v_m] =
      (eps_{n+1} - eps_n)/h`` exactly (bilinear strains, kinematics.py) and ``Pi`` the L2
      projection onto DG1, the space of the stress, so the damping sees the same projected
      strains as the mixed stiffness (the unprojected P2 shear rate of a P2 centreline would
      add a spurious, locking-like shear damping: the first mode of the test cantilever then
      decays 2.3 % too fast). The compliance rows (42d, e) of the step *are* that
      projection, ``C (sigma_{n+1} - sigma_n)/h = Pi(eps_dot)``, so ``sigma_v`` is the
      stress rate times beta: no field of its own, and nothing to condense (the step costs
      little more than without it). Constrained strains (zero compliance) have no stiffness
      and get no viscous stress.

    Linearised about a stress-free equilibrium the damping matrix is ``alpha M + beta K``,
    so every natural mode (:func:`fxrod.analysis.modes.modes`) decays with the damping ratio::

        zeta_k = alpha/(2 omega_k) + beta omega_k/2.

    Testing the momentum rows with ``v_m`` (``q_e = q_m`` in dynamics) and the compliance
    rows with ``sigma_v`` (a DG1 function, in their test space) books the dissipation
    exactly::

        D^n = h int (alpha v_m . M v_m + sigma_v . C sigma_v/beta) ds
            = h int (alpha v_m . M v_m + beta Pi(eps_dot) . K Pi(eps_dot)) ds >= 0.

    No port work; no static part (no velocity in statics). Modes, buckling and the
    continuation refuse it (``dissipative``); the linear port-Hamiltonian export
    (:func:`fxrod.analysis.phmodel.linear_ph`) puts its linearisation
    ``alpha M + beta B^T C^-1 B`` into ``R``. Rigid motions are damped by alpha only.

    Parameters
    ----------
    alpha : float
        Mass-proportional coefficient [1/s], >= 0.
    beta : float
        Stiffness-proportional coefficient [s], >= 0 (default 0).
    name : str
        Name of the extension in the model.

    Raises
    ------
    ParameterError
        A coefficient that is negative or not finite; beta > 0 on a section varying along s.
    """

    dissipative = True

    def __init__(self, alpha: float, beta: float = 0.0, name: str = "rayleigh") -> None:
        self.alpha = _nonnegative("alpha", alpha, "1/s")
        self.beta = _nonnegative("beta", beta, "s")
        self.name = name

    def bind(self, rod) -> None:
        """beta > 0 needs a uniform section (the compliance a Constant)."""
        if self.beta > 0.0 and not rod.uniform:
            raise ParameterError("section", "VaryingSection",
                                 "a uniform Section for RayleighDamping with beta > 0")

    def setup(self, ctx: Context, fields) -> None:
        """Constants: alpha, beta and the components that have a compliance."""
        self._a = fem.Constant(ctx.mesh, np.float64(self.alpha))
        self._b = fem.Constant(ctx.mesh, np.float64(self.beta))
        if self.beta > 0.0:
            c = np.asarray(ctx.C.value, dtype=float)
            self._active = fem.Constant(ctx.mesh, (c > 0.0).astype(float))

    @property
    def constants(self) -> dict[str, fem.Constant]:
        """``{"alpha": [1/s], "beta": [s]}`` (empty before the model is built)."""
        return {"alpha": self._a, "beta": self._b} if hasattr(self, "_a") else {}

    @staticmethod
    def _mass_power(ctx: Context, w):
        """``v_m . M w`` with the model's director mass matrix."""
        v, vd = split_q(ctx.vm)
        wp, wd = split_q(w)
        return (ctx.rhoA * ufl.dot(v, wp) + ctx.M11 * ufl.dot(vd[0], wd[0])
                + ctx.M22 * ufl.dot(vd[1], wd[1]))

    def _viscous(self, ctx: Context):
        """``sigma_v = beta (sigma_{n+1} - sigma_n)/h`` on the components with a compliance."""
        return self._b / ctx.h * ufl.elem_mult(self._active, ctx.sig1 - ctx.sig0)

    def momentum_stress(self, ctx: Context):
        """``sigma_v`` (None without beta or in statics)."""
        if self.beta == 0.0 or not ctx.inertia:
            return None
        return self._viscous(ctx)

    def residual(self, ctx: Context):
        """``alpha (dq, M v_m)`` in the momentum rows (None without alpha or in statics)."""
        if ctx.inertia and self.alpha > 0.0:
            return self._a * self._mass_power(ctx, ctx.dq) * ctx.dx
        return None

    def dissipation(self, ctx: Context):
        """``D^n = h int (alpha v_m . M v_m + sigma_v . C sigma_v/beta) ds >= 0`` [J]."""
        if not ctx.inertia:
            return None
        d = self._a * self._mass_power(ctx, ctx.vm)
        if self.beta > 0.0:
            sv = self._viscous(ctx)
            d = d + ufl.dot(sv, ufl.elem_mult(ctx.C, sv)) / self._b
        return ctx.h * d * ctx.dx


class AddedMass(Extension):
    """The added mass of a cylinder moving across its axis in a fluid at rest (Morison's
    inertia term; MoorDyn's and OrcaFlex's ``C_a``): the kinetic energy of the fluid the rod
    drags along,

        T_a = 1/2 int m_a v . P(d3) v ds,   m_a = rho_f C_a pi D^2/4,   P(d) = I - d (x) d,

    on the centreline velocity v across the cross-section's normal d3 (none along it; d3 is
    the centreline tangent of a shear-rigid rod, within the shear angle otherwise). The mass
    depends on the configuration through d3, so the step books it as a discrete gradient: in
    the momentum rows (42b, c), tested with ``dq = (dphi, dd)``,

        (dphi, m_a (P(d3_{n+1}) v_{n+1} - P(d3_n) v_n))/h
          + 1/2 m_a (dd3, (v_{n+1} . d3_m) v_n + (v_n . d3_m) v_{n+1}) = 0 + ...

    (``d3_m`` the midpoint director, ``v_{n+1} = 2 v_m - v_n`` as for the rod's inertia, theory
    §2.3). T_a is a quadratic form in d3 for fixed velocities, so its midpoint gradient is
    exact: testing with ``(v_m, (d3_{n+1} - d3_n)/h)`` gives ``(T_a^{n+1} - T_a^n)/h``, and the
    ledger (:mod:`fxrod.core.ledger`) books T_a as kinetic energy and closes to the Newton
    tolerance. The second term is the discrete configuration force ``-dT_a/dd3``
    (``m_a (v . d3) v`` in the limit: the Munk moment that turns a body moving obliquely
    across the flow). Linear momentum ``int (rhoA + m_a P(d3)) v ds`` is conserved exactly
    without external forces (translation invariance of every term); the angular momentum of
    the midpoint step with this mass is not an exact invariant (it is, to the order of the
    step, and the fluid is not a closed system). The mass enters the linearised analyses
    through the kinetic energy: modes and buckling use ``rhoA + m_a P(d3)`` on the
    centreline (:func:`fxrod.analysis.modes.mass_form`), and so does the PH export.

    No static part (no velocity in statics). A flow, the drag and the buoyancy are
    :class:`MorisonDrag`'s; the added mass here is that of still water (a rod accelerating
    in a current also feels the Froude-Krylov force of the current's acceleration, which is
    zero for the uniform, steady currents MorisonDrag takes).

    Parameters
    ----------
    rho_f : float
        Fluid density [kg/m^3], >= 0.
    diameter : float
        Hydrodynamic diameter D [m], > 0.
    C_a : float
        Added-mass coefficient [-], >= 0 (1 for a circular cylinder in potential flow).
    name : str
        Name of the extension in the model.

    Raises
    ------
    ParameterError
        A negative or non-finite density or coefficient, a non-positive diameter.
    """

    def __init__(self, rho_f: float, diameter: float, C_a: float = 1.0,
                 name: str = "added_mass") -> None:
        self.rho_f = _nonnegative("rho_f", rho_f, "kg/m^3")
        self.diameter = _diameter(diameter)
        self.C_a = _nonnegative("C_a", C_a, "(dimensionless)")
        self.name = name

    @property
    def mass(self) -> float:
        """Added mass per length ``m_a = rho_f C_a pi D^2/4`` [kg/m]."""
        return self.rho_f * self.C_a * math.pi * self.diameter ** 2 / 4.0

    def setup(self, ctx: Context, fields) -> None:
        """``m_a`` as a Constant; the rod's measure."""
        self._ma = fem.Constant(ctx.mesh, np.float64(self.mass))
        self._dx = ctx.dx

    @property
    def constants(self) -> dict[str, fem.Constant]:
        """``{"m_a": [kg/m]}`` (empty before the model is built)."""
        return {"m_a": self._ma} if hasattr(self, "_ma") else {}

    @staticmethod
    def _across(d, v):
        """``P(d) v = v - (d . v) d``."""
        return v - ufl.dot(d, v) * d

    def residual(self, ctx: Context):
        """The added inertia and the configuration force (class docstring; None in
        statics)."""
        if not ctx.inertia:
            return None
        dphi, dd = split_q(ctx.dq)
        v1, _ = split_q(ctx.v1)
        v0, _ = split_q(ctx.v0)
        d1, d0 = split_q(ctx.q1)[1][2], split_q(ctx.q0)[1][2]
        dm = 0.5 * (d1 + d0)
        inertia = ufl.dot(dphi, self._across(d1, v1) - self._across(d0, v0)) / ctx.h
        config = 0.5 * ufl.dot(dd[2], ufl.dot(v1, dm) * v0 + ufl.dot(v0, dm) * v1)
        return self._ma * (inertia + config) * ctx.dx

    def kinetic_energy(self, ctx: Context):
        """``T_a = 1/2 int m_a v_n . P(d3_n) v_n ds`` [J] at ``t_n``."""
        if not ctx.inertia:
            return None
        v0, _ = split_q(ctx.v0)
        d0 = split_q(ctx.q0)[1][2]
        return 0.5 * self._ma * ufl.dot(v0, self._across(d0, v0)) * ctx.dx

    def momentum(self, q, v):
        """The fluid's impulse on the rod at ``(q, v)``: ``m_a P(d3) v`` [kg m/s per m] and its
        moment ``phi x m_a P(d3) v`` [kg m^2/s per m], with the rod's measure."""
        phi, d = split_q(q)
        vphi, _ = split_q(v)
        p = self._ma * self._across(d[2], vphi)
        return p, ufl.cross(phi, p), self._dx
