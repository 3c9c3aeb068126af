"""Every result number of the user-facing pages is tied to the assertion that checks it.

The convention is in ``tests/claims.py``: a result number carries ``<!-- claim: ID -->``
right after it, and a test asserts it with ``assert_claim("ID", error, bound)`` (stated
numbers are upper bounds) or ``assert_printed("ID", value)`` (stated values, ``x +- s`` or
to the printed digits); a speed number carries ``<!-- bench: FILE PATH ... -->`` and is the
number of ``bench/FILE`` at PATH. Markers are read from every page of
:func:`tests.claims.pages` (the README, ``bench/README.md``, ``docs/**/*.md``). The results
themselves are in ``docs/validation.md`` (accuracy, above its generated map) and
``bench/README.md`` (speed). Here, without running the studies:

* every number of the results text (:data:`STRICT`: ``docs/validation.md`` above the map,
  ``bench/README.md``, the solver notes of the guide) is claimed, benched, code (an input,
  in backticks) or a reference label (an equation, section or example number);
* every claim id is asserted by a test in ``tests/`` and every asserted id is claimed;
* each bound that is a literal (or module constant) is at most 3x the stated number (the
  helpers check every bound again when they run, computed ones included);
* every bench number equals its JSON value to the printed digits;
* the map at the end of ``docs/validation.md`` (below :data:`SENTINEL`) is generated from
  the markers and the assertions (``python tests/test_validation_doc.py`` rewrites it; the
  text above it is written by hand).
"""

from __future__ import annotations

import ast
import operator
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run as a script too

from tests.claims import (  # noqa: E402
    CODE,
    FENCE,
    MARGIN,
    MARKER,
    ROOT,
    Marker,
    all_markers,
    bench_value,
    blank,
    bound_problems,
    claims,
    markers,
    where,
)

