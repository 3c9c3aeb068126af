"""Planar gradient-deficient ANCF Euler-Bernoulli beam as UFL forms (theory §A1-§A3).

Route: **basix Hermite on a uniform 1D mesh** (theory §A7, first route). The position
``r(x) = (r_x, r_y)`` [m] lives in the vector cubic Hermite space
``basix.ufl.element(basix.ElementFamily.Hermite, "interval", 3, shape=(2,))``. Its degrees of
freedom at each vertex are ``r`` and ``dr/dX`` where ``X in [0, 1]`` is the *reference* cell
coordinate (basix ``e-hermite.cpp``; identity map). On a uniform mesh whose cells all run in
+x this derivative dof equals ``l_e r'`` with ``l_e`` the element length, the same number on
both cells sharing the vertex, so the interpolant is C1 and reproduces the ANCF shape
functions ``S1..S4`` of §A1 exactly (including the ``l_e`` factor of ``S2``, ``S4``). The
class
therefore

* builds its own uniform mesh, or checks a user mesh and refuses a non-uniform or
  inconsistently oriented one (:class:`~fxrod.errors.ParameterError`), since there C1
  continuity is lost (theory §A7, basix issue #869);
* stores the physical slope ``r'`` (dimensionless) as ``dof / l_e``; the helpers
  :meth:`ANCFBeam.positions` and :meth:`ANCFBeam.slopes` do the conversion.

The beam is a serial object (``MPI.COMM_SELF``): it has ``4 (n_elements + 1)`` unknowns,
and under ``mpirun`` every rank owns its own beams (the demo distributes cases over ranks).

Strain energy (§A3), ``U = int 1/2 EA eps^2 dx + int 1/2 EI K^2 dx``:

* ``strain="gerstmayr"`` (option 1, default): ``eps = |r'| - 1``,
  ``K = (r' x r'') / |r'|^2`` (Gerstmayr & Irschik 2008; Exudyn ``ANCFCable2D``);
* ``strain="green"`` (option 2): ``eps = (r'.r' - 1)/2``, ``K = (r' x r'')/|r'|^3``
  (Berzeri & Shabana 2000; Chrono ``ChElementCableANCF``).

Quadrature as in Exudyn: ``"full"`` uses 5 Gauss points per element for the axial term (and
for mass and gravity) and 3 for bending; ``"reduced"`` uses 4 and 2. Graded properties are
evaluated exactly at these points (quadrature-element coefficients).

Units: SI throughout -- lengths [m], forces [N], moments [N m], accelerations [m/s^2],
energies [J].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import basix
import basix.ufl
import dolfinx
import dolfinx.fem as fem
import dolfinx.fem.petsc  # noqa: F401  (registers fem.petsc)
import numpy as np
import ufl
from mpi4py import MPI

from fxrod.ancf.material import BeamProperties
from fxrod.errors import ParameterError, check_finite, check_int_min, check_vector

#: Strain measures of theory §A3: option (1) and option (2).
STRAINS: tuple[str, ...] = ("gerstmayr", "green")
#: End conditions. ``clamped``: r and r' fixed; ``clamped_axial_free``: r and r'_y fixed
#: (Exudyn's benchmark clamp ``[1, 1, 0, 1]``); ``pinned``: r fixed; ``free``: nothing.
SUPPORTS: tuple[str, ...] = ("clamped", "clamped_axial_free", "pinned", "free")
#: Quadrature degrees (axial+mass, bending): Gauss 5/3 ("full") or 4/2 ("reduced") points.
QUADRATURE: dict[str, tuple[int, int]] = {"full": (9, 5), "reduced": (7, 3)}

_FIXED = {  # (position x, position y, slope x, slope y)
    "clamped": (True, True, True, True),
    "clamped_axial_free": (True, True, False, True),
    "pinned": (True, True, False, False),
    "free": (False, False, False, False),
}


def _check_choice(name: str, value: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ParameterError(name, value, "one of " + ", ".join(repr(a) for a in allowed))
    return value


def hermite_shape(xi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reference cubic Hermite functions and their xi-derivatives (theory §A1 divided by l_e).

    Returns ``(N, dN, d2N)``, each of shape ``(len(xi), 4)``, for the dofs
    ``[r0, l_e r0', r1, l_e r1']`` at ``xi = x / l_e`` in [0, 1].
    """
    xi = np.asarray(xi, dtype=float)
    N = np.stack([1 - 3 * xi**2 + 2 * xi**3, xi - 2 * xi**2 + xi**3,
                  3 * xi**2 - 2 * xi**3, -(xi**2) + xi**3], axis=-1)
    dN = np.stack([-6 * xi + 6 * xi**2, 1 - 4 * xi + 3 * xi**2,
                   6 * xi - 6 * xi**2, -2 * xi + 3 * xi**2], axis=-1)
    d2N = np.stack([-6 + 12 * xi, -4 + 6 * xi, 6 - 12 * xi, -2 + 6 * xi], axis=-1)
    return N, dN, d2N


