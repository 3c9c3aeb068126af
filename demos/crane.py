# %% [markdown]
# # Crane: a payload swinging on a cable below a moving trolley.
#
# A steel ball (radius 8.5 cm, 20.2 kg: ``FreeBody.sphere``, a free rigid body) hangs from
# a trolley on a 2 m steel hanger, a Cosserat rod (radius 4 mm: 0.39 kg/m, EA = 1.0e7 N)
# with ball joints (``Spherical``) at both ends: to the payload's centre and to the
# carriage, a second free body (a 0.4 x 0.2 x 0.1 m box) whose node is a ``Clamp`` with a
# prescribed motion. Under gravity the trolley accelerates along e1 at 0.2 m/s^2 for 1 s,
# brakes as hard for 1 s and stands: the payload lags, overtakes and swings on about the
# trolley's new place.
#
# After the trolley stops the payload is a pendulum. A rigid one of the hanger's length,
# with the hanger's mass, swings at the compound pendulum's
# ``omega^2 = g (M X_L + int rho A X ds) / (M X_L^2 + int rho A X^2 ds)``, ``X(s)`` the
# hanger's point at arc length s stretched by its static tension
# (:func:`pendulum_frequency`); the flexible hanger swings a little slower, at most as slow
# as an extensible string (tests/test_crane.py).
#
#     python demos/crane.py [--out DIR] [--quick]
#
# Writes ``DIR/crane.csv``: ``t`` [s] and the payload's centre of mass ``body_1, body_2,
# body_3`` [m]; their units in ``crane_columns.json`` beside it.

# %%
from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

from fxrod import (
    Clamp,
    FreeBody,
    Gravity,
    Integrator,
    Rod,
    RodModel,
    Section,
    Simulation,
    SolverSettings,
    Spherical,
    Structure,
)
from fxrod.output.tables import write_columns_json

LENGTH, G = 2.0, 9.81                        # m, m/s^2
HANGER = Section.circular(radius=0.004, E=2e11, rho=7850.0, nu=0.3)     # a steel hanger
BALL_RADIUS, STEEL = 0.085, 7850.0           # m, kg/m^3
ACCEL, T_ACCEL = 0.2, 1.0                    # m/s^2, s


def trolley(t: float) -> float:
    """The trolley's travel [m] at time t [s]: ``a t^2/2`` for ``t < T``, braking at ``-a``
    until ``2T``, then standing at ``a T^2``."""
    t = min(max(t, 0.0), 2.0 * T_ACCEL)
    if t <= T_ACCEL:
        return 0.5 * ACCEL * t * t
    return ACCEL * T_ACCEL**2 - 0.5 * ACCEL * (2.0 * T_ACCEL - t) ** 2


# %% [markdown]
# ## The model: hanger, payload, carriage, ball joints, the moving clamp, gravity

# %%
def crane(n_elements: int = 8) -> RodModel:
    """The crane's model with ``n_elements`` elements on the hanger."""
    hanger = Rod(HANGER, start=(0.0, 0.0, 0.0), end=(0.0, 0.0, -LENGTH), d1=(1.0, 0.0, 0.0),
               n_elements=n_elements)
    payload = FreeBody.sphere(BALL_RADIUS, STEEL, (0.0, 0.0, -LENGTH))
    carriage = FreeBody.box(0.4, 0.2, 0.1, 1000.0, (0.0, 0.0, 0.0))
    structure = Structure([hanger], [Spherical((2, "0"), (0, "0")),      # carriage - hanger
                                   Spherical((0, "L"), (1, "0"))],     # hanger - payload
                          bodies=[payload, carriage])
    frame = structure.initial_configuration([structure.coordinate(2, "0")])[0][3:]
    drive = Clamp("0", rod=2, motion=lambda t: (np.array([trolley(t), 0.0, 0.0]),
                                                frame.reshape(3, 3).T))
    return RodModel(structure, loads=[Gravity((0.0, 0.0, -G))], supports=[drive])


