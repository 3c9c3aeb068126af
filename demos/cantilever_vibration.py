# %% [markdown]
# # Nonlinear cantilever vibrations (Kinon, Eugster & Betsch 2026, Ex. 6.2; after Herrmann &
# Kotyczka 2024).
#
# An aluminium rod (L = 1 m, circular section r = 2 mm, E = 72 GPa, nu = 0.35, rho = 2850
# kg/m^3) lies along e1 and is clamped at s = 0. Shear and extension are constrained (a
# Kirchhoff rod: C_N = 0, the shear force becomes a Lagrange multiplier). A smooth impulse
# ``f(t) = (1 - cos(40 pi t))/2`` on [0, 0.05] s pushes the tip with the force f (0, 1, 1) N
# and the moment f (0.25, 0, 0) N m; afterwards the rod vibrates freely with large
# deflections. The midpoint rule keeps H constant after the pulse, and the full Newton
# iteration keeps the nodal orthonormality of the directors and the consistency of the mixed
# strains with the displacement strains at round-off (the paper's Fig. 12).
#
# With ``--viscoelastic`` three quarters of the stiffness sit in a Maxwell branch with the
# relaxation time 0.08 s: the rod then dissipates its energy (the paper's Fig. 13, drawn when
# the elastic run's CSV is already in DIR).
#
#     python demos/cantilever_vibration.py [--out DIR] [--quick] [--h 1e-3] [--n-elements 8]
#     [--viscoelastic]
#
# ``--quick`` stops at t = 0.1 s; ``fxrod run cantilever-vibration`` runs the same. Writes
# ``DIR/cantilever_vibration.csv`` (``..._viscoelastic.csv``): the standard columns, the tip
# velocity in the director frame ``tipvel_B_1..3``, the constraints ``mid_g_1..6`` at s = L/2
# and the strain consistency ``Gamma_1..3``, ``K_1..3``; ``.pvd`` (ParaView) and ``.png``.

# %%
from fxrod.studies.cases import cantilever_vibration as case
from fxrod.studies.cases import control, exit_on_signal

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.problems.paper.cantilever_vibration: 8 Kirchhoff elements, the clamp at s = 0, the tip
# impulse, h = 1 ms, full Newton to atol 1e-13; optionally the Maxwell branch.

# %%
problem = case.problem(n_elements=args.n_elements, h=args.h, t_end=args.t_end,
                       viscoelastic=args.viscoelastic, scale=args.scale)

# %% [markdown]
# ## The run
# Every step: the standard columns plus the probe of the case-specific columns; a ParaView
# frame every 10 ms and the centrelines every 25 ms for the picture.

# %%
name = case.NAME + ("_viscoelastic" if args.viscoelastic else "")
with exit_on_signal(name, problem.model.comm), \
        case.simulation(problem, args.out, name, args.quiet, **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# The final state and the largest energy residual; snapshots with the tip path.

# %%
result = case.finish(sim, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
