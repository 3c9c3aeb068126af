"""bench/scaling.py's plan and model without running the measurements (``--dry-run``), and
the SLURM script that runs it on N ranks (``DRY_RUN=1``, without SLURM)."""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def _scaling():
    spec = importlib.util.spec_from_file_location("scaling", ROOT / "bench" / "scaling.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_dry_run_plans_every_measurement(capsys):
    """Serial chain and MUMPS runs of the long rod, both again on every further rank count,
    and the bundle on every rank count (its size growing with the ranks)."""
    out = _scaling().main(["--dry-run", "--ranks", "1,2,4", "--elements", "1000",
                           "--rods", "8"])
    assert out["plan"] == [("strong", 1, 1000, "auto"), ("strong", 1, 1000, "mumps"),
                           ("strong", 2, 1000, "auto"), ("strong", 2, 1000, "mumps"),
                           ("strong", 4, 1000, "auto"), ("strong", 4, 1000, "mumps"),
                           ("weak", 1, 8, "auto"), ("weak", 2, 16, "auto"),
                           ("weak", 4, 32, "auto")]
    lines = capsys.readouterr().out.splitlines()
    assert sum("-n 4" in ln for ln in lines) == 3 and lines[-1].startswith("model: T(p)")


def test_model_recovers_an_amdahl_machine():
    """Timings made by the model itself with known ``T_par``, ``T_seq`` are fitted back
    exactly (to round-off), and the predicted efficiency falls with p."""
    sc = _scaling()
    alpha, beta, its, t_par, t_seq = 3e-6, 2e9, 4.0, 0.9, 0.1
    t1 = t_par + t_seq
    t2 = t_par / 2 + t_seq + sc.comm_time(2, its, alpha, beta)
    m = sc.model(t1, t2, its, alpha, beta)
    assert m["T_par_s"] == pytest.approx(t_par, rel=1e-12)
    assert m["T_seq_s"] == pytest.approx(t_seq, abs=1e-12)
    eff = [m["predicted_efficiency"][str(p)] for p in (4, 8, 16, 64)]
    assert all(a > b for a, b in zip(eff, eff[1:], strict=False))
    p = 64
    expected = t1 / (p * (t_par / p + t_seq + sc.comm_time(p, its, alpha, beta)))
    assert eff[-1] == pytest.approx(expected, rel=1e-12)
    assert sc.comm_time(8, its, alpha, beta) == pytest.approx(
        its * (sc.N_REDUCTIONS * alpha * 3 + 3 * (alpha + 8 * (3 * 18**2 + 18) * 7 / beta)),
        rel=1e-12)
    assert sc.model(1.0, 1.2, its, alpha, beta).get("predicted_efficiency") is None
    assert math.isfinite(m["T_comm_2_s"])


def test_slurm_script_dry_run():
    """The batch script builds the rank list 1, 2, 4, ... up to SLURM_NTASKS and calls the
    bench (here in its dry-run mode, outside SLURM)."""
    env = {**os.environ, "SLURM_NTASKS": "8", "DRY_RUN": "1", "SLURM_SUBMIT_DIR": "/tmp",
           "FXROD_VENV": str(ROOT / ".venv") if (ROOT / ".venv").exists()
           else os.path.dirname(os.path.dirname(sys.executable))}
    p = subprocess.run(["bash", str(ROOT / "bench" / "scaling.slurm")], env=env,
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    launches = [ln for ln in p.stdout.splitlines() if "scaling.py" in ln]
    assert any("-n 8" in ln for ln in launches) and not any("-n 16" in ln for ln in launches)
