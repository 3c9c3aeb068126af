# %% [markdown]
# # Quasi-static cantilever (Kinon, Eugster & Betsch 2026, Ex. 6.3; Harsch et al. 2021).
#
# A straight cantilever of length L = 2 pi along e1, clamped at the origin (bending stiffness
# k_b = 2, torsion 0.5, shear 1, axial 5, in consistent units), carries at its tip the dead
# force t (0, -P, 0) and the dead moment t (0, 0, 2.5 P) with P = 10 k_b / L^2. The load
# factor t goes from 0 to 1 in steps of h; every step is a static equilibrium solved by
# Newton's method (the inertia terms are dropped), with step cutting if a step fails.
#
# Two variants: the shearable, extensible Reissner rod ("unconstrained") and the Kirchhoff rod
# ("constrained", C_N = 0: the Euler elastica). Both have exact planar solutions, shipped in
# ``fxrod.data`` and drawn dashed in the figure (the paper's Fig. 14).
#
#     python demos/quasistatic_cantilever.py [--out DIR] [--quick] [--h 0.1] [--n-elements 8]
#
# ``--quick`` uses h = 0.2; ``fxrod run quasistatic-cantilever`` runs the same. Writes
# ``DIR/quasistatic_cantilever_unconstrained.csv`` and ``..._constrained.csv`` (t = load
# factor), ``DIR/quasistatic_cantilever_centrelines.csv`` (centrelines at t = 0.1, 0.2, 0.4, 1)
# and ``DIR/quasistatic_cantilever.png``.

# %%
from fxrod.studies.cases import control, exit_on_signal
from fxrod.studies.cases import quasistatic_cantilever as case

args = case.CASE.parse_args()

# %% [markdown]
# ## Both variants
# fxrod.problems.paper.quasistatic_cantilever builds a quasi-static model (load factor t); the
# centrelines at t = 0.1, 0.2, 0.4 and 1 stay in memory.

# %%
sims = {}
for variant, constrained in case.VARIANTS.items():
    problem = case.problem(constrained, n_elements=args.n_elements, h=args.h,
                           t_end=args.t_end, evaluation=args.evaluation)
    with exit_on_signal(case.NAME, problem.model.comm), \
            case.simulation(problem, args.out, variant, args.quiet, **control(args)) as sim:
        sims[variant] = sim
        sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# Tips at the final load factor, the centrelines CSV and the figure with the exact solutions.

# %%
result = case.finish(sims, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
