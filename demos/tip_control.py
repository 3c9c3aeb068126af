# %% [markdown]
# # Tip control of a pneumatic soft arm: LQR with integral action on the linear PH model
#
# The arm of Ex. 6.4 (demos/soft_arm.py) sticks out along e3, mounted sideways: gravity
# pulls along -e1, a disturbance the controller does not know. The chambers hold the bias
# u* = -30 N each (a chamber only pushes). An LQR gain with integral action and a static
# feed-forward, designed on the linear port-Hamiltonian model about that equilibrium
# (fxrod.analysis.lqr): ``u = u* + u_ff(r) - K_x (x - x_ff(r)) - K_i xi``,
# ``xi' = r - (tip - tip*)``, r(t) the target's offset from the equilibrium tip tip*: 10 mm
# along +e1 for 1 s, then a circle about the axis in 2 s. Outputs above 0 N are clipped.
#
#     python demos/tip_control.py [--out DIR] [--quick] [--n-elements 8] [--h 0.01]
#
# Writes ``DIR/tip_control.csv`` (``t`` [s], ``tip_1..3``, ``target_1..3`` [m]) and the
# run's standard columns (``..._run.csv``); prints the steps per second (bench/realtime.py).

# %%
import argparse
import math
import time
from pathlib import Path

import numpy as np
import scipy.linalg as sla

from fxrod import Clamp, Gravity, Integrator, RodModel, Simulation, SolverSettings
from fxrod.analysis.lqr import actuated_plant, lqr_gain
from fxrod.problems.soft_arm import SOFT_ARM, tip_control_summary, write_tip_csv
from fxrod.runs.callbacks import StepEfforts
from fxrod.studies.cases import demo

parser = argparse.ArgumentParser(description="Tip control of the soft arm (LQR on the PH model)")
parser.add_argument("--out", default="results/tip_control", help="output directory")
parser.add_argument("--quick", action="store_true", help="t_end = 0.3 s, 4 elements")
parser.add_argument("--n-elements", type=int, default=8)
parser.add_argument("--h", type=float, default=0.01, help="time step [s]")
parser.add_argument("--t-end", type=float, default=3.0, help="end time [s]")
parser.add_argument("--atol", type=float, default=1e-10, help="Newton's residual tolerance")
parser.add_argument("--stol", type=float, default=0.0, help="Newton's update tolerance")
parser.add_argument("--jacobian-persists", action="store_true",
                    help="keep the Jacobian's factorisation across steps (a faster loop)")
args = parser.parse_args()
n_elements, t_end = (4, 0.3) if args.quick else (args.n_elements, args.t_end)
h, out = args.h, Path(args.out)
out.mkdir(parents=True, exist_ok=True)

U_BIAS, G = -30.0, (-9.81, 0.0, 0.0)  # chamber bias force [N], gravity [m/s^2]
R0, T_HOLD, PERIOD = 0.01, 1.0, 2.0    # target offset [m], hold [s], circle period [s]
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
# modal PH model about it keeps the first 12 modes that the chambers move (bending in two
# planes and extension), B the chambers' generalised forces.

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
# Augmented state (x, xi): ``xi' = -C x``. Weights: twice the energy on x, 1e6 J/(m s)^2 on
# xi, R = 1e-2 J/N^2 on the chamber forces (stable from h = 10 ms down to 1 ms; R = 1e-4
# grew unstable at 1 ms), for the sampled plant (lqr_gain with h). The feed-forward inverts
# the static gain ``G0 = C (-A)^{-1} B`` (two bending directions and the stretch).

# %%
n, m = A.shape[0], C.shape[0]
A_aug = np.block([[A, np.zeros((n, m))], [-C, np.zeros((m, m))]])
B_aug = np.vstack([B, np.zeros((m, B.shape[1]))])
W = sla.block_diag((plant.ph.Q.T @ plant.ph.E).toarray(), 1e6 * np.eye(m))
K = lqr_gain(A_aug, B_aug, W, 1e-2, h=h)
K_x, K_i = K[:, :n], K[:, n:]
G0 = C @ (x_of_u := np.linalg.solve(-A, B))    # x_of_u: static state per unit input
print(f"static gain G0 [mm/N]:\n{np.round(1e3 * G0, 3)}")


# %% [markdown]
# ## The controller
# Called before every step with the state y at t_n: the modal state, the trapezoidal
# integral of the tip error (the sampled design's), the feed-forward at the step's midpoint.

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
# keeps ``|e|_2`` of every step: ``|residual| <= atol |e|_2`` is the bound of a closed ledger.

# %%
model = RodModel(arm.arm(n_elements=n_elements), loads=[Gravity(G)],
                 supports=[Clamp("0")], extensions=[arm.chambers([U_BIAS] * 3)])
model.w0.x.array[:] = static.w0.x.array
model.w.x.array[:] = static.w0.x.array
model.ledger.invalidate()
effort = StepEfforts(model, h)      # |e|_2 of every step, in effort.values
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
target = tip_eq + np.array([target_offset(ti) for ti in sim.column("t")])
write_tip_csv(out / "tip_control.csv", sim, target)
print(tip_control_summary(sim, target, effort.values, settings.atol, controller.clipped,
                          T_HOLD + 0.2))
