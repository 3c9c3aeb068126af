"""The chain solver (issue 22): static condensation of the element interiors and a
block-tridiagonal vertex solve give MUMPS's Newton iterates.

References: MUMPS LU of the assembled Jacobian (the general path) and SuperLU
(``scipy.sparse.linalg.spsolve``) of the same CSR matrix, both independent of the chain code.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spl

import fxrod.solvers.chain as chain_module
from fxrod.core.geometry import Arc
from fxrod.core.joints import Rigid
from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.chain import ChainSolver, _chain_order
from fxrod.solvers.settings import SolverSettings
from fxrod.studies.cases import demo
from tests.conftest import newton_iterates
from tests.roundoff import roundoff

#: The demos' builders (the cases' ``problem``).
flying_spaghetti = demo("flying_spaghetti").problem
cantilever_vibration = demo("cantilever_vibration").problem
quasistatic_cantilever = demo("quasistatic_cantilever").problem


def three_rods() -> RodModel:
    """A Structure of three different rods without joints: a free straight rod with a
    tip pulse (flying-spaghetti section), a clamped arc with a tip force, a clamped stiffer
    straight rod with a follower tip moment; 3, 4 and 2 elements."""
    soft = Section(rhoA=1.0, M11=10.0, M22=10.0, k_s1=1e4, k_s2=1e4, k_e=1e4,
                   k_b1=1e3, k_b2=1e3, k_t=1e3, radius=0.1)
    stiff = Section(rhoA=2.0, M11=4.0, M22=6.0, k_s1=3e4, k_s2=2e4, k_e=5e4,
                    k_b1=4e3, k_b2=2e3, k_t=1e3, radius=0.1)
    rods = [Rod(soft, start=(0.0, 0.0, 8.0), end=(6.0, 0.0, 0.0), d1=(0.0, 1.0, 0.0),
                n_elements=3),
            Rod(stiff, curve=Arc(3.0, np.pi / 3), n_elements=4),
            Rod(stiff, start=(0.0, 2.0, 0.0), end=(0.0, 2.0, 4.0), d1=(1.0, 0.0, 0.0),
                n_elements=2)]
    loads = [EndLoad("L", rod=0, force=lambda t: 20.0 * t * np.array([0.1, 0.0, 0.0]),
                     moment=lambda t: 20.0 * t * np.array([0.0, 1.0, 0.5])),
             EndLoad("L", rod=1, force=lambda t: t * np.array([0.0, 0.0, 300.0])),
             EndLoad("L", rod=2, moment=lambda t: t * np.array([50.0, 0.0, 20.0]),
                     follower=True)]
    return RodModel(Structure(rods), loads, [Clamp("0", rod=1), Clamp("0", rod=2)])


MODELS = {
    "three_rods": (three_rods, 0.1, 6),
    "flying_spaghetti": (lambda: flying_spaghetti(6).model, 0.1, 8),
    "clamped_cosserat_dynamic": (lambda: cantilever_vibration(4, constraints=()).model,
                                 1e-3, 8),
    "quasistatic_clamped": (lambda: quasistatic_cantilever(4).model, 0.1, 5),
    "soft_arm_actuation": (lambda: demo("soft_arm").problem("circle", n_elements=4).model, 1e-2, 4),
    "clamped_kirchhoff_dynamic": (lambda: cantilever_vibration(4).model, 1e-3, 8),
    "free_kirchhoff_dynamic": (
        lambda: flying_spaghetti(6, kirchhoff=True).model, 0.1, 8),
    "quasistatic_elastica": (lambda: quasistatic_cantilever(4, constrained=True).model, 0.1, 5),
}


def solve_bound(A: sp.spmatrix, ref: np.ndarray) -> float:
    """Bound of two solutions of ``A x = b`` against each other: the round-off model of
    each solve (tests/roundoff.py) times Skeel's componentwise condition of the system,
    ``max |A^-1| |A| |x|`` (3 to 40 times ``max |x|`` here; ``cond_2(A)`` is ~1e6)."""
    dense = A.toarray()
    return roundoff(np.max(np.abs(np.linalg.inv(dense)) @ (np.abs(dense) @ np.abs(ref))), 2)


@pytest.mark.exactness
@pytest.mark.parametrize("name", sorted(MODELS))
def test_chain_gives_mumps_newtonnewton_iterates(name):
    make, h, steps = MODELS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no fallback to MUMPS here
        chain, integ = newton_iterates(make, h, steps, linear_solver="chain")
    assert integ.newton.chain is not None and integ.newton.chain.reason is None
    ref, _ = newton_iterates(make, h, steps, linear_solver="mumps")
    assert chain.shape == ref.shape and chain.shape[0] > steps
    # the rounding of two different eliminations, one per Newton iteration in each run (the
    # iterates are the first iterate of every step and one per iteration)
    solves = len(ref) - steps
    assert np.max(np.abs(chain - ref)) <= roundoff(np.max(np.abs(ref)), 2 * solves)


@pytest.mark.exactness
@pytest.mark.parametrize("name", ["flying_spaghetti", "quasistatic_clamped",
                                  "clamped_kirchhoff_dynamic"])
def test_chain_solve_is_a_sparse_lu_solve(name):
    """One factorisation and solve against SuperLU on the CSR matrix (Dirichlet rows too)."""
    make, h, _ = MODELS[name]
    integ = Integrator(make(), h, SolverSettings(linear_solver="mumps"))
    integ.step()
    fj = integ.newton.fast_jacobian
    fj.keep_element_matrices()
    rng = np.random.default_rng(3)
    w = integ.model.w.x.array
    w += 1e-3 * rng.standard_normal(w.size)
    fj.assemble()
    chain = ChainSolver(integ.model.space.W, fj.bc_dofs)
    chain.factor(fj.elem)
    A = sp.csc_matrix(sp.csr_matrix((fj.vals, fj.indices, fj.indptr), shape=fj.A.getSize()))
    b = rng.standard_normal(A.shape[0])
    x = np.zeros_like(b)
    chain.solve(b, x)
    ref = spl.spsolve(A, b)
    assert np.max(np.abs(x - ref)) <= solve_bound(A, ref)


@pytest.mark.exactness
@pytest.mark.parametrize("name", ["flying_spaghetti", "quasistatic_clamped",
                                  "clamped_kirchhoff_dynamic", "three_rods"])
def test_transposed_solve_is_a_sparse_lu_solve_of_the_transpose(name):
    """The transposed solve (the adjoint's systems; the Kirchhoff rod's retained stresses
    and the Dirichlet rows too) against SuperLU on the transposed CSR matrix, in place
    (``out`` is ``b``) as into another array."""
    make, h, _ = MODELS[name]
    integ = Integrator(make(), h, SolverSettings(linear_solver="mumps"))
    integ.step()
    fj = integ.newton.fast_jacobian
    fj.keep_element_matrices()
    rng = np.random.default_rng(4)
    w = integ.model.w.x.array
    w += 1e-3 * rng.standard_normal(w.size)
    fj.assemble()
    chain = ChainSolver(integ.model.space.W, fj.bc_dofs)
    chain.factor(fj.elem)
    A = sp.csr_matrix((fj.vals, fj.indices, fj.indptr), shape=fj.A.getSize())
    At = sp.csc_matrix(A.T)
    b = rng.standard_normal(At.shape[0])
    x = np.zeros_like(b)
    chain.solve_transpose(b, x)
    ref = spl.spsolve(At, b)
    assert np.max(np.abs(x - ref)) <= solve_bound(At, ref)
    chain.solve_transpose(b, b)
    assert np.array_equal(b, x)


@pytest.mark.exactness
@pytest.mark.parametrize("name", ["flying_spaghetti", "three_rods", "quasistatic_clamped",
                                  "free_kirchhoff_dynamic"])
def test_factorisation_inside_the_assembly_is_a_sparse_lu_solve(name):
    """The chain solver attached to the Jacobian assembly (FFCx kernel and condensation
    cell by cell, no element-matrix array; follower end moments add exterior-facet
    kernels) against SuperLU on the CSR matrix of the same iterate, and against the
    factorisation of the stored element matrices (same arithmetic: equal to the bit)."""
    make, h, _ = MODELS[name]
    integ = Integrator(make(), h, SolverSettings(linear_solver="mumps"))
    integ.step()
    fj = integ.newton.fast_jacobian
    fj.keep_element_matrices()
    rng = np.random.default_rng(5)
    w = integ.model.w.x.array
    w += 1e-3 * rng.standard_normal(w.size)
    fj.assemble()
    A = sp.csc_matrix(sp.csr_matrix((fj.vals, fj.indices, fj.indptr), shape=fj.A.getSize()))
    b = rng.standard_normal(A.shape[0])
    stored = ChainSolver(integ.model.space.W, fj.bc_dofs)
    stored.factor(fj.elem.copy())
    x_stored = np.zeros_like(b)
    stored.solve(b, x_stored)
    fused = ChainSolver(integ.model.space.W, fj.bc_dofs)
    assert fused.n_local == 12                      # the DG1 stresses are eliminated first
    fused.attach(fj)
    fj.csr = False
    fj.elem[:] = np.nan                             # not read on this path
    fj.assemble()
    fused.factor(fj.elem)                           # reports the assembly's factorisation
    x = np.zeros_like(b)
    fused.solve(b, x)
    assert fused.backward_error(fj.elem, b, x) <= roundoff(1.0)   # its vertex system's
    ref = spl.spsolve(A, b)
    assert np.max(np.abs(x - ref)) <= solve_bound(A, ref)
    assert np.array_equal(x, x_stored)
    fused.detach()
    assert fj.condenser is None


def test_chain_order_of_disjoint_chains():
    """Two chains (cells 0-1 on vertices 4-2-0, cell 2 on 1-3) and a loop (rejected)."""
    order, left = _chain_order(np.array([[2, 0], [4, 2], [1, 3]]), 5)
    assert order.tolist() == [0, 2, 4, 1, 3] and left.tolist() == [1, 1, 0]
    assert _chain_order(np.array([[0, 1], [1, 2], [2, 0]]), 3) is None
    assert _chain_order(np.array([[0, 1]]), 3) is None        # an isolated vertex


@pytest.mark.exactness
def test_singular_interior_block_falls_back_to_mumps(monkeypatch):
    """An interior block the chain solver rejects (here every pivot, by a growth bound of
    1e-300) and that has no zero-compliance stresses to move out: it warns and MUMPS solves;
    the iterates are MUMPS's."""
    monkeypatch.setattr(chain_module, "MAX_GROWTH", 1e-300)
    make = lambda: flying_spaghetti(3).model  # noqa: E731
    with pytest.warns(RuntimeWarning, match="singular interior block"):
        fallback, integ = newton_iterates(make, 0.1, 3, linear_solver="chain")
    assert integ.newton.chain.reason is not None
    ref, _ = newton_iterates(make, 0.1, 3, linear_solver="mumps")
    assert np.max(np.abs(fallback - ref)) <= roundoff(np.max(np.abs(ref)), 2 * (len(ref) - 3))


