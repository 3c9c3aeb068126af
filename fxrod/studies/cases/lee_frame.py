"""Case ``lee-frame``: Lee's frame traced through snap-through and snap-back by arc-length
continuation (Lee, Manuel & Rossow 1968; Simo & Vu-Quoc 1986).

Two members of length 120 welded at a right angle (a column and a beam: two rods and a
:class:`fxrod.core.joints.Rigid` joint), pinned at both far ends, E = 720, A = 6, I = 2, a dead
vertical load at 24 from the corner on the beam (:func:`fxrod.problems.frames.lee_frame`). The load
factor is ``P L^2/EI``. Steps: :func:`continuation`, :func:`finish`.

Files: ``DIR/lee_frame.csv`` with the columns ``load, u, v`` (the load P [N], positive
downward, and the horizontal and vertical displacement [m] of the loaded point, v positive
downward), ``DIR/lee_frame_path.csv`` (the continuation rows: load factor, arc length,
stability index, events; docs/output.md) and ``DIR/lee_frame.png`` (the path and shapes).

Summary keys: ``limit_1``, ``limit_2`` (``P L^2/EI`` of the first two limit points),
``u_limit_1``, ``v_limit_1`` [m], ``points``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fxrod.analysis.continuation import ArcLengthSettings, Continuation
from fxrod.output.tables import CSVWriter
from fxrod.problems.frames import LEE_LENGTH, LEE_LOAD_AT, lee_frame
from fxrod.studies.cases import Case, Option, Result
from fxrod.studies.cases.common import wrote

NAME = "lee_frame"
#: Simo & Vu-Quoc (1986), Fig. of Lee's frame, digitised (two curves, u and v): the first
#: limit load P L^2/EI 18.76 / 18.67 and the second -9.47 / -9.23 (theory §B2).
DIGITISED_LIMITS = ((18.76, 18.67), (-9.47, -9.23))

OPTIONS = (
    Option("n_elements", 10, "-", "elements per member (a multiple of 5)"),
    Option("v_end", 95.0, "m", "stop when the loaded point has gone this far down"),
    Option("max_steps", 300, "-", "arc-length steps at most"),
)


def continuation(n_elements: int = 10, comm=None) -> Continuation:
    """The frame with arc-length control (2 m first step, at most 10 m, psi = 5 m per unit
    load factor), recording the loaded point."""
    model = lee_frame(n_elements, comm=comm)
    point = model.structure.coordinate(1, LEE_LOAD_AT)
    return Continuation(model, ArcLengthSettings(ds=2.0, ds_max=10.0, psi=5.0, target_its=5),
                        points={"load": point})


def trace(cont: Continuation, v_end: float, max_steps: int) -> None:
    """Trace until the loaded point has moved ``v_end`` [m] down (or ``max_steps``)."""
    cont.run(max_steps, stop=lambda p: -p.displacements["load"][1] > v_end)


def figure(cont: Continuation, path: Path) -> Path:
    """The load factor against u and v of the loaded point, the limit points marked."""
    from fxrod.viz import load_path_picture

    lam = np.array([p.lam for p in cont.path])
    d = np.array([p.displacements["load"] for p in cont.path])
    crit = cont.critical
    return load_path_picture(
        path, {"u (horizontal)": (d[:, 0], lam), "v (vertical, down)": (-d[:, 1], lam)},
        "displacement of the loaded point [m]", "load factor $P L^2/EI$ [-]",
        marks=([-p.displacements["load"][1] for p in crit], [p.lam for p in crit]),
        levels={"Simo & Vu-Quoc 1986": float(np.mean(DIGITISED_LIMITS[0])),
                "_nolegend_": float(np.mean(DIGITISED_LIMITS[1]))},
        title="Lee's frame (dashed: Simo & Vu-Quoc 1986, limit loads)")


#: Columns of ``lee_frame.csv`` with their units and meanings (``lee_frame_columns.json``).
COLUMNS = {"load": "N", "u": "m", "v": "m"}
MEANINGS = {"load": "load P = lambda EI/L^2, positive downward",
            "u": "horizontal displacement of the loaded point (towards the far pin positive)",
            "v": "vertical displacement of the loaded point, positive downward"}


def finish(cont: Continuation, out: Path | None, pictures: bool = True) -> Result:
    """``lee_frame.csv`` (load, u, v), the path CSV, the picture and the limit loads."""
    rank = cont.model.comm.rank
    P = cont.model.structure.rods[0].section.k_b1 / LEE_LENGTH**2
    files = []
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        with CSVWriter(out / f"{NAME}.csv", COLUMNS, comm=cont.model.comm, units=COLUMNS,
                       meanings=MEANINGS) as w:
            for p in cont.path:
                d = p.displacements["load"]
                w.write({"load": p.lam * P, "u": float(d[0]), "v": float(-d[1])})
        cont.write_csv(out / f"{NAME}_path.csv")
        if rank == 0:
            files += [out / f"{NAME}.csv", out / f"{NAME}_path.csv"]
            if pictures:
                files.append(figure(cont, out / f"{NAME}.png"))
    limits = [p for p in cont.critical if p.event == "limit"]
    nan = float("nan")
    s = {"limit_1": limits[0].lam if limits else nan,
         "limit_2": limits[1].lam if len(limits) > 1 else nan,
         "u_limit_1": float(limits[0].displacements["load"][0]) if limits else nan,
         "v_limit_1": float(-limits[0].displacements["load"][1]) if limits else nan,
         "points": float(len(cont.path))}
    lines = [f"{NAME}: {len(cont.path)} points"]
    lines += [f"{p.event} at P L^2/EI = {p.lam:.5f} (stability index {p.index})"
              for p in cont.critical]
    lines.append("Simo & Vu-Quoc 1986 (digitised): limit loads "
                 f"{DIGITISED_LIMITS[0]}, {DIGITISED_LIMITS[1]}")
    return Result(CASE.name, s, "\n".join(filter(None, (*lines, wrote(files)))), {}, files,
                  rank=rank)


def run(out: Path | None, *, pictures: bool, quiet: bool, n_elements: int, v_end: float,
        max_steps: int, comm=None) -> Result:
    """Build, trace and post-process (the options of :data:`OPTIONS`)."""
    cont = continuation(n_elements, comm=comm)
    trace(cont, v_end, max_steps)
    return finish(cont, out, pictures)


CASE = Case("lee-frame", "Lee's frame: two rods welded at a right angle, traced through "
            "snap-through and snap-back by arc-length continuation", OPTIONS,
            {"v_end": 52.0}, run)
