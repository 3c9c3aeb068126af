# %% [markdown]
# # The capstan (Euler-Eytelwein): a rope pulled over a rough drum until it slips.
#
# A rope of radius 5 mm (EA = GA = 1e4 N, EI = GJ = 1e-6 N m^2: a string) lies over a
# fixed cylinder of radius 0.1 m through the wrap angle theta, with 0.1 m tails. Its
# stress-free reference is the wrapped shape, so it touches the drum along the arc at t = 0.
# The end s = 0 carries a dead force T_in = 1 N along its tail; the end s = L is clamped and
# pulled out along its tail by 0.02 m per unit load factor t (quasi-static). Contact is a
# penalty at the P2 nodes (``quadrature="nodal"``) with regularised Coulomb friction mu.
# The rope slides from the first step on, at 200 times the regularisation velocity, so the
# clamp's reaction is the outgoing tension at slip: T_out / T_in against exp(mu theta) for
# (mu, theta) = (0.3, pi) and (0.5, pi/2).
#
#     python demos/capstan.py [--out DIR] [--quick] [--n-elements 40] [--h 0.05]
#
# Writes ``DIR/capstan.csv`` (columns ``mu, theta, tension_ratio``), the load steps of each
# run ``DIR/capstan_mu<mu>_theta<deg>.csv`` (with the contact columns) and ``DIR/capstan.png``.

# %%
from fxrod.studies.cases import capstan as case
from fxrod.studies.cases import control, exit_on_signal

args = case.CASE.parse_args()

# %% [markdown]
# ## The problems and the runs
# fxrod.studies.cases.capstan.problem: Rod(section, curve=rope_curve(theta)) in a quasi-static model
# with Contact(Cylinder(...), stiffness, friction=mu, quadrature="nodal"), the dead force
# T_in at s = 0 and the clamp at s = L moving out along its tail. One CSV row per load step.

# %%
sims = {}
for i, (mu, theta) in enumerate(case.PAIRS):
    problem = case.problem(mu, theta, args.n_elements, args.h, args.t_end, args.stiffness,
                           args.v_reg, args.quadrature)
    with exit_on_signal(case.NAME, problem.model.comm), \
            case.simulation(problem, args.out, case.label(mu, theta), i == 0, args.quiet,
                            **control(args)) as sim:
        sim.run(problem.t_end)
    sims[(mu, theta)] = sim

# %% [markdown]
# ## Post-processing
# T_out / T_in: the clamp's reaction along the outgoing tail over T_in, averaged over the
# second half of the pull (steady sliding); capstan.csv and the picture of the ropes.

# %%
result = case.finish(sims, args.out, pictures=args.pictures)
raise SystemExit(result.report(args.quiet))
