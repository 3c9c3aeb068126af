"""The data of one rod: geometry, cross-section, material, constraints (SI units).

A :class:`Section` holds the per-unit-length constants of the Cosserat rod (theory §1.3):
line density ``rhoA`` [kg/m], Euler-tensor entries ``M11 = M_rho^11``, ``M22 = M_rho^22``
[kg m], shear/extension stiffnesses ``k_s1, k_s2, k_e`` [N] and bending/torsion
stiffnesses ``k_b1, k_b2, k_t`` [N m^2]. A :class:`Rod` adds the reference geometry (a
straight segment or any :mod:`fxrod.geometry` curve), the mesh size and the set of
constrained strains.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from fxrod.errors import (
    ParameterError,
    check_int_min,
    check_nonnegative,
    check_positive,
    check_range,
    check_vector,
)
from fxrod.geometry import Curve, Straight

#: Names of the six strain components, in the order (Gamma_1, Gamma_2, Gamma_3, K_1, K_2, K_3).
STRAIN_NAMES: tuple[str, ...] = ("shear1", "shear2", "extension", "bend1", "bend2", "torsion")

#: Shorthands for common constraint sets (theory §1.3).
CONSTRAINT_ALIASES: dict[str, tuple[str, ...]] = {
    "inextensible": ("extension",),
    "shear_rigid": ("shear1", "shear2"),
    "kirchhoff": ("shear1", "shear2", "extension"),
}


@dataclass(frozen=True)
class Section:
    """Per-unit-length constants of a Cosserat rod (SI units).

    Parameters
    ----------
    rhoA : float
        Mass per unit length [kg/m], >= 0 (0 for quasi-static runs).
    M11, M22 : float
        Euler-tensor entries ``int_A rho theta_a^2 dA`` [kg m], >= 0.
    k_s1, k_s2, k_e : float
        Shear stiffnesses (``G A`` times shear factor) and axial stiffness ``E A`` [N], > 0.
    k_b1, k_b2, k_t : float
        Bending stiffnesses ``E I_1, E I_2`` and torsional stiffness ``G J`` [N m^2], > 0.
    radius : float, optional
        A representative radius [m] used only for pictures.
    """

    rhoA: float
    M11: float
    M22: float
    k_s1: float
    k_s2: float
    k_e: float
    k_b1: float
    k_b2: float
    k_t: float
    radius: float | None = None

    def __post_init__(self) -> None:
        for name in ("rhoA", "M11", "M22"):
            check_nonnegative(name, getattr(self, name))
        for name in ("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t"):
            check_positive(name, getattr(self, name))
        if self.radius is not None:
            check_positive("radius", self.radius)

    @property
    def stiffness(self) -> np.ndarray:
        """The six stiffnesses ``(k_s1, k_s2, k_e, k_b1, k_b2, k_t)``."""
        return np.array([self.k_s1, self.k_s2, self.k_e, self.k_b1, self.k_b2, self.k_t])

    @staticmethod
    def _shear_modulus(E: float, G: float | None, nu: float | None) -> float:
        if (G is None) == (nu is None):
            raise ParameterError("G/nu", (G, nu), "exactly one of G [Pa] or nu given")
        if G is not None:
            return check_positive("G", G)
        nu = check_range("nu", nu, -1.0, 0.5, lo_open=True, hi_open=True)
        return E / (2.0 * (1.0 + nu))

    @classmethod
    def circular(
        cls,
        radius: float,
        E: float,
        rho: float,
        G: float | None = None,
        nu: float | None = None,
        shear_factor: float = 1.0,
    ) -> Section:
        """Solid circular section of radius ``radius`` [m], Young's modulus ``E`` [Pa],
        density ``rho`` [kg/m^3], shear modulus ``G`` [Pa] or Poisson ratio ``nu``."""
        r = check_positive("radius", radius)
        E = check_positive("E", E)
        rho = check_nonnegative("rho", rho)
        kappa = check_positive("shear_factor", shear_factor)
        G = cls._shear_modulus(E, G, nu)
        A = math.pi * r**2
        Iax = math.pi * r**4 / 4.0
        return cls(rhoA=rho * A, M11=rho * Iax, M22=rho * Iax, k_s1=kappa * G * A,
                   k_s2=kappa * G * A, k_e=E * A, k_b1=E * Iax, k_b2=E * Iax,
                   k_t=G * 2.0 * Iax, radius=r)

    @classmethod
    def rectangular(
        cls,
        width: float,
        height: float,
        E: float,
        rho: float,
        G: float | None = None,
        nu: float | None = None,
        shear_factor: float = 5.0 / 6.0,
    ) -> Section:
        """Solid rectangle, ``width`` [m] along d1 and ``height`` [m] along d2.

        Bending about d1 uses ``I_1 = width height^3 / 12``; the torsion constant is the
        Saint-Venant series approximation ``J = a b^3 (1/3 - 0.21 (b/a)(1 - b^4/(12 a^4)))``
        with ``a >= b`` the longer and shorter sides.
        """
        b = check_positive("width", width)
        hgt = check_positive("height", height)
        E = check_positive("E", E)
        rho = check_nonnegative("rho", rho)
        kappa = check_positive("shear_factor", shear_factor)
        G = cls._shear_modulus(E, G, nu)
        A = b * hgt
        I1 = b * hgt**3 / 12.0  # about d1: fibres at theta_2 = +-height/2
        I2 = hgt * b**3 / 12.0
        a, c = max(b, hgt), min(b, hgt)
        J = a * c**3 * (1.0 / 3.0 - 0.21 * (c / a) * (1.0 - c**4 / (12.0 * a**4)))
        # M_rho^11 = int rho theta_1^2 dA = rho I2 ; M_rho^22 = rho I1
        return cls(rhoA=rho * A, M11=rho * I2, M22=rho * I1, k_s1=kappa * G * A,
                   k_s2=kappa * G * A, k_e=E * A, k_b1=E * I1, k_b2=E * I2, k_t=G * J,
                   radius=0.5 * math.sqrt(A))


#: The section constants that may vary along s, in the order of :class:`Section`.
SECTION_FIELDS = ("rhoA", "M11", "M22", "k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")


@dataclass(frozen=True)
class VaryingSection:
    """Section constants that vary along the arc length s (SI units, as :class:`Section`).

    Every constant is a number or a callable ``s -> values`` (numpy arrays of arc lengths
    [m] in, arrays out); the model evaluates them at the quadrature points, so they enter
    mass, stiffness, gravity and every energy and momentum. They are checked (non-negative
    masses, positive stiffnesses) on 201 points of ``[0, L]`` when the rod is built.
    """

    rhoA: float | Callable
    M11: float | Callable
    M22: float | Callable
    k_s1: float | Callable
    k_s2: float | Callable
    k_e: float | Callable
    k_b1: float | Callable
    k_b2: float | Callable
    k_t: float | Callable
    radius: float | Callable | None = None

    def values(self, s) -> dict[str, np.ndarray]:
        """All constants at the arc lengths ``s`` [m]."""
        s = np.asarray(s, dtype=float)
        out = {}
        for name in SECTION_FIELDS:
            v = getattr(self, name)
            out[name] = np.broadcast_to(np.asarray(v(s) if callable(v) else v, dtype=float),
                                        s.shape).copy()
        return out

    def check(self, length: float) -> None:
        """Raise ParameterError unless masses are >= 0 and stiffnesses > 0 on [0, L]."""
        s = np.linspace(0.0, length, 201)
        try:
            vals = self.values(s)
        except Exception as e:  # noqa: BLE001 - report any failure of the user callables
            raise ParameterError("section", self, f"callables s -> values ({e})") from None
        for name, v in vals.items():
            positive = name.startswith("k_")
            bad = ~np.isfinite(v) | ((v <= 0.0) if positive else (v < 0.0))
            if np.any(bad):
                i = int(np.flatnonzero(bad)[0])
                raise ParameterError(f"{name} at s = {s[i]:.6g}", float(v[i]),
                                     ("> 0" if positive else ">= 0") + f" on [0, {length:g}] m")

    @classmethod
    def circular(cls, radius: float | Callable, E: float | Callable, rho: float | Callable,
                 G: float | None = None, nu: float | None = None,
                 shear_factor: float = 1.0) -> VaryingSection:
        """Solid circular section with radius [m], Young's modulus [Pa] and density
        [kg/m^3] each a number or a function of s (tapered or graded rods); shear modulus
        ``G`` [Pa] or Poisson ratio ``nu`` as for :meth:`Section.circular`."""
        if (G is None) == (nu is None):
            raise ParameterError("G/nu", (G, nu), "exactly one of G [Pa] or nu given")
        if nu is not None:
            check_range("nu", nu, -1.0, 0.5, lo_open=True, hi_open=True)
        kappa = check_positive("shear_factor", shear_factor)

        def ev(f, s):
            return np.asarray(f(s) if callable(f) else f, dtype=float)

        def Gm(s):
            return ev(G, s) if G is not None else ev(E, s) / (2.0 * (1.0 + nu))

        def A(s):
            return np.pi * ev(radius, s) ** 2

        def Iax(s):
            return np.pi * ev(radius, s) ** 4 / 4.0

        return cls(rhoA=lambda s: ev(rho, s) * A(s), M11=lambda s: ev(rho, s) * Iax(s),
                   M22=lambda s: ev(rho, s) * Iax(s), k_s1=lambda s: kappa * Gm(s) * A(s),
                   k_s2=lambda s: kappa * Gm(s) * A(s), k_e=lambda s: ev(E, s) * A(s),
                   k_b1=lambda s: ev(E, s) * Iax(s), k_b2=lambda s: ev(E, s) * Iax(s),
                   k_t=lambda s: Gm(s) * 2.0 * Iax(s), radius=radius)


def normalize_constraints(constraints) -> tuple[str, ...]:
    """Expand aliases and validate a set of constrained strain names."""
    if constraints is None:
        return ()
    if isinstance(constraints, str):
        constraints = (constraints,)
    allowed = ", ".join(STRAIN_NAMES + tuple(CONSTRAINT_ALIASES))
    if not isinstance(constraints, Iterable):
        raise ParameterError("constraints", constraints, f"strain names, each one of {allowed}")
    constraints = tuple(constraints)
    out: list[str] = []
    for c in constraints:
        if not isinstance(c, str):
            raise ParameterError("constraints", c, f"one of {allowed}")
        names = CONSTRAINT_ALIASES.get(c, (c,))
        for n in names:
            if n not in STRAIN_NAMES:
                raise ParameterError("constraints", c, f"one of {allowed}")
            if n not in out:
                out.append(n)
    if set(STRAIN_NAMES).issubset(out):
        raise ParameterError("constraints", tuple(constraints),
                             "a proper subset of the six strains (all six constrained leaves "
                             "a rigid rod whose stresses are not determined: singular system)")
    return tuple(out)


@dataclass(frozen=True)
class Rod:
    """A rod: reference geometry, section, mesh size and constrained strains (SI units).

    The stress-free reference is either the straight segment from ``start`` to ``end`` with
    first director ``d1``, or any :class:`fxrod.geometry.Curve` given as ``curve`` (arc,
    helix, spline, user function). The P2 nodes are placed on the exact curve; the stresses
    start at zero, so the unloaded reference is an equilibrium to round-off.

    Parameters
    ----------
    section : Section or VaryingSection
        Per-unit-length constants, uniform or varying along s.
    start, end : sequence of 3 floats, optional
        Centreline end points ``phi(0)`` and ``phi(L)`` [m] of a straight rod.
    d1 : sequence of 3 floats, optional
        First director of a straight rod; orthogonal to ``end - start`` (it is normalised).
        ``d3 = (end - start)/L`` and ``d2 = d3 x d1``.
    n_elements : int
        Number of finite elements (>= 1).
    constraints : iterable of str
        Constrained strains (zero compliance): any of ``shear1, shear2, extension, bend1,
        bend2, torsion`` or the aliases ``inextensible``, ``shear_rigid``, ``kirchhoff``.
    curve : fxrod.geometry.Curve, optional
        Reference centreline and frame (instead of ``start``, ``end``, ``d1``).
    natural_curvature : sequence of 3 floats, optional
        Stress-free curvature and twist ``K0 = (K0_1, K0_2, K0_3)`` [1/m] to use instead of
        those of the reference geometry (e.g. a straight rod that curls into a ring); only on
        unconstrained components. The rod then starts stressed and springs into its natural
        shape.
    """

    section: Section | VaryingSection
    start: tuple[float, float, float] | None = None
    end: tuple[float, float, float] | None = None
    d1: tuple[float, float, float] | None = None
    n_elements: int = 0
    constraints: tuple[str, ...] = field(default=())
    curve: Curve | None = None
    natural_curvature: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.section, Section | VaryingSection):
            raise ParameterError("section", self.section, "a fxrod Section or VaryingSection")
        if self.curve is None:
            if self.start is None or self.end is None or self.d1 is None:
                raise ParameterError("curve", None, "a fxrod.geometry Curve, or start, end "
                                     "and d1 of a straight rod")
            curve = Straight(self.start, self.end, self.d1)
            object.__setattr__(self, "start", tuple(curve.start))
            object.__setattr__(self, "end", tuple(curve.end))
            object.__setattr__(self, "d1", tuple(curve.d1))
            object.__setattr__(self, "curve", curve)
        elif not isinstance(self.curve, Curve):
            raise ParameterError("curve", self.curve, "a fxrod.geometry Curve")
        elif not (self.start is None and self.end is None and self.d1 is None):
            raise ParameterError("start/end/d1", (self.start, self.end, self.d1),
                                 "not given together with curve")
        check_int_min("n_elements", self.n_elements, 1)
        if isinstance(self.section, VaryingSection):
            self.section.check(self.length)
        object.__setattr__(self, "constraints", normalize_constraints(self.constraints))
        if self.natural_curvature is not None:
            k0 = check_vector("natural_curvature", self.natural_curvature, 3)
            on_constrained = [STRAIN_NAMES[3 + i] for i in range(3)
                              if STRAIN_NAMES[3 + i] in self.constraints and k0[i] != 0.0]
            if on_constrained:
                raise ParameterError("natural_curvature", tuple(k0),
                                     f"zero on the constrained strains {on_constrained}")
            object.__setattr__(self, "natural_curvature", tuple(float(x) for x in k0))

    @property
    def length(self) -> float:
        """Rod length L [m] (arc length of the reference)."""
        return float(self.curve.length)

    @property
    def frame(self) -> np.ndarray:
        """Reference directors at s = 0 as columns ``R0 = [d1 d2 d3]``."""
        return self.curve.evaluate(np.zeros(1))[1][0]

    @property
    def free(self) -> np.ndarray:
        """Which of the six strains are unconstrained (boolean mask)."""
        return np.array([name not in self.constraints for name in STRAIN_NAMES])

    @property
    def uniform(self) -> bool:
        """Whether the section is the same along the whole rod."""
        return isinstance(self.section, Section)

    @property
    def compliance(self) -> np.ndarray:
        """Diagonal compliance ``(C_N, C_M)`` [1/N, 1/(N m^2)], zero for constrained strains
        (uniform sections only)."""
        if not self.uniform:
            raise ParameterError("section", "VaryingSection",
                                 "a uniform Section for this feature")
        return np.where(self.free, 1.0 / self.section.stiffness, 0.0)

    def initial_configuration(self, s: np.ndarray) -> np.ndarray:
        """Nodal values ``q = (phi, d1, d2, d3)`` (shape ``(len(s), 12)``) at arc lengths s."""
        return self.curve.configuration(s)
