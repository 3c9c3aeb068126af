"""Rigid obstacles for contact: signed-distance functions in UFL (SI units, metres).

An obstacle is a signed distance ``g(x)`` [m] from its surface (positive outside, negative
inside) written in UFL, so the contact terms of :mod:`fxrod.core.forms.contact` evaluate it, and
differentiate it, at the quadrature points of the rod. It may translate along a prescribed
displacement ``u(t)`` [m] (``u(0) = 0``); then ``g(x, t) = g(x - u(t))``.

* :class:`HalfSpace` -- the ground, or any plane: ``g = n . (x - p)``;
* :class:`Sphere` -- ``g = |x - c| - R``;
* :class:`Cylinder` -- infinite (``length=None``) ``g = |P_perp (x - p)| - R``, or finite
  with flat caps (the exact capped-cylinder distance);
* :class:`SignedDistance` -- a user callable ``x -> g`` built from UFL operators.

Every obstacle can also be evaluated at points as numbers (:meth:`Obstacle.distance_at`),
through UFL's own evaluation of the same expression: the checks before a run (no overlap
with the rod at t = 0, finite values) use exactly what the forms use.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import basix.ufl
import numpy as np
import ufl

from fxrod.core.loads import as_time_function
from fxrod.errors import ParameterError, check_positive, check_vector

#: Added to squared norms under square roots [m^2]: the distance shifts by 1e-15 m at most
#: and its UFL derivative stays finite at a zero vector (the axis of a cylinder, a corner).
_TINY2 = 1e-30


def safe_norm(v):
    """``sqrt(v . v + 1e-30)``: a norm [m] with a finite UFL derivative at ``v = 0``."""
    return ufl.sqrt(ufl.dot(v, v) + _TINY2)


def _unit(name: str, v) -> np.ndarray:
    a = check_vector(name, v, 3)
    n = float(np.linalg.norm(a))
    if n == 0.0:
        raise ParameterError(name, tuple(a), "a non-zero vector")
    return a / n


class Obstacle:
    """A rigid obstacle given by its signed distance, optionally translating.

    Parameters
    ----------
    motion : 3-vector or callable ``t -> 3-vector``, optional
        Displacement ``u(t)`` [m] of the obstacle from its pose at t = 0 (time t in s, or
        the load factor in a quasi-static model); ``u(0) = 0``. None: fixed.
    """

    def __init__(self, motion=None) -> None:
        self.motion = as_time_function("motion", motion)
        if self.motion is not None and np.any(np.asarray(self.motion(0.0), float) != 0.0):
            raise ParameterError("motion(0)", tuple(self.motion(0.0)), "(0, 0, 0)")
        self._point_expr = None

    @property
    def moving(self) -> bool:
        """Whether the obstacle has a prescribed motion."""
        return self.motion is not None

    def displacement(self, t: float) -> np.ndarray:
        """``u(t)`` [m] (zero for a fixed obstacle)."""
        if self.motion is None:
            return np.zeros(3)
        return check_vector(f"obstacle motion at t = {t:.6g}", self.motion(t), 3)

    def distance(self, x):
        """Signed distance [m] of the point ``x`` (a UFL 3-vector) in the pose at t = 0."""
        raise NotImplementedError

    def distance_at(self, points: np.ndarray) -> np.ndarray:
        """Signed distances [m] at the points ``(n, 3)`` in the pose at t = 0 (numbers, by
        UFL's evaluation of :meth:`distance`; about 2 ms a point)."""
        if self._point_expr is None:
            dom = ufl.Mesh(basix.ufl.element("Lagrange", "tetrahedron", 1, shape=(3,)))
            self._point_expr = self.distance(ufl.SpatialCoordinate(dom))
        out = np.empty(len(points))
        with warnings.catch_warnings():      # UFL warns, then returns nan: reported by NaN
            warnings.simplefilter("ignore", UserWarning)
            for i, p in enumerate(np.asarray(points, dtype=float)):
                try:
                    out[i] = float(self._point_expr(tuple(p)))
                except (ValueError, ZeroDivisionError, OverflowError):
                    out[i] = np.nan
        return out


class HalfSpace(Obstacle):
    """The half-space ``n . (x - p) <= 0`` (the ground for ``n = e3``).

    Parameters
    ----------
    point : 3-vector
        A point of the bounding plane [m].
    normal : 3-vector
        Outward normal (pointing away from the solid; normalised).
    motion : see :class:`Obstacle`.
    """

    def __init__(self, point: Sequence[float] = (0.0, 0.0, 0.0),
                 normal: Sequence[float] = (0.0, 0.0, 1.0), motion=None) -> None:
        self.point = check_vector("point", point, 3)
        self.normal = _unit("normal", normal)
        super().__init__(motion)

    def distance(self, x):
        return ufl.dot(ufl.as_vector(self.normal.tolist()), x - ufl.as_vector(self.point.tolist()))


class Sphere(Obstacle):
    """A solid sphere of radius ``radius`` [m] about ``centre`` [m]."""

    def __init__(self, centre: Sequence[float], radius: float, motion=None) -> None:
        self.centre = check_vector("centre", centre, 3)
        self.radius = check_positive("radius", radius)
        super().__init__(motion)

    def distance(self, x):
        return safe_norm(x - ufl.as_vector(self.centre.tolist())) - self.radius


class Cylinder(Obstacle):
    """A solid circular cylinder.

    Parameters
    ----------
    point : 3-vector
        A point of the axis [m] (the centre of a finite cylinder).
    axis : 3-vector
        Direction of the axis (normalised).
    radius : float
        Radius [m], > 0.
    length : float, optional
        Length [m] of a finite cylinder with flat caps, > 0; None: infinite.
    motion : see :class:`Obstacle`.
    """

    def __init__(self, point: Sequence[float], axis: Sequence[float], radius: float,
                 length: float | None = None, motion=None) -> None:
        self.point = check_vector("point", point, 3)
        self.axis = _unit("axis", axis)
        self.radius = check_positive("radius", radius)
        self.length = None if length is None else check_positive("length", length)
        super().__init__(motion)

    def distance(self, x):
        e = ufl.as_vector(self.axis.tolist())
        y = x - ufl.as_vector(self.point.tolist())
        a = ufl.dot(e, y)
        dr = safe_norm(y - a * e) - self.radius
        if self.length is None:
            return dr
        da = abs(a) - 0.5 * self.length
        outside = ufl.as_vector([ufl.max_value(dr, 0.0), ufl.max_value(da, 0.0)])
        return ufl.min_value(ufl.max_value(dr, da), 0.0) + safe_norm(outside)


class SignedDistance(Obstacle):
    """A user obstacle: ``fn(x) -> g`` [m] built from UFL operators (``ufl.sqrt``,
    ``ufl.dot``, ``ufl.max_value``, ``ufl.conditional``, ...) on the UFL 3-vector ``x``,
    positive outside the solid; a true distance near the surface (``|grad g| = 1``) so that
    the penalty stiffness keeps its meaning.
    """

    def __init__(self, fn: Callable, motion=None) -> None:
        dom = ufl.Mesh(basix.ufl.element("Lagrange", "tetrahedron", 1, shape=(3,)))
        try:
            g = fn(ufl.SpatialCoordinate(dom))
            shape = ufl.as_ufl(g).ufl_shape
        except Exception as e:  # noqa: BLE001 - report any failure of the user callable
            raise ParameterError("signed distance", fn,
                                 f"a callable x -> scalar UFL expression ({e})") from None
        if shape != ():
            raise ParameterError("signed distance", shape, "a scalar UFL expression")
        self.fn = fn
        super().__init__(motion)

    def distance(self, x):
        return ufl.as_ufl(self.fn(x))
