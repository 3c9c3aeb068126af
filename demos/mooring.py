# %% [markdown]
# # A mooring line: a chain from an anchor on the seabed to a fairlead.
#
# A studless chain (115 kg/m, EA = 5.4e8 N, a bending stiffness EI = 1e3 N m^2 that only
# smooths its kinks) of unstretched length 250 m lies on a flat, frictionless seabed
# (penalty contact, ``fxrod.core.forms.contact.Contact`` on a ``HalfSpace``) from an anchor at
# the origin and rises to a fairlead about 44 m above it (both ends clamped). Its weight is
# ``Gravity``, its buoyancy and the drag of a current ``MorisonDrag`` (volume-equivalent
# diameter 0.137 m, C_dn = 2.4, C_dt = 1.15: MoorDyn's chain coefficients), so the axial
# force of the rod is the effective tension. The wet weight is w = 981 N/m.
#
# The stress-free reference is the inextensible catenary through the fairlead, touching down
# at mid-length, straightened; the weight, buoyancy and seabed offset are ramped in over the
# load steps, then the current's drag. Without current the profile is the elastic catenary
# (Irvine 1981, tests/test_mooring.py); a current pushes the suspended part along.
#
#     python demos/mooring.py [--out DIR] [--n-elements 128] [--current -0.5]
#
# Writes ``DIR/mooring.csv`` (still water) and ``DIR/mooring_current.csv``: ``s``
# (unstretched arc length [m]), ``x``, ``z`` [m] and the effective ``tension`` [N].

# %%
from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from fxrod import (
    Clamp,
    Contact,
    CurveFunction,
    Gravity,
    HalfSpace,
    Integrator,
    MorisonDrag,
    Nodes,
    Rod,
    RodModel,
    Section,
    SolverSettings,
)
from fxrod.problems.mooring import elastic_catenary, node_tension, write_profile_csv

G = 9.81                  # m/s^2
RHO_W = 1025.0            # sea water, kg/m^3
RHO_A = 115.0             # chain mass per length, kg/m
#: Volume-equivalent diameter [m] of the steel (density 7850 kg/m^3): the buoyancy's.
DIAMETER = math.sqrt(4.0 * RHO_A / (7850.0 * math.pi))
C_DN, C_DT = 2.4, 1.15    # MoorDyn's chain drag coefficients on that diameter
EA = 5.4e8                # N
EI = 1e3                  # N m^2
LENGTH = 250.0            # unstretched line length, m
#: Wet weight per unstretched length [N/m].
WET_WEIGHT = (RHO_A - RHO_W * math.pi * DIAMETER ** 2 / 4.0) * G
#: Horizontal tension [N] of the inextensible reference catenary.
H_REFERENCE = 1.5e5
#: Seabed penalty stiffness [N/m^2]: the lying chain sinks w/k = 1 mm into the seabed,
#: which is raised by as much with the weight.
STIFFNESS = 1e6
SECTION = Section(rhoA=RHO_A, M11=RHO_A * DIAMETER ** 2 / 16.0,
                  M22=RHO_A * DIAMETER ** 2 / 16.0, k_s1=EA / 2.6, k_s2=EA / 2.6, k_e=EA,
                  k_b1=EI, k_b2=EI, k_t=EI / 1.3, radius=DIAMETER / 2.0)


def reference_catenary(h: float = H_REFERENCE, length: float = LENGTH,
                       w: float = WET_WEIGHT) -> tuple[CurveFunction, np.ndarray]:
    """The inextensible catenary of horizontal tension ``h`` [N] and wet weight ``w`` [N/m]
    lying on the seabed z = 0 over its first half: the reference curve (arc length s from
    the anchor at the origin, in the x-z plane, d1 = e2) and its end, the fairlead [m]."""
    a, lb = h / w, 0.5 * length

    def fn(s):
        u = np.maximum(np.asarray(s, dtype=float) - lb, 0.0)
        r = np.sqrt(a ** 2 + u ** 2)
        x = np.minimum(s, lb) + a * np.arcsinh(u / a)
        d3 = np.stack([a / r, np.zeros_like(r), u / r], axis=1)
        d1 = np.tile([0.0, 1.0, 0.0], (u.size, 1))
        phi = np.stack([x, np.zeros_like(x), r - a], axis=1)
        return phi, np.stack([d1, np.cross(d3, d1), d3], axis=2)

    return CurveFunction(fn, length), fn(np.array([length]))[0][0]


