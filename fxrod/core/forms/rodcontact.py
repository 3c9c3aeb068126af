"""Rod-rod and self-contact between the P2 nodes of the centrelines: a pairwise penalty in
the Hamiltonian, evaluated with a central discrete gradient, added to the Newton system
outside UFL (it couples distant nodes).

Two nodes ``a``, ``b`` at positions ``x_a``, ``x_b`` (on different rods, or on one rod
farther apart along it than ``exclude``) store ``V(g) = k/2 <-g>^2`` with the gap
``g = |x_a - x_b| - 2 r`` [m] and the pair stiffness ``k`` [N/m]: a node pair pressed by a
force ``f`` [N] overlaps by ``f/k`` in equilibrium, and a pair whose relative kinetic plus
potential energy is ``e`` [J] cannot overlap deeper than ``sqrt(2 e/k)``. Contact is
between nodes: the node spacing (half an element) must stay below about ``r`` so that
rods cannot slip between nodes.

Discrete gradient (dynamics, midpoint evaluation). With ``d = x_a - x_b`` at ``t_n``
(``d_0``) and ``t_{n+1}`` (``d_1``) and ``V'_bar = (V(g_1) - V(g_0)) / (g_1 - g_0)``
(``V'(g_m)`` if ``g_1 = g_0``), the force on ``a`` is::

    f_a = -f_b = -V'_bar 2 d_m / (|d_0| + |d_1|),    d_m = (d_0 + d_1)/2,

the discrete gradient of ``V`` as a function of ``|d|^2`` (LaBudde-Greenspan): since
``|d_1|^2 - |d_0|^2 = 2 d_m . (d_1 - d_0)``, ``f_a . (dx_a) + f_b . (dx_b) = -(V(g_1) -
V(g_0))`` exactly, the forces are equal and opposite (linear momentum) and parallel to
``d_m`` (no torque about any point at the midpoint: angular momentum). In a quasi-static
model (end-point evaluation) the exact gradient at ``t_{n+1}`` is used.

Candidate pairs are the node pairs closer than ``2 r`` at ``t_n`` or at the iterate
(:class:`scipy.spatial.cKDTree`); every other pair has ``g >= 0`` at both ends, hence no
force and no energy, so the set is exact. The extension is a term outside UFL
(``outside_ufl``, the model's ``nonlocal_terms``): every solver of the model adds its
residual rows and Jacobian blocks after the UFL assembly; the ledger books
:meth:`RodContact.stored_energy_value`.
In parallel the pairs are found by a collective search over a hashed grid of cells
(:func:`spatial_pairs`) and the owner of each node adds its rows.

Coulomb friction (``friction`` ``mu`` > 0): the regularised law of the obstacle contact
(:mod:`fxrod.core.forms.contact`) on the relative sliding velocity of the pair. With the normal
``n`` of the pair (``d_m/|d_m|`` at the midpoint, ``d_1/|d_1|`` in statics), its pressure
``p = |f_a| >= 0`` [N] and the relative velocity ``v = (d_1 - d_0)/h`` of node ``a``
against node ``b`` (``v_t`` its part normal to ``n``), the friction force on ``a`` is::

    f_t = -mu p v_t / sqrt(|v_t|^2 + eps^2),    on b: -f_t,

equal and opposite (linear momentum), and the step dissipates
``D = -h f_t . v = h mu p |v_t|^2 / sqrt(|v_t|^2 + eps^2) >= 0`` [J], booked in the ledger
(the pairs' sum, a constant integrated over the mesh: :meth:`RodContact.dissipation`, set
at the iterate the solver evaluated last, its converged one), so the balance
``H_{n+1} - H_n = W - D`` closes as with the obstacle. A sliding pair feels
``mu p (1 - eps^2/(2 |v_t|^2))``, a sticking pair creeps at ``eps s/sqrt(1 - s^2)``,
``s = |f_t|/(mu p) < 1``. The force is a function of ``d_1`` alone (given the state at
``t_n``); its derivative in ``d_1`` is taken by the complex step (exact to round-off). A
rod-rod contact with friction is a dissipative port: the linearised analyses and the
continuation refuse it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import ufl
from mpi4py import MPI
from petsc4py import PETSc
from scipy.spatial import cKDTree

from fxrod.core.forms.base import Extension
from fxrod.errors import ParameterError, check_nonnegative, check_positive
from fxrod.solvers import pattern

#: Pairs closer than this at t = 0, relative to 2 r, count as touching (not overlapping).
OVERLAP_TOL = 1e-10
#: Cells of the search grid per rank (:func:`spatial_pairs`): enough for the hash of the
#: cells to share the nodes evenly among the ranks.
CELLS_PER_RANK = 64
#: Columns of a node's record: its id (the global dof of x_1), owner rank, rod, arc length
#: s [m], the global dofs of x (3), its positions at t_n and at the iterate [m] (3 + 3).
ID, OWNER, ROD, S, DOFS, X0, X1, WIDTH = 0, 1, 2, 3, slice(4, 7), slice(7, 10), \
    slice(10, 13), 13
#: Large odd multipliers of the cell hash (Teschner et al. 2003).
_HASH = np.array([73856093, 19349663, 83492791], dtype=np.int64)


@dataclass(frozen=True)
class Pairs:
    """Node pairs ``(a, b)`` with ``id_a < id_b``, as the records of both nodes (columns
    :data:`ID` ... :data:`X1`), sorted by ``(id_a, id_b)``: those with at least one node
    owned by this rank."""

    a: np.ndarray
    b: np.ndarray

    def __len__(self) -> int:
        return self.a.shape[0]

    def keys(self, n: int) -> np.ndarray:
        """``id_a n + id_b``, one integer per pair (``n`` > every id)."""
        return self.a[:, ID].astype(np.int64) * n + self.b[:, ID].astype(np.int64)


def _exchange(comm, rows: np.ndarray, dest: np.ndarray) -> np.ndarray:
    """Send the rows of ``rows`` (n, k) to the ranks ``dest`` (n,); the rows received."""
    k = rows.shape[1]
    order = np.argsort(dest, kind="stable")
    send = np.ascontiguousarray(rows[order], dtype=float)
    counts = np.bincount(dest, minlength=comm.size).astype(np.int64)
    got = np.empty(comm.size, dtype=np.int64)
    comm.Alltoall(counts, got)
    recv = np.empty((int(got.sum()), k))
    offsets = lambda c: np.concatenate([[0], np.cumsum(c)[:-1]]) * k   # noqa: E731
    comm.Alltoallv([send, (counts * k, offsets(counts)), MPI.DOUBLE],
                   [recv, (got * k, offsets(got)), MPI.DOUBLE])
    return recv


def _rank_of(cells: np.ndarray, p: int) -> np.ndarray:
    """The rank that searches the cells ``(..., 3)`` (integer indices): a hash modulo p."""
    return np.bitwise_xor.reduce(cells * _HASH, axis=-1) % p


def spatial_pairs(comm, nodes: np.ndarray, reach: float, keep: Callable,
                  n_ids: int) -> Pairs:
    """The node pairs closer than ``reach`` [m] at ``t_n`` or at the iterate, found by a
    collective search over a grid of cells (collective).

    ``nodes``: the owned nodes' records (columns :data:`ID` ... :data:`X1`). Space is cut
    into cubes of side ``c >= 2 reach`` (about :data:`CELLS_PER_RANK` per rank over the
    nodes' bounding box), each cube searched by the rank of its hash. Every node goes to the
    ranks of the cubes its ball of radius ``reach`` meets, at ``t_n`` and at the iterate (at
    most 8 each); a rank finds the pairs closer than ``reach`` among the nodes it received
    (a KD-tree) and keeps a pair where the node ``a`` lies in one of its cubes, so that
    every pair is found once per configuration: ``b`` lies in ``a``'s ball, so it reached
    ``a``'s cube. The pairs that ``keep(a, b)`` accepts go to the owners of ``a`` and
    ``b``. The traffic is the nodes once (plus those near a cube's face) and the pairs,
    whatever the partition of the rods; in a serial run nothing is sent.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        The ranks.
    nodes : numpy.ndarray
        (n, :data:`WIDTH`) records of the owned nodes.
    reach : float
        Search distance [m], > 0.
    keep : callable
        ``(a, b) -> bool array``: which pairs of records may interact.
    n_ids : int
        A bound on the ids (sorting key of the pairs).

    Returns
    -------
    Pairs
        The pairs with an owned node.
    """
    p, rank = comm.size, comm.rank
    if p == 1:
        got, home = nodes, None
    else:
        x = np.vstack([nodes[:, X0], nodes[:, X1]])
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        comm.Allreduce(x.min(axis=0) if x.size else lo.copy(), lo, op=MPI.MIN)
        comm.Allreduce(x.max(axis=0) if x.size else hi.copy(), hi, op=MPI.MAX)
        c = max(2.0 * reach, float(np.prod(np.maximum(hi - lo, 2.0 * reach))
                                   / (CELLS_PER_RANK * p)) ** (1.0 / 3.0))
        base = lo - reach

        def cell(y):
            return np.floor((y - base) / c).astype(np.int64)

        corners = np.array([[i >> 2 & 1, i >> 1 & 1, i & 1] for i in range(8)], dtype=bool)
        dest = []
        for col in (X0, X1):
            lo_c, hi_c = cell(nodes[:, col] - reach), cell(nodes[:, col] + reach)
            cells = np.where(corners[None], hi_c[:, None], lo_c[:, None])     # (n, 8, 3)
            dest.append(_rank_of(cells, p))
        dest = np.hstack(dest)                                                  # (n, 16)
        idx = np.repeat(np.arange(nodes.shape[0]), dest.shape[1])
        key = np.unique(idx * p + dest.reshape(-1))
        got = _exchange(comm, nodes[key // p], key % p)
        home = [_rank_of(cell(got[:, col]), p) == rank for col in (X0, X1)]
    ids = got[:, ID]
    found = []
    for k, col in enumerate((X0, X1)):
        if k == 1 and np.array_equal(got[:, X0], got[:, X1]):
            break
        if got.shape[0] < 2:
            break
        ij = cKDTree(got[:, col]).query_pairs(reach, output_type="ndarray").reshape(-1, 2)
        flip = ids[ij[:, 0]] > ids[ij[:, 1]]
        ij[flip] = ij[flip][:, ::-1]
        if home is not None:
            ij = ij[home[k][ij[:, 0]]]
        found.append(ij)
    ij = np.unique(np.vstack(found), axis=0) if found else np.empty((0, 2), dtype=np.int64)
    ij = ij[keep(got[ij[:, 0]], got[ij[:, 1]])]
    rows = np.hstack([got[ij[:, 0]], got[ij[:, 1]]])
    if p > 1:
        oa, ob = rows[:, OWNER].astype(np.int64), rows[:, WIDTH + OWNER].astype(np.int64)
        two = ob != oa
        rows = _exchange(comm, np.vstack([rows, rows[two]]), np.concatenate([oa, ob[two]]))
    key = rows[:, ID].astype(np.int64) * n_ids + rows[:, WIDTH + ID].astype(np.int64)
    _, first = np.unique(key, return_index=True)
    rows = rows[first]
    return Pairs(rows[:, :WIDTH], rows[:, WIDTH:])


def owned_nodes(ctx) -> tuple:
    """The step unknown ``w`` and the state ``w0`` behind a form context, and this rank's
    owned P2 nodes: ``(w, w0, local, glob, xs)`` with their local and global dofs of ``w``
    (n, 12), the nodes' q = (x, d1, d2, d3), and their mesh coordinates ``xs`` [m] (n,)."""
    (w,) = ufl.algorithms.extract_coefficients(ctx.q1)
    (w0,) = ufl.algorithms.extract_coefficients(ctx.q0)
    W = w.function_space
    Q, qmap = W.sub(0).collapse()
    qmap = np.asarray(qmap, dtype=np.int64).reshape(-1, 12)
    imap, bs = W.dofmap.index_map, W.dofmap.index_map_bs
    n_nodes = Q.dofmap.index_map.size_local
    local = qmap[:n_nodes]
    glob = imap.local_to_global((local // bs).reshape(-1)).reshape(-1, 12) * bs + local % bs
    return w, w0, local, glob, Q.tabulate_dof_coordinates()[:n_nodes, 0]


class RodContact(Extension):
    """Frictionless penalty contact between the nodes of the rods of a model.

    Parameters
    ----------
    radius : float
        Contact radius ``r`` [m] of the rods (two centrelines touch at ``2 r``), > 0.
    stiffness : float
        Penalty stiffness ``k`` [N/m] of one node pair, > 0.
    exclude : float, optional
        Nodes closer than this along the rods [m] never interact: along one rod (periodic
        along a closed rod) or through a joint of a structure (the sum of both nodes'
        distances to the joint); default ``4 r``; must exceed ``2 r``.
    name : str
        Name in the model (default ``"rodcontact"``).
    friction : float
        Coulomb coefficient ``mu`` [-] between the rods, >= 0 (default 0: frictionless).
    v_reg : float
        Regularisation velocity ``eps`` [m/s] of the friction law (load-factor units in a
        quasi-static model), > 0. Default 1e-4.
    """

    structures = True
    outside_ufl = True

    def __init__(self, radius: float, stiffness: float, exclude: float | None = None,
                 name: str = "rodcontact", friction: float = 0.0, v_reg: float = 1e-4) -> None:
        self.r = check_positive("radius", radius)
        self.k = check_positive("stiffness", stiffness)
        self.exclude = 4.0 * self.r if exclude is None else check_positive("exclude", exclude)
        if self.exclude <= 2.0 * self.r:
            raise ParameterError("exclude", exclude, f"> 2 radius = {2.0 * self.r:.6g} m")
        self.name = name
        self.mu = check_nonnegative("friction", friction)
        self.v_reg = check_positive("v_reg", v_reg)
        #: a dissipative port with friction (the linearised analyses refuse it)
        self.dissipative = self.mu > 0.0
        #: the friction dissipation [J] of the step at the last iterate evaluated
        self._D = 0.0

    # ------------------------------------------------------------------ checks
    def bind(self, rod) -> None:
        """Keep the layout of the rods (index, arc length, closed) for the exclusion."""
        rods = getattr(rod, "rods", [rod])
        self._locate = getattr(rod, "locate",
                               lambda x: (np.zeros(np.shape(x), dtype=int), np.asarray(x)))
        self._lengths = np.array([r.length for r in rods])
        self._closed = np.array([bool(r.curve.closed) for r in rods])
        self._reference = rod.initial_configuration
        self._junctions = self._junctions_of(rods, getattr(rod, "joints", ()))
        self._cache: list[tuple[tuple, Pairs]] = []
        #: per matrix (its handle): the keys of the pairs whose blocks its pattern holds
        self._known: dict[int, np.ndarray] = {}

    @staticmethod
    def _junctions_of(rods, joints) -> list[dict[int, float]]:
        """The joints' nodes grouped into junctions (nodes tied by joints, directly or
        through other joints), each as ``{rod: s [m]}``."""
        def s_of(node) -> tuple[int, float]:
            k, where = node
            return k, {"0": 0.0, "L": rods[k].length}.get(where, where)

        groups: list[set[tuple[int, float]]] = []
        for j in joints:
            a, b = s_of(j.a), s_of(j.b)
            hit = [g for g in groups if a in g or b in g]
            merged = set().union({a, b}, *hit)
            groups = [g for g in groups if not any(g is h for h in hit)] + [merged]
        return [dict(g) for g in groups]

    def setup(self, ctx, fields) -> None:
        """Find the unknown ``w`` and the state ``w0`` behind the context, describe the owned
        nodes (global ids, dofs, rod and arc length) and check that no pair overlaps in the
        reference (t = 0)."""
        self._ctx = ctx
        self.w, self.w0, local, glob, xs = owned_nodes(ctx)
        W = self.w.function_space
        n_nodes = xs.size
        glob = glob[:, :3]                                         # the dofs of x
        self.comm = W.mesh.comm
        self._local = local[:, :3]
        self._n_global = W.dofmap.index_map.size_global * W.dofmap.index_map_bs
        rod, s = self._locate(xs)
        # the owned nodes' record: id (the global dof of x_1), owner, rod, s, dofs of x
        self._static = np.column_stack([glob[:, 0], np.full(n_nodes, self.comm.rank), rod, s,
                                        glob]).astype(float)
        x = self._reference(xs)[:, :3]
        t = self._table(x, x, 2.0 * self.r)
        g = np.linalg.norm(t.a[:, X0] - t.b[:, X0], axis=1) - 2.0 * self.r
        i = int(np.argmin(g)) if g.size else -1
        worst = min(self.comm.allgather((float(g[i]), *t.a[i, ROD:S + 1], *t.b[i, ROD:S + 1])
                                        if g.size else (np.inf,)))
        if worst[0] < -OVERLAP_TOL * 2.0 * self.r:
            raise ParameterError(
                f"node gap (rod {int(worst[1])}, s = {worst[2]:.6g}) - (rod {int(worst[3])}, "
                f"s = {worst[4]:.6g}) at t = 0", worst[0],
                ">= 0 (the rods must not overlap at t = 0)")

    # ------------------------------------------------------------------ pairs
    def _positions(self, f) -> np.ndarray:
        """Positions [m] of the owned nodes in ``f``, (n_owned, 3)."""
        return f.x.array[self._local]

    def _table(self, x0: np.ndarray, x1: np.ndarray, reach: float) -> Pairs:
        """The node pairs closer than ``reach`` [m] in ``x0`` or in ``x1`` (the owned nodes'
        positions at ``t_n`` and at the iterate) with at least one owned node, excluded
        pairs left out (:func:`spatial_pairs`). The last three tables are remembered (the
        state within a step, the residual and the Jacobian at one iterate); collective."""
        hit = next((t for key, t in self._cache if key[0] == reach
                    and np.array_equal(key[1], x0) and np.array_equal(key[2], x1)), None)
        if self.comm.size > 1 and not self.comm.allreduce(hit is not None, op=MPI.LAND):
            hit = None
        if hit is not None:
            return hit
        t = spatial_pairs(self.comm, np.column_stack([self._static, x0, x1]), reach,
                          self._keep, self._n_global)
        self._cache.insert(0, ((reach, x0.copy(), x1.copy()), t))
        del self._cache[3:]
        return t

    def _keep(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Which pairs of nodes (records ``a``, ``b``: rod in column 2, s [m] in column 3)
        may touch: farther apart along the rods (through a joint too) than ``exclude``."""
        ra, rb = a[:, 2].astype(int), b[:, 2].astype(int)
        sa, sb = a[:, 3], b[:, 3]
        ds = np.abs(sa - sb)
        L = self._lengths[ra]
        ds = np.where(self._closed[ra], np.minimum(ds, L - ds), ds)
        ds = np.where(ra == rb, ds, np.inf)
        for junction in self._junctions:      # along the rods through a joint
            ja = np.array([junction.get(k, np.nan) for k in ra])
            jb = np.array([junction.get(k, np.nan) for k in rb])
            via = np.abs(sa - ja) + np.abs(sb - jb)
            ds = np.where(np.isnan(via), ds, np.minimum(ds, via))
        return ds >= self.exclude

    def _slope(self, g0: np.ndarray, g1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Secant slope ``V'_bar`` [N] of the penalty and its derivative in ``g_1`` [N/m]."""
        k = self.k
        m0, m1 = np.minimum(g0, 0.0), np.minimum(g1, 0.0)
        dg = g1 - g0
        close = np.abs(dg) <= 1e-12 * self.r
        safe = np.where(close, 1.0, dg)
        slope = np.where(close, k * np.minimum(0.5 * (g0 + g1), 0.0),
                         0.5 * k * (m1 * m1 - m0 * m0) / safe)
        dslope = np.where(close, 0.5 * k * (0.5 * (g0 + g1) < 0.0), (k * m1 - slope) / safe)
        return slope, dslope

    def _forces(self, jacobian: bool):
        """Pairs, pair force ``G`` with ``R_a = h G = -R_b`` [N] and, if asked, its
        derivative ``dG/dx_a = -dG/dx_b`` [N/m] at the current iterate (collective)."""
        p = self._table(self._positions(self.w0), self._positions(self.w), 2.0 * self.r)
        d0 = p.a[:, X0] - p.b[:, X0]
        d1 = p.a[:, X1] - p.b[:, X1]
        l0, l1 = np.linalg.norm(d0, axis=1), np.linalg.norm(d1, axis=1)
        g0, g1 = l0 - 2.0 * self.r, l1 - 2.0 * self.r
        n1 = d1 / l1[:, None]
        eye = np.eye(3)[None]
        nn = n1[:, :, None] * n1[:, None, :]
        if float(self._ctx.theta.value) == 1.0:          # end-point evaluation: exact
            m1 = np.minimum(g1, 0.0)
            G = self.k * m1[:, None] * n1
            K = (self.k * (g1 < 0.0)[:, None, None] * nn
                 + (self.k * m1 / l1)[:, None, None] * (eye - nn)) if jacobian else None
            return self._with_friction(p, d0, d1, G, K)
        slope, dslope = self._slope(g0, g1)
        S = l0 + l1
        c = 2.0 / S
        dm = 0.5 * (d0 + d1)
        G = (slope * c)[:, None] * dm
        K = None
        if jacobian:
            K = ((dslope * c)[:, None, None] * dm[:, :, None] * n1[:, None, :]
                 + (slope / S)[:, None, None] * eye
                 - (slope * c / S)[:, None, None] * dm[:, :, None] * n1[:, None, :])
        return self._with_friction(p, d0, d1, G, K)

    def _friction(self, d0: np.ndarray, d1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Friction rows ``G_t = -f_t`` [N] of the pairs (``d_0``, ``d_1``: (m, 3), ``d_1``
        real or complex for the complex step) and their dissipation ``D`` [J] (real part
        meaningful)."""
        h = float(self._ctx.h.value)
        dot = lambda a, b: np.sum(a * b, axis=1)                          # noqa: E731
        l1 = np.sqrt(dot(d1, d1))
        g1 = l1 - 2.0 * self.r
        m1 = np.where(g1.real < 0.0, g1, 0.0)
        if float(self._ctx.theta.value) == 1.0:
            P, n = -self.k * m1, d1 / l1[:, None]
        else:
            l0 = np.sqrt(dot(d0, d0))
            g0 = l0 - 2.0 * self.r
            m0 = np.minimum(g0, 0.0)
            dg = g1 - g0
            close = np.abs(dg.real) <= 1e-12 * self.r
            gm = 0.5 * (g0 + g1)
            slope = np.where(close, self.k * np.where(gm.real < 0.0, gm, 0.0),
                             0.5 * self.k * (m1 * m1 - m0 * m0) / np.where(close, 1.0, dg))
            dm = 0.5 * (d0 + d1)
            ldm = np.sqrt(dot(dm, dm))
            P, n = -slope * 2.0 * ldm / (l0 + l1), dm / ldm[:, None]
        v = (d1 - d0) / h
        vt = v - dot(v, n)[:, None] * n
        q = dot(vt, vt)
        root = np.sqrt(q + self.v_reg ** 2)
        return (self.mu * P / root)[:, None] * vt, h * self.mu * P * q / root

    def _with_friction(self, p: Pairs, d0, d1, G, K):
        """Add the friction rows and blocks (complex step in ``d_1``) to the normal ones and
        set the step's dissipation (:meth:`dissipation_value`, read by the ledger; each pair
        counted by the owner of its node ``a``, summed over the ranks)."""
        if self.mu == 0.0:
            return p, G, K
        Gt, D = self._friction(d0, d1)
        self._D = self._sum(D.real[self._mine(p.a)])
        if K is not None:
            step = 1e-30 * max(self.r, 1e-300)
            Kt = np.empty_like(K)
            for j in range(3):
                dj = d1.astype(complex)
                dj[:, j] += 1j * step
                Kt[:, :, j] = self._friction(d0, dj)[0].imag / step
            K = K + Kt
        return p, G + Gt.real, K

    def _mine(self, records: np.ndarray) -> np.ndarray:
        """Which of the node ``records`` this rank owns."""
        return records[:, OWNER] == self.comm.rank

    def _sum(self, v: np.ndarray) -> float:
        """The sum of ``v`` over every rank."""
        return self.comm.allreduce(float(np.sum(v)), op=MPI.SUM)

    # ------------------------------------------------------------------ hooks
    def add_residual(self, b: PETSc.Vec, skip: np.ndarray) -> None:
        """Add ``h`` times the contact forces' rows (the model's residual scaling) to the
        owned entries of ``b`` (global dofs in ``skip``, Dirichlet rows, excluded)."""
        p, G, _ = self._forces(jacobian=False)
        h = float(self._ctx.h.value)
        for side, sign in ((p.a, 1.0), (p.b, -1.0)):
            mine = self._mine(side)
            rows = side[mine, DOFS].astype(PETSc.IntType).reshape(-1)
            val = (sign * h * G[mine]).reshape(-1)
            ok = ~np.isin(rows, skip)
            b.setValues(rows[ok], val[ok], addv=PETSc.InsertMode.ADD_VALUES)
        b.assemble()

    def add_jacobian(self, A: PETSc.Mat, skip: np.ndarray) -> None:
        """Add the contact blocks to the owned rows of the assembled ``A`` (rows and columns
        in ``skip`` left out) and assemble it.

        Every pair gives one 6 x 6 block ``h [[K, -K], [-K, K]]`` on the dofs of ``(x_a,
        x_b)``, rows of other ranks and rows/columns in ``skip`` as index -1 (ignored by
        PETSc). When pairs appear on any rank that are not yet in the sparsity pattern of
        ``A``, the matrix is preallocated once more with the union of its pattern and the
        new pairs' whole blocks (:func:`fxrod.solvers.pattern.grow`: zeros kept, a new
        pattern epoch, so the solver factoring ``A`` analyses it anew); inserting into a
        matrix without room makes PETSc reallocate it once per overflowing row."""
        p, _, K = self._forces(jacobian=True)
        h = float(self._ctx.h.value)
        dofs = np.hstack([p.a[:, DOFS], p.b[:, DOFS]]).astype(PETSc.IntType)
        out = np.isin(dofs, skip)
        cols = np.where(out, -1, dofs).astype(PETSc.IntType)
        mine = np.repeat(np.column_stack([self._mine(p.a), self._mine(p.b)]), 3, axis=1)
        rows = np.where(out | ~mine, -1, dofs).astype(PETSc.IntType)
        hK = h * K
        blocks = np.block([[hK, -hK], [-hK, hK]])
        key = p.keys(self._n_global)
        known = self._known.get(A.handle, np.empty(0, dtype=np.int64))
        new = bool(np.isin(key, known, invert=True).any())
        if self.comm.allreduce(new, op=MPI.LOR):
            pattern.grow(A, rows, cols, blocks)
            self._known = {A.handle: np.union1d(known, key)}
            return
        A.setOption(PETSc.Mat.Option.NEW_NONZERO_ALLOCATION_ERR, False)
        A.setValuesRCV(rows, cols, blocks, addv=PETSc.InsertMode.ADD_VALUES)
        A.assemble()

    def dissipation_value(self) -> float:
        """Friction dissipation of the step ``D`` [J]: the pairs' sum at the last iterate
        the solver evaluated (the converged one), the same on every rank; 0 without
        friction. The ledger adds it to the dissipation of the UFL terms."""
        return self._D

    def _state(self) -> tuple[Pairs, np.ndarray]:
        """The pairs of the state at ``t_n`` and their gaps [m] (collective)."""
        x = self._positions(self.w0)
        p = self._table(x, x, 2.0 * self.r)
        return p, np.linalg.norm(p.a[:, X0] - p.b[:, X0], axis=1) - 2.0 * self.r

    def stored_energy_value(self) -> float:
        """Penalty energy [J] of the state at ``t_n`` (the same on every rank)."""
        p, g = self._state()
        return self._sum((0.5 * self.k * np.minimum(g, 0.0) ** 2)[self._mine(p.a)])

    def force_on(self, rod: int = 0) -> np.ndarray:
        """Resultant contact force [N] (3,) on rod ``rod`` at the last iterate (the step
        average in dynamics), friction included (the same on every rank)."""
        p, G, _ = self._forces(jacobian=False)
        on_a = (self._mine(p.a) & (p.a[:, ROD] == rod))[:, None]
        on_b = (self._mine(p.b) & (p.b[:, ROD] == rod))[:, None]
        f = np.sum(np.where(on_b, G, 0.0) - np.where(on_a, G, 0.0), axis=0)
        out = np.empty(3)
        self.comm.Allreduce(f, out, op=MPI.SUM)
        return out

    def touching(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs in contact at the last iterate (every rank): the positions at the
        iterate of their nodes ``a`` and ``b`` [m] and the force ``G`` [N] (``-G`` on ``a``,
        ``+G`` on ``b``), each (m, 3)."""
        p, G, _ = self._forces(jacobian=False)
        on = self._mine(p.a) & (np.linalg.norm(G, axis=1) > 0.0)
        rows = np.hstack([p.a[on, X1], p.b[on, X1], G[on]])
        rows = np.vstack(self.comm.allgather(rows)) if self.comm.size > 1 else rows
        return rows[:, 0:3], rows[:, 3:6], rows[:, 6:9]

    def min_gap(self) -> float:
        """Smallest node-pair gap ``g`` [m] at ``t_n`` among the pairs that may touch
        (``+inf`` if none is closer than ``2 r``; the same on every rank)."""
        _, g = self._state()
        return self.comm.allreduce(float(np.min(g)) if g.size else np.inf, op=MPI.MIN)
