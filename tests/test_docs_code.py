"""The code of the README and of the documentation runs as printed and prints what the text
says.

Every fenced ``python`` block of the pages of :func:`tests.claims.pages` (the README,
``bench/README.md`` and ``docs/**/*.md`` but the generated folders) runs as a script in a
fresh interpreter whose working directory is an empty scratch directory, with a timeout
(:data:`TIMEOUT`). A block that cannot run on its own (it needs ``mpirun`` or a display, say)
carries ``<!-- norun: REASON -->`` on the line before it; it is listed as skipped with its
reason. Every shell block (``bash``, ``sh``, ``console``, ``shell``) runs its ``fxrod``
commands in order, in one scratch directory, as ``python -m fxrod ...`` (:func:`commands`
says which lines are run and why the others are not: environment commands such as
``./fxrod.sh test``, ``mpirun`` launches, other programs). Blocks that take more than about
20 s are in the slow tier (:data:`SLOW`, measured).

Where the text states a number a block prints, a test of its own runs the block
(:data:`OWN_TEST`) and asserts the number with :func:`tests.claims.assert_printed` under the
claim id the text gives it, and compares the run with an independent reference where there
is one:

* README, the steel rod sagging under its weight: Euler-Bernoulli's ``q L^4 / (8 EI)`` from
  the section's radius, E and rho, computed here.
* Getting started, the follower force: the same run with the dead force ``(0, 0, -5)`` N.
  While the tip turns by a small angle theta the two loads differ by the force turned by
  theta, whose effect on the deflection is second order, ``|z_follower - z_dead| <=
  theta^2 max|z|``, with the cantilever's tip slope ``theta <= 1.5 max|z| / L`` (tip load:
  ``PL^2/2EI`` over ``PL^3/3EI``; a distributed load gives 1.33). The page once wrote
  ``(0, 0, -5)`` for the follower force: along ``-d3``, an axial compression, and the tip
  moved as under gravity alone.
* Guide, structures: the L-frame's tip against linear frame theory (bending, shortening and
  shear of both members).
* Guide, geometry and paths: the 45-degree bend's tip and Lee's frame's limit loads to the
  printed digits of the page (their references are asserted in ``tests/test_curved.py`` and
  ``tests/test_structures.py``).

Such a test may append an epilogue that prints the run's numbers to full precision after the
block's own code; the block runs unchanged before it.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tests.claims import ROOT, assert_claim, assert_printed, pages

#: Seconds a block may run (a cold form cache compiles every form first).
TIMEOUT = 600
SHELLS = ("bash", "sh", "console", "shell")
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)
#: ``<!-- norun: REASON -->``, alone on the line before a block.
NORUN = re.compile(r"^\s*<!--\s*norun:\s*(.*?)\s*-->\s*$")
#: fxrod subcommands that build the environment, run the test suite or build the site.
ENVIRONMENT = {"bootstrap", "test", "docs", "lock", "demo", "container"}
#: How a shell line names fxrod: ``fxrod``, ``.venv/bin/fxrod``, ``./fxrod.sh``,
#: ``python -m fxrod``, ``.venv/bin/python -m fxrod``.
FXROD = re.compile(r"^(?:\S*/)?(?:fxrod|fxrod\.sh|python3?\s+-m\s+fxrod)(?:\s+|$)")
#: Blocks that take more than about 20 s (measured: ``pytest --durations``).
SLOW = {
    "docs/getting-started.md:bash2",     # a demo run, its plot and its animation: ~35 s
}

#: Blocks whose output the text quotes, each run by a test of its own (by name).
OWN_TEST = {
    "README.md:python1": "test_readme_example_sag",
    "docs/getting-started.md:python1": "test_first_script_tip_force_is_transverse",
    "docs/guide/geometry.md:python1": "test_guide_bend45_tip",
    "docs/guide/structures.md:python1": "test_guide_l_frame_against_frame_theory",
    "docs/guide/paths.md:python1": "test_guide_lee_frame_limits",
    "docs/guide/contact.md:python1": "test_guide_drop_reaches_the_ground",
}


@dataclass(frozen=True)
class Block:
    """A fenced code block of a page: ``lang`` is its info string, ``index`` counts the
    blocks of that kind on the page from 1 (``python`` or ``bash`` for every shell)."""

    page: str
    kind: str
    index: int
    line: int
    code: str
    norun: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.kind}{self.index}"


def blocks() -> list[Block]:
    """Every ``python`` and shell block of every page, in page order."""
    out = []
    for path in pages():
        text = path.read_text()
        counts: dict[str, int] = {}
        for m in FENCE.finditer(text):
            lang = m[1].lower()
            kind = "python" if lang == "python" else "bash" if lang in SHELLS else None
            if kind is None:
                continue
            counts[kind] = counts.get(kind, 0) + 1
            norun = NORUN.match(text[:m.start()].rstrip().rsplit("\n", 1)[-1])
            out.append(Block(str(path.relative_to(ROOT)), kind, counts[kind],
                             text.count("\n", 0, m.start()) + 1, m[2],
                             norun[1] if norun else None))
    return out


def commands(code: str) -> list[tuple[list[str] | None, str, str]]:
    """The commands of a shell block: ``(argv of python -m fxrod or None, line, reason)``;
    argv None: not run, for ``reason``."""
    joined = re.sub(r"\\\n\s*", " ", code)
    out = []
    for raw in joined.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        words = shlex.split(line)
        m = FXROD.match(line)
        if words[0] in ("mpirun", "mpiexec", "srun"):
            out.append((None, line, "an MPI launch (tests/test_mpi.py runs fxrod on 2 ranks)"))
        elif m is None:
            out.append((None, line, "not an fxrod command"))
        else:
            args = shlex.split(line[m.end():])
            if args and args[0] in ENVIRONMENT:
                out.append((None, line, f"`{args[0]}` builds or tests the environment"))
            else:
                out.append((args, line, ""))
    return out


def run(code: str, cwd: Path, argv: list[str] | None = None) -> str:
    """Run a Python script (or ``python -m fxrod argv``) in ``cwd``; its stdout."""
    env = dict(os.environ, MPLBACKEND="Agg", PYVISTA_OFF_SCREEN="true")
    cmd = [sys.executable, "-m", "fxrod", *argv] if argv is not None else [sys.executable,
                                                                            "-c", code]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 0, (
        f"{' '.join(cmd[:4])} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n"
        f"{proc.stderr[-4000:]}")
    return proc.stdout


def checked(out: str) -> dict:
    """The numbers an epilogue printed (``CHECK {json}``)."""
    [line] = [ln for ln in out.splitlines() if ln.startswith("CHECK ")]
    return json.loads(line[len("CHECK "):])


def column(path: Path, name: str) -> np.ndarray:
    with path.open() as f:
        return np.array([float(row[name]) for row in csv.DictReader(f)])


def block(block_id: str) -> Block:
    [b] = [b for b in blocks() if b.id == block_id]
    return b


def run_block(block_id: str, cwd: Path, epilogue: str = "") -> tuple[Block, str]:
    """Run the block ``block_id`` (then ``epilogue``) in ``cwd``; the block and its stdout."""
    b = block(block_id)
    assert b.norun is None, b.norun
    return b, run(b.code + "\n" + epilogue + "\n", cwd)


def params(kind: str) -> list:
    """The blocks of ``kind`` that no test of their own runs (:data:`OWN_TEST`)."""
    return [pytest.param(b, id=b.id, marks=[pytest.mark.slow] if b.id in SLOW else [])
            for b in blocks() if b.kind == kind and b.id not in OWN_TEST]


# ------------------------------------------------------------------------------- tests
@pytest.mark.parametrize("block", params("python"))
def test_python_block_runs(block: Block, tmp_path: Path):
    if block.norun:
        pytest.skip(f"norun: {block.norun}")
    run(block.code, tmp_path)


@pytest.mark.parametrize("block", params("bash"))
def test_shell_block_runs(block: Block, tmp_path: Path):
    if block.norun:
        pytest.skip(f"norun: {block.norun}")
    cmds = commands(block.code)
    runnable = [argv for argv, _, _ in cmds if argv is not None]
    if not runnable:
        pytest.skip("; ".join(f"{line!r}: {why}" for _, line, why in cmds) or "no command")
    for argv in runnable:
        run("", tmp_path, argv)


def test_readme_example_sag(tmp_path: Path):
    """README: the steel rod's tip sag, as printed and against Euler-Bernoulli's
    ``q L^4 / (8 EI)`` from the section's radius, E and rho."""
    b, out = run_block("README.md:python1", tmp_path,
                       'import json; print("CHECK", json.dumps({"sag": float(sag)}))')
    assert "Section.circular(radius=0.005, E=210e9, rho=7850.0," in b.code
    printed = float(re.search(r"tip sag (\S+) mm", out)[1])
    assert_printed("readme-sag", printed)
    radius, E, rho, g, L = 0.005, 210e9, 7850.0, 9.81, 1.0
    A, I = np.pi * radius**2, np.pi * radius**4 / 4
    beam = rho * A * g * L**4 / (8 * E * I)
    sag = checked(out)["sag"]
    assert_claim("readme-sag-vs-beam", (sag - beam) / beam, 3e-5)


