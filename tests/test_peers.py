"""bench/peers.py's models against the peers themselves (skipped when a peer is not
installed: ``pip install .[peers]``).

Exudyn's ``ObjectANCFCable2D`` (C++, generalized-alpha with spectral radius 1, i.e. the
trapezoidal rule) and fxrod's ANCF companion (the energy-consistent midpoint step) are
independent codes for the same cubic-Hermite cable with Gerstmayr's axial strain; both
steppers are second order and coincide for linear problems, so the steel cantilever
released under gravity (tip deflection up to 2.8 mm, geometrically nearly linear) must give
the same tip history.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from tests.claims import assert_claim
from tests.conftest import ROOT


def _peers():
    spec = importlib.util.spec_from_file_location("peers", ROOT / "bench" / "peers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("n_e", [10, 40])
def test_ancf_release_matches_exudyn(n_e):
    pytest.importorskip("exudyn")
    peers = _peers()
    _, ours = peers.fxrod_ancf(n_e, 300)
    _, theirs = peers.exudyn_ancf(n_e)
    assert ours.shape == theirs.shape == (301, 2)
    assert np.max(np.abs(theirs[:, 1])) > 2e-3  # the tip does swing (2.8 mm)
    # measured: 1.3e-10 m (10 elements), 9.2e-10 m (40)
    assert_claim("peers-ancf-exudyn", peers.max_distance(ours, theirs), 3e-9)


def test_cantilever_data_and_distance():
    peers = _peers()
    t, tip = peers.cantilever_data(0.3)
    assert t.size == 301 and t[-1] == pytest.approx(0.3)
    assert np.allclose(tip[0], [1.0, 0.0, 0.0])
    assert peers.max_distance(tip, tip + [0.0, 3e-3, 4e-3]) == pytest.approx(5e-3)
