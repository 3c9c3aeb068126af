"""``fxrod modes <case>``: natural modes of a registered problem about its equilibrium,
written as a CSV table, a PNG of the first mode shapes and a GIF per mode (SI units);
``fxrod phmodel <case>``: its linear port-Hamiltonian model (``.npz``, ``.mat``, ``.json``).

The models are built by the demos of the cases (``demos/flying_spaghetti.py``,
``demos/cantilever_vibration.py``, through :func:`fxrod.studies.cases.demo`) and
:mod:`fxrod.problems.soft_arm`: the flying-spaghetti rod (free: six rigid-body modes at zero), the
ex. 6.2 cantilever straight and deflected by a static tip force, and the soft arm bent by
constant chamber forces. Equilibria are reached by quasi-static load steps.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from mpi4py import MPI

from fxrod.analysis.modes import DIRECTIONS, Modes, modes
from fxrod.analysis.phmodel import Input, linear_ph, modal_ph
from fxrod.analysis.phmodel_io import save_ph
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError, check_int_min
from fxrod.output.tables import CSVWriter
from fxrod.problems.soft_arm import SOFT_ARM, chamber_forces
from fxrod.runs.integrators import Integrator

#: Columns of ``<case>_modes.csv`` (docs/output.md).
COLUMNS = (["mode", "omega", "frequency", "modal_mass"]
           + [f"participation_{d}" for d in DIRECTIONS]
           + [f"effective_mass_{d}" for d in DIRECTIONS])
#: Their units (``<case>_modes_columns.json``): the modal mass and the rotational
#: participation are those of a shape scaled to a largest nodal displacement of 1 m.
UNITS = {"mode": "-", "omega": "rad/s", "frequency": "Hz", "modal_mass": "kg",
         **{f"participation_{d}": "rad/m" if d.startswith("r") else "-" for d in DIRECTIONS},
         **{f"effective_mass_{d}": "kg m^2" if d.startswith("r") else "kg" for d in DIRECTIONS}}
#: Their meanings.
MEANINGS = {
    "mode": "mode number, ascending frequency (rigid-body modes first)",
    "omega": "circular frequency", "frequency": "omega / 2 pi",
    "modal_mass": "generalised mass of the shape scaled to 1 m (kg m^2 for a shape "
                  "without displacement, scaled to 1 rad)",
    **{f"participation_{d}": (f"participation factor of the unit rotation about {d[-1]} "
                              f"(- for a rotation-scaled shape)" if d.startswith("r") else
                              f"participation factor of the unit translation along {d}")
       for d in DIRECTIONS},
    **{f"effective_mass_{d}": (f"effective rotary inertia about the {d[-1]} axis through "
                               f"the origin" if d.startswith("r") else
                               f"effective modal mass along {d}") for d in DIRECTIONS}}


def _static(model: RodModel, steps: int) -> RodModel:
    """Load the quasi-static ``model`` from t = 0 to 1 in ``steps`` steps."""
    integ = Integrator(model, 1.0 / steps)
    for _ in range(steps):
        integ.step()
    return model


def _spaghetti(comm, n_elements):
    from fxrod.studies.cases import demo

    return demo("flying_spaghetti").problem(n_elements=n_elements, comm=comm).model


def _cantilever(comm, n_elements):
    from fxrod.studies.cases import demo

    return demo("cantilever_vibration").problem(n_elements=n_elements, comm=comm).model


def _cantilever_deflected(comm, n_elements):
    """Ex. 6.2 rod under a static tip force ``3 EI / L^2 * 0.2`` along -e3 (linear tip
    deflection 0.2 L)."""
    from fxrod.studies.cases import demo

    rod = demo("cantilever_vibration").problem(n_elements=n_elements, comm=comm).model.rod
    F = 0.2 * 3.0 * rod.section.k_b1 / rod.length**2
    load = EndLoad("L", force=lambda t: t * np.array([0.0, 0.0, -F]))
    return _static(RodModel(rod, [load], [Clamp("0")], comm=comm, quasistatic=True), 4)


def _soft_arm(comm, n_elements):
    """Soft arm bent by the circle input's chamber forces at t = 1 s (full amplitude)."""
    from fxrod.studies.cases import demo

    arm = demo("soft_arm")
    tau = chamber_forces("circle", 1.0)
    act = arm.chambers([lambda t, f=f: t * f for f in tau])
    rod = arm.arm(SOFT_ARM, n_elements)
    return _static(RodModel(rod, [], [Clamp("0")], [act], comm=comm, quasistatic=True), 4)


#: name -> (builder(comm, n_elements), default n_elements, description)
CASES: dict[str, tuple[Callable, int, str]] = {
    "flying-spaghetti": (_spaghetti, 10, "Ex. 6.1 free rod in its reference"),
    "cantilever-vibration": (_cantilever, 8, "Ex. 6.2 Kirchhoff cantilever, straight"),
    "cantilever-deflected": (_cantilever_deflected, 8,
                             "Ex. 6.2 cantilever under a static tip force (0.2 L)"),
    "soft-arm": (_soft_arm, 10, "Ex. 6.4 soft arm bent by its chambers (circle, t = 1 s)"),
}


