"""Read-outs of the mooring line (``demos/mooring.py``): the effective tension at the nodes,
the profile's CSV, the elastic catenary on a frictionless seabed that checks it (Irvine,
Cable Structures, 1981), the reference curve, and the dynamic decay after a fairlead move
(its motion, the run from the static state, the time series' CSV)."""

from __future__ import annotations

import csv
import math
import time
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from fxrod.core.diagnostics import tension_mechanism_ratio
from fxrod.core.geometry import CurveFunction
from fxrod.errors import ParameterError, check_finite, check_positive
from fxrod.output.tables import write_columns_json
from fxrod.runs.callbacks import StepEfforts
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings


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


def catenary_curve(h: float, length: float, w: float, lift: float = 0.0):
    """The inextensible catenary of horizontal tension ``h`` [N], wet weight ``w`` [N/m] and
    length ``length`` [m] lying on the plane z = ``lift`` [m] over its first half: the
    reference curve of the mooring line (a :class:`fxrod.CurveFunction`, arc length s from
    the anchor at ``(0, 0, lift)``, in the x-z plane, d1 = e2) and its end, the fairlead
    [m]."""
    a, lb = h / w, 0.5 * length

    def fn(s):
        u = np.maximum(np.asarray(s, dtype=float) - lb, 0.0)
        r = np.sqrt(a ** 2 + u ** 2)
        x = np.minimum(s, lb) + a * np.arcsinh(u / a)
        d3 = np.stack([a / r, np.zeros_like(r), u / r], axis=1)
        d1 = np.tile([0.0, 1.0, 0.0], (u.size, 1))
        phi = np.stack([x, np.zeros_like(x), r - a + lift], axis=1)
        return phi, np.stack([d1, np.cross(d3, d1), d3], axis=2)

    return CurveFunction(fn, length), fn(np.array([length]))[0][0]


# ------------------------------------------------------------------ dynamic decay
def quintic_ramp(t: float, duration: float) -> float:
    """The quintic ramp from 0 to 1 over ``duration`` [s]: zero velocity and acceleration at
    both ends."""
    x = min(max(t / duration, 0.0), 1.0)
    return x ** 3 * (10.0 - 15.0 * x + 6.0 * x * x)


def fairlead_motion(curve, shift: float, angle: float, duration: float):
    """The clamp motion ``t -> (position [m], rotation)`` of the fairlead, the end of the
    reference ``curve`` (a :class:`fxrod.CurveFunction` in the x-z plane): it moves by
    ``shift`` [m] along x and turns its tangent d3 in the x-z plane to ``angle`` [rad] above
    the horizontal (the end angle of the catenary through the new fairlead), both along
    :func:`quintic_ramp` over ``duration`` [s] (> 0), then holds."""
    duration = check_positive("duration", duration)
    phi, R = curve.evaluate(np.array([curve.length]))
    phi, R = phi[0], R[0]
    turn = math.atan2(R[2, 2], R[0, 2]) - angle

    def motion(t: float) -> tuple[np.ndarray, np.ndarray]:
        a = turn * quintic_ramp(t, duration)
        Ry = np.array([[math.cos(a), 0.0, math.sin(a)], [0.0, 1.0, 0.0],
                       [-math.sin(a), 0.0, math.cos(a)]])
        return phi + np.array([shift * quintic_ramp(t, duration), 0.0, 0.0]), Ry @ R

    return motion


def check_span(t_end: float, h: float) -> None:
    """Refuse a run to ``t_end`` [s] shorter than one step ``h`` [s] (> 0) in one line."""
    if not check_finite("t_end", t_end) >= check_positive("h", h):
        raise ParameterError("t_end", t_end, f">= the step h = {h:g} s")


