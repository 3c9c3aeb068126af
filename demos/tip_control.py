# %% [markdown]
# # Tip control of a pneumatic soft arm: LQR with integral action on the linear PH model
#
# The silicone arm of Ex. 6.4 (l = 0.1755 m, diameter 0.06 m, E = 0.6 MPa, nu = 0.35,
# rho = 1000 kg/m^3, three pressure chambers at the offsets 0.065 m (cos alpha_k, sin
# alpha_k)) is clamped at the origin and sticks out along e3, mounted sideways: gravity
# pulls along -e1, a disturbance of the controller, which does not know it. The chambers
# hold the bias force u* = -30 N each (tau = p A <= 0: a chamber only pushes), which
# stretches the straight arm; a controller adds to it.
#
# The controller is designed on the linear port-Hamiltonian model of the arm about that
# straight equilibrium without gravity (fxrod.analysis.lqr: the modal PH model with the chambers as
# inputs): an LQR gain on the modal state x and on the integral xi of the tip error,
# designed for the step h on the sampled plant of the midpoint rule with the zero-order
# hold, plus a static feed-forward from the linear model's static gain:
#
#     u = u* + u_ff(r) - K_x (x - x_ff(r)) - K_i xi,    xi' = r - (tip - tip*),
#
# where r(t) [m] is the target's offset from the equilibrium tip tip*. The integral action
# removes the gravity sag (a constant disturbance), the feed-forward lets the tip follow a
# moving target without waiting for the integral. Outputs above 0 N are clipped to 0
# (a chamber cannot pull; the run counts the clipped steps).
#
# The target: held 10 mm off the axis along +e1 for 1 s, then moving on a circle of
# radius 10 mm about the axis once in 2 s.
#
#     python demos/tip_control.py [--out DIR] [--quick] [--n-elements 8] [--h 0.01]
#                                 [--t-end 3] [--atol 1e-10] [--stol 0]
#
# ``--quick`` stops at t = 0.3 s with 4 elements. The run prints its steps per second of
# wall time (a control loop must keep up with its step: ``bench/realtime.py``). Writes
# ``DIR/tip_control.csv`` with the columns ``t, tip_1, tip_2, tip_3, target_1, target_2,
# target_3`` (s, m) and the run's standard columns (energies, port work, the balance
# residual) to ``DIR/tip_control_run.csv``.

# %%
import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np
import scipy.linalg as sla

from fxrod import (
    Clamp,
    Gravity,
    Integrator,
    RodModel,
    Simulation,
    SolverSettings,
    actuated_plant,
    lqr_gain,
)
from fxrod.output.tables import write_columns_json
from fxrod.problems.soft_arm import SOFT_ARM
from fxrod.studies.cases import demo

parser = argparse.ArgumentParser(description="Tip control of the soft arm (LQR on the PH model)")
parser.add_argument("--out", default="results/tip_control", help="output directory")
parser.add_argument("--quick", action="store_true", help="t_end = 0.3 s, 4 elements")
parser.add_argument("--n-elements", type=int, default=8)
parser.add_argument("--h", type=float, default=0.01, help="time step [s]")
parser.add_argument("--t-end", type=float, default=3.0, help="end time [s]")
parser.add_argument("--atol", type=float, default=1e-10, help="Newton's residual tolerance")
parser.add_argument("--stol", type=float, default=0.0,
                    help="Newton's update tolerance (0: stop on the residual only)")
parser.add_argument("--jacobian-persists", action="store_true",
                    help="keep the Jacobian's factorisation across steps (a faster loop; the "
                         "same tolerances, iterates that differ within them)")
args = parser.parse_args()
n_elements, t_end = (4, 0.3) if args.quick else (args.n_elements, args.t_end)
h = args.h
out = Path(args.out)
out.mkdir(parents=True, exist_ok=True)

U_BIAS = -30.0                      # chamber bias force [N]
R0, T_HOLD, PERIOD = 0.01, 1.0, 2.0  # target offset [m], hold [s], circle period [s]
G = (-9.81, 0.0, 0.0)               # gravity [m/s^2]
# Newton stops on |F|_2 <= atol (stol = 0): the bound of the energy balance below
settings = SolverSettings(atol=args.atol, stol=args.stol,
                          jacobian_persists=args.jacobian_persists)


def target_offset(t: float) -> np.ndarray:
    """Target minus the equilibrium tip [m] at time t [s]."""
    a = 2.0 * math.pi * max(t - T_HOLD, 0.0) / PERIOD
    return np.array([R0 * math.cos(a), R0 * math.sin(a), 0.0])


# %% [markdown]
# ## The equilibrium and the linear plant
# One quasi-static step finds the straight, stretched arm under the bias (no gravity); the
# modal PH model about it keeps those of the first 12 modes that the chambers move (9:
# bending in two planes and extension; torsion is left out), B the chambers' generalised
# forces.

# %%
arm = demo("soft_arm")      # the arm and its chambers as demos/soft_arm.py builds them
static = RodModel(arm.arm(n_elements=n_elements), supports=[Clamp("0")],
                  extensions=[arm.chambers([U_BIAS] * 3)], quasistatic=True)
Integrator(static, 1.0, settings).advance_to(1.0)
plant = actuated_plant(static, 12)
tip_eq = static.nodes.tip()
A, B = plant.A, plant.B
C = plant.output_matrix(SOFT_ARM.length, (0, 1, 2))     # tip displacement [m] from x
print(f"plant: {A.shape[0]} states, frequencies {np.round(plant.ph.omega, 1)} rad/s")

