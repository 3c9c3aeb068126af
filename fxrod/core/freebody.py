"""Free rigid bodies in the director formulation (theory §2.7).

A free body is a node of its own, ``q = (phi, d1, d2, d3)`` at its centre of mass, with the
same six orthonormality constraints, multipliers and implicit midpoint step (42) as the
rod's nodes, and the kinetic energy of :class:`fxrod.core.forms.bodies.RigidBody` with the node at
the centre (``S = 0``)::

    T = 1/2 m |v_phi|^2 + 1/2 E_jk v_dj . v_dk,   E = tr(J)/2 I - J

(``J`` the inertia tensor about the centre in the body's directors). Its inertia rows give
``T_{n+1} - T_n`` exactly, so the ledger stays exact, and the midpoint rule conserves the
quadratic invariants: the linear and angular momentum of the free body exactly and the
constraints ``d_i . d_j = delta_ij`` to round-off.

*Construction: a massless rigid carrier.* The body's node must be unknowns of the mixed
space, which lives on the mesh. A :class:`fxrod.core.structure.Structure` with bodies appends to
its rods one *carrier* per body: a straight one-element rod from the centre (end ``"0"``,
the body's node) to an *anchor*, another point of the body (end ``"L"``), with a massless
section (``rhoA = M11 = M22 = 0``) and no constrained strain. Its end ``"L"`` and its P2
mid node are tied to the node ``"0"`` by the rigid-link relations of
:class:`fxrod.core.joints.Rigid` (their multipliers removed), eliminated exactly by the joint
reduction ``w = T w_r``: the carrier moves rigidly, its strains stay those of the reference
(the strain rate of a rigid motion vanishes identically under the nodal constraints), so its
stresses stay zero and it stores no energy, carries no mass and does no work: nothing is
approximated. The carrier is rod index ``len(rods) + i`` of the structure for body ``i``:
its nodes ``(k, "0")`` (the centre) and ``(k, "L")`` (the anchor) take joints, supports and
end loads like any rod end. The unknowns enter the backends through the joint reduction, so
the backends that take joints (MUMPS LU and LDL^T) take bodies; the chain solver refuses
them (:mod:`fxrod.solvers.backends`, flag ``joints``). Being rod nodes, they are
checkpointed and restarted like any rod's, and distributed over MPI ranks like them;
:class:`fxrod.runs.probes.BodyProbe` (a default probe of a model with bodies) records each
body's centre, velocity and angular momentum. A joint at the anchor makes the anchor its
master (the anchor is the centre's slave already). Load stepping, the continuation, the
modes and buckling and the PH export take bodies held by the rods: without inertia a body
is the weight ``m g`` at its centre; its mass enters the mass form at the centre node.

*Contact.* A body touches obstacles through its shapes (:class:`ContactSphere`,
:class:`ContactCapsule`), spheres fixed in the body, by
:class:`fxrod.core.forms.bodycontact.BodyContact`: terms at the body's node, in plain UFL,
so the backends that take the bodies take their contact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fxrod.core.rod import Rod, Section
from fxrod.errors import ParameterError, check_positive, check_vector

#: The carrier's section: massless; its stiffnesses are arbitrary (its stresses stay 0).
CARRIER_SECTION = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1.0, k_s2=1.0, k_e=1.0,
                          k_b1=1.0, k_b2=1.0, k_t=1.0)


def _where(cond, a, b):
    """``np.where`` on the real part of ``cond`` (the shapes' distances take complex
    arguments: their derivatives are taken by the complex step)."""
    return np.where(np.real(cond), a, b)


def _norm(v: np.ndarray) -> np.ndarray:
    """Euclidean norm along the last axis, analytic for the complex step."""
    return np.sqrt(np.sum(v * v, axis=-1))


def _unit(v: np.ndarray, fallback: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(|v|, v/|v|)`` along the last axis, ``fallback`` where ``v = 0``."""
    n = _norm(v)
    zero = np.real(n) == 0.0
    safe = np.where(zero, 1.0, n)
    return n, np.where(zero[..., None], fallback, v / safe[..., None])


