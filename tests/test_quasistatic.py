"""Ex. 6.3 quasi-static cantilever (theory §4.3): exact planar solutions, spatial convergence,
the paper's published states, the midpoint load-stepping error, step cutting, follower
loads and constraint-set validation."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ConvergenceError, ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo
from tests.claims import assert_claim, assert_printed

#: The demos' builders (the cases' ``problem``).
quasistatic_cantilever = demo("quasistatic_cantilever").problem

TIMES = (0.1, 0.2, 0.4, 1.0)


def exact_tips(ref_dir, constrained):
    name = "elastica_constrained_tip.csv" if constrained else "reissner_unconstrained_tip.csv"
    a = np.loadtxt(ref_dir / "exact" / name, delimiter=",", skiprows=1)
    return {round(t, 6): np.array([x, y]) for t, x, y in a}


def tips(n_elements, constrained, h=0.1, evaluation="endpoint"):
    prob = quasistatic_cantilever(n_elements, constrained=constrained, evaluation=evaluation)
    integ = prob.integrator(h)
    sim = Simulation(integ)
    sim.run(1.0)
    t = sim.column("t")
    return {round(ts, 6): np.array([sim.column("tip_1")[i], sim.column("tip_2")[i]])
            for ts in TIMES for i in [int(np.argmin(np.abs(t - ts)))]}, sim


#: Tip error at t = 1 against the exact planar solution, per n_e (README, measured):
#: Reissner rod 1.59e-3, 9.86e-5, 6.16e-6, 3.85e-7; elastica 2.29e-3, 1.41e-4, 8.75e-6,
#: 5.47e-7. Asserted at 1.25x the README's rounded values.
TIP_ERRORS = {False: {8: 1.6e-3, 16: 9.9e-5, 32: 6.2e-6, 64: 3.9e-7},
              True: {8: 2.3e-3, 16: 1.4e-4, 32: 8.8e-6, 64: 5.5e-7}}


@pytest.mark.parametrize("constrained", [False, True])
def test_tip_vs_exact_and_convergence(ref_dir, constrained):
    """P2/DG1 mixed elements: the tip converges with order 4 in the element length (the
    error at t = 1 is the largest of the plotted states); observed orders 4.00-4.01."""
    ex = exact_tips(ref_dir, constrained)
    errs = {}
    for ne in (8, 16, 32, 64):
        tp, sim = tips(ne, constrained)
        errs[ne] = max(np.linalg.norm(tp[t] - ex[t]) for t in TIMES)
        assert errs[ne] == pytest.approx(np.linalg.norm(tp[1.0] - ex[1.0]), rel=1e-12)
        assert np.max(sim.column("constraint_max")) <= 1e-11
    claim = "qs-tip-elastica" if constrained else "qs-tip-reissner"
    stated = np.array(list(TIP_ERRORS[constrained].values()))
    assert_claim(claim, list(errs.values()), 1.25 * stated)
    order = np.log2(np.array([errs[8], errs[16], errs[32]]) / [errs[16], errs[32], errs[64]])
    assert_printed("qs-order", order, 0.1)


@pytest.mark.parametrize("constrained", [False, True])
def test_close_to_published_states(ref_dir, constrained):
    """The published states (17 nodes, n_e = 8, unconstrained; 33 nodes, n_e = 16,
    constrained file of a later commit) deviate from the exact solution by the spatial error
    (1.6e-3 for n_e = 8); ours at the same n_e reproduce them to 3e-4 (not to round-off:
    the paper's element details are not public)."""
    sub = "constrained_" if constrained else ""
    path = (ref_dir / "kinon2026/results/example_03_quasistatic_cantilever"
            / f"ex03_quasistatic_cantilever_{sub}results.csv")
    with open(path) as fh:
        rows = [r for r in csv.DictReader(fh)]
    tp, _ = tips((len(rows) - 1) // 2, constrained)
    for t in TIMES:
        k = int(round(10 * t))
        pub = np.array([float(rows[-1][f"x_{k}"]), float(rows[-1][f"y_{k}"])])
        assert_claim("qs-published", np.linalg.norm(tp[t] - pub), 3e-4)


def test_midpoint_load_stepping_error_is_second_order():
    """The paper's midpoint scheme with zero mass has an O(h^2) load-stepping error
    relative to the exact discrete equilibrium (endpoint evaluation)."""
    ref, _ = tips(8, True)
    e = []
    for h in (0.1, 0.05):
        tp, _ = tips(8, True, h=h, evaluation="midpoint")
        e.append(np.linalg.norm(tp[1.0] - ref[1.0]))
    assert 3.6 < e[0] / e[1] < 4.4, e


def test_step_cutting_rescues_and_minimum_step_fails():
    model = quasistatic_cantilever(8, constrained=True).model
    integ = Integrator(model, 1.0, SolverSettings(adaptive=True, max_it=5, h_min=0.1))
    sim = Simulation(integ)
    sim.run(1.0)
    h = sim.column("h")[1:]
    assert h[0] < 1.0  # the full step failed and was cut
    assert sim.rows[-1]["t"] == pytest.approx(1.0)
    model = quasistatic_cantilever(8, constrained=True).model
    integ = Integrator(model, 1.0, SolverSettings(adaptive=True, max_it=2, h_min=0.5))
    with pytest.raises(ConvergenceError, match="h_min"):
        integ.advance_to(1.0)


def test_follower_moment_gives_circular_arc():
    """A material (follower) tip moment M bends a cantilever into an arc of curvature
    M/k_b (N = 0, so it holds for the shearable, extensible rod too)."""
    L, kb = 1.0, 2.0
    sec = Section(rhoA=0, M11=0, M22=0, k_s1=10, k_s2=10, k_e=10, k_b1=kb, k_b2=kb, k_t=1)
    rod = Rod(sec, (0, 0, 0), (L, 0, 0), (0, 1, 0), 16)
    Mz = 0.5 * np.pi * kb / L  # quarter circle
    load = EndLoad("L", moment=lambda t: t * np.array([Mz, 0.0, 0.0]), follower=True)
    # material moment about d1 = e2 (global): bends in the e1-e3 plane
    model = RodModel(rod, [load], [Clamp("0")], quasistatic=True)
    integ = Integrator(model, 0.25)
    integ.advance_to(1.0)
    R = L / (np.pi / 2)
    tip = model.nodes.tip()
    assert np.linalg.norm(tip - np.array([R, 0.0, -R])) <= 1e-4 * L, tip


def test_dead_and_follower_moments_differ():
    """A dead moment is not a follower moment (sanity of the follower switch)."""
    out = []
    for follower in (False, True):
        model = quasistatic_cantilever(8, follower=follower).model
        integ = Integrator(model, 0.25, SolverSettings(adaptive=True))
        integ.advance_to(0.5)
        out.append(model.nodes.tip()[:2])
    assert np.linalg.norm(out[0] - out[1]) > 1e-2


@pytest.mark.parametrize("bad", [("shear1", "shear2", "extension", "bend1", "bend2",
                                  "torsion"), ("kirchhoff", "bend1", "bend2", "torsion"),
                                 ("bogus",)])
def test_bad_constraint_sets(bad):
    sec = Section(rhoA=1, M11=1, M22=1, k_s1=1, k_s2=1, k_e=1, k_b1=1, k_b2=1, k_t=1)
    with pytest.raises(ParameterError, match="constraints"):
        Rod(sec, (0, 0, 0), (1, 0, 0), (0, 1, 0), 4, constraints=bad)


def test_case_rejects_load_factor_outside_unit_interval():
    from fxrod.studies.cases import CASES

    with pytest.raises(ParameterError, match="t_end"):
        CASES["quasistatic-cantilever"].run("/tmp/never", t_end=1.5)
