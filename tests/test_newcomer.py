"""A newcomer's path, end to end: copy a demo, change its section and its load, run it, plot
its CSV and compute the modes of one's own copy (``fxrod modes copy.py:problem``); and every
demo short enough to read and copy (issue 40: 60 to 150 lines, the model in plain sight).

The copy is the helical spring (demos/helix_spring.py) with a thicker wire (radius 1.5 mm
instead of 1 mm) and a smaller force (5 N instead of 50 N). Its first load step must give
Castigliano's extension of the linear spring, computed here from the section's closed-form
stiffnesses (not from the demo's own function): for a small load the helix is a linear
spring to a few parts in a thousand (the demo's 50 N spring: 0.997 in its first step)."""

from __future__ import annotations

import csv
import math
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, assert_picture

#: Lines of a demo (issue 40): long enough to show the model, short enough to copy.
DEMO_LINES = (60, 150)
RADIUS, FORCE = 1.5e-3, 5.0                    # the newcomer's wire radius [m] and force [N]
E, NU, SHEAR = 2e11, 0.3, 0.9                  # the demo's steel and shear factor
COIL, PITCH, TURNS = 0.01, 0.004, 5.0          # the demo's helix [m, m, -]


def _castigliano(force: float) -> float:
    """Extension [m] of the linear helical spring of wire radius RADIUS under ``force``."""
    A, I = math.pi * RADIUS**2, math.pi * RADIUS**4 / 4.0
    G = E / (2.0 * (1.0 + NU))
    EA, GA, EI, GJ = E * A, SHEAR * G * A, E * I, G * 2.0 * I
    c = PITCH / (2.0 * math.pi)
    a = math.atan2(c, COIL)                     # pitch angle
    length = TURNS * 2.0 * math.pi * math.hypot(COIL, c)
    return force * length * (COIL**2 * (math.cos(a)**2 / GJ + math.sin(a)**2 / EI)
                             + math.sin(a)**2 / EA + math.cos(a)**2 / GA)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                       timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def test_copy_a_demo_change_section_and_load_plot_and_modes(tmp_path):
    source = (ROOT / "demos" / "helix_spring.py").read_text(encoding="utf-8")
    old_section = "Section.circular(radius=1e-3,"
    old_force = 'Option("force", 50.0,'
    assert old_section in source and old_force in source
    mine = tmp_path / "my_spring.py"
    mine.write_text(source.replace(old_section, f"Section.circular(radius={RADIUS!r},")
                    .replace(old_force, f'Option("force", {FORCE!r},'), encoding="utf-8")

    out = tmp_path / "out"
    _run([str(mine), "--out", str(out), "--n-elements", "16", "--h", "0.1"], tmp_path)
    with open(out / "helix_spring.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    t1 = float(rows[1]["t"])
    first = float(rows[1]["tip_3"]) - float(rows[0]["tip_3"])
    ratio = first / (t1 * _castigliano(FORCE))
    # the thick wire's small load: linear to within the geometric stiffening of one step
    assert abs(ratio - 1.0) < 5e-3, ratio

    _run(["-m", "fxrod", "plot", str(out / "helix_spring.csv")], tmp_path)
    assert_picture(out / "helix_spring_plot.png")

    modes = tmp_path / "modes"
    _run(["-m", "fxrod", "modes", f"{mine}:problem", "--n-modes", "4", "--n-elements", "16",
          "--out", str(modes), "--no-pictures"], tmp_path)
    tables = sorted(modes.glob("*mode_table.csv")) or sorted(modes.glob("*modes.csv"))
    assert tables, sorted(p.name for p in modes.iterdir())
    with open(tables[0], newline="") as f:
        table = list(csv.DictReader(f))
    freq = [float(r["frequency"]) for r in table]               # [Hz]
    assert len(freq) == 4 and all(f > 0.0 for f in freq) and freq == sorted(freq), freq


def test_every_demo_has_60_to_150_lines():
    """Every ``demos/*.py`` has :data:`DEMO_LINES` lines: its figures and shared read-outs
    live in ``fxrod.viz.figures`` and ``fxrod.problems``, the model stays in the demo."""
    lengths = {p.name: len(p.read_text(encoding="utf-8").splitlines())
               for p in sorted((ROOT / "demos").glob("*.py"))}
    assert len(lengths) >= 16
    lo, hi = DEMO_LINES
    assert {n: k for n, k in lengths.items() if not lo <= k <= hi} == {}
