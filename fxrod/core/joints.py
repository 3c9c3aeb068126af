"""Joints between rods (theory §2.7): linear relations between the nodal unknowns of two
rod nodes, imposed exactly by eliminating the unknowns of one side (the *slave* node).

In the director formulation every joint of the field is linear in the nodal unknowns
``q = (phi, d1, d2, d3)`` of the two nodes ``A`` and ``B``:

* :class:`Rigid` -- welded at any angle: ``phi_B = phi_A`` and
  ``d^B_k = sum_j Lambda_jk d^A_j`` with the constant ``Lambda_jk = d^A_j . d^B_k`` of the
  reference (12 relations); B's orthonormality follows from A's, so B's six multipliers go;
* :class:`Spherical` -- ``phi_B = phi_A`` (3 relations), both frames free;
* :class:`Revolute` -- a hinge: ``phi_B = phi_A`` and the hinge axis ``a`` is the same
  material line of both: ``sum_k b_k d^B_k = sum_j a_j d^A_j`` with ``a_j = a . d^A_j``,
  ``b_k = a . d^B_k`` in the reference (6 relations); B's ``d_k . d_k = 1`` for the
  eliminated director ``k`` follows from the others and goes too.

Each side is a node ``(rod, where)`` of a :class:`fxrod.core.structure.Structure`: ``where`` is an
end ``"0"`` or ``"L"`` or an arc length s [m] of a mesh vertex of that rod. Constraint forces
of such ideal joints do no work, so the energy ledger of the structure stays exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fxrod.errors import ParameterError, check_int_min, check_vector


def _node(name: str, node) -> tuple[int, str | float]:
    """Validate a node ``(rod index, "0" | "L" | s [m])``."""
    if not (isinstance(node, tuple | list) and len(node) == 2):
        raise ParameterError(name, node, "a node (rod index, '0' | 'L' | arc length s [m])")
    rod, where = node
    check_int_min(f"{name} rod index", rod, 0)
    if isinstance(where, str):
        if where not in ("0", "L"):
            raise ParameterError(f"{name} end", where, "'0', 'L' or an arc length s [m]")
    elif not (isinstance(where, int | float) and np.isfinite(where) and where >= 0.0):
        raise ParameterError(f"{name} position", where, "'0', 'L' or an arc length s >= 0 [m]")
    return int(rod), where


@dataclass(frozen=True)
class Joint:
    """Base class: a joint between node ``a`` (master) and node ``b`` (slave side).

    Parameters
    ----------
    a, b : tuple (int, str or float)
        Nodes ``(rod index, where)``: ``where`` is ``"0"`` (s = 0), ``"L"`` (s = L) or the
        arc length s [m] of a mesh vertex of that rod. Both nodes must be at the same point
        of the reference. Node ``b`` may carry no support (put it on ``a``).
    """

    a: tuple
    b: tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", _node("joint node a", self.a))
        object.__setattr__(self, "b", _node("joint node b", self.b))
        if self.a == self.b:
            raise ParameterError("joint nodes", (self.a, self.b), "two different nodes")

    def relations(self, qa: np.ndarray, qb: np.ndarray) -> tuple[dict, tuple[int, ...]]:
        """The relations in the reference ``q`` (12,) of both nodes.

        Returns
        -------
        rows : dict
            ``{i: [(j, c), ...]}``: the slave component ``q_B[i] = sum c q_A[j]`` (plus, for
            a :class:`Revolute`, ``(12 + k, c)`` entries meaning ``c q_B[k]``).
        multipliers : tuple of int
            B's orthonormality multipliers (indices into CONSTRAINT_PAIRS) removed.
        """
        raise NotImplementedError

    @staticmethod
    def _positions() -> dict:
        return {i: [(i, 1.0)] for i in range(3)}


@dataclass(frozen=True)
class Rigid(Joint):
    """Welded joint at any angle (the reference angle between the two rods is kept).

    Parameters
    ----------
    link : bool
        Allow nodes at different points: a rigid link (e.g. through a rigid body),
        ``phi_B = phi_A + sum_j c_j d^A_j`` with the reference offset
        ``c_j = (phi_B - phi_A) . d^A_j`` (default False: the nodes must coincide).
    """

    link: bool = False

    def relations(self, qa, qb):
        da, db = qa[3:].reshape(3, 3), qb[3:].reshape(3, 3)
        lam = da @ db.T                                  # Lambda_jk = d^A_j . d^B_k
        off = da @ (qb[:3] - qa[:3]) if self.link else np.zeros(3)      # c_j
        rows = {c: [(c, 1.0)] + [(3 + 3 * j + c, float(off[j])) for j in range(3)
                                 if off[j] != 0.0] for c in range(3)}
        for k in range(3):
            for c in range(3):
                rows[3 + 3 * k + c] = [(3 + 3 * j + c, float(lam[j, k])) for j in range(3)
                                       if lam[j, k] != 0.0]
        return rows, tuple(range(6))


@dataclass(frozen=True)
class Spherical(Joint):
    """Ball joint: the positions coincide, both frames rotate freely."""

    def relations(self, qa, qb):
        return self._positions(), ()


@dataclass(frozen=True)
class Revolute(Joint):
    """Hinge: the positions coincide and the two frames turn relative to each other only
    about ``axis``.

    Parameters
    ----------
    axis : sequence of 3 floats
        The hinge axis in the reference configuration (spatial, any length > 0).
    """

    axis: tuple = (0.0, 0.0, 1.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        ax = check_vector("axis", self.axis, 3)
        n = float(np.linalg.norm(ax))
        if not n > 0.0:
            raise ParameterError("axis", tuple(ax), "a non-zero vector")
        object.__setattr__(self, "axis", tuple(ax / n))

    def relations(self, qa, qb):
        ax = np.asarray(self.axis)
        a = qa[3:].reshape(3, 3) @ ax                    # a_j = axis . d^A_j
        b = qb[3:].reshape(3, 3) @ ax                    # b_k = axis . d^B_k
        k = int(np.argmax(np.abs(b)))                    # the eliminated director of B
        rows = self._positions()
        for c in range(3):
            terms = [(3 + 3 * j + c, float(a[j] / b[k])) for j in range(3) if a[j] != 0.0]
            terms += [(12 + 3 + 3 * m + c, float(-b[m] / b[k])) for m in range(3)
                      if m != k and b[m] != 0.0]
            rows[3 + 3 * k + c] = terms
        return rows, (k,)