def run_decay(static, force0: np.ndarray, model, h: float, t_end: float,
              atol: float = 1e-6) -> dict:
    """Step the dynamic ``model`` (:class:`fxrod.RodModel`, serial, its fairlead the support
    ``clamp_L``) from the state of the solved quasi-static ``static`` (the same rod and mesh;
    ``force0`` its fairlead force ``(F_x, F_z)`` [N]) with the step ``h`` [s] to ``t_end``
    [s] (at least one step), Newton to ``atol``.

    Returns ``t`` [s] (from 0), per time the fairlead's force on the line ``fairlead_force``
    ``(F_x, F_z)`` [N] (the average over the step ending there; ``force0`` at t = 0), the
    node at mid-length ``mid`` ``(x, z)`` [m] and the ledger's ``H`` [J]; per step
    ``energy_residual``, ``dissipated`` [J], ``effort`` ``|e|_2``
    (:class:`fxrod.runs.callbacks.StepEfforts`: a closed ledger has ``|energy_residual| <=
    atol |e|_2``) and ``mechanism``, the state's
    :func:`fxrod.core.diagnostics.tension_mechanism_ratio` (below 1: the elements' shear mode
    is stable under the tension); the final profile ``s``, ``x``, ``z`` [m] and ``tension``
    [N]; ``wall_s`` [s] of the steps."""
    check_span(t_end, h)
    for name in static.field_names:
        model.w0.x.array[model.field_dofs(name)] = static.w0.x.array[static.field_dofs(name)]
    model.w.x.array[:] = model.w0.x.array
    s, q = model.nodes.gather_nodes()
    mid = int(np.argmin(np.abs(s - 0.5 * s[-1])))
    out = {"t": [0.0], "fairlead_force": [np.asarray(force0, float)], "mid": [q[mid, [0, 2]]],
           "H": [model.ledger.current()["H"]], "energy_residual": [], "dissipated": [],
           "mechanism": []}
    integ = Integrator(model, h, SolverSettings(atol=atol))
    effort = StepEfforts(model, h)
    t0 = time.perf_counter()
    for _ in range(int(round(t_end / h))):
        r = integ.step()
        effort(integ.t, None)
        out["t"].append(integ.t)
        out["fairlead_force"].append(r.reactions["clamp_L"][[0, 2]])
        out["mid"].append(model.nodes.gather_nodes()[1][mid, [0, 2]])
        out["H"].append(model.ledger.H)
        out["energy_residual"].append(r.energy_residual)
        out["dissipated"].append(r.dissipation)
        out["mechanism"].append(tension_mechanism_ratio(model))
    wall = time.perf_counter() - t0
    s, q = model.nodes.gather_nodes()
    s_sig, _, _, _, n, _ = model.nodes.gather_stresses()
    return {**{k: np.array(v) for k, v in out.items()}, "effort": np.array(effort.values),
            "s": s, "x": q[:, 0], "z": q[:, 2], "tension": node_tension(s, s_sig, n),
            "wall_s": wall}


def window_means(t: np.ndarray, values: np.ndarray, window: float) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """The means of ``values`` (rows at the times ``t`` [s]) over the last ``window`` [s]
    and over the ``window`` before it: the settled value, and its change (the part of the
    decay not settled yet)."""
    last, before = t > t[-1] - window, (t > t[-1] - 2 * window) & (t <= t[-1] - window)
    return values[last].mean(axis=0), values[before].mean(axis=0)


def write_decay_csv(run: dict, path: Path) -> None:
    """The decay's time series: ``t, fairlead_tension, fairlead_x, fairlead_z, mid_x, mid_z,
    H, dissipated, energy_residual`` (the standard ledger columns: the dissipation since
    t = 0 and the step's balance residual, 0 in the first row); its units in
    ``<name>_columns.json``."""
    cols = {"t": "s", "fairlead_tension": "N", "fairlead_x": "N", "fairlead_z": "N",
            "mid_x": "m", "mid_z": "m", "H": "J", "dissipated": "J", "energy_residual": "J"}
    F = run["fairlead_force"]
    dissipated = np.concatenate([[0.0], np.cumsum(run["dissipated"])])
    residual = np.concatenate([[0.0], run["energy_residual"]])
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(list(cols))
        for i, t in enumerate(run["t"]):
            out.writerow([f"{v:.10g}" for v in (t, np.hypot(*F[i]), *F[i], *run["mid"][i],
                                                run["H"][i], dissipated[i], residual[i])])
    write_columns_json(path, cols, meanings={
        "t": "time from the static state (the fairlead starts to move)",
        "fairlead_tension": "magnitude of the fairlead's force on the line",
        "fairlead_x": "the fairlead's force on the line, horizontal (away from the anchor)",
        "fairlead_z": "the fairlead's force on the line, vertical",
        "mid_x": "horizontal position of the node at mid-length",
        "mid_z": "vertical position of the node at mid-length",
        "H": "total energy of the line (kinetic with the added mass, strain, seabed, "
             "gravity)"})
