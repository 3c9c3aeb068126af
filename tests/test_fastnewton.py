"""The small-rod fast path (fxrod.solvers.array_newton: the chain solver's Newton iteration without
SNES) against the general path (PETSc SNES newtonls with the chain preconditioner, itself
checked against MUMPS in tests/test_chain.py): the same Newton iterates and iteration
counts, and SNES wherever the fast path does not apply."""

from __future__ import annotations

import numpy as np
import pytest

import fxrod.solvers.chain as chain_module
from fxrod.runs.integrators import Integrator
from fxrod.solvers.array_newton import ArrayNewtonSolver
from fxrod.solvers.newton import NewtonSolver
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo
from tests.conftest import newton_iterates
from tests.roundoff import roundoff

#: The demos' builders (the cases' ``problem``).
flying_spaghetti = demo("flying_spaghetti").problem
cantilever_vibration = demo("cantilever_vibration").problem

#: Ex. 6.2's solver settings (full Newton to 1e-13) and fxrod's defaults (modified Newton).
EX62 = {"atol": 1e-13, "rtol": 1e-14, "jacobian_lag": 1}
CASES = {
    "flying_spaghetti_modified_newton": (lambda: flying_spaghetti(10).model, 0.1, 8, {}),
    "flying_spaghetti_full_newton": (lambda: flying_spaghetti(10).model, 0.1, 5,
                                     {"jacobian_lag": 1}),
    # refactorisations within a solve (Newton iterations 0, 2, 4, ...)
    "flying_spaghetti_lag_2": (lambda: flying_spaghetti(10).model, 0.1, 5,
                               {"jacobian_lag": 2}),
    # Ex. 6.2 with shear and extension, and Ex. 6.2 itself (Kirchhoff: the chain solver's
    # saddle-point variant, zero-compliance stresses in the vertex blocks)
    "cantilever_vibration": (lambda: cantilever_vibration(8, constraints=()).model, 1e-3, 12,
                             EX62),
    "cantilever_vibration_kirchhoff": (lambda: cantilever_vibration(8).model, 1e-3, 12, EX62),
    # the lag counted across steps (PETSc's snes_lag_jacobian_persists): steps that start
    # from the last step's factorisation
    "cantilever_vibration_kirchhoff_persists": (
        lambda: cantilever_vibration(8).model, 1e-3, 12,
        {**EX62, "jacobian_lag": 8, "jacobian_persists": True}),
}


def fast_iterates(make, h: float, steps: int, **settings):
    """Every Newton iterate (every residual evaluation) of ``steps`` fast-path steps and the
    Newton iterations of each step: ``(iterates, its, integrator)``."""
    integ = Integrator(make(), h, SolverSettings(linear_solver="chain", **settings))
    fr = integ.newton.fast_residual
    seen: list = []
    assemble = fr.assemble

    def record(x, **kw):
        seen.append(x.copy())
        return assemble(x, **kw)

    fr.assemble = record
    its = [integ.step().newton_its for _ in range(steps)]
    return np.array(seen), its, integ


@pytest.mark.exactness
@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_path_gives_the_snes_iterates(name):
    make, h, steps, settings = CASES[name]
    fast, its, integ = fast_iterates(make, h, steps, **settings)
    assert isinstance(integ.newton, ArrayNewtonSolver) and integ.newton.active
    assert integ.newton.fast_solves == steps and integ.newton.snes_solves == 0
    # the general path: a SNES monitor makes ArrayNewtonSolver hand every solve to SNES
    ref, ref_integ = newton_iterates(make, h, steps, linear_solver="chain", **settings)
    assert ref_integ.newton.fast_solves == 0 and ref_integ.newton.snes_solves == steps
    assert ref_integ.newton.chain.reason is None
    assert fast.shape == ref.shape and len(ref) == steps + sum(its)
    assert ref_integ.step_count == steps
    # measured: identical to the bit (same element tensors, factorisation and solves; only
    # the norms are summed in another order), bounded by round-off over the solves
    assert np.max(np.abs(fast - ref)) <= roundoff(np.max(np.abs(ref)), 2 * sum(its))
    assert max(its) > 1


@pytest.mark.exactness
def test_iteration_counts_and_state_equal_the_snes_path():
    """Per-step Newton iterations and the state after the steps (velocities too: v_{n+1} =
    2 (q_{n+1} - q_n)/h - v_n carries the round-off of q times 2/h)."""
    make, h, steps, settings = CASES["flying_spaghetti_modified_newton"]
    runs = []
    for fast in (True, False):
        integ = Integrator(make(), h, SolverSettings(linear_solver="chain", **settings))
        if not fast:
            integ.newton.snes.setMonitor(lambda snes, k, fnorm: None)
        its = [integ.step().newton_its for _ in range(steps)]
        runs.append((its, integ.model.w0.x.array.copy(), integ.model.v0.x.array.copy()))
        assert integ.newton.fast_solves == (steps if fast else 0)
    (its_f, w_f, v_f), (its_g, w_g, v_g) = runs
    assert its_f == its_g
    q = integ.model.space.q_map
    solves = 2 * sum(its_g)                                 # both runs
    assert np.max(np.abs(w_f - w_g)) <= roundoff(np.max(np.abs(w_g)), solves)
    assert np.max(np.abs(v_f - v_g)) <= roundoff(2.0 * np.max(np.abs(w_g[q])) / h, solves)