def test_zero_compliance_stresses_join_the_vertex_blocks():
    """Kirchhoff rod (C = 0 in shear and extension): the element interior blocks are
    singular (rank 29 of 30), so the three constrained stress components (two DG1 dofs
    each) move into the vertex block on their right (saddle-point variant, 24 x 24 blocks)
    and the iterates equal MUMPS's (test_chain_gives_mumps_newtonnewton_iterates)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _, integ = newton_iterates(MODELS["clamped_kirchhoff_dynamic"][0], 1e-3, 1,
                                   linear_solver="chain")
    solver = integ.newton.chain.chain
    assert len(solver.retained) == 6 and solver.nv == 18 + 6 and solver.ni == 30 - 6
    first = solver.vertex_dofs[0]            # the clamped end: no cell on its left
    assert np.all(first[18:] == -1) and np.all(solver.vertex_dofs[1:] >= 0)


def test_quasistatic_elastica_also_moves_the_mid_node_position():
    """Euler elastica in statics (Ex. 6.3 constrained): no mass holds the mid-node
    position, so the interior block stays singular without the constrained stresses (its
    null space: the three position unknowns). They join the vertex blocks too (27 x 27);
    the iterates equal MUMPS's (test_chain_gives_mumps_newtonnewton_iterates)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _, integ = newton_iterates(MODELS["quasistatic_elastica"][0], 0.1, 1,
                                   linear_solver="chain")
    solver = integ.newton.chain.chain
    assert len(solver.retained) == 9 and solver.nv == 27 and solver.ni == 30 - 9
    q = integ.model.space.W.sub(0).dofmap.list   # the q unknowns of the mid node retained
    assert np.all(np.isin(solver.vertex_dofs[1:, 24:], np.asarray(q)))