def build(name: str, comm=None, n_elements: int | None = None) -> RodModel:
    """The model of case ``name`` (one of :data:`CASES`) at its equilibrium."""
    if name not in CASES:
        raise ParameterError("case", name, f"one of {', '.join(CASES)}")
    make, ne, _ = CASES[name]
    return make(MPI.COMM_WORLD if comm is None else comm, ne if n_elements is None else n_elements)


def gathered(model: RodModel, nodal: np.ndarray) -> np.ndarray | None:
    """A local nodal array ``(n_local_nodes, k)`` gathered to rank 0 and sorted by the mesh
    coordinate (duplicates of ghost nodes removed); None on other ranks."""
    x = model.space.Q.tabulate_dof_coordinates()[:, 0]
    xs, vs = model.comm.gather(x, root=0), model.comm.gather(nodal, root=0)
    if model.comm.rank != 0:
        return None
    x, v = np.concatenate(xs), np.concatenate(vs)
    _, idx = np.unique(np.round(x, 12), return_index=True)
    return v[idx]


def write_table(m: Modes, path: Path, comm) -> Path:
    """``<case>_modes.csv``: one row per mode (:data:`COLUMNS`)."""
    with CSVWriter(path, COLUMNS, comm, units=UNITS, meanings=MEANINGS) as w:
        for i in range(m.omega.size):
            row = {"mode": i + 1, "omega": float(m.omega[i]), "frequency": float(m.frequency[i]),
                   "modal_mass": float(m.modal_mass[i])}
            for j, d in enumerate(DIRECTIONS):
                row[f"participation_{d}"] = float(m.participation[i, j])
                row[f"effective_mass_{d}"] = float(m.effective_mass[i, j])
            w.write(row)
    return path


def mode_frames(model: RodModel, m: Modes, amplitude: float) -> list[np.ndarray] | None:
    """Centrelines ``phi* + a dphi_i`` [m] (rank 0), each shape scaled so that its largest
    displacement is ``amplitude`` times the rod length."""
    base = gathered(model, model.q_nodal_local()[:, 0:3])
    shapes = [gathered(model, s[:, 0:3]) for s in m.shapes]
    if base is None:
        return None
    out = []
    for s in shapes:
        peak = np.max(np.linalg.norm(s, axis=1))
        out.append(s * (amplitude * model.structure.length / peak) if peak > 0 else s)
    return [base, *[base + s for s in out]]


def write_modes(name: str, out: Path, n_modes: int = 6, n_elements: int | None = None,
                pictures: bool = True, comm=None) -> list[Path]:
    """Build case ``name``, compute ``n_modes`` modes and write the CSV (and pictures);
    returns the written files."""
    from fxrod import viz

    n_modes = check_int_min("n_modes", n_modes, 1)
    if n_elements is not None:
        check_int_min("n_elements", n_elements, 1)
    comm = MPI.COMM_WORLD if comm is None else comm
    model = build(name, comm, n_elements)
    m = modes(model, n_modes)
    stem = name.replace("-", "_")
    files = [write_table(m, out / f"{stem}_modes.csv", comm)]
    if not pictures:
        return files
    frames = mode_frames(model, m, 0.1)
    if comm.rank == 0:
        base, shapes = frames[0], frames[1:]
        k = min(4, len(shapes))
        files.append(viz.snapshot_figure(
            [base, *shapes[:k]], list(range(k + 1)), out / f"{stem}_modes.png",
            time_label="mode (0: equilibrium)",
            title=", ".join(f"{i + 1}: {f:.4g} Hz" for i, f in enumerate(m.frequency[:k]))))
        phase = np.sin(np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False))
        for i, s in enumerate(shapes):
            files.append(viz.animation([base + p * (s - base) for p in phase], phase,
                                       out / f"{stem}_mode{i + 1}.gif", time_unit="-"))
    return files


def tip_inputs(model: RodModel) -> list[Input]:
    """Forces ``F_x, F_y, F_z`` [N] and moments ``M_x, M_y, M_z`` [N m] at the end ``L``
    of the last rod (collocated outputs: its velocity [m/s] and angular velocity
    [rad/s])."""
    rod = len(model.structure.rods) - 1
    return [Input(f"{k}_{c}", kind, "L", tuple(np.eye(3)[i]), rod)
            for k, kind in (("F", "force"), ("M", "moment")) for i, c in enumerate("xyz")]


def write_ph(name: str, out: Path, n_elements: int | None = None, n_modes: int = 0,
             damping: float = 0.0, comm=None) -> list[Path]:
    """Build case ``name`` at its equilibrium and write its linear port-Hamiltonian model
    with the tip inputs (:func:`tip_inputs`) as ``<case>_ph.npz/.mat/.json``, and with
    ``n_modes > 0`` the modal truncation as ``<case>_ph_modal.*``; returns the files."""
    if n_elements is not None:
        check_int_min("n_elements", n_elements, 1)
    comm = MPI.COMM_WORLD if comm is None else comm
    model = build(name, comm, n_elements)
    stem = out / f"{name.replace('-', '_')}_ph"
    inputs = tip_inputs(model)
    files = save_ph(linear_ph(model, inputs, damping), stem, comm)
    if n_modes:
        files += save_ph(modal_ph(model, inputs, check_int_min("n_modes", n_modes, 1),
                                  damping), stem.with_name(stem.name + "_modal"), comm)
    return files