def test_first_script_tip_force_is_transverse(tmp_path: Path):
    """Getting started: the follower tip force is transverse; the dead-load run as the
    reference (module docstring)."""
    follower = "force=lambda t: (0, -5.0 * min(t / 0.1, 1.0), 0), follower=True"
    dead = "force=lambda t: (0, 0, -5.0 * min(t / 0.1, 1.0))"
    b, out = run_block("docs/getting-started.md:python1", tmp_path)
    assert follower in b.code
    assert "tip at t = 0.2 s [m]:" in out
    csv_file = Path("results") / "first" / "first.csv"
    z = column(tmp_path / csv_file, "tip_3")
    (tmp_path / "dead").mkdir()
    run(b.code.replace(follower, dead), tmp_path / "dead")
    z_dead = column(tmp_path / "dead" / csv_file, "tip_3")
    reach = np.max(np.abs(z_dead))
    theta = 1.5 * reach / 1.0                              # L = 1 m
    assert np.max(np.abs(z - z_dead)) <= theta**2 * reach
    # the force bends the rod: more than gravity alone (its static tip: qL^4/8EI = 7.3 mm)
    EI = 210e9 * np.pi * 0.005**4 / 4
    q = 7850.0 * np.pi * 0.005**2 * 9.81
    assert z[-1] < -2.0 * q / (8 * EI)