def test_chain_refuses_in_one_line_what_it_cannot_solve():
    """``linear_solver="chain"`` where the chain solver cannot run is refused with one line
    naming the setting and why (never re-routed to MUMPS in silence): without fast
    assembly, on a structure with joints; an unknown name likewise."""
    with pytest.raises(ParameterError, match="linear_solver.*fast_assembly"):
        Integrator(flying_spaghetti(2).model, 0.1,
                   SolverSettings(linear_solver="chain", fast_assembly=False))
    sec = Section.circular(0.01, E=1e9, nu=0.3, rho=1e3)
    rods = [Rod(sec, (0, 0, 0), (0.5, 0, 0), (0, 1, 0), 2),
            Rod(sec, (0.5, 0, 0), (1, 0, 0), (0, 1, 0), 2)]
    welded = RodModel(Structure(rods, [Rigid((0, "L"), (1, "0"))]), [], [Clamp("0")])
    with pytest.raises(ParameterError, match="linear_solver.*joints"):
        Integrator(welded, 0.1, SolverSettings(linear_solver="chain"))
    with pytest.raises(ParameterError, match="linear_solver"):
        SolverSettings(linear_solver="thomas")


def test_linear_solver_default_from_the_environment(monkeypatch):
    """FXROD_LINEAR_SOLVER sets the default linear solver (an explicit one wins); any other
    value is a one-line ParameterError naming the variable and the allowed values."""
    monkeypatch.delenv("FXROD_LINEAR_SOLVER", raising=False)
    assert SolverSettings().linear_solver == "auto"
    for name in ("mumps", "chain", "auto"):
        monkeypatch.setenv("FXROD_LINEAR_SOLVER", name)
        assert SolverSettings().linear_solver == name
        assert SolverSettings(linear_solver="mumps").linear_solver == "mumps"
    monkeypatch.setenv("FXROD_LINEAR_SOLVER", "thomas")
    with pytest.raises(ParameterError, match=r"FXROD_LINEAR_SOLVER = 'thomas'.*'mumps'") as err:
        SolverSettings()
    assert "\n" not in str(err.value)


