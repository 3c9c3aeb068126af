# %% [markdown]
# # Tendon hook: a soft finger curled by one tendon, checked against its closed form.
#
# A silicone rod (L = 0.2 m, radius 0.01 m, E = 1 MPa, nu = 0.45) lies along e1 and is clamped
# at the origin. One tendon runs 8 mm above the centreline over s in [0.05, 0.2] m: guided at
# s = 0.05 m and anchored at the tip. Pulling it with the tension T compresses the distal part
# and bends it towards the tendon. The tension is ramped quasi-statically (t is a load
# factor, T = t T_max) to the value that curls the distal part through 225 degrees.
#
# The end state has a closed form (fxrod.problems.soft_arm, module docstring): a straight,
# unstressed
# shank on [0, 0.05] m and, beyond, an arc with the constant strains
# ``Gamma = (1 - T/k_e) e3`` and ``K = (0, T rho/k_b, 0)``. Every load step is a discrete
# equilibrium, so the computed tip follows the closed-form tip at every load.
#
#     python demos/tendon_hook.py [--out DIR] [--quick] [--n-elements 16] [--steps 10]
#     mpirun -n 2 python demos/tendon_hook.py
#
# ``--quick`` uses 8 elements and 5 load steps; ``fxrod run tendon-hook`` runs the same.
# Writes ``DIR/tendon_hook.csv`` (standard columns, ``tension`` [N] and the closed-form tip
# ``tip_exact_1..3`` [m]), ``DIR/tendon_hook.png`` (load steps, closed form in black) and
# ``DIR/tendon_hook.gif``.

# %%
from fxrod.studies.cases import control, exit_on_signal
from fxrod.studies.cases import tendon_hook as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.problems.soft_arm.tendon_hook: the clamped rod with one Tendon in an Actuation extension, a
# quasi-static model, load steps of 1/steps.

# %%
problem = case.problem(n_elements=args.n_elements, steps=args.steps,
                       formulation=args.formulation)

# %% [markdown]
# ## The run
# Every load step: the standard columns, the tension and the closed-form tip.

# %%
with exit_on_signal(case.NAME, problem.model.comm), \
        case.simulation(problem, args.out, args.quiet, **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# Errors of the final centreline and directors against the closed form; the pictures.

# %%
result = case.finish(sim, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
