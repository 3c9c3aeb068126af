"""Axially graded beam properties for the ANCF element (theory §A3).

Every property is either a positive number or a vectorised callable ``f(x)`` of the
reference arc length ``x`` [m] (measured from the left end, ``0 <= x <= L``) that returns an
array of the same shape. The element evaluates the callables at its quadrature points (the
blog's "method 3", theory §A3), so a property may vary inside an element.

Units (SI): length [m], Young's modulus [Pa], density [kg/m^3], section width ``b`` and
height ``h`` [m]; derived ``EA`` [N], ``EI`` [N m^2], ``rhoA`` [kg/m].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fxrod.errors import ParameterError, check_positive, check_range

#: A beam property: a positive constant or a vectorised callable of x [m].
Property = float | Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class GradedModulus:
    """Power-law graded Young's modulus of the blog: ``E0 (1 - lam (x/L)^n)``.

    The blog calls it "exponential"; it is a power law (theory §A3). For ``0 <= lam < 1`` and
    ``n > 0`` the modulus decreases monotonically from ``E0`` at the clamp (``x = 0``) to
    ``E0 (1 - lam)`` at the free end and stays positive.

    Parameters
    ----------
    E0 : float
        Modulus at ``x = 0`` [Pa].
    lam : float
        Defect depth, ``0 <= lam < 1`` (dimensionless).
    n : float
        Gradient exponent, ``n > 0`` (``n = 1`` linear).
    L : float
        Beam length [m].
    """

    E0: float
    lam: float
    n: float
    L: float

    def __post_init__(self) -> None:
        check_positive("E0", self.E0)
        check_range("lam", self.lam, 0.0, 1.0, hi_open=True)
        check_positive("n", self.n)
        check_positive("L", self.L)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Evaluate ``E(x)`` [Pa] at arc lengths ``x`` [m]."""
        xi = np.clip(np.asarray(x, dtype=float) / self.L, 0.0, None)
        return self.E0 * (1.0 - self.lam * xi**self.n)


def graded_modulus(E0: float, lam: float, n: float, L: float) -> GradedModulus:
    """Return the blog's graded modulus ``E(x) = E0 (1 - lam (x/L)^n)`` [Pa].

    Raises
    ------
    fxrod.errors.ParameterError
        If ``lam`` is outside ``[0, 1)``, ``n <= 0``, ``E0 <= 0`` or ``L <= 0``.
    """
    return GradedModulus(E0=E0, lam=lam, n=n, L=L)


def _evaluate(name: str, prop: Property, x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if callable(prop):
        try:
            val = np.asarray(prop(x), dtype=float)
        except Exception as err:  # a user callable: report which property failed
            raise ParameterError(name, prop, f"a vectorised callable of x [m] ({err})") from err
        if val.shape == ():
            val = np.full(x.shape, float(val))
        if val.shape != x.shape:
            raise ParameterError(
                name, prop, f"a callable returning an array of shape {x.shape}, got {val.shape}"
            )
        return val
    return np.full(x.shape, float(prop))


@dataclass(frozen=True)
class BeamProperties:
    """Length, material and rectangular section of a planar beam (possibly graded).

    Parameters
    ----------
    L : float
        Length [m].
    E : Property
        Young's modulus [Pa]: constant or callable of x [m].
    rho : Property
        Density [kg/m^3].
    b : Property
        Section width (out of the bending plane) [m].
    h : Property
        Section height (in the bending plane) [m].

    Notes
    -----
    ``A = b h``, ``I = b h^3 / 12``. Constants are checked at construction; callables are
    checked (finite and positive) by :meth:`check` at every point where they are used, which
    the element does at all its quadrature points and nodes before compiling any form.
    """

    L: float
    E: Property
    rho: Property
    b: Property
    h: Property

    def __post_init__(self) -> None:
        check_positive("L", self.L)
        for name in ("E", "rho", "b", "h"):
            prop = getattr(self, name)
            if not callable(prop):
                check_positive(name, prop)

    def values(self, name: str, x: np.ndarray) -> np.ndarray:
        """Evaluate property ``name`` (``"E"``, ``"rho"``, ``"b"``, ``"h"``) at ``x`` [m]."""
        return _evaluate(name, getattr(self, name), x)

    def check(self, x: np.ndarray) -> None:
        """Raise :class:`ParameterError` unless every property is finite and > 0 at ``x``."""
        x = np.asarray(x, dtype=float).ravel()
        for name in ("E", "rho", "b", "h"):
            val = self.values(name, x)
            bad = ~np.isfinite(val) | (val <= 0.0)
            if np.any(bad):
                i = int(np.argmax(bad))
                raise ParameterError(
                    name, float(val[i]), f"finite and > 0 at every x in [0, L] (fails at x = "
                    f"{x[i]:.6g} m)"
                )

    def EA(self, x: np.ndarray) -> np.ndarray:
        """Axial stiffness ``E b h`` [N] at ``x`` [m]."""
        return self.values("E", x) * self.values("b", x) * self.values("h", x)

    def EI(self, x: np.ndarray) -> np.ndarray:
        """Bending stiffness ``E b h^3 / 12`` [N m^2] at ``x`` [m]."""
        return self.values("E", x) * self.values("b", x) * self.values("h", x) ** 3 / 12.0

    def rhoA(self, x: np.ndarray) -> np.ndarray:
        """Mass per length ``rho b h`` [kg/m] at ``x`` [m]."""
        return self.values("rho", x) * self.values("b", x) * self.values("h", x)


def blog_beam(lam: float = 0.0, n: float = 1.0) -> BeamProperties:
    """The blog's steel cantilever: L = 1 m, 0.02 x 0.02 m, rho = 7850, E0 = 2.07e11 Pa.

    ``lam = 0`` gives the uniform beam of the references R5, R6 and R8 (theory §A5); otherwise
    ``E(x) = E0 (1 - lam (x/L)^n)``.
    """
    L = 1.0
    E: Property = 2.07e11 if lam == 0.0 else graded_modulus(2.07e11, lam, n, L)
    if lam == 0.0:
        check_positive("n", n)
    return BeamProperties(L=L, E=E, rho=7850.0, b=0.02, h=0.02)
