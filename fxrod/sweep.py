"""Parameter studies with one independent rod per MPI sub-communicator.

``run_sweep`` splits ``MPI.COMM_WORLD`` into one group per rank (each rod is small), deals
the parameter values round-robin to the groups, runs each case on its group's communicator
and gathers one table on rank 0 (``DIR/sweep_<study>.csv``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod.errors import ParameterError
from fxrod.io import CSVWriter, prepare_output_dir

STUDIES = ("cantilever-impulse",)


def _cantilever_impulse(scale: float, comm, n_elements: int, t_end: float) -> dict:
    """The cantilever of the registry case ``cantilever-vibration`` (Ex. 6.2, its step and
    solver settings) with the impulse scaled by ``scale``, up to ``t_end`` [s]: the energy
    H [J] at the end and the largest tip deflection from the straight axis [m]."""
    from fxrod.cases.cantilever_vibration import problem
    from fxrod.simulation import Simulation

    prob = problem(n_elements, t_end=t_end, scale=scale, comm=comm)
    sim = Simulation(prob.integrator())
    sim.run(prob.t_end)
    defl = np.hypot(sim.column("tip_2"), sim.column("tip_3"))
    return {"value": scale, "H_end": sim.rows[-1]["H"], "max_tip_deflection": defl.max(),
            "steps": len(sim.rows) - 1}


def run_sweep(study: str, values, out, n_elements: int = 8, t_end: float = 0.1,
              comm=None) -> list[dict]:
    """Run ``study`` for each value and gather one table.

    Parameters
    ----------
    study : str
        One of :data:`STUDIES`; ``"cantilever-impulse"``: the value scales the impulse of
        the Ex. 6.2 cantilever (dimensionless).
    values : sequence of float
        Parameter values (at least one).
    out : path-like
        Output directory of ``sweep_<study>.csv``.
    n_elements : int
        Elements of each rod.
    t_end : float
        End time of each run [s].
    comm : mpi4py communicator, optional
        Split into one group per rank (default ``MPI.COMM_WORLD``).

    Returns
    -------
    list of dict
        The rows (``value``, ``H_end`` [J], ``max_tip_deflection`` [m], ``steps``) sorted by
        value, on rank 0; ``[]`` on the other ranks.
    """
    if study not in STUDIES:
        raise ParameterError("study", study, f"one of {', '.join(STUDIES)}")
    if len(values) == 0:
        raise ParameterError("values", values, "at least one value")
    comm = MPI.COMM_WORLD if comm is None else comm
    prepare_output_dir(out, comm)
    sub = comm.Split(color=comm.rank, key=0)   # one rod per rank
    t0 = time.perf_counter()
    mine = [_cantilever_impulse(v, sub, n_elements, t_end)
            for i, v in enumerate(values) if i % comm.size == comm.rank]
    wall = time.perf_counter() - t0
    rows = comm.gather(mine, root=0)
    walls = comm.gather(wall, root=0)
    sub.Free()
    if comm.rank != 0:
        return []
    table = sorted((r for part in rows for r in part), key=lambda r: r["value"])
    cols = ["value", "H_end", "max_tip_deflection", "steps"]
    with CSVWriter(Path(out) / f"sweep_{study}.csv", cols) as w:
        for r in table:
            w.write(r)
    print(f"sweep {study}: {len(table)} cases on {comm.size} rank(s), "
          f"max rank wall {max(walls):.2f} s -> {Path(out) / f'sweep_{study}.csv'}")
    return table
