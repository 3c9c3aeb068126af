"""Reference geometry of a rod: a centreline ``phi0(s)`` and a director frame
``R0(s) = [d1 d2 d3]`` over the arc length ``s in [0, L]`` (SI units, metres).

The rod's stress-free reference is any such curve; the finite-element nodes are placed on
the exact curve and the reference strains are those of the discrete reference, so the
unloaded reference is an equilibrium to round-off (theory §1.2). Constructors:

* :class:`Straight` -- a segment from ``start`` to ``end`` with a first director ``d1``;
* :class:`Arc` -- a circular arc in a plane (Bishop frame: ``d1`` the constant binormal);
* :class:`Circle` -- a closed ring (a closed rod: its ends are joined, theory §2.7);
* :class:`Helix` -- a circular helix, with parallel-transport (Bishop) or Frenet frames;
* :class:`Spline` -- a smooth (C2) cubic spline through points, arc-length parametrised,
  with a parallel-transport frame from an initial ``d1``;
* :class:`CurveFunction` -- any callable ``s -> (phi0(s), R0(s))`` with its length.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from fxrod.errors import ParameterError, check_positive, check_vector

#: Tolerance of the orthonormality and tangency checks of user frames.
FRAME_TOL = 1e-10


def _unit(name: str, v, size: int = 3) -> np.ndarray:
    a = check_vector(name, v, size)
    if not np.any(a):
        raise ParameterError(name, tuple(a), "a non-zero vector")
    return _direction(a)


def _direction(v: np.ndarray) -> np.ndarray:
    """The unit vector of a non-zero ``v``; tiny or huge vectors are scaled first, so that
    their norm does not under- or overflow (found by the fuzz tests)."""
    n = float(np.linalg.norm(v))
    if 1e-150 < n < 1e150:
        return v / n
    u = v / np.max(np.abs(v))
    return u / np.linalg.norm(u)


def _frame(d1: np.ndarray, d3: np.ndarray) -> np.ndarray:
    """Frames ``(n, 3, 3)`` with columns d1, d2 = d3 x d1, d3."""
    return np.stack([d1, np.cross(d3, d1), d3], axis=-1)


def _rodrigues(v: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rotate the vectors v (n, 3) by the smallest rotation taking unit a to unit b (n, 3)."""
    c = np.einsum("ij,ij->i", a, b)
    k = np.cross(a, b)
    return (v * c[:, None] + np.cross(k, v)
            + k * (np.einsum("ij,ij->i", k, v) / (1.0 + c))[:, None])


