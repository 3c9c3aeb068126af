# %% [markdown]
# # The deep circular arch traced through its limit point by arc-length continuation.
#
# A circular arch of radius 100 through 215 degrees, clamped at one end and hinged at the
# other, carries a dead point force P at its apex (DaDeppo & Schmidt 1975; Simo & Vu-Quoc
# 1986). Load control stops at the limit point (the load cannot grow past it); the
# Riks/Crisfield continuation follows the path through it, with the load factor
# lambda = P R^2/EI and the apex displacement as the path unknowns. At every point the
# number of negative pivots of the symmetric LDL^T factorisation of the tangent gives the
# stability index (0: stable); where it changes, the critical point is located by
# bisection: a limit point near the published P R^2/EI = 8.97.
#
#     python demos/deep_arch.py [--out DIR] [--quick] [--n-elements 64] [--max-steps 40]
#
# Writes ``DIR/deep_arch.csv`` (columns ``lambda, arc_length, index, event, newton_its,
# apex_u1, apex_u2, apex_u3``, docs/output.md) and ``DIR/deep_arch.png``; prints the located
# critical points. The same case runs as ``fxrod run deep-arch`` (the registry reads this
# file). Summary keys: ``limit_load`` (the first limit point's ``P R^2/EI``, NaN if none),
# ``apex_u1``, ``apex_u2`` [m] (the apex displacement there), ``points`` (rows of the path).

# %%
import math
from pathlib import Path

from fxrod import (
    Arc,
    ArcLengthSettings,
    Clamp,
    Continuation,
    Hinge,
    PointLoad,
    Rod,
    RodModel,
    Section,
)
from fxrod.studies.cases import Case, Option, Result
from fxrod.studies.cases.common import wrote

NAME = "deep_arch"
#: Radius [m], opening angle [rad], in-plane bending stiffness [N m^2].
RADIUS, ANGLE, EI = 100.0, math.radians(215.0), 1e6
#: DaDeppo & Schmidt (1975): the limit load P R^2 / EI of the inextensible arch.
PUBLISHED_LIMIT = 8.97

OPTIONS = (
    Option("n_elements", 64, "-", "number of elements (even: a node at the apex)"),
    Option("max_steps", 40, "-", "arc-length steps"),
    Option("ds", 10.0, "m", "first arc length (RMS nodal displacement)"),
)


# %% [markdown]
# ## The model
# The arch lies in the e1-e2 plane, symmetric about e2 with its apex at (0, R). The rod is
# inextensible and unshearable (Kirchhoff constraints), as DaDeppo & Schmidt's elastica,
# with EI = 1e6 in the plane and 100 EI out of it (the published problem is planar). It is
# clamped at s = 0 and hinged at s = L (rotation only about the out-of-plane director d1);
# the apex force ``lambda EI/R^2`` makes the load factor ``lambda = P R^2/EI``.

# %%
def model(n_elements: int = 64, comm=None) -> RodModel:
    """The clamped-hinged arch with the apex load ``lambda EI/R^2`` (quasi-static)."""
    half = 0.5 * ANGLE
    curve = Arc(RADIUS, ANGLE, start=(-RADIUS * math.sin(half), RADIUS * math.cos(half), 0.0),
                tangent=(math.cos(half), math.sin(half), 0.0),
                towards_centre=(math.sin(half), -math.cos(half), 0.0))
    sec = Section(rhoA=0.0, M11=0.0, M22=0.0, k_s1=1.0, k_s2=1.0, k_e=1.0, k_b1=EI,
                  k_b2=100.0 * EI, k_t=100.0 * EI)
    rod = Rod(sec, curve=curve, n_elements=n_elements, constraints=("kirchhoff",))
    apex = PointLoad(0.5 * rod.length, force=lambda lam: (0.0, -lam * EI / RADIUS**2, 0.0))
    return RodModel(rod, [apex], [Clamp("0"), Hinge("L", axis="d1")], comm=comm,
                    quasistatic=True)


# %% [markdown]
# ## The path
# A predictor along the tangent, Newton on (residual, arc-length constraint) with one
# factorisation per iteration; the arc length mixes the RMS nodal displacement with the
# load factor through ``psi`` = 10 m per unit load factor.

# %%
def continuation(m: RodModel, ds: float = 10.0) -> Continuation:
    """Arc-length continuation recording the apex."""
    settings = ArcLengthSettings(ds=ds, ds_max=40.0, psi=10.0, target_its=5)
    return Continuation(m, settings, points={"apex": 0.5 * m.rod.length})


# %% [markdown]
# ## Against DaDeppo & Schmidt
# The load factor against the apex deflection, the critical points marked, and the first
# limit load against 8.97.

# %%
def figure(cont: Continuation, path: Path) -> Path:
    """Load factor against the apex deflection ``-u_2 / R``, critical points marked."""
    from fxrod.viz import load_path_picture

    rows = cont.rows()
    crit = [r for r in rows if r["event"]]
    return load_path_picture(
        path, {"apex": ([-r["apex_u2"] / RADIUS for r in rows], [r["lambda"] for r in rows])},
        "apex deflection $-u_2/R$ [-]", "$P R^2 / EI$ [-]",
        marks=([-r["apex_u2"] / RADIUS for r in crit], [r["lambda"] for r in crit]),
        levels={"DaDeppo & Schmidt 8.97": PUBLISHED_LIMIT})


def finish(cont: Continuation, out: Path | None, pictures: bool = True) -> Result:
    """``deep_arch.csv``, the picture, the limit load and its apex displacement."""
    rank = cont.model.comm.rank
    files = []
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        cont.write_csv(out / f"{NAME}.csv")
        if rank == 0:
            files.append(out / f"{NAME}.csv")
            if pictures:
                files.append(figure(cont, out / f"{NAME}.png"))
    limits = [p for p in cont.critical if p.event == "limit"]
    nan = float("nan")
    s = {"limit_load": limits[0].lam if limits else nan,
         "apex_u1": float(limits[0].displacements["apex"][0]) if limits else nan,
         "apex_u2": float(limits[0].displacements["apex"][1]) if limits else nan,
         "points": float(len(cont.path))}
    lines = [f"{NAME}: {len(cont.path)} points, last P R^2/EI = {cont.path[-1].lam:.6f}"]
    lines += [f"{p.event} at P R^2/EI = {p.lam:.6f} (index {p.index})" for p in cont.critical]
    lines.append(f"published limit load (DaDeppo & Schmidt 1975): {PUBLISHED_LIMIT}")
    return Result(CASE.name, s, "\n".join(filter(None, (*lines, wrote(files)))), {}, files,
                  rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, max_steps: int,
        ds: float, comm=None) -> Result:
    """Build, trace and compare (the options of :data:`OPTIONS`) on ``comm``."""
    cont = continuation(model(n_elements, comm=comm), ds)
    cont.run(max_steps)
    return finish(cont, out, pictures)


CASE = Case("deep-arch", "deep circular arch (215 deg, clamped-hinged) through its limit point "
            "by arc-length continuation, vs DaDeppo & Schmidt", OPTIONS,
            {"n_elements": 16, "max_steps": 25}, run)

# %% [markdown]
# ## Run it
# From the command line: the options above (``--help``), ``--quick`` for a short version.

# %%
if __name__ == "__main__":
    raise SystemExit(CASE.main())
