"""Generalized Maxwell viscoelasticity of the mixed PH rod (theory §3.1, eqs. (55)-(67)).

A long-term elastic branch (compliance ``C_inf``) acts in parallel with ``m`` Maxwell
branches ``i = 1..m`` (spring ``C^(i)`` in series with a dashpot ``V^(i)``):

* (55) the momentum balance sees ``sigma_inf + sum_i sigma^(i)``;
* (58) ``C_inf dsigma_inf/dt = J_v v`` and ``C^(i) dsigma^(i)/dt = J_v v - (V^(i))^-1 sigma^(i)``;
* (59)-(60) (Remark 5.1) ``(V^(i))^-1 = diag(1/tau_G, 1/tau_G, 1/tau_E, 1/tau_E, 1/tau_E,
  1/tau_G) C^(i)``: shear and torsion relax with ``tau_G``, extension and bending with
  ``tau_E``. Here (:class:`MaxwellBranch`) tau is the branch's own relaxation time
  ``eta_i/k_i``. The paper defines ``tau = eta/E`` with the material's moduli E, G, so a
  branch holding the fraction f of the stiffness relaxes with ``tau/f``;
  :meth:`GeneralizedMaxwell.proportional` takes the paper's tau (this reading, not
  ``V^(i) = tau k^(i)``, is what reproduces the authors' Ex. 6.2 data);
* consistency: ``C_inf^-1 + sum_i (C^(i))^-1 = diag(C_Gamma, C_K)`` (the rod's stiffnesses).

The long-term branch *is* the model's stress field ``sigma = (N, M)``: this extension only
sets its compliance to ``C_inf``. Every branch adds one DG1 stress field (6 components, like
N and M). The midpoint step (42) is extended by the branch rows, divided by h as in
:mod:`fxrod.core.forms.elastic`::

    (dsig, C^(i) (sig_{n+1} - sig_n))/h - (dsig, d eps[q_m; v_m]) + (dsig, V^-1 sig_m) = 0

Testing the momentum rows with ``v_m`` and these rows with ``sig_m = (sig_n + sig_{n+1})/2``
gives the exact discrete balance (theory §2.3, eq. (65)-(67))::

    H_{n+1} - H_n = W_ext^n - D^n,   D^n = h int sum_i sig_m^(i) . (V^(i))^-1 sig_m^(i) ds >= 0

(3-point Gauss integrates every term exactly, so it holds to round-off / Newton tolerance).

Constrained strains (zero rod compliance, e.g. Kirchhoff ``C_N = 0``) carry no branch
stress: those components of every branch field are pinned to zero by the row
``(dsig, sig_{n+1}/k)``. A stiffness entry 0 in a branch likewise switches that branch off
in that component.

Kelvin-Voigt (Remark 5.2) is the case m = 1 with a rigid spring ``C^(1) = 0``. The branch
row then has no time derivative: ``J_v v_m = V^-1 sig^(1)`` is an algebraic equation, and the
branch stress is a step unknown like the multiplier lambda (or N of a constrained strain).
A "rigid" branch therefore stores the *midpoint* stress ``sig_{n+1/2}`` in its field (so no
spurious ``sig_{n+1} = 2 sig_m - sig_n`` oscillation appears) and uses it directly in the
momentum balance and in ``D^n``. Use :meth:`GeneralizedMaxwell.kelvin_voigt`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.forms.base import Extension
from fxrod.core.kinematics import strain_rate
from fxrod.core.rod import STRAIN_NAMES, Rod
from fxrod.core.spaces import stress_element
from fxrod.errors import ParameterError, check_vector

#: Which relaxation time each strain component uses (Remark 5.1, eq. (59)-(60)):
#: shear1, shear2, torsion -> tau_G; extension, bend1, bend2 -> tau_E.
_USES_TAU_G = np.array([True, True, False, False, False, True])

#: Relative tolerance of the stiffness consistency check.
_SUM_RTOL = 1e-10


def _check_tau(name: str, value: float) -> float:
    """A relaxation time in ``(0, inf]`` [s] (``inf``: the dashpot never flows)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, value, "a relaxation time in (0, inf] s") from None
    if math.isnan(v) or v <= 0.0:
        raise ParameterError(name, value, "a relaxation time in (0, inf] s")
    return v


