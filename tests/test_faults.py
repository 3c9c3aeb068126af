"""Faults (issue 25): every stepped case restarts exactly after SIGTERM; mismatched, missing,
truncated and corrupt checkpoints give one line (and the previous checkpoint restarts); a
full disk, a read-only or removed output directory end the run with one line, a CSV
readable to its last complete row, no temporary file and, where space allows, a checkpoint
of the last good state."""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fxrod.ancf import CentralDifference
from fxrod.errors import CheckpointError, ConvergenceError, OutputError, ParameterError
from fxrod.hamel import HamelBeam
from fxrod.output.paraview import PVDWriter
from fxrod.output.tables import CSVWriter, read_csv
from fxrod.problems.paper import PAPER_SETTINGS
from fxrod.runs import checkpoint
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Interrupted, Simulation
from fxrod.studies.cases import CASES, RUN_CONTROL, demo
from tests.conftest import ROOT, run_mpi

#: The companion cases, with their own steppers (ANCF central difference, Hamel lattice).
COMPANIONS = ("ancf-graded-cantilever", "hamel-free-beam")
#: The cases stepped by the Integrator (checkpoint, restart, adaptive options).
STEPPED = [n for n, c in CASES.items()
           if any(o.name == "restart" for o in c.options) and n not in COMPANIONS]


def _leftovers(d: Path) -> list[Path]:
    return [p for p in Path(d).rglob("*") if ".tmp" in p.name]


def _complete_rows(path: Path) -> int:
    """Data rows of a CSV, asserting that every line is complete (ends with a newline and
    has the header's number of fields)."""
    text = path.read_text()
    assert text.endswith("\n"), repr(text[-80:])
    lines = text.splitlines()
    assert all(len(ln.split(",")) == len(lines[0].split(",")) for ln in lines)
    return len(lines) - 1


def _sigterm_at(monkeypatch, k: int) -> None:
    """Send SIGTERM to this process while the k-th row of a run is recorded."""
    record = Simulation._record
    count = {"n": 0}

    def wrapped(self, res=None):
        record(self, res)
        count["n"] += 1
        if count["n"] == k:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(Simulation, "_record", wrapped)


def test_every_integrator_case_has_the_run_control():
    assert set(STEPPED) >= {"flying-spaghetti", "cantilever-vibration",
                            "quasistatic-cantilever", "soft-arm", "tendon-hook", "bend45",
                            "helix-spring"}
    for name in COMPANIONS:
        assert {o.name for o in CASES[name].options} >= {o.name for o in RUN_CONTROL}


@pytest.mark.parametrize("name", STEPPED)
def test_sigterm_at_a_random_step_then_restart_equals_the_uninterrupted_run(
        tmp_path, monkeypatch, name):
    case = CASES[name]
    full = case.run(tmp_path / "full", quick=True, pictures=False)
    n_rows = sum(len(s.rows) for s in full.simulations.values())
    k = random.Random(name).randrange(3, n_rows - 1)     # a reproducible random step
    with monkeypatch.context() as m:
        _sigterm_at(m, k)
        with pytest.raises(Interrupted):
            case.run(tmp_path / "cut", quick=True, pictures=False, checkpoint_every=2)
    resumed = case.run(tmp_path / "cut", quick=True, pictures=False, checkpoint_every=2,
                       restart=str(tmp_path / "cut"))
    for f in sorted((tmp_path / "full").glob("*.csv")):
        assert (tmp_path / "cut" / f.name).read_bytes() == f.read_bytes(), f.name
    assert resumed.summary == full.summary
    for label, sim in full.simulations.items():      # the kept centrelines too
        other = resumed.simulations[label].snapshots
        assert sorted(other) == sorted(sim.snapshots)
        assert all(np.array_equal(other[t], sim.snapshots[t]) for t in sim.snapshots)
    assert not _leftovers(tmp_path)