class Curve:
    """A reference centreline with its director frame.

    Attributes
    ----------
    length : float
        Arc length L [m].
    """

    length: float
    #: A closed curve (a ring): ``phi0(L) = phi0(0)`` and ``R0(L) = R0(0)``; the rod's two
    #: ends are one material point, joined rigidly by the model.
    closed: bool = False

    def evaluate(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions ``(n, 3)`` [m] and frames ``(n, 3, 3)`` (columns d1, d2, d3) at s."""
        raise NotImplementedError

    def configuration(self, s) -> np.ndarray:
        """Nodal values ``q = (phi, d1, d2, d3)``, shape ``(len(s), 12)``, at arc lengths s."""
        s = np.asarray(s, dtype=float).reshape(-1)
        phi, R = self.evaluate(s)
        return np.concatenate([phi, R[:, :, 0], R[:, :, 1], R[:, :, 2]], axis=1)


class Straight(Curve):
    """The segment from ``start`` to ``end`` [m]; ``d3`` along it, ``d1`` given (normalised,
    orthogonal to ``end - start``), ``d2 = d3 x d1``."""

    def __init__(self, start: Sequence[float], end: Sequence[float],
                 d1: Sequence[float]) -> None:
        self.start = check_vector("start", start, 3)
        self.end = b = check_vector("end", end, 3)
        d = b - self.start
        self.length = float(np.linalg.norm(d))
        if not self.length > 0.0:
            raise ParameterError("length", self.length, "> 0 (start and end must differ)")
        self.d3 = _direction(d)
        d1 = check_vector("d1", d1, 3)
        if not np.any(d1):
            raise ParameterError("d1", tuple(d1), "a non-zero vector orthogonal to end - start")
        d1 = _direction(d1)
        if abs(float(np.dot(d1, self.d3))) > 1e-10:
            raise ParameterError("d1", tuple(d1), "orthogonal to end - start (|d1.d3| <= 1e-10)")
        self.d1 = d1

    def evaluate(self, s):
        s = np.asarray(s, dtype=float).reshape(-1)
        phi = self.start[None, :] + np.outer(s, self.d3)
        R = np.broadcast_to(_frame(self.d1[None], self.d3[None]), (s.size, 3, 3))
        return phi, R.copy()


class Arc(Curve):
    """Circular arc of ``radius`` [m] through ``angle`` [rad], starting at ``start`` with the
    unit tangent ``tangent``, bending towards ``towards_centre`` (the centre is at
    ``start + radius * towards_centre``). Frame: ``d3`` the tangent, ``d1`` the constant
    binormal ``tangent x towards_centre`` (the Bishop frame of a plane curve), ``d2 = d3 x d1``
    (pointing away from the centre)."""

    def __init__(self, radius: float, angle: float, start=(0.0, 0.0, 0.0),
                 tangent=(1.0, 0.0, 0.0), towards_centre=(0.0, 1.0, 0.0)) -> None:
        self.radius = check_positive("radius", radius)
        self.angle = check_positive("angle", angle)
        if self.angle > 2.0 * np.pi:
            raise ParameterError("angle", angle, "in (0, 2 pi] rad")
        self.start = check_vector("start", start, 3)
        self.t = _unit("tangent", tangent)
        n = _unit("towards_centre", towards_centre)
        if abs(float(np.dot(self.t, n))) > 1e-10:
            raise ParameterError("towards_centre", tuple(n), "orthogonal to the tangent")
        self.n = n
        self.b = np.cross(self.t, n)
        self.length = self.radius * self.angle

    def evaluate(self, s):
        s = np.asarray(s, dtype=float).reshape(-1)
        a = s / self.radius
        phi = (self.start[None] + self.radius * (np.outer(np.sin(a), self.t)
                                                 + np.outer(1.0 - np.cos(a), self.n)))
        d3 = np.outer(np.cos(a), self.t) + np.outer(np.sin(a), self.n)
        d1 = np.broadcast_to(self.b, d3.shape)
        return phi, _frame(d1, d3)


class Circle(Curve):
    """Closed circular ring of ``radius`` [m] about ``centre`` in the plane normal to
    ``normal``, starting at ``centre + radius * start_direction`` and running
    counter-clockwise about ``normal``. Frame: ``d3`` the tangent, ``d1 = normal`` (the
    Bishop frame of a plane curve, closed), ``d2 = d3 x d1`` (the outward radial
    direction)."""

    closed = True

    def __init__(self, radius: float, centre=(0.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0),
                 start_direction=(1.0, 0.0, 0.0)) -> None:
        self.radius = check_positive("radius", radius)
        self.centre = check_vector("centre", centre, 3)
        self.normal = _unit("normal", normal)
        e = _unit("start_direction", start_direction)
        if abs(float(np.dot(e, self.normal))) > 1e-10:
            raise ParameterError("start_direction", tuple(e), "orthogonal to the normal")
        self.e1, self.e2 = e, np.cross(self.normal, e)
        self.length = 2.0 * np.pi * self.radius

    def evaluate(self, s):
        s = np.asarray(s, dtype=float).reshape(-1)
        a = s / self.radius
        c, sn = np.cos(a)[:, None], np.sin(a)[:, None]
        phi = self.centre[None] + self.radius * (c * self.e1 + sn * self.e2)
        d3 = -sn * self.e1 + c * self.e2
        return phi, _frame(np.broadcast_to(self.normal, d3.shape), d3)


class Helix(Curve):
    """Circular helix about ``e3`` through the origin side: ``phi = (r cos u, r sin u, c u)``
    with ``c = pitch / (2 pi)``, ``u = s / sqrt(r^2 + c^2)`` over ``turns`` turns.

    ``frame="bishop"`` (default): the parallel-transport frame (no twist about the tangent),
    starting from the principal normal at s = 0; ``"frenet"``: ``d1`` the principal normal
    (it twists with the helix's torsion ``c / (r^2 + c^2)``).
    """

    def __init__(self, radius: float, pitch: float, turns: float,
                 frame: str = "bishop") -> None:
        self.radius = check_positive("radius", radius)
        self.c = float(pitch) / (2.0 * np.pi)
        if not np.isfinite(self.c):
            raise ParameterError("pitch", pitch, "a finite number [m]")
        self.turns = check_positive("turns", turns)
        if frame not in ("bishop", "frenet"):
            raise ParameterError("frame", frame, "'bishop' or 'frenet'")
        self.kind = frame
        self.a = np.hypot(self.radius, self.c)
        self.length = 2.0 * np.pi * self.turns * self.a
        self.torsion = self.c / self.a**2

    def evaluate(self, s):
        s = np.asarray(s, dtype=float).reshape(-1)
        u = s / self.a
        r, c, a = self.radius, self.c, self.a
        phi = np.column_stack([r * np.cos(u), r * np.sin(u), c * u])
        T = np.column_stack([-r * np.sin(u), r * np.cos(u), np.full_like(u, c)]) / a
        N = np.column_stack([-np.cos(u), -np.sin(u), np.zeros_like(u)])
        B = np.cross(T, N)
        if self.kind == "frenet":
            return phi, _frame(N, T)
        th = self.torsion * s          # Bishop: N, B rotated back by the accumulated twist
        d1 = np.cos(th)[:, None] * N - np.sin(th)[:, None] * B
        return phi, _frame(d1, T)


class Spline(Curve):
    """C2 cubic spline through ``points`` (``(m, 3)``, m >= 2) [m], parametrised by arc
    length, with a parallel-transport (Bishop) frame starting from ``d1`` (projected
    orthogonal to the initial tangent).

    The arc length is integrated with 16-point Gauss-Legendre on each of ``resolution``
    sub-intervals; the frame is transported by the rotation-minimising double reflection
    over the same grid (error O(resolution^-4) in the frame).
    """

    def __init__(self, points, d1=(0.0, 0.0, 1.0), resolution: int = 4096) -> None:
        from scipy.interpolate import CubicSpline

        P = np.asarray(points, dtype=float)
        if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 2 or not np.all(np.isfinite(P)):
            raise ParameterError("points", P.shape, "a finite (m, 3) array with m >= 2")
        chord = np.linalg.norm(np.diff(P, axis=0), axis=1)
        if np.any(chord <= 0.0):
            raise ParameterError("points", "repeated consecutive points", "distinct points")
        u = np.concatenate([[0.0], np.cumsum(chord)])
        self._spline = CubicSpline(u, P, bc_type="natural" if len(P) > 2 else "not-a-knot")
        self._dspline = self._spline.derivative()
        # arc length s(u) on a fine grid, Gauss-Legendre per sub-interval
        ug = np.linspace(0.0, u[-1], int(resolution) + 1)
        x, w = np.polynomial.legendre.leggauss(16)
        mid, half = 0.5 * (ug[1:] + ug[:-1]), 0.5 * np.diff(ug)
        speed = np.linalg.norm(self._dspline((mid[:, None] + half[:, None] * x).ravel()),
                               axis=1).reshape(-1, 16)
        self._ug = ug
        self._sg = np.concatenate([[0.0], np.cumsum(half * (speed @ w))])
        self.length = float(self._sg[-1])
        T = self._tangent(ug)
        d = _unit("d1", d1)
        d = d - np.dot(d, T[0]) * T[0]
        if np.linalg.norm(d) < 1e-8:
            raise ParameterError("d1", tuple(d1), "not parallel to the initial tangent")
        frames = np.empty_like(T)
        frames[0] = d / np.linalg.norm(d)
        for i in range(len(ug) - 1):      # rotation-minimising transport
            frames[i + 1] = _rodrigues(frames[i:i + 1], T[i:i + 1], T[i + 1:i + 2])[0]
        self._d1g = frames

    def _tangent(self, u: np.ndarray) -> np.ndarray:
        t = self._dspline(u)
        return t / np.linalg.norm(t, axis=1)[:, None]

    def _u_of_s(self, s: np.ndarray) -> np.ndarray:
        from scipy.optimize import brentq

        out = np.empty_like(s)
        for k, sk in enumerate(s):
            i = int(np.clip(np.searchsorted(self._sg, sk) - 1, 0, len(self._sg) - 2))
            lo, hi = self._ug[i], self._ug[i + 1]
            s_lo = self._sg[i]
            x, w = np.polynomial.legendre.leggauss(16)

            def f(uu, lo=lo, s_lo=s_lo, sk=sk, x=x, w=w):
                half = 0.5 * (uu - lo)
                v = np.linalg.norm(self._dspline(lo + half * (x + 1.0)), axis=1)
                return s_lo + half * (v @ w) - sk
            out[k] = lo if sk <= s_lo else brentq(f, lo, hi, xtol=1e-15, rtol=1e-15)
        return out

    def evaluate(self, s):
        s = np.clip(np.asarray(s, dtype=float).reshape(-1), 0.0, self.length)
        u = self._u_of_s(s)
        T = self._tangent(u)
        i = np.clip(np.searchsorted(self._ug, u) - 1, 0, len(self._ug) - 2)
        d1 = _rodrigues(self._d1g[i], self._tangent(self._ug[i]), T)
        return self._spline(u), _frame(d1 / np.linalg.norm(d1, axis=1)[:, None], T)


def _turning(fn: Callable, length: float, n: int) -> tuple[float, float]:
    """Largest turning angle [rad] between successive chords of ``n`` equal parameter steps,
    and the largest deviation of a chord's length from the step (arc-length parameter)."""
    s = np.linspace(0.0, length, n + 1)
    d = np.diff(np.asarray(fn(s)[0], dtype=float), axis=0)
    ds = length / n
    norm = np.linalg.norm(d, axis=1)
    t = d / np.maximum(norm, 1e-300)[:, None]
    cosang = np.clip(np.einsum("ij,ij->i", t[1:], t[:-1]), -1.0, 1.0)
    return float(np.max(np.arccos(cosang), initial=0.0)), float(np.max(np.abs(norm / ds - 1)))


class CurveFunction(Curve):
    """A user curve: ``fn(s) -> (phi0, R0)`` with ``s`` an array (n,) [m], ``phi0`` (n, 3)
    [m] and ``R0`` (n, 3, 3) orthonormal frames (columns d1, d2, d3, det = +1), over
    ``[0, length]``, with s the arc length. Checked on 201 points before use, and C1: the
    turning angle between successive chords must shrink under refinement (a kink keeps it).
    ``closed=True`` declares a ring (its ends must meet)."""

    def __init__(self, fn: Callable, length: float, closed: bool = False) -> None:
        self.length = check_positive("length", length)
        self._fn = fn
        self.closed = bool(closed)
        s = np.linspace(0.0, self.length, 201)
        try:
            phi, R = fn(s)
            phi, R = np.asarray(phi, dtype=float), np.asarray(R, dtype=float)
        except Exception as e:  # noqa: BLE001 - report any failure of the user callable
            raise ParameterError("curve", fn, f"a callable s -> (phi0, R0) ({e})") from None
        if phi.shape != (s.size, 3) or R.shape != (s.size, 3, 3):
            raise ParameterError("curve", (phi.shape, R.shape),
                                 "shapes (n, 3) and (n, 3, 3) for n arc lengths")
        if not (np.all(np.isfinite(phi)) and np.all(np.isfinite(R))):
            raise ParameterError("curve", "non-finite values", "finite positions and frames")
        err = np.max(np.abs(np.einsum("nki,nkj->nij", R, R) - np.eye(3)))
        if err > FRAME_TOL or np.min(np.linalg.det(R)) < 0.0:
            raise ParameterError("curve frame R0", f"|R^T R - I| = {err:.2e}",
                                 f"orthonormal and right-handed (to {FRAME_TOL:g})")
        a1, stretch = _turning(fn, self.length, 1000)
        a2, _ = _turning(fn, self.length, 2000)
        if a1 > 1e-3 and a2 > 0.75 * a1:
            raise ParameterError("curve", f"a kink (turning angle {a2:.3g} rad between "
                                 "neighbouring chords at any resolution)", "C1 (a continuous "
                                 "tangent)")
        if stretch > 1e-3:
            raise ParameterError("curve", f"|phi0'(s)| - 1 up to {stretch:.3g}",
                                 "parametrised by arc length (|phi0'| = 1 to 1e-3)")

    def evaluate(self, s):
        s = np.asarray(s, dtype=float).reshape(-1)
        phi, R = self._fn(s)
        return np.asarray(phi, dtype=float).reshape(-1, 3), np.asarray(R, float).reshape(-1, 3, 3)
