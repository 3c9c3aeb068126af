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
    assert out.getvalue().strip()          # the tip was printed
    np.testing.assert_allclose(ns["model"].nodes.tip(), [47.15, 15.69, 53.48], atol=0.01)
