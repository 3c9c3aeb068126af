"""The pictures of the demos (``demos/<name>.py``): each function draws a demo's figures
from its results (runs, tables) into PNG/GIF files and returns their paths; the first few
serve several demos (the kept snapshots, snapshots with an animation, contact forces). Only
call these on MPI rank 0."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fxrod.viz import snapshot_figure


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path, dpi: int = 120) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    _plt().close(fig)
    return Path(path)


def kept_snapshots(sim, path: Path, **view) -> Path:
    """Every centreline a run kept (``sim.snapshots`` of a
    :class:`fxrod.runs.simulation.Simulation`) in one :func:`fxrod.viz.snapshot_figure`
    (``view``: its keywords: ``radius``, ``title``, ``azimuth``, ...)."""
    times = sorted(sim.snapshots)
    return Path(snapshot_figure([sim.snapshots[t] for t in times], times, path, **view))


def snapshots_and_animation(sim, out: Path, name: str, every: float, radius: float,
                            animation_radius: float, **view) -> list[Path]:
    """``<name>.png``: the kept centrelines closest to the multiples of ``every`` [s] (tubes
    of ``radius`` [m]; ``view``: further :func:`fxrod.viz.snapshot_figure` keywords), and
    ``<name>.gif``: every kept centreline (tubes of ``animation_radius`` [m])."""
    from fxrod.viz import animation

    kept = sorted(sim.snapshots)
    times = sorted({min(kept, key=lambda s: abs(s - t))
                    for t in np.arange(0.0, sim.rows[-1]["t"] + 1e-9, every)})
    png, gif = out / f"{name}.png", out / f"{name}.gif"
    snapshot_figure([sim.snapshots[t] for t in times], times, png, radius=radius, **view)
    animation([sim.snapshots[t] for t in kept], kept, gif, radius=animation_radius)
    return [png, gif]


def contact_figure(sim, path: Path, radius: float, **view) -> Path:
    """The rod at its last snapshot (tube of ``radius`` [m]) with the obstacle of its
    :class:`fxrod.runs.probes.ContactFieldProbe` and the nodal contact forces (normal and
    friction) as red arrows (pyvista, rank 0); ``view``: further
    :func:`fxrod.viz.snapshot_figure` keywords."""
    from fxrod.runs.probes import ContactFieldProbe

    field = next(p for p in sim.probes if isinstance(p, ContactFieldProbe))
    t = max(sim.snapshots)
    return snapshot_figure([sim.snapshots[t]], [t], path, radius=radius, azimuth=-30.0,
                           elevation=20.0, obstacles=[field.contact.obstacle],
                           forces=[field.frames[t].arrows()], **view)


# -- the cantilever vibrations (demos/cantilever_vibration.py)

def cantilever_pictures(sim, out: Path, elastic: str) -> list[Path]:
    """``<run>.png``: the kept centrelines with the tip path; for a viscoelastic run whose
    elastic twin ``<elastic>.csv`` is in ``out``, ``<elastic>_energy.png`` (H(t) of both,
    :func:`fxrod.viz.viscoelastic.energy_dissipation_figure`)."""
    tip = np.c_[sim.column("tip_1"), sim.column("tip_2"), sim.column("tip_3")]
    pngs = [kept_snapshots(sim, out / f"{sim.name}.png", radius=4e-3, extra_lines=[tip],
                           title=sim.name)]
    if sim.name != elastic and (out / f"{elastic}.csv").exists():
        from fxrod.viz.viscoelastic import energy_dissipation_figure

        pngs.append(energy_dissipation_figure(out / f"{elastic}.csv", out / f"{sim.name}.csv",
                                              out / f"{elastic}_energy.png"))
    return pngs


# -- the graded ANCF cantilever (demos/ancf_graded_cantilever.py)

def _grading(res: dict) -> str:
    return "uniform" if res["lam"] == 0.0 else f"lam={res['lam']:g}, n={res['n']:g}"


def ancf_grading_plots(results: list[dict], out: Path, name: str) -> list[Path]:
    """``<name>_tip``, ``_shapes``, ``_curvature``, ``_energy.png``: the tip histories, the
    static shapes and curvatures against linear theory (``w_linear``, ``K_linear``), the
    uniform beam's explicit energy balance (the first result)."""
    plt = _plt()

    def save(fig, suffix: str) -> Path:
        if suffix != "energy":
            fig.axes[0].grid(alpha=0.3)
            fig.axes[0].legend(fontsize=8)
        return _save(fig, out / f"{name}_{suffix}.png")

    paths = []
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        h = res["history"]
        ax.plot(h.column("t"), 1e3 * h.column("tip_2"), lw=0.9, label=_grading(res))
    ax.set(xlabel="t [s]", ylabel="tip y [mm]",
           title="Dynamic release under gravity (explicit central difference)")
    paths.append(save(fig, "tip"))

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        line, = ax.plot(res["shape"][:, 0], 1e3 * res["shape"][:, 1], label=_grading(res))
        ax.plot(res["x"][::8], -1e3 * res["w_linear"], "o", ms=3, mfc="none",
                color=line.get_color())
    ax.set(xlabel="x [m]", ylabel="y [mm]",
           title="Static shapes: ANCF (lines) vs linear Euler-Bernoulli (circles)")
    paths.append(save(fig, "shapes"))

    fig, ax = plt.subplots(figsize=(7.5, 4))
    for res in results:
        line, = ax.plot(res["x"], 1e3 * res["K"], label=_grading(res))
        ax.plot(res["x"][::4], 1e3 * res["K_linear"][::4], "o", ms=3, mfc="none",
                color=line.get_color())
    ax.set(xlabel="x [m]", ylabel="curvature K [1/km]",
           title="Static curvature: ANCF (lines) vs M/EI(x) (circles)")
    paths.append(save(fig, "curvature"))

    res = results[0]
    h = res["history"]
    t = h.column("t")
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.5, 5.5), sharex=True)
    a1.plot(t, h.column("kinetic"), label="kinetic T")
    a1.plot(t, h.column("strain_energy"), label="strain U")
    a1.plot(t, h.column("external_work"), label="gravity work W")
    a1.set_ylabel("energy [J]")
    a1.legend(fontsize=8)
    a1.grid(alpha=0.3)
    a2.plot(t, res["balance"] - res["balance"][0])
    a2.set(ylabel="T + U - W - (T + U - W)(0) [J]", xlabel="t [s]")
    a2.grid(alpha=0.3)
    a1.set_title(f"Explicit run, uniform beam: h = 0.9 h_cr = {res['dt']:.3g} s, "
                 f"energy error {res['energy_error']:.2g}", fontsize=10)
    paths.append(save(fig, "energy"))
    return paths


