# %% [markdown]
# # Swimmer: a filament in resistive-force drag propelled by a travelling curvature wave.
#
# A free, stiff filament (L = 1 m, EI = 100 N m^2, nearly massless: rhoA = 1e-4 kg/m) lies
# along e1 in a viscous fluid at rest, modelled by resistive-force theory
# (c_t = 1, c_n = 2 N s/m^2). Its muscles impose the intrinsic curvature
# ``kappa_0(s, t) = A sin(k s - omega t)`` about d1 (``fxrod.core.forms.actuation.CurvatureWave``;
# two wavelengths on the body, 1 Hz, amplitude ramped in over one period): the wave travels
# from the head s = 0 to the tail and the filament swims the other way, head first, as
# Gray & Hancock (1955) and Taylor (1951) explained: the normal drag exceeds the tangential
# one, so the lateral motion of the oblique segments pushes the fluid backwards.
#
# For a small amplitude the undulation is ``y = b sin(k s - omega t)`` with ``b = A/k^2``
# and an infinitely long filament swims at (Lauga & Powers 2009, eq. 26)
# ``U = (c_n/c_t - 1) (b k)^2 c/2``, c = omega/k the wave speed. A finite filament also
# recoils (it translates and rotates sideways so that the lateral drag has no net force and
# moment), which the reference of :func:`reference_speed` accounts for.
#
#     python demos/swimmer.py [--out DIR] [--amplitude 1.2566] [--periods 4]
#
# Writes ``DIR/swimmer.csv``: ``t`` [s], the centre of mass ``x_1, x_2, x_3`` [m] and the
# swimming speed [m/s] (the centre of mass's displacement over the last period divided by
# the period; empty during the first period).

# %%
from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import numpy as np

from fxrod import (
    CurvatureWave,
    Integrator,
    ResistiveForceDrag,
    Rod,
    RodModel,
    Section,
    SolverSettings,
)
from fxrod.output.tables import write_columns_json

LENGTH = 1.0              # m
C_T, C_N = 1.0, 2.0       # N s/m^2
WAVELENGTH = 0.5          # m: two waves on the body
FREQUENCY = 1.0           # Hz
#: A stiff, nearly massless filament: rhoA omega/c_n = 3e-4 (inertia negligible), the
#: Sperm number ``L (c_n omega/EI)^(1/4)`` = 0.60 (the shape is the preferred one to
#: ``Sp^4/500`` = 2.5e-4, 500 the first free-free bending eigenvalue ``4.73^4``).
SECTION = Section(rhoA=1e-4, M11=1e-12, M22=1e-12, k_s1=1e5, k_s2=1e5, k_e=1e5,
                  k_b1=100.0, k_b2=100.0, k_t=100.0, radius=0.005)


def swim(amplitude: float, n_elements: int = 16, steps_per_period: int = 40,
         periods: int = 4) -> dict[str, np.ndarray]:
    """Run the swimmer.

    Parameters
    ----------
    amplitude : float
        Curvature amplitude A [1/m] of the wave.
    n_elements : int
        Elements on the filament.
    steps_per_period : int
        Time steps per period of the wave.
    periods : int
        Periods run (the first ramps the amplitude in).

    Returns
    -------
    dict
        ``t`` [s] (steps + 1,), ``x`` the centre of mass [m] (steps + 1, 3), ``period``
        [s], ``steps_per_period``, ``dissipated`` [J] and ``port_work`` [J] per step.
    """
    period = 1.0 / FREQUENCY
    rod = Rod(SECTION, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=n_elements)
    wave = CurvatureWave(amplitude, WAVELENGTH, FREQUENCY, axis=1, ramp=period)
    model = RodModel(rod, extensions=[ResistiveForceDrag(C_T, C_N), wave])
    h = period / steps_per_period
    integ = Integrator(model, h, SolverSettings(atol=1e-11))
    t, x, diss, port = [0.0], [centre_of_mass(model)], [], []
    for _ in range(periods * steps_per_period):
        r = integ.step()
        t.append(integ.t)
        x.append(centre_of_mass(model))
        diss.append(r.dissipation)
        port.append(r.port_work)
    return {"t": np.array(t), "x": np.array(x), "period": period,
            "steps_per_period": steps_per_period, "dissipated": np.array(diss),
            "port_work": np.array(port)}


def centre_of_mass(model: RodModel) -> np.ndarray:
    """Centre of mass [m] of a uniform rod: the mean of its P2 centreline over s (Simpson's
    rule on every element, exact for the quadratic interpolation)."""
    s, q = model.nodes.gather_nodes()
    w = np.zeros(s.size)
    w[0:-1:2] += 1.0
    w[1::2] += 4.0
    w[2::2] += 1.0
    w *= (s[2] - s[0]) / 6.0
    return w @ q[:, 0:3] / (s[-1] - s[0])


def swimming_speed(run: dict[str, np.ndarray], skip: int = 1) -> float:
    """Mean swimming speed [m/s]: the centre of mass's displacement over the periods after
    the first ``skip`` ones, divided by their duration."""
    n0 = skip * run["steps_per_period"]
    return float(np.linalg.norm(run["x"][-1] - run["x"][n0]) / (run["t"][-1] - run["t"][n0]))


def reference_speed(amplitude: float, n_points: int = 400) -> float:
    """Small-amplitude resistive-force speed [m/s] of the finite filament with its recoil
    (positive: towards +e1, the direction of increasing s).

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
    n_points : int
        Gauss-Legendre points of the integrals over s.
    """
    k, om = 2.0 * math.pi / WAVELENGTH, 2.0 * math.pi * FREQUENCY
    xg, wg = np.polynomial.legendre.leggauss(n_points)
    s, w = 0.5 * LENGTH * (xg + 1.0), 0.5 * LENGTH * wg
    basis = np.vstack([np.ones_like(s), s - 0.5 * LENGTH])          # orthogonal on [0, L]
    yp = -(amplitude / k ** 2) * np.exp(1j * k * s)
    dyp = 1j * k * yp
    coef = (basis * w) @ yp / np.sum(basis ** 2 * w, axis=1)
    Y = yp - coef @ basis
    dY = dyp - coef[1]
    mean = om * np.imag(Y * np.conj(dY)) / 2.0
    return float((C_N / C_T - 1.0) * np.sum(w * mean) / LENGTH)


def write_csv(run: dict[str, np.ndarray], path: Path) -> None:
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


# %%
if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A filament swimming by a curvature wave.")
    parser.add_argument("--out", type=Path, default=Path("results/swimmer"))
    parser.add_argument("--amplitude", type=float, default=0.1 * 2.0 * math.pi / WAVELENGTH,
                        help="curvature amplitude A [1/m] (default: b k = 0.1)")
    parser.add_argument("--periods", type=int, default=4)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    result = swim(args.amplitude, periods=args.periods)
    write_csv(result, args.out / "swimmer.csv")
    U, U_ref = swimming_speed(result), reference_speed(args.amplitude)
    print(f"swimming speed {U:.6g} m/s (small-amplitude resistive-force theory with "
          f"recoil: {abs(U_ref):.6g} m/s); wrote {args.out / 'swimmer.csv'}")
