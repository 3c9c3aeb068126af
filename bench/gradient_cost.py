"""Cost of one adjoint gradient against the forward run it differentiates (target <= 3x).

    python bench/gradient_cost.py [--repeat 3] [--json bench/gradient_cost.json]

Problems: Ex. 6.2 cantilever (8 elements, h = 1 ms, 0.1 s; E, rho and a 3-component force
history on 11 knots), the same with every 10th state kept (recomputation), the Ex. 6.3
quasi-static cantilever (16 elements, 10 load steps; compliance and force history) and the
soft arm (10 elements, 0.5 s; three pressure histories and E, rho). The forward run is
``Adjoint.forward`` (Newton steps + objective), the gradient ``Adjoint.gradient`` (one
transposed Jacobian solve per step + the partial derivatives); best of ``--repeat`` runs,
after one warm-up (form compilation excluded).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import fxrod  # noqa: F401  (imports dolfinx_solver before petsc4py)
from fxrod.analysis.adjoint import (
    Adjoint,
    ConstantParameter,
    InputHistory,
    SectionParameters,
    TipTracking,
)
from fxrod.problems.soft_arm import SOFT_ARM
from fxrod.studies.cases import demo


def cantilever(k: int) -> Adjoint:
    prob = demo("cantilever_vibration").problem(n_elements=8, h=1e-3, t_end=0.1)
    m = prob.model
    params = [SectionParameters(m, ["E", "rho"], E=7.2e10, G=7.2e10 / 2.7, rho=2850.0,
                                radius=2e-3),
              InputHistory("force", m.loads[0], np.linspace(0.0, 0.1, 11))]
    return Adjoint(prob.integrator(), 0.1, TipTracking(lambda t: np.array([1.0, 0.0, 0.0])),
                   params, checkpoint_every=k)


def quasistatic() -> Adjoint:
    prob = demo("quasistatic_cantilever").problem(n_elements=16, h=0.1)
    m = prob.model
    params = [ConstantParameter("C", m.C),
              InputHistory("force", m.loads[0], np.linspace(0.0, 1.0, 11))]
    return Adjoint(prob.integrator(), 1.0, TipTracking(lambda t: np.array([5.0 * t, -t, 0.0])),
                   params)


def arm() -> Adjoint:
    prob = demo("soft_arm").problem("heart", n_elements=10)
    m, p = prob.model, SOFT_ARM
    act = m.extensions[0]
    params = [InputHistory(f"p{k}", (act, a), np.linspace(0.0, 0.5, 11),
                           values=np.full(11, 1e5), scale=-1e-4, lower=0.0)
              for k, a in enumerate(act.actuators)]
    params.append(SectionParameters(m, ["E", "rho"], E=p.E, G=p.E / 2.7, rho=p.rho,
                                    radius=p.diameter / 2))
    return Adjoint(prob.integrator(), 0.5, TipTracking(lambda t: np.array([0.02, 0.0, 0.17])),
                   params)


PROBLEMS = {
    "cantilever (all states)": lambda: cantilever(1),
    "cantilever (every 10th state)": lambda: cantilever(10),
    "quasi-static cantilever": quasistatic,
    "soft arm (3 pressure histories)": arm,
}


def measure(make, repeat: int) -> dict:
    adj = make()
    adj.value_and_grad()                                # warm-up: JIT, MUMPS analysis
    fwd, grad = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        adj.forward()
        t1 = time.perf_counter()
        adj.gradient()
        grad.append(time.perf_counter() - t1)
        fwd.append(t1 - t0)
    f, g = min(fwd), min(grad)
    return {"steps": len(adj.record.h), "parameters": int(adj.get().size),
            "forward_s": f, "gradient_s": g, "ratio": g / f}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None,
                    help="write the results to this JSON file (without it: print only)")
    args = ap.parse_args()
    rows = {name: measure(make, args.repeat) for name, make in PROBLEMS.items()}
    print(f"{'problem':34s} {'steps':>5s} {'params':>6s} {'forward s':>10s} "
          f"{'gradient s':>10s} {'ratio':>6s}")
    for name, r in rows.items():
        print(f"{name:34s} {r['steps']:5d} {r['parameters']:6d} {r['forward_s']:10.3f} "
              f"{r['gradient_s']:10.3f} {r['ratio']:6.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
