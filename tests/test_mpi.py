"""The demo scripts under mpirun -n 2 write the CSVs of the serial registry run to 1e-10."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.cases import CASES
from fxrod.io import read_csv
from tests.conftest import run_mpi

#: case -> the CSV files compared
FILES = {
    "flying-spaghetti": ["flying_spaghetti.csv"],
    "cantilever-vibration": ["cantilever_vibration.csv"],
    "quasistatic-cantilever": ["quasistatic_cantilever_constrained.csv",
                               "quasistatic_cantilever_unconstrained.csv"],
    "soft-arm": ["soft_arm_circle.csv"],
    "tendon-hook": ["tendon_hook.csv"],
    "ancf-graded-cantilever": ["ancf_graded_cantilever.csv",
                               "ancf_graded_cantilever_release.csv"],
    "hamel-free-beam": ["hamel_free_beam.csv"],
}


def test_every_case_is_checked():
    assert set(FILES) == set(CASES)


@pytest.mark.mpi
@pytest.mark.parametrize("name", list(FILES))
def test_mpi_equals_serial(tmp_path, name):
    case = CASES[name]
    case.run(tmp_path / "serial", quick=True, pictures=False)
    run_mpi([f"demos/{case.stem}.py", "--quick", "--no-pictures", "--quiet", "--out",
             str(tmp_path / "mpi")])
    for f in FILES[name]:
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
