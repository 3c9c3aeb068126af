"""Quasi-static runs write statics (issue 40, item 4): the CSV carries the columns that have
a static meaning, the case names its load parameter, ``fxrod plot`` draws no empty panel
and puts that parameter on its axis."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fxrod.core.loads import EndLoad
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.output.tables import STATIC_OMITTED, LoadParameter, columns_json_path, read_csv
from fxrod.runs.integrators import Integrator
from fxrod.runs.simulation import Simulation
from fxrod.viz import timeseries_figure
from tests.conftest import assert_units_files

#: Steel cantilever, L = 1 m, r = 10 mm (SI).
L, R, E, RHO, NU = 1.0, 0.01, 210e9, 7850.0, 0.3
SEC = Section.circular(R, E, RHO, nu=NU, shear_factor="cowper")
#: Tip force [N]: linear tip deflection P L^3 / (3 EI) = 1e-3 L (geometric nonlinearity
#: of relative size (1e-3)^2 in the energy).
P = 1e-3 * 3.0 * SEC.k_b1 / L**2
STEPS = 4


TIP_FORCE = LoadParameter("tip force P", "N", P)


def _static_run(out, load: LoadParameter = TIP_FORCE) -> Simulation:
    rod = Rod(SEC, start=(0, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=8)
    model = RodModel(rod, [EndLoad("L", force=lambda t: t * np.array([0.0, 0.0, -P]))],
                     [Clamp("0")], quasistatic=True)
    sim = Simulation(Integrator(model, 1.0 / STEPS), out, "tip", load=load)
    sim.run(1.0)
    sim.close()
    return sim


def _axes_with_data(fig) -> list[bool]:
    """For every axis of the figure: whether it has a line with finite, nonzero values."""
    return [any(np.isfinite(ln.get_ydata()).any() and np.any(ln.get_ydata())
                for ln in ax.get_lines()) for ax in fig.axes]


def test_static_csv_has_static_columns_and_energy(tmp_path):
    """The CSV has no kinetic/momentum/ledger-flow columns; its strain energy at P is the
    linear Timoshenko value P^2 L^3 / (6 EI) + P^2 L / (2 kappa G A) (relative 1e-5: the
    geometric nonlinearity is (1e-3)^2, the P2 discretisation of a cubic deflection
    exact). The end-point work sum that the ledger books, sum_n P_{n+1} dw_n, is
    (N + 1) / N times that energy for a linear response in N equal steps: the
    right-rectangle rule, which is why it is not a static column."""
    import matplotlib.pyplot as plt

    sim = _static_run(tmp_path)
    d = read_csv(tmp_path / "tip.csv")
    assert not set(STATIC_OMITTED) & set(d)
    assert "energy_residual" not in d
    assert {"t", "strain_energy", "tip_1", "tip_3", "constraint_max", "newton_its",
            "clamp_0_force_3"} <= set(d)
    U = P**2 * L**3 / (6.0 * SEC.k_b1) + P**2 * L / (2.0 * SEC.k_s1)
    assert d["strain_energy"][-1] == pytest.approx(U, rel=1e-5)
    assert sim.column("external_work")[-1] == pytest.approx((STEPS + 1) / STEPS * U,
                                                            rel=1e-5)
    assert d["clamp_0_force_3"][-1] == pytest.approx(P, rel=1e-9)
    doc = json.loads(columns_json_path(tmp_path / "tip.csv").read_text())
    assert doc["quasistatic"] is True and list(doc["units"]) == list(d)
    assert doc["units"]["t"] == "-" and doc["units"]["strain_energy"] == "J"
    assert doc["load"] == {"name": "tip force P", "unit": "N", "per_t": P}

    fig = timeseries_figure(tmp_path / "tip.csv")
    try:
        assert len(fig.axes) == 2 and all(_axes_with_data(fig))
        assert fig.axes[-1].get_xlabel() == "tip force P [N]"
        x = fig.axes[-1].get_lines()[0].get_xdata()
        assert x[-1] == pytest.approx(P, rel=1e-14) and x[0] == 0.0
    finally:
        plt.close(fig)


def test_old_static_csv_is_drawn_without_empty_panels(tmp_path):
    """A quasi-static CSV written before the column description (kinetic energy and
    momenta all zero, no X_columns.json): statics panels only, axis the load factor."""
    import matplotlib.pyplot as plt

    t = np.linspace(0.0, 1.0, 5)
    cols = {"t": t, "kinetic": 0 * t, "strain_energy": t**2, "H": t**2,
            "external_work": 1.25 * t**2, "energy_residual": -0.25 * t**2,
            "p_1": 0 * t, "J_1": 0 * t, "tip_1": 1 - 0.1 * t, "tip_3": -0.2 * t}
    path = tmp_path / "old.csv"
    path.write_text(",".join(cols) + "\n" + "\n".join(
        ",".join(repr(float(v[i])) for v in cols.values()) for i in range(t.size)) + "\n")
    fig = timeseries_figure(path)
    try:
        assert all(_axes_with_data(fig)) and len(fig.axes) == 2
        assert fig.axes[-1].get_xlabel() == "load factor t [-]"
        labels = {ln.get_label() for ax in fig.axes for ln in ax.get_lines()}
        assert labels == {"strain_energy", "tip_1", "tip_3"}
    finally:
        plt.close(fig)


def test_case_names_its_load_parameter(tmp_path):
    """bend45 (t = the tip force F, up to 600): its CSV has no energy_residual, and
    ``fxrod plot`` draws strain energy and tip against "tip force F [N]" to 600."""
    import matplotlib.pyplot as plt

    from fxrod.cli import main
    from fxrod.studies.cases import CASES, demo

    LOAD = demo("bend45").LOAD
    CASES["bend45"].run(tmp_path, quick=True, pictures=False)
    checked = assert_units_files(tmp_path, at_least=3)   # bend45, _steps, _internal_forces
    assert (tmp_path / "bend45.csv") in checked
    csv = tmp_path / "bend45_steps.csv"
    assert "energy_residual" not in read_csv(csv) and "kinetic" not in read_csv(csv)
    fig = timeseries_figure(csv)
    try:
        assert LOAD.label == "tip force F [N]"
        assert fig.axes[-1].get_xlabel() == LOAD.label
        assert all(_axes_with_data(fig))
        assert fig.axes[-1].get_lines()[0].get_xdata()[-1] == 600.0
    finally:
        plt.close(fig)
    assert main(["plot", str(csv)]) == 0
    assert (tmp_path / "bend45_steps_plot.png").stat().st_size > 0


def test_load_parameter_errors(tmp_path):
    with pytest.raises(ParameterError, match="load parameter name"):
        LoadParameter("", "N")
    with pytest.raises(ParameterError, match="load parameter unit"):
        LoadParameter("force", "")
    with pytest.raises(ParameterError, match="per_t"):
        LoadParameter("force", "N", 0.0)
    rod = Rod(SEC, start=(0, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=2)
    dynamic = RodModel(rod, [], [Clamp("0")])
    with pytest.raises(ParameterError, match="load"):
        Simulation(Integrator(dynamic, 1e-3), load=LoadParameter("force", "N"))
