"""The result numbers of the user-facing pages, tied to the assertions that check them.

The pages (:func:`pages`: ``README.md``, ``bench/README.md`` and every Markdown file of
``docs/``) may state results; most of them live in ``docs/validation.md`` (accuracy) and
``bench/README.md`` (speed). A number a page states as a result carries a marker right after
it (and its unit)::

    ... to 2.7e-12<!-- claim: fs-balance-full --> with full Newton ...
    ... to 2.7e-6, 2.1e-6, 2.0e-5 m<!-- claim: cv-tip --> ...
    ... rho = 1073 +- 4.6 kg/m^3<!-- claim: soft-arm-rho-identified --> ...

The marker claims the run of numbers directly before it (numbers joined by ``,``, ``/``,
``and``, ``|``, a range ``-`` or ``+-``, each with an optional unit; ``%`` scales by 1e-2).
The test that computes the numbers asserts them with the same id:

* :func:`assert_claim` ``(id, error, bound)``: the stated numbers are upper bounds of an
  error ("to 2.7e-12", "within 0.117"); ``bound`` (one per stated number, or one for all) is
  at most :data:`MARGIN` times the stated number.
* :func:`assert_printed` ``(id, value, bound=None)``: the stated numbers are values ("order
  4.0", "8.9725", "1073 +- 4.6"); ``|value - x| <= bound`` with ``bound`` at most
  :data:`MARGIN` times ``s``: the stated ``+- s``, else half a unit of the last printed digit
  (the default bound).

Both check the margin when they run, against the pages as they are; ``tests/test_validation_doc.py``
checks that every result number has a marker, every marker an asserting test, and the
bounds it can read without running the tests. A speed number carries
``<!-- bench: FILE PATH ... -->`` instead, one path into ``bench/FILE`` per number; see
:func:`bench_value`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BENCH = ROOT / "bench"
DOCS = ROOT / "docs"
#: Folders of ``docs/`` that hold generated or built files, not pages of ours.
GENERATED = ("_build", "_generated", "api", "demos")
#: An assertion's bound is at most this many times the stated number (or its +- s).
MARGIN = 3.0

NUM = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
UNIT = r"(?:%|x|ms|m|L|J|s|N|Pa|rad/s|rad|kg/m\^3|degrees)(?![\w/^])"
ITEM = rf"{NUM}(?:\s*{UNIT})?"
SEP = r"(?:\s*(?:,\s*and|,|/|\||\band\b)\s*|-|\s*\+-\s*)"
#: The run of numbers a marker claims: it ends where the marker starts.
RUN = re.compile(rf"(?<![\w.^/+-])(?:{ITEM})(?:{SEP}(?:{ITEM}))*\s*$")
MARKER = re.compile(r"<!--\s*(claim|bench):\s*(.*?)\s*-->", re.S)
#: Markdown that holds no claims: fenced code, inline code, HTML comments.
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE = re.compile(r"`(?:[^`\n]|\n(?!\n))*`")   # may wrap, not across paragraphs


@dataclass(frozen=True)
class Number:
    """A stated number: ``value`` in base units (``%`` scaled), ``text`` as printed, the
    ``plus_minus`` of ``x +- s``, and ``half_ulp``: half a unit of its last printed digit."""

    text: str
    value: float
    half_ulp: float
    plus_minus: float | None = None
    plus_minus_half_ulp: float = 0.0

    @property
    def spread(self) -> float:
        """The ``s`` that bounds an assertion of this value: ``+- s`` or ``half_ulp``."""
        return self.half_ulp if self.plus_minus is None else self.plus_minus


@dataclass(frozen=True)
class Marker:
    kind: str                  #: "claim" or "bench"
    key: str                   #: the claim id, or "FILE PATH ..." of a bench marker
    numbers: tuple[Number, ...]
    path: Path
    line: int
    start: int                 #: offset of the claimed run in the file
    end: int                   #: offset of the marker's end


def blank(text: str, pattern: re.Pattern) -> str:
    """``text`` with the matches of ``pattern`` replaced by spaces (offsets kept)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), text)


