"""Ensembles: many independent copies of one rod problem stepped together in one
process, the way design studies and controllers run many rods.

An :class:`Ensemble` lays ``N`` copies of a rod side by side on one mesh (a
:class:`fxrod.core.structure.Structure` without joints) and builds one
:class:`fxrod.core.model.RodModel` for all of them: one mixed space, one residual form, one
Newton solve per step. Member ``k`` differs from the template by

* ``amplitudes[k]``: a factor [-] on every load of the template. It enters the forms as one
  P1 coefficient per load (value ``amplitudes[k]`` at the vertices of member k where the
  load acts, zero elsewhere), so one UFL term serves all members; an end load is
  integrated over every rod end and its coefficient picks the loaded one (exact on one
  element per rod too);
* ``sections[k]`` (optional): its own section, through the quadrature-point section
  coefficients of a non-uniform structure (again one form).

The members share no unknown, so the Jacobian is block diagonal over members and the
chain solver (``SolverSettings(linear_solver="chain")``, :mod:`fxrod.solvers.chain`) factors it in
one sweep over all chains. Newton's convergence is judged member by member
(:meth:`fxrod.solvers.array_newton.ArrayNewtonSolver.converge_per_group`): a step takes as many
iterations as the member that needs most would alone, not the count that brings the norm
over all N members below atol (about atol/sqrt(N) each). Every member's discrete solution is
that of the single-rod run to Newton tolerance (tests/test_ensemble.py: 1e-12).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import ufl
from dolfinx import fem
from mpi4py import MPI

from fxrod.core.forms import elastic
from fxrod.core.loads import DistributedLoad, EndLoad, Load
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.structure import Structure
from fxrod.core.supports import Support
from fxrod.errors import ParameterError
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings


class MemberScaledLoad(Load):
    """An end or distributed load of the template applied to every member, times the
    member's amplitude [-] (a P1 coefficient, one UFL term for all members).

    Parameters
    ----------
    template : EndLoad or DistributedLoad
        The load of one member (its ``rod`` index is ignored: every member gets it).
    amplitudes : numpy.ndarray
        Factor of each member [-].
    structure : Structure
        The members side by side.
    """

    def __init__(self, template: EndLoad | DistributedLoad, amplitudes: np.ndarray,
                 structure: Structure) -> None:
        self.template = template
        self.amplitudes = amplitudes
        self.structure = structure
        self.coefficient = None

    def setup(self, ctx) -> None:
        self.template.setup(ctx)
        st, a = self.structure, self.amplitudes
        self.coefficient = fem.Function(fem.functionspace(ctx.mesh, ("Lagrange", 1)),
                                        name="amplitude")
        if isinstance(self.template, EndLoad):
            ends = np.array([st.coordinate(k, self.template.end) for k in range(a.size)])

            def values(x):
                k, _ = st.locate(x[0])
                return np.where(np.isclose(x[0], ends[k], rtol=0.0, atol=1e-9 * st.extent),
                                a[k], 0.0)
        else:
            def values(x):
                return a[st.locate(x[0])[0]]
        self.coefficient.interpolate(values)

    def update(self, t: float) -> None:
        self.template.update(t)

    @property
    def constants(self) -> dict[str, fem.Constant]:
        return self.template.constants

    @property
    def force(self):
        """The template's force [N or N/m] (a function of t, or None); setting it sets the
        template's (e.g. :class:`fxrod.analysis.adjoint.InputHistory` installing its history)."""
        return self.template.force

    @force.setter
    def force(self, f) -> None:
        self.template.force = f

    @property
    def moment(self):
        """The template's moment [N m or N m/m] (a function of t, or None); settable."""
        return self.template.moment

    @moment.setter
    def moment(self, f) -> None:
        self.template.moment = f

    def power(self, ctx, w_phi, w_d):
        # the template's density with the per-member factor (loads._ForceMoment._density)
        density = self.template._density(ctx, w_phi, w_d, scale=self.coefficient)
        return density * (ctx.ds if isinstance(self.template, EndLoad) else ctx.dx)


def _check(rod, loads, amplitudes, sections, supports) -> tuple[np.ndarray, list]:
    if not isinstance(rod, Rod):
        raise ParameterError("rod", rod, "a fxrod.Rod (the template member)")
    a = np.asarray(amplitudes, dtype=float)
    if a.ndim != 1 or a.size < 1 or not np.all(np.isfinite(a)):
        raise ParameterError("amplitudes", amplitudes, "a non-empty sequence of finite floats")
    for ld in loads:
        if not isinstance(ld, EndLoad | DistributedLoad) or getattr(ld, "rod", 0) != 0:
            raise ParameterError("loads", ld, "EndLoad (of rod 0) or DistributedLoad objects")
    for sup in supports:
        if not isinstance(sup, Support) or sup.rod != 0:
            raise ParameterError("supports", sup,
                                 "fxrod.core.supports supports of rod 0 (the template)")
    if sections is None:
        return a, [rod.section] * a.size
    sections = list(sections)
    if len(sections) != a.size or not all(isinstance(s, Section) for s in sections):
        raise ParameterError("sections", sections, f"{a.size} fxrod Sections (one a member)")
    return a, sections


