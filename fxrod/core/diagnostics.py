"""Nodal read-outs of a rod state (MPI-reduced) and the strain-consistency check.

:class:`Nodes` reads positions, directors and velocities at the P2 nodes of a
:class:`fxrod.core.model.RodModel` (tip, a node at given s, all nodes gathered on one rank);
:class:`StrainConsistency` measures how well the stress field matches the strains of the
configuration (theory §2.3, eq. 54); :func:`tension_mechanism_ratio` says whether the
tension of a state makes the element's shear mechanism unstable; :class:`RodMomentum` gives
the rod's linear and angular momentum and the mean of its centreline from the nodal
arrays. Energies live in
:mod:`fxrod.core.ledger`, CSV columns in :mod:`fxrod.runs.probes`.
"""

from __future__ import annotations

from collections.abc import Callable

import basix
import numpy as np
import ufl
from dolfinx import fem
from mpi4py import MPI

from fxrod import native
from fxrod.core.kinematics import CONSTRAINT_PAIRS
from fxrod.core.spaces import GAUSS_DEGREE


class Nodes:
    """The owned P2 nodes of a :class:`fxrod.core.model.RodModel` and read-outs at them."""

    def __init__(self, model) -> None:
        self.model = m = model
        Q = m.space.Q
        self._n_own = Q.dofmap.index_map.size_local
        self._s_own = Q.tabulate_dof_coordinates()[: self._n_own, 0].copy()
        L = m.tip_coordinate
        tip = np.flatnonzero(np.isclose(self._s_own, L, atol=1e-12 * max(L, 1.0)))
        self._tip_local = int(tip[0]) if tip.size else -1
        # the mixed-space indices of the tip's position (read straight from w0)
        self._tip_dofs = (np.asarray(m.space.q_map).reshape(-1, 12)[self._tip_local, 0:3]
                          if tip.size else None)
        # the owned nodes' 12 indices into w0 for the C check of the constraints
        self._q_own_map = np.ascontiguousarray(
            np.asarray(m.space.q_map).reshape(-1, 12)[: self._n_own], dtype=np.int32)
        self._w0 = m.w0.x.array          # a view of the state's buffer (read every row)
        self._constraint: Callable[[], float] | None = None   # made on first use

    def q_owned(self) -> np.ndarray:
        """Nodal configurations ``(n_owned, 12)`` of this rank at t_n."""
        return self.model.q_nodal_local()[: self._n_own]

    def sorted_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """``(iq, iv)``: for every entry of the owned nodes' 12 values laid end to end in
        arc-length order (the layout of :class:`fxrod.runs.callbacks.State`), its index into
        ``w0``'s and ``v0``'s arrays (made on first use)."""
        if getattr(self, "_sorted", None) is None:
            order = np.argsort(self._s_own, kind="stable")
            iq = np.asarray(self.model.space.q_map).reshape(-1, 12)[: self._n_own][order]
            iv = (12 * order[:, None] + np.arange(12)).reshape(-1)
            self._sorted = (np.ascontiguousarray(iq.reshape(-1)), iv)
        return self._sorted

    def tip(self) -> np.ndarray:
        """Centreline position at s = L of the (last) rod [m] (3,), MPI-reduced."""
        m = self.model
        tip = self._w0[self._tip_dofs] if self._tip_dofs is not None else np.zeros(3)
        return tip if m.comm.size == 1 else m.comm.allreduce(tip, op=MPI.SUM)

    def constraint_max(self) -> float:
        """Largest nodal orthonormality residual ``|g_ij|`` [-], MPI-reduced (a C loop over
        the nodes where fxrod's helper builds, else :func:`nodal_constraint_max`)."""
        if self._constraint is None:
            self._constraint = self._local_constraint_max()
        local = self._constraint()
        comm = self.model.comm
        return local if comm.size == 1 else comm.allreduce(local, op=MPI.MAX)

    def _local_constraint_max(self) -> Callable[[], float]:
        """This rank's largest residual as a function: fxrod's C loop over the owned nodes
        of ``w0`` with its arguments made once, else numpy."""
        try:
            lib = native.load("assembly")
        except Exception:  # noqa: BLE001  (no C compiler: numpy)
            return lambda: nodal_constraint_max(self.q_owned())
        args = (self._q_own_map.shape[0],
                lib.ffi.cast("int32_t*", self._q_own_map.ctypes.data),
                lib.ffi.cast("double*", self._w0.ctypes.data))   # both kept on self
        fn = lib.lib.fxrod_constraint_max
        return lambda: fn(*args)

    def node_q(self, s: float) -> np.ndarray:
        """Nodal configuration ``q`` (12,) at the P2 node at arc length ``s``, MPI-reduced.

        Raises ``ValueError`` when no node lies at ``s``.
        """
        m = self.model
        q = self.q_owned()
        idx = np.flatnonzero(np.isclose(self._s_own, s, atol=1e-12 * max(m.rod.length, 1.0)))
        val = q[idx[0]] if idx.size else np.zeros(12)
        cnt = m.comm.allreduce(int(idx.size > 0), op=MPI.SUM)
        if cnt == 0:
            raise ValueError(f"s = {s}: no P2 node there")
        return m.comm.allreduce(val, op=MPI.SUM) / cnt

    def tip_frame(self) -> np.ndarray:
        """Directors at s = L as columns (3x3), MPI-reduced."""
        q = self.q_owned()
        R = np.zeros((3, 3))
        if self._tip_local >= 0:
            R = q[self._tip_local, 3:12].reshape(3, 3).T
        return self.model.comm.allreduce(R, op=MPI.SUM)

    def tip_velocity(self) -> np.ndarray:
        """Centreline velocity at s = L (3,), MPI-reduced."""
        v = self.model.v0.x.array.reshape(-1, 12)[: self._n_own]
        out = v[self._tip_local, 0:3] if self._tip_local >= 0 else np.zeros(3)
        return self.model.comm.allreduce(out, op=MPI.SUM)

    def gather_nodes(self, root: int = 0):
        """Gather ``(s, q)`` of all P2 nodes to ``root``, sorted by s (None elsewhere)."""
        m = self.model
        q = self.q_owned()
        s_all = m.comm.gather(self._s_own, root=root)
        q_all = m.comm.gather(q, root=root)
        if m.comm.rank != root:
            return None
        s = np.concatenate(s_all)
        qq = np.concatenate(q_all)
        order = np.argsort(s, kind="stable")
        return s[order], qq[order]

    def centre_of_mass(self, root: int = 0) -> np.ndarray | None:
        """Centre of mass [m] (3,) of a uniform rod on ``root`` (None elsewhere): the mean
        of its P2 centreline over s (Simpson's rule on every element, exact for the quadratic
        interpolation)."""
        gathered = self.gather_nodes(root)
        if gathered is None:
            return None
        s, q = gathered
        w = np.zeros(s.size)
        w[0:-1:2] += 1.0
        w[1::2] += 4.0
        w[2::2] += 1.0
        w *= (s[2] - s[0]) / 6.0
        return w @ q[:, 0:3] / (s[-1] - s[0])

    def gather_stresses(self, root: int = 0):
        """Stress resultants at the element ends, gathered to ``root`` (None elsewhere).

        Returns ``(s, element, N, M, n, m)`` sorted by element then s: arc length [m],
        element index, the material components ``N`` [N], ``M`` [N m] of the DG1 stress
        field (discontinuous between elements) and the spatial ones ``n = R N``,
        ``m = R M`` with the directors of the node at s.
        """
        mod = self.model
        S = mod.space.S
        tdim = mod.mesh.topology.dim
        imap = mod.mesh.topology.index_map(tdim)
        cells = np.arange(imap.size_local, dtype=np.int32)
        dofs = np.array([S.dofmap.cell_dofs(c) for c in cells]).reshape(-1)
        s_dof = S.tabulate_dof_coordinates()[dofs, 0]
        sig = mod.w0.x.array[mod.space.s_map].reshape(-1, 6)[dofs]
        elem = np.repeat(imap.local_range[0] + cells, 2)
        q_loc = mod.q_nodal_local()
        s_q = mod.space.Q.tabulate_dof_coordinates()[:, 0]
        tol = 1e-12 * max(mod.rod.length, 1.0)
        node = np.array([int(np.flatnonzero(np.abs(s_q - x) <= tol)[0]) for x in s_dof],
                        dtype=int)
        R = np.stack([q_loc[node, 3:6], q_loc[node, 6:9], q_loc[node, 9:12]], axis=-1)
        n = np.einsum("nij,nj->ni", R, sig[:, 0:3])
        m = np.einsum("nij,nj->ni", R, sig[:, 3:6])
        parts = mod.comm.gather((s_dof, elem, sig, n, m), root=root)
        if mod.comm.rank != root:
            return None
        s_all, e_all, sig_all, n_all, m_all = (np.concatenate(x) for x in zip(*parts,
                                                                               strict=True))
        order = np.lexsort((s_all, e_all))
        return (s_all[order], e_all[order], sig_all[order, 0:3], sig_all[order, 3:6],
                n_all[order], m_all[order])


