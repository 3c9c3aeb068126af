"""The README's Python examples run as written (in a scratch directory) and print what the
README says they print."""

from __future__ import annotations

import contextlib
import io
import os
import re

import numpy as np

from tests.conftest import ROOT


def test_readme_python_blocks(tmp_path):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 2
    ns: dict = {}
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(out):
            for code in blocks:
                exec(compile(code, "README.md", "exec"), ns)   # noqa: S102
    finally:
        os.chdir(cwd)
    assert (tmp_path / "results" / "mine" / "spaghetti.csv").is_file()
    assert (tmp_path / "results" / "contact" / "drop_contact.pvd").is_file()
    assert min(ns["drop"].column("contact_gap_min")) < 0.0       # it hit the ground
    assert out.getvalue().strip()          # the tip was printed
    np.testing.assert_allclose(ns["model"].nodes.tip(), [47.15, 15.69, 53.48], atol=0.01)
    # the L-frame against linear frame theory (as in tests/test_structures.py)
    sec, P, a, b = ns["sec"], 1e-4, 1.0, 0.8
    drop = (P * b**3 / (3 * sec.k_b1) + P * b**2 * a / sec.k_b1 + P * a / sec.k_e
            + P * b / sec.k_s1)
    shift = P * b * a**2 / (2 * sec.k_b1)
    tip = ns["frame_model"].nodes.tip()
    np.testing.assert_allclose([tip[0] - b, a - tip[2]], [shift, drop], rtol=1e-3)
    np.testing.assert_allclose(tip, [0.8000318, 0.0, 0.9999355], atol=1e-7)  # as printed