@dataclass(frozen=True)
class StrainMeasures:
    """UFL strain measures of one configuration (theory §A3 notation)."""

    rp: ufl.core.expr.Expr  #: r' (dimensionless)
    rpp: ufl.core.expr.Expr  #: r'' [1/m]
    a: ufl.core.expr.Expr  #: r'.r'
    c: ufl.core.expr.Expr  #: e3.(r' x r'') [1/m]
    eps: ufl.core.expr.Expr  #: axial strain
    K: ufl.core.expr.Expr  #: curvature [1/m]


def strain_measures(r: ufl.core.expr.Expr, strain: str) -> StrainMeasures:
    """Axial strain and curvature of the centreline ``r`` (theory §A3, options 1 and 2)."""
    rp = r.dx(0)
    rpp = rp.dx(0)
    a = ufl.dot(rp, rp)
    c = rp[0] * rpp[1] - rp[1] * rpp[0]
    if strain == "gerstmayr":  # option (1)
        eps, K = ufl.sqrt(a) - 1.0, c / a
    else:  # option (2)
        eps, K = 0.5 * (a - 1.0), c / a**1.5
    return StrainMeasures(rp, rpp, a, c, eps, K)


class ANCFBeam:
    """A planar ANCF cable/beam on ``[0, L]`` with Hermite C1 interpolation (see module doc).

    Parameters
    ----------
    props : BeamProperties
        Length, (graded) modulus, density and section.
    n_elements : int
        Number of equal elements (>= 1).
    strain : {"gerstmayr", "green"}
        Strain measure, option (1) (default) or (2) of theory §A3.
    left, right : {"clamped", "clamped_axial_free", "pinned", "free"}
        End conditions at ``x = 0`` and ``x = L``.
    gravity : (float, float)
        Gravitational acceleration [m/s^2], e.g. ``(0, -9.81)``.
    tip_force : (float, float)
        Dead force at ``x = L`` [N].
    tip_moment : float
        Moment at ``x = L`` [N m] (counter-clockwise positive), doing work on the tip angle
        ``atan2(r'_y, r'_x)``.
    quadrature : {"full", "reduced"}
        Gauss points per element, axial/bending: 5/3 or 4/2.
    mesh : dolfinx.mesh.Mesh, optional
        A 1D interval mesh of ``[0, L]`` on one process; must be uniform with every cell
        running in +x. By default
        ``dolfinx.mesh.create_interval(MPI.COMM_SELF, n_elements, [0, L])``.

    Attributes
    ----------
    r : dolfinx.fem.Function
        The current configuration (dof vector ``q``; slope dofs hold ``l_e r'``).
    load : dolfinx.fem.Constant
        Load factor multiplying gravity, tip force and tip moment (1 by default).
    n_elements : int
        Number of elements.
    element_length : float
        Element length ``l_e = L / n_elements`` [m].
    q_ref : numpy.ndarray
        Straight reference configuration ``r = (x, 0)``, ``r' = (1, 0)``.
    bcs : list of dolfinx.fem.DirichletBC
        The end conditions (fixing the reference values).
    free_dofs, fixed_dofs : numpy.ndarray
        Indices into ``q`` of unconstrained and constrained dofs.

    Raises
    ------
    fxrod.errors.ParameterError
        On any invalid argument, before any form is compiled.
    """

    def __init__(
        self,
        props: BeamProperties,
        n_elements: int,
        *,
        strain: str = "gerstmayr",
        left: str = "clamped",
        right: str = "free",
        gravity: Sequence[float] = (0.0, 0.0),
        tip_force: Sequence[float] = (0.0, 0.0),
        tip_moment: float = 0.0,
        quadrature: str = "full",
        mesh: dolfinx.mesh.Mesh | None = None,
    ) -> None:
        # ---- validation (nothing compiled before this block ends) -------------------------
        if not isinstance(props, BeamProperties):
            raise ParameterError("props", props, "a fxrod.ancf.BeamProperties")
        self.props = props
        self.n_elements = check_int_min("n_elements", n_elements, 1)
        self.strain = _check_choice("strain", strain, STRAINS)
        self.left = _check_choice("left", left, SUPPORTS)
        self.right = _check_choice("right", right, SUPPORTS)
        self.quadrature = _check_choice("quadrature", quadrature, tuple(QUADRATURE))
        self.gravity = check_vector("gravity", gravity, 2)
        self.tip_force = check_vector("tip_force", tip_force, 2)
        self.tip_moment = check_finite("tip_moment", tip_moment)
        self.L = float(props.L)
        self.element_length = self.L / self.n_elements
        self.deg_axial, self.deg_bending = QUADRATURE[self.quadrature]
        if mesh is None:
            mesh = dolfinx.mesh.create_interval(MPI.COMM_SELF, self.n_elements, [0.0, self.L])
        else:
            self._check_mesh(mesh)
        self.mesh = mesh
        x_cell0 = self._cell_origins()
        xq = {d: self._quadrature_points(x_cell0, d) for d in (self.deg_axial, self.deg_bending)}
        # properties must be positive at every x: check the quadrature points (where they are
        # used) and a fine uniform sample of [0, L]
        n_sample = max(1001, 20 * self.n_elements + 1)
        props.check(np.concatenate([np.linspace(0.0, self.L, n_sample)]
                                   + [v.ravel() for v in xq.values()]))

        # ---- function space and dof layout --------------------------------------------------
        el = basix.ufl.element(basix.ElementFamily.Hermite, "interval", 3, shape=(2,))
        self.V = fem.functionspace(mesh, el)
        self._dof_layout(x_cell0)
        self.r = fem.Function(self.V, name="r")
        self.r.x.array[:] = self.q_ref
        self.load = fem.Constant(mesh, 1.0)
        self._bcs()

        # ---- graded properties at the quadrature points --------------------------------------
        qa, qb = self.deg_axial, self.deg_bending
        self.EA = self._quadrature_function(qa, xq[qa], props.EA, "EA")
        self.rhoA = self._quadrature_function(qa, xq[qa], props.rhoA, "rhoA")
        self.EI = self._quadrature_function(qb, xq[qb], props.EI, "EI")
        self.dx_a = ufl.Measure("dx", domain=mesh, metadata={"quadrature_degree": qa})
        self.dx_b = ufl.Measure("dx", domain=mesh, metadata={"quadrature_degree": qb})
        mesh.topology.create_connectivity(0, 1)
        tip = dolfinx.mesh.locate_entities_boundary(
            mesh, 0, lambda x: np.isclose(x[0], self.L, rtol=0.0, atol=1e-9 * self.L))
        tags = dolfinx.mesh.meshtags(mesh, 0, tip.astype(np.int32), 1)
        self.ds_tip = ufl.Measure("ds", domain=mesh, subdomain_data=tags, subdomain_id=1)
        self.w = ufl.TestFunction(self.V)
        self.du = ufl.TrialFunction(self.V)
        self._g = fem.Constant(mesh, self.gravity)
        self._P = fem.Constant(mesh, self.tip_force)
        self._M = fem.Constant(mesh, self.tip_moment)

        # ---- forms ---------------------------------------------------------------------------
        self.F = self.internal_virtual_work(self.r, self.w) - self.load * (
            self.dead_load_virtual_work(self.w) + self.moment_virtual_work(self.r, self.w))
        self.J = ufl.derivative(self.F, self.r, self.du)
        self._F_form = fem.form(self.F)
        self._J_form = fem.form(self.J)
        self._U_form = fem.form(self.strain_energy_density(self.r))
        self._M_form = fem.form(self.rhoA * ufl.dot(self.du, self.w) * self.dx_a)
        #: generalized dead load (gravity §A2 + tip force) at load factor 1 [N]
        self.Q_dead = fem.assemble_vector(
            fem.form(self.dead_load_virtual_work(self.w))).array.copy()

    # ------------------------------------------------------------------ construction helpers
    def _check_mesh(self, mesh: dolfinx.mesh.Mesh) -> None:
        if mesh.comm.size != 1:
            raise ParameterError("mesh", mesh, "a mesh on a single-process communicator")
        if mesh.topology.dim != 1 or mesh.geometry.dim != 1:
            raise ParameterError("mesh", mesh, "a 1D interval mesh with 1D geometry")
        dm = mesh.geometry.dofmaps[0]
        if dm.shape[1] != 2:
            raise ParameterError("mesh", mesh, "an affine (degree-1) interval mesh")
        n_cells = dm.shape[0]
        if n_cells != self.n_elements:
            raise ParameterError("mesh", f"{n_cells} cells",
                                 f"n_elements = {self.n_elements} cells")
        x = mesh.geometry.x[:, 0]
        lengths = x[dm[:, 1]] - x[dm[:, 0]]
        if np.any(lengths <= 0.0):
            raise ParameterError(
                "mesh", "cells with reversed orientation",
                "cells that all run in +x (the Hermite slope dof is dr/dX, theory §A7)")
        le = self.element_length
        if np.max(np.abs(lengths - le)) > 1e-10 * le:
            raise ParameterError(
                "mesh", f"cell lengths in [{lengths.min():.6g}, {lengths.max():.6g}] m",
                f"uniform cells of length L/n_elements = {le:.6g} m (on a non-uniform mesh "
                "the basix Hermite slope dof l_e*r' breaks C1 continuity, theory §A7)")
        if abs(x.min()) > 1e-10 * self.L or abs(x.max() - self.L) > 1e-10 * self.L:
            raise ParameterError("mesh", f"[{x.min():.6g}, {x.max():.6g}]", f"[0, {self.L}]")

    def _cell_origins(self) -> np.ndarray:
        dm = self.mesh.geometry.dofmaps[0]
        return self.mesh.geometry.x[dm[:, 0], 0].copy()

    def _quadrature_points(self, x_cell0: np.ndarray, degree: int) -> np.ndarray:
        pts, _ = basix.make_quadrature(basix.CellType.interval, degree)
        return x_cell0[:, None] + self.element_length * pts[:, 0][None, :]

    def _quadrature_function(self, degree: int, xq: np.ndarray, fn, name: str) -> fem.Function:
        qe = basix.ufl.quadrature_element(self.mesh.basix_cell(), value_shape=(), degree=degree)
        Q = fem.functionspace(self.mesh, qe)
        f = fem.Function(Q, name=name)
        f.x.array[Q.dofmap.list] = fn(xq)
        return f

    def _dof_layout(self, x_cell0: np.ndarray) -> None:
        n_nodes = self.n_elements + 1
        self.x_nodes = np.linspace(0.0, self.L, n_nodes)
        self.pos_dofs = np.empty((n_nodes, 2), dtype=np.int32)
        self.slope_dofs = np.empty((n_nodes, 2), dtype=np.int32)
        # basix Hermite entity dofs: vertex 0 -> [value, d/dX], vertex 1 -> [value, d/dX]
        cell_dofs = self.V.dofmap.list
        k0 = np.rint(x_cell0 / self.element_length).astype(int)
        for c in range(cell_dofs.shape[0]):
            for v in (0, 1):
                k = k0[c] + v
                bv, bd = cell_dofs[c, 2 * v], cell_dofs[c, 2 * v + 1]
                self.pos_dofs[k] = (2 * bv, 2 * bv + 1)
                self.slope_dofs[k] = (2 * bd, 2 * bd + 1)
        self.n_dofs = 4 * n_nodes
        q = np.zeros(self.n_dofs)
        q[self.pos_dofs[:, 0]] = self.x_nodes
        q[self.slope_dofs[:, 0]] = self.element_length  # r' = (1, 0)
        self.q_ref = q

    def _bcs(self) -> None:
        fixed: list[int] = []
        self.bcs: list[fem.DirichletBC] = []
        for node, kind in ((0, self.left), (self.n_elements, self.right)):
            px, py, sx, sy = _FIXED[kind]
            for comp, flag_p, flag_s in ((0, px, sx), (1, py, sy)):
                for flag, dofs in ((flag_p, self.pos_dofs), (flag_s, self.slope_dofs)):
                    if flag:
                        d = int(dofs[node, comp])
                        fixed.append(d)
                        self.bcs.append(fem.dirichletbc(
                            np.float64(self.q_ref[d]), np.array([d], dtype=np.int32),
                            self.V.sub(comp)))
        self.fixed_dofs = np.array(sorted(fixed), dtype=np.int32)
        self.free_dofs = np.setdiff1d(np.arange(self.n_dofs, dtype=np.int32), self.fixed_dofs)

    # ------------------------------------------------------------------ UFL building blocks
    def measures(self, r: ufl.core.expr.Expr) -> StrainMeasures:
        """Strain measures of ``r`` for this beam's strain option (theory §A3)."""
        return strain_measures(r, self.strain)

    def strain_energy_density(self, r: ufl.core.expr.Expr) -> ufl.Form:
        """Strain energy ``U = int EA eps^2/2 dx + int EI K^2/2 dx`` [J] (theory §A3)."""
        s = self.measures(r)
        return 0.5 * self.EA * s.eps**2 * self.dx_a + 0.5 * self.EI * s.K**2 * self.dx_b

    def internal_virtual_work(self, r: fem.Function, w: ufl.Argument) -> ufl.Form:
        """``dU/dq . w``: the elastic forces ``-Q_e`` of theory §A3 [J per unit test]."""
        return ufl.derivative(self.strain_energy_density(r), r, w)

    def dead_load_virtual_work(self, w: ufl.Argument) -> ufl.Form:
        """Gravity (§A2, ``int rhoA g . w dx``) and tip force (``P . w(L)``), load factor 1."""
        return (self.rhoA * ufl.dot(self._g, w) * self.dx_a
                + ufl.dot(self._P, w) * self.ds_tip)

    def moment_virtual_work(self, r: ufl.core.expr.Expr, w: ufl.Argument) -> ufl.Form:
        """Tip moment ``M dtheta`` with ``theta = atan2(r'_y, r'_x)`` at ``x = L``."""
        rp, wp = r.dx(0), w.dx(0)
        return self._M * (rp[0] * wp[1] - rp[1] * wp[0]) / ufl.dot(rp, rp) * self.ds_tip

    def discrete_gradient_virtual_work(
        self, r0: ufl.core.expr.Expr, r1: ufl.core.expr.Expr, w: ufl.Argument
    ) -> ufl.Form:
        """Strain-based discrete gradient of ``U`` between ``r0`` and ``r1`` (Gonzalez type).

        Returns ``int [EA eps_bar d_eps + EI K_bar d_K](w) dx`` with the averaged stresses
        ``eps_bar = (eps0 + eps1)/2``, ``K_bar = (K0 + K1)/2`` and discrete strain variations
        that satisfy ``d_eps(r1 - r0) = eps1 - eps0`` and ``d_K(r1 - r0) = K1 - K0`` exactly
        at every quadrature point, hence ``dU_bar . (q1 - q0) = U(q1) - U(q0)`` exactly:

        * ``a = r'.r'`` and ``c = r' x r''`` are quadratic, so ``da = 2 r'_m . w'`` and
          ``dc = w' x r''_m + r'_m x w''`` at the midpoint ``m`` are exact differences;
        * option (1): ``d_eps = da / (|r'_0| + |r'_1|)``,
          ``d_K = (a_bar dc - c_bar da) / (a0 a1)``;
        * option (2): ``d_eps = da / 2``, ``d_K = g_bar dc + c_bar S da`` with ``g = a^-3/2``
          and the secant ``S = (g1 - g0)/(a1 - a0) = -(a0 + s0 s1 + a1)/((s0 + s1) s0^3 s1^3)``,
          ``s = sqrt(a)`` (no division by ``a1 - a0``).
        """
        s0, s1 = self.measures(r0), self.measures(r1)
        rpm, rppm = 0.5 * (s0.rp + s1.rp), 0.5 * (s0.rpp + s1.rpp)
        wp = w.dx(0)
        wpp = wp.dx(0)
        da = 2.0 * ufl.dot(rpm, wp)
        dc = wp[0] * rppm[1] - wp[1] * rppm[0] + rpm[0] * wpp[1] - rpm[1] * wpp[0]
        c_bar = 0.5 * (s0.c + s1.c)
        if self.strain == "gerstmayr":
            d_eps = da / (ufl.sqrt(s0.a) + ufl.sqrt(s1.a))
            d_K = (0.5 * (s0.a + s1.a) * dc - c_bar * da) / (s0.a * s1.a)
        else:
            q0, q1 = ufl.sqrt(s0.a), ufl.sqrt(s1.a)
            g_bar = 0.5 * (s0.a**-1.5 + s1.a**-1.5)
            secant = -(s0.a + q0 * q1 + s1.a) / ((q0 + q1) * q0**3 * q1**3)
            d_eps = 0.5 * da
            d_K = g_bar * dc + c_bar * secant * da
        return (self.EA * 0.5 * (s0.eps + s1.eps) * d_eps * self.dx_a
                + self.EI * 0.5 * (s0.K + s1.K) * d_K * self.dx_b)

    def residual_form(self) -> fem.Form:
        """Compiled static residual ``F = dU/dq - load * Q_ext`` (theory §A3), as
        :meth:`residual` assembles it."""
        return self._F_form

    def mass_form(self) -> fem.Form:
        """Compiled consistent mass bilinear form ``int rhoA du . w dx`` (theory §A2)."""
        return self._M_form

    # ------------------------------------------------------------------ numeric evaluation
    def set_state(self, q: np.ndarray) -> None:
        """Copy the dof vector ``q`` into :attr:`r`."""
        self.r.x.array[:] = q

    def state(self) -> np.ndarray:
        """A copy of the current dof vector."""
        return self.r.x.array.copy()

    def residual(self, q: np.ndarray | None = None) -> np.ndarray:
        """Assembled ``F(q) = dU/dq - load * Q_ext(q)`` [N] (no boundary conditions applied)."""
        if q is not None:
            self.set_state(q)
        return fem.assemble_vector(self._F_form).array

    def jacobian(self, q: np.ndarray | None = None, diag: float = 1.0):
        """Tangent stiffness ``dF/dq`` as a PETSc matrix, fixed rows/cols set to ``diag``."""
        if q is not None:
            self.set_state(q)
        A = fem.petsc.assemble_matrix(self._J_form, bcs=self.bcs, diag=diag)
        A.assemble()
        return A

    def mass_matrix(self, diag: float = 1.0):
        """Consistent mass matrix (PETSc), fixed rows/cols set to ``diag``."""
        M = fem.petsc.assemble_matrix(self._M_form, bcs=self.bcs, diag=diag)
        M.assemble()
        return M

    def strain_energy(self, q: np.ndarray | None = None) -> float:
        """Strain energy ``U(q)`` [J] (theory §A3; nonlinear, not ``q^T K q / 2``)."""
        if q is not None:
            self.set_state(q)
        return float(fem.assemble_scalar(self._U_form))

    def tip_angle(self, q: np.ndarray | None = None) -> float:
        """Angle of the tip tangent ``atan2(r'_y, r'_x)`` at ``x = L`` [rad]."""
        q = self.r.x.array if q is None else q
        d = q[self.slope_dofs[-1]]
        return float(np.arctan2(d[1], d[0]))

    def external_work(self, q: np.ndarray | None = None) -> float:
        """Work of the external loads from the reference state to ``q`` [J].

        ``load * (Q_dead . (q - q_ref) + M theta_tip)``; gravity and tip force are dead loads,
        the moment works on the tip angle (principal branch of ``atan2``).
        """
        q = self.r.x.array if q is None else q
        lam = float(self.load.value)
        return lam * (float(self.Q_dead @ (q - self.q_ref)) + self.tip_moment * self.tip_angle(q))

    def positions(self, q: np.ndarray | None = None) -> np.ndarray:
        """Nodal positions ``r(x_k)``, shape ``(n_elements + 1, 2)`` [m]."""
        q = self.r.x.array if q is None else q
        return q[self.pos_dofs].copy()

    def slopes(self, q: np.ndarray | None = None) -> np.ndarray:
        """Nodal physical slopes ``r'(x_k) = dof / l_e``, shape ``(n_elements + 1, 2)``."""
        q = self.r.x.array if q is None else q
        return q[self.slope_dofs] / self.element_length

    def tip(self, q: np.ndarray | None = None) -> np.ndarray:
        """Tip position ``r(L)`` [m]."""
        return self.positions(q)[-1]

    def tip_displacement(self, q: np.ndarray | None = None) -> np.ndarray:
        """Tip displacement ``r(L) - (L, 0)`` [m]."""
        return self.tip(q) - np.array([self.L, 0.0])

    def _element_dofs(self, q: np.ndarray) -> np.ndarray:
        # (n_elements, 4, 2): [r0, l_e r0', r1, l_e r1'] per element, ordered from x = 0
        p, s = q[self.pos_dofs], q[self.slope_dofs]
        return np.stack([p[:-1], s[:-1], p[1:], s[1:]], axis=1)

    def sample(self, q: np.ndarray | None = None, per_element: int = 8):
        """Evaluate the centreline inside the elements with the Hermite shape functions.

        Returns
        -------
        x : (n,) array
            Reference arc length [m].
        r, rp, rpp : (n, 2) arrays
            Position [m], slope ``r'`` and ``r''`` [1/m].
        """
        q = self.r.x.array if q is None else q
        xi = np.linspace(0.0, 1.0, per_element + 1)[:-1]
        N, dN, d2N = hermite_shape(xi)
        qe = self._element_dofs(q)
        le = self.element_length
        r = np.einsum("pa,ead->epd", N, qe).reshape(-1, 2)
        rp = np.einsum("pa,ead->epd", dN, qe).reshape(-1, 2) / le
        rpp = np.einsum("pa,ead->epd", d2N, qe).reshape(-1, 2) / le**2
        x = (self.x_nodes[:-1, None] + le * xi[None, :]).ravel()
        end = self.n_elements - 1
        Ne, dNe, d2Ne = hermite_shape(np.array([1.0]))
        x = np.append(x, self.L)
        r = np.vstack([r, Ne[0] @ qe[end]])
        rp = np.vstack([rp, dNe[0] @ qe[end] / le])
        rpp = np.vstack([rpp, d2Ne[0] @ qe[end] / le**2])
        return x, r, rp, rpp

    def curvature(self, q: np.ndarray | None = None, per_element: int = 8):
        """Curvature along the beam for this beam's strain option (theory §A3).

        Returns ``(x, K)`` with ``x`` [m] and ``K`` [1/m] (counter-clockwise positive).
        """
        x, _, rp, rpp = self.sample(q, per_element)
        a = np.sum(rp * rp, axis=1)
        c = rp[:, 0] * rpp[:, 1] - rp[:, 1] * rpp[:, 0]
        return x, (c / a if self.strain == "gerstmayr" else c / a**1.5)

    def centreline(self, q: np.ndarray | None = None, per_element: int = 8) -> np.ndarray:
        """Centreline points ``(n, 3)`` with ``z = 0`` for :func:`fxrod.viz.snapshot_figure`."""
        _, r, _, _ = self.sample(q, per_element)
        return np.column_stack([r, np.zeros(len(r))])
