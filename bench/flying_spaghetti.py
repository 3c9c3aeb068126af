"""Wall time of the full flying-spaghetti run (n_e = 10, h = 0.1, 150 steps) with a warm
form cache, and the time spent before the first step (model + compiled forms from cache).

    python bench/flying_spaghetti.py [--repeat 3] [--n-elements 10]
"""

from __future__ import annotations

import argparse
import json
import time

t_import0 = time.perf_counter()
import fxrod  # noqa: E402,F401
from fxrod.runs.simulation import Simulation  # noqa: E402
from fxrod.studies.cases import demo  # noqa: E402

t_import = time.perf_counter() - t_import0


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n-elements", type=int, default=10)
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args(argv)
    setups, steps, totals = [], [], []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        integ = demo("flying_spaghetti").problem(a.n_elements).integrator()
        t1 = time.perf_counter()
        integ.advance_to(15.0)
        t2 = time.perf_counter()
        sim = Simulation(demo("flying_spaghetti").problem(a.n_elements).integrator())
        t3 = time.perf_counter()
        sim.run(15.0)
        t4 = time.perf_counter()
        setups.append(t1 - t0)
        steps.append(t2 - t1)
        totals.append(t4 - t3)
    out = {"import_s": t_import, "setup_s": min(setups), "steps_s": min(steps),
           "steps_with_diagnostics_s": min(totals), "n_elements": a.n_elements}
    print(f"imports {t_import:.2f} s; setup before the first step {out['setup_s']:.3f} s; "
          f"150 steps {out['steps_s']:.3f} s ({1e3 * out['steps_s'] / 150:.2f} ms/step); "
          f"with per-step diagnostics {out['steps_with_diagnostics_s']:.3f} s")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
