# %% [markdown]
# # A right-angle cantilever: two rods welded into a frame, in large 3D motion.
#
# Simo & Vu-Quoc (1988): two legs of length 10, the first along e1 from the clamp at the
# origin to the elbow, the second along e2 to the free tip, joined rigidly at a right angle
# (``fxrod.core.joints.Rigid``: the second rod's directors at the elbow are a fixed combination of
# the first rod's, eliminated exactly). EA = GA = 1e6, EI = GJ = 1e3, rho A = 1,
# rho I = 10. An out-of-plane force at the elbow rises to 50 at t = 1 and falls to 0 at
# t = 2; afterwards the frame swings and twists freely and its energy H stays constant to
# the Newton tolerance.
#
#     python demos/right_angle_cantilever.py [--out DIR] [--quick] [--n-elements 10] [--h 0.1]
#
# Writes ``DIR/right_angle_cantilever.csv`` (standard columns, ``tip_*`` the free end, and
# ``elbow_1..3``), a ParaView series and ``DIR/right_angle_cantilever.png``.

# %%
from fxrod.studies.cases import control, exit_on_signal
from fxrod.studies.cases import right_angle_cantilever as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The problem
# fxrod.problems.frames.right_angle_cantilever: Structure([leg1, leg2], [Rigid((0, "L"), (1,
# "0"))]),
# a clamp at s = 0 of leg 1 and the pulse as an end load at the elbow.

# %%
problem = case.problem(n_elements=args.n_elements, h=args.h, t_end=args.t_end)

# %% [markdown]
# ## The run
# Every step is a CSV row; the elbow position is recorded by a column probe.

# %%
with exit_on_signal(case.NAME, problem.model.comm), \
        case.simulation(problem, args.out, args.quiet, **control(args)) as sim:
    sim.run(problem.t_end)

# %% [markdown]
# ## Post-processing
# The energy after the pulse, the ranges of the out-of-plane motion and the picture.

# %%
result = case.finish(sim, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
