"""The chain solver across ranks (fxrod.solvers.chain_mpi): the elimination of a piece onto
its interfaces is the Schur complement of the piece's vertex system, for A and for A^T
(serial, against a dense solve), and under ``mpirun -n 2`` (and 3: a middle piece with its
spike) the runs give the serial chain solver's iterates within the round-off model
(tests/roundoff.py): the flying spaghetti's tip trajectory, a quasi-static cantilever's tip
path and an adjoint gradient (its forward runs and the adjoint's transposed solves on the
chain solver, as in serial); a solve and a transposed solve across ranks have the
backward error of round-off against DOLFINx's assembled Jacobian.

The two runs solve the same Newton systems in another order of elimination (towards the
cuts instead of from one end), so each linear solve differs by round-off; both take the same
number of Newton iterations, and the difference of the two tips is bounded by
``roundoff(|tip|, 2 n)`` after n solves of each run (the same model as the serial chain
solver's comparison with MUMPS, tests/test_chain.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from fxrod.solvers import chain as chain_module
from tests.conftest import ROOT, mpirun_cmd, run_mpi
from tests.roundoff import roundoff

CHILD = """
import json, sys, warnings
import numpy as np
import fxrod
from fxrod.analysis.adjoint import Adjoint, SectionParameters, TipTracking
from fxrod.core.diagnostics import Nodes
from fxrod.runs.problem import Problem
from fxrod.studies.cases import demo
from mpi4py import MPI


def tips(prob, steps):
    integ = prob.integrator(linear_solver="chain")
    nodes, out, its = Nodes(integ.model), [], 0
    for _ in range(steps):
        its += integ.step().newton_its
        out.append(nodes.tip().tolist())
    chain = integ.newton.chain
    used = chain.reason is None and type(chain.chain).__name__
    return {"tip": out, "its": its, "solver": used, "integ": integ}


def backward_errors(integ):
    # |A x - b|_inf / (|A|_inf |x|_inf + |b|_inf) of a solve and a transposed solve of the
    # chain solver across ranks, factored at the current iterate, with DOLFINx's assembled
    # Jacobian A (its MUMPS fallback's matrix) and b = sin(1 + global dof)
    from petsc4py import PETSc
    nw = integ.newton
    chain, fj = nw.chain.chain, nw.fast_jacobian
    fj.kernels.pack_constants()
    fj.assemble(constants=False)
    chain.factor(fj.elem)
    nw.chain.matrix.__self__.stale = True
    A = nw.chain.matrix()
    imap = integ.model.w.function_space.dofmap.index_map
    n = imap.size_local
    b = np.sin(1.0 + imap.local_range[0] + np.arange(n))
    out = {}
    for name, solve, mult in (("solve", chain.solve, A.mult),
                              ("transpose", chain.solve_transpose, A.multTranspose)):
        x = np.zeros(n)
        solve(b, x)
        xv, yv = A.createVecRight(), A.createVecLeft()
        xv.array[:] = x
        mult(xv, yv)
        num = MPI.COMM_WORLD.allreduce(np.max(np.abs(yv.array - b)), op=MPI.MAX)
        xmax = MPI.COMM_WORLD.allreduce(np.max(np.abs(x)), op=MPI.MAX)
        out[name] = num / (A.norm(PETSc.NormType.INFINITY) * xmax + 1.0)
    return out


prob = demo("flying_spaghetti").problem(12, h=0.1)
runs = {"spaghetti": tips(prob, 20)}
if MPI.COMM_WORLD.size > 1:
    runs["backward"] = backward_errors(runs["spaghetti"].pop("integ"))
runs["spaghetti"].pop("integ", None)
if len(sys.argv) > 2:   # the quasi-static cantilever and the adjoint gradient
    runs["statics"] = tips(demo("quasistatic_cantilever").problem(8, h=0.2), 5)
    runs["statics"].pop("integ")
    with warnings.catch_warnings(record=True) as caught:   # MUMPS across ranks
        warnings.simplefilter("always")
        runs["kirchhoff"] = tips(demo("flying_spaghetti").problem(12, h=0.1,
                                                                  kirchhoff=True), 5)
    runs["kirchhoff"].pop("integ")
    # two rods (no joints): across ranks an explicit "chain" is refused in one line
    from fxrod import Rod, RodModel, Section, Structure
    from fxrod.errors import ParameterError
    sec = Section.circular(radius=1e-2, E=1e9, rho=1000.0, nu=0.3)
    rods = [Rod(sec, start=(0.0, y, 0.0), end=(1.0, y, 0.0), d1=(0.0, 0.0, 1.0),
                n_elements=4) for y in (0.0, 0.1)]
    try:
        Problem(RodModel(Structure(rods), [], []), 0.1, 0.1).integrator(
            linear_solver="chain")
        runs["refusal"] = None
    except ParameterError as err:
        runs["refusal"] = str(err)
    runs["kirchhoff"]["warned"] = any("singular interior block" in str(w.message)
                                      for w in caught)
    prob = demo("cantilever_vibration").problem(n_elements=8, h=2e-3, t_end=0.02,
                                               constraints=())
    m = prob.model
    p = [SectionParameters(m, ["E", "rho"], E=7.2e10, G=7.2e10 / 2.7, rho=2850.0,
                           radius=2e-3)]
    integ = prob.integrator(linear_solver="chain")
    adj = Adjoint(integ, 0.02, TipTracking(lambda t: np.array([1.0, 0.01, 0.01]), 1e4), p,
                  checkpoint_every=4)
    J, g = adj.value_and_grad()
    runs["adjoint"] = {"J": J, "g": list(g), "solver": integ.newton.chain.reason is None
                       and type(integ.newton.chain.chain).__name__}