@pytest.mark.mpi
def test_two_rank_checkpoint_restarts_serially(tmp_path):
    """tendon-hook on 2 ranks keeps its last two checkpoints; the older one (an inner
    step) restarts on 1 rank and ends at the serial run's state (to the MPI comparison's
    1e-10 of tests/test_mpi.py: MUMPS orders differently on 2 ranks)."""
    run_mpi(["demos/tendon_hook.py", "--quick", "--no-pictures", "--quiet",
             "--checkpoint-every", "2", "--out", str(tmp_path / "mpi")])
    prev = checkpoint.previous_path(tmp_path / "mpi" / "tendon_hook_checkpoint.npz")
    case = CASES["tendon-hook"]
    ref = case.run(tmp_path / "serial", quick=True, pictures=False)
    res = case.run(tmp_path / "mpi", quick=True, pictures=False, restart=str(prev))
    a = read_csv(tmp_path / "serial" / "tendon_hook.csv")
    b = read_csv(tmp_path / "mpi" / "tendon_hook.csv")
    assert len(a["t"]) == len(b["t"]) == 6
    for c in ("tip_1", "tip_2", "tip_3", "strain_energy"):
        assert np.max(np.abs(a[c] - b[c])) <= 1e-10 * np.max(np.abs(a[c])) + 1e-13, c
    assert res.summary["error_position"] == pytest.approx(ref.summary["error_position"],
                                                          rel=1e-8)


def _fs_sim(out, ne=4, every=3, restart=None, paraview_every=1):
    model = demo("flying_spaghetti").problem(ne).model
    return Simulation(Integrator(model, 0.1, PAPER_SETTINGS), out, "fs",
                      checkpoint_every=every, restart=restart, paraview_every=paraview_every)


def test_mismatched_checkpoint_is_refused_naming_what_differs(tmp_path):
    _fs_sim(tmp_path, ne=4).run(0.6)
    with pytest.raises(CheckpointError) as ei:
        _fs_sim(tmp_path / "b", ne=5, restart=tmp_path)
    msg = str(ei.value)
    assert "\n" not in msg and "mesh differs" in msg and "4 elements" in msg
    model = demo("flying_spaghetti").problem(4).model        # other step: named too
    with pytest.raises(CheckpointError, match="step differs"):
        Simulation(Integrator(model, 0.05, PAPER_SETTINGS), tmp_path / "c", "fs",
                   restart=tmp_path)


