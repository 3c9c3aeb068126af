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

#: Packages that only group modules of one layer band: each of their modules (and
#: subpackages) gets a page of its own.
GROUPS = ("fxrod.native", "fxrod.output", "fxrod.solvers", "fxrod.core", "fxrod.runs",
          "fxrod.analysis", "fxrod.problems", "fxrod.studies")

#: Topics of the index, in order, with their pages.
TOPICS: dict[str, tuple[str, ...]] = {
    "Building a rod": ("fxrod", "fxrod.core.geometry", "fxrod.core.rod", "fxrod.core.supports",
                       "fxrod.core.loads", "fxrod.core.pointload", "fxrod.core.joints",
                       "fxrod.core.structure", "fxrod.core.obstacles"),
    "Physics: the model and its extensions": ("fxrod.core.model", "fxrod.core.forms",
                                              "fxrod.core.ledger", "fxrod.core.kinematics",
                                              "fxrod.core.spaces", "fxrod.core.diagnostics"),
    "Solving": ("fxrod.solvers.settings", "fxrod.errors", "fxrod.solvers.newton",
                "fxrod.runs.integrators", "fxrod.runs.problem", "fxrod.solvers.reduction",
                "fxrod.native.assembly", "fxrod.solvers.chain", "fxrod.analysis.continuation"),
    "Linear analysis and gradients": ("fxrod.analysis.modes", "fxrod.analysis.phmodel",
                                      "fxrod.analysis.phmodel_io", "fxrod.analysis.lqr",
                                      "fxrod.analysis.adjoint", "fxrod.analysis.optimize"),
    "Running and output": ("fxrod.runs.simulation", "fxrod.solvers.stepper", "fxrod.runs.probes",
                           "fxrod.output.history", "fxrod.output.tables",
                           "fxrod.output.paraview", "fxrod.runs.checkpoint", "fxrod.viz"),
    "Ready problems, cases and the command line": ("fxrod.problems.paper",
                                                   "fxrod.problems.soft_arm",
                                                   "fxrod.problems.ancf_graded",
                                                   "fxrod.problems.capstan",
                                                   "fxrod.problems.hamel",
                                                   "fxrod.problems.lee_frame",
                                                   "fxrod.problems.locomotion",
                                                   "fxrod.problems.mooring",
                                                   "fxrod.problems.optimal_actuation",
                                                   "fxrod.problems.plectoneme",
                                                   "fxrod.studies.cases",
                                                   "fxrod.studies.modal_output",
                                                   "fxrod.studies.sweep",
                                                   "fxrod.studies.sweep_plan",
                                                   "fxrod.studies.sweep_plot",
                                                   "fxrod.cli", "fxrod.data"),
    "Companion formulations": ("fxrod.ancf", "fxrod.hamel"),
}


def _public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def _unit(name: str, ispkg: bool) -> list[str]:
    """A page's modules: the module, and a package's public submodules."""
    mods = [name]
    if ispkg:
        pkg = importlib.import_module(name)
        mods += [m.name for m in pkgutil.walk_packages(pkg.__path__, name + ".")
                 if _public(m.name)]
    return mods


def public_units() -> dict[str, list[str]]:
    """``{page module: [module, submodules...]}``: fxrod itself, every public top-level
    module and package, and every public module of the layer packages (:data:`GROUPS`),
    whose own page lists their modules."""
    import fxrod

    units: dict[str, list[str]] = {"fxrod": ["fxrod"]}
    for info in pkgutil.iter_modules(fxrod.__path__, "fxrod."):
        if not _public(info.name):
            continue
        if info.name in GROUPS:
            units[info.name] = [info.name]
            pkg = importlib.import_module(info.name)
            for sub in pkgutil.iter_modules(pkg.__path__, info.name + "."):
                if _public(sub.name):
                    units[sub.name] = _unit(sub.name, sub.ispkg)
        else:
            units[info.name] = _unit(info.name, info.ispkg)
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
             "(parameters with their SI units). Start with `fxrod` (the public names at the "
             "top level), `fxrod.core.rod`, `fxrod.core.model` and `fxrod.runs.simulation`; "
             "the [user guide](../guide/index.md) shows them together.", ""]
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
