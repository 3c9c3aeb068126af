"""Independent check for graded cantilevers: linear Euler-Bernoulli theory, integrated numerically.

Nothing here uses the ANCF element, DOLFINx or PETSc; only the property callables of
:class:`~fxrod.ancf.material.BeamProperties` are shared. The cantilever is clamped at
``x = 0`` and free at ``x = L``, loaded by its weight ``rhoA(x) g`` and a transverse tip
force ``P`` (both downward for positive values).

* Statics (unit-load method): the bending moment
  ``M(x) = int_x^L rhoA(s) g (s - x) ds + P (L - x)``, the curvature ``kappa = M / EI`` and
  the deflection ``w(x) = int_0^x kappa(s) (x - s) ds``, by composite Gauss-Legendre
  quadrature (nested for ``M``).
* Dynamics (Rayleigh-Ritz): ``w = sum_k c_k phi_k`` with ``phi_k'' = P_k(t)`` (Legendre in
  ``t = 2x/L - 1``) and ``phi_k(0) = phi_k'(0) = 0``; ``K_ij = int EI phi_i'' phi_j'' dx``,
  ``M_ij = int rhoA phi_i phi_j dx``; eigenvalues via a Cholesky reduction. The basis is
  complete for the clamped-free beam, the Ritz values are upper bounds and converge
  spectrally for smooth properties.

Units: SI -- m, N, N m^2, kg/m, rad/s.
"""

from __future__ import annotations

import numpy as np
from numpy.polynomial import legendre

from fxrod.ancf.material import BeamProperties
from fxrod.errors import ParameterError, check_finite, check_int_min, check_nonnegative


def _composite_gauss(a: float, b: float, panels: int, points: int) -> tuple[np.ndarray, ...]:
    t, w = legendre.leggauss(points)
    edges = np.linspace(a, b, panels + 1)
    half = 0.5 * np.diff(edges)
    x = (edges[:-1, None] + half[:, None] * (t[None, :] + 1.0)).ravel()
    return x, (half[:, None] * w[None, :]).ravel()


def bending_moment(
    props: BeamProperties, x: np.ndarray, *, g: float = 9.81, tip_load: float = 0.0,
    points: int = 24,
) -> np.ndarray:
    """Hogging bending moment ``M(x)`` [N m] from the weight ``rhoA g`` and tip load ``P``.

    Parameters
    ----------
    props : BeamProperties
        Beam (``rhoA`` may be graded).
    x : array_like
        Arc lengths in ``[0, L]`` [m].
    g : float
        Gravitational acceleration [m/s^2] (>= 0).
    tip_load : float
        Transverse tip force [N].
    points : int
        Gauss points of the inner integral over ``[x, L]``.
    """
    g = check_nonnegative("g", g)
    P = check_finite("tip_load", tip_load)
    x = np.asarray(x, dtype=float)
    L = props.L
    t, w = legendre.leggauss(check_int_min("points", points, 1))
    half = 0.5 * (L - x)[..., None]
    s = x[..., None] + half * (t + 1.0)
    integrand = props.rhoA(s.ravel()).reshape(s.shape) * g * (s - x[..., None])
    return np.sum(half * w * integrand, axis=-1) + P * (L - x)


def curvature(props: BeamProperties, x: np.ndarray, *, g: float = 9.81,
              tip_load: float = 0.0) -> np.ndarray:
    """Linear curvature ``kappa = M / EI`` [1/m] (positive = hogging, tip moving down)."""
    x = np.asarray(x, dtype=float)
    return bending_moment(props, x, g=g, tip_load=tip_load) / props.EI(x)


def deflection(
    props: BeamProperties, x: np.ndarray, *, g: float = 9.81, tip_load: float = 0.0,
    panels: int = 64, points: int = 8,
) -> np.ndarray:
    """Downward deflection ``w(x) = int_0^x kappa(s) (x - s) ds`` [m] at ``x`` [m]."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    out = np.empty_like(x)
    for i, xi in enumerate(x):
        if xi <= 0.0:
            out[i] = 0.0
            continue
        s, w = _composite_gauss(0.0, float(xi), panels, points)
        out[i] = np.sum(w * curvature(props, s, g=g, tip_load=tip_load) * (xi - s))
    return out


def tip_deflection(props: BeamProperties, *, g: float = 9.81, tip_load: float = 0.0,
                   panels: int = 64, points: int = 8) -> float:
    """Downward tip deflection ``w(L)`` [m] of the linear cantilever (unit-load method).

    For uniform properties this is ``rhoA g L^4 / (8 EI) + P L^3 / (3 EI)``.
    """
    return float(deflection(props, np.array([props.L]), g=g, tip_load=tip_load,
                            panels=panels, points=points)[0])


def _ritz_basis(n_basis: int, t: np.ndarray, L: float) -> tuple[np.ndarray, np.ndarray]:
    """phi_k(t) and d2phi_k/dx2 at t for k < n_basis (phi_k(-1) = phi_k'(-1) = 0)."""
    phi = np.empty((n_basis, t.size))
    d2 = np.empty((n_basis, t.size))
    for k in range(n_basis):
        c = np.zeros(k + 1)
        c[k] = 1.0
        # d2phi/dt2 = P_k; dx = L/2 dt, so phi(x) = (L/2)^2 * integ^2 P_k and phi'' = P_k
        phi[k] = (0.5 * L) ** 2 * legendre.legval(t, legendre.legint(c, m=2, lbnd=-1.0))
        d2[k] = legendre.legval(t, c)
    return phi, d2


def frequencies(props: BeamProperties, n_modes: int = 1, n_basis: int = 16,
                points: int = 96) -> np.ndarray:
    """Lowest circular frequencies [rad/s] of the clamped-free beam by Rayleigh-Ritz.

    Parameters
    ----------
    props : BeamProperties
        Beam (``EI`` and ``rhoA`` may be graded).
    n_modes : int
        Number of frequencies returned (1 <= n_modes <= n_basis // 2).
    n_basis : int
        Number of Ritz functions.
    points : int
        Gauss-Legendre points on ``[0, L]``.
    """
    n_basis = check_int_min("n_basis", n_basis, 2)
    n_modes = check_int_min("n_modes", n_modes, 1)
    if n_modes > n_basis // 2:
        raise ParameterError("n_modes", n_modes, f"<= n_basis // 2 = {n_basis // 2}")
    L = props.L
    t, w = legendre.leggauss(check_int_min("points", points, 2 * n_basis))
    x = 0.5 * L * (t + 1.0)
    jac = 0.5 * L
    phi, d2 = _ritz_basis(n_basis, t, L)
    K = (d2 * (props.EI(x) * w * jac)) @ d2.T
    M = (phi * (props.rhoA(x) * w * jac)) @ phi.T
    C = np.linalg.cholesky(M)
    Ci = np.linalg.inv(C)
    lam = np.linalg.eigvalsh(Ci @ K @ Ci.T)
    return np.sqrt(lam[:n_modes])
