"""The discrete system of a rod or a structure of rods: mesh, mixed space, named fields,
state, boundary conditions, joints, the UFL residual of one implicit midpoint step (42) and
its energy ledger.

The model owns the physics: the steppers (:mod:`fxrod.runs.integrators`) only see ``model.F``
(the residual form), the unknown ``model.w``, the Dirichlet conditions and the state update,
and never change a constant of the model. Physics enters through the terms of
:mod:`fxrod.core.forms.elastic`, the loads, and extension objects
(:class:`fxrod.core.forms.base.Extension`), which declare named fields and may add momentum
stresses, residual rows, stored energy, dissipation and port work.

Whether the problem is dynamic or quasi-static is a property of the model: a quasi-static
model has no inertia rows and no kinetic energy; its loads (gravity included) are untouched.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

import numpy as np
import ufl
from dolfinx import fem, la
from dolfinx import mesh as dmesh
from dolfinx.fem.forms import derivative_block
from mpi4py import MPI

from fxrod.core.diagnostics import Nodes
from fxrod.core.forms import elastic
from fxrod.core.forms.base import Context, Extension, Fields
from fxrod.core.forms.bodies import RigidBody
from fxrod.core.freebody import rigid_velocity
from fxrod.core.joints import Rigid
from fxrod.core.kinematics import strains
from fxrod.core.ledger import EnergyLedger, Functional
from fxrod.core.loads import EndLoad, Gravity, Load
from fxrod.core.rod import Rod
from fxrod.core.spaces import flatten_map, mixed_space, quadrature_function
from fxrod.core.structure import Structure
from fxrod.core.supports import Support
from fxrod.errors import ParameterError, check_vector
from fxrod.native import assembly, jit
from fxrod.solvers import chain
from fxrod.solvers.reduction import Reduction
from fxrod.solvers.settings import SolverSettings

#: Names of the rod's own fields in the mixed space, in order.
ROD_FIELDS = ("q", "sigma", "lambda")


def _check_inputs(rod, loads, supports, extensions, quasistatic: bool,
                  evaluation: str | None) -> str:
    """Validate the data of a :class:`RodModel` (before anything is built); return the
    evaluation (``"midpoint"`` in dynamics, ``"endpoint"`` by default in statics)."""
    if not isinstance(rod, Rod | Structure):
        raise ParameterError("rod", rod, "a fxrod.Rod or fxrod.core.structure.Structure")
    n_rods = len(rod.rods) if isinstance(rod, Structure) else 1
    for name, items, kind in (("loads", loads, Load), ("supports", supports, Support),
                              ("extensions", extensions, Extension)):
        if isinstance(items, kind) or not isinstance(items, Sequence):
            raise ParameterError(name, items, f"a list of {kind.__name__} objects")
    for ld in loads:
        if not isinstance(ld, Load):
            raise ParameterError("loads", ld, "fxrod load objects (EndLoad, ...)")
        if isinstance(ld, EndLoad) and ld.rod >= n_rods:
            raise ParameterError("EndLoad rod", ld.rod, f"< {n_rods} (the rods)")
    for c in supports:
        if not isinstance(c, Support):
            raise ParameterError("supports", c, "fxrod.core.supports supports (Clamp, Pin, Hinge)")
        if c.rod >= n_rods:
            raise ParameterError(f"{c.label} rod", c.rod, f"< {n_rods} (the rods)")
    ends = [(c.rod, c.end) for c in supports]
    if len(set(ends)) != len(ends):
        raise ParameterError("supports", ends, "at most one support per end")
    for ext in extensions:
        if not isinstance(ext, Extension):
            raise ParameterError("extensions", ext, "fxrod Extension objects")
    names = [ext.name for ext in extensions]
    if len(set(names)) != len(names):
        raise ParameterError("extension names", names, "unique within a model")
    if isinstance(rod, Structure) and rod.bodies:
        _check_free_bodies(rod, loads, extensions, quasistatic)
    bodies = [ext.name for ext in extensions if isinstance(ext, RigidBody)]
    if bodies and any(isinstance(ld, Gravity) for ld in loads):
        raise ParameterError("loads", f"Gravity with the rigid bodies {bodies}",
                             "no Gravity on a model with rigid bodies (a body's weight is not "
                             "modelled: give it as an EndLoad m g at its node and the moment "
                             "of its offset)")
    if evaluation is None:
        evaluation = "endpoint" if quasistatic else "midpoint"
    if evaluation not in ("midpoint", "endpoint"):
        raise ParameterError("evaluation", evaluation, "'midpoint' or 'endpoint'")
    if not quasistatic and evaluation != "midpoint":
        raise ParameterError("evaluation", evaluation, "'midpoint' in a dynamic model")
    return evaluation


def _check_free_bodies(structure, loads, extensions, quasistatic: bool) -> None:
    """What a model with free bodies (:mod:`fxrod.core.freebody`) takes: dynamics or load
    stepping, end loads and gravity, rigid bodies and elastic supports at nodes, the bodies'
    contact with obstacles, rods and each other (in dynamics only), actuators and curvature
    waves on the rods proper (``rod=k``, k below ``structure.n_members``); nothing else
    distributed along the rods (it would act on the bodies' carriers). Bodies with contact
    shapes need a :class:`fxrod.core.forms.bodycontact.BodyContact` or a
    :class:`fxrod.core.forms.bodypairs.ShapeContact`."""
    from fxrod.core.forms.actuation import Actuation, CurvatureWave
    from fxrod.core.forms.bodycontact import BodyContact
    from fxrod.core.forms.bodypairs import ShapeContact
    from fxrod.core.forms.springs import ElasticSupport

    bodies, n = structure.bodies, structure.n_members
    for ld in loads:
        if not isinstance(ld, EndLoad | Gravity):
            raise ParameterError("loads", type(ld).__name__, "EndLoad or Gravity with free "
                                 "bodies (a distributed load would act on their carriers)")
    for ext in extensions:
        if isinstance(ext, Actuation | CurvatureWave):
            on = [(a.label, a.rod) for a in ext.actuators] if isinstance(ext, Actuation) \
                else [("CurvatureWave", ext.rod)]
            for label, k in on:
                if k is not None and k >= n:
                    raise ParameterError(f"{label}: rod", k, f"< {n} (the rods proper; "
                                         f"{n}.. carry the free bodies)")
        elif not isinstance(ext, RigidBody | ElasticSupport | BodyContact | ShapeContact):
            raise ParameterError("extensions", ext.name, "RigidBody, ElasticSupport, "
                                 "BodyContact, ShapeContact, Actuation or CurvatureWave with "
                                 "free bodies (others would act on their carriers)")
    contact = [ext.name for ext in extensions if isinstance(ext, BodyContact)]
    if quasistatic and contact:
        raise ParameterError("extensions", contact, "no BodyContact in a quasi-static model "
                             "(bodies in contact are verified in dynamics only)")
    pairs = [ext.name for ext in extensions if isinstance(ext, ShapeContact)]
    if quasistatic and pairs:
        raise ParameterError("extensions", pairs, "no ShapeContact in a quasi-static model "
                             "(bodies touching rods and bodies are verified in dynamics only)")
    shaped = [i for i, b in enumerate(bodies) if b.shapes]
    if shaped and not any(isinstance(ext, BodyContact | ShapeContact) for ext in extensions):
        raise ParameterError(f"shapes of the free bodies {shaped}", "no contact",
                             "a model with a BodyContact (fxrod.core.forms.bodycontact) or a "
                             "ShapeContact (fxrod.core.forms.bodypairs)")


def _build_helpers() -> None:
    """fxrod's C helpers of the serial fast paths (fast assembly, chain solver), built while
    the C compiler builds a model's forms."""
    assembly.prepare()
    chain.prepare()


class RodModel:
    """A discretised rod with its loads, clamps and extensions: the discrete system.

    Parameters
    ----------
    rod : Rod or Structure
        Geometry, section, mesh size, constraints; or several rods coupled by joints
        (:class:`fxrod.core.structure.Structure`). A closed rod (a ring) is joined at its ends.
    loads : sequence of Load
        End and distributed loads.
    supports : sequence of Support
        Supports of the ends (:class:`fxrod.core.supports.Clamp`, ``Pin``, ``Hinge``); at most one
        per
        end, the other ends are free.
    extensions : sequence of Extension
        Extra physics, each with a unique ``name``.
    comm : MPI communicator
        Communicator of the mesh (default ``MPI.COMM_WORLD``).
    quasistatic : bool
        Quasi-static problem: no inertia, ``t`` is a load factor [-]. Default False.
    evaluation : {"midpoint", "endpoint"}, optional
        Where the momentum balance is evaluated (``theta`` = 1/2 or 1). Dynamics always use
        the midpoint (42). In statics ``"endpoint"`` (default) enforces equilibrium at
        ``(q_{n+1}, sigma_{n+1})`` with the loads at ``t_{n+1}``; the compliance rows keep
        the exact midpoint strain increment, so ``C sigma_{n+1} = Pi(eps(q_{n+1}))`` and
        every load step is an exact discrete equilibrium (no load-stepping error).
        ``"midpoint"`` is the paper's midpoint scheme with zero mass: an O(h^2) load-stepping
        error.

    Attributes
    ----------
    F : ufl.Form
        Residual of one step (the rows of (42) multiplied by h, as written in the paper).
    w, w0 : dolfinx.fem.Function
        Unknown at ``t_{n+1}`` and state at ``t_n`` in the mixed space.
    v0 : dolfinx.fem.Function
        Velocity at ``t_n`` (P2, 12 components).
    ledger : EnergyLedger
        The energy ledger of the system.
    nodes : Nodes
        Read-outs at the P2 nodes (tip, gathered centreline, constraints).
    structure : Structure
        The rods and joints (a single rod is a structure of one).
    reduction : Reduction or None
        The elimination ``w = T w_r`` of the joints' relations (None without joints).
    """

    def __init__(
        self,
        rod: Rod,
        loads: Sequence[Load] = (),
        supports: Sequence[Support] = (),
        extensions: Sequence[Extension] = (),
        comm=None,
        quasistatic: bool = False,
        evaluation: str | None = None,
    ) -> None:
        evaluation = _check_inputs(rod, loads, supports, extensions, quasistatic, evaluation)
        self.rod = rod
        self.loads = list(loads)
        self.supports = list(supports)
        self.extensions = list(extensions)
        self.quasistatic = bool(quasistatic)
        self.evaluation = evaluation
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.structure = st = rod if isinstance(rod, Structure) else Structure([rod])
        for ext in self.extensions:  # validation before any form is built
            if len(st.rods) > 1 and not ext.structures:
                raise ParameterError("extensions", ext.name, "extensions that act on "
                                     "structures of several rods (this one needs a single "
                                     "rod)")
            ext.bind(rod)
        #: the inertias of the free bodies at their centre nodes (RigidBody, body i at i)
        self.free_bodies: list[RigidBody] = []
        if st.bodies:
            for i, b in enumerate(st.bodies):  # the bodies' inertia at their centre nodes
                body = RigidBody((st.body_rod(i), "0"), b.mass, b.inertia, b.centre,
                                 name=b.name or f"free_body_{i}")
                body.bind(rod)
                self.extensions.append(body)
                self.free_bodies.append(body)
            names = [ext.name for ext in self.extensions]
            if len(set(names)) != len(names):
                raise ParameterError("extension and body names", names, "unique within a "
                                     "model")
        C, overrides = None, []
        if st.uniform:
            C = rod.compliance
            overrides = [c for c in (ext.compliance(C) for ext in self.extensions)
                         if c is not None]
        if len(overrides) > 1:
            raise ParameterError("extensions", [e.name for e in self.extensions],
                                 "at most one extension that sets the stress compliance")
        if overrides:
            C = check_vector("extension compliance", overrides[0], 6)

        self.mesh = st.create_mesh(self.comm)
        # named fields: the rod's, then "<extension>.<field>" in declaration order
        ext_fields = [(ext, name, el) for ext in self.extensions
                      for name, el in ext.fields().items()]
        self.space = ms = mixed_space(self.mesh, [el for _, _, el in ext_fields])
        self.field_names = list(ROD_FIELDS) + [f"{ext.name}.{n}" for ext, n, _ in ext_fields]
        W = ms.W
        self.w = fem.Function(W, name="w")       # unknown (q_{n+1}, sigma_{n+1}, lambda)
        self.w0 = fem.Function(W, name="w0")     # state at t_n (lambda: last multiplier)
        self.v0 = fem.Function(ms.Q, name="v")   # velocity at t_n
        self.v1 = fem.Function(ms.Q, name="v1")  # velocity at t_{n+1}

        self._tag_ends()

        c = lambda v: fem.Constant(self.mesh, np.float64(v))  # noqa: E731
        self.h = c(1.0)
        self.theta = c(0.5 if evaluation == "midpoint" else 1.0)
        self._section_coefficients(C)
        # stress-free strains eps0: those of the discrete reference (or natural curvature)
        self.q_ref = fem.Function(ms.Q, name="q_ref")
        self.q_ref.interpolate(lambda x: st.initial_configuration(x[0]).T)
        self.eps0 = strains(self.q_ref, self.q_ref.dx(0))
        if st.natural_curvature is not None:
            K0 = fem.Constant(self.mesh, np.asarray(st.natural_curvature))
            self.eps0 = ufl.as_vector([self.eps0[i] for i in range(3)]
                                      + [K0[i] for i in range(3)])

        u = ufl.split(self.w)
        u0 = ufl.split(self.w0)
        tests = ufl.TestFunctions(W)
        q1, sig1, lam = u[0], u[1], u[2]
        q0, sig0 = u0[0], u0[1]
        self.ctx = ctx = Context(
            mesh=self.mesh, dx=ms.dx, dx_nodal=ms.dx_nodal,
            ds=ufl.Measure("ds", domain=self.mesh, subdomain_data=self.end_tags),
            h=self.h, theta=self.theta, rhoA=self.rhoA, M11=self.M11, M22=self.M22, C=self.C,
            q1=q1, q0=q0, v0=self.v0, sig1=sig1, sig0=sig0, lam=lam, dq=tests[0],
            inertia=not self.quasistatic, loads=self.loads,
        )
        # the free bodies' masses at their centre nodes (their weight under Gravity)
        ctx.point_masses = [(b.mass, ctx.ds_end("0", st.body_rod(i)))
                            for i, b in enumerate(st.bodies)]
        for ld in self.loads:
            ld.setup(ctx)
        i = len(ROD_FIELDS)
        for ext in self.extensions:
            own = list(ext.fields())
            sl = slice(i, i + len(own))
            ext.setup(ctx, Fields(new=dict(zip(own, u[sl], strict=True)),
                                  old=dict(zip(own, u0[sl], strict=True)),
                                  test=dict(zip(own, tests[sl], strict=True))))
            i += len(own)
        #: terms outside UFL added to every system of the model (:meth:`add_nonlocal`)
        self.nonlocal_terms = [e for e in self.extensions if e.outside_ufl]
        for s in (e.momentum_stress(ctx) for e in self.extensions):
            if s is not None:
                ctx.sigma_momentum = ctx.sigma_momentum + s

        self.F = self.step_residual(ctx, tests, sig1, sig0)
        eps = self.strain_form()
        #: elastic energy [J] of the displacement-based strains at t_n with the stiffness of
        #: the unconstrained strains (the column ``strain_energy_displacement``), a UFL form
        #: compiled with the model's forms
        self.strain_energy_displacement = 0.5 * ufl.dot(eps, ufl.elem_mult(self.K, eps)) * ctx.dx

        self.bcs = self._make_bcs()
        self.reduction = self._joint_reduction()
        # the slave nodes' reference from their masters: the joints hold to the last bit
        self.q_ref.x.array[:] = self.enforce_joints(self.q_ref.x.array)
        # the ledger's forms compiled with the residual, its Jacobian and the strain energy's
        # read-out (fxrod.native.jit), the C helpers of the serial fast paths built meanwhile
        self.ledger = EnergyLedger(
            self, compile_with=(self.F, derivative_block(self.F, self.w),
                                self.strain_energy_displacement),
            meanwhile=_build_helpers if self.comm.size == 1 else None)
        self.nodes = Nodes(self)
        #: the linear solver's settings of the model's last run (set by the integrator):
        #: the analyses (modes, buckling, adjoint) factorise with the same options
        self.solver_settings = SolverSettings()
        #: compiled read-out functionals by name (:meth:`functionals`)
        self._readouts: dict[str, dict[str, Functional]] = {}
        self.set_initial_state()

    # ------------------------------------------------------------------ building
    def add_nonlocal(self, term) -> None:
        """Add a term outside UFL to every system of the model built from now on (its
        solvers, linearisations and adjoint): an object with ``add_residual(b, skip)`` and
        ``add_jacobian(A, skip)`` adding its rows to the residual vector ``b`` and its
        blocks to the Jacobian ``A`` (PETSc objects of the mixed space), rows and columns of
        the global indices ``skip`` (Dirichlet dofs) left out, scaled like the residual's
        rows (by ``h``)."""
        if not (callable(getattr(term, "add_residual", None))
                and callable(getattr(term, "add_jacobian", None))):
            raise ParameterError("term", type(term).__name__,
                                 "an object with add_residual(b, skip), add_jacobian(A, skip)")
        self.nonlocal_terms.append(term)

    def vertices_at(self, x: float) -> np.ndarray:
        """Local mesh vertices at the mesh coordinate x [m] (empty where not on this rank)."""
        return dmesh.locate_entities(self.mesh, 0, lambda y: np.isclose(y[0], x))

    def _tag_ends(self) -> None:
        """Tag the end points of rod k (``2k + 1``: s = 0, ``2k + 2``: s = L) for the point
        measure ``ds``."""
        st = self.structure
        self.mesh.topology.create_connectivity(0, 1)
        self._end_facets = {}
        ents, vals = [], []
        for k in range(len(st.rods)):
            for j, end in enumerate(("0", "L")):
                v = self.vertices_at(st.coordinate(k, end))
                self._end_facets[(k, end)] = v
                ents.append(v)
                vals.append(np.full(v.size, 2 * k + 1 + j))
        ents, vals = np.concatenate(ents).astype(np.int32), np.concatenate(vals).astype(np.int32)
        order = np.argsort(ents)
        self.end_tags = dmesh.meshtags(self.mesh, 0, ents[order], vals[order])

    def _section_coefficients(self, C: np.ndarray | None) -> None:
        """``rhoA, M11, M22`` [kg/m, kg m], the compliance ``C`` of the stress field and the
        stiffness ``K`` of the unconstrained strains: Constants of a uniform section,
        quadrature-point functions of a section varying along s. ``K`` (0 for the
        constrained strains) is used by the initial stresses and strain_energy_displacement.
        """
        st = self.structure
        c = lambda v: fem.Constant(self.mesh, np.float64(v))  # noqa: E731
        if st.uniform:
            sec = st.section
            self.rhoA, self.M11, self.M22 = c(sec.rhoA), c(sec.M11), c(sec.M22)
            self.C = fem.Constant(self.mesh, C)
            self.K = fem.Constant(self.mesh, np.where(st.free, sec.stiffness, 0.0))
        else:
            def stiff(x):
                v = st.section_values(x)
                return np.array([v[n] for n in ("k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")])

            qf = lambda fn, shape=(): quadrature_function(self.mesh, fn, shape)  # noqa: E731
            self.rhoA, self.M11, self.M22 = (qf(lambda x, n=n: st.section_values(x)[n])
                                             for n in ("rhoA", "M11", "M22"))
            self.C = qf(lambda x: np.where(st.free_mask(x), 1.0 / stiff(x), 0.0), (6,))
            self.K = qf(lambda x: np.where(st.free_mask(x), stiff(x), 0.0), (6,))

    def step_residual(self, ctx: Context, tests, sig1, sig0):
        """The residual of one step for the states and constants of ``ctx``: the rows of
        (42), times ``ctx.h`` as written in the paper (the model's ``F``; the linearised
        analysis builds it with h = 1 and the end-point evaluation)."""
        dq, dsig, dlam = tests[0], tests[1], tests[2]
        F = elastic.internal(ctx, dq)
        if ctx.inertia:  # (42b, c) without inertia in a quasi-static problem
            F = elastic.inertia(ctx, dq) + F
        F = (F + elastic.constraint_force(ctx, dq)
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
        # Newton tolerance has the paper's meaning (theory §4: 'absolute tolerance eps').
        return ctx.h * F

    # ------------------------------------------------------------------ fields
    def field_dofs(self, name: str) -> np.ndarray:
        """Indices of the named field in the mixed vector ``w.x.array`` (local).

        Names (``field_names``): ``"q"``, ``"sigma"``, ``"lambda"`` and
        ``"<extension>.<field>"`` for the fields an extension declares.
        """
        if name not in self.field_names:
            raise ParameterError("field", name, f"one of {self.field_names}")
        return flatten_map(self.space.W.sub(self.field_names.index(name)).collapse()[1])

    # ------------------------------------------------------------------ state
    def _make_bcs(self) -> list:
        """Dirichlet conditions of the supports: the fixed q components at their reference
        values, the removed multipliers at zero. Also records, per support, the mixed-space
        indices of the twelve q components of its node (for the reactions)."""
        bcs = []
        W, ms = self.space.W, self.space
        Lspace, _ = W.sub(2).collapse()
        self._support_dofs = {}
        self._moving = []
        st = self.structure
        for sup in self.supports:
            facets = self._end_facets[(sup.rod, sup.end)]
            q_end = st.initial_configuration([st.coordinate(sup.rod, sup.end)])[0]
            fixed = sup.fixed_q()
            if len(fixed) == 12:                      # the whole q block (a clamp)
                qdofs = fem.locate_dofs_topological((W.sub(0), ms.Q), 0, facets)
                qval = fem.Function(ms.Q)
                qval.interpolate(lambda x, q=q_end: np.tile(q[:, None], (1, x.shape[1])))
                bcs.append(fem.dirichletbc(qval, qdofs, W.sub(0)))
                if getattr(sup, "motion", None) is not None:
                    self._check_motion(sup, q_end)
                    self._moving.append((sup, qval))
            else:
                for i in fixed:
                    Wi = W.sub(0).sub(i)
                    dofs = fem.locate_dofs_topological(Wi, 0, facets)
                    bcs.append(fem.dirichletbc(np.float64(q_end[i]), dofs, Wi))
            for j in sup.fixed_multipliers():
                if len(sup.fixed_multipliers()) == 6:   # the whole multiplier block
                    ldofs = fem.locate_dofs_topological((W.sub(2), Lspace), 0, facets)
                    bcs.append(fem.dirichletbc(fem.Function(Lspace), ldofs, W.sub(2)))
                    break
                Wj = W.sub(2).sub(j)
                dofs = fem.locate_dofs_topological(Wj, 0, facets)
                bcs.append(fem.dirichletbc(np.float64(0.0), dofs, Wj))
            self._support_dofs[sup.label] = np.array(
                [fem.locate_dofs_topological(W.sub(0).sub(i), 0, facets) for i in range(12)]
            ).reshape(12, -1)
        return bcs

    def _node_dofs(self, x: float) -> dict[tuple[str, int], int]:
        """Global indices of the owned dofs of the node at mesh coordinate x:
        ``{("q", i): ..., ("lambda", j): ...}`` for the 12 q and 6 multiplier components."""
        W = self.space.W
        im, bs = W.dofmap.index_map, W.dofmap.index_map_bs
        v = self.vertices_at(x)
        out = {}
        for field, sub, n in (("q", 0, 12), ("lambda", 2, 6)):
            for i in range(n):
                loc = fem.locate_dofs_topological(W.sub(sub).sub(i), 0, v)
                if loc.size and loc[0] < im.size_local * bs:
                    g = im.local_to_global(np.array([loc[0] // bs], dtype=np.int32))[0]
                    out[(field, i)] = int(g * bs + loc[0] % bs)
        return out

    def _joint_reduction(self) -> Reduction | None:
        """The elimination of the joints' relations (theory §2.7), or None."""
        st = self.structure
        if not st.joints:
            return None
        supported = {(sup.rod, sup.end) for sup in self.supports}
        # a body's anchor is the slave of its centre (its carrier's link): a joint there
        # makes it the master of the other node (a second relation would replace the first)
        anchors = {(k, "L") for k in st.carriers}
        relations: dict[int, list[tuple[int, float]]] = {}
        for jt in st.joints:
            a, b = jt.a, jt.b
            if not getattr(jt, "link", False) and anchors & {a, b}:
                if a in anchors and (b in anchors or b in supported) or \
                        b in anchors and a in supported:
                    raise ParameterError(f"{type(jt).__name__} joint {a}-{b}", "a body's "
                                         "anchor joined to another anchor or to a supported "
                                         "node", "a joint at one of the bodies' centres "
                                         "(rod k, '0')")
                if b in anchors:
                    a, b = b, a
            if b in supported:
                if a in supported:
                    raise ParameterError(f"{type(jt).__name__} joint {a}-{b}", "both nodes "
                                         "supported", "at most one supported node per joint")
                a, b = b, a        # the supported node stays an unknown (a master)
            xa, xb = st.coordinate(*a), st.coordinate(*b)
            qa, qb = st.initial_configuration([xa, xb])
            rows, mults = jt.relations(qa, qb)
            da, db = ({k: v for d in self.comm.allgather(self._node_dofs(x)) for k, v in d.items()}
                      for x in (xa, xb))
            for i, terms in rows.items():
                relations[db[("q", i)]] = [
                    (db[("q", j - 12)] if j >= 12 else da[("q", j)], c) for j, c in terms]
            for m in mults:
                relations[db[("lambda", m)]] = []
        for k in st.carriers:     # a body's carrier: its P2 mid node rigid with its centre
            x0, xL = st.coordinate(k, "0"), st.coordinate(k, "L")
            qa, qm = st.initial_configuration([x0, 0.5 * (x0 + xL)])
            rows, mults = Rigid((k, "0"), (k, "L"), link=True).relations(qa, qm)
            da, dm = ({key: v for d in self.comm.allgather(f) for key, v in d.items()}
                      for f in (self._node_dofs(x0), self._mid_dofs(x0, xL)))
            for i, terms in rows.items():
                relations[dm[("q", i)]] = [(da[("q", j)], c) for j, c in terms]
            for m in mults:
                relations[dm[("lambda", m)]] = []
        return Reduction(self.space.W, relations)

    def _mid_dofs(self, x0: float, xL: float) -> dict[tuple[str, int], int]:
        """Global indices of the owned dofs of the P2 mid node of the one-element rod on
        ``[x0, xL]`` (a body's carrier), keyed like :meth:`_node_dofs`."""
        W = self.space.W
        im, bs = W.dofmap.index_map, W.dofmap.index_map_bs
        tol = 1e-9 * max(1.0, abs(xL))
        cells = dmesh.locate_entities(self.mesh, 1, lambda y: (y[0] > x0 - tol)
                                      & (y[0] < xL + tol))
        self.mesh.topology.create_connectivity(1, 1)
        verts = np.concatenate([self.vertices_at(x0), self.vertices_at(xL)])
        out = {}
        for field, sub, n in (("q", 0, 12), ("lambda", 2, 6)):
            for i in range(n):
                Wi = W.sub(sub).sub(i)
                mid = np.setdiff1d(fem.locate_dofs_topological(Wi, 1, cells),
                                   fem.locate_dofs_topological(Wi, 0, verts))
                if mid.size and mid[0] < im.size_local * bs:
                    g = im.local_to_global(np.array([mid[0] // bs], dtype=np.int32))[0]
                    out[(field, i)] = int(g * bs + mid[0] % bs)
        return out

    def enforce_joints(self, values: np.ndarray) -> np.ndarray:
        """The nodal q-space array ``values`` (e.g. a velocity) with the joints' slave
        components recomputed from their masters (unchanged without joints)."""
        if self.reduction is None:
            return values
        tmp = fem.Function(self.space.W)
        tmp.x.array[self.space.q_map] = values
        x = self.reduction.T.createVecRight()
        self.reduction.restrict(tmp.x.array, x)
        self.reduction.prolong(x, tmp)
        x.destroy()
        return tmp.x.array[self.space.q_map].copy()

    @property
    def tip_coordinate(self) -> float:
        """Mesh coordinate of the tip: the end ``"L"`` of the last rod [m]."""
        st = self.structure
        return st.coordinate(st.n_members - 1, "L") if st.n_members else st.coordinate(0, "0")

    @staticmethod
    def _pose(sup, t: float) -> np.ndarray:
        """q (12,) of a moving clamp at time t, checked."""
        try:
            pos, R = sup.motion(t)
            pos, R = np.asarray(pos, dtype=float), np.asarray(R, dtype=float)
        except Exception as e:  # noqa: BLE001 - report any failure of the user callable
            raise ParameterError(f"motion of {sup.label}", sup.motion,
                                 f"a callable t -> (position, R) ({e})") from None
        if pos.shape != (3,) or R.shape != (3, 3) or not np.all(np.isfinite(R)) \
                or not np.all(np.isfinite(pos)):
            raise ParameterError(f"motion of {sup.label} at t = {t:.6g}", (pos, R),
                                 "a finite position (3,) and frame (3, 3)")
        err = float(np.max(np.abs(R.T @ R - np.eye(3))))
        if err > 1e-12 or np.linalg.det(R) < 0.0:
            raise ParameterError(f"motion of {sup.label} at t = {t:.6g}",
                                 f"|R^T R - I| = {err:.2e}", "a rotation (to 1e-12)")
        return np.concatenate([pos, R[:, 0], R[:, 1], R[:, 2]])

    def _check_motion(self, sup, q_end: np.ndarray) -> None:
        if np.max(np.abs(self._pose(sup, 0.0) - q_end)) > 1e-12 * max(1.0, self.rod.length):
            raise ParameterError(f"motion of {sup.label} at t = 0", "pose",
                                 "the reference pose of that end")

    def begin_step(self, t0: float, h: float) -> None:
        """Set up the step ``[t0, t0 + h]`` [s] (a load factor in quasi-static stepping):
        the step size ``h`` of the residual and the inputs (:meth:`update_inputs`). The
        model is the only writer of ``h``."""
        self.h.value = h
        self.update_inputs(t0, h)

    def finish_step(self) -> tuple[np.ndarray, np.ndarray]:
        """Accept the solved step: the velocity update (42a), ``v_{n+1} = 2 (q_{n+1} - q_n)/h
        - v_n`` (zero in quasi-static stepping), then the state shift ``w_n <- w_{n+1}``,
        ``v_n <- v_{n+1}``. Returns the step's increments ``(w_{n+1} - w_n, v_{n+1} - v_n)``
        (local arrays)."""
        qm = self.space.q_map
        w, w0 = self.w.x.array, self.w0.x.array
        if self.quasistatic:
            self.v1.x.array[:] = 0.0
        else:
            self.v1.x.array[:] = 2.0 * (w[qm] - w0[qm]) / float(self.h.value) \
                - self.v0.x.array                                          # (42a)
        dw, dv = w - w0, self.v1.x.array - self.v0.x.array
        self.v0.x.array[:] = self.v1.x.array
        w0[:] = w
        return dw, dv

    @contextlib.contextmanager
    def end_point(self):
        """``theta`` and ``h`` set to 1 inside the block (restored after): the evaluation of
        the linearised operator of :mod:`fxrod.analysis.modes` for the terms outside UFL, which read
        them when they are called."""
        saved = float(self.theta.value), float(self.h.value)
        self.theta.value, self.h.value = 1.0, 1.0
        try:
            yield
        finally:
            self.theta.value, self.h.value = saved

    def update_inputs(self, t0: float, h: float) -> None:
        """Set the time-dependent inputs of the step ``[t0, t0 + h]`` [s]: loads at the
        evaluation time, extensions at it and at the midpoint, moving clamps at the end."""
        te = t0 + float(self.theta.value) * h
        for ld in self.loads:
            ld.update(te)
        for ext in self.extensions:
            ext.update(te, t0 + 0.5 * h)
        for sup, qval in self._moving:
            q = self._pose(sup, t0 + h)
            qval.x.array[:] = np.tile(q, qval.x.array.size // 12)

    def support_response(self) -> tuple[dict[str, np.ndarray], float]:
        """Reactions and work of the supports in the step just solved (call before the state
        update): ``({label: (f_1..3 [N], m_1..3 [N m])}, W_support [J])``.

        From the residual rows of the supports' nodes without the Dirichlet conditions,
        which the reactions balance: ``f = F_phi / h``, ``m = sum_k d_k x F_dk / h`` (the
        power of ``F_dk`` on ``v_dk = omega x d_k`` is ``m . omega``), ``d_k`` at the
        evaluation state; ``W_support = sum F . (q_{n+1} - q_n) / h`` over those rows (zero
        for fixed supports). In statics the reactions balance the loads exactly; in dynamics
        they are the step averages at ``t_{n+1/2}``.
        """
        if not self.supports:
            return {}, 0.0
        rows = self._support_rows()
        n_owned = self.space.W.dofmap.index_map.size_local * self.space.W.dofmap.index_map_bs
        theta = float(self.theta.value)
        w1, w0 = self.w.x.array, self.w0.x.array
        h = float(self.h.value)
        reduce = (lambda v: v) if self.comm.size == 1 else \
            (lambda v: self.comm.allreduce(v, op=MPI.SUM))
        out, work = {}, 0.0
        for label, dofs in self._support_dofs.items():
            val = np.zeros(6)
            if dofs.size and dofs[0, 0] < n_owned:
                idx = dofs[:, 0]
                F, q0, q1 = rows[idx], w0[idx], w1[idx]
                d = ((1.0 - theta) * q0 + theta * q1).tolist()   # the evaluation state
                f = F.tolist()
                m = [0.0, 0.0, 0.0]
                for k in range(3, 12, 3):                         # sum_k d_k x F_dk
                    (a1, a2, a3), (b1, b2, b3) = d[k:k + 3], f[k:k + 3]
                    m[0] += a2 * b3 - a3 * b2
                    m[1] += a3 * b1 - a1 * b3
                    m[2] += a1 * b2 - a2 * b1
                val[:] = (f[0] / h, f[1] / h, f[2] / h, m[0] / h, m[1] / h, m[2] / h)
                work += float(F @ (q1 - q0)) / h
            out[label] = reduce(val)
        return out, reduce(work)

    def _support_rows(self) -> np.ndarray:
        """The residual without Dirichlet conditions, exact at least in the supports' rows:
        in serial runs without joints only the cells at the supports
        (:class:`fxrod.native.assembly.KernelVector`, DOLFINx's values in those rows), else
        DOLFINx's assembly (folded onto the independent unknowns by the joints)."""
        if getattr(self, "_F_compiled", None) is None:
            self._F_compiled = jit.form(self.F)
            self._support_vector = None
            if self.comm.size == 1 and self.reduction is None:
                dofs = np.concatenate([d.ravel() for d in self._support_dofs.values()])
                cells = np.flatnonzero(np.isin(self.space.W.dofmap.list, dofs).any(axis=1))
                try:
                    self._support_vector = assembly.KernelVector(
                        self._F_compiled, self.space.W, cells)
                except Exception:  # noqa: BLE001  (no C helper or layout: DOLFINx's assembly)
                    self._support_vector = None
        if self._support_vector is not None:
            return self._support_vector.assemble()
        b = fem.assemble_vector(self._F_compiled)
        b.scatter_reverse(la.InsertMode.add)
        return b.array if self.reduction is None else self.reduction.fold(b.petsc_vec)

    def set_initial_state(self) -> None:
        """The reference configuration at rest; stress-free unless the rod has a natural
        curvature (then ``sigma = K Pi_DG1(eps(q_ref) - eps0)``, theory §2.3 eq. 54)."""
        self.w0.x.array[:] = 0.0
        self.w0.x.array[self.space.q_map] = self.q_ref.x.array
        if self.structure.natural_curvature is not None:
            self.w0.x.array[self.space.s_map] = self.initial_stress()
        self.w.x.array[:] = self.w0.x.array
        self.v0.x.array[:] = 0.0
        if self.structure.bodies:
            v = self.v0.x.array.reshape(-1, 12)
            v[:] = self._body_velocities(v)
            self.v0.x.array[:] = self.enforce_joints(v.reshape(-1))
        self.ledger.reset()

    def _body_velocities(self, v: np.ndarray) -> np.ndarray:
        """The nodal velocities ``v`` (n, 12) with the free bodies' carrier nodes moving
        with their bodies' initial velocities (the reference pose)."""
        st = self.structure
        s = self.space.Q.tabulate_dof_coordinates()[:, 0]
        q = self.q_ref.x.array.reshape(-1, 12)
        for i, b in enumerate(st.bodies):
            k = st.body_rod(i)
            x0, xL = st.coordinate(k, "0"), st.coordinate(k, "L")
            on = (s > x0 - 1e-9 * max(1.0, xL)) & (s < xL + 1e-9 * max(1.0, xL))
            v[on] = b.nodal_velocity(q[on, :3], q[on, 3:], b.centre)
        return v

    def set_body_velocity(self, i: int, velocity=(0.0, 0.0, 0.0),
                          angular_velocity=(0.0, 0.0, 0.0)) -> None:
        """Set the velocity at t_n of free body ``i`` (a kick, e.g. after it settled): its
        centre's velocity [m/s] and its spatial angular velocity [rad/s]; the velocities
        of nodes joined to it follow by the joints."""
        st = self.structure
        k = st.body_rod(i)
        v_c = check_vector("velocity", velocity, 3)
        om = check_vector("angular_velocity", angular_velocity, 3)
        x0, xL = st.coordinate(k, "0"), st.coordinate(k, "L")
        s = self.space.Q.tabulate_dof_coordinates()[:, 0]
        q = self.q_nodal_local()
        on = (s > x0 - 1e-9 * max(1.0, xL)) & (s < xL + 1e-9 * max(1.0, xL))
        centre = q[int(np.argmin(np.abs(s - x0)))][:3]
        v = self.v0.x.array.reshape(-1, 12).copy()
        v[on] = rigid_velocity(q[on, :3], q[on, 3:], centre, v_c, om)
        self.v0.x.array[:] = self.enforce_joints(v.reshape(-1))
        self.ledger.invalidate()

    def initial_stress(self) -> np.ndarray:
        """DG1 stresses ``K Pi_DG1(eps(q_ref) - eps0)`` of a rod with natural curvature."""
        from dolfinx.fem.petsc import LinearProblem

        S = self.space.S
        u, v = ufl.TrialFunction(S), ufl.TestFunction(S)
        e = strains(self.q_ref, self.q_ref.dx(0)) - self.eps0
        dx = self.ctx.dx
        proj = LinearProblem(ufl.inner(u, v) * dx, ufl.inner(ufl.elem_mult(self.K, e), v) * dx,
                             petsc_options_prefix="fxrod_initial_stress_",
                             petsc_options={"ksp_type": "preonly", "pc_type": "lu"})
        return proj.solve().x.array.copy()

    def set_velocity(
        self,
        v_phi: Callable[[np.ndarray], np.ndarray] | Sequence[float] | None = None,
        omega: Callable[[np.ndarray], np.ndarray] | Sequence[float] | None = None,
    ) -> None:
        """Set the current velocity from a centreline velocity [m/s] and an angular
        velocity [rad/s] (spatial), each a constant 3-vector or a callable ``s -> (3, n)``.

        The director velocities are ``v_dk = omega x d_k`` (theory §1.2), so ``G_d v_d = 0``.
        """
        q = self.q_nodal_local()
        s = self.space.Q.tabulate_dof_coordinates()[:, 0]

        def ev(f, name):
            if f is None:
                return np.zeros((s.size, 3))
            if callable(f):
                a = np.asarray(f(s), dtype=float)
                return a.T if a.shape == (3, s.size) else a.reshape(s.size, 3)
            return np.tile(check_vector(name, f, 3), (s.size, 1))

        vp, om = ev(v_phi, "v_phi"), ev(omega, "omega")
        v = np.empty_like(q)
        v[:, 0:3] = vp
        for k in range(3):
            v[:, 3 + 3 * k:6 + 3 * k] = np.cross(om, q[:, 3 + 3 * k:6 + 3 * k])
        if self.structure.bodies:       # the free bodies keep their own velocities
            keep = self._body_velocities(np.full_like(v, np.nan))
            on = ~np.isnan(keep[:, 0])
            v[on] = self.v0.x.array.reshape(-1, 12)[on]
        self.v0.x.array[:] = self.enforce_joints(v.reshape(-1))
        self.ledger.invalidate()

    def q_nodal_local(self) -> np.ndarray:
        """Local (owned + ghost) nodal configuration ``(n_local_nodes, 12)`` at t_n."""
        return self.w0.x.array[self.space.q_map].reshape(-1, 12)

    # ---------------------------------------------------------- diagnostics
    def functionals(self, name: str,
                    build: Callable[[], dict[str, ufl.Form]]) -> dict[str, Functional]:
        """The read-out functionals ``name`` of this model (a probe's scalars): ``build()``
        gives their UFL forms by column, compiled together (:func:`fxrod.native.jit.forms`) on the
        first call and kept, so that every recorded run of the model reuses them; each is
        evaluated by :class:`fxrod.core.ledger.Functional` (the C loop in serial runs)."""
        if name not in self._readouts:
            forms = build()
            compiled = jit.forms(list(forms.values()))
            self._readouts[name] = {k: Functional(f, self.comm)
                                    for k, f in zip(forms, compiled, strict=True)}
        return self._readouts[name]

    def strain_form(self):
        """Displacement-based strains minus the stress-free strains ``eps0`` at t_n."""
        q0 = ufl.split(self.w0)[0]
        return strains(q0, q0.dx(0)) - self.eps0
