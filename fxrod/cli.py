"""The ``fxrod`` command line: list, run, plot, view, info, sweep.

Errors of the user (unknown demo, unwritable output directory, a CSV without the needed
columns, bad parameters) print one line ``fxrod: error: ...`` and exit with status 2, without
a traceback.
"""

from __future__ import annotations

import argparse
import ast
import os
import runpy
import sys
from pathlib import Path

import fxrod

EXIT_USAGE = 2


class CLIError(Exception):
    """A user error reported as one line."""


def demos_dir() -> Path:
    """Directory of the demo scripts (``$FXROD_DEMOS`` or ``<repo>/demos``)."""
    env = os.environ.get("FXROD_DEMOS")
    d = Path(env) if env else Path(fxrod.__file__).resolve().parents[1] / "demos"
    if not d.is_dir():
        raise CLIError(f"demo directory {d} not found (set FXROD_DEMOS)")
    return d


def available_demos() -> dict[str, tuple[Path, str]]:
    """``{name: (script, one-line description)}``; names use dashes (flying-spaghetti)."""
    out = {}
    for p in sorted(demos_dir().glob("*.py")):
        if p.name.startswith("_"):
            continue
        try:
            doc = ast.get_docstring(ast.parse(p.read_text())) or ""
        except SyntaxError:
            doc = ""
        out[p.stem.replace("_", "-")] = (p, doc.strip().splitlines()[0] if doc else "")
    return out


def cmd_list(args) -> int:
    for name, (_, desc) in available_demos().items():
        print(f"{name:28s} {desc}")
    return 0


def cmd_run(args) -> int:
    demos = available_demos()
    name = args.demo.replace("_", "-")
    if name not in demos:
        raise CLIError(f"unknown demo {args.demo!r}; available: {', '.join(demos)}")
    script = demos[name][0]
    argv = list(args.rest)
    if args.out is not None:
        from fxrod.io import prepare_output_dir

        prepare_output_dir(args.out)
        argv = ["--out", args.out, *argv]
    if args.quick:
        argv.append("--quick")
    sys.argv = [str(script), *argv]
    runpy.run_path(str(script), run_name="__main__")
    return 0


def cmd_plot(args) -> int:
    from fxrod.viz import plot_timeseries

    if not Path(args.csv).is_file():
        raise CLIError(f"no such CSV file: {args.csv}")
    out = plot_timeseries(args.csv, args.out)
    print(f"wrote {out}")
    return 0


def cmd_view(args) -> int:
    import numpy as np
    import pyvista as pv

    from fxrod import viz

    d = Path(args.results)
    pvds = sorted(d.glob("*.pvd"))
    if not pvds:
        raise CLIError(f"{d}: no ParaView .pvd series found (run a demo with --out {d})")
    import xml.etree.ElementTree as ET

    for pvd in pvds:
        entries = [(float(e.get("timestep")), e.get("file"))
                   for e in ET.parse(pvd).getroot().iter("DataSet")]
        if not entries:
            continue
        stride = max(1, len(entries) // args.frames)
        sel = entries[::stride]
        times = [t for t, _ in sel]
        frames = [np.asarray(pv.read(d / f).points) for _, f in sel]
        nsnap = max(1, len(sel) // 6)
        png = viz.snapshot_figure(frames[::nsnap], times[::nsnap], d / f"{pvd.stem}_view.png",
                                  azimuth=args.azimuth, elevation=args.elevation)
        gif = viz.animation(frames, times, d / f"{pvd.stem}_view.gif",
                            azimuth=args.azimuth, elevation=args.elevation)
        print(f"wrote {png} and {gif}")
    return 0


def cmd_info(args) -> int:
    import dolfinx
    from mpi4py import MPI
    from petsc4py import PETSc

    v = PETSc.Sys.getVersion()
    print(f"fxrod {fxrod.__version__}")
    print(f"DOLFINx {dolfinx.__version__}")
    print(f"PETSc {v[0]}.{v[1]}.{v[2]}")
    print(f"MPI: {MPI.Get_library_version().splitlines()[0].strip()}, "
          f"size {MPI.COMM_WORLD.size}")
    print(f"Python {sys.version.split()[0]}")
    from fxrod import fastassembly

    try:
        fastassembly._load_lib()
        fast = f"available (C helper in {fastassembly._cache_dir()})"
    except Exception as err:  # noqa: BLE001
        fast = f"unavailable ({err}); DOLFINx's assembly is used"
    print(f"serial fast Jacobian assembly: {fast}")
    print(f"allocator keeps freed blocks (MUMPS): {'yes' if fxrod.MALLOC_TUNED else 'no'}")
    return 0


def cmd_sweep(args) -> int:
    from fxrod.sweep import run_sweep

    try:
        values = [float(v) for v in args.values.split(",")]
    except ValueError:
        raise CLIError(f"invalid values = {args.values!r}: must be a comma-separated list "
                       "of numbers, e.g. 0.5,1,2") from None
    run_sweep(args.study, values, args.out,
              n_elements=args.n_elements, t_end=args.t_end)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="fxrod", description="Geometrically exact rods with "
                                 "FEniCSx (mixed PH Cosserat, ANCF, Hamel FVI).")
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the demos").set_defaults(func=cmd_list)
    r = sub.add_parser("run", help="run a demo: fxrod run flying-spaghetti --out DIR")
    r.add_argument("demo")
    r.add_argument("--out", default=None)
    r.add_argument("--quick", action="store_true")
    r.add_argument("rest", nargs=argparse.REMAINDER, help="further demo options")
    r.set_defaults(func=cmd_run)
    p = sub.add_parser("plot", help="plot energy, momenta, tip from an fxrod CSV")
    p.add_argument("csv")
    p.add_argument("--out", default=None, help="PNG path (default: CSV name with .png)")
    p.set_defaults(func=cmd_plot)
    v = sub.add_parser("view", help="snapshots and animation from saved ParaView output")
    v.add_argument("results")
    v.add_argument("--azimuth", type=float, default=55.0)
    v.add_argument("--elevation", type=float, default=15.0)
    v.add_argument("--frames", type=int, default=60)
    v.set_defaults(func=cmd_view)
    sub.add_parser("info", help="versions and MPI size").set_defaults(func=cmd_info)
    s = sub.add_parser("sweep", help="parameter study, one rod per MPI sub-communicator")
    s.add_argument("study", choices=["cantilever-impulse"])
    s.add_argument("--values", default="0.25,0.5,0.75,1.0")
    s.add_argument("--out", default="results/sweep")
    s.add_argument("--n-elements", type=int, default=8)
    s.add_argument("--t-end", type=float, default=0.1)
    s.set_defaults(func=cmd_sweep)
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        return args.func(args) or 0
    except (CLIError, ValueError, FileNotFoundError, PermissionError) as e:
        print(f"fxrod: error: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