#: ``N l^2/EI`` beyond which the tension N makes the element's shear mechanism unstable
#: (see :func:`tension_mechanism_ratio`).
TENSION_MECHANISM_LIMIT = 24.0


def tension_mechanism_ratio(model) -> float:
    """``max N l^2 max(1/EI_1, 1/EI_2)/24`` over the elements of the state at t_n: at 1 or
    more the state's tension makes the discretisation's shear mechanism unstable.

    The element (q in P2, stresses in DG1, directors orthonormal at the nodes) has one
    shear mode per element that its DG1 stresses do not see: the directors turned about
    ``d1`` (or ``d2``) by ``theta = c L2(xi)`` (Legendre-2: c at the vertices, -c/2 at the
    midpoint) against a resting centreline. It stores the bending energy ``6 EI c^2/l``,
    and a tension N lowers the energy by ``N l c^2/4`` (the interpolated ``d3`` shortens
    between the nodes by ``I(theta^2)/2``), so a rod in tension N on elements of length l
    has an unstable equilibrium once ``N l^2 > 24 EI`` (an endless uniform mesh; clamped
    ends lift the limit by O(1/n^2)): a slack chain's dynamics blow up from its static
    state however small the step (tests/test_tension_mechanism.py). The continuum is
    stable (its shear stiffness holds the section normal to the centreline). Keep the
    ratio below 1 over the whole run: elements shorter than ``sqrt(24 EI/N_max)``, or a
    bending stiffness above ``N_max l^2/24``.

    Parameters
    ----------
    model : fxrod.core.model.RodModel
        The model; its stresses ``w0`` (the state at t_n) are read at the element ends
        (the DG1 nodes), with the section's bending stiffnesses there (a constrained
        bending strain has none of this mechanism).

    Returns
    -------
    float
        The largest ratio over the elements (0 without tension), MPI-reduced.
    """
    msh = model.mesh
    S = model.space.S
    ncell = msh.topology.index_map(1).size_local
    dofs = np.array([S.dofmap.cell_dofs(c) for c in range(ncell)], dtype=np.int64)
    if dofs.size == 0:
        local = 0.0
    else:
        sig = model.w0.x.array[model.space.s_map].reshape(-1, 6)
        tension = np.maximum(sig[dofs, 2], 0.0)                       # (ncell, 2)
        x = S.tabulate_dof_coordinates()[:, 0][dofs]                  # element ends
        ell = np.abs(x[:, 1] - x[:, 0])[:, None]
        st = model.structure
        if st.uniform:
            C = np.broadcast_to(np.asarray(model.C.value, dtype=float), (*x.shape, 6))
        else:
            xs = x.reshape(-1)
            v = st.section_values(xs)
            free = st.free_mask(xs)
            C = np.stack([np.where(free[3 + i], 1.0 / v[n], 0.0)
                          for i, n in enumerate(("k_b1", "k_b2"))], axis=-1)
            C = np.concatenate([np.zeros((xs.size, 3)), C, np.zeros((xs.size, 1))], axis=1)
            C = C.reshape(*x.shape, 6)
        flexible = np.maximum(C[..., 3], C[..., 4])                  # 1/min(EI) [1/(N m^2)]
        local = float(np.max(tension * ell**2 * flexible)) / TENSION_MECHANISM_LIMIT
    comm = model.comm
    return local if comm.size == 1 else comm.allreduce(local, op=MPI.MAX)


