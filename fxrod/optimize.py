"""Optimisation over the parameters of an :class:`fxrod.adjoint.Adjoint`: the parameters as
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

from fxrod.adjoint import Adjoint
from fxrod.errors import ParameterError


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

    def __post_init__(self) -> None:
        if not isinstance(self.adjoint, Adjoint):
            raise ParameterError("adjoint", self.adjoint, "a fxrod.adjoint.Adjoint")
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
        """``(J, dJ/dx)`` at the scaled vector x (recorded in :attr:`history`)."""
        x = np.asarray(x, dtype=float).reshape(-1)
        if x.size != self.scale.size or not np.all(np.isfinite(x)):
            raise ParameterError("x", f"length {x.size}", f"{self.scale.size} finite numbers")
        J, g = self.adjoint.value_and_grad(x * self.scale)
        gx = g * self.scale
        self.history.append(Iterate(J, x * self.scale, float(np.linalg.norm(gx))))
        return J, gx

    def named(self, p) -> dict[str, float]:
        """``{name: value}`` of an unscaled flat vector."""
        return dict(zip(self.names, np.asarray(p, dtype=float).reshape(-1), strict=True))


def minimize(adjoint: Adjoint, scale=None, method: str = "L-BFGS-B",
             options: dict | None = None,
             callback: Callable[[np.ndarray], None] | None = None,
             x0: Sequence[float] | None = None):
    """Minimise the adjoint's objective from its current parameters (or the unscaled
    ``x0``) with ``scipy.optimize.minimize`` and the adjoint gradient.

    Returns scipy's ``OptimizeResult`` with ``p`` (the optimal parameters, unscaled, also
    set in the model), ``named`` (``{name: value}``) and ``history`` (every evaluation,
    :class:`Iterate`).
    """
    from scipy.optimize import minimize as scipy_minimize

    if x0 is not None:
        adjoint.set(x0)
    prob = ScaledProblem(adjoint, scale)
    res = scipy_minimize(prob.value_and_grad, prob.x0(), jac=True, method=method,
                         bounds=prob.bounds() if method in ("L-BFGS-B", "TNC", "SLSQP",
                                                            "trust-constr") else None,
                         options=options, callback=callback)
    res.p = res.x * prob.scale
    adjoint.set(res.p)
    res.named = prob.named(res.p)
    res.history = prob.history
    return res
