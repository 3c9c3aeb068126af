"""Feedback control on the actuation port: ``u = controller(t, y)`` with zero-order hold.

The actuators of a model (:class:`fxrod.core.forms.actuation.Actuation`: pressure chambers,
tendons) form a power port with input the forces ``tau_k`` [N] and collocated output the
actuator shortening rates ``y_k`` [m/s] (eqs. 68-73; the power into the rod is
``P = sum_k tau_k y_k`` [W]). A controller closes the loop on it::

    def controller(t, y):                 # t [s], y a fxrod.runs.callbacks.State
        return [k_p * (z_target - y["tip"][2])]   # tau [N], one per actuator

    Simulation(integ, controller=controller).run(1.0)

Before every step of :meth:`fxrod.runs.simulation.Simulation.run` from t_n the controller is
called with t_n and the state y at t_n (positions, directors, velocities of the nodes, the
tip, the held inputs and the port outputs: :data:`fxrod.runs.callbacks.STATE_FIELDS`); its
output is held constant over the step (zero-order hold: every actuator's input becomes the
constant function ``t -> u_k`` until the next call). A step cut by adaptive stepping keeps
the held value over its sub-steps. The step's actuator work is then booked by the energy
ledger through the actuation port exactly as for a prescribed input
(:meth:`fxrod.core.forms.actuation.Actuation.port_work`): the balance
``H_{n+1} - H_n = W_ext + W_port - D`` closes with the controller's work to the Newton
tolerance. In a quasi-static run t is the load factor and the loop is a fixed-point
iteration over the load steps.

A controller output that is not an array of one finite number per actuator, or of the
sign an actuator allows (a tendon pulls: ``tau >= 0``; a chamber: ``tau <= 0``), stops the
run at that step with one :class:`fxrod.errors.ParameterError` naming the controller, the
value and t_n; the rows recorded so far stay in the CSV.

State feedback designed on the linear port-Hamiltonian model (LQR) is in
:mod:`fxrod.analysis.lqr`. Not in this module: linear state feedback inside the step (``u``
implicit in the step's unknowns, ``u_{n+1/2} = -K x_{n+1/2}``), controllers on supports
(moving clamps) and on curvature inputs; restart from a checkpoint and MPI runs with a
controller are refused.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import ufl
from dolfinx import fem

from fxrod.core.forms.actuation import _S_TOL, Actuation, Actuator
from fxrod.core.kinematics import strain_rate, strains
from fxrod.errors import ParameterError
from fxrod.runs.callbacks import State

Controller = Callable[[float, State], object]


class _Held:
    """An actuator's input ``t -> u`` [N] held constant over a step (zero-order hold)."""

    __slots__ = ("value",)

    def __init__(self, value: float) -> None:
        self.value = float(value)

    def __call__(self, t: float) -> float:
        return self.value


