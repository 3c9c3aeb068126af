"""The Hamel field variational integrator (HFVI) lattice on SE(3) (theory §H3-§H5).

``n_elements`` intervals of length ``dh = L / n_elements`` between the nodes
``j = 0 .. n_elements`` at ``s_j = j dh`` (both ends are nodes, theory §H3). Per time step
``h`` [s] the unknowns ``X_j = h zeta_j^{n+1/2}`` solve the node-wise problems (§H4)

    T(X_j)^T K X_j = b_j,
    b_j = h T(-X_j^{n-1/2})^T K zeta_j^{n-1/2} + h^2/w_j [sigma_{j+1/2} - tau_{j-1/2}],

with ``Y = log(g_j^-1 g_{j+1})``, ``gamma = Y/dh - eps``, ``sigma = T(Y)^T P gamma`` and
``tau = T(-Y)^T P gamma`` (the discrete Hamel equations (8)); stresses of missing intervals
are zero at a free end (9); a clamped node keeps ``g`` fixed and has no equation. Then
``g_j^{n+1} = g_j^n exp(X_j)``. Equation numbers (8)-(10) are those of the HFVI momentum
paper, as quoted in theory §H.

Why vectorised numpy and not UFL: the exact conservation of ``J_d`` (§H5) needs the stress
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
from typing import Literal

import numpy as np
from petsc4py import PETSc

from fxrod.errors import (
    ConvergenceError,
    ParameterError,
    check_int_min,
    check_positive,
    check_range,
)
from fxrod.hamel import momentum as mom
from fxrod.hamel.se3 import ad, dexp_inv, exp_Rp, log_Rp, skew
from fxrod.hamel.section import HamelSection
from fxrod.solvers.newton import snes_reason_name
from fxrod.solvers.settings import SolverSettings

__all__ = ["EPS_REF", "HamelBeam", "critical_time_step", "default_settings"]

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


def default_settings(**changes) -> SolverSettings:
    """Settings of the node-wise Newton solves of :class:`HamelBeam`, with ``changes``.

    The node-wise solve (:meth:`HamelBeam.step`) stops when its update is below ``stol``
    times ``|X_j|`` at every node (the meaning of ``stol`` in
    :class:`~fxrod.solvers.settings.SolverSettings`), after at most ``max_it`` iterations; it uses
    no other field. Default ``stol = 4e-16`` (round-off: the exact conservation of ``J_d``
    needs the solve to machine precision, theory §H4) and ``max_it = 30``.

    Raises
    ------
    fxrod.errors.ParameterError
        If a change names an unknown field or has an invalid value.
    """
    return SolverSettings(stol=4e-16, max_it=30).replace(**changes)


def critical_time_step(section: HamelSection, dh: float) -> float:
    """CFL-like limit ``h_crit = 2 / omega_max`` [s] of the lattice about the straight state.

    ``omega_max`` is bounded by the largest frequency of one interval with half a node mass
    ``dh/2 K`` at each end (Irons' element eigenvalue bound; the bound holds for uniform and
    trapezoid weights and for clamped ends). The linearised strain of one interval is
    ``gamma = [T(-Y0) eta_{j+1} - T(Y0) eta_j]/dh`` with ``Y0 = dh eps``, which includes the
    shear-rotation coupling. The scheme is a central difference in time for the linearised
    problem, stable for ``h omega_max < 2``. Large rotations and prestress shift the limit
    slightly; keep a margin.
    """
    dh = check_positive("dh", dh)
    Y0 = dh * EPS_REF
    B = np.hstack([-dexp_inv(Y0), dexp_inv(-Y0)]) / dh  # (6, 12)
    S = dh * B.T @ (section.P[:, None] * B)
    m_inv_sqrt = 1.0 / np.sqrt(0.5 * dh * np.concatenate([section.K, section.K]))
    lam = np.linalg.eigvalsh(m_inv_sqrt[:, None] * S * m_inv_sqrt[None, :])
    return 2.0 / math.sqrt(float(lam.max()))


def _row(*, t: float, kinetic: float, strain_energy: float, H: float, Jd: np.ndarray,
         J_lead: np.ndarray, J_mid: np.ndarray, tip: np.ndarray, com: np.ndarray,
         newton_its: int) -> dict[str, float]:
    """The history row of one level (columns as documented in :meth:`HamelBeam.step`)."""
    row: dict[str, float] = {"t": t, "kinetic": kinetic, "strain_energy": strain_energy,
                             "H": H}
    row |= {f"Jd_{k + 1}": float(Jd[k]) for k in range(6)}
    row |= {f"J_{k + 1}": float(J_lead[k]) for k in range(3)}
    row |= {f"p_{k + 1}": float(J_lead[3 + k]) for k in range(3)}
    row |= {f"Jmid_{k + 1}": float(J_mid[k]) for k in range(6)}
    row |= {f"tip_{k + 1}": float(tip[k]) for k in range(3)}
    row |= {f"com_{k + 1}": float(com[k]) for k in range(3)}
    row["newton_its"] = newton_its
    return row


class HamelBeam:
    """Geometrically exact beam on SE(3) integrated with the Hamel field variational integrator.

    Parameters
    ----------
    section : HamelSection
        Diagonal inertia ``K`` and stiffness ``P``.
    length : float
        Beam length L [m]; the lattice spacing is ``dh = L / n_elements``.
    n_elements : int
        Number of intervals between the ``n_nodes = n_elements + 1`` nodes (cross-sections),
        >= 1.
    h : float
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
        Node weights ``w_j`` of the kinetic term: ``dh`` everywhere (the choice of the HFVI
        momentum paper, theory §H7 numbers) or ``dh/2`` at the two end nodes.
    strain_update : {"configuration", "compatibility"}
        ``Y^{n+1}`` from ``log(g_j^-1 g_{j+1})`` (default; keeps ``exp Y = g_j^-1 g_{j+1}``
        to round-off, which the exact telescoping of ``J_d`` needs) or from the discrete
        compatibility condition (10), ``log(exp(-X_j) exp(Y) exp(X_{j+1}))`` (the "Hamel form";
        equal in exact arithmetic, round-off then accumulates between ``Y`` and ``g``).
    settings : SolverSettings, optional
        Node-wise Newton solves: ``stol`` (tolerance on the update relative to ``|X_j|``, in
        ``(0, 1e-6]``) and ``max_it`` (iterations per step) are used; default
        :func:`default_settings` (round-off, theory §H4).
    cfl : {"raise", "warn"}
        What to do when ``h`` exceeds :func:`critical_time_step`: raise a
        :class:`~fxrod.errors.ParameterError` or emit a ``RuntimeWarning``.

    Attributes
    ----------
    h : float
        Time step [s].
    h_critical : float
        Stability limit :func:`critical_time_step` of the lattice [s].
    n_elements, n_nodes : int
        Number of intervals and of nodes (``n_elements + 1``).
    dh : float
        Lattice spacing [m].
    s : ndarray (n_nodes,)
        Arc lengths of the nodes [m].
    """

    def __init__(
        self,
        section: HamelSection,
        length: float,
        n_elements: int,
        h: float,
        velocity0: np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None,
        *,
        config0: np.ndarray | None = None,
        ends: tuple[_EndKind, _EndKind] = ("free", "free"),
        weights: Literal["uniform", "trapezoid"] = "uniform",
        strain_update: Literal["configuration", "compatibility"] = "configuration",
        settings: SolverSettings | None = None,
        cfl: Literal["raise", "warn"] = "raise",
    ) -> None:
        if not isinstance(section, HamelSection):
            raise ParameterError("section", section, "a fxrod.hamel.HamelSection")
        self.section = section
        self.length = check_positive("length", length)
        self.n_elements = check_int_min("n_elements", n_elements, 1)
        self.n_nodes = self.n_elements + 1
        self.h = check_positive("h", h)
        self.dh = check_positive("dh", self.length / self.n_elements)
        settings = default_settings() if settings is None else settings
        if not isinstance(settings, SolverSettings):
            raise ParameterError("settings", settings, "a fxrod.solvers.settings.SolverSettings")
        check_range("stol", settings.stol, 0.0, 1e-6, lo_open=True)
        self.settings = settings
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
            raise ParameterError("ends", ends, "at least one free node (n_elements = 1 with "
                                 "two clamped ends leaves nothing to move)")

        self.h_critical = critical_time_step(section, self.dh)
        if self.h > self.h_critical:
            limit = (f"the CFL-like limit h_crit = {self.h_critical:.6g} s for dh = "
                     f"{self.dh:.4g} m (theory §H4)")
            if cfl == "raise":
                raise ParameterError("h", self.h, f"<= {limit}; cfl='warn' overrides")
            warnings.warn(f"h = {self.h:g} s exceeds {limit}; the run may blow up",
                          RuntimeWarning, stacklevel=2)

        self._R, self._phi = self._initial_configuration(config0)
        zeta0 = self._initial_velocity(velocity0)
        K = section.K
        # Level-n state (numpy; mirrored to DOLFINx by _publish).
        self.n = 0
        self._t_base, self._n_base = 0.0, 0   # t_n = t_base + (n - n_base) h (no drift)
        self._Y = self._strain_logs(self._R, self._phi)
        self._check_strain_angles()
        self._p_prev = K * zeta0  # T(-X^{n-1/2})^T K zeta^{n-1/2}; at n = 0 K zeta(0) (§H4.4)
        self._zeta = zeta0
        self._T_prev = mom.kinetic_energy(zeta0, K, 1.0, self.w)
        self._setup_dolfinx()
        self._publish()

    # -----------------------------------------------------------------------------------------
    # construction helpers
    # -----------------------------------------------------------------------------------------
    def _initial_configuration(self, config0: np.ndarray | None
                               ) -> tuple[np.ndarray, np.ndarray]:
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

    def _initial_velocity(
        self, velocity0: np.ndarray | Callable[[np.ndarray], np.ndarray] | None
    ) -> np.ndarray:
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

        self.mesh = dolfinx.mesh.create_interval(MPI.COMM_SELF, self.n_elements,
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
        self._cell_dof = np.empty(self.n_elements, dtype=np.int64)
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
        """Current time ``t_n`` [s]: ``n h`` while every step had the size ``h``."""
        return self._t_base + (self.n - self._n_base) * self.h

    #: The level-n state of :meth:`get_state` (numpy arrays and numbers).
    STATE = ("n", "t_base", "n_base", "R", "phi", "Y", "p_prev", "zeta", "T_prev")

    def get_state(self) -> dict[str, np.ndarray | float | int]:
        """The level-n state (copies): level, time origin, configuration, strain logs,
        transported momentum, last velocity and kinetic energy; :meth:`set_state` restores
        it exactly (a checkpoint, or a step retried with a smaller size)."""
        return {"n": self.n, "t_base": self._t_base, "n_base": self._n_base,
                "R": self._R.copy(), "phi": self._phi.copy(), "Y": self._Y.copy(),
                "p_prev": self._p_prev.copy(), "zeta": self._zeta.copy(),
                "T_prev": self._T_prev}

    def set_state(self, st: dict) -> None:
        """Restore a state of :meth:`get_state` (of a lattice of the same size)."""
        n = self.n_nodes
        shapes = {"R": (n, 3, 3), "phi": (n, 3), "Y": (n - 1, 6), "p_prev": (n, 6),
                  "zeta": (n, 6)}
        arrays = {k: np.array(st[k], dtype=float) for k in shapes}
        bad = [k for k, shape in shapes.items() if arrays[k].shape != shape]
        if bad:
            raise ParameterError("state", f"{bad[0]} of shape {arrays[bad[0]].shape}",
                                 f"{bad[0]} of shape {shapes[bad[0]]} ({n} nodes)")
        self.n, self._n_base = int(st["n"]), int(st["n_base"])
        self._t_base, self._T_prev = float(st["t_base"]), float(st["T_prev"])
        self._R, self._phi, self._Y = arrays["R"], arrays["phi"], arrays["Y"]
        self._p_prev, self._zeta = arrays["p_prev"], arrays["zeta"]
        self._publish()

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
        """Discrete strains ``gamma_{j+1/2}^n = Y/dh - eps`` (n_elements, 6)."""
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
                self.t, self.h, "relative rotation between neighbouring sections reached "
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

    def _solve(self, b: np.ndarray, h: float) -> tuple[np.ndarray, int]:
        """Batched Newton for ``T(X)^T K X = b`` at the free nodes (theory §H4).

        Start ``X = K^-1 b``. The Jacobian is ``d/dX [T(X)^T K X]`` with
        ``T^T = I - ad^T/2 + (ad^T)^2/12 + O(|X|^4)`` (the ``ad^3`` term vanishes), so the
        iteration is quadratic until round-off: 3 iterations per step in example 2, the last
        one confirming. Converged when ``|dX| <= stol |X|`` node-wise; a node whose update
        stops shrinking below ``1e3 stol |X|`` has reached round-off and is accepted.

        Raises
        ------
        fxrod.errors.ConvergenceError
            With the SNES reason names ``DIVERGED_FNORM_NAN`` (non-finite update) or
            ``DIVERGED_MAX_IT`` (``max_it`` iterations of the settings).
        """
        K = self.section.K
        stol, max_it = self.settings.stol, self.settings.max_it
        X = b / K
        idx = np.flatnonzero(self.free)
        prev = np.full(idx.size, np.inf)
        reason = PETSc.SNES.ConvergedReason.DIVERGED_MAX_IT
        for it in range(1, max_it + 1):
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
                reason = PETSc.SNES.ConvergedReason.DIVERGED_FNORM_NAN
                break
            X[idx] += dX
            nd = np.linalg.norm(dX, axis=1)
            nx = np.linalg.norm(X[idx], axis=1)
            done = (nd <= stol * nx) | ((nd >= 0.5 * prev) & (nd <= 1e3 * stol * nx))
            if np.all(done):
                X[~self.free] = 0.0
                return X, it
            keep = ~done
            idx, prev = idx[keep], nd[keep]
        hint = (f"; h exceeds the CFL-like limit {self.h_critical:.3g} s"
                if h > self.h_critical else "")
        raise ConvergenceError(
            self.t, h, snes_reason_name(reason),
            f"node-wise Newton: {idx.size} node(s) left after {it} iterations, e.g. node "
            f"{idx[:1].tolist()} with |X| = {np.linalg.norm(X[idx[:1]]):.3g}{hint}",
        )

    def step(self, h: float | None = None) -> dict[str, float]:
        """Advance ``n -> n+1`` by ``h`` [s] (default :attr:`h`); return the diagnostics
        at level ``n`` (time ``t_n``).

        A step of another size than :attr:`h` (adaptive stepping,
        :class:`fxrod.hamel.runs.StepControl`) is the same discrete Hamel equation with that
        ``h``: the transported momentum carries over, the stress terms still telescope, so
        ``J_d`` stays exactly conserved.

        Returns
        -------
        dict of str to float
            The row of level ``n`` for a :class:`fxrod.output.history.History`, in this column
            order:

            * ``t``: time ``t_n`` [s];
            * ``kinetic``, ``strain_energy``: ``(T^{n-1/2} + T^{n+1/2})/2`` and ``V^n`` [J];
            * ``H``: their sum, the discrete energy [J];
            * ``Jd_1`` .. ``Jd_6``: the exactly conserved discrete momentum ``J_d`` (angular
              [kg m^2/s] about the origin, then linear [kg m/s]);
            * ``J_1`` .. ``J_3``, ``p_1`` .. ``p_3``: its leading term at ``g^n`` (angular,
              linear; O(h) accurate);
            * ``Jmid_1`` .. ``Jmid_6``: the leading term at the mid-frames
              ``g^n exp(X/2)`` (O(h^2) from ``J_d``);
            * ``tip_1`` .. ``tip_3``: centreline position at ``s = L`` [m];
            * ``com_1`` .. ``com_3``: weighted mean of the node positions [m];
            * ``newton_its``: Newton iterations of the step (maximum over the nodes).

        Raises
        ------
        fxrod.errors.ConvergenceError
            If a node-wise solve fails, a rotation per step reaches pi, the neighbour
            rotation exceeds 0.9 pi or the new state is not finite.
        """
        K, w = self.section.K, self.w
        h = self.h if h is None else check_positive("h", h)
        t = self.t
        F, V = self.internal_forces(), self.strain_energy()
        b = h * self._p_prev + (h * h / w)[:, None] * F  # (§H4.2)
        X, its = self._solve(b, h)
        if np.any(np.linalg.norm(X[:, :3], axis=1) >= math.pi):
            raise ConvergenceError(t, h, "rotation per step reached pi",
                                   "reduce h (exp/log and T(X) are not unique there)")

        R, phi = self._R, self._phi
        T_next = mom.kinetic_energy(X, K, h, w)
        kin = 0.5 * (self._T_prev + T_next)
        row = _row(
            t=t, kinetic=kin, strain_energy=V, H=kin + V,
            Jd=mom.discrete_momentum(R, phi, X, K, h, w),
            J_lead=mom.leading_momentum(R, phi, X, K, h, w),
            J_mid=mom.midframe_momentum(R, phi, X, K, h, w),
            tip=phi[-1], com=(w @ phi) / w.sum(), newton_its=its,
        )

        # g^{n+1} = g^n exp(X)   (§H4.3)
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
        self._p_prev = mom.transported_momentum(X, K, h)
        self._zeta = X / h
        self._T_prev = T_next
        if h != self.h:               # the time origin of the following steps of size h
            self._t_base, self._n_base = t + h, self.n + 1
        self.n += 1
        if not (np.all(np.isfinite(self._phi)) and np.all(np.isfinite(self._Y))):
            raise ConvergenceError(t, h, "non-finite solution")
        self._check_strain_angles()
        self._publish()
        return row

    def compatibility_residual(self) -> float:
        """``max |log(g_j^-1 g_{j+1}) - Y_{j+1/2}|``: zero to round-off for the configuration
        update; measures the drift of the compatibility update (10) from the configuration."""
        return float(np.abs(self._strain_logs(self._R, self._phi) - self._Y).max())
