"""The case registry: fxrod's demos as named, runnable cases.

A demo is where a problem is defined: ``demos/<name>.py`` builds its model in plain sight
(section, rod, loads, supports), runs it and post-processes, and ends with ``CASE``, a
:class:`Case` over the same functions. The registry reads the demos from the source tree
(:data:`DEMOS`; :func:`demo` imports one) so that the command line (``fxrod list``,
``fxrod run NAME``), the tests, the benchmarks and the parameter sweep run exactly what a
reader of the demo sees. A case runs, writes its files (``DIR/<name>.csv``,
``DIR/<name>.png``, a ParaView series ``DIR/<name>.pvd`` where the rod moves) and returns a
:class:`Result`: the runs, the summary numbers of the final state and the files written.
This package holds the machinery (:class:`Case`, :class:`Option`, :class:`Result`, the run
control) and the helpers the demos share (:mod:`fxrod.studies.cases.common`).

Example::

    from fxrod.studies.cases import CASES

    result = CASES["flying-spaghetti"].run("results/fs", quick=True)
    print(result.text)               # the final state: t, H, p, J, energy residual
    sim = result.sim                 # the Simulation (rows, snapshots)
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mpi4py import MPI

from fxrod.errors import CheckpointError, OutputError, ParameterError
from fxrod.runs.simulation import Interrupted, Simulation

__all__ = ["CASES", "RUN_CONTROL", "Case", "Option", "Result", "demo", "ensemble_results",
           "exit_on_signal"]


def _parse(text: str, kind: type) -> object:
    """A command-line text as a bool, int or float (the text itself if it is not one)."""
    words = {"true": True, "yes": True, "on": True, "1": True,
             "false": False, "no": False, "off": False, "0": False}
    try:
        return words[text.strip().lower()] if kind is bool else kind(text)
    except (KeyError, ValueError):
        return text


@dataclass(frozen=True)
class Option:
    """One option of a case (a keyword of :meth:`Case.run`, ``--name-with-dashes`` on the
    command line).

    Attributes
    ----------
    name : str
        Keyword name, e.g. ``"n_elements"``.
    default : bool, int, float, str or None
        Value when not given; its type is the option's type unless ``type`` is set. A
        boolean option defaulting to False is a command-line flag.
    unit : str
        SI unit of the value (``"-"``: dimensionless or not a quantity).
    help : str
        One-line description.
    choices : tuple of str
        Allowed values of a string option (empty: any).
    type : type, optional
        Type of an option whose default is None.
    bounds : str
        Allowed interval of a number, as the builders check it, e.g. ``"(0, inf)"`` or
        ``"[1, inf)"`` ("": any); checked by :meth:`check` (the parameter sweep).
    """

    name: str
    default: bool | int | float | str | None
    unit: str
    help: str
    choices: tuple[str, ...] = ()
    type: type | None = None
    bounds: str = ""

    @property
    def flag(self) -> str:
        """The command-line spelling, ``--n-elements``."""
        return "--" + self.name.replace("_", "-")

    @property
    def value_type(self) -> type:
        """Type of the value (``type``, else that of the default)."""
        return self.type if self.type is not None else type(self.default)

    def allowed(self) -> str:
        """What :meth:`check` accepts, e.g. ``"an integer in [1, inf)"``."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        kind = {bool: "true or false", int: "an integer", float: "a finite number",
                str: "a text"}[self.value_type]
        return f"{kind} in {self.bounds}" if self.bounds else kind

    def check(self, value: object) -> bool | int | float | str:
        """``value`` as the option's type, or a text parsed as one (``"2e-3"``, ``"true"``).

        Raises
        ------
        ParameterError
            Unless the value is of the option's type (an integer for a float option is
            fine), one of :attr:`choices`, and inside :attr:`bounds`.
        """
        t = self.value_type
        v = _parse(value, t) if isinstance(value, str) and t is not str else value
        good = isinstance(v, t) and not (t is int and isinstance(v, bool))
        if t is float and isinstance(v, int) and not isinstance(v, bool):
            v, good = float(v), True
        good = good and (t is not float or math.isfinite(v))
        good = good and (not self.choices or v in self.choices)
        if good and self.bounds:
            lo, hi = (float(x) for x in self.bounds[1:-1].split(","))
            good = ((lo < v if self.bounds[0] == "(" else lo <= v)
                    and (v < hi if self.bounds[-1] == ")" else v <= hi))
        if not good:
            raise ParameterError(self.name, value, self.allowed())
        return v

    def describe(self) -> str:
        """``help [unit] (default x)`` for the option tables of the CLI and the demos."""
        unit = "" if self.unit == "-" else f" [{self.unit}]"
        default = "" if self.default is None else f" (default {self.default})"
        return f"{self.help}{unit}{default}"


