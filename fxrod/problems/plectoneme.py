"""The plectoneme's read-outs (``demos/plectoneme.py``): the smallest distance between the
nodes that self-contact sees, the columns of the twisted rod (twist, torque, tension,
distance, contact energy), and the torque's pre-buckling slope and plateau."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.spatial import cKDTree

from fxrod.core.forms.rodcontact import RodContact
from fxrod.runs.probes import ColumnProbe

#: Columns of ``plectoneme.csv`` besides the default probes.
COLUMNS = {"twist_turns": "-", "torque": "N m", "end_force": "N", "min_distance": "m",
           "contact_energy": "J"}


def min_distance(model, exclude: float) -> float:
    """Smallest distance [m] between two nodes of the centreline farther apart along the rod
    than ``exclude`` [m] (the pairs :class:`RodContact` sees), over every rank; capped at
    ``2 exclude``."""
    comm = model.comm
    n = model.space.Q.dofmap.index_map.size_local
    s = np.concatenate(comm.allgather(model.space.Q.tabulate_dof_coordinates()[:n, 0]))
    x = np.concatenate(comm.allgather(model.nodes.q_owned()[:, :3]))
    p = np.array(sorted(cKDTree(x).query_pairs(2.0 * exclude)), dtype=np.int64).reshape(-1, 2)
    p = p[np.abs(s[p[:, 0]] - s[p[:, 1]]) >= exclude]
    if not p.size:
        return 2.0 * exclude
    return float(np.min(np.linalg.norm(x[p[:, 0]] - x[p[:, 1]], axis=1)))


def twist_probe(model, turns_at: Callable[[float], float], exclude: float) -> ColumnProbe:
    """The :data:`COLUMNS` of a rod turned at its clamp at s = 0 by ``turns_at(t)`` turns:
    the torque about e3 [N m] and the tension [N] from the clamp's reaction (step averages),
    :func:`min_distance` and the self-contact's energy at the step's end [J]."""
    contact = [e for e in model.extensions if isinstance(e, RodContact)]

    def row(sim, res) -> dict[str, float]:
        f = res.reactions["clamp_0"] if res is not None else np.zeros(6)
        return {"twist_turns": turns_at(sim.integ.t), "torque": float(f[5]),
                "end_force": -float(f[2]),
                "min_distance": min_distance(model, exclude),
                "contact_energy": contact[0].stored_energy_value() if contact else 0.0}

    return ColumnProbe(COLUMNS, row)


def slope(sim) -> float:
    """Least-squares slope dM/dtheta [N m/rad] of the torque against the clamp's twist over
    the rows with 0.25 theta_peak <= theta <= 0.75 theta_peak (the straight, linear branch,
    away from the start-up of the twist, whose torsional vibration decays slowly)."""
    turns, torque = sim.column("twist_turns"), sim.column("torque")
    peak = turns[int(np.argmax(torque))]
    on = (turns >= 0.25 * peak) & (turns <= 0.75 * peak)
    return float(np.polyfit(2 * np.pi * turns[on], torque[on], 1)[0])


def plateau(sim, last: float = 0.5) -> tuple[float, float]:
    """Mean torque [N m] over the last ``last`` turns and its relative spread
    ``(max - min) / mean`` there."""
    turns, torque = sim.column("twist_turns"), sim.column("torque")
    tail = torque[turns >= turns[-1] - last]
    mean = float(np.mean(tail))
    return mean, float((np.max(tail) - np.min(tail)) / mean)
