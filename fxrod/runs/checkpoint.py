"""Checkpoints of the full discrete state of a run, restartable under any MPI size.

Every degree of freedom of the mixed unknown (q, sigma, lambda and extension fields) and of
the velocity is stored with a key that does not depend on the partition: its sub-space,
its coordinate s and, for discontinuous fields, the midpoint of its cell. Rank 0 writes one
``.npz`` file (atomically: temporary file, then rename; no temporary file stays behind when
writing fails) with the stepper's scalars (t, h, step count, adaptive-stepping state,
running sums of the run). Loading matches keys on every rank, so a checkpoint written with
2 ranks restarts with 1 and vice versa.

The companion formulations (:mod:`fxrod.ancf`, :mod:`fxrod.hamel`), whose state is a few
numpy arrays that every rank of their communicator holds alike, are saved by
:func:`save_arrays` and restored by :func:`load_arrays`: the same file format (without the
keyed fields), the same atomic write, fingerprint and one-line errors.

The last two checkpoints are kept (``NAME_checkpoint.npz`` and the one before it,
``NAME_checkpoint.prev.npz``). Each carries the :func:`fingerprint` of its problem; a
restart of another problem, and a missing, truncated or corrupt file, raise
:class:`fxrod.errors.CheckpointError` with one line naming the file and what is wrong.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path

import numpy as np

from fxrod.errors import CheckpointError, OutputError, plain

CHECKPOINT_NAME = "checkpoint.npz"
#: Suffix of the checkpoint kept from the save before the last one.
PREVIOUS_SUFFIX = ".prev.npz"
#: Arrays every checkpoint of a :class:`fxrod.core.model.RodModel` holds (besides ``scalars``).
REQUIRED = ("w_keys", "w_vals", "v_keys", "v_vals")


def previous_path(path: str | os.PathLike) -> Path:
    """Where the checkpoint before ``path`` is kept (``x.npz`` -> ``x.prev.npz``)."""
    p = Path(path)
    return p.with_name(p.name.removesuffix(".npz") + PREVIOUS_SUFFIX)


def _plain_item(value) -> bool:
    """Whether an attribute enters :func:`describe`: a number, text, flag, callable, or a
    short (<= 64 entries) array of numbers or texts."""
    if callable(value) or isinstance(value, bool | int | float | str | np.number | np.bool_):
        return True
    if not isinstance(value, tuple | list | np.ndarray):
        return False
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):                    # ragged or of objects
        return False
    return a.dtype.kind in "biufU" and a.size <= 64


def describe(obj, length: float) -> str:
    """A stable text of a section, support, load or extension: its class, its numeric
    fields (a dataclass's fields; otherwise its public attributes that are numbers, texts,
    flags, short numeric arrays or callables, e.g. an extension's coefficients), callables
    sampled at 5 points of [0, length] (sections) or named."""
    parts = [type(obj).__name__]
    if dataclasses.is_dataclass(obj):
        items = [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj)]
    else:
        items = [(k, v) for k, v in sorted(getattr(obj, "__dict__", {}).items())
                 if not k.startswith("_") and k != "name" and _plain_item(v)]
    for key, v in items:
        if callable(v):
            try:
                v = np.round(np.asarray(v(np.linspace(0.0, length, 5)), dtype=float), 12)
            except Exception:  # noqa: BLE001  (not a function of s: name it only)
                v = "callable"
        parts.append(f"{key}={plain(v)!r}")
    name = getattr(obj, "name", None)
    if isinstance(name, str):
        parts.append(f"name={name}")
    return " ".join(parts)


def _geometry_digest(model) -> str:
    """Digest of the reference configuration (nodal positions and directors), independent
    of the partition (collective)."""
    keys, idx = _dof_keys(model.space.Q, None, 99)
    k, v = _gather(model.comm, keys, model.q_ref.x.array[idx])
    digest = None
    if model.comm.rank == 0:
        order = np.lexsort(np.round(k, 9).T[::-1])
        digest = hashlib.sha256(np.round(v[order], 9).tobytes()).hexdigest()[:16]
    return model.comm.bcast(digest, root=0)


def fingerprint(integrator) -> dict[str, str]:
    """What identifies the problem of a run (collective): geometry, section, mesh, supports,
    constraints, extensions, loads by name, the step and its settings, the fxrod version.

    Returns
    -------
    dict of str to str
        One readable text per item, compared item by item on restart.
    """
    import fxrod

    model = integrator.model
    rods = getattr(model.rod, "rods", None) or [model.rod]   # a Structure: every rod
    L = max(float(r.length) for r in rods)
    return {
        "mesh": ", ".join(f"{r.n_elements} elements" for r in rods),
        "geometry": ", ".join(f"{type(r.curve).__name__} L = {float(r.length)!r} m"
                              for r in rods)
                    + f"; reference digest {_geometry_digest(model)}",
        "section": "; ".join(describe(r.section, float(r.length)) for r in rods),
        "constraints": repr([sorted(r.constraints or ()) for r in rods]),
        "supports": "; ".join(describe(s, L) for s in model.supports) or "none",
        "extensions": "; ".join(describe(e, L) for e in model.extensions) or "none",
        "loads": ", ".join(type(ld).__name__ for ld in model.loads) or "none",
        "kind": ("quasi-static" if model.quasistatic else "dynamic")
                + f", evaluation {model.evaluation}",
        "step": f"h = {integrator.h_nominal!r}",
        "settings": describe(integrator.settings, L),
        "version": f"fxrod {fxrod.__version__}",
    }


def compare(stored: dict, current: dict, path) -> None:
    """Raise :class:`CheckpointError` naming the first items where the problem of the
    checkpoint (``stored``) and the current one differ."""
    differ = [k for k in current if stored.get(k) != current[k]]
    if not differ:
        return
    k = differ[0]
    if k == "mesh":     # the reference digest is over the nodes of the mesh
        differ = [d for d in differ if d != "geometry"]
    more = f" (and {', '.join(differ[1:])})" if len(differ) > 1 else ""
    old, new = str(stored.get(k, "not recorded")), current[k]
    if len(old) + len(new) > 160:
        old, new = old[:77] + "...", new[:77] + "..."
    raise CheckpointError(path, f"written by another problem: {k} differs{more} "
                          f"(checkpoint: {old}; this run: {new})")


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


def save(path, model, scalars: dict, arrays: dict | None = None) -> Path | None:
    """Write the state of ``model``, the JSON-serialisable ``scalars`` and the rank-0
    ``arrays`` (e.g. the kept centrelines) to ``path`` (collective).

    The checkpoint that was at ``path`` is kept as :func:`previous_path`.

    Raises
    ------
    fxrod.errors.OutputError
        On every rank, if rank 0 cannot write the file (nothing temporary is left; the
        previous checkpoints stay as they were).
    """
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
    err, p = None, Path(path)
    if comm.rank == 0:
        payload = dict(w_keys=wk, w_vals=wv, v_keys=vk, v_vals=vv,
                       scalars=np.array(json.dumps(plain(scalars))))
        for name, (k, v) in extra.items():
            payload[f"{name}_keys"], payload[f"{name}_vals"] = k, v
        payload.update({f"array_{k}": np.asarray(v) for k, v in (arrays or {}).items()})
        err = _write_atomic(p, payload)
    err = comm.bcast(err, root=0)
    if err is not None:
        raise OutputError(p, err)
    return p if comm.rank == 0 else None


def _write_atomic(p: Path, payload: dict) -> str | None:
    """Write ``payload`` to a temporary file, move ``p`` to :func:`previous_path` and the
    temporary file to ``p``; the error text (no temporary file left) or None."""
    tmp = p.with_name(p.name + ".tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, **payload)
            fh.flush()
            os.fsync(fh.fileno())
        if p.exists():
            p.replace(previous_path(p))
        tmp.replace(p)
    except OSError as e:
        try:  # on a read-only file system unlink fails too (EROFS), with nothing to remove
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return e.strerror or str(e)
    return None


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
        raise ValueError(f"the checkpoint does not match this model ({what}: "
                         f"{int((~ok).sum())} dofs without a stored value)")
    target[idx_local] = vals_file[order][pos]


def _read(p: Path) -> dict | str:
    """The arrays of checkpoint ``p`` and its parsed scalars, or why it cannot be read."""
    if not p.is_file():
        if not p.parent.is_dir() or p.suffix != ".npz":
            return "no such file or directory"
        found = sorted(x.name for x in p.parent.glob(f"*_{CHECKPOINT_NAME}"))
        return (f"no checkpoint {p.name} in {p.parent} (checkpoints there: "
                f"{', '.join(found) or 'none'})")
    try:
        with np.load(p, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
        if "scalars" not in data:
            return "not an fxrod checkpoint (no scalars)"
        data["scalars"] = json.loads(str(data["scalars"]))
    except Exception as e:  # noqa: BLE001  (zip, npy, JSON and OS errors alike)
        prev = previous_path(p)
        hint = f"; the previous checkpoint {prev} may be used instead" if prev.is_file() \
            else ""
        reason = str(e).splitlines()[0][:100] if str(e) else type(e).__name__
        return f"truncated or corrupt checkpoint ({type(e).__name__}: {reason}){hint}"
    return data


def load(path, model, fingerprint: dict | None = None) -> dict:
    """Restore the state of ``model`` from ``path`` (collective); return the stored scalars
    (with the rank-0 arrays of :func:`save` under ``"arrays"``).

    Parameters
    ----------
    path : path-like
        The checkpoint file.
    model : RodModel
        The model to restore.
    fingerprint : dict, optional
        The :func:`fingerprint` of the run to continue; the checkpoint must carry the same.

    Raises
    ------
    fxrod.errors.CheckpointError
        If the file is missing, truncated, corrupt, of another problem or does not match the
        model's degrees of freedom (one line naming the file).
    """
    comm = model.comm
    p = Path(path)
    data = _read(p) if comm.rank == 0 else None
    data = comm.bcast(data, root=0)
    if isinstance(data, str):
        raise CheckpointError(p, data)
    scalars = data["scalars"]
    if fingerprint is not None:
        compare(scalars.get("fingerprint", {}), fingerprint, p)
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise CheckpointError(p, f"not a checkpoint of a rod model (no {', '.join(missing)})")
    try:
        _restore(data, model, scalars)
    except ValueError as e:
        raise CheckpointError(p, str(e)) from None
    scalars["arrays"] = {k.removeprefix("array_"): v for k, v in data.items()
                         if k.startswith("array_")}
    return scalars


def companion_fingerprint(items: dict[str, str]) -> dict[str, str]:
    """The fingerprint of a companion run (ANCF, Hamel): its own readable ``items`` (mesh,
    geometry, section, supports, kind, step, settings, ...) and the fxrod version."""
    import fxrod

    return {**items, "version": f"fxrod {fxrod.__version__}"}


def save_arrays(path, comm, scalars: dict, arrays: dict) -> Path | None:
    """Write a companion run's state (collective): the JSON-serialisable ``scalars`` (with
    its ``"fingerprint"``) and the ``arrays``, which every rank of ``comm`` holds alike; rank
    0 writes ``path`` atomically and keeps the checkpoint that was there as
    :func:`previous_path`.

    Raises
    ------
    fxrod.errors.OutputError
        On every rank, if rank 0 cannot write the file (nothing temporary is left; the
        previous checkpoints stay as they were).
    """
    err, p = None, Path(path)
    if comm.rank == 0:
        payload = {"scalars": np.array(json.dumps(plain(scalars)))}
        payload.update({f"array_{k}": np.asarray(v) for k, v in arrays.items()})
        err = _write_atomic(p, payload)
    err = comm.bcast(err, root=0) if comm.size > 1 else err
    if err is not None:
        raise OutputError(p, err)
    return p if comm.rank == 0 else None


def load_arrays(path, comm, fingerprint: dict) -> dict:
    """Read a checkpoint of :func:`save_arrays` (collective: rank 0 reads, every rank gets
    it); return its scalars with the arrays under ``"arrays"``.

    Raises
    ------
    fxrod.errors.CheckpointError
        If the file is missing, truncated, corrupt or of another problem (its fingerprint
        differs from ``fingerprint``); one line naming the file.
    """
    p = Path(path)
    data = _read(p) if comm.rank == 0 else None
    data = comm.bcast(data, root=0) if comm.size > 1 else data
    if isinstance(data, str):
        raise CheckpointError(p, data)
    scalars = data["scalars"]
    compare(scalars.get("fingerprint", {}), fingerprint, p)
    scalars["arrays"] = {k.removeprefix("array_"): v for k, v in data.items()
                         if k.startswith("array_")}
    return scalars


def _restore(data: dict, model, scalars: dict) -> None:
    """Set the model's state and the stepper's history arrays from the file's arrays."""
    keys = StateKeys(model)
    _assign(keys.w_keys, keys.w_idx, data["w_keys"], data["w_vals"], model.w0.x.array, "w")
    _assign(keys.v_keys, keys.v_idx, data["v_keys"], data["v_vals"], model.v0.x.array, "v")
    model.w0.x.scatter_forward()
    model.v0.x.scatter_forward()
    model.w.x.array[:] = model.w0.x.array
    for name, (k_loc, i_loc) in _history_keys(keys).items():
        if f"{name}_keys" in data:
            f = (model.w0 if name == "dw_prev" else model.v0).copy()
            f.x.array[:] = 0.0
            _assign(k_loc, i_loc, data[f"{name}_keys"], data[f"{name}_vals"], f.x.array, name)
            f.x.scatter_forward()
            scalars[name] = f.x.array.copy()


def _history_keys(keys: StateKeys) -> dict:
    """The stepper's history arrays (last step's increments, used by the predictor) and
    the keys/indices of the space each lives in."""
    return {"dw_prev": (keys.w_keys, keys.w_idx), "dv_prev": (keys.v_keys, keys.v_idx)}
