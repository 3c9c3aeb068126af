"""Ensembles (issue 22): N rods stepped together in one model with the chain solver give,
member by member, the separate single-rod runs of the general path (MUMPS).

Reference: each member run alone as a plain :class:`fxrod.core.model.RodModel` with its load
factor in the load's own time function (and its own uniform section), solved with MUMPS.
Full Newton in both runs (``jacobian_lag=1``): each converged iterate is the discrete
solution to round-off, so the two agree to round-off (tests/roundoff.py, both runs' steps)
although their Newton iterations stop on different residual norms (one member against all
of them).
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.loads import DistributedLoad, EndLoad, piecewise_linear_hat
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.problems.paper import flying_spaghetti_section
from fxrod.runs.ensemble import Ensemble
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo
from tests.roundoff import roundoff

FULL_NEWTON = dict(atol=1e-11, rtol=1e-14, jacobian_lag=1)


def scaled(loads, a: float) -> list:
    """The template loads with the factor ``a`` in their time functions."""
    def times_a(f):
        return lambda t: a * np.asarray(f(t), dtype=float)

    out = []
    for ld in loads:
        kw = {k: times_a(getattr(ld, k)) for k in ("force", "moment")
              if getattr(ld, k) is not None}
        out.append(EndLoad(ld.end, follower=ld.follower, **kw) if isinstance(ld, EndLoad)
                   else DistributedLoad(follower=ld.follower, **kw))
    return out


def sorted_q(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    return q[np.argsort(s, kind="stable")]


def compare(ens: Ensemble, singles: list, h: float, steps: int) -> tuple[float, float, float]:
    """Step the ensemble (chain solver) and every single model (MUMPS) ``steps`` times;
    return the largest |q| difference over all steps and nodes [m], the largest |q| of the
    single runs [m] and the largest difference of the energies relative to max(1, |H|) of
    the single run."""
    integ = ens.integrator(h, SolverSettings(linear_solver="chain", **FULL_NEWTON))
    assert integ.newton.chain is not None and integ.newton.chain.reason is None
    runs = [Integrator(m, h, SolverSettings(linear_solver="mumps", **FULL_NEWTON))
            for m in singles]
    dq = dE = scale = 0.0
    for _ in range(steps):
        integ.step()
        E = ens.energies()
        for k, (run, m) in enumerate(zip(runs, singles, strict=True)):
            run.step()
            s_ref = m.space.Q.tabulate_dof_coordinates()[:, 0]
            ref = sorted_q(s_ref, m.q_nodal_local())
            mine = sorted_q(ens.member_arclength(k), ens.member_nodes(k))
            dq = max(dq, float(np.max(np.abs(mine - ref))))
            scale = max(scale, float(np.max(np.abs(ref))))
            H = m.ledger.current()["H"]
            dE = max(dE, abs(E[k] - H) / max(1.0, abs(H)))
    return dq, scale, dE


@pytest.mark.exactness
def test_flying_spaghetti_members_equal_single_runs():
    """Four flying spaghetti (4 elements) with load factors 0.5 .. 1.5, 6 loading steps."""
    rod = Rod(flying_spaghetti_section(), start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0),
              d1=(0.0, 1.0, 0.0), n_elements=4)
    amps = [0.5, 0.8, 1.2, 1.5]
    ens = Ensemble(rod, demo("flying_spaghetti").loads(), amps)
    singles = [RodModel(rod, scaled(demo("flying_spaghetti").loads(), a)) for a in amps]
    dq, scale, dE = compare(ens, singles, 0.1, 6)
    # measured: 4e-15 m and 6e-15 (round-off of two assemblies and eliminations)
    assert dq <= roundoff(scale, 2 * 6)
    assert dE <= roundoff(1.0, 2 * 6)
    assert np.all(np.diff(ens.energies()) > 0.0)   # more load, more energy


@pytest.mark.exactness
def test_sections_and_distributed_loads_per_member():
    """Three clamped cantilevers (3 elements), a distributed force and a follower tip
    moment, each member with its own section and factor (the non-uniform structure's
    quadrature coefficients against the single rods' Constants)."""
    def section(k_b: float, rho_a: float) -> Section:
        return Section(rhoA=rho_a, M11=0.1, M22=0.2, k_s1=2e4, k_s2=3e4, k_e=5e4,
                       k_b1=k_b, k_b2=2.0 * k_b, k_t=0.7 * k_b, radius=0.05)

    secs = [section(1e3, 1.0), section(2e3, 1.5), section(5e2, 0.8)]
    rod = Rod(secs[0], start=(0.0, 0.0, 0.0), end=(2.0, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
              n_elements=3)
    f = piecewise_linear_hat(1.0, 0.2, 0.4)
    loads = [DistributedLoad(force=lambda t: f(t) * np.array([0.0, 30.0, -50.0])),
             EndLoad("L", moment=lambda t: f(t) * np.array([0.0, 20.0, 10.0]), follower=True)]
    amps = [1.0, -0.7, 1.3]
    ens = Ensemble(rod, loads, amps, supports=[Clamp("0")], sections=secs)
    assert not ens.structure.uniform
    singles = [RodModel(Rod(s, start=(0.0, 0.0, 0.0), end=(2.0, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
                            n_elements=3), scaled(loads, a), [Clamp("0")])
               for s, a in zip(secs, amps, strict=True)]
    dq, scale, dE = compare(ens, singles, 0.05, 5)
    assert dq <= roundoff(scale, 2 * 5)
    assert dE <= roundoff(1.0, 2 * 5)


def test_tips_are_the_members_end_nodes():
    rod = Rod(flying_spaghetti_section(), start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0),
              d1=(0.0, 1.0, 0.0), n_elements=1)
    ens = Ensemble(rod, demo("flying_spaghetti").loads(), [1.0, 2.0])
    assert np.array_equal(ens.tips(), [[6.0, 0.0, 0.0]] * 2)
    assert ens.size == 2 and np.array_equal(ens.energies(), [0.0, 0.0])


@pytest.mark.parametrize("kw,name", [
    (dict(amplitudes=[]), "amplitudes"),
    (dict(amplitudes=[1.0, np.nan]), "amplitudes"),
    (dict(sections=[flying_spaghetti_section()]), "sections"),
    (dict(loads=[EndLoad("L", force=(1.0, 0.0, 0.0), rod=1)]), "loads"),
    (dict(supports=[Clamp("0", rod=1)]), "supports"),
])
def test_bad_input_is_rejected(kw, name):
    rod = Rod(flying_spaghetti_section(), start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0),
              d1=(0.0, 1.0, 0.0), n_elements=2)
    args = dict(rod=rod, loads=demo("flying_spaghetti").loads(), amplitudes=[1.0, 2.0]) | kw
    with pytest.raises(ParameterError, match=name):
        Ensemble(**args)


@pytest.mark.exactness
@pytest.mark.parametrize("linesearch", ["basic", "bt"], ids=["array-loop", "snes"])
def test_members_converge_as_they_would_alone(linesearch):
    """Each member is judged on its own rows (one convergence test on every path): on the
    chain fast path (the default ``basic`` line search: Newton's array loop) and on solves
    handed to SNES (every one with the ``bt`` line search), the ensemble takes per step the
    largest of the members' own iteration counts (single runs on the same path) instead of
    iterating until the whole vector's norm, over all members, is below atol; the members'
    states agree with the single runs to round-off (the same iterations of the same element
    arithmetic)."""
    rod = Rod(flying_spaghetti_section(), start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0),
              d1=(0.0, 1.0, 0.0), n_elements=4)
    amps = [0.5, 1.0, 1.5]
    settings = SolverSettings(linear_solver="chain", atol=1e-11, linesearch=linesearch)
    ens = Ensemble(rod, demo("flying_spaghetti").loads(), amps)
    integ = ens.integrator(0.1, settings)
    assert integ.newton.groups is not None
    singles = [RodModel(rod, scaled(demo("flying_spaghetti").loads(), a)) for a in amps]
    runs = [Integrator(m, 0.1, settings) for m in singles]
    for n in range(1, 9):
        its = integ.step().newton_its
        alone = [run.step().newton_its for run in runs]
        assert its == max(alone)
        for k, m in enumerate(singles):
            ref = sorted_q(m.space.Q.tabulate_dof_coordinates()[:, 0], m.q_nodal_local())
            mine = sorted_q(ens.member_arclength(k), ens.member_nodes(k))
            assert np.max(np.abs(mine - ref)) <= roundoff(np.max(np.abs(ref)), 2 * n)
    on_snes = integ.newton.snes_solves
    assert on_snes == (8 if linesearch == "bt" else 0)
    assert integ.newton.fast_solves == 8 - on_snes