@dataclass
class Result:
    """What a case run produced.

    Attributes
    ----------
    name : str
        Case name (dashed).
    summary : dict of str to float
        Numbers of the final state (e.g. ``t``, ``H``, tip position [m]; the keys are
        described in each case module).
    text : str
        The summary as printed by ``fxrod run`` and the demo scripts.
    simulations : dict of str to Simulation
        The recorded runs (empty for the ANCF and Hamel cases), keyed by a run label.
    files : list of Path
        Files written (rank 0; empty without an output directory).
    ok : bool
        Whether the case's own checks passed (the ANCF and Hamel cases compare with theory).
    failure : str
        Why the checks failed ("" if ``ok``).
    rank : int
        MPI rank of this process (only rank 0 prints).
    """

    name: str
    summary: dict[str, float]
    text: str
    simulations: dict[str, Simulation] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    ok: bool = True
    failure: str = ""
    rank: int = 0

    @property
    def sim(self) -> Simulation:
        """The simulation of a case with a single run."""
        if len(self.simulations) != 1:
            raise ValueError(f"{self.name} has {len(self.simulations)} runs "
                             f"{list(self.simulations)}; use result.simulations[label]")
        return next(iter(self.simulations.values()))

    def report(self, quiet: bool = False) -> int:
        """Print the summary (rank 0, unless ``quiet``) and any failure (stderr); return the
        exit status of a script: 0, or 1 when the case's checks failed."""
        if self.rank == 0:
            if not quiet:
                print(self.text, flush=True)
            if not self.ok:
                print(f"{self.name}: CHECK FAILED: {self.failure}", file=sys.stderr)
        return 0 if self.ok else 1


