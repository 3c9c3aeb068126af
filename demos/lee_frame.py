# %% [markdown]
# # Lee's frame: snap-through and snap-back of two welded rods, by arc-length continuation.
#
# A column and a beam of length 120 are welded at a right angle (two rods of a
# ``fxrod.core.structure.Structure`` and a ``fxrod.core.joints.Rigid`` joint), pinned at their far
# ends (hinges about the out-of-plane director), E = 720, A = 6, I = 2, with a dead downward
# load at 24 from the corner. Load control stops at the first limit point; the
# Riks/Crisfield continuation (``fxrod.analysis.continuation``) follows the path through the
# snap-through (the load falls) and the snap-back (the displacement turns back), with the
# load factor ``P L^2/EI``. The stability index (negative pivots of the LDL^T factorisation
# of the tangent, reduced by the joint) is 0 on the stable branches; its changes locate the
# limit points: P L^2/EI = 18.55 and -9.40 (Simo & Vu-Quoc 1986: about 18.7 and -9.35).
#
#     python demos/lee_frame.py [--out DIR] [--quick] [--n-elements 10] [--v-end 95]
#
# Writes ``DIR/lee_frame.csv`` (columns ``load, u, v``: the load P, positive downward, and
# the horizontal and vertical displacement of the loaded point, v positive downward),
# ``DIR/lee_frame_path.csv`` and ``DIR/lee_frame.png``.

# %%
from fxrod.studies.cases import lee_frame as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The structure and the path-following
# fxrod.problems.frames.lee_frame: Structure([column, beam], [Rigid((0, "L"), (1, "0"))]), a
# PointLoad at the beam's vertex 24 m from the corner, Hinge supports; Continuation with
# arc-length control recording the loaded point.

# %%
cont = case.continuation(n_elements=args.n_elements)

# %% [markdown]
# ## Tracing
# Until the loaded point has gone ``--v-end`` down; critical points located by bisection.

# %%
case.trace(cont, args.v_end, args.max_steps)

# %% [markdown]
# ## Post-processing
# The CSVs, the load-displacement picture and the limit loads.

# %%
result = case.finish(cont, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
