"""The ``fxrod`` command line: list, run, plot, view, info, sweep.

``fxrod list`` and ``fxrod run NAME`` use the case registry (:data:`fxrod.studies.cases.CASES`):
``fxrod run NAME [--out DIR] [--quick] [--no-pictures] [--quiet] [case options]`` runs
``CASES[NAME]`` with the case's own options (``fxrod run NAME --help`` lists them with units
and defaults), exactly as ``python demos/<name>.py`` does.

Errors of the user (unknown case, bad option, unwritable output directory, a CSV without the
needed columns, bad parameters) print one line ``fxrod: error: ...`` and exit with status 2,
without a traceback. A run stopped by SIGINT/SIGTERM exits with 128 + the signal, a case
whose own checks fail with 1. A step whose Newton solve fails
(:class:`fxrod.errors.ConvergenceError`) prints one line (time, step size, solver reason) and
a hint, and exits with status 2. A closed pipe (``fxrod info | head -1``) ends the command
silently, as it ends any Unix filter (:func:`command`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import fxrod

if TYPE_CHECKING:
    import numpy as np

    from fxrod.analysis.modetable import ModeTable

EXIT_USAGE = 2


class CLIError(Exception):
    """A user error reported as one line."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are :class:`CLIError` (one line, status 2)."""

    def error(self, message: str) -> NoReturn:
        raise CLIError(f"{self.prog}: {message}")


def demo_table(width: int = 100) -> str:
    """The demos as ``name  description`` lines, descriptions wrapped under each other."""
    import textwrap

    from fxrod.studies.cases import CASES

    pad = max(len(n) for n in CASES) + 2
    lines = []
    for name, case in CASES.items():
        wrapped = textwrap.wrap(case.description, max(30, width - pad)) or [""]
        lines.append(f"{name:{pad}s}{wrapped[0]}")
        lines += [" " * pad + w for w in wrapped[1:]]
    return "\n".join(lines)


def convergence_hint(case_name: str | None) -> str:
    """What to try after a failed Newton solve: the demo's ``--adaptive`` and ``--h``
    options where it has them (printed under the one-line error)."""
    from fxrod.studies.cases import CASES

    case = CASES.get((case_name or "").replace("_", "-"))
    names = {o.name for o in case.options} if case is not None else {"adaptive", "h"}
    tips = [t for n, t in (("adaptive", "--adaptive (failing steps are halved)"),
                           ("h", "a smaller --h")) if n in names]
    tips = tips or ["a smaller load or more load steps"]
    return f"fxrod: hint: rerun with {' or '.join(tips)} (see fxrod run NAME --help)"


def cmd_list(args) -> int:
    print(demo_table())
    print("\nrun one: fxrod run NAME [--quick] [--out DIR]; its options: fxrod run NAME --help")
    return 0


def cmd_run(args) -> int:
    from mpi4py import MPI

    from fxrod.output.tables import prepare_output_dir
    from fxrod.studies.cases import CASES, exit_on_signal

    if args.case is None:
        raise CLIError(f"name a demo: fxrod run NAME [--quick] [--out DIR]; demos: "
                       f"{', '.join(CASES)} (`fxrod list` describes them)")
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
    if Path(args.csv).name.startswith("sweep_"):
        from fxrod.studies.sweep_plot import plot_sweep

        if args.y is None or args.x is None:
            raise CLIError("a sweep table needs --y QUANTITY --x PARAMETER [--by PARAMETER]")
        out = plot_sweep(args.csv, args.y, args.x, args.by, args.out)
        print(f"wrote {out}")
        return 0
    out = plot_timeseries(args.csv, args.out)
    print(f"wrote {out}")
    return 0


