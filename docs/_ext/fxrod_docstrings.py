"""Sphinx extension: closing paragraphs of numpy-style docstrings become a "Notes" section.

Many fxrod docstrings end with a plain paragraph after their ``Parameters`` (or
``Attributes``, ``Returns``...) section. Napoleon reads every line after a section header as
part of that section, so such a paragraph turns into a bogus parameter (and, with markup such
as ``[t[0], t[-1]]``, into a docutils warning). Before napoleon runs, this hook starts a
``Notes`` section at such a paragraph: an unindented line after a blank line, inside a
parameter-like section, that reads as prose (:func:`_is_prose`).
"""

from __future__ import annotations

import re

#: Numpy sections whose entries are ``name : type`` lines followed by indented text.
ENTRY_SECTIONS = {"parameters", "other parameters", "attributes", "returns", "yields",
                  "raises", "warns", "receives"}
HEADER = re.compile(r"^-{3,}\s*$")


def _is_prose(lines: list[str], i: int) -> bool:
    """A line of prose: spaces, no ``name : type`` colon, not indented, and not followed by
    an indented description (as a return type such as ``list of float`` is)."""
    line = lines[i]
    follows = lines[i + 1] if i + 1 < len(lines) else ""
    return (" " in line.strip() and " : " not in line and not line.startswith((" ", "\t"))
            and not follows.startswith((" ", "\t")))


def add_notes(lines: list[str]) -> None:
    """Insert a ``Notes`` header (in place) before each closing prose paragraph."""
    section = None
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and HEADER.match(lines[i + 1]) and lines[i].strip():
            section = lines[i].strip().lower()
            i += 2
            continue
        if (section in ENTRY_SECTIONS and i > 0 and not lines[i - 1].strip()
                and lines[i].strip() and _is_prose(lines, i)):
            lines[i:i] = ["Notes", "-----"]
            section = "notes"
            i += 2
        i += 1


def _process(app, what, name, obj, options, lines) -> None:
    add_notes(lines)


def setup(app) -> dict:
    app.connect("autodoc-process-docstring", _process, priority=100)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