class Ensemble:
    """``N`` independent copies of a rod problem as one model, stepped together.

    Parameters
    ----------
    rod : Rod
        The template member (geometry, section, mesh size, constraints).
    loads : sequence of EndLoad or DistributedLoad
        The template's loads (forces [N] or [N/m], moments [N m] or [N m/m]); member ``k``
        gets them times ``amplitudes[k]``.
    amplitudes : sequence of float
        Load factor of each member [-]; its length is the number of members N.
    supports : sequence of Support
        The template's supports (of rod 0), given to every member.
    sections : sequence of Section, optional
        One section per member (default: the template's).
    comm : MPI communicator, optional
        Default ``MPI.COMM_WORLD`` (the chain solver needs a serial run).
    quasistatic : bool
        Quasi-static members (as :class:`fxrod.core.model.RodModel`).

    Attributes
    ----------
    model : RodModel
        The one model of all members.
    structure : Structure
        The members side by side (member k is rod k).
    """

    def __init__(self, rod: Rod, loads: Sequence[EndLoad | DistributedLoad],
                 amplitudes: Sequence[float], supports: Sequence[Support] = (),
                 sections: Sequence[Section] | None = None, comm=None,
                 quasistatic: bool = False) -> None:
        loads, supports = list(loads), list(supports)
        a, sections = _check(rod, loads, amplitudes, sections, supports)
        self.amplitudes = a
        members = [rod if s == rod.section else
                   dataclasses.replace(rod, section=s, start=None, end=None, d1=None)
                   for s in sections]
        self.structure = st = Structure(members)
        self.model = m = RodModel(
            st, [MemberScaledLoad(ld, a, st) for ld in loads],
            [dataclasses.replace(s, rod=k) for k in range(a.size) for s in supports],
            comm=comm, quasistatic=quasistatic)
        # the members' P2 nodes: member of each, and each member's end "L" node
        x = m.space.Q.tabulate_dof_coordinates()[:, 0]
        self._member_of_node, _ = st.locate(x)
        # each member's end "L" node among this rank's owned nodes (on one rank of a run on
        # several: the tips are summed over the ranks)
        owned = x[:m.space.Q.dofmap.index_map.size_local]
        self._tip_nodes = [np.flatnonzero(np.isclose(owned, st.coordinate(k, "L"), rtol=0.0,
                                                     atol=1e-9 * st.extent))
                           for k in range(a.size)]
        self._energy = None

    @property
    def size(self) -> int:
        """Number of members N."""
        return int(self.amplitudes.size)

    def integrator(self, h: float, settings: SolverSettings | None = None) -> Integrator:
        """The stepper of all members with step ``h`` [s]; ``settings`` default to the
        chain solver (MUMPS on several ranks) with fxrod's other defaults. On the chain
        solver's fast path each member's Newton iteration is judged on its own rows, as in a
        run of its own
        (:meth:`fxrod.solvers.array_newton.ArrayNewtonSolver.converge_per_group`)."""
        if settings is None:   # the chain solver runs serially; MUMPS on several ranks
            serial = self.model.comm.size == 1
            settings = SolverSettings(linear_solver="chain" if serial else "mumps")
        integ = Integrator(self.model, h, settings)
        per_group = getattr(integ.newton, "converge_per_group", None)
        if per_group is not None and integ.newton.active:
            per_group(self.dof_members())
        return integ

    def dof_members(self) -> np.ndarray:
        """The member of every unknown of the mixed space (local numbering)."""
        m = self.model
        geo = m.mesh.geometry
        mid = geo.x[np.asarray(geo.dofmaps[0])].mean(axis=1)[:, 0]   # cell midpoints
        dofs = np.asarray(m.space.W.dofmap.list)
        member = np.empty(m.w.x.array.size, dtype=np.intp)
        member[dofs] = self.structure.locate(mid)[0][:, None]
        return member

    def member_nodes(self, k: int) -> np.ndarray:
        """Nodal configurations ``q`` (n_nodes, 12) of member ``k`` at t_n, in the order of
        the P2 space (sort by :meth:`member_arclength` for the order along the rod)."""
        return self.model.q_nodal_local()[self._member_of_node == k]

    def member_arclength(self, k: int) -> np.ndarray:
        """Arc length s [m] of member ``k``'s P2 nodes (order of :meth:`member_nodes`)."""
        x = self.model.space.Q.tabulate_dof_coordinates()[:, 0]
        return x[self._member_of_node == k] - self.structure.offsets[k]

    def tips(self) -> np.ndarray:
        """Centreline positions at s = L of every member (N, 3) [m] at t_n (on every rank)."""
        q = self.model.q_nodal_local()
        out = np.zeros((self.size, 3))
        for k, node in enumerate(self._tip_nodes):
            if node.size:
                out[k] = q[node[0], :3]
        return self.model.comm.allreduce(out, op=MPI.SUM)

    def energies(self) -> np.ndarray:
        """Kinetic plus complementary (stored elastic) energy of every member (N,) [J] at
        t_n (on every rank): the ledger's energy densities tested with the members' cell
        indicators (one vector assembly)."""
        m = self.model
        if self._energy is None:
            D = fem.functionspace(m.mesh, ("DG", 0))
            v = ufl.TestFunction(D)
            H = elastic.complementary_energy(m.ctx, m.ctx.sig0, m.C)
            if m.ctx.inertia:
                H = H + elastic.kinetic_energy(m.ctx, m.v0)
            form = fem.form(ufl.Form([i.reconstruct(integrand=i.integrand() * v)
                                      for i in H.integrals()]))
            mid = D.tabulate_dof_coordinates()[:, 0]
            self._energy = (form, self.structure.locate(mid)[0])
        form, member = self._energy
        per_cell = fem.assemble_vector(form).array
        n_own = m.mesh.topology.index_map(1).size_local     # the owned cells' rows
        local = np.bincount(member[:n_own], weights=per_cell[:n_own], minlength=self.size)
        return self.model.comm.allreduce(local, op=MPI.SUM)
