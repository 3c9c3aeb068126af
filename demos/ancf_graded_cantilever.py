# %% [markdown]
# # Graded steel cantilever under gravity with the planar ANCF beam.
#
# A steel cantilever whose Young's modulus falls along it, ``E(x) = E0 (1 - lam (x/L)^n)``,
# sags under its weight. For five gradings the planar ANCF beam's static tip deflection and
# first eigenfrequency meet linear Euler-Bernoulli theory to ~1e-6 (the geometric
# nonlinearity), and an explicit release keeps its energy balance to ~1e-9.
#
#     python demos/ancf_graded_cantilever.py [--out DIR] [--quick] [--n-elements 40]
#
# Writes one row per grading (``DIR/ancf_graded_cantilever.csv``), the releases and pictures
# (docs/output.md); ``fxrod run ancf-graded-cantilever`` runs the same case.

# %%
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod import ancf
from fxrod.ancf import linear_beam as lb
from fxrod.ancf.steppers import CentralDifferenceStepper
from fxrod.errors import ParameterError
from fxrod.output.history import History
from fxrod.output.tables import prepare_output_dir
from fxrod.problems.ancf_graded import post_process, release_fingerprint
from fxrod.runs.simulation import Simulation
from fxrod.studies.cases import RUN_CONTROL, Case, Option, Result
from fxrod.studies.cases.common import deal, wrote

NAME = "ancf_graded_cantilever"
#: The gradings ``(lam, n)`` (``n = 1`` for the uniform beam, where it is moot).
GRADINGS = [(0.0, 1.0), (0.3, 1.0), (0.3, 2.0), (0.6, 1.0), (0.6, 2.0)]
GRAVITY, TOL_LINEAR, TOL_ENERGY = 9.81, 1e-4, 1e-6  # [m/s^2]; relative gaps allowed
N_ELEMENTS_DYNAMIC, N_FRAMES = 10, 6                 # elements, snapshots of a release
OPTIONS = (Option("n_elements", 40, "-", "elements of the statics and the modes",
                  bounds="[1, inf)"),
           Option("t_end", 0.5, "s", "length of the explicit releases", bounds="(0, inf)"),
           *RUN_CONTROL)


# %% [markdown]
# ## The beam
# L = 1 m, square 0.02 x 0.02 m, rho = 7850 kg/m^3, E0 = 207 GPa graded as above; the
# gradient-deficient ANCF Euler-Bernoulli element (positions and slopes as nodal unknowns),
# clamped at x = 0 and loaded by its weight.

# %%
def properties(lam: float, n: float) -> ancf.BeamProperties:
    """The cantilever of grading ``(lam, n)``."""
    E = 2.07e11 if lam == 0.0 else ancf.graded_modulus(2.07e11, lam, n, 1.0)
    return ancf.BeamProperties(L=1.0, E=E, rho=7850.0, b=0.02, h=0.02)


# %% [markdown]
# ## Statics and the first mode against linear theory
# One Newton solve under the full weight, the lowest eigenvalue (SLEPc) for the frequency,
# the curvature along the beam against M(x)/EI(x).

# %%
def run_grading(lam: float, n: float, n_elements: int, t_end: float, checkpoint_every: int = 0,
                restart: Path | None = None, directory: Path | None = None) -> dict:
    """Static, modal and explicit-dynamic results of one grading (serial)."""
    props = properties(lam, n)
    beam = ancf.ANCFBeam(props, n_elements, gravity=(0.0, -GRAVITY))
    omega_1 = float(ancf.eigenfrequencies(beam, 1)[0])      # about the straight beam
    static = ancf.solve_static(beam, n_steps=1)
    x, K = beam.curvature(static.q, per_element=8)
    r = {"lam": lam, "n": n, "x": x, "K": K, "shape": beam.sample(static.q, per_element=8)[1],
         "tip_deflection": float(-static.tip_displacement[1]), "omega_1": omega_1,
         "tip_deflection_linear": lb.tip_deflection(props, g=GRAVITY),
         "omega_1_linear": float(lb.frequencies(props, 1)[0]),
         "K_linear": -lb.curvature(props, x, g=GRAVITY),
         "w_linear": lb.deflection(props, x[::8], g=GRAVITY)}
    r["rel_gap_tip"] = r["tip_deflection"] / r["tip_deflection_linear"] - 1.0
    r["rel_gap_omega"] = r["omega_1"] / r["omega_1_linear"] - 1.0
    return r | release(props, n_elements, t_end, checkpoint_every, restart, directory,
                       label(lam, n))


