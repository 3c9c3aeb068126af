"""The hamel-free-beam case: CSV contract, theory §H7's J_d(0), pictures, serial == MPI."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.output.tables import read_csv
from fxrod.studies.cases import CASES, demo
from tests.conftest import assert_picture, assert_units_files, run_mpi

JD0_THEORY = demo("hamel_free_beam").JD0_THEORY    # theory §H7


@pytest.fixture(scope="module")
def serial_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("hamel_serial")
    assert CASES["hamel-free-beam"].run(out, quick=True).ok
    return out


def test_demo_csv_and_pictures(serial_out):
    d = read_csv(serial_out / "hamel_free_beam.csv")
    for c in ["t", "H", *(f"Jd_{k}" for k in range(1, 7)), "J_1", "J_2", "J_3", "p_1", "p_2",
              "p_3", *(f"Jmid_{k}" for k in range(1, 7)), "tip_1", "tip_2", "tip_3"]:
        assert c in d, c
    assert d["t"].size == 201 and d["t"][-1] == pytest.approx(0.2)   # the final state too
    Jd = np.column_stack([d[f"Jd_{k}"] for k in range(1, 7)])
    assert np.all(np.abs(Jd[0] - JD0_THEORY) <= [5e-8, 5e-7, 5e-6, 5e-6, 5e-6, 1e-15])
    assert np.abs(Jd - Jd[0]).max() <= 1e-11 * np.abs(Jd[0]).max()
    lead = np.column_stack([d[f"J_{k}"] for k in (1, 2, 3)] + [d[f"p_{k}"] for k in (1, 2, 3)])
    assert 1e-3 < np.abs(lead - Jd[0]).max() < 1e-2  # O(h) leading term (theory §H7: 5.1e-3)
    np.testing.assert_allclose(d["tip_2"][0], 1.0)
    assert_units_files(serial_out)
    for suffix in ("", "_angular", "_linear", "_deviation"):
        assert_picture(serial_out / f"hamel_free_beam{suffix}.png")


@pytest.mark.mpi
def test_demo_mpi_equals_serial(serial_out, tmp_path):
    run_mpi(["demos/hamel_free_beam.py", "--quick", "--quiet", "--no-pictures", "--out",
             str(tmp_path)])
    a = read_csv(serial_out / "hamel_free_beam.csv")
    b = read_csv(tmp_path / "hamel_free_beam.csv")
    assert a.keys() == b.keys() and a["t"].size == b["t"].size
    for k in a:
        scale = max(1.0, float(np.abs(a[k]).max()))
        assert np.abs(a[k] - b[k]).max() <= 1e-10 * scale, k
