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
# For a small amplitude the undulation is ``y = b sin(k s - omega t)``, ``b = A/k^2``; an
# infinitely long filament swims at ``U = (c_n/c_t - 1) (b k)^2 c/2`` (Lauga & Powers 2009,
# eq. 26; c = omega/k), a finite one also recoils (:func:`reference_speed`).
#
#     python demos/swimmer.py [--out DIR] [--amplitude 1.2566] [--periods 4]
#
# Writes ``DIR/swimmer.csv``: ``t`` [s], the centre of mass ``x_1, x_2, x_3`` [m] and the
# swimming speed [m/s] over the last period (empty during the first period).

# %%
from __future__ import annotations

import argparse
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
from fxrod.problems.locomotion import filament_speed, write_swimmer_csv

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
    """Swim ``periods`` periods (the first ramps the curvature amplitude ``amplitude``
    [1/m] in) on ``n_elements``: ``t`` [s], ``x`` the centre of mass [m], ``period`` [s],
    ``steps_per_period``, ``dissipated`` [J] and ``port_work`` [J] per step."""
    period = 1.0 / FREQUENCY
    rod = Rod(SECTION, start=(0.0, 0.0, 0.0), end=(LENGTH, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=n_elements)
    wave = CurvatureWave(amplitude, WAVELENGTH, FREQUENCY, axis=1, ramp=period)
    model = RodModel(rod, extensions=[ResistiveForceDrag(C_T, C_N), wave])
    h = period / steps_per_period
    integ = Integrator(model, h, SolverSettings(atol=1e-11))
    t, x, diss, port = [0.0], [model.nodes.centre_of_mass()], [], []
    for _ in range(periods * steps_per_period):
        r = integ.step()
        t.append(integ.t)
        x.append(model.nodes.centre_of_mass())
        diss.append(r.dissipation)
        port.append(r.port_work)
    return {"t": np.array(t), "x": np.array(x), "period": period,
            "steps_per_period": steps_per_period, "dissipated": np.array(diss),
            "port_work": np.array(port)}


def swimming_speed(run: dict[str, np.ndarray], skip: int = 1) -> float:
    """Mean swimming speed [m/s]: the centre of mass's displacement over the periods after
    the first ``skip`` ones, divided by their duration."""
    n0 = skip * run["steps_per_period"]
    return float(np.linalg.norm(run["x"][-1] - run["x"][n0]) / (run["t"][-1] - run["t"][n0]))


def reference_speed(amplitude: float) -> float:
    """Small-amplitude resistive-force speed [m/s] of this finite filament with its recoil
    (:func:`fxrod.problems.locomotion.filament_speed`; positive: towards +e1)."""
    return filament_speed(amplitude, WAVELENGTH, FREQUENCY, LENGTH, C_T, C_N)


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
    write_swimmer_csv(result, args.out / "swimmer.csv")
    U, U_ref = swimming_speed(result), reference_speed(args.amplitude)
    print(f"swimming speed {U:.6g} m/s (small-amplitude resistive-force theory with "
          f"recoil: {abs(U_ref):.6g} m/s); wrote {args.out / 'swimmer.csv'}")
