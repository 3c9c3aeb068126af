"""Solver settings: everything that changes how a step is solved, nothing that changes what
is solved (the physics lives in :class:`fxrod.core.model.RodModel`).

One :class:`SolverSettings` object is shared by every formulation's Newton solver
(:mod:`fxrod.solvers.newton`) and by the steppers (:mod:`fxrod.runs.integrators`). Every field has a
documented default and unit; invalid values raise :class:`fxrod.errors.ParameterError` when
the object is created, before any form is compiled.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field

from fxrod.errors import ParameterError, check_positive

#: PETSc SNESLineSearch types accepted by ``linesearch`` and ``retry_linesearch``.
LINE_SEARCHES = ("basic", "bt", "l2", "cp", "nleqerr")

#: Linear solvers accepted by ``linear_solver``.
LINEAR_SOLVERS = ("auto", "mumps", "chain")

#: Environment variable that sets the default of ``linear_solver`` (one of
#: :data:`LINEAR_SOLVERS`; unset or empty: ``"auto"``).
LINEAR_SOLVER_ENV = "FXROD_LINEAR_SOLVER"

#: fxrod's MUMPS defaults on every rank count: ICNTL(7) = 6 (QAMD ordering, ~20 % faster here
#: than the default), ICNTL(8) = 0 (no scaling: the rows of (42) are already scaled like the
#: paper's; MUMPS's iterative scaling costs a third of each serial factorisation, see
#: bench/step_cost.py, and under MPI, where it was kept until issue 39, it made the 2-rank
#: step of a 20 000-element rod 2.7x slower: recomputed at every factorisation). The
#: stiff 45-degree bend that once failed without it under MPI (E = 1e7, load steps of 75)
#: now converges on 2 ranks as in serial (tests/test_mpi.py).
MUMPS_DEFAULTS: dict[int, int] = {7: 6, 8: 0}


def default_linear_solver() -> str:
    """The default ``linear_solver``: the environment variable :data:`LINEAR_SOLVER_ENV`
    if set and not empty, else ``"auto"``; read when a :class:`SolverSettings` is created.

    Raises
    ------
    ParameterError
        When the variable holds anything but one of :data:`LINEAR_SOLVERS`.
    """
    value = os.environ.get(LINEAR_SOLVER_ENV, "")
    if value == "":
        return "auto"
    if value not in LINEAR_SOLVERS:
        raise ParameterError(f"environment variable {LINEAR_SOLVER_ENV}", value,
                             f"one of {LINEAR_SOLVERS}")
    return value


@dataclass(frozen=True)
class SolverSettings:
    """How the nonlinear step equations are solved.

    Attributes
    ----------
    atol : float
        Absolute Newton tolerance on the 2-norm of the residual, > 0. For the Cosserat rod
        the residual rows are those of the midpoint step (42) as written in the paper (not
        divided by h): forces times time [N s] in the momentum rows, strains in the
        compliance rows. Default 1e-12.
    rtol : float
        Relative Newton tolerance (to the first residual), > 0. Default 1e-14.
    stol : float
        Newton also stops when its update falls below ``stol`` relative to the unknown
        (round-off: an absolute residual tolerance is not reachable once the unknown is
        large, e.g. a rod that has flown far from the origin), >= 0; and full Newton stops
        at the residual's round-off floor (:class:`fxrod.solvers.newton.ConvergenceTest`). 0: both
        tests off (Newton stops at ``atol`` or ``rtol`` only). Default 1e-13.
    max_it : int
        Newton iterations per attempt, >= 1. Default 25.
    jacobian_lag : int
        Rebuild (and refactorise) the Jacobian every ``jacobian_lag`` Newton iterations of a
        step, starting with the first (modified Newton; PETSc ``snes_lag_jacobian``), >= 1.
        By default the lag does not persist across steps, so a restarted run reproduces an
        uninterrupted one exactly. 1 = full Newton. Default 8.
    jacobian_persists : bool
        Count the Jacobian lag across steps (PETSc ``snes_lag_jacobian_persists``): a step
        starts from the last step's factorisation unless the Newton iterations counted since
        it reached ``jacobian_lag``. Saves most Jacobians where the motion is smooth at the
        step size (Ex. 6.2: a Jacobian every ~1.5 steps, 20 % off its stepping; in the
        tumbling flying spaghetti the stale Jacobian costs more iterations than it saves).
        Each step still solves to the tolerances, but a restarted run then reproduces an
        uninterrupted one only to them (the factorisation is not checkpointed). A solve
        whose lag is overridden (the full-Newton retry of a failed step) does not count.
        Default False.
    linesearch : str
        PETSc line search of the first attempts of a step, one of :data:`LINE_SEARCHES`.
        Default ``"basic"`` (plain Newton steps).
    retry_linesearch : str or None
        Line search of the last retry of a failing step (default ``"bt"``, backtracking;
        None: no such retry).
    predictor : {"extrapolate", "plain"}
        Initial Newton iterate of a dynamic or load step; see
        :meth:`fxrod.runs.integrators.Integrator.try_step`. Default ``"extrapolate"``.
    fast_assembly : bool
        Serial runs assemble the Jacobian with :class:`fxrod.native.assembly.KernelJacobian`
        (same FFCx kernels, direct CSR insertion). Default True.
    fast_residual : bool
        With ``fast_assembly``, serial runs also assemble the residual through the FFCx
        kernels into preallocated arrays (:class:`fxrod.native.assembly.KernelResidual`): the
        same vector as DOLFINx's, without its per-call Python work (coefficient packing,
        lifting, vector wrappers); the Newton iterates are unchanged
        (tests/test_fast_residual.py). Default True.
    linear_solver : {"auto", "mumps", "chain"}
        Linear solver of the Newton steps. ``"mumps"``: MUMPS LU of the assembled matrix.
        ``"chain"``: :class:`fxrod.solvers.chain.ChainSolver`, static condensation of each
        element's interior unknowns and a block-tridiagonal solve of the vertex unknowns,
        with Newton's iteration outside SNES (:mod:`fxrod.solvers.array_newton`). It applies to
        serial
        runs with ``fast_assembly`` of open rods (one rod, or a structure of rods without
        joints) without rod-rod contact, zero-compliance stresses included (saddle-point
        variant); a model outside these is refused in one line naming why
        (:mod:`fxrod.solvers.backends`), a singular block during a run hands the solves to MUMPS
        with a warning. ``"auto"``: the chain solver where it applies, MUMPS elsewhere
        (without a warning). The two give the
        same Newton iterates to round-off (tests/test_chain.py). Default ``"auto"``, or the
        value of the environment variable ``FXROD_LINEAR_SOLVER`` (``mumps``, ``chain`` or
        ``auto``; read when the object is created, e.g. ``FXROD_LINEAR_SOLVER=mumps`` runs
        every default-settings solve on MUMPS; any other non-empty value raises
        :class:`fxrod.errors.ParameterError`). An explicit ``linear_solver`` wins.
    mumps_icntl : dict of int to int
        MUMPS ICNTL overrides of :data:`MUMPS_DEFAULTS`, e.g. ``{8: 77}`` restores MUMPS's
        automatic scaling. Every MUMPS factorisation of a run takes them: Newton's, and the
        analyses' on the model (continuation, modes, buckling, adjoint; these keep MUMPS's
        scaling, :mod:`fxrod.solvers.mumps`). Default: none.
    malloc_tuning : bool
        Tell glibc's allocator to keep freed large blocks when the first solver is created
        (:mod:`fxrod.native.malloc`; MUMPS allocates and frees hundreds of MB per factorisation).
        The environment variable ``FXROD_MALLOC_TUNING=0`` also turns it off. Default True.
    adaptive : bool
        Halve a step whose Newton solve fails, regrow after ``grow_after`` successes up to the
        nominal step; give up below ``h_min``. Default False.
    h_min : float or None
        Smallest step [s] (load-factor increment in statics) of adaptive stepping, > 0;
        None: the nominal step / 2**10.
    grow_after : int
        Successful steps before an adaptive step is doubled again, >= 1. Default 3.
    """

    atol: float = 1e-12
    rtol: float = 1e-14
    stol: float = 1e-13
    max_it: int = 25
    jacobian_lag: int = 8
    jacobian_persists: bool = False
    linesearch: str = "basic"
    retry_linesearch: str | None = "bt"
    predictor: str = "extrapolate"
    fast_assembly: bool = True
    fast_residual: bool = True
    linear_solver: str = field(default_factory=default_linear_solver)
    mumps_icntl: dict[int, int] = field(default_factory=dict)
    malloc_tuning: bool = True
    adaptive: bool = False
    h_min: float | None = None
    grow_after: int = 3

    def __post_init__(self) -> None:
        check_positive("atol", self.atol)
        check_positive("rtol", self.rtol)
        if not (isinstance(self.stol, int | float) and not isinstance(self.stol, bool)
                and math.isfinite(self.stol)
                and self.stol >= 0):
            raise ParameterError("stol", self.stol, ">= 0 and finite")
        for name in ("max_it", "jacobian_lag", "grow_after"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ParameterError(name, v, "an integer >= 1")
        if not isinstance(self.jacobian_persists, bool):
            raise ParameterError("jacobian_persists", self.jacobian_persists, "True or False")
        if not isinstance(self.linesearch, str) or self.linesearch not in LINE_SEARCHES:
            raise ParameterError("linesearch", self.linesearch, f"one of {LINE_SEARCHES}")
        if self.retry_linesearch is not None and (not isinstance(self.retry_linesearch, str)
                                                  or self.retry_linesearch not in LINE_SEARCHES):
            raise ParameterError("retry_linesearch", self.retry_linesearch,
                                 f"None or one of {LINE_SEARCHES}")
        if not isinstance(self.predictor, str) or self.predictor not in ("extrapolate", "plain"):
            raise ParameterError("predictor", self.predictor, "'extrapolate' or 'plain'")
        if not isinstance(self.linear_solver, str) or self.linear_solver not in LINEAR_SOLVERS:
            raise ParameterError("linear_solver", self.linear_solver,
                                 f"one of {LINEAR_SOLVERS}")
        if not isinstance(self.mumps_icntl, dict) or not all(
                isinstance(k, int) and isinstance(v, int) for k, v in self.mumps_icntl.items()):
            raise ParameterError("mumps_icntl", self.mumps_icntl, "a dict of int: int")
        if self.h_min is not None:
            check_positive("h_min", self.h_min)

    def icntl(self) -> dict[int, int]:
        """The MUMPS ICNTL values: :data:`MUMPS_DEFAULTS` updated by ``mumps_icntl``."""
        return {**MUMPS_DEFAULTS, **self.mumps_icntl}

    def replace(self, **changes) -> SolverSettings:
        """A copy with some fields changed (validated like a new object)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ParameterError("SolverSettings field", sorted(unknown),
                                 f"one of {[f.name for f in dataclasses.fields(self)]}")
        return dataclasses.replace(self, **changes)
