"""Sphinx configuration of the fxrod documentation site (MyST Markdown, furo theme).

Build: ``./fxrod.sh docs`` (or ``fxrod docs``), which runs
``sphinx-build -W --keep-going -b html docs docs/_build/html``.

The Markdown files at the top of ``docs/`` that belong to other parts of the project
(``theory.md``, ``output.md``, ``validation.md``, ``architecture.md`` and any later one) are
not pages of their own: the site's pages include them with MyST's ``{include}`` directive.
The gallery pages are generated from ``demos/*.py`` by the local extension
``docs/_ext/fxrod_gallery.py`` into ``docs/_generated/gallery``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

import fxrod  # noqa: E402  (imports dolfinx_solver before dolfinx, for autodoc)

project = "fxrod"
author = "the fxrod authors"
copyright = "the fxrod authors, MIT licence"
release = version = fxrod.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "fxrod_gallery",
    "fxrod_api",
    "fxrod_docstrings",
]

#: The site's own top-level pages; every other top-level Markdown file is included by a page.
OWN_TOP_LEVEL = {"index.md", "getting-started.md"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store",
                    *sorted(p.name for p in HERE.glob("*.md") if p.name not in OWN_TOP_LEVEL)]
root_doc = "index"
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True,
                           "undoc-members": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_preserve_defaults = True
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
napoleon_attr_annotations = True
napoleon_use_ivar = True  # "Attributes" as fields: no duplicates of the documented members

html_theme = "furo"
html_title = f"fxrod {release}"
html_static_path: list[str] = []

#: Field types in docstrings ("n_elements", "Section") are looked up as Python objects; a
#: name that several classes define (``Rod.n_elements``, ``SoftArmParameters.n_elements``)
#: is ambiguous and left unlinked. That is not an error of the page.
suppress_warnings = ["ref.python"]
