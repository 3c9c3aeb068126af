"""fxrod: geometrically exact rods with FEniCSx.

Formulations
------------
* Mixed port-Hamiltonian Cosserat rod (Kinon, Eugster & Betsch, CMAME 458, 2026), director
  form, implicit midpoint steps solved with PETSc SNES (:mod:`fxrod.model`,
  :mod:`fxrod.integrators`).
* 2D gradient-deficient ANCF beam (:mod:`fxrod.ancf`).
* Hamel field variational integrator on SE(3) (:mod:`fxrod.hamel`).

Importing fxrod imports ``dolfinx_solver`` first (it provides the PETSc used by DOLFINx) and
sets ``UCX_TLS=self,sm,tcp`` unless the user has set it, so MPI starts on machines without a
network fabric. On a cluster with InfiniBand, export ``UCX_TLS`` yourself (e.g. ``UCX_TLS=all``)
or ``FXROD_KEEP_UCX=1`` before importing fxrod. Importing has no other process-wide effect:
the allocator tuning (:mod:`fxrod._malloc`) happens when the first solver is created, VTK's
environment is set only when a picture is drawn.
"""

from __future__ import annotations

import os

if "UCX_TLS" not in os.environ and not os.environ.get("FXROD_KEEP_UCX"):
    os.environ["UCX_TLS"] = "self,sm,tcp"

import dolfinx_solver  # noqa: E402,F401  (must precede dolfinx / petsc4py)

__version__ = "0.1.0"

from fxrod.errors import ConvergenceError, ParameterError  # noqa: E402
from fxrod.settings import SolverSettings  # noqa: E402

__all__ = ["ConvergenceError", "ParameterError", "SolverSettings", "__version__"]
