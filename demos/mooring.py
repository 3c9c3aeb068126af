# %% [markdown]
# # A mooring line: a chain from an anchor on the seabed to a fairlead.
#
# A studless chain (115 kg/m, EA = 5.4e8 N, a bending stiffness EI = 1e3 N m^2 that only
# smooths its kinks) of unstretched length 250 m lies on a flat, frictionless seabed
# (``Contact`` with a ``HalfSpace``) from an anchor at the origin and rises to a fairlead
# about 44 m above it (both ends clamped). ``Gravity`` is its weight, ``MorisonDrag`` its
# buoyancy and the drag of a current (volume-equivalent diameter 0.137 m, C_dn = 2.4,
# C_dt = 1.15: MoorDyn's chain), so the rod's axial force is the effective tension. The
# reference is the inextensible catenary through the fairlead, touching down at mid-length,
# straightened; the weight, buoyancy and seabed offset are ramped in over the load steps,
# then the current's drag. Without current the profile is the elastic catenary (Irvine
# 1981, tests/test_mooring.py). Then the dynamic decay: from the static state (64 elements,
# EI = 3e5 N m^2, stiff enough that the tension leaves the elements' shear mode stable:
# tension_mechanism_ratio) the fairlead moves 2 m away from the anchor in 5 s, turning to
# the end angle of the catenary through its new place, and is held; ``AddedMass``
# (C_a = 1) and the drag settle the line.
#
#     python demos/mooring.py [--out DIR] [--n-elements 128] [--current -0.5] [--quick]
#
# Writes ``DIR/mooring.csv`` (still water), ``DIR/mooring_current.csv`` (``s``, ``x``, ``z``
# [m], ``tension`` [N]) and ``DIR/mooring_decay.csv`` (``t`` [s], the fairlead force [N],
# the node at mid-length [m], the ledger [J]).

# %%
from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from fxrod import (
    AddedMass,
    Clamp,
    Contact,
    Gravity,
    HalfSpace,
    Integrator,
    MorisonDrag,
    Rod,
    RodModel,
    Section,
    SolverSettings,
)
from fxrod.problems import mooring as readout

G, RHO_W, RHO_A = 9.81, 1025.0, 115.0   # m/s^2; sea water, kg/m^3; chain, kg/m
DIAMETER = math.sqrt(4.0 * RHO_A / (7850.0 * math.pi))   # volume-equivalent (steel), m
C_DN, C_DT, C_A = 2.4, 1.15, 1.0   # MoorDyn's chain drag coefficients; added mass
EA, EI, LENGTH = 5.4e8, 1e3, 250.0   # N; N m^2; unstretched line length, m
WET_WEIGHT = (RHO_A - RHO_W * math.pi * DIAMETER ** 2 / 4.0) * G   # per length, N/m
H_REFERENCE = 1.5e5       # horizontal tension [N] of the inextensible reference catenary
STIFFNESS = 1e6           # seabed penalty [N/m^2]: the chain sinks w/k = 1 mm, the seabed rises
SECTION = Section(rhoA=RHO_A, M11=RHO_A * DIAMETER ** 2 / 16.0,
                  M22=RHO_A * DIAMETER ** 2 / 16.0, k_s1=EA / 2.6, k_s2=EA / 2.6, k_e=EA,
                  k_b1=EI, k_b2=EI, k_t=EI / 1.3, radius=DIAMETER / 2.0)
#: The decay: fairlead move [m] along x over RAMP [s]; elements, EI [N m^2], step [s].
SHIFT, RAMP, DECAY_ELEMENTS, DECAY_EI, DECAY_H = 2.0, 5.0, 64, 3e5, 0.05


def line(n_elements: int, ei: float = EI, current: float = 0.0, lift: float = 0.0,
         motion=None) -> RodModel:
    """The line on ``n_elements``: quasi-static (``motion`` None; weight, buoyancy and seabed
    (to w/k) ramped in over 0 <= t <= 1, then the ``current`` [m/s] along x) or dynamic with
    added mass, the fairlead clamp following ``motion`` (t -> (position, rotation)). ``lift``
    [m]: the reference and a fixed seabed raised by as much (a dynamic seabed cannot rise)."""
    curve = readout.catenary_curve(H_REFERENCE, LENGTH, WET_WEIGHT, lift)[0]
    section = replace(SECTION, k_b1=ei, k_b2=ei, k_t=ei / 1.3)
    rod = Rod(section, curve=curve, n_elements=n_elements, natural_curvature=(0.0, 0.0, 0.0))
    quasistatic = motion is None
    g = (lambda t: (0.0, 0.0, -G * min(t, 1.0))) if quasistatic else (0.0, 0.0, -G)
    seabed = HalfSpace(point=(0.0, 0.0, lift)) if lift else \
        HalfSpace(motion=lambda t: (0.0, 0.0, min(t, 1.0) * WET_WEIGHT / STIFFNESS))
    drag = MorisonDrag(RHO_W, DIAMETER, C_DN, C_DT, g=g,
                       current=lambda t: (math.sqrt(max(t - 1.0, 0.0)) * current, 0.0, 0.0))
    ext = [drag, Contact(seabed, STIFFNESS, radius=0.0)]
    return RodModel(rod, [Gravity(g)], supports=[Clamp("0"), Clamp("L", motion=motion)],
                    extensions=ext + ([] if quasistatic else [AddedMass(RHO_W, DIAMETER, C_A)]),
                    quasistatic=quasistatic)


