"""Per-step callbacks of a :class:`fxrod.runs.simulation.Simulation` with the full nodal arrays.

What PyElastica's ``CallBackBaseClass`` / ``make_callback`` give, without a hand-written
loop::

    sim = Simulation(integ, out_dir="out", name="arm", callbacks=[
        ArrayRecorder(every=10, fields=("positions", "directors", "velocities")),
        Callback(lambda t, state: print(t, state["tip"]), every=100),
    ])

A callback is called with the time ``t`` [s] (the load factor in a quasi-static run) and
the :class:`State` of the rod at t after the initial state (step 0) and after every k-th
accepted step (``integrator.step_count % every == 0``). A plain callable in ``callbacks``
is a :class:`Callback` with ``every=1``.

:class:`ArrayRecorder` keeps the requested arrays in memory (``data``) and writes them to
``DIR/<run name>_<recorder name>.npz`` whenever :meth:`fxrod.runs.simulation.Simulation.run`
returns or stops (a failed step, a controller error, SIGINT/SIGTERM): the file then holds
every recorded step up to the last completed one. It is replaced atomically (written
beside it, then renamed), so an interrupted write never leaves a broken file.

:class:`StepEfforts` keeps ``|e|_2`` of every step, the norm that bounds its energy-balance
residual (``|residual| <= atol |e|_2``, demos/tip_control.py).

Serial runs only (an MPI run with callbacks is refused by the Simulation in one line).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import numpy as np

from fxrod.errors import OutputError, ParameterError, check_int_min

#: Arrays of a :class:`State` by key: (shape per node or per rod, SI unit, meaning).
STATE_FIELDS: dict[str, tuple[str, str, str]] = {
    "s": ("(n,)", "m", "arc length of the nodes (P2: vertices and midpoints)"),
    "positions": ("(n, 3)", "m", "centreline positions phi"),
    "directors": ("(n, 3, 3)", "-", "directors, row k is d_(k+1)"),
    "velocities": ("(n, 3)", "m/s", "centreline velocities"),
    "director_rates": ("(n, 3, 3)", "1/s", "director rates, row k is d_(k+1) dot"),
    "tip": ("(3,)", "m", "centreline position at s = L"),
    "tip_velocity": ("(3,)", "m/s", "centreline velocity at s = L"),
    "inputs": ("(n_act,)", "N", "actuator forces tau_k held over the last step"),
    "port_outputs": ("(n_act,)", "m/s", "collocated outputs y_k of the actuation port"),
}


class State(Mapping):
    """The rod at time t as numpy arrays, computed on first access and cached (see
    :data:`STATE_FIELDS` for the keys, shapes and units; nodes sorted by arc length).

    ``inputs`` and ``port_outputs`` need an actuation port (``port``, a
    :class:`fxrod.runs.control.ActuationPort`): the forces ``tau_k`` [N] of the actuators and
    their collocated outputs ``y_k`` [m/s] at t, the pairs of the port's power
    ``P = sum_k tau_k y_k`` [W] (:meth:`fxrod.runs.control.ActuationPort.outputs`).

    Parameters
    ----------
    model : fxrod.core.model.RodModel
        The model, read at its state at t_n (``w0``, ``v0``).
    t : float
        The time [s] of that state.
    port : fxrod.runs.control.ActuationPort, optional
        The actuation port, for ``inputs`` and ``port_outputs``.
    """

    def __init__(self, model, t: float, port=None) -> None:
        self.model = model
        self.t = float(t)
        self.port = port
        self._cache: dict[str, np.ndarray] = {}

    def _nodal(self) -> None:
        m = self.model
        nodes = m.nodes
        q = nodes.q_owned()
        v = m.v0.x.array.reshape(-1, 12)[: q.shape[0]]
        order = np.argsort(nodes._s_own, kind="stable")
        q, v = q[order], v[order]
        self._cache.update(
            s=nodes._s_own[order].copy(), positions=q[:, 0:3].copy(),
            directors=q[:, 3:12].reshape(-1, 3, 3).copy(), velocities=v[:, 0:3].copy(),
            director_rates=v[:, 3:12].reshape(-1, 3, 3).copy())

    def nodal_values(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(q, v)``: the entries ``index`` of the nodes' configurations and velocities
        laid end to end (``hstack([positions, directors.reshape(-1, 9)]).reshape(-1)``
        and the same of ``velocities`` and ``director_rates``), read straight from the
        model's arrays without building the nodal arrays."""
        iq, iv = self.model.nodes.sorted_maps()
        return self.model.w0.x.array[iq[index]], self.model.v0.x.array[iv[index]]

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._cache:
            if key in ("s", "positions", "directors", "velocities", "director_rates"):
                self._nodal()
            elif key == "tip":
                self._cache[key] = self.model.nodes.tip().copy()
            elif key == "tip_velocity":
                self._cache[key] = self.model.nodes.tip_velocity()
            elif key in ("inputs", "port_outputs") and self.port is not None:
                self._cache[key] = (self.port.inputs(self.t) if key == "inputs"
                                    else self.port.outputs())
            else:
                raise KeyError(key)
        return self._cache[key]

    def __iter__(self) -> Iterator[str]:
        keys = list(STATE_FIELDS)
        return iter(keys if self.port is not None else keys[:-2])

    def __len__(self) -> int:
        return len(STATE_FIELDS) - (0 if self.port is not None else 2)