# %% [markdown]
# ## The design
# Augmented state (x, xi): ``xi' = -C x`` (r = 0 in the design). Weights: twice the
# energy on x, 1e6 J/(m s)^2 on xi, R = 1e-2 J/N^2 on the chamber forces (a gain that stays
# stable from h = 10 ms down to 1 ms with 20 elements; the higher gain of R = 1e-4 tracked
# as well at 10 ms, but at 1 ms its loop grew unstable after 0.3 s); the gain
# minimises the cost of the sampled plant (lqr_gain with h). The feed-forward
# inverts the static gain ``G0 = C (-A)^{-1} B`` (3 x 3: two bending directions and the
# stretch).

# %%
n, m = A.shape[0], C.shape[0]
A_aug = np.block([[A, np.zeros((n, m))], [-C, np.zeros((m, m))]])
B_aug = np.vstack([B, np.zeros((m, B.shape[1]))])
W = sla.block_diag((plant.ph.Q.T @ plant.ph.E).toarray(), 1e6 * np.eye(m))
K = lqr_gain(A_aug, B_aug, W, 1e-2, h=h)
K_x, K_i = K[:, :n], K[:, n:]
x_of_u = np.linalg.solve(-A, B)                # static state per unit input
G0 = C @ x_of_u
print(f"static gain G0 [mm/N]:\n{np.round(1e3 * G0, 3)}")


# %% [markdown]
# ## The controller
# Called before every step with the state y at t_n: the modal state from the rod's arrays,
# the trapezoidal integral of the tip error (the midpoint rule's integral of the sampled
# design), the feed-forward of the target at the step's midpoint.

# %%
class TipController:
    """LQR with integral action and feed-forward; u in N, positions in m."""

    def __init__(self) -> None:
        self.xi = np.zeros(m)
        self.last = None        # (t, error) of the previous call
        self.clipped = 0

    def __call__(self, t, y):
        err = target_offset(t) - (y["tip"] - tip_eq)
        if self.last is not None:
            self.xi += 0.5 * (t - self.last[0]) * (err + self.last[1])
        self.last = (t, err)
        u_ff = np.linalg.solve(G0, target_offset(t + 0.5 * h))
        x = plant.state(y)
        u = plant.u_eq + u_ff - K_x @ (x - x_of_u @ u_ff) - K_i @ self.xi
        self.clipped += int(np.any(u > 0.0))
        return np.minimum(u, 0.0)


# %% [markdown]
# ## The run
# The dynamic arm starts at rest in the equilibrium, gravity on from t = 0. A callback
# keeps ``|e|_2`` of every step (midpoint velocity, midpoint stresses, multipliers): the
# balance residual of a step is the Newton residual paired with it, so
# ``|residual| <= atol |e|_2`` is the bound of a closed ledger.

# %%
model = RodModel(arm.arm(n_elements=n_elements), loads=[Gravity(G)],
                 supports=[Clamp("0")], extensions=[arm.chambers([U_BIAS] * 3)])
model.w0.x.array[:] = static.w0.x.array
model.w.x.array[:] = static.w0.x.array
model.ledger.invalidate()
q_dofs, s_dofs, l_dofs = (model.field_dofs(f) for f in ("q", "sigma", "lambda"))
efforts, w_prev = [], [model.w0.x.array.copy()]


def effort(t, y):
    """|e|_2 of the step just taken [m/s, N, N m]."""
    if t > 0.0:
        w0, w1 = w_prev[0], model.w0.x.array
        efforts.append(math.sqrt(np.sum(((w1[q_dofs] - w0[q_dofs]) / h) ** 2)
                                 + np.sum((0.5 * (w1[s_dofs] + w0[s_dofs])) ** 2)
                                 + np.sum(w1[l_dofs] ** 2)))
        w_prev[0] = w1.copy()


controller = TipController()
sim = Simulation(Integrator(model, h, settings), out_dir=out, name="tip_control_run",
                 controller=controller, callbacks=[effort])
wall = time.perf_counter()
sim.run(t_end)
wall = time.perf_counter() - wall
print(f"{(len(sim.rows) - 1) / wall:.0f} steps per second of wall time "
      f"({n_elements} elements, h = {h:g} s)")

# %% [markdown]
# ## Results
# The CSV of tip and target; the tip error and the energy balance.

# %%
t = sim.column("t")
tip = np.column_stack([sim.column(f"tip_{k}") for k in (1, 2, 3)])
target = tip_eq + np.array([target_offset(ti) for ti in t])
columns = {"t": "s", **{f"{c}_{k}": "m" for c in ("tip", "target") for k in (1, 2, 3)}}
with open(out / "tip_control.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(list(columns))
    w.writerows(np.column_stack([t, tip, target]).tolist())
write_columns_json(out / "tip_control.csv", columns, meanings={
    **{f"target_{k}": f"target of the tip, component {k}" for k in (1, 2, 3)}})
error = np.linalg.norm(tip - target, axis=1)
residual = np.abs(sim.column("energy_residual")[1:])
ratio = np.max(residual / (settings.atol * np.array(efforts)))
print(f"tip error {1e3 * error[0]:.2f} mm at t = 0, {1e3 * error[-1]:.2f} mm at "
      f"t = {t[-1]:.2f} s; clipped steps {controller.clipped}")
tracking = t > T_HOLD + 0.2
if np.any(tracking):
    print(f"while tracking the circle (t > {T_HOLD + 0.2:g} s): max tip error "
          f"{1e3 * error[tracking].max():.2f} mm")
print(f"energy balance: max |residual| {residual.max():.2e} J = {ratio:.2e} of "
      f"atol |e|_2; port work {sim.column('port_work')[-1]:.4e} J, "
      f"external work {sim.column('external_work')[-1]:.4e} J")
