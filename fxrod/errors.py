"""Exceptions and parameter checks shared by every fxrod formulation.

All checks raise :class:`ParameterError` (a ``ValueError``) whose message names the
parameter, the offending value and the allowed range, so that bad input is reported
before any form is compiled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def plain(value: object) -> object:
    """``value`` with NumPy scalars and arrays turned into Python numbers and lists (also
    inside tuples, lists and dicts), so that messages and files show ``1.0``, not
    ``np.float64(1.0)``."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple | list):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    return value


def _shown(value: object, limit: int = 80) -> str:
    """``repr`` of the plain value, shortened to ``limit`` characters (one-line messages)."""
    text = repr(plain(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ParameterError(ValueError):
    """Invalid user input: names the parameter, its value and the allowed range."""

    def __init__(self, name: str, value: object, allowed: str) -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"invalid {name} = {_shown(value)}: must be {allowed}")

    def __reduce__(self):
        # picklable (sent between MPI ranks) with the constructor's own arguments
        return type(self), (self.name, self.value, self.allowed)


class CheckpointError(ValueError):
    """A checkpoint that cannot be restarted: missing, truncated, corrupt, or written by
    another problem. The message is one line naming the file and what is wrong."""

    def __init__(self, path: object, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"restart from {self.path}: {problem}")

    def __reduce__(self):
        return type(self), (self.path, self.problem)


class OutputError(OSError):
    """Writing an output file failed (disk full, directory removed or read-only, file handle
    error). The message is one line naming the path, the error and what was kept."""

    def __init__(self, path: object, error: BaseException | str, kept: str = "") -> None:
        self.path = str(path)
        self.error = error
        self.kept = kept
        reason = (error.strerror or str(error)) if isinstance(error, OSError) else str(error)
        msg = f"cannot write {self.path}: {reason}"
        super().__init__(msg + (f"; {kept}" if kept else ""))

    def __str__(self) -> str:
        return self.args[0]

    def __reduce__(self):
        e = self.error
        error = (e.strerror or str(e)) if isinstance(e, OSError) else str(e)
        return type(self), (self.path, error, self.kept)

    def with_kept(self, kept: str) -> OutputError:
        """The same error with the note of what was kept (e.g. the last checkpoint)."""
        return OutputError(self.path, self.error, kept)


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
        self.detail = detail
        msg = f"step from t = {t:.6g} with h = {h:.6g} did not converge: {reason}"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)

    def __reduce__(self):
        return type(self), (self.t, self.h, self.reason, self.detail)


def check_finite(name: str, value: float) -> float:
    """Return ``float(value)`` or raise if it is not a finite real number (strings, booleans
    and arrays are refused, not converted)."""
    if isinstance(value, str | bytes | bool | np.bool_) or np.ndim(value) != 0:
        raise ParameterError(name, value, "a finite real number")
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
    """Return ``value`` as a finite float array of the given size, or raise (strings are
    refused, not converted)."""
    if isinstance(value, str | bytes):
        raise ParameterError(name, value, f"a sequence of {size} finite numbers")
    try:
        a = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ParameterError(name, value, f"a sequence of {size} finite numbers") from None
    if a.size != size or not np.all(np.isfinite(a)):
        raise ParameterError(name, value, f"a sequence of {size} finite numbers")
    return a
