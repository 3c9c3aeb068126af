"""Linearised analysis about an equilibrium: natural modes with modal masses and
participation factors, and linear buckling (theory §2.6).

About an equilibrium ``(q*, sigma*, lambda*)`` the mixed equations of motion linearise to
the constrained generalised eigenproblem::

    [ K_g(sigma*, lambda*)  B^T  G^T ] [dq     ]          [ M 0 0 ] [dq     ]
    [ -B                    C    0   ] [dsigma ] = w^2    [ 0 0 0 ] [dsigma ]
    [ G                     0    0   ] [dlambda]          [ 0 0 0 ] [dlambda]

with ``B = d eps(q*)`` the strain operator, ``G = G_d(d*)`` the orthonormality constraints
and ``K_g`` the geometric (and follower-load) stiffness. The left operator ``A`` is the
Jacobian of the quasi-static step (42) with the evaluation at the end point and h = 1,
taken at ``q_{n+1} = q_n``: the compliance rows ``C (sigma_{n+1} - sigma_n) - d eps[q_m;
q_{n+1} - q_n]`` then differentiate exactly to ``C dsigma - B dq``. The stresses,
multipliers and supported dofs carry no mass: they give infinite eigenvalues, which the
shift-invert spectral transformation (SLEPc, MUMPS) maps away, so only physical modes are
returned. A free rod's stiffness is singular (rigid-body modes): the shift is then placed
slightly below zero (``1e-6`` of the largest diagonal ratio of ``A`` and ``M``), and
eigenvalues below ``1e-6`` of that shift are reported as exact zeros. The rigid-body motions
that ``A`` leaves without stiffness are found directly (:func:`rigid_null_space`) and
deflated: a Krylov method started from one vector sees a multiple eigenvalue once, and
found the six zeros of a free rod only partly, as many as the number of modes asked
happened to let it.

Every term of ``A`` is linearised at the state where it is evaluated, with its full
stiffness: the extensions' terms (obstacle contact, springs) are differentiated in both
states ``w`` and ``w0`` (a discrete gradient of the midpoint step is a function of both,
and its derivative in ``w`` alone is half the stiffness), and the terms outside UFL (rod-rod
contact, the model's ``nonlocal_terms``) add their Jacobian blocks at the end point
(the model's ``theta`` and ``h`` set to 1 meanwhile).

Structures with joints (theory §2.7) are solved on the reduced unknowns: ``T^T A T`` and
``T^T M T`` (PtAP), the eigenvectors prolonged ``w = T w_r``; the mass form includes the
kinetic energy of extensions (rigid bodies at rod ends).

Linear buckling about a loaded state (loads at their current values, the state an
equilibrium under them): ``A(mu) = A_0 + mu (A_1 - A_0)``, ``A_1`` the operator at the
loaded state and ``A_0`` the one at the unloaded reference; the load factors solve
``A_0 phi = mu (A_0 - A_1) phi``. About the unloaded reference itself (a model that has not
stepped) it is the classical linear buckling analysis: the loads are evaluated at ``t``, the
stresses and multipliers of the linear static solution ``A_0 dw = -F(w_ref)`` are put on the
reference configuration, and ``A_1`` is the operator there (``A(mu)`` is then exactly the
operator of the prestress times ``mu``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import ufl
from dolfinx import fem
from dolfinx.fem.petsc import assemble_matrix, assemble_vector
from mpi4py import MPI
from petsc4py import PETSc
from slepc4py import SLEPc

from fxrod.core.forms.base import Context
from fxrod.core.forms.drag import RayleighDamping
from fxrod.core.kinematics import split_q
from fxrod.core.rod import Section
from fxrod.errors import ParameterError, check_finite, check_int_min, check_vector
from fxrod.solvers import mumps
from fxrod.solvers.newton import global_bc_dofs

#: Names of the six rigid-body directions of the participation factors.
DIRECTIONS = ("x", "y", "z", "rx", "ry", "rz")
#: Relative size of the negative shift used for a target of zero (free rods).
_SHIFT = 1e-6
#: Relative tolerance of the eigen-solver (SLEPc's test on the residual of an eigenpair of
#: the shift-inverted operator): it bounds the relative error of an eigenvalue of a symmetric
#: pencil.
EIG_TOL = 1e-12


@dataclass
class Modes:
    """Natural modes of a rod about an equilibrium.

    Attributes
    ----------
    omega : ndarray
        Circular frequencies [rad/s], ascending (rigid-body modes exactly 0).
    frequency : ndarray
        Frequencies [Hz].
    shapes : list of ndarray
        Mode shapes: the nodal ``dq = (dphi, dd1, dd2, dd3)`` of this rank's P2 nodes,
        ``(n_local_nodes, 12)``, normalised to unit modal mass ``dq^T M dq = 1`` [kg^-1/2].
    modal_mass : ndarray
        Generalised mass ``phi^T M phi`` of each shape scaled to a largest nodal
        displacement ``|dphi|`` of 1 m [kg] (a mode without displacement, e.g. torsion: to
        a largest nodal rotation of 1 rad [kg m^2]).
    participation : ndarray
        ``(n_modes, 6)`` participation factors ``Gamma_j = phi^T M r_j / phi^T M phi`` of
        the same scaled shapes for the rigid-body motions ``r_j`` (``DIRECTIONS``: unit
        translations along x, y, z [-], unit rotations about x, y, z through ``centre``
        [m or rad/m]).
    effective_mass : ndarray
        ``(n_modes, 6)`` effective modal masses ``(phi^T M r_j)^2 / phi^T M phi``:
        translations [kg], rotations [kg m^2]; independent of the scaling. Over all modes
        they sum to the mass (rotary inertia) that the supports do not hold.
    centre : ndarray
        Point [m] about which the rotations ``r_rx, r_ry, r_rz`` turn.
    """

    omega: np.ndarray
    frequency: np.ndarray
    shapes: list[np.ndarray]
    modal_mass: np.ndarray
    participation: np.ndarray
    effective_mass: np.ndarray
    centre: np.ndarray


@dataclass
class Buckling:
    """Linear buckling about a loaded equilibrium.

    Attributes
    ----------
    factor : ndarray
        Critical load factors ``mu`` [-] (the current loads times ``mu`` buckle the rod),
        ascending by magnitude.
    shapes : list of ndarray
        Buckling modes, nodal ``dq`` ``(n_local_nodes, 12)``, largest component 1.
    """

    factor: np.ndarray
    shapes: list[np.ndarray]


# ---------------------------------------------------------------------- operators
def check_model(model, rayleigh: bool = False) -> None:
    """Refuse, in one line, a model a linearised analysis cannot take: extensions with
    fields of their own (internal variables) or dissipative ports (drag, damping: the
    modes are undamped, the PH export has no R for them). ``rayleigh``: accept a
    :class:`fxrod.core.forms.drag.RayleighDamping` (no static part: the operator ``A`` and
    the undamped modes are those of the model without it), for
    the PH export, which puts it into R. Free bodies (:mod:`fxrod.core.freebody`) enter
    through their inertia at their centre nodes (the mass form) and their massless rigid
    carriers (the joint reduction); their contact with obstacles is refused."""
    from fxrod.core.forms.bodycontact import BodyContact
    from fxrod.core.forms.bodypairs import ShapeContact

    for ext in model.extensions:
        if rayleigh and isinstance(ext, RayleighDamping):
            continue
        if isinstance(ext, BodyContact):
            raise ParameterError("extensions", ext.name, "no BodyContact for a linearised "
                                 "analysis (bodies in contact are verified in dynamics only)")
        if isinstance(ext, ShapeContact):
            raise ParameterError("extensions", ext.name, "no ShapeContact for a linearised "
                                 "analysis (bodies touching rods and bodies are verified in "
                                 "dynamics only)")
        if ext.fields():
            raise ParameterError("extensions", ext.name,
                                 "none with own fields (internal variables) for a "
                                 "linearised analysis")
        if ext.dissipative:
            raise ParameterError("extensions", ext.name,
                                 "none that dissipate (drag, damping) for a linearised "
                                 "analysis (undamped modes; the PH export's R holds a "
                                 "RayleighDamping only)")


def static_residual(model, loads=None):
    """The residual of the model's step as a UFL form for the operator ``A`` (h = 1,
    end-point evaluation, no inertia) with ``loads`` (default the model's), and the part of
    it the extensions' residual terms make (or None).

    Extension momentum stresses (actuators) are evaluated at the state (their ``t_n``
    argument replaced by the unknown), so they contribute their full stiffness.
    """
    one = fem.Constant(model.mesh, np.float64(1.0))
    u, u0 = ufl.split(model.w), ufl.split(model.w0)
    tests = ufl.TestFunctions(model.space.W)
    base = model.ctx
    ctx = Context(mesh=model.mesh, dx=base.dx, dx_nodal=base.dx_nodal, ds=base.ds, h=one,
                  theta=one, rhoA=model.rhoA, M11=model.M11, M22=model.M22, C=model.C,
                  q1=u[0], q0=u0[0], v0=model.v0, sig1=u[1], sig0=u0[1], lam=u[2],
                  dq=tests[0], inertia=False,
                  loads=model.loads if loads is None else list(loads),
                  point_masses=base.point_masses)
    for ext in model.extensions:
        s = ext.momentum_stress(base)
        if s is not None:
            ctx.sigma_momentum = ctx.sigma_momentum + ufl.replace(s, {model.w0: model.w})
    terms = [r for r in (ext.residual(ctx) for ext in model.extensions) if r is not None]
    return model.step_residual(ctx, tests, u[1], u0[1]), sum(terms[1:], terms[0]) if terms \
        else None


def stiffness_form(model, loads=None):
    """The operator ``A`` of the module docstring as a compiled form: the static Jacobian
    (h = 1, end-point evaluation) of the model's step with ``loads`` (default the model's).

    The extensions' residual terms are differentiated in both states ``w`` and ``w0``, i.e.
    along ``w = w0``: a term evaluated with a discrete gradient of the two states (obstacle
    contact in a dynamic model) then gives the full stiffness of its potential at the state,
    not the half that its derivative in ``w`` alone is, and a velocity ``(w - w0)/h``
    (friction, normal damping) gives none.
    """
    F, ext = static_residual(model, loads)
    du = ufl.TrialFunction(model.space.W)
    J = ufl.derivative(F, model.w, du)
    if ext is not None:
        J = J + ufl.derivative(ext, model.w0, du)
    return fem.form(J)


def mass_form(model):
    """The mass form ``(w, M du)`` on the q block [kg] as a compiled form: the rod's
    ``rhoA, M11, M22`` and the second derivative of every extension's kinetic energy in
    the velocity (rigid bodies at rod ends and free bodies at their centre nodes: their
    4 x 4 nodal mass, theory §2.7)."""
    W = model.space.W
    test, trial = ufl.TestFunction(W), ufl.TrialFunction(W)
    (wphi, wd), (uphi, ud) = split_q(ufl.split(test)[0]), split_q(ufl.split(trial)[0])
    m = (model.rhoA * ufl.dot(wphi, uphi) + model.M11 * ufl.dot(wd[0], ud[0])
         + model.M22 * ufl.dot(wd[1], ud[1])) * model.ctx.dx
    velocity = fem.Function(W)
    ctx = dataclasses.replace(model.ctx, v0=ufl.split(velocity)[0], inertia=True)
    for ext in model.extensions:
        T = ext.kinetic_energy(ctx)
        if T is not None:
            m = m + ufl.derivative(ufl.derivative(T, velocity, test), velocity, trial)
    return fem.form(m)


def assemble_at(model, form, state: np.ndarray, diag: float = 1.0,
                bcs: list | None = None, terms=()) -> PETSc.Mat:
    """Assemble ``form`` with ``w = w0 = state`` (local array of the mixed space), the
    rows and columns of ``bcs`` (default the supports') replaced by ``diag`` on the
    diagonal, plus the Jacobian blocks of the non-UFL ``terms`` (rod-rod contact) at the
    end point (:meth:`fxrod.core.model.RodModel.end_point`): their full stiffness at the state;
    ``w``, ``w0`` are restored."""
    bcs = model.bcs if bcs is None else bcs
    saved = model.w.x.array.copy(), model.w0.x.array.copy()
    model.w.x.array[:] = state
    model.w0.x.array[:] = state
    try:
        A = assemble_matrix(form, bcs=bcs, diag=diag)
        A.assemble()
        if terms:
            skip = global_bc_dofs(model.w, bcs)
            with model.end_point():
                for term in terms:
                    term.add_jacobian(A, skip)
    finally:
        model.w.x.array[:], model.w0.x.array[:] = saved
    return A


def system_matrix(model, form, state: np.ndarray, diag: float, terms=()) -> PETSc.Mat:
    """The operator of ``form`` (and of the non-UFL ``terms``, :func:`assemble_at`) at
    ``state`` on the model's unknowns: the mixed space, or, for a structure with joints, the
    reduced unknowns ``w_r`` (``T^T A T``, PETSc PtAP, theory §2.7); supported rows and
    columns replaced by ``diag`` on the diagonal."""
    red = model.reduction
    if red is None:
        return assemble_at(model, form, state, diag, terms=terms)
    A = assemble_at(model, form, state, bcs=[], terms=terms)
    Ar = A.ptap(red.T)
    A.destroy()
    Ar.zeroRowsColumns(supported_reduced(model), diag=diag)
    return Ar


def stiffness_matrix(model, state: np.ndarray, loads=None) -> PETSc.Mat:
    """The operator ``A`` at ``state`` on the model's unknowns (supported rows and columns:
    identity): :func:`stiffness_form` and the blocks of the terms outside UFL registered
    against the model's unknown (rod-rod contact)."""
    return system_matrix(model, stiffness_form(model, loads), state, 1.0,
                         model.nonlocal_terms)


