# %% [markdown]
# # The 45-degree bend (Bathe & Bolourchi 1979; Simo & Vu-Quoc 1986): a pre-curved rod.
#
# The stress-free reference is an arc of radius 100 through 45 degrees in the e1-e2 plane,
# starting at the origin tangent to e1 with its centre at (0, 100, 0)
# (``fxrod.core.geometry.Arc``). The P2 nodes sit on the exact arc and the stresses start at
# zero, so the unloaded arc is an equilibrium to round-off. The rod is clamped at s = 0; its
# 1 x 1 square section has E = 1e7, G = E/2, shear factor 5/6, J = 1/6 (consistent units).
# A dead force F along +e3, perpendicular to the plane of the arc, is raised to F = 600 in
# load steps (quasi-static: t is the load F, step cutting when Newton fails). The tip ends
# near (47.2, 15.7, 53.4): bending and torsion couple because the rod is curved.
#
#     python demos/bend45.py [--out DIR] [--quick] [--n-elements 8] [--h 30]
#
# Writes ``DIR/bend45.csv`` (columns ``load, tip_1, tip_2, tip_3``), the full time series
# ``DIR/bend45_steps.csv``, the internal forces at F = 300, 450, 600, a ParaView series and
# ``DIR/bend45.png``; prints the tip at F = 300, 450, 600 next to Simo & Vu-Quoc's values.

# %%
from fxrod.studies.cases import bend45 as case
from fxrod.studies.cases import control, exit_on_signal

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.problems.paper.bend45: Rod(section, curve=Arc(100, pi/4), n_elements) in a quasi-static
# model, clamped at s = 0, with the tip force t e3.

# %%
problem = case.problem(n_elements=args.n_elements, h=args.h)

# %% [markdown]
# ## The run
# One CSV row per load step; the shapes and internal forces at F = 300, 450, 600 are kept.

# %%
with exit_on_signal(case.NAME, problem.model.comm), \
        case.simulation(problem, args.out, args.quiet, **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# The load-tip table bend45.csv, the comparison with the published tips, the picture.

# %%
result = case.finish(sim, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