@dataclass(frozen=True)
class MaxwellBranch:
    """One Maxwell branch: a spring in series with a dashpot (theory §3.1).

    Parameters
    ----------
    stiffness : sequence of 6 floats
        Spring stiffnesses ``(k_s1, k_s2, k_e [N], k_b1, k_b2, k_t [N m^2])`` of the branch,
        each >= 0 (0 switches the branch off in that component).
    tau_E : float
        Relaxation time of the extension and bending modes [s], in ``(0, inf]``.
    tau_G : float
        Relaxation time of the shear and torsion modes [s], in ``(0, inf]``.
    rigid : bool
        Rigid spring ``C^(i) = 0`` (Kelvin-Voigt dashpot, Remark 5.2). ``stiffness`` then
        only defines the viscosity ``V = diag(tau) stiffness`` [N s, N m^2 s] of (60) and does
        not count in the stiffness consistency sum.
    """

    stiffness: tuple[float, ...]
    tau_E: float
    tau_G: float
    rigid: bool = False

    def __post_init__(self) -> None:
        k = check_vector("stiffness", self.stiffness, 6)
        if np.any(k < 0.0):
            raise ParameterError("stiffness", tuple(k), "six finite stiffnesses >= 0")
        if not np.any(k > 0.0):
            raise ParameterError("stiffness", tuple(k), "at least one stiffness > 0")
        object.__setattr__(self, "stiffness", tuple(float(x) for x in k))
        object.__setattr__(self, "tau_E", _check_tau("tau_E", self.tau_E))
        object.__setattr__(self, "tau_G", _check_tau("tau_G", self.tau_G))
        object.__setattr__(self, "rigid", bool(self.rigid))

    @property
    def tau(self) -> np.ndarray:
        """Relaxation time of each strain component [s] (Remark 5.1)."""
        return np.where(_USES_TAU_G, self.tau_G, self.tau_E)

    @property
    def viscosity(self) -> np.ndarray:
        """Diagonal of ``V^(i) = diag(tau) diag(stiffness)`` (60) [N s, N m^2 s]."""
        return self.tau * np.asarray(self.stiffness)


