"""The environment is the lock's: the venv holds exactly the versions of ``uv.lock`` and the
container's requirements are the lock's runtime packages (``./fxrod.sh lock`` writes both).

``uv sync --locked`` in the bootstrap already refuses a lock that does not match
``pyproject.toml``; these tests catch the other two ways to drift: a package installed or
upgraded by hand into ``.venv``, and a lock updated without ``docker/requirements.txt``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def _lock_drift():
    spec = importlib.util.spec_from_file_location("lock_drift", ROOT / "scripts" / "lock_drift.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_installed_versions_are_the_locked_ones(capsys):
    _lock_drift().main(str(ROOT / "uv.lock"))
    out = capsys.readouterr().out
    assert "lock drift: none" in out, out


def test_lock_knows_every_runtime_dependency():
    locked = _lock_drift().locked_versions(ROOT / "uv.lock")
    for name in ("dolfinx-solver-real", "numpy", "scipy", "pyvista", "matplotlib",
                 "imageio", "sectionproperties", "pytest", "hypothesis"):
        assert name in locked and len(locked[name]) >= 1, name


def test_container_requirements_are_the_lock_export(tmp_path):
    uv = shutil.which("uv", path=str(Path(sys.executable).parent))
    if uv is None:
        pytest.skip("uv is not in the venv (scripts/bootstrap.sh installs it)")
    out = tmp_path / "requirements.txt"
    env = dict(os.environ, UV_PYTHON_DOWNLOADS="never")
    subprocess.run([uv, "export", "--frozen", "--no-emit-project", "--no-header", "--quiet",
                    "--format", "requirements-txt", "-o", str(out)],
                   cwd=ROOT, env=env, check=True, capture_output=True, timeout=120)
    assert out.read_text() == (ROOT / "docker" / "requirements.txt").read_text(), (
        "docker/requirements.txt is not uv.lock's export: run ./fxrod.sh lock")
