"""The code of the getting-started page runs as printed and does what its text says (issue 40,
item 2): the cantilever's tip force follows the tip's rotation and pushes the tip down,
across the rod.

A follower load's components are in the director frame ``(d1, d2, d3)``. The page once wrote
``(0, 0, -5)``: along ``-d3``, an axial compression, and the tip moved as under gravity
alone. The reference here is the same run with the dead force ``(0, 0, -5)`` N: while the
tip turns by a small angle theta the two loads differ by the force turned by theta, whose
effect on the deflection is second order, ``|z_follower - z_dead| <= theta^2 max|z|``, with
the cantilever's tip slope ``theta <= 1.5 max|z| / L`` (tip load: ``PL^2/2EI`` over
``PL^3/3EI``; a distributed load gives 1.33).
"""

from __future__ import annotations

import re

import numpy as np

from tests.conftest import ROOT

PAGE = ROOT / "docs" / "getting-started.md"
FOLLOWER = "force=lambda t: (0, -5.0 * min(t / 0.1, 1.0), 0), follower=True"
DEAD = "force=lambda t: (0, 0, -5.0 * min(t / 0.1, 1.0))"


def python_blocks(path) -> list[str]:
    """The fenced ``python`` code blocks of a Markdown file, in order."""
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), re.S | re.M)


def run_block(code: str) -> dict:
    """Execute ``code`` as a script; its globals after the run."""
    namespace: dict = {"__name__": "__main__"}
    exec(compile(code, str(PAGE), "exec"), namespace)
    return namespace


def test_first_script_tip_force_is_transverse(tmp_path, monkeypatch, capsys):
    [code] = python_blocks(PAGE)
    assert FOLLOWER in code
    monkeypatch.chdir(tmp_path)
    follower = run_block(code)["sim"]
    assert "tip at t = 0.2 s [m]:" in capsys.readouterr().out
    assert (tmp_path / "results" / "first" / "first.csv").is_file()
    dead = run_block(code.replace(FOLLOWER, DEAD))["sim"]
    z, z_dead = follower.column("tip_3"), dead.column("tip_3")
    reach = np.max(np.abs(z_dead))
    theta = 1.5 * reach / 1.0                              # L = 1 m
    assert np.max(np.abs(z - z_dead)) <= theta**2 * reach
    # the force bends the rod: more than gravity alone (its static tip: qL^4/8EI = 7.3 mm)
    EI = 210e9 * np.pi * 0.005**4 / 4
    q = 7850.0 * np.pi * 0.005**2 * 9.81
    assert z[-1] < -2.0 * q / (8 * EI)