def ancf_release_snapshots(res: dict, path: Path, scale: float = 100.0) -> Path:
    """Snapshots of one release (``frames``, ``frame_t``), the deflection magnified
    ``scale`` times."""
    # viz looks along -e2 with e3 up: show the bending plane (x, y) as (e1, e3)
    frames = [np.column_stack([f[:, 0], f[:, 2], scale * f[:, 1]]) for f in res["frames"]]
    return snapshot_figure(
        frames, res["frame_t"], path, radius=0.006, azimuth=0.0, elevation=0.0,
        title=f"ANCF release, lam={res['lam']:g}, n={res['n']:g}; y magnified x{scale:g}")


# -- the tendon hook (demos/tendon_hook.py)

def tendon_hook_pictures(sim, out: Path, name: str, p) -> list[Path]:
    """``<name>.png`` (the load steps, the closed-form end state in black) and ``<name>.gif``
    of the hook ``p`` (:class:`fxrod.problems.soft_arm.HookParameters`)."""
    from fxrod.problems.soft_arm import tendon_hook_exact
    from fxrod.viz import animation

    times = sorted(sim.snapshots)
    frames = [sim.snapshots[t] for t in times]
    exact = tendon_hook_exact(p, s=np.linspace(0.0, p.length, 101))[0]
    return [Path(snapshot_figure(frames, times, out / f"{name}.png", radius=p.radius / 3,
                                 azimuth=0.0, elevation=0.0, extra_lines=[exact],
                                 title=f"tendon hook, T = 0 ... {p.tension:.3g} N "
                                       "(black: closed form)")),
            Path(animation(frames, times, out / f"{name}.gif", radius=p.radius / 3,
                           azimuth=0.0, elevation=0.0, fps=4))]


# -- the soft arm (demos/soft_arm.py)