def supported_reduced(model) -> np.ndarray:
    """Global reduced indices of this rank's supported dofs (they are masters)."""
    red = model.reduction
    local = [bc.dof_indices()[0][:bc.dof_indices()[1]] for bc in model.bcs]
    local = np.unique(np.concatenate(local or [np.empty(0)]).astype(np.int64))
    local = local[local < red.n_owned]
    return (red.reduced_dofs(local) + red.red_offset).astype(PETSc.IntType)


def to_unknowns(model, full: np.ndarray) -> PETSc.Vec:
    """An owned vector of the model's unknowns from a local array of the mixed space (its
    masters for a structure with joints)."""
    n_owned = model.space.W.dofmap.index_map.size_local * model.space.W.dofmap.index_map_bs
    if model.reduction is None:
        vec = model.w.x.petsc_vec.duplicate()
        vec.getArray()[:] = full[:n_owned]
    else:
        vec = model.reduction.T.createVecRight()
        model.reduction.restrict(full, vec)
    return vec


def prolonged(model, v: PETSc.Vec) -> PETSc.Vec:
    """The owned mixed-space vector of the unknowns ``v`` (``T v`` with joints; a new
    vector)."""
    if model.reduction is None:
        return v.copy()
    full = model.reduction.T.createVecLeft()
    model.reduction.T.mult(v, full)
    return full


