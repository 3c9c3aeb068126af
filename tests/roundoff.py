"""Bounds of the exactness tests (issue 32): round-off and the Newton tolerance.

A quantity that the discrete equations conserve or reproduce exactly (momenta, the energy
balance, a path computed twice) is off in a run by two kinds of error, each bounded here by
one model stated once:

* round-off, :func:`roundoff`: ``c eps scale steps``, ``c =`` :data:`ROUNDOFF_C`;
* the Newton tolerance, :func:`newton_bound`: Newton accepts a step whose residual ``F`` has
  ``|F|_2 < atol``, and a quantity that pairs the residual with a vector ``e`` is off by
  ``|F . e| < atol |e|_2`` per step.

Which one limits a quantity depends on the linear solver, not on the physics: MUMPS solves
the step's linear systems to ~1e-16 relative, so its first Newton iterate already leaves a
residual at round-off; the chain solver's condensation leaves ~1e-12 relative on a stiff rod
(steel), which Newton accepts below ``atol``, and the accepted residuals add up over the
steps. A test bounds a conserved quantity by the sum of both models (or by one where the
other cannot enter), so that it holds on either backend (``FXROD_LINEAR_SOLVER``).

:func:`skip_if_chain_refuses` skips a test whose model the chain solver refuses when the
environment forces the chain solver (``FXROD_LINEAR_SOLVER=chain``).
"""

from __future__ import annotations

import numpy as np
import pytest

from fxrod.solvers.chain import ChainSolver
from fxrod.solvers.settings import SolverSettings, default_linear_solver

#: Machine epsilon of float64 (2.2e-16): twice the unit round-off u of one operation.
EPS = float(np.finfo(float).eps)

#: Round-off growth factor per step and unit of scale (:func:`roundoff`). Standard error
#: analysis bounds a sum of n products (a dot product, a row of a factorisation, an
#: integral by quadrature) by gamma_n = n u = n eps / 2 times the sum of the magnitudes of
#: its terms. In one step of a rod every number passes through two such accumulations: the
#: linear solve of a Newton iteration (an element couples 66 unknowns: 30 in its interior, 18
#: at each vertex; the chain solver factors dense blocks of at most 64 and refuses larger
#: ones, MUMPS's fronts on a chain are of that size) and the assembly of the residual or the
#: diagnostic that reads the quantity (a quadrature over the element's unknowns, no longer).
#: With n = 64 each: c = 2 gamma_64 / eps = 64.
ROUNDOFF_C = 64


def roundoff(scale, steps=1, c: float = ROUNDOFF_C):
    """Round-off bound ``c eps scale steps`` of a quantity of magnitude ``scale`` after
    ``steps`` steps (the error of each step adds, the worst case).

    Parameters
    ----------
    scale : float or numpy.ndarray
        Magnitude of the quantity (or of the largest term it is computed from), its unit.
    steps : int or numpy.ndarray
        Steps (Newton solves) whose round-off accumulates; an array gives a bound per step.
        A difference of two runs counts the steps of both.
    c : float
        Growth factor; :data:`ROUNDOFF_C` (its derivation is there).

    Returns
    -------
    float or numpy.ndarray
        The bound, in the unit of ``scale``.
    """
    return c * EPS * scale * steps


def newton_bound(settings: SolverSettings, dual, steps=1):
    """Bound ``steps atol |e|_2`` of a quantity whose change per step is the step's residual
    paired with a vector ``e``.

    A converged step has ``|F|_2 < atol`` (the rows of (42) scaled by h: N s in the momentum
    rows, strains in the compliance rows); by Cauchy-Schwarz ``|F . e| < atol |e|_2``. E.g.
    the momentum along a direction changes by the sum of its momentum rows (``e`` = the
    translation, ``|e|_2 = sqrt(nodes)``); the energy balance ``H_{n+1} - H_n - W`` is
    ``F . e`` with the efforts ``e = (v_m, sigma_m, -lambda)`` (:func:`effort_norm`).
    Newton's other stopping tests accept ``|F| <= rtol |F_0|``, below ``atol`` whenever
    ``|F_0| <= atol / rtol`` (the first residuals of these tests are far below), or an
    update below ``stol |x|`` (a stalled iteration, above ``atol`` only at a residual floor
    the tests here stay clear of).

    Parameters
    ----------
    settings : fxrod.solvers.settings.SolverSettings
        The run's settings (``atol``).
    dual : float or numpy.ndarray
        ``|e|_2``, in the unit of the quantity per unit of the residual.
    steps : int or numpy.ndarray
        Steps whose accepted residuals add up; an array gives a bound per step.

    Returns
    -------
    float or numpy.ndarray
        The bound, in the unit of the quantity.
    """
    return steps * settings.atol * dual


def effort_norm(model, w_prev: np.ndarray, h: float, step_fields: tuple[str, ...] = (),
                stress_rate: float = 0.0) -> float:
    """``|e|_2`` of the efforts of the step from the state ``w_prev`` to the model's current
    state ``model.w0`` (after :meth:`fxrod.runs.integrators.Integrator.step`): the midpoint
    velocity ``(q_{n+1} - q_n)/h`` in the configuration rows, the midpoint stress in the
    compliance rows and ``-lambda`` in the constraint rows. Testing the residual with them
    gives the energy balance of the step (fxrod.core.forms.elastic). An extension's field
    whose rows the balance tests with the field's own end-of-step value (a step unknown) is
    named in ``step_fields``; a model with any other extension field is refused.
    ``stress_rate``: a coefficient ``b`` [s] whose stress rate ``b (sigma_{n+1} - sigma_n)/h``
    the balance also tests the compliance rows with (Rayleigh damping's viscous stress,
    ``b = beta``: an upper bound where some strains have no compliance).
    """
    extra = tuple(model.field_names[3:])
    assert tuple(model.field_names[:3]) == ("q", "sigma", "lambda"), model.field_names
    assert set(extra) <= set(step_fields), extra
    w = model.w0.x.array
    q, s, lam = (model.field_dofs(name) for name in ("q", "sigma", "lambda"))
    own = sum(float(np.sum(w[model.field_dofs(f)] ** 2)) for f in extra)
    stress = 0.5 * (w[s] + w_prev[s]) + stress_rate * (w[s] - w_prev[s]) / h
    return float(np.sqrt(np.sum(((w[q] - w_prev[q]) / h) ** 2)
                         + np.sum(stress ** 2) + np.sum(w[lam] ** 2) + own))


def skip_if_chain_refuses(model) -> None:
    """Skip the calling test when ``FXROD_LINEAR_SOLVER=chain`` forces the chain solver on a
    ``model`` it refuses, so that MUMPS would solve it under the chain solver's name:
    joints or a closed rod (eliminated unknowns:
    :class:`fxrod.solvers.reduction.ReducedNewtonSolver`
    factors with MUMPS), rod-rod contact (nonlocal terms), an MPI run, or any other mesh
    that is not disjoint open chains of cells (:class:`fxrod.solvers.newton.NewtonSolver` refuses
    them)."""
    if default_linear_solver() != "chain":
        return
    W = model.w.function_space
    if model.reduction is not None:
        why = "joints or a closed rod (eliminated unknowns)"
    elif model.nonlocal_terms:
        why = "rod-rod contact (nonlocal terms)"
    elif W.mesh.comm.size > 1:
        why = "an MPI run"
    elif not ChainSolver.applicable(W):
        why = "a mesh that is not disjoint open chains of cells"
    else:
        return
    pytest.skip(f"FXROD_LINEAR_SOLVER=chain: the chain solver refuses {why}")
