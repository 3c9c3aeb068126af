"""What a parameter sweep runs: the points (option values) of one case.

A sweep names a case (:func:`find_case`): a registered one of :data:`fxrod.studies.cases.CASES`, a
:class:`fxrod.studies.cases.Case` of the user's, or a user's function that builds a
:class:`fxrod.runs.problem.Problem` from keyword options (in Python the function itself, on the
command line ``path/to/module.py:function``; :func:`function_case` runs it). It gives values
of the case's options (every option but ``restart``, which the sweep manages):

* ``name=v1,v2,...`` lists values; the lists are combined as a grid (every combination,
  the first parameter varying slowest) or zipped (equal lengths, taken side by side; a
  single value is a constant);
* ``name=lo:hi`` is a range sampled uniformly (``samples`` points, random generator
  ``numpy.random.default_rng(seed)``; integer options get integers in ``[lo, hi]``); a
  single value ``name=v`` is a constant of every point.

Every value is checked against the option (:meth:`fxrod.studies.cases.Option.check`: type, choices,
bounds) before anything runs; bad input raises :class:`fxrod.errors.ParameterError` whose
message is one line. :func:`ensemble_split` checks that a plan run in ensembles varies only
the case's ensemble options.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fxrod.errors import ParameterError
from fxrod.studies.cases import CASES, RUN_CONTROL, Case, Option, Result

#: Options of a case the sweep sets itself (never a swept parameter).
MANAGED = ("restart",)
#: How lists of values are combined.
MODES = ("grid", "zip")


@dataclass(frozen=True)
class Plan:
    """The points of a sweep.

    Attributes
    ----------
    case : str
        Dashed name of a registered case, ``path/to/module.py:function`` of a user's
        function, or the name of a user's :class:`fxrod.studies.cases.Case` or function given as
        an object (:func:`find_case`).
    quick : bool
        Start from the case's quick values (``--quick``).
    points : tuple of dict
        Option values of each point (only the given parameters; the others keep their
        defaults), in SI units as the options list them.
    user : Case, optional
        The case the plan was made for (:func:`make_plan`; not compared, not stored in
        ``sweep.json``): :func:`plan_case` runs it rather than looking ``case`` up again.
    """

    case: str
    quick: bool
    points: tuple[dict[str, object], ...]
    user: Case | None = field(default=None, compare=False, repr=False)

    @property
    def names(self) -> list[str]:
        """The parameters given, in order."""
        return list(self.points[0]) if self.points else []

    def to_json(self) -> dict:
        """A JSON-ready dict (``sweep.json`` of the output directory)."""
        return {"case": self.case, "quick": self.quick, "points": list(self.points)}

    @classmethod
    def from_json(cls, d: dict) -> Plan:
        return cls(d["case"], bool(d["quick"]), tuple(dict(p) for p in d["points"]))


def is_script(spec: object) -> bool:
    """Whether ``spec`` names an attribute of a Python file, ``path/to/module.py:name``."""
    if not isinstance(spec, str):
        return False
    path, sep, attr = spec.rpartition(":")
    return bool(sep) and path.endswith(".py") and attr.isidentifier()


def load_script(spec: str) -> object:
    """The attribute ``name`` of the file ``path/to/module.py`` named by ``spec``.

    Raises
    ------
    ParameterError
        When the file does not exist, cannot be imported, or has no such attribute.
    """
    import importlib.util

    path, _, attr = spec.rpartition(":")
    file = Path(path)
    if not file.is_file():
        raise ParameterError("case", spec, f"an existing Python file ({file} not found)")
    mod_spec = importlib.util.spec_from_file_location(f"fxrod_user_{file.stem}", file)
    module = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(module)
    except Exception as err:  # noqa: BLE001  (the user's code: reported in one line)
        raise ParameterError("case", spec, f"an importable file ({type(err).__name__}: "
                             f"{err})") from None
    if not hasattr(module, attr):
        raise ParameterError("case", spec, f"a Case or a function {attr!r} defined in {file}")
    return getattr(module, attr)


def find_case(name: str | Case | Callable) -> Case:
    """The case a sweep runs.

    Parameters
    ----------
    name : str, Case or callable
        A registered case (dashes or underscores); ``path/to/module.py:name`` of a user's
        file whose ``name`` is a :class:`fxrod.studies.cases.Case` or a function of
        :func:`function_case`; a Case; or such a function.

    Raises
    ------
    ParameterError
        For an unknown case, a file or attribute that cannot be loaded, or a function that
        :func:`function_case` refuses.
    """
    if isinstance(name, Case):
        return name
    if is_script(name):
        made = load_script(name)
        if isinstance(made, Case):
            return made
        path, _, attr = name.rpartition(":")
        return function_case(made, f"{Path(path).stem}_{attr}")
    if callable(name):
        return function_case(name)
    case = CASES.get(str(name).replace("_", "-"))
    if case is None:
        raise ParameterError("case", name, f"one of {', '.join(CASES)}, a Case, or "
                             "path/to/module.py:function")
    return case


def plan_case(plan: Plan) -> Case:
    """The case of ``plan``: the one it was made for, else :func:`find_case` of its name."""
    return plan.user if plan.user is not None else find_case(plan.case)


def function_case(fn: Callable, name: str | None = None) -> Case:
    """A user's function as a case that a sweep can run.

    ``fn(**options)`` returns a :class:`fxrod.runs.problem.Problem`, or a pair ``(problem,
    probes)`` with probes of its own (:mod:`fxrod.runs.probes`, e.g. a
    :class:`fxrod.runs.probes.ColumnProbe`); its keyword parameters with a bool, int, float or
    str default are the case's options (in the units the function takes, SI by fxrod's
    convention), ``comm`` (if it has one) receives the communicator of the point's group. A
    point builds the problem, runs it to ``t_end`` in a :class:`fxrod.runs.simulation.Simulation`
    named ``name`` (its CSV, checkpoints and restart as any stepped case:
    :data:`fxrod.studies.cases.RUN_CONTROL`) and records the last row's numbers (``t``, ``H``,
    ``tip_1`` ... [SI], every column of the run and of the probes) as its summary.

    Parameters
    ----------
    fn : callable
        The user's function.
    name : str, optional
        Case name and base name of the files (default ``fn.__name__``).

    Raises
    ------
    ParameterError
        For something that is not a function, a parameter without a default (a point sets
        only the swept ones), a positional-only or variadic parameter, or a parameter named
        like an option the sweep manages (``adaptive``, ``checkpoint_every``, ``restart``).
    """
    if not callable(fn) or isinstance(fn, type):
        raise ParameterError("case", fn, "a Case or a function returning a fxrod Problem")
    name = str(name or getattr(fn, "__name__", "user_case"))
    params = inspect.signature(fn).parameters
    control = {o.name for o in RUN_CONTROL}
    options = []
    for p in params.values():
        if p.name == "comm":
            continue
        if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ParameterError(f"parameter {p.name} of {name}", str(p.kind),
                                 "keyword parameters only in a swept function")
        if p.default is p.empty:
            raise ParameterError(f"parameter {p.name} of {name}", "no default", "a default "
                                 "value (a sweep point sets only the swept parameters)")
        if p.name in control:
            raise ParameterError(f"parameter {p.name} of {name}", p.name, "a name other "
                                 f"than {', '.join(sorted(control))} (set by the sweep)")
        if type(p.default) in (bool, int, float, str):
            options.append(Option(p.name, p.default, "-", f"keyword of {name}"))
    takes_comm = "comm" in params

    def run(out: Path | None, *, pictures: bool, quiet: bool, comm=None,
            adaptive: bool = False, checkpoint_every: int = 0, restart: str | None = None,
            **values) -> Result:
        """Build the user's problem, run it to its end, summarise its last row."""
        from fxrod.runs.problem import Problem
        from fxrod.studies.cases.common import output_files, recorded, wrote

        made = fn(**values, **({"comm": comm} if takes_comm and comm is not None else {}))
        prob, probes = made if isinstance(made, tuple) and len(made) == 2 else (made, ())
        if not isinstance(prob, Problem):
            raise ParameterError("case", name, "a function returning a fxrod Problem or "
                                 f"(Problem, probes) (it returned {type(made).__name__})")
        with recorded(prob, out, name, adaptive=adaptive, checkpoint_every=checkpoint_every,
                      restart=restart, quiet=quiet, probes=list(probes)) as sim:
            sim.run(prob.t_end)
        summary = {k: float(v) for k, v in sim.rows[-1].items()
                   if isinstance(v, int | float | np.floating | np.integer)}
        files = output_files(sim)
        text = "\n".join(filter(None, (f"{name}: " + ", ".join(
            f"{k} = {v:.9g}" for k, v in summary.items()), wrote(files))))
        return Result(name, summary, text, {name: sim}, files, rank=sim.comm.rank)

    if not takes_comm:         # Case.takes_comm: no sub-communicator for this function
        def run_serial(out: Path | None, *, pictures: bool, quiet: bool,
                       **values) -> Result:
            """:func:`run` of a function without a ``comm`` keyword."""
            return run(out, pictures=pictures, quiet=quiet, **values)
        runner = run_serial
    else:
        runner = run
    return Case(name, f"the user's function {name}", (*options, *RUN_CONTROL), {}, runner)


