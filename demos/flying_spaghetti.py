# %% [markdown]
# # Flying spaghetti (Kinon, Eugster & Betsch 2026, Ex. 6.1; Simo & Vu-Quoc 1988).
#
# A free, initially straight rod from (0, 0, 8) to (6, 0, 0) with the section of Table 1
# (rhoA = 1, M_rho = 10, bending and torsion stiffness 1e3, shear and axial stiffness 1e4, in
# consistent units) is pushed at its end s = L by a force f(t) (1/10, 0, 0) and a moment
# f(t) (0, 1, 1/2), where the hat f rises from 0 to 200 at t = 2.5 and falls back to 0 at
# t = 5. Then the rod tumbles freely through space. The mixed port-Hamiltonian discretisation
# with the implicit midpoint rule is energy-momentum consistent: after the pulse the
# Hamiltonian H, the linear momentum p = (50, 0, 0) and the angular momentum J stay constant
# to the Newton tolerance (absolute 1e-11), step after step, and the energy balance
# ``H_{n+1} - H_n = W_ext`` holds during the pulse.
#
#     python demos/flying_spaghetti.py [--out DIR] [--quick] [--h 0.1] [--n-elements 10]
#     mpirun -n 2 python demos/flying_spaghetti.py
#
# ``--quick`` stops at t = 5 (end of the loading); ``--help`` lists the other options
# (Kirchhoff rod, load and stiffness factors, adaptive steps, checkpoints and restart).
# The same run: ``fxrod run flying-spaghetti``. Writes ``DIR/flying_spaghetti.csv``
# (energies, momenta, tip, constraint residual per step), ``.pvd`` (ParaView), ``.png``
# (snapshots at t = 0, 2.5, ...) and ``.gif``.

# %%
from fxrod.studies.cases import control, exit_on_signal
from fxrod.studies.cases import flying_spaghetti as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.problems.paper.flying_spaghetti builds the rod (P2 elements for the centreline and the
# directors, DG1 stresses), the end loads and the paper's solver settings.

# %%
problem = case.problem(n_elements=args.n_elements, h=args.h, t_end=args.t_end,
                       kirchhoff=args.kirchhoff, load_scale=args.load_scale,
                       stiffness_scale=args.stiffness_scale)

# %% [markdown]
# ## The run
# Every step writes one CSV row and one ParaView frame; the centrelines of the pictures
# stay in memory. SIGINT/SIGTERM stop at the end of a step (checkpoint written if asked);
# a full disk or a bad checkpoint ends the run with one line.

# %%
with exit_on_signal(case.NAME, problem.model.comm), \
        case.simulation(problem, args.out, args.quiet, **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# The final state (H, p, J, the largest energy residual) and the pictures.

# %%
result = case.finish(sim, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