@dataclass(frozen=True)
class Case:
    """A runnable case of the registry.

    Attributes
    ----------
    name : str
        Dashed name (``"flying-spaghetti"``); the files and the demo script use the
        underscored form (:attr:`stem`).
    description : str
        One line for ``fxrod list``.
    options : tuple of Option
        What :meth:`run` accepts besides ``out``, ``quick``, ``pictures`` and ``quiet``.
    quick : mapping of str to value
        Option values of a short run (``--quick``); explicitly given options win.
    runner : callable
        The case module's ``run(out, *, pictures, quiet, comm=None, **values)`` taking
        every option; ``comm`` is the communicator the case runs on (None: the builders'
        default, ``MPI.COMM_WORLD``).
    ensemble_options : tuple of str
        Options whose values only change a member of an :class:`fxrod.runs.ensemble.Ensemble`
        (its load factor or section): points that differ only in them can run together
        (:meth:`run_ensemble`, ``fxrod sweep --ensemble B``).
    ensemble_runner : callable, optional
        The case module's ``run_ensemble(outs, members, *, quiet, comm=None, **values)``:
        one ensemble of the points ``members`` (dicts of every ensemble option), member k
        writing to ``outs[k]``, with the other options ``values`` (all but
        ``checkpoint_every`` and ``restart``); returns one :class:`Result` a member.
    """

    name: str
    description: str
    options: tuple[Option, ...]
    quick: Mapping[str, object]
    runner: Callable[..., Result]
    ensemble_options: tuple[str, ...] = ()
    ensemble_runner: Callable[..., list[Result]] | None = None

    @property
    def takes_comm(self) -> bool:
        """Whether the case's ``run`` takes a ``comm`` keyword (runs on a sub-communicator
        of a sweep)."""
        return "comm" in inspect.signature(self.runner).parameters

    @property
    def stem(self) -> str:
        """Underscored name: module, demo script and base name of the files."""
        return self.name.replace("-", "_")

    def values(self, quick: bool = False, **options) -> dict[str, object]:
        """Every option's value: the defaults, updated by the quick values (if ``quick``),
        updated by ``options``.

        Raises
        ------
        ParameterError
            For an unknown option.
        """
        known = {o.name: o.default for o in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ParameterError("options", unknown, f"options of {self.name}: "
                                 f"{', '.join(known) or 'none'}")
        return {**known, **(dict(self.quick) if quick else {}), **options}

    def run(self, out: str | Path | None = None, quick: bool = False, *,
            pictures: bool = True, quiet: bool = True, comm=None, **options) -> Result:
        """Run the case.

        Parameters
        ----------
        out : path-like or None
            Output directory (created); None writes nothing and keeps the results in memory.
        quick : bool
            Short run (the values of :attr:`quick`, e.g. a shorter span).
        pictures : bool
            Draw the PNG/GIF pictures (rank 0, only with ``out``).
        quiet : bool
            No progress bar.
        comm : mpi4py communicator, optional
            Communicator of the run (a group of a parameter sweep); None: the builders'
            default.
        **options
            Values of :attr:`options` (SI units as listed there).

        Raises
        ------
        ParameterError
            For an unknown option, or a ``comm`` given to a case whose ``run`` does not
            take one (:attr:`takes_comm`).
        """
        values = self.values(quick, **options)
        if comm is not None and not self.takes_comm:
            raise ParameterError("case", self.name, "a case whose run() takes a comm keyword "
                                 "(to run on a sub-communicator)")
        extra = {} if comm is None else {"comm": comm}
        return self.runner(None if out is None else Path(out), pictures=pictures,
                           quiet=quiet, **values, **extra)

    def run_ensemble(self, outs: Sequence[str | Path | None], members: Sequence[Mapping],
                     quick: bool = False, *, quiet: bool = True, comm=None,
                     **options) -> list[Result]:
        """Run the points ``members`` as one ensemble (stepped together, serial).

        Parameters
        ----------
        outs : sequence of path-like or None
            Output directory of each member (created by the caller; None: nothing written).
        members : sequence of mapping
            Values of :attr:`ensemble_options` of each member (the others: ``options``, the
            quick values, the defaults).
        quick : bool
            Start from the quick values.
        quiet : bool
            No progress bar.
        comm : mpi4py communicator, optional
            A communicator of one rank (default: the builders').
        **options
            Values of the options shared by every member (SI units as listed).

        Raises
        ------
        ParameterError
            For a case without ensemble runs, a member option that is not an ensemble
            option, an unknown option, ``checkpoint_every`` > 0 or ``restart`` (an ensemble
            run writes no checkpoint), or ``outs`` and ``members`` of different lengths.
        """
        if self.ensemble_runner is None:
            raise ParameterError("ensemble", self.name, "a case with ensemble options")
        if len(outs) != len(members) or not members:
            raise ParameterError("members", len(members), f"{len(outs)} points (one an "
                                 "output directory), at least one")
        for m in members:
            bad = sorted(set(m) - set(self.ensemble_options))
            if bad:
                raise ParameterError("ensemble", bad[0], "an ensemble option of "
                                     f"{self.name}: {', '.join(self.ensemble_options)}")
        if options.get("checkpoint_every") or options.get("restart") is not None:
            raise ParameterError("checkpoint_every/restart",
                                 (options.get("checkpoint_every"), options.get("restart")),
                                 "0 and None (an ensemble run writes no checkpoint)")
        values = self.values(quick, **options)
        per_member = [self.values(quick, **{**options, **m}) for m in members]
        common = {k: v for k, v in values.items()
                  if k not in (*self.ensemble_options, "checkpoint_every", "restart")}
        extra = {} if comm is None else {"comm": comm}
        return self.ensemble_runner(
            [None if d is None else Path(d) for d in outs],
            [{k: v[k] for k in self.ensemble_options} for v in per_member],
            quiet=quiet, **common, **extra)

    def parser(self, prog: str | None = None,
               parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
               ) -> argparse.ArgumentParser:
        """Command-line parser of the case: ``--out``, ``--quick``, ``--no-pictures``,
        ``--quiet`` and one flag per option (shared by ``fxrod run`` and the demos)."""
        quick = ", ".join(f"{k} = {v}" for k, v in self.quick.items())
        ap = parser_class(prog=prog, description=self.description)
        ap.add_argument("--out", type=Path, default=Path("results") / self.stem,
                        help=f"output directory (default results/{self.stem})")
        ap.add_argument("--quick", action="store_true", help=f"short run: {quick}")
        ap.add_argument("--no-pictures", dest="pictures", action="store_false",
                        help="write no PNG/GIF pictures")
        ap.add_argument("--quiet", action="store_true",
                        help="no progress bar and no summary")
        for o in self.options:
            if o.value_type is bool:
                ap.add_argument(o.flag, dest=o.name, action="store_true", default=None,
                                help=o.help)
            else:
                ap.add_argument(o.flag, dest=o.name, type=o.value_type, default=None,
                                choices=o.choices or None, help=o.describe())
        return ap

    def parse_args(self, argv: Sequence[str] | None = None, prog: str | None = None,
                   parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser
                   ) -> argparse.Namespace:
        """Parse a command line: ``out``, ``quick``, ``pictures``, ``quiet`` and every option
        with its final value (defaults and quick values applied). In a Jupyter kernel (a demo
        opened as a notebook) the kernel launcher's arguments are ignored: the defaults
        apply (a notebook may set ``sys.argv`` to choose options)."""
        if argv is None and "ipykernel" in sys.argv[0]:   # the kernel's own command line
            argv = []
        a = self.parser(prog, parser_class).parse_args(argv)
        given = {o.name: getattr(a, o.name) for o in self.options
                 if getattr(a, o.name) is not None}
        for k, v in self.values(a.quick, **given).items():
            setattr(a, k, v)
        return a

    def option_values(self, args: argparse.Namespace) -> dict[str, object]:
        """The options of a parsed command line (:meth:`parse_args`), for :meth:`run`."""
        return {o.name: getattr(args, o.name) for o in self.options}

    def main(self, argv: Sequence[str] | None = None) -> int:
        """Run the case from a command line (``python demos/<stem>.py ...``, :meth:`parse_args`)
        on ``MPI.COMM_WORLD``; the exit status of :meth:`Result.report` (a demo ends with
        ``raise SystemExit(CASE.main())``). A signal or an unwritable file exits as
        :func:`exit_on_signal` says."""
        a = self.parse_args(argv)
        with exit_on_signal(self.stem, MPI.COMM_WORLD):
            result = self.run(a.out, a.quick, pictures=a.pictures, quiet=a.quiet,
                              **self.option_values(a))
        return result.report(a.quiet)


#: The options of every case stepped by :class:`fxrod.runs.integrators.Integrator`: adaptive
#: steps, checkpoints and restart (a case's ``run`` hands them to its simulation).
RUN_CONTROL: tuple[Option, ...] = (
    Option("adaptive", False, "-", "halve a step whose Newton solve fails, regrow afterwards"),
    Option("checkpoint_every", 0, "-", "write the full state every K steps and at the end "
           "(the last two are kept)", bounds="[0, inf)"),
    Option("restart", None, "-", "continue the run from the checkpoint in this directory "
           "(or file)", type=str),
)


@contextmanager
def exit_on_signal(name: str, comm) -> Iterator[None]:
    """Turn a run stopped by SIGINT/SIGTERM (:class:`fxrod.runs.simulation.Interrupted`) into the
    exit status ``128 + signal`` of a script, and a file that cannot be written
    (:class:`fxrod.errors.OutputError`) or a checkpoint that cannot be restarted
    (:class:`fxrod.errors.CheckpointError`) into the status 2; one line on stderr (rank 0)."""
    try:
        yield
    except Interrupted as err:
        if comm.rank == 0:
            print(f"{name}: {err}", file=sys.stderr)
        raise SystemExit(128 + err.signum) from None
    except (OutputError, CheckpointError) as err:
        if comm.rank == 0:
            print(f"{name}: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None


def ensemble_results(ens, settings, h: float, t_end: float, outs: list[Path | None],
                     name: str, case: str, quiet: bool = True) -> list[Result]:
    """Step the ensemble ``ens`` (:class:`fxrod.runs.ensemble.Ensemble`) with step ``h`` [s]
    and ``settings`` up to ``t_end`` [s], member k recorded into ``outs[k]/<name>.csv``
    (:class:`fxrod.runs.ensemble_run.EnsembleRun`); one
    :class:`Result` of the case ``case`` a member."""
    from fxrod.runs.ensemble_run import EnsembleRun
    from fxrod.studies.cases.common import wrote

    rec = EnsembleRun(ens, ens.integrator(h, settings), outs, name, quiet=quiet)
    rec.run(t_end)
    results = []
    for k in range(len(outs)):
        s, files = rec.summary(k), rec.files(k)
        text = (f"{name} member {k}: {s['steps']} steps; t = {s['t']:g}, H = {s['H']:.10g}, "
                f"tip = ({s['tip_1']:.6g}, {s['tip_2']:.6g}, {s['tip_3']:.6g})")
        results.append(Result(case, s, "\n".join(filter(None, (text, wrote(files)))),
                              files=files, rank=ens.model.comm.rank))
    return results


#: The order of ``fxrod list`` (the paper's examples first); cases not listed here follow
#: in the alphabetical order of their modules.
ORDER: tuple[str, ...] = ("flying_spaghetti", "cantilever_vibration", "quasistatic_cantilever",
                          "soft_arm", "tendon_hook", "bend45", "helix_spring",
                          "ancf_graded_cantilever", "hamel_free_beam")


#: The demos of the source tree (``<repo>/demos``): a demo that defines ``CASE`` (a
#: :class:`Case`) is a registered case; it builds its model in plain sight and the registry
#: runs it. The demos are not shipped in a wheel: the registry reads them from the source
#: tree beside the package (an editable install, the clone, the Docker image).
DEMOS = Path(__file__).resolve().parents[3] / "demos"


def demo(stem: str):
    """The module of the demo ``demos/<stem>.py``, imported once as ``fxrod_demos.<stem>``
    (its run, under ``if __name__ == "__main__"``, does not start).

    Raises
    ------
    ParameterError
        When there is no such demo in the source tree.
    """
    import importlib
    import types

    if not (DEMOS / f"{stem}.py").is_file():
        raise ParameterError("demo", stem, f"a demo of {DEMOS} (the source tree's demos "
                             "folder; a wheel without it has no demos)")
    if "fxrod_demos" not in sys.modules:       # the demos folder as a package of its own
        package = types.ModuleType("fxrod_demos", "fxrod's demos (the source tree's demos/)")
        package.__path__ = [str(DEMOS)]
        sys.modules["fxrod_demos"] = package
    return importlib.import_module(f"fxrod_demos.{stem}")


def _is_case_demo(file: Path) -> bool:
    """Whether the demo ``file`` defines a case (read, not imported: other demos run when
    imported)."""
    return "\nCASE = Case(" in file.read_text(encoding="utf-8")


def _registry() -> dict[str, Case]:
    """Every demo with a ``CASE``: a new case needs no edit here."""
    demos = sorted(f.stem for f in DEMOS.glob("*.py") if _is_case_demo(f)) \
        if DEMOS.is_dir() else []
    demos.sort(key=lambda m: (ORDER.index(m) if m in ORDER else len(ORDER), m))
    mods = [demo(m) for m in demos]
    return {m.CASE.name: m.CASE for m in mods if isinstance(getattr(m, "CASE", None), Case)}


#: Every case by its dashed name, in the order of ``fxrod list``.
CASES: dict[str, Case] = _registry()
