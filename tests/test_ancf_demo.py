"""The ancf-graded-cantilever case: CSV content, figures, serial (registry) and the demo script
under mpirun -n 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fxrod.output.tables import read_csv
from fxrod.studies.cases import CASES
from tests.conftest import assert_picture, assert_units_files

DEMO = Path(__file__).resolve().parents[1] / "demos" / "ancf_graded_cantilever.py"
FIGURES = ["ancf_graded_cantilever.png", "ancf_graded_cantilever_tip.png",
           "ancf_graded_cantilever_shapes.png", "ancf_graded_cantilever_curvature.png",
           "ancf_graded_cantilever_energy.png"]
#: linear-theory values (tests/test_ancf_graded.py), rows in the demo's case order
LIN_TIP = [1.3950815e-3, 1.4884274e-3, 1.4249831e-3, 1.6085373e-3, 1.4600247e-3]
LIN_OMEGA = [104.241456, 101.036909, 103.232293, 97.360409, 102.105258]


def _check_outputs(out: Path) -> None:
    data = read_csv(out / "ancf_graded_cantilever.csv")
    for col in ("lam", "n", "tip_deflection", "omega_1"):
        assert col in data
    np.testing.assert_array_equal(data["lam"], [0.0, 0.3, 0.3, 0.6, 0.6])
    np.testing.assert_array_equal(data["n"], [1.0, 1.0, 2.0, 1.0, 2.0])
    np.testing.assert_allclose(data["tip_deflection"], LIN_TIP, rtol=3e-6)
    np.testing.assert_allclose(data["omega_1"], LIN_OMEGA, rtol=1e-6)
    assert np.all(data["energy_error"] < 1e-6)
    series = read_csv(out / "ancf_graded_cantilever_release.csv")
    assert set(np.unique(series["lam"])) == {0.0, 0.3, 0.6}
    assert np.all(np.isfinite(series["tip_2"])) and series["tip_2"].min() < -1e-3
    assert_units_files(out, at_least=2)
    for name in FIGURES:
        assert_picture(out / name)


def test_case_serial_in_process(tmp_path: Path) -> None:
    assert CASES["ancf-graded-cantilever"].run(tmp_path / "out", quick=True, t_end=0.02).ok
    _check_outputs(tmp_path / "out")


@pytest.mark.mpi
def test_demo_quick_mpirun_two_ranks(tmp_path: Path) -> None:
    mpirun = shutil.which("mpirun", path=str(Path(sys.executable).parent)) or shutil.which(
        "mpirun")
    if mpirun is None:
        pytest.skip("mpirun not found")
    out = tmp_path / "mpi"
    env = dict(os.environ, PYVISTA_OFF_SCREEN="true")
    proc = subprocess.run([mpirun, "-n", "2", sys.executable, str(DEMO), "--quick", "--out",
                           str(out)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _check_outputs(out)
    assert proc.stdout.count("wrote ") == 1  # only rank 0 reports and writes