DOC = ROOT / "docs" / "validation.md"
TESTS = ROOT / "tests"
#: The README's length at most, in lines.
README_LINES = 250
#: The line of ``docs/validation.md`` after which the map is generated.
SENTINEL = "<!-- generated below by tests/test_validation_doc.py: do not edit by hand -->"
#: The results text, in which every number is a claim, a bench number, code or a label:
#: (page, first line of the span or None for the start, end: the sentinel line, the next
#: ``## `` heading or None for the end of the page).
STRICT = (
    ("docs/validation.md", None, SENTINEL),
    ("bench/README.md", None, None),
    ("docs/guide/solvers.md", "## Solver notes", "## "),
)
HELPERS = {"assert_claim": False, "assert_printed": True}
#: A number as text shows it: not part of a name (p_1, R5, E0), an exponent (^2), a
#: subscript ({n+1}) or a section (§3.1); "x2.3" is a number.
NUMBER = re.compile(r"(?<![A-Za-wyz_\d.^{§])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
#: Reference labels: equations (75), (4.1.2); sections §4.4; Ex. 6.1, Remark 5.1, Fig. 14.
LABEL = re.compile(r"\(\d+(?:\.\d+)*\)|§\w*[\d.]*\d|\b(?:Ex|Fig|Remark)\.?\s+\d+(?:\.\d+)*")


@dataclass(frozen=True)
class Assertion:
    """One call of an assertion helper in ``tests/``."""

    claim: str
    path: str                  #: tests/FILE.py
    function: str
    slow: bool
    printed: bool
    bound: str | None          #: source of the bound argument (None: the default)
    value: object              #: the bound, evaluated from literals and module constants


class NotStatic(Exception):
    pass


OPS = {ast.Mult: operator.mul, ast.Div: operator.truediv, ast.Add: operator.add,
       ast.Sub: operator.sub, ast.Pow: operator.pow}


def static(node: ast.AST, consts: dict[str, ast.AST]):
    """The value of ``node`` from number literals, lists, arithmetic, ``np.array(...)`` and
    module constants; :class:`NotStatic` otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [static(e, consts) for e in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -static(node.operand, consts)
    if isinstance(node, ast.BinOp) and type(node.op) in OPS:
        a, b = static(node.left, consts), static(node.right, consts)
        if isinstance(a, list) and isinstance(b, list):
            raise NotStatic
        if isinstance(a, list):
            return [OPS[type(node.op)](x, b) for x in a]
        if isinstance(b, list):
            return [OPS[type(node.op)](a, x) for x in b]
        return OPS[type(node.op)](a, b)
    if isinstance(node, ast.Name) and node.id in consts:
        return static(consts[node.id], consts)
    if (isinstance(node, ast.Call) and ast.unparse(node.func) in ("np.array", "np.asarray")
            and len(node.args) == 1):
        return static(node.args[0], consts)
    raise NotStatic


def is_slow(fn: ast.FunctionDef) -> bool:
    return any(ast.unparse(d) == "pytest.mark.slow" for d in fn.decorator_list)


@cache
def assertions() -> tuple[Assertion, ...]:
    """Every helper call in ``tests/``. A call whose id is not a literal (a parametrized
    test) counts for each claim id written as a string in the test and its decorators."""
    ids = set(claims())
    out = []
    for path in sorted(TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text())
        consts = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign)
                  for t in n.targets if isinstance(t, ast.Name)}
        fns = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        for fn in fns:
            strings = {n.value for n in ast.walk(ast.Module(fn.decorator_list + fn.body, []))
                       if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            calls = [c for c in ast.walk(fn) if isinstance(c, ast.Call)
                     and isinstance(c.func, ast.Name) and c.func.id in HELPERS]
            strings -= {c.args[0].value for c in calls if isinstance(c.args[0], ast.Constant)}
            for call in calls:
                arg = call.args[0]
                names = ([arg.value] if isinstance(arg, ast.Constant)
                         else sorted(strings & ids))
                node = call.args[2] if len(call.args) > 2 else next(
                    (k.value for k in call.keywords if k.arg == "bound"), None)
                try:
                    value = None if node is None else static(node, consts)
                except NotStatic:
                    value = NotStatic
                src = None if node is None else ast.unparse(node)
                out += [Assertion(name, str(path.relative_to(ROOT)), fn.name, is_slow(fn),
                                  HELPERS[call.func.id], src, value) for name in names]
    return tuple(out)


def span(text: str, first: str | None, end: str | None) -> tuple[int, int]:
    """Offsets of the part of ``text`` from the line ``first`` (None: the start) to the line
    starting with ``end`` (None: the end of the text)."""
    start = 0 if first is None else text.index("\n" + first + "\n")
    stop = -1 if end is None else text.find("\n" + end, start + 1)
    return start, len(text) if stop < 0 else stop


# ------------------------------------------------------------------------------- tests
def test_every_result_number_is_claimed():
    loose = []
    for name, first, end in STRICT:
        path = ROOT / name
        raw = path.read_text()
        text = blank(blank(blank(blank(raw, FENCE), CODE), MARKER), LABEL)
        covered = [(m.start, m.end) for m in markers(path)]
        a, b = span(raw, first, end)
        for m in NUMBER.finditer(text, a, b):
            if not any(s <= m.start() < e for s, e in covered):
                line = raw.count("\n", 0, m.start()) + 1
                near = raw[m.start() - 50:m.end() + 15]
                loose.append(f"{name}:{line}: {m[0]!r} in ...{near!r}")
    assert not loose, "numbers without a claim or bench marker:\n" + "\n".join(loose)


def test_readme_is_short_and_links_the_results():
    """The README is an introduction (at most :data:`README_LINES` lines); the validation
    results and the timings are on the pages it links to."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_LINES
    assert SENTINEL in DOC.read_text()
    for link in ("](docs/validation.md)", "](bench/README.md)"):
        assert link in readme, link


def test_markers_claim_numbers_and_ids_are_unique():
    seen, problems = set(), []
    for m in all_markers():
        if not m.numbers:
            problems.append(f"{where(m)}: {m.kind} {m.key}: no number right before it")
        if m.kind == "claim":
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]*", m.key) or m.key in seen:
                problems.append(f"{where(m)}: claim id {m.key!r} malformed or repeated")
            seen.add(m.key)
    assert not problems, problems


def test_every_claim_is_asserted_and_every_assertion_claimed():
    asserted = {a.claim for a in assertions()}
    missing = sorted(set(claims()) - asserted)
    unknown = sorted({f"{a.path}::{a.function}: {a.claim}" for a in assertions()
                      if a.claim not in claims()})
    assert not missing, f"claims no test asserts: {missing}"
    assert not unknown, f"asserted ids that no page claims: {unknown}"


def test_bounds_at_most_three_times_the_stated_number():
    problems = []
    for a in assertions():
        if a.claim not in claims() or a.value is NotStatic or a.value is None:
            continue        # unknown ids fail above; computed bounds are checked at run time
        problems += [f"{a.path}::{a.function}: {p}"
                     for p in bound_problems(a.claim, a.value, a.printed)]
    assert MARGIN == 3.0
    assert not problems, problems


def test_speed_numbers_are_the_bench_json():
    problems = []
    benched = [m for m in all_markers() if m.kind == "bench"]
    assert any(m.path == ROOT / "bench" / "README.md" for m in benched)
    for m in benched:
        file, *paths = m.key.split()
        if len(paths) != len(m.numbers):
            problems.append(f"{where(m)}: {len(m.numbers)} numbers, {len(paths)} paths")
            continue
        for number, path in zip(m.numbers, paths, strict=True):
            try:
                value = bench_value(file, path)
            except (OSError, KeyError, IndexError, ValueError) as e:
                problems.append(f"{where(m)}: bench/{file} {path}: {e!r}")
                continue
            if abs(number.value - value) > number.half_ulp * (1 + 1e-9):
                problems.append(f"{where(m)}: {number.text} but bench/{file} "
                                f"{path} = {value:.6g}")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------ the map