def reference_state(model) -> np.ndarray:
    """The unloaded reference (local mixed array): ``q_ref``, zero multipliers, the
    stresses of a natural curvature (zero otherwise)."""
    w = np.zeros_like(model.w0.x.array)
    w[model.space.q_map] = model.q_ref.x.array
    if model.structure.natural_curvature is not None:
        w[model.space.s_map] = model.initial_stress()
    return w


# ---------------------------------------------------------------------- eigen-solver
def eigenpairs(A: PETSc.Mat, E: PETSc.Mat, n: int, target: float, scale: PETSc.Vec,
               comm, icntl: dict[int, int], deflation=()) -> list[tuple[complex, PETSc.Vec]]:
    """The ``n`` (at least) eigenpairs of ``A x = lambda E x`` nearest ``target``: SLEPc
    Krylov-Schur with shift-invert (MUMPS LU) on the pencil with columns scaled by
    ``scale`` (``x = scale * y``, see :func:`column_scale`; ``A`` and ``E`` are scaled in
    place); eigenvalues of the infinite part of the pencil (rows without mass) never come
    near the shift. ``deflation``: null vectors of ``A`` (eigenvalue 0) left out of the
    search (SLEPc's deflation space); the vectors returned then lack their components
    along them (:func:`undeflate`). ``icntl``: MUMPS ICNTL values."""
    A.diagonalScale(R=scale)
    E.diagonalScale(R=scale)
    eps = SLEPc.EPS().create(comm=comm)
    eps.setOptionsPrefix(mumps.new_prefix("eig"))
    eps.setOperators(A, E)
    if deflation:
        inv = _reciprocal(scale)
        space = [x.copy() for x in deflation]
        for y in space:
            y.pointwiseMult(y, inv)                    # in the scaled unknowns y
        eps.setDeflationSpace(space)
        for y in (inv, *space):
            y.destroy()
    eps.setProblemType(SLEPc.EPS.ProblemType.GNHEP)
    eps.setDimensions(n)
    eps.setTarget(target)
    eps.setWhichEigenpairs(SLEPc.EPS.Which.TARGET_MAGNITUDE)
    eps.setTolerances(EIG_TOL, 400)
    eps.getST().setType(SLEPc.ST.Type.SINVERT)
    mumps.set_options(f"{eps.getOptionsPrefix()}st_", icntl)
    eps.setFromOptions()
    try:
        eps.solve()
    except PETSc.Error as e:
        eps.destroy()
        raise RuntimeError("the shifted operator is singular: a motion without mass and "
                           "stiffness, or a stress the supports leave undetermined (e.g. "
                           "an inextensible rod between two fixed ends); try another "
                           f"target ({e})") from None
    nconv = eps.getConverged()
    if nconv < n:
        eps.destroy()
        raise RuntimeError(f"SLEPc converged {nconv} of {n} eigenpairs")
    out = []
    vi = A.createVecRight()
    for i in range(nconv):
        v = A.createVecRight()
        lam = eps.getEigenpair(i, v, vi)
        if lam.imag < 0.0:           # the second of a conjugate pair (vr -/+ i vi): keep vi,
            vi.copy(v)               # so that the pair spans its (real) eigenspace
        v.pointwiseMult(v, scale)
        out.append((complex(lam), v))
    vi.destroy()
    A.diagonalScale(R=_reciprocal(scale))
    E.diagonalScale(R=_reciprocal(scale))
    eps.destroy()
    return out


