"""The Hamel field variational integrator (HFVI) lattice on SE(3) (spec A.3-A.5).

Nodes ``j = 0 .. n-1`` at ``s_j = j dh``, ``dh = L/(n-1)`` (both ends are nodes, spec A.3).
Per time step the unknowns ``X_j = dt zeta_j^{n+1/2}`` solve the node-wise problems (A.4)

    T(X_j)^T K X_j = b_j,
    b_j = dt T(-X_j^{n-1/2})^T K zeta_j^{n-1/2} + dt^2/w_j [sigma_{j+1/2} - tau_{j-1/2}],

with ``Y = log(g_j^-1 g_{j+1})``, ``gamma = Y/dh - eps``, ``sigma = T(Y)^T P gamma`` and
``tau = T(-Y)^T P gamma`` (the discrete Hamel equations (8)); stresses of missing intervals
are zero at a free end (9); a clamped node keeps ``g`` fixed and has no equation. Then
``g_j^{n+1} = g_j^n exp(X_j)``.

Why vectorised numpy and not UFL: the exact conservation of ``J_d`` (A.5) needs the stress
terms of neighbouring nodes to telescope to round-off, i.e. ``exp(Y) = g_j^-1 g_{j+1}`` and
``T(-Y)^T = Ad*_{exp Y} T(Y)^T`` evaluated with the same numbers on both sides of an
interval. A finite-element assembly of these Lie-group expressions would need quadrature
and UFL surrogates of ``log`` and ``dexp^-1`` (with their small-angle series), which do not
reproduce these identities exactly. The state is mirrored into DOLFINx functions on a 1D
interval mesh after every step (P1 vertex fields for the configuration and velocity, DG0 for
the strains), so output and plotting code is shared with the other formulations.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from fxrod.errors import (
    ConvergenceError,
    ParameterError,
    check_int_min,
    check_positive,
    check_range,
)
from fxrod.hamel import momentum as mom
from fxrod.hamel.se3 import ad, dexp_inv, exp_Rp, log_Rp, skew
from fxrod.hamel.section import Section

__all__ = ["HamelBeam", "StepRecord", "critical_time_step", "EPS_REF"]

#: Strain offset ``eps = (0, 0, 0, 0, 1, 0)``: the reference state is straight along E2.
EPS_REF = np.array([0.0, 0.0, 0.0, 0.0, 1.0, 0.0])

_EndKind = Literal["free", "clamped"]


def _tmul(M: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Batched ``M^T @ x``."""
    return np.einsum("kji,kj->ki", M, x)


def _coad_matrix(mu: np.ndarray) -> np.ndarray:
    """``C(mu)`` with ``ad_delta^T mu = C(mu) delta``: ``[[m x, f x], [f x, 0]]``."""
    C = np.zeros(mu.shape[:-1] + (6, 6))
    m, f = skew(mu[..., :3]), skew(mu[..., 3:])
    C[..., :3, :3] = m
    C[..., :3, 3:] = f
    C[..., 3:, :3] = f
    return C


def critical_time_step(section: Section, dh: float) -> float:
    """CFL-like limit ``dt_crit = 2 / omega_max`` of the lattice about the straight state [s].

    ``omega_max`` is bounded by the largest frequency of one interval with half a node mass
    ``dh/2 K`` at each end (Irons' element eigenvalue bound; the bound holds for uniform and
    trapezoid weights and for clamped ends). The linearised strain of one interval is
    ``gamma = [T(-Y0) eta_{j+1} - T(Y0) eta_j]/dh`` with ``Y0 = dh eps``, which includes the
    shear-rotation coupling. The scheme is a central difference in time for the linearised
    problem, stable for ``dt omega_max < 2``. Large rotations and prestress shift the limit
    slightly; keep a margin.
    """
    dh = check_positive("dh", dh)
    Y0 = dh * EPS_REF
    B = np.hstack([-dexp_inv(Y0), dexp_inv(-Y0)]) / dh  # (6, 12)
    S = dh * B.T @ (section.P[:, None] * B)
    m_inv_sqrt = 1.0 / np.sqrt(0.5 * dh * np.concatenate([section.K, section.K]))
    lam = np.linalg.eigvalsh(m_inv_sqrt[:, None] * S * m_inv_sqrt[None, :])
    return 2.0 / math.sqrt(float(lam.max()))