def test_cli_restart_of_another_case_or_mesh_is_one_line_exit_2(tmp_path):
    """As a user: fxrod run with --restart of another mesh, another case, a missing dir."""
    out = tmp_path / "fs"
    base = [sys.executable, "-m", "fxrod", "run"]
    opts = ["--quick", "--no-pictures", "--quiet", "--t-end", "0.3"]
    p = subprocess.run(base + ["flying-spaghetti", *opts, "--n-elements", "4",
                               "--checkpoint-every", "1", "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    for argv, expect in (
            (["flying-spaghetti", *opts, "--n-elements", "6"], "mesh differs"),
            (["bend45", "--quick", "--no-pictures", "--quiet"],
             "no checkpoint bend45_steps_checkpoint.npz"),
            (["bend45", "--quick", "--no-pictures", "--quiet", "--restart",
              str(out / "flying_spaghetti_checkpoint.npz")], "another problem"),
            (["flying-spaghetti", *opts, "--restart", str(tmp_path / "nothing")],
             "no such file or directory")):
        if "--restart" not in argv:
            argv = [*argv, "--restart", str(out)]
        q = subprocess.run(base + argv + ["--out", str(tmp_path / "x")], capture_output=True,
                           text=True, cwd=ROOT, timeout=300)
        assert q.returncode == 2, q.stderr
        assert q.stderr.count("\n") == 1 and expect in q.stderr, q.stderr
        assert "Traceback" not in q.stderr


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "empty"])
def test_damaged_checkpoint_is_one_line_and_the_previous_restarts(tmp_path, damage):
    full = _fs_sim(tmp_path / "full")
    full.run(1.2)
    _fs_sim(tmp_path / "cut").run(0.9)               # checkpoints at t = 0.6 and 0.9
    newest = tmp_path / "cut" / "fs_checkpoint.npz"
    data = newest.read_bytes()
    newest.write_bytes({"truncated": data[: len(data) // 2],
                        "corrupt": data[:100] + bytes(len(data) - 100),
                        "empty": b""}[damage])
    with pytest.raises(CheckpointError) as ei:
        _fs_sim(tmp_path / "cut", restart=tmp_path / "cut")
    msg = str(ei.value)
    assert "\n" not in msg and "truncated or corrupt" in msg and "prev.npz" in msg
    prev = checkpoint.previous_path(newest)
    sim = _fs_sim(tmp_path / "cut", restart=prev)
    assert sim.integ.t == pytest.approx(0.6) and len(sim.rows) == 7
    sim.run(1.2)
    a = (tmp_path / "full" / "fs.csv").read_bytes()
    assert (tmp_path / "cut" / "fs.csv").read_bytes() == a
    assert not _leftovers(tmp_path)


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 40 kB tmpfs (root only; skipped where mounting is impossible)."""
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40k", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({p.stderr.strip() or 'not root'})")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_full_disk_demo_is_one_line_with_a_readable_csv(tiny_tmpfs):
    out = tiny_tmpfs / "fs"
    p = subprocess.run([sys.executable, "demos/flying_spaghetti.py", "--quiet",
                        "--no-pictures", "--n-elements", "4", "--t-end", "15",
                        "--checkpoint-every", "5", "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "No space left on device" in p.stderr, p.stderr
    assert str(out) in p.stderr
    n = _complete_rows(out / "flying_spaghetti.csv")
    assert 0 < n < 151
    assert not _leftovers(tiny_tmpfs)


def test_csv_writer_on_a_full_disk_keeps_complete_rows(tiny_tmpfs):
    path = tiny_tmpfs / "x.csv"
    columns = [f"c{i}" for i in range(20)]
    with pytest.raises(OutputError, match="No space left"), CSVWriter(path, columns) as w:
        for i in range(10**5):
            w.write({c: 1.0 / (i + 1) for c in columns})
    n = _complete_rows(path)
    assert n > 10 and np.all(read_csv(path)["c0"] == 1.0 / np.arange(1, n + 1))


def test_write_fault_checkpoints_the_last_good_state(tmp_path, monkeypatch):
    """A ParaView frame fails with ENOSPC at step 7 (space is left for the checkpoint):
    one-line error, the CSV ends with the last complete row, the checkpoint holds step 7
    and the restart continues to the uninterrupted result."""
    ref = _fs_sim(tmp_path / "ref", paraview_every=0)
    ref.run(1.2)
    write = PVDWriter.write

    def failing(self, t, *a, **k):
        if len(self.entries) == 7:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))
        return write(self, t, *a, **k)

    monkeypatch.setattr(PVDWriter, "write", failing)
    sim = _fs_sim(tmp_path / "run", every=100)
    with pytest.raises(OutputError) as ei:
        sim.run(1.2)
    msg = str(ei.value)
    assert "\n" not in msg and "No space left on device" in msg and "fs.pvd" in msg
    assert "checkpoint of t = 0.7" in msg
    assert _complete_rows(tmp_path / "run" / "fs.csv") == 8
    monkeypatch.setattr(PVDWriter, "write", write)
    resumed = _fs_sim(tmp_path / "run", every=100, restart=tmp_path / "run",
                      paraview_every=0)
    assert resumed.integ.t == pytest.approx(0.7)
    resumed.run(1.2)
    assert (tmp_path / "run" / "fs.csv").read_bytes() == \
        (tmp_path / "ref" / "fs.csv").read_bytes()
    assert not _leftovers(tmp_path)


def test_removed_output_directory_is_one_line(tmp_path, monkeypatch):
    out = tmp_path / "gone"
    record = Simulation._record

    def wrapped(self, res=None):
        if self.integ.step_count == 4:
            shutil.rmtree(out)
        record(self, res)

    monkeypatch.setattr(Simulation, "_record", wrapped)
    sim = _fs_sim(out)
    with pytest.raises(OutputError) as ei:
        sim.run(1.0)
    msg = str(ei.value)
    assert "\n" not in msg and str(out / "fs.csv") in msg and "removed" in msg


def test_runs_check_one_directory_at_once(tmp_path):
    """Serial runs on their own communicators (the gradings of a companion dealt to the ranks)
    check the same output directory at the same time: each probe file has a name of its
    own, so no run sees another's probe vanish (a shared name failed one rank in the full
    tier: 'No such file or directory: .../.fxrod_write_test', and the other hung)."""
    import threading

    from fxrod.output.tables import prepare_output_dir

    errors = []

    def check():
        try:
            for _ in range(300):
                prepare_output_dir(tmp_path / "shared")
        except ParameterError as e:                      # pragma: no cover - the failure
            errors.append(e)

    threads = [threading.Thread(target=check) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[0]
    assert list((tmp_path / "shared").iterdir()) == []   # no probe left behind


def test_read_only_output_directory_is_one_line(tiny_tmpfs):
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], check=True)
    with pytest.raises(ParameterError, match="writable directory.*Read-only"):
        _fs_sim(tiny_tmpfs / "out")
    p = subprocess.run([sys.executable, "-m", "fxrod", "run", "bend45", "--quick",
                        "--no-pictures", "--out", str(tiny_tmpfs / "out")],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "Read-only file system" in p.stderr


def _make_read_only(d: Path) -> None:
    """Make directory ``d`` unwritable: its mode 0o555, and for root (whom modes do not stop)
    a read-only bind mount of ``d`` onto itself; skips where root cannot mount."""
    if os.geteuid() != 0:
        d.chmod(0o555)
        return
    for cmd in (["mount", "--bind", str(d), str(d)],
                ["mount", "-o", "remount,bind,ro", str(d), str(d)]):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            pytest.skip(f"root, and cannot make {d} read-only by a bind mount "
                        f"({p.stderr.strip()})")


def test_directory_made_read_only_mid_run(tmp_path, monkeypatch):
    out = tmp_path / "ro"
    record = Simulation._record

    def wrapped(self, res=None):
        if self.integ.step_count == 4:
            _make_read_only(out)
        record(self, res)

    monkeypatch.setattr(Simulation, "_record", wrapped)
    try:
        with pytest.raises(OutputError, match="Permission denied|Read-only file system"):
            _fs_sim(out).run(1.0)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", "-l", str(out)], capture_output=True)
        out.chmod(0o755)
    assert _complete_rows(out / "fs.csv") == 5
    assert not _leftovers(tmp_path)


# ------------------------------------------------------------------ the companion cases
#: Short variants of the companion cases (a few seconds each): options and the stepper
#: whose steps the SIGTERM is counted in.
COMPANION_RUNS = {
    "ancf-graded-cantilever": ({"n_elements": 4, "t_end": 0.004}, CentralDifference),
    "hamel-free-beam": ({"t_end": 0.05, "every": 3}, HamelBeam),
}


def _count_steps(monkeypatch, stepper, at: int | None = None) -> dict:
    """Count the steps of ``stepper``; send SIGTERM to this process during step ``at``."""
    step = stepper.step
    count = {"n": 0}

    def wrapped(self, *a, **k):
        count["n"] += 1
        if count["n"] == at:
            os.kill(os.getpid(), signal.SIGTERM)
        return step(self, *a, **k)

    monkeypatch.setattr(stepper, "step", wrapped)
    return count


def _same_files(a: Path, b: Path) -> None:
    """Every CSV, ParaView collection and frame of ``a`` is byte-equal in ``b``."""
    files = [f for f in sorted(a.rglob("*")) if f.suffix in (".csv", ".pvd", ".vtu")]
    assert files
    for f in files:
        assert (b / f.relative_to(a)).read_bytes() == f.read_bytes(), f.name


@pytest.mark.parametrize("name", COMPANIONS)
def test_companion_sigterm_at_a_random_step_then_restart_equals_the_uninterrupted_run(
        tmp_path, monkeypatch, name):
    case = CASES[name]
    opts, stepper = COMPANION_RUNS[name]
    with monkeypatch.context() as m:
        count = _count_steps(m, stepper)
        full = case.run(tmp_path / "full", pictures=False, **opts)
    k = random.Random(name).randrange(3, count["n"] - 1)   # a reproducible random step
    with monkeypatch.context() as m:
        _count_steps(m, stepper, at=k)
        with pytest.raises(Interrupted) as ei:
            case.run(tmp_path / "cut", pictures=False, checkpoint_every=5, **opts)
    assert ei.value.signum == signal.SIGTERM
    assert list((tmp_path / "cut").glob("*_checkpoint.npz"))
    resumed = case.run(tmp_path / "cut", pictures=False, checkpoint_every=5,
                       restart=str(tmp_path / "cut"), **opts)
    _same_files(tmp_path / "full", tmp_path / "cut")
    assert resumed.summary == full.summary
    assert resumed.text == full.text.replace(str(tmp_path / "full"), str(tmp_path / "cut"))
    assert not _leftovers(tmp_path)


def test_companion_checkpoint_of_another_problem_is_one_line(tmp_path):
    """Another time step (Hamel), another mesh (ANCF), another case: one line naming it."""
    hamel, ancf = CASES["hamel-free-beam"], CASES["ancf-graded-cantilever"]
    hamel.run(tmp_path / "h", pictures=False, t_end=0.01, checkpoint_every=10)
    with pytest.raises(CheckpointError) as ei:
        hamel.run(tmp_path / "x", pictures=False, h=2e-4, t_end=0.01, restart=tmp_path / "h")
    assert "\n" not in str(ei.value) and "step differs" in str(ei.value)
    with pytest.raises(CheckpointError, match="settings differs"):   # adaptive or not
        hamel.run(tmp_path / "x", pictures=False, t_end=0.01, adaptive=True,
                  restart=tmp_path / "h")
    with pytest.raises(CheckpointError, match="no checkpoint ancf_graded_cantilever_lam0_n1"):
        ancf.run(tmp_path / "x", pictures=False, restart=tmp_path / "h")
    with pytest.raises(CheckpointError, match="another problem: mesh differs"):
        ancf.run(tmp_path / "x", pictures=False,
                 restart=tmp_path / "h" / "hamel_free_beam_checkpoint.npz")
    ancf.run(tmp_path / "a", pictures=False, n_elements=4, t_end=0.002, checkpoint_every=50)
    with pytest.raises(CheckpointError) as ei:
        ancf.run(tmp_path / "x", pictures=False, n_elements=5, t_end=0.002,
                 restart=tmp_path / "a")
    msg = str(ei.value)
    assert "\n" not in msg and "mesh differs" in msg and "4 elements" in msg


def test_companion_cli_restart_errors_exit_2(tmp_path):
    """As a user: a corrupt Hamel checkpoint and another step give one line and exit 2; the
    previous checkpoint (step 150 of 201) restarts to the uninterrupted result."""
    base = [sys.executable, "-m", "fxrod", "run", "hamel-free-beam", "--no-pictures",
            "--quiet", "--t-end", "0.02"]
    ref = subprocess.run(base + ["--out", str(tmp_path / "ref")], capture_output=True,
                         text=True, cwd=ROOT, timeout=300)
    assert ref.returncode == 0, ref.stderr
    cut = tmp_path / "cut"
    CASES["hamel-free-beam"].run(cut, pictures=False, t_end=0.02, checkpoint_every=75)
    newest = cut / "hamel_free_beam_checkpoint.npz"
    newest.write_bytes(newest.read_bytes()[:300])
    prev = checkpoint.previous_path(newest)
    for argv, expect in ((["--restart", str(cut)], "truncated or corrupt"),
                         (["--restart", str(prev), "--h", "5e-5"], "step differs")):
        q = subprocess.run(base + argv + ["--out", str(tmp_path / "x")], capture_output=True,
                           text=True, cwd=ROOT, timeout=300)
        assert q.returncode == 2, q.stderr
        assert q.stderr.count("\n") == 1 and expect in q.stderr, q.stderr
        assert "Traceback" not in q.stderr
    ok = subprocess.run(base + ["--out", str(cut), "--restart", str(prev)],
                        capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert ok.returncode == 0, ok.stderr
    _same_files(tmp_path / "ref", cut)


def test_ancf_adaptive_is_refused_naming_the_stable_step(tmp_path):
    with pytest.raises(ParameterError, match="adaptive.*0.9 h_critical.*2/omega_max"):
        CASES["ancf-graded-cantilever"].run(tmp_path, adaptive=True)
    assert not list(tmp_path.iterdir())          # refused before anything was computed


def test_hamel_adaptive_halves_a_failing_step_and_keeps_jd_exact(monkeypatch):
    """A node-wise solve that fails once at t = 5 h: the adaptive run retries with h/2,
    regrows to h after grow_after = 3 steps, lands on t_end; J_d stays conserved to
    round-off (theory §H5: the stress terms telescope for any step size) and equals
    theory §H7's J_d(0). Without --adaptive the failure ends the run."""
    case = demo("hamel_free_beam")

    solve = HamelBeam._solve
    failed = []

    def flaky(self, b, h):
        if self.n == 5 and not failed:
            failed.append(h)
            raise ConvergenceError(self.t, h, "DIVERGED_MAX_IT", "injected")
        return solve(self, b, h)

    monkeypatch.setattr(HamelBeam, "_solve", flaky)
    with pytest.raises(ConvergenceError, match="injected"):
        case.run_beam(case.problem(1e-4), 0.002, None)
    failed.clear()
    beam = case.problem(1e-4, adaptive=True)
    hist, _ = case.run_beam(beam, 0.002, None)
    t = hist.column("t")
    steps = np.diff(t)
    assert failed == [1e-4]
    np.testing.assert_allclose(steps[:5], 1e-4, rtol=1e-12)
    np.testing.assert_allclose(steps[5:8], 5e-5, rtol=1e-12)    # halved, 3 successes
    np.testing.assert_allclose(steps[8:-1], 1e-4, rtol=1e-9)    # regrown
    assert steps[-1] == pytest.approx(5e-5, rel=1e-9)          # landing on t_end
    assert t[-1] == pytest.approx(0.002, abs=1e-15) and len(t) == 23
    Jd = np.column_stack([hist.column(f"Jd_{k}") for k in range(1, 7)])
    assert np.abs(Jd - Jd[0]).max() <= 1e-11 * np.abs(Jd[0]).max()
    np.testing.assert_allclose(Jd[0], case.JD0_THEORY, rtol=1e-4, atol=1e-6)


