"""Mutation testing of fxrod's physics: apply each mutant of ``tests/mutants.toml`` as a
patch in a scratch copy of the repository, run the tests meant to catch it and print the
score.

Usage::

    .venv/bin/python scripts/mutate.py                 # every mutant
    .venv/bin/python scripts/mutate.py --only ID ...   # some of them
    .venv/bin/python scripts/mutate.py --list          # the list, with the stale check
    .venv/bin/python scripts/mutate.py --baseline      # the same tests on unmutated code

A mutant is a physically meaningful one-line (or few-line) change of an fxrod source file: a
sign, a factor, an evaluation state, a transpose, a missing term. Each entry of the list
gives its ``id``, the ``file``, the exact ``original`` text, the ``mutated`` text, its
physical ``meaning`` and the pytest node ids or files (``tests``) that must fail on it.
Generic mutation operators (mutmut's) cannot express "the reaction moments at the step end
instead of the midpoint": these patches can.

The repository is copied once (without ``.git``, ``.venv`` and caches) into a temporary
directory; every mutant is written into that copy, its tests run there with the copy first on
``PYTHONPATH`` (checked: the copy's ``fxrod`` is the one imported, not the editable install),
and the file restored before the next mutant. The working tree is never written. Byte-code
files are not written in the copy (``PYTHONDONTWRITEBYTECODE``), so a restored file can never
be shadowed by the byte code of its mutant. The FFCx and fxrod C caches are the user's: the
unmutated forms are not compiled again, each mutant's forms and helpers get their own
entries (keyed by a hash of their source).

``--source`` chooses what the copy holds: the working tree (default), the committed ``HEAD``,
or the working tree with ``fxrod/`` as committed (``fxrod-head``). The files of ``fxrod/`` in
the copy that differ from ``HEAD`` are printed first: in a tree that others edit, one of them
may hold someone's transient change (a mutant tried by hand), which would then sit under
every mutant of the run.

Outcome per mutant:

``killed``
    a test failed (pytest exit status 1);
``timeout``
    the tests did not finish within the mutant's timeout (counted as killed: a mutant that
    makes a run hang is detected, but check that the machine was not just busy);
``survived``
    every test passed: the suite does not see the change;
``stale``
    the original text does not occur exactly once in the file (the source moved on: update
    the entry), or a listed test file does not exist;
``todo``
    a test id still holds the marker ``TODO-lead`` (the test that is to catch it is being
    written); not run unless ``--run-todo`` (then the marker is dropped and the listed files
    are run whole);
``error``
    pytest could not run the tests (exit status 2-5: an unknown test id, a collection
    error), or they failed for a reason outside the physics (a JIT compilation that an
    interrupted run left claimed in the FFCx cache: remove the file the message names); see
    the log it prints.

The score is ``killed / (killed + survived)`` (timeouts counted as killed). The exit status is
1 if the score is below 90 %, or any mutant is stale, todo or in error; else 0.

Run it niced on a shared machine (``nice -n 15``); the tests of one mutant run in one process,
one mutant after the other, with ``-x -q -p no:cacheprovider`` and one BLAS/OpenMP thread.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The default mutant list.
MUTANTS = ROOT / "tests" / "mutants.toml"
#: Marker of a test id still to be written (the mutant is not run without ``--run-todo``).
TODO = "TODO-lead"
#: Required fraction of killed mutants.
MIN_SCORE = 0.9
#: Entries not copied into the scratch repository.
SKIP_COPY = (".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis",
             "*.egg-info", "*.pyc", "*.so")
#: Output of a test run that failed for a reason outside the physics (the mutant is then
#: reported as an error, not as killed): a form whose JIT compilation an interrupted run
#: left claimed in the FFCx cache (remove the file the message names).
INFRASTRUCTURE_ERRORS = ("JIT compilation timed out",)
#: pytest options of every run (``-m ""``: a listed test runs even if marked slow).
PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider", "-m", "")


@dataclass
class Mutant:
    """One entry of the mutant list.

    Attributes
    ----------
    id : str
        Unique name (letters, digits, dashes).
    file : str
        Source file, relative to the repository root.
    original, mutated : str
        The exact text replaced, and its replacement.
    meaning : str
        The physical meaning of the change, one line.
    tests : list of str
        pytest node ids or test files (relative to the root) that must fail on the mutant.
    timeout : float
        Seconds allowed for its tests.
    audit : int or None
        Number of the mutant in the audit of issue 32 (1-10), if it is one of those.
    """

    id: str
    file: str
    original: str
    mutated: str
    meaning: str
    tests: list[str]
    timeout: float
    audit: int | None = None


@dataclass
class Outcome:
    """Result of one mutant: ``status`` (see the module notes), seconds, details."""

    mutant: Mutant
    status: str
    seconds: float = 0.0
    detail: str = ""
    log: list[str] = field(default_factory=list)


def load_mutants(path: Path, default_timeout: float) -> list[Mutant]:
    """Read and check the mutant list ``path`` (TOML, ``[[mutant]]`` tables).

    Parameters
    ----------
    path : Path
        The list.
    default_timeout : float
        Timeout [s] of the entries that set none.

    Returns
    -------
    list of Mutant
        In file order.

    Raises
    ------
    SystemExit
        On a malformed entry or a duplicate id.
    """
    data = tomllib.loads(path.read_text())
    out, seen = [], set()
    for i, e in enumerate(data.get("mutant", [])):
        missing = [k for k in ("id", "file", "original", "mutated", "meaning", "tests")
                   if k not in e]
        if missing:
            sys.exit(f"{path}: mutant #{i + 1} lacks {missing}")
        if e["id"] in seen:
            sys.exit(f"{path}: duplicate mutant id {e['id']!r}")
        if e["original"] == e["mutated"]:
            sys.exit(f"{path}: mutant {e['id']!r} changes nothing")
        if not e["tests"]:
            sys.exit(f"{path}: mutant {e['id']!r} lists no tests")
        seen.add(e["id"])
        out.append(Mutant(id=e["id"], file=e["file"], original=e["original"],
                          mutated=e["mutated"], meaning=e["meaning"], tests=list(e["tests"]),
                          timeout=float(e.get("timeout", default_timeout)),
                          audit=e.get("audit")))
    return out


def _extract_head(source: Path, dest: Path, paths: tuple[str, ...] = ()) -> None:
    """Write the committed ``HEAD`` of ``source`` (only ``paths`` if given) into ``dest``."""
    archive = subprocess.run(["git", "-C", str(source), "archive", "HEAD", *paths],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def scratch_copy(source: Path, mode: str) -> Path:
    """A copy of the repository ``source`` in a new temporary directory; returns its root.

    Parameters
    ----------
    source : Path
        The repository (its working tree and git directory).
    mode : {"worktree", "head", "fxrod-head"}
        Copy the working tree, the committed ``HEAD``, or the working tree with ``fxrod/``
        from ``HEAD`` (the tests as they are being written, the package as committed: in a
        tree others edit, a source file may hold someone's transient change).
    """
    dest = Path(tempfile.mkdtemp(prefix="fxrod-mutate-")) / "repo"
    if mode == "head":
        dest.mkdir()
        _extract_head(source, dest)
        return dest
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(*SKIP_COPY), symlinks=True)
    if mode == "fxrod-head":
        shutil.rmtree(dest / "fxrod")
        _extract_head(source, dest, ("fxrod",))
    return dest


def uncommitted(source: Path, repo: Path) -> list[str]:
    """The files of ``fxrod/`` whose content in the copy ``repo`` is not the one committed
    in ``source``'s ``HEAD`` (changed, or not tracked)."""
    tree = subprocess.run(["git", "-C", str(source), "ls-tree", "-r", "HEAD", "fxrod"],
                          check=True, capture_output=True, text=True).stdout
    committed = {line.split("\t", 1)[1]: line.split()[2] for line in tree.splitlines()}
    files = sorted(str(p.relative_to(repo)) for p in (repo / "fxrod").rglob("*")
                   if p.is_file() and p.suffix in (".py", ".c", ".h", ".toml", ".json"))
    if not files:
        return []
    hashes = subprocess.run(["git", "hash-object", "--stdin-paths"], cwd=repo, check=True,
                            capture_output=True, text=True,
                            input="\n".join(files) + "\n").stdout.split()
    return [f for f, h in zip(files, hashes, strict=True) if committed.get(f) != h]


def child_env(repo: Path) -> dict[str, str]:
    """Environment of the test processes: the copy first on ``PYTHONPATH``, no byte code,
    one BLAS/OpenMP thread (unless set)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(repo), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    return env


def runner_code(repo: Path) -> str:
    """The ``python -c`` program of a test run: import fxrod, fail (exit 3) unless it is the
    copy's, then run pytest with the arguments of ``sys.argv``."""
    return ("import sys, fxrod, pytest\n"
            "from pathlib import Path\n"
            f"root = Path({str(repo)!r}).resolve()\n"
            "where = Path(fxrod.__file__).resolve()\n"
            "if root not in where.parents:\n"
            "    print(f'mutate: imported {where}, not the copy under {root}', file=sys.stderr)\n"
            "    sys.exit(3)\n"
            "sys.exit(pytest.main(sys.argv[1:]))\n")


def check_import(repo: Path) -> None:
    """Exit unless ``import fxrod`` in a test process of the copy imports the copy."""
    code = ("import fxrod, sys; print(fxrod.__file__)")
    p = subprocess.run([sys.executable, "-c", code], cwd=repo, env=child_env(repo),
                       capture_output=True, text=True, timeout=300)
    where = Path(p.stdout.strip() or "?").resolve()
    if p.returncode != 0 or repo.resolve() not in where.parents:
        sys.exit(f"mutate: the test processes import {where}, not the copy {repo}\n{p.stderr}")
    print(f"mutate: fxrod imported from {where.parent}")


def run_tests(repo: Path, tests: list[str], timeout: float) -> tuple[int | None, str]:
    """Run pytest on ``tests`` in ``repo``; ``(exit status or None on timeout, output)``.
    On timeout the process group it started is killed."""
    cmd = [sys.executable, "-c", runner_code(repo), *PYTEST_ARGS, *tests]
    with subprocess.Popen(cmd, cwd=repo, env=child_env(repo), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, start_new_session=True) as p:
        try:
            out, _ = p.communicate(timeout=timeout)
            return p.returncode, out
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            return None, out
        except BaseException:           # interrupted: no test process outlives the runner
            os.killpg(p.pid, signal.SIGKILL)
            raise


def occurrences(repo: Path, m: Mutant) -> int:
    """How often ``m.original`` occurs in ``m.file`` of ``repo`` (-1: no such file)."""
    path = repo / m.file
    return path.read_text().count(m.original) if path.is_file() else -1


def todo(m: Mutant) -> bool:
    """Whether a test id of ``m`` is still to be written."""
    return any(TODO in t for t in m.tests)


def test_targets(m: Mutant) -> list[str]:
    """The pytest arguments of ``m``: its ids, with ``::TODO-lead...`` cut (the file)."""
    return list(dict.fromkeys(t.split("::" + TODO)[0].split(TODO)[0].rstrip(":")
                              for t in m.tests))


def stale_reason(repo: Path, m: Mutant) -> str:
    """Why ``m`` is stale in ``repo`` ("" if it is not)."""
    n = occurrences(repo, m)
    if n == -1:
        return f"no file {m.file}"
    if n != 1:
        return f"original text occurs {n} times in {m.file} (must be exactly once)"
    files = [t.split("::")[0] for t in test_targets(m)]
    absent = [f for f in files if f and not (repo / f).exists()]
    return f"no test file {absent}" if absent else ""


def run_mutant(repo: Path, m: Mutant, baseline: bool, run_todo: bool) -> Outcome:
    """Apply ``m`` in ``repo`` (unless ``baseline``), run its tests, restore the file."""
    reason = stale_reason(repo, m)
    if reason:
        return Outcome(m, "stale", detail=reason)
    if todo(m) and not run_todo:
        return Outcome(m, "todo", detail="tests to be written: " + ", ".join(m.tests))
    path = repo / m.file
    text = path.read_text()
    if not baseline:
        path.write_text(text.replace(m.original, m.mutated, 1))
    t0 = time.perf_counter()
    try:
        rc, out = run_tests(repo, test_targets(m), m.timeout)
    finally:
        path.write_text(text)
    dt = time.perf_counter() - t0
    tail = [line if len(line) <= 300 else line[:297] + "..."
            for line in out.strip().splitlines()[-12:]]
    summary = tail[-1] if tail else ""
    infra = [e for e in INFRASTRUCTURE_ERRORS if e in out]
    if infra:
        return Outcome(m, "error", dt, f"not the physics: {infra[0]} (see the log)",
                       [line for line in out.splitlines() if infra[0] in line][-1:] or tail)
    if rc is None:
        return Outcome(m, "timeout", dt, f"after {m.timeout:.0f} s", tail)
    if rc == 0:
        return Outcome(m, "passed" if baseline else "survived", dt, summary, tail)
    if rc == 1:
        return Outcome(m, "failed" if baseline else "killed", dt, summary, tail)
    return Outcome(m, "error", dt, f"pytest exit {rc}: {summary}", tail)


def print_list(repo: Path, mutants: list[Mutant]) -> int:
    """Print the list with the stale check (and whether each mutated Python file still
    compiles); return the exit status (1 if any is stale or does not compile)."""
    bad = 0
    for m in mutants:
        reason = stale_reason(repo, m)
        bad += bool(reason)
        tag = f"audit {m.audit}" if m.audit else ""
        state = "STALE: " + reason if reason else ("todo" if todo(m) else "ok")
        if not reason and m.file.endswith(".py"):
            text = (repo / m.file).read_text().replace(m.original, m.mutated, 1)
            try:
                compile(text, m.file, "exec")
            except SyntaxError as e:
                bad += 1
                state = f"MUTANT DOES NOT COMPILE: {e}"
        print(f"{m.id:38s} {m.file:28s} {tag:8s} {state}")
        print(f"    {m.meaning}")
        for t in m.tests:
            print(f"    - {t}")
    n_todo = sum(todo(m) for m in mutants)
    print(f"\n{len(mutants)} mutants, {n_todo} with tests still to be written, "
          f"{bad} stale or not compiling")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", metavar="ID", help="run these mutants only")
    ap.add_argument("--list", action="store_true", help="list the mutants (stale check), run "
                    "nothing")
    ap.add_argument("--baseline", action="store_true", help="run every selected mutant's "
                    "tests on the unmutated code (they must pass)")
    ap.add_argument("--run-todo", action="store_true", help=f"run the mutants marked {TODO} "
                    "with the test files they list (the marker dropped)")
    ap.add_argument("--mutants", type=Path, default=MUTANTS, help="the mutant list (TOML)")
    ap.add_argument("--timeout", type=float, default=900.0, help="default timeout per "
                    "mutant [s] (an entry's own 'timeout' wins)")
    ap.add_argument("--source", choices=("worktree", "head", "fxrod-head"),
                    default="worktree", help="what the scratch copy holds: the working tree "
                    "(default), the committed HEAD, or the working tree with fxrod/ from HEAD")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copy")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the end of pytest's "
                    "output of every mutant (always printed for survivors and errors)")
    args = ap.parse_args(argv)
    # a terminated runner cleans up like an interrupted one (test processes, scratch copy)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    mutants = load_mutants(args.mutants, args.timeout)
    if args.only:
        unknown = sorted(set(args.only) - {m.id for m in mutants})
        if unknown:
            sys.exit(f"mutate: unknown mutant ids {unknown}")
        mutants = [m for m in mutants if m.id in args.only]
    if args.list:
        return print_list(ROOT, mutants)

    t_start = time.perf_counter()
    repo = scratch_copy(ROOT, args.source)
    print(f"mutate: scratch copy {repo} ({args.source})")
    changed = uncommitted(ROOT, repo)
    if changed:
        print("mutate: fxrod/ files of the copy that differ from HEAD (uncommitted changes; "
              "--source fxrod-head to take fxrod/ as committed): " + ", ".join(changed))
    outcomes: list[Outcome] = []
    try:
        check_import(repo)
        width = max(len(m.id) for m in mutants)
        for i, m in enumerate(mutants, 1):
            o = run_mutant(repo, m, args.baseline, args.run_todo)
            outcomes.append(o)
            print(f"[{i:2d}/{len(mutants)}] {m.id:{width}s} {o.status:8s} {o.seconds:7.1f} s"
                  f"  {o.detail}", flush=True)
            if o.log and (args.verbose or o.status in ("survived", "error", "failed")):
                print("\n".join("        | " + line for line in o.log), flush=True)
    finally:
        if args.keep:
            print(f"mutate: kept {repo}")
        else:
            shutil.rmtree(repo.parent, ignore_errors=True)
    total = time.perf_counter() - t_start
    return report(outcomes, total, args.baseline)


