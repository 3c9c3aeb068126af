"""The speed-ups of issue #10 change nothing in the discrete solution beyond solver tolerance.

* The serial fast Jacobian assembly (fxrod.native.assembly) gives DOLFINx's matrix: same
  entries up to the order of additions, for every kind of model (free rod with a follower tip
  load on a facet integral, clamped Kirchhoff rod, viscoelastic and actuation extensions
  with their own fields).
* A few steps of the optimised path (fast assembly, extrapolating predictor, modified
  Newton, no MUMPS scaling) equal those of the unoptimised one (DOLFINx assembly, plain
  predictor, full Newton, MUMPS's automatic scaling) to Newton tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from dolfinx.fem.petsc import assemble_matrix, create_matrix

from fxrod.core.forms.viscoelastic import GeneralizedMaxwell
from fxrod.errors import ParameterError
from fxrod.native.assembly import KernelJacobian
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo
from tests.roundoff import roundoff

#: The demos' builders (the cases' ``problem``).
flying_spaghetti = demo("flying_spaghetti").problem
cantilever_vibration = demo("cantilever_vibration").problem
quasistatic_cantilever = demo("quasistatic_cantilever").problem

UNOPTIMISED = dict(fast_assembly=False, predictor="plain", jacobian_lag=1,
                   mumps_icntl={7: 0, 8: 77})


def viscoelastic_cantilever():
    return cantilever_vibration(4, extensions=[GeneralizedMaxwell.proportional(
        (0.75,), (0.08,))]).model


MODELS = {
    "flying_spaghetti": (lambda: flying_spaghetti(6).model, 0.1),
    "clamped_kirchhoff": (lambda: cantilever_vibration(4).model, 1e-2),
    "viscoelastic": (viscoelastic_cantilever, 1e-2),
    "soft_arm_actuation": (lambda: demo("soft_arm").problem("circle", n_elements=4).model, 1e-2),
    "quasistatic_follower": (lambda: quasistatic_cantilever(4).model, 0.1),
}


@pytest.mark.exactness
@pytest.mark.parametrize("name", sorted(MODELS))
def test_fast_jacobian_is_dolfinx_jacobian(name):
    make, h = MODELS[name]
    model = make()
    integ = Integrator(model, h, SolverSettings(linear_solver="mumps"))  # CSR assembly
    assert integ.newton.fast_jacobian is not None
    for _ in range(2):  # a deformed state with nonzero stresses and multipliers
        integ.step()
    # a generic iterate: perturb the unknown so that no entry vanishes by symmetry
    rng = np.random.default_rng(1)
    model.w.x.array[:] += 1e-3 * rng.standard_normal(model.w.x.array.size)
    model.w.x.scatter_forward()
    ref = create_matrix(integ.newton.problem.J)
    ref.zeroEntries()
    assemble_matrix(ref, integ.newton.problem.J, bcs=model.bcs, diag=1.0)
    ref.assemble()
    integ.newton.fast_jacobian.assemble()
    diff = ref.copy()
    diff.axpy(-1.0, integ.newton.fast_jacobian.A)
    assert ref.norm() > 0.0
    assert diff.norm() <= roundoff(ref.norm())
    # Dirichlet rows: unit diagonal, nothing else
    for dof in integ.newton.fast_jacobian.bc_dofs[:3]:
        cols, vals = integ.newton.fast_jacobian.A.getRow(int(dof))
        nz = vals != 0.0
        assert list(cols[nz]) == [dof] and vals[nz][0] == 1.0


@pytest.mark.parametrize("name,steps", [("flying_spaghetti", 8), ("clamped_kirchhoff", 8),
                                        ("soft_arm_actuation", 5)])
def test_optimised_steps_equal_unoptimised(name, steps):
    make, h = MODELS[name]
    runs = []
    for kw in ({}, UNOPTIMISED):
        model = make()
        integ = Integrator(model, h, SolverSettings(atol=1e-12, **kw))
        assert (integ.newton.fast_jacobian is not None) == (kw == {})
        its = 0
        for _ in range(steps):
            its += integ.step().newton_its
        runs.append((model.w0.x.array.copy(), model.v0.x.array.copy(), its))
    (w_fast, v_fast, _), (w_ref, v_ref, _) = runs
    q = make().space.q_map
    assert np.max(np.abs(w_fast[q] - w_ref[q])) <= 1e-10 * max(1.0, np.max(np.abs(w_ref[q])))
    assert np.max(np.abs(v_fast - v_ref)) <= 1e-8 * max(1.0, np.max(np.abs(v_ref)))
    assert np.max(np.abs(w_fast - w_ref)) <= 1e-8 * max(1.0, np.max(np.abs(w_ref)))


def test_extrapolating_predictor_saves_iterations():
    """Loaded flying spaghetti: fewer Newton iterations than from the plain predictor."""
    its = {}
    for pred in ("extrapolate", "plain"):
        integ = Integrator(flying_spaghetti(10).model, 0.1, SolverSettings(predictor=pred))
        its[pred] = sum(integ.step().newton_its for _ in range(20))
    assert its["extrapolate"] < its["plain"]


def test_speed_parameters_are_checked():
    with pytest.raises(ParameterError, match="predictor"):
        Integrator(flying_spaghetti(2).model, 0.1, SolverSettings(predictor="quadratic"))
    with pytest.raises(ParameterError, match="mumps_icntl"):
        Integrator(flying_spaghetti(2).model, 0.1, SolverSettings(mumps_icntl={"8": 0}))
    with pytest.raises(ParameterError, match="retry_linesearch"):
        Integrator(flying_spaghetti(2).model, 0.1, SolverSettings(retry_linesearch="backtrack"))
    with pytest.raises(ParameterError, match="linesearch"):
        Integrator(flying_spaghetti(2).model, 0.1, SolverSettings(linesearch=None))


def test_fast_path_only_where_applicable():
    model = flying_spaghetti(2).model
    integ = Integrator(model, 0.1, SolverSettings(fast_assembly=False))
    assert integ.newton.fast_jacobian is None
    assert KernelJacobian.applicable(integ.newton.problem.J, model.comm)


def test_fast_path_falls_back_with_a_warning(monkeypatch, tmp_path):
    """No writable cache for the C helper: a warning, DOLFINx's assembly, same step."""
    from fxrod import native

    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setattr(native, "_LOADED", {})
    monkeypatch.setenv("FXROD_CACHE_DIR", str(blocker / "sub"))
    with pytest.warns(RuntimeWarning, match="fast Jacobian assembly unavailable"):
        integ = Integrator(flying_spaghetti(2).model, 0.1)
    assert integ.newton.fast_jacobian is None
    assert integ.step().newton_its > 0
