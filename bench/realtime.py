"""Real time: the soft arm under its state-feedback controller, recorded, in steps per second.

    python bench/realtime.py [--n-elements 20] [--h 1e-3] [--t-end 1.0] [--repeat 3]
                             [--json out.json]

Runs ``demos/tip_control.py`` (the soft arm held by an LQR controller designed on the
linear port-Hamiltonian model, with integral action and feed-forward; recorded through
``Simulation`` with the default probes and a CSV; Newton with the soft-arm case's own
tolerances) in a fresh interpreter ``--repeat`` times and reads the steps per second of
wall time it prints (the run alone: the model's build, the design and the forms'
compilation are not in it). A control loop at the step
``h`` keeps up with the real process when it makes at least ``1 / h`` steps per second:
1000 at h = 1 ms, the feedback-control issue's target with 20 elements.

The first second: the tip held at its target against gravity (the circle starts at 1 s).
Each repeat runs the default settings and then ``SolverSettings(jacobian_persists=True)``
(the factorisation kept across steps while Newton converges: fewer factorisations, the
same tolerances).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Newton's ``atol`` and ``stol`` of the soft-arm case (fxrod's defaults, SolverSettings()):
#: the case's own tolerances, not the demo's tighter ones (set for its balance check).
SOFT_ARM_TOLERANCES = (1e-12, 1e-13)


def run_once(n_elements: int, h: float, t_end: float, persists: bool = False) -> float:
    """Steps per second of one run of the demo in a fresh interpreter (``persists``: the
    Jacobian's factorisation kept across steps)."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run(
            [sys.executable, str(ROOT / "demos" / "tip_control.py"), "--out", out,
             "--n-elements", str(n_elements), "--h", repr(h), "--t-end", repr(t_end),
             "--atol", repr(SOFT_ARM_TOLERANCES[0]), "--stol", repr(SOFT_ARM_TOLERANCES[1]),
             *(["--jacobian-persists"] if persists else [])],
            capture_output=True, text=True, check=True, cwd=ROOT)
    m = re.search(r"^(\d+) steps per second", proc.stdout, re.M)
    if m is None:
        raise RuntimeError(f"no steps per second in the demo's output:\n{proc.stdout}")
    return float(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-elements", type=int, default=20)
    ap.add_argument("--h", type=float, default=1e-3, help="time step [s]")
    ap.add_argument("--t-end", type=float, default=1.0, help="simulated time [s]")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None, help="write the figures to this file")
    args = ap.parse_args()
    # the two settings interleaved, so that a load on the machine hits both alike
    rates: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.repeat):
        for persists in (False, True):
            rates[persists].append(run_once(args.n_elements, args.h, args.t_end, persists))
    figures = {}
    for persists, label in ((False, "default"), (True, "persisting Jacobian")):
        med = statistics.median(rates[persists])
        print(f"soft arm, {args.n_elements} elements, h = {args.h:g} s, LQR controller, "
              f"recorded, {label}: {med:.0f} steps/s (median of {args.repeat}: "
              f"{', '.join(f'{r:.0f}' for r in rates[persists])}); real time needs "
              f"{1.0 / args.h:.0f}: {med * args.h:.2f}x real time")
        figures[persists] = {"steps_per_s": rates[persists], "median_steps_per_s": med,
                             "real_time_factor": med * args.h}
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"n_elements": args.n_elements, "h_s": args.h, "t_end_s": args.t_end,
             **figures[False], "persisting_jacobian": figures[True]}, indent=1) + "\n")

if __name__ == "__main__":
    main()
