"""The installation works: fxrod imports, a tiny nonlinear UFL problem solves with SNES,
serially and under mpirun -n 2."""

from __future__ import annotations

import numpy as np
import pytest
import ufl
from dolfinx import fem, mesh
from dolfinx.fem.petsc import NonlinearProblem
from mpi4py import MPI

from tests.conftest import run_mpi


def solve_bratu_like(comm) -> float:
    """-(1 + u^2) u'' = 1 on (0, 1), u(0) = u(1) = 0; returns the max of u."""
    msh = mesh.create_unit_interval(comm, 32)
    V = fem.functionspace(msh, ("Lagrange", 2))
    u, v = fem.Function(V), ufl.TestFunction(V)
    F = (1 + u**2) * ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx - v * ufl.dx
    facets = mesh.locate_entities_boundary(
        msh, 0, lambda x: np.isclose(x[0], 0) | np.isclose(x[0], 1))
    bc = fem.dirichletbc(0.0, fem.locate_dofs_topological(V, 0, facets), V)
    prob = NonlinearProblem(F, u, bcs=[bc], petsc_options_prefix="install_",
                            petsc_options={"snes_rtol": 1e-12, "ksp_type": "preonly",
                                           "pc_type": "lu", "pc_factor_mat_solver_type": "mumps"})
    prob.solve()
    assert prob.solver.getConvergedReason() > 0
    return comm.allreduce(float(np.max(u.x.array)), op=MPI.MAX)


def test_snes_solves_nonlinear_problem():
    umax = solve_bratu_like(MPI.COMM_WORLD)
    # (u + u^3/3)' ' = -1 -> u + u^3/3 = (x - x^2)/2, at x = 1/2: u + u^3/3 = 1/8
    assert abs(umax - exact_umax()) < 1e-8


@pytest.mark.mpi
def test_snes_under_mpirun():
    p = run_mpi(["-c", "import fxrod; from mpi4py import MPI; "
                 "from tests.test_install import solve_bratu_like; "
                 "c = MPI.COMM_WORLD; u = solve_bratu_like(c); "
                 "n = c.allreduce(1); c.rank == 0 and print('UMAX', n, repr(u))"])
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("UMAX")]
    assert len(lines) == 1 and lines[0].split()[1] == "2", p.stdout
    assert abs(float(lines[0].split()[2]) - exact_umax()) < 1e-8


def exact_umax() -> float:
    """Root of u + u^3/3 = 1/8 (Newton)."""
    u = 0.125
    for _ in range(50):
        u -= (u + u**3 / 3 - 0.125) / (1 + u**2)
    return u
