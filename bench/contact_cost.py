"""Per-step cost of self-contact (fxrod.core.forms.rodcontact) for several mesh sizes (issue 20).

    python bench/contact_cost.py [--sizes 100,1000,10000] [--steps N] [--json out.json]

The rod: a closely wound free helix (coil radius 5 r, pitch 2 r (1 + 1e-3), 32 elements
per turn so that the P2 nodes of neighbouring turns lie on common axial lines; node spacing
0.49 r < r) squeezed by an initial axial velocity ``v_z = -omega (z - z_mid)`` under
which neighbouring turns approach at 0.05 m/s. The 2e-5 m gaps close in the second step
(the last warm-up step, about a third of the pairs) and the third (the first timed step,
all of them: the pattern grows, MUMPS re-analyses); from then on every aligned node pair
of neighbouring turns (n_nodes - 64 pairs) stays pressed, deeper each step (about
1e-5 m = 1e-3 r per step: interior turns feel equal forces above and below; the pair
stiffness k = 1e2 N/m keeps them together for about 80 steps).

For each n_e: ``--warmup`` steps, then N timed steps, three ways:

* ``fast``: no contact, default settings (fxrod's FFCx fast assembly, MUMPS);
* ``dolfinx``: no contact, ``fast_assembly=False`` -- the path every model with a nonlocal
  term takes (fxrod.solvers.newton: DOLFINx assembly into a matrix that accepts new nonzeros);
* ``contact``: with :class:`fxrod.core.forms.rodcontact.RodContact` (k = 1e2 N/m per pair).

Contact breakdown per step (wrappers around the instance's methods, the class is used as it
is): pair search (``_pairs``: KD-trees at t_n and at the iterate, exclusion filter), node
gather, residual rows (``add_residual`` less its search/gather) and Jacobian blocks
(``add_jacobian`` less its search/gather); MUMPS symbolic analyses (PETSc event
``MatLUFactorSym``: redone whenever a new pair adds nonzeros) and numeric factorisations.
``share`` = (contact - fast) / contact; ``terms share`` = (contact - dolfinx) / contact.
``--contact-sizes`` limits the contact mode.
Wall times on a shared machine scatter by +-15 %; ``cpu_ms`` is less disturbed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from fxrod.core.forms.rodcontact import RodContact
from fxrod.core.geometry import Helix
from fxrod.core.model import RodModel
from fxrod.core.rod import Rod, Section
from fxrod.runs.integrators import Integrator
from fxrod.solvers.settings import SolverSettings

R = 0.01                      #: wire (contact) radius [m]
COIL = 5.0 * R                #: coil radius [m]
PITCH = 2.0 * R * (1.0 + 1e-3)  #: pitch [m]: neighbouring turns 2e-5 m apart
PER_TURN = 32                 #: elements per turn (nodes of neighbouring turns aligned)
V_REL = 0.05                  #: speed of approach of neighbouring turns [m/s]
K = 1e2                       #: pair stiffness [N/m]
H = 2e-4                      #: step [s]
SEC = Section.circular(radius=R, E=1e7, rho=1000.0, nu=0.3)
EVENTS = ("PCSetUp", "PCApply", "MatLUFactorSym", "MatLUFactorNum")


def coil(n_e: int, contact: bool):
    """The squeezed helix with ``n_e`` elements; returns (model, RodContact or None)."""
    helix = Helix(COIL, PITCH, n_e / PER_TURN)
    rc = RodContact(radius=R, stiffness=K) if contact else None
    model = RodModel(Rod(SEC, curve=helix, n_elements=n_e), [], [], [rc] if rc else [])
    omega = V_REL / PITCH
    z_mid = 0.5 * helix.c * helix.length / helix.a

    def v(s):
        z = helix.c * np.asarray(s) / helix.a
        return np.vstack([0 * z, 0 * z, -omega * (z - z_mid)])

    model.set_velocity(v_phi=v)
    return model, rc


def _timed(fn, acc, key):
    def wrapper(*args, **kw):
        t0 = time.perf_counter()
        out = fn(*args, **kw)
        acc[key] += time.perf_counter() - t0
        return out
    return wrapper


def _instrument(rc: RodContact, acc: dict) -> None:
    """Time the instance's hooks and, inside each, its pair search and node gather
    (instance attributes shadow the class's methods; the class itself is untouched)."""
    where = ["other"]

    def hook(name):
        fn = getattr(rc, name)

        def wrapper(*args, **kw):
            where[0] = name
            t0 = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                acc[name] = acc.get(name, 0.0) + time.perf_counter() - t0
                where[0] = "other"
        return wrapper

    def inner(name):
        fn = getattr(rc, name)

        def wrapper(*args, **kw):
            t0 = time.perf_counter()
            out = fn(*args, **kw)
            key = f"{name}@{where[0]}"
            acc[key] = acc.get(key, 0.0) + time.perf_counter() - t0
            return out
        return wrapper

    for name in ("_pairs", "_gather"):
        setattr(rc, name, inner(name))
    for name in ("add_residual", "add_jacobian"):
        setattr(rc, name, hook(name))


def _ms(acc: dict, key: str, steps: int) -> float:
    return 1e3 * acc.get(key, 0.0) / steps


def measure(n_e: int, mode: str, steps: int, warmup: int) -> dict:
    """Time ``steps`` steps after ``warmup`` of the coil with ``n_e`` elements in ``mode``
    (``fast``, ``dolfinx`` or ``contact``); times in ms per step."""
    from petsc4py import PETSc

    t0 = time.perf_counter()
    model, rc = coil(n_e, mode == "contact")
    # MUMPS in every mode: rod-rod contact needs it, so the modes compare like with like
    integ = Integrator(model, H, SolverSettings(fast_assembly=(mode == "fast"),
                                                linear_solver="mumps"))
    setup = time.perf_counter() - t0
    snes = integ.newton.snes
    acc = {"residual": 0.0, "jacobian": 0.0}
    vec, (f, fargs, fkw) = snes.getFunction()
    snes.setFunction(_timed(f, acc, "residual"), vec, args=fargs, kargs=fkw)
    A, P, (j, jargs, jkw) = snes.getJacobian()
    snes.setJacobian(_timed(j, acc, "jacobian"), A, P, args=jargs, kargs=jkw)
    if rc is not None:
        _instrument(rc, acc)
    for _ in range(warmup):
        integ.step()
    acc.clear()
    acc.update(residual=0.0, jacobian=0.0, add_residual=0.0, add_jacobian=0.0)
    ev = {k: PETSc.Log.Event(k) for k in EVENTS}

    def info():
        return {k: (e.getPerfInfo()["time"], e.getPerfInfo()["count"]) for k, e in ev.items()}

    before = info()
    its, per_step = 0, []
    cpu0 = time.process_time()
    for _ in range(steps):
        t1 = time.perf_counter()
        its += integ.step().newton_its
        per_step.append(time.perf_counter() - t1)
    cpu = time.process_time() - cpu0
    after = info()
    d = {k: (after[k][0] - before[k][0], (after[k][1] - before[k][1]) / steps) for k in EVENTS}
    row = {"n_e": n_e, "mode": mode,
           "steps": steps, "setup_s": setup,
           "ms_per_step": 1e3 * sum(per_step) / steps,
           "median_ms": 1e3 * statistics.median(per_step), "cpu_ms": 1e3 * cpu / steps,
           "newton_its_per_step": its / steps,
           "residual_ms": _ms(acc, "residual", steps), "jacobian_ms": _ms(acc, "jacobian", steps),
           "factor_ms": 1e3 * d["PCSetUp"][0] / steps, "solve_ms": 1e3 * d["PCApply"][0] / steps,
           "analysis_ms": 1e3 * d["MatLUFactorSym"][0] / steps,
           "analyses_per_step": d["MatLUFactorSym"][1],
           "numeric_ms": 1e3 * d["MatLUFactorNum"][0] / steps,
           "factorisations_per_step": d["MatLUFactorNum"][1]}
    if rc is not None:
        x = rc._gather(rc.w0)
        p = rc._pairs(x)
        g = np.linalg.norm(x[p[:, 0]] - x[p[:, 1]], axis=1) - 2.0 * R
        search = {h: _ms(acc, f"_pairs@{h}", steps) + _ms(acc, f"_gather@{h}", steps)
                  for h in ("add_residual", "add_jacobian")}
        row.update(pairs_candidate=int(p.shape[0]), pairs_in_contact=int(np.sum(g < 0.0)),
                   max_overlap_over_r=float(-np.min(g, initial=0.0) / R),
                   search_ms=_ms(acc, "_pairs@add_residual", steps)
                   + _ms(acc, "_pairs@add_jacobian", steps),
                   gather_ms=_ms(acc, "_gather@add_residual", steps)
                   + _ms(acc, "_gather@add_jacobian", steps),
                   rows_ms=_ms(acc, "add_residual", steps) - search["add_residual"],
                   blocks_ms=_ms(acc, "add_jacobian", steps) - search["add_jacobian"],
                   contact_ms=_ms(acc, "add_residual", steps) + _ms(acc, "add_jacobian", steps))
    return row


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--steps", type=int, default=0, help="timed steps (default: by size)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--modes", default="fast,dolfinx,contact")
    ap.add_argument("--contact-sizes", default="100,1000,10000",
                    help="sizes at which the contact mode runs")
    ap.add_argument("--append", action="store_true", help="add the rows to --json")
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    a = ap.parse_args(argv)
    if a.append and not a.json:
        ap.error("--append adds the rows to the --json file: give --json")
    contact_sizes = {int(v) for v in a.contact_sizes.split(",")}
    from petsc4py import PETSc

    PETSc.Log.begin()
    rows = []
    print(f"{'n_e':>6} {'mode':>8} {'pairs':>6} {'touch':>6} {'ms/step':>9} {'cpu':>8} "
          f"{'its':>5} {'resid':>7} {'jac':>7} {'factor':>7} {'anal.':>7} {'#anal':>5} "
          f"{'solve':>7} {'search':>7} {'gather':>7} {'rows':>7} {'blocks':>7}")
    for n in (int(s) for s in a.sizes.split(",")):
        steps = a.steps or max(5, min(20, 4000 // n))
        by_mode = {}
        for mode in a.modes.split(","):
            if mode == "contact" and n not in contact_sizes:
                continue
            r = measure(n, mode, steps, a.warmup)
            r["load_1min"] = os.getloadavg()[0]
            by_mode[mode] = r
            rows.append(r)
            c = (f"{r['pairs_candidate']:>6} {r['pairs_in_contact']:>6}" if mode == "contact"
                 else f"{'':>6} {'':>6}")
            tail = (f" {r['search_ms']:>7.2f} {r['gather_ms']:>7.2f} {r['rows_ms']:>7.2f} "
                    f"{r['blocks_ms']:>7.2f}" if mode == "contact" else "")
            print(f"{n:>6} {mode:>8} {c} {r['ms_per_step']:>9.2f} {r['cpu_ms']:>8.2f} "
                  f"{r['newton_its_per_step']:>5.2f} {r['residual_ms']:>7.2f} "
                  f"{r['jacobian_ms']:>7.2f} {r['factor_ms']:>7.2f} {r['analysis_ms']:>7.2f} "
                  f"{r['analyses_per_step']:>5.2f} {r['solve_ms']:>7.2f}{tail}", flush=True)
        if {"fast", "contact"} <= by_mode.keys():
            c = by_mode["contact"]
            c["share"] = 1.0 - by_mode["fast"]["ms_per_step"] / c["ms_per_step"]
            if "dolfinx" in by_mode:
                c["terms_share"] = 1.0 - by_mode["dolfinx"]["ms_per_step"] / c["ms_per_step"]
            print(f"{n:>6} contact share {c['share']:.0%} of the step"
                  + (f" (nonlocal terms alone {c['terms_share']:.0%})" if "dolfinx" in by_mode
                     else ""), flush=True)
    if a.json:
        old = []
        if a.append and os.path.exists(a.json):
            with open(a.json) as fh:
                old = json.load(fh)
        with open(a.json, "w") as fh:
            json.dump(old + rows, fh, indent=1)
    return rows


if __name__ == "__main__":
    main()
