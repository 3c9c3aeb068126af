"""Elastic supports: linear translational and rotational springs tying a rod end to its
reference pose (SI units).

Stored energy (a quadratic potential in the nodal unknowns of the end)::

    V = k_t / 2 |phi - phi_ref|^2 + k_r / 4 sum_k |d_k - d_k,ref|^2

For a small rotation theta of the end, ``sum_k |d_k - d_k,ref|^2 = 2 (3 - tr R_ref^T R)
~ 2 theta^2``, so ``V ~ k_t |u|^2 / 2 + k_r theta^2 / 2``: k_t [N/m] and k_r [N m/rad] are
the linear spring constants. The spring forces enter the momentum rows evaluated at the
midpoint ``q_m`` (the endpoint in statics): for a quadratic potential the midpoint gradient is
the discrete gradient, so ``V(q_{n+1}) - V(q_n) = dV(q_m) . (q_{n+1} - q_n)`` exactly and the
energy ledger stays exact (theory §2.3).
"""

from __future__ import annotations

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.forms.base import Extension
from fxrod.core.kinematics import split_q
from fxrod.errors import ParameterError, check_nonnegative


class ElasticSupport(Extension):
    """Linear springs at a rod end towards its reference pose.

    Parameters
    ----------
    end : {"0", "L"}
        The end (s = 0 or s = L).
    k_translation : float
        Translational spring constant k_t [N/m], >= 0.
    k_rotation : float
        Rotational spring constant k_r [N m/rad], >= 0.
    name : str, optional
        Name in the model (default ``"spring_<end>"``).
    """

    def __init__(self, end: str = "0", k_translation: float = 0.0, k_rotation: float = 0.0,
                 name: str | None = None) -> None:
        if end not in ("0", "L"):
            raise ParameterError("end", end, "'0' or 'L'")
        self.end = end
        self.k_t = check_nonnegative("k_translation", k_translation)
        self.k_r = check_nonnegative("k_rotation", k_rotation)
        if self.k_t == 0.0 and self.k_r == 0.0:
            raise ParameterError("k_translation/k_rotation", (k_translation, k_rotation),
                                 "at least one > 0")
        self.name = name or f"spring_{end}"
        self.q_ref: np.ndarray | None = None

    def bind(self, rod) -> None:
        """Take the reference pose of the end from the rod."""
        s = 0.0 if self.end == "0" else rod.length
        self.q_ref = rod.initial_configuration([s])[0]

    def setup(self, ctx, fields) -> None:
        """Constants of the springs and of the reference pose."""
        self._kt = fem.Constant(ctx.mesh, np.float64(self.k_t))
        self._kr = fem.Constant(ctx.mesh, np.float64(self.k_r))
        self._ref = fem.Constant(ctx.mesh, self.q_ref)

    def residual(self, ctx):
        """Spring forces ``dV(q_e) . dq`` in the momentum rows (forces; the model multiplies
        every row by h)."""
        phi, d = split_q(ctx.q_e)
        dphi, dd = split_q(ctx.dq)
        rphi, rd = split_q(self._ref)
        out = self._kt * ufl.dot(phi - rphi, dphi)
        for k in range(3):
            out += 0.5 * self._kr * ufl.dot(d[k] - rd[k], dd[k])
        return out * ctx.ds_end(self.end)

    def stored_energy(self, ctx):
        """``V(q_n)`` [J] at the end."""
        phi, d = split_q(ctx.q0)
        rphi, rd = split_q(self._ref)
        V = 0.5 * self._kt * ufl.dot(phi - rphi, phi - rphi)
        for k in range(3):
            V += 0.25 * self._kr * ufl.dot(d[k] - rd[k], d[k] - rd[k])
        return V * ctx.ds_end(self.end)
