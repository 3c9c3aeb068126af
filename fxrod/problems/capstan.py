"""The capstan's geometry and read-outs (``demos/capstan.py``): a rope wrapped over a drum,
the first step's Newton iterate of a rope that slides along itself, the tension ratio a run
measures, and the table of ratios against the capstan law with units and meanings."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fxrod.core.geometry import CurveFunction
from fxrod.output.tables import CSVWriter

#: Columns of ``capstan.csv`` with their units and meanings (``capstan_columns.json``).
COLUMNS = {"mu": "-", "theta": "rad", "tension_ratio": "-"}
MEANINGS = {"mu": "Coulomb friction coefficient", "theta": "wrap angle",
            "tension_ratio": "T_out/T_in over the second half of the pull"}


def wrapped_rope(theta: float, radius: float, tail: float) -> CurveFunction:
    """A rope wrapped through ``theta`` [rad] over the top of a drum (axis e2): a straight
    tail of length ``tail`` [m], an arc of ``radius`` [m] (drum plus rope radius) symmetric
    about e3, and a tail, in the e1-e3 plane with ``d1 = e2``."""
    rho, arc = radius, radius * theta

    def fn(s):
        s = np.asarray(s, dtype=float)
        a = np.clip(s - tail, 0.0, arc) / rho - 0.5 * theta
        t = np.stack([np.cos(a), 0 * a, -np.sin(a)], -1)
        phi = rho * np.stack([np.sin(a), 0 * a, np.cos(a)], -1) \
            + np.minimum(s - tail, 0.0)[:, None] * t + np.maximum(s - tail - arc, 0.0)[:, None] * t
        d1 = np.tile([0.0, 1.0, 0.0], (s.size, 1))
        return phi, np.stack([d1, np.cross(t, d1), t], -1)

    return CurveFunction(fn, 2 * tail + arc)


def seed_slide(integ, h: float, pull: float) -> None:
    """The first step's Newton iterate of the stepper ``integ``: its rope (a rod on a
    reference curve) slid along itself by ``pull h`` [m] (the quasi-static predictor
    extrapolates this increment), so that friction starts on its sliding branch."""
    m = integ.model
    s = m.space.Q.tabulate_dof_coordinates()[:, 0]

    def q(s):
        phi, R = m.rod.curve.evaluate(s)
        return np.concatenate([phi, R[:, :, 0], R[:, :, 1], R[:, :, 2]], axis=1).reshape(-1)

    dw = np.zeros_like(m.w.x.array)
    dw[m.space.q_map] = q(s + pull * h) - q(s)
    state = integ.get_state()
    state.update(dw_prev=dw, dv_prev=np.zeros_like(m.v0.x.array), h_prev=h)
    integ.set_state(state)


def write_ratios(ratios: dict[tuple[float, float], float], path: Path) -> Path:
    """``capstan.csv``: one row ``mu, theta [rad], tension_ratio`` a pair of ``ratios``
    ``{(mu, theta): T_out/T_in}``, with its units file."""
    w = CSVWriter(path, COLUMNS, units=COLUMNS, meanings=MEANINGS)
    for (mu, theta), r in ratios.items():
        w.write(dict(zip(COLUMNS, (mu, theta, r), strict=True)))
    w.close()
    return Path(path)


def tension_ratio(sim, t_in: float) -> float:
    """``T_out / T_in`` of the run ``sim`` (:class:`fxrod.runs.simulation.Simulation`): the
    reaction of the clamp at s = L along the rope's end tangent over the dead force ``t_in``
    [N], averaged over the steps with t >= t_end / 2 (steady sliding)."""
    rod = sim.model.rod
    t_out = rod.curve.evaluate([rod.length])[1][0][:, 2]
    f = np.stack([sim.column(f"clamp_L_force_{i}") for i in (1, 2, 3)], axis=1)
    t = sim.column("t")
    late = t >= 0.5 * t[-1] - 1e-12
    return float(np.mean(f[late] @ t_out) / t_in)


def ratio_summary(ratios: dict[tuple[float, float], float],
                  name: str) -> tuple[dict[str, float], list[str]]:
    """The summary of the ``ratios`` ``{(mu, theta): T_out/T_in}`` (``ratio_<i>`` and
    ``error_<i>``, the relative difference from exp(mu theta)) and one line a pair."""
    s, lines = {}, []
    for i, ((mu, theta), r) in enumerate(ratios.items()):
        s[f"ratio_{i}"], s[f"error_{i}"] = r, r / np.exp(mu * theta) - 1.0
        lines.append(f"{name}: mu = {mu:g}, theta = {theta:.6f}: T_out/T_in = {r:.6f}, "
                     f"exp(mu theta) = {np.exp(mu * theta):.6f} ({100 * s[f'error_{i}']:+.3f} %)")
    return s, lines
