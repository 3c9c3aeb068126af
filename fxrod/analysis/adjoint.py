"""Discrete adjoint of the implicit midpoint steps (42) and of quasi-static load paths:
gradients of an objective ``J = sum_n j(w_n, v_n, t_n)`` with respect to section and
material constants, input histories (end loads, actuator forces) and the initial velocity.

One step solves ``F_n(w_{n+1}; w_n, v_n, p) = 0`` (the model's residual ``F``, Dirichlet rows
fixed) and updates ``v_{n+1} = 2 P (w_{n+1} - w_n)/h_n - v_n`` (42a; ``v = 0`` in statics).
The backward sweep runs over the accepted steps (their sizes are data: adaptive step cuts are
covered) with the sensitivities ``g_w, g_v`` of J to the state ``(w_{n+1}, v_{n+1})``::

    A_n^T lambda_n = -(g_w + 2/h_n P^T g_v)               A_n = dF_n/dw_{n+1}
    g_w <- dj/dw_n + (dF_n/dw_n)^T lambda_n - 2/h_n P^T g_v
    g_v <- dj/dv_n + (dF_n/dv_n)^T lambda_n - g_v
    dJ/dp += lambda_n^T dF_n/dp

Every partial derivative is a ``ufl.derivative`` of the model's own residual: with respect to
``w0``, ``v0``, and to the model's ``fem.Constant`` parameters, each replaced by a DG0
function of the same shape (UFL differentiates only with respect to functions) whose cell
sensitivities are summed. Memory: the states of every ``checkpoint_every``-th step are kept,
the others recomputed segment by segment in the backward sweep. The transposed solves run on
the forward run's linear backend (:attr:`Adjoint.backend`): the chain solver's
``solve_transpose`` when the forward run's Newton solver is on the chain solver, else MUMPS.

A rod with a natural curvature starts stressed, ``sigma_0 = Pi_DG1(K e_0)`` with ``K = 1/C``
on the free strains: when the compliance C is a parameter, J depends on it through the
initial state too, ``dJ/dC += mu^T d(K e_0, .)/dC`` with ``M_S mu = dJ/dsigma_0`` (``M_S`` the
DG1 mass matrix); every forward run first sets K from C (a parameter may set C alone).

Terms outside UFL (rod-rod contact, the model's ``nonlocal_terms``) add their Jacobian
blocks to ``A_n`` as in the forward Newton solves. Their derivative in ``w_n`` is zero with
the end-point evaluation (statics: the force of the state at ``t_{n+1}``); with the midpoint
evaluation their discrete gradient is symmetric in the two states (``G(x_n, x_{n+1}) =
G(x_{n+1}, x_n)``, :mod:`fxrod.core.forms.rodcontact`), so ``dF_n/dw_n`` is their Jacobian
with the two states swapped.

Parameters (:class:`Parameter`): :class:`SectionParameters` (E, G, rho, radius of a circular
section), :class:`RadiusProfile` (radius of a section varying along s, per segment; fields
are differentiated per quadrature point), :class:`ConstantParameter` (any Constant of the
residual: compliances, densities, Maxwell branch constants), :class:`InputHistory` (an end
load's force/moment or an actuator force, piecewise linear between knots),
:class:`InitialVelocity`. Objectives
(:class:`Objective`): :class:`TipTracking`, :class:`FinalPose`, :class:`NodeFunction`.
Units: J in the objective's units, gradients in J per parameter unit.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import ufl
from dolfinx import fem, la
from dolfinx.fem.petsc import assemble_matrix
from mpi4py import MPI

from fxrod.core.forms.base import Extension
from fxrod.core.kinematics import strains
from fxrod.core.loads import Load
from fxrod.errors import ConvergenceError, ParameterError, check_int_min, check_positive
from fxrod.solvers import mumps
from fxrod.solvers.newton import global_bc_dofs, snes_reason_name


# ---------------------------------------------------------------------- parameters
class Parameter:
    """A block of the parameter vector: ``size`` values named ``names``, with bounds.

    Subclasses write their values into the model (:meth:`set`), may act at the start of a
    forward run (:meth:`start`) and turn the adjoint's sensitivities into their gradient
    (:meth:`gradient`).
    """

    name: str = "parameter"

    def constants(self) -> list[fem.Constant | fem.Function]:
        """The Constants (or coefficient Functions, fields along s) of the residual the
        parameter acts through."""
        return []

    def writes(self) -> list:
        """What :meth:`set` writes (keys compared between parameters: two parameters that
        write the same thing would overwrite each other). Default: the Constants."""
        return [id(c) for c in self.constants()]

    @property
    def names(self) -> list[str]:
        """One name per value."""
        n = self.get().size
        return [self.name] if n == 1 else [f"{self.name}[{i}]" for i in range(n)]

    def get(self) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def set(self, values: np.ndarray) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds of the values (default unbounded)."""
        n = self.get().size
        return np.full(n, -np.inf), np.full(n, np.inf)

    def start(self, model) -> None:
        """Act on the freshly reset state of a forward run (default nothing)."""

    def gradient(self, sens: Sensitivities) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def _checked(self, values, size: int) -> np.ndarray:
        v = np.asarray(values, dtype=float).reshape(-1)
        if v.size != size or not np.all(np.isfinite(v)):
            raise ParameterError(f"values of {self.name}", values, f"{size} finite numbers")
        return v


@dataclass
class Sensitivities:
    """What the backward sweep hands to the parameters: per step n the evaluation time
    ``t_eval[n]`` [s] and, per Constant c, ``dc[c][n] = d(lambda_n^T F_n)/dc`` (the shape of
    c; for a coefficient Function: per owned dof, this rank's part); the sensitivities
    ``g_w0, g_v0`` of J to the initial state (owned dofs)."""

    t_eval: np.ndarray
    dc: dict = field(default_factory=dict)
    g_w0: np.ndarray | None = None
    g_v0: np.ndarray | None = None