def _reciprocal(v: PETSc.Vec) -> PETSc.Vec:
    r = v.copy()
    r.reciprocal()
    return r


def undeflate(A: PETSc.Mat, E: PETSc.Mat, null: list[PETSc.Vec], lam: float,
              v: PETSc.Vec) -> None:
    """Complete ``v``, an eigenvector of the eigenvalue ``lam != 0`` computed with the null
    vectors ``null`` of ``A`` deflated (so short of its components along them), in place:
    ``x = v + N c`` with ``E N c = A v / lam - E v`` (``A N = 0``), solved by least squares
    (the system is consistent: ``x`` is an eigenvector)."""
    P = [E.createVecLeft() for _ in null]
    for x, p in zip(null, P, strict=True):
        E.mult(x, p)
    b = E.createVecLeft()
    A.mult(v, b)
    b.scale(1.0 / lam)
    Ev = E.createVecLeft()
    E.mult(v, Ev)
    b.axpy(-1.0, Ev)
    G = np.array([[p.dot(q) for q in P] for p in P])
    c = np.linalg.lstsq(G, np.array([p.dot(b) for p in P]), rcond=None)[0]
    for cj, x in zip(c, null, strict=True):
        v.axpy(cj, x)
    for m in (b, Ev, *P):
        m.destroy()


