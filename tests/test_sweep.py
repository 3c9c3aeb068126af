"""Parameter sweeps over the case registry (issue 24): plans, MPI groups, resume, failures.

The points are short runs of the Ex. 6.2 cantilever (``cantilever-vibration``, 4 elements,
10 to 50 steps of 1 ms) with the tip impulse scaled by ``scale``: while the response is
small the stored energy is quadratic in the impulse (a linear system driven by the load),
the independent reference of the serial sweep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from fxrod.errors import ParameterError
from fxrod.studies.cases import CASES, Case, Option, Result, demo
from fxrod.studies.sweep import read_record, run_sweep
from fxrod.studies.sweep_plan import make_plan
from fxrod.studies.sweep_plot import plot_sweep, read_table
from tests.conftest import ROOT, assert_picture, assert_units_files, mpirun_cmd, run_mpi

CASE = "cantilever-vibration"
#: A short point: 10 steps of 1 ms on 4 elements.
SHORT = ["--param", "t_end=0.01", "--param", "n_elements=4"]
#: Summary columns of the case.
SUMMARY = ["t", "H", "tip_1", "tip_2", "tip_3", "max_energy_residual"]


def sweep_cmd(out, *extra) -> list[str]:
    return ["-m", "fxrod", "sweep", CASE, *SHORT, "--out", str(out), *extra]


def mpirun(n: int, args: list[str], **kw) -> subprocess.Popen | subprocess.CompletedProcess:
    """``mpirun -n n python args`` (blocking), like :func:`tests.conftest.run_mpi`."""
    env = dict(os.environ)
    env.setdefault("UCX_TLS", "self,sm,tcp")
    p = subprocess.run([mpirun_cmd()[0], "-n", str(n), sys.executable, *args],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600, **kw)
    assert p.returncode == 0, f"mpirun failed:\n{p.stdout}\n{p.stderr}"
    return p


def assert_same_results(table, reference) -> None:
    """Same points, statuses and summary numbers (relative 1e-10; the energy residual is
    round-off, ~1e-16 J, compared absolutely to 1e-14 J)."""
    a, b = read_table(table), read_table(reference)
    assert [r["index"] for r in a] == [r["index"] for r in b]
    for ra, rb in zip(a, b, strict=True):
        assert ra["status"] == rb["status"] == "done", (ra, rb)
        for c in SUMMARY:
            assert float(ra[c]) == pytest.approx(float(rb[c]), rel=1e-10, abs=1e-14), c


# ------------------------------------------------------------------------------ plans
def test_plan_grid_zip_and_samples():
    p = make_plan(CASE, ["scale=0.5,1", "n_elements=2,3,4"])
    assert len(p.points) == 6 and p.points[1] == {"scale": 0.5, "n_elements": 3}
    assert isinstance(p.points[0]["n_elements"], int) and p.points[0]["scale"] == 0.5
    z = make_plan(CASE, ["scale=0.5,1,2", "n_elements=2,3,4", "h=2e-3"], "zip")
    assert [q["scale"] for q in z.points] == [0.5, 1.0, 2.0] and z.points[2]["h"] == 2e-3
    s = make_plan(CASE, ["scale=0.5:2", "n_elements=2:6", "t_end=0.01"], samples=50, seed=3)
    sc = np.array([q["scale"] for q in s.points])
    ne = {q["n_elements"] for q in s.points}
    assert sc.min() >= 0.5 and sc.max() <= 2.0 and ne <= {2, 3, 4, 5, 6} and len(ne) > 2
    assert s == make_plan(CASE, ["scale=0.5:2", "n_elements=2:6", "t_end=0.01"],
                          samples=50, seed=3)
    soft = make_plan("soft_arm", ["path=heart", "rho=900,1100"])
    assert soft.case == "soft-arm" and soft.points[1] == {"path": "heart", "rho": 1100.0}


@pytest.mark.parametrize("args,needle", [
    (["no-such-case", "--param", "h=1"], "case"),
    ([CASE, "--param", "no_such=1"], "no_such"),
    ([CASE, "--param", "n_elements=0"], "[1, inf)"),
    ([CASE, "--param", "h=-1e-3"], "(0, inf)"),
    ([CASE, "--param", "scale="], "non-empty"),
    ([CASE, "--param", "n_elements=2.5"], "integer"),
    ([CASE, "--param", "viscoelastic=maybe"], "true or false"),
    (["soft-arm", "--param", "path=square"], "circle, heart"),
    ([CASE, "--param", "scale=1,2", "--param", "h=1e-3,2e-3,3e-3", "--zip"], "equal length"),
    ([CASE, "--param", "scale=0:1"], "--samples"),
    ([CASE, "--param", "restart=x"], "restart"),
    ([CASE], "at least one"),
    ([CASE, "--param", "scale=1", "--ranks-per-case", "2"], "divisor"),
])
def test_bad_input_one_line_before_work(args, needle, tmp_path, capsys):
    from fxrod.cli import main

    out = tmp_path / "never"
    assert main(["sweep", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fxrod: error:") and needle in err[0], err
    assert not out.exists()


def test_list_params(capsys):
    from fxrod.cli import main

    assert main(["sweep", "soft-arm", "--list-params"]) == 0
    rows = {ln.split()[0]: ln.split()[1:3] for ln in capsys.readouterr().out.splitlines()}
    assert rows["chamber_radius"] == ["m", "0.065"] and rows["rho"] == ["kg/m^3", "1000.0"]
    assert rows["path"] == ["-", "circle"] and "restart" not in rows


def test_case_without_comm(tmp_path, monkeypatch):
    """A case whose run() has no comm keyword: refused on a sub-communicator, swept on one
    rank."""
    calls = []

    def runner(out, *, pictures, quiet, x):
        calls.append(x)
        return Result("old", {"y": 2.0 * x}, "")

    old = Case("old", "a case without comm", (Option("x", 1.0, "-", "x"),), {}, runner)
    assert not old.takes_comm and old.run(x=2.0).name == "old" and calls == [2.0]
    with pytest.raises(ParameterError, match="comm"):
        old.run(comm=object())
    assert calls == [2.0]
    monkeypatch.setitem(CASES, "old", old)
    res = run_sweep(make_plan("old", ["x=3,4"]), tmp_path, quiet=True)
    assert [r["y"] for r in res.rows] == [6.0, 8.0] and calls == [2.0, 3.0, 4.0]
    owned = ("flying-spaghetti", "cantilever-vibration", "quasistatic-cantilever",
             "soft-arm", "tendon-hook", "bend45", "helix-spring", "ancf-graded-cantilever",
             "hamel-free-beam", "right-angle-cantilever")
    assert all(CASES[n].takes_comm for n in owned)


# ------------------------------------------------------------------------------ serial
def test_serial_sweep_records_failure_and_goes_on(tmp_path):
    """scale = 1000 makes the first step diverge (Newton: DIVERGED_MAX_IT): recorded as
    failed with the solver's reason; the other points complete, their energies in the ratio
    of the impulses squared."""
    plan = make_plan(CASE, ["t_end=0.01", "n_elements=4", "scale=0.5,1000,1"])
    res = run_sweep(plan, tmp_path, quiet=True)
    assert [r["status"] for r in res.rows] == ["done", "failed", "done"]
    failed = read_record(tmp_path, 1)
    assert failed["reason"].startswith("ConvergenceError") and "converge" in failed["reason"]
    assert failed["params"] == {"t_end": 0.01, "n_elements": 4, "scale": 1000.0}
    assert res.rows[0]["H"] / res.rows[2]["H"] == pytest.approx(0.25, rel=1e-3)
    for i in (0, 2):
        assert (tmp_path / f"case_{i:04d}" / "cantilever_vibration.csv").is_file()
    assert_units_files(tmp_path, at_least=3)     # the table and the points' CSVs
    table = read_table(res.table)
    assert table[1]["status"] == "failed" and "DIVERGED" in table[1]["reason"]
    assert table[0]["ranks"] == "0-0" and float(table[0]["wall_time"]) > 0
    png = plot_sweep(res.table, "H", "scale")
    assert_picture(png, min_colours=5)
    with pytest.raises(ParameterError, match="quantity"):
        plot_sweep(res.table, "no_such", "scale")
    from fxrod.cli import main

    assert main(["plot", str(res.table), "--y", "H", "--x", "scale", "--out",
                 str(tmp_path / "cli.png")]) == 0                  # fxrod plot of the table
    assert_picture(tmp_path / "cli.png", min_colours=5)
    assert main(["plot", str(res.table)]) == 2                     # needs --y and --x
    # resume: every point finished, nothing runs again
    stamp = (tmp_path / "case_0000" / "case.json").stat().st_mtime_ns
    run_sweep(plan, tmp_path, resume=True, quiet=True)
    assert (tmp_path / "case_0000" / "case.json").stat().st_mtime_ns == stamp
    with pytest.raises(ValueError, match="same case and points"):
        run_sweep(make_plan(CASE, ["scale=2"]), tmp_path, resume=True, quiet=True)


# ------------------------------------------------------------------------------ MPI
@pytest.mark.mpi
def test_mpi_groups_give_the_serial_table(tmp_path):
    """One rank per point on 2 ranks, and 2 ranks per point on 4 ranks: the serial table."""
    args = ["--param", "scale=0.5,1,1.5"]
    subprocess.run([sys.executable, *sweep_cmd(tmp_path / "s", *args)], check=True,
                   capture_output=True, cwd=ROOT, timeout=600)
    run_mpi(sweep_cmd(tmp_path / "m2", *args))
    mpirun(4, sweep_cmd(tmp_path / "m4", *args, "--ranks-per-case", "2"))
    ref = tmp_path / "s" / f"sweep_{CASE}.csv"
    for d, groups, ranks in (("m2", {"0", "1"}, {"0-0", "1-1"}),
                             ("m4", {"0", "1"}, {"0-1", "2-3"})):
        assert_same_results(tmp_path / d / f"sweep_{CASE}.csv", ref)
        rows = read_table(tmp_path / d / f"sweep_{CASE}.csv")
        assert {r["group"] for r in rows} <= groups and {r["ranks"] for r in rows} <= ranks


@pytest.mark.mpi
def test_sigterm_then_resume_gives_the_same_table(tmp_path):
    """SIGTERM to mpirun after the first point: the groups stop at a step boundary with a
    checkpoint (exit 143); --resume continues the stopped points from their checkpoints
    and leaves the finished ones untouched; the table equals the uninterrupted one."""
    args = ["--param", "scale=0.5,1,1.5,2,2.5,3", "--param", "t_end=0.1",
            "--checkpoint-every", "5"]
    ref, out = tmp_path / "ref", tmp_path / "stopped"
    subprocess.run([sys.executable, "-m", "fxrod", "sweep", CASE, "--param", "n_elements=4",
                    *args, "--out", str(ref)], check=True, capture_output=True, cwd=ROOT,
                   timeout=600)
    cmd = ["-m", "fxrod", "sweep", CASE, "--param", "n_elements=4", *args, "--out", str(out)]
    env = dict(os.environ, UCX_TLS=os.environ.get("UCX_TLS", "self,sm,tcp"))
    # niced: on a busy machine this test's polling must still see the first point end
    proc = subprocess.Popen(["nice", "-n", "10", mpirun_cmd()[0], "-n", "2", sys.executable,
                             *cmd], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while not any((read_record(out, i) or {}).get("status") == "done" for i in range(6)):
        assert proc.poll() is None and time.monotonic() - t0 < 300, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 143, stdout + stderr
    before = {i: read_record(out, i) for i in range(6)}
    finished = [i for i, r in before.items() if r and r["status"] == "done"]
    assert 0 < len(finished) < 6, stdout + stderr
    stamps = {p: p.stat().st_mtime_ns for i in finished
              for p in (out / f"case_{i:04d}").rglob("*")}
    run_mpi(cmd + ["--resume"])
    assert_same_results(out / f"sweep_{CASE}.csv", ref / f"sweep_{CASE}.csv")
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    for i, r in before.items():
        after = read_record(out, i)
        if r and r["status"] == "interrupted" and "checkpoint" in r["reason"]:
            assert after["restarted"], after
            assert (out / f"case_{i:04d}" / "cantilever_vibration.csv").read_bytes() == \
                (ref / f"case_{i:04d}" / "cantilever_vibration.csv").read_bytes()


@pytest.mark.mpi
def test_bad_input_under_mpi_is_one_line(tmp_path):
    env = dict(os.environ, UCX_TLS=os.environ.get("UCX_TLS", "self,sm,tcp"))
    p = subprocess.run([mpirun_cmd()[0], "-n", "2", sys.executable, "-m", "fxrod", "sweep",
                        CASE, "--param", "n_elements=0", "--out", str(tmp_path / "x")],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("fxrod")]
    assert len(lines) == 1 and "n_elements" in lines[0], p.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_soft_arm_design_study(tmp_path):
    """The documented study: 3 chamber radii x 3 densities of the quick soft arm (circle
    input up to t = 1 s). At t = 1 s the arm follows the slow input nearly statically: its
    tip lies within 1e-3 m (1 % of its ~0.1 m travel; the rest is inertia) of the exact
    static arc of the chamber forces at t = 1 s (:func:`fxrod.problems.soft_arm.static_strains`,
    :func:`fxrod.problems.soft_arm.constant_strain_curve`), for every radius and density; a larger
    offset bends the arm further."""
    import dataclasses

    from fxrod.problems.soft_arm import (
        SOFT_ARM,
        chamber_forces,
        constant_strain_curve,
        static_strains,
    )

    plan = make_plan("soft-arm", ["chamber_radius=0.055,0.065,0.075", "rho=900,1000,1100"],
                     quick=True)
    res = run_sweep(plan, tmp_path, quiet=True)
    assert res.counts == {"done": 9}
    for r in res.rows:
        p = dataclasses.replace(SOFT_ARM, chamber_radius=r["chamber_radius"], rho=r["rho"])
        G, K = static_strains(p.section, chamber_forces("circle", r["t"], p),
                              p.offsets)
        exact = constant_strain_curve(G, K, [p.length], R0=demo("soft_arm").arm(p).frame)[0][0]
        tip = np.array([r["tip_1"], r["tip_2"], r["tip_3"]])
        assert np.linalg.norm(tip - exact) <= 1e-3, (r, exact)
    off = [np.hypot(r["tip_1"], r["tip_2"]) for r in res.rows]
    assert off[0] < off[3] < off[6] and off[0] > 0.07
    assert json.loads((tmp_path / "sweep.json").read_text())["quick"] is True
