# %% [markdown]
# # Optimal actuation: the soft arm's tip on the heart path, by adjoint gradients (issue 21).
#
# The pneumatic arm of Ex. 6.4 (three chambers, h = 0.05 s) starts at rest with zero
# chamber forces. Which force histories ``tau_k(t) = p_k A_k`` [N] make its tip follow the
# authors' published heart path, with the arm's own dynamics? The histories are piecewise
# linear between knots every 0.1 s, bounded to [-150, 0] N (pressures >= 0), and the
# objective is the tip's squared distance to the path summed over the steps, normalised to
# 1 at rest. L-BFGS-B takes its gradients from the discrete adjoint of the midpoint steps
# (``fxrod.analysis.adjoint``): one backward sweep per gradient, whatever the number of knots.
# The reference is the arm driven by the paper's open-loop inputs (81).
#
#     python demos/optimal_actuation.py [--out DIR] [--quick] [--t-end 4] [--n-elements 10]
#                                       [--knot-step 0.1] [--maxiter 200]
#
# Writes ``DIR/optimal_actuation.csv`` (tracking error per iteration),
# ``DIR/optimal_actuation_inputs.csv`` (the optimised forces at the knots next to the
# paper's), ``DIR/optimal_actuation_tip.csv`` (the run with the optimised inputs) and
# ``DIR/optimal_actuation.png`` (the tip path vs the heart).

# %%
from fxrod.studies.cases import optimal_actuation as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# soft_arm("heart") with three ``InputHistory`` parameters (one per chamber, zero at the
# start) and ``TipTracking`` of the data rows at t_n = n h; the adjoint owns the stepper.

# %%
tracking = case.problem(args.t_end, args.n_elements, args.knot_step)
out = None
if args.out is not None:
    from fxrod.output.tables import prepare_output_dir

    out = prepare_output_dir(args.out, tracking.adjoint.model.comm)

# %% [markdown]
# ## The reference: the paper's open-loop inputs
# The same arm driven by the heart inputs (81): its tip misses the data by a few 1e-4 m
# (the authors' element details differ, tests/test_actuation.py).

# %%
reference = case.open_loop(args.t_end, args.n_elements)

# %% [markdown]
# ## The optimisation
# L-BFGS-B on the forces scaled by 5 N; a trial point whose Newton solve fails counts as
# a large objective, so the line search backs off. One CSV row per iteration.

# %%
result = case.optimise(tracking, args.maxiter, out)

# %% [markdown]
# ## Post-processing
# The run with the optimised inputs, its tip error against the data next to the open-loop
# one, the inputs table and the picture.

# %%
summary = case.finish(tracking, result, out, reference, pictures=args.pictures)
raise SystemExit(summary.report(args.quiet))
