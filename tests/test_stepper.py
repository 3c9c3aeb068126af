"""The stepper protocol (fxrod.solvers.stepper): one recorded run,
:class:`fxrod.runs.simulation.Simulation`,
for every formulation -- the Cosserat rod (:class:`fxrod.runs.integrators.Integrator`), the planar
ANCF beam (:class:`fxrod.ancf.steppers.CentralDifferenceStepper`) and the Hamel lattice
(:class:`fxrod.hamel.HamelStepper`).

Each test against an independent reference:

* ``test_each_formulation_meets_the_protocol``: the protocols' members (structural check);
* ``test_sigint_mid_run_then_restart_equals_the_uninterrupted_run``: per formulation, a
  SIGINT during a step stops the run after it with a CSV whose every line is complete and
  equals the uninterrupted run's first rows; the restart from the checkpoint then ends with
  the uninterrupted run's CSV and rows, every value within the round-off model
  ``roundoff(max |column|, steps of both runs)`` (tests/roundoff.py; bit for bit measured);
* ``test_hamel_failed_step_checkpoints_the_last_good_state``: a node-wise solve that
  fails ends the run with the error and a checkpoint of the last good level; the restart
  ends with the uninterrupted run's CSV (the round-off model, as above);
* ``test_companion_rows_equal_the_plain_stepper_loop``: the rows Simulation records equal
  those of the formulations' own loops without it (``CentralDifference.run`` with
  ``record_every``, ``fxrod.hamel.run``) to round-off (bit for bit measured): the adapters
  add nothing and leave nothing out;
* ``test_hamel_exact_discrete_momentum_through_simulation``: ``J_d`` of every recorded
  level equals ``J_d(0)`` within ``roundoff(|J_d(0)|, steps)`` (an exact discrete identity,
  theory §H5), and ``J_d(0)`` equals theory §H7's value (1e-4, the case's check);
* ``test_companion_refusals_are_one_line``: a controller, callbacks or ParaView frames
  with a companion stepper, and an object that is no stepper, are refused in one line
  before anything is stepped.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from fxrod.ancf.element import ANCFBeam
from fxrod.ancf.material import blog_beam
from fxrod.ancf.steppers import CentralDifference, CentralDifferenceStepper
from fxrod.errors import ConvergenceError, ParameterError
from fxrod.hamel import HamelBeam, HamelStepper, example2, series
from fxrod.hamel import run as hamel_run
from fxrod.output.tables import read_csv
from fxrod.problems.hamel import fingerprint
from fxrod.problems.paper import PAPER_SETTINGS
from fxrod.runs.checkpoint import companion_fingerprint
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Interrupted, Simulation
from fxrod.solvers.stepper import CompanionStepper, Stepper
from fxrod.studies.cases import demo
from tests.roundoff import roundoff

#: The hamel-free-beam demo (its J_d(0) of theory §H7 and its checkpoint fingerprint).
HAMEL = demo("hamel_free_beam")

#: Steps of each formulation's run and its step size [s] (ANCF: 0.9 h_critical).
STEPS = {"rod": 8, "ancf": 60, "hamel": 40}
ANCF_EVERY = 4          # the ANCF run records every 4th step
HAMEL_CSV_EVERY = 3     # the Hamel run writes every 3rd level (and the last)


def _ancf_stepper() -> CentralDifferenceStepper:
    """A graded cantilever of 4 ANCF elements under gravity, released from rest."""
    beam = ANCFBeam(blog_beam(0.3, 2.0), 4, gravity=(0.0, -9.81))
    cd = CentralDifference(beam, safety=0.9)
    fp = companion_fingerprint({"mesh": "4 elements", "kind": "ANCF test release",
                                "step": f"h = {cd.h!r}"})
    return CentralDifferenceStepper(cd, fp)


def _hamel_stepper() -> HamelStepper:
    """Example 2 of the HFVI paper (free beam, 9 elements), h = 1e-4 s."""
    beam = example2(1e-4)
    return HamelStepper(beam, fingerprint(beam))


def _sim(kind: str, out: Path, **kw) -> tuple[Simulation, float]:
    """A recorded run of ``kind`` into ``out`` and its end time [s]."""
    if kind == "rod":
        integ = Integrator(demo("flying_spaghetti").problem(4).model, 0.1, PAPER_SETTINGS)
        return Simulation(integ, out, kind, **kw), STEPS[kind] * 0.1
    if kind == "ancf":
        st = _ancf_stepper()
        sim = Simulation(st, out, kind, snapshot_times=[0.0, 30 * st.h],
                         record_every=ANCF_EVERY, **kw)
        return sim, STEPS[kind] * st.h
    st = _hamel_stepper()
    return (Simulation(st, out, kind, snapshot_times=[0.0, 20e-4],
                       csv_every=HAMEL_CSV_EVERY, **kw), STEPS[kind] * 1e-4)


def _complete_rows(path: Path) -> int:
    """Data rows of a CSV whose every line is complete (newline, the header's fields)."""
    text = path.read_text()
    assert text.endswith("\n"), repr(text[-80:])
    lines = text.splitlines()
    assert all(len(ln.split(",")) == len(lines[0].split(",")) for ln in lines)
    return len(lines) - 1


def _assert_same(a: dict, b: dict, steps: int, rows: int | None = None) -> None:
    """Columns of ``b`` (the first ``rows`` rows) equal those of ``a`` within
    ``roundoff(max |column|, steps)``."""
    assert list(a) == list(b)
    for c in a:
        x, y = np.asarray(a[c], float), np.asarray(b[c], float)
        x = x[:rows] if rows is not None else x
        assert x.shape == y.shape, c
        tol = roundoff(np.max(np.abs(x)), steps) if x.size else 0.0
        assert np.all(np.abs(x - y) <= tol), (c, np.max(np.abs(x - y)), tol)


def test_each_formulation_meets_the_protocol():
    integ = Integrator(demo("flying_spaghetti").problem(4).model, 0.1, PAPER_SETTINGS)
    assert isinstance(integ, Stepper) and not isinstance(integ, CompanionStepper)
    for st in (_ancf_stepper(), _hamel_stepper()):
        assert isinstance(st, CompanionStepper)


def _sigint_at(monkeypatch, k: int) -> None:
    """Send SIGINT to this process during the k-th step a Simulation records."""
    record = Simulation._record
    count = {"n": 0}

    def wrapped(self, res=None):
        if res is not None:
            count["n"] += 1
            if count["n"] == k:
                os.kill(os.getpid(), signal.SIGINT)
        record(self, res)

    monkeypatch.setattr(Simulation, "_record", wrapped)


@pytest.mark.parametrize("kind", ["rod", "ancf", "hamel"])
def test_sigint_mid_run_then_restart_equals_the_uninterrupted_run(tmp_path, monkeypatch,
                                                                  kind):
    full, t_end = _sim(kind, tmp_path / "full")
    with full:
        full.run(t_end)
    ref = read_csv(tmp_path / "full" / f"{kind}.csv")
    n = STEPS[kind]
    k = n // 2 + 1                                      # stop in the middle of the run
    with monkeypatch.context() as m:
        _sigint_at(m, k)
        cut, _ = _sim(kind, tmp_path / "cut", checkpoint_every=3)
        with pytest.raises(Interrupted) as ei:
            cut.run(t_end)
    assert ei.value.signum == signal.SIGINT
    assert cut.integ.step_count == k                   # stopped at the end of step k
    rows = _complete_rows(tmp_path / "cut" / f"{kind}.csv")
    assert 0 < rows < len(ref["t"])
    _assert_same(ref, read_csv(tmp_path / "cut" / f"{kind}.csv"), n + k, rows)
    resumed, _ = _sim(kind, tmp_path / "cut", checkpoint_every=3, restart=tmp_path / "cut")
    assert resumed.integ.step_count == k
    with resumed:
        resumed.run(t_end)
    _assert_same(ref, read_csv(tmp_path / "cut" / f"{kind}.csv"), 2 * n)
    cols = list(full.rows[0])
    _assert_same({c: [r[c] for r in full.rows] for c in cols},
                 {c: [r[c] for r in resumed.rows] for c in cols}, 2 * n)
    assert sorted(resumed.snapshots) == sorted(full.snapshots)
    for t, x in full.snapshots.items():
        assert np.all(np.abs(resumed.snapshots[t] - x) <= roundoff(np.abs(x).max(), 2 * n))


def test_hamel_failed_step_checkpoints_the_last_good_state(tmp_path, monkeypatch):
    full, t_end = _sim("hamel", tmp_path / "full")
    with full:
        full.run(t_end)
    solve = HamelBeam._solve

    def flaky(self, b, h):
        if self.n == 25:
            raise ConvergenceError(self.t, h, "DIVERGED_MAX_IT", "injected")
        return solve(self, b, h)

    with monkeypatch.context() as m:
        m.setattr(HamelBeam, "_solve", flaky)
        cut, _ = _sim("hamel", tmp_path / "cut", checkpoint_every=10)
        with pytest.raises(ConvergenceError, match="injected"):
            cut.run(t_end)
    assert cut.integ.step_count == 24     # level 24: the step leaving 25 (ahead) failed
    resumed, _ = _sim("hamel", tmp_path / "cut", checkpoint_every=10,
                      restart=tmp_path / "cut")
    assert resumed.integ.step_count == 24
    with resumed:
        resumed.run(t_end)
    n = STEPS["hamel"]
    _assert_same(read_csv(tmp_path / "full" / "hamel.csv"),
                 read_csv(tmp_path / "cut" / "hamel.csv"), 2 * n)
    assert len(resumed.rows) == len(full.rows) == n + 1


def test_companion_rows_equal_the_plain_stepper_loop():
    st = _ancf_stepper()
    sim = Simulation(st, record_every=ANCF_EVERY,
                     csv_every=1)
    sim.run(STEPS["ancf"] * st.h)
    plain = _ancf_stepper().cd.run((STEPS["ancf"] - 1) * st.h, record_every=ANCF_EVERY)
    got = {c: [r[c] for r in sim.rows] for c in plain.columns}
    # the plain loop records before each step: its rows are those of steps 0 .. n - 1
    want = {c: list(plain.column(c)) for c in plain.columns}
    _assert_same(want, {c: v[:len(plain)] for c, v in got.items()}, STEPS["ancf"])
    assert len(sim.rows) == len(plain) + 1           # and the last state at t_end

    st = _hamel_stepper()
    sim = Simulation(st)
    sim.run(STEPS["hamel"] * 1e-4)
    plain = hamel_run(example2(1e-4), STEPS["hamel"] + 1)   # + the step leaving t_end
    got = {c: [r[c] for r in sim.rows] for c in plain.columns}
    _assert_same({c: list(plain.column(c)) for c in plain.columns}, got, STEPS["hamel"])


def test_hamel_exact_discrete_momentum_through_simulation():
    st = _hamel_stepper()
    sim = Simulation(st, csv_every=HAMEL_CSV_EVERY)
    sim.run(STEPS["hamel"] * 1e-4)
    from fxrod.output.history import History

    Jd = series(History(sim.rows), "Jd")
    assert len(Jd) == STEPS["hamel"] + 1
    scale = np.abs(Jd[0]).max()
    assert np.abs(Jd - Jd[0]).max() <= roundoff(scale, STEPS["hamel"])
    np.testing.assert_allclose(Jd[0], HAMEL.JD0_THEORY, rtol=1e-4, atol=1e-6)


def test_companion_refusals_are_one_line(tmp_path):
    st = _hamel_stepper()
    for kw, what in (({"controller": lambda t, y: 0.0}, "a controller"),
                     ({"callbacks": [lambda t, s: None]}, "callbacks"),
                     ({"paraview_every": 1}, "paraview_every = 1")):
        with pytest.raises(ParameterError) as ei:
            Simulation(st, tmp_path, **kw)
        assert "\n" not in str(ei.value) and what in str(ei.value)
    with pytest.raises(ParameterError, match="CompanionStepper"):
        Simulation(object())
    with pytest.raises(ParameterError, match="record_every"):
        Simulation(st, record_every=0)
    assert st.step_count == 0 and not list(tmp_path.iterdir())
