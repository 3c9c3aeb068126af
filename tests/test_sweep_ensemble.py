"""``fxrod sweep --ensemble B`` (issue 22): points that differ only in a case's ensemble
options run B at a time as one :class:`fxrod.runs.ensemble.Ensemble` per rank.

References: the plain sweep (another code path: one model per point, MUMPS) of the same
plan, full Newton to atol 1e-11 in both (as tests/test_ensemble.py), and the impulse of the
flying spaghetti's end force: the rod is free, so its linear momentum at t <= 2.5 s is
``p = load_scale * 0.1 * int_0^t 80 tau dtau e1 = 4 load_scale t^2 e1`` [kg m/s] (the hat
rises by 80 per second to 200 at 2.5 s); the midpoint rule integrates the piecewise linear
force exactly when its kinks fall on step ends.
"""

from __future__ import annotations

import json
import os
import signal

import numpy as np
import pytest

from fxrod.errors import ParameterError
from fxrod.output.tables import read_csv
from fxrod.runs.ensemble_run import COLUMNS, EnsembleRun
from fxrod.studies.cases import CASES, demo
from fxrod.studies.sweep import read_record, run_sweep
from fxrod.studies.sweep_plan import make_plan
from fxrod.studies.sweep_plot import read_table
from tests.conftest import assert_units_files, run_mpi

fs = demo("flying_spaghetti")
CASE = "flying-spaghetti"
#: A short point: 10 steps of 0.1 s on 4 elements.
SHORT = ["n_elements=4", "t_end=1"]
VECTORS = ("p", "J", "tip")


@pytest.fixture(autouse=True)
def full_newton(monkeypatch):
    """Full Newton (Jacobian every iteration) at the paper's atol 1e-11 in both paths."""
    monkeypatch.setattr(fs, "PAPER_SETTINGS", fs.PAPER_SETTINGS.replace(jacobian_lag=1))


def rows_by_index(table) -> dict[int, dict]:
    return {int(r["index"]): r for r in read_table(table)}


def assert_same_summaries(table, reference, tol: float = 1e-10) -> None:
    """Every point done in both; t and steps equal; H, and the vectors p, J, tip, equal to
    ``tol`` relative to the reference's magnitude (1 for zero vectors)."""
    a, b = rows_by_index(table), rows_by_index(reference)
    assert a.keys() == b.keys()
    for i, ra in a.items():
        rb = b[i]
        assert ra["status"] == rb["status"] == "done", (ra, rb)
        assert float(ra["t"]) == float(rb["t"]) and float(ra["steps"]) == float(rb["steps"])
        assert abs(float(ra["H"]) - float(rb["H"])) <= tol * max(1.0, abs(float(rb["H"])))
        for v in VECTORS:
            x = np.array([float(ra[f"{v}_{j}"]) for j in (1, 2, 3)])
            y = np.array([float(rb[f"{v}_{j}"]) for j in (1, 2, 3)])
            assert np.linalg.norm(x - y) <= tol * max(1.0, np.linalg.norm(y)), (i, v, x, y)


def test_ensemble_sweep_equals_plain_sweep(tmp_path):
    """Five load factors in batches of 2, 2, 1: the plain sweep's summaries to 1e-10
    (measured ~1e-14 relative), the closed-form momentum, and the records of a batch."""
    plan = make_plan(CASE, ["load_scale=0.5,0.8,1.2,1.5,2", *SHORT])
    plain = run_sweep(plan, tmp_path / "plain", quiet=True)
    ens = run_sweep(plan, tmp_path / "ens", quiet=True, ensemble=2)
    assert ens.counts == {"done": 5}
    assert_same_summaries(ens.table, plain.table)
    for r in ens.rows:
        p = np.array([r["p_1"], r["p_2"], r["p_3"]])
        exact = np.array([4.0 * r["load_scale"] * r["t"] ** 2, 0.0, 0.0])
        assert np.linalg.norm(p - exact) <= 1e-10 * exact[0], (p, exact)
    assert ens.rows[4]["H"] > ens.rows[0]["H"] > 0.0
    recs = [read_record(tmp_path / "ens", i) for i in range(5)]
    assert [r["batch"] for r in recs] == [[0, 1], [0, 1], [2, 3], [2, 3], [4]]
    for r in recs:
        assert r["wall_time"] == pytest.approx(r["batch_wall_time"] / len(r["batch"]))
        assert r["values"]["load_scale"] == r["params"]["load_scale"]
    assert_units_files(tmp_path / "ens", at_least=6)    # the table, the members' CSVs
    # each point's CSV: the per-member columns, t = 0 .. 1 in 11 rows, last row = summary
    for i, r in enumerate(recs):
        csv = read_csv(tmp_path / "ens" / f"case_{i:04d}" / "flying_spaghetti.csv")
        assert list(csv) == list(COLUMNS) and np.allclose(csv["t"], np.linspace(0, 1, 11))
        assert all(csv[k][-1] == r["summary"][k] for k in r["summary"] if k != "steps")
        ref = read_csv(tmp_path / "plain" / f"case_{i:04d}" / "flying_spaghetti.csv")
        for k in ("H", "tip_1", "tip_2", "tip_3"):
            assert np.max(np.abs(csv[k] - ref[k])) <= 1e-10 * max(1.0, np.max(np.abs(ref[k])))


