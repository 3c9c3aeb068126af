"""Section constants ``K`` (inertia) and ``P`` (stiffness) of the Hamel beam (theory §H6).

Beam axis along ``E2``; the diagonal matrices act on convective 6-vectors ordered
(angular, linear) = (about E1, about E2 = torsion, about E3; shear E1, extension E2, shear E3):

* ``K = diag(rho I1, rho (I1 + I3), rho I3, rho A, rho A, rho A)``
* ``P = diag(E I1, G Jt, E I3, k G A, E A, k G A)``, ``G = E / (2 (1 + nu))``.

The rotary inertia about the axis is always the polar moment ``I1 + I3``; the torsion
constant ``Jt`` and the shear correction factor ``k`` are stated choices (parameters).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from fxrod.errors import ParameterError, check_positive, check_range, check_vector

__all__ = ["HamelSection", "saint_venant_square"]


def saint_venant_square(side: float) -> float:
    """Saint-Venant torsion constant of a square of side ``side`` [m^4] (``~0.1406 a^4``).

    Series of the rectangle solution, ``J = a^4/3 (1 - 192/pi^5 sum_odd tanh(n pi/2)/n^5)``.
    """
    a = check_positive("side", side)
    s = sum(math.tanh(n * math.pi / 2) / n**5 for n in range(1, 200, 2))
    return a**4 / 3.0 * (1.0 - 192.0 / math.pi**5 * s)


@dataclass(frozen=True)
class HamelSection:
    """Diagonals of the constant section matrices ``K``, ``P`` of the Hamel beam.

    Not to be confused with :class:`fxrod.core.rod.Section` (the Cosserat rod's section
    constants); :meth:`square` and :meth:`circle` build it from geometry and material.

    Parameters
    ----------
    K : array (6,)
        Inertia diagonal (rho I1, rho J, rho I3 [kg m]; rho A, rho A, rho A [kg/m]).
    P : array (6,)
        Stiffness diagonal (E I1, G Jt, E I3 [N m^2]; k G A, E A, k G A [N]).
    """

    K: np.ndarray
    P: np.ndarray

    def __post_init__(self) -> None:
        for name in ("K", "P"):
            v = check_vector(name, getattr(self, name), 6)
            if np.any(v <= 0.0):
                raise ParameterError(name, v.tolist(), "6 positive diagonal entries")
            v.setflags(write=False)
            object.__setattr__(self, name, v)

    @property
    def wave_speeds(self) -> np.ndarray:
        """``sqrt(P_i / K_i)`` [m/s], one per strain component."""
        return np.sqrt(self.P / self.K)

    @classmethod
    def square(
        cls,
        side: float,
        E: float,
        nu: float,
        rho: float,
        shear_factor: float = 5.0 / 6.0,
        torsion: Literal["polar", "saint-venant"] | float = "polar",
    ) -> HamelSection:
        """Square section of side ``side`` [m] (theory §H6).

        Parameters
        ----------
        side : float
            Side length a [m].
        E : float
            Young's modulus [Pa].
        nu : float
            Poisson ratio, in (-1, 0.5).
        rho : float
            Density [kg/m^3].
        shear_factor : float
            Shear correction factor k (default 5/6; Cowper's 10(1+nu)/(12+11nu) is the
            common alternative).
        torsion : "polar", "saint-venant" or float
            Torsion constant Jt: the polar moment a^4/6 (default, as in the reference numbers
            of theory §H7), the Saint-Venant value ~0.1406 a^4, or a value [m^4].
        """
        a = check_positive("side", side)
        I1 = a**4 / 12.0
        if torsion == "polar":
            Jt = 2.0 * I1
        elif torsion == "saint-venant":
            Jt = saint_venant_square(a)
        elif isinstance(torsion, str):
            raise ParameterError("torsion", torsion, "'polar', 'saint-venant' or a value > 0")
        else:
            Jt = check_positive("torsion", torsion)
        return cls._build(a * a, I1, I1, Jt, E, nu, rho, shear_factor)

    @classmethod
    def circle(
        cls,
        radius: float,
        E: float,
        nu: float,
        rho: float,
        shear_factor: float | None = None,
    ) -> HamelSection:
        """Solid circular section of radius ``radius`` [m]; torsion constant pi r^4/2 (exact).

        ``shear_factor`` defaults to Cowper's 6(1+nu)/(7+6nu).
        """
        r = check_positive("radius", radius)
        nu_ = check_range("nu", nu, -1.0, 0.5, lo_open=True, hi_open=True)
        k = 6.0 * (1.0 + nu_) / (7.0 + 6.0 * nu_) if shear_factor is None else shear_factor
        I1 = math.pi * r**4 / 4.0
        return cls._build(math.pi * r * r, I1, I1, 2.0 * I1, E, nu, rho, k)

    @classmethod
    def _build(cls, A, I1, I3, Jt, E, nu, rho, k) -> HamelSection:
        E = check_positive("E", E)
        nu = check_range("nu", nu, -1.0, 0.5, lo_open=True, hi_open=True)
        rho = check_positive("rho", rho)
        k = check_range("shear_factor", k, 0.0, 1.0, lo_open=True)
        G = E / (2.0 * (1.0 + nu))
        K = rho * np.array([I1, I1 + I3, I3, A, A, A])
        P = np.array([E * I1, G * Jt, E * I3, k * G * A, E * A, k * G * A])
        return cls(K, P)
