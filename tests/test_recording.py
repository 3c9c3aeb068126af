"""Recording from arrays (issue 36 item 4): the read-outs a run records every step, made
from the arrays the step already has, are the quantities they stand for.

* ``test_momentum_columns_are_the_ufl_integrals``: the momentum probe's ``p, J, com`` (the
  rod's from its mass matrices, :class:`fxrod.core.diagnostics.RodMomentum`) against the UFL
  integrals assembled by DOLFINx's ``assemble_scalar``, on a tapered rod (coefficients at the
  quadrature points) spinning and translating off the origin, and on a rod carrying a rigid
  body, after two steps: equal up to round-off of the integrals' absolute terms.
* ``test_csv_lines_are_the_csv_modules``: the CSV writer's rows, numbers made in one call,
  are the lines :mod:`csv` writes of the same values (floats, ints, NumPy scalars, missing
  columns, a string that needs quoting).
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
import ufl
from dolfinx import fem

from fxrod.core.forms.bodies import RigidBody
from fxrod.core.kinematics import split_q
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section, VaryingSection
from fxrod.output.tables import CSVWriter
from fxrod.runs.integrators import Integrator
from fxrod.runs.probes import MomentumProbe
from fxrod.runs.simulation import Simulation
from tests.roundoff import roundoff

L = 1.0


def tapered() -> RodModel:
    sec = VaryingSection.circular(radius=lambda s: 0.01 * (1.0 - 0.5 * np.asarray(s) / L),
                                  E=2e11, rho=7850.0, nu=0.3)
    return RodModel(Rod(sec, (0.3, -0.2, 0.5), (0.3 + L, -0.2, 0.5), (0, 1, 0), 5), [])


def with_body() -> RodModel:
    sec = Section.circular(0.01, E=2e11, rho=7850.0, nu=0.3)
    body = RigidBody((0, "L"), mass=0.5, inertia=np.diag([2e-3, 1e-3, 2.5e-3]),
                     centre=(L + 0.02, 0.01, 0.0))
    return RodModel(Rod(sec, (0, 0, 0), (L, 0, 0), (0, 1, 0), 4), [], extensions=[body])


def integrals(m) -> tuple[dict, dict]:
    """The momentum columns as UFL integrals (DOLFINx's assembly) and, for the bound, the
    integrals of their terms' absolute values."""
    dx = m.ctx.dx
    q = ufl.split(m.w0)[0]
    phi, d = split_q(q)
    vphi, vd = split_q(m.v0)
    bodies = [b for b in (e.momentum(q, m.v0) for e in m.extensions) if b is not None]
    J = ufl.cross(phi, m.rhoA * vphi) + m.M11 * ufl.cross(d[0], vd[0]) \
        + m.M22 * ufl.cross(d[1], vd[1])
    Jabs = ufl.sqrt(ufl.dot(phi, phi)) * m.rhoA * ufl.sqrt(ufl.dot(vphi, vphi)) \
        + sum(c * ufl.sqrt(ufl.dot(d[k], d[k]) * ufl.dot(vd[k], vd[k]))
              for k, c in enumerate((m.M11, m.M22)))
    forms, scales = {}, {}
    for i in range(3):
        forms[f"p_{i + 1}"] = sum((b[0][i] * b[2] for b in bodies), m.rhoA * vphi[i] * dx)
        forms[f"J_{i + 1}"] = sum((b[1][i] * b[2] for b in bodies), J[i] * dx)
        forms[f"com_{i + 1}"] = phi[i] / L * dx
        scales[f"p_{i + 1}"] = sum((abs(b[0][i]) * b[2] for b in bodies),
                                   m.rhoA * abs(vphi[i]) * dx)
        scales[f"J_{i + 1}"] = sum((abs(b[1][i]) * b[2] for b in bodies), Jabs * dx)
        scales[f"com_{i + 1}"] = abs(phi[i]) / L * dx
    value = lambda f: fem.assemble_scalar(fem.form(f))  # noqa: E731
    return ({k: value(f) for k, f in forms.items()},
            {k: value(f) for k, f in scales.items()})


@pytest.mark.parametrize("make", [tapered, with_body])
def test_momentum_columns_are_the_ufl_integrals(make):
    m = make()
    m.set_velocity(v_phi=lambda s: np.array([0.2 + 0 * s, -0.5 * s, 0.3 * s**2]),
                   omega=(1.5, -0.7, 2.0))
    integ = Integrator(m, 1e-3)
    sim = Simulation(integ)
    integ.step()
    integ.step()
    got = MomentumProbe()(sim, None)
    ref, scale = integrals(m)
    for k, v in ref.items():
        assert abs(got[k] - v) <= roundoff(scale[k]), (k, got[k], v)


def test_csv_lines_are_the_csv_modules(tmp_path):
    cols = ["t", "a", "b", "c", "d"]
    rows = [{"t": 0.1, "a": 3, "b": 1e-5, "c": -2.5e300, "d": 5e-324},
            {"t": 1 / 3, "a": 12, "b": 1e16, "c": 123456789.125, "d": -0.0},
            {"t": np.float64(0.2), "a": np.int64(7), "c": "x,y"},
            {"t": 0.3, "a": True, "b": np.float32(0.5)}]
    w = CSVWriter(tmp_path / "r.csv", cols)
    for r in rows:
        w.write(r)
    w.close()
    ref = io.StringIO()
    out = csv.writer(ref)
    out.writerow(cols)
    for r in rows:
        out.writerow([float(v) if isinstance(v, float | np.floating)
                      else v.item() if isinstance(v, np.generic) else v
                      for v in (r.get(c, "") for c in cols)])
    assert (tmp_path / "r.csv").read_text(newline="") == ref.getvalue()
