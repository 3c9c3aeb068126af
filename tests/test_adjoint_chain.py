"""The adjoint on the forward run's linear backend (fxrod.analysis.adjoint): with the forward
run on the chain solver, the backward sweep's transposed solves ``A_n^T lambda_n = r_n``
factor the step Jacobians through the chain solver's condensation and solve with
``ChainSolver.solve_transpose`` (``ChainPieces`` across ranks), ``Adjoint.backend ==
"chain"``; on MUMPS otherwise.

Reference: the MUMPS transposed solves of the same backward sweep (the same recorded forward
states, the backend switched for the sweep only), a Taylor test, and under ``mpirun -n 2``
the serial chain adjoint.

Round-off model (tests/roundoff.py): both backends are backward stable, each solve has a
backward error below ``roundoff(1, 1)`` (the chain solver checks its factorisation's against
``MAX_BACKWARD_ERROR``), so each lambda_n is off by at most ``kappa(A_n)`` times that
(the standard forward-error bound, ``kappa`` the 2-norm condition number of the step
Jacobian, measured here, ~ 1e6 for Ex. 6.2 at h = 2 ms: the mass rows ``rhoA/h`` against
the compliance rows ``1/k``); the errors of the N solves of a sweep add up through the
recursion of ``g_w, g_v`` (the adjoint of the stable midpoint steps), and a difference of two
sweeps counts both: ``|g_a - g_b| <= kappa roundoff(|g|, 2 N)`` per component.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from fxrod.analysis.adjoint import (
    Adjoint,
    InputHistory,
    SectionParameters,
    TipTracking,
)
from fxrod.studies.cases import demo
from tests.conftest import ROOT, run_mpi
from tests.roundoff import roundoff
from tests.test_adjoint import assert_second_order

E, RHO, G, R = 7.2e10, 2850.0, 7.2e10 / 2.7, 2e-3      # Ex. 6.2 (nu = 0.35)
H, T = 2e-3, 0.02                                     # 10 steps of the impulse
N = 10


def adjoint(linear_solver: str, constraints=("kirchhoff",), n: int = 4) -> Adjoint:
    """Ex. 6.2 (the tip force and moment impulse) for 10 steps: E, rho, radius and the tip
    force history (3 knots) against a tip target."""
    prob = demo("cantilever_vibration").problem(n_elements=n, h=H, t_end=T,
                                               constraints=constraints)
    m = prob.model
    params = [SectionParameters(m, ["E", "rho", "radius"], E=E, G=G, rho=RHO, radius=R),
              InputHistory("force", m.loads[0], [0.0, 0.01, 0.02])]
    return Adjoint(prob.integrator(linear_solver=linear_solver), T,
                   TipTracking(lambda t: np.array([1.0, 0.01, 0.01]), weight=1e4), params)


def dense(A) -> np.ndarray:
    """The PETSc matrix ``A`` (serial) as a dense array."""
    ai, aj, av = A.getValuesCSR()
    return sp.csr_matrix((av, aj, ai), shape=A.getSize()).toarray()


@pytest.mark.parametrize("constraints", [("kirchhoff",), ()], ids=["kirchhoff", "shearable"])
def test_chain_transposed_solves_give_the_mumps_gradient(constraints, monkeypatch):
    """The gradient of the chain solver's transposed solves equals MUMPS's on the same
    forward run within ``kappa roundoff(|g|, 2 N)`` (module docstring; measured: 4e-15
    relative with the Kirchhoff constraints, 2e-12 shearable, the bound ~ 3e-7). The step
    Jacobian is not symmetric (``|A - A^T|_max / |A|_max`` = 0.17, asserted > 0.1), so a
    solve with A instead of A^T is off by orders of magnitude (mutant
    ``adjoint-chain-solve-not-transpose``)."""
    adj = adjoint("chain", constraints)
    assert adj.backend == "chain"
    assert adjoint("mumps", constraints).backend == "mumps"
    _, g = adj.value_and_grad()
    with monkeypatch.context() as mp:           # the same sweep on MUMPS
        mp.setattr(Adjoint, "backend", property(lambda self: "mumps"))
        g_mumps = adj.gradient()
    A = dense(adj.A)                            # the first step's Jacobian, the last solved
    kappa = np.linalg.cond(A)
    assert np.max(np.abs(A - A.T)) > 0.1 * np.max(np.abs(A))
    bound = kappa * roundoff(np.abs(g), 2 * N)
    assert np.all(np.abs(g - g_mumps) <= bound), (np.abs(g - g_mumps) / bound).max()
    assert adj.backend == "chain"


def test_rejected_factorisation_goes_on_with_mumps(monkeypatch):
    """A factorisation the chain solver rejects in the backward sweep (raised here at the
    fourth) hands the rest of the sweep to MUMPS with a one-line warning,
    ``backend == "mumps"`` from then on; the gradient is the chain solver's within the round-off
    model of the module docstring (partly on one backend, partly on the other)."""
    adj = adjoint("chain")
    _, g = adj.value_and_grad()
    chain = adj.integrator.newton.chain.chain
    factor, calls = chain.factor, []

    def failing(elem):
        calls.append(1)
        if len(calls) == 4:
            raise RuntimeError("chain solver: singular vertex pivot block 0")
        factor(elem)

    monkeypatch.setattr(chain, "factor", failing)
    with pytest.warns(RuntimeWarning, match="adjoint: chain solver: singular.*using MUMPS"):
        g_mixed = adj.gradient()
    assert len(calls) == 4 and adj.backend == "mumps"
    kappa = np.linalg.cond(dense(adj.A))
    assert np.all(np.abs(g - g_mixed) <= kappa * roundoff(np.abs(g), 2 * N))


def test_taylor_on_the_chain_solver():
    """Taylor test (second-order remainders) of the chain path's gradient: section and
    tip force history, with the Kirchhoff constraints (the chain solver's saddle-point
    variant)."""
    adj = adjoint("chain")
    rng = np.random.default_rng(7)
    d = np.concatenate([adj.get()[:3] * 0.1 * rng.normal(size=3), 0.1 * rng.normal(size=9)])
    assert_second_order(adj, d)
    assert adj.backend == "chain"


CHILD = """
import json, sys
import numpy as np
import scipy.sparse as sp
import ufl
from dolfinx import fem
from dolfinx.fem.petsc import assemble_matrix
from mpi4py import MPI
from fxrod.analysis.adjoint import Adjoint, InputHistory, SectionParameters, TipTracking
from fxrod.studies.cases import demo