def half_ulp(text: str) -> float:
    mant, _, exp = text.lstrip("+-").partition("e")
    decimals = len(mant.partition(".")[2])
    return 0.5 * 10.0 ** (int(exp or 0) - decimals)


def parse_run(run: str) -> tuple[Number, ...]:
    """The numbers of a claimed run; a unit applies to the unit-less numbers before it,
    ``x +- s`` is one number with its spread."""
    tokens = [(m["num"], m["unit"], (m["sep"] or "").strip())
              for m in re.finditer(rf"(?P<num>{NUM})\s*(?P<unit>{UNIT})?(?P<sep>{SEP})?", run)]
    scales, scale = [], 1.0
    for _, unit, _ in reversed(tokens):
        if unit:
            scale = 1e-2 if unit == "%" else 1.0
        scales.append(scale)
    numbers: list[Number] = []
    previous_sep = ""
    for (text, _, sep), scale in zip(tokens, reversed(scales), strict=True):
        if previous_sep == "+-":
            x = numbers.pop()
            numbers.append(Number(f"{x.text} +- {text}", x.value, x.half_ulp,
                                  float(text) * scale, half_ulp(text) * scale))
        else:
            numbers.append(Number(text, float(text) * scale, half_ulp(text) * scale))
        previous_sep = sep
    return tuple(numbers)


def markers(path: Path) -> list[Marker]:
    """Every claim and bench marker of a Markdown file, with the numbers it claims."""
    raw = path.read_text()
    text = blank(blank(raw, FENCE), CODE)
    out = []
    for m in MARKER.finditer(text):
        # an earlier marker ends the run ("#" is no separator)
        before = MARKER.sub(lambda c: "#" * len(c[0]), text[max(0, m.start() - 300):m.start()])
        run = RUN.search(before)
        numbers = parse_run(run[0].strip()) if run else ()
        start = m.start() - len(before) + run.start() if run else m.start()
        out.append(Marker(m[1], " ".join(m[2].split()), numbers, path,
                          raw.count("\n", 0, m.start()) + 1, start, m.end()))
    return out


def pages() -> list[Path]:
    """The Markdown pages whose markers count: the README, ``bench/README.md`` and every
    ``.md`` under ``docs/`` but the generated and built folders (:data:`GENERATED`)."""
    docs = [p for p in sorted(DOCS.rglob("*.md"))
            if not set(p.relative_to(DOCS).parts[:-1]) & set(GENERATED)]
    return [p for p in (README, BENCH / "README.md") if p.is_file()] + docs


def all_markers() -> list[Marker]:
    """Every marker of every page, in the order of :func:`pages`."""
    return [m for page in pages() for m in markers(page)]


def where(m: Marker) -> str:
    """``FILE:LINE`` of a marker, relative to the repository."""
    return f"{m.path.relative_to(ROOT)}:{m.line}"


@cache
def claims() -> dict[str, Marker]:
    """The claim markers of all pages by id (a repeated id: the first; see
    ``tests/test_validation_doc.py``, which refuses repeats)."""
    out: dict[str, Marker] = {}
    for m in all_markers():
        if m.kind == "claim":
            out.setdefault(m.key, m)
    return out


def _stated(claim_id: str) -> tuple[Number, ...]:
    marker = claims().get(claim_id)
    assert marker is not None, f"no <!-- claim: {claim_id} --> in any page of pages()"
    assert marker.numbers, f"claim {claim_id}: no number right before its marker"
    return marker.numbers


def _bounds(bound, n: int, claim_id: str) -> np.ndarray:
    """``bound``: one number for all stated numbers, or one per stated number."""
    b = np.asarray(bound, dtype=float)
    if b.ndim == 0:
        return np.full(n, float(b))
    assert b.shape == (n,), f"claim {claim_id}: bound {b.tolist()} for {n} stated number(s)"
    return b


def _values(value, n: int, claim_id: str) -> np.ndarray:
    """``value`` as rows of ``n``: with one stated number any shape, else the last axis."""
    v = np.asarray(value, dtype=float)
    if n == 1:
        return v.reshape(-1, 1)
    assert v.ndim >= 1 and v.shape[-1] == n, (
        f"claim {claim_id}: values of shape {v.shape} for {n} stated numbers")
    return v.reshape(-1, n)