def rigid_null_space(model, A: PETSc.Mat, E: PETSc.Mat, state: np.ndarray,
                     tol: float) -> list[PETSc.Vec]:
    """The rigid-body motions of the configuration ``state`` that are eigenvectors of
    ``(A, E)`` with an eigenvalue below ``tol`` [rad^2/s^2], unit-mass and E-orthogonal:
    the eigenvectors ``c`` of the 6 x 6 pencil ``(R^T A R, R^T E R)`` (``R`` the six motions
    of :func:`rigid_body_vectors` about the nodes' centroid, on the model's unknowns, those
    without mass left out) whose motion ``x = R c`` has ``|A x| <= tol |E x|``. All six for
    a free rod without loads; supports, springs, obstacles and dead loads keep fewer (none
    if ``R^T E R`` is not positive definite)."""
    comm = model.comm
    n_own = model.space.Q.dofmap.index_map.size_local
    q = state[model.space.q_map].reshape(-1, 12)[:n_own, 0:3]
    count = comm.allreduce(n_own, op=MPI.SUM)
    centre = comm.allreduce(q.sum(axis=0), op=MPI.SUM) / count
    R = [to_unknowns(model, r.x.array) for r in rigid_body_vectors(model, state, centre)]
    AR, ER = [A.createVecLeft() for _ in R], [E.createVecLeft() for _ in R]
    for r, a, e in zip(R, AR, ER, strict=True):
        A.mult(r, a)
        E.mult(r, e)
    Kr = np.array([[r.dot(a) for a in AR] for r in R])
    Mr = np.array([[r.dot(e) for e in ER] for r in R])
    keep = np.flatnonzero(np.diag(Mr) > 0.0)
    out = []
    try:
        _, C = scipy.linalg.eigh(0.5 * (Kr + Kr.T)[np.ix_(keep, keep)], Mr[np.ix_(keep, keep)])
    except np.linalg.LinAlgError:
        C = np.empty((keep.size, 0))
    for c in C.T:
        x, ax, ex = R[0].duplicate(), AR[0].duplicate(), ER[0].duplicate()
        for y in (x, ax, ex):
            y.set(0.0)
        for cj, j in zip(c, keep, strict=True):
            x.axpy(cj, R[j])
            ax.axpy(cj, AR[j])
            ex.axpy(cj, ER[j])
        if ax.norm() <= tol * ex.norm():
            out.append(x)
        else:
            x.destroy()
        ax.destroy()
        ex.destroy()
    for m in (*R, *AR, *ER):
        m.destroy()
    return out


def nodal(model, v: PETSc.Vec) -> np.ndarray:
    """The nodal ``dq`` ``(n_local_nodes, 12)`` of an owned vector of the model's unknowns
    (prolonged with joints; ghosts filled, supported components exactly zero)."""
    fn = fem.Function(model.space.W)
    full = prolonged(model, v)
    fn.x.array[:full.getLocalSize()] = full.getArray(readonly=True)
    full.destroy()
    fn.x.scatter_forward()
    for bc in model.bcs:
        fn.x.array[bc.dof_indices()[0]] = 0.0
    return fn.x.array[model.space.q_map].reshape(-1, 12).copy()


def column_scale(model) -> PETSc.Vec:
    """Scale of the unknowns for the eigen-solver: 1 on q, the section stiffness of each
    strain on its stress component [N or N m^2], ``max(k_s1, k_s2, k_e)`` on the
    multipliers [N]. The scaled stresses (strains) and multipliers are of the size of q, so
    that the Krylov vectors are not dominated by the stresses (the residual of a mode
    would otherwise be orthogonalised away in its q part)."""
    v = _section_max(model)
    k = np.array([v[n] for n in ("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")])
    d = np.ones(model.w.x.array.size)
    d[model.space.s_map.reshape(-1, 6)] = k
    d[model.field_dofs("lambda")] = np.max(k[:3])
    return to_unknowns(model, d)


def _members(model) -> list[int]:
    """Indices of the rods proper: the free bodies' massless carriers
    (:mod:`fxrod.core.freebody`) left out, unless there are only carriers."""
    st = model.structure
    n = getattr(st, "n_members", len(st.rods))
    return list(range(n)) if n > 0 else list(range(len(st.rods)))


def _section_max(model) -> dict[str, float]:
    """The largest value along the rods of each section constant (SI units); the free
    bodies' carriers (arbitrary stiffness, no mass) count only if there are no rods."""
    st = model.structure
    x = np.concatenate([st.offsets[k] + np.linspace(0.0, st.rods[k].length,
                                                    8 * st.rods[k].n_elements + 1)
                        for k in _members(model)])
    return {n: float(np.max(v)) for n, v in st.section_values(x).items()}


