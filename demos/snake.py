# %% [markdown]
# # Continuum snake: a rod on anisotropic Coulomb friction driven by a travelling curvature wave.
#
# PyElastica's continuum snake (Gazzola, Dudte, McCormick & Mahadevan 2018; its
# examples/ContinuumSnakeCase): a soft rod (L = 0.35 m, r = 0.011 L, rho = 1000 kg/m^3,
# E = 1e6 Pa, G = E/1.5) on flat ground under gravity, with kinetic Coulomb friction that
# depends on the direction of sliding: ``mu_f`` forwards, ``mu_b = 1.5 mu_f`` backwards,
# ``mu_l = 2 mu_f`` sideways (``mu_f = L/(T^2 g Fr)``, Froude number Fr = 0.1). A bending wave
# (one wavelength on the body, period T = 2 s) travels from the head to the tail; friction
# that resists lateral sliding more than axial sliding pushes the snake head first.
#
# Unlike PyElastica's example (a muscle torque with a b-spline amplitude), the intrinsic
# curvature is prescribed (``CurvatureWave``, ``kappa_0 = A sin(k s - omega t)``, A = 7/L:
# the "stereotypical snake curvature" that example plots), ramped in over one period; the
# ground is a penalty contact with regularised friction on the centreline's velocity; no
# ambient damping. bench/peers.py runs PyElastica with both drives.
#
#     python demos/snake.py [--out DIR] [--periods 6] [--quick]
#
# Writes ``DIR/snake.csv`` (``t`` [s], the centre of mass ``com_1..3`` [m], the speed [m/s]
# over the last period and the energy ledger per step, docs/output.md) and ``DIR/snake.png``.

# %%
from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from fxrod import (
    Contact,
    CurvatureWave,
    Gravity,
    HalfSpace,
    Integrator,
    Rod,
    RodModel,
    Section,
    SolverSettings,
)
from fxrod.problems.locomotion import snake_speed, write_snake_csv
from fxrod.viz.figures import snake_path_figure

LENGTH = 0.35                 # m
RADIUS = 0.011 * LENGTH       # m
DENSITY = 1000.0              # kg/m^3
E = 1e6                       # Pa
G = 9.80665                   # m/s^2, PyElastica's
PERIOD = 2.0                  # s
WAVELENGTH = LENGTH           # m: one wave on the body
AMPLITUDE = 7.0 / LENGTH      # 1/m: PyElastica's stereotypical snake curvature
FROUDE = 0.1
MU_F = LENGTH / (PERIOD ** 2 * G * FROUDE)      # forward (towards the head), 0.0892
MU_B, MU_L = 1.5 * MU_F, 2.0 * MU_F             # backward, lateral
SECTION = Section.circular(radius=RADIUS, E=E, rho=DENSITY, G=E / 1.5)
#: Penalty ground: stiffness per length [N/m^2] (sinks 4.6e-5 m, 1.2 % of the radius, under
#: the weight of 0.457 N/m), critical damping of the normal bounce; friction regularised over
#: v_reg [m/s] (the body slides at 1e-2 to 1e-1 m/s).
STIFFNESS = 1e4
V_REG = 1e-3


def snake(periods: int = 6, n_elements: int = 16, steps_per_period: int = 100,
          mu: tuple[float, float, float] = (MU_F, MU_B, MU_L),
          amplitude: float = AMPLITUDE, v_reg: float = V_REG, law: str = "componentwise",
          settings: SolverSettings | None = None, callback=None) -> dict:
    """Run ``periods`` periods (the first ramps the amplitude ``amplitude`` [1/m] in) with
    the friction coefficients ``mu`` (forward, backward, lateral), regularised over ``v_reg``
    [m/s] by the Contact's ``law``; ``settings`` default ``atol = 1e-10``, adaptive;
    ``callback(model, w_prev, step_result)`` after every step. Returns ``t`` [s], ``x`` the
    centre of mass [m], ``period`` [s], ``steps_per_period``, the ledger (``H`` [J] at every
    time, ``external_work``, ``port_work``, ``dissipated``, ``energy_residual`` [J] and ``h``
    [s] per step), ``wall_s`` [s] and the final ``centreline`` [m]."""
    mu_f, mu_b, mu_l = mu
    # the head is at s = L (towards +e1): it leads when the snake goes forward, so the
    # friction along +d3 is the forward one; the wave travels from the head to the tail
    # (towards decreasing s: a negative frequency)
    rod = Rod(SECTION, start=(0.0, 0.0, RADIUS), end=(LENGTH, 0.0, RADIUS),
              d1=(0.0, 0.0, 1.0), n_elements=n_elements)                # bends in the ground plane
    wave = CurvatureWave(amplitude, WAVELENGTH, -1.0 / PERIOD, axis=1, ramp=PERIOD)
    ground = Contact(HalfSpace(), stiffness=STIFFNESS, friction=mu_f, friction_backward=mu_b,
                     friction_lateral=mu_l, v_reg=v_reg, friction_law=law,
                     damping=2.0 * math.sqrt(STIFFNESS * SECTION.rhoA))
    model = RodModel(rod, loads=[Gravity((0.0, 0.0, -G))], extensions=[wave, ground])
    settings = settings or SolverSettings(atol=1e-10, stol=0.0, adaptive=True)
    integ = Integrator(model, PERIOD / steps_per_period, settings)
    run = {k: [] for k in ("external_work", "port_work", "dissipated", "energy_residual", "h")}
    t, x, H = [0.0], [model.nodes.centre_of_mass()], [model.ledger.current()["H"]]
    t0 = time.perf_counter()
    while integ.t < periods * PERIOD - 1e-9:
        w_prev = model.w0.x.array.copy() if callback else None
        r = integ.step()
        if callback:
            callback(model, w_prev, r)
        t.append(integ.t)
        x.append(model.nodes.centre_of_mass())
        H.append(model.ledger.H)
        for key, v in (("external_work", r.external_work), ("port_work", r.port_work),
                       ("dissipated", r.dissipation), ("energy_residual", r.energy_residual),
                       ("h", r.h)):
            run[key].append(v)
    wall = time.perf_counter() - t0
    return {"t": np.array(t), "x": np.array(x), "H": np.array(H), "period": PERIOD,
            "steps_per_period": steps_per_period, "wall_s": wall,
            "centreline": model.nodes.gather_nodes()[1][:, 0:3].copy(),
            **{k: np.array(v) for k, v in run.items()}}


# %%
if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A continuum snake on anisotropic friction.")
    parser.add_argument("--out", type=Path, default=Path("results/snake"))
    parser.add_argument("--periods", type=int, default=6)
    parser.add_argument("--quick", action="store_true",
                        help="three periods, 8 elements, 50 steps per period")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    kw = {"periods": 3, "n_elements": 8, "steps_per_period": 50} if args.quick else \
        {"periods": args.periods}
    result = snake(**kw)
    write_snake_csv(result, args.out / "snake.csv")
    snake_path_figure(result, args.out / "snake.png")
    U = snake_speed(result["t"], result["x"], PERIOD, skip=min(2, kw["periods"] - 1))
    res = np.max(np.abs(result["energy_residual"]))
    print(f"snake speed {U:.6g} m/s ({U * PERIOD / LENGTH:.4g} body lengths per period), "
          f"max |energy residual| {res:.3g} J, {result['t'].size - 1} steps in "
          f"{result['wall_s']:.3g} s; wrote {args.out / 'snake.csv'}")
