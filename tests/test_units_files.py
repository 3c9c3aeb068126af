"""The units file beside every CSV (docs/output.md, "Units files"): the quick runs of the
cases whose CSVs are not time series (load paths, tables per run) write
``X_columns.json`` beside each ``X.csv``, its columns exactly the header's, each with a
unit and a one-line meaning. The time-series runs are checked where their tests already
run them (tests/test_cli_output.py, test_statics_output.py, test_sweep*.py, ...)."""

from __future__ import annotations

import json

import pytest

from fxrod.output.tables import columns_json_path
from fxrod.studies.cases import CASES
from tests.conftest import assert_units_files

#: case -> (its own CSV, its columns with their units)
TABLES = {
    "lee-frame": ("lee_frame.csv", {"load": "N", "u": "m", "v": "m"}),
    "deep-arch": ("deep_arch.csv", {"lambda": "-", "arc_length": "m", "apex_u1": "m"}),
    "capstan": ("capstan.csv", {"mu": "-", "theta": "rad", "tension_ratio": "-"}),
    "quasistatic-cantilever": ("quasistatic_cantilever_centrelines.csv",
                               {"t": "-", "node": "-", "x": "m"}),
    "plectoneme": ("plectoneme.csv", {"t": "s", "torque": "N m", "twist_turns": "-"}),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_quick_case_writes_a_units_file_beside_every_csv(tmp_path, name):
    CASES[name].run(tmp_path, quick=True, pictures=False, quiet=True)
    csv, units = TABLES[name]
    assert tmp_path / csv in assert_units_files(tmp_path)
    doc = json.loads(columns_json_path(tmp_path / csv).read_text())
    assert {c: doc["units"][c] for c in units} == units
    assert all(doc["meanings"].values()), doc["meanings"]
