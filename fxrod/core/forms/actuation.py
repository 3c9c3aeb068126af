"""Distributed actuation of the rod: pneumatic chambers and tendons, eqs. (68)-(73).

An actuator k runs parallel to the centreline at the constant material offset
``rho_k = rho_k1 d1 + rho_k2 d2`` [m] (actuator line ``r_k = phi + rho_k``) and carries the
prescribed axial force ``tau_k(t)`` [N] along the unit direction ``t_k`` (theory §3.2):

* pressure chamber: ``t_k = d3``, ``tau_k = p_k A_k <= 0``                     (70), (71)
* tendon:           ``t_k = r_k'/|r_k'|``, ``tau_k = T_k >= 0``                (70), (71)

The actuators enter the momentum balance only (68): ``N -> N + R^T n_u``,
``M -> M + R^T m_u`` with ``n_u = sum_k tau_k t_k``, ``m_u = sum_k rho_k x tau_k t_k`` (69).
With ``sigma_act = (R^T n_u, R^T m_u)`` the momentum rows of the midpoint step (42b, c) get
``(d eps[q_e; dq], sigma_act)``: the actuators are a power port (73) with input ``tau`` and
output the actuator elongation rates. Testing that term with ``v_m = (q_{n+1} - q_n)/h``
gives the actuator work of one step

    W_act^n = -h (d eps[q_e; v_m], sigma_act)_Omega,

and the discrete power balance (44) becomes ``H_{n+1} - H_n = W_ext^n + W_act^n - D^n``,
exactly (same UFL integrand and the same quadrature as in the residual).

Two evaluations of ``sigma_act`` are offered (``formulation``):

``"material"`` (default)
    Eq. (68)-(71) rewritten with ``R^T R = I`` in terms of the strains
    ``eps = (Gamma, K)`` of the evaluation state: ``R^T t_k = e3`` (chamber) and
    ``R^T r_k' = Gamma + K x rho_k`` with ``rho_k = (rho_k1, rho_k2, 0)`` (tendon), so

    - chamber: ``sigma_k = tau_k (e3, rho_k x e3) = tau_k (0, 0, 1, rho_k2, -rho_k1, 0)``,
      the constant material stress offsets of theory §3.2 ("useful fact");
    - tendon:  ``sigma_k = tau_k (a_k, rho_k x a_k)/|a_k|``, ``a_k = Gamma + K x rho_k``,
      i.e. ``(d eps, sigma_k) = tau_k d|a_k|``: the work of the tension on the change of
      the tendon length ``int |r_k'| ds``.

    Objective; on the constraint manifold it equals (68) exactly. Interpolated directors are
    orthonormal only at the nodes (theory §2.1), where both forms coincide.
``"spatial"``
    Eq. (68)-(71) literally at the interpolated evaluation directors ``d_e``:
    ``sigma_act = (R(d_e)^T n_u, R(d_e)^T m_u)`` with ``t_k = d3`` or ``r_k'/|r_k'|``.

An actuator may act on a sub-range ``[s_a, s_b]`` of the arc length only: its stress is
multiplied by the indicator of that range at the quadrature points. The discrete power
balance is unaffected (it is an identity between the residual and ``W_act``, which use the
same integrand and quadrature). The jump of ``sigma_act`` at ``s_a`` and ``s_b`` acts as the
concentrated end force and moment of the actuator (chamber end caps, tendon anchors). Put
``s_a``, ``s_b`` on element boundaries: otherwise the actuator's extent is resolved only to
the quadrature points (a warning says so).
"""

from __future__ import annotations

import csv
import math
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.forms.base import Extension, members
from fxrod.core.kinematics import rotation, split_q, strain_rate, strains
from fxrod.core.rod import Rod
from fxrod.core.spaces import GAUSS_DEGREE
from fxrod.errors import (
    ParameterError,
    check_finite,
    check_int_min,
    check_positive,
    check_vector,
)

ScalarInput = Callable[[float], float]

#: Tolerance [m] (relative to the rod length) on s-ranges and element boundaries.
_S_TOL = 1e-10


