"""Assembly of the rod model: mesh, mixed space, state, boundary conditions and the UFL
residual of one implicit midpoint step (42), compiled once.

The stepper (:mod:`fxrod.integrators`) only sees ``model.F`` (the residual form), the
unknown ``model.w`` and the Dirichlet conditions; physics enters through the terms of
:mod:`fxrod.forms` and through extension objects (:class:`Extension`), which may add stress
fields, momentum stresses, residual rows, stored energy, dissipation and port power.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import ufl
from dolfinx import fem
from mpi4py import MPI

from fxrod.bcs import Clamp
from fxrod.errors import ParameterError
from fxrod.forms import elastic
from fxrod.kinematics import split_q, strains
from fxrod.loads import Load
from fxrod.rod import Rod
from fxrod.spaces import create_rod_mesh, mixed_space


class Extension:
    """Interface of a physics extension (viscoelastic branches, actuators, ...).

    Every method has a neutral default, so an extension implements only what it needs.
    """

    def elements(self) -> list:
        """Extra unknown fields (basix elements) appended to the mixed space."""
        return []

    def setup(self, ctx, fields_new: list, fields_old: list, tests: list) -> None:
        """Receive the context and the UFL pieces of the extension's own fields."""

    def momentum_stress(self, ctx):
        """A 6-vector added to ``sigma_e`` in the momentum balance, or None."""
        return None

    def residual(self, ctx):
        """Residual rows of the extension's own fields (already divided by h), or None."""
        return None

    def stored_energy(self, ctx, fields):
        """Energy stored in the extension's fields (a scalar form), or None."""
        return None

    def dissipation(self, ctx):
        """Dissipated energy of one step ``D^n`` (a scalar form), or None."""
        return None

    def port_work(self, ctx):
        """Work supplied through the extension's port in one step (a scalar form), or None."""
        return None

    def update(self, t_eval: float, t_mid: float) -> None:
        """Update time-dependent constants before a step."""


@dataclass
class Context:
    """UFL pieces shared by all terms of the residual."""

    mesh: object
    dx: ufl.Measure
    dx_nodal: ufl.Measure
    ds: ufl.Measure
    h: fem.Constant
    theta: fem.Constant
    rhoA: fem.Constant
    M11: fem.Constant
    M22: fem.Constant
    C: fem.Constant
    q1: object
    q0: object
    v0: object
    sig1: object
    sig0: object
    lam: object
    loads: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self.vm = (self.q1 - self.q0) / self.h          # (42a), eliminated
        self.v1 = 2.0 * self.vm - self.v0
        self.qm = 0.5 * (self.q1 + self.q0)
        self.q_e = self.q0 + self.theta * (self.q1 - self.q0)
        self.sig_e = self.sig0 + self.theta * (self.sig1 - self.sig0)
        self.sigma_momentum = self.sig_e
        _, self.d_e = split_q(self.q_e)

    @property
    def d_eval(self):
        """Directors at the evaluation state (midpoint in dynamics)."""
        return self.d_e

    def ds_end(self, end: str) -> ufl.Measure:
        """Point measure at ``s = 0`` (tag 1) or ``s = L`` (tag 2)."""
        return self.ds(1 if end == "0" else 2)


