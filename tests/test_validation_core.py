"""Bad input to the core Cosserat API raises a ParameterError naming the parameter, before
any form is compiled; a failing Newton step raises ConvergenceError with t, h, reason."""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.core.loads import EndLoad
from fxrod.core.rod import Rod, Section
from fxrod.errors import ConvergenceError, ParameterError
from fxrod.problems.paper import flying_spaghetti_section
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo

SEC = dict(rhoA=1, M11=1, M22=1, k_s1=1, k_s2=1, k_e=1, k_b1=1, k_b2=1, k_t=1)


@pytest.mark.parametrize("kwargs,name", [
    (dict(start=(0, 0, 0), end=(0, 0, 0)), "length"),
    (dict(n_elements=0), "n_elements"),
    (dict(n_elements=2.5), "n_elements"),
    (dict(d1=(2, 0, 0)), "d1"),            # parallel to the axis: not orthonormal
    (dict(d1=(0.1, 1, 0)), "d1"),          # not orthogonal to end - start
    (dict(d1=(0, 0, 0)), "d1"),
    (dict(start=(0, np.nan, 0)), "start"),
])
def test_rod_rejects(kwargs, name):
    base = dict(section=Section(**SEC), start=(0, 0, 0), end=(1, 0, 0), d1=(0, 1, 0),
                n_elements=4)
    base.update(kwargs)
    with pytest.raises(ParameterError, match=name):
        Rod(**base)


@pytest.mark.parametrize("field,value", [("k_e", -1.0), ("k_b1", 0.0), ("rhoA", -1.0),
                                         ("M11", -2.0), ("k_t", np.inf)])
def test_section_rejects(field, value):
    kw = dict(SEC)
    kw[field] = value
    with pytest.raises(ParameterError, match=field):
        Section(**kw)


@pytest.mark.parametrize("kwargs,name", [
    (dict(radius=-1.0, E=1.0, rho=1.0, nu=0.3), "radius"),
    (dict(radius=1.0, E=1.0, rho=1.0, nu=0.7), "nu"),
    (dict(radius=1.0, E=1.0, rho=1.0), "G/nu"),
])
def test_circular_section_rejects(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        Section.circular(**kwargs)


def test_step_and_end_time_rejected():
    model = demo("flying_spaghetti").problem(2).model
    for h in (0.0, -0.1, np.nan):
        with pytest.raises(ParameterError, match="h"):
            Integrator(model, h)
    integ = Integrator(model, 0.1)
    with pytest.raises(ParameterError, match="t_end"):
        integ.advance_to(-1.0)


def test_load_rejects_bad_vectors():
    with pytest.raises(ParameterError, match="force"):
        EndLoad("L", force=(1.0, 2.0))
    with pytest.raises(ParameterError, match="end"):
        EndLoad("middle", force=(1.0, 2.0, 3.0))
    with pytest.raises(ParameterError, match="force/moment"):
        EndLoad("L")


def test_snes_failure_reports_t_h_reason():
    model = demo("flying_spaghetti").problem(4).model
    w0, v0 = model.w0.x.array.copy(), model.v0.x.array.copy()
    integ = Integrator(model, 2.5, SolverSettings(max_it=1))
    with pytest.raises(ConvergenceError) as ei:
        integ.advance_to(5.0)
    err = ei.value
    assert err.t == 0.0 and err.h == 2.5 and "DIVERGED" in err.reason
    # the state is unchanged (time, configuration, stresses, velocity, ledger) ...
    assert integ.t == 0.0 and integ.step_count == 0
    assert np.array_equal(model.w0.x.array, w0) and np.array_equal(model.v0.x.array, v0)
    assert np.array_equal(model.w.x.array, w0) and model.ledger.totals["external_work"] == 0.0
    # ... so a smaller step works from t = 0 and gives the loaded state of a fresh model
    integ2 = Integrator(model, 0.5)
    integ2.advance_to(0.5)
    assert integ2.t == 0.5
    fresh = demo("flying_spaghetti").problem(4).model
    Integrator(fresh, 0.5).advance_to(0.5)
    assert np.array_equal(model.w0.x.array, fresh.w0.x.array)


def test_section_helpers_values():
    s = flying_spaghetti_section()
    assert s.stiffness.tolist() == [1e4, 1e4, 1e4, 1e3, 1e3, 1e3]
    c = Section.circular(radius=2e-3, E=7.2e10, rho=2850.0, nu=0.35)
    assert c.k_b1 == pytest.approx(0.9047786842, rel=1e-9)
    assert c.k_t == pytest.approx(0.6702064328, rel=1e-9)
    assert c.rhoA == pytest.approx(0.03581415625, rel=1e-9)
    r = Section.rectangular(width=0.02, height=0.01, E=2e11, rho=7850.0, nu=0.3)
    assert r.k_b1 == pytest.approx(2e11 * 0.02 * 0.01**3 / 12)
    assert r.M22 == pytest.approx(7850.0 * 0.02 * 0.01**3 / 12)
