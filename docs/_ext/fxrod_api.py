"""Sphinx extension: the API reference, one page per public module or package of fxrod.

When the builder starts, ``docs/api/<module>.md`` is written for every public module of fxrod
(names without a leading underscore; a package's page documents its submodules too) with
autodoc's ``automodule``, and ``docs/api/index.md`` lists them by topic with the first line of
each module's docstring. A new module of fxrod therefore appears in the reference without an
edit here (under "More modules" until it is given a topic in :data:`TOPICS`).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

#: Folder of the generated pages, relative to the Sphinx source directory.
OUT = "api"

#: Topics of the index, in order, with their modules (top-level modules and packages).
TOPICS: dict[str, tuple[str, ...]] = {
    "Building a rod": ("fxrod", "fxrod.geometry", "fxrod.rod", "fxrod.bcs", "fxrod.loads",
                       "fxrod.pointload", "fxrod.joints", "fxrod.structure", "fxrod.obstacles"),
    "Physics: the model and its extensions": ("fxrod.model", "fxrod.forms", "fxrod.ledger",
                                              "fxrod.kinematics", "fxrod.spaces",
                                              "fxrod.diagnostics"),
    "Solving": ("fxrod.settings", "fxrod.errors", "fxrod.newton", "fxrod.integrators",
                "fxrod.problem", "fxrod.reduction", "fxrod.fastassembly", "fxrod.chain",
                "fxrod.continuation"),
    "Linear analysis and gradients": ("fxrod.linear", "fxrod.phmodel", "fxrod.phmodel_io",
                                      "fxrod.lqr", "fxrod.adjoint", "fxrod.optimize"),
    "Running and output": ("fxrod.simulation", "fxrod.stepper", "fxrod.probes",
                           "fxrod.history", "fxrod.io",
                           "fxrod.paraview", "fxrod.checkpoint", "fxrod.viz",
                           "fxrod.plots_viscoelastic"),
    "Ready problems, cases and the command line": ("fxrod.examples", "fxrod.frames",
                                                   "fxrod.soft_arm", "fxrod.cases",
                                                   "fxrod.modal_output", "fxrod.sweep",
                                                   "fxrod.sweep_plan", "fxrod.sweep_plot",
                                                   "fxrod.cli", "fxrod.data"),
    "Companion formulations": ("fxrod.ancf", "fxrod.hamel"),
}


def public_units() -> dict[str, list[str]]:
    """``{page module: [module, submodules...]}``: fxrod itself, every public top-level
    module, and every public package with its public submodules."""
    import fxrod

    units: dict[str, list[str]] = {"fxrod": ["fxrod"]}
    for info in pkgutil.iter_modules(fxrod.__path__, "fxrod."):
        if info.name.rsplit(".", 1)[1].startswith("_"):
            continue
        mods = [info.name]
        if info.ispkg:
            pkg = importlib.import_module(info.name)
            mods += [m.name for m in pkgutil.walk_packages(pkg.__path__, info.name + ".")
                     if not any(part.startswith("_") for part in m.name.split("."))]
        units[info.name] = mods
    return units


def _summary(module: str) -> str:
    doc = (importlib.import_module(module).__doc__ or "").strip()
    first = doc.split("\n\n", 1)[0].replace("\n", " ")
    return first.replace("``", "`")


def module_page(name: str, mods: list[str]) -> str:
    """The MyST page of one unit: an ``automodule`` per module."""
    lines = [f"# `{name}`", ""]
    for i, mod in enumerate(mods):
        if i:
            lines += [f"## `{mod}`", ""]
        lines += ["```{eval-rst}", f".. automodule:: {mod}", "```", ""]
    return "\n".join(lines)


def index_page(units: dict[str, list[str]]) -> str:
    """The index of the reference, by topic."""
    lines = ["# API reference", "",
             "Every public module of fxrod, generated from the numpy-style docstrings "
             "(parameters with their SI units). Start with `fxrod.rod`, `fxrod.geometry`, "
             "`fxrod.bcs`, `fxrod.loads`, `fxrod.model`, `fxrod.integrators` and "
             "`fxrod.simulation`; the [user guide](../guide/index.md) shows them together.", ""]
    placed = {m for mods in TOPICS.values() for m in mods}
    topics = dict(TOPICS)
    rest = tuple(sorted(set(units) - placed))
    if rest:
        topics["More modules"] = rest
    for topic, mods in topics.items():
        mods = [m for m in mods if m in units]
        if not mods:
            continue
        lines += [f"## {topic}", ""]
        lines += [f"- [`{m}`]({m}.md): {_summary(m)}" for m in mods]
        lines.append("")
    order = [m for mods in topics.values() for m in mods if m in units]
    lines += ["```{toctree}", ":hidden:", "", *order, "```", ""]
    return "\n".join(lines)


def generate(srcdir: Path) -> list[Path]:
    """Write the reference pages; remove those of modules that no longer exist."""
    out = srcdir / OUT
    out.mkdir(exist_ok=True)
    units = public_units()
    pages = []
    for name, mods in units.items():
        page = out / f"{name}.md"
        text = module_page(name, mods)
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")
        pages.append(page)
    index = out / "index.md"
    text = index_page(units)
    if not index.exists() or index.read_text(encoding="utf-8") != text:
        index.write_text(text, encoding="utf-8")
    for stale in set(out.glob("*.md")) - set(pages) - {index}:
        stale.unlink()
    return [index, *pages]


def setup(app) -> dict:
    app.connect("builder-inited", lambda app: generate(Path(app.srcdir)))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
