"""Pictures of rods: pyvista snapshots and animations (off-screen), matplotlib time series.

Every function takes plain numpy centrelines (``(n_pts, 3)`` arrays in metres), so all
formulations (Cosserat, ANCF, Hamel) share them. Only call these on MPI rank 0.

Contact: :func:`snapshot_figure` and :func:`animation` draw rigid obstacles
(:mod:`fxrod.core.obstacles`, translucent grey) and :func:`snapshot_figure` draws forces as red
arrows (:func:`force_glyphs`), e.g. the nodal contact forces of
:class:`fxrod.runs.probes.ContactFieldProbe` (``frame.arrows()``) or the node-pair forces of
:class:`fxrod.runs.probes.RodContactProbe` (``probe.arrows()``), with a note of the scale.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def _headless_render_window() -> None:
    """Without an X display, pick VTK's EGL (else OSMesa) render window when that library
    is present, instead of letting VTK try X first (it then warns "bad X server
    connection" on every picture before falling back). A user's own
    ``VTK_DEFAULT_OPENGL_WINDOW`` (as in docker/Dockerfile) is kept."""
    if os.environ.get("DISPLAY") or os.environ.get("VTK_DEFAULT_OPENGL_WINDOW"):
        return
    import ctypes.util

    for lib, window in (("EGL", "vtkEGLRenderWindow"), ("OSMesa", "vtkOSOpenGLRenderWindow")):
        if ctypes.util.find_library(lib):
            os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = window
            return


def _pv():
    """pyvista, off-screen; VTK's environment is set here, when a picture is drawn."""
    os.environ.setdefault("PYVISTA_OFF_SCREEN", "true")
    _headless_render_window()
    import pyvista as pv

    pv.OFF_SCREEN = True
    return pv


def _tube(pv, pts: np.ndarray, radius: float):
    line = pv.lines_from_points(np.asarray(pts, dtype=float))
    return line.tube(radius=radius, n_sides=16)


def _auto_radius(frames: Sequence[np.ndarray]) -> float:
    return 0.006 * _scene(frames)[1]


#: Length of the longest force arrow, as a fraction of the scene size, by default.
ARROW_FRACTION = 0.15


def _scene(frames: Sequence[np.ndarray]) -> tuple[np.ndarray, float]:
    """Centre [m] and size [m] (largest extent, at least the first centreline's length)."""
    allp = np.concatenate([np.asarray(f) for f in frames])
    seg = float(np.linalg.norm(np.diff(np.asarray(frames[0]), axis=0), axis=1).sum())
    return 0.5 * (allp.min(0) + allp.max(0)), max(float(np.max(np.ptp(allp, axis=0))), seg,
                                                  1e-12)


def _add_obstacles(pv, plotter, obstacles: Sequence, frames, t: float) -> list:
    """Draw the obstacles in their pose at t (translucent grey); returns the actors."""
    from fxrod.runs.probes import obstacle_surface

    centre, size = _scene(frames)
    actors = []
    for ob in obstacles:
        surf = obstacle_surface(ob, centre, 0.75 * size, t=t)
        if surf is not None:
            pts, tris = surf
            mesh = pv.PolyData(pts, np.column_stack([np.full(len(tris), 3), tris]).ravel())
            actors.append(plotter.add_mesh(mesh, color="silver", opacity=0.45,
                                           smooth_shading=True))
    return actors


def force_glyphs(points: np.ndarray, forces: np.ndarray, scale: float):
    """Arrows for point forces: one arrow per nonzero force, from its point [m] along the
    force [N], ``scale * |f|`` long (``scale`` [m/N]). Returns a pyvista PolyData (the
    glyphs) whose field data ``force`` holds the drawn forces, (n_arrows, 3) [N]."""
    pv = _pv()
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    f = np.asarray(forces, dtype=float).reshape(-1, 3)
    mag = np.linalg.norm(f, axis=1)
    on = mag > 0.0
    cloud = pv.PolyData(pts[on])
    cloud["force"] = f[on]
    cloud["length"] = scale * mag[on]
    glyphs = cloud.glyph(orient="force", scale="length", factor=1.0,
                         geom=pv.Arrow(tip_length=0.25, tip_radius=0.08, shaft_radius=0.03))
    glyphs.field_data["force"] = f[on]
    return glyphs


def _add_forces(plotter, forces, size: float, force_scale: float | None,
                force_label: str) -> None:
    """Arrows of every ``(points, forces)`` set and the scale note (lower left)."""
    sets = [(np.asarray(p, float).reshape(-1, 3), np.asarray(f, float).reshape(-1, 3))
            for p, f in forces]
    fmax = max((float(np.linalg.norm(f, axis=1).max()) for _, f in sets if len(f)),
               default=0.0)
    if fmax == 0.0:
        plotter.add_text(f"{force_label}: none", position="lower_left", font_size=10,
                         color="black")
        return
    scale = ARROW_FRACTION * size / fmax if force_scale is None else float(force_scale)
    total = np.zeros(3)
    for pts, f in sets:
        if np.any(f):
            plotter.add_mesh(force_glyphs(pts, f, scale), color="red")
            total += f.sum(axis=0)
    ref = ARROW_FRACTION * size
    plotter.add_text(f"red arrows: {force_label}, {ref:.3g} m long = {ref / scale:.3g} N; "
                     f"largest {fmax:.3g} N, resultant {np.linalg.norm(total):.3g} N",
                     position="lower_left", font_size=10, color="black")


def _camera(plotter, azimuth: float, elevation: float, zoom: float = 1.0) -> None:
    # Start from a view looking along -e2 with e3 up, then rotate (the paper's convention:
    # azimuth about the vertical e3 axis, elevation above the e1-e2 plane).
    plotter.view_vector((0.0, -1.0, 0.0), viewup=(0.0, 0.0, 1.0))
    plotter.camera.azimuth = azimuth
    plotter.camera.elevation = elevation
    plotter.reset_camera()
    if zoom != 1.0:
        plotter.camera.zoom(zoom)


#: The layouts of :func:`snapshot_figure`.
LAYOUTS = ("overlay", "side-by-side")


def _snapshot_options(frames, radius, offset, layout) -> np.ndarray | None:
    """Check the options of :func:`snapshot_figure`; the offset as a (3,) array or None."""
    from fxrod.errors import ParameterError

    if len(frames) == 0:
        raise ValueError("frames: need at least one snapshot")
    if layout not in LAYOUTS:
        raise ParameterError("layout", layout, '"overlay" or "side-by-side"')
    if radius is not None:
        try:
            r = float(radius)
        except (TypeError, ValueError):
            r = float("nan")
        if not (np.isfinite(r) and r > 0.0):
            raise ParameterError("radius", radius, "a finite tube radius > 0 [m] or None")
    if offset is None:
        return None
    try:
        off = np.asarray(offset, dtype=float)
    except (TypeError, ValueError):
        off = np.full(1, np.nan)
    if off.shape != (3,) or not np.all(np.isfinite(off)):
        raise ParameterError("offset", offset, "three finite numbers (dx, dy, dz) [m] or None")
    if layout != "overlay":
        raise ParameterError("offset", offset,
                             'None with layout="side-by-side" (each snapshot has its panel)')
    return off


def snapshot_plotter(
    frames: Sequence[np.ndarray],
    times: Sequence[float],
    radius: float | None = None,
    azimuth: float = 55.0,
    elevation: float = 15.0,
    window_size: tuple[int, int] | None = None,
    triads: Sequence[np.ndarray] | None = None,
    title: str | None = None,
    extra_lines: Sequence[np.ndarray] = (),
    zoom: float = 1.0,
    time_label: str = "t [s]",
    obstacles: Sequence = (),
    forces: Sequence[tuple[np.ndarray, np.ndarray]] = (),
    force_scale: float | None = None,
    force_label: str = "contact force",
    offset: Sequence[float] | None = None,
    layout: str = "overlay",
):
    """The off-screen pyvista ``Plotter`` of :func:`snapshot_figure` (same parameters, no
    file), before its screenshot: for a caller that adds to the picture or reads the drawn
    data back. Snapshot ``k`` is the actor named ``"snapshot k"`` (in panel ``k`` with
    ``layout="side-by-side"``); its mesh's field data ``centreline`` holds the drawn
    centreline [m] (with the offset added). Close the plotter when done."""
    off = _snapshot_options(frames, radius, offset, layout)
    pv = _pv()
    placed = [np.asarray(f, dtype=float) + (0.0 if off is None else k * off)
              for k, f in enumerate(frames)]
    r = _auto_radius(placed) if radius is None else float(radius)
    n = len(placed)
    side = layout == "side-by-side"
    ncol = min(n, 4) if side else 1
    nrow = -(-n // ncol)
    if window_size is None:
        window_size = (360 * ncol + 120, 400 * nrow) if side else (1024, 768)
    p = pv.Plotter(off_screen=True, window_size=list(window_size),
                   shape=(nrow, ncol) if side else (1, 1), border=False)
    p.set_background("white")
    tmin, tmax = float(min(times)), float(max(times))
    clim = (tmin, max(tmax, tmin + 1e-12))
    allp = np.concatenate(placed)
    box = pv.Box(bounds=np.ravel(np.c_[allp.min(0) - r, allp.max(0) + r]))
    scene = _scene(placed)
    for k, (pts, t) in enumerate(zip(placed, times, strict=True)):
        if side:
            p.subplot(k // ncol, k % ncol)
            p.set_background("white")
            p.add_mesh(box, opacity=0.0)          # the same scale in every panel
            head = f"{title}\n" if title and k == 0 else ""
            p.add_text(f"{head}{time_label}: {float(t):.4g}", font_size=10, color="black")
        tube = _tube(pv, pts, r)
        tube["t"] = np.full(tube.n_points, float(t))
        tube.field_data["centreline"] = pts
        p.add_mesh(tube, scalars="t", cmap="viridis", clim=clim, show_scalar_bar=False,
                   smooth_shading=True, name=f"snapshot {k}")
        if triads is not None and k < len(triads):
            colors = ("red", "green", "blue")
            tri = np.asarray(triads[k])
            step = max(1, len(pts) // 8)
            for j in range(3):
                p.add_arrows(pts[::step], tri[::step, :, j], mag=6 * r, color=colors[j])
        if side or k == n - 1:
            for line in extra_lines:
                p.add_mesh(pv.lines_from_points(np.asarray(line, dtype=float)),
                           color="black", line_width=2)
            _add_obstacles(pv, p, obstacles, placed, tmax)
            if len(forces) and (not side or k == n - 1):
                _add_forces(p, forces, scene[1], force_scale, force_label)
            p.show_axes()
    if side:
        p.subplot(0, 0)
        p.link_views()
    if not side:                                  # panels carry their time as text
        p.add_scalar_bar(title=time_label, color="black", vertical=True)
    if title and not side:
        p.add_text(title, font_size=12, color="black")
    if side:
        p.subplot(0, 0)                           # the linked camera of every panel
    _camera(p, azimuth, elevation, zoom)
    return p


def snapshot_figure(
    frames: Sequence[np.ndarray],
    times: Sequence[float],
    path: str | os.PathLike,
    radius: float | None = None,
    azimuth: float = 55.0,
    elevation: float = 15.0,
    window_size: tuple[int, int] | None = None,
    triads: Sequence[np.ndarray] | None = None,
    title: str | None = None,
    extra_lines: Sequence[np.ndarray] = (),
    zoom: float = 1.0,
    time_label: str = "t [s]",
    obstacles: Sequence = (),
    forces: Sequence[tuple[np.ndarray, np.ndarray]] = (),
    force_scale: float | None = None,
    force_label: str = "contact force",
    offset: Sequence[float] | None = None,
    layout: str = "overlay",
) -> Path:
    """Write a PNG of centreline snapshots as tubes coloured by time.

    Snapshots that overlap (a spring under load) read better shifted apart (``offset``) or
    one a panel (``layout="side-by-side"``).

    Parameters
    ----------
    frames : sequence of (n_pts, 3) arrays
        Centreline points of each snapshot [m].
    times : sequence of float
        Time of each snapshot [s] (colour scale).
    path : path-like
        Output PNG.
    radius : float, optional
        Tube radius [m], > 0: pass the section's picture radius
        (``rod.section.radius``) when it is known; default 0.6 % of the scene size.
    azimuth, elevation : float
        Camera angles [deg].
    window_size : (int, int), optional
        Image size in pixels; default (1024, 768), or about 360 x 400 a panel with
        ``layout="side-by-side"``.
    triads : sequence of (n_pts, 3, 3) arrays, optional
        Director frames ``d_k = triads[f][i, :, k]`` drawn at the given points of each frame.
    title : str, optional
        Text drawn in the upper left corner (of the first panel, above its time).
    extra_lines : sequence of (n, 3) arrays
        Additional thin black polylines (e.g. a tip path), drawn where they are (never
        offset), in every panel.
    zoom : float
        Camera zoom after fitting the scene (> 1 zooms in).
    time_label : str
        Title of the colour bar, with the unit of ``times`` (e.g. ``"load factor [-]"``
        in a quasi-static run); with panels, each panel is titled ``time_label: t``
        instead (no colour bar).
    obstacles : sequence of fxrod.core.obstacles.Obstacle
        Rigid obstacles, drawn translucent in their pose at the last time; unbounded ones
        (half-space, infinite cylinder) cut to the scene (user signed distances are not
        drawn); never offset.
    forces : sequence of (points (n, 3), forces (n, 3)) arrays
        Point forces [N] at points [m] drawn as red arrows from the points (e.g.
        ``ContactFrame.arrows()`` of the last snapshot), with a scale note; never offset
        (in the last panel with ``layout="side-by-side"``).
    force_scale : float, optional
        Arrow length per newton [m/N]; default: the largest force is drawn
        :data:`ARROW_FRACTION` of the scene size long.
    force_label : str
        What the arrows are, for the scale note.
    offset : (dx, dy, dz), optional
        Shift [m] added per snapshot index: snapshot ``k`` (and its triads) is drawn at
        ``frames[k] + k * offset``. Only with ``layout="overlay"``.
    layout : {"overlay", "side-by-side"}
        ``"overlay"``: all snapshots in one view; ``"side-by-side"``: one panel a snapshot
        (up to four a row), all panels with the same camera and scale.

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    fxrod.errors.ParameterError
        A bad ``layout``, ``offset`` or ``radius``.
    """
    p = snapshot_plotter(frames, times, radius=radius, azimuth=azimuth, elevation=elevation,
                         window_size=window_size, triads=triads, title=title,
                         extra_lines=extra_lines, zoom=zoom, time_label=time_label,
                         obstacles=obstacles, forces=forces, force_scale=force_scale,
                         force_label=force_label, offset=offset, layout=layout)
    out = Path(path)
    try:
        p.screenshot(str(out))
    finally:
        p.close()
    return out


def animation(
    frames: Sequence[np.ndarray],
    times: Sequence[float],
    path: str | os.PathLike,
    radius: float | None = None,
    azimuth: float = 55.0,
    elevation: float = 15.0,
    window_size: tuple[int, int] = (640, 480),
    fps: int = 10,
    trail: np.ndarray | None = None,
    time_unit: str = "s",
    obstacles: Sequence = (),
    labels: Sequence[str] | None = None,
) -> Path:
    """Write an animation of the centreline (GIF, or MP4 when imageio-ffmpeg is installed).

    The camera is fixed so that the whole motion stays in view. The format follows the
    suffix of ``path`` (``.gif`` or ``.mp4``). ``frames`` are centrelines [m] at ``times``
    (in ``time_unit``, shown as ``t = 0.5 s``, or the frame's text of ``labels``, e.g.
    ``"mode 3, f = 12.5 Hz"``: one a frame); ``trail`` is an ``(n_frames, 3)`` path [m]
    drawn up to the current frame; ``obstacles`` (:mod:`fxrod.core.obstacles`) are drawn in
    their pose at each frame's time, as in :func:`snapshot_figure`.
    """
    pv = _pv()
    if len(frames) == 0:
        raise ValueError("frames: need at least one snapshot")
    if labels is not None and len(labels) != len(frames):
        raise ValueError(f"labels: one text a frame ({len(frames)}), got {len(labels)}")
    r = _auto_radius(frames) if radius is None else float(radius)
    out = Path(path)
    p = pv.Plotter(off_screen=True, window_size=list(window_size))
    p.set_background("white")
    # Invisible bounding geometry fixes the camera for all frames.
    allp = np.concatenate([np.asarray(f) for f in frames])
    box = pv.Box(bounds=np.ravel(np.c_[allp.min(0) - r, allp.max(0) + r]))
    p.add_mesh(box, opacity=0.0)
    actor = p.add_mesh(_tube(pv, frames[0], r), color="tab:blue", smooth_shading=True)
    unit = f" {time_unit}" if time_unit and time_unit != "-" else ""
    texts = ([f"t = {t:.3g}{unit}" for t in times] if labels is None
             else [str(x) for x in labels])
    label = p.add_text(texts[0], font_size=12, color="black")
    _camera(p, azimuth, elevation)
    if out.suffix.lower() == ".mp4":
        p.open_movie(str(out), framerate=fps)
    else:
        p.open_gif(str(out), fps=fps)
    shown = _add_obstacles(pv, p, obstacles, frames, float(times[0]))
    moving = any(ob.moving for ob in obstacles)
    for i, (pts, t) in enumerate(zip(frames, times, strict=True)):
        p.remove_actor(actor)
        actor = p.add_mesh(_tube(pv, pts, r), color="tab:blue", smooth_shading=True)
        if moving and i > 0:
            for a in shown:
                p.remove_actor(a)
            shown = _add_obstacles(pv, p, obstacles, frames, float(t))
        if trail is not None and i > 0:
            p.add_mesh(pv.lines_from_points(np.asarray(trail)[: i + 1]), color="black")
        label.SetText(2, texts[i])
        p.write_frame()
    p.close()
    return out


def mode_figure(x0: np.ndarray, shapes: Sequence[np.ndarray], titles: Sequence[str],
                path: str | os.PathLike, d0: np.ndarray | None = None,
                directors: Sequence[np.ndarray] | None = None, columns: int = 3) -> Path:
    """A PNG of mode shapes, one 3D panel a mode (matplotlib): the equilibrium centreline
    (grey, dashed) and the scaled mode shape (blue), with the first director drawn as short
    ticks along the rod when given (so that a torsion mode, which does not move the
    centreline, shows), each panel titled (e.g. ``"mode 3: f = 12.5 Hz (torsion)"``). All
    panels share the limits and an equal scale of the three axes [m].

    Parameters
    ----------
    x0 : (n, 3) array
        Equilibrium centreline [m].
    shapes : sequence of (n, 3) arrays
        Centrelines of the scaled modes [m].
    titles : sequence of str
        One title a mode.
    path : path-like
        Output PNG.
    d0 : (n, 3) array, optional
        First director of the equilibrium at the points of ``x0``.
    directors : sequence of (n, 3) arrays, optional
        First director of each scaled mode (with ``d0``).
    columns : int
        Panels per row, >= 1.

    Returns
    -------
    pathlib.Path
        The written file.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if len(shapes) == 0 or len(titles) != len(shapes):
        raise ValueError(f"shapes, titles: one title a shape and at least one shape "
                         f"(got {len(shapes)} shapes, {len(titles)} titles)")
    if not isinstance(columns, int) or columns < 1:
        raise ValueError(f"columns: an integer >= 1, got {columns!r}")
    if (d0 is None) != (directors is None):
        raise ValueError("d0, directors: both or neither")
    x0 = np.asarray(x0, dtype=float)
    allp = np.concatenate([x0, *[np.asarray(x, dtype=float) for x in shapes]])
    centre, size = 0.5 * (allp.min(0) + allp.max(0)), float(np.max(np.ptp(allp, axis=0)))
    size = max(size, 1e-12)
    half = 0.55 * size
    tick = 0.1 * size
    every = max(1, len(x0) // 12)
    ncol = min(columns, len(shapes))
    nrow = -(-len(shapes) // ncol)
    fig = plt.figure(figsize=(3.6 * ncol, 3.4 * nrow))
    for k, (x, title) in enumerate(zip(shapes, titles, strict=True)):
        ax = fig.add_subplot(nrow, ncol, k + 1, projection="3d")
        x = np.asarray(x, dtype=float)
        ax.plot(*x0.T, color="0.6", ls="--", lw=1.0, label="equilibrium")
        ax.plot(*x.T, color="tab:blue", lw=2.0, label="mode")
        if d0 is not None:
            for p, d, colour in ((x0, np.asarray(d0), "0.7"),
                                 (x, np.asarray(directors[k]), "tab:red")):
                for i in range(0, len(p), every):
                    seg = np.array([p[i], p[i] + tick * d[i]])
                    ax.plot(*seg.T, color=colour, lw=0.8)
        for set_lim, c in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), centre, strict=True):
            set_lim(c - half, c + half)
        ax.set_box_aspect((1.0, 1.0, 1.0))
        ax.view_init(elev=28.0, azim=-50.0)
        ax.set_xlabel("x [m]", fontsize=7)
        ax.set_ylabel("y [m]", fontsize=7)
        ax.set_zlabel("z [m]", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.set_title(title, fontsize=9)
    note = "grey dashed: equilibrium; blue: mode shape (scaled)"
    if d0 is not None:
        note += "; ticks: first director d1 (red: in the mode)"
    fig.text(0.5, 0.005, note, ha="center", va="bottom", fontsize=8)
    fig.tight_layout(rect=(0.0, 0.03, 1.0, 1.0))
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


#: Panels of :func:`plot_timeseries`: title with unit, and the CSV columns drawn in it.
PANELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("energy [J]", ("kinetic", "strain_energy", "H")),
    ("energy balance [J]", ("H - H(0)", "external_work", "port_work", "support_work",
                            "dissipated")),
    ("energy residual [J]", ("energy_residual",)),
    ("linear momentum [kg m/s]", ("p_1", "p_2", "p_3")),
    ("angular momentum [kg m²/s]", ("J_1", "J_2", "J_3")),
    ("tip position [m]", ("tip_1", "tip_2", "tip_3")),
)


def default_plot_path(csv_path: str | os.PathLike) -> Path:
    """``X_plot.png`` beside ``X.csv``: never the picture ``X.png`` a demo draws itself."""
    p = Path(csv_path)
    return p.with_name(f"{p.stem}_plot.png")


def _balance_columns(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The CSV columns plus ``H - H(0)``, the energy change that the work and dissipation
    columns account for: ``H - H(0) = external_work + port_work + support_work - dissipated``
    (theory §2.3)."""
    out = dict(data)
    if "H" in data and len(data["H"]):
        out["H - H(0)"] = data["H"] - data["H"][0]
    return out


def plot_timeseries(csv_path: str | os.PathLike, out: str | os.PathLike | None = None) -> Path:
    """Plot the energies, the energy balance, the momenta and the tip of an fxrod CSV
    (:func:`timeseries_figure`), or a load path (:func:`path_figure`), into a PNG.

    Parameters
    ----------
    csv_path : path-like
        A time-series CSV written by :class:`fxrod.runs.simulation.Simulation` (column ``t``).
    out : path-like, optional
        PNG to write; default :func:`default_plot_path` (``X_plot.png``).

    Returns
    -------
    pathlib.Path
        The written PNG.
    """
    fig = timeseries_figure(csv_path)  # selects the Agg backend first
    import matplotlib.pyplot as plt

    out = Path(out) if out is not None else default_plot_path(csv_path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


#: First columns of a load-path CSV (a quasi-static path, e.g. ``lee_frame.csv`` or a
#: continuation's ``*_path.csv``), plotted by :func:`path_figure`.
PATH_PARAMETERS = ("load", "lambda")
#: Columns of a continuation path that are not displacements.
_PATH_META = ("arc_length", "index", "event", "newton_its")


def load_path_picture(path: str | os.PathLike, curves: dict[str, tuple], xlabel: str,
                      ylabel: str, marks: tuple = (), levels: dict[str, float] | None = None,
                      title: str = "") -> Path:
    """A load-displacement picture into a PNG: ``curves`` ``{label: (x, y)}``, ``marks``
    ``(x, y)`` points (critical points), ``levels`` ``{label: y}`` horizontal reference lines
    (published limit loads)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for label, (x, y) in curves.items():
        ax.plot(x, y, ".-", ms=2, label=label)
    if len(marks):
        ax.plot(*marks, "ko", ms=5)
    for label, y in (levels or {}).items():
        ax.axhline(y, color="0.5", ls="--", lw=0.8, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def path_figure(data: dict[str, np.ndarray]):
    """A load path: the load (first column, on the vertical axis) against every displacement
    column [m]; the points where the stability ``index`` changes are marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    name = next(iter(data))
    y = data[name]
    cols = [c for c in data if c != name and c not in _PATH_META and np.any(data[c])]
    if not cols:
        raise ValueError(f"a load path needs displacement columns besides {name!r}")
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for c in cols:
        ax.plot(data[c], y, ".-", ms=2, label=c)
        if "index" in data:
            change = np.flatnonzero(np.diff(data["index"]) != 0) + 1
            ax.plot(data[c][change], y[change], "ko", ms=4)
    ax.set_xlabel("displacement [m]")
    ax.set_ylabel("load P [N]" if name == "load" else "load factor lambda [-]")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def timeseries_figure(csv_path: str | os.PathLike):
    """The matplotlib figure of :func:`plot_timeseries`, one panel per group of columns.

    Panels (:data:`PANELS`) are drawn for the columns that exist and are finite; every axis
    carries its SI unit. The balance panel shows the change of the Hamiltonian next to the
    work of the loads, of the actuator ports (``port_work``) and of moving supports, and the
    dissipated energy, so an actuated run whose energy rises without external work shows
    where the energy comes from. The time axis is ``t [s]``.

    A quasi-static run (its ``X_columns.json`` says so,
    :func:`fxrod.output.tables.write_columns_json`;
    a CSV without one: a kinetic energy column that is zero throughout) is drawn as
    statics: the columns of :data:`fxrod.output.tables.STATIC_OMITTED` (kinetic energy, momenta, the
    energy balance) are left out even if an older file has them, and the horizontal axis
    is the case's load parameter (:class:`fxrod.output.tables.LoadParameter`, e.g. ``tip force F
    [N]`` =
    ``per_t * t``), else ``load factor t [-]``.

    Parameters
    ----------
    csv_path : path-like
        A time-series CSV written by :class:`fxrod.runs.simulation.Simulation` (column ``t``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure (close it with ``matplotlib.pyplot.close``).

    Raises
    ------
    ValueError
        When the CSV has no column ``t`` or none of the plotted columns.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fxrod.output.tables import STATIC_OMITTED, LoadParameter, read_columns_json, read_csv

    data = read_csv(csv_path)
    if "t" not in data and next(iter(data), None) in PATH_PARAMETERS:
        return path_figure(data)
    if "t" not in data:
        raise ValueError(f"{csv_path}: no column 't' (a time series) and no first column "
                         f"{' or '.join(PATH_PARAMETERS)} (a load path)")
    doc = read_columns_json(csv_path)
    if doc is not None and "quasistatic" in doc:
        static = bool(doc["quasistatic"])
    else:
        static = "kinetic" in data and not np.any(np.nan_to_num(data["kinetic"]))
    load = None
    if static:
        data = {c: v for c, v in data.items() if c not in STATIC_OMITTED}
        spec = (doc or {}).get("load") or {}
        try:
            load = LoadParameter(**spec)
        except (TypeError, ValueError):      # an unreadable description: the load factor
            load = LoadParameter()
    else:
        data = _balance_columns(data)
    panels = [(name, [c for c in cols if c in data and np.isfinite(data[c]).any()])
              for name, cols in PANELS]
    panels = [(n, c) for n, c in panels if c and not (n.startswith("energy balance")
                                                       and c == ["H - H(0)"])]
    if not panels:
        need = ", ".join(c for _, cols in PANELS for c in cols if c != "H - H(0)")
        raise ValueError(f"{csv_path}: none of the plottable columns ({need}) is present")
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.2 * len(panels)), sharex=True)
    axes = np.atleast_1d(axes)
    t = data["t"] if load is None else load.per_t * data["t"]
    for ax, (name, cols) in zip(axes, panels, strict=True):
        for c in cols:
            ax.plot(t, data[c], label=c, ls="--" if c == "H - H(0)" else "-")
        ax.set_ylabel("stored energy [J]" if static and name == "energy [J]" else name)
        ax.legend(fontsize=7, loc="best")
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("t [s]" if load is None else load.label)
    if static:
        axes[0].set_title("quasi-static run: equilibria along the load path", fontsize=9)
    fig.tight_layout()
    return fig
