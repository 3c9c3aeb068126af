"""Static and dynamic solvers for :class:`~fxrod.ancf.element.ANCFBeam` (theory §A4).

* :func:`solve_static` -- Newton (:class:`fxrod.solvers.newton.NewtonSolver`) with load stepping and
  step halving on failure.
* :class:`CentralDifference` -- explicit central difference
  ``q_{n+1} = 2 q_n - q_{n-1} + h^2 M^-1 [Q_ext - dU/dq(q_n)]`` with the *nonlinear* elastic
  force, the consistent mass factorised once (PETSc Cholesky), the start
  ``q_{-1} = q_0 - h v_0 + h^2 a_0 / 2`` and the critical step ``2 / omega_max`` from SLEPc.
  A step above the limit is refused unless ``force=True``; a blow-up raises
  :class:`InstabilityError`.
* :class:`EnergyConsistentStepper` -- implicit, unconditionally stable, energy-conserving
  step: ``q_{n+1} - q_n = h (v_n + v_{n+1}) / 2`` and
  ``M (v_{n+1} - v_n) / h = Q_ext - dU_bar(q_n, q_{n+1})`` with the strain-based discrete
  gradient of :meth:`ANCFBeam.discrete_gradient_virtual_work`. For dead loads (gravity, tip
  force) the balance ``T + U - W_ext`` is conserved up to the Newton tolerance; a tip
  moment is applied at the midpoint (energy-consistent only to O(h^2)).

``h`` is the time step [s] throughout. The Newton solves take a
:class:`fxrod.solvers.settings.SolverSettings`; :func:`default_settings` gives the ANCF defaults.
By default they run the fast path of :mod:`fxrod.ancf.banded` (FFCx kernels from C, banded
LU, the SNES iteration in C: same iterates up to round-off); ``fast_assembly=False`` (or
a Jacobian lag or line search it does not reproduce, or a C helper that does not build)
selects the general path, SNES with DOLFINx's assembly and MUMPS. The central difference
likewise evaluates its force by the C loop and solves with the banded Cholesky factor of
the mass unless ``fast_assembly=False``.

Energy bookkeeping (§A4): ``H_n = T_n + U(q_n)`` with ``T_n = v_n^T M v_n / 2`` and
``v_n = (q_{n+1} - q_{n-1}) / (2 h)`` for the central difference; the cumulative external
work ``W_ext(q_n)``; a conservative run keeps ``H - W_ext`` constant. The dynamic steppers
record a :class:`fxrod.output.history.History` with the columns ``t, kinetic, strain_energy, H,
external_work, dissipated, energy_residual, tip_1, tip_2, tip_3, newton_its``
(``tip_3 = 0`` in 2D); :func:`energy_balance` and :func:`relative_energy_error` evaluate it.
Units: SI (s, m, J).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import dolfinx.fem as fem
import dolfinx.fem.petsc as fem_petsc
import numpy as np
import ufl
from petsc4py import PETSc

from fxrod.ancf.banded import BandedAcceleration, BandedNewton
from fxrod.ancf.element import ANCFBeam
from fxrod.ancf.modal import critical_time_step
from fxrod.errors import (
    ConvergenceError,
    ParameterError,
    check_int_min,
    check_positive,
    check_range,
)
from fxrod.output.history import History
from fxrod.solvers.newton import NewtonSolver, snes_reason_name
from fxrod.solvers.settings import SolverSettings
from fxrod.solvers.stepper import StepInfo


class InstabilityError(ConvergenceError):
    """The explicit central difference blew up (non-finite or runaway displacements)."""


def default_settings(beam: ANCFBeam, **changes) -> SolverSettings:
    """Newton settings of the ANCF solvers for ``beam``, with ``changes`` applied.

    Full Newton (``jacobian_lag=1``) with plain Newton steps (``linesearch="basic"``), at most
    ``max_it=25`` iterations (:func:`solve_static` uses 30). The residual is a force [N]:
    converged when its norm is below ``atol = 1e-13 max(EA)`` [N] (far below any load of
    interest), below ``rtol = 1e-14`` times the first one, or when the Newton update is below
    ``stol = 1e-12`` times ``|q|`` (the residual's round-off floor ``~ eps |K| |q|`` grows
    like ``EA / l_e`` and can exceed ``atol`` on fine meshes).

    The ANCF solvers use the fields ``atol``, ``rtol``, ``stol``, ``max_it``,
    ``jacobian_lag``, ``linesearch``, ``mumps_icntl`` and ``malloc_tuning``;
    :func:`solve_static` halves its load increments on its own (``max_halvings``), so
    ``adaptive``, ``h_min``, ``grow_after``, ``retry_linesearch`` and ``predictor`` are not
    used. ``fast_assembly`` (on) selects the fast path of :mod:`fxrod.ancf.banded` where it
    applies (``jacobian_lag == 1``, ``linesearch == "basic"``); off, SNES with DOLFINx's
    assembly and MUMPS (``mumps_icntl``, ``malloc_tuning`` then apply).

    Raises
    ------
    fxrod.errors.ParameterError
        If a change names an unknown field or has an invalid value.
    """
    base = SolverSettings(atol=1e-13 * float(np.max(beam.EA.x.array)), rtol=1e-14,
                          stol=1e-12, max_it=25, jacobian_lag=1, linesearch="basic",
                          retry_linesearch=None, fast_assembly=True)
    return base.replace(**changes) if changes else base


class _Newton:
    """Newton solves of ``F(beam.r) = 0``: :class:`fxrod.ancf.banded.BandedNewton` where it
    applies, else (and for an iterate off the boundary values) :class:`NewtonSolver` with
    DOLFINx's assembly, built when first needed.

    Attributes
    ----------
    fast : BandedNewton or None
        The fast path, None when the general one is used.
    """

    def __init__(self, F: ufl.Form, beam: ANCFBeam, settings: SolverSettings) -> None:
        self._F, self._beam, self.settings = F, beam, settings
        self._general: NewtonSolver | None = None
        self.fast: BandedNewton | None = None
        if BandedNewton.applicable(settings):
            try:
                self.fast = BandedNewton(F, beam, settings)
            except Exception as err:  # noqa: BLE001  (no C compiler, odd layout: say why)
                warnings.warn(f"fxrod: ANCF fast path unavailable ({err}); using SNES",
                              RuntimeWarning, stacklevel=3)

    @property
    def general(self) -> NewtonSolver:
        """The SNES solver (DOLFINx's assembly, MUMPS), built on first use."""
        if self._general is None:
            self._general = NewtonSolver(self._F, self._beam.r, self._beam.bcs,
                                         self.settings.replace(fast_assembly=False,
                                                               linear_solver="mumps"))
        return self._general

    def solve(self) -> tuple[int, int]:
        """Solve from the iterate in ``beam.r``: ``(SNES reason, Newton iterations)``."""
        if self.fast is not None:
            out = self.fast.solve()
            if out is not None:
                return out
        return self.general.solve()


def _newton(F: ufl.Form, beam: ANCFBeam, settings: SolverSettings | None,
            **defaults) -> _Newton:
    """Newton solves of ``F(beam.r) = 0`` with ``settings`` (default: ``default_settings``
    of ``beam`` with ``defaults``)."""
    if settings is None:
        settings = default_settings(beam, **defaults)
    elif not isinstance(settings, SolverSettings):
        raise ParameterError("settings", settings, "a fxrod.solvers.settings.SolverSettings")
    return _Newton(F, beam, settings)


def _failure_reason(reason: int, q: np.ndarray) -> str | None:
    """Shared reason name of a failed Newton solve, or None if it converged."""
    if reason <= 0:
        return snes_reason_name(reason)
    return None if np.all(np.isfinite(q)) else "non-finite solution"


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
    settings: SolverSettings | None = None,
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
    settings : SolverSettings, optional
        Newton settings of every increment; default ``default_settings(beam, max_it=30)``.

    Raises
    ------
    fxrod.errors.ConvergenceError
        With ``t`` the load factor at the start of the failed increment, ``h`` its size and
        the SNES reason.
    """
    n_steps = check_int_min("n_steps", n_steps, 1)
    max_halvings = check_int_min("max_halvings", max_halvings, 0)
    newton = _newton(beam.F, beam, settings, max_it=30)
    nominal = 1.0 / n_steps
    dlam_min = nominal / 2**max_halvings
    lam, dlam, steps, its = 0.0, nominal, 0, 0
    while lam < 1.0 - 1e-14:
        dlam = min(dlam, 1.0 - lam)
        q_start = beam.state()
        beam.load.value = lam + dlam
        reason, k = newton.solve()
        its += k
        failure = _failure_reason(reason, beam.r.x.array)
        if failure is None:
            lam, steps = lam + dlam, steps + 1
            dlam = min(nominal, 2.0 * dlam)
            continue
        beam.set_state(q_start)
        beam.load.value = lam
        if 0.5 * dlam < dlam_min * (1.0 - 1e-12):
            raise ConvergenceError(lam, dlam, failure, "static load step")
        dlam *= 0.5
    beam.load.value = 1.0
    q = beam.state()
    return StaticResult(q=q, tip=beam.tip(q), tip_displacement=beam.tip_displacement(q),
                        load_steps=steps, newton_its=its)


# --------------------------------------------------------------------------------- history
def _record(history: History, t: float, tip: np.ndarray, T: float, U: float, W: float,
            its: int) -> None:
    """Append the row of time ``t`` [s]: energies [J], tip [m], Newton iterations.

    ``external_work`` is cumulative from the start; ``energy_residual`` is
    ``H_{n+1} - H_n - (W_ext,{n+1} - W_ext,n)`` over the interval since the previous row
    (0 for the first row).
    """
    H = T + U
    if len(history):
        prev = history.rows[-1]
        residual = (H - prev["H"]) - (W - prev["external_work"])
    else:
        residual = 0.0
    history.append({
        "t": t, "kinetic": T, "strain_energy": U, "H": H, "external_work": W,
        "dissipated": 0.0, "energy_residual": residual,
        "tip_1": float(tip[0]), "tip_2": float(tip[1]), "tip_3": 0.0, "newton_its": its,
    })


def energy_balance(history: History) -> np.ndarray:
    """``H - W_ext`` [J] per row: constant for an exactly energy-consistent conservative run."""
    return history.column("H") - history.column("external_work")


def relative_energy_error(history: History) -> float:
    """``max |B_n - B_0| / max(max |W_ext|, max U)`` with ``B = H - W_ext`` (dimensionless)."""
    B = energy_balance(history)
    scale = max(float(np.max(np.abs(history.column("external_work")))),
                float(np.max(history.column("strain_energy"))))
    return float(np.max(np.abs(B - B[0])) / scale) if scale > 0 else 0.0


def _n_steps(t_end: float, h: float) -> int:
    n = t_end / h
    return max(1, int(round(n)) if abs(n - round(n)) < 1e-9 * n else math.ceil(n))


# --------------------------------------------------------------------------------- explicit
class CentralDifference:
    """Explicit central difference for the ANCF beam (theory §A4).

    Parameters
    ----------
    beam : ANCFBeam
        The beam; its current state ``beam.r`` is ``q_0``.
    h : float, optional
        Time step [s]; default ``safety * h_critical``.
    safety : float
        Safety factor in ``(0, 1]`` for the default step.
    force : bool
        Accept ``h > h_critical`` (for demonstrating the instability).
    v0 : numpy.ndarray, optional
        Initial dof velocity (default at rest).
    h_critical : float, optional
        A precomputed stability limit [s] (skips the SLEPc solve of
        :func:`~fxrod.ancf.modal.critical_time_step`).
    blowup : float
        A displacement larger than ``blowup * L`` counts as blow-up.
    fast_assembly : bool
        Force by the C loop and banded Cholesky solve (:class:`fxrod.ancf.banded.
        BandedAcceleration`, the default); False: DOLFINx's assembly and PETSc's Cholesky.

    Attributes
    ----------
    h : float
        Time step [s].
    h_critical : float
        Stability limit ``2 / omega_max`` [s] at the straight reference state.
    t : float
        Current time [s].

    Raises
    ------
    fxrod.errors.ParameterError
        If ``h`` exceeds ``h_critical`` and ``force`` is false, or on other bad input.
    """

    def __init__(
        self,
        beam: ANCFBeam,
        h: float | None = None,
        *,
        safety: float = 0.9,
        force: bool = False,
        v0: np.ndarray | None = None,
        h_critical: float | None = None,
        blowup: float = 10.0,
        fast_assembly: bool = True,
    ) -> None:
        safety = check_range("safety", safety, 0.0, 1.0, lo_open=True)
        if h is not None:
            h = check_positive("h", h)
        self.blowup = check_positive("blowup", blowup)
        self.beam = beam
        self.h_critical = (critical_time_step(beam) if h_critical is None
                           else check_positive("h_critical", h_critical))
        h_cr = self.h_critical
        if h is None:
            h = safety * h_cr
        elif h > h_cr and not force:
            raise ParameterError(
                "h", h, f"<= the central-difference limit 2/omega_max = {h_cr:.6g} s "
                f"(omega_max = {2.0 / h_cr:.6g} rad/s), or pass force=True")
        self.h = float(h)
        free = beam.free_dofs
        self._free = free
        M = beam.mass_matrix()
        Mfull = M.convert("dense").getDenseArray().copy()
        self._Mdense = Mfull[np.ix_(free, free)]
        #: the fast path (:class:`fxrod.ancf.banded.BandedAcceleration`) or None
        self.fast: BandedAcceleration | None = None
        if fast_assembly:
            try:
                self.fast = BandedAcceleration(beam, Mfull)
            except Exception as err:  # noqa: BLE001  (no C compiler, odd layout: say why)
                warnings.warn(f"fxrod: ANCF fast path unavailable ({err}); using PETSc",
                              RuntimeWarning, stacklevel=2)
        if self.fast is None:
            iset = PETSc.IS().createGeneral(free.astype(PETSc.IntType), comm=PETSc.COMM_SELF)
            self._M = M.createSubMatrix(iset, iset)
            iset.destroy()
            self._ksp = PETSc.KSP().create(PETSc.COMM_SELF)
            self._ksp.setOperators(self._M)
            self._ksp.setType(PETSc.KSP.Type.PREONLY)
            self._ksp.getPC().setType(PETSc.PC.Type.CHOLESKY)
            self._ksp.setUp()  # the factorisation, once
            self._b, self._a = self._M.createVecs()
        M.destroy()
        self.t = 0.0
        q0 = beam.state()
        v = np.zeros_like(q0) if v0 is None else np.asarray(v0, dtype=float).copy()
        if v.shape != q0.shape:
            raise ParameterError("v0", v.shape, f"an array of shape {q0.shape}")
        v[beam.fixed_dofs] = 0.0
        a0 = self.acceleration(q0)
        self.q = q0
        self.q_prev = q0 - self.h * v + 0.5 * self.h**2 * a0
        self._q_next: np.ndarray | None = None   # next_state() of the current state

    def acceleration(self, q: np.ndarray) -> np.ndarray:
        """``M^-1 (Q_ext - dU/dq)`` on the free dofs (zero on the fixed ones) [1/s^2 x dof]."""
        if self.fast is not None:
            return self.fast(q)
        f = -self.beam.residual(q)
        self._b.array[:] = f[self._free]
        self._ksp.solve(self._b, self._a)
        a = np.zeros_like(q)
        a[self._free] = self._a.array
        return a

    def _energy(self, q_prev: np.ndarray, q: np.ndarray, q_next: np.ndarray):
        v = (q_next - q_prev)[self._free] / (2.0 * self.h)
        T = 0.5 * float(v @ self._Mdense @ v)
        return T, self.beam.strain_energy(q), self.beam.external_work(q)

    def steps(self, t_end: float) -> int:
        """Number of steps of :meth:`run` over ``t_end`` [s] (the nearest whole number if
        ``t_end / h`` is one to 1e-9, else rounded up)."""
        return _n_steps(check_positive("t_end", t_end), self.h)

    def next_state(self) -> np.ndarray:
        """``q_{n+1} = 2 q_n - q_{n-1} + h^2 M^-1 [Q_ext - dU/dq(q_n)]`` of the current
        state, computed once: the row of ``t_n`` needs it (``v_n``) and :meth:`step` takes
        it."""
        if self._q_next is None:
            self._q_next = 2.0 * self.q - self.q_prev + self.h**2 * self.acceleration(self.q)
        return self._q_next

    def step(self, history: History | None = None, n: int = 0) -> None:
        """Advance one step of size ``h``; append the row of the current time to
        ``history`` (if given) before stepping. ``n`` numbers the step in messages.

        Raises
        ------
        InstabilityError
            If the displacements become non-finite or exceed ``blowup * L`` (the state is
            left at the last finite step).
        """
        beam, h = self.beam, self.h
        q_next = self.next_state()
        if history is not None:
            T, U, W = self._energy(self.q_prev, self.q, q_next)
            _record(history, self.t, beam.tip(self.q), T, U, W, 0)
        if (not np.all(np.isfinite(q_next))
                or np.max(np.abs(q_next - beam.q_ref)) > self.blowup * beam.L):
            raise InstabilityError(
                self.t, h, "central difference diverged",
                f"step {n}, h/h_critical = {h / self.h_critical:.4g}")
        self.q_prev, self.q, self._q_next = self.q, q_next, None
        self.t += h

    def get_state(self) -> dict[str, np.ndarray | float]:
        """``t`` [s], ``q`` and ``q_prev`` (copies): :meth:`set_state` continues exactly."""
        return {"t": self.t, "q": self.q.copy(), "q_prev": self.q_prev.copy()}

    def set_state(self, st: dict) -> None:
        """Restore a state of :meth:`get_state` (of the same beam and step)."""
        q, q_prev = (np.array(st[k], dtype=float) for k in ("q", "q_prev"))
        if q.shape != self.q.shape or q_prev.shape != self.q.shape:
            raise ParameterError("state", f"q of shape {q.shape}",
                                 f"q and q_prev of shape {self.q.shape}")
        self.t, self.q, self.q_prev, self._q_next = float(st["t"]), q, q_prev, None
        self.beam.set_state(q)

    def run(self, t_end: float, record_every: int = 1,
            history: History | None = None) -> History:
        """Advance to ``self.t + t_end`` [s], recording every ``record_every`` steps.

        Rows are appended to ``history`` (a new one by default), which is returned.

        Raises
        ------
        InstabilityError
            If the displacements become non-finite or exceed ``blowup * L``.
        """
        record_every = check_int_min("record_every", record_every, 1)
        hist = History() if history is None else history
        for n in range(self.steps(t_end)):
            self.step(hist if n % record_every == 0 else None, n)
        self.beam.set_state(self.q)
        return hist


# --------------------------------------------------------------------------------- implicit
class EnergyConsistentStepper:
    """Implicit energy-conserving step with the strain-based discrete gradient (see module).

    Parameters
    ----------
    beam : ANCFBeam
        The beam; its current state is ``q_0``.
    h : float
        Time step [s] (no stability limit).
    v0 : numpy.ndarray, optional
        Initial dof velocity (default at rest).
    settings : SolverSettings, optional
        Newton settings of every step; default :func:`default_settings` of ``beam``.

    Raises
    ------
    fxrod.errors.ConvergenceError
        From :meth:`step` and :meth:`run` when a Newton step fails (with t, h and the SNES
        reason).
    """

    def __init__(
        self,
        beam: ANCFBeam,
        h: float,
        *,
        v0: np.ndarray | None = None,
        settings: SolverSettings | None = None,
    ) -> None:
        self.h = check_positive("h", h)
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
        h_c = fem.Constant(beam.mesh, self.h)
        r1, r0, v0_, w = beam.r, self.r0, self.v0, beam.w
        rm = 0.5 * (r0 + r1)
        F = (beam.rhoA * ufl.dot(2.0 * (r1 - r0) / h_c - 2.0 * v0_, w) / h_c * beam.dx_a
             + beam.discrete_gradient_virtual_work(r0, r1, w)
             - beam.load * (beam.dead_load_virtual_work(w) + beam.moment_virtual_work(rm, w)))
        self._newton = _newton(F, beam, settings)
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
        beam, h = self.beam, self.h
        q0, v0 = self.r0.x.array.copy(), self.v0.x.array.copy()
        beam.set_state(q0 + h * v0)  # predictor
        reason, its = self._newton.solve()
        failure = _failure_reason(reason, beam.r.x.array)
        if failure is not None:
            beam.set_state(q0)
            raise ConvergenceError(self.t, h, failure, "energy-consistent step")
        q1 = beam.state()
        self.v0.x.array[:] = 2.0 * (q1 - q0) / h - v0
        self.r0.x.array[:] = q1
        self.t += h
        return its

    def run(self, t_end: float, record_every: int = 1,
            history: History | None = None) -> History:
        """Advance to ``self.t + t_end`` [s], recording every ``record_every`` steps.

        The current state is recorded first if ``history`` (a new one by default) is empty,
        the final state always; the history is returned.
        """
        t_end = check_positive("t_end", t_end)
        record_every = check_int_min("record_every", record_every, 1)
        hist = History() if history is None else history
        n_steps = _n_steps(t_end, self.h)
        if not len(hist):
            _record(hist, self.t, self.beam.tip(self.r0.x.array), *self.energy(), 0)
        for n in range(1, n_steps + 1):
            its = self.step()
            if n % record_every == 0 or n == n_steps:
                _record(hist, self.t, self.beam.tip(self.r0.x.array), *self.energy(), its)
        return hist


# ------------------------------------------------------------------------ recorded runs
#: The columns of a central-difference row and their SI units (the order of its CSV).
CD_COLUMNS: dict[str, str] = {
    "kinetic": "J", "strain_energy": "J", "H": "J", "external_work": "J", "dissipated": "J",
    "energy_residual": "J", "tip_1": "m", "tip_2": "m", "tip_3": "m", "newton_its": "-"}


class CentralDifferenceProbe:
    """The row of ``t_n`` of a :class:`CentralDifferenceStepper`: ``kinetic`` (with
    ``v_n = (q_{n+1} - q_{n-1}) / 2h``), ``strain_energy``, ``H``, cumulative
    ``external_work``, ``dissipated`` (0), ``energy_residual`` [J] over the interval since
    the previous recorded row, ``tip_1..3`` [m] and ``newton_its`` (0)."""

    columns = CD_COLUMNS

    def __call__(self, sim, res) -> dict[str, float]:
        cd = sim.integ.cd
        T, U, W = cd._energy(cd.q_prev, cd.q, cd.next_state())
        rows = History(sim.history.rows[-1:])
        _record(rows, cd.t, cd.beam.tip(cd.q), T, U, W, 0)
        return {c: rows.rows[-1][c] for c in CD_COLUMNS}


class CentralDifferenceStepper:
    """A :class:`CentralDifference` as a :class:`fxrod.solvers.stepper.CompanionStepper`, recorded
    by :class:`fxrod.runs.simulation.Simulation` (serial: ``MPI.COMM_SELF``).

    Parameters
    ----------
    cd : CentralDifference
        The explicit stepper (its fixed step ``cd.h`` [s]).
    fingerprint : dict of str to str
        What identifies the problem in a checkpoint
        (:func:`fxrod.runs.checkpoint.companion_fingerprint`).
    per_element : int
        Centreline points per element of a snapshot.
    """

    def __init__(self, cd: CentralDifference, fingerprint: dict[str, str],
                 per_element: int = 4) -> None:
        from mpi4py import MPI

        self.cd = cd
        self.comm = MPI.COMM_SELF
        self._fingerprint = dict(fingerprint)
        self.per_element = check_int_min("per_element", per_element, 1)
        self.step_count = 0

    @property
    def t(self) -> float:
        """Current time ``t_n`` [s]."""
        return self.cd.t

    @property
    def h(self) -> float:
        """The fixed step [s]."""
        return self.cd.h

    def step(self, h: float | None = None) -> StepInfo:
        """One step of the fixed size ``cd.h`` (``h``: None or that size)."""
        if h is not None and h != self.cd.h:
            raise ParameterError("h", h, f"None or the fixed step {self.cd.h!r} s of the "
                                 "central difference")
        self.cd.step(None, self.step_count)
        self.step_count += 1
        return StepInfo(self.cd.t, self.cd.h, 0, math.nan)

    def advance_to(self, t_end: float, callback=None) -> None:
        """The steps to ``t_end`` [s] (the nearest whole number of steps from ``t``)."""
        n = int(round((t_end - self.cd.t) / self.cd.h))
        for _ in range(max(0, n)):
            res = self.step()
            if callback is not None:
                callback(self, res)

    def get_state(self) -> dict:
        """``t``, ``q``, ``q_prev``, the step, its stability limit and the step count."""
        return {**self.cd.get_state(), "h": self.cd.h, "h_critical": self.cd.h_critical,
                "step_count": self.step_count}

    def set_state(self, st: dict) -> None:
        """Restore :meth:`get_state` (the stored step, so that the steps are bitwise those
        of the uninterrupted run)."""
        self.cd.h, self.cd.h_critical = float(st["h"]), float(st["h_critical"])
        self.cd.set_state(st)
        self.step_count = int(st["step_count"])

    def probes(self) -> list:
        """:class:`CentralDifferenceProbe`."""
        return [CentralDifferenceProbe()]

    def fingerprint(self) -> dict[str, str]:
        """The problem's fingerprint as given."""
        return self._fingerprint

    def centreline(self) -> np.ndarray:
        """Centreline points ``(n, 3)`` [m] of the current state (z = 0)."""
        return self.cd.beam.centreline(self.cd.q, per_element=self.per_element)