class InputTable:
    """A scalar input ``u(t)`` given by samples, linearly interpolated in t.

    Parameters
    ----------
    t : sequence of float
        Strictly increasing sample times [s] (or load factors).
    values : sequence of float
        Samples (e.g. an actuator force [N]), same length as ``t``, finite.
    name : str
        Name used in error messages.

    Evaluating outside ``[t[0], t[-1]]`` raises :class:`ParameterError` (no extrapolation).
    """

    def __init__(self, t: Sequence[float], values: Sequence[float], name: str = "table") -> None:
        self.name = str(name)
        try:
            tt = np.asarray(t, dtype=float).reshape(-1)
            vv = np.asarray(values, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise ParameterError(f"{name}: samples", (t, values), "numeric arrays") from None
        if tt.size < 2 or tt.size != vv.size:
            raise ParameterError(f"{name}: number of samples", (tt.size, vv.size),
                                 "two equal lengths >= 2")
        if not (np.all(np.isfinite(tt)) and np.all(np.isfinite(vv))):
            raise ParameterError(f"{name}: samples", "non-finite values", "finite numbers")
        if np.any(np.diff(tt) <= 0.0):
            i = int(np.flatnonzero(np.diff(tt) <= 0.0)[0])
            raise ParameterError(f"{name}: t", (tt[i], tt[i + 1]), "strictly increasing")
        self.t = tt
        self.values = vv

    @classmethod
    def from_csv(
        cls, path: str | Path, column: str, time_column: str | None = None
    ) -> InputTable:
        """Read one column of a CSV file with a header row.

        Parameters
        ----------
        path : path-like
            Comma-separated file with a header row.
        column : str
            Name of the value column.
        time_column : str, optional
            Name of the time column; default ``"t"``, else ``"time"``, else the first column.
        """
        p = Path(path)
        try:
            with open(p, newline="") as fh:
                rows = list(csv.reader(fh))
        except OSError as e:
            raise ParameterError("path", str(path), f"a readable CSV file ({e})") from None
        if len(rows) < 3:
            raise ParameterError("path", str(path), "a CSV file with a header and >= 2 rows")
        header = [h.strip() for h in rows[0]]
        if time_column is None:
            time_column = next((c for c in ("t", "time") if c in header), header[0])
        for c in (time_column, column):
            if c not in header:
                raise ParameterError("column", c, f"one of the columns {header} of {p.name}")
        it, iv = header.index(time_column), header.index(column)
        try:
            data = np.array([[float(r[it]), float(r[iv])] for r in rows[1:] if r], dtype=float)
        except (ValueError, IndexError) as e:
            raise ParameterError("path", str(path), f"numeric CSV data ({e})") from None
        return cls(data[:, 0], data[:, 1], name=f"{p.name}:{column}")

    def __call__(self, t: float) -> float:
        tol = 1e-12 * max(1.0, abs(self.t[-1]))
        if not (self.t[0] - tol <= t <= self.t[-1] + tol):
            raise ParameterError(f"{self.name}: t", t, f"in [{self.t[0]:g}, {self.t[-1]:g}] "
                                 "(tables are not extrapolated)")
        return float(np.interp(t, self.t, self.values))


def _as_input(name: str, value) -> ScalarInput | InputTable:
    if isinstance(value, InputTable):
        return value
    if callable(value):
        return value
    if isinstance(value, int | float | np.floating | np.integer):
        c = check_finite(name, value)
        return lambda t: c
    raise ParameterError(name, value, "a number, a callable t -> float or an InputTable")


class Actuator:
    """Base class of an actuator (use :class:`PressureChamber` or :class:`Tendon`).

    Parameters
    ----------
    offset : (float, float)
        Material coordinates ``(rho_1, rho_2)`` [m] of the actuator line in the
        cross-section, along ``d1`` and ``d2``.
    force : float, callable ``t -> float`` or InputTable
        Axial actuator force ``tau(t)`` [N] (sign: see the subclass).
    s_range : (float, float), optional
        Arc-length interval ``[s_a, s_b]`` [m] the actuator acts on (default: whole rod),
        the arc length of its member on a structure.
    name : str, optional
        Name used in error messages.
    rod : int, optional
        The member of a :class:`fxrod.core.structure.Structure` the actuator acts on (its index
        in ``Structure.rods``); required on a structure of several rods, None (or 0) on a
        single rod.
    """

    kind = "actuator"
    sign = 0.0            # +1: tau >= 0 ; -1: tau <= 0
    allowed = ""
    input_name = "force"  # how the input is called in messages ("tension" for tendons)

    def __init__(self, offset, force, s_range=None, name: str | None = None,
                 rod: int | None = None) -> None:
        self.name = None if name is None else str(name)
        self.rod = None if rod is None else check_int_min(f"{self.label}: rod", rod, 0)
        self.offset = check_vector(f"{self.label}: offset", offset, 2)
        self.force = _as_input(f"{self.label}: force", force)
        if s_range is not None:
            sr = check_vector(f"{self.label}: s_range", s_range, 2)
            if not sr[0] < sr[1]:
                raise ParameterError(f"{self.label}: s_range", tuple(float(x) for x in sr),
                                     "a non-empty interval (s_a, s_b) with s_a < s_b [m]")
            s_range = (float(sr[0]), float(sr[1]))
        self.s_range = s_range
        if isinstance(self.force, InputTable):
            self._check_values(self.force.t, self.force.values)
        else:  # constants and callables: checked at t = 0 now, and at every step
            self.tau(0.0)

    @property
    def label(self) -> str:
        """``kind 'name'`` for messages."""
        return self.kind if self.name is None else f"{self.kind} '{self.name}'"

    def _check_values(self, t: np.ndarray, vals: np.ndarray) -> None:
        bad = np.flatnonzero(self.sign * vals < 0.0)
        if bad.size:
            i = int(bad[0])
            raise ParameterError(f"{self.input_name} of {self.label} at t = {t[i]:.6g}",
                                 float(vals[i]), self.allowed)

    def tau(self, t: float) -> float:
        """Checked actuator force ``tau(t)`` [N]."""
        try:
            v = self.force(float(t))
        except ParameterError:
            raise
        except Exception as e:  # noqa: BLE001 - report any failure of the user callable
            raise ParameterError(f"{self.input_name} of {self.label} at t = {t:.6g}", "error",
                                 f"a callable t -> float ({e})") from None
        if type(v) is float and math.isfinite(v) and not self.sign * v < 0.0:
            return v           # the checks below pass: skip building their messages
        v = check_finite(f"{self.input_name} of {self.label} at t = {t:.6g}", v)
        self._check_values(np.array([t]), np.array([v]))
        return v

    def check_times(self, times: Sequence[float]) -> None:
        """Evaluate and sign-check the input at the given times (raises on violation)."""
        for t in np.asarray(times, dtype=float).reshape(-1):
            self.tau(float(t))

    def material_stress(self, eps, tau, chi, r):  # pragma: no cover - interface
        """UFL 6-vector ``sigma_k`` from the strains ``eps``, the force ``tau``, the
        indicator ``chi`` and the offset ``r = (rho_1, rho_2)`` (UFL)."""
        raise NotImplementedError

    def spatial_direction(self, phi_s, d, d_s, r):  # pragma: no cover - interface
        """UFL unit direction ``t_k`` (71) from ``phi'``, ``d``, ``d'`` and the offset."""
        raise NotImplementedError

    @property
    def rho(self) -> np.ndarray:
        """Material offset 3-vector ``(rho_1, rho_2, 0)`` [m]."""
        return np.array([self.offset[0], self.offset[1], 0.0])


class PressureChamber(Actuator):
    """A pneumatic chamber parallel to the centreline: ``t_k = d3``, ``tau_k = p_k A_k <= 0``
    (eqs. 70, 71).

    Parameters
    ----------
    offset : (float, float)
        Chamber centre ``(rho_1, rho_2)`` [m] in the cross-section (along d1, d2).
    force : float, callable ``t -> float`` or InputTable
        Chamber force ``tau(t) = p(t) A`` [N], ``<= 0`` (the paper's sign: a pressurised
        chamber pushes its end caps apart, which elongates the rod on its side).
    area : float, optional
        Chamber cross-section ``A`` [m^2]; used to check that the chamber fits in the
        section and to convert pressures (:meth:`from_pressure`, :meth:`pressure`).
    s_range : (float, float), optional
        Arc-length interval [m] of the chamber (default: the whole rod).
    name : str, optional
        Name used in error messages.
    rod : int, optional
        Member of a structure the chamber acts on (see :class:`Actuator`).
    """

    kind = "pressure chamber"
    sign = -1.0
    allowed = "<= 0 N (a chamber force tau = p A is non-positive, eq. 70)"

    def __init__(self, offset, force, area: float | None = None, s_range=None,
                 name: str | None = None, rod: int | None = None) -> None:
        super().__init__(offset, force, s_range, name, rod)
        self.area = None if area is None else check_positive(f"{self.label}: area", area)

    @classmethod
    def from_pressure(cls, offset, pressure, area: float, s_range=None,
                      name: str | None = None, rod: int | None = None) -> PressureChamber:
        """Chamber driven by a gauge pressure ``p(t) >= 0`` [Pa] over the area ``A`` [m^2]:
        ``tau = -p A`` (eq. 70 with the paper's sign convention ``tau <= 0``)."""
        A = check_positive("area", area)
        p = _as_input("pressure", pressure)
        if isinstance(p, InputTable):
            force = InputTable(p.t, -A * p.values, name=p.name)
        else:
            def force(t: float) -> float:
                return -A * float(p(t))
        return cls(offset, force, area=A, s_range=s_range, name=name, rod=rod)

    def pressure(self, t: float) -> float:
        """Gauge pressure ``-tau(t)/A`` [Pa] (needs ``area``)."""
        if self.area is None:
            raise ParameterError(f"{self.label}: area", None, "given to report pressures [m^2]")
        return -self.tau(t) / self.area

    def material_stress(self, eps, tau, chi, r):
        # theory §3.2: R^T n_u = tau e3, R^T m_u = tau (rho_2 e1 - rho_1 e2)
        return tau * chi * ufl.as_vector([0.0, 0.0, 1.0, r[1], -r[0], 0.0])

    def spatial_direction(self, phi_s, d, d_s, r):
        return d[2]                                                      # (71) t_k = d3


class Tendon(Actuator):
    """A tendon routed parallel to the centreline at a constant offset:
    ``t_k = r_k'/|r_k'|``, ``tau_k = T_k >= 0`` (eqs. 70, 71).

    Parameters
    ----------
    offset : (float, float)
        Tendon position ``(rho_1, rho_2)`` [m] in the cross-section (along d1, d2).
    tension : float, callable ``t -> float`` or InputTable
        Tendon tension ``T(t)`` [N], ``>= 0``.
    s_range : (float, float), optional
        Arc-length interval [m] between the tendon's guide and anchor (default: whole rod).
    name : str, optional
        Name used in error messages.
    rod : int, optional
        Member of a structure the tendon acts on (see :class:`Actuator`).
    """

    kind = "tendon"
    sign = 1.0
    allowed = ">= 0 N (a tendon can only pull, eq. 70)"
    input_name = "tension"

    def __init__(self, offset, tension, s_range=None, name: str | None = None,
                 rod: int | None = None) -> None:
        super().__init__(offset, tension, s_range, name, rod)

    def material_stress(self, eps, tau, chi, r):
        # R^T r_k' = Gamma + K x rho_k (R^T R' = skew K); sigma_k = tau (a, rho x a)/|a|
        Gam = ufl.as_vector([eps[i] for i in range(3)])
        K = ufl.as_vector([eps[3 + i] for i in range(3)])
        rho = ufl.as_vector([r[0], r[1], 0.0])
        a = Gam + ufl.cross(K, rho)
        ahat = a / ufl.sqrt(ufl.dot(a, a))
        m = ufl.cross(rho, ahat)
        return tau * chi * ufl.as_vector([ahat[i] for i in range(3)] + [m[i] for i in range(3)])

    def spatial_direction(self, phi_s, d, d_s, r):
        r_s = phi_s + r[0] * d_s[0] + r[1] * d_s[1]                          # r_k' (71)
        return r_s / ufl.sqrt(ufl.dot(r_s, r_s))


class Actuation(Extension):
    """Actuators attached to a rod, as an :class:`fxrod.core.forms.base.Extension` (eqs. 68-73).

    Offsets and s-ranges are checked against the rod when the model is built (:meth:`bind`),
    before any form is compiled. On a structure of several rods every actuator names the
    member it acts on (``rod=k``); its offset is checked against that member's section and
    its ``s_range`` is that member's arc length. The members may have different sections.

    Parameters
    ----------
    actuators : sequence of PressureChamber or Tendon
        The actuators; unnamed ones are called ``actuator 1, 2, ...``.
    section_radius : float, optional
        Radius [m] of the cross-section for the offset check; default ``rod.section.radius``.
    allow_offset_outside : bool
        Accept offsets outside the cross-section (only for reproducing published data whose
        geometry is inconsistent, e.g. Ex. 6.4, theory §4.4).
    formulation : {"material", "spatial"}
        Evaluation of ``sigma_act`` (module docstring).
    check_times : sequence of float, optional
        Times [s] at which every input is evaluated and sign-checked now, before any form is
        compiled (inputs are also checked at every step).
    name : str
        Name of the extension in the model.

    Raises
    ------
    ParameterError
        Offset outside the section, empty or out-of-rod s-range, an input of the wrong sign.
    """

    structures = True

    def __init__(
        self,
        actuators: Sequence[Actuator],
        section_radius: float | None = None,
        allow_offset_outside: bool = False,
        formulation: str = "material",
        check_times: Sequence[float] | None = None,
        name: str = "actuation",
    ) -> None:
        acts = list(actuators)
        if not acts:
            raise ParameterError("actuators", actuators, "at least one actuator")
        for i, a in enumerate(acts):
            if not isinstance(a, Actuator):
                raise ParameterError("actuators", a, "PressureChamber or Tendon objects")
            if a.name is None:
                a.name = f"actuator {i + 1}"
        if formulation not in ("material", "spatial"):
            raise ParameterError("formulation", formulation, "'material' or 'spatial'")
        self.name = name
        self.actuators = acts
        self.formulation = formulation
        self.section_radius = section_radius
        self.allow_offset_outside = bool(allow_offset_outside)
        if check_times is not None:
            for a in acts:
                a.check_times(check_times)
        self.rod: Rod | None = None
        self._tau: fem.Constant | None = None
        self._sigma = None

    def bind(self, rod: Rod) -> None:
        """Check members, offsets (inside the section) and s-ranges (inside the member, on
        quadrature points) against ``rod`` (a rod or a structure)."""
        if self.rod is not None:
            raise ParameterError("Actuation", self, "used by one RodModel only")
        mem = members(rod)
        #: ``(o_k, member)`` of each actuator: its member's mesh offset [m] and Rod
        self._members = [self._member_of(a, mem) for a in self.actuators]
        for a, (_, member) in zip(self.actuators, self._members, strict=True):
            if not member.uniform:
                raise ParameterError("section", "VaryingSection",
                                     "a uniform Section for actuators")
            if self.allow_offset_outside:
                continue
            R = self.section_radius if self.section_radius is not None \
                else member.section.radius
            if R is None:
                raise ParameterError("section_radius", None,
                                     "given [m] (rod.section has no radius) to check offsets")
            self._check_offset(a, check_positive("section_radius", R))
        self.rod = rod
        for a, (_, member) in zip(self.actuators, self._members, strict=True):
            self._check_s_range(a, member)

    @staticmethod
    def _member_of(a: Actuator, mem: list) -> tuple[float, Rod]:
        """``(o_k, rod_k)`` of the member actuator ``a`` acts on."""
        if a.rod is None:
            if len(mem) > 1:
                raise ParameterError(f"{a.label}: rod", None,
                                     "the index of the member it acts on (rod=k) on a "
                                     "structure of several rods")
            return mem[0]
        if a.rod >= len(mem):
            raise ParameterError(f"{a.label}: rod", a.rod, f"< {len(mem)} (the rods)")
        return mem[a.rod]

    # ------------------------------------------------------------------ validation
    @staticmethod
    def _check_offset(a: Actuator, R: float) -> None:
        r = float(np.hypot(*a.offset))
        extent = r
        what = f"|offset| <= section radius {R:g} m"
        area = getattr(a, "area", None)
        if area is not None:
            extent = r + math.sqrt(area / math.pi)
            what = (f"|offset| + sqrt(area/pi) = {extent:g} m <= section radius {R:g} m "
                    "(the chamber must lie inside the section)")
        if extent > R * (1 + 1e-12):
            raise ParameterError(f"{a.label}: offset", tuple(float(x) for x in a.offset), what)

    @staticmethod
    def _check_s_range(a: Actuator, member: Rod) -> None:
        if a.s_range is None:
            return
        L = member.length
        sa, sb = a.s_range
        tol = _S_TOL * L
        if sa < -tol or sb > L + tol:
            raise ParameterError(f"{a.label}: s_range", a.s_range,
                                 f"inside the rod [0, {L:g}] m")
        ne = member.n_elements
        le = L / ne
        gauss = quadrature_points(L, ne)
        if not np.any((gauss >= sa - tol) & (gauss <= sb + tol)):
            raise ParameterError(f"{a.label}: s_range", a.s_range,
                                 "an interval containing quadrature points of the mesh "
                                 f"(element length {le:g} m); it would act on nothing")
        for s in (sa, sb):
            k = s / le
            if abs(k - round(k)) * le > tol:
                warnings.warn(f"{a.label}: s_range end {s:g} m is not an element "
                              f"boundary (element length {le:g} m); its extent is resolved "
                              "only to the quadrature points", stacklevel=3)

    # ------------------------------------------------------------------ Extension
    def setup(self, ctx, fields) -> None:
        n = len(self.actuators)
        tol = _S_TOL * self.rod.length
        # One array Constant per kind of data (forces, offsets, range ends): the compiled
        # form depends only on the kinds of the actuators, not on their data (no JIT in
        # parameter studies), and its UFL signature is reproducible (UFL orders sums of terms
        # holding different Constants by the Constants' repr, i.e. by creation count).
        self._tau = fem.Constant(ctx.mesh, np.zeros(n))
        off = fem.Constant(ctx.mesh, np.array([a.offset for a in self.actuators], dtype=float))
        ends = self.mesh_ranges() + np.array([-tol, tol])
        rng = fem.Constant(ctx.mesh, ends)
        s = ufl.SpatialCoordinate(ctx.mesh)[0]
        whole = len(members(self.rod)) == 1
        chis = [1.0 if a.s_range is None and whole else
                ufl.conditional(ufl.And(ufl.ge(s, rng[i, 0]), ufl.le(s, rng[i, 1])), 1.0, 0.0)
                for i, a in enumerate(self.actuators)]
        offs = [ufl.as_vector([off[i, 0], off[i, 1]]) for i in range(n)]
        q = ctx.q_e
        if self.formulation == "material":
            eps = strains(q, q.dx(0))
            terms = [a.material_stress(eps, self._tau[i], chis[i], offs[i])
                     for i, a in enumerate(self.actuators)]
            self._sigma = ufl.as_vector([sum(t[j] for t in terms) for j in range(6)])
        else:
            phi_s, d_s = split_q(q.dx(0))
            _, d = split_q(q)
            n_u, m_u = [], []
            for i, a in enumerate(self.actuators):                       # (69)
                tk = a.spatial_direction(phi_s, d, d_s, offs[i])
                rho = offs[i][0] * d[0] + offs[i][1] * d[1]
                n_u.append(self._tau[i] * chis[i] * tk)
                m_u.append(self._tau[i] * chis[i] * ufl.cross(rho, tk))
            nu = ufl.as_vector([sum(v[j] for v in n_u) for j in range(3)])
            mu = ufl.as_vector([sum(v[j] for v in m_u) for j in range(3)])
            Rt = rotation(d).T
            N, M = Rt * nu, Rt * mu                                      # (68)
            self._sigma = ufl.as_vector([N[i] for i in range(3)] + [M[i] for i in range(3)])

    def momentum_stress(self, ctx):
        """``sigma_act = (R^T n_u, R^T m_u)`` at the evaluation state (68)."""
        return self._sigma

    def port_work(self, ctx):
        """Actuator work of one step ``W_act^n = -h (d eps[q_e; v_m], sigma_act)`` [J]."""
        q = ctx.q_e
        rate = strain_rate(q, q.dx(0), ctx.vm, ctx.vm.dx(0))
        return -ctx.h * ufl.dot(rate, self._sigma) * ctx.dx

    def update(self, t_eval: float, t_mid: float) -> None:
        """Set ``tau_k`` at the evaluation time (``t_{n+1/2}`` in dynamics); sign-checked."""
        self._tau.value[:] = self.forces(t_eval)

    # ------------------------------------------------------------------ helpers
    @property
    def force_constant(self) -> fem.Constant | None:
        """The Constant ``(tau_1, ..., tau_n)`` [N] of the actuator forces in the residual
        (None before the model is built): what gradients with respect to the actuator
        inputs differentiate (:mod:`fxrod.analysis.adjoint`). Read-only: :meth:`update` sets it."""
        return self._tau

    def forces(self, t: float) -> np.ndarray:
        """Checked actuator forces ``tau_k(t)`` [N] of all actuators."""
        return np.array([a.tau(t) for a in self.actuators])

    def mesh_ranges(self) -> np.ndarray:
        """``(n, 2)`` mesh coordinates [m] of the actuators' extents (their ``s_range`` on
        their member, or the whole member), after :meth:`bind`."""
        return np.array([(o + a.s_range[0], o + a.s_range[1]) if a.s_range is not None
                         else (o, o + m.length)
                         for a, (o, m) in zip(self.actuators, self._members, strict=True)],
                        dtype=float)


def quadrature_points(length: float, n_elements: int) -> np.ndarray:
    """Arc lengths [m] of the Gauss points of the main measure on a uniform rod mesh."""
    import basix

    pts, _ = basix.make_quadrature(basix.CellType.interval, GAUSS_DEGREE)
    le = length / n_elements
    x0 = np.arange(n_elements) * le
    return (x0[:, None] + le * pts[:, 0][None, :]).reshape(-1)


class CurvatureWave(Extension):
    """A prescribed intrinsic curvature, a travelling wave of bending (an undulating
    swimmer's or a snake's muscles), as a power port of the midpoint step::

        kappa_0(s, t) = A(t) sin(k s - omega t + phase),   k = 2 pi/wavelength,
        omega = 2 pi frequency,

    about the director ``d_axis`` (axis 1: a curvature ``K_1`` that bends the rod in the
    ``d2``-``d3`` plane; axis 2: in the ``d1``-``d3`` plane). The wave travels towards
    increasing s for a positive frequency, at the speed ``omega/k`` [m/s].

    It enters the momentum balance as the active bending moment of the section's bending
    stiffness ``k_b`` (``EI_1`` or ``EI_2`` of the rod's Section)::

        sigma_act = -k_b kappa_0 e_(3 + axis)     (a 6-vector, the moment component),

    added to ``sigma_e`` like the actuators of :class:`Actuation` (68). With the linear
    elastic stress ``M = k_b (K - K_ref)`` the total bending moment ``k_b (K - K_ref -
    kappa_0)`` is that of a rod whose rest curvature is ``K_ref + kappa_0(s, t)``: the
    rod's statics are those of the intrinsic curvature. The stored energy ``H`` stays the
    rod's (about its reference shape), and the actuator's work is the port work of one step

        W_act^n = -h (d eps[q_e; v_m], sigma_act)_Omega = int k_b kappa_0 (K_{n+1} - K_n) ds

    (the second form in dynamics, where the strain rate at the midpoint is exactly
    ``(eps_{n+1} - eps_n)/h``), booked in the ledger (``port_work``) with the same
    integrand and quadrature as the residual, so that
    ``H_{n+1} - H_n = W_ext^n + W_act^n - D^n`` exactly (to the Newton tolerance).
    ``kappa_0`` is evaluated at the evaluation time (the midpoint time in
    dynamics, the load factor in statics).

    The amplitude ``A(t) = A S(t/ramp)`` grows from zero with the smooth step
    ``S(x) = 3x^2 - 2x^3`` (0 for x <= 0, 1 for x >= 1) over ``ramp`` seconds (default 0: the
    full amplitude at once); a smooth start leaves the stiff bending modes at rest, which
    the midpoint rule does not damp.

    Parameters
    ----------
    amplitude : float
        Curvature amplitude A [1/m], finite.
    wavelength : float
        Wavelength ``2 pi/k`` [m] along the arc length, finite and > 0.
    frequency : float
        Frequency ``omega/(2 pi)`` [Hz], finite (0: a standing shape; negative: the wave
        travels towards decreasing s). Default 0.
    axis : {1, 2}
        The director about which the rod curves. Default 1.
    phase : float
        Phase [rad] at s = 0, t = 0. Default 0.
    ramp : float
        Rise time [s] of the amplitude (of the load factor in statics), finite and >= 0.
    name : str
        Name of the extension in the model.
    rod : int, optional
        The member of a :class:`fxrod.core.structure.Structure` the wave runs on (its index in
        ``Structure.rods``; s is that member's arc length); required on a structure of
        several rods.

    Raises
    ------
    ParameterError
        A non-finite amplitude, phase or frequency, a wavelength that is not finite and
        > 0, a negative or non-finite ramp, an axis other than 1 or 2 (here); a member with
        a VaryingSection, no member named on a structure of several rods (when the model is
        built, before any form is compiled).
    """

    structures = True

    def __init__(self, amplitude: float, wavelength: float, frequency: float = 0.0,
                 axis: int = 1, phase: float = 0.0, ramp: float = 0.0,
                 name: str = "curvature wave", rod: int | None = None) -> None:
        self.amplitude = check_finite("amplitude", amplitude)
        self.wavelength = check_finite("wavelength", wavelength)
        if self.wavelength <= 0.0:
            raise ParameterError("wavelength", wavelength, "a finite length > 0 m")
        self.frequency = check_finite("frequency", frequency)
        if isinstance(axis, bool | np.bool_) or axis not in (1, 2):
            raise ParameterError("axis", axis, "1 or 2 (the director d1 or d2)")
        self.axis = int(axis)
        self.phase = check_finite("phase", phase)
        self.ramp = check_finite("ramp", ramp)
        if self.ramp < 0.0:
            raise ParameterError("ramp", ramp, "a finite time >= 0 s")
        self.name = name
        self.rod = None if rod is None else check_int_min("rod", rod, 0)
        self._k_b: float | None = None

    @property
    def wavenumber(self) -> float:
        """``k = 2 pi/wavelength`` [1/m]."""
        return 2.0 * math.pi / self.wavelength

    @property
    def omega(self) -> float:
        """Angular frequency ``2 pi frequency`` [rad/s]."""
        return 2.0 * math.pi * self.frequency

    @property
    def wave_speed(self) -> float:
        """Speed ``omega/k`` [m/s] of the wave along s (positive: towards increasing s)."""
        return self.omega / self.wavenumber

    def envelope(self, t: float) -> float:
        """Amplitude ``A(t) = A S(t/ramp)`` [1/m] at the time t [s]."""
        if self.ramp == 0.0:
            return self.amplitude
        x = min(max(t / self.ramp, 0.0), 1.0)
        return self.amplitude * x * x * (3.0 - 2.0 * x)

    def curvature(self, s, t: float):
        """``kappa_0(s, t)`` [1/m] at the arc lengths s [m] (numpy) and the time t [s]."""
        return self.envelope(t) * np.sin(self.wavenumber * np.asarray(s, dtype=float)
                                         - self.omega * t + self.phase)

    def bind(self, rod: Rod) -> None:
        """The member the wave runs on and its bending stiffness ``k_b`` [N m^2] about the
        wave's axis (a uniform Section)."""
        mem = members(rod)
        if self.rod is None and len(mem) > 1:
            raise ParameterError("CurvatureWave rod", None, "the index of the member it runs "
                                 "on (rod=k) on a structure of several rods")
        k = 0 if self.rod is None else self.rod
        if k >= len(mem):
            raise ParameterError("CurvatureWave rod", k, f"< {len(mem)} (the rods)")
        (self._offset, member), self._whole = mem[k], len(mem) == 1
        if not member.uniform:
            raise ParameterError("section", "VaryingSection",
                                 "a uniform Section for a CurvatureWave")
        self._k_b = float(member.section.k_b1 if self.axis == 1 else member.section.k_b2)
        self._length = member.length

    def setup(self, ctx, fields) -> None:
        """Constants ``k_b A(t)`` [N m] and the phase ``phase - omega t`` [rad]; the UFL
        moment ``sigma_act``."""
        self._amp = fem.Constant(ctx.mesh, np.float64(0.0))
        self._arg = fem.Constant(ctx.mesh, np.float64(self.phase))
        k = fem.Constant(ctx.mesh, np.float64(self.wavenumber))
        x = ufl.SpatialCoordinate(ctx.mesh)[0]
        if self._whole:
            self._moment = -self._amp * ufl.sin(k * x + self._arg)
        else:   # on its member only: s = x - o_k on [o_k, o_k + L_k]
            o = fem.Constant(ctx.mesh, np.float64(self._offset))
            tol = _S_TOL * self._length
            on = ufl.And(ufl.ge(x, o - tol), ufl.le(x, o + self._length + tol))
            self._moment = ufl.conditional(on, -self._amp * ufl.sin(k * (x - o) + self._arg),
                                           0.0)
        comps = [0.0] * 6
        comps[2 + self.axis] = self._moment
        self._sigma = ufl.as_vector(comps)

    def update(self, t_eval: float, t_mid: float) -> None:
        """``kappa_0`` at the evaluation time ``t_eval`` [s]."""
        self._amp.value = self._k_b * self.envelope(t_eval)
        self._arg.value = self.phase - self.omega * t_eval

    def momentum_stress(self, ctx):
        """``sigma_act = -k_b kappa_0 e_(3 + axis)`` at the evaluation time."""
        return self._sigma

    def port_work(self, ctx):
        """The actuator's work of one step ``W_act^n = -h (d eps[q_e; v_m], sigma_act)``
        [J]."""
        q = ctx.q_e
        rate = strain_rate(q, q.dx(0), ctx.vm, ctx.vm.dx(0))
        return -ctx.h * rate[2 + self.axis] * self._moment * ctx.dx
