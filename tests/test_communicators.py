"""A model leaves no MPI communicator behind once it is gone.

Each DOLFINx mesh holds MPI communicators (its own, its index maps' and their neighbourhood
graphs), and MPICH has 2048 context ids per process: a process that keeps every model it made
aborts after a few hundred of them ("Too many communicators", exit code 15: the default test
tier did). Two things kept models alive after their last Python reference was gone, each
through a reference Python's cycle collector cannot see:

- a SNES callback that is a bound method of the solver owning the SNES (PETSc holds its
  callbacks in C): the reduced Newton solver of structures and bodies, the callbacks that add
  the rod-rod contact rows;
- CPython 3.12.7-3.13.1's cache of ``functools.singledispatchmethod``, which keeps every UFL
  derivative rule set with the forms it differentiated (gh-127750;
  :func:`fxrod.native.compat.release_dispatch_caches`).

The free context ids are counted by duplicating ``COMM_SELF`` until MPICH refuses (errors
returned, not fatal, on that communicator) and freeing the duplicates.
"""

from __future__ import annotations

import gc

import ufl
from mpi4py import MPI

from fxrod.core.forms.rodcontact import RodContact
from fxrod.core.joints import Rigid
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Clamp
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings

SEC = Section.circular(0.01, 2e11, 7800.0, nu=0.3)


def free_context_ids() -> int:
    """The communicators MPICH can still make in this process (at most 4096 counted)."""
    comm = MPI.COMM_SELF
    comm.Set_errhandler(MPI.ERRORS_RETURN)
    made = []
    try:
        while len(made) < 4096:
            made.append(comm.Dup())
    except MPI.Exception:
        pass
    for c in made:
        c.Free()
    return len(made)


def _frame() -> RodModel:
    """Two rods welded at a corner (the reduced Newton solver), clamped at one end."""
    a = Rod(SEC, start=(0, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0), n_elements=2)
    b = Rod(SEC, start=(0.5, 0, 0), end=(0.5, 0.3, 0), d1=(-1, 0, 0), n_elements=2)
    return RodModel(Structure([a, b], [Rigid((0, "L"), (1, "0"))]), [], [Clamp("0", rod=0)])


def _touching_rods() -> RodModel:
    """Two crossing rods with rod-rod contact (its rows added in the SNES callbacks)."""
    a = Rod(SEC, start=(0, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0), n_elements=2)
    b = Rod(SEC, start=(0.25, -0.2, 0.02), end=(0.25, 0.2, 0.02), d1=(1, 0, 0),
            n_elements=2)
    return RodModel(Structure([a, b]), [], [Clamp("0", rod=0), Clamp("0", rod=1)],
                    extensions=[RodContact(radius=0.01, stiffness=1e4)])


def _clamped_rod() -> RodModel:
    """One clamped rod (the Newton solver of DOLFINx's problem or the chain solver)."""
    return RodModel(Rod(SEC, start=(0, 0, 0), end=(0.5, 0, 0), d1=(0, 1, 0), n_elements=2),
                    [], [Clamp("0")])


def _step(make) -> None:
    model = make()
    Integrator(model, 1e-3, SolverSettings()).step()
    # UFL applies the derivatives of a form it rewrites (as the adjoint's ufl.replace does)
    ufl.replace(ufl.action(model.F, model.w), {model.w0: model.w})


def test_models_release_their_communicators():
    for make in (_frame, _touching_rods, _clamped_rod):
        _step(make)                                    # one-time ids (PETSc's inner comms)
        gc.collect()
        before = free_context_ids()
        for _ in range(3):
            _step(make)
        gc.collect()
        assert free_context_ids() >= before, make.__name__
