"""A ready problem: the discrete system, how to solve it and over which span.

The paper's examples and the cases of the demo registry are returned as :class:`Problem`
objects, so demos, tests, benchmarks and the command line share one set of tolerances and
step sizes instead of repeating them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fxrod.core.model import RodModel
from fxrod.errors import check_positive
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings


@dataclass
class Problem:
    """A model with its solver settings, nominal step and end time.

    Attributes
    ----------
    model : RodModel
        The discrete system (dynamic or quasi-static).
    h : float
        Nominal step [s] (load-factor increment in statics), > 0.
    t_end : float
        End of the span [s] (final load factor in statics), > 0.
    settings : SolverSettings
        How each step is solved.
    """

    model: RodModel
    h: float
    t_end: float
    settings: SolverSettings = field(default_factory=SolverSettings)

    def __post_init__(self) -> None:
        check_positive("h", self.h)
        check_positive("t_end", self.t_end)

    def integrator(self, h: float | None = None, **changes) -> Integrator:
        """A stepper over the model with the problem's settings (``changes`` to some of
        their fields, e.g. ``adaptive=True``) and step ``h`` (default the problem's)."""
        settings = self.settings.replace(**changes) if changes else self.settings
        return Integrator(self.model, self.h if h is None else h, settings)