def bound_problems(claim_id: str, bound, printed: bool) -> list[str]:
    """Why ``bound`` is too wide for the claim (empty: at most MARGIN x the stated number,
    or MARGIN x its spread for :func:`assert_printed`)."""
    stated = _stated(claim_id)
    if not printed and any(s.plus_minus is not None for s in stated):
        return [f"claim {claim_id}: a value +- s is asserted with assert_printed"]
    b = _bounds(bound, len(stated), claim_id)
    ref = [s.spread if printed else abs(s.value) for s in stated]
    return [f"claim {claim_id}: bound {bi:g} > {MARGIN:g} x {r:g} (stated {s.text})"
            for bi, r, s in zip(b, ref, stated, strict=True) if not 0 <= bi <= MARGIN * r]


def assert_claim(claim_id: str, error, bound) -> None:
    """``|error| <= bound`` for the stated claim ``claim_id``, whose stated numbers are
    upper bounds of the error; ``bound`` (a number, or one per stated number) at most
    MARGIN x the stated number. ``error``: any shape for one stated number, else its last
    axis runs over the stated numbers."""
    problems = bound_problems(claim_id, bound, printed=False)
    assert not problems, problems
    n = len(_stated(claim_id))
    err, b = np.abs(_values(error, n, claim_id)), _bounds(bound, n, claim_id)
    bad = ~(err <= b)
    assert not bad.any(), (f"claim {claim_id}: |error| {err[bad.any(axis=1)].tolist()} "
                           f"above the bound {b.tolist()}")


def assert_printed(claim_id: str, value, bound=None, spread=None) -> None:
    """``value`` is the stated value(s) of ``claim_id``: ``|value - x| <= bound``,
    ``bound`` at most MARGIN x s (``x +- s``; else half a unit of the last printed digit,
    the default bound). ``spread``: the computed ``s`` of ``x +- s``, which must round to
    the stated one."""
    stated = _stated(claim_id)
    n = len(stated)
    if bound is None:
        bound = [s.spread for s in stated]
    problems = bound_problems(claim_id, bound, printed=True)
    assert not problems, problems
    v = _values(value, n, claim_id)
    x = np.array([s.value for s in stated])
    b = _bounds(bound, n, claim_id) * (1 + 1e-9)
    bad = ~(np.abs(v - x) <= b)
    assert not bad.any(), (f"claim {claim_id}: {v[bad.any(axis=1)].tolist()} against the "
                           f"stated {[s.text for s in stated]} (bound {b.tolist()})")
    if spread is not None:
        assert all(s.plus_minus is not None for s in stated), f"claim {claim_id}: no +- s"
        sp = _values(spread, n, claim_id)
        ref = np.array([s.plus_minus for s in stated])
        tol = np.array([s.plus_minus_half_ulp for s in stated]) * (1 + 1e-9)
        assert np.all(np.abs(sp - ref) <= tol), (
            f"claim {claim_id}: spread {sp.tolist()} against the stated {ref.tolist()}")


def bench_value(file: str, path: str) -> float:
    """The number at ``path`` in ``bench/FILE``: keys and list indices joined by ``.``; ``*``
    maps over a list (or a dict's values); a final ``min`` / ``max`` reduces it
    (``runs.*.cold.first_step_s.max``); ``A/B`` is the quotient of two paths."""
    if "/" in path:
        a, b = path.split("/")
        return bench_value(file, a) / bench_value(file, b)

    def walk(node, keys):
        if not keys:
            return node
        k, rest = keys[0], keys[1:]
        if k == "*":
            return [walk(x, rest) for x in (node.values() if isinstance(node, dict) else node)]
        return walk(node[int(k)] if isinstance(node, list) else node[k], rest)

    keys = path.split(".")
    reduce = {"min": min, "max": max}.get(keys[-1])
    data = json.loads((BENCH / file).read_text())
    value = walk(data, keys[:-1] if reduce else keys)
    if reduce:
        value = reduce(value)
    assert isinstance(value, (int, float)), (file, path, value)
    return float(value)
