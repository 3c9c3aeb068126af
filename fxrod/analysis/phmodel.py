"""The linear port-Hamiltonian model of a rod (or structure) about an equilibrium, and its
modal truncation (theory §2.6).

About an equilibrium ``(q*, sigma*, lambda*)`` the mixed equations of motion linearise to the
descriptor port-Hamiltonian system::

    E x' = (J - R) Q x + B u,    y = B^T Q x,    H = 1/2 x^T Q^T E x,

with the state ``x = (q, v, sigma, lambda)`` (deviations from the equilibrium)::

    E = diag(I, M, C, 0),   Q = diag(K_g, I, I, I),   R = diag(0, alpha M, 0, 0),

        [  0    I    0      0   ]
    J = [ -I    0   -B^T   -G^T ]
        [  0    B    0      0   ]
        [  0    G    0      0   ]

``M`` the mass (rod and rigid bodies), ``C`` the compliance of the stresses, ``B = d eps(q*)``
the strain operator, ``G = G_d(d*)`` the orthonormality constraints and ``K_g`` the geometric
stiffness of the prestress (zero about an unloaded reference): the blocks of the operator
``A`` of :mod:`fxrod.analysis.modes` (contact with its full penalty stiffness at the equilibrium,
rod-rod contact included; contact friction and damping are refused: they linearise to a
damping ``R`` does not hold). Supported dofs are removed, joints eliminated (``w = T w_r``).
``J`` is skew and ``Q^T E = diag(K_g, M, C, 0)`` symmetric: ``dH/dt = -z^T R z + y^T u``
with the co-energy ``z = Q x``.

The damping block is the linearisation of the model's
:class:`fxrod.core.forms.drag.RayleighDamping` (``alpha M + beta K``) plus an optional
mass-proportional damping of the export alone (``damping``)::

    R_vv = (damping + alpha) M + beta B^T C_a^-1 B,

``C_a`` the compliance block on the stress components that have one (constrained strains
carry no viscous stress): the viscous stress ``sigma_v`` of the step solves
``C sigma_v = beta B v``, and it enters the momentum rows like the stress, through ``B^T``.
``B^T C_a^-1 B`` is the material stiffness (without ``K_g``); about an unloaded reference it
is the whole stiffness, and every mode then decays with the ratio
``alpha/(2 omega) + beta omega/2``. The other dissipative extensions (drag, ambient damping)
are refused. The inputs ``u`` are named end forces [N] and moments [N m] (dead, spatial
directions); the collocated outputs ``y`` are the velocity [m/s] of the loaded node along a
force and its angular velocity [rad/s] about a moment.

The modal truncation keeps k natural modes ``phi_i`` (unit modal mass) of
:func:`fxrod.analysis.modes.modes`: state ``(eta, p)`` (modal displacements [kg^1/2 m] and
momenta), ``E = I``, ``J = [[0, I], [-I, 0]]``, ``Q = diag(Omega^2, I)``, ``B = [0; Phi^T b]``:
again port-Hamiltonian, with the same inputs and outputs.

Matrices are ``scipy.sparse`` CSR on every rank (gathered from the distributed operators).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import ufl
from dolfinx import fem
from dolfinx.fem.petsc import assemble_vector
from petsc4py import PETSc
from scipy.sparse import csgraph

from fxrod.analysis.modes import check_model, mass_form, modes, stiffness_matrix, system_matrix
from fxrod.core.forms.contact import Contact
from fxrod.core.forms.drag import RayleighDamping
from fxrod.core.kinematics import angular_velocity, split_q
from fxrod.errors import ParameterError, check_int_min, check_vector

#: Names of the blocks of the full state, in order.
BLOCKS = ("q", "v", "sigma", "lambda")
#: Units of the state blocks (q: positions [m] and directors [-]).
BLOCK_UNITS = {"q": "m (phi) / - (d_k)", "v": "m/s (phi) / 1/s (d_k)",
               "sigma": "N (n) / N m (m)", "lambda": "N",
               "eta": "kg^1/2 m", "p": "kg^1/2 m/s"}
Q_COMPONENTS = ("phi_1", "phi_2", "phi_3", "d1_1", "d1_2", "d1_3", "d2_1", "d2_2", "d2_3",
                "d3_1", "d3_2", "d3_3")


@dataclass(frozen=True)
class Input:
    """A named input of the linear model: a dead end force or moment along a direction.

    Parameters
    ----------
    name : str
        Name of the input (and of its collocated output).
    kind : {"force", "moment"}
        A force [N] (output: the node's velocity along ``direction`` [m/s]) or a moment
        [N m] (output: the node's angular velocity about ``direction`` [rad/s]).
    end : {"0", "L"}
        The rod end.
    direction : sequence of 3 floats
        Spatial direction (normalised).
    rod : int
        Rod index in a structure (default 0).
    """

    name: str
    kind: str
    end: str = "L"
    direction: tuple = (0.0, 0.0, 1.0)
    rod: int = 0

    def __post_init__(self) -> None:
        if not (isinstance(self.name, str) and self.name):
            raise ParameterError("input name", self.name, "a non-empty string")
        if self.kind not in ("force", "moment"):
            raise ParameterError("input kind", self.kind, "'force' or 'moment'")
        if self.end not in ("0", "L"):
            raise ParameterError("input end", self.end, "'0' or 'L'")
        check_int_min("input rod", self.rod, 0)
        d = check_vector("input direction", self.direction, 3)
        n = float(np.linalg.norm(d))
        if not n > 0.0:
            raise ParameterError("input direction", tuple(d), "a non-zero vector")
        object.__setattr__(self, "direction", tuple(float(c) for c in d / n))

    @property
    def units(self) -> tuple[str, str]:
        """Units of the input and of its output."""
        return ("N", "m/s") if self.kind == "force" else ("N m", "rad/s")


@dataclass
class PHModel:
    """A linear descriptor port-Hamiltonian system ``E x' = (J - R) Q x + B u``,
    ``y = B^T Q x`` (scipy.sparse CSR matrices).

    Attributes
    ----------
    E, J, R, Q, B : scipy.sparse.csr_matrix
        The matrices (SI units of the state blocks, see ``blocks``).
    blocks : dict
        ``{block name: (start, size)}`` of the state: ``q, v, sigma, lambda`` (full model)
        or ``eta, p`` (modal truncation).
    inputs : list of Input
        The inputs, in the order of the columns of B (outputs in the same order).
    q_coordinate, q_component : ndarray
        Mesh coordinate [m] and component (index into ``Q_COMPONENTS``) of every q state
        (full model; empty for a modal model).
    omega : ndarray
        Circular frequencies [rad/s] of the modes of a modal model (empty otherwise).
    shapes : ndarray
        ``(n_q, k)`` mode shapes on the q states of the full model (modal model only).
    """

    E: sp.csr_matrix
    J: sp.csr_matrix
    R: sp.csr_matrix
    Q: sp.csr_matrix
    B: sp.csr_matrix
    blocks: dict
    inputs: list
    q_coordinate: np.ndarray = field(default_factory=lambda: np.empty(0))
    q_component: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=int))
    omega: np.ndarray = field(default_factory=lambda: np.empty(0))
    shapes: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))

    @property
    def n_states(self) -> int:
        return self.E.shape[0]

    def block(self, name: str) -> slice:
        """The slice of a state block."""
        if name not in self.blocks:
            raise ParameterError("block", name, f"one of {list(self.blocks)}")
        start, size = self.blocks[name]
        return slice(start, start + size)

    def q_index(self, coordinate: float, component: int) -> int:
        """Index of the q state of the node at mesh ``coordinate`` [m] (e.g.
        ``model.tip_coordinate``) and ``component`` (0..11, ``Q_COMPONENTS``)."""
        hit = np.flatnonzero(np.isclose(self.q_coordinate, coordinate, rtol=0.0, atol=1e-9)
                             & (self.q_component == component))
        if hit.size != 1:
            raise ParameterError("q state", (coordinate, component),
                                 "a free (unsupported, not eliminated) node's component")
        return int(hit[0])

    def hamiltonian(self, x: np.ndarray) -> float:
        """``H = 1/2 x^T Q^T E x`` [J]."""
        return 0.5 * float(x @ (self.Q.T @ (self.E @ x)))

    def output(self, x: np.ndarray) -> np.ndarray:
        """``y = B^T Q x`` (units of the inputs' outputs)."""
        return self.B.T @ (self.Q @ x)

    def simulate(self, u, h: float, n_steps: int, x0: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Implicit midpoint steps of the descriptor system: ``E (x_{n+1} - x_n)/h =
        A x_m + B u(t_{n+1/2})``, ``x_m = (x_n + x_{n+1})/2``, ``A = (J - R) Q`` (the
        algebraic states are their midpoint values). The midpoint rule keeps the power
        balance exactly: ``H_{n+1} - H_n = h (y_m . u_m - z_m^T R z_m)``.

        Parameters
        ----------
        u : callable
            ``t [s] -> (n_inputs,)`` input values.
        h : float
            Time step [s].
        n_steps : int
            Number of steps.
        x0 : ndarray, optional
            Initial state (default 0: the equilibrium).

        Returns
        -------
        t : (n_steps + 1,) times [s]; X : (n_steps + 1, n) states; Xm : (n_steps, n)
        midpoint states; Um : (n_steps, n_inputs) midpoint inputs.
        """
        h = float(h)
        if not (np.isfinite(h) and h > 0.0):
            raise ParameterError("h", h, "a time step > 0 [s]")
        n_steps = check_int_min("n_steps", n_steps, 1)
        n = self.n_states
        x = np.zeros(n) if x0 is None else np.asarray(x0, dtype=float).copy()
        A = ((self.J - self.R) @ self.Q).tocsc()
        lu = spla.splu((2.0 / h * self.E - A).tocsc())
        X, Xm, Um = [x.copy()], [], []
        for i in range(n_steps):
            um = np.asarray(u((i + 0.5) * h), dtype=float).reshape(-1)
            xm = lu.solve(2.0 / h * (self.E @ x) + self.B @ um)
            x = 2.0 * xm - x
            Xm.append(xm)
            Um.append(um)
            X.append(x.copy())
        return np.arange(n_steps + 1) * h, np.array(X), np.array(Xm), np.array(Um)


# ---------------------------------------------------------------------- gathering
def _gather_matrix(A: PETSc.Mat, comm) -> sp.csr_matrix:
    """A distributed PETSc AIJ matrix as a scipy CSR matrix on every rank."""
    ip, jj, vv = A.getValuesCSR()
    r0 = A.getOwnershipRange()[0]
    rows = r0 + np.repeat(np.arange(ip.size - 1), np.diff(ip))
    parts = comm.allgather((rows, jj, vv))
    r, c, v = (np.concatenate([p[k] for p in parts]) for k in range(3))
    return sp.csr_matrix((v, (r, c)), shape=A.getSize())


def _gather(a: np.ndarray, comm) -> np.ndarray:
    """Owned arrays of every rank, concatenated in rank order (the global numbering)."""
    return np.concatenate(comm.allgather(np.asarray(a)))


def _unknown_labels(model) -> dict[str, np.ndarray]:
    """Per owned unknown (mixed space, or the masters with joints), gathered: the field
    (0 q, 1 sigma, 2 lambda), supported flag, q node coordinate and q component."""
    W = model.space.W
    n_owned = W.dofmap.index_map.size_local * W.dofmap.index_map_bs
    n_all = model.w.x.array.size
    kind = np.full(n_all, -1)
    for k, name in enumerate(("q", "sigma", "lambda")):
        kind[model.field_dofs(name)] = k
    coord, comp = np.full(n_all, np.nan), np.full(n_all, -1)
    x_nodes = model.space.Q.tabulate_dof_coordinates()[:, 0]
    coord[model.space.q_map] = np.repeat(x_nodes, 12)
    comp[model.space.q_map] = np.tile(np.arange(12), x_nodes.size)
    supported = np.zeros(n_all, dtype=bool)
    for bc in model.bcs:
        supported[bc.dof_indices()[0]] = True
    own = (np.arange(n_owned) if model.reduction is None
           else model.reduction.masters_local)
    return {name: _gather(a[own], model.comm) for name, a in
            (("kind", kind), ("supported", supported), ("coord", coord), ("comp", comp))}


def input_matrix(model, inputs, state: np.ndarray) -> np.ndarray:
    """``(n_unknowns, n_inputs)`` generalised forces of unit inputs at ``state`` (local
    mixed array), on the model's unknowns (folded ``T^T b`` with joints), gathered."""
    W = model.space.W
    test = ufl.TestFunctions(W)[0]
    wphi, wd = split_q(test)
    _, d = split_q(ufl.split(model.w)[0])
    saved = model.w.x.array.copy()
    model.w.x.array[:] = state
    cols = []
    try:
        for inp in inputs:
            e = ufl.as_vector(inp.direction)
            density = (ufl.dot(e, wphi) if inp.kind == "force"
                       else ufl.dot(e, angular_velocity(d, wd)))
            b = assemble_vector(fem.form(density * model.ctx.ds_end(inp.end, inp.rod)))
            b.ghostUpdate(addv=PETSc.InsertMode.ADD, mode=PETSc.ScatterMode.REVERSE)
            if model.reduction is not None:
                r = model.reduction.T.createVecRight()
                model.reduction.T.multTranspose(b, r)
                b.destroy()
                b = r
            cols.append(_gather(b.getArray(readonly=True).copy(), model.comm))
            b.destroy()
    finally:
        model.w.x.array[:] = saved
    return np.column_stack(cols)


def _check_inputs(model, inputs) -> list[Input]:
    for ext in model.extensions:
        if isinstance(ext, Contact):
            for name, value in (("friction", max(ext.mu_a, ext.mu_l, ext.mu_b)),
                                ("damping", ext.damping)):
                if value != 0.0:
                    raise ParameterError(f"{ext.name}.{name}", value,
                                         "0 in the PH export (it linearises to a damping "
                                         "the export does not include in R)")
    inputs = list(inputs)
    if not inputs or not all(isinstance(i, Input) for i in inputs):
        raise ParameterError("inputs", inputs, "a non-empty list of fxrod.analysis.phmodel.Input")
    names = [i.name for i in inputs]
    if len(set(names)) != len(names):
        raise ParameterError("input names", names, "unique")
    n_rods = len(model.structure.rods)
    for i in inputs:
        if i.rod >= n_rods:
            raise ParameterError(f"input {i.name} rod", i.rod, f"< {n_rods} (the rods)")
    return inputs


def _rayleigh(model) -> tuple[float, float]:
    """``(alpha [1/s], beta [s])`` of the model's Rayleigh damping (summed over its
    :class:`fxrod.core.forms.drag.RayleighDamping` extensions; zeros without), after the
    linearisation checks of :func:`fxrod.analysis.modes.check_model` on the other extensions (a
    Rayleigh damping has no static part, so the blocks of the operator are those of the
    undamped model)."""
    check_model(model, rayleigh=True)
    rayleigh = [e for e in model.extensions if isinstance(e, RayleighDamping)]
    return sum(e.alpha for e in rayleigh), sum(e.beta for e in rayleigh)


def _block_inverse(C: sp.csr_matrix) -> sp.csr_matrix:
    """The inverse of a block-diagonal (after a permutation) symmetric positive definite
    matrix, block by block: the DG1 compliance couples the two nodes of an element only."""
    n_blocks, label = csgraph.connected_components(abs(C) > 0.0, directed=False)
    order = np.argsort(label, kind="stable")
    size = np.bincount(label, minlength=n_blocks)
    start = np.concatenate([[0], np.cumsum(size)])
    rows, cols, vals = [], [], []
    for k in np.unique(size):
        idx = np.stack([order[start[b]:start[b] + k] for b in np.flatnonzero(size == k)])
        blocks = np.stack([C[i][:, i].toarray() for i in idx])
        rows.append(np.repeat(idx, k, axis=1).ravel())
        cols.append(np.tile(idx, (1, k)).ravel())
        vals.append(np.linalg.inv(blocks).ravel())
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                         shape=C.shape)


def _material_stiffness(A: sp.csr_matrix, iq: np.ndarray, isg: np.ndarray) -> sp.csr_matrix:
    """``B^T C_a^-1 B`` on the q states ``iq`` from the blocks of the operator ``A`` (the
    stresses ``isg``; ``C_a`` the compliance of the components that have one)."""
    C = A[isg][:, isg]
    active = isg[C.diagonal() > 0.0]
    Ba = A[iq][:, active]
    K = Ba @ _block_inverse(A[active][:, active]) @ Ba.T
    return 0.5 * (K + K.T)


# ---------------------------------------------------------------------- builders
def linear_ph(model, inputs, damping: float = 0.0, sym_tol: float = 1e-8) -> PHModel:
    """The linear port-Hamiltonian model of ``model`` about its current state ``w0`` (an
    equilibrium: the reference, or the end of a quasi-static run), loads at their last
    values (they must be conservative: dead loads).

    Parameters
    ----------
    model : RodModel
        The discrete system (joints, rings and rigid bodies allowed; no extension with own
        fields but a Rayleigh damping; no other dissipative extension).
    inputs : sequence of Input
        The named inputs (end forces and moments).
    damping : float
        Mass-proportional damping [1/s] of the export alone, added to the model's Rayleigh
        damping (``R_vv = (damping + alpha) M + beta B^T C_a^-1 B``, module docstring).
    sym_tol : float
        Relative tolerance of the structure checks of the linearisation (``K_g``
        symmetric, the strain and constraint blocks adjoint).

    Raises
    ------
    ParameterError
        Bad inputs, negative damping, an extension with own fields (but a Rayleigh
        damping's), drag or ambient damping, contact friction or damping, or a
        non-symmetric geometric stiffness (follower loads: not port-Hamiltonian).
    """
    inputs = _check_inputs(model, inputs)
    if not (np.isfinite(damping) and damping >= 0.0):
        raise ParameterError("damping", damping, "a mass-proportional damping >= 0 [1/s]")
    alpha, beta = _rayleigh(model)
    state = model.w0.x.array.copy()
    Ap = stiffness_matrix(model, state)
    Ep = system_matrix(model, mass_form(model), state, diag=0.0)
    A, Mfull = _gather_matrix(Ap, model.comm), _gather_matrix(Ep, model.comm)
    Ap.destroy()
    Ep.destroy()
    lab = _unknown_labels(model)
    free = ~lab["supported"]
    iq, isg, il = (np.flatnonzero(free & (lab["kind"] == k)) for k in range(3))
    K = A[iq][:, iq]
    Bt, Gt = A[iq][:, isg], A[iq][:, il]           # B_eps^T and G^T (the q rows)
    C = A[isg][:, isg]
    M = Mfull[iq][:, iq]
    scale = max(abs(A).max(), 1.0)
    for what, a, b in (("K_g", K, K.T), ("strain blocks", A[isg][:, iq], -Bt.T),
                       ("constraint blocks", A[il][:, iq], Gt.T)):
        gap = abs(a - b).max() if a.nnz or b.nnz else 0.0
        if gap > sym_tol * scale:
            raise ParameterError("linearisation", f"{what} off by {gap:.3e}",
                                 "a conservative (dead-load) equilibrium: a symmetric "
                                 "K_g and adjoint strain/constraint blocks")
    K = 0.5 * (K + K.T)
    nq, ns, nl = iq.size, isg.size, il.size
    Iq = sp.identity(nq, format="csr")
    E = sp.block_diag([Iq, M, C, sp.csr_matrix((nl, nl))], format="csr")
    J = sp.bmat([[None, Iq, None, None], [-Iq, None, -Bt, -Gt],
                 [None, Bt.T, None, None], [None, Gt.T, None, None]], format="csr")
    Qm = sp.block_diag([K, Iq, sp.identity(ns), sp.identity(nl)], format="csr")
    Rv = (damping + alpha) * M
    if beta > 0.0:
        Rv = Rv + beta * _material_stiffness(A, iq, isg)
    R = sp.block_diag([sp.csr_matrix((nq, nq)), Rv, sp.csr_matrix((ns + nl,) * 2)],
                      format="csr")
    b = input_matrix(model, inputs, state)[iq]
    B = sp.vstack([sp.csr_matrix((nq, len(inputs))), sp.csr_matrix(b),
                   sp.csr_matrix((ns + nl, len(inputs)))], format="csr")
    starts = np.cumsum([0, nq, nq, ns])
    blocks = {n: (int(s), int(z)) for n, s, z in zip(BLOCKS, starts, (nq, nq, ns, nl),
                                                     strict=True)}
    for m in (E, J, Qm, R, B):
        m.eliminate_zeros()
    return PHModel(E=E, J=J, R=R, Q=Qm, B=B, blocks=blocks, inputs=inputs,
                   q_coordinate=lab["coord"][iq], q_component=lab["comp"][iq].astype(int))


def modal_ph(model, inputs, n_modes: int, damping: float = 0.0) -> PHModel:
    """Modal truncation: the first ``n_modes`` undamped natural modes
    (:func:`fxrod.analysis.modes.modes`, unit modal mass) as a port-Hamiltonian system with state
    ``(eta, p)``, ``E = I``, ``J = [[0, I], [-I, 0]]``, ``Q = diag(Omega^2, I)``,
    ``B = [0; Phi^T b]`` and the damping ``R = diag(0, Phi^T R_vv Phi)`` of
    :func:`linear_ph` projected, ``(damping + alpha) I + beta Phi^T B^T C_a^-1 B Phi``
    (``beta Omega^2`` about an unloaded reference): the same inputs and collocated outputs
    as :func:`linear_ph`. ``shapes`` holds ``Phi`` on the full model's q states (so that
    ``q ~ Phi eta``)."""
    inputs = _check_inputs(model, inputs)
    n_modes = check_int_min("n_modes", n_modes, 1)
    if not (np.isfinite(damping) and damping >= 0.0):
        raise ParameterError("damping", damping, "a mass-proportional damping >= 0 [1/s]")
    alpha, beta = _rayleigh(model)
    m = modes(model, n_modes, rayleigh=True)
    k = m.omega.size
    # the shapes on the q states of the full model (owned nodes, gathered, free dofs)
    lab = _unknown_labels(model)
    iq = np.flatnonzero(~lab["supported"] & (lab["kind"] == 0))
    W = model.space.W
    n_owned = W.dofmap.index_map.size_local * W.dofmap.index_map_bs
    own = np.arange(n_owned) if model.reduction is None else model.reduction.masters_local
    Phi = np.empty((iq.size, k))
    for j, s in enumerate(m.shapes):
        full = np.zeros(model.w.x.array.size)
        full[model.space.q_map] = s.reshape(-1)
        Phi[:, j] = _gather(full[own], model.comm)[iq]
    state = model.w0.x.array.copy()
    b = input_matrix(model, inputs, state)[iq]
    Ik = sp.identity(k, format="csr")
    Z = sp.csr_matrix((k, k))
    Rp = (damping + alpha) * Ik
    if beta > 0.0:
        Ap = stiffness_matrix(model, state)
        A = _gather_matrix(Ap, model.comm)
        Ap.destroy()
        isg = np.flatnonzero(~lab["supported"] & (lab["kind"] == 1))
        Kp = Phi.T @ (_material_stiffness(A, iq, isg) @ Phi)
        Rp = Rp + sp.csr_matrix(beta * 0.5 * (Kp + Kp.T))
    return PHModel(E=sp.identity(2 * k, format="csr"),
                   J=sp.bmat([[Z, Ik], [-Ik, Z]], format="csr"),
                   R=sp.block_diag([Z, Rp], format="csr"),
                   Q=sp.block_diag([sp.diags(m.omega**2), Ik], format="csr"),
                   B=sp.vstack([sp.csr_matrix((k, len(inputs))), sp.csr_matrix(Phi.T @ b)],
                               format="csr"),
                   blocks={"eta": (0, k), "p": (k, k)}, inputs=inputs,
                   q_coordinate=lab["coord"][iq], q_component=lab["comp"][iq].astype(int),
                   omega=m.omega, shapes=Phi)
