"""Sphinx extension: one gallery page per demo script, generated from ``demos/*.py``.

Each demo is a literate script in the percent format (``# %% Title`` starts a cell, the comment
lines at the top of a cell are its text). The page of ``demos/<stem>.py`` is written to
``docs/demos/<stem>.md`` when the builder starts (the folder is generated, not kept in git):

* the module docstring as the introduction (its first line is the title),
* the picture(s) ``docs/gallery/<stem>*.png``,
* how to run it (script, ``fxrod run``, ``mpirun``) and its options with units and
  defaults, from the case registry (:data:`fxrod.studies.cases.CASES`),
* what the case reports (the case module's docstring) and the tests that run it,
* the code, cell by cell: the cell title as a heading, its comments as text, the code.

Cells marked ``# %% [markdown]`` (jupytext's Markdown cells) are rendered as text, so the
gallery keeps working when the demos move their docstrings into Markdown cells.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path

#: Folder of the generated pages, relative to the Sphinx source directory.
OUT = "demos"
ROLE = re.compile(r":(?:py:)?(func|class|mod|meth|attr|data|exc|obj):`~?([^`]+)`")


@dataclass
class Cell:
    """One cell of a percent-format script."""

    title: str = ""
    markdown: bool = False
    text: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)


def _comment_text(line: str) -> str | None:
    """The text of a ``# comment`` line, or None for a code line."""
    s = line.strip()
    if s == "#":
        return ""
    if s.startswith("# ") and not s.startswith("# %%"):
        return s[2:]
    return None


def split_cells(source: str) -> tuple[str, list[Cell]]:
    """``(docstring, cells)`` of a percent-format script; the code before the first marker
    (after the docstring) is a first untitled cell."""
    tree = ast.parse(source)
    doc = ast.get_docstring(tree) or ""
    lines = source.splitlines()
    start = 0
    if doc and tree.body and isinstance(tree.body[0], ast.Expr):
        start = tree.body[0].end_lineno or 0
    cells = [Cell()]
    for line in lines[start:]:
        m = re.match(r"#\s*%%\s*(\[markdown\])?\s*(.*)$", line)
        if m:
            cells.append(Cell(title=m.group(2).strip(), markdown=bool(m.group(1))))
            continue
        cell = cells[-1]
        text = _comment_text(line)
        if cell.markdown:
            cell.text.append(text if text is not None else line)
        elif text is not None and not cell.code:
            cell.text.append(text)
        else:
            cell.code.append(line)
    for cell in cells:
        while cell.code and not cell.code[-1].strip():
            cell.code.pop()
        while cell.code and not cell.code[0].strip():
            cell.code.pop(0)
    return doc, [c for c in cells if c.title or c.text or c.code]


def rst_to_myst(text: str) -> str:
    """The reStructuredText bits of a docstring in MyST: roles, ``::`` and indented blocks
    (shown as ``text`` code blocks)."""
    text = ROLE.sub(lambda m: f"{{py:{m.group(1)}}}`{m.group(2)}`", text)
    out: list[str] = []
    block: list[str] = []
    prev_blank = True
    for line in text.splitlines() + ["", "."]:
        indented = line.startswith("    ") and line.strip()
        if indented and (block or prev_blank):
            block.append(line[4:])
            continue
        if block and not line.strip():
            block.append("")
            continue
        if block:
            while block and not block[-1].strip():
                block.pop()
            out += ["```text", *block, "```", ""]
            block = []
        out.append(line.replace(" ::", ":").replace("::", ":") if line.endswith("::")
                   else line)
        prev_blank = not line.strip()
    return "\n".join(out[:-1]).rstrip() + "\n"  # without the sentinel line "."


def intro_and_cells(script: Path) -> tuple[str, list[Cell]]:
    """The introduction of a demo (its docstring, or its first Markdown cell when that
    starts with a ``# Title`` heading) and its other cells; Markdown headings of the cells
    are moved one level down, under the page's sections."""
    doc, cells = split_cells(script.read_text(encoding="utf-8"))
    if not doc and cells and cells[0].markdown and cells[0].text \
            and cells[0].text[0].startswith("# "):
        doc = "\n".join([cells[0].text[0][2:], *cells[0].text[1:]])
        cells = cells[1:]
    for cell in cells:
        if cell.markdown:
            cell.text = ["#" + t if re.match(r"#+ ", t) else t for t in cell.text]
    return doc, cells


def _title_and_intro(doc: str, stem: str) -> tuple[str, str]:
    """A short title (the docstring's first line up to a parenthesis: the sources follow)
    and the rest of the docstring, led by the full first line when it was cut."""
    first, _, rest = doc.strip().partition("\n")
    first = first.strip().rstrip(".")
    if not first:
        return stem, rest.strip()
    title = first.split(" (", 1)[0].split(": ", 1)[0].strip() or stem
    if title != first:
        rest = f"*{first}.*\n\n{rest}"
    return title, rest.strip()


def _tests_of(root: Path, stem: str, name: str) -> list[str]:
    """Test files that name the demo's module or case."""
    pat = re.compile(rf"\b({re.escape(stem)}|{re.escape(name)})\b")
    return sorted(f"tests/{p.name}" for p in (root / "tests").glob("test_*.py")
                  if pat.search(p.read_text(encoding="utf-8")))


