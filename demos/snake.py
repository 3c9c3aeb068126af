# %% [markdown]
# # Continuum snake: a rod on anisotropic Coulomb friction driven by a travelling curvature wave.
#
# PyElastica's classic continuum snake (Gazzola, Dudte, McCormick & Mahadevan 2018, Royal
# Society Open Science; PyElastica's examples/ContinuumSnakeCase): a soft rod (L = 0.35 m,
# r = 0.011 L, rho = 1000 kg/m^3, E = 1e6 Pa, G = E/1.5) lies on flat ground under gravity
# (9.80665 m/s^2) with kinetic Coulomb friction that depends on the direction of sliding:
# ``mu_f`` forwards (towards the head), ``mu_b = 1.5 mu_f`` backwards and ``mu_l = 2 mu_f``
# sideways, ``mu_f = L/(T^2 g Fr)`` with the Froude number Fr = 0.1 (PyElastica's values;
# static friction zero, as there). Its muscles impose a travelling bending wave, one
# wavelength on the body, period T = 2 s, travelling from the head to the tail; the friction
# that resists lateral sliding more than axial sliding pushes the snake head first, against
# the wave (the lateral-to-axial ratio drives it; the backward/forward ratio helps).
#
# What differs from PyElastica's example: there the muscles apply a torque ``beta(s)
# sin(omega t - k s)`` with a b-spline amplitude beta(s) of six coefficients (2.6e-3 to
# 4.2e-3 N m), ramped up linearly over one period; here the rod's intrinsic curvature is
# prescribed (``fxrod.core.forms.actuation.CurvatureWave``: ``kappa_0 = A sin(k s - omega t)``,
# the active moment ``-EI kappa_0``) with the uniform amplitude A = 7/L, the "stereotypical
# snake curvature" ``kappa L = 7 cos(2 pi s/L - 0.8)`` PyElastica's example plots beside its
# run (its muscle torque over EI is 15/m to 24/m), ramped in smoothly over one period. The
# ground is fxrod's penalty contact (stiffness and critical damping per length) with
# regularised Coulomb friction (v_reg) instead of PyElastica's plane response with
# ``slip_velocity_tol``; the friction acts on the centreline's velocity (PyElastica's lateral
# slip adds the rolling of the section and a torque); no ambient damping (PyElastica damps
# at 2e-3 1/s). bench/peers.py runs PyElastica with both drives, its own and this one.
#
#     python demos/snake.py [--out DIR] [--periods 6] [--quick]
#
# Writes ``DIR/snake.csv``: ``t`` [s], the centre of mass ``com_1, com_2, com_3`` [m], the
# speed [m/s] (the centre of mass's displacement over the last period divided by the period;
# empty in the first period) and the energy ledger per step: ``H`` [J] (kinetic, elastic and
# contact energy), ``external_work`` (gravity), ``port_work`` (the muscles),
# ``dissipated`` (friction and contact damping), ``energy_residual`` [J]; the units in
# ``DIR/snake_columns.json`` and the path of the centre of mass in ``DIR/snake.png``.

# %%
from __future__ import annotations

import argparse
import csv
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
from fxrod.output.tables import write_columns_json

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
    """Run the snake.

    Parameters
    ----------
    periods : int
        Periods of the wave run (the first ramps the amplitude in).
    n_elements : int
        Elements on the body.
    steps_per_period : int
        Time steps per period (adaptive: a step that fails is cut).
    mu : (float, float, float)
        Kinetic friction coefficients: forward (towards the head), backward, lateral.
    amplitude : float
        Curvature amplitude A [1/m] of the wave.
    v_reg : float
        Regularisation speed of the friction [m/s].
    law : str
        Contact's ``friction_law``: ``"componentwise"`` (PyElastica's and Hu et al.'s
        snakes) or ``"elliptic"``.
    settings : SolverSettings, optional
        Newton's settings; default ``atol = 1e-10`` with adaptive steps.
    callback : callable ``(model, w_prev, step_result)``, optional
        Called after every step with the state before it (e.g. to bound the balance).

    Returns
    -------
    dict
        ``t`` [s] (steps + 1,), ``x`` the centre of mass [m] (steps + 1, 3), ``period``
        [s], ``steps_per_period``, the per-step ledger (``H`` [J] at every time,
        ``external_work``, ``port_work``, ``dissipated``, ``energy_residual`` [J] per
        step), ``h`` [s] per step, ``wall_s`` the wall time of the steps [s] and
        ``centreline`` the final centreline [m].
    """
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
    t, x, H = [0.0], [centre_of_mass(model)], [model.ledger.current()["H"]]
    t0 = time.perf_counter()
    while integ.t < periods * PERIOD - 1e-9:
        w_prev = model.w0.x.array.copy() if callback else None
        r = integ.step()
        if callback:
            callback(model, w_prev, r)
        t.append(integ.t)
        x.append(centre_of_mass(model))
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


def write_csv(run: dict, path: Path) -> Path:
    """``snake.csv`` (see the module docstring) and its units ``snake_columns.json``."""
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


def plot(run: dict, path: Path) -> Path:
    """``snake.png``: the path of the centre of mass and the final body in the ground
    plane."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(run["x"][:, 0], run["x"][:, 1], label="centre of mass")
    c = run["centreline"]
    ax.plot(c[:, 0], c[:, 1], "k-", lw=3, label=f"body at t = {run['t'][-1]:.3g} s")
    ax.plot(c[-1, 0], c[-1, 1], "ko", ms=5)
    ax.set_xlabel("x_1 [m]")
    ax.set_ylabel("x_2 [m]")
    ax.set_aspect("equal")
    ax.legend(loc="best", fontsize=8)
    ax.set_title("continuum snake on anisotropic Coulomb friction")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


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
    write_csv(result, args.out / "snake.csv")
    plot(result, args.out / "snake.png")
    U = snake_speed(result["t"], result["x"], PERIOD, skip=min(2, kw["periods"] - 1))
    res = np.max(np.abs(result["energy_residual"]))
    print(f"snake speed {U:.6g} m/s ({U * PERIOD / LENGTH:.4g} body lengths per period), "
          f"max |energy residual| {res:.3g} J, {result['t'].size - 1} steps in "
          f"{result['wall_s']:.3g} s; wrote {args.out / 'snake.csv'}")