class ConstantParameter(Parameter):
    """The value(s) of a ``fem.Constant`` of the residual (e.g. ``model.rhoA``, ``model.C``,
    a Maxwell branch's Constant).

    Parameters
    ----------
    name : str
        Name of the parameter.
    constant : dolfinx.fem.Constant
        The Constant (scalar or array); its flattened value is the parameter.
    lower, upper : float
        Bounds of every value (default unbounded).
    """

    def __init__(self, name: str, constant: fem.Constant, lower: float = -np.inf,
                 upper: float = np.inf) -> None:
        if not isinstance(constant, fem.Constant):
            raise ParameterError(f"{name}: constant", constant, "a dolfinx.fem.Constant")
        self.name, self.constant = str(name), constant
        self._lo, self._hi = float(lower), float(upper)

    def constants(self) -> list[fem.Constant]:
        return [self.constant]

    def get(self) -> np.ndarray:
        return np.array(self.constant.value, dtype=float).reshape(-1)

    def set(self, values) -> None:
        v = self._checked(values, self.get().size)
        if np.ndim(self.constant.value) == 0:
            self.constant.value = v[0]
        else:
            self.constant.value[...] = v.reshape(np.shape(self.constant.value))

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.get().size
        return np.full(n, self._lo), np.full(n, self._hi)

    def gradient(self, sens: Sensitivities) -> np.ndarray:
        return np.asarray(sens.dc[self.constant], dtype=float).sum(axis=0).reshape(-1)


#: Exponents of (E, G, rho, r) in the constants of a solid circular section
#: (Section.circular): c = coefficient * E^a G^b rho^c r^d.
_CIRCULAR = {"rhoA": (0, 0, 1, 2), "M11": (0, 0, 1, 4), "M22": (0, 0, 1, 4),
             "k_s1": (0, 1, 0, 2), "k_s2": (0, 1, 0, 2), "k_e": (1, 0, 0, 2),
             "k_b1": (1, 0, 0, 4), "k_b2": (1, 0, 0, 4), "k_t": (0, 1, 0, 4)}
_CIRCULAR_NAMES = ("E", "G", "rho", "radius")
_STIFFNESS = ("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")


def circular_constants(E: float, G: float, rho: float, radius: float,
                       shear_factor: float = 1.0) -> dict[str, float]:
    """``rhoA`` [kg/m], ``M11, M22`` [kg m], ``k_s1, k_s2, k_e`` [N], ``k_b1, k_b2, k_t``
    [N m^2] of a solid circular section (as :meth:`fxrod.core.rod.Section.circular`)."""
    A, Iax = math.pi * radius**2, math.pi * radius**4 / 4.0
    return {"rhoA": rho * A, "M11": rho * Iax, "M22": rho * Iax, "k_s1": shear_factor * G * A,
            "k_s2": shear_factor * G * A, "k_e": E * A, "k_b1": E * Iax, "k_b2": E * Iax,
            "k_t": G * 2.0 * Iax}


class SectionParameters(Parameter):
    """Material and size of the model's uniform solid circular section: any of ``E`` [Pa],
    ``G`` [Pa], ``rho`` [kg/m^3], ``radius`` [m]; they act through the model's Constants
    ``rhoA, M11, M22`` and the compliance ``C`` (zero for constrained strains).

    Parameters
    ----------
    model : RodModel
        A model of one uniform rod whose compliance is the section's (no extension
        overriding it); its constants must be those of the given values (checked to 1e-12).
    names : sequence of str
        The parameters, a subset of ``("E", "G", "rho", "radius")``.
    E, G, rho, radius : float
        The section's values (all four, the ones not in ``names`` stay fixed).
    shear_factor : float
        Shear correction factor of the section (default 1).
    """

    name = "section"

    def __init__(self, model, names: Sequence[str], E: float, G: float, rho: float,
                 radius: float, shear_factor: float = 1.0) -> None:
        bad = [n for n in names if n not in _CIRCULAR_NAMES]
        if bad or not names or len(set(names)) != len(names):
            raise ParameterError("section parameter names", list(names),
                                 f"distinct names among {_CIRCULAR_NAMES}")
        if not model.structure.uniform or not isinstance(model.rhoA, fem.Constant):
            raise ParameterError("model", "section varying along s", "a uniform section")
        self.model, self.param_names = model, list(names)
        self.all = {"E": check_positive("E", E), "G": check_positive("G", G),
                    "rho": check_positive("rho", rho), "radius": check_positive("radius", radius)}
        self.shear_factor = check_positive("shear_factor", shear_factor)
        self.free = np.asarray(model.structure.free, dtype=bool)
        have = {"rhoA": float(model.rhoA.value), "M11": float(model.M11.value),
                "M22": float(model.M22.value)}
        want = circular_constants(**self.all, shear_factor=self.shear_factor)
        C_want = self._compliance(want)
        mismatch = [k for k in have if abs(have[k] - want[k]) > 1e-12 * abs(want[k])]
        if mismatch or np.max(np.abs(np.asarray(model.C.value) - C_want)) > \
                1e-12 * np.max(np.abs(C_want)):
            raise ParameterError("section values", self.all, "those the model was built with "
                                 "(its rhoA, M11, M22 and compliance C; no extension may set "
                                 "the compliance)")

    @property
    def names(self) -> list[str]:
        return list(self.param_names)

    def _compliance(self, k: dict[str, float]) -> np.ndarray:
        stiff = np.array([k[n] for n in ("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")])
        return np.where(self.free, 1.0 / stiff, 0.0)

    def constants(self) -> list[fem.Constant]:
        m = self.model
        return [m.rhoA, m.M11, m.M22, m.C]

    def get(self) -> np.ndarray:
        return np.array([self.all[n] for n in self.param_names])

    def set(self, values) -> None:
        v = self._checked(values, len(self.param_names))
        if np.any(v <= 0.0):
            raise ParameterError(f"values of {self.param_names}", v, "> 0")
        self.all.update(zip(self.param_names, v, strict=True))
        k = circular_constants(**self.all, shear_factor=self.shear_factor)
        m = self.model
        m.rhoA.value, m.M11.value, m.M22.value = k["rhoA"], k["M11"], k["M22"]
        m.C.value[:] = self._compliance(k)
        m.K.value[:] = np.where(self.free, 1.0 / np.where(self.free, m.C.value, 1.0), 0.0)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = len(self.param_names)
        return np.zeros(n), np.full(n, np.inf)

    def gradient(self, sens: Sensitivities) -> np.ndarray:
        m = self.model
        k = circular_constants(**self.all, shear_factor=self.shear_factor)
        C = self._compliance(k)
        g_mass = {n: float(np.sum(sens.dc[c])) for n, c in
                  (("rhoA", m.rhoA), ("M11", m.M11), ("M22", m.M22))}
        g_C = np.asarray(sens.dc[m.C]).sum(axis=0)
        out = []
        for name in self.param_names:
            i, p = _CIRCULAR_NAMES.index(name), self.all[name]
            g = sum(g_mass[n] * _CIRCULAR[n][i] * k[n] / p for n in g_mass)
            for j, n in enumerate(("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")):
                g += g_C[j] * (-_CIRCULAR[n][i] * C[j] / p)        # C = 1/k
            out.append(g)
        return np.array(out)