def _omega2_scale(model, A: PETSc.Mat | None = None, E: PETSc.Mat | None = None) -> float:
    """``max(k_s1, k_s2, k_e) / (rhoA h_e^2)`` [1/s^2], h_e the shortest element: of the
    order of the largest eigenvalue of the pencil (the shortest axial or shear wave). Free
    bodies alone (no rods: no elastic mode, only the six rigid ones of each body) take the
    ratio ``|A|_inf / |E|_inf`` of the operators ``A`` and ``E``."""
    v = _section_max(model)
    if v["rhoA"] <= 0.0:
        if getattr(model.structure, "n_members", 1) == 0 and A is not None and E is not None:
            return A.norm(PETSc.NormType.INFINITY) / E.norm(PETSc.NormType.INFINITY)
        raise ParameterError("rhoA", v["rhoA"], "> 0 somewhere for a modal analysis")
    h_e = min(model.structure.rods[k].length / model.structure.rods[k].n_elements
              for k in _members(model))
    return max(v["k_s1"], v["k_s2"], v["k_e"]) / (v["rhoA"] * h_e**2)


def rigid_body_vectors(model, state: np.ndarray, centre) -> list[fem.Function]:
    """The six rigid-body motions of the configuration in ``state``: unit translations
    along x, y, z and unit rotations about x, y, z through ``centre`` [m] (``dphi = e x
    (phi - c)``, ``dd_k = e x d_k``), as functions of the mixed space."""
    q = state[model.space.q_map].reshape(-1, 12)
    out = []
    for j in range(6):
        e = np.eye(3)[j % 3]
        dq = np.zeros_like(q)
        if j < 3:
            dq[:, 0:3] = e
        else:
            dq[:, 0:3] = np.cross(e, q[:, 0:3] - centre)
            for k in range(3):
                dq[:, 3 + 3 * k:6 + 3 * k] = np.cross(e, q[:, 3 + 3 * k:6 + 3 * k])
        fn = fem.Function(model.space.W)
        fn.x.array[model.space.q_map] = dq.reshape(-1)
        out.append(fn)
    return out


def _mass_orthonormalise(E: PETSc.Mat, pairs: list[tuple[float, PETSc.Vec]]) -> None:
    """Make the vectors of ``pairs`` (sorted by eigenvalue) unit-mass and M-orthogonal
    within each cluster of equal eigenvalues (relative 1e-6: rigid-body modes, the two
    bending planes of a symmetric section), in place; distinct eigenvalues of the
    symmetric reduced problem are M-orthogonal already."""
    i = 0
    while i < len(pairs):
        j = i + 1
        while j < len(pairs) and abs(pairs[j][0] - pairs[i][0]) <= 1e-6 * max(
                abs(pairs[i][0]), abs(pairs[j][0])):
            j += 1
        vs = [v for _, v in pairs[i:j]]
        Mv = [E.createVecLeft() for _ in vs]
        for v, m in zip(vs, Mv, strict=True):
            E.mult(v, m)
        G = np.array([[a.dot(m) for m in Mv] for a in vs])
        D = np.diag(1.0 / np.sqrt(np.abs(np.diag(G))))      # unit masses first
        try:
            T = D @ np.linalg.inv(np.linalg.cholesky(D @ (0.5 * (G + G.T)) @ D)).T
        except np.linalg.LinAlgError:                      # masses apart by ~1/eps
            T = D
        new = [v.duplicate() for v in vs]
        for c, w in enumerate(new):
            w.set(0.0)
            for r, v in enumerate(vs):
                w.axpy(T[r, c], v)
        for k, w in enumerate(new):
            vs[k].destroy()
            pairs[i + k] = (pairs[i + k][0], w)
        for m in Mv:
            m.destroy()
        i = j


def _displacement_scale(model, shape: np.ndarray, state: np.ndarray) -> float:
    """Largest nodal displacement ``|dphi|`` [m] of a shape, or, for a shape without
    displacement, its largest nodal rotation ``|1/2 sum_k d_k x dd_k|`` [rad]."""
    comm = model.comm
    disp = comm.allreduce(float(np.max(np.linalg.norm(shape[:, 0:3], axis=1), initial=0.0)),
                          op=MPI.MAX)
    q = state[model.space.q_map].reshape(-1, 12)
    rot = 0.5 * sum(np.cross(q[:, 3 + 3 * k:6 + 3 * k], shape[:, 3 + 3 * k:6 + 3 * k])
                    for k in range(3))
    theta = comm.allreduce(float(np.max(np.linalg.norm(rot, axis=1), initial=0.0)),
                           op=MPI.MAX)
    return disp if disp > 1e-9 * theta * model.structure.length else theta