def soft_arm_pictures(sim, out: Path, title: str, tip: np.ndarray,
                      every: float = 0.5) -> list[Path]:
    """``<run>.png`` (the snapshots at the multiples of ``every`` [s] and the tip path ``tip``
    [m]) and ``<run>.gif`` (every second kept state, the tip's trail) of the arm's run."""
    from fxrod.viz import animation

    times = [ts for ts in sorted(sim.snapshots)
             if abs(ts / every - round(ts / every)) < 1e-9]
    frames = sorted(sim.snapshots)[::2]
    return [Path(snapshot_figure([sim.snapshots[ts] for ts in times], times,
                                 out / f"{sim.name}.png", radius=0.004, title=title,
                                 extra_lines=[tip])),
            Path(animation([sim.snapshots[ts] for ts in frames], frames, out / f"{sim.name}.gif",
                           radius=0.004, trail=tip[::2]))]


# -- the continuum snake (demos/snake.py)

def snake_path_figure(run: dict, path: Path) -> Path:
    """The path of the centre of mass ``run["x"]`` and the final body ``run["centreline"]``
    in the ground plane [m]."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(run["x"][:, 0], run["x"][:, 1], label="centre of mass")
    c = run["centreline"]
    ax.plot(c[:, 0], c[:, 1], "k-", lw=3, label=f"body at t = {run['t'][-1]:.3g} s")
    ax.plot(c[-1, 0], c[-1, 1], "ko", ms=5)
    ax.set_xlabel("x_1 [m]")
    ax.set_ylabel("x_2 [m]")
    ax.set_aspect("equal")
    ax.legend(loc="best", fontsize=8)
    ax.set_title("continuum snake on anisotropic Coulomb friction")
    return _save(fig, path)


# -- Lee's frame (demos/lee_frame.py)

def lee_frame_figure(cont, path: Path, digitised: tuple) -> Path:
    """The load factor against u and v of the loaded point (``cont``: the
    :class:`fxrod.analysis.continuation.Continuation`, point ``"load"``), the critical points
    marked, the mean of each pair of ``digitised`` limit loads as a level."""
    from fxrod.viz import load_path_picture

    lam = np.array([p.lam for p in cont.path])
    d = np.array([p.displacements["load"] for p in cont.path])
    crit = cont.critical
    return load_path_picture(
        path, {"u (horizontal)": (d[:, 0], lam), "v (vertical, down)": (-d[:, 1], lam)},
        "displacement of the loaded point [m]", "load factor $P L^2/EI$ [-]",
        marks=([-p.displacements["load"][1] for p in crit], [p.lam for p in crit]),
        levels={"Simo & Vu-Quoc 1986": float(np.mean(digitised[0])),
                "_nolegend_": float(np.mean(digitised[1]))},
        title="Lee's frame (dashed: Simo & Vu-Quoc 1986, limit loads)")


# -- the quasi-static cantilever (demos/quasistatic_cantilever.py)

def quasistatic_cantilever_figure(sims: dict, constrained: dict[str, bool], path: Path) -> Path:
    """The kept centrelines and the tip path of every run of ``sims`` ``{variant: run}``
    (one panel each), the exact ones of ``fxrod.data`` dashed (the Kirchhoff elastica where
    ``constrained[variant]``, else the Reissner rod): the paper's Fig. 14."""
    import csv

    from fxrod.data import reference_path

    plt = _plt()
    with open(reference_path("exact", "exact_centerlines.csv")) as fh:
        exact = list(csv.DictReader(fh))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, (variant, sim) in zip(axes, sims.items(), strict=True):
        for t, pts in sorted(sim.snapshots.items()):
            ax.plot(pts[:, 0], pts[:, 1], "o-", ms=3, label=f"fxrod t = {t:g}")
        ax.plot(sim.column("tip_1"), sim.column("tip_2"), "k.", ms=4, label="fxrod tip")
        tipf = ("elastica_constrained_tip.csv" if constrained[variant]
                else "reissner_unconstrained_tip.csv")
        tip = np.loadtxt(reference_path("exact", tipf), delimiter=",", skiprows=1)
        ax.plot(tip[:, 1], tip[:, 2], "k-", lw=0.8, label="exact tip path")
        rows = [r for r in exact if r["case"] == variant]
        for t in sorted({float(r["t"]) for r in rows}):
            xy = np.array([[float(r["x"]), float(r["y"])] for r in rows if float(r["t"]) == t])
            ax.plot(xy[:, 0], xy[:, 1], "k--", lw=0.8)
        ax.set(title=f"{variant} (dashed: exact)", aspect="equal", xlabel="x")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("y")
    axes[0].legend(fontsize=7)
    return _save(fig, path, dpi=110)