def sweepable(case: Case) -> dict[str, Option]:
    """The options of ``case`` a sweep may set, by name."""
    return {o.name: o for o in case.options if o.name not in MANAGED}


def list_params(case: Case) -> str:
    """The sweepable options of ``case`` as a table: name, unit, default, allowed values,
    help (``fxrod sweep CASE --list-params``)."""
    rows = [("parameter", "unit", "default", "allowed", "description")]
    rows += [(o.name, o.unit, str(o.default), o.allowed(), o.help)
             for o in sweepable(case).values()]
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(f"{a:{w[0]}}  {b:{w[1]}}  {c:{w[2]}}  {d:{w[3]}}  {e}"
                     for a, b, c, d, e in rows)


def parse_param(case: Case, text: str) -> tuple[str, list | tuple]:
    """``name=v1,v2`` as ``(name, [values])``, ``name=lo:hi`` as ``(name, (lo, hi))``,
    every value checked by the option.

    Raises
    ------
    ParameterError
        For a text without ``=``, an unknown or managed option, an empty list or value, a
        range of a non-numeric option or with ``lo > hi``, or a value the option refuses.
    """
    name, sep, values = str(text).partition("=")
    name = name.strip().replace("-", "_")
    if not sep or not name:
        raise ParameterError("param", text, "NAME=V1,V2,... or NAME=LO:HI")
    options = sweepable(case)
    if name not in options:
        raise ParameterError("param", name, f"an option of {case.name}: "
                             f"{', '.join(options) or 'none'}")
    opt = options[name]
    if ":" in values:
        lo, _, hi = values.partition(":")
        if opt.value_type not in (int, float):
            raise ParameterError(name, values, "a list (a range needs a numeric option)")
        lo, hi = opt.check(lo.strip()), opt.check(hi.strip())
        if lo > hi:
            raise ParameterError(name, values, "a range LO:HI with LO <= HI")
        return name, (lo, hi)
    items = [v.strip() for v in values.split(",")]
    if not values.strip() or "" in items:
        raise ParameterError(name, values, "a non-empty comma-separated list of values")
    return name, [opt.check(v) for v in items]


