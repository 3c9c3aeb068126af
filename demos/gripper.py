# %% [markdown]
# # Gripper: two soft fingers pick up a ball by friction and let it go.
#
# Two fingers, elastic rods (12 cm, radius 4 mm, E = 200 MPa: a stiff polyurethane) hanging
# from bases 2 mm wider apart than a ball (radius 2 cm, 500 kg/m^3: 16.8 g, a free body),
# are one ``Structure``. The bases are clamps moved along a prescribed motion (actuators):
# they close by 5 mm each in 40 ms (squeeze), stand (hold), open by 10 mm in 40 ms
# (release). A ``ShapeContact`` (pair stiffness 5 kN/m, friction mu = 0.5, the pairs'
# normal approach critically damped until the grip settles at 80 ms) between the ball and
# the fingers' nodes presses the ball and holds it against gravity by friction; released,
# it falls free at g (tests/test_gripper.py: the vertical momentum balance while held,
# Coulomb at every pair, the free fall, the energy ledger).
#
#     python demos/gripper.py [--out DIR] [--quick]
#
# Writes ``DIR/gripper.csv``: ``t`` [s], the ball's centre of mass ``body_1..3`` [m] and the
# contact's normal and friction resultants on it ``normal_1..3``, ``friction_1..3`` [N]
# (the step's averages), their units in ``gripper_columns.json``, and ``gripper.png``.

# %%
from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod import (
    Clamp,
    FreeBody,
    Gravity,
    Integrator,
    Rod,
    RodModel,
    Section,
    ShapeContact,
    SolverSettings,
    Structure,
)
from fxrod.output.tables import write_columns_json

G, MU = 9.81, 0.5                                   # m/s^2, -
FINGER = Section.circular(radius=0.004, E=2e8, rho=1200.0, nu=0.45)    # m, Pa, kg/m^3
LENGTH, BALL_RADIUS, DENSITY = 0.12, 0.02, 500.0    # m, m, kg/m^3
DEPTH, GAP = 0.06, 0.001          # ball centre below the bases, free gap per side [m]
SQUEEZE, OPEN, T_MOVE = 0.005, 0.010, 0.04          # base travel in, then out [m]; s
T_SETTLE = 0.08                                     # s: the pairs' damping off
STIFFNESS = 5e3                                     # N/m per pair
V_REG = 1e-3                                        # m/s, friction regularisation


