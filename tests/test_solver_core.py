"""The solver core's single places: MUMPS configured in one module with the settings of the
run, the step size written by the model only, the model's terms outside UFL handed to every
solver, the model's step protocol (velocity update (42a))."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from fxrod.analysis.adjoint import Adjoint, SectionParameters, TipTracking
from fxrod.analysis.continuation import Continuation
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo
from tests.roundoff import roundoff

deep_arch = demo("deep_arch")

PACKAGE = Path(__file__).resolve().parents[1] / "fxrod"
SEC = Section.circular(0.01, E=1e9, nu=0.3, rho=1e3)


def _sources() -> dict[str, str]:
    return {str(p.relative_to(PACKAGE)): p.read_text() for p in PACKAGE.rglob("*.py")}


def test_mumps_is_configured_in_one_module():
    """Only fxrod/solvers/mumps.py names MUMPS's PETSc options, factor type or ICNTL setters."""
    pattern = re.compile(r'setFactorSolverType|mat_mumps_icntl|setMumpsIcntl|'
                         r'"pc_factor_mat_solver_type"|getMumpsInfog')
    found = sorted(name for name, text in _sources().items() if pattern.search(text))
    assert found == ["solvers/mumps.py"]


def test_the_step_size_is_written_by_the_model_only():
    """``h`` (and ``theta``) of the residual are set by RodModel.begin_step/end_point."""
    pattern = re.compile(r"\.(h|theta)\.value\s*(\[[^\]]*\])?\s*=(?!=)")
    found = sorted(name for name, text in _sources().items() if pattern.search(text))
    assert found == ["core/model.py"]


def test_continuation_and_adjoint_factorise_with_the_runs_settings():
    """The continuation's LDL^T and the adjoint's transpose solves take the ICNTL values of
    the SolverSettings they are given (the continuation's were hard-coded)."""
    solver = SolverSettings(mumps_icntl={14: 345})
    cont = Continuation(deep_arch.model(8), solver=solver)
    cont.linear.factorise()
    factor = cont.linear.direct.ksp.getPC().getFactorMatrix()
    assert factor.getMumpsIcntl(14) == 345 and factor.getMumpsIcntl(7) == 6
    assert factor.getMumpsIcntl(13) == 1            # the inertia on the root node too
    with pytest.raises(ParameterError, match="solver"):
        Continuation(deep_arch.model(8), solver={"mumps_icntl": {14: 345}})

    rod = Rod(SEC, (0, 0, 0), (1, 0, 0), (0, 1, 0), 4)
    model = RodModel(rod, [], [Clamp("0")])
    integ = Integrator(model, 1e-3, SolverSettings(mumps_icntl={14: 77}))
    assert model.solver_settings is integ.settings
    adj = Adjoint(integ, 2e-3, TipTracking(lambda t: (1.0, 0.0, 0.0)),
                  [SectionParameters(model, ("E",), E=1e9, G=1e9 / 2.6, rho=1e3,
                                     radius=0.01)])
    assert adj.direct.icntl[14] == 77


def test_terms_outside_ufl_are_checked_when_added():
    rod = Rod(SEC, (0, 0, 0), (1, 0, 0), (0, 1, 0), 4)
    model = RodModel(rod, [], [Clamp("0")])
    assert model.nonlocal_terms == []
    with pytest.raises(ParameterError, match="term.*add_residual"):
        model.add_nonlocal(object())