class RadiusProfile(Parameter):
    """Radius [m] of a solid circular section varying along s, constant on the segments
    ``[breaks[j], breaks[j+1]]`` (a stepped taper; values ``r_j``), with ``E`` [Pa], ``G``
    [Pa], ``rho`` [kg/m^3] fixed. It acts through the model's quadrature-point fields: the
    compliance ``C`` (zero for constrained strains) and, with ``self_weight``, the masses
    ``rhoA, M11, M22`` (without, they stay as built: a carried line mass). Setting the
    values rewrites those fields (also ``K``), so the model may be built with any section
    varying along s (:class:`fxrod.core.rod.VaryingSection`).

    Parameters
    ----------
    model : RodModel
        A model of one rod whose section varies along s, no extension setting the
        compliance.
    breaks : sequence of float
        Increasing arc lengths [m] from 0 to L (segment ends; put them at element nodes).
    values : sequence of float
        Radius of every segment [m] (> 0), written into the model.
    E, G, rho : float
        Young's and shear modulus [Pa], density [kg/m^3].
    shear_factor : float
        Shear correction factor (default 1).
    self_weight : bool
        Whether the masses follow the radius (default True).
    lower, upper : float
        Bounds of every radius [m] (default ``(0, inf)``).
    """

    name = "radius"

    def __init__(self, model, breaks, values, E: float, G: float, rho: float,
                 shear_factor: float = 1.0, self_weight: bool = True,
                 lower: float = 0.0, upper: float = np.inf) -> None:
        if isinstance(model.rhoA, fem.Constant) or len(model.structure.rods) != 1:
            raise ParameterError("model", "uniform section or several rods",
                                 "one rod with a section varying along s (VaryingSection)")
        b = np.asarray(breaks, dtype=float).reshape(-1)
        L = float(model.structure.rods[0].length)
        if b.size < 2 or np.any(np.diff(b) <= 0) or abs(b[0]) > 1e-12 * L or \
                abs(b[-1] - L) > 1e-12 * L:
            raise ParameterError("breaks", breaks, f"increasing arc lengths from 0 to {L:g} m")
        self.model, self.breaks, self.self_weight = model, b, bool(self_weight)
        self.E, self.G = check_positive("E", E), check_positive("G", G)
        self.rho = check_positive("rho", rho)
        self.shear_factor = check_positive("shear_factor", shear_factor)
        self.free = np.asarray(model.structure.rods[0].free, dtype=bool)
        self._lo, self._hi = float(lower), float(upper)
        self._seg = {f: self._segments(f) for f in self.constants()}
        self.values = np.zeros(b.size - 1)
        self.set(values)

    def constants(self) -> list[fem.Function]:
        m = self.model
        return [m.rhoA, m.M11, m.M22, m.C] if self.self_weight else [m.C]

    def _segments(self, f: fem.Function) -> np.ndarray:
        """Segment index of every local dof of a quadrature field (blocked: per value)."""
        bs = f.function_space.dofmap.bs
        x = fem.Function(f.function_space)
        x.interpolate(lambda p: np.tile(p[0], (bs, 1)) if bs > 1 else p[0])
        seg = np.searchsorted(self.breaks, x.x.array, side="right") - 1
        return np.clip(seg, 0, self.breaks.size - 2)

    def get(self) -> np.ndarray:
        return self.values.copy()

    def set(self, values) -> None:
        v = self._checked(values, self.breaks.size - 1)
        if np.any(v <= 0.0):
            raise ParameterError("values of radius", v, "> 0")
        self.values = v
        m = self.model
        if self.self_weight:
            for n, f in (("rhoA", m.rhoA), ("M11", m.M11), ("M22", m.M22)):
                f.x.array[:] = self._constant(n)[self._seg[f]]
        C = self._compliance()                          # (segments, 6)
        seg = self._seg[m.C].reshape(-1, 6)[:, 0]
        m.C.x.array[:] = C[seg].reshape(-1)
        m.K.x.array[:] = np.where(self.free, 1.0 / np.where(self.free, C[seg], 1.0),
                                  0.0).reshape(-1)

    def _constant(self, name: str) -> np.ndarray:
        return np.array([circular_constants(self.E, self.G, self.rho, r, self.shear_factor)
                         [name] for r in self.values])

    def _compliance(self) -> np.ndarray:
        k = np.array([[circular_constants(self.E, self.G, self.rho, r, self.shear_factor)[n]
                       for n in _STIFFNESS] for r in self.values])
        return np.where(self.free, 1.0 / k, 0.0)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.values.size
        return np.full(n, self._lo), np.full(n, self._hi)

    def gradient(self, sens: Sensitivities) -> np.ndarray:
        """``dJ/dr_j = sum_q dJ/dc(s_q) dc/dr`` over the quadrature values in segment j,
        with ``c ~ r^a`` (``dc/dr = a c / r``; ``C = 1/k``: ``-a C / r``)."""
        m, r, nseg = self.model, self.values, self.values.size
        g = np.zeros(nseg)
        bs_C = 6
        dC = np.sum(sens.dc[m.C], axis=0).reshape(-1, bs_C)
        seg = self._seg[m.C].reshape(-1, bs_C)[:, 0][: dC.shape[0]]
        a = np.array([_CIRCULAR[n][3] for n in _STIFFNESS])
        rate = -a * self._compliance() / r[:, None]     # dC/dr per segment, (nseg, 6)
        np.add.at(g, seg, np.sum(dC * rate[seg], axis=1))
        if self.self_weight:
            for n, f in (("rhoA", m.rhoA), ("M11", m.M11), ("M22", m.M22)):
                d = np.sum(sens.dc[f], axis=0)
                seg = self._seg[f][: d.size]
                np.add.at(g, seg, d * (_CIRCULAR[n][3] * self._constant(n) / r)[seg])
        return m.comm.allreduce(g, op=MPI.SUM)