def _options_table(case) -> list[str]:
    rows = ["| option | unit | default | meaning |", "|---|---|---|---|",
            "| `--out DIR` | – | `results/" + case.stem + "` | output directory |",
            "| `--quick` | – | off | short run: "
            + (", ".join(f"{k} = {v}" for k, v in case.quick.items()) or "as the full run")
            + " |",
            "| `--no-pictures` | – | off | write no PNG/GIF pictures |",
            "| `--quiet` | – | off | no progress bar, no summary |"]
    for o in case.options:
        unit = "–" if o.unit == "-" else o.unit
        default = "off" if o.default is False else f"`{o.default}`"
        choices = f" (one of {', '.join(o.choices)})" if o.choices else ""
        rows.append(f"| `{o.flag}` | {unit} | {default} | {o.help}{choices} |")
    return rows


def demo_page(root: Path, srcdir: Path, script: Path, case) -> str:
    """The MyST page of one demo script."""
    doc, cells = intro_and_cells(script)
    stem = script.stem
    title, intro = _title_and_intro(doc, stem)
    lines = [f"({stem})=", f"# {title}", "", rst_to_myst(intro) if intro else ""]
    for png in sorted((srcdir / "gallery").glob(f"{stem}*.png")):
        lines += [f"```{{figure}} /gallery/{png.name}", ":width: 100%", "",
                  f"`{png.name}`: a picture the demo draws (`fxrod run {stem.replace('_', '-')}`).",
                  "```", ""]
    lines += ["## Run it", "", "```bash", f"python demos/{stem}.py --quick",
              f"mpirun -n 2 python demos/{stem}.py --quick"]
    if case is not None:
        lines += [f"fxrod run {case.name} --quick --out results/{stem}"]
    lines += ["```", ""]
    if case is not None:
        lines += _options_table(case) + [""]
        module = importlib.import_module(case.runner.__module__)
        # a demo that is its own case says it all in its cells
        own = Path(module.__file__).resolve() == script.resolve()
        _, case_text = _title_and_intro("" if own else (module.__doc__ or ""), stem)
        if case_text:
            lines += ["## What the case computes and reports", "",
                      f"```{{py:currentmodule}} {case.runner.__module__}", "```", "",
                      rst_to_myst(case_text)]
    tests = _tests_of(root, stem, case.name if case is not None else stem)
    if tests:
        lines += ["Checked by " + ", ".join(f"`{t}`" for t in tests)
                  + " (see [Validation](../reference/validation.md)).", ""]
    lines += ["## The script", "",
              f"The code of `demos/{stem}.py`, cell by cell (`# %%` markers).", ""]
    for cell in cells:
        if cell.title:
            lines += [f"### {cell.title}", ""]
        if cell.text:
            lines += [rst_to_myst("\n".join(cell.text)), ""]
        if cell.code:
            lines += ["```python", *cell.code, "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def index_page(entries: list[tuple[str, str, str | None]]) -> str:
    """The gallery's index: a thumbnail and a link per demo, and the hidden toctree."""
    lines = ["# Gallery", "",
             "Every demo is a literate Python script in `demos/` (cells marked `# %%`); each "
             "page below is generated from the script, with the pictures it draws, how to run "
             "it, its options with units and the tests that check it. The same cases run "
             "with `fxrod run NAME` (`fxrod list` lists them).", ""]
    for stem, title, png in entries:
        lines += [f"## [{title}]({stem}.md)", ""]
        if png:
            lines += [f"```{{image}} /gallery/{png}", ":width: 360px",
                      f":alt: {title}", f":target: {stem}.html", "```", ""]
    lines += ["```{toctree}", ":hidden:", "", *[stem for stem, _, _ in entries], "```", ""]
    return "\n".join(lines)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(srcdir: Path) -> list[Path]:
    """Write ``srcdir/demos/<stem>.md`` for every demo and the gallery index; remove pages
    of demos that no longer exist. Returns the pages written."""
    from fxrod.studies.cases import CASES

    root = srcdir.parent
    by_stem = {c.stem: c for c in CASES.values()}
    out = srcdir / OUT
    out.mkdir(exist_ok=True)
    scripts = sorted((root / "demos").glob("*.py"))
    order = list(by_stem)
    scripts.sort(key=lambda p: (order.index(p.stem) if p.stem in order else len(order),
                                p.stem))
    pages, entries = [], []
    for script in scripts:
        case = by_stem.get(script.stem)
        page = out / f"{script.stem}.md"
        _write_if_changed(page, demo_page(root, srcdir, script, case))
        pngs = sorted((srcdir / "gallery").glob(f"{script.stem}*.png"))
        doc, _ = intro_and_cells(script)
        entries.append((script.stem, _title_and_intro(doc, script.stem)[0],
                        pngs[0].name if pngs else None))
        pages.append(page)
    index = out / "index.md"
    _write_if_changed(index, index_page(entries))
    for stale in set(out.glob("*.md")) - set(pages) - {index}:
        stale.unlink()
    return [index, *pages]


def _on_builder_inited(app) -> None:
    generate(Path(app.srcdir))


def setup(app) -> dict:
    app.connect("builder-inited", _on_builder_inited)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