def swing(t_end: float, h: float = 0.01, n_elements: int = 8) -> dict[str, np.ndarray]:
    """Run the crane to ``t_end`` [s] with the step ``h`` [s]: the times ``t`` [s] and the
    payload's centre ``x`` [m] (steps + 1, 3)."""
    sim = Simulation(Integrator(crane(n_elements), h, SolverSettings(atol=1e-10)))
    sim.run(t_end)
    x = np.stack([sim.column(f"body_{k}") for k in (1, 2, 3)], axis=1)
    return {"t": sim.column("t"), "x": x}


# %% [markdown]
# ## The reference: the compound pendulum of the stretched hanger

# %%
def pendulum_frequency() -> float:
    """Angular frequency [rad/s] of small swings of a rigid hanger of the statically
    stretched shape with the payload at its end (Gauss-Legendre: exact for these
    polynomials)."""
    M = FreeBody.sphere(BALL_RADIUS, STEEL, (0, 0, 0)).mass
    rhoA, EA = HANGER.rhoA, HANGER.k_e
    xg, wg = np.polynomial.legendre.leggauss(8)
    s, ws = 0.5 * LENGTH * (xg + 1.0), 0.5 * LENGTH * wg
    X = s + G / EA * ((M + rhoA * LENGTH) * s - rhoA * s**2 / 2.0)
    XL = LENGTH + G / EA * (M + rhoA * LENGTH / 2.0) * LENGTH
    return float(np.sqrt(G * (M * XL + ws @ (rhoA * X)) / (M * XL**2 + ws @ (rhoA * X**2))))


def measured_frequency(run: dict[str, np.ndarray], h: float) -> tuple[float, float]:
    """The swing's angular frequency [rad/s] after the trolley stopped, from the zero
    crossings of the payload's offset from the trolley, corrected for the midpoint rule
    (``omega = 2/h tan(omega_h h/2)``) and for the amplitude theta_0 (``1 + theta_0^2/16``);
    and theta_0 [rad]."""
    after = run["t"] >= 2.0 * T_ACCEL
    t, x = run["t"][after], run["x"][after, 0] - trolley(2.0 * T_ACCEL)
    i = np.flatnonzero(np.sign(x[:-1]) != np.sign(x[1:]))
    tc = t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
    theta0 = float(np.max(np.abs(x)) / LENGTH)
    w_h = np.pi * (len(tc) - 1) / (tc[-1] - tc[0])
    return 2.0 / h * np.tan(w_h * h / 2.0) * (1.0 + theta0**2 / 16.0), theta0


def write_csv(run: dict[str, np.ndarray], path: Path) -> None:
    """``crane.csv``: t [s] and the payload's centre body_1..3 [m], with its units file."""
    cols = {"t": "s", "body_1": "m", "body_2": "m", "body_3": "m"}
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(list(cols))
        for t, x in zip(run["t"], run["x"], strict=True):
            out.writerow([f"{t:.10g}", *(f"{c:.10g}" for c in x)])
    write_columns_json(path, cols, meanings={
        "t": "time", **{f"body_{k}": f"payload's centre of mass, component {k}"
                        for k in (1, 2, 3)}})


# %%
if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A payload swinging below a crane trolley.")
    parser.add_argument("--out", type=Path, default=Path("results/crane"))
    parser.add_argument("--quick", action="store_true", help="two swings after the stop")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    h = 0.01
    result = swing(2.0 * T_ACCEL + (6.0 if args.quick else 15.0), h)
    write_csv(result, args.out / "crane.csv")
    w, theta0 = measured_frequency(result, h)
    print(f"swing after the stop: {w:.6f} rad/s at {theta0:.4f} rad (compound pendulum of "
          f"the stretched hanger {pendulum_frequency():.6f} rad/s); wrote "
          f"{args.out / 'crane.csv'}")