def cmd_view(args) -> int:
    from fxrod import viz
    from fxrod.output.paraview import read_pvd

    d = Path(args.results)
    pvds = sorted(d.glob("*.pvd"))
    if not pvds:
        raise CLIError(f"{d}: no ParaView .pvd series found (run a case with --out {d})")
    for pvd in pvds:
        series = read_pvd(pvd)
        if not series:
            continue
        sel = series[::max(1, len(series) // args.frames)]
        if sel[-1] is not series[-1]:
            sel.append(series[-1])  # the final state is always shown
        times = [t for t, _ in sel]
        frames = [pts for _, pts in sel]
        picked = sorted(set(range(0, len(sel), max(1, len(sel) // 6))) | {len(sel) - 1})
        png = viz.snapshot_figure([frames[i] for i in picked], [times[i] for i in picked],
                                  d / f"{pvd.stem}_view.png",
                                  azimuth=args.azimuth, elevation=args.elevation)
        gif = viz.animation(frames, times, d / f"{pvd.stem}_view.gif",
                            azimuth=args.azimuth, elevation=args.elevation)
        print(f"wrote {png} and {gif} ({len(frames)} frames, t = {times[0]:g} to "
              f"{times[-1]:g})")
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
    from fxrod import native

    try:
        native.load("assembly")
        fast = f"available (C helper in {native.cache_dir()})"
    except Exception as err:  # noqa: BLE001
        fast = f"unavailable ({err}); DOLFINx's assembly is used"
    print(f"serial fast Jacobian assembly: {fast}")
    from fxrod.native import malloc

    tuning = "off (FXROD_MALLOC_TUNING=0)" if os.environ.get("FXROD_MALLOC_TUNING") == "0" \
        else "on when the first solver is created (glibc only)"
    print(f"allocator keeps freed blocks (MUMPS): {tuning}"
          + (", applied" if malloc.tuned() else ""))
    return 0


def cmd_sweep(args) -> int:
    """``fxrod sweep CASE --param NAME=V1,V2 ...``: a parameter study over a registered case
    or a user's ``path/to/module.py:function`` (:mod:`fxrod.studies.sweep_plan`,
    :mod:`fxrod.studies.sweep`);
    exit status 0 when every point ended
    (done or failed, see the table), 128 + signal when stopped."""
    from mpi4py import MPI

    from fxrod.studies.sweep import run_sweep
    from fxrod.studies.sweep_plan import find_case, list_params, make_plan, plan_case

    try:
        if args.list_params:
            print(list_params(find_case(args.case)))
            return 0
        plan = make_plan(args.case, args.param, "zip" if args.zip else "grid", args.samples,
                         args.seed, args.quick)
        out = args.out or Path("results") / f"sweep_{plan_case(plan).name.replace('-', '_')}"
        res = run_sweep(plan, out, ranks_per_case=args.ranks_per_case, resume=args.resume,
                        checkpoint_every=args.checkpoint_every, pictures=args.pictures,
                        ensemble=args.ensemble)
    except ValueError as err:       # bad input, found on every rank before any work
        if MPI.COMM_WORLD.rank != 0:
            raise SystemExit(EXIT_USAGE) from None
        raise CLIError(str(err)) from None
    if args.plot and MPI.COMM_WORLD.rank == 0:
        from fxrod.studies.sweep_plot import plot_sweep

        print(f"wrote {plot_sweep(res.table, *args.plot.split(':'))}")
    return 128 + res.signal if res.signal else 0


def cmd_docs(args) -> int:
    """Build the documentation site (Sphinx, warnings are errors) of a source checkout."""
    import importlib.util
    import subprocess

    src = Path(fxrod.__file__).resolve().parents[1] / "docs"
    if not (src / "conf.py").is_file():
        raise CLIError(f"no docs/conf.py beside the fxrod package ({src}): the site is built "
                       "from a source checkout")
    if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_parser") \
            is None:
        raise CLIError("Sphinx is missing: pip install -e '.[docs]' (./fxrod.sh docs does it)")
    out = Path(args.out) if args.out else src / "_build" / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
           str(src), str(out)]
    if subprocess.run(cmd).returncode != 0:
        raise CLIError("the documentation build failed (warnings are errors; see above)")
    print(f"wrote {out / 'index.html'}")
    return 0


def cmd_modes(args) -> int:
    """Natural modes of a case (or of ``path/to/module.py:function``, a user's function
    returning a RodModel or Problem) about its equilibrium: the frequency table printed
    and written (``<case>_mode_table.csv``), the modal masses (``<case>_modes.csv``), a
    PNG with one panel a mode and a GIF per mode (:func:`write_mode_outputs`)."""
    from mpi4py import MPI

    from fxrod.errors import check_int_min
    from fxrod.output.tables import prepare_output_dir
    from fxrod.studies.modal_output import CASES, build
    from fxrod.studies.sweep_plan import is_script

    n_modes = check_int_min("n_modes", args.n_modes, 1)
    if args.n_elements is not None:
        check_int_min("n_elements", args.n_elements, 1)
    if is_script(args.case):
        stem = script_stem(args.case)
        out = prepare_output_dir(args.out, MPI.COMM_WORLD)
        model = model_from_script(args.case, MPI.COMM_WORLD, args.n_elements)
    elif args.case in CASES:
        stem = args.case.replace("-", "_")
        out = prepare_output_dir(args.out, MPI.COMM_WORLD)
        model = build(args.case, MPI.COMM_WORLD, args.n_elements)
    else:
        raise CLIError(f"unknown case {args.case!r} for modes; available: {', '.join(CASES)}"
                       ", or path/to/module.py:function (returning a RodModel or Problem)")
    table, files = write_mode_outputs(model, stem, out, n_modes,
                                      pictures=not args.no_pictures)
    if MPI.COMM_WORLD.rank == 0:
        print(table.format())
        print("wrote " + ", ".join(str(f) for f in files))
    return 0


# ------------------------------------------------------------ fxrod modes
def mode_shapes(model, modes, displacement: float = 0.15, rotation: float = 0.6
                ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[np.ndarray]] | None:
    """Gathered centrelines and first directors of the equilibrium and of each scaled mode
    of ``modes`` (:class:`fxrod.analysis.modes.Modes`) (rank 0; None elsewhere): ``(x0, d0, xs,
    ds)`` with ``x0, d0`` ``(n, 3)`` [m], [-] and the lists of ``x0 + a dphi``, ``d1 + a
    dd1`` (normalised). Each shape is scaled so that its largest displacement is
    ``displacement`` times the rod length or its largest nodal rotation
    ``|1/2 sum_k d_k x dd_k|`` is ``rotation`` [rad], whichever is reached first (a torsion
    mode: the rotation)."""
    import numpy as np

    from fxrod.studies.modal_output import gathered

    q = model.q_nodal_local()
    base = gathered(model, q[:, 0:6])
    shapes = []
    for s in modes.shapes:
        rot = 0.5 * sum(np.cross(q[:, 3 + 3 * k:6 + 3 * k], s[:, 3 + 3 * k:6 + 3 * k])
                        for k in range(3))
        shapes.append(gathered(model, np.column_stack([s[:, 0:6], rot])))
    if base is None:
        return None
    L = model.structure.length
    xs, ds = [], []
    for s in shapes:
        disp = float(np.max(np.linalg.norm(s[:, 0:3], axis=1)))
        theta = float(np.max(np.linalg.norm(s[:, 6:9], axis=1)))
        limits = [displacement * L / disp if disp > 0.0 else np.inf,
                  rotation / theta if theta > 0.0 else np.inf]
        a = min(limits) if np.isfinite(min(limits)) else 0.0
        xs.append(base[:, 0:3] + a * s[:, 0:3])
        d = base[:, 3:6] + a * s[:, 3:6]
        ds.append(d / np.linalg.norm(d, axis=1)[:, None])
    return base[:, 0:3], base[:, 3:6], xs, ds


def write_mode_outputs(model, stem: str, out: Path, n_modes: int = 6,
                       pictures: bool = True, comm=None) -> tuple[ModeTable, list[Path]]:
    """Compute ``n_modes`` modes of ``model`` about its state and write
    ``out/<stem>_modes.csv`` (modal masses, participation: :mod:`fxrod.studies.modal_output`),
    ``out/<stem>_mode_table.csv`` (:data:`fxrod.analysis.modetable.COLUMNS`) and, with ``pictures``,
    ``out/<stem>_modes.png`` (one panel a mode) and ``out/<stem>_mode<k>.gif``
    (:mod:`fxrod.analysis.modetable`).

    Returns
    -------
    (ModeTable, list of Path)
        The table and the written files (rank 0; empty elsewhere).
    """
    import numpy as np

    from fxrod.analysis.modes import modes as compute_modes
    from fxrod.analysis.modetable import mode_table
    from fxrod.errors import check_int_min
    from fxrod.studies.modal_output import write_table

    n_modes = check_int_min("n_modes", n_modes, 1)
    comm = model.comm if comm is None else comm
    m = compute_modes(model, n_modes)
    table = mode_table(model, m)
    files = [write_table(m, out / f"{stem}_modes.csv", comm),
             table.write_csv(out / f"{stem}_mode_table.csv", comm)]
    if pictures:
        frames = mode_shapes(model, m)
        if comm.rank == 0:
            from fxrod import viz

            x0, d0, xs, ds = frames
            titles = [f"mode {k + 1}: f = {f:.4g} Hz ({kind})"
                      for k, (f, kind) in enumerate(zip(table.frequency, table.types,
                                                        strict=True))]
            files.append(viz.mode_figure(x0, xs, titles, out / f"{stem}_modes.png",
                                         d0=d0, directors=ds))
            phase = np.sin(np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False))
            for k, x in enumerate(xs):
                label = f"mode {k + 1}, f = {table.frequency[k]:.4g} Hz"
                files.append(viz.animation([x0 + p * (x - x0) for p in phase], phase,
                                           out / f"{stem}_mode{k + 1}.gif",
                                           labels=[label] * len(phase)))
    return table, (files if comm.rank == 0 else [])


# ------------------------------------------------------------ user scripts
def load_function(spec: str) -> Callable:
    """The function ``function`` of the file ``path/to/module.py`` named by
    ``spec = "path/to/module.py:function"`` (loaded as sweeps load a user's file).

    Raises
    ------
    ParameterError
        When the file does not exist, cannot be imported, or has no such function.
    """
    from fxrod.errors import ParameterError
    from fxrod.studies.sweep_plan import is_script, load_script

    if not is_script(spec):
        raise ParameterError("case", spec, "a case name or path/to/module.py:function")
    fn = load_script(spec)
    if not callable(fn):
        path, _, func = spec.rpartition(":")
        raise ParameterError("case", spec, f"a function {func!r} defined in {path}")
    return fn


def model_from_script(spec: str, comm=None, n_elements: int | None = None):
    """The model of a user's function ``path/to/module.py:function`` at its equilibrium.

    The function is called with the keywords ``comm`` and ``n_elements`` that it accepts
    (``n_elements`` only when given). It returns a :class:`fxrod.core.model.RodModel`, used in
    its state, or a :class:`fxrod.runs.problem.Problem`: a quasi-static one is load-stepped from
    its state to ``t_end`` with its own settings (the equilibrium under the full load, as
    the built-in ``cantilever-deflected`` case), a dynamic one is used in its initial
    state.

    Raises
    ------
    ParameterError
        For a function that cannot be loaded (:func:`load_function`), that does not take
        ``n_elements`` when given, or that returns something else.
    """
    import inspect

    from mpi4py import MPI

    from fxrod.core.model import RodModel
    from fxrod.errors import ParameterError, check_int_min
    from fxrod.runs.problem import Problem

    fn = load_function(spec)
    params = inspect.signature(fn).parameters
    kwargs = {}
    if "comm" in params:
        kwargs["comm"] = MPI.COMM_WORLD if comm is None else comm
    if n_elements is not None:
        if "n_elements" not in params:
            raise ParameterError("n_elements", n_elements, f"not given: {spec} takes no "
                                 "n_elements keyword")
        kwargs["n_elements"] = check_int_min("n_elements", n_elements, 1)
    made = fn(**kwargs)
    if isinstance(made, Problem):
        if made.model.quasistatic:
            made.integrator().advance_to(made.t_end)
        return made.model
    if isinstance(made, RodModel):
        return made
    raise ParameterError("case", spec, "a function returning a fxrod RodModel or Problem "
                         f"(it returned {type(made).__name__})")


def script_stem(spec: str) -> str:
    """Base name of the files of ``path/to/module.py:function``: ``module_function``."""
    path, _, func = spec.rpartition(":")
    return f"{Path(path).stem}_{func}"


def cmd_phmodel(args) -> int:
    """Linear port-Hamiltonian model of a case about its equilibrium: .npz, .mat, .json."""
    from mpi4py import MPI

    from fxrod.output.tables import prepare_output_dir
    from fxrod.studies.modal_output import CASES, write_ph

    if args.case not in CASES:
        raise CLIError(f"unknown case {args.case!r} for phmodel; available: "
                       f"{', '.join(CASES)}")
    out = prepare_output_dir(args.out, MPI.COMM_WORLD)
    files = write_ph(args.case, out, args.n_elements, args.modes, args.damping)
    if MPI.COMM_WORLD.rank == 0:
        print("wrote " + ", ".join(str(f) for f in files))
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="fxrod", description="Geometrically exact rods with "
                       "FEniCSx (mixed PH Cosserat, ANCF, Hamel FVI).")
    ap.add_argument("--version", action="version", version=f"fxrod {fxrod.__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the cases (demos)").set_defaults(func=cmd_list)
    r = sub.add_parser("run", help="run a demo: fxrod run flying-spaghetti --out DIR "
                       "[--quick] [demo options]",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Run a demo (a case of the registry), as "
                       "`python demos/NAME.py` does.", epilog="demos:\n" + demo_table())
    r.add_argument("case", nargs="?", metavar="NAME", help="a demo (listed below)")
    r.add_argument("options", nargs=argparse.REMAINDER,
                   help="--out DIR, --quick, --no-pictures, --quiet and the case's options "
                        "(fxrod run NAME --help)")
    r.set_defaults(func=cmd_run)
    p = sub.add_parser("plot", help="plot energy, momenta, tip from an fxrod CSV; a load "
                       "path; a quantity of a sweep table against its parameters")
    p.add_argument("csv")
    p.add_argument("--out", default=None,
                   help="PNG path (default: X_plot.png beside X.csv, so that a demo's own "
                        "X.png is kept)")
    p.add_argument("--y", default=None, help="sweep tables: the quantity (a summary column)")
    p.add_argument("--x", default=None, help="sweep tables: the parameter on the axis")
    p.add_argument("--by", default=None, help="sweep tables: one line per value of this")
    p.set_defaults(func=cmd_plot)
    v = sub.add_parser("view", help="snapshots and animation from saved ParaView output")
    v.add_argument("results")
    v.add_argument("--azimuth", type=float, default=55.0)
    v.add_argument("--elevation", type=float, default=15.0)
    v.add_argument("--frames", type=int, default=60)
    v.set_defaults(func=cmd_view)
    sub.add_parser("info", help="versions and MPI size").set_defaults(func=cmd_info)
    s = sub.add_parser("sweep", help="parameter study of a case on MPI sub-communicators: "
                       "fxrod sweep CASE --param NAME=V1,V2 [--param ...]",
                       description="Run a case (fxrod list) over values of its options "
                       "(--list-params) on groups of MPI ranks; one table "
                       "DIR/sweep_CASE.csv, every point in DIR/case_NNNN/.")
    s.add_argument("case", metavar="CASE", help="a case of the registry (fxrod list), or "
                   "path/to/module.py:function (a function of keyword options returning a "
                   "fxrod Problem, or a Case)")
    s.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2|NAME=LO:HI",
                   help="values of an option (ranges with --samples); repeatable")
    m = s.add_mutually_exclusive_group()
    m.add_argument("--grid", action="store_true", help="every combination (default)")
    m.add_argument("--zip", action="store_true", help="the value lists side by side")
    s.add_argument("--samples", type=int, default=None,
                   help="draw N points uniformly from the NAME=LO:HI ranges")
    s.add_argument("--seed", type=int, default=0, help="seed of --samples (default 0)")
    s.add_argument("--quick", action="store_true", help="start from the case's quick values")
    s.add_argument("--out", type=Path, default=None,
                   help="output directory (default results/sweep_<case>)")
    s.add_argument("--ranks-per-case", type=int, default=1,
                   help="MPI ranks of each point (a divisor of the ranks; default 1)")
    s.add_argument("--resume", action="store_true",
                   help="skip finished points of --out, continue the others from checkpoints")
    s.add_argument("--checkpoint-every", type=int, default=100,
                   help="checkpoint interval of stepped cases [steps] (default 100; one is "
                        "also written when a signal stops a point)")
    s.add_argument("--pictures", action="store_true", help="let every point draw pictures")
    s.add_argument("--ensemble", type=int, default=0, metavar="B",
                   help="run up to B points at a time as one ensemble per rank (cases with "
                        "ensemble options, e.g. flying-spaghetti's load_scale and "
                        "stiffness_scale; --ranks-per-case 1); default 0: one by one")
    s.add_argument("--plot", default=None, metavar="QUANTITY:PARAM[:PARAM2]",
                   help="plot a table column against a parameter (one line per PARAM2)")
    s.add_argument("--list-params", action="store_true",
                   help="list the case's parameters with units and defaults")
    s.set_defaults(func=cmd_sweep)
    mo = sub.add_parser("modes", help="natural modes of a case about its equilibrium: "
                        "CSV, PNG of the first shapes, GIF per mode")
    mo.add_argument("case", help="flying-spaghetti, cantilever-vibration, "
                    "cantilever-deflected, soft-arm, or path/to/module.py:function "
                    "(a function returning a RodModel or Problem; a quasi-static Problem "
                    "is loaded to t_end first)")
    mo.add_argument("--out", default="results/modes")
    mo.add_argument("--n-modes", type=int, default=6, help="number of modes, >= 1")
    mo.add_argument("--n-elements", type=int, default=None,
                    help="elements (>= 1; a script's function must take n_elements)")
    mo.add_argument("--no-pictures", action="store_true")
    mo.set_defaults(func=cmd_modes)
    ph = sub.add_parser("phmodel", help="linear port-Hamiltonian model of a case about its "
                        "equilibrium (tip forces and moments as inputs): .npz, .mat, .json")
    ph.add_argument("case", help="a case of fxrod modes")
    ph.add_argument("--out", default="results/phmodel")
    ph.add_argument("--n-elements", type=int, default=None)
    ph.add_argument("--modes", type=int, default=0,
                    help="also write the modal truncation to this many modes")
    ph.add_argument("--damping", type=float, default=0.0,
                    help="mass-proportional damping alpha [1/s]")
    ph.set_defaults(func=cmd_phmodel)
    dc = sub.add_parser("docs", help="build the documentation site into docs/_build/html")
    dc.add_argument("--out", default=None, help="output folder (default docs/_build/html)")
    dc.set_defaults(func=cmd_docs)
    return ap


def main(argv=None) -> int:
    from fxrod.errors import ConvergenceError

    args = None
    try:
        args = build_parser().parse_args(argv)
        return args.func(args) or 0
    except ConvergenceError as e:
        from mpi4py import MPI

        if MPI.COMM_WORLD.rank == 0:
            print(f"fxrod: error: Newton failed at t = {e.t:.6g} (step h = {e.h:.6g}): "
                  f"{e.reason}", file=sys.stderr)
            print(convergence_hint(getattr(args, "case", None)), file=sys.stderr)
        return EXIT_USAGE
    except (CLIError, ValueError, FileNotFoundError, PermissionError) as e:
        print(f"fxrod: error: {e}", file=sys.stderr)
        return EXIT_USAGE


def command() -> NoReturn:
    """The ``fxrod`` program (the console script and ``python -m fxrod``): :func:`main` in a
    process of its own, whose signals it owns. A closed pipe (``fxrod info | head -1``) ends
    it silently, as it ends any Unix filter; PETSc installs no handlers of its own (they
    print a "PETSC ERROR" report and abort with status 15 on a closed pipe, and replace
    Python's traceback of a crash, which :mod:`faulthandler` prints instead)."""
    import faulthandler
    import signal

    options = os.environ.get("PETSC_OPTIONS", "")
    os.environ["PETSC_OPTIONS"] = f"{options} -no_signal_handler".strip()  # before PETSc starts
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    faulthandler.enable()
    raise SystemExit(main())


if __name__ == "__main__":
    command()
