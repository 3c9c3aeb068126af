"""Time from launch to the first step of the flying spaghetti, with an empty and a warm
form cache (issue 22 target: <= 5 s cold).

    python bench/cold_start.py [--runs 3] [--n-elements 10] [--json bench/cold_start.json]
                               [--profile]

Each run starts a fresh interpreter (``python -c``) whose ``XDG_CACHE_HOME`` points at a new
empty directory, so FFCx and fxrod's C helpers compile everything (cold); a second launch
with the same directory finds them compiled (warm). The child prints the times since its
launch at which ``import fxrod`` returned, the model was built, and the first step was done;
the parent adds the interpreter start-up (launch to first line of the child) from its own
clock. Times are wall-clock seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import sys, time
t0 = float(sys.argv[1])
import fxrod
t_import = time.time() - t0
from fxrod.studies.cases import demo
integ = demo("flying_spaghetti").problem(int(sys.argv[2])).integrator()
t_model = time.time() - t0
integ.step()
t_step = time.time() - t0
print(f"{t_import} {t_model} {t_step}")
"""

#: ``--profile``: wall-clock seconds inside fxrod.native.jit's compilation of the forms (code
#: generation, C builds in child processes, fxrod's helper built meanwhile), FFCx's code
#: generation, fxrod's C helper build, and every cffi build in this process (setuptools and
#: the C compiler: the helper's)
PROFILE = r"""
import functools, json, time
import cffi.recompiler, ffcx.compiler
import fxrod.native, fxrod.native.jit
split = {}
def timed(owner, name, key):
    f = getattr(owner, name)
    @functools.wraps(f)
    def g(*a, **k):
        t = time.time()
        try:
            return f(*a, **k)
        finally:
            split[key] = split.get(key, 0.0) + time.time() - t
    setattr(owner, name, g)
timed(fxrod.native.jit, "_compile", "jit_compile_s")
timed(ffcx.compiler, "compile_ufl_objects", "ffcx_codegen_s")
timed(fxrod.native, "load", "fxrod_helper_s")
timed(cffi.recompiler, "recompile", "cffi_builds_in_process_s")
"""


def launch(cache: str, n_e: int, profile: bool = False) -> dict[str, float]:
    """One interpreter launch with ``XDG_CACHE_HOME = cache``: seconds from launch to the
    end of ``import fxrod``, of the model's construction and of the first step (with
    ``profile``, also the split of :data:`PROFILE`)."""
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    env.pop("FXROD_CACHE_DIR", None)
    child = CHILD.replace("from fxrod.studies.cases", PROFILE + "from fxrod.studies.cases", 1) \
        if profile else CHILD
    if profile:
        child += "print(json.dumps(split))\n"
    t0 = time.time()
    lines = subprocess.run([sys.executable, "-c", child, repr(t0), str(n_e)], env=env,
                           check=True, capture_output=True, text=True).stdout.splitlines()
    if profile:
        split = json.loads(lines.pop())
    t_import, t_model, t_step = (float(v) for v in lines[-1].split())
    out = {"import_s": t_import, "model_s": t_model, "first_step_s": t_step}
    return out | split if profile else out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--n-elements", type=int, default=10)
    parser.add_argument("--json", default=None)
    parser.add_argument("--profile", action="store_true",
                        help="one more cold launch: time in FFCx, cffi builds, the compiler")
    args = parser.parse_args()
    rows = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="fxrod-cold-") as cache:
            cold = launch(cache, args.n_elements)
            warm = launch(cache, args.n_elements)
        rows.append({"run": run, "cold": cold, "warm": warm})
        print(f"run {run}: cold  import {cold['import_s']:.2f} s, model {cold['model_s']:.2f} s, "
              f"first step {cold['first_step_s']:.2f} s | warm  import {warm['import_s']:.2f} s, "
              f"model {warm['model_s']:.2f} s, first step {warm['first_step_s']:.2f} s")
    result = {"n_elements": args.n_elements, "runs": rows}
    if args.profile:
        with tempfile.TemporaryDirectory(prefix="fxrod-cold-") as cache:
            result["profile"] = prof = launch(cache, args.n_elements, profile=True)
        print("profile (cold): " + ", ".join(f"{k} {v:.2f}" for k, v in prof.items()))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)


if __name__ == "__main__":
    main()