def test_auto_picks_the_chain_where_it_applies_and_mumps_silently_elsewhere(monkeypatch):
    """The linear solver "auto" (the default unless FXROD_LINEAR_SOLVER says otherwise):
    the chain solver (and Newton without SNES) on a rod; MUMPS without a warning on welded
    rods (a joint) and after a rejected factorisation (growth bound 1e-300), with the reason
    kept."""
    auto = SolverSettings(linear_solver="auto")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        integ = Integrator(flying_spaghetti(3).model, 0.1, auto)
        integ.step()
        assert integ.newton.chain.reason is None and integ.newton.fast_solves == 1
        rods = [Rod(Section(rhoA=1.0, M11=1.0, M22=1.0, k_s1=1e4, k_s2=1e4, k_e=1e4,
                            k_b1=1e3, k_b2=1e3, k_t=1e3, radius=0.1),
                    start=(k, 0.0, 0.0), end=(k + 1.0, 0.0, 0.0), d1=(0, 1, 0), n_elements=2)
                for k in range(2)]
        welded = RodModel(Structure(rods, [Rigid((0, "L"), (1, "0"))]),
                          [EndLoad("L", rod=1, force=(0.0, 0.0, -1.0))], [Clamp("0")],
                          quasistatic=True)
        integ = Integrator(welded, 1.0, auto)
        assert getattr(integ.newton, "chain", None) is None and integ.step().newton_its > 0
        monkeypatch.setattr(chain_module, "MAX_GROWTH", 1e-300)
        integ = Integrator(flying_spaghetti(3).model, 0.1, auto)
        assert integ.step().newton_its > 0
        assert "singular interior block" in integ.newton.chain.reason


@pytest.mark.exactness
def test_backtracking_line_search_on_the_chain_path():
    """A solve with the "bt" line search (the Integrator's last retry) needs the assembled
    Jacobian (the slope F . J dx): on the chain path it is assembled for that solve, and the
    reason, the iterations and the solution equal MUMPS's (to round-off); the chain solver
    stays on (no fallback) and the next "basic" solves factor inside the assembly again."""
    out = {}
    for solver in ("chain", "mumps"):
        integ = Integrator(cantilever_vibration(4, constraints=()).model, 1e-3,
                           SolverSettings(linear_solver=solver))
        integ.model.update_inputs(0.0, 1e-3)
        reason, its = integ.newton.solve(lag=1, linesearch="bt")
        out[solver] = (reason, its, integ.model.w.x.array.copy(), integ)
    (r_c, i_c, w_c, integ), (r_m, i_m, w_m, _) = out["chain"], out["mumps"]
    assert r_c == r_m > 0 and i_c == i_m
    assert np.max(np.abs(w_c - w_m)) <= roundoff(np.max(np.abs(w_m)), 2 * i_m)
    pc = integ.newton.chain
    assert pc.reason is None and not integ.newton.fast_jacobian.csr
    assert pc.chain.attached is integ.newton.fast_jacobian
