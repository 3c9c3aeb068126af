"""``fxrod modes <case>`` (fxrod.studies.modal_output): the CSV read back against closed forms, the
pictures, user errors."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.errors import ParameterError
from fxrod.output.tables import read_csv
from fxrod.problems.paper import cantilever_vibration_section
from fxrod.studies.modal_output import COLUMNS, write_modes
from tests.conftest import assert_picture, assert_units_files, run_mpi
from tests.test_cli_output import fxrod_cli


def test_cli_cantilever_csv(tmp_path):
    """Ex. 6.2 Kirchhoff cantilever (L = 1 m, n_e 8): omega_1 = 1.8751^2 sqrt(EI/rhoA)
    within 1e-4 (rotary inertia (beta r)^2 ~ 1e-5, discretisation 6e-6), twice."""
    fxrod_cli("modes", "cantilever-vibration", "--out", str(tmp_path), "--no-pictures")
    assert_units_files(tmp_path, at_least=2)     # _modes.csv, _mode_table.csv
    d = read_csv(tmp_path / "cantilever_vibration_modes.csv")
    assert list(d) == COLUMNS
    sec = cantilever_vibration_section()
    w1 = 1.8751040687**2 * np.sqrt(sec.k_b1 / sec.rhoA)
    assert d["omega"][:2] == pytest.approx([w1, w1], rel=1e-4)
    assert d["frequency"] == pytest.approx(d["omega"] / (2 * np.pi), rel=1e-12)


def test_free_rod_rigid_modes_carry_the_mass(tmp_path):
    """Flying spaghetti (free, L = 10, rhoA = 1): six zero modes; their effective masses
    sum to rhoA L = 10 kg along x, y, z."""
    write_modes("flying-spaghetti", tmp_path, 8, pictures=False)
    d = read_csv(tmp_path / "flying_spaghetti_modes.csv")
    assert np.all(d["omega"][:6] == 0.0) and d["omega"][6] > 0.0
    for c in ("x", "y", "z"):
        assert d[f"effective_mass_{c}"][:6].sum() == pytest.approx(10.0, rel=1e-9)


@pytest.mark.slow
def test_soft_arm_pictures(tmp_path):
    files = write_modes("soft-arm", tmp_path, 2)
    assert assert_picture(tmp_path / "soft_arm_modes.png") == (1024, 768)
    assert {f.name for f in files} >= {"soft_arm_mode1.gif", "soft_arm_mode2.gif"}


@pytest.mark.mpi
def test_modes_csv_same_under_mpi(tmp_path):
    write_modes("cantilever-deflected", tmp_path, 4, pictures=False)
    run_mpi(["-m", "fxrod", "modes", "cantilever-deflected", "--out", str(tmp_path / "mpi"),
             "--n-modes", "4", "--no-pictures"])
    a = read_csv(tmp_path / "cantilever_deflected_modes.csv")
    b = read_csv(tmp_path / "mpi" / "cantilever_deflected_modes.csv")
    assert b["omega"] == pytest.approx(a["omega"], rel=1e-9)
    assert b["effective_mass_z"] == pytest.approx(a["effective_mass_z"], rel=1e-6, abs=1e-12)


def test_user_errors(tmp_path):
    p = fxrod_cli("modes", "no-such-case", "--out", str(tmp_path), check=False)
    assert p.returncode == 2 and "unknown case" in p.stderr
    with pytest.raises(ParameterError):
        write_modes("cantilever-vibration", tmp_path, 0)