@pytest.mark.mpi
def test_companions_two_rank_checkpoints_restart_serially(tmp_path):
    """Checkpoints written on 2 ranks restart on 1: Hamel from the older (inner) checkpoint
    to the serial run's files byte for byte (every rank steps the whole lattice alike);
    ANCF from the per-grading checkpoints (each grading ran serially on its rank)."""
    run_mpi(["demos/hamel_free_beam.py", "--no-pictures", "--quiet", "--t-end", "0.02",
             "--checkpoint-every", "75", "--out", str(tmp_path / "h")])
    prev = checkpoint.previous_path(tmp_path / "h" / "hamel_free_beam_checkpoint.npz")
    hamel = CASES["hamel-free-beam"]
    hamel.run(tmp_path / "hs", pictures=False, t_end=0.02)
    hamel.run(tmp_path / "h", pictures=False, t_end=0.02, restart=str(prev))
    _same_files(tmp_path / "hs", tmp_path / "h")
    opts = ["--n-elements", "4", "--t-end", "0.004"]
    run_mpi(["demos/ancf_graded_cantilever.py", "--no-pictures", "--quiet", *opts,
             "--checkpoint-every", "40", "--out", str(tmp_path / "a")])
    assert len(list((tmp_path / "a").glob("*_checkpoint.npz"))) == 5
    ancf = CASES["ancf-graded-cantilever"]
    ancf.run(tmp_path / "as", pictures=False, n_elements=4, t_end=0.004)
    ancf.run(tmp_path / "a", pictures=False, n_elements=4, t_end=0.004,
             restart=str(tmp_path / "a"))
    for f in ("ancf_graded_cantilever.csv", "ancf_graded_cantilever_release.csv"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "as" / f).read_bytes(), f


def test_errors_survive_pickling():
    """fxrod's exceptions travel between MPI ranks (pickled by mpi4py) unchanged."""
    import pickle

    from fxrod.errors import CheckpointError, ConvergenceError, OutputError, ParameterError
    from fxrod.runs.simulation import Interrupted

    for e in (ParameterError("h", -1.0, "> 0"), CheckpointError("x.npz", "truncated"),
              OutputError("a.csv", OSError(28, "No space left on device"), "kept"),
              ConvergenceError(1.0, 0.1, "DIVERGED_MAX_IT", "12 Newton iterations"),
              Interrupted(15, 2.0)):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and str(back) == str(e)
