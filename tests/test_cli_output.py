"""CLI, ParaView output, pictures and the MPI parameter sweep (issue 9)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import numpy as np
import pytest

import fxrod
from fxrod.cli import build_parser
from fxrod.output.tables import read_csv
from tests.conftest import ROOT, assert_picture, assert_units_files


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
    assert_units_files(fs_out)


def test_paraview_series_matches_solver_state(fs_out):
    """Read the series back (pyvista reads the .vtp files): the last frame's points are the
    solver's P2 nodes."""
    from fxrod.output.paraview import read_pvd
    from fxrod.problems.paper import PAPER_SETTINGS
    from fxrod.runs.integrators import Integrator
    from fxrod.studies.cases import demo

    series = read_pvd(fs_out / "flying_spaghetti.pvd")
    assert len(series) == 51
    t_last, pts = series[-1]
    assert t_last == pytest.approx(5.0)
    model = demo("flying_spaghetti").problem(10).model
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
    out = fxrod_cli("view", str(fs_out), "--frames", "8").stdout
    assert_picture(fs_out / "flying_spaghetti_view.png")
    assert (fs_out / "flying_spaghetti_view.gif").stat().st_size > 0
    # 51 ParaView frames, every 6th (t = 0, 0.6, ..., 4.8 s) and the final one at t = 5 s
    assert "10 frames, t = 0 to 5)" in out, out
    from PIL import Image

    with Image.open(fs_out / "flying_spaghetti_view.gif") as im:
        assert im.n_frames == 10


def test_plot_keeps_the_demo_picture(fs_out):
    """``fxrod plot X.csv`` writes X_plot.png and leaves the demo's own X.png alone."""
    demo_png = fs_out / "flying_spaghetti.png"
    before = demo_png.read_bytes()
    out = fxrod_cli("plot", str(fs_out / "flying_spaghetti.csv")).stdout
    assert out.strip() == f"wrote {fs_out / 'flying_spaghetti_plot.png'}"
    assert_picture(fs_out / "flying_spaghetti_plot.png")
    assert demo_png.read_bytes() == before


def test_plot_shows_port_work_with_units(tmp_path):
    """An actuated run (the soft arm's chambers, no external load): the energy comes in
    through the ports. The balance panel draws H - H(0) next to port_work, and the two
    agree to the accumulated energy residual; every axis names its SI unit."""
    import matplotlib.pyplot as plt

    from fxrod.studies.cases import CASES
    from fxrod.viz import timeseries_figure

    CASES["soft-arm"].run(tmp_path, quick=True, pictures=False)
    assert_units_files(tmp_path)
    csv = tmp_path / "soft_arm_circle.csv"
    d = read_csv(csv)
    fig = timeseries_figure(csv)
    try:
        axes = {ax.get_ylabel(): ax for ax in fig.axes}
        assert all(label.endswith(("[J]", "[kg m/s]", "[kg m²/s]", "[m]")) for label in axes)
        assert fig.axes[-1].get_xlabel() == "t [s]"
        lines = {ln.get_label(): ln.get_ydata() for ln in axes["energy balance [J]"].lines}
        assert {"H - H(0)", "port_work", "external_work", "dissipated"} <= set(lines)
    finally:
        plt.close(fig)
    assert np.max(np.abs(d["external_work"])) == 0.0       # no load but the chambers
    assert lines["port_work"][-1] > 1.0                     # ~1.7 J pumped in by t = 1 s
    gap = np.abs(lines["H - H(0)"] - lines["port_work"])    # balance: dH = W_port
    assert np.max(gap) <= np.sum(np.abs(d["energy_residual"])) + 1e-12


def test_run_help_lists_the_demos():
    from fxrod.studies.cases import CASES

    out = fxrod_cli("run", "--help").stdout
    for name in CASES:
        assert name in out
    listing = fxrod_cli("list").stdout
    for name in CASES:
        assert any(line.startswith(name + " ") for line in listing.splitlines()), name
    assert "fxrod run NAME --help" in listing


def test_run_without_a_demo_says_what_to_do():
    p = fxrod_cli("run", check=False)
    assert p.returncode == 2
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and "name a demo: fxrod run NAME" in err[0], p.stderr
    assert "flying-spaghetti" in err[0] and "fxrod list" in err[0]


def test_newton_failure_is_one_line_and_a_hint(tmp_path):
    """A load far beyond what one step can carry (helix spring, 100x its force in a single
    load step): adaptive halving gives up below h_min; the CLI prints where and why it
    failed and what to try, without a traceback, and exits with 2."""
    p = fxrod_cli("run", "helix-spring", "--h", "1", "--force", "5000", "--no-pictures",
                  "--quiet", "--out", str(tmp_path), check=False)
    assert p.returncode == 2, p.stderr
    err = p.stderr.strip().splitlines()
    assert "Traceback" not in p.stderr and len(err) == 2, p.stderr
    assert err[0].startswith("fxrod: error: Newton failed at t = ") and "(step h = " in err[0]
    assert "DIVERGED" in err[0]
    assert err[1].startswith("fxrod: hint:") and "--h" in err[1]


def test_a_closed_pipe_ends_the_command_quietly():
    """``fxrod info | head -1`` with the reader gone before fxrod writes: fxrod ends as a Unix
    filter does, killed by SIGPIPE, without PETSc's error report and its exit status 15."""
    p = subprocess.Popen([sys.executable, "-m", "fxrod", "info"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait(timeout=300)
    p.stderr.close()
    assert p.returncode == -signal.SIGPIPE, (p.returncode, err)
    assert "PETSC ERROR" not in err, err


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




def test_progress_bar_quiet_without_terminal(capsys):
    from mpi4py import MPI

    from fxrod.runs.simulation import Progress

    p = Progress(1.0, MPI.COMM_WORLD)
    p.update(0.5, 0.1, 3)
    p.close()
    assert capsys.readouterr().err == ""


def test_plot_of_a_load_path(tmp_path):
    """``fxrod plot`` of a load-path CSV (``lee_frame.csv``: load, u, v; a continuation's
    path with lambda and the stability index) draws the load against the displacements."""
    from fxrod.cli import main

    s = np.linspace(0.0, 3.0, 40)
    csv = tmp_path / "lee_frame.csv"
    np.savetxt(csv, np.column_stack([np.sin(s), s, 2 * s]), delimiter=",",
               header="load,u,v", comments="")
    assert main(["plot", str(csv)]) == 0
    assert_picture(tmp_path / "lee_frame_plot.png")
    path = tmp_path / "x_path.csv"
    np.savetxt(path, np.column_stack([np.sin(s), s, (s > 1.5).astype(float), s, -s]),
               delimiter=",", header="lambda,arc_length,index,p_u1,p_u2", comments="")
    assert main(["plot", str(path)]) == 0
    assert_picture(tmp_path / "x_path_plot.png")


def test_version_and_the_front_door_passes_every_command():
    """``fxrod --version`` prints the package version; ``./fxrod.sh`` hands every command of
    the CLI through to it (issue 40, item 6)."""
    assert fxrod_cli("--version").stdout.strip() == f"fxrod {fxrod.__version__}"
    parser = build_parser()
    [sub] = [a for a in parser._actions if a.dest == "command"]
    script = (ROOT / "fxrod.sh").read_text()
    passed = re.search(r"^\s+([\w|-]+)\)\n\s+bash .*bootstrap.sh\"\n\s+exec .*-m fxrod",
                       script, re.M)
    assert passed, "fxrod.sh: no line passing commands to the CLI"
    assert set(sub.choices) <= set(passed[1].split("|")), set(sub.choices)