def mooring(n_elements: int = 128, current: float = 0.0, steps: int = 4, ei: float = EI,
            lift: float = 0.0) -> dict:
    """The static profile (serial) in ``steps`` load steps of the weight, then as many of the
    current's drag (at zero tension the chain carries only a load's funicular part). Returns
    ``s``, ``x``, ``z`` [m] and ``tension`` [N] at the nodes, the anchor's horizontal reaction
    ``H`` [N], the fairlead's force on the line ``fairlead_force`` ``(F_x, F_z)`` [N] and
    position ``fairlead`` ``(x, z)`` [m], ``wall_s`` [s] and the ``model``."""
    model = line(n_elements, ei, current, lift)
    integ = Integrator(model, 1.0 / steps, SolverSettings(atol=1e-6))
    t0 = time.perf_counter()
    for _ in range(2 * steps if current else steps):
        res = integ.step()
    wall = time.perf_counter() - t0
    s, q = model.nodes.gather_nodes()
    s_sig, _, _, _, n, _ = model.nodes.gather_stresses()
    anchor, top = res.reactions["clamp_0"], res.reactions["clamp_L"]
    return {"s": s, "x": q[:, 0], "z": q[:, 2], "tension": readout.node_tension(s, s_sig, n),
            "H": -anchor[0], "fairlead_force": top[[0, 2]], "fairlead": q[-1, [0, 2]],
            "wall_s": wall, "model": model}


def decay(t_end: float = 80.0, n_elements: int = DECAY_ELEMENTS, ei: float = DECAY_EI) -> dict:
    """The decay to ``t_end`` [s] (:func:`fxrod.problems.mooring.run_decay`, the line and the
    seabed lifted by w/k) with the elastic catenaries through the old and the new fairlead
    (above the lying chain at z = 0), ``old`` and ``new`` ``(H, V)`` [N]."""
    readout.check_span(t_end, DECAY_H)            # before any form is compiled
    static, w = mooring(n_elements, ei=ei, lift=WET_WEIGHT / STIFFNESS), WET_WEIGHT
    x_f, z_f = static["fairlead"]
    old, new = (readout.elastic_catenary(x, z_f, LENGTH, w, EA) for x in (x_f, x_f + SHIFT))
    motion = readout.fairlead_motion(static["model"].rod.curve, SHIFT,
                                     math.atan2(w * new[1], new[0]), RAMP)
    run = readout.run_decay(static["model"], static["fairlead_force"],
                            line(n_elements, ei, lift=w / STIFFNESS, motion=motion), DECAY_H, t_end)
    return run | {"old": np.array([old[0], w * old[1]]), "new": np.array([new[0], w * new[1]])}


# %%
if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A mooring line's static profile and decay.")
    parser.add_argument("--out", type=Path, default=Path("results/mooring"))
    parser.add_argument("--n-elements", type=int, default=128)
    parser.add_argument("--current", type=float, default=-0.5,
                        help="in-plane current along x [m/s] of the second run")
    parser.add_argument("--quick", action="store_true", help="64 elements, the decay to 10 s")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    n = 64 if args.quick else args.n_elements
    still = mooring(n)
    readout.write_profile_csv(still, args.out / "mooring.csv")
    H, Ls = readout.elastic_catenary(*still["fairlead"], LENGTH, WET_WEIGHT, EA)
    print(f"still water: H = {still['H']:.6g} N (elastic catenary {H:.6g} N), fairlead "
          f"tension {np.linalg.norm(still['fairlead_force']):.6g} N "
          f"(catenary {math.hypot(H, WET_WEIGHT * Ls):.6g} N)")
    flow = mooring(n, current=args.current)
    readout.write_profile_csv(flow, args.out / "mooring_current.csv")
    print(f"current {args.current} m/s: H = {flow['H']:.6g} N, fairlead tension "
          f"{np.linalg.norm(flow['fairlead_force']):.6g} N")
    run, window = decay(10.0 if args.quick else 80.0), 2.5 if args.quick else 20.0
    readout.write_decay_csv(run, args.out / "mooring_decay.csv")
    settled, _ = readout.window_means(run["t"], run["fairlead_force"], window)
    ratio = np.max(np.abs(run["energy_residual"]) / (1e-6 * run["effort"]))
    print(f"decay: fairlead (H, V) {run['old'].round()} -> {settled.round()} N over the last "
          f"{window:g} s (new catenary {run['new'].round()} N); energy residual up to "
          f"{ratio:.2g} of atol |e|_2, dissipated {run['dissipated'].sum():.4g} J in "
          f"{run['wall_s']:.3g} s; wrote {args.out}")