# adjoint("chain", constraints=(), n=8) of tests/test_adjoint_chain.py
prob = demo("cantilever_vibration").problem(n_elements=8, h=2e-3, t_end=0.02, constraints=())
m = prob.model
params = [SectionParameters(m, ["E", "rho", "radius"], E=7.2e10, G=7.2e10 / 2.7, rho=2850.0,
                            radius=2e-3),
          InputHistory("force", m.loads[0], [0.0, 0.01, 0.02])]
adj = Adjoint(prob.integrator(linear_solver="chain"), 0.02,
              TipTracking(lambda t: np.array([1.0, 0.01, 0.01]), weight=1e4), params)
J, g = adj.value_and_grad()
out = {"J": J, "g": list(g), "backend": adj.backend,
       "solver": type(adj.integrator.newton.chain.chain).__name__}
if MPI.COMM_WORLD.size == 1:   # the condition number of the step Jacobian (final state)
    A = assemble_matrix(fem.form(ufl.derivative(m.F, m.w)), bcs=m.bcs)
    A.assemble()
    ai, aj, av = A.getValuesCSR()
    out["kappa"] = float(np.linalg.cond(sp.csr_matrix((av, aj, ai)).toarray()))
if MPI.COMM_WORLD.rank == 0:
    json.dump(out, open(sys.argv[1], "w"))
"""


@pytest.mark.mpi
def test_two_ranks_chain_adjoint_equals_serial(tmp_path):
    """``mpirun -n 2``: the adjoint's transposed solves on ``ChainPieces`` (one rod in two
    pieces, shearable: the Kirchhoff rod falls back to MUMPS across ranks) give the serial
    chain adjoint's gradient within ``kappa roundoff(|g|, 2 x 2 N)`` (the forward and the
    backward solves of each run; measured 2e-12 relative, 3x ``roundoff(|g|, 4 N)``)."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    run_mpi([str(script), str(tmp_path / "mpi.json")])
    subprocess.run([sys.executable, str(script), str(tmp_path / "serial.json")], check=True,
                   cwd=ROOT)
    a = json.loads((tmp_path / "serial.json").read_text())
    b = json.loads((tmp_path / "mpi.json").read_text())
    assert a["backend"] == b["backend"] == "chain"
    assert a["solver"] == "ChainSolver" and b["solver"] == "ChainPieces"
    ga, gb = np.array(a["g"]), np.array(b["g"])
    assert abs(a["J"] - b["J"]) <= a["kappa"] * roundoff(abs(a["J"]), 2 * N)
    assert np.all(np.abs(ga - gb) <= a["kappa"] * roundoff(np.abs(ga), 4 * N))
