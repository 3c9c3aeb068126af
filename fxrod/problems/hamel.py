"""The Hamel free beam's read-outs (``demos/hamel_free_beam.py``): what identifies a run in a
checkpoint (the lattice, its section, ends, step and settings, a digest of its initial
state), and its snapshots as a ParaView series with the director triads."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from fxrod.output.paraview import PVDWriter
from fxrod.runs.checkpoint import companion_fingerprint, describe


def fingerprint(beam) -> dict[str, str]:
    """What identifies the run of ``beam`` (:class:`fxrod.hamel.HamelBeam`, at its initial
    state) in a checkpoint."""
    initial = np.concatenate([beam.configuration.ravel(), beam.velocity.x.array])
    digest = hashlib.sha256(np.round(initial, 12).tobytes()).hexdigest()[:16]
    return companion_fingerprint({
        "mesh": f"{beam.n_elements} elements",
        "geometry": f"straight L = {beam.length!r} m along E2, {beam.weights_kind} weights, "
                    f"strain update {beam.strain_update}; initial state digest {digest}",
        "section": describe(beam.section, beam.length),
        "supports": f"ends {beam.ends[0]}, {beam.ends[1]}",
        "kind": "Hamel field variational integrator",
        "step": f"h = {beam.h!r}",
        "settings": describe(beam.settings, beam.length),
    })


def write_frames(out: Path, name: str, frames) -> Path:
    """``out/<name>.pvd``: the snapshots ``frames`` (:class:`fxrod.hamel.Frames`) with the
    directors ``d1..d3`` as point data; returns the path."""
    pvd = PVDWriter(out, name)
    for t, x, R in zip(frames.t, frames.positions, frames.rotations, strict=True):
        pvd.write(t, x, point_data={f"d{k + 1}": R[:, :, k] for k in range(3)})
    return pvd.path