def make_plan(case_name: str | Case | Callable, params: Sequence[str], mode: str = "grid",
              samples: int | None = None, seed: int = 0, quick: bool = False) -> Plan:
    """The points of a sweep of ``case_name`` over ``params`` (texts of :func:`parse_param`).

    Parameters
    ----------
    case_name : str, Case or callable
        The case (:func:`find_case`): a registered name, ``path/to/module.py:name``, a
        :class:`fxrod.studies.cases.Case` or a user's function.
    params : sequence of str
        ``name=v1,v2,...`` lists (or ``name=lo:hi`` ranges with ``samples``); each name once.
    mode : str
        ``"grid"`` (every combination) or ``"zip"`` (the lists side by side).
    samples : int, optional
        Draw this many points from the ranges (lists must then have one value).
    seed : int
        Seed of the sampling.
    quick : bool
        Start from the case's quick values.

    Raises
    ------
    ParameterError
        For an unknown case, bad parameters (:func:`parse_param`), no parameter, a name given
        twice, lists of unequal length with ``"zip"``, a range without ``samples`` or a list
        of several values with it, ``samples < 1``.
    """
    case = find_case(case_name)
    label = case_name if is_script(case_name) else case.name
    if mode not in MODES:
        raise ParameterError("mode", mode, f"one of {', '.join(MODES)}")
    if not params:
        raise ParameterError("param", [], "at least one NAME=V1,V2,... (see --list-params)")
    parsed = [parse_param(case, p) for p in params]
    names = [n for n, _ in parsed]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ParameterError("param", twice, "each parameter once")
    ranges = {n: v for n, v in parsed if isinstance(v, tuple)}
    lists = {n: v for n, v in parsed if isinstance(v, list)}
    if samples is None:
        if ranges:
            raise ParameterError("param", f"{next(iter(ranges))}=LO:HI",
                                 "a list of values (ranges need --samples N)")
        return Plan(label, quick, _combine(lists, mode), case)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ParameterError("samples", samples, "an integer >= 1")
    several = [n for n, v in lists.items() if len(v) > 1]
    if several:
        raise ParameterError("param", several[0], "a single value or a range LO:HI with "
                             "--samples")
    rng = np.random.default_rng(seed)
    options = sweepable(case)
    drawn = {n: (rng.integers(lo, hi + 1, samples).tolist()
                 if options[n].value_type is int else rng.uniform(lo, hi, samples).tolist())
             for n, (lo, hi) in ranges.items()}
    points = [{n: (lists[n][0] if n in lists else drawn[n][i]) for n in names}
              for i in range(samples)]
    return Plan(label, quick, tuple(points), case)


