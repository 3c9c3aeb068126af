"""Static and dynamic solvers for :class:`~fxrod.ancf.element.ANCFBeam` (spec ``ancf.md`` B.4).

* :func:`solve_static` -- Newton (PETSc SNES through ``dolfinx.fem.petsc.NonlinearProblem``)
  with load stepping and step halving on failure.
* :class:`CentralDifference` -- explicit central difference
  ``q_{n+1} = 2 q_n - q_{n-1} + dt^2 M^-1 [Q_ext - dU/dq(q_n)]`` with the *nonlinear* elastic
  force, the consistent mass factorised once (PETSc Cholesky), the start
  ``q_{-1} = q_0 - dt v_0 + dt^2 a_0 / 2`` and the critical step ``2 / omega_max`` from SLEPc.
  A step above the limit is refused unless ``force=True``; a blow-up raises
  :class:`InstabilityError`.
* :class:`EnergyConsistentStepper` -- implicit, unconditionally stable, energy-conserving
  step: ``q_{n+1} - q_n = dt (v_n + v_{n+1}) / 2`` and
  ``M (v_{n+1} - v_n) / dt = Q_ext - dU_bar(q_n, q_{n+1})`` with the strain-based discrete
  gradient of :meth:`ANCFBeam.discrete_gradient_virtual_work`. For dead loads (gravity, tip
  force) the balance ``T + U - W_ext`` is conserved up to the Newton tolerance; a tip
  moment is applied at the midpoint (energy-consistent only to O(dt^2)).

Energy bookkeeping (B.4): ``H_n = T_n + U(q_n)`` with ``T_n = v_n^T M v_n / 2`` and
``v_n = (q_{n+1} - q_{n-1}) / (2 dt)`` for the central difference; the cumulative external
work ``W_ext(q_n)``; a conservative run keeps ``H - W_ext`` constant. Units: SI (s, m, J).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import dolfinx.fem as fem
import dolfinx.fem.petsc as fem_petsc
import numpy as np
import ufl
from petsc4py import PETSc

from fxrod.ancf.element import ANCFBeam
from fxrod.ancf.modal import StableStep, critical_time_step
from fxrod.errors import (
    ConvergenceError,
    ParameterError,
    check_int_min,
    check_positive,
    check_range,
)

_REASONS = {
    getattr(PETSc.SNES.ConvergedReason, k): k
    for k in dir(PETSc.SNES.ConvergedReason) if not k.startswith("_")
}
_COUNTER = itertools.count()


class InstabilityError(ConvergenceError):
    """The explicit central difference blew up (non-finite or runaway displacements)."""


def _snes_options(beam: ANCFBeam, atol: float | None, max_it: int) -> dict:
    # The residual is a force [N]. Converged when |F| < atol (default 1e-13 max(EA), far
    # below any load of interest) or when the Newton step is below 1e-12 |q|: the residual's
    # round-off floor ~ eps |K| |q| grows like EA/h and can exceed atol on fine meshes.
    if atol is None:
        atol = 1e-13 * float(np.max(beam.EA.x.array))
    return {
        "snes_type": "newtonls",
        "snes_linesearch_type": "none",
        "snes_rtol": 1e-14,
        "snes_atol": atol,
        "snes_stol": 1e-12,
        "snes_max_it": max_it,
        "ksp_type": "preonly",
        "pc_type": "lu",
    }


def _newton(beam: ANCFBeam, F: ufl.Form, u: fem.Function, atol: float | None, max_it: int):
    J = ufl.derivative(F, u, ufl.TrialFunction(beam.V))
    return fem_petsc.NonlinearProblem(
        F, u, bcs=beam.bcs, J=J, petsc_options_prefix=f"fxrod_ancf_{next(_COUNTER)}_",
        petsc_options=_snes_options(beam, atol, max_it))


def _reason(problem) -> tuple[int, int]:
    snes = problem.solver
    return snes.getConvergedReason(), snes.getIterationNumber()


# --------------------------------------------------------------------------------- static
@dataclass
class StaticResult:
    """Outcome of :func:`solve_static`."""

    q: np.ndarray  #: equilibrium dof vector
    tip: np.ndarray  #: tip position r(L) [m]
    tip_displacement: np.ndarray  #: r(L) - (L, 0) [m]
    load_steps: int  #: accepted load increments
    newton_its: int  #: total Newton iterations


def solve_static(
    beam: ANCFBeam,
    *,
    n_steps: int = 10,
    max_halvings: int = 8,
    atol: float | None = None,
    max_it: int = 30,
) -> StaticResult:
    """Static equilibrium under the beam's loads by Newton with load stepping.

    The load factor ``beam.load`` goes from 0 to 1 in ``n_steps`` equal increments starting
    from the current state ``beam.r`` (usually the straight reference). A failed increment
    is retried with half the size, down to ``2**-max_halvings / n_steps``; after a success
    the increment doubles again (up to ``1 / n_steps``). On return ``beam.r`` holds the
    equilibrium and ``beam.load`` is 1.

    Parameters
    ----------
    beam : ANCFBeam
        Beam with loads (gravity, tip force, tip moment) and end conditions.
    n_steps : int
        Number of load increments (>= 1).
    max_halvings : int
        Halvings of the nominal increment allowed before giving up (>= 0).
    atol : float, optional
        Absolute tolerance of the residual [N]; default ``1e-13 max(EA)``.
    max_it : int
        Newton iterations per increment (>= 1).

    Raises
    ------
    fxrod.errors.ConvergenceError
        With ``t`` the load factor at the start of the failed increment, ``h`` its size and
        the SNES reason.
    """
    n_steps = check_int_min("n_steps", n_steps, 1)
    max_halvings = check_int_min("max_halvings", max_halvings, 0)
    max_it = check_int_min("max_it", max_it, 1)
    if atol is not None:
        check_positive("atol", atol)
    problem = _newton(beam, beam.F, beam.r, atol, max_it)
    nominal = 1.0 / n_steps
    dlam_min = nominal / 2**max_halvings
    lam, dlam, steps, its = 0.0, nominal, 0, 0
    while lam < 1.0 - 1e-14:
        dlam = min(dlam, 1.0 - lam)
        q_start = beam.state()
        beam.load.value = lam + dlam
        problem.solve()
        reason, k = _reason(problem)
        its += k
        if reason > 0 and np.all(np.isfinite(beam.r.x.array)):
            lam, steps = lam + dlam, steps + 1
            dlam = min(nominal, 2.0 * dlam)
            continue
        beam.set_state(q_start)
        beam.load.value = lam
        if 0.5 * dlam < dlam_min * (1.0 - 1e-12):
            raise ConvergenceError(lam, dlam, _REASONS.get(reason, str(reason)),
                                   "static load step")
        dlam *= 0.5
    beam.load.value = 1.0
    q = beam.state()
    return StaticResult(q=q, tip=beam.tip(q), tip_displacement=beam.tip_displacement(q),
                        load_steps=steps, newton_its=its)


# --------------------------------------------------------------------------------- history
@dataclass
class History:
    """Time series recorded by the dynamic steppers (SI units)."""

    t: list[float] = field(default_factory=list)  #: time [s]
    tip: list[np.ndarray] = field(default_factory=list)  #: tip position r(L) [m]
    kinetic: list[float] = field(default_factory=list)  #: T [J]
    strain_energy: list[float] = field(default_factory=list)  #: U [J]
    external_work: list[float] = field(default_factory=list)  #: W_ext [J]
    newton_its: list[int] = field(default_factory=list)  #: per step (0 for explicit)

    def append(self, t: float, tip: np.ndarray, T: float, U: float, W: float, its: int) -> None:
        """Record one time."""
        self.t.append(t)
        self.tip.append(np.array(tip, dtype=float))
        self.kinetic.append(T)
        self.strain_energy.append(U)
        self.external_work.append(W)
        self.newton_its.append(its)

    @property
    def H(self) -> np.ndarray:
        """Stored energy ``H = T + U`` [J] (design.md convention)."""
        return np.asarray(self.kinetic) + np.asarray(self.strain_energy)

    @property
    def balance(self) -> np.ndarray:
        """``H - W_ext`` [J]: constant for an exactly energy-consistent conservative run."""
        return self.H - np.asarray(self.external_work)

    def relative_energy_error(self) -> float:
        """``max |B_n - B_0| / max(max |W_ext|, max U)`` with ``B = H - W_ext``."""
        B = self.balance
        scale = max(float(np.max(np.abs(self.external_work))), float(np.max(self.strain_energy)))
        return float(np.max(np.abs(B - B[0])) / scale) if scale > 0 else 0.0

    def as_columns(self) -> dict[str, np.ndarray]:
        """Arrays under the CSV column names of ``design.md`` (``tip_3 = 0`` in 2D).

        ``external_work`` is cumulative from the start; ``energy_residual`` is
        ``H_{n+1} - H_n - (W_ext,{n+1} - W_ext,n)`` for the recorded interval ending at ``t``.
        """
        tip = np.asarray(self.tip).reshape(-1, 2)
        H, W = self.H, np.asarray(self.external_work)
        res = np.concatenate([[0.0], np.diff(H) - np.diff(W)])
        n = len(H)
        return {
            "t": np.asarray(self.t), "kinetic": np.asarray(self.kinetic),
            "strain_energy": np.asarray(self.strain_energy), "H": H, "external_work": W,
            "dissipated": np.zeros(n), "energy_residual": res,
            "tip_1": tip[:, 0], "tip_2": tip[:, 1], "tip_3": np.zeros(n),
            "newton_its": np.asarray(self.newton_its, dtype=float),
        }


def _n_steps(t_end: float, dt: float) -> int:
    n = t_end / dt
    return max(1, int(round(n)) if abs(n - round(n)) < 1e-9 * n else math.ceil(n))


# --------------------------------------------------------------------------------- explicit
class CentralDifference:
    """Explicit central difference for the ANCF beam (spec B.4).

    Parameters
    ----------
    beam : ANCFBeam
        The beam; its current state ``beam.r`` is ``q_0``.
    dt : float, optional
        Time step [s]; default ``safety * dt_cr``.
    safety : float
        Safety factor in ``(0, 1]`` for the default step.
    force : bool
        Accept ``dt > dt_cr`` (for demonstrating the instability).
    v0 : numpy.ndarray, optional
        Initial dof velocity (default at rest).
    stable : StableStep, optional
        A precomputed stability limit (skips the SLEPc solve).
    blowup : float
        A displacement larger than ``blowup * L`` counts as blow-up.

    Attributes
    ----------
    stable : StableStep
        ``omega_max`` [rad/s] and ``dt_critical`` [s] at the straight reference state.
    t : float
        Current time [s].

    Raises
    ------
    fxrod.errors.ParameterError
        If ``dt`` exceeds ``dt_critical`` and ``force`` is false, or on other bad input.
    """

    def __init__(
        self,
        beam: ANCFBeam,
        dt: float | None = None,
        *,
        safety: float = 0.9,
        force: bool = False,
        v0: np.ndarray | None = None,
        stable: StableStep | None = None,
        blowup: float = 10.0,
    ) -> None:
        safety = check_range("safety", safety, 0.0, 1.0, lo_open=True)
        if dt is not None:
            dt = check_positive("dt", dt)
        self.blowup = check_positive("blowup", blowup)
        self.beam = beam
        self.stable = critical_time_step(beam) if stable is None else stable
        dt_cr = self.stable.dt_critical
        if dt is None:
            dt = safety * dt_cr
        elif dt > dt_cr and not force:
            raise ParameterError(
                "dt", dt, f"<= the central-difference limit 2/omega_max = {dt_cr:.6g} s "
                f"(omega_max = {self.stable.omega_max:.6g} rad/s), or pass force=True")
        self.dt = float(dt)
        free = beam.free_dofs
        self._free = free
        M = beam.mass_matrix()
        iset = PETSc.IS().createGeneral(free.astype(PETSc.IntType), comm=PETSc.COMM_SELF)
        self._M = M.createSubMatrix(iset, iset)
        self._Mdense = self._M.convert("dense").getDenseArray().copy()
        M.destroy()
        iset.destroy()
        self._ksp = PETSc.KSP().create(PETSc.COMM_SELF)
        self._ksp.setOperators(self._M)
        self._ksp.setType(PETSc.KSP.Type.PREONLY)
        self._ksp.getPC().setType(PETSc.PC.Type.CHOLESKY)
        self._ksp.setUp()  # the factorisation, once
        self._b, self._a = self._M.createVecs()
        self.t = 0.0
        q0 = beam.state()
        v = np.zeros_like(q0) if v0 is None else np.asarray(v0, dtype=float).copy()
        if v.shape != q0.shape:
            raise ParameterError("v0", v.shape, f"an array of shape {q0.shape}")
        v[beam.fixed_dofs] = 0.0
        a0 = self.acceleration(q0)
        self.q = q0
        self.q_prev = q0 - self.dt * v + 0.5 * self.dt**2 * a0

    def acceleration(self, q: np.ndarray) -> np.ndarray:
        """``M^-1 (Q_ext - dU/dq)`` on the free dofs (zero on the fixed ones) [1/s^2 x dof]."""
        f = -self.beam.residual(q)
        self._b.array[:] = f[self._free]
        self._ksp.solve(self._b, self._a)
        a = np.zeros_like(q)
        a[self._free] = self._a.array
        return a

    def _energy(self, q_prev: np.ndarray, q: np.ndarray, q_next: np.ndarray):
        v = (q_next - q_prev)[self._free] / (2.0 * self.dt)
        T = 0.5 * float(v @ self._Mdense @ v)
        return T, self.beam.strain_energy(q), self.beam.external_work(q)

    def run(self, t_end: float, record_every: int = 1, history: History | None = None) -> History:
        """Advance to ``self.t + t_end`` [s], recording every ``record_every`` steps.

        Raises
        ------
        InstabilityError
            If the displacements become non-finite or exceed ``blowup * L``.
        """
        t_end = check_positive("t_end", t_end)
        record_every = check_int_min("record_every", record_every, 1)
        hist = History() if history is None else history
        beam, dt = self.beam, self.dt
        limit = self.blowup * beam.L
        for n in range(_n_steps(t_end, dt)):
            q_next = 2.0 * self.q - self.q_prev + dt**2 * self.acceleration(self.q)
            if n % record_every == 0:
                T, U, W = self._energy(self.q_prev, self.q, q_next)
                hist.append(self.t, beam.tip(self.q), T, U, W, 0)
            if not np.all(np.isfinite(q_next)) or np.max(np.abs(q_next - beam.q_ref)) > limit:
                raise InstabilityError(
                    self.t, dt, "central difference diverged",
                    f"step {n}, dt/dt_cr = {dt / self.stable.dt_critical:.4g}")
            self.q_prev, self.q = self.q, q_next
            self.t += dt
        beam.set_state(self.q)
        return hist


# --------------------------------------------------------------------------------- implicit
class EnergyConsistentStepper:
    """Implicit energy-conserving step with the strain-based discrete gradient (see module).

    Parameters
    ----------
    beam : ANCFBeam
        The beam; its current state is ``q_0``.
    dt : float
        Time step [s] (no stability limit).
    v0 : numpy.ndarray, optional
        Initial dof velocity (default at rest).
    atol : float, optional
        Newton residual tolerance [N]; default ``1e-13 max(EA)``.
    max_it : int
        Newton iterations per step.

    Raises
    ------
    fxrod.errors.ConvergenceError
        From :meth:`run` when a Newton step fails (with t, dt and the SNES reason).
    """

    def __init__(
        self,
        beam: ANCFBeam,
        dt: float,
        *,
        v0: np.ndarray | None = None,
        atol: float | None = None,
        max_it: int = 25,
    ) -> None:
        self.dt = check_positive("dt", dt)
        max_it = check_int_min("max_it", max_it, 1)
        if atol is not None:
            check_positive("atol", atol)
        self.beam = beam
        V = beam.V
        self.r0 = fem.Function(V, name="r_n")
        self.v0 = fem.Function(V, name="v_n")
        self.r0.x.array[:] = beam.state()
        if v0 is not None:
            v = np.asarray(v0, dtype=float)
            if v.shape != self.r0.x.array.shape:
                raise ParameterError("v0", v.shape, f"an array of shape {self.r0.x.array.shape}")
            self.v0.x.array[:] = v
        self.v0.x.array[beam.fixed_dofs] = 0.0
        self._dt = fem.Constant(beam.mesh, self.dt)
        r1, r0, v0_, w = beam.r, self.r0, self.v0, beam.w
        rm = 0.5 * (r0 + r1)
        F = (beam.rhoA * ufl.dot(2.0 * (r1 - r0) / self._dt - 2.0 * v0_, w) / self._dt * beam.dx_a
             + beam.discrete_gradient_virtual_work(r0, r1, w)
             - beam.load * (beam.dead_load_virtual_work(w) + beam.moment_virtual_work(rm, w)))
        self._problem = _newton(beam, F, r1, atol, max_it)
        Mfull = fem_petsc.assemble_matrix(beam.mass_form())
        Mfull.assemble()
        self._M = Mfull.convert("dense").getDenseArray().copy()
        Mfull.destroy()
        self.t = 0.0

    def energy(self) -> tuple[float, float, float]:
        """``(T, U, W_ext)`` [J] of the current state ``(q_n, v_n)``."""
        v = self.v0.x.array
        q = self.r0.x.array
        return 0.5 * float(v @ self._M @ v), self.beam.strain_energy(q), self.beam.external_work(q)

    def step(self) -> int:
        """Advance one step; returns the Newton iterations."""
        beam, dt = self.beam, self.dt
        q0, v0 = self.r0.x.array.copy(), self.v0.x.array.copy()
        beam.set_state(q0 + dt * v0)  # predictor
        self._problem.solve()
        reason, its = _reason(self._problem)
        if reason <= 0 or not np.all(np.isfinite(beam.r.x.array)):
            beam.set_state(q0)
            raise ConvergenceError(self.t, dt, _REASONS.get(reason, str(reason)),
                                   "energy-consistent step")
        q1 = beam.state()
        self.v0.x.array[:] = 2.0 * (q1 - q0) / dt - v0
        self.r0.x.array[:] = q1
        self.t += dt
        return its

    def run(self, t_end: float, record_every: int = 1, history: History | None = None) -> History:
        """Advance to ``self.t + t_end`` [s], recording every ``record_every`` steps."""
        t_end = check_positive("t_end", t_end)
        record_every = check_int_min("record_every", record_every, 1)
        hist = History() if history is None else history
        n_steps = _n_steps(t_end, self.dt)
        its = 0
        if not hist.t:
            hist.append(self.t, self.beam.tip(self.r0.x.array), *self.energy(), 0)
        for n in range(1, n_steps + 1):
            its = self.step()
            if n % record_every == 0 or n == n_steps:
                hist.append(self.t, self.beam.tip(self.r0.x.array), *self.energy(), its)
        return hist