# -- the Hamel free beam (demos/hamel_free_beam.py)

def hamel_pictures(h, frames, dt: float, t_end: float, out: Path, name: str) -> list[Path]:
    """The paper's Figs. 2-3 (``<name>_angular.png``, ``_linear.png``: each momentum
    component over time, J_d against its leading term and mid-frame approximation), the
    deviations from J_d(0) (``_deviation.png``, log scale) of the history ``h``
    (:class:`fxrod.output.history.History`, step ``dt`` [s]) and the snapshots ``frames``
    (:class:`fxrod.hamel.Frames`) with their director triads and the tip path
    (``<name>.png``)."""
    from fxrod.hamel import series

    plt = _plt()
    t, Jd, J_lead, J_mid, H = (h.column("t"), series(h, "Jd"), series(h, "J_lead"),
                               series(h, "J_mid"), h.column("H"))
    paths = []
    for part, off, unit in (("angular", 0, "kg m$^2$/s"), ("linear", 3, "kg m/s")):
        fig, axs = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
        for k, ax in enumerate(axs):
            ax.plot(t, J_lead[:, off + k], lw=0.8, label="leading term at $g^n$ (O(h))")
            ax.plot(t, J_mid[:, off + k], lw=1.2, label="mid-frame (O(h$^2$))")
            ax.plot(t, Jd[:, off + k], "k--", lw=1.2, label="$J_d$ (exact)")
            sym = "L" if off == 0 else "P"
            ax.set_ylabel(f"${sym}_{k + 1}$ [{unit}]")
            ax.ticklabel_format(useOffset=False)
        axs[0].legend(fontsize=8, loc="best")
        axs[-1].set_xlabel("t [s]")
        fig.suptitle(f"HFVI free beam: {part} momentum (paper's Fig. {2 if off == 0 else 3})")
        paths.append(_save(fig, out / f"{name}_{part}.png"))

    J0 = Jd[0]
    fig, ax = plt.subplots(figsize=(7, 4))
    tiny = 1e-18
    for lab, J in (("leading term", J_lead), ("mid-frame", J_mid), ("$J_d$", Jd)):
        ax.semilogy(t, np.abs(J - J0).max(axis=1) + tiny, lw=1, label=f"max|{lab} - $J_d(0)$|")
    ax.semilogy(t, np.abs(H - H[0]) / H[0] + tiny, lw=1, label="|H - H(0)|/H(0)")
    ax.set_xlabel("t [s]")
    ax.set_ylim(1e-16, 1.0)
    ax.legend(fontsize=8)
    ax.set_title(f"conservation (h = {dt:g} s)")
    paths.append(_save(fig, out / f"{name}_deviation.png"))
    paths.append(snapshot_figure(frames.positions, frames.t, out / f"{name}.png",
                                 triads=frames.rotations, extra_lines=[series(h, "tip")],
                                 title=f"HFVI free beam, t = 0 .. {t_end:g} s"))
    return paths


# -- the capstan (demos/capstan.py)

def capstan_figure(sims: dict, ratios: dict, drum_radius: float, path: Path) -> Path:
    """The ropes at t = 0 and at the end of the pull on their drums of ``drum_radius`` [m]
    (e1-e3 plane), one panel per pair ``(mu, theta)`` of ``sims``, titled with the measured
    ``ratios`` T_out/T_in against exp(mu theta)."""
    plt = _plt()
    fig, axes = plt.subplots(1, len(sims), figsize=(5 * len(sims), 4.6))
    for ax, ((mu, theta), sim) in zip(np.atleast_1d(axes), sims.items(), strict=True):
        ax.add_patch(plt.Circle((0.0, 0.0), drum_radius, color="0.8", ec="0.3"))
        for k, (t, x) in enumerate(sorted(sim.snapshots.items())):
            ax.plot(x[:, 0], x[:, 2], "-" if k else "--", lw=2.5 if k else 1.0,
                    color="C0" if k else "0.5", label=f"t = {t:g}")
        ax.set_aspect("equal")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("z [m]")
        ax.set_title(f"mu = {mu:g}, theta = {np.degrees(theta):.0f} deg\nT_out/T_in = "
                     f"{ratios[(mu, theta)]:.4f}, exp(mu theta) = {np.exp(mu * theta):.4f}",
                     fontsize=10)
        ax.legend(loc="lower center", fontsize=8)
    return _save(fig, path)


