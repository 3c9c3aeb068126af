"""fxrod.native.jit (several UFL forms as one FFCx module) against DOLFINx's own ``fem.form`` (one
module per form): the same residual, Jacobian and energies to the last bit; a cold compile
into an empty cache directory builds one module for the whole batch; a form with the same
signature is wrapped from the compiled module, bound to its own coefficients."""

from __future__ import annotations

import numpy as np
import pytest
import ufl
from dolfinx import fem, mesh
from dolfinx.fem.forms import derivative_block
from dolfinx.fem.petsc import assemble_matrix
from mpi4py import MPI

from fxrod.core.forms import elastic
from fxrod.native import jit
from fxrod.studies.cases import demo


def _state(model) -> None:
    """A non-trivial state: every unknown and the velocity away from the reference."""
    rng = np.random.default_rng(7)
    for f in (model.w, model.w0, model.v0):
        f.x.array[:] += 0.1 * rng.standard_normal(f.x.array.size)
    model.h.value = 0.1


def _values(forms) -> list:
    """Residual vector, Jacobian CSR values and energies of compiled ``[F, J, *scalars]``."""
    F, J, *scalars = forms
    A = assemble_matrix(J)
    A.assemble()
    out = [fem.assemble_vector(F).array.copy(), A.getValuesCSR()[2].copy()]
    A.destroy()
    return out + [fem.assemble_scalar(s) for s in scalars]


def test_batch_equals_dolfinx_forms_bit_for_bit():
    m = demo("flying_spaghetti").problem(4).model
    _state(m)
    ctx = m.ctx
    ufl_forms = [m.F, derivative_block(m.F, m.w), elastic.kinetic_energy(ctx, m.v0),
                 elastic.complementary_energy(ctx, ctx.sig0, m.C),
                 m.h * elastic.external_power(ctx, ctx.vm)]
    batch = _values(jit.forms(ufl_forms))
    plain = _values([fem.form(f) for f in ufl_forms])
    for a, b in zip(batch, plain, strict=True):
        assert np.array_equal(a, b)
    assert np.abs(batch[0]).max() > 1.0 and batch[2] > 0.0 and batch[3] > 0.0
    # the ledger evaluates the same compiled kernels
    led = m.ledger.stored()
    assert led["kinetic"] == batch[2] and led["strain_energy"] == batch[3]


def test_cold_compile_modules_and_same_signature_rebinds(tmp_path):
    msh = mesh.create_unit_interval(MPI.COMM_SELF, 8)
    V = fem.functionspace(msh, ("Lagrange", 2))
    u1, u2 = fem.Function(V), fem.Function(V)
    u1.x.array[:] = 2.0
    u2.interpolate(lambda x: x[0])
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    ours, theirs = tmp_path / "jit", tmp_path / "dolfinx"
    # int u^2 dx = 4, int u^3 dx = 8 on (0, 1); the load vector sums to int u^2 dx = 4, the
    # weighted mass matrix to int u dx = 2 (the basis sums to 1)
    e2, e3, L, M = jit.forms([u1**2 * ufl.dx, u1**3 * ufl.dx, u1**2 * v * ufl.dx,
                              u1 * u * v * ufl.dx], {"cache_dir": ours})
    assert np.isclose(fem.assemble_scalar(e2), 4.0) and np.isclose(fem.assemble_scalar(e3), 8.0)
    assert np.isclose(fem.assemble_vector(L).array.sum(), 4.0)
    A = assemble_matrix(M)
    A.assemble()
    assert np.isclose(A.getValuesCSR()[2].sum(), 2.0)
    # two modules: the bilinear form alone (DOLFINx's own module of it, the same C code),
    # the other three together
    modules = sorted(p.name for p in ours.glob("libffcx_forms_*.c"))
    assert len(modules) == 2 and not list(ours.glob("*.failed")) and not list(ours.glob("*.json"))
    fem.form(u1 * u * v * ufl.dx, jit_options={"cache_dir": theirs})
    (c_file,) = theirs.glob("libffcx_forms_*.c")
    assert c_file.name in modules and c_file.read_bytes() == (ours / c_file.name).read_bytes()
    # same signature, other coefficient: no new module, bound to u2 (int x^2 dx = 1/3)
    (f2,) = jit.forms([u2**2 * ufl.dx], {"cache_dir": ours})
    assert len(list(ours.glob("libffcx_forms_*.so"))) == 2
    assert np.isclose(fem.assemble_scalar(f2), 1.0 / 3.0)
    assert jit.forms([None], {"cache_dir": ours}) == [None]


def test_failed_compile_raises_and_marks_the_module(tmp_path):
    msh = mesh.create_unit_interval(MPI.COMM_SELF, 2)
    u = fem.Function(fem.functionspace(msh, ("Lagrange", 1)))
    opts = {"cache_dir": tmp_path, "cffi_extra_compile_args": ["-fno-such-option"]}
    with pytest.raises(RuntimeError, match="C compilation"):
        jit.forms([u**5 * ufl.dx], opts)
    assert len(list(tmp_path.glob("*.c.failed"))) == 1 and not list(tmp_path.glob("*.so"))