#: Entries of a flat 3x3 ``G`` whose differences ``G_12 - G_21, G_20 - G_02, G_01 - G_10``
#: (indices from 0) are the axial vector of ``G - G^T``.
_AXIAL = (np.array([5, 6, 1]), np.array([7, 2, 3]))


class RodMomentum:
    """The rod's linear momentum ``p = int rhoA v_phi ds`` [kg m/s], angular momentum about
    the origin ``J = int (phi x rhoA v_phi + M11 d1 x v_d1 + M22 d2 x v_d2) ds``
    [kg m^2/s] and the mean of its centreline ``com = 1/L int phi ds`` [m] from the nodal
    arrays of ``w0`` and ``v0``: the integrals by the Gauss rule of the forms (``dx``,
    :data:`fxrod.core.spaces.GAUSS_DEGREE`) summed into the P2 mass matrices of ``rhoA``,
    ``M11``, ``M22`` once, ``J = axial(sum_k X_k^T M_k V_k)`` with ``X_k``, ``V_k`` the
    nodal ``phi, d1, d2`` and their velocities, ``p = 1^T M_rhoA V_phi``. The same
    quantities as the UFL integrals up to the order of the round-off; a few sums over the
    element matrices' entries per state (O(n_e)) instead of nine assembled functionals.
    MPI-reduced over the owned cells (one allreduce).

    Parameters
    ----------
    model : fxrod.core.model.RodModel
        A model on an affine interval mesh (the P2 space ``Q`` of its configuration).
    """

    def __init__(self, model) -> None:
        self.model = m = model
        Q = m.space.Q
        ncell = m.mesh.topology.index_map(1).size_local
        nodes = Q.dofmap.list[:ncell]                          # (ncell, 3) P2 nodes
        n_local = Q.dofmap.index_map.size_local + Q.dofmap.index_map.num_ghosts
        pts, wts = basix.make_quadrature(basix.CellType.interval, GAUSS_DEGREE)
        N = Q.ufl_element().basix_element.tabulate(0, pts)[0, :, :, 0]    # (nq, 3)
        x = m.mesh.geometry.x
        g = m.mesh.geometry.dofmaps[0][:ncell]
        det = np.linalg.norm(x[g[:, 1]] - x[g[:, 0]], axis=1)            # element lengths
        wq = det[:, None] * wts[None, :]                                   # (ncell, nq)
        # the element mass matrices of rhoA, M11, M22 (owned cells) entry by entry, the
        # phi block's first, with the indices of X_r in w0 and of V_c in v0 for each entry
        # M_rc (r, c: node a, b of the cell and block k; component j = 0, 1, 2)
        q_map = np.asarray(m.space.q_map)
        a = np.broadcast_to(nodes[:, :, None], (ncell, 3, 3)).reshape(-1, 1)
        b = np.broadcast_to(nodes[:, None, :], (ncell, 3, 3)).reshape(-1, 1)
        vals, ir, ic = [], [], []
        for k, c in enumerate((m.rhoA, m.M11, m.M22)):
            Me = np.einsum("eq,qa,qb->eab", wq * self._at_points(c, ncell, wts.size), N, N)
            vals.append(Me.reshape(-1))
            ir.append(q_map[12 * a + 3 * k + np.arange(3)].reshape(-1))
            ic.append((12 * b + 3 * k + np.arange(3)).reshape(-1))
        self._vals, self._ir, self._ic = (np.concatenate(x) for x in (vals, ir, ic))
        self._n_phi = vals[0].size
        # int N_a ds / L of every node and the indices of its phi in w0 (com = w^T X_phi)
        self._w = np.zeros(n_local)
        np.add.at(self._w, nodes, wq @ N / m.rod.length)
        self._iphi = q_map[12 * np.arange(n_local)[:, None] + np.arange(3)].reshape(-1)
        self._w0, self._v0 = m.w0.x.array, m.v0.x.array    # views: the state's buffers

    @staticmethod
    def _at_points(c, ncell: int, nq: int) -> np.ndarray:
        """A section coefficient at the Gauss points ``(ncell, nq)``: a Constant's value or
        a quadrature function's (:func:`fxrod.core.spaces.quadrature_function`)."""
        if isinstance(c, fem.Constant):
            return np.full((ncell, nq), float(c.value))
        return c.x.array[c.function_space.dofmap.list[:ncell]]

    def values(self) -> np.ndarray:
        """``(p_1..3, J_1..3, com_1..3)`` (9,) at t_n, MPI-reduced: sums over the entries
        by NumPy's own loops (a BLAS product, faster by itself, slowed the steps that
        followed it, timed around the steps of the flying spaghetti)."""
        X = self._w0[self._ir].reshape(-1, 3)             # X_r, V_c of every entry M_rc
        V = self._v0[self._ic].reshape(-1, 3)
        G = np.einsum("n,nj,nl->jl", self._vals, X, V).reshape(-1)   # sum_k X_k^T M_k V_k
        out = np.empty(9)
        n = self._n_phi
        out[0:3] = np.einsum("n,nl->l", self._vals[:n], V[:n])       # p = 1^T M_rhoA V_phi
        np.subtract(G[_AXIAL[0]], G[_AXIAL[1]], out=out[3:6])    # J = axial(G - G^T)
        out[6:9] = np.einsum("a,aj->j", self._w, self._w0[self._iphi].reshape(-1, 3))
        comm = self.model.comm
        return out if comm.size == 1 else comm.allreduce(out, op=MPI.SUM)