def smooth(u: float) -> float:
    """``3u^2 - 2u^3`` on [0, 1], clipped: a ramp starting and ending at rest."""
    u = min(max(u, 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


def base_travel(t: float, t_release: float) -> float:
    """Inward travel [m] of each base at t [s]: in by SQUEEZE over T_MOVE, stand, from
    ``t_release`` out by OPEN over T_MOVE."""
    return SQUEEZE * smooth(t / T_MOVE) - OPEN * smooth((t - t_release) / T_MOVE)


# %% [markdown]
# ## The model: fingers, ball, moving base clamps, gravity, contact with friction

# %%
def gripper(t_release: float, n_elements: int = 12) -> tuple[RodModel, ShapeContact]:
    """The fingers (``n_elements`` each), the ball, bases released at ``t_release`` [s]."""
    a = BALL_RADIUS + FINGER.contact_radius + GAP               # base offset from the axis
    fingers = [Rod(FINGER, start=(x, 0.0, 0.0), end=(x, 0.0, -LENGTH), d1=(1.0, 0.0, 0.0),
                   n_elements=n_elements) for x in (-a, a)]
    ball = FreeBody.sphere(BALL_RADIUS, DENSITY, (0.0, 0.0, -DEPTH), contact=True)
    structure = Structure(fingers, bodies=[ball])
    drives = []
    for i, side in enumerate((-1.0, 1.0)):
        frame = structure.initial_configuration([structure.coordinate(i, "0")])[0][3:]
        x0, R = np.array([side * a, 0.0, 0.0]), frame.reshape(3, 3).T
        drives.append(Clamp("0", rod=i, motion=lambda t, x0=x0, s=side, R=R: (
            x0 - s * np.array([base_travel(t, t_release), 0.0, 0.0]), R)))
    contact = ShapeContact(STIFFNESS, friction=MU, v_reg=V_REG, rods=(0, 1),
                           damping=2.0 * np.sqrt(STIFFNESS * ball.mass))
    return RodModel(structure, [Gravity((0.0, 0.0, -G))], drives, [contact]), contact


def grip(t_release: float, t_end: float, h: float = 1e-3, n_elements: int = 12,
         settings: SolverSettings | None = None) -> dict:
    """Run to ``t_end`` [s] with the step ``h`` [s], the pairs' damping off from T_SETTLE
    (the grip settled): ``t`` [s], the ball's centre ``x`` [m] and the contact's ``normal``
    and ``friction`` [N] (steps + 1, 3), the step results, the model and the contact."""
    model, contact = gripper(t_release, n_elements)
    it = Integrator(model, h, settings or SolverSettings(atol=1e-10))
    out = {"t": [0.0], "x": [contact.body_pose(0)[0]], "normal": [np.zeros(3)],
           "friction": [np.zeros(3)], "steps": []}
    for _ in range(round(t_end / h)):
        if it.t >= T_SETTLE - 1e-12:
            contact.set_damping(0.0)
        out["steps"].append(it.step())
        normal, friction = contact.force_on_body(0)
        for key, val in (("t", it.t), ("x", contact.body_pose(0)[0]), ("normal", normal),
                         ("friction", friction)):
            out[key].append(val)
    return {k: (v if k == "steps" else np.array(v)) for k, v in out.items()} | {
        "model": model, "contact": contact, "mass": model.structure.bodies[0].mass}


def write_outputs(run: dict, out: Path) -> None:
    """``gripper.csv`` (t, body_1..3, normal_1..3, friction_1..3), its units, gripper.png."""
    cols = {"t": "s", **{f"{q}_{k}": u for q, u in (("body", "m"), ("normal", "N"),
                                                     ("friction", "N")) for k in (1, 2, 3)}}
    with open(out / "gripper.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(cols))
        for row in zip(run["t"], run["x"], run["normal"], run["friction"], strict=True):
            w.writerow([f"{row[0]:.10g}", *(f"{c:.10g}" for v in row[1:] for c in v)])
    what = {"body": "ball's centre of mass", "normal": "contact normal force on the ball",
            "friction": "contact friction force on the ball"}
    write_columns_json(out / "gripper.csv", cols, meanings={"t": "time", **{
        f"{q}_{k}": f"{w}, component {k}" for q, w in what.items() for k in (1, 2, 3)}})
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(6, 5))
    ax1.plot(run["t"], run["x"][:, 2] * 1e3)
    ax1.set_ylabel("ball height [mm]")
    ax2.plot(run["t"], run["friction"][:, 2], label="friction, vertical")
    ax2.plot(run["t"], run["normal"][:, 2], label="normal, vertical")
    ax2.plot(run["t"], run["friction"][:, 2] + run["normal"][:, 2], label="sum")
    ax2.axhline(run["mass"] * G, ls=":", c="k", label="weight m g")
    ax2.set(xlabel="t [s]", ylabel="force [N]")
    ax2.legend()
    fig.savefig(out / "gripper.png", dpi=120)
    plt.close(fig)


# %%
if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Two soft fingers grip, hold, release a ball.")
    parser.add_argument("--out", type=Path, default=Path("results/gripper"))
    parser.add_argument("--quick", action="store_true", help="40 ms hold, h 2 ms, 6 elements")
    args = parser.parse_args()
    t_release = 0.12 if args.quick else 0.5
    result = grip(t_release, t_release + 0.1, *((2e-3, 6) if args.quick else (1e-3, 12)))
    if MPI.COMM_WORLD.rank == 0:
        args.out.mkdir(parents=True, exist_ok=True)
        write_outputs(result, args.out)
        held = result["t"] <= t_release
        print(f"ball held: sank {(result['x'][0, 2] - result['x'][held][-1, 2]) * 1e3:.3f} mm; "
              f"fell {(result['x'][held][-1, 2] - result['x'][-1, 2]) * 1e3:.2f} mm after the "
              f"release; wrote {args.out / 'gripper.csv'}")