def _combine(lists: dict[str, list], mode: str) -> tuple[dict[str, object], ...]:
    """The points of value lists: every combination (grid) or side by side (zip, a single
    value is a constant)."""
    names = list(lists)
    if mode == "grid":
        return tuple(dict(zip(names, combo, strict=True))
                     for combo in itertools.product(*lists.values()))
    n = max(len(v) for v in lists.values())
    if any(len(v) not in (1, n) for v in lists.values()):
        raise ParameterError("param", {k: len(v) for k, v in lists.items()},
                             "lists of equal length (or single values) with --zip")
    return tuple({k: v[i if len(v) > 1 else 0] for k, v in lists.items()} for i in range(n))


def ensemble_split(case: Case, plan: Plan) -> tuple[dict[str, object], list[dict]]:
    """The values shared by every point of ``plan`` and each point's ensemble options, for
    ensembles of ``case`` (:meth:`fxrod.studies.cases.Case.run_ensemble`).

    Raises
    ------
    ParameterError
        For a case without ensemble runs, or a plan that varies an option that is not one
        of the case's ensemble options, or sets ``checkpoint_every`` (an ensemble run writes
        no checkpoint).
    """
    if case.ensemble_runner is None:
        with_ensembles = [c.name for c in CASES.values() if c.ensemble_runner is not None]
        raise ParameterError("ensemble", case.name, "a case with ensemble options: "
                             f"{', '.join(with_ensembles) or 'none'}")
    if "checkpoint_every" in plan.names:
        raise ParameterError("param", "checkpoint_every", "no checkpoint_every with "
                             "--ensemble (an ensemble run writes no checkpoint)")
    ens = set(case.ensemble_options)
    for name in plan.names:
        if name not in ens and len({repr(p[name]) for p in plan.points}) > 1:
            raise ParameterError("param", name, "a single value with --ensemble (only the "
                                 f"ensemble options {', '.join(case.ensemble_options)} of "
                                 f"{case.name} may vary)")
    common = {n: plan.points[0][n] for n in plan.names if n not in ens}
    return common, [{n: p[n] for n in plan.names if n in ens} for p in plan.points]
