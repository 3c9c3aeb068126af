"""The small-rod fast path (issue 22): the residual assembled through the FFCx kernels into
preallocated arrays (:class:`fxrod.native.assembly.KernelResidual`) is DOLFINx's residual, and
the Newton iterates of a run with it equal those of DOLFINx's assembly.

Reference: DOLFINx's ``assemble_residual`` (the SNES callback of ``NonlinearProblem``),
independent code on the same compiled forms.
"""

from __future__ import annotations

import numpy as np
import pytest
from petsc4py import PETSc

from fxrod.runs.integrators import Integrator
from fxrod.studies.cases import demo
from tests.conftest import newton_iterates
from tests.roundoff import roundoff

MODELS = {
    "flying_spaghetti": (lambda: demo("flying_spaghetti").problem(6).model, 0.1, 6),
    "clamped_kirchhoff": (lambda: demo("cantilever_vibration").problem(4).model, 1e-2, 6),
    "soft_arm_actuation": (lambda: demo("soft_arm").problem("circle", n_elements=4).model, 1e-2, 4),
    "quasistatic_follower": (lambda: demo("quasistatic_cantilever").problem(4).model, 0.1, 4),
}


@pytest.mark.exactness
@pytest.mark.parametrize("name", sorted(MODELS))
def test_fast_residual_gives_the_same_newtonnewton_iterates(name):
    make, h, steps = MODELS[name]
    fast, integ = newton_iterates(make, h, steps)
    assert integ.newton.fast_residual is not None
    assert integ.newton.fast_residual.fallbacks == 0
    ref, ref_integ = newton_iterates(make, h, steps, fast_residual=False)
    assert ref_integ.newton.fast_residual is None
    assert fast.shape == ref.shape and fast.shape[0] > steps
    # measured: bit-for-bit equal (same kernels, same order of additions); bounded by
    # round-off over the Newton iterations of both runs (one residual and one solve each)
    assert np.max(np.abs(fast - ref)) <= roundoff(np.max(np.abs(ref)), 2 * (len(ref) - steps))


@pytest.mark.exactness
@pytest.mark.parametrize("name", sorted(MODELS))
def test_fast_residual_is_dolfinx_residual(name):
    make, h, _ = MODELS[name]
    integ = Integrator(make(), h)
    for _ in range(2):
        integ.step()
    newton = integ.newton
    rng = np.random.default_rng(2)
    w = integ.model.w.x.array
    w += 1e-3 * rng.standard_normal(w.size)          # a generic iterate ...
    g = newton.fast_residual
    for bc in integ.model.bcs:
        bc.set(w)                                     # ... that holds the boundary values
    x = PETSc.Vec().createWithArray(w.copy())
    b_fast, b_ref = x.duplicate(), x.duplicate()
    newton.fast_jacobian.kernels.pack_constants()
    g.kernels.pack_constants()
    g.snes_callback(newton.snes, x, b_fast)
    g.fallback(newton.snes, x, b_ref)
    ref = b_ref.getArray()
    assert np.linalg.norm(ref) > 0.0
    assert np.max(np.abs(b_fast.getArray() - ref)) <= roundoff(np.max(np.abs(ref)))
    # an iterate off the boundary values goes to DOLFINx (its lifting term is not zero)
    if g.bc_dofs.size:
        x.getArray()[g.bc_dofs[0]] += 1e-3
        g.snes_callback(newton.snes, x, b_fast)
        assert g.fallbacks == 1


def test_support_rows_and_energies_are_dolfinx_values():
    """The reactions' rows (:class:`fxrod.native.assembly.KernelVector` on the cells at the
    supports) and the energy ledger's entries (:class:`fxrod.native.assembly.KernelScalar`) are
    DOLFINx's ``assemble_vector`` / ``assemble_scalar`` values bit for bit: the same
    kernels, the same additions in the same order."""
    from dolfinx import fem

    prob = demo("cantilever_vibration").problem(6)
    integ = prob.integrator()
    for _ in range(30):
        integ.step()
    m = prob.model
    dofs = np.concatenate([d.ravel() for d in m._support_dofs.values()])
    fast = m._support_rows()[dofs]
    assert m._support_vector is not None
    ref = fem.assemble_vector(m._F_compiled).array[dofs]
    assert np.abs(ref).max() > 1e-6 and np.array_equal(fast, ref)
    led = m.ledger
    for form in (led._kinetic, led._strain, led._work):
        assert led._functionals[id(form)]._fast is not None
        assert led._sum(form) == fem.assemble_scalar(form)
