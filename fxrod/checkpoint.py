"""Checkpoints of the full discrete state of a run, restartable under any MPI size.

Every degree of freedom of the mixed unknown (q, sigma, lambda and extension fields) and of
the velocity is stored with a key that does not depend on the partition: its sub-space,
its coordinate s and, for discontinuous fields, the midpoint of its cell. Rank 0 writes one
``.npz`` file (atomically: temporary file, then rename) with the stepper's scalars (t, h,
step count, adaptive-stepping state, running sums of the run). Loading matches keys on
every rank, so a checkpoint written with 2 ranks restarts with 1 and vice versa.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

CHECKPOINT_NAME = "checkpoint.npz"


def _dof_keys(V, parent_map: np.ndarray | None, sub: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys ``(sub, component, s, s_cell)`` of the local dofs of collapsed space V and
    their indices in the parent (or V) array. Only owned dofs are returned."""
    msh = V.mesh
    bs = V.dofmap.index_map_bs
    n_own = V.dofmap.index_map.size_local
    X = V.tabulate_dof_coordinates()[:, 0]
    discontinuous = V.ufl_element().discontinuous if hasattr(V.ufl_element(),
                                                             "discontinuous") else False
    s_cell = np.zeros(X.shape[0])
    if discontinuous:
        geo = msh.geometry.x[msh.geometry.dofmaps[0]][:, :, 0].mean(axis=1)
        dl = V.dofmap.list
        s_cell[dl.reshape(-1)] = np.repeat(geo[: dl.shape[0]], dl.shape[1])
    blocks = np.arange(n_own)
    comp = np.tile(np.arange(bs), n_own)
    blk = np.repeat(blocks, bs)
    keys = np.c_[np.full(blk.size, sub), comp, X[blk], s_cell[blk]]
    local = blk * bs + comp
    idx = local if parent_map is None else parent_map[local]
    return keys, idx


class StateKeys:
    """Partition-independent keys of a model's mixed unknown and velocity."""

    def __init__(self, model) -> None:
        W = model.space.W
        parts = []
        for i in range(W.num_sub_spaces):
            V, m = W.sub(i).collapse()
            parts.append(_dof_keys(V, np.asarray(m, dtype=np.int64).reshape(-1), i))
        self.w_keys = np.concatenate([k for k, _ in parts])
        self.w_idx = np.concatenate([j for _, j in parts])
        self.v_keys, self.v_idx = _dof_keys(model.space.Q, None, 99)


def _gather(comm, keys, vals):
    k = comm.gather(keys, root=0)
    v = comm.gather(vals, root=0)
    if comm.rank != 0:
        return None, None
    return np.concatenate(k), np.concatenate(v)


def save(path, model, scalars: dict) -> Path | None:
    """Write the state of ``model`` and the JSON-serialisable ``scalars`` to ``path``."""
    keys = StateKeys(model)
    comm = model.comm
    wk, wv = _gather(comm, keys.w_keys, model.w0.x.array[keys.w_idx])
    vk, vv = _gather(comm, keys.v_keys, model.v0.x.array[keys.v_idx])
    extra = {}
    for name, (k_loc, i_loc) in _history_keys(keys).items():
        arr = scalars.pop(name, None)
        if arr is not None:
            k, v = _gather(comm, k_loc, arr[i_loc])
            extra[name] = (k, v)
    if comm.rank != 0:
        return None
    p = Path(path)
    tmp = p.with_suffix(".tmp.npz")
    payload = dict(w_keys=wk, w_vals=wv, v_keys=vk, v_vals=vv,
                   scalars=np.array(json.dumps(scalars)))
    for name, (k, v) in extra.items():
        payload[f"{name}_keys"], payload[f"{name}_vals"] = k, v
    np.savez(tmp, **payload)
    tmp.replace(p)
    return p


def _assign(keys_local, idx_local, keys_file, vals_file, target: np.ndarray, what: str):
    """Set ``target[idx_local]`` from the file values with matching keys."""
    def key_tuple(k):
        return np.round(k, 12)

    kf = key_tuple(keys_file)
    order = np.lexsort(kf.T[::-1])
    kf_sorted = kf[order]
    kl = key_tuple(keys_local)
    # binary search row-wise through a structured view
    dt = np.dtype([("a", float), ("b", float), ("c", float), ("d", float)])
    sf = np.ascontiguousarray(kf_sorted).view(dt).reshape(-1)
    sl = np.ascontiguousarray(kl).view(dt).reshape(-1)
    pos = np.searchsorted(sf, sl)
    ok = (pos < sf.size)
    ok[ok] &= sf[pos[ok]] == sl[ok]
    if not np.all(ok):
        raise ValueError(f"checkpoint does not match this model ({what}: "
                         f"{int((~ok).sum())} dofs without a stored value)")
    target[idx_local] = vals_file[order][pos]


def load(path, model) -> dict:
    """Restore the state of ``model`` from ``path``; return the stored scalars."""
    comm = model.comm
    data = None
    if comm.rank == 0:
        p = Path(path)
        if not p.is_file():
            data = FileNotFoundError(f"restart: no checkpoint at {p}")
        else:
            with np.load(p) as z:
                data = {k: z[k] for k in z.files}
    data = comm.bcast(data, root=0)
    if isinstance(data, Exception):
        raise data
    keys = StateKeys(model)
    _assign(keys.w_keys, keys.w_idx, data["w_keys"], data["w_vals"], model.w0.x.array, "w")
    _assign(keys.v_keys, keys.v_idx, data["v_keys"], data["v_vals"], model.v0.x.array, "v")
    model.w0.x.scatter_forward()
    model.v0.x.scatter_forward()
    model.w.x.array[:] = model.w0.x.array
    scalars = json.loads(str(data["scalars"]))
    for name, (k_loc, i_loc) in _history_keys(keys).items():
        if f"{name}_keys" in data:
            f = (model.w0 if name == "dw_prev" else model.v0).copy()
            f.x.array[:] = 0.0
            _assign(k_loc, i_loc, data[f"{name}_keys"], data[f"{name}_vals"], f.x.array, name)
            f.x.scatter_forward()
            scalars[name] = f.x.array.copy()
    return scalars


def _history_keys(keys: StateKeys) -> dict:
    """The stepper's history arrays (last step's increments, used by the predictor) and
    the keys/indices of the space each lives in."""
    return {"dw_prev": (keys.w_keys, keys.w_idx), "dv_prev": (keys.v_keys, keys.v_idx)}
