# %% [markdown]
# # Plectoneme: a rod twisted under low tension, with self-contact.
#
# A rod (L = 1 m, r = 1 cm, E = 1e7 Pa) is clamped at s = 0 and turned there about its
# axis at 2 turns/s; the end s = L keeps its orientation (stiff rotational spring), is held
# by a soft spring and pulled by a low tension T = 36 B/L^2. Straight, the torque grows
# linearly, M = theta / (L/GJ + 1/k_r); at the critical twist the rod snaps into a loop
# and its strands wind around each other. Self-contact (RodContact: a penalty between the
# P2 nodes, node spacing below r) keeps the strands 2r apart; with --no-contact they pass
# through each other.
#
#     python demos/plectoneme.py [--out DIR] [--quick] [--no-contact] [--turns 5.5]
#
# Writes DIR/plectoneme.csv (t, twist_turns, torque, end_force, min_distance,
# contact_energy and the default columns), DIR/plectoneme.png and DIR/plectoneme_torque.png.

# %%
from fxrod.studies.cases import control, exit_on_signal
from fxrod.studies.cases import plectoneme as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.studies.cases.plectoneme.problem: Rod along e3, Clamp("0", motion=twist), EndLoad T at
# s = L, ElasticSupport at s = L, Kelvin-Voigt damping, RodContact(radius=r) unless
# --no-contact, and a lateral imperfection force 1e-3 T at L/2.

# %%
problem = case.problem(args.n_elements, args.h, args.turns, args.rate, args.tension,
                       args.stiffness, args.tau, args.no_contact)

# %% [markdown]
# ## The run
# Adaptive steps (a failed Newton solve halves h); one CSV row per step.

# %%
with exit_on_signal(case.NAME, problem.model.comm), \
        case.simulation(problem, args.out, args.rate, args.quiet, **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# Peak and plateau torque, smallest node distance, pre-buckling slope against
# 1/(L/GJ + 1/k_r); pictures of the rod at the end and of the torque against the twist.

# %%
result = case.finish(sim, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
