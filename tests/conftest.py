"""Shared test helpers: imports fxrod first (dolfinx_solver before dolfinx/petsc4py)."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import fxrod  # noqa: F401
from fxrod.data import reference_path

ROOT = Path(__file__).resolve().parents[1]

# PETSc's initialisation installs its own handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGPIPE,
# SIGTERM and others, which prints to the captured stderr and leaves with _Exit(15)
# (MPI_ERR_OTHER): a crash in the session then ends it without a word. Initialise PETSc here,
# before pytest's faulthandler is enabled, and take its handler off, so that a fatal signal
# gives faulthandler's traceback and a broken pipe Python's BrokenPipeError.
from petsc4py import PETSc  # noqa: E402

PETSc.Sys.popSignalHandler()
signal.signal(signal.SIGPIPE, signal.SIG_IGN)


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``exactness`` marker (pyproject.toml registers the others)."""
    config.addinivalue_line(
        "markers", "exactness: conservation and exactness to round-off or to the Newton "
        "tolerance (tests/roundoff.py); CI runs them again with FXROD_LINEAR_SOLVER=mumps")


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


def assert_units_files(directory, at_least: int = 1) -> list[Path]:
    """Every CSV under ``directory`` (recursively) has its units file ``X_columns.json``
    beside it (:func:`fxrod.output.tables.write_columns_json`) naming exactly the CSV
    header's columns, in order, each with a non-empty unit string (``"-"``: dimensionless)
    and a meaning; at least ``at_least`` CSVs. Returns the CSVs checked."""
    import csv
    import json

    from fxrod.output.tables import columns_json_path

    found = sorted(Path(directory).rglob("*.csv"))
    assert len(found) >= at_least, (directory, found)
    for path in found:
        side = columns_json_path(path)
        assert side.is_file(), f"{path.name}: no units file {side.name}"
        with open(path, newline="") as fh:
            header = next(csv.reader(fh))
        doc = json.loads(side.read_text())
        assert list(doc["units"]) == header, (path.name, list(doc["units"]), header)
        bad = [c for c, u in doc["units"].items() if not (isinstance(u, str) and u.strip())]
        assert not bad, f"{path.name}: columns without a unit {bad}"
        assert set(doc.get("meanings", {})) == set(header), path.name
    return found


def newton_iterates(make, h: float, steps: int, **settings):
    """Every Newton iterate (SNES monitor) of ``steps`` steps of the model ``make()`` with
    step ``h`` and :class:`fxrod.solvers.settings.SolverSettings` ``settings``: ``(iterates stacked,
    integrator)``."""
    import numpy as np

    from fxrod.runs.integrators import Integrator
    from fxrod.solvers.settings import SolverSettings

    integ = Integrator(make(), h, SolverSettings(**settings))
    seen: list = []
    integ.newton.snes.setMonitor(
        lambda snes, k, fnorm: seen.append(snes.getSolution().getArray(readonly=True).copy()))
    for _ in range(steps):
        integ.step()
    integ.newton.snes.cancelMonitor()
    return np.array(seen), integ


def l_frame_with_body(section):
    """A quasi-static L-frame (a column and a welded beam, 4 elements each) of ``section``
    with a rigid body (0.5 kg, offset centre of mass) at the beam's tip, clamped at the
    base."""
    import numpy as np

    from fxrod.core.forms.bodies import RigidBody
    from fxrod.core.joints import Rigid
    from fxrod.core.model import RodModel
    from fxrod.core.rod import Rod
    from fxrod.core.structure import Structure
    from fxrod.core.supports import Clamp

    column = Rod(section, start=(0, 0, 0), end=(0, 0, 1), d1=(1, 0, 0), n_elements=4)
    beam = Rod(section, start=(0, 0, 1), end=(0.8, 0, 1), d1=(0, 1, 0), n_elements=4)
    body = RigidBody((1, "L"), mass=0.5, inertia=np.diag([2e-3, 1e-3, 2.5e-3]),
                     centre=(0.85, 0.02, 0.97))
    return RodModel(Structure([column, beam], [Rigid((0, "L"), (1, "0"))]), [],
                    [Clamp("0")], [body], quasistatic=True)


@pytest.fixture(autouse=True, scope="module")
def _collect_the_modules_models():
    """Collect a test module's garbage after it: models in reference cycles keep their
    DOLFINx meshes, each holding MPI communicators, and MPICH has 2048 per process (the
    whole default tier in one process ran out of them: "Too many communicators")."""
    yield
    gc.collect()

