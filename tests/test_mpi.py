"""Demos under mpirun -n 2 write the serial CSV to 1e-10."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.io import read_csv
from tests.conftest import run_mpi

CASES = [
    ("flying_spaghetti", ["--quick", "--no-pictures", "--quiet"], ["flying_spaghetti.csv"]),
    ("cantilever_vibration", ["--quick", "--no-pictures", "--quiet"],
     ["cantilever_vibration.csv"]),
    ("quasistatic_cantilever", ["--quick", "--quiet"],
     ["quasistatic_cantilever_constrained.csv", "quasistatic_cantilever_unconstrained.csv"]),
    ("soft_arm", ["--quick", "--no-pictures", "--quiet"], ["soft_arm_circle.csv"]),
    ("tendon_hook", ["--quick", "--no-pictures", "--quiet"], ["tendon_hook.csv"]),
    ("ancf_graded_cantilever", ["--quick"],
     ["ancf_graded_cantilever.csv", "ancf_graded_cantilever_release.csv"]),
    ("hamel_free_beam", ["--quick"], ["hamel_free_beam.csv"]),
]


@pytest.mark.mpi
@pytest.mark.parametrize("demo,args,files", CASES, ids=[c[0] for c in CASES])
def test_mpi_equals_serial(tmp_path, demo, args, files):
    import importlib

    mod = importlib.import_module(f"demos.{demo}")
    mod.main(args + ["--out", str(tmp_path / "serial")])
    run_mpi([f"demos/{demo}.py", *args, "--out", str(tmp_path / "mpi")])
    for f in files:
        a = read_csv(tmp_path / "serial" / f)
        b = read_csv(tmp_path / "mpi" / f)
        assert a.keys() == b.keys()
        first = next(iter(a))  # "t", or the load/mesh column of a static table
        assert len(a[first]) == len(b[first]) > 1
        for k in a:
            if k == "newton_its":
                continue
            scale = max(1.0, float(np.nanmax(np.abs(a[k]))))
            assert np.nanmax(np.abs(a[k] - b[k])) <= 1e-10 * scale, (f, k)
