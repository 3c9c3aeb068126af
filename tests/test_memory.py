"""Memory at the factors' size (issue 39): the fast Jacobian builds its CSR pattern itself
(DOLFINx's pattern, entry for entry) and only where a matrix is assembled; on the chain
solver's path it keeps neither a CSR matrix nor the element matrices. The peak memory by
mesh size is measured in bench/memory.py."""

from __future__ import annotations

import numpy as np
import pytest
from dolfinx.fem.petsc import assemble_matrix, create_matrix
from petsc4py import PETSc

from fxrod.chain import ChainSolver
from fxrod.examples import cantilever_vibration, flying_spaghetti
from fxrod.fastassembly import FastJacobian
from fxrod.integrators import Integrator
from fxrod.settings import SolverSettings
from tests.roundoff import roundoff

MODELS = {"free": (lambda: flying_spaghetti(5).model, 0.1),
          "clamped": (lambda: cantilever_vibration(4, constraints=()).model, 1e-3)}


def _stepped(name: str) -> Integrator:
    """An integrator on the MUMPS path (the compiled Jacobian form) after one step, the
    unknown perturbed so that no entry vanishes by symmetry."""
    make, h = MODELS[name]
    integ = Integrator(make(), h, SolverSettings(linear_solver="mumps"))
    integ.step()
    w = integ.model.w.x.array
    w += 1e-3 * np.random.default_rng(7).standard_normal(w.size)
    integ.model.w.x.scatter_forward()
    return integ


@pytest.mark.parametrize("name", sorted(MODELS))
def test_own_pattern_is_dolfinx_pattern(name):
    """The pattern built from the element dofs equals DOLFINx's ``create_matrix`` pattern
    (so MUMPS analyses the same matrix), and the assembly into it DOLFINx's values."""
    integ = _stepped(name)
    J, bcs = integ.newton.problem.J, integ.model.bcs
    ref = create_matrix(J)
    ref.zeroEntries()
    assemble_matrix(ref, J, bcs=bcs, diag=1.0)
    ref.assemble()
    fj = FastJacobian(J, integ.model.w, bcs)
    fj.assemble()
    ai, aj, av = ref.getValuesCSR()
    assert np.array_equal(fj.indptr, ai) and np.array_equal(fj.indices, aj)
    assert np.max(np.abs(fj.vals - av)) <= roundoff(np.max(np.abs(av)))


def test_chain_path_keeps_no_matrix():
    """``csr=False`` with the chain solver attached: no CSR arrays and no element-matrix
    array exist (the element matrices stand as a read-only view without memory); setting
    ``csr`` (a fallback) builds the matrix, whose products the operator ``A`` gives."""
    integ = _stepped("clamped")
    J, bcs, w = integ.newton.problem.J, integ.model.bcs, integ.model.w
    fj = FastJacobian(J, w, bcs, csr=False)
    fj.keep_element_matrices(csr=False)
    chain = ChainSolver(w.function_space, fj.bc_dofs)
    chain.attach(fj)
    fj.assemble()
    assert fj.vals is None and fj.indices is None and fj.off is None
    assert fj.elem.strides == (0, 0, 0) and not fj.elem.flags.writeable
    chain.factor(fj.elem)                       # the factorisation inside the assembly
    assert chain.factored
    assert fj.A.getType() == PETSc.Mat.Type.PYTHON
    fj.csr = True
    fj.assemble()
    ref = FastJacobian(J, w, bcs)
    ref.assemble()
    assert np.array_equal(fj.vals, ref.vals)
    x, y, y_ref = (ref.A.createVecRight() for _ in range(3))
    x.setArray(np.random.default_rng(1).standard_normal(x.getSize()))
    fj.A.mult(x, y)
    ref.A.mult(x, y_ref)
    assert np.array_equal(y.getArray(), y_ref.getArray())
    fj.A.multTranspose(x, y)
    ref.A.multTranspose(x, y_ref)
    assert np.array_equal(y.getArray(), y_ref.getArray())