def hat_weights(knots: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
    """Indices and weights of the piecewise-linear interpolation at time t [s] between
    ``knots`` (constant beyond the ends, like ``np.interp``)."""
    if t <= knots[0] or knots.size == 1:
        return np.array([0]), np.array([1.0])
    if t >= knots[-1]:
        return np.array([knots.size - 1]), np.array([1.0])
    k = int(np.searchsorted(knots, t, side="right")) - 1
    a = (t - knots[k]) / (knots[k + 1] - knots[k])
    return np.array([k, k + 1]), np.array([1.0 - a, a])


class InputHistory(Parameter):
    """An input history, piecewise linear in time between ``knots``: an end or distributed
    load's ``force`` or ``moment`` [N, N m] (3 components per knot) or an actuator's force
    [N] (one value per knot, times ``scale``: ``scale = -A`` makes the values chamber
    pressures [Pa]). Installed as the input's time function.

    Parameters
    ----------
    name : str
        Name of the parameter.
    target : Load or (Actuation, Actuator)
        The load (``fxrod.core.loads.EndLoad``/``DistributedLoad``) or the actuation extension
        and one of its actuators, of a built model.
    knots : sequence of float
        Increasing times [s] (load factors in statics); use the steps' evaluation times
        ``(n + theta) h`` for per-step values.
    values : array, optional
        Initial values ``(n_knots, 3)`` of a load, ``(n_knots,)`` of an actuator (default:
        the current input at the knots).
    component : {"force", "moment"}
        Which input of a load.
    scale : float
        Factor from the values to the actuator force (actuators only; default 1).
    lower, upper : float
        Bounds of every value.
    """

    def __init__(self, name: str, target, knots: Sequence[float], values=None,
                 component: str = "force", scale: float = 1.0, lower: float = -np.inf,
                 upper: float = np.inf) -> None:
        self.name = str(name)
        knots = np.asarray(knots, dtype=float).reshape(-1)
        if knots.size < 1 or not np.all(np.isfinite(knots)) or np.any(np.diff(knots) <= 0):
            raise ParameterError(f"{name}: knots", knots, "increasing finite times")
        self.knots, self.scale = knots, float(scale)
        self._lo, self._hi = float(lower), float(upper)
        if isinstance(target, tuple):
            ext, act = target
            acts = getattr(ext, "actuators", None)
            if acts is None or getattr(ext, "force_constant", None) is None or \
                    not any(a is act for a in acts):
                raise ParameterError(f"{name}: target", target, "(Actuation extension of a "
                                     "built model, one of its actuators)")
            self.obj, self.attr = act, "force"
            self.constant = ext.force_constant
            self.index = next(i for i, a in enumerate(acts) if a is act)
            self.width = 1
        else:
            if component not in ("force", "moment"):
                raise ParameterError(f"{name}: component", component, "'force' or 'moment'")
            consts = target.constants if isinstance(target, Load) else {}
            const = consts.get(component)
            if not isinstance(const, fem.Constant):
                raise ParameterError(f"{name}: target", target, "an end or distributed load "
                                     "of a built model, or (Actuation, actuator)")
            self.obj, self.attr, self.constant = target, component, const
            self.index, self.width = None, 3
        if values is None:
            f = getattr(self.obj, self.attr)
            values = (np.zeros((knots.size, 3)) if f is None and self.width == 3 else
                      np.array([np.asarray(f(t), dtype=float) / (1.0 if self.width == 3
                                                                 else self.scale)
                                for t in knots]))
        self.set(values)

    def get(self) -> np.ndarray:
        return self.values.reshape(-1).copy()

    def set(self, values) -> None:
        v = self._checked(values, self.knots.size * self.width)
        self.values = v.reshape(self.knots.size, self.width) if self.width == 3 else v.copy()
        knots, vals, scale = self.knots, self.values.copy(), self.scale
        if self.width == 3:
            def f(t: float) -> np.ndarray:
                return np.array([np.interp(t, knots, vals[:, i]) for i in range(3)])
        else:
            def f(t: float) -> float:
                return scale * float(np.interp(t, knots, vals))
        setattr(self.obj, self.attr, f)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.values.size
        return np.full(n, self._lo), np.full(n, self._hi)

    def constants(self) -> list[fem.Constant]:
        return [self.constant]

    def writes(self) -> list:
        """The input function it installs (actuators of one extension share a Constant)."""
        return [(id(self.obj), self.attr)]

    def gradient(self, sens: Sensitivities) -> np.ndarray:
        g = np.zeros((self.knots.size, self.width))
        for n, t in enumerate(sens.t_eval):
            dc = np.asarray(sens.dc[self.constant][n]).reshape(-1)
            du = dc if self.index is None else self.scale * dc[self.index]
            idx, wts = hat_weights(self.knots, t)
            g[idx] += wts[:, None] * du
        return g.reshape(-1)


class InitialVelocity(Parameter):
    """The initial velocity ``v_0`` (the owned P2 dofs of this rank, 12 per node) [m/s, 1/s];
    ``values`` default: zero (at rest)."""

    name = "v0"

    def __init__(self, model, values=None) -> None:
        self.model = model
        im = model.space.Q.dofmap.index_map
        self.n_owned = im.size_local * model.space.Q.dofmap.index_map_bs
        self.set(np.zeros(self.n_owned) if values is None else values)

    def get(self) -> np.ndarray:
        return self.values.copy()

    def set(self, values) -> None:
        self.values = self._checked(values, self.n_owned)

    def writes(self) -> list:
        """The model's initial velocity."""
        return [(id(self.model.v0), "v0")]

    def start(self, model) -> None:
        model.v0.x.array[: self.n_owned] = self.values
        model.v0.x.scatter_forward()
        model.ledger.invalidate()

    def gradient(self, sens: Sensitivities) -> np.ndarray:
        return sens.g_v0.copy()


# ---------------------------------------------------------------------- objectives
class Objective:
    """``J = sum_n j(w_n, v_n, t_n)`` over the states after the steps, n = 1..N.

    :meth:`terms` returns, for the state after step n (``final`` on the last), the local
    value (summed over ranks) and its gradients with respect to the owned dofs of ``w``
    and ``v`` (None where zero)."""

    def bind(self, adjoint: Adjoint) -> None:
        """Locate what the objective reads in the adjoint's model."""

    def terms(self, n: int, t: float, w: np.ndarray, v: np.ndarray,
              final: bool) -> tuple[float, np.ndarray | None, np.ndarray | None]:
        raise NotImplementedError  # pragma: no cover - interface


class NodeFunction(Objective):
    """A user function of the nodal configuration ``q`` (12,) at the P2 node at arc length
    ``s`` [m]: ``fn(t, q) -> (value, dvalue/dq (12,))``, summed over every step (or taken
    on the final state only, ``final_only``)."""

    def __init__(self, fn: Callable, s: float | None = None, final_only: bool = False) -> None:
        if not callable(fn):
            raise ParameterError("fn", fn, "a callable (t, q) -> (value, gradient (12,))")
        self.fn, self.s, self.final_only = fn, s, bool(final_only)

    def bind(self, adjoint: Adjoint) -> None:
        m = adjoint.model
        s = m.tip_coordinate if self.s is None else float(self.s)
        Q = m.space.Q
        n_own = Q.dofmap.index_map.size_local
        xs = Q.tabulate_dof_coordinates()[:n_own, 0]
        idx = np.flatnonzero(np.isclose(xs, s, atol=1e-12 * max(m.rod.length, 1.0)))
        found = m.comm.allreduce(int(idx.size > 0), op=MPI.SUM)
        if not found:
            raise ParameterError("s", s, "the arc length of a P2 node")
        owner = m.comm.allreduce(m.comm.rank if idx.size else m.comm.size, op=MPI.MIN)
        self._dofs = (m.space.q_map[idx[0] * 12 + np.arange(12)]
                      if idx.size and m.comm.rank == owner else None)
        self._n_w = adjoint.n_owned_w
        self._comm = m.comm

    def terms(self, n, t, w, v, final):
        if (self.final_only and not final) or self._dofs is None:
            return 0.0, None, None
        val, grad = self.fn(t, w[self._dofs].copy())
        g = np.zeros(self._n_w)
        g[self._dofs] = np.asarray(grad, dtype=float)
        return float(val), g, None


class TipTracking(NodeFunction):
    """``weight * sum_n |phi_tip(t_n) - target(t_n)|^2`` [m^2] over the states after every
    step; ``target``: a callable ``t -> (3,)`` or an array ``(N, 3)`` of the steps."""

    def __init__(self, target, weight: float = 1.0) -> None:
        self.target, self.weight = target, float(weight)
        super().__init__(self._term)

    def _term(self, t: float, q: np.ndarray) -> tuple[float, np.ndarray]:
        tgt = self.target(t) if callable(self.target) else self.target[self._n - 1]
        r = q[:3] - np.asarray(tgt, dtype=float)
        g = np.zeros(12)
        g[:3] = 2.0 * self.weight * r
        return self.weight * float(r @ r), g

    def terms(self, n, t, w, v, final):
        if not callable(self.target) and len(self.target) < n:
            raise ParameterError("target", f"{len(self.target)} rows", f">= {n} (the steps)")
        self._n = n
        return super().terms(n, t, w, v, final)


class FinalPose(NodeFunction):
    """``weight * |q_tip(t_N) - target|^2`` of the final state: ``target`` a position (3,)
    [m] or a whole pose ``(phi, d1, d2, d3)`` (12,)."""

    def __init__(self, target, weight: float = 1.0) -> None:
        tgt = np.asarray(target, dtype=float).reshape(-1)
        if tgt.size not in (3, 12) or not np.all(np.isfinite(tgt)):
            raise ParameterError("target", target, "a finite position (3,) or pose (12,)")
        self.tgt, self.weight = tgt, float(weight)
        super().__init__(self._term, final_only=True)

    def _term(self, t: float, q: np.ndarray) -> tuple[float, np.ndarray]:
        r = q[: self.tgt.size] - self.tgt
        g = np.zeros(12)
        g[: self.tgt.size] = 2.0 * self.weight * r
        return self.weight * float(r @ r), g


# ---------------------------------------------------------------------- the adjoint
@dataclass
class _Record:
    t: list = field(default_factory=list)       # step start times [s]
    h: list = field(default_factory=list)       # step sizes [s]
    t1: list = field(default_factory=list)      # step end times [s]
    states: dict = field(default_factory=dict)  # step index -> (w local, v local)


class Adjoint:
    """Objective and gradient of a forward run of ``integrator`` from the model's initial
    state to ``t_end``, by the discrete adjoint.

    Parameters
    ----------
    integrator : fxrod.runs.integrators.Integrator
        The stepper of a model without joints (reused for every forward run).
    t_end : float
        End time [s] (load factor in statics).
    objective : Objective
        What to minimise.
    parameters : sequence of Parameter
        The parameters, in the order of the flat vector.
    checkpoint_every : int
        Keep every k-th state, recompute the others in the backward sweep (default 1: all).
    """

    def __init__(self, integrator, t_end: float, objective: Objective,
                 parameters: Sequence[Parameter], checkpoint_every: int = 1) -> None:
        m = integrator.model
        if m.reduction is not None:
            raise ParameterError("model", "with joints", "a model without joints")
        for ext in m.extensions:
            if ext.outside_ufl and getattr(ext, "mu", 0.0) > 0.0:
                raise ParameterError(f"{ext.name}.friction", ext.mu,
                                     "0 in the adjoint (rod-rod friction depends on the "
                                     "state at t_n through the sliding velocity)")
        if not isinstance(objective, Objective):
            raise ParameterError("objective", objective, "a fxrod.analysis.adjoint.Objective")
        if not parameters or not all(isinstance(p, Parameter) for p in parameters):
            raise ParameterError("parameters", parameters, "a non-empty list of Parameters")
        owner: dict = {}
        for p in parameters:   # two parameters writing one input would overwrite each other
            for key in p.writes():
                other = owner.setdefault(key, p)
                if other is not p:
                    raise ParameterError("parameters", f"{other.name} and {p.name}",
                                         "parameters that set different inputs (these two "
                                         "set the same one)")
        if m.structure.natural_curvature is not None and \
                any(c is m.C for p in parameters for c in p.constants()) and \
                any(type(e).compliance is not Extension.compliance for e in m.extensions):
            raise ParameterError("parameters", "the compliance of a rod with a natural "
                                 "curvature", "without an extension that sets the compliance "
                                 "(GeneralizedMaxwell: its initial stresses are not K e_0)")
        self.integrator, self.model = integrator, m
        self.t_end = check_positive("t_end", t_end)
        self.objective, self.parameters = objective, list(parameters)
        self.k = check_int_min("checkpoint_every", checkpoint_every, 1)
        W, Q = m.space.W, m.space.Q
        self.n_owned_w = W.dofmap.index_map.size_local * W.dofmap.index_map_bs
        self.n_owned_q = Q.dofmap.index_map.size_local * Q.dofmap.index_map_bs
        self._qmap_owned = m.space.q_map[: self.n_owned_q]
        bc = [b.dof_indices() for b in m.bcs]
        self._bc_owned = np.unique(np.concatenate(
            [d[: n] for d, n in bc] or [np.zeros(0, np.int32)]))
        self._forms()
        self._initial_stress_forms()
        objective.bind(self)
        self.record: _Record | None = None
        self.value: float | None = None

    # ---------------------------------------------------------------- forms
    def _forms(self) -> None:
        m = self.model
        W, Q = m.space.W, m.space.Q
        self.lam = fem.Function(W, name="adjoint")
        Phi = ufl.action(m.F, self.lam)                      # lambda^T F
        self._a = fem.form(ufl.derivative(m.F, m.w, ufl.TrialFunction(W)))
        self._dw0 = fem.form(ufl.derivative(Phi, m.w0, ufl.TestFunction(W)))
        self._dv0 = None if m.quasistatic else \
            fem.form(ufl.derivative(Phi, m.v0, ufl.TestFunction(Q)))
        self._dc = {}
        for c in {id(c): c for p in self.parameters for c in p.constants()}.values():
            if isinstance(c, fem.Function):                 # a field along s: per dof
                V = c.function_space
                self._dc[c] = (None, fem.form(ufl.derivative(Phi, c, ufl.TestFunction(V))),
                               None)
                continue
            shape = tuple(c.ufl_shape)
            V = fem.functionspace(m.mesh, ("DG", 0, shape) if shape else ("DG", 0))
            cf = fem.Function(V)
            form = ufl.derivative(ufl.replace(Phi, {c: cf}), cf, ufl.TestFunction(V))
            self._dc[c] = (cf, fem.form(form), shape)
        self.terms = list(m.nonlocal_terms)
        self._skip = global_bc_dofs(m.w, m.bcs)
        #: the MUMPS solver of the transposed solves on the "mumps" backend
        self.direct = mumps.DirectSolver(m.comm, self.integrator.settings.icntl())
        #: the step Jacobian assembled for MUMPS (made at its first solve) and its vectors
        self.A = self._b = self._x = None
        #: the chain solver's solution of the last transposed solve (owned dofs)
        self._lam_owned = np.zeros(self.n_owned_w)
        #: why the transposed solves left the chain solver (a factorisation it rejected)
        self._chain_reason: str | None = None

    def _initial_stress_forms(self) -> None:
        """For a rod with a natural curvature, which starts stressed: the forms of the
        initial stress's sensitivity to the compliance C, when C is a parameter.

        The initial stress is ``sigma_0 = Pi_DG1(K e_0)`` (``M_S sigma_0 = b(K)``, ``M_S``
        the DG1 mass matrix, ``e_0 = eps(q_ref) - eps0``, ``K = 1/C`` on the free strains
        and 0 on the constrained ones), so J depends on C through the initial state too:
        ``dJ/dC += mu^T db/dC`` with ``M_S mu = dJ/dsigma_0``. ``self._init`` is None
        otherwise."""
        m = self.model
        self._init = None
        if m.structure.natural_curvature is None or m.C not in self._dc:
            return
        S, C = m.space.S, m.C
        mu = fem.Function(S)
        safe = [C[i] + ufl.conditional(ufl.eq(C[i], 0.0), 1.0, 0.0) for i in range(6)]
        K = ufl.as_vector([ufl.conditional(ufl.ne(C[i], 0.0), 1.0 / safe[i], 0.0)
                           for i in range(6)])
        psi = ufl.inner(ufl.elem_mult(K, strains(m.q_ref, m.q_ref.dx(0)) - m.eps0), mu) \
            * m.ctx.dx
        cf = self._dc[C][0]
        form = ufl.derivative(psi, C, ufl.TestFunction(C.function_space)) if cf is None \
            else ufl.derivative(ufl.replace(psi, {C: cf}), cf, ufl.TestFunction(cf.function_space))
        u, v = ufl.TrialFunction(S), ufl.TestFunction(S)
        M = assemble_matrix(fem.form(ufl.inner(u, v) * m.ctx.dx))
        M.assemble()
        solver = mumps.DirectSolver(m.comm, self.integrator.settings.icntl())
        solver.factor(M)
        self._init = (mu, fem.form(form), M, solver)

    def _initial_stress_sensitivity(self, g_w0: np.ndarray) -> np.ndarray:
        """``mu^T db/dC`` (the shape of :meth:`_constant_sensitivity` of C) for the
        sensitivity ``g_w0`` of J to the initial state (owned dofs)."""
        mu, form, M, solver = self._init
        m = self.model
        im = m.space.S.dofmap.index_map
        n_own = im.size_local * m.space.S.dofmap.index_map_bs
        b, x = M.createVecRight(), M.createVecRight()
        b.array[:] = g_w0[m.space.s_map[:n_own]]
        solver.solve(b, x)
        mu.x.array[:n_own] = x.array
        mu.x.scatter_forward()
        b.destroy()
        x.destroy()
        return self._constant_sensitivity(m.C, form)

    def _stiffness_from_compliance(self) -> None:
        """Set ``K = 1/C`` on the free strains (0 on the constrained ones, where C is 0):
        the initial stress of a rod with a natural curvature is computed with K, and a
        parameter may have set C alone."""
        m = self.model
        C = np.asarray(m.C.value if isinstance(m.C, fem.Constant) else m.C.x.array)
        K = np.divide(1.0, C, out=np.zeros_like(C), where=C != 0.0)
        if isinstance(m.K, fem.Constant):
            m.K.value[:] = K
        else:
            m.K.x.array[:] = K

    def _assemble_dual(self, form, n_owned: int) -> np.ndarray:
        b = fem.assemble_vector(form)
        b.scatter_reverse(la.InsertMode.add)
        return b.array[:n_owned].copy()

    def _constant_sensitivity(self, c, form=None) -> np.ndarray:
        """The sensitivity ``d(lambda^T F)/dc`` (or of ``form``, a derivative with respect
        to c or its DG0 replacement): the shape of c, or this rank's owned dofs of a
        Function."""
        cf, own, shape = self._dc[c]
        form = own if form is None else form
        if cf is None:                                      # a Function: its owned dofs
            im = c.function_space.dofmap.index_map
            return self._assemble_dual(form, im.size_local * c.function_space.dofmap.bs)
        cf.x.array[:] = np.tile(np.asarray(c.value, dtype=float).reshape(-1),
                                cf.x.array.size // max(1, int(np.prod(shape))))
        b = fem.assemble_vector(form)
        b.scatter_reverse(la.InsertMode.add)
        bs = int(np.prod(shape)) if shape else 1
        n_own = cf.function_space.dofmap.index_map.size_local * bs
        local = b.array[:n_own].reshape(-1, bs).sum(axis=0)
        return self.model.comm.allreduce(local, op=MPI.SUM).reshape(shape)

    # ---------------------------------------------------------------- forward
    @property
    def sizes(self) -> list[int]:
        """Number of values of every parameter."""
        return [p.get().size for p in self.parameters]

    def get(self) -> np.ndarray:
        """The flat parameter vector."""
        return np.concatenate([p.get() for p in self.parameters])

    def set(self, x) -> None:
        """Set the flat parameter vector (checked length)."""
        x = np.asarray(x, dtype=float).reshape(-1)
        n = sum(self.sizes)
        if x.size != n:
            raise ParameterError("parameter vector", f"length {x.size}", f"length {n}")
        i = 0
        for p, k in zip(self.parameters, self.sizes, strict=True):
            p.set(x[i:i + k])
            i += k

    def _reset(self) -> None:
        m, it = self.model, self.integrator
        if self._init is not None:
            self._stiffness_from_compliance()
        m.set_initial_state()
        for p in self.parameters:
            p.start(m)
        it.set_state({"t": 0.0, "h": it.h_nominal, "step_count": 0, "successes": 0,
                      "t_base": 0.0, "n_uniform": 0})

    def forward(self, x=None) -> float:
        """Run from the initial state to ``t_end`` (parameters ``x`` if given); record the
        steps and return J (raises ParameterError when J is not finite)."""
        if x is not None:
            self.set(x)
        self._reset()
        m, it = self.model, self.integrator
        rec = self.record = _Record()
        rec.states[0] = (m.w0.x.array.copy(), m.v0.x.array.copy())
        local = [0.0]

        def after(integrator, res) -> None:
            n = len(rec.h) + 1
            rec.h.append(res.h)
            rec.t.append(self._t_prev)
            self._t_prev = integrator.t
            rec.t1.append(integrator.t)
            if n % self.k == 0:
                rec.states[n] = (m.w0.x.array.copy(), m.v0.x.array.copy())
            final = integrator.t >= self.t_end - 1e-12 * max(1.0, self.t_end)
            local[0] += self.objective.terms(n, integrator.t, m.w0.x.array, m.v0.x.array,
                                             final)[0]

        self._t_prev = it.t
        it.advance_to(self.t_end, callback=after)
        J = m.comm.allreduce(local[0], op=MPI.SUM)
        if not math.isfinite(J):
            raise ParameterError("objective", J, "a finite value")
        self.value = J
        return J

    # ---------------------------------------------------------------- backward
    def _replay(self, n: int) -> None:
        """Solve step n again from the state in the model (w0, v0) (checkpoint recompute)."""
        m, it, rec = self.model, self.integrator, self.record
        h, t = rec.h[n], rec.t[n]
        m.begin_step(t, h)
        qm = m.space.q_map
        m.w.x.array[:] = m.w0.x.array
        if not m.quasistatic:
            m.w.x.array[qm] += h * m.v0.x.array
        reason, its = it.newton.solve(lag=1)
        if reason <= 0:
            raise ConvergenceError(t, h, snes_reason_name(reason), "adjoint recomputation")
        m.finish_step()

    def _segment(self, start: int, stop: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """States start..stop (inclusive), recomputed from the checkpoint at ``start``."""
        m, rec = self.model, self.record
        w, v = rec.states[start]
        out = [(w, v)]
        if stop > start and all(i in rec.states for i in range(start + 1, stop + 1)):
            return [rec.states[i] for i in range(start, stop + 1)]
        m.w0.x.array[:], m.v0.x.array[:] = w, v
        for n in range(start, stop):
            self._replay(n)
            out.append((m.w0.x.array.copy(), m.v0.x.array.copy()))
        return out

    def gradient(self) -> np.ndarray:
        """dJ/dx of the last forward run (flat, in the order of the parameters)."""
        rec = self.record
        if rec is None:
            raise ParameterError("adjoint", "no forward run", "forward() before gradient()")
        m = self.model
        N = len(rec.h)
        theta = float(m.theta.value)
        sens = Sensitivities(np.array([t + theta * h for t, h in zip(rec.t, rec.h,
                                                                      strict=True)]))
        for c in self._dc:
            sens.dc[c] = [None] * N
        g_w, g_v = np.zeros(self.n_owned_w), np.zeros(self.n_owned_q)
        qo, bc = self._qmap_owned, self._bc_owned
        w_end, v_end = m.w0.x.array.copy(), m.v0.x.array.copy()
        for start in range((N - 1) // self.k * self.k, -1, -self.k):
            states = self._segment(start, min(start + self.k, N))
            for n in range(min(start + self.k, N) - 1, start - 1, -1):
                (w0, v0), (w1, v1) = states[n - start], states[n + 1 - start]
                h = rec.h[n]
                _, jw, jv = self.objective.terms(n + 1, rec.t1[n], w1, v1, n + 1 == N)
                if jw is not None:
                    g_w += jw
                if jv is not None:
                    g_v += jv
                m.w0.x.array[:], m.v0.x.array[:], m.w.x.array[:] = w0, v0, w1
                m.begin_step(rec.t[n], h)
                rhs = g_w.copy()
                if not m.quasistatic:
                    rhs[qo] += 2.0 / h * g_v
                rhs[bc] = 0.0
                self._solve_transpose(-rhs)
                g_w = self._assemble_dual(self._dw0, self.n_owned_w) + self._nonlocal_dw0()
                if not m.quasistatic:
                    g_w[qo] -= 2.0 / h * g_v
                    g_v = self._assemble_dual(self._dv0, self.n_owned_q) - g_v
                for c in self._dc:
                    sens.dc[c][n] = self._constant_sensitivity(c)
        sens.g_w0, sens.g_v0 = g_w, (g_v if not m.quasistatic else np.zeros_like(g_v))
        if self._init is not None:                        # the initial stress's share
            sens.dc[m.C][0] = sens.dc[m.C][0] + self._initial_stress_sensitivity(g_w)
        m.w0.x.array[:], m.v0.x.array[:] = w_end, v_end
        m.w.x.array[:] = w_end
        return np.concatenate([p.gradient(sens) for p in self.parameters])

    @property
    def backend(self) -> str:
        """The linear backend of the transposed solves: ``"chain"`` while the forward run's
        Newton solver solves on the chain solver (:class:`fxrod.solvers.chain.ChainSolver`,
        one open rod across ranks :class:`fxrod.solvers.chain_mpi.ChainPieces`; its
        :class:`fxrod.solvers.chain.ChainPC` has not fallen back to MUMPS) and the model has
        no terms outside UFL, else ``"mumps"`` (the forward run's backend too, or a
        factorisation the chain solver rejected in the backward sweep: MUMPS from then on,
        with a warning)."""
        newton = self.integrator.newton
        pc = getattr(newton, "chain", None)
        on_chain = (pc is not None and pc.reason is None and newton.fast_jacobian is not None
                    and not self.terms and self._chain_reason is None)
        return "chain" if on_chain else "mumps"

    def _solve_transpose(self, rhs: np.ndarray) -> None:
        """lambda = A^-T rhs with A the step Jacobian at the model's state (Dirichlet rows
        and columns replaced by the identity: lambda = rhs = 0 there), on :attr:`backend`."""
        if self.backend == "chain":
            try:
                self._chain_transpose(rhs)
                return
            except RuntimeError as err:
                self._chain_reason = str(err)
                warnings.warn(f"fxrod: adjoint: {err}; using MUMPS", RuntimeWarning,
                              stacklevel=3)
        self._mumps_transpose(rhs)

    def _chain_transpose(self, rhs: np.ndarray) -> None:
        """The transposed solve on the forward run's chain solver: the element matrices of
        the step Jacobian computed and factored by its fast Jacobian's assembly (the
        constants packed first: h changes between steps), then
        :meth:`fxrod.solvers.chain.ChainSolver.solve_transpose` (owned dofs; collective
        across ranks). Its element matrices have zero Dirichlet rows and columns and the
        condensed system a unit diagonal there, the matrix of :meth:`_mumps_transpose`.
        The forward run's factors are replaced: they are marked stale, so its next Newton
        solve factors anew. Raises RuntimeError when the chain solver rejects the
        factorisation."""
        newton = self.integrator.newton
        chain, fj = newton.chain.chain, newton.fast_jacobian
        fj.assemble(constants=True)
        chain.factor(fj.elem)
        chain.solve_transpose(np.ascontiguousarray(rhs, dtype=np.float64), self._lam_owned)
        chain.factored = False     # not the forward run's factors
        self.lam.x.array[: self.n_owned_w] = self._lam_owned
        self.lam.x.scatter_forward()

    def _mumps_transpose(self, rhs: np.ndarray) -> None:
        """The transposed solve by MUMPS on the step Jacobian assembled by DOLFINx, with the
        Jacobian blocks of the terms outside UFL."""
        m = self.model
        if self.A is None:
            self.A = assemble_matrix(self._a, bcs=m.bcs)
            self._b, self._x = self.A.createVecRight(), self.A.createVecRight()
        else:
            self.A.zeroEntries()
            assemble_matrix(self.A, self._a, bcs=m.bcs)
        A = self.A
        A.assemble()
        for term in self.terms:
            term.add_jacobian(A, self._skip)
        self.direct.factor(A)
        self._b.array[:] = rhs
        self.direct.solve_transpose(self._b, self._x)
        self.lam.x.array[: self.n_owned_w] = self._x.array
        self.lam.x.scatter_forward()

    def _nonlocal_dw0(self) -> np.ndarray | float:
        """``(dF_n/dw_n)^T lambda`` of the terms outside UFL (owned dofs; 0 without them or
        with the end-point evaluation): their Jacobian with ``w`` and ``w0`` swapped (the
        midpoint discrete gradient is symmetric in the two states), assembled into ``A``
        after its solve (A is reassembled before the next one)."""
        m = self.model
        if not self.terms or float(m.theta.value) == 1.0:
            return 0.0
        w1 = m.w.x.array.copy()
        m.w.x.array[:], m.w0.x.array[:] = m.w0.x.array, w1
        A = self.A
        A.zeroEntries()
        try:
            for term in self.terms:
                term.add_jacobian(A, np.empty(0, dtype=np.int64))
        finally:
            m.w0.x.array[:], m.w.x.array[:] = m.w.x.array, w1
        out = A.createVecRight()
        A.multTranspose(self._x, out)
        g = out.array.copy()
        out.destroy()
        return g

    def value_and_grad(self, x=None) -> tuple[float, np.ndarray]:
        """``(J, dJ/dx)`` at the flat parameters ``x`` (default the current ones)."""
        J = self.forward(x)
        return J, self.gradient()


def taylor_remainders(adjoint: Adjoint, direction, eps: Sequence[float],
                      x=None) -> tuple[np.ndarray, np.ndarray]:
    """Taylor test: ``r(e) = |J(x + e d) - J(x) - e dJ/dx . d|`` for every e of ``eps``
    and the observed orders ``log(r_i/r_{i+1})/log(e_i/e_{i+1})`` (2 for a correct
    gradient). Returns ``(remainders, orders)``."""
    x = adjoint.get() if x is None else np.asarray(x, dtype=float)
    d = np.asarray(direction, dtype=float).reshape(-1)
    if d.size != x.size or not np.all(np.isfinite(d)):
        raise ParameterError("direction", f"length {d.size}", f"{x.size} finite numbers")
    J0, g = adjoint.value_and_grad(x)
    eps = np.asarray(eps, dtype=float)
    r = np.array([abs(adjoint.forward(x + e * d) - J0 - e * float(g @ d)) for e in eps])
    adjoint.set(x)
    return r, np.log(r[:-1] / r[1:]) / np.log(eps[:-1] / eps[1:])