@dataclass(frozen=True)
class StepRecord:
    """Diagnostics of the lattice at level ``n`` (available once ``X^{n+1/2}`` is solved).

    Attributes
    ----------
    t : float
        Time ``t_n`` [s].
    H : float
        Discrete energy ``(T^{n-1/2} + T^{n+1/2})/2 + V^n`` [J].
    kinetic, strain_energy : float
        ``(T^{n-1/2} + T^{n+1/2})/2`` and ``V^n`` [J].
    Jd : ndarray (6,)
        Exactly conserved discrete momentum (angular [kg m^2/s]; linear [kg m/s]).
    J_lead : ndarray (6,)
        Leading term of ``J_d`` at ``g^n`` (O(dt) accurate).
    J_mid : ndarray (6,)
        Leading term at the mid-frames ``g^n exp(X/2)`` (O(dt^2) from ``J_d``).
    tip : ndarray (3,)
        Centreline position at ``s = L`` at ``t_n`` [m].
    com : ndarray (3,)
        Weighted mean of the node positions [m].
    newton_its : int
        Newton iterations of the step ``n -> n+1`` (maximum over the nodes).
    """

    t: float
    H: float
    kinetic: float
    strain_energy: float
    Jd: np.ndarray
    J_lead: np.ndarray
    J_mid: np.ndarray
    tip: np.ndarray
    com: np.ndarray
    newton_its: int

    def row(self) -> dict[str, float]:
        """CSV row with the fxrod column names: ``Jd_1..6`` (angular then linear),
        ``J_1..3``/``p_1..3`` (leading-term angular/linear momentum), ``Jmid_1..6``,
        ``tip_1..3``, ``com_1..3``, ``t``, ``H``, ``kinetic``, ``strain_energy``,
        ``newton_its``."""
        r: dict[str, float] = {"t": self.t, "H": self.H, "kinetic": self.kinetic,
                               "strain_energy": self.strain_energy,
                               "newton_its": self.newton_its}
        for k in range(6):
            r[f"Jd_{k + 1}"] = float(self.Jd[k])
            r[f"Jmid_{k + 1}"] = float(self.J_mid[k])
        for k in range(3):
            r[f"J_{k + 1}"] = float(self.J_lead[k])
            r[f"p_{k + 1}"] = float(self.J_lead[3 + k])
            r[f"tip_{k + 1}"] = float(self.tip[k])
            r[f"com_{k + 1}"] = float(self.com[k])
        return r


