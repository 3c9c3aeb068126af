"""CLI, ParaView output, pictures and the MPI parameter sweep (issue 9)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from fxrod.io import read_csv
from tests.conftest import ROOT, assert_picture, run_mpi


def fxrod_cli(*args, check=True):
    p = subprocess.run([sys.executable, "-m", "fxrod", *args], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    if check:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def fs_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("fs")
    fxrod_cli("run", "flying-spaghetti", "--out", str(out), "--quick")
    return out


def test_run_writes_csv_png_gif_paraview(fs_out):
    for f in ("flying_spaghetti.csv", "flying_spaghetti.png", "flying_spaghetti.gif",
              "flying_spaghetti.pvd"):
        assert (fs_out / f).stat().st_size > 0, f
    assert assert_picture(fs_out / "flying_spaghetti.png") == (1024, 768)
    from PIL import Image

    with Image.open(fs_out / "flying_spaghetti.gif") as im:
        assert im.format == "GIF" and im.n_frames > 10
    d = read_csv(fs_out / "flying_spaghetti.csv")
    assert d["t"][-1] == pytest.approx(5.0)


def test_paraview_series_matches_solver_state(fs_out):
    """Read the series back (pyvista reads the .vtp files): the last frame's points are the
    solver's P2 nodes."""
    from fxrod.examples import PAPER_SETTINGS, flying_spaghetti
    from fxrod.integrators import Integrator
    from fxrod.paraview import read_pvd

    series = read_pvd(fs_out / "flying_spaghetti.pvd")
    assert len(series) == 51
    t_last, pts = series[-1]
    assert t_last == pytest.approx(5.0)
    model = flying_spaghetti(10).model
    integ = Integrator(model, 0.1, PAPER_SETTINGS)
    integ.advance_to(5.0)
    s, q = integ.model.nodes.gather_nodes()
    # sampled at 8 points per element: every 4th sample is a P2 node
    assert np.max(np.abs(pts[::4] - q[:, :3])) <= 1e-10
    d3 = read_pvd(fs_out / "flying_spaghetti.pvd", field="d3")[-1][1]
    assert np.max(np.abs(d3[::4] - q[:, 9:12])) <= 1e-10


def test_plot_and_view(fs_out, tmp_path):
    fxrod_cli("plot", str(fs_out / "flying_spaghetti.csv"), "--out", str(tmp_path / "p.png"))
    assert_picture(tmp_path / "p.png")
    fxrod_cli("view", str(fs_out), "--frames", "8")
    assert_picture(fs_out / "flying_spaghetti_view.png")
    assert (fs_out / "flying_spaghetti_view.gif").stat().st_size > 0


def test_list_and_info():
    out = fxrod_cli("list").stdout
    for name in ("flying-spaghetti", "cantilever-vibration", "quasistatic-cantilever"):
        assert name in out
    info = fxrod_cli("info").stdout
    assert "DOLFINx 0.11" in info and "PETSc 3." in info and "size 1" in info
    assert "fast Jacobian assembly: available" in info


@pytest.mark.parametrize("args,needle", [
    (("run", "no-such-demo"), "unknown demo"),
    (("run", "flying-spaghetti", "--out", "/proc/fxrod-cannot-write"), "out"),
    (("plot", "pyproject.toml"), "column"),
    (("plot", "missing.csv"), "no such CSV"),
])
def test_cli_errors_are_one_line(args, needle):
    p = fxrod_cli(*args, check=False)
    assert p.returncode == 2
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fxrod: error:") and needle in err[0], p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.mpi
def test_sweep_on_two_ranks(tmp_path):
    from fxrod.sweep import run_sweep

    serial = run_sweep("cantilever-impulse", [0.5, 1.0], tmp_path / "s", t_end=0.06)
    run_mpi(["-m", "fxrod", "sweep", "cantilever-impulse", "--values", "0.5,1.0",
             "--t-end", "0.06", "--out", str(tmp_path / "m")])
    par = read_csv(tmp_path / "m" / "sweep_cantilever-impulse.csv")
    for i, r in enumerate(serial):
        assert par["H_end"][i] == pytest.approx(r["H_end"], rel=1e-10)
        assert par["max_tip_deflection"][i] == pytest.approx(r["max_tip_deflection"], rel=1e-10)
    # energy after the pulse scales with the impulse squared (small-amplitude check)
    assert serial[0]["H_end"] / serial[1]["H_end"] == pytest.approx(0.25, rel=0.02)


def test_progress_bar_quiet_without_terminal(capsys):
    from mpi4py import MPI

    from fxrod.simulation import Progress

    p = Progress(1.0, MPI.COMM_WORLD)
    p.update(0.5, 0.1, 3)
    p.close()
    assert capsys.readouterr().err == ""