def _check_every(every) -> int:
    if isinstance(every, bool):
        raise ParameterError("every", every, "an integer >= 1 (steps)")
    return check_int_min("every", every, 1)


class Callback:
    """A user function ``fn(t, state)`` called every ``every`` steps (and at step 0).

    Parameters
    ----------
    fn : callable ``(t, state) -> None``
        Called with the time [s] and the :class:`State`.
    every : int
        Call at the steps whose count is a multiple of ``every`` (>= 1).
    """

    def __init__(self, fn: Callable[[float, State], object], every: int = 1) -> None:
        if not callable(fn):
            raise ParameterError("callback", fn, "a callable (t, state) -> None")
        self.fn = fn
        self.every = _check_every(every)
        self.name = getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, t: float, state: State) -> None:
        self.fn(t, state)

    def finish(self, out_dir: Path | None, run_name: str) -> None:
        """Nothing to write (a user callback writes what it wants itself)."""


class StepEfforts:
    """A callback ``fn(t, state)`` (:class:`Callback`) that keeps ``|e|_2`` of every step of
    a run of ``model`` with step ``h`` [s] in :attr:`values`: the norm of the efforts the
    step's residual is tested with, the midpoint velocity ``(q_{n+1} - q_n)/h`` [m/s], the
    midpoint stress [N, N m] and the multipliers. The energy-balance residual of a step is the
    Newton residual paired with them, so ``|residual| <= atol |e|_2`` bounds a closed ledger.
    Models with the fields ``q, sigma, lambda`` only."""

    def __init__(self, model, h: float) -> None:
        self.model, self.h = model, float(h)
        self.values: list[float] = []
        self._dofs = [model.field_dofs(f) for f in ("q", "sigma", "lambda")]
        self._prev = model.w0.x.array.copy()

    def __call__(self, t: float, state: State) -> None:
        if t > 0.0:
            (q, s, lam), w0, w1 = self._dofs, self._prev, self.model.w0.x.array
            self.values.append(math.sqrt(np.sum(((w1[q] - w0[q]) / self.h) ** 2)
                                         + np.sum((0.5 * (w1[s] + w0[s])) ** 2)
                                         + np.sum(w1[lam] ** 2)))
            self._prev = w1.copy()


class ArrayRecorder:
    """Record full arrays every ``every`` steps, written to ``DIR/<run>_<name>.npz``.

    Parameters
    ----------
    every : int
        Record the initial state and every k-th step (>= 1).
    fields : sequence of str
        Keys of :data:`STATE_FIELDS` (``s`` is always written once).
    name : str
        File suffix: ``DIR/<run name>_<name>.npz``; unique among the run's recorders.

    Attributes
    ----------
    data : dict of str to list of ndarray
        The recorded arrays by field, plus ``t`` [s] and ``step`` [-].

    The ``.npz`` holds ``t`` (m,), ``step`` (m,), ``s`` (n,) and each field stacked over the
    m recorded steps, e.g. ``positions`` (m, n, 3) [m].
    """

    def __init__(self, every: int = 1, fields=("positions", "directors", "velocities"),
                 name: str = "arrays") -> None:
        self.every = _check_every(every)
        if isinstance(fields, str):
            fields = (fields,)
        self.fields = tuple(fields)
        bad = [f for f in self.fields if f not in STATE_FIELDS or f == "s"]
        if bad or not self.fields:
            raise ParameterError("ArrayRecorder fields", bad or self.fields,
                                 f"a non-empty subset of {sorted(set(STATE_FIELDS) - {'s'})}")
        self.name = str(name)
        if not self.name or "/" in self.name:
            raise ParameterError("ArrayRecorder name", name, "a non-empty file suffix")
        self.data: dict[str, list] = {k: [] for k in ("t", "step", *self.fields)}
        self.s: np.ndarray | None = None
        self.step = 0   # set by the Simulation before each call

    def __call__(self, t: float, state: State) -> None:
        self.data["t"].append(float(t))
        self.data["step"].append(self.step)
        for f in self.fields:
            self.data[f].append(np.array(state[f], copy=True))
        if self.s is None:
            self.s = state["s"]

    def arrays(self) -> dict[str, np.ndarray]:
        """The recorded data as stacked arrays (the content of the ``.npz``)."""
        out = {k: np.array(v) for k, v in self.data.items()}
        out["step"] = out["step"].astype(np.int64)
        if self.s is not None:
            out["s"] = self.s
        return out

    def finish(self, out_dir: Path | None, run_name: str) -> None:
        """Write ``out_dir/<run_name>_<name>.npz`` (nothing without ``out_dir``).

        Raises
        ------
        fxrod.errors.OutputError
            The file cannot be written.
        """
        if out_dir is None:
            return
        path = Path(out_dir) / f"{run_name}_{self.name}.npz"
        tmp = path.with_name(path.name + ".tmp")
        try:
            with open(tmp, "wb") as fh:
                np.savez(fh, **self.arrays())
            os.replace(tmp, path)
        except OSError as e:
            raise OutputError(path, e) from None