class HamelBeam:
    """Geometrically exact beam on SE(3) integrated with the Hamel field variational integrator.

    Parameters
    ----------
    section : Section
        Diagonal inertia ``K`` and stiffness ``P`` (see :class:`fxrod.hamel.Section`).
    length : float
        Beam length L [m]; the lattice spacing is ``dh = L / (n_nodes - 1)``.
    n_nodes : int
        Number of nodes (cross-sections), >= 2.
    dt : float
        Time step [s].
    velocity0 : array (6,) or (n_nodes, 6), or callable, optional
        Initial convective velocities ``zeta_j(0) = (omega, pi)`` [rad/s, m/s] in the body
        frame; a callable maps the node arc lengths ``s (n,)`` [m] to an ``(n, 6)`` array.
        Default: at rest.
    config0 : array (n_nodes, 4, 4), optional
        Initial SE(3) configurations ``g_j^0``; default the straight, stress-free state
        ``(I, (0, s_j, 0))``. Rotations are checked to 1e-10 and then projected onto SO(3).
    ends : (str, str)
        Boundary kind at ``s = 0`` and ``s = L``: ``"free"`` (9) or ``"clamped"``.
    weights : {"uniform", "trapezoid"}
        Node weights ``w_j`` of the kinetic term: ``dh`` everywhere (the seed's choice, spec
        A.7 numbers) or ``dh/2`` at the two end nodes.
    strain_update : {"configuration", "compatibility"}
        ``Y^{n+1}`` from ``log(g_j^-1 g_{j+1})`` (default; keeps ``exp Y = g_j^-1 g_{j+1}``
        to round-off, which the exact telescoping of ``J_d`` needs) or from the discrete
        compatibility condition (10), ``log(exp(-X_j) exp(Y) exp(X_{j+1}))`` (the "Hamel form";
        equal in exact arithmetic, round-off then accumulates between ``Y`` and ``g``).
    rtol : float
        Node-wise solve tolerance on the Newton update relative to ``|X_j|`` (spec A.4).
    max_iter : int
        Maximum Newton iterations per step.
    cfl : {"raise", "warn"}
        What to do when ``dt`` exceeds :func:`critical_time_step`: raise a
        :class:`~fxrod.errors.ParameterError` or emit a ``RuntimeWarning``.
    """

    def __init__(
        self,
        section: Section,
        length: float,
        n_nodes: int,
        dt: float,
        velocity0: np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None,
        *,
        config0: np.ndarray | None = None,
        ends: tuple[_EndKind, _EndKind] = ("free", "free"),
        weights: Literal["uniform", "trapezoid"] = "uniform",
        strain_update: Literal["configuration", "compatibility"] = "configuration",
        rtol: float = 4e-16,
        max_iter: int = 30,
        cfl: Literal["raise", "warn"] = "raise",
    ) -> None:
        if not isinstance(section, Section):
            raise ParameterError("section", section, "a fxrod.hamel.Section")
        self.section = section
        self.length = check_positive("length", length)
        self.n_nodes = check_int_min("n_nodes", n_nodes, 2)
        self.dt = check_positive("dt", dt)
        self.dh = check_positive("dh", self.length / (self.n_nodes - 1))
        self.rtol = check_range("rtol", rtol, 0.0, 1e-6, lo_open=True)
        self.max_iter = check_int_min("max_iter", max_iter, 1)
        if weights not in ("uniform", "trapezoid"):
            raise ParameterError("weights", weights, "'uniform' or 'trapezoid'")
        if strain_update not in ("configuration", "compatibility"):
            raise ParameterError("strain_update", strain_update,
                                 "'configuration' or 'compatibility'")
        if (not isinstance(ends, tuple | list) or len(ends) != 2
                or any(e not in ("free", "clamped") for e in ends)):
            raise ParameterError("ends", ends, "a pair of 'free' / 'clamped'")
        if cfl not in ("raise", "warn"):
            raise ParameterError("cfl", cfl, "'raise' or 'warn'")
        self.weights_kind = weights
        self.strain_update = strain_update
        self.ends = (ends[0], ends[1])

        n = self.n_nodes
        self.s = np.arange(n) * self.dh
        self.s[-1] = self.length
        self.w = np.full(n, self.dh)
        if weights == "trapezoid":
            self.w[[0, -1]] = 0.5 * self.dh
        self.free = np.ones(n, dtype=bool)
        self.free[0] &= self.ends[0] == "free"
        self.free[-1] &= self.ends[1] == "free"
        if not np.any(self.free):
            raise ParameterError("ends", ends, "at least one free node (n_nodes = 2 with two "
                                 "clamped ends leaves nothing to move)")

        self.dt_critical = critical_time_step(section, self.dh)
        if self.dt > self.dt_critical:
            limit = (f"the CFL-like limit dt_crit = {self.dt_critical:.6g} s for dh = "
                     f"{self.dh:.4g} m (spec A.4)")
            if cfl == "raise":
                raise ParameterError("dt", self.dt, f"<= {limit}; cfl='warn' overrides")
            warnings.warn(f"dt = {self.dt:g} s exceeds {limit}; the run may blow up",
                          RuntimeWarning, stacklevel=2)

        self._R, self._phi = self._initial_configuration(config0)
        zeta0 = self._initial_velocity(velocity0)
        K = section.K
        # Level-n state (numpy; mirrored to DOLFINx by _publish).
        self.n = 0
        self._Y = self._strain_logs(self._R, self._phi)
        self._check_strain_angles()
        self._p_prev = K * zeta0  # T(-X^{n-1/2})^T K zeta^{n-1/2}; at n = 0 K zeta(0) (A.4.4)
        self._zeta = zeta0
        self._T_prev = mom.kinetic_energy(zeta0, K, 1.0, self.w)
        self._setup_dolfinx()
        self._publish()

    # -----------------------------------------------------------------------------------------
    # construction helpers
    # -----------------------------------------------------------------------------------------
    def _initial_configuration(self, config0) -> tuple[np.ndarray, np.ndarray]:
        n = self.n_nodes
        if config0 is None:
            R = np.broadcast_to(np.eye(3), (n, 3, 3)).copy()
            phi = np.zeros((n, 3))
            phi[:, 1] = self.s
            return R, phi
        allowed = (f"({n}, 4, 4) SE(3) matrices: rotation block with R^T R = I and det R = +1 "
                   "(to 1e-10), last row (0, 0, 0, 1)")
        try:
            g = np.asarray(config0, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError("config0", "<not numeric>", allowed) from None
        if g.shape != (n, 4, 4) or not np.all(np.isfinite(g)):
            raise ParameterError("config0", f"array of shape {g.shape}", allowed)
        R = g[:, :3, :3]
        orth = np.abs(np.swapaxes(R, 1, 2) @ R - np.eye(3)).max()
        bottom = np.abs(g[:, 3, :] - np.array([0.0, 0.0, 0.0, 1.0])).max()
        det = np.linalg.det(R)
        if orth > 1e-10 or bottom > 1e-10 or np.any(det <= 0.0):
            raise ParameterError(
                "config0",
                f"<max |R^T R - I| = {orth:.3g}, min det R = {det.min():.3g}, "
                f"max |last row - (0,0,0,1)| = {bottom:.3g}>",
                allowed,
            )
        U, _, Vt = np.linalg.svd(R)
        return U @ Vt, g[:, :3, 3].copy()

    def _initial_velocity(self, velocity0) -> np.ndarray:
        n = self.n_nodes
        allowed = f"a (6,) or ({n}, 6) array of finite numbers, or a callable s -> ({n}, 6)"
        if velocity0 is None:
            return np.zeros((n, 6))
        v = velocity0(self.s.copy()) if callable(velocity0) else velocity0
        try:
            z = np.array(np.broadcast_to(np.asarray(v, dtype=float), (n, 6)))
        except (TypeError, ValueError):
            raise ParameterError("velocity0", v, allowed) from None
        if not np.all(np.isfinite(z)):
            raise ParameterError("velocity0", v, allowed)
        if np.any(z[~self.free] != 0.0):
            raise ParameterError("velocity0", "<nonzero at a clamped node>",
                                 "zero at clamped nodes")
        return z

    def _setup_dolfinx(self) -> None:
        """Interval mesh on COMM_SELF (the lattice is cheap; every rank holds all of it)."""
        import dolfinx
        from mpi4py import MPI

        self.mesh = dolfinx.mesh.create_interval(MPI.COMM_SELF, self.n_nodes - 1,
                                                 [0.0, self.length])
        fs = dolfinx.fem.functionspace
        V3 = fs(self.mesh, ("Lagrange", 1, (3,)))
        V33 = fs(self.mesh, ("Lagrange", 1, (3, 3)))
        V6 = fs(self.mesh, ("Lagrange", 1, (6,)))
        W6 = fs(self.mesh, ("DG", 0, (6,)))
        #: centreline positions phi_j^n [m] (P1, vertex values)
        self.position = dolfinx.fem.Function(V3, name="position")
        #: rotations Lambda_j^n, row-major (P1, vertex values)
        self.rotation = dolfinx.fem.Function(V33, name="rotation")
        #: last discrete convective velocity zeta_j^{n-1/2} (zeta(0) at n = 0)
        self.velocity = dolfinx.fem.Function(V6, name="velocity")
        #: strains gamma_{j+1/2}^n = Y/dh - eps (DG0, one value per interval)
        self.strain = dolfinx.fem.Function(W6, name="strain")
        # Lattice node i <-> dof at x = i dh (DOLFINx may reorder dofs).
        x = V3.tabulate_dof_coordinates()[:, 0]
        self._node_dof = np.empty(self.n_nodes, dtype=np.int64)
        self._node_dof[np.rint(x / self.dh).astype(np.int64)] = np.arange(x.size)
        xc = W6.tabulate_dof_coordinates()[:, 0]
        self._cell_dof = np.empty(self.n_nodes - 1, dtype=np.int64)
        self._cell_dof[np.rint(xc / self.dh - 0.5).astype(np.int64)] = np.arange(xc.size)

    def _publish(self) -> None:
        """Mirror the level-n state into the DOLFINx functions."""
        n = self.n_nodes
        self.position.x.array.reshape(n, 3)[self._node_dof] = self._phi
        self.rotation.x.array.reshape(n, 9)[self._node_dof] = self._R.reshape(n, 9)
        self.velocity.x.array.reshape(n, 6)[self._node_dof] = self._zeta
        self.strain.x.array.reshape(n - 1, 6)[self._cell_dof] = self.strains

    # -----------------------------------------------------------------------------------------
    # state access
    # -----------------------------------------------------------------------------------------
    @property
    def t(self) -> float:
        """Current time ``t_n = n dt`` [s]."""
        return self.n * self.dt

    @property
    def positions(self) -> np.ndarray:
        """Centreline positions ``phi_j^n`` (n_nodes, 3) [m] (copy)."""
        return self._phi.copy()

    @property
    def rotations(self) -> np.ndarray:
        """Rotations ``Lambda_j^n`` (n_nodes, 3, 3) (copy)."""
        return self._R.copy()

    @property
    def configuration(self) -> np.ndarray:
        """``g_j^n`` as (n_nodes, 4, 4) matrices."""
        g = np.zeros((self.n_nodes, 4, 4))
        g[:, :3, :3] = self._R
        g[:, :3, 3] = self._phi
        g[:, 3, 3] = 1.0
        return g

    @property
    def strains(self) -> np.ndarray:
        """Discrete strains ``gamma_{j+1/2}^n = Y/dh - eps`` (n_nodes - 1, 6)."""
        return self._Y / self.dh - EPS_REF

    # -----------------------------------------------------------------------------------------
    # the scheme
    # -----------------------------------------------------------------------------------------
    def _strain_logs(self, R: np.ndarray, phi: np.ndarray) -> np.ndarray:
        """``Y_{j+1/2} = log(g_j^-1 g_{j+1})``."""
        Rt = np.swapaxes(R[:-1], 1, 2)
        return log_Rp(Rt @ R[1:], np.einsum("kij,kj->ki", Rt, phi[1:] - phi[:-1]))

    def _check_strain_angles(self) -> None:
        th = np.linalg.norm(self._Y[:, :3], axis=1)
        if np.any(th > 0.9 * math.pi):
            raise ConvergenceError(
                self.t, self.dt, "relative rotation between neighbouring sections reached "
                f"{th.max():.3g} rad (> 0.9 pi): the lattice cannot resolve the curvature",
            )

    def internal_forces(self) -> np.ndarray:
        """Body-frame nodal forces ``sigma_{j+1/2} - tau_{j-1/2}`` (n_nodes, 6) [N m; N].

        ``sigma = T(Y)^T P gamma``, ``tau = T(-Y)^T P gamma = sigma + ad_Y^T P gamma``;
        stresses beyond a free end are zero (9). This is the left-trivialised ``-dV/dg_j``.
        """
        Pg = self.section.P * self.strains
        sigma = _tmul(dexp_inv(self._Y), Pg)
        tau = sigma + _tmul(ad(self._Y), Pg)
        F = np.zeros((self.n_nodes, 6))
        F[:-1] += sigma
        F[1:] -= tau
        return F

    def strain_energy(self) -> float:
        """``V^n = sum_{j+1/2} dh <P gamma, gamma>/2`` [J]."""
        return mom.strain_energy(self.strains, self.section.P, self.dh)

    def _solve(self, b: np.ndarray) -> tuple[np.ndarray, int]:
        """Batched Newton for ``T(X)^T K X = b`` at the free nodes (spec A.4).

        Start ``X = K^-1 b``. The Jacobian is ``d/dX [T(X)^T K X]`` with
        ``T^T = I - ad^T/2 + (ad^T)^2/12 + O(|X|^4)`` (the ``ad^3`` term vanishes), so the
        iteration is quadratic until round-off: 3 iterations per step in example 2, the last
        one confirming. Converged when ``|dX| <= rtol |X|`` node-wise; a node whose update
        stops shrinking below ``1e3 rtol |X|`` has reached round-off and is accepted.
        """
        K = self.section.K
        X = b / K
        idx = np.flatnonzero(self.free)
        prev = np.full(idx.size, np.inf)
        for it in range(1, self.max_iter + 1):
            Xa = X[idx]
            A = ad(Xa)
            At = np.swapaxes(A, 1, 2)
            KX = K * Xa
            mu1 = np.einsum("kij,kj->ki", At, KX)  # ad_X^T K X
            F = _tmul(dexp_inv(Xa), KX)
            AtK = At * K[None, None, :]
            CKX = _coad_matrix(KX)
            J = (np.diag(K) - 0.5 * (AtK + CKX)
                 + (_coad_matrix(mu1) + At @ CKX + At @ AtK) / 12.0)
            dX = np.linalg.solve(J, (b[idx] - F)[..., None])[..., 0]
            if not np.all(np.isfinite(dX)):
                break
            X[idx] += dX
            nd = np.linalg.norm(dX, axis=1)
            nx = np.linalg.norm(X[idx], axis=1)
            done = (nd <= self.rtol * nx) | ((nd >= 0.5 * prev) & (nd <= 1e3 * self.rtol * nx))
            if np.all(done):
                X[~self.free] = 0.0
                return X, it
            keep = ~done
            idx, prev = idx[keep], nd[keep]
        hint = (f"; dt exceeds the CFL-like limit {self.dt_critical:.3g} s"
                if self.dt > self.dt_critical else "")
        raise ConvergenceError(
            self.t, self.dt, "node-wise Newton did not converge",
            f"{idx.size} node(s) left after {self.max_iter} iterations, e.g. node "
            f"{idx[:1].tolist()} with |X| = {np.linalg.norm(X[idx[:1]]):.3g}{hint}",
        )

    def step(self) -> StepRecord:
        """Advance ``n -> n+1``; return the diagnostics at level ``n`` (time ``t_n``).

        Raises
        ------
        fxrod.errors.ConvergenceError
            If a node-wise solve fails, a rotation per step reaches pi, or the neighbour
            rotation exceeds 0.9 pi.
        """
        K, dt, w = self.section.K, self.dt, self.w
        F, V = self.internal_forces(), self.strain_energy()
        b = dt * self._p_prev + (dt * dt / w)[:, None] * F  # (A.4.2)
        X, its = self._solve(b)
        if np.any(np.linalg.norm(X[:, :3], axis=1) >= math.pi):
            raise ConvergenceError(self.t, dt, "rotation per step reached pi",
                                   "reduce dt (exp/log and T(X) are not unique there)")

        R, phi = self._R, self._phi
        T_next = mom.kinetic_energy(X, K, dt, w)
        kin = 0.5 * (self._T_prev + T_next)
        rec = StepRecord(
            t=self.t,
            H=kin + V,
            kinetic=kin,
            strain_energy=V,
            Jd=mom.discrete_momentum(R, phi, X, K, dt, w),
            J_lead=mom.leading_momentum(R, phi, X, K, dt, w),
            J_mid=mom.midframe_momentum(R, phi, X, K, dt, w),
            tip=phi[-1].copy(),
            com=(w @ phi) / w.sum(),
            newton_its=its,
        )

        # g^{n+1} = g^n exp(X)   (A.4.3)
        Rx, px = exp_Rp(X)
        self._phi = phi + np.einsum("kij,kj->ki", R, px)
        self._R = R @ Rx
        if self.strain_update == "configuration":
            self._Y = self._strain_logs(self._R, self._phi)
        else:  # (10): Y^{n+1} = log(exp(-X_j) exp(Y^n) exp(X_{j+1}))
            Ry, py = exp_Rp(self._Y)
            Rl, pl = Rx[:-1], px[:-1]
            Rlt = np.swapaxes(Rl, 1, 2)
            Rr, pr = Rx[1:], px[1:]
            Rc = Rlt @ Ry @ Rr
            pc = np.einsum("kij,kj->ki", Rlt, np.einsum("kij,kj->ki", Ry, pr) + py - pl)
            self._Y = log_Rp(Rc, pc)
        self._p_prev = mom.transported_momentum(X, K, dt)
        self._zeta = X / dt
        self._T_prev = T_next
        self.n += 1
        if not (np.all(np.isfinite(self._phi)) and np.all(np.isfinite(self._Y))):
            raise ConvergenceError(rec.t, dt, "non-finite state")
        self._check_strain_angles()
        self._publish()
        return rec

    def compatibility_residual(self) -> float:
        """``max |log(g_j^-1 g_{j+1}) - Y_{j+1/2}|``: zero to round-off for the configuration
        update; measures the drift of the compatibility update (10) from the configuration."""
        return float(np.abs(self._strain_logs(self._R, self._phi) - self._Y).max())