@pytest.mark.exactness
def test_rejected_factorisation_falls_back_to_snes_and_mumps(monkeypatch):
    """The chain solver rejects the first factorisation (a growth bound of 1e-300 fails
    every interior pivot; no zero-compliance stresses to move out): the solve goes to SNES
    (which switches to MUMPS) from the same initial iterate, and the iterates are those of
    the MUMPS path."""
    monkeypatch.setattr(chain_module, "MAX_GROWTH", 1e-300)
    make = lambda: cantilever_vibration(3, constraints=()).model  # noqa: E731
    with pytest.warns(RuntimeWarning, match="singular interior block"):
        got, integ = newton_iterates(make, 1e-3, 3, linear_solver="chain", **EX62)
    assert isinstance(integ.newton, ArrayNewtonSolver) and not integ.newton.active
    assert integ.newton.fast_solves == 0 and integ.newton.snes_solves == 3
    ref, _ = newton_iterates(make, 1e-3, 3, linear_solver="mumps", **EX62)
    assert got.shape == ref.shape
    assert np.max(np.abs(got - ref)) <= roundoff(np.max(np.abs(ref)), 2 * (len(ref) - 3))


@pytest.mark.exactness
def test_rejected_factorisation_mid_run_hands_the_solve_to_snes(monkeypatch):
    """Without a monitor: the fast path meets the rejected blocks itself (growth bound
    1e-300), restores the initial iterate and hands the solve to SNES; the steps converge
    as on the MUMPS path."""
    monkeypatch.setattr(chain_module, "MAX_GROWTH", 1e-300)
    make = lambda: cantilever_vibration(3, constraints=()).model  # noqa: E731
    with pytest.warns(RuntimeWarning, match="singular interior block"):
        _, its, integ = fast_iterates(make, 1e-3, 3, **EX62)
    assert integ.newton.fast_solves == 0 and integ.newton.snes_solves == 3
    ref = Integrator(make(), 1e-3, SolverSettings(linear_solver="mumps", **EX62))
    assert its == [ref.step().newton_its for _ in range(3)]
    w_ref = ref.model.w0.x.array
    assert np.max(np.abs(integ.model.w0.x.array - w_ref)) <= roundoff(np.max(np.abs(w_ref)),
                                                                       2 * sum(its))


def test_where_the_fast_path_does_not_apply():
    """MUMPS keeps the plain SNES solver; a line search other than basic and a chain solver
    without fast assembly go to SNES."""
    integ = Integrator(flying_spaghetti(2).model, 0.1, SolverSettings(linear_solver="mumps"))
    assert type(integ.newton) is NewtonSolver
    integ = Integrator(flying_spaghetti(4).model, 0.1,     # "auto": the chain
                       SolverSettings(linear_solver="auto"))
    integ.step()
    assert integ.newton.active and (integ.newton.fast_solves, integ.newton.snes_solves) == (1, 0)
    integ.newton.solve(linesearch="bt")  # the last retry of a failing step
    assert (integ.newton.fast_solves, integ.newton.snes_solves) == (1, 1)
    integ = Integrator(flying_spaghetti(2).model, 0.1,        # "auto": SNES and MUMPS
                       SolverSettings(linear_solver="auto", fast_assembly=False))
    assert not integ.newton.active
    assert integ.step().newton_its > 0 and integ.newton.snes_solves == 1


def test_persisting_lag_reuses_factorisations_across_steps():
    """``jacobian_persists``: Ex. 6.2's steps start from the last step's factorisation until
    the Newton iterations counted since it reach the lag, so there are fewer Jacobians
    than steps; each step still solves to the tolerances, so the motion is the one with a
    Jacobian per step to the Newton tolerance."""
    runs = {}
    for persists in (False, True):
        prob = cantilever_vibration(8)
        integ = prob.integrator(jacobian_lag=8, jacobian_persists=persists,
                                linear_solver="chain")
        newton, built = integ.newton, []

        def counted(factor=newton._factor, built=built):
            built.append(1)
            return factor()

        newton._factor = counted
        its = [integ.step().newton_its for _ in range(40)]
        runs[persists] = (len(built), sum(its), prob.model.nodes.tip())
    (jac0, its0, tip0), (jac1, its1, tip1) = runs[False], runs[True]
    assert jac0 == 40 and jac1 <= 30 and its1 > its0       # measured: 26 Jacobians
    assert np.max(np.abs(tip1 - tip0)) <= 1e-12           # measured: 4e-14 m
