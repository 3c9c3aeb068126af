"""The deep circular arch (DaDeppo & Schmidt 1975; Simo & Vu-Quoc 1986) traced through its
limit point by arc-length continuation.

A circular arch of radius 100 through 215 degrees, clamped at one end and hinged at the
other, carries a dead point force P at its apex. Load control stops at the limit point (the
load cannot grow past it); the Riks/Crisfield continuation follows the path through it, with
the load factor lambda = P R^2/EI and the apex displacement as the path unknowns
(fxrod.analysis.continuation). At every point the number of negative pivots of the symmetric
LDL^T factorisation of the tangent gives the stability index (0: stable); where it changes
the critical point is located by bisection: a limit point near P R^2/EI = 8.97.

    python demos/deep_arch.py [--out DIR] [--quick] [--n-elements 64] [--max-steps 40]

Writes ``DIR/deep_arch.csv`` (columns ``lambda, arc_length, index, event, newton_its,
apex_u1, apex_u2, apex_u3``) and ``DIR/deep_arch.png``; prints the located critical points.
"""

from fxrod.studies.cases import deep_arch as case

args = case.CASE.parse_args()

# %% The model
# Rod(section, curve=Arc(100, 215 deg), Kirchhoff constraints) in a quasi-static model,
# clamped at s = 0, hinged about the out-of-plane director at s = L, with the point load
# PointLoad(L/2, force=lambda -> (0, -lambda EI/R^2, 0)).
model = case.model(n_elements=args.n_elements)

# %% The path
# Continuation(model, ArcLengthSettings(...), points={"apex": L/2}): predictor along the
# tangent, Newton on (R, arc-length constraint) with one factorisation per iteration.
cont = case.continuation(model, ds=args.ds)
cont.run(args.max_steps)

# %% Post-processing
# The path CSV, the load-deflection picture and the limit load.
result = case.finish(cont, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
