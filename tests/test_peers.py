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


@pytest.mark.parametrize("load", ["tip force", "tip moment", "tip twist"])
def test_mujoco_rod_statics_against_the_discrete_elastic_rod(load):
    """bench/peers.py's MuJoCo rod (its 1D flex, a discrete elastic rod clamped by a ghost
    edge) under a small static end load, settled by its Rayleigh damping, against the closed
    forms of that discretisation with n edges of length l = L/n: the vertex rotations
    ``phi_i = M_i l / EI`` at x_i = i l (i = 0..n-1) give a tip deflection
    ``F L^3 / (3 EI) (1 + 1/n) (1 + 1/(2n))`` under a tip force and ``M L^2 / (2 EI) (1 + 1/n)``
    under a tip moment, and the twist of the tip edge is the beam's ``M L / GJ`` exactly. This
    checks the model's masses-free parts (stiffness, clamp, the load split of
    ``mujoco_end_load``). The deflection is 4e-4 L, so the geometric nonlinearity is of order
    (4e-4)^2 ~ 2e-7 of it; the tolerance is 1e-6."""
    pytest.importorskip("mujoco")
    import mujoco

    peers = _peers()
    a = peers.ALUMINIUM
    E, L, r = a["E"], a["L"], a["r"]
    EI = E * np.pi * r**4 / 4
    GJ = E / (2 * (1 + a["nu"])) * np.pi * r**4 / 2
    n, mag = 10, 1e-3
    force = np.array([0.0, mag, 0.0]) if load == "tip force" else np.zeros(3)
    moment = {"tip force": np.zeros(3), "tip moment": np.array([0.0, 0.0, mag]),
              "tip twist": np.array([mag, 0.0, 0.0])}[load]
    m, d, verts, twist_dof, ell = peers.mujoco_rod(n, 1e-3, damping=0.05)
    # the lumped masses: the free vertices carry the rod's mass but the clamped half edge
    assert sum(m.body_mass[v] for v in verts) == pytest.approx(
        a["rho"] * np.pi * r * r * L * (1 - 1 / (2 * n)), rel=1e-12)
    for _ in range(5000):
        peers.mujoco_end_load(d, verts, twist_dof, ell, force, moment)
        mujoco.mj_step(m, d)
    assert np.max(np.abs(d.qvel)) < 1e-9                    # settled
    if load == "tip twist":
        got = d.qpos[m.joint("rod_twist").qposadr[0]]
        expected = mag * L / GJ
    else:
        got = d.xpos[verts[-1]][1]
        expected = (mag * L**3 / (3 * EI) * (1 + 1 / n) * (1 + 1 / (2 * n))
                    if load == "tip force" else mag * L**2 / (2 * EI) * (1 + 1 / n))
    assert got == pytest.approx(expected, rel=1e-6)


def test_moordyn_decay_line_is_the_demos_line(tmp_path, monkeypatch):
    """bench/peers.py's MoorDyn line of the mooring decay (``moordyn_decay_line``) carries
    demos/mooring.py's line: every interior node weighs ``w l`` (the wet weight per length
    from the demo's mass per length, diameter, g and water density, on segments of
    ``l = L/n``), a suspended node's mass matrix is ``rhoA l I + m_a l (I - q q^T)`` with
    ``m_a = rho_w C_a pi D^2/4`` across MoorDyn's node tangent ``q`` (the unit vector between
    the neighbours: the added mass across the line only, as fxrod's AddedMass), both to
    round-off; and the fairlead driven by ``moordyn_step`` through the quintic ramp ends
    where the demo's moved clamp does (``x_f + SHIFT``), to round-off of its coordinates
    (the linear motion within a step meets the ramp at the step ends; after the ramp the
    velocity given is zero)."""
    pytest.importorskip("moordyn")
    import moordyn

    from tests.roundoff import roundoff

    peers = _peers()
    M = peers._mooring_module()
    monkeypatch.chdir(tmp_path)                      # MoorDyn writes its outputs here
    system, where, _, _ = peers.moordyn_decay_line(thresh=1e-2)   # a rough static state
    try:
        line, point = moordyn.GetLine(system, 1), moordyn.GetPoint(system, 2)
        n, ell = M.DECAY_ELEMENTS, M.LENGTH / M.DECAY_ELEMENTS
        for i in range(1, n):
            W = np.asarray(moordyn.GetLineNodeWeight(line, i))
            assert np.abs(W - [0.0, 0.0, -M.WET_WEIGHT * ell]).max() <= roundoff(
                M.RHO_A * M.G * ell)
        i = 3 * n // 4                               # in the suspended part
        q = np.subtract(moordyn.GetLineNodePos(line, i + 1), moordyn.GetLineNodePos(line, i - 1))
        q /= np.linalg.norm(q)
        assert q[2] > 0.3                            # suspended: the tangent rises
        m_a = M.RHO_W * M.C_A * np.pi * M.DIAMETER ** 2 / 4
        expected = M.RHO_A * ell * np.eye(3) + m_a * ell * (np.eye(3) - np.outer(q, q))
        assert np.abs(np.asarray(moordyn.GetLineNodeM(line, i)) - expected).max() <= roundoff(
            (M.RHO_A + m_a) * ell)
        h, steps = M.DECAY_H, int(round((M.RAMP + 0.5) / M.DECAY_H))
        for k in range(steps):
            peers.moordyn_step(system, where, k * h, h)
        end = np.asarray(moordyn.GetPointPos(point))
        assert end[0] == pytest.approx(peers._fairlead(M)[0] + M.SHIFT, abs=roundoff(end[0]))
        assert np.asarray(where(steps * h)) == pytest.approx(end, abs=roundoff(end[0]))
    finally:
        moordyn.Close(system)
