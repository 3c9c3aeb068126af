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


@dataclass(frozen=True)
class ContactSphere:
    """A sphere of the body that touches obstacles (:class:`fxrod.core.forms.bodycontact.
    BodyContact`).

    Parameters
    ----------
    radius : float
        Radius [m], > 0.
    offset : sequence of 3 floats
        Its centre in the body's directors, from the centre of mass [m] (default the centre).
    """

    radius: float
    offset: tuple = (0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_positive("radius", self.radius))
        object.__setattr__(self, "offset", tuple(check_vector("offset", self.offset, 3)))

    def spheres(self) -> list[tuple[np.ndarray, float]]:
        """The contact spheres ``(offset [m] in the body's directors, radius [m])``."""
        return [(np.asarray(self.offset), self.radius)]


@dataclass(frozen=True)
class ContactCapsule:
    """A capsule of the body along its director d3 (a segment of length ``length`` about
    the centre of mass swept by a sphere of radius ``radius``) that touches a plane
    (:class:`fxrod.core.obstacles.HalfSpace`): the signed distance of a half-space is affine
    along the segment, so the two end spheres are where the capsule touches it (exact).

    Parameters
    ----------
    radius : float
        Radius [m], > 0.
    length : float
        Length of the segment between the centres of the end caps [m], > 0.
    """

    radius: float
    length: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_positive("radius", self.radius))
        object.__setattr__(self, "length", check_positive("length", self.length))

    def spheres(self) -> list[tuple[np.ndarray, float]]:
        """The end spheres ``(offset [m] in the body's directors, radius [m])``."""
        return [(np.array([0.0, 0.0, s * 0.5 * self.length]), self.radius) for s in (-1, 1)]


#: The contact shapes a free body may carry.
SHAPES = (ContactSphere, ContactCapsule)


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
    shapes : sequence of ContactSphere or ContactCapsule
        Where the body touches obstacles (a model with such a body needs a
        :class:`fxrod.core.forms.bodycontact.BodyContact`). Default none.
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
                raise ParameterError("shapes", sh, "ContactSphere or ContactCapsule objects")

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
