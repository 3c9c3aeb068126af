"""The demo scripts under mpirun -n 2 write the CSVs of the serial registry run: every column
to 1e-10 of its largest value, plus an absolute round-off floor of 1e-13 times the largest
value among the columns of the same unit (the probes declare them), so that round-off columns
such as energy_residual, constraint_max or a zero momentum component are compared at
round-off instead of skipped. Support reactions are residual rows divided by the step h:
their floor adds the Newton tolerance over h, 2 atol / h with atol <= 1e-11 in every case."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.output.tables import read_csv
from fxrod.studies.cases import CASES
from tests.conftest import run_mpi

#: case -> the CSV files compared, where they are not just ``<stem>.csv``
FILES = {
    "quasistatic-cantilever": ["quasistatic_cantilever_constrained.csv",
                               "quasistatic_cantilever_unconstrained.csv"],
    "soft-arm": ["soft_arm_circle.csv"],
    "tendon-hook": ["tendon_hook.csv"],
    "ancf-graded-cantilever": ["ancf_graded_cantilever.csv",
                               "ancf_graded_cantilever_release.csv"],
    "hamel-free-beam": ["hamel_free_beam.csv"],
    "bend45": ["bend45.csv", "bend45_steps.csv"],
}


def files(name: str) -> list[str]:
    """The CSV files of case ``name`` compared between the serial and the MPI run."""
    return FILES.get(name, [f"{CASES[name].stem}.csv"])


def test_every_case_is_checked():
    assert set(FILES) <= set(CASES)


@pytest.mark.mpi
@pytest.mark.parametrize("name", list(CASES))
def test_mpi_equals_serial(tmp_path, name):
    case = CASES[name]
    result = case.run(tmp_path / "serial", quick=True, pictures=False)
    run_mpi([f"demos/{case.stem}.py", "--quick", "--no-pictures", "--quiet", "--out",
             str(tmp_path / "mpi")])
    for f in files(name):
        a = read_csv(tmp_path / "serial" / f)
        b = read_csv(tmp_path / "mpi" / f)
        assert a.keys() == b.keys()
        first = next(iter(a))  # "t", or the load/mesh column of a static table
        assert len(a[first]) == len(b[first]) > 1
        units = {k: u for sim in result.simulations.values() for k, u in sim.units.items()}
        scale = {k: float(np.nanmax(np.abs(v))) for k, v in a.items()}
        for k in a:
            if k == "newton_its":
                continue
            same = [scale[j] for j in a if units.get(j, j) == units.get(k, k)]
            floor = 1e-13 * max(1.0, *same)
            if "_force_" in k or "_moment_" in k:
                floor += 2e-11 / float(np.min(np.diff(a[first])))
            tol = 1e-10 * scale[k] + floor
            assert np.nanmax(np.abs(a[k] - b[k])) <= tol, (f, k, np.nanmax(np.abs(a[k] - b[k])))