def mooring(n_elements: int = 128, current: float = 0.0, steps: int = 4,
            stiffness: float = STIFFNESS) -> dict[str, np.ndarray | float]:
    """The static profile of the line on ``n_elements`` (serial), in ``steps`` load steps of
    the weight, then (``current`` [m/s] along x, negative: towards the anchor) as many of the
    current's drag (at zero tension the chain carries only the funicular part of a load; the
    drag would meet the bending stiffness alone); seabed penalty ``stiffness`` [N/m^2].
    Returns ``s``, ``x``, ``z`` [m] and ``tension`` [N] at the nodes, the anchor's horizontal
    reaction ``H`` [N], the fairlead's force on the line ``fairlead_force`` ``(F_x, F_z)``
    [N] and position ``fairlead`` ``(x, z)`` [m], and ``wall_s`` [s] (bench/peers.py)."""
    curve, fairlead = reference_catenary()
    rod = Rod(SECTION, curve=curve, n_elements=n_elements, natural_curvature=(0.0, 0.0, 0.0))
    w = WET_WEIGHT

    def g(t):                      # the weight and buoyancy over 0 <= t <= 1
        return (0.0, 0.0, -G * min(t, 1.0))

    seabed = HalfSpace(motion=lambda t: (0.0, 0.0, min(t, 1.0) * w / stiffness))
    drag = MorisonDrag(RHO_W, DIAMETER, C_DN, C_DT, g=g,
                       current=lambda t: (math.sqrt(max(t - 1.0, 0.0)) * current, 0.0, 0.0))
    model = RodModel(rod, [Gravity(g)], supports=[Clamp("0"), Clamp("L")],
                     extensions=[drag, Contact(seabed, stiffness, radius=0.0)],
                     quasistatic=True)
    integ = Integrator(model, 1.0 / steps, SolverSettings(atol=1e-6))
    t0 = time.perf_counter()
    for _ in range(2 * steps if current else steps):
        res = integ.step()
    wall = time.perf_counter() - t0
    nodes = Nodes(model)
    s, q = nodes.gather_nodes()
    s_sig, _, _, _, n, _ = nodes.gather_stresses()
    tension = node_tension(s, s_sig, n)
    anchor, top = res.reactions["clamp_0"], res.reactions["clamp_L"]
    return {"s": s, "x": q[:, 0], "z": q[:, 2], "tension": tension, "H": -anchor[0],
            "fairlead_force": np.array([top[0], top[2]]), "fairlead": fairlead[[0, 2]],
            "wall_s": wall}


# %%
if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A mooring line's static profile.")
    parser.add_argument("--out", type=Path, default=Path("results/mooring"))
    parser.add_argument("--n-elements", type=int, default=128)
    parser.add_argument("--current", type=float, default=-0.5,
                        help="in-plane current along x [m/s] of the second run")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    still = mooring(args.n_elements)
    write_profile_csv(still, args.out / "mooring.csv")
    H, Ls = elastic_catenary(*still["fairlead"], LENGTH, WET_WEIGHT, EA)
    print(f"still water: H = {still['H']:.6g} N (elastic catenary {H:.6g} N), fairlead "
          f"tension {np.linalg.norm(still['fairlead_force']):.6g} N "
          f"(catenary {math.hypot(H, WET_WEIGHT * Ls):.6g} N)")
    flow = mooring(args.n_elements, current=args.current)
    write_profile_csv(flow, args.out / "mooring_current.csv")
    print(f"current {args.current} m/s: H = {flow['H']:.6g} N, fairlead tension "
          f"{np.linalg.norm(flow['fairlead_force']):.6g} N; wrote {args.out}")