# -- the plectoneme (demos/plectoneme.py)

def plectoneme_pictures(sim, out: Path, name: str, radius: float, straight_slope: float,
                        critical_torque: float) -> list[Path]:
    """``<name>.png``: the rod (tube of ``radius`` [m]) at the end of the run;
    ``<name>_torque.png``: the torque against the twist with the straight branch
    ``straight_slope theta`` [N m/rad] and the critical torque [N m]."""
    t = max(sim.snapshots)
    paths = [Path(snapshot_figure([sim.snapshots[t]], [t], out / f"{name}.png", radius=radius,
                                  azimuth=30.0, elevation=10.0,
                                  title="twisted rod: plectoneme"))]
    plt = _plt()
    turns, torque = sim.column("twist_turns"), sim.column("torque")
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    ax.plot(turns, torque, lw=1.5, label="fxrod (clamp torque)")
    ref = 2 * np.pi * turns * straight_slope
    ax.plot(turns, np.where(ref <= 1.1 * np.max(torque), ref, np.nan), "k--", lw=0.8,
            label="straight rod")
    ax.axhline(critical_torque, color="0.5", lw=0.8, ls=":", label="2 sqrt(B T)")
    ax.set_xlabel("twist [turns]")
    ax.set_ylabel("torque [N m]")
    ax.legend(fontsize=8)
    return [*paths, _save(fig, out / f"{name}_torque.png")]


# -- the soft arm's grasp (demos/soft_arm_grasp.py)

def grasp_pictures(sim, out: Path, name: str, centre, cylinder_radius: float,
                   arm_radius: float) -> list[Path]:
    """``<name>.png``: the kept centrelines of the arm in the bending plane (x-z), coloured
    by time, the arm's outline (``+-arm_radius`` [m]) at the last one, and the cylinder (a
    point ``centre`` of its axis along e2, ``cylinder_radius`` [m]); ``<name>_contact.png``:
    :func:`contact_figure` (tube of a fifth of the arm's radius)."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.6, 5.2))
    ax.add_patch(plt.Circle((centre[0], centre[2]), cylinder_radius, color="0.75", ec="0.3"))
    times = sorted(sim.snapshots)
    colours = plt.cm.viridis(np.linspace(0.0, 1.0, len(times)))
    for t, c in zip(times, colours, strict=True):
        x = sim.snapshots[t]
        ax.plot(x[:, 0], x[:, 2], color=c, lw=1.5, label=f"t = {t:g} s")
    x = sim.snapshots[times[-1]][:, [0, 2]]
    tang = np.gradient(x, axis=0)
    nrm = np.c_[-tang[:, 1], tang[:, 0]] / np.linalg.norm(tang, axis=1)[:, None]
    for sgn in (1.0, -1.0):
        ax.plot(*(x + sgn * arm_radius * nrm).T, color="k", lw=0.8)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_title(f"soft arm grasping a cylinder (R = {cylinder_radius:g} m)", fontsize=10)
    ax.legend(loc="lower right", fontsize=7)
    return [_save(fig, out / f"{name}.png"),
            contact_figure(sim, out / f"{name}_contact.png", 0.2 * arm_radius)]


# -- the optimal actuation (demos/optimal_actuation.py)

def tracking_figure(path: Path, sim, target: np.ndarray) -> Path:
    """The tip path of ``sim`` seen from above (x, y) and its height z(t), against the
    ``target`` path ``(N, 3)`` [m] at the steps after t = 0."""
    plt = _plt()
    tip = np.c_[sim.column("tip_1"), sim.column("tip_2"), sim.column("tip_3")]
    t = sim.column("t")
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2))
    a.plot(target[:, 0], target[:, 1], "k.", label="heart path (authors' data)")
    a.plot(tip[:, 0], tip[:, 1], "C3-", label="tip, optimised inputs")
    a.set(xlabel="x [m]", ylabel="y [m]", aspect="equal", title="tip seen from above")
    a.legend(loc="lower left", fontsize=8)
    b.plot(t[1:], target[:, 2], "k.", label="data")
    b.plot(t, tip[:, 2], "C3-", label="optimised")
    b.set(xlabel="t [s]", ylabel="z [m]", title="tip height")
    return _save(fig, path)