class GeneralizedMaxwell(Extension):
    """Generalized Maxwell model: long-term spring plus Maxwell branches (theory §3.1).

    The stiffness split is checked against the rod when the model is built
    (:meth:`bind`), before any form is compiled.

    Parameters
    ----------
    branches : sequence of MaxwellBranch
        At least one branch.
    long_term : sequence of 6 floats, optional
        Long-term stiffnesses ``C_inf^-1`` [N, N m^2]; default: the rod's stiffness minus the
        sum of the (non-rigid) branch stiffnesses. Must be > 0 on the unconstrained strains.
    name : str
        Name of the extension in the model (prefix of its fields ``sigma_1, sigma_2, ...``).

    Raises
    ------
    ParameterError
        On invalid input: no branches, more than one rigid branch; at :meth:`bind`, a
        stiffness split that does not add up to the rod's stiffness on the unconstrained
        strains (relative tolerance 1e-10) or a non-positive long-term stiffness.
    """

    structures = True

    def __init__(
        self,
        branches: Sequence[MaxwellBranch],
        long_term: Sequence[float] | None = None,
        name: str = "maxwell",
    ) -> None:
        branches = list(branches)
        if not branches:
            raise ParameterError("branches", branches, "at least one MaxwellBranch (m >= 1)")
        for b in branches:
            if not isinstance(b, MaxwellBranch):
                raise ParameterError("branches", b, "MaxwellBranch objects")
        if sum(b.rigid for b in branches) > 1:
            raise ParameterError("branches", [b.rigid for b in branches],
                                 "at most one rigid (Kelvin-Voigt) branch")
        self.name = name
        self.branches = branches
        self._long_term = None if long_term is None else check_vector("long_term", long_term, 6)
        # proportional()/kelvin_voigt(): stiffnesses as fractions of the rod's, set by bind()
        self._fractions: float | None = None  # long-term fraction
        self._branch_fractions: list[float] = []
        self.rod: Rod | None = None

    def bind(self, rod: Rod) -> None:
        """Check the stiffness split against ``rod`` (a rod, or a structure whose members
        share one uniform section and constraint set) and fix the long-term compliance."""
        if self.rod is not None:
            raise ParameterError("GeneralizedMaxwell", self,
                                 "used by one RodModel only (create one per model)")
        if not rod.uniform:
            what = "VaryingSection" if len(getattr(rod, "rods", [rod])) == 1 else \
                "members of different sections or constraints"
            raise ParameterError("section", what,
                                 "a uniform Section for viscoelastic branches (on a structure: "
                                 "one Section and one constraint set for all its rods)")
        k_rod = rod.section.stiffness
        free = rod.compliance > 0.0                       # unconstrained strains
        branches = self.branches
        if self._fractions is not None:                   # proportional(): rod-relative
            branches = [MaxwellBranch(tuple(f * k_rod), b.tau_E, b.tau_G, b.rigid)
                        for f, b in zip(self._branch_fractions, branches, strict=True)]
            self.branches = branches
        k_branch = sum((np.asarray(b.stiffness) for b in branches if not b.rigid),
                       np.zeros(6))
        if self._fractions is not None:
            k_inf = self._fractions * k_rod
        elif self._long_term is None:
            k_inf = k_rod - k_branch
        else:
            k_inf = self._long_term
            total = k_inf + k_branch
            bad = free & ~np.isclose(total, k_rod, rtol=_SUM_RTOL, atol=0.0)
            if np.any(bad):
                names = [STRAIN_NAMES[j] for j in np.flatnonzero(bad)]
                raise ParameterError(
                    "long_term + sum(branch stiffness)", tuple(total),
                    f"equal to the rod stiffness {tuple(k_rod)} on {names} "
                    "(consistency of theory §3.1)")
        low = free & ~(k_inf > _SUM_RTOL * k_rod)
        if np.any(low):
            names = [STRAIN_NAMES[j] for j in np.flatnonzero(low)]
            raise ParameterError(
                "long-term stiffness", tuple(k_inf),
                f"> 0 on {names}: the branch stiffnesses {tuple(k_branch)} must add up to "
                f"less than the rod stiffness {tuple(k_rod)} (consistency of theory §3.1)")
        self.rod = rod
        self.free = free
        self.long_term = np.where(free, k_inf, 0.0)
        #: Long-term compliance C_inf (0 on constrained strains) [1/N, 1/(N m^2)].
        self.C_inf = np.where(free, 1.0 / np.where(free, k_inf, 1.0), 0.0)

    # ------------------------------------------------------------ constructors
    @classmethod
    def proportional(
        cls,
        fractions: Sequence[float] = (0.75,),
        tau_E: Sequence[float] = (0.08,),
        tau_G: Sequence[float] | None = None,
        convention: str = "material",
        name: str = "maxwell",
    ) -> GeneralizedMaxwell:
        """Branches with stiffness ``fractions[i] * rod stiffness`` (all six strains).

        Parameters
        ----------
        fractions : sequence of float
            Stiffness fraction ``f_i`` of each branch, each in (0, 1), summing to < 1; the
            long-term branch keeps ``1 - sum(fractions)``. The paper's Ex. 6.2 is ``(0.75,)``.
        tau_E, tau_G : sequence of float
            Relaxation times [s] per branch, in (0, inf]; ``tau_G`` defaults to ``tau_E``.
        convention : {"material", "branch"}
            ``"material"`` (default, the paper's Remark 5.1): ``tau_E = eta_E/E`` and
            ``tau_G = eta_G/G`` with the rod's (instantaneous) moduli, i.e.
            ``V^(i) = diag(tau) diag(rod stiffness)``; the branch then relaxes with
            ``tau/f_i``. This is what reproduces the authors' Ex. 6.2 data (H within 5e-5
            vs 21 % off at t = 0.3 s with ``V^(i) = tau k^(i)``, see
            ``tests/test_viscoelastic.py``). ``"branch"``: ``tau`` is the branch's own
            relaxation time ``eta_i/k_i`` (``V^(i) = tau k^(i)``, :class:`MaxwellBranch`).
        """
        if convention not in ("material", "branch"):
            raise ParameterError("convention", convention, "'material' or 'branch'")
        fr = [float(f) for f in np.atleast_1d(np.asarray(fractions, dtype=float))]
        tE = [float(t) for t in np.atleast_1d(np.asarray(tau_E, dtype=float))]
        tG = tE if tau_G is None else [float(t) for t in
                                        np.atleast_1d(np.asarray(tau_G, dtype=float))]
        if not fr:
            raise ParameterError("fractions", tuple(fr), "at least one branch fraction")
        if len(tE) != len(fr) or len(tG) != len(fr):
            raise ParameterError("tau_E/tau_G", (tuple(tE), tuple(tG)),
                                 f"one relaxation time per branch ({len(fr)} fractions)")
        for f in fr:
            if not (0.0 < f < 1.0):
                raise ParameterError("fractions", tuple(fr), "each in (0, 1)")
        if not sum(fr) < 1.0:
            raise ParameterError("fractions", tuple(fr), "summing to < 1 (long-term branch > 0)")
        scale = fr if convention == "material" else [1.0] * len(fr)
        # placeholders: the branch stiffnesses f_i * (rod stiffness) are set by bind()
        branches = [MaxwellBranch((f,) * 6, a / c, b / c)
                    for f, a, b, c in zip(fr, tE, tG, scale, strict=True)]
        ext = cls(branches, name=name)
        ext._branch_fractions, ext._fractions = fr, 1.0 - sum(fr)
        return ext

    @classmethod
    def kelvin_voigt(cls, tau_E: float, tau_G: float | None = None,
                     name: str = "maxwell") -> GeneralizedMaxwell:
        """Kelvin-Voigt rod (Remark 5.2): full elastic stiffness in parallel with the dashpot
        ``V = diag(tau) diag(rod stiffness)`` (60), i.e. ``sigma = C^-1 eps + V d eps/dt``.

        Parameters
        ----------
        tau_E, tau_G : float
            Retardation times [s] of extension/bending and shear/torsion (``tau_G`` defaults
            to ``tau_E``).
        """
        tau_G = tau_E if tau_G is None else tau_G
        ext = cls([MaxwellBranch((1.0,) * 6, tau_E, tau_G, rigid=True)], name=name)
        ext._branch_fractions, ext._fractions = [1.0], 1.0
        return ext

    # ------------------------------------------------------------ Extension
    def _constants(self, mesh) -> None:
        self._Cb, self._Vinv, self._pin = [], [], []
        for b in self.branches:
            k = np.asarray(b.stiffness)
            on = self.free & (k > 0.0)                     # active components of the branch
            kk = np.where(on, k, 1.0)
            if b.rigid:
                C = np.zeros(6)                             # rigid spring (Remark 5.2)
                vinv = np.where(on, 1.0 / (b.tau * kk), 0.0)
            else:
                C = np.where(on, 1.0 / kk, 0.0)
                vinv = C / b.tau                            # (V^(i))^-1, Remark 5.1
            # pinning row of inactive components, scaled like the compliance row
            pin = np.where(on, 0.0, 1.0 / np.where(k > 0.0, k, self.rod.section.stiffness))
            self._Cb.append(fem.Constant(mesh, C))
            self._Vinv.append(fem.Constant(mesh, vinv))
            self._pin.append(fem.Constant(mesh, pin))
        self._active = [fem.Constant(mesh, (self.free & (np.asarray(b.stiffness) > 0.0))
                                     .astype(float)) for b in self.branches]

    def branch_constants(self, i: int) -> dict[str, fem.Constant]:
        """The Constants of branch ``i`` (0-based) in the residual: ``"C"`` its compliance
        ``C^(i)`` [1/N, 1/(N m^2)] (zero for a rigid branch) and ``"Vinv"`` the inverse
        viscosity ``(V^(i))^-1 = C^(i)/tau_i`` [1/(N s), 1/(N m^2 s)]; what gradients with
        respect to the branch differentiate (:mod:`fxrod.analysis.adjoint`). Read-only (6-vectors).

        Raises
        ------
        ParameterError
            Before the model is built, or for a branch index out of range.
        """
        if not hasattr(self, "_Vinv"):
            raise ParameterError("GeneralizedMaxwell", self.name, "an extension of a built "
                                 "model (branch constants exist after setup)")
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or \
                not 0 <= i < len(self.branches):
            raise ParameterError("branch", i, f"an index in [0, {len(self.branches) - 1}]")
        return {"C": self._Cb[i], "Vinv": self._Vinv[i]}

    def fields(self) -> dict:
        """One DG1 6-vector stress field ``sigma_i`` per branch."""
        return {f"sigma_{i + 1}": stress_element(6) for i in range(len(self.branches))}

    def compliance(self, rod_compliance: np.ndarray) -> np.ndarray:
        """The model's stress field is the long-term branch of (58): compliance ``C_inf``."""
        return self.C_inf

    def setup(self, ctx, fields) -> None:
        """Store the UFL pieces of the branch fields."""
        names = list(self.fields())
        self._new = [fields.new[n] for n in names]
        self._old = [fields.old[n] for n in names]
        self._tests = [fields.test[n] for n in names]
        self._constants(ctx.mesh)

    def _mid(self, i: int):
        """Stress of branch i entering the midpoint balance: ``sig_{n+1/2}`` (Maxwell) or
        the step unknown itself (rigid spring)."""
        if self.branches[i].rigid:
            return self._new[i]
        return 0.5 * (self._new[i] + self._old[i])

    def momentum_stress(self, ctx):
        """(55): ``sum_i sigma^(i)`` at the evaluation state, added to ``sigma_inf``."""
        out = None
        for i, b in enumerate(self.branches):
            if b.rigid:
                s = self._new[i]
            else:
                s = self._old[i] + ctx.theta * (self._new[i] - self._old[i])
            out = s if out is None else out + s
        return out

    def residual(self, ctx):
        """Branch rows of (58) at the midpoint, divided by h (the model multiplies by h)."""
        rate = strain_rate(ctx.qm, ctx.qm.dx(0), ctx.vm, ctx.vm.dx(0))   # J_v v_m
        F = None
        for i in range(len(self.branches)):
            ds, s1, s0 = self._tests[i], self._new[i], self._old[i]
            r = (ufl.dot(ds, ufl.elem_mult(self._Cb[i], s1 - s0)) / ctx.h
                 - ufl.dot(ds, ufl.elem_mult(self._active[i], rate))
                 + ufl.dot(ds, ufl.elem_mult(self._Vinv[i], self._mid(i)))
                 + ufl.dot(ds, ufl.elem_mult(self._pin[i], s1)) / ctx.h) * ctx.dx
            F = r if F is None else F + r
        return F

    def stored_energy(self, ctx):
        """``1/2 int sum_i sigma^(i) . C^(i) sigma^(i) ds`` [J] (61)-(64) at the state t_n."""
        E = None
        for i, b in enumerate(self.branches):
            if b.rigid:
                continue
            s = self._old[i]
            e = 0.5 * ufl.dot(s, ufl.elem_mult(self._Cb[i], s)) * ctx.dx
            E = e if E is None else E + e
        return E

    def dissipation(self, ctx):
        """``D^n = h int sum_i sig_m^(i) . (V^(i))^-1 sig_m^(i) ds >= 0`` [J] (65)-(67)."""
        D = None
        for i in range(len(self.branches)):
            sm = self._mid(i)
            d = ctx.h * ufl.dot(sm, ufl.elem_mult(self._Vinv[i], sm)) * ctx.dx
            D = d if D is None else D + d
        return D
