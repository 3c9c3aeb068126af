"""The mode table (issue 40, item 5): the type rule of :mod:`fxrod.analysis.modetable` on straight
rods of circular section whose modes are known in closed form, ``fxrod modes`` on a user's
own script, the pictures."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from fxrod.analysis.modes import modes
from fxrod.analysis.modetable import COLUMNS, classify, mode_table
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.core.supports import Clamp
from fxrod.errors import ParameterError
from fxrod.output.tables import read_csv

#: Steel rod (SI): L = 1 m, r = 20 mm (L / r = 50), nu = 0.3, Cowper's shear factor.
L, R, E, RHO, NU = 1.0, 0.02, 210e9, 7850.0, 0.3
G = E / (2.0 * (1.0 + NU))
SEC = Section.circular(R, E, RHO, nu=NU, shear_factor="cowper")
#: Euler-Bernoulli bending frequency factor [rad/s] per beta^2: sqrt(EI / rhoA) / L^2.
EB = np.sqrt(SEC.k_b1 / SEC.rhoA) / L**2
#: Shear and rotary inertia (in the Cosserat rod, not in Euler-Bernoulli) lower a bending
#: frequency by the order of 1/2 (r_g beta / L)^2 (1 + E / (kappa G)), r_g = r / 2
#: (Timoshenko's first-order term of a simply supported beam; kappa = 0.886): 7e-4 for
#: beta = 1.875, 4e-3 for beta = 4.730 here, hence the bounds 2e-3 and 1e-2 below.
KAPPA = SEC.k_s1 / (G * np.pi * R**2)


def _rod(n_elements: int = 20) -> Rod:
    return Rod(SEC, start=(0, 0, 0), end=(L, 0, 0), d1=(0, 1, 0), n_elements=n_elements)


def test_cantilever_types_and_frequencies():
    """Clamped-free, 10 modes: by the closed forms the bending pairs beta_n^2 EB = 182,
    1140, 3191 rad/s, the torsion mode (pi/2) sqrt(GJ / (rho I_p)) / L = 5039 rad/s, the
    fourth bending pair 6253 rad/s and the axial mode (pi/2) sqrt(E / rho) / L = 8125
    rad/s. Each type is checked against its own closed form:

    * bending pair 1: two equal omega (symmetric section) at 1.8751^2 EB, lowered by
      shear and rotary inertia (order 7e-4, above): within 2e-3;
    * torsion: (pi/2) sqrt(G / rho) / L (J = I_p for a circle; rotary inertia
      M11 + M22 = rho I_p), a wave equation the Cosserat rod solves exactly up to its
      P2 discretisation (20 elements, (k h)^4 ~ 4e-5 at most): within 1e-5;
    * axial: (pi/2) sqrt(E / rho) / L, likewise within 1e-5.
    """
    model = RodModel(_rod(), [], [Clamp("0")])
    table = mode_table(model, modes(model, 10))
    types = table.types
    bending = [i for i, t in enumerate(types) if t == "bending"]
    assert types.count("torsion") == 1 and types.count("axial") == 1, types
    assert types.count("bending") == 8 and bending[:2] == [0, 1], types
    w = table.omega
    w_b1 = 1.8751040687**2 * EB
    assert abs(w[0] / w_b1 - 1.0) <= 2e-3 and abs(w[1] / w_b1 - 1.0) <= 2e-3
    assert w[0] < w_b1                  # shear and rotary inertia lower it (measured 9e-4)
    assert w[1] == pytest.approx(w[0], rel=1e-9)
    it, ia = types.index("torsion"), types.index("axial")
    assert w[it] == pytest.approx(0.5 * np.pi * np.sqrt(G / RHO) / L, rel=1e-5)
    assert w[ia] == pytest.approx(0.5 * np.pi * np.sqrt(E / RHO) / L, rel=1e-5)
    assert table.frequency == pytest.approx(w / (2.0 * np.pi), rel=1e-14)
    # the shares of the strain energy: a straight rod's bending modes are uncoupled from
    # torsion and extension; their shear share is of the order (beta_n r_g / L)^2 E /
    # (kappa G) (Timoshenko; measured 1.5e-3, 1.0e-2, 2.4e-2, 4.3e-2 for n = 1..4, bounded
    # by twice that order)
    f = table.fractions
    assert f[bending][:, [0, 3]].sum(axis=1) == pytest.approx(1.0, abs=1e-9)
    beta = np.repeat([1.8751040687, 4.6940911330, 7.8547574382, 10.995540734], 2)
    assert np.all(f[bending, 3] <= 2.0 * (0.5 * R * beta / L) ** 2 * E / (KAPPA * G))
    assert f[it, 1] == pytest.approx(1.0, abs=1e-9)
    assert f[ia, 2] == pytest.approx(1.0, abs=1e-9)
    assert f.sum(axis=1) == pytest.approx(1.0, rel=1e-12)


def test_free_rod_rigid_then_bending():
    """Free-free, 8 modes: six rigid-body modes (exact zeros) then the first bending pair
    at 4.7300^2 EB (Euler-Bernoulli, lowered by shear and rotary inertia, order 4e-3 at
    beta = 4.73: within 1e-2)."""
    model = RodModel(_rod(16), [], [])
    table = mode_table(model, modes(model, 8))
    assert table.types == ["rigid"] * 6 + ["bending"] * 2
    assert np.all(table.omega[:6] == 0.0)
    w_ff = 4.7300407449**2 * EB
    assert table.omega[6:] == pytest.approx([w_ff, w_ff], rel=1e-2)
    assert table.omega[6] < w_ff
    assert np.all(table.fractions[:6] == 0.0)


def test_classify_rule_and_errors():
    """Synthetic energies: rigid below 1e-6 of the largest omega or without strain
    energy, else the largest group (shear = Gamma_1 + Gamma_2, axial = Gamma_3, bending =
    K_1 + K_2, torsion = K_3)."""
    omega = np.array([0.0, 1e-7, 5.0, 10.0, 20.0, 30.0])
    U = np.array([[0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], [0, 0, 0, 0.3, 0.3, 0.4],
                  [0, 0, 2, 1, 0, 0], [0.6, 0.6, 0, 1, 0, 0], [0, 0, 0, 0, 0, 0]], float)
    fractions, types = classify(omega, U)
    assert types == ["rigid", "rigid", "bending", "axial", "shear", "rigid"]
    assert fractions[2] == pytest.approx([0.6, 0.4, 0.0, 0.0])
    assert fractions[4] == pytest.approx([1 / 2.2, 0.0, 0.0, 1.2 / 2.2])
    with pytest.raises(ParameterError, match="rigid_tol"):
        classify(omega, U, rigid_tol=1.5)
    with pytest.raises(ParameterError, match="energies"):
        classify(omega, U[:3])


SCRIPT = """
from fxrod.core.supports import Clamp
from fxrod.core.model import RodModel
from fxrod.runs.problem import Problem
from fxrod.core.rod import Rod, Section


