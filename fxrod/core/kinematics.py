"""Director kinematics of the Cosserat rod in UFL (theory §1.1-1.2).

The configuration ``q = (phi, d1, d2, d3)`` is a 12-vector field. Strains are bilinear:

* ``Gamma = R^T phi'``, i.e. ``Gamma_k = d_k . phi'``                    (theory §1.2)
* ``K = L(d') d`` with ``L(a) b = 1/2 (a2.b3 - a3.b2, a3.b1 - a1.b3, a1.b2 - a2.b1)``

so their directional derivatives (the rate operators ``J_v`` of (16)-(22)) are exact and
the midpoint rule reproduces strain increments exactly (theory §2.3, eq. 54).
"""

from __future__ import annotations

import ufl

#: Index pairs (i, j) of the six orthonormality constraints g_ij, theory §1.1.
CONSTRAINT_PAIRS: tuple[tuple[int, int], ...] = ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (2, 0))


def vec3(v, offset: int = 0):
    """The 3-vector ``v[offset:offset+3]`` as a UFL vector (UFL has no partial slices)."""
    return ufl.as_vector([v[offset + i] for i in range(3)])


def split_q(q):
    """Split a 12-vector ``q`` into ``(phi, [d1, d2, d3])``."""
    return vec3(q, 0), [vec3(q, 3 + 3 * k) for k in range(3)]


def L_op(a, b):
    """Bilinear map ``L(a) b`` of theory §1.2 for director triples ``a, b`` (lists of 3-vectors)."""
    return 0.5 * ufl.as_vector([
        ufl.dot(a[1], b[2]) - ufl.dot(a[2], b[1]),
        ufl.dot(a[2], b[0]) - ufl.dot(a[0], b[2]),
        ufl.dot(a[0], b[1]) - ufl.dot(a[1], b[0]),
    ])


def gamma(phi_s, d):
    """Shear/extension strain ``Gamma = R^T phi'`` (theory §1.2)."""
    return ufl.as_vector([ufl.dot(d[k], phi_s) for k in range(3)])


def kappa(d, d_s):
    """Curvature/torsion strain ``K = axial(R^T R') = L(d') d`` (theory §1.2)."""
    return L_op(d_s, d)


def strains(q, q_s):
    """Strain 6-vector ``(Gamma, K)`` of the configuration ``q`` with derivative ``q_s``."""
    phi_s, d_s = split_q(q_s)
    _, d = split_q(q)
    return ufl.as_vector(list(gamma(phi_s, d)) + list(kappa(d, d_s)))


def strain_rate(q, q_s, w, w_s):
    """Directional derivative of the strains at ``q`` in direction ``w``.

    ``d Gamma[w] = R^T w_phi' + J_N(phi')^T w_d`` and ``d K[w] = J_K(d, d') w_d``
    (theory §1.2); with ``w = v`` this is the strain rate, with ``w = delta q`` the virtual strain
    of the weak form (29c, d).
    """
    phi_s, d_s = split_q(q_s)
    _, d = split_q(q)
    wphi_s, wd_s = split_q(w_s)
    _, wd = split_q(w)
    dG = gamma(wphi_s, d) + gamma(phi_s, wd)
    dK = L_op(d_s, wd) + L_op(wd_s, d)
    return ufl.as_vector(list(dG) + list(dK))


def constraint_rate(d, wd):
    """``G_d(d) w_d``: directional derivative of ``g_ij = 1/2 (d_i.d_j - delta_ij)``."""
    return ufl.as_vector([
        0.5 * (ufl.dot(wd[i], d[j]) + ufl.dot(d[i], wd[j])) for i, j in CONSTRAINT_PAIRS
    ])


def angular_velocity(d, vd):
    """``omega = T(d)^T v_d = 1/2 sum_k d_k x v_dk`` (theory §1.2, eq. 14)."""
    return 0.5 * sum(ufl.cross(d[k], vd[k]) for k in range(3))


def rotation(d):
    """``R = [d1 d2 d3]`` (columns are the directors)."""
    return ufl.as_matrix([[d[k][i] for k in range(3)] for i in range(3)])