class RodModel:
    """A discretised rod with its loads, clamps and extensions.

    Parameters
    ----------
    rod : Rod
        Geometry, section, mesh size, constraints.
    loads : sequence of Load
        End and distributed loads.
    clamps : sequence of Clamp
        Clamped ends (the others are free).
    extensions : sequence of Extension
        Extra physics.
    comm : MPI communicator
        Communicator of the mesh (default ``MPI.COMM_WORLD``).
    """

    def __init__(
        self,
        rod: Rod,
        loads: Sequence[Load] = (),
        clamps: Sequence[Clamp] = (),
        extensions: Sequence[Extension] = (),
        comm=None,
    ) -> None:
        if not isinstance(rod, Rod):
            raise ParameterError("rod", rod, "a fxrod.Rod")
        for ld in loads:
            if not isinstance(ld, Load):
                raise ParameterError("loads", ld, "fxrod load objects (EndLoad, ...)")
        for c in clamps:
            if not isinstance(c, Clamp):
                raise ParameterError("clamps", c, "fxrod.Clamp objects")
        ends = [c.end for c in clamps]
        if len(set(ends)) != len(ends):
            raise ParameterError("clamps", ends, "at most one clamp per end")
        self.rod = rod
        self.loads = list(loads)
        self.clamps = list(clamps)
        self.extensions = list(extensions)
        self.comm = MPI.COMM_WORLD if comm is None else comm

        self.mesh = create_rod_mesh(self.comm, rod.length, rod.n_elements)
        extra = [e for ext in self.extensions for e in ext.elements()]
        self.space = ms = mixed_space(self.mesh, extra)
        W = ms.W
        self.w = fem.Function(W, name="w")       # unknown (q_{n+1}, sigma_{n+1}, lambda)
        self.w0 = fem.Function(W, name="w0")     # state at t_n (lambda: last multiplier)
        self.v0 = fem.Function(ms.Q, name="v")   # velocity at t_n
        self.v1 = fem.Function(ms.Q, name="v1")  # velocity at t_{n+1}

        # end-point tags for the point measure
        tdim = self.mesh.topology.dim
        from dolfinx import mesh as dmesh

        L = rod.length
        v0 = dmesh.locate_entities_boundary(self.mesh, tdim - 1, lambda x: np.isclose(x[0], 0.0))
        vL = dmesh.locate_entities_boundary(self.mesh, tdim - 1, lambda x: np.isclose(x[0], L))
        ents = np.concatenate([v0, vL]).astype(np.int32)
        vals = np.concatenate([np.full(v0.size, 1), np.full(vL.size, 2)]).astype(np.int32)
        order = np.argsort(ents)
        self.end_tags = dmesh.meshtags(self.mesh, tdim - 1, ents[order], vals[order])
        self._end_facets = {"0": v0, "L": vL}

        sec = rod.section
        c = lambda v: fem.Constant(self.mesh, np.float64(v))  # noqa: E731
        self.h = c(1.0)
        self.theta = c(0.5)
        self.rhoA, self.M11, self.M22 = c(sec.rhoA), c(sec.M11), c(sec.M22)
        self.C = fem.Constant(self.mesh, rod.compliance)
        # Stiffness of the unconstrained strains (0 for constrained ones) and reference strains;
        # used only for the diagnostic column strain_energy_displacement (elastic energy of
        # the displacement-based strains with the full, instantaneous stiffness)
        k = np.where(rod.compliance > 0, sec.stiffness, 0.0)
        self.K = fem.Constant(self.mesh, k)
        self.eps0 = fem.Constant(self.mesh, np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0]))

        u = ufl.split(self.w)
        u0 = ufl.split(self.w0)
        tests = ufl.TestFunctions(W)
        q1, sig1, lam = u[0], u[1], u[2]
        q0, sig0 = u0[0], u0[1]
        self.ctx = ctx = Context(
            mesh=self.mesh, dx=ms.dx, dx_nodal=ms.dx_nodal,
            ds=ufl.Measure("ds", domain=self.mesh, subdomain_data=self.end_tags),
            h=self.h, theta=self.theta, rhoA=self.rhoA, M11=self.M11, M22=self.M22, C=self.C,
            q1=q1, q0=q0, v0=self.v0, sig1=sig1, sig0=sig0, lam=lam, loads=self.loads,
        )
        for ld in self.loads:
            ld.setup(ctx)
        i = 3
        for ext in self.extensions:
            n = len(ext.elements())
            ext.setup(ctx, list(u[i:i + n]), list(u0[i:i + n]), list(tests[i:i + n]))
            i += n
        extra_stress = [s for s in (e.momentum_stress(ctx) for e in self.extensions)
                        if s is not None]
        for s in extra_stress:
            ctx.sigma_momentum = ctx.sigma_momentum + s

        dq, dsig, dlam = tests[0], tests[1], tests[2]
        F = (elastic.inertia(ctx, dq) + elastic.internal(ctx, dq)
             + elastic.constraint_force(ctx, dq)
             + elastic.compliance(ctx, dsig, sig1, sig0, self.C)
             + elastic.constraint(ctx, dlam))
        P = elastic.external_power(ctx, dq)
        if P is not None:
            F = F - P
        for ext in self.extensions:
            r = ext.residual(ctx)
            if r is not None:
                F = F + r
        # Scaled by h: the rows of (42) as written in the paper, so that the absolute
        # Newton tolerance has the paper's meaning (spec 4: 'absolute tolerance eps').
        self.F = self.h * F

        # Diagnostics forms (same UFL pieces as the residual)
        Pv = elastic.external_power(ctx, ctx.vm)
        self.work_form = None if Pv is None else self.h * Pv                 # W_ext^n (44)
        port = [f for f in (e.port_work(ctx) for e in self.extensions) if f is not None]
        self.port_form = sum(port[1:], port[0]) if port else None
        diss = [f for f in (e.dissipation(ctx) for e in self.extensions) if f is not None]
        self.dissipation_form = sum(diss[1:], diss[0]) if diss else None

        self.bcs = self._make_bcs()
        self.set_initial_state()

    # ------------------------------------------------------------------ state
    def _make_bcs(self) -> list:
        bcs = []
        W, ms = self.space.W, self.space
        for clamp in self.clamps:
            facets = self._end_facets[clamp.end]
            qdofs = fem.locate_dofs_topological((W.sub(0), ms.Q), 0, facets)
            qval = fem.Function(ms.Q)
            s = 0.0 if clamp.end == "0" else self.rod.length
            qval.interpolate(lambda x, s=s: np.tile(
                self.rod.initial_configuration([s])[0][:, None], (1, x.shape[1])))
            bcs.append(fem.dirichletbc(qval, qdofs, W.sub(0)))
            Lspace, _ = W.sub(2).collapse()
            ldofs = fem.locate_dofs_topological((W.sub(2), Lspace), 0, facets)
            lval = fem.Function(Lspace)
            bcs.append(fem.dirichletbc(lval, ldofs, W.sub(2)))
        return bcs

    def set_initial_state(self) -> None:
        """Straight, stress-free reference configuration at rest."""
        qf = fem.Function(self.space.Q)
        qf.interpolate(lambda x: self.rod.initial_configuration(x[0]).T)
        self.w0.x.array[:] = 0.0
        self.w0.x.array[self.space.q_map] = qf.x.array
        self.w.x.array[:] = self.w0.x.array
        self.v0.x.array[:] = 0.0

    def set_velocity(
        self,
        v_phi: Callable[[np.ndarray], np.ndarray] | Sequence[float] | None = None,
        omega: Callable[[np.ndarray], np.ndarray] | Sequence[float] | None = None,
    ) -> None:
        """Set the current velocity from a centreline velocity [m/s] and an angular
        velocity [rad/s] (spatial), each a constant 3-vector or a callable ``s -> (3, n)``.

        The director velocities are ``v_dk = omega x d_k`` (spec 1.2), so ``G_d v_d = 0``.
        """
        q = self.q_nodal_local()
        s = self.space.Q.tabulate_dof_coordinates()[:, 0]

        def ev(f, name):
            if f is None:
                return np.zeros((s.size, 3))
            if callable(f):
                a = np.asarray(f(s), dtype=float)
                return a.T if a.shape == (3, s.size) else a.reshape(s.size, 3)
            from fxrod.errors import check_vector

            return np.tile(check_vector(name, f, 3), (s.size, 1))

        vp, om = ev(v_phi, "v_phi"), ev(omega, "omega")
        v = np.empty_like(q)
        v[:, 0:3] = vp
        for k in range(3):
            v[:, 3 + 3 * k:6 + 3 * k] = np.cross(om, q[:, 3 + 3 * k:6 + 3 * k])
        self.v0.x.array[:] = v.reshape(-1)

    def q_nodal_local(self) -> np.ndarray:
        """Local (owned + ghost) nodal configuration ``(n_local_nodes, 12)`` at t_n."""
        return self.w0.x.array[self.space.q_map].reshape(-1, 12)

    # ---------------------------------------------------------- diagnostics
    def strain_form(self):
        """Displacement-based strains minus reference strains of the current state."""
        q0 = ufl.split(self.w0)[0]
        return strains(q0, q0.dx(0)) - self.eps0
