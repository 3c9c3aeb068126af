"""Read-outs of the locomotion demos (``demos/swimmer.py``, ``demos/snake.py``): the
small-amplitude speed of a finite swimming filament, the snake's speed over whole periods,
and the CSVs of both runs with their units files."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from fxrod.output.tables import write_columns_json


def filament_speed(amplitude: float, wavelength: float, frequency: float, length: float,
                   c_t: float, c_n: float, n_points: int = 400) -> float:
    """Small-amplitude resistive-force speed [m/s] of a finite filament swimming by the
    curvature wave ``A sin(k s - omega t)``, with its recoil (positive: towards increasing s).

    The undulation of a stiff filament is the preferred shape ``y_p = -(A/k^2) sin(k s -
    omega t)`` (``y_p'' = kappa_0``) plus a sideways translation and rotation that cancel
    the lateral drag's force and moment at first order: with uniform ``c_n`` the lateral
    displacement is ``Y = y_p - P y_p`` (``P`` the L2 projection onto the functions
    ``a + b s``). The drag along the axis balances at second order:
    ``c_t int x_t ds = (c_n - c_t) int Y_t Y' ds``, so over a period
    ``U = (c_n/c_t - 1) <int Y_t Y' ds>/L`` (Lauga & Powers 2009, §3.2 for the infinite
    filament, whose ``Y = y_p`` gives ``-(c_n/c_t - 1) (b k)^2 c/2``). With the complex
    amplitude ``Y = Im(Yh e^(-i omega t))``, ``<Y_t Y'> = omega Im(Yh conj(Yh'))/2``.

    Parameters
    ----------
    amplitude : float
        Curvature amplitude A [1/m].
    wavelength, frequency, length : float
        Of the wave [m], [Hz], and of the filament [m].
    c_t, c_n : float
        Tangential and normal drag coefficients [N s/m^2].
    n_points : int
        Gauss-Legendre points of the integrals over s.
    """
    k, om = 2.0 * math.pi / wavelength, 2.0 * math.pi * frequency
    xg, wg = np.polynomial.legendre.leggauss(n_points)
    s, w = 0.5 * length * (xg + 1.0), 0.5 * length * wg
    basis = np.vstack([np.ones_like(s), s - 0.5 * length])          # orthogonal on [0, L]
    yp = -(amplitude / k ** 2) * np.exp(1j * k * s)
    dyp = 1j * k * yp
    coef = (basis * w) @ yp / np.sum(basis ** 2 * w, axis=1)
    Y = yp - coef @ basis
    dY = dyp - coef[1]
    mean = om * np.imag(Y * np.conj(dY)) / 2.0
    return float((c_n / c_t - 1.0) * np.sum(w * mean) / length)


def write_swimmer_csv(run: dict[str, np.ndarray], path: Path) -> None:
    """``swimmer.csv``: t [s], centre of mass x_1..x_3 [m], swimming speed [m/s] over the
    last period (empty in the first period); its units in ``swimmer_columns.json``."""
    n = run["steps_per_period"]
    cols = {"t": "s", "x_1": "m", "x_2": "m", "x_3": "m", "speed": "m/s"}
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(list(cols))
        for i, (t, x) in enumerate(zip(run["t"], run["x"], strict=True)):
            speed = ("" if i < n else
                     f"{np.linalg.norm(x - run['x'][i - n]) / (t - run['t'][i - n]):.10g}")
            out.writerow([f"{t:.10g}", *(f"{c:.10g}" for c in x), speed])
    write_columns_json(path, cols, meanings={
        "t": "time", **{f"x_{k}": f"centre of mass, component {k}" for k in (1, 2, 3)},
        "speed": "swimming speed over the last period (empty in the first period)"})


def at_periods(t: np.ndarray, x: np.ndarray, period: float) -> np.ndarray:
    """The rows of ``x`` at the ends of the periods (the samples nearest to t = k T)."""
    n = int(round(t[-1] / period))
    return np.array([x[int(np.argmin(np.abs(t - k * period)))] for k in range(n + 1)])


def snake_speed(t: np.ndarray, x: np.ndarray, period: float, skip: int = 2) -> float:
    """Mean forward speed [m/s]: the centre of mass's displacement from the end of period
    ``skip`` to the last period's end, projected on its own direction (the mean heading),
    divided by the time (the same measure for fxrod and PyElastica, bench/peers.py); the
    sign is that of the displacement along +e1 (the head's initial heading)."""
    xp = at_periods(t, x, period)
    d = xp[-1] - xp[skip]
    return float(math.copysign(np.linalg.norm(d[:2]), d[0]) / ((len(xp) - 1 - skip) * period))


def write_snake_csv(run: dict, path: Path) -> Path:
    """``snake.csv`` and its units ``snake_columns.json``: ``t`` [s], the centre of mass
    ``com_1..3`` [m], the speed [m/s] over the last period (empty in the first), ``H`` [J]
    and the step's ``external_work``, ``port_work``, ``dissipated``, ``energy_residual`` [J]
    (empty in the first row)."""
    cols = {"t": "s", "com_1": "m", "com_2": "m", "com_3": "m", "speed": "m/s", "H": "J",
            "external_work": "J", "port_work": "J", "dissipated": "J", "energy_residual": "J"}
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(list(cols))
        for i, (t, x) in enumerate(zip(run["t"], run["x"], strict=True)):
            j = int(np.argmin(np.abs(run["t"] - (t - run["period"]))))
            speed = ("" if t < run["period"] - 1e-9 else
                     f"{np.linalg.norm(x[:2] - run['x'][j][:2]) / (t - run['t'][j]):.10g}")
            step = ([""] * 4 if i == 0 else
                    [f"{run[k][i - 1]:.10g}" for k in ("external_work", "port_work",
                                                        "dissipated", "energy_residual")])
            out.writerow([f"{t:.10g}", *(f"{c:.10g}" for c in x), speed,
                          f"{run['H'][i]:.10g}", *step])
    write_columns_json(path, cols, None)
    return path
