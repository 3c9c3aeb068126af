"""Snapshot pictures that read (issue 40, item 6): overlapping snapshots shifted apart
(``offset``) or one a panel (``layout="side-by-side"``), the tube radius the caller passes
(the section's), and bad options refused in one line naming the parameter. Also the API
reference split into the public API and the internals, with every module in exactly one."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from fxrod import viz
from fxrod.errors import ParameterError
from tests.conftest import ROOT

pytest.importorskip("pyvista")


def _helix(pitch: float) -> np.ndarray:
    s = np.linspace(0.0, 10.0 * np.pi, 120)
    return np.c_[0.01 * np.cos(s), 0.01 * np.sin(s), pitch * s / (2.0 * np.pi)]


FRAMES = [_helix(0.004 + 0.002 * k) for k in range(3)]
TIMES = [0.0, 0.5, 1.0]


def _snapshot_mesh(renderer, k: int):
    return renderer.actors[f"snapshot {k}"].mapper.dataset


def test_side_by_side_has_one_panel_per_snapshot_with_its_data(tmp_path):
    p = viz.snapshot_plotter(FRAMES, TIMES, radius=1e-3, layout="side-by-side")
    try:
        assert len(p.renderers) == len(FRAMES)
        for k, ren in enumerate(p.renderers):
            names = [n for n in ren.actors if n.startswith("snapshot ")]
            assert names == [f"snapshot {k}"]               # one snapshot a panel
            mesh = _snapshot_mesh(ren, k)
            assert mesh.n_points > 0
            np.testing.assert_array_equal(mesh.field_data["centreline"], FRAMES[k])
            # the tube is as thick as asked: 1 mm about the centreline
            assert np.ptp(mesh.points[:, 0]) == pytest.approx(0.02 + 2e-3, rel=0.02)
    finally:
        p.close()
    png = viz.snapshot_figure(FRAMES, TIMES, tmp_path / "panels.png", radius=1e-3,
                              layout="side-by-side", title="spring")
    assert png.stat().st_size > 5000


def test_offset_moves_each_snapshot_by_its_index_times_the_offset(tmp_path):
    off = np.array([0.03, -0.01, 0.002])
    plain = viz.snapshot_plotter(FRAMES, TIMES, radius=1e-3)
    moved = viz.snapshot_plotter(FRAMES, TIMES, radius=1e-3, offset=tuple(off))
    try:
        assert len(moved.renderers) == 1
        for k, frame in enumerate(FRAMES):
            a, b = _snapshot_mesh(plain.renderer, k), _snapshot_mesh(moved.renderer, k)
            np.testing.assert_array_equal(b.field_data["centreline"], frame + k * off)
            np.testing.assert_array_equal(a.field_data["centreline"], frame)
            np.testing.assert_allclose(b.points, a.points + k * off, rtol=0, atol=1e-9)
    finally:
        plain.close()
        moved.close()
    png = viz.snapshot_figure(FRAMES, TIMES, tmp_path / "offset.png", offset=off)
    assert png.stat().st_size > 5000


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"layout": "grid"}, "layout"),
    ({"layout": None}, "layout"),
    ({"offset": (1.0, 2.0)}, "offset"),
    ({"offset": (0.0, np.nan, 0.0)}, "offset"),
    ({"offset": "far"}, "offset"),
    ({"offset": (0.1, 0.0, 0.0), "layout": "side-by-side"}, "offset"),
    ({"radius": 0.0}, "radius"),
    ({"radius": -1e-3}, "radius"),
    ({"radius": "thick"}, "radius"),
])
def test_bad_options_are_refused_in_one_line_naming_the_parameter(tmp_path, kwargs, name):
    with pytest.raises(ParameterError) as err:
        viz.snapshot_figure(FRAMES, TIMES, tmp_path / "bad.png", **kwargs)
    assert err.value.name == name
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"invalid {name} = ")
    assert not (tmp_path / "bad.png").exists()


def test_api_reference_splits_public_api_and_internals():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    from fxrod_api import public_units

    def listed(page: str) -> list[str]:
        text = (ROOT / "docs" / "reference" / page).read_text(encoding="utf-8")
        return re.findall(r"\]\(\.\./api/(fxrod[\w.]*)\.md\)", text)

    public, internal = listed("api-public.md"), listed("api-internals.md")
    assert len(set(public)) == len(public) and len(set(internal)) == len(internal)
    assert not set(public) & set(internal)
    assert set(public) | set(internal) == set(public_units())   # every module, once
    for m in ("fxrod.core.rod", "fxrod.runs.simulation", "fxrod.core.forms",
              "fxrod.studies.cases", "fxrod.errors"):
        assert m in public
    for m in ("fxrod.native.assembly", "fxrod.solvers.chain", "fxrod.native.jit",
              "fxrod.solvers.mumps", "fxrod.solvers.backends", "fxrod.solvers.newton",
              "fxrod.solvers.array_newton", "fxrod.solvers.reduction"):
        assert m in internal
