"""What each linear backend of fxrod can solve: one set of capability flags, declared by every
backend and checked before a solver is built, so that a problem a backend cannot take is
refused in one line naming both (never re-routed to another backend in silence).

Backends: the MUMPS LU and LDL^T (:mod:`fxrod.solvers.mumps`) and the chain solver
(:mod:`fxrod.solvers.chain`). The flags and the features that need them:

- ``mpi``: the matrix distributed over several ranks;
- ``joints``: the joint reduction ``w = T w_r`` (structures, closed rods);
- ``outside_ufl``: rows and blocks of the model's terms outside UFL (rod-rod contact);
- ``transpose``: solves with the transpose (the adjoint);
- ``inertia``: the number of negative eigenvalues (the continuation's stability index);
- ``batched``: convergence judged member by member (ensembles);
- ``off_mesh``: unknowns that are not on the rod mesh.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from fxrod.errors import ParameterError


@dataclass(frozen=True)
class Capabilities:
    """What a linear backend can solve (module docstring)."""

    mpi: bool = False
    joints: bool = False
    outside_ufl: bool = False
    transpose: bool = False
    inertia: bool = False
    batched: bool = False
    off_mesh: bool = False


#: The feature that needs each flag, as a refusal names it.
NEEDED_BY = {
    "mpi": "a run on several ranks",
    "joints": "joints or a closed rod (the joint reduction)",
    "outside_ufl": "terms outside UFL (rod-rod contact)",
    "transpose": "transpose solves (the adjoint)",
    "inertia": "the inertia (stability index)",
    "batched": "per-member convergence (ensembles)",
    "off_mesh": "unknowns off the rod mesh",
}

#: The declared capabilities of every backend.
BACKENDS = {
    "mumps": Capabilities(mpi=True, joints=True, outside_ufl=True, transpose=True,
                          off_mesh=True),
    "mumps-ldlt": Capabilities(mpi=True, joints=True, outside_ufl=True, transpose=True,
                               inertia=True, off_mesh=True),
    # several ranks: one open rod (fxrod.solvers.chain_mpi), refused otherwise by its own
    # applicability test (fxrod.solvers.newton.chain_refusal); transpose solves:
    # ChainSolver.solve_transpose, ChainPieces.solve_transpose
    "chain": Capabilities(mpi=True, transpose=True, batched=True),
}


def missing(backend: str, needs: Capabilities) -> list[str]:
    """The features of ``needs`` that ``backend`` does not declare."""
    have = BACKENDS[backend]
    return [NEEDED_BY[f.name] for f in fields(Capabilities)
            if getattr(needs, f.name) and not getattr(have, f.name)]


def require(setting: str, backend: str, needs: Capabilities, alternatives: str) -> None:
    """Raise a one-line ParameterError naming ``setting = backend`` and the first feature
    of ``needs`` the backend cannot take, with the ``alternatives`` allowed."""
    lacking = missing(backend, needs)
    if lacking:
        raise ParameterError(setting, backend, f"{alternatives} (the {backend} backend "
                             f"does not take {lacking[0]})")
