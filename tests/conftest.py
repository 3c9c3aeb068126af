"""Shared test helpers: imports fxrod first (dolfinx_solver before dolfinx/petsc4py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fxrod  # noqa: F401
from fxrod.data import reference_path

ROOT = Path(__file__).resolve().parents[1]


def mpirun_cmd() -> list[str]:
    """The mpirun of the venv (mpich wheel), falling back to PATH."""
    cand = Path(sys.executable).parent / "mpirun"
    exe = str(cand) if cand.exists() else shutil.which("mpirun")
    if exe is None:
        pytest.skip("mpirun not available")
    return [exe, "-n", "2"]


def run_mpi(args: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``python args`` under ``mpirun -n 2`` and fail loudly on a non-zero exit."""
    env = dict(os.environ)
    env.setdefault("UCX_TLS", "self,sm,tcp")
    p = subprocess.run(mpirun_cmd() + [sys.executable, *args], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=ROOT)
    assert p.returncode == 0, f"mpirun failed:\n{p.stdout}\n{p.stderr}"
    return p


@pytest.fixture(scope="session")
def ref_dir() -> Path:
    """The reference data shipped in fxrod/data (provenance: fxrod/data/PROVENANCE.md)."""
    return reference_path("PROVENANCE.md").parent


def assert_picture(path, min_size=(200, 150), min_colours: int = 20) -> tuple[int, int]:
    """A valid PNG of at least ``min_size`` pixels that is not blank (``min_colours``
    distinct colours); returns its size."""
    import numpy as np
    from PIL import Image

    with Image.open(path) as im:
        assert im.format == "PNG", path
        w, h = im.size
        assert w >= min_size[0] and h >= min_size[1], (path, im.size)
        a = np.asarray(im.convert("RGB"))
    assert len(np.unique(a.reshape(-1, 3), axis=0)) > min_colours, path
    return w, h