def nodal_constraint_max(q: np.ndarray) -> float:
    """Largest ``|g_ij(d)| = |1/2 (d_i.d_j - delta_ij)|`` over nodes (theory §1.1)."""
    if q.size == 0:
        return 0.0
    d = q[:, 3:12].reshape(-1, 3, 3)  # d[:, k, :] = d_k
    worst = [np.max(np.abs(0.5 * (np.einsum("nk,nk->n", d[:, i], d[:, j])
                                  - (1.0 if i == j else 0.0))))
             for i, j in CONSTRAINT_PAIRS]
    return float(np.max(worst))       # NaN if any is (Python's max would drop it)


def nodal_constraint_values(q_node: np.ndarray) -> np.ndarray:
    """The six ``g_ij`` at one node (order of theory §1.1)."""
    d = np.asarray(q_node)[3:12].reshape(3, 3)
    return np.array([0.5 * (d[i] @ d[j] - (1.0 if i == j else 0.0)) for i, j in CONSTRAINT_PAIRS])


class StrainConsistency:
    """``|| Pi_DG1(eps(q) - eps0) - C sigma ||_Omega`` per strain component (theory §2.3, eq. 54).

    ``Pi_DG1`` is the L2 projection onto discontinuous P1; it is computed element by
    element from the assembled right-hand side ``b = (psi, eps(q) - eps0 - C sigma)`` with the
    exact DG1 element mass ``l/6 [[2, 1], [1, 2]]``: ``||Pi e||^2 = sum b^T M_e^{-1} b``.
    """

    def __init__(self, model) -> None:
        self.model = m = model
        S = m.space.S
        psi = ufl.TestFunction(S)
        sig = ufl.split(m.w0)[1]
        e = m.strain_form() - ufl.elem_mult(m.C, sig)
        self._b = fem.form(ufl.inner(psi, e) * m.ctx.dx)
        ncell = m.mesh.topology.index_map(1).size_local
        self._cells = np.array([S.dofmap.cell_dofs(c) for c in range(ncell)])  # (ncell, 2)
        self._le = m.rod.length / m.rod.n_elements

    def norms(self) -> np.ndarray:
        """Six L2 norms of the projected inconsistency (units of the strains)."""
        from dolfinx.fem.petsc import assemble_vector

        b = assemble_vector(self._b)
        b.ghostUpdate()
        arr = b.getArray(readonly=True)
        # local array of owned dofs; cells may reference ghosts -> use the full local vector
        from dolfinx import la

        vec = la.vector(self.model.space.S.dofmap.index_map, 6)
        vec.array[: arr.size] = arr
        vec.scatter_forward()
        bb = vec.array.reshape(-1, 6)
        b1, b2 = bb[self._cells[:, 0]], bb[self._cells[:, 1]]
        local = (2.0 / self._le) * (2 * b1**2 - 2 * b1 * b2 + 2 * b2**2)
        tot = self.model.comm.allreduce(local.sum(axis=0), op=MPI.SUM)
        b.destroy()
        return np.sqrt(np.maximum(tot, 0.0))