def _signed_abs(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(|a|, sign a)`` (sign +1 at 0), analytic for the complex step."""
    s = np.where(np.real(a) < 0.0, -1.0, 1.0)
    return a * s, s


def _box_distance(p: np.ndarray, core: np.ndarray, rounding: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Signed distance and gradient of the box ``|p_i| <= core_i`` swept by a sphere of
    radius ``rounding`` at the points ``p`` (m, k), per axis (k = 2 or 3)."""
    a, s = _signed_abs(p)
    q = a - core
    pos = _where(q > 0.0, q, 0.0)
    out, unit = _unit(pos, np.zeros(p.shape[-1]))
    i = np.argmax(np.real(q), axis=-1)
    inside = np.take_along_axis(q, i[..., None], axis=-1)[..., 0]
    e = np.eye(p.shape[-1])[i]
    outside = np.real(out) > 0.0
    dist = out + _where(outside, 0.0, inside) - rounding
    return dist, s * np.where(outside[..., None], unit, e)


@dataclass(frozen=True)
class ContactSphere:
    """A sphere of the body that touches obstacles, rods and other bodies
    (:class:`fxrod.core.forms.bodycontact.BodyContact`,
    :class:`fxrod.core.forms.bodypairs.ShapeContact`).

    Parameters
    ----------
    radius : float
        Radius [m], > 0.
    offset : sequence of 3 floats
        Its centre in the body's directors, from the centre of mass [m] (default the centre).
    """

    radius: float
    offset: tuple = (0.0, 0.0, 0.0)
    #: obstacle contact through fixed spheres exact for every obstacle
    plane_only = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_positive("radius", self.radius))
        object.__setattr__(self, "offset", tuple(check_vector("offset", self.offset, 3)))

    def spheres(self) -> list[tuple[np.ndarray, float]]:
        """The contact spheres ``(offset [m] in the body's directors, radius [m])``."""
        return [(np.asarray(self.offset), self.radius)]

    @property
    def extent(self) -> float:
        """Distance of the farthest surface point from the centre of mass [m]."""
        return float(np.linalg.norm(self.offset)) + self.radius

    def distance(self, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Signed distance [m] of the surface and its gradient at points ``xi`` (m, 3) in
        the body's directors (real or complex: analytic for the complex step)."""
        n, unit = _unit(xi - np.asarray(self.offset), np.array([0.0, 0.0, 1.0]))
        return n - self.radius, unit


@dataclass(frozen=True)
class ContactCapsule:
    """A capsule of the body along its director d3 (a segment of length ``length`` about
    the centre of mass swept by a sphere of radius ``radius``). On a plane
    (:class:`fxrod.core.obstacles.HalfSpace`) the signed distance is affine along the
    segment, so the two end spheres are where the capsule touches it (exact); rods and other
    bodies touch its whole surface (:class:`fxrod.core.forms.bodypairs.ShapeContact`).

    Parameters
    ----------
    radius : float
        Radius [m], > 0.
    length : float
        Length of the segment between the centres of the end caps [m], > 0.
    """

    radius: float
    length: float
    #: obstacle contact through its end spheres: exact on a plane only
    plane_only = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_positive("radius", self.radius))
        object.__setattr__(self, "length", check_positive("length", self.length))

    def spheres(self) -> list[tuple[np.ndarray, float]]:
        """The end spheres ``(offset [m] in the body's directors, radius [m])``."""
        return [(np.array([0.0, 0.0, s * 0.5 * self.length]), self.radius) for s in (-1, 1)]

    @property
    def extent(self) -> float:
        """Distance of the farthest surface point from the centre of mass [m]."""
        return 0.5 * self.length + self.radius

    def distance(self, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Signed distance [m] and gradient at points ``xi`` (m, 3) in the body's
        directors: from the segment ``|xi_3| <= length/2`` minus the radius."""
        half = 0.5 * self.length
        a = _where(xi[..., 2] > half, half, _where(xi[..., 2] < -half, -half, xi[..., 2]))
        d = xi - a[..., None] * np.array([0.0, 0.0, 1.0])
        n, unit = _unit(d, np.array([1.0, 0.0, 0.0]))
        return n - self.radius, unit


@dataclass(frozen=True)
class ContactBox:
    """A box of the body with rounded edges and corners: the core box
    ``|xi_i - o_i| <= a_i - rounding`` (``a`` the half extents along the body's directors,
    ``o`` the offset) swept by a sphere of radius ``rounding``, so its outer half extents
    are ``a`` and its signed distance is continuously differentiable outside the core
    (where Newton meets it while the penetration stays below ``rounding``). On a plane it
    touches by the eight spheres at the core's corners (the plane's signed distance is
    affine: its minimum over the core is at a corner; a box flat on a face rests on four
    of them, each a contact point of stiffness k).

    Parameters
    ----------
    half_extents : sequence of 3 floats
        Half edge lengths ``a`` along the body's d1, d2, d3 [m], > 0.
    rounding : float
        Radius of the edges and corners [m], ``0 < rounding <= min(a)``.
    offset : sequence of 3 floats
        Centre of the box in the body's directors, from the centre of mass [m].
    """

    half_extents: tuple
    rounding: float
    offset: tuple = (0.0, 0.0, 0.0)
    #: obstacle contact through its corner spheres: exact on a plane only
    plane_only = True

    def __post_init__(self) -> None:
        a = check_vector("half_extents", self.half_extents, 3)
        if not np.all(a > 0.0):
            raise ParameterError("half_extents", tuple(a), "three lengths > 0 [m]")
        r = check_positive("rounding", self.rounding)
        if r > a.min():
            raise ParameterError("rounding", r, f"<= the smallest half extent {a.min():.6g} m")
        object.__setattr__(self, "half_extents", tuple(a))
        object.__setattr__(self, "rounding", r)
        object.__setattr__(self, "offset", tuple(check_vector("offset", self.offset, 3)))

    @property
    def core(self) -> np.ndarray:
        """Half extents of the core box [m]."""
        return np.asarray(self.half_extents) - self.rounding

    def spheres(self) -> list[tuple[np.ndarray, float]]:
        """The corner spheres ``(offset [m] in the body's directors, radius [m])``."""
        o, c = np.asarray(self.offset), self.core
        return [(o + c * np.array(s), self.rounding)
                for s in np.array(np.meshgrid(*[(-1.0, 1.0)] * 3)).reshape(3, -1).T]

    @property
    def extent(self) -> float:
        """Distance of the farthest surface point from the centre of mass [m]."""
        return float(np.linalg.norm(self.offset) + np.linalg.norm(self.core)) + self.rounding

    def distance(self, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Signed distance [m] and gradient at points ``xi`` (m, 3) in the body's
        directors."""
        return _box_distance(xi - np.asarray(self.offset), self.core, self.rounding)


@dataclass(frozen=True)
class ContactCylinder:
    """A solid cylinder of the body along its director d3 with rounded rims: the core
    cylinder of radius ``radius - rounding`` and half length ``half_length - rounding``
    swept by a sphere of radius ``rounding`` (outer radius ``radius``, outer half length
    ``half_length``; the signed distance is continuously differentiable outside the core).
    It touches rods and other bodies (:class:`fxrod.core.forms.bodypairs.ShapeContact`)
    and planes (:class:`fxrod.core.forms.bodycontact.BodyContact` with a
    :class:`fxrod.core.obstacles.HalfSpace`): there by the lowest point of each rim
    circle, which moves on the body as it turns.

    Parameters
    ----------
    radius : float
        Outer radius [m], > 0.
    half_length : float
        Outer half length along d3 [m], > 0.
    rounding : float
        Radius of the rims [m], ``0 < rounding <= min(radius, half_length)``.
    offset : sequence of 3 floats
        Centre of the cylinder in the body's directors, from the centre of mass [m].
    """

    radius: float
    half_length: float
    rounding: float
    offset: tuple = (0.0, 0.0, 0.0)
    #: obstacle contact by its rims: on a plane only
    plane_only = True

    def __post_init__(self) -> None:
        R = check_positive("radius", self.radius)
        H = check_positive("half_length", self.half_length)
        r = check_positive("rounding", self.rounding)
        if r > min(R, H):
            raise ParameterError("rounding", r, f"<= min(radius, half_length) = "
                                 f"{min(R, H):.6g} m")
        for name, v in (("radius", R), ("half_length", H), ("rounding", r)):
            object.__setattr__(self, name, v)
        object.__setattr__(self, "offset", tuple(check_vector("offset", self.offset, 3)))

    @property
    def extent(self) -> float:
        """Distance of the farthest surface point from the centre of mass [m]."""
        core = np.hypot(self.radius - self.rounding, self.half_length - self.rounding)
        return float(np.linalg.norm(self.offset) + core) + self.rounding

    def distance(self, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Signed distance [m] and gradient at points ``xi`` (m, 3) in the body's
        directors."""
        p = xi - np.asarray(self.offset)
        rho, radial = _unit(p[..., :2], np.array([1.0, 0.0]))
        core = np.array([self.radius, self.half_length]) - self.rounding
        dist, g = _box_distance(np.stack([rho, p[..., 2]], axis=-1), core, self.rounding)
        grad = np.concatenate([g[..., :1] * radial, g[..., 1:]], axis=-1)
        return dist, grad


#: The contact shapes a free body may carry.
SHAPES = (ContactSphere, ContactCapsule, ContactBox, ContactCylinder)


def _frame(directors) -> np.ndarray:
    """The body's reference directors as columns ``R = [d1 d2 d3]`` (rows given)."""
    if directors is None:
        return np.eye(3)
    try:
        D = np.asarray(directors, dtype=float)
    except (TypeError, ValueError):
        D = np.zeros(0)
    if D.shape != (3, 3) or not np.all(np.isfinite(D)):
        raise ParameterError("directors", directors, "three orthonormal vectors (d1, d2, d3)")
    err = float(np.max(np.abs(D @ D.T - np.eye(3))))
    if err > 1e-12 or np.linalg.det(D) < 0.0:
        raise ParameterError("directors", f"|D D^T - I| = {err:.2e}, det {np.linalg.det(D):+.0f}",
                             "a right-handed orthonormal frame (to 1e-12)")
    return D.T


class FreeBody:
    """A free rigid body: its own node, moving on its own.

    Parameters
    ----------
    mass : float
        Mass m [kg], > 0.
    inertia : (3,) or (3, 3) array_like
        Principal moments ``(J1, J2, J3)`` about the body's directors, or the inertia tensor
        about the centre of mass in spatial axes of the reference [kg m^2]; positive
        definite, with the triangle inequalities of a body (``J_i <= J_j + J_k``).
    centre : sequence of 3 floats
        Centre of mass in the reference [m].
    directors : (3, 3) array_like, optional
        The body's reference directors as rows ``(d1, d2, d3)`` (default the spatial axes).
    velocity, angular_velocity : sequence of 3 floats
        Initial velocity of the centre [m/s] and spatial angular velocity [rad/s].
    anchor : sequence of 3 floats, optional
        A second point of the body (reference, spatial) [m], the carrier's end ``"L"``: a
        joint or support there holds that point (e.g. the fixed point of a top). Default
        ``centre + r d3`` with ``r = sqrt(tr J / m)``.
    name : str, optional
        Name of the body's inertia in the model (default ``"free_body_<i>"``).
    shapes : sequence of ContactSphere, ContactCapsule, ContactBox or ContactCylinder
        Where the body touches obstacles, rods and other bodies (a model with such a body
        needs a :class:`fxrod.core.forms.bodycontact.BodyContact` or a
        :class:`fxrod.core.forms.bodypairs.ShapeContact`). Default none.
    """

    def __init__(self, mass: float, inertia, centre, directors=None, velocity=(0, 0, 0),
                 angular_velocity=(0, 0, 0), anchor=None, name: str | None = None,
                 shapes=()) -> None:
        self.mass = check_positive("mass", mass)
        self.centre = check_vector("centre", centre, 3)
        self.R = _frame(directors)
        try:
            J = np.asarray(inertia, dtype=float)
        except (TypeError, ValueError):
            J = np.zeros(0)
        if J.shape == (3,):
            J = self.R @ np.diag(J) @ self.R.T
        if J.shape != (3, 3) or not np.all(np.isfinite(J)) or \
                np.max(np.abs(J - J.T)) > 1e-12 * max(1.0, np.max(np.abs(J))):
            raise ParameterError("inertia", inertia, "3 principal moments or a finite "
                                 "symmetric (3, 3) tensor [kg m^2]")
        ev = np.linalg.eigvalsh(J)
        if not ev[0] > 0.0:
            raise ParameterError("inertia", tuple(ev), "positive definite (principal moments "
                                 "> 0)")
        if ev[2] > ev[0] + ev[1] + 1e-12 * ev[2]:
            raise ParameterError("inertia", tuple(ev), "principal moments with the triangle "
                                 "inequality J3 <= J1 + J2 of a rigid body")
        self.inertia = 0.5 * (J + J.T)
        self.velocity = check_vector("velocity", velocity, 3)
        self.angular_velocity = check_vector("angular_velocity", angular_velocity, 3)
        if anchor is None:
            anchor = self.centre + np.sqrt(np.trace(J) / self.mass) * self.R[:, 2]
        self.anchor = check_vector("anchor", anchor, 3)
        if not np.linalg.norm(self.anchor - self.centre) > 0.0:
            raise ParameterError("anchor", tuple(self.anchor), "a point other than the centre")
        self.name = name
        self.shapes = tuple(shapes) if isinstance(shapes, list | tuple) else (shapes,)
        for sh in self.shapes:
            if not isinstance(sh, SHAPES):
                raise ParameterError("shapes", sh, "ContactSphere, ContactCapsule, ContactBox "
                                     "or ContactCylinder objects")

    # ------------------------------------------------------------ primitives
    @classmethod
    def sphere(cls, radius: float, density: float, centre, contact: bool = False, **kw
               ) -> FreeBody:
        """A solid sphere: ``m = 4/3 pi r^3 rho``, ``J = 2/5 m r^2``; with ``contact`` its
        surface touches obstacles (``shapes=[ContactSphere(radius)]``)."""
        r, rho = check_positive("radius", radius), check_positive("density", density)
        m = 4.0 / 3.0 * np.pi * r**3 * rho
        if contact:
            kw["shapes"] = (*kw.get("shapes", ()), ContactSphere(r))
        return cls(m, np.full(3, 0.4 * m * r**2), centre, **kw)

    @classmethod
    def box(cls, a: float, b: float, c: float, density: float, centre, **kw) -> FreeBody:
        """A solid box with edges a, b, c [m] along d1, d2, d3:
        ``J1 = m (b^2 + c^2)/12`` and cyclic."""
        a, b, c = (check_positive(n, v) for n, v in (("a", a), ("b", b), ("c", c)))
        m = a * b * c * check_positive("density", density)
        return cls(m, m / 12.0 * np.array([b * b + c * c, a * a + c * c, a * a + b * b]),
                   centre, **kw)

    @classmethod
    def cylinder(cls, radius: float, length: float, density: float, centre, **kw
                 ) -> FreeBody:
        """A solid cylinder of axis d3: ``J3 = m r^2/2``, ``J1 = J2 = m (3 r^2 + l^2)/12``."""
        r, ln = check_positive("radius", radius), check_positive("length", length)
        m = np.pi * r * r * ln * check_positive("density", density)
        J1 = m * (3.0 * r * r + ln * ln) / 12.0
        return cls(m, np.array([J1, J1, 0.5 * m * r * r]), centre, **kw)

    # ------------------------------------------------------------ the carrier
    def carrier(self) -> Rod:
        """The massless one-element carrier rod from the centre to the anchor."""
        t = (self.anchor - self.centre) / np.linalg.norm(self.anchor - self.centre)
        e = np.eye(3)[int(np.argmin(np.abs(t)))]
        d1 = e - (e @ t) * t
        return Rod(CARRIER_SECTION, start=tuple(self.centre), end=tuple(self.anchor),
                   d1=tuple(d1 / np.linalg.norm(d1)), n_elements=1)

    def nodal_velocity(self, phi: np.ndarray, d: np.ndarray, centre: np.ndarray
                       ) -> np.ndarray:
        """Velocities ``(n, 12)`` of carrier nodes at ``phi (n, 3)`` with directors
        ``d (n, 9)`` in the rigid motion of the initial velocities about ``centre``."""
        return rigid_velocity(phi, d, centre, self.velocity, self.angular_velocity)


def rigid_velocity(phi: np.ndarray, d: np.ndarray, centre: np.ndarray, velocity: np.ndarray,
                   omega: np.ndarray) -> np.ndarray:
    """Velocities ``(n, 12)`` of nodes at ``phi (n, 3)`` with directors ``d (n, 9)`` in the
    rigid motion of velocity ``velocity`` [m/s] at ``centre`` [m] and spatial angular
    velocity ``omega`` [rad/s]: ``(v + omega x (phi - c), omega x d_k)``."""
    v = np.empty((phi.shape[0], 12))
    v[:, 0:3] = velocity + np.cross(omega, phi - centre)
    for k in range(3):
        v[:, 3 + 3 * k:6 + 3 * k] = np.cross(omega, d[:, 3 * k:3 * k + 3])
    return v