def test_finish_step_is_the_midpoint_velocity_update():
    """A free rod in uniform motion (no loads): the step keeps the velocity, moves every
    node by h v (exact for the midpoint rule) and finish_step returns the increments."""
    rod = Rod(SEC, (0, 0, 0), (1, 0, 0), (0, 1, 0), 4)
    model = RodModel(rod)
    v = np.array([0.3, -0.2, 0.5])
    model.set_velocity(v)
    x0 = model.w0.x.array[model.space.q_map].reshape(-1, 12)[:, :3].copy()
    h = 0.01
    model.begin_step(0.0, h)
    assert float(model.h.value) == h
    model.w.x.array[:] = model.w0.x.array
    model.w.x.array[model.space.q_map] += h * model.v0.x.array        # the exact step
    dw, dv = model.finish_step()
    x1 = model.w0.x.array[model.space.q_map].reshape(-1, 12)[:, :3]
    assert np.abs(x1 - x0 - h * v).max() <= roundoff(1.0)
    vel = model.v0.x.array.reshape(-1, 12)[:, :3]
    # (42a) divides the round-off of positions of size |x| <= 1 m by h/2
    assert np.abs(vel - v).max() <= roundoff(2.0 * 1.0 / h)
    assert np.abs(dv).max() <= roundoff(2.0 * 1.0 / h)
    assert np.abs(dw[model.space.q_map].reshape(-1, 12)[:, :3] - h * v).max() <= roundoff(1.0)


def test_a_loaded_free_quasi_static_model_says_it_has_no_supports():
    """A quasi-static model without supports or extensions under a load has no determined
    equilibrium (rigid motions): the failed step says so instead of only a Newton or MUMPS
    reason. Unloaded it stays at rest (tests/test_curved.py), and its modes (rigid ones
    included) remain available."""
    from fxrod.core.geometry import Circle
    from fxrod.core.loads import Gravity
    from fxrod.errors import ConvergenceError

    ring = RodModel(Rod(SEC, curve=Circle(0.5), n_elements=8), [Gravity()], quasistatic=True)
    with pytest.raises(ConvergenceError, match="the model has no supports"):
        Integrator(ring, 0.1, SolverSettings(adaptive=False)).step()
    with pytest.raises(ConvergenceError, match="h_min.*the model has no supports"):
        Integrator(ring, 0.1, SolverSettings(adaptive=True)).step()


def _flight(x0: float, steps: int) -> list[tuple[np.ndarray, float]]:
    """A free spinning rod under gravity starting at x = x0 [m], default settings: the
    nodal q (x shifted back by x0) and H after each step."""
    from fxrod.core.loads import Gravity

    model = RodModel(Rod(SEC, (x0, 0, 0), (x0 + 1, 0, 0), (0, 1, 0), 8), [Gravity()])
    model.set_velocity((0.0, 0.0, 1.0), (0.0, 3.0, 0.5))
    integ = Integrator(model, 0.01)
    out = []
    for _ in range(steps):
        integ.step()
        q = model.q_nodal_local().copy()
        q[:, 0] -= x0
        out.append((q, model.ledger.current()["H"]))
    return out


def test_a_rod_far_from_the_origin_converges_at_the_roundoff_floor():
    """12 km from the origin the residual's round-off (eps |q| rhoA l / h ~ 1e-11) lies above
    atol = 1e-12: full Newton stops at that floor (ConvergenceTest) instead of running out
    of iterations (the run needed a hand-set stol). The flight equals the one at the origin
    shifted by 12 km within the round-off model: positions c eps x0 per step; directors
    c eps x0 / l_e per step (they follow the strains, differences of positions of size x0
    over an element l_e); H c eps m |v| x0 / h per step."""
    x0, steps = 12000.0, 10
    near, far = _flight(0.0, steps), _flight(x0, steps)
    m, v = SEC.rhoA * 1.0, 4.0                       # mass [kg], speeds below 4 m/s
    for k, ((qa, Ha), (qb, Hb)) in enumerate(zip(near, far, strict=True), start=1):
        assert np.abs(qa[:, :3] - qb[:, :3]).max() <= roundoff(x0, k)
        assert np.abs(qa[:, 3:] - qb[:, 3:]).max() <= roundoff(x0 / (1.0 / 8), k)
        assert abs(Ha - Hb) <= roundoff(m * v * x0 / 0.01, k)
