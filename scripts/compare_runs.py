"""Run every registered case in two source trees and compare their CSV files column by column.

    python scripts/compare_runs.py BASE_TREE [--cases a,b] [--full] [--out DIR]

``BASE_TREE`` is a checkout of the code before a change (``git worktree add /tmp/base
<commit>``); the current tree is the other side. Each case runs ``fxrod run NAME --quick
--no-pictures --quiet`` (``--full``: the whole run) in a child process, once with the base
tree first on ``PYTHONPATH`` and once with this tree, into ``DIR/base/NAME`` and
``DIR/new/NAME``. For every CSV both runs wrote, each numeric column is compared: the
largest difference ``max |a - b|`` over the rows, relative to the column's magnitude
``max |a|``, against the round-off model of the tests (``64 eps`` times the magnitude times
the number of rows, :func:`tests.roundoff.roundoff`). Columns beyond it are listed with
their size, so that a change can say which differences it intends (Newton counts, a
convergence test that stops at another iterate) and which it does not.

Prints one line per column beyond round-off and a summary line per case; with ``--json F``
also writes the table to ``F``. Exit status 0 whatever the differences (it reports, the
reader judges); 1 if a case failed to run in either tree.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Round-off growth factor of tests/roundoff.py (derived there).
ROUNDOFF_C = 64
EPS = sys.float_info.epsilon


def run_case(tree: Path, name: str, out: Path, full: bool) -> bool:
    """Run case ``name`` with the package of ``tree`` into ``out``; True if it exited 0."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-m", "fxrod", "run", name, "--out", str(out), "--no-pictures",
           "--quiet"]
    if not full:
        cmd.append("--quick")
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"{name}: failed in {tree}:\n{proc.stderr[-2000:]}", file=sys.stderr)
    return proc.returncode == 0


def read_columns(path: Path) -> dict[str, list[float]]:
    """The numeric columns of a CSV file (comment lines starting with # skipped)."""
    with path.open() as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    header, body = rows[0], rows[1:]
    cols: dict[str, list[float]] = {}
    for j, name in enumerate(header):
        try:
            cols[name] = [float(r[j]) if r[j] != "" else math.nan for r in body]
        except (ValueError, IndexError):
            continue
    return cols


def compare(a: dict[str, list[float]], b: dict[str, list[float]]) -> list[dict]:
    """Per column: rows, magnitude, largest difference and the round-off bound."""
    out = []
    for name in a:
        if name not in b:
            out.append({"column": name, "note": "only in base"})
            continue
        x, y = a[name], b[name]
        if len(x) != len(y):
            out.append({"column": name, "note": f"rows {len(x)} -> {len(y)}"})
            continue
        pairs = [(u, v) for u, v in zip(x, y, strict=True) if not (math.isnan(u) and math.isnan(v))]
        scale = max((abs(u) for u, _ in pairs), default=0.0)
        diff = max((abs(u - v) for u, v in pairs), default=0.0)
        bound = ROUNDOFF_C * EPS * scale * max(len(x), 1)
        out.append({"column": name, "rows": len(x), "scale": scale, "diff": diff,
                    "bound": bound, "within": diff <= bound})
    out.extend({"column": name, "note": "only in new"} for name in b if name not in a)
    return out


def main() -> int:
    from fxrod.studies.cases import CASES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path, help="the base source tree")
    ap.add_argument("--cases", default=None, help="comma-separated case names (default: all)")
    ap.add_argument("--full", action="store_true", help="whole runs, not --quick")
    ap.add_argument("--out", type=Path, default=Path("results/compare_runs"))
    ap.add_argument("--json", default=None, help="write the table to this file")
    args = ap.parse_args()
    names = args.cases.split(",") if args.cases else list(CASES)
    table: dict[str, dict] = {}
    failed = False
    for name in names:
        dirs = {side: args.out / side / name for side in ("base", "new")}
        ok = (run_case(args.base.resolve(), name, dirs["base"], args.full)
              and run_case(ROOT, name, dirs["new"], args.full))
        if not ok:
            failed = True
            table[name] = {"failed": True}
            continue
        files = {}
        for path in sorted(dirs["base"].rglob("*.csv")):
            rel = path.relative_to(dirs["base"])
            other = dirs["new"] / rel
            if not other.exists():
                files[str(rel)] = [{"note": "missing in new"}]
                continue
            files[str(rel)] = compare(read_columns(path), read_columns(other))
        table[name] = files
        beyond = [(f, c) for f, cols in files.items() for c in cols if not c.get("within", False)]
        for f, cols in files.items():
            notes: dict[str, list[str]] = {}
            for c in cols:
                if "note" in c:
                    notes.setdefault(c["note"], []).append(c.get("column", ""))
                elif not c["within"]:
                    print(f"  {name}/{f} {c['column']}: |diff| {c['diff']:.3e} of "
                          f"{c['scale']:.3e} (round-off bound {c['bound']:.1e})")
            for note, names in notes.items():
                print(f"  {name}/{f}: {note}: {', '.join(names)}")
        n_cols = sum(len(cols) for cols in files.values())
        print(f"{name}: {len(files)} CSV, {n_cols - len(beyond)} of {n_cols} columns "
              "within round-off")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
