"""The elastic mixed PH rod: the residual of one implicit midpoint step, eq. (42a-f).

All rows below are divided by the step size h (the model multiplies the sum by h).
With ``v_m = (q_{n+1} - q_n)/h`` (42a, eliminated),
``v_{n+1} = 2 v_m - v_n`` and ``(.)_e`` the evaluation state (the midpoint in dynamics):

* (42b, c) momentum, tested with ``dq``:
  ``(dq, M (v_{n+1} - v_n))/h + (d eps[q_e; dq], sigma_e) + (G_d(d_e) dd, lambda)_nodes
  - sum_loads u . y(dq) = 0``
* (42d, e) compliance, tested with ``dsigma``:
  ``(dsigma, C (sigma_{n+1} - sigma_n))/h - (dsigma, d eps[q_m; v_m]) = 0``
* (42f) constraints at the nodes, tested with ``dlambda``: ``(dlambda, G_d(d_m) v_dm)_nodes = 0``

``d eps[q; w]`` is the directional derivative of the bilinear strains (kinematics.py), i.e.
``J_v w`` of (16)-(22); testing the momentum row with ``v_m`` and the compliance row with
``sigma_m`` makes the coupling terms cancel (skew symmetry of J), which is the discrete power
balance (44). Diagnostics evaluate these same functions.
"""

from __future__ import annotations

import ufl

from fxrod.core.kinematics import constraint_rate, split_q, strain_rate


def inertia(ctx, dq):
    """``(dq, M (v_{n+1} - v_n))/h`` with ``M = diag(rhoA I, M11 I, M22 I, 0)`` (42b, c)."""
    dphi, dd = split_q(dq)
    vphi1, vd1 = split_q(ctx.v1)
    vphi0, vd0 = split_q(ctx.v0)
    form = ctx.rhoA * ufl.dot(dphi, vphi1 - vphi0)
    form += ctx.M11 * ufl.dot(dd[0], vd1[0] - vd0[0]) + ctx.M22 * ufl.dot(dd[1], vd1[1] - vd0[1])
    return form / ctx.h * ctx.dx


def kinetic_energy(ctx, v):
    """``1/2 v^T M v`` integrated (theory §1.3)."""
    vphi, vd = split_q(v)
    return 0.5 * (ctx.rhoA * ufl.dot(vphi, vphi) + ctx.M11 * ufl.dot(vd[0], vd[0])
                  + ctx.M22 * ufl.dot(vd[1], vd[1])) * ctx.dx


def internal(ctx, dq):
    """``(d eps[q_e; dq], sigma_e)``: the J_sigma sigma terms of (42b, c)."""
    deps = strain_rate(ctx.q_e, ctx.q_e.dx(0), dq, dq.dx(0))
    return ufl.dot(deps, ctx.sigma_momentum) * ctx.dx


def constraint_force(ctx, dq):
    """``(G_d(d_e) dd, lambda)`` at the nodes (42c)."""
    _, d_e = split_q(ctx.q_e)
    _, dd = split_q(dq)
    return ufl.dot(constraint_rate(d_e, dd), ctx.lam) * ctx.dx_nodal


def compliance(ctx, dsig, sig1, sig0, C):
    """``(dsigma, C (sigma_{n+1} - sigma_n))/h - (dsigma, d eps[q_m; v_m])`` (42d, e)."""
    rate = strain_rate(ctx.qm, ctx.qm.dx(0), ctx.vm, ctx.vm.dx(0))
    return (ufl.dot(dsig, ufl.elem_mult(C, sig1 - sig0)) / ctx.h - ufl.dot(dsig, rate)) * ctx.dx


def complementary_energy(ctx, sig, C):
    """``1/2 sigma^T C sigma`` integrated (theory §1.3), ``C`` a diagonal 6-vector."""
    return 0.5 * ufl.dot(sig, ufl.elem_mult(C, sig)) * ctx.dx


def constraint(ctx, dlam):
    """``(dlambda, G_d(d_m) v_dm)`` at the nodes (42f)."""
    _, dm = split_q(ctx.qm)
    _, vdm = split_q(ctx.vm)
    return ufl.dot(dlam, constraint_rate(dm, vdm)) * ctx.dx_nodal


def external_power(ctx, w):
    """Sum of the loads' ``u . y(w)`` (theory §1.5): tested with ``dq`` in the residual and with
    ``v_m`` for the external work ``W_ext^n = h u_{n+1/2} . y_{n+1/2}`` (44)."""
    wphi, wd = split_q(w)
    forms = [load.power(ctx, wphi, wd) for load in ctx.loads]
    return sum(forms[1:], forms[0]) if forms else None