if MPI.COMM_WORLD.rank == 0:
    json.dump(runs, open(sys.argv[1], "w"))
"""


def _serial(script, out, *extra) -> dict:
    subprocess.run([sys.executable, str(script), str(out), *extra], check=True, cwd=ROOT)
    return json.loads(out.read_text())


def _compare(a: dict, b: dict) -> None:
    """Tips of the same number of Newton solves within ``roundoff(|tip|, 2 n)``."""
    assert a["its"] == b["its"]
    ta, tb = np.array(a["tip"]), np.array(b["tip"])
    bound = roundoff(np.max(np.abs(ta)), 2 * a["its"])
    assert np.max(np.abs(ta - tb)) <= bound, (np.max(np.abs(ta - tb)), bound)


def test_piece_elimination_is_the_schur_complement():
    """fxrod_btri_factor_piece / forward / back on a random diagonally dominant block-
    tridiagonal matrix (m = 7 blocks of 5, compact coupling blocks as the condensation
    stores them: L 3 x 4, U 5 x 4): the kept blocks (the last, and with ``first`` the first
    one too) hold the dense Schur complement and the right-hand side of its system, and
    the back substitution from the dense solution's kept values gives the dense solution,
    to 1e-13 relative (condition ~ 10, 7 blocks: round-off of a few hundred operations);
    likewise the transposed sweeps (``_t``) for A^T with the same factors."""
    lib = chain_module._load_lib()
    ffi = lib.ffi
    rng = np.random.default_rng(5)
    m, nb, lr, lc, uw = 7, 5, 3, 4, 4
    D = rng.standard_normal((m, nb, nb)) + 8 * np.eye(nb)
    L = rng.standard_normal((m - 1, lr, lc))
    U = rng.standard_normal((m - 1, nb, uw))
    A = np.zeros((m * nb, m * nb))
    for k in range(m):
        A[k * nb:(k + 1) * nb, k * nb:(k + 1) * nb] = D[k]
        if k < m - 1:
            A[(k + 1) * nb:(k + 1) * nb + lr, k * nb:k * nb + lc] = L[k]
            A[k * nb:(k + 1) * nb, (k + 1) * nb:(k + 1) * nb + uw] = U[k]
    r = rng.standard_normal(m * nb)
    x = np.linalg.solve(A, r)

    def p(a, t="double*"):
        return ffi.cast(t, a.ctypes.data)

    for first in (0, 1):
        kept = np.r_[np.arange(nb) if first else [], np.arange((m - 1) * nb, m * nb)]
        kept = kept.astype(int)
        gone = np.setdiff1d(np.arange(m * nb), kept)
        S = A[np.ix_(kept, kept)] - A[np.ix_(kept, gone)] @ np.linalg.solve(
            A[np.ix_(gone, gone)], A[np.ix_(gone, kept)])
        rS = r[kept] - A[np.ix_(kept, gone)] @ np.linalg.solve(A[np.ix_(gone, gone)], r[gone])
        Df, Uf = D.copy(), U.copy()
        piv = np.zeros((m, nb), dtype=np.int32)
        W, C = np.zeros((m, nb, nb)), np.zeros((m, nb, nb))
        assert lib.lib.fxrod_btri_factor_piece(m, nb, lr, lc, uw, p(Df), p(L), p(Uf),
                                               p(piv, "int*"), first, p(W), p(C)) == 0
        got = np.block([[Df[0], C[m - 1]], [W[m - 1], Df[m - 1]]]) if first else Df[m - 1]
        assert np.allclose(got, S, rtol=0, atol=1e-13 * np.abs(S).max())
        z = r.reshape(m, nb).copy()
        lib.lib.fxrod_btri_forward(m, nb, lr, lc, p(Df), p(piv, "int*"), p(L), first, p(C),
                                   p(z))
        zk = np.r_[z[0] if first else [], z[m - 1]]
        assert np.allclose(zk, rS, rtol=0, atol=1e-13 * np.abs(rS).max())
        z[m - 1] = x[(m - 1) * nb:]
        if first:
            z[0] = x[:nb]
        lib.lib.fxrod_btri_back(m, nb, uw, p(Uf), first, p(W), p(z))
        assert np.allclose(z.ravel(), x, rtol=0, atol=1e-13 * np.abs(x).max())
        # the transposed sweeps: the kept right-hand side of A^T's Schur complement S^T
        rT = r[kept] - A.T[np.ix_(kept, gone)] @ np.linalg.solve(A.T[np.ix_(gone, gone)],
                                                                 r[gone])
        z = r.reshape(m, nb).copy()
        lib.lib.fxrod_btri_forward_t(m, nb, uw, p(Uf), first, p(W), p(z))
        zk = np.r_[z[0] if first else [], z[m - 1]]
        assert np.allclose(zk, rT, rtol=0, atol=1e-13 * np.abs(rT).max())
        xt = np.linalg.solve(A.T, r)
        z[m - 1] = xt[(m - 1) * nb:]
        if first:
            z[0] = xt[:nb]
        lib.lib.fxrod_btri_back_t(m, nb, lr, lc, p(Df), p(piv, "int*"), p(L), first, p(C),
                                  p(z))
        assert np.allclose(z.ravel(), xt, rtol=0, atol=1e-13 * np.abs(xt).max())


@pytest.mark.mpi
def test_two_ranks_give_the_serial_iterates(tmp_path):
    """``mpirun -n 2``: the flying spaghetti (12 elements, 20 steps), the quasi-static
    cantilever (8 elements, 5 load steps) and the adjoint gradient of Ex. 6.2 without the
    Kirchhoff constraints (E and rho) on the chain solver across ranks: the serial tips
    within the round-off model; J and the gradient within the round-off of the forward run
    and of the adjoint sweep's solves (roundoff(|.|, 2 x 2 x 10 steps)). The Kirchhoff
    flying spaghetti falls back to MUMPS on both ranks (a warning), its tips the serial
    chain solver's. A solve and a transposed solve (the adjoint's systems) of the chain
    solver across ranks have a backward error within the round-off model,
    ``roundoff(1, 2)``, against DOLFINx's assembled Jacobian."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    run_mpi([str(script), str(tmp_path / "mpi.json"), "all"])
    a = _serial(script, tmp_path / "serial.json", "all")
    b = json.loads((tmp_path / "mpi.json").read_text())
    for case in ("spaghetti", "statics"):
        assert a[case]["solver"] == "ChainSolver" and b[case]["solver"] == "ChainPieces"
        _compare(a[case], b[case])
    # a Kirchhoff rod (zero-compliance stresses): serial only; across ranks every rank
    # meets the singular interior block at the first factorisation and goes on with MUMPS
    assert a["kirchhoff"]["solver"] == "ChainSolver" and b["kirchhoff"]["solver"] is False
    assert b["kirchhoff"]["warned"]
    _compare(a["kirchhoff"], b["kirchhoff"])
    assert b["adjoint"]["solver"] == "ChainPieces"
    assert max(b["backward"].values()) <= roundoff(1.0, 2)
    assert a["refusal"] is None   # serially the chain solver takes disjoint rods
    assert "\n" not in b["refusal"] and "one open rod" in b["refusal"]
    ga, gb = np.array(a["adjoint"]["g"]), np.array(b["adjoint"]["g"])
    steps = 2 * 2 * 10
    assert abs(a["adjoint"]["J"] - b["adjoint"]["J"]) <= roundoff(abs(a["adjoint"]["J"]),
                                                                  steps)
    assert np.all(np.abs(ga - gb) <= roundoff(np.abs(ga), steps))


@pytest.mark.mpi
def test_three_ranks_middle_piece(tmp_path):
    """``mpirun -n 3``: the middle rank's piece keeps both of its interfaces (the spike);
    the flying spaghetti's tips are the serial ones within the round-off model, and a solve
    and a transposed solve have a backward error within ``roundoff(1, 2)`` against DOLFINx's
    assembled Jacobian."""
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    cmd = mpirun_cmd()
    cmd[cmd.index("-n") + 1] = "3"
    p = subprocess.run(cmd + [sys.executable, str(script), str(tmp_path / "mpi.json")],
                       capture_output=True, text=True, timeout=600, cwd=ROOT,
                       env={**os.environ, "UCX_TLS": "self,sm,tcp"})
    assert p.returncode == 0, p.stderr
    a = _serial(script, tmp_path / "serial.json")
    b = json.loads((tmp_path / "mpi.json").read_text())
    assert b["spaghetti"]["solver"] == "ChainPieces"
    _compare(a["spaghetti"], b["spaghetti"])
    assert max(b["backward"].values()) <= roundoff(1.0, 2)
