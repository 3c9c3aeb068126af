# %% [markdown]
# # Pneumatic soft robotic arm (Kinon, Eugster & Betsch 2026, Ex. 6.4).
#
# A silicone arm (l = 0.1755 m, diameter 0.06 m, E = 0.6 MPa, nu = 0.35, rho = 1000 kg/m^3)
# hangs clamped at the origin along e3. Three pressure chambers run along it at the material
# offsets r_k (cos alpha_k, sin alpha_k), alpha_k = pi/6, 5 pi/6, 3 pi/2. A chamber at
# pressure pushes its end caps apart with the force tau_k <= 0 [N] acting along the arm at
# its offset: an axial force and a bending moment on the section, fed in through an actuation
# port (the column ``port_work`` of the CSV is the work the chambers do).
#
# The circle input (79)-(80) ``tau_k = f(t)/2 (1 + cos(theta(t) - alpha_k))`` first bends the
# arm towards +e1 (f ramps to -50 N over 0.5 s), then turns the bending direction theta once
# around (0.5 to 3.5 s), so the tip draws a circle at nearly constant height, and finally
# straightens the arm again. The heart input (81) draws a cardioid. The dynamics are solved
# with the energy-consistent midpoint rule, h = 0.05 s.
#
#     python demos/soft_arm.py [--path circle|heart] [--out DIR] [--quick]
#     mpirun -n 2 python demos/soft_arm.py --path heart
#
# ``--quick`` stops at t = 1 s (bending and the start of the circle); ``fxrod run soft-arm``
# runs the same. Writes ``DIR/soft_arm_<path>.csv`` (standard columns and the chamber forces
# ``tau_1..3``), ``.pvd`` (ParaView), ``.png`` (snapshots every 0.5 s and the tip path, as the
# paper's Fig. 16) and ``.gif``.

# %%
from fxrod.studies.cases import control, exit_on_signal
from fxrod.studies.cases import soft_arm as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.problems.soft_arm.soft_arm: the clamped arm, the three chambers as an Actuation extension
# (inputs sign-checked on a 1 ms grid before any form is compiled), h = 0.05 s.

# %%
p = case.parameters(args.chamber_radius, args.rho)
problem = case.problem(args.path, n_elements=args.n_elements, t_end=args.t_end, p=p)

# %% [markdown]
# ## The run
# Every step: the standard columns plus the chamber forces, a ParaView frame and the
# centreline in memory for the pictures.

# %%
with exit_on_signal(case.NAME, problem.model.comm), \
        case.simulation(problem, args.out, args.path, p, quiet=args.quiet,
                        **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# Tip, height band of the circle, energy balance, chamber work; snapshots and animation.

# %%
result = case.finish(sim, args.out, args.path, p, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
