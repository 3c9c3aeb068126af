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

from fxrod import checkpoint
from fxrod.cases import CASES
from fxrod.errors import CheckpointError, OutputError, ParameterError
from fxrod.examples import PAPER_SETTINGS, flying_spaghetti
from fxrod.integrators import Integrator
from fxrod.io import CSVWriter, read_csv
from fxrod.paraview import PVDWriter
from fxrod.simulation import Interrupted, Simulation
from tests.conftest import ROOT, run_mpi

#: The cases stepped by the Integrator (checkpoint, restart, adaptive options).
STEPPED = [n for n, c in CASES.items() if any(o.name == "restart" for o in c.options)]


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
    model = flying_spaghetti(ne).model
    return Simulation(Integrator(model, 0.1, PAPER_SETTINGS), out, "fs",
                      checkpoint_every=every, restart=restart, paraview_every=paraview_every)


def test_mismatched_checkpoint_is_refused_naming_what_differs(tmp_path):
    _fs_sim(tmp_path, ne=4).run(0.6)
    with pytest.raises(CheckpointError) as ei:
        _fs_sim(tmp_path / "b", ne=5, restart=tmp_path)
    msg = str(ei.value)
    assert "\n" not in msg and "mesh differs" in msg and "4 elements" in msg
    model = flying_spaghetti(4).model        # other step: named too
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


def test_read_only_output_directory_is_one_line(tiny_tmpfs):
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], check=True)
    with pytest.raises(ParameterError, match="writable directory.*Read-only"):
        _fs_sim(tiny_tmpfs / "out")
    p = subprocess.run([sys.executable, "-m", "fxrod", "run", "bend45", "--quick",
                        "--no-pictures", "--out", str(tiny_tmpfs / "out")],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "Read-only file system" in p.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_directory_made_read_only_mid_run(tmp_path, monkeypatch):
    out = tmp_path / "ro"
    record = Simulation._record

    def wrapped(self, res=None):
        if self.integ.step_count == 4:
            out.chmod(0o555)
        record(self, res)

    monkeypatch.setattr(Simulation, "_record", wrapped)
    try:
        with pytest.raises(OutputError, match="Permission denied"):
            _fs_sim(out).run(1.0)
    finally:
        out.chmod(0o755)
    assert _complete_rows(out / "fs.csv") == 5
    assert not _leftovers(tmp_path)
