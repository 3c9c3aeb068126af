"""Loads on a Cosserat rod: end forces/moments and distributed loads (SI units).

A load is given by time functions returning 3-vectors: a force [N] (or [N/m] when
distributed) and a moment [N m] (or [N m/m]). Spatial (dead) loads act in the inertial
frame; follower (material) loads are given in the director frame and rotate with it,
``n = R(d) N_mat``. Each load contributes its power ``u . y`` (theory §1.5) to the weak form;
the same UFL expression, tested with the midpoint velocity, is the external work W_ext^n
(theory §2.3, eq. 44), so the energy balance check uses exactly the residual's terms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.kinematics import angular_velocity, rotation
from fxrod.errors import ParameterError, check_int_min, check_vector

Vec3Fun = Callable[[float], Sequence[float]]


def as_time_function(name: str, value) -> Vec3Fun | None:
    """Turn a constant 3-vector or a callable ``t -> 3-vector`` into a checked callable."""
    if value is None:
        return None
    if callable(value):
        try:
            v0 = value(0.0)
        except Exception as e:  # noqa: BLE001 - report any failure of the user callable
            raise ParameterError(name, value, f"a callable t -> 3-vector ({e})") from None
        check_vector(name, v0, 3)
        return value
    const = check_vector(name, value, 3)
    return lambda t: const


def piecewise_linear_hat(peak: float, t_rise: float, t_fall: float) -> Callable[[float], float]:
    """Scalar time function rising linearly to ``peak`` at ``t_rise`` and back to 0 at
    ``t_fall`` (the flying-spaghetti load history of theory §4.1 is ``peak = 200``,
    ``t_rise = 2.5``, ``t_fall = 5``)."""

    def f(t: float) -> float:
        if t <= 0.0:
            return 0.0
        if t <= t_rise:
            return peak * t / t_rise
        if t <= t_fall:
            return peak * (t_fall - t) / (t_fall - t_rise)
        return 0.0

    return f


def smooth_impulse(t0: float, t1: float) -> Callable[[float], float]:
    """``(1 - cos(2 pi (t - t0)/(t1 - t0)))/2`` on ``[t0, t1]``, zero elsewhere (theory §4.2)."""

    def f(t: float) -> float:
        if t < t0 or t > t1:
            return 0.0
        return 0.5 * (1.0 - np.cos(2.0 * np.pi * (t - t0) / (t1 - t0)))

    return f


class Load:
    """Base class of a load: owns UFL constants updated at every evaluation time."""

    def setup(self, ctx) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def update(self, t: float) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    @property
    def constants(self) -> dict[str, fem.Constant]:
        """The UFL Constants the load enters the residual through, by input name (empty
        before the model is built): what gradients with respect to the load differentiate
        (:mod:`fxrod.analysis.adjoint`). Read-only: the load sets their values at every step."""
        return {}

    def power(self, ctx, w_phi, w_d):  # pragma: no cover - interface
        """UFL form ``u . y(w)``: the load's power on the velocity ``w = (w_phi, w_d)``."""
        raise NotImplementedError


class _ForceMoment(Load):
    def __init__(self, force=None, moment=None, follower: bool = False) -> None:
        self.force = as_time_function("force", force)
        self.moment = as_time_function("moment", moment)
        if self.force is None and self.moment is None:
            raise ParameterError("force/moment", None, "at least one of force or moment given")
        self.follower = bool(follower)
        self._n = None
        self._m = None

    def setup(self, ctx) -> None:
        self._n = fem.Constant(ctx.mesh, np.zeros(3))
        self._m = fem.Constant(ctx.mesh, np.zeros(3))

    @property
    def constants(self) -> dict[str, fem.Constant]:
        """``{"force": n [N or N/m], "moment": m [N m or N m/m]}`` (empty before setup)."""
        return {} if self._n is None else {"force": self._n, "moment": self._m}

    def update(self, t: float) -> None:
        if self.force is not None:
            self._n.value[:] = check_vector("force", self.force(t), 3)
        if self.moment is not None:
            self._m.value[:] = check_vector("moment", self.moment(t), 3)

    def _density(self, ctx, w_phi, w_d, scale=1.0):
        d = ctx.d_eval
        n, m = self._n * scale, self._m * scale
        if self.follower:
            R = rotation(d)
            n, m = R * n, R * m
        return ufl.dot(n, w_phi) + ufl.dot(m, angular_velocity(d, w_d))


class EndLoad(_ForceMoment):
    """Point force [N] and moment [N m] at an end of the rod.

    Parameters
    ----------
    end : {"L", "0"}
        Which end: ``s = L`` (default) or ``s = 0``.
    force, moment : 3-vector or callable ``t -> 3-vector``, optional
        Spatial (dead) load, or material components when ``follower`` is true.
    follower : bool
        Treat force and moment as material (follower) loads ``n = R N_mat``.
    rod : int
        Index of the rod in a :class:`fxrod.core.structure.Structure` (default 0).
    """

    def __init__(self, end: str = "L", force=None, moment=None, follower: bool = False,
                 *, rod: int = 0) -> None:
        if end not in ("L", "0"):
            raise ParameterError("end", end, "'L' or '0'")
        self.end = end
        self.rod = check_int_min("rod", rod, 0)
        super().__init__(force, moment, follower)

    def power(self, ctx, w_phi, w_d):
        return self._density(ctx, w_phi, w_d) * ctx.ds_end(self.end, self.rod)


class DistributedLoad(_ForceMoment):
    """Uniform force [N/m] and moment [N m/m] per unit length along the whole rod."""

    def power(self, ctx, w_phi, w_d):
        return self._density(ctx, w_phi, w_d) * ctx.dx


class Gravity(Load):
    """Gravity: the distributed dead force ``rhoA g`` [N/m] (and ``m g`` [N] at the centre of
    every free body, :mod:`fxrod.core.freebody`).

    Parameters
    ----------
    g : 3-vector or callable ``t -> 3-vector``
        The acceleration of gravity [m/s^2], constant or a function of time [s] (of the load
        factor in quasi-static stepping, e.g. ``lambda t: (0, 0, -9.81 * t)`` to ramp it).
    """

    def __init__(self, g=(0.0, 0.0, -9.81)) -> None:
        if g is None:
            raise ParameterError("g", None, "a 3-vector or a callable t -> 3-vector [m/s^2]")
        self.g = as_time_function("g", g)
        self._g = None

    def setup(self, ctx) -> None:
        self._g = fem.Constant(ctx.mesh, np.asarray(self.g(0.0), dtype=float))

    def update(self, t: float) -> None:
        self._g.value[:] = check_vector("g", self.g(t), 3)

    @property
    def constants(self) -> dict[str, fem.Constant]:
        """``{"g": g [m/s^2]}`` (empty before setup)."""
        return {} if self._g is None else {"g": self._g}

    def power(self, ctx, w_phi, w_d):
        P = ctx.rhoA * ufl.dot(self._g, w_phi) * ctx.dx
        for m, ds in getattr(ctx, "point_masses", ()):   # free bodies: m g at the centre
            P = P + m * ufl.dot(self._g, w_phi) * ds
        return P
