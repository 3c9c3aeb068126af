"""The ``fxrod`` command line: list, run, plot, view, info, sweep.

``fxrod list`` and ``fxrod run NAME`` use the case registry (:data:`fxrod.cases.CASES`):
``fxrod run NAME [--out DIR] [--quick] [--no-pictures] [--quiet] [case options]`` runs
``CASES[NAME]`` with the case's own options (``fxrod run NAME --help`` lists them with units
and defaults), exactly as ``python demos/<name>.py`` does.

Errors of the user (unknown case, bad option, unwritable output directory, a CSV without the
needed columns, bad parameters) print one line ``fxrod: error: ...`` and exit with status 2,
without a traceback. A run stopped by SIGINT/SIGTERM exits with 128 + the signal, a case
whose own checks fail with 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

import fxrod

EXIT_USAGE = 2


class CLIError(Exception):
    """A user error reported as one line."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are :class:`CLIError` (one line, status 2)."""

    def error(self, message: str) -> NoReturn:
        raise CLIError(f"{self.prog}: {message}")


def cmd_list(args) -> int:
    from fxrod.cases import CASES

    for name, case in CASES.items():
        print(f"{name:28s} {case.description}")
    return 0


def cmd_run(args) -> int:
    from mpi4py import MPI

    from fxrod.cases import CASES, exit_on_signal
    from fxrod.io import prepare_output_dir

    name = args.case.replace("_", "-")
    if name not in CASES:
        raise CLIError(f"unknown demo {args.case!r}; available: {', '.join(CASES)}")
    case = CASES[name]
    a = case.parse_args(args.options, prog=f"fxrod run {name}", parser_class=OneLineParser)
    prepare_output_dir(a.out, MPI.COMM_WORLD)
    with exit_on_signal(case.stem, MPI.COMM_WORLD):
        result = case.run(a.out, a.quick, pictures=a.pictures, quiet=a.quiet,
                          **case.option_values(a))
    return result.report(a.quiet)


def cmd_plot(args) -> int:
    from fxrod.viz import plot_timeseries

    if not Path(args.csv).is_file():
        raise CLIError(f"no such CSV file: {args.csv}")
    out = plot_timeseries(args.csv, args.out)
    print(f"wrote {out}")
    return 0


def cmd_view(args) -> int:
    from fxrod import viz
    from fxrod.paraview import read_pvd

    d = Path(args.results)
    pvds = sorted(d.glob("*.pvd"))
    if not pvds:
        raise CLIError(f"{d}: no ParaView .pvd series found (run a case with --out {d})")
    for pvd in pvds:
        series = read_pvd(pvd)
        if not series:
            continue
        sel = series[::max(1, len(series) // args.frames)]
        times = [t for t, _ in sel]
        frames = [pts for _, pts in sel]
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
    from fxrod import _malloc

    tuning = "off (FXROD_MALLOC_TUNING=0)" if os.environ.get("FXROD_MALLOC_TUNING") == "0" \
        else "on when the first solver is created (glibc only)"
    print(f"allocator keeps freed blocks (MUMPS): {tuning}"
          + (", applied" if _malloc.tuned() else ""))
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
    ap = OneLineParser(prog="fxrod", description="Geometrically exact rods with "
                       "FEniCSx (mixed PH Cosserat, ANCF, Hamel FVI).")
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the cases (demos)").set_defaults(func=cmd_list)
    r = sub.add_parser("run", help="run a case: fxrod run flying-spaghetti --out DIR "
                       "[--quick] [case options]")
    r.add_argument("case", help="a name from `fxrod list`")
    r.add_argument("options", nargs=argparse.REMAINDER,
                   help="--out DIR, --quick, --no-pictures, --quiet and the case's options "
                        "(fxrod run NAME --help)")
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
    try:
        args = build_parser().parse_args(argv)
        return args.func(args) or 0
    except (CLIError, ValueError, FileNotFoundError, PermissionError) as e:
        print(f"fxrod: error: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
