# %% [markdown]
# # Free flying beam with the Hamel field variational integrator (Example 2, theory §H7).
#
# The Hamel field variational integrator (HFVI) discretises the geometrically exact beam on a
# lattice in space and time: every node carries a frame g = (R, x) in SE(3), and the discrete
# Hamel equations advance the convective velocities (omega, pi) from one time level to the
# next. Its discrete momentum map J_d is an exact invariant of the scheme.
#
# Example 2: a free-free beam (l = 1 m, square a = 0.1 m, rho = 1000 kg/m^3, E = 1e7 Pa,
# nu = 0.35) on a 10-node lattice starts straight along E2 with the angular velocity
# omega = (0.1, 1, 0.2) rad/s on every section, pi_1 = 2 m/s on sections 5-6 and pi_2 = 3 m/s
# on sections 2-3. J_d stays constant to round-off, while its leading term (the momentum at
# the frames g^n) deviates at O(h) and the mid-frame momentum at O(h^2).
#
#     python demos/hamel_free_beam.py [--out DIR] [--quick] [--h 1e-4] [--every 10]
#         [--adaptive] [--checkpoint-every K] [--restart DIR]
#     mpirun -n 2 python demos/hamel_free_beam.py
#
# ``--quick`` stops at t = 0.2 s; ``fxrod run hamel-free-beam`` runs the same. Writes
# ``DIR/hamel_free_beam.csv`` (t, H, Jd_1..6, the leading term J_1..3 / p_1..3, Jmid_1..6,
# tip_1..3, ...), the paper's Figs. 2-3 as ``DIR/hamel_free_beam_angular.png`` and
# ``..._linear.png``, the deviations in ``..._deviation.png``, snapshots with the director
# triads in ``hamel_free_beam.png`` and ``hamel_free_beam.pvd`` (ParaView). Every rank computes
# the (cheap) lattice; rank 0 writes. Exits with status 1 if J_d is not conserved to 1e-11.

# %%
from mpi4py import MPI

from fxrod.studies.cases import exit_on_signal
from fxrod.studies.cases import hamel_free_beam as case

args = case.CASE.parse_args()

# %% [markdown]
# ## The lattice
# fxrod.hamel.example2: HamelSection.square(0.1, E=1e7, nu=0.35, rho=1000), 9 elements,
# the initial convective velocities, time step h (``--adaptive``: failing steps halved).

# %%
beam = case.problem(args.h, args.adaptive)

# %% [markdown]
# ## The run
# Every step diagnosed (J_d, leading term, mid-frame momentum, energies), every N-th written;
# ``--checkpoint-every K`` / ``--restart DIR``: checkpoints and restart, as every case.

# %%
with exit_on_signal(case.NAME, MPI.COMM_WORLD):
    history, frames = case.run_beam(beam, args.t_end, args.out, every=args.every,
                                    checkpoint_every=args.checkpoint_every,
                                    restart=args.restart)

# %% [markdown]
# ## Post-processing
# Conservation of J_d and of its approximations; ParaView series and the pictures.

# %%
result = case.finish(beam, history, frames, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
