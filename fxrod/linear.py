"""Linearised analysis: natural frequencies and mode shapes of a rod about its current
state (the reference, or an equilibrium reached by a quasi-static run).

About an equilibrium ``(q*, sigma*, lambda*)`` the mixed equations of motion linearise to
the constrained generalised eigenproblem (theory §2.6)::

    [ K_g(sigma*, lambda*)  B^T  G^T ] [dq     ]          [ M 0 0 ] [dq     ]
    [ B                    -C    0   ] [dsigma ] = w^2    [ 0 0 0 ] [dsigma ]
    [ G                     0    0   ] [dlambda]          [ 0 0 0 ] [dlambda]

with ``B = d eps(q*)`` the strain operator, ``G = G_d(d*)`` the orthonormality constraints
and ``K_g`` the geometric (and follower-load) stiffness. It is the Jacobian of the
quasi-static step (42) with the evaluation at the end point and h = 1, taken at
``q_{n+1} = q_n``: the compliance rows ``C (sigma_{n+1} - sigma_n) - d eps[q_m; q_{n+1} -
q_n]`` then differentiate exactly to ``C dsigma - B dq``. The stresses, multipliers and
supported dofs carry no mass: they give infinite eigenvalues, which the shift-invert
spectral transformation (SLEPc, MUMPS) maps away, so only physical modes are returned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import ufl
from dolfinx import fem
from dolfinx.fem.petsc import assemble_matrix
from petsc4py import PETSc
from slepc4py import SLEPc

from fxrod.errors import ParameterError, check_int_min
from fxrod.forms.base import Context
from fxrod.kinematics import split_q


@dataclass
class Modes:
    """Natural modes of a rod.

    Attributes
    ----------
    omega : ndarray
        Circular frequencies [rad/s], ascending.
    frequency : ndarray
        Frequencies [Hz].
    shapes : list of ndarray
        Mode shapes: the nodal ``dq = (dphi, dd1, dd2, dd3)`` of this rank's P2 nodes,
        ``(n_local_nodes, 12)``, normalised to unit modal mass ``dq^T M dq = 1``.
    """

    omega: np.ndarray
    frequency: np.ndarray
    shapes: list[np.ndarray]


def _linear_forms(model):
    """The static Jacobian (h = 1, end-point evaluation) and the mass form."""
    for ext in model.extensions:
        if ext.fields() or ext.momentum_stress(model.ctx) is not None:
            raise ParameterError("extensions", ext.name,
                                 "none with own fields or stresses for a modal analysis")
    one = fem.Constant(model.mesh, np.float64(1.0))
    u, u0 = ufl.split(model.w), ufl.split(model.w0)
    tests = ufl.TestFunctions(model.space.W)
    base = model.ctx
    ctx = Context(mesh=model.mesh, dx=base.dx, dx_nodal=base.dx_nodal, ds=base.ds, h=one,
                  theta=one, rhoA=model.rhoA, M11=model.M11, M22=model.M22, C=model.C,
                  q1=u[0], q0=u0[0], v0=model.v0, sig1=u[1], sig0=u0[1], lam=u[2],
                  dq=tests[0], inertia=False, loads=model.loads)
    F = model.step_residual(ctx, tests, u[1], u0[1])
    J = ufl.derivative(F, model.w)
    du = ufl.TrialFunctions(model.space.W)[0]
    (wphi, wd), (uphi, ud) = split_q(tests[0]), split_q(du)
    M = (model.rhoA * ufl.dot(wphi, uphi) + model.M11 * ufl.dot(wd[0], ud[0])
         + model.M22 * ufl.dot(wd[1], ud[1])) * base.dx
    return fem.form(J), fem.form(M)


def modes(model, n_modes: int = 6, target: float = 0.0) -> Modes:
    """The ``n_modes`` natural modes of ``model`` nearest to ``target`` [rad^2/s^2] about its
    current state ``w0`` (which should be an equilibrium: the reference, or the end of a
    quasi-static run). The loads enter at their last evaluated values (follower loads with
    their load stiffness). A free rod's rigid-body modes come out at (numerically) zero
    frequency; an unstable equilibrium's negative eigenvalues are not returned.

    Raises
    ------
    ParameterError
        For ``n_modes < 1`` or extensions with their own fields (viscoelastic branches).
    RuntimeError
        If SLEPc converges fewer than ``n_modes`` eigenpairs.
    """
    n_modes = check_int_min("n_modes", n_modes, 1)
    J, M = _linear_forms(model)
    w_saved = model.w.x.array.copy()
    model.w.x.array[:] = model.w0.x.array          # linearise at q_{n+1} = q_n
    try:
        A = assemble_matrix(J, bcs=model.bcs, diag=1.0)
        A.assemble()
    finally:
        model.w.x.array[:] = w_saved
    E = assemble_matrix(M, bcs=model.bcs, diag=0.0)
    E.assemble()
    eps = SLEPc.EPS().create(comm=model.comm)
    eps.setOperators(A, E)
    eps.setProblemType(SLEPc.EPS.ProblemType.GNHEP)
    eps.setDimensions(n_modes)
    eps.setTarget(target)
    eps.setWhichEigenpairs(SLEPc.EPS.Which.TARGET_MAGNITUDE)
    eps.setTolerances(1e-12, 200)
    st = eps.getST()
    st.setType(SLEPc.ST.Type.SINVERT)
    ksp = st.getKSP()
    ksp.setType(PETSc.KSP.Type.PREONLY)
    pc = ksp.getPC()
    pc.setType(PETSc.PC.Type.LU)
    pc.setFactorSolverType("mumps")
    eps.solve()
    nconv = eps.getConverged()
    if nconv < n_modes:
        raise RuntimeError(f"SLEPc converged {nconv} of {n_modes} eigenpairs")
    vr, _ = A.createVecs()
    Mq = E.createVecs()[0]
    found = []
    for i in range(nconv):
        lam = eps.getEigenpair(i, vr)
        if abs(lam.imag) > 1e-8 * max(1.0, abs(lam.real)):
            continue                                 # not a mode of a stable equilibrium
        if lam.real < 0.0:                           # rigid-body modes of a free rod
            lam = complex(0.0, 0.0) if abs(lam.real) <= 1e-8 * max(1.0, abs(target)) else lam
            if lam.real < 0.0:
                continue
        x = vr.getArray(readonly=True).copy()
        E.mult(vr, Mq)
        mass = float(vr.dot(Mq))                    # global (a collective dot product)
        found.append((lam.real, x / np.sqrt(abs(mass))))
    found.sort(key=lambda p: p[0])
    found = found[:n_modes]
    omega = np.sqrt([f[0] for f in found])
    qmap = model.space.q_map
    n_owned = vr.getLocalSize()
    shape_fn = fem.Function(model.space.W)
    shapes = []
    for _, x in found:
        shape_fn.x.array[:] = 0.0
        shape_fn.x.array[:n_owned] = x
        shape_fn.x.scatter_forward()                 # ghost values from their owners
        for bc in model.bcs:                         # supported dofs: exactly at rest
            shape_fn.x.array[bc.dof_indices()[0]] = 0.0
        shapes.append(shape_fn.x.array[qmap].reshape(-1, 12).copy())
    for m in (A, E, vr, Mq):
        m.destroy()
    eps.destroy()
    return Modes(omega=omega, frequency=omega / (2.0 * np.pi), shapes=shapes)
