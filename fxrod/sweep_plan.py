"""What a parameter sweep runs: the points (option values) of one registered case.

A sweep names a case of :data:`fxrod.cases.CASES` and gives values of its options (every
option but ``restart``, which the sweep manages):

* ``name=v1,v2,...`` lists values; the lists are combined as a grid (every combination,
  the first parameter varying slowest) or zipped (equal lengths, taken side by side; a
  single value is a constant);
* ``name=lo:hi`` is a range sampled uniformly (``samples`` points, random generator
  ``numpy.random.default_rng(seed)``; integer options get integers in ``[lo, hi]``); a
  single value ``name=v`` is a constant of every point.

Every value is checked against the option (:meth:`fxrod.cases.Option.check`: type, choices,
bounds) before anything runs; bad input raises :class:`fxrod.errors.ParameterError` whose
message is one line. :func:`ensemble_split` checks that a plan run in ensembles varies only
the case's ensemble options.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fxrod.cases import CASES, Case, Option
from fxrod.errors import ParameterError

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
        Dashed case name.
    quick : bool
        Start from the case's quick values (``--quick``).
    points : tuple of dict
        Option values of each point (only the given parameters; the others keep their
        defaults), in SI units as the options list them.
    """

    case: str
    quick: bool
    points: tuple[dict[str, object], ...]

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


def find_case(name: str) -> Case:
    """The registered case ``name`` (dashes or underscores).

    Raises
    ------
    ParameterError
        For an unknown case.
    """
    case = CASES.get(str(name).replace("_", "-"))
    if case is None:
        raise ParameterError("case", name, f"one of {', '.join(CASES)}")
    return case


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


def make_plan(case_name: str, params: Sequence[str], mode: str = "grid",
              samples: int | None = None, seed: int = 0, quick: bool = False) -> Plan:
    """The points of a sweep of ``case_name`` over ``params`` (texts of :func:`parse_param`).

    Parameters
    ----------
    case_name : str
        A registered case.
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
        return Plan(case.name, quick, _combine(lists, mode))
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
    return Plan(case.name, quick, tuple(points))


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
    ensembles of ``case`` (:meth:`fxrod.cases.Case.run_ensemble`).

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
