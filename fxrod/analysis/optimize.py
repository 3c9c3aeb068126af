"""Optimisation over the parameters of an :class:`fxrod.analysis.adjoint.Adjoint`: the parameters as
one flat vector with names and bounds, scaled to O(1), ``value_and_grad``, and a bridge to
``scipy.optimize.minimize`` (L-BFGS-B by default) that records every iterate.

The optimiser sees ``x = p / scale`` (``scale``: per value, default the magnitude of the
starting values, 1 where they are zero), so that moduli [Pa] and densities [kg/m^3] are
equally well conditioned; bounds are scaled alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from fxrod.analysis.adjoint import Adjoint
from fxrod.errors import ConvergenceError, ParameterError

#: Objective of a failed forward run, relative to the largest one seen (line search backs off).
FAILED_FACTOR = 1e3


@dataclass
class Iterate:
    """One evaluation: objective ``J``, parameters ``p`` (unscaled), gradient norm of the
    scaled problem ``grad_norm``."""

    J: float
    p: np.ndarray
    grad_norm: float


@dataclass
class ScaledProblem:
    """The adjoint's objective as a function of the scaled flat vector ``x = p / scale``.

    Parameters
    ----------
    adjoint : Adjoint
        The objective, parameters and forward run.
    scale : array, optional
        Scale of every value (default ``|p0|``, 1 where zero).
    """

    adjoint: Adjoint
    scale: np.ndarray | None = None
    history: list[Iterate] = field(default_factory=list)
    failures: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.adjoint, Adjoint):
            raise ParameterError("adjoint", self.adjoint, "a fxrod.analysis.adjoint.Adjoint")
        names = self.names
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ParameterError("parameter names", dup, "unique names")
        p0 = self.adjoint.get()
        if self.scale is None:
            self.scale = np.where(p0 != 0.0, np.abs(p0), 1.0)
        self.scale = np.asarray(self.scale, dtype=float).reshape(-1)
        if self.scale.size != p0.size or np.any(~np.isfinite(self.scale)) \
                or np.any(self.scale <= 0):
            raise ParameterError("scale", self.scale, f"{p0.size} positive finite numbers")

    @property
    def names(self) -> list[str]:
        """Names of the values, in the order of the flat vector."""
        return [n for p in self.adjoint.parameters for n in p.names]

    def index(self, name: str) -> int:
        """Position of the value called ``name`` in the flat vector."""
        names = self.names
        if name not in names:
            raise ParameterError("parameter name", name, f"one of {names}")
        return names.index(name)

    def bounds(self) -> list[tuple[float | None, float | None]]:
        """Bounds of the scaled values (None: unbounded) for ``scipy.optimize``."""
        lo = np.concatenate([p.bounds()[0] for p in self.adjoint.parameters]) / self.scale
        hi = np.concatenate([p.bounds()[1] for p in self.adjoint.parameters]) / self.scale
        return [(None if math.isinf(a) else float(a), None if math.isinf(b) else float(b))
                for a, b in zip(lo, hi, strict=True)]

    def x0(self) -> np.ndarray:
        """The current parameters, scaled."""
        return self.adjoint.get() / self.scale

    def value_and_grad(self, x) -> tuple[float, np.ndarray]:
        """``(J, dJ/dx)`` at the scaled vector x (recorded in :attr:`history`).

        A forward run whose Newton solve fails (a trial point too far out for the time
        step) returns ``FAILED_FACTOR`` times the largest objective seen so far with a zero
        gradient, so that the line search backtracks (counted in :attr:`failures`); a
        failure at the first evaluation is raised."""
        x = np.asarray(x, dtype=float).reshape(-1)
        if x.size != self.scale.size or not np.all(np.isfinite(x)):
            raise ParameterError("x", f"length {x.size}", f"{self.scale.size} finite numbers")
        try:
            J, g = self.adjoint.value_and_grad(x * self.scale)
        except ConvergenceError:
            if not self.history:
                raise
            self.failures += 1
            return FAILED_FACTOR * max(abs(it.J) for it in self.history), np.zeros_like(x)
        gx = g * self.scale
        self.history.append(Iterate(J, x * self.scale, float(np.linalg.norm(gx))))
        return J, gx

    def named(self, p) -> dict[str, float]:
        """``{name: value}`` of an unscaled flat vector."""
        return dict(zip(self.names, np.asarray(p, dtype=float).reshape(-1), strict=True))


def minimize(adjoint: Adjoint, scale=None, method: str = "L-BFGS-B",
             options: dict | None = None,
             callback: Callable | None = None,
             x0: Sequence[float] | None = None, problem: ScaledProblem | None = None):
    """Minimise the adjoint's objective from its current parameters (or the unscaled
    ``x0``) with ``scipy.optimize.minimize`` and the adjoint gradient; ``callback`` as
    scipy's (after every iteration); ``problem``: a :class:`ScaledProblem` of ``adjoint``
    to use (its scale and history; ``scale`` is then ignored).

    Returns scipy's ``OptimizeResult`` with ``p`` (the optimal parameters, unscaled, also
    set in the model), ``named`` (``{name: value}``), ``history`` (every evaluation,
    :class:`Iterate`) and ``failures`` (forward runs whose Newton solve failed, see
    :meth:`ScaledProblem.value_and_grad`).
    """
    from scipy.optimize import minimize as scipy_minimize

    if x0 is not None:
        adjoint.set(x0)
    if problem is not None and problem.adjoint is not adjoint:
        raise ParameterError("problem", problem, "a ScaledProblem of the same adjoint")
    prob = ScaledProblem(adjoint, scale) if problem is None else problem
    res = scipy_minimize(prob.value_and_grad, prob.x0(), jac=True, method=method,
                         bounds=prob.bounds() if method in ("L-BFGS-B", "TNC", "SLSQP",
                                                            "trust-constr") else None,
                         options=options, callback=callback)
    res.p = res.x * prob.scale
    adjoint.set(res.p)
    res.named = prob.named(res.p)
    res.history, res.failures = prob.history, prob.failures
    return res


def hessian(adjoint: Adjoint, x=None, rel_step: float = 1e-4) -> np.ndarray:
    """Hessian ``d^2 J/dp^2`` at the unscaled parameters ``x`` (default the current ones)
    by central differences of the adjoint gradient: ``2 n`` gradients for ``n`` values,
    steps ``rel_step |x_i|`` (``rel_step`` where x_i = 0); symmetrised. Units: J per
    (parameter unit)^2. For a few parameters (identification), not for input histories.
    """
    x = adjoint.get() if x is None else np.asarray(x, dtype=float).reshape(-1)
    if x.size != adjoint.get().size or not np.all(np.isfinite(x)):
        raise ParameterError("x", f"length {x.size}", f"{adjoint.get().size} finite numbers")
    if not (math.isfinite(rel_step) and 0.0 < rel_step < 1.0):
        raise ParameterError("rel_step", rel_step, "a number in (0, 1)")
    H = np.zeros((x.size, x.size))
    for i in range(x.size):
        e = rel_step * (abs(x[i]) if x[i] != 0.0 else 1.0)
        xp, xm = x.copy(), x.copy()
        xp[i] += e
        xm[i] -= e
        H[:, i] = (adjoint.value_and_grad(xp)[1] - adjoint.value_and_grad(xm)[1]) / (2 * e)
    adjoint.set(x)
    return 0.5 * (H + H.T)


def least_squares_confidence(J: float, H: np.ndarray, n_residuals: int,
                             weight: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Standard deviations and correlation matrix of least-squares estimates from the
    curvature at the optimum: for ``J = weight * sum r_i^2`` over ``n_residuals`` values
    and ``p`` parameters, residual variance ``s^2 = J/(weight (n_residuals - p))`` and
    covariance ``2 s^2 weight H^-1`` (the Gauss-Newton/Laplace approximation; units of
    the parameters). Raises ParameterError unless H is symmetric positive definite."""
    H = np.asarray(H, dtype=float)
    p = H.shape[0]
    if H.shape != (p, p) or n_residuals <= p or not math.isfinite(J) or J < 0:
        raise ParameterError("H, n_residuals", (H.shape, n_residuals),
                             "a square Hessian and more residuals than parameters")
    lam = np.linalg.eigvalsh(H)
    if lam[0] <= 0.0:
        raise ParameterError("H", lam, "positive definite (a minimum)")
    cov = 2.0 * J / (n_residuals - p) * np.linalg.inv(H)
    std = np.sqrt(np.diag(cov))
    return std, cov / np.outer(std, std)