def report(outcomes: list[Outcome], total: float, baseline: bool) -> int:
    """Print the summary and return the exit status."""
    count = {s: [o for o in outcomes if o.status == s]
             for s in ("killed", "timeout", "survived", "stale", "todo", "error", "passed",
                       "failed")}
    print()
    if baseline:
        print(f"baseline: {len(count['passed'])} passed, {len(count['failed'])} failed, "
              f"{len(count['timeout'])} timed out, {len(count['error'])} errors, "
              f"{len(count['stale'])} stale, {len(count['todo'])} todo; "
              f"total {total:.0f} s")
        return 0 if len(count["passed"]) + len(count["todo"]) == len(outcomes) else 1
    killed = len(count["killed"]) + len(count["timeout"])
    scored = killed + len(count["survived"])
    score = killed / scored if scored else 0.0
    for s in ("survived", "stale", "todo", "error"):
        if count[s]:
            print(f"{s}: " + ", ".join(o.mutant.id for o in count[s]))
    print(f"score: {killed}/{scored} killed = {100 * score:.1f} % "
          f"(required {100 * MIN_SCORE:.0f} %; {len(count['timeout'])} by timeout); "
          f"{len(count['stale'])} stale, {len(count['todo'])} todo, "
          f"{len(count['error'])} errors; total {total:.0f} s")
    ok = scored > 0 and score >= MIN_SCORE and not (count["stale"] or count["todo"]
                                                      or count["error"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
