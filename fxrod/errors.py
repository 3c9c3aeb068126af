"""Exceptions and parameter checks shared by every fxrod formulation.

All checks raise :class:`ParameterError` (a ``ValueError``) whose message names the
parameter, the offending value and the allowed range, so that bad input is reported
before any form is compiled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


class ParameterError(ValueError):
    """Invalid user input: names the parameter, its value and the allowed range."""

    def __init__(self, name: str, value: object, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"invalid {name} = {value!r}: must be {allowed}")


class ConvergenceError(RuntimeError):
    """A nonlinear step did not converge.

    Parameters
    ----------
    t : float
        Time (or load factor) at the start of the failed step.
    h : float
        Step size of the failed step.
    reason : str
        Solver's reason (e.g. the PETSc SNES converged reason).
    """

    def __init__(self, t: float, h: float, reason: str, detail: str = "") -> None:
        self.t = t
        self.h = h
        self.reason = reason
        msg = f"step from t = {t:.6g} with h = {h:.6g} did not converge: {reason}"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


def check_finite(name: str, value: float) -> float:
    """Return ``float(value)`` or raise if it is not a finite real number."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(name, value, "a finite real number") from None
    if not math.isfinite(v):
        raise ParameterError(name, value, "a finite real number")
    return v


def check_positive(name: str, value: float) -> float:
    """Return ``float(value)`` or raise unless ``0 < value < inf``."""
    v = check_finite(name, value)
    if v <= 0.0:
        raise ParameterError(name, value, "> 0")
    return v


def check_nonnegative(name: str, value: float) -> float:
    """Return ``float(value)`` or raise unless ``0 <= value < inf``."""
    v = check_finite(name, value)
    if v < 0.0:
        raise ParameterError(name, value, ">= 0")
    return v


def check_range(
    name: str,
    value: float,
    lo: float,
    hi: float,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """Return ``float(value)`` or raise unless it lies in the interval from lo to hi."""
    v = check_finite(name, value)
    bad = (v < lo or (lo_open and v == lo)) or (v > hi or (hi_open and v == hi))
    if bad:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        raise ParameterError(name, value, f"in {left}{lo}, {hi}{right}")
    return v


def check_int_min(name: str, value: int, minimum: int) -> int:
    """Return ``int(value)`` or raise unless it is an integer >= minimum."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ParameterError(name, value, f"an integer >= {minimum}")
    if value < minimum:
        raise ParameterError(name, value, f"an integer >= {minimum}")
    return int(value)


def check_vector(name: str, value: Sequence[float], size: int) -> np.ndarray:
    """Return ``value`` as a finite float array of the given size, or raise."""
    try:
        a = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ParameterError(name, value, f"a sequence of {size} finite numbers") from None
    if a.size != size or not np.all(np.isfinite(a)):
        raise ParameterError(name, value, f"a sequence of {size} finite numbers")
    return a