# ---------------------------------------------------------------------- public API
def modes(model, n_modes: int = 6, target: float = 0.0, centre=(0.0, 0.0, 0.0),
          rayleigh: bool = False) -> Modes:
    """The ``n_modes`` natural modes of ``model`` nearest to ``target`` [rad^2/s^2] about its
    current state ``w0`` (which should be an equilibrium: the reference, or the end of a
    quasi-static run). The loads enter at their last evaluated values (follower loads with
    their load stiffness), actuators with their current inputs, contact (obstacles, rod-rod)
    with its full penalty stiffness at the state; friction and contact damping, which
    linearise to a damping, do not enter the undamped modes. A free rod's rigid-body modes
    come out at exactly zero frequency, all six whatever ``n_modes`` (the first ``n_modes``
    of them if fewer are asked); an unstable equilibrium's negative eigenvalues are not
    returned (use :func:`buckling`).

    Parameters
    ----------
    model : RodModel
        The discrete system (its mass must not vanish: ``rhoA > 0``).
    n_modes : int
        Number of modes, >= 1.
    target : float
        Shift [rad^2/s^2]: the modes with ``omega^2`` nearest to it are returned.
    centre : 3-vector
        Point [m] of the rotations in the participation factors.
    rayleigh : bool
        Accept a :class:`fxrod.core.forms.drag.RayleighDamping` and return the undamped modes
        (:func:`fxrod.analysis.phmodel.modal_ph` adds the damping). Default False: refused.

    Raises
    ------
    ParameterError
        For ``n_modes < 1``, a negative target, or extensions with their own fields
        (viscoelastic branches), dissipative ones or the free bodies' contact.
    RuntimeError
        If SLEPc converges fewer than ``n_modes`` eigenpairs.
    """
    n_modes = check_int_min("n_modes", n_modes, 1)
    centre = check_vector("centre", centre, 3)
    if not np.isfinite(target) or target < 0.0:
        raise ParameterError("target", target, "a finite omega^2 >= 0 [rad^2/s^2]")
    check_model(model, rayleigh)
    state = model.w0.x.array.copy()
    A = stiffness_matrix(model, state)
    E = system_matrix(model, mass_form(model), state, diag=0.0)
    shift, null = float(target), []
    if shift == 0.0:
        shift = -_SHIFT * _omega2_scale(model, A, E)
        null = rigid_null_space(model, A, E, state, _SHIFT * abs(shift))
    pairs = [] if n_modes <= len(null) else eigenpairs(
        A, E, n_modes - len(null), shift, column_scale(model), model.comm,
        model.solver_settings.icntl(), deflation=null)
    Ev = E.createVecLeft()
    found = [(0.0, x) for x in null]                   # the rigid-body modes
    for lam, v in pairs:
        if target == 0.0 and abs(lam) <= _SHIFT * abs(shift):
            found.append((0.0, v))                     # another zero (a mechanism; a cluster
            continue                                   # of zeros may come as a complex pair)
        if abs(lam.imag) > 1e-8 * max(1.0, abs(lam.real)) or lam.real < 0.0:
            continue                                   # not a mode of a stable equilibrium
        if null:
            undeflate(A, E, null, lam.real, v)
        found.append((lam.real, v))
    found.sort(key=lambda p: p[0])
    found = found[:n_modes]
    _mass_orthonormalise(E, found)
    rigid = [to_unknowns(model, r.x.array) for r in rigid_body_vectors(model, state, centre)]
    shapes, mass, gamma = [], [], []
    for _, v in found:
        shape = nodal(model, v)
        a = _displacement_scale(model, shape, state)
        E.mult(v, Ev)
        L = np.array([Ev.dot(r) for r in rigid])       # phi^T M r for unit modal mass
        shapes.append(shape)
        mass.append(1.0 / a**2)                          # scaled shape: phi / a
        gamma.append(L * a)                              # (phi/a)^T M r / (1/a^2)
    mass, gamma = np.array(mass), np.array(gamma).reshape(-1, 6)
    omega = np.sqrt(np.array([f[0] for f in found]))
    for m in (A, E, Ev, *rigid, *null, *(v for _, v in pairs)):
        m.destroy()
    return Modes(omega=omega, frequency=omega / (2.0 * np.pi), shapes=shapes,
                 modal_mass=mass, participation=gamma,
                 effective_mass=gamma**2 * mass[:, None], centre=centre)


