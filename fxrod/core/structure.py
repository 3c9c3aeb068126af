"""Several rods in one discrete system, coupled by joints (theory §2.7).

A :class:`Structure` lays its rods side by side on one interval mesh: rod ``k`` occupies the
mesh coordinate ``x in [o_k, o_k + L_k]`` with gaps between the rods (no element spans a
gap), so one mixed space, one residual and one energy ledger hold the whole structure. The
mesh coordinate of rod ``k`` at its arc length s is ``o_k + s``. Joints
(:mod:`fxrod.core.joints`) tie nodes of the rods together. A closed rod (a curve with
``closed = True``, e.g. :class:`fxrod.core.geometry.Circle`) gets a rigid joint from its end
``"L"`` to its end ``"0"``.

A :class:`Structure` offers what :class:`fxrod.core.model.RodModel` needs of a rod (length,
mesh, reference configuration, section data), so a model is built from either.

Example::

    column = Rod(section, start=(0, 0, 0), end=(0, 0, 1), d1=(1, 0, 0), n_elements=8)
    beam = Rod(section, start=(0, 0, 1), end=(1, 0, 1), d1=(0, 1, 0), n_elements=8)
    frame = Structure([column, beam], [Rigid((0, "L"), (1, "0"))])
    model = RodModel(frame, supports=[Clamp("0")], loads=[EndLoad("L", rod=1, force=F)])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from dolfinx import mesh as dmesh

from fxrod.core.freebody import FreeBody
from fxrod.core.geometry import FRAME_TOL
from fxrod.core.joints import Joint, Rigid
from fxrod.core.rod import Rod, Section
from fxrod.errors import ParameterError


class Structure:
    """Rods coupled by joints: the reference of a multi-rod discrete system.

    Parameters
    ----------
    rods : sequence of Rod
        The rods, each with its own geometry, section, constraints and mesh size.
    joints : sequence of Joint
        Joints between nodes of the rods (:class:`fxrod.core.joints.Rigid`, ``Spherical``,
        ``Revolute``). Closed rods are joined automatically.
    bodies : sequence of FreeBody
        Free rigid bodies (:mod:`fxrod.core.freebody`): body ``i`` is carried by the massless
        rigid rod of index ``len(rods) + i`` (:meth:`body_rod`), whose node ``"0"`` is the
        centre of mass and ``"L"`` the body's anchor; joints may name them.
    """

    def __init__(self, rods: Sequence[Rod], joints: Sequence[Joint] = (),
                 bodies: Sequence[FreeBody] = ()) -> None:
        if isinstance(rods, Rod):
            rods = [rods]
        rods = list(rods)
        bodies = list(bodies)
        for b in bodies:
            if not isinstance(b, FreeBody):
                raise ParameterError("bodies", b, "fxrod.core.freebody.FreeBody objects")
        if not (rods or bodies) or not all(isinstance(r, Rod) for r in rods):
            raise ParameterError("rods", rods, "a non-empty sequence of fxrod.Rod")
        #: the free bodies; body i is carried by rod ``n_members + i``
        self.bodies = bodies
        #: the number of rods proper (the carriers of the bodies follow them in ``rods``)
        self.n_members = len(rods)
        rods = rods + [b.carrier() for b in bodies]
        self.rods = rods
        joints = list(joints)
        for j in joints:
            if not isinstance(j, Joint):
                raise ParameterError("joints", j, "fxrod.core.joints objects (Rigid, Spherical, "
                                     "Revolute)")
        for k, r in enumerate(rods):
            if r.curve.closed:
                self._check_closed(k, r)
                joints.append(Rigid((k, "0"), (k, "L")))
        #: the carriers' own rigid links (their mid nodes are tied by the model too)
        self.carriers = [self.body_rod(i) for i in range(len(bodies))]
        joints += [Rigid((k, "0"), (k, "L"), link=True) for k in self.carriers]
        self.joints = joints
        # mesh coordinates: rod k on [o_k, o_k + L_k], gaps of the longest rod's length
        gap = max(r.length for r in rods)
        self.offsets = np.concatenate([[0.0], np.cumsum([r.length + gap for r in rods])[:-1]])
        for j in joints:
            for side in ("a", "b"):
                self.coordinate(*getattr(j, side), name=f"joint node {side}")
        self._check_joints()

    # ------------------------------------------------------------------ layout
    def body_rod(self, i: int) -> int:
        """The rod index of body ``i``'s carrier: its nodes ``(k, "0")`` (centre of mass)
        and ``(k, "L")`` (anchor) take joints, supports and end loads."""
        if not (isinstance(i, int) and 0 <= i < len(self.bodies)):
            raise ParameterError("body index", i, f"0 .. {len(self.bodies) - 1} (the bodies)")
        return self.n_members + i

    @property
    def length(self) -> float:
        """Total length of the rods [m] (the measure of the mesh)."""
        return float(sum(r.length for r in self.rods))

    @property
    def n_elements(self) -> int:
        """Total number of elements."""
        return sum(r.n_elements for r in self.rods)

    @property
    def extent(self) -> float:
        """The largest mesh coordinate [m]."""
        return float(self.offsets[-1] + self.rods[-1].length)

    def coordinate(self, rod: int, where, name: str = "node") -> float:
        """Mesh coordinate of node ``(rod, where)``: ``where`` ``"0"``, ``"L"`` or an arc
        length s [m] at a mesh vertex."""
        if rod >= len(self.rods):
            raise ParameterError(f"{name} rod index", rod, f"< {len(self.rods)} (the rods)")
        r = self.rods[rod]
        if where == "0":
            s = 0.0
        elif where == "L":
            s = r.length
        else:
            h = r.length / r.n_elements
            i = round(float(where) / h)
            if not (0 <= i <= r.n_elements and abs(i * h - float(where)) <= 1e-9 * r.length):
                raise ParameterError(f"{name} position", where,
                                     f"a vertex of rod {rod}: a multiple of {h:.6g} m in "
                                     f"[0, {r.length:.6g}]")
            s = i * h
        return float(self.offsets[rod] + s)

    def create_mesh(self, comm) -> dmesh.Mesh:
        """The interval mesh of the rods side by side (one rod: DOLFINx's interval mesh)."""
        if len(self.rods) == 1:
            return dmesh.create_interval(comm, self.rods[0].n_elements,
                                         [0.0, float(self.rods[0].length)])
        import basix.ufl
        import ufl

        x, cells, base = [], [], 0
        for o, r in zip(self.offsets, self.rods, strict=True):
            n = r.n_elements
            x.append(o + np.linspace(0.0, r.length, n + 1))
            cells.append(base + np.column_stack([np.arange(n), np.arange(1, n + 1)]))
            base += n + 1
        if comm.rank == 0:
            xs = np.concatenate(x)[:, None]
            cs = np.concatenate(cells).astype(np.int64)
        else:
            xs, cs = np.empty((0, 1)), np.empty((0, 2), dtype=np.int64)
        el = ufl.Mesh(basix.ufl.element("Lagrange", "interval", 1, shape=(1,)))
        return dmesh.create_mesh(comm, cs, el, xs)

    def locate(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rod index and arc length s [m] of mesh coordinates ``x``."""
        x = np.asarray(x, dtype=float)
        k = np.clip(np.searchsorted(self.offsets, x, side="right") - 1, 0, len(self.rods) - 1)
        return k, x - self.offsets[k]

    # --------------------------------------------------------------- reference
    def initial_configuration(self, x) -> np.ndarray:
        """Nodal ``q`` (``(len(x), 12)``) at mesh coordinates x."""
        x = np.asarray(x, dtype=float).reshape(-1)
        k, s = self.locate(x)
        q = np.empty((x.size, 12))
        for i, r in enumerate(self.rods):
            on = k == i
            if on.any():
                q[on] = r.initial_configuration(s[on])
        return q

    def section_values(self, x) -> dict[str, np.ndarray]:
        """Section constants (rhoA, M11, M22, k_*) at mesh coordinates x (SI units)."""
        x = np.asarray(x, dtype=float).reshape(-1)
        k, s = self.locate(x)
        names = ("rhoA", "M11", "M22", "k_s1", "k_s2", "k_e", "k_b1", "k_b2", "k_t")
        out = {n: np.empty(x.size) for n in names}
        for i, r in enumerate(self.rods):
            on = k == i
            if not on.any():
                continue
            sec = r.section
            v = ({n: np.full(on.sum(), getattr(sec, n)) for n in names}
                 if isinstance(sec, Section) else sec.values(s[on]))
            for n in names:
                out[n][on] = v[n]
        return out

    def free_mask(self, x) -> np.ndarray:
        """Unconstrained strains (6, len(x)) at mesh coordinates x."""
        k, _ = self.locate(np.asarray(x, dtype=float).reshape(-1))
        return np.stack([self.rods[i].free for i in k], axis=1)

    @property
    def uniform(self) -> bool:
        """One uniform section and one constraint set for every rod (Constants suffice)."""
        r0 = self.rods[0]
        return all(r.uniform and r.section == r0.section and r.constraints == r0.constraints
                   for r in self.rods)

    # The rod-like interface of a uniform structure.
    @property
    def section(self):
        return self.rods[0].section

    @property
    def free(self) -> np.ndarray:
        return self.rods[0].free

    @property
    def compliance(self) -> np.ndarray:
        return self.rods[0].compliance

    @property
    def natural_curvature(self):
        return self.rods[0].natural_curvature if len(self.rods) == 1 else None

    # ------------------------------------------------------------------ checks
    @staticmethod
    def _check_closed(k: int, r: Rod) -> None:
        q0, qL = r.initial_configuration([0.0, r.length])
        tol = FRAME_TOL * max(1.0, r.length)
        if np.max(np.abs(q0[:3] - qL[:3])) > tol:
            raise ParameterError(f"closed curve of rod {k}", "phi0(L) - phi0(0) = "
                                 f"{np.max(np.abs(q0[:3] - qL[:3])):.3e} m",
                                 "ends that meet (to 1e-10 L)")

    def _check_joints(self) -> None:
        for j in self.joints:
            if getattr(j, "link", False):
                continue
            qa = self.initial_configuration([self.coordinate(*j.a)])[0]
            qb = self.initial_configuration([self.coordinate(*j.b)])[0]
            gap = float(np.linalg.norm(qa[:3] - qb[:3]))
            if gap > FRAME_TOL * max(1.0, self.length):
                raise ParameterError(f"{type(j).__name__} joint {j.a}-{j.b}",
                                     f"distance {gap:.6g} m",
                                     "nodes at the same point of the reference")