class ActuationPort:
    """The actuators of a model as one port: inputs ``tau`` [N], outputs ``y`` [m/s].

    Parameters
    ----------
    model : fxrod.core.model.RodModel
        A model with at least one :class:`fxrod.core.forms.actuation.Actuation` extension (the
        actuators of all of them, in model order, form the port).

    Raises
    ------
    ParameterError
        The model has no actuators.
    """

    def __init__(self, model) -> None:
        self.model = model
        self.actuations = [e for e in model.extensions if isinstance(e, Actuation)]
        self.actuators: list[Actuator] = [a for e in self.actuations for a in e.actuators]
        if not self.actuators:
            raise ParameterError("controller", "a model without actuators",
                                 "a model with an Actuation extension (the port it drives)")
        self._outputs: list | None = None

    @property
    def size(self) -> int:
        """Number of actuators (inputs)."""
        return len(self.actuators)

    def inputs(self, t: float) -> np.ndarray:
        """The actuator forces ``tau_k(t)`` [N] (the held values under a controller)."""
        return np.concatenate([e.forces(t) for e in self.actuations])

    def unit_works(self, rate) -> list:
        """Per actuator the UFL form ``-int chi_k (rate, sigma_k/tau_k) ds`` at the state
        ``w0``: the work rate of a unit actuator force on the strain rate ``rate`` (with the
        velocity: the collocated output; with a test function: the generalised force). The
        extents ``chi_k`` are the actuators' on their members (a structure's too)."""
        m = self.model
        q = ufl.split(m.w0)[0]
        eps = strains(q, q.dx(0))
        s = ufl.SpatialCoordinate(m.mesh)[0]
        tol = _S_TOL * m.rod.length
        ranges = np.concatenate([e.mesh_ranges() for e in self.actuations])
        forms = []
        for a, (xa, xb) in zip(self.actuators, ranges, strict=True):
            chi = ufl.conditional(ufl.And(ufl.ge(s, xa - tol), ufl.le(s, xb + tol)), 1.0, 0.0)
            sig = a.material_stress(eps, 1.0, chi, [float(x) for x in a.offset])
            forms.append(-ufl.dot(rate, sig) * m.ctx.dx)
        return forms

    def _compile(self) -> list:
        """One form a actuator: ``y_k = -int chi_k (d eps[q; v], sigma_k/tau_k) ds``."""
        q, v = ufl.split(self.model.w0)[0], self.model.v0
        return [fem.form(f) for f in self.unit_works(strain_rate(q, q.dx(0), v, v.dx(0)))]

    def outputs(self) -> np.ndarray:
        """Collocated outputs ``y_k`` [m/s] at the model's state at t_n: the rates of
        shortening of the actuator lines (tendon: ``-d/dt int |r_k'| ds``; chamber:
        ``-d/dt int (Gamma_3 + rho_2 K_1 - rho_1 K_2) ds``), with ``sum_k tau_k y_k`` the
        power [W] the actuators put into the rod (the ledger's port work per unit time).
        Compiled on first use (one small form per actuator)."""
        if self._outputs is None:
            self._outputs = self._compile()
        return np.array([fem.assemble_scalar(f) for f in self._outputs])


def actuation_port(model) -> ActuationPort | None:
    """The model's :class:`ActuationPort`, None when it has no actuators."""
    if any(isinstance(e, Actuation) for e in model.extensions):
        return ActuationPort(model)
    return None


class ZeroOrderHold:
    """Calls ``controller(t_n, y)`` and holds its output on the actuators over the step.

    Parameters
    ----------
    controller : callable ``(t, y) -> array``
        Returns the actuator forces ``tau`` [N], one per actuator (shape ``(n_act,)``; a
        number when there is one actuator).
    model : fxrod.core.model.RodModel
        The model whose actuators it drives (:class:`ActuationPort`).

    Attributes
    ----------
    history : list of (float, ndarray)
        ``(t_n, u_n)`` of every call, u in N.
    """

    def __init__(self, controller: Controller, model) -> None:
        if not callable(controller):
            raise ParameterError("controller", controller, "a callable (t, y) -> forces [N]")
        self.controller = controller
        self.name = getattr(controller, "__name__", type(controller).__name__)
        self.port = ActuationPort(model)
        self.history: list[tuple[float, np.ndarray]] = []
        self._free = [a.force for a in self.port.actuators]

    def _checked(self, t: float, out) -> np.ndarray:
        n = self.port.size

        def where() -> str:          # the message's subject, made only for a message
            return f"output of controller '{self.name}' at t = {t:.6g}"

        try:
            u = np.array(out, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(where(), out, f"{n} actuator forces [N]") from None
        if u.shape not in ((n,), () if n == 1 else (n,)):
            raise ParameterError(where(), out, f"an array of shape ({n},): one force [N] "
                                 "per actuator")
        u = u.reshape(n)
        if not np.isfinite(u).all():
            raise ParameterError(where(), out, "finite forces [N]")
        for a, uk in zip(self.port.actuators, u, strict=True):
            if a.sign * uk < 0.0:
                raise ParameterError(f"{where()}, {a.input_name} of {a.label}", float(uk),
                                     a.allowed)
        return u

    def __call__(self, t: float, y: State) -> np.ndarray:
        """Evaluate the controller at (t_n, y), check its output and hold it.

        Raises
        ------
        ParameterError
            Wrong shape, a non-finite value or a sign the actuator does not allow.
        """
        u = self._checked(t, self.controller(t, y))
        for a, uk in zip(self.port.actuators, u, strict=True):
            a.force = _Held(uk)
        self.history.append((float(t), u))
        return u

    def release(self) -> None:
        """Give the actuators back their own inputs (the functions of t they had before the
        controller held them): after a controlled run the model is the open-loop model
        again, so an analysis of it (continuation, modes, adjoint) does not run on the
        last held forces."""
        for a, force in zip(self.port.actuators, self._free, strict=True):
            a.force = force
