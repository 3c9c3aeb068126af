"""Files of a linear port-Hamiltonian model (:mod:`fxrod.analysis.phmodel`): ``<stem>.npz``
(scipy.sparse CSR arrays), ``<stem>.mat`` (MATLAB sparse matrices, ``scipy.io.savemat``) and
``<stem>.json`` (state blocks, inputs and outputs with their order and SI units).

In ``<stem>.npz`` every matrix ``X`` of ``E, J, R, Q, B`` is stored as the CSR arrays
``X_data, X_indices, X_indptr, X_shape`` (:func:`load_ph` rebuilds them), with
``q_coordinate``, ``q_component``, ``omega`` and ``shapes``. In ``<stem>.mat`` the same
names hold the sparse matrices and arrays directly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp
from mpi4py import MPI

from fxrod.analysis.phmodel import BLOCK_UNITS, Q_COMPONENTS, Input, PHModel
from fxrod.errors import ParameterError

MATRICES = ("E", "J", "R", "Q", "B")
ARRAYS = ("q_coordinate", "q_component", "omega", "shapes")


def describe(ph: PHModel) -> dict:
    """The JSON description: equations, state blocks (order, size, units), inputs and
    outputs (order, units)."""
    return {
        "format": "fxrod linear port-Hamiltonian model 1",
        "equations": "E dx/dt = (J - R) Q x + B u;  y = B^T Q x;  H = 1/2 x^T Q^T E x [J]",
        "n_states": ph.n_states,
        "state_blocks": [{"name": n, "start": s, "size": z, "unit": BLOCK_UNITS[n]}
                         for n, (s, z) in ph.blocks.items()],
        "q_states": "q_coordinate [m] (mesh coordinate of the node) and q_component "
                    f"(index into {list(Q_COMPONENTS)}) in the .npz/.mat arrays",
        "inputs": [{"index": i, "name": p.name, "kind": p.kind, "rod": p.rod,
                    "end": p.end, "direction": list(p.direction), "unit": p.units[0]}
                   for i, p in enumerate(ph.inputs)],
        "outputs": [{"index": i, "name": p.name,
                     "quantity": ("velocity along the force" if p.kind == "force"
                                  else "angular velocity about the moment"),
                     "unit": p.units[1]} for i, p in enumerate(ph.inputs)],
        "omega": [float(w) for w in ph.omega],
        "omega_unit": "rad/s",
    }


def save_ph(ph: PHModel, stem, comm=None) -> list[Path]:
    """Write ``<stem>.npz``, ``<stem>.mat`` and ``<stem>.json`` (rank 0); return the
    paths."""
    comm = MPI.COMM_WORLD if comm is None else comm
    stem = Path(stem)
    paths = [stem.with_suffix(s) for s in (".npz", ".mat", ".json")]
    if comm.rank == 0:
        stem.parent.mkdir(parents=True, exist_ok=True)
        arrays = {}
        for name in MATRICES:
            m = getattr(ph, name).tocsr()
            arrays.update({f"{name}_data": m.data, f"{name}_indices": m.indices,
                           f"{name}_indptr": m.indptr, f"{name}_shape": np.array(m.shape)})
        extra = {name: np.asarray(getattr(ph, name)) for name in ARRAYS}
        np.savez(paths[0], **arrays, **extra)
        scipy.io.savemat(paths[1], {**{n: getattr(ph, n).tocsc() for n in MATRICES},
                                    **extra}, do_compression=True)
        paths[2].write_text(json.dumps(describe(ph), indent=1))
    comm.barrier()
    return paths


def load_ph(stem) -> PHModel:
    """Read the model written by :func:`save_ph` (from ``<stem>.npz`` and
    ``<stem>.json``)."""
    stem = Path(stem)
    try:
        d = json.loads(stem.with_suffix(".json").read_text())
        z = np.load(stem.with_suffix(".npz"))
    except (OSError, ValueError) as e:
        raise ParameterError("stem", str(stem), f"a saved fxrod PH model ({e})") from None
    mats = {n: sp.csr_matrix((z[f"{n}_data"], z[f"{n}_indices"], z[f"{n}_indptr"]),
                             shape=tuple(z[f"{n}_shape"])) for n in MATRICES}
    inputs = [Input(p["name"], p["kind"], p["end"], tuple(p["direction"]), p["rod"])
              for p in d["inputs"]]
    blocks = {b["name"]: (b["start"], b["size"]) for b in d["state_blocks"]}
    return PHModel(**mats, blocks=blocks, inputs=inputs,
                   **{n: z[n] for n in ARRAYS})
