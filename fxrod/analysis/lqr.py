"""State feedback designed on the linear port-Hamiltonian model (LQR) and run on the
nonlinear rod through :class:`fxrod.runs.control.ZeroOrderHold`.

The plant is the modal truncation of :func:`fxrod.analysis.phmodel.modal_ph` about an equilibrium
of the model under constant actuator forces ``u*`` [N], with the actuators as its inputs:

    eta' = p,    p' = -Omega^2 eta + B_a (u - u*),    x = (eta, p),

``eta = Phi^T M (q - q*)`` [kg^1/2 m] and ``p = Phi^T M v`` the modal coordinates of the
mass-orthonormal modes ``Phi`` (``Phi^T M Phi = I``), ``B_a = Phi^T b`` with ``b_k`` the
generalised force of a unit force of actuator k at the equilibrium: ``b_k . dq = -(d eps[q*;
dq], sigma_k)`` with ``sigma_k`` the actuator's material stress per unit force
(:mod:`fxrod.core.forms.actuation`); ``b_k . v`` is the actuator's collocated output ``y_k``
[m/s] (:meth:`fxrod.runs.control.ActuationPort.outputs`). The actuators' prestress at ``u*``
is in the stiffness (``Omega``): the linearisation differentiates their stress at the state.
Modes that no actuator moves (``B_a`` row zero, e.g. torsion under in-plane tendons) are
left out: they are neither excited nor observed by the loop (the modal projection is
``M``-orthogonal), and a Riccati equation cannot place an undamped mode it cannot reach.

The gain (:func:`lqr_gain`) minimises ``int x^T W x + du^T R du dt`` (continuous) or, with
a step ``h``, the same sum over the steps of the sampled plant that the nonlinear run
realises: the implicit midpoint rule with the input held over the step (zero-order hold),

    (x_{n+1} - x_n)/h = A (x_n + x_{n+1})/2 + B u_n,

i.e. ``x_{n+1} = A_d x_n + B_d u_n`` with ``A_d = (I - hA/2)^{-1} (I + hA/2)`` (the Cayley
transform: non-dissipative) and ``B_d = h (I - hA/2)^{-1} B``. A continuous design held by
the ZOH acts through ``u_n = -K x_n`` at the step's midpoint, half a step late; its closed
loop on the sampled plant is ``A_d - B_d K`` (:func:`closed_loop_rates` with ``h``), whose
eigenvalues ``mu`` give the decay rates ``ln|mu| / h`` [1/s] that the run follows.

The feedback reads the state ``y`` that the controller receives (nodal positions,
directors and their rates, :class:`fxrod.runs.callbacks.State`): :meth:`ActuatedPlant.state`.
Serial runs of a single model without joints (as every controller).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import ufl
from dolfinx import fem
from dolfinx.fem.petsc import assemble_vector

from fxrod.analysis.modes import mass_form, system_matrix
from fxrod.analysis.phmodel import Input, PHModel, modal_ph
from fxrod.core.kinematics import strain_rate
from fxrod.errors import ParameterError
from fxrod.runs.callbacks import State
from fxrod.runs.control import ActuationPort

#: Modes whose input row is below this fraction of the largest are not controllable.
CONTROLLABLE_TOL = 1e-8
#: Relative gap below which two natural frequencies count as one multiple frequency.
FREQUENCY_TOL = 1e-6


@dataclass
class ActuatedPlant:
    """The modal PH model with the actuators as inputs, and the map from the rod's state.

    Attributes
    ----------
    ph : fxrod.analysis.phmodel.PHModel
        ``E = I``, ``J``, ``R = 0``, ``Q = diag(Omega^2, I)``, ``B = [0; B_a]`` on the state
        ``x = (eta, p)``; ``inputs`` holds the actuators' labels (inputs in N, outputs
        ``B^T Q x`` the linearised actuator shortening rates in m/s).
    u_eq : ndarray
        Actuator forces ``u*`` [N] of the equilibrium.
    q_eq : ndarray
        The equilibrium's q states (the full model's free q components).
    projection : ndarray
        ``(k, n_q)`` modal projection ``Phi^T M`` [kg^1/2] (``eta = Phi^T M dq``).
    index : ndarray
        For every q state, its index in the ``(n_nodes * 12)`` nodal array of a
        :class:`fxrod.runs.callbacks.State` (nodes sorted by arc length).
    """

    ph: PHModel
    u_eq: np.ndarray
    q_eq: np.ndarray
    projection: np.ndarray
    index: np.ndarray

    @property
    def A(self) -> np.ndarray:
        """``(J - R) Q`` (dense; ``E = I``) [1/s, 1/s^2]."""
        return ((self.ph.J - self.ph.R) @ self.ph.Q).toarray()

    @property
    def B(self) -> np.ndarray:
        """``B`` (dense) [kg^-1/2 per N]."""
        return self.ph.B.toarray()

    def state(self, y: State) -> np.ndarray:
        """The modal state ``x = (Phi^T M (q - q*), Phi^T M v)`` of the rod's state ``y``.

        Parameters
        ----------
        y : fxrod.runs.callbacks.State
            The state a controller receives (positions [m], directors, their rates).
        """
        if isinstance(y, State):      # straight from the model's arrays (the same values)
            q, v = y.nodal_values(self.index)
        else:
            q = np.hstack([y["positions"], y["directors"].reshape(-1, 9)]).reshape(-1)
            v = np.hstack([y["velocities"], y["director_rates"].reshape(-1, 9)]).reshape(-1)
            q, v = q[self.index], v[self.index]
        P = self.projection
        return np.concatenate([P @ (q - self.q_eq), P @ v])

    def output_matrix(self, s: float, components) -> np.ndarray:
        """``C`` with ``C x`` the linearised displacement of the node at arc length ``s``
        [m] in the given q components (0..11, :data:`fxrod.analysis.phmodel.Q_COMPONENTS`): the
        rows of ``Phi`` there, zero on ``p``."""
        k = self.projection.shape[0]
        rows = [self.ph.shapes[self.ph.q_index(s, int(c))] for c in components]
        return np.hstack([np.array(rows), np.zeros((len(rows), k))])


def _actuator_forces(model, port: ActuationPort, iq: np.ndarray) -> np.ndarray:
    """``(n_q, n_act)`` generalised forces ``b_k`` of unit actuator forces at ``w0``."""
    wq = ufl.TestFunctions(model.space.W)[0]
    q = ufl.split(model.w0)[0]
    cols = []
    for form in port.unit_works(strain_rate(q, q.dx(0), wq, wq.dx(0))):
        b = assemble_vector(fem.form(form))
        cols.append(b.getArray(readonly=True)[iq].copy())
        b.destroy()
    return np.column_stack(cols)


def actuated_plant(model, n_modes: int, t: float = 0.0) -> ActuatedPlant:
    """The linear plant of ``model`` about its current state ``w0`` (an equilibrium under
    the actuator forces at ``t``, held constant: ``u*``), truncated to the first
    ``n_modes`` natural modes and then to those the actuators move.

    Parameters
    ----------
    model : fxrod.core.model.RodModel
        A serial model with actuators (material formulation), no joints, no extension
        that :func:`fxrod.analysis.phmodel.modal_ph` refuses; its state ``w0`` an equilibrium.
    n_modes : int
        Modes computed (:func:`fxrod.analysis.modes.modes`) before the uncontrollable ones are
        dropped.
    t : float
        Time [s] (load factor) at which the actuator inputs give ``u*``.

    Raises
    ------
    ParameterError
        No actuators, the spatial actuator formulation, joints, an MPI run, a model
        ``modal_ph`` refuses, or no mode the actuators move.
    """
    port = ActuationPort(model)
    for e in port.actuations:
        if e.formulation != "material":
            raise ParameterError(f"{e.name}.formulation", e.formulation,
                                 "'material' for an LQR design (its input matrix)")
    if model.reduction is not None or model.comm.size > 1:
        raise ParameterError("LQR plant", "joints or an MPI run",
                             "a serial model without joints (controllers run serially)")
    u_eq = port.inputs(t)
    for e in port.actuations:      # the actuators' prestress at u* enters the stiffness
        e.update(t, t)
    # modal_ph needs an end input; the actuators replace it below
    base = modal_ph(model, [Input("tip", "force", "L", (0.0, 0.0, 1.0))], n_modes)
    n_q = base.shapes.shape[0]
    W = model.space.W
    supported = np.zeros(model.w.x.array.size, dtype=bool)
    for bc in model.bcs:
        supported[bc.dof_indices()[0]] = True
    qmap = np.asarray(model.space.q_map)
    iq = np.sort(qmap[~supported[qmap]])
    n_owned = W.dofmap.index_map.size_local * W.dofmap.index_map_bs
    iq = iq[iq < n_owned]
    x_nodes = model.space.Q.tabulate_dof_coordinates()[:, 0]
    where = np.empty(model.w.x.array.size, dtype=int)
    where[qmap] = np.arange(qmap.size)
    node, comp = where[iq] // 12, where[iq] % 12
    if (iq.size != n_q or not np.allclose(x_nodes[node], base.q_coordinate, atol=1e-12)
            or not np.array_equal(comp, base.q_component)):
        raise ParameterError("LQR plant", "q states", "those of fxrod.analysis.phmodel.modal_ph")
    order = np.argsort(model.nodes._s_own, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    index = rank[node] * 12 + comp
    Mp = system_matrix(model, mass_form(model), model.w0.x.array, diag=0.0)
    ip, jj, vv = Mp.getValuesCSR()
    M = sp.csr_matrix((vv, jj, ip), shape=Mp.getSize())[iq][:, iq]
    Mp.destroy()
    Phi, omega = base.shapes.copy(), base.omega
    Ba = Phi.T @ _actuator_forces(model, port, iq)
    # a multiple frequency (a circular section bends alike in both planes) has no
    # preferred basis: rotate its modes to the singular vectors of their input rows
    start = 0
    while start < omega.size:
        stop = start + 1
        while stop < omega.size and omega[stop] - omega[start] <= FREQUENCY_TOL * omega[stop]:
            stop += 1
        if stop - start > 1:
            U = np.linalg.svd(Ba[start:stop], full_matrices=True)[0]
            Phi[:, start:stop] = Phi[:, start:stop] @ U
            Ba[start:stop] = U.T @ Ba[start:stop]
        start = stop
    norms = np.linalg.norm(Ba, axis=1)
    keep = np.flatnonzero(norms > CONTROLLABLE_TOL * max(norms.max(), 1e-300))
    if keep.size == 0:
        raise ParameterError("LQR plant", f"{n_modes} modes",
                             "at least one mode the actuators move")
    k = keep.size
    Ik, Z = sp.identity(k, format="csr"), sp.csr_matrix((k, k))
    ph = PHModel(E=sp.identity(2 * k, format="csr"),
                 J=sp.bmat([[Z, Ik], [-Ik, Z]], format="csr"),
                 R=sp.csr_matrix((2 * k, 2 * k)),
                 Q=sp.block_diag([sp.diags(omega[keep] ** 2), Ik], format="csr"),
                 B=sp.vstack([sp.csr_matrix((k, Ba.shape[1])), sp.csr_matrix(Ba[keep])],
                             format="csr"),
                 blocks={"eta": (0, k), "p": (k, k)},
                 inputs=[a.label for a in port.actuators],
                 q_coordinate=base.q_coordinate, q_component=base.q_component,
                 omega=omega[keep], shapes=Phi[:, keep])
    return ActuatedPlant(ph=ph, u_eq=u_eq, q_eq=model.w0.x.array[iq].copy(),
                         projection=np.asarray((M @ Phi[:, keep]).T), index=index)


def sampled(A: np.ndarray, B: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray]:
    """``(A_d, B_d)`` of the implicit midpoint rule with the input held over the step ``h``
    [s] (module docstring)."""
    n = A.shape[0]
    lu = sla.lu_factor(np.eye(n) - 0.5 * h * A)
    return sla.lu_solve(lu, np.eye(n) + 0.5 * h * A), sla.lu_solve(lu, h * B)


def lqr_gain(A: np.ndarray, B: np.ndarray, W: np.ndarray, R, h: float | None = None
             ) -> np.ndarray:
    """The LQR gain ``K`` (``u = u* - K x``) of ``x' = A x + B u``.

    Parameters
    ----------
    A, B : ndarray
        The plant (e.g. :attr:`ActuatedPlant.A`, :attr:`ActuatedPlant.B`, or augmented).
    W : ndarray
        State weight (symmetric, >= 0) [J per unit of x^2]; ``Q^T E = diag(Omega^2, I)``
        weighs twice the energy.
    R : float or ndarray
        Input weight (symmetric, > 0) [J/N^2]; a number weighs every input alike.
    h : float, optional
        Step [s]: design on the sampled plant of the midpoint rule with zero-order hold
        (:func:`sampled`, weights ``h W``, ``h R``); default: the continuous design.

    Returns
    -------
    ndarray
        ``(n_inputs, n_states)`` gain [N per unit of x].
    """
    R = np.atleast_2d(np.asarray(R, dtype=float)) * np.eye(B.shape[1])
    if h is None:
        P = sla.solve_continuous_are(A, B, W, R)
        return np.linalg.solve(R, B.T @ P)
    Ad, Bd = sampled(A, B, h)
    P = sla.solve_discrete_are(Ad, Bd, h * W, h * R)
    return np.linalg.solve(h * R + Bd.T @ P @ Bd, Bd.T @ P @ Ad)


def closed_loop_rates(A: np.ndarray, B: np.ndarray, K: np.ndarray, h: float | None = None
                      ) -> np.ndarray:
    """Closed-loop eigenvalues [1/s] of ``u = -K x``: of ``A - B K`` (continuous), or, with
    a step ``h`` [s], ``ln(mu)/h`` of the eigenvalues ``mu`` of the sampled loop ``A_d -
    B_d K`` (midpoint rule, zero-order hold). Sorted by real part, slowest decay first."""
    if h is None:
        lam = np.linalg.eigvals(A - B @ K)
    else:
        Ad, Bd = sampled(A, B, h)
        lam = np.log(np.linalg.eigvals(Ad - Bd @ K).astype(complex)) / h
    return lam[np.argsort(-lam.real, kind="stable")]


class StateFeedback:
    """The controller ``u = u* - K x(y)`` (:func:`fxrod.runs.simulation.Simulation`'s
    ``controller``), with ``x`` the modal state of the rod's state y.

    Parameters
    ----------
    plant : ActuatedPlant
        The linear plant the gain was designed on.
    K : ndarray
        ``(n_act, 2k)`` gain [N per unit of x] (:func:`lqr_gain`).
    """

    def __init__(self, plant: ActuatedPlant, K: np.ndarray) -> None:
        K = np.asarray(K, dtype=float)
        if K.shape != (plant.B.shape[1], plant.A.shape[0]):
            raise ParameterError("K", K.shape, f"shape {(plant.B.shape[1], plant.A.shape[0])}"
                                 " (actuators, modal states)")
        self.plant, self.K = plant, K
        self.__name__ = "lqr"

    def __call__(self, t: float, y: State) -> np.ndarray:
        """Actuator forces [N] at t_n [s] from the state y at t_n."""
        return self.plant.u_eq - self.K @ self.plant.state(y)
