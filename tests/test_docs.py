"""The documentation site (issue 23): it builds with warnings as errors, documents every
public class and function, has a gallery page per demo, includes the theory, output and
validation notes, and a demo runs as a notebook."""

from __future__ import annotations

import functools
import importlib
import inspect
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_ext"))


@functools.cache
def built_site() -> Path:
    """Build the site once per test process with ``fxrod docs`` (Sphinx -W) into a
    temporary folder; return it. Skips the caller when Sphinx is not installed."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed (pip install .[docs])")
    pytest.importorskip("myst_parser", reason="the docs extra is not installed")
    out = Path(tempfile.mkdtemp(prefix="fxrod-docs-")) / "html"
    p = subprocess.run([sys.executable, "-m", "fxrod", "docs", "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-6000:]
    assert "WARNING" not in p.stderr, p.stderr[-6000:]
    return out


def test_site_builds_without_warnings():
    site = built_site()
    for page in ("index", "getting-started", "guide/index", "demos/index", "api/index",
                 "reference/theory", "reference/validation"):
        assert (site / f"{page}.html").stat().st_size > 2000, page


def _public_objects() -> dict[str, list[str]]:
    """``{module: [public classes and functions defined in it]}`` of every documented
    module (the units of the generated API reference)."""
    from fxrod_api import public_units

    out = {}
    for mods in public_units().values():
        for mod in mods:
            m = importlib.import_module(mod)
            out[mod] = [n for n, obj in vars(m).items() if not n.startswith("_")
                        and (inspect.isclass(obj) or inspect.isfunction(obj))
                        and obj.__module__ == mod]
    return out


def test_api_reference_lists_every_public_class_and_function():
    from sphinx.util.inventory import InventoryFile

    site = built_site()
    with open(site / "objects.inv", "rb") as f:
        inv = InventoryFile.load(f, "", lambda base, uri: uri)
    documented = {name for kind in ("py:class", "py:function", "py:exception")
                  for name in (inv.data if hasattr(inv, "data") else inv).get(kind, {})}
    objects = _public_objects()
    missing = [f"{mod}.{n}" for mod, names in objects.items() for n in names
               if f"{mod}.{n}" not in documented]
    assert not missing, missing
    assert "fxrod.core.loads.Gravity" in documented and "fxrod.core.supports.Clamp" in documented
    assert sum(len(v) for v in objects.values()) > 100


def test_gallery_has_a_page_per_demo_with_picture_and_code():
    site = built_site()
    demos = sorted(p.stem for p in (ROOT / "demos").glob("*.py"))
    assert len(demos) >= 9
    index = (site / "demos" / "index.html").read_text()
    for stem in demos:
        html = (site / "demos" / f"{stem}.html").read_text()
        assert f"python demos/{stem}.py" in html and "highlight-python" in html, stem
        assert f'href="{stem}.html"' in index, stem
        for png in (ROOT / "docs" / "gallery").glob(f"{stem}*.png"):
            assert png.name in html and (site / "_images" / png.name).is_file(), png
    fs = (site / "demos" / "flying_spaghetti.html").read_text()
    assert "--h" in fs and "time step" in fs        # the options table with units
    assert "tests/test_flying_spaghetti.py" in fs   # the tests that check the demo


def test_theory_output_and_validation_are_included():
    site = built_site()
    theory = (site / "reference" / "theory.html").read_text()
    assert "Time stepping: implicit midpoint (42)" in theory
    output = (site / "guide" / "output.html").read_text()
    assert "energy_residual" in output and "kg m/s" in output
    validation = (site / "reference" / "validation.html").read_text()
    assert "test_flying_spaghetti.py::test_energy_balance_every_step" in validation


def test_percent_cells_of_a_demo():
    """The gallery reads the percent format: cell titles, comment text and code, and
    jupytext's Markdown cells."""
    from fxrod_gallery import rst_to_myst, split_cells

    src = ('"""Title.\n\nText."""\n\nimport x\n\n# %% The problem\n# Build it.\n'
           'p = x.problem()\n# not text\n\n# %% [markdown]\n# Some *text*.\n')
    doc, cells = split_cells(src)
    assert doc == "Title.\n\nText."
    assert [c.title for c in cells] == ["", "The problem", ""]
    assert cells[0].code == ["import x"]
    assert cells[1].text == ["Build it."] and cells[1].code == ["p = x.problem()",
                                                                "# not text"]
    assert cells[2].markdown and cells[2].text == ["Some *text*."]
    assert "```text\npython demos/a.py\n```" in rst_to_myst("Run:\n\n    python demos/a.py\n")


def test_a_demo_runs_as_a_notebook(tmp_path):
    """``jupytext --to ipynb demos/bend45.py`` executed headless by nbclient (``--quick``,
    output in a temporary folder, given as the command line the script would read)."""
    jupytext = pytest.importorskip("jupytext", reason="the notebooks extra is not installed "
                                   "(pip install .[notebooks])")
    nbclient = pytest.importorskip("nbclient", reason="the notebooks extra is not installed")
    pytest.importorskip("ipykernel", reason="the notebooks extra is not installed")
    import nbformat

    nb = jupytext.read(ROOT / "demos" / "bend45.py", fmt="py:percent")
    assert len(nb.cells) >= 4
    argv = ["bend45", "--quick", "--no-pictures", "--quiet", "--out", str(tmp_path)]
    nb.cells.insert(0, nbformat.v4.new_code_cell(f"import sys\nsys.argv = {argv!r}"))
    last = nb.cells[-1]
    last.source = last.source.replace("raise SystemExit(CASE.main())", "status = CASE.main()")
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    from fxrod.output.tables import read_csv

    d = read_csv(tmp_path / "bend45.csv")
    # Simo & Vu-Quoc (1986), 8 elements: tip at F = 600 is (47.23, 15.79, 53.37)
    assert d["load"][-1] == pytest.approx(600.0)
    assert [d["tip_1"][-1], d["tip_2"][-1], d["tip_3"][-1]] == pytest.approx(
        [47.23, 15.79, 53.37], abs=0.2)