def paragraph_title(raw: str, pos: int) -> str:
    """The bold lead-in of the paragraph at ``pos`` (of the one before a table), else its
    section's heading."""
    para = raw.rfind("\n\n", 0, pos) + 2
    if raw.startswith("|", para):
        para = raw.rfind("\n\n", 0, para - 2) + 2
    if raw.startswith("**", para):
        return raw[para + 2:].split("**", 1)[0].rstrip(".")
    heading = max(raw.rfind("\n#", 0, pos), 0)
    return raw[heading:].lstrip("\n#").split("\n", 1)[0].strip()


def clause(raw: str, m: Marker) -> str:
    """The text around a claim: its table row, or its clause (from the last ". " or "; "
    before its numbers to the next), shortened to about 100 characters each side."""
    line_start = raw.rfind("\n", 0, m.start) + 1
    if raw.startswith("|", line_start):
        start, end = line_start, raw.find("\n", m.end)
    else:
        para = raw.rfind("\n\n", 0, m.start) + 2
        start = max([para] + [raw.rfind(sep, para, m.start) + 2 for sep in (". ", "; ")])
        stops = [k for sep in (". ", "; ", "\n\n") if (k := raw.find(sep, m.end)) >= 0]
        end = min(stops + [len(raw)]) + 1
    text = " ".join(MARKER.sub("", raw[start:end]).split())
    run = " ".join(MARKER.sub("", raw[m.start:m.end]).split())
    k = text.find(run)
    if k > 100:
        text = "... " + text[text.find(" ", k - 90) + 1:]
        k = text.find(run)
    if len(text) - k - len(run) > 100:
        text = text[:text.rfind(" ", 0, k + len(run) + 90)] + " ..."
    if text.count("`") % 2 and text.index("`") < text.find(run):   # a code span cut open
        text = "... " + text[text.index("`") + 1:].lstrip()
    if text.count("`") % 2 and text.endswith(" ..."):
        text = text[:text.rindex("`")].rstrip() + " ..."
    return text.replace("|", "\\|")


def head() -> str:
    """The hand-written part of ``docs/validation.md``, up to and with :data:`SENTINEL`."""
    text = DOC.read_text()
    assert SENTINEL in text, f"{DOC.relative_to(ROOT)} lost its line {SENTINEL!r}"
    return text[:text.index(SENTINEL) + len(SENTINEL)] + "\n"


def render() -> str:
    """``docs/validation.md``: its hand-written head, then the map of every claim of every
    page to the tests that assert it."""
    by_claim: dict[str, list[Assertion]] = {}
    for a in assertions():
        by_claim.setdefault(a.claim, []).append(a)
    out = [
        "",
        "## Which test asserts each number",
        "",
        "Each claim of the pages (this one, the README, the guide, `bench/README.md`): its id",
        "(`<!-- claim: ID -->` in the Markdown source), the statement, the test that asserts it",
        "(`tests/FILE::FUNCTION`), the bound it asserts (`<= b`: the stated number bounds an",
        "error; `|x - stated| <= b`: a stated value; \"printed digits\": to half a unit of its",
        "last digit) and the tier: `default` runs in `./fxrod.sh test -m \"not slow\"`, `slow`",
        "in `./fxrod.sh test -m slow`. Generated by `python tests/test_validation_doc.py`.",
    ]
    title = None
    texts: dict[Path, str] = {}
    for m in sorted(all_markers(), key=lambda m: m.path != DOC):    # this page's first
        if m.kind != "claim":
            continue
        raw = texts.setdefault(m.path, m.path.read_text())
        t = paragraph_title(raw, m.start)
        if m.path != DOC:
            t = f"{t} (`{m.path.relative_to(ROOT)}`)"
        if t != title:
            title = t
            out += ["", f"### {t}", "",
                    "| claim | statement | test (file::function) | asserted | tier |",
                    "|---|---|---|---|---|"]
        calls = by_claim.get(m.key, [])
        tests = "<br>".join(dict.fromkeys(f"`{a.path}::{a.function}`" for a in calls))
        bounds = "; ".join(dict.fromkeys(
            ("printed digits" if a.bound is None else f"|x - stated| <= {a.bound}")
            if a.printed else f"<= {a.bound}" for a in calls)).replace("|", "\\|")
        tier = "/".join(dict.fromkeys("slow" if a.slow else "default" for a in calls))
        out.append(f"| `{m.key}` | {clause(raw, m)} | {tests} | {bounds} | {tier} |")
    return head() + "\n".join(out) + "\n"


def test_doc_is_generated():
    assert DOC.read_text() == render(), "run: python tests/test_validation_doc.py"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
    else:
        DOC.write_text(render())
        print(f"wrote {DOC.relative_to(ROOT)}")
