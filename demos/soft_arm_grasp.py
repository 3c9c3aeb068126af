# %% [markdown]
# # The soft arm grasps a cylinder: bending against it and wrapping around it.
#
# The pneumatic arm of Ex. 6.4 (l = 0.1755 m, radius 0.03 m, E = 0.6 MPa, three chambers)
# is clamped at the origin along e3. Its chambers are pressurised on one side (bending
# direction theta = 0 of (79), tau_k = f(t)/2 (1 + cos alpha_k)), the amplitude f ramping
# as a cosine to -150 N over 1 s and then held, so it bends towards +e1. A fixed rough
# cylinder (radius 0.035 m, axis e2 through (0.075, 0, 0.07) m) stands 0.01 m beside it:
# the arm touches it, then wraps over it, since its free arc (radius 0.059 m) curls more
# tightly than the cylinder lets it (0.065 m to the axis). Contact: a penalty at the P2
# nodes (k = 1e6 N/m^2) with regularised Coulomb friction mu = 0.5; dynamics with the
# energy-consistent midpoint rule, h = 0.01 s. The ledger books the chamber work as port
# work and the friction as dissipation: H_{n+1} - H_n = W_port - D to solver tolerance.
#
#     python demos/soft_arm_grasp.py [--out DIR] [--quick] [--f-max -150] [--friction 0.5]
#     mpirun -n 2 python demos/soft_arm_grasp.py --quick
#
# ``--quick`` stops at t = 0.6 s (first contact and the start of the wrap). Writes
# ``DIR/soft_arm_grasp.csv`` (standard columns, chamber forces ``tau_1..3`` and the
# ``contact_*`` columns), ``.pvd`` (ParaView, every step) and ``.png`` (snapshots with the
# cylinder).

# %%
from fxrod.studies.cases import control, exit_on_signal
from fxrod.studies.cases import soft_arm_grasp as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.studies.cases.soft_arm_grasp.problem: the clamped arm (fxrod.problems.soft_arm), its
# chambers as an
# Actuation extension and Contact(Cylinder(...), stiffness, friction, quadrature="nodal").

# %%
problem = case.problem(args.n_elements, args.h, args.t_end, args.f_max, args.ramp,
                       args.friction, args.stiffness, args.v_reg, args.quadrature)

# %% [markdown]
# ## The run
# Every step: the standard columns, the chamber forces and the contact probe (normal force,
# force vector, smallest gap, contact length), a ParaView frame.

# %%
with exit_on_signal(case.NAME, problem.model.comm), \
        case.simulation(problem, args.out, args.f_max, args.ramp, quiet=args.quiet,
                        **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# Contact onset against the exact static arc of the free arm (the amplitude at which it
# reaches the cylinder), contact length and wrap angle, penetration against p_max / k,
# energy balance; the picture.

# %%
result = case.finish(sim, args.out, args.f_max, args.ramp, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