ENSEMBLE_MPI_SCRIPT = """
import json, sys
import numpy as np
from mpi4py import MPI
from fxrod.runs.ensemble import Ensemble
from fxrod.problems.paper import flying_spaghetti_section
from fxrod.studies.cases import demo
from fxrod.core.rod import Rod
from fxrod.solvers.settings import SolverSettings

rod = Rod(flying_spaghetti_section(), start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0),
          d1=(0.0, 1.0, 0.0), n_elements=6)
ens = Ensemble(rod, demo("flying_spaghetti").loads(), [0.5, 1.0, 1.5], comm=MPI.COMM_WORLD)
default = ens.integrator(0.1).settings.linear_solver      # "mumps" on 2 ranks
integ = ens.integrator(0.1, SolverSettings(linear_solver="mumps", atol=1e-11, rtol=1e-14,
                                           jacobian_lag=1))
out = []
for _ in range(6):
    integ.step()
    out.append({"tips": ens.tips().tolist(), "H": ens.energies().tolist()})
if MPI.COMM_WORLD.rank == 0:
    json.dump({"steps": out, "default": default},
              open(sys.argv[1], "w"))
"""


@pytest.mark.mpi
def test_ensemble_on_two_ranks_equals_the_serial_ensemble(tmp_path):
    """An Ensemble under ``mpirun -n 2`` (MUMPS: the chain solver runs serially) steps like
    the serial ensemble on MUMPS: the members' tips and energies on every rank (summed over
    the ranks that own them) agree to the round-off of the steps (full Newton)."""
    import json
    import subprocess
    import sys

    from tests.conftest import run_mpi

    script = tmp_path / "ens.py"
    script.write_text(ENSEMBLE_MPI_SCRIPT)
    serial, mpi = tmp_path / "serial.json", tmp_path / "mpi.json"
    run_mpi([str(script), str(mpi)])
    subprocess.run([sys.executable, str(script), str(serial)], check=True)
    a, b = json.loads(serial.read_text()), json.loads(mpi.read_text())
    assert (a["default"], b["default"]) == ("chain", "mumps")
    for n, (sa, sb) in enumerate(zip(a["steps"], b["steps"], strict=True), start=1):
        tips_a, tips_b = np.array(sa["tips"]), np.array(sb["tips"])
        assert np.abs(tips_a).max() > 1.0                    # three distinct members
        assert np.abs(tips_b - tips_a).max() <= roundoff(np.abs(tips_a).max(), 2 * n)
        H_a, H_b = np.array(sa["H"]), np.array(sb["H"])
        assert np.all(H_a > 0) and np.abs(H_b - H_a).max() <= roundoff(H_a.max(), 2 * n)


def test_adjoint_of_an_ensemble_with_an_input_history():
    """The discrete adjoint of an ensemble whose template load is an InputHistory (the
    force acting on every member times its amplitude): the Taylor remainders of the
    gradient fall with order 2 (they fell with an AttributeError: the ensemble's load had
    no ``force`` to install the history on)."""
    from fxrod.analysis.adjoint import Adjoint, InputHistory, TipTracking, taylor_remainders

    rod = Rod(flying_spaghetti_section(), start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0),
              d1=(0.0, 1.0, 0.0), n_elements=3)
    ens = Ensemble(rod, demo("flying_spaghetti").loads(), [0.5, 1.0])
    h, steps = 0.1, 4
    knots = (np.arange(steps) + 0.5) * h                  # per-step values at t_{n+1/2}
    history = InputHistory("force", ens.model.loads[0], knots)
    adj = Adjoint(ens.integrator(h), steps * h, TipTracking(lambda t: (6.0, 0.5, 7.0)),
                  [history])
    d = np.random.default_rng(3).normal(size=history.get().size)
    r, orders = taylor_remainders(adj, d, [1e-2, 5e-3, 2.5e-3])
    assert np.all(r > 0) and np.all(np.abs(orders - 2.0) <= 0.1), (r, orders)


