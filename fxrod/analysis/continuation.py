"""Arc-length continuation of quasi-static equilibrium paths, with their stability.

A quasi-static :class:`fxrod.core.model.RodModel` (end-point evaluation) whose loads are functions
of the load factor (their time argument ``t = lambda``) has the static residual
``R(u, lambda)`` = the model's step residual ``F`` with ``h = 1``, the loads at ``lambda`` and
``u = (q, sigma, multipliers)``: with the end-point evaluation the compliance and constraint
rows hold the exact increments ``eps(q) - eps(q_n)`` and ``d_k.d_l - (d_k.d_l)_n``, so a
solution does not depend on the previous point ``w0`` (theory §6). Riks/Crisfield continuation
traces ``R(u, lambda) = 0`` by the arc length ``Delta s`` of the increment from the last
converged point ``(u_A, lambda_A)``::

    a(Du, Dlambda) = |Du|_W^2 + psi^2 Dlambda^2 - Delta s^2 = 0

``|Du|_W^2 = (1/N) sum_nodes (|Dphi|^2 + l^2 sum_k |Dd_k|^2)`` the mean square nodal
displacement [m^2] (``l`` the director weight, default the rod length), ``psi`` [m] the
weight of the load factor. Newton on the extended system ``(R, a) = 0`` solves, with one
factorisation of the tangent ``J = dR/du`` per iteration and two right-hand sides,
``J du_R = -R`` and ``J du_F = R_lambda``; then
``dlambda = -(a + c.du_R)/(d - c.du_F)``, ``du = du_R - dlambda du_F`` with
``c = 2 W Du``, ``d = 2 psi^2 Dlambda`` (the bordering algorithm). The predictor follows the
tangent ``(u', 1) / |(u', 1)|``, ``J u' = -R_lambda``, oriented so that it makes an acute
angle with the previous increment (the direction of travel is kept through limit points,
where the sign of ``det J`` would turn it back). The arc length grows or shrinks with the
Newton iterations, ``Delta s <- Delta s sqrt(target/its)`` (factor in [1/2, 2], bounds
``[ds_min, ds_max]``), and is halved when a step fails. ``R_lambda`` is the central difference
of the residual in ``lambda`` (exact for loads affine or quadratic in ``lambda``).

Stability indicator. The tangent of the mixed system, with the compliance rows negated, is
the symmetric saddle-point matrix ``[[K, B^T, G^T], [B, -C, 0], [G, 0, 0]]``. By Sylvester's
law of inertia and the inertia of a saddle-point matrix, its number of negative eigenvalues
is ``n_sigma + n_lambda`` (one per stress and per active multiplier dof, the constraints being
of full rank) plus the number of negative eigenvalues of the stiffness reduced to the
constraint manifold: the number of unstable directions of the equilibrium. MUMPS's
symmetric indefinite LDL^T factorisation (``pc_type cholesky``, SYM = 2) reports the number
of negative pivots (INFOG(12), equal to the number of negative eigenvalues, ICNTL(13) = 1 so
that it is counted on the root node under MPI too) at no extra cost: the same factorisation
solves the bordered system. This counts double eigenvalues (a column with equal bending
stiffnesses) that the sign of the determinant misses, and needs no eigenvalue iteration
(SLEPc) at every point.

Non-symmetric tangents. Follower loads, end or distributed moments (a spatial moment does
virtual work on the rotation ``1/2 sum_k d_k x delta d_k``: its load stiffness
``1/2 sum_k delta d_k . (m x Delta d_k)`` is skew) and spatial-formulation actuators make the
tangent non-symmetric. Such a model is factorised by MUMPS LU (also any model with
``ArcLengthSettings(factorisation="lu")``), and the inertia is not available: MUMPS computes
the determinant with the factors, and the index becomes its parity, 0 or 1,
``sign det(D J) (-1)^(n_sigma + n_lambda)`` = the sign of the determinant of the stiffness
reduced to the constraint manifold (the block determinant of the saddle point,
``det(-C) det(G G^T)`` times it, holds for a non-symmetric stiffness as well): the parity of
its number of negative real eigenvalues (complex pairs have a positive product). A simple
real eigenvalue crossing zero (a limit point, a divergence bifurcation) flips it; two real
eigenvalues crossing together (a double one, e.g. equal bending stiffnesses) or turning into
a complex pair leave it unchanged, and under non-conservative loads a parity of 0 does not
mean stable (flutter is a dynamic instability: Beck's column has no static critical load).
For a symmetric tangent the parity is the index modulo 2.

A change of the index between two points is located by bisection in
the arc length; it is a limit point if the load-factor component of the path tangent changes
sign there, else a bifurcation. At a bifurcation the critical mode (inverse iteration with the
factorised tangent) can start the bifurcated branch: branch switching.

Contact. Frictionless penalty contact is conservative: with the end-point evaluation its
residual is the exact gradient of ``k/2 <-g>^2`` at the point, its tangent symmetric, and a
point on the path does not depend on the previous one. Contact with a rigid obstacle is part
of the UFL residual; rod-rod contact (outside UFL) adds its rows and blocks through the hooks
of the model (``model.nonlocal_terms``), as in the Newton solvers. An obstacle may move
with the load factor (``u(lambda)``, a prescribed displacement that drives the path). The
penalty's stiffness jumps where a contact opens or closes: Newton still converges there (the
residual is continuous), and a step that does not is halved. Friction and contact damping
depend on the increment (the path, not the point) and are refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import ufl
from dolfinx.fem.petsc import assemble_matrix, assemble_vector, create_matrix
from mpi4py import MPI
from petsc4py import PETSc

from fxrod.core.forms.contact import Contact
from fxrod.errors import ConvergenceError, ParameterError, check_finite, check_positive
from fxrod.native import jit
from fxrod.output.tables import CSVWriter
from fxrod.solvers import mumps
from fxrod.solvers.newton import global_bc_dofs
from fxrod.solvers.settings import SolverSettings

#: Codes of the ``event`` column: a regular point, a located limit point, a bifurcation.
EVENTS = {"point": 0, "limit": 1, "bifurcation": 2}

#: Factorisations of the tangent (:class:`ArcLengthSettings`): ``"auto"`` (LDL^T and the
#: index where the model's tangent is symmetric, LU and the parity of the index where it has
#: follower loads, moments or spatial actuators) and ``"lu"`` (LU and the parity always).
FACTORISATIONS = ("auto", "lu")


@dataclass(frozen=True)
class ArcLengthSettings:
    """Options of the arc-length continuation (lengths in m, the load factor in its own
    units).

    Attributes
    ----------
    ds : float
        First arc length [m], in ``[ds_min, ds_max]``. Default 0.1.
    ds_min, ds_max : float
        Bounds of the arc length [m], ``0 < ds_min <= ds_max``. Defaults 1e-8, 10.
    psi : float
        Weight of the load factor in the arc length [m per unit load factor], >= 0 (0: the
        cylindrical arc length; needs a path that moves the nodes). Default 1.
    director_weight : float or None
        Weight ``l`` [m] of the director increments in ``|Du|_W``, >= 0; None: the rod
        length.
    target_its : int
        Newton iterations aimed at per step (arc-length control), >= 1. Default 4.
    max_it : int
        Newton iterations before a step counts as failed (and is halved), >= 2. Default 15.
    ctol : float
        A step has converged when the correction ``|(du, psi dlambda)|`` falls below
        ``ctol max(Delta s, ds)`` (Newton converges quadratically: the next residual is at
        round-off), in (0, 1). Default 1e-9.
    locate : bool
        Locate the critical points (index changes) by bisection. Default True.
    critical_rtol : float
        Bisection stops when the load factors bracketing a critical point differ by less
        than ``critical_rtol max(1, |lambda|)``, in (0, 0.1). Default 1e-9.
    switch_branch : bool
        At the first bifurcation, leave the path along the critical mode. Default False.
    branch_sign : int
        Side of the bifurcated branch (+1 or -1): the sign of the critical mode, whose
        largest nodal position component is positive. Default +1.
    factorisation : {"auto", "lu"}
        Factorisation of the tangent and the stability information it gives
        (:data:`FACTORISATIONS`, module docstring). Default ``"auto"``.
    """

    ds: float = 0.1
    ds_min: float = 1e-8
    ds_max: float = 10.0
    psi: float = 1.0
    director_weight: float | None = None
    target_its: int = 4
    max_it: int = 15
    ctol: float = 1e-9
    locate: bool = True
    critical_rtol: float = 1e-9
    switch_branch: bool = False
    branch_sign: int = 1
    factorisation: str = "auto"

    def __post_init__(self) -> None:
        check_positive("ds_min", self.ds_min)
        check_positive("ds_max", self.ds_max)
        if self.ds_min > self.ds_max:
            raise ParameterError("ds_min", self.ds_min, f"<= ds_max = {self.ds_max}")
        ds = check_finite("ds", self.ds)
        if not self.ds_min <= ds <= self.ds_max:
            raise ParameterError("ds", self.ds, f"in [ds_min, ds_max] = [{self.ds_min}, "
                                 f"{self.ds_max}]")
        if check_finite("psi", self.psi) < 0.0:
            raise ParameterError("psi", self.psi, ">= 0")
        if self.director_weight is not None and \
                check_finite("director_weight", self.director_weight) < 0.0:
            raise ParameterError("director_weight", self.director_weight, ">= 0 or None")
        for name, lo in (("target_its", 1), ("max_it", 2)):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise ParameterError(name, v, f"an integer >= {lo}")
        if not 0.0 < check_finite("ctol", self.ctol) < 1.0:
            raise ParameterError("ctol", self.ctol, "in (0, 1)")
        if not 0.0 < check_finite("critical_rtol", self.critical_rtol) < 0.1:
            raise ParameterError("critical_rtol", self.critical_rtol, "in (0, 0.1)")
        if self.branch_sign not in (1, -1):
            raise ParameterError("branch_sign", self.branch_sign, "+1 or -1")
        if self.factorisation not in FACTORISATIONS:
            raise ParameterError("factorisation", self.factorisation,
                                 f"one of {FACTORISATIONS}")


def _set_inputs(model, lam: float) -> None:
    """The model's inputs at the load factor ``lam``, set as for a quasi-static step of
    length ``h = 1`` ending at ``lam`` (:meth:`fxrod.core.model.RodModel.begin_step`): the loads
    at ``lam``, a moving obstacle at ``u(lam)`` (and ``u(lam - 1)`` at the start of the step,
    which the end-point evaluation of frictionless, undamped contact does not use)."""
    model.begin_step(lam - 1.0, 1.0)


class TangentSolver:
    """All linear algebra of the continuation: the residual, its load-factor derivative,
    the tangent with its compliance rows negated, its MUMPS factorisation (LDL^T with the
    inertia, or LU with the sign of the determinant: module docstring) and solves.

    With joints (``model.reduction``, theory §2.7) the tangent is reduced, ``T^T J T`` with
    its Dirichlet rows and columns set to the identity, and :meth:`solve` and
    :meth:`critical_mode` return prolongations ``T x_r`` of the reduced solutions.

    The model's terms outside UFL (rod-rod contact, ``model.nonlocal_terms``) add their rows
    to the residual and their blocks to the tangent after the UFL assembly, as in the Newton
    solvers (their pattern may grow: MUMPS then analyses the matrix again).

    Parameters
    ----------
    model : RodModel
        A quasi-static model with the end-point evaluation.
    icntl : dict of int to int
        MUMPS ICNTL values (:meth:`fxrod.solvers.settings.SolverSettings.icntl`).
    symmetric : bool
        True: the tangent is symmetric (checked at every factorisation), LDL^T and the index;
        False: LU and the parity of the index.
    """

    def __init__(self, model, icntl: dict[int, int], symmetric: bool = True) -> None:
        self.model = model
        self.symmetric = bool(symmetric)
        self.F, self.J = jit.forms([model.F, ufl.derivative(model.F, model.w)])
        self.A = create_matrix(self.J)
        imap = model.space.W.dofmap.index_map
        self.n_owned = imap.size_local * model.space.W.dofmap.index_map_bs
        bc_dofs = [bc.dof_indices()[0] for bc in model.bcs]
        bc_all = np.unique(np.concatenate(bc_dofs)) if bc_dofs else np.zeros(0, np.int64)
        self.bc_owned = bc_all[bc_all < self.n_owned]
        self.terms = list(model.nonlocal_terms)
        # rows and columns the terms leave out: the Dirichlet dofs of the full tangent (the
        # reduced one has its own Dirichlet rows, set after the product T^T A T)
        self.skip = (global_bc_dofs(model.w, model.bcs) if model.reduction is None
                     else np.empty(0, dtype=np.int64))
        sig = model.field_dofs("sigma")
        sig = sig[sig < self.n_owned]
        self.D = self.A.createVecLeft()
        self.D.set(1.0)
        self.D.array[sig] = -1.0                    # negate the compliance rows
        mult = model.field_dofs("lambda")
        mult = np.setdiff1d(mult[mult < self.n_owned], self.bc_owned)
        self.red = red = model.reduction
        self.Ar: PETSc.Mat | None = None
        if red is not None:
            mult = mult[np.isin(mult, red.masters_local)]     # eliminated ones are gone
            self.bc_red = red.reduced_dofs(self.bc_owned)
            self.bc_rows = (self.bc_red + red.red_offset).astype(np.int32)
            self.D_r = red.T.createVecRight()
            red.restrict(self.D.array, self.D_r)
        # negative eigenvalues of the tangent of a stable equilibrium (module docstring)
        self.offset = model.comm.allreduce(int(sig.size + mult.size), op=MPI.SUM)
        self.direct = (mumps.DirectSolver(model.comm, icntl, factor="ldlt") if self.symmetric
                       else mumps.DirectSolver(model.comm, icntl, factor="lu",
                                               determinant=True))
        self._checked = False
        self._b = self.A.createVecLeft()

    def residual(self, lam: float) -> PETSc.Vec:
        """``R(u, lambda)`` at the current ``model.w``, Dirichlet rows zero (a new Vec)."""
        _set_inputs(self.model, lam)
        b = assemble_vector(self.F)
        b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
        for t in self.terms:
            t.add_residual(b, self.skip)
        b.array[self.bc_owned] = 0.0
        return b

    def load_derivative(self, lam: float) -> PETSc.Vec:
        """``dR/dlambda`` by a central difference, or at ``lambda < d`` (inputs may be
        defined for ``lambda >= 0`` only: an actuator's input table) the one-sided
        ``(-3 R(lambda) + 4 R(lambda + d) - R(lambda + 2 d)) / (2 d)``; both are exact for
        loads quadratic in lambda."""
        d = 1e-4 * max(1.0, abs(lam))
        if lam - d >= 0.0:
            rp, rm = self.residual(lam + d), self.residual(lam - d)
            rp.axpy(-1.0, rm)
            rp.scale(0.5 / d)
            rm.destroy()
        else:
            r0, r1, rp = self.residual(lam), self.residual(lam + d), self.residual(lam + 2 * d)
            rp.scale(-1.0)
            rp.axpy(4.0, r1)
            rp.axpy(-3.0, r0)
            rp.scale(0.5 / d)
            for v in (r0, r1):
                v.destroy()
        _set_inputs(self.model, lam)
        return rp

    def factorise(self) -> int:
        """Assemble and factorise the tangent at the current ``model.w``; return the
        stability index (negative eigenvalues of the reduced stiffness), or its parity (0 or
        1) with the LU factorisation.

        Raises
        ------
        ParameterError
            If the tangent factorised by LDL^T is not symmetric.
        ConvergenceError
            If MUMPS fails (an exactly singular tangent).
        """
        A = self.A
        A.zeroEntries()
        if self.red is None:
            assemble_matrix(A, self.J, bcs=self.model.bcs, diag=1.0)
            A.assemble()
            self._add_terms(A)
            A.diagonalScale(L=self.D)
        else:
            assemble_matrix(A, self.J)
            A.assemble()
            self._add_terms(A)
            T = self.red.T
            if self.Ar is None:
                self.Ar = A.ptap(T)
            elif self.terms:      # the pattern may have grown: the product's pattern
                Ar = A.ptap(T)
                self.Ar.zeroEntries()
                self.Ar.axpy(1.0, Ar, structure=PETSc.Mat.Structure.DIFFERENT_NONZERO_PATTERN)
                Ar.destroy()
            else:
                A.ptap(T, result=self.Ar)
            self.Ar.zeroRowsColumns(self.bc_rows, diag=1.0)
            self.Ar.diagonalScale(L=self.D_r)
            A = self.Ar
        # at every point: a term whose asymmetry grows with the load (zero at the start)
        # would otherwise be factorised as symmetric from one triangle, in silence
        if self.symmetric and not A.isSymmetric(1e-9 * A.norm(PETSc.NormType.INFINITY)):
            raise ParameterError("model", "a non-symmetric tangent",
                                 "conservative (dead loads, elastic extensions) for the "
                                 "LDL^T of the arc-length continuation (or "
                                 "ArcLengthSettings(factorisation='lu'))")
        if self.symmetric and not self._checked:
            A.setOption(PETSc.Mat.Option.SYMMETRIC, True)
            A.setOption(PETSc.Mat.Option.SPD, False)
            self._checked = True
        try:
            self.direct.factor(A)
        except RuntimeError as err:
            raise ConvergenceError(math.nan, math.nan, str(err)) from None
        if self.symmetric:
            return self.direct.negative_eigenvalues() - self.offset
        try:
            sign = self.direct.determinant_sign() * (-1) ** self.offset
        except RuntimeError as err:
            raise ConvergenceError(math.nan, math.nan, str(err)) from None
        return 0 if sign > 0 else 1

    def _add_terms(self, A: PETSc.Mat) -> None:
        """Add the blocks of the registered non-local terms to the assembled ``A``."""
        for t in self.terms:
            t.add_jacobian(A, self.skip)

    def solve(self, rhs: PETSc.Vec) -> PETSc.Vec:
        """``J^{-1} rhs`` with the last factorisation (a new Vec of the full space)."""
        if self.red is None:
            rhs.copy(self._b)
            self._b.pointwiseMult(self._b, self.D)
            x = self.A.createVecRight()
            self.direct.solve(self._b, x)
            return x
        T = self.red.T
        b = T.createVecRight()
        T.multTranspose(rhs, b)
        b.array[self.bc_red] = 0.0
        b.pointwiseMult(b, self.D_r)
        xr = T.createVecRight()
        self.direct.solve(b, xr)
        x = T.createVecLeft()
        T.mult(xr, x)
        for v in (b, xr):
            v.destroy()
        return x

    def critical_mode(self, iterations: int = 8) -> np.ndarray:
        """Owned entries of the (right) eigenvector of the factorised tangent nearest to
        zero, by inverse iteration from a fixed start vector, normalised to unit 2-norm (a
        real one near a crossing of a simple real eigenvalue)."""
        M = self.A if self.red is None else self.Ar
        x = M.createVecRight()
        r0 = x.getOwnershipRange()[0]
        x.array[:] = np.sin(1.2345 * np.arange(r0, r0 + x.getLocalSize()) + 0.1)
        x.array[self.bc_owned if self.red is None else self.bc_red] = 0.0
        y = x.duplicate()
        for _ in range(iterations):
            x.scale(1.0 / x.norm())
            self.direct.solve(x, y)
            y.copy(x)
        x.scale(1.0 / x.norm())
        if self.red is None:
            return x.array.copy()
        full = self.red.T.createVecLeft()
        self.red.T.mult(x, full)
        return full.array / math.sqrt(self.model.comm.allreduce(
            float(full.array @ full.array), op=MPI.SUM))


@dataclass
class PathPoint:
    """A converged point of the path.

    Attributes
    ----------
    lam : float
        Load factor [-].
    s : float
        Accumulated arc length [m].
    index : int
        Negative eigenvalues of the reduced tangent stiffness (0: stable); with the LU
        factorisation their parity, 0 or 1 (:attr:`Continuation.symmetric`, module
        docstring).
    event : str
        ``"point"``, ``"limit"`` or ``"bifurcation"`` (a located critical point).
    newton_its : int
        Newton iterations of the step.
    u : numpy.ndarray
        Owned entries of the mixed unknown.
    displacements : dict of str to ndarray
        Displacement (3,) [m] of each named point from the start of the path.
    """

    lam: float
    s: float
    index: int
    event: str
    newton_its: int
    u: np.ndarray = field(repr=False)
    displacements: dict[str, np.ndarray] = field(default_factory=dict)


def non_symmetric(model) -> list[str]:
    """The model's loads and extensions whose tangent is not symmetric: follower loads,
    moments (spatial or follower) and spatial-formulation actuators (module docstring)."""
    out = [f"{type(ld).__name__} (follower)" for ld in model.loads
           if getattr(ld, "follower", False)]
    out += [f"{type(ld).__name__} (moment)" for ld in model.loads
            if not getattr(ld, "follower", False) and getattr(ld, "moment", None) is not None]
    return out + [f"{ext.name} (spatial)" for ext in model.extensions
                  if getattr(ext, "formulation", None) == "spatial"]


class Continuation:
    """Arc-length continuation of a quasi-static model (module docstring).

    Parameters
    ----------
    model : RodModel
        Quasi-static, end-point evaluation, fixed supports, no extension with own fields,
        contact (:class:`fxrod.core.forms.contact.Contact`, :class:`fxrod.core.forms.rodcontact.
        RodContact`) frictionless and undamped; its loads (and obstacle motions) are
        functions of the load factor. Follower loads, moments and spatial-formulation
        actuators (a non-symmetric tangent) are factorised by LU, and the index is then its
        parity (module docstring). The path starts at its state ``w0`` (an equilibrium
        at ``lam0``).
    settings : ArcLengthSettings, optional
        Arc-length options.
    points : mapping of str to float, optional
        Named mesh coordinates [m] of P2 nodes whose displacements are recorded (the arc
        length s on a single rod; ``structure.coordinate(rod, where)`` in a structure;
        default the tip, ``model.tip_coordinate``).
    lam0 : float
        Load factor of the start. Default 0.
    solver : SolverSettings, optional
        The linear solver's options (MUMPS ICNTL values), as in the model's load stepping.

    Raises
    ------
    ParameterError
        For a model or option outside these conditions.
    """

    def __init__(self, model, settings: ArcLengthSettings | None = None,
                 points: Mapping[str, float] | None = None, lam0: float = 0.0,
                 solver: SolverSettings | None = None) -> None:
        settings = ArcLengthSettings() if settings is None else settings
        if not isinstance(settings, ArcLengthSettings):
            raise ParameterError("settings", settings,
                                 "a fxrod.analysis.continuation.ArcLengthSettings")
        solver = SolverSettings() if solver is None else solver
        if not isinstance(solver, SolverSettings):
            raise ParameterError("solver", solver, "a fxrod.SolverSettings")
        if not model.quasistatic or float(model.theta.value) != 1.0:
            raise ParameterError("model", "dynamic or midpoint evaluation",
                                 "quasi-static with evaluation='endpoint'")
        if any(getattr(s, "motion", None) is not None for s in model.supports):
            raise ParameterError("supports", "a moving clamp", "fixed supports")
        if any(ext.dissipative for ext in model.extensions):
            raise ParameterError("extensions", [e.name for e in model.extensions],
                                 "none that dissipate (drag, damping: a path-dependent, "
                                 "non-symmetric law) in the arc-length continuation")
        if any(ext.fields() for ext in model.extensions):
            raise ParameterError("extensions", [e.name for e in model.extensions],
                                 "none with own (history) fields")
        for ext in model.extensions:
            if isinstance(ext, Contact):
                for name, value in (("friction", max(ext.mu_a, ext.mu_l, ext.mu_b)),
                                    ("damping", ext.damping)):
                    if value > 0.0:
                        raise ParameterError(f"{ext.name}.{name}", value,
                                             "0 in the arc-length continuation (a path-"
                                             "dependent, non-symmetric contact law)")
        self.model, self.settings = model, settings
        length = model.structure.extent
        self.points = {"tip": model.tip_coordinate} if points is None else dict(points)
        for name, s in self.points.items():
            if not 0.0 <= check_finite(f"points[{name!r}]", s) <= length:
                raise ParameterError(f"points[{name!r}]", s, f"in [0, {length:g}] m")
        _set_inputs(model, lam0)
        #: True: LDL^T and the index; False: LU and its parity (module docstring)
        self.symmetric = settings.factorisation == "auto" and not non_symmetric(model)
        self.linear = TangentSolver(model, solver.icntl(), self.symmetric)
        n = self.linear.n_owned
        qmap = np.asarray(model.space.q_map)
        qmap = qmap[qmap < n].reshape(-1, 12)
        ell = (float(model.rod.length) if settings.director_weight is None
               else settings.director_weight)
        w = np.zeros(n)
        w[qmap[:, :3].ravel()] = 1.0
        w[qmap[:, 3:].ravel()] = ell**2
        n_nodes = model.comm.allreduce(qmap.shape[0], op=MPI.SUM)
        self._w = w / n_nodes
        self._origin = {k: self._position(s) for k, s in self.points.items()}
        self.path: list[PathPoint] = []
        self.critical: list[PathPoint] = []
        self._switched = False
        lam0 = check_finite("lam0", lam0)
        self._u = model.w0.x.array[:n].copy()
        self._lam = lam0
        self._dir: tuple[np.ndarray, float] | None = None
        self.ds = settings.ds

    # ---------------------------------------------------------------- helpers
    def _dot(self, a: np.ndarray, b: np.ndarray) -> float:
        return float(self.model.comm.allreduce(float(np.dot(a * self._w, b)), op=MPI.SUM))

    def _position(self, s: float) -> np.ndarray:
        return self.model.nodes.node_q(s)[:3].copy()

    def _set(self, u: np.ndarray, lam: float) -> None:
        """Put ``u`` into ``model.w`` (owned entries, ghosts updated) and the loads at lam."""
        w = self.model.w
        w.x.array[: u.size] = u
        w.x.scatter_forward()
        _set_inputs(self.model, lam)

    def _tangent(self, lam: float) -> tuple[np.ndarray, float]:
        """Unit path tangent ``(u', 1)/|.|`` at the factorised state (unoriented)."""
        f = self.linear.load_derivative(lam)
        f.scale(-1.0)
        x = self.linear.solve(f)
        ut = x.array.copy()
        for v in (f, x):
            v.destroy()
        norm = math.sqrt(self._dot(ut, ut) + self.settings.psi**2)
        return ut / norm, 1.0 / norm

    def _orient(self, t: tuple[np.ndarray, float], ref) -> tuple[np.ndarray, float]:
        """``t`` turned to make an acute angle with the direction ``ref`` (or lambda up)."""
        if ref is None:
            sign = 1.0
        else:
            sign = self._dot(t[0], ref[0]) + self.settings.psi**2 * t[1] * ref[1]
        return (t[0], t[1]) if sign >= 0.0 else (-t[0], -t[1])

    def _accept(self, u, lam, its, ds, event) -> PathPoint:
        """Make ``(u, lam)`` the current point: state, factorisation, index, row."""
        m = self.model
        self._set(u, lam)
        m.w0.x.array[:] = m.w.x.array
        index = self.linear.factorise()
        s = (self.path[-1].s if self.path else 0.0) + ds
        disp = {k: self._position(sp) - self._origin[k] for k, sp in self.points.items()}
        pt = PathPoint(lam, s, index, event, its, u.copy(), disp)
        self._u, self._lam = u.copy(), lam
        return pt

    # ---------------------------------------------------------------- one step
    def _corrector(self, t, ds: float) -> tuple[np.ndarray, float, int]:
        """Newton on the extended system from the point (u, lam) along ``t`` by ``ds``;
        return ``(u, lam, its)`` or raise ConvergenceError (state restored by the caller)."""
        st, lin = self.settings, self.linear
        u0, lam0 = self._u, self._lam
        u, lam = u0 + ds * t[0], lam0 + ds * t[1]
        scale = max(ds, st.ds)
        for its in range(1, st.max_it + 1):
            self._set(u, lam)
            R = lin.residual(lam)
            f = lin.load_derivative(lam)
            lin.factorise()
            R.scale(-1.0)
            xR, xF = lin.solve(R), lin.solve(f)
            duR, duF = xR.array.copy(), xF.array.copy()
            for v in (R, f, xR, xF):
                v.destroy()
            Du, Dl = u - u0, lam - lam0
            a = self._dot(Du, Du) + st.psi**2 * Dl**2 - ds**2
            c_R, c_F = 2.0 * self._dot(Du, duR), 2.0 * self._dot(Du, duF)
            den = 2.0 * st.psi**2 * Dl - c_F
            if den == 0.0 or not math.isfinite(den):
                break
            dl = -(a + c_R) / den
            du = duR - dl * duF
            if not (np.all(np.isfinite(du)) and math.isfinite(dl)):
                break
            u, lam = u + du, lam + dl
            corr = math.sqrt(self._dot(du, du) + st.psi**2 * dl**2)
            if corr <= st.ctol * scale:
                return u, lam, its
        raise ConvergenceError(lam0, ds, "arc-length Newton did not converge",
                               f"{st.max_it} iterations")

    def _step(self, t, ds: float) -> tuple[PathPoint, tuple[np.ndarray, float]]:
        """One converged step of arc length ``ds`` from the current point along ``t``
        (the current point is restored on failure); return the new point (not yet on the
        path) and its tangent oriented along the increment."""
        u0, lam0 = self._u, self._lam
        try:
            u, lam, its = self._corrector(t, ds)
            pt = self._accept(u, lam, its, ds, "point")
        except (ConvergenceError, ParameterError):
            self._accept(u0, lam0, 0, 0.0, "point")
            raise
        tn = self._orient(self._tangent(lam), (u - u0, lam - lam0))
        return pt, tn

    def _restore(self, pt: PathPoint) -> None:
        self._accept(pt.u, pt.lam, 0, 0.0, "point")

    # ---------------------------------------------------------------- critical points
    def _locate(self, a: PathPoint, t, b: PathPoint, ta, tb, ds_b: float):
        """Bisect the arc length between ``a`` and ``b`` (from ``a`` along ``t``) for the
        change of index; return the point just past it, its kind and its tangent."""
        st = self.settings
        lo, hi = 0.0, ds_b
        p_lo, p_hi, t_lo, t_hi = a, b, ta, tb
        for _ in range(80):
            if abs(p_hi.lam - p_lo.lam) <= st.critical_rtol * max(1.0, abs(a.lam)) \
                    and hi - lo <= 1e-6 * ds_b:
                break
            mid = 0.5 * (lo + hi)
            self._restore(a)
            try:
                p, tm = self._step(t, mid)
            except ConvergenceError:
                break
            if p.index == a.index:
                lo, p_lo, t_lo = mid, p, tm
            else:
                hi, p_hi, t_hi = mid, p, tm
        kind = "limit" if t_lo[1] * t_hi[1] < 0.0 else "bifurcation"
        p_hi.s = a.s + hi
        p_hi.event = kind
        self._restore(p_hi)
        return p_hi, kind, t_hi

    def _mode_direction(self) -> tuple[np.ndarray, float]:
        """The critical mode at the current (factorised) point as a unit path direction
        ``(phi, 0)``, signed by ``branch_sign`` (largest position component positive)."""
        x = self.linear.critical_mode()
        pos = x * (self._w > 0) * (self._w == self._w.max())
        hi = self.model.comm.allreduce(float(pos.max(initial=0.0)), op=MPI.MAX)
        lo = self.model.comm.allreduce(float(pos.min(initial=0.0)), op=MPI.MIN)
        sign = (1.0 if hi >= -lo else -1.0) * self.settings.branch_sign
        return sign * x / math.sqrt(self._dot(x, x)), 0.0

    # ---------------------------------------------------------------- the run
    def run(self, max_steps: int = 100, stop: Callable[[PathPoint], bool] | None = None,
            callback: Callable[[PathPoint], None] | None = None) -> list[PathPoint]:
        """Trace the path for at most ``max_steps`` steps, or until ``stop(point)`` is true.

        ``callback(point)`` is called for every point added to :attr:`path` (located
        critical points included). Returns :attr:`path`.

        Raises
        ------
        ConvergenceError
            If a step fails with the arc length at ``ds_min``.
        """
        if not isinstance(max_steps, int) or max_steps < 1:
            raise ParameterError("max_steps", max_steps, "an integer >= 1")
        st = self.settings

        def add(p: PathPoint) -> None:
            self.path.append(p)
            if p.event != "point":
                self.critical.append(p)
            if callback is not None:
                callback(p)

        if not self.path:
            add(self._accept(self._u, self._lam, 0, 0.0, "point"))
        a = self.path[-1]
        t = self._orient(self._tangent(a.lam), self._dir)
        switching = False
        for _ in range(max_steps):
            ds = self.ds
            while True:
                try:
                    b, tb = self._step(t, ds)
                    break
                except ConvergenceError as err:
                    ds *= 0.5
                    if ds < st.ds_min:
                        raise ConvergenceError(a.lam, 2 * ds, err.reason,
                                               f"arc length below ds_min = {st.ds_min:g}"
                                               ) from err
            b.s = a.s + ds
            if b.index != a.index and st.locate and not switching:
                c, kind, tc = self._locate(a, t, b, t, tb, ds)
                add(c)
                if kind == "bifurcation" and st.switch_branch and not self._switched:
                    self._switched, switching = True, True
                    a, t = c, self._mode_direction()
                    self.ds = ds
                    continue
                self._restore(b)
            switching = False
            add(b)
            grow = math.sqrt(st.target_its / max(b.newton_its, 1))
            self.ds = min(st.ds_max, max(st.ds_min, ds * min(2.0, max(0.5, grow))))
            self._dir = (b.u - a.u, b.lam - a.lam)
            a, t = b, tb
            if stop is not None and stop(b):
                break
        return self.path

    # ---------------------------------------------------------------- output
    def columns(self) -> list[str]:
        """CSV columns: ``lambda, arc_length, index, event, newton_its`` and
        ``<point>_u1..3`` [m] per named point (docs/output.md)."""
        cols = ["lambda", "arc_length", "index", "event", "newton_its"]
        return cols + [f"{k}_u{i}" for k in self.points for i in (1, 2, 3)]

    def rows(self) -> list[dict[str, float]]:
        """The path as CSV rows."""
        out = []
        for p in self.path:
            r = {"lambda": float(p.lam), "arc_length": float(p.s), "index": p.index,
                 "event": EVENTS[p.event], "newton_its": p.newton_its}
            for k, d in p.displacements.items():
                r.update({f"{k}_u{i + 1}": float(d[i]) for i in range(3)})
            out.append(r)
        return out

    def write_csv(self, path) -> None:
        """Write the path (rank 0) with :meth:`columns`."""
        cols = self.columns()
        units = {c: "m" if c in ("arc_length",) or c.rsplit("_", 1)[-1] in ("u1", "u2", "u3")
                 else "-" for c in cols}
        meanings = {"lambda": "load factor of the point",
                    "arc_length": "accumulated arc length of the path",
                    "index": "stability index (0: stable)",
                    "event": "0 regular point, 1 located limit point, 2 located bifurcation",
                    "newton_its": "Newton iterations of the step",
                    **{f"{k}_u{i}": f"displacement of the point {k} from the start, "
                       f"component {i}" for k in self.points for i in (1, 2, 3)}}
        with CSVWriter(path, cols, comm=self.model.comm, units=units, meanings=meanings) as w:
            for r in self.rows():
                w.write(r)


__all__ = ["EVENTS", "FACTORISATIONS", "ArcLengthSettings", "Continuation", "PathPoint",
           "TangentSolver", "non_symmetric"]