# %% [markdown]
# ## The release
# From the straight state at rest the beam falls under gravity: explicit central difference
# on 10 elements at 0.9 of the stability limit 2/omega_max, recorded and checkpointed by a
# :class:`fxrod.runs.simulation.Simulation` like any run (about 2000 rows).

# %%
def release(props: ancf.BeamProperties, n_elements: int, t_end: float, checkpoint_every: int,
            restart: Path | None, out: Path | None, name: str) -> dict:
    """The release over ``t_end`` [s] in :data:`N_FRAMES` chunks (a snapshot at each)."""
    beam = ancf.ANCFBeam(props, N_ELEMENTS_DYNAMIC, gravity=(0.0, -GRAVITY))
    cd = ancf.CentralDifference(beam, safety=0.9)
    every = max(1, int(np.ceil(t_end / cd.h)) // 2000)
    per_chunk = cd.steps(t_end / N_FRAMES)
    total = N_FRAMES * per_chunk
    key = release_fingerprint(props, n_elements, N_ELEMENTS_DYNAMIC, GRAVITY, t_end, N_FRAMES)
    with Simulation(CentralDifferenceStepper(cd, key), out, name,
                    checkpoint_every=checkpoint_every, restart=restart,
                    snapshot_times=[c * per_chunk * cd.h for c in range(N_FRAMES + 1)],
                    record_every=lambda i: i < total and i % per_chunk % every == 0) as sim:
        sim.run(total * cd.h)
    hist = History(sim.rows)
    return {"dt": cd.h, "dt_critical": cd.h_critical, "history": hist,
            "energy_error": ancf.relative_energy_error(hist), "balance": ancf.energy_balance(hist),
            "frames": list(sim.snapshots.values()), "frame_t": list(sim.snapshots)}


def label(lam: float, n: float) -> str:
    """Base name of the run of a grading, ``ancf_graded_cantilever_lam0.3_n2``."""
    return f"{NAME}_lam{lam:g}_n{n:g}"


# %% [markdown]
# ## Every grading, the table and the checks
# The gradings are dealt to the ranks (each beam serial) and gathered on rank 0 for the
# table, the CSVs, the largest release's ParaView series and the pictures.

# %%
def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, t_end: float,
        comm=None, adaptive: bool = False, checkpoint_every: int = 0, restart=None) -> Result:
    """Every grading and the checks (``quiet``: no effect, there is no progress bar)."""
    comm = MPI.COMM_WORLD if comm is None else comm
    if adaptive:
        raise ParameterError("adaptive", adaptive, "false: the explicit central difference "
                             "runs at h = 0.9 h_critical, h_critical = 2/omega_max")
    if (checkpoint_every or restart is not None) and out is None:
        raise ParameterError("out_dir", None, "a directory when checkpointing/restarting")
    if out is not None:
        prepare_output_dir(out, comm)
    results = deal([label(*g) for g in GRADINGS], lambda i, rs: run_grading(
        *GRADINGS[i], n_elements, t_end, checkpoint_every, rs, out), comm, restart)
    s, lines, files = post_process(results, out, NAME, pictures) if comm.rank == 0 else ({}, [], [])
    text = "\n".join(filter(None, (*lines, wrote(files))))
    ok = comm.bcast(comm.rank != 0 or (s["max_gap_tip"] <= TOL_LINEAR and s["max_gap_omega"]
                                       <= TOL_LINEAR and s["max_energy_error"] <= TOL_ENERGY), 0)
    failure = "" if ok else (f"ANCF vs linear theory above {TOL_LINEAR:g} or explicit energy "
                             f"error above {TOL_ENERGY:g}")
    return Result(CASE.name, s, text, files=files, ok=ok, failure=failure, rank=comm.rank)


CASE = Case("ancf-graded-cantilever", "planar ANCF beam with axially graded stiffness under "
            "gravity, vs linear theory", OPTIONS, {"n_elements": 20, "t_end": 0.1}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
