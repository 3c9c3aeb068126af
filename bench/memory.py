"""Peak resident memory of the flying spaghetti by mesh size, and what grows with the mesh.

    python bench/memory.py [--sizes 1000,10000] [--steps 3] [--json bench/memory.json]

Each size runs in a fresh interpreter (``python bench/memory.py --child N``): the flying
spaghetti (``demo("flying_spaghetti").problem(n_e)``) with its default settings (the chain
solver, serial) makes ``--steps`` steps, then the child reports its peak resident set from
the operating system's accounting (``getrusage(RUSAGE_SELF).ru_maxrss``, the kernel's
high-water mark of the process) and its resident set after the imports, the model and the
integrator (``VmRSS`` of ``/proc/self/status`` where it exists). The memory that grows with
the mesh is ``(peak(n_1) - peak(n_0)) / (n_1 - n_0)`` in kB per element (kB = 1000 bytes)
between the first and the last size.

The breakdown (kB per element, the same difference over the sizes) sums the numpy arrays
that the solver's objects hold, by owner: the chain solver's factors and work arrays
(``ChainSolver``), the fast Jacobian (pattern, CSR values, element offsets and matrices
where they exist, the positions of its coefficients), the fast residual (its vector and the
positions of its coefficients), the energy ledger's functionals, the Newton solver's own
vectors; an array that several hold (the vectors a solve is passed) counts for the first of
them in that order, the chain solver last; "other" is the rest of the growth (DOLFINx's
mesh, dofmaps, functions and forms, the allocator's free blocks).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np

KB = 1000.0
MB = 1024.0 * 1024.0


def resident_mb() -> float | None:
    """Current resident set [MiB] (``VmRSS``; None where ``/proc`` is missing)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / MB
    except OSError:
        pass
    return None


def peak_mb() -> float:
    """Peak resident set [MiB] of this process (``ru_maxrss``: kB on Linux, bytes on
    macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / MB if sys.platform == "darwin" else peak * 1024 / MB


def _arrays(obj, seen: set[int]) -> int:
    """Bytes of the numpy arrays among ``obj``'s attributes (and in the dicts and lists
    they hold, e.g. the packed coefficients of each integral), each counted once and only
    where it owns its data."""
    total = 0
    values = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
    while values:
        v = values.pop()
        if isinstance(v, np.ndarray):
            if v.base is None and id(v) not in seen:
                seen.add(id(v))
                total += v.nbytes
        elif isinstance(v, dict):
            values.extend(v.values())
        elif isinstance(v, (list, tuple)):
            values.extend(v)
    return total


def breakdown(integ) -> dict[str, float]:
    """Bytes of the arrays held by the stepper's solver objects, by owner."""
    newton = integ.newton
    seen: set[int] = set()
    out: dict[str, float] = {}
    chain = newton.chain.chain if newton.chain is not None else None
    fj, fr = newton.fast_jacobian, newton.fast_residual
    ledger = [f._fast for f in integ.model.ledger._functionals.values() if f._fast is not None]
    for name, objs in (("fast_jacobian", [fj, fj and fj.kernels]),
                       ("fast_residual", [fr, fr and fr.vector, fr and fr.kernels]),
                       ("energy_ledger", [o for f in ledger for o in (f, f.kernels)]),
                       ("newton_vectors", [newton]),
                       ("chain_solver", [chain])):
        out[name] = float(sum(_arrays(o, seen) for o in objs if o is not None))
    return {k: out[k] for k in ("chain_solver", "fast_jacobian", "fast_residual",
                                "energy_ledger", "newton_vectors")}


def child(n_e: int, steps: int) -> dict:
    """Run the flying spaghetti with ``n_e`` elements for ``steps`` steps in this process;
    its memory figures [MiB] and the breakdown [bytes]."""
    row: dict = {"n_e": n_e, "steps": steps, "rss_start_mb": resident_mb()}
    import fxrod  # noqa: F401  (imports dolfinx_solver before petsc4py)
    from fxrod.studies.cases import demo

    row["rss_import_mb"] = resident_mb()
    problem = demo("flying_spaghetti").problem(n_e)
    row["rss_model_mb"] = resident_mb()
    integ = problem.integrator()
    row["rss_integrator_mb"] = resident_mb()
    row["linear_solver"] = ("chain" if integ.newton.chain is not None
                            and integ.newton.chain.reason is None else "mumps")
    for _ in range(steps):
        integ.step()
    row["rss_end_mb"] = resident_mb()
    row["peak_mb"] = peak_mb()
    row["bytes"] = breakdown(integ)
    return row


def run(n_e: int, steps: int) -> dict:
    """:func:`child` in a fresh interpreter."""
    out = subprocess.run([sys.executable, __file__, "--child", str(n_e), "--steps",
                          str(steps)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--steps", type=int, default=3, help="steps per run")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args(argv)
    if a.child is not None:
        print(json.dumps(child(a.child, a.steps)))
        return {}
    rows = [run(int(s), a.steps) for s in a.sizes.split(",")]
    print(f"{'n_e':>6} {'solver':>7} {'import':>8} {'model':>8} {'integ.':>8} {'end':>8} "
          f"{'peak MiB':>9}")
    for r in rows:
        print(f"{r['n_e']:>6} {r['linear_solver']:>7} {r['rss_import_mb'] or 0:>8.1f} "
              f"{r['rss_model_mb'] or 0:>8.1f} {r['rss_integrator_mb'] or 0:>8.1f} "
              f"{r['rss_end_mb'] or 0:>8.1f} {r['peak_mb']:>9.1f}")
    out: dict = {"rows": rows}
    if len(rows) > 1:
        r0, r1 = rows[0], rows[-1]
        dn = r1["n_e"] - r0["n_e"]
        growth = (r1["peak_mb"] - r0["peak_mb"]) * MB / KB / dn
        owners = {k: (r1["bytes"][k] - r0["bytes"][k]) / KB / dn for k in r1["bytes"]}
        owners["other"] = growth - sum(owners.values())
        out.update(growth_kb_per_element=growth, owners_kb_per_element=owners)
        print(f"peak memory growth {r0['n_e']} -> {r1['n_e']}: {growth:.1f} kB per element; "
              "by owner (kB per element): "
              + ", ".join(f"{k} {v:.1f}" for k, v in owners.items()))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