def linear_prestress(model, A0: PETSc.Mat, reference: np.ndarray) -> np.ndarray:
    """The reference configuration with the stresses and multipliers of the linear static
    solution ``A_0 dw = -F(w_ref)`` under the loads at their current values (local mixed
    array): the prebuckling state of the classical linear buckling analysis.

    ``A0`` is the unloaded operator at ``reference`` on the model's unknowns; ``F`` the
    residual of :func:`static_residual` (supported rows zero: ``dw = 0`` there)."""
    saved = model.w.x.array.copy(), model.w0.x.array.copy()
    model.w.x.array[:] = reference
    model.w0.x.array[:] = reference
    try:
        b = assemble_vector(fem.form(static_residual(model)[0]))
    finally:
        model.w.x.array[:], model.w0.x.array[:] = saved
    b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
    if model.reduction is None:
        rhs, rows = b, global_bc_dofs(model.w, model.bcs)
    else:
        rhs, rows = model.reduction.T.createVecRight(), supported_reduced(model)
        model.reduction.T.multTranspose(b, rhs)
        b.destroy()
    rhs.setValues(rows.astype(PETSc.IntType), np.zeros(rows.size))
    rhs.assemble()
    rhs.scale(-1.0)
    direct = mumps.DirectSolver(model.comm, model.solver_settings.icntl())
    direct.factor(A0)
    dw = A0.createVecRight()
    direct.solve(rhs, dw)
    fn = fem.Function(model.space.W)
    full = prolonged(model, dw)
    fn.x.array[:full.getLocalSize()] = full.getArray(readonly=True)
    fn.x.scatter_forward()
    for m in (direct, rhs, dw, full):
        m.destroy()
    state = reference + fn.x.array
    state[model.space.q_map] = reference[model.space.q_map]
    return state


def buckling(model, n_modes: int = 1, target: float = 0.0, t: float | None = None
             ) -> Buckling:
    """Critical load factors of the loads at their current values about the current state
    ``w0`` (an equilibrium under those loads, e.g. the end of a quasi-static run); for a
    state without prebuckling deformation (a straight column under an axial load) this is
    the classical linear buckling analysis. About the unloaded reference (a model that has
    not stepped) the loads are evaluated at ``t`` and the state is the linear prestress
    (:func:`linear_prestress`): the classical analysis.

    Parameters
    ----------
    model : RodModel
        The discrete system.
    n_modes : int
        Number of load factors, >= 1.
    target : float
        The factors nearest to it are returned [-].
    t : float, optional
        Time [s] or load factor [-] at which the loads and inputs are evaluated about the
        unloaded reference (default 0); only about the reference (a loaded state keeps the
        loads it is an equilibrium under).

    Raises
    ------
    ParameterError
        For ``n_modes < 1``, a non-finite target or ``t``, ``t`` about a loaded state,
        extensions with own fields, loads that leave the state unstressed (no
        geometric stiffness: nothing to buckle), or a rod of open thin-walled section
        (:class:`fxrod.core.rod.Section` ``open_thin_walled``: warping torsion is not in the rod
        model, so its torsional and lateral-torsional buckling would be wrong).
    RuntimeError
        If SLEPc converges fewer than ``n_modes`` eigenpairs.
    """
    n_modes = check_int_min("n_modes", n_modes, 1)
    if not np.isfinite(target):
        raise ParameterError("target", target, "a finite load factor")
    check_model(model)
    for i, rod in enumerate(model.structure.rods):
        if isinstance(rod.section, Section) and rod.section.open_thin_walled:
            raise ParameterError(f"section of rod {i}", "open thin-walled",
                                 "closed or solid for buckling: warping torsion (the Vlasov "
                                 "constant) is not in the rod model, so torsional and "
                                 "lateral-torsional buckling would be wrong")
    reference = reference_state(model)
    state = model.w0.x.array.copy()
    unloaded = model.comm.allreduce(bool(np.array_equal(state, reference)), op=MPI.LAND)
    if t is not None and not unloaded:
        raise ParameterError("buckling t", t, "None about a loaded state (the loads are "
                             "evaluated at t about the unloaded reference only)")
    A0 = stiffness_matrix(model, reference, loads=[])
    if unloaded:
        model.update_inputs(check_finite("t", 0.0 if t is None else t), 0.0)
        state = linear_prestress(model, A0, reference)
    A1 = stiffness_matrix(model, state)
    D = A0.copy()
    D.axpy(-1.0, A1)                                   # A_0 - A_1 (supported rows: zero)
    if D.norm(PETSc.NormType.INFINITY) == 0.0:
        for m in (A0, A1, D):
            m.destroy()
        raise ParameterError("buckling loads", "no geometric stiffness", "loads that stress "
                             "the state (a loaded equilibrium, or t where they are not zero)")
    pairs = eigenpairs(A0, D, n_modes, float(target), column_scale(model), model.comm,
                       model.solver_settings.icntl())
    found = sorted(((lam.real, v) for lam, v in pairs
                    if abs(lam.imag) <= 1e-8 * max(1.0, abs(lam.real))),
                   key=lambda p: abs(p[0] - target))[:n_modes]
    shapes = []
    for _, v in found:
        s = nodal(model, v)
        shapes.append(s / model.comm.allreduce(float(np.max(np.abs(s), initial=0.0)),
                                               op=MPI.MAX))
    for m in (A0, A1, D, *(v for _, v in pairs)):
        m.destroy()
    return Buckling(factor=np.array([f[0] for f in found]), shapes=shapes)
