"""The data of the paper's examples (Kinon, Eugster & Betsch 2026, Sec. 6) that more than one
place needs: the dynamic examples' solver settings and the sections (theory §4), and the
kept centrelines of Ex. 6.3 as one table (:func:`write_centrelines`).

The examples themselves are demos that build their models in plain sight and are the cases
of the registry: ``demos/flying_spaghetti.py`` (Ex. 6.1), ``demos/cantilever_vibration.py``
(Ex. 6.2), ``demos/quasistatic_cantilever.py`` (Ex. 6.3) and ``demos/bend45.py`` (the
45-degree bend); the tests and benchmarks build them through
``fxrod.studies.cases.demo(stem).problem(...)``."""

from __future__ import annotations

import csv
from pathlib import Path

from fxrod.core.rod import Section
from fxrod.output.tables import write_columns_json
from fxrod.solvers.settings import SolverSettings

#: Newton tolerance of the dynamic examples: the authors' absolute tolerance 1e-11 on the
#: rows of (42) (theory §4).
PAPER_SETTINGS = SolverSettings(atol=1e-11, rtol=1e-14)


def flying_spaghetti_section(stiffness_scale: float = 1.0) -> Section:
    """Table 1 (theory §4.1): rhoA = 1, M_rho = 10, k_b = k_t = 1e3, k_s = k_e = 1e4
    (consistent dimensionless units), every stiffness times ``stiffness_scale`` [-]."""
    c = stiffness_scale
    return Section(rhoA=1.0, M11=10.0, M22=10.0, k_s1=c * 1e4, k_s2=c * 1e4, k_e=c * 1e4,
                   k_b1=c * 1e3, k_b2=c * 1e3, k_t=c * 1e3, radius=0.1)


def cantilever_vibration_section() -> Section:
    """Ex. 6.2 (theory §4.2): aluminium rod, r = 2 mm, E = 7.2e10 Pa, nu = 0.35, rho = 2850."""
    return Section.circular(radius=2e-3, E=7.2e10, rho=2850.0, nu=0.35)


def bend45_section() -> Section:
    """The 45-degree bend's 1 x 1 square section: E = 1e7, G = E/2, shear factor 5/6,
    I = 1/12, J = 1/6 (consistent units, Bathe & Bolourchi 1979)."""
    E, G = 1e7, 0.5e7
    return Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=5 / 6 * G, k_s2=5 / 6 * G, k_e=E,
                   k_b1=E / 12, k_b2=E / 12, k_t=G / 6, radius=0.5)


def write_centrelines(sims: dict, path: Path) -> Path:
    """The kept centrelines (``sim.snapshots``) of every run of ``sims`` ``{variant: run}`` as
    one CSV: ``case`` (the variant), ``t`` (load factor), ``node`` (index from s = 0), ``x``,
    ``y``, ``z`` [m], with its units file (Ex. 6.3, ``demos/quasistatic_cantilever.py``)."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["case", "t", "node", "x", "y", "z"])
        for variant, sim in sims.items():
            for t, pts in sorted(sim.snapshots.items()):
                for i, p in enumerate(pts):
                    w.writerow([variant, repr(float(t)), i, *(repr(float(x)) for x in p)])
    write_columns_json(path, {"case": "-", "t": "-", "node": "-", "x": "m", "y": "m", "z": "m"},
                       meanings={"case": "variant (unconstrained or constrained)",
                                 "t": "load factor of the kept centreline",
                                 "node": "node index along the rod from s = 0",
                                 **{x: f"node position, component {k}"
                                    for k, x in enumerate("xyz", 1)}})
    return path