def cantilever(n_elements=12, comm=None):
    sec = Section.circular({R}, {E}, {RHO}, nu={NU}, shear_factor="cowper")
    rod = Rod(sec, start=(0, 0, 0), end=({L}, 0, 0), d1=(0, 1, 0), n_elements=n_elements)
    return Problem(RodModel(rod, [], [Clamp("0")], comm=comm), 1e-3, 1.0)


def not_a_model():
    return 42
"""


def test_cli_modes_of_a_users_script(tmp_path, capsys):
    """``fxrod modes path/to/module.py:function``: the function's Problem (keywords comm
    and n_elements passed), the table printed and written; mode 1 at Euler-Bernoulli's
    1.8751^2 EB within 2e-3 (as above). Errors are one line, status 2."""
    from fxrod.cli import main

    script = tmp_path / "my_rod.py"
    script.write_text(textwrap.dedent(SCRIPT.format(R=R, E=E, RHO=RHO, NU=NU, L=L)))
    out = tmp_path / "out"
    assert main(["modes", f"{script}:cantilever", "--out", str(out), "--n-modes", "3",
                 "--n-elements", "10", "--no-pictures"]) == 0
    printed = capsys.readouterr().out
    assert "f [Hz]" in printed and "bending" in printed
    d = read_csv(out / "my_rod_cantilever_mode_table.csv")
    assert list(d) == list(COLUMNS)
    assert d["mode"].tolist() == [1.0, 2.0, 3.0]
    w_b1 = 1.8751040687**2 * EB
    assert d["omega"][:2] == pytest.approx([w_b1, w_b1], rel=2e-3)
    assert d["frequency"] == pytest.approx(d["omega"] / (2 * np.pi), rel=1e-12)
    assert (out / "my_rod_cantilever_modes.csv").exists()
    text = (out / "my_rod_cantilever_mode_table.csv").read_text().splitlines()
    assert [r.split(",")[3] for r in text[1:]] == ["bending"] * 3
    for bad, needle in ((f"{script}:not_a_model", "RodModel or Problem"),
                        (f"{script}:missing", "a function 'missing'"),
                        (f"{tmp_path}/nope.py:f", "not found"),
                        ("no-such-case", "unknown case")):
        assert main(["modes", bad, "--out", str(out), "--no-pictures"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("fxrod: error:") and needle in err and "\n" not in err


def test_mode_pictures(tmp_path, monkeypatch):
    """One panel a mode titled with its number, frequency and type; GIF frames titled
    "mode k, f = ... Hz"."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fxrod import viz
    from fxrod.cli import write_mode_outputs
    from tests.conftest import assert_picture

    seen = {"titles": [], "labels": []}
    figure, animation = viz.mode_figure, viz.animation

    def record_figure(x0, shapes, titles, path, **kw):
        seen["titles"] += list(titles)
        return figure(x0, shapes, titles, path, **kw)

    def record_animation(frames, times, path, **kw):
        seen["labels"].append(set(kw["labels"]))
        return animation(frames, times, path, **kw)

    monkeypatch.setattr(viz, "mode_figure", record_figure)
    monkeypatch.setattr(viz, "animation", record_animation)
    model = RodModel(_rod(8), [], [Clamp("0")])
    table, files = write_mode_outputs(model, "c", tmp_path, 2)
    f = table.frequency
    assert seen["titles"] == [f"mode {k + 1}: f = {f[k]:.4g} Hz (bending)" for k in (0, 1)]
    assert seen["labels"] == [{f"mode {k + 1}, f = {f[k]:.4g} Hz"} for k in (0, 1)]
    assert f[0] == pytest.approx(1.8751040687**2 * EB / (2 * np.pi), rel=2e-3)
    assert not plt.get_fignums()                 # the figure was closed
    names = {f.name for f in files}
    assert names == {"c_modes.csv", "c_mode_table.csv", "c_modes.png", "c_mode1.gif",
                     "c_mode2.gif"}
    w, h = assert_picture(tmp_path / "c_modes.png")
    assert w > h                        # two panels side by side
    assert table.types == ["bending", "bending"]
