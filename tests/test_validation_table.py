"""Issue 11: one table of invalid inputs across the public API and the CLI. Each must raise
a ParameterError (a ValueError) whose message names the parameter, before any form is
compiled (the CLI: a one-line error and exit status 2)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from fxrod.errors import ParameterError
from tests.conftest import ROOT

SEC = dict(rhoA=1, M11=1, M22=1, k_s1=1, k_s2=1, k_e=1, k_b1=1, k_b2=1, k_t=1)


def _rod(**kw):
    from fxrod.core.rod import Rod, Section

    base = dict(section=Section(**SEC), start=(0, 0, 0), end=(1, 0, 0), d1=(0, 1, 0),
                n_elements=4)
    base.update(kw)
    return Rod(**base)


def _section(**kw):
    from fxrod.core.rod import Section

    d = dict(SEC)
    d.update(kw)
    return Section(**d)


def _integrator(**kw):
    from fxrod.runs.integrators import Integrator
    from fxrod.solvers.settings import SolverSettings
    from fxrod.studies.cases import demo

    h = kw.pop("h", 0.1)
    return Integrator(demo("flying_spaghetti").problem(2).model, h, SolverSettings(**kw))


def _model(**kw):
    from fxrod.core.model import RodModel

    return RodModel(_rod(), **kw)


def _maxwell(**kw):
    from fxrod.core.forms.viscoelastic import GeneralizedMaxwell, MaxwellBranch

    rod = _rod()
    if "branches" in kw:
        return GeneralizedMaxwell(kw["branches"])
    stiff = kw.get("stiffness", 0.5 * rod.section.stiffness)
    return _model(extensions=[GeneralizedMaxwell([MaxwellBranch(stiff, kw.get("tau_E", 0.1),
                                                                kw.get("tau_G", 0.1))])])


def _actuator(kind, **kw):
    from fxrod.core.forms import actuation

    cls = actuation.Tendon if kind == "tendon" else actuation.PressureChamber
    return cls(**kw)


def _actuation_outside():
    from fxrod.core.forms.actuation import Actuation, Tendon
    from fxrod.core.model import RodModel

    rod = _rod(section=_section(radius=0.01))
    return RodModel(rod, extensions=[Actuation([Tendon(offset=(0.05, 0.0), tension=1.0)])])


def _ancf(**kw):
    from fxrod.ancf import ANCFBeam, BeamProperties

    props = BeamProperties(L=1.0, E=kw.pop("E", 2e11), rho=7850.0, b=0.02, h=0.02)
    return ANCFBeam(props, kw.pop("n_elements", 4), **kw)


def _graded(lam, n):
    from fxrod.ancf import graded_modulus

    return graded_modulus(2e11, lam, n, 1.0)


def _hamel(**kw):
    from fxrod.hamel.lattice import HamelBeam
    from fxrod.hamel.section import HamelSection

    sec = HamelSection.square(0.1, 2e11, 0.3, 7850.0)
    base = dict(section=sec, length=1.0, n_elements=9, h=1e-6)
    base.update(kw)
    return HamelBeam(**base)


CASES = [
    ("length", lambda: _rod(start=(1, 2, 3), end=(1, 2, 3))),
    ("n_elements", lambda: _rod(n_elements=0)),
    ("d1", lambda: _rod(d1=(1, 0, 0))),
    ("start", lambda: _rod(start=(0, np.inf, 0))),
    ("k_e", lambda: _section(k_e=-5.0)),
    ("rhoA", lambda: _section(rhoA=-1.0)),
    ("nu", lambda: __import__("fxrod.core.rod", fromlist=["Section"]).Section.circular(
        radius=0.01, E=1e9, rho=1e3, nu=0.6)),
    ("constraints", lambda: _rod(constraints=("kirchhoff", "bend1", "bend2", "torsion"))),
    ("constraints", lambda: _rod(constraints=("stiff",))),
    ("h", lambda: _integrator(h=0.0)),
    ("evaluation", lambda: _model(evaluation="implicit")),
    ("evaluation", lambda: _model(evaluation="endpoint")),   # dynamics: midpoint only
    ("linesearch", lambda: _integrator(linesearch="newton")),
    ("jacobian_lag", lambda: _integrator(jacobian_lag=0)),
    ("t_end", lambda: _integrator().advance_to(-2.0)),
    ("force", lambda: __import__("fxrod.core.loads", fromlist=["EndLoad"]).EndLoad(
        "L", force=(1.0, 0.0))),
    ("g", lambda: __import__("fxrod.core.loads", fromlist=["Gravity"]).Gravity(g=(0, 9.81))),
    ("tau_E", lambda: _maxwell(tau_E=-0.1)),
    ("stiffness", lambda: _maxwell(stiffness=0.9 * np.ones(6) * 2)),
    ("branches", lambda: _maxwell(branches=[])),
    ("tension", lambda: _actuator("tendon", offset=(0.001, 0.0), tension=-1.0)),
    ("force", lambda: _actuator("chamber", offset=(0.001, 0.0), force=5.0)),
    ("s_range", lambda: _actuator("tendon", offset=(0.001, 0.0), tension=1.0,
                                  s_range=(0.5, 0.5))),
    ("offset", _actuation_outside),
    ("lam", lambda: _graded(1.2, 1.0)),
    ("n", lambda: _graded(0.3, 0.0)),
    ("E", lambda: _ancf(E=-1.0)),
    ("n_elements", lambda: _ancf(n_elements=0)),
    ("h", lambda: _hamel(h=-1e-4)),
    ("n_elements", lambda: _hamel(n_elements=0)),
    ("h", lambda: _hamel(h=1.0)),   # above the stability limit
]


@pytest.mark.parametrize("name,make", CASES, ids=[f"{i:02d}-{c[0]}" for i, c in
                                                   enumerate(CASES)])
def test_invalid_input_names_parameter(name, make):
    with pytest.raises(ParameterError) as ei:
        make()
    assert name in str(ei.value), str(ei.value)


CLI_CASES = [
    (["run", "no-such-demo"], "unknown demo"),
    (["run", "flying-spaghetti", "--out", "/proc/forbidden"], "out"),
    (["plot", "pyproject.toml"], "column"),
    (["sweep", "cantilever-vibration", "--param", "scale="], "scale"),
]


@pytest.mark.parametrize("args,needle", CLI_CASES)
def test_cli_invalid_input(args, needle):
    p = subprocess.run([sys.executable, "-m", "fxrod", *args], capture_output=True,
                       text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 2, p.stderr
    assert needle in p.stderr and "Traceback" not in p.stderr, p.stderr


#: The modules whose own checks the table must reach (path below fxrod/): geometry and
#: sections, integrator and settings, model, loads, viscoelastic and actuation extensions,
#: the ANCF material and element, the Hamel lattice.
VALIDATING_MODULES = {"core/geometry.py", "core/rod.py", "runs/integrators.py",
                      "solvers/settings.py", "core/model.py", "core/loads.py",
                      "core/forms/viscoelastic.py", "core/forms/actuation.py",
                      "ancf/material.py", "ancf/element.py", "hamel/lattice.py"}


def test_table_is_large_enough():
    """The table reaches every layer that validates input: the ParameterError of each case
    is raised (outside the shared helpers of fxrod/errors.py) in one of the modules above,
    and together the cases reach all of them. A case that failed earlier, e.g. in a shared
    helper or in a constructor called on the way, would not count for its module."""
    import traceback

    reached = {}
    for name, make in CASES:
        with pytest.raises(ParameterError) as ei:
            make()
        frames = [f.filename.replace("\\", "/") for f in traceback.extract_tb(ei.tb)]
        own = [f.split("/fxrod/")[-1] for f in frames
               if "/fxrod/" in f and not f.endswith("fxrod/errors.py")]
        assert own, (name, frames)
        reached.setdefault(own[-1], []).append(name)
    assert set(reached) == VALIDATING_MODULES, reached