def test_guide_bend45_tip(tmp_path: Path):
    """Guide, geometry: the 45-degree bend's tip, to the printed digits of the page."""
    _, out = run_block("docs/guide/geometry.md:python1", tmp_path)
    tip = [float(x) for x in re.search(r"tip: \[(.*?)\]", out)[1].split()]
    assert_printed("guide-bend45-tip", tip)


def test_guide_l_frame_against_frame_theory(tmp_path: Path):
    """Guide, structures: the L-frame's tip as printed, and against linear frame theory (as
    in ``tests/test_structures.py``): the beam's drop from its bending, the column's bending
    and shortening and the beam's shear; the column's bending moves the tip along the beam."""
    _, out = run_block("docs/guide/structures.md:python1", tmp_path, (
        'import json; print("CHECK", json.dumps({"tip": model.nodes.tip().tolist(), '
        '"k_b1": sec.k_b1, "k_e": sec.k_e, "k_s1": sec.k_s1}))'))
    tip = [float(x) for x in re.search(r"beam tip \[m\]: \[(.*?)\]", out)[1].split()]
    assert_printed("guide-l-frame-tip", tip)
    c = checked(out)
    P, a, b = 1e-4, 1.0, 0.8
    drop = (P * b**3 / (3 * c["k_b1"]) + P * b**2 * a / c["k_b1"] + P * a / c["k_e"]
            + P * b / c["k_s1"])
    shift = P * b * a**2 / (2 * c["k_b1"])
    np.testing.assert_allclose([c["tip"][0] - b, a - c["tip"][2]], [shift, drop], rtol=1e-3)


def test_guide_lee_frame_limits(tmp_path: Path):
    """Guide, paths: Lee's frame's two limit loads, to the printed digits of the page."""
    _, out = run_block("docs/guide/paths.md:python1", tmp_path)
    limits = [float(m[1]) for m in re.finditer(r"^limit (\S+) \d+$", out, re.M)]
    assert_printed("guide-lee-limits", limits[:2])
    assert (tmp_path / "path.csv").is_file()


def test_guide_drop_reaches_the_ground(tmp_path: Path):
    """Guide, contact: the dropped rod reaches the ground; the contact files are written."""
    _, out = run_block("docs/guide/contact.md:python1", tmp_path)
    gap = float(re.search(r"smallest gap \[m\]: (\S+)", out)[1])
    assert gap < 0.0
    assert (tmp_path / "results" / "contact" / "drop_contact.pvd").is_file()




def test_the_blocks_are_found():
    """Every block with a test of its own exists and its test too, every slow id is a block,
    and the README's example is among the blocks."""
    ids = {b.id for b in blocks()}
    assert "README.md:python1" in ids
    assert set(OWN_TEST) <= ids and SLOW <= ids, sorted((set(OWN_TEST) | SLOW) - ids)
    assert all(callable(globals().get(name)) for name in OWN_TEST.values())


def test_shell_lines_are_read_as_fxrod_commands():
    """The parser of shell blocks, on the forms the pages use."""
    got = commands(".venv/bin/fxrod list   # the cases\n"
                   "./fxrod.sh run bend45 --quick \\\n    --out B\n"
                   ".venv/bin/python -m fxrod info\n"
                   "./fxrod.sh test -m slow\n"
                   "mpirun -n 2 fxrod sweep soft-arm --quick\n"
                   "python demos/bend45.py\n")
    assert [argv for argv, _, _ in got] == [["list"], ["run", "bend45", "--quick", "--out", "B"],
                                            ["info"], None, None, None]
