"""The native boundary (fxrod/native): the C helpers build without a warning under
``-Wall -Wextra -Werror``, and run clean under AddressSanitizer and UBSan (slow tier).

* A user's build never adds ``-Werror`` (a first build must not fail on a new compiler's
  warning); ``FXROD_NATIVE_STRICT=1`` (set by ``.ci/run``) does.
* Sanitizers: a child process preloads ``libasan`` and runs every helper (the assembly and
  chain solver on the flying spaghetti, the ANCF Newton loop on a released cantilever), each
  built with ``-fsanitize=address,undefined`` and no recovery: any out-of-bounds access, use
  after free or undefined operation aborts the child with the sanitizer's report; the
  results equal the uninstrumented build's to the bit (the same arithmetic).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from fxrod import native
from tests.conftest import ROOT


def _compiler_lib(name: str) -> str | None:
    """The path of the C compiler's runtime library ``name`` (``libasan.so``), or None."""
    cc = shutil.which("gcc")
    if cc is None:
        return None
    path = subprocess.run([cc, f"-print-file-name={name}"], capture_output=True,
                          text=True).stdout.strip()
    return path if os.path.isabs(path) and os.path.exists(path) else None


def test_user_builds_never_fail_on_warnings(monkeypatch):
    monkeypatch.delenv("FXROD_NATIVE_STRICT", raising=False)
    monkeypatch.delenv("FXROD_NATIVE_SANITIZE", raising=False)
    for helper in native.HELPERS.values():
        assert not set(native.STRICT_FLAGS) & set(native.build_flags(helper))
    monkeypatch.setenv("FXROD_NATIVE_STRICT", "1")
    for helper in native.HELPERS.values():
        assert set(native.STRICT_FLAGS) <= set(native.build_flags(helper))


def test_every_helper_builds_with_warnings_as_errors(tmp_path):
    """Each helper compiles with ``-Wall -Wextra -Werror`` (a fresh cache: really built)."""
    code = "from fxrod import native\nfor n in native.HELPERS: native.load(n)\n"
    env = dict(os.environ, FXROD_NATIVE_STRICT="1", FXROD_CACHE_DIR=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]
    assert len(list(tmp_path.glob("*.so"))) == len(native.HELPERS)


RUN_ALL_HELPERS = r"""
import json
from fxrod import native
from fxrod.studies.cases import demo
from fxrod.ancf import ANCFBeam, EnergyConsistentStepper, blog_beam, default_settings

integ = demo("flying_spaghetti").problem(8).integrator()
for _ in range(5):
    integ.step()
beam = ANCFBeam(blog_beam(), 10, gravity=(0.0, -9.81))
st = EnergyConsistentStepper(beam, 1e-3, settings=default_settings(beam, fast_assembly=True))
assert st._newton.fast is not None
for _ in range(10):
    st.step()
print(json.dumps({"loaded": sorted(native._LOADED),
                  "rod": integ.model.w0.x.array.tolist(), "ancf": beam.state().tolist()}))
"""


@pytest.mark.slow
def test_helpers_clean_under_address_and_undefined_behaviour_sanitizers(tmp_path):
    asan = _compiler_lib("libasan.so")
    if asan is None:
        pytest.skip("no libasan.so beside the C compiler")
    base = dict(os.environ, FXROD_CACHE_DIR=str(tmp_path / "plain"))
    base.pop("FXROD_NATIVE_SANITIZE", None)
    san = dict(base, FXROD_CACHE_DIR=str(tmp_path / "sanitized"), FXROD_NATIVE_SANITIZE="1",
               LD_PRELOAD=asan, PYTHONMALLOC="malloc",
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    out = {}
    for name, env in (("plain", base), ("sanitized", san)):
        p = subprocess.run([sys.executable, "-c", RUN_ALL_HELPERS], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=1200)
        assert p.returncode == 0, p.stderr[-6000:]
        assert "runtime error" not in p.stderr and "AddressSanitizer" not in p.stderr
        out[name] = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["sanitized"]["loaded"] == sorted(native.HELPERS)
    for key in ("rod", "ancf"):
        assert out["sanitized"][key] == out["plain"][key]


def test_constraint_check_in_c_equals_numpy_and_keeps_nan():
    """The nodes' orthonormality residual from the C loop (``Nodes.constraint_max``) equals
    the numpy one (``nodal_constraint_max``) to the round-off of a three-term dot product
    (2 eps, plus the 1 subtracted: 64 eps bounds both), on a tumbling rod; a NaN in one
    director shows as NaN in both (a diverging state never reads as orthonormal)."""
    import numpy as np

    from fxrod.core.diagnostics import nodal_constraint_max
    from fxrod.studies.cases import demo

    integ = demo("flying_spaghetti").problem(6).integrator()
    for _ in range(4):
        integ.step()
    nodes = integ.model.nodes
    q = nodes.q_owned()
    w, q_map = integ.model.w0.x.array, integ.model.space.q_map
    w[q_map] += 1e-3 * np.random.default_rng(1).standard_normal(len(q_map))   # off SO(3)
    c, ref = nodes.constraint_max(), nodal_constraint_max(nodes.q_owned())
    assert ref > 1e-4 and abs(c - ref) <= 64 * np.finfo(float).eps * ref
    assert q.shape[0] == nodes._q_own_map.shape[0]
    w[q_map[7]] = np.nan
    assert np.isnan(nodes.constraint_max()) and np.isnan(nodal_constraint_max(nodes.q_owned()))