def test_sections_vary_per_member(tmp_path):
    """stiffness_scale and load_scale zipped (members with their own sections: the
    non-uniform ensemble's quadrature coefficients) against the plain sweep (measured
    ~2e-14 relative)."""
    plan = make_plan(CASE, ["stiffness_scale=0.5,1,2", "load_scale=1,0.7,1.3", *SHORT],
                     "zip")
    plain = run_sweep(plan, tmp_path / "plain", quiet=True)
    ens = run_sweep(plan, tmp_path / "ens", quiet=True, ensemble=8)
    assert [read_record(tmp_path / "ens", i)["batch"] for i in range(3)] == [[0, 1, 2]] * 3
    assert_same_summaries(ens.table, plain.table)
    # the momentum of a free rod depends on the load only (impulse), not on the section
    assert [r["p_1"] for r in ens.rows] == pytest.approx([4.0, 2.8, 5.2], rel=1e-10)


def test_failed_batch_runs_point_by_point(tmp_path):
    """load_scale = 1000 makes the first step diverge: the batch fails, its points run
    alone; only that point is failed (with the solver's reason), the other equals the
    plain run."""
    plan = make_plan(CASE, ["load_scale=1,1000", "n_elements=4", "t_end=0.2"])
    ens = run_sweep(plan, tmp_path / "ens", quiet=True, ensemble=2)
    assert [r["status"] for r in ens.rows] == ["done", "failed"]
    rec = read_record(tmp_path / "ens", 1)
    assert rec["reason"].startswith("ConvergenceError")
    assert rec["batch_failure"].startswith("ConvergenceError") and "batch" not in rec
    plain = CASES[CASE].run(None, pictures=False, n_elements=4, t_end=0.2).summary
    assert ens.rows[0]["H"] == pytest.approx(plain["H"], rel=1e-12)


def test_interrupted_batch_then_resume(tmp_path, monkeypatch):
    """SIGTERM during the first batch (at its 3rd step): both its points are interrupted,
    the second batch never starts (pending); --resume runs them all from t = 0 and gives
    the uninterrupted table."""
    plan = make_plan(CASE, ["load_scale=0.5,1,1.5,2", *SHORT])
    ref = run_sweep(plan, tmp_path / "ref", quiet=True, ensemble=2)
    record = EnsembleRun._record
    calls = {"n": 0}

    def record_and_signal(self, its):
        record(self, its)
        calls["n"] += 1
        if calls["n"] == 3:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(EnsembleRun, "_record", record_and_signal)
    out = tmp_path / "stopped"
    res = run_sweep(plan, out, quiet=True, ensemble=2)
    assert res.signal == signal.SIGTERM
    assert [r["status"] for r in res.rows] == ["interrupted"] * 2 + ["pending"] * 2
    assert "t = 0.2" in res.rows[0]["reason"]
    monkeypatch.setattr(EnsembleRun, "_record", record)
    res = run_sweep(plan, out, quiet=True, ensemble=2, resume=True)
    assert res.counts == {"done": 4}
    assert_same_summaries(res.table, ref.table, tol=0.0)


@pytest.mark.parametrize("args,needle", [
    (["--param", "load_scale=1,2", "--param", "n_elements=2,3"], "n_elements"),
    (["--param", "load_scale=1,2", "--param", "h=0.1,0.05", "--zip"], "'h'"),
    (["--param", "load_scale=1,2", "--param", "checkpoint_every=5"], "checkpoint_every"),
    (["--param", "load_scale=1,2", "--ranks-per-case", "2"], "ranks_per_case"),
    (["--param", "load_scale=1,2", "--ensemble", "-1"], "ensemble"),
    (["--param", "stiffness_scale=0,1"], "(0, inf)"),
])
def test_bad_input_one_line_before_work(args, needle, tmp_path, capsys):
    from fxrod.cli import main

    out = tmp_path / "never"
    extra = [] if "--ensemble" in args else ["--ensemble", "4"]
    assert main(["sweep", CASE, *args, *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fxrod: error:") and needle in err[0], err
    assert not out.exists()


def test_case_without_ensemble_options(tmp_path, capsys):
    from fxrod.cli import main

    assert main(["sweep", "cantilever-vibration", "--param", "scale=1,2", "--ensemble", "2",
                 "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "ensemble" in err and "flying-spaghetti" in err and not (tmp_path / "x").exists()
    with pytest.raises(ParameterError, match="ensemble"):
        CASES["cantilever-vibration"].run_ensemble([None], [{}])
    with pytest.raises(ParameterError, match="'h'"):
        CASES[CASE].run_ensemble([None], [{"h": 0.1}])
    with pytest.raises(ParameterError, match="members"):
        CASES[CASE].run_ensemble([None, None], [{"load_scale": 1.0}])


@pytest.mark.mpi
def test_two_ranks_give_the_plain_table(tmp_path):
    """Five points, --ensemble 3 on 2 ranks (batches [0, 1, 2] and [3, 4], one per rank):
    the serial plain sweep's table."""
    params = ["--param", "load_scale=0.5,0.8,1.2,1.5,2", "--param", "n_elements=4",
              "--param", "t_end=1"]
    plan = make_plan(CASE, ["load_scale=0.5,0.8,1.2,1.5,2", *SHORT])
    plain = run_sweep(plan, tmp_path / "plain", quiet=True)
    run_mpi(["-m", "fxrod", "sweep", CASE, *params, "--ensemble", "3", "--out",
             str(tmp_path / "mpi")])
    table = tmp_path / "mpi" / f"sweep_{CASE}.csv"
    # the subprocess runs the case's own settings (Jacobian lag 8): 1e-10 still holds
    assert_same_summaries(table, plain.table)
    recs = [json.loads((tmp_path / "mpi" / f"case_{i:04d}" / "case.json").read_text())
            for i in range(5)]
    assert [r["batch"] for r in recs] == [[0, 1, 2]] * 3 + [[3, 4]] * 2
    assert {tuple(r["ranks"]) for r in recs} == {(0, 0), (1, 1)}
