"""fxrod: geometrically exact rods with FEniCSx.

Formulations
------------
* Mixed port-Hamiltonian Cosserat rod (Kinon, Eugster & Betsch, CMAME 458, 2026), director
  form, implicit midpoint steps (:mod:`fxrod.core.model`, :mod:`fxrod.runs.integrators`).
* 2D gradient-deficient ANCF beam (:mod:`fxrod.ancf`).
* Hamel field variational integrator on SE(3) (:mod:`fxrod.hamel`).

The names a script needs are importable from here (``from fxrod import Rod, Section,
RodModel, Integrator, Simulation``); :data:`PUBLIC` says where each lives. They are imported
when first used, so ``import fxrod`` stays cheap.

Importing fxrod imports ``dolfinx_solver`` first (it provides the PETSc used by DOLFINx) and
sets ``UCX_TLS=self,sm,tcp`` unless the user has set it, so MPI starts on machines without a
network fabric. On a cluster with InfiniBand, export ``UCX_TLS`` yourself (e.g. ``UCX_TLS=all``)
or ``FXROD_KEEP_UCX=1`` before importing fxrod. Importing has no other process-wide effect:
the allocator tuning (:mod:`fxrod.native.malloc`) happens when the first solver is created,
VTK's environment is set only when a picture is drawn.
"""

from __future__ import annotations

import importlib
import os

if "UCX_TLS" not in os.environ and not os.environ.get("FXROD_KEEP_UCX"):
    os.environ["UCX_TLS"] = "self,sm,tcp"

import dolfinx_solver  # noqa: E402,F401  (must precede dolfinx / petsc4py)

__version__ = "0.1.0"

from fxrod.errors import ConvergenceError, ParameterError  # noqa: E402

#: The public names: ``{module: names}``; each name is importable from ``fxrod``.
PUBLIC: dict[str, tuple[str, ...]] = {
    "fxrod.solvers.settings": ("SolverSettings",),
    "fxrod.core.geometry": ("Straight", "Arc", "Circle", "Helix", "Spline", "CurveFunction"),
    "fxrod.core.rod": ("Rod", "Section", "VaryingSection"),
    "fxrod.core.loads": ("EndLoad", "DistributedLoad", "Gravity", "piecewise_linear_hat",
                         "smooth_impulse"),
    "fxrod.core.pointload": ("PointLoad",),
    "fxrod.core.supports": ("Clamp", "Pin", "Hinge"),
    "fxrod.core.joints": ("Rigid", "Spherical", "Revolute"),
    "fxrod.core.freebody": ("FreeBody", "ContactSphere", "ContactCapsule", "ContactBox",
                            "ContactCylinder"),
    "fxrod.core.structure": ("Structure",),
    "fxrod.core.obstacles": ("HalfSpace", "Sphere", "Cylinder", "SignedDistance"),
    "fxrod.core.forms.contact": ("Contact",),
    "fxrod.core.forms.rodcontact": ("RodContact",),
    "fxrod.core.forms.bodycontact": ("BodyContact",),
    "fxrod.core.forms.bodypairs": ("ShapeContact",),
    "fxrod.core.forms.drag": ("ResistiveForceDrag", "MorisonDrag", "AddedMass",
                              "AmbientDamping", "RayleighDamping"),
    "fxrod.core.forms.actuation": ("Actuation", "PressureChamber", "Tendon", "CurvatureWave"),
    "fxrod.core.forms.viscoelastic": ("MaxwellBranch", "GeneralizedMaxwell"),
    "fxrod.core.forms.springs": ("ElasticSupport",),
    "fxrod.core.forms.bodies": ("RigidBody",),
    "fxrod.core.diagnostics": ("Nodes",),
    "fxrod.core.model": ("RodModel",),
    "fxrod.runs.integrators": ("Integrator",),
    "fxrod.runs.problem": ("Problem",),
    "fxrod.runs.simulation": ("Simulation",),
    "fxrod.runs.callbacks": ("Callback", "ArrayRecorder"),
    "fxrod.runs.control": ("actuation_port",),
    "fxrod.analysis.modes": ("modes", "buckling"),
    "fxrod.analysis.continuation": ("Continuation", "ArcLengthSettings"),
    "fxrod.analysis.phmodel": ("linear_ph", "modal_ph"),
    "fxrod.analysis.lqr": ("actuated_plant", "lqr_gain", "StateFeedback"),
    "fxrod.analysis.adjoint": ("Adjoint",),
}

_WHERE = {name: mod for mod, names in PUBLIC.items() for name in names}

__all__ = ["ConvergenceError", "ParameterError", "__version__", *sorted(_WHERE)]


def __getattr__(name: str):
    """Import a public name from its module when it is first used (PEP 562)."""
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fxrod' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
