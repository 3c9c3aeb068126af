"""The paper's examples (Kinon, Eugster & Betsch 2026, Sec. 6) as ready problems (model,
solver settings, step and span), shared by the demos, the tests and the benchmarks.
Parameters and their provenance: theory §4."""

from __future__ import annotations

import numpy as np

from fxrod.core.loads import EndLoad, piecewise_linear_hat, smooth_impulse
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.runs.problem import Problem
from fxrod.solvers.settings import SolverSettings

#: Newton tolerance of the dynamic examples: the authors' absolute tolerance 1e-11 on the
#: rows of (42) (theory §4).
PAPER_SETTINGS = SolverSettings(atol=1e-11, rtol=1e-14)


def flying_spaghetti_section() -> Section:
    """Table 1 (theory §4.1): rhoA = 1, M_rho = 10, k_b = k_t = 1e3, k_s = k_e = 1e4
    (consistent dimensionless units)."""
    return Section(rhoA=1.0, M11=10.0, M22=10.0, k_s1=1e4, k_s2=1e4, k_e=1e4,
                   k_b1=1e3, k_b2=1e3, k_t=1e3, radius=0.1)


def flying_spaghetti_loads(rotation: np.ndarray | None = None) -> list:
    """Loads (74) at s = L (the end initially at (6, 0, 0)): ``nu = f (1/10, 0, 0)``,
    ``mu = f (0, 1, 1/2)``, f the hat 0 -> 200 -> 0 over [0, 2.5, 5] (theory §4.1)."""
    f = piecewise_linear_hat(200.0, 2.5, 5.0)
    Q = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
    n = Q @ np.array([0.1, 0.0, 0.0])
    m = Q @ np.array([0.0, 1.0, 0.5])
    return [EndLoad("L", force=lambda t: f(t) * n, moment=lambda t: f(t) * m)]


def flying_spaghetti(
    n_elements: int = 10,
    constraints=(),
    rotation: np.ndarray | None = None,
    comm=None,
    h: float = 0.1,
    t_end: float = 15.0,
) -> Problem:
    """Ex. 6.1: free rod from (0, 0, 8) to (6, 0, 0), loaded at s = L (theory §4.1);
    h = 0.1, t in [0, 15] s, Newton atol 1e-11.

    ``rotation`` (3x3) rotates the initial configuration and the loads (objectivity test).
    """
    Q = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
    rod = Rod(flying_spaghetti_section(), start=tuple(Q @ [0.0, 0.0, 8.0]),
              end=tuple(Q @ [6.0, 0.0, 0.0]), d1=tuple(Q @ [0.0, 1.0, 0.0]),
              n_elements=n_elements, constraints=constraints)
    return Problem(RodModel(rod, flying_spaghetti_loads(Q), comm=comm), h, t_end,
                   PAPER_SETTINGS)


def cantilever_vibration_section() -> Section:
    """Ex. 6.2 (theory §4.2): aluminium rod, r = 2 mm, E = 7.2e10 Pa, nu = 0.35, rho = 2850."""
    return Section.circular(radius=2e-3, E=7.2e10, rho=2850.0, nu=0.35)


def cantilever_vibration(n_elements: int = 8, extensions=(), comm=None,
                         constraints=("kirchhoff",), scale: float = 1.0, h: float = 1e-3,
                         t_end: float = 0.3) -> Problem:
    """Ex. 6.2: Kirchhoff cantilever along e1, clamped at s = 0, directors
    d1 = -e2, d2 = -e3, d3 = e1, smooth tip impulse ``nu = f (0, 1, 1)`` N,
    ``mu = f (0.25, 0, 0)`` N m with ``f = (1 - cos(40 pi t))/2`` on [0, 0.05] s; ``scale``
    multiplies the impulse (parameter studies). h = 1 ms over [0, 0.3] s, full Newton to
    atol 1e-13 (the energy ledger at round-off)."""
    rod = Rod(cantilever_vibration_section(), start=(0.0, 0.0, 0.0), end=(1.0, 0.0, 0.0),
              d1=(0.0, -1.0, 0.0), n_elements=n_elements, constraints=constraints)
    f0 = smooth_impulse(0.0, 0.05)

    def f(t: float) -> float:
        return scale * f0(t)

    load = EndLoad("L", force=lambda t: f(t) * np.array([0.0, 1.0, 1.0]),
                   moment=lambda t: f(t) * np.array([0.25, 0.0, 0.0]))
    return Problem(RodModel(rod, [load], [Clamp("0")], extensions=extensions, comm=comm),
                   h, t_end, SolverSettings(atol=1e-13, rtol=1e-14, jacobian_lag=1))


QS_P = 10.0 * 2.0 / (2.0 * np.pi) ** 2


def quasistatic_cantilever(n_elements: int = 8, constrained: bool = False,
                           follower: bool = False, comm=None, evaluation: str = "endpoint",
                           h: float = 0.1) -> Problem:
    """Ex. 6.3 (theory §4.3): L = 2 pi along e1, clamped at the origin, k_b = 2,
    k_t = 0.5, k_s = 1, k_e = 5; tip loads ``nu = t (0, -P, 0)``, ``mu = t (0, 0, 2.5 P)``,
    ``P = 10 k_b / L^2``; ``constrained`` makes it an Euler elastica (C_N = 0).
    Quasi-static, load factor t in [0, 1] in steps of h (default settings)."""
    sec = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1.0, k_s2=1.0, k_e=5.0,
                  k_b1=2.0, k_b2=2.0, k_t=0.5, radius=0.05)
    rod = Rod(sec, start=(0.0, 0.0, 0.0), end=(2 * np.pi, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=n_elements, constraints=("kirchhoff",) if constrained else ())
    load = EndLoad("L", force=lambda t: t * np.array([0.0, -QS_P, 0.0]),
                   moment=lambda t: t * np.array([0.0, 0.0, 2.5 * QS_P]), follower=follower)
    model = RodModel(rod, [load], [Clamp("0")], comm=comm, quasistatic=True,
                     evaluation=evaluation)
    return Problem(model, h, 1.0)


# ------------------------------------------------------------------- curved rods
def bend45_section() -> Section:
    """The 45-degree bend's 1 x 1 square section: E = 1e7, G = E/2, shear factor 5/6,
    I = 1/12, J = 1/6 (consistent units, Bathe & Bolourchi 1979)."""
    E, G = 1e7, 0.5e7
    return Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=5 / 6 * G, k_s2=5 / 6 * G, k_e=E,
                   k_b1=E / 12, k_b2=E / 12, k_t=G / 6, radius=0.5)


def bend45(n_elements: int = 8, h: float = 30.0, comm=None) -> Problem:
    """The 45-degree bend (Bathe & Bolourchi 1979; Simo & Vu-Quoc 1986): an arc of radius
    100 through 45 degrees starting at the origin tangent to e1, centre (0, 100, 0),
    clamped at s = 0, dead tip force t e3 with t the load F in [0, 600] (quasi-static,
    steps of h with step cutting)."""
    from fxrod.core.geometry import Arc

    rod = Rod(bend45_section(), curve=Arc(100.0, np.pi / 4), n_elements=n_elements)
    load = EndLoad("L", force=lambda t: t * np.array([0.0, 0.0, 1.0]))
    model = RodModel(rod, [load], [Clamp("0")], comm=comm, quasistatic=True)
    return Problem(model, h, 600.0, SolverSettings(adaptive=True))
