# %% [markdown]
# # A helical spring: a pre-curved, pre-twisted rod pulled along its axis.
#
# The stress-free reference is a helix of coil radius 10 mm, pitch 4 mm and 5 turns with
# parallel-transport (Bishop) director frames (``fxrod.core.geometry.Helix``), a steel wire of
# radius 1 mm. The rod is clamped at s = 0; at its free end a dead force along the coil axis
# acts through the coil centre (the force plus the moment that carries its line of action onto
# the axis), ramped by the load factor t in [0, 1] up to 50 N (quasi-static load steps).
#
# For small loads the extension is that of the linear spring (Castigliano, section forces
# uniform along the wire): ``delta = F l [R^2 (cos^2 a / GJ + sin^2 a / EI) + sin^2 a / EA +
# cos^2 a / (kappa G A)]`` with the pitch angle a; at 50 N the coils open by more than half
# the pitch and the spring stiffens slightly.
#
#     python demos/helix_spring.py [--out DIR] [--quick] [--n-elements 40] [--force 50]
#
# Writes ``DIR/helix_spring.csv`` (t = load factor), a ParaView series, the internal forces at
# t = 0.5 and 1, and ``DIR/helix_spring.png``.

# %%
from fxrod.studies.cases import control, exit_on_signal
from fxrod.studies.cases import helix_spring as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.problems.paper.helix_spring: Rod(section, curve=Helix(0.01, 0.004, 5), n_elements) in a
# quasi-static model, clamped at s = 0, the axial force and its moment at s = L.

# %%
problem = case.problem(n_elements=args.n_elements, force=args.force, h=args.h)

# %% [markdown]
# ## The run
# One CSV row per load step; the shapes at t = 0, 0.5, 1 are kept.

# %%
with exit_on_signal(case.NAME, problem.model.comm), \
        case.simulation(problem, args.out, args.quiet, **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# Extension against the linear spring, and the picture.

# %%
result = case.finish(sim, problem, args.force, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
