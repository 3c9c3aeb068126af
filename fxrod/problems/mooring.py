"""Read-outs of the mooring line (``demos/mooring.py``): the effective tension at the nodes,
the profile's CSV, and the elastic catenary on a frictionless seabed that checks it (Irvine,
Cable Structures, 1981)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from fxrod.output.tables import write_columns_json


def node_tension(s: np.ndarray, s_sig: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Effective tension [N] at the nodes ``s`` [m]: the magnitude of the internal force
    ``n`` [N] at the element ends ``s_sig`` [m]
    (:meth:`fxrod.core.diagnostics.Nodes.gather_stresses`), linear in each element and
    averaged over the elements at a node."""
    ends = s_sig.reshape(-1, 2)                      # the DG1 force at each element's ends
    force = np.linalg.norm(n, axis=1).reshape(-1, 2)
    tension = np.empty(s.size)
    for i, si in enumerate(s):
        on = np.flatnonzero((ends[:, 0] <= si + 1e-9) & (si <= ends[:, 1] + 1e-9))
        r = (si - ends[on, 0]) / (ends[on, 1] - ends[on, 0])
        tension[i] = np.mean((1.0 - r) * force[on, 0] + r * force[on, 1])
    return tension


def write_profile_csv(run: dict, path: Path) -> None:
    """The profile: ``s, x, z, tension`` (m, m, m, N); its units in ``<name>_columns.json``."""
    cols = {"s": "m", "x": "m", "z": "m", "tension": "N"}
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(list(cols))
        for row in zip(run["s"], run["x"], run["z"], run["tension"], strict=True):
            out.writerow([f"{v:.10g}" for v in row])
    write_columns_json(path, cols, meanings={
        "s": "unstretched arc length from the anchor", "x": "horizontal position",
        "z": "vertical position",
        "tension": "effective tension: magnitude of the internal force, averaged over the "
                   "elements at the node"})


def elastic_catenary(x_f: float, z_f: float, length: float, w: float,
                     ea: float) -> tuple[float, float]:
    """Horizontal tension H [N] and suspended (unstretched) length L_s [m] of the elastic
    catenary of unstretched length ``length`` [m], wet weight ``w`` [N/m] and axial
    stiffness ``ea`` [N] on a frictionless seabed through the fairlead ``(x_f, z_f)`` [m]:
    ``x_f = L - L_s + H L/EA + (H/w) asinh(w L_s/H)``,
    ``z_f = (H/w)(sqrt(1 + (w L_s/H)^2) - 1) + w L_s^2/(2 EA)``."""

    def height(h, ls):
        return h / w * (math.hypot(1.0, w * ls / h) - 1.0) + w * ls ** 2 / (2.0 * ea)

    def suspended(h):              # L_s from z_f at a given H (the height grows with L_s)
        if height(h, length) <= z_f:
            return length
        return brentq(lambda ls: height(h, ls) - z_f, 0.0, length, xtol=1e-12)

    def gap(h):
        ls = suspended(h)
        return length - ls + h * length / ea + h / w * math.asinh(w * ls / h) - x_f

    h = brentq(gap, 1e-6 * w * length, 1e6 * w * length, xtol=1e-9)
    return h, suspended(h)
